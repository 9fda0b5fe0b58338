"""Issue 53 (one answer a designer can act on), the parts of `simcore readings` and `simcore plan`: "depends" means
the verdict word changes under a reading, a moved edge is said as a moved edge (case 3); a plan says the verdict its
test decides and where an estimate merely points (case 8); both print their claims as JSON with --json (item 3)."""

import json

import pytest

from analyses import data, planning
from analyses.claims import BALANCE, CHANGE, DEPENDS, SCHEMA, WORDS
from simcore.studies import readings

FORMATIONS = """
game = "zwai"
games = 500
seed = 1
[policies]
all = "greedy"
[params]
players = 4
[axes]
formation = ["square", "ring"]
"""

# the square, the square under the other reading of the round's starter, and the ring: against the square, the
# ring is decided less fair at 500 games and the other reading is not decided (its estimate points to fairer)
THREE = """
game = "zwai"
games = 500
seed = 1
[policies]
all = "greedy"
[params]
players = 4
[[variants]]
name = "square"
[[variants]]
name = "square-rotate"
round_starter = "rotate"
[[variants]]
name = "ring"
formation = "ring"
"""


def _sweep(folder, text):
    from tests.conftest import simcore_cli

    (folder / "s.toml").write_text(text)
    done = simcore_cli("sweep", folder / "s.toml", "--quiet", "--out", folder / "runs")
    assert done.returncode == 0, done.stderr
    return folder / "runs"


@pytest.fixture(scope="module")
def formations(tmp_path_factory):
    """Zwai's square and ring, 4 players, greedy, 500 games: under the other reading of the round's starter both
    stay unbalanced, and the seat furthest from fair is another."""
    return _sweep(tmp_path_factory.mktemp("formations"), FORMATIONS)


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    return _sweep(tmp_path_factory.mktemp("three"), THREE)


def _paragraph(text, variant):
    """The verdict paragraph of ``variant`` in the terminal output, on one line."""
    block = next(b for b in text.split("\n\n") if b.startswith(f"{variant}: "))
    return " ".join(block.split())


# --- readings ---------------------------------------------------------------------------------------------------

def test_a_moved_edge_under_the_same_word_is_not_said_to_depend(formations, cli):
    """Issue 53, case 3: both readings give "unbalanced" and only the seat furthest from fair changes; that was
    "2 of 2 verdicts depend on a reading". It is the same word under every reading, and the moved edge is said
    as a moved edge."""
    done = cli("readings", formations)
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert "depend" not in out.lower().replace("depends on the reading", "")     # no "depends" anywhere
    assert "Every verdict of the 2 variants is the same under every reading." in out
    assert "The edge moves, the word the same: formation=square with round_starter; formation=ring with " \
           "round_starter." in out
    square = _paragraph(done.stdout, "formation=square")
    assert "Same under every reading (round_starter): as played (ours) unbalanced, seat 2 takes" in square
    assert "round_starter=rotate unbalanced, seat 1 takes" in square
    assert "The seat furthest from fair moves from seat 2 to seat 1 under round_starter=rotate." in square
    assert "The seats move with the reading (Hotelling's T² on common deals" in square


def _found(folder, games):
    todo = readings.replays(data.load_folder(folder), games)
    return readings.verdicts(todo, {r.name: readings.in_memory(r.config) for r in todo})


def test_depends_is_said_exactly_where_the_verdict_word_changes(formations):
    """Issue 53, case 3: "depends" means one thing, the balance word is another under some reading. At 300 games
    the square's edge is not found under the other reading (its word changes) while the ring stays unbalanced
    with the seats moved (its word does not): one of each, the claim, the text and the overview agreeing."""
    found = {v.variant: v for v in _found(formations, 300)}
    for v in found.values():
        words = {v.ours.word} | {a.balance.word for a in v.alternatives}
        depends = v.depends
        assert depends.word in DEPENDS and depends.variant == v.variant
        assert (depends.word == "depends on the reading") == (len(words) > 1)
        assert [r["verdict"] for r in depends.numbers["readings"]] == [v.ours.word,
                                                                       *(a.balance.word for a in v.alternatives)]
        assert v.text.startswith("**Depends on the reading of round_starter**" if len(words) > 1
                                 else "**Same under every reading** (round_starter)")
    square, ring = found["formation=square"], found["formation=ring"]
    assert square.depends_on == ("round_starter",) and ring.depends_on == ()
    assert ring.moved and ring.ours.word == ring.alternatives[0].balance.word == "unbalanced"
    assert readings.overview(list(found.values())).startswith(
        "**1 of 2 verdicts depend on a reading** (the verdict word changes with it): `formation=square` on "
        "round_starter.")


def test_readings_json_is_the_claims_alone_and_keeps_writing_its_files(formations, cli, tmp_path):
    """Issue 53, item 3: `readings --json` prints only JSON (schema simcore.verdict/1): per variant "depends" and
    its "readings" ({"reading", "verdict"}), every claim behind them; --out and --report are written as
    without it, and what was written is said on stderr."""
    out, page = tmp_path / "replayed", tmp_path / "readings.md"
    done = cli("readings", formations, "--games", "300", "--json", "--out", out, "--report", page)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["schema"] == SCHEMA and [v["name"] for v in doc["variants"]] == ["formation=square", "formation=ring"]
    claimed = {(c["variant"], c["against"]): c for c in doc["claims"]}
    assert all(c["word"] in WORDS for c in doc["claims"])
    for v in doc["variants"]:
        verdicts = [r["verdict"] for r in v["readings"]]
        assert set(verdicts) <= set(BALANCE) and v["depends"] == (len(set(verdicts)) > 1)
        assert [r["reading"] for r in v["readings"]] == ["round_starter=next", "round_starter=rotate"]
        assert claimed[(v["name"], "")]["word"] == ("depends on the reading" if v["depends"] else
                                                    "same under every reading")
        for r in v["readings"]:         # each reading's word is its run's balance claim
            balance = next(c for c in doc["claims"] if c["variant"] == r["run"] and c["word"] in BALANCE)
            assert balance["word"] == r["verdict"] and balance["games"] == 300
            if not r["as_played"]:
                assert claimed[(r["run"], v["name"])]["word"] == r["change"] in CHANGE
    assert [v["depends"] for v in doc["variants"]] == [True, False]
    assert len(list(out.glob("*.parquet"))) == 4 and (out / "_manifest.json").is_file()
    assert "Depends on the reading of round_starter" in page.read_text()
    assert f"wrote {page}" in done.stderr and f"wrote the games played to {out}" in done.stderr


def test_readings_json_of_a_game_without_readings_is_json_too(cli, tmp_path):
    """Issue 53, item 3: a script gets JSON even where the game declares no readings."""
    played = tmp_path / "goofspiel.parquet"
    assert cli("run", "goofspiel", "--games", "30", "--quiet", "--out", played).returncode == 0
    done = cli("readings", played, "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["variants"] == [] and doc["claims"] == [] and "declares no readings" in doc["note"]


# --- plan -------------------------------------------------------------------------------------------------------

def _rows(text):
    """{variant: its cells} of the change table (the rows of a table whose header has "imbalance change")."""
    lines = text.splitlines()
    head = next(k for k, line in enumerate(lines) if "| imbalance change |" in line)
    rows = {}
    for line in lines[head + 2:]:
        if not line.startswith("| ") or line.startswith("| variant |"):     # the table ends, or the next begins
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells
    return [c.strip() for c in lines[head].strip("|").split("|")], rows


def test_a_plan_says_no_verdict_word_that_its_test_does_not_decide(three, cli):
    """Issue 53, case 8: `plan` printed "fairer" beside p = 0.70 in its "to decide" column. The verdict column
    says the word the Holm-adjusted test decides (as analyze says it); where the estimate points is its own
    column, "(not decided)" where the test does not decide it."""
    done = cli("plan", three)
    assert done.returncode == 0, done.stderr
    head, rows = _rows(done.stdout)
    assert head[5:8] == ["p (Holm)", "verdict", "the estimate points to"]
    rotate, ring = rows["square-rotate"], rows["ring"]
    assert float(rotate[5]) > 0.05 and rotate[6] == "no change found" and rotate[7] == "fairer (not decided)"
    assert ring[5] == "< 0.0001" and ring[6] == ring[7] == "less fair"
    analyzed = json.loads(cli("analyze", three, "--json").stdout)
    words = {c["variant"]: c["word"] for c in analyzed["claims"] if c["against"]}
    assert words == {name: cells[6] for name, cells in rows.items()}       # the same word as analyze's


def test_plan_json_gives_the_games_per_question_and_the_claims(three, cli):
    """Issue 53, item 3: `plan --json` prints only JSON: per variant the games each question needs at 80% and 95%
    power, and the change claims, the words analyze claims."""
    done = cli("plan", three, "--json", "--edge", "0.05")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    plan = planning.plan_results(data.load_folder(three), edge=0.05)
    group, = doc["plan"]["groups"]
    assert doc["schema"] == SCHEMA and doc["plan"]["edge"] == 0.05 and group["baseline"] == "square"
    assert group["unit_moved"]["games_needed"] == {"80%": plan.groups[0].shift[0].games,
                                                   "95%": plan.groups[0].shift[1].games}
    variants = {v["name"]: v for v in group["variants"]}
    assert variants["square"]["change"] is None
    for c in plan.groups[0].changes:
        change = variants[c.variant]["change"]
        assert change["games_needed"] == {"80%": c.games_needed[0], "95%": c.games_needed[1]}
        assert (change["verdict"], change["points_to"]) == (c.verdict, c.direction)
    assert {v["name"]: v["fair_within"]["games_needed"] is None for v in group["variants"]} == {
        w.variant: w.games_needed is None for w in plan.groups[0].within}
    analyzed = json.loads(cli("analyze", three, "--json").stdout)
    assert ({(c["variant"], c["against"], c["word"]) for c in doc["claims"]} ==
            {(c["variant"], c["against"], c["word"]) for c in analyzed["claims"] if c["against"]})
    guess = json.loads(cli("plan", "--seats", "4", "--edge", "0.05", "--json").stdout)
    made = planning.plan_guess(4, 0.05)
    assert guess["plan"]["unit_moved"]["games_needed"] == {"80%": made.shift[0].games, "95%": made.shift[1].games}
    assert guess["claims"] == []


def test_plan_json_with_bad_input_is_one_line_and_no_json(cli):
    done = cli("plan", "--seats", "1", "--json")
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.startswith("Error: --seats 1 is not allowed; allowed:") and len(done.stderr.splitlines()) == 1


def test_a_word_that_differs_by_chance_depends_and_says_that_no_seat_moved():
    """Issue 53, case 3: readings that change nothing, at a variant near the edge of its games: where the word
    differs it "depends" (the word changed), and the sentence says that no seat moved beyond chance and that more
    games would tell; where it does not, it is the same under every reading."""
    import numpy as np

    from tests.test_readings import _pair

    rng = np.random.default_rng(5)
    seen = set()
    while len(seen) < 2:
        ours, other = _pair(rng, 2000, (0.27, 0.25, 0.25, 0.23), shared=0.1)
        f, = readings.compare([(ours, other)])
        if f.moved:         # a chance move of the seats (5%): not the case checked here
            continue
        a, b = readings._world(["ours"], {"ours": ours})["ours"], readings._world(["other"], {"other": other})["other"]
        v = readings.VariantReadings("v", "", {"round_starter": "next"}, {"round_starter": "next"}, a,
                                     (readings.Alternative("round_starter", "rotate", b, f),))
        differs = a.word != b.word
        seen.add(differs)
        assert v.depends.word == ("depends on the reading" if differs else "same under every reading")
        assert "No seat moves with the reading beyond chance" in v.text
        if differs:
            assert v.text.startswith("**Depends on the reading of round_starter** (the verdict word changes)")
            assert v.text.endswith("More games would tell whether the difference is the reading's.")
