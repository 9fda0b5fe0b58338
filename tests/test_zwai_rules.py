"""Zwai rules, each in a constructed position; every test quotes what it checks.

RB = the rulebook (Zwai, Dirk Baumann, Piatnik 2025), DEC = the rules decisions (restated in docs/zwai.md,
"Decisions"). Shoal coordinates (row, col) are relative to the
first card; the jitted grid puts the first card on its centre cell.
"""

import numpy as np
import pytest

import simcore
from simcore import engine
from simcore.engine import rng
from simcore.games import zwai as z
from simcore.games.zwai import heuristics
from simcore.io import config as cfg
from tests.interface_driver import play


class Shoal:
    """A Zwai game set up by the real ``setup``; cards are placed through the real ``place``."""

    def __init__(self, origin=(0, 0), **params):
        values = z.GAME.defaults()
        values.update(params)
        z.check(values)
        self.params = z.params_array(values)
        self.state = z.new_state()
        self.streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(self.streams, 3, 0)
        z.setup(self.state, self.params, self.streams)
        self.view = z.View(self.state)
        self.cells = np.zeros(z.N_GRID, np.int64)
        self.origin = origin          # shoal coordinates of the first card

    def cell(self, r, c):
        return (z.CENTRE + r - self.origin[0]) * z.GRID + (z.CENTRE + c - self.origin[1])

    def coords(self, cell):
        return cell // z.GRID - z.CENTRE + self.origin[0], cell % z.GRID - z.CENTRE + self.origin[1]

    def legal(self):
        n = z.legal_cells(self.state, self.params, self.cells)
        return sorted(self.coords(int(x)) for x in self.cells[:n])

    def place(self, seat, fish, r, c):
        assert (r, c) in self.legal(), f"({r}, {c}) is not legal"
        z.place(self.state, self.params, seat, fish, self.cell(r, c))   # the card comes from outside the hands

    def sharks(self):
        return (self.state[z.S_SHARK_ROW] - z.CENTRE + self.origin[0],
                self.state[z.S_SHARK_COL] - z.CENTRE + self.origin[1])


# The rulebook's worked example: column totals 8, 8, 7, 6 and row totals 11, 6, 5, 7.
EXAMPLE = [[3, 4, 2, 2],
           [2, 1, 2, 1],
           [1, 1, 2, 1],
           [2, 2, 1, 2]]
# The second column first (the column shark settles there), then the top row, then the rest.
EXAMPLE_ORDER = [(0, 1), (1, 1), (2, 1), (3, 1), (0, 0), (0, 2), (0, 3),
                 (1, 0), (2, 0), (3, 0), (1, 2), (2, 2), (3, 2), (1, 3), (2, 3), (3, 3)]


def play_example(**params):
    s = Shoal(origin=(0, 1), **params)
    for k, (r, c) in enumerate(EXAMPLE_ORDER):
        s.place(k % 2, EXAMPLE[r][c], r, c)
    return s


def test_worked_example_removes_the_top_row_and_second_column():
    """RB (Round End example): 'column values 8, 8, 7, 6 ... row values 11, 6, 5, 7. The two sharks point at
    the top row (11) and the second column (8). All cards in that row and that column are' removed."""
    s = play_example()
    assert [int(s.view.row_fish[z.CENTRE + r]) for r in range(4)] == [11, 6, 5, 7]
    assert [int(s.view.col_fish[z.CENTRE - 1 + c]) for c in range(4)] == [8, 8, 7, 6]
    assert s.sharks() == (0, 1)
    z.end_round(s.state, s.params, s.streams)
    assert s.view.removed[0] == 7
    kept = [(r, c) for r in range(4) for c in range(4) if r != 0 and c != 1]
    assert len(kept) == 9
    for seat in (0, 1):
        mine = [(r, c) for k, (r, c) in enumerate(EXAMPLE_ORDER) if k % 2 == seat and (r, c) in kept]
        assert s.view.score[seat] == sum(EXAMPLE[r][c] for r, c in mine)
        assert s.view.cards[seat] == len(mine)


def test_with_moves_on_ties_the_column_shark_would_end_on_the_first_column():
    """DEC: 'a tie never moves it (shark_moves_on_tie, default false)': with the parameter on, the first
    column reaching 8 beside the marked 8 takes the shark."""
    assert play_example(shark_moves_on_tie=True).sharks() == (0, 0)


def test_the_first_card_sets_both_sharks():
    """RB: 'Place 1 shark next to and 1 shark above the first card played.' DEC: 'they first mark the row and
    the column of the first card.'"""
    s = Shoal()
    s.place(0, 0, 0, 0)
    assert s.sharks() == (0, 0)


def test_a_shark_moves_only_for_at_least_one_more_fish():
    """RB: 'A shark changes its position only if the number of fish in a row or column is at least 1 greater
    than in the row or column it currently marks. In case of a tie, do not move the shark!'"""
    s = Shoal()
    s.place(0, 2, 0, 0)                # row 0 and column 0 hold 2
    s.place(1, 2, 1, 0)                # row 1 ties row 0: the row shark stays; column 0 now 4
    assert s.sharks() == (0, 0)
    s.place(0, 3, 1, 1)                # row 1 = 5 > 2: the row shark moves; column 1 = 3 < 4 stays
    assert s.sharks() == (1, 0)
    s.place(1, 4, 0, 1)                # column 1 = 7 > 4: the column shark moves; row 0 = 6 > 5: row too
    assert s.sharks() == (0, 1)


def test_row_and_column_sharks_move_independently():
    """RB: 'Move the shark that is positioned next to the shoal to the row ... Move the shark that is
    positioned above the shoal to the column'."""
    s = Shoal()
    s.place(0, 1, 0, 0)
    s.place(1, 3, 0, 1)                # same row: only the column shark can move, and does (3 > 1)
    assert s.sharks() == (0, 1)
    s.place(0, 4, 1, 0)                # row 1 = 4 <= row 0 = 4: tie, stays; column 0 = 5 > 3: moves
    assert s.sharks() == (0, 0)


def test_placement_needs_an_orthogonal_neighbour_and_at_most_four_in_a_line():
    """RB: 'Every further card must always be placed horizontally or vertically against cards already laid
    out. No more than 4 cards may ever lie next to each other horizontally or vertically.'"""
    s = Shoal()
    s.place(0, 1, 0, 0)
    assert s.legal() == [(-1, 0), (0, -1), (0, 1), (1, 0)]   # no diagonal
    for c in (1, 2, 3):
        s.place(0, 1, 0, c)
    legal = s.legal()
    assert (0, 4) not in legal and (0, -1) not in legal       # a fifth card in the row would not fit 4x4
    assert (1, 0) in legal and (-1, 3) in legal


def test_asymmetric_formation_is_never_rotated():
    """RB (Variant): 'Rotating the formation is not allowed.' DEC: 'the placed cells must always fit inside
    the formation at some translation (no rotation)'. The bar is 2 high and 8 wide."""
    s = Shoal(formation="bar")
    s.place(0, 1, 0, 0)
    s.place(0, 1, 1, 0)
    assert (2, 0) not in s.legal() and (-1, 0) not in s.legal()   # a third row would need a rotation
    for c in range(1, 7):
        s.place(0, 1, 0, c)
    assert (0, 7) in s.legal() and (0, -1) in s.legal()
    s.place(0, 1, 0, 7)
    assert (0, 8) not in s.legal() and (0, -1) not in s.legal()    # 8 wide at most


def test_ell_formation_cells_outside_every_translate_are_illegal():
    """DEC: 'every later card orthogonally adjacent to a placed card; the placed cells must always fit
    inside the formation at some translation'. The ell: a 2-wide arm of 3 rows on a 5x2 base."""
    art = "##...\n##...\n##...\n#####\n#####"
    s = Shoal(formation=art)
    s.place(0, 1, 0, 0)
    s.place(0, 1, 0, 1)
    s.place(0, 1, 0, 2)               # three in a row: only the base (rows 3-4 of the ell) allows that
    legal = s.legal()
    assert (-1, 2) in legal and (1, 2) in legal
    s.place(0, 1, 1, 2)               # now rows 0-1 must be the base: its top row is 5 wide
    legal = s.legal()
    assert (-1, 0) in legal and (-1, 1) in legal   # the arm can stand above the left of the base
    assert (-1, 2) not in legal                     # the arm is 2 wide: never above column 2
    assert (0, 3) in legal and (0, -1) in legal     # the base is 5 wide, either side
    assert (2, 2) not in legal                      # the base is 2 deep


def test_round_ends_when_the_formation_is_full_and_removed_cards_return_under_the_pile():
    """RB: 'As soon as 16 cards lie in the shoal ... the round ends.' 'Take the removed cards of your own
    colour back into your hand and mix them with your remaining hand cards. Then shuffle the mixed cards and
    place them face down under your pile.' 'Each player draws again ... the number of cards described in the
    setup'."""
    s = play_example()
    pile_before = [len(s.view.pile(seat)) for seat in (0, 1)]
    hand_before = [int(s.view.hands[seat].sum()) for seat in (0, 1)]
    returned = [sum(1 for k, (r, c) in enumerate(EXAMPLE_ORDER) if k % 2 == seat and (r == 0 or c == 1))
                for seat in (0, 1)]
    z.end_round(s.state, s.params, s.streams)
    for seat in (0, 1):
        assert s.view.hands[seat].sum() == 11
        assert len(s.view.pile(seat)) == pile_before[seat] + hand_before[seat] + returned[seat] - 11
    assert s.state[z.S_PLACED] == 0 and s.view.grid.sum() == 0


def test_discarded_removed_cards_leave_the_game():
    """DEC: 'removed_cards, default "return"; "discard" = they leave the game'."""
    s = play_example(removed_cards="discard")
    total_before = [s.view.hands[seat].sum() + len(s.view.pile(seat)) for seat in (0, 1)]
    z.end_round(s.state, s.params, s.streams)
    for seat in (0, 1):
        assert s.view.hands[seat].sum() + len(s.view.pile(seat)) == total_before[seat]


@pytest.mark.parametrize("players, removed_cards", [(2, "return"), (3, "discard"), (4, "return")])
def test_cards_are_conserved_and_hands_refilled_in_random_games(players, removed_cards):
    """RB: '4 sets of 23 cards each, one set per colour'; 'Each player draws again from their pile the number
    of cards described in the setup'; DEC: 'Everyone draws the hand size again (what is left if the pile is
    short).' At every step each colour's 23 cards are in hand + pile + shoal + scoring pile (with "discard",
    the cards the sharks took are counted apart), and after a round end every hand holds H cards or its
    whole pile was drawn."""
    values = {**z.GAME.defaults(), "players": players, "removed_cards": removed_cards}
    params = z.params_array(values)
    hand = values[f"hand_size_{players}"]
    kinds = ["random", "greedy", "random", "greedy"]
    seen = {"rounds": 0}

    def check(state, seat, actions):
        view = z.View(state)
        if state[z.S_PHASE] == z.CELL:
            return                      # the card in the mover's fingers is in no pile
        if state[z.S_N_ROUNDS] > seen["rounds"] and state[z.S_PLACED] == 0:
            seen["rounds"] = state[z.S_N_ROUNDS]
            for other in range(players):
                assert view.hands[other].sum() == hand or len(view.pile(other)) == 0
        in_shoal = np.bincount([o for (o, _) in view.shoal().values()], minlength=4)
        totals = [view.hands[other].sum() + len(view.pile(other)) + in_shoal[other] + view.cards[other]
                  for other in range(players)]
        if removed_cards == "return":
            assert totals == [23] * players
        else:
            assert sum(totals) + view.removed.sum() == 23 * players

    for game in range(60):
        seen["rounds"] = 0
        row = play(z, params, kinds, 17, game, on_decision=check)
        assert row[engine.extra_offset(z.MAX_SEATS) + z.MAX_SEATS + z.MAX_ROUNDS + 1] == 3   # n_rounds


# 4 players, a 10-cell formation: the round's last card is not placed by the seat before the starter, so "next"
# and "rotate" pick different starters.
TEN_CELLS = "#####\n#####"


def _round_starters_and_last_placers(round_starter):
    """Play one random game through the decision interface; per round: the seat that placed its first card,
    and (for all but the last round) the seat that placed its last card."""
    values = {**z.GAME.defaults(), "players": 4, "formation": TEN_CELLS, "round_starter": round_starter}
    params = z.params_array(values)
    starters, last, placers = [], [], []

    def watch(state, seat, actions):
        if state[z.S_PHASE] != z.CARD:
            return
        if state[z.S_PLACED] == 0:
            starters.append(seat)
            if placers:
                last.append(placers[-1])
        placers.append(seat)

    play(z, params, ["random"] * 4, 8, 0, on_decision=watch)
    return starters, last


def test_round_starter_next_is_the_seat_after_the_last_card():
    """RB: 'The new round begins with whoever is next clockwise.' DEC: 'Turn order runs on across rounds (the
    next round begins with the seat after the one that placed the round's last card)', round_starter = "next"
    (default). Round 1: seats 0..3 place 10 cards, seat 1 the last: seat 2 begins round 2; its last card is
    seat 3's: seat 0 begins round 3."""
    starters, last = _round_starters_and_last_placers("next")
    assert last == [1, 3]
    assert starters == [0, 2, 0]


def test_round_starter_rotate_is_the_seat_after_the_last_starter():
    """DEC: 'round_starter (revised): ... "rotate" (the seat after the previous round's starter begins,
    another reading of "whoever is next clockwise")'. The same deal as for "next": rounds begun by 0, 1, 2."""
    starters, last = _round_starters_and_last_placers("rotate")
    assert last == [1, 2]
    assert starters == [0, 1, 2]


def _fits_some_translate(placed, formation):
    """Brute force, independent of the engine's bookkeeping: some translate of the formation covers all."""
    anchor = min(placed)
    return any({(r - anchor[0] + fr, c - anchor[1] + fc) for r, c in placed} <= formation
               for fr, fc in formation)


@pytest.mark.parametrize("formation", ["square", "ell", "stairs", "ring", "reef"])
def test_random_games_never_place_an_illegal_card(formation):
    """RB: 'Every further card must always be placed horizontally or vertically against cards already laid
    out.' DEC: 'the placed cells must always fit inside the formation at some translation (no rotation).'"""
    values = {**z.GAME.defaults(), "players": 3, "formation": formation}
    params = z.params_array(values)
    shape = set(z.formation_cells(formation))
    placements = [0]

    def check(state, seat, actions):
        if state[z.S_PHASE] != z.CELL:
            return
        before = set(z.View(state).shoal())
        for action in actions:          # every cell a policy may choose
            r, c = divmod(int(action) - z.MAX_FISH, z.GRID)
            assert (r, c) not in before
            assert not before or before & {(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)}
            assert _fits_some_translate(before | {(r, c)}, shape)
        placements[0] += 1

    for game in range(40):
        play(z, params, ["random", "random", "greedy"], 5, game, on_decision=check)
    assert placements[0] == 40 * 3 * 16


GREEDY_TRAP = ("design.md, Known traps: 'A heuristic that plans across two decisions (Zwai's greedy picks the "
               "card and remembers its cell) must re-plan when the first decision was not its own'")


def test_greedy_plans_a_cell_for_a_card_it_did_not_choose():
    """GREEDY_TRAP. Issue 21's case: the first card of game 0 of seed 1 laid by hand, so greedy kept no plan;
    it played cell 10 of an empty work, where the only legal cell is the centre, 122."""
    s = simcore.load_game("zwai").new_initial_state(seed=1, game_index=0)
    s.apply_action(s.legal_actions()[0])
    assert s.legal_actions() == [122]
    assert s.agent_action("greedy") == 122


def _card_positions(players, games, seed=9):
    """(params, copies of the state at every card decision of greedy games with a choice of cards)."""
    values = {**z.GAME.defaults(), "players": players}
    params = z.params_array(values)
    found = []

    def keep(state, seat, actions):
        if state[z.S_PHASE] == z.CARD and len(set(actions.tolist())) > 1:
            found.append(state.copy())

    for game in range(games):
        play(z, params, ["greedy"] * players, seed, game, on_decision=keep)
    return params, found


def test_greedy_ignores_a_plan_made_in_another_position():
    """GREEDY_TRAP: inside a search greedy's work holds the plan of another world or another line of play, each
    played with streams of its own. A card laid in position B with the plan greedy made in position A gets
    the cell a fresh greedy gives it (the same draws), and that cell is legal; greedy's own card in A keeps
    its cell without a draw."""
    params, positions = _card_positions(3, 6)
    cells = np.zeros(z.N_GRID, np.int64)
    replanned = 0
    for a, b in zip(positions, positions[7:], strict=False):
        seat_a, seat_b = int(a[z.S_SEAT]), int(b[z.S_SEAT])
        streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(streams, 4, int(a[z.S_TURN]))
        work = np.zeros(z.WORK_SIZE, np.int64)
        card = z.greedy_action(a, params, seat_a, streams, work)          # the plan of position A
        kept = streams.copy()
        own = a.copy()
        z.apply_action(own, params, card, streams)
        cell = z.greedy_action(own, params, seat_a, streams, work)
        assert (streams == kept).all() and cell == z.MAX_FISH + work[heuristics.W_PLAN]
        if b[z.S_HAND + seat_b * z.MAX_FISH + card] == 0:
            continue
        other = b.copy()
        rng.seed_streams(streams, 5, int(b[z.S_TURN]))
        z.apply_action(other, params, card, streams)
        fresh_streams = streams.copy()
        stale = z.greedy_action(other, params, seat_b, streams, work)
        fresh = z.greedy_action(other, params, seat_b, fresh_streams, np.zeros(z.WORK_SIZE, np.int64))
        assert stale == fresh and (streams == fresh_streams).all()
        assert stale - z.MAX_FISH in cells[:z.legal_cells(other, params, cells)]
        replanned += 1
    assert replanned > 50


def _final(players, fish, cards):
    values = {**z.GAME.defaults(), "players": players}
    params = z.params_array(values)
    state = z.new_state()
    state[z.S_SCORE:z.S_SCORE + players] = fish
    state[z.S_CARDS:z.S_CARDS + players] = cards
    state[z.S_OVER] = 1
    row = np.zeros(engine.width(z), np.int64)
    z.write_row(state, params, row)
    return [bool(w) for w in row[engine.O_WIN:engine.O_WIN + players]]


def test_winner_most_own_fish():
    """RB: 'The winner is whoever has collected the most fish of their own colour in the scoring pile.'"""
    assert _final(3, [10, 14, 9], [5, 4, 6]) == [False, True, False]


def test_tie_on_fish_broken_by_own_cards():
    """RB: 'If there is a tie, the winner is whoever has more cards of their own colour in the scoring
    pile.'"""
    assert _final(3, [14, 14, 9], [5, 6, 9]) == [False, True, False]


def test_full_tie_is_a_shared_win():
    """RB: 'If there is still a tie, all players tied for the win share the victory.'"""
    assert _final(4, [14, 14, 9, 14], [6, 6, 9, 5]) == [True, True, False, False]


@pytest.mark.parametrize("art, message", [
    ("....\n....", "formation 'custom' is empty"),
    ("##.\n..#", "formation 'custom' is not orthogonally connected"),
    ("#########", "formation 'custom' is 1x9; allowed: at most 8x8"),
    ("##x#", "formation 'custom' has 'x'"),
    ("lagoon", "formation 'lagoon' is not shipped; allowed: square, bar"),
])
def test_bad_formations_are_rejected_with_a_clear_message(art, message):
    """DEC: 'A formation must be non-empty and orthogonally connected, else the config is rejected with a
    clear error.'"""
    with pytest.raises(cfg.ConfigError, match="parameter formation = .*" + message.replace("(", r"\(")):
        cfg.resolve("zwai", sets=[("formation", art)])


def test_bad_formation_from_the_command_line_is_one_line(cli, tmp_path):
    done = cli("run", "zwai", "--set", 'formation="#.#"', "--games", "10", "--out", tmp_path / "x.parquet")
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1
    assert "not orthogonally connected" in done.stderr and not list(tmp_path.iterdir())


def test_own_formation_in_a_config_runs_without_code_change(cli, tmp_path):
    """Issue: 'a formation of one's own, written as ASCII art in a TOML config, runs without any code
    change'."""
    config = tmp_path / "mine.toml"
    config.write_text('game = "zwai"\n[params]\nplayers = 3\nformation = """\n###.\n#.##\n####\n"""\n')
    out = tmp_path / "mine.parquet"
    done = cli("run", "zwai", "--config", config, "--games", "500", "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    import pyarrow.parquet as pq
    table = pq.read_table(out)
    assert table.num_rows == 500 and "###.\n#.##\n####" in table.schema.metadata[b"simcore.config"].decode()
    assert set(table["n_turns"].to_pylist()) == {3 * 10}     # 10 cells a round, 3 rounds


def test_shipped_formations_are_sixteen_connected_cells(cli):
    """DEC: 'ship the square plus at least 7 named 16-cell shapes of our own'."""
    shipped = z.shipped_formations()
    assert len(shipped) >= 8 and "square" in shipped
    for name, (_, art) in shipped.items():
        assert len(z.parse_formation(art, name)) == 16
    done = cli("formations")
    assert done.returncode == 0
    for name in shipped:
        assert f"{name}: 16 cells" in done.stdout
