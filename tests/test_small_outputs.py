"""Issue 38, item 8: small things in the outputs. A report cell never reads `nan [nan, nan]` (it says why a value
is missing); `compare` of two files of one variant name tells them apart by file; `duel --variant` takes a
list-valued parameter."""

import dataclasses
import math
from types import SimpleNamespace

import numpy as np

from analyses import report
from analyses.balance import seat_balance
from analyses.data import load_result
from analyses.decisiveness import Estimate, decisiveness, load_trace
from simcore.cli import _variant_spec


def test_a_missing_estimate_says_why():
    """No value: the reason the caller gives; a value without an interval (too few games or rows): said so."""
    assert report._est(Estimate(math.nan, math.nan, math.nan, 0)) == "none (nothing to measure it on)"
    assert report._est(Estimate(math.nan, math.nan, math.nan, 0), missing="none: why") == "none: why"
    assert report._est(Estimate(0.278, math.nan, math.nan, 12), ".3f") == "0.278 (too few for an interval)"
    assert report._est(Estimate(0.5, 0.4, 0.6, 100)) == "0.50 [0.40, 0.60]"


def test_a_traced_report_has_no_nan_cell(cli, tmp_path):
    """A small traced run: every seat plays every fish card, so "points if not" has nothing to measure, and few
    games give some groups no interval; the demo report showed 63 such cells as `nan [nan, nan]`."""
    assert cli("run", "zwai", "--games", "100", "--trace", "--out", tmp_path / "t.parquet", "--quiet").returncode == 0
    done = cli("analyze", tmp_path / "t.parquet", "--report", tmp_path / "r.md")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "r.md").read_text()
    assert "nan" not in text and "none (nothing to measure it on)" in text


def test_the_how_decided_table_says_why_a_value_is_missing(cli, tmp_path):
    """Cut traces leave the lead changes and when the lead was settled unknown; without a decisive game there are
    no comebacks and no settling point: each cell says which."""
    assert cli("run", "zwai", "--games", "30", "--trace", "--out", tmp_path / "t.parquet", "--quiet").returncode == 0
    result = load_result(tmp_path / "t.parquet")
    whole = decisiveness(load_trace(result), result.wins)
    unknown = Estimate(math.nan, math.nan, math.nan, 0)
    cut = dataclasses.replace(whole, lead_changes=unknown, decided_at=unknown, n_cut=7, max_steps=64)
    undecided = dataclasses.replace(whole, n_decisive=0, comeback=unknown, decided_at=unknown)
    rows = report.decided_table(SimpleNamespace(decided={"cut": cut, "undecided": undecided})).rows
    assert rows[0][1] == rows[0][3] == f"not known: 7 traces cut at 64 {whole.step}s"
    assert rows[1][2] == rows[1][3] == "none: no game had a single winning side"
    assert not any("nan" in str(cell) for row in rows for cell in row)


def test_a_team_game_has_no_chi_square_and_says_why():
    """Every win of a team game is shared: the chi-square test of the one-winner games has none to count."""
    wins = np.array([[1, 0, 1, 0], [0, 1, 0, 1]] * 20, bool)
    assert report._gap(seat_balance(wins, np.zeros(40, bool)))[3] == "none: no game with one winner"


def test_compare_names_two_default_variants_by_file(cli, tmp_path):
    for seed, name in ((1, "a"), (2, "b")):
        done = cli("run", "zwai", "--games", "50", "--seed", seed, "--out", tmp_path / f"{name}.parquet", "--quiet")
        assert done.returncode == 0, done.stderr
    done = cli("compare", tmp_path / "a.parquet", tmp_path / "b.parquet")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("default (a.parquet) (50 games) vs default (b.parquet) (50 games), zwai")
    assert "| default (a.parquet) | default (b.parquet) | points_0 |" in done.stdout


def test_a_variant_takes_a_list_valued_parameter():
    """A comma begins the next KEY=VALUE only when a key follows it, outside brackets and quotes: a list stays
    whole, comma-separated where the game takes that, or as TOML."""
    assert _variant_spec("swapped:bribe_ranking=2,3,4,5,ich,der,6") == \
        ("swapped", [("bribe_ranking", "2,3,4,5,ich,der,6")])
    assert _variant_spec("v:players=4,bribe_ranking=2,3,4,5,6,der,ich,best_bonus=3")[1] == \
        [("players", 4), ("bribe_ranking", "2,3,4,5,6,der,ich"), ("best_bonus", 3)]
    assert _variant_spec("f:fish_counts=[4,6,6,4,3],hand_size_2=10")[1] == \
        [("fish_counts", [4, 6, 6, 4, 3]), ("hand_size_2", 10)]
    assert _variant_spec('y:formation="#.,a=b",players=3')[1] == [("formation", "#.,a=b"), ("players", 3)]


def test_duel_plays_a_list_valued_variant(cli):
    """The issue's command, which was refused ("'3' is not KEY=VALUE"): the ranking with Der and Ich swapped."""
    done = cli("duel", "wichtel", "--set", "players=3", "--variant", "swapped:bribe_ranking=2,3,4,5,6,der,ich",
               "--variant", "printed:players=3", "--games", "200", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "wichtel: swapped vs printed" in done.stdout
    bad = cli("duel", "zwai", "--variant", "f:fish_counts=4,6,6,4,3", "--games", "20", "--quiet")
    assert bad.returncode != 0 and "fish_counts" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
