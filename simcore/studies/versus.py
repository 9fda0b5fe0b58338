"""One policy against another on the same deals, every seat taken in turn.

Policy A sits in seat s and policy B in every other seat; each deal (game index) is played once for every s,
as chess engine testing pairs its openings, so the luck of the deal and of the seat cancels. A's score in a
game is its points (``analyses.scoring.points``): 1 for a win, 1/k for a k-way shared win, 0 for a loss, and
1/players when nobody wins (a timeout, a draw), as chess scores a draw 1/2. The mean over all games is A's
score; a contest of equals gives 1/players. The interval and the test treat each deal's mean as one
observation (the seatings of a deal are not independent); the test allows for the skew of the deal means
(:func:`score`).

Scored by the margin (``--score margin``, a game that declares one), A's score in a game is its margin: its score
less the table's mean score (``analyses.scoring.margins``), in the game's unit; a contest of equals gives 0, and
the deal means are tested against 0 by Student's t (:func:`score`).
"""

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from analyses.scoring import MARGIN_RULE, RULE, margins, points
from simcore import engine
from simcore.io import config as cfg
from simcore.io import writing
from simcore.studies import runs as plays
from simcore.studies import sweep
from simcore.studies.executors import Pace

SCORING = f"scoring: {RULE}"
ALPHA = 0.05           # the two-sided level of the test, and 1 - the interval's confidence
SAME = 1e-9            # deal means closer than this are the same (points are multiples of 1/k, not that close)


@dataclass(frozen=True)
class VersusResult:
    """A's score against B, in the manner of scipy.stats results."""

    policy: str
    against: str
    players: int
    deals: int
    games: int
    score: float                 # A's mean points over all games
    low: float                   # 95% interval of the score (see ``method``)
    high: float
    fair: float                  # 1 / players
    pvalue: float                # two-sided, H0: score = fair
    seat_scores: tuple           # A's mean points from each seat
    split: object = None         # the SeatSplit of those seats' scores (None: a result made without one)
    method: str = "z"            # "z": the skew-corrected z test over the deal means; "exact": every deal alike;
                                 # "t": Student's t over the deal means of margins; "constant": every deal alike
    unit: str = ""               # scored by the margin: its unit (prize points); "" for points

    @property
    def significant(self):
        return self.pvalue < ALPHA

    @property
    def scoring(self):
        """How a game was scored, in one line."""
        return f"scoring: the margin, {MARGIN_RULE} ({self.unit})" if self.unit else SCORING

    @property
    def test(self):
        """The test and the error it controls, in one line."""
        if self.method == "t":
            return (f"test: Student's t test of the {self.deals:,} deals' mean margins against 0, two-sided "
                    f"{ALPHA:.0%} (the chance to call equals stronger or weaker)")
        if self.method == "constant":
            return "test: every deal scored the same margin, so there is no chance in it to test"
        if self.method == "z":
            return (f"test: z test of the {self.deals:,} deals' mean scores against fair, their variance taken "
                    f"about fair and corrected for their skew, two-sided {ALPHA:.0%} (the chance to call equals "
                    "stronger or weaker)")
        return (f"test: every deal scored the same, so exact binomial over the {self.deals:,} deals' mean "
                f"scores (Clopper-Pearson interval), two-sided {ALPHA:.0%} (the chance to call equals stronger "
                "or weaker)")


DEALS = 1000           # deals of a contest unless --games or the config says otherwise


def seatings(game, policy, against, sets=(), games=None, seed=None, table=None):
    """The runs of a contest: one per seat of A (validated configs, one-line ConfigError on bad input).
    ``table`` is a config file's table (its game, parameters, games and seed); the contest sets every seat's
    policy itself, so the table may not."""
    table, games = contest_table(table, games, "a contest seats A (--policy) and B (--against) itself")
    players = cfg.resolve(game, table, sets=list(sets)).players
    return [cfg.resolve(game, table, sets=list(sets), policies=[("all", against), (str(seat), policy)],
                        games=games, seed=seed, variant=f"seat{seat}") for seat in range(players)]


def contest_table(table, games, seating):
    """A config file's ``table`` and the deals ``games`` (None: the table's, else :data:`DEALS`) of a study that
    seats its policies itself (``seating`` says how: a contest, restricted play), checked: the table may not seat
    any, and a study needs two or more deals. One-line ConfigError."""
    table = dict(table or {})
    if "policies" in table:
        raise cfg.ConfigError(f"the config sets [policies], but {seating}; allowed: a config without [policies]")
    games = table.get("games", DEALS) if games is None else games
    check_deals(games)
    return table, games


def check_deals(games):
    """One-line ConfigError for fewer than 2 deals: one deal has no spread over deals to test against
    (cfg.resolve words the other bad values)."""
    if isinstance(games, int) and not isinstance(games, bool) and games < 2:
        raise cfg.ConfigError(f"--games {games} is not allowed; allowed: 2 or more deals")


def a_returns(run, rows, seat, score="points"):
    """A's points (or margins) in each game of ``rows`` when it sits in ``seat``."""
    if score == "margin":
        first = engine.score_offset(run.module.MAX_SEATS)
        return margins(rows[:, first:first + run.players])[:, seat]
    return seat_returns(rows[:, engine.O_WIN:engine.O_WIN + run.players], seat)


def table_returns(table, players, seat, score="points"):
    """A's points (or margins) in each game of a result table (Parquet) when it sits in ``seat``."""
    if score == "margin":
        return margins(np.column_stack([table[f"score_{i}"].to_numpy(zero_copy_only=False)
                                        for i in range(players)]))[:, seat]
    return seat_returns(np.column_stack([table[f"win_{i}"].to_numpy(zero_copy_only=False)
                                         for i in range(players)]), seat)


def seat_returns(wins, seat):
    """``seat``'s points per game from the (games, players) win flags (``analyses.scoring.points``)."""
    return points(wins)[:, seat]


def contest(runs, on_seat=None, folder=None, trace=False, warn=None, score_by="points"):
    """Play every seating of ``runs`` (from :func:`seatings`) and return the :class:`VersusResult`, A scored by
    its points or (``score_by="margin"``) its margins. ``folder``:
    also write each seating's games there as ``seat<s>.parquet`` (``trace``: with its trace), as a sweep writes
    its variants (:func:`to_folder`). ``warn(line)`` hears early, once, how long the contest will take when that
    is long (:class:`~simcore.studies.executors.Pace`)."""
    if folder is not None:
        return to_folder(runs, folder, on_seat, trace, warn, score_by)
    pace = Pace(sum(run.games for run in runs), warn, "Ctrl-C stops it and keeps nothing (with --out FOLDER it "
                                                      "keeps every seating finished)")
    scores = []
    for seat, run in enumerate(runs):
        scores.append(np.concatenate([a_returns(run, rows, seat, score_by)
                                      for _, rows in plays.blocks(run, pace.add)]))
        if on_seat:
            on_seat(seat, float(scores[-1].mean()))
    return score(runs, scores, _unit(runs, score_by))


def _unit(runs, score_by):
    return runs[0].module.GAME.margin if score_by == "margin" else ""


def as_sweep(runs, folder):
    """The seatings as the variants of a sweep (``seat0``, ``seat1``, ...)."""
    variants = [sweep.Variant(run.variant, {"seat": seat}, run) for seat, run in enumerate(runs)]
    return sweep.Sweep(Path(folder), runs[0].game, variants)


def to_folder(runs, folder, on_seat=None, trace=False, warn=None, score_by="points"):
    """:func:`contest` into ``folder``: a folder of the kind "versus" (checked, locked, with its manifest), so
    that it is never taken for a sweep's, never written by two runs at once, and an interrupted contest resumes
    with the seatings it finished."""
    scores = [None] * len(runs)
    pace = Pace(sum(run.games for run in runs), warn, f"Ctrl-C keeps every seating finished in {folder}, and the "
                                                      "same command goes on from them")

    def finished(variant, status, tally):
        if status == "skipped":     # finished before: not played now
            pace.skip(variant.config.games)
        seat = variant.overrides["seat"]
        table = pq.read_table(writing.local(Path(folder) / variant.file))
        scores[seat] = table_returns(table, runs[seat].players, seat, score_by)
        if on_seat:
            on_seat(seat, float(scores[seat].mean()))

    sweep.run(as_sweep(runs, folder), folder, pace.add, on_variant=finished, kind="versus", trace=trace)
    return score(runs, scores, _unit(runs, score_by))


@dataclass(frozen=True)
class SeatSplit:
    """Does A score differently from one seat to another, on the same deals? Hotelling's T-squared statistic of
    the per-deal differences between its seats' scores, its p-value by permutation (:func:`seat_split`),
    two-sided at 5%: a contest that "draws level" from 0.84 as the first seat and 0.19 as the second is split,
    not level."""

    seat_scores: tuple           # A's mean score from each seat
    statistic: float             # Hotelling's T-squared of the differences to the last seat
    pvalue: float

    @property
    def significant(self):
        return self.pvalue < ALPHA


SPLIT_PERMUTATIONS = 499        # the seats' labels shuffled within every deal this many times
SPLIT_SEED = 56                 # their draws: the same scores give the same p-value
SPLIT_CHUNK = 4_000_000         # scores a batch of permutations holds at once (memory, not the answer)


def seat_split(scores):
    """The :class:`SeatSplit` of A's scores ``scores[seat]`` (deal by deal, the same deals in each seat).

    The statistic is Hotelling's T-squared of the differences to the last seat (n d' S^-1 d; with two seats the
    paired t squared). Its F distribution called equal seats split up to 15% of the time at 20 deals with 5 seats
    (skewed points, seats favoured deal by deal: tests/test_calibration_versus.py), so the p-value is a
    permutation test's: under no split the seats of a deal are exchangeable, so shuffling A's scores among its
    seats within every deal draws the statistic's null distribution exactly, whatever the points' shape."""
    x = np.column_stack([np.asarray(s, dtype=float) for s in scores])
    means = tuple(float(m) for m in x.mean(axis=0))
    observed = _t_squared(x[None])[0]
    rng = np.random.default_rng(SPLIT_SEED)
    n, k = x.shape
    beyond, chunk = 0, max(1, SPLIT_CHUNK // x.size)
    for start in range(0, SPLIT_PERMUTATIONS, chunk):
        order = rng.random((min(chunk, SPLIT_PERMUTATIONS - start), n, k)).argsort(axis=2)
        beyond += int((_t_squared(np.take_along_axis(x[None], order, axis=2)) >= observed - 1e-9).sum())
    return SeatSplit(means, float(observed), (1 + beyond) / (1 + SPLIT_PERMUTATIONS))


def _t_squared(x):
    """Hotelling's T-squared of each stack's (b, n deals, k seats) differences to the last seat; 0 without
    spread (a difference that never varies and is not 0 counts as infinitely far)."""
    d = x[..., :-1] - x[..., -1:]
    n = d.shape[1]
    mean = d.mean(axis=1)
    centred = d - mean[:, None, :]
    cov = np.einsum("bni,bnj->bij", centred, centred) / max(n - 1, 1)
    spread = np.einsum("bii->bi", cov) > SAME * SAME
    t2 = n * np.einsum("bi,bij,bj->b", mean, np.linalg.pinv(cov), mean)
    fixed = (~spread & (np.abs(mean) > SAME)).any(axis=1)        # always the same edge: as split as can be
    return np.where(fixed, np.inf, t2)


def document(result, claim, game):
    """``simcore versus --json``: the contest (A's score, its interval, the test's p-value and word) and its claim,
    in the schema every command's JSON shares (``analyses.claims``)."""
    from analyses.claims import document as claims_document

    contest = {"game": game, "policy": result.policy, "against": result.against, "players": result.players,
               "deals": result.deals, "games": result.games, "score": result.score, "low": result.low,
               "high": result.high, "fair": result.fair, "pvalue": result.pvalue, "unit": result.unit or "points",
               "seat_scores": list(result.seat_scores), "seat_split": claim.numbers.get("seats"), "verdict": claim.word}
    return claims_document([claim], contest=contest)


def score(runs, scores, unit=""):
    """The :class:`VersusResult` of A's points ``scores[seat]`` (one array per seating, game by game), or of its
    margins in ``unit`` (:func:`margin_score`).

    The deals are independent and a deal's seatings are not, so a deal's mean score is one observation. The
    test of H0: E[deal mean] = 1/players is two-sided at 5% with the 95% interval it inverts (they agree: p <
    0.05 exactly when fair is outside it), :func:`skew_z_test`: it controls the chance to call two equals
    stronger or weaker at 5% from 20 deals on, for 2 to 5 players, where the t test called them so up to 9% (5
    players) and 10% (4 players, every game won outright) of the time at 20 deals when deals suit one policy at
    every seat (tests/test_calibration_versus.py). When every deal scored the same there is
    no spread to work with; the sum of the deal means is then taken as a binomial count out of the deals
    (conservative for means in [0, 1], whose variance is at most that of a win flag): the Clopper-Pearson
    interval, and the exact test it inverts, twice the smaller binomial tail. Fewer than 2 deals: ValueError.
    """
    per_deal = np.mean(scores, axis=0)
    deals, players = per_deal.size, len(runs)
    if deals < 2:
        raise ValueError(f"a contest of {deals} deals is not allowed; allowed: 2 or more deals (one deal has no "
                         "spread to test)")
    if unit:
        return margin_score(runs, scores, per_deal, unit)
    fair = 1 / players
    method, low, high, pvalue = deal_test(per_deal, fair)
    return VersusResult(policy=runs[0].policies[0], against=runs[0].policies[1], players=players, deals=deals,
                        games=deals * players, score=float(per_deal.mean()), low=float(low), high=float(high),
                        fair=fair, pvalue=float(pvalue), seat_scores=tuple(float(s.mean()) for s in scores),
                        split=seat_split(scores), method=method)


def deal_test(per_deal, fair, alpha=ALPHA):
    """(method, low, high, p): the test of :func:`score` on the deal means ``per_deal`` (points) against ``fair``,
    two-sided at ``alpha`` with the 1 - alpha interval it inverts."""
    # a spread of rounding errors only (1/3 + 1/3 + 1/3 is not always 1) is no spread: the t test would divide
    # rounding by rounding
    if per_deal.max() - per_deal.min() < SAME:
        return ("exact", *_exact(float(per_deal.sum()), per_deal.size, fair, alpha))
    pvalue, low, high = skew_z_test(per_deal, fair, alpha)
    return "z", low, high, pvalue


def margin_score(runs, scores, per_deal, unit):
    """:func:`score` of margins: Student's t test of the deal means against 0 and the interval it inverts. A
    margin has no bound, so the points' skew correction (which leans on [0, 1]) does not apply; measured
    (tests/test_calibration_margins.py) the t test holds its level on skewed margins from 20 deals on. Every deal
    alike: no chance in it, the mean is the answer (p = 1 at 0, else 0; a spread of rounding errors is none)."""
    n, mean = per_deal.size, float(per_deal.mean())
    method, low, high, pvalue = margin_test(per_deal)
    return VersusResult(policy=runs[0].policies[0], against=runs[0].policies[1], players=len(runs), deals=n,
                        games=n * len(runs), score=mean, low=low, high=high, fair=0.0, pvalue=pvalue,
                        seat_scores=tuple(float(s.mean()) for s in scores), split=seat_split(scores), method=method,
                        unit=unit)


def margin_test(per_deal, alpha=ALPHA):
    """(method, low, high, p): the test of :func:`margin_score` on the deal means ``per_deal`` (margins) against 0,
    two-sided at ``alpha`` with the 1 - alpha interval it inverts."""
    from analyses.paired import t_test

    n, mean = per_deal.size, float(per_deal.mean())
    if per_deal.max() - per_deal.min() < SAME:
        return "constant", mean, mean, 1.0 if abs(mean) < SAME else 0.0
    pvalue, low, high = t_test(mean, math.sqrt(per_deal.var(ddof=1) / n), n - 1, confidence=1 - alpha)
    return "t", low, high, pvalue


def skew_z_test(x, null, alpha=ALPHA):
    """(p, low, high): the two-sided z test of H0: E[x] = ``null`` for values ``x`` in [0, 1] (deal means), and the
    interval of the means it does not reject at ``alpha``, so that p < alpha exactly when ``null`` is outside it.

    z = (mean - null) / sqrt(V / n), with the variance V taken under H0: the mean square about ``null`` (as the
    sign-flip test takes it), plus b (null - mean) where that is positive, b = m3 / m2 the deal means' skewness
    ratio (third over second central moment). Why: a deal's mean is skewed when A takes all of its seatings or
    none (the deal suits one policy whatever the seat), mostly 0 and rarely 1 with 4 or 5 players; a sample
    with few of the rare large values has too small a square, exactly when its mean falls short of fair, and the
    t test then called equals weaker 6% to 9% of the time from one tail alone. The square's expected shortfall
    given the mean is b (null - mean) (the regression of the square on the mean), which the term restores; it
    never lowers V. With no skew it is the sign-flip test's normal form, and the p-value floor 2 Phi(-sqrt(n))
    (a mean square never below the squared deviation) is the one of a contest without spread. Measured
    against the t test: tests/test_calibration_versus.py."""
    from scipy import special

    x = np.asarray(x, dtype=float)
    n, mean, m2 = x.size, float(x.mean()), float(x.var())
    b = float(((x - mean) ** 3).mean()) / m2 if m2 > 0 else 0.0
    shift = null - mean
    variance = m2 + shift * shift + max(0.0, b * shift)
    z = -shift / math.sqrt(variance / n) if variance > 0 else 0.0
    pvalue = float(2 * special.ndtr(-abs(z)))
    low, high = (mean + _edge(n, m2, b, side, alpha) for side in (-1, 1))
    return pvalue, max(0.0, low), min(1.0, high)


def _edge(n, m2, b, side, alpha=ALPHA):
    """The shift d = mu - mean (of sign ``side``) where the test of mu is at its critical z: n d^2 = z^2 (m2 + d^2 +
    max(0, b d)), a quadratic on each side; z^2 grows with |d| on each, so the means not rejected are the interval
    between the two roots. Unbounded (the whole of [0, 1]) when n <= z^2."""
    from scipy import special

    z2 = float(special.ndtri(1 - alpha / 2)) ** 2
    if n <= z2:
        return side * 1.0
    skew = b if b * side > 0 else 0.0          # the term counts on the side where it adds
    return (z2 * skew + side * math.sqrt(z2 * z2 * skew * skew + 4 * (n - z2) * z2 * m2)) / (2 * (n - z2))


def _exact(k, n, fair, alpha=ALPHA):
    """Clopper-Pearson bounds and the two-sided exact binomial p-value against ``fair`` for ``k`` (possibly
    fractional) successes in ``n`` trials, both from the beta form of the binomial tails: P(X >= k) =
    I_fair(k, n - k + 1), P(X <= k) = 1 - I_fair(k + 1, n - k)."""
    from scipy import stats

    tail = alpha / 2
    low = 0.0 if k == 0 else stats.beta.ppf(tail, k, n - k + 1)
    high = 1.0 if k == n else stats.beta.ppf(1 - tail, k + 1, n - k)
    at_least = 1.0 if k == 0 else stats.beta.cdf(fair, k, n - k + 1)
    at_most = 1.0 if k == n else stats.beta.sf(fair, k + 1, n - k)
    return low, high, min(1.0, 2 * min(at_least, at_most))
