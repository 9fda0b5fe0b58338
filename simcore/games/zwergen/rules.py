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

A match is a sequence of decisions (docs/zwergen.md, "Decisions, information
and resampling"): ``begin``, then ``current_player`` / ``legal_actions`` /
``apply_action`` until ``current_player`` is -1; ``resample`` redraws what a
seat cannot see.

The state of one game is one flat ``int16`` array (``STATE_DTYPE``): 510 words, 1,020 bytes, since a search
copies it for every rollout. Every field fits over the allowed parameters (``GAME.params``); the turn and the
counts of each kind of move reach ``max_turns`` (up to 1,000,000) and take two words each (``count``)::

    S_HAND     [0, 88)        hand counts, seat * N_TYPES + card type: at most hand_size <= 12
    S_DISCARD  [88, 110)      discard pile, count per card type: at most the type's copies, <= 40
    S_REFILL   [110, 132)     the draw pile's cards when it was last filled (the deck, or the discard pile): <= 40
    S_DRAWN    [132, 220)     cards each seat drew since then, seat * N_TYPES + card type: <= the refill's, 40
    S_SUPPLY   [220, 224)     hats in the supply per colour: <= hats_per_colour <= 60
    S_TEAM     [224, 232)     gnomes on the track, team * 4 + colour: <= 60
    S_PICK     [232, 236)     each seat's starting colour this round (-1 before its pick)
    S_SEEN     [236, 240)     colours in stock (a 4-bit mask) when the seat picked it
    S_ROPE                    while a round is on both fronts are >= 1 and each team has a gnome, so
                              |rope| < track_half <= 60; the round's last move pulls at most 20 spaces (add,
                              swap) or 2 per gnome on the track (2 x 4 x 60): |rope| < 600
    S_PENDING .. S_PICKER     the other scalars (pending announcement, seat, rounds won <= rounds_to_win <= 20
                              and started <= 39, the rope's last side, the largest team <= 4 x 60 hats,
                              decision phase, the seat picking)
    S_TURN, S_ADDS .. S_LEAD_CHANGES  two words each: one move per turn, one lead change per move at most,
                              so each is <= max_turns
    S_DRAW_N                  cards in the draw pile: <= MAX_DECK = 240
    S_DRAW     [.., +MAX_DECK) the draw pile, top card last (card types < 22); resample's scratch list
"""

import numpy as np

from simcore.engine import O_FIRST_SEAT, O_N_TURNS, O_TIMEOUT, O_WIN, extra_offset, rng, score_offset
from simcore.engine.jit import kernel
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

# A move is a (kind, card type, colour) triple; colour -1 where the card names none.
M_PLAY, M_CONTRA, M_RE, M_HERBERT, M_SWAP = 0, 1, 2, 3, 4
MAX_MOVES = 128

# What the pending decision is: a starting colour, a move, or the cards a swap discards; none once the match is
# won or has run max_turns turns.
PH_COLOUR, PH_MOVE, PH_DISCARD, PH_OVER = 0, 1, 2, 3

# Action codes, distinct across the three decisions (docs/zwergen.md, "Decisions, information and resampling").
A_COLOUR = 0                                       # + colour: the starting gnome
A_MOVE = A_COLOUR + N_COLOURS                      # + move_code: play a card (or announce with it)
COLOUR_CHOICES = N_COLOURS + 1                     # a move's colour: -1 (none) or 0..3
A_SWAP = A_MOVE + M_SWAP * N_TYPES * COLOUR_CHOICES  # swap instead of playing
A_DISCARD = A_SWAP + 1                             # + mask (1 .. 2^h - 1): the cards the swap discards
MAX_ACTIONS = (1 << MAX_HAND) - 1                  # the discard decision of a full hand is the longest list
WORK_SIZE = 2 * MAX_MOVES                          # greedy's scratch: the move list and its scores
N_ACTION_CODES = A_DISCARD + (1 << MAX_HAND)       # every action code is below this
assert MAX_MOVES <= MAX_ACTIONS

# Pending Pro-rules announcement (what the next seat may answer).
PEND_NONE, PEND_ADD, PEND_CONTRA, PEND_RE = 0, 1, 2, 3


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


def _card_names():
    names = [f"add {c}" for c in COLOURS] + ["add multicolour"]
    names += [f"pull {c} 2" for c in COLOURS] + [f"pull {c} 0" for c in COLOURS]
    names += [f"pull {c} 2 {COLOURS[(i + 1) % N_COLOURS]} 0" for i, c in enumerate(COLOURS)]
    names += ["pull multicolour 2", "pull multicolour 0", "squirrel 1", "squirrel 2", "squirrel 3"]
    assert len(names) == N_TYPES
    return tuple(names)


CARD_NAMES = _card_names()

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
    observations=True,
    restricted_greedy=True,     # heuristics.greedy_among: the best-scoring allowed move
    # the recommended search on fresh deals (docs/explanation/agents.md, "Recommended search")
    strength="0.763 [0.717, 0.806] against greedy (2 players, 200 deals x 2 seats, seed 9173)",
    search=(("tree", "observed"),),            # docs/explanation/agents.md: "Recommended search"
    rulebook="Zwergen Ziehen (Oh ! les nains), Philippe des Pallières (Asmodée, 2002)",
    player_counts=(2, 4),
    policies=("random", "greedy", "mc", "ismcts"),
    margin="rounds",
    rules_version=1,
    cases=({"players": 4, "pro": True},),
    readings=(("re_moves_rope", (False, True),
               "Pro rules: the Re rule moves the rope 2 spaces, its example and the Herbert rule keep it where it "
               "is (the translator's note)"),),
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

STATE_DTYPE = np.int16
WIDE = 2                        # words of a count that can reach max_turns (see ``count``)
S_HAND = 0
S_DISCARD = S_HAND + MAX_SEATS * N_TYPES
S_REFILL = S_DISCARD + N_TYPES    # what a seat knows of the draw pile: see ``refill``
S_DRAWN = S_REFILL + N_TYPES
S_SUPPLY = S_DRAWN + MAX_SEATS * N_TYPES
S_TEAM = S_SUPPLY + N_COLOURS
S_PICK = S_TEAM + 2 * N_COLOURS   # the starting colours stay secret until every seat has picked
S_SEEN = S_PICK + MAX_SEATS
S_ROPE = S_SEEN + MAX_SEATS
S_PENDING = S_ROPE + 1          # PEND_* kind of the announcement the next seat may answer
S_PENDING_COLOUR = S_PENDING + 1
S_SEAT = S_PENDING_COLOUR + 1   # seat to move (during the colour picks: the seat that will move first)
S_TURN = S_SEAT + 1             # turns played in the match
S_ROUNDS = S_TURN + WIDE        # rounds won, team A then B
S_LAST_SIGN = S_ROUNDS + 2      # sign of the rope when it was last off centre, this round
S_N_ROUNDS = S_LAST_SIGN + 1
S_ADDS = S_N_ROUNDS + 1
S_PULLS = S_ADDS + WIDE
S_SQUIRRELS = S_PULLS + WIDE
S_SWAPS = S_SQUIRRELS + WIDE
S_CONTRAS = S_SWAPS + WIDE
S_RES = S_CONTRAS + WIDE
S_HERBERTS = S_RES + WIDE
S_LEAD_CHANGES = S_HERBERTS + WIDE
S_MAX_TEAM = S_LEAD_CHANGES + WIDE
S_PHASE = S_MAX_TEAM + 1        # PH_* of the pending decision
S_PICKER = S_PHASE + 1          # seat to pick its starting colour (PH_COLOUR)
S_DRAW_N = S_PICKER + 1
S_DRAW = S_DRAW_N + 1
STATE_SIZE = S_DRAW + MAX_DECK
COUNTS = (S_TURN, S_ADDS, S_PULLS, S_SQUIRRELS, S_SWAPS, S_CONTRAS, S_RES, S_HERBERTS, S_LEAD_CHANGES)


class View(StateView):
    """Named views into one flat state array."""

    offsets = scalar_offsets(globals())

    def __init__(self, state):
        super().__init__(state)
        self.hands = state[S_HAND:S_DISCARD].reshape(MAX_SEATS, N_TYPES)
        self.discard = state[S_DISCARD:S_REFILL]
        self.refill = state[S_REFILL:S_DRAWN]
        self.drawn = state[S_DRAWN:S_SUPPLY].reshape(MAX_SEATS, N_TYPES)
        self.supply = state[S_SUPPLY:S_TEAM]
        self.teams = state[S_TEAM:S_PICK].reshape(2, N_COLOURS)
        self.picks = state[S_PICK:S_SEEN]
        self.seen = state[S_SEEN:S_ROPE]
        self.rounds = state[S_ROUNDS:S_ROUNDS + 2]

    def __getattr__(self, name):
        offset = self.offsets.get(name)
        if offset in COUNTS:
            return int(count(self.state, offset))
        return super().__getattr__(name)

    @property
    def draw_pile(self):
        return self.state[S_DRAW:S_DRAW + int(self.state[S_DRAW_N])]


def new_state():
    return np.zeros(STATE_SIZE, STATE_DTYPE)


# --- counts that outgrow a word -------------------------------------------------
# The turn and the counts of each kind of move reach max_turns (up to 1,000,000): each is kept in two 16-bit
# words, the low one first and read as unsigned.


@kernel(inline="always")
def count(state, at):
    """The count kept in the two words from ``at``."""
    return (state[at] & 0xFFFF) | state[at + 1] << 16


@kernel(inline="always")
def count_one(state, at):
    """Add 1 to the count at ``at`` and return the new count. The low word runs from 0xFFFF (stored as -1) on to 0
    and carries, without a branch (a branch measured slower)."""
    low = (state[at] + 1) & 0xFFFF
    high = state[at + 1] + (low == 0)
    state[at] = low
    state[at + 1] = high
    return low | high << 16


# --- the track ----------------------------------------------------------------


@kernel
def team_of(seat):
    return seat & 1


@kernel
def toward(team):
    """Sign of a rope move in ``team``'s favour."""
    return 1 - 2 * team


@kernel
def team_size(state, team):
    base = S_TEAM + team * N_COLOURS
    return state[base] + state[base + 1] + state[base + 2] + state[base + 3]


@kernel
def front_at(params, team, size, rope):
    """Distance of ``team``'s front gnome from the fence (decisions: Track)."""
    return params[P_TRACK_HALF] - size + 1 + toward(team) * rope


@kernel
def front(state, params, team):
    return front_at(params, team, team_size(state, team), state[S_ROPE])


@kernel
def strength_diff(state, t, chosen):
    """Strength of team A minus team B on pull card ``t`` (rulebook: Movement)."""
    if chosen < 0:
        chosen = 0
    diff = 0
    for c in range(N_COLOURS):
        diff += (state[S_TEAM + c] - state[S_TEAM + N_COLOURS + c]) * STRENGTH[t, chosen, c]
    return diff


@kernel
def loser(state, params):
    """The team in the fence (A checked first), or -1."""
    if front(state, params, 0) <= 0:
        return 0
    if front(state, params, 1) <= 0:
        return 1
    return -1


@kernel
def in_stock(state):
    """Colours with a hat in the supply, as a bit mask."""
    mask = 0
    for c in range(N_COLOURS):
        if state[S_SUPPLY + c] > 0:
            mask |= 1 << c
    return mask


# --- cards --------------------------------------------------------------------


@kernel
def hand_count(state, seat):
    total = 0
    for t in range(N_TYPES):
        total += state[S_HAND + seat * N_TYPES + t]
    return total


@kernel
def refill(state, streams):
    """Turn the discard pile into the draw pile: its cards in canonical order, shuffled; return how many.

    The new pile's cards are public (the discard pile was), and each seat starts counting its own draws from
    it again: together they tell a seat which cards can still be in the pile (see ``resample``).
    """
    n = 0
    for t in range(N_TYPES):
        state[S_REFILL + t] = state[S_DISCARD + t]
        for _ in range(state[S_DISCARD + t]):
            state[S_DRAW + n] = t
            n += 1
        state[S_DISCARD + t] = 0
    state[S_DRAWN:S_DRAWN + MAX_SEATS * N_TYPES] = 0
    rng.shuffle(streams, rng.DECK, state[S_DRAW:S_DRAW + n], n)
    state[S_DRAW_N] = n
    return n


@kernel
def draw(state, seat, k, streams):
    """Draw ``k`` cards; an empty draw pile is refilled from the shuffled discard pile."""
    for _ in range(k):
        if state[S_DRAW_N] == 0 and refill(state, streams) == 0:
            return
        state[S_DRAW_N] -= 1
        t = state[S_DRAW + state[S_DRAW_N]]
        state[S_HAND + seat * N_TYPES + t] += 1
        state[S_DRAWN + seat * N_TYPES + t] += 1


@kernel
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


# --- setup and the flow of a match ----------------------------------------------


@kernel
def setup(state, params, streams):
    """Shuffle the deck and deal every seat a hand (rulebook: Set-up)."""
    state[:] = 0
    n = 0
    for t in range(N_TYPES):
        state[S_REFILL + t] = params[P_DECK + t]
        for _ in range(params[P_DECK + t]):
            state[S_DRAW + n] = t
            n += 1
    rng.shuffle(streams, rng.DECK, state[S_DRAW:S_DRAW + n], n)
    state[S_DRAW_N] = n
    for seat in range(params[P_PLAYERS]):
        draw(state, seat, params[P_HAND_SIZE], streams)


@kernel
def open_round(state, params, starter):
    """Empty the track; the seats then pick their starting gnomes, ``starter`` first (decisions: Start of a round)."""
    for c in range(N_COLOURS):
        state[S_SUPPLY + c] = params[P_HATS]
        state[S_TEAM + c] = 0
        state[S_TEAM + N_COLOURS + c] = 0
    for seat in range(MAX_SEATS):
        state[S_PICK + seat] = -1
        state[S_SEEN + seat] = 0
    state[S_ROPE] = 0
    state[S_PENDING] = PEND_NONE
    state[S_LAST_SIGN] = 0
    state[S_N_ROUNDS] += 1
    state[S_SEAT] = starter
    state[S_PICKER] = starter
    state[S_PHASE] = PH_COLOUR


@kernel
def last_pick(state, params):
    """Is the pick to come the round's last, after which every starting gnome is revealed?"""
    return (state[S_PICKER] + 1) % params[P_PLAYERS] == state[S_SEAT]


@kernel(inline="always")
def place_starting_gnome(state, params, c):
    """The picking seat's starting gnome joins its team; after the last pick the starting seat moves."""
    seat = state[S_PICKER]
    last = last_pick(state, params)
    state[S_SEEN + seat] = in_stock(state)
    state[S_PICK + seat] = c
    state[S_TEAM + team_of(seat) * N_COLOURS + c] += 1
    state[S_SUPPLY + c] -= 1
    state[S_PICKER] = (seat + 1) % params[P_PLAYERS]
    if last:
        note_team_sizes(state)
        state[S_PHASE] = PH_MOVE


@kernel
def next_starter(params, mover, losing_team):
    """The loser begins the next round: the losing team's first seat after the mover."""
    players = params[P_PLAYERS]
    seat = (mover + 1) % players
    if team_of(seat) != losing_team:
        seat = (seat + 1) % players
    return seat


@kernel(inline="always")
def end_turn(state, params, mover):
    """Count the turn; end the round if a team is in the fence, and the match if a team has won enough rounds or
    the turns have reached ``max_turns`` (a timeout: over, with no winner)."""
    turn = count_one(state, S_TURN)
    lost = loser(state, params)
    if lost < 0:
        state[S_SEAT] = (mover + 1) % params[P_PLAYERS]
        state[S_PHASE] = PH_MOVE
    else:
        state[S_ROUNDS + 1 - lost] += 1
        if state[S_ROUNDS + 1 - lost] >= params[P_ROUNDS_TO_WIN]:
            state[S_PHASE] = PH_OVER
        else:
            open_round(state, params, next_starter(params, mover, lost))
    if turn >= params[P_MAX_TURNS]:     # here, once a turn: current_player reads only the phase (measured faster)
        state[S_PHASE] = PH_OVER


@kernel
def match_winner(state, params):
    """The team that has won ``rounds_to_win`` rounds, or -1."""
    for team in range(2):
        if state[S_ROUNDS + team] >= params[P_ROUNDS_TO_WIN]:
            return team
    return -1


# --- decisions ----------------------------------------------------------------
# The functions run once per decision (current_player, legal_actions, apply_action and the steps they take,
# greedy's scoring) are inlined into their callers: as separate calls they made random play about 20% slower
# than the former play loop (measured); inlined, it is as fast.


@kernel
def begin(state, params, streams):
    """Deal, then open round 1: the first decision is the starting seat's colour."""
    setup(state, params, streams)
    open_round(state, params, params[P_FIRST_SEAT])


@kernel(inline="always")
def current_player(state, params):
    """The seat to decide, or -1 when the match is won or has run ``max_turns`` turns."""
    if state[S_PHASE] == PH_OVER:
        return -1
    if state[S_PHASE] == PH_COLOUR:
        return state[S_PICKER]
    return state[S_SEAT]


@kernel(inline="always")
def move_code(kind, t, c):
    return A_MOVE + (kind * N_TYPES + t) * COLOUR_CHOICES + c + 1


@kernel(inline="always")
def decode_move(action):
    """(kind, card type, colour) of a move's action code."""
    if action == A_SWAP:
        return M_SWAP, -1, -1
    x = action - A_MOVE
    c = x % COLOUR_CHOICES - 1
    x //= COLOUR_CHOICES
    return x // N_TYPES, x % N_TYPES, c


@kernel
def move_actions(state, params, seat, out):
    """The legal moves of ``seat`` in the listing order of docs/zwergen.md ("A turn"); return how many."""
    team = team_of(seat)
    room = front(state, params, team)
    any_hat = in_stock(state) != 0
    pending = state[S_PENDING]
    pc = state[S_PENDING_COLOUR]
    n = 0
    for t in range(N_TYPES):
        if state[S_HAND + seat * N_TYPES + t] == 0:
            continue
        kind = CARD_KIND[t]
        if kind == K_ADD:
            # An add needs a free space before the fence and a hat (decisions: Add a gnome, Hats).
            if room >= 2 and any_hat:
                c = CARD_COLOUR[t]
                if c >= 0 and state[S_SUPPLY + c] > 0:
                    out[n] = move_code(M_PLAY, t, c)
                    n += 1
                else:
                    for c2 in range(N_COLOURS):
                        if state[S_SUPPLY + c2] > 0:
                            out[n] = move_code(M_PLAY, t, c2)
                            n += 1
            if pending != PEND_NONE and (t == T_ADD_MULTI or t == T_ADD + pc):
                if pending == PEND_ADD:
                    out[n] = move_code(M_CONTRA, t, pc)
                    n += 1
                elif pending == PEND_CONTRA and room >= 3 and state[S_SUPPLY + pc] >= 2:
                    out[n] = move_code(M_RE, t, pc)
                    n += 1
                elif pending == PEND_RE and room >= 3:
                    out[n] = move_code(M_HERBERT, t, pc)
                    n += 1
        elif t == T_PULL_MULTI_TWO or t == T_PULL_MULTI_ZERO:
            for c in range(N_COLOURS):
                out[n] = move_code(M_PLAY, t, c)
                n += 1
        else:
            out[n] = move_code(M_PLAY, t, -1)
            n += 1
    out[n] = A_SWAP
    return n + 1


@kernel
def full_mask(state, seat):
    """The discard mask of the whole hand."""
    return (1 << hand_count(state, seat)) - 1


@kernel(inline="always")
def legal_actions(state, params, out):
    """The action codes of the pending decision, in the order the random policy draws from."""
    phase = state[S_PHASE]
    if phase == PH_COLOUR:
        n = 0
        for c in range(N_COLOURS):
            if state[S_SUPPLY + c] > 0:
                out[n] = A_COLOUR + c
                n += 1
        return n
    seat = state[S_SEAT]
    if phase == PH_DISCARD:
        # one action per non-empty subset of the sorted hand: bit i discards card i
        full = full_mask(state, seat)
        for mask in range(1, full + 1):
            out[mask - 1] = A_DISCARD + mask
        return full
    return move_actions(state, params, seat, out)


# --- step ---------------------------------------------------------------------


@kernel(inline="always")
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


@kernel
def note_team_sizes(state):
    largest = max(team_size(state, 0), team_size(state, 1))
    if largest > state[S_MAX_TEAM]:
        state[S_MAX_TEAM] = largest


@kernel
def note_lead(state):
    """Count a lead change when the rope crosses to the other side (0 is no side)."""
    rope = state[S_ROPE]
    if rope != 0:
        sign = 1 if rope > 0 else -1
        if state[S_LAST_SIGN] != 0 and sign != state[S_LAST_SIGN]:
            count_one(state, S_LEAD_CHANGES)
        state[S_LAST_SIGN] = sign


@kernel
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
        count_one(state, S_SWAPS)
    else:
        if kind == M_PLAY and CARD_KIND[t] == K_ADD:
            state[own + c] += 1
            state[S_SUPPLY + c] -= 1
            count_one(state, S_ADDS)
            pending = PEND_ADD
        elif kind == M_PLAY and CARD_KIND[t] == K_SQUIRREL:
            count_one(state, S_SQUIRRELS)
        elif kind == M_PLAY:
            count_one(state, S_PULLS)
        elif kind == M_CONTRA:
            # Contra: the opponents lose the gnome just added; the track stays.
            state[opp + c] -= 1
            state[S_SUPPLY + c] += 1
            count_one(state, S_CONTRAS)
            pending = PEND_CONTRA
        elif kind == M_RE:
            # Re: two gnomes of that colour join the team.
            state[own + c] += 2
            state[S_SUPPLY + c] -= 2
            count_one(state, S_RES)
            pending = PEND_RE
        else:
            # Herbert: the two gnomes of the Re change sides; the track stays.
            state[opp + c] -= 2
            state[own + c] += 2
            count_one(state, S_HERBERTS)
        state[S_HAND + seat * N_TYPES + t] -= 1
        state[S_DISCARD + t] += 1
        if hand_count(state, seat) == 0:
            draw(state, seat, params[P_HAND_SIZE], streams)
    state[S_ROPE] += rope
    state[S_PENDING] = pending if params[P_PRO] else PEND_NONE
    state[S_PENDING_COLOUR] = c
    note_team_sizes(state)
    note_lead(state)


@kernel
def observed_action(state, params, action, observer):
    """What ``observer`` sees of ``action``: a starting colour stays secret until the last seat has picked
    (the other seats see only that one was picked, class code ``A_COLOUR``); a swap shows the cards it
    discards, not their places in a hand the observer does not see (a code past N_ACTION_CODES naming the
    card types); every other move is played in the open."""
    phase = state[S_PHASE]
    if phase == PH_DISCARD and observer != state[S_SEAT]:
        return discarded_types(state, state[S_SEAT], action - A_DISCARD)
    if phase != PH_COLOUR or observer == state[S_PICKER] or last_pick(state, params):
        return action
    return A_COLOUR


@kernel
def discarded_types(state, seat, mask):
    """The card types the discard ``mask`` takes from the seat's sorted hand, as one code: N_ACTION_CODES
    plus the types + 1 in ascending order, base N_TYPES + 1."""
    base = S_HAND + seat * N_TYPES
    code = 0
    i = 0
    for t in range(N_TYPES):
        for _ in range(state[base + t]):
            if (mask >> i) & 1:
                code = code * (N_TYPES + 1) + t + 1
            i += 1
    return N_ACTION_CODES + code


@kernel
def revealed(state, params, action, observer):
    """What the last pick of a round start shows every seat: every starting colour, as one code (base 4, seat
    0 lowest; the last picker's own is its action); -1 for every other action."""
    picker = state[S_PICKER]
    if state[S_PHASE] != PH_COLOUR or not last_pick(state, params):
        return -1
    code = 0
    for seat in range(params[P_PLAYERS] - 1, -1, -1):
        code = code * N_COLOURS + (0 if seat == picker else state[S_PICK + seat])
    return code


@kernel
def num_players(params):
    return params[P_PLAYERS]


@kernel(inline="always")
def apply_action(state, params, action, streams):
    """Carry out the current decision, then run the rules up to the next one (or the end)."""
    phase = state[S_PHASE]
    if phase == PH_COLOUR:
        place_starting_gnome(state, params, action - A_COLOUR)
        return
    seat = state[S_SEAT]
    if phase == PH_DISCARD:
        apply_move(state, params, seat, M_SWAP, -1, -1, action - A_DISCARD, streams)
        end_turn(state, params, seat)
    elif action == A_SWAP:
        state[S_PHASE] = PH_DISCARD     # which cards go is the mover's next decision
    else:
        kind, t, c = decode_move(action)
        apply_move(state, params, seat, kind, t, c, 0, streams)
        end_turn(state, params, seat)


@kernel
def returns(state, params, out):
    """1 for both seats of the team that won the match, 0 otherwise (and for everybody on a timeout)."""
    winner = match_winner(state, params)
    for seat in range(params[P_PLAYERS]):
        out[seat] = 1.0 if team_of(seat) == winner else 0.0


@kernel
def write_row(state, params, row):
    """The result row; a match stopped at ``max_turns`` has no winner (a timeout)."""
    winner = match_winner(state, params)
    row[O_FIRST_SEAT] = params[P_FIRST_SEAT]
    row[O_N_TURNS] = count(state, S_TURN)
    row[O_TIMEOUT] = winner < 0
    for seat in range(params[P_PLAYERS]):
        row[O_WIN + seat] = winner == team_of(seat)
        row[O_SCORE + seat] = state[S_ROUNDS + team_of(seat)]
    x = O_EXTRA
    row[x] = state[S_ROUNDS]
    row[x + 1] = state[S_ROUNDS + 1]
    row[x + 2] = state[S_N_ROUNDS]
    row[x + 3] = count(state, S_ADDS)
    row[x + 4] = count(state, S_PULLS)
    row[x + 5] = count(state, S_SQUIRRELS)
    row[x + 6] = count(state, S_SWAPS)
    row[x + 7] = count(state, S_CONTRAS)
    row[x + 8] = count(state, S_RES)
    row[x + 9] = count(state, S_HERBERTS)
    row[x + 10] = count(state, S_LEAD_CHANGES)
    row[x + 11] = state[S_MAX_TEAM]


# --- information and resampling ---------------------------------------------------
# What a seat sees and what ``resample`` redraws: docs/zwergen.md, "Decisions, information and resampling".


@kernel
def unseen(state, params, seat, t):
    """Copies of card type ``t`` in another hand or in the draw pile: neither in ``seat``'s hand nor discarded."""
    return params[P_DECK + t] - state[S_HAND + seat * N_TYPES + t] - state[S_DISCARD + t]


@kernel
def pile_candidates(state, params, seat, t):
    """Copies of ``t`` that can be in the draw pile for ``seat``: unseen, and among the pile's cards at its last
    filling that ``seat`` did not draw itself."""
    return min(unseen(state, params, seat, t), state[S_REFILL + t] - state[S_DRAWN + seat * N_TYPES + t])


@kernel
def held_by_others(state, params, seat, t):
    total = 0
    for other in range(params[P_PLAYERS]):
        if other != seat:
            total += state[S_HAND + other * N_TYPES + t]
    return total


@kernel
def deal_to_others(state, params, seat, base, cards, streams):
    """Shuffle ``cards`` and share them out over the rows at ``base`` of the seats other than ``seat``, each row
    keeping its number of cards."""
    rng.shuffle(streams, rng.DECK, cards, cards.shape[0])
    i = 0
    for other in range(params[P_PLAYERS]):
        if other == seat:
            continue
        row = base + other * N_TYPES
        size = 0
        for t in range(N_TYPES):
            size += state[row + t]
            state[row + t] = 0
        for _ in range(size):
            state[row + cards[i]] += 1
            i += 1


@kernel
def redraw_cards(state, params, seat, streams):
    """A new draw pile, other hands and other seats' draws since the pile's last filling, as ``seat`` sees them."""
    cards = state[S_DRAW:S_DRAW + MAX_DECK]    # the pile's own slots serve as the list to draw from
    n_pile = state[S_DRAW_N]
    m = 0
    for t in range(N_TYPES):
        for _ in range(pile_candidates(state, params, seat, t)):
            cards[m] = t
            m += 1
    for i in range(n_pile):                    # the pile: n_pile of the candidates, drawn in random order
        j = i + rng.randint(streams, rng.DECK, m - i)
        cards[i], cards[j] = cards[j], cards[i]
    n = m                                      # the other hands: the rest of the unseen cards
    for t in range(N_TYPES):
        for _ in range(unseen(state, params, seat, t) - pile_candidates(state, params, seat, t)):
            cards[n] = t
            n += 1
    deal_to_others(state, params, seat, S_HAND, cards[n_pile:n], streams)
    n = n_pile                                 # their draws: the filling's cards neither ``seat`` drew nor in the pile
    for t in range(N_TYPES):
        in_pile = unseen(state, params, seat, t) - held_by_others(state, params, seat, t)
        for _ in range(state[S_REFILL + t] - state[S_DRAWN + seat * N_TYPES + t] - in_pile):
            cards[n] = t
            n += 1
    deal_to_others(state, params, seat, S_DRAWN, cards[n_pile:n], streams)


@kernel
def stock_before(state, params, seat):
    """Colours in stock (bit mask) when ``seat`` picks: the hats less the picks of the seats before it."""
    players = params[P_PLAYERS]
    mask = 0
    for c in range(N_COLOURS):
        taken = 0
        s = state[S_SEAT]
        while s != seat:
            taken += state[S_PICK + s] == c
            s = (s + 1) % players
        if taken < params[P_HATS]:
            mask |= 1 << c
    return mask


@kernel
def picks_fit(state, params, seat, seen):
    """The redrawn picks leave no colour short of hats and show ``seat`` the stock it saw (``seen``; -1: none)."""
    players = params[P_PLAYERS]
    for c in range(N_COLOURS):
        taken = 0
        s = state[S_SEAT]
        while s != state[S_PICKER]:
            if s != seat and state[S_PICK + s] == c:
                taken += 1
            s = (s + 1) % players
        if taken > state[S_SUPPLY + c]:
            return False
    return seen < 0 or stock_before(state, params, seat) == seen


@kernel
def move_hidden_gnomes(state, params, seat, sign):
    """Take off (-1) or put back (+1) the starting gnomes picked this round by seats other than ``seat``."""
    players = params[P_PLAYERS]
    s = state[S_SEAT]
    while s != state[S_PICKER]:
        if s != seat:
            c = state[S_PICK + s]
            state[S_TEAM + team_of(s) * N_COLOURS + c] += sign
            state[S_SUPPLY + c] -= sign
            if sign > 0:        # what that seat saw when it picked follows from the new picks
                state[S_SEEN + s] = stock_before(state, params, s)
        s = (s + 1) % players


@kernel
def redraw_picks(state, params, seat, streams):
    """New starting colours for the other seats that picked this round: uniform among those consistent with the
    stock ``seat`` saw when it picked (or sees now, as the picking seat)."""
    players = params[P_PLAYERS]
    picker = state[S_PICKER]
    seen = -1
    if state[S_PICK + seat] >= 0:
        seen = state[S_SEEN + seat]
    elif seat == picker:
        seen = in_stock(state)
    move_hidden_gnomes(state, params, seat, -1)
    while True:         # rejection: the true picks fit, and there are at most 4^3 choices
        s = state[S_SEAT]
        while s != picker:
            if s != seat:
                state[S_PICK + s] = rng.randint(streams, rng.DECK, N_COLOURS)
            s = (s + 1) % players
        if picks_fit(state, params, seat, seen):
            break
    move_hidden_gnomes(state, params, seat, 1)


@kernel
def resample(state, params, seat, streams):
    """Replace what ``seat`` cannot see by a random world consistent with what it saw (stream DECK)."""
    if state[S_PHASE] == PH_COLOUR:
        redraw_picks(state, params, seat, streams)
    redraw_cards(state, params, seat, streams)


# --- the trace (run --trace) ----------------------------------------------------------

TRACE_STANDING = "rounds won by the seat's team"
TRACE_STEP = "round"
MAX_TRACE_STEPS = 40                 # rounds_to_win <= 20: at most 39 rounds, and the end of a timeout
ACTION_KINDS = (
    ("add", "an add card (a gnome joins the team)"),
    ("pull_two", "a pull card making a colour count 2"),
    ("pull_zero", "a pull card making a colour count 0"),
    ("pull_two_next_zero", "a pull card making a colour count 2 and the next 0"),
    ("squirrel_1", "a squirrel card of 1 space"),
    ("squirrel_2", "a squirrel card of 2 spaces"),
    ("squirrel_3", "a squirrel card of 3 spaces"),
    ("swap", "a swap of cards instead of a card"),
    ("contra", "a Contra announcement (Pro rules)"),
    ("re", "a Re announcement (Pro rules)"),
    ("herbert", "a Herbert announcement (Pro rules)"),
)
END_CONDITIONS = (("rounds_won", "a team won rounds_to_win rounds (rulebook: its gnomes pulled into the fence)"),)
K_SWAP, K_CONTRA = 7, 8


@kernel
def standing(state, params, out):
    for seat in range(params[P_PLAYERS]):
        out[seat] = state[S_ROUNDS + team_of(seat)]


@kernel
def trace_step(state, params):
    return state[S_N_ROUNDS]


@kernel
def action_kind(state, params, action):
    """The kind of a move; a starting colour and the cards a swap discards are no kind (the swap was counted)."""
    if state[S_PHASE] != PH_MOVE:
        return -1
    if action == A_SWAP:
        return K_SWAP
    kind, t, _ = decode_move(action)
    if kind != M_PLAY:
        return K_CONTRA + kind - M_CONTRA
    if t <= T_ADD_MULTI:
        return 0
    if t >= T_SQUIRREL:
        return 4 + t - T_SQUIRREL
    if t < T_PULL_ZERO or t == T_PULL_MULTI_TWO:
        return 1
    if t < T_PULL_TWO_NEXT_ZERO or t == T_PULL_MULTI_ZERO:
        return 2
    return 3


@kernel
def end_condition(state, params):
    return 0
