"""``simcore warm``: compile, once for this machine, every copy of the game loop a study will play, before it.

A game's game loop comes in copies, each compiled on its first use (``simcore.engine.batch_function``): random
seats, random and greedy seats, and a copy for each mix of searching agents, each traced or not. One sitting of
the tutorial met each in turn, each a wait of its own. ``warm`` compiles the copies asked for up front, the games
in parallel processes (each game compiles into a cache folder of its own), a game's copies over several processes
where there are more cores than games (:func:`shares`), and says each copy as it is ready; a copy already cached
loads in a second. With ``--search`` it compiles the copy with every agent alone, which then serves every seat a
study plays, random, greedy or searching (``simcore.engine.copy_uses``).
"""

import concurrent.futures
import multiprocessing
import os
import time


def copies(module, search=False, trace=False):
    """(seats, uses, traced) of each copy of game ``module`` to compile: every seat random and every seat greedy
    (where the game has a heuristic), or with ``search`` the copy with every agent, which serves random and greedy
    seats too at their speed (``simcore.engine.copy_uses`` takes the smallest copy compiled), and the game's own
    whole random games where it has them; each traced too (``trace``, where the game declares a trace). ``seats``:
    (seat, spec) pairs as ``--policy`` takes them; ``uses``: the copy's (``simcore.engine.binding.USES``), or
    None for the copy the seats pick for the game's default variant."""
    from simcore.engine import binding

    own = "greedy" if module.GAME.heuristic else "random"
    if search:
        seatings = [([("all", own)], binding.EVERY)]
    else:
        seatings = [([("all", "random")], None)] + ([([("all", own)], None)] if own != "random" else [])
    traced = (False, True) if trace and module.GAME.trace else (False,)
    listed = [(seats, uses, t) for seats, uses in seatings for t in traced]
    # and the game's own whole random games, where it has them (simcore.engine.plays_random_games)
    return listed + [([("all", "random")], None, False)] * (search and hasattr(module, "random_game"))


def warm_game(game, search=False, trace=False, part=0, parts=1):
    """Load or compile each copy of ``game`` (in a worker process; with ``parts`` > 1 the ``part``-th share of
    them), saying on stderr each that compiles, with the compile's heartbeat every 2 seconds: (game, [(the copy's
    place in :func:`copies`, its name, seconds)])."""
    from simcore import engine
    from simcore.cli import _compiling
    from simcore.io import config as cfg

    done = []
    listed = copies(cfg.resolve(game).module, search, trace)
    for seats, uses, traced in shares(listed, parts)[part]:
        run = cfg.resolve(game, policies=seats)
        copy = (engine.use_words(uses, traced) if uses else
                engine.copy_name(run.module, run.policies_array(), traced, run.params_array()))
        start = time.perf_counter()
        engine.load(run.module, run.params_array(), run.policies_array(), _compiling(True, copy), traced=traced,
                    uses=uses)
        done.append((listed.index((seats, uses, traced)), copy, time.perf_counter() - start))
    return game, done


def shares(listed, parts):
    """``listed`` copies dealt into ``parts`` shares for as many processes: the copy with every agent (the
    longest compile) alone where it can be, the rest in turn. A game's copies compile its rules each; two
    processes that compile the same function write the same machine code to its cache entry."""
    first = [c for c in listed if c[1]] + [c for c in listed if not c[1]]
    return [first[i::parts] for i in range(parts)] if parts > 1 else [listed]


def split(names, search, trace):
    """Into how many shares each game's copies go: one, unless there are more cores than games and traced copies
    beside the untraced ones (with ``search`` the copy with every agent, traced and not: the two longest
    compiles)."""
    return max(1, (os.cpu_count() or 1) // max(1, len(names))) if trace else 1


def processes(names, search=False, trace=False):
    """How many processes compile at a time."""
    return max(1, min(len(names) * split(names, search, trace), os.cpu_count() or 1))


def warm(names, search=False, trace=False, on_game=None):
    """Compile every copy of the games ``names`` asks for, a process per game at a time (as many as there are
    cores), a game's copies over several processes where there are more cores than games; ``on_game(game,
    [(copy, seconds)])`` as each game is ready. Returns the copies' count."""
    parts = split(names, search, trace)
    workers = processes(names, search, trace)
    # spawn: a child starts clean (numba's threads and caches are not forked mid-use)
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        pending = [pool.submit(warm_game, name, search, trace, part, parts) for name in names for part in range(parts)]
        finished = {name: [] for name in names}
        count = 0
        for future in concurrent.futures.as_completed(pending):
            game, done = future.result()
            finished[game].append(done)
            count += len(done)
            if len(finished[game]) == parts and on_game is not None:
                on_game(game, [(copy, seconds) for _, copy, seconds in sorted(sum(finished[game], []))])
    return count
