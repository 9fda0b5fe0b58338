"""``simcore new-game NAME --out DIR``: a designer's game as an installable package of its own.

The package is a working game from the first minute: a copy of Goofspiel's package (the template of
docs/how-to/adding-a-game.md) renamed to NAME, so that ``pip install -e DIR`` and ``simcore check NAME`` pass before
the designer changes a line, and every later edit is checked against a game that worked. It registers itself in
the entry point group ``simcore.games`` (``simcore.games.GROUP``) of its own pyproject, as simcore's own games do
in simcore's; its cache folder is its own (``simcore.engine.jit.GameCacheLocator``), so compiling it compiles no
other game.
"""

import importlib.util
import keyword
import re
import shutil
import sys
import tempfile
from importlib.resources import files
from pathlib import Path

from simcore import games
from simcore.io import writing

TEMPLATE = "goofspiel"
SOURCES = ("__init__.py", "rules.py", "heuristics.py", "text.py", "picture.py", "rules.md")
# --minimal: the contract's required parts only, the Kuhn poker of docs/how-to/kuhn-poker.md (no heuristic,
# evaluation, picture or trace), kept in simcore/templates/minimal as the page lists it (a test holds them equal)
MINIMAL = "kuhn_poker"
MINIMAL_SOURCES = ("__init__.py", "rules.py", "text.py", "rules.md")

PYPROJECT = """[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "simcore-{name}"
version = "0.1.0"
description = "{name}: a game for simcore"
requires-python = ">=3.11"
dependencies = ["simcore"]

# simcore finds the game here once the package is installed (pip install -e .)
[project.entry-points."simcore.games"]
{name} = "{name}"

[tool.setuptools.packages.find]
include = ["{name}*"]

[tool.setuptools.package-data]
{name} = ["rules.md"]

# importlib: pytest imports the tests without putting their folder first on the path, so that a simcore/ folder
# beside them (a checkout of simcore's) is not imported in place of the installed simcore
[tool.pytest.ini_options]
addopts = "--import-mode=importlib"
"""

README = """# {name}

A game for simcore, made by `simcore new-game {name}`: it starts as a copy of Goofspiel, renamed, which already
passes simcore's checks. Turn it into your game one piece at a time, checking after each:

    pip install -e .            # once: simcore now knows the game ({name})
    simcore check {name}        # every check of the game contract (a first run compiles the game)
    simcore run {name} --config configs/{name}.toml
    pytest tests                # your tests (not `python -m pytest`: it puts this folder first on the path)

What to change, file by file (docs/how-to/adding-a-game.md in simcore's documentation walks through each):

| file | what it holds |
|---|---|
| `{name}/rules.py` | `GAME` (name, players, parameters), the state layout, setup, legal actions, apply, resample |
| `{name}/heuristics.py` | `greedy_action` and `evaluate`, reading only what a seat may see |
| `{name}/text.py` | the game in words: actions, information states, states |
| `{name}/picture.py` | the board as a picture for replay pages |
| `{name}/rules.md` | the rules as simulated, every parameter named in backticks (`simcore rules {name}`) |
| `tests/test_{name}.py` | your own rule tests, and the conformance checks (`simcore.testing.check_game`) |
"""

CONFIG = """game = "{name}"
games = 1000
seed = 1

[policies]
all = "{policy}"
"""

MINIMAL_README = """# {name}

A game for simcore, made by `simcore new-game {name} --minimal`: it starts as a copy of Kuhn poker, renamed,
with the contract's required parts only (no greedy heuristic, evaluation, picture or trace: the checks of those
are skipped), which already passes simcore's checks. Turn it into your game one piece at a time, checking after
each:

    pip install -e .            # once: simcore now knows the game ({name})
    simcore check {name}        # every check of the game contract (a first run compiles the game)
    simcore run {name} --config configs/{name}.toml
    pytest tests                # your tests (not `python -m pytest`: it puts this folder first on the path)

What each file holds:

* `{name}/rules.py`: `GAME` (name, players, parameters: `Param`), the state layout, setup (`begin`),
  `current_player`, `legal_actions`, `apply_action`, `returns`, `resample`, `write_row` (the result row:
  `O_WIN`, `O_SCORE`, `O_N_TURNS`);
* `{name}/text.py`: the game in words (actions, information states, states), and `openspiel_chance`, only while
  `GAME.openspiel` names OpenSpiel's `kuhn_poker`: drop both once your game is no longer Kuhn poker;
* `{name}/rules.md`: the rules as simulated, every parameter named in backticks (`simcore rules {name}`);
* `tests/test_{name}.py`: your own rule tests, and the conformance checks (`simcore.testing.check_game`).

`Param`, the engine's row offsets and `rng` are described on the contract page of simcore's documentation
(reference: the game contract); docs/how-to/kuhn-poker.md walks through every line of this package.
"""

TEST = '''"""{name}'s tests: the conformance checks of simcore (the game contract), then the game's own rules."""

from simcore.testing import check_game


def test_{name}_conforms():
    result = check_game("{name}", quick=True)
    assert result.passed, [str(record) for record in result.failures]
'''


class NewGameError(ValueError):
    """A name or folder ``new-game`` cannot use (one line)."""


# The longest name of a game: it names the package's folder, its files (tests/test_NAME.py) and its cache folder
# (game-NAME-HASH), and pip's files of the installed package (__editable___simcore_NAME_0_1_0_finder.py), which a
# file system caps at 255 bytes; a Python identifier has no limit. 300 characters blamed the folder.
MAX_NAME = 64


def check_name(name):
    """NewGameError in one line unless ``name`` can name a new game: a lower-case identifier of at most
    :data:`MAX_NAME` characters, no Python keyword, no module Python already has, and no registered game's."""
    allowed = "allowed: a new lower-case name of letters, digits and _, starting with a letter (e.g. kuhn_poker)"
    if len(name) > MAX_NAME:
        raise NewGameError(f"the name {name[:20]}... is too long ({len(name)} characters); {allowed}, at most "
                           f"{MAX_NAME} characters (it names the package's files and folders)")
    if not games.NAME.fullmatch(name) or keyword.iskeyword(name):
        raise NewGameError(f"{name!r} cannot name a game; {allowed}")
    if name in games.MODULES:
        raise NewGameError(f"{name!r} is a registered game already; {allowed}")
    if hides(name):
        raise NewGameError(f"{name!r} is the name of a Python module the game's package would hide; {allowed}")


# names a package must not take though they may be absent here: simcore's own, what it runs on, the packaging
# tools that install the game, and the test folders pytest imports as packages
TAKEN = ("simcore", "analyses", "numba", "numpy", "pip", "setuptools", "wheel", "test", "tests")


def hides(name):
    """Would a package called ``name`` hide a module: Python's own, one of :data:`TAKEN`, or one this Python
    imports now (a namespace folder does not count: any folder of that name in the working folder is one)?"""
    if name in sys.stdlib_module_names or name in TAKEN:
        return True
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    return spec is not None and spec.origin is not None


def minimal_files(name):
    """{relative path: text} of the minimal package of game ``name``: Kuhn poker's, renamed (OpenSpiel's game it
    names stays ``kuhn_poker``)."""
    template = files("simcore.templates") / "minimal"
    out = {}
    for source in MINIMAL_SOURCES:
        text = (template / f"{source}.tmpl").read_text(encoding="utf-8")
        text = (text.replace(f"from {MINIMAL}.", f"from {name}.").replace(f'name="{MINIMAL}"', f'name="{name}"')
                .replace('long_name="Kuhn poker"', f'long_name="{name} (still Kuhn poker: the minimal template)"'))
        if source.endswith(".py"):
            text = f"# {name}: made by `simcore new-game --minimal` from Kuhn poker; turn it into your game\n{text}"
        out[f"{name}/{source}"] = text
    return out | _around(name, MINIMAL_README, "random")


def _around(name, readme, policy):
    """The files around a game's package: its pyproject (the entry point), README, config (every seat
    ``policy``) and tests."""
    return {"pyproject.toml": PYPROJECT.format(name=name), "README.md": readme.format(name=name),
            f"configs/{name}.toml": CONFIG.format(name=name, policy=policy),
            f"tests/test_{name}.py": TEST.format(name=name)}


def files_of(name, minimal=False):
    """{relative path: text} of the package of game ``name``: Goofspiel's, renamed (``minimal``: Kuhn poker's,
    :func:`minimal_files`)."""
    if minimal:
        return minimal_files(name)
    template = files(games.BUILT_IN[TEMPLATE])
    out = {}
    for source in SOURCES:
        text = (template / source).read_text(encoding="utf-8")
        text = (text.replace(f"simcore.games.{TEMPLATE}", name).replace(f'name="{TEMPLATE}"', f'name="{name}"')
                .replace('long_name="Goofspiel"', f'long_name="{name} (still Goofspiel: the template)"')
                .replace(f'svg("{TEMPLATE}"', f'svg("{name}"'))
        if source.endswith(".py"):
            text = _header(name, text) + text
        out[f"{name}/{source}"] = text
    return out | _around(name, README, "greedy")


def _header(name, text):
    """The comment over a file of the Goofspiel template: which of its names the contract asks for (keep the name,
    change what it does) and that the others are Goofspiel's own (rename or drop them)."""
    import textwrap

    wanted = set(games.CONTRACT) | {n for names in games.CAPABILITIES.values() for n in names} | set(games.OPTIONAL)
    defined = re.findall(r"^(?:def |class )?([A-Za-z_][A-Za-z0-9_]*)(?:\(| =)", text, re.M)
    kept = [n for n in dict.fromkeys(defined) if n in wanted]
    words = f"{name}: made by `simcore new-game` from a copy of Goofspiel; turn it into your game (README.md). "
    words += (f"The game contract's names here: {', '.join(kept)} (keep each name, change what it does); every "
              "other name is Goofspiel's own: rename or drop it." if kept else
              "This file gathers the names of the files beside it into the one module simcore loads.")
    return "".join(f"# {line}\n" for line in textwrap.wrap(words, 110))


def write(name, folder, minimal=False):
    """Write game ``name``'s package into ``folder`` (new or empty): every file, or none (NewGameError, OSError).
    The files are written into a hidden folder beside it, renamed into place when complete."""
    check_name(name)
    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise NewGameError(f"{folder} is not an empty folder; allowed: a new or empty folder for the package")
    folder.parent.mkdir(parents=True, exist_ok=True)
    package = files_of(name, minimal)
    building = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        building.chmod(writing.FOLDER_MODE)      # mkdtemp's 0700 would be the package folder's mode
        for relative, text in package.items():
            (building / relative).parent.mkdir(parents=True, exist_ok=True)
            (building / relative).write_text(text, encoding="utf-8")
        if folder.exists():
            folder.rmdir()
        building.rename(folder)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return sorted(package)
