"""Analyses on real game data: CRN pairing, reports (Markdown and HTML), and the analyze / compare / duel commands."""

import base64
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import simcore
from analyses import data, glossary, report, variants, watch
from simcore.io import config as cfg
from simcore.io import results
from simcore.studies import runs


def _result(tmp_path, name, params, seed=5, games=20_000, game="zwergen"):
    run = cfg.resolve(game, sets=list(params.items()), policies=[("all", "greedy")], games=games, seed=seed,
                      variant=name)
    path = tmp_path / f"{name}.parquet"
    runs.run_to_file(run, path)
    return data.load_result(path)


def test_common_random_numbers_shrink_the_interval(tmp_path):
    """Design: 'two variants run with the same seed see the same deals and dice ... paired comparisons then need
    far fewer games'. The paired interval of a win-rate difference is much narrower than the unpaired one of the
    same variants run on different seeds. (How much it helps depends on how many games the rule change leaves
    alike: 4 hats per colour instead of 7 binds in few games; a change to every move, such as add_pull, gains
    almost nothing.)"""
    a = _result(tmp_path, "a", {})
    b_same = _result(tmp_path, "b", {"hats_per_colour": 4})
    b_other = _result(tmp_path, "b-other-seed", {"hats_per_colour": 4}, seed=6)
    paired, fixed = variants.compare(a, b_same, ["win_0", "n_turns"])
    unpaired, _ = variants.compare(a, b_other, ["win_0", "n_turns"])
    assert fixed == [] and [c.metric for c in paired] == ["win_0", "n_turns"]
    assert all(c.paired for c in paired) and not any(c.paired for c in unpaired)
    for p, u in zip(paired, unpaired, strict=True):
        assert (p.result.high - p.result.low) < 0.6 * (u.result.high - u.result.low), p.metric


def test_compare_names_a_fixed_length_and_tests_the_rest(tmp_path):
    """As the report does (issue 25): a metric that takes one value in every game of both files (Zwai's 48
    turns) is named, not tested, and Holm corrects across the metrics tested."""
    a = _result(tmp_path, "a", {}, games=300, game="zwai")
    b = _result(tmp_path, "b", {"formation": "ring"}, games=300, game="zwai")
    comparisons, untested = variants.compare(a, b)
    assert "n_turns" not in [c.metric for c in comparisons] and untested == [("n_turns", "a", "b", 48)]
    assert [c.metric for c in comparisons] == ["points_0", "points_1"]     # fairer or not: variants.fairness
    assert report.untested_text(untested) == ("Not tested, as it cannot differ: n_turns (48 in every game; "
                                              "1 comparison).")


def test_compare_refuses_different_games(tmp_path):
    a = _result(tmp_path, "zz", {}, games=500)
    b = _result(tmp_path, "zw", {}, games=500, game="zwai")
    with pytest.raises(data.DataError, match="different games"):
        variants.compare(a, b)


def test_report_has_tables_plots_and_baseline_comparisons(tmp_path):
    rs = [_result(tmp_path, n, p, games=5000) for n, p in
          (("base", {}), ("pro", {"pro": True}), ("four", {"players": 4}))]
    path = report.write_report(rs, tmp_path / "report.md")
    text = path.read_text()
    for name in ("base", "pro", "four"):
        assert f"| {name} |" in text
    for png in ("win_share.png", "duration.png", "scores.png"):
        assert (tmp_path / "report-plots" / png).stat().st_size > 5000
        assert f"report-plots/{png}" in text
    analysis = report.analyze(rs)
    # four players are not compared with two: "four" is the baseline of its own player count
    assert {(c.a, c.b, c.metric) for c in analysis.comparisons} == {("pro", "base", "n_turns")}
    assert list(analysis.fairness) == ["pro"] and analysis.fairness["pro"].a == "base"
    assert analysis.baselines == {"base": "base", "pro": "base", "four": "four"}
    # the table shows what the result objects hold
    b = analysis.balances["pro"]
    assert f"{b.share[0]:.3f} [{b.low[0]:.3f}, {b.high[0]:.3f}]" in text


def test_analyze_and_compare_commands(cli, tmp_path):
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('game = "zwergen"\ngames = 4000\nseed = 2\n[axes]\npro = [false, true]\n')
    out = tmp_path / "runs"
    assert cli("sweep", sweep_file, "--out", out, "--quiet").returncode == 0
    done = cli("analyze", out, "--report", out / "report.md", "--tables")
    assert done.returncode == 0, done.stderr
    assert "| pro=false |" in done.stdout and (out / "report.md").exists()
    # every table's tests, and the error they control, named in one line (issue 22)
    assert "gap p: permutation test of the gap" in done.stdout
    assert "p (Holm) keeps the chance of any false difference at 5% across the variants" in done.stdout
    done = cli("compare", out / "pro=false.parquet", out / "pro=true.parquet")
    assert done.returncode == 0, done.stderr
    assert "points_0" in done.stdout and "n_turns" in done.stdout and "| yes |" in done.stdout
    assert "| gap |" not in done.stdout          # issue 37: the fairness sentence replaced the Wilson bounds' rows
    assert "pro=true is fairer than pro=false" in done.stdout or "neither is shown fairer" in done.stdout
    assert "p (Holm) keeps the chance of any false difference at 5% across the metrics" in done.stdout
    other = tmp_path / "other.parquet"
    assert cli("run", "zwergen", "--games", "4000", "--seed", "3", "--set", "pro=true", "--out", other,
               "--quiet").returncode == 0
    done = cli("compare", out / "pro=false.parquet", other)
    assert done.returncode == 0 and "seeds differ" in done.stderr and "| no |" in done.stdout
    zwai = tmp_path / "zwai.parquet"
    assert cli("run", "zwai", "--games", "100", "--out", zwai, "--quiet").returncode == 0
    done = cli("compare", out / "pro=true.parquet", zwai)
    assert done.returncode != 0 and "different games" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_compare_of_one_game_files_with_different_seeds_is_one_line(cli, tmp_path):
    """Issue 37: `compare` of two one-game files with different seeds was a ZeroDivisionError traceback (Welch's
    test estimates each run's spread from its games); `analyze` of the two still gives its verdict."""
    for name, seed in (("a", 1), ("b", 2)):
        assert cli("run", "goofspiel", "--games", "1", "--seed", seed, "--out", tmp_path / f"{name}.parquet",
                   "--quiet").returncode == 0
    done = cli("compare", tmp_path / "a.parquet", tmp_path / "b.parquet")
    assert done.returncode != 0 and "allowed: 2 or more games in each file" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.strip().splitlines()[-1].startswith("Error: ")
    assert cli("analyze", tmp_path / "a.parquet", tmp_path / "b.parquet", "--tables").returncode == 0


def test_analyze_refuses_what_is_not_a_result(cli, tmp_path):
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet")
    done = cli("analyze", junk)
    assert done.returncode != 0 and "is not a readable Parquet file" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_duel_sprt_decides_a_real_difference_and_stops_early(cli):
    """The swap penalty 0 against 3 changes the first seat's chances clearly: the SPRT stops long before the
    budget."""
    done = cli("duel", "zwergen", "--variant", "a:swap_penalty=0", "--variant", "b:swap_penalty=3", "--policy",
               "random", "--metric", "win_0", "--sprt", "--batch", "5000", "--max-games", "400000")
    assert done.returncode == 0, done.stderr
    assert "SPRT: H1 accepted" in done.stdout
    played = int(done.stdout.split("SPRT: ")[1].split(" after ")[1].split(" games")[0].replace(",", ""))
    assert played < 400_000


def test_duel_without_difference_accepts_h0_or_runs_out(cli):
    done = cli("duel", "zwergen", "--variant", "a:re_moves_rope=false", "--variant", "b:re_moves_rope=true",
               "--metric", "win_1", "--sprt", "--batch", "20000", "--max-games", "100000")
    # without the Pro rules re_moves_rope changes nothing: every game is the same, no discordant game
    assert done.returncode == 0, done.stderr
    assert "difference +0.0000" in done.stdout and "H1 accepted" not in done.stdout


def test_duel_bad_metric(cli):
    done = cli("duel", "zwergen", "--metric", "n_turns", "--sprt")
    assert done.returncode != 0 and "not a yes/no column" in done.stderr


def test_simulate_table_reads_back_as_a_result(tmp_path):
    table = simcore.simulate("zwai", games=200, seed=1)
    path = tmp_path / "t.parquet"
    import pyarrow.parquet as pq
    pq.write_table(table, path)
    r = data.load_result(path)
    assert r.players == 2 and r.wins.shape == (200, 2) and np.array_equal(r.column("game_index"), np.arange(200))
    assert set(r.extras()) >= {"cards_0", "cards_1", "removed_1", "skips"}
    assert results.read(path)[1]["game"] == "zwai"


def test_a_game_with_label_columns_is_analysed(tmp_path):
    """Der Herr der Wichtel writes columns of labels; the report averages the numeric columns only (it used to
    fail on the labels)."""
    import pyarrow.parquet as pq

    table = simcore.simulate("wichtel", games=300, seed=2, policies={"*": "greedy"})
    pq.write_table(table, tmp_path / "w.parquet")
    result = data.load_result(tmp_path / "w.parquet")
    labels = [name for name, values in result.columns.items() if values.dtype.kind not in "biuf"]
    assert labels and not set(labels) & set(result.extras())
    text = report.write_report([result], tmp_path / "r.md").read_text()
    assert "## Game-specific columns" in text


class _Page(HTMLParser):
    """Checks that every element is closed in order, and collects the images, tables and links."""

    VOID = {"meta", "img", "br", "hr", "link", "input", "wbr"}

    def __init__(self):
        super().__init__()
        self.open, self.images, self.links, self.tags = [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs["src"])
        if tag == "a":
            if not attrs.get("href", "#").startswith("#"):     # not the glossary's links and anchors
                self.links.append(attrs["href"])
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open.pop() == tag, f"</{tag}> closes nothing open"


def _fake_replay(file_path, game_index, out_path):
    Path(out_path).write_text(f"<!DOCTYPE html><title>{game_index}</title><p>{file_path} game {game_index}</p>\n")


@pytest.fixture(scope="module")
def two_variants(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    return [_result(folder, n, p, games=2000) for n, p in (("base", {}), ("pro", {"pro": True}))]


def test_html_report_is_one_page_with_plots_tables_and_replay_links(two_variants, tmp_path):
    path = report.write_report(two_variants, tmp_path / "r.html", write_replay=_fake_replay)
    page = _Page()
    page.feed(path.read_text())
    page.close()
    assert page.open == [] and page.tags[0] == "html"
    assert "script" not in page.tags and "link" not in page.tags    # nothing to fetch: style inline, no scripts
    assert len(page.images) == 3 and all(src.startswith("data:image/png;base64,") for src in page.images)
    assert all(base64.b64decode(src.split(",")[1])[:8] == b"\x89PNG\r\n\x1a\n" for src in page.images)
    # the verdict, balance (two tables: no page shows 13 columns whole), length, extras (Zwergen's 9 columns: two
    # tables), comparisons, games worth watching
    assert page.tags.count("table") == 8
    picks = [w for r in two_variants for w in watch.games_worth_watching(r)]
    assert len(page.links) == len(picks) and all(link.startswith("r-replays/") for link in page.links)
    for link, w in zip(page.links, picks, strict=True):
        assert f"game {w.game_index}" in (tmp_path / link).read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r-replays", "r.html"]   # no plots beside it
    text = path.read_text()
    for heading in ("Seat balance", "Game length and completion", "Game-specific columns (means)",
                    "Against the baseline <code>base</code>", "Games worth watching"):
        assert f"<h2>{heading}</h2>" in text


def test_variant_names_with_one_slug_get_a_replay_page_each(two_variants, tmp_path):
    """'a b' and 'a-b' make the same file name: the second variant's pages must not overwrite the first's."""
    first, second = (replace(r, name=n) for r, n in zip(two_variants, ("a b", "a-b"), strict=True))
    path = report.write_report([first, second], tmp_path / "r.html", write_replay=_fake_replay)
    page = _Page()
    page.feed(path.read_text())
    assert len(set(page.links)) == len(page.links) == len(list((tmp_path / "r-replays").iterdir()))


def test_html_report_without_a_replay_writer_names_the_commands_only(two_variants, tmp_path):
    text = report.write_report(two_variants, tmp_path / "r.html").read_text()
    assert "r-replays/" not in text and "simcore replay" in text and not (tmp_path / "r-replays").exists()


def test_a_failing_report_leaves_the_old_one_alone(two_variants, tmp_path):
    path = tmp_path / "r.html"
    path.write_text("old")

    def broken(file_path, game_index, out_path):
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        report.write_report(two_variants, path, write_replay=broken)
    assert path.read_text() == "old" and not list(tmp_path.glob(".*tmp"))
    with pytest.raises(ValueError, match="allowed suffixes: .md, .html"):
        report.write_report(two_variants, tmp_path / "r.txt")


def test_markdown_report_keeps_its_sections_and_adds_the_games_worth_watching(two_variants, tmp_path):
    """Byte for byte as before the games worth watching: every block in order, one blank line apart (the
    context of each variant after the summary)."""
    text = report.write_report(two_variants, tmp_path / "r.md").read_text()
    analysis = report.analyze(two_variants)
    before, after = text.split("\n\n## Games worth watching\n\n")
    expected = [
        "# simcore report: zwergen", "2 variants, 4,000 games, seed 5. Baseline for comparisons: `base`.",
        "## Verdict", *map(str, report.verdict_blocks(analysis)),
        "## The variants", *report.context_section(two_variants).blocks,
        "## Seat balance", None, *map(str, report.fit(report.balance_table(analysis))),
        "![points per seat](r-plots/win_share.png)",
        "## Game length and completion", None, str(report.shape_table(analysis)),
        "![game length](r-plots/duration.png)",
        "## Game-specific columns (means)", *map(str, report.fit(report.extras_table(analysis))),
        "![scores](r-plots/scores.png)",
        "## Against the baseline `base`", None,
        str(report.comparison_table(analysis.comparisons, analysis.fairness.values())),
    ]
    blocks = before.split("\n\n")
    assert len(blocks) == len(expected)
    for block, want in zip(blocks, expected, strict=True):
        assert want is None or block == want            # None: a paragraph of prose
    watching, words = after.split("\n\n## Words\n\n")
    assert watching.endswith(" |") and watching.count("simcore replay") == 6
    assert words == glossary.markdown() + "\n"     # the glossary the verdict's terms link to, last


def test_each_variant_is_compared_with_a_baseline_of_its_player_count_and_policies(cli, tmp_path):
    """Issue 25, part 3: like with like. A variant meets the baseline of its group (player count and every
    seat's policy): the first of the group, or the one --baseline names; two baselines for one group are
    refused; a quantity that takes one value in every game of both (Zwai's 48 turns) is not tested."""
    rs = [_result(tmp_path, n, p, games=400, game="zwai") for n, p in
          (("square-2p", {"players": 2}), ("ring-2p", {"players": 2, "formation": "ring"}),
           ("square-3p", {"players": 3}), ("ring-3p", {"players": 3, "formation": "ring"}))]
    analysis = report.analyze(rs)
    assert analysis.comparisons == []       # n_turns is fixed; fairness is compared by analysis.fairness
    assert {(f.b, f.a) for f in analysis.fairness.values()} == {("ring-2p", "square-2p"), ("ring-3p", "square-3p")}
    assert sorted(analysis.untested) == [("n_turns", "ring-2p", "square-2p", 48),
                                         ("n_turns", "ring-3p", "square-3p", 48)]
    assert "Not tested, as it cannot differ: n_turns (48 in every game; 2 comparisons)." in \
        report.write_report(rs, tmp_path / "r.md").read_text()
    chosen = report.analyze(rs, ("ring-3p",))
    assert {(f.b, f.a) for f in chosen.fairness.values()} == {("ring-2p", "square-2p"), ("square-3p", "ring-3p")}
    with pytest.raises(data.DataError, match="--baseline square-3p and ring-3p are of the same player count"):
        report.analyze(rs, ("square-3p", "ring-3p"))
    done = cli("analyze", *[r.path for r in rs], "--baseline", "ring-3p", "--baseline", "ring-2p", "--tables")
    assert done.returncode == 0, done.stderr
    assert "| square-2p | ring-2p | imbalance |" in done.stdout and "| square-3p | ring-3p | imbalance |" in done.stdout


def test_every_output_says_what_it_is_of(cli, two_variants, tmp_path):
    """Issue 25, part 2: the report, the terminal and the run summary name the game and its rules version, the
    parameters that differ from the defaults, every seat's policy, the games, the seed and simcore's version;
    compare warns when the player counts or policies differ."""
    text = report.write_report(two_variants, tmp_path / "r.md").read_text()
    assert "Every variant: zwergen (rules version 1); every seat greedy; 2,000 games, seed 5; simcore " \
           f"{simcore.__version__}. Each one's rules:\n\n* `base`: the default rules\n* `pro`: pro=true" in text
    page = report.write_report(two_variants, tmp_path / "r.html").read_text()
    assert "<li><code>pro</code>: pro=true</li>" in page
    mixed = report.write_report([two_variants[0], _result(tmp_path, "other-seed", {}, seed=6, games=300)],
                                tmp_path / "m.md").read_text()
    assert "* `other-seed`: zwergen (rules version 1), the default rules; every seat greedy; 300 games, seed 6" in \
        mixed
    done = cli("run", "zwai", "--set", "players=3", "--set", "formation=ring", "--policy", "greedy",
               "--policy", "1=random", "--games", "200", "--seed", "4", "--out", tmp_path / "z.parquet")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == ("zwai (rules version 1), players=3, formation=ring; seat 0 greedy, "
                                           f"seat 1 random, seat 2 greedy; 200 games, seed 4; simcore "
                                           f"{simcore.__version__}")
    done = cli("compare", two_variants[0].path, tmp_path / "z.parquet")
    assert "warning: base and players=3,formation=ring differ in their player counts and policies" in done.stderr


def test_analyze_writes_an_html_report_and_refuses_other_suffixes(cli, two_variants, tmp_path):
    files = [r.path for r in two_variants]
    done = cli("analyze", *files, "--report", tmp_path / "x.txt")
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1
    assert "allowed: .md, .html" in done.stderr and list(tmp_path.iterdir()) == []
    done = cli("analyze", *files, "--report", tmp_path / "r.html")
    assert done.returncode == 0, done.stderr
    assert "Games worth watching" in (tmp_path / "r.html").read_text()
