"""The C oracle (``benchmarks/c_oracle/zwai.c``), its numba transcription and the fastest C we wrote
(``benchmarks/c_oracle/zwai_fast.c``) play the same Zwai games as simcore, row for row.

It is the yardstick of simcore's hot loop (``benchmarks/c_oracle/compare.py``, docs/explanation/speed.md): a
speed ratio means something only when both sides do the same work. It was written on its own from docs/zwai.md
with the rulebook's defaults (2 players, the square formation) and draws the same random numbers in the same
order, so every row must agree: who won, the fish and cards banked, what the sharks removed each round.
"""

import shutil
import subprocess

import numpy as np
import pytest

from benchmarks.c_oracle import compare, zwai_numba
from simcore import engine
from simcore.io import config as cfg

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to build the C oracle")


@pytest.mark.parametrize("seed", [1, 9173])
def test_the_c_oracle_plays_simcores_games(tmp_path, seed):
    n_games = 3000
    run = cfg.resolve("zwai", policies=[("all", "random")])
    rows = engine.run(run.module, run.params_array(), run.policies_array(), seed, n_games)
    assert len(np.unique(rows[:, engine.score_offset(4)])) > 10   # games that differ, not one game repeated
    programs = (("C oracle", csv_rows(compare.build(tmp_path, compare.ORACLE), n_games, seed)),
                ("fastest C", csv_rows(compare.build(tmp_path, compare.FASTEST), n_games, seed)),
                ("numba transcription", zwai_numba.run(n_games, seed)))
    for name, other in programs:
        assert other.shape == rows.shape, name
        mismatch = np.flatnonzero((other != rows).any(axis=1))
        assert mismatch.size == 0, f"game {mismatch[:1]}: {name} {other[mismatch[0]]} vs simcore {rows[mismatch[0]]}"


def csv_rows(binary, n_games, seed):
    """The rows a C program prints with ``--csv``, as simcore's row array."""
    text = subprocess.run([str(binary), str(n_games), str(seed), "--csv"], check=True, capture_output=True,
                          text=True).stdout
    return np.array([[int(v) for v in line.split(",")] for line in text.splitlines()], dtype=np.int64)
