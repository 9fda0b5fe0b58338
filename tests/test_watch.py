"""Games worth watching (issue "Watch a game"): which games a report names, and its section with the replay commands."""

import os
import subprocess
import sys

import numpy as np
import pytest

from analyses import data, report
from analyses.watch import games_worth_watching, replay_command
from simcore.io import config as cfg
from simcore.studies import runs


def _file(folder, game, variant, games=2000, seed=1, policy="random"):
    run = cfg.resolve(game, policies=[("all", policy)], games=games, seed=seed, variant=variant)
    path = folder / f"{variant}.parquet"
    runs.run_to_file(run, path)
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Two variants of Zwergen Ziehen on the same seed (the same games) under different names, and Zwai, whose
    games all last equally long."""
    folder = tmp_path_factory.mktemp("watch")
    for name in ("one", "two"):
        _file(folder, "zwergen", name)
    _file(folder, "zwai", "zwai", games=300)
    return folder


def _row(result, watch):
    return int(np.flatnonzero(result.column("game_index") == watch.game_index)[0])


def test_longest_and_shortest_are_the_extreme_games(folder):
    result = data.load_result(folder / "one.parquet")
    turns, index = result.column("n_turns"), result.column("game_index")
    picks = {w.label: w for w in games_worth_watching(result)}
    assert turns.min() < turns.max()
    for label, extreme in (("longest", turns.max()), ("shortest", turns.min())):
        w = picks[label]
        assert w.n_turns == extreme == turns[_row(result, w)]
        assert w.game_index == index[turns == extreme].min()      # ties: the lowest game index
        assert w.winners == tuple(np.flatnonzero(result.wins[_row(result, w)]))
        assert w.variant == "one" and w.path == result.path


def test_games_of_one_length_give_the_first_game_once(folder):
    result = data.load_result(folder / "zwai.parquet")
    if result.column("n_turns").min() != result.column("n_turns").max():
        pytest.skip("Zwai's games differ in length now")
    picks = games_worth_watching(result)
    assert [w.label for w in picks[:-1]] == ["first"] and picks[0].game_index == 0


def test_the_weakest_seats_loss_is_a_loss_drawn_reproducibly_per_variant(folder):
    one, two = (data.load_result(folder / f"{name}.parquet") for name in ("one", "two"))
    assert np.array_equal(one.column("n_turns"), two.column("n_turns"))   # the same games, only the name differs
    share = one.points.mean(axis=0)
    seat = int(np.argmin(share))
    pick = games_worth_watching(one)[-1]
    assert pick.label == f"loss of seat {seat}" and f"{share[seat]:.3f}" in pick.note
    row = _row(one, pick)
    assert not one.wins[row, seat] and not one.column("timeout")[row]
    assert games_worth_watching(data.load_result(one.path))[-1] == pick
    assert games_worth_watching(two)[-1].game_index != pick.game_index
    # another process (with its own salt for str hashes) draws the same game
    code = ("from analyses import data, watch; "
            f"print(watch.games_worth_watching(data.load_result({str(one.path)!r}))[-1].game_index)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONHASHSEED": "random"})
    assert done.stdout.strip() == str(pick.game_index), done.stderr


def test_the_replay_command_names_the_file_from_the_reports_folder(folder, tmp_path):
    pick = games_worth_watching(data.load_result(folder / "one.parquet"))[0]
    assert replay_command(pick, folder) == f"simcore replay one.parquet --index {pick.game_index}"
    assert replay_command(pick, tmp_path) == f"simcore replay {folder.resolve() / 'one.parquet'} --index " \
                                             f"{pick.game_index}"


def test_the_markdown_report_names_the_games_with_their_commands(folder):
    results = [data.load_result(folder / f"{name}.parquet") for name in ("one", "two")]
    text = report.write_report(results, folder / "report.md").read_text()
    section = text.split("## Games worth watching\n")[1]
    rows = [line.split(" | ") for line in section.splitlines() if line.startswith("| ")][1:]
    picks = [w for r in results for w in games_worth_watching(r)]
    assert len(rows) == len(picks) == 6
    for row, w in zip(rows, picks, strict=True):
        result = results[0] if w.variant == "one" else results[1]
        assert row[0] == f"| {w.variant}" and row[1].startswith(w.label)
        assert row[-1] == f"`simcore replay {w.variant}.parquet --index {w.game_index}` |"
        assert int(row[2]) == result.column("n_turns")[_row(result, w)]
