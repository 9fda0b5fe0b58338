"""Zwai (fish shoal and two sharks), 2-4 players, with "Alarm in the Shoal" formations.

The rules as simulated, step by step and with the order of random draws, are
in ``docs/zwai.md``: the rulebook (Zwai, Dirk Baumann, Piatnik 2025) and, where
it is silent, the decisions listed there. Seat s plays colour s.

The shoal lies on a 15 x 15 grid; the first card of a round goes on the centre
(7, 7), so any formation of at most 8 x 8 cells fits around it. The sharks
mark one row and one column::

            column shark
                 v
        . . . . . . . . .
        . . [1][3][0][2] .
    >   . . [4][2][3][2] .   <- row shark: the row with the most fish
        . . [0][1][.][.] .
        . . . . . . . . .

A translation (dr, dc) lays the formation's cell (fr, fc) on (fr+dr, fc+dc);
the feasible translations are those that still cover every card placed.

The state of one game is one flat ``int16`` array (``STATE_DTYPE``), small and allocation free, since a
search copies it for every rollout. Every field fits: a game has at most rounds x formation cells = 5 x 64
placements (``max_turns`` stays in ``params``), fewer than 3 skips per placement or round end, and a score of
at most 5 rounds x 64 cards x 9 fish::

    S_HAND      [MAX_SEATS x MAX_FISH]  hand: cards per fish value
    S_HELD      [MAX_SEATS], S_HELD_ALL   cards in each hand, in all hands (kept with S_HAND)
    S_PILE_N    [MAX_SEATS]             cards in each pile
    S_PILE      [MAX_SEATS x MAX_SET]   piles of fish values, top card last
    S_GRID      [225]                   shoal: 0 empty, else owner * 16 + fish + 1
    S_ROW_FISH, S_COL_FISH [15 each]    fish per row / column, any colour
    S_ROW_OWN, S_COL_OWN [MAX_SEATS x 15]  fish per row / column of each colour
    S_OWN_FISH  [MAX_SEATS]             fish of each colour in the shoal
    S_FRONT     [16]                    the frontier: per row, bit c = empty cell (r, c) next to the shoal
    S_FEAS      [4]                     feasible translations: one 64-bit mask in four 16-bit words
    S_REACH     [16]                    the cells some feasible translation covers, laid out as S_FRONT
    S_OCC       [16]                    the cells of the shoal, laid out as S_FRONT
    S_SHOAL     [MAX_CELLS]             the cells of the shoal, in the order placed
    S_PLACED .. S_SKIPS                 scalars (cards in the shoal, sharks, seat, turn, ...)
    S_SCORE, S_CARDS [MAX_SEATS]        the scoring pile: own fish / own cards
    S_REMOVED   [MAX_ROUNDS]            cards the sharks removed per round
    S_PHASE, S_PENDING, S_OVER          the pending decision (a card, then its cell) and the end
    S_SEGMENTS  [MAX_SEATS x MAX_ROUNDS]  cards each seat put under its pile at each round end

Legality is bit arithmetic (no loop over translations, no scan of the table): translation k lays formation
cell k on the centre, where every round's first card lies, so the feasible translations are at most 64, one
bit each; ``params`` holds per grid cell the mask of translations covering it. A placement is
``feasible &= covers[cell]``; a cell is legal when it is on the frontier and ``feasible & covers[cell]``.

Speed: what runs on every decision is inlined where it is called (``inline="always"``: apply_action,
random_action, random_cell, legal_actions, legal_cells, list_hand, place, greedy_choice, greedy_scores and the
other helpers of greedy_action). A numba call passes each array as seven values on the stack; inlining
apply_action, random_action and random_cell into the game loop and the playouts made random play 1.36x faster
(``benchmarks/direct.py``), for about a second more of cold compile.

A move is two decisions (the decision interface, ``docs/zwai.md``): the card,
then its cell. Action codes: a card is its fish value (listed once per copy in
the hand, so a uniform draw over the list is a uniform card), a cell is
``MAX_FISH + r * GRID + c``.
"""

import numpy as np

from simcore.engine import O_FIRST_SEAT, O_N_TURNS, O_TIMEOUT, O_WIN, extra_offset, rng, score_offset
from simcore.engine.jit import kernel, kth_bit, lowest_bit, popcount
from simcore.games import DATA, GameType, Param, StateView, scalar_offsets, shipped_maps

MAX_SEATS = 4
MAX_FISH = 10             # fish values 0..9 on a card
MAX_SET = 64              # cards per colour
MAX_DIM = 8               # a formation fits in 8 x 8
GRID = 2 * MAX_DIM - 1
CENTRE = MAX_DIM - 1
N_GRID = GRID * GRID
MAX_ROUNDS = 5
MAX_CELLS = MAX_DIM * MAX_DIM
O_SCORE = score_offset(MAX_SEATS)
O_EXTRA = extra_offset(MAX_SEATS)


FORMATIONS_FILE = DATA / "formations.toml"

# --- formations ----------------------------------------------------------------


def parse_formation(text, name="custom"):
    """ASCII art -> sorted formation cells (fr, fc), trimmed to the bounding box.

    Raises ValueError naming the formation when it is empty, not made of '#'
    and '.', larger than 8 x 8 or not orthogonally connected.
    """
    rows = [line.strip() for line in text.strip().splitlines() if line.strip()]
    bad = sorted({ch for line in rows for ch in line} - set("#."))
    if bad:
        raise ValueError(f"formation {name!r} has {''.join(bad)!r}; allowed: '#' (cell) and '.' (empty)")
    cells = [(r, c) for r, line in enumerate(rows) for c, ch in enumerate(line) if ch == "#"]
    if not cells:
        raise ValueError(f"formation {name!r} is empty; allowed: at least one '#'")
    top, left = min(r for r, _ in cells), min(c for _, c in cells)
    cells = sorted((r - top, c - left) for r, c in cells)
    height, width = max(r for r, _ in cells) + 1, max(c for _, c in cells) + 1
    if height > MAX_DIM or width > MAX_DIM:
        raise ValueError(f"formation {name!r} is {height}x{width}; allowed: at most {MAX_DIM}x{MAX_DIM}")
    seen, todo = {cells[0]}, [cells[0]]
    while todo:
        r, c = todo.pop()
        for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nb in cells and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    if len(seen) != len(cells):
        raise ValueError(f"formation {name!r} is not orthogonally connected; allowed: one connected shape")
    return cells


def draw_formation(cells):
    height, width = max(r for r, _ in cells) + 1, max(c for _, c in cells) + 1
    return "\n".join("".join("#" if (r, c) in cells else "." for c in range(width)) for r in range(height))


def shipped_formations():
    """name -> (description, ASCII art) of ``simcore/data/formations.toml``."""
    return shipped_maps(FORMATIONS_FILE)


def formation_cells(value):
    """The cells of a formation parameter: a shipped name or ASCII art."""
    if "#" in value or "." in value:
        return parse_formation(value)
    shipped = shipped_formations()
    if value not in shipped:
        raise ValueError(f"formation {value!r} is not shipped; allowed: {', '.join(shipped)} "
                         "or ASCII art of '#' and '.'")
    return parse_formation(shipped[value][1], value)


def _check_formation(value):
    if not isinstance(value, str):
        raise ValueError("not allowed; allowed: a formation name or ASCII art of '#' and '.'")
    formation_cells(value)
    return value if not ("#" in value or "." in value) else draw_formation(parse_formation(value))


def _check_fish_counts(value):
    if (not isinstance(value, list) or not 1 <= len(value) <= MAX_FISH
            or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in value)
            or not 1 <= sum(value) <= MAX_SET):
        raise ValueError(f"not allowed; allowed: a list of 1 to {MAX_FISH} card counts (index = fish), "
                         f"1 to {MAX_SET} cards in all")
    return list(value)


# --- parameters ---------------------------------------------------------------

GAME = GameType(
    name="zwai",
    long_name="Zwai (fish shoal and sharks)",
    rulebook="Zwai, Dirk Baumann (Piatnik, 2025)",
    player_counts=(2, 3, 4),
    policies=("random", "greedy", "mc", "ismcts"),
    margin="fish",
    rules_version=1,
    restricted_greedy=True,     # heuristics.greedy_among: the best placement of the allowed cards
    # the recommended search on fresh deals (docs/explanation/agents.md, "Recommended search")
    strength="0.978 [0.954, 0.994] against greedy (2 players, 200 deals x 2 seats, seed 9173)",
    cases=({"players": 3, "removed_cards": "discard"}, {"players": 4, "formation": "ring"}),
    maps=("formation",),
    # the tie rule and the removed cards are rulebook text ("In case of a tie, do not move the shark!", "Take the
    # removed cards ... back"): variants, not readings
    readings=(("round_starter", ("next", "rotate"),
               "\"the new round begins with whoever is next clockwise\": after the seat that placed the last card, "
               "or after the round's starter"),),
    summary="Place your fish into a shared shoal where the two sharks will not catch them; 3 rounds.",
    params=(
        Param("players", 2, "players, each with one colour set", choices=(2, 3, 4)),
        Param("first_seat", 0, "seat that begins round 1", 0, 3),
        Param("round_starter", "next", "who begins the next round: the seat after the one that placed the last "
              "card (next) or after the round's starter (rotate)", choices=("next", "rotate")),
        Param("max_turns", 1000, "a game still running after this many placements is a timeout", 1, 1_000_000),
        Param("rounds", 3, "rounds in a game (rulebook: 3)", 1, MAX_ROUNDS),
        Param("hand_size_2", 11, "hand size with 2 players (rulebook: 11)", 1, MAX_SET),
        Param("hand_size_3", 8, "hand size with 3 players (rulebook: 8)", 1, MAX_SET),
        Param("hand_size_4", 7, "hand size with 4 players (rulebook: 7)", 1, MAX_SET),
        Param("fish_counts", [3, 6, 6, 5, 3], "cards per colour showing 0, 1, 2, ... fish (decisions: 23 cards)",
              validator=_check_fish_counts,
              allowed_text=f"a list of 1 to {MAX_FISH} card counts, 1 to {MAX_SET} cards in all"),
        Param("formation", "square", "shoal shape: a shipped formation (`simcore formations`) or ASCII art (#/.)",
              validator=_check_formation,
              allowed_text="a shipped formation name or connected ASCII art of '#' and '.' within 8x8"),
        Param("shark_moves_on_tie", False, "a shark also moves to a row/column that ties its own (decisions: no)"),
        Param("removed_cards", "return", "cards the sharks remove: back under the owner's pile, or discarded",
              choices=("return", "discard")),
    ),
)

EXTRA_COLUMNS = (
    ("cards_{seat}", "int", "cards of seat i's colour in the scoring pile (the tie-break)"),
    ("removed_1", "int", "cards the sharks removed at the end of round 1"),
    ("removed_2", "int", "... round 2"),
    ("removed_3", "int", "... round 3"),
    ("removed_4", "int", "... round 4 (0 unless rounds >= 4)"),
    ("removed_5", "int", "... round 5 (0 unless rounds = 5)"),
    ("skips", "int", "turns skipped because the seat had no card"),
    ("n_rounds", "int", "rounds finished"),
)

P_PLAYERS, P_FIRST_SEAT, P_MAX_TURNS, P_ROUNDS = range(4)
P_HAND = 4                 # hand sizes for 2, 3, 4 players
P_SHARK_TIE = 7
P_DISCARD_REMOVED = 8
P_ROTATE_STARTER = 9       # round_starter = "rotate"
P_N_FISH = 10
P_FISH_COUNTS = 11         # MAX_FISH entries
P_N_CELLS = P_FISH_COUNTS + MAX_FISH
P_COVERS = P_N_CELLS + 1   # per grid cell: the mask of translations covering it, uint64 bits in int64
P_SPANS = P_COVERS + N_GRID   # per translation: the cells it covers, four 64-bit words laid out as S_FRONT
P_WORDS = P_SPANS + 64 * 4    # the frontier's 64-bit words any translation reaches: first, last + 1
N_PARAMS = P_WORDS + 2


def check(values):
    if values["first_seat"] >= values["players"]:
        raise ValueError(f"first_seat = {values['first_seat']} is not a seat; allowed: 0 to {values['players'] - 1}")


def translation_covers(cells):
    """Per grid cell, the mask of the translations that cover it: translation k lays formation cell k on the
    centre (the round's first card), so bit k is set on every cell of the formation so laid."""
    covers = np.zeros(N_GRID, np.uint64)
    for k, (kr, kc) in enumerate(cells):
        for r, c in cells:
            covers[(r - kr + CENTRE) * GRID + c - kc + CENTRE] |= np.uint64(1 << k)
    return covers.view(np.int64)


def translation_spans(cells):
    """Per translation (as in :func:`translation_covers`), the grid cells it covers, in the frontier's bit
    layout: bit ``r * 16 + c`` of four 64-bit words."""
    spans = np.zeros((64, 4), np.uint64)
    for k, (kr, kc) in enumerate(cells):
        for r, c in cells:
            b = (r - kr + CENTRE) * 16 + c - kc + CENTRE   # 16 bits per row
            spans[k, b >> 6] |= np.uint64(1 << (b & 63))
    return spans.view(np.int64).ravel()


def reached_words(spans):
    """The first and one past the last of the four frontier words any translation covers: the legal cells are
    read from those alone (two of the four for every formation at most 4 rows high)."""
    used = np.flatnonzero(spans.reshape(64, 4).any(axis=0))
    return used[0], used[-1] + 1


def params_array(values):
    p = np.zeros(N_PARAMS, np.int64)
    p[P_PLAYERS] = values["players"]
    p[P_FIRST_SEAT] = values["first_seat"]
    p[P_MAX_TURNS] = values["max_turns"]
    p[P_ROUNDS] = values["rounds"]
    p[P_HAND:P_HAND + 3] = values["hand_size_2"], values["hand_size_3"], values["hand_size_4"]
    p[P_SHARK_TIE] = values["shark_moves_on_tie"]
    p[P_DISCARD_REMOVED] = values["removed_cards"] == "discard"
    p[P_ROTATE_STARTER] = values["round_starter"] == "rotate"
    fish = values["fish_counts"]
    p[P_N_FISH] = len(fish)
    p[P_FISH_COUNTS:P_FISH_COUNTS + len(fish)] = fish
    cells = formation_cells(values["formation"])
    p[P_N_CELLS] = len(cells)
    p[P_COVERS:P_SPANS] = translation_covers(cells)
    spans = translation_spans(cells)
    p[P_SPANS:P_WORDS] = spans
    p[P_WORDS:] = reached_words(spans)
    return p


# --- state layout -------------------------------------------------------------

STATE_DTYPE = np.int16
FRONT_ROWS = GRID + 1            # the frontier's rows padded to 16: four rows make one 64-bit word
S_HAND = 0
S_HELD = S_HAND + MAX_SEATS * MAX_FISH
S_HELD_ALL = S_HELD + MAX_SEATS  # nobody holds a card when this is 0
S_PILE_N = S_HELD_ALL + 1
S_PILE = S_PILE_N + MAX_SEATS
S_GRID = S_PILE + MAX_SEATS * MAX_SET
S_ROW_FISH = S_GRID + N_GRID
S_COL_FISH = S_ROW_FISH + GRID
S_ROW_OWN = S_COL_FISH + GRID
S_COL_OWN = S_ROW_OWN + MAX_SEATS * GRID
S_OWN_FISH = S_COL_OWN + MAX_SEATS * GRID
S_FRONT = S_OWN_FISH + MAX_SEATS
S_FEAS = S_FRONT + FRONT_ROWS
S_REACH = S_FEAS + 4             # the cells a feasible translation covers, laid out as S_FRONT
S_OCC = S_REACH + FRONT_ROWS      # the cells of the shoal, laid out as S_FRONT
S_SHOAL = S_OCC + FRONT_ROWS
S_PLACED = S_SHOAL + MAX_CELLS   # cards in the shoal
S_SHARK_ROW = S_PLACED + 1
S_SHARK_COL = S_SHARK_ROW + 1
S_SEAT = S_SHARK_COL + 1         # seat to move
S_TURN = S_SEAT + 1              # placements in the game
S_ROUND_STARTER = S_TURN + 1
S_LAST_PLACER = S_ROUND_STARTER + 1
S_N_ROUNDS = S_LAST_PLACER + 1   # rounds finished
S_SKIPS = S_N_ROUNDS + 1
S_SCORE = S_SKIPS + 1
S_CARDS = S_SCORE + MAX_SEATS
S_REMOVED = S_CARDS + MAX_SEATS
S_PHASE = S_REMOVED + MAX_ROUNDS  # the pending decision: CARD or CELL
S_PENDING = S_PHASE + 1          # the card (fish value) chosen, during CELL
S_OVER = S_PENDING + 1           # the last round has ended
S_SEGMENTS = S_OVER + 1          # [MAX_SEATS x MAX_ROUNDS] cards put under each pile at each round end
STATE_SIZE = S_SEGMENTS + MAX_SEATS * MAX_ROUNDS


class View(StateView):
    """Named views into one flat state array."""

    offsets = scalar_offsets(globals())

    def __init__(self, state):
        super().__init__(state)
        self.hands = state[S_HAND:S_HELD].reshape(MAX_SEATS, MAX_FISH)
        self.pile_sizes = state[S_PILE_N:S_PILE]
        self.grid = state[S_GRID:S_ROW_FISH].reshape(GRID, GRID)
        self.row_fish = state[S_ROW_FISH:S_COL_FISH]
        self.col_fish = state[S_COL_FISH:S_ROW_OWN]
        self.score = state[S_SCORE:S_CARDS]
        self.cards = state[S_CARDS:S_REMOVED]
        self.removed = state[S_REMOVED:S_PHASE]
        self.segments = state[S_SEGMENTS:STATE_SIZE].reshape(MAX_SEATS, MAX_ROUNDS)

    def pile(self, seat):
        start = S_PILE + seat * MAX_SET
        return self.state[start:start + self.state[S_PILE_N + seat]]

    def shoal(self):
        """{(row, col): (owner, fish)} of the cards in the shoal."""
        return {(r, c): divmod(int(v) - 1, 16) for (r, c), v in np.ndenumerate(self.grid) if v}


def new_state():
    return np.zeros(STATE_SIZE, STATE_DTYPE)


# --- cards --------------------------------------------------------------------


@kernel
def hand_size(params):
    return params[P_HAND + params[P_PLAYERS] - 2]


@kernel
def next_seat(params, seat):
    return seat + 1 if seat + 1 < params[P_PLAYERS] else 0   # a compare: a modulo would divide on every move


@kernel
def to_hand(state, seat, fish, k):
    """``k`` cards showing ``fish`` into the seat's hand (k < 0: out of it), with the hand counts."""
    state[S_HAND + seat * MAX_FISH + fish] += k
    state[S_HELD + seat] += k
    state[S_HELD_ALL] += k


@kernel
def empty_hand(state, seat):
    state[S_HAND + seat * MAX_FISH:S_HAND + (seat + 1) * MAX_FISH] = 0
    state[S_HELD_ALL] -= state[S_HELD + seat]
    state[S_HELD + seat] = 0


@kernel
def draw(state, seat, k):
    """Draw ``k`` cards from the top of the seat's own pile (fewer if it runs out)."""
    base = S_PILE + seat * MAX_SET
    left = state[S_PILE_N + seat]
    k = min(k, left)
    for i in range(left - k, left):   # the hand's counts and sizes kept in step once, not card by card
        state[S_HAND + seat * MAX_FISH + state[base + i]] += 1
    state[S_PILE_N + seat] = left - k
    state[S_HELD + seat] += k
    state[S_HELD_ALL] += k


@kernel(inline="always")
def list_hand(state, seat, out, start):
    """Write the seat's hand, sorted, to ``out[start:]``; return where it ends."""
    n = start
    for fish in range(MAX_FISH):
        for _ in range(state[S_HAND + seat * MAX_FISH + fish]):
            out[n] = fish
            n += 1
    return n


@kernel
def hand_under_pile(state, seat, streams):
    """Shuffle the seat's hand (with the cards it got back) and put it under its pile."""
    base = S_PILE + seat * MAX_SET
    old = state[S_PILE_N + seat]
    n = state[S_HELD + seat]
    for i in range(old - 1, -1, -1):   # make room at the bottom
        state[base + n + i] = state[base + i]
    list_hand(state, seat, state, base)
    empty_hand(state, seat)
    rng.shuffle(streams, rng.DECK, state[base:base + n], n)
    state[S_PILE_N + seat] = old + n
    state[S_SEGMENTS + seat * MAX_ROUNDS + state[S_N_ROUNDS] - 1] = n   # resample keeps what went where


# --- 64-bit masks in the 16-bit state -------------------------------------------


@kernel
def bits64(state, at):
    """The four 16-bit words from ``at`` as one 64-bit mask, the first word lowest."""
    return ((state[at] & 0xFFFF) | (state[at + 1] & 0xFFFF) << 16 | (state[at + 2] & 0xFFFF) << 32
            | (state[at + 3] & 0xFFFF) << 48)


@kernel
def set_bits64(state, at, mask):
    """Store a 64-bit mask as four 16-bit words from ``at``, the lowest first."""
    for k in range(4):
        state[at + k] = (mask >> (16 * k)) & 0xFFFF   # stored bit for bit: 0xFFFF reads back as -1


# --- setup --------------------------------------------------------------------


@kernel
def clear_shoal(state):
    for k in range(state[S_PLACED]):
        state[S_GRID + state[S_SHOAL + k]] = 0
    state[S_ROW_FISH:S_SHOAL] = 0
    state[S_FRONT + CENTRE] = 1 << CENTRE   # the first card goes on the centre: the table is unbounded
    set_bits64(state, S_FEAS, -1)   # every translation: bit k = formation cell k on the centre
    state[S_REACH + CENTRE] = 1 << CENTRE   # every translation covers the centre
    state[S_PLACED] = 0
    state[S_SHARK_ROW] = -1
    state[S_SHARK_COL] = -1


@kernel
def setup(state, params, streams):
    """Every seat shuffles its colour set into a pile and draws a hand (rulebook: Setup)."""
    state[:] = 0
    players = params[P_PLAYERS]
    for seat in range(players):
        base = S_PILE + seat * MAX_SET
        n = 0
        for v in range(params[P_N_FISH]):
            for _ in range(params[P_FISH_COUNTS + v]):
                state[base + n] = v
                n += 1
        rng.shuffle(streams, rng.DECK, state[base:base + n], n)
        state[S_PILE_N + seat] = n
    for seat in range(players):
        draw(state, seat, hand_size(params))
    clear_shoal(state)
    state[S_SEAT] = params[P_FIRST_SEAT]
    state[S_ROUND_STARTER] = params[P_FIRST_SEAT]
    state[S_LAST_PLACER] = -1


# --- legal cells ----------------------------------------------------------------

@kernel(inline="always")
def legal_cells(state, params, cells, code=0):
    """Fill ``cells`` (room for N_GRID) with the legal cells as ``code + r * GRID + c``, row-major; return how
    many (``code``: MAX_FISH for the decision interface's cell actions).

    Rulebook: 'Every further card must always be placed horizontally or vertically against cards already laid
    out.' Decisions: the placed cells must fit inside the formation. So: the frontier cells that some feasible
    translation covers (S_REACH). Before the round's first card both are the centre alone. Both are read four
    rows (one 64-bit word) at a time, bits in row-major order.
    """
    n = 0
    for word in range(params[P_WORDS], params[P_WORDS + 1]):
        bits = legal_word(state, word)
        while bits != 0:
            cells[n] = code + bit_cell(64 * word + lowest_bit(bits))
            bits &= bits - 1
            n += 1
    return n


@kernel(inline="always")
def legal_word(state, word):
    """The legal cells of rows ``4 * word`` to ``4 * word + 3`` as one 64-bit mask: frontier AND reach."""
    return bits64(state, S_FRONT + 4 * word) & bits64(state, S_REACH + 4 * word)


@kernel(inline="always")
def bit_cell(b):
    """The grid cell of bit ``b`` of the frontier's layout (16 bits a row)."""
    return (b >> 4) * GRID + (b & 15)


@kernel(inline="always")
def random_cell(state, params, streams, seat):
    """The legal cell a uniform draw over :func:`legal_cells` picks, from the same number, without listing
    them: the k-th set bit of frontier AND reach. Each word is read once (at most four, kept in registers)."""
    lo = params[P_WORDS]
    hi = params[P_WORDS + 1]
    w0 = legal_word(state, lo)
    w1 = legal_word(state, lo + 1) if lo + 1 < hi else 0
    w2 = legal_word(state, lo + 2) if lo + 2 < hi else 0
    w3 = legal_word(state, lo + 3) if lo + 3 < hi else 0
    n0 = popcount(w0)
    n1 = popcount(w1)
    n2 = popcount(w2)
    k = rng.randint(streams, rng.POLICY + seat, n0 + n1 + n2 + popcount(w3))
    word = lo
    bits = w0
    if k >= n0:
        k -= n0
        word, bits = lo + 1, w1
        if k >= n1:
            k -= n1
            word, bits = lo + 2, w2
            if k >= n2:
                k -= n2
                word, bits = lo + 3, w3
    return bit_cell(64 * word + kth_bit(bits, k))


@kernel
def narrow(state, params, cell):
    """Keep the translations that cover ``cell``; when that drops some, the cells they alone covered leave
    S_REACH (the union of what the rest cover)."""
    feas = bits64(state, S_FEAS)
    kept = feas & params[P_COVERS + cell]
    if kept == feas:
        return
    set_bits64(state, S_FEAS, kept)
    reach0 = reach1 = reach2 = reach3 = 0
    while kept != 0:
        at = P_SPANS + 4 * lowest_bit(kept)
        kept &= kept - 1
        reach0 |= params[at]
        reach1 |= params[at + 1]
        reach2 |= params[at + 2]
        reach3 |= params[at + 3]
    set_bits64(state, S_REACH, reach0)
    set_bits64(state, S_REACH + 4, reach1)
    set_bits64(state, S_REACH + 8, reach2)
    set_bits64(state, S_REACH + 12, reach3)


# --- step ---------------------------------------------------------------------


@kernel(inline="always")
def shark_moves(moves_on_tie, new_total, marked_total):
    """RB: 'A shark changes its position only if the number of fish in a row or column is at least 1 greater
    than in the row or column it currently marks. In case of a tie, do not move the shark!'"""
    return (new_total > marked_total) | (moves_on_tie & (new_total == marked_total))


@kernel(inline="always")
def shark_target(tie, marked, marked_total, line, line_total):
    """Where a shark marking ``marked`` (-1: nothing yet) stands once ``line`` holds ``line_total`` fish. Without
    a branch (``|``, not ``or``): the line just played is hard to predict (Zwai's own random game played 1.07x
    as many games a second so)."""
    moves = (marked < 0) | (line == marked) | shark_moves(tie, line_total, marked_total)
    return line if moves else marked


@kernel(inline="always")
def place(state, params, seat, fish, cell):
    """Put a card of ``seat`` showing ``fish`` (already taken from its hand) on ``cell``, then check the
    sharks. Decisions: the sharks first mark the row and the column of the first card (a shark marking
    nothing moves)."""
    r = cell // GRID
    c = cell - r * GRID
    tie = params[P_SHARK_TIE] == 1
    narrow(state, params, cell)
    row = state[S_SHARK_ROW]   # -1 before the first card: the shark moves whatever max(row, 0) reads
    col = state[S_SHARK_COL]
    state[S_SHARK_ROW] = shark_target(tie, row, state[S_ROW_FISH + max(row, 0)], r, state[S_ROW_FISH + r] + fish)
    state[S_SHARK_COL] = shark_target(tie, col, state[S_COL_FISH + max(col, 0)], c, state[S_COL_FISH + c] + fish)
    state[S_GRID + cell] = seat * 16 + fish + 1
    # the frontier loses the cell and gains its empty neighbours (column 15 and row 15 lie off the grid, where no
    # translation reaches: never legal)
    bit = 1 << c
    occupied = state[S_OCC + r] | bit
    state[S_OCC + r] = occupied
    state[S_FRONT + r] = (state[S_FRONT + r] | bit << 1 | bit >> 1) & ~occupied
    if r > 0:
        state[S_FRONT + r - 1] |= bit & ~state[S_OCC + r - 1]
    state[S_FRONT + r + 1] |= bit & ~state[S_OCC + r + 1]
    state[S_ROW_FISH + r] += fish
    state[S_COL_FISH + c] += fish
    state[S_ROW_OWN + seat * GRID + r] += fish
    state[S_COL_OWN + seat * GRID + c] += fish
    state[S_OWN_FISH + seat] += fish
    state[S_SHOAL + state[S_PLACED]] = cell
    state[S_PLACED] += 1


@kernel
def end_round(state, params, streams):
    """Sharks eat their row and column, the rest scores, hands go under the piles (rulebook: Round End).

    Returns True when that was the last round.
    """
    discard = params[P_DISCARD_REMOVED] == 1
    removed = 0
    for k in range(state[S_PLACED]):
        cell = state[S_SHOAL + k]
        v = state[S_GRID + cell] - 1
        owner = v >> 4
        fish = v & 15
        if cell // GRID == state[S_SHARK_ROW] or cell % GRID == state[S_SHARK_COL]:
            removed += 1
            if not discard:
                to_hand(state, owner, fish, 1)   # mixed with the hand below
        else:
            state[S_SCORE + owner] += fish
            state[S_CARDS + owner] += 1
    state[S_REMOVED + state[S_N_ROUNDS]] = removed
    state[S_N_ROUNDS] += 1
    placed = state[S_PLACED]
    clear_shoal(state)
    if state[S_N_ROUNDS] >= params[P_ROUNDS]:
        return True
    for seat in range(params[P_PLAYERS]):
        hand_under_pile(state, seat, streams)
    for seat in range(params[P_PLAYERS]):
        draw(state, seat, hand_size(params))
    # RB: 'The new round begins with whoever is next clockwise.' Next after the last card's placer (a round
    # without a card keeps its starter), or with round_starter = "rotate" after the last round's starter.
    if params[P_ROTATE_STARTER] == 1:
        state[S_ROUND_STARTER] = next_seat(params, state[S_ROUND_STARTER])
    elif placed > 0:
        state[S_ROUND_STARTER] = next_seat(params, state[S_LAST_PLACER])
    state[S_SEAT] = state[S_ROUND_STARTER]
    return False


# --- the decision interface -------------------------------------------------------

CARD, CELL = 0, 1                # the decisions of a move
MAX_ACTIONS = max(MAX_SET, N_GRID)
N_ACTION_CODES = MAX_FISH + N_GRID   # every action code is below this (OpenSpiel's num_distinct_actions)


@kernel
def current_player(state, params):
    # Every read comes before the branch: numba then drops the reference counting of both arrays.
    over = state[S_OVER] == 1 or state[S_TURN] >= params[P_MAX_TURNS]
    seat = state[S_SEAT]
    return -1 if over else seat


@kernel(inline="always")
def legal_actions(state, params, out):
    """The cards in hand, once per copy (a uniform draw is a uniform card), or the legal cells, row-major."""
    if state[S_PHASE] == CARD:
        return list_hand(state, state[S_SEAT], out, 0)
    return legal_cells(state, params, out, MAX_FISH)


@kernel(inline="always")
def random_action(state, params, seat, streams, actions):
    """The random policy as the agents draw it from ``legal_actions`` (the same number from the same stream
    picks the same action), without listing the hand: the k-th card of the sorted hand."""
    if state[S_PHASE] == CELL:
        return MAX_FISH + random_cell(state, params, streams, seat)
    k = rng.randint(streams, rng.POLICY + seat, state[S_HELD + seat])
    at = S_HAND + seat * MAX_FISH
    while k >= state[at]:
        k -= state[at]
        at += 1
    return at - (S_HAND + seat * MAX_FISH)


@kernel(inline="always")
def put_card(state, params, seat, action):
    """The cell decision's placement, up to (not including) a round end."""
    place(state, params, seat, state[S_PENDING], action - MAX_FISH)
    state[S_PHASE] = CARD
    state[S_TURN] += 1
    state[S_LAST_PLACER] = seat
    state[S_SEAT] = next_seat(params, seat)


@kernel(inline="always")
def apply_action(state, params, action, streams):
    """The card leaves the hand at once (it is shown as it is laid); the cell completes the placement."""
    seat = state[S_SEAT]
    if state[S_PHASE] == CARD:
        to_hand(state, seat, action, -1)
        state[S_PENDING] = action
        state[S_PHASE] = CELL
        return
    put_card(state, params, seat, action)
    if state[S_PLACED] == params[P_N_CELLS] and end_round(state, params, streams):
        state[S_OVER] = 1
    if state[S_HELD + state[S_SEAT]] == 0:   # else advance would find the seat to move at once
        advance(state, params, streams)


@kernel
def advance(state, params, streams):
    """Run the rules up to the next decision: round ends when nobody has a card, skips of empty hands."""
    while state[S_OVER] == 0 and state[S_TURN] < params[P_MAX_TURNS]:
        if state[S_HELD_ALL] == 0:
            if end_round(state, params, streams):
                state[S_OVER] = 1
        elif state[S_HELD + state[S_SEAT]] == 0:
            state[S_SKIPS] += 1
            state[S_SEAT] = next_seat(params, state[S_SEAT])
        else:
            return


@kernel
def begin(state, params, streams):
    setup(state, params, streams)
    advance(state, params, streams)


@kernel
def winners(state, params):
    """Most own fish, then most own cards; every seat tied for both shares (rulebook: End of the Game).
    Returns (best fish, best cards, how many seats share the win)."""
    best_fish = -1
    best_cards = -1
    for seat in range(params[P_PLAYERS]):
        fish = state[S_SCORE + seat]
        cards = state[S_CARDS + seat]
        if fish > best_fish or (fish == best_fish and cards > best_cards):
            best_fish = fish
            best_cards = cards
    tied = 0
    for seat in range(params[P_PLAYERS]):
        tied += state[S_SCORE + seat] == best_fish and state[S_CARDS + seat] == best_cards
    return best_fish, best_cards, tied


@kernel
def returns(state, params, out):
    """1 for a win, 1/k for a k-way shared win, 0 for a loss or a game that timed out."""
    best_fish, best_cards, tied = winners(state, params)
    for seat in range(params[P_PLAYERS]):
        won = state[S_OVER] == 1 and state[S_SCORE + seat] == best_fish and state[S_CARDS + seat] == best_cards
        out[seat] = 1.0 / tied if won else 0.0


@kernel
def shuffle_pile_segments(state, seat, streams):
    """Shuffle each part of the seat's own pile within itself: the seat knows which cards it put under the
    pile at each round end (and so what is left of its first pile), not their order."""
    base = S_PILE + seat * MAX_SET
    left = state[S_PILE_N + seat]
    lo = 0
    for k in range(state[S_N_ROUNDS] - 1, -1, -1):   # the newest part lies at the bottom
        hi = min(lo + state[S_SEGMENTS + seat * MAX_ROUNDS + k], left)
        rng.shuffle(streams, rng.DECK, state[base + lo:base + hi], hi - lo)
        lo = hi
    rng.shuffle(streams, rng.DECK, state[base + lo:base + left], left - lo)


@kernel
def redeal_hidden(state, seat, streams):
    """Shuffle an opponent's hand and pile together and deal the hand back (same size): the watcher knows how
    many cards it holds and which of its colour are unseen, not where they are."""
    base = S_PILE + seat * MAX_SET
    held = state[S_HELD + seat]
    n = list_hand(state, seat, state, base + state[S_PILE_N + seat]) - base   # the pile, then the hand
    empty_hand(state, seat)
    rng.shuffle(streams, rng.DECK, state[base:base + n], n)
    for i in range(n - held, n):
        to_hand(state, seat, state[base + i], 1)
    state[S_PILE_N + seat] = n - held


@kernel
def resample(state, params, seat, streams):
    """Redraw what ``seat`` cannot see: the order of its own pile's parts, the other seats' hands and piles."""
    for other in range(params[P_PLAYERS]):
        if other == seat:
            shuffle_pile_segments(state, seat, streams)
        else:
            redeal_hidden(state, other, streams)


# --- a whole game -------------------------------------------------------------


@kernel
def write_row(state, params, row):
    """Winners: most own fish, then most own cards, then a shared win (rulebook: End of the Game)."""
    over = state[S_OVER] == 1
    row[O_FIRST_SEAT] = params[P_FIRST_SEAT]
    row[O_N_TURNS] = state[S_TURN]
    row[O_TIMEOUT] = not over
    best_fish, best_cards, _ = winners(state, params)
    for seat in range(params[P_PLAYERS]):
        row[O_WIN + seat] = over and state[S_SCORE + seat] == best_fish and state[S_CARDS + seat] == best_cards
        row[O_SCORE + seat] = state[S_SCORE + seat]
        row[O_EXTRA + seat] = state[S_CARDS + seat]
    x = O_EXTRA + MAX_SEATS
    for k in range(MAX_ROUNDS):
        row[x + k] = state[S_REMOVED + k]
    row[x + MAX_ROUNDS] = state[S_SKIPS]
    row[x + MAX_ROUNDS + 1] = state[S_N_ROUNDS]



# --- the trace (run --trace) ----------------------------------------------------------

TRACE_STANDING = "fish banked: own fish in the scoring pile"
TRACE_STEP = "round"
MAX_TRACE_STEPS = MAX_ROUNDS + 1     # every round, and the end of a game stopped by max_turns
ACTION_KINDS = tuple((f"fish_{v}", f"a {v}-fish card") for v in range(MAX_FISH))
END_CONDITIONS = (("rounds", "every round was played (rulebook: End of the Game)"),)


@kernel
def standing(state, params, out):
    for seat in range(params[P_PLAYERS]):
        out[seat] = state[S_SCORE + seat]


@kernel
def trace_step(state, params):
    return state[S_N_ROUNDS]


@kernel
def action_kind(state, params, action):
    """The card decision's fish value; a cell decision completes the card already counted."""
    return action if state[S_PHASE] == CARD else -1


@kernel
def end_condition(state, params):
    return 0
