"""``simcore warm``: compile, once for this machine, every copy of the game loop a study will play, before it.

A game's game loop comes in copies, each compiled on its first use (``simcore.engine.batch_function``): random
seats, random and greedy seats, and a copy for each mix of searching agents, each traced or not. One sitting of
the tutorial met each in turn, each a wait of its own. ``warm`` compiles the copies asked for up front, the games
in parallel processes (each game compiles into a cache folder of its own), a game's copies over several processes
where there are more cores than games (:func:`shares`), and says each copy as it is ready; a copy already cached
loads in a second. With ``--search`` it compiles the copy with every agent in place of that of random and greedy
seats, which it serves too (``simcore.engine.copy_uses``); the agents of a report's replay pages always.
"""

import concurrent.futures
import multiprocessing
import os
import time

REPLAYS = "replays"      # a copy's ``uses`` in :func:`copies` for the agents of a report's replay pages


def copies(module, search=False, trace=False):
    """(seats, uses, traced) of each copy of game ``module`` to compile: that of every seat greedy (where the game
    has a heuristic, else random), which serves random seats too, or with ``search`` the copy with every agent,
    which serves them all at their speed (``simcore.engine.copy_uses`` takes the smallest copy compiled); with
    ``trace`` (where the game declares one) the traced copy of those seats, which a traced sweep plays; the agents
    of a report's replay pages (:data:`REPLAYS`, ``simcore replay`` and ``analyze --report``); and the game's own
    whole random games where it has them. ``seats``: (seat, spec) pairs as ``--policy`` takes them; ``uses``: the
    copy's (``simcore.engine.binding.USES``), :data:`REPLAYS`, or None for the copy the seats pick in the game's
    default variant."""
    from simcore.engine import binding

    own = [("all", "greedy" if module.GAME.heuristic else "random")]
    listed = [(own, binding.EVERY if search else None, False)]
    listed += [(own, None, True)] if trace and module.GAME.trace else []
    listed += [(own, REPLAYS, False)]
    return listed + [([("all", "random")], None, False)] * hasattr(module, "random_game")


def warm_game(game, search=False, trace=False, part=0, parts=1):
    """Load or compile each copy of ``game`` (in a worker process; with ``parts`` > 1 the ``part``-th share of
    them), saying on stderr each that compiles, with the compile's heartbeat every 2 seconds: (game, [(the copy's
    place in :func:`copies`, its name, seconds)])."""
    from simcore import engine, handle
    from simcore.cli import _compiling
    from simcore.io import config as cfg

    done = []
    listed = copies(cfg.resolve(game).module, search, trace)
    for seats, uses, traced in shares(listed, parts)[part]:
        run = cfg.resolve(game, policies=seats)
        start = time.perf_counter()
        if uses == REPLAYS:
            copy = "agents for the replay pages"
            handle.load_game(game).load_agents(_compiling(True, copy), [spec for _, spec in seats])
        else:
            copy = (engine.use_words(uses, traced) if uses else
                    engine.copy_name(run.module, run.policies_array(), traced, run.params_array()))
            engine.load(run.module, run.params_array(), run.policies_array(), _compiling(True, copy),
                        traced=traced, uses=uses)
        done.append((listed.index((seats, uses, traced)), copy, time.perf_counter() - start))
    return game, done


def weight(copy):
    """A copy's compile, roughly, against that of the copy of random and greedy seats: the copy with every agent
    is the longest (Zwai's 52 s against 22 s, one process each, issue 57); random seats' are the shortest (Zwai's
    own random games 4 s)."""
    from simcore.engine import binding

    seats, uses, _ = copy
    return 2.5 if uses == binding.EVERY else 0.5 if seats == [("all", "random")] else 1.0


def shares(listed, parts):
    """``listed`` copies dealt into ``parts`` shares for as many processes, each copy (the longest first) to the
    share with the least compile so far (:func:`weight`): the copy with every agent alone where it can be. Two
    processes that compile the same function write the same machine code to its cache entry."""
    if parts <= 1:
        return [listed]
    dealt = [[] for _ in range(parts)]
    for copy in sorted(listed, key=weight, reverse=True):
        min(dealt, key=lambda share: sum(map(weight, share))).append(copy)
    return dealt


def split(names, search, trace):
    """Into how many shares each game's copies go: as many as there are cores per game, at most one a copy."""
    from simcore import games

    fewest = min(len(copies(games.load(name), search, trace)) for name in names) if names else 1
    return max(1, min((os.cpu_count() or 1) // max(1, len(names)), fewest))


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
