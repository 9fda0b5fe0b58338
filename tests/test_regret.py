"""ismcts select=regret (issue 40, item 1): simultaneous-move MCTS with regret matching in the observed trees
(Lanctot, Lisy and Winands 2013), the round's unseen face-down moves taken back (the game's ``rewind``) and the
average strategy played (final=average)."""

import numpy as np
import pytest

import simcore
from simcore import agents
from simcore.agents import core
from simcore.engine import rng
from simcore.games.goofspiel import rules as goofspiel

ALLOWED = ("random", "greedy", "mc", "ismcts")
REGRET = "ismcts:iterations=400,tree=observed,select=regret,final=average,widen=0.5"     # small hands' widening


def node_with_regrets(regrets, mover=0):
    """A root whose children, actions 3, 5, 7, ... of ``mover``, hold ``regrets`` (newest first as add_node
    links them: child i is node i + 1)."""
    tree = np.zeros((len(regrets) + 1, core.NODE_WIDTH), np.int64)
    totals = np.zeros((len(regrets) + 1, core.TOTALS_WIDTH))
    core.add_node(tree, totals, 0, -1, -1, -1)
    for node, regret in enumerate(regrets, start=1):
        core.add_node(tree, totals, node, 1 + 2 * node, 0, mover)
        totals[node, core.T_REGRET] = regret
    marks = np.zeros((core.MARK_ROWS, 16), np.int64)
    marks[core.LEGAL, [1 + 2 * node for node in range(1, len(regrets) + 1)]] = 1
    return tree, totals, marks


def test_regret_matching_draws_each_child_by_its_share_of_the_positive_regrets_mixed_with_exploration():
    """Hart and Mas-Colell: positive regrets 3 and 1 (and -2) give shares 0.75, 0.25, 0; explore = 0.3 mixes in
    0.1 each: chances 0.625, 0.275, 0.1. Every candidate's share, weighted by the iteration (9: linear
    averaging), goes into its strategy sum."""
    draws = []
    for index in range(6000):
        tree, totals, marks = node_with_regrets([3.0, 1.0, -2.0])
        streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(streams, 3, index)
        draws.append(core.regret_child(tree, totals, 0, marks, 1, 0, 0.3, streams, 9))
    assert totals[1:, core.T_CHANCE] == pytest.approx([0.625, 0.275, 0.1])
    assert totals[1:, core.T_STRATEGY] == pytest.approx([9 * 0.75, 9 * 0.25, 0.0])
    assert (tree[1:, core.N_STAMP] == 9).all()
    for node, chance in zip((1, 2, 3), (0.625, 0.275, 0.1), strict=True):
        assert abs(draws.count(node) / len(draws) - chance) < 0.02


def test_regret_matching_plays_equal_shares_while_no_regret_is_positive_and_skips_other_seats_and_illegal():
    tree, totals, marks = node_with_regrets([-1.0, 0.0, -3.0, 2.0])
    tree[4, core.N_MOVER] = 1                       # seat 1's child: not a choice of seat 0
    marks[core.LEGAL, tree[3, core.N_ACTION]] = 0   # not legal in this world
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    core.regret_child(tree, totals, 0, marks, 1, 0, 0.0, streams, 4)
    assert totals[1:, core.T_STRATEGY] == pytest.approx([4 * 0.5, 4 * 0.5, 0.0, 0.0])
    assert tree[1:, core.N_STAMP].tolist() == [4, 4, 0, 0]


def test_the_regret_update_credits_the_chosen_child_its_return_over_its_chance_and_debits_every_offered_one():
    """Lanctot et al.'s estimate: the chosen child's value u / p, the others' 0; each offered child's regret
    grows by its estimate less u. A child not offered in this iteration (another stamp) keeps its regret."""
    tree, totals, marks = node_with_regrets([0.0, 0.0, 0.0])
    tree[1:3, core.N_STAMP] = 5
    tree[3, core.N_STAMP] = 4
    totals[2, core.T_CHANCE] = 0.25
    core.regret_update(tree, totals, 2, np.array([0.5, -0.5]), 5)
    assert totals[1:, core.T_REGRET] == pytest.approx([-0.5, 0.5 / 0.25 - 0.5, 0.0])
    core.back_up(tree, totals, 2, np.array([1.0, -1.0]), 0)          # no stamp: UCB1's backup alone
    assert totals[1:, core.T_REGRET] == pytest.approx([-0.5, 1.5, 0.0])


def test_the_average_strategy_is_drawn_in_proportion_to_the_strategy_sums():
    tree, totals, marks = node_with_regrets([0.0, 0.0, 0.0])
    totals[1:, core.T_STRATEGY] = [6.0, 2.0, 12.0]
    marks[core.LEGAL, tree[3, core.N_ACTION]] = 0               # the largest sum, not legal in the real game
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    drawn = []
    for index in range(4000):
        rng.seed_streams(streams, 8, index)
        drawn.append(core.strategy_draw(tree, totals, 0, marks, 1, streams, 0))
    assert set(drawn) == {tree[1, core.N_ACTION], tree[2, core.N_ACTION]}
    assert abs(drawn.count(tree[1, core.N_ACTION]) / len(drawn) - 0.75) < 0.03
    totals[1:, core.T_STRATEGY] = 0.0
    assert core.strategy_draw(tree, totals, 0, marks, 1, streams, 0) == -1     # never chose: the caller's visits


def test_rewind_takes_back_the_face_down_bids_a_seat_has_not_seen():
    """Rules (docs/goofspiel.md, "A trick"): "Then seat 0, seat 1, … each bid one card of their hand, face
    down"; "When the last seat has bid, ... The bids are shown." Seat 2 of three has seen neither earlier bid:
    both go back to their hands and seat 0 is to bid again; seat 0 has nothing to take back."""
    game = simcore.load_game("goofspiel", {"players": 3, "num_cards": 5})
    state = game.new_initial_state(seed=4)
    start = state.state.copy()
    rewind = game.bound.interface["rewind"]
    assert rewind(start.copy(), game.params_array, 0) == 0
    state.apply_action(3)
    state.apply_action(1)
    assert state.current_player() == 2
    world = state.state.copy()
    assert rewind(world, game.params_array, 2) == 2
    assert np.array_equal(world, start)
    world = state.state.copy()
    assert rewind(world, game.params_array, 1) == 1               # seat 1 saw its own bid: seat 0's alone
    assert world[goofspiel.S_SEAT] == 0 and world[goofspiel.S_BID + 1] == 1


def test_dealt_shows_every_seat_the_prize_the_tricks_last_bid_reveals():
    """Rules (docs/goofspiel.md): "When the last seat has bid, the highest bid takes the prize"; then the next
    trick: "A trick: the next prize is revealed" (in random order drawn from the prize deck). An earlier bid
    deals nothing (-1); the last one shows every seat the new prize; after the game's last trick nothing is left
    to deal."""
    game = simcore.load_game("goofspiel", {"num_cards": 4})
    dealt = game.bound.interface["dealt"]
    state = game.new_initial_state(seed=5)
    state.apply_action(2)
    assert [dealt(state.state, game.params_array, seat) for seat in (0, 1)] == [-1, -1]
    state.apply_action(0)
    prize = state.state[goofspiel.S_PRIZE]
    assert prize >= 0 and [dealt(state.state, game.params_array, seat) for seat in (0, 1)] == [prize, prize]
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert dealt(state.state, game.params_array, 0) == -1


def test_the_regret_search_keeps_a_seats_next_trick_apart_for_each_prize_dealt():
    """select=regret follows what chance dealt by a reveal node: below the first trick's two bids and the reveal
    of the bids, seat 0's tree holds one reveal node per next prize (at 4 cards in random order, the 3 prizes
    left), and its second bids lie below them, never fused across prizes."""
    game = simcore.load_game("goofspiel", {"num_cards": 4})
    module = game.module
    table = np.zeros((module.MAX_SEATS, agents.WIDTH))
    table[0] = agents.parse(REGRET, module.GAME).row()
    state = game.new_initial_state(seed=3)
    tree, totals = game.bound.search_tree(game.params_array, table, np.int64(0), state.state, state.streams)
    first = state.state[goofspiel.S_PRIZE]
    prizes, below = set(), 0
    for node in range(len(tree)):
        if not tree[node, core.N_VISITS]:
            continue
        path = [node]                               # node, its parent, ... up to a root
        while tree[path[-1], core.N_PARENT] >= 0:
            path.append(tree[path[-1], core.N_PARENT])
        movers = [tree[n, core.N_MOVER] for n in path]
        if path[-1] == 0 and len(path) == 5 and movers[:4] == [core.REVEAL, core.REVEAL, 1, 0]:
            prizes.add(int(tree[node, core.N_ACTION]))                     # prize, bids shown, seat 1, seat 0
        if path[-1] == 0 and len(path) == 6 and movers[0] == 0:                # seat 0's second bid
            below += 1
            assert movers[1:3] == [core.REVEAL, core.REVEAL]
    assert prizes == set(range(4)) - {first} and below > 0


def test_the_second_bidder_decides_where_its_tree_meets_the_face_down_bid_and_plays_mixed():
    """Seat 1's search starts each world at the trick's start: seat 0 bids again in its own tree, seat 1's tree
    follows one face-down code to the node where seat 1 decides (core.decision_node), whose children are
    seat 1's bids and hold the strategy sums. Its decision does not depend on which card seat 0 really bid."""
    game = simcore.load_game("goofspiel", {"num_cards": 5, "points_order": "descending"})
    module = game.module
    table = np.zeros((module.MAX_SEATS, agents.WIDTH))
    table[1] = agents.parse(REGRET, module.GAME).row()
    played = set()
    for bid in (0, 4):
        state = game.new_initial_state(seed=2)
        state.apply_action(bid)
        tree, totals = game.bound.search_tree(game.params_array, table, np.int64(1), state.state, state.streams)
        node = core.decision_node(tree, 1, 1)
        assert tree[node, core.N_PARENT] == 1 and tree[node, core.N_MOVER] == 0
        assert tree[node, core.N_ACTION] == goofspiel.A_FACE_DOWN
        children = []
        child = tree[node, core.N_CHILD]
        while child >= 0:
            children.append(child)
            child = tree[child, core.N_SIBLING]
        assert all(tree[c, core.N_MOVER] == 1 for c in children) and len(children) == 5
        assert totals[children, core.T_STRATEGY].sum() > 0
        played.add((tuple(tree[children, core.N_VISITS]), state.agent_action(REGRET)))
    assert len(played) == 1                                        # the same search, whatever seat 0 bid


def test_regret_specs_are_spelled_out_and_need_the_observed_tree():
    spec = agents.parse("ismcts:iterations=50,tree=observed,select=regret,final=average", simcore.load_game(
        "goofspiel").module.GAME)
    assert "select=regret" in str(spec) and "final=average" in str(spec) and "explore" not in str(spec)
    assert agents.parse(str(spec), simcore.load_game("goofspiel").module.GAME) == spec
    row = spec.row()
    assert (row[agents.IS_SELECT], row[agents.IS_FINAL], row[agents.IS_EXPLORE]) == (1, 2, 0.1)
    assert "select" not in str(agents.parse("ismcts:iterations=50", ALLOWED))
