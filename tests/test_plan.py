"""`simcore plan` (issue 37, "How many games?"): analyses.planning's plans computed by hand, from synthetic and real
results, and the command's output and input errors. Whether the games planned give the power planned:
tests/test_calibration_plan.py."""

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from analyses import data
from analyses.data import DataError, Result
from analyses.fairer import DEFAULT_MARGIN, games_needed, imbalance_change
from analyses.planning import PlanError, games_to_decide, games_within, plan_guess, plan_results
from simcore.io import config as cfg
from simcore.studies import runs

Z = stats.norm.ppf


def _toy(name, shares, u, seed=1, teams=None, policies=("greedy",)):
    """A result of len(u) games whose single winner is the seat whose cumulative share holds u (common random
    numbers: two results with the same u differ only where the shares moved); ``teams``: a winner's teammates
    win too."""
    winner = np.searchsorted(np.cumsum(shares), u, side="right").clip(0, len(shares) - 1)
    wins = np.zeros((len(u), len(shares)), bool)
    wins[np.arange(len(u)), winner] = True
    for team in teams or ():
        wins[:, list(team)] = wins[:, list(team)].any(axis=1, keepdims=True)
    columns = {"game_index": np.arange(len(u)), "seed": np.full(len(u), seed),
               **{f"win_{s}": wins[:, s] for s in range(len(shares))}}
    meta = {"policies": '["' + '", "'.join(policies * len(shares)) + '"]'}
    return Result(path=Path(f"{name}.parquet"), name=name, game="toy", seed=seed, players=len(shares),
                  columns=columns, meta=meta)


U = np.random.default_rng(3).random(3000)


# --- the formulas -------------------------------------------------------------------------------------------------


def test_games_to_decide_scales_the_games_by_the_squared_z_over_the_standard_error():
    expected = 1000 * ((Z(0.975) + Z(0.8)) * 0.005 / 0.01) ** 2
    assert games_to_decide(-0.01, 0.005, 1000, 0.8) == math.ceil(expected)
    assert games_to_decide(+0.01, 0.005, 1000, 0.8) == math.ceil(expected)          # either direction
    assert games_to_decide(0.01, 0.005, 1000, 0.95) > math.ceil(expected)
    assert games_to_decide(0.01, 0.005, 1000, 0.8, alpha=0.01) > math.ceil(expected)
    assert games_to_decide(0.0, 0.005, 1000, 0.8) is None                            # no change seen: no plan
    assert games_to_decide(1.0, 1e-6, 1000, 0.8, units=4) == 5                       # the fewest the test takes


def test_fair_within_planned_from_fair_shares_is_the_guess_plan():
    """At a fair game (and a win flag's spread) the union bound gives each of the 2 x units one-sided tests
    (1 - power) / (2 units): exactly analyses.fairer.games_needed's fair_within plan."""
    for margin, units in ((0.05, 4), (0.03, 2), (0.02, 3)):
        sd = np.full(units, math.sqrt((1 / units) * (1 - 1 / units)))
        for power in (0.8, 0.95):
            assert games_within(np.zeros(units), sd, margin, power) == \
                games_needed(margin, units, power, test="fair_within").games


def test_fair_within_needs_more_games_the_nearer_a_share_is_to_the_margin():
    sd = np.full(4, 0.43)
    needed = [games_within(np.array([d, 0, 0, -d]), sd, 0.05, 0.8) for d in (0.0, 0.01, 0.02, 0.03, 0.04)]
    assert needed == sorted(needed) and needed[-1] > 10 * needed[0]
    # one seat at 0.04 decides it alone: near its own one-sided plan ((z_a + z_p) sd / 0.01)^2
    alone = ((Z(0.95) + Z(0.8)) * 0.43 / 0.01) ** 2
    assert alone < needed[-1] < 1.5 * alone
    assert games_within(np.zeros(2), np.zeros(2), 0.05, 0.8) == 2        # points that never vary: nothing to show


# --- from a guess -------------------------------------------------------------------------------------------------


def test_a_guess_plans_each_power_by_games_needed_with_teams_as_the_unit():
    plan = plan_guess(4, 0.05, paired_correlation=0.4)
    assert [p.games for p in plan.shift] == [games_needed(0.05, 4, p, 0.05, 0.4).games for p in (0.8, 0.95)]
    assert [p.games for p in plan.within] == [games_needed(0.05, 4, p, 0.05, test="fair_within").games
                                              for p in (0.8, 0.95)]
    assert plan.shift[0].games < plan.shift[1].games
    teams = plan_guess(4, 0.05, teams=2)
    assert [p.seats for p in teams.shift + teams.within] == [2] * 4
    assert plan_guess(4).edge == DEFAULT_MARGIN


@pytest.mark.parametrize("kwargs, name", [
    ({"seats": 1}, "seats"), ({"seats": 4, "teams": 3}, "teams"), ({"seats": 4, "teams": 4}, "teams"),
    ({"seats": 4, "edge": 0}, "edge"), ({"seats": 4, "edge": 1}, "edge"),
    ({"seats": 4, "paired_correlation": 1}, "paired_correlation"),
    ({"seats": 4, "paired_correlation": -0.2}, "paired_correlation"),
    ({"seats": 4, "alpha": 0.5}, "alpha"), ({"seats": 4, "alpha": 0}, "alpha"),
])
def test_a_guess_out_of_range_is_refused_by_name(kwargs, name):
    with pytest.raises(PlanError) as e:
        plan_guess(**kwargs)
    assert e.value.name == name and "allowed:" in str(e.value)


# --- from results -------------------------------------------------------------------------------------------------


def test_a_plan_from_results_groups_like_variants_and_measures_their_pairing():
    unfair, fairer = [0.32, 0.24, 0.23, 0.21], [0.26, 0.25, 0.25, 0.24]
    results = [_toy("a", unfair, U), _toy("b", fairer, U), _toy("duo", [0.5, 0.5], U),
               _toy("c", fairer, np.random.default_rng(9).random(3000), seed=2)]
    plan = plan_results(results, edge=0.05)
    four, two = plan.groups
    assert (four.baseline, two.baseline) == ("a", "duo") and two.changes == ()
    b, c = four.changes
    assert b.paired and 0.3 < b.paired_correlation < 1 and not c.paired and c.paired_correlation == 0
    assert four.measured and four.paired_correlation == b.paired_correlation     # the smallest measured
    truth = imbalance_change(results[0].points, results[1].points)
    assert (b.estimate, b.se, b.direction) == (truth.estimate, truth.se, "fairer")
    assert b.games_needed == tuple(games_to_decide(truth.estimate, truth.se, 3000, p, units=4) for p in (0.8, 0.95))
    assert [p.games for p in four.shift] == [games_needed(0.05, 4, p, 0.05, b.paired_correlation).games
                                             for p in (0.8, 0.95)]
    assert not two.measured and two.paired_correlation == 0.0
    # fair within 0.05: a's seat 0 is at +0.07 already; b's shares are planned from what they show
    a_within, b_within = four.within[:2]
    assert a_within.outside == (0,) and a_within.games_needed is None
    assert b_within.outside == () and b_within.games_needed[0] < b_within.games_needed[1]


def test_a_team_game_is_planned_by_its_teams():
    teams = [(0, 2), (1, 3)]
    results = [_toy("a", [0.3, 0.2, 0.3, 0.2], U, teams=teams), _toy("b", [0.25] * 4, U, teams=teams)]
    group, = plan_results(results).groups
    assert group.teams == ((0, 2), (1, 3)) and group.shift[0].seats == 2
    assert group.changes[0].direction == "fairer" and group.within[0].share.shape == (2,)


def test_different_policies_are_planned_apart():
    results = [_toy("a", [0.5, 0.5], U), _toy("b", [0.5, 0.5], U, policies=("random",))]
    assert [g.baseline for g in plan_results(results).groups] == ["a", "b"]


def test_a_variant_of_too_few_games_is_refused_in_one_line():
    with pytest.raises(DataError, match=r"x.parquet holds 3 games: a plan from results needs more games than its "
                                        r"4 seats; allowed: a result of 5 or more games"):
        plan_results([_toy("x", [0.25] * 4, U[:3])])


# --- the command --------------------------------------------------------------------------------------------------


def test_plan_from_a_guess_prints_the_table_and_the_sentence(cli):
    done = cli("plan", "--seats", "4", "--edge", "0.05", "--paired-correlation", "0.5")
    assert done.returncode == 0, done.stderr
    shift = [games_needed(0.05, 4, p, 0.05, 0.5).games for p in (0.8, 0.95)]
    within = [games_needed(0.05, 4, p, 0.05, test="fair_within").games for p in (0.8, 0.95)]
    lines = done.stdout.splitlines()
    assert lines[0] == "plan for 4 seats, an edge of 0.050, alpha 0.05, paired on common deals at rho = 0.50"
    assert lines[3] == (f"| a seat moved by 0.050 between two variants (games per variant) | per-seat t tests, Holm | "
                        f"{shift[0]:,} | {shift[1]:,} |")
    assert lines[4].endswith(f"| {within[0]:,} | {within[1]:,} |")
    sentence = " ".join(lines[5:])
    assert f"play {shift[0]:,} games of each ({shift[1]:,} for 95%)" in sentence
    teams = cli("plan", "--seats", "4", "--teams", "2").stdout
    assert "4 seats in 2 teams, an edge of 0.020" in teams and "a team moved by 0.020" in teams


def test_the_edge_default_is_the_margin_of_fair_within():
    from simcore import cli as command

    edge = next(p for p in command.main.commands["plan"].params if p.name == "edge")
    assert edge.default == DEFAULT_MARGIN and edge.show_default


@pytest.mark.parametrize("args, message", [
    ([], "nothing to plan from; allowed: result files or a sweep folder"),
    (["--seats", "1"], "--seats 1 is not allowed; allowed: a whole number from 2"),
    (["--seats", "4", "--edge", "1.5"], "--edge 1.5 is not allowed; allowed: a share of the points from 0.001 "
                                        "below 1"),
    (["--seats", "4", "--teams", "3"], "--teams 3 is not allowed; allowed: a number from 2 below 4 that splits"),
    (["--seats", "4", "--paired-correlation", "1"], "--paired-correlation 1.0 is not allowed; allowed: a correlation"),
    (["--seats", "4", "--alpha", "0.7"], "--alpha 0.7 is not allowed; allowed: an error rate from 1e-06 below 0.5"),
])
def test_bad_input_is_one_line(cli, args, message):
    done = cli("plan", *args)
    assert done.returncode != 0 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith(f"Error: {message}"), done.stderr


def test_a_path_that_is_no_result_or_a_guess_with_results_is_one_line(cli, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a result")
    empty = tmp_path / "empty"
    empty.mkdir()
    for args, message in (([text], f"{text} is not a readable Parquet file"),
                          ([empty], f"{empty} holds no result files"),
                          ([text, "--seats", "4"], "--seats describes a guess; with result files the data give them")):
        done = cli("plan", *args)
        assert done.returncode != 0 and done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith(f"Error: {message}"), \
            done.stderr


@pytest.fixture(scope="module")
def zwergen(tmp_path_factory):
    """4-player Zwergen Ziehen (two teams), the base rules and the Pro rules on common deals."""
    folder = tmp_path_factory.mktemp("plan")
    for name, params in (("base", {"players": 4}), ("pro", {"players": 4, "pro": True})):
        run = cfg.resolve("zwergen", sets=list(params.items()), policies=[("all", "greedy")], games=600, seed=2,
                          variant=name)
        runs.run_to_file(run, folder / f"{name}.parquet")
    return folder


def test_plan_from_results_states_what_it_measured_and_plans(cli, zwergen):
    paths = [zwergen / "base.parquet", zwergen / "pro.parquet"]
    done = cli("plan", *paths, "--edge", "0.05")
    assert done.returncode == 0, done.stderr
    plan = plan_results([data.load_result(p) for p in paths], edge=0.05)
    group, = plan.groups
    change, = group.changes
    out = done.stdout
    assert out.startswith("zwergen: 2 variants, 1,200 games, seed 2\nevery variant: zwergen (rules version ")
    assert group.teams == ((0, 2), (1, 3)) and "teams 0+2 and 1+3" in out
    assert f"paired on common deals, rho = {group.paired_correlation:.2f} measured" in " ".join(out.split())
    row = next(line for line in out.splitlines() if line.startswith("| pro | base |"))
    assert row.startswith(f"| pro | base | yes ({change.paired_correlation:.2f}) | ")
    points_to = change.direction if change.decided else f"{change.direction} (not decided)"
    assert row.endswith(f"| {change.verdict} | {points_to} | {change.games_needed[0]:,} | "
                        f"{change.games_needed[1]:,} |")
    assert f"{group.shift[0].games:,} games per variant" in " ".join(out.split())
    assert "| base | players=4 | " in out and "| pro | players=4, pro=true | " in out
    assert "A plan from estimates" in out
    assert cli("plan", zwergen, "--edge", "0.05").stdout == out        # the folder: the same variants, in order
    alone = cli("plan", paths[0]).stdout
    assert "no two variants on common deals here: planned unpaired" in " ".join(alone.split())
    assert "| variant | against |" not in alone and "| base | players=4 | " in alone
