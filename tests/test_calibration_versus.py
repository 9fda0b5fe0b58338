"""Calibration of ``versus`` (issue 37, item 6): its verdict "stronger" / "weaker" between equals, 2 to 5 players,
20 to 200 deals, held to 5% within 3 binomial standard errors over 2,000 contests per case, and its power against
the t test over deals it replaced (which called equals stronger or weaker 8% to 11% of the time with 4 or 5
players at 20 deals when deals suit one policy at every seat).

Each synthetic contest goes through ``versus.deal_test``, the test ``versus.score`` makes of a played contest's
deal means (checked below to be score's verdict); only the games are replaced by A's points per seating. (score
also runs the seat split's permutation test, calibrated on its own below: through score, the level cases took
11 minutes of the suite.)

    python tests/test_calibration_versus.py      # prints the level and power rows of docs/explanation/statistics.md
"""

import math

import numpy as np
import pytest

from analyses.paired import t_test
from simcore.studies import versus
from tests.test_calibration import _contest, _runs

R = 2000
ALPHA = 0.05
PLAYERS = (2, 3, 4, 5)


def max_rate(replicates=R):
    return ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / replicates)


def seatings(rng, replicates, deals, players, coupled, edge=0.0, others=0.1):
    """A's points (replicates, players, deals): each seating's game ``others`` won by nobody (1/players each),
    ``others`` a shared win of two seats (A among them 2/players of the time: 1/2), else won by A with 1/players +
    ``edge``.
    A ``coupled`` share of the deals suit one policy at every seat: one draw decides A's points in all of the
    deal's seatings, so the deal's mean is as skewed as one game's (mostly 0 with 4 or 5 players, rarely 1)."""
    shape = (replicates, players, deals)
    u, share = rng.random(shape), rng.random(shape)
    joint = rng.random((replicates, 1, deals)) < coupled
    u, share = (np.where(joint, x[:, :1], x) for x in (u, share))
    points = np.where(u < others, 1 / players, np.where(u < 2 * others, np.where(share < 2 / players, 0.5, 0.0),
                                                           (share < 1 / players + edge).astype(float)))
    return points


def seat_coupled(rng, replicates, deals, players, edge=0.0):
    """The contests of tests/test_calibration.py: deals favour seats, half the deals alike in every seating."""
    return np.array([_contest(deals, players, rng, edge) for _ in range(replicates)])


CASES = {   # name: A's points (replicates, players, deals) of equals
    "seat-coupled deals": seat_coupled,
    "independent seatings": lambda rng, r, n, k: seatings(rng, r, n, k, 0.0),
    "30% of deals suit one policy": lambda rng, r, n, k: seatings(rng, r, n, k, 0.3),
    "every deal suits one policy": lambda rng, r, n, k: seatings(rng, r, n, k, 1.0),
}


def verdicts(points, old=True):
    """Per contest: (versus found a difference, the t test over deals found one (False without ``old``)), at 5%."""
    players, deals = points.shape[1:]
    fair = 1 / players
    found = []
    for contest in points:
        _, low, high, pvalue = versus.deal_test(contest.mean(axis=0), fair)
        assert (pvalue < ALPHA) == (not low <= fair <= high)     # one test: they agree
        if not old:
            found.append((pvalue < ALPHA, False))
            continue
        means = contest.mean(axis=0)
        spread = means.std(ddof=1)
        t = t_test(means.mean(), spread / math.sqrt(deals), deals - 1, null=fair)[0] if spread > 1e-9 else 1.0
        found.append((pvalue < ALPHA, t < ALPHA))
    return np.array(found)


def test_a_contests_verdict_is_the_deal_test_of_its_deal_means():
    """What the calibration below plays: versus.score's p-value and interval are versus.deal_test's of the deal
    means, for every way of drawing contests and 2 to 5 players."""
    rng = np.random.default_rng(3)
    for draw in CASES.values():
        for players in PLAYERS:
            for contest in draw(rng, 5, 20, players):
                result = versus.score(_runs(players), list(contest))
                _, low, high, pvalue = versus.deal_test(contest.mean(axis=0), 1 / players)
                assert (result.pvalue, result.low, result.high) == (pvalue, low, high)


@pytest.mark.parametrize("deals", [20, 50, 200])
def test_versus_holds_its_level_between_equals(deals):
    """A as strong as B: versus calls it stronger or weaker at most 5% (+ 3 SE over 2,000 contests) of the time,
    for 2 to 5 players and every way the seatings of a deal may hang together."""
    rng = np.random.default_rng(deals)
    rates = {(name, k): verdicts(draw(rng, R, deals, k), old=False)[:, 0].mean() for name, draw in CASES.items()
             for k in PLAYERS}
    assert max(rates.values()) <= max_rate(), rates


def test_defect_the_t_test_called_equals_stronger_or_weaker_with_four_players():
    """The audit's 8.3% with 4 players at 20 deals: the t test over deals is liberal when deals suit one policy at
    every seat (its sample variance is too small when the rare all-won deals are missing): every game won
    outright, 30% of the deals so: 0.065 to 0.073 over three seeds; every deal so: 0.10, held here. Versus: 0.015."""
    found = verdicts(seatings(np.random.default_rng(7), R, 20, 4, 1.0, others=0.0)).mean(axis=0)
    assert found[1] > max_rate() and found[0] <= max_rate(), found


def test_versus_finds_a_stronger_player_about_as_often_as_the_t_test():
    """A wins 10 points more of its decided games (4 players, 50 deals, independent seatings: its score 0.33
    against a fair 0.25): found as often as by the t test (0.71 both), whose level was not held."""
    rng = np.random.default_rng(11)
    found = verdicts(seatings(rng, 1000, 50, 4, 0.0, edge=0.1)).mean(axis=0)
    assert found[0] > 0.6 and found[0] >= found[1] - 0.03, found


SPLIT_R = 600         # contests per case of the seat split's level (its bound: 5% + 3 SE, 0.077)


def test_the_seat_split_holds_its_level_between_equal_seats(deals=20):
    """Issue 56, item 3: "a split beyond chance between seats is said": never said of seats that are alike, at
    most 5% (+ 3 SE over 600 contests) of the time, for 2 to 5 seats and every way a deal's seatings hang
    together (deals that favour seats, deals that suit one policy everywhere). Hotelling's F distribution said it
    15% of the time at 20 deals with 5 seats; the permutation test holds (versus.seat_split; more deals in the
    statistics page's table, ``python tests/test_calibration_versus.py``)."""
    rng = np.random.default_rng(56 + deals)
    rates = {(name, k): np.mean([versus.seat_split(list(c)).pvalue < ALPHA for c in draw(rng, SPLIT_R, deals, k)])
             for name, draw in CASES.items() for k in PLAYERS}
    assert max(rates.values()) <= max_rate(SPLIT_R), rates


def split_seatings(rng, replicates, deals, players, split):
    """A's points where it scores ``split`` more of its decided games from seat 0 and as much less from seat 1
    (the others fair, 30% of the deals alike in every seating): its seats' mean scores are apart, their mean is
    fair."""
    edge = np.zeros((1, players, 1))
    edge[0, 0], edge[0, 1] = split, -split
    return seatings(rng, replicates, deals, players, 0.3, edge)


def bonferroni_split(contest):
    """The valid alternative: each seat's score against the mean of the others' on the same deals, Student's t,
    Bonferroni across the seats (a paired t test with two)."""
    from scipy import stats

    x = np.asarray(contest, dtype=float).T
    k = x.shape[1]
    pvalues = [stats.ttest_1samp(x[:, i] - np.delete(x, i, axis=1).mean(axis=1), 0.0).pvalue for i in range(k)]
    return min(1.0, min(np.nan_to_num(pvalues, nan=1.0)) * (k if k > 2 else 1))


def test_the_seat_split_finds_a_split_about_as_often_as_a_t_test_per_seat():
    """Power: A 0.15 better from seat 0 and 0.15 worse from seat 1 (its score fair overall), 100 deals: the split
    is said in at least 80% of contests with 2 seats and 4, and as often as Bonferroni's t tests per seat."""
    rng = np.random.default_rng(5)
    for players in (2, 4):
        contests = split_seatings(rng, 200, 100, players, 0.15)
        ours = np.mean([versus.seat_split(list(c)).pvalue < ALPHA for c in contests])
        theirs = np.mean([bonferroni_split(c) < ALPHA for c in contests])
        assert ours >= 0.8 and ours >= theirs - 0.05, (players, ours, theirs)


def _split_table():
    """The statistics page's rows of the seat split: its level between alike seats and its power against a
    split, beside Bonferroni's t tests per seat."""
    rng = np.random.default_rng(2)
    for deals in (20, 60, 200):
        for name, draw in CASES.items():
            rates = [np.mean([(versus.seat_split(list(c)).pvalue < ALPHA, bonferroni_split(c) < ALPHA)
                              for c in draw(rng, 1000, deals, k)], axis=0) for k in PLAYERS]
            print(f"| {name} | {deals} | " + " / ".join(f"{r[0]:.3f}" for r in rates) + " | "
                  + " / ".join(f"{r[1]:.3f}" for r in rates) + " |")
    for deals, split in ((20, 0.3), (100, 0.15), (400, 0.075)):
        rates = [np.mean([(versus.seat_split(list(c)).pvalue < ALPHA, bonferroni_split(c) < ALPHA)
                          for c in split_seatings(rng, 500, deals, k, split)], axis=0) for k in PLAYERS]
        print(f"| split by {split:g} | {deals} | " + " / ".join(f"{r[0]:.3f}" for r in rates) + " | "
              + " / ".join(f"{r[1]:.3f}" for r in rates) + " |")


def _table():
    """The rows of the statistics page: the level of versus and of the t test per case, and their power."""
    rng = np.random.default_rng(1)
    for deals in (20, 50, 200):
        for name, draw in CASES.items():
            rates = [verdicts(draw(rng, R, deals, k)).mean(axis=0) for k in PLAYERS]
            print(f"| {name} | {deals} | " + " / ".join(f"{r[0]:.3f}" for r in rates) + " | "
                  + " / ".join(f"{r[1]:.3f}" for r in rates) + " |")
    for deals, edge in ((20, 0.2), (50, 0.1), (200, 0.05)):
        for name, coupled, sign in (("independent seatings, A stronger", 0.0, 1), ("independent seatings, A weaker",
                                                                                  0.0, -0.5),
                                    ("30% suit one policy, A stronger", 0.3, 1), ("30% suit one policy, A weaker",
                                                                                  0.3, -0.5)):
            rates = [verdicts(seatings(rng, 1000, deals, k, coupled, sign * edge)).mean(axis=0) for k in PLAYERS]
            print(f"| {name} by {abs(sign * edge):g} | {deals} | " + " / ".join(f"{r[0]:.3f}" for r in rates)
                  + " | " + " / ".join(f"{r[1]:.3f}" for r in rates) + " |")


if __name__ == "__main__":
    _table()
    _split_table()
