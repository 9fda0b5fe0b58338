"""The Kuhn poker page (docs/how-to/kuhn-poker.md) as a user runs it, timed: ``simcore new-game``, the page's
listings, pip, ``simcore check``. Its figures are the page's "What it cost"; the game compiles cold only if its
cache folder is absent (remove ``~/.cache/simcore/numba-*/game-kuhn_poker-*`` first to time the compile).

    python benchmarks/kuhn_page.py
"""

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.test_kuhn_page import PAGE, walk  # noqa: E402


def main():
    os.environ.pop("SIMCORE_CHECK_LEGAL", None)          # the user's build, not the tests' checked one
    os.chdir(tempfile.mkdtemp())
    env = {**os.environ, "PYTHONPATH": str(Path.cwd() / "site")}
    start = time.perf_counter()
    for kind, what, body in walk(PAGE.read_text(encoding="utf-8")):
        if kind == "file":
            Path(what).write_text(body, encoding="utf-8")
        elif what[0] == "rm":
            for name in what[1:]:
                Path(name).unlink()
        elif what[0] == "pip":
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                            "--target", "site", f"./{what[3]}"], check=True)
        else:
            began = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "simcore", *what[1:]], env=env, capture_output=True,
                                  text=True)
            last = done.stdout.splitlines()[-1] if done.stdout else done.stderr[-300:]
            print(" ".join(what), "->", f"exit {done.returncode},", f"{time.perf_counter() - began:.1f} s:", last)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"wall {time.perf_counter() - start:.1f} s, machine time (user+sys of every process) "
          f"{used.ru_utime + used.ru_stime:.1f} s")


if __name__ == "__main__":
    main()
