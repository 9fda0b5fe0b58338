"""Zwergen Ziehen's heuristics: the greedy policy and the evaluation of a state, reading only what a seat may
see."""

import math

from simcore.engine import rng
from simcore.engine.jit import kernel
from simcore.games.zwergen.rules import (
    A_COLOUR,
    A_DISCARD,
    CARD_KIND,
    K_ADD,
    M_PLAY,
    M_RE,
    MAX_MOVES,
    N_COLOURS,
    N_TYPES,
    P_PLAYERS,
    P_ROUNDS_TO_WIN,
    PH_COLOUR,
    PH_DISCARD,
    PH_MOVE,
    PREF,
    S_HAND,
    S_PHASE,
    S_ROPE,
    S_ROUNDS,
    S_SUPPLY,
    WIN_SCORE,
    decode_move,
    effect,
    front,
    front_at,
    full_mask,
    move_actions,
    team_of,
    team_size,
    toward,
)

# --- greedy -------------------------------------------------------------------


@kernel
def colour_pref(state, seat, c):
    """+1 per card in hand that makes colour c count 2, -1 per card that makes it 0."""
    total = 0
    for t in range(N_TYPES):
        total += state[S_HAND + seat * N_TYPES + t] * PREF[t, c]
    return total


@kernel
def greedy_colour(state, seat, streams):
    """The starting colour in stock that the hand likes best; ties drawn (always)."""
    best = -(1 << 30)
    tied = 0
    for c in range(N_COLOURS):
        if state[S_SUPPLY + c] > 0:
            p = colour_pref(state, seat, c)
            if p > best:
                best = p
                tied = 0
            if p == best:
                tied += 1
    r = rng.randint(streams, rng.POLICY + seat, tied)
    for c in range(N_COLOURS):
        if state[S_SUPPLY + c] > 0 and colour_pref(state, seat, c) == best:
            if r == 0:
                return c
            r -= 1
    return -1


@kernel(inline="always")
def greedy_score(state, params, seat, kind, t, c):
    """One-ply value of a move: win/lose the round, else track gain + 2 per gnome."""
    team = team_of(seat)
    rope, d_own, d_opp = effect(state, params, seat, kind, t, c)
    rope += state[S_ROPE]
    own_size = team_size(state, team) + d_own
    opp_size = team_size(state, 1 - team) + d_opp
    if front_at(params, 1 - team, opp_size, rope) <= 0:
        base = WIN_SCORE
    elif front_at(params, team, own_size, rope) <= 0:
        base = -WIN_SCORE
    else:
        base = toward(team) * (rope - state[S_ROPE]) + 2 * (d_own - d_opp)
    score = 10 * base
    if kind == M_RE or (kind == M_PLAY and CARD_KIND[t] == K_ADD):
        score += min(5, max(-5, colour_pref(state, seat, c)))
    return score


@kernel(inline="always")
def greedy_move(state, params, seat, streams, moves, scores):
    """The best-scoring move; ties drawn among the tied moves in listing order (always)."""
    return best_move(state, params, seat, streams, moves, move_actions(state, params, seat, moves), scores)


@kernel(inline="always")
def best_move(state, params, seat, streams, moves, n, scores):
    """The best-scoring of the moves ``moves[:n]``; ties drawn among the tied moves in listing order (always)."""
    best = -(1 << 40)
    tied = 0
    for i in range(n):
        kind, t, c = decode_move(moves[i])
        scores[i] = greedy_score(state, params, seat, kind, t, c)
        if scores[i] > best:
            best = scores[i]
            tied = 0
        if scores[i] == best:
            tied += 1
    r = rng.randint(streams, rng.POLICY + seat, tied)
    for i in range(n):
        if scores[i] == best:
            if r == 0:
                return moves[i]
            r -= 1
    return moves[n - 1]


@kernel
def greedy_action(state, params, seat, streams, work):
    """The greedy policy's action (docs/zwergen.md, "greedy")."""
    phase = state[S_PHASE]
    if phase == PH_COLOUR:
        return A_COLOUR + greedy_colour(state, seat, streams)
    if phase == PH_DISCARD:
        return A_DISCARD + full_mask(state, seat)    # greedy's swap discards the whole hand: nothing to draw
    return greedy_move(state, params, seat, streams, work[:MAX_MOVES], work[MAX_MOVES:])


@kernel
def greedy_among(state, params, seat, streams, work, listed, n):
    """Greedy among the moves ``listed[:n]`` (those a restriction allows, in the legal listing's order): the
    best-scoring of them; a starting colour and a swap's discards have no kind, so they are greedy's own."""
    if state[S_PHASE] != PH_MOVE:
        return greedy_action(state, params, seat, streams, work)
    return best_move(state, params, seat, streams, listed, n, work[MAX_MOVES:])


# --- the evaluation ------------------------------------------------------------------

ROUND_SPREAD = 2.0   # spaces: a front gnome one space farther from the fence than the other's wins 62% of rounds


@kernel
def round_chance(state, params):
    """Team A's chance to win the round as the track stands: a logistic of how much farther from the fence its
    front gnome stands than B's, over ROUND_SPREAD spaces (the team nearer the fence is pulled into it)."""
    lead = front(state, params, 0) - front(state, params, 1)
    return 1.0 / (1.0 + math.exp(-lead / ROUND_SPREAD))


@kernel
def match_chance(need_a, need_b):
    """Team A's chance to win the match when it needs ``need_a`` more rounds and B ``need_b``, every round a
    coin flip: A wins its last needed round after k < need_b rounds lost, the sum of
    C(need_a - 1 + k, k) / 2^(need_a + k)."""
    if need_a <= 0:
        return 1.0
    if need_b <= 0:
        return 0.0
    total = 0.0
    ways = 1.0                                         # C(need_a - 1 + k, k), k = 0
    for k in range(need_b):
        total += ways / 2.0 ** (need_a + k)
        ways = ways * (need_a + k) / (k + 1)
    return total


@kernel
def evaluate(state, params, seat, out):
    """Each seat's chance that its team wins the match (docs/zwergen.md, "evaluate") from public facts: the
    rounds won and the track. The current round goes to A with :func:`round_chance`; the rounds after it are
    coin flips (:func:`match_chance`). The hands are not read."""
    need_a = params[P_ROUNDS_TO_WIN] - state[S_ROUNDS]
    need_b = params[P_ROUNDS_TO_WIN] - state[S_ROUNDS + 1]
    p = round_chance(state, params)
    a = p * match_chance(need_a - 1, need_b) + (1.0 - p) * match_chance(need_a, need_b - 1)
    for q in range(params[P_PLAYERS]):
        out[q] = a if team_of(q) == 0 else 1.0 - a
