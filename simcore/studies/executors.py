"""Where the games run: this machine's numba threads, or a Dask cluster.

An executor turns a resolved run into ``(first_game_index, rows)`` blocks in
game order. Rows depend only on ``(config, seed, game_index)``, so every
executor and every task size gives the same rows, and the client writes them
in order: the files are identical.

The Dask executor splits a run into tasks of ``task_games`` games (long enough
that scheduling costs little), runs each on a worker with single-threaded
numba (no oversubscription: the worker's processes are the parallelism), and
hands the blocks back in order as they arrive. A task lost with a killed
worker is run again by Dask: rows are never lost or duplicated, only played
twice.
"""

import os
import time

import numpy as np

from simcore import engine

TASK_GAMES = 1 << 17         # games per Dask task at most (~1-3 s of work for most configs)
MIN_TASK_GAMES = 1 << 14     # ... and at least, unless the run is smaller
CONNECT_TIMEOUT = "5s"


class ExecutorError(RuntimeError):
    """The cluster cannot be used (one-line message)."""


class LocalExecutor:
    """numba ``prange`` over chunks, all cores of this machine."""

    name = "local"

    def prepare(self, config, start=0):
        """Nothing to start ahead of time: the threads play a run when it is asked for."""

    def blocks(self, config, start=0):
        """Games ``start .. start + config.games - 1`` of the run, block by block."""
        yield from engine.run_blocks(config.module, config.params_array(), config.policies_array(),
                                     config.seed, config.games, start)

    def close(self):
        pass


def _play_task(game, params, policies, seed, start, n):
    """Runs on a worker: one task's games, with numba on one thread."""
    import numba

    from simcore import games
    numba.set_num_threads(1)
    return engine.run(games.load(game), params, policies, seed, n, start)


def _warm_up(game, params, policies):
    """Runs on every worker once: import and load (or compile) the game; returns the seconds it took."""
    started = time.perf_counter()
    _play_task(game, params, policies, 0, 0, 1)
    return time.perf_counter() - started


class DaskExecutor:
    """A Dask cluster: ``tcp://host:port`` of a running scheduler, or ``local:N`` for a LocalCluster."""

    name = "dask"

    def __init__(self, address, task_games=TASK_GAMES):
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise ExecutorError("--scheduler needs dask: pip install 'simcore[cluster]'") from None
        self.task_games = task_games
        self.cluster = None
        self.warm = set()
        self.warm_up_seconds = {}
        self.pending = {}          # id(config) -> (config, task starts, futures) submitted ahead
        try:
            if address.startswith("local:"):
                workers = int(address.removeprefix("local:"))
                # workers are spawned: NUMBA_NUM_THREADS set here reaches them before they import numba
                before = os.environ.get("NUMBA_NUM_THREADS")
                os.environ["NUMBA_NUM_THREADS"] = "1"
                try:
                    self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                dashboard_address=None)
                finally:
                    if before is None:
                        del os.environ["NUMBA_NUM_THREADS"]
                    else:
                        os.environ["NUMBA_NUM_THREADS"] = before
                self.client = Client(self.cluster)
            else:
                self.client = Client(address, timeout=CONNECT_TIMEOUT)
        except ValueError:
            raise ExecutorError(f"--scheduler {address!r} is not allowed; allowed: tcp://HOST:PORT or local:N") \
                from None
        except (OSError, TimeoutError) as e:
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {e}") from None

    def _warm_up(self, config):
        """Load the game on every worker once and note how long it took (the compile or cache-load cost)."""
        if config.game in self.warm:
            return
        took = self.client.run(_warm_up, config.game, config.params_array(), config.policies_array())
        self.warm_up_seconds.update({f"{config.game} @ {worker}": s for worker, s in took.items()})
        self.warm.add(config.game)

    def task_size(self, games):
        """Tasks of ``task_games``, smaller for a small run so that every worker gets two (not below
        ``MIN_TASK_GAMES``: a task should last about a second)."""
        workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        share = -(-games // (2 * workers))
        return max(min(self.task_games, share), min(MIN_TASK_GAMES, self.task_games))

    def prepare(self, config, start=0):
        """Submit a run's tasks now, so that the workers play it while the client still writes the last one."""
        if id(config) in self.pending:
            return
        self._warm_up(config)
        params, policies = config.params_array(), config.policies_array()
        size = self.task_size(config.games)
        starts = list(range(start, start + config.games, size))
        futures = {}
        for first in starts:
            n = min(size, start + config.games - first)
            future = self.client.submit(_play_task, config.game, params, policies, config.seed, first, n,
                                        pure=False, retries=3)
            futures[future] = first
        self.pending[id(config)] = (config, starts, futures)

    def blocks(self, config, start=0):
        """Games ``start .. start + config.games - 1`` of the run, block by block in game order."""
        from dask.distributed import as_completed

        self.prepare(config, start)
        _, starts, futures = self.pending.pop(id(config))
        done = {}
        expected = 0
        try:
            for future in as_completed(futures):
                done[futures[future]] = future.result()
                while expected < len(starts) and starts[expected] in done:
                    rows = done.pop(starts[expected])
                    yield starts[expected], np.asarray(rows)
                    expected += 1
        finally:
            for future in futures:
                future.cancel()

    def close(self):
        for _, _, futures in self.pending.values():
            for future in futures:
                future.cancel()
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def executor(scheduler=None, task_games=TASK_GAMES):
    return LocalExecutor() if not scheduler else DaskExecutor(scheduler, task_games)
