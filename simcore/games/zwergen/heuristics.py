"""Zwergen Ziehen's heuristics: the greedy policy, reading only what its seat may see."""

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
    PH_COLOUR,
    PH_DISCARD,
    PREF,
    S_HAND,
    S_PHASE,
    S_ROPE,
    S_SUPPLY,
    WIN_SCORE,
    decode_move,
    effect,
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
    n = move_actions(state, params, seat, moves)
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
