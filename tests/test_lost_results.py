"""Issue 52 (cases 1, 2, 3, 5 and 13): no command loses a finished result, and a folder says what it holds.

A hostile tester found: two runs into one folder at once both exiting 0 with one run's files gone, readings
replaced by a run of other settings without a word, a user's file of a variant's name replaced, a half-played
folder analysed as if finished, and a manifest whose promises were broken read without a word.
"""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from simcore.io import writing
from simcore.studies import readings, sweep, versus
from tests.conftest import simcore_cli
from tests.test_safety import TUNE
from tests.test_until_decided import SWEEP as UNTIL  # three variants that stop at different looks

VERSUS = ("versus", "goofspiel", "--policy", "greedy", "--against", "random", "--games", "10", "--quiet")
SWEEP = 'game = "goofspiel"\ngames = 12\nseed = 3\n[axes]\nnum_cards = [4, 5]\n'


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A Zwergen Ziehen result file to play again under its readings (random seats: quick)."""
    path = tmp_path_factory.mktemp("played") / "zwergen.parquet"
    assert simcore_cli("run", "zwergen", "--games", "40", "--out", path, "--quiet").returncode == 0
    return path


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.parquet"))}


def _one_line_error(done):
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr


# --- case 1: two runs into one folder at once ---------------------------------------------------------------------

def test_a_second_readings_run_while_one_plays_into_the_folder_is_refused(cli, played, tmp_path, monkeypatch):
    """Issue 52, case 1: two `readings --out` into one folder at once both exited 0, the folder kept one run's
    files and the other's printed verdict no longer matched it. The folder is locked from before the first run
    plays until its verdict is printed: a second run meanwhile is refused and the first keeps its files."""
    out = tmp_path / "r"
    seen = []
    play = readings.to_folder

    def meanwhile(todo, folder, *args):
        seen.append(simcore_cli("readings", played, "--games", "20", "--out", out, process=True))
        return play(todo, folder, *args)

    monkeypatch.setattr(readings, "to_folder", meanwhile)
    first = cli("readings", played, "--games", "30", "--out", out)
    assert first.returncode == 0, first.stderr
    assert "is being written by another simcore process" in _one_line_error(seen[0])
    assert {pq.read_metadata(p).num_rows for p in out.glob("*.parquet")} == {30}


def test_a_second_contest_while_one_plays_into_the_folder_is_refused(cli, tmp_path, monkeypatch):
    """Issue 52, case 1: two `versus --out` into one folder at once both exited 0 ("wrote 2 seatings") and the
    first's games were gone. The folder is locked for the whole contest."""
    out = tmp_path / "v"
    seen = []
    play = versus.to_folder

    def meanwhile(runs, folder, *args, **kwargs):
        seen.append(simcore_cli("versus", "goofspiel", "--policy", "random", "--against", "greedy", "--games", "10",
                                "--quiet", "--out", out, process=True))
        return play(runs, folder, *args, **kwargs)

    monkeypatch.setattr(versus, "to_folder", meanwhile)
    first = cli(*VERSUS, "--out", out)
    assert first.returncode == 0, first.stderr
    assert "is being written by another simcore process" in _one_line_error(seen[0])
    manifest = json.loads((out / sweep.MANIFEST).read_text())
    assert manifest["variants"]["seat0"]["policies"][0] == "greedy"      # the first contest's games


# --- case 2: readings of other settings -------------------------------------------------------------------------

def test_readings_of_other_games_need_force_to_replace_finished_ones(cli, played, tmp_path):
    """Issue 52, case 2: `readings --out` run again with other --games replaced the finished readings without a
    word; versus, ladder and tune ask for --force. So does readings now."""
    out = tmp_path / "r"
    assert cli("readings", played, "--games", "30", "--out", out).returncode == 0
    before = _files(out)
    again = cli("readings", played, "--games", "20", "--out", out)
    error = _one_line_error(again)
    assert "holds the finished results of a readings with other settings" in error
    assert "--games changed" in error and "allowed: --force to replace them, or a new folder" in error
    assert _files(out) == before
    assert cli("readings", played, "--games", "30", "--out", out).returncode == 0      # the same: nothing replaced
    assert _files(out) == before
    forced = cli("readings", played, "--games", "20", "--out", out, "--force")
    assert forced.returncode == 0, forced.stderr
    assert {pq.read_metadata(p).num_rows for p in out.glob("*.parquet")} == {20}


# --- case 3: a folder simcore did not write -----------------------------------------------------------------------

def _users_folder(tmp_path, name):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / name).write_bytes(b"the user's own file")
    return folder


@pytest.mark.parametrize("command", ["sweep", "until-decided", "readings", "versus", "ladder", "tune"])
def test_a_folder_holding_files_simcore_did_not_write_is_refused_without_force(cli, played, tmp_path, command):
    """Issue 52, case 3: a user's file that happens to carry a variant's name, in a folder simcore never wrote (no
    manifest), was replaced by `readings --out` or `sweep --out`, exit 0. Every command that writes a folder
    refuses it in one line naming the folder and the file, unless --force."""
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(SWEEP)
    tune_file = tmp_path / "t.toml"
    tune_file.write_text(TUNE)
    name, args = {
        "sweep": ("num_cards=4.parquet", ("sweep", sweep_file, "--quiet")),
        "until-decided": ("num_cards=4.parquet", ("sweep", sweep_file, "--until-decided", "--games", "200",
                                                  "--first-look", "100", "--quiet")),
        "readings": ("default.parquet", ("readings", played, "--games", "20")),
        "versus": ("seat0.parquet", VERSUS),
        "ladder": ("b2-vs-b1-seat0.parquet", ("ladder", "goofspiel", "--budgets", "1,2", "--games", "3", "--quiet")),
        "tune": ("notes.txt", ("tune", tune_file, "--quiet")),
    }[command]
    folder = _users_folder(tmp_path, name)
    error = _one_line_error(cli(*args, "--out", folder))
    assert f"{folder}" in error and name in error and "allowed: --force" in error
    assert (folder / name).read_bytes() == b"the user's own file"
    assert sorted(p.name for p in folder.iterdir()) == [name]
    forced = cli(*args, "--out", folder, "--force")
    assert forced.returncode == 0, forced.stderr


def test_a_folder_holding_only_what_simcore_leaves_is_taken(cli, tmp_path):
    """Issue 52, case 3: simcore's own leftovers (a lock file, a killed writer's temporary file, the traces'
    folder) are no user's files: the folder is written without --force."""
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(SWEEP)
    folder = tmp_path / "s"
    (folder / writing.TRACES).mkdir(parents=True)
    (folder / writing.FOLDER_LOCK).write_text("pid 1: simcore sweep")
    (folder / ".num_cards=4.parquet.999999999.abc.tmp").write_bytes(b"x")
    done = cli("sweep", sweep_file, "--out", folder, "--quiet")
    assert done.returncode == 0, done.stderr


# --- case 5: an unfinished folder -----------------------------------------------------------------------------------

class Stop(KeyboardInterrupt):
    """What SIGTERM raises in simcore (simcore.io.writing.interrupt), raised at a chosen moment."""


def test_an_interrupted_sweep_until_decided_is_said_unfinished_with_its_command(cli, tmp_path, monkeypatch):
    """Issue 52, case 5: a `sweep --until-decided` stopped after its first look was analysed as if finished:
    verdicts on 2 of 3 variants from the first look and the third dropped without a word. analyze and plan say
    the folder is unfinished, which variants are missing or short, and the command that finishes it; the
    verdicts are under an "unfinished" heading, none called final. The command then finishes it."""
    sweep_file = tmp_path / "until.toml"
    sweep_file.write_text(UNTIL)
    out = tmp_path / "until"
    command = ("sweep", sweep_file, "--out", out, "--until-decided", "--first-look", "200", "--margin", "0.1")
    looked = []
    look = sweep._Looker.look

    def stopping(self, *args):
        if len(looked) == 2:
            raise Stop
        looked.append(args)
        return look(self, *args)

    monkeypatch.setattr(sweep._Looker, "look", stopping)
    assert cli(*command, "--quiet").returncode != 0
    monkeypatch.undo()
    for reader in ("analyze", "plan"):
        done = cli(reader, out)
        assert done.returncode == 0, done.stderr
        note = [line for line in done.stderr.splitlines() if "is not finished" in line]
        assert len(note) == 1, done.stderr
        assert "1 of its 3 planned variants have no results (square-3p)" in note[0]
        assert "1 is short of its games: square-2p (not yet decided after 200 of 800 games)" in note[0]
        assert "ring-4p" not in note[0]
        assert f"simcore sweep {sweep_file} --out {out} --until-decided --first-look 200 --margin 0.1" in note[0]
        assert done.stdout.startswith(f"UNFINISHED: {out}")
    assert "final" not in cli("analyze", out).stdout.lower().replace("not final", "")
    assert cli("analyze", out, "--report", tmp_path / "r.md").returncode == 0
    assert "**Unfinished, not final:** " in (tmp_path / "r.md").read_text()
    assert cli(*command, "--quiet").returncode == 0
    finished = cli("analyze", out)
    assert "is not finished" not in finished.stderr and "UNFINISHED" not in finished.stdout


def test_a_contest_stopped_after_one_seating_is_said_unfinished(cli, tmp_path, monkeypatch):
    """Issue 52, case 5: a half-written `versus --out` folder (seat 0 only) got a verdict as if complete."""
    out = tmp_path / "v"
    run = sweep.runs.run_to_file
    calls = []

    def stopping(*args, **kwargs):
        if calls:
            raise Stop
        calls.append(1)
        return run(*args, **kwargs)

    monkeypatch.setattr(sweep.runs, "run_to_file", stopping)
    assert cli(*VERSUS, "--out", out).returncode != 0
    monkeypatch.undo()
    assert (out / "seat0.parquet").is_file() and not (out / "seat1.parquet").exists()
    done = cli("analyze", out)
    assert done.returncode == 0, done.stderr
    assert "is not finished: 1 of its 2 planned variants have no results (seat1)" in done.stderr
    assert f"simcore {' '.join(VERSUS)} --out {out}" in done.stderr
    assert done.stdout.startswith(f"UNFINISHED: {out}")


# --- case 13: the manifest's promises ---------------------------------------------------------------------------

def _swept(tmp_path):
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(SWEEP)
    return ("sweep", sweep_file, "--out", tmp_path / "s", "--quiet", "--trace")


@pytest.fixture
def swept(cli, tmp_path):
    assert cli(*_swept(tmp_path)).returncode == 0
    assert cli("analyze", tmp_path / "s").returncode == 0
    return tmp_path / "s"


def _edit_manifest(out, change):
    manifest = json.loads((out / sweep.MANIFEST).read_text())
    change(manifest)
    (out / sweep.MANIFEST).write_text(json.dumps(manifest))


def _rewrite(path, change):
    """Rewrite the Parquet file at ``path`` with ``change(table)``, its metadata kept."""
    table = pq.read_table(path)
    pq.write_table(change(table).replace_schema_metadata(table.schema.metadata), path)


def _flip_first_win(table):
    column = table["win_0"].to_pylist()
    column[0] = not column[0]
    return table.set_column(table.schema.get_field_index("win_0"), "win_0", pa.array(column))


def test_a_result_file_that_is_not_what_the_manifest_recorded_is_refused(cli, swept):
    """Issue 52, case 13: a manifest whose checksum does not match its file was analysed without a word."""
    _rewrite(swept / "num_cards=4.parquet", _flip_first_win)
    for reader in ("analyze", "plan", "readings"):
        error = _one_line_error(cli(reader, swept))
        assert f"{swept / 'num_cards=4.parquet'}" in error and "SHA-256" in error


def test_a_manifest_of_another_commands_kind_is_refused(cli, swept):
    """Issue 52, case 13: a manifest whose kind is another command's (a tune's) was analysed without a word."""
    _edit_manifest(swept, lambda m: m.update(kind="tune"))
    error = _one_line_error(cli("analyze", swept))
    assert "tune" in error and "allowed: a folder of" in error


def test_a_trace_whose_standings_were_edited_is_refused(cli, swept):
    """Issue 52, case 13: a trace whose standings were edited passed as the trace of its run."""
    trace = swept / writing.TRACES / "num_cards=4.trace.parquet"

    def edit(table):
        standing = table["standing"].to_pylist()
        standing[0] = [value + 1 for value in standing[0]]
        return table.set_column(table.schema.get_field_index("standing"), "standing",
                                pa.array(standing, table.schema.field("standing").type))

    _rewrite(trace, edit)
    error = _one_line_error(cli("analyze", swept))
    assert f"{trace}" in error and "SHA-256" in error
    assert "num_cards=4 played again" in cli(*_swept(swept.parent)[:-2], "--trace").stdout    # as the line says
    assert cli("analyze", swept).returncode == 0


def test_until_decided_looks_that_were_edited_are_refused(cli, tmp_path):
    """Issue 52, case 13: looks edited in the manifest (a verdict the file's games do not give, or a last look of
    other games than the file's rows) were analysed without a word."""
    sweep_file = tmp_path / "until.toml"
    sweep_file.write_text(UNTIL)
    out = tmp_path / "until"
    command = ("sweep", sweep_file, "--out", out, "--until-decided", "--first-look", "200", "--margin", "0.1")
    assert cli(*command, "--quiet").returncode == 0
    original = (out / sweep.MANIFEST).read_text()

    def verdict(manifest):
        record = manifest["variants"]["ring-4p"]["sequential"]
        record["verdict"] = "fair within"

    def games(manifest):
        manifest["variants"]["square-2p"]["sequential"]["looks"][-1]["games"] += 1

    for change, words in ((verdict, "ring-4p"), (games, "square-2p")):
        (out / sweep.MANIFEST).write_text(original)
        _edit_manifest(out, change)
        error = _one_line_error(cli("analyze", out))
        assert words in error and "looks" in error
    again = cli(*command)            # as the line says: the variant starts again from its first look
    assert f"{words}: starts again from its first look" in again.stdout
    assert cli("analyze", out).returncode == 0
