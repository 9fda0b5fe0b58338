"""Issue 54: one sitting of the tutorial compiled Zwai six times, each a wait of its own announced alike.
`simcore warm` compiles the copies a study will play up front, the games in parallel processes, naming each copy
as it is ready; afterwards the study compiles nothing."""

from tests.conftest import simcore_cli


def test_warm_compiles_every_copy_asked_for_and_the_study_then_compiles_nothing(tmp_path):
    done = simcore_cli("warm", "goofspiel", "--search", "--trace")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("warm: the copies of goofspiel (random and greedy seats, searching, traced)")
    ready = next(line for line in lines if line.startswith("  goofspiel ready ("))
    for copy in ("game loop of random seats", "traced game loop of random and greedy seats",
                 "game loop with the searching agents", "traced game loop with the searching agents"):
        assert f"; {copy} " in f"; {ready.split('): ', 1)[1]}", ready
    assert lines[-1].startswith("warm: 6 copies of 1 game ready in ")
    study = simcore_cli("run", "goofspiel", "--policy", "1=ismcts:iterations=2", "--games", "3", "--trace",
                        "--out", tmp_path / "g.parquet", process=True)
    assert study.returncode == 0 and "compiling" not in study.stderr, study.stderr


def test_warm_of_an_unknown_game_is_one_line():
    done = simcore_cli("warm", "goofspiel", "chess")
    assert done.returncode != 0 and done.stderr.strip().splitlines() == [
        "Error: unknown game 'chess'; allowed: zwergen, zwai, wichtel, skirmish, goofspiel"]
