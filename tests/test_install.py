"""An installed package (not the checkout) works from another directory: the bundled fixtures and the
default config travel with it, and nothing is written in the working directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import PROJECT


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    target = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
         str(target), str(PROJECT)], capture_output=True, timeout=600)
    if result.returncode != 0:
        pytest.fail(result.stderr.decode()[-2000:])
    return target


def _run(installed, cwd, *args):
    env = {**os.environ, "PYTHONPATH": str(installed)}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, timeout=300)


def test_the_installed_package_is_the_one_imported(installed, tmp_path):
    result = _run(installed, tmp_path, "-c", "import operators.config as c; print(c.__file__, c.IN_CHECKOUT)")
    assert result.stdout.decode().split() == [str(installed / "operators" / "config.py"), "False"]


def test_benchmark_and_the_main_job_work_from_another_directory(installed, tmp_path, home):
    work = tmp_path / "elsewhere"
    work.mkdir()
    bench = _run(installed, work, "-m", "flows.cli", "benchmark", "--json")
    assert bench.returncode == 0, bench.stderr.decode()[-2000:]
    checkout_rows = subprocess.run([sys.executable, "-m", "flows.cli", "benchmark", "--json"], cwd=PROJECT,
                                   capture_output=True, timeout=300).stdout
    assert bench.stdout == checkout_rows  # same fixtures, same names, same refs, same figures
    job = _run(installed, work, "-m", "bytewax.run", "flows.reduce")
    assert job.returncode == 0, job.stderr.decode()[-2000:]
    assert job.stdout.count(b"RESTORE PASS") == len(json.loads(bench.stdout))  # a row per fixture (two per log)
    assert list(work.iterdir()) == []
