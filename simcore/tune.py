"""Auto-balance: search rule parameters for the fairest variant (``simcore tune``).

A tune file is a config (``game``, ``seed``, ``[policies]``, base ``[params]``) plus:

``[space]``      parameters to search, each a list of values or an integer range ``{low = 0, high = 4}``;
                 the candidates are every combination.
``[objective]``  what "good" means, terms that add up (lower is better):
                 ``gap = W``: W x the seat gap, the largest gap between two seats' win shares (what
                 ``simcore analyze`` reports as the gap);
                 ``timeout = {max = M, weight = W}``: W x how far the timeout share exceeds M;
                 ``mean_turns`` (the column ``n_turns``) or any result column: ``{target = [LOW, HIGH],
                 weight = W}`` or just ``[LOW, HIGH]`` (weight 1), W x how far the column's mean lies
                 outside [LOW, HIGH].
``[search]``     ``method = "race"``, ``batch`` (games per candidate per step), ``games_max`` (per
                 candidate), ``alpha`` (0: drop nothing, an exhaustive sweep on the same games),
                 ``finalists``, ``confirm_games``, ``confirm_seed``; ``method = "ntbea"`` with ``iterations``,
                 ``neighbours`` and ``explore``.

Racing: every candidate still in the race plays the same games (seed, game indices) in growing batches, so
that candidates are compared on common random numbers. After each batch the candidate with the lowest
objective leads; every other candidate's objective minus the leader's is bootstrapped over the games they
share (one resample of game indices for all candidates, so the comparison stays paired), and a candidate
whose difference is above 0 with a Holm-adjusted one-sided p-value below ``alpha`` is dropped (the p-value
from the difference over its bootstrap standard deviation). The race ends
when one candidate is left or every survivor has played ``games_max``. The best ``finalists`` survivors are
then confirmed on ``confirm_games`` fresh games (``confirm_seed``): each objective term with a 95% bootstrap
interval; the best is named only when its interval does not overlap the runner-up's, else the tied set.
"""

import dataclasses
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simcore import __version__, results, sweep, writing
from simcore import config as cfg

TUNE_KEYS = cfg.TOP_KEYS + ("space", "objective", "search")
SEARCH = {"method": "race", "batch": 1000, "games_max": 20_000, "alpha": 0.05, "finalists": 5,
          "confirm_games": 20_000, "confirm_seed": None, "bootstrap": 400,
          "iterations": 200, "neighbours": 50, "explore": 0.1}
METHODS = ("race", "ntbea")
MAX_CANDIDATES = {"race": 5000, "ntbea": 1_000_000}


# --- the objective ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    """One term of the objective: ``gap``, ``timeout`` (with ``high`` its ceiling) or a column's mean
    with a target interval [low, high]; ``key`` is what the tune file calls it (``mean_turns`` for the column
    ``n_turns``)."""

    name: str
    weight: float
    low: float = -math.inf
    high: float = math.inf
    key: str = ""

    def value(self, means, players):
        """The term (before its weight) from the means of its columns, vectorised over leading axes."""
        if self.name == "gap":
            return means.max(axis=-1) - means.min(axis=-1)
        mean = means[..., 0]
        return np.maximum(0.0, self.low - mean) + np.maximum(0.0, mean - self.high)

    def columns(self, players):
        return [f"win_{i}" for i in range(players)] if self.name == "gap" else [self.name]

    def describe(self):
        if self.name == "gap":
            return f"{self.weight:g} x the seat gap (highest seat win share - lowest)"
        if self.name == "timeout":
            return f"{self.weight:g} x timeout share above {self.high:g}"
        return f"{self.weight:g} x distance of mean {self.name} from [{self.low:g}, {self.high:g}]"


@dataclass(frozen=True)
class Objective:
    terms: tuple
    players: int

    @property
    def columns(self):
        """The per-game columns the terms read, in a fixed order (the columns of a candidate's games)."""
        return list(dict.fromkeys(c for t in self.terms for c in t.columns(self.players)))

    def term_values(self, means):
        """{term name: weighted value} from the means of :attr:`columns` (last axis)."""
        index = {c: i for i, c in enumerate(self.columns)}
        return {t.name: t.weight * t.value(means[..., [index[c] for c in t.columns(self.players)]], self.players)
                for t in self.terms}

    def value(self, means):
        return sum(self.term_values(means).values())


def _number(where, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise cfg.ConfigError(f"{where} = {value!r} is not allowed; allowed: a finite number")
    return float(value)


def _weight(name, spec):
    weight = _number(f"[objective] {name} weight", spec.get("weight", 1.0) if isinstance(spec, dict) else spec)
    if weight <= 0:
        raise cfg.ConfigError(f"[objective] {name} weight = {weight:g} is not allowed; allowed: above 0")
    return weight


OBJECTIVE_FORMS = "gap = W, timeout = {max = M, weight = W}, COLUMN = {target = [LOW, HIGH], weight = W}"


def parse_objective(table, columns, players):
    """The ``[objective]`` table -> :class:`Objective`; ``columns``: the result columns a target may name."""
    if not isinstance(table, dict) or not table:
        raise cfg.ConfigError(f"[objective] is empty; allowed: {OBJECTIVE_FORMS}")
    terms = []
    for key, spec in table.items():
        keys = set(spec) if isinstance(spec, dict) else set()
        if key == "balance":
            raise cfg.ConfigError("[objective] balance is now called gap (the largest gap between two seats' win "
                                  "shares, as simcore analyze reports it); allowed: gap = W")
        if key == "gap":
            if keys - {"weight"}:
                raise cfg.ConfigError(f"[objective] gap has {sorted(keys - {'weight'})}; allowed: weight")
            terms.append(Term("gap", _weight(key, spec), key=key))
        elif key == "timeout":
            if not isinstance(spec, dict) or "max" not in spec or keys - {"max", "weight"}:
                raise cfg.ConfigError("[objective] timeout is not allowed; allowed: {max = M, weight = W}")
            ceiling = _number("[objective] timeout max", spec["max"])
            if not 0 <= ceiling <= 1:
                raise cfg.ConfigError(f"[objective] timeout max = {ceiling:g} is not allowed; allowed: a share "
                                      "from 0 to 1")
            terms.append(Term("timeout", _weight(key, spec), high=ceiling, key=key))
        else:
            terms.append(_target_term(key, spec, columns))
    return Objective(tuple(terms), players)


def _target_term(key, spec, columns):
    """A column's mean with a target interval; messages name ``key`` as the tune file spells it."""
    name = "n_turns" if key == "mean_turns" else key
    spec = {"target": spec} if isinstance(spec, list) else spec
    keys = set(spec) if isinstance(spec, dict) else set()
    if name not in columns:
        raise cfg.ConfigError(f"[objective] {key!r} is not a result column; allowed: gap, timeout, mean_turns, "
                              + ", ".join(columns))
    target = spec.get("target") if isinstance(spec, dict) else None
    if not isinstance(target, list) or len(target) != 2 or keys - {"target", "weight"}:
        raise cfg.ConfigError(f"[objective] {key} is not allowed; allowed: {{target = [LOW, HIGH], weight = W}}")
    low, high = (_number(f"[objective] {key} target", v) for v in target)
    if low > high:
        raise cfg.ConfigError(f"[objective] {key} target [{low:g}, {high:g}] is empty; allowed: LOW <= HIGH")
    return Term(name, _weight(key, spec), low, high, key=key)


# --- the tune file ---------------------------------------------------------------------------------------


@dataclass
class Plan:
    path: Path
    game: str
    candidates: list          # sweep.Variant: name, overrides, resolved config
    objective: Objective
    search: dict
    text: str = field(repr=False, default="")   # the tune file, for the manifest

    @property
    def players(self):
        return self.candidates[0].config.players


def _flatten_space(table, prefix=""):
    """Dotted parameter name -> its values; a nested table is a group, except a range {low, high}."""
    out = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and set(value) != {"low", "high"}:
            out.update(_flatten_space(value, f"{name}."))
        else:
            out[name] = value
    return out


def _space(table):
    """Parameter -> its candidate values; a range is checked for size before it is spelled out."""
    if not isinstance(table, dict) or not table:
        raise cfg.ConfigError("[space] is empty; allowed: PARAMETER = [values] or {low = L, high = H}")
    space = {}
    for name, values in _flatten_space(table).items():
        if isinstance(values, dict):
            low, high = values["low"], values["high"]
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high)) or low > high:
                raise cfg.ConfigError(f"[space] {name} = {values!r} is not allowed; allowed: {{low = L, high = H}} "
                                      "with integers L <= H")
            if high - low + 1 > MAX_CANDIDATES["ntbea"]:
                raise cfg.ConfigError(f"[space] {name} = {{low = {low}, high = {high}}} has {high - low + 1:.3g} "
                                      f"values; allowed: at most {MAX_CANDIDATES['ntbea']:,}")
            values = list(range(low, high + 1))
        if not isinstance(values, list) or not values:
            raise cfg.ConfigError(f"[space] {name} = {values!r} is not allowed; allowed: a non-empty list of "
                                  "values or {low = L, high = H}")
        space[name] = values
    return space


def _search(table, games_max):
    if not isinstance(table, dict):
        raise cfg.ConfigError("[search] must be a table")
    unknown = set(table) - set(SEARCH)
    if unknown:
        raise cfg.unknown("[search] key", sorted(unknown)[0], list(SEARCH))
    search = {**SEARCH, **table}
    if games_max is not None:
        search["games_max"] = games_max
    if search["method"] not in METHODS:
        raise cfg.ConfigError(f"[search] method = {search['method']!r} is not allowed; allowed: "
                              + ", ".join(METHODS))
    for key, low in (("batch", 1), ("games_max", 1), ("finalists", 1), ("confirm_games", 2), ("bootstrap", 50),
                     ("iterations", 1), ("neighbours", 1)):
        value = search[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= cfg.MAX_GAMES:
            raise cfg.ConfigError(f"{key} = {value!r} is not allowed; allowed: an integer from {low} to "
                                  f"{cfg.MAX_GAMES}")
    if isinstance(search["explore"], bool) or not isinstance(search["explore"], (int, float)) or \
            not 0 <= search["explore"] <= 100:
        raise cfg.ConfigError(f"[search] explore = {search['explore']!r} is not allowed; allowed: a number from "
                              "0 to 100")
    if isinstance(search["alpha"], bool) or not isinstance(search["alpha"], (int, float)) or \
            not 0 <= search["alpha"] < 0.5:
        raise cfg.ConfigError(f"[search] alpha = {search['alpha']!r} is not allowed; allowed: from 0 (drop nothing: "
                              "an exhaustive sweep on the same games) to below 0.5")
    if search["method"] == "race" and search["games_max"] < search["batch"]:
        where = "--games-max" if games_max is not None else "[search] games_max"
        raise cfg.ConfigError(f"{where} = {search['games_max']:,} is smaller than batch = {search['batch']:,}; "
                              "allowed: games_max of at least one batch")
    return search


def load(path, games_max=None, seed=None):
    """Read and validate a tune file: every candidate is resolved before anything is played. ``games_max``
    and ``seed`` override the file's."""
    path = Path(path)
    text = cfg.read_text(path, "tune file")
    table = cfg.parse_toml(text, path, "tune file")
    if seed is not None:
        table["seed"] = seed
    for key in table:
        if key not in TUNE_KEYS:
            raise cfg.unknown("tune file key", key, TUNE_KEYS)
    space = _space(table.get("space"))
    search = _search(table.get("search", {}), games_max)
    base = {k: v for k, v in table.items() if k in cfg.TOP_KEYS and k != "games"}
    count = math.prod(len(v) for v in space.values())
    limit = MAX_CANDIDATES[search["method"]]
    if count > limit:
        raise cfg.ConfigError(f"[space] has {count:,} candidates; allowed: at most {limit:,} with method = "
                              f"{search['method']!r}" + (" (ntbea samples larger spaces)" if limit < 10**6 else ""))
    for name, values in space.items():                  # each value on its own: unknown names, bad values
        for value in values:
            try:
                cfg.resolve(table.get("game"), base, sets=[(name, value)])
            except cfg.ConfigError as e:
                raise cfg.ConfigError(f"[space] {name} = {value!r}: {e}") from None
    candidates = Candidates(table.get("game"), base, space, search["batch"])
    if search["method"] == "race":
        for i in range(len(candidates)):                # every combination, before anything is played
            candidates[i]
    players = {candidates[i].config.players for i in range(len(candidates))} if search["method"] == "race" \
        else {candidates[0].config.players}
    if len(players) != 1:
        raise cfg.ConfigError("[space] changes the number of players; allowed: candidates of one player count")
    columns = [n for n in results.schema(candidates[0].config).names if n not in ("game", "variant")]
    objective = parse_objective(table.get("objective"), columns, players.pop())
    if search["confirm_seed"] is None:
        search["confirm_seed"] = candidates[0].config.seed + 1
    return Plan(path, candidates[0].config.game, candidates, objective, search, text)


class Candidates:
    """The candidates of a space, every combination of its values in order, resolved when first asked for
    (a space for NTBEA may be too large to resolve up front)."""

    def __init__(self, game, base, space, games):
        self.game, self.base, self.space, self.games = game, base, space, games
        self.shape = tuple(len(v) for v in space.values())
        self.resolved = {}

    def __len__(self):
        return math.prod(self.shape)

    def point(self, index):
        return tuple(int(i) for i in np.unravel_index(index, self.shape))

    def index(self, point):
        return int(np.ravel_multi_index(point, self.shape))

    def __getitem__(self, index):
        if index not in self.resolved:
            overrides = {name: values[i] for (name, values), i in zip(self.space.items(), self.point(index),
                                                                         strict=True)}
            name = sweep.derived_name(overrides)
            try:
                run = cfg.resolve(self.game, self.base, sets=list(overrides.items()), games=self.games, variant=name)
            except cfg.ConfigError as e:
                raise cfg.ConfigError(f"[space] candidate {name}: {e}") from None
            self.resolved[index] = sweep.Variant(name, overrides, run)
        return self.resolved[index]

    def __iter__(self):
        return (self[i] for i in range(len(self)))


# --- racing ----------------------------------------------------------------------------------------------


@dataclass
class Race:
    """The state of a race: every candidate's games so far (one row per game, the objective's columns)."""

    n: int
    data: dict = field(default_factory=dict)         # candidate -> list of (games, columns) blocks
    alive: list = field(default_factory=list)
    dropped_at: dict = field(default_factory=dict)    # candidate -> games played when dropped
    history: list = field(default_factory=list)       # per batch: (games, {candidate: (estimate, low, high)})
    spent: int = 0

    def __post_init__(self):
        self.alive = list(range(self.n))
        self.data = {c: [] for c in self.alive}

    def games(self, candidate):
        return sum(block.shape[0] for block in self.data.get(candidate, ()))

    def matrix(self, candidate):
        return np.concatenate(self.data[candidate])


def poisson_weights(rng, draws, games):
    """Poisson(1) bootstrap weights: one resample of the games per row, shared by every candidate."""
    return rng.poisson(1.0, size=(draws, games)).astype(np.float64)


def bootstrap_means(matrix, weights):
    """The column means of one candidate's games on each bootstrap resample (rows of ``weights``)."""
    return (weights @ matrix) / np.maximum(weights.sum(axis=1, keepdims=True), 1.0)


def bootstrap_values(objective, matrix, weights):
    """The objective on each bootstrap resample (rows of ``weights``) of one candidate's games."""
    return objective.value(bootstrap_means(matrix, weights))


def eliminate(race, objective, alpha, draws, seed, step):
    """Drop every candidate significantly worse than the leader (paired bootstrap over the shared games,
    Holm-adjusted one-sided p-values). Deterministic in (seed, step), so a resumed race drops the same."""
    from analyses.paired import holm

    games = race.games(race.alive[0])
    matrices = {c: race.matrix(c) for c in race.alive}
    estimates = {c: float(objective.value(matrices[c].mean(axis=0))) for c in race.alive}
    weights = poisson_weights(np.random.default_rng([seed, step]), draws, games)
    boot = {c: bootstrap_values(objective, matrices[c], weights) for c in race.alive}
    leader = min(race.alive, key=lambda c: (estimates[c], c))
    intervals = {c: (estimates[c], *np.quantile(boot[c], [0.025, 0.975])) for c in race.alive}
    race.history.append((games, intervals, leader))
    others = [c for c in race.alive if c != leader]
    if not others:
        return
    pvalues = [_worse_pvalue(estimates[c] - estimates[leader], boot[c] - boot[leader]) for c in others]
    adjusted = holm(pvalues)
    for c, p in zip(others, adjusted, strict=True):
        if p < alpha:
            race.alive.remove(c)
            race.dropped_at[c] = games


def _worse_pvalue(difference, resampled):
    """One-sided p-value of "no worse than the leader" from the paired difference and its bootstrap spread
    (normal approximation: a count of resamples could not go below 1 / draws, too coarse for Holm over
    dozens of candidates)."""
    from scipy import stats

    sd = float(np.std(resampled, ddof=1))
    if sd == 0:
        return 0.0 if difference > 0 else 1.0
    return float(stats.norm.sf(difference / sd))


def race(n, evaluate, objective, search, seed, done=(), on_batch=None):
    """Run the race over candidates ``0..n-1``. ``evaluate(candidates, start, games)`` returns one (games,
    columns) matrix per candidate for games ``start..start+games-1``; ``done``: batches already played
    (from a resumed run) as lists of such matrices for the candidates alive then; ``on_batch(step,
    candidates, start, blocks, state)`` after each batch newly played."""
    state = Race(n)
    step = 0
    batch, games_max = search["batch"], search["games_max"]
    while len(state.alive) > 1 and state.games(state.alive[0]) < games_max:
        start = state.games(state.alive[0])
        size = min(batch, games_max - start)
        alive = list(state.alive)
        blocks = done[step] if step < len(done) else evaluate(alive, start, size)
        for c, block in zip(alive, blocks, strict=True):
            state.data[c].append(block)
        state.spent += size * len(alive)
        eliminate(state, objective, search["alpha"], search["bootstrap"], seed, step)
        if on_batch and step >= len(done):
            on_batch(step, alive, start, blocks, state)
        step += 1
    return state


# --- NTBEA -----------------------------------------------------------------------------------------------


class NTupleModel:
    """NTBEA's landscape model (Lucas, Liu and Perez-Liebana 2018): the mean objective and the count of every
    value of each parameter (1-tuples), every pair of values of two parameters (2-tuples) and every whole
    point; a point's estimate is the mean over its tuples."""

    def __init__(self, shape):
        dims = range(len(shape))
        self.tuples = [(d,) for d in dims] + list(itertools.combinations(dims, 2))
        if len(shape) > 2:
            self.tuples.append(tuple(dims))
        self.stats = {t: {} for t in self.tuples}
        self.evaluations = 0

    def add(self, point, value):
        self.evaluations += 1
        for t in self.tuples:
            key = tuple(point[d] for d in t)
            total, count = self.stats[t].get(key, (0.0, 0))
            self.stats[t][key] = (total + value, count + 1)

    def estimate(self, point, explore=0.0):
        """The mean objective over the point's tuples that have data, minus ``explore`` x the mean over all
        its tuples of sqrt(ln(N + 1) / (n + 0.5)): rarely tried values look promising (lower is better)."""
        means, bonuses = [], []
        for t in self.tuples:
            total, count = self.stats[t].get(tuple(point[d] for d in t), (0.0, 0))
            if count:
                means.append(total / count)
            bonuses.append(math.sqrt(math.log(self.evaluations + 1) / (count + 0.5)))
        return (float(np.mean(means)) if means else 0.0) - explore * float(np.mean(bonuses))


def neighbours(rng, point, shape, count):
    """Up to ``count`` distinct mutations of ``point``: each parameter changes with probability 1/dims, at
    least one does, each to another of its values."""
    found = {}
    for _ in range(4 * count):
        if len(found) >= count:
            break
        mutant = list(point)
        changes = [d for d in range(len(shape)) if shape[d] > 1 and rng.random() < 1 / len(shape)]
        movable = [d for d in range(len(shape)) if shape[d] > 1]
        if not changes and movable:
            changes = [movable[rng.integers(len(movable))]]
        for d in changes:
            mutant[d] = int((point[d] + 1 + rng.integers(shape[d] - 1)) % shape[d])
        if tuple(mutant) != tuple(point):
            found.setdefault(tuple(mutant), None)
    return list(found)


def ntbea(candidates, evaluate, objective, search, seed, done=(), on_batch=None):
    """NTBEA over the candidates' grid: ``iterations`` evaluations of one candidate on ``batch`` fresh games
    each (evaluation t plays games t x batch ...), the next candidate the neighbour of the current one with
    the best optimistic estimate. Returns a :class:`Race` whose ``alive`` are the ``finalists`` evaluated
    candidates with the best model estimates."""
    rng = np.random.default_rng([seed, 7])
    shape = candidates.shape
    model = NTupleModel(shape)
    state = Race(0)                        # no race: its data, spent and history, the finalists as alive
    point = tuple(int(rng.integers(n)) for n in shape)
    batch = search["batch"]
    for step in range(search["iterations"]):
        c = candidates.index(point)
        blocks = done[step] if step < len(done) else evaluate([c], step * batch, batch)
        state.data.setdefault(c, []).append(blocks[0])
        state.spent += batch
        value = float(objective.value(blocks[0].mean(axis=0)))
        model.add(point, value)
        estimates = {e: model.estimate(candidates.point(e)) for e in state.data}
        state.history.append((state.spent, {e: (v, v, v) for e, v in estimates.items()}, c))
        if on_batch and step >= len(done):
            on_batch(step, [c], step * batch, blocks, state)
        options = neighbours(rng, point, shape, search["neighbours"]) or [point]
        scores = [model.estimate(o, search["explore"]) for o in options]
        best = min(scores)
        ties = [o for o, v in zip(options, scores, strict=True) if v == best]
        point = ties[int(rng.integers(len(ties)))]
    final = state.history[-1][1]
    state.alive = sorted(final, key=lambda e: (final[e][0], e))[:search["finalists"]]
    return state


# --- confirmation ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Confirmed:
    candidate: int
    value: float
    low: float
    high: float
    terms: dict               # name -> (value, low, high)


def confirm(candidates, matrices, objective, draws, seed):
    """Each finalist's objective and terms with 95% bootstrap intervals on its fresh games, best first."""
    games = matrices[0].shape[0]
    weights = poisson_weights(np.random.default_rng([seed, 1 << 20]), draws, games)
    rows = []
    for c, matrix in zip(candidates, matrices, strict=True):
        point = objective.term_values(matrix.mean(axis=0))
        boot = objective.term_values(bootstrap_means(matrix, weights))
        terms = {name: (float(point[name]), *map(float, np.quantile(v, [0.025, 0.975]))) for name, v in boot.items()}
        total = sum(boot.values())
        rows.append(Confirmed(c, float(sum(point.values())), *map(float, np.quantile(total, [0.025, 0.975])),
                              terms))
    return sorted(rows, key=lambda r: (r.value, r.candidate))


def winners(confirmed):
    """The best alone when its interval does not overlap the runner-up's, else every finalist whose interval
    overlaps the best's (the tied set)."""
    best = confirmed[0]
    tied = [r for r in confirmed if r.low <= best.high]
    return tied if len(tied) > 1 else [best]


# --- running a tune file: files, resume --------------------------------------------------------------------


def _write_table(path, table):
    writing.write_atomic(path, lambda tmp: pq.write_table(table, tmp))


def batch_table(plan, candidates, start, blocks):
    """A batch as Parquet rows: candidate, game_index and the objective's columns."""
    columns = plan.objective.columns
    n = blocks[0].shape[0]
    data = {"candidate": pa.array(np.repeat([plan.candidates[c].name for c in candidates], n)),
            "candidate_index": pa.array(np.repeat(np.asarray(candidates, np.int64), n)),
            "game_index": pa.array(np.tile(np.arange(start, start + n), len(candidates)))}
    stacked = np.concatenate(blocks)
    for i, name in enumerate(columns):
        data[name] = pa.array(stacked[:, i])
    return pa.table(data)


def table_blocks(plan, table):
    """The blocks of a batch file, per candidate in file order: (candidate indices, matrices)."""
    index = table["candidate_index"].to_numpy()
    order = list(dict.fromkeys(index.tolist()))
    matrix = np.column_stack([table[c].to_numpy().astype(np.float64) for c in plan.objective.columns])
    return order, [matrix[index == c] for c in order]


def evaluator(plan, executor, seed):
    """evaluate(candidates, start, games) -> per candidate the (games, columns) matrix, played by ``executor``
    (its results are the rows of ``simcore run`` of each candidate's config)."""
    from simcore.executors import LocalExecutor

    executor = executor or LocalExecutor()
    columns = plan.objective.columns

    def evaluate(candidates, start, games):
        configs = [_with(plan.candidates[c].config, games, seed) for c in candidates]
        for config in configs:
            executor.prepare(config, start)
        out = []
        for config in configs:
            parts = [results.table(config, first, rows) for first, rows in executor.blocks(config, start)]
            table = pa.concat_tables(parts)
            out.append(np.column_stack([table[c].to_numpy().astype(np.float64) for c in columns]))
        return out
    return evaluate


def _with(config, games, seed):
    return dataclasses.replace(config, games=games, seed=seed)


@dataclass
class TuneResult:
    plan: Plan
    race: Race
    confirmed: list
    best: list


def run(plan, folder, executor=None, on_batch=None):
    """Race, confirm and report into ``folder``; a re-run keeps every finished batch whose file is intact.
    The folder is locked while it runs. A space of one candidate has nothing to race: it is confirmed."""
    folder = sweep.open_folder(folder, "tune", plan.game)
    with writing.Lock(folder):
        writing.remove_stale(folder)
        return _run(plan, folder, executor, on_batch)


def _run(plan, folder, executor, on_batch):
    manifest = _read_manifest(folder, plan)
    done = []
    for entry in manifest["batches"]:
        path = folder / entry["file"]
        if not path.is_file() or writing.sha256(path) != entry["sha256"]:
            break
        done.append(table_blocks(plan, pq.read_table(path))[1])
    manifest["batches"] = manifest["batches"][:len(done)]
    seed = plan.candidates[0].config.seed

    def keep(step, alive, first, blocks, state):
        name = f"batch-{step:04d}.parquet"
        _write_table(folder / name, batch_table(plan, alive, first, blocks))
        manifest["batches"].append({"file": name, "sha256": writing.sha256(folder / name), "candidates": len(alive)})
        sweep.write_manifest(folder, manifest)
        if on_batch:
            on_batch(step, alive, state)

    if len(plan.candidates) == 1:
        state = Race(1)
    elif plan.search["method"] == "ntbea":
        state = ntbea(plan.candidates, evaluator(plan, executor, seed), plan.objective, plan.search, seed, done,
                      keep)
    else:
        state = race(len(plan.candidates), evaluator(plan, executor, seed), plan.objective, plan.search, seed,
                     done, keep)
    last = state.history[-1][1] if state.history else {}
    finalists = sorted(state.alive, key=lambda c: (last[c][0], c) if last else c)[:plan.search["finalists"]]
    confirm_seed = plan.search["confirm_seed"]
    path = folder / "confirm.parquet"
    entry = manifest.get("confirm")
    if entry and path.is_file() and writing.sha256(path) == entry["sha256"] and entry["finalists"] == finalists:
        _, matrices = table_blocks(plan, pq.read_table(path))
    else:
        matrices = evaluator(plan, executor, confirm_seed)(finalists, 0, plan.search["confirm_games"])
        _write_table(path, batch_table(plan, finalists, 0, matrices))
        manifest["confirm"] = {"file": path.name, "sha256": writing.sha256(path), "finalists": finalists}
        sweep.write_manifest(folder, manifest)
    confirmed = confirm(finalists, matrices, plan.objective, plan.search["bootstrap"], confirm_seed)
    result = TuneResult(plan, state, confirmed, winners(confirmed))
    from simcore import tune_report
    tune_report.write(result, folder)
    return result


def _read_manifest(folder, plan):
    """The folder's manifest if it is of this tune file and seed (its batches can be kept), else a fresh one."""
    seed = plan.candidates[0].config.seed
    fresh = {"simcore_version": __version__, "kind": "tune", "game": plan.game, "tune": str(plan.path),
             "plan": plan.text, "seed": seed, "batches": []}
    try:
        manifest = json.loads((folder / sweep.MANIFEST).read_text())
    except (OSError, ValueError):
        return fresh
    if not isinstance(manifest, dict) or manifest.get("plan") != plan.text or \
            manifest.get("seed", seed) != seed or not isinstance(manifest.get("batches"), list):
        return fresh
    return {**fresh, **manifest, "kind": "tune", "game": plan.game, "seed": seed}
