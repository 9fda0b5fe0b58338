"""The rules as simulated stand on their own: every game's doc exists, names every parameter, and nothing in
the repository points outside it (issue: docs that stand on their own)."""

import re
from pathlib import Path

import pytest

from simcore import games as registry

REPO = Path(__file__).resolve().parents[1]
TEXT = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".json"}
SKIP = {".git", ".venv", "build", "__pycache__", ".pytest_cache", ".ruff_cache", "demo-runs"}


def _repository_files():
    for path in REPO.rglob("*"):
        if (path.is_file() and path.suffix in TEXT and not SKIP & set(path.relative_to(REPO).parts)
                and path != Path(__file__).resolve()):   # this file names the patterns it looks for
            yield path


@pytest.mark.parametrize("name", registry.names())
def test_every_parameter_is_stated_in_the_game_doc(name):
    info = registry.load(name).GAME
    doc = (REPO / info.doc).read_text()
    # grouped parameters may be written as their group with a wildcard (`values.XX`, `army.*`)
    missing = [p.name for p in info.params
               if f"`{p.name}`" not in doc and not re.search(rf"`{re.escape(p.name.split('.')[0])}\.", doc)]
    assert not missing, f"{info.doc} does not state {missing}"


def test_games_command_names_each_rulebook_and_doc(cli):
    out = cli("games").stdout
    for name in registry.names():
        info = registry.load(name).GAME
        assert f"rulebook: {info.rulebook}" in out
        assert f"rules as simulated: {info.doc}" in out


def test_nothing_in_the_repository_points_outside_it():
    outside = re.compile(r"\.\./shared|shared/rules|/work/")
    pointing = [str(path.relative_to(REPO)) for path in _repository_files() if outside.search(path.read_text())]
    assert not pointing, f"these files point outside the repository: {pointing}"
