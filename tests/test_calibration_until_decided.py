"""Calibration of ``sweep --until-decided`` (analyses/sequential.py): its false verdicts over every look and
every variant, by simulation of the whole procedure on synthetic games whose truth is known.

A synthetic variant is a set of *kinds* of game (one seat or team wins, two seats share a win, nobody wins), each
with its probability and win flags; its points (``analyses.scoring.points``) give every unit (seat or team) a
known share. Each replicate draws the kinds' counts look by look (a multinomial of the games added), which fixes
the look's moments exactly as the games themselves would (``test_the_moments_of_counted_kinds_are_the_games``),
so a replicate costs a few numbers a look, not a file. The procedure is the sweep's: at each look
``look_pvalues`` and ``verdict_codes`` at the plan's levels, a variant stopping at its first verdict. A rate passes
at its nominal alpha + 3 binomial standard errors over R replicates (tests/test_calibration.py).
"""

import itertools
import math

import numpy as np
import pytest

from analyses import fairer, sequential
from analyses.scoring import points

R = 2000
ALPHA = 0.05
TEAMS = ((0, 2), (1, 3))


def max_rate(reps=R, alpha=ALPHA):
    return alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)


# --- synthetic variants -----------------------------------------------------------------------------------------


def kinds(shares, shared=0.0, nobody=0.0, pair=None, teams=None):
    """``(probabilities, win flags, teams)`` of a variant's kinds of game whose units take ``shares`` of the points:
    a ``shared`` share of the games won by two seats (every pair alike, or always ``pair``), a ``nobody`` share
    won by nobody, the rest by one unit (a team wins with all its seats), drawn so the shares come out exact."""
    seats = len(shares) if teams is None else sum(map(len, teams))
    flags, probs = [], []
    pairs = [pair] if pair else list(itertools.combinations(range(seats), 2))
    for a, b in pairs if shared else ():
        flags.append(np.isin(np.arange(seats), (a, b)))
        probs.append(shared / len(pairs))
    if nobody:
        flags.append(np.zeros(seats, bool))
        probs.append(nobody)
    rest = np.asarray(shares, float) - (units_of(np.array(flags), teams).T @ probs if flags else 0.0)
    for unit, team in enumerate(teams or [(s,) for s in range(seats)]):
        flags.append(np.isin(np.arange(seats), team))
        probs.append(rest[unit])        # a team's win is 1 point for the team (1/size for each of its seats)
    probs = np.array(probs)
    assert (probs >= 0).all() and math.isclose(probs.sum(), 1.0), "shares not reachable with these kinds"
    return probs, np.array(flags), teams


def units_of(flags, teams):
    """Each kind's points per unit (kinds, units)."""
    return fairer._units(np.vstack([points(flags)] * 2), teams)[0][:len(flags)]


def at_margin(seats, margin, sign=1, teams=None, **kw):
    """A variant whose unit 0 takes fair + sign * margin, the others sharing the rest alike."""
    units = seats if teams is None else len(teams)
    fair = 1 / units
    return kinds([fair + sign * margin] + [fair - sign * margin / (units - 1)] * (units - 1), teams=teams, **kw)


def drop(seats, edge, **kw):
    """Seat 0 takes ``edge`` less than fair, the others sharing the rest alike."""
    return at_margin(seats, edge, -1, **kw)


def look_moments(counts, variant):
    """``(n, d, m)`` of ``sequential.look_pvalues`` from the counts (..., kinds) of a variant's kinds."""
    _, flags, teams = variant
    units = units_of(flags, teams)
    z = units - fairer._fair(units.shape[1], teams, flags)
    n = counts.sum(axis=-1)
    d = counts @ z / n[..., None]
    m = np.einsum("...c,ckl->...kl", counts, z[:, :, None] * z[:, None, :]) / n[..., None, None]
    return n, d, m


def procedure(rng, reps, variant, plan):
    """The sweep's looks at ``reps`` replicates of one variant: ``(verdict code at the stop, games at the stop)``,
    code 0 for undecided at the cap (``sequential.verdict_codes``)."""
    probs = variant[0]
    counts = np.zeros((reps, len(probs)), np.int64)
    code, games = np.zeros(reps, int), np.full(reps, plan.looks[-1])
    before = 0
    for n, level in zip(plan.looks, plan.levels, strict=True):
        counts += rng.multinomial(n - before, probs, size=reps)
        before = n
        found = sequential.verdict_codes(*sequential.look_pvalues(*look_moments(counts, variant), plan.margin), level)
        new = (code == 0) & (found > 0)
        code[new], games[new] = found[new], n
    return code, games


def family(rng, variants, plan, reps=R):
    """Codes (variants, reps) of every variant of a sweep, each replicate one sweep."""
    return np.array([procedure(rng, reps, v, plan)[0] for v in variants])


FAIR = {   # fair variants: 2 to 5 seats, teams, shared wins (on any pair, or always the same one), nobody winning
    "2 seats, 10% nobody wins": kinds([0.5, 0.5], nobody=0.1),
    "3 seats, 10% shared, 5% nobody": kinds([1 / 3] * 3, shared=0.1, nobody=0.05),
    "4 seats, 10% shared, 10% nobody": kinds([0.25] * 4, shared=0.1, nobody=0.1),
    "5 seats": kinds([0.2] * 5),
    "5 seats, 15% shared, 5% nobody": kinds([0.2] * 5, shared=0.15, nobody=0.05),
    "teams of 2, 10% nobody": kinds([0.5, 0.5], nobody=0.1, teams=TEAMS),
    "4 seats, 20% shared always by seats 0 and 1": kinds([0.25] * 4, shared=0.2, pair=(0, 1)),
}


def margin_variants(margin):
    """Variants with a unit exactly at fair +- ``margin``: "fair within margin" is false for each."""
    return [at_margin(2, margin, nobody=0.1), at_margin(3, margin, -1, shared=0.1),
            at_margin(4, margin, shared=0.1, nobody=0.1), at_margin(4, margin, -1),
            at_margin(5, margin, -1, shared=0.1), at_margin(4, margin, nobody=0.1, teams=TEAMS)]


# --- the simulation is the procedure ------------------------------------------------------------------------------


def test_the_moments_of_counted_kinds_are_the_games():
    """Counted kinds give the look the p-values its games give, through ``sequential.look`` (win flags, teams found
    from them), and its TOST is ``analyses.fairer.fair_within``'s on the same games."""
    rng = np.random.default_rng(1)
    plan = sequential.plan(100, 400, 0.05, 1)
    for variant in (kinds([0.3, 0.25, 0.25, 0.2], shared=0.1, nobody=0.1), kinds([0.56, 0.44], nobody=0.1,
                                                                                  teams=TEAMS)):
        probs, flags, teams = variant
        counts = rng.multinomial(400, probs)
        wins = rng.permutation(np.repeat(flags, counts, axis=0))
        games = sequential.look(wins, plan, 2)
        counted = sequential.look_pvalues(*look_moments(counts, variant), plan.margin)
        assert games.teams == teams
        assert np.allclose([games.unbalanced_p, games.fair_p], counted, rtol=1e-9, atol=1e-300)
        assert np.isclose(games.fair_p, fairer.fair_within(points(wins), plan.margin, teams).pvalue, rtol=1e-9)
        assert np.allclose(games.share, units_of(flags, teams).T @ counts / 400)


# --- levels -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("first, cap", [(100, 1600), (1000, 20000)])
def test_false_unbalanced_over_every_look_and_variant(first, cap):
    """Seven fair variants played until decided: any of them called unbalanced at any look, at most 5% (+3 SE);
    each variant's own rate within its share alpha / 7 (+3 SE). Measured (R = 20,000, benchmarks/until_decided.py
    levels): 0.045 at 100 to 1,600 games, 0.031 at 1,000 to 20,000; the usual T² (covariance about the mean) at
    alpha / (variants x looks) a look gave 0.062 at 100 to 1,600."""
    plan = sequential.plan(first, cap, 0.02, len(FAIR))
    codes = family(np.random.default_rng(first), FAIR.values(), plan)
    unbalanced = (codes & 1) > 0
    assert unbalanced.any(axis=0).mean() <= max_rate()
    assert (unbalanced.mean(axis=1) <= max_rate(alpha=plan.alpha / plan.variants)).all()


@pytest.mark.parametrize("margin, first, cap", [(0.1, 100, 1600), (0.02, 1000, 20000)])
def test_false_fair_within_at_the_margin(margin, first, cap):
    """Six variants with a unit exactly at fair +- E, 2 to 5 seats, teams, shared wins: any called fair within E
    at any look, at most 5% (+3 SE). Measured (R = 20,000): 0.012 and 0.022 (most stop as unbalanced first,
    rightly: their edge is real)."""
    variants = margin_variants(margin)
    plan = sequential.plan(first, cap, margin, len(variants))
    codes = family(np.random.default_rng(int(margin * 100)), variants, plan)
    assert ((codes & 2) > 0).any(axis=0).mean() <= max_rate()


def test_the_error_is_shared_by_the_looks_and_variants():
    """The levels of the looks: alpha / variants spent over the looks in proportion to their games (the union
    bound the module docstring argues)."""
    plan = sequential.plan(1000, 20000, 0.02, 27)
    assert plan.looks == (1000, 2000, 4000, 8000, 16000, 20000)
    assert math.isclose(sum(plan.levels) * 27, ALPHA)
    assert np.allclose(np.array(plan.levels) / plan.looks, plan.levels[0] / 1000)
    assert sequential.plan(200, 800, 0.02, 3).looks == (200, 400, 800)
    assert sequential.plan(500, 500, 0.02, 3).looks == (500,)


# --- power (the table in docs/explanation/statistics.md: benchmarks/until_decided.py) --------------------------


def test_power_at_the_default_plan():
    """The default plan (1,000 to 20,000 games, E = 0.02, 27 variants), 4 seats: a seat 0.05 below fair is found
    unbalanced in nearly every sweep, mostly at the first or second look; an exactly fair game is shown fair
    within 0.02 by the cap in nearly every sweep (measured at R = 2,000: 1.000 at 2,054 games on average; 0.997
    at 15,164)."""
    plan = sequential.plan(1000, 20000, 0.02, 27)
    rng = np.random.default_rng(7)
    code, games = procedure(rng, 500, drop(4, 0.05), plan)
    assert ((code & 1) > 0).mean() >= 0.98 and games.mean() < 3000
    code, games = procedure(rng, 500, kinds([0.25] * 4), plan)
    assert (code == 2).mean() >= 0.95 and games.mean() < 17000
