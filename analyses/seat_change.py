"""Did a rule change move the seats? The seat gap (balance) and the weakest seat of two variants compared.

Both are a maximum or a minimum over noisy seat shares: biased upward (the gap) or downward (the weakest seat),
the more so the more nearly the seats tie. A bootstrap of such a statistic misses its level (measured on fair
and on equally unfair 4-seat games of 300 games: 9% to 14% false differences at a nominal 5%), so these
comparisons use interval arithmetic on simultaneous intervals instead, the same bounds ``simcore tune`` races
with: each seat's share of each variant lies in its Wilson interval at 1 - alpha / (2 x seats) (Bonferroni over
the seats of both variants), so with probability at least 1 - alpha every share does at once, and then

* the gap max(share) - min(share) lies between max(low) - min(high) (at least 0) and the largest high - low of
  two different seats;
* the weakest seat's share min(share) lies between min(low) and min(high);

and the difference of the two variants' values between the differences of those bounds. The p-value is the
smallest alpha at which that interval leaves out 0, so that the p-value and the interval are one procedure:
p < 1 - confidence exactly when 0 is outside the interval. Conservative by construction (the error is at most
alpha whichever seat is weakest and however the seats tie); ``tests/test_calibration.py`` measures it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from analyses.intervals import wilson_bounds

METRICS = {"gap": "the seat gap", "weakest_seat": "the weakest seat's points"}


@dataclass(frozen=True)
class SeatChangeResult:
    """``metric`` of variant a minus that of b (``statistic``), its interval and p-value (module docstring);
    ``mean_a``/``mean_b`` are the two variants' values (the gap, or the weakest seat's mean points) and
    ``seat_a``/``seat_b`` their weakest seats."""

    metric: str
    statistic: float
    pvalue: float
    low: float
    high: float
    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    seat_a: int
    seat_b: int
    confidence: float


def seat_change(points_a, points_b, metric, confidence: float = 0.95) -> SeatChangeResult:
    """Compare ``metric`` ("gap" or "weakest_seat") of two variants from each seat's points per game
    (arrays (games, seats), ``analyses.scoring.points``). The variants need the same number of seats; their
    games need not be paired (a paired design gains nothing here: the bounds are per variant)."""
    points_a, points_b = np.asarray(points_a, float), np.asarray(points_b, float)
    if metric not in METRICS:
        raise ValueError(f"unknown seat metric {metric!r}; allowed: {', '.join(METRICS)}")
    if points_a.ndim != 2 or points_a.shape[1:] != points_b.shape[1:] or min(len(points_a), len(points_b)) == 0:
        raise ValueError(f"need points (games, seats) of the same seats, got {points_a.shape}, {points_b.shape}")
    sums = (points_a.sum(axis=0), points_b.sum(axis=0))
    ns = (len(points_a), len(points_b))
    value = gap_bounds if metric == "gap" else _weakest
    estimate = [value(s / n, s / n)[0] for s, n in zip(sums, ns, strict=True)]

    def interval(alpha):
        (low_a, high_a), (low_b, high_b) = (value(*_wilson(s, n, alpha / (2 * s.size)))
                                            for s, n in zip(sums, ns, strict=True))
        return low_a - high_b, high_a - low_b

    low, high = interval(1 - confidence)
    return SeatChangeResult(metric=metric, statistic=estimate[0] - estimate[1], pvalue=_pvalue(interval),
                            low=low, high=high, n_a=ns[0], n_b=ns[1], mean_a=estimate[0], mean_b=estimate[1],
                            seat_a=int(np.argmin(sums[0])), seat_b=int(np.argmin(sums[1])), confidence=confidence)


def gap_bounds(low, high):
    """Bounds of the gap max - min when each share lies in [low, high] (a point when low = high), vectorised
    over leading axes: at least 0 where the seats' intervals share a point; at most the largest high - low of
    two different seats (``simcore tune`` races with the same bounds)."""
    lower = np.maximum(0.0, low.max(axis=-1) - high.min(axis=-1))
    pairs = high[..., :, None] - low[..., None, :]
    return lower, np.where(np.eye(low.shape[-1], dtype=bool), -np.inf, pairs).max(axis=(-2, -1))


def _weakest(low, high):
    return low.min(), high.min()


def _wilson(k, n, alpha):
    """Wilson intervals of the proportions k / n (k may be fractional: summed points) at 1 - ``alpha``."""
    # not ndtri(1 - alpha / 2): 1 - alpha rounds to 1 for a tiny alpha
    return wilson_bounds(k, n, -special.ndtri(alpha / 2))


def _pvalue(interval, steps=50):
    """The smallest alpha whose interval leaves out 0, by bisection (the interval narrows as alpha grows); 1 when
    even alpha = 1 keeps 0 inside."""
    def excludes(alpha):
        low, high = interval(alpha)
        return low > 0 or high < 0

    if not excludes(1.0):
        return 1.0
    lo, hi = 1e-300, 1.0          # excludes(hi) always holds; excludes(lo) never, unless 0 is far out
    if excludes(lo):
        return 0.0
    for _ in range(steps):
        mid = np.sqrt(lo * hi)      # bisection in log alpha: p-values span many orders of magnitude
        lo, hi = (lo, mid) if excludes(mid) else (mid, hi)
    return float(hi)
