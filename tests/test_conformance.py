"""One conformance suite for every registered game (issue 23): the checks of ``simcore.testing`` (``simcore check
NAME``, OpenSpiel's ``basic_tests``), each for every game of ``simcore.games.names()`` and every parameter set its
``GameType.cases`` declares (the defaults first). A new game passes it by registering, with no test of its own;
the tests beside a game keep only that game's own rules.

Elsewhere, also over every game: reference equality (``tests/test_<game>_reference.py``, the reference's own
result layout), legality of every action applied in games and searches (``tests/test_legality.py``), the plain
copy's rows (``tests/test_reproducibility.py``), golden playthroughs.
"""

import pytest

from simcore import games, testing

# The searching seat's traced batch is the engine's, the same for every game, and compiles for a minute a game
# cold: Goofspiel stands for all here (``simcore check`` runs it for the game it checks).
ONLY = {"searching-traced": ("goofspiel",)}

RUNS = [(check, name, case) for name in games.names() for check, case in testing.plan(name)
        if name in ONLY.get(check.name, (name,))]


def _id(run):
    check, name, case = run
    return f"{check.name}-{name}-{testing.case_label(case).replace(', ', '-')}"


@pytest.mark.parametrize("check, name, case", RUNS, ids=[_id(run) for run in RUNS])
def test_the_game_conforms(check, name, case):
    reason = check.unless(games.load(name))
    if reason:
        pytest.skip(reason)
    try:
        check.run(name, case)
    except testing.Skipped as e:        # a check that does not apply to this case (simcore check says "skip")
        pytest.skip(str(e))


def test_a_searching_seat_records_every_trick_in_goofspiel():
    """Goofspiel's trace counts tricks: with a seat searching, the traced batch records every trick but the last,
    which plays itself with the one before (as without a search, tests/test_trace.py)."""
    from simcore.io import config as cfg

    module = games.load("goofspiel")
    run = cfg.resolve("goofspiel", policies=[(0, "ismcts:iterations=8"), (1, "random")])
    _, trace = testing.traced_blocks(module, run.params_array(), run.policies_array(), 2, 6, block=4)
    assert (trace.info[:, 0] == run.params["num_cards"] - 1).all()
