"""Leduc poker in words (actions, what a seat knows, the whole state), and its deal as OpenSpiel draws it."""

from leduc_poker.rules import (
    FOLD,
    P_PLAYERS,
    RAISE,
    S_ANTE,
    S_CARD,
    S_MOVES,
    S_PLAYED,
    S_PUBLIC,
    S_ROUND,
    S_ROUND1,
    S_SEAT,
    S_STAKES,
    SUITS,
)


def card(code):
    """A card in words: its rank (J, Q, K) and its suit (1, 2), as OpenSpiel's source names them; - for none."""
    return f"{'JQK'[code // SUITS]}{code % SUITS + 1}" if code >= 0 else "-"


def action_to_string(state, params, action):
    if action == FOLD:
        return "fold"
    if action == RAISE:
        return "raise"
    seat = state[S_SEAT]
    return "check" if seat >= 0 and state[S_STAKES] == state[S_ANTE + seat] else "call"


def round_of(state):
    """The betting round (1 or 2): a replay draws the table when the public card is dealt."""
    return int(state[S_ROUND])


def _moves(state):
    """The actions, f fold, c call or check, r raise; a / where round 2 began."""
    words = ["fcr"[state[S_MOVES + k]] for k in range(state[S_PLAYED])]
    if state[S_ROUND] == 2:
        words.insert(state[S_ROUND1], "/")
    return "".join(words)


def information_state_string(state, params, seat):
    """The seat's own card, the public card once dealt, and every action so far (all actions are seen by all)."""
    return (f"seat {seat}, card {card(state[S_CARD + seat])}, public {card(state[S_PUBLIC])}, "
            f"moves {_moves(state) or '-'}")


def state_to_string(state, params):
    seats = range(params[P_PLAYERS])
    cards = " ".join(card(state[S_CARD + seat]) for seat in seats)
    chips = " ".join(str(state[S_ANTE + seat]) for seat in seats)
    return f"cards {cards}, public {card(state[S_PUBLIC])}, moves {_moves(state) or '-'}, chips in {chips}"


def openspiel_chance(state, params):
    """The deal as OpenSpiel's chance nodes draw it (a card's code is its outcome): seat 0's card, seat 1's, then
    the public card once round 2 began (simcore check plays both games)."""
    dealt = [int(state[S_CARD + seat]) for seat in range(params[P_PLAYERS])]
    return dealt + [int(state[S_PUBLIC])] if state[S_PUBLIC] >= 0 else dealt
