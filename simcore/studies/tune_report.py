"""The report of a tune run: ``report.md`` and the plot of the race, ``race.png``; its lines on the terminal and
its JSON (``simcore tune --json``). Every line that names the fairest renders the finalists' rank claims
(``simcore.studies.tune.rank_claims``), so that all of them name the one finalist ``tune.rank`` chose."""

import math
from pathlib import Path

from analyses import claims
from analyses.scoring import MARGIN_RULE
from simcore.io import writing
from simcore.studies.tune import LEVEL, fairness_claims, no_fair_finalist, rank_claims, seat_gap

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
    out = [_search_line(result)]
    out += [line for line in [scored_by(plan.objective)] if line]
    if race.history and plan.search["method"] == "race" and plan.search["alpha"] > 0:
        out.append(f"the race's error: it drops a candidate only when its objective's lower bound is above the "
                   f"smallest upper bound, so the chance that it ever drops one that is not worse is at most alpha "
                   f"= {plan.search['alpha']:g} (a union bound over looks and candidates)")
    out.append(f"survivors: {', '.join(names[c] for c in race.alive)}")
    out += [line for line in [no_fair_sentence(result, names, markdown=False)] if line]
    out += [f"confirmed on fresh games (objective, simultaneous {1 - LEVEL:.0%} interval; against the fairest: "
            "Holm-adjusted paired p):"]
    for claim in rank_claims(result):
        n = claim.numbers
        rank = claim.word if math.isnan(n["adjusted_pvalue"]) else f"{claim.word}, p = {n['adjusted_pvalue']:.3g}"
        out.append(f"  {claim.variant:<32} {n['objective']:.4f} [{n['low']:.4f}, {n['high']:.4f}]  {rank}")
    if len(result.confirmed) > 1:
        out.append(f"the confirmation's error: the fairest is the lowest objective on these games; the chance that "
                   f"the truly fairest finalist is called less fair is at most {LEVEL:g} (one-sided paired "
                   "bootstrap against the fairest, Holm across the other finalists)")
    out += _fairness_lines(result, names)
    out.append(_verdict(result, markdown=False))
    out += [line for line in [race_pick_sentence(result, markdown=False)] if line]
    return out


def _fairness_lines(result, names):
    """Each finalist's fairness on the confirmation games, in words: fairer than the race's pick or not, fair within
    the margin or not (none when the objective reads no seats)."""
    rows = [r for r in result.confirmed if r.fairness is not None]
    if not rows:
        return []
    margin, unit = rows[0].fairness.margin, rows[0].fairness.unit
    if not unit:
        out = [f"fairness on the same games (the imbalance Σ(share - fair)²; against the race's pick: paired, Holm "
               f"across the finalists; {UNBALANCED_TEST}; fair within {margin:g}: two one-sided tests per seat, "
               "Bonferroni across the finalists):"]
    else:
        within = (f"fair within {margin:g} {unit}: two one-sided tests per seat" if margin > 0 else
                  "the edges ruled out: the intervals of two one-sided tests per seat (no --margin E: nothing is "
                  "claimed fair within)")
        out = [f"fairness on the same games (the imbalance Σ margin², in {unit} squared; against the race's pick: "
               f"paired, Holm across the finalists; {UNBALANCED_MARGINS}; {within}, Bonferroni across the finalists):"]
    said = fairness_claims(result)
    for r in rows:
        words = fairness_words(said[result.plan.candidates[r.candidate].name])
        out.append(f"  {names[r.candidate]:<32} {r.fairness.imbalance:.4f}  {words}")
    return out


def fairness_words(said):
    """A finalist's fairness claims (``simcore.studies.tune.fairness_claims``) in a few words: against the race's
    pick, its balance, fair within E."""
    by_kind = {kind: c for c in said for kind in (claims.BALANCE, claims.WITHIN, claims.CHANGE) if c.word in kind}
    balance, within, change = (by_kind.get(kind) for kind in (claims.BALANCE, claims.WITHIN, claims.CHANGE))
    if change is None:
        against = "the race's pick"
    else:
        p = change.numbers["adjusted_pvalue"]
        against = (f"no change found vs the race's pick (p = {p:.3g})" if change.word == claims.CHANGE[2] else
                   f"{change.word} than the race's pick (p = {p:.3g})")
    unbalanced = f"{balance.word} ({_p_is('T² p', balance.numbers['adjusted_pvalue'])})"
    return f"{against}; {unbalanced}; {_within_words(balance, within)}"


def _within_words(balance, within):
    """Fair within E or not, and the edge the games rule out; scored by margins in their unit, and without an E
    only the edge ruled out."""
    unit = balance.numbers["unit"]
    ruled_out = _amount(balance.numbers["ruled_out"], unit)
    if within is None:
        return f"every seat's margin within {ruled_out} of 0 (a larger edge is ruled out)"
    e = f"{within.numbers['margin']:g}" + (f" {unit}" if unit else "")
    if within.word == claims.WITHIN[0]:
        return f"fair within {e} (every seat within {ruled_out})"
    return f"not shown fair within {e} (the games rule out only edges above {ruled_out})"


def _amount(x, unit):
    """A share (0.038), or a margin with its unit (1.30 prize points)."""
    return f"{x:.2f} {unit}" if unit else f"{x:.3f}"


def _interval(x, low, high, unit):
    """A share with its interval (0.050 [0.022, 0.078]), or a margin's with its unit (1.30 [1.10, 1.50] prize
    points)."""
    f = ".2f" if unit else ".3f"
    return f"{x:{f}} [{low:{f}}, {high:{f}}]" + (f" {unit}" if unit else "")


UNBALANCED_TEST = "unbalanced: Hotelling's T² of the points against fair shares, Holm across the finalists"
UNBALANCED_MARGINS = "unbalanced: Hotelling's T² of the margins against 0, Holm across the finalists"


def scored_by(objective):
    """The line that says the gap reads margins, in their unit ("" when it reads points)."""
    unit = objective.margin_unit
    return f"scored by the margin: {MARGIN_RULE}, in {unit}, so a fair game gives every seat 0" if unit else ""


def _p_is(name, p):
    """``p = 0.03``, or ``p < 0.0001``."""
    return f"{name} < 0.0001" if p < 1e-4 else f"{name} = {p:.2g}"


def no_fair_sentence(result, names, markdown):
    """When every finalist is shown unbalanced: that no candidate is fair, by which test, and the fairest
    (``simcore.studies.tune.rank``: the first confirmed) with its seat gap; else "". Said of every candidate only
    when the gap is the objective's one term (the finalists are then the fairest the search found); else of the
    finalists, ranked by the whole objective."""
    confirmed = result.confirmed
    if not no_fair_finalist(confirmed):
        return ""
    tick = "`" if markdown else ""
    n = len(confirmed)
    largest = max(r.fairness.unbalanced_p for r in confirmed)
    gap_only = [t.name for t in result.plan.objective.terms] == ["gap"]
    head = "No candidate is fair" if gap_only else "No finalist is fair"
    who = ("every finalist" if n > 1 else "the one finalist") + ("" if gap_only else
                                                                 " (ranked by the whole objective: a candidate "
                                                                 "it ranked lower for its other terms may be fairer)")
    unit = result.plan.objective.margin_unit
    read = "the margins against 0" if unit else "the points against fair shares"
    test = (f"Hotelling's T² of {read} on the {confirmed[0].games:,} confirmation games"
            + (f", Holm across the {n} finalists, {_p_is('the largest p', largest)}" if n > 1 else
               f", {_p_is('p', largest)}"))
    fairest = confirmed[0]
    gap, low, high = seat_gap(fairest)
    named = "the fairest is" if n > 1 else "it is"
    text = (f"{head}: {who} is unbalanced ({test}); {named} {tick}{names[fairest.candidate]}{tick} (seat gap "
            f"{_interval(gap, low, high, unit)}, simultaneous {1 - LEVEL:.0%} interval)")
    return f"**{head}**{text[len(head):]}." if markdown else text


def _search_line(result):
    """What the search did, in one line."""
    plan, race = result.plan, result.race
    if not race.history:
        return f"one candidate ({plan.candidates[0].name}): nothing to race, confirmed on fresh games"
    spent, full = race.spent, exhaustive_games(result)
    return (f"{plan.search['method']}: {len(plan.candidates):,} candidates, {len(race.history)} batches, "
            f"{spent:,} games (an exhaustive sweep at the same precision: {full:,}, {full / spent:.1f}x more)")


def _verdict(result, markdown):
    """The fairest, and every finalist tied for fairest with it, in one line, from the rank claims."""
    tick = "`" if markdown else ""
    ranked = rank_claims(result)
    first = f"{tick}{ranked[0].variant}{tick}"
    tied = [f"{tick}{c.variant}{tick}" for c in ranked if c.word == claims.RANK[1]]
    if len(ranked) == 1:
        text = (f"the one candidate: {first}" if not result.race.history else
                f"fairest: {first}, the only finalist")
    elif not tied:
        text = f"fairest: {first}: every other finalist is less fair (paired test)"
    else:
        text = (f"fairest: {first}; tied for fairest: {', '.join(tied)} (the paired test cannot tell them from "
                f"{first})")
    return f"**{text[0].upper()}{text[1:]}**." if markdown else text


def race_pick_sentence(result, markdown):
    """When the race's pick is not the fairest on the confirmation games, that it is not, in words; else ""."""
    ranked = {c.variant: c for c in rank_claims(result)}
    fairest = next(iter(ranked))
    pick = result.plan.candidates[result.race_pick].name
    if pick == fairest:
        return ""
    tick = "`" if markdown else ""
    text = f"the race picked {tick}{pick}{tick}; on the confirmation games {tick}{fairest}{tick} is fairer"
    if ranked[pick].word == claims.RANK[1]:
        text = (f"the race picked {tick}{pick}{tick}; on the confirmation games {tick}{fairest}{tick} is the "
                f"fairest, and {tick}{pick}{tick} is tied for fairest with it")
    return f"{text[0].upper()}{text[1:]}." if markdown else text


def document(result, folder):
    """The tune's answer as the JSON text of ``analyses.claims.SCHEMA`` (``simcore tune --json``): the winner (the
    fairest), the tied for fairest, the race's pick, every finalist (its name, parameters, objective on the
    confirmation games with its simultaneous interval, and its rank word), where the report is, and the rank
    claims."""
    ranked = rank_claims(result)
    finalists = [{"name": c.variant, "params": result.plan.candidates[r.candidate].overrides,
                  **{k: c.numbers[k] for k in ("objective", "low", "high")}, "word": c.word}
                 for c, r in zip(ranked, result.confirmed, strict=True)]
    fair = [c for said in fairness_claims(result).values() for c in said]
    return claims.document(ranked + fair, winner=ranked[0].variant,
                           tied=[c.variant for c in ranked if c.word == claims.RANK[1]],
                           race_pick=result.plan.candidates[result.race_pick].name,
                           games=result.confirmed[0].games, finalists=finalists,
                           report=str(Path(folder) / REPORT))


def _race_rule(result):
    """The race's rule and the error it controls, in one line."""
    search, race = result.plan.search, result.race
    bounds = (f"each mean a two-sided interval of level 1 - {race.delta:.2g} ({_bounds_kinds(result)}), the "
              "objective's bounds by interval arithmetic over its terms")
    if search["alpha"] == 0:
        return (f"alpha = 0: nothing is dropped, an exhaustive sweep on the same games; the intervals shown are "
                f"those a race of alpha = {LEVEL:g} would use ({bounds}).")
    return (f"The race drops a candidate only when the lower bound of its objective is above the smallest upper "
            f"bound among the candidates racing ({bounds}); the chance that it ever drops one that is not worse "
            f"is at most alpha = {search['alpha']:g}, over all looks and candidates (union bound).")


def _bounds_kinds(result):
    """Which interval each kind of mean gets: a margin has no bound, so Student t, as other columns."""
    if result.plan.objective.margin_unit:
        return "Clopper-Pearson for shares, Student t for the margins and other columns"
    return "Clopper-Pearson for points and shares, Student t for other columns"


def _search_section(result, ranked):
    """The report's section on the race or the NTBEA search (a single candidate has none)."""
    plan, race, search = result.plan, result.race, result.plan.search
    if not race.history:
        return ["## The race", "", f"One candidate, `{plan.candidates[0].name}`: nothing to race.", ""]
    full = exhaustive_games(result)
    how = (f"Batches of {search['batch']:,} games, every candidate still racing on the same games, at most "
           f"{search['games_max']:,} games each. " + _race_rule(result) if search["method"] == "race" else
           f"{search['iterations']} evaluations of {search['batch']:,} games, each the neighbour (of "
           f"{search['neighbours']} tried) with the best optimistic estimate of the n-tuple model (explore "
           f"{search['explore']:g}); objective = the model's estimate.")
    return ["## The race" if search["method"] == "race" else "## The search (NTBEA)", "",
            how + f" Games played: {race.spent:,}; an exhaustive sweep of the grid at the precision of the finish: "
            f"{full:,} ({full / race.spent:.1f}x more).", "", *ranked, "", f"![the race]({PLOT})", ""]


def _ranked(result, names):
    """The table of every candidate at the last look it played."""
    plan, race = result.plan, result.race
    last = last_estimates(race)
    interval = "interval (race)" if plan.search["method"] == "race" else "interval"
    ranked = [f"| rank | candidate | games | objective | {interval} | |", "|---:|---|---:|---:|---|---|"]
    for rank, c in enumerate(ranking(result, last), start=1):
        estimate, low, high = last[c]
        status = ("finalist" if c in race.alive else "evaluated") if plan.search["method"] == "ntbea" else (
            "survived" if c in race.alive else f"dropped after {race.dropped_at[c]:,} games")
        ranked.append(f"| {rank} | `{names[c]}` | {race.games(c):,} | {estimate:.4f} | [{low:.4f}, {high:.4f}] | "
                      f"{status} |")
    return ranked


def _confirmed_table(result, names):
    """Each finalist's objective and terms with their simultaneous intervals, and its comparison with the fairest."""
    terms = [t.name for t in result.plan.objective.terms]
    table = ["| candidate | objective | " + " | ".join(terms) + " | minus the fairest's | adjusted p | |",
             "|---|---|" + "---|" * len(terms) + "---:|---:|---|"]
    for r in result.confirmed:
        cells = [f"{v:.4f} [{lo:.4f}, {hi:.4f}]" for v, lo, hi in (r.terms[t] for t in terms)]
        p = "" if math.isnan(r.adjusted) else f"{r.adjusted:.3g}"
        table.append(f"| `{names[r.candidate]}` | {r.value:.4f} [{r.low:.4f}, {r.high:.4f}] | " + " | ".join(cells)
                     + f" | {r.difference:+.4f} | {p} | {r.verdict} |")
    return table


def _edges_words(objective):
    """What the edges table shows."""
    if objective.margin_unit:
        return (f"Seat edges: a seat's mean margin ({MARGIN_RULE}, in {objective.margin_unit}) - 0, with the "
                "simultaneous intervals above. The chi-square test of equal shares counts the decisive games' "
                "single winners, which margins do not read: it is left out, and the seats' margins are tested "
                "together by Hotelling's T² below.")
    return ("Seat edges: a seat's points share - 1/players (a win scores 1, a k-way shared win 1/k, a game nobody "
            "wins 1/players), with the simultaneous intervals above; the chi-square test of equal shares among the "
            "decisive games' single winners (per finalist, not adjusted; nan without decisive games, as in a team "
            "game, where every win is shared).")


def _edges_table(result, names):
    """Each finalist's seat edges with their simultaneous intervals and the test of equal shares (none of
    margins)."""
    players = result.plan.objective.players
    if not result.plan.objective.seats:
        return ["The objective reads no seats (no `gap` term): no seat edges."]
    counted = not result.plan.objective.margin_unit
    table = ["| candidate | " + " | ".join(f"seat {s}" for s in range(players)) + " |"
             + (" decisive games | chi-square p |" if counted else ""),
             "|---|" + "---|" * players + ("---:|---:|" if counted else "")]
    for r in result.confirmed:
        cells = [f"{e:+.4f} [{lo:+.4f}, {hi:+.4f}]" for e, lo, hi in zip(r.edge, r.edge_low, r.edge_high,
                                                                         strict=True)]
        p = "nan" if math.isnan(r.pvalue) else f"{r.pvalue:.3g}"
        table.append(f"| `{names[r.candidate]}` | " + " | ".join(cells) + " |"
                     + (f" {r.decisive:,} | {p} |" if counted else ""))
    return table


def _confirmation(result, names):
    search = result.plan.search
    finalists = len(result.confirmed)
    means = len(result.plan.objective.columns)
    ranked_by = "the race's" if search["method"] == "race" or not result.race.history else "NTBEA's"
    return [
        "## Confirmation",
        "",
        f"{ranked_by[0].upper()}{ranked_by[1:]} {finalists} finalists on {search['confirm_games']:,} fresh games "
        f"(seed {search['confirm_seed']}). "
        f"Every interval below holds at once with probability at least {1 - LEVEL:.0%} (Bonferroni over the "
        f"{finalists} finalists and the {means} means each reads: {_bounds_kinds(result)}); the objective's and "
        "each weighted term's by interval arithmetic, so that the gap's interval starts at 0 when the seats' "
        "intervals overlap.",
        "",
        *_confirmed_table(result, names),
        "",
        f"The fairest is the finalist with the lowest objective on these games (on a tie {ranked_by} earlier "
        f"finalist; {ranked_by} pick, its first finalist, was `{names[result.race_pick]}`). Each other finalist's "
        f"objective minus the fairest's is tested on these games, paired (one resample of the game indices for "
        f"all, {search['bootstrap']:,} resamples): one-sided bootstrap p-value of \"not less fair than the "
        f"fairest\", Holm-adjusted across the other finalists; a finalist is *less fair than the fairest* when its "
        f"adjusted p is below {LEVEL:g}, else *tied for fairest*. The chance that the truly fairest finalist is "
        f"called less fair is at most {LEVEL:g}, so the fairest and the tied hold it at least "
        f"{1 - LEVEL:.0%} of the time.",
        "",
        _edges_words(result.plan.objective),
        "",
        *_edges_table(result, names),
        "",
        *_fairness_section(result, names),
        _verdict(result, markdown=True),
        "",
        *[block for line in [race_pick_sentence(result, markdown=True)] if line for block in (line, "")],
    ]


def _fairness_section(result, names):
    """The fairness lines as a paragraph and a table of the report (none without seats)."""
    lines = _fairness_lines(result, names)
    if not lines:
        return []
    rows = [r for r in result.confirmed if r.fairness is not None]
    table = ["| candidate | imbalance | fairness |", "|---|---:|---|"]
    said = fairness_claims(result)
    table += [f"| `{names[r.candidate]}` | {r.fairness.imbalance:.4f} | "
              f"{fairness_words(said[result.plan.candidates[r.candidate].name])} |" for r in rows]
    return [f"{lines[0][0].upper()}{lines[0][1:-1]}.", "", *table, ""]


def write(result, folder):
    from analyses.plots import race_plot

    folder = Path(folder)
    plan, race = result.plan, result.race
    names = _Names(plan)
    if race.history:
        racing = plan.search["method"] == "race"
        figure = race_plot([(games, {names[c]: v for c, v in intervals.items()})
                            for games, intervals, _ in race.history], title=f"{plan.game}: the race",
                           band="simultaneous interval" if racing else "model estimate")
        writing.write_atomic(folder / PLOT, lambda tmp: figure.savefig(tmp, dpi=110, format="png"))
    text = [
        f"# simcore tune: {plan.game}",
        "",
        f"Tune file `{plan.path}`: {len(plan.candidates):,} candidates, policies "
        f"{', '.join(dict.fromkeys(plan.candidates[0].config.policies))}, seed {plan.candidates[0].config.seed}.",
        "",
        "Objective (lower is better): " + "; ".join(t.describe() for t in plan.objective.terms) + ".",
        "",
        *[block for line in [scored_by(plan.objective)] if line for block in (f"{line[0].upper()}{line[1:]}.", "")],
        *[block for line in [no_fair_sentence(result, names, markdown=True)] if line for block in (line, "")],
        *_search_section(result, _ranked(result, names) if race.history else []),
        *_confirmation(result, names),
    ]
    writing.write_atomic(folder / REPORT, lambda tmp: tmp.write_text("\n".join(text)))


class _Names:
    """Candidate index -> name, resolving only the candidates asked for."""

    def __init__(self, plan):
        self.plan = plan

    def __getitem__(self, index):
        return self.plan.candidates[index].name
