"""Same (config, seed) -> same rows, whatever the threads, blocks or process; other seeds differ."""

import numpy as np
import pyarrow.parquet as pq
import pytest

import simcore
from simcore import engine, games
from simcore.engine import binding
from simcore.io import config as cfg

FOUR_PRO = {"players": 4, "pro": True}
MIXED = {"*": "greedy", 1: "random"}


def test_same_seed_same_rows():
    a = simcore.simulate("zwergen", games=3000, seed=11, params=FOUR_PRO, policies=MIXED)
    b = simcore.simulate("zwergen", games=3000, seed=11, params=FOUR_PRO, policies=MIXED)
    assert a.equals(b)


def test_different_seeds_differ():
    a = simcore.simulate("zwergen", games=2000, seed=1)
    b = simcore.simulate("zwergen", games=2000, seed=2)
    assert not a.drop_columns(["seed"]).equals(b.drop_columns(["seed"]))
    assert a["n_turns"].to_pylist() != b["n_turns"].to_pylist()


@pytest.mark.parametrize("game, params", [("zwergen", FOUR_PRO), ("zwai", {"players": 4, "formation": "reef"})])
def test_block_split_and_start_index_do_not_change_rows(game, params):
    """A game's row depends on (seed, game_index) only: blocks of 1000, 777 or one block agree, and a run
    that starts at game 1500 reproduces the rows of the longer run."""
    run = cfg.resolve(game, sets=list(params.items()), policies=[("all", "greedy"), ("1", "random")])
    params, policies = run.params_array(), run.policies_array()
    whole = engine.run(run.module, params, policies, 5, 4000)
    for block in (1000, 777):
        parts = [rows for _, rows in engine.run_blocks(run.module, params, policies, 5, 4000, block=block)]
        assert np.array_equal(np.concatenate(parts), whole)
    assert np.array_equal(engine.run(run.module, params, policies, 5, 2500, start=1500), whole[1500:])


@pytest.mark.parametrize("game, sets", [("zwergen", ["players=4", "pro=true"]), ("zwai", ["players=3"])])
def test_thread_count_does_not_change_rows(cli, tmp_path, game, sets):
    """NUMBA_NUM_THREADS=1 and 2 write identical Parquet rows."""
    tables = []
    for threads in (1, 2):
        out = tmp_path / f"t{threads}.parquet"
        options = [arg for s in sets for arg in ("--set", s)]
        done = cli("run", game, *options, "--policy", "greedy",
                   "--policy", "2=random", "--games", "20000", "--seed", "3", "--out", out, "--quiet",
                   env={"NUMBA_NUM_THREADS": str(threads)})
        assert done.returncode == 0, done.stderr
        tables.append(pq.read_table(out))
    assert tables[0].equals(tables[1])
    assert tables[0].schema.metadata == tables[1].schema.metadata


@pytest.mark.parametrize("game, variants", [
    ("zwergen", ({}, {"players": 4, "pro": True}, {"track_half": 12, "deck.add": 1, "re_moves_rope": True})),
    ("zwai", ({}, {"players": 4, "formation": "ring"}, {"formation": "###\n#.#", "fish_counts": [1, 9]})),
])
def test_a_new_variant_does_not_recompile(game, variants):
    """Parameters travel as one int64 array: every config is served by one compiled signature."""
    module = games.load(game)
    for params in variants:
        simcore.simulate(game, games=300, seed=2, params=params, policies={"*": "greedy"})
    greedy = cfg.resolve(game, policies=[("all", "greedy")]).policies_array()
    assert len(engine.batch_function(module, greedy).signatures) == 1    # the copy those seats played


# seatings and the uses of the copy they need (simcore.engine.binding.uses_of)
SEATINGS = (([("all", "random")], set()), ([("all", "greedy"), ("0", "random")], {"greedy"}),
            ([("all", "random"), ("1", "mc:rollouts=1")], {"mc"}),
            ([("all", "random"), ("1", "mc:rollouts=1,cutoff=3")], {"mc", "cut"}),
            ([("all", "greedy"), ("1", "ismcts:iterations=5,rollout=random,cutoff=0,widen=0,tree=raw")],
             {"greedy", "tree"}),
            ([("all", "random"), ("0", "ismcts:iterations=5,rollout=greedy,cutoff=4,widen=0,tree=raw")],
             {"greedy", "tree", "cut"}),
            ([("all", "random"), ("0", "ismcts:iterations=5,rollout=random,cutoff=0,widen=0.5,tree=raw")],
             {"greedy", "tree"}))


OBSERVED_SEATING = ([("all", "random"), ("1", "ismcts:iterations=5,rollout=random,widen=0,tree=observed")],
                    {"observed"})


@pytest.mark.parametrize("game, seatings", [(game, SEATINGS[:2]) for game in games.names()] + [
    ("goofspiel", SEATINGS[2:] + (OBSERVED_SEATING,))])
def test_each_copy_plays_the_games_of_the_whole_one_and_compiles_only_what_its_seats_use(game, seatings):
    """Issue 23, 41, 57: a run compiles only what its seats play: random seats alone (the default), greedy, mc,
    an ISMCTS tree, cut-off playouts. Each copy is built with the flags of the rest off, branches numba prunes
    before typing them, and gives the rows of the whole copy, game by game, traced or not. (Every game's random and
    plain copies; the searches' copies in Goofspiel, which has every capability and compiles fastest.)"""
    module = games.load(game)
    bound = binding.bind(module)
    for seats, uses in seatings:
        run = cfg.resolve(game, policies=seats, games=40, seed=5)
        params, agents = run.params_array(), run.policies_array()
        assert binding.uses_of(agents, bool(module.GAME.observations)) == uses, seats
        assert engine.copy_uses(module, agents) >= uses
        flags = bound.copy(frozenset(uses))["decide"].py_func.__globals__
        assert {use for use, flag in binding.USES.items() if flags[flag]} == uses
        whole = np.zeros((40, engine.width(module)), dtype=np.int64)
        bound.run_batch(params, agents, np.int64(5), np.int64(0), whole)
        own = np.zeros_like(whole)
        bound.runner(frozenset(uses))(params, agents, np.int64(5), np.int64(0), own)
        assert np.array_equal(own, whole), seats
        assert np.array_equal(engine.run(module, params, agents, 5, 40), whole), seats
    run = cfg.resolve(game, games=40, seed=5)
    [(_, traced, _)] = engine.run_traced_blocks(module, run.params_array(), run.policies_array(), 5, 40)
    assert np.array_equal(traced, engine.run(module, run.params_array(), run.policies_array(), 5, 40))


def test_a_run_takes_a_larger_copy_compiled_already_rather_than_compile_its_own(monkeypatch):
    """Issue 57: every copy plays the same games, so a run whose own copy is not compiled yet takes the whole copy
    where that one is (`simcore warm --search` compiles it): a study after it compiles nothing."""
    module = games.load("zwai")
    agents = cfg.resolve("zwai", policies=[("1", "ismcts:iterations=3")]).policies_array()
    needed = binding.uses_of(agents, False)
    assert needed == {"tree"}
    compiled = {binding.EVERY}
    monkeypatch.setattr(binding.Bound, "ready", lambda self, uses, traced, args: uses in compiled)
    assert engine.copy_uses(module, agents) == binding.EVERY
    assert engine.copy_name(module, agents) == "game loop with every agent"
    compiled.add(needed)
    assert engine.copy_uses(module, agents) == needed
    assert engine.copy_name(module, agents) == "game loop with ISMCTS"
    compiled.clear()
    assert engine.copy_uses(module, agents) == needed        # nothing compiled: its own, the smallest


@pytest.mark.parametrize("spec, other", [("mc:rollouts=3", "mc:rollouts=5"),
                                         ("ismcts:iterations=30", "ismcts:iterations=50,c=1.2,rollout=greedy")])
def test_searching_agents_give_the_same_rows_on_any_thread_count_and_block(cli, tmp_path, spec, other):
    """A search draws its worlds and rollouts from its seat's search stream: threads, blocks and the start
    index change nothing, and another budget is another agent, not a recompile."""
    tables = []
    for threads in (1, 2):
        out = tmp_path / f"search{threads}.parquet"
        done = cli("run", "zwai", "--policy", "greedy", "--policy", f"1={spec}", "--games", "300",
                   "--seed", "4", "--out", out, "--quiet", env={"NUMBA_NUM_THREADS": str(threads)})
        assert done.returncode == 0, done.stderr
        tables.append(pq.read_table(out))
    assert tables[0].equals(tables[1])
    run = cfg.resolve("zwai", policies=[("all", "greedy"), ("1", spec)])
    whole = engine.run(run.module, run.params_array(), run.policies_array(), 4, 300)
    assert np.array_equal(engine.run(run.module, run.params_array(), run.policies_array(), 4, 100, start=200),
                          whole[200:])
    assert whole[:, engine.O_WIN + 1].tolist() == tables[0]["win_1"].to_pylist()
    other = cfg.resolve("zwai", policies=[("all", "greedy"), ("1", other)])
    engine.run(other.module, other.params_array(), other.policies_array(), 4, 20)
    assert len(binding.bind(run.module).run_batch.signatures) == 1
