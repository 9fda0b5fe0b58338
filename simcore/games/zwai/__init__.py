"""Zwai (rules in words: rules.md): the game's contract,
gathered from rules.py, heuristics.py, text.py, picture.py and random_play.py (what each holds:
docs/how-to/adding-a-game.md)."""

from simcore.games.zwai.heuristics import WORK_SIZE, evaluate, greedy_action, greedy_among
from simcore.games.zwai.picture import draw_board
from simcore.games.zwai.random_play import RANDOM_GAME_SCRATCH, prepare_random_game, random_game
from simcore.games.zwai.rules import *  # the rules' names: the interface, the layout, the View
from simcore.games.zwai.text import (
    action_to_string,
    information_state_string,
    round_of,
    state_to_string,
    table_at_round_end,
)
