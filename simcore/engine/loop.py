"""The game loop, written once over the decision interface: a game played seat by seat, each seat's agent deciding
(``simcore.agents.core.decide``), a thread's share of a batch of games, the traced loop, and the entry points that
play one decision or one thread's games.

Like the agents, these are templates: ``simcore.engine.binding.instantiate`` compiles a copy of them for each game,
with the interface names (``simcore.engine.interface``) bound to the game's functions. Every action goes through
``play_action(state, params, action, streams, actions)``: :func:`apply_checked` in a checked build (every action
the game loop and the agents apply must be legal in its state, else ``AssertionError``, raised as it is by every
entry point), else :func:`apply_unchecked`, the game's ``apply_action`` inlined: no cost. ``SIMCORE_CHECK_LEGAL=1``
in the environment when simcore is imported makes every copy a checked one (the tests set it); ``simcore check``
binds a checked copy of its own.

A game package may be broken; the loop keeps it from breaking the engine. Every game ends within ``MAX_STEPS``
decisions (the game's constant, else the contract's default): one still running then is a timeout. A decision with
no legal action, or of an action outside the game's codes, stops the batch with what went wrong recorded in its
``flags`` (:func:`broken`), which Python turns into one line (``simcore.engine.binding.Threaded``); an action
outside the codes is never applied, in a search's rollout neither (:class:`BrokenGame`). The same flags let Python
stop every thread of a batch at its next game (Ctrl-C, SIGTERM).
"""

import numpy as np

from simcore.agents import ISMCTS, MC
from simcore.agents.core import (
    CHECK,
    GAME,
    LIST,
    N_VISITS,
    all_random,
    copy,
    decide,
    forbidden,
    random_action,
    root_stats,
    scratch,
)
from simcore.engine import rng
from simcore.engine.interface import (
    MAX_SEATS,
    MAX_STEPS,
    MAX_TRACE_STEPS,
    N_ACTION_CODES,
    N_KINDS,
    RANDOM_GAME_SCRATCH,
    action_kind,
    apply_action,
    begin,
    current_player,
    end_condition,
    legal_actions,
    play_action,
    prepare_random_game,
    random_game,
    standing,
    trace_step,
    write_row,
)
from simcore.engine.jit import kernel
from simcore.engine.rows import O_TIMEOUT, O_WIN

CHUNK = 256            # games per chunk, a thread's unit of work; fixed, never derived from the thread count
SEARCH_CHUNK = 4       # ... when a seat searches (mc, ismcts): its games are slow, small tasks keep every thread busy
# A batch's flags, one int64 array its threads share: F_HALT stops every thread at its next game (Python sets it
# on an interrupt; a thread that meets a broken decision sets it too); the broken decision: what is wrong (F_ERROR,
# NO_ACTION or BAD_CODE), the seat, the step (decisions played before it), the game index and the action.
F_HALT, F_ERROR, F_SEAT, F_STEP, F_GAME, F_ACTION = range(6)
FLAGS = 6
NO_ACTION, BAD_CODE = 1, 2


class BrokenGame(Exception):
    """An action outside the game's codes reached ``play_action``, in a search's rollout (the game loop's own
    decisions are caught before, by :func:`broken`, with the seat and step): never applied, as the game's
    ``apply_action`` would index past its arrays."""


def apply_checked(state, params, action, streams, actions):
    """``apply_action`` of an action that must be legal in ``state`` (``SIMCORE_CHECK_LEGAL=1``): the legal
    actions are listed into ``actions[CHECK]``, a row nothing else uses, so the caller's lists survive."""
    if action < 0 or action >= N_ACTION_CODES:
        raise BrokenGame("an action outside the game's codes")
    listed = actions[CHECK]
    n = legal_actions(state, params, listed)
    for i in range(n):
        if listed[i] == action:
            apply_action(state, params, action, streams)
            return
    raise AssertionError("illegal action applied: not among the legal actions of its state (SIMCORE_CHECK_LEGAL)")


def apply_unchecked(state, params, action, streams, actions):
    """``apply_action`` itself, of an action among the game's codes; inlined where called, so the unused
    ``actions`` costs nothing."""
    if action < 0 or action >= N_ACTION_CODES:
        raise BrokenGame("an action outside the game's codes")
    apply_action(state, params, action, streams)


def broken(seat, action, n, step, game_index, flags):
    """Is the decision about to be played impossible: no legal action offered (``n`` of them), or an action outside
    the game's codes? If so, what and where is recorded in ``flags`` (whose F_HALT stops the other threads too)."""
    error = NO_ACTION if n <= 0 else BAD_CODE if action < 0 or action >= N_ACTION_CODES else 0
    if error:
        flags[F_ERROR] = error
        flags[F_SEAT] = seat
        flags[F_STEP] = step
        flags[F_GAME] = game_index
        flags[F_ACTION] = action
        flags[F_HALT] = 1
    return error != 0


def end_row(game, params, row):
    """The game's result row; a game still running (stopped by ``MAX_STEPS``) is marked a timeout that no seat
    won, whatever the game wrote of its unfinished state."""
    write_row(game, params, row)
    if current_player(game, params) >= 0:
        row[O_TIMEOUT] = 1
        for seat in range(MAX_SEATS):
            row[O_WIN + seat] = 0


@kernel
def chunk_games(agents):
    """Games per chunk: CHUNK, or SEARCH_CHUNK when a seat searches, so that a few hundred searching games still
    spread over every thread. A row depends on its seed and game index only, never on this."""
    for seat in range(agents.shape[0]):
        if agents[seat, 0] == MC or agents[seat, 0] == ISMCTS:
            return SEARCH_CHUNK
    return CHUNK


def offered(game, params, action, step, listed):
    """How many legal actions the decision of ``action`` had, as far as the game loop's check (:func:`broken`)
    needs it. The game loop lists them where that is cheap against the decision: at each game's first decision,
    and whenever the agent chose no action (-1, as the agents' uniform pick does from an empty list). A game's own
    ``random_action`` lists nothing, so listing at every move would cost random play half its speed; an action
    among the codes that is not legal is the checked build's to catch (``simcore check``)."""
    return legal_actions(game, params, listed) if step == 0 or action < 0 else 1


def play(params, agents, seed, game_index, states, streams, actions, floats, work, tree, totals, marks, flags):
    """Game ``game_index`` of ``seed`` with the agent of ``agents[seat]`` deciding for each seat, played in
    ``states[GAME]`` for at most ``MAX_STEPS`` decisions, each checked (:func:`broken`); returns how many ISMCTS
    iterations its seats ran (``simcore bench`` counts them)."""
    game = states[GAME]
    live = streams[GAME]
    rng.seed_streams(live, seed, game_index)
    begin(game, params, live)
    fast = all_random(agents)      # the same draws as decide's, without asking each seat's agent
    iterations = 0
    seat = current_player(game, params)
    for step in range(MAX_STEPS):
        if seat < 0:
            break
        if fast:
            action = random_action(game, params, seat, live, actions[LIST])
        else:
            tree[0, N_VISITS] = 0                        # a search counts its iterations at the root
            action = decide(params, agents, seat, states, streams, actions, floats, work, tree, totals, marks)
            iterations += tree[0, N_VISITS]
        # listed into a row nothing holds between a decision and its action
        if broken(seat, action, offered(game, params, action, step, actions[CHECK]), step, game_index, flags):
            break
        play_action(game, params, action, live, actions)
        seat = current_player(game, params)
    return iterations


def run_batch(params, agents, seed, start, out, first, stop, flags):
    """Chunks ``first .. stop-1`` of games ``start .. start+len(out)-1`` (chunk ``c``: games ``c * size ..``), with
    one scratch for all their games: a thread's share of a batch (``simcore.engine.binding.Threaded``). It stops
    at the next game once ``flags[F_HALT]`` is set."""
    n = out.shape[0]
    size = chunk_games(agents)
    states, streams, actions, floats, work, tree, totals, marks = scratch(agents)
    for chunk in range(first, min(stop, (n + size - 1) // size)):
        for g in range(chunk * size, min(n, (chunk + 1) * size)):
            if flags[F_HALT]:
                return
            play(params, agents, seed, start + g, states, streams, actions, floats, work, tree, totals, marks, flags)
            end_row(states[GAME], params, out[g])


def run_random_games(params, agents, seed, start, out, first, stop, flags):
    """:func:`run_batch` of a run whose every seat is random and unrestricted, each game played whole by the game's
    own ``random_game`` (``simcore.games.OPTIONAL``), which plays the game loop's games, in the same chunks. Bound
    only for a game that has one, and played only where its ``prepare_random_game`` takes ``params``
    (``simcore.engine.plays_random_games``)."""
    n = out.shape[0]
    scratch = np.zeros(RANDOM_GAME_SCRATCH, np.int64)
    prepare_random_game(params, scratch)
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    for chunk in range(first, min(stop, (n + CHUNK - 1) // CHUNK)):
        for g in range(chunk * CHUNK, min(n, (chunk + 1) * CHUNK)):
            if flags[F_HALT]:
                return
            random_game(params, scratch, streams, seed, start + g, out[g])


def count_kinds(game, params, seat, action, actions, counts, seen, forbid):
    """The trace's counts of the decision about to be played: ``counts[seat, kind]`` of the action's kind, and
    ``counts[seat, N_KINDS + kind]`` of every kind legal here (once each); ``counts[seat, 2 N_KINDS]`` counts the
    moves of a kind the seat's restriction forbids (``forbid``), played because only such were legal. The legal
    actions are listed into ``actions[CHECK]``, which nothing else holds between a decision and its action, and
    draw nothing."""
    kind = action_kind(game, params, action)
    if kind >= 0:
        counts[seat, kind] += 1
        if (forbid >> kind) & 1:
            counts[seat, 2 * N_KINDS] += 1
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
                table, counts, values, seen, flags):
    """:func:`play`, recording the game as it goes: every seat's standing whenever the game's step (a round,
    or a turn) changes and at the end, and the action kinds each seat played and had (:func:`count_kinds`).
    Every seat decides through :func:`decide`, random seats too: it draws what :func:`play` draws, so the
    game is the same; its decisions are checked and capped as :func:`play`'s. Returns the steps recorded."""
    game = states[GAME]
    live = streams[GAME]
    rng.seed_streams(live, seed, game_index)
    begin(game, params, live)
    steps = 0
    step = trace_step(game, params)
    current = False                 # the last column recorded holds the state as it is now
    seat = current_player(game, params)
    for decision in range(MAX_STEPS):
        if seat < 0:
            break
        tree[0, N_VISITS] = 0
        action = decide(params, agents, seat, states, streams, actions, floats, work, tree, totals, marks)
        if broken(seat, action, offered(game, params, action, decision, actions[CHECK]), decision, game_index, flags):
            break
        count_kinds(game, params, seat, action, actions, counts, seen, forbidden(agents, seat))
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


def run_traced(params, agents, seed, start, out, table, counts, info, first, stop, flags):
    """:func:`run_batch` with each game's trace: ``table[g]`` every seat's standing per step (seats x
    MAX_TRACE_STEPS), ``counts[g]`` every seat's played and legal counts per kind and its forced moves (seats x
    2 N_KINDS + 1, zeros on entry), ``info[g]`` the steps recorded and the end condition (-1: a timeout)."""
    n = out.shape[0]
    size = chunk_games(agents)
    states, streams, actions, floats, work, tree, totals, marks = scratch(agents)
    values = np.zeros(MAX_SEATS, np.int64)
    seen = np.zeros(N_KINDS + 1, np.int64)
    for chunk in range(first, min(stop, (n + size - 1) // size)):
        for g in range(chunk * size, min(n, (chunk + 1) * size)):
            if flags[F_HALT]:
                return
            info[g, 0] = play_traced(params, agents, seed, start + g, states, streams, actions, floats, work, tree,
                                     totals, marks, table[g], counts[g], values, seen, flags)
            end_row(states[GAME], params, out[g])
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


def search_batch(params, agents, seed, start, n):
    """Games ``start .. start+n-1`` on this thread alone, for ``simcore bench``: the ISMCTS iterations run."""
    states, streams, actions, floats, work, tree, totals, marks = scratch(agents)
    flags = np.zeros(FLAGS, np.int64)
    iterations = 0
    for g in range(start, start + n):
        iterations += play(params, agents, seed, g, states, streams, actions, floats, work, tree, totals, marks,
                           flags)
    return iterations
