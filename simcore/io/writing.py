"""Writing results safely: a file appears whole or not at all, one writer per target, nothing left behind.

* A file is written under a temporary name beside it (``.NAME.PID.RANDOM.tmp``, created new: never a file or
  link that was there before) and renamed when complete, so a crash, a full disk or an interrupt never leaves a
  partial file under the final name, and never damages an earlier file of that name. Only a new path or a
  regular file is written: a device, a pipe or a folder of that name is refused, never replaced.
* A process killed outright (SIGKILL, a power cut) cannot remove its temporary file: the next writer in that
  folder removes the temporary files of processes that no longer run.
* Two writers of one target (a result file, or a sweep, tune or ladder folder) would overwrite each other's
  work: a writer holds a lock on its target, a lock file beside it (``.NAME.lock``; ``.simcore.lock`` inside a
  folder) naming its process. The lock is the kernel's ``flock``, so it ends with its process however that
  ends; a lock file left behind by a killed process is taken over by the next writer. A lock file is opened
  without following a link: a link planted there is refused, never followed to a file elsewhere.
"""

import contextlib
import errno as errnos
import fcntl
import hashlib
import os
import re
import stat
import sys
import tempfile
from pathlib import Path

_TEMPORARY = re.compile(r"^\..+\.(\d+)(\.\w+)?\.tmp$")     # .NAME.PID.RANDOM.tmp (.NAME.PID.tmp before)
FOLDER_LOCK = ".simcore.lock"
_critical = [0, False]   # the depth of uninterrupted blocks, and whether an interrupt came during one


def interrupt(signum, frame):
    """simcore's handler of SIGINT and SIGTERM: Ctrl-C at once, or at the end of an :func:`uninterrupted` block.
    (Python runs a handler between any two steps of the main thread: a lock or a temporary file made just
    before would not yet be known to its writer, which then could not remove it on the way out.)"""
    if _critical[0]:
        _critical[1] = True
        return
    raise KeyboardInterrupt


@contextlib.contextmanager
def uninterrupted():
    """A block that an interrupt (with :func:`interrupt` installed) does not cut: it acts when the block ends."""
    _critical[0] += 1
    try:
        yield
    finally:
        _critical[0] -= 1
        if not _critical[0] and _critical[1]:
            _critical[1] = False
            raise KeyboardInterrupt


_UMASK = os.umask(0o022)
os.umask(_UMASK)      # read once: a process's umask can only be read by setting it
# the modes a new file and a new folder get under the umask: what simcore gives what it makes privately first
# (mkstemp's files are 0600, mkdtemp's folders 0700) before renaming it into place
FILE_MODE = 0o666 & ~_UMASK
FOLDER_MODE = 0o777 & ~_UMASK
_held = {}       # lock file -> [open descriptor, depth]: a process may take its own lock again (a ladder's sweep)


class LockedError(OSError):
    """Another process writes the target (one-line message)."""


def temporary(path):
    """A new empty file beside ``path`` to write it under before it is renamed: ``(open descriptor, its path)``.
    Its name cannot be guessed and it is created anew (O_EXCL), so nothing planted beside ``path`` receives the
    data; its name holds the process id, so :func:`remove_stale` knows when its writer is gone."""
    path = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent.absolute())
    os.fchmod(fd, FILE_MODE)     # mkstemp's file is private (0600); the result gets the mode a new file gets
    return fd, Path(name)


def local(path):
    """``path`` as pyarrow must be given a local file: absolute, so that a name such as ``run:2/x.parquet`` is
    never read as a URI of a file system called "run"."""
    return str(Path(path).absolute())


def check_folder_writable(folder):
    """Raise OSError unless files can be made in ``folder``, or ``folder`` can be made (checked before a run
    plays, not after): the folder itself is tried with a file made and removed at once; a folder still to be
    made needs its nearest existing parent to be a folder this process may write."""
    folder = Path(folder)
    existing = folder
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise NotADirectoryError(errnos.ENOTDIR, os.strerror(errnos.ENOTDIR))
    if existing == folder:
        # named as a temporary file, so that one left by a kill is removed as theirs are (remove_stale)
        fd, probe = tempfile.mkstemp(prefix=f".simcore-probe.{os.getpid()}.", suffix=".tmp", dir=folder.absolute())
        os.close(fd)
        os.unlink(probe)
    elif not os.access(existing, os.W_OK | os.X_OK):
        raise PermissionError(errnos.EACCES, os.strerror(errnos.EACCES))


def check_target(path):
    """Raise OSError in one line unless ``path`` is a new name or a regular file (or a link to one): a device
    (``/dev/null``), a pipe or a folder is never replaced by a file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise OSError(f"cannot write {path}: {reason(e)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise OSError(f"cannot write {path}: it is a folder; allowed: a new path or a regular file")
    if not stat.S_ISREG(st.st_mode):
        raise OSError(f"cannot write {path}: it is not a regular file (a device, a pipe or a socket); allowed: a "
                      "new path or a regular file")


TRACES = "_traces"      # the folder of the traces beside result files: a results glob (*.parquet) never meets them


def trace_path(path):
    """Where the trace of the result file ``X.parquet`` goes: ``_traces/X.trace.parquet`` in its folder. In a
    folder of their own, the traces are neither caught by ``folder/*.parquet`` nor read by
    ``pandas.read_parquet(folder)`` (which passes over names that begin with ``_``), and no result file's name
    can be another's trace."""
    path = Path(path)
    return path.parent / TRACES / f"{path.stem}.trace.parquet"


def ours(name):
    """Is ``name`` one that simcore's writers leave in a folder besides results and manifests: the folder's lock
    file, a result file's lock file (``.X.parquet.lock``), a killed writer's temporary file, the traces' folder?"""
    return name in (FOLDER_LOCK, TRACES) or bool(_TEMPORARY.match(name)) or \
        (name.startswith(".") and name.endswith(".parquet.lock"))


def result_of_trace(path):
    """The result file whose trace is ``path`` (``_traces/X.trace.parquet`` -> ``X.parquet`` beside ``_traces``):
    :func:`trace_path` undone."""
    path = Path(path)
    return path.parent.parent / f"{path.name.removesuffix('.trace.parquet')}.parquet"


def remove_trace(result):
    """Remove the trace of the result file ``result``, if any (never through a link to another folder). A folder,
    pipe or device of that name is no trace: it is left alone (it was an IsADirectoryError once the result had
    been written)."""
    folder = Path(result).parent / TRACES
    if folder.is_dir() and not folder.is_symlink():
        trace = trace_path(result)
        if trace.is_symlink() or trace.is_file():
            trace.unlink(missing_ok=True)


def make_traces_folder(result):
    """Create the traces' folder beside the result file ``result``; OSError in one line when it is a link or a
    file (a trace is never written outside the folder the user named)."""
    folder = Path(result).parent / TRACES
    try:
        if not os.path.lexists(folder):
            folder.mkdir()
    except OSError as e:
        raise OSError(f"cannot write the trace in {folder}: {reason(e)}") from None
    check_traces_folder(folder)


def check_traces_folder(folder):
    """OSError in one line unless the traces' folder ``folder`` is a folder, not a link or a file."""
    if folder.is_symlink() or not folder.is_dir():
        raise OSError(f"cannot write the trace in {folder}: it is not a folder (a link or a file); allowed: a "
                      "folder, or nothing of that name")


def write_atomic(path, write):
    """``write(temporary path)``, then rename it to ``path``: a crash leaves no half-written file there."""
    path = Path(path)
    check_target(path)
    with uninterrupted():
        fd, tmp = temporary(path)
        os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        with uninterrupted():
            tmp.unlink(missing_ok=True)


def sha256(path):
    """The SHA-256 of a file, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def error_code(error):
    """The system's error number of ``error``, or None (an error of pyarrow's own: a damaged file)."""
    code = getattr(error, "errno", None)
    if code is None:     # pyarrow's errors carry the code in their text: "... [errno 28] No space left ..."
        found = re.search(r"errno (\d+)", str(error))
        code = int(found.group(1)) if found else None
    return code


def reason(error, tmp=None, path=None):
    """What went wrong writing, in a few words, naming the user's ``path`` and never the temporary file."""
    code = error_code(error)
    if code:
        return os.strerror(code)
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text.replace(str(tmp), str(path)) if tmp is not None else text


def alive(pid):
    """Does process ``pid`` run (on this machine)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:      # it runs, as another user
        return True
    return True


_cleaned = set()      # the folders this process has rid of the temporary files of processes gone before it


def remove_stale(folder, once=False):
    """Remove the temporary files in ``folder`` left by processes that no longer run; returns their names.
    ``once``: not again in a folder this process cleaned before (a writer of one file among thousands in a
    folder would otherwise list the folder each time: a sweep of many variants slowed with every variant)."""
    removed = []
    key = os.path.abspath(folder)
    if once and key in _cleaned:
        return removed
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    _cleaned.add(key)
    for entry in entries:
        found = _TEMPORARY.match(entry.name)
        if found and int(found.group(1)) != os.getpid() and not alive(int(found.group(1))):
            try:
                os.unlink(entry.path)
                removed.append(entry.name)
            except OSError:
                pass             # another writer removed it first, or it is not ours to remove
    return removed


def lock_path(target):
    """The lock file of a target: beside a file, inside a folder."""
    target = Path(target)
    try:
        folder = target.is_dir()
    except OSError:          # a name too long to look up: the lock cannot be made either, and says why
        folder = False
    return target / FOLDER_LOCK if folder else target.with_name(f".{target.name}.lock")


class Lock:
    """``with Lock(target):`` this process alone writes ``target`` (a file, or a folder that exists), or
    :class:`LockedError` names the process that does."""

    def __init__(self, target):
        self.target = Path(target)
        self.path = lock_path(target)

    def __enter__(self):
        key = str(self.path.parent.resolve() / self.path.name)
        taken = False
        try:
            with uninterrupted():
                self._take(key)
                taken = True
        except KeyboardInterrupt:        # it came while taking the lock: let go of it on the way out
            if taken:
                self.__exit__()
            raise
        return self

    def _take(self, key):
        """Take the lock (again, when this process holds it) and record it in ``_held``."""
        if key in _held:
            _held[key][1] += 1
            return
        while True:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                holder = os.read(fd, 4096).decode(errors="replace").strip()
                os.close(fd)
                if e.errno not in (errnos.EAGAIN, errnos.EACCES):
                    raise
                raise LockedError(f"{self.target} is being written by another simcore process "
                                  f"({holder or 'starting'}); "
                                  "allowed: wait until it ends or stop it, or write elsewhere") from None
            # the holder before us may have removed the file between our open and our lock: lock the file anew
            if os.path.exists(self.path) and os.fstat(fd).st_ino == os.stat(self.path).st_ino:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        # the command's words as given (a name the locale cannot spell is kept as its bytes, never an error)
        os.write(fd, f"pid {os.getpid()}: {' '.join(['simcore', *sys.argv[1:]])}".encode(errors="surrogateescape"))
        _held[key] = [fd, 1]

    def _open(self):
        """The lock file, opened without following a link; only a regular file is a lock file."""
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        except OSError as e:
            if e.errno == errnos.ELOOP:
                raise OSError(f"cannot lock {self.target}: its lock file {self.path} is a link; allowed: a regular "
                              "file or none (remove the link)") from None
            raise
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OSError(f"cannot lock {self.target}: its lock file {self.path} is not a regular file; allowed: "
                          "a regular file or none (remove it)")
        return fd

    def __exit__(self, *exc):
        key = str(self.path.parent.resolve() / self.path.name)
        with uninterrupted():
            _held[key][1] -= 1
            if _held[key][1] == 0:
                fd = _held.pop(key)[0]
                try:
                    os.unlink(self.path)
                except OSError:
                    pass
                os.close(fd)
        return False
