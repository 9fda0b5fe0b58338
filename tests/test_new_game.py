"""Issue 39, item 1: a designer's game lives in its own package. ``simcore new-game NAME --out DIR`` writes an
installable package (a working copy of Goofspiel, renamed); installed, it registers through the entry point group
``simcore.games`` as simcore's own games do, and every command knows it. Here the package is made known as pip
would (its folder on the path and a distribution's metadata naming the entry point), in processes of their own, so
no other test sees an extra game; compiling it is left to ``simcore check`` (docs/how-to/adding-a-game.md)."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import simcore
from simcore import games, newgame
from tests.conftest import simcore_cli


def test_simcores_own_games_register_through_the_entry_point_group():
    """One path: simcore's pyproject registers its five games in the group any game package uses."""
    with open("pyproject.toml", "rb") as f:
        declared = tomllib.load(f)["project"]["entry-points"][games.GROUP]
    assert declared == games.BUILT_IN and list(games.MODULES)[:5] == list(games.BUILT_IN)


def _installed(package, site, name):
    """The environment of a process in which the package in folder ``package`` is installed as pip -e would make
    it: on the path, with a distribution's metadata in ``site`` that names its entry point."""
    info = site / f"simcore_{name}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: simcore-{name}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(f"[{games.GROUP}]\n{name} = {name}\n")
    path = os.pathsep.join([str(package), str(site), os.environ.get("PYTHONPATH", "")])
    return {"PYTHONPATH": path}


def test_a_new_game_is_a_package_that_every_command_knows_once_installed(tmp_path):
    written = simcore_cli("new-game", "kuhn_poker", "--out", tmp_path / "kp")
    assert written.returncode == 0, written.stderr
    assert "next: pip install -e " in written.stdout
    files = {str(p.relative_to(tmp_path / "kp")) for p in (tmp_path / "kp").rglob("*") if p.is_file()}
    assert files == set(newgame.files_of("kuhn_poker"))
    with open(tmp_path / "kp" / "pyproject.toml", "rb") as f:
        assert tomllib.load(f)["project"]["entry-points"][games.GROUP] == {"kuhn_poker": "kuhn_poker"}
    assert "simcore.games.goofspiel" not in (tmp_path / "kp" / "kuhn_poker" / "heuristics.py").read_text()
    env = _installed(tmp_path / "kp", tmp_path / "site", "kuhn_poker")
    listed = simcore_cli("games", "kuhn_poker", env=env, process=True)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("kuhn_poker: kuhn_poker (still Goofspiel: the template)")
    rules = simcore_cli("rules", "kuhn_poker", env=env, process=True)
    assert rules.returncode == 0 and "num_cards" in rules.stdout
    loaded = simcore_cli("games", env=env, process=True)
    assert loaded.stdout.count("\n  players:") == len(games.BUILT_IN) + 1
    assert "kuhn_poker" not in simcore_cli("games").stdout            # not installed here


def test_a_registered_package_gets_a_cache_folder_of_its_own(tmp_path):
    """The game's machine code goes into its own folder of the cache, named by its package: compiling it
    compiles no other game, and an edit of it recompiles it alone."""
    newgame.write("kuhn_poker", tmp_path / "kp")
    env = _installed(tmp_path / "kp", tmp_path / "site", "kuhn_poker")
    probe = ("import simcore.games as g; m = g.load('kuhn_poker'); "
             "print(m.rules.legal_actions._cache._impl.locator.get_cache_path())")
    done = subprocess.run([sys.executable, "-c", probe], env={**os.environ, **env}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"/{simcore.game_folder('kuhn_poker', tmp_path / 'kp' / 'kuhn_poker')}/" in done.stdout


@pytest.mark.parametrize("name, why", [("zwai", "is a registered game already"), ("Kuhn", "cannot name a game"),
                                       ("json", "the name of a Python module"), ("class", "cannot name a game")])
def test_a_name_that_cannot_name_a_new_game_is_refused(tmp_path, name, why):
    done = simcore_cli("new-game", name, "--out", tmp_path / "x")
    assert done.returncode != 0 and why in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_a_folder_with_files_is_refused_and_kept(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "mine.txt").write_text("mine")
    done = simcore_cli("new-game", "kuhn_poker", "--out", tmp_path / "x")
    assert done.returncode != 0 and "is not an empty folder" in done.stderr
    assert [p.name for p in (tmp_path / "x").iterdir()] == ["mine.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["x"]       # no half-written package beside it


def test_the_minimal_template_is_the_kuhn_poker_of_its_page():
    """Issue 54: `new-game --minimal` writes the contract's required parts only, the Kuhn poker that
    docs/how-to/kuhn-poker.md builds: the template simcore ships is that page's listings, line for line."""
    import re
    from importlib.resources import files

    page = (Path(__file__).resolve().parents[1] / "docs" / "how-to" / "kuhn-poker.md").read_text(encoding="utf-8")
    listed = {title: body for title, body in
              re.findall(r'^```(?:python|markdown) title="kuhn-poker/kuhn_poker/([^"]+)"\n(.*?)^```', page,
                         re.S | re.M)}
    shipped = files("simcore.templates") / "minimal"
    assert {name: (shipped / f"{name}.tmpl").read_text(encoding="utf-8") for name in newgame.MINIMAL_SOURCES} == \
        {name: listed[name] for name in newgame.MINIMAL_SOURCES}


def test_a_minimal_new_game_passes_its_checks_once_installed(tmp_path):
    """`simcore new-game NAME --minimal`: four files of the game (no heuristic, picture or trace), renamed, that
    pass `simcore check NAME --quick` as written; its README names what each file holds."""
    written = simcore_cli("new-game", "tiny_cards", "--out", tmp_path / "tc", "--minimal")
    assert written.returncode == 0, written.stderr
    assert "a copy of Kuhn poker, the contract's required parts only," in written.stdout
    package = sorted(p.name for p in (tmp_path / "tc" / "tiny_cards").iterdir())
    assert package == ["__init__.py", "rules.md", "rules.py", "text.py"]
    assert "from kuhn_poker" not in (tmp_path / "tc" / "tiny_cards" / "__init__.py").read_text()
    assert "`{name}/rules.py`".format(name="tiny_cards") in (tmp_path / "tc" / "README.md").read_text()
    env = _installed(tmp_path / "tc", tmp_path / "site", "tiny_cards")
    checked = simcore_cli("check", "tiny_cards", "--quick", env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "skip greedy-sees-its-seat" in checked.stdout and "skip picture" not in checked.stdout


def test_each_file_of_the_template_says_which_of_its_names_the_contract_asks_for():
    """Issue 54: the template was 830 lines of Goofspiel still named Goofspiel: each file now opens by naming the
    contract's names it defines (keep them) and saying that the others are Goofspiel's own (rename or drop)."""
    package = newgame.files_of("mygame")
    head = {path: " ".join(line.lstrip("# ") for line in text.splitlines() if line.startswith("#"))
            for path, text in package.items() if path.endswith(".py") and path.startswith("mygame/")}
    names = "WORK_SIZE, greedy_action, greedy_among, evaluate"
    assert f"The game contract's names here: {names}" in head["mygame/heuristics.py"]
    assert "draw_board (keep each name" in head["mygame/picture.py"]
    for name in ("begin", "legal_actions", "apply_action", "returns", "write_row", "GAME", "params_array"):
        assert f" {name}," in head["mygame/rules.py"] or f" {name} (" in head["mygame/rules.py"], name
    assert all("Goofspiel's own: rename or drop it" in head[p] for p in head if not p.endswith("__init__.py"))


def test_an_authors_tests_run_beside_another_simcore_folder_as_the_readme_says(tmp_path):
    """Issue 54: pytest from a folder that holds a `simcore/` directory (an author working beside a checkout)
    imported that folder's simcore. The package's pyproject has pytest import tests without putting their folder
    first on the path (importlib mode), and its README says `pytest tests`: run so, the installed simcore is
    the one imported; without the option, the folder's."""
    (tmp_path / "simcore").mkdir()
    (tmp_path / "simcore" / "__init__.py").write_text('raise ImportError("the simcore of the working folder")\n')
    (tmp_path / "test_mine.py").write_text("import simcore.testing\n\n\ndef test_it():\n"
                                           "    assert simcore.testing.cases('goofspiel')[0] == {}\n")
    package = newgame.files_of("mygame")
    assert "pytest tests" in package["README.md"]
    (tmp_path / "pyproject.toml").write_text(package["pyproject.toml"])
    pytest = Path(sys.executable).parent / "pytest"         # the command, as the README says it
    done = subprocess.run([pytest, "-q", "-p", "no:cacheprovider", "test_mine.py"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    (tmp_path / "pyproject.toml").unlink()                  # without the template's pytest options
    shadowed = subprocess.run([pytest, "-q", "-p", "no:cacheprovider", "test_mine.py"], cwd=tmp_path,
                              capture_output=True, text=True)
    assert shadowed.returncode != 0 and "the simcore of the working folder" in shadowed.stdout + shadowed.stderr
