"""``simcore sweep --until-decided``: its levels and power on synthetic games, and the Zwai formations against a
fixed run of 20,000 games a variant.

    .venv/bin/python benchmarks/until_decided.py tails [--reps 1000000]
    .venv/bin/python benchmarks/until_decided.py levels [--reps 20000]
    .venv/bin/python benchmarks/until_decided.py power [--reps 2000]
    .venv/bin/python benchmarks/until_decided.py zwai [--out runs/until-decided-benchmark]

``tails``: one look's false "unbalanced" rate at the small levels a look is held to, over its level, for the
score form of T² the looks use and for the usual T² (covariance about the mean), both referred to F. ``levels``:
the false verdict rates of the calibration test (tests/test_calibration_until_decided.py) at more
replicates. ``power``: the default plan (looks at 1,000 to 20,000 games, E = 0.02, the error shared by 27 variants)
on one synthetic variant of each truth: how often each verdict is reached, the games it took on average, and the
fixed run of 20,000 games at the same per-variant error (alpha / 27, one look) for comparison. ``zwai``: plays
configs/zwai-formations.toml until decided (cap 20,000) and fixed at 20,000 games into ``--out`` (a folder played
before resumes, playing nothing) and compares each variant's verdict with the fixed run's: analyze's balance verdict
("Unbalanced" or "No seat edge found", the gap test with Holm across the 27) and ``fair_within`` at 20,000 games
(alpha / 27 a variant, as analyze holds it), and the games each played.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analyses import fairer, sequential  # noqa: E402
from tests.test_calibration_until_decided import (  # noqa: E402
    FAIR,
    TEAMS,
    at_margin,
    drop,
    family,
    kinds,
    look_moments,
    margin_variants,
    procedure,
)

ROOT = Path(__file__).resolve().parents[1]
SWEEP = ROOT / "configs" / "zwai-formations.toml"
CAP, FIRST = 20000, 1000


TAILS = {
    "5 seats": kinds([0.2] * 5),
    "5 seats, 15% shared, 5% nobody": kinds([0.2] * 5, shared=0.15, nobody=0.05),
    "4 seats, 10% shared, 10% nobody": kinds([0.25] * 4, shared=0.1, nobody=0.1),
    "2 seats": kinds([0.5, 0.5]),
    "teams of 2, 10% nobody": kinds([0.5, 0.5], nobody=0.1, teams=TEAMS),
}


def usual_t2_pvalues(n, d, m):
    """Hotelling's T² with the covariance about the sample mean (m - d d' is its plug-in), referred to F."""
    from scipy import special

    w, vec = np.linalg.eigh(m - d[..., :, None] * d[..., None, :])
    kept = w > 1e-10 * w.max(axis=-1, keepdims=True)
    proj = np.einsum("...ki,...k->...i", vec, d)
    p = kept.sum(axis=-1)
    t2 = (n - 1) * np.where(kept, proj ** 2 / np.where(kept, w, 1.0), 0.0).sum(axis=-1)
    return special.fdtrc(p, n - p, t2 * (n - p) / (p * (n - 1)))


def tails(reps):
    rng = np.random.default_rng(3)
    small = np.array([3.1e-4, 1.7e-3])
    print(f"| fair game | games | score form T² (ours): rate / level at {small[0]:g}, {small[1]:g} | usual T² |")
    print("|---|---:|---:|---:|")
    for name, variant in TAILS.items():
        for n in (100, 1000):
            ours, usual = np.zeros(2), np.zeros(2)
            for done in range(0, reps, 200_000):
                counts = rng.multinomial(n, variant[0], size=min(200_000, reps - done))
                moments = look_moments(counts, variant)
                ours += (sequential.look_pvalues(*moments, 0.02)[0][:, None] < small).sum(axis=0)
                usual += (usual_t2_pvalues(*moments)[:, None] < small).sum(axis=0)
            print(f"| {name} | {n:,} | {' / '.join(f'{r:.2f}' for r in ours / reps / small)} | "
                  f"{' / '.join(f'{r:.2f}' for r in usual / reps / small)} |", flush=True)


def levels(reps):
    rng = np.random.default_rng(1)
    for first, cap in ((100, 1600), (1000, CAP)):
        plan = sequential.plan(first, cap, fairer.DEFAULT_MARGIN, len(FAIR))
        unbalanced = (family(rng, FAIR.values(), plan, reps) & 1) > 0
        print(f"fair variants ({len(FAIR)}), looks {first:,} to {cap:,}: any called unbalanced "
              f"{unbalanced.any(axis=0).mean():.4f}; per variant {np.round(unbalanced.mean(axis=1), 4).tolist()} "
              f"(its share {plan.alpha / plan.variants:.4f})")
    for margin, first, cap in ((0.1, 100, 1600), (0.02, FIRST, CAP)):
        variants = margin_variants(margin)
        plan = sequential.plan(first, cap, margin, len(variants))
        fair = (family(rng, variants, plan, reps) & 2) > 0
        print(f"a unit at fair +- {margin} ({len(variants)} variants), looks {first:,} to {cap:,}: any called fair "
              f"within {margin} {fair.any(axis=0).mean():.4f}")


POWER = {   # truth: one synthetic variant
    "4 seats, fair": kinds([0.25] * 4),
    "4 seats, seat 0 at -0.005": drop(4, 0.005),
    "4 seats, seat 0 at -0.01": drop(4, 0.01),
    "4 seats, seat 0 at -0.02": drop(4, 0.02),
    "4 seats, seat 0 at -0.03": drop(4, 0.03),
    "4 seats, seat 0 at -0.05": drop(4, 0.05),
    "2 seats, fair, 10% nobody wins": kinds([0.5, 0.5], nobody=0.1),
    "2 seats, seat 0 at +0.01": at_margin(2, 0.01),
    "2 seats, seat 0 at +0.02": at_margin(2, 0.02),
    "3 seats, fair, 10% shared": kinds([1 / 3] * 3, shared=0.1),
    "teams of 2, fair": kinds([0.5, 0.5], teams=TEAMS),
    "teams of 2, team 0 at +0.03": at_margin(4, 0.03, teams=TEAMS),
}


def power(reps):
    plan = sequential.plan(FIRST, CAP, fairer.DEFAULT_MARGIN, 27)
    fixed = sequential.plan(CAP, CAP, fairer.DEFAULT_MARGIN, 27)
    rng = np.random.default_rng(2)
    print(f"plan: looks {', '.join(f'{n:,}' for n in plan.looks)}; E = {plan.margin}; 27 variants; levels "
          f"{', '.join(f'{a:.2g}' for a in plan.levels)} (fixed run: {fixed.levels[0]:.2g} at {CAP:,})")
    print("| truth | unbalanced | fair within 0.02 | both | undecided | mean games | fixed 20,000: unbalanced / fair "
          "within |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, variant in POWER.items():
        code, games = procedure(rng, reps, variant, plan)
        counts = rng.multinomial(CAP, variant[0], size=reps)
        at_cap = sequential.verdict_codes(*sequential.look_pvalues(*look_moments(counts, variant), fixed.margin),
                                          fixed.levels[0])
        print(f"| {name} | {(code == 1).mean():.3f} | {(code == 2).mean():.3f} | {(code == 3).mean():.3f} | "
              f"{(code == 0).mean():.3f} | {games.mean():,.0f} | {((at_cap & 1) > 0).mean():.3f} / "
              f"{((at_cap & 2) > 0).mean():.3f} |")


def zwai(out):
    from analyses import data, report
    from analyses.balance import find_teams
    from simcore.studies import sweep

    out = Path(out)
    started = time.perf_counter()
    plan = sweep.load(SWEEP, games=CAP)
    looks = sweep.until_decided_plan(plan, fairer.DEFAULT_MARGIN, FIRST)
    status = sweep.run_until_decided(plan, out / "until-decided", looks)
    until_s = time.perf_counter() - started
    started = time.perf_counter()
    sweep.run(plan, out / "fixed")
    fixed_s = time.perf_counter() - started
    results = data.load_folder(out / "fixed")
    balance = report.analyze(results).verdicts
    print("| variant | until decided | games | fixed 20,000: balance | fair within 0.02 | agree |")
    print("|---|---|---:|---|---|---|")
    agree = 0
    for r in results:
        verdict, games = status[r.name]
        teams = find_teams(r.wins)
        within = fairer.fair_within(r.points, fairer.DEFAULT_MARGIN, teams if len(teams[0]) > 1 else None,
                                    alpha=sequential.ALPHA / len(results)).shown
        unbalanced = balance[r.name].unbalanced
        same = _agrees(verdict, unbalanced, within)
        agree += same
        print(f"| {r.name} | {verdict} | {games:,} | {'Unbalanced' if unbalanced else 'No seat edge found'} | "
              f"{'shown' if within else 'not shown'} | {'yes' if same else 'NO'} |")
    total = sum(games for _, games in status.values())
    print(f"\n{agree} of {len(results)} agree; games: until decided {total:,}, fixed {CAP * len(results):,} "
          f"(ratio {total / (CAP * len(results)):.3f}); wall time {until_s:.0f} s and {fixed_s:.0f} s "
          "(a folder played before resumes: 0 s)")


def _agrees(verdict, unbalanced, within):
    """Does the sequential verdict say what the fixed run says? Each verdict it reached must be the fixed run's;
    undecided agrees with a fixed run that shows neither."""
    if verdict == sequential.UNDECIDED:
        return not unbalanced and not within
    return (unbalanced or verdict not in (sequential.UNBALANCED, sequential.BOTH)) and \
        (within or verdict not in (sequential.FAIR, sequential.BOTH))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("tails", "levels", "power", "zwai"))
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--out", default=str(ROOT / "runs" / "until-decided-benchmark"))
    args = parser.parse_args()
    if args.what == "tails":
        tails(args.reps or 1_000_000)
    elif args.what == "levels":
        levels(args.reps or 20000)
    elif args.what == "power":
        power(args.reps or 2000)
    else:
        zwai(args.out)


if __name__ == "__main__":
    main()
