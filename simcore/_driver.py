"""Plays games through a game's decision interface one jitted call at a time, for the conformance checks
(:mod:`simcore.testing`) and the interface tests.

The engine's own loop (``simcore.agents``) is jitted; this Python twin plays the interface with ``random`` and
``greedy`` seats, so that a check can compare its rows with the game's batch runner, decision by decision.
A broken game fails here with an ``AssertionError`` of one line, never with ``assert`` (which ``python -O`` drops).
"""

import numpy as np

from simcore import engine
from simcore.engine import rng
from simcore.engine.binding import bind


def play(module, params, kinds, seed, game_index, on_decision=None, on_end=None):
    """One game with ``kinds[seat]`` in ("random", "greedy"); returns its result row.

    ``on_decision(state, seat, actions)`` is called before each decision (for invariant checks), ``on_end(state)``
    with the final state.
    """
    state = module.new_state()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    rng.seed_streams(streams, seed, game_index)
    module.begin(state, params, streams)
    actions = np.zeros(module.MAX_ACTIONS, np.int64)
    work = np.zeros(module.WORK_SIZE, np.int64)
    while (seat := module.current_player(state, params)) >= 0:
        n = module.legal_actions(state, params, actions)
        if not 1 <= n <= module.MAX_ACTIONS:
            raise AssertionError(f"game {game_index}: legal_actions listed {n} actions for seat {seat}; allowed: 1 "
                                 f"to MAX_ACTIONS ({module.MAX_ACTIONS})")
        if on_decision is not None:
            on_decision(state, seat, actions[:n].copy())
        if kinds[seat] == "random":
            action = actions[rng.randint(streams, rng.POLICY + seat, n)]
        else:
            action = module.greedy_action(state, params, seat, streams, work)
            if action not in actions[:n]:
                raise AssertionError(f"game {game_index}: greedy chose {action} for seat {seat}, not among the legal "
                                     f"actions {actions[:n].tolist()}")
        module.apply_action(state, params, action, streams)
    row = np.zeros(engine.width(module), np.int64)
    if on_end is not None:
        on_end(state.copy())
    module.write_row(state, params, row)
    return row


def rows(module, params, kinds, seed, n_games, start=0):
    return np.array([play(module, params, kinds, seed, start + i) for i in range(n_games)])


def decisions(module, params, kinds, games, seed=5):
    """(state copy, seat, legal-action list) at every decision of ``games`` games."""
    seen = []
    for game in range(games):
        play(module, params, kinds, seed, game,
             on_decision=lambda state, seat, actions: seen.append((state.copy(), seat, actions)))
    return seen


def resampled(module, state, params, seat, seed):
    """A copy of ``state`` with what ``seat`` cannot see redrawn from streams seeded with ``seed``."""
    world = state.copy()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    rng.seed_streams(streams, seed, 0)
    bind(module).interface["resample"](world, params, seat, streams)
    return world
