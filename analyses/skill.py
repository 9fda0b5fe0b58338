"""How strong the levels of a skill sweep are, and what its verdict may say for it.

A skill sweep reads the seat edge at every level of play, weakest first, and compares the first level with the
last. That says what more skill does only as far as the levels differ in skill: a top level no stronger than the
one below it (ISMCTS at 100 iterations barely beats greedy in some games) leaves the edge free to move with
more skill, as Zwergen Ziehen's does between ISMCTS 100 and 1,000 (docs/how-to/skill.md). A sweep plays every
seat at one level, so it cannot tell; a contest of two levels on the same deals can: ``simcore versus`` (A in
every seat in turn against B) and every rung of ``simcore ladder`` (a budget 2n against n). Each contest is a
:class:`Strength`, with ``versus``'s score, interval and test (a z test of the deals' mean scores, two-sided
5%); ``analyze --strength FOLDER`` reads them (``simcore.studies.strength``). The verdict then states each
level's measured score and says, unless a contest shows it, that the top level is not shown stronger than the
one below it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from analyses.context import changed, rules_text


@dataclass(frozen=True)
class Strength:
    """``policy``'s score against ``against`` over ``deals`` deals of ``game`` with the rules ``params`` (a JSON
    text, as a result file records it), each deal played with ``policy`` in every seat in turn: its mean points
    with the 95% interval, the fair score 1/players and the two-sided p-value of ``simcore versus``; ``source``:
    the folder it was read from."""

    policy: str
    against: str
    game: str
    params: str
    deals: int
    score: float
    low: float
    high: float
    fair: float
    pvalue: float
    source: str
    test: str = "z test of the deals' mean scores against fair, two-sided 5%"    # as versus says it
    split: object = None        # the seats apart (simcore.studies.versus.SeatSplit)

    @property
    def verdict(self):
        """"stronger", "weaker" or "no difference found": the word of its claim (the z test at 5%)."""
        from analyses.claims import strength_word

        return strength_word(self.score, self.fair, self.pvalue)

    def claim(self):
        """Its :class:`analyses.claims.Claim`, as ``simcore versus`` made it."""
        from analyses.claims import contest_claim

        return contest_claim(self, rules_text(self.game, json.loads(self.params)), self.test)

    def words(self):
        """``scores 0.598 [0.546, 0.647] against `greedy` (fair 0.250, 100 deals; stronger, p < 0.0001)``: its
        claim's numbers and word."""
        c = self.claim()
        n = c.numbers
        p = "p < 0.0001" if n["pvalue"] < 1e-4 else f"p = {n['pvalue']:.2g}"
        from analyses.claims import split_text

        split = split_text(c)
        return (f"scores {n['score']:.3f} [{n['low']:.3f}, {n['high']:.3f}] against `{c.against}` (fair "
                f"{n['fair']:.3f}, {c.games:,} deals; {c.word}, {p}{f'; by seat {split}' if split else ''})")


def of_rules(strengths, game, params):
    """The contests of ``strengths`` played on ``game`` with the rules ``params`` (a JSON text): only these
    measure the levels of a sweep of those rules."""
    rules = json.loads(params)
    return [s for s in strengths if s.game == game and json.loads(s.params) == rules]


def level_contests(levels, strengths):
    """The contests between two of ``levels`` (the policy specs, weakest first), in the levels' order of their
    ``policy``; any other contest says nothing of these levels."""
    order = {spec: i for i, spec in enumerate(levels)}
    return sorted((s for s in strengths if s.policy in order and s.against in order and s.policy != s.against),
                  key=lambda s: (order[s.policy], order[s.against]))


def top_contest(levels, strengths):
    """The contest of the top level and the one below it (either way round; the one of more deals when there
    are several), or None."""
    top, below = levels[-1], levels[-2]
    pair = [s for s in strengths if {s.policy, s.against} == {top, below}]
    return max(pair, key=lambda s: s.deals) if pair else None


def top_shown_stronger(levels, contest):
    """Does ``contest`` (from :func:`top_contest`) show the top level stronger than the one below it?"""
    if contest is None:
        return False
    return contest.verdict == ("stronger" if contest.policy == levels[-1] else "weaker")


def strength_sentence(levels, strengths, game, params):
    """What the verdict says of the levels' strength: each contest between two levels, then whether the top level
    is shown stronger than the one below it, and if not, that the edge may still move with more skill and how to
    measure it. ``levels``: the policy specs, weakest first (two or more); ``strengths``: the contests read, of
    any rules (those of other rules are left out); ``game``, ``params``: the sweep's."""
    contests = level_contests(levels, of_rules(strengths, game, params))
    measured = ("How strong the levels are, by contests on the same deals (every seat in turn; z test of the deals' "
                "mean scores, 5%): " + "; ".join(f"`{s.policy}` {s.words()}" for s in contests) + ". ") \
        if contests else ""
    top, below = levels[-1], levels[-2]
    contest = top_contest(levels, contests)
    if top_shown_stronger(levels, contest):
        return f"{measured}The top level, `{top}`, is shown stronger than `{below}`, the level below it."
    if contest is not None:
        return (f"{measured}**The top level, `{top}`, is not shown stronger than `{below}`, the level below it**: "
                "the edge may still move with more skill.")
    rules = json.loads(params)          # {} where the files recorded none: no --set to suggest
    sets = "".join(f" --set {key}={_shown(value)}" for key, value in (changed(game, rules) if rules else {}).items())
    return (f"{measured}**The top level's strength is not measured**: nothing here shows `{top}` stronger than "
            f"`{below}`, the level below it, so the edge may still move with more skill (measure it: `simcore versus "
            f"{game}{sets} --policy {top} --against {below} --out DIR`, then `simcore analyze` with `--strength DIR`).")


def _shown(value):
    """A parameter's value as ``--set`` takes it."""
    return json.dumps(value).replace(" ", "") if isinstance(value, list | bool) else str(value)


def unused(levels, strengths, game, params):
    """One line per contest of ``strengths`` that is not between two of ``levels`` on the sweep's rules (the
    verdict leaves it out), for a warning."""
    kept = level_contests(levels, of_rules(strengths, game, params))
    return [f"warning: --strength {s.source}: {s.policy} against {s.against} is not a contest of two of these skill "
            f"levels on their rules ({game}, {rules_text(game, json.loads(params))}); the verdict leaves it out"
            for s in strengths if s not in kept]
