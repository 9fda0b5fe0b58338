"""The statistics over trace tables (analyses.decisiveness, analyses.kinds) on small hand-built traces whose answers
are known by hand."""

import json
import math

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import stats as scipy_stats

from analyses.data import DataError, Result, load_result
from analyses.decisiveness import decisiveness, load_trace, trace_path
from analyses.intervals import proportion_interval
from analyses.kinds import MIN_ROWS, MIN_TEST_ROWS, kind_stats, notable
from analyses.scoring import points

RUN = "r1"      # the run id a result and its trace share


def write_trace(path, standings, ends, game_index=None, played=None, legal=None, kinds=("draw",), step="round",
                declared_ends=("goal", "exhausted"), order=None, meta=None):
    """Write a trace table: ``standings[g][s]`` is seat s's list of standings in game g, ``ends[g]`` its end;
    ``played``/``legal`` (games, seats, kinds) counts (zeros by default); ``order`` the row order to store."""
    games, seats = len(standings), len(standings[0])
    game_index = list(range(games)) if game_index is None else list(game_index)
    zeros = np.zeros((games, seats, len(kinds)), dtype=np.int32)
    played = zeros if played is None else np.asarray(played)
    legal = zeros if legal is None else np.asarray(legal)
    rows = [(g, s) for g in range(games) for s in range(seats)]
    if order is not None:
        rows = [rows[i] for i in order]
    columns = {
        "game_index": pa.array([game_index[g] for g, _ in rows], pa.int64()),
        "seat": pa.array([s for _, s in rows], pa.int8()),
        "standing": pa.array([standings[g][s] for g, s in rows], pa.list_(pa.int32())),
        **{f"played_{k}": pa.array([played[g, s, i] for g, s in rows], pa.int32()) for i, k in enumerate(kinds)},
        **{f"legal_{k}": pa.array([legal[g, s, i] for g, s in rows], pa.int32()) for i, k in enumerate(kinds)},
        "end": pa.array([ends[g] for g, _ in rows], pa.string()),
    }
    metadata = {"game": "toy", "variant": "v", "seed": "1", "run_id": RUN, "policies": json.dumps(["random"] * seats),
                "params": "{}", "trace.standing": "points", "trace.step": step,
                "trace.kinds": json.dumps({k: f"the {k} card" for k in kinds}),
                "trace.ends": json.dumps({e: f"by {e}" for e in declared_ends}), **(meta or {})}
    table = pa.table(columns).replace_schema_metadata({f"simcore.{k}": v for k, v in metadata.items()
                                                       if v is not None})
    path.parent.mkdir(exist_ok=True)
    pq.write_table(table, path)


def result(tmp_path, wins, game_index=None, meta=None):
    """An ``analyses.data.Result`` for ``tmp_path / 'v.parquet'`` (the file itself need not exist)."""
    wins = np.asarray(wins, dtype=bool)
    games, seats = wins.shape
    columns = {"game_index": np.arange(games) if game_index is None else np.asarray(game_index),
               **{f"win_{i}": wins[:, i] for i in range(seats)}}
    return Result(path=tmp_path / "v.parquet", name="v", game="toy", seed=1, players=seats, columns=columns,
                  meta={"run_id": RUN, **(meta or {})})


def seat_lists(*steps):
    """Standings given step by step ([seat 0, seat 1, ...] after each step) as one list per seat."""
    return [list(col) for col in zip(*steps, strict=True)]


def analyse(tmp_path, standings, wins, ends=None, **kwargs):
    write_trace(trace_path(tmp_path / "v.parquet"), standings, ends or ["goal"] * len(standings), **kwargs)
    r = result(tmp_path, wins)
    trace = load_trace(r)
    return trace, decisiveness(trace, r.wins)


# --- lead changes --------------------------------------------------------------------------------------------------


def test_lead_changes_pass_through_ties_and_skip_all_tied_steps(tmp_path):
    """Game 0: nobody, {0}, {0,1}, {1}, nobody, {1}, {0}: the lead passes 0 -> 1 through a tie (one change), an
    all-tied step breaks nothing, 1 -> 0 (a second). Game 1: {0}, {0,1}, {0}: a tie that resolves back, none.
    Game 2: every seat tied throughout, no leader, none."""
    standings = [
        seat_lists([0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 2, 0], [2, 2, 2], [2, 3, 2], [4, 3, 2]),
        seat_lists([1, 0, 0], [1, 1, 0], [2, 1, 0]),
        seat_lists([0, 0, 0], [1, 1, 1]),
    ]
    wins = [[True, False, False], [True, False, False], [False, False, False]]
    _, d = analyse(tmp_path, standings, wins)
    assert d.changes.tolist() == [2, 0, 0]
    assert d.lead_changes.value == pytest.approx(2 / 3)
    assert d.lead_changes.low < 2 / 3 < d.lead_changes.high and d.lead_changes.n == 3


def test_lead_changes_count_a_team_as_one_side(tmp_path):
    """4 seats in teams (0, 2 against 1, 3, equal standings): {0,2}, {1,3}, all tied, {1,3}, {0,2}: two changes;
    the team of seats 0 and 2 wins, one side: decisive, led after the first step (no comeback), took the lead for
    good only with the last step (decided at 1)."""
    steps = [[1, 0, 1, 0], [1, 2, 1, 2], [2, 2, 2, 2], [2, 3, 2, 3], [5, 3, 5, 3]]
    other = [[0, 1, 0, 1], [0, 2, 0, 2]]          # a second game, won by the other team from the start
    standings = [seat_lists(*steps), seat_lists(*other)]
    wins = [[True, False, True, False], [False, True, False, True]]
    _, d = analyse(tmp_path, standings, wins)
    assert d.teams == ((0, 2), (1, 3))
    assert d.changes.tolist() == [2, 0]
    assert d.decisive.tolist() == [True, True] and d.comebacks == 0
    assert d.decided.tolist() == [1.0, 0.0]


# --- comebacks and decided at ----------------------------------------------------------------------------------


def test_comebacks_and_decided_at(tmp_path):
    """Two seats. Game 0: {0}, {1}, {1}, seat 1 wins: from behind, decided at 1/2. Game 1: seat 0 leads throughout
    and wins: decided at 0. Game 2: both win (shared): not decisive. Game 3: nobody wins: not decisive. Game 4:
    {0}, {1}, all tied at the end, seat 1 wins (a tie-break): from behind, never led at the end, decided at 1.
    Game 5: {0}, {0}, {1}, seat 1 wins: took the lead with the last step, decided at 1."""
    standings = [seat_lists([1, 0], [1, 2], [1, 3]), seat_lists([1, 0], [2, 0], [3, 1]),
                 seat_lists([1, 0], [1, 1]), seat_lists([0, 1]), seat_lists([1, 0], [1, 2], [3, 3]),
                 seat_lists([1, 0], [2, 0], [2, 3])]
    wins = [[False, True], [True, False], [True, True], [False, False], [False, True], [False, True]]
    _, d = analyse(tmp_path, standings, wins)
    assert d.decisive.tolist() == [True, True, False, False, True, True] and d.n_decisive == 4
    assert d.from_behind.tolist() == [True, False, False, False, True, True]
    assert d.comebacks == 3
    ci = proportion_interval(3, 4)
    assert (d.comeback.value, d.comeback.low, d.comeback.high) == (0.75, ci.low, ci.high)
    np.testing.assert_array_equal(d.decided, [0.5, 0.0, np.nan, np.nan, 1.0, 1.0])
    assert d.decided_at.value == pytest.approx(2.5 / 4) and d.decided_at.n == 4


def test_a_one_step_game_is_decided_at_0_or_1(tmp_path):
    standings = [seat_lists([2, 1]), seat_lists([2, 1])]
    _, d = analyse(tmp_path, standings, [[True, False], [False, True]])
    assert d.decided.tolist() == [0.0, 1.0] and d.from_behind.tolist() == [False, True]


def test_comeback_in_a_turn_game_is_judged_at_half_of_the_game(tmp_path):
    """Steps are turns: the reference is after half of the game's steps (rounded down, at least 1). Game 0 (6
    turns, reference after turn 3): seat 0 leads turns 1-2, seat 1 from turn 3: seat 1 won, but led at half time,
    no comeback (it would be one after the first step). Game 1 (3 turns, reference after turn 1): seat 1 trails
    after turn 1 and wins: a comeback. Game 2 (1 turn): reference after turn 1."""
    standings = [seat_lists([1, 0], [2, 0], [2, 3], [2, 4], [2, 5], [2, 6]),
                 seat_lists([1, 0], [1, 1], [1, 2]), seat_lists([0, 1])]
    wins = [[False, True], [False, True], [False, True]]
    _, d = analyse(tmp_path, standings, wins, step="turn")
    assert d.step == "turn" and d.from_behind.tolist() == [False, True, False]
    assert "won from behind after half of the turns" in d.text
    _, rounds = analyse(tmp_path, standings, wins, step="round")
    assert rounds.from_behind.tolist() == [True, True, False]


# --- ends ---------------------------------------------------------------------------------------------------------


def test_end_shares_with_simultaneous_intervals_in_the_metadatas_order(tmp_path):
    """10 games: 3 exhausted, 6 goal, 1 timeout; ends in the metadata's order (goal, exhausted), then timeout,
    each with Wilson at 1 - 0.05 / 3."""
    ends = ["exhausted"] * 3 + ["goal"] * 6 + ["timeout"]
    standings = [seat_lists([1, 0])] * 10
    trace, d = analyse(tmp_path, standings, [[True, False]] * 10, ends=ends)
    assert trace.ends == ("goal", "exhausted", "timeout")
    assert list(d.ends) == ["goal", "exhausted", "timeout"]
    assert d.end_counts == {"goal": 6, "exhausted": 3, "timeout": 1}
    for name, k in d.end_counts.items():
        ci = proportion_interval(k, 10, 1 - 0.05 / 3)
        assert (d.ends[name].value, d.ends[name].low, d.ends[name].high) == (k / 10, ci.low, ci.high)
    assert d.text.startswith("0.00 lead changes a game [0.00, 0.00]; 0.0% [0.0, 27.8] of decisive games won")
    assert "ended by: goal 60% [" in d.text and d.text.endswith("(simultaneous 95%).")


def test_an_end_the_metadata_does_not_declare_is_kept(tmp_path):
    trace, d = analyse(tmp_path, [seat_lists([1, 0])] * 2, [[True, False]] * 2, ends=["goal", "surrender"])
    assert trace.ends == ("goal", "exhausted", "timeout", "surrender")
    assert d.end_counts["surrender"] == 1 and trace.end_meanings["surrender"] == "surrender"


def test_the_sentence(tmp_path):
    standings = [seat_lists([1, 0], [1, 2], [1, 3]), seat_lists([1, 0], [2, 0], [3, 1])] * 2
    wins = [[False, True], [True, False]] * 2
    _, d = analyse(tmp_path, standings, wins, ends=["goal", "goal", "exhausted", "goal"])
    # By hand: 1, 0, 1, 0 lead changes (t interval [-0.42, 1.42], cut at 0); 2 of 4 decisive games won from
    # behind (Wilson [15%, 85%]); decided at 1/2, 0, 1/2, 0 (t interval [-20.9%, 70.9%], cut at 0).
    assert d.text == ("0.50 lead changes a game [0.00, 1.42]; 50% [15, 85] of decisive games won from behind after the "
                      "first round; the winner took the lead for good at 25.0% [0.0, 70.9] of the game; ended by: goal "
                      "75% [24, 97], exhausted 25.0% [3.4, 76.1] (simultaneous 95%).")
    _, shared = analyse(tmp_path, standings[:2], [[True, True]] * 2)
    assert "no game had a single winning side" in shared.text and math.isnan(shared.comeback.value)


# --- loading ----------------------------------------------------------------------------------------------------


def test_unequal_game_lengths_are_padded_with_the_last_standing(tmp_path):
    standings = [seat_lists([1, 0], [1, 2]), seat_lists([0, 1], [3, 1], [3, 4], [5, 4])]
    trace, d = analyse(tmp_path, standings, [[False, True], [True, False]])
    assert trace.standing.shape == (2, 2, 4) and trace.steps.tolist() == [2, 4]
    assert trace.standing[0].tolist() == [[1, 1, 1, 1], [0, 2, 2, 2]]
    assert trace.standing[1].tolist() == [[0, 3, 3, 5], [1, 1, 4, 4]]
    assert d.changes.tolist() == [1, 3]
    assert d.decided.tolist() == [1.0, 1.0]        # game 0: seat 1 took the lead with its last step


def test_games_are_aligned_with_the_results_rows(tmp_path):
    """The trace stored in another order (rows reversed) than the result's rows (game indices 5, 3, 9): the
    trace's games come in the result's row order, each with its own standings, counts and end."""
    standings = [seat_lists([3, 0]), seat_lists([5, 0]), seat_lists([9, 0])]       # seat 0 shows the index
    played = [[[3], [30]], [[5], [50]], [[9], [90]]]
    write_trace(trace_path(tmp_path / "v.parquet"), standings, ["goal", "exhausted", "timeout"], game_index=[3, 5, 9],
                played=played, legal=played, order=[5, 4, 3, 2, 1, 0])
    trace = load_trace(result(tmp_path, [[True, False]] * 3, game_index=[5, 3, 9]))
    assert trace.game_index.tolist() == [5, 3, 9]
    assert trace.standing[:, :, 0].tolist() == [[5, 0], [3, 0], [9, 0]]
    assert trace.played[..., 0].tolist() == [[5, 50], [3, 30], [9, 90]]
    assert [trace.ends[e] for e in trace.end] == ["exhausted", "goal", "timeout"]
    assert trace.kinds == ("draw",) and trace.kind_meanings == {"draw": "the draw card"}
    assert trace.step == "round" and trace.standing_name == "points"


def test_a_trace_beside_a_real_result_file(tmp_path):
    path = tmp_path / "v.parquet"
    pq.write_table(pa.table({"game": ["toy"] * 2, "variant": ["v"] * 2, "seed": [1, 1], "game_index": [0, 1],
                             "n_players": [2, 2], "win_0": [True, False], "win_1": [False, True],
                             "timeout": [False, False]}).replace_schema_metadata({"simcore.seed": "1",
                                                                                 "simcore.run_id": RUN}), path)
    write_trace(trace_path(tmp_path / "v.parquet"), [seat_lists([1, 0]), seat_lists([0, 1])], ["goal"] * 2)
    r = load_result(path)
    assert trace_path(r.path) == tmp_path / "_traces" / "v.trace.parquet"
    assert decisiveness(load_trace(r), r.wins).n_decisive == 2


def test_a_cut_trace_gives_no_lead_changes_and_says_why(tmp_path):
    """Issue 36: traces were cut at the trace's step limit without a word (Wichtel to 3,000 points plays about 250
    rounds, its trace holds 64), and the lead changes came from the cut trace. A game that filled the trace's
    steps is counted as cut; the figures that need every step are left out and the sentence says why."""
    standings = [seat_lists([1, 0], [0, 1], [1, 0]), seat_lists([1, 0], [2, 0])]
    trace, d = analyse(tmp_path, standings, [[True, False], [True, False]], meta={"trace.max_steps": "3"})
    assert trace.cut.tolist() == [True, False]
    assert d.n_cut == 1 and math.isnan(d.lead_changes.value) and math.isnan(d.decided_at.value)
    assert "the traces of 1 of 2 games were cut at 3 rounds" in d.text and "lead changes a game" not in d.text
    assert d.comeback.n == 2               # judged after the first round: a cut does not touch it
    _, whole = analyse(tmp_path, standings, [[True, False], [True, False]], meta={"trace.max_steps": "4"})
    assert whole.n_cut == 0 and whole.lead_changes.value == 1.0 and "were cut" not in whole.text


def test_no_trace_is_none(tmp_path):
    assert load_trace(result(tmp_path, [[True, False]])) is None


@pytest.mark.parametrize(("case", "message"), [
    ("other games", "does not hold the games of v.parquet: its game indices or seats differ"),
    ("fewer games", "does not hold the games of v.parquet: 4 rows for 3 games of 2 seats"),
    ("other seed", r"is the trace of another run \(seed '2', the result's '1'\); allowed: the trace written with "
                   "v.parquet$"),
    ("garbage", "cannot read"),
    ("stripped", r"is not the trace of v.parquet \(its run id is missing, the result's r1\)"),
    ("other run", r"is not the trace of v.parquet \(its run id is r2, the result's r1\)"),
])
def test_a_mismatched_or_unreadable_trace_is_a_one_line_data_error(tmp_path, case, message):
    path = trace_path(tmp_path / "v.parquet")
    standings = [seat_lists([1, 0])] * 3
    if case == "garbage":
        path.parent.mkdir()
        path.write_bytes(b"not\na parquet\nfile")
    else:
        write_trace(path, standings[:2] if case == "fewer games" else standings, ["goal"] * 3,
                    game_index=[0, 1, 3] if case == "other games" else None,
                    meta={"other seed": {"seed": "2"}, "stripped": {"run_id": None},
                          "other run": {"run_id": "r2"}}.get(case))
    with pytest.raises(DataError, match=message) as e:
        load_trace(result(tmp_path, [[True, False]] * 3, meta={"seed": "1"}))
    assert "\n" not in str(e.value)


# --- action kinds -------------------------------------------------------------------------------------------------


def kinds_trace(tmp_path, played, legal, wins, kinds):
    write_trace(trace_path(tmp_path / "v.parquet"), [seat_lists([0] * len(wins[0]))] * len(wins),
                ["goal"] * len(wins), played=played, legal=legal, kinds=kinds)
    return load_trace(result(tmp_path, wins))


def test_kind_stats_by_hand(tmp_path):
    """80 two-seat games. Kind ``held``: exactly one seat plays it (once in games 0-39, three times in 40-79), the
    one that wins in games 0-59: 0.75 points against 0.25. Its rows of a game are dependent (the points
    add up to 1), and the cluster-robust standard error of the difference is the paired one, 2 sd / sqrt(G), with
    the t reference on G - 1 = 79 degrees of freedom: the paired t test of the holder's points against the other's.
    Kind ``never``: never played, legal in game 0 only; kind ``none``: never legal."""
    g = 80
    holder = np.arange(g) % 2                                  # the seat that plays ``held``
    winner = np.where(np.arange(g) < 60, holder, 1 - holder)
    wins = np.eye(2, dtype=bool)[winner]
    held = np.zeros((g, 2), dtype=np.int32)
    held[np.arange(g), holder] = np.where(np.arange(g) < 40, 1, 3)
    never = np.zeros((g, 2), dtype=np.int32)
    legal_never = never.copy()
    legal_never[0] = 4
    played = np.stack([held, never, never], axis=-1)
    legal = np.stack([2 * held, legal_never, never], axis=-1)
    stats = kind_stats(kinds_trace(tmp_path, played, legal, wins, ("held", "never", "none")), points(wins))
    s = stats["held"]
    assert (s.n_games, s.n_rows, s.n_played, s.n_not, s.fair) == (80, 160, 80, 80, 0.5)
    assert s.plays.value == pytest.approx(1.0) and s.played_share.value == 0.5
    assert (s.points_played.value, s.points_not.value, s.difference.value) == (0.75, 0.25, 0.5)
    se = 2 * np.std(winner == holder, ddof=1) / math.sqrt(g)
    assert (s.difference.high - s.difference.low) / 2 == pytest.approx(scipy_stats.t.ppf(0.975, g - 1) * se)
    assert s.statistic == pytest.approx(0.5 / se) and s.pvalue == pytest.approx(2 * scipy_stats.t.sf(0.5 / se, g - 1))
    holder_points = points(wins)[np.arange(g), holder]
    assert s.pvalue == pytest.approx(scipy_stats.ttest_rel(holder_points, 1 - holder_points).pvalue)
    assert list(s.by_count) == ["0", "1", "3+"]                     # nobody played it exactly twice
    assert [(e.value, e.n) for e in s.by_count.values()] == [(0.25, 80), (1.0, 40), (0.5, 40)]
    assert (s.by_count["1"].low, s.by_count["1"].high) == (1.0, 1.0)    # every such seat won: no spread
    assert s.choice.value == 0.5 and s.choice.low == s.choice.high == 0.5     # every game's rate is 1/2
    assert s.meaning == "the held card"
    n = stats["never"]
    assert n.n_played == 0 and math.isnan(n.pvalue) and math.isnan(n.difference.low)
    assert n.choice.value == 0.0 and stats["none"].choice is None
    assert list(n.by_count) == ["0"] and n.by_count["0"].value == 0.5
    found = notable(stats)
    assert [f.kind for f in found] == ["held"]
    a, b = s.points_played, s.points_not
    w = s.within        # every seat level after the first round: one place, the same difference
    assert (w.value, w.low, w.high, s.within_pvalue) == (s.difference.value, s.difference.low, s.difference.high,
                                                         s.pvalue)
    assert found[0].sentence == (f"The held card goes with winning (an association, not a cause): seats that play it "
                                 f"at least once take 0.750 points [{a.low:.3f}, {a.high:.3f}] a game against 0.250 "
                                 f"[{b.low:.3f}, {b.high:.3f}] for those that do not, +0.500 [{w.low:+.3f}, "
                                 f"{w.high:+.3f}] against seats in the same place after the first round (Holm p < "
                                 "0.0001).")
    assert found[0].adjusted_pvalue == pytest.approx(s.pvalue)     # the only kind with a test: a family of one


def test_notable_orders_by_the_size_of_the_difference_and_adjusts_by_holm(tmp_path):
    """Three kinds over 200 three-seat games: ``big`` played by the winner, ``small`` by the winner in 60% of
    the games and by a loser otherwise, ``noise`` by seat 0 whoever wins. ``big`` comes first; ``noise`` is not
    named; a kind with the p-value it has alone is named only if it survives Holm's adjustment."""
    rng = np.random.default_rng(1)
    g = 200
    winner = rng.integers(0, 3, g)
    wins = np.eye(3, dtype=bool)[winner]
    big = np.eye(3, dtype=np.int32)[winner]
    small_seat = np.where(rng.random(g) < 0.6, winner, (winner + 1) % 3)
    small = np.eye(3, dtype=np.int32)[small_seat]
    noise = np.eye(3, dtype=np.int32)[np.zeros(g, dtype=int)]
    played = np.stack([noise, small, big], axis=-1)
    stats = kind_stats(kinds_trace(tmp_path, played, played, wins, ("noise", "small", "big")), points(wins))
    found = notable(stats)
    assert [f.kind for f in found] == ["big", "small"]
    assert found[0].stats.difference.value == 1.0
    assert all(f.adjusted_pvalue < 0.05 and f.adjusted_pvalue >= f.stats.pvalue for f in found)
    assert notable(stats, family_alpha=1e-300)[0].kind == "big"         # no spread: p = 0
    assert stats["noise"].by_count.keys() == {"0", "1"}


def test_groups_under_min_rows_get_no_interval_and_no_test(tmp_path):
    """90 two-seat games. ``a``: seat 0 plays it once in games 0-29 (30 rows: the "1" group has an interval) and
    seat 1 twice in games 0-28 (29 rows: no "2" group); 59 rows played it, 121 did not. ``rare``: played in 59
    rows, one short of a test of its played win rate, so it is outside Holm's family; its group has an interval."""
    g = 90
    a = np.zeros((g, 2), dtype=np.int32)
    a[:30, 0], a[:29, 1] = 1, 2
    a[30:60, 0] = 1
    rare = np.zeros((g, 2), dtype=np.int32)
    rare[:59, 1] = 1
    wins = np.eye(2, dtype=bool)[np.arange(g) % 2]
    played = np.stack([a, rare], axis=-1)
    stats = kind_stats(kinds_trace(tmp_path, played, played, wins, ("a", "rare")), points(wins))
    assert (MIN_ROWS, MIN_TEST_ROWS) == (30, 60)
    assert list(stats["a"].by_count) == ["0", "1"] and stats["a"].by_count["1"].n == 60
    assert stats["a"].n_played == 89 and not math.isnan(stats["a"].pvalue)
    r = stats["rare"]
    assert r.n_played == 59 and math.isnan(r.pvalue) and math.isnan(r.difference.low) and r.points_played.low < 0.5
    assert r.points_played.value == pytest.approx(29 / 59)      # seat 1 wins the odd games
    assert [f.kind for f in notable(stats, family_alpha=1.0)] == ["a"]
