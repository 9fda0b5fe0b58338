"""Zwergen Ziehen as a decision process (docs/zwergen.md, "Decisions, information and resampling"): resample
redraws exactly what a seat cannot see. What every game must do through the interface is checked by
tests/test_conformance.py."""

import numpy as np
import pytest

from simcore import engine
from simcore.engine import rng
from simcore.games import zwergen as z
from simcore.io import config as cfg
from tests.interface_driver import decisions, play, resampled

ADDS = list(range(z.T_ADD, z.T_ADD_MULTI + 1))      # the card kind the leak test follows


def _params(**values):
    return cfg.resolve("zwergen", sets=list(values.items())).params_array()


def _assert_a_consistent_world(world, state, params):
    """Every card and hat is somewhere, hands and piles keep their sizes, and the draws since the pile's last
    filling plus the pile are that filling."""
    w, s = z.View(world), z.View(state)
    deck = params[z.P_DECK:z.P_DECK + z.N_TYPES]
    pile = np.bincount(w.draw_pile, minlength=z.N_TYPES)
    assert np.array_equal(w.hands.sum(axis=0) + w.discard + pile, deck)
    assert np.array_equal(w.drawn.sum(axis=0) + pile, w.refill)
    assert np.array_equal(w.hands.sum(axis=1), s.hands.sum(axis=1))
    assert np.array_equal(w.drawn.sum(axis=1), s.drawn.sum(axis=1))
    assert w.draw_n == s.draw_n and (w.hands >= 0).all() and (w.drawn >= 0).all()
    assert np.array_equal(w.supply + w.teams.sum(axis=0), np.full(z.N_COLOURS, params[z.P_HATS]))
    assert np.array_equal(w.teams.sum(axis=1), s.teams.sum(axis=1)) and w.supply.min() >= 0


@pytest.mark.parametrize("sets, kinds", [({}, ["random", "greedy"]),
                                         ({"players": 4, "pro": True}, ["greedy", "random", "random", "greedy"]),
                                         ({"players": 4, "hats_per_colour": 1}, ["random"] * 4)])
def test_resample_keeps_what_the_seat_knows_and_every_card(sets, kinds):
    """docs/zwergen.md, What a seat knows: resampling for a seat changes nothing it sees (its information
    state string), keeps every card and hat and the size of every hand and pile, and keeps the mover's legal
    actions (with one hat per colour, the stock at a round start tells the picking seat about earlier picks)."""
    params = _params(**sets)
    players = len(kinds)
    actions = np.zeros(z.MAX_ACTIONS, np.int64)
    changed = 0
    for k, (state, mover, legal) in enumerate(decisions(z, params, kinds, 10)):
        for seat in range(players):
            world = resampled(z, state, params, seat, k)
            assert z.information_state_string(world, params, seat) == z.information_state_string(state, params,
                                                                                                   seat)
            _assert_a_consistent_world(world, state, params)
            changed += not np.array_equal(world, state)
            if seat == mover:
                n = z.legal_actions(world, params, actions)
                assert np.array_equal(actions[:n], legal)
    assert changed > 0


def _play_out(state, params, seed):
    """Random play to the end (or to max_turns)."""
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    rng.seed_streams(streams, seed, 0)
    actions = np.zeros(z.MAX_ACTIONS, np.int64)
    while (seat := z.current_player(state, params)) >= 0:
        n = z.legal_actions(state, params, actions)
        z.apply_action(state, params, actions[rng.randint(streams, rng.POLICY + seat, n)], streams)


def test_a_resampled_world_plays_on_to_the_end():
    """A resampled world is a state of the game like any other: random play from it reaches the end, with
    every card and hat still accounted for (what the agents' rollouts do)."""
    params = _params(players=4, pro=True)
    for k, (state, mover, _) in enumerate(decisions(z, params, ["random"] * 4, 3)[::5]):
        world = resampled(z, state, params, mover, k)
        _play_out(world, params, k)
        assert z.match_winner(world, params) >= 0
        _assert_a_consistent_world(world, world, params)


def _expected_adds(state, params, seat, other):
    """The mean number of add cards in ``other``'s hand over the worlds resample draws for ``seat``, from what
    ``seat`` knows (docs: the pile is drawn from the candidates, the other hands share the rest)."""
    v = z.View(state)
    unseen = params[z.P_DECK:z.P_DECK + z.N_TYPES] - v.hands[seat] - v.discard
    candidates = np.minimum(unseen, v.refill - v.drawn[seat])
    in_pile = v.draw_n * candidates / max(1, candidates.sum())
    held = v.hands.sum(axis=1)
    return ((unseen - in_pile) * held[other] / (held.sum() - held[seat]))[ADDS].sum()


def _leak_statistic(params, kinds, games, resample):
    """Pearson r between the true and the resampled number of add cards in the next seat's hand, each taken
    relative to what the mover knows (so knowledge the mover really has does not count as a leak); and the
    share of decisions where the resampled number differs from the true one."""
    true, drawn, expected = [], [], []
    players = len(kinds)

    def observe(state, seat, actions):
        other = (seat + 1) % players
        world = state.copy()
        streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(streams, 777, len(true))
        resample(world, params, seat, streams)
        true.append(z.View(state).hands[other, ADDS].sum())
        drawn.append(z.View(world).hands[other, ADDS].sum())
        expected.append(_expected_adds(state, params, seat, other))

    for game in range(games):
        play(z, params, kinds, 5, game, on_decision=observe)
    true, drawn, expected = np.array(true), np.array(drawn), np.array(expected)
    return np.corrcoef(true - expected, drawn - expected)[0, 1], np.mean(true != drawn), len(true)


@pytest.mark.parametrize("sets, kinds, games", [({}, ["random", "random"], 300),
                                                ({}, ["greedy", "greedy"], 300),
                                                ({"players": 4, "pro": True}, ["random", "greedy"] * 2, 250)])
def test_resampled_opponent_hand_does_not_follow_the_true_one(sets, kinds, games):
    """docs/zwergen.md, Resampling: the other hands are dealt from what the seat cannot see. Over thousands of
    decisions the resampled number of add cards in the next seat's hand does not correlate with the true one
    beyond what the mover knows (|r| < 0.03), and it does vary; a resampler that returns the state unchanged
    fails this test."""
    params = _params(**sets)
    r, varied, n = _leak_statistic(params, kinds, games, z.resample)
    assert n > 8000
    assert abs(r) < 0.03
    assert varied > 0.3
    unchanged, _, _ = _leak_statistic(params, kinds, 30, lambda state, params, seat, streams: None)
    assert unchanged > 0.99


def test_after_a_refill_the_pile_holds_only_cards_the_seat_cannot_rule_out():
    """docs/zwergen.md, What a seat knows: the discard pile is public, so when it becomes the draw pile every
    seat knows its cards; what a seat drew since is its own. A resampled pile holds only those candidates, and
    in a 2-player game where the opponent has drawn nothing since the refill, the opponent's hand is known
    exactly: resample keeps it."""
    params = _params()
    exact = 0
    for k, (state, seat, _) in enumerate(decisions(z, params, ["random", "random"], 40)):
        v = z.View(state)
        world = resampled(z, state, params, seat, k)
        pile = np.bincount(z.View(world).draw_pile, minlength=z.N_TYPES)
        unseen = params[z.P_DECK:z.P_DECK + z.N_TYPES] - v.hands[seat] - v.discard
        assert (pile <= np.minimum(unseen, v.refill - v.drawn[seat])).all()
        if v.drawn[1 - seat].sum() == 0 and v.refill.sum() < 55:      # a refill the opponent has not drawn from
            assert np.array_equal(z.View(world).hands[1 - seat], v.hands[1 - seat])
            exact += 1
    assert exact > 20


def _first_picks(params, kinds, deals):
    """(state copy, picking seat) at every starting-colour decision of round 1 of ``deals`` deals."""
    seen = []
    state = z.new_state()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    work = np.zeros(z.WORK_SIZE, np.int64)
    actions = np.zeros(z.MAX_ACTIONS, np.int64)
    for deal in range(deals):
        rng.seed_streams(streams, 3, deal)
        z.begin(state, params, streams)
        while state[z.S_PHASE] == z.PH_COLOUR:
            seat = z.current_player(state, params)
            seen.append((state.copy(), seat))
            if kinds[seat] == "random":
                n = z.legal_actions(state, params, actions)
                action = actions[rng.randint(streams, rng.POLICY + seat, n)]
            else:
                action = z.greedy_action(state, params, seat, streams, work)
            z.apply_action(state, params, action, streams)
    return seen


def test_secret_starting_colours_are_redrawn_without_a_leak():
    """RB: 'The players then simultaneously and secretly each selects a Gnome hat'; docs/zwergen.md, What a
    seat knows: the picks of the other seats are hidden until all have picked. For the last seat to pick, the
    resampled colour of the first pick does not correlate with the true one (|r| < 0.03), while the seat's own
    pick and the stock it saw stay."""
    params = _params(players=4)
    true, drawn = [], []
    for k, (state, seat) in enumerate(_first_picks(params, ["greedy", "random", "greedy", "random"], 6000)):
        starter = int(state[z.S_SEAT])
        if seat != (starter + 3) % 4:
            continue
        world = resampled(z, state, params, seat, k)
        assert z.information_state_string(world, params, seat) == z.information_state_string(state, params, seat)
        true.append(state[z.S_PICK + starter] == z.RED)
        drawn.append(world[z.S_PICK + starter] == z.RED)
    assert len(true) == 6000
    assert abs(np.corrcoef(true, drawn)[0, 1]) < 0.03
    assert abs(np.mean(drawn) - 0.25) < 0.02          # uniform over the four colours


def test_the_stock_a_seat_saw_fixes_the_earlier_picks():
    """DEC (Start of a round): the seats see each other's picks only through the supply. With one hat per
    colour and 4 players the last seat to pick sees one colour left, so the three earlier picks are the other
    three colours in some order: resample keeps that set and only permutes it."""
    params = _params(players=4, hats_per_colour=1)
    permuted = 0
    for k, (state, seat) in enumerate(_first_picks(params, ["random"] * 4, 300)):
        if seat != (state[z.S_SEAT] + 3) % 4:
            continue
        world = resampled(z, state, params, seat, k)
        others = np.array([s for s in range(4) if s != seat])
        assert sorted(world[z.S_PICK + others]) == sorted(state[z.S_PICK + others])
        permuted += not np.array_equal(world[z.S_PICK + others], state[z.S_PICK + others])
    assert permuted > 100


@pytest.mark.parametrize("players", [2, 4])
def test_returns_match_the_result_row(players):
    """docs/zwergen.md, Match: the first team to win rounds_to_win rounds wins the match; in the 4-player game
    both seats of that team win. Returns give 1 to each winning seat, 0 to the others, as the row's win
    columns say."""
    params = _params(players=players, pro=True)
    state = z.new_state()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    out = np.zeros(z.MAX_SEATS)
    row = np.zeros(engine.width(z), np.int64)
    for game in range(200):
        rng.seed_streams(streams, 4, game)
        z.begin(state, params, streams)
        _play_out(state, params, game)
        z.returns(state, params, out)
        z.write_row(state, params, row)
        wins = row[engine.O_WIN:engine.O_WIN + players]
        assert not row[engine.O_TIMEOUT] and wins.sum() == players // 2
        assert np.array_equal(out[:players], wins)
        assert out[0] == out[players - 2] and out[1] == out[players - 1]      # teammates share the result


def test_a_timed_out_match_returns_nothing():
    """DEC (Time limit): a match still running after max_turns turns is a timeout, never a win: every seat's
    return is 0."""
    params = _params(max_turns=5)
    state = z.new_state()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    rng.seed_streams(streams, 1, 0)
    z.begin(state, params, streams)
    _play_out(state, params, 0)
    out = np.ones(z.MAX_SEATS)
    z.returns(state, params, out)
    assert state[z.S_TURN] == 5 and not out[:2].any()


def test_a_seat_sees_its_own_hand_but_not_the_others_or_the_pile_order():
    """docs/zwergen.md, What a seat knows: the other hands and the order of the draw pile are hidden. Trading a
    card of seat 1's hand for a different card of the draw pile changes what seat 1 sees and the whole state's
    picture, not what seat 0 sees."""
    params = _params()
    traded = 0
    for state, _, _ in decisions(z, params, ["random", "random"], 2):
        v = z.View(state)
        card = int(np.flatnonzero(v.hands[1])[0])
        other = np.flatnonzero(v.draw_pile != card)
        if not len(other):
            continue
        world = state.copy()
        w = z.View(world)
        i = z.S_DRAW + int(other[0])
        w.hands[1, card] -= 1
        w.hands[1, world[i]] += 1
        world[i] = card
        assert z.information_state_string(world, params, 0) == z.information_state_string(state, params, 0)
        assert z.information_state_string(world, params, 1) != z.information_state_string(state, params, 1)
        assert z.state_to_string(world, params) != z.state_to_string(state, params)
        traded += 1
    assert traded > 50


NO_CARDS = {f"deck.{name}": 0 for name in z.DECK_PARAMS}
LARGEST = {**NO_CARDS, "track_half": 60, "hats_per_colour": 60, "hand_size": 12, "rounds_to_win": 20,
           "max_turns": 1_000_000, "deck.add": 40, "deck.add_multi": 40, "deck.pull_multi_two": 40}
# Allowed extremes (GAME.params), each with a field it must drive past a bound: the largest of everything with a
# 240-card deck of adds and multicolour pulls (a draw pile of over 127 cards, big teams, long matches), and the
# smallest of everything.
EXTREMES = {
    "largest-2p": ({**LARGEST, "swap_penalty": 20, "add_pull": 20, "pro": True, "re_moves_rope": True},
                   ["random", "greedy"], 6, "draw_n", 127),
    "largest-4p": ({**LARGEST, "players": 4, "swap_penalty": 0, "add_pull": 0, "pro": True},
                   ["greedy", "random", "random", "greedy"], 3, "max_team", 40),
    "smallest-4p": ({**NO_CARDS, "players": 4, "track_half": 2, "hats_per_colour": 1, "hand_size": 1,
                     "rounds_to_win": 1, "deck.add": 1, "deck.squirrel_1": 4},
                    ["random", "greedy", "greedy", "random"], 200, "n_rounds", 0),
}


def _assert_within_bounds(state, params):
    """Every field within the bound the module docstring gives it (a field that wrapped around breaks one)."""
    v = z.View(state)
    _assert_a_consistent_world(state, state, params)            # every card and hat in exactly one place
    assert 0 <= v.draw_n <= z.MAX_DECK and ((v.draw_pile >= 0) & (v.draw_pile < z.N_TYPES)).all()
    assert (v.hands.sum(axis=1) <= params[z.P_HAND_SIZE]).all() and v.discard.min() >= 0
    assert ((v.picks >= -1) & (v.picks < z.N_COLOURS)).all() and ((v.seen >= 0) & (v.seen < 16)).all()
    assert v.rounds.max() <= params[z.P_ROUNDS_TO_WIN] and v.n_rounds < 2 * params[z.P_ROUNDS_TO_WIN]
    assert v.max_team <= z.N_COLOURS * params[z.P_HATS]
    assert v.phase == z.PH_COLOUR or v.teams.sum(axis=1).max() <= v.max_team     # noted once all have picked
    moves = v.adds + v.pulls + v.squirrels + v.swaps + v.contras + v.res + v.herberts
    assert 0 <= v.lead_changes <= v.turn == moves <= params[z.P_MAX_TURNS]
    if z.current_player(state, params) >= 0:                     # a round is on: nobody is in the fence
        assert min(z.front(state, params, 0), z.front(state, params, 1)) >= 1
        assert abs(v.rope) < params[z.P_TRACK_HALF]


def _turn_and_rope_after(state, params, action):
    """The turn count and the rope after ``action``, worked out at machine width from the state before it."""
    v = z.View(state)
    if v.phase == z.PH_COLOUR or action == z.A_SWAP:              # a pick, or a swap's first half: no move yet
        return v.turn, v.rope
    kind, t, c = (z.M_SWAP, -1, -1) if v.phase == z.PH_DISCARD else z.decode_move(action)
    pull, _, _ = z.effect(state, params, v.seat, kind, t, c)
    return v.turn + 1, v.rope + int(pull)


@pytest.mark.parametrize("case", EXTREMES)
def test_the_state_keeps_its_bounds_under_extreme_parameters(case):
    """The state is int16 (module docstring): at the allowed extremes of every parameter, after every decision
    each field stays within its bound, every card and hat is in one place, each move counts one turn and pulls
    the rope exactly as far as its effect at machine width, and the counts of moves add up to the turns. Each
    case drives one field past a bound (the draw pile past 127 cards, a team past 40 gnomes) or plays the
    smallest game."""
    sets, kinds, games, field, beyond = EXTREMES[case]
    params = _params(**sets)
    state = z.new_state()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    actions = np.zeros(z.MAX_ACTIONS, np.int64)
    work = np.zeros(z.WORK_SIZE, np.int64)
    reached = 0
    for game in range(games):
        rng.seed_streams(streams, 9, game)
        z.begin(state, params, streams)
        _assert_within_bounds(state, params)
        while (seat := z.current_player(state, params)) >= 0:
            if kinds[seat] == "random":
                action = actions[rng.randint(streams, rng.POLICY + seat, z.legal_actions(state, params, actions))]
            else:
                action = z.greedy_action(state, params, seat, streams, work)
            rounds = z.View(state).n_rounds
            turn, rope = _turn_and_rope_after(state, params, action)
            z.apply_action(state, params, action, streams)
            v = z.View(state)
            assert v.turn == turn and v.rope == (0 if v.n_rounds > rounds else rope)    # a new round: centred
            _assert_within_bounds(state, params)
            reached = max(reached, getattr(v, field))
    assert reached > beyond


def test_a_match_of_a_million_turns_counts_every_turn():
    """DEC (Time limit): a match still running after max_turns turns is a timeout. At the largest max_turns,
    with a deck that seldom moves the rope, matches run to the limit: the turn and the counts of each kind of
    move (two 16-bit words each, module docstring) count past 65,536 without losing a turn."""
    sets = {**NO_CARDS, "track_half": 60, "rounds_to_win": 20, "max_turns": 1_000_000, "swap_penalty": 0,
            "add_pull": 0, "deck.pull_multi_zero": 20, "deck.squirrel_1": 1}    # a squirrel: every round can end
    run = cfg.resolve("zwergen", sets=list(sets.items()), policies=[("all", "random")])
    rows = engine.run(run.module, run.params_array(), run.policies_array(), 3, 8)
    extra = {name: rows[:, engine.extra_offset(z.MAX_SEATS) + i] for i, (name, _, _) in enumerate(z.EXTRA_COLUMNS)}
    turns = rows[:, engine.O_N_TURNS]
    moves = sum(extra[name] for name in ("adds", "pulls", "squirrels", "swaps", "contras", "res", "herberts"))
    assert np.array_equal(moves, turns) and (extra["lead_changes"] <= turns).all()
    timeouts = rows[:, engine.O_TIMEOUT].astype(bool)
    assert timeouts.any() and (~timeouts).any()
    assert (turns[timeouts] == 1_000_000).all() and (turns[~timeouts] < 1_000_000).all()
    assert extra["pulls"].max() > 1 << 16 and extra["swaps"].max() > 1 << 16
