"""The jitted Zwai and the plain-Python reference (written on its own from docs/zwai.md) play the same games."""

import numpy as np
import pytest

from benchmarks.reference import zwai as reference
from simcore import engine
from simcore.engine import rng
from simcore.games import zwai as z
from simcore.io import config as cfg
from simcore.studies.bench import reference_params

CASES = {
    "2p-random": ({}, [("all", "random")], 1500),
    "2p-greedy": ({}, [("all", "greedy")], 800),
    "3p-mixed": ({"players": 3}, [("all", "random"), ("1", "greedy")], 800),
    "4p-greedy-ring": ({"players": 4, "formation": "ring"}, [("all", "greedy")], 600),
    "3p-stairs-discard": ({"players": 3, "formation": "stairs", "removed_cards": "discard"},
                          [("all", "greedy"), ("0", "random")], 600),
    "2p-bar-ties-move": ({"formation": "bar", "shark_moves_on_tie": True, "first_seat": 1},
                         [("all", "random")], 800),
    "4p-reef-5-rounds": ({"players": 4, "formation": "reef", "rounds": 5}, [("all", "greedy"), ("2", "random")],
                         500),
    # hands cannot fill the big formation: rounds end when nobody holds a card, seats get skipped
    "3p-big-short-hands": ({"players": 3, "formation": "########\n########\n########\n####....",
                            "fish_counts": [1, 2, 2, 2, 2]}, [("all", "greedy"), ("1", "random")], 400),
    "2p-big-discard": ({"formation": "########\n########\n########\n####....", "hand_size_2": 7,
                        "fish_counts": [1, 2, 3, 4, 5, 6], "removed_cards": "discard"},
                       [("all", "greedy"), ("1", "random")], 400),
    "short-timeouts": ({"players": 3, "max_turns": 30}, [("all", "random")], 400),
    # round_starter = "rotate": with 2 players and 16 cells "next" always gives round k+1 to seat 0, "rotate" not
    "2p-rotate": ({"round_starter": "rotate"}, [("all", "greedy"), ("1", "random")], 800),
    "4p-ten-cells-rotate": ({"players": 4, "formation": "#####\n#####", "round_starter": "rotate", "first_seat": 3},
                            [("all", "random"), ("2", "greedy")], 600),
    # rounds 4 and 5 find every hand and pile empty: rounds without a card still pass the start on
    "2p-big-discard-rotate": ({"formation": "########\n########\n########\n####....", "hand_size_2": 7,
                               "fish_counts": [1, 2, 3, 4, 5, 6], "removed_cards": "discard", "rounds": 5,
                               "round_starter": "rotate"}, [("all", "greedy"), ("0", "random")], 400),
}


def _jitted(row, players):
    winners = [s for s in range(players) if row[engine.O_WIN + s]]
    score = engine.score_offset(z.MAX_SEATS)
    extra = engine.extra_offset(z.MAX_SEATS)
    return {
        "winners": winners,
        "timeout": int(row[engine.O_TIMEOUT]),
        "n_turns": int(row[engine.O_N_TURNS]),
        "score": [int(row[score + s]) for s in range(players)],
        "cards": [int(row[extra + s]) for s in range(players)],
        "removed": [int(row[extra + z.MAX_SEATS + k]) for k in range(5)],
        "skips": int(row[extra + z.MAX_SEATS + 5]),
        "n_rounds": int(row[extra + z.MAX_SEATS + 6]),
    }


@pytest.mark.parametrize("case", list(CASES))
def test_jitted_and_reference_play_identical_games(case):
    params, policies, n_games = CASES[case]
    run = cfg.resolve("zwai", sets=list(params.items()), policies=policies)
    rows = engine.run(run.module, run.params_array(), run.policies_array(), 31, n_games)
    played = reference.run(reference_params(run), run.policies, 31, n_games)
    for g, (row, ref) in enumerate(zip(rows, played, strict=True)):
        got = _jitted(row, run.players)
        assert got == {key: ref[key] for key in got}, f"game {g} of case {case} differs"
    if case == "short-timeouts":   # every game has 48 placements: all stop at 30, with round 1 scored
        assert rows[:, engine.O_TIMEOUT].all() and (rows[:, engine.O_N_TURNS] == 30).all()
    if case == "3p-big-short-hands":
        assert rows[:, engine.extra_offset(z.MAX_SEATS) + z.MAX_SEATS + 5].sum() > 0   # skips happened
    assert np.all(rows[:, engine.O_N_TURNS] > 0)


def test_greedy_plans_a_card_it_did_not_choose_as_the_reference_does():
    """Both greedies at every decision, in lock step; at every third card decision the card laid is the hand's
    highest instead of greedy's (as a search's tree lays a card of its own). Greedy keeps its planned cell
    for its own card and plans the cell afresh for another: both implementations pick the same cell with
    the same draws, a legal one."""
    run = cfg.resolve("zwai", sets=[("players", 3)])
    params = run.params_array()
    actions = np.zeros(z.MAX_ACTIONS, np.int64)
    replanned = 0
    for game_index in range(30):
        state = z.new_state()
        streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(streams, 13, game_index)
        z.begin(state, params, streams)
        game = reference.begin(reference_params(run), 13, game_index)
        greedy = [reference.GreedyPolicy(rng.Stream(13, game_index, rng.POLICY + seat)) for seat in range(3)]
        work = np.zeros(z.WORK_SIZE, np.int64)
        decision = 0
        while (seat := z.current_player(state, params)) >= 0:
            n = z.legal_actions(state, params, actions)
            action = int(z.greedy_action(state, params, seat, streams, work))
            assert greedy[seat].act(game) == action and action in actions[:n]
            if state[z.S_PHASE] == z.CARD and decision % 3 == 0:
                replanned += action != actions[n - 1]
                action = int(actions[n - 1])
            z.apply_action(state, params, action, streams)
            game.apply_action(action)
            decision += 1
        assert game.current_player() == -1
    assert replanned > 100
