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


# --- case 10: plan's bounds, and one file given as two variants --------------------------------------------------

@pytest.mark.parametrize("args, says", [
    (["--edge", "1e-308"], "--edge 1e-308 is not allowed; allowed: a share of the points from 0.001 below 1"),
    (["--edge", "1e-9"], "--edge 1e-09 is not allowed; allowed: a share of the points from 0.001 below 1"),
    (["--alpha", "5e-324"], "--alpha 5e-324 is not allowed; allowed: an error rate from 1e-06 below 0.5"),
])
def test_plan_bounds_the_edge_so_a_plan_stays_playable(cli, args, says):
    """Issue 52, case 10: `plan --edge 1e-308` was an OverflowError traceback and `--edge 1e-9` planned 4.7e18
    games. The edge (and the error rate, which overflowed the same way) is bounded where a plan stays at about
    2 x 10^7 games a variant at most."""
    _one_line(cli("plan", "--seats", "2", *args), says)


def test_the_smallest_edge_plans_a_playable_number_of_games(cli):
    """Issue 52, case 10: at the floor of --edge and --alpha the plan is a number of games a run can play."""
    done = cli("plan", "--seats", "2", "--edge", "0.001", "--alpha", "1e-6")
    assert done.returncode == 0, done.stderr
    counts = [int(n.replace(",", "")) for n in done.stdout.split("|")[-3:-1]]
    assert counts and all(0 < n < 3 * 10**7 for n in counts), done.stdout


def test_plan_bounds_the_seats_by_the_largest_table_of_any_game(cli):
    """Issue 52, case 10: `plan --seats 1000000` planned 2 games. The seats are bounded by the most players any
    registered game seats (Der Herr der Wichtel's 5 among simcore's own)."""
    _one_line(cli("plan", "--seats", "1000000"), "--seats 1000000 is not allowed; allowed: a whole number from 2 "
                                                 "to 5 (the most players of any game: wichtel)")
    assert cli("plan", "--seats", "5").returncode == 0


def test_one_file_given_twice_is_refused_not_taken_for_two_variants(cli, result):
    """Issue 52, case 10: `plan F F` and `readings F F` treated one file as two variants (and `analyze`,
    `compare` too), also under two spellings of its path or as a file and its folder."""
    again = result.parent / ".." / result.parent.name / result.name
    for command, paths in (("plan", [result, result]), ("readings", [result, again]), ("analyze", [result, again]),
                           ("compare", [result, again]), ("analyze", [result.parent, result])):
        done = cli(command, *paths)
        _one_line(done, "is given twice")
        assert "allowed: each result file once" in done.stderr and done.stdout == ""
