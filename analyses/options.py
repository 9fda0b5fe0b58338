"""What each kind of move is worth, read from restricted play (Jaffe, Miller, Andersen, Liu, Karlin and Popović,
"Evaluating Competitive Game Balance with Restricted Play", AIIDE 2012).

One seat plays a policy with a kind of move forbidden (or preferred: played whenever legal) against the same policy,
unrestricted, in every other seat; the restricted seat takes every seat in turn on the same deals, as ``simcore
versus`` seats its contests. Its mean points against the fair share say what the restriction costs or gains:

``worth taking``          forbidding the kind costs points
``dominant``              preferring it gains points against full play: the agents under-use it, or the game hinges
                          on it
``worth avoiding``        forbidding it gains points: the agents take it where they should not
``never worth it``        shown within ``margin`` of no effect both ways (each restriction's 90% interval inside
                          the fair share +- margin: two one-sided tests at 5%)
``never came into play``  the kind was never legal where the restricted seat decided: no number is read
``no effect found``       none of these

Each restriction's test is ``simcore versus``'s (:func:`simcore.studies.versus.score`: a deal's mean over the seats
is one observation, the skew-corrected z test, measured in tests/test_calibration_versus.py), corrected by Holm
across every restriction of the study, the family. The unrestricted seats' mean points on the same deals are the fair
share exactly (a game's points add up to 1), so the difference to full play is the share less the fair share.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field, replace

import numpy as np

from analyses.paired import holm

ALPHA = 0.05
MARGIN = 0.02          # "never worth it": within this many points of no effect, both ways
MODES = ("forbidden", "preferred")
WORDS = ("dominant", "worth taking", "worth avoiding", "never worth it", "never came into play", "no effect found")


@dataclass(frozen=True)
class Restriction:
    """One kind under one restriction (``mode``: forbidden or preferred): the restricted seat's mean points
    ``share`` over the ``deals`` (each played once from every seat) with the 95% interval ``low``, ``high`` of its
    test (``method``, ``pvalue``, Holm-adjusted ``adjusted``), the 90% interval ``low90``, ``high90`` of the
    equivalence test, the unrestricted seats' ``baseline`` on the same deals and ``difference`` = share - baseline;
    ``legal``: the restricted seat's decisions where the kind was legal, ``played``: the moves of it it made,
    ``forced``: those of a forbidden kind made because nothing else was legal, ``decisions``: the decisions in all."""

    kind: str
    mode: str
    players: int
    deals: int
    share: float
    low: float
    high: float
    low90: float
    high90: float
    fair: float
    pvalue: float
    method: str
    legal: int
    played: int
    forced: int
    decisions: int
    baseline: float
    adjusted: float = float("nan")
    per_deal: np.ndarray = field(default=None, compare=False, repr=False)   # the deal means, for comparisons

    @property
    def difference(self):
        return self.share - self.baseline


@dataclass(frozen=True)
class KindWorth:
    """A kind of move: its ``word`` (:data:`WORDS`), its ``meaning``, the restrictions it was read from
    (``forbidden``, ``preferred``; None when it never came into play), and under full play (the policy in every
    seat, the same deals) how often it was ``legal`` (the share of the decisions of a kind where it was) and how
    often it was ``taken`` where legal (nan when never legal)."""

    kind: str
    meaning: str
    word: str
    forbidden: Restriction | None = None
    preferred: Restriction | None = None
    legal: float = float("nan")
    taken: float = float("nan")


@dataclass(frozen=True)
class OptionsResult:
    """The worth of every kind (``kinds``, in the game's order) for ``policy`` on the ``rules`` of one variant, in
    the manner of scipy.stats results."""

    game: str
    rules: str
    policy: str
    players: int
    deals: int
    margin: float
    kinds: tuple = field(default_factory=tuple)

    @property
    def family(self):
        """How the tests were corrected, in words."""
        tested = sum(1 for k in self.kinds if k.forbidden is not None)
        return f"Holm across the {tested * len(MODES)} restrictions of the {tested} kinds in play, 5% family-wise"


def restriction(kind, mode, scores, fair, baseline, counts, deals_test):
    """The :class:`Restriction` of ``kind`` under ``mode`` from the restricted seat's points ``scores[seat]`` (one
    array per seating, game by game) and its ``counts`` (legal, played, forced, decisions); ``deals_test(scores,
    alpha)`` is the contest test: (share, low, high, pvalue, method) at two-sided level ``alpha``."""
    share, low, high, pvalue, method = deals_test(scores, ALPHA)
    _, low90, high90, _, _ = deals_test(scores, 2 * ALPHA)
    legal, played, forced, decisions = counts
    return Restriction(kind, mode, len(scores), len(scores[0]), share, low, high, low90, high90, fair, pvalue, method,
                       legal, played, forced, decisions, baseline, per_deal=deal_means(scores))


def worths(kinds, restrictions, margin=MARGIN, full_play=None):
    """Each kind's :class:`KindWorth`: ``kinds`` are (name, meaning) in the game's order, ``restrictions`` maps
    (name, mode) to its :class:`Restriction` for the kinds that came into play, ``full_play`` maps a name to its
    (legal, taken) shares under full play. The p-values are Holm-adjusted across all of them; the word follows
    :func:`word`."""
    full_play = full_play or {}
    keys = list(restrictions)
    adjusted = holm([restrictions[key].pvalue for key in keys]) if keys else []
    held = {key: replace(restrictions[key], adjusted=float(p)) for key, p in zip(keys, adjusted, strict=True)}
    out = []
    for name, meaning in kinds:
        forbidden, preferred = held.get((name, "forbidden")), held.get((name, "preferred"))
        legal, taken = full_play.get(name, (float("nan"), float("nan")))
        out.append(KindWorth(name, meaning, word(forbidden, preferred, margin), forbidden, preferred, legal, taken))
    return tuple(out)


def word(forbidden, preferred, margin=MARGIN, alpha=ALPHA):
    """The word of a kind from its two restrictions (Holm-adjusted): never came into play when it was never legal
    at the restricted seat's decisions; dominant when preferring it gains points; worth taking when forbidding it
    costs points; worth avoiding when forbidding it gains; never worth it when both 90% intervals lie within
    ``margin`` of the fair share; else no effect found."""
    if forbidden is None or preferred is None or forbidden.legal + preferred.legal == 0:
        return "never came into play"
    if preferred.adjusted < alpha and preferred.share > preferred.fair:
        return "dominant"
    if forbidden.adjusted < alpha:
        return "worth taking" if forbidden.share < forbidden.fair else "worth avoiding"
    if all(r.fair - margin <= r.low90 and r.high90 <= r.fair + margin for r in (forbidden, preferred)):
        return "never worth it"
    return "no effect found"


def counts_of(trace_counts, seat, kind_index, kinds):
    """(legal, played, forced, decisions) of ``seat`` from a run's trace counts (games, seats, 2 kinds + 1): the
    decisions where the kind was legal, the moves of it, the forced moves, and every decision of a kind."""
    played = trace_counts[:, seat, :kinds]
    legal = trace_counts[:, seat, kinds:2 * kinds]
    forced = int(trace_counts[:, seat, 2 * kinds].sum())
    return int(legal[:, kind_index].sum()), int(played[:, kind_index].sum()), forced, int(played.sum())


def full_play(counts, kinds):
    """name -> (legal, taken) under full play from the baseline's trace counts (games, seats, 2 kinds + 1): the
    share of the decisions of a kind where the kind was legal, and of those where it was played."""
    n = len(kinds)
    played, legal = counts[:, :, :n].sum(axis=(0, 1)), counts[:, :, n:2 * n].sum(axis=(0, 1))
    decisions = max(int(played.sum()), 1)
    return {name: (legal[k] / decisions, played[k] / legal[k] if legal[k] else float("nan"))
            for k, (name, _) in enumerate(kinds)}


TEST = ("z test of the restricted seat's deal means against the fair share (as simcore versus), two-sided 5%; "
        "never worth it: both restrictions' 90% intervals within the margin of the fair share")


def screen(result, claims):
    """The first screen of ``simcore options``: a line of what was played, a table of every kind from its claim
    (``claims``, one per kind, in the kinds' order), and the family and test."""
    lines = _wrapped(f"what each kind of move is worth to {result.policy} on {result.game} ({result.rules}): one "
                     f"seat restricted, the others not, {result.deals:,} deals x {result.players} seats a restriction")
    lines.append(f"{'kind':<16} {'legal':>6} {'taken':>6}   {'forbidden':<22} {'preferred':<22} word")
    for claim in claims:
        n = claim.numbers
        lines.append(f"{n['kind']:<16} {share_text(n['legal']):>6} {share_text(n['taken']):>6}   "
                     f"{interval_text(n['forbidden']):<22} {interval_text(n['preferred']):<22} {claim.word}")
    fair = 1 / result.players
    for text in (f"points of the restricted seat (fair {fair:.3f}); legal: the share of the decisions of a kind "
                 "where it was legal, taken: of those where it was played, under full play",
                 f"family: {result.family}; never worth it within {result.margin:g} points", f"test: {TEST}"):
        lines += _wrapped(text)
    return lines


def _wrapped(text):
    from analyses.screen import WIDTH

    return textwrap.wrap(text, WIDTH, subsequent_indent="  ", break_on_hyphens=False)


def interval_text(numbers):
    """A restriction's share and interval from its claim's numbers; "-" for a kind that never came into play."""
    if numbers is None:
        return "-"
    return f"{numbers['share']:.3f} [{numbers['low']:.3f}, {numbers['high']:.3f}]"


def share_text(value):
    """A share as a percentage; "-" where there is none (nan)."""
    return "-" if value != value else f"{value:.0%}"


def deal_means(scores):
    """A deal's mean over the seatings: the contest's unit of observation."""
    return np.mean(scores, axis=0)


def document(result, claims):
    """The ``options`` part of ``simcore options --json``: what was played, then every kind rendered from its claim
    (``claims``, one per kind): its word and each restriction's numbers (null for a kind that never came into
    play: never a number)."""
    return {"game": result.game, "rules": result.rules, "policy": result.policy, "players": result.players,
            "deals": result.deals, "margin": result.margin, "family": result.family,
            "kinds": [{"word": c.word, **{key: c.numbers[key] for key in
                                          ("kind", "meaning", "legal", "taken", *MODES)}} for c in claims]}


# --- across the variants of a sweep -----------------------------------------------------------------------------

CHANGE_WORDS = ("worth more", "worth less", "no change found", "never came into play")
CHANGE_TEST = ("paired t test of the restricted seat's deal means between the variant and its baseline on the same "
               "deals, two-sided 5%, Holm across every comparison")


@dataclass(frozen=True)
class Shift:
    """One restriction (``mode``) of a kind compared between a variant and its baseline on the same deals: the
    mean ``delta`` of the restricted seat's deal means (variant less baseline), its 95% interval, its paired t
    test's p-value and the Holm-adjusted one."""

    mode: str
    delta: float
    low: float
    high: float
    pvalue: float
    adjusted: float = float("nan")


@dataclass(frozen=True)
class KindChange:
    """A kind's worth in ``variant`` against ``baseline``: the ``word`` (:data:`CHANGE_WORDS`) from its
    ``shifts`` (one per restriction; () when the kind never came into play in one of them)."""

    kind: str
    variant: str
    baseline: str
    word: str
    deals: int
    shifts: tuple = ()


def shift(mode, here, there):
    """The :class:`Shift` of restriction ``mode`` between the :class:`Restriction` ``here`` and ``there``."""
    from analyses.paired import t_test

    d = np.asarray(here.per_deal, float) - np.asarray(there.per_deal, float)
    n = d.size
    se = float(d.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0
    pvalue, low, high = t_test(float(d.mean()), se, n - 1)
    return Shift(mode, float(d.mean()), low, high, pvalue)


def changes(results, bases):
    """Every kind of every variant against its baseline: ``results`` maps a variant's name to its
    :class:`OptionsResult`, ``bases`` a variant's name to its baseline's (a baseline maps to itself and is left
    out). The tests are Holm-adjusted across all of them."""
    pending = []
    for name, base in bases.items():
        if name == base:
            continue
        for here, there in zip(results[name].kinds, results[base].kinds, strict=True):
            shifts = () if None in (here.forbidden, there.forbidden) else tuple(
                shift(mode, getattr(here, mode), getattr(there, mode)) for mode in MODES)
            pending.append((here.kind, name, base, shifts))
    flat = [s.pvalue for *_, shifts in pending for s in shifts]
    adjusted = iter(holm(flat) if flat else [])
    out = []
    for kind, name, base, shifts in pending:
        held = tuple(replace(s, adjusted=float(next(adjusted))) for s in shifts)
        out.append(KindChange(kind, name, base, change_word(held), results[name].deals, held))
    return out


def change_word(shifts, alpha=ALPHA):
    """worth more: forbidding the kind costs more, or preferring it gains more, in the variant; worth less: the
    reverse; where the two restrictions disagree, the one of the smaller adjusted p-value speaks."""
    if not shifts:
        return "never came into play"
    found = [s for s in shifts if s.adjusted < alpha]
    if not found:
        return "no change found"
    s = min(found, key=lambda s: s.adjusted)
    more = s.delta < 0 if s.mode == "forbidden" else s.delta > 0
    return "worth more" if more else "worth less"


def sweep_screen(results, moved, claims_of, sweep_name):
    """The first screen of ``simcore options SWEEP``: every kind's word in every variant (``claims_of``: each
    variant's kind claims), then the kinds whose worth changed against their baselines (``moved``: (change, its
    claim))."""
    first = next(iter(results.values()))
    names = list(results)
    width = max(12, *(len(n) for n in names))
    lines = _wrapped(f"what each kind of move is worth to {first.policy} across the {len(names)} variants of "
                     f"{sweep_name} ({first.game}): one seat restricted, the others not, {first.deals:,} deals from "
                     "every seat a restriction")
    lines.append((f"{'kind':<16} " + " ".join(f"{n:<{width}}" for n in names)).rstrip())
    words = {name: {claim.numbers["kind"]: claim.word for claim in claims_of[name]} for name in names}
    for kind in words[names[0]]:
        lines.append(f"{kind:<16} " + " ".join(f"{words[n][kind]:<{width}}" for n in names).rstrip())
    shown = [(c, claim) for c, claim in moved if claim.word in ("worth more", "worth less")]
    lines.append("")
    lines += _wrapped(f"against each player count's first variant ({len(moved)} kinds compared): "
                      + ("no kind's worth changed" if not shown else f"{len(shown)} changed"))
    for change, claim in shown:
        deltas = "; ".join(f"{s.mode} {s.delta:+.3f} [{s.low:+.3f}, {s.high:+.3f}]" for s in change.shifts)
        lines += _wrapped(f"  {change.kind} in {change.variant} against {change.baseline}: {claim.word} ({deltas})")
    for text in ("family: each variant's kinds as simcore options GAME says; the changes: Holm across every "
                 "comparison, 5% family-wise", f"test: {CHANGE_TEST}"):
        lines += _wrapped(text)
    return lines


def change_document(claim):
    """A kind's change against its baseline in ``simcore options SWEEP --json``, rendered from its claim."""
    return {"kind": claim.numbers["kind"], "variant": claim.numbers["variant"], "baseline": claim.against,
            "word": claim.word, "deals": claim.games, **{mode: claim.numbers[mode] for mode in MODES
                                                         if mode in claim.numbers}}


# --- skill and luck ------------------------------------------------------------------------------------------

def skill_lines(rows):
    """The skill-and-luck lines of ``simcore options --skill``: ``rows`` are (variant, contest, claim, weaker's
    points per seat), a contest a ``simcore versus`` result of the stronger player against the weaker on the same
    rules and deals, its claim the strength word."""
    if not rows:
        return []
    first = rows[0][1]
    lines = [""] + _wrapped(f"skill and luck on the same rules ({first.deals:,} deals x {first.players} seats a "
                            "contest): A over B is A's points with B in every other seat, A in each seat in turn; "
                            "luck is B's points per seat in the same games, how often the player meant to be weaker "
                            f"still wins (fair {first.fair:.3f}):")
    width = max(len(name) for name, *_ in rows)
    from analyses.claims import split_text

    for name, contest, claim, luck in rows:
        split = split_text(claim)
        lines += _wrapped(f"  {name:<{width}}  {contest.policy} over {contest.against}: {contest.score:.3f} "
                          f"[{contest.low:.3f}, {contest.high:.3f}] {claim.word}{f', by seat {split}' if split else ''}"
                          f"; luck {luck:.3f}")
    return lines


def skill_document(rows):
    return [{"variant": name, "stronger": c.policy, "weaker": c.against, "deals": c.deals, "score": c.score,
             "low": c.low, "high": c.high, "fair": c.fair, "pvalue": c.pvalue, "word": claim.word,
             "seat_split": claim.numbers.get("seats"), "weaker_points": luck} for name, c, claim, luck in rows]
