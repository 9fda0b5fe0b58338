"""The rules as simulated stand on their own: every game's doc exists, names every parameter, and nothing in
the repository points outside it (issue: docs that stand on their own)."""

import re
from pathlib import Path

import pytest

from simcore import games as registry

REPO = Path(__file__).resolve().parents[1]
TEXT = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".json", ".yml", ".ipynb", ".css"}
SKIP = {".git", ".venv", "build", "__pycache__", ".pytest_cache", ".ruff_cache", "demo-runs"}


def _repository_files():
    for path in REPO.rglob("*"):
        if (path.is_file() and path.suffix in TEXT and not SKIP & set(path.relative_to(REPO).parts)
                and path != Path(__file__).resolve()):   # this file names the patterns it looks for
            yield path


@pytest.mark.parametrize("name", registry.names())
def test_every_parameter_is_stated_in_the_game_doc(name):
    info = registry.load(name).GAME
    doc = registry.rules_text(name)
    # grouped parameters may be written as their group with a wildcard (`values.XX`, `army.*`)
    missing = [p.name for p in info.params
               if f"`{p.name}`" not in doc and not re.search(rf"`{re.escape(p.name.split('.')[0])}\.", doc)]
    assert not missing, f"the rules of {name} (simcore/games/{name}/rules.md) do not state {missing}"


def test_games_command_names_each_rulebook_and_doc(cli):
    out = cli("games").stdout
    for name in registry.names():
        info = registry.load(name).GAME
        assert f"rulebook: {info.rulebook}" in out
        assert f"rules as simulated: {info.doc}" in out


@pytest.mark.parametrize("name", registry.names())
def test_every_game_has_its_rules_page_on_the_site(name):
    """A game's rules page lives in its package (shipped in the wheel); the site links it as docs/GAME.md and
    lists it under "Rules as simulated" (docs/how-to/adding-a-game.md, step 3)."""
    page = REPO / "docs" / f"{name}.md"
    assert page.resolve() == (REPO / "simcore" / "games" / name / "rules.md").resolve()
    rules_nav = (REPO / "mkdocs.yml").read_text().split("  - Rules as simulated:\n")[1].split("\n  - ")[0]
    assert f": {name}.md" in rules_nav


def test_rules_prints_each_games_page_as_the_site_shows_it():
    """`simcore rules GAME` prints the rules as simulated from the installed package: the page the docs site
    shows as docs/GAME.md; an unknown game is one line naming the games."""
    from click.testing import CliRunner

    from simcore import cli as command

    for name in registry.names():
        printed = CliRunner().invoke(command.main, ["rules", name])
        assert printed.exit_code == 0 and printed.stdout == (REPO / "docs" / f"{name}.md").read_text()
    wrong = CliRunner().invoke(command.main, ["rules", "chess"])
    assert wrong.exit_code != 0 and wrong.stderr.strip() == (
        "Error: unknown game 'chess'; allowed: " + ", ".join(registry.names()))


def test_nothing_in_the_repository_points_outside_it():
    outside = re.compile(r"\.\./shared|shared/rules|/work/")
    pointing = [str(path.relative_to(REPO)) for path in _repository_files() if outside.search(path.read_text())]
    assert not pointing, f"these files point outside the repository: {pointing}"


def _python_blocks(text):
    """The Python blocks of a page but those followed by the text they print (tests/test_pages.py runs them)."""
    return re.findall(r"```python\n(.*?)```(?!\s*```text)", text, re.S)


def test_the_docs_python_examples_give_what_they_say():
    """The Python examples of the docs run, and a comment that is a value (`# 0, [1, 2, 3, 4]: ...`) is what its
    line gives (examples reading a sweep folder of the reader's are left out; a block followed by what it prints
    runs in tests/test_pages.py)."""
    import ast

    checked = 0
    pages = sorted((REPO / "docs").rglob("*.md"))
    for block in (b for page in pages for b in _python_blocks(page.read_text())):
        if "runs/" in block:
            continue
        lines = block.splitlines()
        namespace = {}
        for statement in ast.parse(block).body:
            code = ast.get_source_segment(block, statement)
            comment = lines[statement.end_lineno - 1].partition("#")[2].strip()
            if not isinstance(statement, ast.Expr):
                exec(compile(code, "README.md", "exec"), namespace)
                continue
            value = eval(compile(code, "README.md", "eval"), namespace)
            try:
                expected = ast.literal_eval(comment.split(": ")[0])
            except (ValueError, SyntaxError):
                continue
            assert value == expected, (code, value, comment)
            checked += 1
    assert checked >= 2


@pytest.mark.parametrize("page", ["cli", "games", "python", "parquet"])
def test_a_generated_reference_page_says_so_in_its_markdown(page):
    """Issue 36: a reference page read on a forge (GitHub renders the Markdown file) showed only placeholders
    where the site has the generated reference (`<!-- simcore:games -->`, `::: mkdocs-click`). Each says, in text
    the forge shows, that it is generated at build time and by which command."""
    text = (REPO / "docs" / "reference" / f"{page}.md").read_text()
    assert re.search(r"^(<!-- simcore:|::: )", text, re.M)       # the placeholders
    assert "Generated at build time: `make docs`" in re.sub(r"<!--.*?-->", "", text, flags=re.S)
