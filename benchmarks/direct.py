"""Play through the decision interface against the direct path it replaced: games per second, one thread.

    python benchmarks/direct.py [--games-scale 1.0] [--repeats 5] [--case zwai-2p-random ...]

Before the decision interface each game played random and greedy games in a loop of its own (the "direct
path"); DIRECT is the last commit with those loops. The script checks that commit out into a temporary git
worktree (so it needs this repository's history) and times every case with this checkout and with that one, the
two alternating as separate processes, so that a change of machine load hits both alike. A process times
``engine.run`` on one numba thread by CPU time, after a warm-up that also compiles. Per case it prints both rates
(the median of the repeats) and the median of the pairwise ratios. Both sides play the same games: the rows are
equal (tests/test_*_interface.py).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

DIRECT = "ba8e456"            # "Games cite their rulebooks ...": the last commit before the interface
REPOSITORY = Path(__file__).resolve().parents[1]

# name -> (game, --set pairs, policy, games per timing)
CASES = {
    "zwai-2p-random": ("zwai", (), "random", 200_000),
    "zwai-2p-greedy": ("zwai", (), "greedy", 50_000),
    "zwergen-2p-random": ("zwergen", (), "random", 100_000),
    "zwergen-2p-greedy": ("zwergen", (), "greedy", 50_000),
    "wichtel-4p-random": ("wichtel", (), "random", 50_000),
    "wichtel-4p-greedy": ("wichtel", (), "greedy", 20_000),
    "skirmish-lms-random": ("skirmish", (), "random", 20_000),
    "skirmish-lms-greedy": ("skirmish", (), "greedy", 20_000),
}

TIMER = """
import sys, time, numba
from simcore.io import config as cfg
from simcore import engine
numba.set_num_threads(1)
game, sets, policy, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
pairs = [cfg.parse_assignment(s) for s in sets.split(";") if s]
run = cfg.resolve(game, sets=pairs, policies=[("all", policy)])
params, policies = run.params_array(), run.policies_array()
engine.run(run.module, params, policies, 1, 200)
started = time.process_time()
engine.run(run.module, params, policies, 2, n)
print(n / (time.process_time() - started))
"""


def rate(source, case, scale):
    game, sets, policy, games = CASES[case]
    env = {**os.environ, "PYTHONPATH": str(source), "NUMBA_NUM_THREADS": "1"}
    args = [game, ";".join(sets), policy, str(max(1, int(games * scale)))]
    out = subprocess.run([sys.executable, "-c", TIMER, *args], env=env, cwd=tempfile.gettempdir(), check=True,
                         capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def compare(direct, case, repeats, scale):
    rate(direct, case, scale / 20)          # warm-up: compiles both sides into their caches
    rate(REPOSITORY, case, scale / 20)
    pairs = [(rate(direct, case, scale), rate(REPOSITORY, case, scale)) for _ in range(repeats)]
    old, new = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
    ratio = statistics.median(b / a for a, b in pairs)
    print(f"{case:<22} direct {old:>10,.0f}   interface {new:>10,.0f} games/s   ratio {ratio:.2f}x", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games-scale", type=float, default=1.0, help="Scale every case's games.")
    parser.add_argument("--case", action="append", choices=list(CASES), help="Cases to run (default: all).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        direct = Path(scratch) / "direct"
        subprocess.run(["git", "-C", str(REPOSITORY), "worktree", "add", "--detach", "-q", str(direct), DIRECT],
                       check=True)
        try:
            for case in args.case or CASES:
                compare(direct, case, args.repeats, args.games_scale)
        finally:
            subprocess.run(["git", "-C", str(REPOSITORY), "worktree", "remove", "--force", str(direct)], check=True)


if __name__ == "__main__":
    main()
