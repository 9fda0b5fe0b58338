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
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("simcore")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"


# A debug build: every action the agents and the game loop apply must be legal in its state, else AssertionError
# (simcore.agents.core). Read once, here; the tests set it (tests/conftest.py).
CHECK_LEGAL = os.environ.get("SIMCORE_CHECK_LEGAL", "") not in ("", "0")

KEEP_CACHES = 4          # source versions whose numba cache folders are kept under the cache root
PRUNE_AFTER_S = 3600     # ... and any folder used within the hour, which a running process may still write to


def cache_root():
    """The folder under which simcore keeps one numba cache folder per source version."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "simcore"


# What the jitted code is compiled from: the modules that define jitted functions, everything they import from
# simcore, and the shipped maps that the games read into tables at import. Only these name the cache folder, so
# editing the CLI, the studies, the reports or the pictures recompiles nothing. tests/test_cache.py checks that
# the hashed files import no simcore module outside this list but PLAIN ones. A game package's words and picture
# (PLAIN) are plain Python, compiled into nothing: not hashed either.
JITTED = ("__init__.py", "engine", "games", "agents", "data")
PLAIN = ("text.py", "picture.py")
SOURCE = (".py", ".toml")   # what is compiled or read into tables; a game's rules.md (its rules in words) is not


def hashed_files(package=Path(__file__).parent):
    """The files of :data:`JITTED` the cache folder's hash reads, in a fixed order (a game's PLAIN files left out)."""
    for name in JITTED:
        path = package / name
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if (file.suffix in SOURCE and "__pycache__" not in file.parts
                    and not (name == "games" and file.name in PLAIN)):
                yield file


def _source_digest(package=Path(__file__).parent):
    """A hash of the source the jitted code is compiled from (:data:`JITTED`), the numba version and the
    legality check's flag.

    numba judges a cache entry stale from the function's own file only, so a
    change in an imported module (rng.py, engine constants) would keep serving
    old machine code; a folder per source hash cannot. A checked build compiles
    other machine code from the same source: it gets a folder of its own.
    """
    digest = hashlib.sha256()
    for file in hashed_files(package):
        digest.update(str(file.relative_to(package)).encode())
        digest.update(file.read_bytes())
    try:
        digest.update(version("numba").encode())
    except PackageNotFoundError:
        pass
    if CHECK_LEGAL:
        digest.update(b"SIMCORE_CHECK_LEGAL")
    return digest.hexdigest()[:16]


def _prune(root, current):
    """Remove the cache folders of older source versions, keeping the ``KEEP_CACHES`` most recently used."""
    used = {f: f.stat().st_mtime for f in root.glob("numba-*") if f != current}
    stale = time.time() - PRUNE_AFTER_S
    for old in sorted(used, key=used.get, reverse=True)[KEEP_CACHES - 1:]:
        if used[old] < stale:
            shutil.rmtree(old, ignore_errors=True)   # another process may be pruning too


def _numba_cache_dir():
    """The numba cache folder of this source version (created, marked as just used, older ones pruned)."""
    root = cache_root()
    folder = root / f"numba-{_source_digest()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
        _prune(root, folder)
    except OSError:  # read-only home: a private temporary folder still caches within this machine
        import tempfile
        folder = Path(tempfile.gettempdir()) / f"simcore-{os.getuid()}" / folder.name
        folder.mkdir(parents=True, exist_ok=True)
    return str(folder)


if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = _numba_cache_dir()
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
