"""Games worth watching in a result file: the longest, the shortest, and a typical loss of the weakest seat."""

import shlex
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Watch:
    """One game of a result file worth replaying, and why."""

    variant: str
    label: str          # what kind of game: "longest", "shortest", "first", "loss of seat 1"
    path: Path          # the result file, as loaded
    game_index: int
    n_turns: int
    winners: tuple      # the seats that won; empty when nobody did
    timeout: bool
    note: str = ""      # why this game, when the label alone does not say


def games_worth_watching(result):
    """The longest and the shortest game (ties: the lowest game index; when every game is as long, just the first),
    and a random game lost by the seat with the lowest points (the balance table's), drawn from the file's seed and
    the variant's name: the same game on every call."""
    index, turns, timeout = result.column("game_index"), result.column("n_turns"), result.column("timeout")
    wins = result.wins

    def watch(row, label, note=""):
        return Watch(result.name, label, result.path, int(index[row]), int(turns[row]),
                     tuple(int(s) for s in np.flatnonzero(wins[row])), bool(timeout[row]), note)

    def lowest_index(rows):
        return rows[np.argmin(index[rows])]

    if turns.min() == turns.max():  # games of a fixed length (Zwai): one game stands for both
        picks = [watch(lowest_index(np.arange(len(turns))), "first", f"every game has {turns[0]} turns")]
    else:
        picks = [watch(lowest_index(np.flatnonzero(turns == turns.max())), "longest"),
                 watch(lowest_index(np.flatnonzero(turns == turns.min())), "shortest")]
    share = result.points.mean(axis=0)
    seat = int(np.argmin(share))
    lost = np.flatnonzero(~wins[:, seat] & ~timeout)
    if len(lost):
        lost = lost[np.argsort(index[lost], kind="stable")]  # the draw must not depend on the order of the rows
        # crc32, not hash(): Python salts string hashes per process, and the pick must survive a restart
        rng = np.random.default_rng([result.seed, zlib.crc32(result.name.encode())])
        picks.append(watch(lost[rng.integers(len(lost))], f"loss of seat {seat}",
                           f"the lowest points, {share[seat]:.3f}"))
    return picks


def replay_command(watch, folder):
    """The command that replays ``watch``, run from ``folder`` (the report's): the file's path relative to it
    when the file lies inside, else absolute."""
    path = Path(watch.path).resolve()
    try:
        path = path.relative_to(Path(folder).resolve())
    except ValueError:
        pass
    return file_command(path, watch.game_index)


def file_command(path, index):
    """The command that replays game ``index`` of the result file ``path`` (quoted for the shell)."""
    return f"simcore replay {shlex.quote(str(path))} --index {index}"
