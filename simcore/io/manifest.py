"""The manifest of a folder of runs (a sweep, a ladder, a tune, a contest): what was planned and what is finished.

``_manifest.json`` is rewritten whole now and then; between two writes each finished variant is appended to
``_manifest.journal`` at once, one JSON line, so a kill loses no finished variant and a long sweep does not
rewrite a growing file after every variant. Reading takes the manifest, then the journal's lines. The names
begin with ``_`` so that ``pandas.read_parquet(folder)`` and ``folder/*.parquet`` read only the results.
This module plays nothing: the analyses read manifests through it.
"""

import json
import os
import shlex
from pathlib import Path

from simcore.io import writing

MANIFEST = "_manifest.json"
OLD_MANIFEST = "manifest.json"     # a folder written before the manifest's name began with "_": still read
JOURNAL = "_manifest.journal"      # one JSON line per variant finished since the manifest was last written


_command = []      # the command line that runs now, as its user gave it (simcore.cli records it)


def record_command(args):
    """Record the command that runs now (its words after ``simcore``): a manifest names it as the command that
    finishes its folder's run when that run is stopped."""
    _command[:] = ["simcore", *args]


def command():
    """The command that runs now, quoted for a shell, or None when it was not recorded (simcore used from Python)."""
    return shlex.join(_command) if _command else None


def head(kind, game, **more):
    """The first keys of a manifest a run writes before it plays: what wrote it (simcore's version, the run's
    kind and game) and the command that finishes it, then ``more``."""
    from simcore import __version__

    return {"simcore_version": __version__, "kind": kind, "game": game, "command": command(), **more}


def exists(folder):
    """Does ``folder`` hold a manifest (its file, the old one, or a journal of finished variants)?"""
    return any((Path(folder) / name).is_file() for name in (MANIFEST, OLD_MANIFEST, JOURNAL))


def read_manifest(folder):
    """The manifest of a sweep folder with the journal's variants, or an empty one (a damaged manifest is as
    good as none)."""
    manifest = read_file(folder)
    if not (isinstance(manifest, dict) and isinstance(manifest.get("variants"), dict)):
        manifest = {"variants": {}}
    manifest["variants"].update(_journal(folder))
    return manifest


def read_file(folder):
    """The manifest as written (``_manifest.json``, else the old ``manifest.json``), or None."""
    for name in (MANIFEST, OLD_MANIFEST):
        try:
            return json.loads((Path(folder) / name).read_text())
        except FileNotFoundError:
            continue
        except (OSError, ValueError):
            return None
    return None


def _journal(folder):
    """``{name: entry}`` of the variants the journal records (a line cut short by a kill is left out)."""
    try:
        lines = (Path(folder) / JOURNAL).read_text().splitlines()
    except OSError:
        return {}
    entries = {}
    for line in lines:
        try:
            record = json.loads(line)
            entries[record["variant"]] = record["entry"]
        except (ValueError, KeyError, TypeError):
            continue
    return entries


def journal(folder, name, entry):
    """Record a finished variant at once: one line appended to the journal (never through a link)."""
    line = json.dumps({"variant": name, "entry": entry}) + "\n"
    fd = os.open(Path(folder) / JOURNAL, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def write_manifest(folder, manifest):
    """Write the whole manifest (it then holds what the journal held, and the journal goes)."""
    folder = Path(folder)
    writing.write_atomic(folder / MANIFEST, lambda path: path.write_text(json.dumps(manifest, indent=2) + "\n"))
    for old in (JOURNAL, OLD_MANIFEST):
        (folder / old).unlink(missing_ok=True)
