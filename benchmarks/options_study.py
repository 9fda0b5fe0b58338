"""What an options study costs and finds, per shipped game: one ``simcore options`` run at the default deals,
on one thread, numba cache warm (issue 55's numbers to write down).

    python benchmarks/options_study.py [--search-deals 60] [--only LABEL]

Each study runs once untimed with 2 deals (it compiles the counted game loop), then once timed as a new
process. Printed per study: the games it played (the baseline and two restrictions of every kind in play from
every seat), the wall time, games a second, and each kind's word with the restricted seat's points forbidden
and preferred. The recommended search is weighed on Der Herr der Wichtel's bribe kinds with fewer deals
(``--search-deals``): at 1,000 deals it would play 33,000 four-seat games of a 1,000-iteration search.
"""

import argparse
import json
import os
import subprocess
import sys
import time

DEALS = 1000
BRIBES = "bribe_number,bribe_ich,bribe_der,no_bribe"
STUDIES = {      # label: the options command's arguments (its deals added)
    "goofspiel greedy": ["goofspiel", "--policy", "greedy"],
    "zwai greedy": ["zwai", "--policy", "greedy"],
    "zwergen greedy": ["zwergen", "--policy", "greedy"],
    "wichtel 4p greedy": ["wichtel", "--set", "players=4", "--policy", "greedy"],
    "skirmish greedy": ["skirmish", "--policy", "greedy"],
    "wichtel 4p ismcts, bribes": ["wichtel", "--set", "players=4", "--policy", "ismcts", "--kinds", BRIBES],
}


def options(args, deals):
    """(seconds, the study's JSON) of one ``simcore options`` process on one thread."""
    command = [sys.executable, "-m", "simcore", "options", *args, "--games", str(deals), "--threads", "1",
               "--json", "--quiet"]
    started = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True,
                          env={**os.environ, "NUMBA_NUM_THREADS": "1"})
    return time.perf_counter() - started, json.loads(done.stdout)["options"]


def games_played(study):
    """The baseline's deals and, per kind in play, two restrictions from every seat."""
    in_play = sum(kind["forbidden"] is not None for kind in study["kinds"])
    return study["deals"] * study["players"] * (1 + 2 * in_play)


def share(side):
    return "-" if side is None else f"{side['share']:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search-deals", type=int, default=60)
    parser.add_argument("--only", choices=sorted(STUDIES), help="One study alone.")
    given = parser.parse_args()
    for label, args in STUDIES.items():
        if given.only and label != given.only:
            continue
        deals = given.search_deals if "ismcts" in args else DEALS
        options(args, 2)        # compiles (and caches) the study's game loop
        seconds, study = options(args, deals)
        games = games_played(study)
        print(f"\n{label}: {deals:,} deals, {games:,} games, {seconds:.1f} s on one thread "
              f"({games / seconds:,.0f} games/s), {study['policy']}")
        for kind in study["kinds"]:
            print(f"  {kind['kind']:<15} forbidden {share(kind['forbidden']):>6}  preferred "
                  f"{share(kind['preferred']):>6}  {kind['word']}")


if __name__ == "__main__":
    main()
