"""The ``simcore`` command line."""

import sys

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
        click.echo(f"  players: {counts}    policies: {', '.join(info.policies)}    rulebook: {info.rulebook}")
        width = max(len(p.name) for p in info.params)
        for p in info.params:
            default = cfg.toml_value(p.default)
            click.echo(f"  {p.name:<{width}}  {default:>6}  {p.help}")
        click.echo()


@main.command("formations")
def formations_command():
    """Draw every shipped Zwai formation with its name and cell count."""
    from simcore.games import zwai

    try:
        shipped = {name: (description, zwai.parse_formation(art, name))
                   for name, (description, art) in zwai.shipped_formations().items()}
    except (OSError, ValueError, KeyError) as e:
        _fail(f"cannot read the formations of {zwai.FORMATIONS_FILE}: {e}")
    for name, (description, cells) in shipped.items():
        click.echo(f"{name}: {len(cells)} cells. {description}")
        for line in zwai.draw_formation(cells).splitlines():
            click.echo("    " + line)
        click.echo()


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
@click.option("--policy", "policies", multiple=True, metavar="[SEAT=]NAME",
              help="Policy for every seat (NAME) or one seat (SEAT=NAME).")
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


@main.command("bench")
@click.option("--game", "game_names", multiple=True, help="Game to measure (default: all).")
@click.option("--games", type=int, default=None, help="Games per jitted measurement.")
@click.option("--repeats", type=int, default=5, show_default=True, help="Repeats; the median counts.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Also write the figures as JSON.")
@click.option("--markdown", is_flag=True, help="Also print the figures as a Markdown table (as in the README).")
def bench_command(game_names, games, repeats, json_path, markdown):
    """Games per second: jitted on 1 thread and all cores, and the pure-Python reference."""
    from benchmarks import throughput

    for name in game_names:
        if name not in registry.names():
            _fail(f"unknown game {name!r}; allowed: {', '.join(registry.names())}")
    if repeats < 1:
        _fail(f"--repeats {repeats} is not allowed; allowed: 1 or more")
    figures = throughput.measure(list(game_names) or None, games=games, repeats=repeats)
    click.echo(throughput.render(figures))
    if markdown:
        click.echo("\n" + throughput.render_markdown(figures))
    if json_path:
        throughput.write_json(figures, json_path)
        click.echo(f"wrote {json_path}")


if __name__ == "__main__":
    main()
