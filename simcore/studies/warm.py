"""``simcore warm``: compile, once for this machine, every copy of the game loop a study will play, before it.

A game's game loop comes in copies, each compiled on its first use (``simcore.engine.batch_function``): random
seats, random and greedy seats, the searching agents, each traced or not. One sitting of the tutorial met each
in turn, each a wait of its own. ``warm`` compiles the copies asked for up front, the games in parallel
processes (each game compiles into a cache folder of its own, so two never write one file), and says each copy
as it is ready; a copy already cached loads in a second.
"""

import concurrent.futures
import multiprocessing
import os
import time

SEARCH = "ismcts:iterations=2"      # a searching seat: the copy with the agents mc and ismcts


def copies(module, search=False, trace=False):
    """(seats, traced) of each copy of game ``module`` to compile: every seat random, every seat greedy (where
    the game has a heuristic), one seat searching (``search``), each traced too (``trace``, where the game
    declares a trace). ``seats``: (seat, spec) pairs as ``--policy`` takes them."""
    own = "greedy" if module.GAME.heuristic else "random"
    seatings = [[("all", "random")]] + ([[("all", own)]] if own != "random" else [])
    seatings += [[("all", own), (0, SEARCH)]] if search else []
    traced = (False, True) if trace and module.GAME.trace else (False,)
    return [(seats, t) for seats in seatings for t in traced]


def warm_game(game, search=False, trace=False):
    """Load or compile each copy of ``game`` (in a worker process), saying on stderr each that compiles, with the
    compile's heartbeat every 2 seconds: (game, [(copy's name, seconds)])."""
    from simcore import engine
    from simcore.cli import _compiling
    from simcore.io import config as cfg

    done = []
    for seats, traced in copies(cfg.resolve(game).module, search, trace):
        run = cfg.resolve(game, policies=seats)
        copy = engine.copy_name(run.module, run.policies_array(), traced)
        start = time.perf_counter()
        engine.load(run.module, run.params_array(), run.policies_array(), _compiling(True, copy), traced=traced)
        done.append((copy, time.perf_counter() - start))
    return game, done


def warm(names, search=False, trace=False, on_game=None):
    """Compile every copy of the games ``names`` asks for, a process per game at a time (as many as there are
    cores); ``on_game(game, [(copy, seconds)])`` as each game is ready. Returns the copies' count."""
    workers = max(1, min(len(names), os.cpu_count() or 1))
    # spawn: a child starts clean (numba's threads and caches are not forked mid-use)
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        pending = [pool.submit(warm_game, name, search, trace) for name in names]
        count = 0
        for future in concurrent.futures.as_completed(pending):
            game, done = future.result()
            count += len(done)
            if on_game is not None:
                on_game(game, done)
    return count
