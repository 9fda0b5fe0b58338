"""How simcore compiles its jitted code: ``@kernel`` is numba's ``njit`` with the project's settings.

``cache=True``   compiled once per source version, then loaded from the cache (``simcore cache``).
``nogil=True``   threads and Dask workers run games in parallel.
``_nrt=False``   no reference counting of arrays. numba's runtime otherwise counts a reference to every array
                 a jitted function receives: an atomic increment on entry and a decrement at every exit, which
                 its pruning pass cannot remove from a function with several exits or calls in between. On the
                 decision path (small functions called for every move of every rollout) those atomic updates
                 were about a quarter of random play's time. Nothing below ``run_batch`` allocates an array
                 (scratch is allocated once per chunk and handed down), so nothing there needs the counts;
                 numba refuses to compile an allocation in such a function, which keeps it so.

``run_batch`` itself allocates the scratch, so it keeps numba's plain ``njit(cache=True, parallel=True)``.
"""

from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

SETTINGS = {"cache": True, "nogil": True, "_nrt": False}


def kernel(function=None, **options):
    """``@kernel`` or ``@kernel(inline="always")``: njit with :data:`SETTINGS` (``options`` add to them)."""
    compile_ = njit(**SETTINGS, **options)
    return compile_ if function is None else compile_(function)


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


def cached(dispatcher, *args):
    """Will ``dispatcher(*args)`` run without compiling: is its machine code for these argument types loaded in
    this process or in numba's cache? (A first run of a game compiles for half a minute or more; the command
    line says so before it starts.) True when numba's cache cannot be read: better silent than wrong."""
    try:
        signature = tuple(dispatcher.typeof_pyval(a) for a in args)
        if signature in dispatcher.overloads:
            return True
        cache = dispatcher._cache          # numba's own cache index: no public API tells this
        key = cache._index_key(signature, dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except (AttributeError, OSError, TypeError, ValueError):
        return True
