"""simcore bench's tables: what the docs' speed page is made of."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simcore import games
from simcore.games import zwai
from simcore.studies import bench


def _figure(case, game):
    return {"case": case, "game": game, "jit_1_thread": 1000.0, "jit_2_threads": 1900.0, "python": None,
            "jit_vs_python": None, "cores_vs_1_thread": 1.9, "cores": 2}


def test_tables_give_the_bytes_of_a_state_per_game():
    """Issue 12: every game's state in the narrowest integer type, its bytes per state in the docs' speed page."""
    figures = [_figure("zwai-2p-random", "zwai"), _figure("zwai-2p-greedy", "zwai")]
    size = zwai.STATE_SIZE * zwai.new_state().itemsize
    assert bench.state_bytes(figures) == {"zwai": size}
    assert f"| zwai | {size:,} |" in bench.render_markdown(figures)
    assert f"bytes per state: zwai {size:,}" in bench.render(figures)


def test_every_game_has_a_random_and_an_mc_case():
    """Issue 12: random play through the interface and one mc:rollouts=8 seat against greedy, per game."""
    for game in games.names():
        policies = [policy for g, _, policy, _ in bench.cases([game]).values()]
        assert "random" in policies
        assert {"all": "greedy", 0: "mc:rollouts=8"} in policies


def test_a_game_without_cases_of_its_own_gets_them_from_its_contract(monkeypatch):
    """Issue 39: `simcore bench --game NAME` of a designer's game said "No benchmark case selected". A game without
    hand-written cases gets random, greedy, mc, ismcts and its recommended search from what it declares."""
    monkeypatch.setattr(bench, "CASES", {k: v for k, v in bench.CASES.items() if v[0] != "goofspiel"})
    derived = bench.cases(["goofspiel"])
    assert derived == bench.contract_cases("goofspiel") and set(derived) == {
        "goofspiel-random", "goofspiel-greedy", "goofspiel-mc8-vs-greedy", "goofspiel-ismcts1000-vs-greedy",
        "goofspiel-recommended-vs-greedy"}
    assert all(case[3] == 0 for case in derived.values())


def test_every_game_has_an_ismcts_case_with_its_iterations_per_second():
    """Issue 13: ISMCTS iterations per second per thread, and games per second of one ismcts:iterations=1000
    seat against greedy, per game: the plain search spelled out (comparable across versions), and the game's
    recommended search where it has one (issue 24)."""
    for game in games.names():
        policies = [policy for g, _, policy, _ in bench.cases([game]).values()]
        assert {"all": "greedy", 0: bench.RAW_ISMCTS} in policies
        if games.load(game).GAME.search:
            assert {"all": "greedy", 0: "ismcts:iterations=1000"} in policies
    search = dict(_figure("zwai-2p-ismcts1000-vs-greedy", "zwai"), jit_1_thread=9.87, jit_2_threads=None,
                  cores_vs_1_thread=None, iterations_per_s=456789.0)
    row = [line for line in bench.render_markdown([search]).splitlines() if "ismcts" in line][0]
    assert row == "| `zwai-2p-ismcts1000-vs-greedy` | 9.9 |  | n/a | n/a |  |  | 456,789 |"
    assert "456,789" in bench.render([search])


def test_bench_runs_from_a_folder_that_holds_another_simcore(tmp_path):
    """Issue 54: `simcore bench` failed with an ImportError from a folder holding a `simcore/` directory (an
    author working beside a checkout): its warm-start runs imported the working folder's simcore. They do not."""
    (tmp_path / "simcore").mkdir()
    (tmp_path / "simcore" / "__init__.py").write_text('raise ImportError("the simcore of the working folder")\n')
    command = Path(sys.executable).parent / "simcore"         # the installed command, as the author runs it
    done = subprocess.run([command, "bench", "--game", "goofspiel", "--games", "20",
                           "--repeats", "1", "--quiet"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "goofspiel-2p" in done.stdout and "ImportError" not in done.stderr


def test_zwai_random_play_is_set_beside_the_hand_written_c(monkeypatch):
    """Issue 57: `simcore bench` reports the C comparison when gcc is there: the fastest hand-written C of the same
    games (benchmarks/c_oracle/zwai_fast.c) on one thread, and simcore's rate over it."""
    figure = dict(_figure(bench.C_CASE, "zwai"), jit_1_thread=300_000.0, c_1_thread=1_000_000.0, vs_c=0.3)
    line = "against the fastest hand-written C of the same games"
    assert [x for x in bench.render([figure]).splitlines() if line in x][0].endswith(
        "C 1,000,000 games/s, simcore 300,000 (rows in memory): 0.30x C")
    assert line in bench.render_markdown([figure])
    monkeypatch.setattr(bench.shutil, "which", lambda name: None)
    assert bench.c_rate(1) is None
    assert "needs gcc" in bench.render([dict(figure, c_1_thread=None, vs_c=None)])
    assert line not in bench.render([_figure("zwai-2p-greedy", "zwai")])


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to build the C")
def test_the_hand_written_c_is_built_and_timed():
    """Issue 57: the C of `simcore bench` builds here and plays its games (a rate of games a second)."""
    assert bench.c_rate(1) > 10_000
