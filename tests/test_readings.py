"""The readings of a silent rulebook (issue 38, item 4): each game declares them, its rules page lists them, and
``simcore readings`` plays a verdict again under each and says whether it holds or which reading it hangs on.

"Depends" is said where the verdict word changes under a reading; whether the seats moved (the edge, said as a
moved edge) is a test, calibrated here on synthetic results with a known truth: readings that change nothing
(held to 5% + 3 SE) and readings that move a seat (its power).

    PYTHONPATH=. .venv/bin/python tests/test_readings.py     # the level and power rows of the statistics page
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from analyses import data
from simcore import games
from simcore.io import config as cfg
from simcore.studies import readings

SEED = 7


# --- the declarations and the rules pages ---------------------------------------------------------------------

@pytest.mark.parametrize("name", games.names())
def test_every_reading_names_a_parameter_with_its_default_among_allowed_values(name):
    game = games.load(name).GAME
    assert games.reading_gaps(game) == []
    for param, values, gap in game.readings:
        declared = game.param_index[param]
        assert declared.default in values and len(set(values)) == len(values) >= 2
        assert [cfg.check_param(declared, v) for v in values] == list(values)
        assert gap.strip()


def test_the_readings_are_where_the_rulebooks_leave_a_gap():
    """Zwai's round starter is the reading the tutorial's verdict hangs on; the rulebook states the shark's tie
    ("In case of a tie, do not move the shark!"), so the tie rule is a variant, not a reading."""
    declared = {name: [r.param for r in games.load(name).GAME.readings] for name in games.names()}
    assert "round_starter" in declared["zwai"] and "shark_moves_on_tie" not in declared["zwai"]
    assert declared["goofspiel"] == []                  # OpenSpiel's code states every rule
    assert all(declared[name] for name in games.names() if name != "goofspiel")


@pytest.mark.parametrize("name", games.names())
def test_the_rules_page_lists_the_readings_as_declared(name, cli):
    """`simcore rules GAME` (and the docs site's docs/GAME.md, the same file) holds the declared list."""
    page = cli("rules", name).stdout
    assert readings.READINGS_HEADING in page
    section = page.split(readings.READINGS_HEADING, 1)[1].split("\n## ", 1)[0]
    assert readings.rules_section(games.load(name).GAME) in section


def test_a_bad_reading_is_refused_at_registration():
    import dataclasses

    zwai = games.load("zwai").GAME
    bad = dataclasses.replace(zwai, readings=(("round_starter", ("next", "sideways"), "x"), ("nope", (1, 2), "y"),
                                              ("rounds", (2, 4), "z")))
    gaps = games.reading_gaps(bad)
    assert len(gaps) == 3
    assert "'sideways' is not allowed; allowed: one of 'next', 'rotate'" in gaps[0]
    assert "reading of 'nope' that names one of its parameters" in gaps[1]
    assert "counts its default 3 among its values" in gaps[2]


# --- synthetic results: the level and the power of "the seats move with the reading" ---------------------------

def _result(name, wins):
    n, seats = wins.shape
    columns = {"game_index": np.arange(n), "seed": np.full(n, SEED), "n_players": np.full(n, seats),
               "timeout": ~wins.any(axis=1), "n_turns": np.full(n, 40)}
    columns |= {f"win_{i}": wins[:, i] for i in range(seats)}
    return data.Result(Path(f"{name}.parquet"), name, "zwai", SEED, seats, columns, {})


def _games(rng, n, shares, shared):
    """Win flags of ``n`` games: one winner drawn by ``shares``, or (a share ``shared`` of the games) two seats
    drawn uniformly sharing the win."""
    seats = len(shares)
    wins = np.eye(seats, dtype=bool)[rng.choice(seats, n, p=shares)]
    pairs = rng.random(n) < shared
    second = (wins.argmax(axis=1) + rng.integers(1, seats, n)) % seats
    wins[pairs, second[pairs]] = True
    return wins


def _pair(rng, n, shares, shift=None, coupled=0.5, shared=0.0):
    """The variant as played and under another reading, on common deals: a share ``coupled`` of the games is the
    same game under both readings (the reading never mattered there), the others are drawn afresh so that the
    other reading's shares are ``shares`` + ``shift`` (None: readings that change nothing)."""
    ours = _games(rng, n, shares, shared)
    moved = np.asarray(shares) + (0 if shift is None else np.asarray(shift) / (1 - coupled))
    fresh = _games(rng, n, moved, shared)
    same = rng.random(n) < coupled
    return _result("ours", ours), _result("other", np.where(same[:, None], ours, fresh))


UNFAIR = (0.30, 0.27, 0.23, 0.20)
FAIR3 = (1 / 3, 1 / 3, 1 / 3)


def moved_rate(replicates, n, shift=None, seed=1):
    """How often ``readings.compare`` says a reading moved the seats (Holm across the run's two other readings): a
    4-seat unfair variant and a 3-seat fair one with 10% shared wins, each with one other reading; ``shift``: how
    the 4-seat variant's shares move under its other reading (None: not at all). Returns the rate and its
    standard error."""
    rng = np.random.default_rng(seed)
    found = 0
    for _ in range(replicates):
        pairs = [_pair(rng, n, UNFAIR, shift), _pair(rng, n, FAIR3, shared=0.1)]
        found += any(f.shift_p < 0.05 and not f.inert for f in readings.compare(pairs))
    rate = found / replicates
    return rate, math.sqrt(max(rate * (1 - rate), 0.05 * 0.95) / replicates)


def test_readings_that_change_nothing_are_said_to_move_the_seats_at_most_5_percent():
    rate, se = moved_rate(600, 1000)
    assert rate <= 0.05 + 3 * se, rate


def test_a_reading_that_moves_the_weakest_seat_by_005_is_found():
    rate, _ = moved_rate(60, 2000, shift=(0.05, 0, 0, -0.05))
    assert rate >= 0.9, rate


def test_a_reading_that_never_came_into_play_tests_nothing():
    rng = np.random.default_rng(3)
    ours, _ = _pair(rng, 500, UNFAIR)
    same = _result("same", np.column_stack([ours.columns[f"win_{i}"] for i in range(4)]))
    moved = _pair(rng, 500, UNFAIR, (0.1, 0, 0, -0.1))
    inert, live = readings.compare([(ours, same), moved])
    assert inert.inert and not live.inert and live.family == 1    # the inert one is left out of Holm


# --- real games -----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def formations(tmp_path_factory):
    """The tutorial's sweep: the square and the ring, 4 players, greedy, 2,000 games each."""
    folder = tmp_path_factory.mktemp("formations")
    sweep_file = folder / "formations.toml"
    sweep_file.write_text('game = "zwai"\ngames = 2000\nseed = 1\n[policies]\nall = "greedy"\n[params]\nplayers = 4\n'
                          '[axes]\nformation = ["square", "ring"]\n')
    from tests.conftest import simcore_cli

    assert simcore_cli("sweep", sweep_file, "--quiet", "--out", folder / "runs").returncode == 0
    return folder / "runs"


def _found(folder, games_=None):
    results = data.load_folder(folder)
    todo = readings.replays(results, games_)
    return todo, readings.verdicts(todo, {r.name: readings.in_memory(r.config) for r in todo})


def test_the_zwai_ring_edge_moves_with_the_round_starter(formations):
    """The tutorial's verdict: seat 3 takes 7% of the ring's points as played; when the start moves one seat a
    round, it takes 21%. The same deals, so the difference is the reading's; the ring is unbalanced under both
    readings, so its word does not depend on the reading: its edge moves (to seat 2)."""
    _, found = _found(formations)
    ring = next(v for v in found if v.variant == "formation=ring")
    assert ring.depends_on == () and ring.depends.word == "same under every reading"
    rotate = ring.alternatives[0]
    assert (rotate.param, rotate.value) == ("round_starter", "rotate") and rotate.moved and ring.moved == [rotate]
    assert ring.ours.seats == (3,) and ring.ours.numbers["share"] < 0.09
    assert rotate.balance.seats == (2,) and rotate.change.word == "fairer"
    assert rotate.fairness.shares_a[3] + rotate.fairness.shift.shift[3] > ring.ours.numbers["share"] + 0.1
    assert "**Same under every reading** (round_starter)" in ring.text
    assert "The seat furthest from fair moves from seat 3 to seat 2 under round_starter=rotate" in ring.text


def test_the_command_prints_the_dependence_and_writes_nothing(formations, cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = cli("readings", formations, "--games", "500")
    assert done.returncode == 0, done.stderr
    printed = " ".join(done.stdout.split())
    assert "formation=ring: players=4, formation=ring; every seat greedy" in printed
    assert "Same under every reading (round_starter): as played (ours) unbalanced, seat 3" in printed
    assert "(500 games a reading, seed 1" in printed
    assert list(tmp_path.iterdir()) == []


def test_out_keeps_the_games_played_for_analyze_and_report_writes_the_verdict(formations, cli, tmp_path):
    out, page = tmp_path / "replayed", tmp_path / "readings.md"
    done = cli("readings", formations, "--games", "300", "--out", out, "--report", page)
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in out.glob("*.parquet"))
    assert names == ["formation=ring,round_starter=rotate.parquet", "formation=ring.parquet",
                     "formation=square,round_starter=rotate.parquet", "formation=square.parquet"]
    assert "**Depends on the reading of round_starter**" in page.read_text()
    assert cli("analyze", out).returncode == 0
    written = {p.name: p.stat().st_mtime_ns for p in out.glob("*.parquet")}
    again = cli("readings", formations, "--games", "300", "--out", out)     # finished files are not played again
    assert again.returncode == 0 and again.stdout.split("\n\n")[:-1] == done.stdout.split("\n\n")[:-2]
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.parquet")} == written


def test_a_verdict_that_holds_under_its_readings_says_so(cli, tmp_path):
    """Zwergen Ziehen without the Pro rules never reaches the Re rule: the other reading plays the same games."""
    played = tmp_path / "zwergen.parquet"
    assert cli("run", "zwergen", "--policy", "greedy", "--games", "400", "--quiet", "--out", played).returncode == 0
    done = cli("readings", played)
    assert done.returncode == 0, done.stderr
    assert "Same under every reading (re_moves_rope)" in done.stdout
    assert "re_moves_rope=true never came into play" in done.stdout
    assert "The verdict is the same under every reading." in done.stdout


def test_a_game_without_readings_says_so(cli, tmp_path):
    played = tmp_path / "goofspiel.parquet"
    assert cli("run", "goofspiel", "--games", "50", "--quiet", "--out", played).returncode == 0
    done = cli("readings", played)
    assert done.returncode == 0 and "goofspiel declares no readings of a silent rulebook" in done.stdout


@pytest.mark.parametrize("make, args, message", [
    (lambda p: p.write_text("not parquet"), [], "is not a readable Parquet file"),
    (lambda p: None, ["--games", "0"], "--games 0 is not allowed; allowed: 10 or more"),
    (lambda p: None, ["--report", "verdict.html"], "allowed: NAME.md"),
    (lambda p: (p.parent / "file").write_text("x"), ["--out", "file"], "it is a file"),
])
def test_bad_input_is_one_line_and_writes_nothing(cli, tmp_path, monkeypatch, make, args, message):
    monkeypatch.chdir(tmp_path)
    played = tmp_path / "played.parquet"
    assert cli("run", "zwai", "--games", "20", "--quiet", "--out", played).returncode == 0
    make(played)
    before = sorted(tmp_path.iterdir())
    done = cli("readings", played, *args)
    assert done.returncode != 0 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert sorted(tmp_path.iterdir()) == before


def test_a_folder_of_another_kind_is_not_written_into(formations, cli):
    done = cli("readings", formations, "--games", "100", "--out", formations)
    assert done.returncode != 0 and "it holds a sweep of zwai" in done.stderr


# --- the statistics page's rows ---------------------------------------------------------------------------------

def _word_rate(replicates, n, seed=2):
    """Between two readings that change nothing, at a variant whose edge is found about half the time: how often
    the verdict word differs ("depends" is said), and how often both are unbalanced with another worst seat (the
    sentence says the seat furthest from fair moves, and that no seat moved beyond chance)."""
    rng = np.random.default_rng(seed)
    word = seat = 0
    for _ in range(replicates):
        ours, other = _pair(rng, n, (0.27, 0.25, 0.25, 0.23), shared=0.1)
        a, b = (readings._world([name], {name: r}) for name, r in (("ours", ours), ("other", other)))
        a, b = a["ours"], b["other"]
        word += a.word != b.word
        seat += bool(a.seats and b.seats and a.seats != b.seats)
    return word / replicates, seat / replicates


if __name__ == "__main__":
    for n in (300, 1000, 2000):
        print(f"equivalent readings, {n} games: the seats move {moved_rate(2000, n)[0]:.3f}")
    for drop in (0.02, 0.03, 0.05):
        for n in (1000, 2000):
            found = moved_rate(500, n, (drop, 0, 0, -drop))[0]
            print(f"weakest seat -{drop} (to the strongest), {n} games: found {found:.3f}")
    word, seat = _word_rate(500, 2000)
    print(f"equivalent readings near the edge, 2,000 games: the word differs {word:.3f}, the worst seat {seat:.3f}")
    sys.exit(0)
