"""Goofspiel in plain Python: the reference implementation.

This module plays the game exactly as ``docs/goofspiel.md`` fixes it (the
rules of OpenSpiel's ``goofspiel``, played as a sequence of bids), written
the way one would write the game without simcore: lists and a small ``Game``
class, no numpy, no numba. For the same ``(params, policies, seed,
game_index)`` it must play the very same game, draw for draw, as the jitted
``simcore/games/goofspiel/``; ``tests/test_goofspiel_openspiel.py`` checks
it against OpenSpiel itself.

Randomness comes only from :class:`simcore.engine.rng.Stream`: stream ``DECK`` for
every prize card revealed (``points_order = "random"``), stream ``POLICY +
seat`` for each seat's policy.

Entry points
------------
``play(params, policies, seed, game_index) -> dict`` plays one game and
returns its result; ``run(params, policies, seed, n_games, start=0)`` plays
game indices ``start .. start + n_games - 1``; ``begin(params, seed,
game_index)`` is a game at its first decision, driven through the decision
interface: ``current_player()`` (-1 when the game is over),
``legal_actions()`` (the mover's hand, ascending), ``apply_action(card)``,
``returns()``, ``resample(seat, streams)`` (``streams`` as made by
``stream_family``) and ``result()``.

State
-----
Cards are indices 0..N-1; a card's value (points, bid strength) is index + 1.

* ``hands[seat]``: the seat's cards, ascending.
* ``deck``: the prize cards not yet revealed, ascending.
* ``prizes``: the prize cards revealed, in order; the last is the current
  prize (every prize of a finished game).
* ``bids``: the bids of each resolved trick, by seat; ``taken_by``: each
  resolved trick's winner, ``None`` when a tie discarded its prize.
* ``face_down``: the bids of the current trick so far (seat 0 first); the
  seat to bid is ``len(face_down)``.
* ``points``, ``tricks``, ``tied_tricks``, ``discarded_points``.
"""

from simcore.engine.rng import DECK, N_STREAMS, POLICY, Stream

DEFAULT_PARAMS = {"players": 2, "num_cards": 13, "points_order": "random", "returns_type": "win_loss"}
POINTS_ORDERS = ("random", "ascending", "descending")
RETURNS_TYPES = ("win_loss", "point_difference", "total_points")


# --- policies ------------------------------------------------------------------

class RandomPolicy:
    """A uniform card of the ascending hand, one draw per decision."""

    def __init__(self, rng):
        self.rng = rng

    def act(self, game):
        actions = game.legal_actions()
        return actions[self.rng.randint(len(actions))]


class GreedyPolicy:
    """Match the prize: the prize's rank among the prizes still in play (the
    current one and those not yet revealed) is the rank of the card bid in
    the own hand. Draws nothing; reads only the own hand and the prizes."""

    def __init__(self, rng):
        self.rng = rng      # every policy gets its seat's stream; this one never draws from it

    def act(self, game):
        prize = game.prizes[-1]
        in_play = [prize, *game.deck]
        rank = sum(1 for card in in_play if card < prize)
        # the hand holds as many cards as prizes are in play, so the rank is always a card of it
        return game.hands[game.current_player()][rank]


POLICIES = {"random": RandomPolicy, "greedy": GreedyPolicy}


def stream_family(seed, game_index):
    """The streams of game ``game_index`` of the run with ``seed``, indexed by
    stream number (``DECK``, ``POLICY + seat`` ...): what ``resample`` takes."""
    return [Stream(seed, game_index, k) for k in range(N_STREAMS)]


# --- the game ------------------------------------------------------------------

class Game:
    """One game of Goofspiel, from the first prize revealed (seat 0 to bid).

    ``policies`` may be ``None`` for a game driven through the decision
    interface only; ``play_out()`` lets the policies play it to the end."""

    def __init__(self, params, policies, seed, game_index):
        p = {**DEFAULT_PARAMS, **params}
        self.players = p["players"]
        self.num_cards = p["num_cards"]
        self.points_order = p["points_order"]
        self.returns_type = p["returns_type"]
        self._validate(policies)
        self.deck_rng = Stream(seed, game_index, DECK)
        self.policies = None if policies is None else [
            POLICIES[name](Stream(seed, game_index, POLICY + seat)) for seat, name in enumerate(policies)]

        n = self.num_cards
        self.hands = [list(range(n)) for _ in range(self.players)]
        self.deck = list(range(n))
        self.prizes = []
        self.bids = []
        self.taken_by = []
        self.face_down = []
        self.points = [0] * self.players
        self.tricks = 0
        self.tied_tricks = 0
        self.discarded_points = 0
        self.reveal()

    def _validate(self, policies):
        if self.players not in (2, 3, 4):
            raise ValueError("players must be 2, 3 or 4")
        if not 2 <= self.num_cards <= 16:
            raise ValueError("num_cards must be from 2 to 16")
        if self.points_order not in POINTS_ORDERS:
            raise ValueError(f"points_order must be one of {POINTS_ORDERS}")
        if self.returns_type not in RETURNS_TYPES:
            raise ValueError(f"returns_type must be one of {RETURNS_TYPES}")
        if policies is not None and (len(policies) != self.players or not set(policies) <= set(POLICIES)):
            raise ValueError(f"one policy per seat, each one of {sorted(POLICIES)}")

    @property
    def over(self):
        return self.tricks == self.num_cards

    def reveal(self):
        """The next prize card turns up. With one card left in every hand the
        last trick plays itself: nobody has a choice (as in OpenSpiel)."""
        if self.points_order == "random":
            # drawn even from a deck of one, so the stream advances as the jitted game's does
            card = self.deck.pop(self.deck_rng.randint(len(self.deck)))
        elif self.points_order == "ascending":
            card = self.deck.pop(0)
        else:
            card = self.deck.pop()
        self.prizes.append(card)
        if self.tricks == self.num_cards - 1:
            self.face_down = [hand.pop() for hand in self.hands]
            self.resolve()

    def resolve(self):
        """The highest bid takes the prize if it is unique; a tie for the
        highest discards it. The bids are then open to all."""
        bids, prize = self.face_down, self.prizes[-1]
        top = max(bids)
        winner = bids.index(top) if bids.count(top) == 1 else None
        if winner is None:
            self.tied_tricks += 1
            self.discarded_points += prize + 1
        else:
            self.points[winner] += prize + 1
        self.bids.append(bids)
        self.taken_by.append(winner)
        self.face_down = []
        self.tricks += 1
        if not self.over:
            self.reveal()

    # --- the decision interface ------------------------------------------------

    def current_player(self):
        return -1 if self.over else len(self.face_down)

    def legal_actions(self):
        return list(self.hands[self.current_player()])

    def apply_action(self, card):
        """The mover's card leaves its hand face down; after the last seat's
        bid the trick resolves."""
        seat = self.current_player()
        if seat < 0 or card not in self.hands[seat]:
            raise ValueError(f"card {card} is not a legal bid")
        self.hands[seat].remove(card)
        self.face_down.append(card)
        if len(self.face_down) == self.players:
            self.resolve()

    def returns(self):
        """OpenSpiel's returns; 0 for all before the end."""
        players, points = self.players, self.points
        if not self.over:
            return [0.0] * players
        if self.returns_type == "total_points":
            return [float(x) for x in points]
        if self.returns_type == "point_difference":
            mean = sum(points) / players
            return [x - mean for x in points]
        winners = self.winners()
        if len(winners) == players:
            return [0.0] * players
        return [1 / len(winners) if s in winners else -1 / (players - len(winners)) for s in range(players)]

    def resample(self, seat, streams):
        """The only hidden thing is a face-down bid of the current trick: each
        other seat that has bid (ascending) takes its card back and bids a
        uniform card of its hand, drawn from ``streams[DECK]``."""
        rng = streams[DECK]
        for other, card in enumerate(self.face_down):
            if other == seat:
                continue
            hand = self.hands[other]
            hand.append(card)
            hand.sort()
            self.face_down[other] = hand.pop(rng.randint(len(hand)))

    # --- playing and results ---------------------------------------------------

    def play_out(self):
        while (seat := self.current_player()) >= 0:
            self.apply_action(self.policies[seat].act(self))
        return self.result()

    def winners(self):
        """The seats with the most points (all of them if all are level)."""
        best = max(self.points)
        return [s for s in range(self.players) if self.points[s] == best]

    def result(self):
        return {
            "winners": self.winners(),
            "timeout": 0,
            "n_turns": self.tricks,
            "score": list(self.points),
            "tied_tricks": self.tied_tricks,
            "discarded_points": self.discarded_points,
        }


def begin(params, seed, game_index):
    """Game ``game_index`` of the run with ``seed`` at its first decision, to
    be driven through the decision interface (no policies)."""
    return Game(params, None, seed, game_index)


def play(params, policies, seed, game_index):
    """Play game ``game_index`` of the run with ``seed``; its result dict."""
    return Game(params, policies, seed, game_index).play_out()


def run(params, policies, seed, n_games, start=0):
    """``play`` for game indices ``start .. start + n_games - 1``."""
    return [play(params, policies, seed, i) for i in range(start, start + n_games)]


if __name__ == "__main__":   # a quick speed check: python -m benchmarks.reference.goofspiel
    import time

    for pair in (["random", "random"], ["greedy", "greedy"]):
        t0 = time.perf_counter()
        games = run(DEFAULT_PARAMS, pair, seed=1, n_games=2000)
        dt = time.perf_counter() - t0
        print(f"{' vs '.join(pair)}: {len(games) / dt:.0f} games/s")
