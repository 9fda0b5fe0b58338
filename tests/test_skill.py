"""Balance by skill (issue 13): the configs/<game>-skill.toml sweeps and their section of the report."""

import json
import re
from pathlib import Path

import pytest

from analyses import data, report
from analyses.plots import short_labels
from analyses.skill import Strength, strength_sentence
from simcore import agents, games
from simcore.studies import strength, sweep

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
    unlinked = re.sub(r"\[([^]]+)\]\(#[^)]+\)", r"\1", text)        # a term's first use links the glossary
    sentence = next(line for line in unlinked.splitlines() if line.startswith("**The seat edge with skill**"))
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


RULES = json.dumps({"players": 3})


def contest(policy, against, score, pvalue, game="zwai", params=RULES, deals=200):
    """A contest record as ``simcore.studies.strength`` reads one."""
    return Strength(policy, against, game, params, deals, score, score - 0.05, score + 0.05, 0.5, pvalue, "F")


LEVELS2 = ["random", "greedy", "ismcts:iterations=100"]


@pytest.mark.parametrize("contests, says", [
    ([], "**The top level's strength is not measured**: nothing here shows `ismcts:iterations=100` stronger than "
         "`greedy`, the level below it, so the edge may still move with more skill (measure it: `simcore versus "
         "zwai --set players=3 --policy ismcts:iterations=100 --against greedy --out DIR`"),
    ([contest("ismcts:iterations=100", "greedy", 0.52, 0.4)],
     "**The top level, `ismcts:iterations=100`, is not shown stronger than `greedy`, the level below it**: the edge "
     "may still move with more skill."),
    ([contest("ismcts:iterations=100", "greedy", 0.61, 1e-6)], "The top level, `ismcts:iterations=100`, is shown "
                                                                "stronger than `greedy`, the level below it."),
    ([contest("greedy", "ismcts:iterations=100", 0.39, 1e-6)], "is shown stronger than `greedy`"),     # reversed
    ([contest("greedy", "ismcts:iterations=100", 0.61, 1e-6)], "is not shown stronger"),       # the lower won
    ([contest("ismcts:iterations=100", "greedy", 0.61, 1e-6, params=json.dumps({"players": 4}))], "not measured"),
    ([contest("ismcts:iterations=100", "random", 0.9, 1e-9)], "not measured"),       # not the level below the top
])
def test_the_skill_verdict_says_whether_the_top_level_is_stronger_than_the_one_below(contests, says):
    """Issue 38, item 6: the verdict of a skill sweep warns, unless a contest of the top level against the one
    below it (either way round, on the sweep's rules) shows it stronger, that the edge may still move with more
    skill; the contests between two levels are stated with their scores."""
    text = strength_sentence(LEVELS2, contests, "zwai", RULES)
    assert says in text
    for c in contests:
        mentioned = f"`{c.policy}` scores {c.score:.3f} [{c.low:.3f}, {c.high:.3f}] against `{c.against}`" in text
        assert mentioned == (c.params == RULES)


SKILL2 = 'game = "zwai"\ngames = 200\nseed = 1\n[axes]\npolicy = ["random", "greedy"]\n'


def test_analyze_reads_the_strength_of_the_levels_from_a_versus_folder(cli, tmp_path):
    """A two-level sweep (random, greedy) says the top level's strength is unmeasured; with `--strength` of a
    `simcore versus greedy --against random` folder it states greedy's score, which matches versus's own line, in
    the verdict and the report's skill table; a folder of another kind, or results that are no skill sweep, are
    one-line errors."""
    (tmp_path / "s.toml").write_text(SKILL2)
    assert cli("sweep", tmp_path / "s.toml", "--out", tmp_path / "s", "--quiet").returncode == 0
    alone = cli("analyze", tmp_path / "s")
    # the first screen's note says it, the verdict in full (--explain) says it with the command that measures it
    assert "skill: the top level's strength is not measured" in alone.stdout.replace("\n", " ")
    played = cli("versus", "zwai", "--policy", "greedy", "--against", "random", "--games", "100", "--out",
                 tmp_path / "v", "--quiet")
    assert played.returncode == 0, played.stderr
    score = played.stdout.split("score ")[1].split(" (fair")[0]            # 0.6900 [0.6410, 0.7390]
    value, low, high = (float(x.strip("[],")) for x in score.split())
    done = cli("analyze", tmp_path / "s", "--strength", tmp_path / "v", "--report", tmp_path / "r.md")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "edge: a share of the points" in text        # a contest's claim does not make the legend one of margins
    assert (f"skill: the top level is shown stronger than the level below it: greedy scores {value:.3f} "
            f"[{low:.3f}, {high:.3f}] against random") in text
    explained = cli("analyze", tmp_path / "s", "--strength", tmp_path / "v", "--explain").stdout.replace("\n", " ")
    assert f"greedy scores {value:.3f} [{low:.3f}, {high:.3f}] against random" in explained
    assert "The top level, greedy, is shown stronger than random, the level below it." in explained
    report = (tmp_path / "r.md").read_text()
    assert "| score in contests |" in report and f"| {value:.3f} [{low:.3f}, {high:.3f}] against random |" in report
    wrong = cli("analyze", tmp_path / "s", "--strength", tmp_path / "s")
    assert wrong.returncode != 0 and "not a folder of simcore versus --out or simcore ladder --out" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1
    (tmp_path / "f.toml").write_text('game = "zwai"\ngames = 50\nseed = 1\n[axes]\nformation = ["square", "ring"]\n')
    assert cli("sweep", tmp_path / "f.toml", "--out", tmp_path / "f", "--quiet").returncode == 0
    rules = cli("analyze", tmp_path / "f", "--strength", tmp_path / "v")
    assert rules.returncode != 0 and "--strength measures the levels of a skill sweep" in rules.stderr


def test_a_ladder_folder_holds_a_contest_per_rung(cli, tmp_path):
    """Every rung of `simcore ladder --out` is a contest of the larger budget against the smaller, read as the
    ladder scored it."""
    done = cli("ladder", "zwai", "--budgets", "2,4,8", "--games", "20", "--out", tmp_path / "l", "--quiet")
    assert done.returncode == 0, done.stderr
    rungs = strength.read(tmp_path / "l")
    assert [(s.policy.split(",")[0], s.against.split(",")[0]) for s in rungs] == [
        ("ismcts:iterations=4", "ismcts:iterations=2"), ("ismcts:iterations=8", "ismcts:iterations=4")]
    assert all(s.deals == 20 and s.fair == 0.5 and s.low <= s.score <= s.high for s in rungs)
    assert f"{rungs[0].score:.3f}" in done.stdout
