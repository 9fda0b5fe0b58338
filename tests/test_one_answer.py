"""Issue 53: one answer a designer can act on. The first screen of ``simcore analyze`` (a table rendered from the
claims, ``analyses.screen``), and the contradictions the issue found, each a test that failed before its fix."""

import dataclasses
import math
import re
from types import SimpleNamespace

import numpy as np
import pytest

from analyses import claims, report, screen
from analyses.data import load_folder
from analyses.fairer import _imbalance_core, _shift_core, fairer_verdict
from analyses.sequential import Decision, SequentialPlan, decision_sentence
from analyses.variants import fairness_against
from analyses.verdict import ALPHA, worst_unit
from tests.test_calibration_fairer import by_team, fair_of, max_rate, simulate

FOUR = """game = "zwai"
games = 600
seed = 1
[policies]
all = "greedy"
[[variants]]
name = "square-2p"
formation = "square"
players = 2
[[variants]]
name = "square-4p"
formation = "square"
players = 4
[[variants]]
name = "ring-2p"
formation = "ring"
players = 2
[[variants]]
name = "ring-4p"
formation = "ring"
players = 4
"""


@pytest.fixture(scope="module")
def four(tmp_path_factory):
    """The issue's 4-variant sweep (square/ring x 2/4 players, greedy, traced), at 600 games a variant."""
    from tests.conftest import simcore_cli

    folder = tmp_path_factory.mktemp("four")
    (folder / "four.toml").write_text(FOUR)
    done = simcore_cli("sweep", folder / "four.toml", "--out", folder / "runs", "--trace", "--quiet")
    assert done.returncode == 0, done.stderr
    return folder / "runs"


def test_the_four_variant_sweep_fits_one_screen(cli, four):
    """Issue 53, item 1 and 'Done means': the 4-variant sweep prints at most 25 lines without --explain: a head,
    then a table with one row per variant (its verdict word, the largest edge with its interval, fair within
    E, the change against its baseline with the games compared), then the words in plain language."""
    done = cli("analyze", four)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) <= 25, done.stdout
    head = lines.index(next(line for line in lines if line.startswith("variant ")))
    assert lines[head].split("  ")[0] == "variant" and "fair within 0.02" in lines[head]
    table = {line.split()[0]: line for line in lines[head + 1:head + 5]}
    assert list(table) == ["square-2p", "square-4p", "ring-2p", "ring-4p"]
    analysis = report.analyze(load_folder(four))
    for claim in claims.claims(analysis):     # every word in the table is a claim's, beside its subject
        assert claim.word in table[claim.variant] or claim.word in ("fair within", "not shown fair within")
    assert re.search(r"ring-4p +600 +unbalanced +seat 3 -0\.\d{3} \(-\d+%\) \[-0\.\d{3}, -0\.\d{3}\]",
                     table["ring-4p"])
    assert "than square-4p (600)" in table["ring-4p"] and table["square-4p"].endswith("the baseline")
    assert "Holm" not in done.stdout and "Hotelling" not in done.stdout and "analyses." not in done.stdout
    assert "add --explain" in done.stdout


def test_every_number_in_the_table_is_the_claims(four):
    """Issue 53, item 4: every number the table renders equals the model's (the claim's), and a variant's row
    names the unit its balance claim names."""
    analysis = report.analyze(load_folder(four))
    found = claims.claims(analysis)
    _, rows = screen.rows(found, analysis.baselines)
    by_name = {row[0]: row for row in rows}
    for claim in found:
        if claim.word == "unbalanced":
            n = claim.numbers
            cell = by_name[claim.variant][3]
            assert cell == (f"seat {claim.seats[0]} {n['edge']:+.3f} ({100 * n['edge'] / n['fair']:+.0f}%) "
                            f"[{n['low'] - n['fair']:+.3f}, {n['high'] - n['fair']:+.3f}]")
        if claim.word in claims.CHANGE:
            assert by_name[claim.variant][-1].endswith(f"({claim.games:,})")


def test_a_comparison_names_the_games_it_compared(cli, tmp_path):
    """Issue 53, case 2: a variant of 1,200 games against a baseline of 600 on the same seed is compared on the
    600 games both have, and the table and the paragraph say so (it said the variant's own 1,200 before, and
    nothing of the 600)."""
    base, ring = tmp_path / "square.parquet", tmp_path / "ring.parquet"
    assert cli("run", "zwai", "--games", 600, "--out", base).returncode == 0
    assert cli("run", "zwai", "--set", "formation=ring", "--games", 1200, "--out", ring).returncode == 0
    done = cli("analyze", base, ring, "--explain")
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("ring ") or " 1,200 " in line)
    assert " 1,200 " in row and re.search(r"(fairer than|less fair than|no change found vs) .+ \(600\)$", row)
    assert re.search(r"Against its baseline .+, on 600 games of common deals", " ".join(done.stdout.split()))


def _stand_in(name, shares, u, seed=1):
    """A result one winner a game drawn from ``shares`` by the uniforms ``u`` (as tests/test_fairer_verdicts)."""
    edges = np.cumsum(shares)
    edges[-1] = 1.0
    winners = np.searchsorted(edges, u, side="right")
    points = np.eye(len(shares))[winners]
    n = len(u)
    return SimpleNamespace(name=name, game="g", players=len(shares), seed=seed, points=points, wins=points > 0,
                           outcome=points, total=1.0, score="points", unit="", path=name,
                           columns={"game_index": np.arange(n), "winner": winners},
                           column=lambda c, n=n: np.arange(n) if c == "game_index" else None)


def test_the_change_interval_excludes_zero_exactly_when_the_verdict_finds_a_change():
    """Issue 53, case 6: "not shown fairer ... (-0.0035 [-0.0060, -0.0009], Holm p = 0.10)": a per-comparison
    interval beside a Holm-adjusted p. The interval said is at the level Holm left the test: it excludes 0
    exactly when the adjusted p is below 5%, in every family of a few hundred drawn near the edge."""
    rng = np.random.default_rng(53)
    base = (0.3, 0.25, 0.25, 0.2)
    checked = 0
    for _ in range(40):
        u = rng.random(800)
        results = [_stand_in("base", base, u)]
        for i in range(4):
            shares = np.clip(np.array(base) + rng.normal(0, 0.02, 4), 0.05, None)
            results.append(_stand_in(f"v{i}", shares / shares.sum(), np.where(rng.random(800) < 0.5, u,
                                                                                rng.random(800))))
        for f in fairness_against(results, {r.name: "base" for r in results}).values():
            low, high = f.change_interval
            assert (low > 0 or high < 0) == (f.change_p < ALPHA), (low, high, f.change_p)
            checked += f.change.pvalue < ALPHA <= f.change_p      # the case: alone beyond chance, not in the family
    assert checked >= 3


def test_when_nothing_changed_any_difference_word_holds_five_percent():
    """Issue 53, case 14 and item 6: when nothing changed, "fairer", "less fair" or "the seats moved" was said 7-8%
    of the time (two 5% tests side by side). The imbalance change is said only within a shown move of the seats
    (closed testing: no seat moving implies an unchanged imbalance), so any difference word holds 5%: measured
    over 3,000 replicates of 2 and 4 seats, fair and unfair, paired at rho 0.2 (what real games show)."""
    reps = 3000
    for seed, shares in enumerate([(0.5, 0.5), (0.25,) * 4, (0.35, 0.25, 0.22, 0.18)]):
        rng = np.random.default_rng(seed)
        a, b = simulate(np.array(shares), np.array(shares), 300, reps, rng, rho=0.2)
        fair = fair_of(len(shares), None)
        shift = _shift_core(by_team(a, None), by_team(b, None), True, 1 - ALPHA)["pvalue"]
        change = _imbalance_core(a - fair, b - fair, True, 1 - ALPHA)
        words = np.vectorize(fairer_verdict)(change["estimate"], change["pvalue"], ALPHA, shift)
        said = (words != "no change found") | (shift < ALPHA)
        side_by_side = (change["pvalue"] < ALPHA) | (shift < ALPHA)
        assert said.mean() <= max_rate(reps), (shares, said.mean())
        assert side_by_side.mean() >= said.mean()


def test_a_two_player_edge_is_told_from_the_seat_ahead():
    """Issue 53, case 9: "square-2p (seat 1 -0.033)" but "stairs-2p (seat 0 +0.037)": two seats' edges are each
    other's negatives, and the one named depended on rounding. Between units as far from fair the one ahead is
    named, in a fixed run's verdict and in a decision until decided alike."""
    assert worst_unit((0.467, 0.533), (0.5, 0.5)) == 1 and worst_unit((0.533, 0.467), (0.5, 0.5)) == 0
    shares = 0.5 + np.array([-1, 1]) * 0.0165
    assert worst_unit(shares, (0.5, 0.5)) == 1 and worst_unit(shares[::-1], (0.5, 0.5)) == 0
    assert worst_unit((0.2, 0.3, 0.25, 0.25), (0.25,) * 4) in (0, 1)      # 4 seats: the furthest, either side
    assert worst_unit((1.5, -1.5), (0, 0)) == 0                            # margins: the seat ahead too
    plan = SequentialPlan(looks=(1000, 2000), margin=0.02, variants=1)
    decision = Decision("unbalanced", 1000, 1, plan, 0.001, 0.5, (0.467, 0.533), (0.5, 0.5), None, 0.01)
    assert "seat 1 takes 0.533 points a game against a fair 0.500 (edge +0.033)" in decision_sentence(decision)


def test_a_decided_variant_says_its_decision_and_no_fixed_sample_verdict(four, tmp_path):
    """Issue 53, case 10: after --until-decided, "Undecided ... nor fairness within 0.02 ... was shown" and then
    "Fair within 0.02 ... p = 0.0098" in one paragraph: the fixed-sample tests of games whose number the stop
    chose contradicted the decision. A decided variant's claims are its decision's alone, and its paragraph has
    no fixed-sample balance or fair-within sentence."""
    plan = SequentialPlan(looks=(300, 600), margin=0.02, variants=4)
    analysis = report.analyze(load_folder(four))
    verdict = analysis.verdicts["square-2p"]
    decision = Decision("undecided", 600, 2, plan, 0.02, 0.0098, (0.47, 0.53), (0.5, 0.5), None, 0.012)
    decided = dataclasses.replace(analysis, verdicts={"square-2p": dataclasses.replace(verdict, decision=decision)},
                                  decisions={"square-2p": decision}, fairness={})
    found = claims.claims(decided)
    assert [c.word for c in found] == ["no edge found", "not shown fair within"]
    assert all(c.family.startswith("union bound over 4 variants") and c.games == 600 for c in found)


def test_unbalanced_yet_fair_within_is_said_as_one_thing(four):
    """Issue 53, case 4: the cup among "unbalanced" while its paragraph says "Fair within 0.02": both hold (a
    real edge, shown small), and the first screen says so in one note rather than in two places."""
    analysis = report.analyze(load_folder(four), margin=0.45)
    lines = screen.terminal(analysis)
    words = {(c.variant, c.word) for c in claims.claims(analysis)}
    both = [name for name in analysis.verdicts if {(name, "unbalanced"), (name, "fair within")} <= words]
    assert both, words
    for name in both:
        assert any(line.startswith(f"{name}: unbalanced, yet fair within") for line in lines)


def test_a_margin_is_answered_for_every_variant(cli, four):
    """Issue 53, case 7: `--margin 0.05` on an unbalanced variant gave no answer to the question asked (the
    paragraph said fair within only when shown). Every row answers it: shown or not shown."""
    done = cli("analyze", four, "--margin", "0.05")
    lines = done.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("variant "))
    assert "fair within 0.05" in lines[head]
    for line in lines[head + 1:head + 5]:
        assert ("  shown  " in line) != ("  not shown  " in line), line


def test_margins_as_json(cli, four):
    """Issue 53, item 3: --json reads margins too: a unit's share is its margin, its fair 0, the unit named."""
    import json

    done = cli("analyze", four, "--json", "--score", "margin")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    for v in found["variants"]:
        assert all(u["fair"] == 0 and u["low"] <= u["share"] <= u["high"] for u in v["units"])
        assert math.isclose(sum(u["share"] for u in v["units"]), 0, abs_tol=1e-9)
    assert {c["numbers"]["unit"] for c in found["claims"] if c["word"] in claims.BALANCE} == {"fish"}


def test_identical_rules_are_not_told_as_a_rule_never_reached(cli, tmp_path):
    """Issue 53, case 11: two runs of the same rules were told "the policies never reach the changed rule";
    there is no changed rule. And a gap not beyond chance is no proof of fairness: never "is what a fair game
    shows"."""
    one, two = tmp_path / "one.parquet", tmp_path / "two.parquet"
    for path in (one, two):
        assert cli("run", "zwai", "--games", 300, "--out", path).returncode == 0
    text = " ".join(cli("compare", one, two).stdout.split())
    assert "the same rules and policies: there is no change to judge" in text, text
    assert "never reach the changed rule" not in text
    explained = " ".join(cli("analyze", one, two, "--explain").stdout.split())
    assert "is what a fair game shows" not in explained
    assert re.search(r"No seat edge found: the seat gap 0\.\d{3} could be chance \(a fair game shows 0\.\d{3} on "
                     r"average at 300 games", explained) or "Unbalanced" in explained


def test_no_message_names_a_module(cli, four):
    """Issue 53, item 5: no module path in any message a designer reads (plan said
    "analyses.fairer.games_needed")."""
    for args in (("plan", four), ("plan", "--seats", 4), ("analyze", four, "--explain", "--tables")):
        done = cli(*args)
        assert done.returncode == 0, done.stderr
        assert not re.search(r"\b(analyses|simcore)\.[a-z_]+", done.stdout + done.stderr), args


def test_a_team_game_is_tabled_by_its_teams_as_its_verdict_speaks(cli, tmp_path):
    """Issue 53, case 5: Zwergen Ziehen for 4 plays in teams (its rulebook: seats 0 and 2 against 1 and 3); the
    verdict spoke of the team gap 0.103 and "0 shared between teams" while the table beside it gave the seats'
    gap 0.051 and "shared 4,000" under the same names. The team game's table is of teams: their points, the
    games shared between teams and the team gap are the verdict's numbers; a 2-player variant keeps the seats'."""
    (tmp_path / "z.toml").write_text('game = "zwergen"\ngames = 300\nseed = 3\n[axes]\nplayers = [2, 4]\n')
    assert cli("sweep", tmp_path / "z.toml", "--out", tmp_path / "z", "--quiet").returncode == 0
    analysis = report.analyze(load_folder(tmp_path / "z"))
    seats, teams = report.balance_table(analysis), report.team_table(analysis)
    assert [row[0] for row in seats.rows] == ["players=2"] and [row[0] for row in teams.rows] == ["players=4"]
    assert teams.head[3:5] == ["team 0+2 points", "team 1+3 points"] and "shared between teams" in teams.head
    row = dict(zip(teams.head, teams.rows[0], strict=True))
    balance = next(c for c in claims.claims(analysis) if c.variant == "players=4" and c.word in claims.BALANCE)
    assert row["team gap"] == f"{balance.numbers['gap']:.3f}"
    assert row["fair team gap"] == f"{balance.numbers['fair_gap']:.3f}"
    explained = " ".join(cli("analyze", tmp_path / "z", "--explain").stdout.split()).replace(
        " (the best share minus the worst)", "")          # the glossary's phrase, at the gap's first use only
    assert f"({row['shared between teams']} shared between teams)" in explained
    assert f"the team gap {row['team gap']} could be chance" in explained
    printed = cli("analyze", tmp_path / "z", "--tables").stdout
    assert "| team 0+2 points |" in printed and "team points: a team's seats' points summed" in printed
