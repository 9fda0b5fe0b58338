"""What the engine raises when a game breaks its rules while playing: in a module of its own, which the engine's
package and its binding both import (neither imports the other at load)."""


class GameError(RuntimeError):
    """A game broke the engine's rules while playing: a decision with no legal action, or an action outside its
    codes (one line naming the game, the seat and the step; ``simcore.engine.binding.Threaded`` raises it)."""
