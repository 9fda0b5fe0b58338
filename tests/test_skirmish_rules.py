"""Garden-gnome skirmish rules in constructed positions; every test quotes what it checks.

RB = the rulebook, DEC = the rules decisions for the skirmish (in our words in docs/skirmish.md, Decisions),
SPEC = docs/skirmish.md.
"""

import math
import re

import numpy as np
import pytest
from scipy.stats import binomtest

from simcore import engine
from simcore.engine import rng
from simcore.games import skirmish as s
from simcore.io import config as cfg
from simcore.studies import sweep

LAWN = "\n".join(["." * 12] * 10)


def decide(state, params, policy, seat, streams):
    """The action of ``policy`` ("random" or "greedy") at the pending decision (SPEC: Policies): random draws
    uniformly over the legal actions, greedy is the game's own heuristic."""
    if policy == "random":
        actions = np.zeros(s.MAX_ACTIONS, np.int64)
        n = s.legal_actions(state, params, actions)
        return actions[rng.randint(streams, rng.POLICY + seat, n)]
    return s.greedy_action(state, params, seat, streams, np.zeros(s.WORK_SIZE, np.int64))


class Yard:
    """An empty yard (no gnome placed) with the real parameter array; tests place gnomes themselves."""

    def __init__(self, yard=LAWN, seed=1, **params):
        values = {**s.GAME.defaults(), "yard": yard, **{k.replace("__", "."): v for k, v in params.items()}}
        s.check(values)
        self.params = s.params_array(values)
        self.width = int(self.params[s.P_WIDTH])
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

    def turn_of(self, player):
        """Make it ``player``'s turn (SPEC: turns alternate from the first player)."""
        self.state[s.S_FIRST] = (player - self.state[s.S_TURN]) % 2

    def ranged_attack(self, policy, player):
        """Step 1 of ``player``'s turn (SPEC: A turn): the throw, if it has a target, at ``policy``'s pick."""
        self.turn_of(player)
        if s.open_attack(self.state, self.params, player):
            action = decide(self.state, self.params, policy, player, self.streams)
            s.throw(self.state, self.params, player, action - s.A_THROW, self.streams)

    def movement(self, policy, player):
        """Step 2 of ``player``'s turn (SPEC: A turn): returns, then each gnome's move at ``policy``'s pick."""
        self.turn_of(player)
        pending = s.open_movement(self.state, self.params, player)
        while pending:
            action = decide(self.state, self.params, policy, player, self.streams)
            pending = s.move_on(self.state, self.params, player, action)


# gnome numbers with the default army: 0, 1 foot, 2 fast cavalry, 3 heavy cavalry, 4 ranged
FOOT, FAST, HEAVY, RANGED = 0, 2, 3, 4


@pytest.mark.parametrize("metric", s.METRICS)
@pytest.mark.parametrize("letter, paces", [("=", 4), (".", 3), ("*", 2), ("~", 2)])
def test_movement_allowance_on_each_terrain(letter, paces, metric):
    """RB: '4 Deck, patio, sidewalk, or garden path / 3 Open grassy area, yard / 2 Difficult ground, rocks,
    water, dense plants'. DEC (Moving, move_metric): a free cell whose distance is at most its allowance,
    'euclid' (the straight-line distance between cell centres) or 'chebyshev' (a diagonal step counts 1)."""
    y = Yard("\n".join([letter * 13] * 13), move_metric=metric)
    y.put(0, FOOT, 6, 6)
    cells = y.reachable(0, FOOT)
    if metric == "euclid":
        expected = {(r, c) for r in range(13) for c in range(13) if 0 < math.hypot(r - 6, c - 6) <= paces}
    else:
        expected = {(r, c) for r in range(13) for c in range(13) if 0 < max(abs(r - 6), abs(c - 6)) <= paces}
    assert cells == expected


@pytest.mark.parametrize("metric, reached, not_reached", [
    ("euclid", {(3, 0), (0, 3), (2, 2)}, {(3, 3), (1, 3), (3, 1)}),
    ("chebyshev", {(3, 0), (2, 2), (3, 3), (1, 3)}, {(4, 4), (0, 4)}),
])
def test_a_diagonal_move_counts_its_real_length(metric, reached, not_reached):
    """Issue 10 / DEC (move_metric): with euclid a gnome paces off the real distance, so 3 paces of grass reach
    (2, 2) (2.83 paces) but not (3, 3) (4.24) or (1, 3) (3.16); with chebyshev a diagonal step counts one pace
    and (3, 3) is reached, 1.41x the paces."""
    y = Yard(move_metric=metric)
    y.put(0, FOOT, 0, 0)
    cells = y.reachable(0, FOOT)
    assert reached <= cells and not (not_reached & cells)


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
        y = Yard(pond, seed=seed)
        y.put(0, FOOT, 4, 4)
        y.put(1, FOOT, 9, 11)
        y.movement("random", 0)
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
        y.movement("greedy", 0)
        assert y.view.pos[0, FOOT] >= 0


# Edge rows with deep water beside the start block (columns 3..7 of 12); the middle of a row is columns 5, 6.
DEEP_EDGES = "\n".join([".WW.....WW.W"] + ["." * 12] * 8 + [".WW.....WW.W"])


def test_a_returning_gnome_is_never_placed_on_deep_water():
    """DEC (Deep water and returns, revised): 'a gnome that returns is placed on a free cell of its owner's edge
    row that is not deep water (the first such cell from the edge's middle outward); it never drowns by being
    placed.'"""
    y = Yard(DEEP_EDGES, scenario="wizard_war")
    y.put(0, RANGED, 5, 5)
    for k in range(5):                        # enemies fill the edge's dry middle, columns 3..7
        y.put(1, k, 0, 3 + k)
    y.movement("greedy", 0)
    # outward from the middle: 8 (deep), 2 (deep), 9 (deep), 1 (deep), 10 (dry), then 0 (dry)
    assert y.view.pos[0, 0] == y.cell(0, 10) and y.view.pos[0, 1] == y.cell(0, 0)
    assert y.view.pos[0, 2] < 0 and y.view.pos[0, 3] < 0       # no dry free cell left: they stay out
    assert y.view.lost[0, :, s.DROWNED].sum() == 0
    z = Yard(DEEP_EDGES, scenario="wizard_war")
    z.put(0, RANGED, 5, 5)
    z.movement("greedy", 0)
    assert [z.view.pos[0, k] for k in range(4)] == [z.cell(0, c) for c in (5, 6, 4, 7)]


POND = "\n".join(["." * 12] * 3 + ["...WWW......"] * 3 + ["." * 12] * 4)      # deep water rows 3..5, columns 3..5


def test_a_flag_dropped_on_deep_water_washes_up_on_the_nearest_dry_cell():
    """DEC (Deep water and returns, revised): 'A flag dropped on deep water (its carrier drowned or was hit there)
    washes up on the nearest cell that is not deep water (straight-line distance, ties: lower row, then lower
    column), free or not; if a gnome without a flag stands there it picks it up at once.'"""
    y = Yard(POND, scenario="capture_the_flag")
    y.view.flag[0, 0] = -1
    y.view.flag[1, 0] = -1
    y.put(1, 1, 4, 4)                          # the pond's centre: (2, 4), (4, 2), (4, 6), (6, 4) are 2 away
    y.view.flag[1, 1] = 1
    s.take_out(y.state, y.params, 1, 1, s.DROWNED)
    assert y.view.flag_at[1] == y.cell(2, 4) and y.view.flag[1, 1] == -1
    y.put(0, 1, 2, 3)                          # from the corner (3, 3), (2, 3) and (3, 2) are 1 away
    y.put(1, 2, 3, 3)
    y.view.flag[1, 2] = 0
    s.take_out(y.state, y.params, 1, 2, s.DROWNED)
    assert y.view.flag[0, 1] == 0 and y.view.flag_at[0] == -1   # picked up at once by the gnome standing there
    y.put(1, 3, 5, 5)                          # from (5, 5): (5, 6) and (6, 5) are 1 away, row 5 is lower
    y.put(0, 3, 5, 6)
    y.view.flag[0, 1] = -1
    y.view.flag[0, 3] = 0                      # already carries a flag: the other one lies at its feet
    y.view.flag_at[1] = -1
    y.view.flag[1, 3] = 1
    s.take_out(y.state, y.params, 1, 3, s.DROWNED)
    assert y.view.flag_at[1] == y.cell(5, 6) and y.view.flag[0, 3] == 0


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
        y.ranged_attack("greedy", 0)
        hits += y.view.pos[1, FOOT] < 0
    p = 0.9 * math.exp(-distance / 6.0)
    assert binomtest(hits, n, p).pvalue > 0.001


def test_out_of_range_no_throw_and_wizard_immunity():
    """DEC: 'within max_range (10) paces'; 'wizard_war (the ranged gnome is the wizard, immune to ranged
    attacks'."""
    y = Yard()
    y.put(0, RANGED, 0, 0)
    y.put(1, FOOT, 9, 9)                      # 12.7 paces away
    y.ranged_attack("greedy", 0)
    assert y.state[s.S_THROWS] == 0
    w = Yard(scenario="wizard_war")
    w.put(0, RANGED, 0, 0)
    w.put(1, RANGED, 1, 1)
    for _ in range(20):
        w.ranged_attack("greedy", 0)
    assert w.state[s.S_THROWS] == 0 and w.view.pos[1, RANGED] >= 0


# The thrower's line from (0, 0) to (3, 6): (0, 0) (0, 1) (1, 2) (1, 3) (2, 4) (2, 5) (3, 6).
SIGHT_LINE = [(0, 1), (1, 2), (1, 3), (2, 4), (2, 5)]


@pytest.mark.parametrize("player, cell", list(zip((1, 1, 0, 1, 0), SIGHT_LINE, strict=True)))
def test_a_gnome_on_the_line_blocks_a_throw(player, cell):
    """RB: a hit counts only 'without the ball bouncing off of something else first'. DEC (line_of_sight, default
    true): 'a target is eligible only when no other gnome, of either side, stands on a cell of the straight line
    between thrower and target'."""
    r, c = cell
    for sight in (True, False):
        y = Yard(line_of_sight=sight)
        y.put(0, RANGED, 0, 0)
        y.put(1, HEAVY, 3, 6)
        y.put(player, 1, r, c)
        assert s.can_target(y.state, y.params, y.cell(0, 0), 1, HEAVY) == (not sight)
        if player == 0:                        # an own gnome in the way and no other target: no throw at all
            y.ranged_attack("random", 0)
            assert y.state[s.S_THROWS] == (0 if sight else 1)


def test_gnomes_beside_the_line_and_the_end_cells_do_not_block():
    """DEC (line_of_sight): only gnomes on the cells of the line *between* thrower and target block; a target
    next to the thrower is always in sight. (1, 1), (2, 3) and (3, 5) lie on the line from the target back to
    the thrower, not on the thrower's line, so they do not block (SPEC: the line is drawn from the thrower)."""
    y = Yard()
    y.put(0, RANGED, 0, 0)
    y.put(1, HEAVY, 3, 6)
    for k, (r, c) in enumerate([(0, 2), (1, 1), (2, 3), (3, 5)]):
        y.put(k % 2, k // 2, r, c)
    assert s.can_target(y.state, y.params, y.cell(0, 0), 1, HEAVY)
    z = Yard()
    z.put(0, RANGED, 4, 4)
    z.put(1, FOOT, 5, 5)
    z.put(1, 1, 3, 3)
    assert s.can_target(z.state, z.params, z.cell(4, 4), 1, FOOT)


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
    y.put(1, FOOT, 5, 9)
    s.take_out(y.state, y.params, 1, FOOT, s.MELEE)
    assert not s.check_win(y.state, y.params, 0)
    y.movement("greedy", 1)
    # back on its edge row, on the free cell nearest the middle (columns 5 and 6 of 12: the lower), not in the
    # column 9 where it fell
    assert y.view.pos[1, FOOT] == y.cell(9, 5)
    assert y.state[s.S_BACK_NOW + s.MAX_GNOMES + FOOT] == 1
    s.take_out(y.state, y.params, 1, RANGED, s.MELEE)
    assert s.check_win(y.state, y.params, 0) and y.state[s.S_WINNER] == 0
    y.movement("greedy", 1)
    assert y.view.pos[1, RANGED] < 0                   # the wizard never comes back


def test_a_drowned_wizard_loses_the_wizard_war():
    """RB: 'If a gnome is placed in water that is higher than the gnome's nose, the gnome drowns and is out of
    action.' DEC (Wizard drowned): 'a wizard that drowns (by its own move) is taken out like any other gnome: its
    side loses, as if the enemy had taken it out'."""
    lake = "\n".join(["." * 12] + ["WWWWWWWWWWWW"] * 3 + ["WWWWW.WWWWWW"] + ["WWWWWWWWWWWW"] * 4 + ["." * 12])
    for seed in range(50):
        y = Yard(lake, seed=seed, scenario="wizard_war")
        y.put(0, RANGED, 4, 5)                 # on a dry cell in a lake: almost every move drowns it
        y.put(1, RANGED, 9, 0)
        y.movement("random", 0)
        if y.view.pos[0, RANGED] < 0:
            assert y.view.lost[0, s.RANGED, s.DROWNED] == 1
            assert s.check_win(y.state, y.params, 0) and y.state[s.S_WINNER] == 1
            break
    else:
        pytest.fail("the wizard never drowned")


@pytest.mark.parametrize("army", [{}, {"army.foot": 3, "army.fast": 0}, {"army.foot": 4, "army.heavy": 0}])
def test_each_flag_starts_with_the_first_gnome_of_its_army(army):
    """DEC (Flag carrier at the start): 'each side's flag starts with the gnome of its army listed first (foot if
    any); the policies do not choose it.'"""
    values = {**s.GAME.defaults(), "scenario": "capture_the_flag", **army}
    params = s.params_array(values)
    state, streams = s.new_state(), np.zeros(rng.N_STREAMS, np.uint64)
    view = s.View(state)
    rng.seed_streams(streams, 1, 0)
    s.setup(state, params, streams)
    for p in range(2):
        carriers = [k for k in range(s.MAX_GNOMES) if view.flag[p, k] >= 0]
        assert carriers == [0] and view.flag[p, 0] == p and s.gnome_type(params, 0) == s.FOOT


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
    """Every game ends or times out (marked); one gnome per cell at every step; no gnome stands on deep water
    (DEC: a move there drowns, a return is never placed there); every flag is carried by one gnome in action or
    lies on a cell that is not deep water (DEC: a flag dropped on deep water washes up)."""
    values = {**s.GAME.defaults(), "scenario": scenario, "max_turns": 120}
    params = s.params_array(values)
    state, streams = s.new_state(), np.zeros(rng.N_STREAMS, np.uint64)
    view = s.View(state)
    for game in range(20):
        rng.seed_streams(streams, 9, game)
        s.begin(state, params, streams)
        while (seat := s.current_player(state, params)) >= 0:      # checked after every decision
            s.apply_action(state, params, decide(state, params, policy, seat, streams), streams)
            placed = view.pos[view.pos >= 0]
            assert len(set(placed.tolist())) == len(placed)
            assert (view.occ != 0).sum() == len(placed)
            assert not np.any(params[s.P_YARD + placed] == s.DEEP)      # nobody stands in deep water
            if scenario == "capture_the_flag":                          # no flag is ever lost
                for f in range(2):
                    carried = int(((view.flag == f) & (view.pos >= 0)).sum())
                    lying = view.flag_at[f]
                    assert carried + (lying >= 0) == 1
                    assert lying < 0 or params[s.P_YARD + lying] != s.DEEP
        assert state[s.S_WINNER] != s.NO_WINNER or state[s.S_TURN] == 120
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


@pytest.mark.parametrize("army, message", [
    ({"army.foot": 1}, "the army (1 foot, 1 fast, 1 heavy, 1 ranged) has 4 gnomes per player; allowed: at least 5"),
    ({"army.foot": 0, "army.ranged": 0}, "has 2 gnomes per player; allowed: at least 5"),
])
def test_fewer_than_five_gnomes_per_side_are_refused(army, message):
    """RB: 'WHAT YOU NEED TO PLAY: 5 or more gnomes per player'. DEC (Armies): 'at least 5 gnomes per player
    (rulebook: "5 or more"; fewer is refused with a clear error)'."""
    with pytest.raises(cfg.ConfigError, match=re.escape(message)):
        cfg.resolve("skirmish", sets=list(army.items()))
    cfg.resolve("skirmish", sets=[("army.foot", 3), ("army.fast", 0)])       # 5 gnomes are enough


def test_shipped_army_sweep_loads():
    """Every variant of configs/skirmish-armies.toml is a legal army (at least 5 gnomes per side)."""
    variants = sweep.load("configs/skirmish-armies.toml").variants
    assert len(variants) == 22
    for v in variants:
        assert sum(v.config.params[f"army.{t}"] for t in s.TYPES) >= 5


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
