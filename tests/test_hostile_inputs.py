"""Issue 52, cases 4, 10, 11, 12, 14 and 15: a hostile tester's inputs that gave tracebacks, hangs without a word,
silent accepts, results lost after they were written, and messages that did not say what was wrong.

Each test names its case; every refusal is one line naming what is wrong and what is allowed, and writes nothing.
"""

import itertools
import os
import shutil
import stat
from types import SimpleNamespace

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import simcore
from simcore.io import results
from tests.test_safety import TUNE as SAFE_TUNE


def _one_line(done, says):
    """``done`` failed with one line on stderr holding ``says``, and no traceback."""
    assert done.returncode != 0, (done.stdout, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1 and says in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """A result file of 40 Goofspiel games with its trace (_traces/x.trace.parquet)."""
    from tests.conftest import simcore_cli

    path = tmp_path_factory.mktemp("result") / "x.parquet"
    done = simcore_cli("run", "goofspiel", "--games", "40", "--out", path, "--trace", "--quiet")
    assert done.returncode == 0, done.stderr
    return path


# --- case 4: cache --clear never clears a cache the user did not name ------------------------------------------

def test_clearing_with_numba_cache_dir_naming_a_file_removes_nothing(cli, tmp_path):
    """Issue 52, case 4: `NUMBA_CACHE_DIR=<a file> simcore cache --clear` emptied simcore's own cache under
    ~/.cache/simcore, which the user did not name and other simcore processes share. It refuses in one line and
    removes nothing."""
    root = tmp_path / "xdg" / "simcore"
    theirs = root / "numba-shared"
    theirs.mkdir(parents=True)
    (theirs / simcore.MARKER).touch()
    (theirs / "index.nbi").write_bytes(b"x")
    named = tmp_path / "a-file"
    named.write_text("not a folder")
    done = cli("cache", "--clear", env={"XDG_CACHE_HOME": str(tmp_path / "xdg"), "NUMBA_CACHE_DIR": str(named)})
    assert done.returncode != 0 and "Traceback" not in done.stderr
    refusal = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert refusal == [f"Error: NUMBA_CACHE_DIR={named} is not a folder this process can write, so --clear removes "
                       "nothing; allowed: NUMBA_CACHE_DIR naming a folder, or unset for simcore's own cache"]
    assert (theirs / "index.nbi").exists() and named.read_text() == "not a folder"


# --- case 10: plan's bounds, and one file given as two variants --------------------------------------------------

@pytest.mark.parametrize("args, says", [
    (["--edge", "1e-308"], "--edge 1e-308 is not allowed; allowed: a share of the points from 0.001 below 1"),
    (["--edge", "1e-9"], "--edge 1e-09 is not allowed; allowed: a share of the points from 0.001 below 1"),
    (["--alpha", "5e-324"], "--alpha 5e-324 is not allowed; allowed: an error rate from 1e-06 below 0.5"),
])
def test_plan_bounds_the_edge_so_a_plan_stays_playable(cli, args, says):
    """Issue 52, case 10: `plan --edge 1e-308` was an OverflowError traceback and `--edge 1e-9` planned 4.7e18
    games. The edge (and the error rate, which overflowed the same way) is bounded where a plan stays at about
    2 x 10^7 games a variant at most."""
    _one_line(cli("plan", "--seats", "2", *args), says)


def test_the_smallest_edge_plans_a_playable_number_of_games(cli):
    """Issue 52, case 10: at the floor of --edge and --alpha the plan is a number of games a run can play."""
    done = cli("plan", "--seats", "2", "--edge", "0.001", "--alpha", "1e-6")
    assert done.returncode == 0, done.stderr
    counts = [int(n.replace(",", "")) for n in done.stdout.split("|")[-3:-1]]
    assert counts and all(0 < n < 3 * 10**7 for n in counts), done.stdout


def test_plan_bounds_the_seats_by_the_largest_table_of_any_game(cli):
    """Issue 52, case 10: `plan --seats 1000000` planned 2 games. The seats are bounded by the most players any
    registered game seats (Der Herr der Wichtel's 5 among simcore's own)."""
    _one_line(cli("plan", "--seats", "1000000"), "--seats 1000000 is not allowed; allowed: a whole number from 2 "
                                                 "to 5 (the most players of any game: wichtel)")
    assert cli("plan", "--seats", "5").returncode == 0


def test_one_file_given_twice_is_refused_not_taken_for_two_variants(cli, result):
    """Issue 52, case 10: `plan F F` and `readings F F` treated one file as two variants (and `analyze`,
    `compare` too), also under two spellings of its path or as a file and its folder."""
    again = result.parent / ".." / result.parent.name / result.name
    for command, paths in (("plan", [result, result]), ("readings", [result, again]), ("analyze", [result, again]),
                           ("compare", [result, again]), ("analyze", [result.parent, result])):
        done = cli(command, *paths)
        _one_line(done, "is given twice")
        assert "allowed: each result file once" in done.stderr and done.stdout == ""


# --- case 11: tracebacks from a result's metadata, a manifest's margin, and a folder at a trace's path ----------

def _with_metadata(result, path, **changed):
    """A copy of ``result`` at ``path`` with ``simcore.KEY`` metadata values ``changed``."""
    table = pq.read_table(result)
    meta = {**table.schema.metadata, **{f"simcore.{k}".encode(): v.encode() for k, v in changed.items()}}
    pq.write_table(table.replace_schema_metadata(meta), path)
    return path


def test_metadata_that_is_not_json_is_one_line_naming_the_file(cli, result, tmp_path):
    """Issue 52, case 11: a `simcore.params` metadata value that is not JSON was a JSONDecodeError traceback in
    `analyze` and `compare`."""
    bad = _with_metadata(result, tmp_path / "bad.parquet", params="{not json")
    for args in (("analyze", bad), ("compare", bad, result), ("plan", bad)):
        _one_line(cli(*args), f"{bad}: its simcore.params metadata is not a JSON object; allowed: a result file "
                              "simcore wrote")
    listed = _with_metadata(result, tmp_path / "listed.parquet", policies='{"0": "greedy"}')
    _one_line(cli("analyze", listed), "its simcore.policies metadata is not a JSON list")


@pytest.fixture(scope="module")
def until_decided(tmp_path_factory):
    """A folder swept until decided: two Goofspiel variants, looks at 100 and 200 games."""
    from tests.conftest import simcore_cli

    root = tmp_path_factory.mktemp("until")
    (root / "s.toml").write_text('game = "goofspiel"\ngames = 200\n[axes]\nnum_cards = [4, 5]\n')
    done = simcore_cli("sweep", root / "s.toml", "--out", root / "ud", "--until-decided", "--first-look", "100",
                       "--quiet")
    assert done.returncode == 0, done.stderr
    return root / "ud"


@pytest.mark.parametrize("margin", ["NaN", "Infinity", '"0.02"'])
def test_a_manifest_margin_that_is_no_number_is_one_line(cli, until_decided, tmp_path, margin):
    """Issue 52, case 11: a NaN `margin` in an until-decided manifest was a ValueError traceback in `analyze`."""
    folder = tmp_path / "ud"
    shutil.copytree(until_decided, folder)
    text = (folder / "_manifest.json").read_text()
    assert '"margin": 0.02' in text
    (folder / "_manifest.json").write_text(text.replace('"margin": 0.02', f'"margin": {margin}'))
    _one_line(cli("analyze", folder), f"{folder / '_manifest.json'} records the margin")
    assert "allowed: a margin above 0 and below 0.5" in cli("analyze", folder).stderr


def test_a_folder_at_the_traces_path_never_costs_a_written_result(cli, tmp_path):
    """Issue 52, case 11: with a folder at `_traces/X.trace.parquet`, `run --out X.parquet` wrote the result and
    then failed with IsADirectoryError removing the "stale trace". A folder there is no trace: the run succeeds
    and leaves it alone."""
    (tmp_path / "_traces" / "x.trace.parquet").mkdir(parents=True)
    done = cli("run", "goofspiel", "--games", "5", "--out", tmp_path / "x.parquet", "--quiet")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert (tmp_path / "x.parquet").is_file() and (tmp_path / "_traces" / "x.trace.parquet").is_dir()


@pytest.mark.parametrize("command", [
    ("sweep", "{sweep}", "--out", "{folder}"),
    ("versus", "goofspiel", "--policy", "greedy", "--against", "random", "--games", "5", "--out", "{folder}"),
])
def test_a_traced_run_checks_every_variants_trace_before_it_plays(cli, tmp_path, command):
    """Issue 52, case 11: a folder at a later variant's trace path stopped `sweep --trace` and `versus --trace`
    after the earlier variants had played. Every trace path is checked before anything plays."""
    sweep = tmp_path / "s.toml"
    sweep.write_text('game = "goofspiel"\ngames = 5\n[axes]\nnum_cards = [4, 5]\n')
    folder = tmp_path / "out"
    last = "num_cards=5" if command[0] == "sweep" else "seat1"
    (folder / "_traces" / f"{last}.trace.parquet").mkdir(parents=True)
    done = cli(*(arg.format(sweep=sweep, folder=folder) for arg in command), "--trace", "--quiet")
    _one_line(done, f"cannot write {folder / '_traces' / last}.trace.parquet: it is a folder")
    assert sorted(p.name for p in folder.iterdir()) == ["_traces"]


# --- case 12: readings says how long it takes ----------------------------------------------------------------------

@pytest.mark.parametrize("out", [False, True])
def test_a_long_readings_run_states_its_time_and_what_ctrl_c_keeps(cli, tmp_path, monkeypatch, out):
    """Issue 52, case 12: `readings --games 10**12` started without the time estimate tune, duel and versus give.
    Once its first blocks are timed (each "taking" 100 s here) it says in one line how long, for how many games,
    and what Ctrl-C keeps, --quiet or not."""
    from simcore import cli as command
    from simcore.studies import executors

    played = tmp_path / "z.parquet"
    assert cli("run", "zwergen", "--games", "30", "--out", played, "--quiet").returncode == 0
    ticks = itertools.count(step=100.0)
    monkeypatch.setattr(executors, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))
    said = []
    monkeypatch.setattr(command, "_warn", said.append)
    folder = tmp_path / "readings"
    done = cli("readings", played, "--games", "20", "--quiet", *(["--out", folder] if out else []))
    assert done.returncode == 0, done.stderr
    replays = len(list(folder.glob("*.parquet"))) if out else None
    kept = f"Ctrl-C keeps every reading finished in {folder}, and the same command goes on from them" if out else \
        "Ctrl-C stops it and keeps nothing (with --out FOLDER it keeps every reading finished)"
    estimates = [line for line in said if line and line.startswith("about ")]
    assert len(estimates) == 1 and estimates[0].endswith(f" games; {kept}"), said
    if out:
        assert estimates[0].endswith(f" for {20 * replays:,} games; {kept}")


# --- case 14: accepted before, refused now -----------------------------------------------------------------------

def test_run_out_must_name_a_parquet_file(cli, tmp_path):
    """Issue 52, case 14: `run --out -` and `--out results` (no suffix) wrote Parquet files of those names, and
    `--out notes.txt` wrote over the notes. Each is refused in one line saying what is allowed, and nothing is
    written."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    for out in ("-", "results", "notes.txt"):
        done = cli("run", "goofspiel", "--games", "5", "--out", out, "--quiet", cwd=tmp_path)
        _one_line(done, f"cannot write {out!r}: allowed: a file name ending in .parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"] and notes.read_text() == "my notes"


def test_run_replaces_a_file_simcore_did_not_write_only_with_force(cli, result, tmp_path):
    """Issue 52, case 14: `run --out` wrote over a Parquet file simcore did not write. It is refused unless
    --force; a result file simcore wrote is replaced as before."""
    foreign = tmp_path / "theirs.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}), foreign)
    before = foreign.read_bytes()
    _one_line(cli("run", "goofspiel", "--games", "5", "--out", foreign, "--quiet"),
              f"cannot write {foreign}: it is a file simcore did not write (no simcore config in it); allowed: a new "
              "name, a result file simcore wrote, or --force to replace it")
    assert foreign.read_bytes() == before
    assert cli("run", "goofspiel", "--games", "5", "--out", foreign, "--quiet", "--force").returncode == 0
    assert pq.read_table(foreign).num_rows == 5
    ours = tmp_path / "ours.parquet"
    shutil.copy(result, ours)
    assert cli("run", "goofspiel", "--games", "6", "--out", ours, "--quiet").returncode == 0
    assert pq.read_table(ours).num_rows == 6


def test_a_length_target_without_an_end_is_refused(cli, result):
    """Issue 52, case 14: `analyze --length 0-inf` was accepted as a target."""
    for length in ("0-inf", "10-Infinity"):
        _one_line(cli("analyze", result, "--length", length),
                  f"--length {length!r} is not a range of turns; allowed: LOW-HIGH with 0 <= LOW <= HIGH, both finite")


# a tune file that also fixes the parameter its space searches
TUNE = SAFE_TUNE.replace("[space]", "[params]\nnum_cards = 5\n[space]")


def test_a_tune_file_fixing_a_parameter_its_space_searches_is_refused(cli, tmp_path):
    """Issue 52, case 14: a tune file's `[params]` value of a parameter `[space]` searches too was dropped without
    a word (every candidate took the space's values)."""
    path = tmp_path / "t.toml"
    path.write_text(TUNE)
    _one_line(cli("tune", path, "--out", tmp_path / "t", "--quiet"),
              "[params] num_cards is searched by [space] too, which sets it for every candidate; allowed: a parameter "
              "in [params] or in [space], not both")
    assert not (tmp_path / "t").exists()


# --- case 15: messages that say what is wrong ---------------------------------------------------------------------

def test_a_trace_given_as_a_result_names_its_result_file(cli, result):
    """Issue 52, case 15: a trace given to analyze, compare, plan or readings was "not a simcore result file (no
    games in it)"; it says it is a trace, and of which result file, as replay does."""
    trace = results.trace_path(result)
    says = f"{trace} is a trace (of {result}), not a result file; allowed: the result file {result}"
    for args in (("analyze", trace), ("compare", trace, result), ("plan", trace), ("readings", trace),
                 ("replay", trace)):
        _one_line(cli(*args), says)


def test_a_damaged_parquet_file_is_one_line(cli, result, tmp_path):
    """Issue 52, case 15: a damaged result file gave pyarrow's message of two lines (thrift's), or of its footer;
    one line says the file is damaged or cut short."""
    data = result.read_bytes()
    footer = int.from_bytes(data[-8:-4], "little")
    damaged = bytearray(data)
    damaged[-8 - footer:-8 - footer + 40] = b"\xff" * 40
    (tmp_path / "thrift.parquet").write_bytes(bytes(damaged))
    (tmp_path / "cut.parquet").write_bytes(data[:len(data) // 2])
    for name in ("thrift.parquet", "cut.parquet"):
        path = tmp_path / name
        for command in ("analyze", "replay"):
            _one_line(cli(command, path), f"{path} is not a readable Parquet file (damaged or cut short); allowed: "
                                          "a result file simcore wrote")


def test_a_pipe_given_as_a_result_says_it_is_a_pipe(cli, tmp_path):
    """Issue 52, case 15: a FIFO given to analyze was "cannot read X: X", no reason."""
    pipe = tmp_path / "x.parquet"
    os.mkfifo(pipe)
    for command in ("analyze", "plan", "replay"):
        _one_line(cli(command, pipe), f"cannot read {pipe}: it is a pipe, not a file; allowed: a result file simcore "
                                      "wrote")


def test_a_new_game_name_too_long_says_so(cli, tmp_path):
    """Issue 52, case 15: `new-game` with a name of 300 characters blamed the folder ("File name too long"); the
    name is too long, and the limit is said."""
    name = "k" * 300
    _one_line(cli("new-game", name, "--out", tmp_path / "x"),
              f"the name {'k' * 20}... is too long (300 characters); allowed: a new lower-case name")
    assert "at most 64 characters" in cli("new-game", name, "--out", tmp_path / "x").stderr
    assert list(tmp_path.iterdir()) == []


def test_the_package_folder_gets_the_mode_of_a_new_folder(cli, tmp_path):
    """Issue 52, case 15: the package folder `new-game` made was 0700 (built in a private temporary folder); it
    gets the mode any new folder gets under the umask, as its files get a new file's."""
    assert cli("new-game", "mode_game", "--out", tmp_path / "pkg").returncode == 0
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "pkg").stat().st_mode) == 0o777 & ~umask
    assert stat.S_IMODE((tmp_path / "pkg" / "pyproject.toml").stat().st_mode) == 0o666 & ~umask


@pytest.mark.parametrize("name", ["_manifest", "_traces", ".hidden"])
def test_a_variant_name_with_a_leading_underscore_is_refused_by_that_rule(cli, tmp_path, name):
    """Issue 52, case 15: a variant named `_manifest` was refused by a rule that did not say names may not begin
    with `_`."""
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'game = "goofspiel"\ngames = 5\n[[variants]]\nname = "{name}"\n')
    _one_line(cli("sweep", sweep, "--out", tmp_path / "out"),
              f"variant name {name!r} is not allowed; allowed: up to 160 letters")
    assert "a variant's name may not begin with `_` or `.`" in cli("sweep", sweep, "--out", tmp_path / "out").stderr
    assert not (tmp_path / "out").exists()
