"""The board pictures (simcore.pictures): every decision of a few greedy games of each game is drawn, and each
picture must show what the state holds, counted on the SVG's elements, and stay small and standalone."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from simcore import handle, pictures
from simcore.games import skirmish, wichtel, zwai, zwergen

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
            assert f"scored {v.score[seat]} fish / {v.cards[seat]} cards" in texts(root)
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
            spaces = [(int(re.match(r"M(-?\d+)", h.get("d")).group(1)) - 2 - fence) // pictures.SPACE
                      for h in hats]
            assert sorted(side * at for at in spaces) == list(range(front, front + n))
        assert f"team A (seats 0, 2): rounds won {v.rounds[0]}, gnomes {v.teams[0].sum()}" in svg
        assert f"team B (seats 1, 3): rounds won {v.rounds[1]}, gnomes {v.teams[1].sum()}" in svg


def test_zwergen_track_line():
    """docs/zwergen.md, "The track": the text replay draws the track in one line, the fence in the middle and
    each team's gnomes from its front gnome outwards; a team pulled into the fence stands on it."""
    game = handle.load_game("zwergen", {"players": 2})
    state = zwergen.new_state()

    def line(n_a, n_b, rope):
        state[zwergen.S_TEAM:zwergen.S_PICK] = [n_a, 0, 0, 0, 0, n_b, 0, 0]
        state[zwergen.S_ROPE] = rope
        return zwergen.track_line(state, game.params_array)

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
    gnomes out of action listed beside the yard."""
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
