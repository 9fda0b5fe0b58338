"""Throughput: games per second of the jitted engine and of the pure-Python reference.

    simcore bench [--game zwergen] [--games N] [--repeats R] [--json out.json]

A case with an ``ismcts`` seat also gives the search's iterations per second on one thread (every iteration of
every search of its games, counted by the engine). Where ``gcc`` is there, in a source checkout, Zwai's random play
(``zwai-2p-random``) is set beside the fastest hand-written C of the same games
(``benchmarks/c_oracle/zwai_fast.c``, built with ``gcc -O2 -march=native``, one thread, its rows to a file).

For every benchmark case: the jitted engine on 1 thread and on all cores, the
plain-Python reference implementation (``benchmarks/reference/<game>.py``, in
a source checkout only: an installed wheel leaves that column out) on the same
rules, seeds and policies, the ratios, and the wall time of a fresh
``simcore run`` process whose config differs from every earlier one (numba
cache warm, so this is import + cache load + the run itself). Each figure is
the median of ``repeats`` measurements.
"""

import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba

from simcore import engine
from simcore.engine.binding import bind
from simcore.io import config as cfg
from simcore.io import writing

# the plain search (no tools, one tree keyed by codes), whatever a game recommends: its speed is comparable
# across versions
RAW_ISMCTS = "ismcts:iterations=1000,rollout=random,cutoff=0,widen=0,tree=raw"
# name -> (game, parameter overrides, policy (one spec for every seat, or {seat: spec}), games for the Python
# reference: 0 where it has no such policy)
CASES = {
    "zwergen-2p-random": ("zwergen", {}, "random", 3_000),
    "zwergen-2p-greedy": ("zwergen", {}, "greedy", 2_000),
    "zwergen-4p-pro-greedy": ("zwergen", {"players": 4, "pro": True}, "greedy", 2_000),
    "zwergen-2p-mc8-vs-greedy": ("zwergen", {}, {"all": "greedy", 0: "mc:rollouts=8"}, 0),
    "zwai-2p-random": ("zwai", {}, "random", 2_000),
    "zwai-2p-greedy": ("zwai", {}, "greedy", 1_000),
    "zwai-4p-ring-greedy": ("zwai", {"players": 4, "formation": "ring"}, "greedy", 1_000),
    "zwai-2p-mc8-vs-greedy": ("zwai", {}, {"all": "greedy", 0: "mc:rollouts=8"}, 0),
    "wichtel-4p-random": ("wichtel", {}, "random", 1_000),
    "wichtel-4p-greedy": ("wichtel", {}, "greedy", 500),
    "wichtel-5p-no-beste-greedy": ("wichtel", {"players": 5, "bribe_ranking": ["2", "3", "4", "5", "6"]},
                                   "greedy", 500),
    "wichtel-4p-mc8-vs-greedy": ("wichtel", {}, {"all": "greedy", 0: "mc:rollouts=8"}, 0),
    "skirmish-lms-random": ("skirmish", {}, "random", 300),
    "skirmish-lms-greedy": ("skirmish", {}, "greedy", 200),
    "skirmish-ctf-greedy": ("skirmish", {"scenario": "capture_the_flag"}, "greedy", 40),
    "skirmish-lms-mc8-vs-greedy": ("skirmish", {}, {"all": "greedy", 0: "mc:rollouts=8"}, 0),
    "zwai-2p-ismcts1000-vs-greedy": ("zwai", {}, {"all": "greedy", 0: RAW_ISMCTS}, 0),
    "zwergen-2p-ismcts1000-vs-greedy": ("zwergen", {}, {"all": "greedy", 0: RAW_ISMCTS}, 0),
    "wichtel-4p-ismcts1000-vs-greedy": ("wichtel", {}, {"all": "greedy", 0: RAW_ISMCTS}, 0),
    "skirmish-lms-ismcts1000-vs-greedy": ("skirmish", {}, {"all": "greedy", 0: RAW_ISMCTS}, 0),
    "goofspiel-2p-random": ("goofspiel", {}, "random", 5_000),
    "goofspiel-4p-greedy-vs-random": ("goofspiel", {"players": 4}, {"all": "random", 0: "greedy"}, 5_000),
    "goofspiel-2p-mc8-vs-greedy": ("goofspiel", {}, {"all": "greedy", 0: "mc:rollouts=8"}, 0),
    "goofspiel-2p-ismcts1000-vs-greedy": ("goofspiel", {}, {"all": "greedy", 0: RAW_ISMCTS}, 0),
    # each game's recommended search (GameType.search), where it differs from the raw one
    "zwergen-2p-recommended-vs-greedy": ("zwergen", {}, {"all": "greedy", 0: "ismcts:iterations=1000"}, 0),
    "wichtel-4p-recommended-vs-greedy": ("wichtel", {}, {"all": "greedy", 0: "ismcts:iterations=1000"}, 0),
    "skirmish-lms-recommended-vs-greedy": ("skirmish", {}, {"all": "greedy", 0: "ismcts:iterations=1000"}, 0),
    "skirmish-ctf-recommended-vs-greedy": ("skirmish", {"scenario": "capture_the_flag"},
                                           {"all": "greedy", 0: "ismcts:iterations=1000"}, 0),
    "goofspiel-2p-recommended-vs-greedy": ("goofspiel", {}, {"all": "greedy", 0: "ismcts:iterations=1000"}, 0),
}
# game -> (parameter, values) to make each warm-start run a config not seen before
FRESH_CONFIG = {**{game: ("max_turns", tuple(range(1001, 1008)))
                   for game in ("zwergen", "zwai", "wichtel", "skirmish")},
                "goofspiel": ("num_cards", tuple(range(7, 14)))}   # a game that never times out has no max_turns
SEARCHING = ("mc", "ismcts")
REPOSITORY = Path(__file__).resolve().parents[2]   # a source checkout has benchmarks/ beside simcore/
NO_REFERENCE = ("the pure-Python references are not importable here (they live in a source checkout's "
                "benchmarks/reference/), so the Python column is left out")
JIT_GAMES = {"skirmish": 60_000}       # games per jitted measurement (skirmish games are long)
SEARCH_GAMES = {"zwai": 1024, "zwergen": 1024, "wichtel": 512, "skirmish": 20, "goofspiel": 2048}   # with an mc seat
# with an ismcts:iterations=1000 seat
ISMCTS_GAMES = {"zwai": 64, "zwergen": 48, "wichtel": 24, "skirmish": 8, "goofspiel": 128}
FEW_GAMES = 16      # ... of a game not measured here (a designer's): few, since its length is unknown
C_CASE = "zwai-2p-random"     # the case the hand-written C plays (benchmarks/c_oracle/zwai_fast.c)
C_GAMES = (100_000, 1_100_000)     # its small and large run: the rate is the extra games over the extra seconds


def nested(values):
    """Dotted parameter names -> nested dicts, as the reference implementations take them."""
    out = {}
    for name, value in values.items():
        *groups, key = name.split(".")
        table = out
        for g in groups:
            table = table.setdefault(g, {})
        table[key] = value
    return out


def reference_params(run):
    """A run's parameters as the reference implementations take them (formations as ASCII art)."""
    params = nested(run.params)
    if run.game == "zwai":
        from simcore.games import zwai
        params["formation"] = zwai.draw_formation(zwai.formation_cells(params["formation"]))
    if run.game == "skirmish":
        from simcore.games import skirmish
        params["yard"] = skirmish.yard_art(params["yard"])
    return params


def _median_rate(fn, n, repeats):
    rates = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        rates.append(n / (time.perf_counter() - t))
    return statistics.median(rates)


def _jitted_rate(run, threads, games, repeats, seed):
    numba.set_num_threads(threads)
    params, policies = run.params_array(), run.policies_array()

    def go():
        for _ in engine.run_blocks(run.module, params, policies, seed, games):
            pass

    return _median_rate(go, games, repeats)


def _search_rates(run, games, repeats, seed):
    """Games and ISMCTS iterations per second on this thread alone (``search_batch``), medians."""
    params, policies = run.params_array(), run.policies_array()
    search_batch = bind(run.module).search_batch
    search_batch(params, policies, seed, 0, 1)   # compile or load from cache
    rates = []
    for _ in range(repeats):
        t = time.perf_counter()
        iterations = search_batch(params, policies, seed, 0, games)
        elapsed = time.perf_counter() - t
        rates.append((games / elapsed, iterations / elapsed))
    return statistics.median(r[0] for r in rates), statistics.median(r[1] for r in rates)


def reference_module(game):
    """The pure-Python reference of ``game``, or None where it cannot be imported (an installed wheel)."""
    if not (REPOSITORY / "benchmarks" / "reference" / f"{game}.py").is_file():
        return None
    if str(REPOSITORY) not in sys.path:   # the console script does not start in the checkout
        sys.path.append(str(REPOSITORY))
    return importlib.import_module(f"benchmarks.reference.{game}")


def c_rate(repeats):
    """Games a second of the fastest hand-written C of Zwai's random play on one thread (median of ``repeats``),
    or None where it cannot be built: no ``gcc``, or no source checkout (an installed wheel)."""
    if shutil.which("gcc") is None or not (REPOSITORY / "benchmarks" / "c_oracle" / "zwai_fast.c").is_file():
        return None
    if str(REPOSITORY) not in sys.path:
        sys.path.append(str(REPOSITORY))
    compare = importlib.import_module("benchmarks.c_oracle.compare")
    with tempfile.TemporaryDirectory() as folder:
        binary = compare.build(folder, compare.FASTEST)
        return compare.rate(lambda n: [str(binary), str(n), "1", str(Path(folder) / "rows")], *C_GAMES, repeats)


def _python_rate(run, games, repeats, seed):
    reference = reference_module(run.game) if games else None
    if reference is None:
        return None
    params = reference_params(run)
    return _median_rate(lambda: reference.run(params, run.policies, seed, games), games, repeats)


def _warm_start_seconds(game, repeats):
    """Wall time of ``simcore run`` with a config it has not run before, cache warm."""
    key, values = FRESH_CONFIG.get(game, ("seed", tuple(range(1001, 1008))))   # a game of a designer's: new seeds
    times = []
    for value in values[:repeats + 1]:
        fresh = ["--seed", str(value)] if key == "seed" else ["--set", f"{key}={value}"]
        # -P: not the working folder first on the path, whose own simcore/ (an author's beside a checkout)
        # would be imported instead of this one
        cmd = [sys.executable, "-P", "-m", "simcore", "run", game, *fresh, "--games", "1000", "--quiet"]
        t = time.perf_counter()
        subprocess.run(cmd, check=True, env=os.environ.copy())
        times.append(time.perf_counter() - t)
    return statistics.median(times[1:])  # the first may compile: the cache is warm after it


def cases(games_filter=None):
    """The benchmark cases of the games asked for: name -> (game, parameters, policy, Python games); a registered
    game without cases here (a designer's own) gets :func:`contract_cases`."""
    from simcore import games

    table = dict(CASES)
    for game in games.names():
        if not any(case[0] == game for case in CASES.values()):
            table.update(contract_cases(game))
    return {name: case for name, case in table.items() if not games_filter or case[0] in games_filter}


def contract_cases(game):
    """The cases of a game from what its ``GameType`` declares, at its defaults: random play, greedy where it has
    a heuristic, and an mc seat, the plain ismcts and its recommended search against the others (greedy, else
    random); it has no Python reference here."""
    from simcore import games

    declared = games.load(game).GAME
    others = "greedy" if declared.heuristic else "random"
    out = {f"{game}-random": (game, {}, "random", 0)}
    if declared.heuristic:
        out[f"{game}-greedy"] = (game, {}, "greedy", 0)
    out[f"{game}-mc8-vs-{others}"] = (game, {}, {"all": others, 0: "mc:rollouts=8"}, 0)
    out[f"{game}-ismcts1000-vs-{others}"] = (game, {}, {"all": others, 0: RAW_ISMCTS}, 0)
    if declared.search:
        out[f"{game}-recommended-vs-{others}"] = (game, {}, {"all": others, 0: "ismcts:iterations=1000"}, 0)
    return out


def measure(games_filter=None, games=None, repeats=5, seed=1, threads=None, progress=None, on_compile=None):
    """Every case's figures. ``threads``: of the all-cores measurement (default all); ``progress(line)`` hears
    what is measured as it starts, ``on_compile(game)`` when a game is compiled first."""
    say = progress or (lambda line: None)
    figures = []
    cores = threads or numba.config.NUMBA_NUM_THREADS
    selected = cases(games_filter)
    for number, (name, (game, params, policy, python_games)) in enumerate(selected.items(), start=1):
        seats = list(policy.items()) if isinstance(policy, dict) else [("all", policy)]
        run = cfg.resolve(game, sets=list(params.items()), policies=seats)
        agents = {spec.split(":")[0] for _, spec in seats}
        n = JIT_GAMES.get(game, 200_000) if games is None else games
        if agents & set(SEARCHING):
            n = min(n, (ISMCTS_GAMES if "ismcts" in agents else SEARCH_GAMES).get(game, FEW_GAMES))
        say(f"[{number}/{len(selected)}] {name}: {n:,} games, jitted on 1 thread and {cores}, then pure Python")
        engine.load(run.module, run.params_array(), run.policies_array(), on_compile)
        iterations = None
        if "ismcts" in agents:
            one, iterations = _search_rates(run, n, repeats, seed)
        else:
            one = _jitted_rate(run, 1, n, repeats, seed)
        every = _jitted_rate(run, cores, n, repeats, seed)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        python = _python_rate(run, python_games, max(1, min(repeats, 3)), seed)
        figures.append({
            "case": name, "game": game, "policy": run.policies, "params": params,
            "jit_1_thread": one, f"jit_{cores}_threads": every, "python": python,
            "jit_vs_python": None if python is None else one / python,
            "cores_vs_1_thread": None if every is None else every / one, "cores": cores,
            "iterations_per_s": iterations,
        })
        if name == C_CASE:
            say(f"{name}: the fastest hand-written C of the same games, on 1 thread")
            c = c_rate(repeats)
            figures[-1].update(c_1_thread=c, vs_c=None if c is None else one / c)
    for game in sorted({f["game"] for f in figures}):
        say(f"{game}: wall time of a fresh `simcore run` with a config not seen before")
        for f in figures:
            if f["game"] == game:
                f["warm_start_s"] = _warm_start_seconds(game, max(3, min(repeats, 6)))
                break
    return figures


def state_bytes(figures):
    """Bytes of one game state (what a search copies per rollout), per game of the figures."""
    games = sorted({f["game"] for f in figures})
    return {game: cfg.resolve(game).module.new_state().nbytes for game in games}


def render(figures):
    if not figures:
        return "no benchmark case selected"
    cores = figures[0]["cores"]
    head = (f"{'case':<34} {'jit 1 thread':>14} {f'jit {cores} threads':>14} {'pure Python':>12} "
            f"{'jit/Python':>11} {f'{cores} thr/1 thr':>11} {'warm start':>11} {'ISMCTS it/s':>12}")
    lines = [head, "-" * len(head)]
    for f in figures:
        warm = f"{f['warm_start_s']:.2f} s" if "warm_start_s" in f else ""
        python, ratio = _python_columns(f, "{:,.0f}/s", "{:.0f}x")
        every, scaling, iterations = _search_columns(f, cores, "{:,.0f}/s", "{:.2f}x", "{:,.0f}")
        lines.append(f"{f['case']:<34} {_games(f['jit_1_thread']):>12}/s {every:>14} "
                     f"{python:>12} {ratio:>11} {scaling:>11} {warm:>11} {iterations:>12}")
    lines.append("games per second, median of the repeats; warm start = wall time of a fresh "
                 "`simcore run` (1000 games) with an unseen config; ISMCTS it/s = search iterations per second "
                 "on one thread")
    lines.append("bytes per state: " + ", ".join(f"{g} {b:,}" for g, b in state_bytes(figures).items()))
    lines += c_lines(figures)
    if not (REPOSITORY / "benchmarks" / "reference").is_dir():
        lines.append(NO_REFERENCE)
    elif any(f["python"] is None for f in figures):
        lines.append("n/a: the pure-Python references play random and greedy only")
    return "\n".join(lines)


def _python_columns(figure, rate_format, ratio_format):
    """The pure-Python rate and the jit/Python ratio as text ('n/a' without the references)."""
    if figure["python"] is None:
        return "n/a", "n/a"
    return rate_format.format(figure["python"]), ratio_format.format(figure["jit_vs_python"])


def _games(rate):
    """A rate of games per second: whole games, or one decimal below 100 (a search's games are slow)."""
    return f"{rate:,.0f}" if rate >= 100 else f"{rate:.1f}"


def _search_columns(figure, cores, rate_format, ratio_format, iterations_format):
    """The all-cores rate, its scaling and the ISMCTS iterations per second as text ('' where not measured)."""
    every = figure[f"jit_{cores}_threads"]
    iterations = figure.get("iterations_per_s")
    return ("" if every is None else rate_format.format(every),
            "" if every is None else ratio_format.format(figure["cores_vs_1_thread"]),
            "" if iterations is None else iterations_format.format(iterations))


def render_markdown(figures):
    """The docs' table of the same figures (docs/explanation/speed.md)."""
    if not figures:
        return ""
    cores = figures[0]["cores"]
    lines = [f"| case | jit, 1 thread | jit, {cores} threads | pure Python | jit / Python | {cores} threads / 1 "
             "| warm start | ISMCTS iterations/s, 1 thread |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for f in figures:
        warm = f"{f['warm_start_s']:.2f} s" if "warm_start_s" in f else ""
        python, ratio = _python_columns(f, "{:,.0f}", "{:.0f}x")
        every, scaling, iterations = _search_columns(f, cores, "{:,.0f}", "{:.2f}x", "{:,.0f}")
        lines.append(f"| `{f['case']}` | {_games(f['jit_1_thread'])} | {every} | "
                     f"{python} | {ratio} | {scaling} | {warm} | {iterations} |")
    lines += ["", "| game | bytes per state |", "|---|---:|"]
    lines += [f"| {game} | {size:,} |" for game, size in state_bytes(figures).items()]
    c = c_lines(figures)
    return "\n".join(lines + ([""] + c if c else []))


def c_lines(figures):
    """The line setting Zwai's random play beside the hand-written C, where it was measured."""
    for f in figures:
        if f.get("c_1_thread"):
            return [f"{f['case']} against the fastest hand-written C of the same games (benchmarks/c_oracle/"
                    f"zwai_fast.c, 1 thread, its rows to a file): C {f['c_1_thread']:,.0f} games/s, simcore "
                    f"{f['jit_1_thread']:,.0f} (rows in memory): {f['vs_c']:.2f}x C"]
        if "c_1_thread" in f:
            return [f"{f['case']} is not set beside the hand-written C here: it needs gcc and a source checkout"]
    return []


def json_text(figures):
    """The figures as JSON text, with the machine they were measured on."""
    return json.dumps({"machine": {"cores": os.cpu_count(), "python": sys.version.split()[0],
                                   "numba": numba.__version__}, "figures": figures}, indent=2) + "\n"


def check_output(path):
    """Raise OSError in one line unless the JSON can be written at ``path`` (checked before measuring)."""
    path = Path(path)
    if path.is_dir():
        raise OSError(f"cannot write {path}: it is a folder; allowed: a file name")
    if not path.parent.is_dir():
        raise OSError(f"cannot write {path}: its folder {path.parent} does not exist")
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise OSError(f"cannot write {path}: permission denied")


def write_json(figures, path):
    writing.write_atomic(path, lambda tmp: Path(tmp).write_text(json_text(figures)))
