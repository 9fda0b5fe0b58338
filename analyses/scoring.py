"""How every command scores a game for a seat: its *points*.

A seat gets 1 point for a win, 1/k for a k-way shared win (a team's win is shared by the team's seats), 0 for a
loss, and, when nobody wins (a timeout, a draw), 1/players like every other seat: as chess and Fishtest score a
draw 1/2. A game's points add up to 1, and a seat that is as good as the others, in a seat as good as the others,
expects 1/players. ``simcore analyze``, ``compare``, ``duel``, ``versus``, ``ladder`` and ``tune`` all count
points, so a timeout or a shared win never reads as a loss in one command and as a half win in another.

``--score margin`` scores a game by its *margins* instead, where the game declares one (``GameType.margin``, the
unit of its per-seat score ``score_i``): a seat's score less the table's mean score (:func:`margins`). A game's
margins add up to 0, and a fair game gives every seat 0: the same tests then read a seat's edge in the game's own
units (prize points, fish) and see by how much a seat wins, not only whether.

(The games' own ``returns``, which searches back up, give 0 to every seat of a game that has not ended: a search
cares for wins, a balance test for fairness.)
"""

import numpy as np

RULE = "a win 1, a k-way shared win 1/k, a game nobody wins 1/players each"   # the outputs' words for points
MARGIN_RULE = "a seat's score less the table's mean score"                     # and for margins
SCORES = ("points", "margin")


def points(wins):
    """Each seat's points per game from the win flags ``wins`` (games, players): an array of the same shape."""
    wins = np.asarray(wins, dtype=bool)
    if wins.ndim != 2 or wins.shape[1] == 0:
        raise ValueError(f"need win flags (games, players), got shape {wins.shape}")
    winners = wins.sum(axis=1, keepdims=True)
    shared = wins / np.maximum(winners, 1)
    return np.where(winners > 0, shared, 1.0 / wins.shape[1])


def margins(scores):
    """Each seat's margin per game from the per-seat scores ``scores`` (games, players): its score less the mean
    score of the table (in a 2-player game, half the point difference). Additive over a team's seats: a team's
    margin is its seats' summed."""
    scores = np.asarray(scores, dtype=float)
    if scores.ndim < 2 or scores.shape[-1] == 0:      # leading axes: replicates, vectorised
        raise ValueError(f"need scores (games, players), got shape {scores.shape}")
    return scores - scores.mean(axis=-1, keepdims=True)


def check_score(score, game, unit):
    """ValueError in one line unless ``score`` is one of :data:`SCORES` that ``game`` scores by (``unit``: its
    declared ``GameType.margin``, "" for none)."""
    if score not in SCORES:
        raise ValueError(f"unknown score {score!r}; allowed: {', '.join(SCORES)}")
    if score == "margin" and not unit:
        raise ValueError(f"{game} declares no margin (its score_i is no measure of how well a seat did); "
                         "allowed: --score points")


def scored_by(results):
    """The sentence that says a verdict reads margins, in their unit (None when it reads points)."""
    units = sorted({r.unit for r in results if r.score == "margin"})
    if not units:
        return None
    return (f"Scored by the margin: a seat's score ({', '.join(units)}) less the table's mean score, so a fair game "
            "gives every seat 0.")
