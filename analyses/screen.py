"""The first screen of a verdict: one row per variant, rendered from its claims (``analyses.claims``), then a few
notes and the words it used in plain language.

Each row says the variant's verdict word, the unit with the largest edge and its interval (or, where no edge is
found, the edge every unit's interval rules out), whether it is shown fair within E, its change against its
baseline and the games behind each. Nothing here tests or computes a verdict: every word and number is a
claim's, so the table, the JSON (``claims.to_json``) and the paragraphs of ``--explain`` cannot disagree.
"""

from __future__ import annotations

import textwrap

from analyses.claims import BALANCE, CHANGE, STRENGTH, WITHIN, claims
from analyses.verdict import FEW_GAMES, unit_name

WIDTH = 110         # the terminal's line length, as the paragraphs'


def rows(claims_, baselines, against="against its baseline"):
    """(head, rows) of the table, one row per variant in the claims' order; ``baselines``: {variant: its
    baseline's name}, so that a baseline another variant is compared with says it is one; ``against``: the
    last column's head."""
    by_variant = {}
    for claim in claims_:
        if claim.word not in STRENGTH:        # a contest of two skill levels: the note under the table says it
            by_variant.setdefault(claim.variant, {})[_kind(claim.word)] = claim
    margins = {c.numbers["margin"] for c in claims_ if c.word in WITHIN}
    within_head = [f"fair within {margins.pop():g}" if len(margins) == 1 else "fair within E"] if margins else []
    head = ["variant", "games", "verdict", "largest edge, 95%", *within_head, f"{against} (games)"]
    out = []
    for name, of in by_variant.items():
        balance, within, change = of[BALANCE], of.get(WITHIN), of.get(CHANGE)
        is_baseline = any(base == name != other for other, base in baselines.items())
        out.append([name, f"{balance.games:,}", balance.word, edge_cell(balance),
                    *[within_cell(within)] * bool(within_head), change_cell(change, is_baseline)])
    return head, out


def _kind(word):
    return next(kind for kind in (BALANCE, WITHIN, CHANGE) if word in kind)


def edge_cell(balance):
    """The worst unit's edge and its interval (``seat 3 -0.181 [-0.194, -0.165]``), or where no edge is found
    none named (naming the unit the gap points at would undo the family's correction in words) and the edge
    every unit's interval rules out."""
    n = balance.numbers
    if "unit" in n:         # scored by margins: in the game's unit
        if balance.word == "no edge found":
            return f"none; all within ±{n['ruled_out']:.2f} {n['unit']}"
        return f"{unit_name(balance.seats)} {n['edge']:+.2f} {n['unit']} [{n['low']:+.2f}, {n['high']:+.2f}]"
    if balance.word == "no edge found":
        return f"none; all within ±{n['ruled_out']:.3f}"
    fair = n["fair"]
    # relative to a fair share too: one scale for every player count (0.03 is small at 2 seats, large at 5)
    relative = f" ({100 * n['edge'] / fair:+.0f}%)" if fair else ""
    return (f"{unit_name(balance.seats)} {n['edge']:+.3f}{relative} "
            f"[{n['low'] - fair:+.3f}, {n['high'] - fair:+.3f}]")


def within_cell(within):
    if within is None:
        return "-"
    return "shown" if within.word == "fair within" else "not shown"


def change_cell(change, is_baseline):
    """``less fair than square-4p (2,000)``: the word, the baseline and the games compared (pairs of games on
    common deals; different seeds: both runs' games)."""
    if change is None:
        return "the baseline" if is_baseline else "-"
    games = f"({change.games:,})"
    if change.word == "never came into play":
        return f"never came into play {games}"
    if change.word == "no change found":
        return f"no change found vs {change.against} {games}"
    return f"{change.word} than {change.against} {games}"


def aligned(head, rows_):
    """The table as text columns, each as wide as its widest cell."""
    widths = [max(len(str(row[i])) for row in [head, *rows_]) for i in range(len(head))]
    return ["  ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            for row in [head, *rows_]]


def notes(analysis, claims_):
    """At most a few lines under the table: what qualifies a row (a rule hole, a first look, an edge real yet
    within E, a change that never came into play, verdicts decided at looks)."""
    words = {(c.variant, c.word) for c in claims_}
    out = []
    for name, b in analysis.balances.items():
        if b.timeouts:
            out.append(f"{name}: rule hole: {b.timeouts:,} of {b.n_games:,} games were stopped at max_turns, "
                       "not ended by the rules")
        if b.n_games < FEW_GAMES:
            out.append(f"{name}: only {b.n_games:,} games: read its row as a first look")
        if (name, "unbalanced") in words and (name, "fair within") in words:
            out.append(f"{name}: unbalanced, yet fair within: its edge is real and shown smaller than the margin")
    if analysis.skill_levels:
        out.append(_strength_note(analysis))
    if analysis.decisions:
        out.append(f"{len(analysis.decisions)} variant{'s were' if len(analysis.decisions) > 1 else ' was'} played "
                   "until decided: their words are the decision's at the look that stopped them")
    return out


def _strength_note(analysis):
    """A skill sweep's note: whether its top level is shown stronger than the level below it (``--strength``),
    since an edge at the top level says what more skill does only as far as that level is the stronger."""
    from analyses.skill import of_rules, top_contest, top_shown_stronger

    levels = list(analysis.skill_levels.values())
    first = analysis.results[0]
    contest = top_contest(levels, of_rules(analysis.strengths, first.game, first.meta.get("params", "{}")))
    if contest is None:
        return (f"skill: the top level's strength is not measured (--strength with a versus or ladder of "
                f"{levels[-1]} against {levels[-2]}): the edge may still move with more skill")
    said = f"{contest.policy} {contest.words()}".replace("`", "")
    if top_shown_stronger(levels, contest):
        return f"skill: the top level is shown stronger than the level below it: {said}"
    return (f"skill: the top level is not shown stronger than the level below it ({said}): the edge may still "
            "move with more skill")


LEGEND = {
    "unbalanced": "a seat's (team's) share of the points differs from fair beyond chance",
    "no edge found": "no share differs from fair beyond chance; the column gives the largest edge the games still "
                     "allow",
    "fair within": "shown: every seat's (team's) share is shown within the margin of fair (two one-sided tests "
                   "each); not shown: the games do not yet rule out an edge that large",
    "fairer": "the imbalance, the sum of the squared edges, is smaller than the baseline's",
    "less fair": "the imbalance, the sum of the squared edges, is larger than the baseline's",
    "no change found": "neither fairer nor less fair than the baseline beyond chance",
    "never came into play": "every game is the baseline's game on the same deals: the rule change was never used",
}


MARGIN_LEGEND = {       # scored by margins (--score margin): a seat's score less the table's mean, fair 0
    "unbalanced": "a seat's (team's) margin differs from 0 beyond chance",
    "no edge found": "no margin differs from 0 beyond chance; the column gives the largest margin the games still "
                     "allow",
    "fair within": "shown: every seat's (team's) margin is shown within E of 0 (two one-sided tests each); not "
                   "shown: the games do not yet rule out a margin that large",
}


def legend(claims_, family):
    """The words the table used, each in plain language once, and the error rate that holds them."""
    used = [w for w in LEGEND if any(c.word == w or (w == "fair within" and c.word in WITHIN) for c in claims_)]
    unit = next((c.numbers["unit"] for c in claims_ if "unit" in c.numbers and c.word in BALANCE), None)
    words = LEGEND if unit is None else {**LEGEND, **MARGIN_LEGEND}
    edge = ("edge: a share of the points minus its fair share (in % of the fair share)" if unit is None else
            f"edge: a seat's margin (its score less the table's mean) in {unit}")
    edge += ", its interval 95% for all seats at once; (games): the games a comparison read, pairs of games on the " \
        "same deals"
    rate = ("Each kind of word (unbalanced; fair within; fairer or less fair) is wrong at most 5% of the time"
            + (f" across the {family} variants together." if family > 1 else "."))
    return [edge, *(f"{word}: {words[word]}" for word in used), rate]


def terminal(analysis):
    """The first screen as text lines: the table, notes, then the words in plain language."""
    claims_ = claims(analysis)
    head, body = rows(claims_, analysis.baselines, _against(analysis))
    notes_ = notes(analysis, claims_)
    lines = aligned(head, body)
    for block in ([notes_] if notes_ else []) + [legend(claims_, len(analysis.verdicts))]:
        lines.append("")
        for text in block:
            lines += textwrap.wrap(text, WIDTH, subsequent_indent="  ", break_on_hyphens=False)
    return lines


def _against(analysis):
    """The last column's head: a skill sweep compares each level with the level below."""
    from analyses.report import _by_steps

    return "against the level below" if _by_steps(analysis) else "against its baseline"


def blocks(analysis):
    """The first screen as a report's blocks: the table (Markdown cells), then the notes and the words."""
    from analyses.report import Table

    claims_ = claims(analysis)
    head, body = rows(claims_, analysis.baselines, _against(analysis))
    notes_ = notes(analysis, claims_)
    return [Table(head, body), *(["\n".join(f"* {note}" for note in notes_)] if notes_ else []),
            "\n".join(f"* {line}" for line in legend(claims_, len(analysis.verdicts)))]
