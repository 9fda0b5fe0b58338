"""The picture of the board as SVG, for the replay page (docs/wichtel.md):
the village square, the stacks, the retinues."""

from simcore.games.wichtel import rules
from simcore.watch.pictures import label, rect, seat_label, svg

WICHTEL_STYLE = (".card{fill:#fffbe8;stroke:#7a6a3a}.back{fill:#6d4c8d;stroke:#fff}.nm{font-weight:bold}"
                 ".tied{fill:#c00}.free{fill:#3a9a3a}.k{font-size:8px;fill:#777}")


def draw_board(state, params):
    """The village square between stack A and stack B (face down, with their sizes; the arrow shows the
    walk from the drawing stack), its slots numbered as the actions name them ("enlist slot 2"), the
    Wahlleiter (tied or free), and per seat its retinue, total and title."""
    v = rules.View(state)
    players = int(params[rules.P_PLAYERS])
    shapes = [label(8, 12, _wichtel_caption(v))]
    y = 22
    x_b = 56 + 40 * players
    shapes += _stack(8, y, "A", v.a_n) + _stack(x_b, y, "B", v.b_n)
    for slot in range(players):
        card = int(v.square[slot])
        x = 52 + 40 * slot
        shapes.append(rect(x, y, 34, 46, "card slot", ' rx="4"') + label(x + 17, y + 11, f"slot {slot}", "c k")
                      + label(x + 17, y + 28, rules.CARDS[card] if card >= 0 else "-", "c nm"))
    arrow = "→" if v.draw_side == 0 else "←"
    shapes.append(label((48 + x_b) // 2, y + 60, f"{arrow} walk from stack {'AB'[v.draw_side]} {arrow}", "c"))
    free = bool(v.free)
    shapes.append(f'<circle class="{"free" if free else "tied"}" cx="{x_b + 52}" cy="{y + 20}" r="6"/>'
                  + label(x_b + 62, y + 24, f"Wahlleiter {'free' if free else 'tied'}"))
    for seat in range(players):
        shapes += _retinue(v, seat, y + 86 + 26 * seat)
    return svg("wichtel", max(x_b + 150, 330), y + 80 + 26 * players, WICHTEL_STYLE, shapes)


def _wichtel_caption(v):
    if v.phase == rules.PH_OVER:
        return f"game over after {v.n_rounds} rounds, {v.turn} turns"
    return f"round {v.n_rounds + 1}, turn {v.turn}"


def _stack(x, y, side, size):
    """A face-down stack: two card backs, slightly apart, and how many cards it holds."""
    return [rect(x + 3, y + 3, 34, 46, "back", ' rx="4"'), rect(x, y, 34, 46, "back", ' rx="4"'),
            label(x + 18, y + 22, side, "c w"), label(x + 18, y + 36, size, "c w")]


def _retinue(v, seat, y):
    cards = [t for t in range(rules.N_TYPES) for _ in range(int(v.retinues[seat, t]))]
    title = int(v.state[rules.S_TITLES + seat])
    shapes = [seat_label(8, y, seat, f"seat {seat}")]
    for k, t in enumerate(cards):
        shapes.append(rect(62 + 28 * k, y - 13, 26, 18, "card ret", ' rx="3"')
                      + label(75 + 28 * k, y, rules.CARDS[t], "c"))
    words = f"total {v.totals[seat]}" + (f", {rules.TITLE_NAMES[title]}" if title >= 0 else "")
    return [*shapes, label(62 + 28 * max(len(cards), rules.RETINUE) + 4, y, words)]
