"""Goofspiel (the game of pure strategy), 2-4 players: the fifth game and the template for authors.

The rules as simulated, with the order of random draws, are in ``docs/goofspiel.md``; the parameters mean what
they mean in OpenSpiel's ``goofspiel`` (``num_cards``, ``players``, ``points_order``, ``returns_type``), and a
test plays the same games through OpenSpiel and checks equal returns game by game. Seat s is player s.

A trick: a prize card is revealed, every seat bids one card of its hand face down, one seat after the other
(the sequential form of the simultaneous bid), and the highest bid takes the prize if no other seat bid as high;
a tie for the highest bid discards it. Then the bids are shown. Cards are indices 0 .. N-1 worth 1 .. N::

        prize deck   [ . 2 . 4 5 ]       face down, drawn at random (or in order) one per trick
        prize        ( 3 )               the trick's prize, worth 3 points
        seat 0 hand  [ 1 2 . 4 5 ]       bid face down: 4
        seat 1 hand  [ 1 . 3 4 5 ]       to bid
        points       seat 0: 1   seat 1: 0

The state of one game is one flat ``int16`` array (``STATE_DTYPE``): at most 16 cards, so points stay below 137::

    S_HAND    [MAX_SEATS x MAX_CARDS]   1 while the seat holds card k
    S_HELD    [MAX_SEATS]               cards in each hand
    S_DECK    [MAX_CARDS]               1 while prize card k is face down in the prize deck
    S_BID     [MAX_SEATS]               the current trick's face-down bids, -1 before the seat has bid
    S_POINTS  [MAX_SEATS]               prizes won, in points
    S_TRICKS  [MAX_CARDS x TRICK]       each resolved trick: its prize, its winner (-1: a tie), every bid
    S_PRIZE .. S_DISCARDED              scalars: the prize, tricks resolved, the seat to bid, tied tricks, ...

Action codes are card indices (OpenSpiel's action ids): "bid card k", worth k + 1. A game has at most
``num_cards - 1`` decisions per seat: the last trick plays itself, as in OpenSpiel, since every seat holds one
card.
"""

import numpy as np

from simcore.engine import O_FIRST_SEAT, O_N_TURNS, O_TIMEOUT, O_WIN, extra_offset, rng, score_offset
from simcore.engine.jit import kernel
from simcore.games import GameType, Param, StateView, scalar_offsets

MAX_SEATS = 4
MAX_CARDS = 16
O_SCORE = score_offset(MAX_SEATS)
O_EXTRA = extra_offset(MAX_SEATS)
ORDERS = ("random", "ascending", "descending")
RETURNS = ("win_loss", "point_difference", "total_points")

GAME = GameType(
    name="goofspiel",
    long_name="Goofspiel",
    rulebook="Goofspiel, traditional (Merrill Flood, 1950s); parameters as OpenSpiel's goofspiel",
    player_counts=(2, 3, 4),
    policies=("random", "greedy", "mc", "ismcts"),
    margin="prize points",
    rules_version=1,
    observations=True,
    restricted_greedy=True,     # heuristics.greedy_among: the allowed bid nearest the prize's rank
    # the recommended search, by hand size (docs/explanation/agents.md, "Recommended search"): from 6 cards the
    # regret search narrowed to greedy's bid and two others, which beats greedy from both seats on fresh deals
    strength="0.664 [0.625, 0.702] against greedy at 13 cards, 0.617 as seat 0 and 0.712 as seat 1 (300 deals x 2 "
             "seats, seed 9174; 0.680 on seed 4242); at 8 cards 0.619 (seed 4242)",
    search=(("rollout", "greedy"), ("widen", 0.1), ("tree", "observed"), ("select", "regret"), ("final", "average")),
    # up to 5 cards the regret search at 32,000 iterations, near an equilibrium (OpenSpiel's exact best response)
    search_by=(((("num_cards", 2, 5),),
                (("iterations", 32000), ("rollout", "greedy"), ("widen", 0.5), ("tree", "observed"),
                 ("select", "regret"), ("final", "average")),
                "exploitability 0.108 [0.094, 0.122] at 4 cards (random order) and 0.050 [0.028, 0.074] at 5 "
                "(descending), 8 seeds; it loses at most 0.005 a game to a subgame-perfect equilibrium from either "
                "seat"),),
    cases=({"players": 3, "points_order": "ascending", "returns_type": "point_difference"},
           {"players": 4, "num_cards": 9, "points_order": "descending", "returns_type": "total_points"}),
    summary="Bid one card of 1..N for each revealed prize card; the highest lone bid takes it.",
    params=(
        Param("players", 2, "players, each holding cards 1..N", choices=(2, 3, 4)),
        Param("num_cards", 13, "cards per hand and in the prize deck, worth 1..N (OpenSpiel: 13)", 2, MAX_CARDS),
        Param("points_order", "random", "the order of the prize cards: drawn at random, or 1..N, or N..1",
              choices=ORDERS),
        Param("returns_type", "win_loss", "what a seat's return is (what mc and ismcts maximise): win_loss "
              "(OpenSpiel's +1/k to the k seats with most points, -1/(n-k) to the others, 0 to all when all "
              "tie), point_difference (points minus the mean) or total_points", choices=RETURNS),
    ),
)

EXTRA_COLUMNS = (
    ("tied_tricks", "int", "tricks whose prize a tie for the highest bid discarded"),
    ("discarded_points", "int", "the points of those prizes"),
)

P_PLAYERS, P_CARDS, P_ORDER, P_RETURNS = range(4)
N_PARAMS = 4
RANDOM_ORDER, ASCENDING, DESCENDING = range(3)
WIN_LOSS, POINT_DIFFERENCE, TOTAL_POINTS = range(3)


def check(values):
    """Every parameter is valid on its own: nothing to check across them."""


def params_array(values):
    p = np.zeros(N_PARAMS, np.int64)
    p[P_PLAYERS] = values["players"]
    p[P_CARDS] = values["num_cards"]
    p[P_ORDER] = ORDERS.index(values["points_order"])
    p[P_RETURNS] = RETURNS.index(values["returns_type"])
    return p


# --- state layout -------------------------------------------------------------

STATE_DTYPE = np.int16
T_PRIZE, T_WINNER, T_BIDS = 0, 1, 2   # a resolved trick's row in S_TRICKS
TRICK = T_BIDS + MAX_SEATS
NOBODY = -1                           # the winner of a tied trick
S_HAND = 0
S_HELD = S_HAND + MAX_SEATS * MAX_CARDS
S_DECK = S_HELD + MAX_SEATS
S_BID = S_DECK + MAX_CARDS
S_POINTS = S_BID + MAX_SEATS
S_TRICKS = S_POINTS + MAX_SEATS
S_PRIZE = S_TRICKS + MAX_CARDS * TRICK   # the current trick's prize card, -1 once the game is over
S_TURN = S_PRIZE + 1                     # tricks resolved
S_SEAT = S_TURN + 1                      # the seat to bid, -1 once the game is over
S_TIED = S_SEAT + 1                      # tricks discarded by a tie
S_DISCARDED = S_TIED + 1                 # their points
STATE_SIZE = S_DISCARDED + 1


class View(StateView):
    """Named views into one flat state array."""

    offsets = scalar_offsets(globals())

    def __init__(self, state):
        super().__init__(state)
        self.hands = state[S_HAND:S_HELD].reshape(MAX_SEATS, MAX_CARDS)
        self.held = state[S_HELD:S_DECK]
        self.deck = state[S_DECK:S_BID]
        self.bids = state[S_BID:S_POINTS]
        self.points = state[S_POINTS:S_TRICKS]
        self.tricks = state[S_TRICKS:S_PRIZE].reshape(MAX_CARDS, TRICK)

    def hand(self, seat):
        """The cards the seat holds, by index."""
        return [int(k) for k in np.flatnonzero(self.hands[seat])]


def new_state():
    return np.zeros(STATE_SIZE, STATE_DTYPE)


# --- the rules ------------------------------------------------------------------


@kernel
def kth_card(state, at, n, k):
    """The index of the k-th (from 0) set flag of ``state[at:at + n]``: the k-th lowest card there."""
    for card in range(n):
        if state[at + card]:
            if k == 0:
                return card
            k -= 1
    return -1


@kernel
def reveal(state, params, streams):
    """The next prize leaves the prize deck: a uniform draw over the cards left (DECK stream), or the lowest
    (ascending) or highest (descending) of them."""
    n = params[P_CARDS]
    order = params[P_ORDER]
    if order == RANDOM_ORDER:
        card = kth_card(state, S_DECK, n, rng.randint(streams, rng.DECK, n - state[S_TURN]))
    elif order == ASCENDING:
        card = kth_card(state, S_DECK, n, 0)
    else:
        card = kth_card(state, S_DECK, n, n - 1 - state[S_TURN])
    state[S_DECK + card] = 0
    state[S_PRIZE] = card


@kernel
def bid(state, seat, card):
    """The card leaves the hand face down."""
    state[S_HAND + seat * MAX_CARDS + card] = 0
    state[S_HELD + seat] -= 1
    state[S_BID + seat] = card


@kernel
def resolve(state, params):
    """The highest bid takes the prize (its value: index + 1) when no other seat bid as high; a tie for the
    highest discards it. The bids are then shown: the trick's row records them."""
    players = params[P_PLAYERS]
    best = -1
    tied = 0
    winner = NOBODY
    for seat in range(players):
        card = state[S_BID + seat]
        if card > best:
            best, tied, winner = card, 1, seat
        elif card == best:
            tied += 1
    prize = state[S_PRIZE]
    row = S_TRICKS + state[S_TURN] * TRICK
    state[row + T_PRIZE] = prize
    if tied > 1:
        winner = NOBODY
        state[S_TIED] += 1
        state[S_DISCARDED] += prize + 1
    else:
        state[S_POINTS + winner] += prize + 1
    state[row + T_WINNER] = winner
    for seat in range(players):
        state[row + T_BIDS + seat] = state[S_BID + seat]
        state[S_BID + seat] = -1
    state[S_TURN] += 1


@kernel
def next_trick(state, params, streams):
    """Reveal the next prize and let seat 0 bid; the last trick plays itself (one card in every hand, as in
    OpenSpiel: no choice at the last turn); after it the game is over."""
    n = params[P_CARDS]
    if state[S_TURN] < n:
        reveal(state, params, streams)
        state[S_SEAT] = 0
    if state[S_TURN] == n - 1:
        for seat in range(params[P_PLAYERS]):
            bid(state, seat, kth_card(state, S_HAND + seat * MAX_CARDS, n, 0))
        resolve(state, params)
    if state[S_TURN] == n:
        state[S_SEAT] = -1
        state[S_PRIZE] = -1


@kernel
def begin(state, params, streams):
    """Every seat holds cards 0 .. N-1, the prize deck too; the first prize is revealed."""
    n = params[P_CARDS]
    state[:] = 0
    for seat in range(params[P_PLAYERS]):
        state[S_HELD + seat] = n
        state[S_BID + seat] = -1
        for card in range(n):
            state[S_HAND + seat * MAX_CARDS + card] = 1
    for card in range(n):
        state[S_DECK + card] = 1
    next_trick(state, params, streams)


# --- the decision interface -------------------------------------------------------

MAX_ACTIONS = MAX_CARDS
N_ACTION_CODES = MAX_CARDS   # every action code is below this (OpenSpiel's num_distinct_actions)
A_FACE_DOWN = 0              # what the other seats see of a face-down bid (observed_action): one code for all


@kernel
def current_player(state, params):
    return state[S_SEAT]


@kernel
def legal_actions(state, params, out):
    """The cards of the mover's hand, lowest first (OpenSpiel's order)."""
    at = S_HAND + state[S_SEAT] * MAX_CARDS
    n = 0
    for card in range(params[P_CARDS]):
        if state[at + card]:
            out[n] = card
            n += 1
    return n


@kernel(inline="always")
def random_action(state, params, seat, streams, actions):
    """The random policy as the agents draw it from ``legal_actions`` (the same number from the same stream
    picks the same card) without listing the hand: its k-th lowest card. Optional for a game: listing the
    hand took half of random play's time (perf)."""
    k = rng.randint(streams, rng.POLICY + seat, state[S_HELD + seat])
    return kth_card(state, S_HAND + seat * MAX_CARDS, params[P_CARDS], k)


@kernel
def last_bid(state, params):
    """Is the bid to come the trick's last, which resolves it and shows every bid?"""
    return state[S_SEAT] == params[P_PLAYERS] - 1


@kernel
def apply_action(state, params, action, streams):
    """Bid card ``action``; after the last seat's bid the trick resolves and the next begins."""
    seat = state[S_SEAT]
    last = last_bid(state, params)
    bid(state, seat, action)
    if not last:
        state[S_SEAT] = seat + 1
        return
    resolve(state, params)
    next_trick(state, params, streams)


@kernel
def observed_action(state, params, action, observer):
    """What ``observer`` sees of the bid ``action``: the card of its own bid and of the trick's last bid
    (which shows every bid); of another face-down bid only that one was made, class code ``A_FACE_DOWN``."""
    if observer == state[S_SEAT] or last_bid(state, params):
        return action
    return A_FACE_DOWN


@kernel
def revealed(state, params, action, observer):
    """What the trick's last bid shows every seat: all the bids before it, as one code (base N, seat 0
    lowest); -1 for an earlier bid, which shows nothing."""
    if not last_bid(state, params):
        return -1
    code = 0
    for seat in range(params[P_PLAYERS] - 2, -1, -1):
        code = code * params[P_CARDS] + state[S_BID + seat]
    return code


@kernel
def num_players(params):
    return params[P_PLAYERS]


@kernel
def most_points(state, params):
    """The points of the leading seats: the winners' at the end."""
    best = 0
    for seat in range(params[P_PLAYERS]):
        best = max(best, state[S_POINTS + seat])
    return best


@kernel
def returns(state, params, out):
    """OpenSpiel's returns for ``returns_type``; 0 for every seat before the end."""
    players = params[P_PLAYERS]
    if state[S_SEAT] >= 0:
        out[:players] = 0.0
        return
    best = most_points(state, params)
    total = 0
    winners = 0
    for seat in range(players):
        total += state[S_POINTS + seat]
        winners += state[S_POINTS + seat] == best
    for seat in range(players):
        points = state[S_POINTS + seat]
        if params[P_RETURNS] == TOTAL_POINTS:
            out[seat] = points
        elif params[P_RETURNS] == POINT_DIFFERENCE:
            out[seat] = points - total / players
        elif winners == players:
            out[seat] = 0.0
        else:
            out[seat] = 1.0 / winners if points == best else -1.0 / (players - winners)


@kernel
def resample(state, params, seat, streams):
    """Redraw what ``seat`` cannot see: every other seat's face-down bid of the current trick, uniform over
    the cards that seat held before it bid (every earlier bid was shown, so the hands themselves are known)."""
    n = params[P_CARDS]
    for other in range(params[P_PLAYERS]):
        card = state[S_BID + other]
        if other == seat or card < 0:
            continue
        hand = S_HAND + other * MAX_CARDS
        state[hand + card] = 1
        state[S_HELD + other] += 1
        bid(state, other, kth_card(state, hand, n, rng.randint(streams, rng.DECK, state[S_HELD + other])))


@kernel
def rewind(state, params, seat):
    """Take back the current trick's face-down bids made before ``seat``'s (it has not seen them): each card
    goes back to its hand and the first of those seats is to bid again. The trick's start as ``seat`` saw it;
    returns how many bids were taken back."""
    taken = 0
    for other in range(params[P_PLAYERS] - 1, -1, -1):
        card = state[S_BID + other]
        if other == seat or card < 0:
            continue
        state[S_HAND + other * MAX_CARDS + card] = 1
        state[S_HELD + other] += 1
        state[S_BID + other] = -1
        state[S_SEAT] = other
        taken += 1
    return taken


@kernel
def dealt(state, params, observer):
    """What the trick's last bid deals every seat face up: the next prize (in random order the one thing
    chance decides), once the trick has resolved and the next waits for its first bid; -1 after any other bid."""
    if state[S_SEAT] != 0 or state[S_BID] >= 0 or state[S_PRIZE] < 0:
        return -1
    return state[S_PRIZE]


# --- a whole game -------------------------------------------------------------


@kernel
def write_row(state, params, row):
    """The winners: the seats with the most points (all of them when all tie)."""
    row[O_FIRST_SEAT] = 0
    row[O_N_TURNS] = state[S_TURN]
    row[O_TIMEOUT] = 0
    best = most_points(state, params)
    for seat in range(params[P_PLAYERS]):
        row[O_WIN + seat] = state[S_POINTS + seat] == best
        row[O_SCORE + seat] = state[S_POINTS + seat]
    row[O_EXTRA] = state[S_TIED]
    row[O_EXTRA + 1] = state[S_DISCARDED]



# --- the trace (run --trace) ----------------------------------------------------------

TRACE_STANDING = "points: the values of the prizes won"
TRACE_STEP = "round"                 # a trick
MAX_TRACE_STEPS = MAX_CARDS
ACTION_KINDS = (("above", "a bid above the prize's value"), ("equal", "a bid of the prize's value"),
                ("below", "a bid below the prize's value"))
END_CONDITIONS = (("all_tricks", "every prize card was bid for"),)


@kernel
def standing(state, params, out):
    for seat in range(params[P_PLAYERS]):
        out[seat] = state[S_POINTS + seat]


@kernel
def trace_step(state, params):
    return state[S_TURN]


@kernel
def action_kind(state, params, action):
    """A bid against the prize on the table: card k is worth k + 1, as the prize card k is."""
    prize = state[S_PRIZE]
    return 0 if action > prize else (1 if action == prize else 2)


@kernel
def end_condition(state, params):
    return 0
