"""The picture of the board as SVG, for the replay page (docs/zwergen.md): the track, the fence and the gnomes."""

from simcore.games.zwergen import rules, text
from simcore.watch.pictures import label, rect, svg

SPACE = 16                    # a space of the track
LEGEND_WIDTH = 240            # its longest line: "team B (seats 1, 3), in the fence"; the caption's, longer
HAT_COLOURS = ("#E03C31", "#F2C500", "#3A9A3A", "#3366CC")   # rules.COLOURS: red, yellow, green, blue
ZWERGEN_STYLE = (".sp{fill:#efe6d2;stroke:#b9a67e}.fence{fill:#8b5a2b}.hose{stroke:#6b8e23;stroke-width:3}"
                 ".rib{fill:#c00}.gnome{stroke:#222}"
                 + "".join(f".h{c}{{fill:{colour}}}" for c, colour in enumerate(HAT_COLOURS)))


def draw_board(state, params):
    """The track: team A's side on the left, the fence, team B's side; each team's gnomes from its front gnome
    outwards (hats in their colours, A above the hose and B below it), the hose's middle marked where the
    pulls have moved it (``rope``); then the teams' seats, rounds won and the supply of hats."""
    v = rules.View(state)
    half = int(params[rules.P_TRACK_HALF])
    teams = text.track_gnomes(state, params)
    reach = max([half, *(abs(d) for gnomes in teams for d, _ in gnomes)])

    def left(at):                                    # x of the space at signed position ``at`` (A's side < 0)
        return 8 + (at + reach) * SPACE

    y = 24
    shapes = [label(8, 12, _zwergen_caption(state, params)),
              rect(left(-half), y, half * SPACE, 32, "sp"), rect(left(1), y, half * SPACE, 32, "sp"),
              '<path class="sp" d="' + "".join(f"M{left(at)} {y}v32" for at in range(-half + 1, half + 1) if at
                                               not in (0, 1)) + '"/>',
              rect(left(0) + 4, y - 4, SPACE - 8, 40, "fence"),
              f'<path class="hose" d="M{left(-reach)} {y + 16}H{left(reach + 1)}"/>',
              rect(left(-v.rope) + 5, y + 12, 6, 8, "rib")]
    for team, (side, lane) in enumerate(((-1, y + 14), (1, y + 30))):
        for distance, colour in teams[team]:
            shapes.append(f'<path class="gnome {"ab"[team]} h{colour}" '
                          f'd="M{left(side * distance) + 2} {lane}l6-12 6 12z"/>')
    shapes += _zwergen_legend(v, params, teams, y + 54)
    return svg("zwergen", max(left(reach + 1) + 8, LEGEND_WIDTH), y + 128, ZWERGEN_STYLE, shapes)


def _zwergen_caption(state, params):
    """The round, the rope and the phase; with a team in the fence (the round has ended), who won the round."""
    v = rules.View(state)
    rope = f"rope {v.rope:+d}" + (" (toward A)" if v.rope > 0 else " (toward B)" if v.rope < 0 else "")
    result = text.round_result(state, params)
    if result:
        return f"{result}; {rope}"
    phase = ("picking starting gnomes; ", "", "", "match over; ")[v.phase]
    return f"{phase}round {v.n_rounds}, {rope}"


def _zwergen_legend(v, params, teams, y):
    """Per team: its seats (A: even seats, B: odd seats), whether its front gnome is in the fence (it lost the
    round), then its rounds won and gnomes on a line of their own (short lines: legible on a phone); then the
    supply."""
    players = int(params[rules.P_PLAYERS])
    shapes = []
    for team in range(2):
        seats = range(team, players, 2)
        line = y + 30 * team
        shapes += [rect(8 + 12 * k, line - 9, 10, 10, f"s{seat}") for k, seat in enumerate(seats)]
        fence = ", in the fence" if teams[team] and teams[team][0][0] <= 0 else ""
        shapes.append(label(10 + 12 * len(seats), line, f"{text.team_name(params, team)}{fence}"))
        shapes.append(label(10 + 12 * len(seats), line + 13, f"rounds won {v.rounds[team]}, "
                            f"gnomes {len(teams[team])}"))
    shapes.append(label(8, y + 64, "supply"))
    for c in range(rules.N_COLOURS):
        x = 50 + 34 * c
        shapes.append(f'<path class="gnome h{c}" d="M{x} {y + 65}l5-10 5 10z"/>' + label(x + 13, y + 64, v.supply[c]))
    return shapes
