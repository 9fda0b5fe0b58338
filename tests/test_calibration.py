"""Calibration: every statistical procedure checked by simulation against a known truth.

Each test simulates data whose truth is known (a fair game, two equal players, a zero mean difference), runs the
procedure on R replicates and compares the measured error rate or coverage with its nominal value, within three
binomial standard errors: a false-positive rate r is accepted when r <= alpha + 3 sqrt(alpha (1 - alpha) / R),
a coverage c when c >= 0.95 - 3 sqrt(0.95 * 0.05 / R). A correct procedure fails one such check about once in
700; the seeds are fixed, so every run measures the same numbers. Where a procedure is known to miss its
nominal rate (the t test on 20 strongly skewed values, Wilson's interval at some p) the test says so and
asserts what it measures. The tests named after a defect reproduce what the audit measured on the code before
the fix (each fails there).
"""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from analyses import (
    holm,
    paired_binary,
    paired_numeric,
    proportion_interval,
    seat_balance,
    unpaired_binary,
    unpaired_numeric,
)
from analyses.intervals import METHODS
from simcore.io import config as cfg
from simcore.studies import versus

ALPHA = 0.05
R = 2000        # replicates per measured rate


def max_rate(reps=R, alpha=ALPHA):
    """The highest false-positive rate a test at ``alpha`` may show over ``reps`` replicates (3 binomial sd)."""
    return alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)


def min_coverage(reps=R, confidence=1 - ALPHA):
    """The lowest coverage an interval at ``confidence`` may show over ``reps`` replicates (3 binomial sd)."""
    return confidence - 3 * math.sqrt(confidence * (1 - confidence) / reps)


# --- intervals for a proportion --------------------------------------------------------------------------------


def _exact_coverage(n, p, method):
    """The coverage of the interval at p, exactly: the binomial probability of the counts whose interval holds p
    (the limit of a simulation with infinitely many replicates, so no tolerance is needed)."""
    k = np.arange(n + 1)
    bounds = np.array([[b.low, b.high] for b in (proportion_interval(int(i), n, method=method) for i in k)])
    holds = (bounds[:, :1] <= p) & (p <= bounds[:, 1:])          # (n + 1, len(p))
    return (stats.binom.pmf(k[:, None], n, p) * holds).sum(axis=0)


@pytest.mark.parametrize("n", [20, 100, 1000])
def test_proportion_intervals_cover_a_proportion(n):
    """Truth: k ~ Binomial(n, p) at p = 0.02, 0.5, 0.98 and on a grid of p in [0.01, 0.99].

    Clopper-Pearson is exact: at least 95% at every p. Wilson aims at 95% on average and oscillates around it,
    dipping below at some p for small n (0.940 at p = 0.02 and n = 20; 0.895 at its worst on the grid at n = 20),
    so it is held to 0.93 at the named points and to 0.945 averaged over the grid. Near 0 it dips further, to
    0.84 at about p = 0.17 / n for every n: the documented figure is checked here."""
    named, grid = np.array([0.02, 0.5, 0.98]), np.linspace(0.01, 0.99, 99)
    assert _exact_coverage(n, named, "clopper-pearson").min() >= 0.95
    assert _exact_coverage(n, grid, "clopper-pearson").min() >= 0.95
    assert _exact_coverage(n, named, "wilson").min() >= 0.93
    assert _exact_coverage(n, grid, "wilson").mean() >= 0.945
    near_zero = _exact_coverage(n, np.geomspace(0.01 / n, 1 / n, 200), "wilson").min()
    assert 0.83 <= near_zero <= 0.85          # docs/explanation/statistics.md says 0.84
    assert set(METHODS) == {"wilson", "clopper-pearson"}


# A seat's points in one game of a 3-player game: 0 (a loss), 1/3 (nobody won), 1/2 (a shared win), 1 (a win).
POINT_VALUES = np.array([0, 1 / 3, 1 / 2, 1])


@pytest.mark.parametrize("n", [20, 100, 1000])
@pytest.mark.parametrize("probs", [(0.3, 0.1, 0.1, 0.5), (0.89, 0.05, 0.03, 0.03), (0.02, 0.03, 0.05, 0.9)],
                         ids=["strong seat", "weak seat", "dominant seat"])
def test_wilson_covers_a_seats_mean_points(n, probs):
    """Truth: a seat's points per game take the values 0, 1/3, 1/2, 1 with ``probs`` (ties and games nobody won
    included); the Wilson interval of the fractional count (the sum of points) covers the mean points at least
    95% of the time (about 97-98%: a value in [0, 1] varies less than a win flag of the same mean)."""
    rng = np.random.default_rng(n)
    mean = POINT_VALUES @ probs
    totals = rng.multinomial(n, probs, size=R) @ POINT_VALUES
    intervals = [proportion_interval(min(k, n), n) for k in totals]
    assert np.mean([i.low <= mean <= i.high for i in intervals]) >= min_coverage()


# --- numeric comparisons: the t tests --------------------------------------------------------------------------


def _skewed_pairs(shape, n, rng):
    """(R, n) paired samples a, b of equal means, their differences skewed to the right.

    ``exponential``: a ~ Exp(1), b = 1 (skewness 2). ``game length``: a shared deal length plus a variant's
    extra turns, geometric (mean 5) under a and Poisson (mean 5) under b: equal means, unequal medians, the case
    where a rank test rejects though the mean difference is 0."""
    if shape == "exponential":
        return rng.exponential(1.0, (R, n)), np.ones((R, n))
    deal = rng.poisson(30, (R, n))
    return deal + rng.geometric(1 / 6, (R, n)) - 1, deal + rng.poisson(5, (R, n))


def _t_test_rates(results, truth):
    """The rejection rate of H0: no difference, and the coverage of ``truth``; first it checks that p-value and
    interval agree in every replicate (p < 0.05 exactly when 0 is outside the interval: one test)."""
    p = np.array([r.pvalue for r in results])
    low, high = np.array([r.low for r in results]), np.array([r.high for r in results])
    np.testing.assert_array_equal(p < ALPHA, (low > 0) | (high < 0))
    return np.mean(p < ALPHA), np.mean((low <= truth) & (truth <= high))


def _check_null(results, n):
    """At a true difference 0: the rejection rate and the coverage of 0 (which is 1 - it, the interval being
    the test's). With 20 strongly skewed values the t test is liberal (exponential differences, skewness 2:
    about 8% at nominal 5%), a known limit of the t test, held to 10%; from 100 values on the central limit
    theorem brings it within the tolerance."""
    rate, coverage = _t_test_rates(results, 0.0)
    assert rate <= (0.10 if n < 100 else max_rate())
    assert coverage >= (0.90 if n < 100 else min_coverage())


@pytest.mark.parametrize("n", [20, 100, 1000])
@pytest.mark.parametrize("shape", ["exponential", "game length"])
def test_paired_numeric_holds_alpha_on_skewed_differences(shape, n):
    """Truth: E[a - b] = 0 with skewed differences; the paired t test rejects at most 5% (+ tolerance) and its
    interval covers 0, and p < 0.05 exactly when 0 is outside the interval."""
    a, b = _skewed_pairs(shape, n, np.random.default_rng(100 + n))
    _check_null([paired_numeric(x, y) for x, y in zip(a, b, strict=True)], n)


@pytest.mark.parametrize("n", [20, 100, 1000])
def test_unpaired_numeric_holds_alpha_on_skewed_samples(n):
    """Truth: equal means, different shapes and spreads: a = 10 + geometric extra turns (mean 5, sd 5.5),
    b = 10 + Poisson extra turns (mean 5, sd 2.2), two runs of n games each; Welch's t test rejects at most 5%
    (+ tolerance) and agrees with its interval."""
    rng = np.random.default_rng(200 + n)
    a, b = 9 + rng.geometric(1 / 6, (R, n)), 10 + rng.poisson(5, (R, n))
    _check_null([unpaired_numeric(x, y) for x, y in zip(a, b, strict=True)], n)


def test_paired_numeric_interval_covers_a_real_shift():
    """Truth: E[a - b] = 0.5 (variant a adds a geometric number of turns of mean 5.5 where b adds a Poisson 5);
    the interval covers 0.5 at least 95% of the time."""
    rng = np.random.default_rng(300)
    deal = rng.poisson(30, (R, 100))
    a, b = deal + rng.geometric(1 / 6.5, (R, 100)) - 1, deal + rng.poisson(5, (R, 100))
    _, coverage = _t_test_rates([paired_numeric(x, y) for x, y in zip(a, b, strict=True)], 0.5)
    assert coverage >= min_coverage()


# --- yes/no comparisons ----------------------------------------------------------------------------------------


def _rates_over_tables(tables, procedure):
    """The rejection rate and the coverage of 0 over ``tables`` (one count tuple per replicate):
    ``procedure(*counts)`` runs once per distinct table, as its result depends on the counts alone."""
    distinct, weight = np.unique(tables, axis=0, return_counts=True)
    results = [procedure(*map(int, counts)) for counts in distinct]
    rejects = np.array([r.pvalue < ALPHA for r in results])
    covers = np.array([r.low <= 0 <= r.high for r in results])
    return weight @ rejects / len(tables), weight @ covers / len(tables)


def _paired_table(n11, n10, n01, n00):
    return paired_binary(np.repeat([True, True, False, False], [n11, n10, n01, n00]),
                         np.repeat([True, False, True, False], [n11, n10, n01, n00]))


@pytest.mark.parametrize("n", [20, 100, 1000])
def test_paired_binary_holds_alpha(n):
    """Truth: P(a) = P(b) = 0.4 on paired games (both win 30%, only a 10%, only b 10%); McNemar's exact test
    rejects at most 5% (it is conservative), and Newcombe's interval covers the difference 0."""
    tables = np.random.default_rng(400 + n).multinomial(n, [0.3, 0.1, 0.1, 0.5], size=R)
    rejects, covers = _rates_over_tables(tables, _paired_table)
    assert rejects <= max_rate() and covers >= min_coverage()


@pytest.mark.parametrize("n", [20, 100, 1000])
def test_unpaired_binary_holds_alpha(n):
    """Truth: two independent runs of n games with the same win rate 0.3; the z test (Fisher's below 5 expected)
    rejects at most 5% and Newcombe's interval covers the difference 0."""
    counts = np.random.default_rng(500 + n).binomial(n, 0.3, size=(R, 2))
    rejects, covers = _rates_over_tables(counts, lambda k_a, k_b: unpaired_binary(np.arange(n) < k_a,
                                                                                  np.arange(n) < k_b))
    assert rejects <= max_rate() and covers >= min_coverage()


# --- Holm --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("correlation", [0.0, 0.6])
def test_holm_controls_the_family_wise_error(correlation):
    """Truth: m = 10 true nulls, their p-values uniform, independent or equicorrelated (z-scores with
    correlation 0.6, as comparisons against one baseline are); Holm rejects any of them at most 5% of the time."""
    rng = np.random.default_rng(600)
    shared = rng.standard_normal((R, 1))
    z = math.sqrt(correlation) * shared + math.sqrt(1 - correlation) * rng.standard_normal((R, 10))
    p = 2 * stats.norm.sf(np.abs(z))
    assert np.mean([holm(row).min() < ALPHA for row in p]) <= max_rate()


# --- seat balance ------------------------------------------------------------------------------------------------


def _fair_games(kind, n, reps, rng):
    """(reps, n, seats) win flags of a fair game, and the timeouts.

    ``4p``: 10% of the games nobody wins (timeouts), 10% two seats share the win, else one seat wins, every
    seat alike. ``2p ties``: 10% timeouts, 10% both seats win (a tie), else one. ``4p teams``: seats 0 and 2
    against 1 and 3, 5% timeouts."""
    u = rng.random((reps, n))
    timeout = u < 0.1 if kind != "4p teams" else u < 0.05
    if kind == "4p teams":
        first = rng.random((reps, n)) < 0.5
        wins = np.stack([first, ~first, first, ~first], axis=-1)
    else:
        seats = 4 if kind == "4p" else 2
        order = rng.random((reps, n, seats)).argsort(axis=-1)      # a random ranking of the seats per game
        winners = np.where(u < 0.2, 2, 1)[..., None]                  # the top two share 10% of the games
        wins = order < winners
    wins &= ~timeout[..., None]
    return wins, timeout


@pytest.mark.parametrize(("kind", "n"), [("4p", 20), ("4p", 100), ("4p", 1000), ("2p ties", 100),
                                         ("4p teams", 20), ("4p teams", 1000)])
def test_seat_balance_tests_hold_alpha_on_fair_games(kind, n):
    """Truth: a fair game (every seat alike) with timeouts and shared wins, or a fair team game. The gap's
    permutation test rejects at most 5% (it is exact; 199 resamples keep the run short, and its level does not
    depend on their number), the chi-square test of the decisive games at most 5% (+ tolerance), every seat's
    interval covers 1/players, and ``fair_gap`` is the mean gap of fair games (within 3 sd of that mean)."""
    rng = np.random.default_rng(700 + n)
    wins, timeout = _fair_games(kind, n, R, rng)
    results = [seat_balance(w, t, n_resamples=199, seed=i) for i, (w, t) in enumerate(zip(wins, timeout,
                                                                                           strict=True))]
    seats = wins.shape[-1]
    gap_p = np.array([r.gap_pvalue for r in results])
    assert np.mean(gap_p < ALPHA) <= max_rate()
    chi2_p = np.array([r.pvalue for r in results])
    if kind == "4p teams":
        assert np.isnan(chi2_p).all() and all(r.teams == ((0, 2), (1, 3)) for r in results)
    else:
        assert np.mean(chi2_p[~np.isnan(chi2_p)] < ALPHA) <= max_rate()
    covered = np.mean([(r.low <= 1 / seats) & (1 / seats <= r.high) for r in results])
    assert covered >= min_coverage()
    gaps = np.array([r.largest_gap for r in results])
    fair = np.array([r.fair_gap for r in results])
    assert abs(gaps.mean() - fair.mean()) <= 3 * gaps.std() / math.sqrt(R) + 0.002


def test_seat_balance_gap_test_rejects_an_unfair_game():
    """Truth: seat 0 of a 4-player game wins 31% instead of 25% (the others share the rest); at 1000 games the
    gap test finds it nearly always (a test that never rejects would pass the alpha checks)."""
    rng = np.random.default_rng(800)
    found = []
    for i in range(200):
        winner = rng.choice(4, size=1000, p=[0.31, 0.23, 0.23, 0.23])
        found.append(seat_balance(np.eye(4, dtype=bool)[winner], np.zeros(1000, bool), n_resamples=199,
                                  seed=i).gap_pvalue < ALPHA)
    assert np.mean(found) >= 0.9


# --- versus -------------------------------------------------------------------------------------------------------


def _contest(deals, players, rng, edge=0.0):
    """A's points per seating (``players`` arrays of ``deals`` games) when A is as strong as B.

    Each deal favours its seats unequally (Dirichlet(0.5) win chances, the same in every seating of the deal, so
    the seatings are correlated), and half the deals play out alike in every seating; 10% of the games nobody
    wins, 10% two seats share the win. With ``edge`` > 0, A also wins outright that share of the games: its
    expected score is then edge + (1 - edge) / players."""
    chances = rng.dirichlet(np.full(players, 0.5), size=deals).cumsum(axis=1)
    alike = rng.random(deals) < 0.5
    u, pick = rng.random((players, deals)), rng.random((players, deals))
    partner = rng.integers(1, players, (players, deals))
    u, pick, partner = (np.where(alike, x[0], x) for x in (u, pick, partner))   # alike: seating 0's draws
    first = np.minimum((pick[..., None] > chances).sum(axis=-1), players - 1)   # the seat drawn to win
    other = (first + partner) % players                                           # the seat sharing a shared win
    games = np.arange(deals)
    scores = []
    for seat in range(players):
        wins = np.zeros((deals, players), dtype=bool)
        wins[games, first[seat]] = u[seat] >= 0.1
        wins[games, other[seat]] |= (0.1 <= u[seat]) & (u[seat] < 0.2)
        wins[rng.random(deals) < edge] = np.eye(players, dtype=bool)[seat]
        scores.append(versus.seat_returns(wins, seat))
    return scores


def _runs(players):
    """What versus.score reads of the seatings: their number and the two policies."""
    return [SimpleNamespace(policies=["a", "b"])] * players


def _versus_rates(players, deals, reps, seed, edge=0.0):
    """The rejection rate against fair and the coverage of A's true score over ``reps`` contests, each by
    ``versus.deal_test`` of its deal means, the test ``versus.score`` makes (tests/test_calibration_versus.py
    checks that; score's seat split, a permutation test of its own, would make this the suite's longest wait)."""
    rng = np.random.default_rng(seed)
    truth = edge + (1 - edge) / players
    fair = 1 / players
    results = [versus.deal_test(np.mean(_contest(deals, players, rng, edge), axis=0), fair) for _ in range(reps)]
    p = np.array([r[3] for r in results])
    low, high = np.array([r[1] for r in results]), np.array([r[2] for r in results])
    np.testing.assert_array_equal(p < ALPHA, (low > fair) | (high < fair))     # one test: they agree
    return np.mean(p < ALPHA), np.mean((low <= truth) & (truth <= high))


@pytest.mark.parametrize(("players", "deals"), [(2, 20), (2, 100), (2, 1000), (4, 20), (4, 100)])
def test_versus_holds_alpha_between_equals(players, deals):
    """Truth: A as strong as B, correlated seatings, 10% of the games won by nobody and 10% shared; versus's test
    over deals calls A stronger or weaker at most 5% (+ tolerance) of the time, and its interval covers 1/players.
    """
    rate, coverage = _versus_rates(players, deals, R, seed=900 + deals + players)
    assert rate <= max_rate() and coverage >= min_coverage()


def test_versus_interval_covers_a_stronger_players_score():
    """Truth: A wins 20% of the games outright and plays B's equal otherwise, 2 players: its score is 0.6."""
    _, coverage = _versus_rates(2, 100, R, seed=950, edge=0.2)
    assert coverage >= min_coverage()


# --- the defects of the audit, each reproduced ------------------------------------------------------------------


def test_defect_1_versus_scores_a_game_nobody_wins_one_over_players():
    """Truth: A and B equal, 10% of the games won by nobody, 1000 deals. Scoring a game nobody won 0 for A
    made A look weaker: the audit saw p = 2.7e-5 and 99.4% of such contests rejected. With points (1/players
    each) A's score is fair, and the contests reject at most 5% (+ tolerance over 200)."""
    timeout = np.zeros((1, 3), dtype=bool)
    assert versus.seat_returns(timeout, 0).tolist() == [pytest.approx(1 / 3)]
    rate, _ = _versus_rates(2, 1000, 200, seed=1)
    assert rate <= max_rate(200)


def test_defect_2_versus_refuses_one_deal_and_bounds_a_contest_without_spread(tmp_path):
    """Truth: 10 deals that A won in every seating. A single deal, or deals without spread, gave p = 0 and the
    interval [1, 1]; now one deal is refused (before anything is played, for the command line) and a contest
    without spread gets the exact binomial bound: Clopper-Pearson [0.025^(1/10), 1], p = 2 * (1/2)^10."""
    with pytest.raises(ValueError, match="allowed: 2 or more deals"):
        versus.score(_runs(2), [np.ones(1), np.ones(1)])
    with pytest.raises(cfg.ConfigError, match="^--games 1 is not allowed; allowed: 2 or more deals$"):
        versus.seatings("zwai", "greedy", "random", games=1)
    result = versus.score(_runs(2), [np.ones(10), np.ones(10)])
    assert result.method == "exact" and result.score == 1.0
    assert (result.low, result.high) == pytest.approx((0.025 ** 0.1, 1.0))
    assert result.pvalue == pytest.approx(2 * 0.5 ** 10)
    mirror = versus.score(_runs(3), [np.full(50, 1 / 3)] * 3)    # an agent against itself: no spread, fair
    interval = proportion_interval(50 / 3, 50, method="clopper-pearson")
    assert mirror.pvalue == 1.0 and (mirror.low, mirror.high) == pytest.approx((interval.low, interval.high))


def test_defect_6_numeric_pvalue_tests_the_mean_difference_its_interval_estimates():
    """Truth: 2000 skewed differences of mean exactly 0 (an exponential minus its sample mean). The Wilcoxon
    and Mann-Whitney p-values tested the medians (the audit: the interval covers 0 but p = 1.6e-6); the t tests'
    p-value is 1 here, and agrees with the interval."""
    d = np.random.default_rng(6).exponential(1.0, 2000)
    d -= d.mean()
    base = np.arange(2000.0)
    paired = paired_numeric(base + d, base)
    assert paired.pvalue == pytest.approx(1.0) and paired.low < 0 < paired.high
    e = np.random.default_rng(7).normal(0.0, 1.0, 2000)      # symmetric, of the same mean exactly
    unpaired = unpaired_numeric(10 + d, 10 + e - e.mean())
    assert unpaired.pvalue == pytest.approx(1.0) and unpaired.low < 0 < unpaired.high


@pytest.mark.parametrize(("n", "audit"), [(20, 0.225), (100, 0.10), (1000, 0.032), (10000, 0.0105)])
def test_defect_10_balance_gap_of_a_fair_game_is_measured(n, audit):
    """Truth: a fair 4-player game with one winner a game. The gap is biased upward and said nothing about it:
    the audit measured 0.225, 0.10, 0.032 and 0.0105 for perfectly fair games at 20 to 10,000 games; ``fair_gap``
    now states that number, ``excess_gap`` what is left over, and the gap test judges it."""
    rng = np.random.default_rng(10)
    wins = np.eye(4, dtype=bool)[rng.integers(0, 4, n)]
    result = seat_balance(wins, np.zeros(n, dtype=bool))
    assert result.fair_gap == pytest.approx(audit, rel=0.1)
    assert result.excess_gap == pytest.approx(result.largest_gap - result.fair_gap)
    assert result.gap_pvalue > ALPHA


@pytest.mark.parametrize("kind", ["2p ties", "4p teams"])
def test_defect_10_ties_and_team_wins_are_no_imbalance(kind):
    """Truth: a fair 2-player game with 10% ties (both seats win), and a fair 4-player team game (5% timeouts).
    Win shares read them as imbalance (the audit: every seat of the 2-player game 0.55, of the team game about
    0.5, instead of 1/players); points give each seat 1/players and add up to 1."""
    rng = np.random.default_rng(11)
    if kind == "2p ties":
        tie = rng.random(20_000) < 0.1
        wins = np.eye(2, dtype=bool)[rng.integers(0, 2, 20_000)] | tie[:, None]
        timeout = np.zeros(20_000, dtype=bool)
    else:
        wins, timeout = (x[0] for x in _fair_games(kind, 20_000, 1, rng))
    result = seat_balance(wins, timeout)
    assert result.share.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(result.share, 1 / wins.shape[1], atol=0.01)
