"""Der Herr der Wichtel through the decision interface: the same games, what each seat knows, resampling.

SPEC = docs/wichtel.md; RB = the rulebook (Der Herr der Wichtel, Ralf Sandfuchs, Krimsus Krimskrams Kiste 1998).
"""

import numpy as np
import pytest

from simcore import config as cfg
from simcore import engine, rng
from simcore.games import wichtel as w
from tests import interface_driver as driver

SEATS = {"random": ["random"] * 5, "greedy": ["greedy"] * 5,
         "mixed": ["greedy", "random", "random", "greedy", "random"]}
VARIANTS = {"4p": [], "5p-reshuffle-first": [("players", 5), ("reshuffle_on_reverse", True), ("bribe_tie", "first")],
            "3p-no-beste": [("players", 3), ("bribe_ranking", "2,3,4,5,6")]}


def params_of(variant):
    return cfg.resolve("wichtel", sets=VARIANTS[variant]).params_array()


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("seats", list(SEATS))
def test_the_interface_plays_the_games_of_the_batch_runner(variant, seats):
    """SPEC, Decisions, information and resampling: a decision is one draw of the random policy, listed in the
    order it draws, and greedy decides as in Policies: the same rows as ``run_batch``, game by game."""
    kinds = SEATS[seats]
    players = dict(VARIANTS[variant]).get("players", 4)
    run = cfg.resolve("wichtel", sets=VARIANTS[variant], policies=list(enumerate(kinds[:players])))
    params = run.params_array()
    n = 80
    assert np.array_equal(driver.rows(w, params, kinds, 17, n), engine.run(w, params, run.policies_array(), 17, n))


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
    return Points(request.param, games=40, seed=5)


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
