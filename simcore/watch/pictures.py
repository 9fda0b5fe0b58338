"""Pictures of the games' boards as SVG, one per decision, for the replay page of ``simcore replay``.

    svg = board_svg(simcore.games.zwai, state, params)

draws the board of one state as one standalone ``<svg class="board" data-game="zwai">`` element: well-formed
XML, no scripts, no external references, no fonts to load, its size given by the viewBox alone, so the page
can scale it. A page embeds one picture per decision, several hundred, so a picture stays small (a few kB):
integer coordinates, a few style classes, long runs drawn as one shape. The styles are scoped to ``.board``
because the styles of an SVG written into an HTML page apply to the whole page.

Each game has one drawing function, reading the state only through the game's ``View`` and its ``S_*``/``P_*``
offsets, and drawing what its rulebook (``docs/<game>.md``) names: Zwai's shoal and sharks, Zwergen Ziehen's
track and fence, the village square of Der Herr der Wichtel, the skirmish's yard,
Goofspiel's prize and hands. Every picture shows the
seats in :data:`SEAT_COLOURS`, the same in every game, with a legend saying who is who ("seat 0", ...) and each
seat's score as the result row counts it, and numbers what the actions name (Zwai's and the skirmish's rows and
columns, Wichtel's slots), so that "cell (2, -4)" can be found on it.
"""

import html
from collections import Counter

from simcore.games import goofspiel, skirmish, wichtel, zwai, zwergen

# Okabe-Ito colours, told apart with any colour vision; the fifth for Der Herr der Wichtel's fifth seat
SEAT_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00")

# Every picture's styles: text, centred text, right-aligned text, white text, a seat's fill (s0, s1, ...).
BASE_STYLE = (
    "text{font:10px sans-serif;fill:#222}.c{text-anchor:middle}.e{text-anchor:end}.w{fill:#fff}"
    + "".join(f".s{seat}{{fill:{colour}}}" for seat, colour in enumerate(SEAT_COLOURS))
)


def board_svg(module, state, params):
    """The board of ``state`` (a game's flat state array, ``params`` its int64 parameter array) as an SVG
    string; ``module`` is the game's module, e.g. ``simcore.games.zwai``."""
    name = module.GAME.name
    if name not in DRAWINGS:
        raise ValueError(f"no picture for game {name!r}; allowed: {', '.join(DRAWINGS)}")
    return DRAWINGS[name](state, params)


# --- shapes -----------------------------------------------------------------------


def _svg(game, width, height, style, shapes):
    rules = "".join(f".board {rule}}}" for rule in (BASE_STYLE + style).split("}") if rule)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" class="board" '
            f'data-game="{game}"><style>{rules}</style>{"".join(shapes)}</svg>')


def _text(x, y, words, cls=""):
    cls = f' class="{cls}"' if cls else ""
    return f'<text x="{x}" y="{y}"{cls}>{html.escape(str(words))}</text>'


def _rect(x, y, width, height, cls, more=""):
    return f'<rect class="{cls}" x="{x}" y="{y}" width="{width}" height="{height}"{more}/>'


def _seat_label(x, y, seat, words):
    """A swatch in the seat's colour, then the words: the legend of who is who."""
    return _rect(x, y - 9, 10, 10, f"s{seat}") + _text(x + 14, y, words)


# --- Zwai: the shoal and the two sharks (docs/zwai.md) -------------------------------

CELL = 24                     # a card's square on the grid
ZWAI_STYLE = (".sh{fill:#dbeef6}.card{stroke:#fff}.band{fill:#333;opacity:.12}.shark{fill:#555}"
              ".f{font-size:13px;font-weight:bold;fill:#fff}.k{font-size:9px;fill:#777}")


def _zwai(state, params):
    """The shoal's placed cards (bounding box and a margin of one cell), its rows and columns numbered as the
    actions name cells ("cell (2, -4)": row, column from the centre), the sharks' fins at the ends of the row
    and the column they mark, and a panel per seat: hand, pile, scoring pile."""
    v = zwai.View(state)
    cards = v.shoal()
    rows = [r for r, _ in cards] or [zwai.CENTRE]    # an empty shoal: the centre, where the first card goes
    cols = [c for _, c in cards] or [zwai.CENTRE]
    r0, c0 = min(rows) - 1, min(cols) - 1
    n_rows, n_cols = max(rows) - r0 + 2, max(cols) - c0 + 2
    height, width = n_rows * CELL, n_cols * CELL
    x0, y0 = 32, 44                                  # room for the numbers, then the fins, left of and above
    shapes = [_text(2, 12, _zwai_caption(v, params)), _rect(x0, y0, width, height, "sh", ' rx="6"')]
    shapes += [_text(x0 - 15, y0 + k * CELL + 15, r0 + k - zwai.CENTRE, "k e") for k in range(n_rows)]
    shapes += [_text(x0 + k * CELL + 12, y0 - 17, c0 + k - zwai.CENTRE, "k c") for k in range(n_cols)]
    if v.shark_row >= 0:
        shapes += _sharks(v.shark_row - r0, v.shark_col - c0, x0, y0, width, height, v)
    for (r, c), (owner, fish) in sorted(cards.items()):
        x, y = x0 + (c - c0) * CELL + 1, y0 + (r - r0) * CELL + 1
        shapes.append(_rect(x, y, CELL - 2, CELL - 2, f"card s{owner}", ' rx="4"')
                      + _text(x + 11, y + 16, fish, "c f"))
    if not cards:
        shapes.append(_text(x0 + width // 2, y0 + height // 2 + 4, "empty shoal", "c"))
    players = int(params[zwai.P_PLAYERS])
    panel_x = x0 + width + 16
    for seat in range(players):
        y = y0 + 10 + 30 * seat
        shapes.append(_seat_label(panel_x, y, seat, f"seat {seat}: hand {v.hands[seat].sum()}, "
                                  f"pile {v.pile_sizes[seat]}")
                      + _text(panel_x + 14, y + 13, f"scored {v.score[seat]} fish / {v.cards[seat]} cards"))
    return _svg("zwai", panel_x + 160, max(y0 + height + 14, y0 + 30 * players + 4), ZWAI_STYLE, shapes)


def _zwai_caption(v, params):
    if v.over:
        return f"game over after {v.n_rounds} rounds"
    pending = f"; seat {v.seat} lays a {v.pending}-fish card" if v.phase == zwai.CELL else ""
    return f"round {v.n_rounds + 1} of {int(params[zwai.P_ROUNDS])}{pending}"


def _sharks(row, col, x0, y0, width, height, v):
    """The row shark and the column shark: a faint band over the marked line and a fin at each of its ends,
    pointing into the line. ``row`` and ``col`` count from the drawn box's first row and column."""
    y, x = y0 + row * CELL, x0 + col * CELL
    fins_row = f"M{x0 - 12} {y + 4}l10 8-10 8zM{x0 + width + 12} {y + 4}l-10 8 10 8z"
    fins_col = f"M{x + 4} {y0 - 12}l8 10 8-10zM{x + 4} {y0 + height + 12}l8-10 8 10z"
    return [_rect(x0, y, width, CELL, "band"), _rect(x, y0, CELL, height, "band"),
            f'<path class="shark" data-row="{v.shark_row}" d="{fins_row}"/>',
            f'<path class="shark" data-col="{v.shark_col}" d="{fins_col}"/>']


# --- Zwergen Ziehen: the track, the fence and the gnomes (docs/zwergen.md) ------------

SPACE = 16                    # a space of the track
HAT_COLOURS = ("#E03C31", "#F2C500", "#3A9A3A", "#3366CC")   # zwergen.COLOURS: red, yellow, green, blue
ZWERGEN_STYLE = (".sp{fill:#efe6d2;stroke:#b9a67e}.fence{fill:#8b5a2b}.hose{stroke:#6b8e23;stroke-width:3}"
                 ".rib{fill:#c00}.gnome{stroke:#222}"
                 + "".join(f".h{c}{{fill:{colour}}}" for c, colour in enumerate(HAT_COLOURS)))


def _zwergen(state, params):
    """The track: team A's side on the left, the fence, team B's side; each team's gnomes from its front gnome
    outwards (hats in their colours, A above the hose and B below it), the hose's middle marked where the
    pulls have moved it (``rope``); then the teams' seats, rounds won and the supply of hats."""
    v = zwergen.View(state)
    half = int(params[zwergen.P_TRACK_HALF])
    teams = zwergen.track_gnomes(state, params)
    reach = max([half, *(abs(d) for gnomes in teams for d, _ in gnomes)])

    def left(at):                                    # x of the space at signed position ``at`` (A's side < 0)
        return 8 + (at + reach) * SPACE

    y = 24
    shapes = [_text(8, 12, _zwergen_caption(state, params)),
              _rect(left(-half), y, half * SPACE, 32, "sp"), _rect(left(1), y, half * SPACE, 32, "sp"),
              '<path class="sp" d="' + "".join(f"M{left(at)} {y}v32" for at in range(-half + 1, half + 1) if at
                                               not in (0, 1)) + '"/>',
              _rect(left(0) + 4, y - 4, SPACE - 8, 40, "fence"),
              f'<path class="hose" d="M{left(-reach)} {y + 16}H{left(reach + 1)}"/>',
              _rect(left(-v.rope) + 5, y + 12, 6, 8, "rib")]
    for team, (side, lane) in enumerate(((-1, y + 14), (1, y + 30))):
        for distance, colour in teams[team]:
            shapes.append(f'<path class="gnome {"ab"[team]} h{colour}" '
                          f'd="M{left(side * distance) + 2} {lane}l6-12 6 12z"/>')
    shapes += _zwergen_legend(v, params, teams, y + 54)
    return _svg("zwergen", max(left(reach + 1) + 8, 240), y + 100, ZWERGEN_STYLE, shapes)


def _zwergen_caption(state, params):
    """The round, the rope and the phase; with a team in the fence (the round has ended), who won the round."""
    v = zwergen.View(state)
    rope = f"rope {v.rope:+d}" + (" (toward A)" if v.rope > 0 else " (toward B)" if v.rope < 0 else "")
    result = zwergen.round_result(state, params)
    if result:
        return f"{result}; {rope}"
    phase = ("picking starting gnomes; ", "", "", "match over; ")[v.phase]
    return f"{phase}round {v.n_rounds}, {rope}"


def _zwergen_legend(v, params, teams, y):
    """Per team: its seats (A: even seats, B: odd seats), rounds won, gnomes, whether its front gnome is in the
    fence (it lost the round); then the supply."""
    players = int(params[zwergen.P_PLAYERS])
    shapes = []
    for team in range(2):
        seats = range(team, players, 2)
        line = y + 16 * team
        shapes += [_rect(8 + 12 * k, line - 9, 10, 10, f"s{seat}") for k, seat in enumerate(seats)]
        fence = " - in the fence" if teams[team] and teams[team][0][0] <= 0 else ""
        shapes.append(_text(10 + 12 * len(seats), line, f"{zwergen.team_name(params, team)}: "
                            f"rounds won {v.rounds[team]}, gnomes {len(teams[team])}{fence}"))
    shapes.append(_text(8, y + 36, "supply"))
    for c in range(zwergen.N_COLOURS):
        x = 50 + 34 * c
        shapes.append(f'<path class="gnome h{c}" d="M{x} {y + 37}l5-10 5 10z"/>' + _text(x + 13, y + 36, v.supply[c]))
    return shapes


# --- Der Herr der Wichtel: the village square, the stacks, the retinues (docs/wichtel.md) -----

WICHTEL_STYLE = (".card{fill:#fffbe8;stroke:#7a6a3a}.back{fill:#6d4c8d;stroke:#fff}.nm{font-weight:bold}"
                 ".tied{fill:#c00}.free{fill:#3a9a3a}.k{font-size:8px;fill:#777}")


def _wichtel(state, params):
    """The village square between stack A and stack B (face down, with their sizes; the arrow shows the
    walk from the drawing stack), its slots numbered as the actions name them ("enlist slot 2"), the
    Wahlleiter (tied or free), and per seat its retinue, total and title."""
    v = wichtel.View(state)
    players = int(params[wichtel.P_PLAYERS])
    shapes = [_text(8, 12, _wichtel_caption(v))]
    y = 22
    x_b = 56 + 40 * players
    shapes += _stack(8, y, "A", v.a_n) + _stack(x_b, y, "B", v.b_n)
    for slot in range(players):
        card = int(v.square[slot])
        x = 52 + 40 * slot
        shapes.append(_rect(x, y, 34, 46, "card slot", ' rx="4"') + _text(x + 17, y + 11, f"slot {slot}", "c k")
                      + _text(x + 17, y + 28, wichtel.CARDS[card] if card >= 0 else "-", "c nm"))
    arrow = "→" if v.draw_side == 0 else "←"
    shapes.append(_text((48 + x_b) // 2, y + 60, f"{arrow} walk from stack {'AB'[v.draw_side]} {arrow}", "c"))
    free = bool(v.free)
    shapes.append(f'<circle class="{"free" if free else "tied"}" cx="{x_b + 52}" cy="{y + 20}" r="6"/>'
                  + _text(x_b + 62, y + 24, f"Wahlleiter {'free' if free else 'tied'}"))
    for seat in range(players):
        shapes += _retinue(v, seat, y + 86 + 26 * seat)
    return _svg("wichtel", max(x_b + 150, 330), y + 80 + 26 * players, WICHTEL_STYLE, shapes)


def _wichtel_caption(v):
    if v.phase == wichtel.PH_OVER:
        return f"game over after {v.n_rounds} rounds, {v.turn} turns"
    return f"round {v.n_rounds + 1}, turn {v.turn}"


def _stack(x, y, side, size):
    """A face-down stack: two card backs, slightly apart, and how many cards it holds."""
    return [_rect(x + 3, y + 3, 34, 46, "back", ' rx="4"'), _rect(x, y, 34, 46, "back", ' rx="4"'),
            _text(x + 18, y + 22, side, "c w"), _text(x + 18, y + 36, size, "c w")]


def _retinue(v, seat, y):
    cards = [t for t in range(wichtel.N_TYPES) for _ in range(int(v.retinues[seat, t]))]
    title = int(v.state[wichtel.S_TITLES + seat])
    shapes = [_seat_label(8, y, seat, f"seat {seat}")]
    for k, t in enumerate(cards):
        shapes.append(_rect(62 + 28 * k, y - 13, 26, 18, "card ret", ' rx="3"')
                      + _text(75 + 28 * k, y, wichtel.CARDS[t], "c"))
    words = f"total {v.totals[seat]}" + (f", {wichtel.TITLE_NAMES[title]}" if title >= 0 else "")
    return [*shapes, _text(62 + 28 * max(len(cards), wichtel.RETINUE) + 4, y, words)]


# --- the garden-gnome skirmish: the yard, the gnomes, the flags (docs/skirmish.md) ------

PACE = 12                     # a cell of the yard
TERRAIN_COLOURS = ("#d8c08c", "#a6d38a", "#6f9a4f", "#9fd3ee", "#2f6fae")   # skirmish.TERRAIN: = . * ~ W
SKIRMISH_STYLE = ("".join(f".t{k}{{fill:{colour}}}" for k, colour in enumerate(TERRAIN_COLOURS))
                  + ".yd{shape-rendering:crispEdges}.gnome{stroke:#fff}.gl{font-size:8px;fill:#fff}.flag{stroke:#000}"
                  ".sel{fill:none;stroke:#000}.k{font-size:7px;fill:#555}")


def _skirmish(state, params):
    """The yard's terrain (seat 0's edge on top, seat 1's at the bottom, marked in their colours), its rows and
    columns numbered as the actions name cells ("moves to (3, 7)": row, column), every gnome in action as a
    circle in its seat's colour with its type's letter, the flags (on a carrier, or dropped on their cell), the
    gnome about to move ringed; beside the yard, each seat's gnomes in action (its score) and out of action."""
    v = skirmish.View(state)
    width, height = int(params[skirmish.P_WIDTH]), int(params[skirmish.P_HEIGHT])
    x0, y0 = 18, 32                                  # room for the row numbers, the caption, the column numbers
    shapes = [_text(4, 12, _skirmish_caption(state, params))]
    shapes += _terrain(params, width, height, x0, y0)
    shapes += [_text(x0 - 3, y0 + r * PACE + 9, r, "k e") for r in range(height)]
    shapes += [_text(x0 + c * PACE + 6, y0 - 7, c, "k c") for c in range(width)]
    shapes += [_rect(x0, y0 - 4, width * PACE, 3, "s0"), _rect(x0, y0 + height * PACE + 1, width * PACE, 3, "s1")]

    def corner(cell):                                # top-left corner of a cell
        return x0 + cell % width * PACE, y0 + cell // width * PACE

    moving = int(v.gnome) if v.phase == skirmish.PH_MOVE and v.winner == skirmish.NO_WINNER else -1
    mover = (v.first + v.turn) % 2                   # as skirmish.mover: turns alternate from the first player
    for seat in range(2):
        for k in range(int(params[skirmish.P_GNOMES])):
            cell = int(v.pos[seat, k])
            if cell < 0:
                continue
            x, y = corner(cell)
            letter = skirmish.GNOME_LETTERS[int(params[skirmish.P_TYPES + k])]
            shapes.append(f'<circle class="gnome s{seat}" cx="{x + 6}" cy="{y + 6}" r="6"/>'
                          + _text(x + 6, y + 9, letter.upper() if seat else letter, "c gl"))
            if seat == mover and k == moving:
                shapes.append(f'<circle class="sel" cx="{x + 6}" cy="{y + 6}" r="8"/>')
            if v.flag[seat, k] >= 0:
                shapes.append(_flag(x + 8, y, int(v.flag[seat, k])))
    for f in range(2):
        if v.flag_at[f] >= 0:
            shapes.append(_flag(*corner(int(v.flag_at[f])), f))
    panel_x = x0 + width * PACE + 10
    for seat in range(2):
        shapes += _seat_panel(state, params, seat, panel_x, y0 + 10 + 40 * seat)
    return _svg("skirmish", panel_x + 170, max(y0 + height * PACE + 8, y0 + 90), SKIRMISH_STYLE, shapes)


def _skirmish_caption(state, params):
    turn, winner = int(state[skirmish.S_TURN]), int(state[skirmish.S_WINNER])
    scenario = skirmish.SCENARIOS[int(params[skirmish.P_SCENARIO])].replace("_", " ")
    if winner == skirmish.DRAW:
        return f"{scenario}: a draw after {turn} turns"
    if winner != skirmish.NO_WINNER:
        return f"{scenario}: seat {winner} wins after {turn} turns"
    return f"{scenario}, turn {turn} of {int(params[skirmish.P_MAX_TURNS])}"


def _terrain(params, width, height, x0, y0):
    """The yard's cells: the commonest terrain as one background, every other terrain as one rectangle per
    run of equal cells along a row (a few dozen shapes instead of one per cell)."""
    codes = [int(params[skirmish.P_YARD + k]) for k in range(width * height)]
    ground = Counter(codes).most_common(1)[0][0]
    shapes = ['<g class="yd">', _rect(x0, y0, width * PACE, height * PACE, f"t{ground}")]
    for r in range(height):
        c = 0
        while c < width:
            code, start = codes[r * width + c], c
            while c < width and codes[r * width + c] == code:
                c += 1
            if code != ground:
                shapes.append(_rect(x0 + start * PACE, y0 + r * PACE, (c - start) * PACE, PACE, f"t{code}"))
    return [*shapes, "</g>"]


def _flag(x, y, owner):
    """Seat ``owner``'s flag (flag p is seat p's): a pennant in that seat's colour."""
    return f'<path class="flag s{owner}" d="M{x} {y + 11}V{y + 1}l7 3-7 3"/>'


def _seat_panel(state, params, seat, x, y):
    """The seat, its edge, its gnomes in action (the score of the result row) and the types out of action."""
    v = skirmish.View(state)
    out = [skirmish.TYPES[int(params[skirmish.P_TYPES + k])] for k in range(int(params[skirmish.P_GNOMES]))
           if v.pos[seat, k] < 0]
    return [_seat_label(x, y, seat, f"seat {seat} ({('top', 'bottom')[seat]} edge): "
                        f"{skirmish.alive(state, params, seat)} in action"),
            _text(x, y + 14, "out of action: " + (", ".join(out) or "none"))]


# --- Goofspiel: the prize, the prize deck, every hand and the tricks so far (docs/goofspiel.md) --------

CARD_W = 18                   # a card of a hand or of the prize deck
GOOF_STYLE = (".card{stroke:#fff}.gone{fill:#e6e6e6}.deck{fill:#7a6a53}.prize{fill:#f2c500;stroke:#222}"
              ".fd{fill:#555}.k{font-size:9px;fill:#777}")


def _goofspiel(state, params):
    """The prize (large), the prize deck (face down: only how many are left shows), each seat's hand as the
    cards 1..N with those played greyed out, a face-down bid as a dark card, and the points; below, the last
    trick resolved with its bids."""
    v = goofspiel.View(state)
    players, n = int(params[goofspiel.P_PLAYERS]), int(params[goofspiel.P_CARDS])
    left = int(v.deck.sum())
    caption = (f"game over after {v.turn} tricks" if v.seat < 0
               else f"trick {v.turn + 1} of {n}: seat {v.seat} to bid")
    shapes = [_text(8, 12, caption), _rect(8, 22, 40, 56, "prize", ' rx="5"'),
              _text(28, 56, v.prize + 1 if v.prize >= 0 else "-", "c"), _text(28, 90, "prize", "c k"),
              _rect(60, 26, 30, 48, "deck", ' rx="4"'), _text(75, 54, left, "c w"), _text(75, 90, "deck", "c k")]
    x0 = 150
    shapes += [_text(x0 + k * CARD_W + 8, 34, k + 1, "c k") for k in range(n)]
    for seat in range(players):
        y = 40 + 22 * seat
        shapes.append(_seat_label(100, y + 12, seat, ""))
        for k in range(n):
            cls = f"card s{seat}" if v.hands[seat, k] else "gone"
            cls = "fd" if v.bids[seat] == k else cls
            shapes.append(_rect(x0 + k * CARD_W, y, CARD_W - 2, 18, cls, ' rx="2"'))
        shapes.append(_text(x0 + n * CARD_W + 6, y + 13, f"seat {seat}: {int(v.points[seat])} points"))
    y = 48 + 22 * players
    if v.turn:
        prize, winner, *bids = (int(x) for x in v.tricks[v.turn - 1, :goofspiel.T_BIDS + players])
        who = "a tie: discarded" if winner == goofspiel.NOBODY else f"seat {winner} takes it"
        shapes.append(_text(8, y + 12, f"trick {v.turn}: prize {prize + 1}, bids "
                            + ", ".join(f"seat {s} {b + 1}" for s, b in enumerate(bids)) + f"; {who}"))
    return _svg("goofspiel", x0 + n * CARD_W + 120, y + 20, GOOF_STYLE, shapes)


DRAWINGS = {"zwai": _zwai, "zwergen": _zwergen, "wichtel": _wichtel, "skirmish": _skirmish,
            "goofspiel": _goofspiel}
