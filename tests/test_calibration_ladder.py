"""Calibration of ``ladder --sprt`` with its test at the cap (issue 37, item 6): the GSPRT alone, at its default
200 deals a rung, left 40% to 50% of the rungs undecided and found fair + delta less often than the fixed t test on
the same deals; a rung still undecided at its last deal is now decided by ``GSPRT.at_cap`` (the one-sided z test
of all its deals at the error the SPRT left unspent, by the stagewise p-value). Held here: the stagewise p-value
against a simulation of its own model, and the truncated test through the ladder's own code
(``ladder.sequential_rung``, ``GSPRT``) on synthetic deals, its level within 3 binomial standard errors of 5% and
its power against the t test on the same deals.

    python tests/test_calibration_ladder.py      # prints the before / after table of docs/explanation/statistics.md
"""

import math

import numpy as np
import pytest
from scipy import optimize, stats

from analyses.paired import t_test
from analyses.scoring import points
from analyses.sprt import GSPRT, stagewise_pvalue
from simcore.studies import ladder, versus
from tests.test_calibration import _runs
from tests.test_calibration_sequential import team_deals, two_player_deals

R = 2000
ALPHA = 0.05
DEALS, BATCH, DELTA = ladder.DEALS, 50, 0.05       # the ladder's defaults: 200 deals a rung, looks every 50


def max_rate(replicates=R, nominal=ALPHA):
    return nominal + 3 * math.sqrt(nominal * (1 - nominal) / replicates)


def two_player(score):
    """Two players, a seat edge of 0.7 / 0.3 among decided games, half the deals coupled, 10% without a winner:
    the larger budget scores ``score``."""
    return lambda rng, n: two_player_deals(rng, n, (score - 0.05) / 0.9, 0.2)


def team_game(score):
    """A 4-player team game, every win shared by a team: the larger budget's seat scores ``score``."""
    return lambda rng, n: team_deals(rng, n, 2 * score)


def rungs(deals_of, seats, fair, replicates=R, seed=0, batch=BATCH, deals=DEALS):
    """Each replicate's rung through the ladder's code: (the SPRT alone found H1, the truncated test found H1, the
    SPRT alone was undecided at the cap, deals played, and on all ``deals`` of the same replicate, two-sided 5%
    and above fair: the t test found H1, the fixed ladder's test (``versus.score``) found H1)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(replicates):
        wins = deals_of(rng, deals)                 # every deal the rung may play, so the t test sees the same
        score = np.mean([points(wins[seat])[:, seat] for seat in range(seats)], axis=0)
        test = GSPRT(fair, fair + DELTA)
        _, played = ladder.sequential_rung(lambda seat, start, n, wins=wins: wins[seat, start:start + n], seats, deals,
                                           batch, test, lambda seat, w: points(w)[:, seat])
        cap = test.at_cap() if test.decision is None else None
        t, _, _ = t_test(score.mean(), score.std(ddof=1) / math.sqrt(deals), deals - 1, null=fair)
        fixed = versus.score(_runs(seats), [points(wins[seat])[:, seat] for seat in range(seats)])
        out.append((test.decision == "H1", test.decision == "H1" or bool(cap and cap.rejected), cap is not None,
                    played, t < ALPHA and score.mean() > fair, fixed.significant and fixed.score > fair))
    return np.array(out, dtype=float)


def test_stagewise_pvalue_with_one_look_is_the_z_or_t_test():
    """One look: the z test with the variance known, the t test with it estimated; looks before min_n decide
    nothing, so they leave it so."""
    assert stagewise_pvalue([100], -2.94, 2.94, 0.1, 1.645 * 10, estimated=False) == pytest.approx((0.0, 0.05),
                                                                                                  abs=1e-4)
    assert stagewise_pvalue([100], -2.94, 2.94, 0.1, 20.0) == pytest.approx((0.0, stats.t.sf(2.0, 99)), abs=1e-9)
    assert stagewise_pvalue([5, 10, 100], -2.94, 2.94, 0.1, 20.0, min_n=20) == pytest.approx(
        (0.0, stats.t.sf(2.0, 99)), abs=1e-9)


def test_stagewise_pvalue_holds_its_model():
    """The model itself: a random walk with N(0, 1) steps, known variance, the SPRT's bands at looks every 50
    steps up to 200. Rejecting at the cap where the stagewise p < 5% gives a truncated test whose error, over
    200,000 simulated paths, is 5% within 3 standard errors; the error spent before the cap is what the
    recursion says."""
    d, (lower, upper), looks = 0.15, (math.log(0.05 / 0.95), math.log(0.95 / 0.05)), [50, 100, 150, 200]
    rng = np.random.default_rng(1)
    w = np.cumsum(rng.normal(0, 1, (200_000, looks[-1])), axis=1)[:, np.array(looks) - 1]
    llr = d * w - np.array(looks) * d * d / 2
    out = (llr >= upper) | (llr <= lower)
    first = np.where(out[:, :-1].any(axis=1), out[:, :-1].argmax(axis=1), len(looks) - 1)
    early = out[:, :-1].any(axis=1) & (llr[np.arange(len(w)), first] >= upper)
    critical = optimize.brentq(lambda x: stagewise_pvalue(looks, lower, upper, d, x, estimated=False)[1] - ALPHA,
                               0, 60)
    spent = stagewise_pvalue(looks, lower, upper, d, critical, estimated=False)[0]
    level = np.mean(early | (~out[:, :-1].any(axis=1) & (w[:, -1] >= critical)))
    se = math.sqrt(ALPHA * (1 - ALPHA) / len(w))
    assert abs(level - ALPHA) < 3 * se, level
    assert abs(np.mean(early) - spent) < 3 * math.sqrt(spent / len(w)), (np.mean(early), spent)


@pytest.mark.parametrize(("batch", "seed"), [(50, 1), (10, 2)])
def test_truncated_sprt_holds_its_level(batch, seed):
    """Equal budgets (2 players; the team game reaches the cap in 1% of its rungs, so the SPRT's own calibration
    covers it): the SPRT with its test at the cap calls the larger budget better at most 5% (+ 3 SE) of the
    time, though it decides every rung the SPRT alone left undecided (40% to 50%)."""
    found = rungs(two_player(0.5), 2, 0.5, batch=batch, seed=seed)
    assert np.mean(found[:, 1]) <= max_rate(), np.mean(found[:, 1])


def test_truncated_sprt_finds_fair_plus_delta_more_often_than_the_fixed_tests():
    """The larger budget scores fair + delta (0.55 of 2 players): on the same 200 deals the SPRT alone found it
    about half of the time, the t test 0.54 to 0.59 and the fixed ladder's test about as often; the truncated
    test finds it more often than any, in fewer deals on average than 200."""
    found = rungs(two_player(0.55), 2, 0.5, replicates=1000, seed=7)
    alone, truncated, _, played, t, fixed = found.mean(axis=0)
    assert truncated > max(t, fixed) + 0.05 and truncated > alone + 0.1, (alone, truncated, t, fixed)
    assert played < DEALS


def test_a_ladder_rung_undecided_at_its_last_deal_is_decided_at_the_cap(tmp_path):
    """A real rung with too few deals for the SPRT: decided at the cap, and the output says so."""
    plan = ladder.plan("zwai", [], "ismcts", (1, 2), games=30, seed=2)
    result = ladder.climb_sprt(plan, tmp_path, batch=10, delta=0.05)
    rung = result.rungs[0]
    assert rung.sprt == "cap" and rung.result.deals == 30
    assert rung.significant == (rung.cap.pvalue < ALPHA) and 0 <= rung.cap.spent <= rung.cap.pvalue
    lines = ladder.lines(result)
    assert f"cap {rung.cap.pvalue:.2g}" in lines[1] and "test at the cap" not in lines[1]
    assert "decided by the one-sided z test of all its deals" in ladder.method(result)


def _table():
    """The rows of the statistics page: level, power and undecided share, the SPRT alone against the truncated
    test, and the fixed t test on the same deals."""
    cases = [("2 players, seat edge, coupled deals", two_player, 2, 0.5), ("4-player team game", team_game, 4, 0.25)]
    for name, make, seats, fair in cases:
        for batch in (50, 10):
            level = rungs(make(fair), seats, fair, seed=11, batch=batch).mean(axis=0)
            power = rungs(make(fair + DELTA), seats, fair, seed=12, batch=batch).mean(axis=0)
            print(f"| {name}, looks every {batch} deals | " + " / ".join(f"{level[i]:.3f}" for i in (0, 1, 5, 4))
                  + " | " + " / ".join(f"{power[i]:.3f}" for i in (0, 1, 5, 4))
                  + f" | {level[2]:.3f} / {power[2]:.3f} | {level[3]:.0f} / {power[3]:.0f} |")


if __name__ == "__main__":
    _table()
