"""What the games' evaluations share: from each seat's standing to its chance of winning.

A game's ``evaluate`` (its heuristics.py) scores a state that a search playout stopped before the end
(``ismcts:cutoff=D``): it measures each seat's standing in the game's own terms (material, points, rounds
won) and turns the standings into chances with :func:`win_shares`.
"""

import math

from simcore.engine.jit import kernel


@kernel
def win_shares(standings, n, spread):
    """Replace ``standings[:n]`` by each seat's chance to win, when the final standings are the present ones
    plus noise of size ``spread`` (in the standing's units): a softmax, so that a lead of one ``spread``
    weighs e (2.7) to 1, the leader's share grows as the spread shrinks toward the end, and the shares sum to 1.
    """
    best = standings[0]
    for q in range(1, n):
        best = max(best, standings[q])
    total = 0.0
    for q in range(n):
        standings[q] = math.exp((standings[q] - best) / spread)
        total += standings[q]
    for q in range(n):
        standings[q] /= total
