"""Wald's sequential probability ratio test (SPRT) on a win/loss outcome, as chess engine testing uses it.

Instead of fixing the number of games up front, keep playing and stop as soon as the evidence is strong
enough: the log-likelihood ratio (LLR) of "p = p1" against "p = p0" is updated with every game and the
test stops when it leaves ``(lower, upper)``, with ``lower = log(beta / (1 - alpha))`` and
``upper = log((1 - beta) / alpha)``. Wald's bounds keep the false-positive rate near ``alpha`` and the
false-negative rate (at p1) near ``beta``, usually a little below because the LLR overshoots the boundary.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from analyses.intervals import Interval, proportion_interval


class SPRT:
    """One-sided SPRT of H0: p = p0 against H1: p = p1 on a Bernoulli outcome (e.g. "seat 0 wins").

    Games are added in batches with ``update(successes, trials)``, as the simulator plays them. The decision is
    taken after each batch on the cumulative counts: the order of games inside a batch is not known and the
    LLR depends only on the counts, so batches are the unit of decision. Checking only at batch ends can miss
    a brief excursion past a boundary within a batch; larger batches thus mean slightly more games and
    slightly lower error rates than the game-by-game test. Once decided, the decision stays: further updates
    still add to the counts (and the estimate) but never change it.
    """

    def __init__(self, p0: float, p1: float, alpha: float = 0.05, beta: float = 0.05):
        self.p0, self.p1, self.alpha, self.beta = p0, p1, alpha, beta
        self._win, self._loss = _llr_steps(p0, p1)
        self.lower, self.upper = _boundaries(alpha, beta)
        self.successes = 0
        self.trials = 0
        self.decision: str | None = None

    @property
    def llr(self) -> float:
        """Log-likelihood ratio of H1 against H0 for all games so far."""
        return _llr(self.successes, self.trials, self._win, self._loss)

    @property
    def estimate(self) -> float:
        """Observed success rate so far (nan before the first game)."""
        return self.successes / self.trials if self.trials else math.nan

    def interval(self, confidence: float = 0.95) -> Interval:
        """Wilson interval for the success rate so far. Not adjusted for the sequential stopping."""
        return proportion_interval(self.successes, self.trials, confidence)

    def update(self, successes: int, trials: int) -> SPRT:
        """Add a batch of ``trials`` games with ``successes`` wins, then decide if still undecided."""
        if not 0 <= successes <= trials:
            raise ValueError(f"need 0 <= successes <= trials, got {successes}, {trials}")
        self.successes += int(successes)
        self.trials += int(trials)
        _decide(self)
        return self


class TwoSidedSPRT:
    """Has p moved away from p0 by ``delta`` in either direction? Two one-sided SPRTs on the same games.

    ``sprt_greater`` tests p0 against p0 + delta and ``sprt_less`` tests p0 against p0 - delta, each at level
    ``alpha / 2`` so that the overall false-positive rate stays near ``alpha``; ``beta`` is each side's
    false-negative rate at its alternative. ``decision`` is "greater" or "less" as soon as one side accepts its
    H1, "H0" (no difference of size delta) once both sides have accepted H0, and None before. Batches are the
    unit of decision, and once decided it stays decided, as with ``SPRT``.
    """

    def __init__(self, p0: float = 0.5, delta: float = 0.05, alpha: float = 0.05, beta: float = 0.05):
        if delta <= 0:
            raise ValueError(f"delta must be positive, got {delta}")
        self.sprt_greater = SPRT(p0, p0 + delta, alpha / 2, beta)
        self.sprt_less = SPRT(p0, p0 - delta, alpha / 2, beta)
        self.decision: str | None = None

    @property
    def successes(self) -> int:
        return self.sprt_greater.successes

    @property
    def trials(self) -> int:
        return self.sprt_greater.trials

    @property
    def estimate(self) -> float:
        return self.sprt_greater.estimate

    def interval(self, confidence: float = 0.95) -> Interval:
        """Wilson interval for the success rate so far. Not adjusted for the sequential stopping."""
        return self.sprt_greater.interval(confidence)

    def update(self, successes: int, trials: int) -> TwoSidedSPRT:
        """Add a batch to both one-sided tests, then decide if still undecided."""
        self.sprt_greater.update(successes, trials)
        self.sprt_less.update(successes, trials)
        if self.decision is None:
            sides = (self.sprt_greater.decision, self.sprt_less.decision)
            if sides[0] == "H1":
                self.decision = "greater"
            elif sides[1] == "H1":
                self.decision = "less"
            elif sides == ("H0", "H0"):
                self.decision = "H0"
        return self


class GSPRT:
    """Generalised SPRT of H0: mean = mu0 against H1: mean = mu1 for observations of unknown distribution: the
    chess-engine testers' test on game pairs (Fishtest's pentanomial GSPRT), generalised to any observation in a
    bounded range, such as a deal's mean score over its seatings.

    The LLR is the normal approximation of the generalised likelihood ratio (Van den Bergh, "A practical
    introduction to the GSPRT"): ``n / (2 var) * ((mean - mu0)^2 - (mean - mu1)^2)``, with the observations'
    mean and variance so far. The variance is estimated with the two hypotheses' means as two extra pseudo-
    observations: it stays above 0 when every deal so far ended alike (a strong player winning them all), where
    the plain estimate would make the LLR infinite after one deal. Observations come in batches of whole units
    (``update(values)``) and the test decides only after a batch, so the unit is never split; once decided, the
    decision stays. Wald's boundaries as in :class:`SPRT`.

    The normal approximation needs some observations: deciding on the first handful, with a noisy variance,
    a 4-player team game with delta 0.1 looked in batches of 2 deals called equals better 14.5% of the time
    (nominal 5%). So the test decides from ``min_n`` observations on (20: 1.5% there; measured in
    tests/test_calibration_sequential.py)."""

    def __init__(self, mu0: float, mu1: float, alpha: float = 0.05, beta: float = 0.05, min_n: int = 20):
        if mu0 == mu1:
            raise ValueError(f"need distinct mu0, mu1, got {mu0}, {mu1}")
        self.mu0, self.mu1, self.alpha, self.beta, self.min_n = mu0, mu1, alpha, beta, min_n
        self.lower, self.upper = _boundaries(alpha, beta)
        self.n = 0
        self.total = 0.0
        self.squares = 0.0
        self.looks: list[int] = []      # the observations at each look, for the test at the cap
        self.decision: str | None = None

    @property
    def mean(self) -> float:
        """The mean of the observations so far (nan before the first)."""
        return self.total / self.n if self.n else math.nan

    @property
    def variance(self) -> float:
        """The observations' variance with mu0 and mu1 as two pseudo-observations (class docstring)."""
        mean = self.mean
        spread = self.squares - self.n * mean * mean + (self.mu0 - mean) ** 2 + (self.mu1 - mean) ** 2
        return max(spread, 0.0) / (self.n + 2)

    @property
    def llr(self) -> float:
        """Log-likelihood ratio of H1 against H0 for all observations so far (0 before the first)."""
        if not self.n:
            return 0.0
        mean = self.mean
        return self.n * ((mean - self.mu0) ** 2 - (mean - self.mu1) ** 2) / (2 * self.variance)

    def update(self, values) -> GSPRT:
        """Add a batch of observations (whole units: deals, game pairs), then decide if still undecided."""
        x = np.asarray(values, dtype=float)
        self.n += x.size
        self.total += float(x.sum())
        self.squares += float((x * x).sum())
        self.looks.append(self.n)
        if self.n >= max(self.min_n, 1):
            _decide(self)
        return self

    def at_cap(self) -> CapResult:
        """The budget ran out with the test undecided: decide by the one-sided test of all observations at the
        error the SPRT left unspent, so that the truncated test as a whole keeps its false-positive rate alpha.

        Its p-value orders the outcomes stagewise, as a group-sequential design does (Jennison and Turnbull,
        "Group sequential methods", 8.4): the chance under H0 that the SPRT had accepted H1 at an earlier look
        (``spent``), plus the chance that it had not stopped at any earlier look and ends with a statistic at
        least the one observed. Both come from the normal approximation the LLR rests on, with the variance of
        every observation so far, allowing for its estimation (:func:`stagewise_pvalue`). H1 when p < alpha.
        On 2-player deals at 200 deals a rung, looking every 50, the SPRT alone was undecided 58% of the time;
        with this test at the cap the truncated test keeps 5% (0.052 over 10,000 runs) and finds fair + delta
        more often than the fixed t test on the same deals (``tests/test_calibration_ladder.py``)."""
        if self.decision is not None or not self.looks:
            raise ValueError(f"at_cap needs an undecided test with observations; it is {self.decision or 'empty'}")
        sd = math.sqrt(self.variance)
        sign = math.copysign(1.0, self.mu1 - self.mu0)
        spent, pvalue = stagewise_pvalue(self.looks, self.lower, self.upper, abs(self.mu1 - self.mu0) / sd,
                                         sign * (self.total - self.n * self.mu0) / sd, self.min_n)
        return CapResult(n=self.n, statistic=sign * (self.mean - self.mu0) * math.sqrt(self.n) / sd,
                         pvalue=pvalue, spent=spent, alpha=self.alpha)


@dataclass(frozen=True)
class CapResult:
    """The truncated GSPRT's test at the cap (:meth:`GSPRT.at_cap`), in the manner of scipy.stats results:
    ``statistic`` is z of the ``n`` observations' mean against mu0 (towards mu1), ``pvalue`` the stagewise
    p-value, ``spent`` the error the SPRT spent at its earlier looks, ``rejected`` whether H1 is accepted."""

    n: int
    statistic: float
    pvalue: float
    spent: float
    alpha: float

    @property
    def rejected(self) -> bool:
        return self.pvalue < self.alpha


GRID_POINTS = 1501       # at most this many points per look in stagewise_pvalue (about 18 MB for its kernel)


def stagewise_pvalue(looks, lower: float, upper: float, d: float, w: float, min_n: int = 1,
                     estimated: bool = True) -> tuple[float, float]:
    """(spent, p) of a GSPRT stopped undecided at its last look, under H0 and the LLR's normal approximation.

    ``looks`` are the observations at each look (increasing, the last the cap); ``d`` the standardised distance
    |mu1 - mu0| / sd and ``w`` the observed standardised sum towards mu1, (sum - n mu0) / sd. Under H0 the
    standardised sum W_k after n_k observations is a random walk with N(0, 1) steps, and the LLR at a look is
    d W_k - n_k d^2 / 2, so the SPRT goes on while (lower + n_k d^2/2) / d < W_k < (upper + n_k d^2/2) / d at
    each look from ``min_n`` observations on. ``spent`` is the chance that W left that band upwards at a look
    before the last, ``p`` that plus the chance that it stayed inside at every such look and ends at W >= w.
    The density of W inside the band is carried from look to look on a grid (Simpson's rule over a normal
    kernel), the recursion of Armitage, McPherson and Rowe (1969). With the variance ``estimated`` (as the GSPRT
    does), each edge is the one of known variance crossed as often as the GSPRT's random edge (:func:`_edge`)
    and ``w`` is taken as a t: without it, the test's early looks cross more often than the model says (normal
    data, 4,000 runs, looks every 50 of 200: 0.013 against 0.007), and the level was 0.055 (with it 0.051)."""
    from scipy.special import ndtr

    looks = [n for n in looks[:-1] if n >= min_n] + [looks[-1]]
    spent, grid, mass, at = 0.0, np.zeros(1), np.ones(1), 0      # before the first look: W = 0 for sure
    for n, following in zip(looks[:-1], looks[1:], strict=True):
        scale = math.sqrt(n - at)
        low, high = (_edge(bound, n, d, estimated) for bound in (lower, upper))
        spent += float(mass @ ndtr((grid - high) / scale))
        # inside the band, where W can be at all (7 sd of its unconditional spread), finer than either step
        inside, weights = _simpson(max(low, -7 * math.sqrt(n)), min(high, 7 * math.sqrt(n)),
                                   min(scale, math.sqrt(following - n)) / 8)
        kernel = np.exp(-0.5 * ((inside[None, :] - grid[:, None]) / scale) ** 2) / (scale * math.sqrt(2 * math.pi))
        grid, mass, at = inside, weights * (mass @ kernel), n
    return spent, spent + float(mass @ ndtr((grid - _as_normal(w, looks[-1], estimated)) / math.sqrt(looks[-1] - at)))


def _edge(bound: float, n: int, d: float, estimated: bool) -> float:
    """Where W crosses the LLR's ``bound`` at a look after ``n`` observations: (bound + n d^2/2) / d with the
    variance known. With it estimated, the LLR divides by the estimate r sigma^2 (r about chi-square_{n-1} / (n - 1)
    with the two pseudo-observations), so the edge (bound r + n d^2/2) / d is random and crossed more often than
    at r = 1 (the crossing chance is convex in it): the edge of known variance crossed with the same chance."""
    if not estimated or n < 2:
        return (bound + n * d * d / 2) / d
    from scipy.special import ndtr, ndtri

    r = (_chi2_quantiles(n - 1) + d * d) / (n + 2)
    side = math.copysign(1.0, bound)        # the upper edge is crossed upwards, the lower downwards
    chance = ndtr(-side * (bound * r + n * d * d / 2) / d / math.sqrt(n)).mean()
    return -side * float(ndtri(chance)) * math.sqrt(n)


@functools.lru_cache(maxsize=4096)
def _chi2_quantiles(df: int) -> np.ndarray:
    """64 quantiles of chi-square on ``df`` degrees of freedom, equally likely (a ladder asks for the same few)."""
    from scipy.special import chdtri

    return chdtri(df, (np.arange(64) + 0.5) / 64)


def _as_normal(w: float, n: int, estimated: bool) -> float:
    """The standardised sum ``w`` after ``n`` observations, as the sum of known variance with the same tail:
    with the variance estimated, its z = w / sqrt(n) is a t on n - 1 degrees of freedom."""
    if not estimated or n < 2 or not math.isfinite(w):
        return w
    from scipy.special import ndtri, stdtr

    return float(ndtri(stdtr(n - 1, w / math.sqrt(n)))) * math.sqrt(n)


def _simpson(low: float, high: float, spacing: float) -> tuple[np.ndarray, np.ndarray]:
    """Points on [low, high] no further apart than ``spacing`` (at most GRID_POINTS) and Simpson's weights."""
    if high <= low:
        return np.array([low]), np.zeros(1)
    intervals = min(GRID_POINTS - 1, 2 * math.ceil((high - low) / spacing / 2))
    points = np.linspace(low, high, intervals + 1)
    weights = np.full(intervals + 1, 2.0)
    weights[1::2] = 4.0
    weights[[0, -1]] = 1.0
    return points, weights * (high - low) / intervals / 3


def _decide(test) -> None:
    """Accept H1 or H0 once the test's LLR crosses a Wald boundary; a decided test stays decided."""
    if test.decision is None:
        llr = test.llr
        if llr >= test.upper:
            test.decision = "H1"
        elif llr <= test.lower:
            test.decision = "H0"


def sprt_first_crossing(samples, p0: float, p1: float, alpha: float = 0.05, beta: float = 0.05):
    """Run the game-by-game SPRT on each row of a (runs, steps) array of 0/1 outcomes at once.

    Returns ``(decision, step)``, two int arrays of length runs: ``decision`` is +1 (H1), -1 (H0) or 0 (no
    boundary crossed within the row), and ``step`` the number of samples consumed when the LLR first crossed a
    boundary (0 if undecided). This is the same test as ``SPRT.update`` called with one game at a time, and
    lets tests measure error rates over thousands of synthetic runs quickly.
    """
    x = np.asarray(samples, dtype=bool)
    if x.ndim != 2:
        raise ValueError(f"need a (runs, steps) array, got shape {x.shape}")
    win, loss = _llr_steps(p0, p1)
    lower, upper = _boundaries(alpha, beta)
    # The LLR from cumulative counts with the same formula as SPRT.llr, so both agree to the last bit.
    llr = _llr(np.cumsum(x, axis=1), np.arange(1, x.shape[1] + 1), win, loss)
    crossed = (llr >= upper) | (llr <= lower)
    decided = crossed.any(axis=1)
    first = crossed.argmax(axis=1)
    at_first = llr[np.arange(x.shape[0]), first]
    decision = np.where(decided, np.where(at_first >= upper, 1, -1), 0)
    step = np.where(decided, first + 1, 0)
    return decision, step


def _llr(successes, trials, win: float, loss: float):
    return successes * win + (trials - successes) * loss


def _llr_steps(p0: float, p1: float) -> tuple[float, float]:
    """LLR increments of one success and of one failure."""
    if not (0 < p0 < 1 and 0 < p1 < 1) or p0 == p1:
        raise ValueError(f"need distinct p0, p1 in (0, 1), got {p0}, {p1}")
    return math.log(p1 / p0), math.log((1 - p1) / (1 - p0))


def _boundaries(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping boundaries (lower, upper) of the LLR."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError(f"need alpha, beta in (0, 1) with alpha + beta < 1, got {alpha}, {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
