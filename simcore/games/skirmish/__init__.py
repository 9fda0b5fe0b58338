"""The garden-gnome skirmish (rules in words: rules.md): the game's contract,
gathered from rules.py, heuristics.py, text.py and picture.py (what each holds: docs/how-to/adding-a-game.md)."""

from simcore.games.skirmish.heuristics import WORK_SIZE, evaluate, greedy_action, greedy_among
from simcore.games.skirmish.picture import draw_board
from simcore.games.skirmish.rules import *  # the rules' names: the interface, the layout, the View
from simcore.games.skirmish.text import action_to_string, information_state_string, round_of, state_to_string
