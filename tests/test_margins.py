"""Issue 38, item 7: margins. A game declares the unit of its per-seat score (``GameType.margin``), and
``analyze``, ``compare`` and ``versus`` take ``--score margin``: a seat's score less the table's mean score, read
by the same tests as the points (``tests/test_calibration_margins.py`` holds them to their rates)."""

import numpy as np
import pyarrow.parquet as pq
import pytest

from analyses import scoring
from analyses.data import DataError, load_folder, load_result, scored
from analyses.fairer import margin_balance
from analyses.report import analyze
from simcore import games
from tests.conftest import simcore_cli


def flat(text):
    """The output with its lines joined: a sentence is wrapped at the terminal's width."""
    return " ".join(text.split())


UNITS = {"goofspiel": "prize points", "zwai": "fish", "wichtel": "points", "zwergen": "rounds", "skirmish": "gnomes"}


@pytest.mark.parametrize("game", games.names())
def test_every_game_declares_its_margin(game):
    """Each rules page states what score_i counts (docs/<game>.md, "Columns"): goofspiel the prize points taken,
    zwai the fish of one's colour in the scoring pile, wichtel the final total, zwergen the rounds won by the
    seat's team, skirmish the gnomes in action at the end. ``simcore games`` names the margin."""
    assert games.load(game).GAME.margin == UNITS[game]
    out = simcore_cli("games", game).stdout
    assert f"margin: a seat's score in {UNITS[game]}, less the table's mean (--score margin reads it)" in out


def test_a_margin_is_a_score_less_the_tables_mean():
    m = scoring.margins([[40.0, 38.0, 0.0], [5.0, 5.0, 5.0]])
    assert m.tolist() == [[14.0, 12.0, -26.0], [0.0, 0.0, 0.0]]
    with pytest.raises(ValueError, match="declares no margin.*allowed: --score points"):
        scoring.check_score("margin", "toy", "")
    with pytest.raises(ValueError, match="unknown score 'wins'; allowed: points, margin"):
        scoring.check_score("wins", "zwai", "fish")


@pytest.fixture(scope="module")
def shoals(tmp_path_factory):
    """Zwai, 4 players, greedy, the square and the cup, 1,000 games each on one seed (common deals)."""
    folder = tmp_path_factory.mktemp("zwai")
    (folder / "s.toml").write_text('game = "zwai"\ngames = 1000\nseed = 1\n[policies]\nall = "greedy"\n'
                                   '[params]\nplayers = 4\n[axes]\nformation = ["square", "cup"]\n')
    assert simcore_cli("sweep", folder / "s.toml", "--out", folder / "runs", "--quiet").returncode == 0
    return folder / "runs"


def test_analyze_reads_the_margins_in_the_games_unit(shoals):
    """Zwai, "the player with the most fish of their own colour in the scoring pile wins": scored by the margin,
    the verdict names the seat furthest from the table's mean in fish, with the one-sample Hotelling's T² of
    every seat's margins against 0 (``analyses.fairer.margin_balance``), and says that it reads margins."""
    results = scored(load_folder(shoals), "margin")
    analysis = analyze(results, margin=None)
    square = results[0]
    mean = (square.scores - square.scores.mean(axis=1, keepdims=True)).mean(axis=0)
    v = analysis.verdicts[square.name]
    assert v.worst_seat == (int(np.argmax(np.abs(mean))),) and v.share == pytest.approx(mean[v.worst_seat[0]])
    assert v.fair == 0 and v.unit == "fish" and v.gap_pvalue == pytest.approx(margin_balance(square.outcome).pvalue)
    assert f"seat {v.worst_seat[0]}'s margin (its score less the table's mean) is {v.share:+.2f} fish a game" in v.text
    out = flat(simcore_cli("analyze", shoals, "--score", "margin", "--explain").stdout)
    assert "Scored by the margin: a seat's score (fish) less the table's mean score" in out
    # the first screen's row: the worst seat's margin in fish, its interval (issue 53)
    row = f"{square.name} 1,000 {'unbalanced' if v.unbalanced else 'no edge found'} "
    assert row in out and (f"seat {v.worst_seat[0]} {v.share:+.2f} fish [{v.low:+.2f}, {v.high:+.2f}]" in out
                           or not v.unbalanced)
    assert "edge: a seat's margin (its score less the table's mean) in fish" in out


def test_fair_within_a_margin_is_in_the_games_unit(shoals):
    """--margin E with --score margin is E fish: shown when every seat's margin interval lies within E of 0;
    a share's bound (E < 1) does not apply to it, and without --margin no fair-within test is made."""
    wide = flat(simcore_cli("analyze", shoals, "--score", "margin", "--margin", "5", "--explain").stdout)
    assert "Fair within 5 fish: every seat's margin lies within" in wide
    narrow = flat(simcore_cli("analyze", shoals, "--score", "margin", "--margin", "0.01", "--explain").stdout)
    assert "Not shown fair within 0.01 fish" in narrow and "a fair game of this spread needs about" in narrow
    refused = simcore_cli("analyze", shoals, "--score", "margin", "--margin", "-1")
    assert refused.returncode != 0 and "allowed: E > 0 in the game's unit" in refused.stderr
    assert "Fair within" not in simcore_cli("analyze", shoals, "--score", "margin", "--explain").stdout


def test_compare_says_which_is_fairer_by_the_margin(shoals):
    """The cup against the square on common deals, by their margins: the imbalance Σ margin² in fish squared, the
    seats that moved in fish, and the per-seat rows are margin_i."""
    square, cup = sorted(shoals.glob("*.parquet"))[::-1]
    out = flat(simcore_cli("compare", square, cup, "--score", "margin").stdout)
    assert "Scored by the margin: a seat's score (fish) less the table's mean score" in out
    assert "| margin_0 |" in out and "| points_0 |" not in out
    assert "the imbalance Σ margin² (fish squared) goes from" in out


def test_versus_scores_a_contest_by_its_margin(tmp_path):
    """Goofspiel, "the player with the most points wins": greedy against random by the points it wins by. The
    score is A's mean margin over every seating, from the games it wrote; a contest of equals would give 0."""
    folder = tmp_path / "vs"
    run = simcore_cli("versus", "goofspiel", "--policy", "greedy", "--against", "random", "--games", "60",
                      "--score", "margin", "--out", folder, "--quiet")
    assert run.returncode == 0, run.stderr
    margins = []
    for seat in range(2):
        table = pq.read_table(folder / f"seat{seat}.parquet")
        margins.append(scoring.margins(np.column_stack([table[f"score_{i}"].to_numpy() for i in range(2)]))[:, seat])
    mean = float(np.mean(margins))
    assert f"score {mean:.4f} [" in run.stdout and "prize points (fair 0.0000" in run.stdout
    assert run.stdout.splitlines()[0].endswith(": stronger")
    assert "scoring: the margin, a seat's score less the table's mean score (prize points)" in run.stdout
    assert "Student's t test of the 60 deals' mean margins against 0" in run.stdout


def test_a_score_a_game_does_not_declare_is_refused(shoals, monkeypatch):
    """A game whose score is no measure of how well a seat did declares no margin: --score margin is refused in
    one line; an unknown score is refused by the option itself."""
    result = load_result(sorted(shoals.glob("*.parquet"))[0])
    monkeypatch.setattr(games, "load", lambda name: type("M", (), {"GAME": type("G", (), {"margin": ""})}))
    with pytest.raises(DataError, match="zwai declares no margin"):
        scored([result], "margin")
    wrong = simcore_cli("analyze", shoals, "--score", "wins")
    assert wrong.returncode != 0 and "'wins' is not one of 'points', 'margin'" in wrong.stderr
