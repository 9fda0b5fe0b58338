"""The plain-Python Goofspiel (benchmarks/reference/goofspiel.py) against OpenSpiel's ``goofspiel``, game by game.

simcore plays the simultaneous game as a sequence of bids (docs/goofspiel.md); OpenSpiel plays it as one
simultaneous node per trick with a chance node before it for ``points_order = "random"``. Each reference game is
replayed in OpenSpiel in lock step: the prize card the reference revealed is applied at OpenSpiel's chance node, the
trick's bids, once every seat has bid, at its simultaneous node. After every trick both sides must show the same
hands, points and returns; OpenSpiel plays the last trick by itself (chance event included) exactly when the
reference does, and the game ends with the same prize sequence, bids, points and returns.

OpenSpiel's ``imp_info=True`` shows a seat only who won each trick, simcore shows every bid after its trick
(docs/goofspiel.md): that changes what a searching seat knows, not the rules or the returns compared here.
"""

import functools

import pyspiel
import pytest

from benchmarks.reference import goofspiel as reference

POINTS_ORDERS = ("random", "ascending", "descending")
RETURNS_TYPES = ("win_loss", "point_difference", "total_points")
NUM_CARDS = (2, 3, 5, 8, 13, 16)
PLAYERS = (2, 3, 4)
SEED = 61
RANDOM_GAMES = 25   # per (num_cards, players): 450 per (points_order, returns_type), 4050 in all
MIXED_GAMES = 5     # per set with greedy seats (three sets): 270 per (points_order, returns_type)


@functools.cache
def _openspiel(players, num_cards, points_order, returns_type):
    return pyspiel.load_game("goofspiel", {"players": players, "num_cards": num_cards, "points_order": points_order,
                                           "returns_type": returns_type, "imp_info": True})


def _params(players, num_cards, points_order, returns_type):
    return {"players": players, "num_cards": num_cards, "points_order": points_order, "returns_type": returns_type}


def _table(state):
    """What OpenSpiel's state string shows ("P0 hand: 1 2 3", "P0 actions: 0 2", "Point card sequence: 3 1",
    "Points: 0 4"), as lists of ints: hands and the point cards as card values, actions as card indices."""
    table = {}
    for line in str(state).splitlines():
        key, _, values = line.partition(":")
        table[key.strip()] = [int(v) for v in values.split()]
    return table


def _check_trick_start(state, game):
    """At the start of a trick OpenSpiel offers what the reference's rules say: for "random" a chance node over
    exactly the prize cards not yet revealed, uniformly (the reference revealed one of them); then a simultaneous
    node where each seat may bid exactly the cards of its hand."""
    if game.points_order == "random":
        assert state.is_chance_node()
        outcomes = state.chance_outcomes()
        unrevealed = sorted([game.prizes[-1], *game.deck])
        assert [card for card, _ in outcomes] == unrevealed
        assert all(abs(prob - 1 / len(unrevealed)) < 1e-12 for _, prob in outcomes)
        state.apply_action(game.prizes[-1])
    assert state.is_simultaneous_node()
    for seat in range(game.players):
        assert state.legal_actions(seat) == game.hands[seat]


def replay(game, openspiel_game):
    """Play ``game`` (a reference game at its first decision, with policies) to its end, trick by trick, and
    OpenSpiel's ``goofspiel`` alongside it; checks every trick and the end. Returns the OpenSpiel state."""
    state = openspiel_game.new_initial_state()
    while game.current_player() >= 0:
        trick = game.tricks
        _check_trick_start(state, game)
        while game.tricks == trick:
            game.apply_action(game.policies[game.current_player()].act(game))
        state.apply_actions(game.bids[trick])
        table = _table(state)
        assert table["Points"] == game.points, f"points after trick {trick}"
        if not game.over:
            assert not state.is_terminal() and state.returns() == game.returns() == [0.0] * game.players
    # The reference played the last trick by itself: OpenSpiel must have done so too, chance event included.
    assert state.is_terminal()
    table = _table(state)
    assert table["Point card sequence"] == [card + 1 for card in game.prizes]
    for seat in range(game.players):
        assert table[f"P{seat} actions"] == [bids[seat] for bids in game.bids]
        assert table[f"P{seat} hand"] == []
    assert state.returns() == pytest.approx(game.returns(), abs=1e-12)
    return state


def _policy_sets(players):
    """All random, RANDOM_GAMES games; then greedy seats: seat 0 greedy, the last seat greedy, every seat
    greedy (then every trick ties, as all seats bid the prize's rank)."""
    yield ["random"] * players, RANDOM_GAMES
    yield ["greedy"] + ["random"] * (players - 1), MIXED_GAMES
    yield ["random"] * (players - 1) + ["greedy"], MIXED_GAMES
    yield ["greedy"] * players, MIXED_GAMES


@pytest.mark.parametrize("returns_type", RETURNS_TYPES)
@pytest.mark.parametrize("points_order", POINTS_ORDERS)
def test_reference_plays_openspiels_goofspiel(points_order, returns_type):
    """docs/goofspiel.md, every rule at once against OpenSpiel: hands 1..N, the prize order ("random" uniform over
    the unrevealed prizes, "ascending" 1, 2, ..., "descending" N, N-1, ...), "the highest bid wins the prize if it
    is unique; a tie for the highest bid discards the prize", the last trick playing itself, and OpenSpiel's
    returns formulas for ``returns_type``. Over all num_cards and player counts, tricks both won and tied."""
    won = tied = 0
    for num_cards in NUM_CARDS:
        for players in PLAYERS:
            openspiel_game = _openspiel(players, num_cards, points_order, returns_type)
            params = _params(players, num_cards, points_order, returns_type)
            start = 0
            for policies, n_games in _policy_sets(players):
                for game_index in range(start, start + n_games):
                    game = reference.Game(params, policies, SEED, game_index)
                    replay(game, openspiel_game)
                    tied += game.tied_tricks
                    won += num_cards - game.tied_tricks
                    if points_order != "random":
                        order = list(range(num_cards))
                        assert game.prizes == (order if points_order == "ascending" else order[::-1])
                start += n_games
    assert won > 1000 and tied > 1000


def _scripted(params, tricks):
    """A reference game and OpenSpiel's, both fed ``tricks`` (each trick's bids by seat, card indices; the last
    trick, which plays itself, left out); returns (reference game, OpenSpiel state), both over."""
    game = reference.begin(params, SEED, 0)
    state = _openspiel(*(params[k] for k in ("players", "num_cards", "points_order", "returns_type")))
    state = state.new_initial_state()
    for bids in tricks:
        _check_trick_start(state, game)
        for card in bids:
            game.apply_action(card)
        state.apply_actions(bids)
    assert game.current_player() == -1 and state.is_terminal()
    return game, state


def test_a_tie_for_the_highest_bid_discards_the_prize_even_beside_a_unique_lower_bid():
    """docs/goofspiel.md: "the highest bid wins the prize if it is unique; a tie for the highest bid discards the
    prize": with three seats, bids 3, 3, 1 for the prize 1 give it to nobody (not to the unique lowest bid), bids
    2, 1, 3 for the prize 2 give it to seat 2; the last trick (prize 3) is bids 1, 2, 2: a tie again. OpenSpiel
    agrees."""
    params = _params(3, 3, "ascending", "total_points")
    game, state = _scripted(params, [[2, 2, 0], [1, 0, 2]])
    assert game.points == _table(state)["Points"] == [0, 0, 2]
    assert game.bids[-1] == [0, 1, 1]   # what was left in every hand
    assert (game.tied_tricks, game.discarded_points) == (2, 1 + 3)
    assert game.returns() == state.returns() == [0.0, 0.0, 2.0]


@pytest.mark.parametrize(("players", "tricks", "expected"), [
    # prizes 4, 3, 2, 1 (descending): 4 to seat 0, 3 to seat 1, then two ties (the last hands are 3 and 3)
    (2, [[1, 0], [0, 1], [2, 2]], {"win_loss": [1.0, -1.0], "point_difference": [0.5, -0.5],
                                   "total_points": [4.0, 3.0]}),
    # 4 to seat 1, 3 to seat 0, a three-way tie discards 2, the last trick (3, 1, 2, 2) gives 1 to seat 0:
    # two winners with 4 points each, two losers with none
    (4, [[0, 2, 1, 1], [1, 0, 0, 0], [2, 3, 3, 3]], {"win_loss": [0.5, 0.5, -0.5, -0.5],
                                                    "point_difference": [2.0, 2.0, -2.0, -2.0],
                                                    "total_points": [4.0, 4.0, 0.0, 0.0]}),
    # every trick tied: nobody scores, every seat is a winner, so win_loss gives 0 to all
    (3, [[0, 0, 0], [1, 1, 1], [2, 2, 2]], {"win_loss": [0.0, 0.0, 0.0], "point_difference": [0.0, 0.0, 0.0],
                                           "total_points": [0.0, 0.0, 0.0]}),
    # 4 and 3 to seat 0, 2 to seat 1, the last trick (2, 2, 3) gives 1 to seat 2: one winner of three
    (3, [[1, 0, 0], [3, 1, 1], [0, 3, 2]], {"win_loss": [1.0, -0.5, -0.5],
                                           "point_difference": [7 - 10 / 3, 2 - 10 / 3, 1 - 10 / 3],
                                           "total_points": [7.0, 2.0, 1.0]}),
])
@pytest.mark.parametrize("returns_type", RETURNS_TYPES)
def test_returns_are_openspiels_formulas(players, tricks, expected, returns_type):
    """docs/goofspiel.md, Returns (OpenSpiel's formulas): win_loss gives each of the k seats with the most points
    1/k and each other seat -1/(players - k), 0 to all if all are level; point_difference is points minus their
    mean; total_points the points. Worked positions over four descending prizes, the values written out."""
    game, state = _scripted(_params(players, 4, "descending", returns_type), tricks)
    assert game.returns() == expected[returns_type]
    assert state.returns() == pytest.approx(expected[returns_type], abs=1e-12)
