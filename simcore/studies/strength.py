"""The contests a folder of ``simcore versus --out`` or ``simcore ladder --out`` holds, as the
:class:`analyses.skill.Strength` records that ``analyze --strength FOLDER`` adds to a skill sweep's verdict.

Nothing is played here: each contest's seating files are read (A in one seat, B in the others, as the manifest
records them) and scored as ``simcore versus`` scores them (:func:`simcore.studies.versus.score`: a deal's mean
points over its seatings is one observation), so a contest reads the same here as where it was played.
"""

from pathlib import Path
from types import SimpleNamespace

import numpy as np

from analyses.data import DataError, load_result
from analyses.skill import Strength
from simcore.io.manifest import read_file, read_manifest
from simcore.studies import versus
from simcore.studies.sweep import manifest_kind

KINDS = ("versus", "ladder")


def read(folder):
    """Every contest of ``folder`` (one of ``versus``, one per rung of a ladder) as a :class:`Strength`, in the
    manifest's order; :class:`analyses.data.DataError` in one line for a folder of another kind or a contest
    missing a seating."""
    folder = Path(folder)
    written = read_file(folder)
    if not isinstance(written, dict) or manifest_kind(written) not in KINDS:
        raise DataError(f"--strength {folder}: not a folder of simcore versus --out or simcore ladder --out (a "
                        "ladder with --sprt keeps no manifest of its seatings); allowed: such a folder")
    contests = {}
    for entry in read_manifest(folder)["variants"].values():
        seat, policies = entry["overrides"]["seat"], entry["policies"]
        against = policies[1 if seat == 0 else 0]
        contests.setdefault((policies[seat], against), {})[seat] = folder / entry["file"]
    if not contests:
        raise DataError(f"--strength {folder}: no contest in it is finished; allowed: a folder whose run finished")
    return [_strength(folder, seatings) for seatings in contests.values()]


def _strength(folder, seatings):
    """One contest from its seating files ({seat: path}), scored as ``simcore versus`` scores it."""
    results = [load_result(path) for _, path in sorted(seatings.items())]
    players = results[0].players
    if sorted(seatings) != list(range(players)):
        missing = sorted(set(range(players)) - set(seatings))
        raise DataError(f"--strength {folder}: the contest of {results[0].policies[0]} has no seating in seat "
                        f"{', '.join(map(str, missing))}; allowed: a finished contest (run it again to finish it)")
    if any(not np.array_equal(r.column("game_index"), results[0].column("game_index")) for r in results):
        raise DataError(f"--strength {folder}: the seatings of the contest of {results[0].policies[0]} hold other "
                        "deals; allowed: a contest whose every seating played the same deals")
    # versus.score reads A's and B's specs from the seatings as played (A in seat 0 of the first)
    scored = versus.score([SimpleNamespace(policies=r.policies) for r in results],
                          [r.points[:, seat] for seat, r in enumerate(results)])
    return Strength(policy=scored.policy, against=scored.against, game=results[0].game,
                    params=results[0].meta.get("params", "{}"), deals=scored.deals, score=scored.score,
                    low=scored.low, high=scored.high, fair=scored.fair, pvalue=scored.pvalue, source=str(folder),
                    test=scored.test.removeprefix("test: "), split=scored.split)
