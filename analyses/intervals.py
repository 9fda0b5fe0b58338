"""Confidence intervals for a single binomial proportion."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

METHODS = ("wilson", "clopper-pearson")


@dataclass(frozen=True)
class Interval:
    """A two-sided confidence interval ``[low, high]``."""

    low: float
    high: float


def proportion_interval(k: float, n: int, confidence: float = 0.95, method: str = "wilson") -> Interval:
    """Confidence interval for a proportion after ``k`` successes in ``n`` trials.

    ``method="wilson"`` is the Wilson score interval: close to nominal coverage and sensible at k = 0 or k = n,
    so it is the default for win rates. ``method="clopper-pearson"`` is the exact (conservative) interval from
    beta quantiles, for when a guaranteed coverage of at least ``confidence`` matters more than width.
    With no trials nothing is known, so the interval is the whole range [0, 1].

    ``k`` may be fractional: the sum of ``n`` values in [0, 1] (a seat's points, a deal's mean score). Such a
    value has at most the variance p(1 - p) of a win flag with the same mean, so the binomial interval of its
    sum covers the mean at least about as often as it covers a proportion (conservative).
    """
    _check_confidence(confidence)
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {METHODS}")
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return Interval(0.0, 1.0)
    if method == "wilson":
        return _wilson(k, n, NormalDist().inv_cdf(0.5 + confidence / 2))
    return _clopper_pearson(k, n, confidence)


def _wilson(k: float, n: int, z: float) -> Interval:
    low, high = wilson_bounds(k, n, z)
    return Interval(float(low), float(high))


def wilson_bounds(k, n, z):
    """Wilson's bounds of the proportions ``k / n`` at normal quantile ``z``; numbers or numpy arrays alike
    (``analyses.seat_change`` takes every seat's at once)."""
    p = k / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * np.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    # Clip: at k = 0 or k = n the bound is exactly 0 or 1, but rounding can land a hair outside.
    return np.maximum(0.0, centre - half), np.minimum(1.0, centre + half)


def _clopper_pearson(k: float, n: int, confidence: float) -> Interval:
    from scipy import stats  # the only scipy use here: `simcore run` prints Wilson intervals without it

    tail = (1 - confidence) / 2
    low = 0.0 if k == 0 else float(stats.beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1 - tail, k + 1, n - k))
    return Interval(low, high)


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
