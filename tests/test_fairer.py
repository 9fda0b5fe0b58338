"""analyses.fairer on small cases computed by hand (or by scipy), and its input errors."""

import math

import numpy as np
import pytest
from scipy import stats

from analyses.fairer import (
    detectable_edge,
    fair_within,
    fairer_verdict,
    games_needed,
    imbalance_change,
    seat_shift,
)
from analyses.scoring import points

rng = np.random.default_rng(7)


def _one_hot(winners, seats):
    return np.eye(seats)[np.asarray(winners)]


def _hotelling(d):
    """One-sample Hotelling T^2 on the first k - 1 coordinates, by the textbook formula."""
    x = d[:, :-1]
    n, p = x.shape
    mean = x.mean(axis=0)
    t2 = n * mean @ np.linalg.solve(np.cov(x, rowvar=False), mean)
    return t2, stats.f.sf(t2 * (n - p) / (p * (n - 1)), p, n - p)


def test_paired_hotelling_matches_the_textbook_on_k_minus_1_coordinates():
    a = _one_hot(rng.integers(0, 3, 40), 3)
    b = _one_hot(rng.choice(3, 40, p=[0.5, 0.3, 0.2]), 3)
    result = seat_shift(a, b)
    t2, p = _hotelling(b - a)
    assert result.statistic == pytest.approx(t2, rel=1e-9)
    assert result.pvalue == pytest.approx(p, rel=1e-9)
    assert result.df == (2, 38.0)
    np.testing.assert_allclose(result.shift, (b - a).mean(axis=0))


def test_per_seat_tests_are_paired_t_tests_with_holm():
    a = _one_hot(rng.integers(0, 4, 60), 4)
    b = _one_hot(rng.integers(0, 4, 60), 4)
    result = seat_shift(a, b)
    expected = [stats.ttest_rel(b[:, s], a[:, s]).pvalue for s in range(4)]
    np.testing.assert_allclose(result.seat_pvalues, expected, rtol=1e-9)
    order = np.argsort(expected)
    holm = np.minimum(1, np.maximum.accumulate(np.array(expected)[order] * (4 - np.arange(4))))
    np.testing.assert_allclose(result.adjusted[order], holm, rtol=1e-9)
    ci = stats.ttest_rel(b[:, 0], a[:, 0]).confidence_interval(0.95)
    assert (result.low[0], result.high[0]) == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_unpaired_per_seat_tests_are_welch():
    a = _one_hot(rng.integers(0, 3, 50), 3)
    b = _one_hot(rng.integers(0, 3, 70), 3)
    result = seat_shift(a, b, paired=False)
    expected = [stats.ttest_ind(b[:, s], a[:, s], equal_var=False).pvalue for s in range(3)]
    np.testing.assert_allclose(result.seat_pvalues, expected, rtol=1e-9)
    assert 0 < result.pvalue < 1 and result.df[0] == 2


def test_two_teams_make_the_omnibus_one_t_test_on_team_0():
    a = _one_hot(rng.integers(0, 4, 80), 4)
    b = _one_hot(rng.choice(4, 80, p=[0.35, 0.15, 0.35, 0.15]), 4)
    result = seat_shift(a, b, teams=[(0, 2), (1, 3)])
    team_a, team_b = a[:, [0, 2]].sum(axis=1), b[:, [0, 2]].sum(axis=1)
    assert result.pvalue == pytest.approx(stats.ttest_rel(team_b, team_a).pvalue, rel=1e-9)
    assert result.df == (1, 79.0)
    np.testing.assert_allclose(result.shift, [(team_b - team_a).mean(), -(team_b - team_a).mean()])
    np.testing.assert_allclose(result.adjusted, result.seat_pvalues)    # one test read twice: no Holm


def test_a_seat_that_never_wins_keeps_the_test_defined():
    a = _one_hot(rng.choice([0, 1, 2], 50), 4)            # seat 3 never wins in either variant
    b = _one_hot(rng.choice([0, 1, 2], 50), 4)
    result = seat_shift(a, b)
    assert result.df[0] == 2 and 0 <= result.pvalue <= 1
    assert result.seat_pvalues[3] == 1.0 and result.shift[3] == 0


def test_no_change_and_a_noiseless_change():
    a = _one_hot(rng.integers(0, 3, 30), 3)
    assert seat_shift(a, a).pvalue == 1.0
    assert imbalance_change(a, a).pvalue == 1.0
    b = a.copy()
    b[:, [0, 1]] += [[-0.1, 0.1]]                            # every game moves 0.1 from seat 0 to seat 1
    result = seat_shift(a, b)
    assert result.pvalue == 0.0 and math.isinf(result.statistic)


def test_imbalance_is_the_bias_corrected_sum_of_squares():
    a = points(np.eye(3, dtype=bool)[rng.choice(3, 200, p=[0.5, 0.3, 0.2])])
    b = points(np.eye(3, dtype=bool)[rng.integers(0, 3, 200)])
    result = imbalance_change(a, b)
    for value, x in ((result.imbalance_a, a), (result.imbalance_b, b)):
        m, v = x.mean(axis=0), x.var(axis=0, ddof=1) / len(x)
        assert value == pytest.approx(((m - 1 / 3) ** 2 - v).sum(), rel=1e-9)
    assert result.estimate == pytest.approx(result.imbalance_b - result.imbalance_a, rel=1e-9)
    assert result.verdict == "fairer" and result.pvalue < 0.05 and result.high < 0
    assert imbalance_change(b, a).verdict == "less fair"
    assert imbalance_change(a, b, paired=False).se > 0


def test_fairer_verdict():
    assert fairer_verdict(-0.01, 0.01) == "fairer"
    assert fairer_verdict(0.01, 0.01) == "less fair"
    assert fairer_verdict(-0.01, 0.2) == "no change found"


def test_fair_within_is_two_one_sided_t_tests_per_seat():
    x = _one_hot(rng.integers(0, 2, 400), 2)
    result = fair_within(x, 0.1)
    m, se = x[:, 0].mean(), x[:, 0].std(ddof=1) / 20
    lower = stats.t.sf((m - 0.5 + 0.1) / se, 399)
    upper = stats.t.sf((0.5 + 0.1 - m) / se, 399)
    assert result.seat_pvalues[0] == pytest.approx(max(lower, upper), rel=1e-9)
    assert result.pvalue == result.seat_pvalues.max()
    assert result.shown == (result.pvalue < 0.05)
    assert result.shown == bool(((result.low > 0.4) & (result.high < 0.6)).all())


def test_fair_within_a_known_case():
    # 100 games, seat 0 wins 60: share 0.6, se = sqrt(0.24 * 100 / 99) / 10; within 0.05 of 0.5 it is not
    x = _one_hot([0] * 60 + [1] * 40, 2)
    assert not fair_within(x, 0.05).shown
    assert fair_within(x, 0.3).shown
    teams = fair_within(_one_hot([0] * 25 + [1] * 25 + [2] * 25 + [3] * 25, 4), 0.2, teams=[(0, 1), (2, 3)])
    np.testing.assert_allclose(teams.share, [0.5, 0.5])
    np.testing.assert_allclose(teams.fair, [0.5, 0.5])


def test_games_needed_and_detectable_edge_invert_each_other():
    plan = games_needed(0.05, 4)
    # the moved seat's test at alpha / 4: var 0.25 * 0.75 + 0.3 * 0.7
    z = stats.norm.isf(0.05 / 8) + stats.norm.isf(0.2)
    assert plan.games == math.ceil((z * math.sqrt(0.1875 + 0.21) / 0.05) ** 2)
    assert games_needed(0.05, 4, paired_correlation=0.8).games < plan.games
    edge = detectable_edge(plan.games, 4).edge
    assert edge == pytest.approx(0.05, rel=1e-3) and edge <= 0.05
    within = games_needed(0.05, 4, test="fair_within")
    assert detectable_edge(within.games, 4, test="fair_within").edge == pytest.approx(0.05, rel=1e-3)


@pytest.mark.parametrize("call, message", [
    (lambda: seat_shift(np.ones((5, 2)) / 2, np.ones((6, 2)) / 2), "same games"),
    (lambda: seat_shift(np.ones((5, 2)) / 2, np.ones((5, 3)) / 3), "same seats"),
    (lambda: seat_shift(np.ones(5), np.ones(5)), "points"),
    (lambda: seat_shift(np.ones((3, 4)) / 4, np.ones((3, 4)) / 4), "more games than seats"),
    (lambda: seat_shift(np.ones((9, 4)) / 4, np.ones((9, 4)) / 4, teams=[(0, 1), (1, 2, 3)]), "teams"),
    (lambda: imbalance_change(np.ones((9, 4)) / 4, np.ones((9, 4)) / 4, teams=[(0, 1)]), "teams"),
    (lambda: fair_within(np.ones((9, 2)) / 2, 0), "margin"),
    (lambda: fair_within(np.ones((9, 2)) / 2, 0.1, alpha=0.6), "alpha"),
    (lambda: games_needed(0.05, 1), "seats"),
    (lambda: games_needed(0.05, 4, test="gap"), "unknown test"),
    (lambda: games_needed(0.05, 4, power=0.01), "power"),
    (lambda: games_needed(0.05, 4, paired_correlation=2), "paired_correlation"),
    (lambda: detectable_edge(1, 4), "games"),
])
def test_input_errors_are_one_line_value_errors(call, message):
    with pytest.raises(ValueError, match=message) as error:
        call()
    assert "\n" not in str(error.value)
