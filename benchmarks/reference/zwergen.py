"""Zwergen Ziehen (gnome tug-of-war) in plain Python: the reference implementation.

This module plays the game exactly as ``docs/zwergen.md`` fixes it, written
the way one would write the game without simcore: lists, dicts and a small
``Game`` class, no numpy, no numba. It serves two purposes:

* an independent check of the rules: for the same ``(params, policies, seed,
  game_index)`` it must play the very same game, draw for draw, as the jitted
  ``simcore/games/zwergen/``;
* the speed baseline the jitted code is measured against.

Randomness comes only from :class:`simcore.engine.rng.Stream`: stream ``DECK`` for
the deck shuffles, stream ``POLICY + seat`` for each seat's policy.

Entry points
------------
``play(params, policies, seed, game_index) -> dict`` plays one match and
returns its result; ``run(params, policies, seed, n_games, start=0)`` plays
game indices ``start .. start + n_games - 1``. ``Game`` can be driven step by
step (see its docstring) to test single rules on a constructed position.

The decision interface (docs/zwergen.md, "Decisions, information and
resampling"), the same as the jitted game's, in plain Python:
``begin(params, seed, game_index)`` is match ``game_index`` of the run with
``seed`` at its first decision (the starting seat's colour); then
``game.current_player()`` (-1 when the match is over),
``game.legal_actions()`` (a list of action codes, see "Action codes"
below), ``game.apply_action(action)``, ``game.returns()`` and
``game.resample(seat, streams)`` (``streams``: a family of streams as made by
``stream_family``; resample draws from its stream ``DECK``). ``play`` itself
plays through this interface: ``random`` draws uniformly over the legal list,
``greedy`` keeps its own one-ply choice.

State
-----
* ``hands[seat]``: a list of 22 counts, ``hands[seat][t]`` = copies of card
  type ``t`` in that hand (hands are multisets; ``sorted_hand(seat)`` lists
  one in the canonical order, card types ascending).
* ``draw_pile``: list of card types, the **top is the end** of the list.
* ``discard_pile``: list of card types (its order never matters: it is put in
  canonical order before being reshuffled).
* ``supply[c]``: hats of colour ``c`` not on the board.
* ``teams[TEAM_A]``, ``teams[TEAM_B]``: gnomes per colour (4 counts each).
* ``rope``: the track offset, positive = in team A's favour.
* ``pending``: ``None`` or ``(kind, colour)``, the Pro-rules announcement the
  seat to move may answer: ``(ADD, c)``, ``(CONTRA, c)`` or ``(RE, c)``.
  It always comes from the previous turn, i.e. from the other team.
* ``seat``: the seat to move (while the starting colours are picked: the
  seat that will move first); ``over``, ``winner``, ``timeout``, counters.
* ``decision``: what is to be decided next, ``PICK`` (a starting colour, by
  the seat ``picker``), ``MOVE``, or ``DISCARD`` (the cards of a swap just
  chosen by the seat to move).
* ``picks[seat]``: the seat's starting colour this round (``None`` before it
  picks); ``stock_seen[seat]``: the colours in stock when it picked, a tuple
  (``None`` before).
* ``refill``: per card type, the cards the draw pile held when it was last
  filled (the whole deck at the deal, later the discard pile turned over);
  ``drawn[seat]``: per card type, the cards that seat drew since.

Moves
-----
A move is a ``Move(kind, card, colour)`` named tuple:

* ``kind``: ``ADD``, ``PULL``, ``SQUIRREL``, ``CONTRA``, ``RE``, ``HERBERT``
  or ``SWAP`` (string constants of this module);
* ``card``: the card type played (0..21, table below); ``None`` for ``SWAP``;
* ``colour``: 0 red, 1 yellow, 2 green, 3 blue, or ``None``. For ``ADD`` the
  colour of the new gnome; for ``PULL`` the chosen colour of a multicolour
  card (17, 18), ``None`` for the others; for ``CONTRA``/``RE``/``HERBERT``
  the colour of the announcement; ``None`` for ``SQUIRREL`` and ``SWAP``.

A swap's sub-decision (which cards go) is not part of the move: pass it to
``Game.play_move(move, discard)`` as a list of card types taken from the hand.

Action codes
------------
* a starting colour ``c``: ``c``;
* a move: ``MOVE_ACTIONS + (kind * 22 + card) * 5 + colour + 1`` with kind 0
  for playing the card (``ADD``, ``PULL``, ``SQUIRREL``), 1 ``CONTRA``, 2
  ``RE``, 3 ``HERBERT``, and colour -1 for ``None``; ``SWAP_ACTION`` (444)
  for the swap;
* the cards a swap discards: ``DISCARD_ACTIONS + mask`` (bit i of the mask
  discards card i of the sorted hand).

Card types (canonical order): 0-3 add a gnome of colour ``t``; 4 add,
multicolour; 5-8 colour ``t-5`` counts 2; 9-12 colour ``t-9`` counts 0;
13-16 colour ``c = t-13`` counts 2 and colour ``(c+1) % 4`` counts 0;
17 multicolour, chosen colour counts 2; 18 multicolour, chosen colour counts
0; 19, 20, 21 squirrel 1, 2, 3.
"""

from collections import namedtuple

from simcore.engine.rng import DECK, N_STREAMS, POLICY, Stream

# --- pieces --------------------------------------------------------------------

N_COLOURS = 4
RED, YELLOW, GREEN, BLUE = range(N_COLOURS)

# First card type of each kind; the colour kinds have one type per colour.
ADD_CARD = 0              # 0..3
ADD_MULTI = 4
PULL_TWO = 5              # 5..8
PULL_ZERO = 9             # 9..12
PULL_TWO_NEXT_ZERO = 13   # 13..16
PULL_MULTI_TWO = 17
PULL_MULTI_ZERO = 18
SQUIRREL_CARD = 19        # 19..21 move the rope 1..3
N_CARD_TYPES = 22

TEAM_A, TEAM_B = 0, 1
# "Team X pulls k spaces" is rope += DIRECTION[X] * k.
DIRECTION = (+1, -1)

ADD = "add"
PULL = "pull"
SQUIRREL = "squirrel"
CONTRA = "contra"
RE = "re"
HERBERT = "herbert"
SWAP = "swap"

# The Pro-rules chain: the announcement that answers a pending one.
ANSWER = {ADD: CONTRA, CONTRA: RE, RE: HERBERT}

Move = namedtuple("Move", "kind card colour")
SWAP_MOVE = Move(SWAP, None, None)

# The decisions, and their action codes (docs/zwergen.md).
PICK, MOVE, DISCARD = "pick", "move", "discard"
MOVE_ACTIONS = N_COLOURS                    # codes 0..3 are the starting colours
KIND_CODE = {ADD: 0, PULL: 0, SQUIRREL: 0, CONTRA: 1, RE: 2, HERBERT: 3}
SWAP_ACTION = MOVE_ACTIONS + 4 * N_CARD_TYPES * 5
DISCARD_ACTIONS = SWAP_ACTION + 1

DEFAULT_PARAMS = {
    "players": 2,
    "first_seat": 0,
    "max_turns": 1000,
    "track_half": 8,
    "hand_size": 5,
    "hats_per_colour": 7,
    "swap_penalty": 1,
    "add_pull": 2,
    "rounds_to_win": 2,
    "pro": False,
    "re_moves_rope": False,
    "deck": {
        "add": 4,
        "add_multi": 4,
        "pull_two": 2,
        "pull_zero": 2,
        "pull_two_next_zero": 1,
        "pull_multi_two": 3,
        "pull_multi_zero": 2,
        "squirrel_1": 4,
        "squirrel_2": 4,
        "squirrel_3": 2,
    },
}


def team_of(seat):
    """Team A holds the even seats, team B the odd ones."""
    return seat % 2


def front_distance(track_half, team_size, rope, team):
    """How far ``team``'s front gnome stands from the fence.

    The gnomes stand on consecutive spaces from the one farthest from the
    fence (``track_half``), and the rope moves them all: in the team's favour
    (``DIRECTION[team] * rope > 0``) away from the fence. 0 or less: the team
    is in the fence. This is docs/zwergen.md's ``front_A = track_half - n_A +
    1 + rope`` and ``front_B = track_half - n_B + 1 - rope``: team A pulling
    k spaces (``rope += k``) brings team B's gnomes k spaces nearer the fence.
    """
    return track_half - team_size + 1 + DIRECTION[team] * rope


def card_counts(deck):
    """Copies of each card type, canonical order, from the ``deck`` params."""
    counts = ([deck["add"]] * N_COLOURS + [deck["add_multi"]]
              + [deck["pull_two"]] * N_COLOURS
              + [deck["pull_zero"]] * N_COLOURS
              + [deck["pull_two_next_zero"]] * N_COLOURS
              + [deck["pull_multi_two"], deck["pull_multi_zero"],
                 deck["squirrel_1"], deck["squirrel_2"], deck["squirrel_3"]])
    assert len(counts) == N_CARD_TYPES
    return counts


def pull_weights(card, chosen):
    """What each colour's gnomes count on pull card ``card`` (both teams)."""
    weights = [1] * N_COLOURS
    if PULL_TWO <= card < PULL_TWO + N_COLOURS:
        weights[card - PULL_TWO] = 2
    elif PULL_ZERO <= card < PULL_ZERO + N_COLOURS:
        weights[card - PULL_ZERO] = 0
    elif PULL_TWO_NEXT_ZERO <= card < PULL_TWO_NEXT_ZERO + N_COLOURS:
        c = card - PULL_TWO_NEXT_ZERO
        weights[c] = 2
        weights[(c + 1) % N_COLOURS] = 0
    elif card == PULL_MULTI_TWO:
        weights[chosen] = 2
    elif card == PULL_MULTI_ZERO:
        weights[chosen] = 0
    else:
        raise ValueError(f"card type {card} is not a pull card")
    return weights


def colour_preference(hand, colour):
    """+1 per card in ``hand`` that makes ``colour`` count 2, -1 per card that
    makes it count 0 (multicolour pull cards count for neither)."""
    previous = (colour + N_COLOURS - 1) % N_COLOURS
    return (hand[PULL_TWO + colour] + hand[PULL_TWO_NEXT_ZERO + colour]
            - hand[PULL_ZERO + colour] - hand[PULL_TWO_NEXT_ZERO + previous])


# --- policies ------------------------------------------------------------------

class RandomPolicy:
    """Uniform over the legal actions of each decision: a starting colour in
    stock, a legal move, and after a swap a non-empty subset of the hand."""

    def __init__(self, rng):
        self.rng = rng

    def act(self, game):
        actions = game.legal_actions()
        return actions[self.rng.randint(len(actions))]


class GreedyPolicy:
    """One ply: the move with the best immediate score (docs: "greedy")."""

    def __init__(self, rng):
        self.rng = rng

    def start_colour(self, game, seat):
        hand = game.hands[seat]
        in_stock = [c for c in range(N_COLOURS) if game.supply[c] > 0]
        prefs = [colour_preference(hand, c) for c in in_stock]
        best = max(prefs)
        tied = [c for c, p in zip(in_stock, prefs, strict=True) if p == best]
        return tied[self.rng.randint(len(tied))]   # drawn even for one

    def score(self, game, move):
        """Integer score of one move, from its effect on the board only."""
        team = team_of(game.seat)
        other = 1 - team
        rope_delta, changes = game.effect(move)
        own_gnomes = sum(n for t, _, n in changes if t == team)
        other_gnomes = sum(n for t, _, n in changes if t == other)
        rope = game.rope + rope_delta
        own_front = front_distance(game.track_half, game.team_size(team) + own_gnomes,
                                   rope, team)
        other_front = front_distance(game.track_half,
                                     game.team_size(other) + other_gnomes, rope, other)
        if other_front <= 0:
            base = 1000
        elif own_front <= 0:
            base = -1000
        else:
            gain = DIRECTION[team] * rope_delta
            base = gain + 2 * (own_gnomes - other_gnomes)
        score = 10 * base
        if move.kind in (ADD, RE):   # gnomes of a chosen colour join us
            pref = colour_preference(game.hands[game.seat], move.colour)
            score += max(-5, min(5, pref))
        return score

    def choose(self, game, moves):
        scores = [self.score(game, move) for move in moves]
        best = max(scores)
        tied = [move for move, s in zip(moves, scores, strict=True) if s == best]
        return tied[self.rng.randint(len(tied))]   # drawn even for one

    def act(self, game):
        if game.decision == PICK:
            return self.start_colour(game, game.picker)
        if game.decision == DISCARD:    # its swap discards the whole hand: no draw
            return DISCARD_ACTIONS + (1 << sum(game.hands[game.seat])) - 1
        return ACTION_OF_MOVE[self.choose(game, game.legal_moves())]


POLICIES = {"random": RandomPolicy, "greedy": GreedyPolicy}


# --- action codes -----------------------------------------------------------------

def move_action(move):
    """The action code of a move."""
    if move.kind == SWAP:
        return SWAP_ACTION
    colour = -1 if move.colour is None else move.colour
    return MOVE_ACTIONS + (KIND_CODE[move.kind] * N_CARD_TYPES + move.card) * 5 + colour + 1


def action_move(action):
    """The move of a move's action code."""
    if action == SWAP_ACTION:
        return SWAP_MOVE
    rest, colour = divmod(action - MOVE_ACTIONS, 5)
    kind, card = divmod(rest, N_CARD_TYPES)
    colour = None if colour == 0 else colour - 1
    if kind == 0:
        kind = ADD if card <= ADD_MULTI else PULL if card <= PULL_MULTI_ZERO else SQUIRREL
    else:
        kind = (CONTRA, RE, HERBERT)[kind - 1]
    return Move(kind, card, colour)


# Both directions tabulated once (a dict lookup is faster than the arithmetic).
MOVE_OF_ACTION = {action: action_move(action) for action in range(MOVE_ACTIONS, SWAP_ACTION + 1)}
ACTION_OF_MOVE = {move: action for action, move in MOVE_OF_ACTION.items()}


def stream_family(seed, game_index):
    """The streams of game ``game_index`` of the run with ``seed``, indexed by
    stream number (``DECK``, ``POLICY + seat`` ...): what ``resample`` takes."""
    return [Stream(seed, game_index, k) for k in range(N_STREAMS)]


# --- the game ------------------------------------------------------------------

def _complete(params):
    """``params`` over the defaults (``deck`` merged key by key)."""
    full = {**DEFAULT_PARAMS, **params}
    full["deck"] = {**DEFAULT_PARAMS["deck"], **params.get("deck", {})}
    return full


class Game:
    """One match of Zwergen Ziehen.

    ``Game(params, policies, seed, game_index)`` builds and shuffles the deck,
    deals, and opens round 1: the first decision is the starting seat's colour
    (``policies`` may be ``None`` for a match driven through the decision
    interface only). Then either ``play_out()`` plays to the end and returns
    the result, or the decision interface drives it (``current_player()``,
    ``legal_actions()``, ``apply_action(action)``, ``returns()``,
    ``resample(seat, streams)``; see the module docstring), or a test drives
    it:

    * inspect ``hands``, ``draw_pile``, ``discard_pile``, ``supply``,
      ``teams``, ``rope``, ``pending``, ``seat``, ``decision``, ``picker``,
      ``picks``, ``refill``, ``drawn``, ``front(team)``;
    * set up a position: assign ``rope``, ``pending``, ``seat`` directly, and
      use ``set_teams`` / ``set_hand`` to keep hats and cards consistent;
    * ``legal_moves()`` lists the moves of the seat to move, in the order of
      the docs; ``effect(move)`` says what a move would do to the board;
      ``play_move(move, discard=None)`` plays one (with its draws, the end of
      the round and the turn count); ``pick_colour(colour)`` is the picking
      seat's starting gnome; ``step()`` lets the policy of the seat to decide
      make one decision; ``result()`` is the result dict.
    """

    def __init__(self, params, policies, seed, game_index):
        p = self.params = _complete(params)
        self.players = p["players"]
        self.track_half = p["track_half"]
        self.hand_size = p["hand_size"]
        self.hats_per_colour = p["hats_per_colour"]
        self.add_pull = p["add_pull"]
        self.swap_penalty = p["swap_penalty"]
        self.rounds_to_win = p["rounds_to_win"]
        self.max_turns = p["max_turns"]
        self.pro = bool(p["pro"])
        self.re_moves_rope = bool(p["re_moves_rope"])
        counts = self.deck_counts = card_counts(p["deck"])
        self.n_cards = sum(counts)
        self._validate(policies, counts)

        self.deck_rng = Stream(seed, game_index, DECK)
        self.policies = None if policies is None else [
            POLICIES[name](Stream(seed, game_index, POLICY + seat)) for seat, name in enumerate(policies)]

        # The deck in canonical order, shuffled, is the draw pile.
        self.draw_pile = [t for t in range(N_CARD_TYPES) for _ in range(counts[t])]
        self.deck_rng.shuffle(self.draw_pile)
        self.refill = list(counts)
        self.drawn = [[0] * N_CARD_TYPES for _ in range(self.players)]
        self.discard_pile = []
        self.hands = [[0] * N_CARD_TYPES for _ in range(self.players)]
        for seat in range(self.players):
            self.draw(seat, self.hand_size)

        self.rounds_won = [0, 0]
        self.over = False
        self.winner = -1
        self.timeout = False
        self.n_turns = 0
        self.n_rounds = 0
        self.counts = dict(adds=0, pulls=0, squirrels=0, swaps=0,
                           contras=0, res=0, herberts=0)
        self.lead_changes = 0
        self.max_team = 0
        self.start_round(p["first_seat"])
        self._check_timeout()

    def _validate(self, policies, counts):
        if self.players not in (2, 4):
            raise ValueError("players must be 2 or 4")
        if policies is None:
            policies = []
        elif len(policies) != self.players:
            raise ValueError("one policy per seat")
        for name in policies:
            if name not in POLICIES:
                raise ValueError(f"unknown policy {name!r}")
        if not 0 <= self.params["first_seat"] < self.players:
            raise ValueError("first_seat out of range")
        if min(counts) < 0:
            raise ValueError("card counts must be >= 0")
        # Then no hand is ever empty at the start of a turn.
        if self.n_cards < self.players * self.hand_size:
            raise ValueError("the deck must hold at least players * hand_size cards")
        # Every seat needs a hat for its starting gnome.
        if N_COLOURS * self.hats_per_colour < self.players:
            raise ValueError("not enough hats for the starting gnomes")

    # --- board -----------------------------------------------------------------

    def team_size(self, team):
        return sum(self.teams[team])

    def front(self, team):
        """Distance of the team's front gnome from the fence (<= 0: in it)."""
        return front_distance(self.track_half, self.team_size(team), self.rope, team)

    def team_in_fence(self):
        """The team pulled into the fence (A checked first), or None."""
        for team in (TEAM_A, TEAM_B):
            if self.front(team) <= 0:
                return team
        return None

    def move_gnomes(self, team, colour, n):
        """``n`` gnomes of ``colour`` join ``team`` (n < 0: they leave it).
        A joining gnome takes its hat from the supply, a leaving one returns it."""
        self.teams[team][colour] += n
        self.supply[colour] -= n

    def set_teams(self, team_a, team_b):
        """Constructed positions: gnomes per colour of each team; the supply
        holds the remaining hats."""
        self.teams = [list(team_a), list(team_b)]
        self.supply = [self.hats_per_colour - team_a[c] - team_b[c]
                       for c in range(N_COLOURS)]

    # --- cards -----------------------------------------------------------------

    def sorted_hand(self, seat):
        """The hand as a list of card types, ascending."""
        hand = self.hands[seat]
        return [t for t in range(N_CARD_TYPES) for _ in range(hand[t])]

    def set_hand(self, seat, cards):
        """Constructed positions: give ``seat`` the hand ``cards`` (card types).
        The cards are not taken from the piles: card conservation is the
        caller's business."""
        hand = [0] * N_CARD_TYPES
        for t in cards:
            hand[t] += 1
        self.hands[seat] = hand

    def draw(self, seat, n):
        """``seat`` draws ``n`` cards one at a time from the top of the draw pile."""
        hand = self.hands[seat]
        for _ in range(n):
            if not self.draw_pile:
                self._reshuffle()
                if not self.draw_pile:
                    return          # both piles were empty: what there is
            card = self.draw_pile.pop()
            hand[card] += 1
            self.drawn[seat][card] += 1

    def _reshuffle(self):
        """The discard pile, in canonical order, shuffled, becomes the draw pile:
        a new filling (also when the discard pile is empty), from which every
        seat's draws are counted again."""
        self.draw_pile = sorted(self.discard_pile)
        self.discard_pile = []
        self.deck_rng.shuffle(self.draw_pile)
        self.refill = [0] * N_CARD_TYPES
        for card in self.draw_pile:
            self.refill[card] += 1
        self.drawn = [[0] * N_CARD_TYPES for _ in range(self.players)]

    # --- rounds ----------------------------------------------------------------

    def start_round(self, seat):
        """Empty the board; then each seat from ``seat`` on picks its gnome
        (``pick_colour``), and ``seat`` moves first."""
        self.n_rounds += 1
        self.supply = [self.hats_per_colour] * N_COLOURS
        self.teams = [[0] * N_COLOURS, [0] * N_COLOURS]
        self.rope = 0
        self.pending = None
        self.lead = 0           # sign of the last non-zero rope this round
        self.seat = seat
        self.picker = seat
        self.picks = [None] * self.players
        self.stock_seen = [None] * self.players
        self.decision = PICK

    def in_stock(self):
        """The colours with a hat in the supply, ascending."""
        return tuple(c for c in range(N_COLOURS) if self.supply[c] > 0)

    def pick_colour(self, colour):
        """The picking seat's starting gnome joins its team at once (secretly:
        the others see it only through the supply); after the last pick the
        round's starting seat moves."""
        picker = self.picker
        self.stock_seen[picker] = self.in_stock()
        self.picks[picker] = colour
        self.move_gnomes(team_of(picker), colour, 1)
        self.picker = (picker + 1) % self.players
        if self.picker == self.seat:
            self._note_team_sizes()
            self.decision = MOVE

    def _end_round(self, loser):
        winner = 1 - loser
        self.rounds_won[winner] += 1
        if self.rounds_won[winner] >= self.rounds_to_win:
            self.over = True
            self.winner = winner
            return
        # The first seat of the losing team after the mover starts the next
        # round (2 players: the loser; 4 players: next seat or the one after).
        for k in range(1, self.players + 1):
            starter = (self.seat + k) % self.players
            if team_of(starter) == loser:
                break
        self.start_round(starter)

    def _check_timeout(self):
        if not self.over and self.n_turns >= self.max_turns:
            self.over = True
            self.timeout = True

    # --- moves -----------------------------------------------------------------

    def legal_moves(self):
        """The moves of the seat to move, in the order fixed by the docs."""
        seat = self.seat
        team = team_of(seat)
        hand = self.hands[seat]
        in_stock = [c for c in range(N_COLOURS) if self.supply[c] > 0]
        can_add = self.front(team) >= 2 and bool(in_stock)
        moves = []
        for t in range(N_CARD_TYPES):
            if not hand[t]:
                continue
            if t <= ADD_MULTI:
                if can_add:
                    if t != ADD_MULTI and self.supply[t] > 0:
                        moves.append(Move(ADD, t, t))
                    else:   # multicolour, or the card's colour is out of stock
                        moves.extend(Move(ADD, t, c) for c in in_stock)
                announcement = self._announcement(team, t)
                if announcement is not None:
                    moves.append(announcement)
            elif t <= PULL_MULTI_ZERO:
                if t < PULL_MULTI_TWO:
                    moves.append(Move(PULL, t, None))
                else:
                    moves.extend(Move(PULL, t, c) for c in range(N_COLOURS))
            else:
                moves.append(Move(SQUIRREL, t, None))
        moves.append(SWAP_MOVE)    # always legal: the hand is never empty
        return moves

    def _announcement(self, team, card):
        """The Pro-rules answer add card ``card`` allows, if any is legal."""
        if not self.pro or self.pending is None:
            return None
        pending_kind, colour = self.pending
        if card != colour and card != ADD_MULTI:
            return None
        kind = ANSWER[pending_kind]
        if kind == RE and not (self.front(team) >= 3 and self.supply[colour] >= 2):
            return None
        if kind == HERBERT and not self.front(team) >= 3:
            return None
        return Move(kind, card, colour)   # Contra is always legal

    def effect(self, move):
        """What ``move`` by the seat to move does to the board, without doing it:
        ``(rope_delta, [(team, colour, gnomes joining), ...])``."""
        team = team_of(self.seat)
        other = 1 - team
        kind, colour = move.kind, move.colour
        if kind == ADD:
            # The new gnome joins, then its confusion lets the opponents pull.
            return -DIRECTION[team] * self.add_pull, [(team, colour, 1)]
        if kind == PULL:
            # The same weights for both teams; the stronger pulls the difference.
            weights = pull_weights(move.card, colour)
            a, b = self.teams
            return sum(w * (a[c] - b[c]) for c, w in enumerate(weights)), []
        if kind == SQUIRREL:
            return DIRECTION[team] * (move.card - SQUIRREL_CARD + 1), []
        if kind == CONTRA:
            # The gnome the opponents just added leaves; the track stays.
            return 0, [(other, colour, -1)]
        if kind == RE:
            rope = DIRECTION[team] * 2 if self.re_moves_rope else 0
            return rope, [(team, colour, 2)]
        if kind == HERBERT:
            # The two gnomes of the Re change sides; the track stays.
            return 0, [(other, colour, -2), (team, colour, 2)]
        if kind == SWAP:
            return -DIRECTION[team] * self.swap_penalty, []
        raise ValueError(f"unknown move {move!r}")

    def play_move(self, move, discard=None):
        """Play ``move`` for the seat to move (``discard``: a swap's cards).

        The move is trusted to be legal (take it from ``legal_moves``); only
        the cards are checked to be in the hand."""
        seat = self.seat
        hand = self.hands[seat]

        rope_delta, changes = self.effect(move)
        for team, colour, n in changes:
            self.move_gnomes(team, colour, n)
        self.rope += rope_delta

        # An add, Contra or Re may be answered on the very next turn only.
        self.pending = (move.kind, move.colour) if move.kind in ANSWER else None

        if move.kind == SWAP:
            if not discard:
                raise ValueError("a swap discards at least one card")
            for card in discard:
                if hand[card] <= 0:
                    raise ValueError(f"card {card} is not in the hand")
                hand[card] -= 1
                self.discard_pile.append(card)
            self.draw(seat, len(discard))
        else:
            if hand[move.card] <= 0:
                raise ValueError(f"card {move.card} is not in the hand")
            hand[move.card] -= 1
            self.discard_pile.append(move.card)   # before its owner draws
        if not any(hand):
            self.draw(seat, self.hand_size)

        self._count(move)
        self.n_turns += 1
        self._note_lead()
        self._note_team_sizes()

        self.decision = MOVE
        loser = self.team_in_fence()
        if loser is not None:
            self._end_round(loser)
        else:
            self.seat = (seat + 1) % self.players
        self._check_timeout()

    # --- the decision interface ------------------------------------------------
    # docs/zwergen.md, "Decisions, information and resampling".

    def current_player(self):
        """The seat to decide, or -1 when the match is over (or timed out)."""
        if self.over:
            return -1
        return self.picker if self.decision == PICK else self.seat

    def legal_actions(self):
        """The action codes of the decision, in the order the random policy
        draws from: the colours in stock; the legal moves; every non-empty
        subset of the hand as a mask, ascending."""
        if self.decision == MOVE:
            return list(map(ACTION_OF_MOVE.__getitem__, self.legal_moves()))
        if self.decision == PICK:
            return list(self.in_stock())
        return [DISCARD_ACTIONS + mask for mask in range(1, 1 << sum(self.hands[self.seat]))]

    def apply_action(self, action):
        """Carry out the decision (a swap waits for its discard decision), and
        the rules up to the next decision."""
        if self.decision == MOVE:
            if action == SWAP_ACTION:
                self.decision = DISCARD
            else:
                self.play_move(MOVE_OF_ACTION[action])
        elif self.decision == PICK:
            self.pick_colour(action)
        else:
            mask = action - DISCARD_ACTIONS
            cards = self.sorted_hand(self.seat)
            self.play_move(SWAP_MOVE, [card for i, card in enumerate(cards) if mask >> i & 1])

    def returns(self):
        """1 to both seats of the team that won the match, 0 to the others (and
        to everybody after a timeout, or while the match runs)."""
        return [1.0 if team_of(seat) == self.winner else 0.0 for seat in range(self.players)]

    def resample(self, seat, streams):
        """Replace what ``seat`` cannot see by a random world consistent with
        what it saw, drawing from ``streams[DECK]`` (docs/zwergen.md,
        "Resampling for seat s"): while a round's picks run, the hidden
        starting colours first; then the draw pile, the other hands, the
        other seats' draws since the pile's last filling."""
        rng = streams[DECK]
        if self.decision == PICK:
            self._redraw_picks(seat, rng)
        self._redraw_cards(seat, rng)

    def _stock_before(self, seat):
        """The colours in stock when ``seat`` picks, from the picks before it."""
        taken = [0] * N_COLOURS
        earlier = self.seat
        while earlier != seat:
            taken[self.picks[earlier]] += 1
            earlier = (earlier + 1) % self.players
        return tuple(c for c in range(N_COLOURS) if taken[c] < self.hats_per_colour)

    def _redraw_picks(self, seat, rng):
        """New starting colours for the seats other than ``seat`` that picked
        this round: each a uniform colour, in pick order, until the picks leave
        no colour short of hats and show ``seat`` the stock it saw (rejection)."""
        picked = []             # the seats that picked this round, in pick order
        earlier = self.seat
        while earlier != self.picker:
            picked.append(earlier)
            earlier = (earlier + 1) % self.players
        hidden = [other for other in picked if other != seat]
        if self.picks[seat] is not None:
            seen = self.stock_seen[seat]
        elif seat == self.picker:
            seen = self.in_stock()
        else:
            seen = None         # it picks later: nothing to agree with
        for other in hidden:
            self.move_gnomes(team_of(other), self.picks[other], -1)
        while True:
            for other in hidden:
                self.picks[other] = rng.randint(N_COLOURS)
            per_colour = [0] * N_COLOURS
            for other in picked:
                per_colour[self.picks[other]] += 1
            if (max(per_colour) <= self.hats_per_colour
                    and (seen is None or self._stock_before(seat) == seen)):
                break
        for other in hidden:
            self.move_gnomes(team_of(other), self.picks[other], 1)
            self.stock_seen[other] = self._stock_before(other)

    def _redraw_cards(self, seat, rng):
        """A new draw pile, other hands and other seats' draws since the pile's
        last filling, each keeping its number of cards."""
        discarded = [0] * N_CARD_TYPES
        for card in self.discard_pile:
            discarded[card] += 1
        mine = self.hands[seat]
        unseen = [self.deck_counts[t] - mine[t] - discarded[t] for t in range(N_CARD_TYPES)]
        candidates = [min(unseen[t], self.refill[t] - self.drawn[seat][t]) for t in range(N_CARD_TYPES)]
        others = [other for other in range(self.players) if other != seat]

        # The pile: its number of candidates, taken at random one after another.
        cards = [t for t in range(N_CARD_TYPES) for _ in range(candidates[t])]
        n_pile = len(self.draw_pile)
        for i in range(n_pile):
            j = i + rng.randint(len(cards) - i)
            cards[i], cards[j] = cards[j], cards[i]
        self.draw_pile = cards[:n_pile]

        # The other hands: the candidates left, then the unseen cards that
        # cannot be in the pile, shuffled and dealt in seat order.
        rest = cards[n_pile:] + [t for t in range(N_CARD_TYPES) for _ in range(unseen[t] - candidates[t])]
        rng.shuffle(rest)
        for other in others:
            size = sum(self.hands[other])
            self.set_hand(other, rest[:size])
            rest = rest[size:]

        # Their draws: the filling's cards neither ``seat`` drew nor in the pile.
        in_pile = [0] * N_CARD_TYPES
        for card in self.draw_pile:
            in_pile[card] += 1
        draws = [t for t in range(N_CARD_TYPES)
                 for _ in range(self.refill[t] - self.drawn[seat][t] - in_pile[t])]
        rng.shuffle(draws)
        for other in others:
            counts = [0] * N_CARD_TYPES
            for card in draws[:sum(self.drawn[other])]:
                counts[card] += 1
            draws = draws[sum(self.drawn[other]):]
            self.drawn[other] = counts

    # --- policies ----------------------------------------------------------------

    def step(self):
        """The policy of the seat to decide makes one decision."""
        self.apply_action(self.policies[self.current_player()].act(self))

    def play_out(self):
        while (seat := self.current_player()) >= 0:
            self.apply_action(self.policies[seat].act(self))
        return self.result()

    # --- results ---------------------------------------------------------------

    _COUNTER = {ADD: "adds", PULL: "pulls", SQUIRREL: "squirrels", SWAP: "swaps",
                CONTRA: "contras", RE: "res", HERBERT: "herberts"}

    def _count(self, move):
        self.counts[self._COUNTER[move.kind]] += 1

    def _note_lead(self):
        """A lead change: the rope's sign flips within a round (0 is no sign)."""
        sign = (self.rope > 0) - (self.rope < 0)
        if sign:
            if self.lead and sign != self.lead:
                self.lead_changes += 1
            self.lead = sign

    def _note_team_sizes(self):
        self.max_team = max(self.max_team, self.team_size(TEAM_A),
                            self.team_size(TEAM_B))

    def result(self):
        c = self.counts
        return {
            "winner_team": self.winner,
            "timeout": int(self.timeout),
            "rounds_a": self.rounds_won[TEAM_A],
            "rounds_b": self.rounds_won[TEAM_B],
            "n_rounds": self.n_rounds,
            "n_turns": self.n_turns,
            "adds": c["adds"],
            "pulls": c["pulls"],
            "squirrels": c["squirrels"],
            "swaps": c["swaps"],
            "contras": c["contras"],
            "res": c["res"],
            "herberts": c["herberts"],
            "lead_changes": self.lead_changes,
            "max_team": self.max_team,
        }


def begin(params, seed, game_index):
    """Match ``game_index`` of the run with ``seed`` at its first decision, to
    be driven through the decision interface (no policies)."""
    return Game(params, None, seed, game_index)


def play(params, policies, seed, game_index):
    """Play match ``game_index`` of the run with ``seed``; its result dict."""
    return Game(params, policies, seed, game_index).play_out()


def run(params, policies, seed, n_games, start=0):
    """``play`` for game indices ``start .. start + n_games - 1``."""
    return [play(params, policies, seed, i) for i in range(start, start + n_games)]


if __name__ == "__main__":   # a quick speed check: python -m benchmarks.reference.zwergen
    import time

    for pair in (["random", "random"], ["greedy", "greedy"]):
        t0 = time.perf_counter()
        games = run(DEFAULT_PARAMS, pair, seed=1, n_games=1000)
        dt = time.perf_counter() - t0
        print(f"{' vs '.join(pair)}: {len(games) / dt:.0f} games/s")
