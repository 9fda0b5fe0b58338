"""Calibration of the ladder's and the duel's verdicts (issue 22): each procedure run thousands of times on
synthetic games whose truth is known, its error rate held to the nominal one within three binomial standard
errors, and one real-game test per defect the audit found.

The synthetic games go through the same code as real ones: ``ladder.sequential_rung`` with a GSPRT, the
``Duel`` with its batches, ``ladder.skill_depth``; only the engine is replaced by random win flags.
"""

import math

import numpy as np
import pytest
from scipy import stats

from analyses.scoring import points
from analyses.sprt import GSPRT
from simcore.io import config as cfg
from simcore.studies import duel, ladder

R = 2000        # replicates per rate


def within(rate, nominal, replicates=R):
    """The measured rate is at most nominal + 3 binomial standard errors."""
    return rate <= nominal + 3 * math.sqrt(nominal * (1 - nominal) / replicates)


# --- synthetic deals ------------------------------------------------------------------------------------


def two_player_deals(rng, n, a_share=0.5, edge=0.2, coupled=0.5, no_winner=0.1):
    """Win flags (seatings, n, 2) of n deals in a 2-player game, A in seat 0 then seat 1.

    Of the games with a winner, A wins from seat 0 with a_share + edge and from seat 1 with a_share - edge (a
    seat's edge); ``no_winner`` of the games end without one (timeouts, draws). In a ``coupled`` share of the
    deals one draw decides both seatings (the deal's luck favours one policy whatever the seat), so the
    seatings of a deal are correlated. A's mean points are 0.05 + 0.9 a_share whatever the edge and coupling.
    """
    decided = rng.random((2, n)) >= no_winner
    own = rng.random((2, n))
    joint = np.broadcast_to(rng.random(n), (2, n))
    draw = np.where(rng.random(n) < coupled, joint, own)
    a_wins = draw < (a_share + np.array([[edge], [-edge]]))
    wins = np.zeros((2, n, 2), dtype=bool)
    for seat in range(2):
        wins[seat, :, seat] = decided[seat] & a_wins[seat]
        wins[seat, :, 1 - seat] = decided[seat] & ~a_wins[seat]
    return wins


def team_deals(rng, n, a_team=0.5):
    """Win flags (seatings, n, 4) of a 4-player team game (seats 0, 2 against 1, 3): A's team, A and one of
    the B seats, wins with ``a_team``; every win is a team win, shared by two seats. A's mean points a_team/2."""
    wins = np.zeros((4, n, 4), dtype=bool)
    a_won = rng.random((4, n)) < a_team
    for seat in range(4):
        team = np.array([s % 2 == seat % 2 for s in range(4)])
        wins[seat] = np.where(a_won[seat][:, None], team, ~team)
    return wins


def rung_decisions(deals_of, seats, fair, delta, batch=50, deals=4000, replicates=R, seed=0):
    """The GSPRT's decision ("H1", "H0" or None) on each of ``replicates`` synthetic rungs, and the deals
    each played. ``deals_of(rng, n)`` draws the (seatings, n, players) win flags of n deals."""
    rng = np.random.default_rng(seed)
    decisions, played = [], []
    for _ in range(replicates):
        test = GSPRT(fair, fair + delta)
        _, n = ladder.sequential_rung(lambda seat, start, n: deals_of(rng, n)[seat], seats, deals, batch, test,
                                      lambda seat, wins: points(wins)[:, seat])
        decisions.append(test.decision)
        played.append(n)
    return np.array(decisions, dtype=object), np.array(played)


# --- the ladder's SPRT ----------------------------------------------------------------------------------


@pytest.mark.parametrize("edge", [0.0, 0.2])
def test_ladder_sprt_false_positive_rate_with_a_seat_edge_and_coupled_deals(edge):
    """Defects 3 and 4: equal budgets (A's points 1/2), a seat edge of 0.7/0.3 among decided games, 10% of
    games without a winner, half the deals coupled. The old SPRT decided inside a batch, seat block by seat
    block, on outright wins counted as independent trials: alpha 0.170 with this edge (nominal 0.05). Per
    whole deal, on the deal's mean points, the GSPRT keeps to 0.05."""
    decisions, played = rung_decisions(lambda rng, n: two_player_deals(rng, n, 0.5, edge), 2, 0.5, 0.05)
    false_positive = np.mean(decisions == "H1")
    assert within(false_positive, 0.05), false_positive
    assert np.all(played % 50 == 0)                    # the test looked after whole batches only


def test_ladder_sprt_false_negative_rate_at_the_alternative():
    """A scores fair + delta = 0.55 (with the seat edge and coupled deals): the GSPRT accepts H0 at most
    beta = 5% of the time."""
    a_share = (0.55 - 0.05) / 0.9
    decisions, _ = rung_decisions(lambda rng, n: two_player_deals(rng, n, a_share, 0.2), 2, 0.5, 0.05, seed=1)
    false_negative = np.mean(decisions == "H0")
    assert within(false_negative, 0.05), false_negative
    assert np.mean(decisions == "H1") > 0.9


def test_ladder_sprt_counts_team_wins_as_shared_points():
    """Defect 4: in a 4-player team game every win is shared by a team, so the old test, counting outright
    wins, saw no trial and never decided. On points (1/2 to each seat of the winning team) an equal A is
    called better at most 5% of the time, and a clearly better A (its team wins 70%) is found."""
    fair, _ = rung_decisions(lambda rng, n: team_deals(rng, n, 0.5), 4, 0.25, 0.05, replicates=R, seed=2)
    assert within(np.mean(fair == "H1"), 0.05), np.mean(fair == "H1")
    better, _ = rung_decisions(lambda rng, n: team_deals(rng, n, 0.7), 4, 0.25, 0.05, replicates=200, seed=3)
    assert np.mean(better == "H1") > 0.95


def test_ladder_sprt_in_small_batches_waits_for_enough_deals():
    """Looking after every 2 deals of a 4-player team game with a large delta (0.1), the GSPRT deciding on
    its first deals, with a noisy variance, called equal budgets better 14.5% of the time; it decides from 20
    deals on, and keeps to 0.05."""
    decisions, played = rung_decisions(lambda rng, n: team_deals(rng, n, 0.5), 4, 0.25, 0.1, batch=2, seed=8)
    assert within(np.mean(decisions == "H1"), 0.05), np.mean(decisions == "H1")
    assert played.min() >= 20


def test_the_rung_test_looks_only_after_whole_batches_of_deals():
    """Defect 3: every seating of a batch is played before the test sees it, so a stop never leaves the seats
    unbalanced: each seat's rows hold the same deals, a whole number of batches."""
    rng = np.random.default_rng(4)
    looked = []
    test = GSPRT(0.5, 0.6)
    rows, played = ladder.sequential_rung(lambda seat, start, n: two_player_deals(rng, n, 0.8, 0.2)[seat], 2, 5000,
                                          30, test, lambda seat, wins: points(wins)[:, seat],
                                          lambda n, t: looked.append((n, t.n)))
    assert test.decision == "H1" and played < 5000
    assert [n for n, _ in looked] == list(range(30, played + 1, 30))
    assert all(n == seen for n, seen in looked)            # one observation per deal
    assert [len(r) for r in rows] == [played, played]


def test_ladder_sprt_decides_four_player_zwergen(tmp_path):
    """Defect 4 on a real game: 4-player Zwergen Ziehen is a team game ("the two players sitting opposite
    each other form a team"), where every win is a team win. The old ladder SPRT counted outright wins only,
    saw no trial and left every rung undecided; on points it decides."""
    plan = ladder.plan("zwergen", [("players", 4)], "mc", (1, 32), games=400, seed=1)
    result = ladder.climb_sprt(plan, tmp_path, batch=25, delta=0.1)
    assert result.rungs[0].sprt in ("H1", "H0")
    assert result.rungs[0].result.deals < 400


# --- the skill depth ------------------------------------------------------------------------------------


def test_skill_depth_is_overstated_at_most_the_rung_level():
    """Defect 11: the depth was the largest significant rung anywhere, overstated 9.6% of the time with four
    rungs above the true depth. Fixed-sequence testing (stop at the first rung without a significant gain)
    keeps it at the rungs' level. Truth: the first two rungs gain clearly, the four above gain nothing; each
    rung's t test over 200 deals' mean points, as a fixed-count ladder does."""
    rng = np.random.default_rng(5)
    deals, rungs = 200, 6
    gain = np.array([0.15, 0.15, 0, 0, 0, 0])
    means = np.clip(rng.normal(0.5 + gain[None, :, None], 0.3, (R, rungs, deals)), 0, 1)
    test = stats.ttest_1samp(means, 0.5, axis=2)
    significant = (test.pvalue < 0.05) & (means.mean(axis=2) > 0.5)
    budgets = [16, 32, 64, 128, 256, 512]
    depths = np.array([ladder.skill_depth(budgets, row) or 0 for row in significant])
    largest = np.array([max([b for b, s in zip(budgets, row, strict=True) if s], default=0) for row in significant])
    assert within(np.mean(depths > 32), 0.05), np.mean(depths > 32)
    assert np.mean(largest > 32) > 0.06          # the old rule errs well above the rungs' one-sided 2.5%
    assert np.mean(depths == 32) > 0.9           # and the true depth is found


# --- the duel with one variant --------------------------------------------------------------------------


class SyntheticDuel(duel.Duel):
    """The duel's own batching and tests, on synthetic games: ``draw(rng, n)`` gives (games, players) win
    flags."""

    def __init__(self, draw, rng, **kwargs):
        super().__init__([cfg.resolve("zwai", games=kwargs.pop("games", 1000))], "win_0", **kwargs)
        self.draw, self.rng = draw, rng

    def _batch(self, run, start, n):
        wins = self.draw(self.rng, n)
        return wins[:, 0], wins.sum(axis=1) == 1


def fair_with_shared_wins(rng, n):
    """A fair 2-player game: 10% of the games are a shared win, the rest won by either seat at 1/2."""
    shared = rng.random(n) < 0.1
    first = rng.random(n) < 0.5
    return np.column_stack([shared | first, shared | ~first])


def test_duel_one_variant_counts_the_decisive_games_only():
    """Defect 5: a fair 2-player game with 10% shared wins: counting a shared win as a win for each sharer,
    the old duel tested seat 0's rate 0.55 against 1/2 and called it "greater" in every run. Among the games
    with one winner the SPRT keeps its false-positive rate 0.05."""
    rng = np.random.default_rng(6)
    decisions = []
    for _ in range(R):
        d = SyntheticDuel(fair_with_shared_wins, rng, sprt=True, batch=200, max_games=20_000)
        for _ in d.play(progress=lambda line: None):
            pass
        decisions.append(d.test.decision)
    decisions = np.array(decisions, dtype=object)
    assert within(np.mean(np.isin(decisions, ["greater", "less"])), 0.05)
    assert np.mean(decisions == "H0") > 0.9


def test_duel_one_variant_fixed_size_binomial_test_holds_its_level():
    """Without --sprt the one-variant duel's exact binomial test of the decisive games rejects a fair game at
    most 5% of the time."""
    rng = np.random.default_rng(7)
    rejected = 0
    for _ in range(R):
        d = SyntheticDuel(fair_with_shared_wins, rng, games=400)
        lines = list(d.play(progress=lambda line: None))
        p = float(lines[-1].rsplit("p = ", 1)[1])
        rejected += p < 0.05
    assert within(rejected / R, 0.05), rejected / R


def test_duel_of_a_team_game_says_there_is_nothing_to_test(cli):
    """Defect 5 on a real game: 4-player Zwergen Ziehen is a team game, every win shared by two seats. The
    old duel tested seat 0's rate 0.5 against p0 = 1/4 and accepted "above p0"; without a game with one
    winner there is nothing to test without --p0."""
    done = cli("duel", "zwergen", "--set", "players=4", "--policy", "random", "--sprt", "--batch", "1000",
               "--max-games", "2000")
    assert done.returncode == 0, done.stderr
    assert "H1" not in done.stdout and "no game with one winner" in done.stdout
    assert "0 of the 0 games with one winner (2,000 shared or without a winner left out)" in done.stdout


def test_duel_of_another_metric_needs_its_p0(cli):
    done = cli("duel", "zwai", "--metric", "timeout", "--games", "10")
    assert done.returncode != 0 and "needs --p0" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    run = cfg.resolve("zwai", games=10)
    assert duel.Duel([run], "timeout", p0=0.01).p0 == 0.01      # --delta bounds only the SPRT's hypotheses
    with pytest.raises(ValueError, match="leaves"):
        duel.Duel([run], "timeout", p0=0.01, sprt=True)
    with pytest.raises(ValueError, match="--p0 1.5 is not allowed"):
        duel.Duel([run], "timeout", p0=1.5)
