"""Der Herr der Wichtel's heuristics: the greedy policy and the evaluation of a state, reading only what a seat
may see: another seat's retinue counts at its score when the seat knows it whole, else at what a dealt
retinue scores on average."""

import math

from simcore.engine import rng
from simcore.engine.estimates import win_shares
from simcore.engine.jit import kernel
from simcore.games.wichtel.rules import (
    A_BRIBE,
    A_CALL,
    A_END_NO,
    A_END_YES,
    A_ENLIST,
    A_EXCHANGE,
    A_FILL,
    A_FREE_NO,
    A_FREE_YES,
    A_GIFT,
    A_NIX_NO,
    A_NIX_YES,
    A_NO_BRIBE,
    A_NO_EVENT,
    A_REPLY,
    A_REROLL_YES,
    DER,
    FA,
    MAX_SEATS,
    MEAN_DEN,
    N_BRIBES,
    N_TYPES,
    P_MEAN_GAIN,
    P_MEAN_SCORE,
    P_PLAYERS,
    P_RANK,
    P_SPREAD,
    P_TARGET,
    PH_ACTION,
    PH_BRIBE,
    PH_END_EVENT,
    PH_END_ROUND,
    PH_FILL,
    PH_GIFT,
    PH_NIX,
    PH_REPLY,
    PH_REROLL,
    PH_START,
    RETINUE,
    S_CARD,
    S_MOVER,
    S_PHASE,
    S_SCRATCH,
    S_SQUARE,
    S_TOTALS,
    can_bribe,
    distinct_types,
    gain,
    nth_type,
    retinue_score,
    sure_of,
    wide,
)

# --- greedy ------------------------------------------------------------------------


@kernel
def known_whole(state, seat, other):
    """Whether ``seat`` is sure of every card of ``other``'s retinue (what it saw enlisted, exchanged, given)."""
    if other == seat:
        return True
    sure = 0
    for t in range(N_TYPES):
        sure += sure_of(state, seat, other, t)
    return sure == RETINUE


@kernel
def seen_score(state, params, seat, other):
    """``other``'s retinue score as ``seat`` sees it, times MEAN_DEN: its score if the seat knows it whole,
    else what a dealt retinue scores on average."""
    if known_whole(state, seat, other):
        return retinue_score(state, params, other, -1, -1) * MEAN_DEN
    return params[P_MEAN_SCORE]


@kernel
def seen_gain(state, params, seat, other, card):
    """What ``card`` would gain ``other``'s retinue as ``seat`` sees it, times MEAN_DEN (as :func:`seen_score`)."""
    if known_whole(state, seat, other):
        return gain(state, params, other, card) * MEAN_DEN
    return params[P_MEAN_GAIN + card]


@kernel
def ahead(state, params, seat):
    """Greedy's 'ahead': its retinue scores more than what it knows or expects of every other retinue."""
    mine = retinue_score(state, params, seat, -1, -1) * MEAN_DEN
    for other in range(params[P_PLAYERS]):
        if other != seat and seen_score(state, params, seat, other) >= mine:
            return False
    return True


@kernel
def best_type(state, params, seat, streams, keep_card):
    """The type of the seat's retinue best to give away (ties: a draw).

    ``keep_card`` >= 0 (gap fill): maximise the score with ``keep_card`` in and the type out.
    Otherwise (call, exchange reply): maximise the score with the type replaced by a Familie.
    """
    n = distinct_types(state, seat)
    incoming = keep_card if keep_card >= 0 else FA
    best = -(1 << 40)
    tied = 0
    for i in range(n):
        s = retinue_score(state, params, seat, incoming, nth_type(state, seat, i))
        state[S_SCRATCH + i] = s
        if s > best:
            best = s
            tied = 0
        if s == best:
            tied += 1
    r = rng.randint(streams, rng.POLICY + seat, tied)
    for i in range(n):
        if state[S_SCRATCH + i] == best:
            if r == 0:
                return nth_type(state, seat, i)
            r -= 1
    return -1


@kernel
def greedy_act(state, params, seat, streams):
    """A: enlist a slot of the largest positive gain, else call the type that hurts least; never exchange."""
    players = params[P_PLAYERS]
    best = 0
    tied = 0
    for s in range(players):
        g = gain(state, params, seat, state[S_SQUARE + s])
        state[S_SCRATCH + s] = g
        if g > best:
            best = g
            tied = 0
        if g == best and g > 0:
            tied += 1
    if tied > 0:
        r = rng.randint(streams, rng.POLICY + seat, tied)
        for s in range(players):
            if state[S_SCRATCH + s] == best:
                if r == 0:
                    return A_ENLIST + s
                r -= 1
    return A_CALL + best_type(state, params, seat, streams, -1)


@kernel
def greedy_bribe(state, params, seat):
    """B: the highest-ranked bribe but Der if the card would raise its score; else none."""
    if gain(state, params, seat, state[S_CARD]) <= 0:
        return A_NO_BRIBE
    best = -1
    for kind in range(N_BRIBES):
        if kind != DER and can_bribe(state, params, seat, kind):
            if best < 0 or params[P_RANK + kind] > params[P_RANK + best]:
                best = kind
    return A_NO_BRIBE if best < 0 else A_BRIBE + best


@kernel
def greedy_gift(state, params, briber, streams):
    """G: the recipient the card helps least, as the briber sees the retinues (ties: a draw)."""
    players = params[P_PLAYERS]
    card = state[S_CARD]
    best = 1 << 60
    tied = 0
    for i in range(1, players):
        g = seen_gain(state, params, briber, (briber + i) % players, card)
        if g < best:
            best = g
            tied = 0
        if g == best:
            tied += 1
    r = rng.randint(streams, rng.POLICY + briber, tied)
    for i in range(1, players):
        if seen_gain(state, params, briber, (briber + i) % players, card) == best:
            if r == 0:
                return A_GIFT + (briber + i) % players
            r -= 1
    return -1


@kernel
def act_among(state, params, seat, streams, listed, n):
    """Greedy's action A among ``listed[:n]``: an enlisted slot of the largest positive gain (ties: a draw, as
    greedy's); else a call of the type that hurts least; else the enlisted slot of the largest gain; else the
    first listed exchange (greedy never exchanges)."""
    best, tied, calls, fallback = 0, 0, False, -1
    for i in range(n):
        action = listed[i]
        if A_ENLIST <= action < A_ENLIST + MAX_SEATS:
            g = gain(state, params, seat, state[S_SQUARE + action - A_ENLIST])
            if g > best:
                best, tied = g, 0
            if g == best and g > 0:
                tied += 1
            if fallback < 0 or g > gain(state, params, seat, state[S_SQUARE + fallback - A_ENLIST]):
                fallback = action
        calls = calls or A_CALL <= action < A_EXCHANGE
    if tied > 0:
        r = rng.randint(streams, rng.POLICY + seat, tied)
        for i in range(n):
            action = listed[i]
            if A_ENLIST <= action < A_ENLIST + MAX_SEATS and gain(
                    state, params, seat, state[S_SQUARE + action - A_ENLIST]) == best:
                if r == 0:
                    return action
                r -= 1
    if calls:
        return A_CALL + best_type(state, params, seat, streams, -1)
    return fallback if fallback >= 0 else listed[0]


@kernel
def bribe_among(state, params, seat, listed, n):
    """Greedy's bribe among ``listed[:n]``: where the card would raise its score, the highest-ranked bribe but Der,
    else none, else Der; where it would not, none, else the highest-ranked bribe but Der, else Der."""
    best, none, der = -1, False, False
    for i in range(n):
        action = listed[i]
        if action == A_NO_BRIBE:
            none = True
        elif action - A_BRIBE == DER:
            der = True
        elif best < 0 or params[P_RANK + action - A_BRIBE] > params[P_RANK + best - A_BRIBE]:
            best = action
    raises = gain(state, params, seat, state[S_CARD]) > 0
    if raises and best >= 0:
        return best
    if none:
        return A_NO_BRIBE
    if best >= 0:
        return best
    return A_BRIBE + DER if der else listed[0]


@kernel
def greedy_among(state, params, seat, streams, work, listed, n):
    """Greedy among the actions ``listed[:n]`` (those a restriction allows): its action A and its bribe by the
    rules above; at any other decision its own choice where allowed, else the first listed (a yes-or-no
    decision's other answer, or an event greedy never plays)."""
    phase = state[S_PHASE]
    if phase == PH_ACTION:
        return act_among(state, params, seat, streams, listed, n)
    if phase == PH_BRIBE:
        return bribe_among(state, params, seat, listed, n)
    choice = greedy_action(state, params, seat, streams, work)
    for i in range(n):
        if listed[i] == choice:
            return choice
    return listed[0]


@kernel
def greedy_action(state, params, seat, streams, work):
    """The game's one-ply heuristic (docs/wichtel.md: Policies, greedy) at the pending decision."""
    phase = state[S_PHASE]
    if phase == PH_START or phase == PH_END_EVENT:
        return A_NO_EVENT
    if phase == PH_ACTION:
        return greedy_act(state, params, seat, streams)
    if phase == PH_BRIBE:
        return greedy_bribe(state, params, seat)
    if phase == PH_REPLY:
        return A_REPLY + best_type(state, params, seat, streams, -1)
    if phase == PH_FILL:
        return A_FILL + best_type(state, params, seat, streams, state[S_CARD])
    if phase == PH_GIFT:
        return greedy_gift(state, params, seat, streams)
    if phase == PH_NIX:
        return A_NIX_YES if seat == state[S_MOVER] else A_NIX_NO
    if phase == PH_REROLL:
        return A_REROLL_YES
    if phase == PH_END_ROUND:
        return A_END_YES if ahead(state, params, seat) else A_END_NO
    return A_FREE_YES if ahead(state, params, seat) else A_FREE_NO


# --- the evaluation ------------------------------------------------------------------


@kernel
def evaluate(state, params, seat, out):
    """Each seat's chance to win as ``seat`` sees the table (docs/wichtel.md, "evaluate"): its total plus its
    retinue's score as the seat sees it (:func:`seen_score`), a softmax over the spread of a dealt retinue's
    score times the square root of the rounds still to play (at least one), which the best total's distance
    to the target over the mean round score estimates."""
    players = params[P_PLAYERS]
    best = -(1 << 40)
    for q in range(players):
        best = max(best, wide(state, S_TOTALS + q))
        out[q] = wide(state, S_TOTALS + q) + seen_score(state, params, seat, q) / MEAN_DEN
    mean = max(5.0, params[P_MEAN_SCORE] / MEAN_DEN)
    rounds = max(1.0, (params[P_TARGET] - best) / mean)
    win_shares(out, players, max(1.0, params[P_SPREAD] * math.sqrt(rounds)))
