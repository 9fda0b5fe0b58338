"""Comparing variants: paired on common random numbers where the seeds allow, Holm across many."""

import dataclasses
from dataclasses import dataclass

import numpy as np
from scipy import stats

from analyses.balance import common_teams
from analyses.data import DataError, paired_on_index
from analyses.fairer import detectable_edge, fairer_verdict, imbalance_change, measured_edge, seat_shift
from analyses.paired import holm, paired_binary, paired_numeric, unpaired_binary, unpaired_numeric
from analyses.verdict import ALPHA, _p_is, unit_name


@dataclass(frozen=True)
class Comparison:
    """Variant ``a`` against ``b`` on one metric (effect = a - b)."""

    metric: str
    a: str
    b: str
    paired: bool
    result: object            # a Paired*/Unpaired* result of analyses.paired
    adjusted_pvalue: float    # Holm-adjusted within its family (= pvalue when alone)

    @property
    def kind(self):
        return "binary" if "Binary" in type(self.result).__name__ else "numeric"


# what the report compares each variant with its baseline on besides its fairness (:func:`fairness_against`)
REPORT_METRICS = ("n_turns",)


def default_metrics(a, b):
    """Every seat's points (a win 1, a k-way shared win 1/k, nobody's win 1/players), or its margin when they
    are scored by margins, the two have in common and the game length; whether one is fairer is
    :func:`fairness`'s."""
    seats = min(a.players, b.players)
    return [f"{'margin' if a.score == 'margin' else 'points'}_{i}" for i in range(seats)] + ["n_turns"]


def check_comparable(a, b):
    """Refuse different games; say whether the pair is paired (same seed) or not."""
    if a.game != b.game:
        raise DataError(f"cannot compare {a.path} ({a.game}) with {b.path} ({b.game}): different games")
    return a.seed == b.seed


def unlike(a, b):
    """A warning when ``a`` and ``b`` differ in their player count or their seats' policies (a comparison of
    them measures that difference too, not only the rules'), else None."""
    what = [w for w, differs in (("player counts", a.players != b.players),
                                 ("policies", a.policies != b.policies)) if differs]
    if not what:
        return None
    scale = (f"; a seat's fair share is 1/{a.players} in one and 1/{b.players} in the other, so read an edge "
             "relative to its fair share (share / fair - 1), as analyze's overview ranks them"
             if a.players != b.players else "")
    return (f"warning: {a.name} and {b.name} differ in their {' and '.join(what)} ({a.players} players, "
            f"{', '.join(a.policies)} against {b.players} players, {', '.join(b.policies)}): the comparison "
            f"measures that too, not only the rules{scale}")


def compare_metric(a, b, metric, paired):
    """A yes/no column by McNemar (paired) or a two-proportion test; a numeric one (points, turns, scores) by
    the paired t test or Welch's: p-value and interval from one test of the mean difference."""
    xa, xb = a.column(metric), b.column(metric)
    binary = xa.dtype == bool
    if paired:
        ia, ib = paired_on_index(a, b)
        if len(ia) == 0:
            raise DataError(f"{a.path} and {b.path} share no game index; nothing to pair")
        xa, xb = xa[ia], xb[ib]
        return paired_binary(xa, xb) if binary else paired_numeric(xa, xb)
    if not binary and min(xa.size, xb.size) < 2:     # Welch's test estimates each run's spread from its games
        few = a if xa.size < 2 else b
        raise DataError(f"{few.path} holds {few.n_games} game: comparing {metric} of runs with different seeds (no "
                        "game pairs with another) needs a spread in each; allowed: 2 or more games in each file")
    return unpaired_binary(xa, xb) if binary else unpaired_numeric(xa, xb)


def compare(a, b, metrics=None):
    """Each metric of ``a`` against ``b``, but a metric that takes one value in every game of both (a fixed
    length: nothing to test); Holm across the metrics tested. Returns (comparisons, untested: [(metric, a's
    name, b's name, value)]), as :func:`against_baseline`."""
    paired = check_comparable(a, b)
    tested, untested = [], []
    for m in metrics or default_metrics(a, b):
        value = _fixed(a.column(m), b.column(m))
        if value is None:
            tested.append(m)
        else:
            untested.append((m, a.name, b.name, value))
    results = [compare_metric(a, b, m, paired) for m in tested]
    adjusted = holm([r.pvalue for r in results]) if results else []
    return [Comparison(m, a.name, b.name, paired, r, float(p))
            for m, r, p in zip(tested, results, adjusted, strict=True)], untested


def _like(result):
    """What a comparison holds fixed: the player count and every seat's policy."""
    return result.players, tuple(result.policies)


def baselines_of(results, named=()):
    """Each variant's baseline: the variant of its group (same player count and policies) named in ``named``,
    else the group's first; {variant name: baseline name}. Raises DataError when ``named`` names two
    baselines of one group."""
    chosen = {}
    for r in results:
        if r.name in named:
            if _like(r) in chosen:
                raise DataError(f"--baseline {chosen[_like(r)]} and {r.name} are of the same player count and "
                                "policies; allowed: one baseline per group")
            chosen[_like(r)] = r.name
    for r in results:
        chosen.setdefault(_like(r), r.name)
    return {r.name: chosen[_like(r)] for r in results}


def _fixed(xa, xb):
    """The one value both columns take in every game (a fixed length), or None: nothing to test."""
    low, high = min(xa.min(), xb.min()), max(xa.max(), xb.max())
    return low.item() if low == high else None


def against_baseline(results, bases, metrics=REPORT_METRICS):
    """Every variant against its baseline (``bases``: :func:`baselines_of`, like with like), but a metric
    that takes one value in every game of both; Holm across the variants, per metric. Returns (comparisons,
    untested: [(metric, variant, baseline, value)])."""
    by_name = {r.name: r for r in results}
    out, untested = [], []
    for metric in metrics:
        rows = []
        for r in results:
            base = by_name[bases[r.name]]
            if r is base or r.game != base.game or r.players != base.players:
                continue
            if metric not in r.names or metric not in base.names:
                continue
            value = _fixed(r.column(metric), base.column(metric))
            if value is not None:
                untested.append((metric, r.name, base.name, value))
                continue
            rows.append((r, base, compare_metric(r, base, metric, r.seed == base.seed)))
        adjusted = holm([res.pvalue for _, _, res in rows]) if rows else []
        out += [Comparison(metric, r.name, base.name, r.seed == base.seed, res, float(p))
                for (r, base, res), p in zip(rows, adjusted, strict=True)]
    return out, untested


@dataclass(frozen=True)
class Fairness:
    """Is ``b`` fairer than ``a``? ``shift``: did any seat's (team's) points move (``analyses.fairer.seat_shift``);
    ``change``: the imbalance's change and its verdict (``analyses.fairer.imbalance_change``); ``detectable``:
    the seat edge these games find with 80% power (``analyses.fairer.detectable_edge``). Compared among
    ``family`` variants (a report's, against their baselines), ``shift_p`` and ``change_p`` are the two tests'
    p-values Holm-adjusted across them, and ``verdict`` follows the adjusted imbalance test."""

    a: str
    b: str
    paired: bool
    teams: tuple | None
    shift: object
    change: object
    detectable: float
    shift_p: float
    change_p: float
    family: int = 1
    shares_a: tuple = ()        # each seat's (team's) points per game in a
    changed: tuple | None = None    # (games of b that differ from a's on common deals, games compared), or None
    unit: str = ""              # scored by margins: their unit (prize points); "" for points
    same_rules: bool = False    # a and b have the same parameters and policies (a run twice): nothing changed

    @property
    def inert(self):
        """The change never came into play: every game of b on common deals is a's game."""
        return self.changed is not None and self.changed[0] == 0

    @property
    def verdict(self):
        """"fairer", "less fair" or "no change found": ``b`` against ``a``, said only where the seats moved too
        (``analyses.fairer.fairer_verdict``: closed testing)."""
        return fairer_verdict(self.change.estimate, self.change_p, ALPHA, self.shift_p)

    @property
    def moved(self):
        """Whether the seats' (teams') points moved beyond chance (Hotelling's T², adjusted in a family)."""
        return self.shift_p < ALPHA

    @property
    def text(self):
        """The answer for ``compare``: is b fairer than a, in a sentence or two, every word from a test."""
        if self.inert:
            return f"**The change never came into play** from {self.a} to {self.b}: {self._inert()}."
        return self._text() + self._reach()

    def _text(self):
        on = f"on {self.compared}"      # every comparison says the games it compared (issue 53, case 2)
        if self.verdict != "no change found":
            return f"**{self.b} is {self.verdict} than {self.a}**, {on}: {self._imbalance()}; {self._seats()}."
        if self.moved:
            return (f"**The seats moved** from {self.a} to {self.b}, {on} ({self._seats()[len('the seats moved ('):]}"
                    f"; but neither is shown fairer: {self._imbalance()}.")
        return (f"**No seat moved beyond chance** from {self.a} to {self.b}, {on} ({self._t2()}): neither is shown "
                f"fairer; {self._could()}.")

    def against(self):
        """The same answer as a report's sentence of variant ``b`` against its baseline ``a``."""
        lead = f"Against its baseline `{self.a}`, on {self.compared}"
        if self.inert:
            return f"{lead}: **the change never came into play**: {self._inert()}."
        return self._against(lead) + self._reach()

    @property
    def compared(self):
        """The games the comparison read, in words: pairs on common deals, or both runs' games."""
        c = self.change
        return f"{c.n_b:,} games of common deals" if self.paired else f"{c.n_a:,} and {c.n_b:,} games, unpaired"

    def _inert(self):
        why = ("the two have the same rules and policies: there is no change to judge" if self.same_rules else
               "the policies never reach the changed rule, so these games cannot tell whether it is fairer")
        return f"all {self.changed[1]:,} games are the same games on the same deals ({why})"

    def _reach(self):
        """How many games the change altered, when it left some as they were (a rule that rarely comes into
        play is judged on the few games it reaches)."""
        if self.changed is None or self.changed[0] == self.changed[1]:
            return ""
        changed, compared = self.changed
        return (f" The change came into play in {changed:,} of {compared:,} games ({percent_of(changed, compared)}); "
                "the others are the baseline's games.")

    def _against(self, lead):
        if self.verdict != "no change found":
            return f"{lead}: **{self.verdict}**: {self._imbalance()}; {self._seats()}."
        # the word first, as the claim and the first screen say it (issue 53: one vocabulary)
        if self.moved:
            return f"{lead}: **no change found** of the imbalance, {self._imbalance()}, though {self._seats()}."
        return f"{lead}: **no change found**: no seat moved beyond chance ({self._t2()}); {self._could()}."

    def _holm(self, name, p):
        """``p = 0.03``, or adjusted in a family: ``Holm p = 0.03 across 24 variants``."""
        return _p_is(f"Holm {name}", p) + f" across {self.family} variants" if self.family > 1 else _p_is(name, p)

    def _t2(self):
        return "Hotelling's T², " + self._holm("p", self.shift_p) if self.family > 1 else \
            _p_is("Hotelling's T² p", self.shift_p)

    def _could(self):
        unit = "seat" if self.teams is None else "team"
        return f"these games could have found a {unit} edge of {self._value(self.detectable)} (80% power)"

    def _value(self, x, sign=""):
        """A share (0.512), or a margin with its unit (+1.20 prize points)."""
        return f"{x:{sign}.2f} {self.unit}" if self.unit else f"{x:{sign}.3f}"

    @property
    def change_interval(self):
        """The imbalance change's interval at the level the family's correction left its test (ALPHA x p / Holm
        p): it excludes 0 exactly when the adjusted p-value is below ALPHA, where a 95% interval beside a Holm p
        could exclude 0 while the verdict finds nothing (issue 53, case 6). (low, high)."""
        c = self.change
        if self.change_p <= c.pvalue or not c.se > 0:
            return c.low, c.high
        level = ALPHA * c.pvalue / self.change_p if c.pvalue > 0 else ALPHA / self.family
        z = stats.norm.ppf(1 - level / 2)
        return c.estimate - z * c.se, c.estimate + z * c.se

    def _imbalance(self):
        # each D is estimated without bias, so a fair variant's may come out a hair below 0: shown as 0
        c = self.change
        f, what = (".4g", f"Σ margin² ({self.unit} squared)") if self.unit else (".4f", "Σ(share - fair)²")
        low, high = self.change_interval
        level = "" if (low, high) == (c.low, c.high) else " at the adjusted level"
        return (f"the imbalance {what} goes from {max(c.imbalance_a, 0):{f}} to {max(c.imbalance_b, 0):{f}} "
                f"({c.estimate:+{f}} [{low:+{f}}, {high:+{f}}]{level}, {self._holm('p', self.change_p)})")

    def _seats(self):
        """Whether the seats (teams) moved, and those that did, largest first, each with its points in a and b
        and the shift's interval (Holm across the seats, tested once the omnibus test finds a move)."""
        shift = self.shift
        if not self.moved:
            return f"no seat moved beyond chance ({self._t2()})"
        moved = [k for k in np.argsort(-np.abs(shift.shift)) if shift.adjusted[k] < ALPHA]
        if not moved:
            return f"the seats moved ({self._t2()}), no one seat beyond chance alone (Holm across the seats)"
        f, d = ("+.2f", "+.2f") if self.unit else (".3f", "+.3f")
        parts = [f"{unit_name(self._unit(k))} {self.shares_a[k]:{f}} → "
                 f"{self._value(self.shares_a[k] + shift.shift[k], f[0] * (f[0] == '+'))} "
                 f"({shift.shift[k]:{d}} [{shift.low[k]:{d}}, {shift.high[k]:{d}}])" for k in moved]
        return f"the seats moved ({self._t2()}): {' and '.join(parts)} (Holm across the seats)"

    def _unit(self, k):
        """The seats of unit ``k``: a team's, or (k,)."""
        return (k,) if self.teams is None else self.teams[k]


def fairness(a, b, shift_p=None, change_p=None, family=1):
    """Is ``b`` fairer than ``a`` (:class:`Fairness`)? Paired game by game when the seeds agree (common deals),
    teams as the unit when both variants' wins show the same teams; None for different player counts or no more
    games than seats (teams).
    ``shift_p``/``change_p``: the tests' p-values adjusted in a ``family`` of comparisons (default: their own)."""
    if a.players != b.players:
        return None
    paired = check_comparable(a, b)
    points_a, points_b = a.outcome, b.outcome
    if paired:
        ia, ib = paired_on_index(a, b)
        points_a, points_b = points_a[ia], points_b[ib]
    teams = common_teams(a.wins, b.wins)
    units = len(teams) if teams else a.players
    if min(len(points_a), len(points_b)) <= units:      # a covariance of the units needs more games than units
        return None
    games = min(len(points_a), len(points_b))
    if a.score == "margin":
        edge = measured_edge(_spread(points_a, points_b, paired, teams), games, units)
    else:
        rho = pairing(points_a, points_b) if paired else 0.0
        edge = detectable_edge(games, units, paired_correlation=rho).edge
    shift = seat_shift(points_a, points_b, paired, teams)
    change = imbalance_change(points_a, points_b, paired, teams, total=a.total)
    shares = points_a.mean(axis=0) if teams is None else np.array([points_a[:, list(t)].sum(axis=1).mean()
                                                                  for t in teams])
    return Fairness(a.name, b.name, paired, teams, shift, change, edge,
                    shift.pvalue if shift_p is None else shift_p, change.pvalue if change_p is None else change_p,
                    family, tuple(float(x) for x in shares), changed_games(a, b), a.unit, _same_rules(a, b))


def _same_rules(a, b):
    """Whether ``a`` and ``b`` were played with the same parameters and policies (their results' metadata)."""
    params = [getattr(r, "meta", {}).get("params") for r in (a, b)]
    return params[0] is not None and params[0] == params[1] and tuple(a.policies) == tuple(b.policies)


def _spread(values_a, values_b, paired, teams):
    """The largest standard deviation of a unit's difference b - a in one game (paired, game by game; else of
    two independent games): what the per-unit tests' power rests on."""
    if teams is not None:
        values_a, values_b = ([v[:, list(t)].sum(axis=1) for t in teams] for v in (values_a, values_b))
        values_a, values_b = np.column_stack(values_a), np.column_stack(values_b)
    if paired:
        return float((values_b - values_a).std(axis=0, ddof=1).max())
    return float(np.sqrt(values_a.var(axis=0, ddof=1) + values_b.var(axis=0, ddof=1)).max())


LABELS = ("variant",)        # columns that name a run, not what happened in its games


def changed_games(a, b):
    """How many games of ``b`` differ from ``a``'s on common deals: (changed, compared), comparing every result
    column the two share but the labels, game by game on the game indices both hold; None when the seeds differ
    (no game pairs with another). A rule change that never comes into play (a rule the policies never reach)
    leaves every game as it was: (0, compared)."""
    if a.seed != b.seed or a.game != b.game or a.players != b.players:
        return None
    ia, ib = paired_on_index(a, b)
    differ = np.zeros(len(ia), dtype=bool)
    for name in set(a.columns) & set(b.columns) - set(LABELS):
        xa, xb = a.columns[name][ia], b.columns[name][ib]
        differ |= ~((xa == xb) | ((xa != xa) & (xb != xb)))    # nan equals nan: a value both lack
    return int(differ.sum()), len(ia)


def fairness_against(results, bases):
    """{variant: :class:`Fairness` against its baseline} (``bases``: :func:`baselines_of`), for every variant
    of its baseline's game and player count; both tests Holm-adjusted across the variants."""
    by_name = {r.name: r for r in results}
    pairs = [(by_name[bases[r.name]], r) for r in results
             if bases[r.name] != r.name and by_name[bases[r.name]].game == r.game
             and by_name[bases[r.name]].players == r.players]
    raw = [f for f in (fairness(base, r) for base, r in pairs) if f is not None]
    if not raw:
        return {}
    shift_p = holm([f.shift.pvalue for f in raw])
    change_p = holm([f.change.pvalue for f in raw])
    return {f.b: dataclasses.replace(f, shift_p=float(s), change_p=float(c), family=len(raw))
            for f, s, c in zip(raw, shift_p, change_p, strict=True)}


def pairing(points_a, points_b):
    """The correlation of a seat's points in a game of a and of b (common deals), averaged over the seats with
    spread: what the planner's paired design gains."""
    values = [np.corrcoef(points_a[:, s], points_b[:, s])[0, 1] for s in range(points_a.shape[1])
              if points_a[:, s].std() > 0 and points_b[:, s].std() > 0]
    return float(np.clip(np.mean(values), 0.0, 0.99)) if values else 0.0


def percent_of(part, whole):
    """``part`` of ``whole`` in per cent, as a sentence says it: one decimal, and never rounded to all or none
    when it is neither (7,998 of 8,000 read "1e+02%"; 100.0% would say every game)."""
    share = 100 * part / whole
    if part < whole and share >= 99.95:
        return "over 99.9%"
    if part > 0 and share < 0.05:
        return "under 0.1%"
    return f"{share:.1f}%"
