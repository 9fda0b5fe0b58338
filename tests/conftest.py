import os
import subprocess
import sys

import pytest


def simcore_cli(*args, env=None, cwd=None):
    """Run the ``simcore`` command in a fresh process (as a user would); ``env`` values of None unset."""
    full_env = {key: value for key, value in {**os.environ, **(env or {})}.items() if value is not None}
    return subprocess.run([sys.executable, "-m", "simcore", *map(str, args)], capture_output=True,
                          text=True, env=full_env, cwd=cwd)


@pytest.fixture
def cli():
    return simcore_cli
