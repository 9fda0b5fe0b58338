"""The report of a tune run: ``report.md`` and the plot of the race, ``race.png``."""

from pathlib import Path

from simcore import writing

REPORT, PLOT = "report.md", "race.png"


def exhaustive_games(result):
    """Games an exhaustive sweep of the grid would play at the precision of the race's finish: every
    candidate as many games as the survivors played."""
    return len(result.plan.candidates) * result.race.games(result.race.alive[0])


def last_estimates(race):
    """Every candidate's (estimate, low, high) at the last batch it played."""
    last = {}
    for _, intervals, _ in race.history:
        last.update(intervals)
    return last


def ranking(result, last):
    """Candidates best first: the survivors by their last estimate, then the dropped, latest dropped first."""
    race = result.race
    return sorted(last, key=lambda c: (c not in race.alive, -race.games(c), last[c][0], c))


def lines(result):
    """The summary as text lines (the CLI's output)."""
    plan, race = result.plan, result.race
    names = _Names(plan)
    out = [_search_line(result), f"survivors: {', '.join(names[c] for c in race.alive)}",
           "confirmed on fresh games (objective, 95% interval):"]
    for r in result.confirmed:
        out.append(f"  {names[r.candidate]:<32} {r.value:.4f} [{r.low:.4f}, {r.high:.4f}]")
    best = result.best
    out.append(f"the one candidate: {names[best[0].candidate]}" if len(result.confirmed) == 1 else
               f"best: {names[best[0].candidate]}" if len(best) == 1 else
               "tied (intervals overlap the best's): " + ", ".join(names[r.candidate] for r in best))
    return out


def _search_line(result):
    """What the search did, in one line."""
    plan, race = result.plan, result.race
    if not race.history:
        return f"one candidate ({plan.candidates[0].name}): nothing to race, confirmed on fresh games"
    spent, full = race.spent, exhaustive_games(result)
    return (f"{plan.search['method']}: {len(plan.candidates):,} candidates, {len(race.history)} batches, "
            f"{spent:,} games (an exhaustive sweep at the same precision: {full:,}, {full / spent:.1f}x more)")


def _search_section(result, ranked):
    """The report's section on the race or the NTBEA search (a single candidate has none)."""
    plan, race, search = result.plan, result.race, result.plan.search
    if not race.history:
        return ["## The race", "", f"One candidate, `{plan.candidates[0].name}`: nothing to race.", ""]
    full = exhaustive_games(result)
    how = (f"Batches of {search['batch']:,} games, every candidate still racing on the same games; dropped when "
           f"significantly worse than the leader (paired bootstrap over the shared games, Holm-adjusted, alpha "
           f"{search['alpha']:g}), at most {search['games_max']:,} games each." if search["method"] == "race" else
           f"{search['iterations']} evaluations of {search['batch']:,} games, each the neighbour (of "
           f"{search['neighbours']} tried) with the best optimistic estimate of the n-tuple model (explore "
           f"{search['explore']:g}); objective = the model's estimate.")
    return ["## The race" if search["method"] == "race" else "## The search (NTBEA)", "",
            how + f" Games played: {race.spent:,}; an exhaustive sweep of the grid at the precision of the finish: "
            f"{full:,} ({full / race.spent:.1f}x more).", "", *ranked, "", f"![the race]({PLOT})", ""]


def write(result, folder):
    from analyses.plots import race_plot

    folder = Path(folder)
    plan, race = result.plan, result.race
    names = _Names(plan)
    if race.history:
        figure = race_plot([(games, {names[c]: v for c, v in intervals.items()})
                            for games, intervals, _ in race.history], title=f"{plan.game}: the race")
        writing.write_atomic(folder / PLOT, lambda tmp: figure.savefig(tmp, dpi=110, format="png"))
    last = last_estimates(race)
    ranked = ["| rank | candidate | games | objective | 95% interval | |", "|---:|---|---:|---:|---|---|"]
    for rank, c in enumerate(ranking(result, last), start=1):
        estimate, low, high = last[c]
        status = ("finalist" if c in race.alive else "evaluated") if plan.search["method"] == "ntbea" else (
            "survived" if c in race.alive else f"dropped after {race.dropped_at[c]:,} games")
        ranked.append(f"| {rank} | `{names[c]}` | {race.games(c):,} | {estimate:.4f} | [{low:.4f}, {high:.4f}] | "
                      f"{status} |")
    terms = [t.name for t in plan.objective.terms]
    confirmed = ["| candidate | objective | " + " | ".join(terms) + " |", "|---|---|" + "---|" * len(terms)]
    for r in result.confirmed:
        cells = [f"{v:.4f} [{lo:.4f}, {hi:.4f}]" for v, lo, hi in (r.terms[t] for t in terms)]
        confirmed.append(f"| `{names[r.candidate]}` | {r.value:.4f} [{r.low:.4f}, {r.high:.4f}] | "
                         + " | ".join(cells) + " |")
    best = result.best
    verdict = (f"**The one candidate: `{names[best[0].candidate]}`**." if len(result.confirmed) == 1 else
               f"**Best: `{names[best[0].candidate]}`**: its interval does not overlap the runner-up's."
               if len(best) == 1 else "**Tied**: the intervals of " + ", ".join(f"`{names[r.candidate]}`"
                                                                             for r in best)
               + " overlap the best's; more confirmation games (or a narrower space) would separate them.")
    search = plan.search
    text = [
        f"# simcore tune: {plan.game}",
        "",
        f"Tune file `{plan.path}`: {len(plan.candidates):,} candidates, policies "
        f"{', '.join(dict.fromkeys(plan.candidates[0].config.policies))}, seed {plan.candidates[0].config.seed}.",
        "",
        "Objective (lower is better): " + "; ".join(t.describe() for t in plan.objective.terms) + ".",
        "",
        *_search_section(result, ranked),
        "## Confirmation",
        "",
        f"The best {len(result.confirmed)} survivors on {search['confirm_games']:,} fresh games (seed "
        f"{search['confirm_seed']}), each term weighted, with 95% bootstrap intervals.",
        "",
        *confirmed,
        "",
        verdict,
        "",
    ]
    writing.write_atomic(folder / REPORT, lambda tmp: tmp.write_text("\n".join(text)))


class _Names:
    """Candidate index -> name, resolving only the candidates asked for."""

    def __init__(self, plan):
        self.plan = plan

    def __getitem__(self, index):
        return self.plan.candidates[index].name
