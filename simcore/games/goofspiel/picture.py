"""The picture of the board as SVG, for the replay page (docs/goofspiel.md):
the prize, the prize deck, every hand and the tricks so far."""

from simcore.games.goofspiel import rules
from simcore.watch.pictures import label, rect, seat_label, svg

CARD_W = 18                   # a card of a hand or of the prize deck
GOOF_STYLE = (".card{stroke:#fff}.gone{fill:#e6e6e6}.deck{fill:#7a6a53}.prize{fill:#f2c500;stroke:#222}"
              ".fd{fill:#555}.k{font-size:9px;fill:#777}")


def draw_board(state, params):
    """The prize (large), the prize deck (face down: only how many are left shows), each seat's hand as the
    cards 1..N with those played greyed out, a face-down bid as a dark card, and the points; below, the last
    trick resolved with its bids."""
    v = rules.View(state)
    players, n = int(params[rules.P_PLAYERS]), int(params[rules.P_CARDS])
    left = int(v.deck.sum())
    caption = (f"game over after {v.turn} tricks" if v.seat < 0
               else f"trick {v.turn + 1} of {n}: seat {v.seat} to bid")
    shapes = [label(8, 12, caption), rect(8, 22, 40, 56, "prize", ' rx="5"'),
              label(28, 56, v.prize + 1 if v.prize >= 0 else "-", "c"), label(28, 90, "prize", "c k"),
              rect(60, 26, 30, 48, "deck", ' rx="4"'), label(75, 54, left, "c w"), label(75, 90, "deck", "c k")]
    x0 = 150
    shapes += [label(x0 + k * CARD_W + 8, 34, k + 1, "c k") for k in range(n)]
    for seat in range(players):
        y = 40 + 22 * seat
        shapes.append(seat_label(100, y + 12, seat, ""))
        for k in range(n):
            cls = f"card s{seat}" if v.hands[seat, k] else "gone"
            cls = "fd" if v.bids[seat] == k else cls
            shapes.append(rect(x0 + k * CARD_W, y, CARD_W - 2, 18, cls, ' rx="2"'))
        shapes.append(label(x0 + n * CARD_W + 6, y + 13, f"seat {seat}: {int(v.points[seat])} points"))
    y = 48 + 22 * players
    if v.turn:
        prize, winner, *bids = (int(x) for x in v.tricks[v.turn - 1, :rules.T_BIDS + players])
        who = "a tie: discarded" if winner == rules.NOBODY else f"seat {winner} takes it"
        shapes.append(label(8, y + 12, f"trick {v.turn}: prize {prize + 1}, bids "
                            + ", ".join(f"seat {s} {b + 1}" for s, b in enumerate(bids)) + f"; {who}"))
    return svg("goofspiel", x0 + n * CARD_W + 120, y + 20, GOOF_STYLE, shapes)
