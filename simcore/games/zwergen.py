"""Zwergen Ziehen (gnome tug-of-war), 2 players or 4 in two teams, with the Pro rules.

The rules as simulated, step by step and with the order of random draws, are
in ``docs/zwergen.md``: the rulebook (Zwergen Ziehen, Philippe des Pallières,
Asmodée 2002) and, where it is silent, the decisions listed there. Seats 0
and 2 are team A, seats 1 and 3 team B.

The track::

      team A's side                 fence                team B's side
      far end                         |                         far end
      [8][7][6][5][4][3][2][1]        |        [1][2][3][4][5][6][7][8]
       A  A  A  .  .  .  .  .         |         .  .  .  .  .  B  B  B
                         front_A = 6  |  front_B = 6

    front_A = track_half - n_A + 1 + rope      front_B = track_half - n_B + 1 - rope

``rope`` > 0: the track has moved in team A's favour (B's gnomes are nearer
the fence). A team whose front reaches 0 is in the fence and loses the round.

The state of one game is one flat ``int64`` array::

    S_HAND     [0, 88)        hand counts, seat * N_TYPES + card type
    S_DISCARD  [88, 110)      discard pile, count per card type
    S_SUPPLY   [110, 114)     hats in the supply per colour
    S_TEAM     [114, 122)     gnomes on the track, team * 4 + colour
    S_ROPE .. S_MAX_TEAM      scalars (rope, pending announcement, seat, turn,
                              rounds, counters)
    S_DRAW_N                  cards in the draw pile
    S_DRAW     [.., +MAX_DECK) the draw pile, top card last
"""

import numpy as np
from numba import njit, prange

from simcore import rng
from simcore.engine import CHUNK, O_FIRST_SEAT, O_N_TURNS, O_TIMEOUT, O_WIN, extra_offset, score_offset
from simcore.games import GameType, Param, StateView, scalar_offsets

# --- pieces -------------------------------------------------------------------

RED, YELLOW, GREEN, BLUE = 0, 1, 2, 3
COLOURS = ("red", "yellow", "green", "blue")
N_COLOURS = 4
MAX_SEATS = 4
O_SCORE = score_offset(MAX_SEATS)
O_EXTRA = extra_offset(MAX_SEATS)
MAX_DECK = 240
MAX_HAND = 12

# Card types in canonical order (see docs/zwergen.md).
T_ADD = 0                 # 0..3: add a gnome of colour t
T_ADD_MULTI = 4
T_PULL_TWO = 5            # 5..8: colour t-5 counts 2
T_PULL_ZERO = 9           # 9..12: colour t-9 counts 0
T_PULL_TWO_NEXT_ZERO = 13  # 13..16: colour t-13 counts 2, the next colour 0
T_PULL_MULTI_TWO = 17
T_PULL_MULTI_ZERO = 18
T_SQUIRREL = 19           # 19..21: squirrel 1, 2, 3
N_TYPES = 22

K_ADD, K_PULL, K_SQUIRREL = 0, 1, 2

# Moves are (kind, card type, colour) rows.
M_PLAY, M_CONTRA, M_RE, M_HERBERT, M_SWAP = 0, 1, 2, 3, 4
MAX_MOVES = 128

# Pending Pro-rules announcement (what the next seat may answer).
PEND_NONE, PEND_ADD, PEND_CONTRA, PEND_RE = 0, 1, 2, 3

POLICY_RANDOM, POLICY_GREEDY = 0, 1

WIN_SCORE = 1000          # greedy's base score of a move that wins (or loses) the round

# --- lookup tables, built once at import ---------------------------------------


def _card_tables():
    kind = np.full(N_TYPES, K_PULL, np.int64)
    colour = np.full(N_TYPES, -1, np.int64)
    squirrel = np.zeros(N_TYPES, np.int64)
    # strength[t, chosen, c]: what one gnome of colour c counts on card t
    # (``chosen`` is the colour picked for a multicolour card; ignored otherwise).
    strength = np.ones((N_TYPES, N_COLOURS, N_COLOURS), np.int64)
    # pref[t, c]: +1 if card t makes colour c count 2, -1 if it makes it count 0.
    pref = np.zeros((N_TYPES, N_COLOURS), np.int64)
    for c in range(N_COLOURS):
        kind[T_ADD + c] = K_ADD
        colour[T_ADD + c] = c
        strength[T_PULL_TWO + c, :, c] = 2
        strength[T_PULL_ZERO + c, :, c] = 0
        strength[T_PULL_TWO_NEXT_ZERO + c, :, c] = 2
        strength[T_PULL_TWO_NEXT_ZERO + c, :, (c + 1) % N_COLOURS] = 0
        strength[T_PULL_MULTI_TWO, c, c] = 2
        strength[T_PULL_MULTI_ZERO, c, c] = 0
        pref[T_PULL_TWO + c, c] += 1
        pref[T_PULL_ZERO + c, c] -= 1
        pref[T_PULL_TWO_NEXT_ZERO + c, c] += 1
        pref[T_PULL_TWO_NEXT_ZERO + c, (c + 1) % N_COLOURS] -= 1
    kind[T_ADD_MULTI] = K_ADD
    for k in range(3):
        kind[T_SQUIRREL + k] = K_SQUIRREL
        squirrel[T_SQUIRREL + k] = k + 1
    for table in (kind, colour, squirrel, strength, pref):
        table.setflags(write=False)
    return kind, colour, squirrel, strength, pref


CARD_KIND, CARD_COLOUR, SQUIRREL_STEPS, STRENGTH, PREF = _card_tables()

# --- parameters ---------------------------------------------------------------

P_PLAYERS, P_FIRST_SEAT, P_MAX_TURNS, P_TRACK_HALF, P_HAND_SIZE, P_HATS = range(6)
P_SWAP_PENALTY, P_ADD_PULL, P_ROUNDS_TO_WIN, P_PRO, P_RE_MOVES_ROPE = range(6, 11)
P_DECK = 11                # 22 counts, one per card type
N_PARAMS = P_DECK + N_TYPES

# deck parameter -> the card types it counts (per colour where there are four)
DECK_PARAMS = {
    "add": range(T_ADD, T_ADD + 4),
    "add_multi": (T_ADD_MULTI,),
    "pull_two": range(T_PULL_TWO, T_PULL_TWO + 4),
    "pull_zero": range(T_PULL_ZERO, T_PULL_ZERO + 4),
    "pull_two_next_zero": range(T_PULL_TWO_NEXT_ZERO, T_PULL_TWO_NEXT_ZERO + 4),
    "pull_multi_two": (T_PULL_MULTI_TWO,),
    "pull_multi_zero": (T_PULL_MULTI_ZERO,),
    "squirrel_1": (T_SQUIRREL,),
    "squirrel_2": (T_SQUIRREL + 1,),
    "squirrel_3": (T_SQUIRREL + 2,),
}

GAME = GameType(
    name="zwergen",
    long_name="Zwergen Ziehen (gnome tug-of-war)",
    rulebook="Zwergen Ziehen (Oh ! les nains), Philippe des Pallières (Asmodée, 2002)",
    player_counts=(2, 4),
    policies=("random", "greedy"),
    summary="Two teams pull a garden hose under a fence; best of three rounds.",
    params=(
        Param("players", 2, "players: 2, or 4 in two teams {0,2} and {1,3}", choices=(2, 4)),
        Param("first_seat", 0, "seat that begins the match", 0, 3),
        Param("max_turns", 1000, "a match still running after this many turns is a timeout", 1, 1_000_000),
        Param("track_half", 8, "spaces on each side of the fence (decisions: 8)", 2, 60),
        Param("hand_size", 5, "cards drawn when the hand is empty (rulebook: 5)", 1, MAX_HAND),
        Param("hats_per_colour", 7, "hats of each colour in the supply (rulebook: 7)", 1, 60),
        Param("swap_penalty", 1, "spaces the opponents pull when a player swaps cards (rulebook: 1)", 0, 20),
        Param("add_pull", 2, "spaces the opponents pull when a gnome is added (rulebook: 2)", 0, 20),
        Param("rounds_to_win", 2, "rounds a team must win to win the match (best of three: 2)", 1, 20),
        Param("pro", False, "play the Pro rules Contra, Re and Herbert"),
        Param("re_moves_rope", False,
              "a Re also pulls the rope 2 spaces (the rule text); false: the track stays (the translator's reading)"),
        Param("deck.add", 4, "add-a-gnome cards per colour", 0, 40),
        Param("deck.add_multi", 4, "multicolour add-a-gnome cards", 0, 40),
        Param("deck.pull_two", 2, "pull cards per colour: that colour counts 2", 0, 40),
        Param("deck.pull_zero", 2, "pull cards per colour: that colour counts 0", 0, 40),
        Param("deck.pull_two_next_zero", 1, "pull cards per colour: it counts 2, the next colour 0", 0, 40),
        Param("deck.pull_multi_two", 3, "multicolour pull cards: the chosen colour counts 2", 0, 40),
        Param("deck.pull_multi_zero", 2, "multicolour pull cards: the chosen colour counts 0", 0, 40),
        Param("deck.squirrel_1", 4, "squirrel cards moving the rope 1 space", 0, 40),
        Param("deck.squirrel_2", 4, "squirrel cards moving the rope 2 spaces", 0, 40),
        Param("deck.squirrel_3", 2, "squirrel cards moving the rope 3 spaces", 0, 40),
    ),
)

EXTRA_COLUMNS = (
    ("rounds_a", "int", "rounds won by team A (seats 0, 2)"),
    ("rounds_b", "int", "rounds won by team B (seats 1, 3)"),
    ("n_rounds", "int", "rounds started"),
    ("adds", "int", "gnomes added by add cards (Contra/Re/Herbert not counted)"),
    ("pulls", "int", "pull cards played"),
    ("squirrels", "int", "squirrel cards played"),
    ("swaps", "int", "turns spent swapping cards"),
    ("contras", "int", "Contra announcements"),
    ("res", "int", "Re announcements"),
    ("herberts", "int", "Herbert announcements"),
    ("lead_changes", "int", "times the rope changed side within a round"),
    ("max_team", "int", "largest team seen on the track"),
)


def deck_counts(values):
    """The 22 per-type card counts of a resolved parameter dict."""
    counts = np.zeros(N_TYPES, np.int64)
    for name, types in DECK_PARAMS.items():
        for t in types:
            counts[t] = values["deck." + name]
    return counts


def check(values):
    """Reject parameter combinations that the per-parameter bounds cannot catch."""
    players = values["players"]
    if values["first_seat"] >= players:
        raise ValueError(f"first_seat = {values['first_seat']} is not a seat; allowed: 0 to {players - 1}")
    total = int(deck_counts(values).sum())
    need = players * values["hand_size"]
    if not need <= total <= MAX_DECK:
        raise ValueError(f"the deck has {total} cards; allowed: {need} (players x hand_size) to {MAX_DECK}")
    if values["hats_per_colour"] * N_COLOURS < players:
        raise ValueError(f"hats_per_colour = {values['hats_per_colour']} leaves no starting gnome for every "
                         f"player; allowed: at least {-(-players // N_COLOURS)}")


def params_array(values):
    p = np.zeros(N_PARAMS, np.int64)
    p[P_PLAYERS] = values["players"]
    p[P_FIRST_SEAT] = values["first_seat"]
    p[P_MAX_TURNS] = values["max_turns"]
    p[P_TRACK_HALF] = values["track_half"]
    p[P_HAND_SIZE] = values["hand_size"]
    p[P_HATS] = values["hats_per_colour"]
    p[P_SWAP_PENALTY] = values["swap_penalty"]
    p[P_ADD_PULL] = values["add_pull"]
    p[P_ROUNDS_TO_WIN] = values["rounds_to_win"]
    p[P_PRO] = values["pro"]
    p[P_RE_MOVES_ROPE] = values["re_moves_rope"]
    p[P_DECK:P_DECK + N_TYPES] = deck_counts(values)
    return p


# --- state layout -------------------------------------------------------------

S_HAND = 0
S_DISCARD = S_HAND + MAX_SEATS * N_TYPES
S_SUPPLY = S_DISCARD + N_TYPES
S_TEAM = S_SUPPLY + N_COLOURS
S_ROPE = S_TEAM + 2 * N_COLOURS
S_PENDING = S_ROPE + 1          # PEND_* kind of the announcement the next seat may answer
S_PENDING_COLOUR = S_PENDING + 1
S_SEAT = S_PENDING_COLOUR + 1   # seat to move
S_TURN = S_SEAT + 1             # turns played in the match
S_ROUNDS = S_TURN + 1           # rounds won, team A then B
S_LAST_SIGN = S_ROUNDS + 2      # sign of the rope when it was last off centre, this round
S_N_ROUNDS = S_LAST_SIGN + 1
S_ADDS = S_N_ROUNDS + 1
S_PULLS = S_ADDS + 1
S_SQUIRRELS = S_PULLS + 1
S_SWAPS = S_SQUIRRELS + 1
S_CONTRAS = S_SWAPS + 1
S_RES = S_CONTRAS + 1
S_HERBERTS = S_RES + 1
S_LEAD_CHANGES = S_HERBERTS + 1
S_MAX_TEAM = S_LEAD_CHANGES + 1
S_DRAW_N = S_MAX_TEAM + 1
S_DRAW = S_DRAW_N + 1
STATE_SIZE = S_DRAW + MAX_DECK


class View(StateView):
    """Named views into one flat state array."""

    offsets = scalar_offsets(globals())

    def __init__(self, state):
        super().__init__(state)
        self.hands = state[S_HAND:S_DISCARD].reshape(MAX_SEATS, N_TYPES)
        self.discard = state[S_DISCARD:S_SUPPLY]
        self.supply = state[S_SUPPLY:S_TEAM]
        self.teams = state[S_TEAM:S_ROPE].reshape(2, N_COLOURS)
        self.rounds = state[S_ROUNDS:S_ROUNDS + 2]

    @property
    def draw_pile(self):
        return self.state[S_DRAW:S_DRAW + self.state[S_DRAW_N]]


def new_state():
    return np.zeros(STATE_SIZE, np.int64)


# --- the track ----------------------------------------------------------------


@njit(cache=True, nogil=True)
def team_of(seat):
    return seat & 1


@njit(cache=True, nogil=True)
def toward(team):
    """Sign of a rope move in ``team``'s favour."""
    return 1 - 2 * team


@njit(cache=True, nogil=True)
def team_size(state, team):
    base = S_TEAM + team * N_COLOURS
    return state[base] + state[base + 1] + state[base + 2] + state[base + 3]


@njit(cache=True, nogil=True)
def front_at(params, team, size, rope):
    """Distance of ``team``'s front gnome from the fence (decisions: Track)."""
    return params[P_TRACK_HALF] - size + 1 + toward(team) * rope


@njit(cache=True, nogil=True)
def front(state, params, team):
    return front_at(params, team, team_size(state, team), state[S_ROPE])


@njit(cache=True, nogil=True)
def strength_diff(state, t, chosen):
    """Strength of team A minus team B on pull card ``t`` (rulebook: Movement)."""
    if chosen < 0:
        chosen = 0
    diff = 0
    for c in range(N_COLOURS):
        diff += (state[S_TEAM + c] - state[S_TEAM + N_COLOURS + c]) * STRENGTH[t, chosen, c]
    return diff


@njit(cache=True, nogil=True)
def loser(state, params):
    """The team in the fence (A checked first), or -1."""
    if front(state, params, 0) <= 0:
        return 0
    if front(state, params, 1) <= 0:
        return 1
    return -1


# --- cards --------------------------------------------------------------------


@njit(cache=True, nogil=True)
def hand_count(state, seat):
    total = 0
    for t in range(N_TYPES):
        total += state[S_HAND + seat * N_TYPES + t]
    return total


@njit(cache=True, nogil=True)
def draw(state, seat, k, streams):
    """Draw ``k`` cards; an empty draw pile is refilled from the shuffled discard pile."""
    for _ in range(k):
        if state[S_DRAW_N] == 0:
            n = 0
            for t in range(N_TYPES):
                for _ in range(state[S_DISCARD + t]):
                    state[S_DRAW + n] = t
                    n += 1
                state[S_DISCARD + t] = 0
            if n == 0:
                return
            rng.shuffle(streams, rng.DECK, state[S_DRAW:S_DRAW + n], n)
            state[S_DRAW_N] = n
        state[S_DRAW_N] -= 1
        state[S_HAND + seat * N_TYPES + state[S_DRAW + state[S_DRAW_N]]] += 1


@njit(cache=True, nogil=True)
def discard_by_mask(state, seat, mask):
    """Discard the cards of the sorted hand whose bit is set in ``mask``; return how many."""
    base = S_HAND + seat * N_TYPES
    i = 0
    total = 0
    for t in range(N_TYPES):
        keep = state[base + t]
        for _ in range(state[base + t]):
            if (mask >> i) & 1:
                keep -= 1
            i += 1
        gone = state[base + t] - keep
        state[base + t] = keep
        state[S_DISCARD + t] += gone
        total += gone
    return total


# --- setup --------------------------------------------------------------------


@njit(cache=True, nogil=True)
def setup(state, params, streams):
    """Shuffle the deck and deal every seat a hand (rulebook: Set-up)."""
    state[:] = 0
    n = 0
    for t in range(N_TYPES):
        for _ in range(params[P_DECK + t]):
            state[S_DRAW + n] = t
            n += 1
    rng.shuffle(streams, rng.DECK, state[S_DRAW:S_DRAW + n], n)
    state[S_DRAW_N] = n
    for seat in range(params[P_PLAYERS]):
        draw(state, seat, params[P_HAND_SIZE], streams)


@njit(cache=True, nogil=True)
def start_round(state, params, policies, streams, starter):
    """Empty the track, then every seat picks its starting gnome (decisions: Start of a round)."""
    for c in range(N_COLOURS):
        state[S_SUPPLY + c] = params[P_HATS]
        state[S_TEAM + c] = 0
        state[S_TEAM + N_COLOURS + c] = 0
    state[S_ROPE] = 0
    state[S_PENDING] = PEND_NONE
    state[S_LAST_SIGN] = 0
    state[S_N_ROUNDS] += 1
    players = params[P_PLAYERS]
    for i in range(players):
        seat = (starter + i) % players
        c = pick_colour(state, policies[seat], seat, streams)
        state[S_TEAM + team_of(seat) * N_COLOURS + c] += 1
        state[S_SUPPLY + c] -= 1
    note_team_sizes(state)
    state[S_SEAT] = starter


@njit(cache=True, nogil=True)
def next_starter(params, mover, losing_team):
    """The loser begins the next round: the losing team's first seat after the mover."""
    players = params[P_PLAYERS]
    seat = (mover + 1) % players
    if team_of(seat) != losing_team:
        seat = (seat + 1) % players
    return seat


# --- legal moves --------------------------------------------------------------


@njit(cache=True, nogil=True)
def _push(moves, n, kind, t, c):
    moves[n, 0] = kind
    moves[n, 1] = t
    moves[n, 2] = c
    return n + 1


@njit(cache=True, nogil=True)
def legal_moves(state, params, seat, moves):
    """Fill ``moves`` with the legal (kind, card type, colour) rows; return how many."""
    team = team_of(seat)
    room = front(state, params, team)
    supply_total = 0
    for c in range(N_COLOURS):
        supply_total += state[S_SUPPLY + c]
    pending = state[S_PENDING]
    pc = state[S_PENDING_COLOUR]
    n = 0
    for t in range(N_TYPES):
        if state[S_HAND + seat * N_TYPES + t] == 0:
            continue
        kind = CARD_KIND[t]
        if kind == K_ADD:
            # An add needs a free space before the fence and a hat (decisions: Add a gnome, Hats).
            if room >= 2 and supply_total > 0:
                c = CARD_COLOUR[t]
                if c >= 0 and state[S_SUPPLY + c] > 0:
                    n = _push(moves, n, M_PLAY, t, c)
                else:
                    for c2 in range(N_COLOURS):
                        if state[S_SUPPLY + c2] > 0:
                            n = _push(moves, n, M_PLAY, t, c2)
            if pending != PEND_NONE and (t == T_ADD_MULTI or t == T_ADD + pc):
                if pending == PEND_ADD:
                    n = _push(moves, n, M_CONTRA, t, pc)
                elif pending == PEND_CONTRA and room >= 3 and state[S_SUPPLY + pc] >= 2:
                    n = _push(moves, n, M_RE, t, pc)
                elif pending == PEND_RE and room >= 3:
                    n = _push(moves, n, M_HERBERT, t, pc)
        elif t == T_PULL_MULTI_TWO or t == T_PULL_MULTI_ZERO:
            for c in range(N_COLOURS):
                n = _push(moves, n, M_PLAY, t, c)
        else:
            n = _push(moves, n, M_PLAY, t, -1)
    return _push(moves, n, M_SWAP, -1, -1)


# --- step ---------------------------------------------------------------------


@njit(cache=True, nogil=True)
def effect(state, params, seat, kind, t, c):
    """What a move does to the track: (rope change, own team change, opponents' change)."""
    sign = toward(team_of(seat))
    if kind == M_SWAP:
        return -sign * params[P_SWAP_PENALTY], 0, 0
    if kind == M_CONTRA:
        return 0, 0, -1
    if kind == M_RE:
        return sign * 2 * params[P_RE_MOVES_ROPE], 2, 0
    if kind == M_HERBERT:
        return 0, 2, -2
    if CARD_KIND[t] == K_ADD:
        return -sign * params[P_ADD_PULL], 1, 0
    if CARD_KIND[t] == K_SQUIRREL:
        return sign * SQUIRREL_STEPS[t], 0, 0
    return strength_diff(state, t, c), 0, 0


@njit(cache=True, nogil=True)
def note_team_sizes(state):
    largest = max(team_size(state, 0), team_size(state, 1))
    if largest > state[S_MAX_TEAM]:
        state[S_MAX_TEAM] = largest


@njit(cache=True, nogil=True)
def note_lead(state):
    """Count a lead change when the rope crosses to the other side (0 is no side)."""
    rope = state[S_ROPE]
    if rope != 0:
        sign = 1 if rope > 0 else -1
        if state[S_LAST_SIGN] != 0 and sign != state[S_LAST_SIGN]:
            state[S_LEAD_CHANGES] += 1
        state[S_LAST_SIGN] = sign


@njit(cache=True, nogil=True)
def apply_move(state, params, seat, kind, t, c, mask, streams):
    """Play one move of ``seat``: its effect, the discard, the draw."""
    team = team_of(seat)
    own = S_TEAM + team * N_COLOURS
    opp = S_TEAM + (1 - team) * N_COLOURS
    rope, _, _ = effect(state, params, seat, kind, t, c)
    pending = PEND_NONE
    if kind == M_SWAP:
        # Swap instead of playing: discard some cards, draw as many (rulebook).
        draw(state, seat, discard_by_mask(state, seat, mask), streams)
        state[S_SWAPS] += 1
    else:
        if kind == M_PLAY and CARD_KIND[t] == K_ADD:
            state[own + c] += 1
            state[S_SUPPLY + c] -= 1
            state[S_ADDS] += 1
            pending = PEND_ADD
        elif kind == M_PLAY and CARD_KIND[t] == K_SQUIRREL:
            state[S_SQUIRRELS] += 1
        elif kind == M_PLAY:
            state[S_PULLS] += 1
        elif kind == M_CONTRA:
            # Contra: the opponents lose the gnome just added; the track stays.
            state[opp + c] -= 1
            state[S_SUPPLY + c] += 1
            state[S_CONTRAS] += 1
            pending = PEND_CONTRA
        elif kind == M_RE:
            # Re: two gnomes of that colour join the team.
            state[own + c] += 2
            state[S_SUPPLY + c] -= 2
            state[S_RES] += 1
            pending = PEND_RE
        else:
            # Herbert: the two gnomes of the Re change sides; the track stays.
            state[opp + c] -= 2
            state[own + c] += 2
            state[S_HERBERTS] += 1
        state[S_HAND + seat * N_TYPES + t] -= 1
        state[S_DISCARD + t] += 1
        if hand_count(state, seat) == 0:
            draw(state, seat, params[P_HAND_SIZE], streams)
    state[S_ROPE] += rope
    state[S_PENDING] = pending if params[P_PRO] else PEND_NONE
    state[S_PENDING_COLOUR] = c
    note_team_sizes(state)
    note_lead(state)


# --- policies -----------------------------------------------------------------


@njit(cache=True, nogil=True)
def colour_pref(state, seat, c):
    """+1 per card in hand that makes colour c count 2, -1 per card that makes it 0."""
    total = 0
    for t in range(N_TYPES):
        total += state[S_HAND + seat * N_TYPES + t] * PREF[t, c]
    return total


@njit(cache=True, nogil=True)
def pick_colour(state, policy, seat, streams):
    """The colour of a seat's starting gnome, among the hats in the supply."""
    stream = rng.POLICY + seat
    if policy == POLICY_RANDOM:
        k = 0
        for c in range(N_COLOURS):
            k += state[S_SUPPLY + c] > 0
        r = rng.randint(streams, stream, k)
        for c in range(N_COLOURS):
            if state[S_SUPPLY + c] > 0:
                if r == 0:
                    return c
                r -= 1
    best = -(1 << 30)
    tied = 0
    for c in range(N_COLOURS):
        if state[S_SUPPLY + c] > 0:
            p = colour_pref(state, seat, c)
            if p > best:
                best = p
                tied = 0
            if p == best:
                tied += 1
    r = rng.randint(streams, stream, tied)
    for c in range(N_COLOURS):
        if state[S_SUPPLY + c] > 0 and colour_pref(state, seat, c) == best:
            if r == 0:
                return c
            r -= 1
    return -1


@njit(cache=True, nogil=True)
def greedy_score(state, params, seat, kind, t, c):
    """One-ply value of a move: win/lose the round, else track gain + 2 per gnome."""
    team = team_of(seat)
    rope, d_own, d_opp = effect(state, params, seat, kind, t, c)
    rope += state[S_ROPE]
    own_size = team_size(state, team) + d_own
    opp_size = team_size(state, 1 - team) + d_opp
    if front_at(params, 1 - team, opp_size, rope) <= 0:
        base = WIN_SCORE
    elif front_at(params, team, own_size, rope) <= 0:
        base = -WIN_SCORE
    else:
        base = toward(team) * (rope - state[S_ROPE]) + 2 * (d_own - d_opp)
    score = 10 * base
    if kind == M_RE or (kind == M_PLAY and CARD_KIND[t] == K_ADD):
        score += min(5, max(-5, colour_pref(state, seat, c)))
    return score


@njit(cache=True, nogil=True)
def choose(state, params, policy, seat, moves, n, scores, streams):
    """A policy's choice among ``n`` legal moves: (move index, swap mask)."""
    stream = rng.POLICY + seat
    full = (1 << hand_count(state, seat)) - 1
    if policy == POLICY_RANDOM:
        i = rng.randint(streams, stream, n)
        mask = 0
        if moves[i, 0] == M_SWAP:
            mask = 1 + rng.randint(streams, stream, full)
        return i, mask
    best = -(1 << 40)
    tied = 0
    for i in range(n):
        scores[i] = greedy_score(state, params, seat, moves[i, 0], moves[i, 1], moves[i, 2])
        if scores[i] > best:
            best = scores[i]
            tied = 0
        if scores[i] == best:
            tied += 1
    r = rng.randint(streams, stream, tied)
    for i in range(n):
        if scores[i] == best:
            if r == 0:
                return i, full
            r -= 1
    return n - 1, full


# --- a whole game -------------------------------------------------------------


@njit(cache=True, nogil=True)
def finish_turn(state, params, policies, streams, mover):
    """Count the turn, end the round if a team is in the fence; return the match winner or -1."""
    state[S_TURN] += 1
    lost = loser(state, params)
    if lost < 0:
        state[S_SEAT] = (mover + 1) % params[P_PLAYERS]
        return -1
    state[S_ROUNDS + 1 - lost] += 1
    if state[S_ROUNDS + 1 - lost] >= params[P_ROUNDS_TO_WIN]:
        return 1 - lost
    start_round(state, params, policies, streams, next_starter(params, mover, lost))
    return -1


@njit(cache=True, nogil=True)
def play_game(params, policies, seed, game_index, state, streams, moves, scores, row):
    """Play one match and write its result row."""
    rng.seed_streams(streams, seed, game_index)
    setup(state, params, streams)
    start_round(state, params, policies, streams, params[P_FIRST_SEAT])
    winner = -1
    while winner < 0 and state[S_TURN] < params[P_MAX_TURNS]:
        seat = state[S_SEAT]
        n = legal_moves(state, params, seat, moves)
        i, mask = choose(state, params, policies[seat], seat, moves, n, scores, streams)
        apply_move(state, params, seat, moves[i, 0], moves[i, 1], moves[i, 2], mask, streams)
        winner = finish_turn(state, params, policies, streams, seat)
    write_row(state, params, winner, row)


@njit(cache=True, nogil=True)
def write_row(state, params, winner, row):
    row[O_FIRST_SEAT] = params[P_FIRST_SEAT]
    row[O_N_TURNS] = state[S_TURN]
    row[O_TIMEOUT] = winner < 0
    for seat in range(params[P_PLAYERS]):
        row[O_WIN + seat] = winner == team_of(seat)
        row[O_SCORE + seat] = state[S_ROUNDS + team_of(seat)]
    x = O_EXTRA
    row[x] = state[S_ROUNDS]
    row[x + 1] = state[S_ROUNDS + 1]
    row[x + 2] = state[S_N_ROUNDS]
    row[x + 3] = state[S_ADDS]
    row[x + 4] = state[S_PULLS]
    row[x + 5] = state[S_SQUIRRELS]
    row[x + 6] = state[S_SWAPS]
    row[x + 7] = state[S_CONTRAS]
    row[x + 8] = state[S_RES]
    row[x + 9] = state[S_HERBERTS]
    row[x + 10] = state[S_LEAD_CHANGES]
    row[x + 11] = state[S_MAX_TEAM]


@njit(cache=True, parallel=True)
def run_batch(params, policies, seed, start, out):
    """Games ``start .. start+len(out)-1``, chunk by chunk over all threads."""
    n = out.shape[0]
    n_chunks = (n + CHUNK - 1) // CHUNK
    for chunk in prange(n_chunks):
        state = np.zeros(STATE_SIZE, np.int64)
        streams = np.zeros(rng.N_STREAMS, np.uint64)
        moves = np.zeros((MAX_MOVES, 3), np.int64)
        scores = np.zeros(MAX_MOVES, np.int64)
        for g in range(chunk * CHUNK, min(n, (chunk + 1) * CHUNK)):
            play_game(params, policies, seed, start + g, state, streams, moves, scores, out[g])
