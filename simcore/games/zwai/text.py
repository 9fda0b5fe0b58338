"""Zwai in words (plain Python: the handle, replays, tests): actions, information states, states."""

import numpy as np

from simcore.games.zwai.rules import (
    CARD,
    CENTRE,
    GRID,
    MAX_FISH,
    MAX_SEATS,
    P_PLAYERS,
    S_N_ROUNDS,
    S_REMOVED,
    S_SCORE,
    S_SEAT,
    S_SHARK_COL,
    S_SHARK_ROW,
    View,
    apply_action,
    put_card,
)

# --- the interface in words (plain Python: handles, tests, replays) ---------------


def round_of(state):
    """Rounds finished: a replay draws the shoal whenever this changes."""
    return int(state[S_N_ROUNDS])


def table_at_round_end(state, params, action, streams):
    """The shoal as a round ends, scored: ``state`` (before the round's last placement) with that card placed and
    each seat's fish and cards counted as the rules count them at the round end, before the sharks' row and
    column go back and the shoal is cleared, all of which ``apply_action`` does in one step. A replay draws it,
    so that the sharks' catch can be seen beside the scores it gave."""
    table, scored = state.copy(), state.copy()
    if action >= MAX_FISH:
        put_card(table, params, np.int64(state[S_SEAT]), np.int64(action))
    apply_action(scored, params, np.int64(action), streams.copy())   # the round end on copies: draws nothing
    table[S_SCORE:S_REMOVED] = scored[S_SCORE:S_REMOVED]             # every seat's fish, then its cards
    return table


def action_to_string(state, params, action):
    if action < MAX_FISH:
        return f"card {action} fish"
    r, c = divmod(int(action) - MAX_FISH, GRID)
    return f"cell ({r - CENTRE}, {c - CENTRE})"   # relative to the centre, where each round's first card lies


def _hand_text(counts):
    return " ".join(str(fish) for fish, k in enumerate(counts) for _ in range(k)) or "-"


SHOAL_LEGEND = "the shoal (0:3 = a 3-fish card of seat 0; cell (row, column) from the centre; > and v: the sharks)"


def _shoal_lines(state):
    """The shoal as a picture: seat and fish per card, rows and columns numbered as the actions name cells
    ("cell (2, -4)", from the centre), the sharks' row and column marked > and v."""
    view = View(state)
    cells = view.shoal()
    if not cells:
        return ["(empty shoal)"]
    rows = range(min(r for r, _ in cells), max(r for r, _ in cells) + 1)
    cols = range(min(c for _, c in cells), max(c for _, c in cells) + 1)
    lines = [SHOAL_LEGEND, ("       " + "".join(f"{c - CENTRE:>3} " for c in cols)).rstrip(),
             ("       " + "".join("  v " if c == state[S_SHARK_COL] else "    " for c in cols)).rstrip()]
    for r in rows:
        line = (" > " if r == state[S_SHARK_ROW] else "   ") + f"{r - CENTRE:>3} "
        for c in cols:
            owner, fish = cells.get((r, c), (None, None))
            line += "  . " if owner is None else f" {owner}:{fish}"
        lines.append(line.rstrip())
    return lines


def _public_lines(state, params):
    view = View(state)
    players = int(params[P_PLAYERS])
    if view.over:
        lines = [f"game over after {view.n_rounds} rounds, {view.turn} placements"]
    else:
        lines = [f"round {view.n_rounds + 1}, placements {view.turn}, to move: seat {view.seat}"
                 + ("" if view.phase == CARD else f" placing a {view.pending}-fish card")]
    lines += _shoal_lines(state)
    for seat in range(players):
        lines.append(f"seat {seat}: hand {view.hands[seat].sum()}, pile {view.pile_sizes[seat]}, "
                     f"scored {view.score[seat]} fish / {view.cards[seat]} cards")
    lines.append("removed per round: " + " ".join(str(k) for k in view.removed[:view.n_rounds]))
    return lines


def _pile_parts(state, seat):
    """The seat's own pile as it knows it, bottom part first: each part's cards, order unknown."""
    view = View(state)
    pile = list(view.pile(seat))
    parts, lo = [], 0
    for k in range(view.n_rounds - 1, -1, -1):
        hi = min(lo + int(view.segments[seat, k]), len(pile))
        parts.append(sorted(pile[lo:hi]))
        lo = hi
    parts.append(sorted(pile[lo:]))
    return " | ".join(" ".join(str(f) for f in part) or "-" for part in parts)


def information_state_string(state, params, seat):
    """What ``seat`` knows: the public table, its own hand, what each part of its own pile holds, and which
    cards of each other colour it has not seen (every card played was shown), not where they are."""
    view = View(state)
    unseen = [np.bincount(view.pile(other), minlength=MAX_FISH) + view.hands[other] for other in range(MAX_SEATS)]
    others = [f"seat {other} unseen: {_hand_text(unseen[other])}"
              for other in range(int(params[P_PLAYERS])) if other != seat]
    return "\n".join([f"seat {seat} sees", *_public_lines(state, params),
                      f"own hand: {_hand_text(view.hands[seat])}",
                      f"own pile, bottom part first: {_pile_parts(state, seat)}", *others])


def state_to_string(state, params):
    view = View(state)
    players = int(params[P_PLAYERS])
    return "\n".join([*_public_lines(state, params),
                      *(f"seat {seat} hand: {_hand_text(view.hands[seat])}; pile, top last: "
                        f"{' '.join(str(f) for f in view.pile(seat))}" for seat in range(players))])
