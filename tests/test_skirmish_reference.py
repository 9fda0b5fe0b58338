"""The jitted skirmish and the plain-Python reference (written on its own from docs/skirmish.md) play the same
games."""

import numpy as np
import pytest

from benchmarks.reference import skirmish as reference
from simcore import engine
from simcore.games import skirmish as s
from simcore.io import config as cfg
from simcore.studies.bench import reference_params

SMALL = "\n".join(["...=....", ".*.=..~.", "...=.WW.", "..~=....", ".**=....", "...=...."])
# deep water in two ponds and on both edge rows beside the start block: carriers drown, flags wash up
POND = "\n".join([".W.....W..", "..........", "...~~.....", "..~WW~..*.", "..~WW~....", "...~~..**.",
                  ".*........", "....WWW...", "..........", "W......W.W"])
CASES = {
    "lms-random": ({}, [("all", "random")], 600),
    "lms-greedy": ({}, [("all", "greedy")], 600),
    "ww-mixed": ({"scenario": "wizard_war"}, [("all", "greedy"), ("1", "random")], 500),
    "ctf-greedy": ({"scenario": "capture_the_flag"}, [("all", "greedy")], 200),
    "ctf-small-random": ({"scenario": "capture_the_flag", "yard": SMALL, "max_turns": 150},
                         [("all", "random")], 200),
    "stream-foot4-ace": ({"yard": "stream", "army.foot": 4, "army.fast": 0, "ace_high": True,
                          "hit_scale": 3.0, "max_range": 6}, [("all", "greedy"), ("0", "random")], 300),
    "hedges-ww-greedy": ({"yard": "hedges", "scenario": "wizard_war"}, [("all", "greedy")], 300),
    "lms-no-sight-chebyshev-random": ({"line_of_sight": False, "move_metric": "chebyshev"}, [("all", "random")],
                                      400),
    "ww-chebyshev-mixed": ({"scenario": "wizard_war", "move_metric": "chebyshev"},
                           [("all", "greedy"), ("0", "random")], 300),
    "ctf-stream-no-sight-mixed": ({"scenario": "capture_the_flag", "yard": "stream", "line_of_sight": False,
                                   "max_turns": 300}, [("all", "random"), ("1", "greedy")], 150),
    "ctf-pond-random": ({"scenario": "capture_the_flag", "yard": POND, "max_turns": 200}, [("all", "random")],
                        150),
}
WASH_UPS = {"ctf-small-random", "ctf-pond-random"}      # cases that must see flags wash up out of deep water


def _jitted(row):
    x = engine.extra_offset(s.MAX_SEATS)
    win = [bool(row[engine.O_WIN + p]) for p in range(2)]
    return {
        "winner": 0 if win[0] else (1 if win[1] else None),
        "draw": int(row[x]),
        "timeout": int(row[engine.O_TIMEOUT]),
        "first": int(row[engine.O_FIRST_SEAT]),
        "n_turns": int(row[engine.O_N_TURNS]),
        "in_action": [int(row[engine.score_offset(s.MAX_SEATS) + p]) for p in range(2)],
        "wizard_out": [int(row[x + 1 + p]) for p in range(2)],
        "flags": [int(row[x + 3 + p]) for p in range(2)],
        "lost": [[int(row[x + 5 + 2 * t + p]) for t in range(4)] for p in range(2)],
        "out_by": [[int(row[x + 13 + 2 * c + p]) for c in range(3)] for p in range(2)],
        "throws": [int(row[x + 19 + p]) for p in range(2)],
        "hits": [int(row[x + 21 + p]) for p in range(2)],
    }


@pytest.mark.parametrize("case", list(CASES))
def test_jitted_and_reference_play_identical_games(case, monkeypatch):
    params, policies, n_games = CASES[case]
    run = cfg.resolve("skirmish", sets=list(params.items()), policies=policies)
    rows = engine.run(run.module, run.params_array(), run.policies_array(), 23, n_games)
    wash_ups = []
    shore = reference.Yard.shore

    def counted_shore(yard, cell):
        wash_ups.append(cell)
        return shore(yard, cell)

    monkeypatch.setattr(reference.Yard, "shore", counted_shore)
    played = reference.run(reference_params(run), run.policies, 23, n_games)
    for g, (row, ref) in enumerate(zip(rows, played, strict=True)):
        got = _jitted(row)
        assert got == {key: ref[key] for key in got}, f"game {g} of case {case} differs"
    assert np.all(rows[:, engine.O_N_TURNS] > 0)
    if case in WASH_UPS:
        assert wash_ups, f"no flag washed up in case {case}"
