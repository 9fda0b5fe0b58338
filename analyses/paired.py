"""Comparing two rule variants, game by game.

Two variants run with the same seed play the same deals at the same ``game_index`` (common random numbers),
so their outcomes are paired: the deal's luck cancels in the per-game difference, and paired tests and
intervals are much tighter than unpaired ones. Use ``paired_*`` for such runs (arrays aligned on
``game_index``) and ``unpaired_*`` only for runs that do not share seeds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from analyses.intervals import proportion_interval

# Cochran's rule: the normal approximation of the two-proportion test needs expected counts of at least 5.
_MIN_EXPECTED = 5


@dataclass(frozen=True)
class PairedBinaryResult:
    """Difference of two paired proportions, mean(a) - mean(b), with McNemar's exact test."""

    statistic: float
    pvalue: float
    low: float
    high: float
    n: int
    n10: int
    n01: int
    mean_a: float
    mean_b: float
    confidence: float


@dataclass(frozen=True)
class PairedNumericResult:
    """Mean of paired differences, mean(a - b), with the paired t test and its interval."""

    statistic: float
    pvalue: float
    low: float
    high: float
    n: int
    mean_a: float
    mean_b: float
    confidence: float


@dataclass(frozen=True)
class UnpairedBinaryResult:
    """Difference of two independent proportions, mean(a) - mean(b)."""

    statistic: float
    pvalue: float
    low: float
    high: float
    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    confidence: float


@dataclass(frozen=True)
class UnpairedNumericResult:
    """Difference of two independent means, mean(a) - mean(b), with Welch's t test and its interval."""

    statistic: float
    pvalue: float
    low: float
    high: float
    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    confidence: float


def paired_binary(a, b, confidence: float = 0.95) -> PairedBinaryResult:
    """Compare a yes/no outcome (e.g. "seat 0 wins") of the same games under variants a and b.

    ``statistic`` is mean(a) - mean(b). Only discordant games carry information about the difference, so
    ``pvalue`` is McNemar's exact test: a two-sided binomial test of n10 (a only) out of n10 + n01 (a only or
    b only) against 1/2; 1.0 if there are no discordant games. ``low``/``high`` is Newcombe's (1998) hybrid
    score interval for paired proportions ("method 10"): Wilson intervals for both proportions, combined with
    the correlation of the pairs (phi, with Newcombe's continuity correction of its numerator). Unlike the
    Wald interval it stays sensible when discordant games are few.
    """
    a, b = _paired(np.asarray(a, dtype=bool), np.asarray(b, dtype=bool))
    n11, n10, n01 = int((a & b).sum()), int((a & ~b).sum()), int((~a & b).sum())
    n = a.size
    discordant = n10 + n01
    pvalue = float(stats.binomtest(n10, discordant, 0.5).pvalue) if discordant else 1.0
    low, high = _newcombe_paired(n11, n10, n01, n - n11 - n10 - n01, confidence)
    return PairedBinaryResult(
        statistic=(n10 - n01) / n,
        pvalue=pvalue,
        low=low,
        high=high,
        n=n,
        n10=n10,
        n01=n01,
        mean_a=(n11 + n10) / n,
        mean_b=(n11 + n01) / n,
        confidence=confidence,
    )


def paired_numeric(a, b, confidence: float = 0.95) -> PairedNumericResult:
    """Compare a numeric outcome (e.g. a seat's points or ``n_turns``) of the same games under variants a and b.

    ``statistic`` is mean(a - b). ``pvalue`` is the two-sided paired t test of H0: E[a - b] = 0 and
    ``low``/``high`` its ``confidence`` interval, so the two always agree: p < 1 - confidence exactly when 0
    is outside the interval. Both are about the mean difference, the effect a designer reads; a rank test
    (Wilcoxon) would test another hypothesis and reject a zero mean difference when the differences are
    skewed. It controls the false-positive rate (calling a zero mean difference non-zero) at 1 - confidence
    by the central limit theorem, for skewed game statistics too from about 100 games on; with 20 strongly
    skewed differences it is liberal, about 8% at nominal 5% (tests/test_calibration.py). If every
    difference is 0, ``pvalue`` is 1 and the interval [0, 0]; a difference that is the same non-zero number
    in every game has no spread, and the t test's limit, p = 0 and the interval [d, d], is returned.
    """
    a, b = _paired(_numeric(a), _numeric(b))
    d = a - b
    variance = d.var(ddof=1) if d.size > 1 else np.nan
    pvalue, low, high = t_test(d.mean(), math.sqrt(variance / d.size), d.size - 1, confidence=confidence) \
        if d.any() else (1.0, 0.0, 0.0)
    return PairedNumericResult(
        statistic=float(d.mean()),
        pvalue=pvalue,
        low=low,
        high=high,
        n=int(d.size),
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        confidence=confidence,
    )


def unpaired_binary(a, b, confidence: float = 0.95) -> UnpairedBinaryResult:
    """Compare a yes/no outcome between two independent runs (no shared seeds).

    ``statistic`` is mean(a) - mean(b); ``low``/``high`` is Newcombe's (1998) hybrid score interval for
    independent proportions (square-and-add of the two Wilson intervals). ``pvalue`` is the pooled
    two-proportion z-test (= Pearson's chi-square without continuity correction) when every expected count of
    the 2x2 table is at least 5, and Fisher's exact test otherwise, where the normal approximation is poor.
    """
    a, b = _sample(np.asarray(a, dtype=bool)), _sample(np.asarray(b, dtype=bool))
    k_a, k_b, n_a, n_b = int(a.sum()), int(b.sum()), a.size, b.size
    ci_a = proportion_interval(k_a, n_a, confidence)
    ci_b = proportion_interval(k_b, n_b, confidence)
    p_a, p_b = k_a / n_a, k_b / n_b
    return UnpairedBinaryResult(
        statistic=p_a - p_b,
        pvalue=_two_proportion_pvalue(k_a, n_a, k_b, n_b),
        low=p_a - p_b - math.hypot(p_a - ci_a.low, ci_b.high - p_b),
        high=p_a - p_b + math.hypot(ci_a.high - p_a, p_b - ci_b.low),
        n_a=n_a,
        n_b=n_b,
        mean_a=p_a,
        mean_b=p_b,
        confidence=confidence,
    )


def unpaired_numeric(a, b, confidence: float = 0.95) -> UnpairedNumericResult:
    """Compare a numeric outcome between two independent runs (no shared seeds).

    ``statistic`` is mean(a) - mean(b). ``pvalue`` is Welch's two-sided t test of H0: E[a] = E[b] and
    ``low``/``high`` its ``confidence`` interval (no equal-variance assumption: rule variants change the
    spread of game length as well as its mean), so the two always agree. Both are about the difference of the
    means; a rank test (Mann-Whitney) would test another hypothesis and reject equal means of differently
    skewed samples. It controls the false-positive rate at 1 - confidence as the paired test does (measured:
    5% from 100 games a run on, 6.5% at 20 skewed games). If both runs hold one and the same value in every
    game, ``pvalue`` is 1 and the interval
    [0, 0]; two different constants give the t test's limit, p = 0 and the interval [d, d].
    """
    a, b = _sample(_numeric(a)), _sample(_numeric(b))
    pvalue, low, high = t_test(a.mean() - b.mean(), *_welch(a, b), confidence=confidence)
    return UnpairedNumericResult(
        statistic=float(a.mean() - b.mean()),
        pvalue=pvalue,
        low=low,
        high=high,
        n_a=int(a.size),
        n_b=int(b.size),
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        confidence=confidence,
    )


def holm(pvalues) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values, in the input order.

    For a designer comparing many variants or seats at once: rejecting where the adjusted p-value is below
    alpha controls the family-wise error rate at alpha. The i-th smallest p-value is multiplied by (m - i),
    made non-decreasing in that order (a smaller p-value never gets a larger adjustment) and capped at 1.
    """
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    return adjusted


def _newcombe_paired(n11: int, n10: int, n01: int, n00: int, confidence: float) -> tuple[float, float]:
    """Newcombe's hybrid score interval for p_a - p_b from the paired 2x2 table (Newcombe 1998, method 10)."""
    n = n11 + n10 + n01 + n00
    p_a, p_b = (n11 + n10) / n, (n11 + n01) / n
    ci_a = proportion_interval(n11 + n10, n, confidence)
    ci_b = proportion_interval(n11 + n01, n, confidence)
    phi = _corrected_phi(n11, n10, n01, n00)
    below_a, above_a = p_a - ci_a.low, ci_a.high - p_a
    below_b, above_b = p_b - ci_b.low, ci_b.high - p_b
    low = p_a - p_b - math.sqrt(below_a**2 - 2 * phi * below_a * above_b + above_b**2)
    high = p_a - p_b + math.sqrt(above_a**2 - 2 * phi * above_a * below_b + below_b**2)
    return low, high


def _corrected_phi(n11: int, n10: int, n01: int, n00: int) -> float:
    """Phi correlation of the pairs, its numerator shrunk towards 0 by n/2 when positive (Newcombe's correction).

    Python ints throughout: the product of the four margins overflows int64 for a million games.
    """
    margins = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    if margins == 0:
        return 0.0
    half_n = (n11 + n10 + n01 + n00) / 2
    cross = n11 * n00 - n10 * n01
    if 0 <= cross <= half_n:
        cross = 0
    elif cross > half_n:
        cross -= half_n
    return cross / math.sqrt(margins)


def _two_proportion_pvalue(k_a: int, n_a: int, k_b: int, n_b: int) -> float:
    table = np.array([[k_a, n_a - k_a], [k_b, n_b - k_b]])
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    if expected.min() < _MIN_EXPECTED:
        return float(stats.fisher_exact(table).pvalue)
    pooled = (k_a + k_b) / (n_a + n_b)
    z = (k_a / n_a - k_b / n_b) / math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    return float(2 * stats.norm.sf(abs(z)))


def t_test(estimate: float, se: float, df: float, null: float = 0.0,
           confidence: float = 0.95) -> tuple[float, float, float]:
    """The two-sided t test of H0: mean = ``null`` for an ``estimate`` with standard error ``se`` on ``df``
    degrees of freedom, and the ``confidence`` interval it inverts: (pvalue, low, high).

    One computation gives both, so p < 1 - confidence exactly when ``null`` is outside the interval. Without
    spread (``se`` = 0) it is the test's limit: p = 1 if the estimate is ``null``, else 0, and the interval
    [estimate, estimate]. scipy.special's t distribution, not scipy.stats': the same numbers, without the
    per-call overhead that would dominate the calibration tests' thousands of calls.
    """
    if se == 0:
        return (1.0 if estimate == null else 0.0), float(estimate), float(estimate)
    t = (estimate - null) / se
    half = float(special.stdtrit(df, 0.5 + confidence / 2)) * se
    return float(2 * special.stdtr(df, -abs(t))), float(estimate - half), float(estimate + half)


def _welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """The standard error of mean(a) - mean(b) and its Welch-Satterthwaite degrees of freedom."""
    var_a = a.var(ddof=1) / a.size if a.size > 1 else np.nan
    var_b = b.var(ddof=1) / b.size if b.size > 1 else np.nan
    se2 = var_a + var_b
    if se2 == 0:
        return 0.0, np.inf
    return math.sqrt(se2), se2**2 / (var_a**2 / (a.size - 1) + var_b**2 / (b.size - 1))


def _numeric(x) -> np.ndarray:
    """As int64 for bool and integer columns (exact differences, no unsigned wrap-around), else float64."""
    x = np.asarray(x)
    return x.astype(np.int64) if x.dtype.kind in "bui" else x.astype(np.float64)


def _sample(x: np.ndarray) -> np.ndarray:
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"need a non-empty 1-D array, got shape {x.shape}")
    return x


def _paired(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if a.shape != b.shape:
        raise ValueError(f"paired samples need the same shape (one value per game_index), got {a.shape}, {b.shape}")
    return _sample(a), _sample(b)
