"""The garden-gnome skirmish on a grid, in plain Python: the reference implementation.

This module plays the game exactly as ``docs/skirmish.md`` fixes it, written
the way one would write the game without simcore: lists, dicts, a small
``Gnome`` dataclass and a ``Game`` class, no numpy, no numba. It serves two
purposes:

* an independent check of the rules: for the same ``(params, policies, seed,
  game_index)`` it must play the very same game, draw for draw, as the jitted
  ``simcore/games/skirmish/``;
* the speed baseline the jitted code is measured against.

Randomness comes only from :class:`simcore.engine.rng.Stream`: stream ``DICE`` for
the first-player draw (``randint(2)``, before anything else) and for every
throw (``uniform()``), stream ``DECK`` for the melee decks (player 0's deck,
then player 1's, fight by fight), stream ``POLICY + player`` for each
player's policy.

Entry points
------------
``play(params, policies, seed, game_index) -> dict`` plays one game and
returns its result; ``run(params, policies, seed, n_games, start=0)`` plays
game indices ``start .. start + n_games - 1``. ``Game`` can be driven step by
step (see its docstring) to test single rules on a constructed position.
``bresenham(a, b)`` is the line of cells from a to b.

The decision interface (docs/skirmish.md, "Decisions, information and
resampling"), the same as the jitted game's, in plain Python:
``begin(params, seed, game_index)`` is game ``game_index`` of the run with
``seed`` at its first decision; then ``game.current_player()`` (-1 when the
game is over), ``game.legal_actions()`` (a list of action codes: the throw's
targets ``THROW + j``, or ``STAY`` and the reachable cells' indices
``r * width + c``), ``game.apply_action(action)``, ``game.returns()`` and
``game.resample(seat, streams)``, which redraws nothing (nothing is hidden).
``play`` itself plays through this interface: ``random`` draws uniformly over
the legal list, ``greedy`` picks its target or its gnome's cell.

State
-----
Cells are ``(row, col)`` tuples; sorting cells sorts them row-major, and the
cell index of the docs is ``row * width + col``. Row 0 is player 0's edge,
the last row player 1's edge.

* ``yard``: the parsed terrain (a :class:`Yard`, shared between games with the
  same map): ``terrain[r][c]`` is a letter of ``= . * ~ W``.
* ``gnomes[player]``: that player's :class:`Gnome` objects in gnome order
  (all foot, then fast cavalry, heavy cavalry, ranged). A gnome in action has
  a ``cell``; one out of action has ``cell = None``. ``flag`` is the flag it
  carries, or ``None``.
* ``occupant``: a dict ``cell -> Gnome`` of the gnomes in action (one gnome a
  cell, whoever owns it).
* ``dropped``: a dict ``flag -> cell`` of the flags lying in the yard. Flag
  ``f`` is player ``f``'s flag; every flag is either carried by exactly one
  gnome in action or in ``dropped`` (``capture_the_flag`` only).
* ``to_move``, ``first``, ``over``, ``winner`` (None for a draw or a
  timeout), ``draw``, ``timeout``, and the counters ``n_turns``, ``lost``
  (per player and gnome type), ``out_by`` (per player: melee, ranged,
  drowned), ``throws``, ``hits``.
* The decision pending: ``phase`` (``THROWING``, ``MOVING``, or None when the
  game is over), ``moving`` (the number of the gnome to move) and
  ``came_back`` (the numbers of the player's gnomes that came back this
  turn: they do not move).

Readings
--------
Where the docs leave a detail open, this module reads it so:

* greedy's tie-break ``randint(number tied)`` is drawn even when one option
  is best (as in the other games' docs);
* greedy's throw compares the hit probabilities themselves (the formula), then
  the gnome number; for ``hit_p0 > 0`` that is "the closest";
* a greedy gnome with no goal cell at all (``capture_the_flag``, every enemy
  out, no flag to chase) gets no distance term: only contact counts;
* "heavy cavalry always counts as outnumbering, the ranged gnome never does"
  is about the mover's own type;
* a win check that finds both wizards out (one fight or two fights of one
  melee) is a draw; ``wizard_war`` without a ranged gnome is refused.
"""

import math
from dataclasses import dataclass
from functools import lru_cache

from simcore.engine.rng import DECK, DICE, N_STREAMS, POLICY, Stream

# --- pieces --------------------------------------------------------------------

FOOT, FAST, HEAVY, RANGED = 0, 1, 2, 3            # gnome types, in gnome order
KINDS = ("foot", "fast", "heavy", "ranged")        # also the keys of ``army``
BY_MELEE, BY_RANGED, BY_DROWNING = 0, 1, 2         # causes of being taken out

SCENARIOS = ("last_man_standing", "wizard_war", "capture_the_flag")

PACES = {"=": 4, ".": 3, "*": 2, "~": 2, "W": 2}   # path, grass, rough, shallow, deep
DEEP = "W"                                         # ending a move here drowns
FAST_BONUS = 2                                     # fast cavalry moves 2 paces more
MAX_REACH = max(PACES.values()) + FAST_BONUS       # no move is longer than this
MIN_SIDE, MAX_SIDE = 4, 32

# The 16-card melee deck as listed before the shuffle: A A A A 2 2 2 2 3 3 3 3 4 4 4 4
# (rank 1 is the ace; its value depends on ``ace_high``).
DECK_RANKS = [rank for rank in (1, 2, 3, 4) for _ in range(4)]
DECK_SIZE = len(DECK_RANKS)

# Greedy throw: the value of a target (a flag carrier first).
FLAG_CARRIER_VALUE = 5
WIZARD_VALUE = 4
KIND_VALUE = {HEAVY: 3, FAST: 2, RANGED: 2, FOOT: 1}
# Greedy move scores.
GOAL_STEP = 10           # per pace of Chebyshev distance to the nearest goal
CONTACT_COST = 1000      # ending next to an enemy without outnumbering it there

DEFAULT_YARD = """\
........=...............
........=...............
...***..=...............
...***..=..........**...
........=..........**...
........=...............
........=.....~~~.......
........=....~WWW~......
........=....~WWW~......
........=.....~~~.......
........=...............
...**...=...............
...**...=........***....
........=........***....
........=...............
........=...............
"""

MIN_ARMY = 5             # rulebook: "5 or more gnomes per player"
METRICS = ("euclid", "chebyshev")

# The decisions and their action codes (docs/skirmish.md, "Decisions, information and resampling").
THROWING, MOVING = "throw", "move"
STAY = 1024              # the gnome to move stays; a move's code is its cell index r * width + c
THROW = 1025             # + the target's gnome number

DEFAULT_PARAMS = {
    "players": 2,
    "scenario": "last_man_standing",
    "max_turns": 500,
    "yard": DEFAULT_YARD,
    "army": {"foot": 2, "fast": 1, "heavy": 1, "ranged": 1},
    "max_range": 10,
    "hit_p0": 0.9,
    "hit_scale": 6.0,
    "ace_high": False,
    "line_of_sight": True,
    "move_metric": "euclid",
}


def cheb(a, b):
    """Chebyshev distance: for contact, greedy's goals and ``move_metric = "chebyshev"``."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def squared_distance(a, b):
    """dr² + dc²: straight-line distances are compared squared, in exact integers."""
    dr = a[0] - b[0]
    dc = a[1] - b[1]
    return dr * dr + dc * dc


def distance(a, b):
    """Euclidean distance in paces: for the hit probability."""
    return math.sqrt(squared_distance(a, b))


def within(a, b, paces, metric):
    """Is b at most ``paces`` from a? ``euclid``: straight-line distance
    between the cell centres; ``chebyshev``: a diagonal step counts one."""
    if metric == "euclid":
        return squared_distance(a, b) <= paces * paces
    return cheb(a, b) <= paces


def bresenham(a, b):
    """The cells of the line from ``a`` to ``b``, both included, in order.

    Exactly the integer algorithm of the docs: the line from a to b need not
    be the line from b to a reversed, so the direction matters."""
    r0, c0 = a
    r1, c1 = b
    dr = abs(r1 - r0)
    dc = abs(c1 - c0)
    sr = 1 if r0 < r1 else -1
    sc = 1 if c0 < c1 else -1
    err = dc - dr
    r, c = r0, c0
    cells = []
    while True:
        cells.append((r, c))
        if (r, c) == (r1, c1):
            return cells
        e2 = 2 * err
        if e2 > -dr:
            err -= dr
            c += sc
        if e2 < dc:
            err += dc
            r += sr


def stream_family(seed, game_index):
    """The streams of game ``game_index`` of the run with ``seed``, indexed by
    stream number (``DECK``, ``POLICY + player`` ...): what ``resample`` takes."""
    return [Stream(seed, game_index, k) for k in range(N_STREAMS)]


# --- the yard --------------------------------------------------------------------

class Yard:
    """A parsed yard and, for every cell, the cells a move from it may end on
    if they are free (row-major), for the plain and the fast allowance.

    Built once per map and move metric (see ``parse_yard``): the candidate
    lists depend on the terrain only, occupancy is checked per move."""

    def __init__(self, rows, metric="euclid"):
        self.terrain = rows
        self.height = len(rows)
        self.width = len(rows[0])
        self.edge_rows = (0, self.height - 1)      # player 0's edge, player 1's edge
        # candidates[bonus][cell]: cells b != cell within the allowance (+ bonus)
        self.candidates = {0: {}, FAST_BONUS: {}}
        for r in range(self.height):
            for c in range(self.width):
                a = (r, c)
                plain, fast = [], []
                # dr, then dc ascending: the candidates come out row-major.
                for br in range(max(0, r - MAX_REACH), min(self.height, r + MAX_REACH + 1)):
                    for bc in range(max(0, c - MAX_REACH), min(self.width, c + MAX_REACH + 1)):
                        b = (br, bc)
                        if b == a:
                            continue
                        pace = self.line_pace(a, b)
                        if within(a, b, pace, metric):
                            plain.append(b)
                        if within(a, b, pace + FAST_BONUS, metric):
                            fast.append(b)
                self.candidates[0][a] = plain
                self.candidates[FAST_BONUS][a] = fast

    def __deepcopy__(self, memo):
        return self         # shared by every game on this map: a copied game keeps it

    def inside(self, cell):
        r, c = cell
        return 0 <= r < self.height and 0 <= c < self.width

    def letter(self, cell):
        return self.terrain[cell[0]][cell[1]]

    def is_deep(self, cell):
        return self.terrain[cell[0]][cell[1]] == DEEP

    def line_pace(self, a, b):
        """The smallest pace number of the cells on the line a -> b."""
        return min(PACES[self.terrain[r][c]] for r, c in bresenham(a, b))

    def shore(self, cell):
        """Where a flag dropped on deep water ``cell`` washes up: the nearest
        cell that is not deep water (straight line; ties: lower row, then
        lower column)."""
        dry = [(r, c) for r in range(self.height) for c in range(self.width) if not self.is_deep((r, c))]
        return min(dry, key=lambda b: (squared_distance(cell, b), b))


@lru_cache(maxsize=32)
def parse_yard(text, metric="euclid"):
    """The :class:`Yard` of ASCII art: each line stripped, blank lines skipped;
    moves measured with ``metric`` (``euclid`` or ``chebyshev``).

    Raises ``ValueError`` unless all rows have the same length, the yard is
    4 x 4 to 32 x 32 and only the letters ``= . * ~ W`` occur."""
    rows = [line.strip() for line in text.splitlines()]
    rows = [row for row in rows if row]
    if not rows:
        raise ValueError("yard: no rows")
    width = len(rows[0])
    if any(len(row) != width for row in rows):
        raise ValueError("yard: rows of different lengths")
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= len(rows) <= MAX_SIDE):
        raise ValueError(f"yard: {width} x {len(rows)} is outside 4 x 4 .. 32 x 32")
    for row in rows:
        for ch in row:
            if ch not in PACES:
                raise ValueError(f"yard: unexpected letter {ch!r} (only = . * ~ W)")
    if metric not in METRICS:
        raise ValueError(f"move_metric: {metric!r} is not one of {', '.join(METRICS)}")
    return Yard(tuple(rows), metric)


# --- gnomes ------------------------------------------------------------------------

@dataclass(eq=False)
class Gnome:
    """Gnome ``number`` of ``player``; ``cell`` None while out of action."""

    player: int
    number: int
    kind: int
    cell: tuple | None = None
    flag: int | None = None    # the flag it carries

    @property
    def in_action(self):
        return self.cell is not None


def _kind(kind):
    """A gnome type given as 0..3 or by name."""
    if isinstance(kind, str):
        return KINDS.index(kind)
    if kind not in (FOOT, FAST, HEAVY, RANGED):
        raise ValueError(f"unknown gnome type {kind!r}")
    return kind


# --- policies ----------------------------------------------------------------------

class RandomPolicy:
    """A uniform target, a uniform move per gnome: one draw over the legal
    actions of each decision (also for "stay" alone)."""

    def __init__(self, rng):
        self.rng = rng

    def act(self, game):
        actions = game.legal_actions()
        return actions[self.rng.randint(len(actions))]


class GreedyPolicy:
    """The most valuable, most likely target; each gnome toward its goal,
    avoiding contact where the enemy is not outnumbered, never into deep water."""

    def __init__(self, rng):
        self.rng = rng

    def act(self, game):
        if game.phase == THROWING:
            return THROW + self.choose_target(game)
        cell = self.choose_move(game, game.gnome(game.to_move, game.moving))
        return STAY if cell is None else game.cell_action(cell)

    def choose_target(self, game):
        """The number of the enemy gnome to throw at (there is a target)."""
        shooter = game.ranged_gnome(game.to_move)
        best, best_key = None, None
        for target in game.throw_targets(game.to_move):   # gnome order: ties keep the lowest
            key = (self.target_value(game, target), game.hit_probability(shooter.cell, target.cell))
            if best_key is None or key > best_key:
                best, best_key = target, key
        return best.number

    @staticmethod
    def target_value(game, target):
        if target.flag is not None:
            return FLAG_CARRIER_VALUE
        if game.is_wizard(target):                        # never a target (immune), for completeness
            return WIZARD_VALUE
        return KIND_VALUE[target.kind]

    def choose_move(self, game, gnome):
        player = gnome.player
        # Options: stay, then the reachable cells row-major; deep water never.
        options = [gnome.cell] + [cell for cell in game.reachable(player, gnome.number)
                                  if not game.yard.is_deep(cell)]
        goals = game.goal_cells(gnome)
        friends = [g.cell for g in game.gnomes[player] if g.in_action and g is not gnome]
        enemies = [g.cell for g in game.gnomes[1 - player] if g.in_action]
        in_contact = {(r + dr, c + dc) for r, c in enemies for dr in (-1, 0, 1) for dc in (-1, 0, 1)}
        scores = []
        for cell in options:
            r, c = cell
            # Toward the nearest goal (Chebyshev); with no goal at all, no pull anywhere.
            score = -GOAL_STEP * min(max(abs(r - gr), abs(c - gc)) for gr, gc in goals) if goals else 0
            if cell in in_contact and not self.outnumbers(gnome.kind, cell, friends, enemies):
                score -= CONTACT_COST
            scores.append(score)
        best = max(scores)
        tied = [cell for cell, s in zip(options, scores, strict=True) if s == best]
        choice = tied[self.rng.randint(len(tied))]        # drawn even for one
        return None if choice == gnome.cell else choice

    @staticmethod
    def outnumbers(kind, cell, friends, enemies):
        """Does the mover's side outnumber the enemy within cheb 2 of ``cell``
        (the mover counted there)? Heavy cavalry always does, ranged never."""
        if kind == HEAVY:
            return True
        if kind == RANGED:
            return False
        own = 1 + sum(1 for f in friends if cheb(cell, f) <= 2)
        theirs = sum(1 for e in enemies if cheb(cell, e) <= 2)
        return own > theirs


POLICIES = {"random": RandomPolicy, "greedy": GreedyPolicy}


# --- the game ----------------------------------------------------------------------

def _complete(params):
    """``params`` over the defaults (``army`` key by key)."""
    done = {**DEFAULT_PARAMS, **params}
    done["army"] = {**DEFAULT_PARAMS["army"], **params.get("army", {})}
    return done


class Game:
    """One game of the skirmish.

    ``Game(params, policies, seed, game_index)`` draws the first player, sets
    the armies up on their edges and runs the first turn up to its first
    decision (``policies`` may be ``None`` for a game driven through the
    decision interface only). Then either ``play_out()`` plays to the end and
    returns the result, or the decision interface drives it
    (``current_player()``, ``legal_actions()``, ``apply_action(action)``,
    ``returns()``, ``resample(seat, streams)``; see the module docstring), or
    a test drives it:

    * inspect ``gnomes``, ``occupant``, ``dropped``, ``to_move``, ``over``,
      ``winner``, ``draw`` and the counters (see the module docstring);
      ``gnome(player, number)`` is one gnome;
    * set up a position: ``set_position(armies, to_move, carriers, dropped)``
      replaces both armies (gnome by gnome ``(type, cell)`` in action or
      ``(type, None)`` out of action; types as 0..3 or ``"foot"``, ``"fast"``,
      ``"heavy"``, ``"ranged"``), who moves and where the flags are;
      ``put_out(player, number)``,
      ``put(player, number, cell)``, ``give_flag(flag, player, number)`` and
      ``drop_flag(flag, cell)`` change one thing; ``to_move`` may be assigned;
      ``start_turn()`` then runs the turn of ``to_move`` up to its first
      decision;
    * queries: ``reachable(player, number)`` (row-major), ``allowance(a, b,
      kind)`` (the movement allowance of the line a -> b), ``throw_targets
      (player)``, ``in_sight(a, b)``, ``hit_probability(a, b)``, ``fights()``,
      ``goal_cells(gnome)`` (greedy's goals);
    * single steps for the player to move: ``ranged_attack(target)`` (an enemy
      gnome number, or None for no throw), ``return_gnomes()``, ``move(number,
      cell)`` (None stays), ``pick_up_flags()``, ``melee()``, ``check_win()``,
      ``end_turn()``; ``step()`` lets the policy of the player to move make
      one decision; ``result()`` is the result dict.
    """

    def __init__(self, params, policies, seed, game_index):
        p = self.params = _complete(params)
        self._validate(policies)
        self.players = p["players"]
        self.scenario = p["scenario"]
        self.max_turns = p["max_turns"]
        self.max_range = p["max_range"]
        self.hit_p0 = p["hit_p0"]
        self.hit_scale = p["hit_scale"]
        self.ace_value = 5 if p["ace_high"] else 1
        self.line_of_sight = p["line_of_sight"]
        self.yard = parse_yard(p["yard"], p["move_metric"])
        self.gnomes_return = self.scenario in ("wizard_war", "capture_the_flag")
        self.flags_in_play = self.scenario == "capture_the_flag"

        self.dice = Stream(seed, game_index, DICE)
        self.deck_rng = Stream(seed, game_index, DECK)
        self.policies = None if policies is None else [
            POLICIES[name](Stream(seed, game_index, POLICY + player)) for player, name in enumerate(policies)]

        # The first player is the very first draw of the game.
        self.first = self.dice.randint(2)

        # Both armies alike, in gnome order, in a centred block on their edge rows.
        army = p["army"]
        kinds = [kind for kind in (FOOT, FAST, HEAVY, RANGED) for _ in range(army[KINDS[kind]])]
        c0 = (self.yard.width - len(kinds)) // 2
        armies = [[(kind, (self.yard.edge_rows[player], c0 + k)) for k, kind in enumerate(kinds)]
                  for player in (0, 1)]
        for player in (0, 1):
            for _, cell in armies[player]:
                if self.yard.is_deep(cell):
                    raise ValueError(f"start cell {cell} is deep water")
        self.set_position(armies, to_move=self.first)   # flags start with gnome 0 of their owner
        self.start_turn()

    def _validate(self, policies):
        p = self.params
        if p["players"] != 2:
            raise ValueError("the skirmish is a 2-player game")
        if policies is None:
            policies = []
        elif len(policies) != 2:
            raise ValueError("one policy per player")
        for name in policies:
            if name not in POLICIES:
                raise ValueError(f"unknown policy {name!r}")
        if p["scenario"] not in SCENARIOS:
            raise ValueError(f"unknown scenario {p['scenario']!r}")
        army = p["army"]
        if set(army) != set(KINDS):
            raise ValueError(f"army must give exactly {', '.join(KINDS)}")
        if any(army[kind] < 0 for kind in KINDS) or any(army[kind] > 1 for kind in ("fast", "heavy", "ranged")):
            raise ValueError("army: counts >= 0, at most 1 fast, 1 heavy and 1 ranged gnome")
        n = sum(army.values())
        if n < MIN_ARMY:
            raise ValueError(f"army: {n} gnomes, the rulebook asks for {MIN_ARMY} or more per player")
        if p["scenario"] == "wizard_war" and army["ranged"] != 1:
            raise ValueError("wizard_war needs a ranged gnome (the wizard)")
        width = parse_yard(p["yard"], p["move_metric"]).width
        if width < n:
            raise ValueError(f"yard: {width} columns cannot hold an army of {n}")

    # --- setting up a position ---------------------------------------------------

    def set_position(self, armies, to_move=0, carriers=None, dropped=None):
        """Replace both armies; a fresh position (counters and outcome cleared).

        ``armies[player]``: one entry per gnome in gnome order, ``(type, cell)``
        for a gnome in action, ``(type, None)`` for one out of action.
        ``capture_the_flag``: ``carriers`` maps a flag to ``(player, number)``,
        ``dropped`` a flag to a cell; a flag in neither starts with gnome 0 of
        its owner (which must be in action)."""
        self.gnomes = [[], []]
        self.occupant = {}
        self.dropped = {}
        for player in (0, 1):
            kinds = [_kind(entry[0]) for entry in armies[player]]
            for special in (FAST, HEAVY, RANGED):
                if kinds.count(special) > 1:
                    raise ValueError(f"player {player}: more than one {KINDS[special]} gnome")
            if self.scenario == "wizard_war" and RANGED not in kinds:
                raise ValueError(f"player {player}: wizard_war needs a wizard (a ranged gnome)")
            for number, entry in enumerate(armies[player]):
                gnome = Gnome(player, number, kinds[number])
                self.gnomes[player].append(gnome)
                if entry[1] is not None:
                    self.put(player, number, entry[1])
        carriers = dict(carriers or {})
        dropped = dict(dropped or {})
        if not self.flags_in_play and (carriers or dropped):
            raise ValueError("flags are only in play in capture_the_flag")
        if self.flags_in_play:
            for flag in (0, 1):
                if flag in dropped:
                    self.drop_flag(flag, dropped[flag])
                else:
                    self.give_flag(flag, *carriers.get(flag, (flag, 0)))
        self.to_move = to_move
        self.over = False
        self.winner = None
        self.draw = False
        self.timeout = False
        self.n_turns = 0
        self.lost = [[0] * len(KINDS) for _ in range(2)]
        self.out_by = [[0, 0, 0] for _ in range(2)]
        self.throws = [0, 0]
        self.hits = [0, 0]
        self.phase = None
        self.moving = None
        self.came_back = []

    def gnome(self, player, number):
        return self.gnomes[player][number]

    def put(self, player, number, cell):
        """Constructed positions: gnome (player, number) stands on ``cell`` (in action)."""
        gnome = self.gnomes[player][number]
        if not self.yard.inside(cell):
            raise ValueError(f"{cell} is outside the yard")
        if self.occupant.get(cell, gnome) is not gnome:
            raise ValueError(f"{cell} is taken")
        if gnome.cell is not None:
            del self.occupant[gnome.cell]
        gnome.cell = cell
        self.occupant[cell] = gnome

    def put_out(self, player, number):
        """Constructed positions: the gnome is out of action (no counter
        changes; a carried flag is dropped on its cell, as by ``take_out``)."""
        gnome = self.gnomes[player][number]
        if gnome.cell is not None:
            cell = gnome.cell
            del self.occupant[cell]
            gnome.cell = None
            if gnome.flag is not None:
                self._drop(gnome.flag, cell)
                gnome.flag = None

    def _release_flag(self, flag):
        self.dropped.pop(flag, None)
        for gnome in self.gnomes[0] + self.gnomes[1]:
            if gnome.flag == flag:
                gnome.flag = None

    def give_flag(self, flag, player, number):
        """Constructed positions: gnome (player, number), in action and without a
        flag, carries ``flag`` (taken from wherever it was)."""
        gnome = self.gnomes[player][number]
        if not gnome.in_action:
            raise ValueError("a gnome out of action carries no flag")
        if gnome.flag not in (None, flag):
            raise ValueError("a gnome carries only one flag")
        self._release_flag(flag)
        gnome.flag = flag

    def drop_flag(self, flag, cell):
        """Constructed positions: ``flag`` lies on ``cell``."""
        if not self.yard.inside(cell):
            raise ValueError(f"{cell} is outside the yard")
        self._release_flag(flag)
        self.dropped[flag] = cell

    # --- queries -------------------------------------------------------------------

    def ranged_gnome(self, player):
        """The player's ranged gnome (the wizard in ``wizard_war``), or None."""
        for gnome in self.gnomes[player]:
            if gnome.kind == RANGED:
                return gnome
        return None

    def is_wizard(self, gnome):
        return self.scenario == "wizard_war" and gnome.kind == RANGED

    def allowance(self, a, b, kind=FOOT):
        """The movement allowance of the line a -> b: its smallest pace number,
        +2 for fast cavalry."""
        return self.yard.line_pace(a, b) + (FAST_BONUS if _kind(kind) == FAST else 0)

    def reachable(self, player, number):
        """The free cells the gnome may move to, row-major (deep water included:
        moving there is legal, it just drowns)."""
        gnome = self.gnomes[player][number]
        if not gnome.in_action:
            raise ValueError("a gnome out of action does not move")
        bonus = FAST_BONUS if gnome.kind == FAST else 0
        occupant = self.occupant
        return [cell for cell in self.yard.candidates[bonus][gnome.cell] if cell not in occupant]

    def hit_probability(self, a, b):
        """A throw from ``a`` at ``b`` hits with ``hit_p0 * exp(-d / hit_scale)``."""
        return self.hit_p0 * math.exp(-distance(a, b) / self.hit_scale)

    def throw_targets(self, player):
        """The enemy gnomes the player's ranged gnome may throw at, in gnome
        order: in action, within ``max_range``, not immune (the wizard)."""
        shooter = self.ranged_gnome(player)
        if shooter is None or not shooter.in_action:
            return []
        return [g for g in self.gnomes[1 - player]
                if g.in_action and not self.is_wizard(g)
                and squared_distance(shooter.cell, g.cell) <= self.max_range * self.max_range
                and (not self.line_of_sight or self.in_sight(shooter.cell, g.cell))]

    def in_sight(self, a, b):
        """No gnome stands on the line a -> b between its end cells (the ball
        would bounce off it)."""
        return not any(cell in self.occupant for cell in bresenham(a, b)[1:-1])

    def goal_cells(self, gnome):
        """The cells the greedy policy moves ``gnome`` toward (possibly none)."""
        player = gnome.player
        enemies = [g for g in self.gnomes[1 - player] if g.in_action]
        enemy_cells = [g.cell for g in enemies]
        if gnome.flag is not None:    # capture_the_flag: a carrier, of any kind, heads home
            home = self.yard.edge_rows[player]
            return [(home, c) for c in range(self.yard.width)]
        if gnome.kind == RANGED or self.scenario == "last_man_standing":
            return enemy_cells        # the ranged gnome keeps the enemy in range
        if self.scenario == "wizard_war":
            wizard = self.ranged_gnome(1 - player)
            return [wizard.cell] if wizard.in_action else enemy_cells
        # capture_the_flag
        flags = list(self.dropped.values()) + [g.cell for g in enemies if g.flag is not None]
        return flags or enemy_cells

    def fights(self):
        """The fights: groups of gnomes in action linked by enemy contacts
        (cheb 1), each a list of gnomes player 0's first, in gnome order; the
        fights ordered by their lowest cell (row-major = cell index)."""
        side0 = [g for g in self.gnomes[0] if g.in_action]
        side1 = [g for g in self.gnomes[1] if g.in_action]
        links = {g: [] for g in side0 + side1}
        for a in side0:
            for b in side1:
                if cheb(a.cell, b.cell) <= 1:
                    links[a].append(b)
                    links[b].append(a)
        fights = []
        seen = set()
        for start in side0:                   # every fight has a gnome of player 0
            if start in seen or not links[start]:
                continue
            group = []
            todo = [start]
            seen.add(start)
            while todo:
                gnome = todo.pop()
                group.append(gnome)
                for other in links[gnome]:
                    if other not in seen:
                        seen.add(other)
                        todo.append(other)
            group.sort(key=lambda g: (g.player, g.number))
            fights.append(group)
        fights.sort(key=lambda group: min(g.cell for g in group))
        return fights

    # --- taking out -------------------------------------------------------------------

    def take_out(self, gnome, cause):
        """The gnome is out of action (counted by type and cause); a flag it
        still carries is dropped on its cell."""
        cell = gnome.cell
        del self.occupant[cell]
        gnome.cell = None
        self.lost[gnome.player][gnome.kind] += 1
        self.out_by[gnome.player][cause] += 1
        if gnome.flag is not None:
            self._drop(gnome.flag, cell)
            gnome.flag = None

    def _drop(self, flag, cell):
        """``flag`` falls on ``cell``. On deep water it washes up on the shore
        (``Yard.shore``); a gnome without a flag standing there, of either
        side, picks it up at once."""
        if self.yard.is_deep(cell):
            cell = self.yard.shore(cell)
            finder = self.occupant.get(cell)
            if finder is not None and finder.flag is None:
                finder.flag = flag
                return
        self.dropped[flag] = cell

    # --- the steps of a turn -------------------------------------------------------------

    def ranged_attack(self, target):
        """The player to move throws at enemy gnome ``target`` (None: no throw).
        Returns True for a hit, False for a miss, None for no throw."""
        if target is None:
            return None
        player = self.to_move
        victim = self.gnomes[1 - player][target]
        if victim not in self.throw_targets(player):
            raise ValueError(f"gnome {target} is not a target")
        shooter = self.ranged_gnome(player)
        self.throws[player] += 1
        if self.dice.uniform() < self.hit_probability(shooter.cell, victim.cell):
            self.hits[player] += 1
            self.take_out(victim, BY_RANGED)      # a carried flag drops on its cell
            return True
        return False

    def return_gnomes(self):
        """``wizard_war`` and ``capture_the_flag``: the player to move's gnomes
        out of action (never the wizard) come back in gnome order, each to the
        free cell of its edge row that is not deep water nearest the middle of
        the row (the lower column on a tie), if there is one. Returns the
        numbers of those that came back (they do not move this turn)."""
        if not self.gnomes_return:
            return []
        player = self.to_move
        row = self.yard.edge_rows[player]
        back = []
        for gnome in self.gnomes[player]:
            if gnome.in_action or self.is_wizard(gnome):
                continue
            free = [(row, c) for c in range(self.yard.width)
                    if (row, c) not in self.occupant and not self.yard.is_deep((row, c))]
            if not free:
                continue                          # stays out until a later turn
            middle = (self.yard.width - 1) / 2
            cell = min(free, key=lambda cell: (abs(cell[1] - middle), cell[1]))
            gnome.cell = cell
            self.occupant[cell] = gnome
            back.append(gnome.number)
        return back

    def move(self, number, cell):
        """Gnome ``number`` of the player to move goes to ``cell`` (reachable),
        or stays (``cell`` None or its own cell). Ending on deep water drowns it."""
        gnome = self.gnomes[self.to_move][number]
        if cell is None or cell == gnome.cell:
            return
        if cell not in self.reachable(gnome.player, number):
            raise ValueError(f"{cell} is not reachable for gnome {number}")
        del self.occupant[gnome.cell]
        gnome.cell = cell
        self.occupant[cell] = gnome
        if self.yard.is_deep(cell):
            self.take_out(gnome, BY_DROWNING)     # a carried flag drops there

    def pick_up_flags(self):
        """``capture_the_flag``, after all moves: each gnome of the player to move
        on a dropped flag that carries none picks it up (the lower flag first)."""
        if not self.flags_in_play:
            return
        for gnome in self.gnomes[self.to_move]:
            if not gnome.in_action or gnome.flag is not None:
                continue
            here = [flag for flag, cell in self.dropped.items() if cell == gnome.cell]
            if here:
                flag = min(here)
                del self.dropped[flag]
                gnome.flag = flag

    def draw_best_card(self, n_gnomes):
        """A fresh deck shuffled on stream DECK; the best of ``n_gnomes`` cards
        (at most 16) from the top, which is the end of the list."""
        deck = list(DECK_RANKS)
        self.deck_rng.shuffle(deck)
        drawn = deck[DECK_SIZE - min(n_gnomes, DECK_SIZE):]
        return max(self.ace_value if rank == 1 else rank for rank in drawn)

    def melee(self):
        """Every fight in turn: both sides draw, the lower best card loses, heavy
        cavalry wins ties (both heavy: both out; neither: nothing happens)."""
        for fight in self.fights():
            sides = [[g for g in fight if g.player == 0], [g for g in fight if g.player == 1]]
            best = [self.draw_best_card(len(sides[0])), self.draw_best_card(len(sides[1]))]
            if best[0] != best[1]:
                winner = 0 if best[0] > best[1] else 1
            else:
                heavy = [any(g.kind == HEAVY for g in side) for side in sides]
                if heavy[0] and heavy[1]:
                    for gnome in sides[0] + sides[1]:   # both wiped out: flags drop
                        self.take_out(gnome, BY_MELEE)
                    continue
                if not heavy[0] and not heavy[1]:
                    continue
                winner = 0 if heavy[0] else 1
            for loser in sides[1 - winner]:
                if loser.flag is not None:
                    # The flag goes to the lowest winning gnome without one (else drops).
                    for taker in sides[winner]:
                        if taker.flag is None:
                            taker.flag, loser.flag = loser.flag, None
                            break
                self.take_out(loser, BY_MELEE)

    def check_win(self):
        """The scenario's win check; ends the game (winner or draw) if met."""
        player = self.to_move
        if self.scenario == "last_man_standing":
            alive = [any(g.in_action for g in self.gnomes[p]) for p in (0, 1)]
            if not alive[0] and not alive[1]:
                self._end(None)
            elif not alive[1 - player]:
                self._end(player)
            elif not alive[player]:
                self._end(1 - player)
        elif self.scenario == "wizard_war":
            out = [not self.ranged_gnome(p).in_action for p in (0, 1)]
            if out[0] and out[1]:
                self._end(None)
            elif out[1 - player]:
                self._end(player)
            elif out[player]:
                self._end(1 - player)
        else:
            for p in (player, 1 - player):
                if self.holds_both_flags_home(p):
                    self._end(p)
                    break
        return self.over

    def holds_both_flags_home(self, player):
        """Two of the player's gnomes in action carry the two flags, both on its edge row."""
        home = self.yard.edge_rows[player]
        carriers = [g for g in self.gnomes[player] if g.in_action and g.flag is not None]
        return len(carriers) == 2 and all(g.cell[0] == home for g in carriers)

    def _end(self, winner):
        self.over = True
        self.winner = winner
        self.draw = winner is None

    def end_turn(self):
        """The turn counts; the other player moves; ``max_turns`` turns without a
        winner is a timeout."""
        self.n_turns += 1
        self.to_move = 1 - self.to_move
        self._check_timeout()

    def _check_timeout(self):
        if not self.over and self.n_turns >= self.max_turns:
            self.over = True
            self.timeout = True

    # --- the decision interface -------------------------------------------------------
    # docs/skirmish.md, "Decisions, information and resampling": a turn is the
    # throw's target (when there is one), then each gnome's move in gnome order.

    def start_turn(self):
        """From the start of the turn of ``to_move`` up to its first decision; a turn
        without one is played through, and the next, until a decision or the end."""
        while not self.over:
            if self.throw_targets(self.to_move):
                self.phase = THROWING
                return
            # Without a throw nothing changed since the last win check: the movement follows.
            if self._start_movement():
                return
            self._close_turn()
        self.phase = None

    def _start_movement(self):
        """The returns, then the first gnome to move is the pending decision (True);
        with none, the movement phase ends at once."""
        self.came_back = self.return_gnomes()
        return self._next_mover(0)

    def _next_mover(self, number):
        """The first gnome from ``number`` on that moves this turn (in action, not
        just come back) is the pending decision (True). With none left the
        movement phase ends: the flags are picked up."""
        for gnome in self.gnomes[self.to_move][number:]:
            if gnome.in_action and gnome.number not in self.came_back:
                self.phase = MOVING
                self.moving = gnome.number
                return True
        self.pick_up_flags()
        return False

    def _close_turn(self):
        """After the movement: its win check, the melee and its win check; the turn counts."""
        if not self.check_win():
            self.melee()
            self.check_win()
        self.end_turn()

    def current_player(self):
        """The player to decide, or -1 when the game is won, drawn or timed out."""
        return -1 if self.over else self.to_move

    def cell_action(self, cell):
        """The action code of moving to ``cell``: its cell index."""
        return cell[0] * self.yard.width + cell[1]

    def legal_actions(self):
        """The throw: its targets in gnome order. A move: stay, then the
        reachable cells row-major."""
        if self.phase == THROWING:
            return [THROW + gnome.number for gnome in self.throw_targets(self.to_move)]
        return [STAY] + [self.cell_action(cell) for cell in self.reachable(self.to_move, self.moving)]

    def apply_action(self, action):
        """Carry out the pending decision (``ranged_attack`` and ``move`` refuse an
        illegal one), then the rules up to the next one."""
        if self.phase == THROWING:
            self.ranged_attack(action - THROW)
            if self.check_win():
                self.end_turn()             # the turn counts; the game is over
            elif self._start_movement():
                return
            else:
                self._close_turn()
        else:
            self.move(self.moving, None if action == STAY else divmod(action, self.yard.width))
            if self._next_mover(self.moving + 1):
                return
            self._close_turn()
        self.start_turn()

    def returns(self):
        """1 to the winner, 0 to the loser; 0 to both after a draw or a timeout."""
        return [1.0 if self.winner == player else 0.0 for player in (0, 1)]

    def resample(self, seat, streams):
        """Nothing to redraw: both players see the whole yard, and the chance still
        to come (hits, melee decks) is drawn when it happens."""

    def step(self):
        """The policy of the player to move makes one decision."""
        self.apply_action(self.policies[self.to_move].act(self))

    def play_out(self):
        while (player := self.current_player()) >= 0:
            self.apply_action(self.policies[player].act(self))
        return self.result()

    # --- results -------------------------------------------------------------------

    def result(self):
        wizard_war = self.scenario == "wizard_war"
        return {
            "winner": self.winner,
            "draw": int(self.draw),
            "timeout": int(self.timeout),
            "first": self.first,
            "n_turns": self.n_turns,
            "in_action": [sum(1 for g in self.gnomes[p] if g.in_action) for p in (0, 1)],
            "wizard_out": [int(wizard_war and not self.ranged_gnome(p).in_action) for p in (0, 1)],
            "flags": [sum(1 for g in self.gnomes[p] if g.in_action and g.flag is not None) for p in (0, 1)],
            "lost": [list(row) for row in self.lost],
            "out_by": [list(row) for row in self.out_by],
            "throws": list(self.throws),
            "hits": list(self.hits),
        }


def begin(params, seed, game_index):
    """Game ``game_index`` of the run with ``seed`` at its first decision, to be
    driven through the decision interface (no policies)."""
    return Game(params, None, seed, game_index)


def play(params, policies, seed, game_index):
    """Play game ``game_index`` of the run with ``seed``; its result dict."""
    return Game(params, policies, seed, game_index).play_out()


def run(params, policies, seed, n_games, start=0):
    """``play`` for game indices ``start .. start + n_games - 1``."""
    return [play(params, policies, seed, i) for i in range(start, start + n_games)]


if __name__ == "__main__":   # a quick speed check: python -m benchmarks.reference.skirmish
    import time

    for scenario in SCENARIOS:
        for pair in (["random", "random"], ["greedy", "greedy"]):
            t0 = time.perf_counter()
            games = run({"scenario": scenario}, pair, seed=1, n_games=200)
            dt = time.perf_counter() - t0
            print(f"{scenario} {' vs '.join(pair)}: {len(games) / dt:.0f} games/s")
