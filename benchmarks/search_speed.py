"""ISMCTS iterations per second of one searching seat against greedy, on one thread (``search_batch``), after
a warm-up game: for comparing versions or search settings (time two such runs alternated).

    python benchmarks/search_speed.py GAME SPEC GAMES
    python benchmarks/search_speed.py zwai ismcts:iterations=1000,tree=raw 64
"""

import sys
import time

from simcore.engine import binding
from simcore.io import config as cfg


def main(game, spec, n):
    run = cfg.resolve(game, policies=[("all", "greedy"), ("0", spec)])
    bound = binding.bind(run.module)
    params, agents = run.params_array(), run.policies_array()
    bound.search_batch(params, agents, 1, 0, 1)          # compiled or loaded before the clock starts
    start = time.perf_counter()
    iterations = bound.search_batch(params, agents, 1, 0, n)
    seconds = time.perf_counter() - start
    print(f"{game} {spec}: {iterations / seconds:,.0f} iterations/s ({iterations:,} in {seconds:.2f} s, "
          f"{seconds / n:.3f} s a game)")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
