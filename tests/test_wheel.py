"""Installable like any Python package: the wheel works from any folder (docs/how-to/install.md).

The wheel is built from this checkout and installed into a fresh virtual environment that borrows the
already installed dependencies (numba, numpy, ...) through a ``.pth`` line, so nothing is downloaded.
"""

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _site_packages(prefix):
    return Path(sysconfig.get_path("purelib", vars={"base": str(prefix), "platbase": str(prefix)}))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--wheel-dir", dist, REPO], check=True, capture_output=True)
    return next(dist.glob("simcore-*.whl"))


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """(python, simcore command, environment variables) of a fresh environment with only the wheel installed."""
    prefix = tmp_path_factory.mktemp("env")
    venv.create(prefix, with_pip=True)
    python = prefix / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", wheel], check=True,
                   capture_output=True)
    # the dependencies come from this environment; its own simcore (an editable install) does not come along,
    # because a path added by a .pth line does not run the .pth files inside it
    (_site_packages(prefix) / "borrowed-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path_factory.mktemp("cache"))}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("PYTHONPATH", None)
    return python, prefix / "bin" / "simcore", env


def _run(args, env, cwd):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=env, cwd=cwd)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_wheel_installs_simcore_and_analyses_only_with_the_shipped_maps(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    packages = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert packages == {"simcore", "analyses"}
    assert {"simcore/data/formations.toml", "simcore/data/yards.toml"} <= set(names)
    # the rules as simulated ship with their games (simcore rules GAME), the files themselves, not links
    from simcore import games as registry

    for name in registry.names():
        shipped = zipfile.ZipFile(wheel).read(f"simcore/games/{name}/rules.md").decode()
        assert shipped == registry.rules_text(name) and shipped.startswith("# ")


def test_installed_package_is_the_wheel_not_the_checkout(installed, tmp_path):
    python, _, env = installed
    where = _run([python, "-c", "import simcore, analyses; print(simcore.__file__); print(analyses.__file__)"],
                 env, tmp_path)
    assert all(str(REPO) not in line for line in where.splitlines()), where
    # the benchmark references stay in the repository: bench says so instead of failing
    assert _run([python, "-c", "from simcore.studies import bench; print(bench.reference_module('zwai'))"],
                env, tmp_path).strip() == "None"


def test_commands_work_from_any_folder(installed, tmp_path):
    python, simcore, env = installed
    assert "ring:" in _run([simcore, "formations"], env, tmp_path)
    assert "default:" in _run([simcore, "yards"], env, tmp_path)
    assert "zwai:" in _run([python, "-m", "simcore", "games"], env, tmp_path)
    assert _run([simcore, "rules", "zwai"], env, tmp_path) == (REPO / "docs" / "zwai.md").read_text()
    # a run compiles the game from the wheel's source into an empty cache: Goofspiel compiles fastest
    # (the shipped maps are read above, by formations and yards)
    out = _run([simcore, "run", "goofspiel", "--games", "500", "--out", "g.parquet"], env, tmp_path)
    assert "wrote g.parquet" in out
    import pyarrow.parquet as pq

    assert pq.read_table(tmp_path / "g.parquet").num_rows == 500
    assert "numba cache:" in _run([simcore, "cache"], env, tmp_path)
