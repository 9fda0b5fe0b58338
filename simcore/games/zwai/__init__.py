"""Zwai: the game's whole contract (simcore.games.CONTRACT), gathered from its files.

* ``rules.py``: the parameters and the ``GameType``, the state layout, setup, legal actions, apply, returns
  and resample, jitted; the rules as simulated are in ``docs/zwai.md``;
* ``heuristics.py``: ``greedy_action`` and ``evaluate``, reading only what a seat may see;
* ``text.py``: the game in words (actions, information states, states), plain Python;
* ``picture.py``: its board as SVG for replays.

Only ``rules.py`` and ``heuristics.py`` are compiled: editing the words or the picture recompiles nothing.
"""

from simcore.games.zwai.heuristics import WORK_SIZE, evaluate, greedy_action
from simcore.games.zwai.picture import draw_board
from simcore.games.zwai.rules import *  # the rules' names: the interface, the layout, the View
from simcore.games.zwai.text import (
    action_to_string,
    information_state_string,
    round_of,
    state_to_string,
    table_at_round_end,
)
