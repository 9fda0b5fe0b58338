"""The jitted Goofspiel and the plain-Python reference (written on its own from docs/goofspiel.md) play the same
games, and have the same decision interface: at every decision the same legal actions, the same pick, the same
state after it, and resample(seat) with the same streams redraws the same world."""

import copy

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


# --- the decision interface, decision by decision ---------------------------------------------

RESAMPLE_SEED = 9_000_029       # the stream families handed to resample: (RESAMPLE_SEED + seed, decision number)


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


def _jitted_choice(state, params, seat, kind, actions, n, streams, work):
    if kind == "random":
        return int(actions[rng.randint(streams, rng.POLICY + seat, n)])
    return int(goof.greedy_action(state, params, seat, streams, work))


def _check_resample(state, params, streams, game, who, seed, decision):
    """resample(who) on copies of both sides with equally seeded streams: the same world, drawn with the same
    number of draws; nothing ``who`` sees changes (its information state string), the mover's options neither.
    Returns both worlds and the stream families, whose policy streams play on from them."""
    world, twin = state.copy(), copy.deepcopy(game)
    family = np.zeros(rng.N_STREAMS, np.uint64)
    rng.seed_streams(family, RESAMPLE_SEED + seed, decision)
    twin_family = reference.stream_family(RESAMPLE_SEED + seed, decision)
    goof.resample(world, params, who, family)
    twin.resample(who, twin_family)
    assert _world(world, params, streams) == _reference_world(twin), f"resample({who}) at decision {decision}"
    assert int(family[rng.DECK]) == twin_family[rng.DECK].state   # the same number of draws
    assert goof.information_state_string(world, params, who) == goof.information_state_string(state, params, who)
    assert twin.legal_actions() == game.legal_actions()
    return world, twin, family, twin_family


def _play_on(state, params, streams, game, family, twin_family):
    """Play a resampled world to its end on both sides, random for every seat (from the resample family's
    policy streams): the same actions all the way, the same end, the same returns."""
    actions = np.zeros(goof.MAX_ACTIONS, np.int64)
    policies = [reference.RandomPolicy(twin_family[rng.POLICY + seat]) for seat in range(game.players)]
    while (seat := goof.current_player(state, params)) >= 0:
        n = goof.legal_actions(state, params, actions)
        assert [int(a) for a in actions[:n]] == game.legal_actions()
        action = int(actions[rng.randint(family, rng.POLICY + seat, n)])
        assert policies[seat].act(game) == action
        goof.apply_action(state, params, action, streams)
        game.apply_action(action)
    assert _world(state, params, streams) == _reference_world(game)
    out = np.zeros(game.players, np.float64)
    goof.returns(state, params, out)
    assert list(out) == game.returns()


def cross_play(run, seed, game_index, play_on_at):
    """One game through both interfaces, compared at every decision, with resample(decision % players) at every
    decision; returns the number of decisions."""
    params = run.params_array()
    kinds = run.policies
    state = goof.new_state()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    rng.seed_streams(streams, seed, game_index)
    goof.begin(state, params, streams)
    game = reference.begin(reference_params(run), seed, game_index)
    policies = [reference.POLICIES[kind](rng.Stream(seed, game_index, rng.POLICY + seat))
                for seat, kind in enumerate(kinds)]
    actions = np.zeros(goof.MAX_ACTIONS, np.int64)
    work = np.zeros(goof.WORK_SIZE, np.int64)
    out = np.zeros(game.players, np.float64)
    decision = 0
    while True:
        assert _world(state, params, streams) == _reference_world(game), f"decision {decision}"
        goof.returns(state, params, out)
        assert list(out) == game.returns(), f"decision {decision}"
        seat = goof.current_player(state, params)
        if seat < 0:
            break
        n = goof.legal_actions(state, params, actions)
        assert [int(a) for a in actions[:n]] == game.legal_actions(), f"decision {decision}"
        who = decision % game.players
        world, twin, family, twin_family = _check_resample(state, params, streams, game, who, seed, decision)
        if decision == play_on_at:
            _play_on(world, params, streams.copy(), twin, family, twin_family)
        action = _jitted_choice(state, params, seat, kinds[seat], actions, n, streams, work)
        assert policies[seat].act(game) == action, f"decision {decision}"
        goof.apply_action(state, params, action, streams)
        game.apply_action(action)
        decision += 1
    return decision


INTERFACE_CASES = {
    "2p-random": ({}, [("all", "random")], 40),
    "2p-mixed-2-cards": ({"num_cards": 2, "returns_type": "point_difference"}, [("all", "random"), ("0", "greedy")],
                         40),
    "3p-mixed-ascending": ({"players": 3, "num_cards": 6, "points_order": "ascending"},
                           [("all", "greedy"), ("1", "random")], 30),
    "4p-random-16-total": ({"players": 4, "num_cards": 16, "returns_type": "total_points"}, [("all", "random")], 20),
    "4p-mixed-descending": ({"players": 4, "num_cards": 9, "points_order": "descending"},
                            [("all", "random"), ("1", "greedy"), ("3", "greedy")], 25),
}


@pytest.mark.parametrize("case", list(INTERFACE_CASES))
def test_reference_interface_matches_the_jitted_one(case):
    """docs/goofspiel.md, "Decisions, information and resampling": the bids as decisions (action code = card
    index, the hand lowest first), the state after each (hands, face-down bids, prize, prizes face down, the
    resolved tricks with their winners, the counters of the row, the DECK stream), the returns at every step, and
    resample(seat), which redraws every other seat's face-down bid, agree with the jitted game decision by
    decision."""
    sets, policies, n_games = INTERFACE_CASES[case]
    run = cfg.resolve("goofspiel", sets=list(sets.items()), policies=policies)
    num_cards, players = run.params["num_cards"], run.players
    decisions = [cross_play(run, 59, g, play_on_at=g % ((num_cards - 1) * players)) for g in range(n_games)]
    assert decisions == [(num_cards - 1) * players] * n_games    # the last trick plays itself: no decision
