"""Garden-gnome skirmish rules in constructed positions; every test quotes what it checks.

RB = garden-skirmish.rulebook.txt, DEC = decisions.md (Garden-gnome skirmish), SPEC = docs/skirmish.md.
"""

import math
import re

import numpy as np
import pytest
from scipy.stats import binomtest

from simcore import config as cfg
from simcore import engine, rng
from simcore.games import skirmish as s

LAWN = "\n".join(["." * 12] * 10)


class Yard:
    """An empty yard (no gnome placed) with the real parameter array; tests place gnomes themselves."""

    def __init__(self, yard=LAWN, seed=1, policies=(s.POLICY_GREEDY, s.POLICY_GREEDY), **params):
        values = {**s.GAME.defaults(), "yard": yard, **{k.replace("__", "."): v for k, v in params.items()}}
        s.check(values)
        self.params = s.params_array(values)
        self.width = int(self.params[s.P_WIDTH])
        self.policies = np.array(policies, np.int64)
        self.state = s.new_state()
        self.streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(self.streams, seed, 0)
        s.setup(self.state, self.params, self.streams)
        for p in range(2):                      # clear the board
            for k in range(s.MAX_GNOMES):
                if self.state[s.S_POS + p * s.MAX_GNOMES + k] >= 0:
                    self.state[s.S_OCC + self.state[s.S_POS + p * s.MAX_GNOMES + k]] = 0
                    self.state[s.S_POS + p * s.MAX_GNOMES + k] = -1
        self.cells = np.zeros(2 * s.MAX_CELLS, np.int64)
        self.view = s.View(self.state)

    def cell(self, r, c):
        return r * self.width + c

    def put(self, player, k, r, c):
        s.place(self.state, player, k, self.cell(r, c))

    def reachable(self, player, k):
        n = s.reachable(self.state, self.params, player, k, self.cells)
        return {divmod(int(x), self.width) for x in self.cells[:n]}


# gnome numbers with the default army: 0, 1 foot, 2 fast cavalry, 3 heavy cavalry, 4 ranged
FOOT, FAST, HEAVY, RANGED = 0, 2, 3, 4


@pytest.mark.parametrize("letter, paces", [("=", 4), (".", 3), ("*", 2), ("~", 2)])
def test_movement_allowance_on_each_terrain(letter, paces):
    """RB: '4 Deck, patio, sidewalk, or garden path / 3 Open grassy area, yard / 2 Difficult ground, rocks,
    water, dense plants'. DEC: 'a free cell at Chebyshev distance <= its allowance'."""
    y = Yard("\n".join([letter * 13] * 13))
    y.put(0, FOOT, 6, 6)
    cells = y.reachable(0, FOOT)
    assert cells == {(r, c) for r in range(13) for c in range(13)
                     if 0 < max(abs(r - 6), abs(c - 6)) <= paces}


def test_mixed_terrain_uses_the_lowest_number_on_the_line():
    """RB: 'If a gnome wishes to move over more than 1 type of terrain use the lowest movement number for the
    different types of terrain.' DEC: 'the smallest pace number of the terrain cells on the line'."""
    y = Yard("\n".join(["====*====="] + ["=" * 10] * 5))
    y.put(0, FOOT, 0, 2)
    cells = y.reachable(0, FOOT)
    assert (0, 6) not in cells                 # 4 paces along row 0 would cross the rough cell (0, 4)
    assert (0, 4) in cells and (0, 3) in cells  # onto the rough: 2 paces allowed, 2 needed
    assert (4, 2) in cells                      # straight down the path: 4 paces


def test_fast_cavalry_moves_two_more_and_blocked_cells():
    """RB: 'Fast cavalry (such as gnomes on rabbits) move an extra 2 paces.' DEC: 'One gnome per cell.'"""
    y = Yard()
    y.put(0, FAST, 5, 5)
    y.put(1, FOOT, 5, 7)
    cells = y.reachable(0, FAST)
    assert max(max(abs(r - 5), abs(c - 5)) for r, c in cells) == 5
    assert (5, 7) not in cells and (5, 8) in cells


def test_a_gnome_ending_in_deep_water_drowns():
    """RB: 'If a gnome is placed in water that is higher than the gnome's nose, the gnome drowns and is out of
    action.'"""
    pond = "\n".join(["." * 12] + [".....W......"] * 8 + ["." * 12])
    drowned = 0
    for seed in range(60):
        y = Yard(pond, seed=seed, policies=(s.POLICY_RANDOM, s.POLICY_RANDOM))
        y.put(0, FOOT, 4, 4)
        y.put(1, FOOT, 9, 11)
        s.movement(y.state, y.params, s.POLICY_RANDOM, 0, y.streams, y.cells)
        at = y.view.pos[0, FOOT]
        if at < 0:
            drowned += 1
            assert y.view.lost[0, 0, s.DROWNED] == 1
        else:
            assert at % y.width != 5
    assert drowned > 0


def test_greedy_never_walks_into_deep_water():
    for seed in range(30):
        y = Yard("\n".join(["." * 12] + ["WWWWWWWWWWWW"] * 3 + ["............"] * 6), seed=seed)
        y.put(0, FOOT, 5, 4)
        y.put(1, FOOT, 9, 4)
        s.movement(y.state, y.params, s.POLICY_GREEDY, 0, y.streams, y.cells)
        assert y.view.pos[0, FOOT] >= 0


def _fight(seed, p0, p1, **params):
    """Put gnome numbers ``p0`` (player 0) and ``p1`` (player 1) in one contact group; resolve the melee.
    Returns the yard and both sides' best cards as the shuffles will deal them."""
    y = Yard(seed=seed, **params)
    for i, k in enumerate(p0):
        y.put(0, k, 4, 2 + i)
    for i, k in enumerate(p1):
        y.put(1, k, 5, 3 + i)            # every gnome of either side touches an enemy
    copy_state, copy_streams = y.state.copy(), y.streams.copy()
    cards = (s.best_card(copy_state, y.params, copy_streams, len(p0)),
             s.best_card(copy_state, y.params, copy_streams, len(p1)))
    s.melee(y.state, y.params, y.streams)
    return y, cards


def _out(y, player, gnomes):
    return all(y.view.pos[player, k] < 0 for k in gnomes)


def test_melee_highest_card_wins_and_ties_follow_the_heavy_cavalry():
    """RB: 'The player who draws the highest numbered card wins. The loser's gnomes are taken out of action ...
    Heavy cavalry gnomes ... win ties. If both sides had heavy cavalry in the fight then both sides are wiped out
    on a tie. Nothing happens on a tie if neither side had a heavy cavalry gnome.'"""
    seen = set()
    for seed in range(300):
        for p0, p1 in (((FOOT,), (FOOT,)), ((HEAVY,), (FOOT,)), ((HEAVY,), (HEAVY,)), ((FOOT, 1), (FAST,))):
            y, (a, b) = _fight(seed, p0, p1)
            heavy0, heavy1 = HEAVY in p0, HEAVY in p1
            if a != b:
                winner = 0 if a > b else 1
                expected = (winner == 1, winner == 0)
            elif heavy0 and heavy1:
                expected = (True, True)
            elif heavy0 or heavy1:
                expected = (not heavy0, not heavy1)
            else:
                expected = (False, False)
            assert (_out(y, 0, p0), _out(y, 1, p1)) == expected, (seed, p0, p1, a, b)
            assert not any(y.view.pos[0, k] < 0 for k in p0) or _out(y, 0, p0)    # a side loses all or none
            seen.add((a == b, heavy0, heavy1))
    assert {(True, False, False), (True, True, False), (True, True, True), (False, False, False)} <= seen


def test_each_side_draws_as_many_cards_as_it_has_gnomes():
    """RB: 'draws a number of cards equal to the number of gnomes he has in that particular fight'. With more
    gnomes, the best card is better on average: 3 against 1 wins far more often than 1 against 1."""
    wins3 = sum(_out(_fight(seed, (0, 1, FAST), (FOOT,))[0], 1, (FOOT,)) for seed in range(400))
    wins1 = sum(_out(_fight(seed, (FOOT,), (FOOT,))[0], 1, (FOOT,)) for seed in range(400))
    # best of 3 of 16 cards beats one card of another deck with p = 0.625; one card beats one with 6/16
    assert binomtest(wins3, 400, 0.625).pvalue > 0.001 and binomtest(wins1, 400, 0.375).pvalue > 0.001


def test_several_fights_in_one_turn_are_resolved_apart():
    """RB: 'more than one fight can occur per turn'."""
    y = Yard(seed=3)
    y.put(0, 0, 1, 1)
    y.put(1, 0, 2, 1)        # fight A, top left
    y.put(0, 1, 7, 9)
    y.put(1, 1, 8, 9)        # fight B, bottom right
    s.melee(y.state, y.params, y.streams)
    fights = y.state[s.S_SCRATCH:s.S_SCRATCH + 2 * s.MAX_GNOMES].reshape(2, s.MAX_GNOMES)
    assert fights[0, 0] == fights[1, 0] == 0 and fights[0, 1] == fights[1, 1] == 1


@pytest.mark.parametrize("distance", [2, 6, 10])
def test_ranged_hit_probability_matches_the_model(distance):
    """DEC: 'it hits with probability hit_p0 * exp(-d / hit_scale) (0.9, 6.0): a hit takes the target out.'"""
    hits = 0
    n = 1500
    for seed in range(n):
        y = Yard(seed=seed)
        y.put(0, RANGED, 0, 0)
        y.put(1, FOOT, distance, 0)
        s.ranged_attack(y.state, y.params, s.POLICY_GREEDY, 0, y.streams)
        hits += y.view.pos[1, FOOT] < 0
    p = 0.9 * math.exp(-distance / 6.0)
    assert binomtest(hits, n, p).pvalue > 0.001


def test_out_of_range_no_throw_and_wizard_immunity():
    """DEC: 'within max_range (10) paces'; 'wizard_war (the ranged gnome is the wizard, immune to ranged
    attacks'."""
    y = Yard()
    y.put(0, RANGED, 0, 0)
    y.put(1, FOOT, 9, 9)                      # 12.7 paces away
    s.ranged_attack(y.state, y.params, s.POLICY_GREEDY, 0, y.streams)
    assert y.state[s.S_THROWS] == 0
    w = Yard(scenario="wizard_war")
    w.put(0, RANGED, 0, 0)
    w.put(1, RANGED, 1, 1)
    for _ in range(20):
        s.ranged_attack(w.state, w.params, s.POLICY_GREEDY, 0, w.streams)
    assert w.state[s.S_THROWS] == 0 and w.view.pos[1, RANGED] >= 0


def test_last_man_standing_win_and_draw():
    """RB: 'Play continues until only one player has gnomes left in the game.'"""
    y = Yard()
    y.put(0, FOOT, 3, 3)
    assert s.check_win(y.state, y.params, 0) and y.state[s.S_WINNER] == 0
    z = Yard()
    assert s.check_win(z.state, z.params, 0) and z.state[s.S_WINNER] == s.DRAW


def test_wizard_war_win_and_returns_that_do_not_move():
    """RB: 'The player who takes out the opposing player's wizard wins. Gnomes that have been taken out of
    action (other than the wizard) are moved back to that player's edge ... Gnomes brought back into play in
    this way may not move on the turn they come back into play.'"""
    y = Yard(scenario="wizard_war")
    y.put(0, RANGED, 3, 3)
    y.put(1, RANGED, 6, 6)
    y.put(1, FOOT, 5, 5)
    s.take_out(y.state, y.params, 1, FOOT, s.MELEE)
    assert not s.check_win(y.state, y.params, 0)
    s.movement(y.state, y.params, s.POLICY_GREEDY, 1, y.streams, y.cells)
    assert y.view.pos[1, FOOT] == y.cell(9, 5)         # back on its edge row, in its column
    assert y.state[s.S_BACK_NOW + s.MAX_GNOMES + FOOT] == 1
    s.take_out(y.state, y.params, 1, RANGED, s.MELEE)
    assert s.check_win(y.state, y.params, 0) and y.state[s.S_WINNER] == 0
    s.movement(y.state, y.params, s.POLICY_GREEDY, 1, y.streams, y.cells)
    assert y.view.pos[1, RANGED] < 0                   # the wizard never comes back


def test_capture_the_flag_transfer_drop_pickup_and_win():
    """RB: 'If a gnome with a flag is in close combat and loses, that flag is transferred to one of the winning
    gnomes in that combat. If a gnome with a flag is taken out of action through ranged combat the flag is
    dropped on the playing area wherever the gnome was. ... The player who is able to acquire both flags and move
    them to his edge of the playing area wins.'"""
    y = Yard(scenario="capture_the_flag")
    y.put(1, FOOT, 5, 5)
    y.view.flag[1, FOOT] = 1
    for seed in range(50):
        t = Yard(scenario="capture_the_flag", seed=seed)
        t.put(0, FOOT, 4, 4)
        t.put(1, HEAVY, 5, 4)
        t.view.flag[0, FOOT] = 0
        s.melee(t.state, t.params, t.streams)
        if t.view.pos[0, FOOT] < 0:
            assert t.view.flag[1, HEAVY] == 0 and t.view.flag_at[0] == -1     # handed to the winner
            break
    else:
        pytest.fail("the heavy cavalry never won")
    s.take_out(y.state, y.params, 1, FOOT, s.THROWN)
    assert y.view.flag_at[1] == y.cell(5, 5) and y.view.flag[1, FOOT] == -1    # dropped where it stood
    y.put(0, 1, 5, 5)                                                            # a gnome walks onto it
    s.pick_up_flags(y.state, y.params, 0)
    assert y.view.flag[0, 1] == 1 and y.view.flag_at[1] == -1
    y2 = Yard(scenario="capture_the_flag")
    y2.put(0, FOOT, 0, 3)
    y2.put(0, 1, 0, 4)
    y2.view.flag[0, FOOT] = 0
    y2.view.flag[0, 1] = 1
    y2.put(1, FOOT, 9, 9)
    assert s.check_win(y2.state, y2.params, 0) and y2.state[s.S_WINNER] == 0
    y3 = Yard(scenario="capture_the_flag")
    y3.put(0, FOOT, 0, 3)
    y3.put(0, 1, 1, 4)                     # one carrier not on the edge row yet
    y3.view.flag[0, FOOT] = 0
    y3.view.flag[0, 1] = 1
    y3.put(1, FOOT, 9, 9)
    assert not s.check_win(y3.state, y3.params, 0)


@pytest.mark.parametrize("scenario", s.SCENARIOS)
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_games_end_or_time_out_and_gnomes_never_share_a_cell(scenario, policy):
    """Every game ends or times out (marked); one gnome per cell at every step."""
    values = {**s.GAME.defaults(), "scenario": scenario, "max_turns": 120}
    params = s.params_array(values)
    policies = np.array([s.POLICY_RANDOM if policy == "random" else s.POLICY_GREEDY] * 2)
    state, streams = s.new_state(), np.zeros(rng.N_STREAMS, np.uint64)
    cells = np.zeros(2 * s.MAX_CELLS, np.int64)
    view = s.View(state)
    for game in range(20):
        rng.seed_streams(streams, 9, game)
        s.setup(state, params, streams)
        player, over = state[s.S_FIRST], False
        while not over and state[s.S_TURN] < 120:
            over = s.play_turn(state, params, policies, player, streams, cells)
            state[s.S_TURN] += 1
            player = 1 - player
            placed = view.pos[view.pos >= 0]
            assert len(set(placed.tolist())) == len(placed)
            assert (view.occ != 0).sum() == len(placed)
    run = cfg.resolve("skirmish", sets=[("scenario", scenario)], policies=[("all", policy)], games=300)
    rows = engine.run(run.module, run.params_array(), run.policies_array(), 4, 300)
    decided = rows[:, engine.O_WIN:engine.O_WIN + 2].sum(axis=1) + rows[:, engine.extra_offset(s.MAX_SEATS)]
    assert np.all((decided == 1) ^ (rows[:, engine.O_TIMEOUT] == 1))


@pytest.mark.parametrize("yard, message", [
    ("....\n..x.\n....\n....", "yard 'custom' has 'x'; allowed: = . * ~ W"),
    ("....\n...\n....\n....", "yard 'custom' has rows of different lengths"),
    ("....\n....", "yard 'custom' is 4x2; allowed: 4x4 to 32x32"),
    ("....\n....\n....\n....", "the army of 5 gnomes does not fit"),
    ("WWWWWWWWWW\n..........\n..........\n..........", "deep water at start cell (row 0, column 2)"),
    ("backyard", "yard 'backyard' is not shipped; allowed: default, lawn, hedges, stream"),
])
def test_bad_yards_are_rejected_with_a_clear_message(yard, message):
    """Issue: 'A map with an unknown letter, ragged rows, no room for the armies, or deep water where gnomes
    must start is rejected with a clear message.'"""
    with pytest.raises(cfg.ConfigError, match=re.escape(message)):
        cfg.resolve("skirmish", sets=[("yard", yard)])


def test_own_yard_in_a_config_runs_without_code_change(cli, tmp_path):
    config = tmp_path / "mine.toml"
    config.write_text('game = "skirmish"\n[params]\nscenario = "capture_the_flag"\nyard = """\n'
                      + "\n".join(["=" * 10, "." * 10, "..~~~~~~..", ".*..WW..*.", "..~~~~~~..", "." * 10,
                                   "=" * 10]) + '\n"""\n')
    out = tmp_path / "mine.parquet"
    done = cli("run", "skirmish", "--config", config, "--games", "300", "--policy", "greedy", "--out", out,
               "--quiet")
    assert done.returncode == 0, done.stderr
    import pyarrow.parquet as pq
    table = pq.read_table(out)
    assert table.num_rows == 300 and "=========" in table.schema.metadata[b"simcore.config"].decode()


def test_shipped_yards(cli):
    """Issue: 'at least four shipped maps (open lawn, the default with path, rough and pond, a garden with hedges
    of rough ground, a yard split by a stream with one path across)'."""
    shipped = s.shipped_yards()
    assert {"default", "lawn", "hedges", "stream"} <= set(shipped)
    for name in shipped:
        cfg.resolve("skirmish", sets=[("yard", name)])            # each is a valid yard for the default army
    done = cli("yards")
    assert done.returncode == 0 and all(f"{name}: " in done.stdout for name in shipped)
