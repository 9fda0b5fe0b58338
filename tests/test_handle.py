"""The OpenSpiel-like handle: games as objects over the same jitted interface the engine runs."""

import re

import numpy as np
import pytest

from simcore import games
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




@pytest.mark.parametrize("seed, game_index, error, message", [
    (-3, 0, ValueError, "seed -3 is not allowed; allowed: an integer from 0 to 9223372036854775807"),
    (2**64, 0, ValueError, f"seed {2**64} is not allowed"),
    ("a", 0, TypeError, "seed 'a' is not an integer; allowed: an integer from 0 to"),
    (True, 0, TypeError, "seed True is not an integer"),
    (1, -1, ValueError, "game_index -1 is not allowed; allowed: an integer from 0 to 9223372036854775807"),
    (1, 2**63, ValueError, f"game_index {2**63} is not allowed"),
    (1, 0.5, TypeError, "game_index 0.5 is not an integer"),
])
def test_bad_seeds_and_game_indices_are_refused_in_one_line(seed, game_index, error, message):
    """Issue 36: new_initial_state took negative seeds and game indices silently, and seed=2**64 or "a" reached
    numba (an overflow, a typing error); each is refused in one line naming the allowed integers."""
    with pytest.raises(error, match=f"^{re.escape(message)}") as refused:
        load_game("zwai").new_initial_state(seed=seed, game_index=game_index)
    assert "\n" not in str(refused.value)


def test_numpy_integers_are_seeds_seats_and_actions():
    """Issue 36: numpy integers are integers (the same game as Python's ints), floats and bools are not: a seed
    of 1.0 or True, a seat of 1.5 or "0", an action 1.0 or True was taken as the integer it equals."""
    game = load_game("zwai")
    state = game.new_initial_state(seed=np.int64(5), game_index=np.uint32(1))
    assert str(state) == str(game.new_initial_state(seed=5, game_index=1))
    assert state.information_state_string(np.int64(1)) == state.information_state_string(1)
    for seed in (1.0, True):
        with pytest.raises(TypeError, match="^seed .* is not an integer"):
            game.new_initial_state(seed=seed)
    for seat in (1.5, "0", True):
        with pytest.raises(TypeError, match="^seat .* is not an integer; allowed: an integer from 0 to 1$"):
            state.resample(seat, seed=2)
    legal = state.legal_actions()
    for action in (float(legal[0]), True):
        with pytest.raises(TypeError, match=f"^action .* is not an integer; allowed: {re.escape(str(legal))}$"):
            state.apply_action(action)
    state.apply_action(np.int64(legal[0]))
    assert state.legal_actions() != legal


def test_seats_beyond_the_game_are_refused_in_one_line():
    """Issue 36: information_state_string(99) raised IndexError, (-1) answered for the last seat, resample of
    seat 99 never returned and a resample seed of -1 or 2**64 reached numba: one line each, naming the seats."""
    state = load_game("zwai", params={"players": 3}).new_initial_state()
    for seat in (99, -1, 3):
        with pytest.raises(ValueError, match=f"^seat {seat} is not allowed; allowed: an integer from 0 to 2$"):
            state.information_state_string(seat)
    for seed in (-1, 2**64):
        with pytest.raises(ValueError, match=f"^seed {seed} is not allowed; allowed: an integer from 0 to "):
            state.resample(0, seed=seed)
    for seat in (-1, 99):      # the last: today's code never returns from it
        with pytest.raises(ValueError, match=f"^seat {seat} is not allowed; allowed: an integer from 0 to 2$"):
            state.resample(seat, seed=1)


@pytest.mark.parametrize("game", games.names())
def test_action_codes_outside_the_game_are_refused_in_one_line(game):
    """Issue 36: action_to_string(99999) or a negative code was described as if it were a move; the codes of a
    game are 0 to its N_ACTION_CODES - 1, legal here or not."""
    state = load_game(game).new_initial_state()
    last = state.game.module.N_ACTION_CODES - 1
    state.action_to_string(np.int64(last))          # any code of the game is described, legal or not
    for code in (last + 1, 99999, -1):
        with pytest.raises(ValueError, match=f"^action code {code} is not allowed; allowed: an integer from 0 to "
                                             f"{last}$"):
            state.action_to_string(code)
    with pytest.raises(TypeError, match=f"^action code 'a' is not an integer; allowed: an integer from 0 to {last}$"):
        state.action_to_string("a")


@pytest.mark.parametrize("params", [[("players", 3)], "players=3", ("players",)])
def test_params_that_are_not_a_dict_are_refused_in_one_line(params):
    """Issue 36: load_game("zwai", params=[...]) raised AttributeError ('list' object has no attribute 'items')."""
    with pytest.raises(ConfigError, match="^params = .* is not allowed; allowed: a dict of parameter names to "
                                          "values$"):
        load_game("zwai", params=params)
