"""Comparing variants: paired on common random numbers where the seeds allow, Holm across many."""

from dataclasses import dataclass

import numpy as np

from analyses.balance import find_teams
from analyses.data import DataError, paired_on_index
from analyses.fairer import detectable_edge, imbalance_change, seat_shift
from analyses.paired import holm, paired_binary, paired_numeric, unpaired_binary, unpaired_numeric
from analyses.seat_change import METRICS as SEAT_METRICS
from analyses.seat_change import seat_change
from analyses.verdict import ALPHA, _p_is


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


# what the report compares each variant with its baseline on: balance, the weakest seat and the length
REPORT_METRICS = ("gap", "weakest_seat", "n_turns")


def default_metrics(a, b):
    """Every seat's points (a win 1, a k-way shared win 1/k, nobody's win 1/players) the two have in common,
    the seat gap and the weakest seat's points (of the same player count), and the game length."""
    seats = min(a.players, b.players)
    return [f"points_{i}" for i in range(seats)] + list(SEAT_METRICS) * (a.players == b.players) + ["n_turns"]


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
    return (f"warning: {a.name} and {b.name} differ in their {' and '.join(what)} ({a.players} players, "
            f"{', '.join(a.policies)} against {b.players} players, {', '.join(b.policies)}): the comparison "
            "measures that too, not only the rules")


def compare_metric(a, b, metric, paired):
    """A yes/no column by McNemar (paired) or a two-proportion test; a numeric one (points, turns, scores) by
    the paired t test or Welch's: p-value and interval from one test of the mean difference. The seat gap and
    the weakest seat (``analyses.seat_change``) by simultaneous bounds, paired or not."""
    if metric in SEAT_METRICS:
        return seat_change(a.points, b.points, metric)
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
        value = None if m in SEAT_METRICS else _fixed(a.column(m), b.column(m))
        if value is None:
            tested.append(m)
        else:
            untested.append((m, a.name, b.name, value))
    results = [compare_metric(a, b, m, paired) for m in tested]
    adjusted = holm([r.pvalue for r in results]) if results else []
    return [Comparison(m, a.name, b.name, paired and m not in SEAT_METRICS, r, float(p))
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
            if metric in SEAT_METRICS:
                rows.append((r, base, compare_metric(r, base, metric, False)))
                continue
            if metric not in r.names or metric not in base.names:
                continue
            value = _fixed(r.column(metric), base.column(metric))
            if value is not None:
                untested.append((metric, r.name, base.name, value))
                continue
            rows.append((r, base, compare_metric(r, base, metric, r.seed == base.seed)))
        adjusted = holm([res.pvalue for _, _, res in rows]) if rows else []
        out += [Comparison(metric, r.name, base.name, r.seed == base.seed and metric not in SEAT_METRICS, res,
                           float(p))
                for (r, base, res), p in zip(rows, adjusted, strict=True)]
    return out, untested


@dataclass(frozen=True)
class Fairness:
    """Is ``b`` fairer than ``a``? ``shift``: did any seat's (team's) points move (``analyses.fairer.seat_shift``);
    ``change``: the imbalance's change and its verdict (``analyses.fairer.imbalance_change``); ``detectable``:
    the seat edge these games find with 80% power (``analyses.fairer.detectable_edge``)."""

    a: str
    b: str
    paired: bool
    teams: tuple | None
    shift: object
    change: object
    detectable: float

    @property
    def text(self):
        """The answer in a sentence or two, every word from a test (the omnibus T^2, Holm per seat, the
        imbalance's change)."""
        shift, change = self.shift, self.change
        moved = shift.pvalue < ALPHA
        t2 = _p_is("Hotelling's T² p", shift.pvalue)
        if not moved and change.verdict == "no change found":
            return (f"**No seat moved beyond chance** from {self.a} to {self.b} ({t2}): neither is shown fairer; "
                    f"these games could have found a seat edge of {self.detectable:.3f} (80% power).")
        seats = [f"{self._unit(k)} {shift.shift[k]:+.3f} [{shift.low[k]:+.3f}, {shift.high[k]:+.3f}]"
                 for k in np.argsort(-np.abs(shift.shift)) if shift.adjusted[k] < ALPHA]
        which = f": {'; '.join(seats)} (Holm)" if seats else ""
        # each D is estimated without bias, so a fair variant's may come out a hair below 0: shown as 0
        imbalance = (f"the imbalance Σ(share - fair)² goes from {max(change.imbalance_a, 0):.4f} to "
                     f"{max(change.imbalance_b, 0):.4f} "
                     f"({change.estimate:+.4f} [{change.low:+.4f}, {change.high:+.4f}], {_p_is('p', change.pvalue)})")
        if change.verdict == "no change found":
            return (f"**The seats moved** from {self.a} to {self.b} ({t2}){which}, but neither is shown fairer: "
                    f"{imbalance}.")
        return f"**{self.b} is {change.verdict} than {self.a}**: {imbalance}; the seats moved ({t2}){which}."

    def _unit(self, k):
        return f"seat {k}" if self.teams is None else "the team of seats " + " and ".join(map(str, self.teams[k]))


def fairness(a, b):
    """Is ``b`` fairer than ``a`` (:class:`Fairness`)? Paired game by game when the seeds agree (common deals),
    teams as the unit when both variants' wins show the same teams; None for different player counts."""
    if a.players != b.players:
        return None
    paired = check_comparable(a, b)
    points_a, points_b = a.points, b.points
    if paired:
        ia, ib = paired_on_index(a, b)
        points_a, points_b = points_a[ia], points_b[ib]
    teams = find_teams(a.wins)
    teams = teams if teams == find_teams(b.wins) and len(teams) < a.players else None
    rho = _pairing(points_a, points_b) if paired else 0.0
    units = len(teams) if teams else a.players
    edge = detectable_edge(min(len(points_a), len(points_b)), units, paired_correlation=rho).edge
    return Fairness(a.name, b.name, paired, teams, seat_shift(points_a, points_b, paired, teams),
                    imbalance_change(points_a, points_b, paired, teams), edge)


def _pairing(points_a, points_b):
    """The correlation of a seat's points in a game of a and of b (common deals), averaged over the seats with
    spread: what the planner's paired design gains."""
    values = [np.corrcoef(points_a[:, s], points_b[:, s])[0, 1] for s in range(points_a.shape[1])
              if points_a[:, s].std() > 0 and points_b[:, s].std() > 0]
    return float(np.clip(np.mean(values), 0.0, 0.99)) if values else 0.0
