"""Issue 54, "data tools read a folder whole": every result file of a game has one schema, the columns of every
seat the game can have, null where the variant seats fewer. pandas dropped seats 2 and 3 of a folder of 2-, 3-
and 4-player Zwai variants without a word, DuckDB kept only `win_0` and `win_1`, polars raised a SchemaError.
simcore's readers leave the null seats out, and read files written before (their own seats only) alike."""

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analyses import report
from analyses.data import load_folder, load_result
from simcore import games
from simcore.studies import sweep

SWEEPS = {"zwai": [2, 3, 4], "wichtel": [3, 4, 5], "goofspiel": [2, 3, 4]}


@pytest.fixture(scope="module", params=sorted(SWEEPS))
def mixed(request, tmp_path_factory):
    """A folder of one game at each of its player counts (Der Herr der Wichtel's columns of labels too)."""
    game = request.param
    root = tmp_path_factory.mktemp(game)
    (root / "s.toml").write_text(f'game = "{game}"\ngames = 40\nseed = 2\n[axes]\nplayers = {SWEEPS[game]}\n')
    sweep.run(sweep.load(root / "s.toml"), root / "runs")
    return game, root / "runs"


def test_every_file_of_a_game_has_one_schema_its_absent_seats_null(mixed):
    game, folder = mixed
    files = sorted(folder.glob("*.parquet"))
    schemas = [pq.read_schema(f).remove_metadata() for f in files]
    assert all(s.equals(schemas[0]) for s in schemas)
    seats = games.load(game).MAX_SEATS
    assert {f"win_{i}" for i in range(seats)} | {f"score_{i}" for i in range(seats)} <= set(schemas[0].names)
    for f in files:
        table = pq.read_table(f)
        players = table["n_players"][0].as_py()
        for i in range(seats):
            nulls = table[f"win_{i}"].null_count, table[f"score_{i}"].null_count
            assert nulls == ((0, 0) if i < players else (table.num_rows, table.num_rows)), (f.name, i)


def test_pandas_polars_and_duckdb_read_the_folder_whole(mixed):
    game, folder = mixed
    rows = {r.players: r.n_games for r in load_folder(folder)}
    last = f"win_{games.load(game).MAX_SEATS - 1}"
    frame = pd.read_parquet(folder)
    assert len(frame) == sum(rows.values()) and last in frame.columns
    assert frame.groupby("n_players")[last].count().to_dict() == {p: n * (p == max(rows)) for p, n in rows.items()}
    polars = pl.read_parquet(f"{folder}/*.parquet")
    assert polars.shape == frame.shape and polars[last].null_count() == sum(rows.values()) - rows[max(rows)]
    counted = duckdb.sql(f"SELECT count(*), count({last}) FROM '{folder}/*.parquet'").fetchall()[0]
    assert counted == (sum(rows.values()), rows[max(rows)])


def _old(path, to):
    """The file as simcore wrote it before one schema: its own seats' columns only, the same metadata."""
    table = pq.read_table(path)
    kept = [name for name in table.column_names if table[name].null_count < table.num_rows]
    pq.write_table(pa.Table.from_arrays([table[n] for n in kept], names=kept).replace_schema_metadata(
        table.schema.metadata), to)
    return to


def test_files_written_before_one_schema_read_and_analyze_the_same(mixed, tmp_path):
    game, folder = mixed
    new = sorted(folder.glob("*.parquet"))
    old = [_old(f, tmp_path / f.name) for f in new]
    assert any(len(pq.read_schema(o).names) < len(pq.read_schema(n).names) for o, n in zip(old, new, strict=True))
    for o, n in zip(old, new, strict=True):
        a, b = load_result(o), load_result(n)
        assert a.columns.keys() == b.columns.keys() and a.players == b.players
        assert all(np.array_equal(a.columns[k], b.columns[k]) for k in a.columns)
    said = [report.analyze([load_result(f) for f in files]) for files in (old, new)]
    assert [v.text for v in said[0].verdicts.values()] == [v.text for v in said[1].verdicts.values()]
