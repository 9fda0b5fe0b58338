"""Golden playthroughs: a few recorded games of every game, so that rows changed by accident fail loudly.

For each game and case (parameters and policies) the file ``tests/golden.json`` holds the SHA-256 of the engine's
rows for the first games of the seed, and the actions of the first game as the replay plays it, together with
the game's ``rules_version``. A rule changed on purpose bumps ``GAME.rules_version`` and writes the file again:

    python tests/golden.py --write
"""

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from simcore import engine, games
from simcore.io import config as cfg
from simcore.watch import replay

FILE = Path(__file__).with_name("golden.json")
GAMES = 40            # rows hashed per case
# the plain search spelled out, whatever a game now recommends for plain "ismcts": the rows recorded before
# the recommendations existed
SEARCH = [("all", "greedy"), ("0", "ismcts:iterations=20,rollout=random,cutoff=0,widen=0,tree=raw"),
          ("1", "mc:rollouts=2")]
OBSERVED = [("all", "greedy"), ("0", "ismcts:iterations=20,tree=observed"), ("1", "ismcts:iterations=10")]
CASES = {             # per game: case name -> (parameters, policies)
    "zwergen": {"default": ((), [("all", "random")]), "4p pro greedy": ((("players", 4), ("pro", True)),
                                                                      [("all", "greedy")]),
                "search": ((), SEARCH), "observed search": ((), OBSERVED)},
    "zwai": {"default": ((), [("all", "random")]), "3p ring greedy": ((("players", 3), ("formation", "ring")),
                                                                     [("all", "greedy")]),
             "search": ((), SEARCH)},
    "wichtel": {"default": ((), [("all", "random")]), "5p greedy": ((("players", 5),), [("all", "greedy")]),
                "search": ((), SEARCH), "observed search": ((), OBSERVED)},
    "skirmish": {"default": ((), [("all", "random")]),
                 "capture the flag greedy": ((("scenario", "capture_the_flag"),), [("all", "greedy")]),
                 "search": ((), SEARCH)},   # last man standing: wizard war with mc seats plays for 40 s
    "goofspiel": {"default": ((), [("all", "random")]),
                  "4p descending greedy": ((("players", 4), ("points_order", "descending"), ("num_cards", 9)),
                                           [("all", "random"), ("1", "greedy")]),
                  "search": ((("returns_type", "point_difference"),), SEARCH),
                  "observed search": ((("players", 3),), OBSERVED)},
}


def case_config(game, params, policies, games=GAMES):
    return cfg.resolve(game, sets=list(params), policies=policies, games=games, seed=7)


def record(game, params, policies):
    """What a case records: the hash of its rows and the actions of its first game."""
    run = case_config(game, params, policies)
    rows = engine.run(run.module, run.params_array(), run.policies_array(), run.seed, run.games)
    digest = hashlib.sha256(np.ascontiguousarray(rows, dtype=np.int64).tobytes()).hexdigest()
    actions = [d.action for d in replay.play(run, 0).decisions]
    return {"rows_sha256": digest, "games": run.games, "first_game_actions": actions}


def recorded():
    """{game: {"rules_version": v, "cases": {case: record}}} for every game of the registry."""
    return {game: {"rules_version": games.load(game).GAME.rules_version,
                   "cases": {name: record(game, *case) for name, case in CASES[game].items()}}
            for game in games.names()}


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/golden.py --write")
    FILE.write_text(json.dumps(recorded(), indent=1) + "\n")
    print(f"wrote {FILE}")
