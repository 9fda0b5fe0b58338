"""The heuristics of skirmish: what a seat plays by rule of thumb, reading only what it may see."""

import numpy as np

from simcore.engine.jit import kernel
from simcore.games.skirmish.rules import (
    A_THROW,
    GROUP,
    MAX_ACTIONS,
    PH_THROW,
    S_GNOME,
    S_PHASE,
    greedy_move,
    greedy_target,
)

WORK_SIZE = 2 * MAX_ACTIONS + 3 * GROUP   # greedy's scratch: the reachable cells, three groups, the scores


@kernel
def greedy_action(state, params, seat, streams, work):
    """The greedy policy's action (docs/skirmish.md, "greedy")."""
    if state[S_PHASE] == PH_THROW:
        return A_THROW + greedy_target(state, params, seat)
    return greedy_move(state, params, seat, np.int64(state[S_GNOME]), streams, work)   # int64: see greedy_move
