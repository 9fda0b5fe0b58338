"""The jitted agents and the game loop, written once over the decision interface.

They call the game's interface functions by name (``legal_actions``, ``apply_action``, ...). Each game gets its
own compiled copy from :func:`bind`, the one place where the agents meet a game: it binds these names to the
game module's functions and the scratch sizes to its constants (a capability the game does not declare gets
the default here, e.g. :func:`nothing_hidden` for ``resample``)::

    core.bind(simcore.games.load("zwai")).run_batch(params, agents, seed, start, out)

Why not pass the game's functions as arguments: numba lowers a jitted function used as a value to its address
in this process, and a function holding such an address is never cached (measured: every new process compiled
again). A copy per game with its own cache name is cached like any other function.

Scratch arrays are allocated once per chunk by ``run_batch`` (:func:`scratch`) and reused for every game,
decision, iteration and rollout: nothing else here allocates.

``states``   [3, state size]  0: the game, 1: a world resampled from the mover's view, 2: a rollout in it
``streams``  [3, streams]     the same three
``actions``  [3, MAX_ACTIONS] 0: a legal-action list, 1: the distinct candidates of a search, 2: the legality
                              check's own list
``floats``   [MAX_ACTIONS + MAX_SEATS]  the candidates' summed returns, then one rollout's returns
``work``     the game's own scratch for ``greedy_action``
``tree``     [nodes, NODE_WIDTH]  ISMCTS's node pool: one node per iteration and the root, so the budget bounds it
``totals``   [nodes]              each node's summed return for the seat that chose its action
``marks``    [3, max(N_ACTION_CODES, MAX_SEATS)]  ISMCTS's stamps per action code: legal here, has a child
                              here; then the observed tree's current node in each seat's tree

Every action the templates apply goes through ``play_action(state, params, action, streams, actions)``. With
``SIMCORE_CHECK_LEGAL=1`` in the environment when simcore is imported (the tests set it) it is
:func:`apply_checked`: the action must be among the state's legal actions, else ``AssertionError`` (inside
``run_batch``'s ``prange`` numba turns it into ``SystemError``; ``search_batch`` and ``agent_action`` raise it
as it is). Otherwise it is :func:`apply_unchecked`, the game's ``apply_action`` inlined: no cost. The flag is
part of the cache folder's name (``simcore._source_digest``), so the two builds never share machine code.
"""

import math
import types

import numpy as np
from numba import njit, prange

from simcore import CHECK_LEGAL
from simcore.agents import GREEDY, ISMCTS, MC, RANDOM
from simcore.engine import CHUNK, O_TIMEOUT, SEARCH_CHUNK, rng
from simcore.engine.jit import kernel

GAME, WORLD, ROLLOUT = 0, 1, 2
LIST, CANDIDATES, CHECK = 0, 1, 2
ACTION_ROWS = 3
# a node of the ISMCTS tree: the action that leads to it, its parent, first child and next sibling, how often it
# was chosen and how often it was available (legal in the world of an iteration that reached its parent), and
# the seat that chose it (its totals are that seat's returns)
N_ACTION, N_PARENT, N_CHILD, N_SIBLING, N_VISITS, N_AVAIL, N_MOVER = range(7)
NODE_WIDTH = 7
LEGAL, TRIED, CURRENT = 0, 1, 2
MARK_ROWS = 3
REVEAL = -2         # the mover of an observed tree's reveal node (what an action showed a seat; no one chose it)
# the observed tree's pool: this many nodes per seat and iteration (one a seat's tree adds at the expansion,
# and room for those its descent adds where another seat's tree branches differently); a full pool ends the
# descent, the same way in every run
OBSERVED_NODES = 4


def _unbound(*args):
    raise NotImplementedError("the game's interface functions are bound by instantiate()")


# The decision interface of the game (see docs and simcore.games): each game's copy binds these names.
begin = current_player = legal_actions = apply_action = returns = resample = greedy_action = evaluate = write_row = \
    observed_action = revealed = num_players = _unbound
# The game's trace hooks (simcore.games.CONTRACT): what a traced game loop records.
standing = trace_step = action_kind = end_condition = _unbound
play_action = _unbound      # how the templates apply an action: apply_checked or apply_unchecked, by instantiate()
# The game's scratch sizes, for run_batch: bound by instantiate() too.
STATE_SIZE = STATE_DTYPE = MAX_ACTIONS = MAX_SEATS = WORK_SIZE = N_ACTION_CODES = None
# The trace's sizes: the game's action kinds and the steps a trace holds (bound by instantiate() too).
N_KINDS = MAX_TRACE_STEPS = None
# Whether this copy can search (mc, ismcts): False in a game's plain copy, whose branches to the searches numba
# prunes as dead code before typing them, so a run of random and greedy seats never compiles a search.
SEARCH = True
# Whether the game declares what each seat observes of an action (GameType.observations): only then is the
# observed tree (``ismcts:tree=observed``) compiled.
OBSERVED = False


def random_action(state, params, seat, streams, actions):
    """Uniform over the legal-action list, from the seat's policy stream. A game may define its own
    ``random_action`` that draws the same action from the same number without listing them all (see
    ``OWN``); tests hold it to this one."""
    return actions[rng.randint(streams, rng.POLICY + seat, legal_actions(state, params, actions))]


def apply_checked(state, params, action, streams, actions):
    """``apply_action`` of an action that must be legal in ``state`` (``SIMCORE_CHECK_LEGAL=1``): the legal
    actions are listed into ``actions[CHECK]``, a row nothing else uses, so the caller's lists survive."""
    listed = actions[CHECK]
    n = legal_actions(state, params, listed)
    for i in range(n):
        if listed[i] == action:
            apply_action(state, params, action, streams)
            return
    raise AssertionError("illegal action applied: not among the legal actions of its state (SIMCORE_CHECK_LEGAL)")


def apply_unchecked(state, params, action, streams, actions):
    """``apply_action`` itself; inlined where called, so the unused ``actions`` costs nothing."""
    apply_action(state, params, action, streams)


def playout(state, params, streams, actions):
    """Random play to the end of the game (or its ``max_turns``)."""
    listed = actions[LIST]
    seat = current_player(state, params)
    while seat >= 0:
        play_action(state, params, random_action(state, params, seat, streams, listed), streams, actions)
        seat = current_player(state, params)


def greedy_playout(state, params, streams, actions, work):
    """Every seat plays the game's greedy to the end of the game (or its ``max_turns``)."""
    seat = current_player(state, params)
    while seat >= 0:
        play_action(state, params, greedy_action(state, params, seat, streams, work), streams, actions)
        seat = current_player(state, params)


def cut_playout(state, params, streams, actions, work, greedy, cutoff, seat, out):
    """At most ``cutoff`` decisions of random (or greedy) play, then each seat's return into ``out``: the
    game's returns if it ended, else its ``evaluate`` of the state as ``seat`` sees it (the searcher's
    estimate; a game the cut-off stops is never scored as a timeout)."""
    listed = actions[LIST]
    mover = current_player(state, params)
    for _ in range(cutoff):
        if mover < 0:
            break
        if greedy:
            action = greedy_action(state, params, mover, streams, work)
        else:
            action = random_action(state, params, mover, streams, listed)
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


def mc_action(params, seat, rollouts, cutoff, states, streams, actions, floats, work):
    """Flat Monte Carlo: every distinct legal action is tried in the same ``rollouts`` worlds, each resampled
    from the mover's view (so it never peeks) and played out at random (to the end, or ``cutoff`` decisions and
    the game's ``evaluate``, as in ISMCTS's playouts); the best total return wins.

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
            play_action(states[ROLLOUT], params, candidates[i], streams[ROLLOUT], actions)
            play_out(states[ROLLOUT], params, streams[ROLLOUT], actions, work, False, cutoff, seat, ret)
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
    totals[node] = 0.0
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
            score = totals[child] / visits + c * math.sqrt(math.log(tree[child, N_AVAIL]) / visits)
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
    if widen > 0.0:
        first = greedy_action(world, params, mover, streams, work)
        if first >= 0 and marks[LEGAL, first] == epoch and marks[TRIED, first] != epoch:
            return first
    return untried(listed, n, marks, epoch, rng.randint(streams, rng.SEARCH + mover, fresh))


def lone_action(game, params, actions):
    """The one distinct legal action of ``game``, played without search; -1 when there are more."""
    listed = actions[LIST]
    n = legal_actions(game, params, listed)
    return listed[0] if distinct(listed, n, actions[CANDIDATES]) == 1 else -1


def to_expand(world, params, listed, tree, node, marks, epoch, mover, widen):
    """One step of a descent at ``node``: the legal actions of ``world`` listed and stamped with ``epoch``,
    the availability of the node's children (``mover``'s, or all with -1) counted; returns (how many are
    listed, how many untried the node may add one of now: 0 to descend instead)."""
    n = legal_actions(world, params, listed)
    mark_legal(listed, n, marks, epoch)
    legal = count_available(tree, node, marks, epoch, mover)
    fresh = untried(listed, n, marks, epoch, -1)
    if fresh > 0 and (widen == 0.0 or legal < widened(widen, tree[node, N_VISITS])):
        return n, fresh
    return n, 0


def chosen(game, params, listed, tree, root, marks, epoch):
    """The action a search plays: the child of ``root`` legal in the real game most often chosen."""
    n = legal_actions(game, params, listed)
    mark_legal(listed, n, marks, epoch)
    return most_visited(tree, root, marks, epoch)


def ismcts_action(params, seat, iterations, c, greedy_rollouts, cutoff, widen, states, streams, actions, floats,
                  work, tree, totals, marks):
    """Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012). Each iteration resamples a
    world from the mover's view, descends from the root by UCB1 over the children whose actions are legal in
    that world (availability counts), adds one node for an untried legal action, plays the rest of the game
    out (random or greedy; with a ``cutoff``, that many decisions, then the game's ``evaluate``) and adds each
    seat's return to the nodes that seat chose. With ``widen`` a node adds children only as its visits grow
    (:func:`widened`), the greedy's action first. The most-chosen root action is played; a lone legal action is
    played without search."""
    game = states[GAME]
    world = states[WORLD]
    listed = actions[LIST]
    ret = floats[actions.shape[1]:]
    lone = lone_action(game, params, actions)
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
            n, fresh = to_expand(world, params, listed, tree, node, marks, epoch, -1, widen)
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
        play_out(world, params, streams[WORLD], actions, work, greedy_rollouts, cutoff, seat, ret)
        back_up(tree, totals, node, ret)
    return chosen(game, params, listed, tree, 0, marks, epoch + 1)


def play_out(world, params, streams, actions, work, greedy, cutoff, seat, out):
    """An iteration's playout from its new node, each seat's return into ``out``: random or greedy play to the
    end, or with a ``cutoff`` that many decisions and the game's ``evaluate`` as ``seat`` sees it."""
    if cutoff > 0:
        cut_playout(world, params, streams, actions, work, greedy, cutoff, seat, out)
        return
    if greedy:
        greedy_playout(world, params, streams, actions, work)
    else:
        playout(world, params, streams, actions)
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


@kernel
def back_up(tree, totals, node, ret):
    """Add an iteration's returns to ``node`` and its ancestors, each for the seat that chose it (a reveal
    node, chosen by nobody, only counts the visit)."""
    while tree[node, N_PARENT] >= 0:
        tree[node, N_VISITS] += 1
        if tree[node, N_MOVER] >= 0:
            totals[node] += ret[tree[node, N_MOVER]]
        node = tree[node, N_PARENT]
    tree[node, N_VISITS] += 1


def observed_ismcts_action(params, seat, iterations, c, greedy_rollouts, cutoff, widen, states, streams, actions,
                           floats, work, tree, totals, marks):
    """Multiple-observer information-set MCTS (Cowling, Powley and Whitehouse 2012): one tree per seat, each
    keyed by what its seat observes of every action (the game's ``observed_action``: "a call", not "a call of
    ME"). Each iteration resamples a world from the searcher's view; every seat decides in its own tree, by
    UCB1 over its legal actions there, so no seat's choice depends on what it could not have seen; every tree
    follows the action as its seat observes it. Expansion, widening and playouts are those of
    :func:`ismcts_action`; tree ``seat``'s most-chosen root action is played. Seat i's tree is rooted at node
    i; ``marks[CURRENT]`` holds each tree's current node."""
    game = states[GAME]
    world = states[WORLD]
    listed = actions[LIST]
    current = marks[CURRENT]
    ret = floats[actions.shape[1]:]
    lone = lone_action(game, params, actions)
    if lone >= 0:
        return lone
    clear(marks)
    players = num_players(params)
    for root in range(players):
        add_node(tree, totals, root, -1, -1, -1)
    size = players
    epoch = 0
    for _ in range(iterations):
        copy(game, world)
        rng.fork(streams[GAME], rng.SEARCH + seat, streams[WORLD])
        resample(world, params, seat, streams[WORLD])
        for observer in range(players):
            current[observer] = observer
        mover = current_player(world, params)
        while mover >= 0 and size + 2 * players <= tree.shape[0]:
            node = current[mover]
            epoch += 1
            n, fresh = to_expand(world, params, listed, tree, node, marks, epoch, mover, widen)
            if fresh > 0:
                action = expand_pick(world, params, mover, streams[WORLD], listed, n, marks, epoch, fresh, widen, work)
            else:
                action = tree[ucb_child(tree, totals, node, marks, epoch, c, mover), N_ACTION]
            size = observe(tree, totals, current, world, params, action, mover, players, size)
            play_action(world, params, action, streams[WORLD], actions)
            if fresh > 0:
                break           # the new nodes' playout follows
            mover = current_player(world, params)
        play_out(world, params, streams[WORLD], actions, work, greedy_rollouts, cutoff, seat, ret)
        for observer in range(players):
            back_up(tree, totals, current[observer], ret)
    return chosen(game, params, listed, tree, seat, marks, epoch + 1)


@kernel
def tree_size(agents, observers):
    """Nodes an ISMCTS seat of ``agents`` may need: one per iteration and the root (1 without such a seat);
    an observed tree, with ``observers`` seats' trees, OBSERVED_NODES per seat and iteration."""
    nodes = 1
    for seat in range(agents.shape[0]):
        if agents[seat, 0] == ISMCTS:
            per = OBSERVED_NODES * observers if observers > 0 and agents[seat, 6] == 1 else 1
            nodes = max(nodes, per * (int(agents[seat, 1]) + 1))
    return nodes


@kernel
def chunk_games(agents):
    """Games per prange task: CHUNK, or SEARCH_CHUNK when a seat searches, so that a few hundred searching
    games still spread over every thread. A row depends on its seed and game index only, never on this."""
    for seat in range(agents.shape[0]):
        if agents[seat, 0] == MC or agents[seat, 0] == ISMCTS:
            return SEARCH_CHUNK
    return CHUNK


def all_random(agents):
    for seat in range(agents.shape[0]):
        if agents[seat, 0] != RANDOM:
            return False
    return True


def decide(params, agents, seat, states, streams, actions, floats, work, tree, totals, marks):
    """The action of ``agents[seat]`` in the game ``states[GAME]`` with its streams ``streams[GAME]``."""
    game = states[GAME]
    kind = int(agents[seat, 0])
    if kind == RANDOM:
        return random_action(game, params, seat, streams[GAME], actions[LIST])
    if kind == GREEDY:
        return greedy_action(game, params, seat, streams[GAME], work)
    if SEARCH:
        if kind == MC:
            return mc_action(params, seat, int(agents[seat, 1]), int(agents[seat, 2]), states, streams, actions,
                             floats, work)
        if kind == ISMCTS:
            if OBSERVED:
                if agents[seat, 6] == 1:
                    return observed_ismcts_action(params, seat, int(agents[seat, 1]), agents[seat, 2],
                                                  agents[seat, 3] == 1, int(agents[seat, 4]), agents[seat, 5],
                                                  states, streams, actions, floats, work, tree, totals, marks)
            return ismcts_action(params, seat, int(agents[seat, 1]), agents[seat, 2], agents[seat, 3] == 1,
                                 int(agents[seat, 4]), agents[seat, 5], states, streams, actions, floats, work, tree,
                                 totals, marks)
    return -1


def play(params, agents, seed, game_index, states, streams, actions, floats, work, tree, totals, marks):
    """Game ``game_index`` of ``seed`` with the agent of ``agents[seat]`` deciding for each seat, played in
    ``states[GAME]``; returns how many ISMCTS iterations its seats ran (``simcore bench`` counts them)."""
    game = states[GAME]
    live = streams[GAME]
    rng.seed_streams(live, seed, game_index)
    begin(game, params, live)
    if all_random(agents):
        playout(game, params, live, actions)   # the same draws, without asking each seat's agent
    iterations = 0
    seat = current_player(game, params)
    while seat >= 0:
        tree[0, N_VISITS] = 0                        # a search counts its iterations at the root
        action = decide(params, agents, seat, states, streams, actions, floats, work, tree, totals, marks)
        iterations += tree[0, N_VISITS]
        play_action(game, params, action, live, actions)
        seat = current_player(game, params)
    return iterations


def scratch(agents):
    """The scratch arrays of one chunk (see the module docstring), the node pool sized for ``agents``."""
    nodes = tree_size(agents, MAX_SEATS if OBSERVED else 0)
    return (np.zeros((3, STATE_SIZE), STATE_DTYPE), np.zeros((3, rng.N_STREAMS), np.uint64),
            np.zeros((ACTION_ROWS, MAX_ACTIONS), np.int64), np.zeros(MAX_ACTIONS + MAX_SEATS, np.float64),
            np.zeros(WORK_SIZE, np.int64), np.zeros((nodes, NODE_WIDTH), np.int64), np.zeros(nodes, np.float64),
            np.zeros((MARK_ROWS, max(N_ACTION_CODES, MAX_SEATS)), np.int64))


def run_batch(params, agents, seed, start, out):
    """Games ``start .. start+len(out)-1``, chunk by chunk over all threads, each chunk with its own scratch."""
    n = out.shape[0]
    size = chunk_games(agents)
    n_chunks = (n + size - 1) // size
    for chunk in prange(n_chunks):
        states, streams, actions, floats, work, tree, totals, marks = scratch(agents)
        for g in range(chunk * size, min(n, (chunk + 1) * size)):
            play(params, agents, seed, start + g, states, streams, actions, floats, work, tree, totals, marks)
            write_row(states[GAME], params, out[g])


def count_kinds(game, params, seat, action, actions, counts, seen):
    """The trace's counts of the decision about to be played: ``counts[seat, kind]`` of the action's kind, and
    ``counts[seat, N_KINDS + kind]`` of every kind legal here (once each). The legal actions are listed into
    ``actions[CHECK]``, which nothing else holds between a decision and its action, and draw nothing."""
    kind = action_kind(game, params, action)
    if kind >= 0:
        counts[seat, kind] += 1
    listed = actions[CHECK]
    n = legal_actions(game, params, listed)
    seen[:] = 0
    for i in range(n):
        k = action_kind(game, params, listed[i])
        if k >= 0 and seen[k] == 0:
            seen[k] = 1
            counts[seat, N_KINDS + k] += 1


def record(game, params, table, steps, values):
    """Every seat's standing now into column ``steps`` of ``table`` (seats x MAX_TRACE_STEPS); once the table
    is full, into its last column again, so that it ends holding the standing at the end. Returns the columns
    used."""
    standing(game, params, values)
    column = min(steps, MAX_TRACE_STEPS - 1)
    for seat in range(MAX_SEATS):
        table[seat, column] = values[seat]
    return min(steps + 1, MAX_TRACE_STEPS)


def play_traced(params, agents, seed, game_index, states, streams, actions, floats, work, tree, totals, marks,
                table, counts, values, seen):
    """:func:`play`, recording the game as it goes: every seat's standing whenever the game's step (a round,
    or a turn) changes and at the end, and the action kinds each seat played and had (:func:`count_kinds`).
    Every seat decides through :func:`decide`, random seats too: it draws what :func:`playout` draws, so the
    game is the same. Returns the steps recorded."""
    game = states[GAME]
    live = streams[GAME]
    rng.seed_streams(live, seed, game_index)
    begin(game, params, live)
    steps = 0
    step = trace_step(game, params)
    current = False                 # the last column recorded holds the state as it is now
    seat = current_player(game, params)
    while seat >= 0:
        tree[0, N_VISITS] = 0
        action = decide(params, agents, seat, states, streams, actions, floats, work, tree, totals, marks)
        count_kinds(game, params, seat, action, actions, counts, seen)
        play_action(game, params, action, live, actions)
        seat = current_player(game, params)
        now = trace_step(game, params)
        current = now != step
        if current:
            steps = record(game, params, table, steps, values)
            step = now
    if not current:
        steps = record(game, params, table, steps, values)
    return steps


def run_traced(params, agents, seed, start, out, table, counts, info):
    """:func:`run_batch` with each game's trace: ``table[g]`` every seat's standing per step (seats x
    MAX_TRACE_STEPS), ``counts[g]`` every seat's played and legal counts per kind (seats x 2 N_KINDS, zeros
    on entry), ``info[g]`` the steps recorded and the end condition (-1: a timeout)."""
    n = out.shape[0]
    size = chunk_games(agents)
    n_chunks = (n + size - 1) // size
    for chunk in prange(n_chunks):
        states, streams, actions, floats, work, tree, totals, marks = scratch(agents)
        values = np.zeros(MAX_SEATS, np.int64)
        seen = np.zeros(N_KINDS + 1, np.int64)
        for g in range(chunk * size, min(n, (chunk + 1) * size)):
            info[g, 0] = play_traced(params, agents, seed, start + g, states, streams, actions, floats, work, tree,
                                     totals, marks, table[g], counts[g], values, seen)
            write_row(states[GAME], params, out[g])
            info[g, 1] = -1 if out[g, O_TIMEOUT] else end_condition(states[GAME], params)


def agent_action(params, agents, seat, state, live, work, stats):
    """The action ``agents[seat]`` takes in ``state`` (the handle's ``agent_action``): its draws advance the
    streams ``live`` as in a game of the engine, and ``work`` keeps what greedy plans for its next decision
    (Zwai's cell); the state is not changed. Returns the action and how many rows of ``stats`` hold its
    search's root (:func:`root_stats`; 0 when no search ran)."""
    states, streams, actions, floats, _, tree, totals, marks = scratch(agents)
    copy(state, states[GAME])
    copy(live, streams[GAME])
    action = decide(params, agents, seat, states, streams, actions, floats, work, tree, totals, marks)
    copy(streams[GAME], live)
    return action, root_stats(params, agents, seat, states[GAME], actions, floats, tree, totals, stats)


def search_tree(params, agents, seat, state, live):
    """The node pool and totals a search of ``agents[seat]`` leaves after deciding in ``state`` (with the
    streams ``live``, not changed): for reading a whole tree (``benchmarks/observed_tree.py``)."""
    states, streams, actions, floats, work, tree, totals, marks = scratch(agents)
    copy(state, states[GAME])
    copy(live, streams[GAME])
    decide(params, agents, seat, states, streams, actions, floats, work, tree, totals, marks)
    return tree, totals


def root_stats(params, agents, seat, game, actions, floats, tree, totals, stats):
    """What a search left at its root, one row per action it tried: the action, how often it was tried, its
    mean return for the mover (replays show them). mc tries every distinct legal action in every world;
    ISMCTS's root children include actions legal only in some resampled worlds. 0 rows when no search ran (a
    lone legal action, or random or greedy)."""
    kind = int(agents[seat, 0])
    if kind == MC:
        m = distinct(actions[LIST], legal_actions(game, params, actions[LIST]), actions[CANDIDATES])
        if m == 1:
            return 0
        for i in range(m):
            stats[i, 0] = actions[CANDIDATES, i]
            stats[i, 1] = agents[seat, 1]
            stats[i, 2] = floats[i] / agents[seat, 1]
        return m
    root = seat if OBSERVED and agents[seat, 6] == 1 else 0     # an observed tree's seat has its own root
    if kind != ISMCTS or tree[root, N_VISITS] == 0:
        return 0
    rows = 0
    child = tree[root, N_CHILD]
    while child >= 0:
        stats[rows, 0] = tree[child, N_ACTION]
        stats[rows, 1] = tree[child, N_VISITS]
        stats[rows, 2] = totals[child] / tree[child, N_VISITS]
        rows += 1
        child = tree[child, N_SIBLING]
    return rows


def search_batch(params, agents, seed, start, n):
    """Games ``start .. start+n-1`` on this thread alone, for ``simcore bench``: the ISMCTS iterations run."""
    states, streams, actions, floats, work, tree, totals, marks = scratch(agents)
    iterations = 0
    for g in range(start, start + n):
        iterations += play(params, agents, seed, g, states, streams, actions, floats, work, tree, totals, marks)
    return iterations


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


INTERFACE = ("begin", "current_player", "legal_actions", "apply_action", "returns", "resample", "greedy_action",
             "evaluate", "observed_action", "revealed", "num_players", "write_row", "standing", "trace_step",
             "action_kind", "end_condition")
# what a game without a capability gets: flag of simcore.games.GameType -> {name: default}
DEFAULTS = {"hidden_information": {"resample": kernel(nothing_hidden)},
            "heuristic": {"greedy_action": kernel(no_heuristic), "WORK_SIZE": 1},
            "evaluate": {"evaluate": kernel(no_evaluate)},
            "observations": {"observed_action": kernel(all_observed), "revealed": kernel(nothing_revealed),
                             "num_players": kernel(no_players)}}
SIZES = ("STATE_SIZE", "STATE_DTYPE", "MAX_ACTIONS", "MAX_SEATS", "WORK_SIZE", "N_ACTION_CODES")   # of the scratch
TEMPLATES = (random_action, playout, greedy_playout, cut_playout, play_out, all_random, distinct, best_of, copy,
             mc_action, expand_pick, lone_action, to_expand, chosen, ismcts_action, observe, observed_ismcts_action,
             decide, play, root_stats, count_kinds, record, play_traced)
OWN = ("random_action",)    # templates a game may replace with its own faster equivalent
INLINE = ("decide",)        # inlined where called: a call per decision passes eleven arrays on the stack


def defaults(game_type):
    """The defaults of the capabilities ``game_type`` does not declare: name -> jitted function or size."""
    out = {}
    for flag, names in DEFAULTS.items():
        if game_type is not None and not getattr(game_type, flag):
            out.update(names)
    return out


def instantiate(game_globals, search=True):
    """Compile the agents, the game loop and ``run_batch`` for one game: name -> jitted function, the
    interface names bound to the game's functions (or the defaults of capabilities it lacks) and the scratch
    sizes to its constants.

    ``search=False`` gives the game's plain copy: its ``run_batch`` plays random and greedy seats only (the
    same games as the whole one's, for those seats) and compiles no search, in a fraction of the time; the
    engine takes it when no seat searches (``simcore.engine.batch_function``).

    Each copy is cached under the game's name (numba names a cache entry after the file and the qualified
    name), so the games' copies never collide. ``play_action`` is bound to :func:`apply_checked` or
    :func:`apply_unchecked` (module docstring). ``run_batch`` allocates the scratch, so it is numba's plain
    ``njit(parallel=True)`` (with reference counting); everything it calls is a :func:`simcore.engine.jit.kernel`."""
    game_globals = {**defaults(game_globals.get("GAME")), **game_globals}
    missing = [name for name in INTERFACE + SIZES if name not in game_globals]
    if missing:
        raise ValueError(f"{game_globals['__name__']} does not provide {', '.join(missing)}; allowed: a game "
                         "module with every name of simcore.games.CONTRACT and of its CAPABILITIES")
    namespace = dict(globals())
    namespace.update({name: game_globals[name] for name in INTERFACE + SIZES})
    namespace["SEARCH"] = search
    namespace["N_KINDS"] = len(game_globals["ACTION_KINDS"])
    namespace["MAX_TRACE_STEPS"] = game_globals["MAX_TRACE_STEPS"]
    namespace["OBSERVED"] = bool(getattr(game_globals.get("GAME"), "observations", False))
    game = game_globals["__name__"].rpartition(".")[2]
    # the checked build's entries are named apart too, should a user's NUMBA_CACHE_DIR hold both builds
    prefix = (f"{game}.checked" if CHECK_LEGAL else game) + ("" if search else ".plain")
    compiled = {}
    for name in OWN:
        if name in game_globals:
            namespace[name] = compiled[name] = game_globals[name]

    def bind(template, compile_, name=None):
        name = name or template.__name__
        function = types.FunctionType(template.__code__, namespace, template.__name__)
        function.__qualname__ = f"{prefix}.{template.__name__}"
        function.__module__ = game_globals["__name__"]
        namespace[name] = compiled[name] = compile_(function)

    if CHECK_LEGAL:
        bind(apply_checked, kernel, "play_action")
    else:
        bind(apply_unchecked, kernel(inline="always"), "play_action")
    for template in TEMPLATES:
        if template.__name__ not in compiled:
            bind(template, kernel(inline="always") if template.__name__ in INLINE else kernel)
    bind(scratch, njit(cache=True))
    if search:
        bind(search_batch, njit(cache=True))
        bind(agent_action, njit(cache=True))
        bind(search_tree, njit(cache=True))
    bind(run_batch, njit(cache=True, parallel=True))
    bind(run_traced, njit(cache=True, parallel=True))     # compiled on its first call: a traced run only
    compiled.update({name: namespace[name] for name in INTERFACE + SIZES})
    return compiled


class Bound:
    """A game's agents and game loop, compiled for it (:func:`bind`): the jitted interface (``interface``,
    the game's own functions and the defaults of what it lacks), the whole copy (``compiled``: every agent)
    and the plain one (random and greedy seats only, no search compiled)."""

    def __init__(self, module):
        self.compiled = instantiate(vars(module))
        self.interface = {name: self.compiled[name] for name in INTERFACE + SIZES}
        self.run_batch = self.compiled["run_batch"]
        self.run_traced = self.compiled["run_traced"]
        self.search_batch = self.compiled["search_batch"]
        self.agent_action = self.compiled["agent_action"]
        self.search_tree = self.compiled["search_tree"]
        self._module = module
        self._plain = None

    @property
    def plain(self):
        """The plain copy (no search compiled): built on first use, so a searching run never makes it."""
        if self._plain is None:
            self._plain = instantiate(vars(self._module), search=False)
        return self._plain

    @property
    def run_plain(self):
        return self.plain["run_batch"]

    @property
    def run_plain_traced(self):
        return self.plain["run_traced"]


_BOUND = {}


def bind(module):
    """The game module's :class:`Bound` copy of the agents and game loop, made once per process."""
    if module.__name__ not in _BOUND:
        _BOUND[module.__name__] = Bound(module)
    return _BOUND[module.__name__]
