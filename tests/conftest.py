import os
import subprocess
import sys

import pytest


def simcore_cli(*args, env=None, cwd=None):
    """Run the ``simcore`` command in a fresh process (as a user would)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "simcore.cli", *map(str, args)], capture_output=True,
                          text=True, env=full_env, cwd=cwd)


@pytest.fixture
def cli():
    return simcore_cli
