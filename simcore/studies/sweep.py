"""Sweeps: many rule variants of one game, one Parquet file each, resumable.

A sweep file is a config file (``game``, ``games``, ``seed``, ``[policies]``,
``[params]`` = the base) plus either ``[axes]`` (lists of values whose
Cartesian product is taken; the axis ``policy`` gives every seat a policy
spec) or ``[[variants]]`` (explicit tables of overrides, each with an optional
``name`` and ``[variants.policies]``).
Every variant runs with the sweep's seed, so game i of every variant shares
its deals and dice wherever the rules allow (common random numbers).

The output folder holds ``<variant>.parquet`` per variant, their traces in
``_traces/`` (``--trace``) and ``_manifest.json``: the variants planned and
finished, their overrides, resolved configs, file names, row counts and
SHA-256 checksums. Each finished variant is appended to ``_manifest.journal``
at once, and the manifest is rewritten from both every few seconds and at the
end (rewriting it after every variant slowed a 17,640-variant sweep sevenfold).
A re-run skips every variant whose file is complete and matches the manifest
and plays the rest; an interrupted sweep loses at most the variant in flight
(its file is written under a temporary name). The names that begin with ``_``
keep ``pandas.read_parquet(folder)`` and ``folder/*.parquet`` to the results.

Played until decided (:func:`run_until_decided`, ``--until-decided``), every variant plays in looks of doubling
games and stops once its verdict is shown (analyses/sequential.py says how, and how the error is held); its file
then holds the rows a plain sweep of that many games writes, and the manifest each look's findings.
"""

import dataclasses
import hashlib
import itertools
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from simcore.io import config as cfg
from simcore.io import manifest as manifests
from simcore.io import results, writing
from simcore.io.manifest import MANIFEST, journal, read_manifest, write_manifest
from simcore.io.manifest import read_file as _manifest_file
from simcore.studies import runs

SWEEP_KEYS = cfg.TOP_KEYS + ("axes", "variants")
POLICY_AXIS = "policy"       # an [axes] entry of policy specs for every seat, not a parameter
COMPACT_S = 5.0           # the manifest is rewritten from its journal at most this often while a sweep runs,
COMPACT_SHARE = 0.05      # ... and then only when its last writing took at most this share of the time since
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._=,-]*$")
_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._=-]*$")      # a string shown as it is in a name
_NUMBERS = re.compile(r"^[A-Za-z0-9._=-]*$")               # a number or list shown as it is (-1.5, 4-6-6-4-3)
_OLD_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")    # ... in an old name (old_name)


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


def derived_name(overrides):
    """A variant named by its changes: ``hand_size_2=13,formation=ring``, ``players=3``, ``pro=false``,
    ``fish_counts=4-6-6-4-3``, ``policy=mc-rollouts=16``; ``base`` without any. A value that cannot be shown in a
    name (ASCII art, a list of strings) is shown by a hash of it (``1e+300`` as ``1e300``), so that every value of
    a parameter gives a valid name; a name that was valid before stays as it was (folders resume by name). A name
    longer than :data:`MAX_NAME` (many axes) keeps its beginning and ends in a hash of the whole, so that its file,
    temporary file and lock file fit the file system."""
    name = ",".join(f"{key.rpartition('.')[2]}={_shown(key, value)}" for key, value in overrides.items()) or "base"
    return name if len(name) <= MAX_NAME else f"{name[:MAX_NAME - 7]}-{_hash(name)}"


MAX_NAME = 160     # file systems allow 255 bytes a name: the lock and temporary names add up to about 40


def _shown(key, value):
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        if key == POLICY_AXIS:          # mc:rollouts=16,cutoff=12 -> mc-rollouts=16-cutoff=12
            value = value.replace(":", "-").replace(",", "-")
        return value if _VALUE.match(value) else _hash(value)
    text = str(value).replace(" ", "").replace("[", "").replace("]", "").replace(",", "-")
    text = text.replace("e+", "e")                  # 1e+300 -> 1e300: the same number, in a name's characters
    return text if _NUMBERS.match(text) else _hash(repr(value))


def _hash(text):
    return hashlib.sha256(text.encode()).hexdigest()[:6]


def old_name(overrides):
    """The name simcore gave a variant before names said ``key=value`` (``hand_size_46`` for hand_size_4 = 6):
    folders swept then still resume (:func:`with_old_names`)."""
    def label(key, value):
        key = key.rpartition(".")[2]
        if key == POLICY_AXIS and isinstance(value, str):
            value = value.replace(":", "-").replace("=", "").replace(",", "-")
        if isinstance(value, bool):
            return key if value else f"no-{key}"
        if isinstance(value, str):
            return value if _OLD_VALUE.match(value) else f"{key}-{hashlib.sha256(value.encode()).hexdigest()[:6]}"
        return key + _shown(key, value)
    return "_".join(label(k, v) for k, v in overrides.items()) or "base"


def with_old_names(sweep, folder):
    """``sweep`` with each variant that ``folder`` finished under its old name (:func:`old_name`) keeping that
    name, its file and its rows, so that a sweep begun before the names changed resumes instead of playing
    them again."""
    manifest = read_manifest(folder)
    variants = []
    for v in sweep.variants:
        old = old_name(v.overrides)
        if v.name == derived_name(v.overrides) and v.name not in manifest["variants"] and \
                old in manifest["variants"]:
            aged = Variant(old, v.overrides, dataclasses.replace(v.config, variant=old))
            v = aged if complete(folder, aged, manifest) else v
        variants.append(v)
    return dataclasses.replace(sweep, variants=variants)


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
    table = cfg.load_file(path, "sweep file")
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
        if name is None:
            name = derived_name(over)     # valid unless a key is no parameter, which resolve names below
        elif not isinstance(name, str) or not _NAME.match(name) or len(name) > MAX_NAME:
            raise cfg.ConfigError(f"variant name {name!r} is not allowed; allowed: up to {MAX_NAME} letters, digits, "
                                  "'.', '_', '-', '=', ',', beginning with a letter or digit (a variant's name may "
                                  "not begin with `_` or `.`: the names of simcore's own files in the folder do)")
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


LADDER_KEYS = {"strong", "weak", "seat"}     # a ladder's variants: one per rung and seat


def manifest_kind(manifest):
    """What wrote a manifest: "sweep", "ladder" or "tune" (a manifest written before it said so: by its keys)."""
    if "kind" in manifest:
        return manifest["kind"]
    if "tune" in manifest:
        return "tune"
    entries = manifest.get("variants")
    if isinstance(entries, dict) and entries and all(
            isinstance(e, dict) and set(e.get("overrides", ())) == LADDER_KEYS for e in entries.values()):
        return "ladder"
    return "sweep"


def check_folder(folder, kind, game):
    """Raise OSError in one line unless ``folder`` can take a run of ``kind`` ("sweep", "ladder" or "tune")
    of ``game``: not a file, and not holding another game's or another kind's run (its manifest says whose
    it is), which this run would orphan."""
    folder = Path(folder)
    try:
        if folder.exists() and not folder.is_dir():
            raise OSError(f"cannot write the {kind} to {folder}: it is a file; give a folder")
        writing.check_folder_writable(folder)
    except OSError as e:
        raise OSError(str(e) if str(e).startswith("cannot ") else
                      f"cannot write the {kind} to {folder}: {writing.reason(e)}") from None
    manifest = _manifest_file(folder)
    if isinstance(manifest, dict):
        held, held_game = manifest_kind(manifest), manifest.get("game")
        if held != kind or (held_game is not None and held_game != game):
            whose = f"a {held} of {held_game}" if held_game else f"a {held} run"
            raise OSError(f"cannot write the {kind} of {game} to {folder}: it holds {whose} ({MANIFEST}); "
                          f"allowed: a new folder, or a folder of a {kind} of {game}")


def check_foreign(folder, kind, force=False):
    """Raise OSError in one line when ``folder`` has no manifest yet holds a file simcore did not write (a user's
    folder, whose ``default.parquet`` a run would replace), unless ``force``. simcore's own leftovers (a lock, a
    killed writer's temporary file, the traces' folder) are not the user's."""
    folder = Path(folder)
    if force or not folder.is_dir() or manifests.exists(folder):
        return
    try:
        foreign = sorted(name for name in os.listdir(folder) if not writing.ours(name))
    except OSError as e:
        raise OSError(f"cannot write the {kind} to {folder}: {writing.reason(e)}") from None
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise OSError(f"cannot write the {kind} to {folder}: it holds {foreign[0]}{more}, which simcore did not write "
                      f"(it has no {MANIFEST}); allowed: --force to write there (a file of a result's name is "
                      "replaced), or a new or empty folder")


def open_folder(folder, kind, game):
    """The folder for a run of ``kind`` of ``game``, checked (:func:`check_folder`) and created."""
    check_folder(folder, kind, game)
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OSError(f"cannot write the {kind} to {folder}: {writing.reason(e)}") from None
    return folder


def plan_status(sweep, folder, trace=False):
    """What a run of ``sweep`` in ``folder`` does with each variant: ``{name: (status, why)}``, status
    "skipped" (complete), "played" (new) or "played again" (its finished file is replaced), ``why`` saying
    for the last why (its games or its config changed, the file is missing or damaged, or ``trace`` asks for a
    trace it was played without)."""
    manifest = read_manifest(folder)
    out = {}
    for v in sweep.variants:
        entry = manifest["variants"].get(v.name)
        if complete(folder, v, manifest):
            mismatch = results.trace_mismatch(Path(folder) / v.file, entry.get("trace_sha256")) if trace else None
            out[v.name] = ("skipped", "") if mismatch is None else ("played again", f"--trace: {mismatch}")
        elif entry is None and not (Path(folder) / v.file).exists():
            out[v.name] = ("played", "")
        else:
            out[v.name] = ("played again", _why_again(folder, v, entry))
    return out


# why a variant is played again (:func:`_why_again`); all but a damaged file replace results of other settings
NOT_LISTED, DAMAGED = "a file of that name is not in the manifest", "its file is missing or damaged"
GAMES_CHANGED, CONFIG_CHANGED = "--games changed", "its config changed"
REPLACING = (NOT_LISTED, GAMES_CHANGED, CONFIG_CHANGED)


def replacing(planned):
    """``{name: why}`` of the finished results a run would replace by games of other settings (not a missing or
    damaged file, nor one played again for its trace): a ladder, tune or contest asks for --force first."""
    return {name: why for name, (status, why) in planned.items()
            if status == "played again" and why.startswith(REPLACING)}


def check_replacing(sweep, folder, kind, force):
    """Raise OSError in one line when a run of ``sweep`` in ``folder`` would replace finished results of other
    settings and ``force`` is not given."""
    if force or not Path(folder).is_dir():
        return
    found = replacing(plan_status(sweep, folder))
    if found:
        name, why = next(iter(found.items()))
        more = f" and {len(found) - 1} more" if len(found) > 1 else ""
        raise OSError(f"{folder} holds the finished results of a {kind} with other settings ({name}: {why}{more}); "
                      "allowed: --force to replace them, or a new folder")


def _why_again(folder, variant, entry):
    if entry is None:
        return NOT_LISTED
    old = entry.get("config")
    if old == variant.config.to_toml():
        return DAMAGED
    if old == dataclasses.replace(variant.config, games=entry.get("games")).to_toml():
        return (f"{GAMES_CHANGED}: its finished file has {entry.get('games'):,} games, this run "
                f"{variant.config.games:,}")
    return CONFIG_CHANGED


def complete(folder, variant, manifest):
    """Is the variant's file in ``folder`` complete and exactly what the manifest recorded for this config?"""
    entry = manifest["variants"].get(variant.name)
    path = Path(folder) / variant.file
    if not entry or entry.get("config") != variant.config.to_toml() or not path.is_file():
        return False
    try:
        return (writing.sha256(path) == entry.get("sha256")
                and pq.ParquetFile(writing.local(path)).metadata.num_rows == entry.get("rows") == variant.config.games)
    except (OSError, ValueError):
        return False


def run(sweep, folder, on_block=None, on_variant=None, executor=None, kind="sweep", planned=None, trace=False,
        record=None):
    """Play every variant that is not complete in ``folder``; return ``{name: "played"|"played again"|
    "skipped"}``. The folder is locked while it runs; manifest entries of variants that are not in ``sweep``
    are kept (their files are finished results). ``planned``: :func:`plan_status` if the caller has it.
    ``trace``: every variant played writes its trace beside its file, and a complete variant without one is
    played again (the same rows, now with the trace). ``record``: more keys for the manifest (what a study's
    analysis needs that its variants do not say)."""
    folder = open_folder(folder, kind, sweep.game)
    with writing.Lock(folder):
        writing.remove_stale(folder)
        sweep = with_old_names(sweep, folder)
        planned = planned or plan_status(sweep, folder, trace)
        return _run(sweep, folder, on_block, on_variant, executor, kind, planned, trace, record or {})


def remove_stale_traces(sweep, folder, planned):
    """Remove the trace beside each complete variant that is not the trace of its games (left by a kill between
    two renames, a full disk, or copied there): analyses would read it as this variant's."""
    for v in sweep.variants:
        path = Path(folder) / v.file
        if planned[v.name][0] == "skipped" and results.trace_path(path).exists() and results.trace_mismatch(path):
            writing.remove_trace(path)


def _run(sweep, folder, on_block, on_variant, executor, kind, planned, trace, record):
    manifest = read_manifest(folder)
    manifest = manifests.head(kind, sweep.game, sweep=str(sweep.path), planned=[v.name for v in sweep.variants],
                              planned_games={v.name: v.config.games for v in sweep.variants}, **record,
                              variants=manifest["variants"])
    write_manifest(folder, manifest)      # at once: a run stopped before its end is known as unfinished
    remove_stale_traces(sweep, folder, planned)
    compacting = _Compacting()
    status = {}
    todo = [v for v in sweep.variants if planned[v.name][0] != "skipped"]
    following = {v.name: k + 1 for k, v in enumerate(todo)}       # by name: comparing variants is slow
    for v in sweep.variants:
        status[v.name] = planned[v.name][0]
        if v.name not in following:
            if on_variant:
                on_variant(v, "skipped", None)
            continue
        after = following[v.name]
        if executor is not None and after < len(todo):
            executor.prepare(todo[after].config)   # a cluster starts on the next variant meanwhile
        manifest["variants"].pop(v.name, None)
        tally = runs.run_to_file(v.config, folder / v.file, on_block, None if trace else executor, trace)
        manifest["variants"][v.name] = _entry(v, v.config, tally.games, folder / v.file, trace)
        journal(folder, v.name, manifest["variants"][v.name])
        compacting.step(folder, manifest)
        if on_variant:
            on_variant(v, status[v.name], tally)
    write_manifest(folder, manifest)
    return status


def _entry(variant, config, rows, path, trace):
    """A finished variant's manifest entry: what it was played with (``config``), its file's rows and digest."""
    entry = {"file": variant.file, "overrides": variant.overrides, "policies": config.policies,
             "games": config.games, "seed": config.seed, "rows": rows, "sha256": writing.sha256(path),
             "config": config.to_toml(), "trace": trace}
    if trace:       # the trace's digest too: a trace edited afterwards is known on reading (analyses.data)
        entry["trace_sha256"] = writing.sha256(results.trace_path(path))
    return entry


# --- until decided (simcore sweep --until-decided; the statistics: analyses/sequential.py) ---------------------------
#
# Every variant is played in looks (analyses.sequential.plan: doubling games up to the cap, --games), look by look
# across the variants, and stops at the look where its verdict is shown. A look grows the variant's file from the
# games it holds to the look's (runs.extend_file: the rows a fixed run of that many games writes, the earlier
# games copied, never played again) and records the look in the manifest's entry at once (its journal), so an
# interrupted run goes on from each variant's last finished look. The manifest's kind and its "until_decided" plan
# keep a plain sweep and one until decided, or two of different plans, from sharing a folder.

UNTIL_DECIDED = "sweep until decided"
NO_LOOKS = "its manifest entry records no looks"      # why a variant starts again from its first look (held_looks)


def until_decided_plan(sweep, margin, first_look):
    """The sequential plan of ``sweep``: looks from ``first_look`` to its games per variant (the cap), ``margin``,
    the error shared by its variants (analyses.sequential.PlanError in one line for a value not allowed)."""
    from analyses import sequential

    return sequential.plan(first_look, sweep.variants[0].config.games, margin, len(sweep.variants))


def check_until_decided(folder, plan, trace):
    """Raise OSError in one line when ``folder`` holds a sweep until decided of another plan or --trace: its looks
    and the alpha they spent were planned for those."""
    from analyses.sequential import SequentialPlan

    held = _manifest_file(folder) if Path(folder).is_dir() else None
    recorded = held.get("until_decided") if isinstance(held, dict) else None
    if not isinstance(recorded, dict):
        return
    try:
        before = SequentialPlan.from_dict(recorded)
    except (KeyError, TypeError, ValueError):
        before = None
    if before == plan and recorded.get("trace") == trace:
        return
    said = "other options" if before is None else before.describe() + (" --trace" if recorded.get("trace") else "")
    raise OSError(f"cannot go on with the sweep until decided in {folder}: it was played with {said}, not "
                  f"{plan.describe()}{' --trace' if trace else ''}; allowed: the same options, or a new folder")


def _plan_record(plan, trace):
    return {**plan.to_dict(), "trace": trace}


def held_looks(sweep, folder, trace):
    """What each variant of ``sweep`` holds in ``folder`` from earlier looks: ``{name: (games, record, why)}``,
    the games of its complete file and its sequential record (0 and None when there is none), and ``why`` a
    variant with an entry starts again from its first look (its config changed, or its file or trace is missing
    or damaged), else ""."""
    manifest = read_manifest(folder) if Path(folder).is_dir() else {"variants": {}}
    out = {}
    for v in sweep.variants:
        entry = manifest["variants"].get(v.name)
        if not isinstance(entry, dict) or not isinstance(entry.get("sequential"), dict):
            out[v.name] = (0, None, "" if entry is None else NO_LOOKS)
            continue
        games = entry.get("games")
        if not isinstance(games, int) or entry.get("config") != dataclasses.replace(v.config, games=games).to_toml():
            out[v.name] = (0, None, CONFIG_CHANGED)
        elif not _whole(folder, v, entry, trace) or not _looks_hold(folder, entry, manifest.get("until_decided")):
            out[v.name] = (0, None, DAMAGED)
        else:
            out[v.name] = (games, entry["sequential"], "")
    return out


def _whole(folder, variant, entry, trace):
    """Is the variant's file (and its trace, with ``trace``) what its entry recorded?"""
    path = Path(folder) / variant.file
    try:
        whole = path.is_file() and writing.sha256(path) == entry.get("sha256") and \
            pq.ParquetFile(writing.local(path)).metadata.num_rows == entry.get("rows") == entry.get("games")
    except (OSError, ValueError):
        return False
    return whole and (not trace or results.trace_mismatch(path, entry.get("trace_sha256")) is None)


def _looks_hold(folder, entry, plan_record):
    """Are the looks the entry records those its file gives (analyses.data's check, as analyze reads them)? An
    entry whose looks were edited starts again rather than going on from looks its games never gave."""
    from analyses import data

    try:
        result = data.load_result(Path(folder) / entry["file"])
        data.check_looks(Path(folder) / MANIFEST, plan_record, result.name, entry["sequential"], result)
    except data.DataError:
        return False
    return True


def run_until_decided(sweep, folder, plan, on_block=None, on_look=None, executor=None, trace=False):
    """Play every variant of ``sweep`` in ``folder`` look by look (``plan``: analyses.sequential.SequentialPlan)
    until its verdict is shown or it reaches the cap; return ``{name: (verdict, games)}``. ``on_look(variant,
    LookResult, Tally)`` hears each look of each variant; a re-run goes on from each variant's last finished look
    and a finished folder plays nothing."""
    folder = open_folder(folder, UNTIL_DECIDED, sweep.game)
    with writing.Lock(folder):
        writing.remove_stale(folder)
        check_until_decided(folder, plan, trace)
        state = {name: (games, record) for name, (games, record, _) in held_looks(sweep, folder, trace).items()}
        manifest = manifests.head(UNTIL_DECIDED, sweep.game, sweep=str(sweep.path),
                                  planned=[v.name for v in sweep.variants], until_decided=_plan_record(plan, trace),
                                  variants=read_manifest(folder)["variants"])
        write_manifest(folder, manifest)      # at once: its plan, and a run stopped before its end is unfinished
        looker = _Looker(folder, plan, manifest, on_block, None if trace else executor, trace, on_look)
        for index, games in enumerate(plan.looks):
            for v in sweep.variants:
                done, record = state[v.name]
                if record is None or not (record["verdict"] or done >= games):
                    state[v.name] = looker.look(v, index, done, record)
        write_manifest(folder, manifest)
    return {name: (record["verdict"], games) for name, (games, record) in state.items()}


class _Compacting:
    """Rewrites a manifest from its journal now and then while a run goes on: at most every ``COMPACT_S`` seconds,
    and then only when its last writing took at most ``COMPACT_SHARE`` of the time since."""

    def __init__(self):
        self.written, self.took = time.monotonic(), 0.0

    def step(self, folder, manifest):
        now = time.monotonic()
        if now - self.written > COMPACT_S and self.took <= COMPACT_SHARE * (now - self.written):
            write_manifest(folder, manifest)
            self.written = time.monotonic()
            self.took = self.written - now


@dataclass
class _Looker:
    """Looks at the variants of one run: grows a variant's file to the look's games, tests, records the look in
    the manifest (its journal at once, the whole now and then: :class:`_Compacting`)."""

    folder: Path
    plan: object
    manifest: dict
    on_block: object
    executor: object
    trace: bool
    on_look: object
    compacting: _Compacting = field(default_factory=_Compacting)

    def look(self, variant, index, done, record):
        """Look ``index`` at ``variant``, which holds ``done`` games and the sequential ``record`` (None before
        its first look): its new ``(games, record)``."""
        from analyses import sequential

        config = dataclasses.replace(variant.config, games=self.plan.looks[index])
        path = self.folder / variant.file
        tally = runs.extend_file(config, path, done, self.on_block, self.executor, self.trace)
        table = pq.read_table(writing.local(path), columns=[f"win_{i}" for i in range(config.players)])
        result = sequential.look(np.column_stack([c.to_numpy() for c in table.columns]), self.plan, index)
        record = sequential.record(result, record["looks"] if record else ())
        self.manifest["variants"][variant.name] = {**_entry(variant, config, config.games, path, self.trace),
                                                   "sequential": record}
        journal(self.folder, variant.name, self.manifest["variants"][variant.name])
        self.compacting.step(self.folder, self.manifest)
        if self.on_look:
            self.on_look(variant, result, tally)
        return config.games, record
