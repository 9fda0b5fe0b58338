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
    assert len(binding.bind(module).run_plain.signatures) == 1      # greedy seats only: the plain copy (no search)


@pytest.mark.parametrize("game", games.names())
def test_the_plain_copy_plays_the_games_of_the_whole_one(game):
    """A run whose seats are all random or greedy takes the game's plain copy, which compiles no search
    (issue 23: compile only what runs); for those seats it gives the rows of the whole copy, game by game."""
    run = cfg.resolve(game, policies=[("all", "greedy"), ("0", "random")], games=60, seed=3)
    params, agents = run.params_array(), run.policies_array()
    assert engine.batch_function(run.module, agents) is binding.bind(run.module).run_plain
    whole = np.zeros((60, engine.width(run.module)), dtype=np.int64)
    binding.bind(run.module).run_batch(params, agents, np.int64(3), np.int64(0), whole)
    assert np.array_equal(engine.run(run.module, params, agents, 3, 60), whole)
    searching = cfg.resolve(game, policies=[("all", "greedy"), ("1", "mc:rollouts=1")])
    assert engine.batch_function(run.module, searching.policies_array()) is binding.bind(run.module).run_batch


@pytest.mark.parametrize("game", games.names())
def test_the_random_copy_plays_the_games_of_the_whole_one_and_compiles_no_greedy(game):
    """A run whose seats are all random (the default) takes the game's random copy, whose first compile skips the
    game's greedy (issue 41: a first run in seconds): its ``decide`` is built with PLAYS_GREEDY off, a branch
    numba prunes before typing it. It gives the rows of the whole copy, game by game, traced or not."""
    run = cfg.resolve(game, games=60, seed=5)
    params, agents = run.params_array(), run.policies_array()
    bound = binding.bind(run.module)
    assert engine.batch_function(run.module, agents) is bound.run_random
    assert engine.batch_function(run.module, agents, traced=True) is bound.run_random_traced
    whole = np.zeros((60, engine.width(run.module)), dtype=np.int64)
    bound.run_batch(params, agents, np.int64(5), np.int64(0), whole)
    assert np.array_equal(engine.run(run.module, params, agents, 5, 60), whole)
    [(_, traced, _)] = engine.run_traced_blocks(run.module, params, agents, 5, 60)
    assert np.array_equal(traced, whole)
    assert bound.random["decide"].py_func.__globals__["PLAYS_GREEDY"] is False
    assert bound.plain["decide"].py_func.__globals__["PLAYS_GREEDY"] is True
    with_greedy = cfg.resolve(game, policies=[("0", "greedy")])
    assert engine.batch_function(run.module, with_greedy.policies_array()) is bound.run_plain


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
