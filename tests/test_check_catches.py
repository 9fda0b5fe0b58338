"""Issue 54: `simcore check` catches the bugs authors make. The Kuhn poker package of the docs
(docs/how-to/kuhn-poker.md), built as its page builds it, with a bug planted on purpose:

* a betting round that ends one check too late (pass, pass does not end 2-player Kuhn) or too early (one pass
  ends it): the OpenSpiel cross-check picked actions by a fixed formula and reached 2 of the 5 betting sequences
  of 2-player Kuhn; it now draws them uniformly over many deals and plays every sequence of the first deals;
* a greedy that peeks at the other hand: the peeking checks read a few decisions of a short game (a budget in
  games); they now read a budget of decisions.

Each failure names the deal and the actions (or the game) and prints a command that plays it again.
"""

import re

import pytest

from tests.conftest import simcore_cli
from tests.planted import failures, plant, reproduce
from tests.test_kuhn_page import PAGE, walk

pytest.importorskip("pyspiel")

LATE = ("(state[S_BETTOR] < 0 and played == players)", "(state[S_BETTOR] < 0 and played == players + 1)")
EARLY = ("(state[S_BETTOR] < 0 and played == players)", "(state[S_BETTOR] < 0 and played == players - 1)")

# a greedy for the package: bet when the next seat holds the lowest card, which it cannot see
PEEKING = '''

WORK_SIZE = 1


@kernel
def greedy_action(state, params, seat, streams, work):
    """Bet when the next seat holds the lowest card (it peeks: that card is hidden from the seat)."""
    return BET if state[S_CARD + (seat + 1) % params[P_PLAYERS]] == 0 else PASS
'''


@pytest.fixture(scope="module")
def kuhn(tmp_path_factory):
    """The Kuhn poker package as the page makes it (`simcore new-game`, the files removed, its listings), not
    installed."""
    root = tmp_path_factory.mktemp("kuhn")
    for kind, what, body in walk(PAGE.read_text(encoding="utf-8")):
        if kind == "file":
            (root / what).write_text(body, encoding="utf-8")
        elif what[:2] == ["simcore", "new-game"]:
            assert simcore_cli(*what[1:], cwd=root).returncode == 0
        elif what[0] == "rm":
            for name in what[1:]:
                (root / name).unlink()
    return root / "kuhn-poker"


# a parameter OpenSpiel's kuhn_poker does not take, and a case that sets it
ANTE = ('params=(Param("players", 2, "players, each dealt one card of players + 1", 2, MAX_SEATS),)',
        'params=(Param("players", 2, "players, each dealt one card of players + 1", 2, MAX_SEATS), '
        'Param("ante", 1, "chips each seat antes (always 1 here)", 1, 3))')
MAPS = """


def openspiel_params(params):
    \"\"\"OpenSpiel's kuhn_poker antes one chip: a case of another ante has no OpenSpiel game to play beside.\"\"\"
    if params["ante"] != 1:
        raise ValueError(f"OpenSpiel's kuhn_poker antes 1 chip, not {params['ante']}")
    return {"players": params["players"]}
"""


def _planted(kuhn, tmp_path, replace=(), greedy=False, ante=False, maps=False):
    """The package with one bug (or a parameter OpenSpiel lacks, mapped or not), installed into
    ``tmp_path/site``; the environment that finds it."""
    return plant(kuhn, tmp_path, "kuhn_poker", lambda text, package: _bug(text, package, replace, greedy, ante, maps))


def _bug(text, package, replace, greedy, ante, maps):
    if ante:
        assert ANTE[0] in text
        text = text.replace(*ANTE).replace('cases=({"players": 3},)', 'cases=({"players": 3}, {"ante": 2})')
        text += MAPS if maps else ""
        page = package / "kuhn_poker" / "rules.md"
        page.write_text(page.read_text() + "* `ante`: the chips each seat antes; the rules above ante 1.\n")
    if replace:
        assert replace[0] in text
        text = text.replace(*replace)
    if greedy:
        text = text.replace('policies=("random", "mc", "ismcts")', 'policies=("random", "greedy", "mc", "ismcts")')
        text = text.replace("heuristic=False", "heuristic=True") + PEEKING
    return text


@pytest.mark.parametrize("bug, ends", [(LATE, "[0, 0]"), (EARLY, "[0]")], ids=["one-check-too-late", "too-early"])
def test_a_betting_round_that_ends_wrong_is_caught_with_a_reproducer(kuhn, tmp_path, bug, ends):
    env = _planted(kuhn, tmp_path, replace=bug)
    failed = failures("kuhn_poker", env, "openspiel")
    assert failed, "the cross-check passed a planted bug"
    said = failed[0]
    assert f"after actions {ends}" in said or "after actions [0, 0" in said, said
    replayed = reproduce(said, env, tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    assert "step 0: simcore seat 0 may play [0, 1]" in replayed.stdout and "returns: simcore" in replayed.stdout


def test_a_greedy_that_peeks_at_the_other_hand_is_caught(kuhn, tmp_path):
    env = _planted(kuhn, tmp_path, greedy=True)
    failed = failures("kuhn_poker", env, "greedy-sees-its-seat")
    assert failed and "greedy peeks" in failed[0], failed
    assert re.search(r"replay: simcore run kuhn_poker .*--seed 5 --games \d+ --out check.parquet && simcore replay "
                     r"check.parquet --index \d+", failed[0]), failed[0]


def test_the_package_as_the_page_writes_it_passes(kuhn, tmp_path):
    env = _planted(kuhn, tmp_path)
    done = simcore_cli("check", "kuhn_poker", "--quick", env=env)
    assert done.returncode == 0, done.stdout
    assert re.search(r"^ok   openspiel \[default\]", done.stdout, re.M)


@pytest.mark.parametrize("maps", [False, True], ids=["unmapped", "openspiel_params"])
def test_a_case_of_a_parameter_openspiel_lacks_is_skipped_with_the_reason(kuhn, tmp_path, maps):
    """A case varying the ante failed as a rule mismatch, with no way to map or skip it: unmapped, it is skipped
    with the reason; a game's openspiel_params maps the others and skips it with its own words."""
    env = _planted(kuhn, tmp_path, ante=True, maps=maps)
    done = simcore_cli("check", "kuhn_poker", "--quick", env=env)
    assert done.returncode == 0, done.stdout
    skipped = next(line for line in done.stdout.splitlines() if line.startswith("skip openspiel [ante=2]"))
    assert ("OpenSpiel's kuhn_poker antes 1 chip, not 2" if maps else
            "the case sets ante, which OpenSpiel's kuhn_poker does not take") in skipped
    assert re.search(r"^ok   openspiel \[players=3\]", done.stdout, re.M)
