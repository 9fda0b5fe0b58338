"""The pages that show commands and code with what they print run as written: the tutorial
(docs/tutorial.md), reading results in pandas, polars and DuckDB (docs/how-to/dataframes.md) and the README's
sweep and verdict. Each page
runs in order, in an empty folder, and what each command or code block prints is what the page shows (issue:
documentation a designer can read).

A page's blocks, in order:
* ```toml whose first line is `# FILE`: written to FILE;
* ```console: commands (`$ simcore ...`), each followed by what it prints;
* ```python followed by a ```text block: run (one namespace for the page), printing what the text shows (a
  Python block without one is an illustration, run by tests/test_docs.py).
`...` in printed text stands for anything (a timing, lines left out).

    python tests/test_pages.py docs/tutorial.md      # print what each block prints now, to update a page
"""

import contextlib
import doctest
import io
import re
import shlex
import sys
from pathlib import Path

import pytest

from tests.conftest import simcore_cli

REPO = Path(__file__).resolve().parents[1]
# each page, and the files its commands write that its text then points the reader at
LEAVES = {"docs/tutorial.md": ("runs/formations-report.html", "ring-1121.html"),
          "docs/how-to/dataframes.md": ("runs/mixed/_manifest.json",),
          "docs/how-to/compare.md": ("square.parquet", "ring.parquet"),
          "docs/how-to/skill.md": ("runs/skill/_manifest.json",),
          "docs/how-to/tune.md": ("runs/hand/report.md", "runs/hand/race.png"),
          "docs/how-to/options.md": ("runs/fish/_manifest.json",),
          "README.md": ("runs/zwai/_traces/ring-4p.trace.parquet",)}
PAGES = tuple(LEAVES)
NEEDS = {"README.md": ("configs",)}     # what a page's commands read from the repository, as from a clone
BLOCK = re.compile(r"^```(console|toml|python|text)\n(.*?)^```", re.S | re.M)


def steps(text):
    """("file", name, content), ("command", args, expected) and ("python", code, expected) in page order."""
    blocks = BLOCK.findall(text)
    for i, (kind, body) in enumerate(blocks):
        if kind == "toml":
            first, _, rest = body.partition("\n")
            if first.startswith("# "):
                yield "file", first[2:].strip(), rest
        elif kind == "python" and i + 1 < len(blocks) and blocks[i + 1][0] == "text":
            yield "python", body, blocks[i + 1][1]
        elif kind == "console":
            for chunk in re.split(r"^\$ ", body, flags=re.M)[1:]:
                command, _, expected = chunk.partition("\n")
                yield "command", shlex.split(command), expected


def run_command(args):
    assert args[0] == "simcore", f"a page's console block runs simcore commands only, not {args[0]}"
    done = simcore_cli(*args[1:])
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def run_python(code, namespace):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "page", "exec"), namespace)
    return printed.getvalue()


def play(page):
    """Run a page's steps in the current folder: (what ran, what the page shows, what it printed)."""
    namespace = {}
    for name in NEEDS.get(page, ()):
        Path(name).symlink_to(REPO / name)
    for kind, what, expected in steps((REPO / page).read_text()):
        if kind == "file":
            Path(what).write_text(expected)
        elif kind == "python":
            yield what, expected, run_python(what, namespace)
        else:
            yield shlex.join(what), expected, run_command(what)


def _lines(text):
    """The text with trailing spaces and blank lines at its end left out (a page cannot show them)."""
    return "".join(line.rstrip() + "\n" for line in text.rstrip().splitlines())


def _matches(expected, printed):
    return doctest.OutputChecker().check_output(_lines(expected), _lines(printed), doctest.ELLIPSIS)


@pytest.mark.parametrize("page", PAGES)
def test_every_command_and_block_prints_what_the_page_shows(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ran = 0
    for what, expected, printed in play(page):
        assert _matches(expected, printed), f"{what}\nprinted:\n{printed}\nthe page shows:\n{expected}"
        ran += 1
    assert ran >= 1        # the page still shows commands
    for written in LEAVES[page]:      # what the page then tells the reader to open
        assert Path(written).is_file(), written


if __name__ == "__main__":
    import os
    import tempfile

    os.chdir(tempfile.mkdtemp())
    for what, _, printed in play(sys.argv[1]):
        print(f"$ {what}\n{printed}")
