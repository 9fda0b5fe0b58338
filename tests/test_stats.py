"""Tests of the statistics layer (``analyses``) against textbook values, scipy, brute force and simulation."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from analyses import (
    SPRT,
    TwoSidedSPRT,
    find_teams,
    game_shape,
    holm,
    paired_binary,
    paired_numeric,
    proportion_interval,
    seat_balance,
    sprt_first_crossing,
    unpaired_binary,
    unpaired_numeric,
)
from analyses.scoring import points

# --- intervals -------------------------------------------------------------------------------------------------


def test_wilson_textbook_values():
    five_of_ten = proportion_interval(5, 10)
    assert (five_of_ten.low, five_of_ten.high) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    none_of_ten = proportion_interval(0, 10)
    assert (none_of_ten.low, none_of_ten.high) == pytest.approx((0.0, 0.2775), abs=1e-4)


def test_clopper_pearson_textbook_values():
    none_of_ten = proportion_interval(0, 10, method="clopper-pearson")
    assert (none_of_ten.low, none_of_ten.high) == pytest.approx((0.0, 0.3085), abs=1e-4)
    # With no failures the exact upper bound solves p**10 = 0.025, which is 0.025**0.1 ...
    assert none_of_ten.high == pytest.approx(1 - 0.025**0.1, rel=1e-9)
    all_of_ten = proportion_interval(10, 10, method="clopper-pearson")
    # ... and by symmetry the lower bound for 10/10 is its mirror image.
    assert (all_of_ten.low, all_of_ten.high) == pytest.approx((0.025**0.1, 1.0), rel=1e-9)


@pytest.mark.parametrize(("method", "scipy_method"), [("wilson", "wilson"), ("clopper-pearson", "exact")])
def test_intervals_match_scipy_binomtest(method, scipy_method):
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(1, 2000))
        k = int(rng.integers(0, n + 1))
        confidence = float(rng.choice([0.8, 0.9, 0.95, 0.99]))
        ours = proportion_interval(k, n, confidence, method=method)
        reference = stats.binomtest(k, n).proportion_ci(confidence, method=scipy_method)
        assert (ours.low, ours.high) == pytest.approx((reference.low, reference.high), abs=1e-10)


def test_interval_without_trials_is_everything():
    for method in ("wilson", "clopper-pearson"):
        interval = proportion_interval(0, 0, method=method)
        assert (interval.low, interval.high) == (0.0, 1.0)
    with pytest.raises(ValueError):
        proportion_interval(3, 10, method="wald")
    with pytest.raises(ValueError):
        proportion_interval(11, 10)


# --- seat balance ----------------------------------------------------------------------------------------------


def _games(*blocks):
    """Stack (count, winners-row, timeout) blocks into shuffled (wins, timeout) arrays."""
    wins = np.concatenate([np.tile(np.array(row, dtype=bool), (count, 1)) for count, row, _ in blocks])
    timeout = np.concatenate([np.full(count, flag) for count, _, flag in blocks])
    order = np.random.default_rng(0).permutation(len(timeout))
    return wins[order], timeout[order]


def test_seat_balance_on_constructed_games():
    wins, timeout = _games(
        (30, [1, 0, 0], False),
        (20, [0, 1, 0], False),
        (10, [0, 0, 1], False),
        (5, [1, 1, 0], False),  # shared wins
        (3, [0, 0, 0], True),  # timeouts without a winner
    )
    result = seat_balance(wins, timeout)
    assert (result.n_games, result.n_seats, result.teams) == (68, 3, ((0,), (1,), (2,)))
    np.testing.assert_array_equal(result.wins, [35, 25, 10])
    # points: a win 1, half of each shared win, a third of each game nobody won
    points = np.array([30 + 2.5 + 1, 20 + 2.5 + 1, 10 + 1])
    np.testing.assert_allclose(result.points, points)
    np.testing.assert_allclose(result.share, points / 68)
    assert result.share.sum() == pytest.approx(1.0)
    assert (result.shared, result.timeouts, result.decisive) == (5, 3, 60)
    # Decisive winners 30/20/10 against 20 expected each: (100 + 0 + 100) / 20 = 10 on 2 df, p = exp(-10/2).
    assert result.statistic == pytest.approx(10.0)
    assert result.pvalue == pytest.approx(math.exp(-5))
    reference = stats.chisquare([30, 20, 10])
    assert (result.statistic, result.pvalue) == pytest.approx((reference.statistic, reference.pvalue))
    assert result.largest_gap == pytest.approx(22.5 / 68)
    assert result.excess_gap == pytest.approx(result.largest_gap - result.fair_gap)
    assert 0 < result.fair_gap < result.largest_gap and result.gap_pvalue < 0.01
    for seat, k in enumerate(points):
        interval = proportion_interval(k, 68)
        assert (result.low[seat], result.high[seat]) == pytest.approx((interval.low, interval.high))


def test_seat_balance_team_game_has_no_decisive_games():
    wins, timeout = _games((40, [1, 0, 1, 0], False), (25, [0, 1, 0, 1], False), (2, [0, 0, 0, 0], True))
    result = seat_balance(wins, timeout)
    assert result.teams == ((0, 2), (1, 3))
    assert (result.decisive, result.shared, result.timeouts) == (0, 65, 2)
    assert math.isnan(result.statistic) and math.isnan(result.pvalue)
    # a team's win is half a point to each of its seats; a timeout a quarter to every seat
    np.testing.assert_allclose(result.share, np.array([20.5, 13, 20.5, 13]) / 67)
    assert result.largest_gap == pytest.approx(7.5 / 67)


def test_teams_are_seats_that_always_win_together():
    """Two seats that never win agree in every game, but are no team unless the others pair up alike."""
    never = np.array([[1, 0, 0], [1, 0, 0], [1, 0, 0]], dtype=bool)
    assert find_teams(never) == ((0,), (1,), (2,))
    one_team_loses = np.array([[1, 0, 1, 0]] * 5, dtype=bool)
    assert find_teams(one_team_loses) == ((0, 2), (1, 3))
    nobody = np.zeros((4, 2), dtype=bool)
    assert find_teams(nobody) == ((0,), (1,))


@pytest.mark.parametrize("blocks", [
    [(3, [1, 0, 0]), (1, [0, 1, 0]), (1, [0, 0, 0])],                # 3 seats, single winners and a game nobody won
    [(3, [1, 1, 0]), (1, [0, 0, 1]), (1, [1, 0, 0])],                # 2-way shared wins and single winners
    [(4, [1, 0, 1, 0]), (1, [0, 1, 0, 1])],                          # a team game
])
def test_gap_test_agrees_with_exact_enumeration(blocks):
    """The Monte Carlo gap test against its exact value: every arrangement of each game's winners over the
    seats (teams kept together) enumerated and weighed, here for five games."""
    wins, timeout = _games(*[(count, row, False) for count, row in blocks])
    resamples = 40_000
    result = seat_balance(wins, timeout, n_resamples=resamples, seed=3)
    teams = result.teams
    choices = []        # per game: every way as many teams as won it can win it
    for row in wins:
        m = int(row.sum()) // len(teams[0])
        choices.append([[s for team in c for s in team] for c in itertools.combinations(teams, m)])
    gaps = []
    for arrangement in itertools.product(*choices):
        rearranged = np.zeros_like(wins)
        for g, seats in enumerate(arrangement):
            rearranged[g, seats] = True
        share = points(rearranged).mean(axis=0)
        gaps.append(share.max() - share.min())
    gaps = np.array(gaps)
    exact_p = np.mean(gaps >= result.largest_gap - 1e-12)
    # Monte Carlo sd of a p-value near 0.5 from 40,000 draws: 0.0025
    assert result.gap_pvalue == pytest.approx(exact_p, abs=0.01)
    assert result.fair_gap == pytest.approx(gaps.mean(), abs=0.005)


# --- game shape ------------------------------------------------------------------------------------------------


def test_game_shape_by_hand():
    result = game_shape(np.array([1, 2, 3, 4, 5]), np.array([False, False, False, False, True]))
    assert (result.n_games, result.mean, result.sd) == (5, 3.0, pytest.approx(math.sqrt(2.5)))
    # Linear interpolation between order statistics: the p-th percentile sits at position 4 * p / 100.
    assert result.quantiles == pytest.approx({5: 1.2, 25: 2.0, 50: 3.0, 75: 4.0, 95: 4.8})
    assert result.completion == pytest.approx(0.8)


def test_game_shape_matches_numpy():
    rng = np.random.default_rng(3)
    n_turns = rng.integers(10, 60, size=1001)
    timeout = n_turns >= 55
    cards = rng.poisson(7, size=1001)
    result = game_shape(n_turns, timeout, extras={"cards": cards})
    assert result.mean == pytest.approx(np.mean(n_turns))
    assert result.sd == pytest.approx(np.std(n_turns, ddof=1))
    assert list(result.quantiles) == [5, 25, 50, 75, 95]
    assert list(result.quantiles.values()) == pytest.approx(np.percentile(n_turns, [5, 25, 50, 75, 95]))
    assert result.completion == pytest.approx(np.mean(n_turns < 55))
    assert result.extras["cards"] == pytest.approx((cards.mean(), cards.std(ddof=1)))


# --- paired and unpaired comparisons ---------------------------------------------------------------------------


def _paired_table(n11, n10, n01, n00):
    """Bool arrays a, b with the given paired 2x2 counts, in shuffled game order."""
    a = np.repeat([True, True, False, False], [n11, n10, n01, n00])
    b = np.repeat([True, False, True, False], [n11, n10, n01, n00])
    order = np.random.default_rng(1).permutation(a.size)
    return a[order], b[order]


def test_paired_binary_exact_mcnemar_and_counts():
    a, b = _paired_table(40, 17, 6, 37)
    result = paired_binary(a, b)
    assert (result.n, result.n10, result.n01) == (100, 17, 6)
    assert (result.mean_a, result.mean_b, result.statistic) == pytest.approx((0.57, 0.46, 0.11))
    assert result.pvalue == pytest.approx(stats.binomtest(17, 23, 0.5).pvalue)
    # The exact p-value by hand: twice the binomial tail P(X <= 6) for X ~ Bin(23, 1/2).
    assert result.pvalue == pytest.approx(2 * sum(math.comb(23, i) for i in range(7)) / 2**23)


def test_paired_binary_newcombe_published_example():
    # Cavo et al. (2012) in Fagerland, Lydersen & Laake, "Statistical Analysis of Contingency Tables", ch. 8:
    # table [[59, 6], [16, 80]], Newcombe square-and-add interval -0.1186 to -0.0046 for the difference -0.0621.
    result = paired_binary(*_paired_table(59, 6, 16, 80))
    assert result.statistic == pytest.approx(-0.0621, abs=1e-4)
    assert (result.low, result.high) == pytest.approx((-0.1186, -0.0046), abs=1e-4)


def test_paired_binary_without_discordant_games():
    result = paired_binary(*_paired_table(30, 0, 0, 20))
    assert (result.statistic, result.pvalue) == (0.0, 1.0)
    assert result.low < 0 < result.high


def test_paired_binary_interval_covers_true_difference():
    # b copies a, but loses a's win with probability 0.3 and gains one with probability 0.1:
    # P(a) = 0.5, P(b) = 0.5 * 0.7 + 0.5 * 0.1 = 0.4, so the true difference is 0.1.
    rng = np.random.default_rng(11)
    reps, n = 400, 500
    covered = 0
    for _ in range(reps):
        a = rng.random(n) < 0.5
        b = np.where(a, rng.random(n) >= 0.3, rng.random(n) < 0.1)
        result = paired_binary(a, b)
        covered += result.low <= 0.1 <= result.high
    # 95% nominal; binomial sd over 400 repetitions is 1.1 points.
    assert 0.92 <= covered / reps <= 0.98


def test_paired_numeric_t_test_by_hand():
    d = np.array([5, -1, 7, 2, 9, -4, 6, 8])
    a = np.arange(8) + 20
    result = paired_numeric(a, a - d)
    assert result.statistic == pytest.approx(d.mean())
    # t = mean / (sd / sqrt(n)) on n - 1 degrees of freedom; the interval is mean +- t_0.975 * sd / sqrt(n)
    se = d.std(ddof=1) / math.sqrt(8)
    assert result.pvalue == pytest.approx(2 * stats.t.sf(d.mean() / se, 7))
    half = stats.t.ppf(0.975, 7) * se
    assert (result.low, result.high) == pytest.approx((d.mean() - half, d.mean() + half))


def test_numeric_comparisons_match_scipy():
    rng = np.random.default_rng(19)
    for n in (2, 3, 30, 1000):
        a, b, c = rng.exponential(1.0, n), rng.exponential(1.2, n), rng.normal(0.0, 3.0, n + 7)
        paired, reference = paired_numeric(a, b), stats.ttest_rel(a, b)
        interval = reference.confidence_interval(0.9)
        assert paired.pvalue == pytest.approx(reference.pvalue, rel=1e-9)
        assert (paired_numeric(a, b, 0.9).low, paired_numeric(a, b, 0.9).high) == \
            pytest.approx((interval.low, interval.high), rel=1e-9)
        unpaired, reference = unpaired_numeric(a, c), stats.ttest_ind(a, c, equal_var=False)
        interval = reference.confidence_interval()
        assert unpaired.pvalue == pytest.approx(reference.pvalue, rel=1e-9)
        assert (unpaired.low, unpaired.high) == pytest.approx((interval.low, interval.high), rel=1e-9)


def test_paired_numeric_all_differences_zero():
    a = np.array([3, 5, 8, 13, 21])
    result = paired_numeric(a, a.copy())
    assert (result.statistic, result.pvalue, result.low, result.high) == (0.0, 1.0, 0.0, 0.0)


def test_paired_numeric_interval_covers_true_shift():
    # A shared deal x plus variant-specific noise: mean(a - b) = 3 - 2.5 = 0.5.
    rng = np.random.default_rng(13)
    reps, n = 400, 300
    covered = 0
    for _ in range(reps):
        x = rng.poisson(30, n)
        result = paired_numeric(x + rng.poisson(3.0, n), x + rng.poisson(2.5, n))
        covered += result.low <= 0.5 <= result.high
    assert 0.92 <= covered / reps <= 0.98


def test_unpaired_binary_published_example_and_tests():
    # Perondi et al. (2004) in Fagerland et al., ch. 4: 7/34 against 1/34, Newcombe hybrid score 0.0189 to 0.3404.
    a = np.repeat([True, False], [7, 27])
    b = np.repeat([True, False], [1, 33])
    result = unpaired_binary(a, b)
    assert result.statistic == pytest.approx(6 / 34)
    assert (result.low, result.high) == pytest.approx((0.0189, 0.3404), abs=1e-4)
    # Expected count of b's wins is 4 < 5, so Fisher's exact test.
    assert result.pvalue == pytest.approx(stats.fisher_exact([[7, 27], [1, 33]]).pvalue)

    large_a = np.repeat([True, False], [560, 440])
    large_b = np.repeat([True, False], [500, 700])
    large = unpaired_binary(large_a, large_b)
    chi2 = stats.chi2_contingency([[560, 440], [500, 700]], correction=False)
    assert large.pvalue == pytest.approx(chi2.pvalue)
    assert (large.n_a, large.n_b, large.mean_a, large.mean_b) == (1000, 1200, 0.56, pytest.approx(5 / 12))


def test_unpaired_numeric_welch_test_and_interval():
    rng = np.random.default_rng(17)
    a, b = rng.normal(10, 2, size=40), rng.normal(9, 4, size=25)
    result = unpaired_numeric(a, b)
    var_a, var_b = a.var(ddof=1) / 40, b.var(ddof=1) / 25
    df = (var_a + var_b) ** 2 / (var_a**2 / 39 + var_b**2 / 24)  # Welch-Satterthwaite
    half = stats.t.ppf(0.975, df) * math.sqrt(var_a + var_b)
    diff = a.mean() - b.mean()
    assert result.statistic == pytest.approx(diff)
    assert (result.low, result.high) == pytest.approx((diff - half, diff + half))
    assert result.pvalue == pytest.approx(2 * stats.t.sf(abs(diff) / math.sqrt(var_a + var_b), df))


def test_unpaired_numeric_without_spread():
    same = unpaired_numeric(np.full(5, 7), np.full(3, 7))
    assert (same.statistic, same.pvalue, same.low, same.high) == (0.0, 1.0, 0.0, 0.0)


def test_holm_hand_computed():
    # Sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> running max 0.06.
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(holm([0.5, 0.6, 0.001]), [1.0, 1.0, 0.003])
    assert holm([]).shape == (0,)


def test_paired_inputs_must_align():
    with pytest.raises(ValueError):
        paired_binary(np.ones(3, dtype=bool), np.ones(4, dtype=bool))
    with pytest.raises(ValueError):
        paired_numeric([], [])


# --- SPRT ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("alpha", "beta"), [(0.05, 0.05), (0.01, 0.10)])
def test_sprt_error_rates_on_synthetic_data(alpha, beta):
    rng = np.random.default_rng(21)
    runs, steps, p0, p1 = 4000, 1200, 0.5, 0.6
    under_h0, _ = sprt_first_crossing(rng.random((runs, steps)) < p0, p0, p1, alpha, beta)
    under_h1, _ = sprt_first_crossing(rng.random((runs, steps)) < p1, p0, p1, alpha, beta)
    assert np.mean(under_h0 == 0) < 0.002 and np.mean(under_h1 == 0) < 0.002
    false_positive, false_negative = np.mean(under_h0 == 1), np.mean(under_h1 == -1)
    # Wald's bounds give rates near alpha and beta (a bit below, from overshoot); binomial sd <= 0.005 here.
    assert false_positive <= alpha + 0.015
    assert false_negative <= beta + 0.015
    # ... and not far below: a test that never says H1 (or never H0) would pass the bounds above.
    assert false_positive >= alpha / 3 and false_negative >= beta / 3


def test_sprt_boundaries_and_batches():
    test = SPRT(0.5, 0.6)
    assert (test.lower, test.upper) == pytest.approx((-math.log(19), math.log(19)))
    # 60/100: LLR = 60 ln 1.2 + 40 ln 0.8 = 2.014 < ln 19 = 2.944, undecided.
    assert test.update(60, 100).decision is None
    assert test.llr == pytest.approx(60 * math.log(1.2) + 40 * math.log(0.8))
    # 90/150: LLR = 90 ln 1.2 + 60 ln 0.8 = 3.021, decided at the end of this batch.
    assert test.update(30, 50).decision == "H1"
    # Once decided it stays decided, though the counts keep growing.
    test.update(0, 100)
    assert test.llr < test.lower and test.decision == "H1"
    assert (test.successes, test.trials, test.estimate) == (90, 250, 0.36)
    assert test.interval() == proportion_interval(90, 250)
    with pytest.raises(ValueError):
        test.update(5, 3)


def test_sprt_game_by_game_matches_first_crossing():
    rng = np.random.default_rng(23)
    samples = rng.random((200, 1500)) < 0.55  # halfway between p0 and p1: both decisions happen
    decision, step = sprt_first_crossing(samples, 0.5, 0.6, 0.05, 0.05)
    assert {-1, 1} <= set(decision.tolist())
    for row, expected_decision, expected_step in zip(samples, decision, step, strict=True):
        test = SPRT(0.5, 0.6)
        for outcome in row:
            if test.update(int(outcome), 1).decision is not None:
                break
        assert {None: 0, "H0": -1, "H1": 1}[test.decision] == expected_decision
        assert test.trials == (expected_step if expected_decision else row.size)


def _two_sided_decisions(p, runs, rng, batch=100, max_batches=100):
    decisions = []
    for _ in range(runs):
        test = TwoSidedSPRT(0.5, 0.05)
        for wins in rng.binomial(batch, p, size=max_batches):
            if test.update(int(wins), batch).decision is not None:
                break
        decisions.append(test.decision)
    return decisions


def test_two_sided_sprt_decisions():
    rng = np.random.default_rng(29)
    assert _two_sided_decisions(0.6, 100, rng).count("greater") >= 95
    assert _two_sided_decisions(0.4, 100, rng).count("less") >= 95
    at_p0 = _two_sided_decisions(0.5, 300, rng)
    assert at_p0.count("H0") >= 0.9 * 300
    assert at_p0.count("greater") + at_p0.count("less") <= (0.05 + 0.03) * 300


def test_two_sided_sprt_counts_and_estimate():
    test = TwoSidedSPRT(0.5, 0.05).update(30, 50).update(25, 50)
    assert (test.successes, test.trials, test.estimate) == (55, 100, 0.55)
    assert test.interval(0.9) == proportion_interval(55, 100, 0.9)
