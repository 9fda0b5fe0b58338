"""Sweeps: many rule variants of one game, one Parquet file each, resumable.

A sweep file is a config file (``game``, ``games``, ``seed``, ``[policies]``,
``[params]`` = the base) plus either ``[axes]`` (lists of values whose
Cartesian product is taken; the axis ``policy`` gives every seat a policy
spec) or ``[[variants]]`` (explicit tables of overrides, each with an optional
``name`` and ``[variants.policies]``).
Every variant runs with the sweep's seed, so game i of every variant shares
its deals and dice wherever the rules allow (common random numbers).

The output folder holds ``<variant>.parquet`` per variant and
``manifest.json``, rewritten after every finished variant: the variants,
their overrides, resolved configs, file names, row counts and SHA-256
checksums. A re-run skips every variant whose file is complete and matches
the manifest and plays the rest; an interrupted sweep loses at most the
variant in flight (its file is written under a temporary name).
"""

import hashlib
import itertools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

from simcore import __version__, runs
from simcore import config as cfg

SWEEP_KEYS = cfg.TOP_KEYS + ("axes", "variants")
POLICY_AXIS = "policy"       # an [axes] entry of policy specs for every seat, not a parameter
MANIFEST = "manifest.json"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass
class Variant:
    name: str
    overrides: dict          # parameter name -> value, on top of the base
    config: cfg.RunConfig

    @property
    def file(self):
        return f"{self.name}.parquet"


@dataclass
class Sweep:
    path: Path
    game: str
    variants: list

    @property
    def games(self):
        return sum(v.config.games for v in self.variants)


def _label(key, value):
    """A readable piece of a variant name: ``ring``, ``players3``, ``pro``, ``no-pro``."""
    key = key.rpartition(".")[2]
    if key == POLICY_AXIS and isinstance(value, str):    # mc:rollouts=8 -> mc-rollouts8
        value = value.replace(":", "-").replace("=", "").replace(",", "-")
    if isinstance(value, bool):
        return key if value else f"no-{key}"
    if isinstance(value, str):
        if _NAME.match(value):
            return value
        return f"{key}-{hashlib.sha256(value.encode()).hexdigest()[:6]}"
    text = str(value).replace(" ", "").replace("[", "").replace("]", "").replace(",", "-")
    return f"{key}{text}"


def derived_name(overrides):
    return "_".join(_label(k, v) for k, v in overrides.items()) or "base"


def _axes(table):
    axes = cfg.flatten(table)
    for key, values in axes.items():
        if not isinstance(values, list):
            raise cfg.ConfigError(f"axis {key} = {values!r} is not a list; allowed: a list of values")
        if not values:
            raise cfg.ConfigError(f"axis {key} is empty; allowed: a list of at least one value")
    keys = list(axes)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*axes.values())]


def _explicit(entries):
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries) or not entries:
        raise cfg.ConfigError("[[variants]] must be a non-empty list of tables")
    overrides, names, policies = [], [], []
    for entry in entries:
        entry = dict(entry)
        names.append(entry.pop("name", None))
        policies.append(cfg.policy_items(entry.pop("policies", {})))
        overrides.append(cfg.flatten(entry))
    return overrides, (names, policies)


def load(path, games=None, seed=None):
    """Read and validate a sweep file: every variant is resolved before anything is played."""
    path = Path(path)
    table = cfg.load_file(path)
    for key in table:
        if key not in SWEEP_KEYS:
            raise cfg.unknown("sweep key", key, SWEEP_KEYS)
    if ("axes" in table) == ("variants" in table):
        raise cfg.ConfigError(f"sweep {path} needs either [axes] or [[variants]], not "
                              f"{'both' if 'axes' in table else 'neither'}")
    if "axes" in table:
        if not isinstance(table["axes"], dict):
            raise cfg.ConfigError("[axes] must be a table of parameter = [values]")
        overrides = _axes(table["axes"])
        names, policies = [None] * len(overrides), [[] for _ in overrides]
    else:
        overrides, (names, policies) = _explicit(table["variants"])
    base = {k: v for k, v in table.items() if k in cfg.TOP_KEYS}
    variants, seen = [], set()
    for over, name, pols in zip(overrides, names, policies, strict=True):
        name = name if name is not None else derived_name(over)
        if not isinstance(name, str) or not _NAME.match(name):
            raise cfg.ConfigError(f"variant name {name!r} is not allowed; allowed: letters, digits, '.', '_', '-'")
        if name in seen:
            raise cfg.ConfigError(f"variant name {name!r} appears twice; allowed: unique names")
        seen.add(name)
        sets = [(key, value) for key, value in over.items() if key != POLICY_AXIS]
        if POLICY_AXIS in over:
            pols = pols + [("all", over[POLICY_AXIS])]
        try:
            run = cfg.resolve(table.get("game"), base, sets=sets, policies=pols,
                              games=games, seed=seed, variant=name)
        except cfg.ConfigError as e:
            raise cfg.ConfigError(f"variant {name}: {e}") from None
        variants.append(Variant(name, over, run))
    return Sweep(path, variants[0].config.game, variants)


def sha256(path):
    """The SHA-256 of a file, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(folder):
    """The manifest of a sweep folder, or an empty one (a damaged manifest is as good as none)."""
    try:
        with open(Path(folder) / MANIFEST) as f:
            manifest = json.load(f)
        if isinstance(manifest, dict) and isinstance(manifest.get("variants"), dict):
            return manifest
    except (OSError, ValueError):
        pass
    return {"variants": {}}


def write_atomic(path, write):
    """``write(temporary path)``, then rename it to ``path``: a crash leaves no half-written file there."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    write(tmp)
    os.replace(tmp, path)


def write_manifest(folder, manifest):
    write_atomic(Path(folder) / MANIFEST, lambda path: path.write_text(json.dumps(manifest, indent=2) + "\n"))


def complete(folder, variant, manifest):
    """Is the variant's file in ``folder`` complete and exactly what the manifest recorded for this config?"""
    entry = manifest["variants"].get(variant.name)
    path = Path(folder) / variant.file
    if not entry or entry.get("config") != variant.config.to_toml() or not path.is_file():
        return False
    try:
        return (sha256(path) == entry.get("sha256")
                and pq.ParquetFile(path).metadata.num_rows == entry.get("rows") == variant.config.games)
    except (OSError, ValueError):
        return False


def run(sweep, folder, on_block=None, on_variant=None, executor=None):
    """Play every variant that is not complete in ``folder``; return ``{name: "played"|"replayed"|"skipped"}``."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OSError(f"cannot write sweep to {folder}: it is a file; give a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OSError(f"cannot write sweep to {folder}: {e.strerror or e}") from None
    manifest = read_manifest(folder)
    entries = manifest["variants"]
    manifest = {"simcore_version": __version__, "sweep": str(sweep.path), "game": sweep.game,
                "variants": {v.name: entries[v.name] for v in sweep.variants if v.name in entries}}
    status = {}
    todo = [v for v in sweep.variants if not complete(folder, v, manifest)]
    for v in sweep.variants:
        if v not in todo:
            status[v.name] = "skipped"
            if on_variant:
                on_variant(v, "skipped", None)
            continue
        following = todo.index(v) + 1
        if executor is not None and following < len(todo):
            executor.prepare(todo[following].config)   # a cluster starts on the next variant meanwhile
        status[v.name] = "replayed" if (v.name in manifest["variants"] or (folder / v.file).exists()) \
            else "played"
        manifest["variants"].pop(v.name, None)
        tally = runs.run_to_file(v.config, folder / v.file, on_block, executor)
        manifest["variants"][v.name] = {
            "file": v.file, "overrides": v.overrides, "policies": v.config.policies,
            "games": v.config.games, "seed": v.config.seed, "rows": tally.games,
            "sha256": sha256(folder / v.file), "config": v.config.to_toml(),
        }
        write_manifest(folder, manifest)
        if on_variant:
            on_variant(v, status[v.name], tally)
    write_manifest(folder, manifest)
    return status
