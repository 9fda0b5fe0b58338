"""Compile (or load) every jitted entry point the tests use, for the games named on the command line.

    python tests/warm_cache.py zwai skirmish

A game compiles for 30 s to a minute the first time (a clean machine, as in CI), and a compile uses one
core: tests/conftest.py runs this for two halves of the games in two processes at once before the tests
start, so that both cores compile and the tests load the machine code from numba's cache. With a warm cache
it only loads (a second or two per game).
"""

import sys

from simcore import engine, handle
from simcore.engine import binding
from simcore.io import config as cfg
from simcore.watch import replay

SEATS = [("all", "greedy"), ("0", "ismcts:iterations=2,rollout=greedy"), ("1", "mc:rollouts=1")]


def warm(game):
    run = cfg.resolve(game, policies=SEATS, games=2)
    params, policies = run.params_array(), run.policies_array()
    engine.load(run.module, params, policies, uses=binding.EVERY)    # every agent: it serves every searching test
    plain = cfg.resolve(game, policies=[("all", "greedy")]).policies_array()
    engine.load(run.module, params, plain)                                   # the plain copy
    engine.load(run.module, params, plain, traced=True)                      # ... and its traced batch
    binding.bind(run.module).search_batch(params, policies, 1, 0, 1)  # the bench's one-thread batch
    replay.play(run, 0, pictures=True)                  # the handle, agent_action, round-end tables, pictures
    state = handle.load_game(game).new_initial_state(seed=1)
    state.resample(state.current_player(), seed=2)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        warm(name)
