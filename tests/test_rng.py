"""The random streams: jitted and plain Python agree, and streams are independent of each other."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.engine import rng


def streams(seed, game):
    s = np.zeros(rng.N_STREAMS, np.uint64)
    rng.seed_streams(s, seed, game)
    return s


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), game=st.integers(0, 2**40), k=st.integers(0, rng.N_STREAMS - 1),
       n=st.integers(1, 2**32 - 1))
def test_jitted_and_python_streams_draw_the_same_numbers(seed, game, k, n):
    jit = streams(seed, game)
    py = rng.Stream(seed, game, k)
    assert [rng.randint(jit, k, n) for _ in range(20)] == [py.randint(n) for _ in range(20)]
    assert rng.uniform(jit, k) == py.uniform()
    items = np.arange(30, dtype=np.int64)
    rng.shuffle(jit, k, items, 30)
    listed = list(range(30))
    py.shuffle(listed)
    assert items.tolist() == listed


def test_randint_is_uniform():
    from scipy.stats import chisquare
    s = streams(7, 3)
    draws = np.array([rng.randint(s, rng.DECK, 6) for _ in range(60_000)])
    assert draws.min() == 0 and draws.max() == 5
    assert chisquare(np.bincount(draws)).pvalue > 1e-4


@pytest.mark.parametrize("other", [(2, 0, 0), (1, 1, 0), (1, 0, 1)])
def test_seed_game_and_stream_each_change_the_numbers(other):
    seed, game, k = other
    base = streams(1, 0)
    changed = streams(seed, game)
    assert [rng.next_u64(base, 0) for _ in range(4)] != [rng.next_u64(changed, k) for _ in range(4)]


def test_drawing_from_one_stream_leaves_the_others_alone():
    """Common random numbers: a policy's extra draws must not shift the deck's shuffles."""
    a, b = streams(5, 9), streams(5, 9)
    for _ in range(100):
        rng.randint(b, rng.POLICY + 1, 10)
    assert [rng.next_u64(a, rng.DECK) for _ in range(5)] == [rng.next_u64(b, rng.DECK) for _ in range(5)]
