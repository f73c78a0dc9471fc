"""Diagnostics on real outputs (tests/data/types): under the output ceiling every diagnostic line stays
as the tool printed it (only snippets, carets and notes fold); over it, rules fold until the view fits,
each rule keeping its first line; javac keeps its symbol/location lines."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from operators.ceiling import CeilingSettings, visible_size
from operators.classify import classify
from operators.reduction import omissions, render, restores_to
from operators.types import diagnostics

DATA = Path(__file__).parent / "data" / "types"


def data(name: str) -> bytes:
    raw = (DATA / name).read_bytes()
    return gzip.decompress(raw) if name.endswith(".gz") else raw


def config(max_chars: int = 25_000, **settings):
    return type("C", (), {"diagnostics": diagnostics.Settings(**settings),
                          "ceiling": CeilingSettings(max_chars=max_chars)})()


def reduced(raw: bytes, conf=None):
    plan = diagnostics.reduce(raw, "coarse", conf or config())
    refs = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restores_to(raw, visible, layout, [refs[g] for g in plan.reasons])
    return plan, visible, {ids[g]: bytes(refs[g]) for g in plan.reasons}


def test_mypy_strict_keeps_every_error_line_as_printed_and_folds_the_notes():
    raw = data("mypy_strict_typer_tests.txt")
    assert classify(raw)[0] == "diagnostics"
    errors = re.findall(rb"^\S+:\d+: error: .*$", raw, re.M)
    notes = re.findall(rb"^\S+:\d+: note: .*$", raw, re.M)
    assert len(errors) == 129 and len(notes) >= 50
    # the same message at many places: each place keeps its whole line
    assert raw.count(b": error: Function is missing a return type annotation  [no-untyped-def]") == 58
    _, visible, refs = reduced(raw)
    shown = visible.split(b"\n")
    assert [e for e in errors if e not in shown] == []
    assert b": note: " not in visible
    assert sum(r.count(b": note: ") for r in refs.values()) == len(notes)
    assert b"Found 129 errors in 17 files (checked 7 source files)" in visible


def test_javac_keeps_the_error_its_source_line_and_symbol_and_location_lines():
    raw = data("javac_gson_stream_fail.txt")
    assert classify(raw)[0] == "diagnostics"
    _, visible, refs = reduced(raw, config(max_chars=40_000))  # (25 KB: under this ceiling)
    shown = visible.split(b"\n")
    heads = re.findall(rb"^\S+\.java:\d+: (?:error|warning): .*$", raw, re.M)
    assert len(heads) == 100
    assert [h for h in heads if h not in shown] == []
    for kind in (b"symbol:", b"location:"):
        lines = re.findall(rb"^  " + kind + rb" .*$", raw, re.M)
        assert lines and [x for x in lines if x not in shown] == []
    assert b"import com.google.gson.internal.JsonReaderInternalAccess;" in shown  # the source line
    carets = re.findall(rb"^ *\^$", raw, re.M)
    assert len(carets) >= 90 and not re.search(rb"^ *\^$", visible, re.M)  # carets fold ...
    assert sum(len(re.findall(rb"^ *\^$", r, re.M)) for r in refs.values()) == len(carets)  # ... into a ref
    assert b"only showing the first 100 errors, of 307 total" in visible


def test_ruff_over_the_ceiling_fits_itself_and_each_rule_keeps_its_first_line():
    raw = data("ruff_all_concise_typer.txt.gz")
    lines = re.findall(rb"^(\S+:\d+:\d+): ([A-Z]+\d+) .*$", raw, re.M)
    assert len(lines) == 564 and len(raw) > 40_000
    conf = config()
    plan, visible, refs = reduced(raw, conf)
    assert visible_size(plan) <= 25_000 * conf.diagnostics.room_share
    shown = set(visible.split(b"\n"))
    first: dict[bytes, bytes] = {}
    for line in raw.split(b"\n"):
        m = re.match(rb"^\S+:\d+:\d+: ([A-Z]+\d+) ", line)
        if m:
            first.setdefault(m.group(1), line)
    assert [line for line in first.values() if line not in shown] == []
    # a folded rule names its count, and its ref holds exactly its other lines
    m = re.search(rb"^\[(\w+) \xc3\x97(\d+) more \(.*; exact lines: #ref:(ctx_\w+)\]$", visible, re.M)
    assert m and refs[m.group(3).decode()].count(b": " + m.group(1) + b" ") == int(m.group(2))
    assert b"Found 564 errors." in visible


def test_ruff_under_a_larger_ceiling_shows_every_line_as_printed():
    raw = data("ruff_all_concise_typer.txt.gz")
    plan, visible, _ = reduced(raw, config(max_chars=60_000))
    assert visible == raw and not plan.omits_anything


def test_locations_of_a_folded_rule_are_spread_over_the_rule():
    raw = data("ruff_all_concise_typer.txt.gz")
    plan, visible, _ = reduced(raw, config(max_chars=20_000))
    assert visible_size(plan) <= 18_000
    m = re.search(rb"^\[COM812 \xc3\x97(\d+) more \(.*?\): (.*?) and ([\d,]+) more places; exact", visible, re.M)
    assert m, visible[:2000]
    listed = m.group(2).split(b" ")
    assert len(listed) >= 3
    places = re.findall(rb"^(\S+:\d+:\d+): COM812 ", raw, re.M)
    assert len(listed) + int(m.group(3).replace(b",", b"")) == int(m.group(1)) == len(places) - 1
    assert listed[-1] == places[-1]  # the last place of the rule is listed, not only the first ones


def test_javac_over_the_ceiling_folds_its_most_frequent_message_and_keeps_the_others():
    raw = data("javac_gson_stream_fail.txt")
    plan, visible, _ = reduced(raw, config(max_chars=20_000))
    assert visible_size(plan) <= 18_000
    shown = visible.split(b"\n")
    heads = re.findall(rb"^\S+\.java:\d+: (?:error|warning): (.*)$", raw, re.M)
    for message in set(heads):  # each distinct message keeps a line as printed
        assert any(line.endswith(b": " + message) for line in shown), message
    assert re.search(rb"^\[error: cannot find symbol \xc3\x97\d+ more ", visible, re.M)


def test_rank_puts_rule_code_lines_without_a_severity_first():
    line = b"typer/utils.py:189:68: COM812 [*] Trailing comma missing"
    assert diagnostics.tier(line, line, None) == (0, 3)
    assert diagnostics.tier(b"src/a.py:3: error: Name 'x' is not defined  [name-defined]",
                            b"src/a.py:3: error: Name 'x' is not defined  [name-defined]", None) == (0, 1)
    assert diagnostics.tier(b"src/a.py:3:1: some text", b"src/a.py:3:1: some text", None) == (1, 0)


def test_rank_puts_the_place_a_message_points_at_and_eslint_file_headers_with_the_messages():
    """ruff's/rustc's `--> path:line:col` and eslint's file header name where a message is: they rank
    with the messages (tier 0), not as context that a cut drops first."""
    for line in (b"   --> pydantic/_internal/_config.py:84:121", b"/srv/app/src/v4/core/api.ts",
                 b"src\\lib\\index.js"):
        assert diagnostics.tier(line, line, None) == (0, 3), line
    for line in (b"Found 3 errors.", b"  help: remove this"):
        assert diagnostics.tier(line, line, None) != (0, 3), line
