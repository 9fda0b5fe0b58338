"""Balance by skill (issue 13): the configs/<game>-skill.toml sweeps and their section of the report."""

import json
from pathlib import Path

import pytest

from analyses import data, report
from analyses.plots import short_labels
from simcore import agents, games
from simcore.studies import sweep

LEVELS = ["random", "greedy", "mc:rollouts=16", "ismcts:iterations=100,c=0.7,rollout=random",
          "ismcts:iterations=1000,c=0.7,rollout=random"]     # Zwai's canonical names (it recommends no tools)


MC = {"skirmish": "mc:rollouts=16,cutoff=12"}     # a rollout to the end of wizard war takes minutes a game


@pytest.mark.parametrize("name", ["zwai", "zwai-4p-ring", "zwergen", "wichtel", "skirmish"])
def test_every_game_has_a_skill_sweep_from_random_to_ismcts(name):
    """Per set of rules (the skirmish: every scenario), the variants differ only by the policy every seat plays:
    random, greedy, mc, then ISMCTS budgets, each the game's recommended search (issue 24)."""
    plan = sweep.load(Path("configs") / f"{name}-skill.toml")
    game = plan.variants[0].config.game
    game_type = games.load(game).GAME
    levels = [str(agents.parse(text, game_type)) for text in
              ("random", "greedy", MC.get(game, "mc:rollouts=16"), "ismcts:iterations=100", "ismcts:iterations=1000")]
    rules = {}
    for v in plan.variants:
        rules.setdefault(json.dumps(v.config.params, sort_keys=True), []).append(v.config)
    for configs in rules.values():
        assert [c.policies for c in configs] == [[level] * c.players for level, c in zip(levels, configs, strict=True)]
    if game == "skirmish":
        assert sorted(json.loads(key)["scenario"] for key in rules) == sorted(games.load(game).SCENARIOS)
    else:
        assert len(rules) == 1


def test_the_report_shows_balance_and_length_per_skill_level(tmp_path):
    plan = sweep.load("configs/zwai-skill.toml", games=6)
    sweep.run(plan, tmp_path / "z")
    results = data.load_folder(tmp_path / "z")
    analysis = report.analyze(results)
    assert list(analysis.skill_levels.values()) == LEVELS
    table = str(report.skill_table(analysis)).splitlines()
    # each level by its agent and budget, and its whole spec in the legend under the table (issue 25, part 8)
    assert [row.split(" | ")[0].strip("| `") for row in table[2:]] == short_labels(LEVELS)
    assert report.skill_legend(analysis).splitlines() == [f"* {label}: `{spec}`" for label, spec in
                                                          zip(short_labels(LEVELS), LEVELS, strict=True)]
    path = report.write_report(results, tmp_path / "r.md")
    text = path.read_text()
    assert "## By skill level" in text and "r-plots/skill.png" in text
    assert (tmp_path / "r-plots" / "skill.png").stat().st_size > 1000
    # issue 25, part 7: the verdict says how the seat edge moves with skill, level by level
    sentence = next(line for line in text.splitlines() if line.startswith("**The seat edge with skill**"))
    for policy, name in zip(LEVELS, analysis.skill_levels, strict=True):
        assert f"`{policy}` seat {analysis.verdicts[name].worst_seat[0]} {analysis.verdicts[name].edge:+.3f}" \
            in sentence


def test_a_sweep_of_rules_is_not_read_as_skill_levels(tmp_path):
    (tmp_path / "f.toml").write_text('game = "zwai"\ngames = 50\nseed = 1\n[policies]\nall = "greedy"\n'
                                     '[axes]\nformation = ["square", "ring"]\n')
    sweep.run(sweep.load(tmp_path / "f.toml"), tmp_path / "f")
    analysis = report.analyze(data.load_folder(tmp_path / "f"))
    assert analysis.skill_levels == {}
    text = report.write_report(analysis.results, tmp_path / "r.md").read_text()
    assert "By skill level" not in text and "seat edge with skill" not in text
