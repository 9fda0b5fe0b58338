"""Is rule variant B fairer than A? Seat shares compared by their per-game points, with pairing.

``analyses.seat_change`` compares the gap or the weakest seat by interval arithmetic on Bonferroni-Wilson bounds:
valid whichever seat is weakest, but nearly blind (a 0.05 drop of the weakest of 4 seats found about 1% of the
time at 1,000 games a variant) and unable to use the pairing of two variants played on common deals. The tests
here work on the per-game points themselves (``analyses.scoring.points``, arrays (games, seats) summing to 1 a
game), so a paired design's game-by-game differences cancel the deal's luck:

* ``seat_shift``: did the seat shares move at all? Hotelling's T^2 on the mean per-game difference (one test of
  every seat at once), then per-seat t tests with Holm-adjusted p-values to say which seats moved.
* ``imbalance_change``: is B fairer? The imbalance D = sum over seats of (share - fair)^2, estimated without
  bias, compared between the variants with a U-statistic standard error that stays honest at a fair game.
* ``fair_within``: equivalence: every seat within ``margin`` of fair, shown by two one-sided tests per seat.
* ``games_needed`` / ``detectable_edge``: the planner, and what a verdict that found nothing could have found.

``teams`` (a list of seat tuples, e.g. [(0, 2), (1, 3)]) sums each team's points first, so the unit is the team
and a fair game gives a team its seats' count over the seats. ``total`` is what a game hands out over the seats:
1 point, or 0 for margins (``analyses.scoring.margins``, each seat's score less the table's mean), where the same
tests read the seats' margins against a fair 0. ``tests/test_calibration_fairer.py`` measures the
levels and powers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from analyses.paired import holm

VERDICTS = ("fairer", "less fair", "no change found")
DEFAULT_MARGIN = 0.02   # "fair within E" by default: every seat's share within 2 points per 100 games of fair
TESTS = ("seat_shift", "fair_within")
_TOL = 1e-10       # relative: an eigenvalue of the covariance below this times the largest is a constraint, not noise
_FLOOR = 1e-20     # absolute: a mean's variance below this is rounding (a real one is above 1e-14 to 1e7 games)
_ZERO = 1e-12      # absolute: a mean difference along a constrained direction above this is a real, noiseless shift


@dataclass(frozen=True, eq=False)  # eq=False: the fields hold arrays, whose == is elementwise
class SeatShiftResult:
    """The omnibus test that no seat's (team's) share moved, and each seat's shift mean(b) - mean(a).

    ``statistic`` is Hotelling's T^2, ``pvalue`` its F p-value on ``df`` = (numerator, denominator) degrees of
    freedom (the numerator is the rank of the differences' covariance: units - 1 when points sum to 1 a game).
    ``shift``/``low``/``high`` are each unit's shift and its marginal ``confidence`` interval, ``seat_pvalues``
    the per-unit t tests (paired t, or Welch) and ``adjusted`` their Holm adjustment over the units (none for
    two units whose points sum to 1 a game: their two tests are one test).
    """

    statistic: float
    pvalue: float
    df: tuple
    shift: np.ndarray
    low: np.ndarray
    high: np.ndarray
    seat_pvalues: np.ndarray
    adjusted: np.ndarray
    n_a: int
    n_b: int
    paired: bool
    teams: tuple | None
    confidence: float


@dataclass(frozen=True)
class ImbalanceChangeResult:
    """``estimate`` = D_b - D_a, the change of the imbalance D = sum over units of (share - fair)^2 (bias-corrected,
    so either D may come out a little below 0 for a fair game), its standard error, ``confidence`` interval
    and two-sided p-value; ``verdict`` is "fairer" (D_b significantly below D_a), "less fair" or "no change
    found" at alpha = 1 - confidence."""

    estimate: float
    se: float
    pvalue: float
    low: float
    high: float
    imbalance_a: float
    imbalance_b: float
    verdict: str
    n_a: int
    n_b: int
    paired: bool
    teams: tuple | None
    confidence: float


@dataclass(frozen=True, eq=False)
class FairWithinResult:
    """Equivalence: every unit's share within ``margin`` of fair. ``share`` and ``fair`` per unit, ``seat_pvalues``
    the TOST p-value of each, ``pvalue`` their maximum, ``shown`` whether it is below ``alpha``, and
    ``low``/``high`` each unit's share's 1 - 2 alpha interval (fair within the margin is shown exactly when every
    interval lies inside fair +- margin)."""

    pvalue: float
    shown: bool
    margin: float
    share: np.ndarray
    fair: np.ndarray
    seat_pvalues: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: int
    teams: tuple | None
    alpha: float

    @property
    def ruled_out(self):
        """The largest distance from fair inside the units' intervals: the edge these games rule out (fair within
        the margin is shown exactly when it is below the margin)."""
        return float(np.max(np.maximum(np.abs(self.low - self.fair), np.abs(self.high - self.fair))))


@dataclass(frozen=True)
class GamesPlan:
    """A planning answer: ``games`` per variant find an ``edge`` with ``power`` at ``alpha`` by ``test``;
    ``method`` says which approximation gave it."""

    games: int
    edge: float
    seats: int
    power: float
    alpha: float
    paired_correlation: float
    test: str
    method: str


# --- seat_shift -----------------------------------------------------------------------------------------------


def seat_shift(points_a, points_b, paired: bool = True, teams=None, confidence: float = 0.95) -> SeatShiftResult:
    """Did the seat shares move from variant a to b? Hotelling's T^2 on the per-game differences, then per seat.

    Paired (``paired=True``: game i of a and of b share seed and game index, so both arrays hold the same games
    in the same order): the differences d_i = points_b[i] - points_a[i] are one sample and T^2 = n dbar' S^-1
    dbar with F = (n - p) / (p (n - 1)) T^2 on (p, n - p) degrees of freedom, exact for normal d and good by the
    central limit theorem for points from ~100 games. Unpaired: the two-sample T^2 with each variant's own
    covariance (no equal-covariance assumption: a rule change moves the spread too) and the Nel-van der Merwe
    degrees of freedom as Krishnamoorthy and Yu (2004) modify them.

    One omnibus test, not the smallest of per-seat p-values: the seats' shifts are correlated (they sum to 0),
    and T^2 uses that. The points of a game sum to 1, so one coordinate is the others' complement and the
    covariance is singular; T^2 uses its pseudo-inverse on its rank p (units - 1 then, the same T^2 as on the
    first units - 1 coordinates), and a seat without spread (always 0) lowers p further. A mean shift along a
    direction without spread is a noiseless change: p = 0, the t test's limit (as ``analyses.paired.t_test``).
    """
    units_a, units_b, teams = _pair(points_a, points_b, paired, teams)
    core = _shift_core(units_a, units_b, paired, confidence)
    return SeatShiftResult(statistic=float(core["t2"]), pvalue=float(core["pvalue"]),
                           df=(int(core["df1"]), float(core["df2"])), shift=core["shift"], low=core["low"],
                           high=core["high"], seat_pvalues=core["seat_p"], adjusted=core["adjusted"],
                           n_a=units_a.shape[0], n_b=units_b.shape[0], paired=paired, teams=teams,
                           confidence=confidence)


def margin_balance(margins, teams=None, confidence: float = 0.95) -> SeatShiftResult:
    """Does the seat (team) matter to the margin? The one-sample Hotelling's T^2 of the per-game margins
    (``analyses.scoring.margins``, adding up to 0 a game) against a fair 0: :func:`seat_shift` from zeros. The
    intervals are simultaneous over the units (each at 1 - (1 - ``confidence``) / units, Bonferroni), so the
    interval of whichever unit the data made the worst covers it at ``confidence``."""
    margins = np.asarray(margins, dtype=float)
    units = margins.shape[1] if teams is None else len(teams)
    return seat_shift(np.zeros_like(margins), margins, True, teams, 1 - (1 - confidence) / units)


def _shift_core(a, b, paired, confidence):
    """``seat_shift``'s numbers, vectorised over leading (replicate) axes of a and b (..., games, units)."""
    if paired:
        d = b - a
        n = d.shape[-2]
        shift = d.mean(axis=-2)
        cov = _cov(d) / n
        df_seat = np.full(shift.shape, n - 1.0)
    else:
        n_a, n_b = a.shape[-2], b.shape[-2]
        shift = b.mean(axis=-2) - a.mean(axis=-2)
        cov_a, cov_b = _cov(a) / n_a, _cov(b) / n_b
        cov = cov_a + cov_b
        va, vb = np.diagonal(cov_a, axis1=-2, axis2=-1), np.diagonal(cov_b, axis1=-2, axis2=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            df_seat = (va + vb) ** 2 / (va ** 2 / (n_a - 1) + vb ** 2 / (n_b - 1))
    w, vec = np.linalg.eigh(cov)
    proj = np.einsum("...ki,...k->...i", vec, shift)
    kept = w > np.maximum(_TOL * w.max(axis=-1, keepdims=True), _FLOOR)
    rank = kept.sum(axis=-1)
    t2 = (np.where(kept, proj ** 2 / np.where(kept, w, 1.0), 0.0)).sum(axis=-1)
    noiseless = (np.where(kept, 0.0, np.abs(proj)) > _ZERO).any(axis=-1)
    if paired:
        df2 = n - rank
        f = np.where(rank > 0, t2 * df2 / np.maximum(rank * (n - 1), 1), 0.0)
    else:
        nu = (_tr2(cov) + _tr(cov) ** 2) / ((_tr2(cov_a) + _tr(cov_a) ** 2) / (n_a - 1)
                                            + (_tr2(cov_b) + _tr(cov_b) ** 2) / (n_b - 1) + 1e-300)
        df2 = nu - rank + 1
        f = np.where(rank > 0, t2 * df2 / np.maximum(rank * nu, 1e-300), 0.0)
    p = special.fdtrc(np.maximum(rank, 1), np.maximum(df2, 1e-9), f)
    pvalue = np.where(noiseless, 0.0, np.where(rank > 0, p, 1.0))
    se = np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        seat_p = np.where(se > 0, 2 * special.stdtr(df_seat, -np.abs(shift) / np.where(se > 0, se, 1.0)),
                          np.where(np.abs(shift) > _ZERO, 0.0, 1.0))
        half = np.where(se > 0, special.stdtrit(np.where(se > 0, df_seat, 1.0), 0.5 + confidence / 2) * se, 0.0)
    adjusted = np.apply_along_axis(holm, -1, seat_p)
    if seat_p.shape[-1] == 2:     # two units whose points sum to 1 a game: one test, read twice, needs no Holm
        same = np.isclose(seat_p[..., :1], seat_p[..., 1:], rtol=1e-9, atol=0)
        adjusted = np.where(same, seat_p, adjusted)
    return dict(t2=np.where(noiseless, np.inf, t2), pvalue=pvalue, df1=rank, df2=df2, shift=shift,
                low=shift - half, high=shift + half, seat_p=seat_p, adjusted=adjusted)


# --- imbalance_change -----------------------------------------------------------------------------------------


def imbalance_change(points_a, points_b, paired: bool = True, teams=None,
                     confidence: float = 0.95, total: float = 1.0) -> ImbalanceChangeResult:
    """Is variant b fairer than a? The change D_b - D_a of the imbalance D = sum_s (share_s - fair_s)^2.

    Each D is estimated without bias: sum_s [(m_s - f_s)^2 - var_s / n], which is the U-statistic
    sum_{i != j} <y_i, y_j> / (n (n - 1)) of the per-game deviations y_i = points_i - fair (a plain
    sum of squared deviations would call every fair game unfair by about (units - 1) / (units n)). The difference
    D_b - D_a is then one U-statistic of the per-game pairs (y_a, y_b) (paired) or a difference of two
    independent ones, and its variance is Hoeffding's exact 2 (2 (n - 2) zeta1 + zeta2) / (n (n - 1)):
    zeta1 is the variance of the per-game influence <y_b, mu_b> - <y_a, mu_a> (the delta method's term; paired,
    a and b's influence are differenced game by game, which is where the pairing gains) and zeta2 the
    kernel's variance, negligible for an unfair game but the whole story at a fair one, where the gradient
    mu = 0 and the plain delta method's standard error collapses to 0 (the test would call every fair pair
    different). zeta1 is the plug-in estimate less its bias from mu's own noise, clipped at 0, zeta2 the
    plug-in. Normal p-value and interval. Measured (tests/test_calibration_fairer.py): about nominal when the
    variants are equally unfair, conservative (under 1% false verdicts at 5%) when both are fair, where D's
    estimate is a degenerate U-statistic, lighter-tailed than its normal approximation. A paired bootstrap and
    the plain plug-in zeta1 were the alternatives: the plug-in was measured, more conservative where the variants
    are equally unfair (about 2.5% at 5%) and less powerful; the bootstrap was not tried, since it would cost
    thousands of resamples a call and the analytic test already holds its level.

    D needs a seat to move far, relative to its own noise, before it moves: when a is fair and b's weakest seat
    drops 0.05 (4 seats, 1,000 games) this finds "less fair" about half the time, where ``seat_shift`` finds
    that the seats moved nearly always. Read the two together: ``seat_shift`` says whether anything moved,
    this says in which direction the fairness went.
    """
    units_a, units_b, teams = _pair(points_a, points_b, paired, teams)
    fair = _fair(units_a.shape[1], teams, points_a, total)
    core = _imbalance_core(units_a - fair, units_b - fair, paired, confidence)
    return ImbalanceChangeResult(estimate=float(core["estimate"]), se=float(core["se"]),
                                 pvalue=float(core["pvalue"]), low=float(core["low"]), high=float(core["high"]),
                                 imbalance_a=float(core["d_a"]), imbalance_b=float(core["d_b"]),
                                 verdict=fairer_verdict(float(core["estimate"]), float(core["pvalue"]),
                                                        1 - confidence),
                                 n_a=units_a.shape[0], n_b=units_b.shape[0], paired=paired, teams=teams,
                                 confidence=confidence)


def fairer_verdict(estimate: float, pvalue: float, alpha: float = 0.05, shift_pvalue: float = 0.0) -> str:
    """"fairer" when D_b - D_a (``estimate``) is significantly below 0, "less fair" when above, else
    "no change found" (which is no proof of equal fairness: ``detectable_edge`` says what the games could find).
    ``shift_pvalue``: the seats' move (``seat_shift``) where both are said: closed testing, since no seat moving
    implies an unchanged imbalance, the change is said only within a shown move, and when nothing changed any
    difference word (fairer, less fair, the seats moved) is said at most ``alpha`` of the time, not each test at
    ``alpha`` side by side (7-8% together: issue 53, case 14)."""
    if pvalue < alpha and shift_pvalue < alpha:
        return "fairer" if estimate < 0 else "less fair"
    return "no change found"


def _imbalance_core(ya, yb, paired, confidence):
    """``imbalance_change``'s numbers from the deviations from fair, vectorised over leading axes."""
    if paired:
        k = ya.shape[-1]
        z = np.concatenate([ya, yb], axis=-1)
        sign = np.concatenate([-np.ones(k), np.ones(k)])
        estimate, var = _u_stat(z, sign)
        d_a, _ = _u_stat(ya, np.ones(k), variance=False)
        d_b, _ = _u_stat(yb, np.ones(k), variance=False)
    else:
        d_a, var_a = _u_stat(ya, np.ones(ya.shape[-1]))
        d_b, var_b = _u_stat(yb, np.ones(yb.shape[-1]))
        estimate, var = d_b - d_a, var_a + var_b
    se = np.sqrt(np.maximum(var, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        pvalue = np.where(se > 0, 2 * special.ndtr(-np.abs(estimate) / np.where(se > 0, se, 1.0)),
                          np.where(np.abs(estimate) > _ZERO, 0.0, 1.0))
    half = -special.ndtri((1 - confidence) / 2) * se
    return dict(estimate=estimate, se=se, pvalue=pvalue, low=estimate - half, high=estimate + half,
                d_a=d_a, d_b=d_b)


def _u_stat(z, sign, variance=True):
    """The U-statistic sum_{i != j} z_i' J z_j / (n (n - 1)), J = diag(``sign``), and Hoeffding's variance of it."""
    n = z.shape[-2]
    total = z.sum(axis=-2)
    diagonal = np.einsum("...ik,k,...ik->...", z, sign, z)
    u = (np.einsum("...k,k,...k->...", total, sign, total) - diagonal) / (n * (n - 1))
    if not variance:
        return u, None
    mu = total / n
    jmu = sign * mu
    cov = _cov(z)
    jc = sign[:, None] * cov
    # mu's own noise adds about tr(J cov J cov) / n to the plug-in zeta1: taken off (at a fair game that is all
    # of it), and the rest clipped at 0
    zeta1 = np.einsum("...k,...kl,...l->...", jmu, cov, jmu) - np.einsum("...kl,...lk->...", jc, jc) / n
    second = np.einsum("...ik,...il->...kl", z, z) / n
    jm = sign[:, None] * second
    zeta2 = np.einsum("...kl,...lk->...", jm, jm) - u ** 2
    return u, 2 * (2 * (n - 2) * np.maximum(zeta1, 0.0) + np.maximum(zeta2, 0.0)) / (n * (n - 1))


# --- fair_within ----------------------------------------------------------------------------------------------


def fair_within(points, margin: float, teams=None, alpha: float = 0.05, total: float = 1.0) -> FairWithinResult:
    """Is the game fair within ``margin``: every seat's (team's) share within ``margin`` of fair?

    Equivalence is the claim, so it is the alternative: for each unit two one-sided t tests (TOST) of
    share <= fair - margin and share >= fair + margin, the unit's p-value the larger of the two. "Every unit
    within" is an intersection of the units' claims, and by the intersection-union principle (Berger 1982) the
    test that declares it when every unit's TOST rejects at ``alpha`` has level ``alpha``: no Bonferroni over
    the units is needed, and the overall p-value is the largest unit p-value. A unit without spread (always the
    same points) is within exactly when its share is.
    """
    units, teams = _units(points, teams)
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha}")
    if not margin > 0:
        raise ValueError(f"margin must be positive, got {margin}")
    fair = _fair(units.shape[1], teams, points, total)
    core = _within_core(units, fair, margin, alpha)
    return FairWithinResult(pvalue=float(core["pvalue"]), shown=bool(core["pvalue"] < alpha), margin=margin,
                            share=core["share"], fair=fair, seat_pvalues=core["seat_p"], low=core["low"],
                            high=core["high"], n=units.shape[0], teams=teams, alpha=alpha)


def _within_core(units, fair, margin, alpha):
    n = units.shape[-2]
    share = units.mean(axis=-2)
    se = units.std(axis=-2, ddof=1) / math.sqrt(n)
    dev = share - fair
    with np.errstate(invalid="ignore", divide="ignore"):
        safe = np.where(se > 0, se, 1.0)
        p = np.maximum(special.stdtr(n - 1, -(dev + margin) / safe), special.stdtr(n - 1, -(margin - dev) / safe))
    seat_p = np.where(se > 0, p, np.where(np.abs(dev) < margin, 0.0, 1.0))
    half = special.stdtrit(n - 1, 1 - alpha) * se
    return dict(share=share, seat_p=seat_p, pvalue=seat_p.max(axis=-1), low=share - half, high=share + half)


# --- planning -------------------------------------------------------------------------------------------------


def games_needed(edge: float, seats: int, power: float = 0.8, alpha: float = 0.05, paired_correlation: float = 0.0,
                 test: str = "seat_shift") -> GamesPlan:
    """Games per variant to find an ``edge`` with ``power`` at ``alpha``, by normal theory.

    ``test="seat_shift"``: one seat's share moves from fair by ``edge`` (the others share the rest), found by
    the per-seat tests with Holm; planned as the moved seat's two-sided test at alpha / seats (Bonferroni, which
    Holm never does worse than, so the plan is conservative; the omnibus T^2 usually needs fewer games). A
    seat's points vary at most like a win flag, p (1 - p), and ``paired_correlation`` rho (the correlation of a
    seat's points in game i of a and of b) lowers the difference's variance to var_a + var_b - 2 rho sd_a sd_b.
    Common deals give large rho: a game's winner changes only where the rules moved it.

    ``test="fair_within"``: games of one variant to show every seat within ``edge`` (the margin) of fair when
    the game is exactly fair: each seat's TOST must pass, planned so each fails with probability at most
    (1 - power) / seats (Bonferroni on the misses, conservative).
    """
    _check_plan(edge, seats, power, alpha, paired_correlation, test)
    z_alpha, z_power = _plan_quantiles(seats, power, alpha, test)
    sd = _plan_sd(edge, seats, paired_correlation, test)
    games = math.ceil(((z_alpha + z_power) * sd / edge) ** 2)
    return GamesPlan(games=max(games, 2), edge=edge, seats=seats, power=power, alpha=alpha,
                     paired_correlation=paired_correlation, test=test, method=_METHODS[test])


def detectable_edge(games: int, seats: int, power: float = 0.8, alpha: float = 0.05, paired_correlation: float = 0.0,
                    test: str = "seat_shift") -> GamesPlan:
    """The smallest edge ``games`` per variant find with ``power`` (``games_needed`` inverted): what a verdict
    that found nothing could have found. For ``test="fair_within"``, the smallest margin the games can show."""
    if not isinstance(games, int | np.integer) or games < 2:
        raise ValueError(f"games must be an integer of at least 2, got {games!r}")
    _check_plan(0.1, seats, power, alpha, paired_correlation, test)
    z = sum(_plan_quantiles(seats, power, alpha, test))
    top = (1 - 1 / seats) if test == "seat_shift" else 1.0

    def gap(edge):
        return z * _plan_sd(edge, seats, paired_correlation, test) / math.sqrt(games) - edge

    edge = top if gap(top) > 0 else optimize.brentq(gap, 1e-12, top, xtol=1e-12)
    return GamesPlan(games=games, edge=float(edge), seats=seats, power=power, alpha=alpha,
                     paired_correlation=paired_correlation, test=test, method=_METHODS[test])


def measured_edge(sd, games: int, units: int, power: float = 0.8, alpha: float = 0.05) -> float:
    """The smallest shift of one unit that the per-unit tests (at alpha / units, as :func:`detectable_edge`)
    find with ``power`` in ``games`` games, when a unit's per-game value (a difference, when paired) has the
    standard deviation ``sd``, measured: the planner of an outcome without the points' p (1 - p) bound, such as
    a margin."""
    return float((-special.ndtri(alpha / (2 * units)) - special.ndtri(1 - power)) * sd / math.sqrt(games))


def measured_games(margin: float, sd, units: int, power: float = 0.8, alpha: float = 0.05) -> int:
    """Games for one variant to show every unit within ``margin`` of fair when it is exactly fair and a unit's
    per-game value has the standard deviation ``sd``, measured (:func:`games_needed`'s fair_within plan)."""
    z_alpha, z_power = _plan_quantiles(units, power, alpha, "fair_within")
    return max(math.ceil(((z_alpha + z_power) * sd / margin) ** 2), 2)


_METHODS = {"seat_shift": "normal theory, the moved seat's test at alpha / seats (Bonferroni; Holm does no worse)",
            "fair_within": "normal theory, each seat's TOST missing with probability (1 - power) / seats"}


def _plan_quantiles(seats, power, alpha, test):
    if test == "seat_shift":
        return -special.ndtri(alpha / (2 * seats)), -special.ndtri(1 - power)
    return -special.ndtri(alpha), -special.ndtri((1 - power) / (2 * seats))


def _plan_sd(edge, seats, rho, test):
    fair = 1 / seats
    if test == "fair_within":
        return math.sqrt(fair * (1 - fair))
    moved = min(max(fair - edge, 0.0), 1.0)     # a drop and a rise by edge: plan for the larger variance
    var_a = fair * (1 - fair)
    var_b = max(moved * (1 - moved), min(fair + edge, 1.0) * (1 - min(fair + edge, 1.0)))
    return math.sqrt(max(var_a + var_b - 2 * rho * math.sqrt(var_a * var_b), 1e-300))


def _check_plan(edge, seats, power, alpha, rho, test):
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; allowed: {', '.join(TESTS)}")
    if not isinstance(seats, int | np.integer) or seats < 2:
        raise ValueError(f"seats must be an integer of at least 2, got {seats!r}")
    if not 0 < edge < 1:
        raise ValueError(f"edge must be in (0, 1), got {edge}")
    if not 0 < alpha < 1 or not alpha < power < 1:
        raise ValueError(f"need 0 < alpha < power < 1, got alpha={alpha}, power={power}")
    if not -1 <= rho <= 1:
        raise ValueError(f"paired_correlation must be in [-1, 1], got {rho}")


# --- inputs ---------------------------------------------------------------------------------------------------


def _units(points, teams):
    """The points (games, units) per seat, or per team summed over its seats; the teams as a tuple of tuples."""
    points = np.asarray(points, dtype=float)
    if points.ndim != 2 or points.shape[0] < 2 or points.shape[1] < 2 or not np.isfinite(points).all():
        raise ValueError(f"need finite points (games, seats) of at least 2 games and 2 seats, got {points.shape}")
    if teams is None:
        return points, None
    teams = tuple(tuple(int(s) for s in team) for team in teams)
    seats = sorted(s for team in teams for s in team)
    if len(teams) < 2 or min(map(len, teams)) == 0 or seats != list(range(points.shape[1])):
        raise ValueError(f"teams must split the {points.shape[1]} seats into 2 or more teams, got {teams}")
    return np.stack([points[:, list(team)].sum(axis=1) for team in teams], axis=1), teams


def _fair(units, teams, points, total=1.0):
    """Each unit's fair part of the ``total`` a game hands out: a team's seats' count over the seats."""
    seats = np.shape(points)[1]
    return np.full(units, total / seats) if teams is None else np.array([total * len(t) / seats for t in teams])


def _pair(points_a, points_b, paired, teams):
    units_a, teams_a = _units(points_a, teams)
    units_b, _ = _units(points_b, teams)
    if units_a.shape[1] != units_b.shape[1] or np.shape(points_a)[1] != np.shape(points_b)[1]:
        raise ValueError(f"need the same seats in both variants, got {np.shape(points_a)}, {np.shape(points_b)}")
    if paired and units_a.shape != units_b.shape:
        raise ValueError(f"paired points need the same games in both variants, got {np.shape(points_a)}, "
                         f"{np.shape(points_b)}")
    if min(units_a.shape[0], units_b.shape[0]) <= units_a.shape[1]:
        raise ValueError(f"need more games than seats (teams), got {units_a.shape[0]}, {units_b.shape[0]}")
    return units_a, units_b, teams_a


def _cov(x):
    """Sample covariance over the games axis (-2), vectorised over leading axes."""
    c = x - x.mean(axis=-2, keepdims=True)
    return np.einsum("...ik,...il->...kl", c, c) / (x.shape[-2] - 1)


def _tr(m):
    return np.trace(m, axis1=-2, axis2=-1)


def _tr2(m):
    return np.einsum("...kl,...lk->...", m, m)
