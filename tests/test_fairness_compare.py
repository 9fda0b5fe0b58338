"""Issue 37: `compare` says whether B is fairer than A, from every seat at once and game by game on common deals
(analyses.variants.fairness over analyses.fairer)."""

from pathlib import Path

import numpy as np

from analyses import report
from analyses.data import Result
from analyses.variants import fairness


def _result(name, shares, u, seed=1, teams=None):
    """A result of len(u) games whose single winner is the seat whose cumulative share holds u (common random
    numbers: games of two variants with the same u differ only where the shares moved); ``teams``: every seat
    of the winner's team wins too."""
    winner = np.searchsorted(np.cumsum(shares), u, side="right").clip(0, len(shares) - 1)
    wins = np.zeros((len(u), len(shares)), bool)
    wins[np.arange(len(u)), winner] = True
    for team in teams or ():
        wins[:, list(team)] = wins[:, list(team)].any(axis=1, keepdims=True)
    columns = {"game_index": np.arange(len(u)), "seed": np.full(len(u), seed), **{
        f"win_{s}": wins[:, s] for s in range(len(shares))}}
    return Result(path=Path(f"{name}.parquet"), name=name, game="toy", seed=seed, players=len(shares),
                  columns=columns, meta={})


U = np.random.default_rng(7).random(2000)


def test_a_fairer_variant_is_called_fairer_and_the_seats_that_moved_named():
    a = _result("a", [0.40, 0.20, 0.20, 0.20], U)
    b = _result("b", [0.25, 0.25, 0.25, 0.25], U)
    found = fairness(a, b)
    assert found.paired and found.change.verdict == "fairer"
    assert found.text.startswith("**b is fairer than a**") and "seat 0 0.405 → 0.2" in found.text
    assert fairness(b, a).change.verdict == "less fair"
    assert "**" not in report.terminal_text(found.text)


def test_nothing_moved_says_what_the_games_could_have_found():
    a = _result("a", [0.25] * 4, U)
    found = fairness(a, _result("b", [0.25] * 4, np.random.default_rng(8).random(2000), seed=2))
    assert not found.paired
    assert found.text.startswith("**No seat moved beyond chance** from a to b")
    assert "could have found a seat edge of 0.0" in found.text


def test_teams_are_the_unit():
    """4-player Zwergen Ziehen: seats 0 and 2 against 1 and 3. A team's edge is one unit's, not two seats'."""
    teams = [(0, 2), (1, 3)]
    a = _result("a", [0.33, 0.17, 0.33, 0.17], U, teams=teams)
    b = _result("b", [0.25, 0.25, 0.25, 0.25], U, teams=teams)
    found = fairness(a, b)
    assert found.teams == ((0, 2), (1, 3)) and found.change.verdict == "fairer"
    assert "the team of seats 0 and 2" in found.text


def test_different_player_counts_are_not_compared():
    assert fairness(_result("a", [0.5, 0.5], U), _result("b", [1 / 3] * 3, U)) is None


def test_the_skill_sentence_says_fairer_only_when_a_test_says_so():
    """Issue 37: "From the first level to the last it grows / shrinks / holds" compared two point estimates; it
    rests on the paired imbalance test. Issue 53, case 12: every level against the level below, not the first
    against the last alone (which skipped the level where the edge was largest)."""
    from types import SimpleNamespace

    from analyses.report import skill_steps
    from analyses.variants import fairness_against
    from analyses.verdict import skill_sentence

    def verdict(edge):
        return SimpleNamespace(worst_seat=(0,), edge=edge, unbalanced=True)

    levels = {"low": "random", "mid": "greedy", "high": "ismcts"}
    verdicts = {"low": verdict(0.0), "mid": verdict(0.15), "high": verdict(0.0)}
    shares = {"low": [0.25] * 4, "mid": [0.40, 0.20, 0.20, 0.20], "high": [0.25] * 4}
    results = {name: _result(name, s, U) for name, s in shares.items()}
    steps = fairness_against(list(results.values()), skill_steps(levels))
    said = skill_sentence(levels, verdicts, results, fairness=steps)
    assert "Holm across the 2 steps): `greedy` less fair than `random`; `ismcts` fairer than `greedy`." in said
    noisy = {name: _result(name, [0.26, 0.25, 0.25, 0.24] if name == "mid" else [0.25] * 4, U[:300])
             for name in levels}
    steps = fairness_against(list(noisy.values()), skill_steps(levels))
    assert "`greedy` no change found against `random`" in skill_sentence(levels, verdicts, noisy, fairness=steps)
