"""The interface tests' driver: plays games through a game's decision interface one jitted call at a time.

It lives in the package (:mod:`simcore._driver`), where the conformance checks of ``simcore check`` use it; the
tests import it from here as before.
"""

from simcore._driver import decisions, play, resampled, rows

__all__ = ["decisions", "play", "resampled", "rows"]
