"""The command line: runs, output schema and metadata, and bad input (one line, non-zero exit, no file)."""

import tomllib

import pyarrow.parquet as pq
import pytest

from simcore import games as registry
from simcore.games import zwergen as z
from simcore.io import config as cfg
from simcore.io import results

ZWERGEN_CONFIG = "configs/zwergen.toml"


def test_games_lists_every_parameter_with_its_default(cli):
    done = cli("games")
    assert done.returncode == 0
    for name in registry.names():
        info = registry.load(name).GAME
        assert f"{name}: {info.long_name}" in done.stdout
        for p in info.params:
            assert p.name in done.stdout
    assert "players: 2, 4 " in done.stdout and "players: 2, 3, 4 " in done.stdout


def test_run_writes_one_row_per_game_with_the_documented_columns(cli, tmp_path):
    out = tmp_path / "zz4.parquet"
    done = cli("run", "zwergen", "--set", "players=4", "--set", "pro=true", "--policy", "greedy",
               "--policy", "1=random", "--games", "5000", "--seed", "1", "--out", out)
    assert done.returncode == 0, done.stderr
    table, meta = results.read(out)
    assert table.num_rows == 5000
    common = ["game", "variant", "seed", "game_index", "n_players", "first_seat", "n_turns", "timeout"]
    seats = [f"win_{i}" for i in range(4)] + [f"score_{i}" for i in range(4)]
    assert table.column_names == common + seats + [name for name, _, _ in z.EXTRA_COLUMNS]
    assert table["game_index"].to_pylist() == list(range(5000))
    # team games: both seats of a team win together
    assert table["win_0"].to_pylist() == table["win_2"].to_pylist()
    assert table["win_1"].to_pylist() == table["win_3"].to_pylist()
    resolved = tomllib.loads(meta["config"])
    assert resolved["params"]["players"] == 4 and resolved["params"]["pro"] is True
    assert resolved["policies"] == {"0": "greedy", "1": "random", "2": "greedy", "3": "greedy"}
    assert meta["seed"] == "1" and meta["version"]
    # the summary: win share per seat with an interval, mean turns, games per second
    assert "seat 3" in done.stdout and "games/s" in done.stdout and "mean turns" in done.stdout


def test_resolved_config_in_the_metadata_replays_the_same_rows(cli, tmp_path):
    first = tmp_path / "a.parquet"
    cli("run", "zwergen", "--set", "deck.squirrel_3=5", "--policy", "greedy", "--games", "2000", "--seed", "9",
        "--out", first, "--quiet")
    _, meta = results.read(first)
    replay_config = tmp_path / "replay.toml"
    replay_config.write_text(meta["config"])
    again = tmp_path / "b.parquet"
    done = cli("run", "zwergen", "--config", replay_config, "--out", again, "--quiet")
    assert done.returncode == 0, done.stderr
    assert pq.read_table(first).equals(pq.read_table(again))


@pytest.mark.parametrize("game", registry.names())
def test_shipped_config_holds_every_parameter_at_its_default(game):
    """Every game's configs/<game>.toml lists every parameter, at its default."""
    table = tomllib.loads(open(f"configs/{game}.toml").read())
    assert table["game"] == game
    assert cfg.flatten(table["params"]) == registry.load(game).GAME.defaults()


def test_config_file_and_command_line_override(cli, tmp_path):
    out = tmp_path / "o.parquet"
    done = cli("run", "zwergen", "--config", ZWERGEN_CONFIG, "--games", "300", "--set", "players=4",
               "--policy", "2=random", "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    table, meta = results.read(out)
    assert table.num_rows == 300 and table["n_players"][0].as_py() == 4
    assert tomllib.loads(meta["config"])["policies"]["2"] == "random"


BAD = [
    (["--set", "colour=red"], "unknown parameter of zwergen 'colour'"),
    (["--set", "player=4"], "did you mean 'players'"),
    (["--set", "players=3"], "players = 3 is not allowed; allowed: one of 2, 4"),
    (["--set", "pro=3"], "pro = 3 is not allowed; allowed: true or false"),
    (["--set", "track_half=wide"], "track_half = 'wide' is not allowed; allowed: an integer"),
    (["--set", "deck.squirrel_1=-1"], "deck.squirrel_1 = -1 is not allowed"),
    (["--games", "-5"], "games = -5 is not allowed; allowed: an integer from 1"),
    (["--policy", "clever"], "unknown policy of zwergen 'clever'"),
    (["--policy", "2=random"], "policy seat 2 is not a seat of a 2-player game"),
    (["--set", "first_seat=3"], "first_seat = 3 is not a seat"),
    (["--set", "hand_size=12", "--set", "players=4", "--set", "deck.add=0", "--set", "deck.pull_two=0"],
     "the deck has"),
]


@pytest.mark.parametrize("args, message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_nonzero_exit_and_no_file(cli, tmp_path, args, message):
    out = tmp_path / "out.parquet"
    done = cli("run", "zwergen", *args, "--games", "10", "--out", out) if "--games" not in args else \
        cli("run", "zwergen", *args, "--out", out)
    assert done.returncode != 0
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content, message", [
    ('game = "zwergen"\n[params]\nshark = 2\n', "unknown parameter of zwergen 'shark'"),
    ('game = "zwergen"\ngamez = 2\n', "unknown config key 'gamez'"),
    ('game = "zwergen"\n[params]\nplayers = "four"\n', "players = 'four' is not allowed"),
    ('game = "zwergen"\n[params.deck]\nadd = 4.5\n', "deck.add = 4.5 is not allowed"),
    ('game = "zwai"\n', "the config is for game 'zwai', not 'zwergen'"),
    ('game = "zwergen"\nplayers = [\n', "is not valid TOML"),
])
def test_bad_config_file(cli, tmp_path, content, message):
    path = tmp_path / "bad.toml"
    path.write_text(content)
    out = tmp_path / "out.parquet"
    done = cli("run", "zwergen", "--config", path, "--games", "10", "--out", out)
    assert done.returncode != 0
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not out.exists()


def test_missing_config_file(cli, tmp_path):
    done = cli("run", "zwergen", "--config", tmp_path / "nope.toml")
    assert done.returncode != 0 and "cannot read config" in done.stderr


@pytest.mark.parametrize("where", ["parent-is-a-file", "missing-folder", "is-a-folder"])
def test_unwritable_output_path(cli, tmp_path, where):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    out = {"parent-is-a-file": blocker / "out.parquet", "missing-folder": tmp_path / "no" / "out.parquet",
           "is-a-folder": tmp_path}[where]
    done = cli("run", "zwergen", "--games", "10", "--out", out)
    assert done.returncode != 0
    assert f"cannot write {out}" in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_an_existing_result_survives_a_failed_run(cli, tmp_path):
    out = tmp_path / "keep.parquet"
    assert cli("run", "zwergen", "--games", "100", "--out", out, "--quiet").returncode == 0
    before = out.read_bytes()
    assert cli("run", "zwergen", "--games", "100", "--set", "players=5", "--out", out).returncode != 0
    assert out.read_bytes() == before
