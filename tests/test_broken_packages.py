"""Issue 52, cases 6 to 9: a game package can't break simcore. Each broken package here is made by ``simcore
new-game`` (a working copy of Goofspiel), broken on purpose in its rules.py, and installed as pip would for
processes of their own (tests/test_new_game.py ``_installed``), so no other test sees it: a syntax error, a missing
``legal_actions``, ``player_counts=()``, an entry point naming a missing module, a game that never ends, one that
offers no legal action, one that offers action 999; and entry points that shadow, are no names, or collide."""

import os
import re
import signal
import subprocess
import sys
import time
import uuid

import pyarrow.parquet as pq
import pytest

from simcore import newgame
from simcore.games import defaults
from tests.conftest import simcore_cli, wait_for
from tests.test_new_game import _installed

SHIPPED = 5
APPLY = '''    """Bid card ``action``; after the last seat's bid the trick resolves and the next begins."""\n'''
NEVER_ENDS = (APPLY, APPLY + "    return      # broken on purpose: the state never changes, the game never ends\n")
NO_ACTION = ("    return n\n", "    return 0    # broken on purpose: no legal action\n")
CODE_999 = ("            out[n] = card\n",
            "            out[n] = 999 if card == 0 else card    # broken on purpose: not a code of the game\n")
OWN_RANDOM = ("def random_action(", "def unused_random_action(")      # random seats draw from legal_actions
UNCHECKED = {"SIMCORE_CHECK_LEGAL": "0"}      # the build users run: the loop's checks hold without the checked one
PLAYING = 5         # seconds after which a command of the never-ending game is playing (its copy cached by then)


def _package(folder, name, *edits):
    """The environment of a process in which game ``name``, made by simcore new-game in ``folder`` and its rules.py
    changed by ``edits`` ((old, new) pairs), is installed."""
    written = simcore_cli("new-game", name, "--out", folder / name)
    assert written.returncode == 0, written.stderr
    rules = folder / name / name / "rules.py"
    text = rules.read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    rules.write_text(text)
    return _installed(folder / name, folder / f"site-{name}", name)


def _said(stderr):
    """The lines of ``stderr`` but what a first run says of its compile (a cold cache's)."""
    return [line for line in stderr.strip().splitlines() if not line.lstrip().startswith(("compiling",
                                                                                          "still compiling"))]


def _one_line_error(done, *words):
    """The command failed in one line holding ``words`` (after what a first run says of its compile)."""
    assert done.returncode != 0, done.stdout
    lines = _said(done.stderr)
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def never_ends(tmp_path_factory):
    """A game whose apply_action never ends it, with the engine's default step cap."""
    return _package(tmp_path_factory.mktemp("never"), "never_ends", NEVER_ENDS)


# --- case 6: a package that cannot be loaded ------------------------------------------------------------------------

@pytest.mark.parametrize("name, edits, why", [
    ("syntax_error", [("def legal_actions(state, params, out):", "def legal_actions(state, params, out:")],
     "SyntaxError: '(' was never closed (rules.py, line"),
    ("no_legal", [("def legal_actions(", "def listed_actions(")], "it does not provide legal_actions; allowed:"),
    ("no_players", [("player_counts=(2, 3, 4),", "player_counts=(),")],
     "it does not provide one or more player counts (GameType.player_counts)"),
])
def test_a_package_that_cannot_be_loaded_is_named_and_the_others_are_listed(tmp_path, name, edits, why):
    """Issue 52, case 6 (and case 8's player_counts=()): one broken package ended `simcore games` in a traceback,
    the shipped games unlisted; `run` and `games` of it were tracebacks. The listing names it in one line and lists
    the rest; the commands of it say "game X (package Y) cannot be loaded: ..." in one line."""
    env = _package(tmp_path, name, *edits)
    listed = simcore_cli("games", env=env)
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    assert listed.stdout.count("\n  players:") == SHIPPED
    said = f"game {name} (package {name}) cannot be loaded: {why}"
    assert [line for line in listed.stdout.splitlines() if "cannot be loaded" in line][0].startswith(said)
    for args in (("games", name), ("run", name, "--games", "3", "--out", tmp_path / "x.parquet")):
        _one_line_error(simcore_cli(*args, env=env), said)
    assert not (tmp_path / "x.parquet").exists()


def test_an_entry_point_naming_a_missing_module_is_named(tmp_path):
    """Issue 52, case 6: an entry point to a module that is not there."""
    env = _installed(tmp_path / "nowhere", tmp_path / "site", "ghost")
    listed = simcore_cli("games", env=env)
    assert listed.returncode == 0 and listed.stdout.count("\n  players:") == SHIPPED, listed.stderr
    line = "game ghost (package ghost) cannot be loaded: ModuleNotFoundError: No module named 'ghost'"
    assert line in listed.stdout.splitlines()
    _one_line_error(simcore_cli("run", "ghost", "--games", "3", env=env), line)


def test_a_guessed_plan_is_bounded_by_the_games_that_load(tmp_path):
    """Issue 52, cases 6 and 10: `plan --seats` is bounded by the most players a registered game seats; a broken
    package among them seats no one, and the plan of the others is made (it was its load error)."""
    env = _installed(tmp_path / "nowhere", tmp_path / "site", "ghost")
    done = simcore_cli("plan", "--seats", "5", "--edge", "0.05", env=env)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    _one_line_error(simcore_cli("plan", "--seats", "6", "--edge", "0.05", env=env), "wichtel")


def test_results_of_a_game_not_installed_here_are_analyzed(tmp_path, never_ends):
    """Issue 52, case 6: `analyze` of a result file whose game's package is not installed here was a traceback
    (it read the game's defaults to say which parameters differ); the file holds what the analysis needs."""
    out = tmp_path / "n.parquet"
    assert simcore_cli("run", "never_ends", "--games", "1", "--out", out, "--quiet", env=never_ends).returncode == 0
    done = simcore_cli("analyze", out, "--explain")
    assert done.returncode == 0, done.stderr
    assert "never_ends" in done.stdout and "players=2" in done.stdout


# --- case 7: a game that never ends; signals ------------------------------------------------------------------------

def test_a_game_that_never_ends_is_a_timeout_at_the_step_cap(tmp_path, never_ends):
    """Issue 52, case 7: a game that never ends hung `run`. The engine ends it after MAX_STEPS decisions (here the
    contract's default) as a timeout: timeout 1, no seat's win."""
    out = tmp_path / "n.parquet"
    done = simcore_cli("run", "never_ends", "--games", "2", "--out", out, "--quiet", env=never_ends)
    assert done.returncode == 0, done.stderr
    rows = pq.read_table(out).to_pydict()
    assert rows["timeout"] == [1, 1]
    assert rows["win_0"] == rows["win_1"] == [0, 0]


def test_the_default_step_cap_is_above_every_shipped_games_longest_game():
    """Issue 52, case 7: the cap must change no shipped game's rows. Their longest games: a million turns of Zwai,
    Zwergen or Wichtel (max_turns' top), of at most a few decisions each (Wichtel's moves, the most, 6.6 at most
    measured), the skirmish's 100,000 turns; the default leaves a tenfold margin."""
    assert defaults.MAX_STEPS >= 10 * 7 * 1_000_000


def _signalled(process, signum, seconds=60):
    """Send ``signum`` to ``process``; its outputs once it ended (it must end within ``seconds``)."""
    process.send_signal(signum)
    try:
        return process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise AssertionError(f"signal {signum} did not stop the process within {seconds} s") from None


def _start(args, env):
    return subprocess.Popen([sys.executable, "-m", "simcore", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **env})


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_run_in_a_long_game_stops_at_a_signal_in_one_line(tmp_path, never_ends, signum):
    """Issue 52, case 7: SIGTERM did not stop a run playing a game that never ends (the threads were in jitted
    code, the main thread among them). It stops now, in one line, leaving no temporary or lock file."""
    out = tmp_path / "n.parquet"
    run = _start(("run", "never_ends", "--games", "1000", "--out", out, "--quiet"), never_ends)
    wait_for(lambda: any(p.name.endswith(".tmp") for p in tmp_path.iterdir()), run)
    time.sleep(1)       # playing, past the opening of the result file
    _, err = _signalled(run, signum)
    assert run.returncode != 0 and _said(err) == ["Error: interrupted"], err
    assert list(tmp_path.iterdir()) == []


def test_versus_stops_at_sigint(never_ends):
    """Issue 52, case 7: `versus` ignored SIGINT: its games played on the main thread, in jitted code."""
    process = _start(("versus", "never_ends", "--policy", "random", "--against", "random", "--games", "1000",
                      "--quiet"), never_ends)
    time.sleep(PLAYING)
    _, err = _signalled(process, signal.SIGINT)
    assert process.returncode != 0 and _said(err) == ["Error: interrupted"], err


def test_a_sweep_stops_at_sigterm_and_resumes(tmp_path, never_ends):
    """Issue 52, case 7: `sweep` hung on a game that never ends, and SIGTERM did not stop it (its games played on a
    thread of their own, ahead of the writing). It stops, its folder clean of temporary and lock files."""
    plan = tmp_path / "s.toml"
    plan.write_text('game = "never_ends"\ngames = 1000\n[axes]\nnum_cards = [4, 5]\n')
    out = tmp_path / "runs"
    process = _start(("sweep", plan, "--out", out, "--quiet"), never_ends)
    wait_for(lambda: out.is_dir() and any(p.name.endswith(".tmp") for p in out.iterdir()), process)
    time.sleep(1)       # playing, past the opening of the result file
    _, err = _signalled(process, signal.SIGTERM)
    assert process.returncode != 0 and _said(err) == ["Error: interrupted"], err
    assert [p.name for p in out.iterdir() if p.name.endswith((".tmp", ".lock"))] == []


@pytest.mark.parametrize("command", [("run", "fresh_game", "--games", "10", "--policy", "ismcts"),
                                     ("replay", "fresh_game", "--policy", "ismcts")])
def test_sigterm_during_a_compile_ends_in_one_line(tmp_path, command):
    """Issue 52, case 7: SIGTERM during a compile printed a KeyboardInterrupt traceback (numba runs part of a
    compile in callbacks from C, where the exception is printed and lost) and the compile went on. A run compiles
    on a thread of its own, a replay on the main thread. The game here is new to the cache (a token in its rules),
    so that it compiles."""
    env = _package(tmp_path, "fresh_game")
    rules = tmp_path / "fresh_game" / "fresh_game" / "rules.py"
    rules.write_text(rules.read_text() + f"# a package new to the cache: {uuid.uuid4().hex}\n")
    process = _start(command, env)
    assert process.stderr.readline().startswith("compiling fresh_game")
    time.sleep(2)
    _, err = _signalled(process, signal.SIGTERM)
    assert process.returncode != 0 and "Traceback" not in err and err.strip().splitlines()[-1] == \
        "Error: interrupted", err


# --- case 8: decisions the loop refuses -----------------------------------------------------------------------------

def test_a_decision_with_no_legal_action_is_refused_in_one_line(tmp_path):
    """Issue 52, case 8: a game whose legal_actions offers none wrote 20 games of 0-0 shared wins."""
    env = {**_package(tmp_path, "no_action", NO_ACTION), **UNCHECKED}
    out = tmp_path / "x.parquet"
    done = simcore_cli("run", "no_action", "--games", "20", "--out", out, env=env)
    _one_line_error(done, "game no_action: seat 0 at step 0 of game index 0 has no legal action")
    assert not out.exists()


@pytest.mark.parametrize("policy, said", [
    ("random", r"seat \d at step \d+ of game index \d+ chose action 999, outside the game's codes; allowed: 0 to 15 "),
    ("mc:rollouts=2", "a search played an action outside the game's codes; allowed: 0 to 15 ")])
def test_an_action_outside_the_games_codes_is_never_applied(tmp_path, policy, said):
    """Issue 52, case 8: a game offering action 999 wrote results while its jitted apply_action wrote past its
    state array. The loop refuses the decision in one line naming the game, seat and step; a search's rollout never
    applies it either."""
    env = {**_package(tmp_path, "code_999", CODE_999, OWN_RANDOM), **UNCHECKED}
    out = tmp_path / "x.parquet"
    done = simcore_cli("run", "code_999", "--games", "20", "--policy", policy, "--out", out, env=env)
    assert re.search(f"^Error: game code_999: {said}", _one_line_error(done))
    assert not out.exists()


# --- case 9: entry points left out, collisions; names new-game refuses ----------------------------------------------

def _entry_points(site, lines):
    """A distribution's metadata in ``site`` registering ``lines`` (NAME = MODULE) in simcore's group."""
    info = site / f"simcore_extra{len(list(site.glob('*'))) if site.exists() else 0}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {info.name.partition('-')[0]}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[simcore.games]\n" + "\n".join(lines) + "\n")


def test_entry_points_left_out_or_colliding_are_said_in_one_line_each(tmp_path):
    """Issue 52, case 9: entry points that shadow a shipped game or are not valid names were dropped without a
    word, and two packages registering one name were resolved by sort order silently."""
    site = tmp_path / "site"
    _entry_points(site, ["zwai = my_zwai", "Bad-Name = bad"])
    _entry_points(site, ["twice = pkg_a"])
    _entry_points(site, ["twice = pkg_b"])
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = simcore_cli("games", env=env)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("warning: the entry point")]
    assert len(said) == 3, done.stderr
    assert any("zwai = my_zwai" in line and "it would shadow simcore's own game zwai" in line for line in said)
    assert any("Bad-Name = bad" in line and "'Bad-Name' cannot name a game; allowed:" in line for line in said)
    assert any("twice = pkg_b" in line and "registered by pkg_a too, which is taken" in line for line in said)


@pytest.mark.parametrize("name", ["pip", "setuptools", "test", "tests"])
def test_new_game_refuses_a_name_whose_package_would_hide_another(tmp_path, name):
    """Issue 52, case 9: `simcore new-game pip|setuptools|test|tests` was accepted though such a package hides the
    real one: refused as `os` and `numpy` are."""
    done = simcore_cli("new-game", name, "--out", tmp_path / "x")
    _one_line_error(done, f"{name!r} is the name of a Python module the game's package would hide")
    assert not (tmp_path / "x").exists()
    with pytest.raises(newgame.NewGameError):
        newgame.check_name(name)


def test_an_interrupt_as_a_result_file_opens_leaves_no_traceback_at_exit(tmp_path):
    """Issue 52, case 7: an interrupt that came while a result file was being opened (acted on as its opening
    ends, simcore.io.writing.uninterrupted) closed the file but not its Parquet writer, whose finaliser then wrote
    onto the closed file at exit: an "Exception ignored" traceback after the one line."""
    code = ("import sys; from simcore.io import config, results, writing\n"
            "run = config.resolve('goofspiel', {}, games=10)\n"
            "writing._critical[1] = True     # as if SIGTERM came during the opening\n"
            f"try:\n    results.ResultWriter({str(tmp_path / 'x.parquet')!r}, run).__enter__()\n"
            "except KeyboardInterrupt:\n    print('interrupted')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "interrupted" and done.stderr == "", done.stderr
    assert list(tmp_path.iterdir()) == []
