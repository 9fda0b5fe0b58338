"""Agents: who decides for a seat. Written once over the decision interface, they know no game.

A policy is a spec string ``NAME[:KEY=VALUE,...]``, e.g. ``random``, ``greedy`` or ``mc:rollouts=16``:

``random``   uniform over the legal actions (each game lists its actions so that this is its documented
             random policy, e.g. a Zwai card once per copy in hand)
``greedy``   the game's own one-ply heuristic, kept beside its rules
``mc``       flat Monte Carlo (``simcore.agents.core``)
``ismcts``   information-set MCTS (``simcore.agents.core``): one tree keyed by action codes, or with
             ``tree=observed`` one per seat keyed by what it observes; plain ``ismcts`` is the game's
             recommended search (``GameType.search``)

Every agent may be restricted to part of the game's kinds of move (``ACTION_KINDS``): ``forbid=KIND[+KIND...]``
never plays those kinds while a move of another kind (or of none) is legal, and ``prefer=KIND`` plays a move of
that kind whenever one is legal (``greedy:forbid=bribe_der``, ``ismcts:forbid=fish_0+fish_1``). Inside a search
the restriction binds the searching seat alone, in its tree and its rollouts (``simcore options`` reads what each
kind is worth from it).

The jitted code gets one row of floats per seat, the *agents table*: the agent's kind in column ``KIND``, then
each parameter in the column :data:`COLUMNS` names for it (a parameter with choices as the index of its value).
The agents read the columns by these names, so the order parameters are declared in changes nothing but the
order a spec string spells them in.
"""

from dataclasses import dataclass

import numpy as np

from simcore.params import Param

RANDOM, GREEDY, MC, ISMCTS = range(4)   # kinds: column KIND of the agents table
KIND = 0
MC_ROLLOUTS, MC_CUTOFF = 1, 2
IS_ITERATIONS, IS_C, IS_ROLLOUT, IS_CUTOFF, IS_WIDEN = 1, 2, 3, 4, 5
IS_TREE, IS_FINAL, IS_SELECT, IS_EXPLORE = 6, 7, 8, 9
# every agent's restriction: the forbidden kinds as a bit mask (bit k: ACTION_KINDS[k]), the preferred kind + 1
FORBID, PREFER = 10, 11
RESTRICTION = {"forbid": FORBID, "prefer": PREFER}
MAX_KINDS = 52          # kinds a mask holds exactly in a float64 column
# agent -> parameter -> its column in the agents table (the constants above, which the jitted agents read)
COLUMNS = {"random": dict(RESTRICTION), "greedy": dict(RESTRICTION),
           "mc": {"rollouts": MC_ROLLOUTS, "cutoff": MC_CUTOFF, **RESTRICTION},
           "ismcts": {"iterations": IS_ITERATIONS, "c": IS_C, "rollout": IS_ROLLOUT, "cutoff": IS_CUTOFF,
                      "widen": IS_WIDEN, "tree": IS_TREE, "final": IS_FINAL, "select": IS_SELECT,
                      "explore": IS_EXPLORE, **RESTRICTION}}
WIDTH = 12                          # columns of the agents table
# parameters added after specs were first recorded, and what each needs of the game (a GameType flag): a spec
# leaves them out of its canonical string while they are off, so that files, sweeps and names made before
# they existed keep their names
LATER = {"cutoff": 0, "widen": 0.0, "tree": "raw", "final": "most", "select": "ucb", "explore": 0.1, "forbid": "",
         "prefer": ""}
NEEDS = {("rollout", "greedy"): "heuristic", "cutoff": "evaluate", ("tree", "observed"): "observations"}
# a parameter's value that only means something beside another's: (key, value) -> (key, the value it needs)
BESIDE = {("select", "regret"): ("tree", "observed"), ("final", "average"): ("select", "regret")}


@dataclass(frozen=True)
class AgentType:
    name: str
    kind: int
    summary: str
    params: tuple = ()

    def defaults(self):
        return {p.name: p.default for p in self.params}


RESTRICTIONS = (Param("forbid", "", "kinds of move (simcore games GAME lists them) never played while a move of "
                      "another kind is legal, joined by +", allowed_text="the game's kinds of move, joined by +"),
                Param("prefer", "", "a kind of move played whenever one of it is legal",
                      allowed_text="one of the game's kinds of move"))

AGENTS = {a.name: a for a in (
    AgentType("random", RANDOM, "uniform over the legal actions, as simcore rules GAME defines it", RESTRICTIONS),
    AgentType("greedy", GREEDY, "the game's own one-ply heuristic (simcore rules GAME defines it); restricted, "
              "the heuristic's best allowed move (a game whose GameType declares restricted_greedy)", RESTRICTIONS),
    AgentType("mc", MC, "flat Monte Carlo: for each legal action, K rollouts, each in a world resampled from "
              "the mover's view and played to the end at random; the best mean return wins",
              (Param("rollouts", 16, "rollouts per legal action", 1, 100_000),
               Param("cutoff", 0, "decisions a rollout plays before the game's evaluate scores it (0: to the end "
                     "of the game)", 0, 1_000_000), *RESTRICTIONS)),
    AgentType("ismcts", ISMCTS, "information-set MCTS: each iteration resamples a world from the mover's view, "
              "descends by UCB1 (or regret matching) over the actions legal in it, adds a node, plays out and "
              "backs up every seat's return; plays the most-visited action (or a mixed strategy: final)",
              (Param("iterations", 1000, "search iterations per decision (the budget)", 1, 1_000_000),
               Param("c", 0.7, "UCB1 exploration constant", 0.0, 100.0),
               Param("rollout", "random", "how each iteration plays the game out", choices=("random", "greedy")),
               Param("cutoff", 0, "decisions a playout plays before the game's evaluate scores it for every seat "
                     "(0: to the end of the game)", 0, 1_000_000),
               Param("widen", 0.0, "progressive widening: a node visited n times may have floor(widen * (n+1)^0.5) "
                     "children, the greedy's action first (0: every legal action at once)", 0.0, 1000.0),
               Param("tree", "raw", "raw: one tree keyed by action codes; observed: one tree per seat, keyed by "
                     "what that seat observes of each action (multiple-observer ISMCTS; a game with hidden "
                     "actions)", choices=("raw", "observed")),
               Param("final", "most", "the action played: most: the root action chosen most often; visits: one drawn "
                     "in proportion to how often each was chosen (a mixed strategy, as hidden and simultaneous "
                     "moves need); average: one drawn from the average strategy of regret matching "
                     "(select=regret)", choices=("most", "visits", "average")),
               Param("select", "ucb", "how a seat chooses among its children in the tree: ucb: UCB1; regret: regret "
                     "matching, a mixed strategy (simultaneous-move MCTS), with the face-down moves of the round "
                     "the searcher has not seen played again by their seats' own strategies (tree=observed)",
                     choices=("ucb", "regret")),
               Param("explore", 0.1, "select=regret: the share of each choice drawn uniformly (exploration)",
                     0.0, 1.0), *RESTRICTIONS)),
)}


def column_gaps(agents=None):
    """What is wrong with :data:`COLUMNS` for ``agents`` (name -> AgentType; :data:`AGENTS`): a declared parameter
    without a column, a column named for no parameter, two parameters of one agent in one column, or a column
    outside the table. Empty for simcore's agents (checked at import)."""
    gaps = []
    for name, agent in (agents or AGENTS).items():
        columns = COLUMNS.get(name, {})
        declared = {p.name for p in agent.params}
        gaps += [f"{name}.{key} has no column" for key in declared - set(columns)]
        gaps += [f"{name} has a column for {key}, which it does not declare" for key in set(columns) - declared]
        if len(set(columns.values())) < len(columns) or not all(KIND < c < WIDTH for c in columns.values()):
            gaps.append(f"{name}'s columns {columns} are not distinct ones from {KIND + 1} to {WIDTH - 1}")
    return gaps


_GAPS = column_gaps()
if _GAPS:
    raise ImportError(f"simcore.agents: {'; '.join(_GAPS)}")


@dataclass(frozen=True)
class Spec:
    """A parsed policy spec: the agent and every parameter's value."""

    name: str
    values: tuple = ()              # (key, value) in declaration order
    quiet: tuple = tuple(LATER)     # the LATER parameters left out while off: those the game's defaults leave off
    kinds: tuple = ()               # the game's kinds of move by name, where the spec forbids or prefers one

    def __str__(self):
        """The canonical spec string (every parameter spelled out, but those of ``quiet`` while they are off):
        what configs and metadata record. A game whose recommended search turns a LATER parameter on spells it
        out even when off, so that the string reads back as the same spec."""
        shown = [(key, value) for key, value in self.values if key not in self.quiet or LATER[key] != value]
        if not shown:
            return self.name
        return self.name + ":" + ",".join(f"{key}={value}" for key, value in shown)

    def row(self):
        """This seat's row of the agents table."""
        out = np.zeros(WIDTH, np.float64)
        out[KIND] = AGENTS[self.name].kind
        params = {p.name: p for p in AGENTS[self.name].params}
        for key, value in self.values:
            if key in RESTRICTION:
                continue
            out[COLUMNS[self.name][key]] = params[key].choices.index(value) if params[key].choices else value
        values = dict(self.values)
        out[FORBID] = sum(2.0 ** self.kinds.index(kind) for kind in _kinds_named(values.get("forbid", "")))
        out[PREFER] = self.kinds.index(values["prefer"]) + 1 if values.get("prefer") else 0
        return out

    @property
    def restricted(self):
        """Does it forbid or prefer a kind of move?"""
        values = dict(self.values)
        return bool(values.get("forbid") or values.get("prefer"))


def _kinds_named(text):
    return [kind for kind in text.split("+") if kind] if text else []


def parse(text, allowed, kinds=(), params=None):
    """Parse a spec string; ``allowed`` is the game's ``GameType`` (its policies, and the capabilities a
    parameter may need: ``rollout=greedy`` its heuristic, ``cutoff`` its evaluate) or just the names of the
    agents it offers; ``kinds`` the game's kinds of move (its module's ``ACTION_KINDS``), which a restriction
    names; ``params`` the variant's parameters (None: the game's defaults), which pick the recommended search
    plain ``ismcts`` means (``GameType.recommended``). Raises ValueError in one line."""
    game_type = None if isinstance(allowed, tuple | list) else allowed
    if game_type is not None:
        allowed = game_type.policies
    recommended, spelled = {}, set()
    if game_type is not None:
        recommended = dict(game_type.recommended(params)[0])
        spelled = {key for pairs in game_type.searches() for key, value in pairs if LATER.get(key, value) != value}
    spec = _parse(text, allowed, recommended, spelled)
    spec = _restriction(spec, game_type, tuple(kind if isinstance(kind, str) else kind[0] for kind in kinds))
    values = dict(spec.values)
    for (key, value), (other, needed) in BESIDE.items():
        if values.get(key) == value and values.get(other) != needed:
            raise ValueError(f"policy {spec.name}: {key}={value} needs {other}={needed}, and {other} is "
                             f"{values.get(other)}; allowed: {other}={needed} beside it")
    for key, value in spec.values:
        flag = NEEDS.get((key, value)) or (NEEDS.get(key) if value != LATER.get(key) else None)
        if game_type is not None and flag and not getattr(game_type, flag):
            raise ValueError(f"policy {spec.name}: {key}={value} needs the game's {flag}, and {game_type.name} "
                             f"declares none; allowed: {key}={AGENTS[spec.name].defaults()[key]}")
    return spec


def _restriction(spec, game_type, kinds):
    """``spec`` with its forbidden and preferred kinds checked against the game's (``ACTION_KINDS``) and spelled
    in their order, and the game's kinds kept for :meth:`Spec.row`. Raises ValueError in one line."""
    values = dict(spec.values)
    named = _kinds_named(values.get("forbid", "")) + _kinds_named(values.get("prefer", ""))
    if not named:
        return spec
    where = f"policy {spec.name}"
    if len(kinds) > MAX_KINDS:
        raise ValueError(f"{where}: {game_type.name} declares {len(kinds)} kinds of move, too many to restrict; "
                         f"allowed: at most {MAX_KINDS}")
    for kind in named:
        if kind not in kinds:
            listed = ", ".join(kinds) if kinds else f"none: {game_type.name if game_type else 'the game'} declares no "\
                                                    "kinds of move"
            raise ValueError(f"{where}: {kind!r} is not a kind of move; allowed: {listed}")
    forbidden = _kinds_named(values.get("forbid", ""))
    if len(set(forbidden)) < len(forbidden):
        raise ValueError(f"{where}: forbid={values['forbid']} names a kind twice; allowed: each kind once")
    if values.get("prefer") in forbidden:
        raise ValueError(f"{where}: prefer={values['prefer']} is forbidden too; allowed: a kind that is not "
                         "forbidden")
    if len(forbidden) == len(kinds):
        raise ValueError(f"{where}: forbid={values['forbid']} forbids every kind of move; allowed: some kinds left")
    plays_greedy = spec.name == "greedy" or values.get("rollout") == "greedy"
    if plays_greedy and game_type is not None and not game_type.restricted_greedy:
        raise ValueError(f"{where}: {game_type.name}'s greedy ranks only its own pick, so it cannot be restricted "
                         "(the game writes no greedy_among); allowed: random, mc or ismcts with rollout=random "
                         "restricted")
    values["forbid"] = "+".join(kind for kind in kinds if kind in forbidden)
    return Spec(spec.name, tuple(values.items()), spec.quiet, kinds)


def _parse(text, allowed, recommended, spelled=frozenset()):
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"policy {text!r} is not a spec; allowed: NAME[:KEY=VALUE,...] with NAME one of "
                         f"{', '.join(allowed)}")
    name, colon, rest = text.strip().partition(":")
    name = name.strip()
    if name not in allowed:
        raise ValueError(f"unknown policy {name!r}; allowed: {', '.join(allowed)}")
    agent = AGENTS[name]
    values = agent.defaults()
    if name == "ismcts":     # the game's recommended search (GameType.search) in place of the defaults
        values.update(recommended)
    given = set()
    items = [part.strip() for part in rest.split(",")] if colon else []
    if "" in items:     # "mc:" or "mc:rollouts=4,,": refused rather than guessed at
        raise ValueError(f"policy {text.strip()!r} has an empty parameter; allowed: {name} alone or "
                         f"{name}:KEY=VALUE[,KEY=VALUE...]")
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        known = {p.name: p for p in agent.params}
        if key not in known:
            keys = ", ".join(known) or "none"
            raise ValueError(f"policy {name} has no parameter {key!r}; allowed: {keys}")
        if not sep:
            raise ValueError(f"policy {name}: {item!r} has no value; allowed: {key}=VALUE")
        if key in given:
            raise ValueError(f"policy {text.strip()!r} sets {key} twice; allowed: each parameter once")
        given.add(key)
        values[key] = _value(name, known[key], raw.strip())
    # a LATER parameter any of the game's recommended searches turns on is spelled out even when off: the string
    # then reads back as the same spec in every variant
    _unneeded(values, given, agent)
    quiet = tuple(key for key in LATER if key not in spelled or name != "ismcts")
    return Spec(name, tuple(values.items()), quiet)


def _unneeded(values, given, agent):
    """Put back the agent's default of a recommended value (not ``given``) that only means something beside
    another's the spec changed (:data:`BESIDE`): ``ismcts:tree=raw`` where the game recommends the regret
    search is the UCB1 search on the raw tree, not a regret search refused for want of its tree."""
    defaults = agent.defaults()
    changed = True
    while changed:
        changed = False
        for (key, value), (other, needed) in BESIDE.items():
            if key not in given and values.get(key) == value and values.get(other) != needed:
                values[key] = defaults[key]
                changed = True


def _value(agent, param, raw):
    try:
        value = param.kind(raw)
    except ValueError:
        value = None
    if value is None or (param.low is not None and not param.low <= value <= param.high) or (
            param.choices and value not in param.choices):
        raise ValueError(f"policy {agent}: {param.name} = {raw!r} is not allowed; allowed: {param.allowed()}")
    return value


def search_gaps(game_type):
    """What is wrong with a game's recommended searches (``GameType.search`` and each of ``search_by``): each
    must parse as an ismcts spec for the game. Empty when they do, or when the game recommends none."""
    gaps = []
    for pairs in game_type.searches():
        if not pairs:
            continue
        text = "ismcts:" + ",".join(f"{key}={value}" for key, value in pairs)
        try:
            parse(text, game_type)
        except ValueError as e:
            gaps.append(f"a recommended search that parses as {text} ({e})")
    return gaps


def describe(name):
    """Lines for ``simcore games``: the spec with its defaults and what it does, then each parameter."""
    agent = AGENTS[name]
    return [f"{Spec(name, tuple(agent.defaults().items()))}: {agent.summary}",
            *(f"    {p.name} = {p.default}: {p.help} ({p.allowed()})" for p in agent.params if p not in RESTRICTIONS)]


def describe_restrictions():
    """The lines of the restriction every agent takes (``simcore games``, after the agents)."""
    return ["every policy may be restricted to part of the game's kinds of move (simcore games GAME lists them):",
            *(f"    {p.name}=: {p.help}" for p in RESTRICTIONS),
            "    e.g. greedy:forbid=bribe_der, ismcts:iterations=1000,prefer=fish_3; inside a search the "
            "restriction binds the searching seat alone, in its tree and its rollouts"]
