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

The state of one game is one flat ``int64`` array::

    S_RET     [MAX_SEATS x 11]   retinues: cards per leprechaun type
    S_EVT     [MAX_SEATS x 12]   event hands: cards per event kind
    S_SQUARE  [MAX_SEATS]        the village square, slot -> leprechaun type
    S_STACK_A / S_STACK_B [32]   the stacks beside slot 0 / the last slot, top last
    S_A_N, S_B_N, S_DRAW_SIDE    stack sizes; 0: A draws, 1: B draws
    S_FREE, S_BACK, S_STAND      Wahlleiter freed; pending Komm mal zurück / Stehenbleiben
    S_TOTALS, S_TITLES, S_BRIBES_PLAYED, S_BRIBES_WON [MAX_SEATS]
    S_ASIDE .. S_DICE            scalars
    S_DECK    [scratch]          cards being shuffled
"""

from functools import lru_cache
from itertools import combinations_with_replacement, product

import numpy as np
from numba import njit, prange

from simcore import rng
from simcore.engine import CHUNK, O_FIRST_SEAT, O_N_TURNS, O_TIMEOUT, O_WIN, extra_offset, score_offset
from simcore.games import GameType, Param, StateView, scalar_offsets

# --- pieces -------------------------------------------------------------------

CARDS = ("FA", "HS", "HF", "VA", "ME", "KS", "SW", "WW", "GE", "HD", "HW")
FA, HS, HF, VA, ME, KS, SW, WW, GE, HD, HW = range(11)
N_TYPES = 11
COUNTS = (6, 6, 4, 2, 1, 5, 3, 2, 1, 1, 1)          # rulebook: 32 leprechauns
N_LEPRECHAUNS = sum(COUNTS)
COUNTS_ARRAY = np.array(COUNTS, np.int64)
COUNTS_ARRAY.setflags(write=False)
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

POLICY_RANDOM, POLICY_GREEDY = 0, 1

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


def evaluate(cards, values=None):
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
    return evaluate(cards, _values(params))[0]


def best_title(cards, params=None):
    """The title (or career) a retinue earns, or None."""
    k = evaluate(cards, _values(params))[1]
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


@lru_cache(maxsize=32)
def _score_tables(value_tuple):
    values = dict(zip(CARDS, value_tuple, strict=True))
    scores = np.zeros(N_TYPES ** RETINUE, np.int64)
    titles = np.full(N_TYPES ** RETINUE, -1, np.int64)
    for combo in combinations_with_replacement(range(N_TYPES), RETINUE):
        scores[retinue_index(combo)], titles[retinue_index(combo)] = evaluate(combo, values)
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
    policies=("random", "greedy"),
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
N_PARAMS = P_TITLES + N_TYPES ** RETINUE


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
    scores, titles = score_tables(_values(values))
    p[P_SCORES:P_TITLES] = scores
    p[P_TITLES:N_PARAMS] = titles
    return p


# --- state layout -------------------------------------------------------------

S_RET = 0
S_EVT = S_RET + MAX_SEATS * N_TYPES
S_SQUARE = S_EVT + MAX_SEATS * N_EVENTS
S_STACK_A = S_SQUARE + MAX_SEATS
S_STACK_B = S_STACK_A + N_LEPRECHAUNS
S_A_N = S_STACK_B + N_LEPRECHAUNS
S_B_N = S_A_N + 1
S_DRAW_SIDE = S_B_N + 1        # 0: stack A draws (walks go toward B), 1: stack B draws
S_FREE = S_DRAW_SIDE + 1       # the Wahlleiter is free
S_BACK = S_FREE + 1            # Komm mal zurück! pending
S_STAND = S_BACK + 1           # Stehenbleiben! pending
S_TOTALS = S_STAND + 1
S_TITLES = S_TOTALS + MAX_SEATS
S_BRIBES_PLAYED = S_TITLES + MAX_SEATS
S_BRIBES_WON = S_BRIBES_PLAYED + MAX_SEATS
S_ASIDE = S_BRIBES_WON + MAX_SEATS   # events set aside this round
S_TURN = S_ASIDE + 1
S_N_ROUNDS = S_TURN + 1
S_STARTER = S_N_ROUNDS + 1
S_DICE = S_STARTER + 1
S_GAINS = S_DICE + 1           # scratch: greedy's gain per square slot
S_SORTED = S_GAINS + MAX_SEATS  # each retinue as 4 sorted codes (kept by refresh)
S_NOW = S_SORTED + MAX_SEATS * RETINUE  # each retinue's score (kept by refresh)
S_GAIN = S_NOW + MAX_SEATS     # greedy's gain per seat and card, UNKNOWN until asked (reset by refresh)
S_DECK = S_GAIN + MAX_SEATS * N_TYPES  # scratch for shuffles
UNKNOWN = -(1 << 50)
STATE_SIZE = S_DECK + MAX_EVENT_CARDS


class View(StateView):
    """Named views into one flat state array."""

    offsets = scalar_offsets(globals())

    def __init__(self, state):
        super().__init__(state)
        self.retinues = state[S_RET:S_EVT].reshape(MAX_SEATS, N_TYPES)
        self.events = state[S_EVT:S_SQUARE].reshape(MAX_SEATS, N_EVENTS)
        self.square = state[S_SQUARE:S_STACK_A]
        self.totals = state[S_TOTALS:S_TITLES]

    def stack(self, side):
        """Stack 'A' (beside slot 0) or 'B' (beside the last slot), bottom first."""
        start, size = (S_STACK_A, S_A_N) if side == "A" else (S_STACK_B, S_B_N)
        return self.state[start:start + self.state[size]]


def new_state():
    return np.zeros(STATE_SIZE, np.int64)


# --- cards --------------------------------------------------------------------


@njit(cache=True, nogil=True)
def refresh(state, params, seat):
    """Keep the seat's retinue also as 4 sorted codes and its score: greedy asks for them very often."""
    base = S_RET + seat * N_TYPES
    n = 0
    for t in range(N_TYPES):
        for _ in range(state[base + t]):
            state[S_SORTED + seat * RETINUE + n] = t
            n += 1
    state[S_NOW + seat] = params[P_SCORES + sorted_index(state, seat, -1, -1)]
    for card in range(N_TYPES):
        state[S_GAIN + seat * N_TYPES + card] = UNKNOWN


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def retinue_score(state, params, seat, add, remove):
    """Score of seat's retinue with one card ``add`` in and one ``remove`` out (-1: none)."""
    if add < 0 and remove < 0:
        return state[S_NOW + seat]
    return params[P_SCORES + sorted_index(state, seat, add, remove)]


@njit(cache=True, nogil=True)
def retinue_title(state, params, seat):
    return params[P_TITLES + sorted_index(state, seat, -1, -1)]


@njit(cache=True, nogil=True)
def gain(state, params, seat, card):
    """How much the best swap of an old card for ``card`` raises the seat's score (kept until the retinue
    changes: the same square cards are weighed move after move)."""
    known = state[S_GAIN + seat * N_TYPES + card]
    if known != UNKNOWN:
        return known
    best = -(1 << 40)
    base = S_SORTED + seat * RETINUE
    for i in range(RETINUE):
        u = state[base + i]
        if i == 0 or u != state[base + i - 1]:
            best = max(best, retinue_score(state, params, seat, card, u))
    state[S_GAIN + seat * N_TYPES + card] = best - state[S_NOW + seat]
    return best - state[S_NOW + seat]


@njit(cache=True, nogil=True)
def push(state, side, card):
    start = S_STACK_A if side == 0 else S_STACK_B
    size = S_A_N if side == 0 else S_B_N
    state[start + state[size]] = card
    state[size] += 1


@njit(cache=True, nogil=True)
def pop(state, side):
    start = S_STACK_A if side == 0 else S_STACK_B
    size = S_A_N if side == 0 else S_B_N
    state[size] -= 1
    return state[start + state[size]]


@njit(cache=True, nogil=True)
def stack_size(state, side):
    return state[S_A_N] if side == 0 else state[S_B_N]


@njit(cache=True, nogil=True)
def reverse(state, params, streams):
    """The drawing stack ran out: the discard stack becomes the drawing stack (decisions: Walk)."""
    side = 1 - state[S_DRAW_SIDE]
    if params[P_RESHUFFLE] == 1:
        start = S_STACK_A if side == 0 else S_STACK_B
        n = stack_size(state, side)
        i = 0
        for t in range(N_TYPES):
            for k in range(n):
                if state[start + k] == t:
                    state[S_DECK + i] = t
                    i += 1
        rng.shuffle(streams, rng.DECK, state[S_DECK:S_DECK + n], n)
        state[start:start + n] = state[S_DECK:S_DECK + n]
    state[S_DRAW_SIDE] = side


@njit(cache=True, nogil=True)
def draw(state, params, streams):
    side = state[S_DRAW_SIDE]
    card = pop(state, side)
    if stack_size(state, side) == 0:
        reverse(state, params, streams)
    return card


@njit(cache=True, nogil=True)
def walk_forward(state, params, streams):
    """The leprechaun next to the discard stack leaves, the others step on, a new one comes in."""
    players = params[P_PLAYERS]
    sq = S_SQUARE
    if state[S_DRAW_SIDE] == 0:
        push(state, 1, state[sq + players - 1])
        for i in range(players - 1, 0, -1):
            state[sq + i] = state[sq + i - 1]
        state[sq] = draw(state, params, streams)
    else:
        push(state, 0, state[sq])
        for i in range(players - 1):
            state[sq + i] = state[sq + i + 1]
        state[sq + players - 1] = draw(state, params, streams)


@njit(cache=True, nogil=True)
def walk_backward(state, params):
    """Komm mal zurück!: the walk goes from the discard stack toward the drawing stack."""
    players = params[P_PLAYERS]
    sq = S_SQUARE
    discard = 1 - state[S_DRAW_SIDE]
    if stack_size(state, discard) == 0:
        return
    if state[S_DRAW_SIDE] == 0:
        push(state, 0, state[sq])
        for i in range(players - 1):
            state[sq + i] = state[sq + i + 1]
        state[sq + players - 1] = pop(state, discard)
    else:
        push(state, 1, state[sq + players - 1])
        for i in range(players - 1, 0, -1):
            state[sq + i] = state[sq + i - 1]
        state[sq] = pop(state, discard)


@njit(cache=True, nogil=True)
def walk(state, params, streams):
    """The walk of a move, after the pending village-square events."""
    if state[S_STAND] == 1:
        state[S_STAND] = 0
    elif state[S_BACK] == 1:
        state[S_BACK] = 0
        walk_backward(state, params)
    else:
        walk_forward(state, params, streams)


# --- setup --------------------------------------------------------------------


@njit(cache=True, nogil=True)
def setup_round(state, params, streams):
    """Shuffle both decks, deal retinues, the square, the stacks and the events (rulebook: Game Preparation)."""
    players = params[P_PLAYERS]
    state[S_RET:S_STACK_A] = 0
    n = 0
    for t in range(N_TYPES):
        for _ in range(COUNTS_ARRAY[t]):
            state[S_DECK + n] = t
            n += 1
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
    state[S_B_N] = 1
    state[S_STACK_A:S_STACK_A + n] = state[S_DECK:S_DECK + n]
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


# --- decisions ------------------------------------------------------------------


@njit(cache=True, nogil=True)
def events_of(state, seat, kind):
    return state[S_EVT + seat * N_EVENTS + kind]


@njit(cache=True, nogil=True)
def spend(state, seat, kind):
    """An event card leaves the hand and is set aside for the round."""
    state[S_EVT + seat * N_EVENTS + kind] -= 1
    state[S_ASIDE] += 1


@njit(cache=True, nogil=True)
def yes_no(streams, policy, seat, greedy_answer):
    """A yes/no decision: random draws, greedy answers without a draw."""
    if policy == POLICY_RANDOM:
        return rng.randint(streams, rng.POLICY + seat, 2) == 1
    return greedy_answer


@njit(cache=True, nogil=True)
def wants_to_end(state, params, policy, seat, streams):
    """D and W: random draws yes or no; greedy says yes when it is ahead (no draw)."""
    if policy == POLICY_RANDOM:
        return rng.randint(streams, rng.POLICY + seat, 2) == 1
    return ahead(state, params, seat)


@njit(cache=True, nogil=True)
def ahead(state, params, seat):
    """Greedy's 'ahead': its retinue scores more than every other retinue."""
    mine = retinue_score(state, params, seat, -1, -1)
    for other in range(params[P_PLAYERS]):
        if other != seat and retinue_score(state, params, other, -1, -1) >= mine:
            return False
    return True


@njit(cache=True, nogil=True)
def decide_square_event(state, policy, seat, streams):
    """S / E: none, or a village-square event the seat holds (greedy: none)."""
    if policy != POLICY_RANDOM:
        return -1
    n = 1
    for kind in range(KOMM_HER, STEHENBLEIBEN + 1):
        n += events_of(state, seat, kind) > 0
    r = rng.randint(streams, rng.POLICY + seat, n)
    for kind in range(KOMM_HER, STEHENBLEIBEN + 1):
        if events_of(state, seat, kind) > 0:
            r -= 1
            if r == 0:
                return kind
    return -1


@njit(cache=True, nogil=True)
def distinct_types(state, seat):
    """How many different leprechaun types the seat's retinue holds."""
    base = S_SORTED + seat * RETINUE
    n = 1
    for i in range(1, RETINUE):
        n += state[base + i] != state[base + i - 1]
    return n


@njit(cache=True, nogil=True)
def nth_type(state, seat, n):
    """The n-th different type of the seat's retinue, ascending."""
    base = S_SORTED + seat * RETINUE
    for i in range(RETINUE):
        if i == 0 or state[base + i] != state[base + i - 1]:
            if n == 0:
                return state[base + i]
            n -= 1
    return -1


@njit(cache=True, nogil=True)
def pick_type(state, params, policy, seat, streams, card, keep_card):
    """A type of the seat's retinue (ascending): random uniform; greedy the best to give away.

    ``keep_card`` >= 0 (gap fill): maximise the score with ``keep_card`` in and the type out.
    Otherwise (call, exchange reply): maximise the score with the type replaced by a Familie.
    """
    n = distinct_types(state, seat)
    stream = rng.POLICY + seat
    if policy == POLICY_RANDOM:
        return nth_type(state, seat, rng.randint(streams, stream, n))
    incoming = keep_card if keep_card >= 0 else FA
    best = -(1 << 40)
    tied = 0
    for i in range(n):
        s = retinue_score(state, params, seat, incoming, nth_type(state, seat, i))
        state[S_GAINS + i] = s
        if s > best:
            best = s
            tied = 0
        if s == best:
            tied += 1
    r = rng.randint(streams, stream, tied)
    for i in range(n):
        if state[S_GAINS + i] == best:
            if r == 0:
                return nth_type(state, seat, i)
            r -= 1
    return -1


A_CALL, A_EXCHANGE, A_ENLIST = 0, 1, 2


@njit(cache=True, nogil=True)
def decide_action(state, params, policy, seat, streams):
    """A: (call, type, -) | (exchange, type, other seat) | (enlist, slot, -)."""
    players = params[P_PLAYERS]
    types = distinct_types(state, seat)
    stream = rng.POLICY + seat
    if policy == POLICY_RANDOM:
        r = rng.randint(streams, stream, types + types * (players - 1) + players)
        if r < types:
            return A_CALL, nth_type(state, seat, r), -1
        if r < types * players:
            r -= types
            return A_EXCHANGE, nth_type(state, seat, r // (players - 1)), (seat + 1 + r % (players - 1)) % players
        return A_ENLIST, r - types * players, -1
    best = 0
    tied = 0
    for s in range(players):
        g = gain(state, params, seat, state[S_SQUARE + s])
        state[S_GAINS + s] = g
        if g > best:
            best = g
            tied = 0
        if g == best and g > 0:
            tied += 1
    if tied > 0:
        r = rng.randint(streams, stream, tied)
        for s in range(players):
            if state[S_GAINS + s] == best:
                if r == 0:
                    return A_ENLIST, s, -1
                r -= 1
    return A_CALL, pick_type(state, params, policy, seat, streams, -1, -1), -1


@njit(cache=True, nogil=True)
def decide_bribe(state, params, policy, seat, streams, card):
    """B: none, or a bribe kind the seat holds that the ranking allows (ascending)."""
    if policy == POLICY_RANDOM:
        n = 1
        for kind in range(N_BRIBES):
            n += events_of(state, seat, kind) > 0 and params[P_RANK + kind] >= 0
        r = rng.randint(streams, rng.POLICY + seat, n)
        for kind in range(N_BRIBES):
            if events_of(state, seat, kind) > 0 and params[P_RANK + kind] >= 0:
                r -= 1
                if r == 0:
                    return kind
        return -1
    if gain(state, params, seat, card) <= 0:
        return -1
    best = -1
    for kind in range(N_BRIBES):
        if kind != DER and events_of(state, seat, kind) > 0 and params[P_RANK + kind] >= 0:
            if best < 0 or params[P_RANK + kind] > params[P_RANK + best]:
                best = kind
    return best


@njit(cache=True, nogil=True)
def decide_gift(state, params, policy, briber, streams, card):
    """G: who gets the leprechaun of a 'Der bin der Beste!' (clockwise from the briber's left)."""
    players = params[P_PLAYERS]
    stream = rng.POLICY + briber
    if policy == POLICY_RANDOM:
        return (briber + 1 + rng.randint(streams, stream, players - 1)) % players
    best = 1 << 40
    tied = 0
    for i in range(1, players):
        g = gain(state, params, (briber + i) % players, card)
        if g < best:
            best = g
            tied = 0
        if g == best:
            tied += 1
    r = rng.randint(streams, stream, tied)
    for i in range(1, players):
        if gain(state, params, (briber + i) % players, card) == best:
            if r == 0:
                return (briber + i) % players
            r -= 1
    return -1


# --- a move -------------------------------------------------------------------


@njit(cache=True, nogil=True)
def received(state, params, policies, seat, streams):
    """D: a seat got a new leprechaun; with the Wahlleiter free it may end the round."""
    return state[S_FREE] == 1 and wants_to_end(state, params, policies[seat], seat, streams)


@njit(cache=True, nogil=True)
def roll(state, streams):
    state[S_DICE] += 1
    return 1 + rng.randint(streams, rng.DICE, 6)


@njit(cache=True, nogil=True)
def mover_rolls(state, policies, mover, streams, need):
    """The mover rolls for the leprechaun; 'Ich guck nochmal!' allows one reroll of a failed roll."""
    if roll(state, streams) >= need:
        return True
    if events_of(state, mover, GUCK_NOCHMAL) > 0 and yes_no(streams, policies[mover], mover, True):
        spend(state, mover, GUCK_NOCHMAL)
        return roll(state, streams) >= need
    return False


@njit(cache=True, nogil=True)
def bribe_beats(params, later, best):
    """Does a bribe of kind ``later`` beat the best one played before it? Rulebook: 'Only the highest Bribe is
    used ... If several players play the same Bribe, the last one to be played counts as the highest ranking
    card.' (``bribe_ranking``, ``bribe_tie``)."""
    rank, top = params[P_RANK + later], params[P_RANK + best]
    return rank > top or (rank == top and params[P_TIE_FIRST] == 0)


@njit(cache=True, nogil=True)
def enlist(state, params, policies, mover, slot, streams):
    """Enlisting with the bribe round (rulebook: Enlisting a Leprechaun). Returns True if the round ended."""
    players = params[P_PLAYERS]
    card = state[S_SQUARE + slot]
    win_seat = -1
    win_kind = -1
    for i in range(1, players):
        b = (mover + i) % players
        kind = decide_bribe(state, params, policies[b], b, streams, card)
        if kind < 0:
            continue
        state[S_EVT + b * N_EVENTS + kind] -= 1          # on the table, face down
        state[S_BRIBES_PLAYED + b] += 1
        if win_kind >= 0:
            if not bribe_beats(params, kind, win_kind):
                state[S_EVT + b * N_EVENTS + kind] += 1  # goes back to its owner
                continue
            state[S_EVT + win_seat * N_EVENTS + win_kind] += 1
        win_seat = b
        win_kind = kind
    if win_kind >= 0:
        for i in range(players):
            x = (mover + i) % players
            if x != win_seat and events_of(state, x, NIX_DA) > 0 and \
                    yes_no(streams, policies[x], x, x == mover):
                spend(state, x, NIX_DA)
                win_kind = -2                            # negated
                break
        state[S_ASIDE] += 1                              # the bribe is spent either way
    receiver = -1
    if win_kind == ICH:
        receiver = win_seat
    elif win_kind == DER:
        receiver = decide_gift(state, params, policies[win_seat], win_seat, streams, card)
    elif win_kind >= 0:
        receiver = mover if mover_rolls(state, policies, mover, streams, win_kind + 2) else win_seat
    elif mover_rolls(state, policies, mover, streams, 2):
        receiver = mover
    if receiver < 0:
        return False
    if win_kind == ICH or win_kind == DER or (win_kind >= 0 and receiver == win_seat):
        state[S_BRIBES_WON + win_seat] += 1
    gap = pick_type(state, params, policies[receiver], receiver, streams, card, card)
    state[S_RET + receiver * N_TYPES + card] += 1
    state[S_RET + receiver * N_TYPES + gap] -= 1
    refresh(state, params, receiver)
    state[S_SQUARE + slot] = gap
    return received(state, params, policies, receiver, streams)


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def play_move(state, params, policies, mover, streams):
    """One move (rulebook: Making a Move). Returns True if the round ended in it."""
    policy = policies[mover]
    square_event(state, params, mover, decide_square_event(state, policy, mover, streams), streams)
    walk(state, params, streams)
    action, a, b = decide_action(state, params, policy, mover, streams)
    if action == A_CALL:
        state[S_RET + mover * N_TYPES + a] -= 1
        push(state, 1 - state[S_DRAW_SIDE], a)
        state[S_RET + mover * N_TYPES + draw(state, params, streams)] += 1
        refresh(state, params, mover)
        if received(state, params, policies, mover, streams):
            return True
    elif action == A_EXCHANGE:
        reply = pick_type(state, params, policies[b], b, streams, -1, -1)
        state[S_RET + mover * N_TYPES + a] -= 1
        state[S_RET + b * N_TYPES + reply] -= 1
        state[S_RET + mover * N_TYPES + reply] += 1
        state[S_RET + b * N_TYPES + a] += 1
        refresh(state, params, mover)
        refresh(state, params, b)
        if received(state, params, policies, b, streams) or received(state, params, policies, mover, streams):
            return True
    elif enlist(state, params, policies, mover, a, streams):
        return True
    square_event(state, params, mover, decide_square_event(state, policy, mover, streams), streams)
    if state[S_FREE] == 0 and wants_to_end(state, params, policy, mover, streams):
        state[S_FREE] = 1
    return False


# --- scoring a round and a whole game ------------------------------------------


@njit(cache=True, nogil=True)
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
        state[S_TOTALS + seat] += s + bonus
        state[S_TITLES + seat] = retinue_title(state, params, seat)
    state[S_N_ROUNDS] += 1


@njit(cache=True, nogil=True)
def play_game(params, policies, seed, game_index, state, streams, row):
    rng.seed_streams(streams, seed, game_index)
    state[:] = 0
    players = params[P_PLAYERS]
    state[S_STARTER] = params[P_FIRST_SEAT]
    for seat in range(MAX_SEATS):
        state[S_TITLES + seat] = -1
    over = False
    while not over and state[S_TURN] < params[P_MAX_TURNS]:
        setup_round(state, params, streams)
        seat = state[S_STARTER]
        ended = False
        while not ended and state[S_TURN] < params[P_MAX_TURNS]:
            ended = play_move(state, params, policies, seat, streams)
            state[S_TURN] += 1
            seat = (seat + 1) % players
        if not ended:
            break
        score_round(state, params)
        for s in range(players):
            over = over or state[S_TOTALS + s] >= params[P_TARGET]
        state[S_STARTER] = (state[S_STARTER] + 1) % players
    write_row(state, params, over, row)


@njit(cache=True, nogil=True)
def write_row(state, params, over, row):
    players = params[P_PLAYERS]
    best = -(1 << 40)
    for seat in range(players):
        best = max(best, state[S_TOTALS + seat])
    row[O_FIRST_SEAT] = params[P_FIRST_SEAT]
    row[O_N_TURNS] = state[S_TURN]
    row[O_TIMEOUT] = not over
    row[O_EXTRA] = state[S_N_ROUNDS]
    for seat in range(players):
        row[O_WIN + seat] = over and state[S_TOTALS + seat] == best
        row[O_SCORE + seat] = state[S_TOTALS + seat]
        row[O_EXTRA + 1 + seat] = state[S_TITLES + seat]
        row[O_EXTRA + 1 + MAX_SEATS + seat] = state[S_BRIBES_PLAYED + seat]
        row[O_EXTRA + 1 + 2 * MAX_SEATS + seat] = state[S_BRIBES_WON + seat]
    row[O_EXTRA + 1 + 3 * MAX_SEATS] = state[S_DICE]


@njit(cache=True, parallel=True)
def run_batch(params, policies, seed, start, out):
    """Games ``start .. start+len(out)-1``, chunk by chunk over all threads."""
    n = out.shape[0]
    n_chunks = (n + CHUNK - 1) // CHUNK
    for chunk in prange(n_chunks):
        state = np.zeros(STATE_SIZE, np.int64)
        streams = np.zeros(rng.N_STREAMS, np.uint64)
        for g in range(chunk * CHUNK, min(n, (chunk + 1) * CHUNK)):
            play_game(params, policies, seed, start + g, state, streams, out[g])
