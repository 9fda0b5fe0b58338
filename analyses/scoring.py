"""How every command scores a game for a seat: its *points*.

A seat gets 1 point for a win, 1/k for a k-way shared win (a team's win is shared by the team's seats), 0 for a
loss, and, when nobody wins (a timeout, a draw), 1/players like every other seat: as chess and Fishtest score a
draw 1/2. A game's points add up to 1, and a seat that is as good as the others, in a seat as good as the others,
expects 1/players. ``simcore analyze``, ``compare``, ``duel``, ``versus``, ``ladder`` and ``tune`` all count
points, so a timeout or a shared win never reads as a loss in one command and as a half win in another.

(The games' own ``returns``, which searches back up, give 0 to every seat of a game that has not ended: a search
cares for wins, a balance test for fairness.)
"""

import numpy as np

RULE = "a win 1, a k-way shared win 1/k, a game nobody wins 1/players each"   # the outputs' words for points


def points(wins):
    """Each seat's points per game from the win flags ``wins`` (games, players): an array of the same shape."""
    wins = np.asarray(wins, dtype=bool)
    if wins.ndim != 2 or wins.shape[1] == 0:
        raise ValueError(f"need win flags (games, players), got shape {wins.shape}")
    winners = wins.sum(axis=1, keepdims=True)
    shared = wins / np.maximum(winners, 1)
    return np.where(winners > 0, shared, 1.0 / wins.shape[1])
