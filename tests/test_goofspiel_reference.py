"""The jitted Goofspiel and the plain-Python reference (written on its own from docs/goofspiel.md) play the same
games, row by row; what both sides show of a state (``_world``, ``_reference_world``) serves the decision-by-
decision check of every game's interface in tests/test_reference_interface.py."""


import numpy as np
import pytest

from benchmarks.reference import goofspiel as reference
from simcore import engine
from simcore.engine import rng
from simcore.games import goofspiel as goof
from simcore.io import config as cfg
from simcore.studies.bench import reference_params

CASES = {
    "2p-random": ({}, [("all", "random")], 1500),
    "2p-greedy": ({}, [("all", "greedy")], 200),     # greedy against greedy: every trick a tie
    "2p-mixed-2-cards": ({"num_cards": 2}, [("all", "random"), ("1", "greedy")], 800),
    "3p-mixed-ascending": ({"players": 3, "num_cards": 8, "points_order": "ascending"},
                           [("all", "random"), ("1", "greedy")], 800),
    "3p-greedy-5-cards": ({"players": 3, "num_cards": 5, "returns_type": "point_difference"},
                          [("all", "greedy"), ("0", "random")], 600),
    "4p-random-16-descending": ({"players": 4, "num_cards": 16, "points_order": "descending"},
                                [("all", "random")], 500),
    "4p-mixed-16": ({"players": 4, "num_cards": 16, "returns_type": "total_points"},
                    [("all", "greedy"), ("2", "random")], 500),
    "4p-mixed-3-cards-descending": ({"players": 4, "num_cards": 3, "points_order": "descending"},
                                    [("all", "random"), ("3", "greedy")], 600),
}
EXTRA = engine.extra_offset(goof.MAX_SEATS)


def _jitted(row, players):
    """A jitted result row as the reference's result dict."""
    score = engine.score_offset(goof.MAX_SEATS)
    return {
        "winners": [s for s in range(players) if row[engine.O_WIN + s]],
        "timeout": int(row[engine.O_TIMEOUT]),
        "n_turns": int(row[engine.O_N_TURNS]),
        "score": [int(row[score + s]) for s in range(players)],
        "tied_tricks": int(row[EXTRA]),
        "discarded_points": int(row[EXTRA + 1]),
    }


@pytest.mark.parametrize("case", list(CASES))
def test_jitted_and_reference_play_identical_games(case):
    """Same seed, same games, row by row: every prize drawn (stream DECK), every random bid (POLICY + seat),
    every greedy bid and the trick rules (points, tied tricks, their points) agree."""
    params, policies, n_games = CASES[case]
    run = cfg.resolve("goofspiel", sets=list(params.items()), policies=policies)
    rows = engine.run(run.module, run.params_array(), run.policies_array(), 37, n_games)
    played = reference.run(reference_params(run), run.policies, 37, n_games)
    for g, (row, ref) in enumerate(zip(rows, played, strict=True)):
        got = _jitted(row, run.players)
        assert got == {key: ref[key] for key in got}, f"game {g} of case {case} differs"
    num_cards = run.params["num_cards"]
    assert (rows[:, engine.O_N_TURNS] == num_cards).all() and not rows[:, engine.O_TIMEOUT].any()
    tied = rows[:, EXTRA]
    if case == "2p-greedy":
        assert (tied == num_cards).all()
    else:                                   # both rules of a trick happened, many times
        assert tied.sum() > 50 and (num_cards - tied).sum() > 50


# --- what both sides show, for the decision-by-decision check in tests/test_reference_interface.py ---------

def _world(state, params, streams):
    """What the jitted state shows, in the reference's terms (read through View and write_row)."""
    view = goof.View(state)
    players = int(params[goof.P_PLAYERS])
    row = np.zeros(engine.width(goof), np.int64)
    goof.write_row(state, params, row)
    tricks = [(int(t[goof.T_PRIZE]), None if t[goof.T_WINNER] == goof.NOBODY else int(t[goof.T_WINNER]),
               [int(b) for b in t[goof.T_BIDS:goof.T_BIDS + players]]) for t in view.tricks[:view.turn]]
    return {
        "seat": goof.current_player(state, params),
        "hands": [view.hand(s) for s in range(players)],
        "face_down": [int(b) for b in view.bids[:players]],
        "prize": int(view.prize),
        "deck": [int(k) for k in np.flatnonzero(view.deck)],
        "tricks": tricks,
        "counters": _jitted(row, players),
        "deck_stream": int(streams[rng.DECK]),
    }


def _reference_world(game):
    players = game.players
    return {
        "seat": game.current_player(),
        "hands": [list(hand) for hand in game.hands],
        "face_down": game.face_down + [-1] * (players - len(game.face_down)),
        "prize": -1 if game.over else game.prizes[-1],
        "deck": list(game.deck),
        "tricks": [(prize, winner, bids) for prize, winner, bids
                   in zip(game.prizes, game.taken_by, game.bids, strict=False)],
        "counters": game.result(),
        "deck_stream": game.deck_rng.state,
    }
