"""Issue 36, "Every wait is shown": progress that moves about every second, the compile notice under --quiet
and for the traced copy, and an estimate before a run of many hours. Durations are never asserted: a fake
clock makes blocks "take long" where a test needs it."""

import itertools
from types import SimpleNamespace

import numba
import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from simcore import cli as command
from simcore import engine
from simcore.engine import binding, jit, loop
from simcore.io import config as cfg
from simcore.studies import duel, executors, runs, tune, versus
from simcore.studies.executors import LocalExecutor

SEARCH = "mc:rollouts=2"       # a searching seat: chunks of loop.SEARCH_CHUNK games


def _run(policy, games, seed=3, game="goofspiel"):
    return cfg.resolve(game, policies=[("all", policy)], games=games, seed=seed)


@pytest.fixture
def slow_clock(monkeypatch):
    """Every reading of the executors' clock is 100 s after the last: every block "takes" 100 s."""
    ticks = itertools.count(step=100.0)
    monkeypatch.setattr(executors, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))


@pytest.mark.parametrize("policy, games, start", [("greedy", 5000, 0), ("greedy", 3000, 777), (SEARCH, 40, 5)])
@pytest.mark.parametrize("seed", [1, 9])
def test_blocks_sized_by_time_give_the_rows_of_one_call(policy, games, start, seed):
    """Issue 36: this machine's blocks are sized by time (a first block of a chunk per thread, then about a
    second each), and the rows are those of engine.run's one block, with a searching seat and without."""
    run = _run(policy, games, seed)
    got = list(LocalExecutor().blocks(run, start))
    expected = engine.run(run.module, run.params_array(), run.policies_array(), seed, games, start)
    assert len(got) > 1
    assert [first for first, _ in got] == list(itertools.accumulate([start] + [len(r) for _, r in got[:-1]]))
    assert np.array_equal(np.concatenate([rows for _, rows in got]), expected)


def test_traced_blocks_sized_by_time_give_the_rows_and_traces_of_one_call(slow_clock):
    """Issue 36: the traced run's blocks too (here every block "takes" 100 s, so each is the first's size):
    the rows and every trace array are those of one call."""
    run = _run("greedy", 700)
    got = list(LocalExecutor().traced_blocks(run))
    [(_, rows, trace)] = engine.run_traced_blocks(run.module, run.params_array(), run.policies_array(), 3, 700,
                                                  block=700)
    assert len(got) > 1
    assert np.array_equal(np.concatenate([r for _, r, _ in got]), rows)
    for name, expected in zip(("table", "counts", "info"), trace.arrays(), strict=True):
        assert np.array_equal(np.concatenate([getattr(t, name) for _, _, t in got]), expected), name


def test_a_searching_run_reports_progress_in_more_than_one_step():
    """Issue 36: a skirmish's bar stood at 0% for a whole run and a sweep's ISMCTS variant at 66% for 128 s
    (progress came per block of 65,536 games): a run of a searching seat reports its games in several steps."""
    steps = []
    tally = runs.run_to_tally(_run(SEARCH, 48), steps.append)
    assert len(steps) > 1 and sum(steps) == tally.games == 48


def test_a_slow_traced_run_reports_progress_block_by_block(tmp_path, slow_clock):
    """Issue 36: `run --trace` (and `sweep --trace`) played blocks of 4,096 games: when a block takes long,
    the progress moves every first-sized block (a chunk per thread)."""
    import numba

    steps = []
    runs.run_to_file(_run("greedy", 2000), tmp_path / "t.parquet", steps.append, trace=True)
    unit = loop.CHUNK * numba.get_num_threads()
    assert steps == [unit] * (2000 // unit) + ([2000 % unit] if 2000 % unit else [])


def _invoke(monkeypatch, *args):
    """The command in this process, its compile notices forced (as on a first run: no copy compiled yet)."""
    monkeypatch.setattr(jit, "cached", lambda *a, **k: False)
    monkeypatch.setattr(binding.Bound, "ready", lambda *a: False)
    return CliRunner().invoke(command.main, [str(a) for a in args])


def test_quiet_keeps_the_compile_notice(monkeypatch):
    """Issue 36: a --quiet run that compiles printed nothing for minutes: the notice (on stderr) is no progress
    line, and --quiet keeps it (without the cache folder)."""
    done = _invoke(monkeypatch, "run", "goofspiel", "--games", 20, "--quiet")
    assert done.exit_code == 0, done.output
    first, *beats = done.stderr.splitlines()        # (a compile going on still says so every 2 seconds)
    assert first == "compiling goofspiel's game loop of random seats for this machine (first run only)"
    assert all(beat.startswith("  still compiling goofspiel's game loop of random seats: ") for beat in beats)


def test_the_traced_game_loop_is_named_when_it_compiles(monkeypatch, tmp_path):
    """Issue 36: `make demo` said "compiling zwai for this machine" twice, the second for `sweep --trace`: that
    one compiles the traced game loop and says so."""
    done = _invoke(monkeypatch, "run", "goofspiel", "--games", 20, "--trace", "--out", tmp_path / "g.parquet")
    assert done.exit_code == 0, done.output
    assert done.stderr.startswith("compiling goofspiel's traced game loop of random seats for this machine (first "
                                  "run only, cached in ")


@pytest.mark.parametrize("policy, copy", [("greedy", "game loop of random and greedy seats"),
                                          ("1=ismcts:iterations=2,rollout=random,widen=0",
                                           "game loop with the observed ISMCTS tree")])
def test_each_copy_of_the_game_loop_is_named_when_it_compiles(monkeypatch, policy, copy):
    """Issue 54: one sitting of the tutorial compiled Zwai six times, each announced alike as "first run only":
    each copy of the game loop (by the seats it plays: random, greedy, the searches; traced or not) says which
    (issue 57: a copy compiles only the agents its seats play)."""
    done = _invoke(monkeypatch, "run", "goofspiel", "--games", 4, "--policy", policy, "--quiet")
    assert done.exit_code == 0, done.output
    # (a first compile here goes on with its "still compiling" lines)
    assert done.stderr.startswith(f"compiling goofspiel's {copy} for this machine (first run only)\n")


def test_a_short_run_says_nothing_of_its_time():
    """Issue 36: the estimate is for long runs only; a duel of a few thousand games says nothing extra."""
    lines = []
    runs_ = [_run("greedy", 2000, game="zwergen")]
    list(duel.Duel(runs_, "win_0").play(progress=lines.append, warn=lines.append))
    assert lines == []


def test_a_long_duel_states_its_time_once(slow_clock):
    """Issue 36: `duel --games 10**12` started and ran without end, silently: once its first blocks are timed
    it says in one line how long it takes and that Ctrl-C keeps nothing (a duel writes no file)."""
    warned = []
    runs_ = [cfg.resolve("zwergen", games=1500, seed=2, variant=name, sets=[("pro", pro)])
             for name, pro in (("a", False), ("b", True))]
    list(duel.Duel(runs_, "win_0").play(progress=lambda line: None, warn=warned.append))
    assert len(warned) == 1
    assert warned[0].startswith("about ") and warned[0].endswith(
        " for 3,000 games; Ctrl-C stops it and keeps nothing (a duel writes no file)")


@pytest.mark.parametrize("out", [False, True])
def test_a_long_contest_states_its_time_and_what_ctrl_c_keeps(tmp_path, slow_clock, out):
    """Issue 36: `versus --games 10**12` ran without end: it says how long, and what Ctrl-C keeps: nothing, or
    with --out the seatings finished (the same command goes on from them)."""
    warned = []
    seatings = versus.seatings("zwergen", "greedy", "random", games=600, seed=4)
    folder = tmp_path / "vs" if out else None
    versus.contest(seatings, folder=folder, warn=warned.append)
    kept = f"Ctrl-C keeps every seating finished in {folder}, and the same command goes on from them" if out else \
        "Ctrl-C stops it and keeps nothing (with --out FOLDER it keeps every seating finished)"
    assert len(warned) == 1 and warned[0].endswith(f" for 1,200 games; {kept}"), warned


TUNE = """
game = "zwergen"
seed = 1
[policies]
all = "greedy"
[params]
players = 2
[space]
swap_penalty = [0, 1]
[objective]
gap = 0.5
[search]
batch = 200
games_max = 400
finalists = 2
confirm_games = 900
bootstrap = 100
"""


def test_a_long_confirmation_states_its_time(tmp_path, slow_clock):
    """Issue 36: a tune's confirmation of 10**12 games ran without end: it says how long (its 1,800 games here,
    every block "taking" 100 s) and that Ctrl-C keeps the race's batches. The race's batches are reported one by
    one and say nothing more."""
    path = tmp_path / "t.toml"
    path.write_text(TUNE)
    warned = []
    tune.run(tune.load(path), tmp_path / "out", warn=warned.append)
    assert len(warned) == 1 and warned[0].startswith("about ")
    assert warned[0].endswith(" for 1,800 games; Ctrl-C keeps the race's batches, and the same command goes on from "
                              "them with the confirmation")


def test_a_long_duel_states_its_time_on_the_terminal_quiet_or_not(monkeypatch, slow_clock):
    """Issue 36: `duel --games 1000000000000 --quiet` said nothing and ran without end: the command states the
    estimate on stderr, --quiet too (here for 200,000 games, every block "taking" 100 s)."""
    said = []
    monkeypatch.setattr(command, "_warn", said.append)
    done = CliRunner().invoke(command.main, ["duel", "zwergen", "--variant", "a:pro=false", "--variant", "b:pro=true",
                                             "--games", "100000", "--quiet"])
    assert done.exit_code == 0, done.output
    assert len(said) == 1 and said[0].endswith(" for 200,000 games; Ctrl-C stops it and keeps nothing (a duel "
                                               "writes no file)")


def test_an_estimate_in_words():
    """Issue 36: the estimate's words: seconds, minutes, hours, days."""
    assert [executors.duration(s) for s in (75, 600, 3 * 3600, 40 * 86400)] == \
        ["75 seconds", "10 minutes", "3 hours", "40 days"]


def test_the_html_report_says_when_it_compiles_the_replay_agents(cli, tmp_path, monkeypatch):
    """Issue 36: the HTML report compiled the replay agents for its games worth watching silently (233 s on a
    loaded machine). A result file holds each game's row, not its moves, so the page plays the game again with
    its agents: the report says so before they are compiled."""
    from simcore.engine import jit

    assert cli("run", "goofspiel", "--games", "50", "--out", tmp_path / "g.parquet", "--quiet").returncode == 0
    monkeypatch.setattr(jit, "cached", lambda *args, **kwargs: False)       # as on a machine that never compiled them
    done = cli("analyze", tmp_path / "g.parquet", "--report", tmp_path / "r.html")
    assert done.returncode == 0, done.stderr
    assert "compiling goofspiel's agents for the replay pages of the games worth watching" in done.stderr


def test_the_report_says_what_it_writes_while_it_works(cli, tmp_path):
    """Issue 41: `analyze --report` of the demo sweep worked for minutes printing nothing. It says on the terminal
    what it analyses, then how far its replay pages and plots are, the last of each as done of total; the
    verdict on stdout is unchanged by it."""
    import re

    assert cli("run", "goofspiel", "--games", "50", "--out", tmp_path / "g.parquet", "--quiet").returncode == 0
    plain = cli("analyze", tmp_path / "g.parquet")
    for name in ("r.html", "r.md"):
        done = cli("analyze", tmp_path / "g.parquet", "--report", tmp_path / name)
        assert done.returncode == 0, done.stderr
        assert f"analysing 1 variant for {name}" in done.stderr
        steps = re.findall(rf"writing {re.escape(name)}: (.+) (\d+)/(\d+)", done.stderr)
        kinds = {what for what, _, _ in steps}
        assert kinds == ({"replay pages (each game played again)", "plots"} if name.endswith("html") else {"plots"})
        for kind in kinds:
            last = [(int(d), int(t)) for what, d, t in steps if what == kind][-1]
            assert last[0] == last[1] > 0, done.stderr
        assert done.stdout.startswith(plain.stdout.split("\n\neach variant's verdict in full")[0])


def test_a_compile_is_never_silent_for_long():
    """Issue 41: a game's first compile took 17 to 215 s after one line, "compiling GAME". While numba compiles,
    a line every HEARTBEAT seconds says for how long, how many functions are done and which of simcore's is being
    compiled; the lines stop when the compile ends, and a heartbeat with no compile after it stops at once."""
    import time

    import numba
    import numpy as np

    from simcore import cli

    def squares(a):
        total = 0.0
        for i in range(a.shape[0]):
            total += a[i] ** 2 + a[i] % 3
        return total
    squares.__module__ = "simcore.heartbeat_test"       # named as simcore's own are
    lines = []
    cli._heartbeat("the test's function", every=0.01, echo=lines.append)
    assert numba.njit(cache=False)(squares)(np.arange(4.0)) == 17.0
    time.sleep(0.1)
    assert lines, "no line while numba compiled"
    assert all(line.startswith("  still compiling the test's function: ") for line in lines)
    assert "functions compiled so far (now squares)" in lines[-1]
    after = len(lines)
    time.sleep(0.1)
    assert len(lines) == after, "lines went on after the compile ended"
    idle = []
    cli._heartbeat("nothing", every=0.01, echo=idle.append)
    time.sleep(0.1)
    assert idle == []


def test_two_reports_share_one_analysis_and_its_plots(cli, tmp_path):
    """Issue 41: the demo analysed its sweep twice, once per report, drawing every plot twice. Named twice,
    --report writes both from one analysis, the plots drawn once, and each file as a lone --report writes it."""
    assert cli("run", "goofspiel", "--games", "50", "--out", tmp_path / "g.parquet", "--quiet").returncode == 0
    alone = cli("analyze", tmp_path / "g.parquet", "--report", tmp_path / "alone.md")
    both = cli("analyze", tmp_path / "g.parquet", "--report", tmp_path / "both.md", "--report", tmp_path / "both.html")
    assert alone.returncode == both.returncode == 0, both.stderr
    assert "analysing 1 variant for both.md, both.html" in both.stderr
    assert "writing both.md: plots" in both.stderr and "writing both.html: plots" not in both.stderr
    assert (tmp_path / "both.md").read_text().replace("both-plots", "alone-plots") == \
        (tmp_path / "alone.md").read_text()
    for png in (tmp_path / "alone-plots").iterdir():
        assert (tmp_path / "both-plots" / png.name).read_bytes() == png.read_bytes()
    html = (tmp_path / "both.html").read_text()
    assert html.count("data:image/png;base64,") == len(list((tmp_path / "alone-plots").iterdir()))
    twice = cli("analyze", tmp_path / "g.parquet", "--report", tmp_path / "x.md", "--report", tmp_path / "x.md")
    assert twice.returncode != 0 and twice.stderr.strip().splitlines()[-1] == \
        "Error: --report names one file twice; allowed: each report once"
    assert not (tmp_path / "x.md").exists()


def test_the_next_block_plays_while_this_one_is_written_on_the_callers_thread_count():
    """Issue 41: a run into a file plays its next block on a thread of its own while it writes this one
    (executors.ahead): the same blocks in the same order, played on as many threads as the caller's (numba's
    count is per thread: a new thread would have played on every core whatever --threads said)."""
    seen = []

    def blocks():
        for i in range(4):
            seen.append(numba.get_num_threads())
            yield i

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        assert list(executors.ahead(blocks())) == [0, 1, 2, 3]
    finally:
        numba.set_num_threads(before)
    assert seen == [1, 1, 1, 1]


def test_an_error_in_the_block_ahead_reaches_the_caller():
    """Issue 41: what stops the play thread (here a ValueError after two blocks) stops the run that reads
    ahead, after the blocks before it."""
    def blocks():
        yield from (0, 1)
        raise ValueError("the rules refused")

    got = []
    with pytest.raises(ValueError, match="the rules refused"):
        for item in executors.ahead(blocks()):
            got.append(item)
    assert got == [0, 1]


def test_a_file_run_reads_its_blocks_ahead_and_writes_the_rows_of_one_call(tmp_path, monkeypatch):
    """Issue 41: `run --out` takes its blocks through executors.ahead, and the file holds the rows of one
    engine call."""
    calls = []
    real = executors.ahead
    monkeypatch.setattr(runs, "ahead", lambda blocks: calls.append(1) or real(blocks))
    run = _run("greedy", 3000)
    runs.run_to_file(run, tmp_path / "r.parquet")
    table = pq.read_table(tmp_path / "r.parquet")
    expected = engine.run(run.module, run.params_array(), run.policies_array(), 3, 3000)
    assert calls == [1]
    assert np.array_equal(table["n_turns"].to_numpy(), expected[:, engine.O_N_TURNS])


def test_analyze_says_at_once_what_it_does_at_a_terminal(tmp_path):
    """Issue 54: `analyze` printed nothing for its first 10-12 s on a 6,000-game folder under load (its tools
    import, the files read). At a terminal its first line comes before any of that; in captured output (a
    script's, a test's) there is no such line."""
    import os
    import pty
    import subprocess
    import sys

    from tests.conftest import simcore_cli

    assert simcore_cli("run", "goofspiel", "--games", "40", "--out", tmp_path / "g.parquet", "--quiet").returncode == 0
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "simcore", "analyze", str(tmp_path / "g.parquet")],
                               stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    first = b""
    while not first.endswith(b"\n"):
        first += os.read(leader, 1)
    assert process.wait(timeout=120) == 0
    os.close(leader)
    assert first.decode().startswith(f"analysing {tmp_path / 'g.parquet'}: reading the results"), first
    assert "analysing" not in simcore_cli("analyze", tmp_path / "g.parquet").stderr
