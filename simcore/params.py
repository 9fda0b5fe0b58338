"""A parameter, of a game or of an agent: its name, default, meaning and allowed values, and the check of a value
against it. Neutral ground: the games (simcore.games), the agents (simcore.agents) and the config layer
(simcore.io.config) all declare or check parameters, and none of them imports another for it."""

from dataclasses import dataclass

import numpy as np


class ConfigError(ValueError):
    """A config problem, described in one line."""


@dataclass(frozen=True)
class Param:
    """One named parameter of a game or an agent: its default, meaning and allowed values."""

    name: str                 # dotted for grouped parameters: "deck.add"
    default: object
    help: str
    low: int | None = None    # inclusive bounds for ints
    high: int | None = None
    choices: tuple = ()       # allowed values for ints or strings, if a set
    validator: object = None  # value -> normalised value, or ValueError saying what is wrong
    allowed_text: str = ""    # what the validator accepts, for messages

    @property
    def kind(self):
        return type(self.default)

    def allowed(self):
        """Human-readable description of the allowed values."""
        if self.allowed_text:
            return self.allowed_text
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind is bool:
            return "true or false"
        if self.kind is int:
            return f"an integer from {self.low} to {self.high}"
        if self.kind is float:
            return "a number" if self.low is None else f"a number from {self.low:g} to {self.high:g}"
        return f"a {self.kind.__name__}"


def plain(value):
    """``value`` with numpy scalars (``np.int64(3)``, ``np.float64``, ``np.bool_``), in lists too, as the Python
    values they stand for: what a notebook computes is what a config file says, and results' TOML holds it."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def check_param(param, value):
    """The value of one parameter, or a ConfigError saying what is allowed."""
    value = plain(value)
    if param.validator is not None:
        try:
            return param.validator(value)
        except ValueError as e:
            raise ConfigError(f"parameter {param.name} = {short(value)}: {e}") from None
    kind = param.kind
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if ok and param.choices:
        ok = value in param.choices
    elif ok and kind is int:
        ok = param.low <= value <= param.high
    if not ok:
        raise ConfigError(f"parameter {param.name} = {value!r} is not allowed; allowed: {param.allowed()}")
    return value


def short(value):
    """A value for a one-line message (ASCII art is folded onto one line)."""
    text = repr(value).replace("\\n", "/")
    return text if len(text) <= 60 else text[:57] + "..."
