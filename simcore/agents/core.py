"""The jitted agents, written once over the decision interface: random, flat Monte Carlo, ISMCTS, and
:func:`decide`, which asks a seat's agent for its action.

They call the game's interface functions by name (``legal_actions``, ``apply_action``, ...: declared unbound in
``simcore.engine.interface``). Each game gets its own compiled copy of them and of the game loop
(``simcore.engine.loop``) from ``simcore.engine.binding.bind``, the one place where the agents meet a game::

    binding.bind(simcore.games.load("zwai")).run_batch(params, agents, seed, start, out)

Why not pass the game's functions as arguments: numba lowers a jitted function used as a value to its address
in this process, and a function holding such an address is never cached (measured: every new process compiled
again). A copy per game with its own cache name is cached like any other function.

An agent reads its parameters from its seat's row of the agents table at the columns ``simcore.agents`` names
(``IS_ITERATIONS``, ``MC_ROLLOUTS``, ...), never by their order of declaration.

Scratch arrays are allocated once per call of the game loop's ``run_batch``, a thread's few chunks (:func:`scratch`),
and reused for every game, decision, iteration and rollout: nothing else here allocates.

``states``   [3, state size]  0: the game, 1: a world resampled from the mover's view, 2: a rollout in it
``streams``  [3, streams]     the same three
``actions``  [3, MAX_ACTIONS] 0: a legal-action list, 1: the distinct candidates of a search, 2: the legality
                              check's own list
``floats``   [MAX_ACTIONS + MAX_SEATS]  the candidates' summed returns, then one rollout's returns
``work``     the game's own scratch for ``greedy_action``
``tree``     [nodes, NODE_WIDTH]  ISMCTS's node pool: one node per iteration and the root, so the budget bounds it
``totals``   [nodes, TOTALS_WIDTH]  each node's summed return for the seat that chose its action; with regret
                              matching its regret, its strategy sum and its chance in the current iteration
``marks``    [3, max(N_ACTION_CODES, MAX_SEATS)]  ISMCTS's stamps per action code: legal here, has a child
                              here; then the observed tree's current node in each seat's tree

Every action the agents apply goes through ``play_action`` (``simcore.engine.loop``: checked or not).
"""

import math

import numpy as np

from simcore.agents import (
    FORBID,
    GREEDY,
    IS_C,
    IS_CUTOFF,
    IS_EXPLORE,
    IS_FINAL,
    IS_ITERATIONS,
    IS_ROLLOUT,
    IS_SELECT,
    IS_TREE,
    IS_WIDEN,
    ISMCTS,
    KIND,
    MC,
    MC_CUTOFF,
    MC_ROLLOUTS,
    PREFER,
    RANDOM,
)
from simcore.engine import rng
from simcore.engine.interface import (
    CUTS,
    MAX_ACTIONS,
    MAX_SEATS,
    MAX_STEPS,
    MC_SEARCH,
    N_ACTION_CODES,
    OBSERVED,
    OBSERVED_SEARCH,
    PLAYS_GREEDY,
    STATE_DTYPE,
    STATE_SIZE,
    TREE_SEARCH,
    WORK_SIZE,
    action_kind,
    apply_action,  # noqa: F401  (bound per game, as every interface name)
    current_player,
    dealt,
    evaluate,
    greedy_action,
    greedy_among,
    legal_actions,
    num_players,
    observed_action,
    play_action,
    resample,
    returns,
    revealed,
    rewind,
)
from simcore.engine.jit import kernel

GAME, WORLD, ROLLOUT = 0, 1, 2
LIST, CANDIDATES, CHECK = 0, 1, 2
ACTION_ROWS = 3
# a node of the ISMCTS tree: the action that leads to it, its parent, first child and next sibling, how often it
# was chosen and how often it was available (legal in the world of an iteration that reached its parent), and
# the seat that chose it (its totals are that seat's returns), and the last iteration in which regret matching
# counted it among the choices (select=regret)
N_ACTION, N_PARENT, N_CHILD, N_SIBLING, N_VISITS, N_AVAIL, N_MOVER, N_STAMP = range(8)
NODE_WIDTH = 8
# a node's floats: its summed return, and for regret matching its cumulative regret, the sum of the strategies
# that chose it (the average strategy) and its chance of being chosen in the iteration that stamped it
T_TOTAL, T_REGRET, T_STRATEGY, T_CHANCE = range(4)
TOTALS_WIDTH = 4
LEGAL, TRIED, CURRENT = 0, 1, 2
MARK_ROWS = 3
REVEAL = -2         # the mover of an observed tree's reveal node (what an action showed a seat; no one chose it)
# the observed tree's pool: this many nodes per seat and iteration (one a seat's tree adds at the expansion,
# and room for those its descent adds where another seat's tree branches differently); a full pool ends the
# descent, the same way in every run
OBSERVED_NODES = 4


def random_action(state, params, seat, streams, actions):
    """Uniform over the legal-action list, from the seat's policy stream. A game may define its own
    ``random_action`` that draws the same action from the same number without listing them all (see
    ``OWN``); tests hold it to this one."""
    n = legal_actions(state, params, actions)
    return actions[rng.randint(streams, rng.POLICY + seat, n)] if n > 0 else -1      # -1: none to choose from


# --- restricted play: a seat that may not play some kinds of move, or must play one (simcore.agents) ----------


def restrict(state, params, listed, n, forbid, prefer):
    """Keep, in place and in order, the listed legal actions a seat restricted by ``forbid`` (a mask of kinds)
    and ``prefer`` (a kind, -1 for none) may choose among; returns how many. Those of the preferred kind where
    there is one; else those of no forbidden kind (an action of no kind is never forbidden); else, when only
    forbidden kinds are legal, all of them (the game must go on: the trace counts such a move)."""
    if prefer >= 0:
        kept = 0
        for i in range(n):
            if action_kind(state, params, listed[i]) == prefer:
                listed[kept] = listed[i]
                kept += 1
        if kept > 0:
            return kept
    if forbid != 0:
        kept = 0
        for i in range(n):
            kind = action_kind(state, params, listed[i])
            if kind < 0 or (forbid >> kind) & 1 == 0:
                listed[kept] = listed[i]
                kept += 1
        if kept > 0:
            return kept
    return n


@kernel(inline="always")
def bound(forbid, prefer):
    """Is a seat restricted at all? Unrestricted seats take the paths they always took: the same rows."""
    return forbid != 0 or prefer >= 0


def listed_for(state, params, listed, forbid, prefer):
    """The legal actions into ``listed``, those a restriction allows where it binds (:func:`restrict`); returns
    how many. Inlined: an unrestricted seat pays one test for it."""
    n = legal_actions(state, params, listed)
    if bound(forbid, prefer):
        return restrict(state, params, listed, n, forbid, prefer)
    return n


def any_random(state, params, seat, streams, listed, forbid, prefer):
    """The random policy's action for a seat restricted by ``forbid`` and ``prefer`` (or not at all): uniform over
    the legal actions the restriction allows (:func:`restrict`), from the seat's policy stream."""
    if not bound(forbid, prefer):
        return random_action(state, params, seat, streams, listed)
    n = restrict(state, params, listed, legal_actions(state, params, listed), forbid, prefer)
    return listed[rng.randint(streams, rng.POLICY + seat, n)] if n > 0 else -1


def any_greedy(state, params, seat, streams, listed, work, forbid, prefer):
    """The game's greedy action; restricted, greedy's pick where the restriction allows it, else the game's
    heuristic among the moves it allows (the game's ``greedy_among``: a restricted greedy needs the game's
    ``restricted_greedy`` capability, simcore.agents checks)."""
    action = greedy_action(state, params, seat, streams, work)
    if not bound(forbid, prefer):
        return action
    n = restrict(state, params, listed, legal_actions(state, params, listed), forbid, prefer)
    for i in range(n):
        if listed[i] == action:
            return action
    return greedy_among(state, params, seat, streams, work, listed, n)


@kernel(inline="always")
def forbid_of(mover, searcher, forbid):
    """The mask binding ``mover`` inside ``searcher``'s search: the searcher's own, no one else's."""
    return forbid if mover == searcher else 0


@kernel(inline="always")
def prefer_of(mover, searcher, prefer):
    return prefer if mover == searcher else -1


def playout(state, params, streams, actions, searcher, forbid, prefer):
    """Random play to the end of the game (or its ``max_turns``), at most ``MAX_STEPS`` decisions: a game that
    never ends stops there, its returns a timeout's. The ``searcher``'s moves keep its restriction."""
    listed = actions[LIST]
    seat = current_player(state, params)
    if not bound(forbid, prefer):       # the unrestricted loop, as it always was: a test per playout, not per move
        for _ in range(MAX_STEPS):
            if seat < 0:
                break
            play_action(state, params, random_action(state, params, seat, streams, listed), streams, actions)
            seat = current_player(state, params)
        return
    for _ in range(MAX_STEPS):
        if seat < 0:
            break
        action = any_random(state, params, seat, streams, listed, forbid_of(seat, searcher, forbid),
                            prefer_of(seat, searcher, prefer))
        play_action(state, params, action, streams, actions)
        seat = current_player(state, params)


def greedy_playout(state, params, streams, actions, work, searcher, forbid, prefer):
    """Every seat plays the game's greedy to the end of the game (or its ``max_turns``), at most ``MAX_STEPS``
    decisions, as :func:`playout`."""
    listed = actions[LIST]
    seat = current_player(state, params)
    for _ in range(MAX_STEPS):
        if seat < 0:
            break
        action = any_greedy(state, params, seat, streams, listed, work, forbid_of(seat, searcher, forbid),
                            prefer_of(seat, searcher, prefer))
        play_action(state, params, action, streams, actions)
        seat = current_player(state, params)


def rollout_action(state, params, mover, streams, listed, work, greedy, forbid, prefer):
    """A move of a cut-off playout: greedy's or random. A copy that plays no greedy (``PLAYS_GREEDY`` off: no
    seat's search asked for greedy rollouts) never has ``greedy`` set, and compiles only the random branch."""
    if PLAYS_GREEDY:
        if greedy:
            return any_greedy(state, params, mover, streams, listed, work, forbid, prefer)
    return any_random(state, params, mover, streams, listed, forbid, prefer)


def cut_playout(state, params, streams, actions, work, greedy, cutoff, seat, forbid, prefer, out):
    """At most ``cutoff`` decisions of random (or greedy) play, then each seat's return into ``out``: the
    game's returns if it ended, else its ``evaluate`` of the state as ``seat`` sees it (the searcher's
    estimate; a game the cut-off stops is never scored as a timeout)."""
    listed = actions[LIST]
    mover = current_player(state, params)
    for _ in range(cutoff):
        if mover < 0:
            break
        action = rollout_action(state, params, mover, streams, listed, work, greedy,
                                forbid_of(mover, seat, forbid), prefer_of(mover, seat, prefer))
        play_action(state, params, action, streams, actions)
        mover = current_player(state, params)
    if mover < 0:
        returns(state, params, out)
    else:
        evaluate(state, params, seat, out)


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


def mc_action(params, seat, rollouts, cutoff, forbid, prefer, states, streams, actions, floats, work):
    """Flat Monte Carlo: every distinct legal action is tried in the same ``rollouts`` worlds, each resampled
    from the mover's view (so it never peeks) and played out at random (to the end, or ``cutoff`` decisions and
    the game's ``evaluate``, as in ISMCTS's playouts); the best total return wins.

    Trying every action in the same worlds with the same rollout streams compares them on common random
    numbers. A lone legal action is played without search. A restricted seat tries the actions its restriction
    allows, and keeps it in its rollouts."""
    game = states[GAME]
    n = listed_for(game, params, actions[LIST], forbid, prefer)
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
            play_action(states[ROLLOUT], params, candidates[i], streams[ROLLOUT], actions)
            play_out(states[ROLLOUT], params, streams[ROLLOUT], actions, work, False, cutoff, seat, forbid, prefer,
                     ret)
            values[i] += ret[seat]
    return candidates[best_of(values, m, streams[GAME], seat)]


@kernel
def add_node(tree, totals, node, action, parent, mover):
    """Make ``node`` the newest child of ``parent`` (-1: the root), reached by ``action`` of ``mover``."""
    tree[node, N_ACTION] = action
    tree[node, N_PARENT] = parent
    tree[node, N_CHILD] = -1
    tree[node, N_VISITS] = 0
    tree[node, N_AVAIL] = 1
    tree[node, N_MOVER] = mover
    tree[node, N_STAMP] = 0
    for column in range(TOTALS_WIDTH):
        totals[node, column] = 0.0
    if parent >= 0:
        tree[node, N_SIBLING] = tree[parent, N_CHILD]
        tree[parent, N_CHILD] = node
    else:
        tree[node, N_SIBLING] = -1


@kernel
def mark_legal(listed, n, marks, epoch):
    for i in range(n):
        marks[LEGAL, listed[i]] = epoch


@kernel
def count_available(tree, node, marks, epoch, mover):
    """Count one more availability for every child of ``node`` whose action is legal now (``marks``), stamp
    those actions as tried; returns how many children are legal now. ``mover`` >= 0 counts only that seat's
    children (in the observed tree a node's children may be several seats' moves)."""
    legal = 0
    child = tree[node, N_CHILD]
    while child >= 0:
        action = tree[child, N_ACTION]
        if marks[LEGAL, action] == epoch and (mover < 0 or tree[child, N_MOVER] == mover):
            tree[child, N_AVAIL] += 1
            marks[TRIED, action] = epoch
            legal += 1
        child = tree[child, N_SIBLING]
    return legal


@kernel
def widened(widen, visits):
    """How many children a node visited ``visits`` times may have under progressive widening (TAG's
    floor(C * (n + 1)^alpha), alpha = 0.5); at least one."""
    return max(1, int(widen * math.sqrt(visits + 1.0)))


@kernel
def untried(listed, n, marks, epoch, k):
    """Without ``k`` (-1): how many listed actions have no child yet; with it, the k-th of them."""
    count = 0
    for i in range(n):
        if marks[TRIED, listed[i]] != epoch:
            if count == k:
                return listed[i]
            count += 1
    return count


@kernel
def ucb_child(tree, totals, node, marks, epoch, c, mover):
    """The child legal now with the highest UCB1 score, availability in place of the parent's visits (the
    first of equals); ``mover`` >= 0: among that seat's children only."""
    best = -1
    best_score = -1.0
    child = tree[node, N_CHILD]
    while child >= 0:
        if marks[LEGAL, tree[child, N_ACTION]] == epoch and (mover < 0 or tree[child, N_MOVER] == mover):
            visits = tree[child, N_VISITS]
            score = totals[child, T_TOTAL] / visits + c * math.sqrt(math.log(tree[child, N_AVAIL]) / visits)
            if best < 0 or score > best_score:
                best = child
                best_score = score
        child = tree[child, N_SIBLING]
    return best


@kernel
def most_visited(tree, root, marks, epoch):
    """The child of ``root`` legal in the real game (``marks``) that was chosen most often (the first of
    equals)."""
    best = -1
    child = tree[root, N_CHILD]
    while child >= 0:
        if marks[LEGAL, tree[child, N_ACTION]] == epoch and (
                best < 0 or tree[child, N_VISITS] > tree[best, N_VISITS]):
            best = child
        child = tree[child, N_SIBLING]
    return tree[best, N_ACTION]


@kernel
def clear(marks):
    for i in range(marks.shape[0]):
        for j in range(marks.shape[1]):
            marks[i, j] = 0


def expand_pick(world, params, mover, streams, listed, n, marks, epoch, fresh, widen, work):
    """The untried action a node adds: without widening one drawn at random; with it, the game's greedy action
    first (the move heuristic's order; a game without a heuristic has none), then one drawn at random."""
    if PLAYS_GREEDY:        # a copy without greedy serves no widening seat
        if widen > 0.0:
            first = greedy_action(world, params, mover, streams, work)
            if first >= 0 and marks[LEGAL, first] == epoch and marks[TRIED, first] != epoch:
                return first
    return untried(listed, n, marks, epoch, rng.randint(streams, rng.SEARCH + mover, fresh))


def lone_action(game, params, actions, forbid, prefer):
    """The one distinct legal action of ``game`` the restriction allows, played without search; -1 when there are
    more."""
    listed = actions[LIST]
    n = listed_for(game, params, listed, forbid, prefer)
    return listed[0] if distinct(listed, n, actions[CANDIDATES]) == 1 else -1


def to_expand(world, params, listed, tree, node, marks, epoch, mover, widen, forbid, prefer):
    """One step of a descent at ``node``: the legal actions of ``world`` (those ``forbid`` and ``prefer`` allow:
    the restriction of the searcher, where it moves) listed and stamped with ``epoch``, the availability of the
    node's children (``mover``'s, or all with -1) counted; returns (how many are listed, how many untried the node
    may add one of now: 0 to descend instead)."""
    n = listed_for(world, params, listed, forbid, prefer)
    mark_legal(listed, n, marks, epoch)
    legal = count_available(tree, node, marks, epoch, mover)
    fresh = untried(listed, n, marks, epoch, -1)
    if fresh > 0 and (widen == 0.0 or legal < widened(widen, tree[node, N_VISITS])):
        return n, fresh
    return n, 0


@kernel
def visit_draw(tree, root, marks, epoch, streams, seat):
    """A child of ``root`` legal in the real game, drawn in proportion to its visits from the seat's policy
    stream (``ismcts:final=visits``)."""
    total = 0
    child = tree[root, N_CHILD]
    while child >= 0:
        if marks[LEGAL, tree[child, N_ACTION]] == epoch:
            total += tree[child, N_VISITS]
        child = tree[child, N_SIBLING]
    pick = rng.randint(streams, rng.POLICY + seat, total)
    child = tree[root, N_CHILD]
    while child >= 0:
        if marks[LEGAL, tree[child, N_ACTION]] == epoch:
            pick -= tree[child, N_VISITS]
            if pick < 0:
                return tree[child, N_ACTION]
        child = tree[child, N_SIBLING]
    return -1


@kernel
def strategy_draw(tree, totals, node, marks, epoch, streams, seat):
    """A child of ``node`` legal in the real game, drawn from the average strategy of regret matching there (each
    child's strategy sum) from the seat's policy stream (``ismcts:final=average``); -1 when regret matching never
    chose there (a budget too small to reach it)."""
    total = 0.0
    child = tree[node, N_CHILD]
    while child >= 0:
        if marks[LEGAL, tree[child, N_ACTION]] == epoch and tree[child, N_MOVER] == seat:
            total += totals[child, T_STRATEGY]
        child = tree[child, N_SIBLING]
    if total <= 0.0:
        return -1
    pick = rng.uniform(streams, rng.POLICY + seat) * total
    last = -1
    child = tree[node, N_CHILD]
    while child >= 0:
        if marks[LEGAL, tree[child, N_ACTION]] == epoch and tree[child, N_MOVER] == seat:
            last = tree[child, N_ACTION]
            pick -= totals[child, T_STRATEGY]
            if pick < 0.0:
                return last
        child = tree[child, N_SIBLING]
    return last


@kernel
def decision_node(tree, root, seat):
    """The node of ``seat``'s tree (rooted at ``root``) where it decides: the root, or where the searcher's view
    was rewound to the start of the round (select=regret), the node the round's face-down moves lead to. Those
    moves show the seat nothing, so each is the lone child on the way down."""
    node = root
    while True:
        child = tree[node, N_CHILD]
        if child < 0 or tree[child, N_SIBLING] >= 0 or tree[child, N_MOVER] == seat:
            return node
        node = child


def chosen(game, params, listed, tree, totals, root, marks, epoch, final, streams, seat, forbid, prefer):
    """The action a search plays (``final``): 0, the child of ``root`` legal in the real game most often chosen;
    1, one drawn in proportion to how often each was chosen; 2, one drawn from the average strategy of regret
    matching (from ``streams``, the game's own). Where the search never decided at ``root`` (a budget smaller
    than the round's face-down moves), a legal action at random. Only the actions the seat's restriction allows
    are played."""
    n = listed_for(game, params, listed, forbid, prefer)
    mark_legal(listed, n, marks, epoch)
    if tree[root, N_CHILD] < 0:
        return any_random(game, params, seat, streams, listed, forbid, prefer)
    if final == 2:
        action = strategy_draw(tree, totals, root, marks, epoch, streams, seat)
        if action >= 0:
            return action
        return visit_draw(tree, root, marks, epoch, streams, seat)
    if final == 1:
        return visit_draw(tree, root, marks, epoch, streams, seat)
    return most_visited(tree, root, marks, epoch)


def ismcts_action(params, seat, iterations, c, greedy_rollouts, cutoff, widen, final, forbid, prefer, states,
                  streams, actions, floats, work, tree, totals, marks):
    """Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012). Each iteration resamples a
    world from the mover's view, descends from the root by UCB1 over the children whose actions are legal in
    that world (availability counts), adds one node for an untried legal action, plays the rest of the game
    out (random or greedy; with a ``cutoff``, that many decisions, then the game's ``evaluate``) and adds each
    seat's return to the nodes that seat chose. With ``widen`` a node adds children only as its visits grow
    (:func:`widened`), the greedy's action first. The most-chosen root action is played; a lone legal action is
    played without search. A restricted searcher's restriction binds its own moves, in the tree and the
    playouts."""
    game = states[GAME]
    world = states[WORLD]
    listed = actions[LIST]
    ret = floats[actions.shape[1]:]
    lone = lone_action(game, params, actions, forbid, prefer)
    if lone >= 0:
        return lone
    clear(marks)
    epoch = 0
    add_node(tree, totals, 0, -1, -1, -1)
    size = 1
    for _ in range(iterations):
        copy(game, world)
        rng.fork(streams[GAME], rng.SEARCH + seat, streams[WORLD])
        resample(world, params, seat, streams[WORLD])
        node = 0
        mover = current_player(world, params)
        while mover >= 0:
            epoch += 1
            n, fresh = to_expand(world, params, listed, tree, node, marks, epoch, -1, widen,
                                 forbid_of(mover, seat, forbid), prefer_of(mover, seat, prefer))
            if fresh > 0:
                action = expand_pick(world, params, mover, streams[WORLD], listed, n, marks, epoch, fresh, widen, work)
                add_node(tree, totals, size, action, node, mover)
                node = size
                size += 1
                play_action(world, params, action, streams[WORLD], actions)
                break
            node = ucb_child(tree, totals, node, marks, epoch, c, -1)
            play_action(world, params, tree[node, N_ACTION], streams[WORLD], actions)
            mover = current_player(world, params)
        play_out(world, params, streams[WORLD], actions, work, greedy_rollouts, cutoff, seat, forbid, prefer, ret)
        back_up(tree, totals, node, ret, 0)
    return chosen(game, params, listed, tree, totals, 0, marks, epoch + 1, final, streams[GAME], seat, forbid, prefer)


def play_out(world, params, streams, actions, work, greedy, cutoff, seat, forbid, prefer, out):
    """An iteration's playout from its new node, each seat's return into ``out``: random or greedy play to the
    end, or with a ``cutoff`` that many decisions and the game's ``evaluate`` as ``seat`` sees it. The searcher
    ``seat`` plays by its restriction (``forbid``, ``prefer``), the others freely."""
    if CUTS:            # branches on the copy's flags: a copy compiles only the playouts its seats ask for
        if cutoff > 0:
            cut_playout(world, params, streams, actions, work, greedy, cutoff, seat, forbid, prefer, out)
            return
    if PLAYS_GREEDY:
        if greedy:
            greedy_playout(world, params, streams, actions, work, seat, forbid, prefer)
            returns(world, params, out)
            return
    playout(world, params, streams, actions, seat, forbid, prefer)
    returns(world, params, out)


@kernel
def child_keyed(tree, node, key, mover):
    """The child of ``node`` reached by ``mover``'s action seen as ``key``, or -1."""
    child = tree[node, N_CHILD]
    while child >= 0:
        if tree[child, N_ACTION] == key and tree[child, N_MOVER] == mover:
            return child
        child = tree[child, N_SIBLING]
    return -1


@kernel
def follow(tree, totals, node, key, mover, size):
    """The child of ``node`` keyed ``key`` of ``mover``, added if missing: (child, the pool's new size)."""
    child = child_keyed(tree, node, key, mover)
    if child >= 0:
        return child, size
    add_node(tree, totals, size, key, node, mover)
    return size, size + 1


def observe(tree, totals, current, world, params, action, mover, players, size):
    """Every seat's tree follows ``mover``'s ``action`` (about to be played in ``world``) as that seat observes
    it, then, where the action shows that seat what was hidden (the last face-down bid shows them all), a
    reveal node keyed by what it shows: so later decisions in the tree are apart exactly as the seat can tell
    them apart. Adds the nodes it lacks; returns the pool's new size."""
    for observer in range(players):
        key = action if observer == mover else observed_action(world, params, action, observer)
        node, size = follow(tree, totals, current[observer], key, mover, size)
        shown = revealed(world, params, action, observer)
        if shown >= 0:
            node, size = follow(tree, totals, node, shown, REVEAL, size)
        current[observer] = node
    return size


def see_dealt(tree, totals, current, world, params, players, size):
    """After an action, every seat's tree follows what chance dealt face up with it (the game's ``dealt``:
    Goofspiel's next prize) by a reveal node keyed by it, so that a seat's later choices are apart for each card
    it saw dealt, as its information sets are (select=regret: fused across the prizes, its average strategy
    stalls near 0.19 exploitability at 4 cards; the UCB1 trees keep their fused nodes and their rows)."""
    for observer in range(players):
        shown = dealt(world, params, observer)
        if shown >= 0:
            current[observer], size = follow(tree, totals, current[observer], shown, REVEAL, size)
    return size


@kernel
def regret_child(tree, totals, node, marks, epoch, mover, explore, streams, stamp):
    """Regret matching (Hart and Mas-Colell 2000) among ``mover``'s children of ``node`` legal now, as
    simultaneous-move MCTS chooses (Lanctot, Lisy and Winands 2013): each child's share of the positive regrets
    (equal shares while none is positive), mixed with ``explore`` of uniform, one drawn from the search stream.
    Each candidate adds its share, weighted by iteration ``stamp``, to its strategy sum (the average strategy,
    which the search plays: linear averaging, as CFR+ does, forgets the uninformed first iterations sooner), is
    stamped with ``stamp`` and keeps its chance, for :func:`regret_update`."""
    count = 0
    positive = 0.0
    child = tree[node, N_CHILD]
    while child >= 0:
        if marks[LEGAL, tree[child, N_ACTION]] == epoch and tree[child, N_MOVER] == mover:
            count += 1
            positive += max(totals[child, T_REGRET], 0.0)
        child = tree[child, N_SIBLING]
    pick = rng.uniform(streams, rng.SEARCH + mover)
    best = -1
    last = -1
    child = tree[node, N_CHILD]
    while child >= 0:
        if marks[LEGAL, tree[child, N_ACTION]] == epoch and tree[child, N_MOVER] == mover:
            share = max(totals[child, T_REGRET], 0.0) / positive if positive > 0.0 else 1.0 / count
            chance = (1.0 - explore) * share + explore / count
            totals[child, T_STRATEGY] += share * stamp
            totals[child, T_CHANCE] = chance
            tree[child, N_STAMP] = stamp
            last = child
            pick -= chance
            if best < 0 and pick < 0.0:
                best = child
        child = tree[child, N_SIBLING]
    return best if best >= 0 else last


@kernel
def regret_update(tree, totals, node, ret, stamp):
    """Regret matching's update where ``node`` was chosen in iteration ``stamp``: every choice its parent
    offered then (stamped) loses the mover's return ``u``; the chosen one gains ``u`` over its chance (the
    sampled estimate of each choice's value: u / p for the chosen, 0 for the others)."""
    mover = tree[node, N_MOVER]
    u = ret[mover]
    child = tree[tree[node, N_PARENT], N_CHILD]
    while child >= 0:
        if tree[child, N_STAMP] == stamp and tree[child, N_MOVER] == mover:
            gain = u / totals[node, T_CHANCE] if child == node else 0.0
            totals[child, T_REGRET] += gain - u
        child = tree[child, N_SIBLING]


@kernel
def back_up(tree, totals, node, ret, stamp):
    """Add an iteration's returns to ``node`` and its ancestors, each for the seat that chose it (a reveal
    node, chosen by nobody, only counts the visit); where regret matching chose in this iteration (``stamp``
    > 0), its update."""
    while tree[node, N_PARENT] >= 0:
        tree[node, N_VISITS] += 1
        if tree[node, N_MOVER] >= 0:
            totals[node, T_TOTAL] += ret[tree[node, N_MOVER]]
            if stamp > 0 and tree[node, N_STAMP] == stamp:
                regret_update(tree, totals, node, ret, stamp)
        node = tree[node, N_PARENT]
    tree[node, N_VISITS] += 1


def observed_ismcts_action(params, seat, iterations, c, greedy_rollouts, cutoff, widen, final, regret, explore,
                           forbid, prefer, states, streams, actions, floats, work, tree, totals, marks):
    """Multiple-observer information-set MCTS (Cowling, Powley and Whitehouse 2012): one tree per seat, each
    keyed by what its seat observes of every action (the game's ``observed_action``: "a call", not "a call of
    ME"). Each iteration resamples a world from the searcher's view; every seat decides in its own tree, by
    UCB1 over its legal actions there, so no seat's choice depends on what it could not have seen; every tree
    follows the action as its seat observes it. Expansion, widening and playouts are those of
    :func:`ismcts_action`; tree ``seat``'s most-chosen root action is played. Seat i's tree is rooted at node
    i; ``marks[CURRENT]`` holds each tree's current node.

    With ``regret`` every seat chooses by regret matching (:func:`regret_child`; simultaneous-move MCTS) and
    each world starts from the round as the searcher saw it begin: the game's ``rewind`` takes back the
    face-down moves the searcher has not seen, which their seats then choose again by their own strategies in
    their own trees, rather than a uniform draw answering them. The searcher decides at the node those moves
    lead to in its tree (:func:`decision_node`)."""
    game = states[GAME]
    world = states[WORLD]
    listed = actions[LIST]
    current = marks[CURRENT]
    ret = floats[actions.shape[1]:]
    lone = lone_action(game, params, actions, forbid, prefer)
    if lone >= 0:
        return lone
    clear(marks)
    players = num_players(params)
    for root in range(players):
        add_node(tree, totals, root, -1, -1, -1)
    size = players
    epoch = 0
    for iteration in range(iterations):
        copy(game, world)
        rng.fork(streams[GAME], rng.SEARCH + seat, streams[WORLD])
        if regret:
            rewind(world, params, seat)
        resample(world, params, seat, streams[WORLD])
        for observer in range(players):
            current[observer] = observer
        mover = current_player(world, params)
        while mover >= 0 and size + (2 + regret) * players <= tree.shape[0]:
            node = current[mover]
            epoch += 1
            n, fresh = to_expand(world, params, listed, tree, node, marks, epoch, mover, widen,
                                 forbid_of(mover, seat, forbid), prefer_of(mover, seat, prefer))
            if fresh > 0:
                action = expand_pick(world, params, mover, streams[WORLD], listed, n, marks, epoch, fresh, widen, work)
            elif regret:
                action = tree[regret_child(tree, totals, node, marks, epoch, mover, explore, streams[WORLD],
                                           iteration + 1), N_ACTION]
            else:
                action = tree[ucb_child(tree, totals, node, marks, epoch, c, mover), N_ACTION]
            size = observe(tree, totals, current, world, params, action, mover, players, size)
            play_action(world, params, action, streams[WORLD], actions)
            if regret:
                size = see_dealt(tree, totals, current, world, params, players, size)
            if fresh > 0:
                break           # the new nodes' playout follows
            mover = current_player(world, params)
        play_out(world, params, streams[WORLD], actions, work, greedy_rollouts, cutoff, seat, forbid, prefer, ret)
        for observer in range(players):
            back_up(tree, totals, current[observer], ret, (iteration + 1) * regret)
    return chosen(game, params, listed, tree, totals, decision_node(tree, seat, seat), marks, epoch + 1, final,
                  streams[GAME], seat, forbid, prefer)


@kernel
def tree_size(agents, observers):
    """Nodes an ISMCTS seat of ``agents`` may need: one per iteration and the root (1 without such a seat);
    an observed tree, with ``observers`` seats' trees, OBSERVED_NODES per seat and iteration."""
    nodes = 1
    for seat in range(agents.shape[0]):
        if agents[seat, KIND] == ISMCTS:
            per = OBSERVED_NODES * observers if observers > 0 and agents[seat, IS_TREE] == 1 else 1
            nodes = max(nodes, per * (int(agents[seat, IS_ITERATIONS]) + 1))
    return nodes


def all_random(agents):
    """Is every seat random and unrestricted (the game loop's fast path)?"""
    for seat in range(agents.shape[0]):
        if agents[seat, KIND] != RANDOM or agents[seat, FORBID] != 0 or agents[seat, PREFER] != 0:
            return False
    return True


@kernel(inline="always")
def forbidden(agents, seat):
    """The mask of kinds ``agents[seat]`` may not play (bit k: kind k)."""
    return np.int64(agents[seat, FORBID])


@kernel(inline="always")
def preferred(agents, seat):
    """The kind ``agents[seat]`` plays whenever it is legal, -1 for none."""
    return np.int64(agents[seat, PREFER]) - 1


def decide(params, agents, seat, states, streams, actions, floats, work, tree, totals, marks):
    """The action of ``agents[seat]`` in the game ``states[GAME]`` with its streams ``streams[GAME]``."""
    game = states[GAME]
    kind = int(agents[seat, KIND])
    forbid, prefer = forbidden(agents, seat), preferred(agents, seat)
    if kind == RANDOM:
        return any_random(game, params, seat, streams[GAME], actions[LIST], forbid, prefer)
    if PLAYS_GREEDY:
        if kind == GREEDY:
            return any_greedy(game, params, seat, streams[GAME], actions[LIST], work, forbid, prefer)
    if MC_SEARCH:
        if kind == MC:
            return mc_action(params, seat, int(agents[seat, MC_ROLLOUTS]), int(agents[seat, MC_CUTOFF]), forbid,
                             prefer, states, streams, actions, floats, work)
    if OBSERVED_SEARCH:
        if kind == ISMCTS:
            if agents[seat, IS_TREE] == 1:
                return observed_ismcts_action(params, seat, int(agents[seat, IS_ITERATIONS]), agents[seat, IS_C],
                                              agents[seat, IS_ROLLOUT] == 1, int(agents[seat, IS_CUTOFF]),
                                              agents[seat, IS_WIDEN], int(agents[seat, IS_FINAL]),
                                              int(agents[seat, IS_SELECT]), agents[seat, IS_EXPLORE], forbid,
                                              prefer, states, streams, actions, floats, work, tree, totals, marks)
    if TREE_SEARCH:
        if kind == ISMCTS:
            return ismcts_action(params, seat, int(agents[seat, IS_ITERATIONS]), agents[seat, IS_C],
                                 agents[seat, IS_ROLLOUT] == 1, int(agents[seat, IS_CUTOFF]), agents[seat, IS_WIDEN],
                                 int(agents[seat, IS_FINAL]), forbid, prefer, states, streams, actions, floats, work,
                                 tree, totals, marks)
    return -1


def scratch(agents):
    """The scratch arrays of one chunk (see the module docstring), the node pool sized for ``agents``."""
    nodes = tree_size(agents, MAX_SEATS if OBSERVED else 0)
    return (np.zeros((3, STATE_SIZE), STATE_DTYPE), np.zeros((3, rng.N_STREAMS), np.uint64),
            np.zeros((ACTION_ROWS, MAX_ACTIONS), np.int64), np.zeros(MAX_ACTIONS + MAX_SEATS, np.float64),
            np.zeros(WORK_SIZE, np.int64), np.zeros((nodes, NODE_WIDTH), np.int64),
            np.zeros((nodes, TOTALS_WIDTH), np.float64),
            np.zeros((MARK_ROWS, max(N_ACTION_CODES, MAX_SEATS)), np.int64))


def root_stats(params, agents, seat, game, actions, floats, tree, totals, stats):
    """What a search left at its root, one row per action it tried: the action, how often it was tried, its
    mean return for the mover (replays show them). mc tries every distinct legal action in every world;
    ISMCTS's root children include actions legal only in some resampled worlds. 0 rows when no search ran (a
    lone legal action, or random or greedy)."""
    kind = int(agents[seat, KIND])
    if kind == MC:
        n = listed_for(game, params, actions[LIST], forbidden(agents, seat), preferred(agents, seat))
        m = distinct(actions[LIST], n, actions[CANDIDATES])
        if m == 1:
            return 0
        for i in range(m):
            stats[i, 0] = actions[CANDIDATES, i]
            stats[i, 1] = agents[seat, MC_ROLLOUTS]
            stats[i, 2] = floats[i] / agents[seat, MC_ROLLOUTS]
        return m
    root = decision_node(tree, seat, seat) if OBSERVED and agents[seat, IS_TREE] == 1 else 0   # its own tree
    if kind != ISMCTS or tree[root, N_VISITS] == 0:
        return 0
    rows = 0
    child = tree[root, N_CHILD]
    while child >= 0:
        stats[rows, 0] = tree[child, N_ACTION]
        stats[rows, 1] = tree[child, N_VISITS]
        stats[rows, 2] = totals[child, T_TOTAL] / max(tree[child, N_VISITS], 1)
        rows += 1
        child = tree[child, N_SIBLING]
    return rows
