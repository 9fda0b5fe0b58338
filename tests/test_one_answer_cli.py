"""Issue 53, case 13 and item 7: `simcore run --set K=V` names its variant by what it changed, as a sweep names an
unnamed variant, so that `compare` names what it compares; and item 3: `simcore compare A B --json`, the claims of
a comparison as JSON for scripts."""

import json

import pyarrow.parquet as pq
import pytest

import simcore
from analyses import claims

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


@pytest.fixture(scope="module")
def goofspiel_runs(tmp_path_factory):
    """Three Goofspiel runs of 300 games: seat 0 greedy against random on the default rules ("default") and on
    descending prizes ("points_order=descending"), on the same deals; and every seat random on another seed
    ("default" too: other policies, not paired)."""
    from tests.conftest import simcore_cli

    folder = tmp_path_factory.mktemp("compare")
    for name, args in (("greedy", ()), ("descending", ("--set", "points_order=descending")),
                       ("random", ("--policy", "random", "--seed", "2"))):
        done = simcore_cli("run", "goofspiel", "--policy", "0=greedy", *args, "--games", "300", "--quiet",
                           "--out", folder / f"{name}.parquet")
        assert done.returncode == 0, done.stderr
    return folder


def _json(done):
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)      # stdout is the JSON document and nothing else


def test_compare_json_claims_what_analyze_claims_and_compare_says(cli, goofspiel_runs):
    """Issue 53, item 3: `compare A B --json` prints the claims as JSON (schema simcore.verdict/1): of two files
    of one player count and policies the very document `analyze A B --json` prints (each file's verdict, Holm
    across the two; B's change against A on the common deals), whose change is the word of compare's sentence."""
    a, b = goofspiel_runs / "greedy.parquet", goofspiel_runs / "descending.parquet"
    found = _json(cli("compare", a, b, "--json"))
    assert found == _json(cli("analyze", a, b, "--json"))
    assert found["schema"] == "simcore.verdict/1" and json.loads(json.dumps(found)) == found
    first, second = found["variants"]
    assert (first["name"], second["name"]) == ("default", "points_order=descending") and "baseline" not in first
    assert first["games"] == second["games"] == 300 and first["verdict"] == "unbalanced"
    change = second["baseline"]
    assert change["name"] == "default" and change["games_compared"] == 300      # paired: 300 common deals
    text = " ".join(cli("compare", a, b).stdout.split())
    if change["change"] in ("fairer", "less fair"):
        assert f"points_order=descending is {change['change']} than default" in text
    else:
        assert change["change"] == "no change found" and "neither is shown fairer" in text
    assert {c["family"] for c in found["claims"] if c["word"] in claims.BALANCE} == {"Holm across 2 variants"}


def test_compare_json_of_other_policies_and_seeds_names_both_and_warns_on_stderr(cli, goofspiel_runs):
    """Issue 53, item 3 and case 13: two files of one name (both "default") are told apart by file in the JSON
    too; compare compares files of other policies and seeds (analyze would not), so its JSON says B's change
    against A, unpaired on both runs' games, and the warnings go to stderr, never into the JSON."""
    done = cli("compare", goofspiel_runs / "random.parquet", goofspiel_runs / "greedy.parquet", "--json")
    found = _json(done)
    assert [v["name"] for v in found["variants"]] == ["default (random.parquet)", "default (greedy.parquet)"]
    baseline = found["variants"][1]["baseline"]
    assert baseline["name"] == "default (random.parquet)" and baseline["games_compared"] == 600
    assert baseline["change"] in claims.CHANGE
    assert "differ in their policies" in done.stderr and "seeds differ" in done.stderr


def test_compare_json_with_what_it_does_not_print_is_one_line(cli, goofspiel_runs):
    """Issue 53, item 3: --json prints the claims alone (a script parses all of stdout): with an option that
    prints something else it is one line naming what is allowed, a non-zero exit and nothing on stdout."""
    done = cli("compare", goofspiel_runs / "greedy.parquet", goofspiel_runs / "descending.parquet", "--json",
               "--metric", "n_turns")
    assert done.returncode != 0 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "allowed: --json without --metric" in done.stderr


def test_compare_json_of_margins_is_analyzes(cli, goofspiel_runs):
    """Issue 53, item 3: by margins too, compare --json of two files of one player count and policies is the
    document analyze --json prints of them."""
    files = (goofspiel_runs / "greedy.parquet", goofspiel_runs / "descending.parquet")
    compared = cli("compare", *files, "--json", "--score", "margin")
    analyzed = cli("analyze", *files, "--json", "--score", "margin")
    assert compared.returncode == analyzed.returncode == 0, compared.stderr
    assert json.loads(compared.stdout) == json.loads(analyzed.stdout)


# --- item 2 and 3: versus, ladder and analyze --strength claim their contests alike, as JSON too ---------------------

def test_versus_json_is_the_contest_versus_prints_and_its_one_claim(cli, tmp_path):
    """Issue 53, items 2-3: `versus --json` holds the score, interval, p and word its line prints, from one claim
    of the strength vocabulary; stdout is the JSON alone (the seats' progress and "wrote" go to stderr)."""
    args = ("versus", "zwai", "--policy", "greedy", "--against", "random", "--games", "40")
    line = cli(*args).stdout.splitlines()
    said = next(text for text in line if text.startswith("greedy against random"))
    done = cli(*args, "--json", "--out", tmp_path / "v")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["schema"] == claims.SCHEMA and "wrote 2 seatings" in done.stderr
    contest, (claim,) = body["contest"], body["claims"]
    assert said.endswith(f"score {contest['score']:.4f} [{contest['low']:.4f}, {contest['high']:.4f}] (fair "
                         f"{contest['fair']:.4f}, p = {contest['pvalue']:.2g}): {contest['verdict']}")
    assert claim["word"] == contest["verdict"] in claims.STRENGTH
    assert (claim["variant"], claim["against"], claim["games"]) == ("greedy", "random", 40)
    assert claim["numbers"]["rules"] == "the default rules"


def test_ladder_json_words_each_rung_as_its_line_and_report(cli, tmp_path):
    """Issue 53, item 2: a ladder's rungs say the words of the strength vocabulary in its lines, its report and
    its JSON, each rung a claim in the fixed sequence that reads the skill depth."""
    done = cli("ladder", "zwai", "--budgets", "2,16", "--games", "30", "--out", tmp_path / "l", "--json")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    (rung,), (claim,) = body["ladder"]["rungs"], body["claims"]
    assert rung["verdict"] == claim["word"] in claims.STRENGTH and claim["family"].startswith("fixed sequence")
    assert claim["variant"].startswith("ismcts:iterations=16") and claim["against"].startswith("ismcts:iterations=2")
    assert (body["ladder"]["skill_depth"] == 16) == (claim["word"] == "stronger")
    report = (tmp_path / "l" / "ladder.md").read_text()
    assert f"| 16 | 2 | 30 | {rung['score']:.4f} |" in report and report.count(f"| {claim['word']} |") == 1


def test_analyze_json_claims_the_contests_of_the_skill_levels_it_was_given(cli, tmp_path):
    """Issue 53, item 2: `analyze --strength` states the contest of two skill levels; its JSON holds the same
    contest as a claim (the word and numbers versus claimed), apart from the variants' verdicts."""
    (tmp_path / "s.toml").write_text('game = "zwai"\ngames = 60\nseed = 1\n[axes]\npolicy = ["random", "greedy"]\n')
    assert cli("sweep", tmp_path / "s.toml", "--out", tmp_path / "s", "--quiet").returncode == 0
    versus = cli("versus", "zwai", "--policy", "greedy", "--against", "random", "--games", "40", "--out",
                 tmp_path / "v", "--json")
    contest = json.loads(versus.stdout)["claims"][0]
    done = cli("analyze", tmp_path / "s", "--strength", tmp_path / "v", "--json")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    strength = [c for c in body["claims"] if c["word"] in claims.STRENGTH]
    assert len(strength) == 1 and {k: strength[0][k] for k in ("variant", "against", "word", "games")} == \
        {k: contest[k] for k in ("variant", "against", "word", "games")}
    assert strength[0]["numbers"]["score"] == pytest.approx(contest["numbers"]["score"])
    assert [v["name"] for v in body["variants"]] == ["policy=random", "policy=greedy"]


def test_a_split_between_seats_is_said_beside_a_contests_word_never_folded_into_it(cli, tmp_path):
    """Issue 56, item 3: Goofspiel's UCB1 search against greedy at 13 cards wins every game as the first bidder
    and few as the second: versus says the split beside its word, its JSON holds it (the contest's and the
    claim's), and a ladder's rung that is split says so under its table; seats alike say no split."""
    args = ("versus", "goofspiel", "--policy", "ismcts:iterations=200,tree=raw,widen=0.5", "--against", "greedy",
            "--games", "60", "--quiet")
    lines = cli(*args).stdout.splitlines()
    body = json.loads(cli(*args, "--json").stdout)
    split = body["contest"]["seat_split"]
    assert split == body["claims"][0]["numbers"]["seats"] and split["split"] and split["pvalue"] < 0.05
    assert split["scores"] == pytest.approx(body["contest"]["seat_scores"])
    first, second = split["scores"]
    assert first > 0.9 and second < 0.4
    assert f"by seat: {first:.3f} as seat 0, {second:.3f} as seat 1: split beyond chance (p = " in lines[1]
    alike = cli("versus", "zwai", "--policy", "greedy", "--against", "random", "--games", "40").stdout
    assert "no split beyond chance" in alike
    ladder = cli("ladder", "goofspiel", "--policy-base", "ismcts:tree=raw,widen=0.5", "--budgets", "50,400",
                 "--games", "60", "--out", tmp_path / "l", "--json")
    (rung,) = json.loads(ladder.stdout)["ladder"]["rungs"]
    text = cli("ladder", "goofspiel", "--policy-base", "ismcts:tree=raw,widen=0.5", "--budgets", "50,400",
               "--games", "60", "--out", tmp_path / "l").stdout
    assert rung["seat_split"]["split"] and "  400 vs 50 by seat: " in text


def test_a_contests_seats_in_words_come_from_its_claim():
    """claims.seat_text and split_text render the claim's numbers alone; a claim without seats says nothing."""
    from types import SimpleNamespace

    from simcore.studies import versus

    split = versus.SeatSplit((0.84, 0.19), 40.0, 0.002)
    contest = SimpleNamespace(policy="a", against="b", deals=300, score=0.515, low=0.48, high=0.55, fair=0.5,
                              pvalue=0.4, split=split)
    claim = claims.contest_claim(contest, "the default rules", "z test")
    assert claim.word == "no difference found"
    assert claims.split_text(claim) == "0.840 as seat 0, 0.190 as seat 1: split beyond chance (p = 0.002)"
    level = claims.contest_claim(SimpleNamespace(**{**vars(contest), "split": versus.SeatSplit((0.5, 0.53), 0.4,
                                                                                                0.52)}), "", "z")
    assert claims.split_text(level) == "" and "no split beyond chance (p = 0.52)" in claims.seat_text(level)
    bare = claims.contest_claim(SimpleNamespace(**{**vars(contest), "split": None}), "", "z")
    assert claims.seat_text(bare) == claims.split_text(bare) == "" and "seats" not in bare.numbers
