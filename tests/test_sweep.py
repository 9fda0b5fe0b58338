"""Sweeps: variants from axes or lists, one file each, a manifest, resumable, nothing lost."""

import json

import pyarrow.parquet as pq
import pytest

from simcore.io import config as cfg
from simcore.studies import runs, sweep

AXES = """
game = "zwai"
games = 3000
seed = 7
[policies]
all = "greedy"
[params]
players = 3
[axes]
formation = ["square", "ring"]
players = [2, 4]
"""

LIST = """
game = "zwergen"
games = 2000
seed = 3
[[variants]]
name = "plain"
[[variants]]
name = "pro-greedy"
pro = true
[variants.policies]
all = "greedy"
[[variants]]
deck = {squirrel_3 = 6}
"""


def write(tmp_path, text, name="sweep.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_axes_give_the_cartesian_product_with_readable_names(tmp_path):
    plan = sweep.load(write(tmp_path, AXES))
    assert [v.name for v in plan.variants] == ["formation=square,players=2", "formation=square,players=4",
                                               "formation=ring,players=2", "formation=ring,players=4"]
    assert [(v.config.params["formation"], v.config.players) for v in plan.variants] == [
        ("square", 2), ("square", 4), ("ring", 2), ("ring", 4)]
    assert {v.config.seed for v in plan.variants} == {7}          # common random numbers
    assert all(v.config.policies[0] == "greedy" for v in plan.variants)


def test_names_say_each_change_as_key_equals_value():
    """Issue 25: a variant is named by its changes; a key ending in a digit no longer runs into its value
    (``hand_size_46`` was hand_size_4 = 6)."""
    assert sweep.derived_name({"hand_size_4": 6, "formation": "ring"}) == "hand_size_4=6,formation=ring"
    assert sweep.derived_name({"pro": False, "fish_counts": [4, 6, 6, 4, 3]}) == "pro=false,fish_counts=4-6-6-4-3"
    assert sweep.derived_name({"policy": "mc:rollouts=16,cutoff=12"}) == "policy=mc-rollouts=16-cutoff=12"
    assert sweep.derived_name({}) == "base"


def test_a_folder_swept_under_the_old_names_resumes_without_playing_again(tmp_path):
    """A folder whose variants were finished under the names of before (``ring_players2``: the same overrides,
    the config naming its rows so) is resumed: its finished files are kept, under their names, not played."""
    old = AXES.replace("[axes]\nformation = [\"square\", \"ring\"]\nplayers = [2, 4]\n", "") + "".join(
        f'[[variants]]\nname = "{f}_players{p}"\nformation = "{f}"\nplayers = {p}\n'
        for f in ("square", "ring") for p in (2, 4))
    out = tmp_path / "runs"
    sweep.run(sweep.load(write(tmp_path, old, "old.toml")), out)
    before = {p.name: p.stat().st_mtime_ns for p in out.glob("*.parquet")}
    assert sorted(before) == sorted(f"{f}_players{p}.parquet" for f in ("square", "ring") for p in (2, 4))
    plan = sweep.load(write(tmp_path, AXES))
    assert sweep.plan_status(plan, out)["formation=ring,players=2"] == ("played", "")    # not yet mapped
    status = sweep.run(plan, out)
    assert status == {name.removesuffix(".parquet"): "skipped" for name in before}
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.parquet")} == before


def test_explicit_variants_with_names_policies_and_derived_names(tmp_path):
    plan = sweep.load(write(tmp_path, LIST))
    assert [v.name for v in plan.variants] == ["plain", "pro-greedy", "squirrel_3=6"]
    assert plan.variants[1].config.params["pro"] is True
    assert plan.variants[1].config.policies == ["greedy", "greedy"]
    assert plan.variants[2].config.params["deck.squirrel_3"] == 6


POLICY_AXES = """
game = "zwai"
games = 200
seed = 2
[axes]
policy = ["random", "greedy", "mc:rollouts=2"]
"""


def test_a_policy_axis_gives_every_seat_each_spec(tmp_path):
    plan = sweep.load(write(tmp_path, POLICY_AXES))
    assert [v.name for v in plan.variants] == ["policy=random", "policy=greedy", "policy=mc-rollouts=2"]
    assert [v.config.policies for v in plan.variants] == [["random"] * 2, ["greedy"] * 2, ["mc:rollouts=2"] * 2]
    out = tmp_path / "runs"
    sweep.run(plan, out)
    meta = pq.read_schema(out / "policy=mc-rollouts=2.parquet").metadata
    assert json.loads(meta[b"simcore.policies"]) == ["mc:rollouts=2", "mc:rollouts=2"]


def test_sweep_writes_every_variant_and_a_manifest_then_skips_what_is_complete(tmp_path):
    plan = sweep.load(write(tmp_path, AXES))
    out = tmp_path / "runs"
    assert set(sweep.run(plan, out).values()) == {"played"}
    manifest = json.loads((out / "_manifest.json").read_text())
    for v in plan.variants:
        entry = manifest["variants"][v.name]
        assert entry["rows"] == 3000 and entry["file"] == f"{v.name}.parquet"
        assert pq.read_table(out / entry["file"]).num_rows == 3000
    stamps = {p.name: p.stat().st_mtime_ns for p in out.glob("*.parquet")}
    assert set(sweep.run(sweep.load(write(tmp_path, AXES)), out).values()) == {"skipped"}
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.parquet")} == stamps


def test_same_game_index_shares_the_deal_across_variants(tmp_path):
    """Common random numbers: variants of one sweep differ only where their rules do."""
    text = 'game = "zwergen"\ngames = 3000\nseed = 7\n[policies]\nall = "greedy"\n[axes]\nhats_per_colour = [7, 5]\n'
    out = tmp_path / "runs"
    sweep.run(sweep.load(write(tmp_path, text)), out)
    a = pq.read_table(out / "hats_per_colour=7.parquet")
    b = pq.read_table(out / "hats_per_colour=5.parquet")
    same = sum(x == y for x, y in zip(a["n_turns"].to_pylist(), b["n_turns"].to_pylist(), strict=True))
    # fewer hats bind only in the few games with large teams: those differ, every other game is the same game
    assert 0.8 * a.num_rows < same < a.num_rows


@pytest.mark.parametrize("damage", ["truncate", "edit", "delete"])
def test_a_damaged_file_is_detected_and_played_again(tmp_path, damage):
    plan = sweep.load(write(tmp_path, AXES))
    out = tmp_path / "runs"
    sweep.run(plan, out)
    victim = out / "formation=ring,players=2.parquet"
    good = victim.read_bytes()
    if damage == "truncate":
        victim.write_bytes(good[: len(good) // 2])
    elif damage == "edit":
        victim.write_bytes(good[:100] + bytes([good[100] ^ 0xFF]) + good[101:])
    else:
        victim.unlink()
    status = sweep.run(sweep.load(write(tmp_path, AXES)), out)
    assert status["formation=ring,players=2"] == "played again"
    assert [s for n, s in status.items() if n != "formation=ring,players=2"] == ["skipped"] * 3
    assert victim.read_bytes() == good                 # the same seed plays the same games again


def test_a_changed_config_plays_that_variant_again(tmp_path):
    out = tmp_path / "runs"
    sweep.run(sweep.load(write(tmp_path, AXES)), out)
    status = sweep.run(sweep.load(write(tmp_path, AXES), games=2000), out)
    assert set(status.values()) == {"played again"}


def test_an_interrupted_sweep_keeps_finished_variants_and_resumes(tmp_path, monkeypatch):
    plan = sweep.load(write(tmp_path, AXES))
    out = tmp_path / "runs"
    real = runs.run_to_file
    calls = []

    def interrupted(config, path, on_block=None, executor=None, trace=False):
        calls.append(config.variant)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(config, path, on_block, executor, trace)

    monkeypatch.setattr(runs, "run_to_file", interrupted)
    with pytest.raises(KeyboardInterrupt):
        sweep.run(plan, out)
    assert sorted(p.name for p in out.glob("*.parquet")) == ["formation=square,players=2.parquet",
                                                             "formation=square,players=4.parquet"]
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    monkeypatch.setattr(runs, "run_to_file", real)
    status = sweep.run(sweep.load(write(tmp_path, AXES)), out)
    assert status == {"formation=square,players=2": "skipped", "formation=square,players=4": "skipped",
                      "formation=ring,players=2": "played", "formation=ring,players=4": "played"}


@pytest.mark.parametrize("text, message", [
    (AXES.replace("formation = [", "formatio = ["), "variant formatio=square,players=2: unknown parameter of "
                                                   "zwai 'formatio' \\(did you mean 'formation'"),
    (AXES.replace('["square", "ring"]', "[]"), "axis formation is empty"),
    (AXES.replace('["square", "ring"]', '"ring"'), "axis formation = 'ring' is not a list"),
    (LIST.replace('name = "pro-greedy"', 'name = "plain"'), "variant name 'plain' appears twice"),
    (LIST.replace('"zwergen"', '"zwergenz"'), "unknown game 'zwergenz'"),
    (AXES + "[[variants]]\nname = 'x'\n", "needs either [axes] or [[variants]], not both"),
    (AXES.replace("[axes]", "[axis]"), "unknown sweep key 'axis'"),
    (LIST.replace('name = "plain"', 'name = "no/slash"'), "variant name 'no/slash' is not allowed"),
    (AXES.replace('players = [2, 4]', 'players = [2, 5]'), "players = 5 is not allowed"),
    (POLICY_AXES.replace('"mc:rollouts=2"', '"mc:rolouts=2"'), "variant policy=mc-rolouts=2: policy mc has no "
                                                              "parameter 'rolouts'; allowed: rollouts"),
    (POLICY_AXES.replace('"mc:rollouts=2"', '"mc:rollouts=0"'), "rollouts = '0' is not allowed; allowed: an "
                                                               "integer from 1 to 100000"),
    (POLICY_AXES.replace('"mc:rollouts=2"', '"mcts"'), "unknown policy of zwai 'mcts'"),
])
def test_bad_sweep_files_are_refused_before_anything_runs(tmp_path, text, message):
    with pytest.raises(cfg.ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        sweep.load(write(tmp_path, text))


def test_a_sweep_loads_every_variants_copy_before_it_times_any(cli, tmp_path, monkeypatch):
    """A sweep's 'played N games in S s' counts playing only, as run's games/s do: a variant with a searching
    seat needs another compiled copy of the game, which is loaded (and, the first time, compiled with its one
    line saying so) before the first variant is played, not inside that variant's time."""
    from simcore import engine

    events, load, play = [], engine.load, sweep.run

    def loading(module, params, policies, *args, **kwargs):
        events.append(("load", tuple(policies.ravel().tolist())))
        return load(module, params, policies, *args, **kwargs)

    def playing(*args, **kwargs):
        events.append(("play",))
        return play(*args, **kwargs)

    monkeypatch.setattr(engine, "load", loading)
    monkeypatch.setattr(sweep, "run", playing)
    path = write(tmp_path, 'game = "zwai"\ngames = 20\n[axes]\npolicy = ["greedy", "ismcts:iterations=2"]\n')
    done = cli("sweep", path, "--out", tmp_path / "runs")
    assert done.returncode == 0, done.stderr
    assert [e[0] for e in events] == ["load", "load", "play"] and events[0][1] != events[1][1]


def test_sweep_command_runs_and_reruns(cli, tmp_path):
    path = write(tmp_path, AXES)
    out = tmp_path / "runs"
    first = cli("sweep", path, "--out", out)
    assert first.returncode == 0, first.stderr
    assert "4 played, 0 played again, 0 skipped" in first.stdout
    again = cli("sweep", path, "--out", out)
    assert "0 played, 0 played again, 4 skipped" in again.stdout and "0 games to play" in again.stdout
    bad = cli("sweep", write(tmp_path, AXES.replace('["square", "ring"]', "[]"), "bad.toml"), "--out",
              tmp_path / "other")
    assert bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "other").exists()
