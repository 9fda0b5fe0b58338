"""The docs site builds with --strict (a broken link, a missing page, a marker naming nothing or a failing
notebook cell fails it), its reference is the code's, and the install guide's claims hold (issue: documentation
a designer can read)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from simcore import __version__, cli
from simcore import games as registry

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built as `make docs` builds it (the notebook executed), into a folder of the test's."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", out], cwd=REPO,
                           capture_output=True, text=True, env=env)
    assert built.returncode == 0, built.stderr[-4000:]
    return out


def _page(site, path):
    return (site / path / "index.html").read_text()


def test_every_page_of_the_nav_is_built(site):
    nav = (REPO / "mkdocs.yml").read_text().split("\nnav:", 1)[1]
    pages = re.findall(r":\s+(\S+\.(?:md|ipynb))$", nav, re.M)
    assert len(pages) >= 25
    for page in pages:
        built = "" if page == "index.md" else page.rsplit(".", 1)[0]
        assert (site / built / "index.html").is_file(), page


def test_the_command_reference_is_every_command_and_option(site):
    """mkdocs-click renders every command of the CLI with every option it has."""
    html = _page(site, "reference/cli")
    assert "Sentinel" not in html                   # an option without a default shows none (click's marker)
    for name, command in cli.main.commands.items():
        assert f'id="simcore-{name}"' in html, name
        for option in (opt for p in command.params for opt in p.opts if opt.startswith("--")):
            assert option in html, (name, option)


def test_the_games_reference_is_the_registry(site):
    """Every game, parameter, policy and result column of the registry is on the games page."""
    html = _page(site, "reference/games")
    for name in registry.names():
        module = registry.load(name)
        assert f'id="{name}-' in html, name
        for item in [p.name for p in module.GAME.params] + [n.format(seat="i") for n, _, _ in module.EXTRA_COLUMNS]:
            assert f"<code>{item}</code>" in html, (name, item)


def test_the_notebook_ran_and_shows_its_outputs(site):
    """The notebook is executed while the site is built: its page shows the plot and the game it played."""
    html = _page(site, "notebooks/balance")
    assert "data:image/png;base64" in html          # the seat edge plotted against the parameter
    assert "10 played, 0 played again" in html      # its sweep ran at this build (mkdocs.yml: no cached run)
    assert "returns" in html and "load_game" in html


def test_the_rules_pages_are_the_packaged_rules(site):
    for name in registry.names():
        first_heading = registry.rules_text(name).splitlines()[0].lstrip("# ")
        assert first_heading in _page(site, name).replace("&amp;", "&"), name


def test_the_install_guides_version_and_completion_hold(tmp_path):
    """docs/how-to/install.md: `simcore --version` prints the version, and the completion line it gives for
    bash completes a command."""
    guide = (REPO / "docs" / "how-to" / "install.md").read_text()
    version = subprocess.run([sys.executable, "-m", "simcore", "--version"], capture_output=True, text=True)
    assert version.stdout.strip() == f"simcore, version {__version__}"
    assert f"$ simcore --version\n{version.stdout.strip()}" in guide
    assert 'eval "$(_SIMCORE_COMPLETE=bash_source simcore)"' in guide
    simcore = Path(sys.executable).parent / "simcore"
    source = subprocess.run([simcore], env={**os.environ, "_SIMCORE_COMPLETE": "bash_source"},
                            capture_output=True, text=True)
    assert "_simcore_completion" in source.stdout
    done = subprocess.run([simcore], capture_output=True, text=True,
                          env={**os.environ, "_SIMCORE_COMPLETE": "bash_complete", "COMP_WORDS": "simcore an",
                               "COMP_CWORD": "1"})
    assert done.stdout.split() == ["plain,analyze"]
