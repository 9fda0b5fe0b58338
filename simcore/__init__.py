"""simcore: Monte-Carlo balance testing of tabletop games.

    import simcore
    table = simcore.simulate("zwergen", games=100_000, seed=1,
                             params={"players": 4, "pro": True},
                             policies={"*": "greedy", 1: "random"})
    state = simcore.load_game("zwai").new_initial_state(seed=1)   # a game as a decision process
"""

import hashlib
import os
import shutil
import stat
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("simcore")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"


# A debug build: every action the agents and the game loop apply must be legal in its state, else AssertionError
# (simcore.engine.loop). Read once, here; the tests set it (tests/conftest.py).
CHECK_LEGAL = os.environ.get("SIMCORE_CHECK_LEGAL", "") not in ("", "0")

KEEP_CACHES = 4          # source versions whose numba cache folders are kept under the cache root
PRUNE_AFTER_S = 3600     # ... and any folder used within the hour, which a running process may still write to
MARKER = ".simcore-cache"   # in every cache folder simcore made: only those are ever pruned or cleared
# NUMBA_CACHE_DIR as the user set it before simcore was imported (None: simcore chooses). A folder of the user's
# is never removed: `simcore cache --clear` removes only numba's own files in it.
USER_CACHE_DIR = os.environ.get("NUMBA_CACHE_DIR") or None
CACHE_NOTE = None        # why this process caches nothing, or only in /tmp (said once on stderr at import)


def cache_root():
    """The folder under which simcore keeps one numba cache folder per source version."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "simcore"


def fallback_root():
    """Where simcore caches when its root cannot be written: a folder of this user's in the temporary folder."""
    import tempfile
    return Path(tempfile.gettempdir()) / f"simcore-{os.getuid()}"


# What the jitted code is compiled from. The core (:data:`CORE`: the engine, the agents, the registry and the
# shipped maps) names the cache folder of a source version; each game's package names a folder of its own inside
# it (:func:`game_folder`), so that editing or adding a game recompiles that game alone, while editing the core
# recompiles every game. tests/test_cache.py checks that the core imports no simcore module outside it but PLAIN
# ones, and that a game imports nothing of another game. A game package's words and picture (PLAIN) are plain
# Python, compiled into nothing: not hashed either.
CORE = ("__init__.py", "params.py", "engine", "agents", "data", "games/__init__.py", "games/defaults.py")
PLAIN = ("text.py", "picture.py")
SOURCE = (".py", ".toml")   # what is compiled or read into tables; a game's rules.md (its rules in words) is not


def hashed_files(package=Path(__file__).parent):
    """The files of :data:`CORE` the cache folder's hash reads, in a fixed order."""
    for name in CORE:
        path = package / name
        yield from _sources(path) if path.is_dir() else [path]


def game_files(folder):
    """The files of a game's package (``folder``) its cache folder's hash reads: its source but PLAIN."""
    return [file for file in _sources(Path(folder)) if file.name not in PLAIN]


def _sources(folder):
    return [file for file in sorted(folder.rglob("*"))
            if file.suffix in SOURCE and "__pycache__" not in file.parts and file.is_file()]


def _digest(files, root, extra=b""):
    digest = hashlib.sha256(extra)
    for file in files:
        digest.update(str(file.relative_to(root)).encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def _source_digest(package=Path(__file__).parent):
    """A hash of the core source the jitted code is compiled from (:data:`CORE`), the numba version and the
    legality check's flag.

    numba judges a cache entry stale from the function's own file only, so a
    change in an imported module (rng.py, engine constants) would keep serving
    old machine code; a folder per source hash cannot. A checked build compiles
    other machine code from the same source: it gets a folder of its own.
    """
    try:
        extra = version("numba").encode()
    except PackageNotFoundError:
        extra = b""
    if CHECK_LEGAL:
        extra += b"SIMCORE_CHECK_LEGAL"
    return _digest(hashed_files(package), package, extra)


def game_digest(folder):
    """A hash of a game package's source (:func:`game_files`): its cache folder inside the core's."""
    return _digest(game_files(folder), Path(folder))


def game_folder(name, folder):
    """The name of the cache folder of game ``name`` whose package is ``folder``, inside the core's."""
    return f"game-{name}-{game_digest(folder)}"


def ours(folder):
    """Is ``folder`` a cache folder simcore made (a real folder, not a link, holding :data:`MARKER`)?"""
    folder = Path(folder)
    return folder.is_dir() and not folder.is_symlink() and (folder / MARKER).is_file()


def private(folder):
    """Is ``folder`` a real folder (not a link) of this user that no one else may write? Only such a folder in
    the shared temporary folder is trusted: numba runs the code it finds in its cache."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def writable(folder):
    """Can this process create files in ``folder`` (creating it if need be)? numba writes elsewhere, into the
    package's own folders, when it cannot: simcore never hands it such a folder."""
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK)


def _prune(root, current, pattern="numba-*"):
    """Remove simcore's cache folders of older source versions (``pattern``: of the core, or of one game inside
    it), keeping the ``KEEP_CACHES`` most recently used."""
    used = {f: f.stat().st_mtime for f in root.glob(pattern) if f != current and ours(f)}
    stale = time.time() - PRUNE_AFTER_S
    for old in sorted(used, key=used.get, reverse=True)[KEEP_CACHES - 1:]:
        if used[old] < stale:
            shutil.rmtree(old, ignore_errors=True)   # another process may be pruning too


def _version_folder(root):
    """This source version's folder under ``root``: created, marked as simcore's and as just used."""
    return _use(root / f"numba-{_source_digest()}")


def _use(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARKER).touch()
    os.utime(folder)
    return folder


def use_game_folder(core, name, folder):
    """Game ``name``'s cache folder ``folder`` inside the core's (``core``): created, marked and just used, and
    the game's older folders there pruned as :func:`_prune` prunes the core's."""
    current = _use(Path(core) / folder)
    _prune(Path(core), current, f"game-{name}-*")
    return current


def _numba_cache_dir():
    """The numba cache folder of this source version, and what is unusual about it (None: nothing).

    simcore's root first (older versions pruned); else a private folder of this user's in the temporary folder;
    else, when that is another user's or writable by others (numba would load what they planted there), a
    folder of this process alone, removed when it ends: nothing is cached."""
    root = cache_root()
    try:
        folder = _version_folder(root)
        _prune(root, folder)
        return folder, None
    except OSError as e:
        why = f"cannot write under {root} ({e.strerror or e})"
    fallback = fallback_root()
    try:
        fallback.mkdir(mode=0o700, exist_ok=True)
        if private(fallback):
            return _version_folder(fallback), f"{why}; caching in {fallback} instead"
        why += f", and {fallback} is not a private folder of yours"
    except OSError as e:
        why += f", nor in {fallback} ({e.strerror or e})"
    return _scratch(), f"{why}; compiled code is not kept after this run"


def _scratch():
    """A folder of this process alone, removed when it ends."""
    import atexit
    import tempfile
    folder = tempfile.mkdtemp(prefix="simcore-nocache-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return Path(folder)


if USER_CACHE_DIR is None or not writable(USER_CACHE_DIR):
    _folder, CACHE_NOTE = _numba_cache_dir()
    if USER_CACHE_DIR is not None:       # numba would write into the installed package's own folders instead
        CACHE_NOTE = f"NUMBA_CACHE_DIR={USER_CACHE_DIR} is not a folder this process can write; " + (
            CACHE_NOTE.rpartition("; ")[2] if CACHE_NOTE else f"caching in {_folder.parent} instead")
    os.environ["NUMBA_CACHE_DIR"] = str(_folder)
    if CACHE_NOTE:
        print(f"simcore: {CACHE_NOTE}", file=sys.stderr)
if "numba" in sys.modules:  # numba read its config already: tell it directly
    sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]


def __getattr__(name):
    # these pull in numpy, pyarrow and the engine: only when asked for, so `simcore games` starts fast
    if name == "simulate":
        from simcore.studies.runs import simulate
        return simulate
    if name == "load_game":
        from simcore.handle import load_game
        return load_game
    raise AttributeError(f"module 'simcore' has no attribute {name!r}")


__all__ = ["load_game", "simulate", "__version__"]
