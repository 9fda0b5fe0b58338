"""The numba cache: one folder per source version, older versions pruned, `simcore cache` shows and clears it."""

import ast
import importlib
import os
import shutil
import time
from pathlib import Path

import pytest
from numba.core.dispatcher import Dispatcher

import simcore
from simcore import games


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


def test_the_cache_folder_changes_with_the_jitted_source_only(tmp_path):
    """The folder's hash covers what the jitted code is compiled from (simcore.JITTED): editing the CLI, the
    reports or the pictures recompiles nothing (issue 23), editing a rule, the random streams or a shipped
    map does."""
    package = tmp_path / "simcore"
    shutil.copytree(Path(simcore.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    before = simcore._source_digest(package)
    for name in ("cli.py", "watch/replay_page.py", "watch/pictures.py", "studies/tune_report.py", "io/config.py",
                 "games/wichtel/text.py", "games/zwai/picture.py"):
        (package / name).write_text((package / name).read_text() + "\n# an edit\n")
    assert simcore._source_digest(package) == before
    for name in ("engine/rng.py", "engine/jit.py", "games/zwai/rules.py", "games/wichtel/heuristics.py",
                 "agents/core.py", "games/goofspiel/__init__.py", "data/yards.toml"):
        edited = package / name
        text = edited.read_text()
        edited.write_text(text + "\n# an edit\n")
        assert simcore._source_digest(package) != before, name
        edited.write_text(text)
    assert simcore._source_digest(package) == before


def _simcore_imports(file):
    """The simcore modules a source file imports at its top (what importing it loads), by dotted name."""
    names = set()
    for node in ast.parse(file.read_text()).body:
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in names if name.split(".")[0] == "simcore"}


def test_the_jitted_code_imports_nothing_outside_the_hashed_source():
    """Every hashed file imports only simcore modules that are hashed too, or a game's plain words and picture
    (simcore.PLAIN, which compile nothing): a constant the compiled code reads from an imported module cannot
    change without a new cache folder."""
    package = Path(simcore.__file__).parent
    hashed = {file.relative_to(package) for file in simcore.hashed_files(package)}
    for file in simcore.hashed_files(package):
        if file.suffix != ".py":
            continue
        for name in _simcore_imports(file):
            parts = name.split(".")[1:]
            module = Path(*parts).with_suffix(".py") if parts else Path("__init__.py")
            candidates = [module, Path(*parts, "__init__.py")] if parts else [module]
            found = [c for c in candidates if (package / c).exists()]
            if not found:
                continue                              # a name imported from a module, not a module
            assert found[0] in hashed or found[0].name in simcore.PLAIN, (file.relative_to(package), name)


@pytest.mark.parametrize("name", games.names())
def test_a_games_words_and_picture_compile_nothing(name):
    """The files the hash leaves out (simcore.PLAIN: a game's text.py and picture.py) define no jitted function,
    so no machine code is compiled from source that does not name the cache folder."""
    package = games.MODULES[name]
    for part in simcore.PLAIN:
        module = importlib.import_module(f"{package}.{part.removesuffix('.py')}")
        jitted = [key for key, value in vars(module).items()
                  if isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__]
        assert not jitted, (module.__name__, jitted)
