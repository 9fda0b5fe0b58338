"""What a game gets for what it does not write: the defaults of the capabilities its ``GameType`` does not declare
(:data:`DEFAULTS`, bound into its copy of the agents and game loop) and of the optional names of the contract
(:data:`OPTIONAL`). ``simcore.games.load`` completes a game module with them, so that a small game writes only its
rules; ``simcore.engine.binding`` binds the same ones."""

import numpy as np

from simcore.engine.jit import kernel


def nothing_hidden(state, params, seat, streams):
    """``resample`` of a game without hidden information (``GameType.hidden_information=False``): a seat sees
    the whole state, and chance to come is drawn from the streams the world is played with."""


def no_evaluate(state, params, seat, out):
    """``evaluate`` of a game without one: never asked, since ``cutoff`` is refused for it (simcore.agents)."""


def all_observed(state, params, action, observer):
    """``observed_action`` of a game whose every action is seen by every seat: the action itself."""
    return action


def nothing_revealed(state, params, action, observer):
    """``revealed`` of a game whose every action is seen by every seat: nothing is ever shown later."""
    return -1


def no_players(params):
    """``num_players`` of a game that declares no observations: never asked, since only the observed tree
    asks, and ``tree=observed`` is refused for it."""
    return 0


def no_heuristic(state, params, seat, streams, work):
    """``greedy_action`` of a game without a heuristic: never asked, since "greedy" is not among its policies
    (the registry checks) and ``rollout=greedy`` is refused for it."""
    return -1


def no_rewind(state, params, seat):
    """``rewind`` of a game without face-down moves to take back: takes back nothing."""
    return 0


def no_deal(state, params, observer):
    """``dealt`` of a game whose actions deal nothing face up: shows nothing."""
    return -1


def no_ranking(state, params, seat, streams, work, listed, n):
    """``greedy_among`` of a game whose greedy ranks only its own pick: never asked, since a restricted greedy is
    refused for it (simcore.agents)."""
    return -1


def no_standing(state, params, out):
    """``standing`` of a game without a trace: never asked, since ``--trace`` is refused for it."""


def no_step(state, params):
    """``trace_step`` of a game without a trace."""
    return 0


def no_kind(state, params, action):
    """``action_kind`` of a game that declares no kinds of move: no action is of a kind."""
    return -1


def no_end(state, params):
    """``end_condition`` of a game without a trace."""
    return 0


# flag of simcore.games.GameType -> {name: what a game that does not declare it gets}
DEFAULTS = {"hidden_information": {"resample": kernel(nothing_hidden)},
            "heuristic": {"greedy_action": kernel(no_heuristic), "WORK_SIZE": 1},
            "evaluate": {"evaluate": kernel(no_evaluate)},
            "restricted_greedy": {"greedy_among": kernel(no_ranking)},
            "observations": {"observed_action": kernel(all_observed), "revealed": kernel(nothing_revealed),
                             "num_players": kernel(no_players)},
            "trace": {"TRACE_STANDING": "", "TRACE_STEP": "turn", "MAX_TRACE_STEPS": 1, "END_CONDITIONS": (),
                      "standing": kernel(no_standing), "trace_step": kernel(no_step), "end_condition": kernel(no_end)}}


def no_check(values):
    """Every parameter is valid on its own: nothing to check across them."""


def no_rounds(state):
    """The game has no rounds: a replay draws the table at the end only."""
    return 0


def empty_state(module):
    """``new_state`` of a game that writes none: an array of ``STATE_SIZE`` zeros of its ``STATE_DTYPE``."""
    return lambda: np.zeros(module.STATE_SIZE, module.STATE_DTYPE)


# optional names of the contract: name -> module -> what a game that does not define it gets
def same_names(params):
    """OpenSpiel's parameters of a game that maps none: the check passes those of the same names."""
    return dict(params)


OPTIONAL = {"check": lambda module: no_check, "new_state": empty_state, "round_of": lambda module: no_rounds,
            "openspiel_params": lambda module: same_names}


# The decisions a game may last unless it says otherwise (MAX_STEPS): far above what any shipped game reaches at
# its largest max_turns (a million turns of at most a few decisions each), so that their rows never change, and
# low enough that a game that never ends is a timeout within seconds, not a hang.
MAX_STEPS = 100_000_000

# optional jitted names of the contract: name -> what a game that does not define it gets
OPTIONAL_JITTED = {"rewind": kernel(no_rewind), "dealt": kernel(no_deal), "MAX_STEPS": MAX_STEPS, "ACTION_KINDS": (),
                   "action_kind": kernel(no_kind)}


def of(game_type):
    """The defaults of the capabilities ``game_type`` does not declare, and of the optional jitted names
    (:data:`OPTIONAL_JITTED`): name -> jitted function or value."""
    out = dict(OPTIONAL_JITTED)
    for flag, names in DEFAULTS.items():
        if game_type is not None and not getattr(game_type, flag):
            out.update(names)
    return out


def complete(module):
    """Give game ``module`` every default it lacks (:func:`of` its ``GAME``, then :data:`OPTIONAL`); what it
    defines itself stays."""
    for name, value in of(getattr(module, "GAME", None)).items():
        if not hasattr(module, name):
            setattr(module, name, value)
    for name, make in OPTIONAL.items():
        if not hasattr(module, name):
            setattr(module, name, make(module))
