"""Replays: any game of any run, decision by decision, from the run's config, seed and game index.

A game is fixed by ``(config, seed, game index)`` (the design's reproducibility rule), and every result file
holds its resolved config in its metadata, so any row of any result file can be played again exactly::

    simcore replay runs/zwai/ring.parquet --index 42
    simcore replay zwai --set formation=ring --policy greedy --seed 1 --index 42 --html game.html

The replay plays the game through the handle (:mod:`simcore.handle`), each seat's agent drawing from the
game's own streams as in the engine, and ends with the row the engine writes for the final state: it must be
the file's row, column for column (:attr:`Replay.matches`).
"""

import re
import shlex
import tomllib
from dataclasses import dataclass, field

import numpy as np
import pyarrow.parquet as pq

from analyses.watch import file_command
from simcore import __version__, engine, handle
from simcore.io import config as cfg
from simcore.io import results, writing

TOP = 5     # candidate actions shown per search decision


class ReplayError(ValueError):
    """A replay cannot be made (one-line message)."""


@dataclass
class Decision:
    """One decision of the game and the position after it."""

    move: int                 # 1, 2, ... in the order played
    seat: int
    policy: str
    action: int
    words: str                # the action in the game's words
    tried: list               # a search's top root actions: (words, tries, mean return for the mover)
    scores: list              # every seat's score after the decision
    to_move: int              # the seat to decide next, -1 when the game is over
    round_end: bool           # the decision ended a round (or the game)
    text: str = ""            # the state drawn as text, at a round end and at the end
    before: str = ""          # ... and the table as the round ended, scored, where the rules then cleared it
    picture: str = ""         # the board as SVG, for the HTML page (at a round end: that table)


@dataclass
class Replay:
    config: cfg.RunConfig
    index: int
    start_picture: str
    start_to_move: int
    decisions: list = field(default_factory=list)
    row: dict = field(default_factory=dict)          # the replayed game's row, as the engine writes it
    expected: dict | None = None                     # the file's row of this game, when replayed from a file
    source: str = ""                                 # where the run came from (a file, or "GAME ...")

    @property
    def matches(self):
        """The replayed row equals the file's (True when there is no file to check against)."""
        return self.expected is None or self.row == self.expected

    def differences(self):
        return {k: (v, self.expected[k]) for k, v in self.row.items() if self.expected.get(k) != v}


def _engine_rows(config, state, params):
    """The engine's result row of the position (write_row), as a one-row matrix."""
    rows = np.zeros((1, engine.width(config.module)), np.int64)
    config.module.write_row(state, params, rows[0])
    return rows


def _row(config, state, params, index):
    """The engine's result row of a finished (or timed-out) game, as the file holds it (column -> value)."""
    return results.table(config, index, _engine_rows(config, state, params)).to_pylist()[0]


def _scores(config, state, params):
    """Every seat's score as the row would count it now (write_row on the position so far)."""
    score = engine.score_offset(config.module.MAX_SEATS)
    return [int(x) for x in _engine_rows(config, state, params)[0, score:score + config.players]]


def _tried(state, tried):
    """The search's most-tried root actions that are legal here, in words (ISMCTS also tries actions that
    were legal only in a world it imagined)."""
    legal = set(state.legal_actions())
    return [(state.action_to_string(a), k, v) for a, k, v in tried if a in legal][:TOP]


def check_index(index):
    if not 0 <= index < cfg.MAX_GAMES:
        raise ReplayError(f"--index {index} is not allowed; allowed: 0 to {cfg.MAX_GAMES - 1}")


def play(config, index, pictures=False, on_compile=None):
    """Replay game ``index`` of ``config`` (a :class:`simcore.io.config.RunConfig`); with ``pictures``, each
    position's board as SVG too; ``on_compile(game)`` hears when the agents are first compiled."""
    check_index(index)
    module = config.module
    game = handle.Game(config.game, config.params)
    game.load_agents(on_compile, config.policies)
    state = game.new_initial_state(config.seed, index)
    draw = _drawer(module, game.params_array) if pictures else (lambda s: "")
    replay = Replay(config, index, draw(state), state.current_player())
    seat = state.current_player()
    while seat >= 0:
        policy = config.policies[seat]
        action, tried = state.agent_search(policy)
        words, shown = state.action_to_string(action), _tried(state, tried)
        before, last_round = state.clone(), module.round_of(state.state)
        state.apply_action(action)
        to_move = state.current_player()
        decision = Decision(len(replay.decisions) + 1, seat, policy, action, words, shown,
                            _scores(config, state.state, game.params_array), to_move,
                            to_move < 0 or module.round_of(state.state) != last_round, picture=draw(state))
        if decision.round_end:
            decision.text = str(state)
            if hasattr(module, "table_at_round_end"):
                table = _table_at_round_end(module, before, action)
                decision.before, decision.picture = str(table), draw(table)
        replay.decisions.append(decision)
        seat = to_move
    replay.row = _row(config, state.state, game.params_array, index)
    return replay


def write_page(replay, out):
    """The replay's HTML page at ``out``, written whole or not at all."""
    from simcore.watch import replay_page

    text = replay_page.page(replay)
    writing.write_atomic(out, lambda tmp: tmp.write_text(text))


def write_html(file_path, game_index, out_path, on_compile=None):
    """The HTML page of game ``game_index`` of a result file (the HTML report links such pages). A result file
    holds each game's row, not its moves: the game is played again, by its agents, which ``on_compile(game)``
    hears of before they are compiled."""
    write_page(from_file(file_path, game_index, pictures=True, on_compile=on_compile), out_path)


def _table_at_round_end(module, before, action):
    """The table as a round ended, scored, for rules that clear the table in the same step as the round's last
    decision (``table_at_round_end``: Zwai's shoal with the sharks' catch, Zwergen's track with a team in the
    fence, Wichtel's retinues before the next deal). The skirmish clears nothing: its table after the decision
    is the table as the round ended."""
    table = before.clone()
    table.state = module.table_at_round_end(before.state, before.game.params_array, action, before.streams)
    return table


def _drawer(module, params):
    """Each position as SVG: the game's picture, or, for a game that declares none, its text view."""
    from simcore.watch import pictures

    if not module.GAME.picture:
        return lambda state: pictures.text_svg(module.GAME.name, str(state))
    return lambda state: pictures.board_svg(module, state.state, params)


def load_file(path):
    """The run of a result file: its config, from the file's metadata; one-line errors."""
    try:
        schema = results.read_input(pq.read_schema, path)
        meta = {k.decode(errors="replace"): v.decode(errors="replace") for k, v in (schema.metadata or {}).items()}
        results.check_input_metadata(path, {k.removeprefix("simcore."): v for k, v in meta.items()})
    except results.InputError as e:
        raise ReplayError(str(e)) from None
    if "simcore.config" not in meta or "game_index" not in schema.names:
        raise ReplayError(f"{path} is not a simcore result file (no simcore.config in its metadata); allowed: "
                          "a file written by simcore run, sweep or ladder")
    version = meta.get("simcore.version", "unknown")
    try:
        return cfg.resolve(table=tomllib.loads(meta["simcore.config"]))
    except (cfg.ConfigError, tomllib.TOMLDecodeError) as e:
        raise ReplayError(f"{path} was written by simcore {version}; its config no longer loads in simcore "
                          f"{__version__}: {e}") from None


def file_row(path, index):
    """The row of game ``index`` of a result file, read alone (a run may hold millions); one-line errors (a file
    whose footer reads may still be damaged further in)."""
    try:
        rows = results.read_input(pq.read_table, path, filters=[("game_index", "=", index)]).to_pylist()
        if not rows:
            indices = results.read_input(pq.read_table, path, columns=["game_index"])["game_index"].to_numpy()
            raise ReplayError(f"--index {index} is not a game of {path}; allowed: {_ranges(indices)}")
    except results.InputError as e:
        raise ReplayError(str(e)) from None
    return rows[0]


def from_file(path, index, pictures=False, on_compile=None):
    """Replay the game with ``game_index == index`` of the result file ``path``, checked against its row."""
    check_index(index)
    config = load_file(path)
    expected = file_row(path, index)
    replay = play(config, index, pictures, on_compile)
    replay.expected = expected
    replay.source = str(path)
    return replay


def _ranges(indices):
    """The game indices of a file in short form: '0 to 999', or the first few."""
    low, high = int(indices.min()), int(indices.max())
    if high - low + 1 == indices.size:
        return f"{low} to {high}"
    return ", ".join(str(i) for i in np.sort(indices)[:5]) + f", ... ({indices.size} games)"


def winners(row, players):
    seats = [s for s in range(players) if row[f"win_{s}"]]
    if row["timeout"]:
        return "timeout: nobody wins"
    if not seats:
        return "nobody wins (a draw)"
    return ("winner: seat " if len(seats) == 1 else "shared win: seats ") + ", ".join(map(str, seats))


def result_line(replay):
    row = replay.row
    scores = ", ".join(str(row[f"score_{s}"]) for s in range(replay.config.players))
    return f"{winners(row, replay.config.players)}; scores {scores}; {row['n_turns']} turns"


def _set_value(value):
    """A ``--set`` value as typed: a plain word bare (``ring``), anything else as TOML."""
    if isinstance(value, str) and re.fullmatch(r"[A-Za-z_][\w.-]*", value) and value not in ("true", "false"):
        return value
    return cfg.toml_value(value)


def command(replay):
    """The command that makes this replay again."""
    if replay.source:
        return file_command(replay.source, replay.index)
    c = replay.config
    defaults = c.module.GAME.defaults()
    sets = "".join(f" --set {shlex.quote(f'{k}={_set_value(v)}')}" for k, v in c.params.items()
                   if defaults.get(k) != v)
    common = max(c.policies, key=c.policies.count)
    policies = f" --policy {common}" + "".join(f" --policy {s}={p}" for s, p in enumerate(c.policies) if p != common)
    return f"simcore replay {c.game}{sets}{policies} --seed {c.seed} --index {replay.index}"


def _indent(text, by="    "):
    return [by + line for line in text.splitlines()]


def round_end_text(replay, decision):
    """The table as a round ended and, where the rules then cleared it, after it, as text."""
    if not decision.before:
        return "\n".join(["the table as the round ended:", *_indent(decision.text)])
    return "\n".join(["the table as the round ended, scored, before it was cleared:", *_indent(decision.before),
                      "the table after it:", *_indent(decision.text)])


def text_lines(replay):
    """The replay as the terminal shows it: a header, every decision, the state at every round end."""
    c = replay.config
    lines = [f"{c.game} ({c.variant}), seed {c.seed}, game {replay.index}; policies: "
             + ", ".join(f"seat {s} {p}" for s, p in enumerate(c.policies))]
    width = max(len(p) for p in c.policies)
    for d in replay.decisions:
        lines.append(f"{d.move:5d}  seat {d.seat}  {d.policy:<{width}}  {d.words}")
        for words, tries, value in d.tried:
            lines.append(f"{'':7}    {words:<40} tried {tries:6d}  mean return {value:.3f}")
        if d.round_end:
            lines += ["", *_indent(round_end_text(replay, d), "  "), ""]
    lines.append(result_line(replay))
    if replay.expected is not None:
        lines.append("the row in the file: " + ("the same" if replay.matches else f"DIFFERS {replay.differences()}"))
    return lines
