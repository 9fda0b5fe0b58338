"""Issue 53, item 4: invariants of the claims over random folders, not only the cases found by hand.

Hypothesis draws what a designer analyses: some of the variants of a game (Zwai at 2-4 players, traced; Zwergen
Ziehen at 2 and 4 in teams; Der Herr der Wichtel at 5), a baseline or none (among them runs of fewer games, of the
same seed and of another; a 2-player one clearly unbalanced), a folder played until decided, points or margins, a
margin E. Over every draw: no two claims about one subject contradict, the first screen and the verdict in full
say the claims' numbers, each comparison names the games it compared, a 2-player edge is told from the seat
ahead, the JSON round-trips to the claims, and "depends on the reading" is said exactly when a verdict word
changes.
"""

import json
import re
from dataclasses import asdict
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from analyses import claims, report, screen
from analyses.claims import BALANCE, CHANGE, WITHIN, Claim
from analyses.data import load_folder, scored
from simcore.studies import sweep
from simcore.studies.readings import Alternative, VariantReadings

GAMES = 160

ZWAI = """game = "zwai"
games = 160
seed = 1
[policies]
all = "greedy"
[axes]
players = [2, 3, 4]
formation = ["square", "ring"]
"""
FEW = """game = "zwai"
games = 60
seed = 1
[policies]
all = "greedy"
[[variants]]
name = "few-ring-2p"
formation = "ring"
players = 2
"""
BAR = FEW.replace("games = 60", "games = 800").replace("few-ring-2p", "bar-2p").replace('"ring"', '"bar"')
OTHER_SEED = FEW.replace("seed = 1", "seed = 7").replace("few-ring-2p", "seed7-ring-2p")     # unpaired
ZWERGEN = 'game = "zwergen"\ngames = 160\nseed = 2\n[axes]\nplayers = [2, 4]\n'
WICHTEL = 'game = "wichtel"\ngames = 160\nseed = 3\n[axes]\nplayers = [5]\n'
DECIDED = """game = "zwai"
games = 400
seed = 4
[policies]
all = "greedy"
[[variants]]
name = "u-square-2p"
players = 2
[[variants]]
name = "u-ring-4p"
formation = "ring"
players = 4
"""


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    """{game: its results}, every file played once for the module; "decided": a folder played until decided."""
    root = tmp_path_factory.mktemp("pool")

    def played(name, text, trace=False):
        (root / f"{name}.toml").write_text(text)
        sweep.run(sweep.load(root / f"{name}.toml"), root / name, trace=trace)
        return load_folder(root / name)

    (root / "decided.toml").write_text(DECIDED)
    plan = sweep.load(root / "decided.toml")
    sweep.run_until_decided(plan, root / "decided", sweep.until_decided_plan(plan, 0.1, 100))
    return Pool(zwai=played("zwai", ZWAI, trace=True) + played("few", FEW) + played("other", OTHER_SEED)
                + played("bar", BAR),
                zwergen=played("zwergen", ZWERGEN),
                wichtel=played("wichtel", WICHTEL), decided=load_folder(root / "decided"))


class Pool(dict):
    def __repr__(self):         # a failing draw shows the draw, not every game of the pool
        return f"Pool({', '.join(self)})"


@st.composite
def folders(draw, pool):
    """A random analysis: a game's variants (a subset, in a random order), a baseline or none, a score, E."""
    game = draw(st.sampled_from(sorted(pool)))
    results = draw(st.lists(st.sampled_from(pool[game]), min_size=1, max_size=len(pool[game]), unique_by=id))
    score = draw(st.sampled_from(["points", "margin"])) if game != "decided" else "points"
    names = [r.name for r in results]
    players = {r.name: r.players for r in results}
    baselines = draw(st.lists(st.sampled_from(names), max_size=2, unique_by=players.get))    # one a player count
    margin = draw(st.sampled_from([0.02, 0.05, 0.1])) if score == "points" else draw(st.sampled_from([None, 1.0]))
    return SimpleNamespace(results=scored(results, score), baselines=baselines, score=score, margin=margin)


def _by_variant(found):
    out = {}
    for claim in found:
        out.setdefault(claim.variant, []).append(claim)
    return out


def _one_of(of, kind):
    said = [c for c in of if c.word in kind]
    assert len(said) <= 1, said             # one word of each kind a subject: two would contradict
    return said[0] if said else None


def _no_contradiction(analysis, found):
    for name, of in _by_variant(found).items():
        balance, within, change = (_one_of(of, kind) for kind in (BALANCE, WITHIN, CHANGE))
        assert balance is not None
        assert bool(balance.seats) == (balance.word == "unbalanced")        # "no edge found" names no unit
        if within is not None and "ruled_out" in within.numbers:           # a fixed sample's, not a decision's
            shown = within.numbers["ruled_out"] < within.numbers["margin"]
            assert shown == (within.word == "fair within"), within
        if change is not None:
            n = change.numbers
            if change.word == "fairer":
                assert n["estimate"] < 0 and n["high"] < 0
            elif change.word == "less fair":
                assert n["estimate"] > 0 and n["low"] > 0
            elif change.word == "no change found" and n["shift_adjusted_pvalue"] < claims.ALPHA:
                assert n["low"] <= 0 <= n["high"]              # the interval said agrees with the word (case 6)
        units = balance.numbers["units"]
        if balance.word == "unbalanced" and len(units) == 2:               # one fact told from the seat ahead
            assert balance.numbers["edge"] > 0, balance
        if name in (analysis.decisions or {}):
            assert balance.family.startswith("union bound") and within is not None


def _screen_says_the_claims(analysis, found):
    """Each row of the first screen: the games, the word, the edge and the change's games are the claims'."""
    lines = screen.terminal(analysis)
    by_name = _by_variant(found)
    for name, of in by_name.items():
        row = next(line for line in lines if line.startswith(f"{name}  "))
        cells = re.split(r"\s{2,}", row)
        balance, change = _one_of(of, BALANCE), _one_of(of, CHANGE)
        assert cells[1] == f"{balance.games:,}" and cells[2] == balance.word
        n = balance.numbers
        if balance.word == "no edge found":
            assert f"±{n['ruled_out']:.{2 if 'unit' in n else 3}f}" in cells[3]
        elif "unit" not in n:
            assert cells[3].startswith(f"{claims.unit_name(balance.seats)} {n['edge']:+.3f}")
        if change is not None:
            assert cells[-1].endswith(f"({change.games:,})") and change.against in cells[-1] or \
                cells[-1].startswith("never came into play")


def _explained_says_the_claims(analysis, found):
    """The verdict in full opens each variant's paragraph with its balance word, says each change's word after
    the games it compared, and the edge the balance claim holds."""
    said = report.terminal_verdicts(analysis)
    text = " ".join(" ".join(said).split())
    paragraphs = {name: " ".join(p.split("\n", 1)[1].split()) for p in said for name in [p.split(": ", 1)[0]]
                  if name in analysis.verdicts}
    for claim in found:
        if claim.word in BALANCE and claim.variant not in (analysis.decisions or {}):
            lead = "Unbalanced" if claim.word == "unbalanced" else ("No seat edge found", "No team edge found")
            assert paragraphs[claim.variant].startswith(lead), (claim, paragraphs[claim.variant])
        if claim.word in CHANGE and claim.word != "never came into play":
            games = f"{claim.games:,} games of common deals" if claim.numbers["paired"] else \
                r"[\d,]+ and [\d,]+ games, unpaired"
            glossed = r"(?: \([^)]*\))?"       # the glossary's phrase where "common deals" is first used
            assert re.search(rf"Against its baseline {re.escape(claim.against)}, on {games}{glossed}: "
                             rf"{claim.word}\b", text), claim
        if claim.word == "unbalanced" and "unit" not in claim.numbers and claim.family.startswith("Holm"):
            assert f"(edge {claim.numbers['edge']:+.3f})" in text


def _json_round_trips(found):
    body = json.loads(claims.to_json(found))
    assert [c["word"] for c in body["claims"]] == [c.word for c in found]
    for said, claim in zip(body["claims"], found, strict=True):
        again = Claim(**{k: tuple(v) if k == "seats" else v for k, v in said.items() if k != "subject"})
        assert again == Claim(**json.loads(json.dumps(claims._plain(asdict(claim)))) | {"seats": claim.seats})
        assert said["subject"] == claim.subject
    for entry in body["variants"]:
        balance = _one_of(_by_variant(found)[entry["name"]], BALANCE)
        assert (entry["verdict"], entry["games"]) == (balance.word, balance.games)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=st.data())
def test_claims_over_random_folders_keep_their_invariants(pool, data):
    drawn = data.draw(folders(pool))
    analysis = report.analyze(drawn.results, drawn.baselines, None, drawn.margin)
    found = claims.claims(analysis)
    event(f"{drawn.results[0].game}, {drawn.score}, {'decided' if analysis.decisions else 'fixed'}")
    event(f"words: {', '.join(sorted({c.word for c in found}))}")
    assert {c.variant for c in found} == {r.name for r in drawn.results}
    _no_contradiction(analysis, found)
    _screen_says_the_claims(analysis, found)
    _explained_says_the_claims(analysis, found)
    _json_round_trips(found)


def _balance(word, seats=()):
    return Claim("v", word, "gap test", 500, "none (one variant)", 0.05, {"units": []}, seats)


def _fairness(inert, shift_p):
    change = SimpleNamespace(estimate=0.0, pvalue=0.5, imbalance_a=0.0, imbalance_b=0.0, n_a=500, n_b=500)
    return SimpleNamespace(change=change, paired=True, change_interval=(-0.01, 0.01), change_p=0.5, shift_p=shift_p,
                           changed=None, inert=inert, verdict="no change found", b="v", a="v", family=1)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(ours=st.sampled_from([("unbalanced", (0,)), ("unbalanced", (1,)), ("no edge found", ())]),
       others=st.lists(st.tuples(st.sampled_from([("unbalanced", (0,)), ("unbalanced", (1,)),
                                                  ("no edge found", ())]), st.booleans(), st.floats(0, 1)),
                       min_size=1, max_size=4))
def test_depends_is_said_exactly_when_a_reading_changes_the_word(ours, others):
    """Issue 53, case 3: "2 of 2 verdicts depend on a reading" where every reading said "unbalanced" and only the
    seat hurt moved. "Depends on the reading" is said exactly when some reading's word is not the word as played;
    a moved edge alone is "same under every reading", and the claim lists every reading's word."""
    alternatives = tuple(Alternative(f"p{k}", k, _balance(*said), _fairness(inert, shift_p))
                         for k, (said, inert, shift_p) in enumerate(others))
    played = {f"p{k}": "as played" for k in range(len(others))}
    readings = VariantReadings("v", "", played, played, _balance(*ours),
                               alternatives)
    depends = readings.depends
    changed = any(word != ours[0] for (word, _), _, _ in others)
    assert (depends.word == "depends on the reading") == changed
    assert [r["verdict"] for r in depends.numbers["readings"]] == [ours[0]] + [word for (word, _), _, _ in others]
    assert np.all([r["verdict"] in BALANCE for r in depends.numbers["readings"]])
