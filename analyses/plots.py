"""Plots: each function takes data and returns a matplotlib Figure (saving is the caller's choice)."""

import matplotlib

matplotlib.use("Agg")  # files only: no display needed, none is assumed

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def _height(n):
    return max(3.0, 0.32 * n + 1.2)


SEAT_COLOURS = plt.rcParams["axes.prop_cycle"].by_key()["color"]


def short_policy(spec):
    """A skill level's label: the agent and its budget (``ismcts 1000`` for ``ismcts:iterations=1000,c=...``),
    so that long specs do not overlap on an axis; the tables name the whole spec."""
    name, _, rest = spec.partition(":")
    values = dict(part.split("=", 1) for part in rest.split(",") if "=" in part)
    budget = values.get("iterations") or values.get("rollouts")
    return f"{name} {budget}" if budget else name


def short_labels(specs):
    """:func:`short_policy` of each spec, numbered where two would read alike."""
    labels = [short_policy(spec) for spec in specs]
    return [f"{label} ({i + 1})" if labels.count(label) > 1 else label for i, label in enumerate(labels)]


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
    return _rows(fig, ax, names, "mean points per game (95% Wilson interval); dotted: 1 / players, fair", title)


def _boxes(ax, data, labels):
    ax.boxplot(data, orientation="horizontal", whis=(5, 95), showfliers=False, tick_labels=labels)
    ax.invert_yaxis()


def varying(durations):
    """The variants whose games do not all last as long: a box of a constant is a line and says nothing."""
    return {name: d for name, d in durations.items() if np.min(d) != np.max(d)}


def duration_plot(durations, title="Game length"):
    """``durations``: {variant: turns per game}, of variants whose length varies (:func:`varying`). Box =
    quartiles, whiskers = 5th and 95th percentiles."""
    names = list(durations)
    fig, ax = plt.subplots(figsize=(7.5, _height(len(names))))
    _boxes(ax, [np.asarray(durations[n]) for n in names], names)
    ax.set_xlabel("turns per game (box: quartiles, whiskers: 5% and 95%)")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def score_plot(scores, title="Score per seat"):
    """``scores``: {variant: (games x seats) array}. One row per variant, a box per seat in the seat's colour
    (a row per variant and seat made a 27-variant Zwai sweep's plot 3,000 pixels tall)."""
    names = list(scores)
    seats = max(np.asarray(s).shape[1] for s in scores.values())
    width = 0.8 / seats
    fig, ax = plt.subplots(figsize=(7.5, _height(len(names))))
    for seat in range(seats):
        rows = [i for i, name in enumerate(names) if seat < np.asarray(scores[name]).shape[1]]
        data = [np.asarray(scores[names[i]])[:, seat] for i in rows]
        colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        ax.boxplot(data, positions=[i - 0.4 + width * (seat + 0.5) for i in rows], widths=width * 0.85,
                   orientation="horizontal", whis=(5, 95), showfliers=False, patch_artist=True,
                   boxprops={"facecolor": colour, "alpha": 0.6}, medianprops={"color": "black"})
        ax.plot([], [], "s", color=colour, alpha=0.6, label=f"seat {seat}")
    ax.set_yticks(range(len(names)), names)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_xlabel("score (box: quartiles, whiskers: 5% and 95%)")
    ax.set_title(title)
    ax.legend(fontsize="small", loc="best")
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
    ax.set_xticks(x, short_labels(levels), fontsize="small")
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


def options_plot(kinds, forbidden, preferred, fair, title="What each kind of move is worth"):
    """Restricted play: per kind, the restricted seat's points with the kind forbidden and with it preferred, each
    ``(share, low, high)`` or None for a kind that never came into play (not drawn); dotted: the fair share."""
    fig, ax = plt.subplots(figsize=(7.5, _height(len(kinds))))
    for offset, (label, marker, points) in zip((-0.15, 0.15), (("forbidden", "o", forbidden),
                                                                ("preferred", "s", preferred)), strict=True):
        shown = [(i, p) for i, p in enumerate(points) if p is not None]
        if shown:
            at = np.array([i for i, _ in shown]) + offset
            share = np.array([p[0] for _, p in shown])
            err = [share - np.array([p[1] for _, p in shown]), np.array([p[2] for _, p in shown]) - share]
            ax.errorbar(share, at, xerr=err, fmt=marker, ms=5, capsize=3, label=label)
    ax.axvline(fair, color="grey", lw=0.8, ls=":")
    return _rows(fig, ax, kinds, "points of the restricted seat (95% interval)", title)


def _rows(fig, ax, labels, xlabel, title):
    """A plot of one row per label, the first at the top, finished: its labels, axis, title and legend."""
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    return fig
