"""Replays (issue 15): any row of any result file played again decision by decision, equal to the row."""

import json
import re
import shlex
import xml.etree.ElementTree as ET

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from simcore import agents
from simcore.games import wichtel, zwai, zwergen
from simcore.handle import load_game
from simcore.io import config as cfg
from simcore.studies import runs
from simcore.watch import pictures, replay

# Every game, every kind of agent: (game, --set pairs, --policy pairs)
RUNS = {
    "zwai-ring": ("zwai", [("players", 3), ("formation", "ring")],
                  [("all", "greedy"), ("1", "mc:rollouts=3"), ("2", "ismcts:iterations=40")]),
    "zwai-random": ("zwai", [("players", 2)], [("all", "random")]),   # the engine's one-playout path
    "zwergen": ("zwergen", [("players", 4), ("pro", True)],
                [("all", "greedy"), ("0", "random"), ("1", "ismcts:iterations=30"), ("3", "mc:rollouts=2")]),
    "wichtel": ("wichtel", [("players", 4)],
                [("all", "greedy"), ("0", "random"), ("2", "ismcts:iterations=20,rollout=greedy")]),
    "skirmish-ctf": ("skirmish", [("scenario", "capture_the_flag")],
                     [("all", "greedy"), ("1", "ismcts:iterations=15")]),
    "skirmish": ("skirmish", [], [("all", "random")]),
}
GAMES = 4


def resolved(name, games=GAMES, seed=5):
    game, sets, policies = RUNS[name]
    return cfg.resolve(game, sets=sets, policies=policies, games=games, seed=seed)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("replays")
    out = {}
    for name in RUNS:
        out[name] = folder / f"{name}.parquet"
        runs.run_to_file(resolved(name), out[name])
    return out


@pytest.mark.parametrize("name", list(RUNS))
def test_a_replayed_game_ends_in_the_files_row(files, name):
    """Issue 15, item 1: the replayed game's result equals the row's, column for column, for every game and
    every kind of agent (a game is fixed by config, seed and game index)."""
    table = pq.read_table(files[name]).to_pylist()
    for index in range(GAMES):
        r = replay.from_file(files[name], index)
        assert r.expected == table[index]
        assert r.row == table[index], r.differences()
        assert r.matches
        last = r.decisions[-1]
        assert last.to_move == -1
        assert last.scores == [table[index][f"score_{s}"] for s in range(r.config.players)]


@pytest.mark.parametrize("name", ["zwai-ring", "zwergen", "wichtel"])
def test_the_table_is_drawn_at_every_round_end(files, name):
    """Issue 15, item 1: the state is drawn as text at each round end and at the end; the row's n_rounds
    counts the round ends (Zwai: rounds finished; Wichtel: rounds scored; Zwergen: rounds started)."""
    r = replay.from_file(files[name], 1)
    ends = [d for d in r.decisions if d.round_end]
    assert ends[-1] is r.decisions[-1]
    assert all(d.text and d.before for d in ends)
    assert not any(d.text for d in r.decisions if not d.round_end)
    assert len(ends) in (r.row["n_rounds"], r.row["n_rounds"] + 1)   # + 1: the game ended inside a round
    text = "\n".join(replay.text_lines(r))
    assert text.count("the table after it:") == len(ends)


def _to_round_end(module, params):
    """Greedy play to the first round end: the state before its last decision, that action, and after."""
    s = load_game(module.GAME.name, params).new_initial_state(seed=4, game_index=0)
    while True:
        action, before = s.agent_action("greedy"), s.clone()
        s.apply_action(action)
        if module.round_of(s.state) != module.round_of(before.state):
            return before, action, s


def test_zwai_shows_the_full_shoal_as_the_round_ends():
    """docs/zwai.md, Round End: the sharks eat their row and column of the shoal, the rest scores. The rules
    clear the shoal in the same step as the last card, so the replay's table at the round end is the shoal
    with every card placed and both sharks on it."""
    before, action, after = _to_round_end(zwai, {"players": 3, "formation": "ring"})
    table = zwai.View(zwai.table_at_round_end(before.state, before.game.params_array, action, before.streams))
    assert table.placed == before.game.params_array[zwai.P_N_CELLS] == zwai.View(before.state).placed + 1
    assert table.shark_row >= 0 and table.shark_col >= 0
    assert set(zwai.View(before.state).shoal().items()) < set(table.shoal().items())
    assert zwai.View(after.state).placed == 0


def test_zwergen_shows_the_team_in_the_fence_as_the_round_ends():
    """docs/zwergen.md, The track: a round ends when a team's front gnome reaches the fence; the rules then
    empty the track for the next round in the same step, so the replay's table at the round end is the track
    with the losing team in the fence and the round counted."""
    before, action, after = _to_round_end(zwergen, {"players": 4})
    params = before.game.params_array
    table = zwergen.table_at_round_end(before.state, params, action, before.streams)
    assert zwergen.loser(table, params) >= 0 and zwergen.loser(before.state, params) < 0
    assert list(zwergen.View(table).rounds) == list(zwergen.View(after.state).rounds)
    assert zwergen.View(after.state).rope == 0
    won = f"team {'AB'[1 - zwergen.loser(table, params)]} wins round 1"   # rounds_to_win 2: the match goes on
    for words in (pictures.board_svg(zwergen, table, params), zwergen.state_to_string(table, params)):
        assert won in words and "match over" not in words and ", over;" not in words


def scores_in_picture(svg, game, players):
    """Every seat's score as the picture writes it: Zwai's "scored N fish", Zwergen's rounds won per team (on the
    line under the team's seats), Wichtel's "total N", the skirmish's gnomes "in action"."""
    words = [e.text for e in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]
    if game == "zwergen":
        lines = zip(words, words[1:], strict=False)  # a team's line, then its rounds won on the next
        teams = [(re.match(r"team [AB] \(seats? ([\d, ]+)\)", w), re.match(r"rounds won (\d+)", n))
                 for w, n in lines]
        won = {int(seat): int(m.group(1)) for t, m in teams if t for seat in t.group(1).split(", ")}
        return [won[seat] for seat in range(players)]
    pattern = {"zwai": r"scored (-?\d+) fish", "wichtel": r"total (-?\d+)", "skirmish": r"\): (\d+) in action"}[game]
    return [int(m.group(1)) for w in words if (m := re.search(pattern, w))]


@pytest.mark.parametrize("name", list(RUNS))
def test_the_picture_shows_the_scores_of_the_score_table(files, name):
    """Issue 21: the page shows each decision's picture beside the score table (Decision.scores, the row's
    scores so far); at a round end the picture is the table as the round ended, scored, so its scores are the
    table's, never those before the round was scored ("scored 0 fish" beside 9)."""
    r = replay.from_file(files[name], 1, pictures=True)
    ends = [d for d in r.decisions if d.round_end]
    assert ends
    for d in r.decisions:
        assert scores_in_picture(d.picture, r.config.game, r.config.players) == d.scores, (d.move, d.round_end)


def test_wichtel_shows_the_retinues_that_were_scored_with_their_totals():
    """docs/wichtel.md, Round end and game end: "Every retinue is scored; each seat's round score is added to its
    total", then a new round starts. The rules deal the new round in the same step, so the replay's table at
    the round end is the retinues as the round ended with the totals and titles they gave."""
    before, action, after = _to_round_end(wichtel, {"players": 4})
    params = before.game.params_array
    table = wichtel.View(wichtel.table_at_round_end(before.state, params, action, before.streams))
    old, new = wichtel.View(before.state), wichtel.View(after.state)
    assert (table.retinues == old.retinues).all() and not (new.retinues == old.retinues).all()
    assert list(table.totals) == list(new.totals) != list(old.totals)
    titles = slice(wichtel.S_TITLES, wichtel.S_TITLES + 4)
    assert list(table.state[titles]) == list(new.state[titles])


def test_every_decision_is_listed_with_its_seat_policy_and_words(files):
    """Issue 15, item 1: the move number, the seat, its policy and the action in words."""
    r = replay.from_file(files["zwergen"], 2)
    lines = replay.text_lines(r)
    moves = [line for line in lines if re.match(r"\s+\d+  seat \d", line)]
    assert len(moves) == len(r.decisions)
    for line, d in zip(moves, r.decisions, strict=True):
        number, seat, policy, words = re.match(r"\s+(\d+)  seat (\d)  (\S+)\s+(.*)", line).groups()
        assert (int(number), int(seat), policy, words) == (d.move, d.seat, r.config.policies[d.seat], d.words)


def test_search_decisions_show_what_the_search_tried():
    """Issue 15, item 1: for search agents the top candidate actions with their visits and values. ISMCTS's
    root children share out the iterations; the action played is the most-visited legal one; mc tries every
    candidate once per rollout."""
    s = load_game("zwai", {"players": 3}).new_initial_state(seed=3, game_index=1)
    action, tried = s.clone().agent_search("ismcts:iterations=200")
    assert sum(k for _, k, _ in tried) == 200
    legal = s.legal_actions()
    assert action == max((row for row in tried if row[0] in legal), key=lambda row: row[1])[0]
    assert all(0.0 <= v <= 1.0 for _, _, v in tried)
    action, tried = s.clone().agent_search("mc:rollouts=6")
    assert sorted(a for a, _, _ in tried) == sorted(legal) and all(k == 6 for _, k, _ in tried)
    assert action in [a for a, _, v in tried if v == max(v for _, _, v in tried)]
    assert s.clone().agent_search("greedy")[1] == []


def test_agent_search_plays_what_agent_action_plays():
    """The search statistics are read after the decision: asking for them changes no draw."""
    s = load_game("wichtel", {"players": 3}).new_initial_state(seed=2, game_index=0)
    for _ in range(30):
        a = s.clone().agent_action("ismcts:iterations=25")
        b, _ = s.agent_search("ismcts:iterations=25")
        assert a == b
        s.apply_action(b)


def test_a_replay_without_a_file_is_the_engines_game(files):
    """Issue 15, item 1: `simcore replay GAME --set ... --policy ... --seed S --index I` plays the same game."""
    from_file = replay.from_file(files["zwai-ring"], 3)
    direct = replay.play(resolved("zwai-ring", games=1), 3)
    assert [d.words for d in direct.decisions] == [d.words for d in from_file.decisions]
    assert direct.row == from_file.row and direct.expected is None


def test_cli_replays_a_row_and_a_game(files, cli):
    """Issue 15, item 1: both forms of the command, the same decisions, and the check against the row."""
    by_file = cli("replay", files["zwai-ring"], "--index", "2")
    assert by_file.returncode == 0, by_file.stderr
    assert "the row in the file: the same" in by_file.stdout
    command = re.search(r"simcore replay zwai .*", replay.command(replay.play(resolved("zwai-ring"), 2))).group()
    by_game = cli(*shlex.split(command)[1:])
    assert by_game.returncode == 0, by_game.stderr
    assert by_game.stdout.splitlines()[1:] == by_file.stdout.splitlines()[1:-1]


def test_the_html_page_holds_every_position(files, tmp_path):
    """Issue 15, item 2: one self-contained file with a slider over the decisions: every position's board is
    in the page, nothing is fetched."""
    out = tmp_path / "game.html"
    replay.write_html(files["skirmish-ctf"], 1, out)
    text = out.read_text()
    data = json.loads(re.search(r'<script type="application/json" id="frames">(.*?)</script>', text,
                                re.S).group(1).replace("<\\/", "</"))
    r = replay.from_file(files["skirmish-ctf"], 1)
    # one entry per position in each field's list; the pictures are stored as shared pieces and changes
    # (tests/test_browser.py rebuilds every board in the browser and compares it with the game's)
    assert len(data["move"]) == len(data["svg"]) == len(r.decisions) + 1
    assert data["scores"][1:] == [d.scores for d in r.decisions]
    assert data["pieces"][0].startswith("<svg")
    assert 'type="range"' in text and 'id="prev"' in text and 'id="next"' in text
    assert not re.search(r"""(src|href)=["']?(https?:)?//|@import|url\(""", text)


def _one_line_error(result, *words):
    assert result.returncode != 0
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1, message
    for word in words:
        assert word in message
    return message


def test_bad_input_gets_a_one_line_error(files, tmp_path, cli):
    """Issue 15, item 5: an index out of range, a file that is not a result file, a file whose config no
    longer loads, options that do not go together; no page is written."""
    page = tmp_path / "page.html"
    _one_line_error(cli("replay", files["zwai-random"], "--index", "99", "--html", page), "--index 99",
                    f"allowed: 0 to {GAMES - 1}")
    assert not page.exists()
    text = tmp_path / "notes.parquet"
    text.write_text("not parquet")
    _one_line_error(cli("replay", text), "is not a readable Parquet file (damaged or cut short)")
    plain = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), plain)
    _one_line_error(cli("replay", plain), "not a simcore result file")
    old = tmp_path / "old.parquet"
    table = pq.read_table(files["zwai-random"])
    meta = dict(table.schema.metadata)
    meta[b"simcore.version"] = b"0.0.1"
    meta[b"simcore.config"] = meta[b"simcore.config"].replace(b"[params]", b"[params]\nsharks = 3")
    pq.write_table(table.replace_schema_metadata(meta), old)
    _one_line_error(cli("replay", old, "--index", "0"), "simcore 0.0.1", "no longer loads", "sharks")
    _one_line_error(cli("replay", files["zwai-random"], "--set", "players=3"), "go with GAME")
    _one_line_error(cli("replay", "chess"), "neither a result file nor a game", "zwai")
    _one_line_error(cli("replay", "zwai", "--policy", "deep"), "policy")
    _one_line_error(cli("replay", "zwai", "--index", "-1"), "--index -1")
    _one_line_error(cli("replay", "zwai", "--html", tmp_path / "page.txt"), ".html")
    _one_line_error(cli("replay", "zwai", "--html", tmp_path / "missing" / "page.html"), "cannot write")
    assert not list(tmp_path.glob("**/*.html")) and not list(tmp_path.glob("**/.*tmp"))


def test_a_replay_that_differs_from_its_row_fails(files, tmp_path, cli):
    """A row that the replay does not reproduce (here: a file edited by hand) is an error, never a silent
    replay of another game."""
    table = pq.read_table(files["zwai-random"])
    turns = table["n_turns"].to_numpy().copy()
    turns[0] += 1
    edited = tmp_path / "edited.parquet"
    pq.write_table(table.set_column(table.schema.get_field_index("n_turns"), "n_turns",
                                    pa.array(turns.astype(np.int32))).replace_schema_metadata(
                                        table.schema.metadata), edited)
    _one_line_error(cli("replay", edited, "--index", "0"), "differs", "n_turns")


@pytest.mark.parametrize("game, sets", [
    ("zwai", [("players", 3), ("formation", "###\n#.#\n###"), ("removed_cards", "discard")]),
    ("skirmish", [("scenario", "wizard_war"), ("army.foot", 4)]),
    ("wichtel", [("players", 5), ("bribe_tie", "first")]),
])
def test_the_printed_command_makes_the_same_run(game, sets):
    """The replay's command (printed and on the page) resolves, through the shell's quoting and --set's
    parsing, to the same parameters, policies and seed."""
    config = cfg.resolve(game, sets=sets, policies=[("all", "greedy"), ("1", "mc:rollouts=4")], seed=9)
    words = shlex.split(replay.command(replay.Replay(config, 7, "", 0)))
    assert words[:3] == ["simcore", "replay", game] and words[-2:] == ["--index", "7"]
    pairs = list(zip(words[3:-2:2], words[4:-2:2], strict=True))
    again = cfg.resolve(game, sets=[cfg.parse_assignment(v) for k, v in pairs if k == "--set"],
                        policies=[cfg.parse_policy(v) for k, v in pairs if k == "--policy"],
                        seed=int(dict(pairs)["--seed"]))
    assert (again.params, again.policies, again.seed) == (config.params, config.policies, config.seed)


@pytest.mark.parametrize("name", ["zwai", "skirmish"])
def test_random_and_greedy_seats_decide_in_the_plain_copy_as_in_the_whole_one(name):
    """Issue 41, "a report in seconds": a replay of random and greedy seats decides in the plain copy (no search
    compiled: Zwai's replay agents compiled for 17 s), and every decision and draw is the whole copy's."""
    game = load_game(name, {})
    assert game.agent_function(["random", "greedy"]) is game.bound.plain_agent_action
    assert game.agent_function(["greedy", "ismcts"]) is game.bound.agent_action
    whole, plain = game.new_initial_state(seed=5, game_index=2), game.new_initial_state(seed=5, game_index=2)
    table = np.zeros((game.module.MAX_SEATS, agents.WIDTH))
    for turn in range(60):
        if whole.is_terminal():
            break
        seat = whole.current_player()
        table[seat] = agents.parse("random" if turn % 3 == 0 else "greedy", game.module.GAME).row()
        stats = np.zeros((game.module.N_ACTION_CODES, 3))
        expected = game.bound.agent_action(game.params_array, table, np.int64(seat), whole.state, whole.streams,
                                           whole.work, stats)
        got = game.bound.plain_agent_action(game.params_array, table, np.int64(seat), plain.state, plain.streams,
                                            plain.work, stats)
        assert got == expected and np.array_equal(plain.streams, whole.streams), turn
        whole.apply_action(expected[0])
        plain.apply_action(got[0])
    assert turn > 20


def test_a_replay_of_random_and_greedy_seats_loads_the_plain_agents(monkeypatch):
    """Issue 41: the replay asks for the decision function of its seats' policies (the plain copy's here)."""
    asked = []
    real = replay.handle.Game.agent_function
    monkeypatch.setattr(replay.handle.Game, "agent_function",
                        lambda self, specs: asked.append(list(specs)) or real(self, specs))
    config = cfg.resolve("zwai", policies=[("0", "random"), ("1", "greedy")], games=1)
    replay.play(config, 0)
    assert asked[0] == ["random", "greedy"]
