"""Start-up time of the simcore command, numba cache warm: median wall time of fresh processes.

    python benchmarks/startup.py [--repeats 7]

Measures ``simcore games`` (imports only) and ``simcore run zwai --games 1000`` (imports, loading the
compiled game from the cache, 1000 games, the summary), each as a new process, after one warm-up run.
"""

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "simcore games": ["games"],
    "simcore run zwai --games 1000": ["run", "zwai", "--games", "1000"],
}


def wall_seconds(args, repeats):
    command = [sys.executable, "-m", "simcore", *args]
    subprocess.run(command, check=True, capture_output=True)   # warm-up: fills the numba cache
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times), min(times), max(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    repeats = parser.parse_args().repeats
    for name, args in COMMANDS.items():
        median, low, high = wall_seconds(args, repeats)
        print(f"{name:<32} median {median:.2f} s   (min {low:.2f}, max {high:.2f}, {repeats} runs)")


if __name__ == "__main__":
    main()
