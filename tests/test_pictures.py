"""The board pictures (simcore.watch.pictures): every decision of a few greedy games of each game is drawn, and each
picture must show what the state holds, counted on the SVG's elements, and stay small and standalone."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from simcore import handle
from simcore.games import skirmish, wichtel, zwai, zwergen
from simcore.games.zwergen.picture import SPACE as ZWERGEN_SPACE
from simcore.watch import pictures

MAX_BYTES = 12_000            # a page embeds one picture per decision


def greedy_states(name, params, seeds=(1, 2)):
    """Every state of greedy games, from the first decision to the end, with the game's parameter array."""
    game = handle.load_game(name, params)
    states = []
    for seed in seeds:
        state = game.new_initial_state(seed=seed)
        states.append(state.state.copy())
        while not state.is_terminal():
            state.apply_action(state.agent_action("greedy"))
            states.append(state.state.copy())
    return game, states


def picture(game, state):
    """The picture of ``state``, checked as a standalone element: well-formed, sized by its viewBox only,
    nothing to load or run, below MAX_BYTES, with the seats' colours. Returns the parsed root and the text."""
    svg = pictures.board_svg(game.module, state, game.params_array)
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("class") == "board" and root.get("data-game") == game.name
    assert re.fullmatch(r"0 0 \d+ \d+", root.get("viewBox")) and root.get("width") is None
    assert not re.search(r"<script|href|url\(|@import", svg)
    assert len(svg.encode()) < MAX_BYTES
    for seat in range(game.num_players()):
        assert pictures.SEAT_COLOURS[seat] in svg
    return root, svg


def classed(root, cls):
    return [e for e in root.iter() if cls in e.get("class", "").split()]


def texts(root):
    return [e.text for e in root.iter("{http://www.w3.org/2000/svg}text")]


@pytest.mark.parametrize("params", [{"players": 2}, {"players": 4, "formation": "ring"}])
def test_zwai_shoal_and_sharks(params):
    """docs/zwai.md: the shoal holds the placed cards, each of its owner's colour; the sharks mark one row and
    one column (from the round's first card on)."""
    game, states = greedy_states("zwai", params)
    most = 0
    for state in states:
        root, _ = picture(game, state)
        v = zwai.View(state)
        cards = classed(root, "card")
        assert len(cards) == v.placed
        most = max(most, v.placed)
        owners = sorted(owner for owner, _ in v.shoal().values())
        assert sorted(int(c.get("class")[-1]) for c in cards) == owners   # class "card s<owner>"
        sharks = classed(root, "shark")
        if v.shark_row < 0:
            assert sharks == [] and v.placed == 0 and "empty shoal" in texts(root)
        else:
            assert [s.get("data-row") for s in sharks] == [str(v.shark_row), None]
            assert [s.get("data-col") for s in sharks] == [None, str(v.shark_col)]
        for seat in range(game.num_players()):
            assert any(t.endswith(f"scored {v.score[seat]} fish / {v.cards[seat]} cards") for t in texts(root))
    assert most >= 4                       # the games did fill the shoal


def test_zwergen_track_and_teams():
    """docs/zwergen.md, "The track": each team's gnomes stand on consecutive spaces from its front gnome,
    front_A = track_half - n_A + 1 + rope and front_B = track_half - n_B + 1 - rope, hats by colour."""
    game, states = greedy_states("zwergen", {"players": 4})
    half = int(game.params_array[zwergen.P_TRACK_HALF])
    for state in states:
        root, svg = picture(game, state)
        v = zwergen.View(state)
        fence = int(classed(root, "fence")[0].get("x")) - 4
        for team, side in ((0, -1), (1, 1)):
            hats = classed(root, "ab"[team])
            n = int(v.teams[team].sum())
            assert len(hats) == n
            assert sorted(h.get("class") for h in hats) == sorted(
                f"gnome {'ab'[team]} h{c}" for c in range(zwergen.N_COLOURS) for _ in range(v.teams[team, c]))
            front = half - n + 1 + (v.rope if team == 0 else -v.rope)
            spaces = [(int(re.match(r"M(-?\d+)", h.get("d")).group(1)) - 2 - fence) // ZWERGEN_SPACE
                      for h in hats]
            assert sorted(side * at for at in spaces) == list(range(front, front + n))
        for team, name in enumerate(("team A (seats 0, 2)", "team B (seats 1, 3)")):
            assert name in svg and f"rounds won {v.rounds[team]}, gnomes {v.teams[team].sum()}" in texts(root)


def test_zwergen_track_line():
    """docs/zwergen.md, "The track": the text replay draws the track in one line, the fence in the middle and
    each team's gnomes from its front gnome outwards; a team pulled into the fence stands on it."""
    game = handle.load_game("zwergen", {"players": 2})
    state = zwergen.new_state()

    def line(n_a, n_b, rope):
        state[zwergen.S_TEAM:zwergen.S_PICK] = [n_a, 0, 0, 0, 0, n_b, 0, 0]
        state[zwergen.S_ROPE] = rope
        return zwergen.text.track_line(state, game.params_array)

    assert line(0, 0, 0) == "track: ........|........"
    assert line(3, 0, 0) == "track: AAA.....|........"
    assert line(3, 2, 2) == "track: AAA.......|....BB...."       # past A's far end: the line grows
    assert line(3, 0, -7) == "track: .......AAA......."          # front_A = -1: one gnome in the fence
    _, states = greedy_states("zwergen", {"players": 4}, seeds=(1,))
    for s in states:
        text = zwergen.state_to_string(s, game.params_array)
        track = next(row for row in text.splitlines() if row.startswith("track: "))
        v = zwergen.View(s)
        assert "*" in track or (track.count("A"), track.count("B")) == (v.teams[0].sum(), v.teams[1].sum())


@pytest.mark.parametrize("players", [3, 4])
def test_wichtel_square_stacks_and_retinues(players):
    """docs/wichtel.md: the village square holds one leprechaun per player between stack A and stack B; each
    seat's retinue, total and title; the Wahlleiter is tied or free."""
    game, states = greedy_states("wichtel", {"players": players})
    for state in states:
        root, svg = picture(game, state)
        v = wichtel.View(state)
        assert len(classed(root, "slot")) == players
        names = [e.text for e in classed(root, "nm")]
        assert names == [wichtel.CARDS[c] for c in v.square[:players]]
        assert len(classed(root, "ret")) == v.retinues[:players].sum()
        assert ("Wahlleiter free" if v.free else "Wahlleiter tied") in svg
        assert str(v.a_n) in texts(root) and str(v.b_n) in texts(root)
        for seat in range(players):
            assert any(t.startswith(f"total {v.totals[seat]}") for t in texts(root))


@pytest.mark.parametrize("params", [{}, {"scenario": "capture_the_flag"}])
def test_skirmish_yard_gnomes_and_flags(params):
    """docs/skirmish.md: the yard with every gnome in action in its player's colour; in capture_the_flag both
    flags, carried or dropped ("A flag is always either carried by one gnome in action or lies on a cell");
    gnomes out of action listed under the yard."""
    game, states = greedy_states("skirmish", params, seeds=(1,))
    flags = 2 if params else 0
    for state in states:
        root, svg = picture(game, state)
        v = skirmish.View(state)
        for player in range(2):
            gnomes = [e for e in classed(root, "gnome") if f"s{player}" in e.get("class")]
            assert len(gnomes) == np.sum(v.pos[player, :int(game.params_array[skirmish.P_GNOMES])] >= 0)
        assert len(classed(root, "flag")) == flags
        assert sorted(e.get("class") for e in classed(root, "flag")) == [f"flag s{f}" for f in range(flags)]
        out = [skirmish.TYPES[int(game.params_array[skirmish.P_TYPES + k])]
               for k in range(int(game.params_array[skirmish.P_GNOMES])) if v.pos[0, k] < 0]
        assert f"out of action: {', '.join(out) or 'none'}" in svg


# --- coordinates and seats: a reader finds the cell an action names, and every seat is "seat N" (issue 21) ----


def greedy_handles(name, params, seeds=(1,)):
    """Every position of greedy games as a handle state (its text functions and legal actions at hand)."""
    game = handle.load_game(name, params)
    positions = []
    for seed in seeds:
        state = game.new_initial_state(seed=seed)
        positions.append(state.clone())
        while not state.is_terminal():
            state.apply_action(state.agent_action("greedy"))
            positions.append(state.clone())
    return game, positions


def numbers(root):
    """The picture's coordinate numbers (class "k"): row numbers (right-aligned) by their baseline y, column
    numbers (centred) by their x."""
    marks = classed(root, "k")
    rows = {int(e.get("y")): int(e.text) for e in marks if "e" in e.get("class").split()}
    cols = {int(e.get("x")): int(e.text) for e in marks if "c" in e.get("class").split()}
    return rows, cols


def beside(labels, low, high):
    """The one label whose position lies in [low, high]."""
    found = [n for at, n in labels.items() if low <= at <= high]
    assert len(found) == 1, (labels, low, high)
    return found[0]


def words_cells(words):
    return [tuple(map(int, m)) for m in re.findall(r"\((-?\d+), (-?\d+)\)", words)]


@pytest.mark.parametrize("params", [{"players": 3, "formation": "ring"}, {"players": 2}])
def test_zwai_picture_numbers_rows_and_columns_as_the_actions_name_cells(params):
    """Issue 21: action_to_string names a cell "cell (r, c)", row and column from the centre; the picture
    numbers its rows and columns the same way: every card lies on the row and column numbered with its cell,
    and every cell an action may name is numbered."""
    game, positions = greedy_handles("zwai", params)
    for s in positions:
        root, _ = picture(game, s.state)
        rows, cols = numbers(root)
        v = zwai.View(s.state)
        drawn = {}
        for card, fish in zip(classed(root, "card"), classed(root, "f"), strict=True):
            x, y, size = (int(card.get(k)) for k in ("x", "y", "width"))
            cell = beside(rows, y, y + size), beside(cols, x, x + size)
            drawn[cell] = (int(card.get("class")[-1]), int(fish.text))
        assert drawn == {(r - zwai.CENTRE, c - zwai.CENTRE): card for (r, c), card in v.shoal().items()}
        for action in s.legal_actions():
            for r, c in words_cells(s.action_to_string(action)):
                assert r in rows.values() and c in cols.values()


def test_zwai_text_shoal_numbers_cells_and_names_seats_by_digit():
    """Issue 21: the text shoal writes each card as seat:fish ("0:3", as its legend says), under column numbers
    and beside row numbers that are the actions' "cell (r, c)", the sharks' row and column marked > and v."""
    game, positions = greedy_handles("zwai", {"players": 4, "formation": "ring"})
    shown = 0
    for s in positions:
        lines = str(s).splitlines()
        v = zwai.View(s.state)
        if not v.placed:
            assert "(empty shoal)" in lines
            continue
        at = lines.index(zwai.text.SHOAL_LEGEND)
        head, sharks = lines[at + 1], lines[at + 2]
        cols = [int(head[k:k + 4]) for k in range(7, len(head), 4)]
        n_rows = len(range(min(r for r, _ in v.shoal()), max(r for r, _ in v.shoal()) + 1))
        cards, row_shark = {}, []
        for line in lines[at + 3:at + 3 + n_rows]:          # " > " or "   ", the row's number, its cells
            r = int(line[3:6])
            row_shark += [r] if line[:3] == " > " else []
            for c, cell in zip(cols, (line[k:k + 4] for k in range(7, len(line), 4)), strict=False):
                if cell.strip() != ".":
                    owner, fish = re.fullmatch(r" (\d):(\d)", cell).groups()
                    cards[r, c] = (int(owner), int(fish))
        assert cards == {(r - zwai.CENTRE, c - zwai.CENTRE): card for (r, c), card in v.shoal().items()}
        assert row_shark == [v.shark_row - zwai.CENTRE]
        assert cols[(sharks.index("v") - 7) // 4] == v.shark_col - zwai.CENTRE
        shown += 1
    assert shown > 10


@pytest.mark.parametrize("params", [{}, {"scenario": "capture_the_flag"}])
def test_skirmish_yard_numbers_rows_and_columns_as_the_actions_name_cells(params):
    """Issue 21: the skirmish's actions name cells "(row, column)" ("foot gnome 1 moves to (3, 7)"); the picture
    numbers every row and column so, each gnome standing on the row and column of its cell, and the text yard
    carries the same numbers (the tens above the units), each gnome's letter at its cell."""
    game, positions = greedy_handles("skirmish", params)
    width, height = (int(game.params_array[k]) for k in (skirmish.P_WIDTH, skirmish.P_HEIGHT))
    for s in positions[::7]:
        root, _ = picture(game, s.state)
        rows, cols = numbers(root)
        assert sorted(rows.values()) == list(range(height)) and sorted(cols.values()) == list(range(width))
        v = skirmish.View(s.state)
        lines = str(s).splitlines()
        at = lines.index(skirmish.text.YARD_LEGEND)
        tens, units, yard = lines[at + 1].ljust(4 + width), lines[at + 2], lines[at + 3:at + 3 + height]
        assert [int(t.strip() or 0) * 10 + int(u) for t, u in zip(tens[4:], units[4:], strict=True)] == \
            list(range(width))
        assert [int(line[:4]) for line in yard] == list(range(height))
        circles = [e for e in classed(root, "gnome") if e.tag.endswith("circle")]
        for seat in range(2):
            drawn = sorted(beside(rows, int(e.get("cy")) - 6, int(e.get("cy")) + 6) * width
                           + beside(cols, int(e.get("cx")) - 6, int(e.get("cx")) + 6)
                           for e in circles if f"s{seat}" in e.get("class").split())
            cells = [int(c) for c in v.pos[seat, :int(game.params_array[skirmish.P_GNOMES])] if c >= 0]
            assert drawn == sorted(cells)
            for k, cell in enumerate(v.pos[seat, :int(game.params_array[skirmish.P_GNOMES])]):
                if cell >= 0:
                    letter = skirmish.text.GNOME_LETTERS[int(game.params_array[skirmish.P_TYPES + k])]
                    assert yard[cell // width][4 + cell % width] == (letter.upper() if seat else letter)
        for action in s.legal_actions():
            for r, c in words_cells(s.action_to_string(action)):
                assert 0 <= r < height and 0 <= c < width


def test_wichtel_square_numbers_its_slots_as_the_actions_name_them():
    """Issue 21: Wichtel's actions name the village square's slots ("enlist slot 2 (SW)", "put HF into slot 1");
    the picture writes "slot k" on each slot, and the slot so named holds the card the action names."""
    game, positions = greedy_handles("wichtel", {"players": 4})
    enlists = 0
    for s in positions:
        root, _ = picture(game, s.state)
        slots, names = classed(root, "slot"), classed(root, "nm")
        labels = [e for e in classed(root, "k")]
        assert [e.text for e in labels] == [f"slot {k}" for k in range(4)]
        for slot, label, name in zip(slots, labels, names, strict=True):
            assert int(slot.get("x")) <= int(label.get("x")) <= int(slot.get("x")) + int(slot.get("width"))
            assert label.get("x") == name.get("x")
        for action in s.legal_actions():
            m = re.fullmatch(r"enlist slot (\d) \((\w+)\)", s.action_to_string(action))
            if m:
                assert names[int(m.group(1))].text == m.group(2)
                enlists += 1
    assert enlists > 10


SEAT_GAMES = [("zwai", {"players": 4}), ("zwergen", {"players": 4}), ("wichtel", {"players": 4}),
              ("skirmish", {"scenario": "capture_the_flag"})]


@pytest.mark.parametrize("name, params", SEAT_GAMES)
def test_every_text_names_seats_as_seat_digits(name, params):
    """Issue 21, one seat naming: the state, what each seat knows, the actions and the pictures name a seat
    "seat N", never "player N", a letter or a bare number after "mover", "starter", "receiver" or "picking";
    Zwergen's teams (docs/zwergen.md: team A = even seats, team B = odd seats) come with their seats."""
    game, positions = greedy_handles(name, params)
    bare = re.compile(r"\bplayer\b|\b(mover|starter|receiver|picking):? -?\d")
    for s in positions[::3]:
        texts = [str(s), *(s.information_state_string(seat) for seat in range(game.num_players())),
                 *(s.action_to_string(a) for a in s.legal_actions()),
                 "\n".join(texts_of(pictures.board_svg(game.module, s.state, game.params_array)))]
        for text in texts:
            assert not bare.search(text), bare.search(text).group()
            for team in ("team A", "team B"):
                assert team not in text or f"{team} (seat" in text, text


def texts_of(svg):
    return texts(ET.fromstring(svg))
