"""simcore's Zwai random play against hand-written C, side by side, one thread, end to end.

    python benchmarks/c_oracle/compare.py [--repeats 5] [--small 100000] [--large 1100000]

Each repeat times, in turn, a small and a large run of five programs by wall clock, each writing its rows to a
file: the fastest C we could write (``zwai_fast.c``: bitboards, the k-th card and cell by BMI2's pdep, 26-byte
rows), the same built with one xoshiro256** stream a game (``-DXOSHIRO``: the issue's yardstick, other games) and
the C oracle (``zwai.c``: the same games laid out as simcore lays them), all built here with ``gcc -O2
-march=native``, as numba compiles for this machine too; ``simcore run zwai --games N --threads 1 --quiet --out
FILE.parquet``; and the oracle transcribed into numba (``python -m benchmarks.c_oracle.zwai_numba``), which
splits the gap into numba's part and simcore's. A side's rate is its extra games over its extra seconds between
the small and the large run, so start-up, imports and loading compiled code cancel out. Prints each side's
median rate and the median of the per-repeat ratios to the fastest C.
All but the xoshiro build play the same games (tests/test_c_oracle.py).
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ORACLE = Path(__file__).with_name("zwai.c")
FASTEST = Path(__file__).with_name("zwai_fast.c")
REPOSITORY = Path(__file__).resolve().parents[2]


def build(folder, source=ORACLE, *defines):
    """Compile ``source`` (the oracle, or the fastest C) into ``folder``, with ``defines`` (``-DXOSHIRO``); return
    the binary's path."""
    binary = Path(folder) / (source.stem + "".join(d.lower().replace("-d", "_") for d in defines))
    subprocess.run(["gcc", "-O2", "-march=native", *defines, "-o", str(binary), str(source)], check=True)
    return binary


def rate(command, small, large, repeats=5):
    """Median games a second of ``command(n)`` (its argument list for ``n`` games) over ``repeats`` pairs of
    runs: the extra games of the large run over its extra seconds."""
    rates = [(large - small) / (seconds(command(large)) - seconds(command(small))) for _ in range(repeats)]
    return statistics.median(rates)


def seconds(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPOSITORY)
    return time.perf_counter() - start


def commands(binaries, folder, n):
    """name -> the command playing ``n`` games of seed 1 on one thread."""
    fastest, xoshiro, oracle = binaries
    return {"fastest C": [str(fastest), str(n), "1", str(Path(folder) / "fast.rows")],
            "fastest C, xoshiro streams": [str(xoshiro), str(n), "1", str(Path(folder) / "xoshiro.rows")],
            "C oracle": [str(oracle), str(n), "1", str(Path(folder) / "c.rows")],
            "simcore": [sys.executable, "-m", "simcore", "run", "zwai", "--games", str(n), "--seed", "1",
                        "--threads", "1", "--quiet", "--out", str(Path(folder) / f"simcore-{n}.parquet")],
            "numba transcription": ["env", "NUMBA_NUM_THREADS=1", sys.executable, "-m",
                                    "benchmarks.c_oracle.zwai_numba", str(n), "1", str(Path(folder) / "numba.rows")]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--small", type=int, default=100_000)
    parser.add_argument("--large", type=int, default=1_100_000)
    args = parser.parse_args()
    extra = args.large - args.small
    with tempfile.TemporaryDirectory() as folder:
        binaries = build(folder, FASTEST), build(folder, FASTEST, "-DXOSHIRO"), build(folder, ORACLE)
        small, large = commands(binaries, folder, args.small), commands(binaries, folder, args.large)
        for name in small:
            seconds(small[name])           # numba's cache loaded (or compiled) before any timing
        rates = {name: [] for name in small}
        for _ in range(args.repeats):
            for name in small:
                rates[name].append(extra / (seconds(large[name]) - seconds(small[name])))
            print(", ".join(f"{name} {r[-1]:,.0f}" for name, r in rates.items()) + " games/s", flush=True)
    c = rates["fastest C"]
    for name, r in rates.items():
        ratio = statistics.median(x / y for x, y in zip(r, c, strict=True))
        print(f"{name}: median {statistics.median(r):,.0f} games/s, {ratio:.2f} x the fastest C (median of "
              f"{args.repeats} ratios)")


if __name__ == "__main__":
    main()
