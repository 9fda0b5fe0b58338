"""Zwergen Ziehen in words (plain Python: the handle, replays, tests): actions, information states, states."""

import numpy as np

from simcore.games.zwergen.rules import (
    A_COLOUR,
    A_DISCARD,
    A_MOVE,
    A_SWAP,
    CARD_KIND,
    CARD_NAMES,
    COLOURS,
    K_ADD,
    M_CONTRA,
    M_HERBERT,
    M_RE,
    N_COLOURS,
    N_TYPES,
    P_PLAYERS,
    P_ROUNDS_TO_WIN,
    P_TRACK_HALF,
    PH_COLOUR,
    S_HAND,
    S_PHASE,
    S_ROUNDS,
    S_SEAT,
    View,
    apply_action,
    decode_move,
    front,
    in_stock,
    loser,
)

# --- plain Python: words for actions and states -----------------------------------------


def _sorted_hand(state, seat):
    return [t for t in range(N_TYPES) for _ in range(int(state[S_HAND + seat * N_TYPES + t]))]


def _cards_text(counts):
    return ", ".join(f"{int(k)} {CARD_NAMES[t]}" for t, k in enumerate(counts) if k) or "none"


def _colours_text(mask):
    return " ".join(COLOURS[c] for c in range(N_COLOURS) if (int(mask) >> c) & 1) or "none"


def round_of(state):
    """Rounds started: a replay draws the track whenever this changes (a round has ended)."""
    return View(state).n_rounds


def table_at_round_end(state, params, action, streams):
    """The track as a round ends: the round's last move applied to a copy of ``state`` under rules in which any
    round won ends the match, so that the track is not emptied for the next round (``apply_action`` does both
    in one step). A replay draws it, so that the team pulled into the fence can be seen."""
    table, rules = state.copy(), params.copy()
    rules[P_ROUNDS_TO_WIN] = 0
    apply_action(table, rules, np.int64(action), streams.copy())
    return table


def action_to_string(state, params, action):
    """The action in words, e.g. "play add red: a red gnome", "Contra with add multicolour on red"."""
    action = int(action)
    if action < A_MOVE:
        return f"starting gnome {COLOURS[action - A_COLOUR]}"
    if action == A_SWAP:
        return "swap: discard cards and draw as many"
    if action > A_SWAP:
        hand = _sorted_hand(state, int(state[S_SEAT]))
        mask = action - A_DISCARD
        return "discard " + ", ".join(f"{CARD_NAMES[t]} (card {i + 1})" for i, t in enumerate(hand) if (mask >> i) & 1)
    kind, t, c = (int(x) for x in decode_move(action))
    card = CARD_NAMES[t]
    if kind == M_CONTRA:
        return f"Contra with {card} on {COLOURS[c]}"
    if kind == M_RE:
        return f"Re with {card}: two {COLOURS[c]} gnomes"
    if kind == M_HERBERT:
        return f"Herbert with {card}: the two {COLOURS[c]} gnomes change sides"
    if CARD_KIND[t] == K_ADD:
        return f"play {card}: a {COLOURS[c]} gnome"
    if c >= 0:
        return f"play {card} choosing {COLOURS[c]}"
    return f"play {card}"


PHASES = ("starting colours", "move", "discard for a swap", "over")
PENDING = ("none", "add", "Contra", "Re")


def team_name(params, team):
    """"team A (seats 0, 2)": the rulebook's teams, named with their seats (A: even seats, B: odd seats)."""
    seats = range(team, int(params[P_PLAYERS]), 2)
    return f"team {'AB'[team]} (seat{'s' if len(seats) > 1 else ''} {', '.join(map(str, seats))})"


def round_result(state, params):
    """Who won the round when a team is in the fence (a round's end: the replay's table at the round end, or the
    match's last round), else ''."""
    lost = int(loser(state, params))
    if lost < 0:
        return ""
    match = " and the match" if state[S_ROUNDS + 1 - lost] >= params[P_ROUNDS_TO_WIN] else ""
    return f"team {'AB'[1 - lost]} wins round {View(state).n_rounds}{match}, team {'AB'[lost]} is in the fence"


def _by_seat(values):
    return ", ".join(f"seat {s} {int(x)}" for s, x in enumerate(values))


def _public_lines(state, params):
    """What every seat sees: the table (once the starting gnomes are revealed), the piles, the counters."""
    v = View(state)
    players = int(params[P_PLAYERS])
    phase = int(state[S_PHASE])
    lines = [
        f"{players} players, {round_result(state, params) or PHASES[phase]}; to move: seat {v.seat}, picking: "
        f"seat {v.picker}",
        f"rope {v.rope}; pending {PENDING[v.pending]} (colour {v.pending_colour})",
        f"turn {v.turn}, round {v.n_rounds}, rounds won: {team_name(params, 0)} {v.rounds[0]}, "
        f"{team_name(params, 1)} {v.rounds[1]}",
        f"played: adds {v.adds}, pulls {v.pulls}, squirrels {v.squirrels}, swaps {v.swaps}, Contra {v.contras}, "
        f"Re {v.res}, Herbert {v.herberts}; lead changes {v.lead_changes} (last side {v.last_sign}), "
        f"largest team {v.max_team}",
        "hand sizes: " + _by_seat(v.hands[s].sum() for s in range(players)),
        f"discard pile: {_cards_text(v.discard)}",
        f"draw pile: {v.draw_n} cards; at its last filling: {_cards_text(v.refill)}",
        "drawn since: " + _by_seat(v.drawn[s].sum() for s in range(players)),
    ]
    if phase != PH_COLOUR:
        lines += [
            "team A: " + " ".join(f"{COLOURS[c]} {v.teams[0, c]}" for c in range(N_COLOURS)),
            "team B: " + " ".join(f"{COLOURS[c]} {v.teams[1, c]}" for c in range(N_COLOURS)),
            "supply: " + " ".join(f"{COLOURS[c]} {v.supply[c]}" for c in range(N_COLOURS)),
            "starting colours: " + " ".join(COLOURS[c] for c in v.picks[:players]),
        ]
    return lines


def information_state_string(state, params, seat):
    """Everything ``seat`` knows: the public table and piles, its hand, its draws, its secret pick."""
    v = View(state)
    lines = _public_lines(state, params) + [
        f"seat {seat}",
        f"hand: {_cards_text(v.hands[seat])}",
        f"drawn since the last filling: {_cards_text(v.drawn[seat])}",
    ]
    if state[S_PHASE] == PH_COLOUR:
        # the starting gnomes are secret until all have picked; the picking seat sees which colours are in stock
        pick = int(v.picks[seat])
        lines.append(f"my starting colour: {COLOURS[pick] if pick >= 0 else 'not picked'}")
        lines.append(f"in stock at my pick: {_colours_text(v.seen[seat]) if pick >= 0 else '-'}")
        if seat == v.picker:
            lines.append(f"in stock now: {_colours_text(in_stock(state))}")
    else:
        lines.append(f"in stock at my pick: {_colours_text(v.seen[seat])}")
    return "\n".join(lines)


def track_gnomes(state, params):
    """Per team (A, B), its gnomes as (distance from the fence, hat colour), front gnome first: the formula of
    docs/zwergen.md, "The track". The state keeps only each team's count per colour, so the colours are laid
    in colour order from the front outwards (a picture's choice; the rules never ask where a colour stands)."""
    v = View(state)
    teams = []
    for team in range(2):
        colours = [c for c in range(N_COLOURS) for _ in range(int(v.teams[team, c]))]
        first = int(front(state, params, team))
        teams.append([(first + k, c) for k, c in enumerate(colours)])
    return teams


def track_line(state, params):
    """The track in one line, team A's far end on the left: ``.`` a free space, ``|`` the fence, ``A`` and ``B``
    the teams' gnomes. A gnome at distance 0 stands in the fence, one pulled further shows on the other side
    (``*`` where it meets a gnome of the other team); the line grows past a far end when gnomes stand there."""
    marks = {}
    for letter, side, gnomes in zip("AB", (-1, 1), track_gnomes(state, params), strict=True):
        for distance, _ in gnomes:
            at = side * distance
            marks[at] = "*" if at in marks else letter
    reach = max([int(params[P_TRACK_HALF]), *(abs(at) for at in marks)])
    return "track: " + "".join(marks.get(at, "|" if at == 0 else ".") for at in range(-reach, reach + 1))


def state_to_string(state, params):
    """The whole state: the public lines, the track, then every hand, draws, secret picks and the draw pile."""
    v = View(state)
    players = int(params[P_PLAYERS])
    lines = _public_lines(state, params) + [track_line(state, params)]
    if state[S_PHASE] == PH_COLOUR:
        lines.append("supply: " + " ".join(f"{COLOURS[c]} {v.supply[c]}" for c in range(N_COLOURS)))
    for s in range(players):
        pick = COLOURS[v.picks[s]] if v.picks[s] >= 0 else "-"
        lines.append(f"seat {s}: hand {_cards_text(v.hands[s])}; drawn {_cards_text(v.drawn[s])}; "
                     f"starting colour {pick} (in stock then: {_colours_text(v.seen[s])})")
    lines.append("draw pile, top first: " + ", ".join(CARD_NAMES[t] for t in v.draw_pile[::-1]))
    return "\n".join(lines)
