"""The conformance checks of a game, in the manner of OpenSpiel's ``basic_tests`` and Pgx's ``api_test``.

Each check plays one registered game with one parameter case (a dict of ``GameType.cases``; ``{}`` is the
defaults) and raises ``AssertionError`` with one line saying what is wrong. :func:`check_game` runs every check
for every case and returns a :class:`GameCheck`; ``simcore check NAME`` prints it, and an author's own pytest
calls it::

    from simcore.testing import check_game

    def test_mygame_conforms():
        result = check_game("mygame")
        assert result.passed, [str(record) for record in result.failures]

simcore's own suite runs the same checks (``tests/test_conformance.py``). A heuristic never peeks: greedy and
evaluate give the same answer in every world resampled for their seat. A check that does not apply to a game (no
heuristic, no evaluate, no hidden actions) is skipped with the reason.
"""

import re
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from simcore import agents, engine, games, handle
from simcore._driver import decisions, play, resampled
from simcore.engine import jit, rng
from simcore.engine.binding import bind
from simcore.games import defaults
from simcore.io import config as cfg
from simcore.watch import pictures

QUICK = 4               # --quick plays a quarter of each check's games (at least one)
LONG = ("skirmish",)    # games of hundreds of decisions: the interface and trace checks play fewer of them


def cases(name):
    """The parameter cases of game ``name`` the checks play: the defaults (``{}``) first, then its ``cases``."""
    return [{}, *(dict(case) for case in games.load(name).GAME.cases)]


def case_label(case):
    """A case in words: ``default`` or ``players=4, formation=ring``."""
    return ", ".join(f"{key}={value}" for key, value in case.items()) or "default"


def _games(n, quick):
    return max(1, -(-n // QUICK)) if quick else n


def _fail(message):
    raise AssertionError(message)


def _run(name, case, kinds=None):
    policies = list(enumerate(kinds)) if kinds else []
    return cfg.resolve(name, sets=list(case.items()), policies=policies)


def _setup(name, case):
    """A case's game module, its parameter array and its players."""
    run = _run(name, case)
    return run.module, run.params_array(), int(run.params["players"])


def _kinds(module, players, seating="mixed"):
    """The seats' policies: random and greedy in turn ("mixed"), or one of them everywhere (random alone for a
    game without a heuristic)."""
    offered = {"mixed": ["random", "greedy"], "random": ["random"], "greedy": ["greedy"]}[seating]
    offered = offered if module.GAME.heuristic else ["random"]
    return [offered[seat % len(offered)] for seat in range(players)]


def _played(name, quick):
    """Games of the interface and trace checks."""
    return _games(12 if name in LONG else 40, quick)


DECISIONS = 400         # decisions the peeking checks read at least: a budget of games read 9 of a short game's
MOST_GAMES = 10_000     # ... in at most this many games (a game of no decisions ends the search for them)
SEED = 5                # the seed of the games whose decisions they read


def _decisions(module, params, kinds, games, quick):
    """(state copy, seat, legal actions, game index) at every decision of at least ``games`` games and as many
    more as it takes to reach :data:`DECISIONS` (a quarter of each with --quick): a budget in decisions, so that
    a game of three decisions is read as closely as one of three hundred."""
    seen, want, game = [], _games(DECISIONS, quick), 0
    while (game < _games(games, quick) or len(seen) < want) and game < MOST_GAMES:
        play(module, params, kinds, SEED, game,
             on_decision=lambda state, seat, actions, g=game: seen.append((state.copy(), seat, actions, g)))
        game += 1
    return seen


def _replay_hint(name, case, kinds, game):
    """The commands that play game ``game`` of a check's decisions again and show it, move by move."""
    sets = "".join(f" --set {key}={_shown(value)}" for key, value in case.items())
    seats = "".join(f" --policy {seat}={kind}" for seat, kind in enumerate(kinds))
    return (f"replay: simcore run {name}{sets}{seats} --seed {SEED} --games {game + 1} --out check.parquet && "
            f"simcore replay check.parquet --index {game}")


def _shown(value):
    return str(value).replace(" ", "").replace("'", "") if isinstance(value, list | tuple) else \
        str(value).lower() if isinstance(value, bool) else str(value)


# --- the checks: (name, case, quick) -> None, or AssertionError ----------------------------------------------

def interface(name, case, quick=False, seating="mixed"):
    """Played one jitted call at a time (legal_actions, the uniform pick or greedy_action, apply_action), the
    games are the engine's, row for row. At the end the seats with the highest return are the row's winners;
    a timeout or a game nobody wins returns the same to every seat."""
    module, params, players = _setup(name, case)
    kinds = _kinds(module, players, seating)
    expected = engine.run(module, params, _run(name, case, kinds).policies_array(), 11, _played(name, quick))
    returns_of = bind(module).interface["returns"]
    out = np.zeros(module.MAX_SEATS)
    for index, row in enumerate(expected):
        ends = []
        got = play(module, params, kinds, 11, index, on_end=ends.append)
        if not np.array_equal(got, row):
            column = int(np.flatnonzero(got != row)[0])
            _fail(f"game {index}: played through the interface, column {column} of its row is {got[column]}; the "
                  f"engine's run wrote {row[column]}")
        returns_of(ends[0], params, out)
        returns, wins = out[:players], row[engine.O_WIN:engine.O_WIN + players].astype(bool)
        if row[engine.O_TIMEOUT] or not wins.any():
            if not np.allclose(returns, returns[0]):
                _fail(f"game {index}: nobody won (or a timeout), yet the returns {returns.tolist()} differ")
        else:
            best = set(np.flatnonzero(np.isclose(returns, returns.max())).tolist())
            if best != set(np.flatnonzero(wins).tolist()):
                _fail(f"game {index}: the highest returns ({returns.tolist()}) are seats {sorted(best)}, the row's "
                      f"winners seats {np.flatnonzero(wins).tolist()}")


def resample(name, case, quick=False):
    """A world resampled for a seat looks the same to it (its information state string), the mover keeps its
    legal actions, and the state keeps its size and type. A game with hidden information redraws something in
    some worlds; a game without redraws nothing."""
    module, params, players = _setup(name, case)
    changed, kinds = 0, _kinds(module, players)
    before, after = np.zeros(module.MAX_ACTIONS, np.int64), np.zeros(module.MAX_ACTIONS, np.int64)
    seen = _decisions(module, params, kinds, 3 if name in LONG else 6, quick)
    for k, (state, mover, _, game) in enumerate(seen[::7]):    # 7: every seat gets to move in turn
        where = f"decision {k} (game {game}; {_replay_hint(name, case, kinds, game)})"
        for seat in range(players):
            world = resampled(module, state, params, seat, k)
            if world.dtype != state.dtype or world.shape != state.shape:
                _fail(f"resample for seat {seat} made a {world.dtype} state of shape {world.shape} of a "
                      f"{state.dtype} one of shape {state.shape}, at {where}")
            if module.information_state_string(world, params, seat) != \
                    module.information_state_string(state, params, seat):
                _fail(f"a world resampled for seat {seat} looks different to it (its information_state_string "
                      f"changed), at {where}")
            changed += not np.array_equal(world, state)
        n = module.legal_actions(state, params, before)
        m = module.legal_actions(resampled(module, state, params, mover, k), params, after)
        if not np.array_equal(before[:n], after[:m]):
            _fail(f"in a world resampled for the mover, seat {mover}, its legal actions are {after[:m].tolist()}, "
                  f"not {before[:n].tolist()}, at {where}")
    if module.GAME.hidden_information and not changed:
        _fail("resample never redrew anything: declare hidden_information=False")
    if not module.GAME.hidden_information and changed:
        _fail(f"resample redrew {changed} worlds of a game that declares hidden_information=False")


def evaluate(name, case, quick=False):
    """A game's evaluate (the score of a playout stopped by ismcts's cutoff): at every decision, a finite
    estimate for each seat; within [0, 1] where the returns are win shares; and the same estimate in every
    world resampled for the seat, so that it reads only what the seat may see."""
    module, params, players = _setup(name, case)
    estimate, again = np.zeros(module.MAX_SEATS), np.zeros(module.MAX_SEATS)
    ends = []
    for k in range(_games(6, quick)):
        play(module, params, _kinds(module, players), 11, k, on_end=ends.append)
    returned = np.zeros((len(ends), module.MAX_SEATS))
    for state, out in zip(ends, returned, strict=True):
        module.returns(state, params, out)
    shares = bool(((returned[:, :players] >= 0) & (returned[:, :players] <= 1)).all())
    kinds = _kinds(module, players)
    for k, (state, _, _, game) in enumerate(_decisions(module, params, kinds, 2, quick)[::5]):
        where = f"decision {k} (game {game}; {_replay_hint(name, case, kinds, game)})"
        for seat in range(players):
            module.evaluate(state, params, seat, estimate)
            if not np.isfinite(estimate[:players]).all():
                _fail(f"evaluate for seat {seat} gave {estimate[:players].tolist()}; allowed: finite, at {where}")
            if shares and not ((estimate[:players] >= 0) & (estimate[:players] <= 1)).all():
                _fail(f"evaluate for seat {seat} gave {estimate[:players].tolist()}; allowed: 0 to 1, as the "
                      f"game's returns are, at {where}")
            module.evaluate(resampled(module, state, params, seat, k), params, seat, again)
            if not np.array_equal(estimate[:players], again[:players]):
                _fail(f"evaluate for seat {seat} peeks: {again[:players].tolist()} in a world resampled for it, "
                      f"{estimate[:players].tolist()} in the true one, at {where}")


def greedy(name, case, quick=False):
    """A heuristic never peeks: at every decision the mover's greedy plays the same action, with the same
    random draws, in every world resampled for it (so it cannot depend on what the seat does not see)."""
    module, params, players = _setup(name, case)
    kinds = _kinds(module, players)
    for k, (state, mover, _, game) in enumerate(_decisions(module, params, kinds, 3, quick)):
        streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(streams, 9, k)
        chosen = [module.greedy_action(world.copy(), params, mover, streams.copy(),
                                       np.zeros(module.WORK_SIZE, np.int64))
                  for world in (state, resampled(module, state, params, mover, k))]
        if chosen[0] != chosen[1]:
            _fail(f"greedy peeks: seat {mover} plays {chosen[0]}, in a world resampled for it {chosen[1]}, at "
                  f"decision {k} (game {game}; {_replay_hint(name, case, kinds, game)})")


def greedy_among(name, case, quick=False):
    """A restricted greedy is the game's greedy (``greedy_among``, with ``restricted_greedy``): at every decision,
    given every legal action it plays what greedy_action plays, with the same draws; given the legal actions less
    those of one kind (a restriction), it plays one of those it was given, and the same in a world resampled for
    the seat (it never peeks)."""
    module, params, players = _setup(name, case)
    kinds = _kinds(module, players)
    for k, (state, mover, legal, game) in enumerate(_decisions(module, params, kinds, 3, quick)):
        streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(streams, 9, k)
        listed = np.array(legal, np.int64)
        work = np.zeros(module.WORK_SIZE, np.int64)
        own = module.greedy_action(state.copy(), params, mover, streams.copy(), work.copy())
        among = module.greedy_among(state.copy(), params, mover, streams.copy(), work.copy(), listed, listed.size)
        where = f"decision {k} (game {game}; {_replay_hint(name, case, kinds, game)})"
        if own != among:
            _fail(f"greedy_among given every legal action plays {among}, greedy_action {own}, at {where}")
        kind_of = [module.action_kind(state.copy(), params, a) for a in legal]
        left = listed[[kind != kind_of[0] or kind < 0 for kind in kind_of]] if kind_of[0] >= 0 else listed[:0]
        if left.size:
            chosen = [module.greedy_among(world.copy(), params, mover, streams.copy(), work.copy(), left, left.size)
                      for world in (state, resampled(module, state, params, mover, k))]
            if chosen[0] not in left:
                _fail(f"greedy_among given the legal actions but those of kind {kind_of[0]} plays {chosen[0]}, not "
                      f"one of them, at {where}")
            if chosen[0] != chosen[1]:
                _fail(f"greedy_among peeks: seat {mover} plays {chosen[0]}, in a world resampled for it "
                      f"{chosen[1]}, at {where}")


def random_action(name, case, quick=False):
    """A game may replace the agents' random_action with a faster one (simcore.engine.binding.OWN); at every
    decision it must pick the action the uniform draw over legal_actions picks, from the same number of the
    same stream, so random play (and every rollout) stays the documented random policy."""
    module = games.load(name)
    params = cfg.resolve(name).params_array()
    state = module.new_state()
    streams = np.zeros(rng.N_STREAMS, np.uint64)
    actions = np.zeros(module.MAX_ACTIONS, np.int64)
    checked, n_games = 0, _games(40, quick)
    for game_index in range(n_games):
        rng.seed_streams(streams, 3, game_index)
        module.begin(state, params, streams)
        while (seat := module.current_player(state, params)) >= 0:
            own = streams.copy()
            expected = actions[rng.randint(streams, rng.POLICY + seat, module.legal_actions(state, params, actions))]
            got = module.random_action(state, params, seat, own, actions)
            if got != expected:
                _fail(f"game {game_index}: the game's random_action drew {got}, the uniform pick {expected}")
            if not np.array_equal(own, streams):
                _fail(f"game {game_index}: the game's random_action drew other numbers than the uniform pick")
            module.apply_action(state, params, expected, streams)
            checked += 1
    if checked <= 5 * n_games:
        _fail(f"{n_games} games had only {checked} decisions; allowed: more than {5 * n_games}")


def random_games(name, case, quick=False):
    """A game's own whole random game (``random_game``, simcore.games.OPTIONAL) plays the game loop's games with
    random seats: the same rows as the game loop's copy of random seats, game for game, on one thread and on two.
    A variant it does not take (its ``prepare_random_game`` says False) plays through the game loop: skipped."""
    module, params, players = _setup(name, case)
    agents = _run(name, case, _kinds(module, players, "random")).policies_array()
    if not engine.plays_random_games(module, params, agents):
        raise Skipped("the game's own random game does not take this variant: the game loop plays it")
    bound, n = bind(module), _games(2000, quick)
    loop = np.zeros((n, engine.width(module)), np.int64)
    bound.run_random(params, agents, np.int64(9), np.int64(0), loop)
    for threads in (1, 2):
        own = np.zeros_like(loop)
        _on_threads(threads, bound.run_random_games, params, agents, np.int64(9), np.int64(0), own)
        differ = np.flatnonzero((own != loop).any(axis=1))
        if len(differ):
            _fail(f"game {differ[0]}: the game's own random game wrote {own[differ[0]].tolist()}, the game loop "
                  f"{loop[differ[0]].tolist()} ({len(differ)} of {n} games differ, {threads} thread(s))")


def action_words(name, case, quick=False):
    """At every decision the distinct legal actions have distinct words (a replay names each one), every code
    is below N_ACTION_CODES and the list fits MAX_ACTIONS."""
    module, params, players = _setup(name, case)
    seen = decisions(module, params, _kinds(module, players), _games(2, quick))
    for k, (state, _, actions) in enumerate(seen):
        codes = sorted(set(int(a) for a in actions))
        if codes[0] < 0 or codes[-1] >= module.N_ACTION_CODES:
            _fail(f"decision {k}: action codes {codes[0]} to {codes[-1]}; allowed: 0 to N_ACTION_CODES - 1 "
                  f"({module.N_ACTION_CODES - 1})")
        words = [module.action_to_string(state, params, a) for a in codes]
        if len(set(words)) != len(words):
            same = sorted({word for word in words if words.count(word) > 1})
            _fail(f"decision {k}: distinct legal actions read alike: {same} (action_to_string)")


def observed_actions(name, case, quick=False):
    """``observed_action`` (what each seat sees of an action; ismcts tree=observed keys each seat's tree by it)
    agrees with the information states: at a decision, two legal actions have the same code for another seat
    exactly when that seat's information state is the same after either (the chance after them drawn alike;
    two actions leaving the same state prove nothing), and the decider sees its own action whole (the code with
    what the action reveals, ``revealed``). A game declaring no hidden actions sees every action whole, so its
    distinct actions must leave every seat's information state apart."""
    module, params, players = _setup(name, case)
    observed, shows = (bind(module).interface[key] for key in ("observed_action", "revealed"))
    hidden = 0
    seen = decisions(module, params, _kinds(module, players), _games(2, quick))
    for k, (state, mover, actions) in enumerate(seen[::3]):
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
                if [key for key, _ in keys] != codes:
                    _fail(f"decision {k}: seat {mover} does not see its own actions whole: observed_action gives "
                          f"{[key for key, _ in keys]} for {codes}")
                continue
            infos = [module.information_state_string(world, params, seat) for world in after]
            for i in range(len(codes)):
                for j in range(i):
                    if whole[i] == whole[j]:    # (a throw that misses either of two targets)
                        continue
                    if (keys[i] == keys[j]) != (infos[i] == infos[j]):
                        _fail(f"decision {k}, seat {seat}: {codes[j]} and {codes[i]} seen as {keys[j]} and "
                              f"{keys[i]}, yet they leave its information state "
                              f"{'apart' if infos[i] != infos[j] else 'alike'}")
                    hidden += keys[i] == keys[j]
    if (hidden > 0) != module.GAME.observations:
        _fail(f"{hidden} pairs of actions looked alike to a seat, and the game declares "
              f"observations={module.GAME.observations}")


def reveals(name, case, quick=False):
    """``revealed`` (what an action shows a seat of what was hidden before, e.g. the last face-down bid shows
    every bid): played in worlds resampled for a seat, an action whose observation or reveal differs leaves the
    seat's information states apart, so the trees tell apart only what the seat can. (The converse fails by
    design: what the action sets off, a card drawn or who is asked next, may show more, and ISMCTS merges
    such outcomes as it merges chance.)"""
    module, params, players = _setup(name, case)
    observed, shows = (bind(module).interface[key] for key in ("observed_action", "revealed"))
    lists, revealing = np.zeros(module.MAX_ACTIONS, np.int64), 0
    for k, (state, mover, actions) in enumerate(decisions(module, params, _kinds(module, players), _games(2, quick))):
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
                    if key != seen[0][0] and words == seen[0][1]:
                        _fail(f"decision {k}, seat {seat}, action {action}: seen as {key} in a resampled world and "
                              f"as {seen[0][0]} in the true one, yet it leaves the seat's information state alike")
    if not revealing:
        _fail("no action revealed anything to any seat (revealed always -1)")


def rewound(name, case, quick=False):
    """``rewind`` (select=regret's view of a round of face-down moves) takes back only moves the seat has not
    seen: at every decision, what rewinding for the mover leaves is the state k decisions earlier in the same
    game, each of those k moves another seat's, and every action legal there looked alike to the mover (one
    ``observed_action`` code). Some decision takes back a move."""
    module, params, players = _setup(name, case)
    observed, rewind = (bind(module).interface[key] for key in ("observed_action", "rewind"))
    taken_back = 0
    for game in range(_games(3, quick)):
        seen = []
        play(module, params, _kinds(module, players), 5, game,
             on_decision=lambda state, seat, actions, seen=seen: seen.append((state.copy(), seat, actions)))
        for i, (state, mover, _) in enumerate(seen):
            world = state.copy()
            k = rewind(world, params, mover)
            taken_back += k
            if k == 0:
                if not np.array_equal(world, state):
                    _fail(f"game {game}, decision {i}: rewind took back nothing, yet changed the state")
                continue
            if k > i or not np.array_equal(world, seen[i - k][0]):
                _fail(f"game {game}, decision {i}: rewind took back {k} moves for seat {mover}, and the state it "
                      f"left is not the state {k} decisions earlier")
            for earlier, other, actions in seen[i - k:i]:
                codes = {observed(earlier, params, action, mover) for action in actions}
                if other == mover or len(codes) > 1:
                    _fail(f"game {game}, decision {i}: rewind took back a move of seat {other} that seat {mover} "
                          f"saw (its legal actions looked like {sorted(codes)}); allowed: only moves it did not see")
    if not taken_back:
        _fail("rewind never took back a move")


def _writes(name, otherwise):
    """A check's ``unless`` for an optional jitted name: the reason to skip a game that leaves it to its default."""
    return lambda module: "" if getattr(module, name) is not defaults.OPTIONAL_JITTED[name] else \
        f"{module.GAME.name} writes no {name} ({otherwise})"


def deals(name, case, quick=False):
    """``dealt`` (what chance dealt face up with the action just played, which select=regret keys its trees by)
    reads only what its observer may see: at every decision, the same code in every world resampled for that
    seat. Some decision deals something."""
    module, params, players = _setup(name, case)
    dealt = bind(module).interface["dealt"]
    shown = 0
    for k, (state, _, _) in enumerate(decisions(module, params, _kinds(module, players), _games(3, quick))):
        for seat in range(players):
            code = dealt(state, params, seat)
            shown += code >= 0
            again = dealt(resampled(module, state, params, seat, k), params, seat)
            if again != code:
                _fail(f"decision {k}: dealt shows seat {seat} {code}, and {again} in a world resampled for it; "
                      f"allowed: only what the seat sees, the same in every such world")
    if not shown:
        _fail("dealt never showed a seat anything")


def picture(name, case, quick=False):
    """A game with a picture draws every state of a game as one well-formed SVG element tagged with its
    name; a game without one is refused in one line."""
    module = games.load(name)
    run = cfg.resolve(name)
    seen = decisions(module, run.params_array(), _kinds(module, int(run.params["players"])), 1)
    if not module.GAME.picture:
        try:
            pictures.board_svg(module, seen[0][0], run.params_array())
        except ValueError as e:
            if "no picture" in str(e):
                return
        _fail("a board drawn for a game that declares picture=False")
    for k, (state, _, _) in enumerate(seen[::max(1, len(seen) // _games(20, quick))]):
        try:
            svg = ElementTree.fromstring(pictures.board_svg(module, state, run.params_array()))
        except ElementTree.ParseError as e:
            _fail(f"decision {k}: draw_board's SVG is not well-formed: {e}")
        if svg.get("data-game") != name:
            _fail(f"decision {k}: draw_board's SVG is tagged data-game={svg.get('data-game')!r}; allowed: {name!r}")


def threads(name, case, quick=False):
    """Same (config, seed), same rows, whatever the thread count or the block split, with every agent
    seated: mc (with and without a cut-off), ismcts (greedy rollouts where the game has a heuristic; the
    observed tree where the game declares hidden actions, with UCB1 and with regret matching; a played action
    drawn from the visits or from the average strategy), greedy and random."""
    module = games.load(name)
    players = cfg.resolve(name).params["players"]
    search = "ismcts:iterations=24" + (",rollout=greedy" if module.GAME.heuristic else "")
    tools = "ismcts:iterations=24,widen=0.5,final=visits" + (",cutoff=5" if module.GAME.evaluate else "")
    observed = ["ismcts:iterations=24,tree=observed", tools + ",tree=observed"] if module.GAME.observations else []
    regret = [REGRET, "mc:rollouts=1"] if module.GAME.observations else []
    cut_mc = "mc:rollouts=1" + (",cutoff=3" if module.GAME.evaluate else "")
    n = _games(6, quick)
    for seats in (["mc:rollouts=2", search], [tools, cut_mc], observed, regret):
        if not seats:
            continue
        specs = [*seats, *_kinds(module, players)][:max(players, 2)]
        run = cfg.resolve(name, policies=list(enumerate(specs)), games=n, seed=5)
        params, agents = run.params_array(), run.policies_array()
        one = _on_threads(1, engine.run, module, params, agents, 5, n)
        two = _on_threads(2, _in_blocks_of_4, module, params, agents, 5, n)
        if not np.array_equal(one, two):
            _fail(f"seats {specs}: other rows on two threads in blocks of 4 than on one thread")


def _in_blocks_of_4(module, params, agents, seed, n):
    return np.concatenate([rows for _, rows in engine.run_blocks(module, params, agents, seed, n, block=4)])


def _on_threads(n, play_games, *args):
    """``play_games(*args)`` on ``n`` numba threads (as many as there are, up to ``n``), the count restored after."""
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
        return play_games(*args)
    finally:
        numba.set_num_threads(before)


def through_the_handle(name, case, quick=False):
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
            if world.information_state_string(seat) != state.information_state_string(seat):
                _fail(f"step {step}: a world resampled through the handle looks different to seat {seat}")
            if world.legal_actions() != state.legal_actions():
                _fail(f"step {step}: a world resampled through the handle has other legal actions")
        actions = state.legal_actions()
        state.apply_action(actions[step * 7919 % len(actions)])
    if not state.is_terminal():
        _fail("a game through the handle did not end in 100,000 steps")
    if len(state.returns()) != game.num_players():
        _fail(f"the handle returned {len(state.returns())} returns for {game.num_players()} seats")
    if not str(state):
        _fail("the handle's state prints as nothing")


OPENSPIEL_DEALS = 200     # deals played side by side with OpenSpiel, each seat's action drawn uniformly
ENUMERATED_DEALS = 12     # deals whose every action sequence is played side by side, where a deal has at most
LEAVES = 5_000            # ... this many (a larger game is left to the random deals)


class Skipped(Exception):
    """A check that does not apply to this case, and why (its record says "skip" with the words)."""


def against_openspiel(name, case, quick=False):
    """The game is OpenSpiel's game of the name its ``GameType.openspiel`` gives: played side by side with
    ``pyspiel`` (OpenSpiel's chance nodes answered with what simcore's chance drew, from the game's
    ``openspiel_chance``), the seat to move and its legal actions are the same at every decision, and the returns
    at the end. Each seat's action is drawn uniformly from its legal ones, over many deals, and on the first deals
    every action sequence is played, where a deal has few enough: a fixed rule of choice reached 6 of Leduc
    poker's 49 betting sequences and never check-check. OpenSpiel's parameters are the game's
    ``openspiel_params`` (:func:`openspiel_parameters`). A failure names the deal and the actions and prints a
    command that plays them again (:func:`replay_openspiel`)."""
    import pyspiel

    module = games.load(name)
    reference = pyspiel.load_game(module.GAME.openspiel, openspiel_parameters(module, _run(name, case).params, case))
    game = handle.load_game(name, params=dict(case))
    for index in range(_games(OPENSPIEL_DEALS, quick)):
        pick = np.random.default_rng([SEED, index])
        _side_by_side(name, case, module, game, reference, index,
                      lambda legal, pick=pick: legal[pick.integers(len(legal))])
    for index in range(_games(ENUMERATED_DEALS, quick)):
        _every_sequence(name, case, module, game, reference, index)


def openspiel_parameters(module, params, case):
    """OpenSpiel's parameters for a case's resolved ``params``: the game's ``openspiel_params(params)`` where it
    maps them (a ValueError there skips the case with its words), else those of the same names; a case that sets
    a parameter OpenSpiel's game does not take, unmapped, is skipped with the reason (it was a rule mismatch)."""
    import pyspiel

    if module.openspiel_params is not defaults.same_names:
        try:
            return module.openspiel_params(params)
        except ValueError as e:
            raise Skipped(f"openspiel_params: {e}") from None
    taken = pyspiel.load_game(module.GAME.openspiel).get_parameters()
    unmapped = [key for key in case if key not in taken]
    if unmapped:
        raise Skipped(f"the case sets {', '.join(unmapped)}, which OpenSpiel's {module.GAME.openspiel} does not "
                      "take; map it to OpenSpiel's parameters with openspiel_params(params) in the game's module")
    return {key: value for key, value in params.items() if key in taken}


def _answer_chance(module, game, ours, theirs, drawn, where):
    """Answer OpenSpiel's chance nodes with the outcomes simcore's chance drew; the count answered so far."""
    while theirs.is_chance_node():
        outcomes = module.openspiel_chance(ours.state, game.params_array)
        if drawn >= len(outcomes):
            _fail(f"OpenSpiel draws chance outcome {drawn + 1}; openspiel_chance gives {len(outcomes)}, {where()}")
        theirs.apply_action(int(outcomes[drawn]))
        drawn += 1
    return drawn


def _same_decision(ours, theirs, where):
    if ours.current_player() != theirs.current_player() or \
            sorted(set(ours.legal_actions())) != sorted(theirs.legal_actions()):
        _fail(f"seat {ours.current_player()} may play {sorted(set(ours.legal_actions()))}, OpenSpiel's player "
              f"{theirs.current_player()} {sorted(theirs.legal_actions())}, {where()}")


def _same_end(ours, theirs, where):
    if ours.is_terminal() != theirs.is_terminal():
        _fail(f"{'simcore' if ours.is_terminal() else 'OpenSpiel'}'s game ended first, {where()}")
    if not np.allclose(ours.returns(), theirs.returns()):
        _fail(f"returns {list(ours.returns())}, OpenSpiel's {theirs.returns()}, {where()}")


def _where(name, case, index, played):
    """Where a cross-check failed, and the command that plays it again."""
    return lambda: (f"at deal {index} after actions {played} (replay: python -c \"from simcore.testing import "
                    f"replay_openspiel; replay_openspiel('{name}', {case!r}, {index}, {played})\")")


def _side_by_side(name, case, module, game, reference, index, choose):
    """One deal played by ``choose(legal actions)`` in both games."""
    ours, theirs, drawn, played = game.new_initial_state(seed=index), reference.new_initial_state(), 0, []
    where = _where(name, case, index, played)
    for _ in range(100_000):
        drawn = _answer_chance(module, game, ours, theirs, drawn, where)
        if ours.is_terminal() or theirs.is_terminal():
            break
        _same_decision(ours, theirs, where)
        action = int(choose(sorted(set(ours.legal_actions()))))
        ours.apply_action(action)
        theirs.apply_action(action)
        played.append(action)
    _same_end(ours, theirs, where)


def _every_sequence(name, case, module, game, reference, index):
    """Every action sequence of one deal in both games, depth first; a deal of more than :data:`LEAVES` ends
    is left to the random deals."""
    stack, ends = [(game.new_initial_state(seed=index), reference.new_initial_state(), 0, [])], 0
    while stack and ends <= LEAVES:
        ours, theirs, drawn, played = stack.pop()
        where = _where(name, case, index, played)
        drawn = _answer_chance(module, game, ours, theirs, drawn, where)
        if ours.is_terminal() or theirs.is_terminal():
            _same_end(ours, theirs, where)
            ends += 1
            continue
        _same_decision(ours, theirs, where)
        for action in sorted(set(ours.legal_actions()), reverse=True):
            a, b = ours.clone(), theirs.clone()
            a.apply_action(action)
            b.apply_action(int(action))
            stack.append((a, b, drawn, [*played, int(action)]))


def replay_openspiel(name, case, index, actions):
    """Play deal ``index`` of game ``name`` (parameters ``case``) with ``actions`` side by side with OpenSpiel,
    printing each decision on both sides: what a failed cross-check prints to reproduce itself."""
    import pyspiel

    module = games.load(name)
    reference = pyspiel.load_game(module.GAME.openspiel, openspiel_parameters(module, _run(name, case).params, case))
    game = handle.load_game(name, params=dict(case))
    ours, theirs, drawn = game.new_initial_state(seed=index), reference.new_initial_state(), 0
    for step, action in enumerate([*actions, None]):
        try:
            drawn = _answer_chance(module, game, ours, theirs, drawn, lambda step=step: f"at step {step}")
        except AssertionError as e:         # the mismatch the check found: said, and the replay ends there
            print(f"step {step}: {e}")
            break
        print(f"step {step}: simcore seat {ours.current_player()} may play {sorted(set(ours.legal_actions()))}; "
              f"OpenSpiel player {theirs.current_player()} {sorted(theirs.legal_actions())}")
        if action is None or ours.is_terminal() or theirs.is_terminal():
            break
        print(f"  plays {action}: {ours.action_to_string(action)}")
        ours.apply_action(action)
        theirs.apply_action(action)
    print(f"returns: simcore {list(ours.returns())}, OpenSpiel {theirs.returns()}")


def _openspiel(module):
    """Why the OpenSpiel cross-check does not apply, or "" where it does."""
    if not module.GAME.openspiel:
        return f"{module.GAME.name} names no OpenSpiel game"
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return "OpenSpiel is not installed (pip install open_spiel)"
    return ""


def traced_blocks(module, params, agents, seed, n, block=engine.TRACE_BLOCK):
    """The rows and the traces of a traced run, its blocks joined."""
    blocks = list(engine.run_traced_blocks(module, params, agents, seed, n, block=block))
    rows = np.concatenate([rows for _, rows, _ in blocks])
    fields = ("table", "counts", "info")
    return rows, engine.TraceBlock(*(np.concatenate([getattr(t, f) for _, _, t in blocks]) for f in fields))


def _trace_holds(module, rows, trace):
    """Each game records one standing per step (at most MAX_TRACE_STEPS); a seat plays a kind only where it was
    legal; the end is one of the game's END_CONDITIONS exactly when the row is not a timeout."""
    steps, ends = trace.info[:, 0], trace.info[:, 1]
    if not ((steps >= 1) & (steps <= module.MAX_TRACE_STEPS)).all():
        _fail(f"games recorded {steps.min()} to {steps.max()} steps; allowed: 1 to MAX_TRACE_STEPS "
              f"({module.MAX_TRACE_STEPS})")
    kinds = len(module.ACTION_KINDS)
    played, legal = trace.counts[:, :, :kinds], trace.counts[:, :, kinds:2 * kinds]
    if not (played <= legal).all():
        _fail("a seat played a kind of action more often than it was legal (action_kind)")
    if not played.sum():
        _fail("no action of any kind was counted (action_kind always -1)")
    if not np.array_equal(ends == -1, rows[:, engine.O_TIMEOUT] == 1):
        _fail("the trace's end is -1 where the row is not a timeout, or the reverse")
    if not ((ends >= -1) & (ends < len(module.END_CONDITIONS))).all():
        _fail(f"end_condition gave {ends.max()}; allowed: -1 to {len(module.END_CONDITIONS) - 1} (END_CONDITIONS)")


def traced(name, case, quick=False):
    """--trace: a traced run plays the untraced run's rows, and the same traces on one thread or two and in any
    block split, and its traces hold (:func:`_trace_holds`)."""
    module = games.load(name)
    run = _run(name, case, _kinds(module, _run(name, case).players))
    params, agents, n = run.params_array(), run.policies_array(), _played(name, quick)
    rows = engine.run(module, params, agents, 3, n)
    one_rows, one = _on_threads(1, traced_blocks, module, params, agents, 3, n)
    two_rows, two = _on_threads(2, traced_blocks, module, params, agents, 3, n, 7)
    if not (np.array_equal(rows, one_rows) and np.array_equal(rows, two_rows)):
        _fail("a traced run's rows are not the untraced run's")
    for field in ("table", "counts", "info"):
        if not np.array_equal(getattr(one, field), getattr(two, field)):
            _fail(f"the traces' {field} on two threads in blocks of 7 are not those on one thread")
    _trace_holds(module, rows, one)


def searching_traced(name, case, quick=False):
    """With a seat searching, the traced batch (the whole copy of the agents) plays the untraced run's rows too,
    and its traces hold."""
    module = games.load(name)
    run = cfg.resolve(name, policies=[(0, "ismcts:iterations=8"), (1, "random")], seed=2)
    n = _games(6, quick)
    rows, trace = traced_blocks(module, run.params_array(), run.policies_array(), 2, n, block=4)
    if not np.array_equal(rows, engine.run(module, run.params_array(), run.policies_array(), 2, n)):
        _fail("with a seat searching, a traced run's rows are not the untraced run's")
    _trace_holds(module, rows, trace)


REGRET = "ismcts:iterations=24,tree=observed,select=regret,final=average"   # simultaneous-move MCTS
SEARCHES = ("mc:rollouts=2", "ismcts:iterations=20,rollout=random", "ismcts:iterations=20,rollout=greedy",
            "ismcts:iterations=20,widen=0.5", "ismcts:iterations=20,cutoff=6,widen=1",
            "ismcts:iterations=20,cutoff=6,widen=1,tree=observed,rollout=greedy", REGRET)


def offered(module):
    """The specs of :data:`SEARCHES` game ``module`` offers (greedy rollouts need its heuristic, a cut-off its
    evaluate, the observed tree its hidden actions), random and greedy first."""
    specs = ["random", *(["greedy"] if module.GAME.heuristic else []), *SEARCHES]
    out = []
    for spec in specs:
        try:
            agents.parse(spec, module.GAME, module.ACTION_KINDS)
        except ValueError:
            continue
        out.append(spec)
    return out


def searches_legal(name, case, quick=False):
    """Every action the game loop and every agent apply is legal in its state, inside every search too (each
    rollout, each resampled world): games on one thread in the checked copy of the game loop
    (``simcore.engine.loop.apply_checked``), which raises before an illegal action is applied. Each agent the game
    offers plays every seat of the default game, then they sit side by side at the largest player count."""
    module = games.load(name)
    search_batch = bind(module, checked=True).search_batch
    specs = offered(module)
    players, most = _run(name, case).players, max(module.GAME.player_counts)
    seatings = [(case, [spec] * players) for spec in specs]
    seatings += [({**case, "players": most}, [specs[(k + seat) % len(specs)] for seat in range(most)])
                 for k in range(len(specs))]
    n = _games(4, quick)
    for params, seats in seatings:
        run = _run(name, params, seats)
        try:
            iterations = search_batch(run.params_array(), run.policies_array(), np.int64(1), np.int64(0),
                                      np.int64(n))
        except AssertionError as e:
            _fail(f"seats {seats}: {e}")
        if (iterations > 0) != any(spec.startswith("ismcts") for spec in seats):
            _fail(f"seats {seats}: ran {iterations} ISMCTS iterations")


def undocumented(params, text):
    """The names of ``params`` a rules page ``text`` does not state: each in backticks (`name`), a grouped one
    also as its group (`values.XX`, `army.*`)."""
    return [p.name for p in params
            if f"`{p.name}`" not in text and not re.search(rf"`{re.escape(p.name.split('.')[0])}\.", text)]


def documented(name, case, quick=False):
    """The rules page (rules.md in the game's package, ``simcore rules NAME``) states every parameter."""
    missing = undocumented(games.load(name).GAME.params, games.rules_text(name))
    if missing:
        _fail(f"the rules page (simcore rules {name}) does not state {', '.join(missing)}; allowed: each "
              "parameter in backticks (`name`), a grouped one also as `group.*`")


# --- which checks, and running them ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Check:
    """One conformance check: ``run(name, case, quick)``; ``every_case``: played for every parameter case (else
    once, with the defaults); ``unless(module)``: why it does not apply to a game, or "" where it does."""

    name: str
    run: Callable
    every_case: bool = True
    unless: Callable = lambda module: ""
    searching: bool = False     # plays the searching agents (their copy of the game loop): the full check only


def _without(flag, what):
    return lambda module: "" if getattr(module.GAME, flag) else f"{module.GAME.name} declares no {what}"


def _interface(seating):
    def run(name, case, quick=False):
        interface(name, case, quick, seating)
    return run


CHECKS = (
    *(Check(f"interface-{seating}", _interface(seating)) for seating in ("random", "greedy", "mixed")),
    Check("resample", resample),
    Check("evaluate", evaluate, unless=_without("evaluate", "evaluate")),
    Check("greedy-sees-its-seat", greedy, unless=_without("heuristic", "heuristic")),
    Check("greedy-among", greedy_among, unless=_without("restricted_greedy", "restricted greedy")),
    Check("own-random-action", random_action, every_case=False,
          unless=lambda module: "" if "random_action" in vars(module) else
          f"{module.GAME.name} draws with the agents' uniform pick itself"),
    Check("own-random-game", random_games, unless=lambda module: "" if hasattr(module, "random_game") else
          f"{module.GAME.name} plays its random games through the game loop"),
    Check("action-words", action_words),
    Check("observed-actions", observed_actions),
    Check("reveals", reveals, unless=_without("observations", "hidden actions")),
    Check("rewind", rewound, unless=_writes("rewind", "nothing to take back")),
    Check("dealt", deals, unless=_writes("dealt", "its actions deal nothing face up")),
    Check("picture", picture, every_case=False),
    Check("threads", threads, every_case=False, searching=True),
    Check("handle", through_the_handle, every_case=False),
    Check("searches-legal", searches_legal, every_case=False, searching=True),
    Check("openspiel", against_openspiel, unless=_openspiel),
    Check("traced", traced, unless=_without("trace", "trace")),
    Check("searching-traced", searching_traced, every_case=False, unless=_without("trace", "trace"),
          searching=True),
    Check("params-documented", documented, every_case=False),
)


def plan(name):
    """(check, case) of every check for game ``name``, in the order they run: each check over the cases that it
    plays, the defaults first."""
    every = cases(name)
    return [(check, case) for check in CHECKS for case in (every if check.every_case else every[:1])]


@dataclass(frozen=True)
class CheckRecord:
    """What one check said of one case: ``ok`` (a skipped check is ok), ``message`` (the failure, or why it was
    skipped, in one line; "" for a pass) and ``seconds`` it took."""

    check: str
    case: str
    ok: bool
    message: str
    seconds: float
    skipped: bool = False

    def __str__(self):
        status = "skip" if self.skipped else "ok" if self.ok else "FAIL"
        said = f": {self.message}" if self.message else f"  {self.seconds:.1f} s"
        return f"{status:<4} {self.check} [{self.case}]{said}"


@dataclass(frozen=True)
class GameCheck:
    """The result of :func:`check_game`: the ``game``, whether ``quick``, and one :class:`CheckRecord` per check
    and case (``records``)."""

    game: str
    quick: bool
    records: tuple

    @property
    def passed(self):
        return all(record.ok for record in self.records)

    @property
    def failures(self):
        return tuple(record for record in self.records if not record.ok)


def _one_line(error, most=400):
    """What an error says, on one line of at most ``most`` characters (numba's compile errors run to pages); an
    ``AssertionError`` without words says where it was raised."""
    words = " ".join(str(error).split())
    if not isinstance(error, AssertionError):
        words = f"{type(error).__name__}: {words}"
    elif not words:
        frame = error.__traceback__
        while frame.tb_next is not None:
            frame = frame.tb_next
        words = f"an assertion failed at {frame.tb_frame.f_code.co_filename}:{frame.tb_lineno}"
    return words if len(words) <= most else words[:most - 4] + " ..."


def _timed(check, case, run):
    """The :class:`CheckRecord` of ``run()``: ok unless it raises (:class:`Skipped`: skipped, with its words)."""
    start = time.perf_counter()
    try:
        run()
    except Skipped as e:
        return CheckRecord(check, case, True, str(e), time.perf_counter() - start, skipped=True)
    except Exception as e:     # a crash of the game's code fails its check, as an assertion does
        return CheckRecord(check, case, False, _one_line(e), time.perf_counter() - start)
    return CheckRecord(check, case, True, "", time.perf_counter() - start)


QUICK_LEAVES = ("--quick compiles the game loop of random and greedy seats only, not the searching agents' copy "
                "(the full check plays them)")


def _record(check, name, case, quick):
    reason = check.unless(games.load(name)) or (QUICK_LEAVES if quick and check.searching else "")
    if reason:
        return CheckRecord(check.name, case_label(case), True, reason, 0.0, skipped=True)
    return _timed(check.name, case_label(case), lambda: check.run(name, case, quick))


def load(name, on_compile=None, quick=False):
    """Load game ``name`` (its contract checked) and every game loop the checks play, from numba's cache or
    compiled first: the plain copy and the whole one, traced and not (where the game declares a trace), and the
    checked one-thread batch of ``searches-legal``; with ``quick``, the plain copy alone, as the quick checks
    play no searching agent (an author's edit compiles in seconds). ``on_compile(name)`` is called once, before
    the first that compiles (a first run compiles for minutes)."""
    module = games.load(name)
    gaps = agents.search_gaps(module.GAME)
    if gaps:
        raise ValueError(f"game {name!r} has {'; '.join(gaps)}")
    told = []

    def tell(game):
        if on_compile is not None and not told:
            told.append(game)
            on_compile(game)

    own = "greedy" if module.GAME.heuristic else "random"
    for spec in (own,) if quick else (own, "ismcts:iterations=2"):
        run = cfg.resolve(name, policies=[("all", own), (0, spec)])
        for traced_too in (False, True) if module.GAME.trace else (False,):
            engine.load(module, run.params_array(), run.policies_array(), tell, traced=traced_too)
    if quick:
        return
    searching = cfg.resolve(name, policies=[("all", own), (0, "ismcts:iterations=2")])
    search_batch = bind(module, checked=True).search_batch
    args = (searching.params_array(), searching.policies_array(), np.int64(0), np.int64(0), np.int64(0))
    if not jit.cached(search_batch, *args):
        tell(name)
    search_batch(*args)


def check_game(name, quick=False, on_compile=None, on_record=None):
    """Run every check on game ``name`` for each of its cases (:func:`plan`) and return a :class:`GameCheck`.
    Its first record, ``loads``, is the contract and the compile (:func:`load`): when it fails, nothing else runs.

    ``quick``: a quarter of each check's games and none of the searching agents' (``Check.searching``), so that
    an edit compiles only the plain game loop, for an author iterating (the full check before a release).
    ``on_compile(name)``: told before the game compiles; ``on_record(record)``: each :class:`CheckRecord` as it
    is made. A failing check does not stop the others."""
    if name not in games.names():
        raise ValueError(f"unknown game {name!r}; allowed: {', '.join(games.names())}")
    records = []

    def add(record):
        records.append(record)
        if on_record is not None:
            on_record(record)

    add(_timed("loads", "default", lambda: load(name, on_compile, quick)))
    for check, case in plan(name) if records[0].ok else ():
        add(_record(check, name, case, quick))
    return GameCheck(name, quick, tuple(records))
