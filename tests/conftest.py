import os
import subprocess
import sys
import time

import pytest

# Every test runs the checked build: each action applied by the game loop and the agents, in the game and in
# every search, must be legal in its state (simcore.agents.core). simcore reads the flag once on import, so it
# is set before any test imports simcore; the simcore processes the tests start inherit it.
os.environ["SIMCORE_CHECK_LEGAL"] = "1"


# Each half of the games compiles in a process of its own, both at once: on a cold cache (CI) a game compiles for
# half a minute or more on one core, and two processes use both cores (tests/warm_cache.py). The halves are
# balanced by compile time, measured cold with both halves at once (Wichtel 142 s, Zwai 89, Zwergen 71, the
# skirmish 70, Goofspiel 50); a game not named here joins the second half.
WARM = (("wichtel", "skirmish"), ("zwai", "zwergen", "goofspiel"))


def _warm_halves(config):
    """The games to warm in two halves: those the command line selects by name (a test file or -k naming them,
    e.g. ``-k kuhn_poker``), else every game, so that testing one game never compiles the others."""
    from simcore import games  # imports no game: setting the flag above first still holds

    named = {game for half in WARM for game in half}
    halves = [WARM[0], WARM[1] + tuple(g for g in games.names() if g not in named)]
    asked = " ".join(map(str, config.args)) + " " + (config.option.keyword or "")
    chosen = {g for g in games.names() if g in asked} or set(games.names())
    return [[g for g in half if g in chosen] for half in halves]


def pytest_sessionstart(session):
    if hasattr(session.config, "workerinput"):      # a pytest-xdist worker: the controller warmed the cache
        return
    script = os.path.join(os.path.dirname(__file__), "warm_cache.py")
    warming = [subprocess.Popen([sys.executable, script, *games], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True) for games in _warm_halves(session.config) if games]
    for process in warming:
        output, _ = process.communicate()
        if process.returncode:      # the tests that use the game will fail with it; say so up front
            print(f"warming the numba cache failed:\n{output}", file=sys.stderr)


def simcore_cli(*args, env=None, cwd=None, process=False):
    """Run the ``simcore`` command as a user would, its exit code and both outputs as a CompletedProcess.

    A test that sets the command's environment (``env`` values of None unset) or folder, or asks for a
    ``process``, gets a fresh process; any other runs in this process through click's runner: the same
    command, without the second of a process start and numba's import. A crash there is raised, never taken
    for a one-line error."""
    if env is not None or cwd is not None or process:
        full_env = {key: value for key, value in {**os.environ, **(env or {})}.items() if value is not None}
        return subprocess.run([sys.executable, "-m", "simcore", *map(str, args)], capture_output=True,
                              text=True, env=full_env, cwd=cwd)
    return _in_process([str(a) for a in args])


def _in_process(args):
    import numba
    from click.testing import CliRunner

    from simcore import cli

    threads = numba.get_num_threads()
    try:
        result = CliRunner().invoke(cli.main, args)
    finally:
        numba.set_num_threads(threads)         # --threads sets this process's numba threads
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(["simcore", *args], result.exit_code, result.stdout, result.stderr)


def start_simcore(*args):
    """``simcore ARGS`` started in a process of its own (to be killed or signalled by the test), outputs piped."""
    return subprocess.Popen([sys.executable, "-m", "simcore", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for(predicate, process, seconds=300):
    """Poll ``predicate`` until it holds; fail if ``process`` ended first or the time ran out."""
    deadline = time.monotonic() + seconds
    while not predicate():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture
def cli():
    return simcore_cli
