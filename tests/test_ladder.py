"""simcore ladder (issue 13): budget 2n against n on the same deals, seats swapped, rung by rung."""

import numpy as np
import pyarrow.parquet as pq
import pytest

from simcore.io import config as cfg
from simcore.studies import ladder, versus


def test_budgets_and_the_base_policy_are_checked_in_one_line():
    assert ladder.parse_budgets("8,16,32") == (8, 16, 32)
    for bad in ("8", "16,8", "8,8,16", "0,4", "8,x"):
        with pytest.raises(cfg.ConfigError, match="--budgets .* allowed: two or more increasing whole numbers"):
            ladder.parse_budgets(bad)
    with pytest.raises(cfg.ConfigError, match="'greedy' has no budget to double; allowed: ismcts, mc"):
        ladder.base_spec("greedy", "zwai")
    with pytest.raises(cfg.ConfigError, match="sets its budget"):
        ladder.base_spec("ismcts:iterations=50", "zwai")
    with pytest.raises(cfg.ConfigError, match="unknown policy 'alphazero'"):
        ladder.base_spec("alphazero", "zwai")
    spec = ladder.base_spec("ismcts:c=1.5,rollout=greedy", "zwai")
    assert ladder.with_budget(spec, 64) == "ismcts:iterations=64,c=1.5,rollout=greedy"


def test_each_rung_is_the_versus_contest_of_its_two_budgets(tmp_path):
    """A rung's score, interval and p-value are A's returns over its seatings, read back from the Parquet
    files: the same as playing the contest directly; ladder.parquet, ladder.md and the plot are written."""
    plan = ladder.plan("zwai", [], "ismcts:c=0.7", (1, 2, 8), games=24, seed=3)
    result = ladder.climb(plan, tmp_path)
    assert [(r.weak_budget, r.strong_budget) for r in result.rungs] == [(1, 2), (2, 8)]
    for rung, (weak, strong, runs) in zip(result.rungs, plan.rungs, strict=True):
        direct = versus.contest(versus.seatings("zwai", f"ismcts:iterations={strong}",
                                                f"ismcts:iterations={weak}", (), 24, 3))
        assert rung.result.score == pytest.approx(direct.score)
        assert rung.result.pvalue == pytest.approx(direct.pvalue)
        assert rung.result.deals == 24 and rung.result.games == 48
        assert runs[0].policies == [f"ismcts:iterations={strong},c=0.7,rollout=random",
                                    f"ismcts:iterations={weak},c=0.7,rollout=random"]
    # issue 25, part 7: the upset rate is the smaller budget's points, the same map of the score's interval
    for rung in result.rungs:
        points, low, high = ladder.upset(rung)
        assert points == pytest.approx(1 - rung.result.score) and (low, high) == pytest.approx(
            (1 - rung.result.high, 1 - rung.result.low))
    first, last = (ladder.upset(r) for r in (result.rungs[0], result.rungs[-1]))
    assert ladder.luck_text(result) == (
        f"luck against skill: the smaller budget still takes {first[0]:.3f} [{first[1]:.3f}, {first[2]:.3f}] at 1 "
        f"against 2 and {last[0]:.3f} [{last[1]:.3f}, {last[2]:.3f}] at 2 against 8 points a game per seat "
        "(fair 0.500; the upset rate)")
    assert "Luck against skill: the smaller budget" in (tmp_path / ladder.REPORT).read_text()
    summary = pq.read_table(tmp_path / ladder.SUMMARY).to_pydict()
    assert summary["strong_budget"] == [2, 8]
    assert summary["score"] == pytest.approx([r.result.score for r in result.rungs])
    assert (tmp_path / ladder.PLOT).stat().st_size > 1000
    text = (tmp_path / ladder.REPORT).read_text()
    assert "| 8 | 2 | 24 |" in text and "ismcts:c=0.7,rollout=random" in text


def test_depth_is_the_largest_budget_significantly_better_than_the_one_below():
    def rung(weak, strong, score, pvalue):
        r = versus.VersusResult("a", "b", 2, 100, 200, score, score - 0.05, score + 0.05, 0.5, pvalue, ())
        return ladder.Rung(weak, strong, r)

    result = ladder.LadderResult("zwai", "ismcts", (rung(8, 16, 0.70, 1e-5), rung(16, 32, 0.62, 0.01),
                                                    rung(32, 64, 0.52, 0.4), rung(64, 128, 0.45, 0.01)))
    assert [r.significant for r in result.rungs] == [True, True, False, False]   # 0.45: significant, but worse
    assert result.depth == 32
    assert ladder.LadderResult("zwai", "ismcts", (rung(8, 16, 0.5, 0.9),)).depth is None


def test_multi_player_rungs_seat_the_larger_budget_in_every_seat_in_turn(tmp_path):
    """One seat at 2n, the others at n, seats rotated: three seatings in 3-player Zwai, fair is 1/3."""
    plan = ladder.plan("zwai", [("players", 3)], "ismcts", (1, 4), games=10, seed=2)
    runs = plan.rungs[0][2]
    assert [run.policies.index(ladder.with_budget(plan.spec, 4)) for run in runs] == [0, 1, 2]
    assert all(run.policies.count(ladder.with_budget(plan.spec, 1)) == 2 for run in runs)
    result = ladder.climb(plan, tmp_path)
    assert result.rungs[0].result.fair == pytest.approx(1 / 3)
    assert result.rungs[0].result.games == 30


def test_sprt_stops_a_rung_once_it_decides(tmp_path):
    """With --sprt a clearly stronger budget is accepted (H1) before the deals run out, and the files hold
    the deals played."""
    plan = ladder.plan("zwai", [], "ismcts", (1, 64), games=400, seed=5)
    result = ladder.climb_sprt(plan, tmp_path, batch=20, delta=0.1)
    rung = result.rungs[0]
    assert rung.sprt == "H1" and rung.significant
    assert rung.result.deals < 400 and rung.result.deals % 20 == 0
    for seat in range(2):
        table = pq.read_table(tmp_path / f"b64-vs-b1-seat{seat}.parquet")
        assert table.num_rows == rung.result.deals
        assert np.array_equal(table["game_index"].to_numpy(), np.arange(rung.result.deals))


def test_the_cli_ladder_and_its_errors(cli, tmp_path):
    done = cli("ladder", "zwai", "--budgets", "1,2", "--games", "6", "--out", tmp_path / "l")
    assert done.returncode == 0, done.stderr
    assert "skill depth:" in done.stdout and (tmp_path / "l" / ladder.REPORT).is_file()
    again = cli("ladder", "zwai", "--budgets", "1,2", "--games", "6", "--out", tmp_path / "l")
    assert again.returncode == 0 and again.stdout.splitlines()[-3:] == done.stdout.splitlines()[-3:]
    (tmp_path / "file").write_text("x")
    for args, says in ((["--budgets", "4,2"], "--budgets '4,2' is not allowed"),
                       (["--policy-base", "random"], "'random' has no budget to double"),
                       (["--sprt", "--scheduler", "local:1"], "allowed: --sprt or --scheduler, not both"),
                       (["--set", "players=9"], "players"),
                       (["--out", tmp_path / "file"], "it is a file")):
        out = args if "--out" in args else [*args, "--out", tmp_path / "bad"]
        failed = cli("ladder", "zwai", "--budgets", "1,2", "--games", "4", *out) if "--budgets" not in args \
            else cli("ladder", "zwai", "--games", "4", *out)
        assert failed.returncode != 0
        assert says in failed.stderr and len(failed.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "bad").exists()
