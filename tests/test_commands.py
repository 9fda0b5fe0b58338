"""Every command behaves alike and never crashes (issue 21): bad input is one line, a non-zero exit and no
output; a killed writer leaves nothing a later run trips on; two writers never share a target; one set of
options means one thing everywhere."""

import os
import re
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from simcore.io import config as cfg
from simcore.io import writing
from tests.conftest import start_simcore, wait_for

TUNE = """game = "zwai"
seed = 3
[policies]
all = "greedy"
[space]
hand_size_2 = [10, 11]
[objective]
gap = 1.0
[search]
batch = 200
games_max = 400
confirm_games = 200
"""

SWEEP = """game = "zwai"
games = 300
seed = 2
[axes]
hand_size_2 = [10, 11]
"""


def one_line_failure(done, *words):
    """A refusal as the brief asks: a non-zero exit, one line on stderr naming what is wrong, no traceback."""
    assert done.returncode != 0, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


# --- defect 1: tracebacks instead of one line ---------------------------------------------------------------

@pytest.mark.parametrize("command", ["run", "sweep", "tune", "duel", "versus", "ladder", "replay"])
def test_a_file_that_is_not_utf8_is_one_line(cli, tmp_path, command):
    """Item 1: a config, sweep or tune file that is not UTF-8 (bytes \\xff\\xfe): one line, no output."""
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"\xff\xfegame = 'zwai'\n")
    out = tmp_path / "out"
    args = {"run": ["run", "zwai", "--config", bad, "--out", tmp_path / "o.parquet"],
            "sweep": ["sweep", bad, "--out", out], "tune": ["tune", bad, "--out", out],
            "duel": ["duel", "zwai", "--config", bad], "versus": ["versus", "zwai", "--config", bad, "--policy",
                                                                  "greedy", "--against", "random"],
            "ladder": ["ladder", "zwai", "--config", bad, "--out", out],
            "replay": ["replay", "zwai", "--config", bad]}[command]
    one_line_failure(cli(*args), "is not UTF-8 text", "byte 0xff at position 0", "allowed: a TOML file in UTF-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_a_tune_space_of_one_candidate_is_confirmed_and_reported(cli, tmp_path):
    """Item 1: `hand_size_2 = [11]` is a valid question (IndexError before): confirmed and reported."""
    path = write(tmp_path, "t.toml", TUNE.replace("[10, 11]", "[11]"))
    done = cli("tune", path, "--out", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "one candidate (hand_size_2=11): nothing to race" in done.stdout
    assert "the one candidate: hand_size_2=11" in done.stdout
    report = (tmp_path / "out" / "report.md").read_text()
    assert "nothing to race" in report and "**The one candidate: `hand_size_2=11`**" in report
    assert pq.read_table(tmp_path / "out" / "confirm.parquet").num_rows == 200


def test_a_huge_tune_range_is_one_line(cli, tmp_path):
    """Item 1: `{low = 1, high = 10**30}` (OverflowError before)."""
    path = write(tmp_path, "t.toml", TUNE.replace("[10, 11]", "{low = 1, high = 1000000000000000000}"))
    one_line_failure(cli("tune", path, "--out", tmp_path / "out"), "[space] hand_size_2", "1e+18 values",
                     "allowed: at most 1,000,000")
    assert not (tmp_path / "out").exists()


def test_a_huge_replay_index_is_one_line(cli, tmp_path):
    """Item 1: `simcore replay FILE --index 10**30` (OverflowError from pyarrow before)."""
    out = tmp_path / "r.parquet"
    assert cli("run", "zwai", "--games", "5", "--out", out, "--quiet").returncode == 0
    one_line_failure(cli("replay", out, "--index", str(10**30), "--html", tmp_path / "g.html"),
                     f"--index {10**30} is not allowed", "allowed: 0 to")
    assert not (tmp_path / "g.html").exists()


def test_bench_refuses_zero_games_and_an_unwritable_json_before_measuring(cli, tmp_path):
    """Item 1: `bench --games 0` (ZeroDivisionError after 12 s before) and `bench --json nodir/b.json`
    (FileNotFoundError after 138 s of measuring, the figures lost) are refused before anything is measured."""
    zero = cli("bench", "--game", "zwai", "--games", "0")
    one_line_failure(zero, "--games 0 is not allowed; allowed: 1 or more")
    nodir = cli("bench", "--game", "zwai", "--json", tmp_path / "nodir" / "b.json")
    one_line_failure(nodir, f"cannot write {tmp_path / 'nodir' / 'b.json'}", "does not exist")
    assert "[1/" not in zero.stderr + nodir.stderr          # no case was measured


def _full_disk():
    """In the child: files may grow to 64 kB only (writing past it fails with EFBIG, as a full disk fails
    with ENOSPC; Python ignores SIGXFSZ, so the write returns the error)."""
    import resource
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


def test_a_full_disk_during_a_run_is_one_line_and_keeps_the_earlier_result(tmp_path):
    """Item 1: disk full during `simcore run` (an OSError traceback from results.py before): one line naming
    the user's path (not the temporary file), no partial file, the earlier result of that name untouched."""
    out = tmp_path / "zwai.parquet"
    cmd = [sys.executable, "-m", "simcore", "run", "zwai", "--out", str(out), "--quiet"]
    assert subprocess.run(cmd + ["--games", "100"], capture_output=True).returncode == 0
    before = out.read_bytes()
    done = subprocess.run(cmd + ["--games", "300000"], capture_output=True, text=True, preexec_fn=_full_disk)
    line = one_line_failure(done, f"cannot write {out}: File too large")
    assert ".tmp" not in line
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["zwai.parquet"]


# --- defect 2: a page written on a failed replay --------------------------------------------------------------

def test_a_replay_that_differs_from_its_row_writes_no_page(cli, tmp_path):
    """Item 2: a row edited by hand: "DIFFERS", a non-zero exit, and no page."""
    out = tmp_path / "r.parquet"
    assert cli("run", "zwai", "--games", "8", "--out", out, "--quiet").returncode == 0
    table = pq.read_table(out)
    scores = table["score_0"].to_pylist()
    scores[5] += 1
    tampered = table.set_column(table.schema.get_field_index("score_0"), table.schema.field("score_0"),
                                pa.array(scores, pa.int32()))
    pq.write_table(tampered, out)
    done = cli("replay", out, "--index", "5", "--html", tmp_path / "g.html")
    assert done.returncode != 0 and "DIFFERS" in done.stdout
    assert "differs from row 5" in done.stderr
    assert not (tmp_path / "g.html").exists()


# --- defect 3: temporary files of killed writers --------------------------------------------------------------

def _temporaries(folder):
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_a_killed_run_leaves_a_temporary_file_the_next_run_removes(cli, tmp_path):
    """Item 3: `simcore run` killed with SIGKILL leaves `.NAME.PID.tmp` (and its lock file); the next run in
    that folder removes the temporary files of processes that no longer run, and takes over the lock."""
    out = tmp_path / "x.parquet"
    writer = start_simcore("run", "zwai", "--games", "100000000", "--out", out, "--quiet")
    wait_for(lambda: _temporaries(tmp_path), writer)
    writer.kill()
    writer.wait()
    [left] = _temporaries(tmp_path)
    assert re.fullmatch(rf"\.x\.parquet\.{writer.pid}\.\w+\.tmp", left), left
    done = cli("run", "zwai", "--games", "50", "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.parquet"]


def test_a_resumed_sweep_removes_what_a_killed_sweep_left(cli, tmp_path):
    """Item 3: a sweep killed with SIGKILL, then resumed: the resume finishes it and no temporary file stays."""
    path = write(tmp_path, "s.toml", SWEEP.replace("games = 300", "games = 20000000"))
    out = tmp_path / "runs"
    writer = start_simcore("sweep", path, "--out", out, "--quiet")
    wait_for(lambda: out.is_dir() and _temporaries(out), writer)
    writer.kill()
    writer.wait()
    assert _temporaries(out)
    done = cli("sweep", path, "--out", out, "--games", "300", "--quiet")
    assert done.returncode == 0, done.stderr
    assert not _temporaries(out) and not [p for p in out.iterdir() if p.name.endswith(".lock")]
    assert sorted(p.name for p in out.glob("*.parquet")) == ["hand_size_2=10.parquet", "hand_size_2=11.parquet"]


def test_remove_stale_keeps_the_temporary_files_of_running_processes(tmp_path):
    ended = subprocess.run(["true"])
    dead = subprocess.Popen(["true"])
    dead.wait()
    for pid in (os.getpid(), os.getppid(), dead.pid):
        (tmp_path / f".r.parquet.{pid}.tmp").write_text("x")
    (tmp_path / "r.parquet.tmp").write_text("not ours: no pid")
    assert ended.returncode == 0
    assert writing.remove_stale(tmp_path) == [f".r.parquet.{dead.pid}.tmp"]
    assert len(list(tmp_path.iterdir())) == 3


# --- defect 4: two writers, one target -------------------------------------------------------------------------

HOLD = "import sys, time; from simcore.io import writing; writing.Lock(sys.argv[1]).__enter__(); print('held', " \
       "flush=True); time.sleep(120)"


@pytest.fixture
def held(tmp_path):
    """A process that holds the lock of a target, as a running simcore writer does."""
    holders = []

    def hold(target):
        process = subprocess.Popen([sys.executable, "-c", HOLD, str(target)], stdout=subprocess.PIPE, text=True)
        assert process.stdout.readline().strip() == "held"
        holders.append(process)
        return process

    yield hold
    for process in holders:
        process.kill()
        process.wait()


def test_two_runs_of_one_output_file_the_second_is_refused(cli, tmp_path):
    """Item 4: two `simcore run` with the same --out: the second gets one line naming the other process,
    and the first's result is not replaced."""
    out = tmp_path / "x.parquet"
    first = start_simcore("run", "zwai", "--games", "100000000", "--out", out, "--quiet")
    try:
        wait_for(lambda: (tmp_path / ".x.parquet.lock").exists() and
                  (tmp_path / ".x.parquet.lock").read_text().startswith("pid"), first)
        second = cli("run", "zwai", "--games", "10", "--out", out)
        one_line_failure(second, f"{out} is being written by another simcore process (pid {first.pid}: "
                                 "simcore run zwai", "allowed: wait until it ends or stop it")
    finally:
        first.kill()
        first.wait()
    assert not out.exists()


@pytest.mark.parametrize("command", ["sweep", "tune", "ladder"])
def test_a_folder_being_written_is_refused(cli, tmp_path, held, command):
    """Item 4: a sweep, tune or ladder folder that another process writes: one line naming it, nothing
    written there."""
    folder = tmp_path / "out"
    folder.mkdir()
    holder = held(folder)
    args = {"sweep": ["sweep", write(tmp_path, "s.toml", SWEEP)],
            "tune": ["tune", write(tmp_path, "t.toml", TUNE)],
            "ladder": ["ladder", "zwai", "--budgets", "1,2", "--games", "2"]}[command]
    one_line_failure(cli(*args, "--out", folder), f"{folder} is being written by another simcore process "
                                                   f"(pid {holder.pid}")
    assert [p.name for p in folder.iterdir()] == [writing.FOLDER_LOCK]


def test_a_process_may_take_its_own_lock_again(tmp_path):
    """A ladder's folder lock, then its sweep's: the same process, so no conflict; released at the end."""
    with writing.Lock(tmp_path):
        with writing.Lock(tmp_path):
            assert (tmp_path / writing.FOLDER_LOCK).exists()
        assert (tmp_path / writing.FOLDER_LOCK).exists()
    assert not (tmp_path / writing.FOLDER_LOCK).exists()


# --- defect 5: silently accepted ---------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [["run", "zwai", "--games", "5"], ["sweep", "SWEEP"], ["tune", "TUNE"],
                                  ["ladder", "zwai"], ["bench", "--json"]])
def test_an_empty_output_path_is_refused(cli, tmp_path, args):
    """Item 5: `--out ''` exited 0 and wrote nothing."""
    files = {"SWEEP": write(tmp_path, "s.toml", SWEEP), "TUNE": write(tmp_path, "t.toml", TUNE)}
    args = [files.get(a, a) for a in args]
    one_line_failure(cli(*args, *([] if args[-1] == "--json" else ["--out"]), ""), "'' is not allowed")


def test_a_sweep_into_another_games_folder_is_refused(cli, tmp_path):
    """Item 5: a sweep run into a folder holding another game's sweep replaced its manifest and orphaned its
    files; likewise a sweep into a tune run's folder."""
    out = tmp_path / "runs"
    assert cli("sweep", write(tmp_path, "s.toml", SWEEP), "--out", out, "--quiet").returncode == 0
    manifest = (out / "_manifest.json").read_text()
    other = write(tmp_path, "z.toml", 'game = "zwergen"\ngames = 100\n[axes]\npro = [true, false]\n')
    one_line_failure(cli("sweep", other, "--out", out), f"cannot write the sweep of zwergen to {out}",
                     "it holds a sweep of zwai (_manifest.json)", "allowed: a new folder")
    assert (out / "_manifest.json").read_text() == manifest
    tuned = tmp_path / "tuned"
    assert cli("tune", write(tmp_path, "t.toml", TUNE), "--out", tuned, "--quiet").returncode == 0
    one_line_failure(cli("sweep", write(tmp_path, "s.toml", SWEEP), "--out", tuned), "it holds a tune of zwai")


@pytest.mark.parametrize("variants, message", [
    (["a:hand_size_2=10", "a:hand_size_2=11"], "both variants are named 'a'; allowed: two different names"),
    (["a:hand_size_2=10,hand_size_2=11"], "sets hand_size_2 twice; allowed: each parameter once"),
])
def test_duel_refuses_ambiguous_variants(cli, variants, message):
    """Item 5: two variants of one name, or a key given twice in one variant, were accepted."""
    args = [arg for v in variants for arg in ("--variant", v)]
    one_line_failure(cli("duel", "zwai", *args, "--games", "10"), message)


@pytest.mark.parametrize("old, new, message", [
    ("[objective]\ngap = 1.0", "[objective]\ntimeout = {max = -1}", "timeout max = -1 is not allowed; "
                                                                    "allowed: a share from 0 to 1"),
    ("games_max = 400", "games_max = 100", "[search] games_max = 100 is smaller than batch = 200"),
    ("[objective]\ngap = 1.0", "[objective]\nmean_turns = {target = [60, 40]}",
     "[objective] mean_turns target [60, 40] is empty"),
    ("[objective]\ngap = 1.0", "[objective]\nbalance = 1.0", "balance is now called gap"),
])
def test_tune_refuses_what_it_accepted_silently(cli, tmp_path, old, new, message):
    """Items 5 and 6: a timeout ceiling below 0, games_max below batch, and messages that name the key the
    user wrote (`mean_turns`, not the column `n_turns`)."""
    path = write(tmp_path, "t.toml", TUNE.replace(old, new))
    one_line_failure(cli("tune", path, "--out", tmp_path / "out"), message)
    assert not (tmp_path / "out").exists()


def test_games_max_below_batch_names_the_option_given(cli, tmp_path):
    one_line_failure(cli("tune", write(tmp_path, "t.toml", TUNE), "--games-max", "50", "--out", tmp_path / "o"),
                     "--games-max = 50 is smaller than batch = 200")


@pytest.mark.parametrize("spec", ["mc:", "mc:rollouts=4,,", "mc:,rollouts=4", "mc:rollouts=4,rollouts=8"])
def test_a_policy_spec_with_an_empty_or_repeated_parameter_is_refused(cli, spec):
    """Item 5: `--policy mc:` and `--policy 'mc:rollouts=4,,'` were taken as the defaults; the rule: refused
    (docs/how-to/config.md says so), as is a parameter given twice."""
    one_line_failure(cli("run", "zwai", "--policy", spec, "--games", "5"), f"policy {spec!r}")


def test_analyze_refuses_the_results_of_two_games(cli, tmp_path):
    """Item 5: `analyze` of files of two different games: refused, as `compare` does."""
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    assert cli("run", "zwai", "--games", "20", "--out", a, "--quiet").returncode == 0
    assert cli("run", "zwergen", "--games", "20", "--out", b, "--quiet").returncode == 0
    one_line_failure(cli("analyze", a, b, "--report", tmp_path / "r.md"), "the results are of 2 games (zwai, "
                                                                          "zwergen)")
    assert not (tmp_path / "r.md").exists()


# --- defect 6: unclear messages --------------------------------------------------------------------------------

@pytest.mark.parametrize("policy", ["-1=greedy", "x=greedy", "=greedy"])
def test_a_bad_policy_seat_is_named_with_the_allowed_seats(cli, policy):
    """Item 6: `--policy -1=greedy` answered "unknown policy '-1=greedy'"."""
    seat = policy.partition("=")[0]
    line = one_line_failure(cli("run", "zwai", "--policy", policy, "--games", "5"), "allowed: all or 0 to 1")
    assert line.startswith(f"Error: policy seat {seat!r} is not a seat" if seat != "-1" else
                           "Error: policy seat -1 is not a seat of a 2-player game")


def test_a_policy_spec_with_parameters_still_parses_as_every_seat():
    assert cfg.parse_policy("mc:rollouts=8") == ("all", "mc:rollouts=8")
    assert cfg.parse_policy("1=mc:rollouts=8") == ("1", "mc:rollouts=8")
    assert cfg.parse_policy("greedy") == ("all", "greedy")


def test_a_manifest_that_lists_a_deleted_file_says_it_is_missing(cli, tmp_path):
    """Item 6: "cannot read sw/x.parquet: sw/x.parquet" became a sentence saying the file is missing."""
    out = tmp_path / "runs"
    assert cli("sweep", write(tmp_path, "s.toml", SWEEP), "--out", out, "--quiet").returncode == 0
    (out / "hand_size_2=11.parquet").unlink()
    one_line_failure(cli("analyze", out), f"{out / 'hand_size_2=11.parquet'} is missing", "_manifest.json lists it")


def test_output_errors_name_the_users_path(cli, tmp_path):
    """Item 6: errors about --out named the internal temporary file (`.out.parquet.12538.tmp`)."""
    out = tmp_path / "no" / "out.parquet"
    line = one_line_failure(cli("run", "zwai", "--games", "5", "--out", out), f"cannot write {out}")
    assert ".tmp" not in line


# --- one set of options ----------------------------------------------------------------------------------------

PLAYING = ["run", "sweep", "duel", "versus", "ladder", "tune", "bench", "replay"]


@pytest.mark.parametrize("command", PLAYING)
def test_every_command_that_plays_states_the_one_default_seed(cli, command):
    done = cli(command, "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "--seed" in text and "--quiet" in text
    assert f"else {cfg.DEFAULT_SEED})" in text or f"(default: {cfg.DEFAULT_SEED})" in text
    assert ("--threads" in text) == (command != "replay")     # a replay plays one game on one thread


@pytest.mark.parametrize("command", ["run", "duel", "versus", "ladder", "tune", "sweep", "bench"])
def test_threads_are_checked_by_every_command(cli, tmp_path, command):
    args = {"run": ["run", "zwai"], "duel": ["duel", "zwai"], "bench": ["bench"],
            "versus": ["versus", "zwai", "--policy", "greedy", "--against", "random"],
            "ladder": ["ladder", "zwai", "--out", tmp_path / "l"],
            "tune": ["tune", write(tmp_path, "t.toml", TUNE), "--out", tmp_path / "t"],
            "sweep": ["sweep", write(tmp_path, "s.toml", SWEEP), "--out", tmp_path / "s"]}[command]
    one_line_failure(cli(*args, "--threads", "0"), "--threads 0 is not allowed; allowed: 1 to")


def test_the_default_seed_is_one_everywhere(cli, tmp_path):
    """One default seed: a run without --seed is the run with --seed 1."""
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    assert cli("run", "zwai", "--games", "50", "--out", a, "--quiet").returncode == 0
    assert cli("run", "zwai", "--games", "50", "--seed", "1", "--out", b, "--quiet").returncode == 0
    assert pq.read_table(a).equals(pq.read_table(b))
    assert cfg.resolve("zwai").seed == cfg.DEFAULT_SEED == 1
    # ... and from Python: simulate without a seed gives the command's rows; with a config, the config's seed
    # and games, not a default that overrides them
    import simcore

    assert simcore.simulate("zwai", games=50).equals(pq.read_table(a))
    config = tmp_path / "c.toml"
    config.write_text('game = "zwai"\ngames = 40\nseed = 4\n')
    from_config = simcore.simulate("zwai", config=config)
    assert from_config.num_rows == 40 and set(from_config["seed"].to_pylist()) == {4}
    first = simcore.load_game("zwai").new_initial_state()
    assert str(first) == str(simcore.load_game("zwai").new_initial_state(seed=1, game_index=0))


def test_run_takes_its_game_from_the_config(cli, tmp_path):
    out = tmp_path / "o.parquet"
    done = cli("run", "--config", "configs/zwai.toml", "--games", "30", "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    assert pq.read_table(out)["game"][0].as_py() == "zwai"
    one_line_failure(cli("run", "--games", "5"), "no game given; allowed: zwergen, zwai")


def test_versus_and_ladder_take_a_config(cli, tmp_path):
    """--config wherever --set is accepted: versus and ladder read the game, parameters, games and seed."""
    config = write(tmp_path, "c.toml", 'game = "zwai"\ngames = 30\nseed = 4\n[params]\nplayers = 3\n')
    done = cli("versus", "--config", config, "--policy", "greedy", "--against", "random", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "zwai, 30 deals x 3 seats" in done.stdout
    direct = cli("versus", "zwai", "--set", "players=3", "--games", "30", "--seed", "4", "--policy", "greedy",
                 "--against", "random", "--quiet")
    assert direct.stdout == done.stdout
    ladder = cli("ladder", "--config", config, "--budgets", "1,2", "--games", "3", "--out", tmp_path / "l")
    assert ladder.returncode == 0, ladder.stderr
    assert "b2-vs-b1-seat2.parquet" in {p.name for p in (tmp_path / "l").iterdir()}
    with_policies = write(tmp_path, "p.toml", 'game = "zwai"\n[policies]\nall = "greedy"\n')
    one_line_failure(cli("versus", "--config", with_policies, "--policy", "greedy", "--against", "random"),
                     "the config sets [policies]")


def test_games_shows_one_game(cli):
    done = cli("games", "zwai")
    assert done.returncode == 0
    assert done.stdout.startswith("zwai: ") and "zwergen:" not in done.stdout
    one_line_failure(cli("games", "chess"), "unknown game 'chess'; allowed: zwergen")


def test_analyze_and_tune_mean_one_thing_by_the_gap(cli, tmp_path):
    """The words mean one thing: analyze's *gap* and tune's `gap` term are the same number (the highest seat's
    points minus the lowest's); neither calls it balance."""
    from analyses.scoring import points

    out = tmp_path / "runs"
    assert cli("sweep", write(tmp_path, "s.toml", SWEEP), "--out", out, "--quiet").returncode == 0
    table = pq.read_table(out / "hand_size_2=10.parquet")
    wins = list(zip(*[table[f"win_{s}"].to_pylist() for s in range(2)], strict=True))
    shares = [float(share) for share in points(wins).mean(axis=0)]
    done = cli("analyze", out, "--tables")
    assert "balance" not in done.stdout.split("| variant |")[1].lower().replace("seat balance", "")
    assert f"{max(shares) - min(shares):.3f}" in done.stdout.split("| hand_size_2=10 |")[1].splitlines()[0]
    from simcore.studies import tune
    objective = tune.parse_objective({"gap": 1.0}, ["win_0", "win_1"], 2)
    assert objective.value(__import__("numpy").array(shares)) == pytest.approx(max(shares) - min(shares))


def test_a_sweep_says_played_again_and_why(cli, tmp_path):
    """A sweep says "played again" (a replay is `simcore replay`) and, when --games changed, says on the
    terminal that it replaces finished results."""
    path = write(tmp_path, "s.toml", SWEEP)
    out = tmp_path / "runs"
    assert cli("sweep", path, "--out", out).returncode == 0
    again = cli("sweep", path, "--out", out, "--games", "400")
    assert again.returncode == 0, again.stderr
    assert "replayed" not in again.stdout
    assert "hand_size_2=10: its finished result is replaced (--games changed: its finished file has 300 games, " \
           "this run 400)" in again.stdout
    assert "0 played, 2 played again, 0 skipped" in again.stdout


def test_the_first_run_of_a_game_says_it_compiles(tmp_path):
    """A first run compiles for half a minute or more: one line says so before it starts. ``jit.cached``
    tells a first compile from a cache hit, checked on a tiny cached function in a fresh cache folder."""
    (tmp_path / "tiny.py").write_text("from numba import njit\n\n\n@njit(cache=True)\ndef f(x):\n    return x + 1\n")
    script = (f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import tiny; from simcore.engine import jit; "
              "print(jit.cached(tiny.f, 1)); tiny.f(1); print(jit.cached(tiny.f, 1))")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    again = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert first.stdout.split() == ["False", "True"], first.stderr
    assert again.stdout.split() == ["True", "True"], again.stderr


def test_the_compile_notice_and_no_compile_time_in_the_rate(monkeypatch):
    """The notice is printed when the game's batch function is not cached, and the run's games per second
    leave the loading out (a load that takes 3 s does not enter the run's seconds)."""
    from click.testing import CliRunner

    from simcore import cli as command
    from simcore import engine
    from simcore.engine import binding, jit

    load = engine.load

    def slow_load(*args, **kwargs):
        time.sleep(3)
        load(*args, **kwargs)

    monkeypatch.setattr(jit, "cached", lambda *args, **kwargs: False)
    monkeypatch.setattr(binding.Bound, "ready", lambda *args: False)      # a first run: no copy compiled yet
    monkeypatch.setattr(engine, "load", slow_load)
    done = CliRunner().invoke(command.main, ["run", "zwai", "--games", "20"])
    assert done.exit_code == 0, done.output
    # (Zwai's random seats play its own whole random games: issue 57)
    assert "compiling zwai's own whole random games for this machine (first run only, cached in " in done.stderr
    seconds = float(done.stdout.split(" s)")[0].rsplit(", ", 1)[1])
    assert seconds < 3


def test_bench_shows_its_progress(monkeypatch):
    """`bench --game zwai --games 2000 --repeats 1` ran 2 minutes silently: each case says when it starts."""
    from simcore.studies import bench

    monkeypatch.setattr(bench, "CASES", {name: (*case[:3], 0) for name, case in bench.CASES.items()
                                         if name in ("zwai-2p-random", "zwai-2p-greedy")})   # no Python rate
    monkeypatch.setattr(bench, "_warm_start_seconds", lambda game, repeats: 0.0)
    lines = []
    figures = bench.measure(["zwai"], games=100, repeats=1, progress=lines.append)
    assert [f["case"] for f in figures] == ["zwai-2p-random", "zwai-2p-greedy"]
    cases = [line for line in lines if line.startswith("[")]
    assert cases[0].startswith("[1/2] zwai-2p-random: 100 games") and cases[1].startswith("[2/2] zwai-2p-greedy")
    assert lines[-1].startswith("zwai: wall time of a fresh")


def test_the_extras_read_results_as_the_readme_shows():
    """`pip install 'simcore[pandas]'` and `[polars]`: simulate(...).to_pandas() and polars.from_arrow."""
    import tomllib

    import polars

    import simcore

    extras = tomllib.loads(open("pyproject.toml").read())["project"]["optional-dependencies"]
    assert extras["pandas"] == ["pandas>=2"] and extras["polars"] == ["polars>=1"]
    table = simcore.simulate("zwai", games=50, seed=1)
    assert table.to_pandas()["game_index"].tolist() == list(range(50))
    assert polars.from_arrow(table)["game_index"].to_list() == list(range(50))


def test_the_options_table_is_the_command_line():
    """The options table of the reference (docs/reference/cli.md, command x option) says exactly which command
    takes which option."""
    from simcore import cli as command

    lines = open("docs/reference/cli.md").read().split("## One set of options")[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| option |"))
    header, table = lines[start], lines[start + 2:]
    rows = table[:next(i for i, line in enumerate(table) if not line.startswith("|"))]
    assert len(rows) == 11
    commands = [c.strip().strip("`") for c in header.strip("|").split("|")[1:]]
    assert commands == PLAYING
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        option = cells[0].strip("`")
        for name, cell in zip(commands, cells[1:], strict=True):
            params = {opt for p in command.main.commands[name].params for opt in p.opts}
            assert (cell != "") == (option in params), (option, name, cell)
