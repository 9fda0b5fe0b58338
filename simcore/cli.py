"""The ``simcore`` command line."""

import os
import shutil
import sys
from pathlib import Path

import click

from simcore import config as cfg
from simcore import games as registry
from simcore.results import OutputError


def _fail(message):
    raise click.ClickException(message)


@click.group()
@click.version_option(package_name="simcore")
def main():
    """Monte-Carlo balance testing of tabletop games."""


@main.command("games")
def games_command():
    """List the games, their players, policies and every parameter."""
    for name in registry.names():
        info = registry.load(name).GAME
        counts = ", ".join(str(n) for n in info.player_counts)
        click.echo(f"{info.name}: {info.long_name}")
        click.echo(f"  {info.summary}")
        click.echo(f"  players: {counts}    policies: {', '.join(info.policies)}")
        click.echo(f"  rulebook: {info.rulebook}    rules as simulated: {info.doc}")
        width = max(len(p.name) for p in info.params)
        for p in info.params:
            default = cfg.toml_value(p.default)
            click.echo(f"  {p.name:<{width}}  {default:>6}  {p.help}")
        click.echo()
    from simcore import agents

    click.echo("policies (a spec NAME[:KEY=VALUE,...], per seat with --policy SEAT=SPEC):")
    for name in agents.AGENTS:
        for line in agents.describe(name):
            click.echo(f"  {line}")


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


def _executor(scheduler):
    """This machine's threads, or the Dask cluster at ``scheduler`` (a one-line error when unreachable)."""
    from simcore.executors import ExecutorError, executor

    try:
        return executor(scheduler)
    except ExecutorError as e:
        _fail(str(e))


def _threads(n):
    if n is not None:
        import numba
        if not 1 <= n <= numba.config.NUMBA_NUM_THREADS:
            _fail(f"--threads {n} is not allowed; allowed: 1 to {numba.config.NUMBA_NUM_THREADS}")
        numba.set_num_threads(n)


@main.command("run")
@click.argument("game")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="TOML config file.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override one parameter.")
@click.option("--policy", "policies", multiple=True, metavar="[SEAT=]SPEC",
              help="Policy spec for every seat (SPEC) or one seat (SEAT=SPEC), e.g. 1=mc:rollouts=16.")
@click.option("--games", type=int, help="Number of games.")
@click.option("--seed", type=int, help="Seed of the run.")
@click.option("--variant", help="Variant name written to every row.")
@click.option("--out", type=click.Path(), help="Parquet file to write.")
@click.option("--threads", type=int, help="Numba threads (default: all cores).")
@click.option("--quiet", is_flag=True, help="No progress bar and no summary.")
def run_command(game, config_path, sets, policies, games, seed, variant, out, threads, quiet):
    """Play GAME and write one Parquet row per game."""
    from simcore import runs

    try:
        table = cfg.load_file(config_path) if config_path else {}
        run = cfg.resolve(game, table, sets=[cfg.parse_assignment(s) for s in sets],
                          policies=[cfg.parse_policy(p) for p in policies],
                          games=games, seed=seed, variant=variant)
    except cfg.ConfigError as e:
        _fail(str(e))
    _threads(threads)
    show = not quiet and sys.stderr.isatty()
    with click.progressbar(length=run.games, label=f"{run.game}", file=sys.stderr,
                           hidden=not show) as bar:
        try:
            tally = runs.run_to_file(run, out, bar.update) if out else runs.run_to_tally(run, bar.update)
        except OutputError as e:
            _fail(str(e))
    if not quiet:
        click.echo(f"{run.game} ({run.variant}), seed {run.seed}, policies {', '.join(run.policies)}")
        for line in tally.lines():
            click.echo(line)
        if out:
            click.echo(f"wrote {out}")


@main.command("sweep")
@click.argument("sweep_file", type=click.Path(dir_okay=False))
@click.option("--out", "folder", required=True, type=click.Path(file_okay=False),
              help="Folder for one Parquet file per variant and manifest.json.")
@click.option("--games", type=int, help="Games per variant (overrides the sweep file).")
@click.option("--seed", type=int, help="Seed of every variant (overrides the sweep file).")
@click.option("--threads", type=int, help="Numba threads (default: all cores).")
@click.option("--scheduler", help="Run on a Dask cluster: tcp://HOST:PORT, or local:N for a LocalCluster.")
@click.option("--quiet", is_flag=True, help="No progress bar, no per-variant lines.")
def sweep_command(sweep_file, folder, games, seed, threads, scheduler, quiet):
    """Play every variant of SWEEP_FILE that is not complete in --out yet."""
    from simcore import sweep
    try:
        plan = sweep.load(sweep_file, games=games, seed=seed)
    except cfg.ConfigError as e:
        _fail(str(e))
    _threads(threads)
    manifest = sweep.read_manifest(folder)
    todo = sum(v.config.games for v in plan.variants if not sweep.complete(folder, v, manifest))
    show = not quiet and sys.stderr.isatty()

    def report(variant, status, tally):
        if not quiet:
            played = "" if tally is None else f" {tally.games:,} games in {tally.seconds:.1f} s"
            click.echo(f"  {variant.name:<24} {status}{played}")

    if not quiet:
        click.echo(f"sweep {sweep_file}: {len(plan.variants)} variants of {plan.game}, "
                   f"{todo:,} games to play -> {folder}")
    where = _executor(scheduler)
    try:
        with click.progressbar(length=max(todo, 1), label="sweep", file=sys.stderr, hidden=not show) as bar:
            status = sweep.run(plan, folder, bar.update, report, where)
    except OSError as e:
        _fail(str(e))
    finally:
        for worker, seconds in getattr(where, "warm_up_seconds", {}).items():
            if not quiet:
                click.echo(f"  worker {worker}: first call (load or compile) {seconds:.2f} s")
        where.close()
    if not quiet:
        counts = {s: list(status.values()).count(s) for s in ("played", "replayed", "skipped")}
        click.echo(", ".join(f"{n} {s}" for s, n in counts.items()) + f"; manifest: {folder}/manifest.json")


def _load_results(paths):
    from analyses import data

    results = []
    for p in paths:
        results += data.load_folder(p) if Path(p).is_dir() else [data.load_result(p)]
    names = [r.name for r in results]
    for r in results:   # two files of one variant name: tell them apart by file
        if names.count(r.name) > 1:
            r.name = f"{r.name} ({r.path.name})"
    return results


@main.command("analyze")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--report", "report_path", type=click.Path(dir_okay=False),
              help="Write a report here: NAME.md (Markdown, its plots in NAME-plots/ beside it) or NAME.html "
                   "(one self-contained page, replay pages of the games worth watching in NAME-replays/).")
@click.option("--baseline", help="Variant the others are compared with (default: the first).")
def analyze_command(paths, report_path, baseline):
    """Seat balance, game length and comparisons for a sweep folder or result files."""
    from analyses import data, report
    from simcore import replay

    if report_path and Path(report_path).suffix.lower() not in report.SUFFIXES:
        _fail(f"--report {report_path}: unknown suffix; allowed: {', '.join(report.SUFFIXES)}")
    try:
        results = _load_results(paths)
        names = [r.name for r in results]
        if baseline is not None and baseline not in names:
            _fail(f"--baseline {baseline!r} is not a variant; allowed: {', '.join(names)}")
        base = names.index(baseline) if baseline else 0
        analysis = report.analyze(results, base)
        click.echo(f"{report.balance_table(analysis)}\n\n{report.shape_table(analysis)}")
        if analysis.skill_levels:
            click.echo(f"\nby skill level:\n{report.skill_table(analysis)}")
        if analysis.comparisons:
            click.echo(f"\n{report.comparison_table(analysis.comparisons)}")
        if report_path:
            try:
                report.write_report(results, report_path, base, write_replay=replay.write_html)
            except OSError as e:
                _fail(f"cannot write {report_path}: {e.strerror or e}")
            except replay.ReplayError as e:
                _fail(f"cannot write the replay pages of {report_path}: {e}")
            click.echo(f"\nwrote {report_path}")
    except data.DataError as e:
        _fail(str(e))


@main.command("replay")
@click.argument("source")
@click.option("--index", type=int, default=0, show_default=True, help="Game index (the row's game_index).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="TOML config file (with GAME).")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Parameter (with GAME).")
@click.option("--policy", "policies", multiple=True, metavar="[SEAT=]SPEC", help="Policy spec (with GAME).")
@click.option("--seed", type=int, help="Seed of the run (with GAME).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Also write a self-contained HTML page to step through the game.")
def replay_command(source, index, config_path, sets, policies, seed, html_path):
    """Replay one game decision by decision: game --index of the result file SOURCE (its config is in the
    file), or of GAME with --set, --policy and --seed as in `simcore run`."""
    from simcore import replay

    if html_path and Path(html_path).suffix != ".html":
        _fail(f"--html {html_path}: allowed: a file name ending in .html")
    try:
        if source in registry.names():
            table = cfg.load_file(config_path) if config_path else {}
            run = cfg.resolve(source, table, sets=[cfg.parse_assignment(s) for s in sets],
                              policies=[cfg.parse_policy(p) for p in policies], seed=seed)
            result = replay.play(run, index, pictures=bool(html_path))
        elif Path(source).is_file():
            if config_path or sets or policies or seed is not None:
                _fail("--config, --set, --policy and --seed go with GAME; a result file holds its own config")
            result = replay.from_file(source, index, pictures=bool(html_path))
        else:
            _fail(f"{source!r} is neither a result file nor a game; allowed: a .parquet file written by simcore, "
                  f"or one of {', '.join(registry.names())}")
    except (cfg.ConfigError, replay.ReplayError) as e:
        _fail(str(e))
    for line in replay.text_lines(result):
        click.echo(line)
    if html_path:
        try:
            replay.write_page(result, html_path)
        except OSError as e:
            _fail(f"cannot write {html_path}: {e.strerror or e}")
        click.echo(f"wrote {html_path}")
    if not result.matches:
        _fail(f"the replayed game differs from row {index} of {source}: {result.differences()}")


@main.command("compare")
@click.argument("file_a", type=click.Path(exists=True, dir_okay=False))
@click.argument("file_b", type=click.Path(exists=True, dir_okay=False))
@click.option("--metric", "metrics", multiple=True, help="Column to compare (default: wins, scores, turns).")
def compare_command(file_a, file_b, metrics):
    """Compare two variants game by game (paired on common random numbers when the seeds agree)."""
    from analyses import data, report, variants

    try:
        a, b = data.load_result(file_a), data.load_result(file_b)
        if not variants.check_comparable(a, b):
            click.echo(f"warning: seeds differ ({a.seed} vs {b.seed}): the games share no random numbers, "
                       "comparing unpaired", err=True)
        comparisons = variants.compare(a, b, metrics or None)
    except data.DataError as e:
        _fail(str(e))
    click.echo(f"{a.name} ({a.n_games:,} games) vs {b.name} ({b.n_games:,} games), {a.game}")
    click.echo(report.comparison_table(comparisons))


def _variant_spec(text):
    name, sep, body = text.partition(":")
    if not sep or not name:
        raise cfg.ConfigError(f"--variant {text!r} is not NAME:KEY=VALUE[,KEY=VALUE...]")
    return name, [cfg.parse_assignment(part, "--variant") for part in body.split(",") if part.strip()]


@main.command("duel")
@click.argument("game")
@click.option("--variant", "variant_specs", multiple=True, metavar="NAME:KEY=VALUE[,KEY=VALUE]",
              help="A variant (one or two); parameters on top of the base.")
@click.option("--metric", default="win_0", show_default=True, help="Yes/no column, e.g. win_0 or timeout.")
@click.option("--sprt", is_flag=True, help="Play batches until a sequential test decides.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Base parameter for every variant.")
@click.option("--policy", "policies", multiple=True, metavar="[SEAT=]SPEC",
              help="Base policies, e.g. 1=mc:rollouts=16.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Base config file.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--games", type=int, default=100_000, show_default=True, help="Games per variant without --sprt.")
@click.option("--batch", type=int, default=20_000, show_default=True, help="Games per variant per SPRT step.")
@click.option("--max-games", type=int, default=2_000_000, show_default=True, help="SPRT budget per variant.")
@click.option("--delta", type=float, default=0.05, show_default=True,
              help="SPRT effect: two variants: share of the games where only one of them scores the metric that "
                   "go to one side (0.5 + delta); one variant: distance of its rate from --p0.")
@click.option("--p0", type=float, help="One variant: the rate under H0 (default 1/players for win_i, else 0.5).")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="SPRT false-positive rate.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="SPRT false-negative rate.")
def duel_command(game, variant_specs, metric, sprt, sets, policies, config_path, seed, games, batch, max_games,
                 delta, p0, alpha, beta):
    """Play one or two variants on the same seeds and test METRIC, sequentially with --sprt."""
    from simcore import duel

    try:
        base = cfg.load_file(config_path) if config_path else {}
        specs = [_variant_spec(v) for v in variant_specs] or [("base", [])]
        if not 1 <= len(specs) <= 2:
            _fail(f"{len(specs)} variants given; allowed: one or two")
        runs = [cfg.resolve(game, base, sets=[cfg.parse_assignment(s) for s in sets] + over,
                            policies=[cfg.parse_policy(p) for p in policies], games=games, seed=seed, variant=name)
                for name, over in specs]
        plan = duel.Duel(runs, metric, sprt=sprt, batch=batch, max_games=max_games, delta=delta, p0=p0,
                         alpha=alpha, beta=beta)
    except (cfg.ConfigError, ValueError) as e:
        _fail(str(e))
    for line in plan.play(progress=click.echo):
        click.echo(line)


@main.command("versus")
@click.argument("game")
@click.option("--policy", "policy", required=True, metavar="SPEC", help="Policy A, e.g. mc:rollouts=16.")
@click.option("--against", required=True, metavar="SPEC", help="Policy B, in every other seat.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Game parameter.")
@click.option("--games", type=int, default=1000, show_default=True, help="Deals; each is played from every seat.")
@click.option("--seed", type=int, default=1, show_default=True)
def versus_command(game, policy, against, sets, games, seed):
    """A's score against B on the same deals, A taking every seat in turn (1/players is fair)."""
    from simcore import versus

    try:
        runs = versus.seatings(game, policy, against, [cfg.parse_assignment(s) for s in sets], games, seed)
    except cfg.ConfigError as e:
        _fail(str(e))
    r = versus.contest(runs, on_seat=lambda seat, score: click.echo(f"  from seat {seat}: {score:.4f}"))
    verdict = "stronger" if r.significant and r.score > r.fair else (
        "weaker" if r.significant else "no significant difference")
    click.echo(f"{r.policy} against {r.against}, {game}, {r.deals:,} deals x {r.players} seats: score "
               f"{r.score:.4f} [{r.low:.4f}, {r.high:.4f}] (fair {r.fair:.4f}, p = {r.pvalue:.2g}): {verdict}")


@main.command("ladder")
@click.argument("game")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Game parameter.")
@click.option("--policy-base", "base", default="ismcts", show_default=True, metavar="SPEC",
              help="The searching policy climbed (ismcts or mc, other parameters allowed, no budget).")
@click.option("--budgets", default=",".join(map(str, (8, 16, 32, 64, 128, 256, 512, 1024, 2048))),
              show_default=True, help="Budgets, increasing: each rung plays one against the one before.")
@click.option("--games", type=int, default=200, show_default=True,
              help="Deals per rung (with --sprt: at most), each played from every seat.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--sprt", is_flag=True, help="Play each rung in batches until Wald's SPRT decides.")
@click.option("--batch", type=int, default=50, show_default=True, help="Deals per SPRT step.")
@click.option("--delta", type=float, default=0.05, show_default=True,
              help="SPRT effect: the larger budget wins 1/players + delta.")
@click.option("--out", "folder", required=True, type=click.Path(),
              help="Folder for the games (one Parquet file per rung and seat), ladder.parquet, .md and .png.")
@click.option("--threads", type=int, help="Numba threads (default: all cores).")
@click.option("--scheduler", help="Run on a Dask cluster: tcp://HOST:PORT, or local:N (not with --sprt).")
def ladder_command(game, sets, base, budgets, games, seed, sprt, batch, delta, folder, threads, scheduler):
    """Does playing better win more? Budget 2n against n on the same deals, rung by rung."""
    from simcore import ladder
    try:
        plan = ladder.plan(game, [cfg.parse_assignment(s) for s in sets], base, ladder.parse_budgets(budgets),
                           games, seed)
        if sprt and scheduler:
            raise cfg.ConfigError("--sprt plays on this machine; allowed: --sprt or --scheduler, not both")
    except cfg.ConfigError as e:
        _fail(str(e))
    if Path(folder).exists() and not Path(folder).is_dir():
        _fail(f"cannot write the ladder to {folder}: it is a file; give a folder")
    _threads(threads)

    def rung_done(rung):
        r = rung.result
        click.echo(f"  {rung.strong_budget} vs {rung.weak_budget}: score {r.score:.4f} [{r.low:.4f}, {r.high:.4f}]"
                   + (f", SPRT {rung.sprt}" if rung.sprt else f", p = {r.pvalue:.2g}"))

    click.echo(f"ladder {game}: {plan.spec.name} budgets {', '.join(map(str, plan.budgets))}, "
               f"{'at most ' if sprt else ''}{games:,} deals per rung x {len(plan.rungs[0][2])} seats -> {folder}")
    try:
        if sprt:
            result = ladder.climb_sprt(plan, folder, batch=batch, delta=delta, on_rung=rung_done)
        else:
            where = _executor(scheduler)
            try:
                result = ladder.climb(plan, folder, executor=where, on_rung=rung_done)
            finally:
                where.close()
    except (cfg.ConfigError, OSError) as e:
        _fail(str(e))
    for line in ladder.lines(result):
        click.echo(line)
    click.echo(f"wrote {Path(folder) / ladder.REPORT}, {ladder.SUMMARY} and {ladder.PLOT}")


@main.command("tune")
@click.argument("tune_file", type=click.Path(dir_okay=False))
@click.option("--out", "folder", required=True, type=click.Path(),
              help="Folder for the batches (Parquet), manifest.json, report.md and race.png.")
@click.option("--games-max", type=int, help="Games per candidate at most (overrides [search] games_max).")
@click.option("--threads", type=int, help="Numba threads (default: all cores).")
@click.option("--scheduler", help="Run on a Dask cluster: tcp://HOST:PORT, or local:N for a LocalCluster.")
@click.option("--quiet", is_flag=True, help="No line per batch.")
def tune_command(tune_file, folder, games_max, threads, scheduler, quiet):
    """Search the [space] of TUNE_FILE for the candidate that best meets its [objective]."""
    from simcore import tune, tune_report
    try:
        plan = tune.load(tune_file, games_max=games_max)
    except cfg.ConfigError as e:
        _fail(str(e))
    if Path(folder).exists() and not Path(folder).is_dir():
        _fail(f"cannot write the tune run to {folder}: it is a file; give a folder")
    _threads(threads)
    if not quiet:
        click.echo(f"tune {tune_file}: {len(plan.candidates)} candidates of {plan.game}, batches of "
                   f"{plan.search['batch']:,} games, at most {plan.search['games_max']:,} each -> {folder}")

    def batch_done(step, alive, state):
        if not quiet:
            click.echo(f"  batch {step + 1}: {state.games(alive[0]):,} games each, {len(alive)} raced, "
                       f"{len(state.alive)} left")

    where = _executor(scheduler)
    try:
        result = tune.run(plan, folder, where, batch_done)
    except OSError as e:
        _fail(str(e))
    finally:
        where.close()
    for line in tune_report.lines(result):
        click.echo(line)
    click.echo(f"wrote {Path(folder) / tune_report.REPORT}")


@main.command("cache")
@click.option("--clear", is_flag=True, help="Empty it: compiled code is built again on next use.")
def cache_command(clear):
    """Where numba's compiled code is cached, and its size."""
    current = Path(os.environ["NUMBA_CACHE_DIR"])
    # simcore keeps one folder per source version under its root; a folder the user chose stands alone
    root = current.parent if current.name.startswith("numba-") else current
    files = [f for f in root.rglob("*") if f.is_file()]
    size = sum(f.stat().st_size for f in files)
    if clear:
        for entry in root.iterdir():
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        click.echo(f"cleared {root} ({len(files):,} files, {size / 1e6:.1f} MB)")
        return
    click.echo(f"numba cache: {root}")
    click.echo(f"  {len(files):,} files, {size / 1e6:.1f} MB; this version's folder: {current.name}")


@main.command("bench")
@click.option("--game", "game_names", multiple=True, help="Game to measure (default: all).")
@click.option("--games", type=int, default=None, help="Games per jitted measurement.")
@click.option("--repeats", type=int, default=5, show_default=True, help="Repeats; the median counts.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Also write the figures as JSON.")
@click.option("--markdown", is_flag=True, help="Also print the figures as a Markdown table (as in the README).")
def bench_command(game_names, games, repeats, json_path, markdown):
    """Games per second: jitted on 1 thread and all cores, and the pure-Python reference."""
    from simcore import bench

    for name in game_names:
        if name not in registry.names():
            _fail(f"unknown game {name!r}; allowed: {', '.join(registry.names())}")
    if repeats < 1:
        _fail(f"--repeats {repeats} is not allowed; allowed: 1 or more")
    figures = bench.measure(list(game_names) or None, games=games, repeats=repeats)
    click.echo(bench.render(figures))
    if markdown:
        click.echo("\n" + bench.render_markdown(figures))
    if json_path:
        bench.write_json(figures, json_path)
        click.echo(f"wrote {json_path}")


if __name__ == "__main__":
    main()
