"""The report of ``simcore options --report PATH``: the study's claims as the sections of a Markdown or HTML page
(``analyses.report``'s blocks and page), with a plot of every kind's worth. It renders claims only: every word and
number on the page is a claim's (``analyses.claims.option_claim``, ``option_change_claim``, ``contest_claim``)."""

import io
from pathlib import Path

import matplotlib.pyplot as plt

from analyses import options as worth
from analyses.plots import options_plot
from analyses.report import Image, Section, Table, _check_suffix, _png_data, html_page, markdown
from simcore.io import writing

WORDS = [
    "* **dominant**: preferring the kind gains points against full play",
    "* **worth taking**: forbidding it costs points",
    "* **worth avoiding**: forbidding it gains points: the players take it where they should not",
    "* **never worth it**: both restrictions shown within the margin of no effect",
    "* **never came into play**: never legal where the restricted seat decided; no number",
    "* **no effect found**: none of these",
    "* **worth more**, **worth less**: against the first variant of its player count, on the same deals",
]


def kinds_table(claims):
    """One row per kind: its meaning, how often legal and taken under full play, both restrictions, its word."""
    rows = [[f"`{c.numbers['kind']}`", c.numbers["meaning"], worth.share_text(c.numbers["legal"]),
             worth.share_text(c.numbers["taken"]), worth.interval_text(c.numbers["forbidden"]),
             worth.interval_text(c.numbers["preferred"]), f"**{c.word}**"] for c in claims]
    return Table(["kind", "meaning", "legal", "taken", "forbidden", "preferred", "word"], rows)


def figure(claims, fair, title):
    """The plot of every kind's two restrictions (:func:`analyses.plots.options_plot`), from the claims."""
    def points(mode):
        return [None if c.numbers[mode] is None else
                (c.numbers[mode]["share"], c.numbers[mode]["low"], c.numbers[mode]["high"]) for c in claims]
    return options_plot([c.numbers["kind"] for c in claims], points("forbidden"), points("preferred"), fair, title)


def sections(studied, changed=(), skilled=(), title="What each kind of move is worth"):
    """The page's sections: ``studied`` is [(variant name or "", OptionsResult, its kinds' claims)], ``changed``
    the change claims of a sweep, ``skilled`` (variant, contest, claim, luck) rows; returns (sections, {plot file:
    Figure})."""
    out, figs = [], {}
    first = studied[0][1]
    out.append(Section(title, [
        f"Restricted play for `{first.policy}` on {first.game}: one seat plays it with a kind of move forbidden, then "
        f"preferred (played whenever legal), against it unrestricted in every other seat, on the same "
        f"{first.deals:,} deals from every seat. The points are the restricted seat's (fair "
        f"{1 / first.players:.3f}); *legal*: the share of the decisions of a kind where the kind was legal, "
        "*taken*: of those where it was played, under full play.",
        f"Family: {first.family}. Test: {worth.TEST}."], level=1))
    for number, (name, result, claims) in enumerate(studied):
        file = f"options-{number}.png"
        figs[file] = figure(claims, 1 / result.players, f"{name or result.rules}: points of the restricted seat")
        out.append(Section(name or result.rules, [kinds_table(claims), Image("the kinds' worth", file)]))
    if changed:
        rows = [[f"`{c.numbers['kind']}`", c.variant.partition(":")[0], c.against,
                 *(_delta(c.numbers.get(mode)) for mode in worth.MODES), f"**{c.word}**"] for c in changed]
        out.append(Section("Where a kind's worth changes", [
            f"Each variant against the first variant of its player count, on the same deals. Test: "
            f"{worth.CHANGE_TEST}.", Table(["kind", "variant", "against", "forbidden change", "preferred change",
                                            "word"], rows)]))
    if skilled:
        rows = [[name, f"`{contest.policy}` over `{contest.against}`",
                 f"{contest.score:.3f} [{contest.low:.3f}, {contest.high:.3f}]", f"**{claim.word}**", f"{luck:.3f}"]
                for name, contest, claim, luck in skilled]
        out.append(Section("Skill and luck", [
            "A over B: A's points with B in every other seat, A in each seat in turn (`simcore versus`'s test); "
            "luck: B's points per seat in the same games, how often the player meant to be weaker still wins.",
            Table(["rules", "contest", "points of A", "word", "luck"], rows)]))
    out.append(Section("Words", ["\n".join(WORDS)]))
    return out, figs


def _delta(numbers):
    if not numbers:
        return "-"
    return f"{numbers['delta']:+.3f} [{numbers['low']:+.3f}, {numbers['high']:+.3f}]"


def write(path, studied, changed=(), skilled=()):
    """Write the report at ``path``: Markdown (``.md``, its plots in ``<stem>-plots/`` beside it) or one
    self-contained HTML page (``.html``); whole or not at all."""
    _check_suffix(path)
    path = Path(path)
    parts, figs = sections(studied, changed, skilled)
    pngs = {}
    for name, fig in figs.items():
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110)
        plt.close(fig)
        pngs[name] = buffer.getvalue()
    if path.suffix.lower() == ".html":
        text = html_page(parts, lambda file: _png_data(pngs[file]))
    else:
        plots = path.parent / f"{path.stem}-plots"
        plots.mkdir(parents=True, exist_ok=True)
        for name, png in pngs.items():
            writing.write_atomic(plots / name, lambda tmp, png=png: tmp.write_bytes(png))
        text = markdown(parts, lambda file: f"{plots.name}/{file}")
    writing.write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path
