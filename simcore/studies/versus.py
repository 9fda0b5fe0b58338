"""One policy against another on the same deals, every seat taken in turn.

Policy A sits in seat s and policy B in every other seat; each deal (game index) is played once for every s,
as chess engine testing pairs its openings, so the luck of the deal and of the seat cancels. A's score in a
game is its points (``analyses.scoring.points``): 1 for a win, 1/k for a k-way shared win, 0 for a loss, and
1/players when nobody wins (a timeout, a draw), as chess scores a draw 1/2. The mean over all games is A's
score; a contest of equals gives 1/players. The interval and the test treat each deal's mean as one
observation (the seatings of a deal are not independent).
"""

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from analyses.scoring import RULE, points
from simcore import engine
from simcore.io import config as cfg
from simcore.io import writing
from simcore.studies import runs as plays
from simcore.studies import sweep
from simcore.studies.executors import Pace

SCORING = f"scoring: {RULE}"
ALPHA = 0.05           # the two-sided level of the test, and 1 - the interval's confidence
SAME = 1e-9            # deal means closer than this are the same (points are multiples of 1/k, not that close)


@dataclass(frozen=True)
class VersusResult:
    """A's score against B, in the manner of scipy.stats results."""

    policy: str
    against: str
    players: int
    deals: int
    games: int
    score: float                 # A's mean points over all games
    low: float                   # 95% interval of the score (see ``method``)
    high: float
    fair: float                  # 1 / players
    pvalue: float                # two-sided, H0: score = fair
    seat_scores: tuple           # A's mean points from each seat
    method: str = "t"            # "t": t test over the deal means; "exact": every deal scored the same

    @property
    def significant(self):
        return self.pvalue < ALPHA

    @property
    def test(self):
        """The test and the error it controls, in one line."""
        if self.method == "t":
            return (f"test: t test over the {self.deals:,} deals' mean scores against fair, two-sided "
                    f"{ALPHA:.0%} (the chance to call equals stronger or weaker)")
        return (f"test: every deal scored the same, so exact binomial over the {self.deals:,} deals' mean "
                f"scores (Clopper-Pearson interval), two-sided {ALPHA:.0%} (the chance to call equals stronger "
                "or weaker)")


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
    if isinstance(games, int) and not isinstance(games, bool) and games < 2:
        # one deal has no spread over deals to test against; cfg.resolve words the other bad values
        raise cfg.ConfigError(f"--games {games} is not allowed; allowed: 2 or more deals")
    players = cfg.resolve(game, table, sets=list(sets)).players
    return [cfg.resolve(game, table, sets=list(sets), policies=[("all", against), (str(seat), policy)],
                        games=games, seed=seed, variant=f"seat{seat}") for seat in range(players)]


def a_returns(run, rows, seat):
    """A's points in each game of ``rows`` when it sits in ``seat``."""
    return seat_returns(rows[:, engine.O_WIN:engine.O_WIN + run.players], seat)


def table_returns(table, players, seat):
    """A's points in each game of a result table (Parquet) when it sits in ``seat``."""
    return seat_returns(np.column_stack([table[f"win_{i}"].to_numpy(zero_copy_only=False)
                                         for i in range(players)]), seat)


def seat_returns(wins, seat):
    """``seat``'s points per game from the (games, players) win flags (``analyses.scoring.points``)."""
    return points(wins)[:, seat]


def contest(runs, on_seat=None, folder=None, trace=False, warn=None):
    """Play every seating of ``runs`` (from :func:`seatings`) and return the :class:`VersusResult`. ``folder``:
    also write each seating's games there as ``seat<s>.parquet`` (``trace``: with its trace), as a sweep writes
    its variants (:func:`to_folder`). ``warn(line)`` hears early, once, how long the contest will take when that
    is long (:class:`~simcore.studies.executors.Pace`)."""
    if folder is not None:
        return to_folder(runs, folder, on_seat, trace, warn)
    pace = Pace(sum(run.games for run in runs), warn, "Ctrl-C stops it and keeps nothing (with --out FOLDER it "
                                                      "keeps every seating finished)")
    scores = []
    for seat, run in enumerate(runs):
        scores.append(np.concatenate([a_returns(run, rows, seat) for _, rows in plays.blocks(run, pace.add)]))
        if on_seat:
            on_seat(seat, float(scores[-1].mean()))
    return score(runs, scores)


def as_sweep(runs, folder):
    """The seatings as the variants of a sweep (``seat0``, ``seat1``, ...)."""
    variants = [sweep.Variant(run.variant, {"seat": seat}, run) for seat, run in enumerate(runs)]
    return sweep.Sweep(Path(folder), runs[0].game, variants)


def to_folder(runs, folder, on_seat=None, trace=False, warn=None):
    """:func:`contest` into ``folder``: a folder of the kind "versus" (checked, locked, with its manifest), so
    that it is never taken for a sweep's, never written by two runs at once, and an interrupted contest resumes
    with the seatings it finished."""
    scores = [None] * len(runs)
    pace = Pace(sum(run.games for run in runs), warn, f"Ctrl-C keeps every seating finished in {folder}, and the "
                                                      "same command goes on from them")

    def finished(variant, status, tally):
        if status == "skipped":     # finished before: not played now
            pace.skip(variant.config.games)
        seat = variant.overrides["seat"]
        table = pq.read_table(writing.local(Path(folder) / variant.file))
        scores[seat] = table_returns(table, runs[seat].players, seat)
        if on_seat:
            on_seat(seat, float(scores[seat].mean()))

    sweep.run(as_sweep(runs, folder), folder, pace.add, on_variant=finished, kind="versus", trace=trace)
    return score(runs, scores)


def score(runs, scores):
    """The :class:`VersusResult` of A's points ``scores[seat]`` (one array per seating, game by game).

    The deals are independent and a deal's seatings are not, so a deal's mean score is one observation. The
    test is the one-sample t test of H0: E[deal mean] = 1/players over the deals, two-sided at 5%, with its 95%
    t interval (they agree: p < 0.05 exactly when fair is outside it); it controls the chance to call two
    equals stronger or weaker at 5% (tests/test_calibration.py measures it from 20 deals on). When every deal
    scored the same the t test has no spread to work with; the sum of the deal means is then taken as a
    binomial count out of the deals (conservative for means in [0, 1], whose variance is at most that of a win
    flag): the Clopper-Pearson interval, and the exact test it inverts, twice the smaller binomial tail.
    Fewer than 2 deals: ValueError.
    """
    from analyses.paired import t_test

    per_deal = np.mean(scores, axis=0)
    deals, players = per_deal.size, len(runs)
    if deals < 2:
        raise ValueError(f"a contest of {deals} deals is not allowed; allowed: 2 or more deals (one deal has no "
                         "spread to test)")
    fair = 1 / players
    # a spread of rounding errors only (1/3 + 1/3 + 1/3 is not always 1) is no spread: the t test would divide
    # rounding by rounding
    if per_deal.max() - per_deal.min() < SAME:
        method, (low, high, pvalue) = "exact", _exact(float(per_deal.sum()), deals, fair)
    else:
        se = math.sqrt(per_deal.var(ddof=1) / deals)
        pvalue, low, high = t_test(per_deal.mean(), se, deals - 1, null=fair, confidence=1 - ALPHA)
        method, low, high = "t", max(0.0, low), min(1.0, high)
    return VersusResult(policy=runs[0].policies[0], against=runs[0].policies[1], players=players, deals=deals,
                        games=deals * players, score=float(per_deal.mean()), low=float(low), high=float(high),
                        fair=fair, pvalue=float(pvalue), seat_scores=tuple(float(s.mean()) for s in scores),
                        method=method)


def _exact(k, n, fair):
    """Clopper-Pearson bounds and the two-sided exact binomial p-value against ``fair`` for ``k`` (possibly
    fractional) successes in ``n`` trials, both from the beta form of the binomial tails: P(X >= k) =
    I_fair(k, n - k + 1), P(X <= k) = 1 - I_fair(k + 1, n - k)."""
    from scipy import stats

    tail = ALPHA / 2
    low = 0.0 if k == 0 else stats.beta.ppf(tail, k, n - k + 1)
    high = 1.0 if k == n else stats.beta.ppf(1 - tail, k + 1, n - k)
    at_least = 1.0 if k == 0 else stats.beta.cdf(fair, k, n - k + 1)
    at_most = 1.0 if k == n else stats.beta.sf(fair, k + 1, n - k)
    return low, high, min(1.0, 2 * min(at_least, at_most))
