"""How decided the games are, from the per-game trace table: lead changes, comebacks, when the winner took the lead
for good, and how the games ended.

A trace (``_traces/X.trace.parquet`` beside the result file ``X.parquet``) holds one row per (game, seat): the seat's
*standing* (points, fish banked, rounds won by its team, material, ...) after every step of the game (a round, or
a turn in the skirmish), how often it played each action kind and at how many of its decisions each kind was
legal (``analyses.kinds``), and how the game ended. :func:`load_trace` reads it as arrays aligned with the result's
rows; :func:`decisiveness` measures the games with an interval for every number.

The leaders after a step are the seats with the highest standing, unless every seat ties (then there is no
leader). Teammates (4-player Zwergen Ziehen: seats 0, 2 against 1, 3) have the same standing and lead together;
a team counts as one side everywhere here.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from analyses.data import DataError, simcore_meta
from analyses.intervals import proportion_interval
from analyses.paired import t_test
from simcore.io.writing import local, trace_path

TIMEOUT = "timeout"      # the end of a game stopped by max_turns


@dataclass(frozen=True)
class Estimate:
    """An estimate ``value`` with its two-sided interval [``low``, ``high``] (nan where it cannot be had) and the
    number ``n`` of units it rests on (games, or (game, seat) rows)."""

    value: float
    low: float
    high: float
    n: int


@dataclass(frozen=True, eq=False)  # eq=False: the fields hold arrays, whose == is elementwise
class Trace:
    """A trace table as arrays, its games in the order of the result's rows (so ``wins`` and ``points`` of the
    result line up with axis 0).

    ``standing`` is (games, seats, steps): each game's standings after each of its ``steps[g]`` steps, padded to
    the longest game by repeating the game's last standing (a padded step changes nothing). ``played`` and
    ``legal`` are (games, seats, kinds) counts of the action kinds ``kinds``. ``end`` indexes ``ends``: the
    metadata's end conditions in their order, then ``"timeout"``, then any other name the table holds.
    """

    path: Path
    game_index: np.ndarray
    standing: np.ndarray
    steps: np.ndarray
    kinds: tuple
    played: np.ndarray
    legal: np.ndarray
    end: np.ndarray
    ends: tuple
    meta: dict

    @property
    def n_games(self):
        return self.standing.shape[0]

    @property
    def n_seats(self):
        return self.standing.shape[1]

    @property
    def cut(self):
        """Per game: did its trace fill every step the trace holds? Past them the game's last column is written
        over until the end, so the standings between are lost (a game of exactly that many steps counts too)."""
        limit = _max_steps(self.meta)
        return np.zeros(self.n_games, bool) if limit is None else self.steps >= limit

    @property
    def step(self):
        """What a step is: ``"round"`` or ``"turn"``."""
        return self.meta.get("trace.step", "round")

    @property
    def standing_name(self):
        """What the standing counts (points, fish banked, ...), as the metadata says."""
        return self.meta.get("trace.standing", "standing")

    @property
    def kind_meanings(self):
        """{kind: what it means} from the metadata (the kind's name where it says nothing)."""
        return {kind: _json(self.meta, "trace.kinds", self.path).get(kind, kind) for kind in self.kinds}

    @property
    def end_meanings(self):
        return {end: _json(self.meta, "trace.ends", self.path).get(end, end) for end in self.ends}


def load_trace(result) -> Trace | None:
    """The trace of an ``analyses.data.Result``, its games in the order of the result's rows; None if the result
    has no trace file. A trace that cannot be read, or that does not hold exactly the result's games (game
    indices, seats, and game, variant, seed, parameters and policies where both files record them), is a
    ``DataError`` in one line."""
    path = trace_path(result.path)
    if not path.is_file():
        return None
    try:
        table = pq.read_table(local(path))
    except (OSError, ValueError) as e:
        raise DataError(f"cannot read {path}: {_one_line(e)}") from None
    meta = simcore_meta(table)
    for key in ("game", "variant", "seed", "params", "policies"):
        if key in meta and key in result.meta and meta[key] != result.meta[key]:
            raise DataError(f"{path} is the trace of another run ({key} {meta[key]!r}, the result's "
                            f"{result.meta[key]!r}); allowed: the trace written with {result.path.name}")
    if meta.get("run_id") is None or meta.get("run_id") != result.meta.get("run_id"):
        # a trace and its result carry the id of the run that wrote both (simcore.io.results.run_id): without it,
        # or with another, the trace may be of other games that happen to have the same indices
        raise DataError(f"{path} is not the trace of {result.path.name} (its run id is "
                        f"{meta.get('run_id') or 'missing'}, the result's {result.meta.get('run_id') or 'missing'}); "
                        "allowed: the trace written with it (play the same run or sweep again with --trace)")
    missing = [c for c in ("game_index", "seat", "standing", "end") if c not in table.column_names]
    if missing:
        raise DataError(f"{path} is not a simcore trace file (no column {', '.join(missing)})")
    rows = _aligned_rows(path, table, result)
    kinds = _kinds(path, table, meta)
    standing, steps = _standings(path, table["standing"], rows)
    ends, end = _ends(path, table["end"], rows, meta)
    counts = {what: np.stack([table[f"{what}_{k}"].to_numpy() for k in kinds], axis=-1)[rows] if kinds
              else np.zeros(rows.shape + (0,), dtype=np.int32) for what in ("played", "legal")}
    return Trace(path=path, game_index=np.asarray(result.columns["game_index"]), standing=standing, steps=steps,
                 kinds=kinds, played=counts["played"], legal=counts["legal"], end=end, ends=ends, meta=meta)


def _max_steps(meta):
    """The steps a trace of this game holds at most (its metadata), or None where it does not say."""
    try:
        return int(meta["trace.max_steps"])
    except (KeyError, ValueError):
        return None


def _one_line(error):
    return " ".join(str(error).split())


def _json(meta, key, path):
    try:
        value = json.loads(meta.get(key, "{}"))
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise DataError(f"{path}: its metadata simcore.{key} is not a JSON object")
    return value


def _aligned_rows(path, table, result):
    """(games, seats) row positions of the table: game g of the result's row order, seat s."""
    seats = result.players
    games = np.asarray(result.columns["game_index"])
    index, seat = table["game_index"].to_numpy(), table["seat"].to_numpy()
    mismatch = f"{path} does not hold the games of {result.path.name}"
    if index.size != games.size * seats:
        raise DataError(f"{mismatch}: {index.size:,} rows for {games.size:,} games of {seats} seats; allowed: the "
                        "trace written with it")
    order = np.lexsort((seat, index)).reshape(-1, seats)     # by game_index, then seat
    ours = index[order[:, 0]]
    wanted = np.sort(games)
    if ((index[order] != ours[:, None]).any() or (seat[order] != np.arange(seats)).any()
            or (ours != wanted).any() or (wanted[1:] == wanted[:-1]).any()):
        raise DataError(f"{mismatch}: its game indices or seats differ; allowed: the trace written with it")
    # Both sorted and equal, so the position of each result row's game among the sorted games is its trace game.
    return order[np.searchsorted(ours, games)]


def _kinds(path, table, meta):
    """The action kinds: the metadata's in its order, then any other ``played_`` column in the table's order."""
    present = [c.removeprefix("played_") for c in table.column_names if c.startswith("played_")]
    kinds = [k for k in _json(meta, "trace.kinds", path) if k in present]
    kinds += [k for k in present if k not in kinds]
    lacking = [k for k in kinds if f"legal_{k}" not in table.column_names]
    if lacking:
        raise DataError(f"{path} has no column {', '.join(f'legal_{k}' for k in lacking)} beside its played_ "
                        "counts")
    return tuple(kinds)


def _standings(path, column, rows):
    """The padded (games, seats, steps) standings and the steps of each game."""
    lists = column.combine_chunks()
    if lists.null_count:
        raise DataError(f"{path} has games without a standing (null lists)")
    lengths = lists.value_lengths().to_numpy(zero_copy_only=False).astype(np.int64)
    values = lists.flatten().to_numpy(zero_copy_only=False)
    if values.dtype.kind not in "biuf":
        raise DataError(f"{path}: its standings are {values.dtype}, not numbers")
    starts = np.cumsum(lengths) - lengths
    steps = lengths[rows]
    if (steps != steps[:, :1]).any() or (steps < 1).any():
        raise DataError(f"{path}: every seat of a game needs a standing of the same number of steps (at least 1)")
    steps = steps[:, 0]
    at = np.minimum(np.arange(steps.max()), steps[:, None, None] - 1)     # past its end, a game repeats its last
    return values[starts[rows][..., None] + at], steps


def _ends(path, column, rows, meta):
    """The end names (the metadata's, then timeout, then others found) and each game's index into them."""
    coded = column.combine_chunks().dictionary_encode()
    names = coded.dictionary.to_pylist()
    declared = list(_json(meta, "trace.ends", path))
    ends = declared + [TIMEOUT] * (TIMEOUT not in declared)
    ends += sorted(set(names) - set(ends) - {None})
    if None in names or coded.indices.null_count:
        raise DataError(f"{path} has games without an end")
    code = np.array([ends.index(n) for n in names], dtype=np.int64)[coded.indices.to_numpy()[rows]]
    if (code != code[:, :1]).any():
        raise DataError(f"{path}: the seats of a game disagree on how it ended")
    return tuple(ends), code[:, 0]


@dataclass(frozen=True, eq=False)  # eq=False: the fields hold arrays, whose == is elementwise
class DecisivenessResult:
    """How decided the games are (see :func:`decisiveness`), each number with its interval at ``confidence``.

    ``lead_changes`` is the mean per game, ``comeback`` the share of decisive games won from behind (``comebacks``
    of ``n_decisive``), ``decided_at`` the mean share of the game after which the winner led for good, and
    ``ends`` each end's share of the games ({name: Estimate}, simultaneous intervals; ``end_counts`` the games).
    The per-game arrays are ``changes``, ``decisive``, ``from_behind`` and ``decided`` (nan where not decisive).
    """

    n_games: int
    n_decisive: int
    step: str
    teams: tuple
    lead_changes: Estimate
    comebacks: int
    comeback: Estimate
    decided_at: Estimate
    ends: dict
    end_counts: dict
    changes: np.ndarray
    decisive: np.ndarray
    from_behind: np.ndarray
    decided: np.ndarray
    confidence: float
    n_cut: int = 0               # games whose trace was cut at ``max_steps``: the figures that need every step are
    max_steps: int | None = None  # left out (nan) when there is one

    @property
    def text(self):
        """One sentence: lead changes, comebacks, when the lead was settled, the ends."""
        level = f"{100 * self.confidence:g}%"
        lc = self.lead_changes
        f = ".2f" if lc.value < 1 else ".1f"
        interval = "" if math.isnan(lc.low) else f" [{lc.low:{f}}, {lc.high:{f}}]"
        parts = [f"{lc.value:{f}} lead changes a game{interval}"] if not self.n_cut else [
            f"the traces of {self.n_cut:,} of {self.n_games:,} games were cut at {self.max_steps} {self.step}s (the "
            f"most a trace holds), so the lead changes and when the lead was settled are not given"]
        if self.n_decisive:
            after = "the first round" if self.step == "round" else "half of the turns"
            if not math.isnan(self.comeback.value):
                parts.append(f"{_percent(self.comeback)} of decisive games won from behind after {after}")
            if not self.n_cut:
                parts.append(f"the winner took the lead for good at {_percent(self.decided_at)} of the game")
        else:
            parts.append("no game had a single winning side")
        seen = [f"{name} {_percent(e)}" for name, e in self.ends.items() if self.end_counts[name]]
        if len(seen) > 1:       # one way to end (every game played out its rounds) says nothing
            parts.append(f"ended by: {', '.join(seen)} (simultaneous {level})")
        return "; ".join(parts) + "."


def _percent(e):
    """``23% [21, 25]``; one decimal where the interval reaches below 10%; no interval where there is none."""
    if math.isnan(e.low):
        return f"{100 * e.value:.0f}%"
    f = ".1f" if e.low < 0.1 else ".0f"
    return f"{100 * e.value:{f}}% [{100 * e.low:{f}}, {100 * e.high:{f}}]"


def decisiveness(trace: Trace, wins, confidence: float = 0.95) -> DecisivenessResult:
    """Lead changes, comebacks, when the lead was settled and the ends of the games of ``trace``; ``wins`` is the
    result's (games, seats) win flags in the trace's game order (``load_trace`` aligns them).

    * **Lead changes**: a step is a lead change when its leaders are disjoint from the seats that have led since
      the last change (at the start: since the first step with a leader). A step where every seat ties has no
      leader and is skipped; a step that adds a seat to the lead (a tie at the top) is no change and keeps the
      seats that led before it as the reference, so a lead passing through a tie ({0}, {0, 1}, {1}) is one
      change and a tie that resolves back ({0}, {0, 1}, {0}) none. Teammates lead together: one side. Mean per
      game with the t interval over games (the games are independent; the counts are skewed, and the interval
      covered 94% to 97% at 200 games in ``tests/test_calibration_trace.py``).
    * **Comebacks**: among the decisive games (one winning side: a single seat, or a whole team), the share won
      by a side that trailed (a leader existed and the side was not among the leaders) after the first step, or
      when a step is a turn, after half of the game's steps (rounded down, at least 1). Wilson interval.
    * **Decided at**: per decisive game, k / (steps - 1), where k is the index of the step from which on the
      winning side is always among the leaders: 0 if it led from the first step to the end, 1 if it took the lead
      only with the last step or does not lead by the final standing (a win by tie-break, say). A game of one
      step scores 0 if the winning side leads after it, else 1. Mean over the decisive games with the t interval.
    * **Ends**: each end's share of the games in the order of ``trace.ends``, with Wilson intervals at
      1 - (1 - confidence) / (number of ends): simultaneous (Bonferroni), all cover at once at least at
      ``confidence``.
    """
    wins = np.asarray(wins, dtype=bool)
    if wins.shape != trace.standing.shape[:2]:
        raise ValueError(f"need wins (games, seats) = {trace.standing.shape[:2]}, got {wins.shape}")
    teams = _teams(wins, trace.standing)
    leaders = _leaders(trace.standing)
    changes = _lead_changes(leaders)
    side = wins @ (1 << np.arange(wins.shape[1], dtype=np.int64))           # the winners as a bit mask
    decisive = np.isin(side, [_mask(team) for team in teams])
    n = trace.steps
    games = np.arange(trace.n_games)
    reference = 0 if trace.step == "round" else np.maximum(1, n // 2) - 1
    at_reference = leaders[games, reference]
    from_behind = decisive & (at_reference != 0) & ((at_reference & side) == 0)
    decided = np.where(decisive, _decided_at(leaders, side, n), np.nan)
    n_decisive = int(decisive.sum())
    n_cut = int(trace.cut.sum())
    # a cut trace lost the standings between its last steps: lead changes and the settling step need all of them,
    # and so does a comeback judged at half of a game's turns (one judged after the first round does not)
    unknown = Estimate(math.nan, math.nan, math.nan, 0)
    return DecisivenessResult(
        n_games=trace.n_games,
        n_decisive=n_decisive,
        step=trace.step,
        teams=teams,
        lead_changes=_mean(changes, confidence, (0, np.inf)) if not n_cut else unknown,
        comebacks=int(from_behind.sum()),
        comeback=_share(int(from_behind.sum()), n_decisive, confidence) if not n_cut or trace.step == "round"
        else unknown,
        decided_at=_mean(decided[decisive], confidence, (0, 1)) if not n_cut else unknown,
        ends=_end_shares(trace, confidence),
        end_counts=dict(zip(trace.ends, np.bincount(trace.end, minlength=len(trace.ends)).tolist(), strict=True)),
        changes=changes,
        decisive=decisive,
        from_behind=from_behind,
        decided=decided,
        confidence=confidence,
        n_cut=n_cut,
        max_steps=_max_steps(trace.meta),
    )


def _mask(seats):
    return sum(1 << s for s in seats)


def _teams(wins, standing) -> tuple:
    """The sides: seats whose win flags and standings agree in every game form a team, when they split the seats
    into two or more teams of one size (as ``analyses.balance.find_teams``; the standings keep two seats that
    merely lost together out of a team); else one seat per side."""
    groups = {}
    for seat in range(wins.shape[1]):
        key = np.packbits(wins[:, seat]).tobytes() + standing[:, seat].tobytes()
        groups.setdefault(key, []).append(seat)
    teams = tuple(tuple(g) for g in groups.values())
    if len(teams) >= 2 and len({len(t) for t in teams}) == 1:
        return tuple(sorted(teams))
    return tuple((seat,) for seat in range(wins.shape[1]))


def _leaders(standing) -> np.ndarray:
    """(games, steps) bit masks of the leaders after each step; 0 where every seat ties (no leader)."""
    top = np.moveaxis(standing == standing.max(axis=1, keepdims=True), 1, -1)     # (games, steps, seats)
    bits = top @ (1 << np.arange(standing.shape[1], dtype=np.int64))
    return np.where(top.all(axis=-1), 0, bits)


def _lead_changes(leaders) -> np.ndarray:
    """Lead changes per game (see :func:`decisiveness`): a scan over the steps, all games at once."""
    reference = np.zeros(leaders.shape[0], dtype=np.int64)     # who has led since the last change; 0: nobody yet
    changes = np.zeros(leaders.shape[0], dtype=np.int64)
    for lead in leaders.T:
        disjoint = (lead != 0) & ((lead & reference) == 0)
        changes += disjoint & (reference != 0)
        # A new lead replaces the reference; an overlapping one narrows it to the seats still leading (a seat
        # joining the lead in a tie is not added: should it lead alone next, that is a change).
        reference = np.where(disjoint, lead, np.where(lead != 0, lead & reference, reference))
    return changes


def _decided_at(leaders, side, steps) -> np.ndarray:
    """k / (steps - 1) per game (see :func:`decisiveness`), k the first step of the winners' last unbroken lead."""
    t = np.arange(leaders.shape[1])
    behind = ((leaders & side[:, None]) != side[:, None]) | (leaders == 0)
    behind &= t < steps[:, None]
    k = np.where(behind, t, -1).max(axis=1) + 1
    return np.where(steps > 1, np.minimum(k, steps - 1) / np.maximum(steps - 1, 1), np.minimum(k, 1))


def _mean(x, confidence, bounds) -> Estimate:
    """The mean with its t interval (the t test's limit [mean, mean] without spread; nan with fewer than 2), cut to
    the ``bounds`` the mean cannot leave: a cut changes no coverage, as the truth lies within them too."""
    x = np.asarray(x, dtype=float)
    if x.size < 2:
        return Estimate(float(x.mean()) if x.size else np.nan, np.nan, np.nan, int(x.size))
    _, low, high = t_test(float(x.mean()), float(x.std(ddof=1)) / math.sqrt(x.size), x.size - 1,
                          confidence=confidence)
    return Estimate(float(x.mean()), float(max(low, bounds[0])), float(min(high, bounds[1])), int(x.size))


def _share(k, n, confidence) -> Estimate:
    ci = proportion_interval(k, n, confidence)
    return Estimate(k / n if n else np.nan, ci.low, ci.high, n)


def _end_shares(trace, confidence) -> dict:
    counts = np.bincount(trace.end, minlength=len(trace.ends))
    level = 1 - (1 - confidence) / len(trace.ends)       # Bonferroni over the ends: simultaneous
    return {name: _share(int(c), trace.n_games, level) for name, c in zip(trace.ends, counts, strict=True)}
