"""Test runs fitted to the room on real pytest outputs: every failing test id, each failure's first
``E`` line and its locations stay when the failures do not fit; under a budget the ceiling shows the
test ids and the summary first (``build.rank_lines``)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import FIXTURES
from operators.ceiling import CeilingSettings, fit, visible_size
from operators.reduction import omissions, render, restore
from operators.types import build

DATA = Path(__file__).parent / "data" / "types"
HEADER_RE = re.compile(rb"^_{3,} .* _{3,}$", re.M)


def config(max_chars: int):
    return type("C", (), {"ceiling": CeilingSettings(max_chars=max_chars)})()


def shown_of(plan):
    contents = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restore(visible, layout, [contents[g] for g in plan.reasons]) == plan.raw
    return visible


def failures(raw: bytes) -> list[list[bytes]]:
    """The lines of each failure block (from its ``____ name ____`` header to the next)."""
    blocks: list[list[bytes]] = []
    for line in raw.split(b"\n"):
        if HEADER_RE.match(line):
            blocks.append([])
        elif line.startswith(b"=") and blocks:
            break
        if blocks:
            blocks[-1].append(line)
    return blocks


def test_failures_over_the_room_keep_ids_first_e_lines_and_locations():
    raw = (FIXTURES / "pytest_tracebacks_tomli.txt").read_bytes()
    full = shown_of(build.reduce(raw, "coarse", config(100_000)))
    plan = build.reduce(raw, "coarse", config(8_000))
    visible = shown_of(plan)
    assert visible_size(plan) < len(full)
    lines = set(visible.split(b"\n"))
    blocks = failures(raw)
    assert len(blocks) == 14
    for block in blocks:
        assert block[0] in lines  # the failing test's header
        first_e = next(line for line in block if line.startswith(b"E "))
        assert first_e in lines
        for line in block:
            if re.match(rb"^\S+\.py:\d+: (?:in \w+|\w*Error)?$", line):
                assert line in lines, line  # each frame location
    assert b"14 failed, 16 passed, 730 subtests passed in 2.21s" in visible
    e_raw = len(re.findall(rb"^E ", raw, re.M))
    e_shown = len(re.findall(rb"^E ", visible, re.M))
    assert e_shown < e_raw and re.search(rb"^\[\d+ traceback lines?\]$", visible, re.M)


def test_failures_under_the_room_are_not_fitted():
    raw = (FIXTURES / "pytest_tracebacks_tomli.txt").read_bytes()
    assert shown_of(build.reduce(raw, "coarse", config(100_000))) == shown_of(build.reduce_build(raw, "coarse"))


def test_under_a_small_budget_the_ids_and_the_summary_come_first():
    raw = (DATA / "pytest_v_attrs_converters_fail.txt").read_bytes()
    plan = build.reduce(raw, "coarse", config(25_000))
    budget = 3_500
    assert visible_size(plan) > budget + 1_500
    visible = shown_of(fit(plan, budget, "build", config(25_000)))
    lines = set(visible.split(b"\n"))
    for line in raw.split(b"\n"):
        if line.startswith(b"FAILED ") or HEADER_RE.match(line):
            assert line in lines or line + b" (\xc3\x97" in visible, line
    assert b"collecting ... collected 318 items / 266 deselected / 52 selected" in visible
    assert b"================= 6 failed, 46 passed, 266 deselected in 5.10s =================" in visible


def test_rank_lines_orders_a_failure():
    lines = [
        b"______________ TestCountingAttr.test_converter_decorator[single] _______________",
        b"    def test_x(self):",
        b">       assert isinstance(a._converter, attr.Converter)",
        b"E       AttributeError: '_CountingAttr' object has no attribute '_converter'",
        b"E         - C(a: 42)",
        b"tests/test_make.py:177: AttributeError",
        b"FAILED tests/test_make.py::TestCountingAttr::test_converter_decorator[list]",
    ]
    ranked = build.rank_lines(lines, None)
    assert ranked[6] == (0, 0) and ranked[0] == (0, 1)  # the short summary's id before the failure's header
    assert ranked[3] == (0, 2) and ranked[5] == (0, 2)
    assert ranked[2] == (1, 0) and ranked[4] == (0, 3)  # (an E line is a signal line)
