"""Traces (issue 25, parts 5 and 6): `--trace` writes _traces/X.trace.parquet beside a result, each game's standings,
action kinds and end; analyze reads it for how decided the games are and why a seat wins. The games' own trace
rules are tested here, each naming the rulebook sentence or the decision it checks."""

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from analyses import data, report
from simcore import engine, games
from simcore.io import config as cfg
from simcore.studies import sweep
from simcore.testing import traced_blocks as _traced

SCORE = engine.score_offset


def _play(name, sets=(), policy="greedy", n=40, seed=1):
    run = cfg.resolve(name, sets=list(sets), policies=[("all", policy)], games=n, seed=seed)
    module = games.load(name)
    rows, trace = _traced(module, run.params_array(), run.policies_array(), seed, n)
    return run, module, rows, trace


def _final(trace, players):
    """Every seat's last standing: (games, seats)."""
    last = (trace.info[:, 0] - 1).astype(np.int64)
    return np.take_along_axis(trace.table[:, :players, :], last[:, None, None].repeat(players, 1), axis=2)[..., 0]


@pytest.mark.parametrize("name, sets", [("zwai", [("players", 3)]), ("goofspiel", []), ("wichtel", []),
                                        ("zwergen", [("players", 4)])])
def test_the_last_standing_is_the_score(name, sets):
    """Zwai: 'the player with the most fish wins' (the fish banked); Goofspiel: the points of the prizes won;
    Der Herr der Wichtel: the total ('the highest total wins'); Zwergen Ziehen: the rounds won by the seat's
    team. The standing the trace ends with is the row's score."""
    run, module, rows, trace = _play(name, sets, policy="random")
    scores = rows[:, SCORE(module.MAX_SEATS):SCORE(module.MAX_SEATS) + run.players]
    assert np.array_equal(_final(trace, run.players), scores)


def test_zwai_counts_one_card_per_placement():
    """Zwai rulebook: 'the active player places one card from the hand into the shoal'; the trace counts the
    card decision's fish value (and not its cell), so the fish kinds played add up to the placements."""
    run, module, rows, trace = _play("zwai", [("players", 4)])
    kinds = len(module.ACTION_KINDS)
    assert np.array_equal(trace.counts[:, :, :kinds].sum(axis=(1, 2)), rows[:, engine.O_N_TURNS])


def test_goofspiel_bids_once_a_trick_but_the_last():
    """Goofspiel (docs/goofspiel.md): every seat bids one card a trick; the last trick plays itself (one card
    left), so a seat makes num_cards - 1 bids, each above, equal to or below the prize."""
    run, module, rows, trace = _play("goofspiel", [("players", 3)], policy="random")
    assert (trace.counts[:, :3, :3].sum(axis=2) == run.params["num_cards"] - 1).all()


@pytest.mark.parametrize("scenario", ["last_man_standing", "wizard_war", "capture_the_flag"])
def test_the_skirmish_ends_by_its_scenarios_objective(scenario):
    """Garden-gnome skirmish rulebook, the scenarios: last man standing ends when one side has no gnome in
    action (its material is then 0), wizard war when a wizard is out, capture the flag with both flags home;
    'flags home' is no end of the other two, and a draw is both sides out at once."""
    run, module, rows, trace = _play("skirmish", [("scenario", scenario)], n=30)
    names = [name for name, _ in module.END_CONDITIONS]
    ends = {names[e] for e in trace.info[:, 1] if e >= 0}
    assert ends <= {scenario_end(scenario), "draw"} and ends
    if scenario == "last_man_standing":
        wiped = trace.info[:, 1] == names.index("wipe_out")
        assert (_final(trace, 2)[wiped].min(axis=1) == 0).all()


def scenario_end(scenario):
    return {"last_man_standing": "wipe_out", "wizard_war": "wizard_taken", "capture_the_flag": "flags_home"}[scenario]


def test_run_writes_the_trace_table_beside_its_result(cli, tmp_path):
    out = tmp_path / "z.parquet"
    done = cli("run", "zwai", "--set", "players=3", "--policy", "greedy", "--games", "60", "--trace", "--out", out)
    assert done.returncode == 0, done.stderr
    assert f"and its trace {tmp_path / '_traces' / 'z.trace.parquet'}" in done.stdout
    table = pq.read_table(tmp_path / "_traces" / "z.trace.parquet")
    module = games.load("zwai")
    assert table.column_names == ["game_index", "seat", "standing",
                                  *[f"played_{k}" for k, _ in module.ACTION_KINDS],
                                  *[f"legal_{k}" for k, _ in module.ACTION_KINDS], "end"]
    assert table.num_rows == 180 and table["seat"].to_pylist()[:4] == [0, 1, 2, 0]
    assert table["end"].unique().to_pylist() == ["rounds"]
    meta = {k.decode(): v.decode() for k, v in table.schema.metadata.items()}
    assert meta["simcore.trace.step"] == "round" and meta["simcore.trace.standing"] == module.TRACE_STANDING
    assert json.loads(meta["simcore.trace.kinds"])["fish_3"] == "a 3-fish card"
    assert meta["simcore.seed"] == pq.read_table(out).schema.metadata[b"simcore.seed"].decode()
    # the same run without --trace writes the same rows, and takes the trace of the games it replaced away
    rows = pq.read_table(out).drop(["variant"])
    assert cli("run", "zwai", "--set", "players=3", "--policy", "greedy", "--games", "60", "--out", out,
               "--quiet").returncode == 0
    assert pq.read_table(out).drop(["variant"]).equals(rows) and not (tmp_path / "_traces" / "z.trace.parquet").exists()


def test_trace_needs_a_file_and_this_machine(cli, tmp_path):
    done = cli("run", "zwai", "--games", "5", "--trace")
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1
    assert "allowed: --trace with --out FILE.parquet" in done.stderr
    (tmp_path / "s.toml").write_text('game = "zwai"\ngames = 20\n[axes]\nplayers = [2, 3]\n')
    done = cli("sweep", tmp_path / "s.toml", "--out", tmp_path / "o", "--trace", "--scheduler", "local:1")
    assert done.returncode != 0 and "allowed: --trace or --scheduler, not both" in done.stderr
    assert not (tmp_path / "o").exists()


def test_a_traced_sweep_resumes_and_the_report_says_how_decided(cli, tmp_path):
    """A sweep with --trace writes a trace per variant; run again without it, every variant is complete and
    keeps its trace; a folder swept without traces plays a variant again when --trace asks for its trace. The
    report then has lead changes in the verdict, 'How decided' and 'Action kinds associated with winning' with each
    fish value."""
    (tmp_path / "s.toml").write_text('game = "zwai"\ngames = 300\nseed = 1\n[policies]\nall = "greedy"\n'
                                     '[axes]\nformation = ["square", "ring"]\nplayers = [4]\n')
    plan = sweep.load(tmp_path / "s.toml")
    out = tmp_path / "runs"
    sweep.run(plan, out, trace=True)
    names = [v.name for v in plan.variants]
    assert all((out / "_traces" / f"{name}.trace.parquet").is_file() for name in names)
    assert set(sweep.run(plan, out).values()) == {"skipped"}
    assert all((out / "_traces" / f"{name}.trace.parquet").is_file() for name in names)
    plain = tmp_path / "plain"
    sweep.run(plan, plain)
    done = cli("sweep", tmp_path / "s.toml", "--out", plain, "--trace")
    assert "its finished result is replaced (--trace: it has no trace)" in done.stdout
    assert all((plain / "_traces" / f"{name}.trace.parquet").is_file() for name in names)
    results_ = data.load_folder(out)
    analysis = report.analyze(results_)
    ring = analysis.verdicts["formation=ring,players=4"].text
    assert "lead changes a game" in ring and "won from behind after the first round" in ring
    text = report.write_report(results_, tmp_path / "r.md").read_text()
    assert "## How decided" in text and "## Action kinds associated with winning" in text
    for value in range(5):
        assert f"| fish_{value}: a {value}-fish card |" in text
    assert "fish_9" not in text      # a kind never legal in any game of the sweep is left out


def test_versus_and_ladder_write_traces_beside_their_games(cli, tmp_path):
    """--trace on versus (with --out, each seating's games) and ladder (each rung's seatings); refused in one
    line without a folder, and with the ladder's --sprt (its games are written batch by batch)."""
    done = cli("versus", "goofspiel", "--policy", "greedy", "--against", "random", "--games", "10", "--out",
               tmp_path / "v", "--trace")
    assert done.returncode == 0, done.stderr
    assert "wrote 2 seatings to" in done.stdout and "with their traces" in done.stdout
    for seat in range(2):
        assert pq.read_table(tmp_path / "v" / "_traces" / f"seat{seat}.trace.parquet").num_rows == 20
    assert report.analyze(data.load_folder(tmp_path / "v")).decided.keys() == {"seat0", "seat1"}
    done = cli("versus", "goofspiel", "--policy", "greedy", "--against", "random", "--games", "10", "--trace")
    assert done.returncode != 0 and "allowed: --trace with --out FOLDER" in done.stderr
    done = cli("ladder", "goofspiel", "--budgets", "1,2", "--games", "3", "--out", tmp_path / "l", "--trace")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "l" / "_traces").glob("*.trace.parquet")) == \
        ["b2-vs-b1-seat0.trace.parquet", "b2-vs-b1-seat1.trace.parquet"]
    done = cli("ladder", "goofspiel", "--budgets", "1,2", "--out", tmp_path / "s", "--trace", "--sprt")
    assert done.returncode != 0 and "allowed: --trace or --sprt, not both" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
