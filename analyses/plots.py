"""Plots: each function takes data and returns a matplotlib Figure (saving is the caller's choice)."""

import matplotlib

matplotlib.use("Agg")  # files only: no display needed, none is assumed

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def _height(n):
    return max(3.0, 0.32 * n + 1.2)


def win_share_plot(balances, title="Points per seat"):
    """``balances``: {variant: SeatBalanceResult}. Points with their intervals, one colour per seat."""
    names = list(balances)
    seats = max(b.n_seats for b in balances.values())
    fig, ax = plt.subplots(figsize=(7.5, _height(len(names))))
    offsets = np.linspace(-0.25, 0.25, seats) if seats > 1 else np.zeros(1)
    for seat in range(seats):
        ys, xs, lo, hi = [], [], [], []
        for i, name in enumerate(names):
            b = balances[name]
            if seat < b.n_seats:
                ys.append(i + offsets[seat])
                xs.append(b.share[seat])
                lo.append(b.share[seat] - b.low[seat])
                hi.append(b.high[seat] - b.share[seat])
        ax.errorbar(xs, ys, xerr=[lo, hi], fmt="o", ms=4, capsize=2, label=f"seat {seat}")
    for n in sorted({b.n_seats for b in balances.values()}):
        ax.axvline(1 / n, color="grey", lw=0.6, ls=":")
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("mean points per game (95% Wilson interval); dotted: 1 / players, fair")
    ax.set_title(title)
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    return fig


def _boxes(ax, data, labels):
    ax.boxplot(data, orientation="horizontal", whis=(5, 95), showfliers=False, tick_labels=labels)
    ax.invert_yaxis()


def duration_plot(durations, title="Game length"):
    """``durations``: {variant: turns per game}. Box = quartiles, whiskers = 5th and 95th percentiles."""
    names = list(durations)
    fig, ax = plt.subplots(figsize=(7.5, _height(len(names))))
    _boxes(ax, [np.asarray(durations[n]) for n in names], names)
    ax.set_xlabel("turns per game (box: quartiles, whiskers: 5% and 95%)")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def score_plot(scores, title="Score per seat"):
    """``scores``: {variant: (games x seats) array}. One box per variant and seat."""
    data, labels = [], []
    for name, s in scores.items():
        s = np.asarray(s)
        for seat in range(s.shape[1]):
            data.append(s[:, seat])
            labels.append(f"{name} · seat {seat}")
    fig, ax = plt.subplots(figsize=(7.5, _height(len(labels))))
    _boxes(ax, data, labels)
    ax.set_xlabel("score (box: quartiles, whiskers: 5% and 95%)")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def ladder_plot(budgets, scores, lows, highs, fair, title="Skill ladder"):
    """A skill ladder: the larger budget's score against the smaller (one point per rung, at the larger
    budget, with its 95% interval); dotted: the fair score."""
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    scores = np.asarray(scores, float)
    ax.errorbar(budgets, scores, yerr=[scores - np.asarray(lows), np.asarray(highs) - scores], fmt="o-", ms=5,
                capsize=3)
    ax.axhline(fair, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_xticks(budgets, [str(b) for b in budgets])
    ax.set_xlabel("budget 2n (against n)")
    ax.set_ylabel("score of budget 2n (95% interval)")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def skill_plot(balances, title="Points per seat by skill level"):
    """``balances``: {skill level (policy): SeatBalanceResult}, weakest first. One line per seat across the
    levels, with 95% intervals; dotted: 1 / players."""
    levels = list(balances)
    seats = max(b.n_seats for b in balances.values())
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(levels) + 2), 4.2))
    x = np.arange(len(levels))
    offsets = np.linspace(-0.12, 0.12, seats) if seats > 1 else np.zeros(1)
    for seat in range(seats):
        share = np.array([balances[level].share[seat] for level in levels])
        low = np.array([balances[level].low[seat] for level in levels])
        high = np.array([balances[level].high[seat] for level in levels])
        ax.errorbar(x + offsets[seat], share, yerr=[share - low, high - share], fmt="o-", ms=4, capsize=2,
                    label=f"seat {seat}")
    ax.axhline(1 / seats, color="grey", lw=0.6, ls=":")
    ax.set_xticks(x, [level.replace(":", ":\n", 1) for level in levels], fontsize="small")
    ax.set_ylabel("mean points per game (95% Wilson interval)")
    ax.set_title(title)
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    return fig


def race_plot(history, title="The race", band="95% interval"):
    """``history``: [(games played, {candidate: (estimate, low, high)})] per batch. One line per candidate
    with its interval (what ``band`` names) as a band; a line ends where the candidate was dropped."""
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    names = list(dict.fromkeys(name for _, intervals in history for name in intervals))
    for name in names:
        points = [(games, intervals[name]) for games, intervals in history if name in intervals]
        x = [games for games, _ in points]
        y = np.array([v for _, v in points])
        line, = ax.plot(x, y[:, 0], "-o", ms=2.5, lw=0.9, label=name if len(names) <= 12 else None)
        ax.fill_between(x, y[:, 1], y[:, 2], color=line.get_color(), alpha=0.12, lw=0)
    ax.set_xlabel("games per candidate")
    ax.set_ylabel(f"objective (lower is better), {band}")
    ax.set_title(title)
    if len(names) <= 12:
        ax.legend(fontsize="x-small", loc="best")
    fig.tight_layout()
    return fig
