"""The C oracle (``benchmarks/c_oracle/zwai.c``) and its numba transcription play the same Zwai games as simcore, row
for row.

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
    binary = compare.build(tmp_path)
    n_games = 3000
    text = subprocess.run([str(binary), str(n_games), str(seed), "--csv"], check=True, capture_output=True,
                          text=True).stdout
    oracle = np.array([[int(v) for v in line.split(",")] for line in text.splitlines()], dtype=np.int64)
    run = cfg.resolve("zwai", policies=[("all", "random")])
    rows = engine.run(run.module, run.params_array(), run.policies_array(), seed, n_games)
    assert oracle.shape == rows.shape
    assert len(np.unique(rows[:, engine.score_offset(4)])) > 10   # games that differ, not one game repeated
    for name, other in (("C", oracle), ("numba transcription", zwai_numba.run(n_games, seed))):
        mismatch = np.flatnonzero((other != rows).any(axis=1))
        assert mismatch.size == 0, f"game {mismatch[:1]}: {name} {other[mismatch[0]]} vs simcore {rows[mismatch[0]]}"
