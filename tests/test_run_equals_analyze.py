"""`tokens run -- CMD` prints what `tokens analyze` prints for the same bytes (the closing hint aside).

A command that completes is one window reduced with the run's own budget, so an agent that wraps a
command sees exactly the view `analyze` gives: checked over every bundled fixture (ref and packet ids
differ only because the source names differ), at the default budget and at a small one.
"""

from __future__ import annotations

import re

import pytest

from conftest import FIXTURES, run_cli
from operators.sources import fixture_paths

IDS = re.compile(rb"(ctx|pkt)_[0-9a-f]{6,64}")
HINT = re.compile(rb"\[refs: tokens expand [^\n]*\]\n\Z")
CASES = fixture_paths()


def _same_shape(text: bytes) -> bytes:
    return IDS.sub(rb"\1_X", text)


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_run_prints_what_analyze_prints(capsysbinary, path):
    code, analyzed, _ = run_cli(capsysbinary, "analyze", str(path))
    assert code == 0
    code, ran, _ = run_cli(capsysbinary, "run", "--", "cat", str(path))
    assert code == 0
    hinted = HINT.search(ran)
    ran = HINT.sub(b"", ran)
    if hinted and ran.endswith(b"\n") and not analyzed.endswith(b"\n"):
        ran = ran[:-1]  # the hint starts on a line of its own
    assert _same_shape(ran) == _same_shape(analyzed)


@pytest.mark.parametrize("name", ["git_log_p.txt", "pytest_tracebacks_tomli.txt", "rg_common.txt"])
def test_run_and_analyze_agree_under_a_small_budget(capsysbinary, name):
    path = FIXTURES / name
    _, analyzed, _ = run_cli(capsysbinary, "analyze", "--budget", "1500", str(path))
    _, ran, _ = run_cli(capsysbinary, "run", "--budget", "1500", "--", "cat", str(path))
    assert len(analyzed) <= 1500 * 4
    assert _same_shape(HINT.sub(b"", ran)) == _same_shape(analyzed)
