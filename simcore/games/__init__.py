"""The game registry: every game announces its name, players and parameters.

Modelled on OpenSpiel's registry: a game module defines one :class:`GameType`
named ``GAME`` and registers its package in the entry point group ``simcore.games`` (:data:`GROUP`) of its
distribution: simcore's own games in simcore's pyproject, a designer's game in its own (``simcore new-game``
writes it), so that installing the package makes the game known; :data:`MODULES` holds them all.
``simcore games`` reads the registry; the config layer validates user input against ``GAME.params``; the
engine runs the game loop that :func:`simcore.engine.binding.bind` compiles for the game.

This module states the whole contract of a game: :data:`CONTRACT` names what every game module provides,
:data:`CAPABILITIES` what it provides for each capability its ``GameType`` declares (a game without hidden
information declares ``hidden_information=False`` and writes no ``resample``; one without a trace ``trace=False``),
:data:`OPTIONAL` what it may leave to a default. :func:`load` checks them, names every missing piece in one line,
and completes the module with the defaults of what it leaves out (``simcore.games.defaults``). A game's rules in
words, as simulated, are ``rules.md`` in its package (:func:`rules_text`). ``docs/how-to/adding-a-game.md`` walks
through a game module.
"""

import copy
import importlib
import re
import tomllib
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from importlib.resources import files
from typing import NamedTuple

# a game declares its parameters with Param (from simcore.games import Param, as every game's rules do)
from simcore.params import ConfigError, Param, check_param  # noqa: F401

DATA = files("simcore") / "data"   # shipped formations and yards: package data, found wherever simcore is installed

GROUP = "simcore.games"
# simcore's own games, as its pyproject registers them: also known in a source tree that is not installed, and
# never shadowed by another package registering one of their names
BUILT_IN = {
    "zwergen": "simcore.games.zwergen",
    "zwai": "simcore.games.zwai",
    "wichtel": "simcore.games.wichtel",
    "skirmish": "simcore.games.skirmish",
    "goofspiel": "simcore.games.goofspiel",
}
NAME = re.compile(r"[a-z][a-z0-9_]*")     # a game's name: a command-line word, a cache folder's and a module's


def registered(notes=None):
    """Every game of the entry point group :data:`GROUP`, name -> its package: simcore's own first, then the
    others by name. A name that is no lower-case identifier, or that would shadow one of simcore's own, is left
    out; of two packages registering one name, the first by package name is taken. Each of these is said in one
    line into the list ``notes`` (``simcore games`` prints them), never left unsaid."""
    found = dict(BUILT_IN)
    notes = [] if notes is None else notes
    for point in sorted(entry_points(group=GROUP), key=lambda p: (p.name, p.value)):
        name, package = point.name, point.value
        where = f"the entry point {name} = {package}{_distribution(point)}"
        if not NAME.fullmatch(name):
            notes.append(f"{where} is left out: {name!r} cannot name a game; allowed: a lower-case name of "
                         "letters, digits and _, starting with a letter")
        elif name in BUILT_IN:
            if package != BUILT_IN[name]:
                notes.append(f"{where} is left out: it would shadow simcore's own game {name}; allowed: a name "
                             "of its own")
        elif found.setdefault(name, package) != package:
            notes.append(f"{where} is left out: game {name} is registered by {found[name]} too, which is taken "
                         "(the first by package name); allowed: one package per game name")
    return found


def _distribution(point):
    """`` (distribution simcore-x)`` of an entry point, where its metadata names one."""
    dist = getattr(point, "dist", None)
    return f" (distribution {dist.name})" if dist is not None and dist.name else ""


NOTES = []          # what registered() left out, one line each
MODULES = registered(NOTES)


class Reading(NamedTuple):
    """A parameter that reads the rulebook where it is silent or ambiguous: every value its words allow (ours,
    the default, among them) and what the rulebook leaves open, in a few words. A verdict that changes with the
    reading is the simulator's as much as the rules' (``simcore readings``)."""

    param: str
    values: tuple
    gap: str


@dataclass(frozen=True)
class GameType:
    """What a game announces about itself."""

    name: str
    long_name: str
    rulebook: str             # title, designer and publisher of the printed rules
    player_counts: tuple
    policies: tuple           # policy names; position = policy id in the jitted code
    params: tuple             # of Param
    summary: str = ""
    rules_version: int = 1    # bumped when the rows of a config and seed change (a rule changed on purpose)
    # capabilities, as OpenSpiel's GameType declares its information and chance modes
    hidden_information: bool = True   # a seat cannot see everything: the module provides resample
    chance: bool = True               # the rules draw at random (deals, dice, prize order)
    heuristic: bool = True            # a greedy heuristic: greedy_action, WORK_SIZE, and "greedy" among policies
    evaluate: bool = True             # an estimate of each seat's return from a state: evaluate (search cut-offs)
    picture: bool = True              # the module draws its board for replays: draw_board
    trace: bool = True                # the trace hooks: run --trace records how decided its games are
    # its greedy ranks any set of moves (greedy_among): a greedy restricted to part of the kinds of move
    # (greedy:forbid=KIND) plays the heuristic's best allowed move
    restricted_greedy: bool = False
    # some actions are not seen whole by every seat (a card called face down): observed_action, num_players,
    # and ismcts may key its trees by what each seat observes (tree=observed)
    observations: bool = False
    maps: tuple = ()                  # parameters that take a shipped named map (Zwai's formation)
    # the recommended ismcts, (parameter, value) pairs in place of the agent's defaults, chosen by measurement
    # (docs/explanation/agents.md): `ismcts:iterations=1000` is this game's strong player
    search: tuple = ()
    # the recommended ismcts by variant, where one search cannot serve every variant (Goofspiel's 4 cards and its
    # 13): rules (conditions, pairs, strength), the first whose conditions all hold used in place of `search` and
    # `strength`; a condition (parameter, low, high) holds where low <= the variant's value <= high
    search_by: tuple = ()
    # the parameters that read a silent or ambiguous rulebook: (parameter, its values, the gap), each a Reading.
    # A numeric decision (a deck's counts, a hit chance) is data the rulebook lacks, not a reading of its words
    readings: tuple = ()
    # the unit of a seat's score (the result column score_i, more being better), a noun after a number ("prize
    # points"): the game declares a margin, a seat's score less the table's mean (``--score margin``); "" for none
    margin: str = ""
    # the name of the same game in OpenSpiel (pyspiel.load_game), "" for none: simcore check plays the two side by
    # side (the module provides openspiel_chance), its parameters of the same names taking the case's values
    openspiel: str = ""
    # how strong the recommended search is, measured on fresh deals (not those it was chosen on), in words:
    # "0.978 [0.954, 0.994] against greedy (200 deals x 2 seats, seed 9173)"; simcore games prints it
    strength: str = ""
    cases: tuple = field(default=(), compare=False)   # parameter sets (dicts) the conformance suite plays too
    param_index: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "param_index", {p.name: p for p in self.params})
        object.__setattr__(self, "readings", tuple(Reading(*reading) for reading in self.readings))

    @property
    def doc(self):
        """Where a user reads the rules as simulated, decisions included: the command that prints them."""
        return f"simcore rules {self.name}"

    def defaults(self):
        return {p.name: copy.deepcopy(p.default) for p in self.params}

    def recommended(self, params=None):
        """(pairs, strength) of the recommended search for the variant of ``params`` (a resolved parameter dict;
        None or a parameter left out: its default): the first rule of ``search_by`` it meets, else ``search``."""
        values = {**self.defaults(), **(params or {})}
        for conditions, pairs, strength in self.search_by:
            if all(low <= values[name] <= high for name, low, high in conditions):
                return tuple(pairs), strength
        return self.search, self.strength

    def searches(self):
        """Every recommended search the game declares, the default's first: their pairs."""
        return [self.search] + [tuple(pairs) for _, pairs, _ in self.search_by]

    def capabilities(self):
        """The capabilities it declares, in words (``simcore games``)."""
        flags = {"hidden information": self.hidden_information, "chance": self.chance,
                 "a greedy heuristic": self.heuristic, "an evaluation": self.evaluate, "a picture": self.picture,
                 "hidden actions": self.observations, "a trace": self.trace}
        words = [name if on else f"no {name.removeprefix('a ').removeprefix('an ')}" for name, on in flags.items()]
        return ", ".join(words + [f"named maps for {', '.join(self.maps)}"] * bool(self.maps))


# What every game module provides: name -> what it is. The jitted interface and the scratch sizes are bound into
# the game's copy of the agents and game loop (simcore.engine.binding.bind).
CONTRACT = {
    "GAME": "its GameType: name, players, policies, parameters, rules version",
    "MAX_SEATS": "the largest player count (fixes the result layout)",
    "EXTRA_COLUMNS": "(name, kind, meaning) of its own result columns",
    "params_array": "resolved parameter dict -> the flat int64 array the jitted code reads",
    "STATE_SIZE": "the state array's length", "STATE_DTYPE": "its integer type",
    "MAX_ACTIONS": "the most legal actions a state can have", "N_ACTION_CODES": "every action code is below it",
    "begin": "jitted: set up a game from the streams", "current_player": "jitted: the seat to move, -1 at the end",
    "legal_actions": "jitted: fill a list, return its length", "apply_action": "jitted: play an action",
    "returns": "jitted: each seat's return", "write_row": "jitted: the result row of a game",
    "action_to_string": "an action in the game's words",
    "information_state_string": "what a seat knows, as text", "state_to_string": "the whole state, as text",
}
# What a game module provides for each capability its GameType declares: flag -> {name: what it is}.
CAPABILITIES = {
    "hidden_information": {"resample": "jitted: redraw what a seat cannot see"},
    "heuristic": {"greedy_action": "jitted: the greedy heuristic's action",
                  "WORK_SIZE": "the length of greedy_action's scratch"},
    "evaluate": {"evaluate": "jitted: (state, params, seat, out) each seat's expected return, as seat sees the "
                             "state (ismcts cutoff=D scores a playout with it)"},
    "observations": {"observed_action": "jitted: (state, params, action, observer) the code of what observer "
                                        "sees of the action about to be played: the action itself, or the code "
                                        "of its class (ismcts tree=observed keys each seat's tree by it)",
                     "revealed": "jitted: (state, params, action, observer) the code of what the action about "
                                 "to be played shows observer of what was hidden before (the last face-down bid "
                                 "shows every bid), -1 for nothing",
                     "num_players": "jitted: (params) the player count"},
    "picture": {"draw_board": "(state, params) -> the board as SVG, for replays (simcore.watch.pictures)"},
    "restricted_greedy": {"greedy_among": "jitted: (state, params, seat, streams, work, listed, n) the greedy "
                                          "heuristic's move among listed[:n], the moves a restriction allows "
                                          "(greedy_action's, given every legal move)"},
    "openspiel": {"openspiel_chance": "(state, params) -> the chance outcomes drawn so far, as OpenSpiel's "
                                      "chance nodes name them, in the order OpenSpiel draws them"},
    # the trace (run --trace): how decided a game is (its kinds of move, OPTIONAL below, are counted too)
    "trace": {
        "TRACE_STANDING": "what a seat's standing counts (fish banked, points, ...), in words",
        "TRACE_STEP": "'round' or 'turn': the step after which the trace records every seat's standing",
        "MAX_TRACE_STEPS": "the steps a trace holds (past them, the last holds the end)",
        "END_CONDITIONS": "(name, meaning) of each way a game ends by its rules",
        "standing": "jitted: (state, params, out) each seat's standing, from what every seat sees",
        "trace_step": "jitted: (state, params) the step count (rounds finished, turns played)",
        "end_condition": "jitted: (state, params) the index in END_CONDITIONS of how a finished game ended",
    },
}
# What a game module may leave out, and what it gets then (simcore.games.defaults.OPTIONAL): name -> what it is.
OPTIONAL = {
    "check": "resolved parameter dict -> ValueError if inconsistent (default: nothing to check across them)",
    "new_state": "an empty state array (default: STATE_SIZE zeros of STATE_DTYPE)",
    "round_of": "the round a state is in, for replays to mark round ends (default: no rounds)",
    "openspiel_params": "resolved parameter dict -> the parameters of the OpenSpiel game the check plays beside it "
                        "(a ValueError skips that case, with its words); default: OpenSpiel's parameters of the "
                        "same names, a case setting one OpenSpiel does not take skipped",
    "rewind": "jitted: (state, params, seat) take back the face-down moves of the current round that seat has not "
              "seen (the round's start, as seat saw it; ismcts select=regret lets their seats choose them again); "
              "returns how many (default: takes back nothing)",
    "dealt": "jitted: (state, params, observer) just after an action, the code of what chance dealt face up with "
             "it that observer sees (Goofspiel's next prize), else -1; ismcts select=regret keys its trees by it, "
             "so a seat's later choices are apart for each card it saw dealt (default: deals nothing)",
    "ACTION_KINDS": "(name, meaning) of each kind of move, the meaning a noun phrase ('a 3-fish card'): what a "
                    "policy may forbid or prefer (forbid=KIND, simcore options) and a trace counts (default: none)",
    "action_kind": "jitted: (state, params, action) the index in ACTION_KINDS of the action about to be played, -1 "
                   "for a decision of no kind (default: every action is of none)",
    "random_game": "jitted: (params, scratch, streams, seed, game_index, row) a whole game of random seats, "
                   "seeded and written as the game loop plays and writes it (runs of random seats alone play it); "
                   "with prepare_random_game (jitted and plain Python: (params, scratch) fill the scratch, False "
                   "for a variant it does not take) and RANDOM_GAME_SCRATCH (the scratch's int64 length). The check "
                   "own-random-game holds it to the game loop's rows (default: the game loop plays them)",
    "MAX_STEPS": "the most decisions a game lasts: the engine stops a game still running after them (and a search's "
                 "playout too) and marks its row a timeout: timeout 1 and no seat's win, its scores as write_row "
                 "wrote them (default: 100,000,000, above what every shipped game reaches at its largest "
                 "max_turns)",
}


def required(game_type):
    """Every name a game module with this ``GameType`` provides: the contract, then its capabilities' names."""
    names = list(CONTRACT)
    for flag, provided in CAPABILITIES.items():
        if game_type is None or getattr(game_type, flag):
            names += provided
    return names


def contract_gaps(module):
    """The names a game module does not provide (of :data:`CONTRACT` and of its declared capabilities), and
    the contradictions of its ``GameType`` (greedy among the policies without a heuristic, or the reverse). Its
    recommended search is the agents' to judge (``simcore.agents.search_gaps``; ``simcore check`` asks)."""
    game_type = getattr(module, "GAME", None)
    gaps = [name for name in required(game_type) if not hasattr(module, name)]
    if game_type is not None and game_type.heuristic != ("greedy" in game_type.policies):
        gaps.append("'greedy' among its policies exactly when it declares a heuristic")
    if game_type is not None and not counts_fit(game_type.player_counts, getattr(module, "MAX_SEATS", None)):
        gaps.append("one or more player counts (GameType.player_counts), each a whole number from 1 to MAX_SEATS")
    if game_type is not None:
        gaps += reading_gaps(game_type) + search_by_gaps(game_type)
    return gaps


def search_by_gaps(game_type):
    """What is wrong with the shape of a ``GameType``'s ``search_by`` (every variant's plain ``ismcts`` reads it):
    each rule (conditions, pairs, strength), a condition (parameter, low, high) on a parameter of the game, a
    pair (key, value). Whether a rule's search parses is the agents' to judge (``simcore check``)."""
    rules = game_type.search_by
    if not isinstance(rules, tuple):
        return ["search_by, a tuple of (conditions, pairs, strength) rules"]
    gaps = []
    for i, rule in enumerate(rules):
        where = f"search_by rule {i}"
        if not (isinstance(rule, tuple) and len(rule) == 3 and isinstance(rule[2], str)):
            gaps.append(f"{where}, a (conditions, pairs, strength) tuple")
            continue
        conditions, pairs, _ = rule
        if not (isinstance(conditions, tuple) and conditions and all(
                isinstance(c, tuple) and len(c) == 3 and c[0] in game_type.param_index for c in conditions)):
            gaps.append(f"{where}'s conditions, one or more (parameter, low, high) on the game's parameters")
        if not (isinstance(pairs, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in pairs)):
            gaps.append(f"{where}'s search, (key, value) pairs")
    return gaps


def counts_fit(counts, max_seats):
    """Are ``counts`` a game's player counts: one or more, each from 1 to ``max_seats`` (any, when unknown)? A
    game without one could set up no table, and every command would fail later, far from the cause."""
    top = max_seats if isinstance(max_seats, int) else float("inf")
    whole = [n for n in counts if isinstance(n, int) and not isinstance(n, bool)] if isinstance(counts, tuple) else []
    return bool(counts) and len(whole) == len(counts) and all(1 <= n <= top for n in whole)


def reading_gaps(game_type):
    """What is wrong with a ``GameType``'s readings: each must name a parameter, give two or more distinct values
    it allows, its default among them, and say what the rulebook leaves open."""
    gaps = []
    for param, values, gap in game_type.readings:
        where = f"a reading of {param!r} that"
        if param not in game_type.param_index:
            gaps.append(f"{where} names one of its parameters")
            continue
        declared = game_type.param_index[param]
        try:
            allowed = [check_param(declared, value) for value in values]
        except ConfigError as e:
            gaps.append(f"{where} gives values it allows ({e})")
            continue
        if len(allowed) < 2 or any(allowed.count(value) > 1 for value in allowed):
            gaps.append(f"{where} gives two or more distinct values")
        if declared.default not in allowed:
            gaps.append(f"{where} counts its default {declared.default!r} among its values")
        if not (isinstance(gap, str) and gap.strip()):
            gaps.append(f"{where} says what the rulebook leaves open")
    return gaps


def names():
    return list(MODULES)


def rules_text(name):
    """The rules of game ``name`` as simulated, decisions included: the Markdown page ``rules.md`` of its
    package, shipped inside the wheel (``simcore rules``; the docs site shows the same page)."""
    if name not in MODULES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(MODULES)}")
    return (files(MODULES[name]) / "rules.md").read_text(encoding="utf-8")


class GameLoadError(ValueError):
    """A registered game that cannot be loaded: its package fails to import or breaks the contract (one line)."""


def load(name):
    """The module of game ``name`` (imported on first use), its contract checked: GameLoadError in one line,
    naming the game and its package, when it fails to import or breaks the contract."""
    if name not in MODULES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(MODULES)}")
    package = MODULES[name]
    try:
        module = importlib.import_module(package)
    except Exception as e:     # a designer's package may fail in any way while importing: never a traceback
        raise GameLoadError(f"game {name} (package {package}) cannot be loaded: {_first_line(e)}") from None
    missing = contract_gaps(module)
    if missing:
        raise GameLoadError(f"game {name} (package {package}) cannot be loaded: it does not provide "
                            f"{', '.join(missing)}; allowed: a module with every name of simcore.games.CONTRACT "
                            "and of its CAPABILITIES")
    from simcore.games import defaults  # (jitted: numba loads with the first game)
    defaults.complete(module)
    return module


def _first_line(error):
    """An exception in one line: its kind and the first line of its message (a syntax error names its file and
    line there)."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


class StateView:
    """Base of a game's named views into its flat state array (for tests, debugging, notebooks).

    Like OpenSpiel's observers: the subclass names the array pieces (``hands``, ``shoal`` ...); every scalar
    offset ``S_NAME`` of the game module also reads as ``view.name``.
    """

    offsets = {}                # lower-case name -> offset; set by each game's subclass

    def __init__(self, state):
        self.state = state

    def __getattr__(self, name):
        offset = type(self).offsets.get(name)
        if offset is None:
            raise AttributeError(name)
        return int(self.state[offset])


def scalar_offsets(namespace):
    """The ``S_*`` offsets of a game module's namespace, by lower-case name."""
    return {key[2:].lower(): value for key, value in namespace.items() if key.startswith("S_")}


def shipped_maps(path):
    """name -> (description, ASCII art) of a shipped TOML file of named maps (formations, yards)."""
    with path.open("rb") as f:
        table = tomllib.load(f)
    return {name: (entry.get("description", ""), entry["cells"]) for name, entry in table.items()}
