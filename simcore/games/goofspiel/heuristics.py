"""The heuristics of goofspiel: what a seat plays by rule of thumb, reading only what it may see."""

from simcore.engine.jit import kernel
from simcore.games.goofspiel.rules import MAX_CARDS, P_CARDS, S_DECK, S_HAND, S_PRIZE, kth_card

# --- the greedy heuristic ---------------------------------------------------------

WORK_SIZE = 1     # greedy keeps nothing between decisions


@kernel
def greedy_action(state, params, seat, streams, work):
    """Match the prize: bid the card whose rank in the own hand is the prize's rank among the prizes still in
    play (the current one and those face down). It reads the own hand and the public prizes only."""
    rank = 0
    for card in range(state[S_PRIZE]):
        rank += state[S_DECK + card]
    return kth_card(state, S_HAND + seat * MAX_CARDS, params[P_CARDS], rank)
