"""Der Herr der Wichtel in words (plain Python: the handle, replays, tests): actions, information states, states."""

import numpy as np

from simcore.games.wichtel.rules import (
    A_BRIBE,
    A_END_NO,
    A_END_YES,
    A_ENLIST,
    A_EXCHANGE,
    A_FILL,
    A_FREE_NO,
    A_GIFT,
    A_NIX_NO,
    A_NO_BRIBE,
    A_NO_EVENT,
    A_REPLY,
    A_REROLL_NO,
    AFTER_MOVER_RECEIVED,
    CARDS,
    EVENTS,
    KOMM_HER,
    MAX_SEATS,
    N_ACTION_CODES,
    N_TYPES,
    N_WIDE,
    NEGATED,
    P_PLAYERS,
    PH_BRIBE,
    PH_END_ROUND,
    PH_FILL,
    PH_GIFT,
    PH_NIX,
    PH_OVER,
    PH_REPLY,
    PH_REROLL,
    PHASES,
    PUBLIC,
    S_PHASE,
    S_TITLES,
    S_TOTALS,
    SHUFFLED,
    TITLE_NAMES,
    View,
    apply_action,
)

# --- words (plain Python: replays, tests, the agents' handle) ---------------------------------------------------

def _cards(counts):
    return " ".join(CARDS[t] for t in range(N_TYPES) for _ in range(int(counts[t]))) or "-"


def _events(counts):
    return " ".join(EVENTS[k] for k in range(len(counts)) for _ in range(int(counts[k]))) or "-"


def round_of(state):
    """Rounds scored: a replay draws the village square and the retinues whenever this changes."""
    return View(state).n_rounds


def table_at_round_end(state, params, action, streams):
    """The village square and the retinues as a round ends, scored: ``state`` (before the round's last decision)
    with every seat's total and title as the rules score them at the round end, before the next round is dealt,
    which ``apply_action`` does in the same step. A replay draws it, so that the retinues can be seen beside the
    totals they gave. A game that runs out of turns ends unscored: its table is the state after the decision."""
    scored = state.copy()
    apply_action(scored, params, np.int64(action), streams.copy())   # the round end on copies: draws nothing
    if state[S_PHASE] != PH_END_ROUND or action != A_END_YES:
        return scored                                                 # out of turns: nothing scored or dealt
    table = state.copy()
    for at in (S_TOTALS, S_TOTALS + N_WIDE):                          # the totals' low words, then high words
        table[at:at + MAX_SEATS] = scored[at:at + MAX_SEATS]
    table[S_TITLES:S_TITLES + MAX_SEATS] = scored[S_TITLES:S_TITLES + MAX_SEATS]
    return table


def action_to_string(state, params, action):
    """The action in words, e.g. 'exchange HF with seat 2', 'bribe r4', 'put FA into slot 1'."""
    v = View(state)
    ranges = ((A_EXCHANGE, lambda a: f"call {CARDS[a]}"),
              (A_ENLIST, lambda a: f"exchange {CARDS[a // MAX_SEATS]} with seat {a % MAX_SEATS}"),
              (A_NO_BRIBE, lambda a: f"enlist slot {a} ({CARDS[v.square[a]]})"),
              (A_BRIBE, lambda a: "no bribe"),
              (A_NO_EVENT, lambda a: f"bribe {EVENTS[a]}"),
              (A_NO_EVENT + 1, lambda a: "no village-square event"),
              (A_NIX_NO, lambda a: f"play {EVENTS[a + KOMM_HER]}"),
              (A_GIFT, lambda a: f"Nix da!: {('no', 'yes')[a]}"),
              (A_REROLL_NO, lambda a: f"give the {CARDS[v.card]} to seat {a}"),
              (A_REPLY, lambda a: f"Ich guck nochmal!: {('no', 'yes')[a]}"),
              (A_FILL, lambda a: f"give back {CARDS[a]}"),
              (A_END_NO, lambda a: f"put {CARDS[a]} into slot {v.slot}"),
              (A_FREE_NO, lambda a: f"end the round: {('no', 'yes')[a]}"),
              (N_ACTION_CODES, lambda a: f"free the Wahlleiter: {('no', 'yes')[a]}"))
    start = 0
    for end, words in ranges:
        if action < end:
            return words(action - start)
        start = end
    raise ValueError(f"action {action} is no Wichtel action; allowed: 0 to {N_ACTION_CODES - 1}")


def _decision(v, seat):
    """The pending decision and what the table knows of the move around it (the exchanged card only to its
    giver, the face-down bribes only to their owners)."""
    phase = v.phase
    words = [f"decision: {PHASES[phase]}" + ("" if phase == PH_OVER else f" by seat {v.actor}, mover seat {v.mover}")]
    if phase == PH_REPLY:
        words.append(f"exchange with seat {v.partner}" + (f", giving {CARDS[v.give]}" if seat == v.mover else ""))
    if phase in (PH_BRIBE, PH_NIX, PH_GIFT, PH_REROLL, PH_FILL):
        words.append(f"enlisting slot {v.slot} ({CARDS[v.card]})")
    if phase == PH_BRIBE:
        table = [f"seat {b} " + (EVENTS[v.table[b]] if b == seat else "face down") for b in range(MAX_SEATS)
                 if v.table[b] >= 0]
        words.append("bribes on the table: " + (", ".join(table) or "-"))
    if phase in (PH_NIX, PH_GIFT, PH_REROLL, PH_FILL) and v.win_seat >= 0:
        negated = v.win_kind == NEGATED
        words.append(f"winning bribe of seat {v.win_seat}: " + ("negated" if negated else EVENTS[v.win_kind]))
    if phase == PH_NIX:
        words.append(f"Nix da! asked of the seat {v.nix} places after the mover")
    if phase == PH_REROLL:
        words.append(f"needs {v.need}")
    if phase == PH_FILL:
        words.append(f"receiver seat {v.receiver}")
    if phase == PH_END_ROUND:
        words.append("then the mover's own receipt" if v.after == AFTER_MOVER_RECEIVED else "then the end event")
    return "; ".join(words)


def _stack(v, side, seat):
    """A stack as ``seat`` sees it, bottom first: the cards it knows, '?' for the others (with who knows them)."""
    cards, masks = v.stack(side), v.masks(side)
    shuffled = v.shuffled if (side == "A") == (v.draw_side == 0) else 0
    words = [f"[{shuffled} shuffled]"] if shuffled else []
    for card, mask in zip(cards[shuffled:], masks[shuffled:], strict=True):
        if seat is None or (mask >> seat) & 1:
            words.append(CARDS[card])
        else:
            words.append("?" + "".join(str(o) for o in range(MAX_SEATS) if (mask >> o) & 1))
    return " ".join(words) or "-"


def _by_seat(words):
    return ", ".join(f"seat {s} {w}" for s, w in enumerate(words))


def _title(title):
    return TITLE_NAMES[title] if title >= 0 else "none"


def _public(v, players):
    """What the whole table saw this game: scores, the square, the stacks' sizes, the events played."""
    return [
        f"players {players}; round {v.n_rounds + 1}; turn {v.turn}; starter seat {v.starter}; dice {v.dice}",
        "totals: " + _by_seat(v.totals[:players]),
        "titles: " + _by_seat(_title(int(v.state[S_TITLES + s])) for s in range(players)),
        "bribes played/won: " + _by_seat(f"{v.bribes_played[s]}/{v.bribes_won[s]}" for s in range(players)),
        f"Wahlleiter {'free' if v.free else 'tied'}; Komm mal zurück {v.back}; Stehenbleiben {v.stand}",
        "square: " + ", ".join(f"slot {k} {CARDS[c]}" for k, c in enumerate(v.square[:players])),
        f"draws from {'AB'[v.draw_side]}; events played {_events(v.spent)}; set aside {v.aside}",
        "everybody is sure of: " + _by_seat(_cards(v.sure_of(PUBLIC, o)) for o in range(players))
        + f"; shuffled: {_cards(v.sure_of(PUBLIC, SHUFFLED))}",
    ]


def information_state_string(state, params, seat):
    """Everything ``seat`` knows (docs/wichtel.md: Decisions, information and resampling)."""
    v = View(state)
    players = int(params[P_PLAYERS])
    lines = [f"seat {seat}", _decision(v, seat), *_public(v, players),
             f"retinue {_cards(v.retinues[seat])}; events {_events(v.events[seat])}",
             "the stacks, bottom first (?12: a card only seats 1 and 2 know)",
             f"stack A {_stack(v, 'A', seat)}", f"stack B {_stack(v, 'B', seat)}",
             f"sure of in the shuffled stack {_cards(v.sure_of(seat, SHUFFLED))}"]
    for q in range(players):
        if q != seat:
            lines.append(f"seat {q}: sure of {_cards(v.sure_of(seat, q))}; {v.events[q].sum()} events in hand; "
                         f"shown {_events(v.shown[q])}")
    return "\n".join(lines)


def state_to_string(state, params):
    """The whole state, every hand and stack shown."""
    v = View(state)
    players = int(params[P_PLAYERS])
    lines = [_decision(v, v.mover), *_public(v, players),
             f"stack A {_stack(v, 'A', None)}", f"stack B {_stack(v, 'B', None)}"]
    for q in range(players):
        table = f"; face-down bribe {EVENTS[v.table[q]]}" if v.table[q] >= 0 else ""
        lines.append(f"seat {q}: retinue {_cards(v.retinues[q])}; events {_events(v.events[q])}{table}")
    return "\n".join(lines)
