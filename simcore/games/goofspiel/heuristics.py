"""Goofspiel's heuristics: the greedy bid and the evaluation of a state, reading only what a seat may see."""

from simcore.engine import rng
from simcore.engine.estimates import win_shares
from simcore.engine.jit import kernel
from simcore.games.goofspiel.rules import (
    MAX_CARDS,
    P_CARDS,
    P_PLAYERS,
    P_RETURNS,
    POINT_DIFFERENCE,
    S_BID,
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
def prize_rank(state):
    """The prize's rank among the prizes still in play (the current one and those face down): public."""
    rank = 0
    for card in range(state[S_PRIZE]):
        rank += state[S_DECK + card]
    return rank


@kernel
def greedy_action(state, params, seat, streams, work):
    """Match the prize: bid the card whose rank in the own hand is the prize's rank among the prizes still in
    play (the current one and those face down). It reads the own hand and the public prizes only."""
    return kth_card(state, S_HAND + seat * MAX_CARDS, params[P_CARDS], prize_rank(state))


@kernel
def greedy_among(state, params, seat, streams, work, listed, n):
    """Greedy among the bids ``listed[:n]`` (those a restriction allows): the card whose rank in the own hand is
    nearest the prize's rank, one of two as near drawn from the seat's policy stream; given every card in hand,
    the rank-matching card itself (greedy_action's, drawing nothing)."""
    rank = prize_rank(state)
    best_gap, tied = 1 << 30, 0
    for i in range(n):
        gap = abs(rank_in_hand(state, seat, listed[i]) - rank)
        if gap < best_gap:
            best_gap, tied = gap, 0
        if gap == best_gap:
            tied += 1
    pick = rng.randint(streams, rng.POLICY + seat, tied) if tied > 1 else 0
    for i in range(n):
        if abs(rank_in_hand(state, seat, listed[i]) - rank) == best_gap:
            if pick == 0:
                return listed[i]
            pick -= 1
    return -1


@kernel
def rank_in_hand(state, seat, card):
    """How many cards below ``card`` the seat holds."""
    below = 0
    for lower in range(card):
        below += state[S_HAND + seat * MAX_CARDS + lower]
    return below


# --- the evaluation ------------------------------------------------------------------


@kernel
def prizes_left(state, params):
    """The points still to be won: the current prize and those face down (public: which cards are left)."""
    left = state[S_PRIZE] + 1 if state[S_PRIZE] >= 0 else 0
    for card in range(params[P_CARDS]):
        left += state[S_DECK + card] * (card + 1)
    return left


@kernel
def hand_before(state, params, seat):
    """The sum of the cards ``seat`` held as this trick began: its hand and its face-down bid (public, since
    every earlier bid was shown; which card the bid is stays hidden)."""
    total = state[S_BID + seat] + 1 if state[S_BID + seat] >= 0 else 0
    for card in range(params[P_CARDS]):
        total += state[S_HAND + seat * MAX_CARDS + card] * (card + 1)
    return total


@kernel
def evaluate(state, params, seat, out):
    """Each seat's expected return (docs/goofspiel.md, "evaluate"), from public facts only: the points taken,
    the prizes left and the cards each seat held as the trick began. A seat is expected to end with its points
    plus the prizes left in proportion to its cards. ``total_points``: that; ``point_difference``: that less
    the mean; ``win_loss``: each seat's chance to end with the most (a softmax of the expected points over a
    spread of one plus an equal share of the prizes left), as the return of a win (+1) against a loss
    (-1/(players - 1))."""
    players = params[P_PLAYERS]
    left = prizes_left(state, params)
    cards = 0
    for q in range(players):
        cards += hand_before(state, params, q)
    mean = 0.0
    for q in range(players):
        out[q] = state[S_POINTS + q] + left * hand_before(state, params, q) / max(1, cards)
        mean += out[q] / players
    if params[P_RETURNS] == POINT_DIFFERENCE:
        for q in range(players):
            out[q] -= mean
    elif params[P_RETURNS] != TOTAL_POINTS:
        win_shares(out, players, 1.0 + left / players)
        for q in range(players):
            out[q] = out[q] - (1.0 - out[q]) / (players - 1)
