"""Where the games run: this machine's numba threads, or a Dask cluster.

An executor turns a resolved run into ``(first_game_index, rows)`` blocks in
game order. Rows depend only on ``(config, seed, game_index)``, so every
executor and every task size gives the same rows, and the client writes them
in order: the files are identical.

This machine's blocks are sized by time, for progress that moves about every
second: a first block of one chunk per thread, then each block as many games
as the one before played in ``TARGET_SECONDS`` (at most ``engine.BLOCK``, or
``engine.TRACE_BLOCK`` traced). A searching run's fixed blocks of 65,536
games had left its progress standing for minutes.

The Dask executor splits a run into tasks of ``task_games`` games (long enough
that scheduling costs little), runs each on a worker with single-threaded
numba (no oversubscription: the worker's processes are the parallelism), and
hands the blocks back in order as they arrive. A task lost with a killed
worker is run again by Dask: rows are never lost or duplicated, only played
twice.
"""

import os
import time
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from simcore import engine

TASK_GAMES = 1 << 17         # games per Dask task at most (~1-3 s of work for most configs)
MIN_TASK_GAMES = 1 << 14     # ... and at least, unless the run is smaller
CONNECT_TIMEOUT = 5          # seconds to reach a Dask scheduler, and again to find a worker there
TARGET_SECONDS = 1.0         # a block of this machine's games takes about this long
GROWTH = 8                   # a block at most this many times the one before: a first block of a few games is a
                             # small sample of their lengths
LONG_SECONDS = 60.0          # a run expected to take longer says how long (Pace)


class ExecutorError(RuntimeError):
    """The cluster cannot be used (one-line message)."""


class LocalExecutor:
    """Chunks of games over every thread of this machine (``simcore.engine.binding.Threaded``)."""

    name = "local"

    def prepare(self, config, start=0):
        """Nothing to start ahead of time: the threads play a run when it is asked for."""

    def blocks(self, config, start=0):
        """Games ``start .. start + config.games - 1`` of the run, block by block (:func:`timed_blocks`)."""
        for first, rows, _ in timed_blocks(config, start):
            yield first, rows

    def traced_blocks(self, config, start=0):
        """:meth:`blocks` with each block's traces: ``(first_index, rows, TraceBlock)``."""
        yield from timed_blocks(config, start, traced=True)

    def close(self):
        pass


def timed_blocks(config, start=0, traced=False):
    """Games ``start .. start + config.games - 1`` in blocks of about ``TARGET_SECONDS`` each, the first a chunk
    per thread: ``(first_index, rows, TraceBlock or None)``. The sizes never change the rows (a row depends on
    its seed and game index only)."""
    from simcore.engine import loop

    params, policies = config.params_array(), config.policies_array()
    play = engine.run_traced_blocks if traced else engine.run_blocks
    unit = loop.chunk_games.py_func(policies) * numba.get_num_threads()    # a chunk per thread, as the engine cuts
    size, done = unit, 0
    while done < config.games:
        n = min(size, config.games - done)
        began = time.perf_counter()
        [(first, rows, *trace)] = play(config.module, params, policies, config.seed, n, start + done, block=n)
        seconds = time.perf_counter() - began
        yield first, rows, (trace[0] if traced else None)
        done += n
        size = next_size(n, seconds, unit, engine.TRACE_BLOCK if traced else engine.BLOCK)


def ahead(blocks):
    """The items of the iterator ``blocks``, the next one made on a thread of its own while the caller handles
    this one: a run's next block plays (in the jitted code, without the GIL) while the caller writes this one's
    rows (the Arrow table and zstd: a random Zwai run on one thread took 0.94x the time). The same items in the
    same order; for a caller that takes them all, as a run into a file does: one that stops early would wait
    for the block in flight. The thread plays on as many threads as the caller's (numba's count is per thread:
    a new thread would play on every core, whatever ``--threads`` said)."""
    threads = numba.get_num_threads()

    def advance():
        numba.set_num_threads(threads)
        return next(blocks, None)

    with ThreadPoolExecutor(1, thread_name_prefix="simcore-play") as pool:
        pending = pool.submit(advance)
        while (item := pending.result()) is not None:
            pending = pool.submit(advance)
            yield item


def next_size(played, seconds, unit, most):
    """Games for the next block: what ``played`` games in ``seconds`` say plays in ``TARGET_SECONDS``, in whole
    units (a chunk per thread), at least one unit, at most ``GROWTH`` times ``played`` and ``most``."""
    wanted = played * TARGET_SECONDS / max(seconds, 1e-9)
    return int(min(most, GROWTH * played, max(unit, wanted // unit * unit)))


def duration(seconds):
    """A wait in words: seconds, minutes, hours or days."""
    for unit, length in (("days", 86400), ("hours", 3600)):
        if seconds >= 2 * length:
            return f"{seconds / length:,.0f} {unit}"
    return f"{max(1, round(seconds / 60))} minutes" if seconds >= 90 else f"{seconds:.0f} seconds"


class Pace:
    """Says once, early, how long a run of ``games`` games takes, when that is long: ``add(n)`` after every
    block of ``n`` games. Once the blocks took ``TARGET_SECONDS``, their rate gives the run's time; above
    ``LONG_SECONDS``, ``say`` hears one line: "about N hours for G games; " and ``after`` (what Ctrl-C keeps).
    A shorter run says nothing. The rate leaves out the first block when others follow it: it pays for starting
    (a duel of Zwergen Ziehen: 0.35 s for its first 512 games, 0.25 s for each 65,536 after)."""

    def __init__(self, games, say, after):
        self.games, self.say, self.after = games, say, after
        self.done = 0
        self.started = time.perf_counter()
        self.first = None          # (when the first block ended, its games)
        self.told = say is None

    def skip(self, n):
        """``n`` of the games are not played after all (a resumed run had finished them)."""
        self.games -= n

    def add(self, n):
        now = time.perf_counter()
        self.done += n
        self.first = self.first or (now, n)
        if self.told or now - self.started < TARGET_SECONDS:
            return
        self.told = True
        ended, first = self.first
        rate = (self.done - first) / (now - ended) if self.done > first else self.done / (now - self.started)
        expected = now - self.started + (self.games - self.done) / rate
        if expected > LONG_SECONDS:
            self.say(f"about {duration(expected)} for {self.games:,} games; {self.after}")


def _play_task(game, params, policies, seed, start, n):
    """Runs on a worker: one task's games, with numba on one thread."""
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
                workers = local_workers(address)
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
                self.client = _connect(Client, address)
        except ValueError:
            raise ExecutorError(f"--scheduler {address!r} is not allowed; allowed: tcp://HOST:PORT or local:N") \
                from None
        except TimeoutError:        # the handshake's (an OSError too, without words)
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: no answer within {CONNECT_TIMEOUT} s") \
                from None
        except OSError as e:        # in Dask's words
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


def local_workers(address):
    """N of ``local:N``: 1 to this machine's cores (each worker plays on one thread: more would only share them),
    else a one-line :class:`ExecutorError` (local:0 made a cluster that took the tasks and never played them)."""
    most = os.cpu_count() or 1
    count = address.removeprefix("local:")
    if not count.isdigit() or not 1 <= int(count) <= most:
        raise ExecutorError(f"--scheduler {address} is not allowed; allowed: local:N with N from 1 to {most} (this "
                            "machine's cores), or tcp://HOST:PORT")
    return int(count)


def _connect(client, address):
    """A ``client`` of the scheduler at ``address`` that has a worker, waiting at most ``CONNECT_TIMEOUT`` seconds
    for each. The client's own timeout covers connecting, not the handshake after it, which an address that
    accepts and stays silent never sends; and a scheduler without workers would take the tasks and never play
    them."""
    _handshake(address)
    connected = client(address, timeout=f"{CONNECT_TIMEOUT}s")
    try:
        connected.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except TimeoutError:
        connected.close()
        raise ExecutorError(f"the Dask scheduler at {address} has no worker (none joined within {CONNECT_TIMEOUT} "
                            "s); allowed: a scheduler with workers") from None
    return connected


def _handshake(address):
    """Connect to ``address`` and exchange Dask's handshake, all within ``CONNECT_TIMEOUT`` seconds (TimeoutError,
    or OSError); in a thread of its own, as the client runs its own event loop (a notebook's may be running)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm import connect

    async def shake():
        comm = await connect(address, timeout=CONNECT_TIMEOUT)
        await comm.close()

    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, asyncio.wait_for(shake(), CONNECT_TIMEOUT)).result()


def executor(scheduler=None, task_games=TASK_GAMES):
    return LocalExecutor() if not scheduler else DaskExecutor(scheduler, task_games)
