"""The verdict's claims: each verdict word as an object, so that every way of showing a verdict renders the same.

A :class:`Claim` is one word from :data:`WORDS` about a variant (and the seat or team it names, where it names one),
with the test behind it, the games that test read, the family it was corrected over at its error rate, and its
numbers. :func:`claims` builds them from an ``analyses.report.Analysis``: from the same result objects its
sentences are composed of (``analyses.verdict.Verdict``, the ``fair_within`` result it holds, the
``analyses.variants.Fairness`` against its baseline), so a claim and its sentence cannot disagree.
:func:`to_json` renders them for scripts and notebooks (``simcore analyze --json``, schema
:data:`SCHEMA`, docs/reference/parquet.md).

The first screen (``analyses.screen``) renders the claims; the paragraphs of ``--explain`` are still composed by
``analyses.verdict`` from the same objects.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

from analyses.verdict import ALPHA, _gaps, _simultaneous, _unit, unit_name

SCHEMA = "simcore.verdict/1"

BALANCE = ("unbalanced", "no edge found")
WITHIN = ("fair within", "not shown fair within")
CHANGE = ("fairer", "less fair", "no change found", "never came into play")
RANK = ("fairest", "tied for fairest", "less fair than the fairest")    # tune's finalists on the same games
STRENGTH = ("stronger", "weaker", "no difference found")                # a policy against another (versus, ladder)
DEPENDS = ("depends on the reading", "same under every reading")        # a verdict word across readings
# what a kind of move is worth, by restricted play (simcore options; analyses.options)
OPTION = ("dominant", "worth taking", "worth avoiding", "never worth it", "never came into play", "no effect found")
OPTION_CHANGE = ("worth more", "worth less")       # a kind's worth in a variant against its baseline
# every word a verdict says, and no other
WORDS = BALANCE + WITHIN + CHANGE + RANK + STRENGTH + DEPENDS + OPTION + OPTION_CHANGE


@dataclass(frozen=True)
class Claim:
    """One verdict word: ``word`` (from :data:`WORDS`) about ``variant``, and the unit ``seats`` where it names one
    (a seat (3,) or a team (0, 2); () for the variant as a whole); ``against`` its baseline where it compares;
    ``test`` in plain words, the ``games`` it read, the ``family`` it was corrected over (how, and how many) at
    the error rate ``alpha``, and its ``numbers``."""

    variant: str
    word: str
    test: str
    games: int
    family: str
    alpha: float
    numbers: dict = field(default_factory=dict)
    seats: tuple = ()
    against: str = ""

    def __post_init__(self):
        if self.word not in WORDS:      # a word outside the vocabulary would be a sentence of its own
            raise ValueError(f"{self.word!r} is not a verdict word; allowed: {', '.join(WORDS)}")

    @property
    def subject(self):
        """What the claim is about, in words: ``ring-4p``, or ``ring-4p, seat 3``."""
        return f"{self.variant}, {unit_name(self.seats)}" if self.seats else self.variant


def claims(analysis):
    """Every claim of ``analysis``'s verdicts, variant by variant: its balance and fair within E where a margin was
    tested (a variant played until decided: its decision's), and its change against its baseline where it has
    one of its player count."""
    family = len(analysis.verdicts)
    out = []
    for name, verdict in analysis.verdicts.items():
        units = _units(analysis, name)
        if verdict.decision is not None:
            out += decided_claims(verdict, units)
        else:
            out.append(balance_claim(verdict, analysis.balances[name], family, units,
                                     (analysis.margins or {}).get(name)))
            if verdict.within is not None:
                out.append(within_claim(verdict, family))
        fairness = (analysis.fairness or {}).get(name)
        if fairness is not None:
            out.append(change_claim(fairness))
    return out + _skill_claims(analysis)


def _skill_claims(analysis):
    """A skill sweep's contests of two of its levels on its rules (``analyze --strength``), each as versus
    claimed it: the screen's note and the verdict's sentence read the same contests."""
    from analyses.skill import level_contests, of_rules

    if not analysis.skill_levels or not analysis.strengths:
        return []
    first = analysis.results[0]
    levels = list(analysis.skill_levels.values())
    return [s.claim() for s in level_contests(levels, of_rules(analysis.strengths, first.game,
                                                               first.meta.get("params", "{}")))]


def _holm(family):
    return f"Holm across {family} variants" if family > 1 else "none (one variant)"


def _units(analysis, name):
    """Every unit's share (a margin's mean), its simultaneous 95% interval and its fair share (0 for a margin), as
    the verdict's sentences give them (``analyses.verdict._simultaneous``; a margin's ``seat_shift`` interval)."""
    if analysis.margins:
        shift = analysis.margins[name]
        teams = shift.teams or tuple((seat,) for seat in range(len(shift.shift)))
        return [{"seats": list(team), "share": float(shift.shift[k]), "low": float(shift.low[k]),
                 "high": float(shift.high[k]), "fair": 0.0} for k, team in enumerate(teams)]
    return _point_units(analysis.balances[name])


def _point_units(balance):
    units = []
    for team in balance.teams:
        share, fair, ci = _simultaneous(balance, team)
        units.append({"seats": list(team), "share": share, "low": ci.low, "high": ci.high, "fair": fair})
    return units


def _ruled_out(units):
    """The edge the units' intervals rule out: the furthest any of them reaches from fair."""
    return max(max(abs(u["low"] - u["fair"]), abs(u["high"] - u["fair"])) for u in units)


def balance_claim(verdict, balance, family, units=None, margins=None):
    """"unbalanced" (naming the worst unit, as the sentence does) or "no edge found" (naming none: after Holm the
    gap points at no unit), from the gap test of ``balance`` (``margins``: the variant's ``margin_balance``,
    scored by margins: Hotelling's T² of the margins); its numbers hold every unit's share, simultaneous interval
    and fair share (``units``, by default the seats' or teams' points) and the edge the intervals rule out."""
    units = _point_units(balance) if units is None else units
    numbers = {"pvalue": verdict.gap_pvalue, "adjusted_pvalue": verdict.adjusted_pvalue, "units": units,
               "ruled_out": _ruled_out(units)}
    if margins is not None:
        test = f"Hotelling's T² of the {'team' if margins.teams else 'seat'}s' margins against 0"
        numbers["unit"] = verdict.unit
    else:
        gap, fair_gap = _gaps(balance)
        numbers.update(gap=gap, fair_gap=fair_gap)
        test = f"gap test: a permutation test of the largest {_unit(balance)} gap against a fair game's"
    if verdict.unbalanced:
        numbers.update(share=verdict.share, low=verdict.low, high=verdict.high, fair=verdict.fair, edge=verdict.edge)
    return Claim(verdict.variant, BALANCE[not verdict.unbalanced], test, balance.n_games, _holm(family), ALPHA,
                 numbers, verdict.worst_seat if verdict.unbalanced else ())


def decided_claims(verdict, units):
    """A variant played until decided: its balance and fair within E as the decision that stopped it says them
    (``analyses.sequential``), each test at the level of its look, the error held over every look and variant."""
    decision = verdict.decision
    plan = decision.plan
    family = f"union bound over {plan.variants} variant{'s' * (plan.variants > 1)} and their looks"
    kind = "team" if decision.teams else "seat"
    numbers = {"look": decision.looks_made, "looks": len(plan.looks),
               "level": plan.levels[decision.looks_made - 1], "units": units, "ruled_out": _ruled_out(units)}
    unbalanced = decision.verdict in ("unbalanced", "unbalanced and fair within")
    fair = decision.verdict in ("fair within", "unbalanced and fair within")
    if unbalanced:
        numbers.update(share=verdict.share, low=verdict.low, high=verdict.high, fair=verdict.fair, edge=verdict.edge)
    balance = Claim(verdict.variant, BALANCE[not unbalanced],
                    f"Hotelling's T² of the {kind}s' points against fair, at a look", decision.games, family,
                    plan.alpha, {**numbers, "pvalue": decision.unbalanced_p}, verdict.worst_seat if unbalanced else ())
    within = Claim(verdict.variant, WITHIN[not fair],
                   f"equivalence: two one-sided tests per {kind} that its share is within the margin of fair, at a "
                   "look", decision.games, family, plan.alpha,
                   {"margin": plan.margin, "pvalue": decision.fair_p, "look": decision.looks_made})
    return [balance, within]


def within_claim(verdict, family):
    """"fair within" or "not shown fair within" the margin E, from the fair_within result the sentence says."""
    within = verdict.within
    unit = "seat" if within.teams is None else "team"
    how = f"Bonferroni across {family} variants" if family > 1 else "none (one variant)"
    return Claim(verdict.variant, WITHIN[not within.shown],
                 f"equivalence: two one-sided tests per {unit} that its share is within the margin of fair",
                 within.n, how, ALPHA, {"margin": within.margin, "ruled_out": within.ruled_out,
                                        "pvalue": within.pvalue, "alpha_per_variant": within.alpha})


def change_claim(fairness):
    """Against the baseline: the words of ``Fairness.against`` from the fields it reads (``inert``, then
    ``verdict``: the imbalance test within the seats' move, each Holm-adjusted across the variants compared);
    the interval at the level the correction left the test."""
    change = fairness.change
    paired = "paired on common deals" if fairness.paired else "unpaired (different seeds)"
    low, high = fairness.change_interval
    numbers = {"paired": fairness.paired, "estimate": change.estimate, "low": low, "high": high,
               "pvalue": change.pvalue, "adjusted_pvalue": fairness.change_p, "imbalance_baseline": change.imbalance_a,
               "imbalance": change.imbalance_b, "shift_adjusted_pvalue": fairness.shift_p}
    if fairness.changed is not None:
        numbers["games_changed"] = fairness.changed[0]
    # a paired test reads each pair once; an unpaired one both runs' games
    games = change.n_b if fairness.paired else change.n_a + change.n_b
    word = "never came into play" if fairness.inert else fairness.verdict
    return Claim(fairness.b, word, "imbalance test: the change of Σ(share - fair)², said where Hotelling's T² finds "
                 f"the seats moved (closed testing), {paired}", games, _holm(fairness.family), ALPHA, numbers,
                 against=fairness.a)


def strength_word(score, fair, pvalue, alpha=ALPHA):
    """A contest's word: "stronger" or "weaker" where its two-sided test finds the score off fair, else "no
    difference found"."""
    if not pvalue < alpha:
        return STRENGTH[2]
    return STRENGTH[0] if score > fair else STRENGTH[1]


def contest_claim(contest, rules, test, family="none (one contest)", word=None):
    """A policy's score against another on the same deals (``simcore versus``, a ladder's rung, a contest read by
    ``analyze --strength``): ``contest`` has ``policy``, ``against``, ``deals``, ``score``, ``low``, ``high``,
    ``fair`` and ``pvalue``; ``rules`` names the variant it was played on; ``word`` where a sequential test
    decided it (a ladder's --sprt), else the word of its test at 5%. Its games are the deals: the test's unit."""
    word = word or strength_word(contest.score, contest.fair, contest.pvalue)
    numbers = {"rules": rules, "score": contest.score, "low": contest.low, "high": contest.high, "fair": contest.fair,
               "pvalue": contest.pvalue, "unit": getattr(contest, "unit", "") or "points"}
    split = getattr(contest, "split", None)
    if split is not None:       # the seats apart: a word for the whole never hides a split between them
        numbers["seats"] = {"scores": list(split.seat_scores), "pvalue": split.pvalue, "split": split.significant,
                            "test": SPLIT_TEST}
    return Claim(contest.policy, word, test, contest.deals, family, ALPHA, numbers, against=contest.against)


SPLIT_TEST = ("permutation test of Hotelling's T-squared of the deals' differences between A's scores from its "
              "seats (the seats shuffled within each deal, 499 times), two-sided 5%")


def seat_text(claim):
    """A contest claim's seats in words: A's score from each seat and whether they differ beyond chance ("" for a
    claim that holds no seats)."""
    seats = claim.numbers.get("seats")
    if not seats:
        return ""
    scores = ", ".join(f"{score:.3f} as seat {seat}" for seat, score in enumerate(seats["scores"]))
    said = "split beyond chance" if seats["split"] else "no split beyond chance"
    return f"{scores}: {said} (p = {seats['pvalue']:.2g})"


def split_text(claim):
    """A contest claim's seat split where it is beyond chance ("" where it is not): what a summary adds to its
    word."""
    seats = claim.numbers.get("seats")
    return seat_text(claim) if seats and seats["split"] else ""


def option_claim(worth, result, test):
    """What kind of move ``worth`` (an ``analyses.options.KindWorth``) is worth to ``result``'s policy on its rules
    (``simcore options``): its word, the restricted seat's points under each restriction, over the deals."""
    numbers = {"kind": worth.kind, "meaning": worth.meaning, "rules": result.rules, "policy": result.policy,
               "margin": result.margin, "legal": worth.legal, "taken": worth.taken}
    for mode in ("forbidden", "preferred"):
        r = getattr(worth, mode)
        numbers[mode] = None if r is None else {
            "share": r.share, "low": r.low, "high": r.high, "fair": r.fair, "difference": r.difference,
            "pvalue": r.pvalue, "adjusted": r.adjusted, "method": r.method, "legal": r.legal, "played": r.played,
            "forced": r.forced}
    return Claim(f"kind {worth.kind}", worth.word, test, result.deals, result.family, ALPHA, numbers,
                 against=result.policy)


def option_change_claim(change, family, test):
    """A kind's worth in a variant against its baseline on the same deals (``simcore options SWEEP``): worth more,
    worth less, no change found, or never came into play."""
    numbers = {"kind": change.kind, "variant": change.variant,
               **{s.mode: {"delta": s.delta, "low": s.low, "high": s.high, "pvalue": s.pvalue, "adjusted": s.adjusted}
                  for s in change.shifts}}
    return Claim(f"{change.variant}: kind {change.kind}", change.word, test, change.deals, family, ALPHA, numbers,
                 against=change.baseline)


def to_json(claims_, unfinished=()):
    """The claims as the JSON text of :data:`SCHEMA`: per variant its verdict word, units, fair within and change
    against its baseline, then every claim with all its fields; ``unfinished``: the notes of folders whose run
    has not finished (their verdict is of what they hold so far)."""
    variants = {}
    for claim in claims_:
        if claim.word not in STRENGTH and "kind" not in claim.numbers:  # a contest, a kind's worth: no verdict
            variants.setdefault(claim.variant, []).append(claim)
    return document(claims_, variants=[_variant(name, of) for name, of in variants.items()],
                    unfinished=list(unfinished))


def document(claims_, **parts):
    """The JSON text of :data:`SCHEMA` for any command: its ``parts`` (what the command answers, e.g. ``variants``)
    and every claim with all its fields, so that scripts read every command's claims alike."""
    body = {"schema": SCHEMA, **parts,
            "claims": [{**asdict(c), "seats": list(c.seats), "subject": c.subject} for c in claims_]}
    return json.dumps(_plain(body), indent=2, ensure_ascii=False, allow_nan=False)


def _variant(name, claims_):
    """One variant's entry: its balance claim's word, games and units, then fair within and its baseline's change
    where it has those claims."""
    by_kind = {kind: c for c in claims_ for kind in (BALANCE, WITHIN, CHANGE) if c.word in kind}
    balance, within, change = (by_kind.get(kind) for kind in (BALANCE, WITHIN, CHANGE))
    entry = {"name": name, "games": balance.games, "verdict": balance.word,
             "units": [{"name": unit_name(tuple(u["seats"])), **{k: u[k] for k in ("share", "low", "high", "fair")}}
                       for u in balance.numbers["units"]],
             "fair_within": None if within is None else {"margin": within.numbers["margin"],
                                                         "shown": within.word == "fair within"}}
    if change is not None:
        entry["baseline"] = {"name": change.against, "games_compared": change.games, "change": change.word}
    return entry


def _plain(value):
    """``value`` with numpy's numbers as Python's and a missing number (nan) as null: JSON has no NaN."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):          # a numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
