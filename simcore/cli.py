"""The ``simcore`` command line.

Every command that plays games takes the same options with the same meaning (docs/reference/cli.md, its options table):
``--config``, ``--set`` and ``--policy`` wherever a game is configured, ``--games``, ``--seed`` (default: the
config's, else 1), ``--threads``, ``--quiet``, and ``--scheduler`` where a cluster can play. Bad input stops a
command before it plays with one line naming what is wrong and what is allowed.
"""

import contextlib
import functools
import math
import os
import re
import shutil
import signal
import sys
import textwrap
import threading
import time
from pathlib import Path

import click

from analyses import context
from analyses.scoring import SCORES
from simcore import games as registry
from simcore.io import config as cfg
from simcore.io import results
from simcore.io.results import OutputError


def _fail(message):
    raise click.ClickException(message)


def _note(message, quiet=False, err=False):
    """A progress line, which --quiet leaves out; ``err``: on stderr, where stdout holds JSON alone."""
    if not quiet:
        click.echo(message, err=err)


def _steps(label, every=1.0):
    """A ``progress(what, done, total)`` that prints ``label: what done/total`` on the terminal (stderr) at the
    first and last of each kind and at most every ``every`` seconds between: never silent for long, never a
    line per item."""
    last = {}

    def progress(what, done, total):
        now = time.monotonic()
        if done in (1, total) or now - last.get(what, 0.0) >= every:
            last[what] = now
            click.echo(f"{label}: {what} {done}/{total}", err=True)
    return progress


# --- the options every command shares ---------------------------------------------------------------------

def _options(*decorators):
    def apply(function):
        for decorator in reversed(decorators):
            function = decorator(function)
        return function
    return apply


CONFIG = click.option("--config", "config_path", type=click.Path(dir_okay=False),
                      help="TOML config file (its game, parameters, policies, games, seed).")
SET = click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                   help="Override one parameter (TOML value; grouped ones by dotted name).")
POLICY = click.option("--policy", "policies", multiple=True, metavar="[SEAT=]SPEC",
                      help="Policy spec for every seat (SPEC) or one seat (SEAT=SPEC), e.g. 1=mc:rollouts=16.")
SEED = click.option("--seed", type=int, help=f"Seed (default: the config's, else {cfg.DEFAULT_SEED}).")
SCORE = click.option("--score", type=click.Choice(SCORES), default="points", show_default=True,
                     help="What the tests read of a game: points (a win 1, a k-way shared win 1/k, a game nobody "
                          "wins 1/players each) or margin (a seat's score less the table's mean score, in the "
                          "game's unit: prize points, fish), where the game declares one (simcore games).")
THREADS = click.option("--threads", type=int, help="Numba threads on this machine (default: all cores).")
QUIET = click.option("--quiet", is_flag=True, help="No progress lines or bars, only the results.")
TRACE = click.option("--trace", is_flag=True,
                     help="Also write each game's trace beside its result file (_traces/X.trace.parquet): every seat's "
                          "standing after every round or turn, the kinds of actions played, how the game ended.")
FORCE = click.option("--force", is_flag=True,
                     help="Replace the finished results of other settings that the --out folder holds, and write "
                          "into a folder without a manifest that holds files simcore did not write.")
SCHEDULER = click.option("--scheduler", help="Play on a Dask cluster: tcp://HOST:PORT, or local:N for a "
                                             "LocalCluster of N workers (not with --threads).")


def _table(config_path):
    return cfg.load_file(config_path) if config_path else {}


def _sets(sets):
    return [cfg.parse_assignment(s) for s in sets]


def _policy_items(policies):
    return [cfg.parse_policy(p) for p in policies]


def _threads(n, scheduler=None):
    if n is None:
        return
    import numba
    if scheduler:
        _fail(f"--threads {n} is not allowed with --scheduler (each Dask worker plays on one thread); allowed: "
              "one of them")
    if not 1 <= n <= numba.config.NUMBA_NUM_THREADS:
        _fail(f"--threads {n} is not allowed; allowed: 1 to {numba.config.NUMBA_NUM_THREADS}")
    numba.set_num_threads(n)


def _out(path, what="--out"):
    """A user's output path: never empty."""
    if path is not None and not path.strip():
        _fail(f"{what} '' is not allowed; allowed: a path")
    return path


def _compiling(quiet, part=""):
    """What to say when a game is compiled for this machine (its first run): one line on stderr (it is about this
    machine, not the results), before it starts. --quiet too: a wait of a minute or more is not progress, and a
    silent one looks like a hang; --quiet leaves out only where it is cached. ``part``: what of the game is
    compiled, when it is not its game loop (e.g. "traced game loop", another copy of it)."""
    def say(game):
        from simcore.engine.jit import why_compiling

        what = f"{game}'s {part}" if part else game
        where = "" if quiet else f", cached in {os.environ['NUMBA_CACHE_DIR']}"
        click.echo(f"compiling {what} for this machine ({why_compiling(game)}{where})", err=True)
        _heartbeat(what)
    return say


HEARTBEAT = 2.0         # seconds a compile may run without a line on the terminal
_stopping = threading.Event()       # set by an interrupt: the command is ending


def _heartbeat(what, every=HEARTBEAT, echo=None):
    """While the compile about to start runs: every ``every`` seconds a line on stderr (or to ``echo``) saying
    how long it has run, how many functions numba has compiled and which of simcore's it is on (numba's compile
    events); on a terminal the line rewrites itself. It ends with the outermost compile, at its first beat if
    none started, or at an interrupt."""
    from numba.core import event

    tty = echo is None and sys.stderr.isatty()
    echo = echo or (lambda line: click.echo(f"\r{line}\033[K" if tty else line, err=True, nl=not tty))
    began, ended = time.monotonic(), threading.Event()

    class Count(event.Listener):
        depth = compiled = 0
        current, shown = "", False

        def on_start(self, e):
            if not ended.is_set():
                self.depth += 1
                function = getattr(e.data["dispatcher"], "py_func", None)
                if getattr(function, "__module__", "").startswith("simcore"):     # not numba's own helpers
                    self.current = function.__name__

        def on_end(self, e):
            if not ended.is_set():
                self.depth -= 1
                self.compiled += 1
                if self.depth == 0:
                    ended.set()
                    if tty and self.shown:      # the rewritten line ends before the run's own lines
                        click.echo("", err=True)

    count = Count()
    event.register("numba:compile", count)

    def beat():
        while not ended.wait(every):
            if count.compiled == count.depth == 0 or _stopping.is_set():   # nothing compiles after all (numba's
                break                                   # cache served it), or the command is ending on an interrupt
            now = f" (now {count.current})" if count.current else ""
            echo(f"  still compiling {what}: {time.monotonic() - began:.0f} s, {count.compiled} functions "
                 f"compiled so far{now}")
            count.shown = True
        ended.set()
        event.unregister("numba:compile", count)

    threading.Thread(target=beat, daemon=True).start()


def _load(run, quiet, scheduler=None, trace=False, counted=False):
    """Load (or first compile) the run's game before anything is timed; a cluster's workers load their own. A
    traced run of a game that declares no trace is refused in one line; ``counted``: the traced loop for its counts
    of the kinds of move alone, which any game has."""
    from simcore import engine

    if trace:
        try:
            engine.traceable(run.module)
        except ValueError as e:
            _fail(str(e))
    if scheduler:
        return
    policies, params = run.policies_array(), run.params_array()
    engine.load(run.module, params, policies,
                _compiling(quiet, engine.copy_name(run.module, policies, trace or counted, params)), traced=trace,
                counted=counted)


def _trace_where(trace, scheduler):
    """A traced run plays on this machine: refuse --trace with --scheduler in one line."""
    if trace and scheduler:
        _fail("--trace plays on this machine; allowed: --trace or --scheduler, not both")


def _traces(folder, plan):
    """With --trace: the trace's path of every variant of ``plan`` (a sweep's, or a contest's or ladder's seatings
    as one) checked before anything plays, as run --trace checks its one: a folder or pipe at a later variant's
    trace stopped the run after the earlier variants had played."""
    try:
        for variant in plan.variants:
            results.check_trace_output(Path(folder) / variant.file)
    except OutputError as e:
        _fail(str(e))


def _executor(scheduler):
    """This machine's threads, or the Dask cluster at ``scheduler`` (a one-line error when unreachable)."""
    from simcore.studies.executors import ExecutorError, executor

    try:
        return executor(scheduler)
    except ExecutorError as e:
        _fail(str(e))


def _folder(folder, kind, game, plan=None, force=False):
    """The --out folder of a sweep, ladder, contest, readings or tune run, checked before anything is loaded or
    played; a folder without a manifest that holds files simcore did not write, and (with the run's ``plan``, a
    sweep) finished results of other settings, are replaced only with ``force``."""
    from simcore.studies import sweep

    try:
        sweep.check_folder(_out(folder), kind, game)
        sweep.check_foreign(folder, kind, force)
        if plan is not None:
            sweep.check_replacing(plan, folder, kind, force)
    except OSError as e:
        _fail(str(e))


@contextlib.contextmanager
def _locked(folder, kind, game, plan, force):
    """The --out folder of a command that plays into it and then reads what it played (a contest, readings),
    locked from before it plays until its verdict is out, so that a second run meanwhile is refused rather than
    mixed in; the finished results of other settings are checked again under the lock (``plan``, ``force`` as
    :func:`_folder`'s). No folder: nothing to lock."""
    from simcore.io import writing
    from simcore.studies import sweep

    with contextlib.ExitStack() as stack:
        if folder is not None:
            try:
                stack.enter_context(writing.Lock(sweep.open_folder(folder, kind, game)))
                sweep.check_replacing(plan, folder, kind, force)
            except OSError as e:
                _fail(str(e))
        yield


class _Simcore(click.Group):
    """simcore's group of commands. It records each command line as given (a manifest names it); a command that a
    game broke while playing (``simcore.engine.GameError``), or that Ctrl-C or SIGTERM stopped, ends in one line,
    never a traceback."""

    def parse_args(self, ctx, args):
        from simcore.io import manifest

        manifest.record_command(args)        # as given, before click reads them: a folder names its command
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        from simcore.engine import GameError

        try:
            return super().invoke(ctx)
        except GameError as e:
            message = str(e)
        except KeyboardInterrupt:       # every writer has cleaned up on its way out: finished files are kept
            message = INTERRUPTED
        _fail(message)      # out of the handler: what the interrupted frames held is freed now, not at exit


INTERRUPTED = "interrupted"


@click.group(cls=_Simcore)
@click.version_option(package_name="simcore")
def main():
    """Monte-Carlo balance testing of tabletop games."""
    for signum in (signal.SIGINT, signal.SIGTERM):     # SIGTERM as Ctrl-C: temporary files and locks removed on the
        signal.signal(signum, _interrupt)               # way out, finished files kept
    _check_environment()


def _interrupt(signum, frame):
    """simcore's handler of SIGINT and SIGTERM. During a compile it ends the process at once, in one line: numba
    runs part of a compile in callbacks from its C code, where a KeyboardInterrupt is printed as a traceback and
    lost (the compile goes on), and a compile holds no file of simcore's. Else every batch playing stops at its
    threads' next game, and the interrupt acts as Ctrl-C (``simcore.io.writing.interrupt``)."""
    from simcore.io import writing

    _stopping.set()         # a compile's heartbeat says no more: its line would follow the command's last
    if _in_compiler(frame):
        click.echo(f"Error: {INTERRUPTED}", err=True)
        os._exit(1)
    binding = sys.modules.get("simcore.engine.binding")
    if binding is not None:
        binding.halt_all()
    writing.interrupt(signum, frame)


def _in_compiler(frame):
    """Is the main thread in numba's or llvmlite's Python code (compiling, or loading compiled code)?"""
    while frame is not None:
        if any(f"{os.sep}{package}{os.sep}" in frame.f_code.co_filename for package in ("numba", "llvmlite")):
            return True
        frame = frame.f_back
    return False


def _check_environment():
    """What numba reads from the environment, checked before numba is imported (it prints a Python warning with
    a traceback for a value it cannot parse, and fails later for one it can)."""
    threads = os.environ.get("NUMBA_NUM_THREADS")
    if threads is not None and (not threads.strip().isdigit() or int(threads) < 1):
        _fail(f"NUMBA_NUM_THREADS={threads} is not allowed; allowed: a whole number of threads from 1, or unset "
              f"(all {os.cpu_count()} cores)")


# --- what there is ----------------------------------------------------------------------------------------

def _known_game(name):
    """A registered game's name, else a one-line error naming the games."""
    if name not in registry.names():
        _fail(f"unknown game {name!r}; allowed: {', '.join(registry.names())}")
    return name


@main.command("games")
@click.argument("game", required=False)
@SET
def games_command(game, sets):
    """List the games (or GAME alone): players, policies and every parameter; with --set, what plain ismcts
    means in that variant of GAME."""
    if game is not None:
        _known_game(game)
    elif sets:
        _fail("--set changes a variant of one game; allowed: simcore games GAME --set KEY=VALUE")
    params = None
    if sets:
        try:
            params = cfg.resolve(game, sets=_sets(sets)).params
        except (cfg.ConfigError, ValueError) as e:
            _fail(str(e))
    for note in registry.NOTES:
        _warn(f"warning: {note}")
    for name in [game] if game else registry.names():
        try:
            info = registry.load(name).GAME
        except registry.GameLoadError as e:
            if game:
                _fail(str(e))
            click.echo(f"{e}\n")       # one broken package: named in its place, the other games listed
            continue
        counts = ", ".join(str(n) for n in info.player_counts)
        click.echo(f"{info.name}: {info.long_name}")
        click.echo(f"  {info.summary}")
        click.echo(f"  players: {counts}    policies: {', '.join(info.policies)}")
        click.echo(f"  rulebook: {info.rulebook}    rules as simulated: {info.doc} (rules version "
                   f"{info.rules_version})")
        click.echo(f"  has: {info.capabilities()}")
        if info.margin:
            click.echo(f"  margin: a seat's score in {info.margin}, less the table's mean (--score margin reads it)")
        if "ismcts" in info.policies:
            _recommended(info, params, whole=game is not None)
        width = max(len(p.name) for p in info.params)
        for p in info.params:
            default = cfg.toml_value(p.default)
            click.echo(f"  {p.name:<{width}}  {default:>6}  {p.help}")
        _kinds_of_move(registry.load(name), whole=game is not None)
        click.echo()
    from simcore import agents

    click.echo("policies (a spec NAME[:KEY=VALUE,...], per seat with --policy SEAT=SPEC):")
    for name in agents.AGENTS:
        for line in agents.describe(name):
            click.echo(f"  {line}")
    for line in agents.describe_restrictions():
        click.echo(f"  {line}")


def _recommended(info, params, whole):
    """What plain ismcts means in the variant of ``params`` (None: the defaults) and how strong it is; for one game
    (``whole``) whose recommendation changes by variant, each rule too."""
    from simcore import agents

    _, strength = info.recommended(params)
    variant = "in this variant" if params is not None else "by default" if info.search_by else "here"
    click.echo(f"  ismcts {variant} means: {agents.parse('ismcts', info, (), params)} (the game's recommended "
               "search)")
    if strength:
        click.echo(f"  its strength, on fresh deals: {strength}")
    if whole and info.search_by:
        click.echo("  ismcts by variant (the first rule a variant meets, else the default):")
        for conditions, pairs, _ in info.search_by:
            where = " and ".join(f"{name} {low}-{high}" if low != high else f"{name} = {low}"
                                 for name, low, high in conditions)
            click.echo(f"    {where}: {', '.join(f'{key}={value}' for key, value in pairs)}")


def _kinds_of_move(module, whole):
    """The game's kinds of move (a policy forbids or prefers them: forbid=KIND), each with its meaning for one
    game, by name alone in the list of every game."""
    kinds = module.ACTION_KINDS
    if not kinds:
        click.echo("  kinds of move: none declared")
    elif not whole:
        click.echo(f"  kinds of move: {', '.join(name for name, _ in kinds)}")
    else:
        click.echo("  kinds of move (a policy may forbid=KIND+KIND or prefer=KIND; simcore options weighs each):")
        width = max(len(name) for name, _ in kinds)
        for kind, meaning in kinds:
            click.echo(f"    {kind:<{width}}  {meaning}")


@main.command("rules")
@click.argument("game")
def rules_command(game):
    """Print GAME's rules as simulated, every decision where the rulebook is silent included (Markdown)."""
    click.echo(registry.rules_text(_known_game(game)), nl=False)


def _draw_shipped(source, read, draw, unit):
    """Print every shipped map of ``read()`` drawn by ``draw(name, art) -> (size, text)``."""
    try:
        shipped = {name: (description, *draw(name, art)) for name, (description, art) in read().items()}
    except (OSError, ValueError, KeyError) as e:
        _fail(f"cannot read {source}: {e}")
    for name, (description, size, text) in shipped.items():
        click.echo(f"{name}: {size} {unit}. {description}")
        for line in text.splitlines():
            click.echo("    " + line)
        click.echo()


@main.command("formations")
def formations_command():
    """Draw every shipped Zwai formation with its name and cell count."""
    from simcore.games import zwai

    def draw(name, art):
        cells = zwai.parse_formation(art, name)
        return len(cells), zwai.draw_formation(cells)

    _draw_shipped(zwai.FORMATIONS_FILE, zwai.shipped_formations, draw, "cells")


@main.command("yards")
def yards_command():
    """Draw every shipped skirmish yard with its name and size."""
    from simcore.games import skirmish

    def draw(name, art):
        rows = skirmish.parse_yard(art, name)
        return f"{len(rows[0])}x{len(rows)}", "\n".join(line.strip() for line in art.strip().splitlines())

    _draw_shipped(skirmish.YARDS_FILE, skirmish.shipped_yards, draw, "paces")


@main.command("new-game")
@click.argument("name")
@click.option("--out", "folder", required=True, type=click.Path(file_okay=False),
              help="The package's folder (new or empty).")
@click.option("--minimal", is_flag=True,
              help="The contract's required parts only: a copy of Kuhn poker (no heuristic, evaluation, picture or "
                   "trace), as docs/how-to/kuhn-poker.md builds it; without it, a copy of Goofspiel with all of them.")
def new_game_command(name, folder, minimal):
    """Write a new game NAME as an installable package of its own: a working copy of Goofspiel (with --minimal:
    of Kuhn poker) renamed, to turn into the game (its README says what each file holds). Then: pip install -e
    FOLDER; simcore check NAME."""
    from simcore import newgame

    _out(folder)
    try:
        written = newgame.write(name, folder, minimal)
    except newgame.NewGameError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot write {folder}: {e.strerror or e}")
    copy = "Kuhn poker, the contract's required parts only," if minimal else "Goofspiel"
    click.echo(f"wrote {len(written)} files to {folder}: the game {name} (a copy of {copy} to turn into it)")
    click.echo(f"next: pip install -e {folder}; simcore check {name}")


@main.command("check")
@click.argument("game")
@click.option("--quick", is_flag=True, help="A quarter of each check's games (at least one): for an author "
                                            "iterating; check without it before relying on the game.")
def check_command(game, quick):
    """Run the conformance checks on GAME, for every parameter case it declares (simcore.testing.check_game): its
    interface plays the engine's games, resample and the heuristics read only what a seat sees, the picture, 1 vs
    2 threads, traces, the rules page states every parameter. Exits 1 when a check fails."""
    from simcore import testing

    try:
        _known_game(game)
    except click.ClickException as e:
        e.exit_code = 2                 # 1 says a check failed
        raise
    result = testing.check_game(game, quick, _compiling(False), on_record=lambda record: click.echo(str(record)))
    click.echo(_check_summary(result))
    if not result.passed:
        sys.exit(1)


def _check_summary(result):
    """``check``'s last line: what passed, failed and was skipped, how long it took, and what --quick left out."""
    failed = [f"{record.check} [{record.case}]" for record in result.failures]
    skipped = sum(record.skipped for record in result.records)
    passed = len(result.records) - len(failed) - skipped
    seconds = sum(record.seconds for record in result.records)
    verdict = f"{len(failed)} failed: {', '.join(failed)}; " if failed else "every check passed: "
    quick = "; --quick: a quarter of each check's games, no searching agent" if result.quick else ""
    return f"{result.game}: {verdict}{passed} passed, {skipped} skipped, in {seconds:.1f} s{quick}"


# --- playing ----------------------------------------------------------------------------------------------

@main.command("run")
@click.argument("game", required=False)
@_options(CONFIG, SET, POLICY)
@click.option("--games", type=int, help="Number of games (default: the config's, else 10,000).")
@SEED
@click.option("--variant", help="Variant name written to every row (default: the config's, else what --set "
                                "changes, e.g. hand_size_2=10, as a sweep names it, else default).")
@click.option("--out", type=click.Path(), help="Parquet file to write (NAME.parquet).")
@click.option("--force", is_flag=True, help="Replace a file at --out that simcore did not write.")
@_options(TRACE, THREADS, QUIET)
def run_command(game, config_path, sets, policies, games, seed, variant, out, force, trace, threads, quiet):
    """Play GAME (or the game of --config) and write one Parquet row per game."""
    from simcore.studies import runs

    _out(out)
    if trace and not out:
        _fail("--trace writes beside the result file; allowed: --trace with --out FILE.parquet")
    try:
        table, sets = _table(config_path), _sets(sets)
        run = cfg.resolve(game, table, sets=sets, policies=_policy_items(policies), games=games, seed=seed,
                          variant=runs.variant_name(table, sets, variant))
        if out:
            results.check_output(out)        # before a first run's compile, not after it
            results.check_replacing(out, force)
        if trace:
            results.check_trace_output(out)
    except (cfg.ConfigError, OutputError) as e:
        _fail(str(e))
    _threads(threads)
    _load(run, quiet, trace=trace)
    show = not quiet and sys.stderr.isatty()
    with click.progressbar(length=run.games, label=f"{run.game}", file=sys.stderr,
                           hidden=not show) as bar:
        try:
            tally = runs.run_to_file(run, out, bar.update, trace=trace) if out else \
                runs.run_to_tally(run, bar.update)
        except OutputError as e:
            _fail(str(e))
    if not quiet:
        # a name given by --set alone (or none) says no more than the line of the rules that follows
        named = "" if run.variant in ("default", runs.variant_name({}, sets)) else f"variant {run.variant}: "
        click.echo(named + context.of_run(run))
        for line in tally.lines():
            click.echo(line)
        if out:
            click.echo(f"wrote {out}" + (f" and its trace {results.trace_path(out)}" if trace else ""))


@main.command("sweep")
@click.argument("sweep_file", type=click.Path(dir_okay=False))
@click.option("--out", "folder", required=True, type=click.Path(file_okay=False),
              help="Folder for one Parquet file per variant and _manifest.json (traces in _traces/).")
@click.option("--games", type=int, help="Games per variant (overrides the sweep file); with --until-decided the "
                                          "most a variant plays (the cap).")
@_options(SEED, FORCE, TRACE, THREADS, SCHEDULER, QUIET)
@click.option("--until-decided", is_flag=True,
              help="Play each variant in looks of doubling games (--first-look, twice that, ... --games) and stop it "
                   "once it is shown unbalanced or fair within --margin; a false verdict in any variant at any "
                   "look stays below 5%.")
@click.option("--margin", type=float, metavar="E",
              help="With --until-decided: fair within E means every seat's (team's) share within E of fair "
                   "[default: 0.02].")
@click.option("--first-look", type=int, metavar="N",
              help="With --until-decided: games a variant plays before its first look [default: 1000, or --games "
                   "when fewer].")
def sweep_command(sweep_file, folder, games, seed, force, trace, threads, scheduler, quiet, until_decided, margin,
                  first_look):
    """Play every variant of SWEEP_FILE that is not complete in --out yet."""
    from simcore.studies import sweep
    _out(folder)
    _trace_where(trace, scheduler)
    if not until_decided and (margin is not None or first_look is not None):
        _fail(f"{'--margin' if margin is not None else '--first-look'} is an option of --until-decided; allowed: "
              "it with --until-decided, or neither")
    try:
        plan = sweep.load(sweep_file, games=games, seed=seed)
    except cfg.ConfigError as e:
        _fail(str(e))
    if until_decided:
        _sweep_until_decided(sweep_file, plan, folder, (margin, first_look, force), trace, threads, scheduler, quiet)
        return
    _folder(folder, "sweep", plan.game, force=force)
    if trace:
        _traces(folder, plan)
    _threads(threads, scheduler)
    if Path(folder).is_dir():
        plan = sweep.with_old_names(plan, folder)       # a folder swept before names said key=value
    planned = sweep.plan_status(plan, folder, trace) if Path(folder).is_dir() else {}
    todo = [v for v in plan.variants if planned.get(v.name, ("played",))[0] != "skipped"]
    show = not quiet and sys.stderr.isatty()
    pad = max(len(v.name) for v in plan.variants)

    def report(variant, status, tally):
        if not quiet:
            played = "" if tally is None else f" {tally.games:,} games in {tally.seconds:.1f} s"
            click.echo(f"  {variant.name:<{pad}} {status}{played}")

    if not quiet:
        click.echo(f"sweep {sweep_file}: {len(plan.variants)} variants of {plan.game}, "
                   f"{sum(v.config.games for v in todo):,} games to play -> {folder}")
        for name, (status, why) in planned.items():
            if status == "played again":
                click.echo(f"  {name}: its finished result is replaced ({why})")
    for variant in todo:      # each variant's copy of the game (a searching seat's is another), before any is timed
        _load(variant.config, quiet, scheduler, trace)
    where = _executor(scheduler)
    try:
        with click.progressbar(length=max(sum(v.config.games for v in todo), 1), label="sweep", file=sys.stderr,
                               hidden=not show) as bar:
            status = sweep.run(plan, folder, bar.update, report, where, planned=planned or None, trace=trace)
    except OSError as e:
        _fail(str(e))
    finally:
        for worker, seconds in getattr(where, "warm_up_seconds", {}).items():
            if not quiet:
                click.echo(f"  worker {worker}: first call (load or compile) {seconds:.2f} s")
        where.close()
    if not quiet:
        counts = {s: list(status.values()).count(s) for s in ("played", "played again", "skipped")}
        click.echo(", ".join(f"{n} {s}" for s, n in counts.items()) + f"; manifest: {Path(folder) / sweep.MANIFEST}")


def _sweep_until_decided(sweep_file, plan, folder, options, trace, threads, scheduler, quiet):
    """``sweep --until-decided``: the plan checked before anything is loaded, the looks played, a line per variant
    and look, and the verdicts counted at the end."""
    from analyses import fairer, sequential
    from simcore.studies import sweep

    margin, first_look, force = options
    try:
        first = min(sequential.DEFAULT_FIRST_LOOK, plan.variants[0].config.games) if first_look is None else first_look
        looks = sweep.until_decided_plan(plan, fairer.DEFAULT_MARGIN if margin is None else margin, first)
    except sequential.PlanError as e:
        _fail(str(e))
    _folder(folder, sweep.UNTIL_DECIDED, plan.game, force=force)
    try:
        sweep.check_until_decided(folder, looks, trace)
    except OSError as e:
        _fail(str(e))
    if trace:
        _traces(folder, plan)
    _threads(threads, scheduler)
    held = sweep.held_looks(plan, folder, trace)
    pad = max(len(v.name) for v in plan.variants)
    heard = []

    def report(variant, result, tally):
        if not quiet and heard[-1:] != [result.look]:
            heard.append(result.look)
            click.echo(f"look {result.look} of {result.looks}: {result.games:,} games a variant")
        _note(f"  {variant.name:<{pad}} {sequential.look_words(result)}", quiet)

    _note(f"sweep {sweep_file} until decided: {len(plan.variants)} variants of {plan.game}, looks at "
          f"{', '.join(f'{n:,}' for n in looks.looks)} games a variant, fair within {looks.margin:g}; a false verdict "
          f"in any variant at any look below {looks.alpha:.0%} (each test's level {looks.levels[0]:.2g} at the first "
          f"look to {looks.levels[-1]:.2g} at the cap) -> {folder}", quiet)
    for name, (_, _, why) in held.items():
        if why:
            _note(f"  {name}: starts again from its first look ({why})", quiet)
    for variant in plan.variants:
        _load(variant.config, quiet, scheduler, trace)
    where = _executor(scheduler)
    most = sum(looks.looks[-1] - games for games, record, _ in held.values() if not (record or {}).get("verdict"))
    try:
        with click.progressbar(length=max(most, 1), label="sweep", file=sys.stderr,
                               hidden=quiet or not sys.stderr.isatty()) as bar:
            status = sweep.run_until_decided(plan, folder, looks, bar.update, report, where, trace)
    except OSError as e:
        _fail(str(e))
    finally:
        where.close()
    verdicts = [verdict for verdict, _ in status.values()]
    counts = ", ".join(f"{verdicts.count(v)} {v}" + (f" {looks.margin:g}" if "fair" in v else "")
                       for v in sequential.VERDICTS if v in verdicts)
    cap = looks.looks[-1]
    _note(f"{counts}; {sum(games for _, games in status.values()):,} games in all (a fixed run of {cap:,} a variant: "
          f"{cap * len(status):,}); manifest: {Path(folder) / sweep.MANIFEST}", quiet)


def _variant_spec(text):
    """``--variant NAME:KEY=VALUE[,KEY=VALUE...]`` -> (name, assignments), each key at most once. A value is
    --set's (a TOML value, else a bare string), so a list is ``[4,6,6,4,3]`` or, where the game takes one,
    ``2,3,4,5,ich,der,6``: a comma begins the next assignment only when a KEY= follows it outside brackets and
    quotes."""
    name, sep, body = text.partition(":")
    if not sep or not name:
        raise cfg.ConfigError(f"--variant {text!r} is not NAME:KEY=VALUE[,KEY=VALUE...]")
    assignments = [cfg.parse_assignment(part, "--variant") for part in _assignments(body) if part.strip()]
    keys = [key for key, _ in assignments]
    for key in keys:
        if keys.count(key) > 1:
            raise cfg.ConfigError(f"--variant {text!r} sets {key} twice; allowed: each parameter once")
    return name, assignments


_NEXT_KEY = re.compile(r"\s*[A-Za-z_][\w.]*\s*=")


def _assignments(body):
    """``--variant``'s KEY=VALUE parts: split at the commas outside brackets and quotes that a KEY= follows, so
    that a list's commas stay in its value."""
    parts, start, depth, quote = [], 0, 0, None
    for i, char in enumerate(body):
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "[]":
            depth += 1 if char == "[" else -1
        elif char == "," and depth == 0 and _NEXT_KEY.match(body, i + 1):
            parts.append(body[start:i])
            start = i + 1
    return parts + [body[start:]]


@main.command("duel")
@click.argument("game", required=False)
@click.option("--variant", "variant_specs", multiple=True, metavar="NAME:KEY=VALUE[,KEY=VALUE]",
              help="A variant (one or two, named differently); parameters on top of the base. A value is as "
                   "--set's: a list as [4,6,6,4,3] or, where the game takes one, comma-separated "
                   "(bribe_ranking=2,3,4,5,ich,der,6); a comma followed by KEY= begins the next parameter.")
@click.option("--metric", default="win_0", show_default=True, help="Yes/no column, e.g. win_0 or timeout.")
@click.option("--sprt", is_flag=True, help="Play batches until a sequential test decides.")
@_options(CONFIG, SET, POLICY, SEED)
@click.option("--games", type=int, help="Games per variant without --sprt (default: the config's, else 100,000).")
@click.option("--batch", type=int, default=20_000, show_default=True, help="Games per variant per SPRT step.")
@click.option("--max-games", type=int, default=2_000_000, show_default=True, help="SPRT budget per variant.")
@click.option("--delta", type=float, default=0.05, show_default=True,
              help="SPRT effect: two variants: share of the games where only one of them scores the metric that "
                   "go to one side (0.5 + delta); one variant: distance of its rate from --p0.")
@click.option("--p0", type=float,
              help="One variant: the rate under H0 (win_i without it: the seat's share of the games with one "
                   "winner against 1/players; any other metric needs it).")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="SPRT false-positive rate.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="SPRT false-negative rate.")
@_options(THREADS, QUIET)
def duel_command(game, variant_specs, metric, sprt, config_path, sets, policies, seed, games, batch, max_games,
                 delta, p0, alpha, beta, threads, quiet):
    """Play one or two variants on the same seeds and test METRIC, sequentially with --sprt."""
    from simcore.studies import duel

    try:
        base = _table(config_path)
        specs = [_variant_spec(v) for v in variant_specs] or [("base", [])]
        if not 1 <= len(specs) <= 2:
            _fail(f"{len(specs)} variants given; allowed: one or two")
        if len(specs) == 2 and specs[0][0] == specs[1][0]:
            _fail(f"both variants are named {specs[0][0]!r}; allowed: two different names")
        count = base.get("games", duel.GAMES) if games is None else games
        runs = [cfg.resolve(game, base, sets=_sets(sets) + over, policies=_policy_items(policies), games=count,
                            seed=seed, variant=name) for name, over in specs]
        plan = duel.Duel(runs, metric, sprt=sprt, batch=batch, max_games=max_games, delta=delta, p0=p0,
                         alpha=alpha, beta=beta)
    except (cfg.ConfigError, ValueError) as e:
        _fail(str(e))
    _threads(threads)
    _load(runs[0], quiet)
    for line in plan.play(progress=lambda line: _note(line, quiet), warn=_warn):     # a long wait: --quiet too
        click.echo(line)


@main.command("versus")
@click.argument("game", required=False)
@click.option("--policy", "policy", required=True, metavar="SPEC", help="Policy A, e.g. mc:rollouts=16.")
@click.option("--against", required=True, metavar="SPEC", help="Policy B, in every other seat.")
@_options(CONFIG, SET)
@click.option("--games", type=int, help="Deals, each played from every seat (default: the config's, else 1,000).")
@click.option("--out", "folder", type=click.Path(file_okay=False),
              help="Also write each seating's games to this folder (seat0.parquet, ...), for analyze and replay.")
@_options(SEED, FORCE, TRACE, THREADS, QUIET, SCORE)
@click.option("--json", "as_json", is_flag=True,
              help="Print the contest as JSON (schema simcore.verdict/1: its score, interval, test and word; the "
                   "result-files reference) and nothing else on stdout; --out writes as without it.")
def versus_command(game, policy, against, config_path, sets, games, seed, folder, force, trace, threads, quiet,
                   score, as_json):
    """A's score against B on the same deals, A taking every seat in turn (1/players is fair; a margin's fair
    is 0)."""
    from analyses import scoring
    from simcore.studies import versus

    _out(folder)
    if trace and not folder:
        _fail("--trace writes beside the seatings' files; allowed: --trace with --out FOLDER")
    try:
        runs = versus.seatings(game, policy, against, _sets(sets), games, seed, _table(config_path))
        scoring.check_score(score, runs[0].game, runs[0].module.GAME.margin)
    except (cfg.ConfigError, ValueError) as e:
        _fail(str(e))
    plan = versus.as_sweep(runs, folder) if folder else None
    if folder:
        _folder(folder, "versus", runs[0].game, plan, force)
        if trace:
            _traces(folder, plan)
    _threads(threads)
    _load(runs[0], quiet, trace=trace)
    with _locked(folder, "versus", runs[0].game, plan, force):
        _contest(runs, folder, trace, quiet, score, as_json)


def _contest(runs, folder, trace, quiet, score, as_json=False):
    """Play the contest of ``runs`` (into ``folder``, if any) and print its claim: as a line, or as JSON (then
    every other line goes to stderr, as stdout holds the JSON alone)."""
    from analyses import claims
    from analyses.context import rules_text
    from simcore.studies import versus

    try:
        r = versus.contest(runs, on_seat=lambda seat, mean: _note(f"  from seat {seat}: {mean:.4f}", quiet, as_json),
                           folder=folder, trace=trace, warn=_warn, score_by=score)
    except OSError as e:
        _fail(str(e))
    claim = claims.contest_claim(r, rules_text(runs[0].game, runs[0].params), r.test.removeprefix("test: "))
    wrote = f"wrote {len(runs)} seatings to {folder}" + (" with their traces" if trace else "")
    if as_json:
        click.echo(versus.document(r, claim, runs[0].game))
        if folder:
            click.echo(wrote, err=True)
        return
    unit = f" {r.unit}" if r.unit else ""
    click.echo(f"{r.policy} against {r.against}, {runs[0].game}, {r.deals:,} deals x {r.players} seats: score "
               f"{r.score:.4f} [{r.low:.4f}, {r.high:.4f}]{unit} (fair {r.fair:.4f}, p = {r.pvalue:.2g}): "
               f"{claim.word}")
    click.echo(f"by seat: {claims.seat_text(claim)}")
    click.echo(r.scoring)
    click.echo(r.test)
    click.echo(f"seats: {claims.SPLIT_TEST}")
    if folder:
        click.echo(wrote)


@main.command("options")
@click.argument("game", required=False, metavar="GAME|SWEEP.toml")
@click.option("--policy", "policy", metavar="SPEC",
              help="The policy every seat plays; one seat plays it with a kind of move forbidden, then preferred "
                   "(default: greedy; for a sweep, the one policy it seats).")
@_options(CONFIG, SET)
@click.option("--games", type=int, help="Deals a restriction plays, each from every seat (default: the config's, "
                                        "else 1,000; for a sweep 1,000, not the sweep's games).")
@click.option("--kinds", metavar="KIND,KIND", help="Weigh these kinds of move only (default: every kind the game "
                                                   "declares; simcore games GAME lists them).")
@click.option("--margin", type=float, default=0.02, show_default=True, metavar="E",
              help="never worth it: both restrictions shown within E points of no effect.")
@click.option("--out", "folder", type=click.Path(file_okay=False),
              help="Keep every run of the study in this folder (its games and traces, for analyze and replay); the "
                   "same command again goes on from the runs it finished.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), metavar="PATH",
              help="Also write the study as a report: PATH.md (its plots beside it) or one PATH.html page.")
@click.option("--skill", is_flag=True,
              help="Also skill and luck on the same rules: the searching policy over greedy, greedy over random "
                   "(versus's contests), and how often the weaker player still wins.")
@click.option("--strong", default="ismcts", show_default=True, metavar="SPEC",
              help="--skill: the searching policy (plain ismcts: the game's recommended search).")
@click.option("--skill-games", type=int, default=200, show_default=True, metavar="N",
              help="--skill: deals of each contest, each from every seat.")
@_options(SEED, FORCE, THREADS, QUIET)
@click.option("--json", "as_json", is_flag=True,
              help="Print every kind's worth as JSON (schema simcore.verdict/1) and nothing else on stdout.")
def options_command(game, policy, config_path, sets, games, kinds, margin, folder, report_path, skill, strong,
                    skill_games, seed, force, threads, quiet, as_json):
    """What each kind of move is worth: restricted play, one seat forbidden (then made to prefer) a kind, the
    others not, on the same deals from every seat; for a sweep, in every variant, and where a kind's worth changes
    against each player count's first variant."""
    from simcore.studies import options
    from simcore.studies.executors import Pace

    if not 0 < margin < 1:
        _fail(f"--margin {margin:g} is not allowed; allowed: a number of points between 0 and 1")
    _report_target(report_path)
    names = [k.strip() for k in kinds.split(",")] if kinds is not None else None
    if names is not None and not all(names):
        _fail(f"--kinds {kinds!r} names an empty kind; allowed: KIND[,KIND...]")
    sweeping = game is not None and game.endswith(".toml")
    try:
        if sweeping:
            if sets or config_path:
                _fail("--set and --config change one set of rules; allowed: a sweep's variants as its file says")
            studies, bases = options.sweep_plan(game, policy, games, seed, names)
        else:
            studies, bases = [options.plan(game, policy or "greedy", _sets(sets), games, seed, names,
                                           _table(config_path))], None
        if skill_games < 2:
            _fail(f"--skill-games {skill_games} is not allowed; allowed: 2 or more deals")
        pairs = options.skill_pairs(studies[0], strong) if skill else []
        if folder is not None:
            from simcore import engine

            engine.traceable(studies[0].module)
    except (cfg.ConfigError, ValueError) as e:
        _fail(str(e) + (" (--out keeps each run's trace)" if folder is not None and "trace" in str(e) else ""))
    game_name = studies[0].baseline.game
    sweep_name = Path(game).name if sweeping else None
    if folder is not None:
        _folder(folder, options.Folder.KIND, game_name,
                options.Folder(folder, game_name).plan([s.baseline for s in studies]), force)
    _threads(threads)
    _load_options(studies[0], quiet, pairs)
    kept = (f"Ctrl-C keeps every run finished in {folder}, and the same command goes on from them" if folder else
            "Ctrl-C stops it and keeps nothing (with --out FOLDER it keeps every run finished)")
    pace = Pace(sum(options.games_to_play(s) + skill_games * s.players * len(pairs) for s in studies), _warn, kept)
    weighed = _weighing(studies, quiet)
    asked = options.record(studies, margin, sweep_name, (strong, skill_games) if skill else None)
    keeping = options.Folder(folder, game_name, pace.add, pace.skip, asked) if folder else None
    runner = keeping.runner if keeping else None
    with _locked(folder, options.Folder.KIND, game_name,
                 keeping.plan([s.baseline for s in studies]) if keeping else None, force):
        if sweeping:
            results, moved = options.play_sweep(studies, bases, pace.add, weighed, margin, runner)
        else:
            results, moved = {"": options.play(studies[0], pace.add, weighed, margin, runner)}, None
        skilled = _skill_rows(studies, results, strong, skill_games, pace.add, keeping) if skill else []
    _options_answer(results, moved, sweep_name, skilled, as_json, [report_path] if report_path else [], quiet)


def _options_answer(results, moved, sweep_name, skilled, as_json, report_paths, quiet):
    """An options study's answer (``sweep_name`` None: one set of rules): its screen or --json on stdout, and
    each report of ``report_paths`` written."""
    from analyses import options_report

    if sweep_name is not None:
        said, changed = _options_sweep(results, moved, sweep_name, as_json, skilled)
    else:
        said, changed = {"": _options_one(results[""], as_json, skilled)}, []
    for report_path in report_paths:
        try:
            written = options_report.write(report_path, [(name, results[name], said[name]) for name in results],
                                           [claim for _, claim in changed], skilled)
        except (OSError, ValueError) as e:
            _fail(str(e))
        _note(f"report: {written}", quiet, err=True)


def _report_target(path):
    """A --report path checked before anything plays: its suffix, and a folder to write it in."""
    if path is None:
        return
    from analyses.report import _check_suffix

    try:
        _check_suffix(_out(path, "--report"))
    except ValueError as e:
        _fail(str(e))
    if not Path(path).parent.is_dir():
        _fail(f"cannot write {path}: its folder {Path(path).parent} does not exist")


def _skill_rows(studies, results, strong, games, on_block, keeping=None):
    """Skill and luck on each study's rules: (variant, contest, its strength claim, the weaker's points per seat)."""
    from analyses import claims
    from simcore.studies import options

    rows = []
    for study in studies:
        name = study.name or results[study.name].rules
        for contest, luck in options.skill(study, strong, games, on_block, keeping):
            claim = claims.contest_claim(contest, results[study.name].rules, contest.test.removeprefix("test: "))
            rows.append((name, contest, claim, luck))
    return rows


def _load_options(study, quiet, pairs=()):
    """The copies of the game loop an options study plays, compiled up front: the counted loop of its policy (a
    restricted seat plays the same copy), and the skill contests' (``pairs``)."""
    from simcore.studies import options

    _load(study.baseline, quiet, counted=True)
    for stronger, weaker in pairs:
        _load(options.skill_runs(study, stronger, weaker, 1)[0], quiet)


def _weighing(studies, quiet):
    """``on_kind(name)``: a progress line on stderr as each kind of each study is weighed."""
    total = sum(len(s.kinds) for s in studies)
    done = []

    def weighed(name):
        done.append(name)
        _note(f"  weighed {name} ({len(done)} of {total})", quiet, err=True)
    return weighed


def _options_one(result, as_json, skilled=()):
    from analyses import claims
    from analyses import options as worth

    said = [claims.option_claim(kind, result, worth.TEST) for kind in result.kinds]
    if as_json:
        body = {**worth.document(result, said), **({"skill": worth.skill_document(skilled)} if skilled else {})}
        click.echo(claims.document(said + [claim for _, _, claim, _ in skilled], options=body))
        return said
    for line in worth.screen(result, said) + worth.skill_lines(skilled):
        click.echo(line)
    return said


def _options_sweep(results, moved, sweep_name, as_json, skilled=()):
    from analyses import claims
    from analyses import options as worth

    said = {name: [claims.option_claim(kind, r, worth.TEST) for kind in r.kinds] for name, r in results.items()}
    family = f"Holm across the {sum(len(c.shifts) for c in moved)} comparisons of the sweep, 5% family-wise"
    changed = [(c, claims.option_change_claim(c, family, worth.CHANGE_TEST)) for c in moved]
    if as_json:
        body = {"sweep": sweep_name,
                "variants": [{"name": name, **worth.document(r, said[name])} for name, r in results.items()],
                "changes": [worth.change_document(claim) for _, claim in changed],
                **({"skill": worth.skill_document(skilled)} if skilled else {})}
        click.echo(claims.document([c for of in said.values() for c in of] + [c for _, c in changed]
                                   + [claim for _, _, claim, _ in skilled], options=body))
        return said, changed
    for line in worth.sweep_screen(results, changed, said, sweep_name) + worth.skill_lines(skilled):
        click.echo(line)
    return said, changed


@main.command("ladder")
@click.argument("game", required=False)
@_options(CONFIG, SET)
@click.option("--policy-base", "base", default="ismcts", show_default=True, metavar="SPEC",
              help="The searching policy climbed (ismcts or mc, other parameters allowed, no budget).")
@click.option("--budgets", default=",".join(map(str, (8, 16, 32, 64, 128, 256, 512, 1024, 2048))),
              show_default=True, help="Budgets, increasing: each rung plays one against the one before.")
@click.option("--games", type=int,
              help="Deals per rung (with --sprt: at most), each played from every seat (default: the config's, "
                   "else 200).")
@SEED
@click.option("--sprt", is_flag=True,
              help="Play each rung in batches of whole deals until a sequential test (GSPRT) decides; a rung "
                   "undecided at its last deal is decided by the test at the cap.")
@click.option("--batch", type=int, default=50, show_default=True, help="Deals per SPRT step.")
@click.option("--delta", type=float, default=0.05, show_default=True,
              help="SPRT effect: the larger budget scores 1/players + delta.")
@click.option("--out", "folder", required=True, type=click.Path(),
              help="Folder for the games (one Parquet file per rung and seat), ladder.parquet, .md and .png.")
@_options(FORCE, TRACE, THREADS, SCHEDULER, QUIET)
@click.option("--json", "as_json", is_flag=True,
              help="Print the rungs as JSON (schema simcore.verdict/1: each rung's score, test and word, the skill "
                   "depth; the result-files reference) and nothing else on stdout; the folder is written as "
                   "without it.")
def ladder_command(game, config_path, sets, base, budgets, games, seed, sprt, batch, delta, folder, force, trace,
                   threads, scheduler, quiet, as_json):
    """Does playing better win more? Budget 2n against n on the same deals, rung by rung."""
    from analyses.context import rules_text
    from simcore.studies import ladder
    _out(folder)
    _trace_where(trace, scheduler)
    try:
        plan = ladder.plan(game, _sets(sets), base, ladder.parse_budgets(budgets), games, seed, _table(config_path))
        if sprt and scheduler:
            raise cfg.ConfigError("--sprt plays on this machine; allowed: --sprt or --scheduler, not both")
        if sprt and trace:
            raise cfg.ConfigError("--sprt writes its games batch by batch, without traces; allowed: --trace or "
                                  "--sprt, not both")
    except cfg.ConfigError as e:
        _fail(str(e))
    _folder(folder, "ladder", plan.game, None if sprt else plan.as_sweep(folder), force)
    if trace:
        _traces(folder, plan.as_sweep(folder))
    _threads(threads, scheduler)

    def rung_done(rung):
        r = rung.result
        _note(f"  {rung.strong_budget} vs {rung.weak_budget}: score {r.score:.4f} [{r.low:.4f}, {r.high:.4f}]"
              + (f", {rung.test_text}" if rung.sprt else f", p = {r.pvalue:.2g}"), quiet, as_json)

    _note(f"ladder {plan.game}: {plan.spec.name} budgets {', '.join(map(str, plan.budgets))}, "
          f"{'at most ' if sprt else ''}{plan.rungs[0][2][0].games:,} deals per rung x {len(plan.rungs[0][2])} "
          f"seats -> {folder}", quiet, as_json)
    _load(plan.rungs[0][2][0], quiet, scheduler, trace)
    try:
        if sprt:
            def batch_done(strong, weak, played, test):
                _note(f"    {strong} vs {weak}: {played:,} deals, score {test.mean:.4f}, LLR {test.llr:+.2f} in "
                      f"[{test.lower:.2f}, {test.upper:.2f}]", quiet, as_json)

            result = ladder.climb_sprt(plan, folder, batch=batch, delta=delta, on_rung=rung_done,
                                       on_batch=batch_done)
        else:
            where = _executor(scheduler)
            try:
                result = ladder.climb(plan, folder, executor=where, on_rung=rung_done, trace=trace)
            finally:
                where.close()
    except (cfg.ConfigError, OSError) as e:
        _fail(str(e))
    wrote = f"wrote {Path(folder) / ladder.REPORT}, {ladder.SUMMARY} and {ladder.PLOT}"
    if as_json:
        first = plan.rungs[0][2][0]
        click.echo(ladder.document(result, rules_text(first.game, first.params)))
        click.echo(wrote, err=True)
        return
    for line in ladder.lines(result):
        click.echo(line)
    click.echo(wrote)


@main.command("tune")
@click.argument("tune_file", type=click.Path(dir_okay=False))
@click.option("--out", "folder", required=True, type=click.Path(),
              help="Folder for the batches (Parquet), _manifest.json, report.md and race.png.")
@click.option("--games-max", type=int, help="Games per candidate at most (overrides [search] games_max).")
@_options(SEED, FORCE, THREADS, SCHEDULER, QUIET, SCORE)
@click.option("--margin", type=float, metavar="E",
              help="A finalist is called fair within E when every seat's (team's) share is shown within E of fair "
                   "(two one-sided tests per seat, 5% error across the finalists)  [default: 0.02; with --score "
                   "margin, E is in the game's unit and has no default: each finalist says which edges its games "
                   "rule out]")
@click.option("--json", "as_json", is_flag=True,
              help="Print the answer as JSON (schema simcore.verdict/1: the fairest, the tied, the race's pick, the "
                   "finalists and their claims; the result-files reference) and nothing else on stdout; the folder "
                   "and its report are written as without it.")
def tune_command(tune_file, folder, games_max, seed, force, threads, scheduler, quiet, score, margin, as_json):
    """Search the [space] of TUNE_FILE for the candidate that best meets its [objective]."""
    from simcore.studies import tune, tune_report
    _out(folder)

    def note(message):
        """A progress line, which --quiet leaves out; with --json on stderr, as stdout holds the JSON alone."""
        if not quiet:
            click.echo(message, err=as_json)

    try:
        plan = tune.load(tune_file, games_max=games_max, seed=seed, score=score, margin=margin)
    except cfg.ConfigError as e:
        _fail(str(e))
    _folder(folder, "tune", plan.game, force=force)
    try:
        tune.check_replacing(plan, folder, force)
    except OSError as e:
        _fail(str(e))
    _threads(threads, scheduler)
    note(f"tune {tune_file}: {len(plan.candidates)} candidates of {plan.game}, batches of "
         f"{plan.search['batch']:,} games, at most {plan.search['games_max']:,} each -> {folder}")

    def batch_done(step, alive, state):
        note(f"  batch {step + 1}: {state.games(alive[0]):,} games each, {len(alive)} raced, "
             f"{len(state.alive)} left")

    _load(plan.candidates[0].config, quiet, scheduler)
    where = _executor(scheduler)
    try:
        result = tune.run(plan, folder, where, batch_done, warn=_warn)
    except OSError as e:
        _fail(str(e))
    finally:
        where.close()
    if as_json:
        click.echo(tune_report.document(result, folder))
        return
    for line in tune_report.lines(result):
        click.echo(line)
    click.echo(f"wrote {Path(folder) / tune_report.REPORT}")


@main.command("replay")
@click.argument("source")
@click.option("--index", type=int, default=0, show_default=True, help="Game index (the row's game_index).")
@_options(CONFIG, SET, POLICY)
@click.option("--seed", type=int, help=f"Seed of the run (with GAME; default: the config's, else {cfg.DEFAULT_SEED}).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Also write a self-contained HTML page to step through the game.")
@QUIET
def replay_command(source, index, config_path, sets, policies, seed, html_path, quiet):
    """Replay one game decision by decision: game --index of the result file SOURCE (its config is in the
    file), or of GAME with --config, --set, --policy and --seed as in `simcore run`. With --quiet only the
    result and the check against the file's row are printed."""
    from simcore.watch import replay

    if html_path is not None and Path(html_path).suffix != ".html":
        _fail(f"--html {html_path!r}: allowed: a file name ending in .html")
    try:
        if source in registry.names():
            run = cfg.resolve(source, _table(config_path), sets=_sets(sets), policies=_policy_items(policies),
                              seed=seed)
            result = replay.play(run, index, pictures=bool(html_path), on_compile=_compiling(quiet))
        elif os.path.exists(source):     # a pipe or a folder too: reading it says what it is
            if config_path or sets or policies or seed is not None:
                _fail("--config, --set, --policy and --seed go with GAME; a result file holds its own config")
            result = replay.from_file(source, index, pictures=bool(html_path), on_compile=_compiling(quiet))
        else:
            _fail(f"{source!r} is neither a result file nor a game; allowed: a .parquet file written by simcore, "
                  f"or one of {', '.join(registry.names())}")
    except (cfg.ConfigError, replay.ReplayError) as e:
        _fail(str(e))
    lines = replay.text_lines(result)
    for line in lines[-2 if result.expected is not None else -1:] if quiet else lines:
        click.echo(line)
    if not result.matches:      # no page of a game that is not the file's
        _fail(f"the replayed game differs from row {index} of {source}: {result.differences()}")
    if html_path:
        try:
            replay.write_page(result, html_path)
        except OSError as e:
            _fail(f"cannot write {html_path}: {e.strerror or e}")
        click.echo(f"wrote {html_path}")


@main.command("bench")
@click.option("--game", "game_names", multiple=True, help="Game to measure (default: all).")
@click.option("--games", type=int, default=None, help="Games per jitted measurement (default: per case).")
@click.option("--repeats", type=int, default=5, show_default=True, help="Repeats; the median counts.")
@click.option("--seed", type=int, help=f"Seed of the games measured (default: {cfg.DEFAULT_SEED}).")
@click.option("--threads", type=int, help="Threads of the all-cores measurement (default: all cores).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Also write the figures as JSON.")
@click.option("--markdown", is_flag=True, help="Also print the figures as a Markdown table (docs: What makes it fast).")
@QUIET
def bench_command(game_names, games, repeats, seed, threads, json_path, markdown, quiet):
    """Games per second: jitted on 1 thread and all cores, and the pure-Python reference."""
    import numba

    from simcore.studies import bench

    for name in game_names:
        _known_game(name)
    for option, value in (("--repeats", repeats), ("--games", games)):
        if value is not None and value < 1:
            _fail(f"{option} {value} is not allowed; allowed: 1 or more")
    if threads is not None and not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        _fail(f"--threads {threads} is not allowed; allowed: 1 to {numba.config.NUMBA_NUM_THREADS}")
    seed = cfg.DEFAULT_SEED if seed is None else seed
    if not 0 <= seed <= cfg.MAX_SEED:
        _fail(f"--seed {seed} is not allowed; allowed: 0 to {cfg.MAX_SEED}")
    if json_path is not None:       # before minutes of measuring: where the figures go must be writable
        try:
            bench.check_output(_out(json_path, "--json"))
        except OSError as e:
            _fail(str(e))
    figures = bench.measure(list(game_names) or None, games=games, repeats=repeats, seed=seed, threads=threads,
                            progress=lambda line: _note(line, quiet), on_compile=_compiling(quiet))
    click.echo(bench.render(figures))
    if markdown:
        click.echo("\n" + bench.render_markdown(figures))
    if json_path:
        try:
            bench.write_json(figures, json_path)
        except OSError as e:
            click.echo(bench.json_text(figures))      # the figures are not lost: they go to the terminal
            _fail(f"cannot write {json_path}: {e.strerror or e}; the figures are printed above as JSON")
        click.echo(f"wrote {json_path}")


# --- reading results --------------------------------------------------------------------------------------

def _load_results(paths, header=True):
    """The results of ``paths`` (folders and files) of one game, told apart by name. An unfinished folder's note
    goes to stderr and, with ``header`` (not where stdout is JSON, which says it itself), a line over stdout."""
    from analyses import data

    results = []
    for p in paths:
        if Path(p).is_dir():
            note = data.unfinished(p)
            if note:        # said on the terminal, and over what is printed of it: nothing of it is final
                _warn(note)
                if header:
                    click.echo(f"UNFINISHED: {p}: what follows is of what it holds so far, not final (the note says "
                               "what is missing and the command that finishes it)\n")
            results += data.load_folder(p)
        else:
            results += [data.load_result(p)]
    games = sorted({r.game for r in results})
    if len(games) > 1:
        raise data.DataError(f"the results are of {len(games)} games ({', '.join(games)}); allowed: the results "
                             "of one game (analyze each game's files on their own)")
    return data.named_apart(results)     # two files of one variant name: told apart by file


@main.command("analyze")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--report", "report_paths", type=click.Path(dir_okay=False), multiple=True,
              help="Write a report here: NAME.md (Markdown, its plots in NAME-plots/ beside it) or NAME.html "
                   "(one self-contained page, replay pages of the games worth watching in NAME-replays/); "
                   "repeatable: one analysis, its plots drawn once, written as each.")
@click.option("--baseline", "baselines", multiple=True,
              help="Variant the others of its player count and policies are compared with (default: the first "
                   "of them); once per group.")
@click.option("--length", "length", metavar="LOW-HIGH",
              help="Target length of a game in turns, e.g. 30-60: the verdict says how many games are within it.")
@click.option("--tables", is_flag=True, help="Also print every table (seat balance, length, comparisons).")
@click.option("--explain", is_flag=True,
              help="Also print each variant's verdict in full: every test with its numbers, the length, how the games "
                   "were decided, the kinds of moves that go with winning.")
@click.option("--margin", type=float, metavar="E",
              help="A variant is called fair within E when every seat's (team's) share is shown within E of "
                   "fair (two one-sided tests per seat, 5% error across the variants)  [default: 0.02, or the "
                   "--margin a folder was swept --until-decided with; with --score margin, E is in the game's "
                   "unit and has no default]")
@click.option("--strength", "strength_folders", multiple=True, type=click.Path(exists=True, file_okay=False),
              metavar="FOLDER", help="A skill sweep's levels measured: a folder of simcore versus --out or simcore "
                                     "ladder --out whose contests play one level against another on these rules; "
                                     "the verdict says how strong each level is and whether the top level is "
                                     "stronger than the one below it (repeatable).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the verdict's claims as JSON (schema simcore.verdict/1, the result-files reference) and "
                   "nothing else on stdout; not with --tables or --report.")
@_options(SCORE)
def analyze_command(paths, report_paths, baselines, length, tables, explain, margin, strength_folders, score,
                    as_json):
    """The verdict on a sweep folder or result files: balance, length, rule holes and differences from the
    baseline, in words with their numbers; the tables with --tables or in a --report; the claims as JSON with
    --json. A restricted-play study's folder (simcore options --out) gives the answer its command gave, read from
    its runs."""
    # its tools take seconds to import, a large folder more to read: a person at a terminal hears at once
    _at_a_terminal(f"analysing {', '.join(map(str, paths))}: reading the results and testing every variant")
    from analyses import claims, data, report, screen, skill, verdict
    from simcore.studies import strength

    if as_json:
        _json_alone(tables, report_paths)

    for report_path in report_paths:
        if Path(report_path).suffix.lower() not in report.SUFFIXES:
            _fail(f"--report {report_path!r}: unknown suffix; allowed: {', '.join(report.SUFFIXES)}")
    if len({Path(p).resolve() for p in report_paths}) < len(report_paths):
        _fail("--report names one file twice; allowed: each report once")
    if margin is not None and not 0 < margin < (1 if score == "points" else math.inf):
        _fail(f"--margin {margin:g} is not a share; allowed: 0 < E < 1, e.g. 0.02" if score == "points" else
              f"--margin {margin:g} is not a margin; allowed: E > 0 in the game's unit, e.g. 0.5")
    try:
        target = verdict.LengthTarget.parse(length) if length is not None else None
    except ValueError as e:
        _fail(str(e))
    study = _study_folder(paths)
    if study is not None:
        if baselines or length or tables or explain or strength_folders or score != "points":
            _fail(f"{study} holds a restricted-play study: --baseline, --length, --tables, --explain, --strength "
                  "and --score read variants; allowed: --report, --margin and --json")
        return _analyze_study(study, report_paths, margin, as_json)
    try:
        results = data.scored(_load_results(paths, header=not as_json), score)
        _warn(data.rules_warning(results))
        names = [r.name for r in results]
        for baseline in baselines:
            if baseline not in names:
                _fail(f"--baseline {baseline!r} is not a variant; allowed: {', '.join(names)}")
        strengths = [s for folder in strength_folders for s in strength.read(folder)]
        if score == "points":
            from analyses import fairer, sequential

            swept = sequential.swept_margin(results)
            if margin is not None and swept is not None and margin != swept:
                _warn(f"note: --margin {margin:g}: the variants played until decided keep the margin they were "
                      f"decided at, {swept:g}")
            margin = margin or swept or fairer.DEFAULT_MARGIN
        if report_paths:
            click.echo(f"analysing {len(results)} variant{'s' * (len(results) > 1)} for "
                       f"{', '.join(Path(p).name for p in report_paths)}", err=True)
        analysis = report.analyze(results, baselines, target, margin, strengths)
        analysis.unfinished = tuple(note for p in paths if Path(p).is_dir() for note in [data.unfinished(p)] if note)
        if strengths and not analysis.skill_levels:
            _fail("--strength measures the levels of a skill sweep, and these variants differ in more than the "
                  "policy every seat plays; allowed: --strength with a skill sweep's results")
        if strengths:
            levels, first = list(analysis.skill_levels.values()), results[0]
            for line in skill.unused(levels, strengths, first.game, first.meta.get("params", "{}")):
                _warn(line)
        if as_json:
            click.echo(claims.to_json(claims.claims(analysis), analysis.unfinished))
            return
        click.echo("\n".join(report.terminal_head(analysis) + [""] + screen.terminal(analysis)))
        if explain:
            click.echo("\n" + "\n\n".join(report.terminal_verdicts(analysis)))
        if tables:
            _echo_tables(report, analysis)
        if not (explain and (report_paths or tables)):
            click.echo("\n" + textwrap.fill(_more(explain, tables or report_paths), screen.WIDTH))
        for report_path in report_paths:
            _write_report(report, analysis, report_path)
    except data.DataError as e:
        _fail(str(e))


def _study_folder(paths):
    """The restricted-play study's folder among ``paths`` (None: there is none), analysed alone."""
    from simcore.io import manifest
    from simcore.studies.options import Folder
    from simcore.studies.sweep import manifest_kind

    studies = [p for p in paths if Path(p).is_dir() and manifest.exists(p)
               and manifest_kind(manifest.read_manifest(p)) == Folder.KIND]
    if studies and len(paths) > 1:
        _fail(f"{studies[0]} holds a {Folder.KIND}, analysed on its own; allowed: simcore analyze {studies[0]}, "
              "and the other paths apart")
    return studies[0] if studies else None


def _analyze_study(folder, report_paths, margin, as_json):
    """The answer of the restricted-play study kept in ``folder``, read from its runs (nothing is played): the
    screen (or --json) and reports the options command that wrote it gives, at its margin unless ``margin``."""
    from analyses.data import DataError
    from simcore.studies import options

    try:
        studies, bases, asked = options.read_study(folder)
        keeping = options.Folder(folder, studies[0].baseline.game, reading=True)
        margin = asked["margin"] if margin is None else margin
        if bases is not None:
            results, moved = options.play_sweep(studies, bases, margin=margin, runner=keeping.runner)
        else:
            results, moved = {"": options.play(studies[0], margin=margin, runner=keeping.runner)}, None
        skill = asked["skill"]
        skilled = _skill_rows(studies, results, skill["strong"], skill["games"], None, keeping) if skill else []
    except DataError as e:
        _fail(str(e))
    _options_answer(results, moved, asked["sweep"], skilled, as_json, report_paths, quiet=False)


def _more(explain, tables):
    """Where the rest of the verdict is, for what this analyze did not print."""
    rest = [*([] if explain else ["each variant's verdict in full (length, how decided, the tests): add --explain"]),
            *([] if tables else ["the tables: --tables, or --report NAME.md or NAME.html with plots"])]
    return "; ".join(rest) + "."


def _json_alone(tables, report_paths):
    """--json prints the claims alone on stdout (a script parses all of it)."""
    if tables or report_paths:
        _fail(f"--json prints only the verdict as JSON, not {'--tables' if tables else '--report'}; allowed: "
              "--json without --tables and --report (run analyze again for them)")


def _write_report(report, analysis, path):
    """Write one --report of ``analysis``, saying how far it is on stderr; one-line errors."""
    from simcore.watch import replay

    try:
        notice = _compiling(False, "agents for the replay pages of the games worth watching")
        report.write_analysis(analysis, path, functools.partial(replay.write_html, on_compile=notice),
                              _steps(f"writing {Path(path).name}"))
    except OSError as e:
        _fail(f"cannot write {path}: {e.strerror or e}")
    except replay.ReplayError as e:
        _fail(f"cannot write the replay pages of {path}: {e}")
    click.echo(f"\nwrote {path}: the verdict, every table, the plots and the games worth watching")


def _echo_tables(report, analysis):
    for table, legend in report.balance_tables(analysis):
        click.echo(f"\n{table}\n{legend}")
    click.echo(f"\n{report.shape_table(analysis)}")
    if analysis.skill_levels:
        click.echo(f"\nby skill level:\n{report.skill_table(analysis)}")
    if analysis.comparisons or analysis.fairness:
        click.echo(f"\n{report.comparison_table(analysis.comparisons, analysis.fairness.values())}\n"
                   f"{report.comparison_tests('the variants, per metric', analysis.results[0].score)}")
    if analysis.untested:
        click.echo(report.untested_text(analysis.untested))


def _at_a_terminal(message):
    """A line on stderr when a person reads it there (a terminal), not in a script's or a test's captured
    output: what a wait of seconds is doing."""
    if sys.stderr.isatty():
        click.echo(message, err=True)


def _warn(warning):
    if warning:
        click.echo(warning, err=True)


MIN_READING_GAMES = 10      # simcore readings: its tests need more games than seats


@main.command("readings")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--games", type=int,
              help="Games each variant plays under each reading (default: the variant's own, at most 20,000).")
@click.option("--out", "folder", type=click.Path(),
              help="Also keep the games played: one file per variant and reading and a manifest in this folder "
                   "(simcore analyze reads it). Without it nothing is written.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False),
              help="Also write the verdict as Markdown here (NAME.md).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the verdict's claims as JSON (schema simcore.verdict/1, the result-files reference) and "
                   "nothing else on stdout; --out and --report are still written.")
@_options(FORCE, THREADS, QUIET)
def readings_command(paths, games, folder, report_path, as_json, force, threads, quiet):
    """Does the verdict hang on how simcore reads a silent rulebook? Play every variant of a sweep folder or
    result files again under each other reading its game declares (same seed, same deals) and say per variant
    whether its verdict word is the same under every reading or which reading it depends on (and where only
    the edge moves)."""
    from analyses import claims, data
    from simcore.io import writing
    from simcore.studies import readings

    if games is not None and games < MIN_READING_GAMES:
        _fail(f"--games {games} is not allowed; allowed: {MIN_READING_GAMES} or more (the tests need more games "
              "than seats)")
    if report_path is not None and Path(report_path).suffix.lower() != ".md":
        _fail(f"--report {report_path!r}: unknown suffix; allowed: NAME.md")
    try:
        results = _load_results(paths, header=not as_json)
        _warn(data.rules_warning(results))
        todo = readings.replays(results, games)
    except data.DataError as e:
        _fail(str(e))
    game = todo[0].config.module.GAME
    if not game.readings:
        none = (f"{game.name} declares no readings of a silent rulebook ({game.doc}): its verdicts rest on its rules "
                "alone.")
        click.echo(claims.document([], variants=[], note=none) if as_json else none)
        return
    plan = readings.as_sweep(todo, paths[0])
    if folder is not None:
        _folder(folder, readings.KIND, game.name, plan, force)
    try:
        if report_path is not None:
            writing.check_target(report_path)
    except OSError as e:
        _fail(str(e))
    _threads(threads)
    _load(todo[0].config, quiet)
    with _locked(folder, readings.KIND, game.name, plan, force):
        _readings(todo, folder, paths[0], report_path, as_json)


def _readings(todo, folder, source, report_path, as_json=False):
    """Play ``todo`` (into ``folder``, if any), print the verdict across the readings (``as_json``: its claims as
    JSON, and what was written on stderr, so that stdout is the JSON alone) and write its report."""
    from analyses import data
    from simcore.io import writing
    from simcore.studies import readings

    try:
        played = readings.play(todo, folder, source, warn=_warn)
        found = readings.verdicts(todo, played)
    except (OSError, data.DataError) as e:
        _fail(str(e))
    click.echo(readings.document(found) if as_json else readings.terminal(todo, found))
    if report_path is not None:
        try:
            writing.write_atomic(report_path, lambda tmp: tmp.write_text(readings.markdown(todo, found),
                                                                         encoding="utf-8"))
        except OSError as e:
            _fail(f"cannot write {report_path}: {e.strerror or e}")
        click.echo(f"\nwrote {report_path}", err=as_json)
    if folder is not None:
        click.echo(f"\nwrote the games played to {folder} ({len(todo)} files and {folder}/_manifest.json)",
                   err=as_json)


@main.command("compare")
@click.argument("file_a", type=click.Path(exists=True, dir_okay=False))
@click.argument("file_b", type=click.Path(exists=True, dir_okay=False))
@click.option("--metric", "metrics", multiple=True,
              help="Column to compare (default: every seat's points_i, or margin_i with --score margin, and n_turns).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the comparison's claims as JSON (schema simcore.verdict/1, the result-files reference): "
                   "each file's verdict and whether the second is fairer than the first, and nothing else on "
                   "stdout; not with --metric.")
@_options(SCORE)
def compare_command(file_a, file_b, metrics, score, as_json):
    """Compare two variants game by game (paired on common random numbers when the seeds agree); the claims as
    JSON with --json."""
    from analyses import claims, data, report, scoring, variants

    if as_json:
        _compare_json_alone(metrics)
    try:
        a, b = data.scored(data.named_apart([data.load_result(file_a), data.load_result(file_b)]), score)
        _warn(data.rules_warning([a, b]))
        _warn(variants.unlike(a, b))
        if not variants.check_comparable(a, b):
            click.echo(f"warning: seeds differ ({a.seed} vs {b.seed}): the games share no random numbers, "
                       "comparing unpaired", err=True)
        if as_json:
            click.echo(claims.to_json(_comparison_claims(a, b)))
            return
        comparisons, untested = variants.compare(a, b, metrics or None)
        fair = variants.fairness(a, b) if not metrics else None
    except data.DataError as e:
        _fail(str(e))
    click.echo(f"{a.name} ({a.n_games:,} games) vs {b.name} ({b.n_games:,} games), {a.game}")
    click.echo(f"  {a.name}: {context.of_result(a)}\n  {b.name}: {context.of_result(b)}")
    if scoring.scored_by([a]):
        click.echo(scoring.scored_by([a]))
    if comparisons:
        click.echo(report.comparison_table(comparisons))
        click.echo(report.comparison_tests("the metrics", score))
    if untested:
        click.echo(report.untested_text(untested))
    if fair is not None:
        click.echo(f"\n{report.terminal_text(fair.text)}")


def _compare_json_alone(metrics):
    """compare --json prints the claims alone on stdout (a script parses all of it); the metrics' table is not
    among them."""
    if metrics:
        _fail("--json prints only the claims as JSON, not the table of --metric; allowed: --json without --metric "
              "(run compare again for the table)")


def _comparison_claims(a, b):
    """The claims of ``compare A B --json``: each file's verdict as ``analyze A B`` claims it (Holm across the two,
    fair within the margin analyze takes by default), and ``b``'s change against ``a`` as compare's sentence says
    it, which compare says also where analyze compares nothing (other policies, with a warning)."""
    from analyses import claims, fairer, report, sequential, variants

    # as analyze takes it: a margin score has no default E
    margin = (sequential.swept_margin([a, b]) or fairer.DEFAULT_MARGIN) if a.score == "points" else None
    analysis = report.analyze([a, b], (a.name,), margin=margin)
    fair = variants.fairness(a, b)
    return [c for c in claims.claims(analysis) if c.word not in claims.CHANGE] + \
        ([claims.change_claim(fair)] if fair is not None else [])


@main.command("plan")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--seats", type=int, help="Seats of the game: a plan from a guess, without result files.")
@click.option("--teams", type=int,
              help="With --seats: the seats form this many equal teams, the unit of a team game (e.g. 2 for 4 "
                   "seats playing 2 against 2; default: every seat for itself).")
@click.option("--edge", type=float, default=0.02, show_default=True, metavar="E",
              help="The edge to find (a seat's share moved by E) and the margin of \"fair within E\".")
@click.option("--paired-correlation", "paired_correlation", type=float, metavar="R",
              help="With --seats: a seat's correlation between game i of two variants played on common deals "
                   "(the same seed; default: 0, independent runs). With results it is measured.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="The tests' error rate.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the plan and its claims as JSON (schema simcore.verdict/1, the result-files reference) "
                   "and nothing else on stdout.")
def plan_command(paths, seats, teams, edge, paired_correlation, alpha, as_json):
    """How many games? From a guess (--seats) or from result files or sweep folders: the games per variant that
    find a seat edge of E, that decide "fairer" or "less fair", and that show a variant fair within E, at 80%
    and 95% power; from results, also what the games decide already."""
    from analyses import data, planning

    guess = {"--seats": seats, "--teams": teams, "--paired-correlation": paired_correlation}
    if paths and any(v is not None for v in guess.values()):
        given = ", ".join(name for name, v in guess.items() if v is not None)
        _fail(f"{given} describe{'s' * (given.count(',') == 0)} a guess; with result files the data give them; "
              "allowed: result files or a sweep folder, or --seats N [--teams T] [--paired-correlation R]")
    if not paths and seats is None:
        _fail("nothing to plan from; allowed: result files or a sweep folder (simcore plan runs/x), or a guess "
              "(simcore plan --seats 4 --edge 0.05)")
    try:
        if paths:
            results = _load_results(paths, header=not as_json)
            plan = planning.plan_results(results, edge, alpha)
            click.echo(planning.results_document(plan, results) if as_json
                       else "\n".join(planning.results_lines(plan, results)))
            return
        plan = planning.plan_guess(seats, edge, teams, paired_correlation or 0.0, alpha)
    except planning.PlanError as e:
        _fail(f"--{e.name.replace('_', '-')} {e.value} is not allowed; allowed: {e.allowed}")
    except data.DataError as e:
        _fail(str(e))
    click.echo(planning.guess_document(plan) if as_json else "\n".join(planning.guess_lines(plan)))


NUMBA_FILES = (".nbi", ".nbc")      # numba's cache index and data files


def _files_under(folder, keep=lambda name: True):
    """The files below ``folder`` (links not followed) whose names ``keep`` accepts."""
    return [Path(top) / name for top, _, names in os.walk(folder) for name in names if keep(name)]


@main.command("warm")
@click.argument("game_names", nargs=-1, metavar="[GAME]...")
@click.option("--search", is_flag=True, help="The copy with every agent instead (random, greedy, mc, ismcts): it "
                                             "serves every seat.")
@click.option("--trace", is_flag=True, help="Also the traced copies of random and greedy seats (run --trace, "
                                            "sweep --trace).")
def warm_command(game_names, search, trace):
    """Compile, once for this machine, every copy of the game loop a study will play (random seats, greedy seats;
    with --search the one copy with every agent, which serves them too; with --trace the traced copies of random
    and greedy seats) and the agents of a report's replay pages, the games in parallel processes; a cached copy
    loads in a second. GAME: one or more (default: every game)."""
    from simcore.studies import warm

    names = [_known_game(name) for name in dict.fromkeys(game_names)] or registry.names()
    start = time.monotonic()
    at_once = warm.processes(names, search, trace)
    seats = "every agent, which serves random, greedy and searching seats" if search else "random and greedy seats"
    click.echo(f"warm: the copies of {', '.join(names)} ({seats}{', traced' * trace}, the replay pages' agents), "
               f"{at_once} process{'es' * (at_once > 1)} at a time; each compiles once for "
               f"this machine (cached in {os.environ['NUMBA_CACHE_DIR']})")

    def ready(game, done):
        said = "; ".join(f"{copy} {seconds:.1f} s" for copy, seconds in done)
        click.echo(f"  {game} ready ({time.monotonic() - start:.0f} s): {said}")

    count = warm.warm(names, search, trace, on_game=ready)
    click.echo(f"warm: {count} copies of {len(names)} game{'s' * (len(names) > 1)} ready in "
               f"{time.monotonic() - start:.0f} s")


@main.command("cache")
@click.option("--clear", is_flag=True, help="Empty it: compiled code is built again on next use. Only what simcore "
                                            "and numba made is removed.")
def cache_command(clear):
    """Where numba's compiled code is cached, and its size."""
    import simcore

    current = Path(os.environ["NUMBA_CACHE_DIR"])
    users = simcore.USER_CACHE_DIR is not None and current == Path(simcore.USER_CACHE_DIR)
    if clear and simcore.USER_CACHE_DIR is not None and not users:
        # the user named a cache simcore could not use: the one in use instead is simcore's, shared by the user's
        # other simcore processes, and clearing it is not what was asked
        _fail(f"NUMBA_CACHE_DIR={simcore.USER_CACHE_DIR} is not a folder this process can write, so --clear "
              "removes nothing; allowed: NUMBA_CACHE_DIR naming a folder, or unset for simcore's own cache")
    if users:      # the user's own folder: only numba's files in it are the cache
        where, folders = f"{current} (NUMBA_CACHE_DIR)", []
        files = _files_under(current, lambda name: name.endswith(NUMBA_FILES))
    else:
        roots = [simcore.cache_root()] + ([simcore.fallback_root()] if simcore.private(simcore.fallback_root())
                                          else [])
        folders = [f for root in roots if root.is_dir() for f in sorted(root.glob("numba-*")) if simcore.ours(f)]
        where = " and ".join(str(root) for root in roots if root.is_dir()) or str(roots[0])
        files = [file for folder in folders for file in _files_under(folder, lambda name: name != simcore.MARKER)]
    size = sum(f.stat().st_size for f in files if f.is_file())
    if clear:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
        for file in files if users else []:
            file.unlink(missing_ok=True)
        click.echo(f"cleared {where} ({len(files):,} files, {size / 1e6:.1f} MB"
                   + (", numba's files only)" if users else ")"))
        return
    click.echo(f"numba cache: {where}")
    click.echo(f"  {len(files):,} files, {size / 1e6:.1f} MB; this version's folder: {current.name}")
    if simcore.CACHE_NOTE:
        click.echo(f"  {simcore.CACHE_NOTE}")


if __name__ == "__main__":
    main()
