"""Play until decided (``simcore sweep --until-decided``): each variant stops once its verdict is shown.

A sweep played until decided plays every variant in looks of a planned, doubling number of games (``first_look``,
2 ``first_look``, 4 ``first_look``, ... and the cap, ``--games``) and after each look asks two questions of the
variant's per-game points (``analyses.scoring.points``; teams, found by ``analyses.balance.find_teams``, are one
unit each, as in ``analyses.fairer``):

* **unbalanced**: does some unit's share differ from fair? Hotelling's one-sample T² of the per-game points
  against the fair shares, in its score form (the covariance centred at fair, not at the mean: the usual form is
  far too liberal in the tail these small levels reach; :func:`look_pvalues`), F p-value;
* **fair within E**: is every unit's share within ``margin`` of fair? ``analyses.fairer.fair_within``'s two
  one-sided t tests per unit, intersection-union (its p-value is the largest unit's).

The variant stops at the first look where either p-value falls below the look's level, or at the cap, where it
is *undecided*. The error is held over every look and every variant by the union bound: each variant's share
``alpha / variants`` is spent over its looks in proportion to their games (look k at ``alpha / variants x
games_k / sum of the looks' games``), so the chance that a test ever rejects a true null of a variant, at any
look, is at most ``alpha / variants``, and the chance of a false verdict in any variant at most ``alpha``. The
two verdicts need no split of ``alpha`` between them: "unbalanced" is false only for an exactly fair variant and
"fair within E" only for a variant with a unit at least E from fair, never both, so each variant can give at
most one false verdict. Which verdict comes first does not matter to the bound either: a false verdict at the
stop is a rejection at some look.

Why the union bound and not a group-sequential boundary (O'Brien-Fleming, Pocock) or a GSPRT: those use the
correlation between looks to spend less, but are derived for one normal statistic; here there are two tests,
one a T² on several degrees of freedom and one the maximum of per-unit TOSTs, and a boundary computed for them
would rest on approximations of their joint distribution over looks that would need their own calibration. The
union bound needs nothing but each look's level, and costs little: with doubling looks a variant's looks are few
(6 from 1,000 to 20,000 games), and the levels move a critical value by little (the cap's 0.00073 against a
fixed run's 0.05 / 27 = 0.0019: z = 3.4 instead of 3.1 for one degree of freedom). Why in proportion to the
games: a far-from-fair variant is decided early whatever its look's level (its statistic grows with the games),
while the close calls are made at the last looks, which thus get the most (spent equally over the looks, a
4-seat game with an edge of 0.01 was left undecided at 20,000 games 29% of the time instead of 14%). Looks double
because the games needed to find an edge grow as 1 / edge², so a doubling schedule reaches any edge's games
within a factor 2 in few looks. Measured: docs/explanation/statistics.md, "Played until decided".

``tests/test_calibration_until_decided.py`` measures the false verdict rates by simulation (2 to 5 seats, teams,
shared wins, timeouts); ``benchmarks/until_decided.py`` measures the power and the games saved on the Zwai
formations. Intervals and tests of the games after the stop are those of a fixed number of games, which the
stop chose by looking at them: the sentence says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import special

from analyses import fairer
from analyses.balance import common_teams
from analyses.data import DataError
from analyses.scoring import points
from analyses.verdict import ALPHA, _p_is, unit_name, worst_unit

MIN_FIRST_LOOK = 100       # below, one look's T² exceeds the small levels a look needs by far (statistics.md)
DEFAULT_FIRST_LOOK = 1000
UNBALANCED, FAIR, BOTH, UNDECIDED = "unbalanced", "fair within", "unbalanced and fair within", "undecided"
VERDICTS = (UNBALANCED, FAIR, BOTH, UNDECIDED)
_CODES = ("", UNBALANCED, FAIR, BOTH)     # verdict_codes' 0 to 3


class PlanError(ValueError):
    """An until-decided plan that cannot be played (one-line message)."""


@dataclass(frozen=True)
class SequentialPlan:
    """The looks (games per variant at each), the margin E, the overall error ``alpha`` and the number of
    variants it is shared by; ``levels`` are each test's level at each look: ``alpha / variants`` spent over the
    looks in proportion to their games."""

    looks: tuple
    margin: float
    variants: int
    alpha: float = ALPHA

    @property
    def levels(self) -> tuple:
        return tuple(self.alpha / self.variants * n / sum(self.looks) for n in self.looks)

    def to_dict(self) -> dict:
        return {"looks": list(self.looks), "margin": self.margin, "variants": self.variants, "alpha": self.alpha,
                "levels": list(self.levels)}

    @classmethod
    def from_dict(cls, record) -> SequentialPlan:
        if not is_margin(record["margin"]):     # a manifest's NaN: one line naming it (the reader says whose)
            raise ValueError(f"the margin {record['margin']!r} of a sweep until decided; allowed: a margin above 0 "
                             "and below 0.5, as simcore writes it")
        return cls(tuple(record["looks"]), float(record["margin"]), int(record["variants"]), float(record["alpha"]))

    def describe(self) -> str:
        """The options that made the plan, as a user gives them."""
        return (f"--margin {self.margin:g} --first-look {self.looks[0]:,} --games {self.looks[-1]:,} over "
                f"{self.variants} variants")


def is_margin(margin) -> bool:
    """Is ``margin`` one a sweep until decided may be played with: a number above 0 and below 0.5 (a manifest's
    NaN or infinity is none)?"""
    return isinstance(margin, int | float) and not isinstance(margin, bool) and 0 < margin < 0.5


def plan(first_look: int, cap: int, margin: float, variants: int, alpha: float = ALPHA) -> SequentialPlan:
    """The plan of a sweep until decided: looks at ``first_look``, twice that, ... and ``cap`` games a variant;
    :class:`PlanError` in one line for a value that is not allowed."""
    if not is_margin(margin):
        raise PlanError(f"--margin {margin:g} is not allowed; allowed: above 0 and below 0.5 (a share of the "
                        "points, e.g. 0.02)")
    if not isinstance(cap, int) or cap < MIN_FIRST_LOOK:
        raise PlanError(f"--games {cap} is not allowed with --until-decided; allowed: at least {MIN_FIRST_LOOK} "
                        "(the most games a variant plays)")
    if not isinstance(first_look, int) or not MIN_FIRST_LOOK <= first_look <= cap:
        raise PlanError(f"--first-look {first_look} is not allowed; allowed: {MIN_FIRST_LOOK:,} to the cap "
                        f"(--games, {cap:,})")
    looks = [first_look]
    while looks[-1] * 2 < cap:
        looks.append(looks[-1] * 2)
    if looks[-1] != cap:
        looks.append(cap)
    return SequentialPlan(tuple(looks), float(margin), int(variants), alpha)


@dataclass(frozen=True, eq=False)      # eq=False: arrays
class LookResult:
    """One look at a variant: its games, the p-values of "some unit differs from fair" (``unbalanced_p``,
    Hotelling's T²) and of "every unit within the margin" (``fair_p``, TOST), the level they are held to, each
    unit's share and fair share, and the verdict: "unbalanced", "fair within", both, "undecided" (at the last
    look) or "" (go on)."""

    games: int
    look: int                # 1 for the first look
    looks: int
    level: float
    margin: float
    unbalanced_p: float
    fair_p: float
    share: np.ndarray
    fair: np.ndarray
    teams: tuple | None
    verdict: str


def moments(units, fair):
    """``(n, d, m)`` of the per-game points of the units (..., games, units): the games, the mean deviation from
    ``fair`` and the mean of its outer product (y - fair)(y - fair)', centred at fair, not at the mean (see
    :func:`look_pvalues`)."""
    z = np.asarray(units, dtype=float) - fair
    return z.shape[-2], z.mean(axis=-2), np.einsum("...ik,...il->...kl", z, z) / z.shape[-2]


def look_pvalues(n, d, m, margin):
    """``(unbalanced_p, fair_p)`` from a look's :func:`moments`, vectorised over leading axes.

    ``unbalanced_p``: the score form of Hotelling's T², T0² = n d' m⁺ d, whose covariance is centred at the fair
    shares (the null) instead of the sample mean, referred to F as Hotelling's: T0² (n - p) / (p (n - 1)) on
    (p, n - p) degrees of freedom, p the rank of m (units - 1 when points sum to 1 a game). d is a mean of the rows
    whose outer products make m, so it lies in m's range and T0² <= n: no direction is noiseless. Measured at the
    small levels a look is held to (``benchmarks/until_decided.py tails``): at 0.0017 the usual T² (covariance
    about the mean) rejected a fair game of 5 seats 3.4 times as often as its level at 100 games and 1.16 times
    at 1,000, T0² 1.16 and 1.03 times (T0² against chi-square instead of F: 2.5 times at 100); the union bound
    over correlated looks takes up the rest (tests/test_calibration_until_decided.py).

    ``fair_p``: ``analyses.fairer.fair_within``'s test from the same moments: each unit's two one-sided t tests of
    its share against fair -+ margin, the largest p-value over the units (intersection-union).
    """
    n, d, m = np.asarray(n, dtype=float), np.asarray(d, dtype=float), np.asarray(m, dtype=float)
    w, vec = np.linalg.eigh(m)
    kept = w > np.maximum(fairer._TOL * w.max(axis=-1, keepdims=True), fairer._FLOOR)
    rank = kept.sum(axis=-1)
    proj = np.einsum("...ki,...k->...i", vec, d)
    t0 = n * np.where(kept, proj ** 2 / np.where(kept, w, 1.0), 0.0).sum(axis=-1)
    p = np.maximum(rank, 1)
    unbalanced_p = np.where(rank > 0, special.fdtrc(p, n - p, t0 * (n - p) / (p * (n - 1))), 1.0)
    each = n[..., None]        # the games, for each unit
    var = np.maximum(np.diagonal(m, axis1=-2, axis2=-1) - d ** 2, 0.0) * each / (each - 1)
    se = np.sqrt(var / each)
    with np.errstate(invalid="ignore", divide="ignore"):
        safe = np.where(se > 0, se, 1.0)
        tost = np.maximum(special.stdtr(each - 1, -(d + margin) / safe),
                          special.stdtr(each - 1, -(margin - d) / safe))
    fair_p = np.where(se > 0, tost, np.where(np.abs(d) < margin, 0.0, 1.0)).max(axis=-1)
    return unbalanced_p, fair_p


def verdict_codes(unbalanced_p, fair_p, level):
    """0 (nothing shown), 1 (unbalanced), 2 (fair within) or 3 (both), vectorised; the code of a verdict is its
    index in ``_CODES``."""
    return (np.asarray(unbalanced_p) < level).astype(int) + 2 * (np.asarray(fair_p) < level)


def look(wins, plan_: SequentialPlan, index: int) -> LookResult:
    """Look ``index`` (0 for the first) at a variant's games, given as their win flags (games, seats): the
    tests, and the verdict at ``plan_``'s level."""
    wins = np.asarray(wins, dtype=bool)
    units, teams = fairer._units(points(wins), common_teams(wins))
    fair = fairer._fair(units.shape[1], teams, wins)
    unbalanced_p, fair_p = (float(p) for p in look_pvalues(*moments(units, fair), plan_.margin))
    verdict = _CODES[int(verdict_codes(unbalanced_p, fair_p, plan_.levels[index]))]
    if not verdict and index == len(plan_.looks) - 1:
        verdict = UNDECIDED
    return LookResult(games=wins.shape[0], look=index + 1, looks=len(plan_.looks), level=plan_.levels[index],
                      margin=plan_.margin, unbalanced_p=unbalanced_p, fair_p=fair_p, share=units.mean(axis=0),
                      fair=fair, teams=teams, verdict=verdict)


# --- the record of a variant's looks (the sweep's manifest) and its sentence ---------------------------------------


def record(result: LookResult, earlier=()) -> dict:
    """What the manifest keeps of a variant's looks: each look's games and p-values (``earlier``: the looks
    before ``result``, as an earlier record holds them), the verdict ("" while it goes on), the latest shares and
    the alpha each test has spent (the levels of the looks made)."""
    looks = [*earlier, {"games": result.games, "level": result.level, "unbalanced_p": result.unbalanced_p,
                        "fair_p": result.fair_p}]
    return {"looks": looks, "verdict": result.verdict, "share": result.share.tolist(), "fair": result.fair.tolist(),
            "teams": None if result.teams is None else [list(t) for t in result.teams],
            "alpha_spent": sum(look["level"] for look in looks)}


@dataclass(frozen=True)
class Decision:
    """A variant's sequential verdict as its sweep's manifest records it."""

    verdict: str
    games: int
    looks_made: int
    plan: SequentialPlan
    unbalanced_p: float
    fair_p: float
    share: tuple
    fair: tuple
    teams: tuple | None
    alpha_spent: float

    @classmethod
    def from_record(cls, entry: dict, plan_: SequentialPlan) -> Decision:
        kept = entry["looks"]
        teams = entry.get("teams")
        return cls(verdict=entry["verdict"], games=int(kept[-1]["games"]), looks_made=len(kept), plan=plan_,
                   unbalanced_p=float(kept[-1]["unbalanced_p"]), fair_p=float(kept[-1]["fair_p"]),
                   share=tuple(entry["share"]), fair=tuple(entry["fair"]),
                   teams=None if teams is None else tuple(tuple(t) for t in teams),
                   alpha_spent=float(entry["alpha_spent"]))


def decision_sentence(decision: Decision) -> str:
    """One Markdown sentence: the variant's sequential verdict, when and by which test it was decided, the level
    its look needed for the error over every look and variant, and that the fixed-sample analyses after it
    ignore the stop."""
    plan_ = decision.plan
    held = (f"this look needing p below {plan_.levels[decision.looks_made - 1]:.2g}, the error spent over the looks "
            f"in proportion to their games so that a false verdict in any of the {plan_.variants} "
            f"variant{'s' * (plan_.variants > 1)} at any look stays below {plan_.alpha:.0%}")
    where = f"{decision.games:,} games, look {decision.looks_made} of {len(plan_.looks)}"
    worst = worst_unit(decision.share, decision.fair)
    edge = decision.share[worst] - decision.fair[worst]
    unit = (worst,) if decision.teams is None else decision.teams[worst]
    seat = (f"{unit_name(unit)} takes {decision.share[worst]:.3f} points a game against a fair "
            f"{decision.fair[worst]:.3f} (edge {edge:+.3f})")
    t2 = f"Hotelling's T² of the {'teams' if decision.teams else 'seats'}' points against fair, " + \
        _p_is("p", decision.unbalanced_p)
    tost = f"two one-sided tests per {'team' if decision.teams else 'seat'}, " + _p_is("p", decision.fair_p)
    after = "The tests below are fixed-sample tests of games whose number the stop chose: read them as estimates."
    if decision.verdict == UNBALANCED:
        return f"**Unbalanced** (played until decided: shown at {where}, by {t2}; {held}): {seat}. {after}"
    if decision.verdict == FAIR:
        return (f"**Fair within {plan_.margin:g}** (played until decided: shown at {where}, by {tost}; {held}): "
                f"furthest from fair, {seat}. "
                f"{after}")
    if decision.verdict == BOTH:
        return (f"**Unbalanced, yet fair within {plan_.margin:g}** (played until decided: both shown at {where}, by "
                f"{t2} and {tost}; {held}): {seat}, an edge shown real and shown below {plan_.margin:g}. {after}")
    if decision.verdict == UNDECIDED:
        return (f"**Undecided** at the cap of {decision.games:,} games (played until decided, {len(plan_.looks)} "
                f"looks, {held}): neither an edge ({t2}) nor fairness within {plan_.margin:g} ({tost}) was shown; "
                f"{seat}. {after}")
    return (f"**Not yet decided** (played until decided, stopped after {where}: {t2}; {tost}): run the sweep "
            "again to go on.")


def decisions(results) -> dict:
    """``{variant: Decision}`` for each result whose folder was swept until decided and whose manifest entry is
    of that very file (its name and games), else nothing for it."""
    from simcore.io.manifest import read_manifest

    out, manifests = {}, {}
    for r in results:
        folder = Path(r.path).parent
        manifest = manifests.setdefault(folder, read_manifest(folder))
        decision = _decision(manifest, r)
        if decision is not None:
            out[r.name] = decision
    return out


def swept_margin(results):
    """The margin E the results' folders were swept until decided with, when they agree on one; else None (not
    swept until decided, or with several margins)."""
    from simcore.io.manifest import MANIFEST, read_manifest

    margins = set()
    for folder in {Path(r.path).parent for r in results}:
        plan_ = read_manifest(folder).get("until_decided")
        if isinstance(plan_, dict) and "margin" in plan_:
            try:                # NaN was a ValueError traceback in the tests that read it
                margins.add(SequentialPlan.from_dict(plan_).margin)
            except ValueError as e:
                raise DataError(f"{folder / MANIFEST} records {e}") from None
            except (KeyError, TypeError):   # a plan cut short: reading the folder refused it (analyses.data)
                continue
    return margins.pop() if len(margins) == 1 else None


def _decision(manifest, result):
    """The result's :class:`Decision` from its folder's manifest, or None (not swept until decided, or the entry is
    of another file)."""
    sequential = manifest.get("until_decided")
    entry = manifest["variants"].get(result.name)
    if not isinstance(sequential, dict) or not isinstance(entry, dict) or "sequential" not in entry:
        return None
    if entry.get("file") != Path(result.path).name or entry.get("rows") != result.n_games:
        return None
    try:
        return Decision.from_record(entry["sequential"], SequentialPlan.from_dict(sequential))
    except (KeyError, TypeError, ValueError, IndexError):
        return None      # a manifest edited by hand: no sequential sentence rather than a traceback



def look_words(result: LookResult) -> str:
    """A look's finding in a few words, for the progress lines: the verdict (or "goes on"), the games and both
    p-values."""
    words = {UNBALANCED: "unbalanced", FAIR: f"fair within {result.margin:g}",
             BOTH: f"unbalanced, fair within {result.margin:g}", UNDECIDED: "undecided at the cap", "": "goes on"}
    return (f"{words[result.verdict]} at {result.games:,} games ({_p_is('T² p', result.unbalanced_p)}, "
            f"{_p_is('TOST p', result.fair_p)})")
