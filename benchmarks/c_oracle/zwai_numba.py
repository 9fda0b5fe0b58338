"""The C oracle (``zwai.c``) transcribed line for line into numba: what numba makes of C's own design.

    python -m benchmarks.c_oracle.zwai_numba GAMES SEED [OUT]   # OUT: the rows as int16, as zwai.c writes them

It is the C program's algorithm and layout (2 players and the square formation fixed at compile time, the shoal,
frontier and reach each one 64-bit word of a 7 x 7 window, no decision interface, no bookkeeping for greedy) in a
numba state array, drawing from simcore's random streams: it plays the same games as the C and as simcore
(tests/test_c_oracle.py). ``compare.py`` times it beside both, which splits the gap between simcore and C into what
numba costs (this against C) and what simcore's generality costs (simcore against this): every variant a
parameter read at run time, the wide 15 x 15 grid for formations up to 8 x 8, the rows and columns of each colour
kept for greedy, the decision interface.
"""

import sys

import numpy as np
from numba import njit

from simcore.engine import rng
from simcore.engine.jit import lowest_bit, popcount

SEATS, N_FISH, HAND, ROUNDS, CELLS, MAX_TURNS = 2, 5, 11, 3, 16, 1000
W, C0 = 8, 3                      # window cell (r, c) = bit r * 8 + c; the centre is (3, 3)
FISH_COUNTS = np.array([3, 6, 6, 5, 3], np.int64)
WIDTH = 22                        # simcore's row for MAX_SEATS = 4 (simcore/engine/rows.py)


def tables():
    """Per window cell the translations covering it; per translation its cells; the cells any covers."""
    cells = [(r, c) for r in range(4) for c in range(4)]
    covers, spans = np.zeros(W * W, np.uint64), np.zeros(CELLS, np.uint64)
    for k, (kr, kc) in enumerate(cells):
        for r, c in cells:
            b = (r - kr + C0) * W + c - kc + C0
            covers[b] |= np.uint64(1 << k)
            spans[k] |= np.uint64(1 << b)
    return covers.view(np.int64), spans.view(np.int64), np.bitwise_or.reduce(spans).view(np.int64)


COVERS, SPANS, INSIDE = tables()

# the state: one int64 array
HAND_AT, HELD, HELD_ALL = 0, 10, 12
PILE = 13                          # 64 a seat
PILE_N = PILE + 128
OWNER_FISH = PILE_N + 2            # owner * 16 + fish of each window cell
SHOAL = OWNER_FISH + W * W
PLACED = SHOAL + CELLS
ROW_FISH = PLACED + 1
COL_FISH = ROW_FISH + W
OCC, FRONT, REACH, FEAS = COL_FISH + W, COL_FISH + W + 1, COL_FISH + W + 2, COL_FISH + W + 3
SHARK_ROW, SHARK_COL, SEAT, STARTER, LAST, N_ROUNDS, OVER, TURN, SKIPS = range(FEAS + 1, FEAS + 10)
SCORE = SKIPS + 1
CARDS = SCORE + SEATS
REMOVED = CARDS + SEATS
SIZE = REMOVED + 5


@njit(cache=True, _nrt=False, nogil=True)
def draw(s, seat, k):
    left = s[PILE_N + seat]
    k = min(k, left)
    for i in range(left - k, left):
        s[HAND_AT + seat * N_FISH + s[PILE + seat * 64 + i]] += 1
    s[PILE_N + seat] = left - k
    s[HELD + seat] += k
    s[HELD_ALL] += k


@njit(cache=True, _nrt=False, nogil=True)
def clear_shoal(s):
    s[ROW_FISH:OCC] = 0
    s[OCC] = 0
    s[FRONT] = s[REACH] = 1 << (C0 * W + C0)
    s[FEAS] = -1                   # all 64 bits: the first card always narrows, so reach becomes every span
    s[PLACED] = 0
    s[SHARK_ROW] = s[SHARK_COL] = -1


@njit(cache=True, _nrt=False, nogil=True)
def end_round(s, streams):
    removed = 0
    for k in range(s[PLACED]):
        b = s[SHOAL + k]
        owner, fish = s[OWNER_FISH + b] >> 4, s[OWNER_FISH + b] & 15
        if b // W == s[SHARK_ROW] or b % W == s[SHARK_COL]:
            removed += 1
            s[HAND_AT + owner * N_FISH + fish] += 1
            s[HELD + owner] += 1
            s[HELD_ALL] += 1
        else:
            s[SCORE + owner] += fish
            s[CARDS + owner] += 1
    s[REMOVED + s[N_ROUNDS]] = removed
    s[N_ROUNDS] += 1
    placed = s[PLACED]
    clear_shoal(s)
    if s[N_ROUNDS] >= ROUNDS:
        return True
    for seat in range(SEATS):      # the hand, with the cards back, shuffled under the pile
        base, old, n = PILE + seat * 64, s[PILE_N + seat], s[HELD + seat]
        for i in range(old - 1, -1, -1):
            s[base + n + i] = s[base + i]
        at = base
        for v in range(N_FISH):
            for _ in range(s[HAND_AT + seat * N_FISH + v]):
                s[at] = v
                at += 1
            s[HAND_AT + seat * N_FISH + v] = 0
        s[HELD_ALL] -= n
        s[HELD + seat] = 0
        rng.shuffle(streams, rng.DECK, s[base:base + n], n)
        s[PILE_N + seat] = old + n
    for seat in range(SEATS):
        draw(s, seat, HAND)
    if placed > 0:
        s[STARTER] = (s[LAST] + 1) % SEATS
    s[SEAT] = s[STARTER]
    return False


@njit(cache=True, _nrt=False, nogil=True)
def place(s, seat, fish, b):
    r, c = b // W, b % W
    kept = s[FEAS] & COVERS[b]
    if kept != s[FEAS]:
        s[FEAS] = kept
        reach = 0
        while kept != 0:
            reach |= SPANS[lowest_bit(kept)]
            kept &= kept - 1
        s[REACH] = reach
    row, col = s[SHARK_ROW], s[SHARK_COL]
    if row < 0 or r == row or s[ROW_FISH + r] + fish > s[ROW_FISH + row]:
        s[SHARK_ROW] = r
    if col < 0 or c == col or s[COL_FISH + c] + fish > s[COL_FISH + col]:
        s[SHARK_COL] = c
    bit = np.int64(1) << b
    s[OCC] |= bit
    s[FRONT] = (s[FRONT] | bit << 1 | bit >> 1 | bit << W | bit >> W) & ~s[OCC] & INSIDE
    s[OWNER_FISH + b] = seat * 16 + fish
    s[ROW_FISH + r] += fish
    s[COL_FISH + c] += fish
    s[SHOAL + s[PLACED]] = b
    s[PLACED] += 1


@njit(cache=True, _nrt=False, nogil=True)
def play(s, streams):
    s[:] = 0
    for seat in range(SEATS):
        n = 0
        for v in range(N_FISH):
            for _ in range(FISH_COUNTS[v]):
                s[PILE + seat * 64 + n] = v
                n += 1
        rng.shuffle(streams, rng.DECK, s[PILE + seat * 64:PILE + seat * 64 + n], n)
        s[PILE_N + seat] = n
    for seat in range(SEATS):
        draw(s, seat, HAND)
    clear_shoal(s)
    s[LAST] = -1
    while s[OVER] == 0 and s[TURN] < MAX_TURNS:
        seat = s[SEAT]
        k = rng.randint(streams, rng.POLICY + seat, s[HELD + seat])     # the k-th card of the sorted hand
        fish = 0
        while k >= s[HAND_AT + seat * N_FISH + fish]:
            k -= s[HAND_AT + seat * N_FISH + fish]
            fish += 1
        s[HAND_AT + seat * N_FISH + fish] -= 1
        s[HELD + seat] -= 1
        s[HELD_ALL] -= 1
        legal = s[FRONT] & s[REACH]                                     # the k-th legal cell, row-major
        k = rng.randint(streams, rng.POLICY + seat, popcount(legal))
        for _ in range(k):
            legal &= legal - 1
        place(s, seat, fish, lowest_bit(legal))
        s[TURN] += 1
        s[LAST] = seat
        s[SEAT] = (seat + 1) % SEATS
        if s[PLACED] == CELLS and end_round(s, streams):
            s[OVER] = 1
        while s[OVER] == 0 and s[HELD + s[SEAT]] == 0:
            if s[HELD_ALL] == 0:
                if end_round(s, streams):
                    s[OVER] = 1
            else:
                s[SKIPS] += 1
                s[SEAT] = (s[SEAT] + 1) % SEATS


@njit(cache=True, _nrt=False, nogil=True)
def write_row(s, row):
    best_fish, best_cards = -1, -1
    for seat in range(SEATS):
        if s[SCORE + seat] > best_fish or (s[SCORE + seat] == best_fish and s[CARDS + seat] > best_cards):
            best_fish, best_cards = s[SCORE + seat], s[CARDS + seat]
    row[:] = 0
    row[1], row[2] = s[TURN], 1 - s[OVER]
    for seat in range(SEATS):
        row[3 + seat] = s[OVER] == 1 and s[SCORE + seat] == best_fish and s[CARDS + seat] == best_cards
        row[7 + seat] = s[SCORE + seat]
        row[11 + seat] = s[CARDS + seat]
    for k in range(5):
        row[15 + k] = s[REMOVED + k]
    row[20], row[21] = s[SKIPS], s[N_ROUNDS]


@njit(cache=True, nogil=True)
def run(games, seed):
    """The rows of games ``0 .. games - 1`` of ``seed``, as simcore lays them out."""
    rows = np.zeros((games, WIDTH), np.int64)
    s = np.zeros(SIZE, np.int64)
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    for g in range(games):
        rng.seed_streams(streams, seed, g)
        play(s, streams)
        write_row(s, rows[g])
    return rows


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    rows = run(int(sys.argv[1]), int(sys.argv[2]))
    if len(sys.argv) == 4:
        rows.astype(np.int16).tofile(sys.argv[3])
