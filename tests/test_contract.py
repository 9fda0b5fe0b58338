"""The game contract (issue 23): what a game module provides, stated in one place and checked at registration."""

import sys
import types

import pytest

from simcore import games
from simcore.agents import core


@pytest.mark.parametrize("game", games.names())
def test_every_registered_game_provides_the_whole_contract(game):
    assert games.contract_gaps(games.load(game)) == []


def test_the_contract_holds_what_the_agents_bind():
    assert set(core.INTERFACE + core.SIZES) <= set(games.CONTRACT)


def test_a_module_missing_pieces_is_refused_naming_every_one(monkeypatch):
    """Registration names every missing piece in one line, not the first a traceback happens to reach."""
    partial = types.ModuleType("simcore.games.partial")
    zwai = games.load("zwai")
    for name in games.CONTRACT:
        if name not in ("resample", "round_of", "run_plain"):
            setattr(partial, name, getattr(zwai, name))
    monkeypatch.setitem(games.MODULES, "partial", "simcore.games.partial")
    monkeypatch.setitem(sys.modules, "simcore.games.partial", partial)
    with pytest.raises(ValueError) as error:
        games.load("partial")
    message = str(error.value)
    assert "does not provide resample, round_of, run_plain; allowed: a module with every name of " \
           "simcore.games.CONTRACT" in message and "\n" not in message


def test_binding_the_agents_names_every_missing_interface_function():
    zwai = vars(games.load("zwai"))
    partial = {name: value for name, value in zwai.items() if name not in ("returns", "WORK_SIZE")}
    with pytest.raises(ValueError, match=r"simcore\.games\.zwai does not provide returns, WORK_SIZE; allowed"):
        core.instantiate(partial)
