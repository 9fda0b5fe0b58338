"""What the tests of `simcore check` on an author's package share (tests/test_check_catches.py: the docs' Kuhn
poker; tests/test_leduc_check.py: Leduc poker): install a copy with a bug planted, read the check's failures,
run the reproducer a failure prints as a user would."""

import os
import re
import shlex
import shutil
import subprocess
import sys

from tests.conftest import simcore_cli


def install(package, site):
    """``package`` (a folder with its pyproject) installed as pip installs it, into ``site``; the environment in
    which the simcore commands find it (no other test sees the game)."""
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                           "--target", site, package], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return {"PYTHONPATH": str(site)}


def plant(source, tmp_path, module, change):
    """A copy of the package folder ``source`` in ``tmp_path`` whose ``module/rules.py`` text ``change(text,
    folder)`` rewrites (it may change other files of the copy ``folder`` too), installed into ``tmp_path/site``;
    the environment that finds it."""
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    rules = folder / module / "rules.py"
    rules.write_text(change(rules.read_text(), folder))
    return install(folder, tmp_path / "site")


def failures(game, env, check):
    """The FAIL lines of ``check`` in ``simcore check GAME --quick``, which must fail."""
    done = simcore_cli("check", game, "--quick", env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if line.startswith(f"FAIL {check} ")]


def reproduce(said, env, folder):
    """The `replay: python -c "..."` command of a failure line, run with this Python and the package's path."""
    args = shlex.split(re.search(r'replay: (python -c "[^"]*")', said).group(1))
    assert args[0] == "python"
    return subprocess.run([sys.executable, *args[1:]], capture_output=True, text=True, cwd=folder,
                          env={**os.environ, **env})
