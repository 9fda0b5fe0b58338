"""ISMCTS (simcore.agents.core.ismcts_action): UCB1 with availability, the bounded node pool, finding a forced
win, and the same games through the handle as in the engine."""

import math
import sys
import types

import numpy as np
import pytest

import simcore
from simcore import agents, engine, games
from simcore.agents import core
from simcore.engine import binding, rng
from simcore.games import defaults
from simcore.io import config as cfg


def hand_built_tree(children):
    """A root with one child per ``(action, visits, availability, total)``, newest first as add_node links
    them; returns (tree, totals, node of each child)."""
    tree = np.zeros((len(children) + 1, core.NODE_WIDTH), np.int64)
    totals = np.zeros((len(children) + 1, core.TOTALS_WIDTH))
    core.add_node(tree, totals, 0, -1, -1, -1)
    for node, (action, visits, avail, total) in enumerate(children, start=1):
        core.add_node(tree, totals, node, action, 0, 0)
        tree[node, core.N_VISITS] = visits
        tree[node, core.N_AVAIL] = avail
        totals[node, core.T_TOTAL] = total
    return tree, totals


def legal(codes, epoch=5, size=16):
    marks = np.zeros((2, size), np.int64)
    marks[core.LEGAL, list(codes)] = epoch
    return marks


def ucb1(visits, avail, total, c):
    return total / visits + c * math.sqrt(math.log(avail) / visits)


def test_ucb_picks_the_highest_ucb1_score_with_availability_in_place_of_parent_visits():
    """Cowling et al. 2012: a child's exploration term is sqrt(ln(availability) / visits)."""
    children = [(3, 10, 40, 6.0), (7, 2, 12, 0.5), (9, 20, 30, 15.0)]
    tree, totals = hand_built_tree(children)
    for c in (0.0, 0.3, 0.7, 2.0):
        scores = [ucb1(v, a, t, c) for _, v, a, t in children]
        expected = 1 + int(np.argmax(scores))
        assert core.ucb_child(tree, totals, 0, legal({3, 7, 9}), 5, c, -1) == expected
    # c = 0 is the best mean (0.75), c = 2 favours the rarely tried child 2 (mean 0.25, 2 visits of 12 chances)
    assert core.ucb_child(tree, totals, 0, legal({3, 7, 9}), 5, 0.0, -1) == 3
    assert core.ucb_child(tree, totals, 0, legal({3, 7, 9}), 5, 2.0, -1) == 2


def test_ucb_skips_children_whose_action_is_not_legal_in_this_world():
    """Only the actions legal in the iteration's world compete (stamped with this visit's epoch)."""
    tree, totals = hand_built_tree([(3, 10, 40, 6.0), (7, 2, 12, 0.5), (9, 20, 30, 15.0)])
    assert core.ucb_child(tree, totals, 0, legal({3, 7}), 5, 0.0, -1) == 1
    stale = legal({9})
    stale[core.LEGAL, 3] = 4                          # stamped by an earlier visit: not legal now
    assert core.ucb_child(tree, totals, 0, stale, 5, 0.0, -1) == 3


def test_availability_counts_only_the_children_legal_now():
    tree, totals = hand_built_tree([(3, 1, 1, 0.0), (7, 1, 1, 0.0), (9, 1, 1, 0.0)])
    marks = legal({3, 9})
    assert core.count_available(tree, 0, marks, 5, 1) == 0     # seat 1 has no child here: all are seat 0's
    assert core.ucb_child(tree, totals, 0, marks, 5, 0.7, 1) == -1
    core.count_available(tree, 0, marks, 5, 0)
    assert tree[1:, core.N_AVAIL].tolist() == [2, 1, 2]
    assert marks[core.TRIED, [3, 7, 9]].tolist() == [5, 0, 5]
    listed = np.array([3, 4, 4, 9, 11])
    assert core.untried(listed, 5, marks, 5, -1) == 3          # 4 (twice: two copies) and 11 have no child
    assert [core.untried(listed, 5, marks, 5, k) for k in range(3)] == [4, 4, 11]


def game_scratch(module, iterations, state, guard=8):
    """The chunk scratch of ``module`` for a search from the handle's ``state``, with a node pool of the
    budget's size plus ``guard`` sentinel rows."""
    x = dict(states=np.zeros((3, module.STATE_SIZE), module.STATE_DTYPE),
                streams=np.zeros((3, rng.N_STREAMS), np.uint64),
                actions=np.zeros((core.ACTION_ROWS, module.MAX_ACTIONS), np.int64),
                floats=np.zeros(module.MAX_ACTIONS + module.MAX_SEATS),
                work=np.zeros(module.WORK_SIZE, np.int64),
                tree=np.full((iterations + 1 + guard, core.NODE_WIDTH), -7, np.int64),
                totals=np.zeros((iterations + 1 + guard, core.TOTALS_WIDTH)),
                marks=np.zeros((core.MARK_ROWS, max(module.N_ACTION_CODES, module.MAX_SEATS)), np.int64))
    x["states"][core.GAME] = state.state
    x["streams"][core.GAME] = state.streams
    return x


def searched_positions(g, n_games, steps, every, enough=0, most_games=50):
    """The states the pool tests search from: every ``every``-th of the first ``steps`` decisions of
    ``n_games`` games (played by taking the legal actions in turn) where more than one action is legal, and of
    more games (at most ``most_games``) until ``enough`` were found: a short game (a few decisions, as Kuhn
    poker's) offers few a game, and the contract promises no long games."""
    found = 0
    for index in range(most_games):
        if index >= n_games and found >= enough:
            return
        s = g.new_initial_state(seed=7, game_index=index)
        step = 0
        while not s.is_terminal() and step < steps:
            if len(s.legal_actions()) > 1 and step % every == 0:
                found += 1
                yield s
            s.apply_action(s.legal_actions()[step % len(s.legal_actions())])
            step += 1


@pytest.mark.parametrize("game, sets", [(name, case) for name in games.names()
                                        for case in ({}, *games.load(name).GAME.cases[:1])])
def test_the_node_pool_never_grows_past_the_budget(game, sets):
    """One node per iteration and the root: a search of N iterations writes rows 0..N of its pool at most,
    the root is visited N times and its children's visits add up to N; with the search tools too (widening,
    and a cut-off where the game has an evaluation)."""
    g = simcore.load_game(game, params=sets)
    module = g.module
    search = binding.bind(module).compiled["ismcts_action"]
    searched = 0
    for s in searched_positions(g, 3, 60, 5, enough=8):
        iterations = (1, 2, 7, 40)[searched % 4]
        x = game_scratch(module, iterations, s)
        tools = searched % 2 == 1
        cutoff = 3 if tools and module.GAME.evaluate else 0
        action = search(g.params_array, s.current_player(), iterations, 0.7, False, cutoff, 0.5 * tools, 0, 0, -1,
                        x["states"], x["streams"], x["actions"], x["floats"], x["work"], x["tree"], x["totals"],
                        x["marks"])
        tree = x["tree"]
        assert (tree[iterations + 1:] == -7).all()
        assert tree[0, core.N_VISITS] == iterations
        used = tree[1:iterations + 1]
        used = used[used[:, core.N_ACTION] != -7]
        root_children = used[used[:, core.N_PARENT] == 0]
        assert root_children[:, core.N_VISITS].sum() == iterations
        assert action in s.legal_actions()
        searched += 1
    assert searched >= 8


@pytest.mark.parametrize("game", [name for name in games.names() if games.load(name).GAME.observations])
def test_the_observed_tree_gives_every_seat_a_tree_visited_by_every_iteration(game):
    """Multiple-observer ISMCTS: one tree per seat rooted at node seat, each visited by every iteration; the
    searcher's root children share its iterations; the pool stays within OBSERVED_NODES per seat and
    iteration; the action is legal."""
    g = simcore.load_game(game)
    module = g.module
    search = binding.bind(module).compiled["observed_ismcts_action"]
    players = g.num_players()
    searched = 0
    for s in searched_positions(g, 2, 40, 3):
        seat = s.current_player()
        iterations = (3, 40)[searched % 2]
        capacity = core.OBSERVED_NODES * module.MAX_SEATS * (iterations + 1)
        x = game_scratch(module, capacity - 1, s)
        action = search(g.params_array, seat, iterations, 0.7, False, 0, 0.0, 0, 0, 0.1, 0, -1, x["states"],
                        x["streams"],
                        x["actions"], x["floats"], x["work"], x["tree"][:capacity], x["totals"][:capacity],
                        x["marks"])
        tree = x["tree"]
        assert (tree[capacity:] == -7).all()
        assert tree[:players, core.N_VISITS].tolist() == [iterations] * players
        assert (tree[:players, core.N_PARENT] == -1).all()
        mine = tree[players:capacity]
        mine = mine[(mine[:, core.N_PARENT] == seat) & (mine[:, core.N_ACTION] != -7)]
        assert mine[:, core.N_VISITS].sum() == iterations and (mine[:, core.N_MOVER] == seat).all()
        assert action in s.legal_actions()
        searched += 1
    assert searched >= 4


def test_the_observed_tree_of_a_game_whose_actions_all_are_seen_plays_the_raw_trees_games(monkeypatch):
    """With every action seen whole and nothing revealed later, every seat's tree is the raw tree and each seat
    decides from the same statistics: the observed tree must play the raw tree's games, row for row (a copy of
    Goofspiel compiled with the defaults of a game without hidden actions, as a module of its own name, which
    numba's cache imports when it loads the copy)."""
    goofspiel = games.load("goofspiel")
    seen = types.ModuleType("tests.goofspiel_every_action_seen")
    vars(seen).update({**vars(goofspiel), "__name__": seen.__name__, **defaults.DEFAULTS["observations"],
                       "num_players": goofspiel.num_players})
    monkeypatch.setitem(sys.modules, seen.__name__, seen)
    run_batch = binding.Threaded(binding.instantiate(vars(seen))["run_batch"])
    rows = {}
    for tree in ("raw", "observed"):
        run = cfg.resolve("goofspiel", sets=[("players", 3)],
                          policies=[(0, f"ismcts:iterations=30,widen=0.5,cutoff=3,tree={tree},select=ucb"),
                                    (1, "greedy"), (2, f"ismcts:iterations=20,tree={tree},select=ucb")])
        out = np.zeros((12, engine.width(goofspiel)), np.int64)
        run_batch(run.params_array(), run.policies_array(), 3, 0, out)
        rows[tree] = out
    assert np.array_equal(rows["raw"], rows["observed"])
    real = cfg.resolve("goofspiel", sets=[("players", 3)],
                       policies=[(0, "ismcts:iterations=30,widen=0.5,tree=observed,select=ucb")])
    assert not np.array_equal(engine.run(goofspiel, real.params_array(), real.policies_array(), 3, 12),
                              engine.run(goofspiel, real.params_array(), cfg.resolve(
                                  "goofspiel", sets=[("players", 3)],
                                  policies=[(0, "ismcts:iterations=30,widen=0.5,tree=raw")]).policies_array(), 3, 12))


def last_card_positions(count):
    """Zwai 2p positions at the card decision of a game's last placement where some card can still win
    the game and some card cannot, with the winning cards: the outcome is fixed by the public shoal, so
    this is a perfect-information position two decisions deep (the card, then its cell)."""
    g = simcore.load_game("zwai")
    found = []
    index = 0
    while len(found) < count:
        s = g.new_initial_state(seed=11, game_index=index)
        index += 1
        while not s.is_terminal():
            view = s.game.module.View(s.state)
            last = view.n_rounds == 2 and view.placed == 15 and view.phase == 0
            if last:
                wins = set()
                for card in s.legal_actions():
                    after_card = s.clone()
                    after_card.apply_action(card)
                    for cell in after_card.legal_actions():
                        end = after_card.clone()
                        end.apply_action(cell)
                        if end.returns()[s.current_player()] == 1.0:
                            wins.add(card)
                if wins and wins != set(s.legal_actions()):
                    found.append((s, wins))
                break
            s.apply_action(s.legal_actions()[np.random.default_rng(index * 100 + view.turn).integers(
                len(s.legal_actions()))])
    return found


def test_ismcts_finds_the_forced_win_of_a_perfect_information_position():
    """At the last placement of a Zwai game, where a winning card exists beside losing ones, ISMCTS plays a
    winning card (and then its winning cell); random rollouts are exact here (the game ends at once)."""
    for s, wins in last_card_positions(6):
        seat = s.current_player()
        card = s.agent_action("ismcts:iterations=300")
        assert card in wins
        s.apply_action(card)
        s.apply_action(s.agent_action("ismcts:iterations=300"))
        assert s.returns()[seat] == 1.0


def test_the_handle_plays_the_engines_ismcts_games():
    """agent_action draws from the state's own streams: a game played through the handle, each seat's
    action from its spec, is the engine's game for the same seed and index."""
    specs = ["ismcts:iterations=20,rollout=greedy", "greedy"]
    run = cfg.resolve("zwai", policies=[("0", specs[0]), ("1", specs[1])])
    rows = engine.run(run.module, run.params_array(), run.policies_array(), 5, 3)
    g = simcore.load_game("zwai")
    for index in range(3):
        s = g.new_initial_state(seed=5, game_index=index)
        turns = 0
        while not s.is_terminal():
            s.apply_action(s.agent_action(specs[s.current_player()]))
            turns += 1
        assert s.returns()[:2] == rows[index, engine.O_WIN:engine.O_WIN + 2].tolist()
        assert turns == 2 * rows[index, engine.O_N_TURNS]


def test_bad_ismcts_specs_are_one_line_errors():
    allowed = ("random", "greedy", "mc", "ismcts")
    assert str(agents.parse("ismcts:iterations=50,c=1.5,rollout=greedy", allowed)) == \
        "ismcts:iterations=50,c=1.5,rollout=greedy"
    assert agents.parse("ismcts:rollout=greedy", allowed).row().tolist() == \
        [agents.ISMCTS, 1000, 0.7, 1, 0, 0, 0, 0, 0, 0.1, 0, 0]
    assert agents.parse("ismcts:cutoff=9,widen=0.5", allowed).row().tolist() == \
        [agents.ISMCTS, 1000, 0.7, 0, 9, 0.5, 0, 0, 0, 0.1, 0, 0]
    for bad, says in (("ismcts:iterations=0", "iterations = '0' is not allowed"),
                      ("ismcts:c=-1", "c = '-1' is not allowed"),
                      ("ismcts:rollout=smart", "rollout = 'smart' is not allowed; allowed: one of 'random'"),
                      ("ismcts:cutoff=-1", "cutoff = '-1' is not allowed"),
                      ("ismcts:widen=x", "widen = 'x' is not allowed"),
                      ("ismcts:final=best",
                       "final = 'best' is not allowed; allowed: one of 'most', 'visits', 'average'"),
                      ("ismcts:budget=5", "has no parameter 'budget'; allowed: iterations, c, rollout, cutoff, widen"),
                      ("ismcts:select=regret", "select=regret needs tree=observed"),
                      ("ismcts:final=average", "final=average needs select=regret"),
                      ("ismcts:explore=2", "explore = '2' is not allowed")):
        with pytest.raises(ValueError, match=says):
            agents.parse(bad, allowed)


def test_final_visits_draws_the_played_action_in_proportion_to_the_root_visits():
    """ismcts:final=visits (issue 40): the action played is drawn from the seat's policy stream in proportion to
    how often the search chose each root action, so a search that splits its visits plays a mixed strategy;
    final=most (the default) always plays the most-visited one. Children not legal in the real game never play."""
    tree = np.full((4, core.NODE_WIDTH), -1, np.int64)
    tree[0, core.N_CHILD] = 1
    for node, (action, visits, sibling) in enumerate([(3, 30, 2), (5, 10, 3), (7, 60, -1)], start=1):
        tree[node, core.N_ACTION], tree[node, core.N_VISITS], tree[node, core.N_SIBLING] = action, visits, sibling
    marks = np.zeros((core.MARK_ROWS, 8), np.int64)
    marks[core.LEGAL, [3, 5]] = 1                       # action 7, the most visited, is not legal in the real game
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    drawn = []
    for game_index in range(4000):
        rng.seed_streams(streams, 11, game_index)
        drawn.append(core.visit_draw(tree, 0, marks, 1, streams, 1))
    assert set(drawn) == {3, 5}
    assert abs(drawn.count(3) / len(drawn) - 0.75) < 0.03         # 30 of the 40 legal visits
    assert core.most_visited(tree, 0, marks, 1) == 3
