"""Issue 54: one sitting of the tutorial compiled Zwai six times, each a wait of its own announced alike.
`simcore warm` compiles the copies a study will play up front, the games in parallel processes, naming each copy
as it is ready; afterwards the study compiles nothing."""

from tests.conftest import simcore_cli


def test_warm_compiles_every_copy_asked_for_and_the_study_then_compiles_nothing(tmp_path):
    done = simcore_cli("warm", "goofspiel", "--trace")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("warm: the copies of goofspiel (random and greedy seats, traced, the replay pages' "
                               "agents)")
    ready = next(line for line in lines if line.startswith("  goofspiel ready ("))
    # (the suite's cache holds the copy with every agent, which serves greedy seats: the untraced copy is that one)
    assert ready.split("): ", 1)[1].startswith(("game loop of random and greedy seats ", "game loop with every agent "))
    for copy in ("traced game loop of random and greedy seats", "agents for the replay pages"):
        assert f"; {copy} " in f"; {ready.split('): ', 1)[1]}", ready
    assert lines[-1].startswith("warm: 3 copies of 1 game ready in ")
    for seats in ("random", "greedy"):         # the copy of greedy seats serves random ones too
        study = simcore_cli("run", "goofspiel", "--policy", seats, "--games", "3", "--trace", "--out",
                            tmp_path / "g.parquet", process=True)
        assert study.returncode == 0 and "compiling" not in study.stderr, study.stderr
    replay = simcore_cli("replay", tmp_path / "g.parquet", "--index", "1", "--quiet", "--html", tmp_path / "g.html",
                         process=True)
    assert replay.returncode == 0 and "compiling" not in replay.stderr, replay.stderr


def test_warm_search_compiles_the_copy_with_every_agent_and_it_serves_every_seat(tmp_path):
    """Issue 57: the tutorial's `warm zwai --search --trace` compiled six copies; the copy with every agent plays
    random and greedy seats as fast as their own copies, so with --search it is compiled in their place, and
    random, greedy and searching seats then compile nothing."""
    done = simcore_cli("warm", "goofspiel", "--search")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("warm: the copies of goofspiel (every agent, which serves random, greedy and "
                               "searching seats, the replay pages' agents)")
    ready = next(line for line in lines if line.startswith("  goofspiel ready ("))
    for copy in ("game loop with every agent", "agents for the replay pages"):
        assert f"; {copy} " in f"; {ready.split('): ', 1)[1]}", ready
    assert lines[-1].startswith("warm: 2 copies of 1 game ready in ")
    for seats in ("1=ismcts:iterations=2", "random", "greedy"):
        study = simcore_cli("run", "goofspiel", "--policy", seats, "--games", "3", "--out", tmp_path / "g.parquet",
                            process=True)
        assert study.returncode == 0 and "compiling" not in study.stderr, study.stderr


def test_warm_of_an_unknown_game_is_one_line():
    done = simcore_cli("warm", "goofspiel", "chess")
    assert done.returncode != 0 and done.stderr.strip().splitlines() == [
        "Error: unknown game 'chess'; allowed: zwergen, zwai, wichtel, skirmish, goofspiel"]


def test_a_games_copies_are_shared_over_the_cores_the_longest_apart():
    """Issue 57: `warm zwai --search --trace` compiled its copies one after the other on a 2-core machine. With more
    cores than games a game's copies go to several processes, the copy with every agent (the longest compile)
    alone where it can be, the others to the share with the least to compile."""
    from simcore.engine import binding
    from simcore.games import zwai
    from simcore.studies import warm

    greedy, random = [("all", "greedy")], [("all", "random")]
    listed = warm.copies(zwai, search=True, trace=True)
    assert listed == [(greedy, binding.EVERY, False), (greedy, None, True), (greedy, warm.REPLAYS, False),
                      (random, None, False)]         # the last: Zwai's own whole random games
    first, second = warm.shares(listed, 2)
    assert first == [(greedy, binding.EVERY, False)]
    assert sorted(second, key=str) == sorted(listed[1:], key=str)
    assert warm.shares(listed, 1) == [listed]
    assert len(warm.copies(zwai)) == 3
