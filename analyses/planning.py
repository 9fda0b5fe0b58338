"""How many games? Plans for the fairness questions of ``analyses.fairer``, from a guess or from results played.

From a guess (:func:`plan_guess`): the games per variant that find a seat (or team) edge of E between two variants
(``seat_shift``, per seat with Holm), and the games of one variant that show a fair game fair within E
(``fair_within``), at 80% and 95% power, by ``analyses.fairer.games_needed``.

From results (:func:`plan_results`): the seats or teams and the pairing that common deals give are measured on
the games, and for every variant against its baseline (the first variant of its player count and policies) the
games that decide "fairer" or "less fair" if the imbalance change these games show were the truth; for every
variant the games that show it fair within E if its observed shares were the truth. A plan from an estimate is
as good as the estimate: ``tests/test_calibration_plan.py`` measures the power each plan achieves.
"""

from __future__ import annotations

import dataclasses
import math
import textwrap
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from analyses import claims, context
from analyses.balance import common_teams
from analyses.data import DataError, paired_on_index
from analyses.fairer import DEFAULT_MARGIN, GamesPlan, detectable_edge, fairer_verdict, games_needed, imbalance_change
from analyses.paired import holm
from analyses.variants import baselines_of, pairing

POWERS = (0.8, 0.95)
ALPHA = 0.05
WIDTH = 110     # the terminal lines' length, as the verdicts' (analyses.report.WIDTH)


class PlanError(ValueError):
    """A planning input out of range: its ``name``, ``value`` and what is ``allowed``."""

    def __init__(self, name, value, allowed):
        super().__init__(f"{name} {value} is not allowed; allowed: {allowed}")
        self.name, self.value, self.allowed = name, value, allowed


# --- from a guess ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GuessPlan:
    """Games for an ``edge`` of ``seats`` seats (``teams`` equal teams, or None): ``shift`` per power of
    :data:`POWERS` the games per variant that find one unit moved by the edge, ``within`` the games of one
    fair variant that show every unit within the edge of fair."""

    seats: int
    teams: int | None
    edge: float
    alpha: float
    paired_correlation: float
    shift: tuple[GamesPlan, ...]
    within: tuple[GamesPlan, ...]


def plan_guess(seats: int, edge: float = DEFAULT_MARGIN, teams: int | None = None, paired_correlation: float = 0.0,
               alpha: float = ALPHA) -> GuessPlan:
    """Games needed for a guessed ``edge`` at :data:`POWERS`. A team game is planned with its teams as the unit
    (a fair team takes 1/teams of the points); ``paired_correlation`` is a seat's correlation between game i of
    two variants played on common deals (0: independent runs; ``simcore plan RESULTS`` measures it). At most as
    many ``seats`` as a registered game seats (:func:`most_seats`)."""
    check_guess(seats, edge, teams, paired_correlation, alpha)
    units = teams or seats
    return GuessPlan(seats=seats, teams=teams, edge=edge, alpha=alpha, paired_correlation=paired_correlation,
                     shift=tuple(games_needed(edge, units, p, alpha, paired_correlation) for p in POWERS),
                     within=tuple(games_needed(edge, units, p, alpha, test="fair_within") for p in POWERS))


def check_guess(seats, edge, teams, paired_correlation, alpha):
    """Raise :class:`PlanError` for the first input out of range."""
    most, game = most_seats()
    if not isinstance(seats, int | np.integer) or not 2 <= seats <= most:
        raise PlanError("seats", seats, f"a whole number from 2 to {most} (the most players of any game: {game})")
    if teams is not None and (not isinstance(teams, int | np.integer) or not 2 <= teams < seats
                              or seats % teams):
        raise PlanError("teams", teams, f"a number from 2 below {seats} that splits the {seats} seats into equal "
                                        "teams")
    check_edge(edge)
    if not 0 <= paired_correlation < 1:
        raise PlanError("paired_correlation", paired_correlation, "a correlation from 0 (independent runs) below 1")
    check_alpha(alpha)


# The smallest edge and error rate planned for: together they plan at most about 2 x 10^7 games a variant (22
# million for 2 seats at 95% power; 7.6 million at alpha 0.05), where an edge of 1e-9 planned 10^18 games and one
# of 1e-308 overflowed. An edge below a tenth of a percentage point is no question of a game's balance.
MIN_EDGE = 0.001
MIN_ALPHA = 1e-6


def most_seats():
    """``(seats, game)``: the most players any registered game seats, and that game (a guess of more seats is no
    game's; 1,000,000 seats planned 2 games)."""
    from simcore import games

    counts = {}
    for name in games.names():
        try:
            counts[name] = max(games.load(name).GAME.player_counts)
        except games.GameLoadError:      # a broken package seats no one (simcore games names it)
            continue
    game = max(counts, key=counts.get)
    return counts[game], game


def check_edge(edge):
    if not MIN_EDGE <= edge < 1:
        raise PlanError("edge", edge, f"a share of the points from {MIN_EDGE:g} below 1")


def check_alpha(alpha):
    # below 0.5: "fair within" is two one-sided tests at alpha, which show nothing at 0.5 or more
    if not MIN_ALPHA <= alpha < 0.5:
        raise PlanError("alpha", alpha, f"an error rate from {MIN_ALPHA:g} below 0.5")


def guess_lines(plan: GuessPlan) -> list[str]:
    """The plan for the terminal: what is assumed, a table, and the answer in one sentence."""
    unit = "team" if plan.teams else "seat"
    where = f"{plan.seats} seats in {plan.teams} teams" if plan.teams else f"{plan.seats} seats"
    pairing = (f"paired on common deals at rho = {plan.paired_correlation:.2f}" if plan.paired_correlation
               else "no pairing (independent runs)")
    shift, within = plan.shift, plan.within
    e = f"{plan.edge:.3f}"
    return [f"plan for {where}, an edge of {e}, alpha {plan.alpha:g}, {pairing}",
            _table(["question", "test", "80% power", "95% power"],
                   [[f"a {unit} moved by {e} between two variants (games per variant)",
                     f"per-{unit} t tests, Holm", *(f"{p.games:,}" for p in shift)],
                    [f"every {unit} within {e} of fair (games of one fair variant)",
                     f"two one-sided tests per {unit}", *(f"{p.games:,}" for p in within)]]),
            _wrap(f"To find a {unit} that moved by {e} between two variants with 80% power, play "
                  f"{shift[0].games:,} games of each ({shift[1].games:,} for 95%); to show a fair game fair within "
                  f"{e}, {within[0].games:,} games ({within[1].games:,}). Planned by {_METHOD}.")]


_METHOD = ("normal theory, conservatively: a seat's points varying as much as a win flag (shared wins and timeouts "
           "vary less), Bonferroni where the tests use Holm")


# --- from results ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChangePlan:
    """``variant`` against its ``baseline``: the imbalance change these ``games`` show (``estimate`` = D_variant -
    D_baseline, its standard error ``se`` and p-value; ``compared``: the games the test read) and, per power of
    :data:`POWERS`, the games per variant that decide it (``direction``: "fairer" or "less fair", where the
    estimate points) if the estimate were the truth (None: no change seen, which no number of games decides).
    ``adjusted_pvalue``: the p-value Holm-adjusted across every comparison of the plan (``family`` of them), as
    ``analyze`` adjusts its changes; ``verdict`` the word it decides (``analyses.claims.CHANGE``)."""

    variant: str
    baseline: str
    paired: bool
    paired_correlation: float
    games: int
    compared: int
    estimate: float
    se: float
    pvalue: float
    direction: str
    games_needed: tuple
    adjusted_pvalue: float = math.nan
    family: int = 1
    alpha: float = ALPHA

    @property
    def verdict(self):
        """"fairer" or "less fair" where the Holm-adjusted test decides it, else "no change found"."""
        return fairer_verdict(self.estimate, self.adjusted_pvalue, self.alpha)

    @property
    def decided(self):
        return self.verdict != "no change found"


@dataclass(frozen=True, eq=False)  # eq=False: the fields hold arrays, whose == is elementwise
class WithinPlan:
    """Games of ``variant`` that show every unit within ``margin`` of ``fair`` per power of :data:`POWERS` if its
    observed ``share`` were the truth; None where a unit is at or beyond the margin already (``outside``)."""

    variant: str
    share: np.ndarray
    fair: np.ndarray
    margin: float
    outside: tuple
    games_needed: tuple | None


@dataclass(frozen=True)
class GroupPlan:
    """The variants of one player count and policies. ``paired_correlation``: the smallest pairing measured
    between a variant and the baseline on common deals (0 when no pair shares deals), which the seat-edge plan
    ``shift`` (per power) uses; ``detectable``: the seat edge the fewest games played find with 80% power."""

    players: int
    policies: tuple
    baseline: str
    teams: tuple | None
    paired_correlation: float
    measured: bool
    shift: tuple[GamesPlan, ...]
    detectable: float
    games: int
    changes: tuple[ChangePlan, ...]
    within: tuple[WithinPlan, ...]


@dataclass(frozen=True)
class ResultsPlan:
    edge: float
    alpha: float
    groups: tuple[GroupPlan, ...]


def plan_results(results, edge: float = DEFAULT_MARGIN, alpha: float = ALPHA) -> ResultsPlan:
    """Plans from result files (``analyses.data.Result``), per group of like variants (same player count and
    policies, each against the group's first variant). Raises DataError for a variant with too few games."""
    check_edge(edge)
    check_alpha(alpha)
    bases = baselines_of(results)
    groups = {}
    for r in results:
        groups.setdefault(bases[r.name], []).append(r)
    return ResultsPlan(edge, alpha, _decide(tuple(_group(members, edge, alpha) for members in groups.values()),
                                            alpha))


def _decide(groups, alpha):
    """``groups`` with each change's p-value Holm-adjusted across every change of the plan: what decides it, as
    ``analyze`` decides "fairer" across the variants against their baselines (a change decided at its own p
    would be a word ``analyze`` does not say)."""
    changes = [c for g in groups for c in g.changes]
    adjusted = iter(holm([c.pvalue for c in changes]) if changes else [])
    return tuple(dataclasses.replace(g, changes=tuple(
        dataclasses.replace(c, adjusted_pvalue=float(next(adjusted)), family=len(changes), alpha=alpha)
        for c in g.changes)) for g in groups)


def _group(members, edge, alpha):
    base = members[0]
    teams = _teams(members)
    units = len(teams) if teams else base.players
    for r in members:
        if r.n_games <= units:
            raise DataError(f"{r.path} holds {r.n_games} game{'s' * (r.n_games > 1)}: a plan from results needs more "
                            f"games than its {units} {'teams' if teams else 'seats'}; allowed: a result of "
                            f"{units + 1} or more games")
    changes = tuple(_change(base, r, teams, units, alpha) for r in members[1:])
    measured = [c.paired_correlation for c in changes if c.paired]
    rho = min(measured) if measured else 0.0
    fewest = min(r.n_games for r in members)
    return GroupPlan(players=base.players, policies=tuple(base.policies), baseline=base.name, teams=teams,
                     paired_correlation=rho, measured=bool(measured),
                     shift=tuple(games_needed(edge, units, p, alpha, rho) for p in POWERS),
                     detectable=detectable_edge(fewest, units, POWERS[0], alpha, rho).edge, games=fewest,
                     changes=changes, within=tuple(_within(r, teams, edge, alpha) for r in members))


def _teams(members):
    """The group's teams: seats whose wins agree in every game of every variant (as ``analyses.variants.fairness``
    asks of both variants), or None when each seat plays for itself."""
    return common_teams(np.vstack([r.wins for r in members]))


def _change(base, r, teams, units, alpha):
    points_a, points_b = base.points, r.points
    ia, ib = paired_on_index(base, r)
    paired = base.seed == r.seed and len(ia) > units     # common deals: the same seed and game indices
    if paired:
        points_a, points_b = points_a[ia], points_b[ib]
    change = imbalance_change(points_a, points_b, paired, teams, 1 - alpha)
    # unpaired runs of unequal length: the longer one's count makes the per-game variance come out largest
    games = len(points_a) if paired else max(len(points_a), len(points_b))
    return ChangePlan(variant=r.name, baseline=base.name, paired=paired,
                      paired_correlation=pairing(points_a, points_b) if paired else 0.0, games=games,
                      compared=len(points_a) if paired else len(points_a) + len(points_b),
                      estimate=change.estimate, se=change.se, pvalue=change.pvalue,
                      direction="fairer" if change.estimate < 0 else "less fair",
                      games_needed=tuple(games_to_decide(change.estimate, change.se, games, p, alpha, units)
                                         for p in POWERS))


def games_to_decide(estimate: float, se: float, games: int, power: float, alpha: float = ALPHA,
                    units: int = 2) -> int | None:
    """Games per variant that find an imbalance change of ``estimate`` with ``power`` by the two-sided test at
    ``alpha``, when ``games`` gave it the standard error ``se``: games ((z_{1-alpha/2} + z_power) se / |estimate|)^2.

    The standard error falls as 1 / sqrt(games) where a seat is off fair and faster at a fair game (the
    U-statistic's second term falls as 1 / games), so scaling it up from fewer games is conservative and down
    from more is not. None when the estimate is 0; at least ``units`` + 1 games, the fewest the test takes."""
    if estimate == 0:
        return None
    z = -special.ndtri(alpha / 2) - special.ndtri(1 - power)
    return max(math.ceil(games * (z * se / abs(estimate)) ** 2), units + 1)


def _within(r, teams, margin, alpha):
    units = r.points if teams is None else np.stack([r.points[:, list(t)].sum(axis=1) for t in teams], axis=1)
    fair = np.full(r.players, 1 / r.players) if teams is None else np.array([len(t) / r.players for t in teams])
    share, sd = units.mean(axis=0), units.std(axis=0, ddof=1)
    outside = tuple(int(k) for k in np.flatnonzero(np.abs(share - fair) >= margin))
    needed = None if outside else tuple(games_within(share - fair, sd, margin, p, alpha) for p in POWERS)
    return WithinPlan(variant=r.name, share=share, fair=fair, margin=margin, outside=outside, games_needed=needed)


def games_within(deviation, sd, margin: float, power: float, alpha: float = ALPHA) -> int:
    """Games that show every unit within ``margin`` of fair with ``power`` when its share is fair + ``deviation``
    and a game's points vary by ``sd`` (arrays, one entry a unit, every |deviation| below the margin).

    Each unit's two one-sided tests at ``alpha`` (``analyses.fairer.fair_within``) must all pass: planned by normal
    theory so that the chances that each of them misses add up to at most 1 - power (the union bound:
    conservative). At a fair game each of the 2 x units tests then misses with (1 - power) / (2 units), as
    ``analyses.fairer.games_needed`` plans it; off fair the bounds nearest a share take the most of it."""
    room = margin + np.concatenate([-np.asarray(deviation, float), np.asarray(deviation, float)])
    spread = np.tile(np.asarray(sd, dtype=float), 2)
    z_alpha = -special.ndtri(alpha)

    def excess(games):     # the chance that some test misses at ``games``, less what the power allows
        with np.errstate(divide="ignore"):
            distance = np.where(spread > 0, math.sqrt(games) * room / spread, np.inf)
        return special.ndtr(z_alpha - distance).sum() - (1 - power)

    high = 2.0
    while excess(high) > 0:
        high *= 2
    return 2 if high == 2 else max(math.ceil(optimize.brentq(excess, high / 2, high, xtol=0.5)), 2)


def results_lines(plan: ResultsPlan, results) -> list[str]:
    """The plan for the terminal: what the ``results`` are of, then per group what was measured, the seat-edge
    plan and the two tables, then what the plans rest on."""
    head = (f"{results[0].game}: {len(results)} variant{'s' * (len(results) > 1)}, "
            f"{sum(r.n_games for r in results):,} games, seed {', '.join(map(str, sorted({r.seed for r in results})))}")
    common = context.shared(results)
    lines = [head, f"every variant: {common}"] if common else [head] + [f"{r.name}: {context.of_result(r)}"
                                                                        for r in results]
    rules = {r.name: context.rules_of_result(r) for r in results}
    for g in plan.groups:
        lines += ["", *_group_lines(g, plan, rules)]
    e = f"{plan.edge:.3f}"
    return lines + ["", _wrap(
        "A plan from estimates: the games needed if what these games show were the truth, so only as good as they "
        "are (a change near 0 plans many games for a change too small to matter). Tests: per-seat (per-team) t "
        f"tests with Holm (an edge of {e}), the imbalance change Σ(share - fair)² by its U-statistic standard error "
        f"(its verdict decided at p < {plan.alpha:g}, Holm across the variants as analyze decides it; the games "
        f"beside it decide where the estimate points), two one-sided tests per seat (fair within {e}).")]


def change_claims(plan: ResultsPlan):
    """The CHANGE claim of every comparison of a plan from results: the word its Holm-adjusted imbalance test
    decides, as ``analyze`` claims it (``analyses.claims.change_claim``), with the plan's numbers."""
    out = []
    for g in plan.groups:
        for c in g.changes:
            paired = "paired on common deals" if c.paired else "unpaired (different seeds)"
            numbers = {"estimate": c.estimate, "se": c.se, "pvalue": c.pvalue, "adjusted_pvalue": c.adjusted_pvalue,
                       "points_to": _direction(c), "games_needed": _powers(c.games_needed)}
            out.append(claims.Claim(c.variant, c.verdict, f"imbalance test: the change of Σ(share - fair)², {paired}",
                                    c.compared, claims._holm(c.family), c.alpha, numbers, against=c.baseline))
    return out


def results_document(plan: ResultsPlan, results) -> str:
    """The plan from results as the JSON of ``analyses.claims.SCHEMA`` (``simcore plan RESULTS --json``): per group
    what was measured and the games a unit's move needs, per variant the games that decide its change and show
    it fair within E at each power, then the change claims."""
    games = {r.name: r.n_games for r in results}
    groups = []
    for g in plan.groups:
        changes = {c.variant: c for c in g.changes}
        variants = [{"name": w.variant, "games": games[w.variant],
                     "change": _change_entry(changes[w.variant]) if w.variant in changes else None,
                     "fair_within": {"margin": w.margin, "outside": [_unit(g, k) for k in w.outside],
                                     "games_needed": None if w.games_needed is None else _powers(w.games_needed)}}
                    for w in g.within]
        groups.append({"players": g.players, "policies": list(g.policies), "baseline": g.baseline,
                       "units": [_unit(g, k) for k in range(len(g.teams) if g.teams else g.players)],
                       "paired_correlation": g.paired_correlation, "measured": g.measured, "games": g.games,
                       "detectable": g.detectable,
                       "unit_moved": {"edge": plan.edge, "games_needed": _powers(p.games for p in g.shift)},
                       "variants": variants})
    return claims.document(change_claims(plan), plan={"edge": plan.edge, "alpha": plan.alpha, "groups": groups})


def guess_document(plan: GuessPlan) -> str:
    """The plan from a guess as the JSON of ``analyses.claims.SCHEMA`` (``simcore plan --seats N --json``): the
    games each question needs at each power; no games played, so no claims."""
    return claims.document([], plan={
        "seats": plan.seats, "teams": plan.teams, "edge": plan.edge, "alpha": plan.alpha,
        "paired_correlation": plan.paired_correlation,
        "unit_moved": {"games_needed": _powers(p.games for p in plan.shift)},
        "fair_within": {"games_needed": _powers(p.games for p in plan.within)}})


def _change_entry(c):
    return {"against": c.baseline, "paired": c.paired, "paired_correlation": c.paired_correlation,
            "games_compared": c.compared, "estimate": c.estimate, "se": c.se, "pvalue": c.pvalue,
            "adjusted_pvalue": c.adjusted_pvalue, "verdict": c.verdict, "points_to": _direction(c),
            "games_needed": _powers(c.games_needed)}


def _direction(c):
    """Where the estimate points ("fairer", "less fair"), None when it is 0."""
    return None if c.games_needed[0] is None else c.direction


def _powers(values):
    """{"80%": games, "95%": games}: one entry a power of :data:`POWERS`."""
    return {f"{p:.0%}": v for p, v in zip(POWERS, values, strict=True)}


def _group_lines(g, plan, rules):
    unit = "team" if g.teams else "seat"
    units = (f"teams {' and '.join(map(_team, g.teams))}" if g.teams
             else f"{g.players} seats, each for itself")
    pairing = (f"paired on common deals, rho = {g.paired_correlation:.2f} measured (the smallest of the variants "
               "against the baseline)" if g.measured else "no two variants on common deals here: planned unpaired")
    e = f"{plan.edge:.3f}"
    policies = context.policies_text(g.policies or ["(not recorded)"])
    lines = [_wrap(f"{g.players} players, {policies}, baseline {g.baseline}: {units}; {pairing}."),
             _wrap(f"A {unit} that moves by {e} between two variants is found with 80% power in {g.shift[0].games:,} "
                   f"games per variant, 95% in {g.shift[1].games:,} (these {g.games:,} games find "
                   f"an edge of {g.detectable:.3f} with 80% power).", indent="  ")]
    if g.changes:
        holm_ = " (Holm)" * (g.changes[0].family > 1)
        lines.append(_table(["variant", "against", "paired (rho)", "imbalance change", "se", f"p{holm_}", "verdict",
                             "the estimate points to", "80% power", "95% power"],
                            [[c.variant, c.baseline, f"yes ({c.paired_correlation:.2f})" if c.paired else "no",
                              _small(c.estimate, "+"), _small(c.se), _p(c.adjusted_pvalue), c.verdict,
                              _points_to(c), *(_games(n) for n in c.games_needed)] for c in g.changes]))
    lines.append(_table(["variant", "rules", f"{unit} shares", f"fair within {e}: 80% power", "95% power"],
                        [[w.variant, rules[w.variant], ", ".join(f"{s:.3f}" for s in w.share),
                          *_within_cells(w, g, e)] for w in g.within]))
    return lines


def _unit(g, k):
    return f"seat {k}" if g.teams is None else f"team {_team(g.teams[k])}"


def _team(seats):
    return "+".join(map(str, seats))


def _wrap(text, indent=""):
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)


def _points_to(c):
    """Where the estimate points, and whether the test decided it: the games beside it decide that direction if
    the estimate were the truth; a direction not decided is no verdict ("fairer" beside p = 0.70 read as one)."""
    direction = _direction(c)
    if direction is None:
        return "(no change seen)"
    return direction if c.decided else f"{direction} (not decided)"


def _within_cells(w, g, e):
    if w.games_needed is None:
        named = ", ".join(f"{_unit(g, k)} {w.share[k] - w.fair[k]:+.3f}" for k in w.outside)
        return [f"cannot be shown: {named} (beyond {e})", "-"]
    return [f"{n:,}" for n in w.games_needed]


def _small(x, sign=""):
    """An imbalance (a sum of squared edges): 4 decimals, or 2 significant digits below 0.001 (a change that
    small shows as +0.0000 otherwise)."""
    return f"{x:{sign}.4f}" if abs(x) >= 1e-3 or x == 0 else f"{x:{sign}.1e}"


def _games(n):
    return "-" if n is None else f"{n:,}"


def _p(p):
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def _table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(map(str, row)) + " |" for row in rows])
