"""Issue 52, cases 4, 10, 11, 12, 14 and 15: a hostile tester's inputs that gave tracebacks, hangs without a word,
silent accepts, results lost after they were written, and messages that did not say what was wrong.

Each test names its case; every refusal is one line naming what is wrong and what is allowed, and writes nothing.
"""


import pytest

import simcore


def _one_line(done, says):
    """``done`` failed with one line on stderr holding ``says``, and no traceback."""
    assert done.returncode != 0, (done.stdout, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1 and says in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """A result file of 40 Goofspiel games with its trace (_traces/x.trace.parquet)."""
    from tests.conftest import simcore_cli

    path = tmp_path_factory.mktemp("result") / "x.parquet"
    done = simcore_cli("run", "goofspiel", "--games", "40", "--out", path, "--trace", "--quiet")
    assert done.returncode == 0, done.stderr
    return path


# --- case 4: cache --clear never clears a cache the user did not name ------------------------------------------

def test_clearing_with_numba_cache_dir_naming_a_file_removes_nothing(cli, tmp_path):
    """Issue 52, case 4: `NUMBA_CACHE_DIR=<a file> simcore cache --clear` emptied simcore's own cache under
    ~/.cache/simcore, which the user did not name and other simcore processes share. It refuses in one line and
    removes nothing."""
    root = tmp_path / "xdg" / "simcore"
    theirs = root / "numba-shared"
    theirs.mkdir(parents=True)
    (theirs / simcore.MARKER).touch()
    (theirs / "index.nbi").write_bytes(b"x")
    named = tmp_path / "a-file"
    named.write_text("not a folder")
    done = cli("cache", "--clear", env={"XDG_CACHE_HOME": str(tmp_path / "xdg"), "NUMBA_CACHE_DIR": str(named)})
    assert done.returncode != 0 and "Traceback" not in done.stderr
    refusal = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert refusal == [f"Error: NUMBA_CACHE_DIR={named} is not a folder this process can write, so --clear removes "
                       "nothing; allowed: NUMBA_CACHE_DIR naming a folder, or unset for simcore's own cache"]
    assert (theirs / "index.nbi").exists() and named.read_text() == "not a folder"
