"""Issue 54: one sitting of the tutorial compiled Zwai six times, each a wait of its own announced alike.
`simcore warm` compiles the copies a study will play up front, the games in parallel processes, naming each copy
as it is ready; afterwards the study compiles nothing."""

from tests.conftest import simcore_cli


def test_warm_compiles_every_copy_asked_for_and_the_study_then_compiles_nothing(tmp_path):
    done = simcore_cli("warm", "goofspiel", "--trace")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("warm: the copies of goofspiel (random and greedy seats, traced)")
    ready = next(line for line in lines if line.startswith("  goofspiel ready ("))
    for copy in ("game loop of random seats", "traced game loop of random seats",
                 "game loop of random and greedy seats", "traced game loop of random and greedy seats"):
        assert f"; {copy} " in f"; {ready.split('): ', 1)[1]}", ready
    assert lines[-1].startswith("warm: 4 copies of 1 game ready in ")
    study = simcore_cli("run", "goofspiel", "--games", "3", "--trace", "--out", tmp_path / "g.parquet", process=True)
    assert study.returncode == 0 and "compiling" not in study.stderr, study.stderr


def test_warm_search_compiles_the_copy_with_every_agent_alone_and_it_serves_every_seat(tmp_path):
    """Issue 57: the tutorial's `warm zwai --search --trace` compiled six copies; the copy with every agent plays
    random and greedy seats as fast as their own copies, so with --search it is the one compiled, traced and not,
    and random, greedy and searching seats then compile nothing."""
    done = simcore_cli("warm", "goofspiel", "--search", "--trace")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("warm: the copies of goofspiel (every agent, which serves random, greedy and "
                               "searching seats, traced)")
    ready = next(line for line in lines if line.startswith("  goofspiel ready ("))
    for copy in ("game loop with every agent", "traced game loop with every agent"):
        assert f"; {copy} " in f"; {ready.split('): ', 1)[1]}", ready
    assert lines[-1].startswith("warm: 2 copies of 1 game ready in ")
    for seats in (["--policy", "1=ismcts:iterations=2"], ["--policy", "random"]):
        study = simcore_cli("run", "goofspiel", *seats, "--games", "3", "--trace", "--out", tmp_path / "g.parquet",
                            process=True)
        assert study.returncode == 0 and "compiling" not in study.stderr, study.stderr


def test_warm_of_an_unknown_game_is_one_line():
    done = simcore_cli("warm", "goofspiel", "chess")
    assert done.returncode != 0 and done.stderr.strip().splitlines() == [
        "Error: unknown game 'chess'; allowed: zwergen, zwai, wichtel, skirmish, goofspiel"]


def test_a_games_copies_are_shared_over_the_cores_the_longest_apart():
    """Issue 57: `warm zwai --trace` compiled its copies one after the other on a 2-core machine. With more cores
    than games a game's copies go to several processes, the copies with every agent (the longest compiles) in
    different ones."""
    from simcore.engine import binding
    from simcore.games import zwai
    from simcore.studies import warm

    listed = warm.copies(zwai, trace=True)
    assert len(listed) == 4 and not any(uses for _, uses, _ in listed)
    searching = warm.copies(zwai, search=True, trace=True)     # and Zwai's own whole random games
    assert [(seats, uses, traced) for seats, uses, traced in searching] == [
        ([("all", "greedy")], binding.EVERY, False), ([("all", "greedy")], binding.EVERY, True),
        ([("all", "random")], None, False)]
    first, second = warm.shares(listed + searching, 2)
    assert sorted(first + second, key=str) == sorted(listed + searching, key=str)
    assert (len(first), len(second)) == (4, 3)
    assert [uses for _, uses, _ in first].count(binding.EVERY) == 1
    assert warm.shares(listed, 1) == [listed]
