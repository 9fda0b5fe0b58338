"""Der Herr der Wichtel (leprechaun election with bribes) in plain Python: the reference implementation.

This module plays the game exactly as ``docs/wichtel.md`` fixes it, written
the way one would write the game without simcore: lists, dicts, sets and a
small ``Game`` class, no numpy, no numba. It serves two purposes:

* an independent check of the rules: for the same ``(params, policies, seed,
  game_index)`` it must play the very same game, draw for draw, as the jitted
  ``simcore/games/wichtel/``; its scoring of a retinue is written here from
  the docs, not taken from simcore;
* the speed baseline the jitted code is measured against.

Randomness comes only from :class:`simcore.engine.rng.Stream`: stream ``DECK`` for
every shuffle, stream ``DICE`` for die rolls (``1 + randint(6)``), stream
``POLICY + seat`` for each seat's policy.

Entry points
------------
``play(params, policies, seed, game_index) -> dict`` plays one game and
returns its result; ``run(params, policies, seed, n_games, start=0)`` plays
game indices ``start .. start + n_games - 1``. ``score_retinue(cards)`` and
``best_title(cards)`` score a retinue given by shorthands (``['HW', 'HD',
'ME', 'GE']`` -> 94, ``'Chieftain'``). ``Game`` can be driven decision by
decision (see its docstring) to test single rules on a constructed position.

The decision interface (docs/wichtel.md, "Decisions, information and
resampling"), the same as the jitted game's, in plain Python:
``begin(params, seed, game_index)`` is game ``game_index`` of the run with
``seed`` at its first decision; then ``game.current_player()`` (-1 when the
game is over), ``game.legal_actions()`` (a list of action codes, see "Action
codes" below), ``game.apply_action(action)``, ``game.returns()`` and
``game.resample(seat, streams)`` (``streams``: a family of streams as made by
``stream_family``; resample draws from its stream ``DECK``). ``play`` itself
plays through this interface: ``random`` draws uniformly over the legal
list, ``greedy`` picks one of the options by the docs' heuristic.

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
  **top is the end** of the list; ``drawing_seen``, ``discard_seen``: for
  each of their places, the set of observers who know its card.
* ``direction``: ``+1`` while the drawing stack lies beside slot 0 and the
  discard stack beside the last slot (a forward walk moves the cards to higher
  slots), ``-1`` after an odd number of reversals (the stacks swapped sides).
* ``set_aside``: events out of play for the rest of the round (dealt to nobody,
  played, spent), a list of kinds in no particular order; ``played``: per
  kind, the events played face up this round.
* ``table``: the face-down bribes of the bribe round in progress, a dict
  seat -> kind.
* ``wahlleiter_free`` (False = tied), ``stand_still`` and ``come_back`` (the
  pending walk modifiers "Stehenbleiben!" and "Komm mal zurück!").
* ``seat`` (the mover), ``round_starter``, ``totals``, ``titles`` (of the last
  round scored), ``over``, ``timeout`` and the counters ``n_turns``,
  ``n_rounds``, ``bribes_played``, ``bribes_won``, ``dice``.
* The decision pending: ``decision`` (its letter, see "Decisions", None when
  the game is over) and ``decider`` (the seat to decide). The move around it:
  ``give`` and ``partner`` (an exchange: the mover's card and the seat it goes
  to), ``slot`` and ``card`` (the slot enlisted and its leprechaun),
  ``winner`` (the winning bribe ``(seat, kind)`` or None), ``negated`` (by
  "Nix da!"), ``need`` (the pips the mover's roll needs), ``receiver`` (who
  fills the gap) and ``then`` (what follows a "no" to D: ``MOVER_RECEIVES``
  after an exchange, else ``END_EVENT``).

What each seat knows (docs/wichtel.md, "What each seat sees"); observers are
the seats and ``EVERYBODY`` (what the whole table saw), owners the seats and
``BOTTOM`` (the shuffled bottom of the drawing stack):

* ``sure[observer][owner]``: per type, the cards the observer is sure the
  owner holds;
* ``shuffled``: how many bottom cards of the drawing stack lie in shuffled
  order (``reshuffle_on_reverse``);
* ``shown[seat]``: the bribe kinds everybody saw go back to that seat's hand
  (a set: seeing one again adds nothing).

Decisions
---------
``decision`` is one of the letters of docs/wichtel.md, "A move of seat m";
``options()`` lists its options in the order of the docs, as Python values:

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

Action codes
------------
The table of docs/wichtel.md, "The decision points and their action codes":
``action_code(letter, option)`` is an option's code, ``action_option(letter,
action)`` the option of a code; ``legal_actions()`` lists the codes of
``options()`` in the same order.

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
* The greedy policy's tie-breaks of G, X and F draw ``randint(number tied)``
  even for a single best option, like A.
* A Rindentaler the mover does not beat (a "no" to R, or a failed reroll):
  the briber receives the leprechaun.
* ``bribes_played`` counts every bribe put on the table; ``bribes_won`` counts a
  winning "Der bin der Beste!" even when it is given to the mover.
* The move that ends a round counts as a turn; the turn limit is checked after
  the move and the round end it caused (a game decided on the last allowed move
  is not a timeout); the next round is dealt only if the game goes on.
* What an observer is sure of never goes below 0: "one fewer" of a type it is
  sure of none of changes nothing.
"""

from fractions import Fraction

from simcore.engine.rng import DECK, DICE, N_STREAMS, POLICY, Stream

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
        self._expected = None

    def evaluate(self, counts):
        key = tuple(counts)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._evaluate(key)
        return hit

    def score(self, counts):
        return self.evaluate(counts)[0]

    def __deepcopy__(self, memo):
        return self         # shared by every game with these values: a copied game keeps it

    def expected(self):
        """What a seat expects of a retinue it does not know (docs: "greedy"): the mean score of 4 leprechauns
        dealt from the 32, and per type the mean of what one such card would gain it; exact fractions, each
        retinue's chance the product of its cards' chances drawn one after the other."""
        if self._expected is None:
            chances = {}

            def deal(drawn, left, chance):
                if sum(drawn) == RETINUE_SIZE:
                    chances[tuple(drawn)] = chances.get(tuple(drawn), 0) + chance
                    return
                for t in range(N_TYPES):
                    if left[t]:
                        deal(drawn[:t] + [drawn[t] + 1] + drawn[t + 1:], left[:t] + [left[t] - 1] + left[t + 1:],
                             chance * Fraction(left[t], sum(left)))

            deal([0] * N_TYPES, list(LEPRECHAUN_COUNTS), Fraction(1))
            score = sum(chance * self.score(list(r)) for r, chance in chances.items())
            gains = [sum(chance * self.gain(list(r), card) for r, chance in chances.items())
                     for card in range(N_TYPES)]
            self._expected = (score, gains)
        return self._expected

    def gain(self, counts, card):
        """How much ``card`` would improve the retinue ``counts`` at best (one old card goes)."""
        best = max(self.score(replaced(counts, u, card)) for u, n in enumerate(counts) if n)
        return best - self.score(counts)

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


# --- action codes ------------------------------------------------------------------

# docs/wichtel.md, "The decision points and their action codes".
CALL, EXCHANGE, ENLIST = 0, 11, 66      # + t; + 5 t + q; + s
NO_BRIBE, BRIBE = 71, 72                # BRIBE + kind
SQUARE_EVENT, NO_EVENT = 73, 79         # SQUARE_EVENT + kind (7, 8, 9)
NIX_NO = 83                             # NIX_NO + 1: yes
GIFT = 85                               # + seat
REROLL_NO = 90
REPLY = 92                              # + type
FILL = 103                              # + type
END_NO = 114
FREE_NO = 116
NO_OR_YES = {"N": NIX_NO, "R": REROLL_NO, "D": END_NO, "W": FREE_NO}


def action_code(letter, option):
    """The action code of ``option`` (as listed by ``Game.options()``) at decision ``letter``."""
    if letter in NO_OR_YES:
        return NO_OR_YES[letter] + int(option)
    if letter in ("S", "E"):
        return NO_EVENT if option is None else SQUARE_EVENT + option
    if letter == "B":
        return NO_BRIBE if option is None else BRIBE + option
    if letter == "A":
        if option[0] == "call":
            return CALL + option[1]
        if option[0] == "exchange":
            return EXCHANGE + 5 * option[1] + option[2]
        return ENLIST + option[1]
    return {"X": REPLY, "F": FILL, "G": GIFT}[letter] + option


def action_option(letter, action):
    """The option an action code names at decision ``letter`` (``action_code`` undone)."""
    if letter in NO_OR_YES:
        return action == NO_OR_YES[letter] + 1
    if letter in ("S", "E"):
        return None if action == NO_EVENT else action - SQUARE_EVENT
    if letter == "B":
        return None if action == NO_BRIBE else action - BRIBE
    if letter == "A":
        if action < EXCHANGE:
            return ("call", action - CALL)
        if action < ENLIST:
            return ("exchange", *divmod(action - EXCHANGE, 5))
        return ("enlist", action - ENLIST)
    return action - {"X": REPLY, "F": FILL, "G": GIFT}[letter]


def stream_family(seed, game_index):
    """The streams of game ``game_index`` of the run with ``seed``, indexed by
    stream number (``DECK``, ``POLICY + seat`` ...): what ``resample`` takes."""
    return [Stream(seed, game_index, k) for k in range(N_STREAMS)]


# --- policies ------------------------------------------------------------------

class RandomPolicy:
    """Uniform over the options of every decision (drawn even for one option)."""

    def __init__(self, rng):
        self.rng = rng

    def act(self, game):
        actions = game.legal_actions()
        return actions[self.rng.randint(len(actions))]


class GreedyPolicy:
    """One ply on the score of the own retinue (docs: "greedy"); the others' retinues as the seat sees them."""

    def __init__(self, rng):
        self.rng = rng

    def act(self, game):
        return action_code(game.decision, self.choose(game, game.decider, game.decision))

    def _pick(self, candidates, keys, best):
        """A uniform candidate among those whose key is ``best`` (always drawn)."""
        tied = [x for x, k in zip(candidates, keys, strict=True) if k == best]
        return tied[self.rng.randint(len(tied))]

    def choose(self, game, seat, letter):
        """The option of decision ``letter`` that ``seat`` takes."""
        if letter in ("S", "E"):
            return None
        if letter == "N":
            return seat == game.seat            # only the mover defends its own enlist
        if letter == "R":
            return True
        if letter in ("D", "W"):
            return game.ahead(seat)
        if letter == "B":
            if game.gain(seat, game.card) <= 0:
                return None
            held = [kind for kind in game.options() if kind is not None and kind != DER]
            return max(held, key=game.rank.__getitem__) if held else None
        if letter == "A":
            return self._action(game, seat)
        options = game.options()
        if letter == "G":
            gains = [game.seen_gain(seat, q, game.card) for q in options]
            return self._pick(options, gains, min(gains))
        retinue = game.retinues[seat]
        if letter == "X":       # keep the best three, as if a Familie came back
            keys = [game.scorer.score(replaced(retinue, u, FA)) for u in options]
        else:                   # F: the card that leaves the best retinue with the new one
            keys = [game.scorer.score(replaced(retinue, u, game.card)) for u in options]
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


POLICIES = {"random": RandomPolicy, "greedy": GreedyPolicy}


def replaced(counts, out, into):
    """A copy of the multiset ``counts`` with one ``out`` swapped for ``into``."""
    result = list(counts)
    result[out] -= 1
    result[into] += 1
    return result


def _fewer_of_each(counts):
    """Sure of one card fewer of every type (of those it is sure of any)."""
    for t in range(N_TYPES):
        if counts[t]:
            counts[t] -= 1


def _one_fewer(counts, t):
    """Sure of one card of type ``t`` fewer, if it was sure of any."""
    if counts[t]:
        counts[t] -= 1


# --- the game ------------------------------------------------------------------

EVERYBODY = "everybody"     # the observer "the whole table"
BOTTOM = "bottom"           # the owner "the shuffled bottom of the drawing stack"
MOVER_RECEIVES, END_EVENT = "mover receives", "end event"   # what follows a "no" to D


def _complete(params):
    """``params`` over the defaults (``values`` and ``events`` merged key by key)."""
    full = {**DEFAULT_PARAMS, **params}
    full["values"] = {**DEFAULT_PARAMS["values"], **params.get("values", {})}
    full["events"] = {**DEFAULT_PARAMS["events"], **params.get("events", {})}
    return full


class Game:
    """One game of Der Herr der Wichtel (rounds until someone reaches the target).

    ``Game(params, policies, seed, game_index)`` shuffles, deals and starts
    round 1, at its first decision (``policies`` may be ``None`` for a game
    driven through the decision interface only). Then either ``play_out()``
    plays to the end and returns the result, or the decision interface drives
    it (``current_player()``, ``legal_actions()``, ``apply_action(action)``,
    ``returns()``, ``resample(seat, streams)``; see the module docstring), or
    a test drives it:

    * inspect the state (see the module docstring); ``score(seat)``,
      ``types(seat)``, ``gain(seat, card)``, ``ahead(seat)``, ``options()``
      (of the pending decision);
    * set up a position: ``set_retinue(seat, cards)``, ``set_hand(seat,
      events)``, ``set_square(cards)``, ``set_stacks(drawing, discard,
      direction)`` (bottom first, nobody knowing a card), or assign
      ``wahlleiter_free``, ``stand_still``, ``come_back``, ``set_aside``
      directly; ``start_move(seat)`` makes ``seat`` the mover at its first
      decision. Cards and events may be codes or names; their conservation
      is the caller's business;
    * ``rolls``: die results to use (in order) before the DICE stream is asked;
    * single steps: ``walk()`` (the walk of a move, modifiers included),
      ``forward_walk()``, ``backward_walk()``, ``draw(taker)``; ``step()``
      lets the policy of the seat to decide make one decision;
      ``score_round()`` scores the round and adds the bonuses; ``result()``
      is the result dict.
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
        self.policies = None if policies is None else [
            POLICIES[name](Stream(seed, game_index, POLICY + seat)) for seat, name in enumerate(policies)]
        self.rolls = []
        self.observers = [*range(self.players), EVERYBODY]
        self.owners = [*range(self.players), BOTTOM]

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
        self.start_round(p["first_seat"])

    def _validate(self, policies):
        p = self.params
        if self.players not in (3, 4, 5):
            raise ValueError("players must be 3, 4 or 5")
        if policies is None:
            policies = []
        elif len(policies) != self.players:
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
        return self.scorer.gain(self.retinues[seat], card)

    def knows_whole(self, seat, other):
        """Is ``seat`` sure of every card of ``other``'s retinue?"""
        return other == seat or sum(self.sure[seat][other]) == RETINUE_SIZE

    def seen_score(self, seat, other):
        """``other``'s retinue score as ``seat`` sees it: its score if known whole, else a dealt one's mean."""
        return self.score(other) if self.knows_whole(seat, other) else self.scorer.expected()[0]

    def seen_gain(self, seat, other, card):
        """What ``card`` would gain ``other``'s retinue as ``seat`` sees it (as ``seen_score``)."""
        return self.gain(other, card) if self.knows_whole(seat, other) else self.scorer.expected()[1][card]

    def ahead(self, seat):
        """Does ``seat``'s retinue score more than what it knows or expects of every other retinue?"""
        mine = self.score(seat)
        return all(mine > self.seen_score(seat, other) for other in range(self.players) if other != seat)

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
        """Both stacks, bottom card first, no card known to anybody; ``direction``
        as in the module docstring."""
        if direction not in (+1, -1):
            raise ValueError("direction is +1 or -1")
        self.drawing = [_leprechaun(c) for c in drawing]
        self.discard = [_leprechaun(c) for c in discard]
        self.drawing_seen = [frozenset()] * len(self.drawing)
        self.discard_seen = [frozenset()] * len(self.discard)
        self.shuffled = 0
        self.direction = direction

    def start_move(self, seat):
        """``seat`` moves now: its first decision (S) is pending, nothing of the
        move decided yet."""
        self.seat = seat
        self.give = self.partner = self.slot = self.card = None
        self.winner = self.need = self.receiver = self.then = None
        self.negated = False
        self._ask("S", seat)

    # --- dice ---------------------------------------------------------------------------

    def roll(self):
        """One die roll: a scripted one from ``rolls`` if any is left, else stream DICE."""
        self.dice += 1
        if self.rolls:
            return self.rolls.pop(0)
        return 1 + self.dice_rng.randint(6)

    # --- rounds ----------------------------------------------------------------------

    def start_round(self, starter):
        """Shuffle both decks, deal retinues, the square, the stacks and the events;
        nobody knows anything yet but its own cards and the square. ``starter``
        moves first."""
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
        discard = [leprechauns.pop()]
        self.set_stacks(leprechauns, discard)

        self.hands = [[0] * N_EVENTS for _ in range(n)]
        for seat in range(n):
            for _ in range(min(HAND_SIZE, len(events))):
                self.hands[seat][events.pop()] += 1
        self.set_aside = events          # never refilled within the round
        self.played = [0] * N_EVENTS
        self.table = {}

        self.sure = {o: {owner: [0] * N_TYPES for owner in self.owners} for o in self.observers}
        self.shown = [set() for _ in range(n)]
        self.wahlleiter_free = False
        self.stand_still = False
        self.come_back = False
        self.round_starter = starter
        self.start_move(starter)

    def score_round(self):
        """Score every retinue, add the bonuses; the game is over when a total
        reaches the target. Returns the round scores."""
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
            top = max(self.totals)
            self._game_over([seat for seat, total in enumerate(self.totals) if total == top])
        return scores

    def _game_over(self, winners):
        self.over = True
        self.winners = winners
        self.decision = self.decider = None

    def _timed_out(self):
        """The turn limit: True (and the game over as a timeout) once reached."""
        if self.n_turns < self.max_turns:
            return False
        self.timeout = True
        self._game_over([])
        return True

    # --- the stacks and the walk -----------------------------------------------------

    def _beside_slot_0(self):
        """The stack beside slot 0 and its places' observers, then the other one."""
        if self.direction > 0:
            return (self.drawing, self.drawing_seen), (self.discard, self.discard_seen)
        return (self.discard, self.discard_seen), (self.drawing, self.drawing_seen)

    def _reverse(self):
        """The drawing stack ran out: the discard stack becomes the drawing stack (as
        it lies, or reshuffled from canonical order) and the stacks swap sides.
        Reshuffled, whoever knew a card's place is sure it lies in the shuffled
        bottom, nobody knows where."""
        stack, seen = self.discard, self.discard_seen
        if self.reshuffle_on_reverse:
            for card, who in zip(stack, seen, strict=True):
                for o in who:
                    self.sure[o][BOTTOM][card] += 1
            stack = sorted(stack)
            self.deck_rng.shuffle(stack)
            seen = [frozenset()] * len(stack)
            self.shuffled = len(stack)
        self.drawing, self.discard = stack, []
        self.drawing_seen, self.discard_seen = seen, []
        self.direction = -self.direction

    def draw(self, taker=None):
        """The top card of the drawing stack (reversing at once if that empties it):
        face up into the square (``taker`` None) or into ``taker``'s retinue by a
        call, which whoever knew its place sees."""
        card = self.drawing.pop()
        who = self.drawing_seen.pop()
        if len(self.drawing) < self.shuffled:       # it came from the shuffled bottom
            self.shuffled = len(self.drawing)
            for o in self.observers:
                if taker is None or o == taker:     # seen leaving
                    _one_fewer(self.sure[o][BOTTOM], card)
                else:
                    _fewer_of_each(self.sure[o][BOTTOM])
        elif taker is not None:
            for o in who:
                if o != taker:
                    self.sure[o][taker][card] += 1
        if not self.drawing:
            self._reverse()
        return card

    def forward_walk(self):
        """The card beside the discard stack goes face up onto it, the others step
        toward it, the drawing stack's top fills the slot beside the drawing stack."""
        square = self.square
        forward = self.direction > 0    # the drawing stack beside slot 0 (before a reversal by this walk)
        self.discard.append(square.pop() if forward else square.pop(0))
        self.discard_seen.append(frozenset(self.observers))
        card = self.draw()
        if forward:
            square.insert(0, card)
        else:
            square.append(card)

    def backward_walk(self):
        """"Komm mal zurück!": the walk the other way, fed from the discard stack."""
        if not self.discard:
            return                  # nothing to fill the gap: nothing moves
        square = self.square
        self.drawing.append(square.pop(0) if self.direction > 0 else square.pop())
        self.drawing_seen.append(frozenset(self.observers))
        self.discard_seen.pop()
        if self.direction > 0:      # drawing stack beside slot 0
            square.append(self.discard.pop())
        else:
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

    # --- what the others see of a card changing hands -----------------------------------

    def _forget_one(self, owner, also):
        """``owner`` gave away a card the observers other than itself and ``also``
        did not see: they are sure of one card fewer of every type it holds."""
        for o in self.observers:
            if o not in (owner, also):
                _fewer_of_each(self.sure[o][owner])

    def _seen_to_take(self, owner, card, gap):
        """Everybody saw ``owner`` take ``card`` and put ``gap`` face up into the square."""
        for o in self.observers:
            if o != owner:
                self.sure[o][owner][card] += 1
                _one_fewer(self.sure[o][owner], gap)

    def _set_aside_played(self, seat, kind):
        """An event of ``seat`` is played face up and set aside for the round; a bribe
        of a kind everybody saw go back to it is no longer sure to be in its hand."""
        self.set_aside.append(kind)
        self.played[kind] += 1
        self.shown[seat].discard(kind)

    def _spend(self, seat, kind):
        """An event card leaves ``seat``'s hand face up and is set aside for the round."""
        self.hands[seat][kind] -= 1
        self._set_aside_played(seat, kind)

    # --- the decision interface -----------------------------------------------------
    # docs/wichtel.md, "A move of seat m" and "Decisions, information and resampling".

    def _ask(self, letter, seat):
        self.decision = letter
        self.decider = seat

    def current_player(self):
        """The seat to decide, or -1 when the game is over (or timed out)."""
        return -1 if self.over else self.decider

    def options(self):
        """The options of the pending decision, in the order of the docs."""
        letter, seat = self.decision, self.decider
        if letter in ("S", "E"):
            return [None] + [kind for kind in SQUARE_EVENTS if self.hands[seat][kind]]
        if letter == "A":
            types = self.types(seat)
            others = [(seat + k) % self.players for k in range(1, self.players)]
            return ([("call", t) for t in types]
                    + [("exchange", t, q) for t in types for q in others]
                    + [("enlist", s) for s in range(self.players)])
        if letter in ("X", "F"):
            return self.types(seat)
        if letter == "B":
            return [None] + [kind for kind in range(R2, DER + 1) if self.hands[seat][kind] and kind in self.rank]
        if letter == "G":
            return [(seat + k) % self.players for k in range(1, self.players)]
        return [False, True]

    def legal_actions(self):
        return [action_code(self.decision, option) for option in self.options()]

    def apply_action(self, action):
        """The pending decision answered; the rules run on to the next decision."""
        option = action_option(self.decision, action)
        if option not in self.options() or action_code(self.decision, option) != action:
            raise ValueError(f"action {action} is not legal at decision {self.decision}")
        ANSWER[self.decision](self, option)

    def returns(self):
        """1 to a sole winner, 1/k to each of k seats sharing the win, 0 to the
        others; 0 to everybody after a timeout (and while the game runs)."""
        return [1 / len(self.winners) if seat in self.winners else 0.0 for seat in range(self.players)]

    # --- the answers -------------------------------------------------------------------

    def _start_event(self, kind):
        """S answered; then the walk of the move, and the action."""
        self._village_event(kind)
        self.walk()
        self._ask("A", self.seat)

    def _village_event(self, kind):
        if kind is None:
            return
        self._spend(self.seat, kind)
        if kind == KOMM_HER:
            self.walk()
        elif kind == KOMM_ZURUECK:
            self.come_back = True
        else:
            self.stand_still = True

    def _action(self, action):
        """A answered: a call, an exchange (the partner replies first) or an enlist
        (the bribe round starts at the mover's left)."""
        m = self.seat
        if action[0] == "call":
            self._call(m, action[1])
        elif action[0] == "exchange":
            self.give, self.partner = action[1], action[2]
            self._ask("X", self.partner)
        else:
            self.slot = action[1]
            self.card = self.square[self.slot]
            self.table = {}
            self._ask("B", (m + 1) % self.players)

    def _call(self, m, t):
        """t goes face down onto the discard stack (only m knows it there), m draws."""
        self.retinues[m][t] -= 1
        self.discard.append(t)
        self.discard_seen.append(frozenset([m]))
        self._forget_one(m, also=m)
        self.retinues[m][self.draw(taker=m)] += 1
        self._received(m, END_EVENT)

    def _reply(self, u):
        """X answered: the mover gives its card and gets ``u``; the partner has
        received first. Each partner sees the card it gets."""
        m, q, t = self.seat, self.partner, self.give
        self.retinues[m] = replaced(self.retinues[m], t, u)
        self.retinues[q] = replaced(self.retinues[q], u, t)
        _one_fewer(self.sure[m][q], u)
        self.sure[m][q][t] += 1
        _one_fewer(self.sure[q][m], t)
        self.sure[q][m][u] += 1
        self._forget_one(m, also=q)
        self._forget_one(q, also=m)
        self._received(q, MOVER_RECEIVES)

    def _bribe(self, kind):
        """B answered: a bribe (or none) goes face down onto the table; after the
        last seat before the mover all are revealed."""
        b = self.decider
        if kind is not None:
            self.hands[b][kind] -= 1
            self.table[b] = kind
            self.bribes_played[b] += 1
        following = (b + 1) % self.players
        if following != self.seat:
            self._ask("B", following)
        else:
            self._reveal()

    def _reveal(self):
        """All bribes revealed at once: the winning one is played (set aside), the
        others go back to their owners, as everybody sees."""
        n, m = self.players, self.seat
        winner = None                   # (seat, kind) of the winning bribe so far
        for k in range(1, n):
            b = (m + k) % n
            if b not in self.table:
                continue
            kind = self.table[b]
            if winner is None:
                winner = (b, kind)
            else:
                here, there = self.rank[kind], self.rank[winner[1]]
                if here > there or (here == there and self.later_wins_ties):
                    winner = (b, kind)
        for b, kind in self.table.items():
            if winner[0] != b:
                self.hands[b][kind] += 1
                self.shown[b].add(kind)
        self.table = {}
        self.winner = winner
        self.negated = False
        if winner is None:
            self._resolve()
            return
        self._set_aside_played(*winner)
        self._ask_nix_da(0)

    def _ask_nix_da(self, start):
        """N: clockwise from the seat ``start`` places after the mover (0: the mover)
        up to the seat before it, the first seat but the winning briber that holds
        "Nix da!" is asked."""
        n, m = self.players, self.seat
        for k in range(start, n):
            seat = (m + k) % n
            if seat != self.winner[0] and self.hands[seat][NIX_DA]:
                self._ask("N", seat)
                return
        self._resolve()

    def _nix_da(self, yes):
        if yes:                         # both cards are discarded: the bribe is negated
            self._spend(self.decider, NIX_DA)
            self.negated = True
            self._resolve()
        else:
            self._ask_nix_da((self.decider - self.seat) % self.players + 1)

    def _resolve(self):
        """c. Who gets the leprechaun: Ich takes it, Der gives it (G); else the mover
        rolls, against a Rindentaler for its value, unbribed for anything but a 1."""
        if self.winner is not None and not self.negated:
            briber, kind = self.winner
            if kind == ICH:
                self._receive(briber)
                return
            if kind == DER:
                self._ask("G", briber)
                return
            self.need = rindentaler_value(kind)
        else:
            self.need = 2               # anything but a 1
        self._roll_for_it()

    def _roll_for_it(self):
        m = self.seat
        if self.roll() >= self.need:
            self._receive(m)
        elif self.hands[m][GUCK_NOCHMAL]:
            self._ask("R", m)
        else:
            self._roll_failed()

    def _reroll(self, yes):
        """R answered: "Ich guck nochmal!" is spent for one more roll."""
        if yes:
            self._spend(self.seat, GUCK_NOCHMAL)
            if self.roll() >= self.need:
                self._receive(self.seat)
                return
        self._roll_failed()

    def _roll_failed(self):
        """The briber receives the leprechaun; unbribed it stays in its slot."""
        if self.winner is not None and not self.negated:
            self._receive(self.winner[0])
        else:
            self._ask("E", self.seat)

    def _receive(self, receiver):
        """The receiver takes the leprechaun and fills the gap next (F). A bribe that
        took it from the mover counts as won."""
        if self.winner is not None and not self.negated:
            briber, kind = self.winner
            if kind in (ICH, DER) or receiver == briber:
                self.bribes_won[briber] += 1
        self.receiver = receiver
        self._ask("F", receiver)

    def _fill(self, u):
        """F answered: the leprechaun joins the retinue, ``u`` goes face up into the slot."""
        r = self.receiver
        self.retinues[r] = replaced(self.retinues[r], u, self.card)
        self.square[self.slot] = u
        self._seen_to_take(r, self.card, u)
        self._received(r, END_EVENT)

    def _received(self, seat, then):
        """6. ``seat`` got a new leprechaun: with the Wahlleiter free it may end the
        round (D); ``then`` is what follows if it does not."""
        if self.wahlleiter_free:
            self.then = then
            self._ask("D", seat)
        else:
            self._go_on(then)

    def _go_on(self, then):
        if then == MOVER_RECEIVES:      # after an exchange the mover has received too
            self._received(self.seat, END_EVENT)
        else:
            self._ask("E", self.seat)

    def _end_the_round(self, yes):
        """D answered: yes ends the round at once (the move counts as a turn)."""
        if not yes:
            self._go_on(self.then)
            return
        self.n_turns += 1
        self.score_round()
        if not self.over and not self._timed_out():
            self.start_round((self.round_starter + 1) % self.players)

    def _end_event(self, kind):
        """E answered; then W while the Wahlleiter is tied."""
        self._village_event(kind)
        if self.wahlleiter_free:
            self._end_move()
        else:
            self._ask("W", self.seat)

    def _free(self, yes):
        """W answered: the Wahlleiter is freed only at the end of a move, so no
        round ends in the move that freed him."""
        if yes:
            self.wahlleiter_free = True
        self._end_move()

    def _end_move(self):
        """7. The move is one turn; the next seat clockwise moves."""
        self.n_turns += 1
        self.seat = (self.seat + 1) % self.players
        if not self._timed_out():
            self.start_move(self.seat)

    # --- resampling what a seat cannot see ------------------------------------------------

    def resample(self, seat, streams):
        """Replace what ``seat`` cannot see by a random world consistent with what
        it knows, drawing from ``streams[DECK]`` (docs/wichtel.md, "resample(seat)"):
        the leprechauns, the events, the card the mover hands over in a pending
        exchange; the other seats keep only what everybody is sure of."""
        rng = streams[DECK]
        self._redraw_leprechauns(seat, rng)
        self._redraw_events(seat, rng)
        for q in range(self.players):
            if q != seat:
                self.sure[q] = {owner: list(counts) for owner, counts in self.sure[EVERYBODY].items()}
        if self.decision == "X" and seat != self.seat:
            cards = [t for t in range(N_TYPES) for _ in range(self.retinues[self.seat][t])]
            self.give = cards[rng.randint(len(cards))]

    def _unknown_places(self, seat):
        """The stack places ``seat`` does not know, as (stack, index), the stack
        beside slot 0 first, each bottom up; the shuffled bottom is left out."""
        places = []
        for stack, seen in self._beside_slot_0():
            low = self.shuffled if stack is self.drawing else 0
            places += [(stack, k) for k in range(low, len(stack)) if seat not in seen[k]]
        return places

    def _redraw_leprechauns(self, seat, rng):
        """Step 1: every leprechaun ``seat`` cannot place, pooled, shuffled and dealt
        back to the places it cannot see."""
        others = [q for q in range(self.players) if q != seat]
        known = self.sure[seat]
        bottom = self.drawing[:self.shuffled]
        places = self._unknown_places(seat)
        pool = [t for q in others for t in range(N_TYPES) for _ in range(self.retinues[q][t] - known[q][t])]
        pool += [stack[k] for stack, k in places]
        pool += [t for t in range(N_TYPES) for _ in range(bottom.count(t) - known[BOTTOM][t])]
        rng.shuffle(pool)
        deal = iter(pool)
        for q in others:
            retinue = list(known[q])
            for _ in range(RETINUE_SIZE - sum(retinue)):
                retinue[next(deal)] += 1
            self.retinues[q] = retinue
        for stack, k in places:
            stack[k] = next(deal)
        bottom = [t for t in range(N_TYPES) for _ in range(known[BOTTOM][t])]
        bottom += [next(deal) for _ in range(self.shuffled - len(bottom))]
        rng.shuffle(bottom)
        self.drawing[:self.shuffled] = bottom

    def _redraw_events(self, seat, rng):
        """Step 2: the events ``seat`` cannot place, shuffled and dealt to the other
        seats after the bribes everybody saw go back to them; a face-down bribe is
        one of its owner's cards, and a deal that makes one no allowed bribe is
        drawn again."""
        others = [q for q in range(self.players) if q != seat]
        held = {b: sum(self.hands[b]) + (b in self.table) for b in others}
        pool = []
        for k in range(N_EVENTS):
            unplaced = self.event_counts[k] - self.played[k] - self.hands[seat][k] - (self.table.get(seat) == k)
            unplaced -= sum(k in self.shown[b] for b in others)
            pool += [k] * unplaced
        rng.shuffle(pool)
        while True:
            dealt, start = {}, 0
            for b in others:
                hidden = held[b] - len(self.shown[b])
                dealt[b] = sorted(self.shown[b]) + pool[start:start + hidden]
                start += hidden
            face_down = self._face_down_bribes(dealt, held, rng)
            if face_down is not None:
                break
            rng.shuffle(pool)
        for b in others:
            self.hands[b] = _counts(dealt[b], N_EVENTS)
            if b in face_down:
                self.table[b] = face_down[b]
                self.hands[b][face_down[b]] -= 1

    def _face_down_bribes(self, dealt, held, rng):
        """Each face-down bribe on the table is one of its owner's dealt cards, seat
        by seat; None as soon as one is no allowed bribe."""
        face_down = {}
        for b, cards in dealt.items():
            if b in self.table:
                face_down[b] = cards[rng.randint(held[b])]
                if face_down[b] not in self.rank:
                    return None
        return face_down

    # --- policies ----------------------------------------------------------------

    def step(self):
        """The policy of the seat to decide makes one decision."""
        self.apply_action(self.policies[self.decider].act(self))

    def play_out(self):
        while (seat := self.current_player()) >= 0:
            self.apply_action(self.policies[seat].act(self))
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


# The answer to each decision (docs/wichtel.md, "A move of seat m").
ANSWER = {"S": Game._start_event, "A": Game._action, "X": Game._reply, "B": Game._bribe, "N": Game._nix_da,
          "G": Game._receive, "R": Game._reroll, "F": Game._fill, "D": Game._end_the_round, "E": Game._end_event,
          "W": Game._free}


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


if __name__ == "__main__":   # a quick speed check: python -m benchmarks.reference.wichtel
    import time

    for name in ("random", "greedy"):
        t0 = time.perf_counter()
        games = run(DEFAULT_PARAMS, [name] * 4, seed=1, n_games=300)
        dt = time.perf_counter() - t0
        print(f"4 x {name}: {len(games) / dt:.0f} games/s")
