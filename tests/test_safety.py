"""Issue 36: never lose a result, never write outside the folder the user named.

Each case here was found by a hostile test: a planted link, a device as the output, a second writer, a signal.
"""

import os
import signal
import stat
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

from simcore.io import config as cfg
from simcore.io import results, writing
from tests.conftest import start_simcore, wait_for


def _run(games=20):
    return cfg.resolve("goofspiel", games=games, seed=1)


def _write(path, games=20):
    with results.ResultWriter(path, _run(games)) as writer:
        writer.add(0, _rows(games))


def _rows(games):
    from simcore import engine
    run = _run(games)
    return engine.run(run.module, run.params_array(), run.policies_array(), run.seed, games)


def test_a_link_planted_at_the_lock_file_is_refused_not_followed(cli, tmp_path):
    """Issue 36: a `.X.lock` link made simcore truncate the file it pointed to, outside the folder."""
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / ".x.parquet.lock").symlink_to(outside)
    result = cli("run", "goofspiel", "--games", "20", "--out", folder / "x.parquet", "--quiet")
    assert result.returncode != 0
    assert "lock file" in result.stderr and "is a link" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert outside.read_text() == "precious"
    assert not (folder / "x.parquet").exists()


def test_a_link_planted_at_a_folders_lock_is_refused_not_followed(cli, tmp_path):
    """Issue 36: the same with a sweep folder's `.simcore.lock`."""
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / writing.FOLDER_LOCK).symlink_to(outside)
    with pytest.raises(OSError, match="is a link"), writing.Lock(folder):
        pass
    assert outside.read_text() == "precious"


def test_a_link_planted_at_the_old_temporary_name_receives_nothing(tmp_path):
    """Issue 36: a link at `.X.<pid>.tmp` received the Parquet result. Temporary files are now created anew
    under a name that cannot be guessed."""
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    (tmp_path / f".x.parquet.{os.getpid()}.tmp").symlink_to(outside)
    _write(tmp_path / "x.parquet")
    assert outside.read_text() == "precious"
    assert pq.read_table(tmp_path / "x.parquet").num_rows == 20


def test_write_atomic_never_writes_through_a_planted_link(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    (tmp_path / f".m.json.{os.getpid()}.tmp").symlink_to(outside)
    writing.write_atomic(tmp_path / "m.json", lambda path: path.write_text("{}"))
    assert outside.read_text() == "precious" and (tmp_path / "m.json").read_text() == "{}"


def test_a_pipe_as_the_output_is_refused_not_replaced(cli, tmp_path):
    """Issue 36: `--out /dev/null` (as root) replaced the device with a regular file. Only a new path or a
    regular file is written; a pipe, a device or a socket is refused in one line."""
    pipe = tmp_path / "pipe.parquet"
    os.mkfifo(pipe)
    result = cli("run", "goofspiel", "--games", "20", "--out", pipe, "--quiet")
    assert result.returncode != 0 and "not a regular file" in result.stderr
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe.parquet"]


@pytest.mark.skipif(os.getuid() != 0, reason="only root can replace /dev/null")
def test_dev_null_as_the_output_is_refused_not_replaced(cli):
    result = cli("run", "goofspiel", "--games", "20", "--out", "/dev/null", "--quiet")
    assert result.returncode != 0 and "not a regular file" in result.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not os.path.exists("/dev/.null.lock")


def test_write_atomic_refuses_a_device(tmp_path):
    pipe = tmp_path / "report.md"
    os.mkfifo(pipe)
    with pytest.raises(OSError, match="not a regular file"):
        writing.write_atomic(pipe, lambda path: path.write_text("x"))
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


def test_sigterm_leaves_nothing_behind_as_sigint_does(tmp_path):
    """Issue 36: SIGTERM, unlike SIGINT, left `.tmp` and `.lock` files behind."""
    out = tmp_path / "x.parquet"
    writer = start_simcore("run", "zwai", "--games", "100000000", "--out", out, "--quiet")
    wait_for(lambda: any(p.name.endswith(".tmp") for p in tmp_path.iterdir()), writer)
    writer.send_signal(signal.SIGTERM)
    _, err = writer.communicate(timeout=120)
    assert writer.returncode != 0
    assert list(tmp_path.iterdir()) == [], err


# --- a second run into a folder of finished results ---------------------------------------------------------------

def test_a_ladder_of_other_settings_needs_force_to_replace_a_finished_one(cli, tmp_path):
    """Issue 36: a ladder re-run with another base or game count replaced the folder's finished results without a
    word. It is refused in one line; --force replaces them."""
    out = tmp_path / "l"
    first = ("ladder", "goofspiel", "--budgets", "1,2", "--games", "3", "--out", out, "--quiet")
    assert cli(*first).returncode == 0
    before = {p.name: p.read_bytes() for p in out.glob("*.parquet")}
    for change in (("--games", "4"), ("--policy-base", "mc")):
        again = cli(*first[:-3], *change, "--out", out, "--quiet") if change[0] == "--games" else \
            cli(*first, *change)
        assert again.returncode != 0 and "allowed: --force to replace them, or a new folder" in again.stderr
        assert len(again.stderr.strip().splitlines()) == 1
        assert {p.name: p.read_bytes() for p in out.glob("*.parquet")} == before
    assert cli(*first).returncode == 0              # the same ladder again resumes: nothing to replace
    forced = cli("ladder", "goofspiel", "--budgets", "1,2", "--games", "4", "--out", out, "--quiet", "--force")
    assert forced.returncode == 0, forced.stderr
    assert pq.read_table(out / "b2-vs-b1-seat0.parquet").num_rows == 4


def test_versus_out_is_a_folder_of_its_own_kind(cli, tmp_path):
    """Issue 36: `versus --out` overwrote a sweep's finished variant, and two contests into one folder both
    exited 0 with the first one's results gone."""
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('game = "goofspiel"\ngames = 10\n[axes]\nnum_cards = [4, 5]\n')
    assert cli("sweep", sweep_file, "--out", tmp_path / "s", "--quiet").returncode == 0
    base = ("versus", "goofspiel", "--policy", "greedy", "--against", "random", "--games", "10", "--quiet")
    into_sweep = cli(*base, "--out", tmp_path / "s")
    assert into_sweep.returncode != 0 and "it holds a sweep of goofspiel" in into_sweep.stderr
    assert cli(*base, "--out", tmp_path / "v").returncode == 0
    first = {p.name: p.read_bytes() for p in (tmp_path / "v").glob("*.parquet")}
    other = cli("versus", "goofspiel", "--policy", "random", "--against", "greedy", "--games", "10", "--quiet",
                "--out", tmp_path / "v")
    assert other.returncode != 0 and "--force" in other.stderr
    assert {p.name: p.read_bytes() for p in (tmp_path / "v").glob("*.parquet")} == first


def test_versus_out_that_cannot_be_written_is_refused_before_playing(cli, tmp_path):
    """Issue 36: `versus --out` into a non-folder path was a NotADirectoryError traceback after playing."""
    (tmp_path / "file").write_text("x")
    for target in (tmp_path / "file", tmp_path / "file" / "sub"):
        done = cli("versus", "goofspiel", "--policy", "greedy", "--against", "random", "--games", "10", "--out",
                   target, "--quiet")
        assert done.returncode != 0 and "Traceback" not in done.stderr
        assert ("is a file" in done.stderr.strip().splitlines()[-1] or "Not a directory" in done.stderr), done.stderr


TUNE = """
game = "goofspiel"
seed = 4
[space]
num_cards = [4, 5]
[objective]
gap = 1.0
[search]
batch = 100
games_max = 200
confirm_games = 100
bootstrap = 100
finalists = 2
"""


def test_an_edited_tune_file_needs_force_to_replace_the_finished_race(cli, tmp_path):
    """Issue 36: an edited tune file replaced the folder's finished batches without a word."""
    path = tmp_path / "t.toml"
    path.write_text(TUNE)
    assert cli("tune", path, "--out", tmp_path / "t", "--quiet").returncode == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "t").glob("*.parquet")}
    path.write_text(TUNE.replace("gap = 1.0", "gap = 2.0"))
    again = cli("tune", path, "--out", tmp_path / "t", "--quiet")
    assert again.returncode != 0 and "holds the finished batches of another tune file" in again.stderr
    assert {p.name: p.read_bytes() for p in (tmp_path / "t").glob("*.parquet")} == before
    assert cli("tune", path, "--out", tmp_path / "t", "--quiet", "--force").returncode == 0


@pytest.mark.parametrize("edit, says", [
    (("gap = 1.0", "gap = 1e308"), "weight = 1e+308 is not allowed; allowed: above 0, at most 1e+06"),
    (("num_cards = [4, 5]", "num_cards = [4, 4, 5]"), "[space] num_cards lists 4 twice; allowed: distinct values"),
    (("seed = 4", f"seed = {cfg.MAX_SEED}"), "its confirmation plays seed + 1"),
    (("bootstrap = 100", "bootstrap = 100\nconfirm_seed = -1"), "confirm_seed = -1 is not allowed"),
])
def test_tune_files_that_would_race_on_nan_twins_or_overflow_are_refused(cli, tmp_path, edit, says):
    """Issue 36: tune weights of 1e308 chose a "best" on inf/nan, duplicate candidates were raced against each
    other, and the largest allowed seed failed only after the whole race (the confirmation plays seed + 1)."""
    path = tmp_path / "t.toml"
    path.write_text(TUNE.replace(*edit))
    done = cli("tune", path, "--out", tmp_path / "t", "--quiet")
    assert done.returncode != 0 and says in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "t").exists()


# --- the analyses read only what a run finished ---------------------------------------------------------------

def test_an_unfinished_folder_is_said_and_a_manifest_cannot_point_outside(cli, tmp_path):
    """Issue 36: a half-written folder was analysed as if complete, and a manifest entry pointing outside its
    folder was read."""
    import json
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('game = "goofspiel"\ngames = 20\n[axes]\nnum_cards = [4, 5]\n')
    out = tmp_path / "s"
    assert cli("sweep", sweep_file, "--out", out, "--quiet").returncode == 0
    manifest = json.loads((out / "_manifest.json").read_text())
    del manifest["variants"]["num_cards=5"]
    (out / "_manifest.json").write_text(json.dumps(manifest))
    done = cli("analyze", out)
    assert done.returncode == 0, done.stderr
    assert "is not finished: 1 of its 2 planned variants have no results (num_cards=5)" in done.stderr
    manifest["variants"]["num_cards=4"]["file"] = "../../elsewhere.parquet"
    (out / "_manifest.json").write_text(json.dumps(manifest))
    done = cli("analyze", out)
    assert done.returncode != 0 and "allowed: a file name in the folder" in done.stderr


@pytest.mark.skipif(os.getuid() == 0, reason="root may write a read-only folder")
def test_a_read_only_out_folder_is_refused_before_playing(cli, tmp_path):
    """Issue 36: `versus --out` into a read-only folder was a PermissionError traceback."""
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    for args in (("versus", "goofspiel", "--policy", "greedy", "--against", "random", "--games", "10"),
                 ("ladder", "goofspiel", "--budgets", "1,2", "--games", "3")):
        done = cli(*args, "--out", folder / "sub", "--quiet")
        assert done.returncode != 0 and "Permission denied" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


def test_an_output_name_too_long_for_the_file_system_is_one_line(cli, tmp_path):
    """Issue 36: `--out` names longer than the file system allows were an OSError traceback."""
    for args in (("run", "goofspiel", "--games", "5", "--out", tmp_path / ("x" * 250 + ".parquet")),
                 ("versus", "goofspiel", "--policy", "greedy", "--against", "random", "--games", "4", "--out",
                  tmp_path / ("x" * 300))):
        done = cli(*args, "--quiet")
        assert done.returncode != 0 and "File name too long" in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_an_output_folder_with_a_colon_is_a_folder_not_a_uri(cli, tmp_path):
    """Issue 36: an output folder whose name starts with letters and holds ':' (run:2/) was read by pyarrow
    as a URI (a traceback)."""
    folder = tmp_path / "run:2"
    folder.mkdir()
    done = cli("run", "goofspiel", "--games", "5", "--out", "run:2/x.parquet", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('game = "goofspiel"\ngames = 5\n[axes]\nnum_cards = [4, 5]\n')
    for args in (("sweep", sweep_file, "--out", "run:2/s", "--quiet"), ("analyze", "run:2/s", "run:2/x.parquet")):
        done = cli(*args, cwd=tmp_path)
        assert done.returncode == 0, (args, done.stderr)


def test_a_trace_path_that_is_a_folder_stops_the_run_before_it_plays(cli, tmp_path):
    """Issue 36: `run --trace` where the trace's path was a folder was an IsADirectoryError after writing the
    result."""
    (tmp_path / "_traces" / "x.trace.parquet").mkdir(parents=True)
    done = cli("run", "goofspiel", "--games", "5", "--out", tmp_path / "x.parquet", "--trace", "--quiet")
    assert done.returncode != 0 and "it is a folder" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.parquet").exists()
    (tmp_path / "y").mkdir()
    (tmp_path / "y" / "_traces").write_text("a file")
    done = cli("run", "goofspiel", "--games", "5", "--out", tmp_path / "y" / "x.parquet", "--trace", "--quiet")
    assert done.returncode != 0 and "_traces: it is not a folder" in done.stderr
    assert not (tmp_path / "y" / "x.parquet").exists()


def test_replaying_a_trace_names_its_result_file(cli, tmp_path):
    """Issue 36: `replay X.trace.parquet` was `KeyError: 'game'`."""
    assert cli("run", "goofspiel", "--games", "5", "--out", tmp_path / "x.parquet", "--trace", "--quiet"
               ).returncode == 0
    done = cli("replay", tmp_path / "_traces" / "x.trace.parquet")
    assert done.returncode != 0 and "is a trace" in done.stderr and str(tmp_path / "x.parquet") in done.stderr


def test_metadata_that_is_not_utf8_is_read(cli, tmp_path):
    """Issue 36: a non-UTF-8 `simcore.*` metadata value was a traceback."""
    assert cli("run", "goofspiel", "--games", "20", "--out", tmp_path / "x.parquet", "--quiet").returncode == 0
    table = pq.read_table(tmp_path / "x.parquet")
    meta = {**table.schema.metadata, b"simcore.variant": b"\xff\xfe"}
    pq.write_table(table.replace_schema_metadata(meta), tmp_path / "y.parquet")
    for args in (("analyze", tmp_path / "y.parquet"), ("replay", tmp_path / "y.parquet", "--quiet")):
        done = cli(*args)
        assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr


def test_a_name_the_locale_cannot_spell_leaves_no_lock_behind(tmp_path):
    """Issue 36: LC_ALL=C with a non-ASCII output name was a UnicodeEncodeError that left `.NAME.lock` behind."""
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    done = subprocess.run([sys.executable, "-m", "simcore", "run", "goofspiel", "--games", "5", "--out",
                           "é.parquet", "--quiet"], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert os.listdir(tmp_path) == ["é.parquet"]


def test_results_get_the_mode_of_a_new_file(cli, tmp_path):
    """A result is written under a private temporary file; renamed into place it has the mode any new file
    gets (the umask's), not 0600."""
    assert cli("run", "goofspiel", "--games", "5", "--out", tmp_path / "x.parquet", "--quiet").returncode == 0
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "x.parquet").st_mode) == 0o666 & ~umask


@pytest.mark.parametrize("value", ["abc", "0", "-2"])
def test_a_bad_numba_num_threads_is_one_line(cli, value):
    """Issue 36: NUMBA_NUM_THREADS=abc printed a Python warning with a traceback."""
    done = cli("run", "goofspiel", "--games", "5", "--quiet", env={"NUMBA_NUM_THREADS": value})
    assert done.returncode != 0 and f"NUMBA_NUM_THREADS={value} is not allowed" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


# --- a sweep folder: what data tools read, names that cannot collide, a manifest that keeps up ---------------

def test_data_tools_read_a_traced_sweep_folder_in_one_call(tmp_path):
    """Issue 36: pd.read_parquet(folder), pl.read_parquet(folder/*.parquet) and DuckDB's 'folder/*.parquet' failed
    on a sweep folder (the manifest, and the traces in the same glob); DuckDB's union_by_name added the traces'
    rows with an empty variant."""
    import duckdb
    import pandas as pd
    import polars as pl

    from simcore.studies import sweep
    path = tmp_path / "s.toml"
    path.write_text('game = "goofspiel"\ngames = 30\n[axes]\nnum_cards = [4, 5, 6]\n')
    out = tmp_path / "runs"
    sweep.run(sweep.load(path), out, trace=True)
    assert (out / "_traces" / "num_cards=4.trace.parquet").is_file()
    frame = pd.read_parquet(out)
    assert len(frame) == 90 and sorted(frame["variant"].unique()) == ["num_cards=4", "num_cards=5", "num_cards=6"]
    assert pl.read_parquet(out / "*.parquet").height == 90
    rows = duckdb.sql(f"SELECT count(*), count(DISTINCT variant) FROM read_parquet('{out}/*.parquet', "
                      "union_by_name = true)").fetchall()
    assert rows == [(90, 3)]


def test_a_variant_named_like_a_trace_keeps_every_file(tmp_path):
    """Issue 36: a variant named `a.trace` destroyed variant a's files (its result was the name of a's trace)."""
    from simcore.studies import sweep
    path = tmp_path / "s.toml"
    path.write_text('game = "goofspiel"\ngames = 20\n[[variants]]\nname = "a"\n[[variants]]\nname = "a.trace"\n'
                    'num_cards = 5\n')
    out = tmp_path / "runs"
    plan = sweep.load(path)
    sweep.run(plan, out, trace=True)
    sweep.run(plan, out)
    for name, turns in (("a", 13), ("a.trace", 5)):       # Goofspiel plays a trick a card
        table = pq.read_table(out / f"{name}.parquet")
        assert table.num_rows == 20 and set(table["variant"].to_pylist()) == {name}
        assert set(table["n_turns"].to_pylist()) == {turns}
        assert pq.read_table(out / "_traces" / f"{name}.trace.parquet").num_rows == 40
    assert set(sweep.run(plan, out, trace=True).values()) == {"skipped"}


def test_a_stale_trace_is_played_again_or_removed(tmp_path):
    """Issue 36: a trace of another run stayed beside a result (a kill between the two renames, a full disk, a
    copy); resume never repaired it and analyze used it. A sweep with --trace plays such a variant again; one
    without it removes the trace."""
    import shutil

    from simcore.studies import sweep
    path = tmp_path / "s.toml"
    path.write_text('game = "goofspiel"\ngames = 20\n[axes]\nnum_cards = [4, 5]\n')
    out = tmp_path / "runs"
    plan = sweep.load(path)
    sweep.run(plan, out, trace=True)
    traces = out / "_traces"
    shutil.copy(traces / "num_cards=5.trace.parquet", traces / "num_cards=4.trace.parquet")   # swapped
    assert results.trace_mismatch(out / "num_cards=4.parquet") == "its trace is of another run"
    status = sweep.run(plan, out, trace=True)
    assert status == {"num_cards=4": "played again", "num_cards=5": "skipped"}
    assert results.trace_mismatch(out / "num_cards=4.parquet") is None
    (traces / "num_cards=5.trace.parquet").write_bytes(b"cut short")
    assert sweep.run(plan, out) == {"num_cards=4": "skipped", "num_cards=5": "skipped"}
    assert not (traces / "num_cards=5.trace.parquet").exists() and (traces / "num_cards=4.trace.parquet").exists()


def test_finished_variants_are_journalled_at_once_and_the_manifest_written_seldom(tmp_path, monkeypatch):
    """Issue 36: a 17,640-variant sweep slowed from 53 to 7 variants a second: the whole manifest was rewritten
    after every variant. Each finished variant is now one line appended to the journal; the manifest is written
    before the sweep plays, every few seconds and at the end, and a sweep stopped between reads the journal on
    resume."""
    from simcore.io import manifest as manifests
    from simcore.studies import sweep
    path = tmp_path / "s.toml"
    path.write_text('game = "goofspiel"\ngames = 10\n[axes]\nnum_cards = [4, 5, 6]\n')
    out = tmp_path / "runs"
    plan = sweep.load(path)
    monkeypatch.setattr(sweep, "COMPACT_S", 1e9)
    written = []
    monkeypatch.setattr(sweep, "write_manifest", lambda folder, m: written.append(len(m["variants"])) or
                        manifests.write_manifest(folder, m))

    class Stop(Exception):
        pass

    def stop_after_two(variant, status, tally):
        if variant.name == "num_cards=5":
            raise Stop

    with pytest.raises(Stop):
        sweep.run(plan, out, on_variant=stop_after_two)
    assert written == [0]       # once before it plays (issue 52: what it planned), never after a variant
    assert len((out / manifests.JOURNAL).read_text().splitlines()) == 2
    status = sweep.run(plan, out)
    assert status == {"num_cards=4": "skipped", "num_cards=5": "skipped", "num_cards=6": "played"}
    assert written == [0, 2, 3] and not (out / manifests.JOURNAL).exists()
    assert set(sweep.read_manifest(out)["variants"]) == {"num_cards=4", "num_cards=5", "num_cards=6"}


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.3])
def test_a_sweep_stopped_by_sigterm_at_any_moment_leaves_no_temporary_or_lock(cli, tmp_path, delay):
    """Issue 36: SIGTERM left `.tmp` and `.lock` files. A signal that comes while a lock or a temporary file is
    being made acts once the writer knows of it, so nothing is left wherever it lands; the sweep then resumes."""
    path = tmp_path / "s.toml"
    path.write_text('game = "goofspiel"\ngames = 100000\n[axes]\nnum_cards = [4, 5, 6, 7, 8, 9, 10, 11]\n')
    for attempt in range(3):    # on a loaded machine the whole sweep may end before the signal lands: again
        out = tmp_path / f"runs{attempt}"
        writer = start_simcore("sweep", path, "--out", out, "--quiet")
        wait_for(lambda out=out: out.is_dir() and any(p.name.endswith(".tmp") for p in out.iterdir()), writer)
        time.sleep(delay)
        writer.send_signal(signal.SIGTERM)
        writer.communicate(timeout=120)
        if writer.returncode != 0:
            break
    assert writer.returncode != 0              # stopped, not finished
    left = [p.name for p in out.iterdir() if p.name.endswith((".tmp", ".lock"))]
    assert left == []
    done = cli("sweep", path, "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    assert len(list(out.glob("*.parquet"))) == 8
