"""A report over the variants of a sweep (or any result files): tables, tests, plots and games worth watching.

The report is built once as a list of :class:`Section` and rendered as Markdown (plots as PNG files beside it) or
as one self-contained HTML file (plots embedded, links to replay pages).
"""

import base64
import html
import io
import math
import re
import textwrap
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import matplotlib.pyplot as plt
import numpy as np

from analyses import context, glossary
from analyses.balance import RESAMPLES, seat_balance
from analyses.decisiveness import decisiveness, load_trace
from analyses.fairer import DEFAULT_MARGIN, margin_balance
from analyses.intervals import proportion_interval
from analyses.kinds import kind_stats, notable
from analyses.plots import duration_plot, score_plot, short_labels, skill_plot, varying, win_share_plot
from analyses.scoring import RULE, scored_by
from analyses.sequential import decisions
from analyses.shape import game_shape
from analyses.skill import level_contests, of_rules
from analyses.variants import against_baseline, baselines_of, fairness_against
from analyses.verdict import ALPHA, _gaps, skill_sentence, verdicts
from analyses.watch import games_worth_watching, replay_command
from simcore.io import writing

SUFFIXES = (".md", ".html")


@dataclass(frozen=True)
class Link:
    """A table cell that links to a page."""

    text: str
    href: str

    def __str__(self):
        return f"[{self.text}]({self.href})"


@dataclass(frozen=True)
class Table:
    """Cells are Markdown text (or a :class:`Link`); ``str()`` gives the Markdown table."""

    head: list
    rows: list

    def __str__(self):
        lines = ["| " + " | ".join(self.head) + " |", "|" + "---|" * len(self.head)]
        lines += ["| " + " | ".join(map(str, row)) + " |" for row in self.rows]
        return "\n".join(lines)


@dataclass(frozen=True)
class Image:
    alt: str
    file: str       # the plot's file name, as save_plots writes it


@dataclass
class Section:
    """A heading and its blocks: paragraphs (Markdown text), :class:`Table` and :class:`Image`."""

    title: str
    blocks: list
    level: int = 2


@dataclass
class Analysis:
    results: list
    balances: dict
    shapes: dict
    comparisons: list
    baselines: dict = None      # variant name -> the name of its baseline (analyses.variants.baselines_of)
    untested: list = ()         # (metric, variant, baseline, value): one value in every game of both
    verdicts: dict = None       # variant name -> analyses.verdict.Verdict
    decided: dict = None        # variant name -> analyses.decisiveness.DecisivenessResult, where it has a trace
    kinds: dict = None          # variant name -> {kind: analyses.kinds.KindStats}, likewise
    fairness: dict = None       # variant name -> analyses.variants.Fairness against its baseline
    strengths: tuple = ()       # analyses.skill.Strength: contests that measure the skill levels (--strength)
    margins: dict = None        # scored by margins: variant name -> analyses.fairer.margin_balance, else None
    pngs: dict = None           # the plots as PNG, drawn by the first report written (plot_pngs), reused by the next
    unfinished: tuple = ()      # notes of folders whose run stopped before its end (analyses.data.unfinished)
    decisions: dict = None      # variant name -> analyses.sequential.Decision, where it was played until decided

    @property
    def skill_levels(self):
        return skill_levels(self.results)


def skill_levels(results):
    """{variant: policy} when the variants differ only by the one policy every seat plays (a sweep of the
    ``policy`` axis: balance by skill level, weakest first as swept); else {}."""
    policies = [r.policies for r in results]
    params = {r.meta.get("params") for r in results}
    if len(results) < 2 or len(params) != 1 or any(len(set(p)) != 1 for p in policies):
        return {}
    if len({p[0] for p in policies}) != len(policies):
        return {}
    return {r.name: p[0] for r, p in zip(results, policies, strict=True)}


def skill_steps(levels):
    """Each skill level's baseline: the level below it (the first is its own), so that every step is compared."""
    names = list(levels)
    return {name: names[max(i - 1, 0)] for i, name in enumerate(names)}


def analyze(results, baselines=(), target=None, margin=DEFAULT_MARGIN, strengths=()):
    """Seat balance and game shape per variant, every variant against the baseline of its player count and
    policies (the first of them, or the one named in ``baselines``), and the verdicts (``target``: a
    :class:`analyses.verdict.LengthTarget` or None; ``margin``: E of "fair within E", None for none;
    ``strengths``: contests of the skill levels, :class:`analyses.skill.Strength`)."""
    # the gap test's Monte Carlo p-value is at least 1/(draws + 1): enough draws that Holm across the variants
    # can still find an edge (27 variants at 2,000 draws would floor every adjusted p at 0.013)
    draws = max(RESAMPLES, math.ceil(20 * len(results) / ALPHA))
    balances = {r.name: seat_balance(r.wins, r.column("timeout"), n_resamples=draws) for r in results}
    shapes = {r.name: game_shape(r.column("n_turns"), r.column("timeout"), r.extras()) for r in results}
    levels = skill_levels(results)
    bases = skill_steps(levels) if levels and not baselines else baselines_of(results, baselines)
    comparisons, untested = against_baseline(results, bases)
    analysis = Analysis(results, balances, shapes, comparisons, bases, untested,
                        fairness=fairness_against(results, bases), strengths=tuple(strengths))
    if results[0].score == "margin":
        analysis.margins = {r.name: margin_balance(r.outcome, balances[r.name].teams if
                                                   balances[r.name].team_game else None) for r in results}
    traces = {r.name: (r, load_trace(r)) for r in results}
    traces = {name: (r, t) for name, (r, t) in traces.items() if t is not None}
    analysis.decided = {name: decisiveness(t, r.wins) for name, (r, t) in traces.items()}
    # a kind never legal in a variant (Zwai's 9-fish card in a deck of 0 to 4 fish) says nothing: left out
    analysis.kinds = {name: {kind: k for kind, k in kind_stats(t, r.points).items() if k.choice is not None}
                      for name, (r, t) in traces.items()}
    why = {name: [k.sentence for k in notable(stats)[:NOTABLE]] for name, stats in analysis.kinds.items()}
    analysis.decisions = decisions(results)
    analysis.verdicts = verdicts(analysis, target, analysis.decided, why, margin, analysis.decisions)
    return analysis


NOTABLE = 3         # action kinds a verdict names at most: those whose played win rate differs the most


def _share(b, seat):
    if seat >= b.n_seats:
        return ""
    return f"{b.share[seat]:.3f} [{b.low[seat]:.3f}, {b.high[seat]:.3f}]"


def _p(p):
    return "n/a" if p != p else ("<1e-4" if p < 1e-4 else f"{p:.4f}")


GAP_HEAD = ["gap", "fair gap", "gap p", "chi² p"]


def _gap(b):
    """The gap cells: observed, what a fair game shows at this many games, the gap test, the chi-square test."""
    return [f"{b.largest_gap:.3f}", f"{b.fair_gap:.3f}", _p(b.gap_pvalue),
            _p(b.pvalue) if b.decisive else "none: no game with one winner"]


MAX_COLUMNS = 8     # a report table's columns at most: wider ones are split (a page of 1280 px shows them whole)


def fit(table, most=MAX_COLUMNS):
    """``table`` as tables of at most ``most`` columns, each repeating the first (the variant): what does not
    fit a laptop's page goes to a table below, not off the side."""
    if len(table.head) <= most:
        return [table]
    out = []
    for start in range(1, len(table.head), most - 1):
        cols = [0, *range(start, min(start + most - 1, len(table.head)))]
        out.append(Table([table.head[i] for i in cols], [[row[i] for i in cols] for row in table.rows]))
    return out


def balance_table(analysis):
    """The variants whose unit is the seat, one row each; None when every variant is a team game (whose verdict
    speaks of teams: :func:`team_table`)."""
    balances = {name: b for name, b in analysis.balances.items() if not b.team_game}
    if not balances:
        return None
    seats = max(b.n_seats for b in balances.values())
    head = ["variant", "players", "games"] + [f"seat {i} points" for i in range(seats)] + \
        ["shared", "timeouts"] + GAP_HEAD
    rows = [[name, str(b.n_seats), f"{b.n_games:,}"] + [_share(b, i) for i in range(seats)]
            + [f"{b.shared:,}", f"{b.timeouts:,}"] + _gap(b)
            for name, b in balances.items()]
    return Table(head, rows)


def team_table(analysis):
    """The team games, one row each, in the unit and numbers their verdict speaks of: each team's points (its
    seats' summed), the games won by more than one team, the team gap and a fair game's, the gap test (issue 53,
    case 5: the verdict's team gap 0.103 sat beside the seats' gap 0.051 under the same column name). None
    without a team game."""
    balances = {name: b for name, b in analysis.balances.items() if b.team_game}
    if not balances:
        return None
    teams = list(dict.fromkeys(team for b in balances.values() for team in b.teams))
    wins = {r.name: r.wins for r in analysis.results}
    head = (["variant", "players", "games"] + [f"team {'+'.join(map(str, team))} points" for team in teams]
            + ["shared between teams", "timeouts", "team gap", "fair team gap", "gap p"])
    rows = []
    for name, b in balances.items():
        gap, fair_gap = _gaps(b)
        rows.append([name, str(b.n_seats), f"{b.n_games:,}"] + [_team_share(b, team) for team in teams]
                    + [f"{_shared_between_teams(b, wins[name]):,}", f"{b.timeouts:,}", f"{gap:.3f}",
                       f"{fair_gap:.3f}", _p(b.gap_pvalue)])
    return Table(head, rows)


def _team_share(b, team):
    """A team's points a game (its seats' summed) with its 95% Wilson interval, as the seats' cells give theirs."""
    if team not in b.teams:
        return ""
    total = float(b.points[list(team)].sum())
    ci = proportion_interval(min(total, b.n_games), b.n_games, b.confidence)
    return f"{total / b.n_games:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def _shared_between_teams(b, wins):
    won = np.column_stack([np.asarray(wins)[:, list(team)].any(axis=1) for team in b.teams]).sum(axis=1)
    return int((won > 1).sum())


def _balance_blocks(analysis):
    """The report's seat table (the paragraph above it names its tests) and team table with its tests' line."""
    seats, teams = balance_table(analysis), team_table(analysis)
    return [*(fit(seats) if seats else []), *([*fit(teams), TEAM_TESTS] if teams else [])]


def balance_tables(analysis):
    """The seat table and the team table, each with the line naming its tests, where the folder has such
    variants."""
    return [(table, legend) for table, legend in ((balance_table(analysis), BALANCE_TESTS),
                                                  (team_table(analysis), TEAM_TESTS)) if table is not None]


def shape_table(analysis):
    head = ["variant", "mean turns", "sd", "5%", "median", "95%", "completion"]
    rows = [[name, f"{s.mean:.2f}", "none: one game" if math.isnan(s.sd) else f"{s.sd:.2f}",
             f"{s.quantiles[5]:g}", f"{s.quantiles[50]:g}", f"{s.quantiles[95]:g}", f"{s.completion:.2%}"]
            for name, s in analysis.shapes.items()]
    return Table(head, rows)


def skill_table(analysis):
    """Seat balance and game length side by side, one row per skill level (the policy every seat plays), named
    by its agent and budget (:func:`skill_legend` spells out each spec); with contests of the levels
    (``analyze --strength``), each level's score in them (:func:`_strength_cells`)."""
    levels = analysis.skill_levels
    seats = max(b.n_seats for b in analysis.balances.values())
    strength = _strength_cells(analysis)
    head = ["skill level", "games"] + [f"seat {i} points" for i in range(seats)] + GAP_HEAD + \
        ["mean turns", "completion"] + (["score in contests"] if strength else [])
    rows = []
    for (name, _), label in zip(levels.items(), short_labels(list(levels.values())), strict=True):
        b, s = analysis.balances[name], analysis.shapes[name]
        rows.append([label, f"{b.n_games:,}"] + [_share(b, i) for i in range(seats)]
                    + _gap(b) + [f"{s.mean:.2f}", f"{s.completion:.2%}"] + ([strength[name]] if strength else []))
    return Table(head, rows)


def _strength_cells(analysis):
    """{variant: its level's score against each level it played a contest with}, "no contest" where it played
    none; {} when no contest of these rules is between two levels (the column is then left out)."""
    levels = analysis.skill_levels
    first = analysis.results[0]
    contests = level_contests(list(levels.values()), of_rules(analysis.strengths, first.game,
                                                               first.meta.get("params", "{}")))
    if not contests:
        return {}
    label = dict(zip(levels.values(), short_labels(list(levels.values())), strict=True))
    return {name: "; ".join(f"{c.score:.3f} [{c.low:.3f}, {c.high:.3f}] against {label[c.against]}"
                            for c in contests if c.policy == policy) or "no contest"
            for name, policy in levels.items()}


def skill_legend(analysis):
    """Each skill level's label and its whole policy spec, as a Markdown list."""
    specs = list(analysis.skill_levels.values())
    return "\n".join(f"* {label}: `{spec}`" for label, spec in zip(short_labels(specs), specs, strict=True))


def extras_table(analysis):
    names = sorted({k for s in analysis.shapes.values() for k in s.extras})
    head = ["variant"] + names
    rows = [[name] + [f"{s.extras[k][0]:.3g}" if k in s.extras else "" for k in names]
            for name, s in analysis.shapes.items()]
    return Table(head, rows)


BALANCE_TESTS = (f"points: {RULE}. gap p: permutation test of the gap (H0: the seat does not matter), which "
                 "calls a fair game unfair 5% of the time at p < 0.05; chi² p: whether every seat wins as many of "
                 "the games with one winner, which counts no shared win (a game fair in points whose shared wins "
                 "fall to the same seats fails it); per variant, not adjusted across variants")


TEAM_TESTS = ("team points: a team's seats' points summed (a team's win is a win of each of its seats), with a "
              "95% Wilson interval; shared between teams: games won by more than one team; team gap: the highest "
              "team's points minus the lowest's, fair team gap: a fair game's at this many games; gap p: "
              "permutation test of the team gap (H0: the seat does not matter, teams kept together), 5% at p < "
              "0.05; per variant, not adjusted across variants")


def comparison_tests(across, score="points"):
    """One line naming the comparisons' tests and the error Holm controls ``across`` them."""
    moved, imbalance = ("margins", "Σ margin²") if score == "margin" else ("points", "Σ(share - fair)²")
    return ("tests: the paired t test of the mean difference (Welch's t when the seeds differ) for numeric columns, "
            "McNemar's exact test (a z or Fisher test unpaired) for yes/no ones; fairer: the change of the "
            f"imbalance {imbalance} (bias-corrected, paired on common deals) and Hotelling's T² test that no "
            f"seat's {moved} moved; p (Holm) keeps the chance of any false difference at 5% across {across}")


def _by_steps(analysis):
    """Whether each variant is compared with the skill level below it (a skill sweep without --baseline)."""
    return bool(analysis.skill_levels) and analysis.baselines == skill_steps(analysis.skill_levels)


def _baselines_text(bases, skill=False):
    if skill:
        return "Each skill level is compared with the level below it."
    if len(bases) == 1:
        return f"Baseline for comparisons: `{bases[0]}`."
    return ("Baselines for comparisons, one per player count and policies: "
            f"{', '.join(f'`{b}`' for b in bases)}.")


def untested_text(untested):
    """One sentence for the metrics that take one value in every game of a variant and its baseline."""
    counts = Counter((metric, value) for metric, _, _, value in untested)
    parts = [f"{metric} ({value} in every game; {n} comparison{'s' if n > 1 else ''})"
             for (metric, value), n in counts.items()]
    return f"Not tested, as it cannot differ: {'; '.join(parts)}."


def comparison_table(comparisons, fairness=()):
    """The comparisons, then per :class:`analyses.variants.Fairness` its imbalance change and its T² test."""
    head = ["variant", "vs", "metric", "paired", "effect (a - b)", "95% interval", "p", "p (Holm)"]
    rows = [[c.a, c.b, c.metric, "yes" if c.paired else "no", f"{c.result.statistic:+.4f}",
             f"[{c.result.low:+.4f}, {c.result.high:+.4f}]", _p(c.result.pvalue), _p(c.adjusted_pvalue)]
            for c in comparisons]
    for f in fairness:
        c, t2 = f.change, f.shift
        paired = "yes" if f.paired else "no"
        rows += [[f.b, f.a, "imbalance", paired, f"{c.estimate:+.4f}", f"[{c.low:+.4f}, {c.high:+.4f}]",
                  _p(c.pvalue), _p(f.change_p)],
                 [f.b, f.a, "seats moved (T²)", paired, f"T² = {t2.statistic:.1f}", "", _p(t2.pvalue), _p(f.shift_p)]]
    return Table(head, rows)


def figures(analysis):
    """The plots as {file name: matplotlib Figure}."""
    figs = {"win_share.png": win_share_plot(analysis.balances)}
    lengths = varying({r.name: r.column("n_turns") for r in analysis.results})
    if lengths:
        figs["duration.png"] = duration_plot(lengths)
    figs["scores.png"] = score_plot({r.name: r.scores for r in analysis.results})
    if analysis.skill_levels:
        levels = analysis.skill_levels
        figs["skill.png"] = skill_plot({levels[name]: analysis.balances[name] for name in levels})
    return figs


def plot_pngs(analysis, progress=None):
    """The plots as {file name: PNG bytes}, drawn once per analysis: a second report of it reuses them.
    ``progress(what, done, total)`` hears of each as it is drawn."""
    if analysis.pngs is None:
        pngs = {}
        for name, fig in _drawn(figures(analysis), progress):
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=110)
            plt.close(fig)
            pngs[name] = buffer.getvalue()
        analysis.pngs = pngs
    return analysis.pngs


def save_plots(analysis, folder, progress=None):
    """Write the plots as PNG into ``folder``; return their file names."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    pngs = plot_pngs(analysis, progress)
    for name, png in pngs.items():
        (folder / name).write_bytes(png)
    return list(pngs)


def _drawn(figs, progress=None):
    """The (name, figure) pairs of ``figs``, telling ``progress`` of each one done before the next is given."""
    for done, item in enumerate(figs.items(), 1):
        yield item
        if progress:
            progress("plots", done, len(figs))


def _png_data(png):
    """PNG bytes as a data: URI, for an HTML page that needs no file beside it."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def skill_section(analysis):
    """The report's section on balance by skill level (none unless the variants are skill levels)."""
    if not analysis.skill_levels:
        return []
    return [Section("By skill level", [
        "The variants differ only in the policy every seat plays, from the weakest listed to the strongest: "
        "does the seat balance (and the length of a game) hold when people play well?",
        *fit(skill_table(analysis)), skill_legend(analysis), Image("points per seat against skill", "skill.png")])]


def _won_by(watch):
    if watch.winners:
        return ("seat " if len(watch.winners) == 1 else "seats ") + ", ".join(map(str, watch.winners))
    return "nobody (timeout)" if watch.timeout else "nobody"


def watch_section(watches, folder, pages):
    """The games worth watching with their replay commands, run from ``folder``; ``pages``: {watch: href of its
    replay page}, linked from the command."""
    rows = []
    for w in watches:
        command = f"`{replay_command(w, folder)}`"
        rows.append([w.variant, w.label + (f" ({w.note})" if w.note else ""), f"{w.n_turns:,}", _won_by(w),
                     Link(command, pages[w]) if w in pages else command])
    return Section("Games worth watching", [
        "Per variant: the longest and the shortest game (the first by game index on a tie; the first game alone "
        "when all are as long), and a random game lost by the seat with the lowest points, drawn from the "
        "file's seed and the variant's name (the same game in every report). Replay one with its command, run "
        "from the report's folder.",
        Table(["variant", "game", "turns", "won by", "replay"], rows)])


def context_lines(results):
    """One line per variant: its rules (what differs from the game's defaults), policies, games, seed and
    simcore (``analyses.context``)."""
    return [f"{r.name}: {context.of_result(r)}" for r in results]


def context_section(results):
    """What the variants are: what they share said once (game, rules version, policies, games, seed, simcore),
    then each one's rules; or, when they differ in more than their rules, each one's whole line."""
    common = context.shared(results)
    if common is None:
        return Section("The variants", ["\n".join(f"* `{r.name}`: {context.of_result(r)}" for r in results)])
    return Section("The variants", [f"Every variant: {common}. Each one's rules:",
                                    "\n".join(f"* `{r.name}`: {context.rules_of_result(r)}" for r in results)])


def verdict_blocks(analysis):
    """The verdicts as report blocks: the first screen's table (``analyses.screen``), then the sentences over
    all variants and a paragraph per variant (its name in bold)."""
    from analyses import glossary, screen

    seen = set()        # each term linked to the glossary, and said plainly, at its first use only
    said = [glossary.first_use(text, glossary.linked, seen) for text in
            _heads(analysis) + [f"**{name}**: {v.text}" for name, v in analysis.verdicts.items()]]
    return screen.blocks(analysis) + said


def _heads(analysis):
    """The sentences over all variants: how they are scored and, for skill levels, the seat edge with skill."""
    by_name = {r.name: r for r in analysis.results}
    return [text for text in (scored_by(analysis.results),
                              skill_sentence(analysis.skill_levels, analysis.verdicts, by_name, analysis.strengths,
                                             analysis.fairness))
            if text]


def _est(e, f=".2f", missing="none (nothing to measure it on)"):
    """An :class:`analyses.decisiveness.Estimate` as ``value [low, high]``; a value too few games (or rows) give
    no interval says so; a value that cannot be had at all is ``missing``, which says why ("" for None)."""
    if e is None:
        return ""
    if math.isnan(e.value):
        return missing
    if math.isnan(e.low):
        return f"{e.value:{f}} (too few for an interval)"
    return f"{e.value:{f}} [{e.low:{f}}, {e.high:{f}}]"


def decided_table(analysis):
    """Per traced variant: lead changes, comebacks, when the lead was settled, and how the games ended."""
    ends = [end for end in dict.fromkeys(end for d in analysis.decided.values() for end in d.ends)
            if any(d.end_counts.get(end) for d in analysis.decided.values())]
    ends = ends if len(ends) > 1 else []     # one way to end in every game says nothing
    head = ["variant", "lead changes a game", "won from behind", "lead settled at"] + [f"ended: {e}" for e in ends]
    rows = []
    for name, d in analysis.decided.items():
        cut = f"not known: {d.n_cut:,} traces cut at {d.max_steps} {d.step}s"
        undecided = "none: no game had a single winning side"
        rows.append([name, _est(d.lead_changes, missing=cut),
                     _est(d.comeback, missing=undecided if not d.n_decisive else cut),
                     _est(d.decided_at, missing=undecided if not d.n_decisive else cut)]
                    + [_est(d.ends.get(e)) for e in ends])
    return Table(head, rows)


def kinds_table(stats):
    """One variant's action kinds: play rate, the played win rate against the rest (overall, and within the same
    place of the standings), the choice rate."""
    head = ["kind", "plays a seat and game", "played by", "points if played", "points if not", "difference",
            "difference within the same place", "chosen when legal"]
    rows = [[f"{k.kind}: {k.meaning}" if k.meaning != k.kind else k.kind, _est(k.plays), _est(k.played_share),
             _est(k.points_played, ".3f"), _est(k.points_not, ".3f"), _est(k.difference, "+.3f"),
             _est(k.within, "+.3f"), _est(k.choice)] for k in stats.values()]
    return Table(head, rows)


def trace_sections(analysis):
    """How decided the games are and the action kinds associated with winning, for the variants run with --trace
    (none without)."""
    if not analysis.decided:
        return []
    traced = "every variant" if len(analysis.decided) == len(analysis.results) else \
        ", ".join(f"`{n}`" for n in analysis.decided)
    out = [Section("How decided", [
        f"From the traces of {traced}: each seat's standing after every step (round, or turn). *Lead changes*: "
        "steps whose leaders are none of the seats that led before (ties and teams neither count nor break one). "
        "*Won from behind*: decisive games won by a side that trailed after the first round (or half of the "
        "turns). *Lead settled at*: the share of the game after which the winner led for good. 95% t intervals "
        "over games and Wilson intervals; the end conditions' intervals are simultaneous.",
        *fit(decided_table(analysis))])]
    blocks = ["Per action kind (a seat's plays in a game): how often it is played, the mean points of the seats "
              "that played it at least once against those that did not, that difference among seats in the same "
              "place after the first round (or half of the turns: as many seats ahead and behind; Mantel-Haenszel "
              "weights), with intervals clustered by game, and how often a seat chose it when it was legal. An "
              "association, not a cause: a seat dealt a good hand, or already ahead or behind, may play a kind more "
              "often; the comparison within the same place removes what the early standing shows of that, not the "
              "rest. The verdict names a kind only when its difference within the same place is beyond chance "
              "(Holm across the kinds)."]
    for name, stats in analysis.kinds.items():
        blocks += [f"`{name}`:", *fit(kinds_table(stats))]
    out.append(Section("Action kinds associated with winning", blocks))
    return out


def _length_blocks(analysis):
    """The length plot, or why there is none: a box of a fixed length is a line."""
    moving = varying({r.name: r.column("n_turns") for r in analysis.results})
    fixed = [r.name for r in analysis.results if r.name not in moving]
    if not moving:
        return ["Not plotted: within each variant, every game lasts as long."]
    note = [f"Not plotted, as each of their games lasts as long: {', '.join(f'`{n}`' for n in fixed)}."]
    return [Image("game length", "duration.png")] + (note if fixed else [])


def report_sections(analysis, watches, folder, pages):
    """The report as sections, for either renderer; ``folder``, ``pages``: as for :func:`watch_section`."""
    results = analysis.results
    games = sorted({r.game for r in results})
    seeds = sorted({r.seed for r in results})
    bases = list(dict.fromkeys(analysis.baselines.values()))
    out = [
        Section(f"simcore report: {', '.join(games)}", [
            f"{len(results)} variants, {sum(r.n_games for r in results):,} games, seed "
            f"{', '.join(map(str, seeds))}. {_baselines_text(bases, _by_steps(analysis))}",
            *(f"**Unfinished, not final:** {note.removeprefix('note: ')}" for note in analysis.unfinished)], level=1),
        Section("Verdict", verdict_blocks(analysis)),
        context_section(results),
        Section("Seat balance", [
            "Points per seat: its mean points per game (a win 1, a k-way shared win 1/k, a team's win 1/k to "
            "each of its k seats, a game nobody wins 1/players each), with a 95% Wilson interval; a fair game "
            "gives every seat 1/players. *gap*: the seat gap, the highest seat's points minus the lowest's "
            "(`simcore tune`'s `gap` term is the same number). A fair game shows a gap too, the larger the "
            "fewer the games: *fair gap* is its mean at this many games. *gap p*: the permutation test of the "
            "gap (H0: the seat does not matter; each game's winners rearranged over the seats, teams kept "
            "together). *chi² p*: chi-square test of the single-winner games against equal shares per seat. "
            "A team game is shown by its teams, the unit of its verdict, in a table of its own.",
            *_balance_blocks(analysis),
            Image("points per seat", "win_share.png")]),
        *skill_section(analysis),
        Section("Game length and completion", [
            "Turns per game; *completion*: share of games that ended by the rules, not by `max_turns`.",
            shape_table(analysis), *_length_blocks(analysis)]),
        *trace_sections(analysis),
        Section("Game-specific columns (means)", [*fit(extras_table(analysis)), Image("scores", "scores.png")]),
    ]
    if analysis.comparisons or analysis.fairness or analysis.untested:
        title = ("Against the level below" if _by_steps(analysis) else
                 f"Against the baseline `{bases[0]}`" if len(bases) == 1 else "Against the baselines")
        out.append(Section(title, [
            "Effect = variant minus baseline; each variant is compared with the baseline of its player count "
            "and policies, so that a difference is the rules'. Variants run with the baseline's seed are paired "
            "game by game on common random numbers. *imbalance*: the change of Σ(share - fair)² over the seats "
            "(teams in a team game), each estimated without bias, with a U-statistic standard error; below 0 "
            "the variant is fairer. *seats moved (T²)*: Hotelling's T² test that no seat's points moved. "
            "*n_turns*: the game length (the paired t test, Welch's t when the seeds differ). *p (Holm)*: "
            "adjusted across the variants, per metric.",
            *([comparison_table(analysis.comparisons, analysis.fairness.values())]
              if analysis.comparisons or analysis.fairness else []),
            *([untested_text(analysis.untested)] if analysis.untested else [])]))
    out.append(watch_section(watches, folder, pages))
    out.append(Section("Words", [glossary.markdown()]))
    return out


def markdown(sections, image_src):
    """The Markdown text; ``image_src(file)`` gives an image's address."""
    blocks = []
    for s in sections:
        blocks.append("#" * s.level + " " + s.title)
        blocks += [f"![{b.alt}]({image_src(b.file)})" if isinstance(b, Image) else str(b) for b in s.blocks]
    return "\n\n".join(blocks) + "\n"


STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #222;
       line-height: 1.45; max-width: 1100px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
.table { overflow-x: auto; margin: 1em 0; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
td code { word-break: break-all; }
.ci { display: block; font-size: 0.85em; color: #555; white-space: nowrap; }
p { overflow-wrap: anywhere; }
th { border-bottom: 2px solid #bbb; } tbody tr:nth-child(even) { background: #f3f5f7; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em;
       background: #f0f0f0; padding: 0 0.2em; border-radius: 3px; }
img { max-width: 100%; height: auto; }
/* a table wider than its box scrolls with a cue: a shade at the edge that has more to show, the variant's
   column kept in view */
.table { background: linear-gradient(to right, #fff 30%, #fff0) left / 2em 100% no-repeat local,
         linear-gradient(to left, #fff 30%, #fff0) right / 2em 100% no-repeat local,
         radial-gradient(farthest-side at 0 50%, #0003, #0000) left / .8em 100% no-repeat scroll,
         radial-gradient(farthest-side at 100% 50%, #0003, #0000) right / .8em 100% no-repeat scroll; }
th:first-child, td:first-child { position: sticky; left: 0; background: #fff; }
tbody tr:nth-child(even) td:first-child { background: #f3f5f7; }
/* on a phone a plot keeps its drawn size (labels of 10 px and more) and scrolls in its box */
.plot { overflow-x: auto; }
@media (max-width: 700px) { .plot img { max-width: none; width: 700px; } }
"""

# a cell of figures (count, share, interval, p): right-aligned when its whole column is
_NUMBER = re.compile(r"[-+<]?\d[\d.,]*(e[-+]?\d+)?%?( \[.*\])?|\[.*\]|n/a|")


def _inline(text):
    """The report's only Markdown inside text, `code`, **strong**, *emphasis*, a link within the page
    ``[text](#id)`` and its anchor ``<a id="id"></a>`` (the glossary's), as HTML."""
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))
    text = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)
    text = re.sub(r"\[([^\]]+)\]\((#[a-z0-9-]+)\)", r'<a href="\2">\1</a>', text)
    text = re.sub(r'&lt;a id="([a-z0-9-]+)"&gt;&lt;/a&gt;', r'<a id="\1"></a>', text)
    return re.sub(r"\*([^*\s][^*]*)\*", r"<em>\1</em>", text)


_INTERVAL = re.compile(r"(\S+) (\[[^\]]+\])")


def _cell(cell):
    """A table cell: an interval on a line of its own under its value, and a long name (a variant's changes)
    free to break after its commas, so that a table fits the page."""
    if isinstance(cell, Link):
        return f'<a href="{html.escape(cell.href)}">{_inline(cell.text)}</a>'
    interval = _INTERVAL.fullmatch(cell)
    if interval:
        return f'{interval.group(1)}<span class="ci">{interval.group(2)}</span>'
    text = _inline(cell)
    return text.replace(",", ",<wbr>") if re.search("[a-z]", cell) else text


def _html_table(table):
    numeric = [all(_NUMBER.fullmatch(str(row[i])) for row in table.rows) for i in range(len(table.head))]

    def tag(name, i):
        return f'<{name} class="num">' if numeric[i] else f"<{name}>"

    head = "".join(f"{tag('th', i)}{_inline(h)}</th>" for i, h in enumerate(table.head))
    rows = ["<tr>" + "".join(f"{tag('td', i)}{_cell(c)}</td>" for i, c in enumerate(row)) + "</tr>"
            for row in table.rows]
    return (f'<div class="table"><table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n' + "\n".join(rows)
            + "\n</tbody></table></div>")


def _html_block(block, image_src):
    if isinstance(block, Table):
        return _html_table(block)
    if isinstance(block, Image):
        return f'<p class="plot"><img src="{image_src(block.file)}" alt="{html.escape(block.alt)}"></p>'
    items = block.split("\n")
    if all(item.startswith("* ") for item in items):       # a Markdown list
        return "<ul>" + "".join(f"<li>{_inline(item[2:])}</li>" for item in items) + "</ul>"
    return f"<p>{_inline(block)}</p>"


def html_page(sections, image_src):
    """One HTML page with its style inline: it needs no other file and no network."""
    body = [f"<section>\n<h{s.level}>{_inline(s.title)}</h{s.level}>\n"
            + "\n".join(_html_block(b, image_src) for b in s.blocks) + "\n</section>" for s in sections]
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(sections[0].title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def _slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def write_replays(watches, path, write_replay, progress=None):
    """Write a replay page per game into ``<report stem>-replays/`` beside the report; return {watch: href}.
    ``progress(what, done, total)`` hears of each page written."""
    folder = path.parent / f"{path.stem}-replays"
    made = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    pages, used = {}, set()
    try:
        for done, w in enumerate(watches, 1):
            name = f"{_slug(w.variant)}-{_slug(w.label)}"
            if name in used:                    # two variant names with one slug ("a b", "a-b")
                name += f"-{len(used)}"
            used.add(name)
            name += ".html"
            write_replay(w.path, w.game_index, folder / name)
            pages[w] = quote(f"{folder.name}/{name}")
            if progress:
                progress("replay pages (each game played again)", done, len(watches))
    except BaseException:
        if made and not any(folder.iterdir()):      # no empty folder left behind by a report that failed
            folder.rmdir()
        raise
    return pages


def terminal_head(analysis):
    """The head lines: the games, the variants, the seeds, and what every variant shares."""
    results = analysis.results
    games = sorted({r.game for r in results})
    seeds = sorted({r.seed for r in results})
    head = (f"{', '.join(games)}: {len(results)} variant{'s' * (len(results) > 1)}, "
            f"{sum(r.n_games for r in results):,} games, seed {', '.join(map(str, seeds))}")
    common = context.shared(results)
    return [head] + ([f"every variant: {common}"] if common is not None else [])


def terminal_verdicts(analysis):
    """The verdicts in full for the terminal (``--explain``): the sentences over all variants, then per variant
    its context and its paragraph."""
    common = context.shared(analysis.results)
    seen = set()        # each term said plainly beside its first use only
    lines = [terminal_text(glossary.first_use(text, seen=seen)) for text in _heads(analysis)]
    for r in analysis.results:
        what = context.of_result(r) if common is None else context.rules_of_result(r)
        text = glossary.first_use(analysis.verdicts[r.name].text, seen=seen)
        lines.append(f"{r.name}: {what}\n" + textwrap.fill(_plain(text), WIDTH, initial_indent="  ",
                                                            subsequent_indent="  ", break_on_hyphens=False))
    return [_plain(line) for line in lines]


WIDTH = 110         # the terminal verdicts' line length


def _plain(text):
    """Markdown's ** and ` dropped for the terminal."""
    return text.replace("**", "").replace("`", "")


def terminal_text(text):
    """A verdict's Markdown sentence for the terminal: plain, wrapped at :data:`WIDTH`."""
    return textwrap.fill(_plain(text), WIDTH, break_on_hyphens=False)


def write_report(results, path, baselines=(), write_replay=None, target=None, margin=DEFAULT_MARGIN, strengths=()):
    """Analyse ``results`` (:func:`analyze`) and write the report at ``path`` (:func:`write_analysis`)."""
    _check_suffix(path)
    return write_analysis(analyze(results, baselines, target, margin, strengths), path, write_replay)


def _check_suffix(path):
    if Path(path).suffix.lower() not in SUFFIXES:
        raise ValueError(f"cannot write a report as {Path(path).name}; allowed suffixes: {', '.join(SUFFIXES)}")


def write_analysis(analysis, path, write_replay=None, progress=None):
    """Write the report of an :func:`analyze` result at ``path``: Markdown (``.md``) with its plots in
    ``<stem>-plots/`` beside it, or one self-contained HTML file (``.html``) whose games worth watching link to
    replay pages written by ``write_replay(file_path, game_index, out_path)`` (none without it).
    ``progress(what, done, total)`` hears of each replay page and plot as it is written."""
    _check_suffix(path)
    path = Path(path)
    watches = [w for r in analysis.results for w in games_worth_watching(r)]
    if path.suffix.lower() == ".html":
        pages = write_replays(watches, path, write_replay, progress) if write_replay else {}
        images = {name: _png_data(png) for name, png in plot_pngs(analysis, progress).items()}
        text = html_page(report_sections(analysis, watches, path.parent, pages), images.get)
    else:
        plots = f"{path.stem}-plots"
        save_plots(analysis, path.parent / plots, progress)
        text = markdown(report_sections(analysis, watches, path.parent, {}), lambda file: f"{plots}/{file}")
    # the whole text is ready before the file is opened; the rename makes it appear complete or not at all
    writing.write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path
