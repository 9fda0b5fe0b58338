"""The strongest test: the jitted Zwergen Ziehen and the plain-Python reference play the same games.

``benchmarks/reference/zwergen.py`` was written on its own from docs/zwergen.md (no numba, no shared
game code); both draw from the same random streams, so every game must agree to the last counter.
"""

import numpy as np
import pytest

from benchmarks.reference import zwergen as reference
from simcore import engine
from simcore.games import zwergen as z
from simcore.io import config as cfg
from simcore.studies.bench import nested

# reference result key -> jitted result column
EXTRAS = {name: engine.extra_offset(z.MAX_SEATS) + i for i, (name, _, _) in enumerate(z.EXTRA_COLUMNS)}
KEYS = {"rounds_a": "rounds_a", "rounds_b": "rounds_b", "n_rounds": "n_rounds", "adds": "adds",
        "pulls": "pulls", "squirrels": "squirrels", "swaps": "swaps", "contras": "contras", "res": "res",
        "herberts": "herberts", "lead_changes": "lead_changes", "max_team": "max_team"}

CASES = {
    "2p-random": ({}, [("all", "random")], 2000),
    "2p-greedy": ({}, [("all", "greedy")], 1500),
    "2p-greedy-vs-random": ({}, [("all", "greedy"), ("1", "random")], 1000),
    "4p-random": ({"players": 4}, [("all", "random")], 1000),
    "4p-pro-greedy": ({"players": 4, "pro": True}, [("all", "greedy")], 1500),
    "4p-pro-mixed": ({"players": 4, "pro": True}, [("all", "random"), ("2", "greedy")], 1000),
    "2p-pro-re-moves-rope": ({"pro": True, "re_moves_rope": True}, [("all", "greedy"), ("0", "random")], 1500),
    "2p-pro-greedy": ({"pro": True}, [("all", "greedy")], 1500),
    "odd-deck-and-track": ({"track_half": 5, "hand_size": 3, "deck.add": 1, "deck.squirrel_3": 9,
                            "hats_per_colour": 2, "rounds_to_win": 3, "first_seat": 1},
                           [("all", "greedy"), ("1", "random")], 1000),
    "short-timeouts": ({"max_turns": 25, "swap_penalty": 0, "add_pull": 0}, [("all", "random")], 1000),
}


@pytest.mark.parametrize("case", list(CASES))
def test_jitted_and_reference_play_identical_games(case):
    params, policies, n_games = CASES[case]
    run = cfg.resolve("zwergen", sets=list(params.items()), policies=policies)
    rows = engine.run(run.module, run.params_array(), run.policies_array(), 77, n_games)
    played = reference.run(nested(run.params), run.policies, 77, n_games)
    for g, (row, ref) in enumerate(zip(rows, played, strict=True)):
        got = {
            "winner_team": -1 if row[engine.O_TIMEOUT] else (0 if row[engine.O_WIN] else 1),
            "timeout": int(row[engine.O_TIMEOUT]),
            "n_turns": int(row[engine.O_N_TURNS]),
            **{key: int(row[EXTRAS[col]]) for key, col in KEYS.items()},
        }
        expected = {key: ref[key] for key in got}
        assert got == expected, f"game {g} of case {case} differs"
    # the cases must exercise what they are about
    column = rows[:, EXTRAS["contras"]]
    if params.get("pro"):
        assert column.sum() > 0 and rows[:, EXTRAS["res"]].sum() > 0
    if case == "short-timeouts":
        assert 0 < rows[:, engine.O_TIMEOUT].sum() < n_games
    assert np.all(rows[:, engine.O_N_TURNS] > 0)
