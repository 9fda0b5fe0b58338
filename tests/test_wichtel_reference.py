"""The jitted Wichtel and the plain-Python reference (written on its own from docs/wichtel.md, with its own
scoring) play the same games and score every retinue alike."""

import itertools

import numpy as np
import pytest

from benchmarks.reference import wichtel as reference
from simcore import engine
from simcore.games import wichtel as w
from simcore.io import config as cfg
from simcore.studies.bench import reference_params

CASES = {
    "4p-random": ({}, [("all", "random")], 1500),
    "4p-greedy": ({}, [("all", "greedy")], 1000),
    "3p-mixed": ({"players": 3}, [("all", "random"), ("1", "greedy")], 1000),
    "5p-greedy": ({"players": 5}, [("all", "greedy")], 800),
    "5p-mixed-first-ties": ({"players": 5, "bribe_tie": "first"}, [("all", "greedy"), ("2", "random")], 800),
    "ranking-der-ich-6": ({"bribe_ranking": "2,3,4,5,der,ich,6"}, [("all", "random"), ("0", "greedy")], 800),
    "no-beste-reshuffle": ({"players": 3, "bribe_ranking": "2,3,4,5,6", "reshuffle_on_reverse": True},
                           [("all", "random")], 800),
    "events-and-values": ({"events.nix_da": 3, "events.guck_nochmal": 2, "events.r6": 0, "values.HW": 2,
                           "values.FA": 1, "values.HD": 6, "best_bonus": 3}, [("all", "greedy"), ("3", "random")],
                          800),
    "short-timeouts": ({"max_turns": 9}, [("all", "random")], 600),
}


@pytest.mark.parametrize("case", list(CASES))
def test_jitted_and_reference_play_identical_games(case):
    params, policies, n_games = CASES[case]
    run = cfg.resolve("wichtel", sets=list(params.items()), policies=policies)
    rows = engine.run(run.module, run.params_array(), run.policies_array(), 31, n_games)
    played = reference.run(reference_params(run), run.policies, 31, n_games)
    n = run.players
    x = engine.extra_offset(w.MAX_SEATS)
    for g, (row, ref) in enumerate(zip(rows, played, strict=True)):
        got = {
            "winners": [s for s in range(n) if row[engine.O_WIN + s]],
            "timeout": int(row[engine.O_TIMEOUT]),
            "n_turns": int(row[engine.O_N_TURNS]),
            "n_rounds": int(row[x]),
            "totals": [int(row[engine.score_offset(w.MAX_SEATS) + s]) for s in range(n)],
            "titles": [w.TITLE_NAMES[row[x + 1 + s]] if row[x + 1 + s] >= 0 else "" for s in range(n)],
            "bribes_played": [int(row[x + 1 + w.MAX_SEATS + s]) for s in range(n)],
            "bribes_won": [int(row[x + 1 + 2 * w.MAX_SEATS + s]) for s in range(n)],
            "dice": int(row[x + 1 + 3 * w.MAX_SEATS]),
        }
        assert got == {key: ref[key] for key in got}, f"game {g} of case {case} differs"
    if case == "short-timeouts":
        assert 0 < rows[:, engine.O_TIMEOUT].sum() < n_games
    assert np.all(rows[:, engine.O_N_TURNS] > 0)


@pytest.mark.parametrize("values", [None, {"FA": 1, "HS": 2, "HF": 3, "VA": 1, "ME": 9, "KS": 0, "SW": 4, "WW": 2,
                                           "GE": 6, "HD": 7, "HW": 2},
                                    {"HD": -1}])                  # ties between HD choices: the tie rule decides
def test_both_scorings_agree_on_every_retinue(values):
    """SPEC: Scoring a retinue, steps 1-4, with the default and with changed card values."""
    for combo in itertools.combinations_with_replacement(w.CARDS, 4):
        mine = w.score_retinue(list(combo), {"values": values} if values else None)
        theirs = reference.score_retinue(list(combo), values)
        assert mine == theirs, combo
        assert w.best_title(list(combo), {"values": values} if values else None) == \
            reference.best_title(list(combo), values), combo
