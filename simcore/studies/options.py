"""``simcore options``: what each kind of move is worth, by restricted play (``analyses.options``).

For every kind of move of the game, one seat plays the policy with that kind forbidden (then preferred) against
the same policy unrestricted in every other seat, the restricted seat taking every seat in turn on the same deals
(the same seed: game g of every run is the same deal, as ``simcore versus`` seats its contests). A baseline of the
policy in every seat on those deals says which kinds ever came into play: a kind never legal there is not played
restricted, and is said to have never come into play.
"""

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analyses import options as worth
from analyses.scoring import points
from simcore import agents, engine
from simcore.io import config as cfg
from simcore.studies import versus

DEALS = 1000          # deals unless --games or the config says otherwise


@dataclass(frozen=True)
class Study:
    """The runs of an options study: ``baseline`` (the policy in every seat) and, per kind, per mode, one run per
    seat of the restricted policy (``restricted(kind, mode)``)."""

    baseline: object               # the RunConfig of the policy in every seat
    policy: str
    kinds: tuple                   # (name, meaning) of the kinds weighed, in the game's order
    name: str = ""                 # the sweep's variant it weighs, "" for a study of one set of rules

    @property
    def prefix(self):
        """What its runs' names begin with: the sweep's variant's name, so that a folder holds every variant's."""
        return f"{self.name}." if self.name else ""

    @property
    def players(self):
        return self.baseline.players

    @property
    def module(self):
        return self.baseline.module

    def restricted(self, kind, mode):
        """The seatings of the policy with ``kind`` forbidden or preferred (``mode``), one run per seat."""
        spec = cfg.policy_spec(self.module.GAME, restricted_spec(self.policy, mode, kind), self.baseline.params)
        return [dataclasses.replace(self.baseline, policies=[spec if s == seat else self.policy
                                                             for s in range(self.players)],
                                    variant=f"{self.prefix}{mode}-{kind}-seat{seat}")
                for seat in range(self.players)]


def restricted_spec(policy, mode, kind):
    """``policy`` with ``kind`` forbidden (``mode`` "forbidden") or preferred."""
    key = "forbid" if mode == "forbidden" else "prefer"
    return f"{policy}{',' if ':' in policy else ':'}{key}={kind}"


def plan(game, policy, sets=(), games=None, seed=None, kinds=None, table=None):
    """The :class:`Study` of ``policy`` (a spec, unrestricted) on ``game`` with ``sets``; ``kinds``: the names of the
    kinds to weigh (None: every kind the game declares). One-line ConfigError on bad input."""
    table, games = versus.contest_table(table, games, "simcore options seats the policy (--policy) and its "
                                                      "restricted copy itself")
    baseline = cfg.resolve(game, table, sets=list(sets), policies=[("all", policy)], games=games, seed=seed,
                           variant="baseline")
    return study_of(baseline, policy, kinds)


def study_of(baseline, policy, kinds=None, name=""):
    """The :class:`Study` of ``policy`` on the rules of the resolved run ``baseline`` (its policies replaced)."""
    game = baseline.game
    try:
        spec = agents.parse(policy, baseline.module.GAME, baseline.module.ACTION_KINDS, baseline.params)
    except ValueError as e:
        raise cfg.ConfigError(str(e)) from None
    if spec.restricted:
        raise cfg.ConfigError(f"--policy {policy} is restricted already; allowed: an unrestricted policy (simcore "
                              "options forbids and prefers each kind itself)")
    declared = baseline.module.ACTION_KINDS
    if not declared:
        raise cfg.ConfigError(f"game {game} declares no kinds of move; allowed: a game with ACTION_KINDS "
                              "(simcore games GAME lists them)")
    names = [kind for kind, _ in declared]
    for kind in kinds or ():
        if kind not in names:
            raise cfg.ConfigError(f"--kinds: {kind!r} is not a kind of move of {game}; allowed: {', '.join(names)}")
    chosen = tuple((kind, meaning) for kind, meaning in declared if kinds is None or kind in kinds)
    baseline = dataclasses.replace(baseline, policies=[str(spec)] * baseline.players,
                                   variant=f"{name}.baseline" if name else "baseline")
    return Study(baseline, str(spec), chosen, name)


def counted_run(run, on_block=None):
    """Play ``run`` with each seat's counts of the kinds of move: (rows, counts (games, seats, 2 kinds + 1))."""
    rows, counts = [], []
    for _, block, trace in engine.run_counted_blocks(run.module, run.params_array(), run.policies_array(),
                                                      run.seed, run.games):
        rows.append(block)
        counts.append(trace.counts)
        if on_block is not None:
            on_block(block.shape[0])
    return np.concatenate(rows), np.concatenate(counts)


def games_to_play(study):
    """Every game the study may play: the baseline, then two restrictions per kind from every seat."""
    return study.baseline.games * (1 + 2 * len(study.kinds) * study.players)


def in_memory(on_block=None):
    """The runner of a study without a folder: ``runner(runs, on_run)`` plays each run and returns its (wins (games,
    players), counts (games, seats, 2 kinds + 1)), calling ``on_run(i)`` as run ``i`` ends."""
    def runner(runs, on_run=None):
        out = []
        for i, run in enumerate(runs):
            rows, counts = counted_run(run, on_block)
            out.append((_wins(rows, run.players), counts))
            if on_run is not None:
                on_run(i)
        return out
    return runner


def play(study, on_block=None, on_kind=None, margin=worth.MARGIN, runner=None):
    """Play ``study`` and return its :class:`analyses.options.OptionsResult`. ``on_block(n)`` after every block of
    ``n`` games; ``on_kind(name)`` as each kind is weighed; ``runner`` plays runs (:func:`in_memory`, or
    :class:`Folder`'s, which keeps them)."""
    from analyses.context import rules_text

    runner = runner or in_memory(on_block)
    players = study.players
    (wins, counts), = runner([study.baseline])
    n_kinds = len(study.module.ACTION_KINDS)
    index = {name: k for k, (name, _) in enumerate(study.module.ACTION_KINDS)}
    baseline = float(points(wins).mean())
    in_play = [name for name, _ in study.kinds       # never legal under full play: no restriction could bind
               if sum(worth.counts_of(counts, seat, index[name], n_kinds)[0] for seat in range(players))]
    batch = [(name, mode, seat, run) for name in in_play for mode in worth.MODES
             for seat, run in enumerate(study.restricted(name, mode))]
    per_kind = 2 * players

    def ended(i):
        if on_kind is not None and (i + 1) % per_kind == 0:
            on_kind(batch[i][0])
    played = runner([run for *_, run in batch], ended)
    restrictions = {}
    for start in range(0, len(batch), players):
        name, mode = batch[start][:2]
        scores = [points(played[start + seat][0])[:, seat] for seat in range(players)]
        seat_counts = [worth.counts_of(played[start + seat][1], seat, index[name], n_kinds) for seat in range(players)]
        restrictions[(name, mode)] = worth.restriction(name, mode, scores, 1 / players, baseline,
                                                       tuple(np.sum(seat_counts, axis=0).tolist()), _deals_test)
    kinds = worth.worths(study.kinds, restrictions, margin, worth.full_play(counts, study.module.ACTION_KINDS))
    return worth.OptionsResult(study.baseline.game, rules_text(study.baseline.game, study.baseline.params),
                               study.policy, players, study.baseline.games, margin, kinds)


def _wins(rows, players):
    return rows[:, engine.O_WIN:engine.O_WIN + players]


class Folder:
    """The runs of a study kept in an --out folder (of the kind :attr:`KIND`): each run a result file and its trace (the
    kinds each seat had and played), with the folder's manifest, so that a study stopped part way goes on from the
    runs it finished when the same command is given again. ``runner`` plays the runs not finished and reads every
    run back from its files."""

    KIND = "restricted-play study"      # what its manifest and messages call it

    def __init__(self, folder, game, on_block=None, on_skip=None, record=None, reading=False):
        """``record``: what the study asked (:func:`record`), kept in the manifest for :func:`read_study`;
        ``reading``: the folder is read (``simcore analyze``), nothing played: a run not finished is a DataError."""
        self.folder, self.game, self.on_block, self.on_skip = Path(folder), game, on_block, on_skip
        self.record, self.reading = record, reading

    def plan(self, runs):
        from simcore.studies import sweep

        return sweep.Sweep(self.folder, self.game, [sweep.Variant(run.variant, {}, run) for run in runs])

    def play(self, runs, trace, on_run=None):
        from simcore.studies import sweep

        if self.reading:
            self.check_finished(runs, trace)
            return
        order = {run.variant: i for i, run in enumerate(runs)}

        def finished(variant, status, tally):
            if status == "skipped" and self.on_skip is not None:
                self.on_skip(variant.config.games)
            if on_run is not None:
                on_run(order[variant.name])
        sweep.run(self.plan(runs), self.folder, self.on_block, on_variant=finished, kind=self.KIND, trace=trace,
                  record=self.record)

    def check_finished(self, runs, trace):
        """DataError in one line unless every run of ``runs`` is finished in the folder (with its trace)."""
        from analyses.data import DataError
        from simcore.studies import sweep

        planned = sweep.plan_status(self.plan(runs), self.folder, trace)
        missing = [name for name, (status, _) in planned.items() if status != "skipped"]
        if missing:
            raise DataError(f"{self.folder} holds an unfinished {self.KIND}: {len(missing)} of its runs "
                            f"({', '.join(missing[:2])}{', ...' * (len(missing) > 2)}) are not finished; allowed: "
                            f"{_command(self.folder)}, given again, finishes it")

    def runner(self, runs, on_run=None):
        self.play(runs, True, on_run)
        return [self.read(run) for run in runs]

    def read(self, run):
        """(wins, counts) of a finished run, from its result file and its trace."""
        import pyarrow.parquet as pq

        from simcore.io import results, writing

        path = self.folder / f"{run.variant}.parquet"
        table = pq.read_table(writing.local(path))
        wins = np.column_stack([table[f"win_{i}"].to_numpy(zero_copy_only=False) for i in range(run.players)])
        trace = pq.read_table(writing.local(results.trace_path(path))).sort_by([("game_index", "ascending"),
                                                                               ("seat", "ascending")])
        kinds = [name for name, _ in run.module.ACTION_KINDS]
        played = np.stack([trace[f"played_{k}"].to_numpy() for k in kinds], axis=1).reshape(run.games, run.players, -1)
        legal = np.stack([trace[f"legal_{k}"].to_numpy() for k in kinds], axis=1).reshape(run.games, run.players, -1)
        forced = np.zeros((run.games, run.players, 1), played.dtype)
        for seat, spec in enumerate(run.policies):     # a forbidden kind is played only where nothing else was legal
            mask = int(agents.parse(spec, run.module.GAME, run.module.ACTION_KINDS, run.params).row()[agents.FORBID])
            forced[:, seat, 0] = sum(played[:, seat, k] for k in range(len(kinds)) if (mask >> k) & 1)
        return wins.astype(bool), np.concatenate([played, legal, forced], axis=2)

    def scores(self, runs):
        """The contest's points of A (the seat each seating puts it in), from the seatings' result files."""
        import pyarrow.parquet as pq

        from simcore.io import writing

        self.play(runs, False)
        return [versus.table_returns(pq.read_table(writing.local(self.folder / f"{run.variant}.parquet")),
                                     run.players, seat) for seat, run in enumerate(runs)]


def record(studies, margin, sweep_name=None, skill=None):
    """What a study's folder keeps in its manifest besides its runs, for :func:`read_study`: the policy and kinds
    weighed, the margin, each variant's name and baseline run, the sweep's name and baselines (None: one set of
    rules), and the skill contests asked for (``skill``: (strong, games), or None)."""
    strong, games = skill or (None, None)
    return {"study": {"policy": studies[0].policy, "kinds": [name for name, _ in studies[0].kinds], "margin": margin,
                      "variants": [s.name for s in studies], "baselines": [s.baseline.variant for s in studies],
                      "sweep": sweep_name, "skill": {"strong": strong, "games": games} if skill else None}}


def read_study(folder):
    """The studies kept in ``folder`` (by :class:`Folder`) as the command that wrote it asked for them: (studies,
    the sweep's baselines or None, its :func:`record`). DataError in one line where its manifest does not say (a
    folder simcore wrote before it kept them) or a study's baseline run is not finished."""
    from analyses.data import DataError
    from simcore.io import manifest
    from simcore.studies.sweep import manifest_kind

    folder = Path(folder)
    written = manifest.read_manifest(folder)
    asked = written.get("study")
    if manifest_kind(written) != Folder.KIND or not isinstance(asked, dict):
        raise DataError(f"{folder}'s manifest does not record what its {Folder.KIND} asked for (an older simcore "
                        f"wrote it); allowed: {_command(folder)}, given again: it records it and plays nothing "
                        "it finished")
    studies = []
    try:
        for name, variant in zip(asked["variants"], asked["baselines"], strict=True):
            entry = written["variants"].get(variant)
            if entry is None:
                raise DataError(f"{folder} holds an unfinished {Folder.KIND}: its run {variant} is not finished; "
                                f"allowed: {_command(folder)}, given again, finishes it")
            baseline = cfg.resolve(table=cfg.parse_toml(entry["config"], folder / manifest.MANIFEST))
            studies.append(study_of(baseline, asked["policy"], asked["kinds"], name))
        bases = None if asked["sweep"] is None else _bases(studies)
    except (KeyError, TypeError, ValueError, cfg.ConfigError) as e:
        raise DataError(f"{folder / manifest.MANIFEST} is damaged ({e}); allowed: {_command(folder)}, given "
                        "again, writes it again") from None
    return studies, bases, asked


def _command(folder):
    """The command that wrote ``folder``'s study, as its manifest names it."""
    from simcore.io import manifest

    return manifest.read_manifest(folder).get("command") or "the simcore options command that wrote it"


def _bases(studies):
    """{variant: its baseline}: the first variant of its player count."""
    firsts = {}
    return {s.name: firsts.setdefault(s.players, s.name) for s in studies}


def _deals_test(scores, alpha):
    """(share, low, high, p, method): ``simcore versus``'s test of the restricted seat's deal means against the fair
    share, at two-sided level ``alpha``."""
    per_deal = worth.deal_means(scores)
    method, low, high, pvalue = versus.deal_test(per_deal, 1 / len(scores), alpha)
    return float(per_deal.mean()), float(low), float(high), float(pvalue), method


# --- across the variants of a sweep -----------------------------------------------------------------------------


def _as_written(spec, run):
    """``spec`` as a sweep may have written it: plain "ismcts" where it is its variant's recommended search (which
    differs from variant to variant: GameType.search_by), else the canonical spec."""
    plain = cfg.policy_spec(run.module.GAME, "ismcts", run.params) if "ismcts" in run.module.GAME.policies else None
    return "ismcts" if spec == plain else spec


def sweep_plan(path, policy=None, games=None, seed=None, kinds=None):
    """One :class:`Study` per variant of the sweep file ``path`` (its rules; the policy ``policy``, else the one
    policy the sweep seats everywhere), on the same deals: (studies, {variant: its baseline}), a variant's baseline
    the sweep's first variant of its player count. ``games`` deals a restriction (default :data:`DEALS`, not the
    sweep's games: a study plays each many times over). One-line ConfigError on bad input."""
    from simcore.studies import sweep

    versus.check_deals(games)
    plan = sweep.load(path, games if games is not None else DEALS, seed)
    if policy is None:
        seated = {_as_written(spec, variant.config) for variant in plan.variants for spec in variant.config.policies}
        if len(seated) != 1:
            raise cfg.ConfigError(f"sweep {path} seats {len(seated)} policies ({', '.join(sorted(seated))}); allowed: "
                                  "--policy SPEC, the one policy simcore options weighs the kinds for")
        policy = seated.pop()
    studies = [study_of(variant.config, policy, kinds, variant.name) for variant in plan.variants]
    return studies, _bases(studies)


def play_sweep(studies, bases, on_block=None, on_kind=None, margin=worth.MARGIN, runner=None):
    """Play every variant's study (:func:`play`) and compare each kind's worth with its baseline's on the same
    deals: ({variant: OptionsResult}, [analyses.options.KindChange])."""
    results = {}
    for study in studies:
        results[study.name] = play(study, on_block, on_kind, margin, runner)
    return results, worth.changes(results, bases)


# --- skill and luck on the same rules (the restricted-play paper's other measures) ---------------------------

SKILL_DEALS = 200      # deals of each skill contest unless --skill-games says otherwise


def skill_pairs(study, strong):
    """The contests of skill on a study's rules: the searching policy ``strong`` over greedy, greedy over random
    (those the game offers), each as (stronger, weaker) canonical specs."""
    game = study.module.GAME
    pairs = [(strong, "greedy"), ("greedy", "random")] if game.heuristic else [(strong, "random")]
    return [tuple(cfg.policy_spec(game, spec, study.baseline.params) for spec in pair) for pair in pairs]


def skill_runs(study, stronger, weaker, games):
    """The seatings of ``stronger`` against ``weaker`` on the study's rules and deals, the stronger in each seat
    in turn (as ``simcore versus`` seats a contest)."""
    pair = f"{stronger.partition(':')[0]}-over-{weaker.partition(':')[0]}"     # a file name: no spec's punctuation
    return [dataclasses.replace(study.baseline, policies=[stronger if s == seat else weaker
                                                          for s in range(study.players)],
                                games=games, variant=f"{study.prefix}skill-{pair}-seat{seat}")
            for seat in range(study.players)]


def skill(study, strong, games=SKILL_DEALS, on_block=None, folder=None):
    """Skill and luck on the study's rules: for each pair of :func:`skill_pairs`, the stronger's
    :class:`~simcore.studies.versus.VersusResult` against the weaker (skill: how much a seat gains from the better
    player), and the weaker's points per seat in the same games (luck: how often the weaker player still wins; fair
    1/players). Returns [(VersusResult, weaker's points per seat)]."""
    from simcore.studies import runs as plays

    out = []
    for stronger, weaker in skill_pairs(study, strong):
        seatings = skill_runs(study, stronger, weaker, games)
        if folder is not None:          # kept in the study's folder (:class:`Folder`)
            scores = folder.scores(seatings)
        else:
            scores = [np.concatenate([versus.a_returns(run, rows, seat) for _, rows in plays.blocks(run, on_block)])
                      for seat, run in enumerate(seatings)]
        result = versus.score(seatings, scores)
        out.append((result, (1 - result.score) / (study.players - 1)))
    return out
