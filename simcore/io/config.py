"""Run configurations: TOML files and command-line overrides -> validated runs.

A config file::

    game = "zwergen"
    games = 100000          # optional
    seed = 1                # optional
    variant = "default"     # optional name written to every result row

    [policies]              # optional: "all" (or "*") for every seat, a seat number for one seat
    all = "greedy"
    1 = "mc:rollouts=16"    # a policy spec: NAME[:KEY=VALUE,...] (simcore.agents)

    [params]                # the game's parameters; grouped ones as nested tables
    players = 4
    [params.deck]
    add = 4

Everything is checked before any game is played; a problem raises
:class:`ConfigError` with a one-line message naming the key, the value and
what is allowed.
"""

import difflib
import re
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simcore import agents
from simcore import games as registry
from simcore.params import ConfigError, check_param, plain, short

MAX_GAMES = 10**12
MAX_SEED = 2**63 - 1
DEFAULT_SEED = 1         # the seed of every command that plays games, unless a config or --seed says otherwise
TOP_KEYS = ("game", "games", "seed", "variant", "policies", "params")
ALL_SEATS = ("all", "*")
MAX_FILE_BYTES = 2**20   # a config, sweep or tune file is a few lines: anything near this size is a mistake
FILE_ALLOWED = "allowed: a TOML file up to 1 MB"


@dataclass
class RunConfig:
    """A resolved, validated run: one game, one parameter set, one policy per seat."""

    game: str
    params: dict                     # every parameter, dotted names, resolved
    policies: list                   # one canonical policy spec per seat
    games: int = 10_000
    seed: int = 0
    variant: str = "default"
    module: object = field(default=None, repr=False, compare=False)

    @property
    def players(self):
        return len(self.policies)

    def params_array(self):
        return self.module.params_array(self.params)

    def policies_array(self):
        """What the game's ``run_batch`` takes: the agents table, one row per seat (kind, parameters)."""
        table = np.zeros((self.module.MAX_SEATS, agents.WIDTH), np.float64)
        for seat, spec in enumerate(self.policies):
            table[seat] = agents.parse(spec, self.module.GAME, self.module.ACTION_KINDS, self.params).row()
        return table

    def to_toml(self):
        """The resolved config as TOML text (it loads back to the same run)."""
        lines = [f"game = {toml_value(self.game)}", f"games = {self.games}", f"seed = {self.seed}",
                 f"variant = {toml_value(self.variant)}", "", "[policies]"]
        lines += [f'{seat} = {toml_value(name)}' for seat, name in enumerate(self.policies)]
        groups = {}
        for name, value in self.params.items():
            group, _, key = name.rpartition(".")
            groups.setdefault(group, []).append((key, value))
        for group, items in groups.items():
            lines += ["", f"[params.{group}]" if group else "[params]"]
            lines += [f"{key} = {toml_value(value)}" for key, value in items]
        return "\n".join(lines) + "\n"


def toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        if "\n" in value:
            return '"""\n' + value.replace("\\", "\\\\") + '"""'
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def api_params(params):
    """The ``(name, value)`` pairs of the Python API's ``params`` (None: none), or ConfigError in one line."""
    if params is None:
        return []
    if not isinstance(params, dict):
        raise ConfigError(f"params = {short(params)} is not allowed; allowed: a dict of parameter names to values")
    return list(flatten(params).items())


def api_policies(policies):
    """The ``(seat, spec)`` pairs of the Python API's ``policies`` (None: none), or ConfigError in one line."""
    if policies is None:
        return []
    if not isinstance(policies, dict):
        raise ConfigError(f"policies = {short(policies)} is not allowed; allowed: a dict of \"*\" or seat numbers "
                          "to policy specs")
    return list(policies.items())


def flatten(table, prefix=""):
    flat = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def unknown(what, name, known):
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ConfigError(f"unknown {what} {name!r}{hint}; allowed: {', '.join(known)}")


def parse_value(text):
    """A ``--set`` value: a TOML value (42, true, "x", [1, 2]) or else a bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_assignment(text, option="--set"):
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"{option} {text!r} is not KEY=VALUE")
    return key.strip(), parse_value(value.strip())


def read_text(path, what="config"):
    """The text of a config, sweep or tune file: UTF-8, as TOML requires; one-line errors."""
    path = Path(path)
    try:
        data = _read_small(path, what)
    except OSError as e:
        raise ConfigError(f"cannot read {what} {path}: {e.strerror or e}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{what} {path} is not UTF-8 text (byte 0x{data[e.start]:02x} at position {e.start}); "
                          "allowed: a TOML file in UTF-8") from None


def _read_small(path, what):
    """The bytes of a regular file of at most MAX_FILE_BYTES, reading no more than one byte beyond: a device
    (/dev/zero) or a huge file would be read forever, and a pipe would block until someone writes to it."""
    if not stat.S_ISREG(path.stat().st_mode):
        raise ConfigError(f"{what} {path} is not a regular file; {FILE_ALLOWED}")
    with path.open("rb") as file:
        data = file.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"{what} {path} is larger than 1 MB; {FILE_ALLOWED}")
    return data


def parse_toml(text, path, what="config"):
    """The table of a file's TOML text; one-line errors."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{what} {path} is not valid TOML: {e}") from None


def load_file(path, what="config"):
    """The raw table of a TOML config file."""
    return parse_toml(read_text(path, what), path, what)


def resolve(game=None, table=None, sets=(), policies=(), games=None, seed=None, variant=None):
    """Merge a config table, ``--set`` overrides and options into a :class:`RunConfig`.

    ``sets`` are ``(key, value)`` pairs; ``policies`` are ``(seat or "all", name)``
    pairs applied in order after the table's. Later sources win.
    """
    table = dict(table or {})
    for key in table:
        if key not in TOP_KEYS:
            raise unknown("config key", key, TOP_KEYS)
    file_game = table.get("game")
    if game and file_game and game != file_game:
        raise ConfigError(f"the config is for game {file_game!r}, not {game!r}")
    game = game or file_game
    if not game:
        raise ConfigError("no game given; allowed: " + ", ".join(registry.names()))
    try:
        module = registry.load(game)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    info = module.GAME

    raw = table.get("params", {})
    if not isinstance(raw, dict):
        raise ConfigError("[params] must be a table")
    values = info.defaults()
    for name, value in list(flatten(raw).items()) + list(sets):
        if name not in info.param_index:
            raise unknown(f"parameter of {game}", name, list(info.param_index))
        values[name] = check_param(info.param_index[name], value)
    try:
        module.check(values)
    except ValueError as e:
        raise ConfigError(str(e)) from None

    players = values["players"] if "players" in values else info.player_counts[0]
    seats = _policies(info, players, policy_items(table.get("policies", {})) + list(policies), values)
    return RunConfig(
        game=game,
        params=values,
        policies=seats,
        games=_count("games", table.get("games", 10_000) if games is None else games, 1, MAX_GAMES),
        seed=_count("seed", table.get("seed", DEFAULT_SEED) if seed is None else seed, 0, MAX_SEED),
        variant=_variant(table.get("variant", "default") if variant is None else variant),
        module=module,
    )


def _count(name, value, low, high):
    value = plain(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{name} = {value!r} is not allowed; allowed: an integer from {low} to {high}")
    return value


def _variant(value):
    if not isinstance(value, str) or not value:
        raise ConfigError(f"variant = {value!r} is not allowed; allowed: a non-empty string")
    return value


def policy_items(table):
    if not isinstance(table, dict):
        raise ConfigError("[policies] must be a table of seat = policy name")
    return list(table.items())


def parse_policy(text):
    """``--policy SPEC`` (every seat) or ``--policy SEAT=SPEC``. A spec may hold ``=`` itself after its name
    (``mc:rollouts=8``), so a ``=`` before any ``:`` marks a seat (``1=mc:rollouts=8``, ``-1=greedy``)."""
    seat, sep, spec = text.partition("=")
    if not sep or ":" in seat:
        return "all", text.strip()
    return seat.strip(), spec.strip()


def policy_spec(info, text, params=None):
    """The canonical spec string of a policy the game offers in the variant of ``params`` (None: the game's
    defaults; plain ``ismcts`` is that variant's recommended search), or ConfigError in one line."""
    name = text.partition(":")[0].strip() if isinstance(text, str) else text
    if name not in info.policies:
        raise unknown(f"policy of {info.name}", str(name), info.policies)
    try:
        return str(agents.parse(text, info, registry.load(info.name).ACTION_KINDS, params))
    except ValueError as e:
        raise ConfigError(str(e)) from None


def _policies(info, players, items, params):
    seats = [info.policies[0]] * players
    for seat, text in items:
        name = policy_spec(info, text, params)
        if str(seat) in ALL_SEATS:
            seats = [name] * players
            continue
        index = int(seat) if re.fullmatch(r"-?\d+", str(seat)) else None
        if index is None:
            raise ConfigError(f"policy seat {seat!r} is not a seat; allowed: all or 0 to {players - 1}")
        if not 0 <= index < players:
            raise ConfigError(f"policy seat {index} is not a seat of a {players}-player game; "
                              f"allowed: all or 0 to {players - 1}")
        seats[index] = name
    return seats


def from_file(path, **overrides):
    return resolve(table=load_file(path), **overrides)
