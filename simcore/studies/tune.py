"""Auto-balance: search rule parameters for the fairest variant (``simcore tune``).

A tune file is a config (``game``, ``seed``, ``[policies]``, base ``[params]``) plus:

``[space]``      parameters to search, each a list of values or an integer range ``{low = 0, high = 4}``;
                 the candidates are every combination.
``[objective]``  what "good" means, terms that add up (lower is better):
                 ``gap = W``: W x the seat gap, the highest seat's mean points minus the lowest's, where a game
                 gives a seat 1 point for a win, 1/k of a k-way shared win, 0 for a loss and 1/players when
                 nobody wins (:func:`analyses.scoring.points`): a tie, a timeout or a team's shared win is not
                 an imbalance, and a fair game has a gap of 0;
                 ``timeout = {max = M, weight = W}``: W x how far the timeout share exceeds M;
                 ``mean_turns`` (the column ``n_turns``) or any result column: ``{target = [LOW, HIGH],
                 weight = W}`` or just ``[LOW, HIGH]`` (weight 1), W x how far the column's mean lies
                 outside [LOW, HIGH].
``[search]``     ``method = "race"``, ``batch`` (games per candidate per step), ``games_max`` (per
                 candidate), ``alpha`` (the race's error; 0: drop nothing, an exhaustive sweep on the same
                 games), ``finalists``, ``confirm_games``, ``confirm_seed``, ``bootstrap`` (resamples of the
                 confirmation's paired test); ``method = "ntbea"`` with ``iterations``, ``neighbours`` and
                 ``explore``.

The objective reads *means*: each seat's points share, the timeout share, a column's mean. The batch files
keep the result columns (``win_i``, ...); the points are derived from the ``win_i`` when a batch is read.

Scored by the margin (``--score margin``, a game that declares one: ``GameType.margin``), the ``gap`` term reads
each seat's mean margin instead, its score less the table's mean score (:func:`analyses.scoring.margins`, in the
game's unit, fair 0), derived from the ``score_i`` the batch files keep; the confirmation's edges, imbalance,
*unbalanced* and *fair within E* read the margins against 0, and the chi-square test of equal shares of single
winners, which counts wins, is left out. A margin has no default E (``--margin E``, in the game's unit): without
one each finalist says which edges its games rule out. The score is recorded in the manifest, so that a folder
raced by one score is never resumed by the other.

Racing: every candidate still in the race plays the same games (seed, game indices) in batches. At every look
(after each batch) each candidate gets an interval for each of the M means its objective reads, of two-sided
level 1 - delta with delta = alpha / (K T M) (K candidates, T = ceil(games_max / batch) planned looks):
Clopper-Pearson bounds at the fractional count for means of [0, 1]-valued games (points, bool columns), a
Student t interval for other columns. Interval arithmetic over the terms gives each candidate's objective an
interval, and a candidate whose lower bound is above the smallest upper bound among those racing is dropped.
By the union bound every interval of every look holds at once with probability at least 1 - alpha; then each
dropped candidate is truly worse than one still racing (hence than a survivor) and the truly best is never
dropped. So the chance that the race ever drops a candidate that is not worse is at most alpha, over all looks
and candidates. The drops depend only on the games, so a resumed race drops the same. The race ends when one
candidate is left or every survivor has played ``games_max``.

Confirmation: the best ``finalists`` survivors (by the race's last estimate; NTBEA: by its model) play
``confirm_games`` fresh games (``confirm_seed``). Each finalist's means get intervals simultaneous at
1 - LEVEL over every finalist and mean (Bonferroni), its objective and terms their intervals by the same
interval arithmetic, each seat its signed edge (points share - 1/players) and the chi-square test of equal
shares among the decisive games' single winners. One function, :func:`rank`, names the winner: the *fairest* is
the finalist with the lowest objective on the confirmation games (the race's pick on a tie), and every other
finalist is compared with it on those shared games (paired: the same seeds): a one-sided paired bootstrap p-value
of "its objective minus the fairest's <= 0", Holm-adjusted across the other finalists; one with an adjusted p
below LEVEL is *less fair than the fairest*, any other *tied for fairest*. As the fairest is chosen on the same
games, the error the test holds is of the truly fairest finalist: the chance that it is called less fair is at
most LEVEL (for each truly fairest one when several are equal; tests/test_calibration_tune.py), so the fairest
and the tied hold it at least 1 - LEVEL of the time. The race's pick (its first finalist) is said apart when it
is not the fairest. On the same games each finalist is also called *unbalanced* or not
(:func:`unbalanced_pvalues`, Holm across the finalists), and its imbalance compared with the race's pick's,
chosen on games independent of these (:func:`finalist_fairness`): when every finalist is unbalanced, the report
says first that no candidate is fair, and names the fairest. Each finalist's rank is a
``analyses.claims.Claim`` (:func:`rank_claims`), which the terminal, the report and ``--json`` render.
"""

import dataclasses
import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from analyses.balance import common_teams, equal_shares_test
from analyses.claims import BALANCE, RANK, WITHIN, Claim
from analyses.fairer import DEFAULT_MARGIN, fair_within, fairer_verdict, imbalance_change
from analyses.fairer import _fair as fairer_fair
from analyses.fairer import _units as fairer_units
from analyses.paired import holm
from analyses.scoring import MARGIN_RULE, check_score, margins, points
from analyses.seat_change import gap_bounds
from analyses.sequential import look_pvalues, moments
from simcore import __version__
from simcore.io import config as cfg
from simcore.io import results, writing
from simcore.io.manifest import read_file
from simcore.studies import sweep

TUNE_KEYS = cfg.TOP_KEYS + ("space", "objective", "search")
SEARCH = {"method": "race", "batch": 1000, "games_max": 20_000, "alpha": 0.05, "finalists": 5,
          "confirm_games": 20_000, "confirm_seed": None, "bootstrap": 2000,
          "iterations": 200, "neighbours": 50, "explore": 0.1}
METHODS = ("race", "ntbea")
MAX_CANDIDATES = {"race": 5000, "ntbea": 1_000_000}
# The confirmation's error: its intervals are simultaneous at 1 - LEVEL, its "worse" claims family-wise at LEVEL.
# The race's intervals with alpha = 0 (which drops nothing) are shown at this level too.
LEVEL = 0.05


# --- the objective ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    """One term of the objective: ``gap`` (of the seats' points shares, or of their mean margins),
    ``timeout`` (with ``high`` its ceiling) or a column's mean with a target interval [low, high]; ``key`` is
    what the tune file calls it (``mean_turns`` for the column ``n_turns``); ``boolean``: the column is a bool
    column (its mean a share); ``margin_unit``: the gap reads margins (``--score margin``) in this unit (the
    game's ``GameType.margin``), "" when it reads points."""

    name: str
    weight: float
    low: float = -math.inf
    high: float = math.inf
    key: str = ""
    boolean: bool = False
    margin_unit: str = ""

    @property
    def unit(self):
        """Its per-game values lie in [0, 1] (points, the timeout flag, a bool column): Clopper-Pearson bounds.
        A margin has no bound: Student t, as other columns."""
        return self.name == "timeout" or (self.name == "gap" and not self.margin_unit) or self.boolean

    def columns(self, players):
        """The per-game values whose means the term reads."""
        if self.name != "gap":
            return [self.name]
        return [f"{'margin' if self.margin_unit else 'points'}_{i}" for i in range(players)]

    def sources(self, players):
        """The result columns those values come from (a seat's points from every seat's win flag, its margin
        from every seat's score)."""
        if self.name != "gap":
            return [self.name]
        return [f"{'score' if self.margin_unit else 'win'}_{i}" for i in range(players)]

    def value(self, means):
        """The term (before its weight) from the means of its columns, vectorised over leading axes."""
        if self.name == "gap":
            return means.max(axis=-1) - means.min(axis=-1)
        return self._distance(means[..., 0])

    def _distance(self, mean):
        return np.maximum(0.0, self.low - mean) + np.maximum(0.0, mean - self.high)

    def bounds(self, low, high):
        """The term's (lower, upper) bounds (before its weight) when each mean lies in [low, high], by interval
        arithmetic, vectorised over leading axes. The gap's lower bound is 0 when the seats' intervals share a
        point, and its upper bound pairs two different seats; a target term is lowest at the point of
        [low, high] nearest its target and highest at one of the ends (it is convex)."""
        if self.name == "gap":
            return gap_bounds(low, high)
        low, high = low[..., 0], high[..., 0]
        lower = np.maximum(0.0, self.low - high) + np.maximum(0.0, low - self.high)
        return lower, np.maximum(self._distance(low), self._distance(high))

    def describe(self):
        if self.name == "gap" and self.margin_unit:
            return (f"{self.weight:g} x the seat gap (highest seat's mean margin - lowest's, in {self.margin_unit}, "
                    f"a margin being {MARGIN_RULE})")
        if self.name == "gap":
            return (f"{self.weight:g} x the seat gap (highest seat's mean points - lowest's; a win scores 1, a "
                    "k-way shared win 1/k, a game nobody wins 1/players per seat)")
        if self.name == "timeout":
            return f"{self.weight:g} x timeout share above {self.high:g}"
        return f"{self.weight:g} x distance of mean {self.name} from [{self.low:g}, {self.high:g}]"


@dataclass(frozen=True)
class Objective:
    terms: tuple
    players: int

    @property
    def columns(self):
        """The per-game values the terms read, in a fixed order (the columns of a candidate's matrices)."""
        return list(dict.fromkeys(c for t in self.terms for c in t.columns(self.players)))

    @property
    def sources(self):
        """The result columns those values come from, in a fixed order (the columns of the batch files)."""
        return list(dict.fromkeys(c for t in self.terms for c in t.sources(self.players)))

    @property
    def unit(self):
        """Per column of :attr:`columns`: are its values in [0, 1]?"""
        unit = {c: t.unit for t in self.terms for c in t.columns(self.players)}
        return np.array([unit[c] for c in self.columns])

    @property
    def seats(self):
        """The indices in :attr:`columns` of the seats' points or margins (empty when no term reads the seats)."""
        return [i for i, c in enumerate(self.columns) if c.startswith(("points_", "margin_"))]

    @property
    def margin_unit(self):
        """The unit of the margins the gap reads (``--score margin``), "" when it reads points or there is none."""
        return next((t.margin_unit for t in self.terms if t.name == "gap"), "")

    @property
    def total(self):
        """What a game hands out over the seats the gap reads: 1 point, or margins adding up to 0."""
        return 0.0 if self.margin_unit else 1.0

    def values(self, raw):
        """A (games, :attr:`sources`) matrix of result columns -> the (games, :attr:`columns`) per-game values."""
        index = {c: i for i, c in enumerate(self.sources)}
        derived = {}
        if self.seats:
            kind, source, score = ("margin", "score", margins) if self.margin_unit else ("points", "win", points)
            seat_values = score(raw[:, [index[f"{source}_{i}"] for i in range(self.players)]])
            derived = {f"{kind}_{i}": seat_values[:, i] for i in range(self.players)}
        return np.column_stack([derived[c] if c in derived else raw[:, index[c]] for c in self.columns])

    def _split(self, per_column):
        """Per term, its columns' part of ``per_column`` (last axis: :attr:`columns`)."""
        index = {c: i for i, c in enumerate(self.columns)}
        return [(t, per_column[..., [index[c] for c in t.columns(self.players)]]) for t in self.terms]

    def term_values(self, means):
        """{term name: weighted value} from the means of :attr:`columns` (last axis)."""
        return {t.name: t.weight * t.value(m) for t, m in self._split(means)}

    def value(self, means):
        return sum(self.term_values(means).values())

    def term_bounds(self, low, high):
        """{term name: weighted (lower, upper)} when each mean of :attr:`columns` lies in [low, high]."""
        return {t.name: tuple(t.weight * b for b in t.bounds(lo, hi))
                for (t, lo), (_, hi) in zip(self._split(low), self._split(high), strict=True)}

    def bounds(self, low, high):
        """The objective's (lower, upper) bounds: the weights are positive, so the sums of the terms'."""
        terms = self.term_bounds(low, high).values()
        return sum(lo for lo, _ in terms), sum(hi for _, hi in terms)


def _number(where, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise cfg.ConfigError(f"{where} = {value!r} is not allowed; allowed: a finite number")
    return float(value)


MAX_WEIGHT = 1e6      # a weight of 1e308 made the sums inf and the comparisons nan: a "best" chosen on nan


def _weight(name, spec):
    weight = _number(f"[objective] {name} weight", spec.get("weight", 1.0) if isinstance(spec, dict) else spec)
    if not 0 < weight <= MAX_WEIGHT:
        raise cfg.ConfigError(f"[objective] {name} weight = {weight:g} is not allowed; allowed: above 0, at most "
                              f"{MAX_WEIGHT:g}")
    return weight


OBJECTIVE_FORMS = "gap = W, timeout = {max = M, weight = W}, COLUMN = {target = [LOW, HIGH], weight = W}"


def parse_objective(table, columns, players, booleans=(), margin_unit=""):
    """The ``[objective]`` table -> :class:`Objective`; ``columns``: the result columns a target may name,
    ``booleans`` those of them that are bool columns; ``margin_unit``: the gap reads margins in this unit
    (``--score margin``), "" for points."""
    if not isinstance(table, dict) or not table:
        raise cfg.ConfigError(f"[objective] is empty; allowed: {OBJECTIVE_FORMS}")
    terms = []
    for key, spec in table.items():
        keys = set(spec) if isinstance(spec, dict) else set()
        if key == "balance":
            raise cfg.ConfigError("[objective] balance is now called gap (the largest gap between two seats' "
                                  "points shares); allowed: gap = W")
        if key == "gap":
            if keys - {"weight"}:
                raise cfg.ConfigError(f"[objective] gap has {sorted(keys - {'weight'})}; allowed: weight")
            terms.append(Term("gap", _weight(key, spec), key=key, margin_unit=margin_unit))
        elif key == "timeout":
            if not isinstance(spec, dict) or "max" not in spec or keys - {"max", "weight"}:
                raise cfg.ConfigError("[objective] timeout is not allowed; allowed: {max = M, weight = W}")
            ceiling = _number("[objective] timeout max", spec["max"])
            if not 0 <= ceiling <= 1:
                raise cfg.ConfigError(f"[objective] timeout max = {ceiling:g} is not allowed; allowed: a share "
                                      "from 0 to 1")
            terms.append(Term("timeout", _weight(key, spec), high=ceiling, key=key))
        else:
            terms.append(_target_term(key, spec, columns, booleans))
    if margin_unit and not any(t.name == "gap" for t in terms):
        raise cfg.ConfigError("--score margin scores the seats' gap, and [objective] has no gap term; allowed: "
                              "gap = W in [objective], or --score points")
    return Objective(tuple(terms), players)


def _target_term(key, spec, columns, booleans):
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
    return Term(name, _weight(key, spec), low, high, key=key, boolean=name in booleans)


# --- the tune file ---------------------------------------------------------------------------------------


@dataclass
class Plan:
    path: Path
    game: str
    candidates: list          # sweep.Variant: name, overrides, resolved config
    objective: Objective
    search: dict
    text: str = field(repr=False, default="")   # the tune file, for the manifest
    margin: float = DEFAULT_MARGIN              # the confirmation's "fair within E"; nan: none (margins' default)

    @property
    def players(self):
        return self.candidates[0].config.players

    @property
    def score(self):
        """What the gap reads: "points", or "margin" (``--score margin``)."""
        return "margin" if self.objective.margin_unit else "points"


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


def _check_fixed(params, space):
    """ConfigError in one line when ``[params]`` fixes a parameter that ``[space]`` searches: every candidate
    took the space's value, and the fixed one was dropped without a word."""
    twice = [name for name in _flatten_space(params) if name in space] if isinstance(params, dict) else []
    if twice:
        raise cfg.ConfigError(f"[params] {twice[0]} is searched by [space] too, which sets it for every candidate; "
                              "allowed: a parameter in [params] or in [space], not both")


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
        twice = [v for k, v in enumerate(values) if v in values[:k]]
        if twice:       # two equal candidates would be raced against each other, and tie
            raise cfg.ConfigError(f"[space] {name} lists {twice[0]!r} twice; allowed: distinct values")
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
    seed = search["confirm_seed"]
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= cfg.MAX_SEED):
        raise cfg.ConfigError(f"[search] confirm_seed = {seed!r} is not allowed; allowed: an integer from 0 to "
                              f"{cfg.MAX_SEED}")
    if isinstance(search["explore"], bool) or not isinstance(search["explore"], (int, float)) or \
            not 0 <= search["explore"] <= 100:
        raise cfg.ConfigError(f"[search] explore = {search['explore']!r} is not allowed; allowed: a number from "
                              "0 to 100")
    if isinstance(search["alpha"], bool) or not isinstance(search["alpha"], (int, float)) or \
            not 0 <= search["alpha"] < 0.5:
        raise cfg.ConfigError(f"[search] alpha = {search['alpha']!r} is not allowed; allowed: from 0 (drop nothing: "
                              "an exhaustive sweep on the same games) to below 0.5")
    if (search["finalists"] - 1) / (search["bootstrap"] + 1) >= LEVEL:
        raise cfg.ConfigError(f"[search] bootstrap = {search['bootstrap']:,} is too few for finalists = "
                              f"{search['finalists']:,}: no finalist could be shown less fair than the fairest; "
                              f"allowed: bootstrap of at least {math.ceil((search['finalists'] - 1) / LEVEL):,}")
    if search["method"] == "race" and search["games_max"] < search["batch"]:
        where = "--games-max" if games_max is not None else "[search] games_max"
        raise cfg.ConfigError(f"{where} = {search['games_max']:,} is smaller than batch = {search['batch']:,}; "
                              "allowed: games_max of at least one batch")
    return search


def fair_margin(score, margin):
    """The confirmation's E of "fair within E" (``--margin``): a share of the points, 0.02 by default; with
    margins, in the game's unit and without a default (nan: each finalist says which edges its games rule out
    instead, as ``simcore analyze --score margin`` does). ConfigError in one line for a value not allowed."""
    if margin is None:
        return DEFAULT_MARGIN if score == "points" else math.nan
    if score == "points" and not 0 < margin < 1:
        raise cfg.ConfigError(f"--margin {margin:g} is not a share; allowed: 0 < E < 1, e.g. 0.02")
    if not 0 < margin < math.inf:
        raise cfg.ConfigError(f"--margin {margin:g} is not a margin; allowed: E > 0 in the game's unit, e.g. 0.5")
    return float(margin)


def load(path, games_max=None, seed=None, score="points", margin=None):
    """Read and validate a tune file: every candidate is resolved before anything is played. ``games_max``
    and ``seed`` override the file's; ``score``: what the gap reads (``analyses.scoring.SCORES``: margins only
    of a game that declares one); ``margin``: the confirmation's E of "fair within E" (:func:`fair_margin`)."""
    margin = fair_margin(score, margin)
    path = Path(path)
    text = cfg.read_text(path, "tune file")
    table = cfg.parse_toml(text, path, "tune file")
    if seed is not None:
        table["seed"] = seed
    for key in table:
        if key not in TUNE_KEYS:
            raise cfg.unknown("tune file key", key, TUNE_KEYS)
    space = _space(table.get("space"))
    _check_fixed(table.get("params"), space)
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
    schema = results.present(candidates[0].config)      # not the seats the candidates do not have
    numeric = (pa.types.is_boolean, pa.types.is_integer, pa.types.is_floating)    # a label has no mean
    columns = [f.name for f in schema if f.name not in ("game", "variant") and any(t(f.type) for t in numeric)]
    booleans = [f.name for f in schema if pa.types.is_boolean(f.type)]
    margin_unit = candidates[0].config.module.GAME.margin
    try:
        check_score(score, candidates[0].config.game, margin_unit)
    except ValueError as e:
        raise cfg.ConfigError(str(e)) from None
    objective = parse_objective(table.get("objective"), columns, players.pop(), booleans,
                                margin_unit if score == "margin" else "")
    if search["confirm_seed"] is None:
        if candidates[0].config.seed >= cfg.MAX_SEED:     # found only after the whole race, as an OverflowError
            raise cfg.ConfigError(f"seed {cfg.MAX_SEED} is not allowed for a tune: its confirmation plays seed + 1; "
                                  f"allowed: 0 to {cfg.MAX_SEED - 1}, or [search] confirm_seed")
        search["confirm_seed"] = candidates[0].config.seed + 1
    return Plan(path, candidates[0].config.game, candidates, objective, search, text, margin)


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


# --- intervals of means ----------------------------------------------------------------------------------


def unit_bounds(sums, counts, delta):
    """Clopper-Pearson bounds of the means of [0, 1]-valued games from their ``sums`` (the count of successes,
    fractional for points) and ``counts`` (broadcast against ``sums``), vectorised: each two-sided interval
    misses the true mean with probability at most ``delta``. Exact, and conservative, for 0/1 values; for other
    values in [0, 1] (points) conservative in the calibration tests, as such a game's variance is at most the
    0/1 game's of the same mean."""
    from scipy import stats

    counts = np.broadcast_to(np.asarray(counts, np.float64), np.shape(sums))
    k = np.clip(sums, 0.0, counts)
    # beta's parameters must be positive: where a bound is 0 or 1 outright, a placeholder of 1 stands in
    low = np.where(k > 0, stats.beta.ppf(delta / 2, np.where(k > 0, k, 1.0), counts - k + 1), 0.0)
    high = np.where(k < counts, stats.beta.ppf(1 - delta / 2, k + 1, np.where(k < counts, counts - k, 1.0)), 1.0)
    return low, high


def t_bounds(sums, squares, counts, delta):
    """Student t bounds of means from the games' ``sums``, sums of ``squares`` and ``counts`` (broadcast against
    ``sums``), vectorised, each two-sided interval of level 1 - ``delta``; unbounded below two games."""
    from scipy import stats

    counts = np.broadcast_to(np.asarray(counts, np.float64), np.shape(sums))
    mean = sums / counts
    spread = np.sqrt(np.maximum(squares - sums * mean, 0.0) / np.maximum(counts - 1, 1) / counts)
    quantile = stats.t.ppf(1 - delta / 2, np.maximum(counts - 1, 1))
    # a spread of 0 (every game alike) gives a point even where the quantile is infinite (delta = 0)
    half = np.where(counts >= 2, np.where(spread > 0, quantile * spread, 0.0), np.inf)
    return mean - half, mean + half


def mean_bounds(sums, squares, counts, delta, unit):
    """Each mean's two-sided (1 - ``delta``) bounds: :func:`unit_bounds` for the columns where ``unit`` (a bool
    per column, the last axis), :func:`t_bounds` for the others."""
    sums, squares = np.asarray(sums, np.float64), np.asarray(squares, np.float64)
    counts = np.broadcast_to(np.asarray(counts, np.float64), sums.shape)
    low, high = np.empty_like(sums), np.empty_like(sums)
    low[..., unit], high[..., unit] = unit_bounds(sums[..., unit], counts[..., unit], delta)
    low[..., ~unit], high[..., ~unit] = t_bounds(sums[..., ~unit], squares[..., ~unit], counts[..., ~unit], delta)
    return low, high


# --- racing ----------------------------------------------------------------------------------------------


def race_delta(alpha, candidates, looks, means):
    """Each interval's error in a race of ``candidates`` over ``looks`` planned looks with ``means`` means per
    candidate: alpha split evenly (the union bound), so all hold at once with probability >= 1 - alpha."""
    return alpha / (candidates * looks * means)


@dataclass(frozen=True, eq=False)  # eq=False: the fields hold arrays, whose == is elementwise
class Look:
    """One look of the race, per candidate: the objective's ``estimate`` and its ``low`` and ``high`` bounds;
    ``threshold``: the smallest upper bound among the candidates racing; ``dropped``: the racing candidates
    whose lower bound is above it."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    threshold: np.ndarray
    dropped: np.ndarray


def look(objective, sums, squares, counts, alive, delta):
    """One look of the race from each candidate's per-game ``sums`` and sums of ``squares`` of the objective's
    :attr:`~Objective.columns` (..., candidates, columns), its games ``counts`` and whether it is ``alive``
    (..., candidates), each mean's interval of error ``delta``; vectorised over the leading axes (many races at
    once). Returns a :class:`Look`."""
    counts = np.asarray(counts, np.float64)[..., None]
    low, high = mean_bounds(sums, squares, counts, delta, objective.unit)
    lower, upper = objective.bounds(low, high)
    threshold = np.where(alive, upper, np.inf).min(axis=-1)
    return Look(objective.value(sums / counts), lower, upper, threshold, alive & (lower > threshold[..., None]))


@dataclass
class Race:
    """The state of a race: every candidate's games so far as all a look needs, their count and the sums and
    sums of squares of the objective's columns; ``delta``: each mean's interval error at each look."""

    n: int
    data: dict = field(default_factory=dict)         # candidate -> (games, sums, sums of squares)
    alive: list = field(default_factory=list)
    dropped_at: dict = field(default_factory=dict)    # candidate -> games played when dropped
    history: list = field(default_factory=list)       # per batch: (games, {candidate: (estimate, low, high)},
    spent: int = 0                                    # and the race's threshold, or NTBEA's candidate)
    delta: float = math.nan

    def __post_init__(self):
        self.alive = list(range(self.n))

    def add(self, candidate, values):
        """A block of the candidate's games, (games, columns) values."""
        games, sums, squares = self.data.get(candidate, (0, 0.0, 0.0))
        self.data[candidate] = (games + len(values), sums + values.sum(axis=0), squares + (values ** 2).sum(axis=0))

    def games(self, candidate):
        return self.data.get(candidate, (0,))[0]


def eliminate(state, objective, drop):
    """A look at the candidates racing: their objectives' bounds into the history and, if ``drop``, every
    candidate whose lower bound is above the smallest upper bound out of the race."""
    games = state.games(state.alive[0])
    sums, squares = (np.stack([state.data[c][i] for c in state.alive]) for i in (1, 2))
    alive = np.ones(len(state.alive), bool)
    seen = look(objective, sums, squares, np.full(alive.shape, games), alive, state.delta)
    state.history.append((games, {c: (float(seen.estimate[i]), float(seen.low[i]), float(seen.high[i]))
                                  for i, c in enumerate(state.alive)}, float(seen.threshold)))
    if drop:
        for c in [c for c, out in zip(state.alive, seen.dropped, strict=True) if out]:
            state.alive.remove(c)
            state.dropped_at[c] = games


def race(n, evaluate, objective, search, done=(), on_batch=None):
    """Run the race over candidates ``0..n-1``: batches of common games, and after each a :func:`look` that
    drops every candidate whose objective's lower bound is above the smallest upper bound among those racing,
    each mean's interval of error :func:`race_delta` (alpha over candidates, planned looks and means). The
    chance that it ever drops a candidate that is not worse than a survivor is at most alpha (union bound).

    ``evaluate(candidates, start, games)`` returns one (games,
    :attr:`~Objective.sources`) matrix per candidate for games ``start..start+games-1``; ``done``: batches
    already played (from a resumed run), each (candidates, matrices), kept where they are of the candidates
    racing at that step; ``on_batch(step, candidates, start, blocks, state)`` after each batch newly played.
    ``alpha`` = 0 drops nothing (the intervals are those of alpha = LEVEL)."""
    state = Race(n)
    batch, games_max, alpha = search["batch"], search["games_max"], search["alpha"]
    state.delta = race_delta(alpha if alpha > 0 else LEVEL, n, math.ceil(games_max / batch), len(objective.columns))
    step = 0
    while len(state.alive) > 1 and state.games(state.alive[0]) < games_max:
        start = state.games(state.alive[0])
        size = min(batch, games_max - start)
        alive = list(state.alive)
        kept = step < len(done) and list(done[step][0]) == alive
        blocks = done[step][1] if kept else evaluate(alive, start, size)
        for c, block in zip(alive, blocks, strict=True):
            state.add(c, objective.values(block))
        state.spent += size * len(alive)
        eliminate(state, objective, alpha > 0)
        if on_batch and not kept:
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
        kept = step < len(done) and list(done[step][0]) == [c]
        blocks = done[step][1] if kept else evaluate([c], step * batch, batch)
        values = objective.values(blocks[0])
        state.add(c, values)
        state.spent += batch
        value = float(objective.value(values.mean(axis=0)))
        model.add(point, value)
        estimates = {e: model.estimate(candidates.point(e)) for e in state.data}
        state.history.append((state.spent, {e: (v, v, v) for e, v in estimates.items()}, c))
        if on_batch and not kept:
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

# Game indices drawn at once by the bootstrap (32 MB of int64), to bound its memory for long confirmations.
_BATCH_ELEMENTS = 1 << 22


@dataclass(frozen=True, eq=False)  # eq=False: the fields hold arrays, whose == is elementwise
class Confirmed:
    """One finalist on the confirmation games.

    ``value``, ``low``, ``high``: its objective with an interval, and ``terms`` each weighted term's (value,
    low, high), by interval arithmetic from intervals of the means that hold at once with probability
    >= 1 - LEVEL over every finalist and mean (Bonferroni). ``edge``, ``edge_low``, ``edge_high``: per seat its
    points share - 1/players (scored by margins: its mean margin - 0), on those same intervals (empty when the
    objective reads no seats); ``statistic``, ``pvalue``: the chi-square test of equal shares of the
    ``decisive`` games' single winners (nan without any, as in a team game, or without seats; margins count no
    winners: 0 and nan). ``difference``: its objective minus the fairest's on
    the same games; ``p_worse``, ``adjusted``: the paired bootstrap p-value of "not less fair than the fairest"
    and its Holm adjustment (nan for the fairest); ``verdict``: its rank, a word of ``analyses.claims.RANK``
    ("fairest", "tied for fairest", "less fair than the fairest", from :func:`rank`); ``fairness``: whether it is
    fairer than the race's pick and fair within the margin (:class:`FinalistFairness`).
    """

    candidate: int
    games: int
    value: float
    low: float
    high: float
    terms: dict
    edge: np.ndarray
    edge_low: np.ndarray
    edge_high: np.ndarray
    decisive: int
    statistic: float
    pvalue: float
    difference: float
    p_worse: float
    adjusted: float
    verdict: str
    fairness: object = None      # its FinalistFairness, None when the objective reads no seats


@dataclass(frozen=True)
class FinalistFairness:
    """A finalist's fairness on the confirmation games: its imbalance Σ(share - fair)² (bias-corrected);
    against the race's pick (its first finalist, chosen on games independent of these), paired on the shared
    games, "fairer", "less fair" or "no change found" (``analyses.fairer.imbalance_change``, p Holm-adjusted
    across the finalists; None for the pick);
    whether it is shown fair within ``margin`` (``analyses.fairer.fair_within``, Bonferroni across the
    finalists), with the largest distance from fair its intervals leave; and whether it is shown
    *unbalanced*, some seat's (team's) share away from fair (:func:`unbalanced_pvalues`, ``unbalanced_p``
    Holm-adjusted across the finalists). Scored by margins (``unit``: theirs, "" for points) the same of the
    mean margins against a fair 0, the imbalance Σ margin² in ``unit`` squared; ``margin`` nan: no E was given,
    nothing is claimed within, and ``ruled_out`` is what the games rule out."""

    imbalance: float
    against_pick: str | None
    pvalue: float
    margin: float
    within: bool
    ruled_out: float
    unbalanced_p: float
    unit: str = ""

    @property
    def unbalanced(self):
        return self.unbalanced_p < LEVEL


def resampled_means(rng, values, draws):
    """The means of ``values`` (finalists, games, columns) on ``draws`` resamples of the game indices, one
    resample shared by every finalist (their games share seeds: the comparison stays paired): (draws,
    finalists, columns)."""
    finalists, games, columns = values.shape
    flat = values.transpose(1, 0, 2).reshape(games, finalists * columns)
    chunk = max(1, _BATCH_ELEMENTS // games)
    out = []
    for first in range(0, draws, chunk):
        rows = min(chunk, draws - first)
        picks = rng.integers(0, games, size=(rows, games)) + games * np.arange(rows)[:, None]
        counts = np.bincount(picks.ravel(), minlength=rows * games).reshape(rows, games)
        out.append(counts @ flat / games)
    return np.concatenate(out).reshape(draws, finalists, columns)


def simultaneous_bounds(objective, sums, squares, games):
    """Bounds of the means of (..., finalists, columns) from their ``sums`` and sums of ``squares`` over
    ``games`` games each, simultaneous: all hold at once with probability >= 1 - LEVEL (Bonferroni over every
    finalist and column); vectorised over leading axes."""
    finalists, columns = np.shape(sums)[-2:]
    return mean_bounds(sums, squares, games, LEVEL / (finalists * columns), objective.unit)


def less_fair_than(resampled, fairest):
    """From the objective on each resample of the shared games (draws, finalists): per finalist the one-sided
    bootstrap p-value of "its objective - the ``fairest``'s <= 0", (1 + #{resampled difference <= 0}) / (1 +
    draws) (never 0), and its Holm adjustment across the other finalists; nan for the fairest itself."""
    others = np.arange(resampled.shape[1]) != fairest
    differences = resampled[:, others] - resampled[:, [fairest]]
    p = np.full(resampled.shape[1], math.nan)
    adjusted = p.copy()
    p[others] = (1 + (differences <= 0).sum(axis=0)) / (1 + len(resampled))
    adjusted[others] = holm(p[others])
    return p, adjusted


def rank(estimate, resampled):
    """The one decision of tune's winner, from the finalists' objectives on the confirmation games (``estimate``,
    in the race's order) and on each resample of them (draws, finalists): the fairest is the lowest (the race's
    earlier finalist on a tie); every other is "less fair than the fairest" when the paired test
    (:func:`less_fair_than`) shows it at LEVEL, else "tied for fairest". Returns (the fairest's index, p,
    Holm-adjusted p, each finalist's word of ``analyses.claims.RANK``)."""
    fairest = int(np.argmin(estimate))
    p, adjusted = less_fair_than(resampled, fairest)
    words = [RANK[0] if f == fairest else RANK[2] if adjusted[f] < LEVEL else RANK[1] for f in range(len(estimate))]
    return fairest, p, adjusted, words


def decisive_tests(objective, values):
    """Per finalist (``values``: (finalists, games, columns)): its decisive games (a single winner; a seat's
    points are 1 only then) and the chi-square test (statistic, p-value) of equal shares of their winners,
    nan without any (a team game) or without seats. Margins count no winners: 0 games and nan, the seats'
    margins are tested together by :func:`unbalanced_pvalues` instead."""
    if objective.margin_unit:
        return np.zeros(len(values), int), [(math.nan, math.nan)] * len(values)
    single = (values[:, :, objective.seats] == 1).sum(axis=1)
    return single.sum(axis=1), [equal_shares_test(counts) for counts in single]


def finalist_fairness(objective, values, margin):
    """Per finalist (``values``: (finalists, games, columns), the race's pick first): its :class:`FinalistFairness`,
    teams as the unit when every finalist's games show the same teams (:func:`finalist_teams`); [None] *
    finalists without seats. ``margin``: the E of "fair within E", nan for none."""
    finalists, games = values.shape[:2]
    points = values[:, :, objective.seats]      # each seat's points, or its margins
    if not objective.seats or games <= points.shape[2]:
        return [None] * finalists
    teams, total = finalist_teams(objective, points), objective.total
    changes = [imbalance_change(points[0], p, paired=True, teams=teams, total=total) for p in points[1:]]
    adjusted = holm([c.pvalue for c in changes]) if changes else []
    units = np.stack([fairer_units(p, teams)[0] for p in points])
    unbalanced = unbalanced_pvalues(*moments(units, fairer_fair(units.shape[2], teams, points[0], total)), margin)
    given = margin > 0          # nan (margins, no E given): the intervals still say which edges they rule out
    out = []
    for f in range(finalists):
        within = fair_within(points[f], margin if given else math.inf, teams, alpha=LEVEL / finalists, total=total)
        imbalance = changes[0].imbalance_a if f == 0 and changes else (changes[f - 1].imbalance_b if f else math.nan)
        against = None if f == 0 else fairer_verdict(changes[f - 1].estimate, adjusted[f - 1], LEVEL)
        out.append(FinalistFairness(float(imbalance), against, float(adjusted[f - 1]) if f else math.nan, margin,
                                    given and within.shown, within.ruled_out, float(unbalanced[f]),
                                    objective.margin_unit))
    return out


def finalist_teams(objective, points):
    """The teams every finalist's games show alike (``analyses.balance.common_teams``), or None: from the win
    flags (a seat's points are above 0 exactly when it wins or nobody does), or, scored by margins, from the
    scores (team-mates share one score, so their margins agree in every game; each seat's column is turned into
    a flag of its group of equal columns, which ``find_teams`` groups alike)."""
    if not objective.margin_unit:
        return common_teams(*(p > 0 for p in points))
    groups = [np.unique(p.T, axis=0, return_inverse=True)[1].ravel() for p in points]
    return common_teams(*(g[None, :] == np.arange(g.max() + 1)[:, None] for g in groups))


def unbalanced_pvalues(n, d, m, margin):
    """Per finalist, from the :func:`analyses.sequential.moments` of its units' points or margins (the last axis
    before the units': the finalists; vectorised over axes before it), the p-value of "every unit's share is fair",
    Holm-adjusted across the finalists: the
    fair-centred Hotelling's T² of ``analyses.sequential.look_pvalues`` (one test of every seat at once, teams
    as units, valid with shared wins and timeouts, and no resampling). Calling any fair finalist unbalanced
    then has a chance of at most LEVEL, so "every finalist is unbalanced" is wrong at most that often when one
    of them is fair (tests/test_calibration_tune.py)."""
    return np.apply_along_axis(holm, -1, look_pvalues(n, d, m, margin)[0])


def no_fair_finalist(confirmed):
    """Every finalist is shown unbalanced (none of them fair): False without seats or when any is not."""
    fairness = [r.fairness for r in confirmed]
    return all(f is not None and f.unbalanced for f in fairness)


def seat_gap(row):
    """A finalist's seat gap (highest seat's points share, or mean margin, - lowest's) on the confirmation games,
    with its simultaneous interval from the seats' (:class:`Confirmed`): (gap, low, high)."""
    low, high = gap_bounds(row.edge_low, row.edge_high)
    return float(row.edge.max() - row.edge.min()), float(low), float(high)


def confirm(candidates, matrices, objective, draws, seed, margin=DEFAULT_MARGIN):
    """The finalists ``candidates`` (the race's ranking: the first is its pick) on their fresh games
    (``matrices``: (games, sources) each, the same game indices): a :class:`Confirmed` each, ranked by
    :func:`rank`, the fairest first, the others by objective. ``margin``: the E of "fair within E" (nan:
    none)."""
    values = np.stack([objective.values(m) for m in matrices])
    games = values.shape[1]
    sums, squares = values.sum(axis=1), (values ** 2).sum(axis=1)
    low, high = simultaneous_bounds(objective, sums, squares, games)
    means = sums / games
    estimate, terms = objective.value(means), objective.term_values(means)
    lower, upper = objective.bounds(low, high)
    term_bounds = objective.term_bounds(low, high)
    resampled = objective.value(resampled_means(np.random.default_rng([seed, 1 << 20]), values, draws))
    fairest, p_worse, adjusted, words = rank(estimate, resampled)
    decisive, tests = decisive_tests(objective, values)
    seats, fair = objective.seats, objective.total / objective.players
    fairness = finalist_fairness(objective, values, margin)
    rows = []
    for f, c in enumerate(candidates):
        rows.append(Confirmed(
            c, games, float(estimate[f]), float(lower[f]), float(upper[f]),
            {name: (float(terms[name][f]), float(lo[f]), float(hi[f])) for name, (lo, hi) in term_bounds.items()},
            means[f, seats] - fair, low[f, seats] - fair, high[f, seats] - fair, int(decisive[f]), *tests[f],
            float(estimate[f] - estimate[fairest]), float(p_worse[f]), float(adjusted[f]), words[f], fairness[f]))
    return [rows[fairest]] + sorted(rows[:fairest] + rows[fairest + 1:], key=lambda r: (r.value, r.candidate))


def winners(confirmed):
    """The fairest and every finalist tied for fairest with it (not shown less fair by the paired test): the
    fairest alone when every other finalist is less fair."""
    return [r for r in confirmed if r.verdict != RANK[2]]


def rank_claims(result):
    """Each finalist's rank as a claim (``analyses.claims.Claim``), the fairest first: its word from
    :func:`rank`, the paired test on the confirmation games, the family of the other finalists and its numbers
    (objective and interval, its difference from the fairest's, p and Holm-adjusted p; null for the fairest)."""
    confirmed = result.confirmed
    others = len(confirmed) - 1
    family = f"Holm across the {others} other finalist{'s' * (others > 1)}" if others else "none (one finalist)"
    test = ("paired bootstrap on the confirmation games: one-sided, of the objective minus the fairest's (the "
            "lowest objective on these games)")
    return [Claim(result.plan.candidates[r.candidate].name, r.verdict, test, r.games, family, LEVEL,
                  {"objective": r.value, "low": r.low, "high": r.high, "difference": r.difference,
                   "pvalue": r.p_worse, "adjusted_pvalue": r.adjusted})
            for r in confirmed]


def fairness_claims(result):
    """{finalist's name: its fairness claims on the confirmation games}: unbalanced or no edge found (Hotelling's
    T², Holm across the finalists), fair within E or not (only where an E was given; Bonferroni across them),
    and against the race's pick fairer, less fair or no change found (paired, Holm across the others); none
    where the objective reads no seats."""
    rows = [r for r in result.confirmed if r.fairness is not None]
    n, pick = len(rows), result.plan.candidates[result.race_pick].name
    out = {}
    for r in rows:
        f, name = r.fairness, result.plan.candidates[r.candidate].name
        read = "margins against 0" if f.unit else "points against fair shares"
        said = [Claim(name, BALANCE[not f.unbalanced], f"Hotelling's T² of the seats' {read}", r.games,
                      _across(n, "Holm", "finalists"), LEVEL,
                      {"adjusted_pvalue": f.unbalanced_p, "ruled_out": f.ruled_out, "unit": f.unit})]
        if f.margin > 0:
            said.append(Claim(name, WITHIN[not f.within], "equivalence: two one-sided tests per seat that its "
                              "share is within the margin of fair", r.games, _across(n, "Bonferroni", "finalists"),
                              LEVEL, {"margin": f.margin, "ruled_out": f.ruled_out, "unit": f.unit}))
        if f.against_pick is not None:
            imbalance = "Σ margin²" if f.unit else "Σ(share - fair)²"
            said.append(Claim(name, f.against_pick, f"imbalance test: the change of {imbalance}, paired on the "
                              "confirmation games", r.games,
                              _across(n - 1, "Holm", "finalists against the race's pick"), LEVEL,
                              {"imbalance": f.imbalance, "adjusted_pvalue": f.pvalue}, against=pick))
        out[name] = said
    return out


def _across(n, how, what):
    return f"{how} across {n} {what}" if n > 1 else "none (one)"


# --- running a tune file: files, resume --------------------------------------------------------------------


def _write_table(path, table):
    writing.write_atomic(path, lambda tmp: pq.write_table(table, tmp))


def batch_table(plan, candidates, start, blocks):
    """A batch as Parquet rows: candidate, game_index and the result columns the objective reads."""
    columns = plan.objective.sources
    n = blocks[0].shape[0]
    data = {"candidate": pa.array(np.repeat([plan.candidates[c].name for c in candidates], n)),
            "candidate_index": pa.array(np.repeat(np.asarray(candidates, np.int64), n)),
            "game_index": pa.array(np.tile(np.arange(start, start + n), len(candidates)))}
    stacked = np.concatenate(blocks)
    for i, name in enumerate(columns):
        data[name] = pa.array(stacked[:, i])
    return pa.table(data)


def table_blocks(plan, table):
    """The blocks of a batch file, per candidate in file order: (candidate indices, (games, sources)
    matrices)."""
    index = table["candidate_index"].to_numpy()
    order = list(dict.fromkeys(index.tolist()))
    matrix = np.column_stack([table[c].to_numpy().astype(np.float64) for c in plan.objective.sources])
    return order, [matrix[index == c] for c in order]


def evaluator(plan, executor, seed, on_block=None):
    """evaluate(candidates, start, games) -> per candidate the (games, sources) matrix of the result columns
    the objective reads, played by ``executor`` (its results are the rows of ``simcore run`` of each
    candidate's config); ``on_block(games)`` after every block played."""
    from simcore.studies.executors import LocalExecutor

    executor = executor or LocalExecutor()
    columns = plan.objective.sources

    def evaluate(candidates, start, games):
        configs = [_with(plan.candidates[c].config, games, seed) for c in candidates]
        for config in configs:
            executor.prepare(config, start)
        out = []
        for config in configs:
            parts = []
            for first, rows in executor.blocks(config, start):
                parts.append(results.table(config, first, rows))
                if on_block:
                    on_block(rows.shape[0])
            table = pa.concat_tables(parts)
            out.append(np.column_stack([table[c].to_numpy().astype(np.float64) for c in columns]))
        return out
    return evaluate


def _with(config, games, seed):
    return dataclasses.replace(config, games=games, seed=seed)


@dataclass
class TuneResult:
    """A tune's answer: ``confirmed`` the finalists ranked by :func:`rank` (the fairest first), ``best`` the
    fairest and the tied for fairest (:func:`winners`), ``race_pick`` the race's (or NTBEA's) first finalist,
    chosen on the race's games."""

    plan: Plan
    race: Race
    confirmed: list
    best: list
    race_pick: int = 0


def run(plan, folder, executor=None, on_batch=None, warn=None):
    """Race, confirm and report into ``folder``; a re-run keeps every finished batch whose file is intact.
    The folder is locked while it runs. A space of one candidate has nothing to race: it is confirmed.
    ``warn(line)`` hears early, once, how long the confirmation will take when that is long (its games come in
    one piece, where the race's come in batches, each reported)."""
    folder = sweep.open_folder(folder, "tune", plan.game)
    with writing.Lock(folder):
        writing.remove_stale(folder)
        return _run(plan, folder, executor, on_batch, warn)


def _run(plan, folder, executor, on_batch, warn):
    manifest = _read_manifest(folder, plan)
    done = []
    for entry in manifest["batches"]:
        path = folder / entry["file"]
        if not path.is_file() or writing.sha256(path) != entry["sha256"]:
            break
        done.append(table_blocks(plan, pq.read_table(writing.local(path))))
    manifest["batches"] = manifest["batches"][:len(done)]
    seed = plan.candidates[0].config.seed

    def keep(step, alive, first, blocks, state):
        name = f"batch-{step:04d}.parquet"
        _write_table(folder / name, batch_table(plan, alive, first, blocks))
        # a batch played again (its stored one was of other candidates) takes the place of the stored one
        manifest["batches"][step:step + 1] = [{"file": name, "sha256": writing.sha256(folder / name),
                                               "candidates": len(alive)}]
        sweep.write_manifest(folder, manifest)
        if on_batch:
            on_batch(step, alive, state)

    if len(plan.candidates) == 1:
        state = Race(1)
    elif plan.search["method"] == "ntbea":
        state = ntbea(plan.candidates, evaluator(plan, executor, seed), plan.objective, plan.search, seed, done,
                      keep)
    else:
        state = race(len(plan.candidates), evaluator(plan, executor, seed), plan.objective, plan.search, done,
                     keep)
    if len(manifest["batches"]) > len(state.history):    # stored batches of a longer race than this one
        del manifest["batches"][len(state.history):]
        sweep.write_manifest(folder, manifest)
    last = state.history[-1][1] if state.history else {}
    # ranked by the race's (or NTBEA's) estimate, on games independent of the confirmation's: the first is its pick
    finalists = sorted(state.alive, key=lambda c: (last[c][0], c) if last else c)[:plan.search["finalists"]]
    confirm_seed = plan.search["confirm_seed"]
    path = folder / "confirm.parquet"
    entry = manifest.get("confirm")
    if entry and path.is_file() and writing.sha256(path) == entry["sha256"] and entry["finalists"] == finalists:
        _, matrices = table_blocks(plan, pq.read_table(writing.local(path)))
    else:
        from simcore.studies.executors import Pace

        kept = "Ctrl-C keeps the race's batches, and the same command goes on from them with the confirmation" \
            if manifest["batches"] else "Ctrl-C stops it and keeps nothing"
        pace = Pace(len(finalists) * plan.search["confirm_games"], warn, kept)
        matrices = evaluator(plan, executor, confirm_seed, pace.add)(finalists, 0, plan.search["confirm_games"])
        _write_table(path, batch_table(plan, finalists, 0, matrices))
        manifest["confirm"] = {"file": path.name, "sha256": writing.sha256(path), "finalists": finalists}
        sweep.write_manifest(folder, manifest)
    confirmed = confirm(finalists, matrices, plan.objective, plan.search["bootstrap"], confirm_seed, plan.margin)
    result = TuneResult(plan, state, confirmed, winners(confirmed), finalists[0])
    from simcore.studies import tune_report
    tune_report.write(result, folder)
    return result


def check_replacing(plan, folder, force):
    """Raise OSError in one line when ``folder`` holds the finished batches of another tune file, seed or score,
    which this run would replace, and ``force`` is not given (an edited tune file replaced them without a
    word)."""
    held = read_file(folder) if not force else None
    if not isinstance(held, dict) or not (held.get("batches") or held.get("confirm")):
        return
    if held.get("plan") != plan.text or held.get("seed", plan.candidates[0].config.seed) != \
            plan.candidates[0].config.seed or _score(held) != plan.score:
        what = "another tune file" if held.get("plan") != plan.text else (
            f"--score {_score(held)}" if _score(held) != plan.score else f"seed {held.get('seed')}")
        raise OSError(f"{folder} holds the finished batches of {what} ({len(held.get('batches') or []):,} "
                      "batches); allowed: --force to replace them, or a new folder")


def _score(manifest):
    """The score a tune folder was raced by: its manifest records "margin"; none recorded is points (a points
    run's manifest is as it was before margins were)."""
    return manifest.get("score", "points")


def _read_manifest(folder, plan):
    """The folder's manifest if it is of this tune file, seed and score (its batches can be kept), else a fresh
    one."""
    seed = plan.candidates[0].config.seed
    fresh = {"simcore_version": __version__, "kind": "tune", "game": plan.game, "tune": str(plan.path),
             "plan": plan.text, "seed": seed, "batches": []}
    if plan.score != "points":
        fresh["score"] = plan.score
    manifest = read_file(folder)
    if not isinstance(manifest, dict) or manifest.get("plan") != plan.text or \
            manifest.get("seed", seed) != seed or _score(manifest) != plan.score or \
            not isinstance(manifest.get("batches"), list):
        return fresh
    return {**fresh, **manifest, "kind": "tune", "game": plan.game, "seed": seed}
