"""Parquet output: one row per game, written in row groups as blocks finish.

Columns, in this order (documented in docs/reference/parquet.md):

    game, variant, seed, game_index, n_players, first_seat, n_turns, timeout,
    win_0 .. win_{m-1}, score_0 .. score_{m-1}, <the game's extra columns>

where m is the game's largest player count (``MAX_SEATS``): every file of a game has one schema, its seats
beyond the variant's players null (and a per-seat extra column likewise).

The file's key-value metadata holds the resolved config as TOML text
(``simcore.config``), the seed, the simcore version, the game's rules version
(``simcore.rules_version``, bumped when a rule changes the rows), the policies
and the parameter values as JSON. A file is written under a temporary name in the same
folder and renamed when complete: a crash or an error leaves no partial file
under the final name.
"""

import hashlib
import json
import os
import stat
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simcore import __version__, engine
from simcore.io import writing

ROW_GROUP = 1 << 20          # rows buffered per Parquet row group

_TYPES = {"int": pa.int32(), "bool": pa.bool_()}


def _type(kind):
    """Arrow type of an extra column: int, bool, or a tuple of labels (int codes -> strings, -1 -> "")."""
    return pa.string() if isinstance(kind, tuple) else _TYPES[kind]


def _column(kind, codes):
    if isinstance(kind, tuple):
        labels = np.array(("",) + kind, dtype=object)
        return pa.array(labels[codes + 1], pa.string())
    return pa.array(codes.astype(bool if kind == "bool" else np.int32))


class OutputError(OSError):
    """The output file cannot be written (one-line message)."""


# The columns every result file starts with, (name, type, meaning); then a column per seat of each of SEATS
# (name_i for seat i), then the game's own (EXTRA_COLUMNS). The reference of the docs site prints these.
COMMON = (
    ("game", pa.string(), "the game's name"),
    ("variant", pa.string(), "the variant's name (`--variant`, a sweep's variant; default `default`)"),
    ("seed", pa.int64(), "the run's seed"),
    ("game_index", pa.int64(), "the game's index in the run, 0 to games - 1; with `seed` it fixes every random draw"),
    ("n_players", pa.int8(), "players"),
    ("first_seat", pa.int8(), "the seat that began the game"),
    ("n_turns", pa.int32(), "turns played (what a turn is: the game's rules page)"),
    ("timeout", pa.bool_(), "the game reached `max_turns` without an end by the rules"),
)
SEATS = (
    ("win", pa.bool_(), "seat i is among the winners (in a team game every seat of the winning team); a column "
                        "for every seat the game can have, null where the variant has no seat i"),
    ("score", pa.int32(), "the game's natural score for seat i (its rules page says which); null likewise"),
)


def schema(config):
    """Every file of a game has one schema: the columns of every seat the game can have (its largest player
    count), null where the variant seats fewer, so that pandas, polars and DuckDB read a folder of 2-, 3- and
    4-player variants in one call with nothing dropped."""
    module = config.module
    n = module.MAX_SEATS
    fields = [pa.field(name, kind) for name, kind, _ in COMMON]
    fields += [pa.field(f"{name}_{i}", kind) for name, kind, _ in SEATS for i in range(n)]
    fields += [pa.field(name, _type(kind)) for name, kind, _ in engine.extra_columns(module, n)]
    return pa.schema(fields, metadata=metadata(config))


def present(config):
    """The fields of :func:`schema` that hold values for ``config``: every one but the seats it does not have."""
    module, n = config.module, config.players
    absent = {f"{name}_{i}" for name, _, _ in SEATS for i in range(n, module.MAX_SEATS)}
    absent |= ({name for name, _, _ in engine.extra_columns(module, module.MAX_SEATS)}
               - {name for name, _, _ in engine.extra_columns(module, n)})
    return [field for field in schema(config) if field.name not in absent]


def run_id(config):
    """What ties a result file and its trace to one run: a digest of everything that fixes the games (the
    resolved config, its seed and game count included, the rules version, simcore's version). The same for the
    same run, so that a run played again writes the same bytes; a trace whose id differs is another run's."""
    text = f"{config.to_toml()}\n{config.module.GAME.rules_version}\n{__version__}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def metadata(config):
    return {
        "simcore.version": __version__,
        "simcore.run_id": run_id(config),
        "simcore.game": config.game,
        "simcore.rules_version": str(config.module.GAME.rules_version),
        "simcore.variant": config.variant,
        "simcore.seed": str(config.seed),
        "simcore.policies": json.dumps(config.policies),
        "simcore.params": json.dumps(config.params),
        "simcore.config": config.to_toml(),
    }


def table(config, first_index, rows):
    """The Arrow table of one block of result rows (see ``engine`` for the layout)."""
    module = config.module
    n = config.players
    count = rows.shape[0]
    score = engine.score_offset(module.MAX_SEATS)
    columns = [
        pa.repeat(pa.scalar(config.game, pa.string()), count),      # a list of count strings: 10x slower
        pa.repeat(pa.scalar(config.variant, pa.string()), count),
        pa.array(np.full(count, config.seed, np.int64)),
        pa.array(np.arange(first_index, first_index + count, dtype=np.int64)),
        pa.array(np.full(count, n, np.int8)),
        pa.array(rows[:, engine.O_FIRST_SEAT].astype(np.int8)),
        pa.array(rows[:, engine.O_N_TURNS].astype(np.int32)),
        pa.array(rows[:, engine.O_TIMEOUT].astype(bool)),
    ]
    seats = range(module.MAX_SEATS)
    columns += [pa.array(rows[:, engine.O_WIN + i].astype(bool)) if i < n else pa.nulls(count, pa.bool_())
                for i in seats]
    columns += [pa.array(rows[:, score + i].astype(np.int32)) if i < n else pa.nulls(count, pa.int32())
                for i in seats]
    present = {name for name, _, _ in engine.extra_columns(module, n)}
    for name, kind, offset in engine.extra_columns(module, module.MAX_SEATS):
        columns.append(_column(kind, rows[:, offset]) if name in present else pa.nulls(count, _type(kind)))
    return pa.Table.from_arrays(columns, schema=schema(config))


TIMEOUT = "timeout"      # the end of a traced game stopped by max_turns


trace_path = writing.trace_path


def trace_schema(config):
    """The trace table (``run --trace``): one row per game and seat (docs/reference/parquet.md, "Traces")."""
    module = config.module
    fields = [pa.field("game_index", pa.int64()), pa.field("seat", pa.int8()),
              pa.field("standing", pa.list_(pa.int32()))]
    fields += [pa.field(f"{what}_{kind}", pa.int32()) for what in ("played", "legal")
               for kind, _ in module.ACTION_KINDS]
    fields.append(pa.field("end", pa.string()))
    meta = {**metadata(config),
            "simcore.trace.standing": module.TRACE_STANDING,
            "simcore.trace.step": module.TRACE_STEP,
            "simcore.trace.max_steps": str(module.MAX_TRACE_STEPS),
            "simcore.trace.kinds": json.dumps(dict(module.ACTION_KINDS)),
            "simcore.trace.ends": json.dumps(dict(module.END_CONDITIONS))}
    return pa.schema(fields, metadata=meta)


def trace_table(config, first_index, trace):
    """The Arrow table of one block's traces (``simcore.engine.TraceBlock``)."""
    module = config.module
    n, players = trace.info.shape[0], config.players
    kinds = len(module.ACTION_KINDS)
    steps = trace.info[:, 0].astype(np.int64)
    table = trace.table[:, :players, :]
    kept = np.broadcast_to((np.arange(table.shape[2]) < steps[:, None])[:, None, :], table.shape)
    offsets = np.concatenate([[0], np.cumsum(np.repeat(steps, players))]).astype(np.int32)
    ends = np.array([name for name, _ in module.END_CONDITIONS] + [TIMEOUT], dtype=object)
    counts = trace.counts[:, :players, :]
    columns = [pa.array(np.repeat(np.arange(first_index, first_index + n, dtype=np.int64), players)),
               pa.array(np.tile(np.arange(players, dtype=np.int8), n)),
               pa.ListArray.from_arrays(pa.array(offsets), pa.array(table[kept].astype(np.int32)))]
    columns += [pa.array(counts[:, :, k].reshape(-1)) for k in range(2 * kinds)]
    columns.append(pa.array(np.repeat(ends[trace.info[:, 1]], players), pa.string()))
    return pa.Table.from_arrays(columns, schema=trace_schema(config))


def check_output(path):
    """Raise :class:`OutputError` in one line unless a result file can be written at ``path``: a file name ending
    in .parquet in an existing folder, not a folder, device or pipe, short enough for the file system with the
    temporary and lock names made from it (tried: a temporary file is made and removed at once). Checked before a
    run plays."""
    path = Path(path)
    if not str(path) or path.name in ("", ".", ".."):
        raise OutputError(f"cannot write {str(path)!r}: allowed: a file name ending in .parquet")
    try:
        if path.is_dir():
            raise OutputError(f"cannot write {path}: it is a folder; give a file name ending in .parquet")
        if not path.parent.is_dir():
            what = "is not a folder" if path.parent.exists() else "does not exist"
            raise OutputError(f"cannot write {path}: its folder {path.parent} {what}")
        writing.check_target(path)
        if path.suffix.lower() != ".parquet":
            # "-" and "results" were written as Parquet files of those names, and notes.txt was written over
            raise OutputError(f"cannot write {str(path)!r}: allowed: a file name ending in .parquet")
        fd, tmp = writing.temporary(path.with_name(f"{path.name}.lock"))   # the longest name made from it
        os.close(fd)
        tmp.unlink()
    except OutputError:
        raise
    except OSError as e:
        raise OutputError(str(e) if str(e).startswith("cannot ") else
                          f"cannot write {path}: {writing.reason(e)}") from None


def check_replacing(path, force=False):
    """Raise :class:`OutputError` in one line when ``path`` holds a file simcore did not write (no simcore config
    in its metadata: a Parquet file of another tool, or none at all), unless ``force``: a run replaces its own
    results, never a user's file of the same name. Checked before a run plays, with :func:`check_output`."""
    if force or not os.path.isfile(path):
        return
    try:
        meta = pq.read_schema(writing.local(path)).metadata or {}
    except (OSError, ValueError):       # no Parquet file at all
        meta = {}
    if b"simcore.config" not in meta:
        raise OutputError(f"cannot write {path}: it is a file simcore did not write (no simcore config in it); "
                          "allowed: a new name, a result file simcore wrote, or --force to replace it")


def check_trace_output(result):
    """Raise :class:`OutputError` in one line unless the trace of the result file ``result`` can be written
    (``_traces/X.trace.parquet`` beside it): the traces' folder a folder or nothing yet, the trace's name not a
    folder. Checked before a run compiles and plays, as :func:`check_output` checks the result's name."""
    folder = Path(result).parent / writing.TRACES
    if not os.path.lexists(folder):
        return                      # made when the trace is written
    try:
        writing.check_traces_folder(folder)
    except OSError as e:
        raise OutputError(str(e)) from None
    check_output(trace_path(result))


class ResultWriter:
    """Writes one result file; the final name appears only when it is complete.

    Use as a context manager. It holds the file's lock (:class:`simcore.io.writing.Lock`) while it writes, and
    first removes the temporary files that killed writers left in the folder. Leaving it by an exception
    (a full disk included) deletes the temporary file and leaves any existing file at ``path`` untouched;
    every error is an :class:`OutputError` naming ``path``, never the temporary file.
    """

    def __init__(self, path, config):
        self.path = Path(path)
        self.config = config
        self.tmp = None
        self.file = None
        self.buffer = []
        self.buffered = 0
        self.writer = None
        self.lock = writing.Lock(self.path)
        self.locked = False

    def _fail(self, error):
        return OutputError(f"cannot write {self.path}: {writing.reason(error, self.tmp, self.path)}")

    def __enter__(self):
        check_output(self.path)
        try:
            with writing.uninterrupted():      # what it makes is recorded before Ctrl-C can act
                self._open()
        except BaseException:
            self._discard()
            raise
        return self

    def _open(self):
        """Take the lock, then make the temporary file and its Parquet writer."""
        try:
            self.lock.__enter__()
        except writing.LockedError as e:
            raise OutputError(str(e)) from None
        except OSError as e:
            raise OutputError(str(e) if str(e).startswith("cannot ") else str(self._fail(e))) from None
        self.locked = True
        try:
            writing.remove_stale(self.path.parent, once=True)
            fd, self.tmp = writing.temporary(self.path)
            self.file = os.fdopen(fd, "wb")
            self.writer = pq.ParquetWriter(self.file, self._schema(), compression="zstd")
        except OSError as e:
            raise self._fail(e) from None

    def _schema(self):
        return schema(self.config)

    def _table(self, first_index, rows):
        return table(self.config, first_index, rows)

    def add(self, first_index, data):
        """A block of games: its result rows (a trace writer: its ``TraceBlock``)."""
        block = self._table(first_index, data)
        self.buffer.append(block)
        self.buffered += block.num_rows
        if self.buffered >= ROW_GROUP:
            self._flush()

    def _flush(self):
        if self.buffer:
            try:
                self.writer.write_table(pa.concat_tables(self.buffer), row_group_size=ROW_GROUP)
            except OSError as e:
                raise self._fail(e) from None
            self.buffer, self.buffered = [], 0

    def __exit__(self, kind, value, traceback):
        try:
            if kind is None:
                self._flush()
            try:
                self.writer.close()
                self.file.close()
                if kind is None:
                    os.replace(self.tmp, self.path)
            except OSError as e:
                if kind is None:
                    raise self._fail(e) from None
        finally:
            self._discard()
        return False

    def _discard(self):
        """Remove the temporary file (nothing when it was renamed into place) and release the lock."""
        with writing.uninterrupted():
            if self.writer is not None:     # an interrupt between its making and the first block: closed here,
                try:                        # never by its finaliser at exit, onto a closed file (a traceback)
                    self.writer.close()
                except OSError:
                    pass
            if self.file is not None:
                self.file.close()
            if self.tmp is not None:
                self.tmp.unlink(missing_ok=True)
            if self.locked:
                self.locked = False
                self.lock.__exit__(None, None, None)


class TraceWriter(ResultWriter):
    """Writes the trace of the result file ``result`` (``_traces/X.trace.parquet`` beside it) as
    :class:`ResultWriter` writes a result file."""

    def __init__(self, result, config):
        super().__init__(trace_path(result), config)
        self.result = Path(result)

    def __enter__(self):
        try:
            writing.make_traces_folder(self.result)
        except OSError as e:
            raise OutputError(str(e)) from None
        return super().__enter__()

    def _schema(self):
        return trace_schema(self.config)

    def _table(self, first_index, trace):
        return trace_table(self.config, first_index, trace)


def trace_mismatch(path, sha256=None):
    """Why the trace beside the result file ``path`` is not the trace of its games (None when it is): missing,
    unreadable, of another run (its run id, see :func:`run_id`), cut short (not one row per game and seat), or
    (``sha256``: the digest a manifest recorded of it) changed since it was written, its standings edited."""
    trace = trace_path(path)
    if not trace.is_file():
        return "it has no trace"
    try:
        if sha256 is not None and writing.sha256(trace) != sha256:
            return "its trace is not the one its manifest records (its SHA-256 differs)"
    except OSError:
        return "its trace cannot be read"
    try:
        ours, theirs = pq.read_metadata(writing.local(path)), pq.read_metadata(writing.local(trace))
    except (OSError, ValueError):
        return "its trace cannot be read"
    key = b"simcore.run_id"
    mine = (ours.metadata or {}).get(key)
    if mine is None or (theirs.metadata or {}).get(key) != mine:
        return "its trace is of another run"
    seats = _players(path, ours)
    if theirs.num_rows != ours.num_rows * seats:
        return f"its trace holds {theirs.num_rows:,} rows, not one per game and seat ({ours.num_rows * seats:,})"
    return None


def _players(path, meta):
    """The players of a result file: its ``n_players`` (its ``win_i`` columns are every seat the game can have)."""
    if meta.num_rows == 0:
        return 0
    return int(pq.ParquetFile(writing.local(path)).read_row_group(0, columns=["n_players"])[0][0].as_py())


class InputError(ValueError):
    """A file given where a result file is expected cannot be read as one (one-line message)."""


ALLOWED_INPUT = "allowed: a result file simcore wrote"
_NOT_FILES = {stat.S_IFIFO: "a pipe", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device",
              stat.S_IFDIR: "a folder"}


def read_input(read, path, **options):
    """``read(path, **options)`` (``pq.read_table``, ``pq.read_schema``) of a file given as a result, or
    :class:`InputError` in one line saying why not: what the path is when it is no regular file (a pipe would make
    pyarrow wait or fail without a reason), the system's reason (permission denied), or that pyarrow cannot read
    it as Parquet (its own messages run to two lines of thrift and footer details)."""
    try:
        kind = stat.S_IFMT(os.stat(path).st_mode)
    except OSError as e:
        raise InputError(f"cannot read {path}: {writing.reason(e)}") from None
    if kind != stat.S_IFREG:
        raise InputError(f"cannot read {path}: it is {_NOT_FILES.get(kind, 'no regular file')}, not a file; "
                         f"{ALLOWED_INPUT}")
    try:
        return read(writing.local(path), **options)
    except (OSError, ValueError) as e:      # pyarrow's errors are both (ArrowIOError, ArrowInvalid)
        if writing.error_code(e):
            raise InputError(f"cannot read {path}: {writing.reason(e)}") from None
        raise InputError(f"{path} is not a readable Parquet file (damaged or cut short); {ALLOWED_INPUT}") from None


# the metadata simcore writes as JSON (:func:`metadata`): what each holds, and its words
JSON_METADATA = {"params": (dict, "a JSON object"), "policies": (list, "a JSON list")}


def check_input_metadata(path, meta):
    """:class:`InputError` in one line when a file's ``simcore.*`` metadata (``meta``, keys without the prefix)
    is not a result file's: a trace's (named with its result file), or JSON that is not (read later, it was a
    JSONDecodeError traceback)."""
    if "trace.standing" in meta:
        result = writing.result_of_trace(path)
        raise InputError(f"{path} is a trace (of {result}), not a result file; allowed: the result file {result}")
    for key, (kind, words) in JSON_METADATA.items():
        if key not in meta:
            continue
        try:
            value = json.loads(meta[key])
        except ValueError:
            value = None
        if not isinstance(value, kind):
            raise InputError(f"{path}: its simcore.{key} metadata is not {words}; {ALLOWED_INPUT}")


def read(path):
    """``(table, metadata)`` of a result file; metadata keys without the ``simcore.`` prefix."""
    t = pq.read_table(writing.local(path))
    meta = {k.decode(errors="replace").removeprefix("simcore."): v.decode(errors="replace")
            for k, v in (t.schema.metadata or {}).items() if k.startswith(b"simcore.")}
    return t, meta
