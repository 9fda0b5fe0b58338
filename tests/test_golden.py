"""Golden playthroughs (tests/golden.py): every game's recorded rows and actions, and its rules version.

Same config and seed, same rows: a change of rows is either an accident, which this catches, or a rule changed
on purpose, which bumps the game's ``GAME.rules_version`` (recorded in every result file) and writes the golden
file again.
"""

import json

import pytest

from simcore import games
from tests import golden

RECORDED = json.loads(golden.FILE.read_text())
BUMP = "if a rule changed on purpose, bump GAME.rules_version in simcore/games/{game}/rules.py and run " \
       "`python tests/golden.py --write`"


def test_every_game_has_golden_playthroughs():
    assert sorted(RECORDED) == sorted(games.names()) == sorted(golden.CASES)


@pytest.mark.parametrize("game, case", [(g, c) for g in golden.CASES for c in golden.CASES[g]])
def test_the_rows_and_actions_are_the_recorded_ones(game, case):
    expected = RECORDED[game]["cases"][case]
    got = golden.record(game, *golden.CASES[game][case])
    assert got["first_game_actions"] == expected["first_game_actions"], \
        f"{game} {case}: the first game's actions changed; " + BUMP.format(game=game)
    assert got["rows_sha256"] == expected["rows_sha256"], \
        f"{game} {case}: the rows of {golden.GAMES} games changed; " + BUMP.format(game=game)


@pytest.mark.parametrize("game", sorted(golden.CASES))
def test_the_rules_version_is_the_recorded_one(game):
    """A bumped rules version comes with playthroughs recorded under it (and the other way round)."""
    assert games.load(game).GAME.rules_version == RECORDED[game]["rules_version"], BUMP.format(game=game)


def test_result_files_record_the_rules_version_and_analyses_warn_on_a_mix(cli, tmp_path):
    """Every result file records its game's rules version; analyze and compare warn when their files mix
    versions, since a difference between them may come from the rules and not from the variants."""
    import pyarrow.parquet as pq

    from analyses import data

    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    assert cli("run", "zwai", "--games", "20", "--out", a, "--quiet").returncode == 0
    table = pq.read_table(a)
    assert table.schema.metadata[b"simcore.rules_version"] == str(games.load("zwai").GAME.rules_version).encode()
    older = {**table.schema.metadata, b"simcore.rules_version": b"0"}
    pq.write_table(table.replace_schema_metadata(older), b)
    assert data.rules_warning([data.load_result(a), data.load_result(a)]) is None
    for command in (["compare", a, b], ["analyze", a, b]):
        done = cli(*command)
        assert done.returncode == 0, done.stderr
        assert "different rules versions of zwai (version 0: " in done.stderr and "compare like with like" in \
            done.stderr
