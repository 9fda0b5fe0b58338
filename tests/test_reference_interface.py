"""The plain-Python references (benchmarks/reference/<game>.py, written from docs/<game>.md) have the same decision
interface as the jitted games, so the interface itself is cross-checked: at every decision of a few hundred games
with random, greedy and mixed seats both list the same actions, both policies pick the same one, and playing it
leaves the same state in both (hands, piles, shoal, track, retinues, stacks or gnomes, what each seat knows where a
game hides something, the pending decision, the counters of the result row, the random streams); ``resample(seat)``
with streams seeded the same way redraws the same world in both, draw for draw, and both play on from that world to
the same end."""

import copy

import numpy as np
import pytest

from benchmarks.reference import goofspiel as ref_goofspiel
from benchmarks.reference import skirmish as ref_skirmish
from benchmarks.reference import wichtel as ref_wichtel
from benchmarks.reference import zwai as ref_zwai
from benchmarks.reference import zwergen as ref_zwergen
from simcore import engine
from simcore.engine import binding, rng
from simcore.games import goofspiel, skirmish, wichtel, zwai, zwergen
from simcore.io import config as cfg
from simcore.studies.bench import reference_params
from tests.test_goofspiel_reference import _reference_world as _goofspiel_reference_world
from tests.test_goofspiel_reference import _world as _goofspiel_world
from tests.test_skirmish_reference import _jitted as _skirmish_row  # the jitted row in the reference's terms

RESAMPLE_SEED = 9_000_017       # the stream families handed to resample: (RESAMPLE_SEED + seed, decision number)


# --- what both sides can show -----------------------------------------------------------------


def _zwai_row(row, players):
    """The jitted result row as the reference's result dict (written mid-game too: then it is not over)."""
    score, extra = engine.score_offset(zwai.MAX_SEATS), engine.extra_offset(zwai.MAX_SEATS)
    return {
        "n_turns": int(row[engine.O_N_TURNS]),
        "score": [int(row[score + s]) for s in range(players)],
        "cards": [int(row[extra + s]) for s in range(players)],
        "removed": [int(row[extra + zwai.MAX_SEATS + k]) for k in range(5)],
        "skips": int(row[extra + zwai.MAX_SEATS + 5]),
        "n_rounds": int(row[extra + zwai.MAX_SEATS + 6]),
        "winners": [s for s in range(players) if row[engine.O_WIN + s]],
        "timeout": int(row[engine.O_TIMEOUT]),
    }


def _zwai_world(state, params, streams):
    """What the jitted state shows, in the reference's terms (read through View and public functions)."""
    view = zwai.View(state)
    players = int(params[zwai.P_PLAYERS])
    row = np.zeros(engine.width(zwai), np.int64)
    zwai.write_row(state, params, row)
    counters = _zwai_row(row, players)
    over = zwai.current_player(state, params) < 0
    if not over:
        del counters["winners"], counters["timeout"]
    return {
        "hands": [[int(k) for k in view.hands[s]] for s in range(players)],
        "piles": [[int(f) for f in view.pile(s)] for s in range(players)],
        "shoal": {cell: (int(owner), int(fish)) for cell, (owner, fish) in view.shoal().items()},
        "sharks": (view.shark_row, view.shark_col),
        "parts": [[int(k) for k in view.segments[s]] for s in range(players)],
        "counters": counters,
        "deck_stream": int(streams[rng.DECK]),
    }


def _zwai_reference_world(game):
    players = game.players
    hands = [list(game.hands[s]) + [0] * (zwai.MAX_FISH - game.n_values) for s in range(players)]
    for owner, fish in game.eaten:   # the sharks' catch of the last round: the jitted game hands it back at once
        hands[owner][fish] += 1
    result = game.result()
    if not game.over:
        del result["winners"], result["timeout"]
    parts = [list(game.pile_parts[s]) + [0] * (zwai.MAX_ROUNDS - len(game.pile_parts[s])) for s in range(players)]
    return {
        "hands": hands,
        "piles": [list(game.piles[s]) for s in range(players)],
        "shoal": dict(game.shoal),
        "sharks": (-1 if game.row_shark is None else game.row_shark, -1 if game.col_shark is None else game.col_shark),
        "parts": parts,
        "counters": result,
        "deck_stream": game.deck_rng.state,
    }


ZWERGEN_EXTRAS = {name: engine.extra_offset(zwergen.MAX_SEATS) + i
                  for i, (name, _, _) in enumerate(zwergen.EXTRA_COLUMNS)}
PENDING = {None: zwergen.PEND_NONE, ref_zwergen.ADD: zwergen.PEND_ADD, ref_zwergen.CONTRA: zwergen.PEND_CONTRA,
           ref_zwergen.RE: zwergen.PEND_RE}


def _zwergen_row(row):
    return {
        "winner_team": -1 if row[engine.O_TIMEOUT] else (0 if row[engine.O_WIN] else 1),
        "timeout": int(row[engine.O_TIMEOUT]),
        "n_turns": int(row[engine.O_N_TURNS]),
        **{name: int(row[col]) for name, col in ZWERGEN_EXTRAS.items()},
    }


def _zwergen_world(state, params, streams):
    view = zwergen.View(state)
    players = int(params[zwergen.P_PLAYERS])
    row = np.zeros(engine.width(zwergen), np.int64)
    zwergen.write_row(state, params, row)
    counters = _zwergen_row(row)
    if zwergen.current_player(state, params) >= 0:
        del counters["winner_team"], counters["timeout"]
    pending = view.pending
    return {
        "hands": [[int(k) for k in view.hands[s]] for s in range(players)],
        "drawn": [[int(k) for k in view.drawn[s]] for s in range(players)],
        "discard": [int(k) for k in view.discard],
        "draw_pile": [int(t) for t in view.draw_pile],
        "refill": [int(k) for k in view.refill],
        "supply": [int(k) for k in view.supply],
        "teams": [[int(k) for k in view.teams[team]] for team in range(2)],
        "picks": [int(c) for c in view.picks[:players]],
        "seen": [int(mask) for mask in view.seen[:players]],
        "rope": view.rope,
        "pending": (pending, view.pending_colour if pending != zwergen.PEND_NONE else None),
        "counters": counters,
        "deck_stream": int(streams[rng.DECK]),
    }


def _zwergen_reference_world(game):
    players = game.players
    discard = [0] * ref_zwergen.N_CARD_TYPES
    for card in game.discard_pile:
        discard[card] += 1
    result = game.result()
    if not game.over:
        del result["winner_team"], result["timeout"]
    pending = game.pending if game.pro else None    # without the Pro rules nothing can be answered
    return {
        "hands": [list(game.hands[s]) for s in range(players)],
        "drawn": [list(game.drawn[s]) for s in range(players)],
        "discard": discard,
        "draw_pile": list(game.draw_pile),
        "refill": list(game.refill),
        "supply": list(game.supply),
        "teams": [list(team) for team in game.teams],
        "picks": [-1 if c is None else c for c in game.picks],
        "seen": [0 if stock is None else sum(1 << c for c in stock) for stock in game.stock_seen],
        "rope": game.rope,
        "pending": (PENDING[None if pending is None else pending[0]], None if pending is None else pending[1]),
        "counters": result,
        "deck_stream": game.deck_rng.state,
    }


WICHTEL_LETTERS = dict(zip((wichtel.PH_START, wichtel.PH_ACTION, wichtel.PH_REPLY, wichtel.PH_BRIBE, wichtel.PH_NIX,
                            wichtel.PH_GIFT, wichtel.PH_REROLL, wichtel.PH_FILL, wichtel.PH_END_ROUND,
                            wichtel.PH_END_EVENT, wichtel.PH_FREE), "SAXBNGRFDEW", strict=True))
WICHTEL_THEN = {wichtel.AFTER_MOVER_RECEIVED: ref_wichtel.MOVER_RECEIVES, wichtel.AFTER_EVENT: ref_wichtel.END_EVENT}


def _wichtel_row(row, players):
    x = engine.extra_offset(wichtel.MAX_SEATS)
    return {
        "winners": [s for s in range(players) if row[engine.O_WIN + s]],
        "timeout": int(row[engine.O_TIMEOUT]),
        "n_turns": int(row[engine.O_N_TURNS]),
        "n_rounds": int(row[x]),
        "totals": [int(row[engine.score_offset(wichtel.MAX_SEATS) + s]) for s in range(players)],
        "titles": [wichtel.TITLE_NAMES[row[x + 1 + s]] if row[x + 1 + s] >= 0 else "" for s in range(players)],
        "bribes_played": [int(row[x + 1 + wichtel.MAX_SEATS + s]) for s in range(players)],
        "bribes_won": [int(row[x + 1 + 2 * wichtel.MAX_SEATS + s]) for s in range(players)],
        "dice": int(row[x + 1 + 3 * wichtel.MAX_SEATS]),
    }


def _wichtel_move(letter, move):
    """The pending decision and what of the move in progress it rests on (docs/wichtel.md, A move of seat m)."""
    keep = {"X": ("give", "partner"), "B": ("slot", "card", "table"), "N": ("slot", "card", "bribe"),
            "G": ("slot", "card", "bribe"), "R": ("slot", "card", "bribe", "need"),
            "F": ("slot", "card", "bribe", "receiver"), "D": ("then",)}.get(letter, ())
    return {key: move[key] for key in ("letter", "decider", "mover", *keep)}


def _wichtel_world(state, params, streams):
    """What the jitted state shows, in the reference's terms (read through View and public functions)."""
    view = wichtel.View(state)
    players = int(params[wichtel.P_PLAYERS])
    row = np.zeros(engine.width(wichtel), np.int64)
    wichtel.write_row(state, params, row)
    counters = _wichtel_row(row, players)
    labels = {**{s: s for s in range(players)}, wichtel.PUBLIC: ref_wichtel.EVERYBODY}
    owners = {**{s: s for s in range(players)}, wichtel.SHUFFLED: ref_wichtel.BOTTOM}

    def who(mask):
        return frozenset(label for o, label in labels.items() if (mask >> o) & 1)

    world = {
        "retinues": [[int(k) for k in view.retinues[s]] for s in range(players)],
        "hands": [[int(k) for k in view.events[s]] for s in range(players)],
        "square": [int(t) for t in view.square[:players]],
        "stacks": [[int(t) for t in view.stack(side)] for side in "AB"],
        "seen": [[who(int(mask)) for mask in view.masks(side)] for side in "AB"],
        "draws_from": "AB"[view.draw_side],
        "shuffled": view.shuffled,
        "sure": {(label, owner): view.sure_of(o, q) for o, label in labels.items() for q, owner in owners.items()},
        "shown": [[int(k) for k in view.shown[s]] for s in range(players)],
        "played": [int(k) for k in view.spent],
        "set_aside": view.aside,
        "table": {b: int(view.table[b]) for b in range(players) if view.table[b] >= 0},
        "modifiers": (view.free, view.back, view.stand),
        "counters": counters,
        "deck_stream": int(streams[rng.DECK]),
        "dice_stream": int(streams[rng.DICE]),
    }
    if wichtel.current_player(state, params) < 0:
        return world
    del counters["winners"], counters["timeout"]
    bribe = None if view.win_kind == -1 else (view.win_seat, "negated" if view.win_kind == wichtel.NEGATED
                                               else view.win_kind)
    move = {"letter": WICHTEL_LETTERS[view.phase], "decider": view.actor, "mover": view.mover, "give": view.give,
            "partner": view.partner, "slot": view.slot, "card": view.card, "table": world["table"],
            "bribe": bribe, "need": view.need, "receiver": view.receiver, "then": WICHTEL_THEN[view.after]}
    return {**world, "starter": view.starter, "move": _wichtel_move(move["letter"], move)}


def _wichtel_reference_world(game):
    players = game.players
    beside_0, beside_last = game._beside_slot_0()
    result = game.result()
    world = {
        "retinues": [list(game.retinues[s]) for s in range(players)],
        "hands": [list(game.hands[s]) for s in range(players)],
        "square": list(game.square),
        "stacks": [list(beside_0[0]), list(beside_last[0])],
        "seen": [list(beside_0[1]), list(beside_last[1])],
        "draws_from": "A" if game.direction > 0 else "B",
        "shuffled": game.shuffled,
        "sure": {(o, owner): list(game.sure[o][owner]) for o in game.observers for owner in game.owners},
        "shown": [[int(kind in game.shown[s]) for kind in range(wichtel.N_BRIBES)] for s in range(players)],
        "played": list(game.played),
        "set_aside": len(game.set_aside),
        "table": dict(game.table),
        "modifiers": (int(game.wahlleiter_free), int(game.come_back), int(game.stand_still)),
        "counters": result,
        "deck_stream": game.deck_rng.state,
        "dice_stream": game.dice_rng.state,
    }
    if game.over:
        return world
    del result["winners"], result["timeout"]
    bribe = None if game.winner is None else (game.winner[0], "negated" if game.negated else game.winner[1])
    move = {"letter": game.decision, "decider": game.decider, "mover": game.seat, "give": game.give,
            "partner": game.partner, "slot": game.slot, "card": game.card, "table": world["table"], "bribe": bribe,
            "need": game.need, "receiver": game.receiver, "then": game.then}
    return {**world, "starter": game.round_starter, "move": _wichtel_move(game.decision, move)}


def _skirmish_world(state, params, streams):
    """Every gnome's cell and flag, the dropped flags, the tallies, the pending decision."""
    view = skirmish.View(state)
    n = int(params[skirmish.P_GNOMES])
    row = np.zeros(engine.width(skirmish), np.int64)
    skirmish.write_row(state, params, row)
    counters = _skirmish_row(row)
    world = {
        "cells": [[int(view.pos[p][k]) for k in range(n)] for p in range(2)],
        "flags": [[int(view.flag[p][k]) for k in range(n)] for p in range(2)],
        "dropped": [int(view.flag_at[f]) for f in range(2)],
        "counters": counters,
        "deck_stream": int(streams[rng.DECK]),
        "dice_stream": int(streams[rng.DICE]),
    }
    player = skirmish.current_player(state, params)
    if player < 0:
        return world
    del counters["winner"], counters["draw"], counters["timeout"]
    if view.phase == skirmish.PH_THROW:
        return {**world, "pending": ("throw", [j for j in range(n) if (view.targets >> j) & 1])}
    back_now = state[skirmish.S_BACK_NOW + player * skirmish.MAX_GNOMES:][:n]
    return {**world, "pending": ("move", view.gnome, [k for k in range(n) if back_now[k]])}


def _skirmish_reference_world(game):
    width = game.yard.width
    result = game.result()

    def index(cell):
        return -1 if cell is None else cell[0] * width + cell[1]

    world = {
        "cells": [[index(g.cell) for g in game.gnomes[p]] for p in range(2)],
        "flags": [[-1 if g.flag is None else g.flag for g in game.gnomes[p]] for p in range(2)],
        "dropped": [index(game.dropped.get(f)) for f in range(2)],
        "counters": result,
        "deck_stream": game.deck_rng.state,
        "dice_stream": game.dice.state,
    }
    if game.over:
        return world
    del result["winner"], result["draw"], result["timeout"]
    if game.phase == ref_skirmish.THROWING:
        return {**world, "pending": ("throw", [g.number for g in game.throw_targets(game.to_move)])}
    return {**world, "pending": ("move", game.moving, sorted(game.came_back))}


GAMES = {
    "zwai": (zwai, ref_zwai, _zwai_world, _zwai_reference_world),
    "zwergen": (zwergen, ref_zwergen, _zwergen_world, _zwergen_reference_world),
    "wichtel": (wichtel, ref_wichtel, _wichtel_world, _wichtel_reference_world),
    "skirmish": (skirmish, ref_skirmish, _skirmish_world, _skirmish_reference_world),
    "goofspiel": (goofspiel, ref_goofspiel, _goofspiel_world, _goofspiel_reference_world),
}


# --- the cross-check --------------------------------------------------------------------------------


def _jitted_choice(module, state, params, seat, kind, actions, n, streams, work):
    if kind == "random":
        return int(actions[rng.randint(streams, rng.POLICY + seat, n)])
    return int(module.greedy_action(state, params, seat, streams, work))


def _play_on(module, reference, show, show_reference, state, params, streams, game, family, twin_family):
    """Play a resampled world to its end on both sides, random for every seat (drawing from the resample
    family's policy streams); both must list the same actions all the way and end alike."""
    actions = np.zeros(module.MAX_ACTIONS, np.int64)
    policies = [reference.RandomPolicy(twin_family[rng.POLICY + seat]) for seat in range(game.players)]
    while (seat := module.current_player(state, params)) >= 0:
        assert game.current_player() == seat
        n = module.legal_actions(state, params, actions)
        assert [int(a) for a in actions[:n]] == game.legal_actions()
        action = int(actions[rng.randint(family, rng.POLICY + seat, n)])
        assert policies[seat].act(game) == action
        module.apply_action(state, params, action, streams)
        game.apply_action(action)
    assert game.current_player() == -1
    assert show(state, params, streams) == show_reference(game)


def cross_play(name, run, seed, game_index, resample_every, play_on_at):
    """One game through both interfaces, compared at every decision; returns the number of decisions."""
    module, reference, show, show_reference = GAMES[name]
    params = run.params_array()
    kinds = run.policies
    state = module.new_state()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    rng.seed_streams(streams, seed, game_index)
    module.begin(state, params, streams)
    game = reference.begin(reference_params(run), seed, game_index)
    policies = [reference.POLICIES[kind](rng.Stream(seed, game_index, rng.POLICY + seat))
                for seat, kind in enumerate(kinds)]
    actions = np.zeros(module.MAX_ACTIONS, np.int64)
    work = np.zeros(module.WORK_SIZE, np.int64)
    decision = 0
    while True:
        seat = module.current_player(state, params)
        assert game.current_player() == seat, f"decision {decision}"
        assert show(state, params, streams) == show_reference(game), f"decision {decision}"
        if seat < 0:
            break
        n = module.legal_actions(state, params, actions)
        assert [int(a) for a in actions[:n]] == game.legal_actions(), f"decision {decision}"

        if decision % resample_every == 0:
            who = decision // resample_every % game.players
            world, twin = state.copy(), copy.deepcopy(game)
            family = np.zeros(rng.N_STREAMS, np.uint64)
            rng.seed_streams(family, RESAMPLE_SEED + seed, decision)
            twin_family = reference.stream_family(RESAMPLE_SEED + seed, decision)
            binding.bind(module).interface["resample"](world, params, who, family)
            twin.resample(who, twin_family)
            assert show(world, params, streams) == show_reference(twin), f"resample({who}) at decision {decision}"
            assert int(family[rng.DECK]) == twin_family[rng.DECK].state   # the same number of draws
            if who == seat:     # the mover's options do not change (the agents rely on it)
                assert twin.legal_actions() == game.legal_actions()
            if decision == play_on_at:
                _play_on(module, reference, show, show_reference, world, params, streams.copy(), twin,
                         family, twin_family)

        action = _jitted_choice(module, state, params, seat, kinds[seat], actions, n, streams, work)
        assert policies[seat].act(game) == action, f"decision {decision}"
        module.apply_action(state, params, action, streams)
        game.apply_action(action)
        decision += 1
    jitted_returns = np.zeros(game.players, np.float64)
    module.returns(state, params, jitted_returns)
    assert list(jitted_returns) == game.returns()
    return decision


ZWAI_CASES = {
    "2p-random": ({}, [("all", "random")], 40),
    "2p-greedy": ({}, [("all", "greedy")], 30),
    "3p-stairs-discard-mixed": ({"players": 3, "formation": "stairs", "removed_cards": "discard"},
                                [("all", "greedy"), ("0", "random")], 30),
    "4p-ring-rotate-mixed": ({"players": 4, "formation": "ring", "round_starter": "rotate"},
                             [("all", "random"), ("1", "greedy"), ("3", "greedy")], 30),
    # five rounds: up to four parts under each pile, partly drawn when the hands outgrow the pile
    "2p-5-rounds-mixed": ({"rounds": 5, "hand_size_2": 13, "first_seat": 1}, [("all", "random"), ("1", "greedy")],
                          30),
    # hands cannot fill the big formation: rounds end when nobody holds a card, seats get skipped
    "3p-big-short-hands": ({"players": 3, "formation": "########\n########\n########\n####....",
                            "fish_counts": [1, 2, 2, 2, 2], "shark_moves_on_tie": True},
                           [("all", "greedy"), ("1", "random")], 25),
    "short-timeouts": ({"players": 3, "max_turns": 20}, [("all", "random"), ("2", "greedy")], 30),
}

ZWERGEN_CASES = {
    "2p-random": ({}, [("all", "random")], 60),
    "2p-greedy": ({}, [("all", "greedy")], 50),
    "2p-pro-mixed": ({"pro": True, "re_moves_rope": True}, [("all", "greedy"), ("1", "random")], 50),
    "4p-pro-mixed": ({"players": 4, "pro": True}, [("all", "random"), ("0", "greedy"), ("3", "greedy")], 40),
    # one hat per colour: the hidden starting colours are redrawn under the stock the seat saw
    "4p-one-hat": ({"players": 4, "hats_per_colour": 1, "pro": True}, [("all", "random"), ("2", "greedy")], 40),
    # a small deck is turned over again and again: the pile's candidates are fewer than the unseen cards
    "4p-small-deck": ({"players": 4, "hand_size": 3, "deck.add": 1, "deck.pull_two": 0, "deck.pull_zero": 0,
                       "deck.pull_multi_two": 1, "deck.pull_multi_zero": 1, "deck.squirrel_1": 2,
                       "deck.squirrel_2": 1, "deck.squirrel_3": 1}, [("all", "random"), ("1", "greedy")], 40),
    "short-timeouts": ({"max_turns": 25, "swap_penalty": 0, "add_pull": 0, "first_seat": 1},
                       [("all", "greedy"), ("0", "random")], 40),
}


@pytest.mark.parametrize("case", list(ZWAI_CASES))
def test_zwai_reference_interface_matches_the_jitted_one(case):
    sets, policies, n_games = ZWAI_CASES[case]
    run = cfg.resolve("zwai", sets=list(sets.items()), policies=policies)
    decisions = [cross_play("zwai", run, 41, g, resample_every=3, play_on_at=2 * (g % 20)) for g in range(n_games)]
    assert min(decisions) > 0


@pytest.mark.parametrize("case", list(ZWERGEN_CASES))
def test_zwergen_reference_interface_matches_the_jitted_one(case):
    sets, policies, n_games = ZWERGEN_CASES[case]
    run = cfg.resolve("zwergen", sets=list(sets.items()), policies=policies)
    decisions = [cross_play("zwergen", run, 43, g, resample_every=2, play_on_at=2 * (g % 12)) for g in range(n_games)]
    assert min(decisions) > 0

WICHTEL_CASES = {
    "4p-random": ({}, [("all", "random")], 30),
    "4p-greedy": ({}, [("all", "greedy")], 25),
    # reversals shuffle the new drawing stack: the shuffled bottom and what each seat is sure of in it
    "5p-reshuffle-first-mixed": ({"players": 5, "reshuffle_on_reverse": True, "bribe_tie": "first"},
                                 [("all", "random"), ("0", "greedy"), ("3", "greedy")], 25),
    # no "Ich"/"Der": a face-down bribe redrawn as one of them makes resample deal again
    "3p-no-beste-mixed": ({"players": 3, "bribe_ranking": "2,3,4,5,6"}, [("all", "random"), ("1", "greedy")], 25),
    # many Nix da!, Ich guck nochmal! and village-square events: every decision point, walks both ways
    "many-events-mixed": ({"events.nix_da": 3, "events.guck_nochmal": 3, "events.der": 2, "events.komm_her": 2,
                           "events.komm_zurueck": 3, "events.stehenbleiben": 2, "reshuffle_on_reverse": True},
                          [("all", "random"), ("2", "greedy")], 30),
    "short-timeouts": ({"max_turns": 9}, [("all", "random"), ("1", "greedy")], 25),
}


@pytest.mark.parametrize("case", list(WICHTEL_CASES))
def test_wichtel_reference_interface_matches_the_jitted_one(case):
    """SPEC docs/wichtel.md, "Decisions, information and resampling": the decision points and their codes, what
    each seat knows (who knows each stack place, what each observer is sure of, the shown bribes) and
    resample(seat), written again from the doc, agree with the jitted game decision by decision."""
    sets, policies, n_games = WICHTEL_CASES[case]
    run = cfg.resolve("wichtel", sets=list(sets.items()), policies=policies)
    decisions = [cross_play("wichtel", run, 47, g, resample_every=2, play_on_at=2 * (g % 15)) for g in range(n_games)]
    assert min(decisions) > 0

# deep water beside the start blocks and in a pond: gnomes drown, carried flags wash up
POND_YARD = "\n".join([".W......W.", "...~~.....", "..~WW~..*.", "..~WW~....", "...~~..**.", "W........W"])
SKIRMISH_CASES = {
    "lms-random": ({}, [("all", "random")], 12),
    "lms-greedy": ({}, [("all", "greedy")], 40),
    "ww-mixed": ({"scenario": "wizard_war"}, [("all", "greedy"), ("1", "random")], 20),
    "ctf-pond-mixed": ({"scenario": "capture_the_flag", "yard": POND_YARD, "max_turns": 80},
                       [("all", "random"), ("0", "greedy")], 20),
    "ctf-pond-random-timeouts": ({"scenario": "capture_the_flag", "yard": POND_YARD, "max_turns": 40},
                                 [("all", "random")], 12),
    "stream-chebyshev-no-sight-mixed": ({"yard": "stream", "move_metric": "chebyshev", "line_of_sight": False,
                                         "army.foot": 4}, [("all", "greedy"), ("0", "random")], 15),
}


@pytest.mark.parametrize("case", list(SKIRMISH_CASES))
def test_skirmish_reference_interface_matches_the_jitted_one(case):
    """SPEC docs/skirmish.md, "Decisions, information and resampling": the throw's targets, then each gnome's
    move in gnome order (stay first, the reachable cells row-major) with their codes, and resample, which
    redraws nothing, agree with the jitted game decision by decision."""
    sets, policies, n_games = SKIRMISH_CASES[case]
    run = cfg.resolve("skirmish", sets=list(sets.items()), policies=policies)
    decisions = [cross_play("skirmish", run, 53, g, resample_every=7, play_on_at=7 * (g % 6)) for g in range(n_games)]
    assert min(decisions) > 0


GOOFSPIEL_CASES = {
    "2p-random": ({}, [("all", "random")], 40),
    "2p-mixed-2-cards": ({"num_cards": 2, "returns_type": "point_difference"}, [("all", "random"), ("0", "greedy")],
                         40),
    "3p-mixed-ascending": ({"players": 3, "num_cards": 6, "points_order": "ascending"},
                           [("all", "greedy"), ("1", "random")], 30),
    "4p-random-16-total": ({"players": 4, "num_cards": 16, "returns_type": "total_points"}, [("all", "random")], 20),
    "4p-mixed-descending": ({"players": 4, "num_cards": 9, "points_order": "descending"},
                            [("all", "random"), ("1", "greedy"), ("3", "greedy")], 25),
}


@pytest.mark.parametrize("case", list(GOOFSPIEL_CASES))
def test_goofspiel_reference_interface_matches_the_jitted_one(case):
    """docs/goofspiel.md, "Decisions, information and resampling": the bids as decisions (action code = card
    index, the hand lowest first), the state after each (hands, face-down bids, prize, prizes face down, the
    resolved tricks with their winners, the counters of the row, the DECK stream), and resample(seat), which
    redraws every other seat's face-down bid, agree with the jitted game decision by decision; the last trick
    plays itself, with no decision."""
    sets, policies, n_games = GOOFSPIEL_CASES[case]
    run = cfg.resolve("goofspiel", sets=list(sets.items()), policies=policies)
    per_game = (run.params["num_cards"] - 1) * run.players
    decisions = [cross_play("goofspiel", run, 59, g, resample_every=1, play_on_at=g % per_game)
                 for g in range(n_games)]
    assert decisions == [per_game] * n_games
