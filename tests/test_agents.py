"""Policy specs, the agents table, and one policy against another on the same deals."""

import dataclasses

import numpy as np
import pytest

from analyses import proportion_interval
from simcore import agents, engine
from simcore.io import config as cfg
from simcore.studies import versus

OFFERED = ("random", "greedy", "mc")


def test_specs_are_canonical_with_every_parameter():
    assert str(agents.parse("mc", OFFERED)) == "mc:rollouts=16"
    assert str(agents.parse(" mc : rollouts = 8 ", OFFERED)) == "mc:rollouts=8"
    assert str(agents.parse("greedy", OFFERED)) == "greedy"
    assert agents.parse("mc:rollouts=8", OFFERED).row().tolist() == [agents.MC, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]


def test_the_agents_table_holds_each_parameter_at_its_named_column(monkeypatch):
    """Agent parameters reach the search by name (agents.COLUMNS, read by the jitted agents as IS_ITERATIONS,
    MC_ROLLOUTS, ...), never by the order they are declared in: declared in reverse, every spec's row is the
    same, and the spec string spells the same parameters."""
    specs = ("mc:rollouts=8,cutoff=3", "ismcts:iterations=50,c=1.5,rollout=greedy,cutoff=4,widen=0.5,tree=observed,"
             "select=regret,final=average,explore=0.2")
    rows = [agents.parse(text, ("mc", "ismcts")).row() for text in specs]
    assert rows[1].tolist() == [agents.ISMCTS, 50, 1.5, 1, 4, 0.5, 1, 2, 1, 0.2, 0, 0]
    assert rows[1][agents.IS_ITERATIONS] == 50 and rows[1][agents.IS_WIDEN] == 0.5 and rows[0][agents.MC_CUTOFF] == 3
    reversed_agents = {name: dataclasses.replace(agent, params=agent.params[::-1])
                       for name, agent in agents.AGENTS.items()}
    monkeypatch.setattr(agents, "AGENTS", reversed_agents)
    again = [agents.parse(text, ("mc", "ismcts")) for text in specs]
    assert all(np.array_equal(spec.row(), row) for spec, row in zip(again, rows, strict=True))
    assert dict(again[1].values) == dict(agents.parse(specs[1], ("mc", "ismcts")).values)


def test_a_parameter_without_its_own_column_is_named():
    mc = agents.AGENTS["mc"]
    extra = dataclasses.replace(mc, params=(*mc.params, dataclasses.replace(mc.params[0], name="depth")))
    assert agents.column_gaps({"mc": extra}) == ["mc.depth has no column"]
    assert agents.column_gaps() == []


@pytest.mark.parametrize("text, message", [
    ("mcts", "unknown policy 'mcts'; allowed: random, greedy, mc"),
    ("mc:depth=3", "policy mc has no parameter 'depth'; allowed: rollouts"),
    ("mc:rollouts=0", "rollouts = '0' is not allowed; allowed: an integer from 1 to 100000"),
    ("mc:rollouts=many", "rollouts = 'many' is not allowed"),
    ("mc:rollouts", "'rollouts' has no value"),
    ("random:rollouts=2", "policy random has no parameter 'rollouts'; allowed: forbid, prefer"),
])
def test_bad_specs_are_one_line_errors(text, message):
    with pytest.raises(ValueError, match=message):
        agents.parse(text, OFFERED)


def test_policy_option_takes_a_seat_or_a_whole_spec():
    assert cfg.parse_policy("1=mc:rollouts=4") == ("1", "mc:rollouts=4")
    assert cfg.parse_policy("mc:rollouts=4") == ("all", "mc:rollouts=4")
    assert cfg.parse_policy("all=greedy") == ("all", "greedy")
    run = cfg.resolve("zwai", policies=[cfg.parse_policy("mc:rollouts=4"), cfg.parse_policy("1=random")])
    assert run.policies == ["mc:rollouts=4", "random"]
    assert "[policies]\n0 = \"mc:rollouts=4\"" in run.to_toml()


def test_returns_of_a_seat_share_shared_wins():
    run = cfg.resolve("zwai", sets=[("players", 3)])
    rows = np.zeros((4, engine.width(run.module)), np.int64)
    rows[0, engine.O_WIN:engine.O_WIN + 3] = [1, 0, 0]
    rows[1, engine.O_WIN:engine.O_WIN + 3] = [1, 1, 0]
    rows[2, engine.O_WIN:engine.O_WIN + 3] = [0, 1, 0]
    rows[3, engine.O_TIMEOUT] = 1
    # points: a timeout nobody won is a third to every seat, as the null of a 3-player contest
    assert versus.a_returns(run, rows, 0).tolist() == pytest.approx([1.0, 0.5, 0.0, 1 / 3])


def test_an_agent_against_itself_scores_exactly_one_half():
    """Each deal is played once from each seat and a seat's draws come from its own stream, so an agent
    against itself plays every deal's two games as mirror images: exactly 1/2, with no spread. Without spread
    the t test says nothing; the exact binomial bound over 300 deals does (Clopper-Pearson), and p = 1."""
    result = versus.contest(versus.seatings("zwai", "random", "random", games=300, seed=6))
    assert (result.deals, result.games, result.players) == (300, 600, 2)
    assert result.score == result.fair == 0.5 and result.method == "exact" and result.pvalue == 1.0
    interval = proportion_interval(150, 300, method="clopper-pearson")
    assert (result.low, result.high) == pytest.approx((interval.low, interval.high))
    assert result.seat_scores[0] + result.seat_scores[1] == pytest.approx(1.0)
    assert result.seat_scores[0] != 0.5          # the seats themselves are not balanced


def test_three_player_contest_rotates_the_seat():
    result = versus.contest(versus.seatings("zwai", "greedy", "random", [("players", 3)], games=200, seed=2))
    assert (result.players, result.games, result.fair) == (3, 600, pytest.approx(1 / 3))
    assert result.score == pytest.approx(np.mean(result.seat_scores))
    assert result.low <= result.score <= result.high


def test_versus_command_reports_the_score(cli):
    done = cli("versus", "zwai", "--policy", "mc:rollouts=2", "--against", "random", "--games", "30")
    assert done.returncode == 0, done.stderr
    assert "mc:rollouts=2 against random, zwai, 30 deals x 2 seats: score" in done.stdout
    bad = cli("versus", "zwai", "--policy", "mc:rollouts=-1", "--against", "random")
    assert bad.returncode != 0 and bad.stderr.count("\n") == 1 and "rollouts" in bad.stderr


def test_final_is_spelled_out_only_when_it_mixes():
    """ismcts:final (issue 40) came after specs were first recorded: off (most), a spec's string and the files and
    sweeps named by it stay as they were; on, the string says so and reads back as the same spec."""
    allowed = ("random", "greedy", "mc", "ismcts")
    assert "final" not in str(agents.parse("ismcts:iterations=50", allowed))
    mixed = agents.parse("ismcts:iterations=50,final=visits", allowed)
    assert str(mixed) == "ismcts:iterations=50,c=0.7,rollout=random,final=visits"
    assert agents.parse(str(mixed), allowed) == mixed and mixed.row()[agents.IS_FINAL] == 1
