"""Running a resolved config: to an Arrow table, to a Parquet file, with a summary."""

import contextlib
import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from analyses.intervals import proportion_interval
from simcore import engine
from simcore.io import config as cfg
from simcore.io import results, writing
from simcore.studies.executors import LocalExecutor, ahead


@dataclass
class Tally:
    """Running totals of a run, for the one-screen summary (no second pass over the file)."""

    players: int
    games: int = 0
    timeouts: int = 0
    turns: int = 0
    wins: np.ndarray = None
    seconds: float = 0.0
    started: float = field(default_factory=time.perf_counter)

    def __post_init__(self):
        self.wins = np.zeros(self.players, np.int64)

    def add(self, rows):
        self.games += rows.shape[0]
        self.timeouts += int(rows[:, engine.O_TIMEOUT].sum())
        self.turns += int(rows[:, engine.O_N_TURNS].sum())
        self.wins += rows[:, engine.O_WIN:engine.O_WIN + self.players].sum(axis=0)
        self.seconds = time.perf_counter() - self.started

    def lines(self, confidence=0.95):
        rate = self.games / self.seconds if self.seconds > 0 else float("inf")
        out = [f"games       {self.games:,}   ({rate:,.0f} games/s, {self.seconds:.2f} s)",
               f"timeouts    {self.timeouts:,}   ({self.timeouts / max(self.games, 1):.2%})",
               f"mean turns  {self.turns / max(self.games, 1):.2f}",
               f"win share per seat, {confidence:.0%} Wilson interval:"]
        for seat, wins in enumerate(self.wins):
            ci = proportion_interval(int(wins), self.games, confidence)
            out.append(f"  seat {seat}    {wins / self.games:.4f}   [{ci.low:.4f}, {ci.high:.4f}]")
        return out


def blocks(config, on_block=None, executor=None):
    """Yield ``(first_index, rows)`` for every block of the run, in game order."""
    for first, rows in (executor or LocalExecutor()).blocks(config):
        if on_block is not None:
            on_block(rows.shape[0])
        yield first, rows


def run_to_file(config, out, on_block=None, executor=None, trace=False):
    """Play the run into the Parquet file ``out``; return its :class:`Tally`. ``trace``: also write each game's
    trace to ``_traces/X.trace.parquet`` beside it (on this machine: ``executor`` must be None or local). The
    trace is renamed into place first, the result last; both carry the run's id, so a trace of another run
    played into the same name before is known as such."""
    return extend_file(config, out, 0, on_block, executor, trace)


def extend_file(config, out, start, on_block=None, executor=None, trace=False):
    """Grow the result file ``out``, which holds games 0 .. ``start`` - 1 of the run (written by a run of
    ``config`` with ``start`` games), to games 0 .. ``config.games`` - 1: the rows, metadata and (``trace``)
    trace a run of ``config`` writes. The games held are copied a row group at a time, never played again, the
    rest played from game ``start`` on (a row depends on its seed and game index only); the file is replaced
    whole, as :func:`run_to_file` writes it (a run from ``start`` 0). Returns the :class:`Tally` of the games
    played."""
    tally = Tally(config.players)
    rest = dataclasses.replace(config, games=config.games - start)
    with _Extended(out, config) as writer, \
            (_ExtendedTrace(out, config) if trace else contextlib.nullcontext()) as tracer:
        if start:
            _copy(out, writer)
            if trace:
                _copy(results.trace_path(out), tracer)
        played = (LocalExecutor().traced_blocks(rest, start) if trace else
                  ((first, rows, None) for first, rows in (executor or LocalExecutor()).blocks(rest, start)))
        for first, rows, block in ahead(played) if executor is None or executor.name == "local" else played:
            if on_block is not None:
                on_block(rows.shape[0])
            writer.add(first, rows)
            tally.add(rows)
            if trace:
                tracer.add(first, block)
    if not trace:
        writing.remove_trace(out)          # a trace beside it would be of the games it replaced
    return tally


def _copy(path, writer):
    """Hand the rows of the file at ``path`` to ``writer``, a row group at a time (memory stays one group)."""
    held = pq.ParquetFile(writing.local(path))
    for group in range(held.num_row_groups):
        writer.add(None, held.read_row_group(group))


class _Earlier:
    """A writer that also takes rows already written, as an Arrow table (the file's metadata becomes the new
    run's: its config now says the games it holds)."""

    def _table(self, first_index, data):
        return data.cast(self._schema()) if isinstance(data, pa.Table) else super()._table(first_index, data)


class _Extended(_Earlier, results.ResultWriter):
    pass


class _ExtendedTrace(_Earlier, results.TraceWriter):
    pass


def run_to_tally(config, on_block=None):
    tally = Tally(config.players)
    for _, rows in blocks(config, on_block):
        tally.add(rows)
    return tally


def variant_name(table, sets, variant=None):
    """The name of a run's variant: ``variant`` where given, else its config ``table``'s, else what its ``sets``
    (the ``--set`` pairs) change, named as a sweep names a variant of those overrides (``hand_size_2=10``), so
    that runs of other rules are told apart by name. None where ``resolve`` finds it: the table's, else
    ``default``."""
    if variant is not None or "variant" in table or not sets:
        return variant
    # imported here, not at the top: the sweep module imports this one to play its variants
    from simcore.studies.sweep import derived_name

    return derived_name(dict(sets))        # a key set twice: its last value, as resolve plays it


def simulate(game, games=None, seed=None, params=None, policies=None, variant=None, config=None):
    """Play ``games`` games and return them as a ``pyarrow.Table`` (one row per game): the rows `simcore run`
    gives for the same config and seed.

    ``params`` maps parameter names (dotted for groups: ``"deck.add"``, or
    nested dicts) to values; ``policies`` maps ``"*"`` and/or seat numbers to
    policy names; ``config`` is an optional TOML file loaded first, which the
    arguments given override. ``games`` and ``seed`` left out are the
    config's, else 10,000 games and seed 1, as on the command line;
    ``variant``, the name in every row, is the config's, else named by what
    ``params`` changes (``hand_size_2=10``), else ``default``, as ``--set`` names it.
    """
    table = cfg.load_file(config) if config else {}
    sets = cfg.api_params(params)
    run = cfg.resolve(game, table, sets=sets, policies=cfg.api_policies(policies), games=games, seed=seed,
                      variant=variant_name(table, sets, variant))
    tables = [results.table(run, first, rows) for first, rows in blocks(run)]
    return pa.concat_tables(tables)
