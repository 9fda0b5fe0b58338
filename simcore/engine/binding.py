"""Where the agents meet a game: :func:`bind` compiles, for one game, a copy of the agents
(``simcore.agents.core``) and of the game loop (``simcore.engine.loop``) with the interface names
(``simcore.engine.interface``) bound to the game module's functions, the scratch sizes to its constants, and a
capability the game does not declare to its default (``simcore.games.defaults``)::

    binding.bind(simcore.games.load("zwai")).run_batch(params, agents, seed, start, out)

Each copy is cached under the game's name in the game's own cache folder (``simcore.engine.jit``), so the games'
copies never collide and editing one game recompiles that game alone.
"""

import itertools
import threading
import types

import numba
import numpy as np
from numba import njit

from simcore import CHECK_LEGAL
from simcore.agents import core
from simcore.engine import jit, loop
from simcore.engine.errors import GameError
from simcore.engine.interface import INTERFACE, RANDOM_GAME, SIZES
from simcore.engine.jit import kernel
from simcore.games import defaults

TEMPLATES = (core.random_action, core.restrict, core.listed_for, core.any_random, core.any_greedy, core.playout,
             core.greedy_playout, core.rollout_action, core.cut_playout, core.play_out, core.all_random, core.distinct,
             core.best_of, core.copy, core.mc_action, core.expand_pick, core.lone_action, core.to_expand, core.chosen,
             core.ismcts_action, core.observe, core.see_dealt, core.observed_ismcts_action, core.decide, loop.offered,
             loop.broken, loop.end_row, loop.play, core.root_stats, loop.count_kinds, loop.record, loop.play_traced)
OWN = ("random_action",)    # templates a game may replace with its own faster equivalent
# inlined where called: a call per decision passes eleven arrays on the stack; a restriction's wrappers cost an
# unrestricted seat one test, not a call, per move of a playout
INLINE = ("decide", "listed_for", "any_random", "any_greedy", "rollout_action")
# what a copy compiles beyond random seats, by the flag its templates test (simcore.engine.interface): a copy is
# compiled for the uses of a run's seats (:func:`uses_of`), so a first run compiles only what it plays
USES = {"greedy": "PLAYS_GREEDY", "mc": "MC_SEARCH", "tree": "TREE_SEARCH", "observed": "OBSERVED_SEARCH",
        "cut": "CUTS"}
EVERY = frozenset(USES)          # the whole copy: every agent (the handle's, the benchmarks' and the tests')
PLAIN = frozenset({"greedy"})    # random and greedy seats
RANDOM = frozenset()             # random seats only (a run's default)


def uses_of(policies, observed):
    """What a copy must compile to play the agents table ``policies`` (one row per seat) in a game that declares
    its observations (``observed``) or not: greedy for a greedy seat and for a search's greedy rollouts or
    widening (its first child is greedy's move), mc, the raw or the observed tree, and cut-off playouts."""
    from simcore import agents

    used = set()
    for row in policies:
        kind = row[agents.KIND]
        used |= {"greedy"} if kind == agents.GREEDY else set()
        if kind == agents.MC:
            used |= {"mc", "cut"} if row[agents.MC_CUTOFF] > 0 else {"mc"}
        if kind == agents.ISMCTS:
            used.add("observed" if observed and row[agents.IS_TREE] == 1 else "tree")
            used |= {"greedy"} if row[agents.IS_ROLLOUT] == 1 or row[agents.IS_WIDEN] > 0 else set()
            used |= {"cut"} if row[agents.IS_CUTOFF] > 0 else set()
    return frozenset(used)


def serving(needed):
    """The copies that can play what ``needed`` asks for, the smallest first: itself, the plain copy (for random
    seats) and the whole one."""
    larger = [PLAIN] if needed < PLAIN else []
    return [needed] + larger + ([EVERY] if needed != EVERY else [])


def copy_suffix(uses):
    """How a copy's cache entries are named apart from the whole copy's (none): ``.plain``, ``.random``, else
    the uses it compiles."""
    if uses == EVERY:
        return ""
    return ".plain" if uses == PLAIN else ".random" if uses == RANDOM else "." + "+".join(sorted(uses))


def instantiate(game_globals, uses=EVERY, checked=CHECK_LEGAL):
    """Compile the agents, the game loop and ``run_batch`` for one game: name -> jitted function, the
    interface names bound to the game's functions (or the defaults of capabilities it lacks) and the scratch
    sizes to its constants.

    ``uses`` (a subset of :data:`USES`) is what the copy compiles beyond random seats; each use is a flag its
    templates test, so that numba prunes the rest before typing it: the copy plays the same games as the whole
    one for the seats it serves, in a fraction of the compile. :data:`PLAIN`: random and greedy seats;
    :data:`RANDOM`: random seats only (a run's default); :func:`uses_of` gives a run's.

    ``checked``: ``play_action`` is ``loop.apply_checked`` (every action applied must be legal, else
    ``AssertionError``), else ``loop.apply_unchecked``; by default as ``SIMCORE_CHECK_LEGAL`` says.

    Each copy is cached under the game's name (numba names a cache entry after the file and the qualified
    name), so the games' copies never collide. ``run_batch`` allocates the scratch, so it is numba's plain
    ``njit(nogil=True)`` (with reference counting); everything it calls is a :func:`simcore.engine.jit.kernel`."""
    game_globals = {**defaults.of(game_globals.get("GAME")), **game_globals}
    missing = [name for name in INTERFACE + SIZES if name not in game_globals]
    if missing:
        raise ValueError(f"{game_globals['__name__']} does not provide {', '.join(missing)}; allowed: a game "
                         "module with every name of simcore.games.CONTRACT and of its CAPABILITIES")
    namespace = {**vars(core), **vars(loop)}
    namespace.update({name: game_globals[name] for name in INTERFACE + SIZES})
    namespace["OBSERVED"] = observed = bool(getattr(game_globals.get("GAME"), "observations", False))
    namespace.update({flag: use in uses and (use != "observed" or observed) for use, flag in USES.items()})
    namespace["N_KINDS"] = len(game_globals["ACTION_KINDS"])
    namespace["MAX_TRACE_STEPS"] = game_globals["MAX_TRACE_STEPS"]
    game = game_globals["__name__"].rpartition(".")[2]
    # the checked copy's entries are named apart: a process may hold both, and a cache folder may too
    prefix = (f"{game}.checked" if checked else game) + copy_suffix(uses)
    compiled = {}
    for name in OWN:
        if name in game_globals:
            namespace[name] = compiled[name] = game_globals[name]

    def bind_one(template, compile_, name=None):
        name = name or template.__name__
        function = types.FunctionType(template.__code__, namespace, template.__name__)
        function.__qualname__ = f"{prefix}.{template.__name__}"
        function.__module__ = game_globals["__name__"]
        namespace[name] = compiled[name] = compile_(function)

    if checked:
        bind_one(loop.apply_checked, kernel, "play_action")
    else:
        bind_one(loop.apply_unchecked, kernel(inline="always"), "play_action")
    for template in TEMPLATES:
        if template.__name__ not in compiled:
            bind_one(template, kernel(inline="always") if template.__name__ in INLINE else kernel)
    bind_one(core.scratch, njit(**jit.ENTRY))
    if uses == EVERY:
        bind_one(loop.search_batch, njit(**jit.ENTRY))
        bind_one(loop.search_tree, njit(**jit.ENTRY))
    bind_one(loop.agent_action, njit(**jit.ENTRY))      # compiled on its first call: the handle's and replays'
    bind_one(loop.run_batch, njit(**jit.ENTRY, nogil=True))
    bind_one(loop.run_traced, njit(**jit.ENTRY, nogil=True))     # compiled on its first call: a traced run only
    if uses == RANDOM and all(name in game_globals for name in RANDOM_GAME):
        namespace.update({name: game_globals[name] for name in RANDOM_GAME})
        bind_one(loop.run_random_games, njit(**jit.ENTRY, nogil=True))   # the game's own whole random games
    compiled.update({name: namespace[name] for name in INTERFACE + SIZES})
    return compiled


WAIT = 0.2       # seconds the main thread waits on a batch's threads at a time: a signal acts between two waits

_running = {}        # the flags of every batch playing now (id -> array): an interrupt halts them all


def halt_all():
    """Stop every batch playing in this process at its threads' next game (Ctrl-C, SIGTERM): each then raises
    KeyboardInterrupt rather than return rows it did not play."""
    for flags in list(_running.values()):
        flags[loop.F_HALT] = 1


class Threaded:
    """A batch function (``loop.run_batch`` or ``loop.run_traced``) played over ``numba.get_num_threads()`` threads,
    each taking the next few chunks as it finishes its last (so a thread that drew short games is never idle while
    another plays on), in the jitted code, without the GIL. Python threads rather than numba's ``prange``, because a
    ``prange`` cost every game's first compile about 3 s more (and an ISMCTS copy's about 6 s): numba compiles a
    parallel function through a pipeline and a gufunc of its own. The rows are the same whatever the thread count
    or the order the chunks are played in: a row depends on its seed and game index only.

    The caller's thread only waits, a little at a time, so that a signal's handler runs there at once (a thread in
    jitted code runs none until it returns, and a game may be long); an interrupt stops the threads at their next
    game (``loop.F_HALT``). They are daemons: a process ending on an interrupt does not wait for a game in play.
    A decision the game loop refused (``loop.broken``) is raised as :class:`GameError`."""

    def __init__(self, dispatcher):
        self.dispatcher = dispatcher
        # what a refusal names: the game (its copy's module is the game's) and its codes (the copy's namespace)
        self.game = dispatcher.py_func.__module__.rpartition(".")[2]
        self.n_codes = dispatcher.py_func.__globals__["N_ACTION_CODES"]

    @property
    def signatures(self):
        return self.dispatcher.signatures

    def __call__(self, params, agents, seed, start, out, *trace):
        n_chunks = -(-out.shape[0] // loop.chunk_games.py_func(agents))
        threads = max(1, min(numba.get_num_threads(), n_chunks))
        grain = max(1, n_chunks // (8 * threads))      # chunks taken at a time: small, yet a call is rare
        taken = itertools.count(0, grain)              # next() is atomic under the GIL
        flags = np.zeros(loop.FLAGS, np.int64)
        failed = []

        def share():
            try:       # an empty batch calls once all the same: engine.load compiles (or loads) the copy so
                while not flags[loop.F_HALT] and (first := next(taken)) < max(n_chunks, 1):
                    self.dispatcher(params, agents, seed, start, out, *trace, np.int64(first),
                                    np.int64(first + grain), flags)
            except loop.BrokenGame:
                failed.append(GameError(f"game {self.game}: a search played an action outside the game's codes; "
                                        f"allowed: {self.codes()}"))
                flags[loop.F_HALT] = 1
            except BaseException as e:      # raised in the caller's thread, as if played there
                failed.append(e)
                flags[loop.F_HALT] = 1

        workers = [threading.Thread(target=share, daemon=True) for _ in range(threads)]
        _running[id(flags)] = flags
        try:
            for worker in workers:
                worker.start()
            for worker in workers:
                while worker.is_alive():
                    worker.join(WAIT)
        except BaseException:
            flags[loop.F_HALT] = 1
            raise
        finally:
            _running.pop(id(flags), None)
        if failed:
            raise failed[0]
        if flags[loop.F_ERROR]:
            raise GameError(self.refusal(flags))
        if flags[loop.F_HALT]:      # halted from outside (halt_all): the rows are not all played
            raise KeyboardInterrupt

    def refusal(self, flags):
        """The one line of a decision the game loop refused."""
        where = (f"game {self.game}: seat {flags[loop.F_SEAT]} at step {flags[loop.F_STEP]} of game index "
                 f"{flags[loop.F_GAME]}")
        if flags[loop.F_ERROR] == loop.NO_ACTION:
            return f"{where} has no legal action (legal_actions listed none); allowed: one or more at every decision"
        return f"{where} chose action {flags[loop.F_ACTION]}, outside the game's codes; allowed: {self.codes()}"

    def codes(self):
        return f"0 to {self.n_codes - 1} (N_ACTION_CODES {self.n_codes})"


class Bound:
    """A game's agents and game loop, compiled for it (:func:`bind`): the jitted interface (``interface``,
    the game's own functions and the defaults of what it lacks), the whole copy (``compiled``: every agent)
    and the copies for fewer uses (:meth:`copy`), each built on its first use."""

    def __init__(self, module, checked=CHECK_LEGAL):
        self.compiled = instantiate(vars(module), checked=checked)
        self.interface = {name: self.compiled[name] for name in INTERFACE + SIZES}
        self.search_batch = self.compiled["search_batch"]
        self.agent_action = self.compiled["agent_action"]
        self.search_tree = self.compiled["search_tree"]
        self._module = module
        self._checked = checked
        self._copies = {EVERY: self.compiled}
        self._runners = {}

    def copy(self, uses):
        """The copy compiling ``uses`` (a subset of :data:`USES`), made once: a run of random and greedy seats
        never builds a search, an ISMCTS run never builds mc."""
        if uses not in self._copies:
            self._copies[uses] = instantiate(vars(self._module), uses=uses, checked=self._checked)
        return self._copies[uses]

    def runner(self, uses, traced=False, entry=None):
        """The threaded batch function of the copy compiling ``uses``: ``run_batch``, ``run_traced``, or the
        ``entry`` named (``run_random_games``), made once."""
        key = (uses, entry or ("run_traced" if traced else "run_batch"))
        if key not in self._runners:
            self._runners[key] = Threaded(self.copy(uses)[key[1]])
        return self._runners[key]

    @property
    def run_random_games(self):
        """The threaded batch of the game's own whole random games (``loop.run_random_games``)."""
        return self.runner(RANDOM, entry="run_random_games")

    def ready(self, uses, traced, args):
        """Is the copy compiling ``uses`` compiled for ``args`` (``engine.batch_args``), in this process or in
        numba's cache?"""
        dispatcher = self.runner(uses, traced).dispatcher
        return bool(dispatcher.overloads) or jit.cached(dispatcher, *args, unknown=False)

    @property
    def plain(self):
        return self.copy(PLAIN)

    @property
    def random(self):
        return self.copy(RANDOM)

    @property
    def plain_agent_action(self):
        """The plain copy's ``agent_action``: random and greedy seats decide as in the whole copy, whose
        ``agent_action`` compiles every search too (a replay of Zwai's random and greedy games compiled for 17 s)."""
        return self.plain["agent_action"]

    # the threaded batch functions of the whole, plain and random copies, by the names the tests and tools know
    run_batch = property(lambda self: self.runner(EVERY))
    run_traced = property(lambda self: self.runner(EVERY, traced=True))
    run_plain = property(lambda self: self.runner(PLAIN))
    run_plain_traced = property(lambda self: self.runner(PLAIN, traced=True))
    run_random = property(lambda self: self.runner(RANDOM))
    run_random_traced = property(lambda self: self.runner(RANDOM, traced=True))


_BOUND = {}


def bind(module, checked=CHECK_LEGAL):
    """The game module's :class:`Bound` copy of the agents and game loop, made once per process (and once more
    for ``checked``, should it differ from the process's build: ``simcore check`` plays the searches checked)."""
    key = (module.__name__, bool(checked))
    if key not in _BOUND:
        _BOUND[key] = Bound(module, checked)
    return _BOUND[key]
