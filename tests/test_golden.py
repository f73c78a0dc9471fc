"""Golden outputs: the reduced text (level 1, default config) of every bundled fixture, stored under
fixtures/golden/ and compared byte for byte, so any change in what a reducer shows is seen here.

``<fixture>.reduced`` is the coarse text; a log fixture also has ``<fixture>.fine.reduced``. Ref and
packet ids are normalised (``#ref:ctx_…``, ``pkt_…``) so a change in how ids are made does not show
as a change in every text. After an intended change: ``pytest tests/test_golden.py --update-golden``,
then read the diff of fixtures/golden/ before committing it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import run_cli
from operators.sources import FIXTURES, file_packets, fixture_paths

GOLDEN = FIXTURES / "golden"
UPDATE = "--update-golden"
IDS = ((re.compile(rb"#ref:ctx_[0-9a-f]+"), "#ref:ctx_…".encode()), (re.compile(rb"pkt_[0-9a-f]+"), "pkt_…".encode()))

# (fixture, granularity) exactly as the main job reads them: logs at both granularities
CASES = [(Path(p.path or p.source).name, p.granularity) for p in file_packets(fixture_paths(), both_for_logs=True)]


def golden_name(fixture: str, granularity: str) -> str:
    return f"{fixture}.reduced" if granularity == "coarse" else f"{fixture}.{granularity}.reduced"


def normalised(text: bytes) -> bytes:
    for pattern, stable in IDS:
        text = pattern.sub(stable, text)
    return text


@pytest.mark.parametrize(("fixture", "granularity"), CASES, ids=[golden_name(*case) for case in CASES])
def test_the_reduced_text_is_the_golden_one(capsysbinary, request, fixture, granularity):
    code, out, err = run_cli(capsysbinary, "analyze", str(FIXTURES / fixture), "--granularity", granularity,
                             "--level", "1")
    assert code == 0, err.decode(errors="replace")
    text = normalised(out)
    golden = GOLDEN / golden_name(fixture, granularity)
    if request.config.getoption(UPDATE):
        GOLDEN.mkdir(exist_ok=True)
        golden.write_bytes(text)
    assert golden.is_file(), f"no golden file {golden.relative_to(FIXTURES.parent)}: create it with " \
                             f"`pytest tests/test_golden.py {UPDATE}` (and read it before committing)"
    assert text == golden.read_bytes(), f"{fixture} ({granularity}) reduces differently from " \
                                        f"{golden.name}; if the change is intended: pytest tests/test_golden.py {UPDATE}"


def test_every_golden_file_belongs_to_a_fixture(request):
    expected = {golden_name(*case) for case in CASES}
    stale = sorted(p.name for p in GOLDEN.iterdir() if p.name not in expected) if GOLDEN.is_dir() else []
    if request.config.getoption(UPDATE):
        for name in stale:
            (GOLDEN / name).unlink()
        stale = []
    assert not stale, f"golden files without a fixture: {stale}; remove them ({UPDATE} does)"
