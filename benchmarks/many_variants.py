"""A sweep of many small variants: variants a second near its start and near its end.

Issue 36: a 17,640-variant sweep slowed from 53 to 7 variants a second after about 1,450 variants, because the
whole manifest was rewritten after every variant. Each finished variant is now one line appended to the
manifest's journal, and the manifest is rewritten every few seconds and at the end, so the rate holds.

    python benchmarks/many_variants.py --variants 3000
"""

import argparse
import tempfile
import time
from pathlib import Path

from simcore.studies import sweep


def sweep_file(path, variants, games):
    """A sweep of ``variants`` Goofspiel variants of ``games`` games each (every variant a config of its own)."""
    lines = [f'game = "goofspiel"\ngames = {games}\n']
    lines += [f'[[variants]]\nname = "v{i}"\nnum_cards = {4 + i % 10}\n' for i in range(variants)]
    path.write_text("".join(lines))


def measure(variants, games):
    """Variants a second over the first and the last tenth of the sweep."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "many.toml"
        sweep_file(path, variants, games)
        plan = sweep.load(path)
        stamps = [time.perf_counter()]
        sweep.run(plan, Path(folder) / "out", on_variant=lambda variant, status, tally: stamps.append(
            time.perf_counter()))
    tenth = variants // 10
    return tenth / (stamps[tenth] - stamps[0]), tenth / (stamps[-1] - stamps[-1 - tenth])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=3000)
    parser.add_argument("--games", type=int, default=2)
    args = parser.parse_args()
    first, last = measure(args.variants, args.games)
    print(f"{args.variants:,} variants of {args.games} games: {first:.1f} variants/s over the first tenth, "
          f"{last:.1f} over the last")


if __name__ == "__main__":
    main()
