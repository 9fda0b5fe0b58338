"""One policy against another on the same deals, every seat taken in turn.

Policy A sits in seat s and policy B in every other seat; each deal (game index) is played once for every s,
as chess engine testing pairs its openings, so the luck of the deal and of the seat cancels. A's score in a
game is its return: 1 for a win, 1/k for a k-way shared win, 0 for a loss or a timeout. The mean over all
games is A's score; a fair contest gives 1/players. The interval and the test treat each deal's mean as one
observation (the seatings of a deal are not independent).
"""

import math
from dataclasses import dataclass

import numpy as np

from simcore import config as cfg
from simcore import engine


@dataclass(frozen=True)
class VersusResult:
    """A's score against B, in the manner of scipy.stats results."""

    policy: str
    against: str
    players: int
    deals: int
    games: int
    score: float                 # A's mean return over all games
    low: float                   # 95% interval of the score (t interval over deal means)
    high: float
    fair: float                  # 1 / players
    pvalue: float                # two-sided, H0: score = fair
    seat_scores: tuple           # A's mean return from each seat

    @property
    def significant(self):
        return self.pvalue < 0.05


DEALS = 1000           # deals of a contest unless --games or the config says otherwise


def seatings(game, policy, against, sets=(), games=None, seed=None, table=None):
    """The runs of a contest: one per seat of A (validated configs, one-line ConfigError on bad input).
    ``table`` is a config file's table (its game, parameters, games and seed); the contest sets every seat's
    policy itself, so the table may not."""
    table = dict(table or {})
    if "policies" in table:
        raise cfg.ConfigError("the config sets [policies], but a contest seats A (--policy) and B (--against) "
                              "itself; allowed: a config without [policies]")
    games = table.get("games", DEALS) if games is None else games
    players = cfg.resolve(game, table, sets=list(sets)).players
    return [cfg.resolve(game, table, sets=list(sets), policies=[("all", against), (str(seat), policy)],
                        games=games, seed=seed, variant=f"seat{seat}") for seat in range(players)]


def a_returns(run, rows, seat):
    """A's return in each game of ``rows`` when it sits in ``seat``."""
    return seat_returns(rows[:, engine.O_WIN:engine.O_WIN + run.players], seat)


def table_returns(table, players, seat):
    """A's return in each game of a result table (Parquet) when it sits in ``seat``."""
    return seat_returns(np.column_stack([table[f"win_{i}"].to_numpy(zero_copy_only=False)
                                         for i in range(players)]), seat)


def seat_returns(wins, seat):
    """``seat``'s return per game from the (games, players) win flags: 1/k of a k-way win, else 0."""
    wins = wins.astype(np.float64)
    winners = wins.sum(axis=1)
    return np.where(winners > 0, wins[:, seat] / np.maximum(winners, 1), 0.0)


def contest(runs, on_seat=None):
    """Play every seating of ``runs`` (from :func:`seatings`) and return the :class:`VersusResult`."""
    scores = []
    for seat, run in enumerate(runs):
        rows = engine.run(run.module, run.params_array(), run.policies_array(), run.seed, run.games)
        scores.append(a_returns(run, rows, seat))
        if on_seat:
            on_seat(seat, float(scores[-1].mean()))
    return score(runs, scores)


def score(runs, scores):
    """The :class:`VersusResult` of A's returns ``scores[seat]`` (one array per seating, game by game)."""
    from scipy import stats

    per_deal = np.mean(scores, axis=0)
    deals, players = per_deal.size, len(runs)
    mean = float(per_deal.mean())
    fair = 1 / players
    sd = float(per_deal.std(ddof=1)) if deals > 1 else 0.0
    half = float(stats.t.ppf(0.975, deals - 1)) * sd / math.sqrt(deals) if deals > 1 and sd > 0 else 0.0
    if deals > 1 and sd > 0:
        pvalue = float(2 * stats.t.sf(abs(mean - fair) / (sd / math.sqrt(deals)), deals - 1))
    else:
        pvalue = 0.0 if mean != fair else 1.0
    return VersusResult(policy=runs[0].policies[0], against=runs[0].policies[1], players=players, deals=deals,
                        games=deals * players, score=mean, low=max(0.0, mean - half), high=min(1.0, mean + half),
                        fair=fair, pvalue=pvalue, seat_scores=tuple(float(s.mean()) for s in scores))
