"""The text type (operators/types/text.py): whitespace normalised, runs of identical lines and blocks fold,
linear on huge lines; byte-exact restore."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from conftest import examples, FIXTURES, reduce_alone
from operators.classify import classify
from operators.config import Config
from operators.reduction import omissions, render
from operators.signals import load_sidecar
from operators.types import text

SIGNALS = load_sidecar(FIXTURES / "signals.toml")


def run(reducer, raw: bytes, config: Config | None = None):
    alone = reduce_alone(reducer, raw, config or Config())
    return alone.plan, alone.visible


# --- text ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_text():
    raw = (FIXTURES / "sample.txt").read_bytes()
    plan, visible = run(text, raw)
    return raw, plan, visible


def normalised(raw: bytes) -> list[bytes]:
    """What whitespace normalisation means, spelled out line by line."""
    out: list[bytes] = []
    for line in raw.split(b"\n"):
        line = line.rstrip(b" \t")
        if line == b"" and out and out[-1] == b"":
            continue
        out.append(line)
    return out


def test_text_fixture_is_classified_as_text(sample_text):
    assert classify(sample_text[0])[0] == "document"  # a README: the text reducer is what a document's level 1 is
    assert classify((FIXTURES / "git_help.txt").read_bytes())[0] == "text"


def test_text_fixture_normalises_whitespace_only(sample_text):
    raw, plan, visible = sample_text
    body, _, marker = visible.rstrip(b"\n").rpartition(b"\n")
    assert marker.startswith(b"[whitespace normalised") and marker.endswith(b"#ref:ctx_000000]")
    assert body.split(b"\n") == normalised(raw)
    assert list(plan.reasons) == ["whitespace"]
    assert set(omissions(plan)["whitespace"]) <= set(b" \t\n")
    assert [s for s in SIGNALS["sample.txt"] if s.encode() not in visible] == []


def test_text_with_nothing_to_normalise_passes_through():
    raw = b"".join(b"# Title %d\n\nA paragraph of text %d.\nAnother line.\n\n## Section\n\nMore words here.\n" % (i, i)
                   for i in range(20))
    plan, visible = run(text, raw)
    assert visible == raw and not plan.reasons


def test_text_crlf_keeps_line_endings():
    raw = b"".join(b"line %d with trailing  \t \r\n" % i for i in range(60)) + b"\r\n\r\n\r\n  \r\nend"
    plan, visible = run(text, raw)
    assert b"line 3 with trailing\r\nline 4" in visible
    assert b"line 59 with trailing\r\n\r\nend" in visible
    assert b" \r\n" not in visible and b"\t" not in visible


def test_text_no_final_newline_invalid_utf8_and_nul():
    raw = b"\xff\xfe caf\xe9  \n\x00\x00 \t\n\n\n\n" * 30 + b"last \xc3( line   "
    plan, visible = run(text, raw)
    assert b"last \xc3( line\n[whitespace normalised" in visible
    # the first copy normalised, the 29 identical copies after it folded into one line
    assert visible.startswith(b"\xff\xfe caf\xe9\n\x00\x00\n\n[the 5 lines above \xc3\x9730]\nlast")
    assert b"[29 repeated copies folded" in visible


def test_text_folds_runs_of_identical_lines_and_blocks_and_restores():
    from operators.reduction import restores_to

    raw = (b"start\n" + b"Compiling module\n" * 2000 + b"middle\n" + b"  at frame a\n  at frame b\n  at frame c\n" * 40
           + b"ERROR same failure\n" * 3 + b"end")
    plan, visible = run(text, raw)
    lines = visible.split(b"\n")
    assert lines[:3] == [b"start", b"Compiling module \xc3\x972000", b"middle"]
    assert lines[3:7] == [b"  at frame a", b"  at frame b", b"  at frame c", b"[the 3 lines above \xc3\x9740]"]
    assert lines[7:9] == [b"ERROR same failure \xc3\x973", b"end"]
    assert b"[2,040 repeated copies folded" in visible
    contents = omissions(plan)
    assert contents["repeats"] == b"Compiling module\n" * 1999 + b"  at frame a\n  at frame b\n  at frame c\n" * 39 + b"ERROR same failure\n" * 2
    visible_, layout, _ = render(plan, {g: "ctx_%06x" % i for i, g in enumerate(plan.reasons)})
    assert restores_to(raw, visible_, layout, list(contents.values()))


def test_text_repeat_folding_stays_linear_on_one_huge_line():
    raw = b"x" * 5_000_000  # no newline: nothing to compare, and no regex backtracking over it
    plan, visible = run(text, raw)
    assert visible == raw


@pytest.mark.parametrize("seed", range(15))
def test_text_odd_input_never_raises(seed):
    rng = random.Random(seed)
    pieces = [b" ", b"\t", b"\n", b"\r", b"\r\n", b"x", b"\xff", b"\x00", b"  \n\n\n"]
    run(text, b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 600))))


def cuts_line_by_line(raw: bytes) -> tuple[list[tuple[int, int]], int, int]:
    """The text reducer's cuts spelled out one line at a time (the definition ``text.cuts_of`` must meet)."""
    cuts: list[tuple[int, int]] = []
    trailing = blank = 0
    prev_blank = False
    pos, n = 0, len(raw)
    while pos < n:
        nl = raw.find(b"\n", pos)
        end = n if nl < 0 else nl + 1
        body_end = n if nl < 0 else nl
        if body_end > pos and raw[body_end - 1] == 0x0D:  # CR of CRLF belongs to the ending
            body_end -= 1
        content_end = body_end
        while content_end > pos and raw[content_end - 1] in (0x20, 0x09):
            content_end -= 1
        is_blank = content_end == pos
        if is_blank and prev_blank:
            cuts.append((pos, end))
            blank += 1
        elif content_end < body_end:
            cuts.append((content_end, body_end))
            trailing += 1
        prev_blank = is_blank
        pos = end
    merged: list[tuple[int, int]] = []
    for a, b in cuts:
        if merged and merged[-1][1] == a:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged, trailing, blank


@settings(max_examples=examples(3000), deadline=None)
@given(raw=st.lists(st.sampled_from([b" ", b"\t", b"\n", b"\r", b"\r\n", b"x", b"\xff", b"\x00", b"  \n", b"\n\n"]),
                    max_size=40).map(b"".join))
def test_text_cuts_match_the_line_by_line_definition(raw):
    starts, ends, trailing, blank = text.cuts_of(raw)
    assert (list(zip(starts, ends)), trailing, blank) == cuts_line_by_line(raw)


def test_a_million_blank_lines_cost_no_memory_per_line():
    import tracemalloc

    raw = b"words\n" + b"\n" * 1_000_000 + b"more words  \n"
    tracemalloc.start()
    try:
        starts, ends, trailing, blank = text.cuts_of(raw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (list(zip(starts, ends)), trailing, blank) == cuts_line_by_line(raw)
    assert blank == 999_999 and len(starts) == 2
    assert peak < 1 << 20  # no object per line (one per line would be tens of MB)


def repeat_runs_one_list(raw: bytes) -> list[tuple[int, int, int, int, int]]:
    """The text reducer's repeat finder spelled out on one list of every whole line (the definition
    ``text.repeat_runs``, which splits a block at a time, must meet)."""
    lines = raw.split(b"\n")[:-1]
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    found = []
    for period in range(1, text.BLOCK_MAX + 1):
        if len(lines) < text.REPEAT_MIN * period or (period > 1 and len(lines) * period > text.BLOCK_WORK):
            break
        i = 0
        while i + period < len(lines):
            k = i
            while k + period < len(lines) and lines[k] == lines[k + period]:
                k += 1
            if k - i >= (text.REPEAT_MIN - 1) * period:
                found.append((i, period, (k - i) // period + 1))
                i += ((k - i) // period) * period
            else:
                i += 1
    runs, taken = [], 0
    for first, period, copies in sorted(found):
        if first < taken or not any(lines[k].strip() for k in range(first, first + period)):
            continue
        runs.append((starts[first], starts[first + period], starts[first + period * copies], copies, period))
        taken = first + period * copies
    return runs


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("block", [1, 7, 64, 1 << 18])
def test_text_repeats_found_block_by_block_as_on_one_list(seed, block, monkeypatch):
    """The C kernel's ``text_runs`` (where built) and its twin, which splits a block at a time, find the
    runs the definition finds on one list."""
    from operators.kernel import text_twins

    monkeypatch.setattr(text_twins, "BLOCK_BYTES", block)  # blocks end mid-run, mid-block, every line
    rng = random.Random(seed)
    words = [b"a", b"b", b"", b"  ", b"x y", b"\t", b"a\r", b"b ", b"\x0b", b"zz"]
    lines = []
    while len(lines) < rng.randint(0, 90):
        lines += [rng.choice(words) for _ in range(rng.randint(1, 4))] * rng.randint(1, 5)
    raw = b"\n".join(lines) + rng.choice([b"", b"\n", b"tail", b"\n\n"])
    expected = repeat_runs_one_list(raw)
    assert list(text.repeat_runs(raw)) == expected
    twin = text_twins.text_runs_py(raw, text.REPEAT_MIN, text.BLOCK_MAX, text.BLOCK_WORK)
    assert list(zip(*twin)) == expected
    if seed == 0 and block == 1:
        assert repeat_runs_one_list(b"q\n" * 5 + b"r\ns\n" * 3 + b"end\n") == [(0, 2, 10, 5, 1), (10, 14, 22, 3, 2)]


@settings(max_examples=examples(1500), deadline=None)
@given(lines=st.lists(st.tuples(st.sampled_from([b"a", b"b", b"", b"  ", b"x y", b"\t", b"a\r", b"b ", b"c  \r", b"\r"]),
                                st.integers(1, 5)), max_size=30),
       times=st.integers(1, 4), tail=st.sampled_from([b"", b"\n", b"tail", b"\n\n", b"  "]))
def test_folded_runs_written_as_the_plan_methods_write_them(lines, times, tail, monkeypatch_text):
    """The pieces the kernel writes (``text._write_pieces``) are those the plan's methods write."""
    raw = b"\n".join([line for line, count in lines for _ in range(count)] * times) + tail
    monkeypatch_text.setattr(text, "MIN_SAVING", 0)  # every run folds, every cut is made
    fast = text.reduce_text(raw)
    monkeypatch_text.setattr(text, "_write_pieces", lambda *args: None)
    try:
        slow = text.reduce_text(raw)
    finally:
        monkeypatch_text.undo()
    assert fast.pieces == slow.pieces and fast.reasons == slow.reasons
    assert [type(obj) for obj in fast.pieces.objs] == [type(obj) for obj in slow.pieces.objs]


@pytest.fixture(scope="module")
def monkeypatch_text():
    with pytest.MonkeyPatch.context() as mp:
        yield mp
