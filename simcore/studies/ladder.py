"""The skill ladder: does playing better win more? Budget 2n against budget n, rung by rung.

Each rung plays a searching policy with the larger budget (A) against the same policy with the smaller one (B)
on the same deals, A taking every seat in turn and B the others (``simcore.studies.versus``: each deal is played once
from each seat, as chess engine testing pairs its openings). A's score is its mean points (``analyses.scoring``:
1 win, 1/k of a k-way shared win, 0 loss, 1/players when nobody wins); 1/players is fair. A rung is
*significant* when A's score is above fair: versus's test of the deals' mean scores at 5% (two-sided, and above
fair; ``versus.skew_z_test``) with a fixed number of deals, or, with ``--sprt``, a generalised SPRT on the deals'
mean scores (H0: fair against H1: fair + delta) that looks only after a batch of whole deals, every seating of
each deal played, and decides a rung still undecided at its last deal by the test at the cap
(``analyses.sprt.GSPRT.at_cap``), so that every rung is decided at 5% in all. The deal is the unit of both tests,
as Fishtest makes the game pair its unit: the seatings of one deal share its luck, and a seat's edge cancels
within the deal.

The *skill depth* comes from fixed-sequence testing: the rungs are taken in order of budget and the climb stops
at the first rung that is not significant; the depth is the last budget before it. Testing in a fixed order
keeps the chance of overstating the depth at the rungs' level without any adjustment; the largest significant
rung anywhere would not.

Fixed-count ladders are a sweep (one Parquet file per rung and seating, ``_manifest.json``, resumable, on Dask
with an executor); SPRT ladders play on this machine and write the same files with the deals they played.
``ladder.parquet`` (one row per rung), ``ladder.md`` and ``ladder.png`` summarise the rungs.
"""

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from analyses.scoring import RULE
from analyses.sprt import GSPRT, CapResult
from simcore import agents, engine
from simcore.io import config as cfg
from simcore.io import manifest, results, writing
from simcore.studies import sweep, versus

BUDGET = {"ismcts": "iterations", "mc": "rollouts"}   # the policies a ladder climbs, and their budget parameter
DEFAULT_BUDGETS = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)
SUMMARY, REPORT, PLOT = "ladder.parquet", "ladder.md", "ladder.png"


@dataclass(frozen=True)
class Rung:
    """One rung: ``strong`` (budget 2n, say) against ``weak`` (budget n)."""

    weak_budget: int
    strong_budget: int
    result: versus.VersusResult
    sprt: str | None = None     # with --sprt: the SPRT's decision, "H1", "H0" or "cap" (undecided at the last deal)
    cap: CapResult | None = None  # with sprt "cap": the test at the cap that decides the rung

    @property
    def significant(self):
        if self.sprt == "cap":
            return self.cap.rejected
        if self.sprt is not None:
            return self.sprt == "H1"
        return self.result.significant and self.result.score > self.result.fair

    @property
    def test_text(self):
        """The rung's test result in a few characters: its p-value, or the SPRT's decision, or the cap's p."""
        if self.sprt == "cap":
            return f"cap {self.cap.pvalue:.2g}"
        return f"SPRT {self.sprt}" if self.sprt else f"{self.result.pvalue:.2g}"


@dataclass(frozen=True)
class LadderResult:
    """The rungs of a ladder, in the manner of scipy.stats results."""

    game: str
    base: str                   # the policy climbed, without its budget
    rungs: tuple

    @property
    def depth(self):
        """The skill depth: the last budget of the unbroken run of significant rungs from the bottom (None:
        the first rung is not significant)."""
        return skill_depth([r.strong_budget for r in self.rungs], [r.significant for r in self.rungs])

    @property
    def sequential(self):
        return any(r.sprt is not None for r in self.rungs)


def skill_depth(budgets, significant):
    """Fixed-sequence testing of the rungs in order of budget: stop at the first rung that is not significant
    and return the budget of the rung before it (None when the first is not)."""
    depth = None
    for budget, better in zip(budgets, significant, strict=True):
        if not better:
            break
        depth = budget
    return depth


def base_spec(text, game, params=None):
    """The policy the ladder climbs: a searching spec of ``game`` in the variant of ``params`` (plain ismcts is
    that variant's recommended search); returns (agent name, its values but the budget). Raises ConfigError in
    one line."""
    try:
        module = cfg.resolve(game).module
        spec = agents.parse(text, module.GAME, module.ACTION_KINDS, params)
    except ValueError as e:
        raise cfg.ConfigError(str(e)) from None
    if spec.name not in BUDGET:
        raise cfg.ConfigError(f"--policy-base {spec.name!r} has no budget to double; allowed: "
                              f"{', '.join(BUDGET)}")
    if BUDGET[spec.name] + "=" in text:
        raise cfg.ConfigError(f"--policy-base {text!r} sets its budget; allowed: the budgets in --budgets only")
    return spec


def with_budget(spec, budget):
    values = tuple((key, budget if key == BUDGET[spec.name] else value) for key, value in spec.values)
    return str(dataclasses.replace(spec, values=values))


def parse_budgets(text):
    """'8,16,32' -> (8, 16, 32): at least two budgets, increasing. Raises ConfigError in one line."""
    try:
        budgets = tuple(int(part) for part in text.split(","))
    except ValueError:
        budgets = ()
    if len(budgets) < 2 or any(b < 1 for b in budgets) or list(budgets) != sorted(set(budgets)):
        raise cfg.ConfigError(f"--budgets {text!r} is not allowed; allowed: two or more increasing whole "
                              "numbers, e.g. 8,16,32")
    return budgets


@dataclass
class Plan:
    """Every rung's seatings, resolved and validated before anything is played."""

    game: str
    spec: agents.Spec
    budgets: tuple
    rungs: list               # per rung: (weak budget, strong budget, seatings)

    def as_sweep(self, folder):
        variants = [sweep.Variant(run.variant, {"strong": strong, "weak": weak, "seat": seat}, run)
                    for weak, strong, runs in self.rungs for seat, run in enumerate(runs)]
        return sweep.Sweep(Path(folder), self.game, variants)


DEALS = 200            # deals per rung unless --games or the config says otherwise


def plan(game=None, sets=(), base="ismcts", budgets=DEFAULT_BUDGETS, games=None, seed=None, table=None):
    """Every rung's seatings; ``table`` is a config file's table (game, parameters, games, seed)."""
    table = dict(table or {})
    games = table.get("games", DEALS) if games is None else games
    if isinstance(games, bool) or not isinstance(games, int) or not 2 <= games <= 10**9:
        raise cfg.ConfigError(f"--games {games} is not allowed; allowed: 2 to 10^9 deals per rung")
    rules = cfg.resolve(game, table, sets=list(sets))
    game = rules.game
    spec = base_spec(base, game, rules.params)
    rungs = []
    for weak, strong in zip(budgets[:-1], budgets[1:], strict=True):
        seatings = versus.seatings(game, with_budget(spec, strong), with_budget(spec, weak), sets, games, seed,
                                   table)
        named = [dataclasses.replace(run, variant=f"b{strong}-vs-b{weak}-seat{seat}")
                 for seat, run in enumerate(seatings)]
        rungs.append((weak, strong, named))
    return Plan(game, spec, tuple(budgets), rungs)


def climb(plan_, folder, executor=None, on_block=None, on_rung=None, trace=False):
    """Play every rung with a fixed number of deals (a resumable sweep in ``folder``); return the result.
    ``trace``: each rung's seating files get their traces beside them."""
    folder = sweep.open_folder(folder, "ladder", plan_.game)
    with writing.Lock(folder):
        return _climb(plan_, folder, executor, on_block, on_rung, trace)


def _climb(plan_, folder, executor, on_block, on_rung, trace):
    sweep.run(plan_.as_sweep(folder), folder, on_block=on_block, executor=executor, kind="ladder", trace=trace)
    rungs = []
    for weak, strong, runs in plan_.rungs:
        scores = [versus.table_returns(pq.read_table(writing.local(Path(folder) / f"{run.variant}.parquet")),
                                       run.players, seat)
                  for seat, run in enumerate(runs)]
        rungs.append(Rung(weak, strong, versus.score(runs, scores)))
        if on_rung:
            on_rung(rungs[-1])
    return finish(plan_, folder, rungs)


def climb_sprt(plan_, folder, batch=100, delta=0.05, alpha=0.05, beta=0.05, on_rung=None, on_batch=None):
    """Play each rung in batches of ``batch`` deals until the GSPRT on the deals' mean scores decides; a rung whose
    deals run out first is decided by the test at the cap (``GSPRT.at_cap``: all its deals, at the error the SPRT
    left unspent), so every rung is decided and the false-positive rate stays ``alpha``."""
    for name, value in (("--delta", delta), ("--alpha", alpha), ("--beta", beta)):
        if not 0 < value < 0.5:
            raise cfg.ConfigError(f"{name} {value} is not allowed; allowed: between 0 and 0.5")
    if batch < 2:     # a test after one deal would have no spread over deals to judge it by
        raise cfg.ConfigError(f"--batch {batch} is not allowed; allowed: 2 or more deals")
    fair = 1 / len(plan_.rungs[0][2])
    if fair + delta >= 1:
        raise cfg.ConfigError(f"--delta {delta} leaves no room above fair {fair:g}; allowed: below {1 - fair:g}")
    folder = sweep.open_folder(folder, "ladder", plan_.game)
    with writing.Lock(folder):
        writing.remove_stale(folder)
        _sprt_manifest(plan_, folder)
        return _climb_sprt(plan_, folder, batch, delta, alpha, beta, on_rung, on_batch)


def _sprt_manifest(plan_, folder):
    """An SPRT ladder's manifest, written before it plays: the folder is a ladder's (never taken for a user's
    folder, nor for a sweep's); the entries of the rung files it writes anew go, since they no longer hold."""
    rewritten = {run.variant for _, _, runs in plan_.rungs for run in runs}
    held = manifest.read_manifest(folder)["variants"]
    manifest.write_manifest(folder, manifest.head("ladder", plan_.game, sprt=True,
                                                  variants={n: e for n, e in held.items() if n not in rewritten}))


def _climb_sprt(plan_, folder, batch, delta, alpha, beta, on_rung, on_batch):
    rungs = []
    for weak, strong, runs in plan_.rungs:
        fair = 1 / len(runs)
        test = GSPRT(fair, fair + delta, alpha, beta)

        def play(seat, start, n, runs=runs):
            run = runs[seat]
            return engine.run(run.module, run.params_array(), run.policies_array(), run.seed, n, start)

        report = (lambda played, test, strong=strong, weak=weak: on_batch(strong, weak, played, test)) \
            if on_batch else None
        def score(seat, rows, runs=runs):
            return versus.a_returns(runs[seat], rows, seat)

        rows, played = sequential_rung(play, len(runs), runs[0].games, batch, test, score, report)
        for seat, run in enumerate(runs):
            done = dataclasses.replace(run, games=played)
            with results.ResultWriter(Path(folder) / f"{run.variant}.parquet", done) as writer:
                writer.add(0, rows[seat])
        scores = [score(seat, rows[seat]) for seat in range(len(runs))]
        cap = test.at_cap() if test.decision is None else None
        rungs.append(Rung(weak, strong, versus.score(runs, scores), test.decision or "cap", cap))
        if on_rung:
            on_rung(rungs[-1])
    return finish(plan_, folder, rungs)


def sequential_rung(play, seats, deals, batch, test, score, on_batch=None):
    """Play a rung's deals in batches of whole deals until ``test`` (a GSPRT) decides or ``deals`` are played.

    ``play(seat, start, n)`` plays deals start..start+n-1 with A in ``seat`` and ``score(seat, rows)`` gives
    A's points per game. Every seating of a batch is played before the test sees it, one observation per deal
    (A's mean points over its seatings), so the test never stops with the seats unbalanced and a seat's edge
    cancels within each deal. Returns each seating's rows and the deals played."""
    blocks = [[] for _ in range(seats)]
    played = 0
    while played < deals and test.decision is None:
        n = min(batch, deals - played)
        for seat in range(seats):
            blocks[seat].append(play(seat, played, n))
        played += n
        test.update(np.mean([score(seat, blocks[seat][-1]) for seat in range(seats)], axis=0))
        if on_batch:
            on_batch(played, test)
    return [np.concatenate(b) for b in blocks], played


def finish(plan_, folder, rungs):
    """The result, with ladder.parquet, ladder.png and ladder.md written beside the games."""
    spec = plan_.spec
    base = dataclasses.replace(spec, values=tuple((key, value) for key, value in spec.values
                                                  if key != BUDGET[spec.name]))
    result = LadderResult(plan_.game, str(base), tuple(rungs))
    folder = Path(folder)
    writing.write_atomic(folder / SUMMARY, lambda path: pq.write_table(summary_table(result), path))
    from analyses.plots import ladder_plot

    figure = ladder_plot([r.strong_budget for r in rungs], [r.result.score for r in rungs],
                         [r.result.low for r in rungs], [r.result.high for r in rungs], rungs[0].result.fair,
                         title=f"{plan_.game}: {result.base}, budget 2n against n")
    writing.write_atomic(folder / PLOT, lambda path: figure.savefig(path, dpi=110, format="png"))
    writing.write_atomic(folder / REPORT, lambda path: Path(path).write_text(report(result, plan_)))
    return result


def summary_table(result):
    rungs = result.rungs
    return pa.table({
        "weak_budget": [r.weak_budget for r in rungs],
        "strong_budget": [r.strong_budget for r in rungs],
        "deals": [r.result.deals for r in rungs],
        "games": [r.result.games for r in rungs],
        "score": [r.result.score for r in rungs],
        "low": [r.result.low for r in rungs],
        "high": [r.result.high for r in rungs],
        "fair": [r.result.fair for r in rungs],
        "pvalue": [r.result.pvalue for r in rungs],
        "sprt": [r.sprt or "" for r in rungs],
        "cap_pvalue": pa.array([r.cap.pvalue if r.cap else None for r in rungs], type=pa.float64()),
        "significant": [r.significant for r in rungs],
    }, metadata={"simcore.game": result.game, "simcore.base": result.base})


def method(result):
    """One line naming each rung's test and the error it controls, and how the depth is read."""
    if result.sequential:
        test = ("each rung: a GSPRT on the deals' mean scores, H0 fair against fair + delta, stopping after whole "
                "batches of deals (false negative 5%), and a rung undecided at its last deal (cap) decided by the "
                "one-sided z test of all its deals at the error the SPRT left (stagewise p), false positive 5% in "
                "all; the intervals are not adjusted for the sequential stop")
    else:
        test = ("each rung: versus's z test of the deals' mean scores (variance about fair, corrected for skew) at "
                "5% (stronger when significant and above fair)")
    return (f"{test}; skill depth by fixed-sequence testing (the climb stops at the first rung without a "
            "significant gain), so it is overstated at most 5% of the time")


FAMILY = "fixed sequence over the rungs in order of budget (the climb stops at the first rung not stronger)"


def rung_word(rung):
    """The larger budget "stronger" where the rung is significant, "weaker" where a fixed-count rung's test finds
    it below fair, else "no difference found" (the SPRT's H0, a cap not rejected)."""
    from analyses.claims import STRENGTH, strength_word

    if rung.significant:
        return STRENGTH[0]
    if rung.sprt is None:
        return strength_word(rung.result.score, rung.result.fair, rung.result.pvalue)
    return STRENGTH[2]


def rung_claim(rung, rules):
    """A rung's claim, its test as :func:`method` names it."""
    from analyses.claims import contest_claim

    test = method(LadderResult("", "", (rung,))).split(";")[0].removeprefix("each rung: ")
    return contest_claim(rung.result, rules, test, FAMILY, rung_word(rung))


def claims(result, rules):
    """Every rung's claim, bottom rung first."""
    return [rung_claim(r, rules) for r in result.rungs]


def document(result, rules):
    """``simcore ladder --json``: the rungs, the skill depth and every rung's claim (schema simcore.verdict/1)."""
    from analyses.claims import document as claims_document

    said = claims(result, rules)
    rungs = [{"budget": r.strong_budget, "against_budget": r.weak_budget, "deals": r.result.deals,
              "score": r.result.score, "low": r.result.low, "high": r.result.high, "pvalue": r.result.pvalue,
              "sprt": r.sprt, "seat_split": c.numbers.get("seats"), "verdict": c.word}
             for r, c in zip(result.rungs, said, strict=True)]
    ladder = {"game": result.game, "policy_base": result.base, "rules": rules, "rungs": rungs,
              "skill_depth": result.depth}
    return claims_document(said, ladder=ladder)


def lines(result):
    """The rungs as text lines (the CLI's output and the report's table), each rung's word its claim's."""
    out = [f"{'rung':<16} {'deals':>7} {'score':>8} {'95% interval':>18} {'p':>9}  word"]
    for r in result.rungs:
        out.append(f"{r.strong_budget:>6} vs {r.weak_budget:<6} {r.result.deals:>7,} {r.result.score:>8.4f} "
                   f"[{r.result.low:.4f}, {r.result.high:.4f}] {r.test_text:>9}  {rung_word(r)}")
    out += split_lines(result)
    out.append(SCORING)
    out.append(method(result))
    out.append(f"skill depth: {_depth_text(result)}")
    out.append(luck_text(result))
    return out


def split_lines(result):
    """A line for each rung whose larger budget scores apart from seat to seat beyond chance (its word is of the
    seats together)."""
    from analyses.claims import split_text

    said = [(r, split_text(rung_claim(r, ""))) for r in result.rungs]
    return [f"  {r.strong_budget} vs {r.weak_budget} by seat: {text}" for r, text in said if text]


def upset(rung):
    """The smaller budget's mean points per seat it holds, with its interval: (1 - score) / (players - 1), the
    same map of the score's interval (a linear map keeps its coverage). A 2-player game without draws: the share
    of games the weaker player wins."""
    r = rung.result
    others = r.players - 1
    return (1 - r.score) / others, (1 - r.high) / others, (1 - r.low) / others


def luck_text(result):
    """Luck against skill in a sentence: how often the weaker budget still scores, at the bottom and the top."""
    fair = result.rungs[0].result.fair
    shown = [result.rungs[0]] + ([result.rungs[-1]] if len(result.rungs) > 1 else [])
    parts = [f"{points:.3f} [{low:.3f}, {high:.3f}] at {r.weak_budget} against {r.strong_budget}"
             for r in shown for points, low, high in [upset(r)]]
    return (f"luck against skill: the smaller budget still takes {' and '.join(parts)} points a game per seat "
            f"(fair {fair:.3f}; the upset rate)")


SCORING = f"score: A's mean points ({RULE}, a loss 0)"


def _depth_text(result):
    depth = result.depth
    if depth is None:
        return "none (the first rung is not shown stronger than the one below)"
    return f"{depth} (every rung up to it is shown stronger than half its budget)"


def report(result, plan_):
    fair = result.rungs[0].result.fair
    head = ("| budget 2n | against n | deals | score | 95% interval | p / SPRT | 2n is |\n"
            "|---:|---:|---:|---:|---|---|---|")
    rows = [f"| {r.strong_budget} | {r.weak_budget} | {r.result.deals:,} | {r.result.score:.4f} | "
            f"[{r.result.low:.4f}, {r.result.high:.4f}] | {r.test_text} | {rung_word(r)} |" for r in result.rungs]
    params = plan_.rungs[0][2][0].params
    sets = ", ".join(f"{k} = {v}" for k, v in params.items()) or "defaults"
    return "\n".join([
        f"# Skill ladder: {result.game}, {result.base}",
        "",
        f"Each rung plays the larger budget against the smaller on the same deals, taking every seat in turn "
        f"(seed {plan_.rungs[0][2][0].seed}). Score: the larger budget's mean points; fair is {fair:.4g}.",
        "",
        f"Parameters: {sets}.",
        "",
        head, *rows,
        "",
        f"**Skill depth: {_depth_text(result)}.**",
        "",
        f"{luck_text(result)[0].upper()}{luck_text(result)[1:]}.",
        "",
        f"The {SCORING}. The test: {method(result)}.",
        "",
        f"![score against budget]({PLOT})",
        "",
    ])
