"""``simcore options``: what each kind of move is worth, by restricted play (``analyses.options``).

For every kind of move of the game, one seat plays the policy with that kind forbidden (then preferred) against
the same policy unrestricted in every other seat, the restricted seat taking every seat in turn on the same deals
(the same seed: game g of every run is the same deal, as ``simcore versus`` seats its contests). A baseline of the
policy in every seat on those deals says which kinds ever came into play: a kind never legal there is not played
restricted, and is said to have never come into play.
"""

from dataclasses import dataclass

import numpy as np

from analyses import options as worth
from analyses.scoring import points
from simcore import agents, engine
from simcore.io import config as cfg
from simcore.studies import versus

DEALS = 1000          # deals unless --games or the config says otherwise


@dataclass(frozen=True)
class Study:
    """The runs of an options study: ``baseline`` (the policy in every seat) and, per kind, per mode, one run per
    seat of the restricted policy (``restricted(kind, mode)``)."""

    baseline: object               # the RunConfig of the policy in every seat
    policy: str
    kinds: tuple                   # (name, meaning) of the kinds weighed, in the game's order
    table: tuple = ()              # the config file's table and the --set pairs the runs resolve from
    sets: tuple = ()

    @property
    def players(self):
        return self.baseline.players

    @property
    def module(self):
        return self.baseline.module

    def restricted(self, kind, mode):
        """The seatings of the policy with ``kind`` forbidden or preferred (``mode``), one run per seat."""
        spec = restricted_spec(self.policy, mode, kind)
        return [cfg.resolve(self.baseline.game, dict(self.table), sets=list(self.sets),
                            policies=[("all", self.policy), (str(seat), spec)], games=self.baseline.games,
                            seed=self.baseline.seed, variant=f"{mode}-{kind}-seat{seat}")
                for seat in range(self.players)]


def restricted_spec(policy, mode, kind):
    """``policy`` with ``kind`` forbidden (``mode`` "forbidden") or preferred."""
    key = "forbid" if mode == "forbidden" else "prefer"
    return f"{policy}{',' if ':' in policy else ':'}{key}={kind}"


def plan(game, policy, sets=(), games=None, seed=None, kinds=None, table=None):
    """The :class:`Study` of ``policy`` (a spec, unrestricted) on ``game`` with ``sets``; ``kinds``: the names of the
    kinds to weigh (None: every kind the game declares). One-line ConfigError on bad input."""
    table = dict(table or {})
    if "policies" in table:
        raise cfg.ConfigError("the config sets [policies], but simcore options seats the policy (--policy) and its "
                              "restricted copy itself; allowed: a config without [policies]")
    games = table.get("games", DEALS) if games is None else games
    if isinstance(games, int) and not isinstance(games, bool) and games < 2:
        raise cfg.ConfigError(f"--games {games} is not allowed; allowed: 2 or more deals")
    baseline = cfg.resolve(game, table, sets=list(sets), policies=[("all", policy)], games=games, seed=seed,
                           variant="baseline")
    spec = agents.parse(policy, baseline.module.GAME, baseline.module.ACTION_KINDS)
    if spec.restricted:
        raise cfg.ConfigError(f"--policy {policy} is restricted already; allowed: an unrestricted policy (simcore "
                              "options forbids and prefers each kind itself)")
    declared = baseline.module.ACTION_KINDS
    if not declared:
        raise cfg.ConfigError(f"game {game} declares no kinds of move; allowed: a game with ACTION_KINDS "
                              "(simcore games GAME lists them)")
    names = [name for name, _ in declared]
    for name in kinds or ():
        if name not in names:
            raise cfg.ConfigError(f"--kinds: {name!r} is not a kind of move of {game}; allowed: {', '.join(names)}")
    chosen = tuple((name, meaning) for name, meaning in declared if kinds is None or name in kinds)
    return Study(baseline, str(spec), chosen, tuple(table.items()), tuple(sets))


def counted_run(run, on_block=None):
    """Play ``run`` with each seat's counts of the kinds of move: (rows, counts (games, seats, 2 kinds + 1))."""
    rows, counts = [], []
    for _, block, trace in engine.run_counted_blocks(run.module, run.params_array(), run.policies_array(),
                                                      run.seed, run.games):
        rows.append(block)
        counts.append(trace.counts)
        if on_block is not None:
            on_block(block.shape[0])
    return np.concatenate(rows), np.concatenate(counts)


def games_to_play(study):
    """Every game the study may play: the baseline, then two restrictions per kind from every seat."""
    return study.baseline.games * (1 + 2 * len(study.kinds) * study.players)


def play(study, on_block=None, on_kind=None, margin=worth.MARGIN):
    """Play ``study`` and return its :class:`analyses.options.OptionsResult`. ``on_block(n)`` after every block of
    ``n`` games; ``on_kind(name, word)`` as each kind is weighed."""
    players = study.players
    fair = 1 / players
    rows, counts = counted_run(study.baseline, on_block)
    n_kinds = len(study.module.ACTION_KINDS)
    index = {name: k for k, (name, _) in enumerate(study.module.ACTION_KINDS)}
    baseline = float(points(_wins(rows, players)).mean())
    restrictions = {}
    for name, _ in study.kinds:
        legal = sum(worth.counts_of(counts, seat, index[name], n_kinds)[0] for seat in range(players))
        if legal == 0:      # never legal under full play: no restriction could bind
            continue
        for mode in worth.MODES:
            scores, seat_counts = [], []
            for seat, run in enumerate(study.restricted(name, mode)):
                played_rows, played_counts = counted_run(run, on_block)
                scores.append(points(_wins(played_rows, players))[:, seat])
                seat_counts.append(worth.counts_of(played_counts, seat, index[name], n_kinds))
            restrictions[(name, mode)] = worth.restriction(name, mode, scores, fair, baseline,
                                                           tuple(np.sum(seat_counts, axis=0).tolist()), _deals_test)
        if on_kind is not None:
            on_kind(name)
    kinds = worth.worths(study.kinds, restrictions, margin, worth.full_play(counts, study.module.ACTION_KINDS))
    from analyses.context import rules_text

    return worth.OptionsResult(study.baseline.game, rules_text(study.baseline.game, study.baseline.params),
                               study.policy, players, study.baseline.games, margin, kinds)


def _wins(rows, players):
    return rows[:, engine.O_WIN:engine.O_WIN + players]


def _deals_test(scores, alpha):
    """(share, low, high, p, method): ``simcore versus``'s test of the restricted seat's deal means against the fair
    share, at two-sided level ``alpha``."""
    per_deal = worth.deal_means(scores)
    method, low, high, pvalue = versus.deal_test(per_deal, 1 / len(scores), alpha)
    return float(per_deal.mean()), float(low), float(high), float(pvalue), method
