"""Issue 53, case 13 and item 7: `simcore run --set K=V` names its variant by what it changed, as a sweep names an
unnamed variant, so that `compare` names what it compares; and item 3: `simcore compare A B --json`, the claims of
a comparison as JSON for scripts."""

import pyarrow.parquet as pq

import simcore

GAMES = "60"


def _run(cli, out, *args):
    done = cli("run", "zwai", "--games", GAMES, "--quiet", "--out", out, *args)
    assert done.returncode == 0, done.stderr
    return pq.read_table(out)


def _variants(table):
    return set(table["variant"].to_pylist())


def test_compare_names_two_runs_of_other_rules_by_what_they_changed(cli, tmp_path):
    """Issue 53, case 13: two runs of `--set hand_size_2=...` were both "default", and compare printed "default
    (c1.parquet) vs default (c2.parquet)"; now each is named by what it changed, in its rows, its metadata and
    compare's lines."""
    c1 = _run(cli, tmp_path / "c1.parquet", "--set", "hand_size_2=10")
    c2 = _run(cli, tmp_path / "c2.parquet", "--set", "hand_size_2=13")
    assert _variants(c1) == {"hand_size_2=10"} and _variants(c2) == {"hand_size_2=13"}
    assert pq.read_metadata(tmp_path / "c1.parquet").metadata[b"simcore.variant"] == b"hand_size_2=10"
    done = cli("compare", tmp_path / "c1.parquet", tmp_path / "c2.parquet")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"hand_size_2=10 ({GAMES} games) vs hand_size_2=13 ({GAMES} games), zwai\n")
    assert "  hand_size_2=10: zwai (rules version 1), hand_size_2=10;" in done.stdout
    assert "| hand_size_2=10 | hand_size_2=13 | points_0 |" in done.stdout
    assert "default" not in done.stdout


def test_run_set_names_its_variant_as_a_sweep_does_with_the_same_games(cli, tmp_path):
    """Issue 53, item 7: `run --set` names its variant by the sweep's own naming (several changes joined by
    commas, a dotted key by its last part) and plays the very games a sweep of that variant plays: the same rows,
    label and all; only the label differs from a run of the old name (`--variant default`)."""
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(f'game = "zwai"\ngames = {GAMES}\nseed = 1\n\n[axes]\nhand_size_2 = [10]\n'
                          'formation = ["ring"]\n')
    done = cli("sweep", sweep_file, "--out", tmp_path / "s", "--quiet")
    assert done.returncode == 0, done.stderr
    swept = pq.read_table(tmp_path / "s" / "hand_size_2=10,formation=ring.parquet")
    ran = _run(cli, tmp_path / "r.parquet", "--set", "hand_size_2=10", "--set", "formation=ring")
    assert _variants(ran) == {"hand_size_2=10,formation=ring"}
    assert ran.equals(swept)                    # every column, the variant too (metadata aside)
    old = _run(cli, tmp_path / "old.parquet", "--set", "hand_size_2=10", "--set", "formation=ring",
               "--variant", "default")
    assert _variants(old) == {"default"}
    assert ran.drop_columns(["variant"]).equals(old.drop_columns(["variant"]))


def test_a_run_names_its_variant_by_its_config_or_option_first(cli, tmp_path):
    """Issue 53, item 7: a run without --set stays "default"; --variant names it; a config's own name wins over
    --set; a config without a name and --set is named by what --set changed; a key set twice by its last value.
    The summary says a name that --set did not give (that one would repeat the line of the rules)."""
    assert _variants(_run(cli, tmp_path / "a.parquet")) == {"default"}
    assert _variants(_run(cli, tmp_path / "b.parquet", "--set", "hand_size_2=10", "--variant", "short")) == \
        {"short"}
    named, unnamed = tmp_path / "named.toml", tmp_path / "unnamed.toml"
    named.write_text('game = "zwai"\nvariant = "mine"\n[params]\nplayers = 3\n')
    unnamed.write_text('game = "zwai"\n[params]\nplayers = 3\n')
    assert _variants(_run(cli, tmp_path / "c.parquet", "--config", named, "--set", "hand_size_3=6")) == {"mine"}
    assert _variants(_run(cli, tmp_path / "d.parquet", "--config", unnamed)) == {"default"}
    assert _variants(_run(cli, tmp_path / "e.parquet", "--config", unnamed, "--set", "hand_size_3=6")) == \
        {"hand_size_3=6"}
    assert _variants(_run(cli, tmp_path / "f.parquet", "--set", "hand_size_2=9", "--set", "hand_size_2=10")) == \
        {"hand_size_2=10"}
    done = cli("run", "zwai", "--games", "20", "--set", "formation=ring")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("zwai (rules version 1), formation=ring;")     # the name says no more
    done = cli("run", "zwai", "--games", "20", "--config", named, "--set", "hand_size_3=6")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("variant mine: zwai (rules version 1), players=3, hand_size_3=6;")


def test_simulate_names_its_variant_as_run_does(cli, tmp_path):
    """Issue 53, item 7: `simcore.simulate` gives the rows `simcore run` gives, so params name its variant as
    --set does (nested groups by their last key), and a name given wins."""
    ran = _run(cli, tmp_path / "r.parquet", "--set", "hand_size_2=10")
    simulated = simcore.simulate("zwai", games=int(GAMES), params={"hand_size_2": 10})
    assert _variants(simulated) == {"hand_size_2=10"} and simulated.equals(ran)
    assert _variants(simcore.simulate("zwai", games=5)) == {"default"}
    assert _variants(simcore.simulate("zwai", games=5, params={"hand_size_2": 10}, variant="x")) == {"x"}
