"""What the Python API, config files and sweeps take from a hostile tester (issue 36): one line, never a traceback
or a hang; numpy's numbers as Python's; every value of a parameter a sweep can name."""

import os

import numpy as np
import pytest

import simcore
from simcore.io import config as cfg
from simcore.studies import sweep


def one_line(error):
    text = str(error.value)
    assert "\n" not in text, text
    return text


# --- simcore.simulate ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("arguments, message", [
    ({"params": [("players", 3)]}, "params = [('players', 3)] is not allowed; allowed: a dict of parameter names "
                                   "to values"),
    ({"params": "x"}, "params = 'x' is not allowed; allowed: a dict of parameter names to values"),
    ({"policies": ["greedy"]}, "policies = ['greedy'] is not allowed; allowed: a dict of \"*\" or seat numbers to "
                               "policy specs"),
])
def test_simulate_refuses_params_and_policies_that_are_not_dicts(arguments, message):
    """Issue 36: simcore.simulate("zwai", params=[...]), params="x" or policies=[...] raised AttributeError ('list'
    object has no attribute 'items'); one line saying what they must be."""
    with pytest.raises(cfg.ConfigError) as refused:
        simcore.simulate("zwai", games=10, **arguments)
    assert one_line(refused) == message


def test_simulate_takes_numpy_integers_as_games_seed_and_values():
    """Issue 36: simulate("zwai", games=np.int64(10), params={"players": np.int64(3)}) was refused with "allowed:
    an integer"; numpy's integers are the Python integers they stand for, the same games."""
    table = simcore.simulate("zwai", games=np.int64(10), seed=np.uint64(4), params={"players": np.int64(3)},
                             policies={np.int64(1): "random"})
    assert table.num_rows == 10
    assert table.equals(simcore.simulate("zwai", games=10, seed=4, params={"players": 3}, policies={1: "random"}))


# --- config values ------------------------------------------------------------------------------------------

def test_numpy_scalars_are_config_values_as_their_python_equivalents():
    """Issue 36: a numpy integer, float or bool as a parameter value (alone or in a list) was refused, or kept as
    numpy's, whose repr (np.float64(2.5)) broke the resolved config's TOML; each is now its Python value."""
    numpy_sets = [("max_range", np.int64(4)), ("hit_scale", np.float64(2.5)), ("ace_high", np.bool_(True)),
                  ("hit_p0", np.float32(0.5))]
    python_sets = [("max_range", 4), ("hit_scale", 2.5), ("ace_high", True), ("hit_p0", 0.5)]
    numpy_run = cfg.resolve("skirmish", sets=numpy_sets, games=np.int32(10), seed=np.int64(3))
    python_run = cfg.resolve("skirmish", sets=python_sets, games=10, seed=3)
    assert numpy_run.to_toml() == python_run.to_toml()
    assert [type(numpy_run.params[k]) for k, _ in python_sets] == [int, float, bool, float]
    counts = cfg.resolve("zwai", sets=[("fish_counts", list(np.array([4, 6, 6, 4, 3])))])
    assert counts.params["fish_counts"] == [4, 6, 6, 4, 3] and "fish_counts = [4, 6, 6, 4, 3]" in counts.to_toml()


@pytest.mark.parametrize("name, value, allowed", [
    ("ace_high", np.int64(1), "true or false"),
    ("max_range", np.float64(4.0), "an integer from"),
    ("max_range", np.bool_(True), "an integer from"),
])
def test_numpy_scalars_of_the_wrong_kind_are_still_refused(name, value, allowed):
    """Issue 36: a numpy value counts as its Python equivalent, no more: np.int64(1) is no bool, np.float64(4.0)
    and np.bool_(True) are no integers; the message shows the value as a config would (it showed np.int64(1))."""
    with pytest.raises(cfg.ConfigError) as refused:
        cfg.resolve("skirmish", sets=[(name, value)])
    assert f"parameter {name} = {value.item()!r} is not allowed; allowed: {allowed}" in one_line(refused)


# --- config, sweep and tune files ---------------------------------------------------------------------------

def _huge(tmp_path):
    """A valid config, padded with comments to 2 MB."""
    path = tmp_path / "huge.toml"
    path.write_text('game = "zwai"\n' + "# padding\n" * 200_000)
    return path


def _fifo(tmp_path):
    """A named pipe nobody writes to: opening it to read would wait for a writer forever."""
    path = tmp_path / "pipe.toml"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("command", ["run", "sweep", "tune"])
@pytest.mark.parametrize("source, message", [
    (lambda tmp_path: "/dev/zero", "/dev/zero is not a regular file; allowed: a TOML file up to 1 MB"),
    (_fifo, "pipe.toml is not a regular file; allowed: a TOML file up to 1 MB"),
    (_huge, "huge.toml is larger than 1 MB; allowed: a TOML file up to 1 MB"),
], ids=["dev-zero", "fifo", "2-MB"])
def test_a_config_sweep_or_tune_file_that_is_no_small_regular_file_is_one_line(cli, tmp_path, command, source,
                                                                              message):
    """Issue 36: a config, sweep or tune file that is /dev/zero was read forever (a pipe waited forever, a 2 MB
    file was read whole); refused in one line, nothing written."""
    path = source(tmp_path)
    out = tmp_path / "out"
    args = {"run": ["run", "--config", path, "--games", "10", "--out", out],
            "sweep": ["sweep", path, "--out", out], "tune": ["tune", path, "--out", out]}[command]
    done = cli(*args)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr
    assert not out.exists()


# --- the names sweeps derive --------------------------------------------------------------------------------

def test_derived_names_are_valid_for_every_value_and_unchanged_where_they_were_valid():
    """Issue 36: 1e300 (hit_scale=1e+300) and lists of strings (bribe_ranking='2'-'3'-...) gave variant names the
    load refused; now 1e300 is shown without its '+', what does not fit is hashed, distinct values have distinct
    names, and every name that was valid is as it was (a sweep folder resumes by its variants' names)."""
    assert [sweep.derived_name(over) for over in [
        {"players": 3}, {"values.FA": -3}, {"hit_scale": 0.5}, {"hit_scale": 1e-05}, {"hit_p0": -1.5},
        {"pro": True, "shark_moves_on_tie": False}, {"formation": "ring"}, {"formation": "#.#\n###"},
        {"policy": "ismcts:iterations=100,c=0.7,rollout=greedy"}, {"fish_counts": [4, 6, 6, 4, 3]},
        {"deck.add": 6, "hand_size_4": 6}, {"hit_scale": float("inf")}]] == [
        "players=3", "FA=-3", "hit_scale=0.5", "hit_scale=1e-05", "hit_p0=-1.5", "pro=true,shark_moves_on_tie=false",
        "formation=ring", "formation=bfcf9d", "policy=ismcts-iterations=100-c=0.7-rollout=greedy",
        "fish_counts=4-6-6-4-3", "add=6,hand_size_4=6", "hit_scale=inf"]
    assert sweep.derived_name({"hit_scale": 1e300, "hit_p0": 0.5}) == "hit_scale=1e300,hit_p0=0.5"
    rankings = [["2", "3", "4", "5", "ich", "der", "6"], ["2", "3", "4", "5", "der", "ich", "6"], ["2", "3"],
                [[1, 2], "x"], [{"a": 1}]]
    names = [sweep.derived_name({"bribe_ranking": ranking}) for ranking in rankings]
    assert len(set(names)) == len(names)
    assert all(sweep._NAME.match(name) and name.startswith("bribe_ranking=") for name in names), names


def _write(tmp_path, text):
    path = tmp_path / "sweep.toml"
    path.write_text(text)
    return path


def test_a_sweep_over_huge_floats_loads_with_distinct_names(tmp_path):
    """Issue 36: an [axes] sweep over hit_scale = [1e300] failed with "variant name 'hit_scale=1e+300' is not
    allowed", a name the user never wrote."""
    plan = sweep.load(_write(tmp_path, 'game = "skirmish"\n[axes]\nhit_scale = [1e300, 1e299, 6.0]\n'))
    assert [v.name for v in plan.variants] == ["hit_scale=1e300", "hit_scale=1e299", "hit_scale=6.0"]
    assert [v.config.params["hit_scale"] for v in plan.variants] == [1e300, 1e299, 6.0]


def test_a_sweep_over_a_list_valued_parameter_loads_with_distinct_names(tmp_path):
    """Issue 36: an [axes] sweep over Der Herr der Wichtel's bribe_ranking failed with "variant name
    "bribe_ranking='2'-'3'-..." is not allowed"."""
    plan = sweep.load(_write(tmp_path, 'game = "wichtel"\n[axes]\nbribe_ranking = [["2", "3", "4", "5", "ich", "der", '
                                       '"6"], ["2", "3", "4", "5", "der", "ich", "6"]]\nplayers = [3, 5]\n'))
    rankings = [v.config.params["bribe_ranking"] for v in plan.variants]
    assert rankings == [["2", "3", "4", "5", "ich", "der", "6"]] * 2 + [["2", "3", "4", "5", "der", "ich", "6"]] * 2
    names = [v.name.split(",") for v in plan.variants]
    assert [players for _, players in names] == ["players=3", "players=5"] * 2
    assert names[0][0] == names[1][0] != names[2][0] == names[3][0]
    assert all(sweep._NAME.match(v.name) for v in plan.variants), names


def test_an_axis_that_is_no_parameter_is_named_as_such(tmp_path):
    """Issue 36: an axis "max range" was refused as "variant name 'max range=3' is not allowed", a name the user
    never wrote, instead of as the unknown parameter it is."""
    with pytest.raises(cfg.ConfigError) as refused:
        sweep.load(_write(tmp_path, 'game = "skirmish"\n[axes]\n"max range" = [3]\n'))
    assert "unknown parameter of skirmish 'max range' (did you mean 'max_range'?)" in one_line(refused)


def test_a_long_derived_name_is_shortened_to_fit_the_file_system(tmp_path):
    """Issue 36: a name derived from many axes could pass the file system's 255 bytes once the temporary and lock
    names are made from it. It keeps its beginning and ends in a hash of the whole; shorter names are unchanged."""
    many = {f"deck.card_{k:02d}": k for k in range(30)}
    name = sweep.derived_name(many)
    assert len(name) == sweep.MAX_NAME and name.startswith("card_00=0,card_01=1,")
    other = sweep.derived_name({**many, "deck.card_29": 99})
    assert other != name and len(other) == sweep.MAX_NAME
    assert sweep.derived_name({"players": 3}) == "players=3"
    path = tmp_path / "s.toml"
    path.write_text('game = "goofspiel"\n[[variants]]\nname = "' + "x" * 200 + '"\n')
    with pytest.raises(cfg.ConfigError, match="allowed: up to 160 letters"):
        sweep.load(path)
