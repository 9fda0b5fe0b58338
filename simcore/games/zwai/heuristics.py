"""Zwai's heuristics: the greedy policy and the evaluation of a state, reading only what a seat may see."""

import numpy as np

from simcore.engine import rng
from simcore.engine.estimates import win_shares
from simcore.engine.jit import kernel
from simcore.games.zwai.rules import (
    CELL,
    GRID,
    MAX_FISH,
    N_GRID,
    P_N_CELLS,
    P_PLAYERS,
    P_ROUNDS,
    P_SHARK_TIE,
    S_COL_FISH,
    S_COL_OWN,
    S_GRID,
    S_HAND,
    S_N_ROUNDS,
    S_OWN_FISH,
    S_PENDING,
    S_PHASE,
    S_PLACED,
    S_ROW_FISH,
    S_ROW_OWN,
    S_SCORE,
    S_SHARK_COL,
    S_SHARK_ROW,
    S_TURN,
    legal_cells,
    legal_word,
    shark_moves,
)

# --- policies -----------------------------------------------------------------


@kernel
def own_fish_at(state, seat, r, c):
    v = state[S_GRID + r * GRID + c] - 1
    return v & 15 if v >= 0 and v >> 4 == seat else 0


@kernel(inline="always")
def greedy_scores(state, params, seat, cells, n, fishes, scores):
    """Score every (fish value of the bit mask ``fishes``, legal cell): the mover's fish in the shoal outside
    the sharks' row and column as they would stand after that placement (what it would score if the round
    ended now).

    Writes ``scores[fish * N_GRID + k]`` and returns (best score, number of candidates with it). The
    sharks' current lines are read once; per candidate only the moved lines change (inclusion-exclusion:
    the card on both marked lines is subtracted twice, so it is added back once).
    """
    sr0 = state[S_SHARK_ROW]
    sc0 = state[S_SHARK_COL]
    tie = params[P_SHARK_TIE] == 1
    own = state[S_OWN_FISH + seat]
    row_own = S_ROW_OWN + seat * GRID
    col_own = S_COL_OWN + seat * GRID
    first = sr0 < 0
    if not first:
        marked_row = state[S_ROW_FISH + sr0]
        marked_col = state[S_COL_FISH + sc0]
        own_marked_row = state[row_own + sr0]
        own_marked_col = state[col_own + sc0]
        own_corner = own_fish_at(state, seat, sr0, sc0)
    best = -1
    tied = 0
    for k in range(n):
        r = cells[k] // GRID
        c = cells[k] % GRID
        if not first:
            row_fish = state[S_ROW_FISH + r]
            col_fish = state[S_COL_FISH + c]
            own_row = state[row_own + r]
            own_col = state[col_own + c]
            own_r_sc0 = own_fish_at(state, seat, r, sc0)
            own_sr0_c = own_fish_at(state, seat, sr0, c)
        for fish in range(MAX_FISH):
            if (fishes >> fish) & 1 == 0:
                continue
            if first:
                s = 0             # both sharks mark the first card
            else:
                row_to_r = r == sr0 or shark_moves(tie, row_fish + fish, marked_row)
                col_to_c = c == sc0 or shark_moves(tie, col_fish + fish, marked_col)
                in_row = own_row + fish if row_to_r else own_marked_row
                in_col = own_col + fish if col_to_c else own_marked_col
                if row_to_r and col_to_c:
                    both = fish
                elif row_to_r:
                    both = own_r_sc0
                elif col_to_c:
                    both = own_sr0_c
                else:
                    both = own_corner
                s = own + fish - in_row - in_col + both
            scores[fish * N_GRID + k] = s
            if s > best:
                best = s
                tied = 0
            if s == best:
                tied += 1
    return best, tied


@kernel(inline="always")
def hand_fishes(state, seat):
    """The fish values in the seat's hand as a bit mask (bit v: a card showing v fish)."""
    fishes = 0
    for fish in range(MAX_FISH):
        if state[S_HAND + seat * MAX_FISH + fish] > 0:
            fishes |= 1 << fish
    return fishes


@kernel(inline="always")
def greedy_choice(state, params, seat, cells, scores, streams, fishes):
    """Greedy's placement (fish value, cell) among the cards of the fish values in the mask ``fishes`` (bit v: a
    v-fish card; all those in hand for greedy itself): the best candidate; ties drawn among them in listing order
    (fish ascending, then cells). ``cells`` and ``scores`` are scratch."""
    n = legal_cells(state, params, cells)
    best, tied = greedy_scores(state, params, seat, cells, n, fishes, scores)
    pick = rng.randint(streams, rng.POLICY + seat, tied)
    for fish in range(MAX_FISH):
        if (fishes >> fish) & 1:
            for k in range(n):
                if scores[fish * N_GRID + k] == best:
                    if pick == 0:
                        return fish, cells[k]
                    pick -= 1
    return -1, -1


@kernel(inline="always")
def greedy_cell(state, params, seat, cells, scores, streams):
    """Greedy's cell for the card being laid, planned afresh: the best cell for that card by the score of
    :func:`greedy_scores`, ties drawn among them row-major."""
    fish = state[S_PENDING]
    n = legal_cells(state, params, cells)
    best, tied = greedy_scores(state, params, seat, cells, n, 1 << fish, scores)
    pick = rng.randint(streams, rng.POLICY + seat, tied)
    for k in range(n):
        if scores[fish * N_GRID + k] == best:
            if pick == 0:
                return cells[k]
            pick -= 1
    return -1


@kernel(inline="always")
def is_legal_cell(state, cell):
    """Whether :func:`legal_cells` lists ``cell`` (one bit of frontier AND reach)."""
    r = cell // GRID
    b = r * 16 + cell - r * GRID
    return (legal_word(state, b >> 6) >> (b & 63)) & 1 == 1


# greedy_action's scratch: the plan made at the card decision (the cell; the card, the turn and the seat's policy
# stream just after its draw, which together name the position it was made in), the legal cells, their scores
W_PLAN, W_FISH, W_TURN, W_TAG = range(4)
W_CELLS = 4
W_SCORES = W_CELLS + N_GRID
WORK_SIZE = W_SCORES + MAX_FISH * N_GRID


@kernel(inline="always")
def planned_here(state, seat, streams, work):
    """Whether greedy's plan was made for the card being laid in this very position, and its cell is legal.

    Always so when greedy chose the card: laying a card draws nothing, so the seat's policy stream still
    stands where greedy's draw left it. Not so inside a search that chose the card in its tree, or in another
    world (design.md, Known traps): a world's streams are forked afresh, so a stale plan would need two 64-bit
    stream states to coincide, and its cell is checked for legality all the same."""
    return (work[W_FISH] == state[S_PENDING] and work[W_TURN] == state[S_TURN]
            and work[W_TAG] == np.int64(streams[rng.POLICY + seat]) and is_legal_cell(state, work[W_PLAN]))


@kernel
def greedy_action(state, params, seat, streams, work):
    """Greedy picks card and cell together at the card decision and plays the kept cell at the next, when that
    plan was made there (:func:`planned_here`); otherwise it plans the cell for the card being laid."""
    cells = work[W_CELLS:W_SCORES]
    scores = work[W_SCORES:]
    if state[S_PHASE] == CELL:
        if planned_here(state, seat, streams, work):
            return MAX_FISH + work[W_PLAN]
        return MAX_FISH + greedy_cell(state, params, seat, cells, scores, streams)
    return planned_card(state, params, seat, streams, work, hand_fishes(state, seat))


@kernel(inline="always")
def planned_card(state, params, seat, streams, work, fishes):
    """The card decision: greedy's card and cell among the fish values of ``fishes``, the cell kept in ``work``
    for the cell decision that follows (:func:`planned_here`)."""
    cells = work[W_CELLS:W_SCORES]
    scores = work[W_SCORES:]
    fish, cell = greedy_choice(state, params, seat, cells, scores, streams, fishes)
    work[W_PLAN] = cell
    work[W_FISH] = fish
    work[W_TURN] = state[S_TURN]
    work[W_TAG] = np.int64(streams[rng.POLICY + seat])
    return fish


@kernel
def greedy_among(state, params, seat, streams, work, listed, n):
    """Greedy among the cards ``listed[:n]`` (those a restriction allows: a card decision lists fish values): the
    best placement of those cards only, its cell kept for the cell decision; a cell decision has no kind, so it is
    greedy's own."""
    if state[S_PHASE] == CELL:
        return greedy_action(state, params, seat, streams, work)
    fishes = 0
    for i in range(n):
        fishes |= 1 << listed[i]
    return planned_card(state, params, seat, streams, work, fishes)


# --- the evaluation ------------------------------------------------------------------

FISH_PER_CARD = 2.0   # about what a placed card adds to its owner's score: 3.5 fish on average, most survive


@kernel
def banked(state, seat):
    """The seat's fish in the shoal outside the sharks' row and column: what the round end would score it
    now (the card on both marked lines is subtracted twice, so it is added back once)."""
    row, col = state[S_SHARK_ROW], state[S_SHARK_COL]
    if row < 0:
        return 0
    own = state[S_OWN_FISH + seat]
    return (own - state[S_ROW_OWN + seat * GRID + row] - state[S_COL_OWN + seat * GRID + col]
            + own_fish_at(state, seat, row, col))


@kernel
def evaluate(state, params, seat, out):
    """Each seat's chance to win (docs/zwai.md, "evaluate") from public facts: the fish it has scored plus
    those the round end would score it now (:func:`banked`), a softmax over a spread of one plus
    FISH_PER_CARD for every card still to be placed in this round and the rounds after it, per seat. The
    hands and piles, which a seat cannot see but its own, are not read."""
    players = params[P_PLAYERS]
    cells = params[P_N_CELLS]
    to_place = (params[P_ROUNDS] - state[S_N_ROUNDS] - 1) * cells + cells - state[S_PLACED]
    for q in range(players):
        out[q] = state[S_SCORE + q] + banked(state, q)
    win_shares(out, players, 1.0 + FISH_PER_CARD * max(0, to_place) / players)
