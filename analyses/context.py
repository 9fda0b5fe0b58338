"""What a result is of, in one line: the game and its rules version, the parameters that differ from the game's
defaults, each seat's policy, the games, the seed and the simcore that played them. The run summary, the report
and its pages print it, so that a table never stands without the rules and players behind it."""

import json
from functools import cache

from simcore import __version__
from simcore.io import config as cfg


@cache
def _defaults(game):
    """The game's default parameters; none when the game is not installed here (or its package fails to load):
    its results are still read, their parameters all shown."""
    try:
        return cfg.resolve(game).params
    except cfg.ConfigError:
        return {}


def changed(game, params):
    """The parameters of ``params`` whose value differs from ``game``'s default, in their order (all of them for
    a game not installed here)."""
    defaults = _defaults(game)
    return {key: value for key, value in params.items() if defaults.get(key, object()) != value}


def _shown(value):
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str) and "\n" in value:
        return "(a map of its own)"
    return str(value).replace(" ", "")


def rules_text(game, params):
    """``players=3, formation=ring``, or ``the default rules``."""
    changes = changed(game, params)
    return ", ".join(f"{key}={_shown(value)}" for key, value in changes.items()) or "the default rules"


def policies_text(policies):
    """``every seat greedy``, or ``seat 0 ismcts:iterations=100, seat 1 greedy``."""
    if len(set(policies)) == 1:
        return f"every seat {policies[0]}"
    return ", ".join(f"seat {seat} {spec}" for seat, spec in enumerate(policies))


def line(game, rules_version, params, policies, games, seed, version):
    return (f"{game} (rules version {rules_version}), {rules_text(game, params)}; {policies_text(policies)}; "
            f"{games:,} games, seed {seed}; simcore {version}")


def _parts(result):
    """A result file's context as (its rules, everything else), from its metadata."""
    meta = result.meta
    rules = rules_text(result.game, json.loads(meta.get("params", "{}")))
    rest = (f"{result.game} (rules version {meta.get('rules_version', '(not recorded)')}); "
            f"{policies_text(result.policies or ['(not recorded)'])}; {result.n_games:,} games, seed {result.seed}; "
            f"simcore {meta.get('version', '(not recorded)')}")
    return rules, rest


def shared(results):
    """What every result has in common but its rules (game, rules version, policies, games, seed, simcore), or
    None when they differ in more than their rules: then each says it all (:func:`of_result`)."""
    rests = {_parts(r)[1] for r in results}
    return rests.pop() if len(rests) == 1 else None


def rules_of_result(result):
    return _parts(result)[0]


def of_run(run):
    """The line of a resolved config (``simcore.io.config.RunConfig``) about to be played."""
    return line(run.game, run.module.GAME.rules_version, run.params, run.policies, run.games, run.seed,
                __version__)


def of_result(result):
    """The line of a result file (``analyses.data.Result``), from what its metadata recorded."""
    meta = result.meta
    params = json.loads(meta.get("params", "{}"))
    policies = result.policies or ["(not recorded)"]
    return line(result.game, meta.get("rules_version", "(not recorded)"), params, policies, result.n_games,
                result.seed, meta.get("version", "(not recorded)"))
