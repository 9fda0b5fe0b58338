"""A duel: one or two variants played on the same seeds, tested on a yes/no metric.

Two variants are paired game by game (common random numbers). With ``sprt``
the games come in batches and a two-sided sequential probability ratio test
decides as soon as the evidence allows: on the discordant games (the metric
true for one variant and not the other), H0 "each side half of them" against
"one side 0.5 + delta". Without it, McNemar's exact test.

One variant tests its rate against ``p0``. For a seat's wins (``win_i``) without
``p0``, the test counts the decisive games only, those with one winner, where a
fair game gives every seat 1/players: a shared win or a game nobody wins says
nothing about which seat is favoured, and counting them as wins or losses would
make a fair game look unfair. Any other metric needs its ``p0``.
"""

import dataclasses

import numpy as np

from analyses.intervals import proportion_interval
from analyses.paired import paired_binary
from analyses.sprt import TwoSidedSPRT
from simcore.io import results
from simcore.studies.executors import LocalExecutor, Pace

GAMES = 100_000        # games per variant of a fixed-size duel unless --games or the config says otherwise


class Duel:
    def __init__(self, runs, metric, sprt=False, batch=20_000, max_games=2_000_000, delta=0.05, p0=None,
                 alpha=0.05, beta=0.05):
        if len({r.game for r in runs}) != 1:
            raise ValueError("the variants of a duel must be of one game")
        self.runs = runs
        self.metric = metric
        self.sprt = sprt
        self.batch = batch
        self.max_games = max_games if sprt else runs[0].games
        for name, value, low, high in (("--batch", batch, 1, 10**9), ("--max-games", max_games, 1, 10**12)):
            if not low <= value <= high:
                raise ValueError(f"{name} {value} is not allowed; allowed: {low} to {high}")
        for name, value in (("--delta", delta), ("--alpha", alpha), ("--beta", beta)):
            if not 0 < value < 0.5:
                raise ValueError(f"{name} {value} is not allowed; allowed: between 0 and 0.5")
        self._check_metric()
        self.decisive = len(runs) == 1 and metric.startswith("win_") and p0 is None
        if len(runs) == 2:
            self.p0 = 0.5
        elif self.decisive:
            self.p0 = 1 / runs[0].players
        elif p0 is None:
            raise ValueError(f"--metric {metric} of one variant needs --p0, its rate under H0; allowed: --p0 "
                             "between 0 and 1, or a win_i metric (tested among the games with one winner)")
        else:
            self.p0 = p0
        if not 0 < self.p0 < 1:
            raise ValueError(f"--p0 {self.p0:g} is not allowed; allowed: a rate between 0 and 1")
        if sprt and not (0 < self.p0 - delta and self.p0 + delta < 1):
            raise ValueError(f"--p0 {self.p0:g} +- --delta {delta} leaves (0, 1); allowed: a rate inside it")
        self.delta, self.alpha, self.beta = delta, alpha, beta
        self.test = TwoSidedSPRT(self.p0, delta, alpha, beta) if sprt else None
        self.values = [[] for _ in runs]
        self.counted = []          # one variant: per batch, the games the test counts (all, or the decisive)
        self.pace = None           # while it plays: the Pace that hears of every block

    def _check_metric(self):
        for run in self.runs:
            fields = {f.name: f for f in results.present(run)}     # not a seat the variant does not have
            if self.metric not in fields:
                raise ValueError(f"--metric {self.metric!r} is not a column of {run.game} at {run.players} players; "
                                 "allowed: " + ", ".join(n for n, f in fields.items() if str(f.type) == "bool"))
            if str(fields[self.metric].type) != "bool":
                raise ValueError(f"--metric {self.metric!r} is not a yes/no column; allowed: win_i, timeout, ...")

    def _batch(self, run, start, n):
        """The metric of games start..start+n-1, and which of them had exactly one winner; the pace hears of every
        block. Each block's rows are dropped once read: a long duel keeps two flags a game."""
        config = dataclasses.replace(run, games=n)
        metric, decisive = [], []
        for first, rows in LocalExecutor().blocks(config, start):
            table = results.table(config, first, rows)
            winners = sum(table[f"win_{i}"].to_numpy().astype(np.int64) for i in range(run.players))
            metric.append(table[self.metric].to_numpy())
            decisive.append(winners == 1)
            self.pace.add(rows.shape[0])
        return np.concatenate(metric), np.concatenate(decisive)

    def play(self, progress=print, warn=None):
        """Play until the test decides (or the budget / the fixed number of games is used); yield lines.
        ``warn(line)`` hears early, once, how long the duel will take when that is long (:class:`Pace`)."""
        sooner = "the test may decide sooner; " if self.sprt else ""
        self.pace = Pace(len(self.runs) * self.max_games, warn, f"{sooner}Ctrl-C stops it and keeps nothing (a "
                                                                "duel writes no file)")
        start = 0
        step = self.batch if self.sprt else self.max_games
        while start < self.max_games:
            n = min(step, self.max_games - start)
            batch = [self._batch(run, start, n) for run in self.runs]
            start += n
            self.observe([values for values, _ in batch], batch[0][1])
            if self.sprt:
                progress(f"  {start:>10,} games per variant: LLR {self._llr()}, decision {self.test.decision}")
                if self.test.decision is not None:
                    break
        yield from self.summary(start)

    def observe(self, batch, decisive):
        """Add one batch: the metric per variant (aligned game by game) and the games with one winner."""
        for store, values in zip(self.values, batch, strict=True):
            store.append(values)
        if len(batch) == 2:
            a, b = batch
            successes, trials = int(np.sum(a & ~b)), int(np.sum(a ^ b))
        else:
            counted = decisive if self.decisive else np.ones(len(decisive), dtype=bool)
            self.counted.append(counted)
            successes, trials = int(np.sum(batch[0] & counted)), int(counted.sum())
        if self.test:
            self.test.update(successes, trials)

    def _llr(self):
        sides = (self.test.sprt_greater, self.test.sprt_less)
        return " / ".join(f"{t.llr:+.2f} in [{t.lower:.2f}, {t.upper:.2f}]" for t in sides)

    def summary(self, games):
        names = [r.variant for r in self.runs]
        values = [np.concatenate(v) for v in self.values]
        lines = [f"{self.runs[0].game}: {' vs '.join(names)}, metric {self.metric}, {games:,} games per variant, "
                 f"seed {self.runs[0].seed}"]
        if len(values) == 2:
            r = paired_binary(values[0], values[1])
            lines.append(f"  rate {names[0]} {r.mean_a:.4f}, {names[1]} {r.mean_b:.4f}; difference {r.statistic:+.4f} "
                         f"[{r.low:+.4f}, {r.high:+.4f}] (95%, paired), McNemar p = {r.pvalue:.3g}")
            lines.append(f"  games where only {names[0]} scores it: {r.n10:,}; only {names[1]}: {r.n01:,}")
            if not self.sprt:
                lines.append("  test: McNemar's exact test on those games, two-sided, false positive 5%")
        else:
            lines += self._one_variant(values[0], np.concatenate(self.counted))
        if self.sprt:
            on = " of the games only one variant scores it" if len(names) == 2 else ""
            lines.append(f"  test: two one-sided SPRTs, H0 share{on} {self.p0:g} against {self.p0:g} +- "
                         f"{self.delta:g}, false positive {self.alpha:g}, false negative {self.beta:g}")
            verdict = {None: "undecided: the game budget ran out first",
                       "H0": "H0 accepted: no difference of delta or more",
                       "greater": f"H1 accepted: {names[0]} higher" if len(names) == 2 else "H1: above p0",
                       "less": f"H1 accepted: {names[0]} lower" if len(names) == 2 else "H1: below p0"}
            lines.append(f"  SPRT: {verdict[self.test.decision]} after {games:,} games per variant")
        return lines

    def _one_variant(self, values, counted):
        """The rate of the counted games with its interval, and the exact binomial test against p0."""
        from scipy import stats

        k, n = int(np.sum(values & counted)), int(counted.sum())
        if self.decisive:
            what = (f"  {self.metric}: {k:,} of the {n:,} games with one winner ({len(values) - n:,} shared or "
                    "without a winner left out)")
        else:
            what = f"  {self.metric}: {k:,} of {n:,} games"
        if n == 0:
            return [what, "  no game with one winner, so nothing to test; allowed: --p0 to test the raw rate"]
        ci = proportion_interval(k, n)
        lines = [what, f"  rate {k / n:.4f} [{ci.low:.4f}, {ci.high:.4f}] (95% Wilson), H0 rate {self.p0:g}"]
        if not self.sprt:
            p = float(stats.binomtest(k, n, self.p0).pvalue)
            lines.append(f"  test: exact binomial test against {self.p0:g}, two-sided, false positive 5%: p = {p:.3g}")
        return lines
