"""The picture of the board as SVG, for the replay page (docs/skirmish.md): the yard, the gnomes, the flags."""

from collections import Counter

from simcore.games.skirmish import rules, text
from simcore.watch.pictures import label, rect, seat_label, svg

PACE = 12                     # a cell of the yard
PANEL_WIDTH = 240             # a seat's line of the panel: "out of action: foot, fast, heavy, ranged, ..."
TERRAIN_COLOURS = ("#d8c08c", "#a6d38a", "#6f9a4f", "#9fd3ee", "#2f6fae")   # rules.TERRAIN: = . * ~ W
SKIRMISH_STYLE = ("".join(f".t{k}{{fill:{colour}}}" for k, colour in enumerate(TERRAIN_COLOURS))
                  + ".yd{shape-rendering:crispEdges}.gnome{stroke:#fff}.gl{font-size:8px;fill:#fff}.flag{stroke:#000}"
                  ".sel{fill:none;stroke:#000}.k{font-size:7px;fill:#555}")


def draw_board(state, params):
    """The yard's terrain (seat 0's edge on top, seat 1's at the bottom, marked in their colours), its rows and
    columns numbered as the actions name cells ("moves to (3, 7)": row, column), every gnome in action as a
    circle in its seat's colour with its type's letter, the flags (on a carrier, or dropped on their cell), the
    gnome about to move ringed; under the yard, each seat's gnomes in action (its score) and out of action."""
    v = rules.View(state)
    width, height = int(params[rules.P_WIDTH]), int(params[rules.P_HEIGHT])
    x0, y0 = 18, 32                                  # room for the row numbers, the caption, the column numbers
    shapes = [label(4, 12, _skirmish_caption(state, params))]
    shapes += _terrain(params, width, height, x0, y0)
    shapes += [label(x0 - 3, y0 + r * PACE + 9, r, "k e") for r in range(height)]
    shapes += [label(x0 + c * PACE + 6, y0 - 7, c, "k c") for c in range(width)]
    shapes += [rect(x0, y0 - 4, width * PACE, 3, "s0"), rect(x0, y0 + height * PACE + 1, width * PACE, 3, "s1")]

    def corner(cell):                                # top-left corner of a cell
        return x0 + cell % width * PACE, y0 + cell // width * PACE

    moving = int(v.gnome) if v.phase == rules.PH_MOVE and v.winner == rules.NO_WINNER else -1
    mover = (v.first + v.turn) % 2                   # as rules.mover: turns alternate from the first player
    for seat in range(2):
        for k in range(int(params[rules.P_GNOMES])):
            cell = int(v.pos[seat, k])
            if cell < 0:
                continue
            x, y = corner(cell)
            letter = text.GNOME_LETTERS[int(params[rules.P_TYPES + k])]
            shapes.append(f'<circle class="gnome s{seat}" cx="{x + 6}" cy="{y + 6}" r="6"/>'
                          + label(x + 6, y + 9, letter.upper() if seat else letter, "c gl"))
            if seat == mover and k == moving:
                shapes.append(f'<circle class="sel" cx="{x + 6}" cy="{y + 6}" r="8"/>')
            if v.flag[seat, k] >= 0:
                shapes.append(_flag(x + 8, y, int(v.flag[seat, k])))
    for f in range(2):
        if v.flag_at[f] >= 0:
            shapes.append(_flag(*corner(int(v.flag_at[f])), f))
    panel_y = y0 + height * PACE + 20                # the seats' panel under the yard, in view on a phone
    for seat in range(2):
        shapes += _seat_panel(state, params, seat, 4, panel_y + 32 * seat)
    return svg("skirmish", max(x0 + width * PACE + 8, PANEL_WIDTH), panel_y + 58, SKIRMISH_STYLE, shapes)


def _skirmish_caption(state, params):
    turn, winner = int(state[rules.S_TURN]), int(state[rules.S_WINNER])
    scenario = rules.SCENARIOS[int(params[rules.P_SCENARIO])].replace("_", " ")
    if winner == rules.DRAW:
        return f"{scenario}: a draw after {turn} turns"
    if winner != rules.NO_WINNER:
        return f"{scenario}: seat {winner} wins after {turn} turns"
    return f"{scenario}, turn {turn} of {int(params[rules.P_MAX_TURNS])}"


def _terrain(params, width, height, x0, y0):
    """The yard's cells: the commonest terrain as one background, every other terrain as one rectangle per
    run of equal cells along a row (a few dozen shapes instead of one per cell)."""
    codes = [int(params[rules.P_YARD + k]) for k in range(width * height)]
    ground = Counter(codes).most_common(1)[0][0]
    shapes = ['<g class="yd">', rect(x0, y0, width * PACE, height * PACE, f"t{ground}")]
    for r in range(height):
        c = 0
        while c < width:
            code, start = codes[r * width + c], c
            while c < width and codes[r * width + c] == code:
                c += 1
            if code != ground:
                shapes.append(rect(x0 + start * PACE, y0 + r * PACE, (c - start) * PACE, PACE, f"t{code}"))
    return [*shapes, "</g>"]


def _flag(x, y, owner):
    """Seat ``owner``'s flag (flag p is seat p's): a pennant in that seat's colour."""
    return f'<path class="flag s{owner}" d="M{x} {y + 11}V{y + 1}l7 3-7 3"/>'


def _seat_panel(state, params, seat, x, y):
    """The seat, its edge, its gnomes in action (the score of the result row) and the types out of action."""
    v = rules.View(state)
    out = [rules.TYPES[int(params[rules.P_TYPES + k])] for k in range(int(params[rules.P_GNOMES]))
           if v.pos[seat, k] < 0]
    return [seat_label(x, y, seat, f"seat {seat} ({('top', 'bottom')[seat]} edge): "
                        f"{rules.alive(state, params, seat)} in action"),
            label(x, y + 14, "out of action: " + (", ".join(out) or "none"))]
