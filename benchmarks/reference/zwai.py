"""Zwai (a fish shoal and two sharks) in plain Python: the reference implementation.

This module plays the game exactly as ``docs/zwai.md`` fixes it, written the
way one would write the game without simcore: lists, dicts, sets and a small
``Game`` class, no numpy, no numba. It serves two purposes:

* an independent check of the rules: for the same ``(params, policies, seed,
  game_index)`` it must play the very same game, draw for draw, as the jitted
  ``simcore/games/zwai/``;
* the speed baseline the jitted code is measured against.

Randomness comes only from :class:`simcore.engine.rng.Stream`: one stream ``DECK``
per game for every pile shuffle, stream ``POLICY + seat`` for each seat's
policy.

Entry points
------------
``play(params, policies, seed, game_index) -> dict`` plays one match and
returns its result; ``run(params, policies, seed, n_games, start=0)`` plays
game indices ``start .. start + n_games - 1``. ``Game`` can be driven step by
step (see its docstring) to test single rules on a constructed position.

The decision interface (docs/zwai.md, "Decisions, information and
resampling"), the same as the jitted game's, in plain Python:
``begin(params, seed, game_index)`` is game ``game_index`` of the run with
``seed`` at its first decision; then ``game.current_player()`` (-1 when the
game is over), ``game.legal_actions()`` (a list of action codes, a card once
per copy in hand), ``game.apply_action(action)``, ``game.returns()`` and
``game.resample(seat, streams)`` (``streams``: a family of streams as made by
``stream_family``; resample draws from its stream ``DECK``). ``play`` itself
plays through this interface: ``random`` draws uniformly over the legal list,
``greedy`` picks card and cell together and plays the kept cell next (a
card it did not choose gets a cell planned afresh).

State
-----
Cells are ``(row, col)`` tuples on the 15 x 15 table grid (rows and columns
0..14); sorting cells sorts them row-major. Seat ``s`` plays colour ``s``.

* ``formation``: a frozenset of formation cells ``(fr, fc)``, (0, 0) the
  top-left of its bounding box (``formation_height`` x ``formation_width``).
* ``hands[seat]``: a list of counts, ``hands[seat][v]`` = cards showing ``v``
  fish in that hand (a hand only ever holds its owner's colour;
  ``sorted_hand(seat)`` lists it fish ascending).
* ``piles[seat]``: that seat's draw pile as a list of fish values, the
  **top is the end** of the list, the bottom its start.
* ``shoal``: a dict ``cell -> (owner, fish)``, the cards on the table.
* ``row_totals``, ``col_totals``: fish on the shoal per grid row / column
  (15 each, any colour).
* ``row_shark``, ``col_shark``: the marked grid row / column, ``None`` before
  the round's first card.
* ``translations``: the feasible offsets ``(dr, dc)`` (the formation placed
  on the cells ``(fr + dr, fc + dc)`` covers every card of the shoal); ``None``
  before the round's first card, when every offset is still open.
* ``frontier``: the empty cells orthogonally adjacent to a card of the shoal.
* ``scoring_pile``: the ``(owner, fish)`` cards scored, in the order scored;
  ``score[seat]`` / ``cards[seat]`` sum the seat's own colour in it.
* ``eaten``: the ``(owner, fish)`` cards the sharks removed that wait to go
  back under their owner's pile (``removed_cards = "return"``; after the last
  round they stay here); ``discarded``: those that left the game
  (``removed_cards = "discard"``).
* ``pile_parts[seat]``: how many cards the seat put under its pile at each
  round end so far, oldest first (what it knows of its own pile, for
  ``resample``).
* ``seat`` (to move), ``round_starter``, ``last_placer``
  (the last seat that placed a card this round, or ``None``), ``over``,
  ``timeout`` and the counters ``n_turns``, ``n_rounds``, ``skips``,
  ``removed`` (cards removed at each round's end).
* ``chosen_card``: during a move's second decision (the cell), the fish value
  of the card chosen at the first; ``None`` while a card is to be chosen.
"""

from simcore.engine.rng import DECK, N_STREAMS, POLICY, Stream

# --- pieces --------------------------------------------------------------------

GRID = 15                 # the table: rows and columns 0..14
CENTRE = (7, 7)           # where every round's first card goes
MAX_FORMATION = 8         # a formation fits in 8 x 8, so every cell stays on the grid
N_REMOVED_COLUMNS = 5     # the result reports the removals of rounds 1..5
CELL_ACTIONS = 10         # action code of cell (r, c): CELL_ACTIONS + r * GRID + c; a card's code is its fish

DEFAULT_PARAMS = {
    "players": 2,
    "first_seat": 0,
    "round_starter": "next",
    "max_turns": 1000,
    "rounds": 3,
    "hand_size_2": 11,
    "hand_size_3": 8,
    "hand_size_4": 7,
    "fish_counts": [3, 6, 6, 5, 3],
    "formation": "####\n####\n####\n####",
    "shark_moves_on_tie": False,
    "removed_cards": "return",
}

NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def parse_formation(text):
    """The formation cells of ASCII art (``#`` cell, ``.`` empty), trimmed.

    Whitespace around the art and at both ends of every line is ignored (it
    may be indented in a config file); a blank line is an empty row. The cells
    are shifted so that the bounding box starts at (0, 0). Returns
    ``(cells, height, width)``; raises ``ValueError`` for anything but a
    non-empty, orthogonally connected shape of at most 8 x 8.
    """
    cells = set()
    for r, line in enumerate(text.strip().splitlines()):
        for c, ch in enumerate(line.strip()):
            if ch == "#":
                cells.add((r, c))
            elif ch != ".":
                raise ValueError(f"formation: unexpected character {ch!r} "
                                 "(only '#' for a cell and '.' for empty)")
    if not cells:
        raise ValueError("formation: no '#' cell")
    top = min(r for r, _ in cells)
    left = min(c for _, c in cells)
    cells = {(r - top, c - left) for r, c in cells}
    height = 1 + max(r for r, _ in cells)
    width = 1 + max(c for _, c in cells)
    if height > MAX_FORMATION or width > MAX_FORMATION:
        raise ValueError(f"formation: {height} x {width} is larger than 8 x 8")
    # Connected: a flood fill from one cell reaches them all.
    start = next(iter(cells))
    seen = {start}
    todo = [start]
    while todo:
        r, c = todo.pop()
        for dr, dc in NEIGHBOURS:
            cell = (r + dr, c + dc)
            if cell in cells and cell not in seen:
                seen.add(cell)
                todo.append(cell)
    if len(seen) != len(cells):
        raise ValueError("formation: the cells are not orthogonally connected")
    return frozenset(cells), height, width


# --- policies ------------------------------------------------------------------

class RandomPolicy:
    """A uniform card of the sorted hand, then a uniform legal cell: one draw
    over the legal actions at each of the two decisions (also for one)."""

    def __init__(self, rng):
        self.rng = rng

    def act(self, game):
        actions = game.legal_actions()
        return actions[self.rng.randint(len(actions))]


class GreedyPolicy:
    """The placement that would score most if the round ended right after it.

    It picks card and cell together at the card decision and plays the kept
    cell at the cell decision that follows, without drawing again. A card it
    did not choose here (a search's, or a plan made in another game) gets
    the best cell for that card, drawn among the tied ones."""

    def __init__(self, rng):
        self.rng = rng
        self.plan = None        # ((card, placement, stream state after the draw), cell) of the card decision

    def act(self, game):
        if game.chosen_card is None:
            fish, cell = self.choose(game)
            self.plan = (fish, game.n_turns, self.rng.state), cell
            return fish
        if self.plan is not None:
            made_for, cell = self.plan
            # laying a card draws nothing: the stream still stands where the card's draw left it
            if made_for == (game.chosen_card, game.n_turns, self.rng.state) and game.is_legal(cell):
                return cell_action(cell)
        return cell_action(self.choose(game, [game.chosen_card])[1])

    def choose(self, game, fishes=None):
        """The whole placement ``(fish, cell)``, the fish among ``fishes`` (default: the hand's values)."""
        seat = game.seat
        cells = game.legal_cells()
        # The mover's fish already in the shoal: in all, per row, per column.
        own_total = 0
        own_row = [0] * GRID
        own_col = [0] * GRID
        for (r, c), (owner, fish) in game.shoal.items():
            if owner == seat:
                own_total += fish
                own_row[r] += fish
                own_col[c] += fish

        candidates = []
        scores = []
        if fishes is None:
            fishes = [fish for fish, held in enumerate(game.hands[seat]) if held]   # distinct values, ascending
        for fish in fishes:
            for cell in cells:                   # row-major
                r, c = cell
                shark_r, shark_c = game.sharks_after(cell, fish)
                # Own fish outside the marked row and column, the new card included
                # (inclusion-exclusion: the card on both lines is subtracted twice).
                on_row = own_row[shark_r] + (fish if r == shark_r else 0)
                on_col = own_col[shark_c] + (fish if c == shark_c else 0)
                if (shark_r, shark_c) == cell:
                    on_both = fish
                else:
                    owner, both_fish = game.shoal.get((shark_r, shark_c), (None, 0))
                    on_both = both_fish if owner == seat else 0
                candidates.append((fish, cell))
                scores.append(own_total + fish - on_row - on_col + on_both)

        best = max(scores)
        tied = [cand for cand, s in zip(candidates, scores, strict=True) if s == best]
        return tied[self.rng.randint(len(tied))]     # drawn even for one


POLICIES = {"random": RandomPolicy, "greedy": GreedyPolicy}


# --- action codes -----------------------------------------------------------------

def cell_action(cell):
    """The action code of placing the chosen card on ``cell``."""
    r, c = cell
    return CELL_ACTIONS + r * GRID + c


def action_cell(action):
    """The cell of a cell action code."""
    return divmod(action - CELL_ACTIONS, GRID)


def stream_family(seed, game_index):
    """The streams of game ``game_index`` of the run with ``seed``, indexed by
    stream number (``DECK``, ``POLICY + seat`` ...): what ``resample`` takes."""
    return [Stream(seed, game_index, k) for k in range(N_STREAMS)]


# --- the game ------------------------------------------------------------------

def _complete(params):
    """``params`` over the defaults."""
    return {**DEFAULT_PARAMS, **params}


class Game:
    """One match of Zwai.

    ``Game(params, policies, seed, game_index)`` shuffles the piles, deals and
    starts round 1, at its first decision (``policies`` may be ``None`` for a
    game driven through the decision interface only). Then either
    ``play_out()`` plays to the end and returns the result, or the decision
    interface drives it (``current_player()``, ``legal_actions()``,
    ``apply_action(action)``, ``returns()``, ``resample(seat, streams)``; see
    the module docstring), or a test drives it:

    * inspect ``hands``, ``piles``, ``shoal``, ``row_totals``, ``col_totals``,
      ``row_shark``, ``col_shark``, ``translations`` (or the sorted
      ``feasible_translations()``), ``scoring_pile``, ``score``, ``cards``,
      ``eaten``, ``discarded``, ``pile_parts``, ``seat``, ``chosen_card``
      (see the module docstring);
    * set up a position: ``set_hand(seat, fish_values)``,
      ``set_pile(seat, fish_values)`` (bottom first), ``clear_shoal()``,
      ``add_card(cell, owner, fish)`` (one card under the placement and shark
      rules, nothing else: no hand, no turn), ``set_shoal(cards, row_shark,
      col_shark)`` (a whole shoal at once), or assign ``seat``,
      ``last_placer`` directly. Conservation of cards is the caller's
      business;
    * ``legal_cells()`` lists the legal cells row-major (``is_legal(cell)``
      checks one), ``sharks_after(cell, fish)`` says where the sharks would
      stand after a placement;
    * ``place(fish, cell)`` plays one turn of the seat to move (the card
      leaves its hand; sharks, turn count, round end, next seat, timeout,
      but not the steps after it: see ``advance``); ``end_round()`` applies
      a round end now; ``advance()`` runs the rules up to the next decision
      (a round end when no seat holds a card, skips of empty hands);
      ``step()`` lets the policy of the seat to decide make one decision;
      ``result()`` is the result dict.
    """

    def __init__(self, params, policies, seed, game_index):
        p = self.params = _complete(params)
        self.players = p["players"]
        self._validate(policies)
        self.hand_size = p[f"hand_size_{self.players}"]
        self.max_turns = p["max_turns"]
        self.rounds = p["rounds"]
        self.fish_counts = list(p["fish_counts"])
        self.n_values = len(self.fish_counts)
        self.ties_move_sharks = bool(p["shark_moves_on_tie"])
        self.return_removed = p["removed_cards"] == "return"
        self.rotate_starter = p["round_starter"] == "rotate"
        self.formation, self.formation_height, self.formation_width = \
            parse_formation(p["formation"])

        self.deck_rng = Stream(seed, game_index, DECK)
        self.policies = None if policies is None else [
            POLICIES[name](Stream(seed, game_index, POLICY + seat)) for seat, name in enumerate(policies)]

        # Each seat's set in canonical order (fish ascending), shuffled, is its
        # pile; all shuffles of a game share the one DECK stream, seat by seat.
        self.piles = []
        for _ in range(self.players):
            pile = [v for v in range(self.n_values) for _ in range(self.fish_counts[v])]
            self.deck_rng.shuffle(pile)
            self.piles.append(pile)
        self.hands = [[0] * self.n_values for _ in range(self.players)]
        for seat in range(self.players):
            self.draw(seat, self.hand_size)
        self.pile_parts = [[] for _ in range(self.players)]

        self.scoring_pile = []
        self.score = [0] * self.players
        self.cards = [0] * self.players
        self.eaten = []
        self.discarded = []
        self.removed = []
        self.over = False
        self.timeout = False
        self.n_turns = 0
        self.n_rounds = 0
        self.skips = 0
        self.chosen_card = None
        self.start_round(p["first_seat"])
        self._check_timeout()
        self.advance()

    def _validate(self, policies):
        p = self.params
        if self.players not in (2, 3, 4):
            raise ValueError("players must be 2, 3 or 4")
        if policies is None:
            policies = []
        elif len(policies) != self.players:
            raise ValueError("one policy per seat")
        for name in policies:
            if name not in POLICIES:
                raise ValueError(f"unknown policy {name!r}")
        if not 0 <= p["first_seat"] < self.players:
            raise ValueError("first_seat out of range")
        if p["rounds"] < 1:
            raise ValueError("rounds must be >= 1")
        if p[f"hand_size_{self.players}"] < 0:
            raise ValueError("hand sizes must be >= 0")
        if not p["fish_counts"] or min(p["fish_counts"]) < 0:
            raise ValueError("fish_counts must be a non-empty list of counts >= 0")
        if p["removed_cards"] not in ("return", "discard"):
            raise ValueError('removed_cards must be "return" or "discard"')
        if p["round_starter"] not in ("next", "rotate"):
            raise ValueError('round_starter must be "next" or "rotate"')

    # --- cards -----------------------------------------------------------------

    def sorted_hand(self, seat):
        """The hand as a list of fish values, ascending."""
        hand = self.hands[seat]
        return [v for v in range(self.n_values) for _ in range(hand[v])]

    def set_hand(self, seat, fish_values):
        """Constructed positions: ``seat`` holds exactly these cards."""
        hand = [0] * self.n_values
        for v in fish_values:
            hand[v] += 1
        self.hands[seat] = hand

    def set_pile(self, seat, fish_values):
        """Constructed positions: ``seat``'s pile, bottom card first."""
        self.piles[seat] = list(fish_values)

    def draw(self, seat, n):
        """``seat`` draws ``n`` cards one at a time from the top of its own pile
        (fewer if the pile runs out)."""
        pile = self.piles[seat]
        hand = self.hands[seat]
        for _ in range(min(n, len(pile))):
            hand[pile.pop()] += 1

    # --- the shoal -------------------------------------------------------------

    def clear_shoal(self):
        """An empty shoal: no card, no shark, every translation still open."""
        self.shoal = {}
        self.row_totals = [0] * GRID
        self.col_totals = [0] * GRID
        self.row_shark = None
        self.col_shark = None
        self.translations = None
        self.frontier = set()

    def shoal_complete(self):
        return len(self.shoal) == len(self.formation)

    def covers(self, offset, cell):
        """Does the formation placed at ``offset`` cover ``cell``?"""
        return (cell[0] - offset[0], cell[1] - offset[1]) in self.formation

    def feasible_translations(self):
        """The feasible offsets, sorted; ``None`` before the round's first card."""
        return None if self.translations is None else sorted(self.translations)

    def is_legal(self, cell):
        """May the next card go on ``cell``?

        The first card only on the centre; every later one on an empty cell
        next to the shoal (the frontier) that some feasible translation of the
        formation covers, so the shoal can still be completed."""
        if not self.shoal:
            return cell == CENTRE
        if cell not in self.frontier:
            return False
        r, c = cell
        formation = self.formation
        return any((r - dr, c - dc) in formation for dr, dc in self.translations)

    def legal_cells(self):
        """The legal cells, row-major."""
        if not self.shoal:
            return [CENTRE]
        return sorted(cell for cell in self.frontier if self.is_legal(cell))

    def _beats(self, total, marked_total):
        """Does a line with ``total`` fish take the shark from the marked line?"""
        if self.ties_move_sharks:
            return total >= marked_total
        return total > marked_total

    def sharks_after(self, cell, fish):
        """``(row, column)`` the sharks would mark after a card with ``fish`` on
        ``cell``. The first card of a round draws both sharks to its lines;
        after that each shark moves on its own, to the new card's line only."""
        r, c = cell
        if not self.shoal:
            return r, c
        row, col = self.row_shark, self.col_shark
        if r != row and self._beats(self.row_totals[r] + fish, self.row_totals[row]):
            row = r
        if c != col and self._beats(self.col_totals[c] + fish, self.col_totals[col]):
            col = c
        return row, col

    def add_card(self, cell, owner, fish):
        """Put one card on the shoal under the placement rules: the cell must be
        legal; the feasible translations narrow, the sharks move. Nothing else
        (hands, turns, round end) happens here."""
        if not self.is_legal(cell):
            raise ValueError(f"cell {cell} is not legal")
        self.row_shark, self.col_shark = self.sharks_after(cell, fish)
        r, c = cell
        if self.translations is None:
            # The first card may be any cell of the formation.
            self.translations = {(r - fr, c - fc) for fr, fc in self.formation}
        else:
            self.translations = {t for t in self.translations if self.covers(t, cell)}
        self.shoal[cell] = (owner, fish)
        self.row_totals[r] += fish
        self.col_totals[c] += fish
        self.frontier.discard(cell)
        for dr, dc in NEIGHBOURS:
            neighbour = (r + dr, c + dc)
            if neighbour not in self.shoal:
                self.frontier.add(neighbour)

    def set_shoal(self, cards, row_shark=None, col_shark=None):
        """Constructed positions: replace the shoal by ``cards`` (a dict ``cell ->
        (owner, fish)``) in one go, whatever order it was laid in. The feasible
        translations are those covering every card (``ValueError`` if none);
        the sharks are the given lines, by default the first row / column of
        the largest total."""
        self.clear_shoal()
        if not cards:
            return
        for cell, (_, fish) in cards.items():
            self.row_totals[cell[0]] += fish
            self.col_totals[cell[1]] += fish
        self.shoal = dict(cards)
        any_cell = next(iter(cards))
        self.translations = {(any_cell[0] - fr, any_cell[1] - fc)
                             for fr, fc in self.formation}
        self.translations = {t for t in self.translations
                             if all(self.covers(t, cell) for cell in cards)}
        if not self.translations:
            raise ValueError("no translation of the formation covers these cards")
        for r, c in cards:
            for dr, dc in NEIGHBOURS:
                neighbour = (r + dr, c + dc)
                if neighbour not in self.shoal:
                    self.frontier.add(neighbour)
        if row_shark is None:
            row_shark = self.row_totals.index(max(self.row_totals))
        if col_shark is None:
            col_shark = self.col_totals.index(max(self.col_totals))
        self.row_shark, self.col_shark = row_shark, col_shark

    # --- rounds ----------------------------------------------------------------

    def start_round(self, seat):
        """An empty shoal, ``seat`` to move."""
        self.clear_shoal()
        self.seat = seat
        self.round_starter = seat
        self.last_placer = None

    def end_round(self):
        """The sharks eat, the rest is scored, hands go under the piles, and
        everyone draws again (unless this was the last round)."""
        # The cards on the marked row and column (one on both counts once).
        eaten = [(cell, card) for cell, card in self.shoal.items()
                 if cell[0] == self.row_shark or cell[1] == self.col_shark]
        self.removed.append(len(eaten))
        for cell, card in eaten:
            del self.shoal[cell]
            if self.return_removed:
                self.eaten.append(card)
            else:
                self.discarded.append(card)
        # What the sharks left is scored, for the card's owner.
        for owner, fish in self.shoal.values():
            self.scoring_pile.append((owner, fish))
            self.score[owner] += fish
            self.cards[owner] += 1
        self.clear_shoal()
        self.n_rounds += 1
        if self.n_rounds >= self.rounds:
            self.over = True
            return

        # Removed cards and the rest of the hand, shuffled, go under the pile.
        for seat in range(self.players):
            back = [fish for owner, fish in self.eaten if owner == seat]
            under = sorted(back + self.sorted_hand(seat))
            self.deck_rng.shuffle(under)
            self.piles[seat] = under + self.piles[seat]
            self.pile_parts[seat].append(len(under))
            self.hands[seat] = [0] * self.n_values
        self.eaten = []
        for seat in range(self.players):
            self.draw(seat, self.hand_size)

        # "The new round begins with whoever is next clockwise": after the
        # last round's starter ("rotate"), or after the seat that placed the
        # last card ("next"; nobody placed a card: the same starter).
        if self.rotate_starter:
            self.start_round((self.round_starter + 1) % self.players)
        elif self.last_placer is None:
            self.start_round(self.round_starter)
        else:
            self.start_round((self.last_placer + 1) % self.players)

    def _check_timeout(self):
        if not self.over and self.n_turns >= self.max_turns:
            self.over = True
            self.timeout = True

    # --- turns -----------------------------------------------------------------

    def place(self, fish, cell):
        """The seat to move places a card with ``fish`` on ``cell``: one turn.

        The cell is checked to be legal and the card to be in the hand."""
        if self.hands[self.seat][fish] <= 0:
            raise ValueError(f"no card with {fish} fish in seat {self.seat}'s hand")
        self.hands[self.seat][fish] -= 1
        self._lay(fish, cell)

    def _lay(self, fish, cell):
        """The seat to move lays its card (already out of its hand) on ``cell``."""
        seat = self.seat
        self.add_card(cell, seat, fish)
        self.last_placer = seat
        self.n_turns += 1
        if self.shoal_complete():
            self.end_round()
        else:
            self.seat = (seat + 1) % self.players
        # The turn (and the round end it caused) is complete: then the limit.
        self._check_timeout()

    def advance(self):
        """Run the rules up to the next decision (or the end): a round end
        when no seat holds a card, a skip when the seat to move holds none."""
        while not self.over:
            if not any(any(hand) for hand in self.hands):
                self.end_round()
            elif not any(self.hands[self.seat]):
                self.skips += 1
                self.seat = (self.seat + 1) % self.players
            else:
                return

    # --- the decision interface ------------------------------------------------
    # docs/zwai.md, "Decisions, information and resampling": a move is two
    # decisions of the seat to move, its card (action code = fish value), then
    # the card's cell (action code CELL_ACTIONS + r * GRID + c).

    def current_player(self):
        """The seat to decide, or -1 when the game is over (or timed out)."""
        return -1 if self.over else self.seat

    def legal_actions(self):
        """The card decision: the sorted hand, a card once per copy. The cell
        decision: the legal cells of the chosen card, row-major."""
        if self.chosen_card is None:
            return self.sorted_hand(self.seat)
        return [cell_action(cell) for cell in self.legal_cells()]

    def apply_action(self, action):
        """The card leaves the hand when it is chosen; its cell completes the
        placement, and the rules run on to the next decision."""
        if self.chosen_card is None:
            if self.hands[self.seat][action] <= 0:
                raise ValueError(f"no card with {action} fish in seat {self.seat}'s hand")
            self.hands[self.seat][action] -= 1
            self.chosen_card = action
            return
        fish, self.chosen_card = self.chosen_card, None
        self._lay(fish, action_cell(action))
        self.advance()

    def returns(self):
        """1 to a sole winner, 1/k to each of k seats sharing the win, 0 to the
        others; 0 to everybody after a timeout (and while the game runs)."""
        winners = self.winners() if self.over else []
        return [1 / len(winners) if seat in winners else 0.0 for seat in range(self.players)]

    def resample(self, seat, streams):
        """Replace what ``seat`` cannot see by a random world consistent with
        what it saw, drawing from ``streams[DECK]`` (docs/zwai.md, "Resampling
        for seat s").

        Seat by seat in order 0, 1, ...: ``seat``'s own pile is shuffled within
        each of its parts, the bottom part first; any other seat's pile (bottom
        to top) followed by its sorted hand is shuffled as one list, and the
        end of that list (as many cards as it held) is its hand again, the rest
        its pile."""
        rng = streams[DECK]
        for other in range(self.players):
            if other == seat:
                self._shuffle_pile_parts(seat, rng)
            else:
                held = sum(self.hands[other])
                cards = self.piles[other] + self.sorted_hand(other)
                rng.shuffle(cards)
                self.piles[other] = cards[:len(cards) - held]
                self.set_hand(other, cards[len(cards) - held:])

    def _shuffle_pile_parts(self, seat, rng):
        """Shuffle each part of ``seat``'s pile within itself, bottom part first.

        From the bottom up the pile holds the cards put under it at the last
        round end, then at the one before, ..., and on top what is left of the
        first pile. Drawing takes from the top, so at most one part (the
        topmost one left) has lost cards."""
        pile = self.piles[seat]
        parts = []
        left = len(pile)
        for size in reversed(self.pile_parts[seat]):   # the newest part lies at the bottom
            parts.append(min(size, left))
            left -= parts[-1]
        parts.append(left)                             # the rest of the first pile
        start = 0
        for size in parts:
            part = pile[start:start + size]
            rng.shuffle(part)
            pile[start:start + size] = part
            start += size

    # --- policies ----------------------------------------------------------------

    def step(self):
        """The policy of the seat to decide makes one decision."""
        self.apply_action(self.policies[self.seat].act(self))

    def play_out(self):
        self.advance()          # a constructed position may need it
        while (seat := self.current_player()) >= 0:
            self.apply_action(self.policies[seat].act(self))
        return self.result()

    # --- results ---------------------------------------------------------------

    def winners(self):
        """Most own fish scored, then most own cards; ties share. None on timeout."""
        if self.timeout:
            return []
        best = max(zip(self.score, self.cards, strict=True))
        return [seat for seat in range(self.players)
                if (self.score[seat], self.cards[seat]) == best]

    def result(self):
        removed = (self.removed + [0] * N_REMOVED_COLUMNS)[:N_REMOVED_COLUMNS]
        return {
            "winners": self.winners(),
            "timeout": int(self.timeout),
            "n_turns": self.n_turns,
            "n_rounds": self.n_rounds,
            "skips": self.skips,
            "score": list(self.score),
            "cards": list(self.cards),
            "removed": removed,
        }


def begin(params, seed, game_index):
    """Game ``game_index`` of the run with ``seed`` at its first decision, to
    be driven through the decision interface (no policies)."""
    return Game(params, None, seed, game_index)


def play(params, policies, seed, game_index):
    """Play match ``game_index`` of the run with ``seed``; its result dict."""
    return Game(params, policies, seed, game_index).play_out()


def run(params, policies, seed, n_games, start=0):
    """``play`` for game indices ``start .. start + n_games - 1``."""
    return [play(params, policies, seed, i) for i in range(start, start + n_games)]


if __name__ == "__main__":   # a quick speed check: python -m benchmarks.reference.zwai
    import time

    for pair in (["random", "random"], ["greedy", "greedy"]):
        t0 = time.perf_counter()
        games = run(DEFAULT_PARAMS, pair, seed=1, n_games=1000)
        dt = time.perf_counter() - t0
        print(f"{' vs '.join(pair)}: {len(games) / dt:.0f} games/s")
