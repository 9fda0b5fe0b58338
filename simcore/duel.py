"""A duel: one or two variants played on the same seeds, tested on a yes/no metric.

Two variants are paired game by game (common random numbers). With ``sprt``
the games come in batches and a two-sided sequential probability ratio test
decides as soon as the evidence allows: on the discordant games (the metric
true for one variant and not the other), H0 "each side half of them" against
"one side 0.5 + delta". One variant tests its rate against ``p0``.
"""

import numpy as np

from analyses.intervals import proportion_interval
from analyses.paired import paired_binary
from analyses.sprt import TwoSidedSPRT
from simcore import engine, results

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
        if len(runs) == 2:
            self.p0 = 0.5
        else:
            self.p0 = p0 if p0 is not None else (1 / runs[0].players if metric.startswith("win_") else 0.5)
        if not (0 < self.p0 - delta and self.p0 + delta < 1):
            raise ValueError(f"--p0 {self.p0} +- --delta {delta} leaves (0, 1); allowed: a rate inside it")
        self.test = TwoSidedSPRT(self.p0, delta, alpha, beta)
        self.values = [[] for _ in runs]

    def _check_metric(self):
        for run in self.runs:
            names = results.schema(run).names
            if self.metric not in names:
                raise ValueError(f"--metric {self.metric!r} is not a column of {run.game}; allowed: "
                                 + ", ".join(n for n, t in zip(names, results.schema(run).types, strict=True)
                                             if str(t) == "bool"))
            if str(results.schema(run).field(self.metric).type) != "bool":
                raise ValueError(f"--metric {self.metric!r} is not a yes/no column; allowed: win_i, timeout, ...")

    def _batch(self, run, start, n):
        rows = engine.run(run.module, run.params_array(), run.policies_array(), run.seed, n, start)
        return results.table(run, start, rows)[self.metric].to_numpy()

    def play(self, progress=print):
        """Play until the test decides (or the budget / the fixed number of games is used); yield lines."""
        start = 0
        step = self.batch if self.sprt else self.max_games
        while start < self.max_games:
            n = min(step, self.max_games - start)
            batch = [self._batch(run, start, n) for run in self.runs]
            for store, values in zip(self.values, batch, strict=True):
                store.append(values)
            start += n
            if len(batch) == 2:
                a, b = batch
                self.test.update(int(np.sum(a & ~b)), int(np.sum(a ^ b)))
            else:
                self.test.update(int(np.sum(batch[0])), n)
            if self.sprt:
                progress(f"  {start:>10,} games per variant: LLR {self._llr()}, decision {self.test.decision}")
                if self.test.decision is not None:
                    break
        yield from self.summary(start)

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
        else:
            k = int(values[0].sum())
            ci = proportion_interval(k, len(values[0]))
            lines.append(f"  rate {k / len(values[0]):.4f} [{ci.low:.4f}, {ci.high:.4f}] (95% Wilson), "
                         f"H0 rate {self.p0:g}")
        if self.sprt:
            verdict = {None: "undecided: the game budget ran out first",
                       "H0": "H0 accepted: no difference of delta or more",
                       "greater": f"H1 accepted: {names[0]} higher" if len(names) == 2 else "H1: above p0",
                       "less": f"H1 accepted: {names[0]} lower" if len(names) == 2 else "H1: below p0"}
            lines.append(f"  SPRT: {verdict[self.test.decision]} after {games:,} games per variant")
        return lines
