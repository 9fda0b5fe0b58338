"""What the tutorial's commands wait for compiling: each played as a new `simcore` process, as a reader types it,
once from an empty numba cache and once more with the cache it left (warm); a command's compile is its cold wall
time less its warm one.

    python benchmarks/tutorial_compile.py [--page docs/tutorial.md]

The page's files are written and its commands run in order in a new empty folder, each time (the builds users run:
no legality check). Prints each command's cold and warm seconds and the sum of the differences.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def steps(page):
    """("file", name, text) and ("command", args) of a page, in order (tests/test_pages.py reads them alike)."""
    sys.path.insert(0, str(REPOSITORY))
    from tests.test_pages import steps as page_steps

    return [(kind, what, expected) for kind, what, expected in page_steps((REPOSITORY / page).read_text())
            if kind in ("file", "command")]


def play(page, cache):
    """Seconds of each command of ``page`` in a new folder, numba's cache under ``cache``."""
    env = {key: value for key, value in os.environ.items() if key not in ("NUMBA_CACHE_DIR", "SIMCORE_CHECK_LEGAL")}
    env["XDG_CACHE_HOME"] = str(cache)
    seconds = []
    with tempfile.TemporaryDirectory() as folder:
        for kind, what, text in steps(page):
            if kind == "file":
                (Path(folder) / what).write_text(text)
                continue
            start = time.perf_counter()
            subprocess.run([sys.executable, "-P", "-m", "simcore", *what[1:]], cwd=folder, env=env, check=True,
                           capture_output=True)
            seconds.append((" ".join(what), time.perf_counter() - start))
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", default="docs/tutorial.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        cold = play(args.page, cache)
        warm = play(args.page, cache)
    print(f"{'cold s':>7} {'warm s':>7}  command")
    for (command, c), (_, w) in zip(cold, warm, strict=True):
        print(f"{c:7.1f} {w:7.1f}  {command[:100]}")
    total_cold, total_warm = sum(c for _, c in cold), sum(w for _, w in warm)
    print(f"{total_cold:7.1f} {total_warm:7.1f}  in all: {total_cold - total_warm:.1f} s of compiling")


if __name__ == "__main__":
    main()
