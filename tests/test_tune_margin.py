"""simcore tune --score margin (issue 38, item 7): the gap of the seats' mean margins (a seat's score less the
table's mean score, in the game's unit, fair 0), raced and confirmed with the tests tune uses for points; the score
recorded with the run; and the calibration of what tune says of margins.

The calibration draws each seat's score in a game from a skewed law on 0..K (a truncated geometric: a few games
scored far above the rest, as prize points and fish are), the seats independent, team-mates sharing their team's
score; a game is then one of the few joint scores, and a confirmation (or a batch) a multinomial count of them,
whose moments are exact sums over the outcomes: thousands of races and confirmations take seconds.
"""

import dataclasses
import itertools
import json
import math
from types import SimpleNamespace

import numpy as np
import pyarrow.parquet as pq
import pytest

from analyses.scoring import margins
from simcore.io import config as cfg
from simcore.studies import tune, tune_report

ALPHA = 0.05
R = 2000
UNIT = "prize points"
GAP2 = tune.Objective((tune.Term("gap", 1.0, margin_unit=UNIT),), players=2)


def slack(rate, replicates):
    """The most an error rate's estimate may exceed ``rate`` by chance: three binomial standard errors."""
    return 3 * math.sqrt(rate * (1 - rate) / replicates)


def law(decay, k=12):
    """A truncated geometric law on the scores 0..k: P(s) proportional to decay ** s."""
    p = decay ** np.arange(k + 1.0)
    return p / p.sum()


def outcomes(laws, teams=None):
    """Every joint score of the seats (outcomes, seats) and its probability: each seat (or team: its seats share
    one score) independent with its law."""
    joint = np.array(list(itertools.product(*[range(len(p)) for p in laws])), float)
    probs = np.prod([p[joint[:, u].astype(int)] for u, p in enumerate(laws)], axis=0)
    if teams is not None:
        seats = [next(t for t, team in enumerate(teams) if s in team) for s in range(sum(map(len, teams)))]
        joint = joint[:, seats]
    return joint, probs


def unit_margins(scores, teams=None):
    """The margins of the units (seats, or teams: their seats' summed) per outcome."""
    m = margins(scores)
    return m if teams is None else np.stack([m[:, list(t)].sum(axis=1) for t in teams], axis=1)


# --- the objective and its race -------------------------------------------------------------------------------


def test_the_gap_of_margins_reads_the_scores_and_is_not_a_share():
    """Scored by the margin, the gap reads margin_i derived from the result columns score_i (as points_i from
    win_i), unbounded (Student t, not Clopper-Pearson), and a fair game's gap is 0."""
    objective = tune.parse_objective({"gap": 2.0, "mean_turns": [40, 45]}, ["win_0", "win_1", "score_0", "score_1",
                                                                          "n_turns"], 2, margin_unit=UNIT)
    assert objective.sources == ["score_0", "score_1", "n_turns"]
    assert objective.columns == ["margin_0", "margin_1", "n_turns"]
    assert list(objective.unit) == [False, False, False] and objective.seats == [0, 1]
    assert objective.margin_unit == UNIT and objective.total == 0.0
    raw = np.array([[13, 5, 40], [2, 8, 42], [7, 7, 44]], float)
    assert objective.values(raw).tolist() == [[4, -4, 40], [-3, 3, 42], [0, 0, 44]]
    assert objective.term_values(objective.values(raw).mean(axis=0)) == pytest.approx({"gap": 2 * 2 / 3,
                                                                                       "n_turns": 0})
    assert "mean margin - lowest's, in prize points" in objective.terms[0].describe()
    points = tune.parse_objective({"gap": 1.0}, ["win_0", "win_1"], 2)
    assert points.sources == ["win_0", "win_1"] and points.margin_unit == "" and points.total == 1.0


def test_margins_need_a_gap_term():
    with pytest.raises(cfg.ConfigError) as error:
        tune.parse_objective({"mean_turns": [40, 45]}, ["n_turns"], 2, margin_unit=UNIT)
    assert "--score margin scores the seats' gap, and [objective] has no gap term" in str(error.value)
    assert "\n" not in str(error.value)


SKEWED = law(0.7)


def synthetic_scores(offsets, seed=0):
    """A test double for the games: per candidate the scores (games, 2) of two seats drawn from :data:`SKEWED` on
    common random numbers (as simcore's seeds), candidate c's seat 0 scoring ``offsets[c]`` more."""
    def evaluate(candidates, start, games):
        rng = np.random.default_rng([seed, start])
        scores = rng.choice(len(SKEWED), p=SKEWED, size=(games, 2)).astype(float)
        return [scores + [offsets[c], 0.0] for c in candidates]
    return evaluate


def test_racing_margins_finds_the_fair_candidate():
    """Five candidates whose seat 0 scores 0 to 2 prize points more: the race keeps the fair one, drops the
    clearly unfair, and its intervals are Student t's (margins are not shares: they reach beyond 1)."""
    offsets = [1.0, 0.0, 2.0, 0.2, 1.5]
    search = {"batch": 200, "games_max": 2000, "alpha": ALPHA, "bootstrap": 400}
    state = tune.race(5, synthetic_scores(offsets), GAP2, search)
    assert 1 in state.alive and not {0, 2, 4} & set(state.alive)
    first = state.history[0][1]
    assert first[2][1] > 1 and first[1][1] == 0.0             # a gap above 1 (not a share); the fair one's low 0
    assert first[2][0] == pytest.approx(2.0, abs=0.4)         # seat 0's margin +1, seat 1's -1: a gap of 2


# --- the confirmation -----------------------------------------------------------------------------------------


def test_the_confirmation_of_margins():
    """On 20,000 shared games: the edges are the mean margins against 0 with simultaneous intervals; no chi-square
    of single winners (margins count none); a fair finalist is fair within 0.1 prize points, not unbalanced and
    fairer than the race's pick, whose seat 0 scores 0.5 more (edge +0.25: unbalanced); the imbalance is Σ margin²."""
    matrices = synthetic_scores([0.5, 0.0, 0.5], seed=3)([0, 1, 2], 0, 20_000)
    rows = tune.confirm([0, 1, 2], matrices, GAP2, 400, seed=1, margin=0.1)
    confirmed = {r.candidate: r for r in rows}
    best, fair, copy = confirmed[0], confirmed[1], confirmed[2]
    m = margins(matrices[0])
    assert best.edge == pytest.approx(m.mean(axis=0)) and best.edge[0] == pytest.approx(0.25, abs=0.05)
    assert best.edge_low[0] < best.edge[0] < best.edge_high[0] and fair.edge_low[0] < 0 < fair.edge_high[0]
    assert best.decisive == 0 and math.isnan(best.pvalue) and math.isnan(best.statistic)
    assert best.fairness.unbalanced and not fair.fairness.unbalanced
    assert fair.fairness.within and not best.fairness.within and fair.fairness.ruled_out < 0.1
    assert fair.fairness.against_pick == "fairer" and copy.fairness.against_pick == "no change found"
    assert best.fairness.imbalance == pytest.approx((m.mean(axis=0) ** 2).sum(), abs=1e-3)
    assert best.fairness.unit == UNIT
    words = tune_report.fairness_words(_said(rows)["c1"])
    assert "fair within 0.1 prize points (every seat within 0.0" in words and "prize points)" in words
    gap, low, high = tune.seat_gap(best)
    assert gap == pytest.approx(2 * best.edge[0]) and low < gap < high


def _said(rows):
    """The finalists' fairness claims, named c0, c1, ..., the first the race's pick (as tune.confirm takes it)."""
    names = {r.candidate: SimpleNamespace(name=f"c{r.candidate}") for r in rows}
    return tune.fairness_claims(SimpleNamespace(plan=SimpleNamespace(candidates=names), race_pick=rows[0].candidate,
                                                confirmed=rows))


def test_without_a_margin_the_confirmation_says_only_what_it_rules_out():
    """Margins have no default E: nothing is called fair within, and each finalist says which edges its games rule
    out, from the same intervals a given E would be tested with."""
    matrices = synthetic_scores([0.0], seed=4)([0], 0, 5000)
    without, = tune.confirm([0], matrices, GAP2, 100, seed=1, margin=math.nan)
    given, = tune.confirm([0], matrices, GAP2, 100, seed=1, margin=0.2)
    assert not without.fairness.within and math.isnan(without.fairness.margin)
    assert without.fairness.ruled_out == pytest.approx(given.fairness.ruled_out) and given.fairness.within
    words = tune_report.fairness_words(_said([without])["c0"])
    assert f"every seat's margin within {without.fairness.ruled_out:.2f} prize points of 0 (a larger edge is " \
           "ruled out)" in words and "fair within" not in words


TEAMS = ((0, 2), (1, 3))


def test_team_mates_sharing_a_score_are_one_unit():
    """A 4-seat team game whose team-mates share one score: the fairness tests read the teams (a team's margin, its
    seats' summed), as analyze does; the seats' margins alone show no team."""
    joint, probs = outcomes([law(0.7), law(0.6)], TEAMS)
    rng = np.random.default_rng(5)
    games = [joint[rng.choice(len(probs), p=probs, size=4000)] for _ in range(2)]
    objective = tune.Objective((tune.Term("gap", 1.0, margin_unit="rounds"),), players=4)
    values = np.stack([objective.values(g) for g in games])[:, :, objective.seats]
    assert tune.finalist_teams(objective, values) == TEAMS
    alone, _ = outcomes([law(0.7)] * 4)                                              # every seat its own score
    assert tune.finalist_teams(objective, objective.values(alone)[None]) is None
    r = tune.confirm([0, 1], games, objective, 100, seed=1, margin=0.3)[0]
    team_margin = unit_margins(games[0], TEAMS).mean(axis=0)
    assert r.fairness.imbalance == pytest.approx((team_margin ** 2).sum(), abs=0.01)
    assert r.fairness.unbalanced                 # team (1, 3) scores more: mean 1.5 against 2.33 a game


# --- the score recorded with the run ------------------------------------------------------------------------

TUNE = """
game = "zwergen"
seed = 4
[policies]
all = "greedy"
[space]
swap_penalty = [0, 1]
[objective]
gap = 1.0
[search]
batch = 200
games_max = 400
finalists = 2
confirm_games = 400
"""


def test_a_margin_run_keeps_the_scores_and_its_score(tmp_path):
    """The batches keep score_i (the margins' sources); the manifest records the score, so a folder raced by
    points is never resumed or replaced by a margin run without --force, nor the other way; a margin run resumes
    from its own batches."""
    path = tmp_path / "t.toml"
    path.write_text(TUNE)
    by_points, by_margin = tune.load(path), tune.load(path, score="margin")
    assert by_margin.score == "margin" and by_margin.objective.margin_unit == "rounds"
    assert math.isnan(by_margin.margin) and by_points.margin == 0.02
    tune.run(by_points, tmp_path / "p")
    assert "score" not in json.loads((tmp_path / "p" / "_manifest.json").read_text())    # points: as before
    with pytest.raises(OSError) as refused:
        tune.check_replacing(by_margin, tmp_path / "p", force=False)
    assert "holds the finished batches of --score points" in str(refused.value) and "--force" in str(refused.value)
    played = []
    result = tune.run(by_margin, tmp_path / "p", on_batch=lambda step, alive, state: played.append(step))
    assert played[0] == 0                                 # forced: a fresh race, no batch of points kept
    assert pq.read_table(tmp_path / "p" / "batch-0000.parquet").column_names[3:] == ["score_0", "score_1"]
    assert json.loads((tmp_path / "p" / "_manifest.json").read_text())["score"] == "margin"
    with pytest.raises(OSError, match="--score margin"):
        tune.check_replacing(by_points, tmp_path / "p", force=False)
    tune.check_replacing(by_margin, tmp_path / "p", force=False)        # its own score: goes on
    again = []
    resumed = tune.run(by_margin, tmp_path / "p", on_batch=lambda step, alive, state: again.append(step))
    assert again == [] and [r.value for r in resumed.confirmed] == [r.value for r in result.confirmed]


def test_the_cli_tunes_by_the_margin(cli, tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(TUNE)
    done = cli("tune", path, "--out", tmp_path / "out", "--quiet", "--score", "margin", "--margin", "0.5")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == ("scored by the margin: a seat's score less the table's mean score, in rounds, so a fair "
                        "game gives every seat 0")
    fairness = next(line for line in lines if line.startswith("fairness on the same games"))
    assert "Σ margin², in rounds squared" in fairness and "Hotelling's T² of the margins against 0" in fairness
    assert "fair within 0.5 rounds: two one-sided tests per seat" in fairness
    report = (tmp_path / "out" / "report.md").read_text()
    assert "Scored by the margin" in report and "highest seat's mean margin - lowest's, in rounds" in report
    assert "| candidate | seat 0 | seat 1 |\n" in report and "chi-square p" not in report
    assert "Student t for the margins and other columns" in report
    again = cli("tune", path, "--out", tmp_path / "out", "--quiet")
    assert again.returncode != 0 and "--score margin" in again.stderr and "--force" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("options, says", [
    (("--score", "margin", "--margin", "-1"), "--margin -1 is not a margin; allowed: E > 0 in the game's unit"),
    (("--margin", "2"), "--margin 2 is not a share; allowed: 0 < E < 1"),
])
def test_a_bad_margin_is_a_one_line_error(cli, tmp_path, options, says):
    path = tmp_path / "t.toml"
    path.write_text(TUNE)
    failed = cli("tune", path, "--out", tmp_path / "out", *options)
    assert failed.returncode != 0 and says in failed.stderr
    assert len(failed.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_a_game_without_a_margin_is_a_one_line_error(cli, tmp_path, monkeypatch):
    """--score margin of a game that declares no margin: one line naming what is allowed, nothing written."""
    from simcore import games

    module = games.load("zwergen")
    monkeypatch.setattr(module, "GAME", dataclasses.replace(module.GAME, margin=""))
    path = tmp_path / "t.toml"
    path.write_text(TUNE)
    failed = cli("tune", path, "--out", tmp_path / "out", "--score", "margin")
    assert failed.returncode != 0 and "zwergen declares no margin" in failed.stderr
    assert "allowed: --score points" in failed.stderr
    assert len(failed.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_no_candidate_is_fair_by_the_margin():
    """Every finalist unbalanced by its margins: said first, by the margins' test, the fairest's seat gap in the
    game's unit."""
    matrices = synthetic_scores([0.6, 0.4], seed=6)([0, 1], 0, 10_000)
    confirmed = tune.confirm([0, 1], matrices, GAP2, 200, seed=1, margin=math.nan)
    assert tune.no_fair_finalist(confirmed)
    result = dataclasses.make_dataclass("R", ["plan", "confirmed"])(
        dataclasses.make_dataclass("P", ["objective"])(GAP2), confirmed)
    text = tune_report.no_fair_sentence(result, {0: "a", 1: "b"}, markdown=False)
    gap, low, high = tune.seat_gap(confirmed[0])
    assert text.startswith("No candidate is fair: every finalist is unbalanced (Hotelling's T² of the margins "
                           "against 0 on the 10,000 confirmation games")
    assert f"the fairest is b (seat gap {gap:.2f} [{low:.2f}, {high:.2f}] prize points" in text


# --- calibration ---------------------------------------------------------------------------------------------

FAIR = {   # name: the outcomes of a fair game (joint scores, probabilities), teams, finalists, games
    "2 seats": (*outcomes([law(0.7)] * 2), None, 5, 2000),
    "2 seats, 200 games, long tail": (*outcomes([law(0.85, 20)] * 2), None, 5, 200),
    "3 seats": (*outcomes([law(0.6, 8)] * 3), None, 3, 1000),
    "4 seats as 2 teams": (*outcomes([law(0.7)] * 2, TEAMS), TEAMS, 5, 2000),
}


def called_unbalanced(scores, probs, teams, finalists, games, rng, replicates=R):
    """``replicates`` confirmations of ``finalists`` whose games are drawn from the outcomes ``scores`` (each a
    row of ``probs``, (finalists, outcomes), or one row for all): (replicates, finalists) of "called unbalanced"
    by tune.unbalanced_pvalues on the units' margins against a fair 0."""
    probs = np.broadcast_to(probs, (finalists, len(scores)))
    counts = rng.multinomial(games, probs, size=(replicates, finalists))
    z = unit_margins(scores, teams)
    d = counts @ z / games
    m = np.einsum("rfo,ok,ol->rfkl", counts, z, z) / games
    return tune.unbalanced_pvalues(games, d, m, math.nan) < ALPHA


def test_the_vectorised_confirmation_is_tunes():
    """The counts' shortcut gives the p-values tune.confirm gives on the games the counts stand for (teams found
    from the shared scores)."""
    scores, probs, teams, _, _ = FAIR["4 seats as 2 teams"]
    counts = np.random.default_rng(1).multinomial(300, probs, size=3)
    games = [np.repeat(scores, c, axis=0) for c in counts]
    objective = tune.Objective((tune.Term("gap", 1.0, margin_unit="rounds"),), players=4)
    confirmed = tune.confirm([0, 1, 2], games, objective, 100, seed=1, margin=0.5)
    z = unit_margins(scores, teams)
    d, m = counts @ z / 300, np.einsum("fo,ok,ol->fkl", counts, z, z) / 300
    assert [r.fairness.unbalanced_p for r in confirmed] == pytest.approx(tune.unbalanced_pvalues(300, d, m, 0.5))


@pytest.mark.parametrize("name", FAIR)
def test_no_fair_finalist_is_called_unbalanced_by_its_margins_but_at_alpha(name):
    """Every finalist fair (skewed scores; a long tail at 200 games; 3 seats; two teams): the chance that any is
    called unbalanced by its margins, Holm across the finalists, is at most 5%."""
    scores, probs, teams, finalists, games = FAIR[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    rate = called_unbalanced(scores, probs, teams, finalists, games, rng).any(axis=1).mean()
    assert rate <= ALPHA + slack(ALPHA, R), rate


def unfair(decay, k=12):
    """Two seats, seat 0's scores from a law of decay ``decay``, seat 1's from 0.7's: seat 0's mean margin."""
    scores, probs = outcomes([law(decay, k), law(0.7, k)])
    return scores, probs, float(probs @ margins(scores)[:, 0])


def test_no_candidate_is_fair_is_said_by_margins_of_finalists_one_of_which_is_fair_at_most_alpha():
    """One finalist fair, four far from it: "every finalist is unbalanced" is wrong exactly when the fair one is
    called unbalanced, at most 5% of the time."""
    scores, far, _ = unfair(0.8)
    fair = outcomes([law(0.7)] * 2)[1]
    every = called_unbalanced(scores, np.stack([fair] + [far] * 4), None, 5, 2000, np.random.default_rng(3))
    assert every.all(axis=1).mean() <= ALPHA + slack(ALPHA, R)


@pytest.mark.parametrize("decay, games, power", [(0.72, 10_000, 0.95), (0.73, 2000, 0.5), (0.71, 40_000, 0.95)])
def test_every_finalist_with_a_margin_edge_is_called_unbalanced(decay, games, power):
    """Power: five finalists whose seat 0 scores more (a mean margin of +0.091, +0.138 and +0.044 prize points,
    against a margin's spread of about 1.8 a game) are all called unbalanced, so "No candidate is fair" is
    said."""
    scores, probs, _ = unfair(decay)
    every = called_unbalanced(scores, probs, None, 5, games, np.random.default_rng(7), replicates=500)
    assert every.all(axis=1).mean() >= power


def test_the_confirmations_margin_edges_cover_zero_in_a_fair_game():
    """Five fair finalists (skewed scores), 2,000 games each: the seat edges' Student t intervals, simultaneous
    over seats and finalists, all cover 0 in at least 95% of the confirmations."""
    scores, probs = outcomes([law(0.7)] * 2)
    counts = np.random.default_rng(9).multinomial(2000, probs, size=(R, 5))
    z = margins(scores)
    low, high = tune.simultaneous_bounds(GAP2, counts @ z, counts @ z ** 2, 2000)
    covered = ((low <= 0) & (high >= 0)).all(axis=(1, 2)).mean()
    assert covered >= 1 - ALPHA - slack(ALPHA, R), covered


def vectorised_race(objective, values, probs, batch, games_max, rng, replicates):
    """``replicates`` races at once of the candidates whose outcome probabilities are the rows of ``probs``,
    ``values`` each outcome's per-game values: tune.look at every look, as tune.race does (as in
    tests/test_calibration_tune.py). Returns alive (replicates, candidates) at the end."""
    candidates = len(probs)
    delta = tune.race_delta(ALPHA, candidates, math.ceil(games_max / batch), values.shape[1])
    counts = np.zeros((replicates, candidates, len(values)))
    alive = np.ones((replicates, candidates), bool)
    for games in range(batch, games_max + 1, batch):
        counts += rng.multinomial(batch, probs, size=(replicates, candidates))
        seen = tune.look(objective, counts @ values, counts @ values ** 2, np.full(alive.shape, games), alive, delta)
        alive &= ~seen.dropped
    return alive


def test_racing_equal_candidates_by_their_margins_drops_none_but_at_alpha():
    """Six equally fair candidates, skewed margins with a long tail: the race (Student t bounds on the margins)
    drops any of them in at most alpha of the races, over all its 10 looks."""
    scores, probs = outcomes([law(0.85, 20)] * 2)
    alive = vectorised_race(GAP2, margins(scores), np.tile(probs, (6, 1)), 300, 3000, np.random.default_rng(11),
                            1000)
    assert (~alive).any(axis=1).mean() <= ALPHA + slack(ALPHA, 1000)


def test_racing_drops_a_candidate_with_a_margin_edge():
    """Power: among five fair candidates one whose seat 0's mean margin is about +0.4 prize points is dropped in
    at least 90% of the races."""
    scores, far, edge = unfair(0.8)
    fair = outcomes([law(0.7)] * 2)[1]
    alive = vectorised_race(GAP2, margins(scores), np.stack([far] + [fair] * 5), 500, 5000,
                            np.random.default_rng(12), 500)
    assert edge > 0.3 and (~alive[:, 0]).mean() >= 0.9


# the figures of docs/explanation/statistics.md: python -m tests.test_tune_margin
if __name__ == "__main__":
    for name, (scores, probs, teams, finalists, games) in FAIR.items():
        rate = called_unbalanced(scores, probs, teams, finalists, games, np.random.default_rng(sum(map(ord, name))))
        print(f"fair, {name}, {finalists} finalists, {games:,} games: any called unbalanced "
              f"{rate.any(axis=1).mean():.4f}")
    for decay, games in ((0.71, 10_000), (0.71, 40_000), (0.72, 2000), (0.72, 10_000), (0.73, 2000), (0.75, 2000)):
        scores, probs, edge = unfair(decay)
        called = called_unbalanced(scores, probs, None, 5, games, np.random.default_rng(7), 500)
        print(f"edge {edge:.3f} (sd {math.sqrt(probs @ margins(scores)[:, 0] ** 2 - edge ** 2):.2f}), {games:,} "
              f"games: said {called.all(axis=1).mean():.3f}, each {called.mean():.3f}")
    scores, far, _ = unfair(0.8)
    fair = outcomes([law(0.7)] * 2)[1]
    every = called_unbalanced(scores, np.stack([fair] + [far] * 4), None, 5, 2000, np.random.default_rng(3))
    print(f"one fair of five: 'No candidate is fair' said {every.all(axis=1).mean():.4f}")
    scores, probs = outcomes([law(0.7)] * 2)
    counts = np.random.default_rng(9).multinomial(2000, probs, size=(R, 5))
    low, high = tune.simultaneous_bounds(GAP2, counts @ margins(scores), counts @ margins(scores) ** 2, 2000)
    print(f"seat edges cover 0: {((low <= 0) & (high >= 0)).all(axis=(1, 2)).mean():.4f}")
    scores, probs = outcomes([law(0.85, 20)] * 2)
    alive = vectorised_race(GAP2, margins(scores), np.tile(probs, (6, 1)), 300, 3000, np.random.default_rng(11),
                            1000)
    print(f"race of 6 equal candidates, any dropped: {(~alive).any(axis=1).mean():.4f}")
    scores, far, _ = unfair(0.8)
    alive = vectorised_race(GAP2, margins(scores), np.stack([far] + [fair] * 5), 500, 5000,
                            np.random.default_rng(12), 500)
    print(f"race: the candidate at +0.52 dropped {(~alive[:, 0]).mean():.3f}, any fair one "
          f"{(~alive[:, 1:]).any(axis=1).mean():.3f}")
