"""Zwai's own whole random game: a game of random seats played start to end in one function, the rules of
``rules.py`` written for speed, for the engine's runs where every seat is random (``simcore.games.OPTIONAL``:
``random_game``). It draws the same numbers in the same order as the game loop playing ``rules.py`` with random
seats, so it plays the same games and writes the same rows (the conformance check ``own-random-game`` and
``tests/test_zwai_random_game.py`` hold it to that, variant by variant).

What makes it fast, against the game loop (which asks for a decision, then applies it, twice a placement):

* The shoal is one 64-bit board: the window of every cell some translation of the formation covers, row-major,
  with one empty guard column at each row's end, so that the frontier (the empty neighbours of the shoal) is four
  shifts of the occupied mask. It serves the formations whose window fits 64 bits (``prepare_random_game``): the
  rulebook's 4 x 4 square (7 rows of 8), every formation within 4 x 4, and 2 rows of up to 8 (the bar). The
  others play through the game loop.
* A hand is a mask of the cards of its colour, numbered in ascending fish order: the k-th card of the sorted hand
  is its k-th set bit, as the k-th legal cell is of the legal cells' mask: one pdep each where the CPU has BMI2
  (``simcore.engine.jit.kth_bit``; 1.7x the games a second of a loop over the bits).
* The sharks move without a branch (``rules.shark_target``: the row and column just drawn are hard to predict).
* The translations still feasible and the cells they reach are masks too, as in ``rules.py`` (translation k lays
  formation cell k on the round's first card).
* A card's fish are banked when its round ends, as in ``rules.py`` (a game stopped by ``max_turns`` mid-round
  banks nothing of that round).

The scratch (``RANDOM_GAME_SCRATCH`` int64, one per thread's batch call) holds the tables ``prepare_random_game``
builds from ``params`` and what a game keeps between its rounds::

    T_ROWS, T_STRIDE, T_CENTRE, T_COL0, T_N_SET   the window: rows, bits a row, the centre's bit, column 0's mask
    T_COVERS    [64]            per window bit: the translations covering it
    T_SPANS     [64]            per translation: the window bits it covers
    T_ROW_OF, T_COL_OF [64]     per window bit: its row and column
    T_FISH      [MAX_SET]       per card of a colour: its fish
    T_HAND, T_TOP, T_BOTTOM, T_SCORE, T_CARDS [MAX_SEATS]   hands (masks), piles' ends, the scoring piles
    T_REMOVED   [MAX_ROUNDS]    cards the sharks removed per round
    T_ROW_FISH, T_COL_FISH [16] fish per window row and column this round
    T_CELL      [64]            per window bit: seat * 64 + card of the card on it
    T_PILES     [MAX_SEATS x PILE_ROOM]  piles of cards, top last; a round end puts cards under, below the bottom
"""

import numpy as np

from simcore.engine import O_FIRST_SEAT, O_N_TURNS, O_TIMEOUT, O_WIN, rng
from simcore.engine.jit import kernel, kth_bit, lowest_bit, popcount
from simcore.games.zwai.rules import (
    CENTRE,
    GRID,
    MAX_ROUNDS,
    MAX_SEATS,
    MAX_SET,
    N_GRID,
    O_EXTRA,
    O_SCORE,
    P_COVERS,
    P_DISCARD_REMOVED,
    P_FIRST_SEAT,
    P_FISH_COUNTS,
    P_HAND,
    P_MAX_TURNS,
    P_N_CELLS,
    P_N_FISH,
    P_PLAYERS,
    P_ROTATE_STARTER,
    P_ROUNDS,
    P_SHARK_TIE,
    next_seat,
    shark_target,
)

PILE_ROOM = MAX_ROUNDS * MAX_SET      # a pile's room: a colour set, and a set under it per round end
T_ROWS, T_STRIDE, T_CENTRE, T_COL0, T_N_SET = range(5)
T_COVERS = 8
T_SPANS = T_COVERS + 64
T_ROW_OF = T_SPANS + 64
T_COL_OF = T_ROW_OF + 64
T_FISH = T_COL_OF + 64
T_HAND = T_FISH + MAX_SET
T_TOP = T_HAND + MAX_SEATS
T_BOTTOM = T_TOP + MAX_SEATS
T_SCORE = T_BOTTOM + MAX_SEATS
T_CARDS = T_SCORE + MAX_SEATS
T_REMOVED = T_CARDS + MAX_SEATS
T_ROW_FISH = T_REMOVED + MAX_ROUNDS
T_COL_FISH = T_ROW_FISH + 16
T_CELL = T_COL_FISH + 16
T_PILES = T_CELL + 64
RANDOM_GAME_SCRATCH = T_PILES + MAX_SEATS * PILE_ROOM
ALL = -1                              # every translation, before a round's first card (as rules.clear_shoal)


@kernel
def prepare_random_game(params, t):
    """Build the tables of ``params`` into the scratch ``t``; False when the formation's window does not fit one
    64-bit board (the game loop plays it then). Plain Python too: the engine asks before it picks the path."""
    r_lo, r_hi, c_lo, c_hi = GRID, -1, GRID, -1
    for cell in range(N_GRID):
        if params[P_COVERS + cell] != 0:
            r, c = cell // GRID, cell % GRID
            r_lo, r_hi, c_lo, c_hi = min(r_lo, r), max(r_hi, r), min(c_lo, c), max(c_hi, c)
    rows, stride = r_hi - r_lo + 1, c_hi - c_lo + 2      # one guard column a row: no shift wraps into a cell
    if rows * stride > 64:
        return False
    t[:] = 0
    t[T_ROWS] = rows
    t[T_STRIDE] = stride
    t[T_CENTRE] = (CENTRE - r_lo) * stride + CENTRE - c_lo
    for r in range(rows):
        t[T_COL0] |= 1 << (r * stride)
        for c in range(stride):
            t[T_ROW_OF + r * stride + c] = r
            t[T_COL_OF + r * stride + c] = c
    for cell in range(N_GRID):
        covers = params[P_COVERS + cell]
        if covers != 0:
            b = (cell // GRID - r_lo) * stride + cell % GRID - c_lo
            t[T_COVERS + b] = covers
            for k in range(64):
                if (covers >> k) & 1:
                    t[T_SPANS + k] |= 1 << b
    n = 0
    for fish in range(params[P_N_FISH]):
        for _ in range(params[P_FISH_COUNTS + fish]):
            t[T_FISH + n] = fish
            n += 1
    t[T_N_SET] = n
    return True


@kernel
def deal(params, t, streams, players):
    """Every seat shuffles its colour set into a pile and draws a hand (rules.setup): the same shuffles of the
    same cards, a card numbered by its place in the set sorted by fish."""
    n = t[T_N_SET]
    for seat in range(players):
        bottom = T_PILES + seat * PILE_ROOM + (MAX_ROUNDS - 1) * MAX_SET
        for card in range(n):
            t[bottom + card] = card
        rng.shuffle(streams, rng.DECK, t[bottom:bottom + n], n)
        t[T_BOTTOM + seat] = bottom
        t[T_TOP + seat] = bottom + n
        t[T_SCORE + seat] = 0
        t[T_CARDS + seat] = 0
        t[T_HAND + seat] = 0
    for seat in range(players):
        draw(params, t, seat, players)


@kernel
def draw(params, t, seat, players):
    """A hand's worth from the top of the seat's pile, fewer if it runs out (rules.draw)."""
    bottom = t[T_BOTTOM + seat]
    top = t[T_TOP + seat]
    hand = t[T_HAND + seat]
    for _ in range(min(params[P_HAND + players - 2], top - bottom)):
        top -= 1
        hand |= 1 << t[top]
    t[T_TOP + seat] = top
    t[T_HAND + seat] = hand


@kernel
def end_round(params, t, occupied, shark_row, shark_col):
    """The sharks eat their row and column (their cards back to their owners' hands, or discarded) and the rest
    is banked (rules.end_round). Returns the cards removed."""
    stride = t[T_STRIDE]
    eaten = occupied & ((((1 << stride) - 1) << (shark_row * stride) if shark_row >= 0 else 0)
                        | (t[T_COL0] << shark_col if shark_col >= 0 else 0))
    discard = params[P_DISCARD_REMOVED] == 1
    cells = occupied
    while cells != 0:
        b = lowest_bit(cells)
        cells &= cells - 1
        seat = t[T_CELL + b] >> 6
        card = t[T_CELL + b] & 63
        if (eaten >> b) & 1:
            if not discard:
                t[T_HAND + seat] |= 1 << card
        else:
            t[T_SCORE + seat] += t[T_FISH + card]
            t[T_CARDS + seat] += 1
    return popcount(eaten)


@kernel
def next_hands(params, t, streams, players):
    """Each hand, sorted by fish, shuffled under its pile; then each seat draws (rules.hand_under_pile, draw)."""
    for seat in range(players):
        hand = t[T_HAND + seat]
        n = popcount(hand)
        bottom = t[T_BOTTOM + seat] - n
        at = bottom
        while hand != 0:
            t[at] = lowest_bit(hand)
            hand &= hand - 1
            at += 1
        rng.shuffle(streams, rng.DECK, t[bottom:bottom + n], n)
        t[T_BOTTOM + seat] = bottom
        t[T_HAND + seat] = 0
    for seat in range(players):
        draw(params, t, seat, players)


@kernel
def random_game(params, t, streams, seed, game_index, row):
    """Game ``game_index`` of ``seed`` with every seat random, its result into ``row`` as the game loop writes
    it (rules.write_row). ``t``: the scratch ``prepare_random_game`` filled for ``params``."""
    players = params[P_PLAYERS]
    rng.seed_streams(streams[:rng.POLICY + players], seed, game_index)   # the streams a random game draws from
    deal(params, t, streams, players)
    rounds = params[P_ROUNDS]
    max_turns = params[P_MAX_TURNS]
    n_cells = params[P_N_CELLS]
    tie = params[P_SHARK_TIE] == 1
    stride = t[T_STRIDE]
    centre = np.int64(1) << t[T_CENTRE]
    seat = starter = params[P_FIRST_SEAT]
    last = -1
    turn = skips = n_rounds = 0
    over = False
    occupied, front, reach, feasible, placed, shark_row, shark_col = empty_shoal(t, centre)
    while not over and turn < max_turns:
        round_over = False
        hand = t[T_HAND + seat]
        if hand == 0:                   # rules.advance: a round end when no hand holds a card, else a skip
            for other in range(players):
                hand |= t[T_HAND + other]
            if hand != 0:
                skips += 1
                seat = next_seat(params, seat)
                continue
            round_over = True
        else:
            policy = rng.POLICY + seat
            card = kth_bit(hand, rng.randint(streams, policy, popcount(hand)))
            t[T_HAND + seat] = hand & ~(np.int64(1) << card)
            legal = front & reach
            b = kth_bit(legal, rng.randint(streams, policy, popcount(legal)))
            fish = t[T_FISH + card]
            bit = np.int64(1) << b
            kept = feasible & t[T_COVERS + b]
            if kept != feasible:           # rules.narrow: the cells only the dropped translations covered leave
                feasible = kept
                reach = 0
                while kept != 0:
                    reach |= t[T_SPANS + lowest_bit(kept)]
                    kept &= kept - 1
            r = t[T_ROW_OF + b]
            c = t[T_COL_OF + b]
            shark_row = shark_target(tie, shark_row, t[T_ROW_FISH + max(shark_row, 0)], r, t[T_ROW_FISH + r] + fish)
            t[T_ROW_FISH + r] += fish
            shark_col = shark_target(tie, shark_col, t[T_COL_FISH + max(shark_col, 0)], c, t[T_COL_FISH + c] + fish)
            t[T_COL_FISH + c] += fish
            occupied |= bit
            front = (front | bit << 1 | bit >> 1 | bit << stride | bit >> stride) & ~occupied
            t[T_CELL + b] = seat * 64 + card
            placed += 1
            turn += 1
            last = seat
            seat = next_seat(params, seat)
            round_over = placed == n_cells
        if round_over:
            t[T_REMOVED + n_rounds] = end_round(params, t, occupied, shark_row, shark_col)
            n_rounds += 1
            if n_rounds >= rounds:
                over = True
                break
            next_hands(params, t, streams, players)
            if params[P_ROTATE_STARTER] == 1:   # RB: 'The new round begins with whoever is next clockwise.'
                starter = next_seat(params, starter)
            elif placed > 0:
                starter = next_seat(params, last)
            seat = starter
            occupied, front, reach, feasible, placed, shark_row, shark_col = empty_shoal(t, centre)
    write(params, t, players, over, turn, skips, n_rounds, row)


@kernel(inline="always")
def empty_shoal(t, centre):
    """A round's shoal before its first card (rules.clear_shoal): the cells occupied, the frontier (the centre),
    the cells reached and the translations feasible (the centre, every one), the cards placed, the sharks' row
    and column (none); no fish in any row or column."""
    t[T_ROW_FISH:T_CELL] = 0
    return np.int64(0), centre, centre, np.int64(ALL), np.int64(0), np.int64(-1), np.int64(-1)


@kernel
def write(params, t, players, over, turn, skips, n_rounds, row):
    """The row rules.write_row writes: most own fish, then most own cards, every seat tied for both winning."""
    best_fish = -1
    best_cards = -1
    for seat in range(players):
        fish = t[T_SCORE + seat]
        cards = t[T_CARDS + seat]
        if fish > best_fish or (fish == best_fish and cards > best_cards):
            best_fish = fish
            best_cards = cards
    row[O_FIRST_SEAT] = params[P_FIRST_SEAT]
    row[O_N_TURNS] = turn
    row[O_TIMEOUT] = not over
    for seat in range(players):
        row[O_WIN + seat] = over and t[T_SCORE + seat] == best_fish and t[T_CARDS + seat] == best_cards
        row[O_SCORE + seat] = t[T_SCORE + seat]
        row[O_EXTRA + seat] = t[T_CARDS + seat]
    x = O_EXTRA + MAX_SEATS
    for k in range(MAX_ROUNDS):
        row[x + k] = t[T_REMOVED + k] if k < n_rounds else 0
    row[x + MAX_ROUNDS] = skips
    row[x + MAX_ROUNDS + 1] = n_rounds
