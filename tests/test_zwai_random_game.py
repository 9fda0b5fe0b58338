"""Issue 57: Zwai's own whole random game (simcore/games/zwai/random_play.py) plays, for random seats, the games
the game loop plays with rules.py: the same rows, game for game, in every variant it takes, each named by the rule
or decision it exercises. A run of random seats plays it where it takes the variant; a formation beyond one 64-bit
board, or a seat that is not plain random, plays through the game loop."""

import numpy as np
import pytest

from simcore import engine
from simcore.engine import binding, jit
from simcore.games import zwai
from simcore.io import config as cfg

VARIANTS = [
    pytest.param({}, id="the rulebook's game: 2 players, the 4 x 4 square, 11 cards, 3 rounds"),
    pytest.param({"players": 3}, id="rulebook: 3 players draw 8 cards"),
    pytest.param({"players": 4}, id="rulebook: 4 players draw 7 cards"),
    pytest.param({"shark_moves_on_tie": True}, id="decision shark_moves_on_tie: a shark moves on a tie"),
    pytest.param({"removed_cards": "discard", "players": 3},
                 id="decision removed_cards=discard: the sharks' cards leave the game"),
    pytest.param({"round_starter": "rotate", "players": 4},
                 id="reading round_starter=rotate: after the round's starter"),
    pytest.param({"first_seat": 1}, id="decision first_seat: seat 1 begins round 1"),
    pytest.param({"max_turns": 30}, id="decision max_turns: a game stopped mid-round is a timeout, nothing banked"),
    pytest.param({"rounds": 5, "hand_size_2": 3}, id="rulebook: hands run out, seats skip, a round ends unfilled"),
    pytest.param({"players": 4, "hand_size_4": 2, "removed_cards": "discard", "rounds": 5},
                 id="piles run out: rounds end with nobody holding a card"),
    pytest.param({"fish_counts": [0, 0, 0, 0, 0, 0, 0, 0, 0, 64]}, id="fish_counts: 64 cards of 9 fish"),
    pytest.param({"fish_counts": [1, 1], "hand_size_2": 1, "rounds": 5}, id="fish_counts: 2 cards a colour"),
    pytest.param({"formation": "bar"}, id="decision formation=bar: 2 rows of 8"),
    pytest.param({"formation": "##\n#.\n##"}, id="formation: a C of 5 cells, translations narrowing"),
]


def resolved(params, seats=(("all", "random"),)):
    run = cfg.resolve("zwai", table={"params": params}, policies=list(seats))
    return run.params_array(), run.policies_array()


@pytest.mark.parametrize("params", VARIANTS)
def test_the_own_random_game_plays_the_game_loops_games(params):
    values, agents = resolved(params)
    assert engine.plays_random_games(zwai, values, agents)
    bound = binding.bind(zwai)
    loop = _game_loop(bound, values, agents, 7, 3000, start=100)
    own = np.zeros_like(loop)
    bound.run_random_games(values, agents, np.int64(7), np.int64(100), own)
    assert np.array_equal(own, loop)
    assert loop[:, engine.O_N_TURNS].min() > 0          # games were played, not rows left empty


def test_a_run_of_random_seats_plays_it_and_other_seats_or_formations_the_game_loop():
    bound = binding.bind(zwai)
    values, agents = resolved({})
    assert engine.batch_function(zwai, agents, params=values) is bound.run_random_games
    assert engine.copy_name(zwai, agents, params=values) == engine.RANDOM_GAMES
    assert engine.batch_function(zwai, agents, traced=True, params=values) is not bound.run_random_games
    for formation in ("ring", "ell", "tee", "cup", "stairs", "plus"):   # windows beyond 64 bits
        assert not engine.plays_random_games(zwai, *resolved({"formation": formation}))
    for seats in ((("all", "greedy"),), (("0", "random:forbid=fish_4"),), (("1", "mc:rollouts=1"),)):
        assert not engine.plays_random_games(zwai, *resolved({}, (("all", "random"), *seats)))
    ring, agents = resolved({"formation": "ring"})
    assert np.array_equal(engine.run(zwai, ring, agents, 3, 500),
                          _game_loop(bound, ring, agents, 3, 500))


def _game_loop(bound, values, agents, seed, n, start=0):
    """The rows of games ``start ..`` played by the game loop's copy of random seats."""
    rows = np.zeros((n, engine.width(zwai)), np.int64)
    bound.run_random(values, agents, np.int64(seed), np.int64(start), rows)
    return rows


def test_kth_bit_finds_the_kth_set_bit_with_pdep_and_without():
    rng = np.random.default_rng(5)
    for bits in [1, -2**63, -1, 0b1011_0000, *rng.integers(-2**63, 2**63 - 1, 200, dtype=np.int64)]:
        bits = np.int64(bits)
        ones = [i for i in range(64) if (int(bits) >> i) & 1]   # (two's complement: bit 63 of a negative)
        for k in range(len(ones)):
            assert jit._loop_kth_bit(bits, np.int64(k)) == ones[k]
            if jit._host_has_pdep():
                assert _pdep(bits, np.int64(k)) == ones[k]


@jit.kernel
def _pdep(bits, k):
    return jit._pdep_kth_bit(bits, k)
