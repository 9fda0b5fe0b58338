"""`simcore check` on a second card game with chance inside the game: Leduc poker (tests/packages/leduc-poker), a
package outside simcore made as docs/how-to/kuhn-poker.md makes Kuhn poker, its rules OpenSpiel's ``leduc_poker``
(two betting rounds, a public card dealt between them). Installed as written, it passes every check, the OpenSpiel
cross-check among them; with a bug planted in its betting (one precise line of rules.py replaced), the cross-check
fails in one line naming the deal and the actions, and prints a command that plays them again.

Leduc's rules, as OpenSpiel states them (leduc_poker.cc, ReadyForNextRound): a betting round ends when every
player has checked (no raise, as many calls as players in), or when every other player has called the last raise.
"""

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import simcore_cli
from tests.planted import failures, plant, reproduce

pytest.importorskip("pyspiel")

PACKAGE = Path(__file__).resolve().parent / "packages" / "leduc-poker"
ROUND_ENDS = "(state[S_RAISES] == 0 and state[S_CALLS] == players)"     # the checks that end a round
# round 2 ends only after three checks (round 1 still after two)
LATE = (ROUND_ENDS, "(state[S_RAISES] == 0 and state[S_CALLS] == players + state[S_ROUND] - 1)")
# either round ends after one check
EARLY = (ROUND_ENDS, "(state[S_RAISES] == 0 and state[S_CALLS] == players - 1)")
# either round ends only after three checks: round 1's shows first, where OpenSpiel deals the public card
LATE_BOTH = (ROUND_ENDS, "(state[S_RAISES] == 0 and state[S_CALLS] == players + 1)")


@pytest.fixture(scope="module")
def leduc(tmp_path_factory):
    """The Leduc poker package as written, copied (without what a build leaves beside it), not installed."""
    root = tmp_path_factory.mktemp("leduc") / "leduc-poker"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    return root


def _planted(leduc, tmp_path, replace=()):
    """The package with one bug (``replace``: a line's text and its replacement), installed into
    ``tmp_path/site``; the environment that finds it."""
    def bug(text, package):
        if replace:
            assert text.count(replace[0]) == 1, f"rules.py no longer holds {replace[0]!r} once"
            text = text.replace(*replace)
        return text
    return plant(leduc, tmp_path, "leduc_poker", bug)


def _check(env):
    return simcore_cli("check", "leduc_poker", "--quick", env=env)


def test_the_package_as_written_passes(leduc, tmp_path):
    """OpenSpiel's leduc_poker for 2 players: each antes 1 chip and holds one card of J J Q Q K K; fold, call or
    raise (2 chips in round 1, 4 in round 2, at most 2 raises a round); a public card after round 1; a pair with it
    wins, else the higher card, equal cards split the pot. Played side by side, every decision and return agrees."""
    done = _check(_planted(leduc, tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^ok   openspiel \[default\]", done.stdout, re.M), done.stdout


@pytest.mark.parametrize("bug, ends", [(LATE, "OpenSpiel's game ended first"), (EARLY, "after actions [1]")],
                         ids=["one-check-too-late", "one-check-too-early"])
def test_a_betting_round_that_ends_wrong_is_caught_with_a_reproducer(leduc, tmp_path, bug, ends):
    """A betting round ends when every player has checked, or when every other player has called the last raise
    (OpenSpiel's leduc_poker): a round that needs a third check (round 2 here) or ends after the first check is
    caught, and the command the failure prints plays its deal again."""
    env = _planted(leduc, tmp_path, replace=bug)
    failed = failures("leduc_poker", env, "openspiel")
    assert failed, "the cross-check passed a planted bug"
    said = failed[0]
    assert "after actions [" in said and ends in said, said
    replayed = reproduce(said, env, tmp_path)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "step 0: simcore seat 0 may play [1, 2]" in replayed.stdout and "returns: simcore" in replayed.stdout


def test_a_first_round_that_needs_a_third_check_is_caught(leduc, tmp_path):
    """A betting round ends when every player has checked (OpenSpiel's leduc_poker): round 1 going on after
    check, check is caught where OpenSpiel deals the public card and simcore's game dealt none. Its reproducer
    plays the deal again up to there and says the mismatch as its last step."""
    env = _planted(leduc, tmp_path, replace=LATE_BOTH)
    failed = failures("leduc_poker", env, "openspiel")
    assert failed, "the cross-check passed a planted bug"
    said = failed[0]
    assert "after actions [1, 1]" in said and "openspiel_chance gives 2" in said, said
    replayed = reproduce(said, env, tmp_path)
    assert "step 0: simcore seat 0 may play [1, 2]" in replayed.stdout, replayed.stdout + replayed.stderr
    # the replay says the mismatch where OpenSpiel deals a card simcore's game has not, and ends there
    assert replayed.returncode == 0, replayed.stderr
    assert "OpenSpiel draws chance outcome 3; openspiel_chance gives 2" in replayed.stdout, replayed.stdout
    assert "returns: simcore" in replayed.stdout, replayed.stdout
