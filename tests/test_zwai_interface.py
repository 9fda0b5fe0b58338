"""Zwai as a decision process (docs/zwai.md, "Decisions, information and resampling"): resample redraws exactly
what a seat cannot see, and the returns follow Zwai's winner rule. What every game must do through the interface
is checked by tests/test_conformance.py."""

import numpy as np
import pytest

from simcore import engine
from simcore.engine import rng
from simcore.games import zwai as z
from simcore.games.zwai import text as zwai_text
from simcore.io import config as cfg
from tests.interface_driver import decisions, resampled


def _colour_counts(state, seat):
    """Cards of each fish value of ``seat``'s colour in its hand and pile."""
    view = z.View(state)
    return view.hands[seat] + np.bincount(view.pile(seat), minlength=z.MAX_FISH)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_resample_keeps_what_the_seat_knows_and_every_card(players):
    """docs/zwai.md: a seat knows its hand, the table, what each part of its own pile holds and which cards of
    each colour it has not seen. Resampling for it changes none of that, keeps the mover's legal actions, and
    keeps each colour's cards in that colour's hand and pile."""
    params = cfg.resolve("zwai", sets=[("players", players)]).params_array()
    actions_before, actions_after = np.zeros(z.MAX_ACTIONS, np.int64), np.zeros(z.MAX_ACTIONS, np.int64)
    changed = 0
    for k, (state, mover, _) in enumerate(decisions(z, params, ["random", "greedy", "random", "greedy"], 12)):
        for seat in range(players):
            world = resampled(z, state, params, seat, k)
            assert z.information_state_string(world, params, seat) == z.information_state_string(state, params,
                                                                                                   seat)
            for other in range(players):
                assert np.array_equal(_colour_counts(world, other), _colour_counts(state, other))
                assert z.View(world).hands[other].sum() == z.View(state).hands[other].sum()
            changed += not np.array_equal(world, state)
        n = z.legal_actions(state, params, actions_before)
        m = z.legal_actions(resampled(z, state, params, mover, k), params, actions_after)
        assert np.array_equal(actions_before[:n], actions_after[:m])
    assert changed > 0


def test_resampled_opponent_hand_does_not_follow_the_true_one():
    """DEC/doc: resample draws the opponent's hand uniformly from its unseen cards. At seat 0's first decision
    of thousands of 2-player games, the number of 4-fish cards in the opponent's resampled hand does not
    correlate with the true number (|r| < 0.03), while the mean matches the uniform expectation."""
    params = cfg.resolve("zwai").params_array()
    state = z.new_state()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    true, drawn = [], []
    for game in range(6000):
        rng.seed_streams(streams, 99, game)
        z.begin(state, params, streams)
        true.append(z.View(state).hands[1][4])
        drawn.append(z.View(resampled(z, state, params, 0, game)).hands[1][4])
    true, drawn = np.array(true), np.array(drawn)
    assert abs(np.corrcoef(true, drawn)[0, 1]) < 0.03
    # 11 of 23 cards in hand, 3 of them 4-fish: hypergeometric mean 3 * 11 / 23
    assert abs(drawn.mean() - 3 * 11 / 23) < 0.05
    assert drawn.std() > 0.5


def test_own_pile_is_reshuffled_only_within_the_parts_the_seat_knows():
    """RB, round end: each owner puts its removed cards and its remaining hand, shuffled, under its pile. The
    owner knows what it put there, so resample keeps the multiset of each part of its own pile (bottom parts
    first) and only their order changes."""
    params = cfg.resolve("zwai").params_array()
    later = [(s, seat) for s, seat, _ in decisions(z, params, ["random", "random"], 30) if z.View(s).n_rounds >= 1]
    assert later
    orders_changed = 0
    for k, (state, seat) in enumerate(later):
        world = resampled(z, state, params, seat, k)
        assert zwai_text._pile_parts(world, seat) == zwai_text._pile_parts(state, seat)
        orders_changed += not np.array_equal(z.View(world).pile(seat), z.View(state).pile(seat))
    assert orders_changed > 0


def test_returns_match_the_result_row():
    """RB, End of the Game: most own fish wins, then most own cards, else a shared win: returns give 1, 0, or
    1/k to each of k tied winners, and match the row's win columns."""
    params = cfg.resolve("zwai", sets=[("players", 3)]).params_array()
    state = z.new_state()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    out = np.zeros(z.MAX_SEATS)
    actions = np.zeros(z.MAX_ACTIONS, np.int64)
    shared = 0
    for game in range(300):
        rng.seed_streams(streams, 4, game)
        z.begin(state, params, streams)
        while (seat := z.current_player(state, params)) >= 0:
            n = z.legal_actions(state, params, actions)
            z.apply_action(state, params, actions[rng.randint(streams, rng.POLICY + seat, n)], streams)
        z.returns(state, params, out)
        row = np.zeros(engine.width(z), np.int64)
        z.write_row(state, params, row)
        wins = row[engine.O_WIN:engine.O_WIN + 3].astype(bool)
        assert np.allclose(out[:3], np.where(wins, 1 / wins.sum(), 0.0))
        shared += wins.sum() > 1
    assert shared > 0          # the shared case was met


def test_a_timed_out_game_returns_nothing():
    """DEC: a game that reaches max_turns is a timeout, never a win: every seat's return is 0."""
    params = cfg.resolve("zwai", sets=[("max_turns", 5)]).params_array()
    state = z.new_state()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    rng.seed_streams(streams, 1, 0)
    z.begin(state, params, streams)
    actions = np.zeros(z.MAX_ACTIONS, np.int64)
    while (seat := z.current_player(state, params)) >= 0:
        n = z.legal_actions(state, params, actions)
        z.apply_action(state, params, actions[rng.randint(streams, rng.POLICY + seat, n)], streams)
    out = np.ones(z.MAX_SEATS)
    z.returns(state, params, out)
    assert state[z.S_TURN] == 5 and not out[:2].any()
