"""The numba cache: one folder per source version, older versions pruned, `simcore cache` shows and clears it."""

import os
import time

import simcore


def _isolated(tmp_path):
    """A cache root of the test's own; the folder this test process uses is not handed down."""
    env = {"XDG_CACHE_HOME": str(tmp_path), "NUMBA_CACHE_DIR": None}
    return env, tmp_path / "simcore"


def _fake_versions(root, ages_s, prefix="old"):
    folders = []
    for k, age in enumerate(ages_s):
        folder = root / f"numba-{prefix}{k:02d}"
        folder.mkdir(parents=True)
        (folder / "index.nbi").write_bytes(b"x" * 1000)
        stamp = time.time() - age
        os.utime(folder, (stamp, stamp))
        folders.append(folder)
    return folders


def test_older_source_versions_are_pruned_keeping_the_newest_few(cli, tmp_path):
    env, root = _isolated(tmp_path)
    hours = [3600 * (2 + k) for k in range(6)]           # six versions last used 2..7 hours ago
    old = _fake_versions(root, hours)
    recent = _fake_versions(root, [60], prefix="recent")[0]   # used a minute ago
    result = cli("cache", env=env)
    assert result.returncode == 0, result.stderr
    kept = {f.name for f in root.glob("numba-*")}
    current = {name for name in kept if not name.startswith(("numba-old", "numba-recent"))}
    assert len(current) == 1                              # this version's folder
    # the newest KEEP_CACHES versions stay (this one and the next most recent), and so does any folder
    # used within the hour, which a running process may still be writing to
    newest_old = {f.name for f in old[:simcore.KEEP_CACHES - 2]}
    assert kept == current | {recent.name} | newest_old


def test_cache_command_prints_location_and_clears(cli, tmp_path):
    env, root = _isolated(tmp_path)
    _fake_versions(root, [7200, 7300])
    shown = cli("cache", env=env)
    assert shown.returncode == 0, shown.stderr
    assert f"numba cache: {root}" in shown.stdout
    assert "2 files" in shown.stdout
    cleared = cli("cache", "--clear", env=env)
    assert cleared.returncode == 0, cleared.stderr
    assert "cleared" in cleared.stdout
    assert not any(root.iterdir())
