"""The words of a verdict in plain language: each statistical term a verdict uses, with a short phrase said
beside its first use and a definition for the glossary (the report's last section, and docs/reference/glossary.md,
which ``docs/hooks.py`` fills from :data:`TERMS`, so the two cannot drift).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """``term`` as a verdict writes it (``pattern``: how to find it, a regular expression); ``plain``: the phrase
    said beside its first use ("" when the term says itself); ``meaning``: the glossary's definition."""

    term: str
    pattern: str
    plain: str
    meaning: str

    @property
    def anchor(self):
        return "glossary-" + re.sub(r"[^a-z0-9]+", "-", self.term.lower()).strip("-")


TERMS = (
    Term("edge", r"\bedge\b", "",
         "A seat's (team's) share of the points minus its fair share (1/players for a seat, a team's seats over the "
         "players for a team); in % of the fair share, one scale for every player count."),
    Term("gap", r"\b(seat|team) gap\b", "the best share minus the worst",
         "The seat gap: the highest seat's (team's) points a game minus the lowest's. A fair game shows a gap too, the "
         "larger the fewer the games: the fair gap is its mean at this many games."),
    Term("imbalance", r"\bimbalance\b", "the sum of the squared edges",
         "Σ(share - fair)² over the seats (teams): 0 for a fair game; estimated without bias, so a fair variant's may "
         "come out a hair below 0. Fairer means a smaller imbalance."),
    Term("p", r"\bp(?= [=<])", "",
         "The p-value: how often a result at least this far from the null (a fair game, no change) would come by "
         "chance if the null held. A word is said when it falls below the error rate (5%)."),
    Term("Holm", r"\bHolm\b", "corrected for testing many at once",
         "Holm's correction: when many variants (seats, steps) are tested together, their p-values are raised so "
         "that any false word among them stays below 5%, not each one alone."),
    Term("Bonferroni", r"\bBonferroni\b", "the error rate split evenly over them",
         "Bonferroni's correction: each of k tests at 5% / k, so that any false word stays below 5%; its intervals are "
         "wider (99.6% for 12 seats' worth of tests)."),
    Term("Hotelling's T²", r"(Hotelling's )?T²", "a test that no seat's share moved",
         "One test of every seat (team) at once: whether the seats' points moved between two variants (or differ "
         "from fair), with their correlation taken into account."),
    Term("two one-sided tests", r"two one-sided tests|\bTOST\b", "each share shown above fair - E and below fair + E",
         "TOST, the equivalence test behind \"fair within E\": a seat is shown within E of fair when its share is "
         "shown both above fair - E and below fair + E; every seat must pass."),
    Term("U-statistic", r"U-statistic", "an estimate without bias",
         "The imbalance of each variant is estimated as a U-statistic (an average over pairs of games), which has no "
         "bias where the plain sum of squared edges would call every fair game a little unfair; its standard error "
         "gives the interval of the change."),
    Term("simultaneous", r"\bsimultaneous\b", "holding for all seats at once",
         "Intervals that hold for every seat at once at 95% (each at 1 - 5% / seats), so they cover the worst seat's "
         "share whichever seat the data made the worst."),
    Term("permutation test", r"permutation test", "the games' winners reshuffled over the seats",
         "The gap test: each game's winners rearranged at random over the seats (teams kept together), thousands "
         "of times, give the gaps a fair game shows; the p-value is the share at least as large as the one seen."),
    Term("common deals", r"common deals", "the same shuffles for both variants",
         "Two variants played on one seed see the same random deals game by game, so a difference between them is "
         "the rules' and not the luck of the deal; the tests pair game i with game i."),
    Term("power", r"\bpower\b", "the chance to find it if it is there",
         "How often a test finds an effect of a given size; \"no change found\" with low power says little."),
    Term("association", r"an association, not a cause", "",
         "Seats that play a kind of move win more or less, but a seat may play it because it is already ahead or "
         "holds a good hand: not proof that the move wins."),
    Term("played until decided", r"played until decided", "stopped once a verdict was shown",
         "A sweep with --until-decided plays each variant in looks of doubling games and stops it once it is shown "
         "unbalanced or fair within E; the error is spent over the looks so any false verdict stays below 5%."),
)


def first_use(text, link=None, seen=None):
    """``text`` with the plain phrase beside the first use of each term not in ``seen`` (a set, updated: the
    terms said already in the paragraphs before); ``link(term, said)``: Markdown for the term as said, e.g. a
    link to the report's glossary; None leaves the term as it is."""
    seen = set() if seen is None else seen
    for term in TERMS:
        match = re.search(term.pattern, text) if term.term not in seen else None
        if match is None or not (term.plain or link):
            continue
        seen.add(term.term)
        said = match.group(0)
        shown = (link(term, said) if link else said) + (f" ({term.plain})" if term.plain else "")
        text = text[:match.start()] + shown + text[match.end():]
    return text


def linked(term, said):
    """A term as a Markdown link to its entry in the report's glossary."""
    return f"[{said}](#{term.anchor})"


def markdown():
    """The glossary as a Markdown list: a definition per term, each with its anchor (the report links to them)."""
    return "\n".join(f'* <a id="{t.anchor}"></a>**{t.term}**: {t.meaning}' for t in TERMS)
