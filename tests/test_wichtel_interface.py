"""Der Herr der Wichtel through the decision interface: the same games, what each seat knows, resampling.

SPEC = docs/wichtel.md; RB = the rulebook (Der Herr der Wichtel, Ralf Sandfuchs, Krimsus Krimskrams Kiste 1998).
"""

from collections import Counter

import numpy as np
import pytest

from simcore import engine
from simcore.engine import rng
from simcore.games import wichtel as w
from simcore.io import config as cfg
from tests import interface_driver as driver

SEATS = {"random": ["random"] * 5, "greedy": ["greedy"] * 5,
         "mixed": ["greedy", "random", "random", "greedy", "random"]}
VARIANTS = {"4p": [], "5p-reshuffle-first": [("players", 5), ("reshuffle_on_reverse", True), ("bribe_tie", "first")],
            "3p-no-beste": [("players", 3), ("bribe_ranking", "2,3,4,5,6")]}


def params_of(variant):
    return cfg.resolve("wichtel", sets=VARIANTS[variant]).params_array()


# --- what a seat sees ------------------------------------------------------------------------------------------


def hidden_leprechauns(state, params, seat):
    """Per type, the leprechauns at the places ``seat`` does not know (SPEC: What each seat sees): the rest of
    the other retinues, the stack places it does not know, the shuffled bottom less what it is sure of."""
    v = w.View(state)
    players = int(params[w.P_PLAYERS])
    pool = np.zeros(w.N_TYPES, np.int64)
    for q in range(players):
        if q != seat:
            pool += v.retinues[q] - np.array(v.sure_of(seat, q))
    for side in "AB":
        shuffled = v.shuffled if (side == "A") == (v.draw_side == 0) else 0
        cards, masks = v.stack(side), v.masks(side)
        for card, mask in zip(cards[shuffled:], masks[shuffled:], strict=True):
            pool[card] += not (mask >> seat) & 1
        pool += np.bincount(cards[:shuffled], minlength=w.N_TYPES)
    return pool - np.array(v.sure_of(seat, w.SHUFFLED))


def hidden_events(state, params, seat):
    """Per kind, the events ``seat`` cannot place: the other hands (less their shown bribes), their face-down
    bribes and the unseen set-aside pile."""
    v = w.View(state)
    players = int(params[w.P_PLAYERS])
    pool = params[w.P_EVENT_COUNTS:w.P_EVENT_COUNTS + w.N_EVENTS] - v.spent - v.events[seat]
    if v.table[seat] >= 0:
        pool[v.table[seat]] -= 1
    for q in range(players):
        if q != seat:
            pool[:w.N_BRIBES] -= v.shown[q]
    return pool


class Points:
    """Decision points of played games: each state is resampled for the deciding seat (and for another seat)
    on a copy, and the checks of the tests below are collected."""

    def __init__(self, variant, games, seed):
        self.params = params_of(variant)
        self.players = int(self.params[w.P_PLAYERS])
        self.streams = np.zeros(rng.N_STREAMS, np.uint64)
        self.count = 0
        self.strings_differ = self.options_differ = 0
        self.lep = []          # (true, resampled, expected) hidden counts of each type in the other retinues
        self.evt = []          # the same for each event kind in the other hands
        self.varied = []       # did the resample change another seat's cards at all
        for g in range(games):
            driver.play(w, self.params, SEATS["mixed"], seed, g, on_decision=self.check)

    def check(self, state, seat, actions):
        self.count += 1
        rng.seed_streams(self.streams, 1234, self.count)
        copy = state.copy()
        other = (seat + self.count) % self.players     # also every other seat, in turn
        for observer in (seat, other) if self.count % 3 == 0 else ():
            before = w.information_state_string(copy, self.params, observer)
            pool = hidden_leprechauns(copy, self.params, observer), hidden_events(copy, self.params, observer)
            prior = copy.copy()
            w.resample(copy, self.params, observer, self.streams)
            self.conserved(prior, copy, observer, pool)
            self.strings_differ += before != w.information_state_string(copy, self.params, observer)
        copy = state.copy()
        w.resample(copy, self.params, seat, self.streams)
        out = np.zeros(w.MAX_ACTIONS, np.int64)
        self.options_differ += not np.array_equal(out[:w.legal_actions(copy, self.params, out)], actions)
        self.collect(state, copy, seat)

    def conserved(self, prior, after, observer, pool):
        v, p = w.View(after), self.players
        assert (v.retinues[:p].sum(axis=1) == w.RETINUE).all()
        assert np.array_equal(v.retinues[:p].sum(axis=0) + np.bincount(v.square[:p], minlength=w.N_TYPES)
                              + np.bincount(v.stack("A"), minlength=w.N_TYPES)
                              + np.bincount(v.stack("B"), minlength=w.N_TYPES), w.COUNTS)
        tables = (v.table[:p] >= 0).sum()
        assert v.events.sum() + tables + v.aside == self.params[w.P_EVENT_COUNTS:w.P_EVENT_COUNTS + w.N_EVENTS].sum()
        assert np.array_equal(w.View(prior).events.sum(axis=1), v.events.sum(axis=1))     # hand sizes
        assert np.array_equal(hidden_leprechauns(after, self.params, observer), pool[0])
        assert np.array_equal(hidden_events(after, self.params, observer), pool[1])

    def collect(self, state, resampled, seat):
        """The hidden part of each card count of the other seats, true and resampled, and its expectation under a
        uniform deal of the cards the seat cannot place."""
        v, after = w.View(state), w.View(resampled)
        pool = hidden_leprechauns(state, self.params, seat)
        events = hidden_events(state, self.params, seat)
        bribe_round = state[w.S_PHASE] == w.PH_BRIBE     # face-down bribes: that deal is conditioned on them
        varied = False
        for q in range(self.players):
            if q == seat:
                continue
            sure = np.array(v.sure_of(seat, q))
            expected = (w.RETINUE - sure.sum()) * pool / pool.sum()
            self.lep += zip(v.retinues[q] - sure, after.retinues[q] - sure, expected, strict=True)
            varied |= not np.array_equal(v.retinues[q], after.retinues[q])
            if not bribe_round:
                shown = np.zeros(w.N_EVENTS, np.int64)
                shown[:w.N_BRIBES] = v.shown[q]
                expected = (v.events[q].sum() - shown.sum()) * events / max(events.sum(), 1)
                self.evt += zip(v.events[q] - shown, after.events[q] - shown, expected, strict=True)
        self.varied.append(varied)


@pytest.fixture(scope="module", params=["4p", "5p-reshuffle-first"])
def points(request):
    return Points(request.param, games=60, seed=5)   # greedy ends rounds sooner since rules version 2


def test_resample_keeps_what_the_seat_knows(points):
    """SPEC, resample(seat): it keeps everything the seat knows; information_state_string writes exactly that,
    so it is the same before and after, for the deciding seat and for any other."""
    assert points.count > 4000
    assert points.strings_differ == 0


def test_resample_keeps_the_deciding_seats_options(points):
    """SPEC, resample(seat): 'the deciding seat's options are unchanged (they depend only on its own cards and
    the public table)'."""
    assert points.options_differ == 0


def test_resample_does_not_see_the_hidden_cards(points):
    """SPEC, resample(seat): the hidden cards are dealt anew uniformly. The hidden part of a card count of the
    other seats, less its expectation under a uniform deal, must not correlate between the true and the
    resampled state (a resampler that leaks, or returns the state unchanged, correlates); and the resampled
    cards vary."""
    for name, values in (("leprechauns", points.lep), ("events", points.evt)):
        true, drawn, expected = np.array(values, dtype=float).T
        assert len(true) > 50_000, name
        r = np.corrcoef(true - expected, drawn - expected)[0, 1]
        assert abs(r) < 0.03, (name, r)
    assert np.mean(points.varied) > 0.5


def test_card_counts_are_conserved_by_resample(points):
    """RB: '32 Leprechauns ... 21 Events': resample only moves cards between the places the seat cannot see
    (checked at every point by ``Points.conserved``: counts, retinues of 4, hand sizes, the hidden pools)."""
    assert points.count > 4000


# --- returns ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("max_turns", [5000, 25])
def test_returns_follow_the_result_row(max_turns):
    """SPEC, Round end and game end: 'the highest total wins, ties share the win'; a timeout has no winner.
    returns gives 1 to a sole winner, 1/k to k who share, 0 to the others and to everybody after a timeout."""
    params = cfg.resolve("wichtel", sets=[("max_turns", max_turns)]).params_array()
    seen = set()
    for g in range(150):
        state = w.new_state()
        streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(streams, 3, g)
        w.begin(state, params, streams)
        actions = np.zeros(w.MAX_ACTIONS, np.int64)
        while (seat := w.current_player(state, params)) >= 0:
            n = w.legal_actions(state, params, actions)
            w.apply_action(state, params, actions[rng.randint(streams, rng.POLICY + seat, n)], streams)
        row = np.zeros(engine.width(w), np.int64)
        w.write_row(state, params, row)
        out = np.zeros(4)
        w.returns(state, params, out)
        winners = row[engine.O_WIN:engine.O_WIN + 4]
        if row[engine.O_TIMEOUT]:
            assert not out.any() and not winners.any()
            seen.add("timeout")
        else:
            assert np.allclose(out, winners / winners.sum())
            seen.add("shared" if winners.sum() > 1 else "won")
    assert seen == ({"won", "shared"} if max_turns == 5000 else {"won", "timeout"}) or "timeout" in seen


# --- the state in narrow integers ------------------------------------------------------------------------------

WORD = 1 << 15           # a word holds 0 .. WORD - 1 without its sign bit
LOWEST, HIGHEST = -810, 465     # a retinue's score over the allowed card values (wichtel module docstring)
EXTREMES = {
    "4p": [],
    "5p-high": [("players", 5), ("values.HD", 100), ("values.GE", 100), ("values.ME", 100), ("values.HW", 100),
                ("values.FA", -100), ("best_bonus", 100), ("worst_bonus", -100), ("events.ich", 20),
                ("events.komm_zurueck", 20), ("reshuffle_on_reverse", True), ("target_score", 10_000),
                ("max_turns", 100)],
    "3p-low": [("players", 3), ("values.FA", -100), ("values.HS", -100), ("values.KS", -100), ("values.HW", -100),
               ("best_bonus", -100), ("worst_bonus", 100), ("events.guck_nochmal", 20), ("events.nix_da", 20),
               ("target_score", 10_000), ("max_turns", 100)],
}
COUNTS = ("turn", "n_rounds", "dice")
PER_SEAT = ("bribes_played", "bribes_won")


def known_words(state, observer, owner):
    at = w.S_KNOWN + (observer * w.N_OBSERVERS + owner) * w.KNOWN_WORDS
    return state[at:at + w.KNOWN_WORDS]


def swapped_score(params, codes, add, remove):
    rest = list(codes)
    rest.remove(remove)
    return int(params[w.P_SCORES + w.retinue_index(rest + [add])])


def check_cards(state, params, players):
    """Retinues, their sorted codes, scores and greedy's kept gains agree with each other and the tables."""
    v = w.View(state)
    assert (v.retinues[:players] >= 0).all() and (v.retinues[:players] <= w.COUNTS).all()
    assert (v.retinues[:players].sum(axis=1) == w.RETINUE).all()
    for seat in range(players):
        codes = np.repeat(np.arange(w.N_TYPES), v.retinues[seat])
        sorted_at = w.S_SORTED + seat * w.RETINUE
        assert np.array_equal(state[sorted_at:sorted_at + w.RETINUE], codes)
        now = int(state[w.S_NOW + seat])
        assert now == params[w.P_SCORES + w.retinue_index(codes)] and LOWEST <= now <= HIGHEST
        for card in range(w.N_TYPES):
            if (int(state[w.S_GAIN_KNOWN + seat]) >> card) & 1:
                best = max(swapped_score(params, codes, card, u) for u in set(codes))
                assert state[w.S_GAIN + seat * w.N_TYPES + card] == best - now


def check_fields(state, params, players):
    """Every narrow field within its range (wichtel module docstring), none wrapped round."""
    v = w.View(state)
    assert ((0 <= v.events) & (v.events <= 20)).all() and ((0 <= v.spent) & (v.spent <= 20)).all()
    assert ((0 <= v.shown) & (v.shown <= 1)).all() and 0 <= v.aside <= w.MAX_EVENT_CARDS
    assert ((-1 <= v.table) & (v.table < w.N_BRIBES)).all()
    assert v.a_n + v.b_n + players * (w.RETINUE + 1) == w.N_LEPRECHAUNS
    for side in "AB":
        assert ((0 <= v.stack(side)) & (v.stack(side) < w.N_TYPES)).all()
        assert ((0 <= v.masks(side)) & (v.masks(side) <= w.ALL_SEE)).all()
    for observer in range(w.N_OBSERVERS):
        for owner in range(w.N_OBSERVERS):
            words = known_words(state, observer, owner)
            assert ((0 <= words) & (words < WORD)).all()
            assert (np.array(v.sure_of(observer, owner)) <= w.COUNTS).all()
            assert int(words[-1]) >> (w.NIBBLE * (w.N_TYPES % w.NIBBLES)) == 0       # no type past the last
    low = state[w.S_TOTALS:w.S_HIGH]
    assert ((0 <= low) & (low < WORD)).all()


def check_knowledge(state, before, players):
    """Nobody is sure of more cards than a retinue holds, and a card just put into a retinue face up (fill the gap)
    is known to every other seat and the public (SPEC: What each seat sees)."""
    v = w.View(state)
    for observer in [*range(players), w.PUBLIC]:
        for owner in range(players):
            if observer != owner:
                assert (np.array(v.sure_of(observer, owner)) <= v.retinues[owner]).all()
    if before is not None and before[w.S_PHASE] == w.PH_FILL:
        receiver, card = int(before[w.S_RECEIVER]), int(before[w.S_CARD])
        if v.square[before[w.S_SLOT]] != card:
            for observer in [*range(players), w.PUBLIC]:
                assert observer == receiver or v.sure_of(observer, receiver)[card] >= 1


def check_counts(state, params, before):
    """The wide counts within their bounds and never running backwards; totals move only when a round ends."""
    v, was = w.View(state), w.View(before)
    players = int(params[w.P_PLAYERS])
    assert 0 <= v.n_rounds <= v.turn <= params[w.P_MAX_TURNS]
    assert v.dice <= 2 * (v.turn + 1)
    for name in COUNTS:
        assert getattr(v, name) >= getattr(was, name), name
    for name in PER_SEAT:
        now, then = getattr(v, name)[:players], getattr(was, name)[:players]
        assert (now >= then).all() and (now <= v.turn + 1).all(), name
    rounds = v.n_rounds
    totals = v.totals[:players]
    assert ((rounds * (LOWEST - 100) <= totals) & (totals <= rounds * (HIGHEST + 100))).all()
    assert rounds > was.n_rounds or np.array_equal(totals, was.totals[:players])


@pytest.mark.parametrize("variant", list(EXTREMES))
def test_the_state_stays_within_its_narrow_fields(variant):
    """The state is int16 (STATE_DTYPE): at every decision of games under the extreme allowed parameters each
    field is within the range the module docstring gives it, the caches (sorted codes, scores, greedy's gains)
    agree with the retinues, and no count wraps round or runs backwards."""
    params = cfg.resolve("wichtel", sets=EXTREMES[variant]).params_array()
    players = int(params[w.P_PLAYERS])
    before = [None]
    seen = Counter()

    def check(state, seat, actions):
        assert state.dtype == w.STATE_DTYPE == np.int16
        check_cards(state, params, players)
        check_fields(state, params, players)
        check_knowledge(state, before[0], players)
        if before[0] is not None:
            check_counts(state, params, before[0])
        before[0] = state.copy()
        seen["decisions"] += 1
        seen["rounds"] = max(seen["rounds"], w.View(state).n_rounds)

    for g in range(8 if EXTREMES[variant] else 30):
        before[0] = None
        driver.play(w, params, SEATS["mixed"], 9, g, on_decision=check)
    assert seen["decisions"] > 2000 and seen["rounds"] >= 3


def set_wide(state, at, value):
    state[at] = value & w.WIDE_LOW
    state[at + w.N_WIDE] = value >> w.WIDE_BITS


OFFSETS = {w.S_TURN: WORD - 5, w.S_N_ROUNDS: WORD - 1, w.S_DICE: WORD - 3,
           **{w.S_BRIBES_PLAYED + seat: WORD - 2 for seat in range(4)},
           **{w.S_BRIBES_WON + seat: 2 * WORD - 1 for seat in range(4)},
           w.S_TOTALS: -WORD - 3, w.S_TOTALS + 1: -(WORD << 8) + 1, w.S_TOTALS + 2: -900_000_000, w.S_TOTALS + 3: -1}


def test_wide_counts_carry_into_their_high_words():
    """A count kept in two words (``wide``) counts on across the 15-bit boundary of its low word and over the
    whole range the docstring gives it: a game whose counts start just below the boundaries (turns, rounds,
    dice, bribes) or deep in the negative (totals, down to -900,000,000) plays decision for decision as the
    same game with small counts, and its counts differ by exactly the offsets."""
    params = cfg.resolve("wichtel", sets=[("target_score", 10_000), ("max_turns", 1_000_000)]).params_array()
    state, streams = w.new_state(), np.zeros(rng.N_STREAMS, np.uint64)
    rng.seed_streams(streams, 11, 0)
    w.begin(state, params, streams)
    twin, twin_streams = state.copy(), streams.copy()
    for at, offset in OFFSETS.items():
        set_wide(twin, at, w.View(twin).wide(at) + offset)
    start = {at: w.View(twin).wide(at) for at in OFFSETS}
    actions, twin_actions = np.zeros(w.MAX_ACTIONS, np.int64), np.zeros(w.MAX_ACTIONS, np.int64)
    narrow = np.r_[0:w.S_TOTALS, w.S_HIGH + w.N_WIDE:w.STATE_SIZE]
    for _ in range(3000):
        seat = w.current_player(state, params)
        assert seat >= 0                    # no total reaches the target, no timeout
        n = w.legal_actions(state, params, actions)
        assert w.legal_actions(twin, params, twin_actions) == n
        action = actions[rng.randint(streams, rng.POLICY + seat, n)]
        assert twin_actions[rng.randint(twin_streams, rng.POLICY + seat, n)] == action
        w.apply_action(state, params, action, streams)
        w.apply_action(twin, params, action, twin_streams)
        assert np.array_equal(state[narrow], twin[narrow])
        for at, offset in OFFSETS.items():
            assert w.View(twin).wide(at) == w.View(state).wide(at) + offset, at
    crossed = {at for at, first in start.items() if w.View(twin).wide(at) // WORD != first // WORD}
    assert {w.S_TURN, w.S_N_ROUNDS, w.S_DICE, w.S_BRIBES_WON, w.S_TOTALS} <= crossed


def test_a_game_of_a_million_moves_keeps_its_counts():
    """SPEC, Decisions (Time limit): max_turns may be 1,000,000. With every card worth -100 no total reaches the
    target, so the game runs to the limit: its turns, rounds, dice and bribes outgrow 15 bits, and the row
    still counts every move and every round (each round's scores lie between -810 and -335)."""
    sets = [("max_turns", 1_000_000), ("target_score", 10_000), ("best_bonus", 0), ("worst_bonus", 0),
            *((f"values.{name}", -100) for name in w.CARDS)]
    run = cfg.resolve("wichtel", sets=sets, policies=[("all", "random")])
    rows = engine.run(w, run.params_array(), run.policies_array(), 21, 2)
    players = 4
    for row in rows:
        rounds = row[w.O_EXTRA]
        totals = row[w.O_SCORE:w.O_SCORE + players]
        bribes = row[w.O_EXTRA + 1 + w.MAX_SEATS:w.O_EXTRA + 1 + w.MAX_SEATS + players]
        assert row[engine.O_N_TURNS] == 1_000_000 and row[engine.O_TIMEOUT] == 1
        assert WORD < rounds < 1_000_000 and WORD < row[w.O_EXTRA + 1 + 3 * w.MAX_SEATS] <= 2_000_000
        assert ((-810 * rounds <= totals) & (totals < -WORD)).all()
        assert (bribes > WORD).all()
