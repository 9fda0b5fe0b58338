"""The names the templates (the agents of ``simcore.agents.core`` and the game loop of ``simcore.engine.loop``) call
a game by: unbound here, bound to one game's functions and sizes in each copy that
``simcore.engine.binding.instantiate`` compiles for it. One declaration, so that both template modules read the
same names and a reader finds what a copy binds in one place."""


def _unbound(*args):
    raise NotImplementedError("the game's interface functions are bound by simcore.engine.binding.instantiate()")


# The decision interface of the game (simcore.games.CONTRACT): each game's copy binds these names.
begin = current_player = legal_actions = apply_action = returns = resample = greedy_action = evaluate = write_row = \
    observed_action = revealed = num_players = rewind = dealt = greedy_among = _unbound
# The game's trace hooks (simcore.games.CAPABILITIES["trace"]): what a traced game loop records.
standing = trace_step = action_kind = end_condition = _unbound
play_action = _unbound      # how the templates apply an action: apply_checked or apply_unchecked (engine.loop)
INTERFACE = ("begin", "current_player", "legal_actions", "apply_action", "returns", "resample", "greedy_action",
             "evaluate", "observed_action", "revealed", "num_players", "rewind", "dealt", "write_row", "standing",
             "trace_step", "action_kind", "end_condition", "greedy_among")

# A game's own whole random game (simcore.games.OPTIONAL "random_game"): bound only in a game that has one, and
# played by loop.run_random_games alone.
prepare_random_game = random_game = _unbound
RANDOM_GAME = ("prepare_random_game", "random_game", "RANDOM_GAME_SCRATCH")
RANDOM_GAME_SCRATCH = None

# The game's scratch sizes, for the chunk's scratch (simcore.agents.core.scratch).
# MAX_STEPS: the decisions a game may last (simcore.games.OPTIONAL): one still running then is a timeout.
STATE_SIZE = STATE_DTYPE = MAX_ACTIONS = MAX_SEATS = WORK_SIZE = N_ACTION_CODES = MAX_STEPS = None
SIZES = ("STATE_SIZE", "STATE_DTYPE", "MAX_ACTIONS", "MAX_SEATS", "WORK_SIZE", "N_ACTION_CODES", "MAX_STEPS")
# The trace's sizes: the game's action kinds and the steps a trace holds.
N_KINDS = MAX_TRACE_STEPS = None
# What this copy compiles beyond random seats (simcore.engine.binding.USES), each a flag its branches test so that
# numba prunes what a run does not use before typing it: a first run compiles only the agents its seats play.
# PLAYS_GREEDY: greedy seats, and the greedy rollouts and widening of a search; MC_SEARCH: mc seats; TREE_SEARCH:
# ISMCTS over one tree keyed by codes; OBSERVED_SEARCH: the observed tree (``ismcts:tree=observed``, only in a game
# that declares what each seat observes of an action, GameType.observations); CUTS: playouts cut off and scored
# by the game's ``evaluate``.
PLAYS_GREEDY = MC_SEARCH = TREE_SEARCH = OBSERVED_SEARCH = CUTS = True
# Whether the game declares what each seat observes of an action (GameType.observations).
OBSERVED = False
