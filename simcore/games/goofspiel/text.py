"""Goofspiel in words (plain Python: the handle, replays, tests): actions, information states, states."""

import numpy as np

from simcore.games.goofspiel.rules import NOBODY, P_PLAYERS, S_TURN, T_BIDS, View

# --- the interface in words (plain Python: handles, tests, replays) ---------------


def round_of(state):
    """Tricks resolved: a replay draws the table whenever this changes."""
    return int(state[S_TURN])


def action_to_string(state, params, action):
    return f"bid {int(action) + 1}"


def _cards(cards):
    return " ".join(str(int(k) + 1) for k in cards) or "-"


def _public_lines(state, params):
    view = View(state)
    players = int(params[P_PLAYERS])
    lines = []
    for t in range(view.turn):
        prize, winner, *bids = (int(x) for x in view.tricks[t, :T_BIDS + players])
        who = "tie, discarded" if winner == NOBODY else f"seat {winner}"
        lines.append(f"trick {t + 1}: prize {prize + 1}, bids {' '.join(str(b + 1) for b in bids)}: {who}")
    if view.seat < 0:
        lines.append(f"game over after {view.turn} tricks")
    else:
        bid_so_far = [s for s in range(players) if view.bids[s] >= 0]
        lines.append(f"trick {view.turn + 1}: prize {view.prize + 1}, to bid: seat {view.seat}"
                     + (f", bid face down: seat {', '.join(map(str, bid_so_far))}" if bid_so_far else ""))
    lines.append("prizes face down: " + _cards(np.flatnonzero(view.deck)))
    lines.append("points: " + ", ".join(f"seat {s} {int(view.points[s])}" for s in range(players)))
    return lines


def information_state_string(state, params, seat):
    """What ``seat`` knows: every resolved trick (prize, bids, winner), the current prize, who has bid, its own
    hand and face-down bid, the prizes left and the points; not the others' face-down bids."""
    view = View(state)
    own = int(view.bids[seat])
    return "\n".join([f"seat {seat} sees", *_public_lines(state, params), f"own hand: {_cards(view.hand(seat))}"]
                     + ([f"own bid, face down: {own + 1}"] if own >= 0 else []))


def state_to_string(state, params):
    view = View(state)
    players = int(params[P_PLAYERS])
    return "\n".join([*_public_lines(state, params),
                      *(f"seat {s} hand: {_cards(view.hand(s))}"
                        + (f"; bid face down: {int(view.bids[s]) + 1}" if view.bids[s] >= 0 else "")
                        for s in range(players))])
