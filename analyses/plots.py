"""Plots: each function takes data and returns a matplotlib Figure (saving is the caller's choice)."""

import matplotlib

matplotlib.use("Agg")  # files only: no display needed, none is assumed

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def _height(n):
    return max(3.0, 0.32 * n + 1.2)


def win_share_plot(balances, title="Win share per seat"):
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
    ax.set_xlabel("share of games won (95% Wilson interval); dotted: 1 / players")
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
