"""Leduc poker (rules in words: rules.md): the game's contract, gathered from rules.py and text.py."""

from leduc_poker.rules import *  # noqa: F403  the rules' names: the interface and the layout
from leduc_poker.text import (  # noqa: F401
    action_to_string,
    information_state_string,
    openspiel_chance,
    round_of,
    state_to_string,
)
