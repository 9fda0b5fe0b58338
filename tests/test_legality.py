"""The legality check (SIMCORE_CHECK_LEGAL=1, set for every test by conftest.py): every action the game loop and
the agents apply, in the game and inside every search, is legal in its state, else AssertionError
(simcore.engine.loop.apply_checked). Here: the check is on and catches an illegal action, and a checked copy can be
bound in a process that is not checked. That every agent of every game plays only legal actions is the conformance
check ``searches-legal`` (simcore.testing, tests/test_conformance.py)."""

import numpy as np
import pytest

import simcore
from simcore import games
from simcore.agents import core
from simcore.engine.binding import bind


def test_the_tests_run_the_checked_build_in_a_cache_folder_of_its_own(monkeypatch):
    assert simcore.CHECK_LEGAL
    checked = simcore._source_digest()
    monkeypatch.setattr(simcore, "CHECK_LEGAL", False)
    assert simcore._source_digest() != checked


@pytest.mark.parametrize("game", games.names())
def test_an_illegal_action_is_refused_before_it_is_applied(game):
    """``play_action``, the one way the templates apply an action, raises on an action the state does not
    list and leaves the state as it was; a legal action it applies."""
    module = games.load(game)
    assert all(template.py_func.__globals__["play_action"] is bind(module).compiled["play_action"]
               for template in (bind(module).compiled[name] for name in ("play", "playout", "greedy_playout",
                                                                   "mc_action", "ismcts_action")))
    g = simcore.load_game(game)
    s = g.new_initial_state(seed=3)
    actions = np.zeros((core.ACTION_ROWS, module.MAX_ACTIONS), np.int64)
    # the first decision where some action code is not legal (the contract promises none at the first)
    while not s.is_terminal() and len(s.legal_actions()) == module.N_ACTION_CODES:
        s.apply_action(s.legal_actions()[0])
    if s.is_terminal():
        pytest.skip(f"{game}: every action code is legal at every decision of its game")
    legal = s.legal_actions()
    illegal = next(a for a in range(module.N_ACTION_CODES) if a not in legal)
    before = s.state.copy()
    with pytest.raises(AssertionError, match="illegal action applied"):
        bind(module).compiled["play_action"](s.state, g.params_array, np.int64(illegal), s.streams, actions)
    assert (s.state == before).all()
    bind(module).compiled["play_action"](s.state, g.params_array, np.int64(legal[0]), s.streams, actions)
    assert not (s.state == before).all()


def test_a_checked_copy_is_bound_apart_from_an_unchecked_one():
    """``simcore check`` plays the searches checked in a process that is not (``bind(module, checked=True)``):
    the two copies are bound apart, each applying actions its own way, under names of their own in the cache."""
    module = games.load("goofspiel")
    checked, unchecked = bind(module, checked=True), bind(module, checked=False)
    assert checked is bind(module) and unchecked is not checked      # this process is the checked build
    assert checked.compiled["play_action"].py_func.__code__.co_name == "apply_checked"
    assert unchecked.compiled["play_action"].py_func.__code__.co_name == "apply_unchecked"
    assert checked.compiled["play"].py_func.__qualname__ == "goofspiel.checked.play"
    assert unchecked.compiled["play"].py_func.__qualname__ == "goofspiel.play"
