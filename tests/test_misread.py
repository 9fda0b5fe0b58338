"""Issue 38, items 1 to 3: verdicts a designer cannot misread. Team games speak of teams, edges compare across
player counts relative to a fair share, and a rule change that never came into play says so."""

from types import SimpleNamespace

import numpy as np
import pytest

from analyses import seat_balance
from analyses.claims import claims
from analyses.data import load_folder
from analyses.report import analyze
from analyses.screen import rows
from analyses.variants import changed_games, fairness, percent_of
from analyses.verdict import verdicts
from tests.conftest import simcore_cli


@pytest.fixture(scope="module")
def zwergen_counts(tmp_path_factory):
    """Zwergen Ziehen, greedy, 2 and 4 players (4 players: seats 0 and 2 against 1 and 3), 2,000 games each."""
    folder = tmp_path_factory.mktemp("zwergen")
    (folder / "s.toml").write_text('game = "zwergen"\ngames = 2000\nseed = 1\n[policies]\nall = "greedy"\n'
                                   "[axes]\nplayers = [2, 4]\n")
    assert simcore_cli("sweep", folder / "s.toml", "--out", folder / "runs", "--quiet").returncode == 0
    return load_folder(folder / "runs")


def test_a_team_game_speaks_of_teams(zwergen_counts):
    """Rulebook (Zwergen Ziehen, 4 players): seats 0 and 2 play against 1 and 3, and a team's win is both its
    seats'. The verdict names the team, its share of the points against a fair 0.500 (not a seat's 0.25), the
    team gap, and how many games one team won (before: '0.0% of games have a single winner (2,000 shared)')."""
    v = analyze(zwergen_counts).verdicts["players=4"]
    assert v.worst_seat in ((0, 2), (1, 3)) and v.fair == 0.5
    assert v.text.startswith(f"**Unbalanced**: the team of seats {v.worst_seat[0]} and {v.worst_seat[1]} takes "
                             f"{v.share:.3f} of the points [{v.low:.3f}, {v.high:.3f}] against a fair 0.500")
    assert "the team gap " in v.text and "the seat gap" not in v.text
    assert "of games are won by one team (0 shared between teams)" in v.text
    assert "single winner" not in v.text and abs(v.edge) > 0.03


def test_edges_compare_across_player_counts_relative_to_a_fair_share(zwergen_counts):
    """An edge of 0.039 at 2 seats (fair 0.5) is 8% of a fair share; a team edge of 0.05 at 4 seats in two teams
    (fair 0.5) is 10%: the first screen gives each edge relative to a fair share beside it (issue 53: the table
    replaced the overview that ranked them)."""
    analysis = analyze(zwergen_counts)
    two, four = analysis.verdicts["players=2"], analysis.verdicts["players=4"]
    assert two.relative == pytest.approx(two.share / 0.5 - 1) and four.relative == pytest.approx(four.share / 0.5 - 1)
    _, table = rows(claims(analysis), analysis.baselines)
    cell = {row[0]: row[3] for row in table}["players=4"]
    assert cell.startswith(f"the team of seats {four.worst_seat[0]} and {four.worst_seat[1]} {four.edge:+.3f} "
                           f"({100 * four.relative:+.0f}%)")


def test_a_small_raw_edge_at_five_seats_reads_larger_than_a_larger_one_at_two():
    """Seat shares (0.54, 0.46) at 2 players: raw edge 0.04, 8% of fair; (0.17, 0.2075, ...) at 5: a smaller raw
    edge, 0.03, but 15% of fair 0.2. The table gives both relative to fair: 5 players' is the larger."""
    rng = np.random.default_rng(3)
    results, balances = [], {}
    for name, shares in (("two", (0.54, 0.46)), ("five", (0.17, 0.2075, 0.2075, 0.2075, 0.2075))):
        wins = np.eye(len(shares), dtype=bool)[rng.choice(len(shares), size=20_000, p=shares)]
        balances[name] = seat_balance(wins, np.zeros(20_000, bool), n_resamples=200, seed=1)
        results.append(SimpleNamespace(name=name, meta={}, wins=wins, points=wins.astype(float), unit="",
                                       column=lambda _: np.full(20_000, 30)))
    stand_in = SimpleNamespace(results=results, balances=balances, comparisons=[], fairness={}, margins=None,
                               baselines={"two": "two", "five": "five"}, skill_levels={}, strengths=())
    stand_in.verdicts = verdicts(stand_in)
    cells = {row[0]: row[3] for row in rows(claims(stand_in), stand_in.baselines)[1]}
    assert cells["two"].startswith("seat 0 +0.04") and "(+8%)" in cells["two"]
    assert cells["five"].startswith("seat 0 -0.0") and "(-15%)" in cells["five"]


@pytest.fixture(scope="module")
def bribes(tmp_path_factory):
    """Der Herr der Wichtel, 3 players, greedy: the printed bribe ranking, Der and Ich swapped (greedy never bids
    Der, so the swap never comes into play), and ties to the first bidder (which does)."""
    folder = tmp_path_factory.mktemp("wichtel")
    (folder / "s.toml").write_text(
        'game = "wichtel"\ngames = 600\nseed = 1\n[policies]\nall = "greedy"\n'
        '[[variants]]\nname = "printed"\nplayers = 3\n'
        '[[variants]]\nname = "swapped"\nplayers = 3\nbribe_ranking = "2,3,4,5,6,der,ich"\n'
        '[[variants]]\nname = "first"\nplayers = 3\nbribe_tie = "first"\n')
    assert simcore_cli("sweep", folder / "s.toml", "--out", folder / "runs", "--quiet").returncode == 0
    return {r.name: r for r in load_folder(folder / "runs")}


def test_a_rule_change_that_never_came_into_play_says_so(bribes):
    """Issue 38, item 3 (decisions: the bribe ranking is a parameter): the Der/Ich swap leaves every game as the
    printed rules play it under greedy; the verdict says the change never came into play instead of 'no
    difference beyond chance', and the overview names it."""
    assert changed_games(bribes["printed"], bribes["swapped"]) == (0, 600)
    analysis = analyze(list(bribes.values()))
    swapped = analysis.verdicts["swapped"]
    assert swapped.inert and "Against its baseline `printed`, on 600 games of common deals: **the change never came " \
        "into play**: all 600 games" \
        in swapped.text
    assert "no difference" not in swapped.text.lower() and "No difference" not in swapped.text
    table = {row[0]: row for row in rows(claims(analysis), analysis.baselines)[1]}
    assert table["swapped"][-1] == "never came into play (600)"
    first = analysis.verdicts["first"]
    changed, compared = changed_games(bribes["printed"], bribes["first"])
    assert not first.inert and 0 < changed < compared
    assert f"The change came into play in {changed:,} of 600 games" in first.text
    assert fairness(bribes["printed"], bribes["swapped"]).text.startswith("**The change never came into play**")


@pytest.mark.parametrize("part, whole, said", [(7998, 8000, "over 99.9%"), (8000, 8000, "100.0%"),
                                                (1, 8000, "under 0.1%"), (0, 8000, "0.0%"), (123, 1000, "12.3%")])
def test_how_often_a_change_came_into_play_is_said_in_per_cent(part, whole, said):
    """Issue 53, case 11: "came into play in 7,998 of 8,000 games (1e+02%)"; nor may a share that is neither all
    nor none be rounded to either."""
    assert percent_of(part, whole) == said


def test_changed_games_needs_common_deals(bribes):
    other = SimpleNamespace(**{**vars(bribes["printed"]), "seed": 2})
    assert changed_games(bribes["printed"], other) is None


def test_compare_warns_that_edges_differ_in_scale_across_player_counts(zwergen_counts):
    from analyses.variants import unlike

    two, four = zwergen_counts
    warning = unlike(two, four)
    assert "a seat's fair share is 1/2 in one and 1/4 in the other, so read an edge relative to its fair share" \
        in warning
    assert "fair share is" not in (unlike(two, SimpleNamespace(**{**vars(two), "policies": ["random"] * 2})) or "")
