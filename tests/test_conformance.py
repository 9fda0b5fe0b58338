"""One conformance suite for every registered game (issue 23), as OpenSpiel's ``basic_tests`` and Pgx's
``api_test``: each test runs for every game of ``simcore.games.names()`` and every parameter set its
``GameType.cases`` declares (the defaults first). A new game passes it by registering, with no test of its own;
the tests beside a game keep only that game's own rules. A heuristic never peeks: greedy and evaluate give the
same answer in every world resampled for their seat.

Elsewhere, also over every game: reference equality (``tests/test_<game>_reference.py``, the reference's own
result layout), legality of every action applied in games and searches (``tests/test_legality.py``), the plain
copy's rows (``tests/test_reproducibility.py``), golden playthroughs and the docs naming every parameter.
"""

import xml.etree.ElementTree as ElementTree

import numba
import numpy as np
import pytest

from simcore import engine, games, handle
from simcore.agents import core
from simcore.engine import rng
from simcore.io import config as cfg
from simcore.watch import pictures
from tests.interface_driver import decisions, play, resampled

CASES = [(name, dict(case)) for name in games.names() for case in ({}, *games.load(name).GAME.cases)]


def _ids(cases):
    return [f"{name}-{'-'.join(f'{k}={v}' for k, v in case.items()) or 'default'}" for name, case in cases]


IDS = _ids(CASES)
GAMES = games.names()


def _run(name, case, kinds=None):
    policies = list(enumerate(kinds)) if kinds else []
    return cfg.resolve(name, sets=list(case.items()), policies=policies)


def _kinds(module, players, seating="mixed"):
    """The seats' policies: random and greedy in turn ("mixed"), or one of them everywhere (random alone for a
    game without a heuristic)."""
    offered = {"mixed": ["random", "greedy"], "random": ["random"], "greedy": ["greedy"]}[seating]
    offered = offered if module.GAME.heuristic else ["random"]
    return [offered[seat % len(offered)] for seat in range(players)]


def _n_games(name):
    return 12 if name == "skirmish" else 40    # a skirmish game is hundreds of decisions


@pytest.mark.parametrize("seating", ["random", "greedy", "mixed"])
@pytest.mark.parametrize("name, case", CASES, ids=IDS)
def test_the_interface_plays_the_engines_games_and_returns_follow_the_row(name, case, seating):
    """Played one jitted call at a time (legal_actions, the uniform pick or greedy_action, apply_action), the
    games are the engine's, row for row. At the end the seats with the highest return are the row's winners;
    a timeout or a game nobody wins returns the same to every seat."""
    run = _run(name, case)
    module, params = run.module, run.params_array()
    players = int(run.params["players"])
    kinds = _kinds(module, players, seating)
    seeded = _run(name, case, kinds)
    expected = engine.run(module, params, seeded.policies_array(), 11, _n_games(name))
    bound = core.bind(module).interface
    out = np.zeros(module.MAX_SEATS)
    for index, row in enumerate(expected):
        ends = []
        got = play(module, params, kinds, 11, index, on_end=ends.append)
        assert np.array_equal(got, row), f"game {index}"
        bound["returns"](ends[0], params, out)
        returns, wins = out[:players], row[engine.O_WIN:engine.O_WIN + players].astype(bool)
        if row[engine.O_TIMEOUT] or not wins.any():
            assert np.allclose(returns, returns[0]), f"game {index}: {returns}"
        else:
            assert set(np.flatnonzero(np.isclose(returns, returns.max()))) == set(np.flatnonzero(wins)), index


@pytest.mark.parametrize("name, case", CASES, ids=IDS)
def test_resample_keeps_what_the_seat_sees_and_its_options(name, case):
    """A world resampled for a seat looks the same to it (its information state string), the mover keeps its
    legal actions, and the state keeps its size and type. A game with hidden information redraws something in
    some worlds; a game without redraws nothing."""
    run = _run(name, case)
    module, params = run.module, run.params_array()
    players = int(run.params["players"])
    changed = 0
    before, after = np.zeros(module.MAX_ACTIONS, np.int64), np.zeros(module.MAX_ACTIONS, np.int64)
    seen = decisions(module, params, _kinds(module, players), 3 if name == "skirmish" else 6)
    for k, (state, mover, _) in enumerate(seen[::7]):    # 7: every seat gets to move in turn
        for seat in range(players):
            world = resampled(module, state, params, seat, k)
            assert world.dtype == state.dtype and world.shape == state.shape
            assert module.information_state_string(world, params, seat) == \
                module.information_state_string(state, params, seat), f"decision {k}, seat {seat}"
            changed += not np.array_equal(world, state)
        n = module.legal_actions(state, params, before)
        m = module.legal_actions(resampled(module, state, params, mover, k), params, after)
        assert np.array_equal(before[:n], after[:m])
    if module.GAME.hidden_information:
        assert changed > 0, "resample never redrew anything: declare hidden_information=False"
    else:
        assert changed == 0


EVALUATING = [(name, case) for name, case in CASES if games.load(name).GAME.evaluate]


@pytest.mark.parametrize("name, case", EVALUATING, ids=_ids(EVALUATING))
def test_evaluate_estimates_each_return_from_what_the_seat_sees(name, case):
    """A game's evaluate (the score of a playout stopped by ismcts's cutoff): at every decision, a finite
    estimate for each seat; within [0, 1] where the returns are win shares; and the same estimate in every
    world resampled for the seat, so that it reads only what the seat may see."""
    run = _run(name, case)
    module, params = run.module, run.params_array()
    players = int(run.params["players"])
    estimate, again = np.zeros(module.MAX_SEATS), np.zeros(module.MAX_SEATS)
    ends = []
    for k in range(6):
        play(module, params, _kinds(module, players), 11, k, on_end=ends.append)
    returned = np.zeros((len(ends), module.MAX_SEATS))
    for state, out in zip(ends, returned, strict=True):
        module.returns(state, params, out)
    shares = bool(((returned[:, :players] >= 0) & (returned[:, :players] <= 1)).all())
    for k, (state, _, _) in enumerate(decisions(module, params, _kinds(module, players), 2)[::5]):
        for seat in range(players):
            module.evaluate(state, params, seat, estimate)
            assert np.isfinite(estimate[:players]).all()
            if shares:
                assert ((estimate[:players] >= 0) & (estimate[:players] <= 1)).all(), estimate
            module.evaluate(resampled(module, state, params, seat, k), params, seat, again)
            assert np.array_equal(estimate[:players], again[:players]), f"decision {k}, seat {seat}"


GREEDY = [(name, case) for name, case in CASES if games.load(name).GAME.heuristic]


@pytest.mark.parametrize("name, case", GREEDY, ids=_ids(GREEDY))
def test_greedy_reads_only_what_its_seat_sees(name, case):
    """A heuristic never peeks: at every decision the mover's greedy plays the same action, with the same
    random draws, in every world resampled for it (so it cannot depend on what the seat does not see)."""
    run = _run(name, case)
    module, params = run.module, run.params_array()
    players = int(run.params["players"])
    for k, (state, mover, _) in enumerate(decisions(module, params, _kinds(module, players), 3)):
        streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(streams, 9, k)
        chosen = [module.greedy_action(world.copy(), params, mover, streams.copy(), np.zeros(module.WORK_SIZE,
                                                                                               np.int64))
                  for world in (state, resampled(module, state, params, mover, k))]
        assert chosen[0] == chosen[1], f"decision {k}, seat {mover}: {chosen}"


@pytest.mark.parametrize("name", GAMES)
def test_the_games_own_random_action_draws_what_the_uniform_pick_draws(name):
    """A game may replace the agents' random_action with a faster one (simcore.agents.core.OWN); at every
    decision it must pick the action the uniform draw over legal_actions picks, from the same number of the
    same stream, so random play (and every rollout) stays the documented random policy."""
    module = games.load(name)
    if "random_action" not in vars(module):
        pytest.skip(f"{name} draws with the agents' uniform pick itself")
    params = cfg.resolve(name).params_array()
    state = module.new_state()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    actions = np.zeros(module.MAX_ACTIONS, np.int64)
    checked = 0
    for game_index in range(40):
        rng.seed_streams(streams, 3, game_index)
        module.begin(state, params, streams)
        while (seat := module.current_player(state, params)) >= 0:
            own = streams.copy()
            expected = actions[rng.randint(streams, rng.POLICY + seat, module.legal_actions(state, params, actions))]
            assert module.random_action(state, params, seat, own, actions) == expected
            assert np.array_equal(own, streams)
            module.apply_action(state, params, expected, streams)
            checked += 1
    assert checked > 200


@pytest.mark.parametrize("name, case", CASES, ids=IDS)
def test_actions_read_differently_and_codes_stay_in_range(name, case):
    """At every decision the distinct legal actions have distinct words (a replay names each one), every code
    is below N_ACTION_CODES and the list fits MAX_ACTIONS."""
    run = _run(name, case)
    module, params = run.module, run.params_array()
    for state, _, actions in decisions(module, params, _kinds(module, int(run.params["players"])), 2):
        codes = sorted(set(int(a) for a in actions))
        assert 0 <= codes[0] and codes[-1] < module.N_ACTION_CODES and len(actions) <= module.MAX_ACTIONS
        words = [module.action_to_string(state, params, a) for a in codes]
        assert len(set(words)) == len(words), words


@pytest.mark.parametrize("name, case", CASES, ids=IDS)
def test_what_a_seat_observes_of_an_action_is_what_its_information_state_tells_apart(name, case):
    """``observed_action`` (what each seat sees of an action; ismcts tree=observed keys each seat's tree by it)
    agrees with the information states: at a decision, two legal actions have the same code for another seat
    exactly when that seat's information state is the same after either (the chance after them drawn alike;
    two actions leaving the same state prove nothing), and the decider sees its own action whole (the code with
    what the action reveals, ``revealed``). A game declaring no hidden actions sees every action whole, so its
    distinct actions must leave every seat's information state apart."""
    run = _run(name, case)
    module, params = run.module, run.params_array()
    players = int(run.params["players"])
    observed, shows = (core.bind(module).interface[name] for name in ("observed_action", "revealed"))
    hidden = 0
    for k, (state, mover, actions) in enumerate(decisions(module, params, _kinds(module, players), 2)[::3]):
        codes = sorted(set(int(a) for a in actions))
        after = []
        for action in codes:
            world, streams = state.copy(), np.zeros(rng.N_STREAMS, np.uint64)
            rng.seed_streams(streams, 4, k)
            module.apply_action(world, params, action, streams)
            after.append(world)
        whole = [module.state_to_string(world, params) for world in after]
        for seat in range(players):
            keys = [(observed(state, params, action, seat), shows(state, params, action, seat)) for action in codes]
            if seat == mover:       # (two of its own may leave it the same: a bribe outbid goes back to its hand)
                assert [key for key, _ in keys] == codes, f"decision {k}: the decider sees its own actions whole"
                continue
            seen = [module.information_state_string(world, params, seat) for world in after]
            for i in range(len(codes)):
                for j in range(i):
                    if whole[i] == whole[j]:    # (a throw that misses either of two targets)
                        continue
                    assert (keys[i] == keys[j]) == (seen[i] == seen[j]), (
                        f"decision {k}, seat {seat}: {codes[j]} and {codes[i]} seen as {keys[j]} and {keys[i]}")
                    hidden += keys[i] == keys[j]
    assert (hidden > 0) == module.GAME.observations, f"{hidden} pairs of actions looked alike to a seat"


OBSERVING = [(name, case) for name, case in CASES if games.load(name).GAME.observations]


@pytest.mark.parametrize("name, case", OBSERVING, ids=_ids(OBSERVING))
def test_what_an_action_reveals_is_what_the_seat_learns(name, case):
    """``revealed`` (what an action shows a seat of what was hidden before, e.g. the last face-down bid shows
    every bid): played in worlds resampled for a seat, an action whose observation or reveal differs leaves the
    seat's information states apart, so the trees tell apart only what the seat can. (The converse fails by
    design: what the action sets off, a card drawn or who is asked next, may show more, and ISMCTS merges
    such outcomes as it merges chance.)"""
    run = _run(name, case)
    module, params = run.module, run.params_array()
    players = int(run.params["players"])
    observed, shows = (core.bind(module).interface[name] for name in ("observed_action", "revealed"))
    lists, revealing = np.zeros(module.MAX_ACTIONS, np.int64), 0
    for k, (state, mover, actions) in enumerate(decisions(module, params, _kinds(module, players), 2)):
        if k % 5 and shows(state, params, actions[0], (mover + 1) % players) < 0:
            continue                    # every fifth decision, and every one that reveals
        for seat in set(range(players)) - {mover}:
            worlds = [state] + [resampled(module, state, params, seat, 10 * k + i) for i in range(2)]
            for action in sorted(set(int(a) for a in actions))[:4]:
                seen = []
                for world in worlds:
                    if action not in lists[:module.legal_actions(world, params, lists)]:
                        continue
                    key = (observed(world, params, action, seat), shows(world, params, action, seat))
                    after, streams = world.copy(), np.zeros(rng.N_STREAMS, np.uint64)
                    rng.seed_streams(streams, 4, k)
                    module.apply_action(after, params, action, streams)
                    seen.append((key, module.information_state_string(after, params, seat)))
                    revealing += key[1] >= 0
                for key, words in seen[1:]:
                    if key != seen[0][0]:
                        assert words != seen[0][1], f"decision {k}, seat {seat}, {action}: {key}, {seen[0][0]}"
    assert revealing > 0


@pytest.mark.parametrize("name", GAMES)
def test_the_picture_renders_at_every_decision(name):
    """A game with a picture draws every state of a game as one well-formed SVG element tagged with its
    name; a game without one is refused in one line."""
    module = games.load(name)
    params = cfg.resolve(name).params_array()
    seen = decisions(module, params, _kinds(module, int(cfg.resolve(name).params["players"])), 1)
    if not module.GAME.picture:
        with pytest.raises(ValueError, match="no picture"):
            pictures.board_svg(module, seen[0][0], params)
        return
    for state, _, _ in seen[::max(1, len(seen) // 20)]:
        svg = ElementTree.fromstring(pictures.board_svg(module, state, params))
        assert svg.get("data-game") == name


@pytest.mark.parametrize("name", GAMES)
def test_every_agent_gives_the_same_rows_on_one_and_two_threads(name):
    """Same (config, seed), same rows, whatever the thread count or the block split, with every agent
    seated: mc (with and without a cut-off), ismcts (greedy rollouts where the game has a heuristic; the
    observed tree where the game declares hidden actions), greedy and random."""
    module = games.load(name)
    players = cfg.resolve(name).params["players"]
    search = "ismcts:iterations=24" + (",rollout=greedy" if module.GAME.heuristic else "")
    tools = "ismcts:iterations=24,widen=0.5" + (",cutoff=5" if module.GAME.evaluate else "")
    observed = ["ismcts:iterations=24,tree=observed", tools + ",tree=observed"] if module.GAME.observations else []
    cut_mc = "mc:rollouts=1" + (",cutoff=3" if module.GAME.evaluate else "")
    for seats in (["mc:rollouts=2", search], [tools, cut_mc], observed):
        if not seats:
            continue
        specs = [*seats, *_kinds(module, players)][:max(players, 2)]
        run = cfg.resolve(name, policies=list(enumerate(specs)), games=6, seed=5)
        params, agents = run.params_array(), run.policies_array()
        threads = numba.get_num_threads()
        try:
            numba.set_num_threads(1)
            one = engine.run(module, params, agents, 5, 6)
            numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
            two = np.concatenate([rows for _, rows in engine.run_blocks(module, params, agents, 5, 6, block=4)])
        finally:
            numba.set_num_threads(threads)
        assert np.array_equal(one, two), specs


@pytest.mark.parametrize("name", GAMES)
def test_every_game_plays_through_the_handle(name):
    """Every game behind the same handle (OpenSpiel's State API): a game played with the handle's legal
    actions ends with one return per seat, and a resampled world keeps what the mover sees and its options."""
    game = handle.load_game(name)
    state = game.new_initial_state(seed=2)
    for step in range(100_000):
        if state.is_terminal():
            break
        seat = state.current_player()
        if step % 3 == 0:
            world = state.resample(seat, seed=step)
            assert world.information_state_string(seat) == state.information_state_string(seat)
            assert world.legal_actions() == state.legal_actions()
        actions = state.legal_actions()
        state.apply_action(actions[step * 7919 % len(actions)])
    assert state.is_terminal() and len(state.returns()) == game.num_players()
    assert str(state)


def _traced(module, params, agents, seed, n, block=engine.TRACE_BLOCK):
    """The rows and the traces of a traced run, its blocks joined."""
    blocks = list(engine.run_traced_blocks(module, params, agents, seed, n, block=block))
    rows = np.concatenate([rows for _, rows, _ in blocks])
    fields = ("table", "counts", "info")
    return rows, engine.TraceBlock(*(np.concatenate([getattr(t, f) for _, _, t in blocks]) for f in fields))


@pytest.mark.parametrize("name, case", CASES, ids=IDS)
def test_a_traced_run_plays_the_same_games_and_records_them(name, case):
    """--trace (issue 25, parts 5 and 6): a traced run plays the untraced run's rows, and the same traces on one
    thread or two and in any block split; each game records one standing per step (at most MAX_TRACE_STEPS);
    a seat plays a kind only where it was legal; the end is one of the game's END_CONDITIONS exactly when the
    row is not a timeout."""
    module = games.load(name)
    run = _run(name, case)
    run = _run(name, case, _kinds(module, run.players))
    params, agents, n = run.params_array(), run.policies_array(), _n_games(name)
    rows = engine.run(module, params, agents, 3, n)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_rows, one = _traced(module, params, agents, 3, n)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two_rows, two = _traced(module, params, agents, 3, n, block=7)
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(rows, one_rows) and np.array_equal(rows, two_rows)
    for field in ("table", "counts", "info"):
        assert np.array_equal(getattr(one, field), getattr(two, field)), field
    steps, ends = one.info[:, 0], one.info[:, 1]
    assert ((steps >= 1) & (steps <= module.MAX_TRACE_STEPS)).all()
    kinds = len(module.ACTION_KINDS)
    played, legal = one.counts[:, :, :kinds], one.counts[:, :, kinds:]
    assert (played <= legal).all() and played.sum() > 0
    assert np.array_equal(ends == -1, rows[:, engine.O_TIMEOUT] == 1)
    assert ((ends >= -1) & (ends < len(module.END_CONDITIONS))).all()


def test_a_searching_seat_is_traced_like_the_others():
    """The whole copy's traced batch (a seat searching) plays the untraced run's rows too."""
    module = games.load("goofspiel")
    run = cfg.resolve("goofspiel", policies=[(0, "ismcts:iterations=8"), (1, "random")], games=6, seed=2)
    rows, trace = _traced(module, run.params_array(), run.policies_array(), 2, 6, block=4)
    assert np.array_equal(rows, engine.run(module, run.params_array(), run.policies_array(), 2, 6))
    assert (trace.info[:, 0] == run.params["num_cards"] - 1).all()   # the last trick plays itself with the one before
