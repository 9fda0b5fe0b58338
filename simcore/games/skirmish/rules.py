"""The garden-gnome skirmish on a grid yard: 2 players, three scenarios.

The rules as simulated, step by step and with the order of random draws, and
the decisions that turn the rulebook's physical game into a grid model are in
``docs/skirmish.md``. One cell is one pace.

The default yard (player 0's edge on top, player 1's at the bottom)::

    0 0 0 0 0      <- player 0's gnomes start on its edge row
    ........=........WW....       . grass 3   = path 4   * rough 2
    ...***..=.......WWWW...       ~ shallow water 2   W deep water (drowns)
    ........=........~~....
    1 1 1 1 1      <- player 1's gnomes

A game is a sequence of decisions (docs/skirmish.md, "Decisions, information and resampling"): ``begin``,
then ``current_player`` / ``legal_actions`` / ``apply_action`` until ``current_player`` is -1. A turn's
decisions are the throw's target, then each gnome's move in gnome order; the rules between them (the hit, the
returns, drowning, the melee, the win checks) run inside ``apply_action``. Both sides see the whole yard, so
``resample`` has nothing to redraw.

The state of one game is one flat ``int32`` array (``STATE_DTYPE``) of 1,286 words, 5,144 bytes: small, since a
search copies it for every rollout. The bound of each field::

    S_POS      [2 x MAX_GNOMES]   cell of each gnome (below 32 x 32 = 1,024), -1 when out of action
    S_BACK_NOW [2 x MAX_GNOMES]   came back this turn (may not move)
    S_FLAG     [2 x MAX_GNOMES]   flag carried (0 or 1), -1 for none
    S_FLAG_AT  [2]                cell of a dropped flag, -1 while carried
    S_OCC      [MAX_CELLS]        0 empty, else player * MAX_GNOMES + gnome + 1 (at most 32)
    S_LOST     [2 x 4 x 3]        gnomes taken out per player, type and cause: below 12 x 50,001 (see below)
    S_THROWS, S_HITS [2]          at most one a turn of the player: 50,000 (max_turns is at most 100,000)
    S_WIZARD_OUT [2] (0 or 1), S_TURN (at most max_turns), S_FIRST, S_WINNER
    S_PHASE, S_GNOME, S_TARGETS   the pending decision: a throw (at one of the targets, a bit mask) or a move
                                  of gnome S_GNOME; the mask has a bit per enemy gnome, below 2**MAX_GNOMES
    S_SCRATCH                     the melee's working space (no game information): fight numbers (-1 or
                                  below 32), gnome slots (below 32) and cards (1 to 4)

A gnome taken out comes back only at its owner's movement, so between two of its owner's movements it is taken
out at most once: 12 foot gnomes (the largest army) are taken out fewer than 12 x 50,001 times. That passes
int16, and so do S_TURN, S_THROWS and S_HITS. Kept in two 16-bit words each, they would make a state of 2,630
bytes, but random play ran 4% slower than on int64, int32 2-3% (measured on one thread).
"""

import math

import numpy as np

from simcore.engine import O_FIRST_SEAT, O_N_TURNS, O_TIMEOUT, O_WIN, extra_offset, rng, score_offset
from simcore.engine.jit import kernel
from simcore.games import DATA, GameType, Param, StateView, scalar_offsets, shipped_maps

MAX_SEATS = 2
MAX_DIM = 32
MAX_CELLS = MAX_DIM * MAX_DIM
MAX_GNOMES = 16
MAX_MOVE = 6                         # path 4 + fast cavalry 2
O_SCORE = score_offset(MAX_SEATS)
O_EXTRA = extra_offset(MAX_SEATS)

FOOT, FAST, HEAVY, RANGED = range(4)
TYPES = ("foot", "fast", "heavy", "ranged")
MELEE, THROWN, DROWNED = range(3)
CAUSES = ("melee", "ranged", "drowned")

TERRAIN = "=.*~W"                    # path, grass, rough, shallow water, deep water
PACES = np.array([4, 3, 2, 2, 2], np.int64)
PACES.setflags(write=False)
DEEP = 4

EUCLID, CHEBYSHEV = range(2)
METRICS = ("euclid", "chebyshev")
MIN_ARMY = 5                         # rulebook: '5 or more gnomes per player'

LAST_MAN_STANDING, WIZARD_WAR, CAPTURE_THE_FLAG = range(3)
SCENARIOS = ("last_man_standing", "wizard_war", "capture_the_flag")
NO_WINNER, DRAW = -1, 2

YARDS_FILE = DATA / "yards.toml"

# --- yards ----------------------------------------------------------------------


def parse_yard(text, name="custom"):
    """ASCII art -> rows of terrain codes; ValueError naming the yard when it is not a proper map."""
    rows = [line.strip() for line in text.strip().splitlines() if line.strip()]
    bad = sorted({ch for line in rows for ch in line} - set(TERRAIN))
    if bad:
        raise ValueError(f"yard {name!r} has {''.join(bad)!r}; allowed: {' '.join(TERRAIN)} "
                         "(path, grass, rough, shallow water, deep water)")
    if not rows or len({len(line) for line in rows}) != 1:
        raise ValueError(f"yard {name!r} has rows of different lengths; allowed: a rectangle")
    height, width = len(rows), len(rows[0])
    if not (4 <= height <= MAX_DIM and 4 <= width <= MAX_DIM):
        raise ValueError(f"yard {name!r} is {width}x{height}; allowed: 4x4 to {MAX_DIM}x{MAX_DIM}")
    return [[TERRAIN.index(ch) for ch in line] for line in rows]


def shipped_yards():
    """name -> (description, ASCII art) of ``simcore/data/yards.toml``."""
    return shipped_maps(YARDS_FILE)


def yard_art(value):
    """The ASCII art of a yard parameter: a shipped name or art (art has more than one line)."""
    if "\n" in value.strip():
        return value
    shipped = shipped_yards()
    if value not in shipped:
        raise ValueError(f"yard {value!r} is not shipped; allowed: {', '.join(shipped)} or ASCII art of "
                         f"the terrain letters {' '.join(TERRAIN)}")
    return shipped[value][1]


def start_columns(width, gnomes):
    """Gnome k of either player starts in column c0 + k of its edge row, a centred block."""
    c0 = (width - gnomes) // 2
    return [c0 + k for k in range(gnomes)]


def _check_yard(value):
    if not isinstance(value, str):
        raise ValueError("not allowed; allowed: a yard name or ASCII art of the terrain letters = . * ~ W")
    art = yard_art(value)
    parse_yard(art, value if art is not value else "custom")
    if art is not value:
        return value
    return "\n".join(line.strip() for line in value.strip().splitlines() if line.strip())


def army_types(values):
    return [FOOT] * values["army.foot"] + [FAST] * values["army.fast"] + [HEAVY] * values["army.heavy"] + \
        [RANGED] * values["army.ranged"]


GAME = GameType(
    name="skirmish",
    long_name="Garden-gnome skirmish (on a grid yard)",
    rulebook="an untitled free rulebook (no author or publisher given, nothing else published)",
    player_counts=(2,),
    policies=("random", "greedy", "mc", "ismcts"),
    margin="gnomes",
    rules_version=1,
    restricted_greedy=True,     # heuristics.greedy_among: the best allowed destination
    # the recommended search on fresh deals (docs/explanation/agents.md, "Recommended search")
    strength="against greedy: last man standing 0.725 [0.658, 0.787], wizard war 0.915 [0.865, 0.955] (split by "
             "seat: 0.960 as seat 0, 0.870 as seat 1) (100 deals x 2 seats, seed 9174), capture the flag 0.808 "
             "[0.765, 0.847] (200 deals x 2 seats, seed 9175)",
    # cutoff 48 (was 12): capture the flag's ladder climbs to 512 with it, to 128 without (docs/how-to/skill.md)
    search=(("rollout", "greedy"), ("cutoff", 48), ("widen", 0.25)), # docs/explanation/agents.md
    cases=({"scenario": "capture_the_flag"}, {"scenario": "wizard_war"}),
    hidden_information=False,   # both players see the whole yard; the dice are drawn as they fall
    maps=("yard",),
    # the rulebook is written for a real garden: on a grid, these of its words read two ways (the throw's hit
    # chance and range are data it lacks, not readings: sweep them)
    readings=(("move_metric", ("euclid", "chebyshev"),
               "moves are paced off in a garden: on a grid, a diagonal step is 1.4 paces or 1"),
              ("line_of_sight", (True, False),
               "a hit counts \"without the ball bouncing off of something else first\": whether a gnome on the "
               "line blocks the throw"),
              ("ace_high", (False, True), "the melee deck keeps A to 4 of each suit: whether the ace is 1 or 5")),
    summary="Two gnome armies fight on a yard: last man standing, wizard war or capture the flag.",
    params=(
        Param("players", 2, "players (rulebook: 2)", choices=(2,)),
        Param("scenario", "last_man_standing", "scenario (rulebook)", choices=SCENARIOS),
        Param("max_turns", 500, "a game still running after this many turns is a timeout", 1, 100_000),
        Param("yard", "default", "the yard: a shipped yard (`simcore yards`) or ASCII art, 1 cell = 1 pace",
              validator=_check_yard, allowed_text=f"a rectangle of = . * ~ W, 4x4 to {MAX_DIM}x{MAX_DIM}"),
        Param("army.foot", 2, "foot gnomes per player (decisions: Armies)", 0, 12),
        Param("army.fast", 1, "fast cavalry (rulebook: at most 1)", 0, 1),
        Param("army.heavy", 1, "heavy cavalry (rulebook: at most 1)", 0, 1),
        Param("army.ranged", 1, "ranged gnomes, the wizard of wizard_war (rulebook: at most 1)", 0, 1),
        Param("max_range", 10, "paces a ranged gnome can throw (decisions)", 1, 64),
        Param("hit_p0", 0.9, "hit probability at distance 0 (decisions)"),
        Param("hit_scale", 6.0, "paces over which the hit probability falls by 1/e (decisions)"),
        Param("ace_high", False, "the ace counts 5 in melee instead of 1 (decisions)"),
        Param("line_of_sight", True, "a throw needs no other gnome on the line to its target (decisions)"),
        Param("move_metric", "euclid", "move distance: straight line (euclid) or a diagonal step counts 1 "
              "(chebyshev) (decisions)", choices=METRICS),
    ),
)

EXTRA_COLUMNS = (
    ("draw", "bool", "the game ended with no winner (both sides out at once)"),
    ("wizard_out_{seat}", "bool", "wizard_war: seat i's wizard is out of action at the end"),
    ("flags_{seat}", "int", "capture_the_flag: flags carried by seat i's gnomes at the end"),
    *((f"lost_{t}_{{seat}}", "int", f"times a {t} gnome of seat i was taken out") for t in TYPES),
    *((f"out_by_{c}_{{seat}}", "int", f"gnomes of seat i taken out by {c}") for c in CAUSES),
    ("throws_{seat}", "int", "ranged throws of seat i"),
    ("hits_{seat}", "int", "ranged hits of seat i"),
)

P_WIDTH, P_HEIGHT, P_SCENARIO, P_MAX_TURNS, P_MAX_RANGE, P_ACE_HIGH, P_GNOMES = range(7)
P_HIT_P0, P_HIT_SCALE = 7, 8          # float64 bit patterns (read through params.view(np.float64))
P_LINE_OF_SIGHT, P_MOVE_METRIC = 9, 10
P_TYPES = 11                          # MAX_GNOMES gnome types of each player's army
P_YARD = P_TYPES + MAX_GNOMES          # MAX_CELLS terrain codes, row-major
SPAN = 2 * MAX_MOVE + 1
MOVES_STRIDE = 1 + SPAN * SPAN
P_MOVES = P_YARD + MAX_CELLS           # per (fast?, cell): how many cells the terrain lets it reach, then them
P_ROW = P_MOVES + 2 * MAX_CELLS * MOVES_STRIDE   # per cell index: its row, then (P_COL) its column, so that
P_COL = P_ROW + MAX_CELLS                        # the geometry of every turn needs no division by the width
N_PARAMS = P_COL + MAX_CELLS

# The pending decision (S_PHASE) and the action codes, distinct between the two decisions (docs/skirmish.md,
# "Decisions, information and resampling"). A move's code is its destination cell: the reachable cells are
# the action list as they are.
PH_THROW, PH_MOVE = 0, 1
A_STAY = MAX_CELLS                   # the gnome to move stays where it is
A_THROW = A_STAY + 1                 # + enemy gnome number: the throw's target
MAX_ACTIONS = SPAN * SPAN            # a move: stay or one of the at most SPAN² - 1 cells around (a throw: fewer)
N_ACTION_CODES = A_THROW + MAX_GNOMES   # every action code is below this
GROUP = 4 * MAX_GNOMES               # greedy's cells of a group (goals, foes, friends): rows, then columns



def check(values):
    for name in ("hit_p0", "hit_scale"):
        v = values[name]
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ValueError(f"parameter {name} = {v!r} is not allowed; allowed: a number")
    if not 0 <= values["hit_p0"] <= 1:
        raise ValueError(f"parameter hit_p0 = {values['hit_p0']} is not allowed; allowed: 0 to 1")
    if not values["hit_scale"] > 0:
        raise ValueError(f"parameter hit_scale = {values['hit_scale']} is not allowed; allowed: above 0")
    yard = parse_yard(yard_art(values["yard"]))
    n = len(army_types(values))
    if n < MIN_ARMY:
        army = ", ".join(f"{values['army.' + t]} {t}" for t in TYPES)
        raise ValueError(f"the army ({army}) has {n} gnomes per player; allowed: at least {MIN_ARMY} "
                         "(rulebook: '5 or more gnomes per player')")
    if values["scenario"] == "wizard_war" and values["army.ranged"] != 1:
        raise ValueError("wizard_war needs a wizard: army.ranged = 1")
    width = len(yard[0])
    if n > width:
        raise ValueError(f"the yard is {width} wide, the army of {n} gnomes does not fit on an edge row; "
                         f"allowed: a yard at least {n} wide")
    for row in (0, len(yard) - 1):
        for c in start_columns(width, n):
            if yard[row][c] == DEEP:
                raise ValueError(f"the yard has deep water at start cell (row {row}, column {c}); allowed: "
                                 "no deep water where gnomes start")


def params_array(values):
    yard = parse_yard(yard_art(values["yard"]))
    types = army_types(values)
    p = np.zeros(N_PARAMS, np.int64)
    p[P_WIDTH] = len(yard[0])
    p[P_HEIGHT] = len(yard)
    p[P_SCENARIO] = SCENARIOS.index(values["scenario"])
    p[P_MAX_TURNS] = values["max_turns"]
    p[P_MAX_RANGE] = values["max_range"]
    p[P_ACE_HIGH] = values["ace_high"]
    p[P_GNOMES] = len(types)
    p[P_LINE_OF_SIGHT] = values["line_of_sight"]
    p[P_MOVE_METRIC] = METRICS.index(values["move_metric"])
    floats = p.view(np.float64)
    floats[P_HIT_P0] = float(values["hit_p0"])
    floats[P_HIT_SCALE] = float(values["hit_scale"])
    p[P_TYPES:P_TYPES + len(types)] = types
    for r, row in enumerate(yard):
        for c, code in enumerate(row):
            p[P_YARD + r * len(row) + c] = code
    p[P_ROW:P_ROW + MAX_CELLS], p[P_COL:P_COL + MAX_CELLS] = np.divmod(np.arange(MAX_CELLS), len(yard[0]))
    fill_move_tables(p)
    return p


# --- state layout -------------------------------------------------------------

STATE_DTYPE = np.int32
S_POS = 0
S_BACK_NOW = S_POS + 2 * MAX_GNOMES
S_FLAG = S_BACK_NOW + 2 * MAX_GNOMES
S_FLAG_AT = S_FLAG + 2 * MAX_GNOMES
S_OCC = S_FLAG_AT + 2
S_LOST = S_OCC + MAX_CELLS           # player * 12 + type * 3 + cause
S_THROWS = S_LOST + 2 * 4 * 3
S_HITS = S_THROWS + 2
S_WIZARD_OUT = S_HITS + 2
S_TURN = S_WIZARD_OUT + 2
S_FIRST = S_TURN + 1
S_WINNER = S_FIRST + 1              # -1 none yet, 0 / 1, 2 draw
S_PHASE = S_WINNER + 1              # PH_* of the pending decision
S_GNOME = S_PHASE + 1               # PH_MOVE: the mover's gnome to move
S_TARGETS = S_GNOME + 1             # PH_THROW: bit j set, enemy gnome j is a target
S_SCRATCH = S_TARGETS + 1           # melee: fight per gnome slot, a stack, the order, a deck (4 x 2 x MAX_GNOMES)
STATE_SIZE = S_SCRATCH + 8 * MAX_GNOMES


class View(StateView):
    """Named views into one flat state array."""

    offsets = scalar_offsets(globals())

    def __init__(self, state):
        super().__init__(state)
        self.pos = state[S_POS:S_BACK_NOW].reshape(2, MAX_GNOMES)
        self.flag = state[S_FLAG:S_FLAG_AT].reshape(2, MAX_GNOMES)
        self.flag_at = state[S_FLAG_AT:S_OCC]
        self.occ = state[S_OCC:S_LOST]
        self.lost = state[S_LOST:S_THROWS].reshape(2, 4, 3)


def new_state():
    return np.zeros(STATE_SIZE, STATE_DTYPE)


# --- geometry -------------------------------------------------------------------


@kernel(inline="always")
def row_of(params, cell):
    return params[P_ROW + cell]


@kernel(inline="always")
def col_of(params, cell):
    return params[P_COL + cell]


@kernel
def cheb(params, a, b):
    return max(abs(row_of(params, a) - row_of(params, b)), abs(col_of(params, a) - col_of(params, b)))


@kernel
def squared_dist(params, a, b):
    """dr² + dc² between the centres of cells a and b: distances are compared squared, in exact integers."""
    dr = row_of(params, a) - row_of(params, b)
    dc = col_of(params, a) - col_of(params, b)
    return dr * dr + dc * dc


@kernel
def dist(params, a, b):
    """Straight-line distance in paces (for the hit probability)."""
    return math.sqrt(squared_dist(params, a, b))


@kernel
def line_step(r, c, err, dr, dc, sr, sc):
    """One step of the Bresenham line of docs/skirmish.md: the next cell (r, c) and error term."""
    e2 = 2 * err
    if e2 > -dr:
        err -= dr
        c += sc
    if e2 < dc:
        err += dc
        r += sr
    return r, c, err


@kernel
def line_pace(params, a, b):
    """Smallest pace number of the terrain on the Bresenham line a -> b (rulebook: 'use the lowest movement
    number for the different types of terrain')."""
    w = params[P_WIDTH]
    r0, c0, r1, c1 = a // w, a % w, b // w, b % w
    dr, dc = abs(r1 - r0), abs(c1 - c0)
    sr = 1 if r0 < r1 else -1
    sc = 1 if c0 < c1 else -1
    r, c, err = r0, c0, dc - dr
    pace = PACES[params[P_YARD + a]]
    while r != r1 or c != c1:
        r, c, err = line_step(r, c, err, dr, dc, sr, sc)
        pace = min(pace, PACES[params[P_YARD + r * w + c]])
    return pace


@kernel
def line_clear(state, params, a, b):
    """Line of sight: no gnome stands on a cell of the Bresenham line a -> b other than its two end cells
    (rulebook: a hit counts 'without the ball bouncing off of something else first')."""
    w = params[P_WIDTH]
    r0, c0, r1, c1 = row_of(params, a), col_of(params, a), row_of(params, b), col_of(params, b)
    dr, dc = abs(r1 - r0), abs(c1 - c0)
    sr = 1 if r0 < r1 else -1
    sc = 1 if c0 < c1 else -1
    r, c, err = line_step(r0, c0, dc - dr, dr, dc, sr, sc)
    while r != r1 or c != c1:
        if state[S_OCC + r * w + c] != 0:
            return False
        r, c, err = line_step(r, c, err, dr, dc, sr, sc)
    return True


@kernel
def within_allowance(params, dr, dc, allowance):
    """Is a move of dr rows and dc columns at most ``allowance`` paces long? euclid: the straight-line
    distance between the cell centres, as throws measure it (dr² + dc² <= allowance², exact); chebyshev: a
    diagonal step counts one pace."""
    if params[P_MOVE_METRIC] == EUCLID:
        return dr * dr + dc * dc <= allowance * allowance
    return max(abs(dr), abs(dc)) <= allowance


@kernel
def fill_move_tables(params):
    """For every cell, the cells a gnome there may move to if they are free (row-major), for ordinary gnomes
    and for fast cavalry: worked out once per yard, so that a move only checks which of them are free."""
    w, h = params[P_WIDTH], params[P_HEIGHT]
    for fast in range(2):
        for a in range(w * h):
            base = P_MOVES + (fast * MAX_CELLS + a) * MOVES_STRIDE
            ar, ac = a // w, a % w
            n = 0
            for r in range(max(0, ar - MAX_MOVE), min(h, ar + MAX_MOVE + 1)):
                for c in range(max(0, ac - MAX_MOVE), min(w, ac + MAX_MOVE + 1)):
                    b = r * w + c
                    if b != a and within_allowance(params, r - ar, c - ac, line_pace(params, a, b) + 2 * fast):
                        params[base + 1 + n] = b
                        n += 1
            params[base] = n


@kernel
def shore(params, cell):
    """The nearest cell that is not deep water (straight-line distance; ties: lower row, then lower column),
    where a flag dropped on deep water ``cell`` washes up."""
    best, best_d = -1, 1 << 30
    for b in range(params[P_WIDTH] * params[P_HEIGHT]):       # row-major: the first of equals wins ties
        if params[P_YARD + b] != DEEP and squared_dist(params, cell, b) < best_d:
            best, best_d = b, squared_dist(params, cell, b)
    return best


@kernel
def gnome_type(params, k):
    return params[P_TYPES + k]


@kernel(inline="always")
def reachable(state, params, player, k, cells):
    """Fill ``cells`` with the free cells gnome (player, k) can move to, row-major; return how many.

    Reachable: a free cell whose distance (``move_metric``) is at most the smallest pace number on the
    straight line, +2 for fast cavalry (decisions: Moving; the lines are in the move tables)."""
    a = state[S_POS + player * MAX_GNOMES + k]
    fast = 1 if gnome_type(params, k) == FAST else 0
    base = P_MOVES + (fast * MAX_CELLS + a) * MOVES_STRIDE
    n = 0
    for i in range(params[base]):
        b = params[base + 1 + i]
        cells[n] = b                    # written always, kept when free: no branch to mispredict
        n += state[S_OCC + b] == 0
    return n


# --- taking gnomes out, flags -----------------------------------------------------


@kernel
def take_out(state, params, player, k, cause):
    i = player * MAX_GNOMES + k
    cell = state[S_POS + i]
    state[S_OCC + cell] = 0
    state[S_POS + i] = -1
    state[S_LOST + player * 12 + gnome_type(params, k) * 3 + cause] += 1
    if params[P_SCENARIO] == WIZARD_WAR and gnome_type(params, k) == RANGED:
        state[S_WIZARD_OUT + player] = 1
    f = state[S_FLAG + i]
    if f >= 0:   # a carried flag is dropped where the gnome stood (melee may hand it on instead)
        state[S_FLAG + i] = -1
        drop_flag(state, params, f, cell)


@kernel
def drop_flag(state, params, f, cell):
    """Flag f lies on ``cell``; dropped on deep water it washes up on the shore cell, and a gnome without a
    flag standing there picks it up at once (decisions: Deep water and returns)."""
    if params[P_YARD + cell] == DEEP:
        cell = shore(params, cell)
        slot = state[S_OCC + cell] - 1
        if slot >= 0 and state[S_FLAG + slot] < 0:
            state[S_FLAG + slot] = f
            return
    state[S_FLAG_AT + f] = cell


@kernel
def place(state, player, k, cell):
    state[S_POS + player * MAX_GNOMES + k] = cell
    state[S_OCC + cell] = player * MAX_GNOMES + k + 1


@kernel
def in_action(state, player, k):
    return state[S_POS + player * MAX_GNOMES + k] >= 0


# --- setup --------------------------------------------------------------------


@kernel
def setup(state, params, streams):
    state[:] = 0
    state[S_FLAG:S_FLAG + 2 * MAX_GNOMES] = -1
    state[S_FLAG_AT] = -1
    state[S_FLAG_AT + 1] = -1
    state[S_WINNER] = NO_WINNER
    w, h, n = params[P_WIDTH], params[P_HEIGHT], params[P_GNOMES]
    for k in range(MAX_GNOMES):
        state[S_POS + k] = -1
        state[S_POS + MAX_GNOMES + k] = -1
    c0 = (w - n) // 2
    for k in range(n):
        place(state, 0, k, c0 + k)
        place(state, 1, k, (h - 1) * w + c0 + k)
    if params[P_SCENARIO] == CAPTURE_THE_FLAG:
        state[S_FLAG + 0] = 0
        state[S_FLAG + MAX_GNOMES] = 1
    state[S_FIRST] = rng.randint(streams, rng.DICE, 2)   # 'randomly determine who goes first'


# --- ranged attack ------------------------------------------------------------------


@kernel
def ranged_gnome(params):
    for k in range(params[P_GNOMES]):
        if gnome_type(params, k) == RANGED:
            return k
    return -1


@kernel
def gnome_value(params, k):
    """What gnome k is worth (docs/skirmish.md, greedy): foot 1, fast cavalry and ranged 2, heavy cavalry 3."""
    t = gnome_type(params, k)
    return 3 if t == HEAVY else (1 if t == FOOT else 2)


@kernel
def target_value(state, params, enemy, k):
    if state[S_FLAG + enemy * MAX_GNOMES + k] >= 0:
        return 5
    return gnome_value(params, k)


@kernel
def hit_probability(params, d):
    floats = params.view(np.float64)
    return floats[P_HIT_P0] * math.exp(-d / floats[P_HIT_SCALE])


@kernel
def can_target(state, params, me, enemy, j):
    """Is enemy gnome j in action, within max_range of ``me`` (straight-line distance, compared squared),
    not the wizard of wizard_war (immune) and, with ``line_of_sight``, in sight?"""
    cell = state[S_POS + enemy * MAX_GNOMES + j]
    if cell < 0 or squared_dist(params, me, cell) > params[P_MAX_RANGE] * params[P_MAX_RANGE]:
        return False
    if params[P_SCENARIO] == WIZARD_WAR and gnome_type(params, j) == RANGED:
        return False
    return params[P_LINE_OF_SIGHT] == 0 or line_clear(state, params, me, cell)


@kernel
def targets(state, params, player):
    """Rulebook: 'A ranged combat gnome ... may make a ranged attack at the start of your turn.' The enemy gnomes
    it can throw at, as a bit mask (bit j: enemy gnome j); 0 when it is out of action or has no target."""
    k = ranged_gnome(params)
    if k < 0 or not in_action(state, player, k):
        return 0
    me = state[S_POS + player * MAX_GNOMES + k]
    mask = 0
    for j in range(params[P_GNOMES]):
        if can_target(state, params, me, 1 - player, j):
            mask |= 1 << j
    return mask


@kernel
def open_attack(state, params, player):
    """The ranged attack of the turn: with a target, the throw is the pending decision (True). Neither policy
    ever declines a throw, so there is no such action (docs/skirmish.md, Decisions, information and
    resampling)."""
    mask = targets(state, params, player)
    if mask == 0:
        return False
    state[S_TARGETS] = mask
    state[S_PHASE] = PH_THROW
    return True


@kernel
def throw(state, params, player, target, streams):
    """A throw at enemy gnome ``target`` hits with the model's probability (a DICE draw): out of action."""
    me = state[S_POS + player * MAX_GNOMES + ranged_gnome(params)]
    cell = state[S_POS + (1 - player) * MAX_GNOMES + target]
    state[S_THROWS + player] += 1
    if rng.uniform(streams, rng.DICE) < hit_probability(params, dist(params, me, cell)):
        state[S_HITS + player] += 1
        take_out(state, params, 1 - player, target, THROWN)



# --- movement -----------------------------------------------------------------------


@kernel
def return_gnomes(state, params, player):
    """Wizard war, capture the flag: gnomes out of action come back to their owner's edge row, each to the
    free cell that is not deep water nearest the row's middle (the lower column on a tie): never drowned by
    being placed (decisions: Deep water and returns)."""
    w, n = params[P_WIDTH], params[P_GNOMES]
    edge = 0 if player == 0 else (params[P_HEIGHT] - 1) * w
    for k in range(n):
        i = player * MAX_GNOMES + k
        if state[S_POS + i] >= 0 or (params[P_SCENARIO] == WIZARD_WAR and gnome_type(params, k) == RANGED):
            continue
        best = -1
        for c in range(w):            # |2c - (w - 1)|: twice the distance from the middle of the row
            if state[S_OCC + edge + c] == 0 and params[P_YARD + edge + c] != DEEP and \
                    (best < 0 or abs(2 * c - w + 1) < abs(2 * best - w + 1)):
                best = c
        if best >= 0:
            place(state, player, k, edge + best)
            state[S_BACK_NOW + i] = 1








@kernel
def open_movement(state, params, player):
    """Rulebook: 'you may move 1 or more of your gnomes': returns first (they do not move this turn), then each
    other gnome in action, in gnome order, is a decision. True when a gnome's move is pending."""
    for k in range(params[P_GNOMES]):
        state[S_BACK_NOW + player * MAX_GNOMES + k] = 0
    if params[P_SCENARIO] != LAST_MAN_STANDING:
        return_gnomes(state, params, player)
    return next_mover(state, params, player, 0)


@kernel(inline="always")
def next_mover(state, params, player, k):
    """The first gnome from ``k`` on that moves this turn (in action, not just come back) is the pending
    decision (True). With none left the movement phase ends: in capture_the_flag the flags are picked up."""
    for j in range(k, params[P_GNOMES]):
        i = player * MAX_GNOMES + j
        if state[S_POS + i] >= 0 and state[S_BACK_NOW + i] == 0:
            state[S_PHASE] = PH_MOVE
            state[S_GNOME] = j
            return True
    if params[P_SCENARIO] == CAPTURE_THE_FLAG:
        pick_up_flags(state, params, player)
    return False


@kernel(inline="always")
def move_on(state, params, player, action):
    """The pending gnome's move (A_STAY or its destination cell), then the next gnome's (True if one is
    pending). A gnome that ends on deep water drowns, before the next gnome moves."""
    k = state[S_GNOME]
    if action != A_STAY:
        state[S_OCC + state[S_POS + player * MAX_GNOMES + k]] = 0
        place(state, player, k, action)
        if params[P_YARD + action] == DEEP:
            take_out(state, params, player, k, DROWNED)   # 'the gnome drowns and is out of action'
    return next_mover(state, params, player, k + 1)


@kernel
def pick_up_flags(state, params, player):
    """A gnome without a flag that stands on a dropped flag picks it up (decisions: capture_the_flag)."""
    for k in range(params[P_GNOMES]):
        i = player * MAX_GNOMES + k
        for f in range(2):
            if state[S_POS + i] >= 0 and state[S_FLAG + i] < 0 and state[S_FLAG_AT + f] == state[S_POS + i]:
                state[S_FLAG + i] = f
                state[S_FLAG_AT + f] = -1


# --- melee ------------------------------------------------------------------------------


@kernel
def best_card(state, params, streams, count):
    """Shuffle a fresh 16-card deck (A, 2, 3, 4 in four suits) and return the best of ``count`` drawn."""
    deck = S_SCRATCH + 6 * MAX_GNOMES
    for i in range(16):
        state[deck + i] = i // 4 + 1
    rng.shuffle(streams, rng.DECK, state[deck:deck + 16], 16)
    best = 0
    for i in range(min(count, 16)):
        card = state[deck + 15 - i]
        if card == 1 and params[P_ACE_HIGH] == 1:
            card = 5
        best = max(best, card)
    return best


@kernel
def melee(state, params, streams):
    """Rulebook: 'At the end of your turn if any of your gnomes are in contact with enemy gnomes a fight takes
    place.' Fights are groups linked by enemy contacts, resolved by their lowest cell."""
    n = params[P_GNOMES]
    fight = S_SCRATCH                 # fight number per gnome slot (player * MAX_GNOMES + k), -1 none
    for i in range(2 * MAX_GNOMES):
        state[fight + i] = -1
    stack = S_SCRATCH + 2 * MAX_GNOMES
    order = S_SCRATCH + 4 * MAX_GNOMES
    # the gnomes touching an enemy, by cell (insertion sort: a few dozen at most)
    m = 0
    for p in range(2):
        for g in range(p * MAX_GNOMES, p * MAX_GNOMES + n):
            if state[S_POS + g] >= 0 and has_enemy_contact(state, params, g):
                j = m
                while j > 0 and state[S_POS + state[order + j - 1]] > state[S_POS + g]:
                    state[order + j] = state[order + j - 1]
                    j -= 1
                state[order + j] = g
                m += 1
        if m == 0:
            return                    # contact is mutual: no gnome of player 0 touches an enemy, so none does
    fights = 0
    # label the fights: a flood fill over contacts between enemies, started from the lowest cell
    for i in range(m):
        g0 = state[order + i]
        if state[fight + g0] >= 0:
            continue
        state[fight + g0] = fights
        top = 1
        state[stack] = g0
        while top > 0:
            top -= 1
            g = state[stack + top]
            p = g // MAX_GNOMES
            for j in range(n):
                h = (1 - p) * MAX_GNOMES + j
                if state[S_POS + h] >= 0 and state[fight + h] < 0 and \
                        cheb(params, state[S_POS + g], state[S_POS + h]) == 1:
                    state[fight + h] = fights
                    state[stack + top] = h
                    top += 1
        fights += 1
    for f in range(fights):
        resolve_fight(state, params, streams, f)


@kernel
def has_enemy_contact(state, params, g):
    """Is gnome slot ``g`` (player * MAX_GNOMES + k) next to an enemy? Its 8 neighbour cells are looked up."""
    w, h = params[P_WIDTH], params[P_HEIGHT]
    cell = state[S_POS + g]
    r, c = row_of(params, cell), col_of(params, cell)
    enemy = 1 - g // MAX_GNOMES
    for rr in range(max(0, r - 1), min(h, r + 2)):
        for cc in range(max(0, c - 1), min(w, c + 2)):
            o = state[S_OCC + rr * w + cc]
            if o != 0 and (o - 1) // MAX_GNOMES == enemy:
                return True
    return False


@kernel
def resolve_fight(state, params, streams, f):
    """Highest card wins; heavy cavalry wins ties; both heavy: both out; neither: nothing."""
    n = params[P_GNOMES]
    fight = S_SCRATCH
    size0 = 0
    size1 = 0
    heavy0 = False
    heavy1 = False
    for k in range(n):
        if state[fight + k] == f:
            size0 += 1
            heavy0 = heavy0 or gnome_type(params, k) == HEAVY
        if state[fight + MAX_GNOMES + k] == f:
            size1 += 1
            heavy1 = heavy1 or gnome_type(params, k) == HEAVY
    card0 = best_card(state, params, streams, size0)
    card1 = best_card(state, params, streams, size1)
    lose0 = card0 < card1 or (card0 == card1 and heavy1 and not heavy0) or (card0 == card1 and heavy0 and heavy1)
    lose1 = card1 < card0 or (card0 == card1 and heavy0 and not heavy1) or (card0 == card1 and heavy0 and heavy1)
    for loser, lost in ((0, lose0), (1, lose1)):
        if not lost:
            continue
        for k in range(n):
            i = loser * MAX_GNOMES + k
            if state[fight + i] != f or state[S_POS + i] < 0:
                continue
            flag = state[S_FLAG + i]
            if flag >= 0 and not (lose0 and lose1):
                # 'that flag is transferred to one of the winning gnomes in that combat'
                for j in range(n):
                    h = (1 - loser) * MAX_GNOMES + j
                    if state[fight + h] == f and state[S_POS + h] >= 0 and state[S_FLAG + h] < 0:
                        state[S_FLAG + h] = flag
                        state[S_FLAG + i] = -1
                        break
            take_out(state, params, loser, k, MELEE)


# --- winning ----------------------------------------------------------------------------


@kernel
def alive(state, params, player):
    count = 0
    for k in range(params[P_GNOMES]):
        count += state[S_POS + player * MAX_GNOMES + k] >= 0
    return count


@kernel
def holds_both_flags_home(state, params, player):
    """Capture the flag: both flags carried by the player's gnomes standing on its own edge row."""
    edge_row = 0 if player == 0 else params[P_HEIGHT] - 1
    held = 0
    for k in range(params[P_GNOMES]):
        i = player * MAX_GNOMES + k
        if state[S_POS + i] >= 0 and state[S_FLAG + i] >= 0:
            if row_of(params, state[S_POS + i]) != edge_row:
                return False
            held += 1
    return held == 2


@kernel
def check_win(state, params, player):
    """Set S_WINNER if the scenario's objective is met (docs/skirmish.md: Win check)."""
    scenario = params[P_SCENARIO]
    if scenario == LAST_MAN_STANDING:
        a, b = alive(state, params, 0), alive(state, params, 1)
        if a == 0 and b == 0:
            state[S_WINNER] = DRAW
        elif a == 0 or b == 0:
            state[S_WINNER] = 0 if b == 0 else 1
    elif scenario == WIZARD_WAR:
        out0, out1 = state[S_WIZARD_OUT], state[S_WIZARD_OUT + 1]
        if out0 == 1 and out1 == 1:
            state[S_WINNER] = DRAW
        elif out0 == 1 or out1 == 1:
            state[S_WINNER] = 1 if out0 == 1 else 0
    else:
        for p in (player, 1 - player):
            if state[S_WINNER] == NO_WINNER and holds_both_flags_home(state, params, p):
                state[S_WINNER] = p
    return state[S_WINNER] != NO_WINNER


# --- decisions ----------------------------------------------------------------------------
# A turn (rulebook: Playing the Game) is the throw's target, then each gnome's move, in gnome order; the rules
# between two decisions and a turn without any decision run inside apply_action. What runs at every decision
# (current_player, legal_actions with reachable, apply_action with move_on and next_mover) is inlined into the
# agents' loop: as calls they made random play about 5% slower (measured).


@kernel(inline="always")
def mover(state):
    """The player whose turn it is: turns alternate from the first player."""
    return (state[S_FIRST] + state[S_TURN]) % 2


@kernel
def close_turn(state, params, player, streams):
    """After the movement: the win check, the melee and its win check (A turn, steps 3 and 4); the turn
    counts."""
    if not check_win(state, params, player):
        melee(state, params, streams)
        check_win(state, params, player)
    state[S_TURN] += 1


@kernel
def after_attack(state, params, player, streams):
    """The movement up to its first decision (True), or to the end of the turn (False)."""
    if open_movement(state, params, player):
        return True
    close_turn(state, params, player, streams)
    return False


@kernel
def open_turn(state, params, streams):
    """From the start of a turn up to its first decision; a turn without one is played through, and the next,
    until a decision, a winner or ``max_turns`` turns."""
    while state[S_WINNER] == NO_WINNER and state[S_TURN] < params[P_MAX_TURNS]:
        player = mover(state)
        # without a throw nothing has changed since the last win check: the movement follows at once
        if open_attack(state, params, player) or after_attack(state, params, player, streams):
            return


@kernel
def begin(state, params, streams):
    """Set up, then the first player's turn up to its first decision."""
    setup(state, params, streams)
    open_turn(state, params, streams)


@kernel(inline="always")
def current_player(state, params):
    """The player to decide, or -1 when the game is won, drawn or has run ``max_turns`` turns."""
    if state[S_WINNER] != NO_WINNER or state[S_TURN] >= params[P_MAX_TURNS]:
        return -1
    return mover(state)


@kernel(inline="always")
def legal_actions(state, params, out):
    """The pending decision's actions in the order the random policy draws from: the targets in gnome order,
    or stay followed by the reachable cells (row-major)."""
    if state[S_PHASE] == PH_THROW:
        n = 0
        for j in range(params[P_GNOMES]):
            if (state[S_TARGETS] >> j) & 1:
                out[n] = A_THROW + j
                n += 1
        return n
    out[0] = A_STAY
    return 1 + reachable(state, params, mover(state), state[S_GNOME], out[1:])


@kernel(inline="always")
def apply_action(state, params, action, streams):
    """Carry out the pending decision, then run the rules up to the next one (or the end)."""
    player = mover(state)
    if state[S_PHASE] == PH_THROW:
        throw(state, params, player, action - A_THROW, streams)
        if check_win(state, params, player):
            state[S_TURN] += 1              # the turn counts; the game is over
            return
        if after_attack(state, params, player, streams):
            return
    elif move_on(state, params, player, action):
        return
    else:
        close_turn(state, params, player, streams)
    open_turn(state, params, streams)


@kernel
def returns(state, params, out):
    """1 for the winner, 0 for the loser; 0 for both after a draw (no winner, as the row says) or a timeout."""
    for p in range(MAX_SEATS):
        out[p] = 1.0 if state[S_WINNER] == p else 0.0


@kernel
def write_row(state, params, row):
    winner = state[S_WINNER]
    row[O_FIRST_SEAT] = state[S_FIRST]
    row[O_N_TURNS] = state[S_TURN]
    row[O_TIMEOUT] = winner == NO_WINNER
    x = O_EXTRA
    row[x] = winner == DRAW
    for p in range(2):
        row[O_WIN + p] = winner == p
        row[O_SCORE + p] = alive(state, params, p)
        row[x + 1 + p] = state[S_WIZARD_OUT + p]
        flags = 0
        for k in range(params[P_GNOMES]):
            flags += state[S_FLAG + p * MAX_GNOMES + k] >= 0 and state[S_POS + p * MAX_GNOMES + k] >= 0
        row[x + 3 + p] = flags
        for t in range(4):
            lost = 0
            for cause in range(3):
                lost += state[S_LOST + p * 12 + t * 3 + cause]
            row[x + 5 + 2 * t + p] = lost
        for cause in range(3):
            total = 0
            for t in range(4):
                total += state[S_LOST + p * 12 + t * 3 + cause]
            row[x + 13 + 2 * cause + p] = total
        row[x + 19 + p] = state[S_THROWS + p]
        row[x + 21 + p] = state[S_HITS + p]


# --- the trace (run --trace) ----------------------------------------------------------

TRACE_STANDING = "material: the values of the seat's gnomes in action (foot 1, fast cavalry and ranged 2, heavy 3)"
TRACE_STEP = "turn"
MAX_TRACE_STEPS = 512                # turns; a longer game keeps its end in the last
ACTION_KINDS = (
    ("throw", "a ranged throw at an enemy gnome"),
    ("move", "a move of a gnome without a flag"),
    ("flag_move", "a move of a gnome carrying a flag (capture_the_flag)"),
    ("stay", "a gnome staying where it is"),
)
END_CONDITIONS = (
    ("wipe_out", "one side has no gnome in action (last_man_standing)"),
    ("wizard_taken", "a wizard is out of action (wizard_war)"),
    ("flags_home", "both flags carried home (capture_the_flag)"),
    ("draw", "both sides out at once"),
)
K_THROW, K_MOVE, K_FLAG_MOVE, K_STAY = range(4)


@kernel
def standing(state, params, out):
    for player in range(MAX_SEATS):
        material = 0
        for k in range(params[P_GNOMES]):
            if state[S_POS + player * MAX_GNOMES + k] >= 0:
                material += gnome_value(params, k)
        out[player] = material


@kernel
def trace_step(state, params):
    return state[S_TURN]


@kernel
def action_kind(state, params, action):
    if state[S_PHASE] == PH_THROW:
        return K_THROW
    if action == A_STAY:
        return K_STAY
    carrying = state[S_FLAG + mover(state) * MAX_GNOMES + state[S_GNOME]] >= 0
    return K_FLAG_MOVE if carrying else K_MOVE


@kernel
def end_condition(state, params):
    """The scenario's objective met (docs/skirmish.md: Win check), or a draw."""
    return 3 if state[S_WINNER] == DRAW else params[P_SCENARIO]
