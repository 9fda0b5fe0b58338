"""Action kinds associated with winning: how often each action kind is played, and the points of the seats that
play it (the "played win rate" of card-game analytics, as HSReplay reports it for a card), overall and against
seats in the same place of the standings.

The unit is a (game, seat) row of a trace (``analyses.decisiveness.load_trace``): a seat's plays of each kind in
one game and its points in that game (``analyses.scoring.points``: 1 a win, 1/k a k-way shared win, 1/players each
when nobody wins; a fair seat takes 1/players). The rows of one game are dependent (their points add up to 1, and
the seats of one deal see the same cards), so every interval here is cluster-robust with the game as the cluster:
the sandwich variance of the estimator's influence summed within each game, times G / (G - 1) for G games (CR1).
Intervals and p-values use the t distribution with one degree of freedom fewer than the games that hold the
group's rows (the smaller group's, for a difference): with the normal instead, groups of a few dozen rows were
liberal (6% at a nominal 5%). A group of fewer than ``MIN_ROWS`` rows gets no interval, and the played win rate no
test unless both groups have ``MIN_TEST_ROWS`` rows: points are skewed (a 4-seat game's are mostly 0), and so is
the mean of a small group; ``tests/test_calibration_trace.py`` measures the rates.

A played win rate is an **association, not a causal effect**: a seat that was dealt a good hand, sits in a strong
seat, or is already ahead may play a kind more often (or less), so "seats that play it win more" does not say that
playing it makes a seat win. It says where to look. Measured on synthetic traces where a kind has no effect
(tests/test_calibration_kinds.py), the played win rate named a kind played by strong hands in 75% (2 seats) to 100%
(4 seats) of the runs, and one played by seats already behind in 99% to 100%. So a kind is named only when its
association holds *within* the same place: the rows are put in strata by the seat's place in the standing at the
trace's reference step (after the first round, or half of the turns, as ``analyses.decisiveness`` judges a comeback;
a place is the number of seats ahead and behind), the played and the other rows compared within each stratum and the
differences pooled with Mantel-Haenszel weights (n_played n_not / n of the stratum), the interval again cluster-
robust by game. That removes what the early standing shows of a hand's strength; what it does not show (a strong
hand still level after the first round) remains, and so does any effect of a kind played before the reference step.
The trace holds each kind's plays per game, not when they were made, so the standing at the time of each play is not
known.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analyses.decisiveness import Estimate
from analyses.paired import holm, t_test

MIN_ROWS = 30            # rows a group needs for a cluster-robust interval
# Rows each group needs for the played win rate's test: measured on 4-seat games of 300 (points skewed, mostly 0),
# a group of 36 rows rejected 6.2% at 5%, one of 72 rows 5.0% to 5.5%.
MIN_TEST_ROWS = 60
COUNT_GROUPS = ("0", "1", "2", "3+")


@dataclass(frozen=True)
class KindStats:
    """One action kind over the (game, seat) rows of a trace (:func:`kind_stats`); intervals at ``confidence``,
    cluster-robust by game.

    ``plays`` is the mean plays per seat and game, ``played_share`` the share of rows that played it at least once
    (``n_played`` rows; ``n_not`` did not). ``points_played`` and ``points_not`` are the mean points of those two
    groups, ``difference`` = points_played - points_not, ``statistic`` its t and ``pvalue`` the two-sided test of
    a zero difference with that statistic, the interval's (p < 1 - confidence exactly when 0 is outside it); the
    interval, statistic and p-value are nan when a group has fewer than ``MIN_TEST_ROWS`` rows. ``within``,
    ``within_statistic`` and ``within_pvalue`` are the same difference within the same place at ``reference``
    (module docstring; nan without ``MIN_TEST_ROWS`` rows of each group in the strata holding both). ``by_count`` maps
    "0", "1", "2", "3+" plays to the mean points of those rows (groups of ``MIN_ROWS`` rows or more only).
    ``choice`` is the share of the decisions where the kind was legal at which it was played (None if it never was
    legal). ``fair`` is 1/seats.
    An association, not a causal effect (module docstring).
    """

    kind: str
    meaning: str
    n_games: int
    n_rows: int
    plays: Estimate
    played_share: Estimate
    n_played: int
    n_not: int
    points_played: Estimate
    points_not: Estimate
    difference: Estimate
    statistic: float
    pvalue: float
    by_count: dict
    choice: Estimate | None
    fair: float
    confidence: float
    within: Estimate
    within_statistic: float
    within_pvalue: float
    reference: str              # where the places are taken: "after the first round" or "at half of the turns"


@dataclass(frozen=True)
class NotableKind:
    """A kind whose played win rate differs beyond chance within the same place: its :class:`KindStats`, its
    Holm-adjusted p-value (of ``within_pvalue``) and the sentence that says so."""

    kind: str
    stats: KindStats
    adjusted_pvalue: float
    sentence: str


def kind_stats(trace, points, confidence: float = 0.95) -> dict:
    """{kind: :class:`KindStats`} for every action kind of ``trace``, in its order; ``points`` is the result's
    (games, seats) points in the trace's game order.

    Each mean is a ratio of sums over rows; its standard error is the cluster-robust (sandwich) one, the game the
    cluster: with the influence psi_i of row i (for a group mean, (y_i - mean) / n over the group's rows; for
    the difference of two group means, the first's minus the second's), the variance is G / (G - 1) times the
    sum over games of (sum of the game's psi)^2. The choice rate sum(played) / sum(legal) is a ratio estimator
    with the delta method's influence (played_g - rate * legal_g) / sum(legal) per game. Intervals are
    estimate +- t se (module docstring for the degrees of freedom); the test of the played win rate uses the same
    t, so p-value and interval agree. Valid for any dependence within a game (points adding up to 1, a card in one
    seat's hand only, shared deals); ``tests/test_calibration_trace.py`` measures the false-positive rate: 4% to
    6% at a nominal 5% over 2, 3 and 4 seats. An association, not a causal effect (module docstring).
    """
    points = np.asarray(points, dtype=float)
    if points.shape != trace.played.shape[:2]:
        raise ValueError(f"need points (games, seats) = {trace.played.shape[:2]}, got {points.shape}")
    meanings = trace.kind_meanings
    strata = places(trace)
    reference = "after the first round" if trace.step == "round" else f"at half of the {trace.step}s"
    return {kind: _one_kind(kind, meanings[kind], trace.played[..., i], trace.legal[..., i], points, strata,
                            reference, confidence)
            for i, kind in enumerate(trace.kinds)}


def places(trace) -> np.ndarray:
    """(games, seats) codes of each seat's place at the trace's reference step (after the first step when a step is
    a round, else after half of the game's steps, rounded down, at least 1; as ``analyses.decisiveness`` judges a
    comeback): seats ahead times the seats plus seats behind, so that leading alone, leading in a tie, all level
    and each place behind are strata of their own. Teammates share a standing, so a team's seats share a place."""
    steps = trace.steps
    at = np.zeros_like(steps) if trace.step == "round" else np.maximum(1, steps // 2) - 1
    standing = trace.standing[np.arange(trace.n_games), :, at]                    # (games, seats)
    ahead = (standing[:, None, :] > standing[:, :, None]).sum(axis=-1)
    behind = (standing[:, None, :] < standing[:, :, None]).sum(axis=-1)
    return ahead * trace.n_seats + behind


def _one_kind(kind, meaning, played, legal, points, strata, reference, confidence) -> KindStats:
    games, seats = points.shape
    everyone = np.ones(points.shape, dtype=bool)
    used = played > 0
    difference, statistic, pvalue = _difference(points, used, confidence)
    within, within_statistic, within_pvalue = _within(points, used, strata, confidence)
    by_count = {}
    for name, rows in zip(COUNT_GROUPS, (played == 0, played == 1, played == 2, played >= 3), strict=True):
        if rows.sum() >= MIN_ROWS:
            by_count[name] = _group_mean(points, rows, confidence)
    return KindStats(
        kind=kind,
        meaning=meaning,
        n_games=games,
        n_rows=points.size,
        plays=_group_mean(played.astype(float), everyone, confidence),
        played_share=_group_mean(used.astype(float), everyone, confidence),
        n_played=int(used.sum()),
        n_not=int((~used).sum()),
        points_played=_group_mean(points, used, confidence),
        points_not=_group_mean(points, ~used, confidence),
        difference=difference,
        statistic=statistic,
        pvalue=pvalue,
        by_count=by_count,
        choice=_choice(played, legal, confidence),
        fair=1 / seats,
        confidence=confidence,
        within=within,
        within_statistic=within_statistic,
        within_pvalue=within_pvalue,
        reference=reference,
    )


def _cluster_se(psi) -> float:
    """The cluster-robust standard error from the rows' influence values ``psi`` (games, seats), CR1."""
    per_game = psi.sum(axis=1)
    g = per_game.size
    return math.sqrt(g / (g - 1) * float(per_game @ per_game)) if g > 1 else np.nan


def _influence(y, rows):
    """The mean of ``y`` over ``rows`` and each row's influence on it ((y - mean) / n in the group, else 0)."""
    n = int(rows.sum())
    mean = float(y[rows].mean()) if n else np.nan
    return mean, np.where(rows, y - mean, 0.0) / max(n, 1), n


def _df(rows) -> int:
    """The t reference's degrees of freedom for a mean over ``rows``: the games that hold any of them, minus 1."""
    return int(rows.any(axis=1).sum()) - 1


def _group_mean(y, rows, confidence) -> Estimate:
    mean, psi, n = _influence(y, rows)
    if n < MIN_ROWS:
        return Estimate(mean, np.nan, np.nan, n)
    _, low, high = t_test(mean, _cluster_se(psi), _df(rows), confidence=confidence)
    return Estimate(mean, low, high, n)


def _difference(points, used, confidence):
    """The played win rate's difference with its interval, its t and two-sided p-value (nan for a small group)."""
    mean_a, psi_a, n_a = _influence(points, used)
    mean_b, psi_b, n_b = _influence(points, ~used)
    if min(n_a, n_b) < MIN_TEST_ROWS:
        return Estimate(mean_a - mean_b, np.nan, np.nan, points.size), np.nan, np.nan
    se = _cluster_se(psi_a - psi_b)
    pvalue, low, high = t_test(mean_a - mean_b, se, min(_df(used), _df(~used)), confidence=confidence)
    statistic = (mean_a - mean_b) / se if se > 0 else (0.0 if mean_a == mean_b else math.copysign(np.inf,
                                                                                                  mean_a - mean_b))
    return Estimate(mean_a - mean_b, low, high, points.size), statistic, pvalue


def _within(points, used, strata, confidence):
    """The difference of the played and the other rows' points within each stratum, pooled with Mantel-Haenszel
    weights n1 n0 / n, its interval, t and p (nan unless each group has ``MIN_TEST_ROWS`` rows in the strata that
    hold both). The weights are taken as fixed: each row's influence is its stratum's weight share times its
    group mean's influence, summed within games for the cluster-robust variance, as for the plain difference."""
    total, weights, psi = 0.0, 0.0, np.zeros(points.shape)
    both = np.zeros(points.shape, dtype=bool)            # the rows of the strata where both groups have rows
    for code in np.unique(strata):
        rows = strata == code
        mean_a, psi_a, n_a = _influence(points, rows & used)
        mean_b, psi_b, n_b = _influence(points, rows & ~used)
        if n_a and n_b:
            weight = n_a * n_b / (n_a + n_b)
            total, weights, psi = total + weight * (mean_a - mean_b), weights + weight, psi + weight * (psi_a - psi_b)
            both |= rows
    if min(int((both & used).sum()), int((both & ~used).sum())) < MIN_TEST_ROWS:
        return Estimate(total / weights if weights else np.nan, np.nan, np.nan, points.size), np.nan, np.nan
    value, se = total / weights, _cluster_se(psi / weights)
    pvalue, low, high = t_test(value, se, min(_df(both & used), _df(both & ~used)), confidence=confidence)
    statistic = value / se if se > 0 else (0.0 if value == 0 else math.copysign(np.inf, value))
    return Estimate(value, low, high, int(both.sum())), statistic, pvalue


def _choice(played, legal, confidence) -> Estimate | None:
    """sum(played) / sum(legal) with the delta method's cluster-robust interval, clipped to [0, 1]; None if the kind
    was never legal."""
    played_g, legal_g = played.sum(axis=1).astype(float), legal.sum(axis=1).astype(float)
    total = legal_g.sum()
    if total == 0:
        return None
    rate = played_g.sum() / total
    se = _cluster_se(((played_g - rate * legal_g) / total)[:, None])
    _, low, high = t_test(rate, se, _df(legal > 0), confidence=confidence)
    return Estimate(rate, max(0.0, low), min(1.0, high) if rate <= 1 else high, int((legal > 0).sum()))


def notable(stats, family_alpha: float = 0.05) -> list:
    """The kinds whose played win rate differs beyond chance within the same place, as :class:`NotableKind`, the
    largest difference within first.

    ``stats`` is :func:`kind_stats`'s dict (or its values). The family is every kind with a test within the same
    place (both groups of ``MIN_TEST_ROWS`` rows or more in the strata holding both); Holm's step-down adjustment
    over it (``analyses.paired.holm``) keeps the chance of naming any kind whose played win rate does not differ
    within the same place at ``family_alpha`` or less, however the kinds' tests depend on each other. A kind whose
    played win rate differs only because the seats that play it were already ahead or behind at the reference
    step is not named. Still an association, not a causal effect (module docstring).
    """
    tested = [s for s in (stats.values() if isinstance(stats, dict) else stats) if not math.isnan(s.within_pvalue)]
    if not tested:
        return []
    adjusted = holm([s.within_pvalue for s in tested])
    found = [NotableKind(s.kind, s, float(p), _sentence(s, p)) for s, p in zip(tested, adjusted, strict=True)
             if p < family_alpha]
    return sorted(found, key=lambda n: -abs(n.stats.within.value))


def _sentence(s, adjusted) -> str:
    a, b, w = s.points_played, s.points_not, s.within
    label = s.meaning if s.meaning and s.meaning != s.kind else f"`{s.kind}`"
    return (f"{label[:1].upper()}{label[1:]} goes with {'winning' if w.value > 0 else 'losing'} (an association, "
            f"not a cause): seats that play it at least once take {a.value:.3f} points [{a.low:.3f}, {a.high:.3f}] "
            f"a game against {b.value:.3f} [{b.low:.3f}, {b.high:.3f}] for those that do not, {w.value:+.3f} "
            f"[{w.low:+.3f}, {w.high:+.3f}] against seats in the same place {s.reference} (Holm p {_p(adjusted)}).")


def _p(p):
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}" if p < 0.01 else f"{p:.2f}"
