"""Goofspiel's heuristics: the greedy bid and the evaluation of a state, reading only what a seat may see."""

from simcore.engine.estimates import win_shares
from simcore.engine.jit import kernel
from simcore.games.goofspiel.rules import (
    MAX_CARDS,
    P_CARDS,
    P_PLAYERS,
    P_RETURNS,
    POINT_DIFFERENCE,
    S_DECK,
    S_HAND,
    S_POINTS,
    S_PRIZE,
    TOTAL_POINTS,
    kth_card,
)

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


# --- the evaluation ------------------------------------------------------------------


@kernel
def prizes_left(state, params):
    """The points still to be won: the current prize and those face down (public: which cards are left)."""
    left = state[S_PRIZE] + 1 if state[S_PRIZE] >= 0 else 0
    for card in range(params[P_CARDS]):
        left += state[S_DECK + card] * (card + 1)
    return left


@kernel
def evaluate(state, params, seat, out):
    """Each seat's expected return as the points stand (docs/goofspiel.md, "evaluate"), from public facts only:
    the points taken and the prizes left. ``total_points``: the points plus an equal share of those left;
    ``point_difference``: the present difference (the rest is expected to split evenly); ``win_loss``: each
    seat's chance to end with the most points (a softmax of the points over a spread of one equal share of the
    prizes left, plus one), as the return of a win (+1) against a loss (-1/(players - 1))."""
    players = params[P_PLAYERS]
    share = prizes_left(state, params) / players
    total = 0.0
    for q in range(players):
        total += state[S_POINTS + q]
        out[q] = state[S_POINTS + q]
    if params[P_RETURNS] == TOTAL_POINTS:
        for q in range(players):
            out[q] += share
    elif params[P_RETURNS] == POINT_DIFFERENCE:
        for q in range(players):
            out[q] -= total / players
    else:
        win_shares(out, players, 1.0 + share)
        for q in range(players):
            out[q] = out[q] - (1.0 - out[q]) / (players - 1)
