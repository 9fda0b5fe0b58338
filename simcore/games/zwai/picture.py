"""The picture of the board as SVG, for the replay page (docs/zwai.md): the shoal and the two sharks."""

from simcore.games.zwai import rules
from simcore.watch.pictures import label, rect, seat_label, svg

CELL = 24                     # a card's square on the grid
PANEL_WIDTH = 270             # a seat's line of the panel: "seat 3: hand 12, pile 9, scored 27 fish / 12 cards"
ZWAI_STYLE = (".sh{fill:#dbeef6}.card{stroke:#fff}.band{fill:#333;opacity:.12}.shark{fill:#555}"
              ".f{font-size:13px;font-weight:bold;fill:#fff}.k{font-size:9px;fill:#777}")


def draw_board(state, params):
    """The shoal's placed cards (bounding box and a margin of one cell), its rows and columns numbered as the
    actions name cells ("cell (2, -4)": row, column from the centre), the sharks' fins at the ends of the row
    and the column they mark, and a panel per seat: hand, pile, scoring pile."""
    v = rules.View(state)
    cards = v.shoal()
    rows = [r for r, _ in cards] or [rules.CENTRE]    # an empty shoal: the centre, where the first card goes
    cols = [c for _, c in cards] or [rules.CENTRE]
    r0, c0 = min(rows) - 1, min(cols) - 1
    n_rows, n_cols = max(rows) - r0 + 2, max(cols) - c0 + 2
    height, width = n_rows * CELL, n_cols * CELL
    x0, y0 = 32, 44                                  # room for the numbers, then the fins, left of and above
    shapes = [label(2, 12, _zwai_caption(v, params)), rect(x0, y0, width, height, "sh", ' rx="6"')]
    shapes += [label(x0 - 15, y0 + k * CELL + 15, r0 + k - rules.CENTRE, "k e") for k in range(n_rows)]
    shapes += [label(x0 + k * CELL + 12, y0 - 17, c0 + k - rules.CENTRE, "k c") for k in range(n_cols)]
    if v.shark_row >= 0:
        shapes += _sharks(v.shark_row - r0, v.shark_col - c0, x0, y0, width, height, v)
    for (r, c), (owner, fish) in sorted(cards.items()):
        x, y = x0 + (c - c0) * CELL + 1, y0 + (r - r0) * CELL + 1
        shapes.append(rect(x, y, CELL - 2, CELL - 2, f"card s{owner}", ' rx="4"')
                      + label(x + 11, y + 16, fish, "c f"))
    if not cards:
        shapes.append(label(x0 + width // 2, y0 + height // 2 + 4, "empty shoal", "c"))
    players = int(params[rules.P_PLAYERS])
    panel_y = y0 + height + 30                       # the seats' panel under the shoal, in view on a phone
    for seat in range(players):
        y = panel_y + 16 * seat
        shapes.append(seat_label(8, y, seat, f"seat {seat}: hand {v.hands[seat].sum()}, pile "
                                 f"{v.pile_sizes[seat]}, scored {v.score[seat]} fish / {v.cards[seat]} cards"))
    return svg("zwai", max(x0 + width + 32, PANEL_WIDTH), panel_y + 16 * players - 6, ZWAI_STYLE, shapes)


def _zwai_caption(v, params):
    if v.over:
        return f"game over after {v.n_rounds} rounds"
    pending = f"; seat {v.seat} lays a {v.pending}-fish card" if v.phase == rules.CELL else ""
    return f"round {v.n_rounds + 1} of {int(params[rules.P_ROUNDS])}{pending}"


def _sharks(row, col, x0, y0, width, height, v):
    """The row shark and the column shark: a faint band over the marked line and a fin at each of its ends,
    pointing into the line. ``row`` and ``col`` count from the drawn box's first row and column."""
    y, x = y0 + row * CELL, x0 + col * CELL
    fins_row = f"M{x0 - 12} {y + 4}l10 8-10 8zM{x0 + width + 12} {y + 4}l-10 8 10 8z"
    fins_col = f"M{x + 4} {y0 - 12}l8 10 8-10zM{x + 4} {y0 + height + 12}l8-10 8 10z"
    return [rect(x0, y, width, CELL, "band"), rect(x, y0, CELL, height, "band"),
            f'<path class="shark" data-row="{v.shark_row}" d="{fins_row}"/>',
            f'<path class="shark" data-col="{v.shark_col}" d="{fins_col}"/>']
