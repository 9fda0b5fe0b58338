"""The skirmish's heuristics: the greedy moves and throws, and the evaluation of a state (nothing is hidden)."""

import numpy as np

from simcore.engine import rng
from simcore.engine.estimates import win_shares
from simcore.engine.jit import kernel
from simcore.games.skirmish.rules import (
    A_STAY,
    A_THROW,
    CAPTURE_THE_FLAG,
    DEEP,
    GROUP,
    HEAVY,
    MAX_ACTIONS,
    MAX_GNOMES,
    MAX_SEATS,
    P_GNOMES,
    P_HEIGHT,
    P_SCENARIO,
    P_WIDTH,
    P_YARD,
    PH_THROW,
    RANGED,
    S_FLAG,
    S_FLAG_AT,
    S_GNOME,
    S_PHASE,
    S_POS,
    S_TARGETS,
    WIZARD_WAR,
    cheb,
    col_of,
    dist,
    gnome_type,
    gnome_value,
    hit_probability,
    ranged_gnome,
    reachable,
    row_of,
    target_value,
)

SLOT = MAX_ACTIONS + 1    # greedy's options: the reachable cells, then staying
WORK_SIZE = 6 * SLOT + 3 * GROUP   # greedy's scratch: the options, their rows, columns, nearest foe, foes within
                                   # reach and scores; three groups of gnomes


@kernel
def greedy_target(state, params, player):
    """Greedy's target: the highest value, then the highest hit probability, then the lowest gnome number."""
    me = state[S_POS + player * MAX_GNOMES + ranged_gnome(params)]
    enemy = 1 - player
    best = -1
    best_value = -1
    best_p = -1.0
    for j in range(params[P_GNOMES]):
        if not (state[S_TARGETS] >> j) & 1:
            continue
        v = target_value(state, params, enemy, j)
        p = hit_probability(params, dist(params, me, state[S_POS + enemy * MAX_GNOMES + j]))
        if v > best_value or (v == best_value and p > best_p):
            best, best_value, best_p = j, v, p
    return best



@kernel
def collect_goals(state, params, player, k, goals):
    """Greedy: the cells gnome (player, k) heads for, into ``goals``; returns (how many, home row or -1).

    A flag carrier heads for its own edge row; the ranged gnome and everyone in last_man_standing for the
    enemies; in wizard_war the enemy wizard (else the enemies); in capture_the_flag loose flags and enemy
    carriers (else the enemies)."""
    enemy = 1 - player
    scenario = params[P_SCENARIO]
    if scenario == CAPTURE_THE_FLAG and state[S_FLAG + player * MAX_GNOMES + k] >= 0:
        return 0, (0 if player == 0 else params[P_HEIGHT] - 1)
    n = 0
    if gnome_type(params, k) != RANGED:
        if scenario == WIZARD_WAR:
            at = state[S_POS + enemy * MAX_GNOMES + ranged_gnome(params)]
            if at >= 0:
                goals[0] = at
                return 1, -1
        elif scenario == CAPTURE_THE_FLAG:
            for f in range(2):
                if state[S_FLAG_AT + f] >= 0:
                    goals[n] = state[S_FLAG_AT + f]
                    n += 1
            for j in range(params[P_GNOMES]):
                at = state[S_POS + enemy * MAX_GNOMES + j]
                if at >= 0 and state[S_FLAG + enemy * MAX_GNOMES + j] >= 0:
                    goals[n] = at
                    n += 1
            if n > 0:
                return n, -1
    for j in range(params[P_GNOMES]):
        at = state[S_POS + enemy * MAX_GNOMES + j]
        if at >= 0:
            goals[n] = at
            n += 1
    return n, -1



@kernel
def collect_gnomes(state, params, player, skip, out):
    """The cells of ``player``'s gnomes in action (but gnome ``skip``) into ``out``; returns how many."""
    n = 0
    for j in range(params[P_GNOMES]):
        at = state[S_POS + player * MAX_GNOMES + j]
        if j != skip and at >= 0:
            out[n] = at
            n += 1
    return n



@kernel(inline="always")
def near(r, c, others, n, reach):
    """(closest Chebyshev distance from (r, c) to the first ``n`` cells of ``others``, given as rows then
    columns (``others[i]``, ``others[MAX_GNOMES * 2 + i]``), how many lie within ``reach``)."""
    closest = 1 << 30
    within = 0
    for i in range(n):
        d = max(abs(r - others[i]), abs(c - others[2 * MAX_GNOMES + i]))
        closest = min(closest, d)
        within += d <= reach
    return closest, within



@kernel(inline="always")
def same_cells(a, n_a, b, n_b):
    """Do the first ``n_a`` cells of ``a`` and the first ``n_b`` of ``b`` agree, in order?"""
    if n_a != n_b:
        return False
    for i in range(n_a):
        if a[i] != b[i]:
            return False
    return True


@kernel
def as_rows_cols(params, cells, n):
    """Rewrite the first ``n`` cells in place as rows, with their columns 2 * MAX_GNOMES further on."""
    for i in range(n):
        cells[2 * MAX_GNOMES + i] = col_of(params, cells[i])
        cells[i] = row_of(params, cells[i])



@kernel(inline="always")
def nearest(rows, cols, n, others, n_others, reach, closest, within):
    """For each of the first ``n`` cells (``rows``, ``cols``): ``closest``, the Chebyshev distance to the nearest
    of ``others`` (rows then columns, as :func:`near`), and ``within``, how many of them lie within ``reach``.

    The others outside, the cells inside: the inner loop runs over up to SLOT cells and LLVM vectorises it, where
    a loop over a cell's few foes could not be (greedy's scores were 40% of the recommended search's time)."""
    for j in range(n):
        closest[j] = 1 << 30
        within[j] = 0
    for i in range(n_others):
        r, c = others[i], others[2 * MAX_GNOMES + i]
        for j in range(n):
            d = max(abs(rows[j] - r), abs(cols[j] - c))
            closest[j] = min(closest[j], d)
            within[j] += d <= reach


@kernel(inline="always")
def greedy_scores(rows, cols, n, goals, n_goals, home_row, foes, n_foes, friends, n_friends, kind, goals_are_foes,
                  closest, within, scores):
    """Each option's score: -10 x the distance to the nearest goal, -1000 for a contact where the side does not
    outnumber; returns (the best score, how many options have it)."""
    if home_row < 0 and n_goals > 0 and not goals_are_foes:
        nearest(rows, cols, n, goals, n_goals, 0, scores, within)    # within: the foes' pass overwrites it
    nearest(rows, cols, n, foes, n_foes, 2, closest, within)
    best = -(1 << 62)
    tied = 0
    for j in range(n):
        if home_row >= 0:
            distance = abs(rows[j] - home_row)
        elif n_goals == 0:
            distance = 0
        elif goals_are_foes:           # heading for the enemies (last man standing): the foes' pass gives both
            distance = closest[j]
        else:
            distance = scores[j]
        score = -10 * distance
        if closest[j] == 1 and kind != HEAVY:
            near_friends = 1 + near(rows[j], cols[j], friends, n_friends, 2)[1]   # the mover, counted at the cell
            if kind == RANGED or near_friends <= within[j]:
                score -= 1000
        scores[j] = score
        if score > best:
            best, tied = score, 0
        tied += score == best
    return best, tied


@kernel
def greedy_options(state, params, player, k, cells, rows, cols):
    """Greedy's options for gnome (player, k) into ``cells`` with their rows and columns: the reachable cells
    but deep water (greedy never walks into it), row-major, then staying; returns how many cells."""
    n = 0
    for i in range(reachable(state, params, player, k, cells)):
        cell = cells[i]
        cells[n], rows[n], cols[n] = cell, row_of(params, cell), col_of(params, cell)
        n += params[P_YARD + cell] != DEEP         # written always, kept when not deep: no branch to mispredict
    here = state[S_POS + player * MAX_GNOMES + k]
    cells[n], rows[n], cols[n] = here, row_of(params, here), col_of(params, here)
    return n


@kernel
def greedy_move(state, params, player, k, streams, work):
    """Greedy's destination for gnome (player, k) as an action code: the best-scoring option, staying first,
    then the reachable cells; ties drawn (always)."""
    return greedy_destination(state, params, player, k, streams, work, True)


@kernel
def greedy_destination(state, params, player, k, streams, work, may_stay):
    """:func:`greedy_move`, staying among the options only where ``may_stay`` (a restriction may forbid it: then
    the best-scoring reachable cell, ties drawn among the cells; -1 when greedy would walk to none)."""
    cells, rows, cols = work[:SLOT], work[SLOT:2 * SLOT], work[2 * SLOT:3 * SLOT]
    n = greedy_options(state, params, player, k, cells, rows, cols)
    # what it heads for and who stands where, gathered once for all its options
    groups = work[6 * SLOT:]
    goals, foes, friends = groups[:GROUP], groups[GROUP:2 * GROUP], groups[2 * GROUP:]
    n_goals, home_row = collect_goals(state, params, player, k, goals)
    n_foes = collect_gnomes(state, params, 1 - player, -1, foes)
    n_friends = collect_gnomes(state, params, player, k, friends)
    goals_are_foes = same_cells(goals, n_goals, foes, n_foes)
    as_rows_cols(params, goals, n_goals)
    as_rows_cols(params, foes, n_foes)
    as_rows_cols(params, friends, n_friends)
    closest, within, scores = work[3 * SLOT:4 * SLOT], work[4 * SLOT:5 * SLOT], work[5 * SLOT:6 * SLOT]
    best, tied = greedy_scores(rows, cols, n + 1 if may_stay else n, goals, n_goals, home_row, foes, n_foes, friends,
                               n_friends, gnome_type(params, k), goals_are_foes, closest, within, scores)
    if n == 0 and not may_stay:
        return -1
    r = rng.randint(streams, rng.POLICY + player, tied)
    if may_stay and scores[n] == best:              # staying (the option after the cells) comes first
        if r == 0:
            return A_STAY
        r -= 1
    for i in range(n):
        if scores[i] == best:
            if r == 0:
                return cells[i]
            r -= 1
    return A_STAY


@kernel
def greedy_action(state, params, seat, streams, work):
    """The greedy policy's action (docs/skirmish.md, "greedy")."""
    if state[S_PHASE] == PH_THROW:
        return A_THROW + greedy_target(state, params, seat)
    # int64 like the cells: an int32 gnome number (read from the state) compiled second copies of greedy's helpers,
    # and greedy play ran 2% slower (measured)
    return greedy_move(state, params, seat, np.int64(state[S_GNOME]), streams, work)


@kernel
def greedy_among(state, params, seat, streams, work, listed, n):
    """Greedy among the actions ``listed[:n]`` (those a restriction allows): a throw is greedy's own (every throw
    is of one kind); a move where staying is forbidden is the best-scoring reachable cell, one where moving is
    forbidden is staying; a cell only deep water leaves is the first listed (greedy never walks into it)."""
    stay, move = False, False
    for i in range(n):
        stay = stay or listed[i] == A_STAY
        move = move or listed[i] != A_STAY
    if state[S_PHASE] == PH_THROW or (stay and move):
        return greedy_action(state, params, seat, streams, work)
    if stay:
        return A_STAY
    cell = greedy_destination(state, params, seat, np.int64(state[S_GNOME]), streams, work, False)
    return cell if cell >= 0 else listed[0]


# --- the evaluation ------------------------------------------------------------------

SPREAD = 2.0        # material: a lead of a fast cavalry's worth weighs e to 1 (docs/skirmish.md, "evaluate")
FLAG_VALUE = 3.0    # a flag carried, more as its carrier nears the own edge row; less for one within reach


@kernel
def flag_cell(state, params, f):
    """Where flag ``f`` is: the cell it lies on, or its carrier's cell."""
    if state[S_FLAG_AT + f] >= 0:
        return state[S_FLAG_AT + f]
    for i in range(MAX_SEATS * MAX_GNOMES):
        if state[S_FLAG + i] == f and state[S_POS + i] >= 0:
            return state[S_POS + i]
    return -1


@kernel
def flag_standing(state, params, player):
    """capture_the_flag: per flag, FLAG_VALUE times 2 minus the share of the yard its carrier still has to go
    to the own edge row, if the player carries it; else up to FLAG_VALUE / 2 as its nearest free gnome (one
    carrying no flag) stands closer to it (cheb distance over the yard's size)."""
    edge = 0 if player == 0 else params[P_HEIGHT] - 1
    size = max(params[P_HEIGHT], params[P_WIDTH])
    value = 0.0
    for f in range(2):
        cell = flag_cell(state, params, f)
        nearest = size
        for k in range(params[P_GNOMES]):
            i = player * MAX_GNOMES + k
            here = state[S_POS + i]
            if here < 0:
                continue
            if state[S_FLAG + i] == f:
                nearest = -1
                value += FLAG_VALUE * (2.0 - abs(row_of(params, here) - edge) / max(1, params[P_HEIGHT] - 1))
                break
            if state[S_FLAG + i] < 0 and cell >= 0:
                nearest = min(nearest, cheb(params, here, cell))
        if nearest >= 0:
            value += FLAG_VALUE / 2 * (1.0 - nearest / size)
    return value


@kernel
def standing(state, params, player):
    """The player's material (greedy's values: foot 1, fast cavalry and ranged 2, heavy cavalry 3, for each
    gnome in action), and in capture_the_flag its hold on the flags (:func:`flag_standing`)."""
    value = 0.0
    for k in range(params[P_GNOMES]):
        if state[S_POS + player * MAX_GNOMES + k] >= 0:
            value += gnome_value(params, k)
    if params[P_SCENARIO] == CAPTURE_THE_FLAG:
        value += flag_standing(state, params, player)
    return value


@kernel
def evaluate(state, params, seat, out):
    """Each player's chance to win as the yard stands: a softmax of the standings (:func:`standing`) over
    SPREAD. The game has no hidden information, so both seats see the same estimate."""
    for p in range(MAX_SEATS):
        out[p] = standing(state, params, p)
    win_shares(out, MAX_SEATS, SPREAD)
