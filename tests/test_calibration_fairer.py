"""Calibration of analyses.fairer: levels over 2,000 simulated replicates, powers against the issue's targets.

Each game has one winner drawn from the seat shares. Paired variants draw their winners with common random
numbers, as two variants run on the same seed do: the winner is the seat whose cumulative-share interval holds
the game's uniform u_i, so a game's winner changes only where the shares moved; with ``rho`` < 1 variant b
reuses a's uniform in a share rho of the games and draws its own in the rest (identical shares and rho = 1 would
give identical games, which tests nothing). A level r passes when r <= alpha + 3 sqrt(alpha (1 - alpha) / R),
as in tests/test_calibration.py. The replicates run as arrays (replicates, games, seats) through the modules'
vectorised cores; ``test_the_cores_are_the_public_functions`` ties the two together.
"""

import math

import numpy as np
import pytest

from analyses.fairer import (
    _imbalance_core,
    _shift_core,
    _within_core,
    fair_within,
    imbalance_change,
    seat_shift,
)
from analyses.seat_change import seat_change

ALPHA = 0.05
R = 2000
GAMES = 300          # per variant, for the levels
TEAMS = ((0, 2), (1, 3))


def max_rate(reps=R, alpha=ALPHA):
    return alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)


def simulate(shares_a, shares_b, games, reps, rng, rho=0.5, paired=True):
    """Points (reps, games, seats) of variants a and b, one winner a game (module docstring)."""
    u_a = rng.random((reps, games))
    if paired:
        u_b = np.where(rng.random((reps, games)) < rho, u_a, rng.random((reps, games)))
    else:
        u_b = rng.random((reps, games))
    out = []
    for shares, u in ((shares_a, u_a), (shares_b, u_b)):
        edges = np.cumsum(shares)
        edges[-1] = 1.0
        out.append(np.eye(len(shares))[np.searchsorted(edges, u, side="right")])
    return out


def by_team(x, teams):
    return x if teams is None else np.stack([x[..., list(t)].sum(axis=-1) for t in teams], axis=-1)


def fair_of(seats, teams):
    return np.full(seats, 1 / seats) if teams is None else np.array([len(t) / seats for t in teams])


LEVEL = {  # name: shares of a, shares of b, rho (None: unpaired), teams
    "fair 2 seats": ((0.5, 0.5), (0.5, 0.5), 0.5, None),
    "fair 4 seats": ((0.25,) * 4, (0.25,) * 4, 0.5, None),
    "fair 4 seats unpaired": ((0.25,) * 4, (0.25,) * 4, None, None),
    "fair 5 seats": ((0.2,) * 5, (0.2,) * 5, 0.8, None),
    "unfair 2 seats": ((0.6, 0.4), (0.6, 0.4), 0.5, None),
    "unfair 4 seats": ((0.35, 0.25, 0.22, 0.18),) * 2 + (0.5, None),
    "unfair 4 seats unpaired": ((0.35, 0.25, 0.22, 0.18),) * 2 + (None, None),
    "fair teams": ((0.3, 0.2, 0.2, 0.3),) * 2 + (0.5, TEAMS),
    "unfair teams": ((0.35, 0.2, 0.2, 0.25),) * 2 + (0.5, TEAMS),
    "unfair teams unpaired": ((0.35, 0.2, 0.2, 0.25),) * 2 + (None, TEAMS),
}
# equally unfair, differently: the imbalance is the same, the seats are not
MIRRORED = {
    "mirrored 2 seats": ((0.6, 0.4), (0.4, 0.6), 0.8, None),
    "mirrored 4 seats": ((0.35, 0.25, 0.22, 0.18), (0.18, 0.22, 0.25, 0.35), 0.8, None),
    "mirrored near fair": ((0.27, 0.25, 0.25, 0.23), (0.23, 0.25, 0.25, 0.27), 0.8, None),
    "mirrored unpaired": ((0.35, 0.25, 0.22, 0.18), (0.18, 0.22, 0.25, 0.35), None, None),
    "mirrored teams": ((0.35, 0.2, 0.2, 0.25), (0.2, 0.35, 0.25, 0.2), 0.8, TEAMS),
}


def _run(case, seed, games=GAMES, reps=R):
    shares_a, shares_b, rho, teams = case
    rng = np.random.default_rng(seed)
    a, b = simulate(np.array(shares_a), np.array(shares_b), games, reps, rng, rho=rho or 0.0, paired=rho is not None)
    return by_team(a, teams), by_team(b, teams), rho is not None, fair_of(len(shares_a), teams)


@pytest.mark.parametrize("name", LEVEL)
def test_seat_shift_and_imbalance_change_hold_their_level(name):
    a, b, paired, fair = _run(LEVEL[name], seed=sum(map(ord, name)))
    shift = _shift_core(a, b, paired, 1 - ALPHA)
    imbalance = _imbalance_core(a - fair, b - fair, paired, 1 - ALPHA)
    rates = {"omnibus": (shift["pvalue"] < ALPHA).mean(),
             "holm (any seat)": (shift["adjusted"].min(axis=-1) < ALPHA).mean(),
             "imbalance": (imbalance["pvalue"] < ALPHA).mean()}
    assert max(rates.values()) <= max_rate(), rates


@pytest.mark.parametrize("name", MIRRORED)
def test_imbalance_change_holds_its_level_when_equally_unfair_differently(name):
    a, b, paired, fair = _run(MIRRORED[name], seed=sum(map(ord, name)))
    rate = (_imbalance_core(a - fair, b - fair, paired, 1 - ALPHA)["pvalue"] < ALPHA).mean()
    assert rate <= max_rate(), rate


@pytest.mark.parametrize("shares, teams, margin", [
    ((0.3, 0.7 / 3, 0.7 / 3, 0.7 / 3), None, 0.05),       # seat 0 on the boundary, the others nearer fair
    ((0.6, 0.4), None, 0.1),                              # both seats on the boundary
    ((0.3, 0.25, 0.25, 0.2), TEAMS, 0.05),                # team (0, 2) at 0.55: on the boundary
])
def test_fair_within_holds_its_level_on_the_boundary(shares, teams, margin):
    rng = np.random.default_rng(len(shares) + int(100 * margin))
    x, _ = simulate(np.array(shares), np.array(shares), 500, R, rng)
    units = by_team(x, teams)
    shown = _within_core(units, fair_of(len(shares), teams), margin, ALPHA)["pvalue"] < ALPHA
    assert shown.mean() <= max_rate(), shown.mean()


def test_fair_within_finds_a_fair_game_fair():
    x, _ = simulate(np.full(4, 0.25), np.full(4, 0.25), 1500, 500, np.random.default_rng(3))
    assert (_within_core(x, np.full(4, 0.25), 0.05, ALPHA)["pvalue"] < ALPHA).mean() >= 0.8


def _powers(shares_a, shares_b, games, reps, seed, teams=None, rho=1.0, old=True):
    a, b, paired, fair = _run((shares_a, shares_b, rho, teams), seed, games=games, reps=reps)
    shift = _shift_core(a, b, paired, 1 - ALPHA)
    imbalance = _imbalance_core(a - fair, b - fair, paired, 1 - ALPHA)
    old = np.mean([seat_change(a[r], b[r], "weakest_seat").pvalue < ALPHA for r in range(reps)]) if old else np.nan
    return {"omnibus": (shift["pvalue"] < ALPHA).mean(), "holm": (shift["adjusted"].min(axis=-1) < ALPHA).mean(),
            "imbalance": ((imbalance["pvalue"] < ALPHA) & (imbalance["estimate"] > 0)).mean(), "seat_change": old}


@pytest.mark.parametrize("base", [(0.25, 0.25, 0.25, 0.25), (0.3, 0.27, 0.23, 0.2)])
def test_a_weakest_seat_drop_of_005_is_found_at_1000_games(base):
    """The issue's target: >= 80% where seat_change finds about 1%. The imbalance test, which also says that b
    is the less fair, is weaker (about half the time from a fair base): D moves little for a 0.05 drop."""
    base = np.array(base)
    weakest = int(np.argmin(base))
    moved = base + 0.05 / 3
    moved[weakest] = base[weakest] - 0.05
    powers = _powers(base, moved, 1000, 400, seed=11)
    assert powers["omnibus"] >= 0.8 and powers["holm"] >= 0.8, powers
    assert powers["imbalance"] >= 0.3, powers
    assert powers["seat_change"] <= 0.2, powers       # the old comparison, on the same games


def test_a_team_edge_from_050_to_060_is_found_at_1000_games():
    powers = _powers((0.25,) * 4, (0.3, 0.2, 0.3, 0.2), 1000, 400, seed=12, teams=TEAMS, old=False)
    assert powers["omnibus"] >= 0.95, powers
    unpaired = _powers((0.25,) * 4, (0.3, 0.2, 0.3, 0.2), 1000, 400, seed=13, teams=TEAMS, rho=None, old=False)
    assert unpaired["omnibus"] >= 0.95, unpaired


def test_the_cores_are_the_public_functions():
    seats_a, seats_b = simulate(np.array([0.35, 0.2, 0.2, 0.25]), np.array([0.3, 0.25, 0.2, 0.25]), 200, 2,
                                np.random.default_rng(6))
    team_a, team_b = by_team(seats_a, TEAMS), by_team(seats_b, TEAMS)
    shift = _shift_core(team_a, team_b, True, 0.9)
    imbalance = _imbalance_core(team_a - 0.5, team_b - 0.5, False, 0.9)
    within = _within_core(team_a, np.full(2, 0.5), 0.05, 0.1)
    for r in range(2):
        public = seat_shift(seats_a[r], seats_b[r], teams=TEAMS, confidence=0.9)
        assert public.pvalue == pytest.approx(shift["pvalue"][r]) and public.low == pytest.approx(shift["low"][r])
        change = imbalance_change(seats_a[r], seats_b[r], paired=False, teams=TEAMS, confidence=0.9)
        assert change.pvalue == pytest.approx(imbalance["pvalue"][r]) and change.se == pytest.approx(imbalance["se"][r])
        assert fair_within(seats_a[r], 0.05, teams=TEAMS, alpha=0.1).pvalue == pytest.approx(within["pvalue"][r])
