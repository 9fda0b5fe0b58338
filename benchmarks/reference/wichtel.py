"""Der Herr der Wichtel (leprechaun election with bribes) in plain Python: the reference implementation.

This module plays the game exactly as ``docs/wichtel.md`` fixes it, written
the way one would write the game without simcore: lists, dicts and a small
``Game`` class, no numpy, no numba. It serves two purposes:

* an independent check of the rules: for the same ``(params, policies, seed,
  game_index)`` it must play the very same game, draw for draw, as the jitted
  ``simcore/games/wichtel.py``; its scoring of a retinue is written here from
  the docs, not taken from simcore;
* the speed baseline the jitted code is measured against.

Randomness comes only from :class:`simcore.rng.Stream`: stream ``DECK`` for
every shuffle, stream ``DICE`` for die rolls (``1 + randint(6)``), stream
``POLICY + seat`` for each seat's policy.

Entry points
------------
``play(params, policies, seed, game_index) -> dict`` plays one game and
returns its result; ``run(params, policies, seed, n_games, start=0)`` plays
game indices ``start .. start + n_games - 1``. ``score_retinue(cards)`` and
``best_title(cards)`` score a retinue given by shorthands (``['HW', 'HD',
'ME', 'GE']`` -> 94, ``'Chieftain'``). ``Game`` can be driven step by step
(see its docstring) to test single rules on a constructed position.

Cards
-----
Leprechaun types (codes, canonical order): 0 FA, 1 HS, 2 HF, 3 VA, 4 ME,
5 KS, 6 SW, 7 WW, 8 GE, 9 HD, 10 HW (``LEPRECHAUNS``). Event kinds: 0..4
``r2``..``r6`` (Rindentaler 2..6), 5 ``ich``, 6 ``der``, 7 ``komm_her``,
8 ``komm_zurueck``, 9 ``stehenbleiben``, 10 ``guck_nochmal``, 11 ``nix_da``
(``EVENTS``). The set-up helpers of ``Game`` take codes or these names.

State
-----
* ``retinues[seat]``: a list of 11 counts, ``retinues[seat][t]`` = that
  seat's leprechauns of type ``t`` (a multiset; ``types(seat)`` lists the
  types it holds, ascending).
* ``hands[seat]``: a list of 12 counts, that seat's events.
* ``square``: the village square, a list of ``players`` types, slot 0 first.
* ``drawing``, ``discard``: the two leprechaun stacks, lists of types, the
  **top is the end** of the list.
* ``direction``: ``+1`` while the drawing stack lies beside slot 0 and the
  discard stack beside the last slot (a forward walk moves the cards to higher
  slots), ``-1`` after an odd number of reversals (the stacks swapped sides).
* ``set_aside``: events out of play for the rest of the round (dealt to nobody,
  played, spent), a list of kinds in no particular order.
* ``table``: the bribes lying on the table during a bribe round, a list of
  ``(seat, kind)``; empty between the steps of a move.
* ``wahlleiter_free`` (False = tied), ``stand_still`` and ``come_back`` (the
  pending walk modifiers "Stehenbleiben!" and "Komm mal zurück!").
* ``seat`` (to move), ``round_starter``, ``totals``, ``titles`` (of the last
  round scored), ``over``, ``timeout``, ``ended_by`` (the seat that ended the
  round in the current move, or None) and the counters ``n_turns``,
  ``n_rounds``, ``bribes_played``, ``bribes_won``, ``dice``.

Decisions
---------
Every choice goes through ``Game.decide(seat, letter, options, card)``, which
asks ``policies[seat].choose(game, seat, letter, options, card)`` for one of
``options`` (listed in the order of the docs). ``card`` is the leprechaun at
stake for B, G and F, otherwise None. The letters and their options:

* ``S``, ``E`` (start / end event): ``None``, then the village-square event
  kinds the mover holds (7, 8, 9 ascending);
* ``A`` (action): ``("call", t)`` per type ``t`` held, then ``("exchange", t,
  q)`` per type ``t`` held per other seat ``q`` clockwise from the mover,
  then ``("enlist", s)`` per slot ``s``;
* ``X`` (exchange reply), ``F`` (the card that goes into the gap): a type of
  the seat's retinue (before it gets anything);
* ``B`` (bribe): ``None``, then the bribe kinds held that are in the ranking
  (ascending code);
* ``G`` ("Der bin der Beste!"): a seat, clockwise from the briber + 1;
* ``N`` ("Nix da!"), ``R`` ("Ich guck nochmal!"), ``W`` (free the
  Wahlleiter), ``D`` (end the round): ``False`` (no), ``True`` (yes).

Readings of docs/wichtel.md
---------------------------
Where the docs leave room, this module reads them as follows:

* Outside a career the widow scores as a Familie, i.e. ``values.FA`` (0 by
  default), and HD scores ``values.HD``. Step 1 of the scoring compares the
  configured values with 3, so a widow (or an HD) whose value is set below 3
  is set aside too. Two HD (only in constructed positions) are two jokers,
  each choosing its own form, and either one declining leaves the retinue
  without a title; any number of widows applies the widow rule once. The
  jitted code reads the docs the same way.
* Dealing: seat 0 takes the 4 top leprechauns, then seat 1 the next 4, ... (the
  same for events). A reversal "as it lies" keeps the list: the old top of the
  discard stack is drawn first.
* F offers every type of the receiver's old retinue, the type just received
  included if it held one already.
* A pending walk modifier is a flag: the same modifier played again while it
  is pending is spent for nothing (possible only with more than one copy).
* The random policy draws at every decision it is asked, even one with a
  single option. S and E are asked on every move, B of every other seat on
  every enlist; N only of the seats holding "Nix da!"; R only when the mover
  holds "Ich guck nochmal!" after a failed roll; W only while the Wahlleiter is
  tied; D only while he is free.
* The greedy policy's tie-breaks of G, X and F draw ``randint(number tied)``
  even for a single best option, like A.
* A Rindentaler the mover does not beat (a "no" to R, or a failed reroll):
  the briber receives the leprechaun.
* ``bribes_played`` counts every bribe put on the table; ``bribes_won`` counts a
  winning "Der bin der Beste!" even when it is given to the mover.
* The move that ends a round counts as a turn; the turn limit is checked after
  the move and the round end it caused (a game decided on the last allowed move
  is not a timeout). The next round is dealt as soon as a round ends.
"""

from simcore.rng import DECK, DICE, POLICY, Stream

# --- pieces --------------------------------------------------------------------

LEPRECHAUNS = ("FA", "HS", "HF", "VA", "ME", "KS", "SW", "WW", "GE", "HD", "HW")
FA, HS, HF, VA, ME, KS, SW, WW, GE, HD, HW = range(len(LEPRECHAUNS))
N_TYPES = len(LEPRECHAUNS)
LEPRECHAUN_COUNTS = (6, 6, 4, 2, 1, 5, 3, 2, 1, 1, 1)      # 32 cards

EVENTS = ("r2", "r3", "r4", "r5", "r6", "ich", "der",
          "komm_her", "komm_zurueck", "stehenbleiben", "guck_nochmal", "nix_da")
(R2, R3, R4, R5, R6, ICH, DER,
 KOMM_HER, KOMM_ZURUECK, STEHENBLEIBEN, GUCK_NOCHMAL, NIX_DA) = range(len(EVENTS))
N_EVENTS = len(EVENTS)
BRIBE_NAMES = ("2", "3", "4", "5", "6", "ich", "der")       # bribe kinds 0..6 in bribe_ranking
SQUARE_EVENTS = (KOMM_HER, KOMM_ZURUECK, STEHENBLEIBEN)

RETINUE_SIZE = 4
HAND_SIZE = 4

DEFAULT_PARAMS = {
    "players": 4,
    "first_seat": 0,
    "max_turns": 5000,
    "target_score": 99,
    "best_bonus": 5,
    "worst_bonus": 1,
    "bribe_ranking": ["2", "3", "4", "5", "6", "ich", "der"],
    "bribe_tie": "last",
    "reshuffle_on_reverse": False,
    "values": {"FA": 0, "HS": 1, "HF": 2, "VA": 4, "ME": 7, "KS": 2,
               "SW": 3, "WW": 5, "GE": 8, "HD": 10, "HW": 4},
    "events": {"r2": 3, "r3": 3, "r4": 3, "r5": 3, "r6": 2, "ich": 1, "der": 1,
               "komm_her": 1, "komm_zurueck": 1, "stehenbleiben": 1,
               "guck_nochmal": 1, "nix_da": 1},
}


def rindentaler_value(kind):
    """The pips the mover must roll against Rindentaler ``kind`` (r2..r6)."""
    return kind - R2 + 2


def _leprechaun(card):
    return LEPRECHAUNS.index(card) if isinstance(card, str) else int(card)


def _event(kind):
    return EVENTS.index(kind) if isinstance(kind, str) else int(kind)


def _counts(items, size):
    counts = [0] * size
    for x in items:
        counts[x] += 1
    return counts


# --- scoring a retinue ----------------------------------------------------------

# Titles: (name, compulsory types (one card each), rest types, value).
TITLES = (
    ("Family Assessor", (FA,), (FA,), -5),
    ("Wood cutter", (HS,), (HS, FA), 3),
    ("Foreman", (HF,), (HF, HS, FA), 8),
    ("Master", (VA, HF), (HF, HS), 13),
    ("Power behind the throne", (ME, VA), (VA, HF), 23),
    ("Spear Thrower", (KS,), (KS, FA), 5),
    ("Sergeant", (SW,), (SW, KS, FA), 10),
    ("General", (WW, SW), (SW, KS), 15),
    ("Wood Marshal", (GE, WW), (WW, SW), 25),
)
# Chieftain careers: (name, the four cards, value).
CAREERS = (
    ("Wood-Chief", (HW, HD, ME, VA), 40),
    ("War-Chief", (HW, HD, GE, WW), 45),
    ("Chieftain", (HW, HD, ME, GE), 65),
)
_CAREER_COUNTS = [(name, _counts(cards, N_TYPES), value) for name, cards, value in CAREERS]


def _title_qualifies(cards, jokers, compulsory, rest):
    """Does a title fit ``cards`` (counts, HD taken out) plus ``jokers`` HD?

    Each compulsory card must be there once, an HD standing in for a missing
    one; every other card must be in the rest list (spare HD can always pose
    as a rest card)."""
    missing = 0
    for t in range(N_TYPES):
        n = cards[t]
        if t in compulsory:
            if n == 0:
                missing += 1
            n -= 1                      # one copy is the compulsory card
        if n > 0 and t not in rest:
            return False
    return missing <= jokers


def _widowed(subtotal):
    """Step 4: the widow turns a gain into a loss and doubles a loss."""
    if subtotal > 0:
        return -subtotal
    return 2 * subtotal


class Scorer:
    """``score_retinue`` for one set of card values, memoised per retinue.

    A retinue is a sequence of 11 counts; ``evaluate`` returns ``(points,
    title name or None)``."""

    def __init__(self, values):
        self.values = list(values)      # printed value per type code
        self._cache = {}

    def evaluate(self, counts):
        key = tuple(counts)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._evaluate(key)
        return hit

    def score(self, counts):
        return self.evaluate(counts)[0]

    def _evaluate(self, counts):
        values = self.values
        rest = list(counts)
        # 1. A Meister or General keeps only important people: printed value below 3 goes.
        if rest[ME] or rest[GE]:
            for t in range(N_TYPES):
                if values[t] < 3:
                    rest[t] = 0
        # 2. Exactly a Chieftain career: HD and HW count as themselves.
        for name, cards, bonus in _CAREER_COUNTS:
            if rest == cards:
                return sum(values[t] * n for t, n in enumerate(rest)) + bonus, name
        # 3. The widow counts as a Familie, HD keeps its value but is a joker for titles.
        widow = rest[HW] > 0
        points = sum(values[t] * n for t, n in enumerate(rest) if t != HW) + values[FA] * rest[HW]
        for_titles = list(rest)
        for_titles[FA] += for_titles[HW]
        for_titles[HW] = 0
        jokers = for_titles[HD]
        for_titles[HD] = 0
        # What the player may end with: any title some choice of HD forms fits; no
        # title if an HD declines (it stays itself, in no rest list) or nothing fits.
        options = [(name, value) for name, compulsory, rest_list, value in TITLES
                   if _title_qualifies(for_titles, jokers, compulsory, rest_list)]
        if jokers or not options:
            options.append((None, 0))
        # The option with the best final score (4. the widow spoils a kept title);
        # of two equal scores, the one that was higher before the widow.
        best = None
        for name, value in options:
            final = _widowed(points + value) if widow else points + value
            if best is None or (final, value) > (best[0], best[2]):
                best = (final, name, value)
        return best[0], best[1]


_SCORERS = {}


def scorer_for(values):
    """The ``Scorer`` for ``values`` (a dict shorthand -> value, over the defaults),
    shared by every game with the same values so that its memo carries over."""
    full = {**DEFAULT_PARAMS["values"], **(values or {})}
    key = tuple(full[name] for name in LEPRECHAUNS)
    if key not in _SCORERS:
        _SCORERS[key] = Scorer(key)
    return _SCORERS[key]


def score_retinue(cards, values=None):
    """Points of a retinue given as shorthands, e.g. ``['HW','HD','ME','GE'] -> 94``
    (no round bonuses). ``values``: shorthand -> printed value, over the defaults."""
    return scorer_for(values).score(_counts([_leprechaun(c) for c in cards], N_TYPES))


def best_title(cards, values=None):
    """The title (or Chieftain career) a retinue earns, by name; None for none."""
    return scorer_for(values).evaluate(_counts([_leprechaun(c) for c in cards], N_TYPES))[1]


# --- policies ------------------------------------------------------------------

YES_NO = [False, True]


class RandomPolicy:
    """Uniform over the options of every decision (drawn even for one option)."""

    def __init__(self, rng):
        self.rng = rng

    def choose(self, game, seat, letter, options, card):
        return options[self.rng.randint(len(options))]


class GreedyPolicy:
    """One ply on the score of the own retinue (docs: "greedy")."""

    def __init__(self, rng):
        self.rng = rng

    def _pick(self, candidates, keys, best):
        """A uniform candidate among those whose key is ``best`` (always drawn)."""
        tied = [x for x, k in zip(candidates, keys, strict=True) if k == best]
        return tied[self.rng.randint(len(tied))]

    def choose(self, game, seat, letter, options, card):
        if letter in ("S", "E"):
            return None
        if letter == "N":
            return seat == game.seat            # only the mover defends its own enlist
        if letter == "R":
            return True
        if letter in ("D", "W"):
            return game.ahead(seat)
        if letter == "B":
            if game.gain(seat, card) <= 0:
                return None
            held = [kind for kind in options if kind is not None and kind != DER]
            return max(held, key=game.rank.__getitem__) if held else None
        if letter == "A":
            return self._action(game, seat)
        if letter == "G":
            gains = [game.gain(q, card) for q in options]
            return self._pick(options, gains, min(gains))
        retinue = game.retinues[seat]
        if letter == "X":       # keep the best three, as if a Familie came back
            keys = [game.scorer.score(replaced(retinue, u, FA)) for u in options]
        elif letter == "F":     # the card that leaves the best retinue with c
            keys = [game.scorer.score(replaced(retinue, u, card)) for u in options]
        else:
            raise ValueError(f"unknown decision {letter!r}")
        return self._pick(options, keys, max(keys))

    def _action(self, game, m):
        gains = [game.gain(m, c) for c in game.square]
        best = max(gains)
        if best > 0:
            return ("enlist", self._pick(range(len(gains)), gains, best))
        # Nothing on the square helps: call the card whose loss hurts least
        # (the card drawn is unknown; a Familie stands in for it).
        retinue = game.retinues[m]
        types = game.types(m)
        keys = [game.scorer.score(replaced(retinue, t, FA)) for t in types]
        return ("call", self._pick(types, keys, max(keys)))


class Scripted:
    """A policy for tests: ``script`` maps decision letters to lists of answers,
    used in order; a decision whose letter has no answer left takes its first
    option (none / no). Every decision asked is logged in ``asked`` as
    ``(seat, letter, options, card)``."""

    def __init__(self, script=None):
        self.script = {letter: list(answers) for letter, answers in (script or {}).items()}
        self.asked = []

    def choose(self, game, seat, letter, options, card):
        self.asked.append((seat, letter, list(options), card))
        answers = self.script.get(letter)
        if not answers:
            return options[0]
        answer = answers.pop(0)
        if answer not in options:
            raise ValueError(f"{letter}: {answer!r} is not among the options {options}")
        return answer


POLICIES = {"random": RandomPolicy, "greedy": GreedyPolicy}


def replaced(counts, out, into):
    """A copy of the multiset ``counts`` with one ``out`` swapped for ``into``."""
    result = list(counts)
    result[out] -= 1
    result[into] += 1
    return result


# --- the game ------------------------------------------------------------------

class RoundEnds(Exception):
    """A seat said yes to D: the round ends at once, the rest of the move is not played."""


def _complete(params):
    """``params`` over the defaults (``values`` and ``events`` merged key by key)."""
    full = {**DEFAULT_PARAMS, **params}
    full["values"] = {**DEFAULT_PARAMS["values"], **params.get("values", {})}
    full["events"] = {**DEFAULT_PARAMS["events"], **params.get("events", {})}
    return full


class Game:
    """One game of Der Herr der Wichtel (rounds until someone reaches the target).

    ``Game(params, policies, seed, game_index)`` shuffles, deals and starts
    round 1. Then either ``play_out()`` plays to the end and returns the
    result, or a test drives it:

    * inspect the state (see the module docstring); ``score(seat)``,
      ``types(seat)``, ``gain(seat, card)``, ``ahead(seat)``,
      ``action_options()`` (the A options of the seat to move);
    * set up a position: ``set_retinue(seat, cards)``, ``set_hand(seat,
      events)``, ``set_square(cards)``, ``set_stacks(drawing, discard,
      direction)`` (bottom first), or assign ``seat``, ``wahlleiter_free``,
      ``stand_still``, ``come_back``, ``set_aside`` directly. Cards and events
      may be codes or names; their conservation is the caller's business;
    * replace ``policies[seat]`` (e.g. by a ``Scripted``), or pass one policy
      to ``play_move(policy)`` to decide for every seat during that move;
    * ``rolls``: die results to use (in order) before the DICE stream is asked;
    * single steps for the seat to move: ``walk()`` (the walk of a move,
      modifiers included), ``forward_walk()``, ``backward_walk()``, ``draw()``;
      ``call(t)``, ``exchange(t, q)``, ``enlist(slot, bids=None, rolls=None)``
      (``bids``: seat -> bribe kind or None, replacing those seats' B
      decisions; ``rolls``: the die results of this bribe round) each return
      True if a seat ended the round (``ended_by``; then call ``end_round()``),
      and ``last_enlist`` describes the bribe round; ``play_move(policy=None)``
      plays one whole move (S, walk, A, E, W, a round end, the turn count, the
      next seat, the turn limit); ``end_round()`` scores the round, adds the
      bonuses, ends the game or deals the next round; ``step()`` =
      ``play_move()``; ``result()`` is the result dict.
    """

    def __init__(self, params, policies, seed, game_index):
        p = self.params = _complete(params)
        self.players = p["players"]
        self._validate(policies)
        self.max_turns = p["max_turns"]
        self.target_score = p["target_score"]
        self.best_bonus = p["best_bonus"]
        self.worst_bonus = p["worst_bonus"]
        self.scorer = scorer_for(p["values"])
        self.event_counts = [p["events"][name] for name in EVENTS]
        # Bribe kind -> its place in the ranking (higher wins); kinds not listed cannot be bribes.
        self.rank = {BRIBE_NAMES.index(str(name)): i for i, name in enumerate(p["bribe_ranking"])}
        self.later_wins_ties = p["bribe_tie"] == "last"
        self.reshuffle_on_reverse = bool(p["reshuffle_on_reverse"])

        self.deck_rng = Stream(seed, game_index, DECK)
        self.dice_rng = Stream(seed, game_index, DICE)
        self.policies = [POLICIES[name](Stream(seed, game_index, POLICY + seat))
                         for seat, name in enumerate(policies)]
        self._override = None
        self.rolls = []

        n = self.players
        self.totals = [0] * n
        self.titles = [""] * n
        self.bribes_played = [0] * n
        self.bribes_won = [0] * n
        self.dice = 0
        self.n_turns = 0
        self.n_rounds = 0
        self.over = False
        self.timeout = False
        self.winners = []
        self.last_enlist = None
        self.start_round(p["first_seat"])
        self._check_timeout()

    def _validate(self, policies):
        p = self.params
        if self.players not in (3, 4, 5):
            raise ValueError("players must be 3, 4 or 5")
        if len(policies) != self.players:
            raise ValueError("one policy per seat")
        for name in policies:
            if name not in POLICIES:
                raise ValueError(f"unknown policy {name!r}")
        if not 0 <= p["first_seat"] < self.players:
            raise ValueError("first_seat out of range")
        ranking = [str(name) for name in p["bribe_ranking"]]
        if any(name not in BRIBE_NAMES for name in ranking) or len(set(ranking)) != len(ranking):
            raise ValueError(f"bribe_ranking must list distinct kinds of {BRIBE_NAMES}")
        if p["bribe_tie"] not in ("last", "first"):
            raise ValueError('bribe_tie must be "last" or "first"')
        if min(p["events"][name] for name in EVENTS) < 0:
            raise ValueError("event counts must be >= 0")

    # --- looking at retinues ---------------------------------------------------------

    def types(self, seat):
        """The leprechaun types in ``seat``'s retinue, ascending (each once)."""
        return [t for t, n in enumerate(self.retinues[seat]) if n]

    def score(self, seat):
        return self.scorer.score(self.retinues[seat])

    def gain(self, seat, card):
        """How much ``card`` would improve ``seat``'s retinue at best (one old card goes)."""
        retinue = self.retinues[seat]
        best = max(self.scorer.score(replaced(retinue, u, card)) for u in self.types(seat))
        return best - self.scorer.score(retinue)

    def ahead(self, seat):
        """Is ``seat``'s retinue worth more than every other seat's?"""
        mine = self.score(seat)
        return all(mine > self.score(other) for other in range(self.players) if other != seat)

    # --- constructed positions ---------------------------------------------------------

    def set_retinue(self, seat, cards):
        self.retinues[seat] = _counts([_leprechaun(c) for c in cards], N_TYPES)

    def set_hand(self, seat, events):
        self.hands[seat] = _counts([_event(k) for k in events], N_EVENTS)

    def set_square(self, cards):
        if len(cards) != self.players:
            raise ValueError("the village square has one slot per player")
        self.square = [_leprechaun(c) for c in cards]

    def set_stacks(self, drawing, discard, direction=+1):
        """Both stacks, bottom card first; ``direction`` as in the module docstring."""
        if direction not in (+1, -1):
            raise ValueError("direction is +1 or -1")
        self.drawing = [_leprechaun(c) for c in drawing]
        self.discard = [_leprechaun(c) for c in discard]
        self.direction = direction

    # --- decisions and dice ------------------------------------------------------------

    def decide(self, seat, letter, options, card=None):
        policy = self._override or self.policies[seat]
        return policy.choose(self, seat, letter, options, card)

    def roll(self):
        """One die roll: a scripted one from ``rolls`` if any is left, else stream DICE."""
        self.dice += 1
        if self.rolls:
            return self.rolls.pop(0)
        return 1 + self.dice_rng.randint(6)

    # --- rounds ----------------------------------------------------------------------

    def start_round(self, starter):
        """Shuffle both decks, deal retinues, the square, the stacks and the events."""
        n = self.players
        leprechauns = [t for t in range(N_TYPES) for _ in range(LEPRECHAUN_COUNTS[t])]
        self.deck_rng.shuffle(leprechauns)
        events = [k for k in range(N_EVENTS) for _ in range(self.event_counts[k])]
        self.deck_rng.shuffle(events)

        # The top of every stack is the end of its list.
        self.retinues = [[0] * N_TYPES for _ in range(n)]
        for seat in range(n):
            for _ in range(RETINUE_SIZE):
                self.retinues[seat][leprechauns.pop()] += 1
        self.square = [leprechauns.pop() for _ in range(n)]
        self.discard = [leprechauns.pop()]
        self.drawing = leprechauns
        self.direction = +1

        self.hands = [[0] * N_EVENTS for _ in range(n)]
        for seat in range(n):
            for _ in range(min(HAND_SIZE, len(events))):
                self.hands[seat][events.pop()] += 1
        self.set_aside = events          # never refilled within the round
        self.table = []

        self.wahlleiter_free = False
        self.stand_still = False
        self.come_back = False
        self.round_starter = starter
        self.seat = starter
        self.ended_by = None

    def end_round(self):
        """Score every retinue, add the bonuses; end the game or deal the next round."""
        scored = [self.scorer.evaluate(retinue) for retinue in self.retinues]
        scores = [points for points, _ in scored]
        best, worst = max(scores), min(scores)
        for seat, points in enumerate(scores):
            bonus = 0
            if points == best:
                bonus = self.best_bonus         # all tied: the best bonus only
            elif points == worst:
                bonus = self.worst_bonus
            self.totals[seat] += points + bonus
        self.titles = [title or "" for _, title in scored]
        self.n_rounds += 1
        if max(self.totals) >= self.target_score:
            self.over = True
            top = max(self.totals)
            self.winners = [seat for seat, total in enumerate(self.totals) if total == top]
        else:
            self.start_round((self.round_starter + 1) % self.players)
        return scores

    def _check_timeout(self):
        if not self.over and self.n_turns >= self.max_turns:
            self.over = True
            self.timeout = True
            self.winners = []

    # --- the stacks and the walk -----------------------------------------------------

    def _reverse(self):
        """The drawing stack ran out: the discard stack becomes the drawing stack (as
        it lies, or reshuffled from canonical order) and the stacks swap sides."""
        stack = self.discard
        if self.reshuffle_on_reverse:
            stack = sorted(stack)
            self.deck_rng.shuffle(stack)
        self.drawing, self.discard = stack, []
        self.direction = -self.direction

    def draw(self):
        """The top card of the drawing stack (reversing at once if that empties it)."""
        card = self.drawing.pop()
        if not self.drawing:
            self._reverse()
        return card

    def forward_walk(self):
        """The card beside the discard stack goes onto it, the others step toward it,
        the drawing stack's top fills the slot beside the drawing stack."""
        square = self.square
        if self.direction > 0:      # discard stack beside the last slot
            self.discard.append(square.pop())
            square.insert(0, self.drawing.pop())
        else:
            self.discard.append(square.pop(0))
            square.append(self.drawing.pop())
        if not self.drawing:
            self._reverse()

    def backward_walk(self):
        """"Komm mal zurück!": the walk the other way, fed from the discard stack."""
        if not self.discard:
            return                  # nothing to fill the gap: nothing moves
        square = self.square
        if self.direction > 0:      # drawing stack beside slot 0
            self.drawing.append(square.pop(0))
            square.append(self.discard.pop())
        else:
            self.drawing.append(square.pop())
            square.insert(0, self.discard.pop())

    def walk(self):
        """One walk, spending a pending modifier: Stehenbleiben first, then Komm mal zurück."""
        if self.stand_still:
            self.stand_still = False
        elif self.come_back:
            self.come_back = False
            self.backward_walk()
        else:
            self.forward_walk()

    # --- a move ----------------------------------------------------------------------

    def play_move(self, policy=None):
        """One move of the seat to move; ``policy`` (optional) decides for every seat."""
        self._override = policy
        m = self.seat
        try:
            self._move(m)
            ended = False
        except RoundEnds:
            ended = True
        finally:
            self._override = None
        self.n_turns += 1
        if ended:
            self.end_round()
        else:
            self.seat = (m + 1) % self.players
        self._check_timeout()

    step = play_move

    def _move(self, m):
        self._village_event(m, "S")
        self.walk()
        self._act(m, self.decide(m, "A", self.action_options()))
        self._village_event(m, "E")
        # The Wahlleiter is freed only at the end of a move: no round ends in this one.
        if not self.wahlleiter_free and self.decide(m, "W", YES_NO):
            self.wahlleiter_free = True

    def _village_event(self, m, letter):
        options = [None] + [k for k in SQUARE_EVENTS if self.hands[m][k]]
        kind = self.decide(m, letter, options)
        if kind is None:
            return
        self.hands[m][kind] -= 1
        self.set_aside.append(kind)
        if kind == KOMM_HER:
            self.walk()
        elif kind == KOMM_ZURUECK:
            self.come_back = True
        else:
            self.stand_still = True

    def action_options(self):
        m = self.seat
        types = self.types(m)
        others = [(m + k) % self.players for k in range(1, self.players)]
        return ([("call", t) for t in types]
                + [("exchange", t, q) for t in types for q in others]
                + [("enlist", s) for s in range(self.players)])

    def _act(self, m, action):
        if action[0] == "call":
            self._call(m, action[1])
        elif action[0] == "exchange":
            self._exchange(m, action[1], action[2])
        else:
            self._enlist(m, action[1])

    def _received(self, seat):
        """``seat`` got a new leprechaun (its retinue is whole again): with the
        Wahlleiter free it may end the round."""
        if self.wahlleiter_free and self.decide(seat, "D", YES_NO):
            self.ended_by = seat
            raise RoundEnds

    def _call(self, m, t):
        retinue = self.retinues[m]
        retinue[t] -= 1
        self.discard.append(t)
        retinue[self.draw()] += 1
        self._received(m)

    def _exchange(self, m, t, q):
        u = self.decide(q, "X", self.types(q))     # q answers blind, before it gets t
        self.retinues[m] = replaced(self.retinues[m], t, u)
        self.retinues[q] = replaced(self.retinues[q], u, t)
        self._received(q)
        self._received(m)

    def _bribe_options(self, seat):
        return [None] + [kind for kind in range(R2, DER + 1) if self.hands[seat][kind] and kind in self.rank]

    def _second_look(self, m):
        """"Ich guck nochmal!": may the mover roll once more? (Spends the card.)"""
        if self.hands[m][GUCK_NOCHMAL] and self.decide(m, "R", YES_NO):
            self.hands[m][GUCK_NOCHMAL] -= 1
            self.set_aside.append(GUCK_NOCHMAL)
            return True
        return False

    def _enlist(self, m, s, bids=None):
        n = self.players
        card = self.square[s]

        # a. The other seats bribe in turn, clockwise from the mover's left.
        winner = None                   # (seat, kind) of the winning bribe so far
        for k in range(1, n):
            b = (m + k) % n
            if bids is not None and b in bids:
                kind = None if bids[b] is None else _event(bids[b])
                if kind is not None and kind not in self._bribe_options(b):
                    raise ValueError(f"seat {b} cannot bribe with {EVENTS[kind]}")
            else:
                kind = self.decide(b, "B", self._bribe_options(b), card)
            if kind is None:
                continue
            self.hands[b][kind] -= 1
            self.table.append((b, kind))
            self.bribes_played[b] += 1
            if winner is None:
                winner = (b, kind)
            else:
                here, there = self.rank[kind], self.rank[winner[1]]
                if here > there or (here == there and self.later_wins_ties):
                    winner = (b, kind)
        # Only the winning bribe counts; the others go back to their owners.
        for b, kind in self.table:
            if winner[0] != b:
                self.hands[b][kind] += 1
        self.table = [winner] if winner else []

        # b. "Nix da!" against the winning bribe, first come clockwise from the mover.
        negated = False
        if winner is not None:
            for k in range(n):
                x = (m + k) % n
                if x == winner[0] or not self.hands[x][NIX_DA]:
                    continue
                if self.decide(x, "N", YES_NO):
                    self.hands[x][NIX_DA] -= 1
                    self.set_aside.append(NIX_DA)
                    negated = True
                    break

        # c. Who gets the leprechaun.
        receiver = None
        if winner is not None and not negated:
            briber, kind = winner
            if kind == ICH:
                receiver = briber
            elif kind == DER:
                others = [(briber + k) % n for k in range(1, n)]
                receiver = self.decide(briber, "G", others, card)
            else:                       # Rindentaler: the mover must roll at least its value
                pips = rindentaler_value(kind)
                if self.roll() >= pips or (self._second_look(m) and self.roll() >= pips):
                    receiver = m
                else:
                    receiver = briber
            if kind in (ICH, DER) or receiver == briber:     # the bribe took it from the mover
                self.bribes_won[briber] += 1
        else:                           # unbribed (or negated): anything but a 1
            if self.roll() != 1 or (self._second_look(m) and self.roll() != 1):
                receiver = m
        if winner is not None:          # the winning bribe is spent in every case
            self.table = []
            self.set_aside.append(winner[1])

        self.last_enlist = {"slot": s, "card": card, "winner": winner, "negated": negated,
                            "receiver": receiver}
        if receiver is None:
            return                      # insulted: it stays in its slot

        # d. The receiver fills the gap with one of its old leprechauns.
        u = self.decide(receiver, "F", self.types(receiver), card)
        self.retinues[receiver] = replaced(self.retinues[receiver], u, card)
        self.square[s] = u
        self._received(receiver)

    # --- single steps for tests --------------------------------------------------------

    def _step(self, fn, *args):
        try:
            fn(self.seat, *args)
        except RoundEnds:
            return True
        return False

    def call(self, t):
        return self._step(self._call, _leprechaun(t))

    def exchange(self, t, q):
        return self._step(self._exchange, _leprechaun(t), q)

    def enlist(self, slot, bids=None, rolls=None):
        if rolls is not None:
            self.rolls = list(rolls)
        ended = self._step(self._enlist, slot, bids)
        if rolls is not None and self.rolls:
            raise ValueError(f"die rolls left unused: {self.rolls}")
        return ended

    def play_out(self):
        while not self.over:
            self.play_move()
        return self.result()

    # --- results ---------------------------------------------------------------------

    def result(self):
        return {
            "winners": sorted(self.winners),
            "timeout": int(self.timeout),
            "n_turns": self.n_turns,
            "n_rounds": self.n_rounds,
            "totals": list(self.totals),
            "titles": list(self.titles),
            "bribes_played": list(self.bribes_played),
            "bribes_won": list(self.bribes_won),
            "dice": self.dice,
        }


def play(params, policies, seed, game_index):
    """Play game ``game_index`` of the run with ``seed``; its result dict."""
    return Game(params, policies, seed, game_index).play_out()


def run(params, policies, seed, n_games, start=0):
    """``play`` for game indices ``start .. start + n_games - 1``."""
    return [play(params, policies, seed, i) for i in range(start, start + n_games)]


if __name__ == "__main__":   # a quick speed check: python -m benchmarks.reference.wichtel
    import time

    for name in ("random", "greedy"):
        t0 = time.perf_counter()
        games = run(DEFAULT_PARAMS, [name] * 4, seed=1, n_games=300)
        dt = time.perf_counter() - t0
        print(f"4 x {name}: {len(games) / dt:.0f} games/s")
