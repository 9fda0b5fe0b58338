"""The garden-gnome skirmish in words (plain Python: the handle, replays, tests): actions, states."""

from simcore.games.skirmish.rules import (
    A_STAY,
    A_THROW,
    CAUSES,
    DEEP,
    DRAW,
    MAX_GNOMES,
    NO_WINNER,
    P_GNOMES,
    P_HEIGHT,
    P_MAX_TURNS,
    P_SCENARIO,
    P_WIDTH,
    P_YARD,
    PH_THROW,
    S_BACK_NOW,
    S_FIRST,
    S_FLAG,
    S_FLAG_AT,
    S_GNOME,
    S_HITS,
    S_PHASE,
    S_POS,
    S_TARGETS,
    S_THROWS,
    S_TURN,
    S_WINNER,
    S_WIZARD_OUT,
    SCENARIOS,
    TERRAIN,
    TYPES,
    View,
    gnome_type,
    mover,
)

# --- plain Python: words for actions and states -----------------------------------------

GNOME_LETTERS = "fchr"               # foot, fast cavalry, heavy cavalry, ranged; seat 1 in capitals


def _at(params, cell):
    w = int(params[P_WIDTH])
    return f"({int(cell) // w}, {int(cell) % w})"


def _gnome(params, k):
    return f"{TYPES[gnome_type(params, k)]} gnome {k}"


def round_of(state):
    """Turns alternate, so a round is a turn of each player: a replay draws the yard after every second turn."""
    return int(state[S_TURN]) // 2


def action_to_string(state, params, action):
    """The action in words, e.g. "foot gnome 1 moves to (3, 7)", "throw at heavy gnome 3 at (9, 12)"."""
    action = int(action)
    player = int(mover(state))
    if action >= A_THROW:
        j = action - A_THROW
        return f"throw at {_gnome(params, j)} at {_at(params, state[S_POS + (1 - player) * MAX_GNOMES + j])}"
    k = int(state[S_GNOME])
    if action == A_STAY:
        return f"{_gnome(params, k)} stays at {_at(params, state[S_POS + player * MAX_GNOMES + k])}"
    drowns = " (deep water: it drowns)" if params[P_YARD + action] == DEEP else ""
    return f"{_gnome(params, k)} moves to {_at(params, action)}{drowns}"


YARD_LEGEND = "the yard, cells (row, column): gnomes f c h r (foot, fast, heavy, ranged; seat 1's in capitals), " \
              "a dropped flag as its seat's digit"


def _column_labels(w):
    """Two header lines for ``w`` columns, the tens above the units (a column is one character wide)."""
    tens = "".join(str(c // 10) if c >= 10 else " " for c in range(w))
    return [f"    {tens}".rstrip(), "    " + "".join(str(c % 10) for c in range(w))]


def _picture(state, params):
    """The yard, one line a row, its rows and columns numbered as the actions name cells ("moves to (3, 7)"):
    terrain letters, gnomes as letters (seat 0 small, seat 1 capital), a dropped flag as its seat's number."""
    w, h = int(params[P_WIDTH]), int(params[P_HEIGHT])
    rows = [[TERRAIN[int(params[P_YARD + r * w + c])] for c in range(w)] for r in range(h)]
    for f in range(2):
        if state[S_FLAG_AT + f] >= 0:
            rows[int(state[S_FLAG_AT + f]) // w][int(state[S_FLAG_AT + f]) % w] = str(f)
    for p in range(2):
        for k in range(int(params[P_GNOMES])):
            cell = int(state[S_POS + p * MAX_GNOMES + k])
            if cell >= 0:
                letter = GNOME_LETTERS[gnome_type(params, k)]
                rows[cell // w][cell % w] = letter.upper() if p == 1 else letter
    return [YARD_LEGEND, *_column_labels(w), *(f"{r:>3} " + "".join(line) for r, line in enumerate(rows))]


def _army(state, params, p):
    parts = []
    for k in range(int(params[P_GNOMES])):
        i = p * MAX_GNOMES + k
        where = _at(params, state[S_POS + i]) if state[S_POS + i] >= 0 else "out of action"
        flag = f" with seat {int(state[S_FLAG + i])}'s flag" if state[S_FLAG + i] >= 0 else ""
        back = " (came back this turn)" if state[S_BACK_NOW + i] else ""
        parts.append(f"{_gnome(params, k)} {where}{flag}{back}")
    return f"seat {p}: " + ", ".join(parts)


def _tally(state, p):
    v = View(state)
    lost = "; ".join(f"{TYPES[t]} " + " ".join(f"{c} {int(v.lost[p, t, i])}" for i, c in enumerate(CAUSES))
                     for t in range(4))
    return (f"seat {p}: throws {int(state[S_THROWS + p])}, hits {int(state[S_HITS + p])}, wizard out "
            f"{int(state[S_WIZARD_OUT + p])}; taken out: {lost}")


def state_to_string(state, params):
    """The whole state: the game's progress, the pending decision, the yard, both armies and the tallies."""
    turn, winner = int(state[S_TURN]), int(state[S_WINNER])
    lines = [f"{SCENARIOS[params[P_SCENARIO]]}, turn {turn} of {int(params[P_MAX_TURNS])}, first to move: seat "
             f"{int(state[S_FIRST])}"]
    if winner != NO_WINNER:
        lines.append("over: a draw" if winner == DRAW else f"over: seat {winner} wins")
    elif turn >= params[P_MAX_TURNS]:
        lines.append("over: timeout")
    elif state[S_PHASE] == PH_THROW:
        mask = int(state[S_TARGETS])
        lines.append(f"seat {int(mover(state))} throws, targets: gnomes "
                     + " ".join(str(j) for j in range(MAX_GNOMES) if (mask >> j) & 1))
    else:
        lines.append(f"seat {int(mover(state))} moves its gnome {int(state[S_GNOME])}")
    lines += _picture(state, params)
    lines += [_army(state, params, p) for p in range(2)]
    lines += [f"seat {f}'s flag lies at {_at(params, state[S_FLAG_AT + f])}" for f in range(2)
              if state[S_FLAG_AT + f] >= 0]
    lines += [_tally(state, p) for p in range(2)]
    return "\n".join(lines)


def information_state_string(state, params, seat):
    """Everything ``seat`` knows: the whole state, for nothing on the yard is hidden (docs/skirmish.md,
    "Decisions, information and resampling")."""
    return f"seat {seat}\n" + state_to_string(state, params)
