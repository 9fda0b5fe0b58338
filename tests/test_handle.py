"""The OpenSpiel-like handle: games as objects over the same jitted interface the engine runs."""

import pytest

from simcore.handle import load_game
from simcore.io.config import ConfigError


def _play_first_action(state):
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    return state


def test_a_game_runs_to_its_returns():
    game = load_game("zwai", params={"players": 3})
    state = game.new_initial_state(seed=1, game_index=2)
    assert state.current_player() == 0 and game.num_players() == 3
    assert all(state.action_to_string(a).startswith("card") for a in state.legal_actions())
    _play_first_action(state)
    assert state.legal_actions() == [] and state.current_player() == -1
    assert sorted(state.returns()) in ([0.0, 0.0, 1.0], [0.0, 0.5, 0.5], [1 / 3] * 3)
    assert "game over" in str(state)


def test_same_seed_same_game_and_clones_are_independent():
    game = load_game("zwai")
    one, two = game.new_initial_state(seed=5), game.new_initial_state(seed=5)
    assert str(one) == str(two)
    assert str(game.new_initial_state(seed=5, game_index=1)) != str(one)
    copy = one.clone()
    copy.apply_action(copy.legal_actions()[0])
    assert str(copy) != str(one) and str(one) == str(two)
    assert str(_play_first_action(one)) == str(_play_first_action(two))


def test_resample_is_a_new_state_that_looks_the_same_to_the_seat():
    state = load_game("zwai").new_initial_state(seed=3)
    for _ in range(30):                      # into round 2, where piles hold returned cards
        state.apply_action(state.legal_actions()[-1])
    world = state.resample(state.current_player(), seed=8)
    seat = state.current_player()
    assert world.information_state_string(seat) == state.information_state_string(seat)
    assert str(world) != str(state)          # the opponent's hand and the piles were redrawn
    assert world.information_state_string(1 - seat) != state.information_state_string(1 - seat)


def test_bad_actions_and_params_are_refused():
    state = load_game("zwai").new_initial_state()
    with pytest.raises(ValueError, match="not legal"):
        state.apply_action(999)
    with pytest.raises(ConfigError, match="players"):
        load_game("zwai", params={"players": 7})


