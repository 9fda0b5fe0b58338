"""``simcore check NAME`` and ``simcore.testing.check_game`` (issue 39, item 2): the conformance suite on one game,
a line per check and case, exit 1 when a check fails; and the page that shows it
(docs/how-to/adding-a-game.md, "Check a game")."""

from pathlib import Path

from simcore import games, testing
from tests.test_pages import _matches, steps

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "docs" / "how-to" / "adding-a-game.md"


def _section(page, heading):
    return page.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]


def test_check_passes_goofspiel_a_line_per_check_as_the_guide_shows(cli):
    """Every check for every case in the order of testing.plan, after the load; the guide's console block (its
    `...` standing for the times and the lines left out) is what the command prints."""
    done = cli("check", "goofspiel")
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    expected = [("loads", "default")] + [(check.name, testing.case_label(case))
                                         for check, case in testing.plan("goofspiel")]
    assert [line[5:].split(" [")[0] for line in lines[:-1]] == [name for name, _ in expected]
    assert all(f"[{case}]" in line for line, (_, case) in zip(lines, expected, strict=False))
    assert all(line.startswith(("ok   ", "skip ")) for line in lines[:-1])
    assert lines[-1].startswith("goofspiel: every check passed: 47 passed, 6 skipped, in ")
    [(command, args, shown)] = list(steps(_section(GUIDE.read_text(), "5. Check a game")))
    assert command == "command" and args == ["simcore", "check", "goofspiel"]
    assert _matches(shown, done.stdout), done.stdout


def test_a_broken_game_fails_its_check_in_one_line_and_exits_1(cli, monkeypatch):
    """Goofspiel whose every action reads alike: the action-words check fails for each case, in one line saying
    which words, the other checks pass, and the command exits 1 (--quick said in the summary)."""
    monkeypatch.setattr(games.load("goofspiel"), "action_to_string", lambda state, params, action: "a bid")
    done = cli("check", "goofspiel", "--quick")
    assert done.returncode == 1
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert len(failed) == len(testing.cases("goofspiel"))
    for line in failed:
        assert line.startswith("FAIL action-words [") and line.endswith("distinct legal actions read alike: "
                                                                         "['a bid'] (action_to_string)"), line
    summary = done.stdout.splitlines()[-1]
    assert summary.startswith("goofspiel: 3 failed: action-words [default], action-words [players=3")
    assert summary.endswith("; --quick: a quarter of each check's games, no searching agent")
    # issue 54: --quick leaves out the searching agents' checks (their copy is not compiled after an edit)
    for check in ("threads", "searches-legal", "searching-traced"):
        assert f"skip {check} [default]: {testing.QUICK_LEAVES}" in done.stdout or \
            f"skip {check} [default]: goofspiel declares no trace" in done.stdout


def test_check_game_records_a_crash_and_an_undocumented_parameter(monkeypatch):
    """A crash of the game's own code fails the check it happened in, in one line naming the error; a parameter
    the rules page leaves out fails params-documented, naming it; the others still run."""
    module = games.load("goofspiel")
    page = games.rules_text("goofspiel").replace("`num_cards`", "the number of cards")

    def crash(*args):
        raise ValueError("the handle\nbroke")

    monkeypatch.setattr(games, "rules_text", lambda name: page)
    monkeypatch.setattr(module, "state_to_string", crash)
    result = testing.check_game("goofspiel", quick=True)
    failed = {(record.check, record.message) for record in result.failures}
    assert not result.passed
    assert ("handle", "ValueError: the handle broke") in failed
    assert ("params-documented", "the rules page (simcore rules goofspiel) does not state num_cards; allowed: "
            "each parameter in backticks (`name`), a grouped one also as `group.*`") in failed
    assert {check for check, _ in failed} == {"handle", "observed-actions", "params-documented"}
    assert all(record.seconds >= 0 and "\n" not in record.message for record in result.records)


def test_a_lone_assert_in_the_games_code_says_where(monkeypatch):
    """An ``assert`` without words in the game's code (here raised as python would raise it, since pytest gives a
    test module's asserts words) fails its check with the file and line it was raised at."""
    def bare(*args):
        raise AssertionError()

    monkeypatch.setattr(games.load("goofspiel"), "draw_board", bare)
    record, = [r for r in testing.check_game("goofspiel", quick=True).failures]
    assert record.check == "picture" and record.message.startswith("an assertion failed at ")
    assert record.message.endswith(f"{Path(__file__).name}:{bare.__code__.co_firstlineno + 1}")


def test_quick_plays_a_quarter_of_the_games(monkeypatch):
    """--quick: the interface check plays 10 of its 40 games (each game through the interface once)."""
    played = []

    def counted(module, params, kinds, seed, game_index, **hooks):
        played.append(game_index)
        return driver_play(module, params, kinds, seed, game_index, **hooks)

    driver_play = testing.play
    monkeypatch.setattr(testing, "play", counted)
    for quick, games_played in ((False, 40), (True, 10)):
        played.clear()
        testing.interface("goofspiel", {}, quick)
        assert played == list(range(games_played))


def test_an_unknown_game_is_refused_in_one_line_with_exit_2(cli):
    done = cli("check", "chess")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"Error: unknown game 'chess'; allowed: {', '.join(games.names())}"]
