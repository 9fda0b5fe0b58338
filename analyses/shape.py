"""Game shape: how long games last and how often they finish."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

QUANTILES = (5, 25, 50, 75, 95)


@dataclass(frozen=True)
class GameShapeResult:
    """Length distribution of the games (in turns), completion rate, and mean/sd of extra columns."""

    n_games: int
    mean: float
    sd: float
    quantiles: dict[int, float]
    completion: float
    extras: dict[str, tuple[float, float]]


def game_shape(n_turns, timeout, extras=None) -> GameShapeResult:
    """Summarise game length and completion.

    ``sd`` uses ddof=1 (an estimate for the population of games, not the sample). ``quantiles`` maps the
    percentiles 5, 25, 50, 75, 95 to numpy's default (linear) percentile of ``n_turns``. ``completion`` is
    the share of games that ended without a timeout. ``extras`` maps a name to an array of per-game values
    (e.g. a game-specific column) and comes back as name -> (mean, sd).
    """
    n_turns = np.asarray(n_turns)
    timeout = np.asarray(timeout, dtype=bool)
    if timeout.shape != n_turns.shape or n_turns.ndim != 1:
        raise ValueError(f"need n_turns and timeout of the same 1-D shape, got {n_turns.shape}, {timeout.shape}")
    mean, sd = _mean_sd(n_turns)
    if n_turns.size:
        quantiles = dict(zip(QUANTILES, np.percentile(n_turns, QUANTILES).tolist(), strict=True))
    else:
        quantiles = dict.fromkeys(QUANTILES, np.nan)
    return GameShapeResult(
        n_games=int(n_turns.size),
        mean=mean,
        sd=sd,
        quantiles=quantiles,
        completion=float(1 - timeout.mean()) if timeout.size else np.nan,
        extras={name: _mean_sd(np.asarray(values)) for name, values in (extras or {}).items()},
    )


def _mean_sd(x: np.ndarray) -> tuple[float, float]:
    """Mean and ddof=1 standard deviation, nan where undefined (rather than numpy's runtime warnings)."""
    mean = float(x.mean()) if x.size else np.nan
    sd = float(x.std(ddof=1)) if x.size >= 2 else np.nan
    return mean, sd
