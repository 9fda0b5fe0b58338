"""The garden-gnome skirmish as a decision process (docs/skirmish.md, "Decisions, information and resampling"):
a world's future chance comes from the streams handed in, turns without a decision play through, and the state
fits its dtype. What every game must do through the interface is checked by tests/test_conformance.py."""

import numpy as np
import pytest

from simcore import engine
from simcore.engine import binding, rng
from simcore.games import skirmish as s
from simcore.io import config as cfg
from tests.interface_driver import play

SMALL = "\n".join(["...=....", ".*.=..~.", "...=.WW.", "..~=....", ".**=....", "...=...."])


def _params(**values):
    return cfg.resolve("skirmish", sets=list(values.items())).params_array()


def _streams(seed, index=0):
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    rng.seed_streams(streams, seed, index)
    return streams


def _decisions(params, kinds, games, seed=5, every=1):
    """(state copy, seat, legal actions) at every ``every``-th decision of ``games`` games."""
    seen = []
    count = [0]

    def keep(state, seat, actions):
        if count[0] % every == 0:
            seen.append((state.copy(), seat, actions))
        count[0] += 1

    for game in range(games):
        play(s, params, kinds, seed, game, on_decision=keep)
    return seen


def _play_out(state, params, streams):
    """Random play to the end (or to max_turns), as the agents' rollouts do."""
    actions = np.zeros(s.MAX_ACTIONS, np.int64)
    while (seat := s.current_player(state, params)) >= 0:
        n = s.legal_actions(state, params, actions)
        s.apply_action(state, params, actions[rng.randint(streams, rng.POLICY + seat, n)], streams)


def _rollout_row(state, params, seat, streams):
    """The row of a world resampled for ``seat`` with ``streams`` and played out with them."""
    world, streams = state.copy(), streams.copy()
    binding.bind(s).interface["resample"](world, params, seat, streams)
    _play_out(world, params, streams)
    row = np.zeros(engine.width(s), np.int64)
    s.write_row(world, params, row)
    return row


def _with_new(streams, stream, seed):
    """``streams`` with one stream replaced by that of another family."""
    other = streams.copy()
    other[stream] = _streams(seed)[stream]
    return other


@pytest.mark.parametrize("scenario", ["last_man_standing", "wizard_war"])
def test_a_worlds_future_chance_comes_from_the_streams_handed_in(scenario):
    """docs/skirmish.md, Resampling: nothing is hidden, what differs between imagined worlds is the future
    chance, drawn from the streams the agent hands in, never stored in the state (no leak of the game's own
    future melee cards or hits). The same streams replay the same rollout; streams that differ only in DECK
    (the melee decks) or only in DICE (the hits) give other rollouts from most decision points (not from
    those whose rollouts end before any further fight or throw)."""
    params = _params(scenario=scenario)
    decisions = _decisions(params, ["greedy", "random"], 40, every=7)
    assert len(decisions) > 300
    other_deck = other_dice = 0
    for k, (state, seat, _) in enumerate(decisions):
        streams = _streams(900, k)
        row = _rollout_row(state, params, seat, streams)
        assert np.array_equal(_rollout_row(state, params, seat, streams), row)
        deck = _rollout_row(state, params, seat, _with_new(streams, rng.DECK, 1000 + k))
        dice = _rollout_row(state, params, seat, _with_new(streams, rng.DICE, 2000 + k))
        other_deck += not np.array_equal(deck, row)
        other_dice += not np.array_equal(dice, row)
    assert other_deck > 0.5 * len(decisions)
    assert other_dice > 0.5 * len(decisions)


def _melee_losses_at_turn_end(state, params, seat, streams):
    """A world resampled for ``seat``, played at random to the end of the current turn (its melee included);
    the gnomes each side lost in melee."""
    world, streams = state.copy(), streams.copy()
    binding.bind(s).interface["resample"](world, params, seat, streams)
    actions = np.zeros(s.MAX_ACTIONS, np.int64)
    turn = world[s.S_TURN]
    while (seat := s.current_player(world, params)) >= 0 and world[s.S_TURN] == turn:
        n = s.legal_actions(world, params, actions)
        s.apply_action(world, params, actions[rng.randint(streams, rng.POLICY + seat, n)], streams)
    return tuple(s.View(world).lost[:, :, s.MELEE].sum(axis=1))


def test_the_next_fight_is_dealt_from_the_streams_handed_in():
    """docs/skirmish.md, What a seat knows: each side's melee deck is shuffled afresh for every fight, so no
    card of a coming fight is in the state. Two worlds whose streams differ only in DECK play the same moves
    and throws up to the end of the turn; in the turn's melee they are dealt different cards, and where a fight
    takes anybody out, often with another result (a deck kept in the state would give the same one)."""
    params = _params()
    fights = differ = 0
    for k, (state, seat, _) in enumerate(_decisions(params, ["greedy", "random"], 40, every=2)):
        streams = _streams(900, k)
        before = tuple(s.View(state).lost[:, :, s.MELEE].sum(axis=1))
        one = _melee_losses_at_turn_end(state, params, seat, streams)
        other = _melee_losses_at_turn_end(state, params, seat, _with_new(streams, rng.DECK, 1000 + k))
        fights += one != before or other != before
        differ += one != other
    assert fights > 150
    assert differ > 0.3 * fights


def test_a_turn_without_a_decision_is_played_through():
    """docs/skirmish.md, Decisions: in capture_the_flag a player whose gnomes are all out of action at the start
    of its turn has no decision (no thrower; they come back and may not move): the rules play that turn through
    inside the opponent's last decision, and the opponent decides next."""
    params = _params(scenario="capture_the_flag", yard=SMALL)
    n = params[s.P_GNOMES]
    state = s.new_state()
    streams = _streams(3)
    s.begin(state, params, streams)
    mover = s.current_player(state, params)
    other = 1 - mover
    for k in range(n):                                   # the opponent's army is out before the first turn
        s.take_out(state, params, other, k, s.MELEE)
    s.open_turn(state, params, streams)                  # the first turn again, now without a target
    for _ in range(n):                                   # every gnome of the mover stays
        assert state[s.S_PHASE] == s.PH_MOVE and state[s.S_TURN] == 0
        s.apply_action(state, params, s.A_STAY, streams)
    edge = 0 if other == 0 else params[s.P_HEIGHT] - 1
    assert state[s.S_TURN] == 2 and s.current_player(state, params) == mover
    for k in range(n):                                   # back on its edge row, and they did not move
        assert state[s.S_POS + other * s.MAX_GNOMES + k] // params[s.P_WIDTH] == edge
        assert state[s.S_BACK_NOW + other * s.MAX_GNOMES + k] == 1


def _final_state(params, kinds, seed, game):
    """The state at the end of game ``game``, played through the interface as the driver plays it."""
    state = s.new_state()
    streams = _streams(seed, game)
    actions = np.zeros(s.MAX_ACTIONS, np.int64)
    work = np.zeros(s.WORK_SIZE, np.int64)
    s.begin(state, params, streams)
    while (seat := s.current_player(state, params)) >= 0:
        if kinds[seat] == "random":
            action = actions[rng.randint(streams, rng.POLICY + seat, s.legal_actions(state, params, actions))]
        else:
            action = s.greedy_action(state, params, seat, streams, work)
        s.apply_action(state, params, action, streams)
    return state


@pytest.mark.parametrize("sets", [{"scenario": "wizard_war"}, {"scenario": "wizard_war", "max_turns": 6}])
def test_returns_match_the_result_row(sets):
    """docs/skirmish.md, Decisions (Returns) and A turn, step 4: 1 to the winner, 0 to the loser; a draw (both
    wizards fall in one fight: no winner) and a timeout return 0 to both, as the row's win columns say."""
    kinds = ["greedy", "random"]
    run = cfg.resolve("skirmish", sets=list(sets.items()), policies=list(enumerate(kinds)))
    params = run.params_array()
    expected = engine.run(run.module, params, run.policies_array(), 8, 3000)
    draw = engine.extra_offset(s.MAX_SEATS)
    games = sorted(set(np.flatnonzero(expected[:, draw])[:20].tolist()) | set(range(40)))
    out = np.zeros(s.MAX_SEATS)
    seen = set()
    for game in games:
        state = _final_state(params, kinds, 8, game)
        s.returns(state, params, out)
        row = expected[game]
        assert np.array_equal(out, row[engine.O_WIN:engine.O_WIN + 2])
        assert out.sum() == (0 if row[draw] or row[engine.O_TIMEOUT] else 1)
        seen.add("draw" if row[draw] else "timeout" if row[engine.O_TIMEOUT] else "win")
    assert seen == ({"draw", "win"} if "max_turns" not in sets else {"timeout", "win"})


def test_each_seat_sees_the_whole_yard():
    """docs/skirmish.md, What a seat knows: everything. Moving an enemy gnome changes what both seats see (and
    the state's picture); each seat's string names the seat."""
    params = _params()
    moved = 0
    for state, seat, _ in _decisions(params, ["random", "random"], 2, every=5):
        enemy = 1 - seat
        world = state.copy()
        cells = world[s.S_POS + enemy * s.MAX_GNOMES:s.S_POS + (enemy + 1) * s.MAX_GNOMES]
        free = np.flatnonzero(world[s.S_OCC:s.S_OCC + params[s.P_WIDTH] * params[s.P_HEIGHT]] == 0)
        k = int(np.flatnonzero(cells >= 0)[0])
        world[s.S_OCC + world[s.S_POS + enemy * s.MAX_GNOMES + k]] = 0
        s.place(world, enemy, k, int(free[0]))
        for watcher in range(2):
            assert s.information_state_string(world, params, watcher) != \
                s.information_state_string(state, params, watcher)
        assert s.state_to_string(world, params) != s.state_to_string(state, params)
        moved += 1
    assert moved > 20
    state = _decisions(params, ["random", "random"], 1)[0][0]
    assert s.information_state_string(state, params, 0) != s.information_state_string(state, params, 1)


def test_mc_plays_through_the_agents_table():
    """The shared agents run the skirmish: a flat Monte Carlo seat plays whole games against greedy, the same
    games for the same seed."""
    run = cfg.resolve("skirmish", sets=[("scenario", "wizard_war")], policies=[("all", "greedy"),
                                                                                 ("1", "mc:rollouts=2")])
    first = engine.run(run.module, run.params_array(), run.policies_array(), 2, 6)
    again = engine.run(run.module, run.params_array(), run.policies_array(), 2, 6)
    assert np.array_equal(first, again)
    assert (first[:, engine.O_WIN:engine.O_WIN + 2].sum(axis=1) + first[:, engine.extra_offset(s.MAX_SEATS)]
            == 1).all()


# --- the state's dtype ------------------------------------------------------------------------------------------

MOAT = "\n".join(["." * 16] * 2 + ["W" * 16] * 4 + ["." * 16] * 2)   # too wide to cross: nobody meets anybody
SURE_HITS = [("scenario", "wizard_war"), ("yard", MOAT), ("max_range", 64), ("hit_p0", 1.0), ("hit_scale", 1e9)]
COLUMN = {name: offset for name, _, offset in engine.extra_columns(s, 2)}
EXTREMES = {   # the largest army (15), yard (32 x 32, cells up to 1,023) and range the parameters allow
    "lms-32x32": ({"yard": "\n".join(["." * 32] * 14 + ["~" * 16 + "W" * 16] * 4 + ["*" * 32] * 14),
                   "army.foot": 12, "max_range": 64, "hit_p0": 1.0}, ["random", "greedy"], 4),
    "ww-hedges": ({"scenario": "wizard_war", "yard": "hedges", "army.foot": 12, "max_range": 64},
                  ["greedy", "greedy"], 30),
    "ctf-chebyshev": ({"scenario": "capture_the_flag", "yard": "stream", "army.foot": 12, "max_turns": 200,
                       "move_metric": "chebyshev", "line_of_sight": False, "ace_high": True}, ["greedy", "random"],
                      6),
    "ctf-small": ({"scenario": "capture_the_flag", "yard": SMALL, "max_turns": 300}, ["random", "random"], 20),
}


class Fits:
    """After every decision, every field of the state lies within the bounds the module docstring gives it
    (simcore/games/skirmish/, the state layout), and the counters only grow and agree with each other: a
    value cut to fewer bits would leave its bounds or make a counter fall."""

    def __init__(self, params):
        self.params = params
        self.last = None

    def __call__(self, state, seat, actions=None):
        params, v = self.params, s.View(state)
        n, cells = int(params[s.P_GNOMES]), int(params[s.P_WIDTH] * params[s.P_HEIGHT])
        scenario = int(params[s.P_SCENARIO])
        pos, flag, flag_at = v.pos.astype(np.int64), v.flag.astype(np.int64), v.flag_at.astype(np.int64)
        assert ((pos[:, :n] >= -1) & (pos[:, :n] < cells)).all() and (pos[:, n:] == -1).all()
        occ = np.zeros(s.MAX_CELLS, np.int64)          # each gnome in action marks its own cell, nothing else
        for p, k in zip(*np.nonzero(pos >= 0), strict=True):
            occ[pos[p, k]] = p * s.MAX_GNOMES + k + 1
        assert np.array_equal(v.occ, occ)
        assert np.isin(flag, (-1, 0, 1)).all() and (flag[pos < 0] == -1).all()
        assert ((flag_at >= -1) & (flag_at < cells)).all()
        for f in range(2):                             # a flag is carried or lies, once (capture_the_flag only)
            assert (flag == f).sum() + (flag_at[f] >= 0) == (scenario == s.CAPTURE_THE_FLAG)
        assert np.isin(state[s.S_BACK_NOW:s.S_FLAG], (0, 1)).all()
        assert np.isin(state[s.S_WIZARD_OUT:s.S_WIZARD_OUT + 2], (0, 1)).all() and v.first in (0, 1)
        assert v.winner == s.NO_WINNER and 0 <= v.turn < params[s.P_MAX_TURNS]
        if v.phase == s.PH_THROW:
            assert 0 < v.targets < 1 << n
        else:
            assert v.phase == s.PH_MOVE and 0 <= v.gnome < n and pos[seat, v.gnome] >= 0
        scratch = state[s.S_SCRATCH:].astype(np.int64)
        slots = 2 * s.MAX_GNOMES                       # fight numbers, a stack and an order of gnome slots, cards
        assert ((scratch[:slots] >= -1) & (scratch[:slots] < slots)).all()
        assert ((scratch[slots:3 * slots] >= 0) & (scratch[slots:3 * slots] < slots)).all()
        assert ((scratch[3 * slots:3 * slots + 16] >= 0) & (scratch[3 * slots:3 * slots + 16] <= 4)).all()
        throws = state[s.S_THROWS:s.S_HITS].astype(np.int64)
        hits = state[s.S_HITS:s.S_WIZARD_OUT].astype(np.int64)
        lost = v.lost.astype(np.int64)
        assert (throws <= v.turn // 2 + 1).all() and (hits <= throws).all()
        for p in range(2):
            assert hits[p] == lost[1 - p, :, s.THROWN].sum()
        if scenario == s.LAST_MAN_STANDING:            # nobody comes back
            assert (lost.sum(axis=(1, 2)) <= n).all()
        counters = np.concatenate([[v.turn], throws, hits, lost.ravel()])
        assert (counters >= 0).all()
        if self.last is not None:
            assert (counters >= self.last).all()
        self.last = counters


@pytest.mark.parametrize("case", EXTREMES)
def test_the_state_fits_its_dtype_at_every_decision(case):
    """simcore/games/skirmish/, the state layout: with the largest army, yard and range allowed, every field
    stays within its bounds at every decision of many games, and the rows are the engine's."""
    sets, kinds, games = EXTREMES[case]
    run = cfg.resolve("skirmish", sets=list(sets.items()), policies=list(enumerate(kinds)))
    params = run.params_array()
    expected = engine.run(run.module, params, run.policies_array(), 4, games)
    for game in range(games):
        assert np.array_equal(play(s, params, kinds, 4, game, on_decision=Fits(params)), expected[game])


def test_the_counters_pass_the_16_bit_limits():
    """simcore/games/skirmish/, the state layout: the throws, hits and gnomes taken out pass 32,767 (where
    int16 ends) and the turn passes 65,535 (where uint16 ends), and they keep counting. Resumed at turn 65,520
    with the throws, hits and heavy cavalry thrown out at 32,760 (so that they agree), a wizard_war across a
    moat (sure hits) runs to max_turns = 65,550 with the state in its bounds at every decision, and its row
    counts on from there."""
    run = cfg.resolve("skirmish", sets=[*SURE_HITS, ("max_turns", 65_550)], policies=[("all", "greedy")])
    params = run.params_array()
    state, streams = s.new_state(), _streams(6)
    actions, work = np.zeros(s.MAX_ACTIONS, np.int64), np.zeros(s.WORK_SIZE, np.int64)
    s.begin(state, params, streams)
    assert state[s.S_TURN] == 0
    state[s.S_TURN] = 65_520                           # even: the same player's turn
    state[s.S_THROWS:s.S_WIZARD_OUT] = 32_760
    s.View(state).lost[:, s.HEAVY, s.THROWN] = 32_760
    fits = Fits(params)
    while (seat := s.current_player(state, params)) >= 0:
        fits(state, seat)
        assert s.legal_actions(state, params, actions) > 0
        s.apply_action(state, params, s.greedy_action(state, params, seat, streams, work), streams)
    row = np.zeros(engine.width(s), np.int64)
    s.write_row(state, params, row)
    assert row[engine.O_N_TURNS] == 65_550 and row[engine.O_TIMEOUT]
    for p in range(2):
        throws, hits = row[COLUMN[f"throws_{p}"]], row[COLUMN[f"hits_{p}"]]
        assert 32_767 < hits <= throws <= 32_760 + 15
        assert row[COLUMN[f"out_by_ranged_{1 - p}"]] == hits
        assert row[COLUMN[f"lost_heavy_{p}"]] > 32_767


def test_a_game_of_the_most_turns_counts_them_all():
    """docs/skirmish.md (max_turns: a timeout) and simcore/games/skirmish/, the state layout: wizard_war across
    a moat nobody can cross, with sure hits, runs the largest max_turns allowed, 100,000 turns; the row counts
    them all, and each side's throws and hits (one per own turn, past 32,767), and the gnomes thrown out agree
    with the hits."""
    most = s.GAME.param_index["max_turns"].high
    # the dtype holds the largest count first: with a turn count that wraps, the game below would never end
    assert most == 100_000 and np.iinfo(s.STATE_DTYPE).max >= 12 * (most // 2 + 1)
    run = cfg.resolve("skirmish", sets=[*SURE_HITS, ("max_turns", most)], policies=[("all", "greedy")])
    out = engine.run(run.module, run.params_array(), run.policies_array(), 1, 4)
    assert (out[:, engine.O_N_TURNS] == 100_000).all() and out[:, engine.O_TIMEOUT].all()
    for p in range(2):
        throws, hits = out[:, COLUMN[f"throws_{p}"]], out[:, COLUMN[f"hits_{p}"]]
        assert ((32_767 < hits) & (hits <= throws) & (throws <= 50_000)).all()
        assert np.array_equal(out[:, COLUMN[f"out_by_ranged_{1 - p}"]], hits)
        by_type = sum(out[:, COLUMN[f"lost_{t}_{p}"]] for t in s.TYPES)      # the same gnomes, counted twice
        assert np.array_equal(by_type, sum(out[:, COLUMN[f"out_by_{c}_{p}"]] for c in s.CAUSES))
