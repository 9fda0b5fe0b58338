"""Issue 54: a report whose replay pages fail leaves no empty `-replays/` folder behind (the picture-less game's
traceback did); a folder that was there before is left as it was."""

from collections import namedtuple

import pytest

from analyses import report

Watch = namedtuple("Watch", "variant label path game_index")      # a game worth watching, as the report has it


def _fails(path, index, out):
    raise RuntimeError("no picture")


def test_a_failed_replay_leaves_no_empty_folder(tmp_path):
    watches = [Watch("v", "longest", "v.parquet", 0)]
    with pytest.raises(RuntimeError):
        report.write_replays(watches, tmp_path / "r.html", _fails)
    assert not (tmp_path / "r-replays").exists()
    (tmp_path / "r-replays").mkdir()
    with pytest.raises(RuntimeError):
        report.write_replays(watches, tmp_path / "r.html", _fails)
    assert (tmp_path / "r-replays").is_dir()


def test_the_pages_are_written_and_linked(tmp_path):
    watches = [Watch("v", "longest", "v.parquet", 0)]
    pages = report.write_replays(watches, tmp_path / "r.html", lambda path, index, out: out.write_text("page"))
    assert pages == {watches[0]: "r-replays/v-longest.html"} and (tmp_path / "r-replays/v-longest.html").is_file()
