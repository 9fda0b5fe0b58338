"""Issue 36: never lose a result, never write outside the folder the user named.

Each case here was found by a hostile test: a planted link, a device as the output, a second writer, a signal.
"""

import os
import signal
import stat
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

from simcore.io import config as cfg
from simcore.io import results, writing


def _run(games=20):
    return cfg.resolve("goofspiel", games=games, seed=1)


def _write(path, games=20):
    with results.ResultWriter(path, _run(games)) as writer:
        writer.add(0, _rows(games))


def _rows(games):
    from simcore import engine
    run = _run(games)
    return engine.run(run.module, run.params_array(), run.policies_array(), run.seed, games)


def test_a_link_planted_at_the_lock_file_is_refused_not_followed(cli, tmp_path):
    """Issue 36: a `.X.lock` link made simcore truncate the file it pointed to, outside the folder."""
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / ".x.parquet.lock").symlink_to(outside)
    result = cli("run", "goofspiel", "--games", "20", "--out", folder / "x.parquet", "--quiet")
    assert result.returncode != 0
    assert "lock file" in result.stderr and "is a link" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert outside.read_text() == "precious"
    assert not (folder / "x.parquet").exists()


def test_a_link_planted_at_a_folders_lock_is_refused_not_followed(cli, tmp_path):
    """Issue 36: the same with a sweep folder's `.simcore.lock`."""
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / writing.FOLDER_LOCK).symlink_to(outside)
    with pytest.raises(OSError, match="is a link"), writing.Lock(folder):
        pass
    assert outside.read_text() == "precious"


def test_a_link_planted_at_the_old_temporary_name_receives_nothing(tmp_path):
    """Issue 36: a link at `.X.<pid>.tmp` received the Parquet result. Temporary files are now created anew
    under a name that cannot be guessed."""
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    (tmp_path / f".x.parquet.{os.getpid()}.tmp").symlink_to(outside)
    _write(tmp_path / "x.parquet")
    assert outside.read_text() == "precious"
    assert pq.read_table(tmp_path / "x.parquet").num_rows == 20


def test_write_atomic_never_writes_through_a_planted_link(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    (tmp_path / f".m.json.{os.getpid()}.tmp").symlink_to(outside)
    writing.write_atomic(tmp_path / "m.json", lambda path: path.write_text("{}"))
    assert outside.read_text() == "precious" and (tmp_path / "m.json").read_text() == "{}"


def test_a_pipe_as_the_output_is_refused_not_replaced(cli, tmp_path):
    """Issue 36: `--out /dev/null` (as root) replaced the device with a regular file. Only a new path or a
    regular file is written; a pipe, a device or a socket is refused in one line."""
    pipe = tmp_path / "pipe.parquet"
    os.mkfifo(pipe)
    result = cli("run", "goofspiel", "--games", "20", "--out", pipe, "--quiet")
    assert result.returncode != 0 and "not a regular file" in result.stderr
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe.parquet"]


@pytest.mark.skipif(os.getuid() != 0, reason="only root can replace /dev/null")
def test_dev_null_as_the_output_is_refused_not_replaced(cli):
    result = cli("run", "goofspiel", "--games", "20", "--out", "/dev/null", "--quiet")
    assert result.returncode != 0 and "not a regular file" in result.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not os.path.exists("/dev/.null.lock")


def test_write_atomic_refuses_a_device(tmp_path):
    pipe = tmp_path / "report.md"
    os.mkfifo(pipe)
    with pytest.raises(OSError, match="not a regular file"):
        writing.write_atomic(pipe, lambda path: path.write_text("x"))
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


def _start(*args):
    return subprocess.Popen([sys.executable, "-m", "simcore", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for(predicate, process, seconds=120):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_sigterm_leaves_nothing_behind_as_sigint_does(tmp_path):
    """Issue 36: SIGTERM, unlike SIGINT, left `.tmp` and `.lock` files behind."""
    out = tmp_path / "x.parquet"
    writer = _start("run", "zwai", "--games", "100000000", "--out", out, "--quiet")
    _wait_for(lambda: any(p.name.endswith(".tmp") for p in tmp_path.iterdir()), writer)
    writer.send_signal(signal.SIGTERM)
    _, err = writer.communicate(timeout=120)
    assert writer.returncode != 0
    assert list(tmp_path.iterdir()) == [], err
