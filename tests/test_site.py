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
from tests import test_browser

REPO = Path(__file__).resolve().parents[1]
browser = test_browser.browser      # the browser tests' Chromium: without one, the tests using it are skipped
LOCAL = ("file:", "data:", "blob:")  # what a page opened from the file system loads without the network


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built as `make docs` builds it (the notebook executed), into a folder of the test's."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", out], cwd=REPO,
                           capture_output=True, text=True, env=env)
    assert built.returncode == 0, built.stderr[-4000:]
    (out.parent / f"{out.name}.log").write_text(built.stderr)       # what mkdocs said while it built
    return out


def _page(site, path):
    """A built page's HTML: pages are files (`reference/cli.html`), so that links work from the file system."""
    return (site / f"{path}.html").read_text()


def test_every_page_of_the_nav_is_built(site):
    nav = (REPO / "mkdocs.yml").read_text().split("\nnav:", 1)[1]
    pages = re.findall(r":\s+(\S+\.(?:md|ipynb))$", nav, re.M)
    assert len(pages) >= 25
    for page in pages:
        assert (site / f"{page.rsplit('.', 1)[0]}.html").is_file(), page


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


def test_the_build_says_when_the_notebook_runs_and_how_long_it_took(site):
    """Issue 54: `make docs` was silent for 36 s while the notebook ran: it says so as the cells begin, and the
    time they took once they are done."""
    said = (site.parent / f"{site.name}.log").read_text().splitlines()
    began = next(i for i, line in enumerate(said) if "running the notebook" in line)
    assert "its cells execute now" in said[began]
    assert any(re.search(r"ran the notebook \S+\.ipynb in \d+ s", line) for line in said[began + 1:])


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


def test_the_site_has_what_search_from_the_file_system_needs(site):
    """Issue 36: the README said to open build/site/index.html, where search did not work (a browser fetches no
    index and starts no worker from file://). The search index is also a script, the worker shim is the site's
    own and pages link to their .html files; the pages load nothing from the network."""
    assert (site / "search" / "search_index.js").read_text().startswith("var __index = ")
    assert (site / "javascripts" / "iframe-worker-shim.js").is_file()
    home = _page(site, "index")
    assert '<script src="javascripts/iframe-worker-shim.js">' in home
    assert 'href="tutorial.html"' in home
    for page in site.rglob("*.html"):
        assert not re.search(r"unpkg\.com|fonts\.googleapis\.com", page.read_text()), page


def _opened(browser, path):
    """A page of the built site opened from the file system in Chromium, recording every request that leaves it
    (``outside``)."""
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    opened = context.new_page()
    opened.outside = []
    opened.on("request", lambda r: None if r.url.startswith(LOCAL) else opened.outside.append(r.url))
    opened.goto(path.as_uri())
    return opened


def test_search_finds_pages_in_the_site_opened_from_the_file_system(browser, site):
    """Issue 36: in build/site/index.html opened as a file, typing in the search box lists matching pages,
    with no request leaving the file system."""
    page = _opened(browser, site / "index.html")
    page.locator("input.md-search__input").focus()
    page.keyboard.type("formation")
    page.wait_for_selector(".md-search-result__item")
    assert "matching documents" in page.inner_text(".md-search-result__meta")
    assert page.outside == []
    page.context.close()


def _console_commands(markdown):
    """The commands of each console block of a page, as written after their `$ ` prompts."""
    blocks = re.findall(r"^```console\n(.*?)^```", markdown, re.S | re.M)
    return ["\n".join(line[2:] for line in block.splitlines() if line.startswith("$ ")) for block in blocks]


@pytest.mark.parametrize("page", ["tutorial", "how-to/skill", "how-to/compare"])
def test_the_copy_button_copies_the_commands_alone(browser, site, page):
    """Issue 36: the copy button of a console block copied its `$ ` prompts and what the commands print along
    with the commands. It copies each block's commands alone, one a line, output between them left out too
    (how-to/skill), ready to paste into a shell; the page still shows the whole session."""
    opened = _opened(browser, site / f"{page}.html")
    blocks = opened.locator(".highlight", has=opened.locator(".gp"))
    commands = _console_commands((REPO / "docs" / f"{page}.md").read_text())
    assert blocks.count() == len(commands) >= 1
    for i, expected in enumerate(commands):
        blocks.nth(i).locator("button[data-md-type=copy]").click()
        assert opened.evaluate("navigator.clipboard.readText()") == expected
    assert "$ " in blocks.first.inner_text()
    opened.context.close()
