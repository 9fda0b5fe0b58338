"""Runs N games of a game module in parallel, fixed-size chunks.

Every game has its own jitted ``run_batch(params, policies, seed,
start, out)``: its chunks of ``CHUNK`` games shared out over this machine's threads (``binding.Threaded``), compiled
for it from the templates of the game loop and the agents by ``simcore.engine.binding.bind`` (the form that keeps
numba's cache working, see the design's known traps). This module prepares the arrays, hands out blocks of
games, and never loops over single games in Python.

The result of one game is one row of an ``int64`` matrix (``simcore.engine.rows``; a name of
``module.EXTRA_COLUMNS`` with ``{seat}`` is one column per seat and takes ``MAX_SEATS`` slots).
Rows depend only on ``(params, policies, seed, game_index)``: a block, a chunk
or a thread never changes them.
"""

from dataclasses import dataclass

import numpy as np

# the result row's layout, for a game's write_row: from simcore.engine import O_WIN, score_offset, ...
from simcore.engine.errors import GameError  # noqa: F401
from simcore.engine.rows import O_FIRST_SEAT, O_N_TURNS, O_TIMEOUT, O_WIN, extra_offset, score_offset  # noqa: F401

BLOCK = 1 << 16        # games per call into the jitted code (progress and memory granularity)


def _slots(module, name):
    """A per-seat extra column (its name has ``{seat}``) takes ``MAX_SEATS`` slots."""
    return module.MAX_SEATS if "{seat}" in name else 1


def width(module):
    return extra_offset(module.MAX_SEATS) + sum(_slots(module, name) for name, _, _ in module.EXTRA_COLUMNS)


def extra_columns(module, players):
    """``(column name, kind, row offset)`` of a game's extra columns for ``players`` seats."""
    offset = extra_offset(module.MAX_SEATS)
    for name, kind, _ in module.EXTRA_COLUMNS:
        if "{seat}" in name:
            for seat in range(players):
                yield name.format(seat=seat), kind, offset + seat
        else:
            yield name, kind, offset
        offset += _slots(module, name)


def traceable(module):
    """ValueError in one line unless the game declares the trace hooks (``GameType.trace``)."""
    if not module.GAME.trace:
        raise ValueError(f"game {module.GAME.name} declares no trace; allowed: a traced run of a game with the "
                         "trace hooks (simcore.games.CAPABILITIES['trace'])")


def batch_function(module, policies, traced=False, counted=False, params=None):
    """The game's batch function for the agents table ``policies``: that of the copy :func:`copy_uses` picks,
    which compiles what its seats play and no more; every copy plays the same games. ``traced``: the batch that
    also writes each game's trace (``run_traced``, compiled on its first use); ``counted``: the same batch for its
    counts of the kinds of move alone, which a game without the trace hooks has too (its standings are the
    defaults' nothing). Given the variant's ``params``, a run of random seats alone plays the game's own whole
    random games where it has them (:func:`plays_random_games`): the same games."""
    from simcore.engine.binding import bind  # (numba and the templates load with the first game played)

    if traced and not counted:
        traceable(module)
    if not traced and params is not None and plays_random_games(module, params, policies):
        return bind(module).run_random_games
    return bind(module).runner(copy_uses(module, policies, traced), traced)


def plays_random_games(module, params, policies):
    """Does a run of ``policies`` play the game's own whole random games (``random_game``,
    ``simcore.games.OPTIONAL``): every seat random and unrestricted, and a game whose ``prepare_random_game``
    takes ``params`` (Zwai's takes the formations whose shoal fits one 64-bit board)? Asked in plain Python: it
    compiles nothing."""
    from simcore.agents import core

    policies = np.asarray(policies)
    if not hasattr(module, "random_game") or policies.ndim != 2 or not core.all_random(policies):
        return False
    scratch = np.zeros(module.RANDOM_GAME_SCRATCH, np.int64)
    return bool(module.prepare_random_game.py_func(np.asarray(params, np.int64), scratch))


def copy_uses(module, policies, traced=False):
    """What the copy playing ``policies`` compiles (``simcore.engine.binding.USES``): what its seats need
    (``binding.uses_of``: random seats alone, greedy, mc, an ISMCTS tree, cut-off playouts), unless a larger
    copy is compiled for this machine already and that one is not: every copy plays the same games, so the whole
    copy ``simcore warm --search`` made serves every later search without a compile. A game without an agents
    table (policy ids) plays the whole copy."""
    from simcore.engine import binding

    policies = np.asarray(policies)
    if policies.ndim != 2:
        return binding.EVERY
    needed = binding.uses_of(policies, bool(getattr(module.GAME, "observations", False)))
    bound = binding.bind(module)
    args = batch_args(module, np.zeros(1, np.int64), policies, traced)
    return next((uses for uses in binding.serving(needed) if bound.ready(uses, traced, args)), needed)


def batch_args(module, params, policies, traced):
    """The arguments of a call of the batch function with no game (what compiles or loads it), with those
    ``binding.Threaded`` adds."""
    from simcore.engine import loop

    args = (np.ascontiguousarray(params, dtype=np.int64), np.ascontiguousarray(policies), np.int64(0),
            np.int64(0), np.zeros((0, width(module)), dtype=np.int64))
    if traced:
        args += TraceBlock.empty(module, 0).arrays()
    return args + (np.int64(0), np.int64(1), np.zeros(loop.FLAGS, np.int64))


# what each use adds to a copy's name, in words
USE_WORDS = {"greedy": "greedy", "mc": "mc", "tree": "ISMCTS", "observed": "the observed ISMCTS tree",
             "cut": "cut-off playouts"}


RANDOM_GAMES = "own whole random games"     # what a run of plays_random_games compiles, in words


def copy_name(module, policies, traced=False, params=None):
    """Which copy of the game loop :func:`batch_function` plays for ``policies`` (and ``params``), in words: each
    compiles once for this machine, so a designer hears which one a wait is for."""
    if not traced and params is not None and plays_random_games(module, params, policies):
        return RANDOM_GAMES
    return use_words(copy_uses(module, policies, traced), traced)


def use_words(uses, traced=False):
    """A copy of the game loop named by what it compiles."""
    from simcore.engine import binding

    if uses == binding.RANDOM:
        copy = "game loop of random seats"
    elif uses == binding.PLAIN:
        copy = "game loop of random and greedy seats"
    elif uses == binding.EVERY:
        copy = "game loop with every agent"
    else:
        copy = "game loop with " + ", ".join(USE_WORDS[u] for u in USE_WORDS if u in uses)
    return f"traced {copy}" if traced else copy


def load(module, params, policies, on_compile=None, traced=False, counted=False, uses=None):
    """Load the game's batch function (``traced``: the one that writes traces) before a run is timed: from
    numba's cache, or compiled for this machine first, in which case ``on_compile(game name)`` is called before
    compiling starts. ``uses``: the copy compiling those (``simcore warm``), not the one ``policies`` pick."""
    from simcore.engine import jit
    from simcore.engine.binding import bind

    args = batch_args(module, params, policies, traced or counted)
    batch = (batch_function(module, policies, traced or counted, counted, params) if uses is None else
             bind(module).runner(uses, traced or counted))
    if on_compile is not None and not jit.cached(batch.dispatcher, *args):
        on_compile(module.GAME.name)
    batch(*args[:-3])


def run_blocks(module, params, policies, seed, n_games, start=0, block=BLOCK):
    """Play games ``start .. start+n_games-1``; yield ``(first_index, rows)`` per block."""
    for first, rows, _ in _calls(module, params, policies, seed, n_games, start, block, traced=False):
        yield first, rows


def _calls(module, params, policies, seed, n_games, start, block, traced, counted=False):
    """The batch function's calls, block by block: ``(first_index, rows, TraceBlock or None)``."""
    params = np.ascontiguousarray(params, dtype=np.int64)
    policies = np.ascontiguousarray(policies)   # the agents table, or policy ids for a game without it
    batch = batch_function(module, policies, traced, counted, params)
    done = 0
    while done < n_games:
        n = min(block, n_games - done)
        out = np.zeros((n, width(module)), dtype=np.int64)
        trace = TraceBlock.empty(module, n) if traced else None
        batch(params, policies, np.int64(seed), np.int64(start + done), out, *(trace.arrays() if traced else ()))
        yield start + done, out, trace
        done += n


TRACE_BLOCK = 1 << 12     # games per traced call: a skirmish block's standings are 4,096 x 2 x 512 int32, 16 MB


@dataclass
class TraceBlock:
    """The traces of a block of games (``simcore.engine.loop.run_traced``): ``table`` (games, seats, steps)
    every seat's standing per step, ``counts`` (games, seats, 2 kinds + 1) played then legal counts per kind, then
    the moves of a forbidden kind a restricted seat had to play,
    ``info`` (games, 2) the steps recorded and the end condition (-1: a timeout)."""

    table: np.ndarray
    counts: np.ndarray
    info: np.ndarray

    @classmethod
    def empty(cls, module, n):
        seats = module.MAX_SEATS
        return cls(np.zeros((n, seats, module.MAX_TRACE_STEPS), np.int32),
                   np.zeros((n, seats, 2 * len(module.ACTION_KINDS) + 1), np.int32), np.zeros((n, 2), np.int32))

    def arrays(self):
        """What ``run_traced`` fills, in its order."""
        return self.table, self.counts, self.info


def run_traced_blocks(module, params, policies, seed, n_games, start=0, block=TRACE_BLOCK):
    """:func:`run_blocks` with each block's traces: yield ``(first_index, rows, TraceBlock)``. The rows are the
    untraced run's."""
    yield from _calls(module, params, policies, seed, n_games, start, block, traced=True)


def run_counted_blocks(module, params, policies, seed, n_games, start=0, block=TRACE_BLOCK):
    """:func:`run_traced_blocks` for the counts of the kinds of move each seat had and played (and the forbidden
    moves a restricted seat had to play), for any game that declares kinds, traced or not."""
    yield from _calls(module, params, policies, seed, n_games, start, block, traced=True, counted=True)


def run(module, params, policies, seed, n_games, start=0):
    """All rows of ``n_games`` games in one matrix (for tests and small runs)."""
    blocks = [rows for _, rows in run_blocks(module, params, policies, seed, n_games, start)]
    if not blocks:
        return np.zeros((0, width(module)), dtype=np.int64)
    return np.concatenate(blocks)
