"""The jitted agents and the game loop, written once over the decision interface.

They call the game's interface functions by name (``legal_actions``, ``apply_action``, ...). Each game module
gets its own compiled copy with :func:`instantiate`, which binds these names to the game's functions::

    play_game = core.instantiate(globals())["play_game"]   # in simcore/games/<game>.py

and calls ``play_game`` from its own module-level ``run_batch``. Why not pass the game's functions as
arguments: numba lowers a jitted function used as a value to its address in this process, and a function
holding such an address is never cached (measured: every new process compiled again). A copy per game with its
own cache name is cached like any other function.

Scratch arrays are allocated once per chunk by the game's ``run_batch`` and reused for every game, decision and
rollout: nothing here allocates.

``states``   [3, state size]  0: the game, 1: a world resampled from the mover's view, 2: a rollout in it
``streams``  [3, streams]     the same three
``actions``  [2, MAX_ACTIONS] 0: a legal-action list, 1: the distinct candidates of a search
``floats``   [MAX_ACTIONS + MAX_SEATS]  the candidates' summed returns, then one rollout's returns
``work``     the game's own scratch for ``greedy_action``
"""

import types

from simcore import rng
from simcore.agents import GREEDY, MC, RANDOM
from simcore.jit import kernel

GAME, WORLD, ROLLOUT = 0, 1, 2
LIST, CANDIDATES = 0, 1


def _unbound(*args):
    raise NotImplementedError("the game's interface functions are bound by instantiate()")


# The decision interface of the game (see docs and simcore.games): each game's copy binds these names.
begin = current_player = legal_actions = apply_action = returns = resample = greedy_action = write_row = _unbound


def random_action(state, params, seat, streams, actions):
    """Uniform over the legal-action list, from the seat's policy stream. A game may define its own
    ``random_action`` that draws the same action from the same number without listing them all (see
    ``OWN``); tests hold it to this one."""
    return actions[rng.randint(streams, rng.POLICY + seat, legal_actions(state, params, actions))]


def playout(state, params, streams, actions):
    """Random play to the end of the game (or its ``max_turns``)."""
    seat = current_player(state, params)
    while seat >= 0:
        apply_action(state, params, random_action(state, params, seat, streams, actions), streams)
        seat = current_player(state, params)


def distinct(actions, n, out):
    """The distinct codes of ``actions[:n]`` in order of first appearance; returns how many."""
    m = 0
    for i in range(n):
        seen = False
        for j in range(m):
            if out[j] == actions[i]:
                seen = True
                break
        if not seen:
            out[m] = actions[i]
            m += 1
    return m


def best_of(values, m, streams, seat):
    """Index of the highest of ``values[:m]``; ties drawn from the seat's policy stream."""
    best = values[0]
    for i in range(1, m):
        best = max(best, values[i])
    tied = 0
    for i in range(m):
        tied += values[i] == best
    pick = rng.randint(streams, rng.POLICY + seat, tied)
    for i in range(m):
        if values[i] == best:
            if pick == 0:
                return i
            pick -= 1
    return -1


def copy(source, target):
    """``target[:] = source`` for two rows of one scratch array: numba's slice assignment would check for
    overlap and may copy through a temporary, which needs an allocation."""
    for i in range(source.shape[0]):
        target[i] = source[i]


def mc_action(params, seat, rollouts, states, streams, actions, floats):
    """Flat Monte Carlo: every distinct legal action is tried in the same ``rollouts`` worlds, each resampled
    from the mover's view (so it never peeks) and played out at random; the best total return wins.

    Trying every action in the same worlds with the same rollout streams compares them on common random
    numbers. A lone legal action is played without search."""
    game = states[GAME]
    n = legal_actions(game, params, actions[LIST])
    candidates = actions[CANDIDATES]
    m = distinct(actions[LIST], n, candidates)
    if m == 1:
        return candidates[0]
    values = floats[:m]
    ret = floats[actions.shape[1]:]
    values[:] = 0.0
    for _ in range(rollouts):
        copy(game, states[WORLD])
        rng.fork(streams[GAME], rng.SEARCH + seat, streams[WORLD])
        resample(states[WORLD], params, seat, streams[WORLD])
        for i in range(m):
            copy(states[WORLD], states[ROLLOUT])
            copy(streams[WORLD], streams[ROLLOUT])
            apply_action(states[ROLLOUT], params, candidates[i], streams[ROLLOUT])
            playout(states[ROLLOUT], params, streams[ROLLOUT], actions[LIST])
            returns(states[ROLLOUT], params, ret)
            values[i] += ret[seat]
    return candidates[best_of(values, m, streams[GAME], seat)]


def all_random(agents):
    for seat in range(agents.shape[0]):
        if agents[seat, 0] != RANDOM:
            return False
    return True


def play_game(params, agents, seed, game_index, states, streams, actions, floats, work, row):
    """One game with the agent of ``agents[seat]`` deciding for each seat; writes the result row."""
    game = states[GAME]
    live = streams[GAME]
    rng.seed_streams(live, seed, game_index)
    begin(game, params, live)
    if all_random(agents):
        playout(game, params, live, actions[LIST])   # the same draws, without asking each seat's agent
    seat = current_player(game, params)
    while seat >= 0:
        kind = int(agents[seat, 0])
        if kind == RANDOM:
            action = random_action(game, params, seat, live, actions[LIST])
        elif kind == GREEDY:
            action = greedy_action(game, params, seat, live, work)
        elif kind == MC:
            action = mc_action(params, seat, int(agents[seat, 1]), states, streams, actions, floats)
        else:
            action = -1
        apply_action(game, params, action, live)
        seat = current_player(game, params)
    write_row(game, params, row)


INTERFACE = ("begin", "current_player", "legal_actions", "apply_action", "returns", "resample", "greedy_action",
             "write_row")
TEMPLATES = (random_action, playout, all_random, distinct, best_of, copy, mc_action, play_game)
OWN = ("random_action",)    # templates a game may replace with its own faster equivalent


def instantiate(game_globals):
    """Compile the agents for one game: name -> jitted function, the interface names bound to the game's.

    Each copy is cached under the game's name (numba names a cache entry after the file and the qualified
    name), so the games' copies never collide."""
    namespace = dict(globals())
    namespace.update({name: game_globals[name] for name in INTERFACE})
    game = game_globals["__name__"].rpartition(".")[2]
    compiled = {}
    for name in OWN:
        if name in game_globals:
            namespace[name] = compiled[name] = game_globals[name]
    for template in TEMPLATES:
        if template.__name__ in compiled:
            continue
        function = types.FunctionType(template.__code__, namespace, template.__name__)
        function.__qualname__ = f"{game}.{template.__name__}"
        function.__module__ = game_globals["__name__"]
        namespace[template.__name__] = compiled[template.__name__] = kernel(function)
    return compiled
