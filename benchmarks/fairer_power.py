"""Level and power of analyses.fairer against analyses.seat_change, on simulated one-winner games.

    .venv/bin/python benchmarks/fairer_power.py [--reps 400]

Variant b's winners are drawn with a's uniforms (common random numbers: a game's winner changes only where the
shares moved; rho is the share of games that reuse a's uniform, "-" for unpaired runs). Columns: the rate at
which each test rejects at 5%: seat_shift's omnibus T^2, its per-seat tests with Holm (any seat),
imbalance_change (rejecting in the right direction; in the level rows, either direction), "closed": the word
"fairer"/"less fair" as the verdict says it, only within a move T^2 shows (closed testing; in the level rows:
any difference word, the move or the change), and seat_change
(weakest seat, and gap), the old comparison on the same games (on the seats' points, teams or not); "plan" is
games_needed's games for the edge (Bonferroni per seat, with the paired correlation measured on the first
replicate's moved seat), blank for the level rows.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analyses.fairer import _imbalance_core, _shift_core, _within_core, games_needed  # noqa: E402
from analyses.seat_change import seat_change  # noqa: E402
from tests.test_calibration_fairer import simulate as simulated  # noqa: E402

ALPHA = 0.05
TEAMS = ((0, 2), (1, 3))


def simulate(shares_a, shares_b, games, reps, rng, rho):
    """The calibration test's games (tests/test_calibration_fairer.py); ``rho`` None: unpaired runs."""
    return simulated(shares_a, shares_b, games, reps, rng, rho=0.0 if rho is None else rho, paired=rho is not None)


def drop(base, d):
    base = np.array(base, float)
    weakest = int(np.argmin(base))
    moved = base + d / (len(base) - 1)
    moved[weakest] -= d + d / (len(base) - 1)
    return base, moved


def row(label, shares_a, shares_b, games, reps, rng, rho=1.0, teams=None, direction=0, edge=None):
    a, b = simulate(np.asarray(shares_a, float), np.asarray(shares_b, float), games, reps, rng, rho)
    old = {m: np.mean([seat_change(a[r], b[r], m).pvalue < ALPHA for r in range(reps)])
           for m in ("weakest_seat", "gap")}        # on the seats' points, as the old comparison sees them
    if teams is not None:
        a, b = (np.stack([x[..., list(t)].sum(axis=-1) for t in teams], axis=-1) for x in (a, b))
        fair = np.array([len(t) / len(shares_a) for t in teams])
    else:
        fair = np.full(len(shares_a), 1 / len(shares_a))
    paired = rho is not None
    shift = _shift_core(a, b, paired, 1 - ALPHA)
    imbalance = _imbalance_core(a - fair, b - fair, paired, 1 - ALPHA)
    found = imbalance["pvalue"] < ALPHA
    if direction:
        found &= np.sign(imbalance["estimate"]) == direction
    closed = found & (shift["pvalue"] < ALPHA) if direction else shift["pvalue"] < ALPHA
    plan = ""
    if edge is not None:
        moved = int(np.argmax(np.abs(b[0].mean(axis=0) - a[0].mean(axis=0))))
        rho_hat = np.corrcoef(a[0][:, moved], b[0][:, moved])[0, 1] if paired else 0.0
        plan = games_needed(edge, a.shape[-1], paired_correlation=float(np.clip(rho_hat, -1, 1))).games
    print(f"{label:<44} {games:>5} {'-' if rho is None else rho:>4} {(shift['pvalue'] < ALPHA).mean():>8.3f} "
          f"{(shift['adjusted'].min(axis=-1) < ALPHA).mean():>6.3f} {found.mean():>9.3f} {closed.mean():>6.3f} "
          f"{old['weakest_seat']:>8.3f} {old['gap']:>6.3f} {plan:>6}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=400)
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    start = time.perf_counter()
    print(f"{'case':<44} {'games':>5} {'rho':>4} {'omnibus':>8} {'holm':>6} {'imbalance':>9} {'closed':>6} "
          f"{'weakest':>8} {'gap':>6} {'plan':>6}")
    print("-- level (H0 true), 1000 replicates")
    unfair = (0.35, 0.25, 0.22, 0.18)
    row("fair 4 seats", (0.25,) * 4, (0.25,) * 4, 1000, 1000, rng, rho=0.5)
    row("fair 4 seats unpaired", (0.25,) * 4, (0.25,) * 4, 1000, 1000, rng, rho=None)
    row("unfair 4 seats, equal", unfair, unfair, 1000, 1000, rng, rho=0.5)
    row("unfair 4 seats, mirrored (imbalance only)", unfair, unfair[::-1], 1000, 1000, rng, rho=0.8)
    row("teams fair", (0.3, 0.2, 0.2, 0.3), (0.3, 0.2, 0.2, 0.3), 1000, 1000, rng, rho=0.5, teams=TEAMS)
    print(f"-- power, {args.reps} replicates (imbalance: 'less fair' found)")
    for d in (0.03, 0.05, 0.08):
        for games in (300, 1000, 3000):
            row(f"fair 4 seats, weakest -{d}", *drop((0.25,) * 4, d), games, args.reps, rng, direction=1, edge=d)
    for games in (300, 1000, 3000):
        row("unfair base (.3,.27,.23,.2), weakest -0.05", *drop((0.3, 0.27, 0.23, 0.2), 0.05), games, args.reps,
            rng, direction=1, edge=0.05)
    row("weakest -0.05, unpaired", *drop((0.25,) * 4, 0.05), 1000, args.reps, rng, rho=None, direction=1, edge=0.05)
    # the pairing real games show between Zwai variants (0.17 to 0.20), where the rows above pair at about 0.86
    for games in (1000, 3000):
        row("fair 4 seats, weakest -0.05, real pairing", *drop((0.25,) * 4, 0.05), games, args.reps, rng, rho=0.2,
            direction=1, edge=0.05)
        row("unfair base, weakest -0.05, real pairing", *drop((0.3, 0.27, 0.23, 0.2), 0.05), games, args.reps, rng,
            rho=0.2, direction=1, edge=0.05)
    row("fairer: weakest +0.05 back to fair", *drop((0.25,) * 4, 0.05)[::-1], 1000, args.reps, rng, direction=-1)
    row("team 0.50 -> 0.56", (0.25,) * 4, (0.28, 0.22, 0.28, 0.22), 3000, args.reps, rng, teams=TEAMS, direction=1)
    row("team 0.50 -> 0.56 unpaired", (0.25,) * 4, (0.28, 0.22, 0.28, 0.22), 3000, args.reps, rng, rho=None,
        teams=TEAMS, direction=1)
    row("team 0.50 -> 0.60", (0.25,) * 4, (0.3, 0.2, 0.3, 0.2), 1000, args.reps, rng, teams=TEAMS, direction=1)
    print("-- fair_within, margin 0.05, 4 seats, 1000 replicates: P(fair within shown)")
    for label, shares in (("boundary: seat 0 at 0.30 (level)", (0.3,) + (0.7 / 3,) * 3),
                          ("exactly fair (power)", (0.25,) * 4)):
        for games in (500, 1000, 2000):
            x, _ = simulate(np.array(shares), np.array(shares), games, 1000, rng, 1.0)
            shown = (_within_core(x, np.full(4, 0.25), 0.05, ALPHA)["pvalue"] < ALPHA).mean()
            print(f"{label:<44} {games:>5} {shown:>8.3f}")
    print(f"games_needed(0.05, 4, test='fair_within'): {games_needed(0.05, 4, test='fair_within').games}")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
