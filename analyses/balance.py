"""Seat balance: does the seat a player sits in change their chance to win?"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from analyses.intervals import proportion_interval


@dataclass(frozen=True, eq=False)  # eq=False: the fields hold arrays, whose == is elementwise
class SeatBalanceResult:
    """Per-seat win counts and shares, with a test of equal shares.

    ``statistic``/``pvalue`` are the chi-square goodness-of-fit test of the single winners of the decisive
    games against equal shares per seat; ``largest_gap`` is the seat gap: the highest seat's share minus the
    lowest's (what ``simcore analyze`` reports as the gap, and ``simcore tune``'s ``gap`` term minimises).
    """

    n_games: int
    n_seats: int
    wins: np.ndarray
    share: np.ndarray
    low: np.ndarray
    high: np.ndarray
    shared: int
    timeouts: int
    decisive: int
    statistic: float
    pvalue: float
    largest_gap: float
    confidence: float


def seat_balance(wins, timeout, confidence: float = 0.95) -> SeatBalanceResult:
    """Win share per seat with Wilson intervals, and a chi-square test that all seats win equally often.

    ``wins`` is a bool array (n_games, n_seats): seat i is among the winners of game g. A seat's ``share``
    counts every game it won, shared or not, over all games (timeouts included), so shares of games with
    several winners add up to more than 1. The chi-square test instead uses only the decisive games (exactly
    one winner), where each game gives exactly one count and the counts are multinomial; that is the test
    that is valid without modelling ties. Without decisive games it is nan.
    ``largest_gap`` is 0 for a perfectly fair game (Ludii's balance metric is 1 minus it).
    """
    wins = np.asarray(wins, dtype=bool)
    timeout = np.asarray(timeout, dtype=bool)
    if wins.ndim != 2 or timeout.shape != (wins.shape[0],):
        raise ValueError(f"need wins (n_games, n_seats) and timeout (n_games,), got {wins.shape}, {timeout.shape}")
    n_games, n_seats = wins.shape
    per_seat = wins.sum(axis=0)
    winners = wins.sum(axis=1)
    decisive = winners == 1
    share = per_seat / n_games if n_games else np.full(n_seats, np.nan)
    bounds = [proportion_interval(int(k), n_games, confidence) for k in per_seat]
    statistic, pvalue = _equal_shares_test(wins[decisive].sum(axis=0))
    gap = float(share.max() - share.min()) if n_seats else np.nan
    return SeatBalanceResult(
        n_games=n_games,
        n_seats=n_seats,
        wins=per_seat,
        share=share,
        low=np.array([b.low for b in bounds]),
        high=np.array([b.high for b in bounds]),
        shared=int((winners >= 2).sum()),
        timeouts=int(timeout.sum()),
        decisive=int(decisive.sum()),
        statistic=statistic,
        pvalue=pvalue,
        largest_gap=gap,
        confidence=confidence,
    )


def _equal_shares_test(counts: np.ndarray) -> tuple[float, float]:
    """Chi-square goodness of fit of ``counts`` against equal expected counts; nan without any count."""
    if counts.sum() == 0:
        return np.nan, np.nan
    result = stats.chisquare(counts)
    return float(result.statistic), float(result.pvalue)
