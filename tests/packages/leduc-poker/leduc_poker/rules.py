"""Leduc poker, 2 players, as OpenSpiel's ``leduc_poker``: a deck of 6 cards, 3 ranks (J, Q, K) of 2 suits, card c
of rank c // 2; one private card each, a round of betting, a public card, a second round of betting. Seat s is
player s; action 0 is fold, 1 call (a check when nothing is owed), 2 raise (OpenSpiel's codes). The state is one
``int8`` array::

    S_CARD   [MAX_SEATS]        the private card each seat holds (0 to 5)
    S_ANTE   [MAX_SEATS]        the chips each seat has put in: 1 (the ante) and its calls and raises, at most 13
    S_MOVES  [MAX_MOVES]        the actions played, in order, both rounds (for the words: "cr/rc")
    S_PUBLIC .. S_FOLDED        scalars: the public card (-1 until round 2), the round (1 or 2), the actions of
                                round 1 (once round 2 began), actions played, this round's raises and its calls
                                since the last raise, the stakes (the chips a seat must have put in to stay in),
                                the seat to act (-1 at the end), the seat that folded (-1: none)
"""

import numpy as np

from simcore.engine import O_N_TURNS, O_WIN, rng, score_offset
from simcore.engine.jit import kernel
from simcore.games import GameType, Param

MAX_SEATS = 2
O_SCORE = score_offset(MAX_SEATS)
SUITS, RANKS = 2, 3
N_CARDS = SUITS * RANKS
ANTE = 1
RAISE_1, RAISE_2 = 2, 4           # a raise's chips in round 1 and in round 2
MAX_RAISES = 2                    # per round
MAX_MOVES = 2 * (3 * MAX_SEATS - 2)   # per round: check, raise, raise, call
FOLD, CALL, RAISE = 0, 1, 2
P_PLAYERS = 0

GAME = GameType(
    name="leduc_poker", long_name="Leduc poker",
    rulebook="Southey et al., Bayes' bluff: opponent modelling in poker (2005); OpenSpiel's leduc_poker",
    player_counts=(2,), policies=("random", "mc", "ismcts"), margin="chips",
    params=(Param("players", 2, "players (2: OpenSpiel's leduc_poker for 2)", 2, MAX_SEATS),),
    heuristic=False, evaluate=False, picture=False, trace=False, openspiel="leduc_poker",
    summary="One private card each from J J Q Q K K; two betting rounds around a public card; a pair with it wins, "
            "else the higher card.")
EXTRA_COLUMNS = ()

S_CARD = 0
S_ANTE = S_CARD + MAX_SEATS
S_MOVES = S_ANTE + MAX_SEATS
S_PUBLIC = S_MOVES + MAX_MOVES
S_ROUND = S_PUBLIC + 1
S_ROUND1 = S_ROUND + 1
S_PLAYED = S_ROUND1 + 1
S_RAISES = S_PLAYED + 1
S_CALLS = S_RAISES + 1
S_STAKES = S_CALLS + 1
S_SEAT = S_STAKES + 1
S_FOLDED = S_SEAT + 1
STATE_SIZE = S_FOLDED + 1
STATE_DTYPE = np.int8
MAX_ACTIONS = N_ACTION_CODES = 3


def params_array(values):
    return np.array([values["players"]], np.int64)


@kernel
def draw(state, params, streams):
    """A card uniform over those left: held by no seat and not the public card (the DECK stream)."""
    left = N_CARDS - (state[S_PUBLIC] >= 0)
    for seat in range(params[P_PLAYERS]):
        left -= state[S_CARD + seat] >= 0
    k = rng.randint(streams, rng.DECK, left)
    for card in range(N_CARDS):             # the k-th card left
        taken = state[S_PUBLIC] == card
        for seat in range(params[P_PLAYERS]):
            taken = taken or state[S_CARD + seat] == card
        if not taken:
            if k == 0:
                return card
            k -= 1
    return -1


@kernel
def begin(state, params, streams):
    """Every seat antes one chip and is dealt one card, seat 0 first; seat 0 acts first."""
    state[:] = 0
    for seat in range(params[P_PLAYERS]):
        state[S_ANTE + seat] = ANTE
        state[S_CARD + seat] = -1
    state[S_PUBLIC] = -1
    for seat in range(params[P_PLAYERS]):
        state[S_CARD + seat] = draw(state, params, streams)
    state[S_ROUND] = 1
    state[S_STAKES] = ANTE
    state[S_FOLDED] = -1


@kernel
def current_player(state, params):
    return state[S_SEAT]


@kernel
def legal_actions(state, params, out):
    """Fold only when owing chips; call (or check) always; raise while the round has had fewer than 2 raises."""
    n = 0
    if state[S_STAKES] > state[S_ANTE + state[S_SEAT]]:
        out[n] = FOLD
        n += 1
    out[n] = CALL
    n += 1
    if state[S_RAISES] < MAX_RAISES:
        out[n] = RAISE
        n += 1
    return n


@kernel
def apply_action(state, params, action, streams):
    """A fold ends the game. A call puts in what the seat owes; a raise that and 2 chips more (4 in round 2). A
    round ends when every seat has checked, or when every other seat has called the last raise; round 1 ends with
    the public card dealt, seat 0 to act; round 2 with the showdown."""
    players = params[P_PLAYERS]
    seat = state[S_SEAT]
    state[S_MOVES + state[S_PLAYED]] = action
    state[S_PLAYED] += 1
    if action == FOLD:
        state[S_FOLDED] = seat
        state[S_SEAT] = -1
        return
    if action == RAISE:
        state[S_STAKES] += RAISE_1 if state[S_ROUND] == 1 else RAISE_2
        state[S_RAISES] += 1
        state[S_CALLS] = 0
    else:
        state[S_CALLS] += 1
    state[S_ANTE + seat] = state[S_STAKES]
    if (state[S_RAISES] == 0 and state[S_CALLS] == players) or (state[S_RAISES] > 0 and state[S_CALLS] == players - 1):
        if state[S_ROUND] == 1:
            state[S_ROUND] = 2
            state[S_ROUND1] = state[S_PLAYED]
            state[S_RAISES] = 0
            state[S_CALLS] = 0
            state[S_PUBLIC] = draw(state, params, streams)
            state[S_SEAT] = 0
        else:
            state[S_SEAT] = -1
    else:
        state[S_SEAT] = (seat + 1) % players


@kernel
def hand(state, seat):
    """A seat's hand at the showdown: its card's rank, above every rank when it pairs the public card."""
    rank = state[S_CARD + seat] // SUITS
    return rank + RANKS * (rank == state[S_PUBLIC] // SUITS)


@kernel
def wins(state, params, seat):
    """Does the seat take the pot, or a share of it, at the end: the other folded, or no hand beats its hand."""
    if state[S_SEAT] >= 0:
        return False
    if state[S_FOLDED] >= 0:
        return seat != state[S_FOLDED]
    for other in range(params[P_PLAYERS]):
        if hand(state, other) > hand(state, seat):
            return False
    return True


@kernel
def returns(state, params, out):
    """The winners share the pot (equal hands split it): a seat wins its share less its own chips, or loses them."""
    pot, winners = 0, 0
    for seat in range(params[P_PLAYERS]):
        out[seat] = 0.0
        pot += state[S_ANTE + seat]
        winners += wins(state, params, seat)
    if winners > 0:
        for seat in range(params[P_PLAYERS]):
            out[seat] = pot / winners * wins(state, params, seat) - state[S_ANTE + seat]


@kernel
def resample(state, params, seat, streams):
    """The other seats' cards are hidden from ``seat``: deal them again from the cards it does not see (neither
    its own nor the public card)."""
    for other in range(params[P_PLAYERS]):
        if other != seat:
            state[S_CARD + other] = -1
    for other in range(params[P_PLAYERS]):
        if other != seat:
            state[S_CARD + other] = draw(state, params, streams)


@kernel
def write_row(state, params, row):
    """The winners (both seats when the hands are equal) and every seat's chips won or lost (the score)."""
    row[O_N_TURNS] = state[S_PLAYED]
    pot, winners = 0, 0
    for seat in range(params[P_PLAYERS]):
        pot += state[S_ANTE + seat]
        winners += wins(state, params, seat)
    for seat in range(params[P_PLAYERS]):
        won = wins(state, params, seat)
        row[O_WIN + seat] = won
        row[O_SCORE + seat] = pot // max(winners, 1) * won - state[S_ANTE + seat]
