"""The numba cache: one folder per source version, older versions pruned, `simcore cache` shows and clears it."""

import ast
import importlib
import os
import shutil
import time
from pathlib import Path

import pytest
from numba.core.dispatcher import Dispatcher

import simcore
from simcore import games


def _isolated(tmp_path):
    """A cache root of the test's own; the folder this test process uses is not handed down."""
    env = {"XDG_CACHE_HOME": str(tmp_path), "NUMBA_CACHE_DIR": None}
    return env, tmp_path / "simcore"


def _fake_versions(root, ages_s, prefix="old"):
    folders = []
    for k, age in enumerate(ages_s):
        folder = root / f"numba-{prefix}{k:02d}"
        folder.mkdir(parents=True)
        (folder / simcore.MARKER).touch()
        (folder / "index.nbi").write_bytes(b"x" * 1000)
        stamp = time.time() - age
        os.utime(folder, (stamp, stamp))
        folders.append(folder)
    return folders


def test_older_source_versions_are_pruned_keeping_the_newest_few(cli, tmp_path):
    env, root = _isolated(tmp_path)
    hours = [3600 * (2 + k) for k in range(6)]           # six versions last used 2..7 hours ago
    old = _fake_versions(root, hours)
    recent = _fake_versions(root, [60], prefix="recent")[0]   # used a minute ago
    result = cli("cache", env=env)
    assert result.returncode == 0, result.stderr
    kept = {f.name for f in root.glob("numba-*")}
    current = {name for name in kept if not name.startswith(("numba-old", "numba-recent"))}
    assert len(current) == 1                              # this version's folder
    # the newest KEEP_CACHES versions stay (this one and the next most recent), and so does any folder
    # used within the hour, which a running process may still be writing to
    newest_old = {f.name for f in old[:simcore.KEEP_CACHES - 2]}
    assert kept == current | {recent.name} | newest_old


def test_cache_command_prints_location_and_clears(cli, tmp_path):
    env, root = _isolated(tmp_path)
    _fake_versions(root, [7200, 7300])
    shown = cli("cache", env=env)
    assert shown.returncode == 0, shown.stderr
    assert f"numba cache: {root}" in shown.stdout
    assert "2 files" in shown.stdout
    cleared = cli("cache", "--clear", env=env)
    assert cleared.returncode == 0, cleared.stderr
    assert "cleared" in cleared.stdout
    assert not list(root.glob("numba-*"))


def test_clearing_removes_only_simcores_own_folders(cli, tmp_path):
    """Issue 36: `cache --clear` emptied a folder it had not made. Under its root only folders holding
    simcore's marker go; a folder or file of the user's beside them stays."""
    env, root = _isolated(tmp_path)
    ours = _fake_versions(root, [7200])[0]
    theirs = root / "numba-mine"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    (root / "keep.txt").write_text("mine")
    assert cli("cache", "--clear", env=env).returncode == 0
    assert not ours.exists()
    assert (theirs / "notes.txt").read_text() == "mine" and (root / "keep.txt").exists()


@pytest.mark.parametrize("name", ["mydata", "numba-x"])
def test_clearing_a_users_numba_cache_dir_removes_numbas_files_only(cli, tmp_path, name):
    """Issue 36: with NUMBA_CACHE_DIR=$PWD/mydata `cache --clear` emptied mydata, and with a folder named
    numba-x it emptied the parent folder. Only numba's index and data files go; nothing above the folder."""
    folder = tmp_path / "parent" / name
    (folder / "sub").mkdir(parents=True)
    (folder / "data.csv").write_text("1,2")
    (folder / "sub" / "f.nbi").write_bytes(b"x")
    (folder / "sub" / "f.1.nbc").write_bytes(b"x")
    (tmp_path / "parent" / "sibling.txt").write_text("mine")
    result = cli("cache", "--clear", env={"XDG_CACHE_HOME": str(tmp_path / "xdg"), "NUMBA_CACHE_DIR": str(folder)})
    assert result.returncode == 0, result.stderr
    assert "numba's files only" in result.stdout
    assert (folder / "data.csv").exists() and (tmp_path / "parent" / "sibling.txt").exists()
    assert not list(folder.rglob("*.nb?"))


def test_the_cache_command_when_the_cache_root_is_a_file(cli, tmp_path):
    """Issue 36: `cache --clear` where the cache folder is a file was a NotADirectoryError traceback."""
    (tmp_path / "simcore").write_text("not a folder")
    env = {"XDG_CACHE_HOME": str(tmp_path), "NUMBA_CACHE_DIR": None, "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    for args in (["cache"], ["cache", "--clear"]):
        result = cli(*args, env=env)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
    assert (tmp_path / "simcore").read_text() == "not a folder"


def _cache_dir_used(cli, env):
    result = cli("cache", env=env)
    assert result.returncode == 0, result.stderr
    return result, result.stdout.split("this version's folder: ")[1].split()[0]


def test_a_fallback_cache_writable_by_others_is_not_used(cli, tmp_path):
    """Issue 36: when the home cache cannot be made simcore fell back to /tmp/simcore-<uid> even when another
    user could write it, and numba then loaded an index planted there. Such a folder is refused: nothing is
    cached, and one line says so."""
    (tmp_path / "home").write_text("a file: no cache can be made under it")
    tmp = tmp_path / "tmp"
    planted = tmp / f"simcore-{os.getuid()}"
    planted.mkdir(parents=True)
    planted.chmod(0o777)
    env = {"XDG_CACHE_HOME": str(tmp_path / "home"), "NUMBA_CACHE_DIR": None, "TMPDIR": str(tmp)}
    result, used = _cache_dir_used(cli, env)
    assert used.startswith("simcore-nocache-"), used
    assert "not a private folder of yours" in result.stderr and "not kept" in result.stderr
    assert result.stderr.count("\n") == 1
    assert not list(planted.iterdir())


def test_a_private_fallback_cache_is_used(cli, tmp_path):
    (tmp_path / "home").write_text("a file")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {"XDG_CACHE_HOME": str(tmp_path / "home"), "NUMBA_CACHE_DIR": None, "TMPDIR": str(tmp)}
    result, used = _cache_dir_used(cli, env)
    assert used.startswith("numba-") and (tmp / f"simcore-{os.getuid()}" / used / simcore.MARKER).is_file()
    assert f"caching in {tmp / f'simcore-{os.getuid()}'} instead" in result.stderr


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to give the fallback folder to another user")
def test_a_fallback_cache_of_another_user_is_not_used(cli, tmp_path):
    (tmp_path / "home").write_text("a file")
    planted = tmp_path / "tmp" / f"simcore-{os.getuid()}"
    planted.mkdir(parents=True, mode=0o700)
    os.chown(planted, 65534, 65534)
    env = {"XDG_CACHE_HOME": str(tmp_path / "home"), "NUMBA_CACHE_DIR": None, "TMPDIR": str(tmp_path / "tmp")}
    result, used = _cache_dir_used(cli, env)
    assert used.startswith("simcore-nocache-") and "not a private folder" in result.stderr


def test_an_unwritable_numba_cache_dir_is_not_handed_to_numba(cli, tmp_path):
    """Issue 36: with a NUMBA_CACHE_DIR it cannot write numba silently wrote its cache into the installed
    package's own folders. simcore caches in its own folder instead and says so in one line."""
    (tmp_path / "file").write_text("x")
    unwritable = tmp_path / "file" / "cache"
    env = {"XDG_CACHE_HOME": str(tmp_path / "home"), "NUMBA_CACHE_DIR": str(unwritable)}
    result, used = _cache_dir_used(cli, env)
    assert used.startswith("numba-")
    assert f"NUMBA_CACHE_DIR={unwritable} is not a folder this process can write" in result.stderr


def test_the_cache_folder_changes_with_the_jitted_source_only(tmp_path):
    """The core folder's hash covers what every game's jitted code is compiled from (simcore.CORE): editing the CLI,
    the reports, the pictures or a game recompiles nothing of the core (issue 23, issue 39), editing the random
    streams, the agents, the registry or a shipped map does."""
    package = tmp_path / "simcore"
    shutil.copytree(Path(simcore.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    before = simcore._source_digest(package)
    for name in ("cli.py", "watch/replay_page.py", "watch/pictures.py", "studies/tune_report.py", "io/config.py",
                 "games/wichtel/text.py", "games/zwai/picture.py", "games/zwai/rules.py",
                 "games/goofspiel/__init__.py"):
        (package / name).write_text((package / name).read_text() + "\n# an edit\n")
    assert simcore._source_digest(package) == before
    for name in ("engine/rng.py", "engine/jit.py", "agents/core.py", "games/__init__.py", "data/yards.toml"):
        edited = package / name
        text = edited.read_text()
        edited.write_text(text + "\n# an edit\n")
        assert simcore._source_digest(package) != before, name
        edited.write_text(text)
    assert simcore._source_digest(package) == before


def test_editing_or_adding_a_game_changes_only_its_own_cache_folder(tmp_path):
    """Issue 39: editing one game (its rules, its heuristics) names a new cache folder for that game alone; adding
    a game changes no other game's folder, nor the core's; its words and picture change none."""
    package = tmp_path / "simcore"
    shutil.copytree(Path(simcore.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))

    def folders():
        return {name: simcore.game_folder(name, package / "games" / name) for name in games.names()}

    core, before = simcore._source_digest(package), folders()
    assert len(set(before.values())) == len(before)
    for name in ("games/zwai/rules.py", "games/zwai/heuristics.py"):
        (package / name).write_text((package / name).read_text() + "\n# an edit\n")
        after = folders()
        assert after["zwai"] != before["zwai"] and {k: v for k, v in after.items() if k != "zwai"} == \
            {k: v for k, v in before.items() if k != "zwai"}
        before = after
    (package / "games/wichtel/text.py").write_text((package / "games/wichtel/text.py").read_text() + "\n# words\n")
    shutil.copytree(package / "games/goofspiel", package / "games/kuhn_poker")
    assert folders() == before and simcore._source_digest(package) == core


def test_each_games_machine_code_is_cached_in_its_own_folder():
    """The cache files: every jitted function of a game's package, and its copy of the agents and game loop, is
    cached in that game's folder inside the core's; the core's own functions (the random streams) outside every
    game's folder. So an edited game leaves every other game's machine code where it was."""
    from numba.core.registry import CPUDispatcher

    from simcore.engine import binding, rng

    root = Path(os.environ["NUMBA_CACHE_DIR"])
    for name in games.names():
        module = games.load(name)
        package = Path(module.__path__[0])
        folder = root / simcore.game_folder(name, package)
        jitted = [f for sub in (module.rules, module) for f in vars(sub).values() if isinstance(f, CPUDispatcher)]
        jitted += [f for f in binding.bind(module).compiled.values() if isinstance(f, CPUDispatcher)]
        assert jitted and folder.is_dir() and (folder / simcore.MARKER).is_file()
        for f in jitted:     # the game's own, and its copies of the agents; a default it takes is the core's
            mine = f.py_func.__module__.startswith(module.__name__)
            where = Path(f._cache._impl.locator.get_cache_path()).parent
            assert where == (folder if mine else root), (name, f.__name__)
        assert sum(f.py_func.__module__.startswith(module.__name__) for f in jitted) > 20
    stream = next(f for f in vars(rng).values() if isinstance(f, CPUDispatcher))
    assert Path(stream._cache._impl.locator.get_cache_path()).parent == root


def test_older_folders_of_a_game_are_pruned_keeping_the_newest_few(tmp_path):
    """A game edited many times leaves one folder per version in the core's: the newest few (and any used within
    the hour) stay, as the core's versions do; another game's folders are not touched."""
    core = tmp_path / "numba-core"
    old = []
    for k, age in enumerate([7200 * (1 + k) for k in range(5)]):
        folder = core / f"game-zwai-old{k}"
        folder.mkdir(parents=True)
        (folder / simcore.MARKER).touch()
        os.utime(folder, (time.time() - age,) * 2)
        old.append(folder)
    other = core / "game-wichtel-x"
    other.mkdir()
    (other / simcore.MARKER).touch()
    os.utime(other, (time.time() - 99_999,) * 2)
    current = simcore.use_game_folder(core, "zwai", "game-zwai-new")
    kept = {f.name for f in core.iterdir()}
    assert kept == {current.name, other.name} | {f.name for f in old[:simcore.KEEP_CACHES - 1]}


def _simcore_imports(file):
    """The simcore modules a source file imports at its top (what importing it loads), by dotted name."""
    names = set()
    for node in ast.parse(file.read_text()).body:
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in names if name.split(".")[0] == "simcore"}


@pytest.mark.parametrize("name", games.names())
def test_a_game_imports_nothing_of_another_game(name):
    """A game's cache folder is named by its own package and the core: its files import simcore's core, its own
    package and nothing of another game (a game importing another's rules would not be recompiled with them)."""
    package = Path(simcore.__file__).parent
    others = {games.MODULES[other].rsplit(".", 1)[1] for other in games.names() if other != name}
    for file in simcore.game_files(package / "games" / name):
        if file.suffix == ".py":
            for module in _simcore_imports(file):
                parts = module.split(".")
                assert parts[:2] != ["simcore", "games"] or len(parts) < 3 or parts[2] not in others, \
                    (file.name, module)


def test_the_jitted_code_imports_nothing_outside_the_hashed_source():
    """Every hashed file imports only simcore modules that are hashed too, or a game's plain words and picture
    (simcore.PLAIN, which compile nothing): a constant the compiled code reads from an imported module cannot
    change without a new cache folder."""
    package = Path(simcore.__file__).parent
    hashed = {file.relative_to(package) for file in simcore.hashed_files(package)}
    for file in simcore.hashed_files(package):
        if file.suffix != ".py":
            continue
        for name in _simcore_imports(file):
            parts = name.split(".")[1:]
            module = Path(*parts).with_suffix(".py") if parts else Path("__init__.py")
            candidates = [module, Path(*parts, "__init__.py")] if parts else [module]
            found = [c for c in candidates if (package / c).exists()]
            if not found:
                continue                              # a name imported from a module, not a module
            assert found[0] in hashed or found[0].name in simcore.PLAIN, (file.relative_to(package), name)


@pytest.mark.parametrize("name", games.names())
def test_a_games_words_and_picture_compile_nothing(name):
    """The files the hash leaves out (simcore.PLAIN: a game's text.py and picture.py) define no jitted function,
    so no machine code is compiled from source that does not name the cache folder."""
    package = games.MODULES[name]
    for part in simcore.PLAIN:
        module = importlib.import_module(f"{package}.{part.removesuffix('.py')}")
        jitted = [key for key, value in vars(module).items()
                  if isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__]
        assert not jitted, (module.__name__, jitted)


def test_the_compile_line_says_why_a_game_compiles(tmp_path, monkeypatch):
    """The first run of a game says so; after an edit of the game alone, that it alone compiles again; after an
    edit of the engine or the agents (a new core folder), that every game compiles again."""
    from numba.core import config

    from simcore.engine.jit import why_compiling

    games.load("zwai")
    core = tmp_path / "numba-new"
    core.mkdir()
    monkeypatch.setattr(config, "CACHE_DIR", str(core))
    assert why_compiling("zwai") == "first run only"
    (tmp_path / "numba-old" / "game-zwai-0123").mkdir(parents=True)
    assert why_compiling("zwai").startswith("the shared core (the engine, the agents or numba) changed since it was")
    (core / "game-zwai-4567").mkdir()
    assert why_compiling("zwai") == "zwai's own source changed since it was compiled here: it alone compiles again"


def test_the_test_session_warms_only_the_games_it_selects():
    """`pytest tests/test_conformance.py -k kuhn_poker` compiles that game alone (issue 39): the games named by the
    test files or -k, else every game."""
    from types import SimpleNamespace

    from tests.conftest import _warm_halves

    def warmed(args, keyword=""):
        return sorted(g for half in _warm_halves(SimpleNamespace(args=args, option=SimpleNamespace(keyword=keyword)))
                      for g in half)

    assert warmed(["tests/test_conformance.py"], "zwai and not slow") == ["zwai"]
    assert warmed(["tests/test_wichtel_rules.py", "tests/test_zwergen_reference.py"]) == ["wichtel", "zwergen"]
    assert warmed(["tests"]) == sorted(games.names())
