"""Issue 39, item 6: the guide's second game, Kuhn poker (docs/how-to/kuhn-poker.md), walked through as a reader
would, outside the repository: ``simcore new-game``, the listings of the page written into the package, the
package installed with pip, and ``simcore check`` passing, its OpenSpiel cross-check included. Then the game plays
(``simcore run``), a traced run of it is refused (it declares no trace), and a deal told to OpenSpiel in the wrong
order fails the cross-check in one line."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import simcore_cli
from tests.test_pages import _matches

PAGE = Path(__file__).resolve().parents[1] / "docs" / "how-to" / "kuhn-poker.md"
BLOCK = re.compile(r'^```(console|python|markdown|toml)(?: title="([^"]+)")?\n(.*?)^```', re.S | re.M)

pytest.importorskip("pyspiel")


def walk(text):
    """The page's steps in order: ("file", path, content) of each titled listing, ("command", args, expected)
    of each console line."""
    for kind, title, body in BLOCK.findall(text):
        if title:
            yield "file", title, body
        elif kind == "console":
            for chunk in re.split(r"^\$ ", body, flags=re.M)[1:]:
                command, _, expected = chunk.partition("\n")
                yield "command", shlex.split(command), expected


def _do(args, expected, env):
    """One console line of the page. ``pip install -e DIR`` installs the package as pip does, into the test's own
    folder (``--target``), which the simcore commands then find on their path: no other test sees the game."""
    if args[0] == "rm":
        for name in args[1:]:
            Path(name).unlink()
        return
    if args[0] == "pip":
        assert args[1:3] == ["install", "-e"]
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                               "--target", "site", f"./{args[3]}"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return
    assert args[0] == "simcore", args
    done = simcore_cli(*args[1:], env=env)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    assert _matches(expected, done.stdout), f"{args}\nprinted:\n{done.stdout}\nthe page shows:\n{expected}"


def test_the_kuhn_poker_page_builds_a_game_that_passes_its_check(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")])}
    steps = list(walk(PAGE.read_text(encoding="utf-8")))
    assert [s[1][:2] for s in steps if s[0] == "command"][-1] == ["simcore", "check"]
    for kind, what, body in steps:
        if kind == "file":
            Path(what).write_text(body, encoding="utf-8")
        else:
            _do(what, body, env)
    package = sorted(p.name for p in (tmp_path / "kuhn-poker" / "kuhn_poker").iterdir() if p.suffix in (".py", ".md"))
    assert package == ["__init__.py", "rules.md", "rules.py", "text.py"]

    done = simcore_cli("run", "kuhn_poker", "--config", "kuhn-poker/configs/kuhn_poker.toml", "--games", "300",
                       "--out", "kuhn.parquet", env=env)
    assert done.returncode == 0 and Path("kuhn.parquet").is_file(), done.stderr
    # issue 54: a game without a picture (as this page recommends) was a traceback in replay --html and in the
    # report's games worth watching, and left an empty -replays/ folder: its positions are drawn from its text
    page = simcore_cli("replay", "kuhn.parquet", "--index", "3", "--html", "k.html", env=env)
    assert page.returncode == 0, page.stderr
    drawn = Path("k.html").read_text()
    assert 'data-game=\\"kuhn_poker\\"' in drawn and "font:11px monospace" in drawn      # the text, as SVG
    report = simcore_cli("analyze", "kuhn.parquet", "--report", "r.html", env=env)
    assert report.returncode == 0 and "Traceback" not in report.stderr, report.stderr
    assert list(Path("r-replays").glob("*.html"))
    traced = simcore_cli("run", "kuhn_poker", "--games", "10", "--out", "t.parquet", "--trace", env=env)
    assert traced.returncode != 0 and not Path("t.parquet").exists()
    assert traced.stderr.strip().endswith("game kuhn_poker declares no trace; allowed: a traced run of a game with "
                                          "the trace hooks (simcore.games.CAPABILITIES['trace'])")

    installed = tmp_path / "site" / "kuhn_poker" / "text.py"
    installed.write_text(installed.read_text().replace("for seat in range(params[P_PLAYERS])]",
                                                       "for seat in range(params[P_PLAYERS])][::-1]"))
    broken = simcore_cli("check", "kuhn_poker", "--quick", env=env)
    assert broken.returncode == 1
    failed = [line for line in broken.stdout.splitlines() if line.startswith("FAIL")]
    assert failed and all(line.startswith("FAIL openspiel [") for line in failed), broken.stdout
