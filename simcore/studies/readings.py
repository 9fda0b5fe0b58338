"""Does a verdict hang on a reading of the rulebook? (``simcore readings``)

Where a rulebook is silent simcore picks a reading, and each game declares those parameters with the values the
rulebook's words allow (``simcore.games.Reading``). This plays every variant of a set of results again under each
other reading, on the same seed and so on the same deals, and says per variant whether its verdict word depends on
the reading.

"Depends" means one thing: the balance verdict's word ("unbalanced", "no edge found", each as ``analyze`` gives it,
Holm across the variants under each reading) is another under some reading. A verdict whose word is the same under
every reading is "same under every reading", even where its edge moves: another seat furthest from fair, or the
seats' points moved from the variant as played to the variant under the reading. That move is its own test:
Hotelling's T² on the per-game change, paired game by game on common deals (``analyses.variants.fairness``), Holm
across every other reading of every variant, so that a reading that changes nothing is said to move the seats at
most 5% of the time in the whole output (tests/test_readings.py measures it). A word that differs while no seat
moved beyond chance may differ by chance alone (a variant near the edge of what its games find): the sentence says
so and that more games would tell.

Every word is a claim (``analyses.claims``): per reading its balance claim, per other reading its change against
the variant as played, per variant its DEPENDS claim; the terminal, the Markdown and ``--json`` render them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from analyses import claims, data
from analyses.balance import RESAMPLES, seat_balance
from analyses.claims import DEPENDS, Claim
from analyses.paired import holm
from analyses.variants import fairness
from analyses.verdict import ALPHA, Verdict, balance_sentence, unit_name
from simcore.io import config as cfg
from simcore.io import results as result_files

MAX_GAMES = 20_000      # games a variant is replayed with by default: its own, at most this many
KIND = "readings"       # the manifest's kind of an --out folder: analyze reads it as any sweep folder


def _balance_text(claim):
    """A reading's balance claim as the sentence says it: "no seat edge found", or "unbalanced, seat 3 takes 0.069
    [0.056, 0.085] (edge -0.181)"."""
    if claim.word == "no edge found":
        return f"no {_unit_word(claim)} edge found"
    n = claim.numbers
    return (f"unbalanced, {unit_name(claim.seats)} takes {n['share']:.3f} [{n['low']:.3f}, {n['high']:.3f}] "
            f"(edge {n['edge']:+.3f})")


def _unit_word(claim):
    """"team" where the balance claim's units are teams, else "seat"."""
    return "team" if any(len(u["seats"]) > 1 for u in claim.numbers["units"]) else "seat"


@dataclass(frozen=True)
class Alternative:
    """The variant played again under one other reading: ``param`` = ``value``, its balance claim (``balance``,
    ``analyses.claims.balance_claim``) and its ``analyses.variants.Fairness`` against the variant as played (its
    tests Holm-adjusted across every other reading of the run)."""

    param: str
    value: object
    balance: Claim
    fairness: object

    @property
    def reading(self):
        return f"{self.param}={_shown(self.value)}"

    @property
    def inert(self):
        """The reading never came into play: every game is the game as played."""
        return self.fairness.inert

    @property
    def moved(self):
        """The seats' points moved beyond chance under this reading (Hotelling's T², Holm-adjusted)."""
        return not self.inert and self.fairness.shift_p < ALPHA

    @property
    def change(self):
        """Its CHANGE claim against the variant as played: fairer, less fair, no change found or never came into
        play, by the imbalance test Holm-adjusted across the other readings tested."""
        claim = claims.change_claim(self.fairness)
        family = self.fairness.family
        return dataclasses.replace(claim, family=f"Holm across the {family} other readings tested" if family > 1
                                   else "none (one other reading tested)")


@dataclass(frozen=True)
class VariantReadings:
    """One variant under every reading: as played (``played``: {parameter: its value}, ``ours`` its balance
    claim) and each other one."""

    variant: str
    context: str
    played: dict
    defaults: dict
    ours: Claim
    alternatives: tuple

    @property
    def depends_on(self):
        """The readings under whose other values the verdict word is not the word as played, in declaration
        order: what "depends" means."""
        return tuple(dict.fromkeys(a.param for a in self.alternatives if a.balance.word != self.ours.word))

    @property
    def moved(self):
        """The other readings under which the seats' points moved beyond chance (the edge moves)."""
        return [a for a in self.alternatives if a.moved]

    @property
    def shifted(self):
        """Other readings whose worst unit is not the one as played, where both are unbalanced (and so name one):
        the edge is another unit's, the word the same."""
        return [a for a in self.alternatives if self.ours.seats and a.balance.seats
                and a.balance.seats != self.ours.seats]

    def every_claim(self):
        """Every claim of the variant across its readings: each reading's balance, each other reading's change
        against the variant as played, then whether the word depends on the reading."""
        return [self.ours, *(a.balance for a in self.alternatives), *(a.change for a in self.alternatives),
                self.depends]

    @property
    def depends(self):
        """The DEPENDS claim: "depends on the reading" where some reading's balance word is another, else "same
        under every reading"; its numbers list every reading's word (and whether the seats moved under it)."""
        as_played = {"reading": self._played_readings(), "as_played": True, "run": self.ours.variant,
                     "verdict": self.ours.word, "unit": unit_name(self.ours.seats) if self.ours.seats else None,
                     "change": None, "seats_moved": None}
        others = [{"reading": a.reading, "as_played": False, "run": a.balance.variant, "verdict": a.balance.word,
                   "unit": unit_name(a.balance.seats) if a.balance.seats else None, "change": a.change.word,
                   "seats_moved": a.moved} for a in self.alternatives]
        return Claim(self.variant, DEPENDS[not self.depends_on],
                     "the balance verdict's word (gap test) under each reading, on the same deals",
                     self.ours.games, f"{self.ours.family}, under each reading", ALPHA,
                     {"depends_on": list(self.depends_on), "seats_moved": bool(self.moved),
                      "readings": [as_played, *others]})

    @property
    def text(self):
        """The verdict across the readings, in Markdown (``**`` around its key words)."""
        names = ", ".join(dict.fromkeys(a.param for a in self.alternatives))
        if self.depends_on:
            lead = f"**Depends on the reading of {' and '.join(self.depends_on)}** (the verdict word changes)"
        else:
            lead = f"**Same under every reading** ({names})"
        parts = [f"as played ({self._played()}) {_balance_text(self.ours)}"]
        parts += [f"{a.reading}{' (ours)' * (a.value == self.defaults[a.param])} {_balance_text(a.balance)}"
                  for a in self.alternatives]
        return f"{lead}: {'; '.join(parts)}.{self._edge()} {self._tests()}"

    def _played(self):
        """The readings as played: "ours" (every default), else those that are not ours."""
        readings = dict.fromkeys(a.param for a in self.alternatives)
        other = [f"{p}={_shown(self.played[p])}" for p in readings if self.played[p] != self.defaults[p]]
        return ", ".join(other) if other else "ours"

    def _played_readings(self):
        """Every reading's value as played: "round_starter=next"."""
        return ", ".join(f"{p}={_shown(self.played[p])}" for p in dict.fromkeys(a.param for a in self.alternatives))

    def _edge(self):
        """" The seat furthest from fair moves from seat 2 to seat 1 under round_starter=rotate": an edge that is
        another unit's under a reading, said as a moved edge (the word is the same: both unbalanced)."""
        if not self.shifted:
            return ""
        moves = "; ".join(f"to {unit_name(a.balance.seats)} under {a.reading}" for a in self.shifted)
        unit = _unit_word(self.ours)
        return f" The {unit} furthest from fair moves from {unit_name(self.ours.seats)} {moves}."

    def _tests(self):
        """What the T² tests found, with the family they were adjusted in; the readings that changed no game."""
        tested = [a for a in self.alternatives if not a.inert]
        inert = [a.reading for a in self.alternatives if a.inert]
        never = (f" {' and '.join(inert)} never came into play: every game is the game as played." if inert
                 else "")
        if not tested:
            return never.strip()
        family = tested[0].fairness.family
        across = f", Holm across the {family} other readings tested" if family > 1 else ""
        if self.moved:
            found = "; ".join(f"under {a.reading}{self._worst_moved(a)} "
                              f"({_p_is('p', a.fairness.shift_p)}){self._fairer(a)}" for a in self.moved)
            return f"The seats move with the reading (Hotelling's T² on common deals{across}): {found}.{never}"
        best = min(tested, key=lambda a: a.fairness.shift_p)
        unit = "team" if best.fairness.teams else "seat"
        detectable = max(a.fairness.detectable for a in tested)
        more = (" More games would tell whether the difference is the reading's."
                if self.depends_on or self.shifted else "")
        return (f"No {unit} moves with the reading beyond chance (Hotelling's T² on common deals{across}: "
                f"the smallest {_p_is('p', best.fairness.shift_p)}); these games could have found a {unit} moved "
                f"by {detectable:.3f} (80% power).{more}{never}")

    def _worst_moved(self, alternative):
        """" seat 3 takes 0.208 instead of 0.069": the unit the verdict as played names (else the one the reading's
        names, else the one that moved most), under the reading."""
        f = alternative.fairness
        units = [(seat,) for seat in range(len(f.shares_a))] if f.teams is None else list(f.teams)
        named = self.ours.seats or alternative.balance.seats
        if named and named not in units:        # the readings found other teams: no one unit to follow
            return " the seats move"
        k = units.index(named) if named else int(abs(f.shift.shift).argmax())
        return f" {unit_name(units[k])} takes {f.shares_a[k] + f.shift.shift[k]:.3f} instead of {f.shares_a[k]:.3f}"

    @staticmethod
    def _fairer(alternative):
        """" and it is fairer (...)", by its change claim (the imbalance test, Holm-adjusted likewise), when it
        decides."""
        change = alternative.change
        n = change.numbers
        return "" if change.word == "no change found" else (
            f" and it is {change.word} (the imbalance Σ(share - fair)² {max(n['imbalance_baseline'], 0):.4f} → "
            f"{max(n['imbalance'], 0):.4f}, {_p_is('p', n['adjusted_pvalue'])})")


def _shown(value):
    return str(value).lower() if isinstance(value, bool) else str(value)


def _p_is(name, p):
    return f"{name} < 0.0001" if p < 1e-4 else f"{name} = {p:.4f}" if p < 0.01 else f"{name} = {p:.2f}"


# --- what to play ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Replay:
    """One run to play: a variant of the results (``source``) as played (``param`` None) or under another
    reading, its config, and the name it gets (a file name's characters: its file in an --out folder)."""

    source: str
    param: str | None
    value: object
    config: cfg.RunConfig

    @property
    def name(self):
        return self.config.variant


def variant_config(result, games=None):
    """The config a result file was played with (its metadata), for ``games`` games (None: its own, at most
    :data:`MAX_GAMES`); ``analyses.data.DataError`` in one line when the file cannot be played again."""
    if "config" not in result.meta:
        raise data.DataError(f"{result.path} holds no config in its metadata, so its games cannot be played again; "
                             "allowed: a file written by simcore run, sweep, ladder or versus")
    try:
        config = cfg.resolve(table=tomllib.loads(result.meta["config"]))
    except (cfg.ConfigError, tomllib.TOMLDecodeError) as e:
        raise data.DataError(f"{result.path} was written by simcore {result.meta.get('version', 'unknown')}; its "
                             f"config no longer loads: {e}") from None
    return dataclasses.replace(config, games=games or min(result.n_games, MAX_GAMES))


def replays(results, games=None):
    """Every run to play: each variant as played, then under each other value of each of its game's readings."""
    out = []
    for result in results:
        config = variant_config(result, games)
        name = _file_name(result.name)
        out.append(Replay(result.name, None, None, dataclasses.replace(config, variant=name)))
        for param, values, _ in config.module.GAME.readings:
            for value in values:
                if value != config.params[param]:
                    params = {**config.params, param: value}
                    variant = _file_name(f"{name},{param}={_shown(value)}")
                    out.append(Replay(result.name, param, value,
                                      dataclasses.replace(config, params=params, variant=variant)))
    return out


_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._=,-]{0,159}$")


def _file_name(name):
    """``name`` when it can name a file in any folder, else a short hash of it."""
    return name if _SAFE.match(name) else "replay-" + hashlib.sha256(name.encode()).hexdigest()[:10]


def play(todo, folder=None, source=None, warn=None):
    """Play ``todo`` into ``folder`` (:func:`to_folder`; ``source`` the results they replay), or in memory without
    one, and return {name: Result}. ``warn(line)`` hears early, once, how long it takes when that is long
    (:class:`~simcore.studies.executors.Pace`, as a duel, a contest and a tune's confirmation say it)."""
    from simcore.studies.executors import Pace

    kept = "Ctrl-C stops it and keeps nothing (with --out FOLDER it keeps every reading finished)" if folder is None \
        else f"Ctrl-C keeps every reading finished in {folder}, and the same command goes on from them"
    pace = Pace(sum(r.config.games for r in todo), warn, kept)
    if folder is None:
        return {r.name: in_memory(r.config, pace.add) for r in todo}
    return to_folder(todo, folder, source, pace)


def in_memory(config, on_block=None):
    """Play ``config`` and return its games as an ``analyses.data.Result`` (nothing written); ``on_block(n)``
    after every block of ``n`` games."""
    from simcore.studies import runs

    table = pa.concat_tables([result_files.table(config, first, rows)
                              for first, rows in runs.blocks(config, on_block)])
    meta = data.simcore_meta(table)
    columns = data.columns_of(table)
    return data.Result(path=Path(f"{config.variant}.parquet"), name=config.variant, game=config.game,
                       seed=config.seed, players=config.players, columns=columns, meta=meta)


def as_sweep(todo, source):
    """The runs of ``todo`` as the variants of a sweep (of the results at ``source``)."""
    from simcore.studies import sweep

    return sweep.Sweep(Path(source), todo[0].config.game,
                       [sweep.Variant(r.name, {} if r.param is None else {r.param: r.value}, r.config) for r in todo])


def to_folder(todo, folder, source, pace):
    """Play ``todo`` into ``folder`` as the files of a sweep of kind "readings" (atomic files, a lock, a manifest;
    a run again skips what is finished) and return {name: Result}. ``pace``: the
    :class:`~simcore.studies.executors.Pace` told of every block played and of every reading finished before."""
    from simcore.studies import sweep

    def finished(variant, status, tally):
        if status == "skipped":
            pace.skip(variant.config.games)

    sweep.run(as_sweep(todo, source), folder, pace.add, finished, kind=KIND)
    return {r.name: data.load_result(Path(folder) / f"{r.name}.parquet") for r in todo}


# --- the verdict ----------------------------------------------------------------------------------------------


def verdicts(todo, played):
    """The verdict across the readings of every variant: ``todo`` the :func:`replays`, ``played`` {name: its
    Result}. Balance verdicts Holm-adjusted across the variants under each reading, the T² tests across every
    other reading of every variant."""
    ours = [r for r in todo if r.param is None]
    alternatives = [r for r in todo if r.param is not None]
    as_played = {r.source: r for r in ours}
    balances = _balances(ours, alternatives, played)
    tests = compare([(played[as_played[r.source].name], played[r.name]) for r in alternatives])
    out = []
    for r in ours:
        mine = [Alternative(a.param, a.value, balances[a.name], f)
                for a, f in zip(alternatives, tests, strict=True) if a.source == r.source]
        game = r.config.module.GAME
        out.append(VariantReadings(r.source, _context(played[r.name]), dict(r.config.params), game.defaults(),
                                   balances[r.name], tuple(mine)))
    return out


def compare(pairs):
    """``analyses.variants.Fairness`` of each (as played, other reading) pair of results, its two tests
    Holm-adjusted across the pairs whose reading came into play (one that changed no game tests nothing)."""
    raw = [fairness(a, b) for a, b in pairs]
    if any(f is None for f in raw):
        raise data.DataError("too few games to compare the readings; allowed: --games larger than the seats")
    live = [k for k, f in enumerate(raw) if not f.inert]
    shift_p = holm([raw[k].shift.pvalue for k in live]) if live else []
    change_p = holm([raw[k].change.pvalue for k in live]) if live else []
    out = list(raw)
    for k, s, c in zip(live, shift_p, change_p, strict=True):
        out[k] = dataclasses.replace(raw[k], shift_p=float(s), change_p=float(c), family=len(live))
    return out


def _balances(ours, alternatives, played):
    """{run name: its balance claim}: the variants as played Holm-adjusted together, as ``analyze`` does, and under each
    other reading (parameter and value) together with the others under that reading (or as played, for a
    variant that plays it)."""
    worlds = [[r.name for r in ours]]
    for key in dict.fromkeys((a.param, _shown(a.value)) for a in alternatives):
        under = {a.source: a.name for a in alternatives if (a.param, _shown(a.value)) == key}
        worlds.append([under.get(r.source, r.name) for r in ours])
    out = {}
    for world in worlds:
        for name, balance in _world(world, played).items():
            out.setdefault(name, balance)
    return out


def _world(names, played):
    """Balance claims of the runs ``names``, Holm across them, with the permutation draws ``analyze`` uses."""
    draws = max(RESAMPLES, math.ceil(20 * len(names) / ALPHA))
    tested = [seat_balance(played[n].wins, played[n].column("timeout"), n_resamples=draws) for n in names]
    adjusted = holm([b.gap_pvalue for b in tested])
    return {n: _balance(n, b, float(p), len(names)) for n, b, p in zip(names, tested, adjusted, strict=True)}


def _balance(name, balance, adjusted, family):
    """The balance claim of run ``name`` as ``analyze`` words it (``analyses.verdict.balance_sentence``)."""
    unbalanced, worst, share, fair, ci, _ = balance_sentence(balance, adjusted, family)
    verdict = Verdict(name, bool(unbalanced), tuple(worst), float(share), float(ci.low), float(ci.high),
                      float(share - fair), float(balance.gap_pvalue), adjusted, (), float(fair))
    return claims.balance_claim(verdict, balance, family)


def _context(result):
    from analyses import context

    return context.rules_text(result.game, json.loads(result.meta.get("params", "{}")))


def overview(found):
    """One sentence over every variant, from their DEPENDS claims: which verdict words hang on which reading, then
    where only the edge moves (the seats moved beyond chance, the word the same)."""
    hanging = [v for v in found if v.depends_on]
    if hanging:
        named = "; ".join(f"`{v.variant}` on {' and '.join(v.depends_on)}" for v in hanging)
        lead = (f"**{len(hanging)} of {len(found)} verdicts depend on a reading** (the verdict word changes with "
                f"it): {named}.")
    else:
        lead = ("**The verdict is the same under every reading.**" if len(found) == 1 else
                f"**Every verdict of the {len(found)} variants is the same under every reading.**")
    moved = [v for v in found if v.moved and not v.depends_on]
    if not moved:
        return lead
    named = "; ".join(f"`{v.variant}` with {' and '.join(dict.fromkeys(a.param for a in v.moved))}" for v in moved)
    return f"{lead} The edge moves, the word the same: {named}."


def document(found):
    """The verdict across the readings as the JSON of ``analyses.claims.SCHEMA``: per variant whether its word
    depends on the reading and each reading's word, then every claim."""
    every = [c for v in found for c in v.every_claim()]
    variants = []
    for v in found:
        depends = v.depends
        variants.append({"name": v.variant, "games": depends.games,
                         "depends": depends.word == "depends on the reading",
                         "depends_on": depends.numbers["depends_on"],
                         "seats_moved": depends.numbers["seats_moved"],
                         "readings": depends.numbers["readings"]})
    return claims.document(every, variants=variants)


def head(todo):
    """What was played, and the readings with what the rulebook leaves open (Markdown lines)."""
    first = todo[0].config
    game = first.module.GAME
    variants = [r for r in todo if r.param is None]
    counts = sorted({r.config.games for r in todo})
    games = f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,} to {counts[-1]:,}"
    seeds = ", ".join(map(str, sorted({r.config.seed for r in todo})))
    lines = [f"{game.name}: {len(variants)} variant{'s' * (len(variants) > 1)} played again under each reading of "
             f"what the rulebook leaves open, on the same deals ({games} games a reading, seed {seeds}; rules "
             f"version {game.rules_version})",
             f"the readings ({game.doc}):"]
    for param, values, gap in game.readings:
        shown = ", ".join(f"{_shown(v)}{' (ours)' * (v == game.param_index[param].default)}" for v in values)
        lines.append(f"  {param}: {shown}: {gap}")
    return lines


def markdown(todo, found):
    """The whole verdict as a Markdown page (``simcore readings --report NAME.md``)."""
    played, intro, *listed = head(todo)
    lines = [f"# Does the verdict hang on a reading? ({todo[0].config.game})", "", played, "", intro, "",
             *(f"* {line.strip()}" for line in listed), "", overview(found), ""]
    for v in found:
        lines += [f"## {v.variant}", "", f"{v.context}; {_policies(todo, v.variant)}", "", v.text, ""]
    return "\n".join(lines)


def _policies(todo, variant):
    from analyses import context

    return context.policies_text(next(r.config.policies for r in todo if r.source == variant and r.param is None))


WIDTH = 110     # the terminal's line length, as analyze's


def terminal(todo, found):
    """The verdict for the terminal: what was played, the overview, then per variant its rules and verdict."""
    def plain(text, indent=""):
        return textwrap.fill(text.replace("**", "").replace("`", ""), WIDTH, initial_indent=indent,
                             subsequent_indent=indent, break_on_hyphens=False)

    blocks = ["\n".join(textwrap.fill(line, WIDTH, subsequent_indent="    " if line.startswith(" ") else "",
                                     break_on_hyphens=False) for line in head(todo)), plain(overview(found))]
    blocks += [f"{v.variant}: {v.context}; {_policies(todo, v.variant)}\n{plain(v.text, '  ')}" for v in found]
    return "\n\n".join(blocks)


READINGS_HEADING = "## Readings of a silent rulebook"


def rules_section(game_type):
    """The rules page's list of the game's readings (each game's rules.md holds it under
    :data:`READINGS_HEADING`, and tests/test_readings.py checks it against the declaration)."""
    if not game_type.readings:
        return "None: every rule this page states is the rulebook's own or a number it lacks."
    rows = [f"| `{param}` | {_code(game_type.param_index[param].default)} | "
            f"{', '.join(_code(v) for v in values if v != game_type.param_index[param].default)} | {gap} |"
            for param, values, gap in game_type.readings]
    return "\n".join(["| parameter | ours | the other readings | what the rulebook leaves open |",
                      "|---|---|---|---|", *rows])


def _code(value):
    return f"`{cfg.toml_value(value)}`"
