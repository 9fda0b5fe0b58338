"""Seat balance: does the seat a player sits in change the points it takes?

A seat's share is its mean points per game (``analyses.scoring.points``: 1 a win, 1/k a k-way shared win, 1/players
each when nobody wins), so a tie, a timeout or a team's win is no imbalance: a fair game gives every seat
1/players.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np
from scipy import special

from analyses.intervals import proportion_interval
from analyses.scoring import points

RESAMPLES = 2000     # null gaps drawn by default: the Monte Carlo p-value's resolution is 1/2001


@dataclass(frozen=True, eq=False)  # eq=False: the fields hold arrays, whose == is elementwise
class SeatBalanceResult:
    """Per-seat points and win counts, the seat gap against what a fair game shows, and two tests of fairness.

    ``share`` is each seat's mean points, ``low``/``high`` its Wilson interval. ``largest_gap`` is the highest
    seat's share minus the lowest's. Even a fair game shows a gap, larger the fewer the games (about 0.1 for
    4 seats and 100 games): ``fair_gap`` is the mean gap of a fair game with these games' outcomes, and
    ``excess_gap`` = ``largest_gap`` - ``fair_gap`` the part a fair game would not show on average.
    ``gap_pvalue`` is the permutation test of the gap (H0: the seat does not matter): the share of fair
    rearrangements with a gap at least as large. ``statistic``/``pvalue`` are the chi-square test of the
    single winners of the decisive games against equal shares (nan without decisive games).
    """

    n_games: int
    n_seats: int
    teams: tuple                 # the seats that win together, e.g. ((0, 2), (1, 3)); one seat each without teams
    points: np.ndarray           # each seat's points, summed over the games
    share: np.ndarray            # each seat's mean points per game
    low: np.ndarray
    high: np.ndarray
    wins: np.ndarray             # games each seat won, shared and team wins included
    shared: int                  # games with two or more winners (team wins included)
    timeouts: int
    decisive: int                # games with exactly one winner
    statistic: float
    pvalue: float
    largest_gap: float
    fair_gap: float
    excess_gap: float
    gap_pvalue: float
    n_resamples: int
    confidence: float

    @property
    def team_game(self):
        """Whether seats win together in teams: the team, not the seat, is then the unit of a verdict."""
        return len(self.teams) < self.n_seats


def seat_balance(wins, timeout, confidence: float = 0.95, n_resamples: int = RESAMPLES,
                 seed: int = 0) -> SeatBalanceResult:
    """Mean points per seat with Wilson intervals, the seat gap, and tests that the seat does not matter.

    ``wins`` is a bool array (n_games, n_seats): seat i is among the winners of game g; ``timeout`` marks the
    games that hit ``max_turns``. The seat intervals are Wilson's with the seat's points as a fractional count
    (conservative for a value in [0, 1], see ``proportion_interval``).

    Seats whose win flags agree in every game form a team (4-player Zwergen Ziehen: seats 0 and 2 against 1 and
    3). The gap test is a Monte Carlo permutation test: under H0 "the seat does not matter", which seats won a
    game is a uniformly random pick among the sets of as many teams as won it (as many seats, in a game without
    teams), independently from game to game. ``n_resamples`` gap draws from that null (seeded by ``seed``)
    give the p-value (1 + #{null gap >= observed}) / (1 + ``n_resamples``), which controls the false-positive
    rate at alpha exactly, at any number of games and draws, with ties, timeouts and teams (conservatively
    where few games make the gap discrete). A draw costs one multinomial per kind of game (its number of
    winning teams), not one draw per game, so a million games take little longer than a hundred.

    The chi-square goodness-of-fit test counts only the decisive games (exactly one winner), whose single
    winners are multinomial; its false-positive rate is alpha up to the chi-square approximation (good once
    every seat expects 5 or more wins). It is nan without decisive games (a team game).
    """
    wins = np.asarray(wins, dtype=bool)
    timeout = np.asarray(timeout, dtype=bool)
    if wins.ndim != 2 or wins.shape[0] == 0 or wins.shape[1] == 0 or timeout.shape != (wins.shape[0],):
        raise ValueError(f"need wins (n_games, n_seats) and timeout (n_games,) of at least one game, got "
                         f"{wins.shape}, {timeout.shape}")
    n_games, n_seats = wins.shape
    total = points(wins).sum(axis=0)
    share = total / n_games
    bounds = [proportion_interval(min(float(k), n_games), n_games, confidence) for k in total]
    winners = wins.view(np.uint8) @ np.ones(n_seats, dtype=np.int64)   # 4x faster than wins.sum(axis=1)
    decisive = winners == 1
    statistic, pvalue = equal_shares_test(np.count_nonzero(wins[decisive], axis=0))
    teams = find_teams(wins)
    largest_gap = float(share.max() - share.min())
    fair_gap, gap_pvalue = _gap_test(wins, winners, teams, n_resamples, np.random.default_rng(seed))
    return SeatBalanceResult(
        n_games=n_games,
        n_seats=n_seats,
        teams=teams,
        points=total,
        share=share,
        low=np.array([b.low for b in bounds]),
        high=np.array([b.high for b in bounds]),
        wins=wins.sum(axis=0),
        shared=int((winners >= 2).sum()),
        timeouts=int(timeout.sum()),
        decisive=int(decisive.sum()),
        statistic=statistic,
        pvalue=pvalue,
        largest_gap=largest_gap,
        fair_gap=fair_gap,
        excess_gap=largest_gap - fair_gap,
        gap_pvalue=gap_pvalue,
        n_resamples=n_resamples,
        confidence=confidence,
    )


def find_teams(wins) -> tuple:
    """The teams: seats whose win flags agree in every game, e.g. ((0, 2), (1, 3)); else one seat per team.

    Taken as teams only when they split the seats into two or more teams of one size: two seats that never won
    agree in every game too, and a seat that always loses is no team with another that always loses.
    """
    groups = {}
    for seat in range(wins.shape[1]):
        groups.setdefault(np.packbits(wins[:, seat]).tobytes(), []).append(seat)
    teams = tuple(tuple(g) for g in groups.values())
    if len(teams) >= 2 and len({len(t) for t in teams}) == 1:
        return tuple(sorted(teams))
    return tuple((seat,) for seat in range(wins.shape[1]))


def common_teams(*wins):
    """The teams (:func:`find_teams`) that every array of win flags (games, seats) shows alike, the unit of a
    fairness test; None when they are the seats themselves or the arrays show different teams."""
    teams = {find_teams(np.asarray(w, dtype=bool)) for w in wins}
    if len(teams) != 1:
        return None
    teams = teams.pop()
    return teams if len(teams[0]) > 1 else None


def _gap_test(wins, winners, teams, n_resamples, rng) -> tuple[float, float]:
    """The mean of the fair gap and the Monte Carlo p-value of the observed one.

    Points are counted in whole units of 1/L of a point (L: the least common multiple of the winner counts), so
    the observed and the drawn gaps compare exactly. A game nobody wins or everybody wins gives every seat the
    same and no gap; it is left out of both.
    """
    n_games, n_seats = wins.shape
    size = len(teams[0])
    winning_teams = winners // size
    uneven = (winning_teams > 0) & (winning_teams < len(teams))
    counts = np.bincount(winning_teams[uneven], minlength=len(teams))
    kinds = np.flatnonzero(counts)
    unit = math.lcm(*(int(m) * size for m in kinds))
    observed = np.where(uneven, unit // np.maximum(winners, 1), 0) @ wins
    null = np.zeros((n_resamples, n_seats), dtype=np.int64)
    for m in kinds:
        arrangements = _arrangements(teams, int(m), n_seats, unit)
        null += _uniform_multinomial(int(counts[m]), len(arrangements), n_resamples, rng) @ arrangements
    null_gap = null.max(axis=1) - null.min(axis=1)
    pvalue = (1 + np.count_nonzero(null_gap >= observed.max() - observed.min())) / (1 + n_resamples)
    return float(null_gap.mean() / (unit * n_games)), float(pvalue)


def _uniform_multinomial(n, cells, size, rng) -> np.ndarray:
    """``size`` draws of Multinomial(n, 1/cells each), as (size, cells): cell by cell, each a binomial of what
    the cells before left over (numpy's own method, but vectorised over the draws: several times faster than
    ``rng.multinomial(..., size=size)`` for the few cells here)."""
    out = np.empty((size, cells), dtype=np.int64)
    left = np.full(size, n, dtype=np.int64)
    for cell in range(cells - 1):
        out[:, cell] = rng.binomial(left, 1 / (cells - cell))
        left -= out[:, cell]
    out[:, -1] = left
    return out


@cache
def _arrangements(teams, m, n_seats, unit) -> np.ndarray:
    """Each way ``m`` of the ``teams`` can win a game, as the units of a point every seat takes from it."""
    share = unit // (m * len(teams[0]))
    rows = []
    for winners in combinations(teams, m):
        row = np.zeros(n_seats, dtype=np.int64)
        row[[seat for team in winners for seat in team]] = share
        rows.append(row)
    table = np.array(rows)
    table.flags.writeable = False    # shared by every call (cached)
    return table


def equal_shares_test(counts: np.ndarray) -> tuple[float, float]:
    """Chi-square goodness of fit of ``counts`` against equal expected counts; nan without any count.

    scipy.stats.chisquare's numbers, computed directly: its per-call overhead would be most of this function's.
    """
    if counts.sum() == 0:
        return np.nan, np.nan
    expected = counts.sum() / counts.size
    statistic = float(((counts - expected) ** 2).sum() / expected)
    return statistic, float(special.chdtrc(counts.size - 1, statistic))
