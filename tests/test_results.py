"""Parquet writing: row groups as blocks finish, atomic rename, metadata."""

import tomllib

import pyarrow.parquet as pq
import pytest

from simcore.io import config as cfg
from simcore.io import results
from simcore.studies import runs


def test_rows_are_written_in_row_groups_as_blocks_finish(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "ROW_GROUP", 100_000)
    run = cfg.resolve("zwergen", games=300_000, seed=4)
    out = tmp_path / "big.parquet"
    tally = runs.run_to_file(run, out)
    meta = pq.ParquetFile(out).metadata
    assert meta.num_rows == 300_000 == tally.games
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert len(sizes) >= 3 and max(sizes) <= 100_000


def test_a_failure_mid_run_leaves_no_file_and_no_temporary(tmp_path, monkeypatch):
    run = cfg.resolve("zwergen", games=200_000, seed=4)
    out = tmp_path / "broken.parquet"
    calls = []

    def explode(n):
        calls.append(n)
        if len(calls) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runs.run_to_file(run, out, on_block=explode)
    assert list(tmp_path.iterdir()) == []


def test_metadata_round_trips(tmp_path):
    run = cfg.resolve("zwergen", sets=[("pro", True)], policies=[("all", "greedy")], games=100, seed=8,
                      variant="pro-greedy")
    out = tmp_path / "m.parquet"
    runs.run_to_file(run, out)
    table, meta = results.read(out)
    assert meta["variant"] == "pro-greedy" == table["variant"][0].as_py()
    assert meta["seed"] == "8" and meta["game"] == "zwergen"
    again = cfg.resolve(table=tomllib.loads(meta["config"]))
    assert again.params == run.params and again.policies == run.policies and again.seed == 8
