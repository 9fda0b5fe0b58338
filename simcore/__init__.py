"""simcore: Monte-Carlo balance testing of tabletop games.

    import simcore
    table = simcore.simulate("zwergen", games=100_000, seed=1,
                             params={"players": 4, "pro": True},
                             policies={"*": "greedy", 1: "random"})
"""

import hashlib
import os
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("simcore")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"


def _numba_cache_dir():
    """A cache folder keyed on simcore's own source and the numba version.

    numba judges a cache entry stale from the function's own file only, so a
    change in an imported module (rng.py, engine constants) would keep serving
    old machine code; a folder per source hash cannot.
    """
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.rglob("*.py")):
        digest.update(path.read_bytes())
    try:
        digest.update(version("numba").encode())
    except PackageNotFoundError:
        pass
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "simcore"
    folder = root / f"numba-{digest.hexdigest()[:16]}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:  # read-only home: a private temporary folder still caches within this machine
        import tempfile
        folder = Path(tempfile.gettempdir()) / f"simcore-{os.getuid()}" / folder.name
        folder.mkdir(parents=True, exist_ok=True)
    return str(folder)


if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = _numba_cache_dir()
    if "numba" in sys.modules:  # numba read its config already: tell it directly
        sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]

from simcore.runs import simulate  # noqa: E402  (after the cache folder is set)

__all__ = ["simulate", "__version__"]
