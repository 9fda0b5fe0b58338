"""Issue 53, first increment: every verdict word is a claim (analyses/claims.py), and `simcore analyze --json`
prints the claims for scripts and notebooks (schema simcore.verdict/1, docs/reference/parquet.md)."""

import json
import math
import re

import pyarrow.parquet as pq
import pytest

from analyses import claims, data, report
from analyses.claims import WORDS, Claim
from analyses.verdict import unit_name
from simcore.studies import sweep
from tests.test_verdict import zwai_4p  # noqa: F401  (a fixture: greedy 4-player Zwai, square and ring)

# two fair variants (every seat random) and two with seat 0 greedy against random, each pair a rule apart, so that
# "unbalanced" and "no edge found" are both said and each second variant has a baseline of its policies
SWEEP = """
game = "goofspiel"
games = 300
seed = 1

[policies]
all = "random"

[[variants]]
name = "fair"

[[variants]]
name = "fair-ascending"
points_order = "ascending"

[[variants]]
name = "greedy"
policies = {0 = "greedy"}

[[variants]]
name = "greedy-descending"
points_order = "descending"
policies = {0 = "greedy"}
"""
NAMES = ("fair", "fair-ascending", "greedy", "greedy-descending")
VARIANT_KEYS = {"name", "games", "verdict", "units", "fair_within"}
CLAIM_KEYS = {"variant", "seats", "subject", "word", "test", "games", "family", "alpha", "numbers", "against"}


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    from tests.conftest import simcore_cli

    folder = tmp_path_factory.mktemp("claims")
    (folder / "s.toml").write_text(SWEEP)
    done = simcore_cli("sweep", folder / "s.toml", "--out", folder / "s", "--quiet")
    assert done.returncode == 0, done.stderr
    return folder / "s"


def _json(cli, *args):
    """``simcore analyze ARGS --json``: its stdout parsed whole (nothing else may be there), and its stderr."""
    done = cli("analyze", *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def _paragraphs(text):
    """{variant: its verdict paragraph} of analyze's terminal output (a line ``NAME: context``, then indented)."""
    out, name = {}, None
    for line in text.splitlines():
        if line.startswith("  ") and name is not None:
            out[name] = f"{out[name]} {line.strip()}".lstrip()
        else:
            name = line.split(":")[0] if ":" in line and not line.startswith(" ") else None
            if name is not None:
                out[name] = ""
    return out


def _check_units(variant, fair):
    for unit in variant["units"]:
        assert set(unit) == {"name", "share", "low", "high", "fair"}
        assert 0 <= unit["low"] <= unit["share"] <= unit["high"] <= 1, unit
        assert unit["fair"] == pytest.approx(fair)


def test_analyze_json_of_a_sweep(cli, swept):
    """Issue 53, `--json` on analyze: stdout is one JSON document of schema simcore.verdict/1 and nothing else;
    every variant is in it with the games of its file, a verdict word the text output says of it too, every
    seat's share within its interval in [0, 1], fair within the margin, and against its baseline the change the
    text says; every claim has its test, games, family and error rate; the document round-trips."""
    found, _ = _json(cli, swept, "--margin", "0.05")
    assert found["schema"] == "simcore.verdict/1" and found["unfinished"] == []
    assert json.loads(json.dumps(found)) == found
    variants = {v["name"]: v for v in found["variants"]}
    assert list(variants) == list(NAMES)
    text = _paragraphs(cli("analyze", swept, "--margin", "0.05", "--explain").stdout)
    for name, v in variants.items():
        assert VARIANT_KEYS <= set(v) <= VARIANT_KEYS | {"baseline"}
        assert v["games"] == pq.read_metadata(swept / f"{name}.parquet").num_rows == 300
        assert v["verdict"] in ("unbalanced", "no edge found")
        lead = "Unbalanced: seat 0 takes" if v["verdict"] == "unbalanced" else "No seat edge found"
        assert text[name].startswith(lead), (name, text[name])
        assert [u["name"] for u in v["units"]] == ["seat 0", "seat 1"]
        _check_units(v, 0.5)
        assert v["fair_within"]["margin"] == 0.05 and isinstance(v["fair_within"]["shown"], bool)
        if v["fair_within"]["shown"] or v["verdict"] == "no edge found":   # said after an edge only when shown
            said = "Fair within 0.05:" if v["fair_within"]["shown"] else "Not shown fair within 0.05:"
            assert said in text[name], (name, text[name])
    assert [v["verdict"] for v in variants.values()] == ["no edge found", "no edge found", "unbalanced", "unbalanced"]
    assert "baseline" not in variants["fair"] and "baseline" not in variants["greedy"]
    for name, base in (("fair-ascending", "fair"), ("greedy-descending", "greedy")):
        change = variants[name]["baseline"]
        assert change["name"] == base and change["games_compared"] == 300     # paired: the 300 common deals
        assert change["change"] in ("fairer", "less fair", "no change found", "never came into play")
        said = re.search(rf"Against its baseline {base}, on 300 games of common deals( \([a-z ]+\))?: "
                         "(fairer|less fair)?", text[name])
        assert said and (said.group(2) or "no change found") == change["change"]
    for claim in found["claims"]:
        assert set(claim) == CLAIM_KEYS and claim["word"] in WORDS
        assert claim["test"] and claim["games"] == 300 and claim["alpha"] == 0.05
        assert claim["family"] in ("Holm across 4 variants", "Bonferroni across 4 variants",
                                   "Holm across 2 variants")
    assert {c["word"] for c in found["claims"]} >= {"unbalanced", "no edge found", "not shown fair within"}


def test_the_claims_agree_with_the_verdicts_and_the_fairness(swept, zwai_4p):  # noqa: F811
    """Issue 53: "no command writes its own verdict sentences": the claims are built from the objects the
    sentences are composed of, so for every variant of two real analyses (a Goofspiel sweep; Zwai's square and
    ring, where the ring is unbalanced at seat 3 and less fair than the square) the claim's word and numbers are
    the Verdict's and the Fairness object's."""
    checked = set()
    for results in (data.load_folder(swept), zwai_4p):
        analysis = report.analyze(results)
        found = claims.claims(analysis)
        for name, verdict in analysis.verdicts.items():
            mine = {c.word: c for c in found if c.variant == name}
            balance = mine["unbalanced" if verdict.unbalanced else "no edge found"]
            assert balance.numbers["adjusted_pvalue"] == verdict.adjusted_pvalue
            assert balance.numbers["pvalue"] == verdict.gap_pvalue
            assert balance.games == analysis.balances[name].n_games
            worst = [u for u in balance.numbers["units"] if tuple(u["seats"]) == verdict.worst_seat]
            assert [(u["share"], u["low"], u["high"], u["fair"]) for u in worst] == \
                [(verdict.share, verdict.low, verdict.high, verdict.fair)]
            if verdict.unbalanced:
                assert balance.seats == verdict.worst_seat
                assert balance.subject == f"{name}, {unit_name(verdict.worst_seat)}"
                assert (balance.numbers["share"], balance.numbers["edge"]) == (verdict.share, verdict.edge)
            else:                    # after Holm the gap points at no seat: the claim names none
                assert balance.seats == () and "share" not in balance.numbers
            within = mine["fair within" if verdict.within.shown else "not shown fair within"]
            assert within.numbers["margin"] == verdict.within.margin
            fairness = (analysis.fairness or {}).get(name)
            changes = [c for c in found if c.variant == name and c.word in claims.CHANGE]
            if fairness is None:
                assert changes == []
                continue
            word = "never came into play" if fairness.inert else fairness.verdict
            assert [(c.word, c.against, c.numbers["adjusted_pvalue"]) for c in changes] == \
                [(word, fairness.a, fairness.change_p)]
            assert f"**{word}**" in fairness.against() or word == "no change found"
            checked.add((name, word))
    assert ("ring-4p", "less fair") in checked
    ring = [c for c in claims.claims(report.analyze(zwai_4p)) if c.variant == "ring-4p"][0]
    assert (ring.word, ring.seats) == ("unbalanced", (3,))


def test_a_team_game_claims_its_teams(cli, tmp_path):
    """Issue 53: in a team game (Zwergen Ziehen for 4: two teams of two) the units are the teams, named as every
    verdict names them, each with a fair share of a half."""
    out = tmp_path / "z4.parquet"
    assert cli("run", "zwergen", "--set", "players=4", "--games", "300", "--out", out, "--quiet").returncode == 0
    found, _ = _json(cli, out)
    (variant,) = found["variants"]
    assert [u["name"] for u in variant["units"]] == ["the team of seats 0 and 2", "the team of seats 1 and 3"]
    _check_units(variant, 0.5)
    assert variant["games"] == 300


def test_an_unfinished_folder_is_said_in_the_json_and_on_stderr(cli, tmp_path):
    """Issue 53 with issue 52, case 5: with --json an unfinished folder's note goes into the JSON ("unfinished")
    and to stderr, and stdout stays the JSON alone (no UNFINISHED line over it)."""
    out = tmp_path / "s"
    (tmp_path / "s.toml").write_text(SWEEP)
    assert cli("sweep", tmp_path / "s.toml", "--out", out, "--games", "40", "--quiet").returncode == 0
    edited = json.loads((out / sweep.MANIFEST).read_text())
    edited["planned"] = [*edited["planned"], "more"]      # a variant planned and never played
    (out / sweep.MANIFEST).write_text(json.dumps(edited))
    found, stderr = _json(cli, out)
    (note,) = found["unfinished"]
    assert "is not finished: 1 of its 5 planned variants have no results (more)" in note
    assert note in stderr
    assert [v["name"] for v in found["variants"]] == list(NAMES)


@pytest.mark.parametrize("extra, allowed", [
    (("--tables",), "allowed: --json without --tables and --report"),
    (("--report", "r.md"), "allowed: --json without --tables and --report"),
])
def test_json_with_what_it_does_not_print_is_one_line(cli, swept, tmp_path, extra, allowed):
    """Issue 53: --json prints the claims alone (a script parses all of stdout): anything else with it is one
    line naming what is allowed, a non-zero exit, nothing on stdout and no report written."""
    extra = tuple(str(tmp_path / e) if e.endswith(".md") else e for e in extra)
    done = cli("analyze", swept, "--json", *extra)
    assert done.returncode != 0 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and allowed in done.stderr
    assert not (tmp_path / "r.md").exists()


def test_a_claim_speaks_only_the_vocabulary():
    """Issue 53: every verdict word comes from one small fixed vocabulary: a claim of another word is refused
    (a word outside it would be a sentence of its own), and JSON has no NaN: a missing number is null."""
    with pytest.raises(ValueError, match="'balanced' is not a verdict word; allowed: unbalanced, no edge found"):
        Claim("v", "balanced", "gap test", 10, "none (one variant)", 0.05)
    units = [{"seats": [0], "share": 0.5, "low": 0.4, "high": 0.6, "fair": 0.5}]
    text = claims.to_json([Claim("v", "no edge found", "gap test", 10, "none (one variant)", 0.05,
                                 {"pvalue": math.nan, "units": units})])
    assert json.loads(text)["claims"][0]["numbers"]["pvalue"] is None
