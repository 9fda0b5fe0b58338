"""Calibration of tune's "No candidate is fair" (issue 38, item 5): each finalist is called *unbalanced* by the
fair-centred Hotelling's T² of its points on the confirmation games, Holm-adjusted across the finalists
(``simcore.studies.tune.unbalanced_pvalues``), and the sentence is said when every finalist is unbalanced.

Its error: calling any fair finalist unbalanced (so: "every finalist is unbalanced" when one is fair) at most
5%, measured on synthetic finalists whose games have a few outcomes (a seat or a team wins, a shared win, a
timeout); a finalist's games are then a multinomial count of outcomes and its moments exact sums over them, so
thousands of confirmations take a second. Power: how often the sentence is said of finalists that all carry an
edge (docs/explanation/statistics.md, "tune: no candidate is fair").
"""

import math

import numpy as np
import pytest

from analyses.sequential import moments
from simcore.studies import tune

ALPHA = 0.05
R = 2000
MARGIN = 0.02

# 2 players: seat 0 wins, seat 1 wins, both win (shared), nobody wins (a timeout): each outcome's points
POINTS2 = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.5, 0.5]])
# 3 players: each seat wins alone, each pair shares a win, nobody wins
POINTS3 = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5], [1 / 3] * 3])
# 4 players as teams (0, 2) and (1, 3), the units the test reads: a team's points (its seats' summed)
TEAMS = np.array([[1.0, 0.0], [0.0, 1.0]])


def slack(rate, replicates):
    """The most an error rate's estimate may exceed ``rate`` by chance: three binomial standard errors."""
    return 3 * math.sqrt(rate * (1 - rate) / replicates)


def two_player(edge, ties=0.1):
    """Outcome probabilities of a 2p game with ``ties`` shared wins and as many timeouts, seat 0's points share
    1/2 + ``edge``."""
    decisive = 1 - 2 * ties
    return [decisive / 2 + edge, decisive / 2 - edge, ties, ties]


def called_unbalanced(units, probs, games, rng, replicates=R):
    """``replicates`` confirmations of the finalists whose outcome probabilities are the rows of ``probs``, each
    outcome's unit points the rows of ``units``: (replicates, finalists) of "called unbalanced" at 5%."""
    counts = rng.multinomial(games, probs, size=(replicates, len(probs)))
    z = units - 1 / units.shape[1]         # a fair game gives every unit (seat, or team of as many seats) as much
    d = counts @ z / games
    m = np.einsum("rfo,ok,ol->rfkl", counts, z, z) / games
    return tune.unbalanced_pvalues(games, d, m, MARGIN) < ALPHA


def test_the_counts_moments_are_those_of_the_games():
    """The shortcut above is sequential.moments of the games the counts stand for."""
    counts = np.array([7, 5, 2, 1])
    games = np.repeat(POINTS2, counts, axis=0)
    n, d, m = moments(games[None], np.full(2, 0.5))
    z = POINTS2 - 0.5
    assert n == 15 and d[0] == pytest.approx(counts @ z / 15)
    assert m[0] == pytest.approx(z.T @ (counts[:, None] * z) / 15)


@pytest.mark.parametrize("units, probs, games", [
    (POINTS2, [two_player(0.0)] * 5, 2000),
    (POINTS2, [two_player(0.0, ties=0.0)] * 5, 200),
    (POINTS3, [[0.28, 0.28, 0.28, 0.04, 0.04, 0.04, 0.04]] * 3, 1000),
    (TEAMS, [[0.5, 0.5]] * 5, 2000),
])
def test_no_fair_finalist_is_called_unbalanced_but_at_alpha(units, probs, games):
    """Every finalist fair (2 seats with shared wins and timeouts; 3 seats; two teams): the chance that any is
    called unbalanced, Holm across the finalists, is at most 5%."""
    rate = called_unbalanced(units, np.array(probs), games, np.random.default_rng(games + len(probs))).any(axis=1)
    assert rate.mean() <= ALPHA + slack(ALPHA, R), rate.mean()


def test_no_candidate_is_fair_is_said_of_finalists_one_of_which_is_fair_at_most_alpha():
    """One finalist fair, four far from it (seat 0 at 0.60): "every finalist is unbalanced" is wrong exactly when
    the fair one is called unbalanced, at most 5% of the time."""
    probs = np.array([two_player(0.0)] + [two_player(0.1)] * 4)
    every = called_unbalanced(POINTS2, probs, 2000, np.random.default_rng(3)).all(axis=1)
    assert every.mean() <= ALPHA + slack(ALPHA, R), every.mean()


@pytest.mark.parametrize("edge, games, power", [(0.02, 10_000, 0.85), (0.04, 2000, 0.7), (0.037, 40_000, 0.999)])
def test_every_finalist_with_an_edge_is_called_unbalanced(edge, games, power):
    """Power: five finalists whose seat 0 takes 1/2 + edge are all called unbalanced, so "No candidate is fair"
    is said (the last case: the zwergen tune's finalists, edges of 0.037 to 0.042 on 40,000 games)."""
    probs = np.array([two_player(edge)] * 5)
    every = called_unbalanced(POINTS2, probs, games, np.random.default_rng(7), replicates=500).all(axis=1)
    assert every.mean() >= power, every.mean()


# the figures of docs/explanation/statistics.md: python -m tests.test_calibration_tune_unbalanced
if __name__ == "__main__":
    for units, probs, games in ((POINTS2, [two_player(0.0)] * 5, 2000), (POINTS2, [two_player(0.0, ties=0.0)] * 5, 200),
                                (POINTS3, [[0.28, 0.28, 0.28, 0.04, 0.04, 0.04, 0.04]] * 3, 1000),
                                (TEAMS, [[0.5, 0.5]] * 5, 2000)):
        rate = called_unbalanced(units, np.array(probs), games, np.random.default_rng(games + len(probs)))
        print(f"fair, {units.shape[1]} units, {len(probs)} finalists, {games:,} games: any called unbalanced "
              f"{rate.any(axis=1).mean():.4f}")
    probs = np.array([two_player(0.0)] + [two_player(0.1)] * 4)
    print(f"one fair of five: 'No candidate is fair' said "
          f"{called_unbalanced(POINTS2, probs, 2000, np.random.default_rng(3)).all(axis=1).mean():.4f}")
    for edge, games in ((0.01, 10_000), (0.02, 2000), (0.02, 10_000), (0.03, 2000), (0.04, 2000), (0.037, 40_000)):
        called = called_unbalanced(POINTS2, np.array([two_player(edge)] * 5), games, np.random.default_rng(7), 500)
        print(f"edge {edge}, {games:,} games: said {called.all(axis=1).mean():.3f}, each {called.mean():.3f}")
