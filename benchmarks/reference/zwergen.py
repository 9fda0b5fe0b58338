"""Zwergen Ziehen (gnome tug-of-war) in plain Python: the reference implementation.

This module plays the game exactly as ``docs/zwergen.md`` fixes it, written
the way one would write the game without simcore: lists, dicts and a small
``Game`` class, no numpy, no numba. It serves two purposes:

* an independent check of the rules: for the same ``(params, policies, seed,
  game_index)`` it must play the very same game, draw for draw, as the jitted
  ``simcore/games/zwergen.py``;
* the speed baseline the jitted code is measured against.

Randomness comes only from :class:`simcore.rng.Stream`: stream ``DECK`` for
the deck shuffles, stream ``POLICY + seat`` for each seat's policy.

Entry points
------------
``play(params, policies, seed, game_index) -> dict`` plays one match and
returns its result; ``run(params, policies, seed, n_games, start=0)`` plays
game indices ``start .. start + n_games - 1``. ``Game`` can be driven step by
step (see its docstring) to test single rules on a constructed position.

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
* ``seat``: the seat to move; ``over``, ``winner``, ``timeout``, counters.

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

Card types (canonical order): 0-3 add a gnome of colour ``t``; 4 add,
multicolour; 5-8 colour ``t-5`` counts 2; 9-12 colour ``t-9`` counts 0;
13-16 colour ``c = t-13`` counts 2 and colour ``(c+1) % 4`` counts 0;
17 multicolour, chosen colour counts 2; 18 multicolour, chosen colour counts
0; 19, 20, 21 squirrel 1, 2, 3.
"""

from collections import namedtuple

from simcore.rng import DECK, POLICY, Stream

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
    """Uniform over the legal moves; a swap discards a uniform non-empty subset."""

    def __init__(self, rng):
        self.rng = rng

    def start_colour(self, game, seat):
        in_stock = [c for c in range(N_COLOURS) if game.supply[c] > 0]
        return in_stock[self.rng.randint(len(in_stock))]

    def choose(self, game, moves):
        move = moves[self.rng.randint(len(moves))]
        discard = None
        if move.kind == SWAP:
            cards = game.sorted_hand(game.seat)
            mask = 1 + self.rng.randint(2 ** len(cards) - 1)
            discard = [card for i, card in enumerate(cards) if mask >> i & 1]
        return move, discard


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
        move = tied[self.rng.randint(len(tied))]   # drawn even for one
        discard = game.sorted_hand(game.seat) if move.kind == SWAP else None
        return move, discard


POLICIES = {"random": RandomPolicy, "greedy": GreedyPolicy}


# --- the game ------------------------------------------------------------------

def _complete(params):
    """``params`` over the defaults (``deck`` merged key by key)."""
    full = {**DEFAULT_PARAMS, **params}
    full["deck"] = {**DEFAULT_PARAMS["deck"], **params.get("deck", {})}
    return full


class Game:
    """One match of Zwergen Ziehen.

    ``Game(params, policies, seed, game_index)`` builds and shuffles the deck,
    deals, and starts round 1 (the starting gnomes are picked by the policies).
    Then either ``play_out()`` plays to the end and returns the result, or a
    test drives it:

    * inspect ``hands``, ``draw_pile``, ``discard_pile``, ``supply``,
      ``teams``, ``rope``, ``pending``, ``seat``, ``front(team)``;
    * set up a position: assign ``rope``, ``pending``, ``seat`` directly, and
      use ``set_teams`` / ``set_hand`` to keep hats and cards consistent;
    * ``legal_moves()`` lists the moves of the seat to move, in the order of
      the docs; ``effect(move)`` says what a move would do to the board;
      ``play_move(move, discard=None)`` plays one (with its draws, the end of
      the round and the turn count); ``step()`` lets the seat's policy choose
      and play; ``result()`` is the result dict.
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
        counts = card_counts(p["deck"])
        self.n_cards = sum(counts)
        self._validate(policies, counts)

        self.deck_rng = Stream(seed, game_index, DECK)
        self.policies = [POLICIES[name](Stream(seed, game_index, POLICY + seat))
                         for seat, name in enumerate(policies)]

        # The deck in canonical order, shuffled, is the draw pile.
        self.draw_pile = [t for t in range(N_CARD_TYPES) for _ in range(counts[t])]
        self.deck_rng.shuffle(self.draw_pile)
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
        if len(policies) != self.players:
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
                if not self.discard_pile:
                    return          # both piles empty: what there is
                self._reshuffle()
            hand[self.draw_pile.pop()] += 1

    def _reshuffle(self):
        """The discard pile, in canonical order, shuffled, becomes the draw pile."""
        self.draw_pile = sorted(self.discard_pile)
        self.discard_pile = []
        self.deck_rng.shuffle(self.draw_pile)

    # --- rounds ----------------------------------------------------------------

    def start_round(self, seat):
        """Empty the board, then each seat from ``seat`` on picks its gnome."""
        self.n_rounds += 1
        self.supply = [self.hats_per_colour] * N_COLOURS
        self.teams = [[0] * N_COLOURS, [0] * N_COLOURS]
        self.rope = 0
        self.pending = None
        self.lead = 0           # sign of the last non-zero rope this round
        for k in range(self.players):
            picker = (seat + k) % self.players
            colour = self.policies[picker].start_colour(self, picker)
            self.move_gnomes(team_of(picker), colour, 1)
        self.seat = seat
        self._note_team_sizes()

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

        loser = self.team_in_fence()
        if loser is not None:
            self._end_round(loser)
        else:
            self.seat = (seat + 1) % self.players
        self._check_timeout()

    def step(self):
        """The seat to move lets its policy choose, and plays that move."""
        move, discard = self.policies[self.seat].choose(self, self.legal_moves())
        self.play_move(move, discard)
        return move

    def play_out(self):
        while not self.over:
            self.step()
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
