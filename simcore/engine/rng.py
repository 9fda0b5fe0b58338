"""Counter-based random streams, one family per game.

Game ``i`` of a run with seed ``s`` owns a small array of independent streams.
Stream ``k`` starts from the key ``mix(mix(mix(s) + i) + k)`` and yields the
SplitMix64 sequence from that key. Nothing depends on threads, chunks,
processes or machines: only ``(seed, game_index, stream)``.

Every source of randomness draws from its own stream (``DECK``, ``DICE``,
``POLICY + seat``), so two rule variants run with the same seed see the same
deals, dice and policy coin flips wherever the rules let them: common random
numbers for paired comparisons. A searching seat (``mc``, ``ismcts``) draws
its imagined worlds from ``SEARCH + seat``: thinking harder never shifts the
deals or anybody else's coin flips.

The jitted functions work on a ``uint64`` array holding one counter per
stream. :class:`Stream` is the same generator in plain Python, for the
readable reference implementations; tests check the two agree draw by draw.
"""

import numpy as np

from simcore.engine.jit import kernel

DECK = 0      # shuffles of decks and piles
DICE = 1      # dice rolls and other chance events of the rules
POLICY = 2    # stream POLICY + seat: that seat's policy decisions
MAX_SEATS = 6
SEARCH = POLICY + MAX_SEATS   # stream SEARCH + seat: the worlds and rollouts that seat's search imagines
N_STREAMS = SEARCH + MAX_SEATS

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_MASK64 = (1 << 64) - 1


@kernel
def _finalize(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@kernel
def _mix(x):
    return _finalize(x + _GAMMA)


@kernel
def seed_streams(streams, seed, game_index):
    """Fill ``streams`` (uint64 array) with the keys of game ``game_index``."""
    base = _mix(_mix(np.uint64(seed)) + np.uint64(game_index))
    for k in range(streams.shape[0]):
        streams[k] = _mix(base + np.uint64(k))


@kernel
def next_u64(streams, k):
    """Next 64 random bits of stream ``k``."""
    streams[k] += _GAMMA
    return _finalize(streams[k])


@kernel
def fork(streams, k, out):
    """Seed ``out`` as a fresh family of streams from the next number of stream ``k`` (a search's world)."""
    base = next_u64(streams, k)
    for j in range(out.shape[0]):
        out[j] = _mix(base + np.uint64(j))


@kernel
def randint(streams, k, n):
    """Uniform integer in ``[0, n)`` from stream ``k``; ``1 <= n < 2**32``.

    Lemire's multiply-and-reject on the top 32 bits: exactly uniform.
    """
    un = np.uint64(n)
    m = (next_u64(streams, k) >> _S32) * un
    low = m & _LOW32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            m = (next_u64(streams, k) >> _S32) * un
            low = m & _LOW32
    return np.int64(m >> _S32)


@kernel
def uniform(streams, k):
    """Uniform float in ``[0, 1)`` with 53 random bits, from stream ``k``."""
    return np.float64(next_u64(streams, k) >> _S11) * (1.0 / 9007199254740992.0)


@kernel
def shuffle(streams, k, items, n):
    """Fisher-Yates shuffle of ``items[:n]`` in place, from stream ``k``."""
    for i in range(n - 1, 0, -1):
        j = randint(streams, k, i + 1)
        items[i], items[j] = items[j], items[i]


# --- the same generator in plain Python ---------------------------------------

def _py_finalize(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _py_mix(x):
    return _py_finalize((x + 0x9E3779B97F4A7C15) & _MASK64)


class Stream:
    """One random stream of one game, in plain Python (same numbers as jitted)."""

    def __init__(self, seed, game_index, stream):
        base = _py_mix((_py_mix(seed & _MASK64) + game_index) & _MASK64)
        self.state = _py_mix((base + stream) & _MASK64)

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        return _py_finalize(self.state)

    def randint(self, n):
        """Uniform integer in ``[0, n)``."""
        m = (self.next_u64() >> 32) * n
        low = m & 0xFFFFFFFF
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                m = (self.next_u64() >> 32) * n
                low = m & 0xFFFFFFFF
        return m >> 32

    def uniform(self):
        return (self.next_u64() >> 11) / 9007199254740992.0

    def shuffle(self, items):
        """Fisher-Yates shuffle of the list ``items`` in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randint(i + 1)
            items[i], items[j] = items[j], items[i]
