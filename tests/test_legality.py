"""The legality check (SIMCORE_CHECK_LEGAL=1, set for every test by conftest.py): every action the game loop and
the agents apply, in the game and inside every search, is legal in its state, else AssertionError
(simcore.agents.core.apply_checked). Here: the check is on and catches an illegal action, and every agent of
every game plays games under it."""

import numpy as np
import pytest

import simcore
from simcore import agents, games
from simcore.agents import core
from simcore.io import config as cfg

# Small budgets: the check lists the legal actions before every action applied, in every rollout.
AGENTS = ("random", "greedy", "mc:rollouts=2", "ismcts:iterations=20,rollout=random",
          "ismcts:iterations=20,rollout=greedy", "ismcts:iterations=20,widen=0.5",
          "ismcts:iterations=20,cutoff=6,widen=1", "ismcts:iterations=20,cutoff=6,widen=1,tree=observed,rollout=greedy")
GAMES = 4


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
    assert all(template.py_func.__globals__["play_action"] is core.bind(module).compiled["play_action"]
               for template in (core.bind(module).compiled[name] for name in ("play", "playout", "greedy_playout",
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
        core.bind(module).compiled["play_action"](s.state, g.params_array, np.int64(illegal), s.streams, actions)
    assert (s.state == before).all()
    core.bind(module).compiled["play_action"](s.state, g.params_array, np.int64(legal[0]), s.streams, actions)
    assert not (s.state == before).all()


def _offered(spec, game_type):
    """Whether the game offers the agent of ``spec`` with its parameters (cutoff needs an evaluation)."""
    try:
        agents.parse(spec, game_type)
    except ValueError:
        return False
    return True


def seatings(game):
    """Test cases of (game, parameters, one spec per seat): every agent the game offers in every seat of the
    default game, then each beside the others at the largest player count."""
    module = games.load(game)
    offered = [spec for spec in AGENTS if _offered(spec, module.GAME)]
    players = max(module.GAME.player_counts)
    for spec in offered:
        yield pytest.param(game, {}, [spec] * module.GAME.defaults()["players"], id=f"{game}-all-{spec}")
    for k in range(len(offered)):
        yield pytest.param(game, {"players": players}, [offered[(k + seat) % len(offered)] for seat in range(players)],
                           id=f"{game}-{players}p-mixed-{k}")


@pytest.mark.parametrize("game, params, specs", [case for game in games.names() for case in seatings(game)])
def test_every_agent_applies_only_legal_actions(game, params, specs):
    """Games on one thread (``search_batch``: the check's AssertionError arrives as it is): the test passes
    when no action applied, in the game or in a search, was illegal (and the searches ran)."""
    run = cfg.resolve(game, sets=list(params.items()), policies=[(str(seat), spec)
                                                                 for seat, spec in enumerate(specs)])
    iterations = core.bind(run.module).search_batch(run.params_array(), run.policies_array(), np.int64(1), np.int64(0),
                                         np.int64(GAMES))
    assert (iterations > 0) == any(spec.startswith("ismcts") for spec in specs)
