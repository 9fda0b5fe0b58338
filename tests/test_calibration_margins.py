"""Calibration of the tests that read margins (``--score margin``): levels over 2,000 simulated replicates, and
powers against the best valid alternative.

A seat's score in a game is drawn from a skewed integer law (a Poisson count, or a geometric one: a few games
scored far above the rest, as prize points and fish are), its margin is its score less the table's mean score
(``analyses.scoring.margins``). A fair game draws every seat's score alike; an unfair one moves one seat's mean.
In a team game the team-mates share one score, as Zwergen Ziehen's rounds are the team's. Paired variants reuse
a's scores in a share rho of the games (common deals: a rule change alters only some games). A level r passes
when r <= alpha + 3 sqrt(alpha (1 - alpha) / R), as in tests/test_calibration.py. The replicates run as arrays
(replicates, games, seats) through analyses.fairer's vectorised cores; the first test ties them to the public
functions.
"""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import special

from analyses.fairer import _imbalance_core, _shift_core, _within_core, fair_within, margin_balance
from analyses.scoring import margins
from simcore.studies import versus

ALPHA = 0.05
R = 2000
GAMES = 200
TEAMS = ((0, 2), (1, 3))


def max_rate(reps=R, alpha=ALPHA):
    return alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)


def scores(means, games, reps, rng, law="poisson", teams=None):
    """Scores (reps, games, seats) with the seats' ``means``; team-mates share their team's first seat's score."""
    means = np.asarray(means, float)
    if law == "poisson":
        x = rng.poisson(means, size=(reps, games, len(means)))
    else:    # geometric on 0, 1, 2, ...: mean m, a long right tail
        x = rng.geometric(1 / (1 + means), size=(reps, games, len(means))) - 1
    if teams is not None:
        for team in teams:
            x[..., list(team)] = x[..., [team[0]]]
    return x.astype(float)


def units(m, teams):
    return m if teams is None else np.stack([m[..., list(t)].sum(axis=-1) for t in teams], axis=-1)


def balance_core(m, teams):
    """``margin_balance`` vectorised: the one-sample T² of the units' margins against 0, simultaneous intervals."""
    u = units(m, teams)
    return _shift_core(np.zeros_like(u), u, True, 1 - ALPHA / u.shape[-1])


def test_the_cores_are_the_public_functions():
    rng = np.random.default_rng(1)
    m = margins(scores((3, 3, 4, 3), GAMES, 1, rng)[0])
    core = balance_core(m[None], None)
    public = margin_balance(m)
    assert public.pvalue == pytest.approx(float(core["pvalue"][0]))
    assert np.allclose(public.low, core["low"][0]) and np.allclose(public.high, core["high"][0])
    within = fair_within(m, 0.5, alpha=ALPHA, total=0.0)
    assert within.pvalue == pytest.approx(float(_within_core(m[None], np.zeros(4), 0.5, ALPHA)["pvalue"][0]))
    assert np.allclose(within.fair, 0.0)


def test_margins_add_up_to_zero_and_a_team_adds_its_seats():
    """A game's margins add up to 0; at 2 seats a margin is half the point difference; a team's margin, its seats'
    summed, is its score less the other team's when team-mates share a score (Zwergen Ziehen's rounds)."""
    m = margins(np.array([[10.0, 4.0], [3.0, 3.0]]))
    assert m.tolist() == [[3.0, -3.0], [0.0, 0.0]]
    team = units(margins(np.array([[5.0, 2.0, 5.0, 2.0]])), TEAMS)
    assert team.tolist() == [[3.0, -3.0]]
    assert np.allclose(margins(np.random.default_rng(2).poisson(4, (50, 5))).sum(axis=1), 0)


LEVEL = {   # name: the seats' mean scores, the law, teams
    "2 seats poisson": ((6, 6), "poisson", None),
    "4 seats poisson": ((3, 3, 3, 3), "poisson", None),
    "4 seats geometric": ((2, 2, 2, 2), "geometric", None),
    "5 seats geometric": ((1, 1, 1, 1, 1), "geometric", None),
    "teams geometric": ((2, 2, 2, 2), "geometric", TEAMS),
}


@pytest.mark.parametrize("name", LEVEL)
def test_the_margin_balance_holds_its_level_and_its_intervals_cover(name):
    """A fair game (every seat's margin 0): "unbalanced by the margin" at most 5% of the time, and the worst
    unit's simultaneous interval (the one a verdict names) covers 0 at least 95% of the time."""
    means, law, teams = LEVEL[name]
    m = margins(scores(means, GAMES, R, np.random.default_rng(sum(map(ord, name))), law, teams))
    core = balance_core(m, teams)
    worst = np.abs(core["shift"]).argmax(axis=-1)[:, None]
    missed = (np.take_along_axis(core["low"], worst, -1) > 0) | (np.take_along_axis(core["high"], worst, -1) < 0)
    assert (core["pvalue"] < ALPHA).mean() <= max_rate(), (core["pvalue"] < ALPHA).mean()
    assert missed.mean() <= max_rate(), missed.mean()


def _power(means, law, games, reps, seed):
    """Powers of the T² and of its best valid alternative, the per-seat t tests at alpha / seats (Bonferroni)."""
    m = margins(scores(means, games, reps, np.random.default_rng(seed), law))
    core = _shift_core(np.zeros_like(m), m, True, 1 - ALPHA)
    se = m.std(axis=-2, ddof=1) / math.sqrt(games)
    bonferroni = 2 * special.stdtr(games - 1, -np.abs(m.mean(axis=-2)) / se) < ALPHA / m.shape[-1]
    return (core["pvalue"] < ALPHA).mean(), bonferroni.any(axis=-1).mean()


POWER = [((6.35, 6, 6, 6), "poisson"), ((2.4, 2, 2, 2), "geometric"), ((6.35, 6), "poisson")]


@pytest.mark.parametrize("means, law", POWER)
def test_the_margin_balance_finds_one_seat_ahead(means, law):
    """One seat scores 6% (20%) more: at 1,000 games the T² finds it at least 85% of the time (measured 89% to
    95%), no worse than Bonferroni's per-seat t tests less 0.03 (docs/explanation/statistics.md, "Margins")."""
    t2, bonferroni = _power(means, law, 1000, 500, 7)
    assert t2 >= 0.85 and t2 >= bonferroni - 0.03, (t2, bonferroni)


@pytest.mark.parametrize("means, law, margin", [
    ((6.5, 6, 6, 6), "poisson", 0.375),      # seat 0's margin 0.5 - 0.125 = 0.375: on the boundary
    ((2.5, 2, 2, 2), "geometric", 0.375),
    ((6.75, 6), "poisson", 0.375),           # both seats on the boundary
])
def test_fair_within_a_margin_holds_its_level_on_the_boundary(means, law, margin):
    """A game whose worst seat's margin is exactly E is shown fair within E at most 5% of the time."""
    m = margins(scores(means, 500, R, np.random.default_rng(int(10 * sum(means))), law))
    true = np.asarray(means) - np.mean(means)
    assert np.isclose(np.abs(true).max(), margin)
    shown = _within_core(m, np.zeros(len(means)), margin, ALPHA)["pvalue"] < ALPHA
    assert shown.mean() <= max_rate(), shown.mean()


def paired(means_a, means_b, games, reps, rng, rho, law):
    """Margins of variants a and b on common deals: b's game is a's in a share ``rho`` of the games."""
    a = scores(means_a, games, reps, rng, law)
    b = np.where(rng.random((reps, games, 1)) < rho, a, scores(means_b, games, reps, rng, law))
    return margins(a), margins(b)


@pytest.mark.parametrize("means_a, means_b", [
    ((3, 3, 3, 3), (3, 3, 3, 3)),                  # both fair
    ((3.6, 3, 3, 3), (3.6, 3, 3, 3)),              # equally unfair
    ((3.6, 3, 3, 3), (3, 3, 3, 3.6)),              # equally unfair, another seat
])
def test_fairer_by_the_margin_holds_its_level(means_a, means_b):
    """"Fairer" or "less fair" of two equally fair variants, and "the seats moved" of two alike: at most 5%."""
    a, b = paired(means_a, means_b, 300, R, np.random.default_rng(5), 0.5, "geometric")
    change = _imbalance_core(a, b, True, 1 - ALPHA)
    assert (change["pvalue"] < ALPHA).mean() <= max_rate(), (change["pvalue"] < ALPHA).mean()
    if means_a == means_b:
        shift = _shift_core(a, b, True, 1 - ALPHA)
        assert (shift["pvalue"] < ALPHA).mean() <= max_rate()


def test_fairer_by_the_margin_finds_a_seat_brought_back():
    """Seat 0 scores 30% more in a, as much as the others in b (common deals, rho 0.5): found fairer at 1,000
    games at least 75% of the time (measured 82%)."""
    a, b = paired((3.9, 3, 3, 3), (3, 3, 3, 3), 1000, 400, np.random.default_rng(6), 0.5, "geometric")
    change = _imbalance_core(a, b, True, 1 - ALPHA)
    assert ((change["pvalue"] < ALPHA) & (change["estimate"] < 0)).mean() >= 0.75


def versus_level(players, deals, law, reps=R, boost=0.0, seed=None, flips=0):
    """How often ``versus.score`` calls A stronger or weaker when A's score in its own seat gains a Poisson
    ``boost`` a game (0: equals); with ``flips`` > 0, also how often the alternative, a sign-flip permutation
    test of the deal means with that many flips, does. Each contest's verdict is ``versus.margin_test`` of its
    deal means, score's test (checked against score on the first contest; score's seat split, a permutation test
    calibrated on its own, would make this one of the suite's longest waits)."""
    rng = np.random.default_rng(players * deals if seed is None else seed)
    runs = [SimpleNamespace(policies=("a", "b"))] * players
    called, alternative = 0, 0
    for rep in range(reps):
        raw = scores((2,) * players, deals * players, 1, rng, law)[0].reshape(players, deals, players)
        for seat in range(players):
            raw[seat, :, seat] += rng.poisson(boost, deals)
        table = margins(raw)
        per_seat = [table[seat, :, seat] for seat in range(players)]
        pvalue = versus.margin_test(np.mean(per_seat, axis=0))[3]
        if rep == 0:
            assert versus.score(runs, per_seat, "prize points").pvalue == pvalue
        called += pvalue < ALPHA
        if flips:
            deal = np.mean(per_seat, axis=0)
            null = np.abs((rng.choice((-1, 1), size=(flips, deals)) * deal).mean(axis=1))
            alternative += (1 + (null >= abs(deal.mean())).sum()) / (1 + flips) < ALPHA
    return (called / reps, alternative / reps) if flips else called / reps


@pytest.mark.parametrize("players, deals, law", [(2, 20, "geometric"), (4, 20, "geometric"), (4, 200, "poisson")])
def test_versus_by_the_margin_holds_its_level(players, deals, law):
    """Equals (A's score drawn as B's in every seat): A called stronger or weaker by its margins at most 5% of the
    time, from 20 deals on, skewed margins included (versus.margin_score, Student's t over the deal means)."""
    rate = versus_level(players, deals, law)
    assert rate <= max_rate(), rate


def test_versus_by_the_margin_finds_a_better_player():
    """A gains 0.3 a game (geometric scores of mean 2, 4 seats): found at 200 deals at least 80% of the time
    (measured 86%; a sign-flip permutation test of the deal means, 84%)."""
    assert versus_level(4, 200, "geometric", reps=300, boost=0.3, seed=9) >= 0.8


def figures():
    """The figures of docs/explanation/statistics.md, "Margins" (``python -m tests.test_calibration_margins``)."""
    for games in (GAMES, 1000):
        for name, (means, law, teams) in LEVEL.items():
            core = balance_core(margins(scores(means, games, R, np.random.default_rng(sum(map(ord, name))), law,
                                               teams)), teams)
            print(f"unbalanced, {name}, {games} games: {(core['pvalue'] < ALPHA).mean():.4f}")
    for means, law in POWER:
        print(f"power {means} {law}: T² and Bonferroni t {_power(means, law, 1000, 1000, 7)}")
    for players, deals, law in ((2, 20, "geometric"), (4, 20, "geometric"), (4, 200, "poisson")):
        print(f"versus level, {players} seats, {deals} deals, {law}: {versus_level(players, deals, law):.4f}")
    for players in (2, 4):
        rates = versus_level(players, 200, "geometric", 500, 0.3, 9, 999)
        print(f"versus power, {players} seats, t and sign-flip: {rates}")


if __name__ == "__main__":
    figures()
