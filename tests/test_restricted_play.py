"""Issue 55, restricted play: a policy spec forbids kinds of move (``forbid=KIND+KIND``) or prefers one
(``prefer=KIND``), on every agent; inside a search the restriction binds the searching seat alone, in its tree and
its rollouts; a game declares its kinds of move (``ACTION_KINDS``, ``action_kind``) with or without a trace."""

import dataclasses
import json
import re

import numpy as np
import pytest

import simcore
from analyses import claims
from simcore import agents, engine, games
from simcore.agents import core
from simcore.engine import binding
from simcore.io import config as cfg
from simcore.studies import options

GOOF_ABOVE, GOOF_EQUAL, GOOF_BELOW = 0, 1, 2      # goofspiel's ACTION_KINDS, in order


def counted(game, policies, games_=30, seed=3, sets=()):
    """(rows, counts) of a run: counts (games, seats, 2 kinds + 1) played, legal, forced."""
    run = cfg.resolve(game, sets=list(sets), policies=policies, games=games_, seed=seed)
    rows, counts = [], []
    for _, block, trace in engine.run_counted_blocks(run.module, run.params_array(), run.policies_array(), seed,
                                                      games_):
        rows.append(block)
        counts.append(trace.counts)
    return np.concatenate(rows), np.concatenate(counts), len(run.module.ACTION_KINDS)


SPECS = ["random", "greedy", "mc:rollouts=4", "ismcts:iterations=60"]


@pytest.mark.parametrize("base", SPECS)
def test_a_forbidden_kind_is_played_only_where_nothing_else_is_legal(base):
    """"The agent chooses among the legal moves not forbidden; where only forbidden moves are legal it plays one of
    them and the row counts it": Zwai's 1-fish cards forbidden to seat 0, on every agent."""
    spec = f"{base}{',' if ':' in base else ':'}forbid=fish_1"
    _, counts, kinds = counted("zwai", [("all", base), ("0", spec)], sets=[("players", 2)])
    played, legal, forced = counts[:, 0, 1].sum(), counts[:, 0, kinds + 1].sum(), counts[:, 0, 2 * kinds].sum()
    assert legal > 50 and played == forced            # every 1-fish card it laid was a forced one
    assert played < legal / 4                         # and it had other cards most of the time
    assert counts[:, 1, 2 * kinds].sum() == 0         # the unrestricted seat is never counted forced
    assert counts[:, 1, 1].sum() > 0                  # and plays 1-fish cards


@pytest.mark.parametrize("base", SPECS[:-1] + ["ismcts:iterations=60,widen=0.5"])
def test_a_preferred_kind_is_played_whenever_it_is_legal(base):
    """prefer=KIND: "played whenever legal": Goofspiel's bid of the prize's value, on every agent (the search
    widened enough that unrestricted it tries more than greedy's bid, the value)."""
    spec = f"{base}{',' if ':' in base else ':'}prefer=equal"
    _, counts, kinds = counted("goofspiel", [("all", base), ("1", spec)])
    assert counts[:, 1, GOOF_EQUAL].sum() == counts[:, 1, kinds + GOOF_EQUAL].sum() > 100
    if base != "greedy":    # greedy bids the prize's value itself whenever it can
        assert counts[:, 0, GOOF_EQUAL].sum() < counts[:, 0, kinds + GOOF_EQUAL].sum()


def test_forbidding_a_kind_that_never_comes_into_play_changes_no_row():
    """A restriction that binds nowhere leaves every game as the unrestricted policy's, on every agent: Zwai's
    default deck has no 9-fish card, and a restricted random seat draws as the game's own random_action does."""
    for base in SPECS:
        spec = f"{base}{',' if ':' in base else ':'}forbid=fish_9"
        free, _, _ = counted("zwai", [("all", base)], games_=12, sets=[("players", 3)])
        bound, _, _ = counted("zwai", [("all", base), ("2", spec)], games_=12, sets=[("players", 3)])
        assert np.array_equal(free, bound), base


def test_inside_a_search_the_restriction_binds_the_searchers_rollouts_alone():
    """"Inside a search the restriction binds the restricted seat only, in the tree and in its rollouts": a random
    playout of Goofspiel with searcher 0 preferring the bid of the prize's value bids it at every trick for seat 0
    (its hand holds card k until prize k comes up), while seat 1 plays freely."""
    module = games.load("goofspiel")
    playout = binding.bind(module).compiled["playout"]
    g = simcore.load_game("goofspiel")
    actions = np.zeros((core.ACTION_ROWS, module.MAX_ACTIONS), np.int64)
    free = 0
    for seed in range(6):
        s = g.new_initial_state(seed=seed)
        state, streams = s.state.copy(), s.streams.copy()
        playout(state, g.params_array, streams, actions, 0, 0, GOOF_EQUAL)
        tricks = state[module.S_TRICKS:module.S_TRICKS + module.MAX_CARDS * module.TRICK].reshape(-1, module.TRICK)
        played = tricks[:int(state[module.S_TURN])]
        assert (played[:, module.T_BIDS] == played[:, module.T_PRIZE]).all()
        free += (played[:, module.T_BIDS + 1] != played[:, module.T_PRIZE]).sum()
    assert free > 20


def test_a_restricted_search_never_tries_a_forbidden_move_at_its_root():
    """The tree: ISMCTS and mc with a kind forbidden try only the moves allowed at their root (the search's root
    statistics list what was tried)."""
    g = simcore.load_game("goofspiel")
    s = g.new_initial_state(seed=2)
    module = g.module
    prize = int(s.state[module.S_PRIZE])
    for free_spec in ("ismcts:iterations=200,tree=raw,widen=0.5", "mc:rollouts=8"):   # these try every bid
        spec = f"{free_spec},forbid=below"
        _, stats = s.agent_search(spec)
        tried = [int(row[0]) for row in stats]
        assert tried and all(card >= prize for card in tried), (spec, prize, tried)
        _, free = s.agent_search(free_spec)
        assert any(int(row[0]) < prize for row in free)


def test_restricted_rows_are_the_same_on_one_and_two_threads():
    """Same (config, seed), same rows, whatever the thread count, for a restricted seat of every agent."""
    import numba

    policies = [("all", "mc:rollouts=3"), ("0", "greedy:forbid=bribe_der"), ("1", "random:prefer=bribe_ich"),
                ("2", "ismcts:iterations=30,forbid=call")]
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one, counts_one, _ = counted("wichtel", policies, games_=10, sets=[("players", 4)])
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two, counts_two, _ = counted("wichtel", policies, games_=10, sets=[("players", 4)])
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, two) and np.array_equal(counts_one, counts_two)


def test_a_restriction_is_spelled_in_the_spec_and_checked_against_the_games_kinds():
    wichtel = games.load("wichtel")
    info, kinds = wichtel.GAME, wichtel.ACTION_KINDS
    spec = agents.parse("greedy:forbid=bribe_der+call", info, kinds)
    assert str(spec) == "greedy:forbid=call+bribe_der"             # the game's order: one spelling per restriction
    row = spec.row()
    assert row[agents.FORBID] == 2 ** 0 + 2 ** 5 and row[agents.PREFER] == 0
    assert agents.parse("random:prefer=nix_da", info, kinds).row()[agents.PREFER] == 11
    assert str(agents.parse("mc", info, kinds)) == "mc:rollouts=16"         # unrestricted specs keep their names
    for text, message in (
            ("greedy:forbid=bribe", "policy greedy: 'bribe' is not a kind of move; allowed: call, exchange,"),
            ("greedy:forbid=call+call", "names a kind twice; allowed: each kind once"),
            ("mc:prefer=call,forbid=call", "prefer=call is forbidden too; allowed: a kind that is not forbidden")):
        with pytest.raises(ValueError, match=message):
            agents.parse(text, info, kinds)
    goofspiel = games.load("goofspiel")
    every = "+".join(name for name, _ in goofspiel.ACTION_KINDS)
    with pytest.raises(ValueError, match="forbids every kind of move; allowed: some kinds left"):
        agents.parse(f"random:forbid={every}", goofspiel.GAME, goofspiel.ACTION_KINDS)


def test_a_game_declares_its_kinds_of_move_without_a_trace(monkeypatch, tmp_path):
    """The kinds are part of the contract, not of the trace: a game with trace=False keeps its kinds, a policy may
    forbid one, and simcore games lists them; a game that declares none refuses a restriction in one line."""
    from click.testing import CliRunner

    from simcore import cli

    module = games.load("goofspiel")
    monkeypatch.setattr(module, "GAME", dataclasses.replace(module.GAME, trace=False))
    assert "ACTION_KINDS" not in games.required(module.GAME) and "ACTION_KINDS" in games.OPTIONAL
    assert agents.parse("random:forbid=below", module.GAME, module.ACTION_KINDS).row()[agents.FORBID] == 4
    _, counts, kinds = counted("goofspiel", [("all", "random"), ("0", "random:forbid=below")])
    assert counts[:, 0, GOOF_BELOW].sum() == counts[:, 0, 2 * kinds].sum()
    shown = CliRunner().invoke(cli.main, ["games", "goofspiel"])
    assert "no trace" in shown.output and "kinds of move" in shown.output
    assert "    equal  a bid of the prize's value" in shown.output
    with pytest.raises(ValueError, match="'below' is not a kind of move; allowed: none: goofspiel declares no kinds"):
        agents.parse("random:forbid=below", module.GAME, ())
    with pytest.raises(cfg.ConfigError, match="game goofspiel declares no kinds of move; allowed: a game with"):
        monkeypatch.setattr(module, "ACTION_KINDS", ())
        options.plan("goofspiel", "greedy", games=10)


# --- simcore options ------------------------------------------------------------------------------------------

def test_options_weighs_every_kind_in_words_and_in_json(cli):
    """simcore options GAME --policy SPEC --games N: per kind, the restricted seat's points forbidden and preferred
    with intervals, and a word; with --json each kind an object with "kind", "word", "forbidden" and "preferred"
    (each with share, low, high, difference), a kind never legal "never came into play" with no number."""
    args = ["options", "zwai", "--set", "players=2", "--policy", "random", "--games", "60", "--kinds",
            "fish_0,fish_9", "--seed", "4"]
    shown = cli(*args, "--json", "--quiet")
    assert shown.returncode == 0, shown.stderr
    body = json.loads(shown.stdout)
    assert body["schema"] == "simcore.verdict/1"
    kinds = {k["kind"]: k for k in body["options"]["kinds"]}
    assert list(kinds) == ["fish_0", "fish_9"]
    assert kinds["fish_9"]["word"] == "never came into play"
    assert kinds["fish_9"]["forbidden"] is None and kinds["fish_9"]["preferred"] is None
    zero = kinds["fish_0"]
    assert zero["word"] in claims.OPTION
    for mode in ("forbidden", "preferred"):
        numbers = zero[mode]
        assert numbers["low"] <= numbers["share"] <= numbers["high"]
        assert numbers["difference"] == pytest.approx(numbers["share"] - 0.5)
    assert zero["preferred"]["played"] == zero["preferred"]["legal"] > 0
    assert [c["word"] for c in body["claims"]] == [kinds[k]["word"] for k in kinds]   # rendered from the claims
    text = cli(*args, "--quiet")
    lines = text.stdout.splitlines()
    assert lines[0].startswith("what each kind of move is worth to random on zwai (the default rules)")
    row = next(line for line in lines if line.startswith("fish_0 "))
    assert row.endswith(zero["word"]) and f"{zero['forbidden']['share']:.3f}" in row
    assert next(line for line in lines if line.startswith("fish_9 ")).endswith("never came into play")
    assert any(line.startswith("family: Holm across the 2 restrictions of the 1 kinds in play") for line in lines)


def test_options_plays_the_same_on_one_and_two_threads(cli):
    args = ["options", "goofspiel", "--set", "num_cards=6", "--policy", "mc:rollouts=2", "--games", "12", "--json",
            "--quiet"]
    assert cli(*args, "--threads", "1").stdout == cli(*args, "--threads", "2").stdout


@pytest.mark.parametrize("args, message", [
    (["--kinds", "fish_x"], "--kinds: 'fish_x' is not a kind of move of zwai; allowed: fish_0, fish_1"),
    (["--kinds", "fish_0,"], "names an empty kind; allowed: KIND[,KIND...]"),
    (["--policy", "greedy:forbid=fish_0"], "is restricted already; allowed: an unrestricted policy"),
    (["--policy", "greedy:prefer=fish_11"], "'fish_11' is not a kind of move; allowed: fish_0"),
    (["--games", "1"], "--games 1 is not allowed; allowed: 2 or more deals"),
    (["--margin", "0"], "--margin 0 is not allowed; allowed: a number of points between 0 and 1"),
])
def test_options_refuses_bad_input_in_one_line(cli, args, message):
    shown = cli("options", "zwai", *args)
    assert shown.returncode != 0 and message in shown.stderr and len(shown.stderr.strip().splitlines()) == 1, \
        shown.stderr


def test_a_restricted_greedy_plays_greedys_pick_where_it_is_allowed_and_the_best_allowed_placement_elsewhere():
    """greedy:forbid=KIND: greedy's own pick wherever the restriction allows it; where it does not, the heuristic's
    best placement among the cards allowed (Zwai's greedy_among), never the forbidden kind."""
    g = simcore.load_game("zwai", params={"players": 2})
    module = g.module
    kept = ranked = 0
    for index in range(6):
        s = g.new_initial_state(seed=11, game_index=index)
        while not s.is_terminal():
            if int(s.state[module.S_PHASE]) == module.CARD:
                pick = s.clone().agent_action("greedy")          # each from the same streams
                restricted = s.clone().agent_action("greedy:forbid=fish_2")
                if pick != 2:
                    assert restricted == pick
                    kept += 1
                elif any(a != 2 for a in s.legal_actions()):
                    assert restricted != 2
                    ranked += 1
            s.apply_action(s.agent_action("random"))
    assert kept > 20 and ranked > 3


def test_the_conformance_check_catches_a_greedy_among_that_ignores_the_restriction_or_is_not_greedy(monkeypatch):
    """simcore check's greedy-among (run on every game that declares restricted_greedy by the conformance suite):
    a greedy_among that reads the other seat's face-down bid, one that plays greedy's pick whatever it is given,
    and one that ranks every move otherwise than greedy does, each fail, naming the decision."""
    from numba import njit

    from simcore import testing

    module = games.load("goofspiel")

    @njit(cache=False)
    def ignores(state, params, seat, streams, work, listed, n):
        return module.greedy_action(state, params, seat, streams, work)

    @njit(cache=False)
    def lowest(state, params, seat, streams, work, listed, n):
        return listed[:n].min()

    @njit(cache=False)
    def peeks(state, params, seat, streams, work, listed, n):
        if n == module.legal_actions(state, params, np.zeros(module.MAX_ACTIONS, np.int64)):
            return module.greedy_action(state, params, seat, streams, work)
        other = state[module.S_BID + 1 - seat]          # the other seat's face-down bid, -1 before it bids
        for i in range(n):
            if listed[i] > other:
                return listed[i]
        return listed[0]

    monkeypatch.setattr(module, "greedy_among", peeks)
    with pytest.raises(AssertionError, match="greedy_among peeks: seat"):
        testing.greedy_among("goofspiel", {})
    monkeypatch.setattr(module, "greedy_among", ignores)
    with pytest.raises(AssertionError, match="greedy_among given the legal actions but those of kind"):
        testing.greedy_among("goofspiel", {})
    monkeypatch.setattr(module, "greedy_among", lowest)
    with pytest.raises(AssertionError, match="greedy_among given every legal action plays .*, greedy_action"):
        testing.greedy_among("goofspiel", {})


def test_a_game_whose_greedy_ranks_only_its_own_pick_refuses_a_restricted_greedy(cli, monkeypatch):
    """A game whose GameType declares no restricted_greedy (its greedy ranks only the move it picks: a new game's,
    until it writes greedy_among): a restricted greedy, or a search with greedy rollouts restricted, is refused in
    one line; random, mc and ismcts with random rollouts may be restricted."""
    module = games.load("skirmish")
    monkeypatch.setattr(module, "GAME", dataclasses.replace(module.GAME, restricted_greedy=False))
    for spec in ("greedy:forbid=stay", "ismcts:rollout=greedy,prefer=throw"):
        shown = cli("run", "skirmish", "--policy", spec, "--games", "2")
        assert shown.returncode != 0 and "greedy ranks only its own pick, so it cannot be restricted" in shown.stderr
        assert len(shown.stderr.strip().splitlines()) == 1
    assert cli("run", "skirmish", "--policy", "random:forbid=stay", "--games", "2").returncode == 0


def test_the_skirmishs_restricted_greedy_stays_or_moves_as_it_is_told():
    """The skirmish's greedy_among: a gnome forbidden to stay walks to greedy's best reachable cell; one that must
    stay stays (docs/skirmish.md: a gnome moves or stays)."""
    seats = [("all", "greedy"), ("0", "greedy:forbid=stay"), ("1", "greedy:prefer=stay")]
    _, counts, kinds = counted("skirmish", seats, games_=6)
    stay = 3
    assert counts[:, 0, stay].sum() == counts[:, 0, 2 * kinds].sum()           # seat 0 stayed only when forced
    assert counts[:, 1, stay].sum() == counts[:, 1, kinds + stay].sum() > 0     # seat 1 stayed whenever it could


SWEEP = """
game = "goofspiel"
seed = 2
[policies]
all = "random"
[[variants]]
name = "cards-13"
num_cards = 13
[[variants]]
name = "cards-13-again"
num_cards = 13
[[variants]]
name = "cards-3"
num_cards = 3
"""


def test_options_of_a_sweep_weighs_every_variant_and_says_where_a_kinds_worth_changes(cli, tmp_path):
    """simcore options SWEEP.toml: every variant on the same deals, each compared with the first variant of its
    player count; the same rules under another name change nothing (every deal the same), 3 cards against 13
    make bidding the prize's value worth less to prefer."""
    path = tmp_path / "cards.toml"
    path.write_text(SWEEP)
    shown = cli("options", str(path), "--games", "300", "--json", "--quiet")
    assert shown.returncode == 0, shown.stderr
    body = json.loads(shown.stdout)["options"]
    assert [v["name"] for v in body["variants"]] == ["cards-13", "cards-13-again", "cards-3"]
    assert body["variants"][0]["kinds"] == body["variants"][1]["kinds"]        # the same games, deal by deal
    changes = {(c["variant"], c["kind"]): c for c in body["changes"]}
    assert {c["baseline"] for c in changes.values()} == {"cards-13"} and len(changes) == 6
    for kind in ("above", "equal", "below"):
        same = changes[("cards-13-again", kind)]
        assert same["word"] == "no change found" and same["forbidden"]["delta"] == same["preferred"]["delta"] == 0
    equal = changes[("cards-3", "equal")]
    assert equal["word"] in claims.OPTION_CHANGE and equal["preferred"]["adjusted"] < 0.05
    assert equal["preferred"]["low"] <= equal["preferred"]["delta"] <= equal["preferred"]["high"]
    text = cli("options", str(path), "--games", "300", "--quiet").stdout
    assert re.search(r"^kind +cards-13 +cards-13-again +cards-3$", text, re.M)
    assert f"  equal in cards-3 against cards-13: {equal['word']}" in text


def test_options_of_a_sweep_needs_one_policy_to_weigh(cli, tmp_path):
    path = tmp_path / "mixed.toml"
    path.write_text(SWEEP.replace('all = "random"', 'all = "random"\n1 = "greedy"'))
    shown = cli("options", str(path), "--games", "20")
    assert shown.returncode != 0 and "seats 2 policies (greedy, random); allowed: --policy SPEC" in shown.stderr
    assert cli("options", str(path), "--games", "20", "--policy", "random", "--kinds", "equal",
               "--quiet").returncode == 0
    refused = cli("options", str(path), "--set", "num_cards=4")
    assert refused.returncode != 0 and "allowed: a sweep's variants as its file says" in refused.stderr


def test_options_with_skill_gives_skill_and_luck_on_the_same_rules(cli):
    """Issue 55, item 4: how much a seat gains from search over greedy and from greedy over random (versus's
    contests, the same test and words), and how often the weaker still wins (its points per seat), per variant."""
    args = ["options", "goofspiel", "--set", "num_cards=6", "--games", "40", "--kinds", "equal", "--skill",
            "--strong", "ismcts:iterations=40", "--skill-games", "60", "--quiet"]
    body = json.loads(cli(*args, "--json").stdout)
    skill = body["options"]["skill"]
    searching = "ismcts:iterations=40,c=0.7,rollout=greedy,widen=0.1,tree=observed,final=average,select=regret"
    # the game's recommended search at 6 cards, 40 iterations deep
    assert [(s["stronger"], s["weaker"]) for s in skill] == [(searching, "greedy"), ("greedy", "random")]
    for s in skill:
        assert s["word"] in claims.STRENGTH and s["low"] <= s["score"] <= s["high"] and s["deals"] == 60
        assert s["weaker_points"] == pytest.approx(1 - s["score"])
    assert skill[1]["word"] == "stronger"          # greedy beats random at Goofspiel
    assert [c["word"] for c in body["claims"]][-2:] == [s["word"] for s in skill]
    text = cli(*args).stdout
    assert "  num_cards=6  greedy over random: " in text and f"luck {skill[1]['weaker_points']:.3f}" in text


def test_options_keeps_its_runs_in_a_folder_and_goes_on_from_them(cli, tmp_path):
    """--out FOLDER: every run of the study kept (its games and trace), the answer the same as without a folder;
    a run lost (a study stopped part way) is played again alone when the same command is given again, and a
    folder of other settings is replaced only with --force."""
    folder = tmp_path / "study"
    args = ["options", "goofspiel", "--set", "num_cards=5", "--games", "80", "--policy", "random", "--skill",
            "--skill-games", "20", "--strong", "mc:rollouts=2", "--json", "--quiet"]
    alone = cli(*args).stdout
    kept = cli(*args, "--out", str(folder))
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout == alone
    files = sorted(p.name for p in folder.glob("*.parquet"))
    assert "baseline.parquet" in files and "forbidden-equal-seat1.parquet" in files
    assert "skill-greedy-over-random-seat0.parquet" in files
    assert (folder / "_traces" / "forbidden-equal-seat1.trace.parquet").is_file()
    lost = folder / "forbidden-equal-seat1.parquet"
    lost.unlink()
    stamps = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.parquet")}
    again = cli(*args, "--out", str(folder))
    assert again.stdout == alone
    assert lost.is_file()
    assert all(p.stat().st_mtime_ns == stamps[p.name] for p in folder.glob("*.parquet") if p.name in stamps)
    other = cli(*args[:-2], "--games", "60", "--out", str(folder))
    assert other.returncode != 0
    assert "holds the finished results of a restricted-play study with other settings" in other.stderr
    assert "allowed: --force to replace them, or a new folder" in other.stderr
    assert cli(*args[:-2], "--games", "60", "--out", str(folder), "--force", "--quiet").returncode == 0


def test_options_writes_its_report_from_its_claims(cli, tmp_path):
    """--report PATH: the study as a Markdown page (its plot beside it) or one HTML page, every kind's word and
    numbers the claims' (those of --json); a report that cannot be written is refused before anything plays."""
    args = ["options", "goofspiel", "--set", "num_cards=5", "--games", "60", "--policy", "random", "--quiet"]
    body = json.loads(cli(*args, "--json").stdout)
    words = {k["kind"]: k for k in body["options"]["kinds"]}
    md, page = tmp_path / "kinds.md", tmp_path / "kinds.html"
    assert cli(*args, "--report", str(md)).returncode == 0
    assert cli(*args, "--report", str(page)).returncode == 0
    text = md.read_text()
    for kind, k in words.items():
        assert f"| `{kind}` | {k['meaning']} |" in text and f"**{k['word']}** |" in text
        assert f"{k['forbidden']['share']:.3f} [{k['forbidden']['low']:.3f}, {k['forbidden']['high']:.3f}]" in text
    assert (tmp_path / "kinds-plots" / "options-0.png").is_file() and "](kinds-plots/options-0.png)" in text
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and "data:image/png;base64," in html and "<code>equal</code>" in html
    for bad, message in ((tmp_path / "kinds.pdf", "allowed suffixes: .md, .html"),
                         (tmp_path / "nowhere" / "k.md", "does not exist")):
        shown = cli(*args, "--report", str(bad))
        assert shown.returncode != 0 and message in shown.stderr and not bad.exists()


def test_analyze_reads_a_restricted_play_folder_and_answers_as_the_command_that_wrote_it(cli, tmp_path):
    """Issue 55, item 5 (a report section): simcore analyze FOLDER of a restricted-play study reads its runs and
    gives the answer the options command gave (its screen, --json and --report, skill and luck included) without
    playing or touching a game; --margin weighs "never worth it" again."""
    folder = tmp_path / "study"
    args = ["options", "goofspiel", "--set", "num_cards=4", "--games", "30", "--policy", "random", "--skill",
            "--skill-games", "20", "--strong", "mc:rollouts=2", "--quiet", "--out", str(folder)]
    first = cli(*args, "--json").stdout
    screen = cli(*args).stdout
    stamps = {p: p.stat().st_mtime_ns for p in folder.rglob("*.parquet")}
    read = cli("analyze", str(folder), "--json")
    assert read.returncode == 0, read.stderr
    assert read.stdout == first and json.loads(first)["options"]["skill"]
    assert cli("analyze", str(folder)).stdout == screen
    page = tmp_path / "study.md"
    assert cli("analyze", str(folder), "--report", str(page)).returncode == 0
    for kind in json.loads(first)["options"]["kinds"]:
        assert f"| `{kind['kind']}` | {kind['meaning']} |" in page.read_text()
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*.parquet")} == stamps
    wide = json.loads(cli("analyze", str(folder), "--json", "--margin", "0.4").stdout)["options"]
    assert wide["margin"] == 0.4 and json.loads(first)["options"]["margin"] == 0.02


def test_analyze_reads_a_sweeps_restricted_play_folder(cli, tmp_path):
    """simcore options SWEEP.toml --out FOLDER, read by analyze: every variant and where a kind's worth changes."""
    path, folder = tmp_path / "cards.toml", tmp_path / "study"
    path.write_text(SWEEP)
    first = cli("options", str(path), "--games", "40", "--kinds", "equal", "--json", "--quiet", "--out", str(folder))
    assert first.returncode == 0, first.stderr
    path.unlink()          # the sweep file is not needed: the folder keeps every variant's rules
    assert cli("analyze", str(folder), "--json").stdout == first.stdout
    assert json.loads(first.stdout)["options"]["sweep"] == "cards.toml"


def test_analyze_refuses_an_unfinished_or_unrecorded_restricted_play_folder_in_one_line(cli, tmp_path):
    """A study not finished, or kept by a simcore that did not record what it asked, is refused in one line naming
    the command that finishes it; a study folder is analysed alone, and without the options that read variants."""
    folder = tmp_path / "study"
    args = ["options", "goofspiel", "--set", "num_cards=4", "--games", "20", "--policy", "random", "--quiet",
            "--out", str(folder)]
    assert cli(*args).returncode == 0
    (folder / "forbidden-equal-seat1.parquet").unlink()
    shown = cli("analyze", str(folder))
    assert shown.returncode != 0 and not shown.stdout and len(shown.stderr.strip().splitlines()) == 1
    assert "holds an unfinished restricted-play study: 1 of its runs (forbidden-equal-seat1)" in shown.stderr
    assert "allowed: simcore options goofspiel --set num_cards=4" in shown.stderr
    assert cli(*args).returncode == 0 and cli("analyze", str(folder)).returncode == 0
    assert cli("run", "goofspiel", "--games", "20", "--out", str(tmp_path / "one.parquet")).returncode == 0
    for extra, message in (([str(tmp_path / "one.parquet")], "analysed on its own"),
                           (["--tables"], "allowed: --report, --margin and --json")):
        refused = cli("analyze", str(folder), *extra)
        assert refused.returncode != 0 and message in refused.stderr
    recorded = json.loads((folder / "_manifest.json").read_text())
    del recorded["study"]
    (folder / "_manifest.json").write_text(json.dumps(recorded))
    shown = cli("analyze", str(folder))
    assert shown.returncode != 0 and "does not record what its restricted-play study asked for" in shown.stderr


def test_options_of_a_sweep_weighs_plain_ismcts_as_each_variants_recommended_search(tmp_path):
    """A sweep of hand sizes seating plain ismcts seats a different search in each variant (Goofspiel recommends
    by hand size): options weighs each variant's own, not a refusal for seating two policies."""
    path = tmp_path / "hands.toml"
    path.write_text(SWEEP.replace('all = "random"', 'all = "ismcts"').replace("num_cards = 3", "num_cards = 4"))
    studies, _ = options.sweep_plan(path, games=2)
    assert [s.name for s in studies] == ["cards-13", "cards-13-again", "cards-3"]        # now of 4 cards
    assert studies[0].policy == studies[1].policy == str(agents.parse("ismcts", games.load("goofspiel").GAME))
    assert studies[2].policy.startswith("ismcts:iterations=32000,") and "widen=0.5" in studies[2].policy
