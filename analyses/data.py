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
    columns = {name: table[name].to_numpy() for name in table.column_names
               if name not in ("game", "variant")}
    return Result(path=path, name=meta.get("variant", path.stem), game=table["game"][0].as_py(),
                  seed=int(columns["seed"][0]), players=int(columns["n_players"][0]), columns=columns, meta=meta)


def load_folder(folder):
    """The variants of a sweep folder, in the manifest's order (else every result file, sorted)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(f"{folder} is not a folder of result files")
    entries = manifest.read_manifest(folder)["variants"]
    files = [_listed(folder, entry) for entry in entries.values()] if entries else \
        sorted(f for f in folder.glob("*.parquet") if not _is_trace(f))
    if not files:
        raise DataError(f"{folder} holds no result files")
    for f in files:
        if not f.is_file():
            raise DataError(f"{f} is missing: {folder / manifest.MANIFEST} lists it; allowed: run the sweep again "
                            "to play it, or analyze the files that are there")
    return [load_result(f) for f in files]


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
    """A one-line note when the run that wrote ``folder`` planned variants it has not finished (it was stopped,
    or is still running), else None: its verdict is of the finished ones only."""
    listed = manifest.read_manifest(folder)
    planned = listed.get("planned")
    if not isinstance(planned, list):
        return None
    missing = [name for name in planned if name not in listed["variants"]]
    if not missing:
        return None
    shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    return (f"note: {folder} is not finished: {len(missing)} of its {len(planned)} planned variants have no results "
            f"({shown}); the verdict is of the others. Run the same command again to finish it.")


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
