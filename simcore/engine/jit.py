"""How simcore compiles its jitted code: ``@kernel`` is numba's ``njit`` with the project's settings.

``cache=True``   compiled once per source version, then loaded from the cache (``simcore cache``).
``nogil=True``   threads and Dask workers run games in parallel.
``_nrt=False``   no reference counting of arrays. numba's runtime otherwise counts a reference to every array
                 a jitted function receives: an atomic increment on entry and a decrement at every exit, which
                 its pruning pass cannot remove from a function with several exits or calls in between. On the
                 decision path (small functions called for every move of every rollout) those atomic updates
                 were about a quarter of random play's time. Nothing below ``run_batch`` allocates an array
                 (scratch is allocated once per thread's share and handed down), so nothing there needs the counts;
                 numba refuses to compile an allocation in such a function, which keeps it so.

``no_cfunc_wrapper=True``  no C-callable wrapper beside each function: numba makes one by default so that a
                 function can be passed as a first-class function value, which simcore never does. Its code was
                 optimised and emitted with every function's own: without it a game's first compile takes about a
                 tenth less time (Der Herr der Wichtel's random copy: 18.1 to 18.4 s against 20.3 to 21.6 s, issue 57).

``run_batch`` itself allocates the scratch, so it keeps numba's reference counting: :data:`ENTRY`.
"""

import functools
import os
import sys
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils, config
from numba.core.caching import CacheImpl, UserProvidedCacheLocator
from numba.extending import intrinsic

import simcore

SETTINGS = {"cache": True, "nogil": True, "_nrt": False, "no_cfunc_wrapper": True}
# what an entry point called from Python (``run_batch``, the scratch) compiles with: it allocates, so it keeps
# numba's reference counting
ENTRY = {"cache": True, "no_cfunc_wrapper": True}


class GameCacheLocator(UserProvidedCacheLocator):
    """Where numba caches a game's machine code: in a folder of the game's own inside the core's cache folder
    (``simcore.game_folder``: named by the hash of the game's package), so that editing or adding one game
    recompiles that game alone. A function is the game's when its module is in the game's package: its rules, its
    heuristics and its copy of the agents and game loop (``simcore.engine.binding.bind`` names the copy's module
    after the game's). Everything else, the core, is cached where numba's own locator puts it."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(config.CACHE_DIR, _game_of(py_func.__module__),
                                        self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        """numba's own checks (a cache folder set, the source a file, the folder writable), for a game's function
        only."""
        return super().from_function(py_func, py_file) if _game_of(py_func.__module__ or "") else None


def _game_of(module):
    """The cache folder of the registered game whose package holds ``module``, else None (the core)."""
    registry = sys.modules.get("simcore.games")
    for name, package in getattr(registry, "MODULES", {}).items():
        if module == package or module.startswith(package + "."):
            return _folder(name, package)
    return None


@functools.cache
def _folder(name, package):
    """Game ``name``'s cache folder, made (once a process) when its first jitted function is defined."""
    folder = simcore.game_folder(name, sys.modules[package].__path__[0])
    if config.CACHE_DIR:
        try:
            simcore.use_game_folder(config.CACHE_DIR, name, folder)
        except OSError:
            pass            # the locator finds it unwritable and leaves the function to numba's own
    return folder


def why_compiling(name):
    """Why game ``name`` compiles now, in words: its first run on this machine, an edit of its own package (only
    it compiles again), or of the core, the engine or the agents (every game compiles again)."""
    package = sys.modules["simcore.games"].MODULES[name]
    core = Path(config.CACHE_DIR)
    current = _folder(name, package)
    if any((core / current).rglob("*.nbi")):       # the game is cached: a part of it runs for the first time
        return "first run only"
    if any(f.name != current for f in core.glob(f"game-{name}-*")):
        return f"{name}'s own source changed since it was compiled here: it alone compiles again"
    if any(f.parent != core for f in core.parent.glob(f"numba-*/game-{name}-*")):
        return "the shared core (the engine, the agents or numba) changed since it was compiled here: every game " \
               "compiles again"
    return "first run only"


if GameCacheLocator not in CacheImpl._locator_classes:   # numba's list of locators: the first that applies wins
    CacheImpl._locator_classes.insert(0, GameCacheLocator)


def kernel(function=None, **options):
    """``@kernel`` or ``@kernel(inline="always")``: njit with :data:`SETTINGS` (``options`` add to them), compiled
    once for the types of its arguments, never again for their values (:func:`one_compile_per_type`)."""
    compile_ = njit(**SETTINGS, **options)
    if function is None:
        return lambda f: one_compile_per_type(compile_(f))
    return one_compile_per_type(compile_(function))


def _widened(kind):
    kind = types.unliteral(kind)
    if isinstance(kind, types.Integer) and kind.bitwidth < 64:
        return types.int64 if kind.signed else types.uint64
    return kind


def one_compile_per_type(dispatcher):
    """Type the calls other jitted code makes to ``dispatcher`` by the types of their arguments, not by their
    values: numba otherwise compiles a function again for each constant a caller passes it (``decide(state, 3, x)``
    and ``decide(state, 4, x)`` were two compiles of Wichtel's ``decide``, twelve in all), a first run's time
    spent for no speed."""
    typed = dispatcher.get_call_template

    def get_call_template(args, kws):
        return typed(tuple(_widened(a) for a in args), {k: _widened(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of an integer (LLVM's ctpop: one instruction on current CPUs)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return x(x), codegen


@intrinsic
def lowest_bit(typingctx, x):
    """The index of the lowest set bit of a non-zero integer (LLVM's cttz: one instruction)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
    return x(x), codegen


def _host_has_pdep():
    """Does this machine's CPU have BMI2's pdep (which numba, compiling for the host, may then emit)?"""
    from llvmlite import binding

    try:
        return bool(binding.get_host_cpu_features().get("bmi2"))
    except RuntimeError:      # a host llvmlite cannot describe: the portable loop
        return False


@intrinsic
def _pdep_kth_bit(typingctx, bits, k):
    """The index of the k-th set bit of ``bits``: pdep deposits a lone bit k onto the set bits of ``bits``, at the
    k-th of them, whose index one count of trailing zeros reads."""
    if not isinstance(bits, types.Integer) or not isinstance(k, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        word = ir.IntType(64)
        x = context.cast(builder, args[0], signature.args[0], types.int64)
        n = context.cast(builder, args[1], signature.args[1], types.int64)
        pdep = cgutils.get_or_insert_function(builder.module, ir.FunctionType(word, [word, word]),
                                              "llvm.x86.bmi.pdep.64")
        deposited = builder.call(pdep, [builder.shl(ir.Constant(word, 1), n), x])
        return builder.cttz(deposited, ir.Constant(ir.IntType(1), 1))
    return types.int64(bits, k), codegen


@njit(**SETTINGS, inline="always")
def _loop_kth_bit(bits, k):
    """The index of the k-th set bit of ``bits``, the k lowest set bits cleared one by one."""
    for _ in range(k):
        bits &= bits - 1
    return np.int64(lowest_bit(bits))


# kth_bit(bits, k): the index of the k-th (from 0) set bit of ``bits``, k below their count. One pdep where the CPU
# has BMI2 (a loop stopping at the k-th bit mispredicts its exit on most calls: Zwai's own random game played 1.7x
# as many games a second with pdep); the loop elsewhere. numba's cache keys machine code by the CPU, so neither is
# loaded on the other.
kth_bit = _pdep_kth_bit if _host_has_pdep() else _loop_kth_bit


def cached(dispatcher, *args, unknown=True):
    """Will ``dispatcher(*args)`` run without compiling: is its machine code for these argument types loaded in
    this process or in numba's cache? (A first run of a game compiles for half a minute or more; the command
    line says so before it starts.) ``unknown`` when numba's cache cannot be read: True for a notice (better
    silent than wrong), False where a copy is chosen by it (``simcore.engine.copy_uses``)."""
    try:
        signature = tuple(dispatcher.typeof_pyval(a) for a in args)
        if signature in dispatcher.overloads:
            return True
        cache = dispatcher._cache          # numba's own cache index: no public API tells this
        key = cache._index_key(signature, dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except (AttributeError, OSError, TypeError, ValueError):
        return unknown
