"""What a game's first compile costs, function by function: numba's compile events, on a cold cache.

    python benchmarks/compile_cost.py GAME [--policy SPEC]... [--top N]
    python benchmarks/compile_cost.py wichtel --policy greedy --policy 0=ismcts

The game's batch function is loaded as `simcore run` loads it (with the agents its seats use), in a new numba
cache folder, so everything compiles. Each compiled function's own time is its compile's time less that of the
functions compiled inside it (numba compiles a callee when it first types a call to it), so the own times add
up to the whole compile. The table gives the functions that cost most, and the cost by where the code lives
(the game's rules, its bound copy of the loop and agents, the agents, the engine, numba's own helpers).
"""

import argparse
import os
import sys
import tempfile
import time

from numba.core import event


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--policy", action="append", default=[], metavar="[SEAT=]SPEC")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    # a cold cache: set before simcore (and numba) are imported
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="simcore-cold-")
    os.environ.pop("NUMBA_CACHE_DIR", None)
    from simcore import engine
    from simcore.io import config as cfg

    run = cfg.resolve(args.game, policies=[cfg.parse_policy(p) for p in args.policy])
    costs = Costs()
    event.register("numba:compile", costs)
    began = time.perf_counter()
    engine.load(run.module, run.params_array(), run.policies_array())
    wall = time.perf_counter() - began
    event.unregister("numba:compile", costs)
    print(f"{args.game} ({', '.join(args.policy) or 'default policies'}): compiled in {wall:.1f} s, "
          f"{len(costs.own)} functions, their own times adding to {sum(t for t, _ in costs.own.values()):.1f} s")
    print(f"\n{'function':<48} {'where':<10} {'own s':>7} {'compiles':>9}")
    for name, (seconds, count) in sorted(costs.own.items(), key=lambda kv: -kv[1][0])[:args.top]:
        print(f"{name[1]:<48} {name[0]:<10} {seconds:7.2f} {count:9d}")
    print(f"\n{'where':<10} {'own s':>7}")
    for where, seconds in sorted(costs.by_where().items(), key=lambda kv: -kv[1]):
        print(f"{where:<10} {seconds:7.2f}")


def place(function):
    """Where a compiled function's code lives: the game's rules, the game's copy of the engine's loop and agents
    (``simcore.engine.binding``: qualified GAME.NAME or GAME.plain.NAME), the agents, the engine, or numba's
    helpers."""
    module = getattr(function, "__module__", "") or ""
    qualified = getattr(function, "__qualname__", "")
    if module.startswith("simcore.games."):
        return "bound" if "." in qualified and "<locals>" not in qualified else "game"
    if module.startswith("simcore.agents"):
        return "agents"
    if module.startswith("simcore"):
        return "engine"
    return "numba"


class Costs(event.Listener):
    """A numba:compile listener: each function's own compile time (less its callees' compiles)."""

    def __init__(self):
        self.stack = []         # [key, started, seconds of nested compiles]
        self.own = {}           # key -> [own seconds, compiles]

    def on_start(self, e):
        function = getattr(e.data["dispatcher"], "py_func", None)
        self.stack.append([(place(function), getattr(function, "__qualname__", "?")), time.perf_counter(), 0.0])

    def on_end(self, e):
        now = time.perf_counter()
        key, started, nested = self.stack.pop()
        total = now - started
        entry = self.own.setdefault(key, [0.0, 0])
        entry[0] += total - nested
        entry[1] += 1
        if self.stack:
            self.stack[-1][2] += total

    def by_where(self):
        out = {}
        for (where, _), (seconds, _) in self.own.items():
            out[where] = out.get(where, 0.0) + seconds
        return out


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main()
