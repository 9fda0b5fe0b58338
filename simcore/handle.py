"""Games as objects in OpenSpiel's manner, for notebooks, tests and users' own agents.

    g = simcore.load_game("zwai", params={"players": 3})
    s = g.new_initial_state(seed=1, game_index=0)
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    s.returns()

Every method calls the same jitted functions the engine runs, so a game played here with the engine's draws
is the engine's game.
"""

import numpy as np

from simcore import agents
from simcore.engine import rng
from simcore.engine.binding import bind
from simcore.io import config as cfg

MAX_GAME_INDEX = 2**63 - 1     # the engine's game indices are int64


def _is_integer(value):
    """An int or a numpy integer; not a bool, which is an int to Python but never a seat, seed or action."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _integer(name, value, low, high):
    """``value`` as a Python int from ``low`` to ``high``, checked before any jitted function sees it (numba would
    overflow, raise a typing error or, given a seat beyond the table, index past it); else one line."""
    allowed = f"allowed: an integer from {low} to {high}"
    if not _is_integer(value):
        raise TypeError(f"{name} {value!r:.60} is not an integer; {allowed}")
    if not low <= value <= high:
        raise ValueError(f"{name} {value} is not allowed; {allowed}")
    return int(value)


class Game:
    """One game with one set of parameters."""

    def __init__(self, name, params=None):
        run = cfg.resolve(name, sets=cfg.api_params(params))
        self.name = name
        self.module = run.module
        self.bound = bind(run.module)      # the jitted interface, defaults included, and the agents
        self.params = dict(run.params)
        self.params_array = run.params_array()

    def agent_function(self, specs=None):
        """The agents' decision function (``agent_action``) for seats playing the policies ``specs``: the plain
        copy's when none searches (no search compiled), else (or with ``specs`` None) the whole copy's."""
        if specs is None:
            return self.bound.agent_action
        kinds = {int(agents.parse(spec, self.module.GAME, self.module.ACTION_KINDS, self.params).row()[agents.KIND])
                 for spec in specs}
        return self.bound.plain_agent_action if kinds <= {agents.RANDOM, agents.GREEDY} else self.bound.agent_action

    def load_agents(self, on_compile=None, specs=None):
        """Load the decision function of seats playing ``specs`` (None: every agent) from numba's cache, or
        compile it first, in which case ``on_compile(game name)`` hears of it before compiling starts."""
        from simcore.engine import jit

        module = self.module
        args = (self.params_array, np.zeros((module.MAX_SEATS, agents.WIDTH)), np.int64(0), module.new_state(),
                np.zeros(rng.N_STREAMS, np.uint64), np.zeros(self.bound.interface["WORK_SIZE"], np.int64),
                np.zeros((module.N_ACTION_CODES, 3)))
        function = self.agent_function(specs)
        if on_compile is not None and not jit.cached(function, *args):
            on_compile(self.name)
        function.compile(tuple(function.typeof_pyval(a) for a in args))

    def num_players(self):
        return int(self.params["players"])

    def new_initial_state(self, seed=cfg.DEFAULT_SEED, game_index=0):
        """The state at the first decision of game ``game_index`` of a run with ``seed`` (1 unless given, as
        everywhere in simcore)."""
        streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(streams, _integer("seed", seed, 0, cfg.MAX_SEED),
                         _integer("game_index", game_index, 0, MAX_GAME_INDEX))
        state = self.module.new_state()
        self.bound.interface["begin"](state, self.params_array, streams)
        return State(self, state, streams)

    def __repr__(self):
        return f"load_game({self.name!r}, params={self.params!r})"


class State:
    """A game in progress: its flat state array and its random streams (chance happens inside the rules)."""

    def __init__(self, game, state, streams, work=None):
        self.game = game
        self.state = state
        self.streams = streams
        # what an agent plans for its next decision (Zwai's greedy picks card and cell at once), as in the engine
        self.work = np.zeros(game.bound.interface["WORK_SIZE"], np.int64) if work is None else work

    def _call(self, name, *args):
        return self.game.bound.interface[name](self.state, self.game.params_array, *args)

    def current_player(self):
        """The seat to decide, or -1 when the game is over."""
        return int(self._call("current_player"))

    def is_terminal(self):
        return self.current_player() < 0

    def legal_actions(self):
        """The distinct legal action codes, in the game's order (empty when the game is over)."""
        if self.is_terminal():
            return []
        out = np.zeros(self.game.module.MAX_ACTIONS, np.int64)
        n = self._call("legal_actions", out)
        return list(dict.fromkeys(int(a) for a in out[:n]))

    def _seat(self, seat):
        return _integer("seat", seat, 0, self.game.num_players() - 1)

    def action_to_string(self, action):
        """An action code in words; any code of the game (0 to N_ACTION_CODES - 1), legal here or not."""
        code = _integer("action code", action, 0, self.game.module.N_ACTION_CODES - 1)
        return self.game.module.action_to_string(self.state, self.game.params_array, code)

    def apply_action(self, action):
        legal = self.legal_actions()
        if not _is_integer(action):          # 1.0 and True equal legal codes, but are none
            raise TypeError(f"action {action!r:.60} is not an integer; allowed: {legal}")
        if action not in legal:
            raise ValueError(f"action {action} is not legal here; allowed: {legal}")
        self._call("apply_action", np.int64(action), self.streams)

    def agent_action(self, spec):
        """The action the policy ``spec`` (``"ismcts:iterations=500"``, ``"greedy"``, ...) takes for the seat
        to move. Its draws come from this state's streams, as in the engine's games; the state is unchanged."""
        return self.agent_search(spec)[0]

    def agent_search(self, spec):
        """``agent_action`` and what its search saw at the root: ``(action, [(action, tries, mean return for
        the mover), ...])``, most tried first; the list is empty when no search ran (random, greedy, or a
        lone legal action). ISMCTS may list actions that are legal only in some worlds it imagined."""
        seat = self.current_player()
        if seat < 0:
            raise ValueError("the game is over; allowed: agent_action before the end")
        module = self.game.module
        table = np.zeros((module.MAX_SEATS, agents.WIDTH))
        table[seat] = agents.parse(spec, module.GAME, module.ACTION_KINDS, self.game.params).row()
        stats = np.zeros((module.N_ACTION_CODES, 3))
        action, n = self.game.agent_function([spec])(self.game.params_array, table, np.int64(seat), self.state,
                                                     self.streams, self.work, stats)
        tried = sorted(((int(a), int(k), float(v)) for a, k, v in stats[:n]), key=lambda row: (-row[1], -row[2]))
        return int(action), tried

    def returns(self):
        """Per seat: 1 win, 0 loss, 1/k for a k-way shared win (0 for all if not over or timed out)."""
        out = np.zeros(self.game.module.MAX_SEATS)
        self._call("returns", out)
        return [float(x) for x in out[:self.game.num_players()]]

    def clone(self):
        return State(self.game, self.state.copy(), self.streams.copy(), self.work.copy())

    def resample(self, seat, seed):
        """A new state: what ``seat`` cannot see redrawn uniformly among the worlds consistent with what it
        has seen. The new state's chance draws come from ``seed`` too, not from this state's future."""
        seat = self._seat(seat)
        streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(streams, _integer("seed", seed, 0, cfg.MAX_SEED), 0)
        world = State(self.game, self.state.copy(), streams)
        world._call("resample", np.int64(seat), streams)
        return world

    def information_state_string(self, seat):
        """Everything ``seat`` knows; two states look the same to it exactly when these are equal."""
        return self.game.module.information_state_string(self.state, self.game.params_array, self._seat(seat))

    def __str__(self):
        return self.game.module.state_to_string(self.state, self.game.params_array)


def load_game(name, params=None):
    """The ``Game`` of a registered game; ``params`` as in configs (dotted names or nested dicts)."""
    return Game(name, params)
