"""A Markdown report over the variants of a sweep (or any result files): tables, tests and plots."""

import json
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt

from analyses.balance import seat_balance
from analyses.plots import duration_plot, score_plot, skill_plot, win_share_plot
from analyses.shape import game_shape
from analyses.variants import against_baseline


@dataclass
class Analysis:
    results: list
    balances: dict
    shapes: dict
    comparisons: list

    @property
    def skill_levels(self):
        """{variant: policy} when the variants differ only by the one policy every seat plays (a sweep of
        the ``policy`` axis: balance by skill level); else {}."""
        policies = [json.loads(r.meta.get("policies", "[]")) for r in self.results]
        params = {r.meta.get("params") for r in self.results}
        if len(self.results) < 2 or len(params) != 1 or any(len(set(p)) != 1 for p in policies):
            return {}
        if len({p[0] for p in policies}) != len(policies):
            return {}
        return {r.name: p[0] for r, p in zip(self.results, policies, strict=True)}


def analyze(results, baseline=0):
    """Seat balance and game shape per variant, and every variant against the baseline."""
    balances = {r.name: seat_balance(r.wins, r.column("timeout")) for r in results}
    shapes = {r.name: game_shape(r.column("n_turns"), r.column("timeout"), r.extras()) for r in results}
    comparisons = against_baseline(results, metrics=("win_0", "n_turns"), baseline=baseline) \
        if len(results) > 1 else []
    return Analysis(results, balances, shapes, comparisons)


def _share(b, seat):
    if seat >= b.n_seats:
        return ""
    return f"{b.share[seat]:.3f} [{b.low[seat]:.3f}, {b.high[seat]:.3f}]"


def _p(p):
    return "n/a" if p != p else ("<1e-4" if p < 1e-4 else f"{p:.4f}")


def balance_table(analysis):
    seats = max(b.n_seats for b in analysis.balances.values())
    head = ["variant", "players", "games"] + [f"seat {i} wins" for i in range(seats)] + \
        ["shared", "timeouts", "chi² p", "balance"]
    rows = [[name, str(b.n_seats), f"{b.n_games:,}"] + [_share(b, i) for i in range(seats)]
            + [f"{b.shared:,}", f"{b.timeouts:,}", _p(b.pvalue), f"{b.balance:.3f}"]
            for name, b in analysis.balances.items()]
    return _table(head, rows)


def shape_table(analysis):
    head = ["variant", "mean turns", "sd", "5%", "median", "95%", "completion"]
    rows = [[name, f"{s.mean:.2f}", f"{s.sd:.2f}", f"{s.quantiles[5]:g}", f"{s.quantiles[50]:g}",
             f"{s.quantiles[95]:g}", f"{s.completion:.2%}"] for name, s in analysis.shapes.items()]
    return _table(head, rows)


def skill_table(analysis):
    """Seat balance and game length side by side, one row per skill level (the policy every seat plays)."""
    levels = analysis.skill_levels
    seats = max(b.n_seats for b in analysis.balances.values())
    head = ["skill level", "games"] + [f"seat {i} wins" for i in range(seats)] + \
        ["chi² p", "balance", "mean turns", "completion"]
    rows = []
    for name, policy in levels.items():
        b, s = analysis.balances[name], analysis.shapes[name]
        rows.append([f"`{policy}`", f"{b.n_games:,}"] + [_share(b, i) for i in range(seats)]
                    + [_p(b.pvalue), f"{b.balance:.3f}", f"{s.mean:.2f}", f"{s.completion:.2%}"])
    return _table(head, rows)


def extras_table(analysis):
    names = sorted({k for s in analysis.shapes.values() for k in s.extras})
    head = ["variant"] + names
    rows = [[name] + [f"{s.extras[k][0]:.3g}" if k in s.extras else "" for k in names]
            for name, s in analysis.shapes.items()]
    return _table(head, rows)


def comparison_table(comparisons):
    head = ["variant", "vs", "metric", "paired", "effect (a - b)", "95% interval", "p", "p (Holm)"]
    rows = [[c.a, c.b, c.metric, "yes" if c.paired else "no", f"{c.result.statistic:+.4f}",
             f"[{c.result.low:+.4f}, {c.result.high:+.4f}]", _p(c.result.pvalue), _p(c.adjusted_pvalue)]
            for c in comparisons]
    return _table(head, rows)


def _table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def save_plots(analysis, folder):
    """Write the three plots as PNG into ``folder``; return {title: file name}."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    figures = {
        "win_share.png": win_share_plot(analysis.balances),
        "duration.png": duration_plot({r.name: r.column("n_turns") for r in analysis.results}),
        "scores.png": score_plot({r.name: r.scores for r in analysis.results}),
    }
    if analysis.skill_levels:
        levels = analysis.skill_levels
        figures["skill.png"] = skill_plot({levels[name]: analysis.balances[name] for name in levels})
    for name, fig in figures.items():
        fig.savefig(folder / name, dpi=110)
        plt.close(fig)
    return list(figures)


def skill_section(analysis, plots):
    """The report's lines on balance by skill level (none unless the variants are skill levels)."""
    if not analysis.skill_levels:
        return []
    return ["## By skill level", "",
            "The variants differ only in the policy every seat plays, from the weakest listed to the strongest: "
            "does the seat balance (and the length of a game) hold when people play well?", "",
            skill_table(analysis), "", f"![win share per seat against skill]({plots}/skill.png)", ""]


def write_report(results, path, baseline=0):
    """Analyse ``results`` and write the Markdown report at ``path`` with its plots beside it."""
    path = Path(path)
    analysis = analyze(results, baseline)
    plots = f"{path.stem}-plots"
    save_plots(analysis, path.parent / plots)
    games = sorted({r.game for r in results})
    seeds = sorted({r.seed for r in results})
    base = results[baseline].name
    text = [
        f"# simcore report: {', '.join(games)}",
        "",
        f"{len(results)} variants, {sum(r.n_games for r in results):,} games, seed "
        f"{', '.join(map(str, seeds))}. Baseline for comparisons: `{base}`.",
        "",
        "## Seat balance",
        "",
        "Win share per seat with a 95% Wilson interval (in team games every seat of the winning team wins; "
        "in games with shared wins the shares can add up to more than 1). *chi² p*: chi-square test of the "
        "single-winner games against equal shares per seat. *balance*: 1 - the largest gap between two "
        "seats' win shares (Ludii's balance metric).",
        "",
        balance_table(analysis),
        "",
        f"![win share per seat]({plots}/win_share.png)",
        "",
        *skill_section(analysis, plots),
        "## Game length and completion",
        "",
        "Turns per game; *completion*: share of games that ended by the rules, not by `max_turns`.",
        "",
        shape_table(analysis),
        "",
        f"![game length]({plots}/duration.png)",
        "",
        "## Game-specific columns (means)",
        "",
        extras_table(analysis),
        "",
        f"![scores]({plots}/scores.png)",
    ]
    if analysis.comparisons:
        text += [
            "",
            f"## Against the baseline `{base}`",
            "",
            "Effect = variant minus baseline. Variants run with the baseline's seed are paired game by game on "
            "common random numbers: McNemar's exact test and a paired interval for a seat's win, the "
            "Wilcoxon signed-rank test and a paired bootstrap interval for the game length. Variants with "
            "another seed are compared unpaired. *p (Holm)*: adjusted across the variants, per metric.",
            "",
            comparison_table(analysis.comparisons),
        ]
    path.write_text("\n".join(text) + "\n")
    return path
