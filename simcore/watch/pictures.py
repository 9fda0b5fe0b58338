"""Pictures of the games' boards as SVG, one per decision, for the replay page of ``simcore replay``.

    svg = board_svg(simcore.games.zwai, state, params)

draws the board of one state as one standalone ``<svg class="board" data-game="zwai">`` element: well-formed
XML, no scripts, no external references, no fonts to load, its size given by the viewBox alone, so the page
can scale it. A page embeds one picture per decision, several hundred, so a picture stays small (a few kB):
integer coordinates, a few style classes, long runs drawn as one shape. The styles are scoped to ``.board``
because the styles of an SVG written into an HTML page apply to the whole page.

Each game draws its own board in its package's ``picture.py`` (``draw_board(state, params)``, part of the game's
contract when its ``GameType`` declares ``picture``), reading the state only through the game's ``View`` and its
``S_*``/``P_*`` offsets, and drawing what its rulebook (``docs/<game>.md``) names: Zwai's shoal and sharks,
Zwergen Ziehen's track and fence, the village square of Der Herr der Wichtel, the skirmish's yard, Goofspiel's
prize and hands. This module holds what every picture shares: the shapes below, and the seats in
:data:`SEAT_COLOURS`, the same in every game, with a legend saying who is who ("seat 0", ...) and each seat's
score as the result row counts it. A picture numbers what the actions name (Zwai's and the skirmish's rows and
columns, Wichtel's slots), so that "cell (2, -4)" can be found on it.
"""

import html

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
    if not module.GAME.picture:
        raise ValueError(f"no picture for game {module.GAME.name!r}; allowed: a game whose GameType declares "
                         "picture=True")
    return module.draw_board(state, params)


def text_svg(game, text):
    """A game without a picture (``picture=False``) drawn from its text view (``state_to_string``): each line in
    a fixed-width face, so that its replay page and the report's games worth watching still show every position."""
    lines = text.splitlines() or [""]
    width, height = 8 + 7 * max(len(line) for line in lines), 8 + 14 * len(lines)
    shapes = [f'<text x="4" y="{14 * (k + 1)}" xml:space="preserve">{html.escape(line)}</text>'
              for k, line in enumerate(lines)]
    return svg(game, width, height, "text{font:11px monospace}", shapes)


# --- shapes -----------------------------------------------------------------------


def svg(game, width, height, style, shapes):
    """The standalone ``<svg>`` of one board: ``shapes`` in a viewBox, the styles scoped to ``.board``."""
    rules = "".join(f".board {rule}}}" for rule in (BASE_STYLE + style).split("}") if rule)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" class="board" '
            f'data-game="{game}"><style>{rules}</style>{"".join(shapes)}</svg>')


def label(x, y, words, cls=""):
    """Words at (x, y), escaped."""
    cls = f' class="{cls}"' if cls else ""
    return f'<text x="{x}" y="{y}"{cls}>{html.escape(str(words))}</text>'


def rect(x, y, width, height, cls, more=""):
    return f'<rect class="{cls}" x="{x}" y="{y}" width="{width}" height="{height}"{more}/>'


def seat_label(x, y, seat, words):
    """A swatch in the seat's colour, then the words: the legend of who is who."""
    return rect(x, y - 9, 10, 10, f"s{seat}") + label(x + 14, y, words)
