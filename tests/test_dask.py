"""The Dask executor: the same bytes as a local run, faults cost retries, not rows; clear errors."""

import os
import signal
import time

import numpy as np
import pytest

from simcore import engine
from simcore.io import config as cfg
from simcore.studies import sweep

pytest.importorskip("distributed")
from simcore.studies.executors import DaskExecutor, ExecutorError  # noqa: E402

SWEEP = """
game = "zwergen"
games = 30000
seed = 4
[policies]
all = "greedy"
[axes]
pro = [false, true]
players = [2, 4]
"""


@pytest.fixture(scope="module")
def cluster():
    ex = DaskExecutor("local:2", task_games=7000)
    yield ex
    ex.close()


def test_cluster_and_local_sweeps_write_identical_files(tmp_path, cluster):
    """Issue: 'the same sweep run locally, on a LocalCluster of 2 workers and with different chunking gives
    byte-identical Parquet data'."""
    path = tmp_path / "s.toml"
    path.write_text(SWEEP)
    sweep.run(sweep.load(path), tmp_path / "local")
    sweep.run(sweep.load(path), tmp_path / "dask", executor=cluster)
    files = sorted(p.name for p in (tmp_path / "local").glob("*.parquet"))
    assert len(files) == 4
    for name in files:
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name
    assert len(cluster.warm_up_seconds) == 2      # the first call's cost, measured on each worker


def test_a_killed_worker_costs_retries_not_rows(cluster):
    """Issue: 'a worker killed in the middle of a sweep ... costs retried tasks, not lost or duplicated rows'."""
    run = cfg.resolve("zwai", sets=[("players", 3)], policies=[("all", "greedy")], games=140_000, seed=8)
    expected = engine.run(run.module, run.params_array(), run.policies_array(), 8, 140_000)
    got = []
    for first, rows in cluster.blocks(run):
        got.append((first, rows))
        if len(got) == 1:
            pids = cluster.client.run(os.getpid)
            os.kill(next(iter(pids.values())), signal.SIGKILL)
    firsts = [f for f, _ in got]
    assert firsts == sorted(set(firsts)) and firsts[0] == 0
    assert np.array_equal(np.concatenate([r for _, r in got]), expected)


def test_unreachable_scheduler_is_a_clear_error_within_seconds(cli, tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SWEEP)
    started = time.perf_counter()
    done = cli("sweep", path, "--out", tmp_path / "out", "--scheduler", "tcp://127.0.0.1:9")
    assert done.returncode != 0
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert time.perf_counter() - started < 30
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.parquet"))


def test_an_interrupted_cluster_sweep_resumes_like_a_local_one(tmp_path, cluster):
    path = tmp_path / "s.toml"
    path.write_text(SWEEP)
    out = tmp_path / "runs"
    sweep.run(sweep.load(path), out, executor=cluster)
    (out / "pro=true,players=4.parquet").unlink()
    status = sweep.run(sweep.load(path), out, executor=cluster)
    assert status["pro=true,players=4"] == "played again" and list(status.values()).count("skipped") == 3


def test_a_ladder_on_the_cluster_writes_the_local_ladders_files(tmp_path, cluster):
    """Issue 13: simcore ladder runs on Dask with --scheduler; the same games as on this machine."""
    from simcore.studies import ladder

    plan = ladder.plan("zwai", [], "ismcts", (1, 3), games=12, seed=2)
    local = ladder.climb(plan, tmp_path / "local")
    remote = ladder.climb(plan, tmp_path / "dask", executor=cluster)
    assert remote.rungs == local.rungs
    for seat in range(2):
        name = f"b3-vs-b1-seat{seat}.parquet"
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes()


def test_a_tune_run_on_the_cluster_writes_the_local_runs_files(tmp_path, cluster):
    """Issue 14: simcore tune runs on Dask with --scheduler, byte-identical to a local run."""
    from simcore.studies import tune

    path = tmp_path / "t.toml"
    path.write_text('game = "zwai"\nseed = 3\n[policies]\nall = "greedy"\n[space]\nhand_size_2 = [10, 11, 12]\n'
                    '[objective]\ngap = 1.0\n[search]\nbatch = 500\ngames_max = 1500\nconfirm_games = 500\n')
    plan = tune.load(path)
    local = tune.run(plan, tmp_path / "local")
    remote = tune.run(tune.load(path), tmp_path / "dask", executor=cluster)
    assert remote.race.alive == local.race.alive
    names = sorted(p.name for p in (tmp_path / "local").glob("*.parquet"))
    assert "batch-0000.parquet" in names and "confirm.parquet" in names
    for name in names:
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name


def _command(*args, cwd):
    """simcore in a process of its own, stopped after a minute: the waits these tests are about were endless."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "simcore", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=60)


@pytest.mark.parametrize("address", ["local:0", "local:-1", "local:x", f"local:{(os.cpu_count() or 1) + 1}"])
def test_a_bad_worker_count_is_refused_in_one_line(address):
    """Issue 36: `--scheduler local:0` (or local:-1) made a cluster without workers and waited for them
    forever: a worker count from 1 to this machine's cores is allowed, anything else refused, naming both."""
    with pytest.raises(ExecutorError) as refused:
        DaskExecutor(address)
    assert str(refused.value) == (f"--scheduler {address} is not allowed; allowed: local:N with N from 1 to "
                                  f"{os.cpu_count() or 1} (this machine's cores), or tcp://HOST:PORT")


TUNE = ('game = "zwergen"\n[policies]\nall = "greedy"\n[space]\nswap_penalty = [0, 1]\n[objective]\ngap = 1.0\n'
        '[search]\nbatch = 100\ngames_max = 200\nconfirm_games = 100\n')


@pytest.mark.parametrize("command", ["sweep", "ladder", "tune"])
def test_local_zero_stops_every_command_in_one_line_leaving_nothing(tmp_path, command):
    """Issue 36: `sweep --scheduler local:0` waited forever, leaving a lock file and a temporary file in the
    --out folder; ladder and tune too. Now one line, and no folder."""
    (tmp_path / "s.toml").write_text(SWEEP)
    (tmp_path / "t.toml").write_text(TUNE)
    what = {"sweep": ["sweep", "s.toml"], "ladder": ["ladder", "zwergen", "--budgets", "1,2", "--games", 4],
            "tune": ["tune", "t.toml"]}[command]
    done = _command(*what, "--out", "out", "--scheduler", "local:0", cwd=tmp_path)
    assert done.returncode != 0
    assert done.stderr.startswith("Error: --scheduler local:0 is not allowed; allowed: local:N with N from 1 to ")
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_a_silent_scheduler_address_times_out_in_one_line_leaving_nothing(tmp_path):
    """Issue 36: an address that takes the connection and answers nothing was waited for forever (Dask's client
    times out connecting, not its handshake): one line after CONNECT_TIMEOUT seconds, and no --out folder."""
    import socket

    (tmp_path / "s.toml").write_text(SWEEP)
    with socket.create_server(("127.0.0.1", 0)) as silent:      # listens, never accepts, never answers
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        done = _command("sweep", "s.toml", "--out", "out", "--scheduler", address, cwd=tmp_path)
    assert done.returncode != 0
    assert done.stderr == f"Error: cannot reach the Dask scheduler at {address}: no answer within 5 s\n"
    assert not (tmp_path / "out").exists()


def test_a_scheduler_without_workers_is_a_one_line_error(monkeypatch):
    """Issue 36: a scheduler with no worker took the tasks and never played them: the executor waits
    CONNECT_TIMEOUT seconds for a worker, then says so in one line."""
    from dask.distributed import LocalCluster

    from simcore.studies import executors

    monkeypatch.setattr(executors, "CONNECT_TIMEOUT", 1)
    with LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=None) as empty:
        with pytest.raises(ExecutorError) as refused:
            DaskExecutor(empty.scheduler_address)
    assert str(refused.value) == (f"the Dask scheduler at {empty.scheduler_address} has no worker (none joined "
                                  "within 1 s); allowed: a scheduler with workers")


def test_a_restricted_policy_plays_the_same_rows_on_the_cluster(cluster):
    """Issue 55: a restricted seat (forbid, prefer; a restricted greedy searches where its pick is forbidden) plays
    the same rows on a cluster's workers as on this machine: the restriction travels in the agents table."""
    seats = [("all", "greedy"), ("0", "greedy:forbid=fish_2"), ("1", "random:prefer=fish_3")]
    run = cfg.resolve("zwai", policies=seats, sets=[("players", 3)], games=600, seed=8)
    local = engine.run(run.module, run.params_array(), run.policies_array(), run.seed, run.games)
    remote = np.concatenate([rows for _, rows in cluster.blocks(run)])
    assert np.array_equal(local, remote)
