"""Result files as arrays: one :class:`Result` per variant file, a sweep folder as a list of them."""

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from analyses import scoring
from simcore.io import manifest, writing
from simcore.io import results as result_files

COMMON = ("game", "variant", "seed", "game_index", "n_players", "first_seat", "n_turns", "timeout")


class DataError(ValueError):
    """A result file or folder that cannot be analysed (one-line message)."""


@dataclass
class Result:
    """One variant's games: the columns as numpy arrays plus the file's metadata."""

    path: Path
    name: str
    game: str
    seed: int
    players: int
    columns: dict = field(repr=False)
    meta: dict = field(repr=False)
    score: str = "points"           # what the tests read (:attr:`outcome`): "points", or "margin" (:func:`scored`)
    unit: str = ""                  # the margin's unit, the game's ``GameType.margin``, once scored by margins

    @property
    def n_games(self):
        return len(self.columns["game_index"])

    def column(self, name):
        """A column of the file, or ``points_i``: seat i's points per game (``analyses.scoring.points``),
        derived from the win flags, or, scored by margins, ``margin_i``: seat i's margin per game."""
        if name in self.columns:
            return self.columns[name]
        if name in self._points_names:
            return self.points[:, self._points_names.index(name)]
        if name in self._margin_names:
            return self.outcome[:, self._margin_names.index(name)]
        raise DataError(f"{self.path} has no column {name!r}; allowed: {', '.join(self.names)}")

    @property
    def policies(self):
        """Every seat's policy spec, as the file's metadata recorded it ([] if it did not)."""
        return json.loads(self.meta.get("policies", "[]"))

    @property
    def names(self):
        """Every name :meth:`column` takes: the file's columns and the derived ``points_i`` (and ``margin_i``)."""
        return list(self.columns) + self._points_names + self._margin_names

    @property
    def _points_names(self):
        return [f"points_{i}" for i in range(self.players)]

    @property
    def _margin_names(self):
        return [f"margin_{i}" for i in range(self.players)] if self.score == "margin" else []

    @property
    def wins(self):
        return np.column_stack([self.columns[f"win_{i}"] for i in range(self.players)])

    @property
    def points(self):
        """Every seat's points per game (games, players): 1 a win, 1/k a k-way shared win, 1/players each
        when nobody wins."""
        return scoring.points(self.wins)

    @property
    def outcome(self):
        """What the tests read of a game, per seat (games, players): the points, or with ``score == "margin"``
        the margins (``analyses.scoring.margins``)."""
        return scoring.margins(self.scores) if self.score == "margin" else self.points

    @property
    def total(self):
        """What a game hands out over the seats in :attr:`outcome`: 1 point, or margins adding up to 0; a fair
        game gives a seat its part of it."""
        return 0.0 if self.score == "margin" else 1.0

    @property
    def scores(self):
        return np.column_stack([self.columns[f"score_{i}"] for i in range(self.players)])

    def extras(self):
        """The game's own numeric columns (everything after the common and per-seat ones; a column of labels,
        such as Der Herr der Wichtel's, has no mean and is left out)."""
        seat = {f"{kind}_{i}" for kind in ("win", "score") for i in range(self.players)}
        return {k: v for k, v in self.columns.items()
                if k not in COMMON and k not in seat and (v.dtype.kind in "biuf")}


def scored(results, score):
    """``results`` (changed in place, and returned) scored by ``score`` (``analyses.scoring.SCORES``); DataError
    in one line for a game that declares no margin."""
    from simcore import games  # here: only a margin needs the game's declaration, and importing a game costs

    for r in results:
        try:
            unit = games.load(r.game).GAME.margin if score == "margin" else ""
            scoring.check_score(score, r.game, unit)
        except ValueError as e:
            raise DataError(str(e)) from None
        r.score, r.unit = score, unit
    return results


def simcore_meta(table):
    """A table's ``simcore.*`` metadata, the keys without the prefix."""
    # errors="replace": a value that is not UTF-8 (a file edited by another tool) is read, not a traceback
    return {k.decode(errors="replace").removeprefix("simcore."): v.decode(errors="replace")
            for k, v in (table.schema.metadata or {}).items() if k.startswith(b"simcore.")}


def columns_of(table):
    """A result table's columns as arrays, by name, but ``game`` and ``variant`` and the seats the variant does
    not have: columns of nulls (one schema for every file of a game), left out as files written before it never
    had them."""
    return {name: table[name].to_numpy() for name in table.column_names
            if name not in ("game", "variant") and table[name].null_count < table.num_rows}


def load_result(path):
    path = Path(path)
    try:
        table = result_files.read_input(pq.read_table, path)
        meta = simcore_meta(table)
        result_files.check_input_metadata(path, meta)
    except result_files.InputError as e:
        raise DataError(str(e)) from None
    if "game" not in table.column_names or table.num_rows == 0:
        raise DataError(f"{path} is not a simcore result file (no games in it)")
    columns = columns_of(table)
    return Result(path=path, name=meta.get("variant", path.stem), game=table["game"][0].as_py(),
                  seed=int(columns["seed"][0]), players=int(columns["n_players"][0]), columns=columns, meta=meta)


# the kinds of folder whose files are variants to analyse (simcore.studies.sweep.manifest_kind): not a tune's
READ_KINDS = ("sweep", "sweep until decided", "ladder", "versus", "readings")
# what a mismatch with the manifest allows
REPLAY = "allowed: run the same command again (it plays a damaged variant again), or analyze the files on their own"


def load_folder(folder):
    """The variants of a sweep folder, in the manifest's order (else every result file, sorted). What the manifest
    promises is checked: its kind is one of :data:`READ_KINDS`, and each listed file (and trace) is the one it
    recorded, with the looks it recorded (a sweep until decided); a broken promise is a DataError in one line."""
    from simcore.studies.sweep import manifest_kind

    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(f"{folder} is not a folder of result files")
    written = manifest.read_manifest(folder)
    if manifest.exists(folder) and manifest_kind(written) not in READ_KINDS:
        again = (" (simcore analyze reads it on its own)" if manifest_kind(written) == "restricted-play study"
                 else "")
        raise DataError(f"{folder} holds a {manifest_kind(written)} ({manifest.MANIFEST}), not variants to analyse"
                        f"{again}; allowed: a folder of a {', '.join(READ_KINDS[:-1])} or {READ_KINDS[-1]} run")
    entries = written["variants"]
    files = [_listed(folder, entry) for entry in entries.values()] if entries else \
        sorted(f for f in folder.glob("*.parquet") if not _is_trace(f))
    if not files:
        raise DataError(f"{folder} holds no result files")
    for f in files:
        if not f.is_file():
            raise DataError(f"{f} is missing: {folder / manifest.MANIFEST} lists it; allowed: run the sweep again "
                            "to play it, or analyze the files that are there")
    results = [load_result(f) for f in files]
    for (name, entry), result in zip(entries.items(), results if entries else (), strict=True):
        _check_entry(folder, written, name, entry, result)
    return results


def _check_entry(folder, written, name, entry, result):
    """DataError in one line unless ``result`` (and its trace) is the file its manifest entry recorded."""
    recorded = folder / manifest.MANIFEST
    path = result.path
    if "sha256" in entry and writing.sha256(path) != entry["sha256"]:
        raise DataError(f"{path} is not the file {recorded} records: its SHA-256 differs (it was changed after "
                        f"simcore wrote it); {REPLAY}")
    if "rows" in entry and entry["rows"] != result.n_games:
        raise DataError(f"{path} holds {result.n_games:,} games, {recorded} records {entry['rows']!r}; {REPLAY}")
    trace = writing.trace_path(path)
    if "trace_sha256" in entry and trace.is_file() and writing.sha256(trace) != entry["trace_sha256"]:
        raise DataError(f"{trace} is not the trace {recorded} records: its SHA-256 differs (it was changed after "
                        f"simcore wrote it); {REPLAY}")
    if isinstance(entry.get("sequential"), dict):
        check_looks(recorded, written.get("until_decided"), name, entry["sequential"], result)


def check_looks(recorded, plan_record, name, record, result):
    """DataError in one line unless the looks a sweep until decided recorded for ``name`` are those of its file:
    its last look at the plan's games for that look, which are the file's, and the verdict that look gives when
    made again from the file (one look: cheap)."""
    from analyses import sequential

    try:
        plan_ = sequential.SequentialPlan.from_dict(plan_record)
    except ValueError as e:
        raise DataError(f"{recorded} records {e}") from None
    except (KeyError, TypeError):
        raise DataError(f"{recorded} records a plan of looks that cannot be read; {REPLAY}") from None
    try:
        made, verdict = len(record["looks"]), record["verdict"]
        last = record["looks"][-1]["games"]
    except (KeyError, TypeError, ValueError, IndexError):
        raise DataError(f"{recorded} records looks of {name} that cannot be read; {REPLAY}") from None
    if not 1 <= made <= len(plan_.looks) or last != plan_.looks[made - 1] or last != result.n_games:
        raise DataError(f"{recorded} records looks of {name} that its file does not hold: look {made} at {last!r} "
                        f"games, its file {result.n_games:,}, the plan's looks {', '.join(map(str, plan_.looks))}; "
                        f"{REPLAY}")
    again = sequential.look(result.wins, plan_, made - 1).verdict
    if again != verdict:
        raise DataError(f"{recorded} records looks of {name} with the verdict {verdict or 'not yet decided'!r} at "
                        f"look {made}; its file's games give {again or 'not yet decided'!r}; {REPLAY}")


def _listed(folder, entry):
    """The result file a manifest entry names: a file of the folder itself, never a path leading out of it."""
    name = entry.get("file") if isinstance(entry, dict) else None
    if not isinstance(name, str) or Path(name).name != name or name in ("", ".", "..") or \
            not name.endswith(".parquet"):
        raise DataError(f"{folder / manifest.MANIFEST} lists the file {name!r}; allowed: a file name in the folder "
                        "(X.parquet), never a path")
    return folder / name


def _is_trace(path):
    """A trace written where results are (before traces had their folder): its metadata says so."""
    try:
        return b"simcore.trace.standing" in (pq.read_schema(writing.local(path)).metadata or {})
    except (OSError, ValueError):
        return False


def unfinished(folder):
    """A one-line note when the run that wrote ``folder`` has not finished what it planned (it was stopped, or is
    still running), else None: variants with no results, variants short of their games (a sweep until decided:
    not yet decided below the cap), and the command that finishes it (the run's own, as its manifest recorded
    it: a run goes on from what it finished)."""
    listed = manifest.read_manifest(folder)
    planned = listed.get("planned")
    if not isinstance(planned, list):
        return None
    missing = [name for name in planned if name not in listed["variants"]]
    short = [f"{name} ({why})" for name in planned if name in listed["variants"]
             for why in [_short(listed, name)] if why]
    if not missing and not short:
        return None
    parts = [f"{len(missing)} of its {len(planned)} planned variants have no results ({_some(missing)})"] \
        if missing else []
    parts += [f"{len(short)} {'is' if len(short) == 1 else 'are'} short of {'its' if len(short) == 1 else 'their'} "
              f"games: {_some(short)}"] if short else []
    command = listed.get("command")
    finish = f"Finish it with the command that wrote it: {command}" if isinstance(command, str) else \
        "Run the same command again to finish it."
    return (f"note: {folder} is not finished: {'; '.join(parts)}; the verdict is of what it holds so far, not "
            f"final. {finish}")


def _some(names):
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _count(games):
    return f"{games:,}" if isinstance(games, int) else repr(games)


def _short(listed, name):
    """Why the finished variant ``name`` falls short of what its run planned ("" when it does not): fewer games
    than planned, or (a sweep until decided) no verdict yet below the cap."""
    entry = listed["variants"][name]
    games = entry.get("games") if isinstance(entry, dict) else None
    planned = (listed.get("planned_games") or {}).get(name)
    if isinstance(planned, int) and games != planned:
        return f"{_count(games)} of {planned:,} games"
    record, plan_ = entry.get("sequential") if isinstance(entry, dict) else None, listed.get("until_decided")
    if isinstance(record, dict) and isinstance(plan_, dict) and not record.get("verdict"):
        cap = (plan_.get("looks") or [None])[-1]
        return f"not yet decided after {_count(games)} of {_count(cap)} games"
    return ""


def rules_warning(results):
    """A one-line warning when ``results`` hold more than one rules version of their game, else None: rows of
    two versions were played by different rules, so a difference between them may be the rules' and not the
    variants'. Files written before versions were recorded have none and are not counted."""
    versions = {}
    for r in results:
        if "rules_version" in r.meta:
            versions.setdefault(r.meta["rules_version"], []).append(r.name)
    if len(versions) < 2:
        return None
    held = "; ".join(f"version {v}: {', '.join(names)}" for v, names in sorted(versions.items()))
    return f"warning: these files hold different rules versions of {results[0].game} ({held}); compare like with like"


def named_apart(results):
    """``results`` (changed in place, and returned), each sharing its variant name with another (two files of
    ``simcore run`` are both "default") named by its file as well: ``default (a.parquet)``, or by its path where
    the file names agree too. One file read twice (given twice, under two spellings of its path, or alone and in
    its folder) cannot be told apart from itself: DataError, where it was taken for two variants."""
    given = {}
    for r in results:
        key = r.path.resolve()
        if key in given:
            same = f" ({given[key]} is the same file)" if str(given[key]) != str(r.path) else ""
            raise DataError(f"{r.path} is given twice{same}; allowed: each result file once")
        given[key] = r.path
    names = [r.name for r in results]
    files = [r.path.name for r in results]
    for r in results:
        if names.count(r.name) > 1:
            r.name = f"{r.name} ({r.path.name if files.count(r.path.name) == 1 else r.path})"
    return results


def paired_on_index(a, b):
    """Row positions of the game indices that both results hold, in game-index order."""
    common, ia, ib = np.intersect1d(a.column("game_index"), b.column("game_index"), return_indices=True)
    return ia, ib
