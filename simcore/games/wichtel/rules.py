"""Der Herr der Wichtel (leprechaun election with bribes), 3-5 players.

The rules as simulated, decision by decision and with the order of random
draws, are in ``docs/wichtel.md``: the rulebook (Der Herr der Wichtel, Ralf
Sandfuchs, Krimsus Krimskrams Kiste 1998) with our decisions where it is
silent, each decision a parameter.

The village square between the two stacks (here the drawing stack is stack A,
so leprechauns walk from A toward B, the discard stack)::

    stack A        slot 0   slot 1   slot 2   slot 3        stack B
    (drawing)  ->  [ KS ] -> [ FA ] -> [ HF ] -> [ WW ]  ->  (discard)
                                                  leaves first on a walk

When the drawing stack runs out, the discard stack becomes the drawing stack
and the walk turns round (``S_DRAW_SIDE`` says which stack draws).

A retinue is scored by :func:`score_retinue` (plain Python, the rules in one
place); the jitted code looks the score up in a table built from it for every
4-card retinue, passed in the parameter array.

A game is a sequence of decisions (the interface of simcore's agents: ``begin``, ``current_player``,
``legal_actions``, ``apply_action``, ``returns``, ``resample``, ``greedy_action``). A move of docs/wichtel.md
is played as a state machine: ``S_PHASE`` names the pending decision and the ``S_MOVER`` .. ``S_AFTER`` fields
keep what the rest of the move needs, so ``apply_action`` resumes the move where the decision interrupted it.

The state of one game is one flat ``int16`` array (``STATE_DTYPE``) of 623 words, 1,246 bytes (it was 4,224
bytes of ``int64``), allocation free, since a search copies it for every rollout. Every field fits in 15 bits
but the wide counts (totals, bribes, turns, rounds, dice), each kept in two words (``wide``, ``add_wide``: the
low 15 bits at its offset, the rest in ``S_HIGH``), which gives them 31 bits::

    S_RET     [MAX_SEATS x 11]   retinues: cards per leprechaun type (at most 6 of a type)
    S_EVT     [MAX_SEATS x 12]   event hands: cards per event kind (at most 20, events.*)
    S_SQUARE  [MAX_SEATS]        the village square, slot -> leprechaun type
    S_KNOWN   [6 x 6 x 3]        per observer (seat, PUBLIC) and owner (seat, SHUFFLED): the cards it is sure of,
                                 4 bits per type, types 0-3, 4-7 and 8-10 in three words; a count never reaches 8
                                 (at most 6 of a type), so no word reaches the sign bit
    S_SHOWN, S_SPENT             bribes shown and gone back to their owner (0 or 1); events played face up
    S_SHUFFLED                   the drawing stack's bottom cards in shuffled order (reshuffle_on_reverse)
    S_STACK_A / S_STACK_B [32]   the stacks beside slot 0 / the last slot, top last
    S_MASK_A / S_MASK_B [32]     who knows each card of the stacks (a bit per observer: below 64)
    S_A_N, S_B_N, S_DRAW_SIDE    stack sizes; 0: A draws, 1: B draws
    S_FREE, S_BACK, S_STAND      Wahlleiter freed; pending Komm mal zurück / Stehenbleiben
    S_TABLE, S_TITLES [MAX_SEATS]  the face-down bribes of a bribe round; titles (-1: none)
    S_ASIDE .. S_OVER            scalars (at most 60 events set aside)
    S_TOTALS, S_BRIBES_PLAYED, S_BRIBES_WON [MAX_SEATS]
    S_TURN, S_N_ROUNDS, S_DICE   the wide counts
    S_HIGH    [N_WIDE = 18]      their high words
    S_PHASE .. S_AFTER           the pending decision and the move in progress (seats, cards, at most 8 pips)
    S_SCRATCH .. S_DECK          caches and scratch (not part of what anybody knows)

The wide counts: a game has at most max_turns <= 1,000,000 moves, a round ends with one, a move rolls the die
at most twice (Ich guck nochmal!) and lets each seat put down one bribe, so turns, rounds and bribes stay
below 2^20 and dice below 2^21. A retinue scores between -810 (the widow doubles 4 x -100 and the -5 of the
Family Assessor) and 465 (4 x 100 and the Chieftain's 65), so a round adds between -910 and 565 to a total
(bonuses at most 100) and a total stays within 910 x 1,000,000 < 2^30. The scratch and caches hold scores,
gains (at most 465 + 810) and counts.

Speed: the game's functions are compiled with ``simcore.engine.jit.kernel`` (no reference counting of arrays), so
arrays pass from function to function for free and the small functions need no inlining at numba's level
(``inline="always"`` did that before, at three times the cold compile).
"""

import math
from functools import lru_cache
from itertools import combinations_with_replacement, product

import numpy as np

from simcore.engine import O_FIRST_SEAT, O_N_TURNS, O_TIMEOUT, O_WIN, extra_offset, rng, score_offset
from simcore.engine.jit import kernel
from simcore.games import GameType, Param, StateView, scalar_offsets

# --- pieces -------------------------------------------------------------------

CARDS = ("FA", "HS", "HF", "VA", "ME", "KS", "SW", "WW", "GE", "HD", "HW")
FA, HS, HF, VA, ME, KS, SW, WW, GE, HD, HW = range(11)
N_TYPES = 11
COUNTS = (6, 6, 4, 2, 1, 5, 3, 2, 1, 1, 1)          # rulebook: 32 leprechauns
N_LEPRECHAUNS = sum(COUNTS)
DECK_ORDER = np.repeat(np.arange(N_TYPES), COUNTS)   # the 32 leprechauns in canonical order
DECK_ORDER.setflags(write=False)
RETINUE = 4

EVENTS = ("r2", "r3", "r4", "r5", "r6", "ich", "der", "komm_her", "komm_zurueck", "stehenbleiben",
          "guck_nochmal", "nix_da")
R2, R3, R4, R5, R6, ICH, DER, KOMM_HER, KOMM_ZURUECK, STEHENBLEIBEN, GUCK_NOCHMAL, NIX_DA = range(12)
N_EVENTS = 12
BRIBES = ("2", "3", "4", "5", "6", "ich", "der")     # bribe kinds, event codes 0..6
N_BRIBES = 7
MAX_EVENT_CARDS = 60
EVENTS_IN_HAND = 4

MAX_SEATS = 5
O_SCORE = score_offset(MAX_SEATS)
O_EXTRA = extra_offset(MAX_SEATS)


# name, compulsory, rest, value (rulebook: Scoring; decisions: Scoring)
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
CAREERS = (
    ("Wood-Chief", (HW, HD, ME, VA), 40),
    ("War-Chief", (HW, HD, GE, WW), 45),
    ("Chieftain", (HW, HD, ME, GE), 65),
)
TITLE_NAMES = tuple(t[0] for t in TITLES) + tuple(c[0] for c in CAREERS)
DEFAULT_VALUES = {"FA": 0, "HS": 1, "HF": 2, "VA": 4, "ME": 7, "KS": 2, "SW": 3, "WW": 5, "GE": 8, "HD": 10,
                  "HW": 4}

# --- scoring (plain Python) -----------------------------------------------------


def _codes(cards):
    try:
        return [c if isinstance(c, int) else CARDS.index(c) for c in cards]
    except ValueError:
        raise ValueError(f"unknown card in {cards}; allowed: {', '.join(CARDS)}") from None


def _qualifies(title, cards):
    """Rulebook: 'the player must have the cards mentioned under the header Compulsory ...; the other cards
    must be several of those that are mentioned as Rest'."""
    _, compulsory, rest, _ = title
    left = list(cards)
    for c in compulsory:
        if c not in left:
            return False
        left.remove(c)
    return all(c in rest for c in left)


def _title_choices(for_titles):
    """The titles (indices; -1 for none) the player can end up with (decisions: Scoring, step 3).

    The HD's player chooses its form: any card type but HW. Posing as HD it stays itself, which is in no rest
    list: that is the choice "none". With a form no title fits, the retinue has none; else the player picks one
    of the titles that fit. Without an HD the title that fits is taken (the rulebook offers no way to decline)."""
    others = [c for c in for_titles if c != HD]
    choices = set()
    for forms in product(range(HW), repeat=len(for_titles) - len(others)):   # each HD its own form
        fitting = [k for k, title in enumerate(TITLES) if _qualifies(title, others + list(forms))]
        choices.update(fitting or [-1])
    return choices


def _after_widow(subtotal):
    """The widow turns a positive result negative and doubles a negative one."""
    return -subtotal if subtotal > 0 else 2 * subtotal


def score_and_title(cards, values=None):
    """(score, title index or -1) of a retinue, without the round bonuses (docs/wichtel.md: Scoring)."""
    value = [(values or DEFAULT_VALUES)[name] for name in CARDS]
    kept = _codes(cards)
    if ME in kept or GE in kept:
        # ME/GE special rule: cards worth less than 3 are set aside (the widow, printed 4, stays; an HD posing
        # as ME or GE sets nothing aside).
        kept = [c for c in kept if value[c] >= 3]
    for k, (_, career, bonus) in enumerate(CAREERS):
        if sorted(kept) == sorted(career):
            return sum(value[c] for c in kept) + bonus, len(TITLES) + k
    points = sum(value[FA if c == HW else c] for c in kept)   # the widow counts as a Familie; HD keeps its value
    widow = HW in kept

    def worth(k):
        return TITLES[k][3] if k >= 0 else 0

    def total(k):
        return _after_widow(points + worth(k)) if widow else points + worth(k)

    # The player takes the choice with the highest total; of two equal totals (possible only with changed card
    # values) the one that was higher before the widow spoiled it.
    title = max(_title_choices([FA if c == HW else c for c in kept]), key=lambda k: (total(k), worth(k)))
    return total(title), title


def score_retinue(cards, params=None):
    """Points of a retinue (card shorthands such as ``['HW', 'HD', 'ME', 'GE']``), without round bonuses."""
    return score_and_title(cards, _values(params))[0]


def best_title(cards, params=None):
    """The title (or career) a retinue earns, or None."""
    k = score_and_title(cards, _values(params))[1]
    return TITLE_NAMES[k] if k >= 0 else None


def _values(params):
    if params is None:
        return DEFAULT_VALUES
    if "values" in params:
        return {**DEFAULT_VALUES, **params["values"]}
    return {name: params.get(f"values.{name}", DEFAULT_VALUES[name]) for name in CARDS}


def retinue_index(codes):
    """Index of a 4-card retinue in the score tables (order of the cards does not matter)."""
    a, b, c, d = sorted(codes)
    return ((a * N_TYPES + b) * N_TYPES + c) * N_TYPES + d


def score_tables(values):
    """Scores and title indices of every sorted 4-card retinue, for the jitted code."""
    return _score_tables(tuple(values[name] for name in CARDS))


def expectations(values):
    """What a seat expects of a retinue dealt at random: the entries P_MEAN_SCORE .. N_PARAMS."""
    return _expectations(tuple(values[name] for name in CARDS))


MEAN_DEN = math.comb(N_LEPRECHAUNS, RETINUE)   # 35,960 ways to deal 4 of the 32 leprechauns


@lru_cache(maxsize=32)
def _expectations(value_tuple):
    """The sum over the dealt retinues of their scores, of what a card of each type would gain them, and the
    standard deviation of their score, from the score table: each sorted retinue weighs the ways to deal it (a
    product of binomials over its types)."""
    scores = _score_tables(value_tuple)[0]
    total, spread = 0, 0
    gains = [0] * N_TYPES
    for combo in combinations_with_replacement(range(N_TYPES), RETINUE):
        ways = math.prod(math.comb(COUNTS[t], combo.count(t)) for t in set(combo))
        score = int(scores[retinue_index(combo)])
        total += ways * score
        spread += ways * score * score
        for card in range(N_TYPES):
            best = max(int(scores[retinue_index((*combo[:i], *combo[i + 1:], card))]) for i in range(RETINUE))
            gains[card] += ways * (best - score)
    mean = total / MEAN_DEN
    return (total, *gains, round(math.sqrt(spread / MEAN_DEN - mean * mean)))


@lru_cache(maxsize=32)
def _score_tables(value_tuple):
    values = dict(zip(CARDS, value_tuple, strict=True))
    scores = np.zeros(N_TYPES ** RETINUE, np.int64)
    titles = np.full(N_TYPES ** RETINUE, -1, np.int64)
    for combo in combinations_with_replacement(range(N_TYPES), RETINUE):
        scores[retinue_index(combo)], titles[retinue_index(combo)] = score_and_title(combo, values)
    scores.setflags(write=False)
    titles.setflags(write=False)
    return scores, titles


# --- parameters ---------------------------------------------------------------


def _check_ranking(value):
    kinds = [k.strip() for k in value.split(",")] if isinstance(value, str) else value
    if (not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds)
            or any(k not in BRIBES for k in kinds) or len(set(kinds)) != len(kinds) or not kinds):
        raise ValueError("not allowed; allowed: distinct bribe kinds from 2, 3, 4, 5, 6, ich, der, lowest first, "
                         "as a list or comma-separated")
    return kinds


GAME = GameType(
    name="wichtel",
    long_name="Der Herr der Wichtel (leprechaun election with bribes)",
    rulebook="Der Herr der Wichtel, Ralf Sandfuchs (Krimsus Krimskrams Kiste, 1998)",
    player_counts=(3, 4, 5),
    policies=("random", "greedy", "mc", "ismcts"),
    margin="points",
    rules_version=2,                  # 2: greedy no longer peeks at the other retinues (issue 24)
    restricted_greedy=True,     # heuristics.greedy_among: its action A and bribe among the allowed
    observations=True,
    # the recommended search on fresh deals (docs/explanation/agents.md, "Recommended search")
    strength="0.306 [0.268, 0.347] against three greedy seats, fair 0.25 (4 players, 100 deals x 4 seats, "
             "seed 9173)",
    # a cut-off of 24 decisions, not 8: as strong at 1,000 iterations, and more iterations keep winning more
    # (docs/how-to/skill.md, the Wichtel ladder)
    search=(("cutoff", 24), ("widen", 0.5)),     # docs/explanation/agents.md: "Recommended search"
    cases=({"players": 3}, {"players": 5}),
    readings=(("reshuffle_on_reverse", (False, True),
               "\"the former discard stack becomes the new drawing stack\": turned over as it lies, or shuffled"),),
    summary="Gather the best retinue of four leprechauns, bribe for them, end the round when ahead; first to 99.",
    params=(
        Param("players", 4, "players", choices=(3, 4, 5)),
        Param("first_seat", 0, "seat that moves first in round 1 (decisions)", 0, 4),
        Param("max_turns", 5000, "a game still running after this many moves is a timeout", 1, 1_000_000),
        Param("target_score", 99, "the game ends after the round in which a total reaches this (rulebook)",
              1, 10_000),
        Param("best_bonus", 5, "bonus of the round's best score (rulebook)", -100, 100),
        Param("worst_bonus", 1, "bonus of the round's worst score (rulebook)", -100, 100),
        Param("bribe_ranking", list(BRIBES), "bribe kinds lowest first; kinds left out cannot bribe (rulebook)",
              validator=_check_ranking, allowed_text="distinct kinds from 2, 3, 4, 5, 6, ich, der, lowest first"),
        Param("bribe_tie", "last", "of equal bribes the last (rulebook) or the first played counts",
              choices=("last", "first")),
        Param("reshuffle_on_reverse", False, "shuffle the discard stack when it becomes the drawing stack"),
        *(Param(f"values.{name}", DEFAULT_VALUES[name], f"printed value of {name} (decisions)", -100, 100)
          for name in CARDS),
        *(Param(f"events.{name}", count, f"{name} event cards (decisions)", 0, 20)
          for name, count in zip(EVENTS, (3, 3, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1), strict=True)),
    ),
)

EXTRA_COLUMNS = (
    ("n_rounds", "int", "rounds scored"),
    ("title_{seat}", TITLE_NAMES, "title of seat i's retinue in the last round scored ('' for none)"),
    ("bribes_played_{seat}", "int", "bribes seat i put down"),
    ("bribes_won_{seat}", "int", "bribes of seat i that took the leprechaun from the mover"),
    ("dice", "int", "dice rolled"),
)

P_PLAYERS, P_FIRST_SEAT, P_MAX_TURNS, P_TARGET, P_BEST_BONUS, P_WORST_BONUS, P_TIE_FIRST, P_RESHUFFLE = range(8)
P_RANK = 8                                 # rank of each bribe kind, -1 if it cannot bribe
P_EVENT_COUNTS = P_RANK + N_BRIBES
P_SCORES = P_EVENT_COUNTS + N_EVENTS       # score of every retinue (index: retinue_index)
P_TITLES = P_SCORES + N_TYPES ** RETINUE
# What a seat expects of a retinue it does not know (greedy, evaluate), over the MEAN_DEN retinues of 4 dealt
# from the 32 leprechauns: the sum of their scores, of what a card of each type would gain them, and the
# standard deviation of their score (rounded), from the score table
P_MEAN_SCORE = P_TITLES + N_TYPES ** RETINUE
P_MEAN_GAIN = P_MEAN_SCORE + 1
P_SPREAD = P_MEAN_GAIN + N_TYPES
N_PARAMS = P_SPREAD + 1


def check(values):
    players = values["players"]
    if values["first_seat"] >= players:
        raise ValueError(f"first_seat = {values['first_seat']} is not a seat; allowed: 0 to {players - 1}")
    total = sum(values[f"events.{name}"] for name in EVENTS)
    if total > MAX_EVENT_CARDS:
        raise ValueError(f"{total} event cards; allowed: at most {MAX_EVENT_CARDS}")


def params_array(values):
    p = np.zeros(N_PARAMS, np.int64)
    p[P_PLAYERS] = values["players"]
    p[P_FIRST_SEAT] = values["first_seat"]
    p[P_MAX_TURNS] = values["max_turns"]
    p[P_TARGET] = values["target_score"]
    p[P_BEST_BONUS] = values["best_bonus"]
    p[P_WORST_BONUS] = values["worst_bonus"]
    p[P_TIE_FIRST] = values["bribe_tie"] == "first"
    p[P_RESHUFFLE] = values["reshuffle_on_reverse"]
    p[P_RANK:P_RANK + N_BRIBES] = -1
    for rank, kind in enumerate(_check_ranking(values["bribe_ranking"])):
        p[P_RANK + BRIBES.index(kind)] = rank
    for k, name in enumerate(EVENTS):
        p[P_EVENT_COUNTS + k] = values[f"events.{name}"]
    card_values = _values(values)
    scores, titles = score_tables(card_values)
    p[P_SCORES:P_TITLES] = scores
    p[P_TITLES:P_MEAN_SCORE] = titles
    p[P_MEAN_SCORE:N_PARAMS] = expectations(card_values)
    return p


# --- state layout -------------------------------------------------------------

STATE_DTYPE = np.int16
S_RET = 0
S_EVT = S_RET + MAX_SEATS * N_TYPES
S_SQUARE = S_EVT + MAX_SEATS * N_EVENTS
# What each seat knows (docs/wichtel.md: Decisions, information and resampling); dealt anew every round.
PUBLIC = MAX_SEATS             # the observer "everybody": only what the whole table saw
SHUFFLED = MAX_SEATS           # the owner "shuffled bottom of the drawing stack"
N_OBSERVERS = MAX_SEATS + 1
ALL_SEE = (1 << N_OBSERVERS) - 1
NIBBLE = 4                     # bits per type in a knowledge word (a count up to 15: enough for 6 of a kind)
NIBBLES = 4                    # types per knowledge word (16 bits); no count reaches 8: no word reaches the sign bit
KNOWN_WORDS = (N_TYPES + NIBBLES - 1) // NIBBLES
NIBBLE_ONES = sum(1 << (NIBBLE * t) for t in range(NIBBLES))
# [observer x owner x KNOWN_WORDS]: the cards the observer is sure the owner holds, 4 bits per type (NIBBLE)
S_KNOWN = S_SQUARE + MAX_SEATS
S_SHOWN = S_KNOWN + N_OBSERVERS * N_OBSERVERS * KNOWN_WORDS  # [MAX_SEATS x N_BRIBES] bribes everybody saw go back
S_SPENT = S_SHOWN + MAX_SEATS * N_BRIBES  # [N_EVENTS] events played face up this round
S_SHUFFLED = S_SPENT + N_EVENTS  # so many bottom cards of the drawing stack lie in shuffled order
S_STACK_A = S_SHUFFLED + 1
S_STACK_B = S_STACK_A + N_LEPRECHAUNS
S_MASK_A = S_STACK_B + N_LEPRECHAUNS  # who knows the card at each place of stack A (bit per observer)
S_MASK_B = S_MASK_A + N_LEPRECHAUNS
S_A_N = S_MASK_B + N_LEPRECHAUNS
S_B_N = S_A_N + 1
S_DRAW_SIDE = S_B_N + 1        # 0: stack A draws (walks go toward B), 1: stack B draws
S_FREE = S_DRAW_SIDE + 1       # the Wahlleiter is free
S_BACK = S_FREE + 1            # Komm mal zurück! pending
S_STAND = S_BACK + 1           # Stehenbleiben! pending
S_TABLE = S_STAND + 1          # [MAX_SEATS] each seat's face-down bribe of the bribe round, -1 for none
S_TITLES = S_TABLE + MAX_SEATS
S_ASIDE = S_TITLES + MAX_SEATS   # events set aside this round (never dealt, or played)
S_STARTER = S_ASIDE + 1
S_OVER = S_STARTER + 1         # the game ended by its rules (not by max_turns)
# The wide counts, each in two words (wide, add_wide): the low WIDE_BITS bits here, the rest N_WIDE words on.
S_TOTALS = S_OVER + 1          # [MAX_SEATS]
S_BRIBES_PLAYED = S_TOTALS + MAX_SEATS
S_BRIBES_WON = S_BRIBES_PLAYED + MAX_SEATS
S_TURN = S_BRIBES_WON + MAX_SEATS
S_N_ROUNDS = S_TURN + 1
S_DICE = S_N_ROUNDS + 1
S_HIGH = S_DICE + 1            # [N_WIDE] the high words
N_WIDE = S_HIGH - S_TOTALS
WIDE_BITS = 15
WIDE_LOW = (1 << WIDE_BITS) - 1
# The decision pending and the move around it:
S_PHASE = S_HIGH + N_WIDE      # which decision (PH_*)
S_ACTOR = S_PHASE + 1          # the seat to decide
S_MOVER = S_ACTOR + 1
S_SLOT = S_MOVER + 1           # enlisting: the slot and its card
S_CARD = S_SLOT + 1
S_GIVE = S_CARD + 1            # exchange: the mover's card and the seat it goes to
S_PARTNER = S_GIVE + 1
S_BRIBER = S_PARTNER + 1       # bribe round: the deciding briber, counted clockwise from the mover
S_WIN_SEAT = S_BRIBER + 1      # the winning bribe and its seat (kind NEGATED after Nix da!)
S_WIN_KIND = S_WIN_SEAT + 1
S_NIX = S_WIN_KIND + 1         # Nix da!: the seat asked, counted clockwise from the mover
S_NEED = S_NIX + 1             # pips the mover needs
S_RECEIVER = S_NEED + 1        # who fills the gap
S_AFTER = S_RECEIVER + 1       # after a "no" to ending the round: AFTER_EVENT or AFTER_MOVER_RECEIVED
S_SCRATCH = S_AFTER + 1        # scratch: greedy's gain per slot or type; resample's hand sizes
S_SORTED = S_SCRATCH + MAX_SEATS  # each retinue as 4 sorted codes (kept by refresh and swap)
S_NOW = S_SORTED + MAX_SEATS * RETINUE  # each retinue's score (kept by refresh and swap)
S_GAIN = S_NOW + MAX_SEATS     # greedy's gain per seat and card, kept once asked
S_GAIN_KNOWN = S_GAIN + MAX_SEATS * N_TYPES  # [MAX_SEATS] a bit per card: its S_GAIN is kept (cleared by a change)
S_DECK = S_GAIN_KNOWN + MAX_SEATS  # scratch for shuffles
NEGATED = -2
STATE_SIZE = S_DECK + MAX_EVENT_CARDS

# decisions (docs/wichtel.md: Decisions, information and resampling)
PH_START, PH_ACTION, PH_REPLY, PH_BRIBE, PH_NIX, PH_GIFT, PH_REROLL, PH_FILL, PH_END_ROUND, PH_END_EVENT, \
    PH_FREE, PH_OVER = range(12)
PHASES = ("start event", "action", "exchange reply", "bribe", "Nix da!", "Der bin der Beste! recipient",
          "Ich guck nochmal!", "fill the gap", "end the round", "end event", "free the Wahlleiter", "game over")
AFTER_EVENT, AFTER_MOVER_RECEIVED = 0, 1

# action codes, one range per decision
A_CALL = 0                                         # + type
A_EXCHANGE = A_CALL + N_TYPES                      # + type * MAX_SEATS + partner
A_ENLIST = A_EXCHANGE + N_TYPES * MAX_SEATS        # + slot
A_NO_BRIBE = A_ENLIST + MAX_SEATS
A_BRIBE = A_NO_BRIBE + 1                           # + bribe kind
A_NO_EVENT = A_BRIBE + N_BRIBES
A_EVENT = A_NO_EVENT + 1 - KOMM_HER                # + village-square event kind (7..9)
A_NIX_NO = A_EVENT + STEHENBLEIBEN + 1
A_NIX_YES = A_NIX_NO + 1
A_GIFT = A_NIX_YES + 1                             # + recipient
A_REROLL_NO = A_GIFT + MAX_SEATS
A_REROLL_YES = A_REROLL_NO + 1
A_REPLY = A_REROLL_YES + 1                         # + type
A_FILL = A_REPLY + N_TYPES                         # + type
A_END_NO = A_FILL + N_TYPES
A_END_YES = A_END_NO + 1
A_FREE_NO = A_END_YES + 1
A_FREE_YES = A_FREE_NO + 1
N_ACTION_CODES = A_FREE_YES + 1
MAX_ACTIONS = RETINUE * MAX_SEATS + MAX_SEATS      # the action: calls, exchanges and enlists
WORK_SIZE = 1                                      # greedy plans nothing ahead


class View(StateView):
    """Named views into one flat state array."""

    offsets = scalar_offsets(globals())

    def __init__(self, state):
        super().__init__(state)
        self.retinues = state[S_RET:S_EVT].reshape(MAX_SEATS, N_TYPES)
        self.events = state[S_EVT:S_SQUARE].reshape(MAX_SEATS, N_EVENTS)
        self.square = state[S_SQUARE:S_SQUARE + MAX_SEATS]
        self.shown = state[S_SHOWN:S_SPENT].reshape(MAX_SEATS, N_BRIBES)
        self.spent = state[S_SPENT:S_SHUFFLED]
        self.table = state[S_TABLE:S_TABLE + MAX_SEATS]

    def wide(self, at):
        """A count kept in two words (see ``wide``), as a Python int."""
        return int(self.state[at]) + (int(self.state[at + N_WIDE]) << WIDE_BITS)

    def wides(self, start):
        return np.array([self.wide(start + seat) for seat in range(MAX_SEATS)], np.int64)

    @property
    def totals(self):
        return self.wides(S_TOTALS)

    @property
    def bribes_played(self):
        return self.wides(S_BRIBES_PLAYED)

    @property
    def bribes_won(self):
        return self.wides(S_BRIBES_WON)

    @property
    def turn(self):
        return self.wide(S_TURN)

    @property
    def n_rounds(self):
        return self.wide(S_N_ROUNDS)

    @property
    def dice(self):
        return self.wide(S_DICE)

    def stack(self, side):
        """Stack 'A' (beside slot 0) or 'B' (beside the last slot), bottom first."""
        start, size = (S_STACK_A, S_A_N) if side == "A" else (S_STACK_B, S_B_N)
        return self.state[start:start + self.state[size]]

    def sure_of(self, observer_, owner):
        """Per type, the cards ``observer_`` (a seat or PUBLIC) is sure ``owner`` (a seat or SHUFFLED) holds."""
        at = S_KNOWN + (observer_ * N_OBSERVERS + owner) * KNOWN_WORDS
        return [(int(self.state[at + t // NIBBLES]) >> (NIBBLE * (t % NIBBLES))) & 15 for t in range(N_TYPES)]

    def masks(self, side):
        """Who knows each card of stack 'A' or 'B' (bit per seat, bit PUBLIC: everybody), bottom first."""
        start, size = (S_MASK_A, S_A_N) if side == "A" else (S_MASK_B, S_B_N)
        return self.state[start:start + self.state[size]]


def new_state():
    return np.zeros(STATE_SIZE, STATE_DTYPE)


# --- wide counts ----------------------------------------------------------------


@kernel
def wide(state, at):
    """A count kept in two words: its low WIDE_BITS bits at ``at``, the rest N_WIDE words on (S_HIGH)."""
    return state[at] + (np.int64(state[at + N_WIDE]) << WIDE_BITS)


@kernel
def add_wide(state, at, k):
    v = wide(state, at) + k
    state[at] = v & WIDE_LOW
    state[at + N_WIDE] = v >> WIDE_BITS


# --- cards --------------------------------------------------------------------


@kernel
def refresh(state, params, seat):
    """Keep the seat's retinue also as 4 sorted codes and its score: greedy asks for them very often."""
    base = S_RET + seat * N_TYPES
    at = S_SORTED + seat * RETINUE
    t = 0
    left = state[base]             # cards of type t still to write (a loop per card, not per type)
    for i in range(RETINUE):
        while left == 0:
            t += 1
            left = state[base + t]
        state[at + i] = t
        left -= 1
    rescore(state, params, seat)


@kernel
def rescore(state, params, seat):
    """The seat's score from its new sorted codes; greedy's kept gains are void."""
    state[S_NOW + seat] = params[P_SCORES + own_index(state, seat)]
    state[S_GAIN_KNOWN + seat] = 0


@kernel
def own_index(state, seat):
    """Table index of the seat's retinue (as ``sorted_index(state, seat, -1, -1)``, without a branch)."""
    at = S_SORTED + seat * RETINUE
    return ((state[at] * N_TYPES + state[at + 1]) * N_TYPES + state[at + 2]) * N_TYPES + state[at + 3]


@kernel
def swap(state, params, seat, add, remove):
    """The seat's retinue takes ``add`` for ``remove``: its counts, sorted codes and score follow (what
    ``refresh`` gives, but moving the one card within the sorted codes)."""
    state[S_RET + seat * N_TYPES + remove] -= 1
    state[S_RET + seat * N_TYPES + add] += 1
    base = S_SORTED + seat * RETINUE
    i = 0
    while state[base + i] != remove:
        i += 1
    while i > 0 and state[base + i - 1] > add:
        state[base + i] = state[base + i - 1]
        i -= 1
    while i < RETINUE - 1 and state[base + i + 1] < add:
        state[base + i] = state[base + i + 1]
        i += 1
    state[base + i] = add
    rescore(state, params, seat)


@kernel
def sorted_index(state, seat, add, remove):
    """Table index of the seat's sorted retinue with ``remove`` swapped for ``add`` (-1, -1: as it is)."""
    base = S_SORTED + seat * RETINUE
    idx = 0
    placed = add < 0
    skipped = remove < 0
    for i in range(RETINUE):
        t = state[base + i]
        if not skipped and t == remove:
            skipped = True
            continue
        if not placed and add < t:
            idx = idx * N_TYPES + add
            placed = True
        idx = idx * N_TYPES + t
    if not placed:
        idx = idx * N_TYPES + add
    return idx


@kernel
def retinue_score(state, params, seat, add, remove):
    """Score of seat's retinue with one card ``add`` in and one ``remove`` out (-1: none)."""
    if add < 0 and remove < 0:
        return state[S_NOW + seat]
    return params[P_SCORES + sorted_index(state, seat, add, remove)]


@kernel
def retinue_title(state, params, seat):
    return params[P_TITLES + own_index(state, seat)]


@kernel
def gain(state, params, seat, card):
    """How much the best swap of an old card for ``card`` raises the seat's score (kept until the retinue
    changes: the same square cards are weighed move after move)."""
    at = S_GAIN + seat * N_TYPES + card
    if (state[S_GAIN_KNOWN + seat] >> card) & 1 == 1:
        return state[at]
    best = -(1 << 40)
    base = S_SORTED + seat * RETINUE
    for i in range(RETINUE):
        u = state[base + i]
        if i == 0 or u != state[base + i - 1]:
            best = max(best, retinue_score(state, params, seat, card, u))
    state[at] = best - state[S_NOW + seat]
    state[S_GAIN_KNOWN + seat] |= 1 << card
    return best - state[S_NOW + seat]


# --- what each seat knows ------------------------------------------------------


@kernel
def observer(params, i):
    """The i-th observer of the knowledge arrays: the seats, then PUBLIC."""
    return i if i < params[P_PLAYERS] else PUBLIC


@kernel
def known_at(observer_, owner):
    """The first of the KNOWN_WORDS words that say what the observer is sure the owner holds."""
    return S_KNOWN + (observer_ * N_OBSERVERS + owner) * KNOWN_WORDS


@kernel
def sure_of(state, observer_, owner, t):
    """How many cards of type t the observer is sure the owner holds."""
    return (state[known_at(observer_, owner) + t // NIBBLES] >> (NIBBLE * (t % NIBBLES))) & 15


@kernel
def one_more(state, at, t):
    state[at + t // NIBBLES] += 1 << (NIBBLE * (t % NIBBLES))


@kernel
def one_fewer(state, at, t):
    """The observer is sure of one card of type t fewer (if it was sure of any)."""
    word = at + t // NIBBLES
    shift = NIBBLE * (t % NIBBLES)
    if (state[word] >> shift) & 15 > 0:
        state[word] -= 1 << shift


@kernel
def forget_one(state, params, owner, also):
    """``owner`` gave away a card that the observers other than ``owner`` and ``also`` did not see: each can be
    sure of one card fewer of every type it was sure of."""
    for i in range(params[P_PLAYERS] + 1):
        o = observer(params, i)
        if o != owner and o != also:
            fewer_of_each(state, known_at(o, owner))


@kernel
def fewer_of_each(state, at):
    """Every count above 0 falls by one: in each word a 1 for each nibble that is not 0, subtracted."""
    for word in range(at, at + KNOWN_WORDS):
        w = state[word]
        state[word] = w - ((w | (w >> 1) | (w >> 2) | (w >> 3)) & NIBBLE_ONES)


@kernel
def seen_to_swap(state, params, owner, card, gap):
    """Everybody saw ``owner`` take ``card`` into its retinue and put ``gap`` face up into the square."""
    for i in range(params[P_PLAYERS] + 1):
        o = observer(params, i)
        if o != owner:
            one_more(state, known_at(o, owner), card)
            one_fewer(state, known_at(o, owner), gap)


@kernel
def seen_to_exchange(state, params, mover, give, partner, reply):
    """The two partners of an exchange see the card they get; the others only that one card changed hands."""
    one_fewer(state, known_at(mover, partner), reply)
    one_more(state, known_at(mover, partner), give)
    one_fewer(state, known_at(partner, mover), give)
    one_more(state, known_at(partner, mover), reply)
    forget_one(state, params, mover, partner)
    forget_one(state, params, partner, mover)


@kernel
def left_shuffled(state, params, card, taker):
    """A card left the shuffled part of the drawing stack: face up (taker -1) everybody saw which; drawn by a
    call only the taker did."""
    for i in range(params[P_PLAYERS] + 1):
        o = observer(params, i)
        if taker < 0 or o == taker:
            one_fewer(state, known_at(o, SHUFFLED), card)
        else:
            fewer_of_each(state, known_at(o, SHUFFLED))


@kernel
def seen_to_draw(state, params, card, mask, taker):
    """``taker`` drew ``card`` by a call: whoever knew that place of the stack knows the taker holds it."""
    for i in range(params[P_PLAYERS] + 1):
        o = observer(params, i)
        if o != taker and (mask >> o) & 1:
            one_more(state, known_at(o, taker), card)


@kernel
def sees(mask, seat):
    return (mask >> seat) & 1 == 1


@kernel
def bribe_shown(state, seat, kind):
    return state[S_SHOWN + seat * N_BRIBES + kind]


@kernel
def set_aside(state, seat, kind):
    """A card of the seat is played face up and set aside for the round (a bribe from the table)."""
    state[S_ASIDE] += 1
    state[S_SPENT + kind] += 1
    if kind < N_BRIBES and bribe_shown(state, seat, kind) > 0:
        state[S_SHOWN + seat * N_BRIBES + kind] -= 1


@kernel
def spend(state, seat, kind):
    """An event card leaves the hand face up and is set aside for the round."""
    state[S_EVT + seat * N_EVENTS + kind] -= 1
    set_aside(state, seat, kind)


# --- the stacks and the walk ---------------------------------------------------


@kernel
def push(state, side, card, mask):
    """``card`` on top of a stack; ``mask``: the seats that know it (bits; ALL_SEE when it lay face up)."""
    start = S_STACK_A if side == 0 else S_STACK_B
    mask_start = S_MASK_A if side == 0 else S_MASK_B
    size = S_A_N if side == 0 else S_B_N
    state[start + state[size]] = card
    state[mask_start + state[size]] = mask
    state[size] += 1


@kernel
def pop(state, side):
    start = S_STACK_A if side == 0 else S_STACK_B
    size = S_A_N if side == 0 else S_B_N
    state[size] -= 1
    return state[start + state[size]]


@kernel
def stack_size(state, side):
    return state[S_A_N] if side == 0 else state[S_B_N]


@kernel
def reverse(state, params, streams):
    """The drawing stack ran out: the discard stack becomes the drawing stack (decisions: Walk)."""
    side = 1 - state[S_DRAW_SIDE]
    if params[P_RESHUFFLE] == 1:
        start = S_STACK_A if side == 0 else S_STACK_B
        n = stack_size(state, side)
        forget_places(state, params, side, n)
        i = 0
        for t in range(N_TYPES):
            for k in range(n):
                if state[start + k] == t:
                    state[S_DECK + i] = t
                    i += 1
        rng.shuffle(streams, rng.DECK, state[S_DECK:S_DECK + n], n)
        for k in range(n):
            state[start + k] = state[S_DECK + k]
        state[S_SHUFFLED] = n
    state[S_DRAW_SIDE] = side


@kernel
def forget_places(state, params, side, n):
    """Before a shuffle: who knew a card of the stack still knows it is in there, no longer where."""
    start = S_STACK_A if side == 0 else S_STACK_B
    mask_start = S_MASK_A if side == 0 else S_MASK_B
    for i in range(params[P_PLAYERS] + 1):
        o = observer(params, i)
        for k in range(n):
            if sees(state[mask_start + k], o):
                one_more(state, known_at(o, SHUFFLED), state[start + k])
    state[mask_start:mask_start + n] = 0


@kernel
def draw(state, params, streams, taker):
    """The top card of the drawing stack: face up into the square (taker -1) or into the taker's retinue."""
    side = state[S_DRAW_SIDE]
    card = pop(state, side)
    place = stack_size(state, side)
    if place < state[S_SHUFFLED]:
        state[S_SHUFFLED] = place
        left_shuffled(state, params, card, taker)
    elif taker >= 0:
        mask_start = S_MASK_A if side == 0 else S_MASK_B
        seen_to_draw(state, params, card, state[mask_start + place], taker)
    if place == 0:
        reverse(state, params, streams)
    return card


@kernel
def walk_forward(state, params, streams):
    """The leprechaun next to the discard stack leaves, the others step on, a new one comes in."""
    players = params[P_PLAYERS]
    sq = S_SQUARE
    if state[S_DRAW_SIDE] == 0:
        push(state, 1, state[sq + players - 1], ALL_SEE)
        for i in range(players - 1, 0, -1):
            state[sq + i] = state[sq + i - 1]
        state[sq] = draw(state, params, streams, -1)
    else:
        push(state, 0, state[sq], ALL_SEE)
        for i in range(players - 1):
            state[sq + i] = state[sq + i + 1]
        state[sq + players - 1] = draw(state, params, streams, -1)


@kernel
def walk_backward(state, params):
    """Komm mal zurück!: the walk goes from the discard stack toward the drawing stack."""
    players = params[P_PLAYERS]
    sq = S_SQUARE
    discard = 1 - state[S_DRAW_SIDE]
    if stack_size(state, discard) == 0:
        return
    if state[S_DRAW_SIDE] == 0:
        push(state, 0, state[sq], ALL_SEE)
        for i in range(players - 1):
            state[sq + i] = state[sq + i + 1]
        state[sq + players - 1] = pop(state, discard)
    else:
        push(state, 1, state[sq + players - 1], ALL_SEE)
        for i in range(players - 1, 0, -1):
            state[sq + i] = state[sq + i - 1]
        state[sq] = pop(state, discard)


@kernel
def walk(state, params, streams):
    """The walk of a move, after the pending village-square events."""
    if state[S_STAND] == 1:
        state[S_STAND] = 0
    elif state[S_BACK] == 1:
        state[S_BACK] = 0
        walk_backward(state, params)
    else:
        walk_forward(state, params, streams)


@kernel
def square_event(state, params, seat, kind, streams):
    if kind < 0:
        return
    spend(state, seat, kind)
    if kind == KOMM_HER:
        walk(state, params, streams)
    elif kind == KOMM_ZURUECK:
        state[S_BACK] = 1
    else:
        state[S_STAND] = 1


# --- setup --------------------------------------------------------------------


@kernel
def setup_round(state, params, streams):
    """Shuffle both decks, deal retinues, the square, the stacks and the events (rulebook: Game Preparation)."""
    players = params[P_PLAYERS]
    state[S_RET:S_STACK_A] = 0
    n = N_LEPRECHAUNS
    for k in range(n):
        state[S_DECK + k] = DECK_ORDER[k]
    rng.shuffle(streams, rng.DECK, state[S_DECK:S_DECK + n], n)
    for seat in range(players):
        for _ in range(RETINUE):
            n -= 1
            state[S_RET + seat * N_TYPES + state[S_DECK + n]] += 1
        refresh(state, params, seat)
    for slot in range(players):
        n -= 1
        state[S_SQUARE + slot] = state[S_DECK + n]
    n -= 1
    state[S_STACK_B] = state[S_DECK + n]
    state[S_MASK_B] = 0
    state[S_B_N] = 1
    for k in range(n):
        state[S_STACK_A + k] = state[S_DECK + k]
    state[S_MASK_A:S_MASK_A + n] = 0
    state[S_A_N] = n
    state[S_DRAW_SIDE] = 0
    n = 0
    for k in range(N_EVENTS):
        for _ in range(params[P_EVENT_COUNTS + k]):
            state[S_DECK + n] = k
            n += 1
    rng.shuffle(streams, rng.DECK, state[S_DECK:S_DECK + n], n)
    for seat in range(players):
        for _ in range(EVENTS_IN_HAND):
            if n > 0:
                n -= 1
                state[S_EVT + seat * N_EVENTS + state[S_DECK + n]] += 1
    state[S_ASIDE] = n
    state[S_FREE] = 0
    state[S_BACK] = 0
    state[S_STAND] = 0
    state[S_TABLE:S_TABLE + MAX_SEATS] = -1


# --- the decisions' options ------------------------------------------------------


@kernel
def events_of(state, seat, kind):
    return state[S_EVT + seat * N_EVENTS + kind]


@kernel
def distinct_types(state, seat):
    """How many different leprechaun types the seat's retinue holds."""
    base = S_SORTED + seat * RETINUE
    n = 1
    for i in range(1, RETINUE):
        n += state[base + i] != state[base + i - 1]
    return n


@kernel
def nth_type(state, seat, n):
    """The n-th different type of the seat's retinue, ascending."""
    base = S_SORTED + seat * RETINUE
    for i in range(RETINUE):
        if i == 0 or state[base + i] != state[base + i - 1]:
            if n == 0:
                return state[base + i]
            n -= 1
    return -1


@kernel
def can_bribe(state, params, seat, kind):
    return events_of(state, seat, kind) > 0 and params[P_RANK + kind] >= 0


@kernel
def list_types(state, seat, code, out):
    """Options ``code + type`` for each type of the seat's retinue, ascending."""
    base = S_SORTED + seat * RETINUE
    out[0] = code + state[base]
    n = 1
    for i in range(1, RETINUE):
        if state[base + i] != state[base + i - 1]:
            out[n] = code + state[base + i]
            n += 1
    return n


@kernel
def list_actions(state, params, mover, out):
    """A: call each type; exchange each type with each other seat clockwise; enlist each slot."""
    players = params[P_PLAYERS]
    types = list_types(state, mover, A_CALL, out)
    n = types
    for i in range(types):
        code = A_EXCHANGE + (out[i] - A_CALL) * MAX_SEATS
        for j in range(1, players):
            partner = mover + j
            out[n] = code + (partner if partner < players else partner - players)
            n += 1
    for slot in range(players):
        out[n] = A_ENLIST + slot
        n += 1
    return n


@kernel
def list_square_events(state, seat, out):
    """S and E: none, or a village-square event the seat holds."""
    out[0] = A_NO_EVENT
    n = 1
    for kind in range(KOMM_HER, STEHENBLEIBEN + 1):
        if events_of(state, seat, kind) > 0:
            out[n] = A_EVENT + kind
            n += 1
    return n


@kernel
def list_bribes(state, params, seat, out):
    """B: none, or a bribe kind the seat holds that the ranking allows."""
    out[0] = A_NO_BRIBE
    n = 1
    for kind in range(N_BRIBES):
        if can_bribe(state, params, seat, kind):
            out[n] = A_BRIBE + kind
            n += 1
    return n


@kernel
def no_yes(out, no):
    out[0] = no
    out[1] = no + 1
    return 2


@kernel
def legal_actions(state, params, out):
    """The options of the pending decision, in the order today's random policy draws from them."""
    phase = state[S_PHASE]
    seat = state[S_ACTOR]
    if phase == PH_START or phase == PH_END_EVENT:
        return list_square_events(state, seat, out)
    if phase == PH_ACTION:
        return list_actions(state, params, seat, out)
    if phase == PH_FREE:
        return no_yes(out, A_FREE_NO)
    if phase == PH_BRIBE:
        return list_bribes(state, params, seat, out)
    if phase == PH_FILL:
        return list_types(state, seat, A_FILL, out)
    if phase == PH_END_ROUND:
        return no_yes(out, A_END_NO)
    if phase == PH_REPLY:
        return list_types(state, seat, A_REPLY, out)
    if phase == PH_GIFT:
        players = params[P_PLAYERS]
        for i in range(players - 1):
            out[i] = A_GIFT + (seat + 1 + i) % players
        return players - 1
    if phase == PH_NIX:
        return no_yes(out, A_NIX_NO)
    if phase == PH_REROLL:
        return no_yes(out, A_REROLL_NO)
    return 0


@kernel
def current_player(state, params):
    return -1 if state[S_PHASE] == PH_OVER else state[S_ACTOR]


# --- the move: each decision resumes it ------------------------------------------


@kernel
def decide(state, phase, seat):
    state[S_PHASE] = phase
    state[S_ACTOR] = seat


@kernel
def begin(state, params, streams):
    """A new game, played up to its first decision."""
    state[:] = 0
    state[S_STARTER] = params[P_FIRST_SEAT]
    state[S_TITLES:S_TITLES + MAX_SEATS] = -1
    new_round(state, params, streams)


@kernel
def new_round(state, params, streams):
    setup_round(state, params, streams)
    state[S_MOVER] = state[S_STARTER]
    decide(state, PH_START, state[S_MOVER])


@kernel
def end_move(state, params):
    """7. The next seat clockwise moves; each move is one turn."""
    add_wide(state, S_TURN, 1)
    state[S_MOVER] = (state[S_MOVER] + 1) % params[P_PLAYERS]
    if wide(state, S_TURN) >= params[P_MAX_TURNS]:
        state[S_PHASE] = PH_OVER
    else:
        decide(state, PH_START, state[S_MOVER])


@kernel
def end_round(state, params, streams):
    """A seat ended the round: the move counts as a turn, every retinue is scored (Round end and game end)."""
    players = params[P_PLAYERS]
    add_wide(state, S_TURN, 1)
    score_round(state, params)
    for s in range(players):
        if wide(state, S_TOTALS + s) >= params[P_TARGET]:
            state[S_OVER] = 1
    state[S_STARTER] = (state[S_STARTER] + 1) % players
    if state[S_OVER] == 1 or wide(state, S_TURN) >= params[P_MAX_TURNS]:
        state[S_PHASE] = PH_OVER
    else:
        new_round(state, params, streams)


@kernel
def received(state, seat, after):
    """6. A seat got a new leprechaun: with the Wahlleiter free it may end the round (D); ``after`` says how the
    move goes on if it does not."""
    if state[S_FREE] == 1:
        state[S_AFTER] = after
        decide(state, PH_END_ROUND, seat)
    else:
        decide(state, PH_END_EVENT, state[S_MOVER])


@kernel
def call(state, params, streams, mover, t):
    """Calling: t goes face down onto the discard stack, the mover draws."""
    push(state, 1 - state[S_DRAW_SIDE], t, 1 << mover)
    forget_one(state, params, mover, mover)
    swap(state, params, mover, draw(state, params, streams, mover), t)
    received(state, mover, AFTER_EVENT)


@kernel
def exchange(state, params, reply):
    """X answered: the mover gives its card and gets the reply; the partner receives first."""
    mover = state[S_MOVER]
    partner = state[S_PARTNER]
    give = state[S_GIVE]
    swap(state, params, mover, reply, give)
    swap(state, params, partner, give, reply)
    seen_to_exchange(state, params, mover, give, partner, reply)
    received(state, partner, AFTER_MOVER_RECEIVED)


@kernel
def bribe_beats(params, later, best):
    """Does a bribe of kind ``later`` beat the best one played before it? Rulebook: 'Only the highest Bribe is
    used ... If several players play the same Bribe, the last one to be played counts as the highest ranking
    card.' (``bribe_ranking``, ``bribe_tie``)."""
    rank, top = params[P_RANK + later], params[P_RANK + best]
    return rank > top or (rank == top and params[P_TIE_FIRST] == 0)


@kernel
def enlist(state, params, slot):
    """Enlisting: the die on a slot's card, then the bribe round from the mover's left."""
    state[S_SLOT] = slot
    state[S_CARD] = state[S_SQUARE + slot]
    state[S_BRIBER] = 1
    decide(state, PH_BRIBE, (state[S_MOVER] + 1) % params[P_PLAYERS])


@kernel
def last_briber(state, params):
    """Is the seat to bribe the round's last briber, after whom every bribe is revealed?"""
    return state[S_BRIBER] == params[P_PLAYERS] - 1


@kernel
def bribe(state, params, streams, action):
    """B answered: a bribe goes face down onto the table; after the last briber all are revealed."""
    b = state[S_ACTOR]
    last = last_briber(state, params)
    if action != A_NO_BRIBE:
        kind = action - A_BRIBE
        state[S_EVT + b * N_EVENTS + kind] -= 1
        state[S_TABLE + b] = kind
        add_wide(state, S_BRIBES_PLAYED + b, 1)
    state[S_BRIBER] += 1
    if not last:
        decide(state, PH_BRIBE, (state[S_MOVER] + state[S_BRIBER]) % params[P_PLAYERS])
    else:
        reveal(state, params, streams)


@kernel
def reveal(state, params, streams):
    """Rulebook: 'all Bribes are revealed at once. Only the highest Bribe is used ...; all other cards return to
    their owners' (who everybody now knows to hold them)."""
    players = params[P_PLAYERS]
    mover = state[S_MOVER]
    win_seat = -1
    win_kind = -1
    for i in range(1, players):
        b = (mover + i) % players
        kind = state[S_TABLE + b]
        if kind >= 0 and (win_kind < 0 or bribe_beats(params, kind, win_kind)):
            win_seat = b
            win_kind = kind
    for b in range(players):
        kind = state[S_TABLE + b]
        if kind >= 0 and b != win_seat:
            state[S_EVT + b * N_EVENTS + kind] += 1
            state[S_SHOWN + b * N_BRIBES + kind] = max(bribe_shown(state, b, kind), 1)
        state[S_TABLE + b] = -1
    state[S_WIN_SEAT] = win_seat
    state[S_WIN_KIND] = win_kind
    if win_kind < 0:
        resolve(state, params, streams)
        return
    set_aside(state, win_seat, win_kind)
    state[S_NIX] = 0
    ask_nix_da(state, params, streams)


@kernel
def ask_nix_da(state, params, streams):
    """N: clockwise from the mover, each seat but the winning briber that holds Nix da! may play it."""
    players = params[P_PLAYERS]
    for i in range(state[S_NIX], players):
        x = (state[S_MOVER] + i) % players
        if x != state[S_WIN_SEAT] and events_of(state, x, NIX_DA) > 0:
            state[S_NIX] = i
            decide(state, PH_NIX, x)
            return
    resolve(state, params, streams)


@kernel
def nix_da(state, params, streams, action):
    if action == A_NIX_YES:
        spend(state, state[S_ACTOR], NIX_DA)
        state[S_WIN_KIND] = NEGATED
        resolve(state, params, streams)
    else:
        state[S_NIX] += 1
        ask_nix_da(state, params, streams)


@kernel
def roll(state, streams):
    add_wide(state, S_DICE, 1)
    return 1 + rng.randint(streams, rng.DICE, 6)


@kernel
def resolve(state, params, streams):
    """Who gets the card: Ich takes it, Der gives it (G), else the mover rolls (a Rindentaler of value v needs
    v pips, no bribe or a negated one anything but a 1); a failed roll may be rerolled (R)."""
    kind = state[S_WIN_KIND]
    if kind == ICH:
        receive(state, state[S_WIN_SEAT])
    elif kind == DER:
        decide(state, PH_GIFT, state[S_WIN_SEAT])
    else:
        mover = state[S_MOVER]
        state[S_NEED] = kind + 2 if kind >= 0 else 2
        if roll(state, streams) >= state[S_NEED]:
            receive(state, mover)
        elif events_of(state, mover, GUCK_NOCHMAL) > 0:
            decide(state, PH_REROLL, mover)
        else:
            roll_failed(state)


@kernel
def reroll(state, streams, action):
    if action == A_REROLL_YES:
        spend(state, state[S_MOVER], GUCK_NOCHMAL)
        if roll(state, streams) >= state[S_NEED]:
            receive(state, state[S_MOVER])
            return
    roll_failed(state)


@kernel
def roll_failed(state):
    """The briber gets the card; unbribed it stays in its slot."""
    if state[S_WIN_KIND] >= 0:
        receive(state, state[S_WIN_SEAT])
    else:
        decide(state, PH_END_EVENT, state[S_MOVER])


@kernel
def receive(state, receiver):
    """The receiver takes the card; it fills the gap next (F). A winning bribe that took the card from the
    mover counts as won."""
    kind = state[S_WIN_KIND]
    if kind == ICH or kind == DER or (kind >= 0 and receiver == state[S_WIN_SEAT]):
        add_wide(state, S_BRIBES_WON + state[S_WIN_SEAT], 1)
    state[S_RECEIVER] = receiver
    decide(state, PH_FILL, receiver)


@kernel
def fill_gap(state, params, gap):
    """F answered: the card joins the retinue, the old card ``gap`` goes face up into its slot."""
    receiver = state[S_RECEIVER]
    card = state[S_CARD]
    swap(state, params, receiver, card, gap)
    state[S_SQUARE + state[S_SLOT]] = gap
    seen_to_swap(state, params, receiver, card, gap)
    received(state, receiver, AFTER_EVENT)


@kernel
def act(state, params, streams, action):
    """A answered."""
    mover = state[S_MOVER]
    if action < A_EXCHANGE:
        call(state, params, streams, mover, action - A_CALL)
    elif action < A_ENLIST:
        state[S_GIVE] = (action - A_EXCHANGE) // MAX_SEATS
        state[S_PARTNER] = (action - A_EXCHANGE) % MAX_SEATS
        decide(state, PH_REPLY, state[S_PARTNER])
    else:
        enlist(state, params, action - A_ENLIST)


@kernel
def end_event(state, params, streams, action):
    """E answered; then W if the Wahlleiter is still tied."""
    if action != A_NO_EVENT:
        square_event(state, params, state[S_MOVER], action - A_EVENT, streams)
    if state[S_FREE] == 0:
        decide(state, PH_FREE, state[S_MOVER])
    else:
        end_move(state, params)


@kernel
def observed_action(state, params, action, observer):
    """What ``observer`` sees of ``action``, the pending decision's answer (What each seat sees): the action
    itself, or for a card it may not see the code of the card's class, "a call" (``A_CALL``), "an exchange
    with q" (``A_EXCHANGE + q``), "a reply" (``A_REPLY``), "a bribe put down" (``A_BRIBE``). The decider sees
    its own; the partner of an exchange replies unseen ("both cards are not to be looked at"), and the swap
    shows the mover the reply; the last bribe of a round reveals every bribe."""
    phase = state[S_PHASE]
    if observer == state[S_ACTOR]:
        return action
    if phase == PH_ACTION and action < A_EXCHANGE:
        return A_CALL
    if phase == PH_ACTION and action < A_ENLIST:
        return A_EXCHANGE + (action - A_EXCHANGE) % MAX_SEATS
    if phase == PH_REPLY:
        return action if observer == state[S_MOVER] else A_REPLY
    if phase == PH_BRIBE and action != A_NO_BRIBE and not last_briber(state, params):
        return A_BRIBE
    return action


@kernel
def revealed(state, params, action, observer):
    """What the last bribe of a bribe round shows every seat: the face-down bribes before it, as one code (per
    seat its kind + 1, 0 for none, base N_BRIBES + 1, seat 0 lowest); -1 for every other action (a call's
    card, an exchange's cards stay hidden)."""
    if state[S_PHASE] != PH_BRIBE or not last_briber(state, params):
        return -1
    code = 0
    for seat in range(params[P_PLAYERS] - 1, -1, -1):
        code = code * (N_BRIBES + 1) + state[S_TABLE + seat] + 1
    return code


@kernel
def num_players(params):
    return params[P_PLAYERS]


@kernel
def apply_action(state, params, action, streams):
    """The pending decision answered; the rules run on to the next decision."""
    phase = state[S_PHASE]
    if phase == PH_START:
        if action != A_NO_EVENT:
            square_event(state, params, state[S_MOVER], action - A_EVENT, streams)
        walk(state, params, streams)
        decide(state, PH_ACTION, state[S_MOVER])
    elif phase == PH_ACTION:
        act(state, params, streams, action)
    elif phase == PH_REPLY:
        exchange(state, params, action - A_REPLY)
    elif phase == PH_BRIBE:
        bribe(state, params, streams, action)
    elif phase == PH_NIX:
        nix_da(state, params, streams, action)
    elif phase == PH_GIFT:
        receive(state, action - A_GIFT)
    elif phase == PH_REROLL:
        reroll(state, streams, action)
    elif phase == PH_FILL:
        fill_gap(state, params, action - A_FILL)
    elif phase == PH_END_ROUND:
        if action == A_END_YES:
            end_round(state, params, streams)
        elif state[S_AFTER] == AFTER_MOVER_RECEIVED:
            received(state, state[S_MOVER], AFTER_EVENT)
        else:
            decide(state, PH_END_EVENT, state[S_MOVER])
    elif phase == PH_END_EVENT:
        end_event(state, params, streams, action)
    elif phase == PH_FREE:
        if action == A_FREE_YES:
            state[S_FREE] = 1
        end_move(state, params)


# --- resampling what a seat cannot see ------------------------------------------------


@kernel
def shuffled_count(state, t):
    """Cards of type t in the shuffled bottom of the drawing stack."""
    start = S_STACK_A if state[S_DRAW_SIDE] == 0 else S_STACK_B
    n = 0
    for k in range(state[S_SHUFFLED]):
        n += state[start + k] == t
    return n


@kernel
def resample_leprechauns(state, params, seat, streams):
    """The leprechauns the seat does not know are dealt anew, uniformly, to the places it does not know."""
    players = params[P_PLAYERS]
    deck = state[S_DECK:S_DECK + N_LEPRECHAUNS]
    n = 0
    for q in range(players):
        if q != seat:
            for t in range(N_TYPES):
                for _ in range(state[S_RET + q * N_TYPES + t] - sure_of(state, seat, q, t)):
                    deck[n] = t
                    n += 1
    for side in range(2):
        start = S_STACK_A if side == 0 else S_STACK_B
        mask_start = S_MASK_A if side == 0 else S_MASK_B
        lo = state[S_SHUFFLED] if side == state[S_DRAW_SIDE] else 0
        for k in range(lo, stack_size(state, side)):
            if not sees(state[mask_start + k], seat):
                deck[n] = state[start + k]
                n += 1
    for t in range(N_TYPES):
        for _ in range(shuffled_count(state, t) - sure_of(state, seat, SHUFFLED, t)):
            deck[n] = t
            n += 1
    rng.shuffle(streams, rng.DECK, deck, n)
    n = 0
    for q in range(players):
        if q != seat:
            base = S_RET + q * N_TYPES
            sure = 0
            for t in range(N_TYPES):
                state[base + t] = sure_of(state, seat, q, t)
                sure += state[base + t]
            for _ in range(RETINUE - sure):
                state[base + deck[n]] += 1
                n += 1
    for side in range(2):
        start = S_STACK_A if side == 0 else S_STACK_B
        mask_start = S_MASK_A if side == 0 else S_MASK_B
        lo = state[S_SHUFFLED] if side == state[S_DRAW_SIDE] else 0
        for k in range(lo, stack_size(state, side)):
            if not sees(state[mask_start + k], seat):
                state[start + k] = deck[n]
                n += 1
    start = S_STACK_A if state[S_DRAW_SIDE] == 0 else S_STACK_B
    k = 0
    for t in range(N_TYPES):
        for _ in range(sure_of(state, seat, SHUFFLED, t)):
            state[start + k] = t
            k += 1
    while k < state[S_SHUFFLED]:
        state[start + k] = deck[n]
        k += 1
        n += 1
    rng.shuffle(streams, rng.DECK, state[start:start + state[S_SHUFFLED]], state[S_SHUFFLED])


@kernel
def event_pool(state, params, seat, deck):
    """The events the seat cannot place: the 21 less its own, the spent and the bribes shown to everybody."""
    n = 0
    for k in range(N_EVENTS):
        c = params[P_EVENT_COUNTS + k] - state[S_SPENT + k] - events_of(state, seat, k)
        c -= state[S_TABLE + seat] == k
        if k < N_BRIBES:
            for b in range(params[P_PLAYERS]):
                if b != seat:
                    c -= bribe_shown(state, b, k)
        for _ in range(c):
            deck[n] = k
            n += 1
    return n


@kernel
def shown_total(state, seat):
    n = 0
    for k in range(N_BRIBES):
        n += bribe_shown(state, seat, k)
    return n


@kernel
def dealt_event(state, b, j, deck, first):
    """The j-th of seat b's events (hand and table) as resample deals them: its shown bribes, then the deck
    from ``first`` on."""
    for k in range(N_BRIBES):
        j -= bribe_shown(state, b, k)
        if j < 0:
            return k
    return deck[first + j]


@kernel
def deal_tables(state, params, seat, deck, sizes, streams):
    """Each other seat's face-down bribe becomes one of its dealt events, uniformly; False if one is no bribe the
    ranking allows (that deal is not consistent with the bribe on the table)."""
    first = 0
    for b in range(params[P_PLAYERS]):
        if b != seat:
            if state[S_TABLE + b] >= 0:
                kind = dealt_event(state, b, rng.randint(streams, rng.DECK, sizes[b]), deck, first)
                if kind >= N_BRIBES or params[P_RANK + kind] < 0:
                    return False
                state[S_TABLE + b] = kind
            first += sizes[b] - shown_total(state, b)
    return True


@kernel
def resample_events(state, params, seat, streams):
    """The other hands (and face-down bribes) dealt anew from the events the seat cannot place, keeping the
    bribes everybody saw go back; a deal that puts no allowed bribe on a seat's table is drawn again."""
    players = params[P_PLAYERS]
    deck = state[S_DECK:S_DECK + MAX_EVENT_CARDS]
    sizes = state[S_SCRATCH:S_SCRATCH + MAX_SEATS]
    for b in range(players):
        sizes[b] = state[S_TABLE + b] >= 0
        for k in range(N_EVENTS):
            sizes[b] += events_of(state, b, k)
    n = event_pool(state, params, seat, deck)
    rng.shuffle(streams, rng.DECK, deck, n)
    while not deal_tables(state, params, seat, deck, sizes, streams):
        rng.shuffle(streams, rng.DECK, deck, n)
    first = 0
    for b in range(players):
        if b != seat:
            base = S_EVT + b * N_EVENTS
            state[base:base + N_EVENTS] = 0
            for k in range(N_BRIBES):
                state[base + k] = bribe_shown(state, b, k)
            hidden = sizes[b] - shown_total(state, b)
            for j in range(hidden):
                state[base + deck[first + j]] += 1
            first += hidden
            if state[S_TABLE + b] >= 0:
                state[base + state[S_TABLE + b]] -= 1


@kernel
def resample(state, params, seat, streams):
    """Everything ``seat`` cannot see drawn anew, uniformly among the worlds that agree with what it knows
    (docs/wichtel.md: Decisions, information and resampling); stream DECK of ``streams``."""
    players = params[P_PLAYERS]
    resample_leprechauns(state, params, seat, streams)
    resample_events(state, params, seat, streams)
    for q in range(players):
        if q != seat:
            refresh(state, params, q)
            for owner in range(N_OBSERVERS):     # what the others knew privately is not the seat's to know
                for k in range(KNOWN_WORDS):
                    state[known_at(q, owner) + k] = state[known_at(PUBLIC, owner) + k]
    if state[S_PHASE] == PH_REPLY and seat != state[S_MOVER]:
        # the card the mover hands over, face down: any of its four
        state[S_GIVE] = state[S_SORTED + state[S_MOVER] * RETINUE + rng.randint(streams, rng.DECK, RETINUE)]


# --- scoring a round and a whole game ------------------------------------------


@kernel
def score_round(state, params):
    """Every retinue scores; the best gets +5, the worst +1 (rulebook: Scoring)."""
    players = params[P_PLAYERS]
    best = -(1 << 40)
    worst = 1 << 40
    for seat in range(players):
        s = retinue_score(state, params, seat, -1, -1)
        best = max(best, s)
        worst = min(worst, s)
    for seat in range(players):
        s = retinue_score(state, params, seat, -1, -1)
        bonus = params[P_BEST_BONUS] if s == best else (params[P_WORST_BONUS] if s == worst else 0)
        add_wide(state, S_TOTALS + seat, s + bonus)
        state[S_TITLES + seat] = retinue_title(state, params, seat)
    add_wide(state, S_N_ROUNDS, 1)


@kernel
def best_total(state, params):
    best = -(1 << 40)
    for seat in range(params[P_PLAYERS]):
        best = max(best, wide(state, S_TOTALS + seat))
    return best


@kernel
def returns(state, params, out):
    """1 for a win, 1/k for a k-way shared win, 0 for a loss or a timeout."""
    players = params[P_PLAYERS]
    best = best_total(state, params)
    winners = 0
    for seat in range(players):
        winners += wide(state, S_TOTALS + seat) == best
    for seat in range(players):
        out[seat] = 1.0 / winners if state[S_OVER] == 1 and wide(state, S_TOTALS + seat) == best else 0.0


@kernel
def write_row(state, params, row):
    players = params[P_PLAYERS]
    over = state[S_OVER] == 1
    best = best_total(state, params)
    row[O_FIRST_SEAT] = params[P_FIRST_SEAT]
    row[O_N_TURNS] = wide(state, S_TURN)
    row[O_TIMEOUT] = not over
    row[O_EXTRA] = wide(state, S_N_ROUNDS)
    for seat in range(players):
        row[O_WIN + seat] = over and wide(state, S_TOTALS + seat) == best
        row[O_SCORE + seat] = wide(state, S_TOTALS + seat)
        row[O_EXTRA + 1 + seat] = state[S_TITLES + seat]
        row[O_EXTRA + 1 + MAX_SEATS + seat] = wide(state, S_BRIBES_PLAYED + seat)
        row[O_EXTRA + 1 + 2 * MAX_SEATS + seat] = wide(state, S_BRIBES_WON + seat)
    row[O_EXTRA + 1 + 3 * MAX_SEATS] = wide(state, S_DICE)


# --- the trace (run --trace) ----------------------------------------------------------

TRACE_STANDING = "total points"
TRACE_STEP = "round"
MAX_TRACE_STEPS = 64                 # rounds (a game to 99 points lasts far fewer), then the last holds the end
ACTION_KINDS = (
    ("call", "a leprechaun called face down"),
    ("exchange", "an exchange of leprechauns with another seat"),
    ("enlist", "a leprechaun enlisted from the village square"),
    ("bribe_number", "a number bribe (2 to 6)"),
    ("bribe_ich", "an 'Ich bin's!' bribe"),
    ("bribe_der", "a 'Der bin der Beste!' bribe"),
    ("no_bribe", "a bribe decision without a bribe"),
    ("komm_her", "the event 'Komm her!'"),
    ("komm_zurueck", "the event 'Komm mal zurück!'"),
    ("stehenbleiben", "the event 'Stehenbleiben!'"),
    ("nix_da", "a 'Nix da!' against a bribe"),
    ("guck_nochmal", "an 'Ich guck nochmal!' (the die rolled again)"),
    ("end_round", "a round ended by the seat that received"),
    ("free_wahlleiter", "the Wahlleiter freed"),
)
END_CONDITIONS = (("target", "a total reached target_score (rulebook: Round end and game end)"),)
K_BRIBE_NUMBER, K_NO_BRIBE, K_KOMM_HER = 3, 6, 7


@kernel
def standing(state, params, out):
    for seat in range(params[P_PLAYERS]):
        out[seat] = wide(state, S_TOTALS + seat)


@kernel
def trace_step(state, params):
    return wide(state, S_N_ROUNDS)


@kernel
def action_kind(state, params, action):
    """The kind of a decision by its action code (codes are distinct across decisions: docs/wichtel.md); the
    decisions without a kind (a reply, the card put into the gap, a 'no') count nothing."""
    if action < A_EXCHANGE:
        return 0
    if action < A_ENLIST:
        return 1
    if action < A_NO_BRIBE:
        return 2
    if action == A_NO_BRIBE:
        return K_NO_BRIBE
    if action < A_NO_EVENT:
        kind = action - A_BRIBE
        return K_BRIBE_NUMBER if kind <= R6 else K_BRIBE_NUMBER + kind - R6
    if A_EVENT + KOMM_HER <= action <= A_EVENT + STEHENBLEIBEN:
        return K_KOMM_HER + action - A_EVENT - KOMM_HER
    if action == A_NIX_YES:
        return 10
    if action == A_REROLL_YES:
        return 11
    if action == A_END_YES:
        return 12
    if action == A_FREE_YES:
        return 13
    return -1


@kernel
def end_condition(state, params):
    return 0
