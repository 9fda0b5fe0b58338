"""The game contract (issue 23): what a game module provides, stated in one place and checked at registration;
a capability a game does not declare needs no stub."""

import dataclasses
import sys
import types

import numpy as np
import pytest

from simcore import games
from simcore.engine import binding, interface
from simcore.games import defaults


@pytest.mark.parametrize("game", games.names())
def test_every_registered_game_provides_the_whole_contract(game):
    assert games.contract_gaps(games.load(game)) == []


def test_the_contract_holds_what_the_agents_bind():
    provided = set(games.CONTRACT).union(games.OPTIONAL, *games.CAPABILITIES.values())
    assert set(interface.INTERFACE + interface.SIZES) <= provided
    assert set(defaults.DEFAULTS) == set(games.CAPABILITIES) - {"picture", "openspiel"}   # plain Python, not bound
    assert all(set(defaults.DEFAULTS[flag]) == set(games.CAPABILITIES[flag]) for flag in defaults.DEFAULTS)


def _partial(leave_out, game_type=None):
    """A module with zwai's pieces but those of ``leave_out``, registered as game "partial"."""
    zwai = games.load("zwai")
    partial = types.ModuleType("simcore.games.partial")
    for name in games.required(zwai.GAME):
        if name not in leave_out:
            setattr(partial, name, getattr(zwai, name))
    if game_type is not None:
        partial.GAME = game_type
    return partial


def _refusal(monkeypatch, module):
    monkeypatch.setitem(games.MODULES, "partial", "simcore.games.partial")
    monkeypatch.setitem(sys.modules, "simcore.games.partial", module)
    with pytest.raises(ValueError) as error:
        games.load("partial")
    return str(error.value)


def test_a_module_missing_pieces_is_refused_naming_every_one(monkeypatch):
    """Registration names every missing piece in one line, not the first a traceback happens to reach."""
    message = _refusal(monkeypatch, _partial(("state_to_string", "resample", "write_row")))
    assert "does not provide write_row, state_to_string, resample; allowed: a module with every name of " \
           "simcore.games.CONTRACT and of its CAPABILITIES" in message and "\n" not in message


def test_a_game_declaring_no_hidden_information_writes_no_resample(monkeypatch):
    """The skirmish declares hidden_information=False and has no resample; the agents' binding gives it one that
    redraws nothing, and the handle's resample keeps the whole state."""
    skirmish = games.load("skirmish")
    assert not skirmish.GAME.hidden_information and "resample" not in vars(skirmish.rules)
    assert skirmish.resample is defaults.DEFAULTS["hidden_information"]["resample"]     # completed at load
    from simcore import handle

    state = handle.load_game("skirmish").new_initial_state(seed=3)
    for _ in range(5):
        state.apply_action(state.legal_actions()[-1])
    world = state.resample(state.current_player(), seed=11)
    assert np.array_equal(world.state, state.state)
    open_game = dataclasses.replace(games.load("zwai").GAME, hidden_information=False)
    assert _partial(("resample",), open_game) and not games.contract_gaps(_partial(("resample",), open_game))


def test_a_heuristic_is_declared_with_greedy_among_the_policies(monkeypatch):
    """A game without a heuristic writes no greedy_action and offers no greedy policy; saying one and doing the
    other is refused."""
    zwai = games.load("zwai").GAME
    plain = dataclasses.replace(zwai, heuristic=False, policies=("random", "mc", "ismcts"))
    assert games.contract_gaps(_partial(("greedy_action", "WORK_SIZE"), plain)) == []
    bound = binding.instantiate({**vars(_partial(("greedy_action", "WORK_SIZE"), plain)), "__name__": "partial"})
    assert bound["WORK_SIZE"] == 1
    contradiction = dataclasses.replace(zwai, heuristic=False)
    message = _refusal(monkeypatch, _partial(("greedy_action", "WORK_SIZE"), contradiction))
    assert "'greedy' among its policies exactly when it declares a heuristic" in message


def test_binding_the_agents_names_every_missing_interface_function():
    zwai = vars(games.load("zwai"))
    partial = {name: value for name, value in zwai.items() if name not in ("returns", "WORK_SIZE")}
    with pytest.raises(ValueError, match=r"simcore\.games\.zwai does not provide returns, WORK_SIZE; allowed"):
        binding.instantiate(partial)


def test_the_agents_are_bound_once_per_game_in_one_place():
    """binding.bind is where a game meets the agents: one Bound per game and process, its interface the game's
    own functions."""
    zwai = games.load("zwai")
    bound = binding.bind(zwai)
    assert binding.bind(zwai) is bound
    assert bound.interface["legal_actions"] is zwai.legal_actions
    assert not hasattr(zwai, "run_batch") and not hasattr(zwai, "compiled")


def test_a_reading_that_is_no_parameter_value_is_refused_at_registration(monkeypatch):
    """A game's readings of its rulebook (simcore readings plays them) name its parameters and values it allows,
    its default among them; registration names every wrong one in one line."""
    zwai = games.load("zwai").GAME
    wrong = dataclasses.replace(zwai, readings=(("round_starter", ("rotate", "sideways"), "who begins"),
                                                ("sharks", (True, False), "a tie")))
    message = _refusal(monkeypatch, _partial((), wrong))
    assert "'sideways' is not allowed; allowed: one of 'next', 'rotate'" in message
    assert "a reading of 'sharks' that names one of its parameters" in message and "\n" not in message


def test_a_small_game_leaves_the_trace_and_the_optional_names_to_their_defaults(monkeypatch):
    """A game that declares trace=False writes no trace hooks, and any game may leave out check, new_state and
    round_of (simcore.games.OPTIONAL): load completes it with the defaults, the agents bind them, and a traced
    run of it is refused in one line."""
    from simcore import engine

    small = dataclasses.replace(games.load("zwai").GAME, trace=False)
    left_out = (*games.CAPABILITIES["trace"], *games.OPTIONAL)
    module = _partial(left_out, small)
    assert games.contract_gaps(module) == []
    monkeypatch.setitem(games.MODULES, "partial", "simcore.games.partial")
    monkeypatch.setitem(sys.modules, "simcore.games.partial", module)
    loaded = games.load("partial")
    assert loaded.check({}) is None and loaded.round_of(None) == 0
    zwai = games.load("zwai")
    assert loaded.new_state().shape == (zwai.STATE_SIZE,) and loaded.new_state().dtype == zwai.STATE_DTYPE
    assert loaded.ACTION_KINDS == () and loaded.trace_step is defaults.DEFAULTS["trace"]["trace_step"]
    with pytest.raises(ValueError, match="game zwai declares no trace; allowed: a traced run of a game with the "
                                         "trace hooks"):
        engine.batch_function(loaded, np.zeros((2, 7)), traced=True)
    assert "no trace" in small.capabilities() and "a trace" in zwai.GAME.capabilities()


def test_what_a_game_defines_itself_is_never_replaced_by_a_default():
    goofspiel = games.load("goofspiel")
    for name in ("check", "new_state", "round_of", "standing", "resample"):
        assert getattr(goofspiel, name) is vars(goofspiel)[name] and getattr(goofspiel, name).__module__.startswith(
            "simcore.games.goofspiel")
