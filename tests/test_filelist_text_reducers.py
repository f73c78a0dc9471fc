"""File-list and text reducers: summaries that tell the truth, one ref each, byte-exact restore."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operators.classify import classify
from operators.config import Config, FilelistConfig
from operators.types import filelist, text
from operators.reduction import omissions, render, restore
from operators.signals import load_sidecar

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SIGNALS = load_sidecar(FIXTURES / "signals.toml")


def run(reducer, raw: bytes, config: Config | None = None):
    plan = reducer.reduce(raw, "coarse", config or Config())
    contents = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restore(visible, layout, [contents[g] for g in plan.reasons]) == raw
    return plan, visible


def listing_counts(lines: list[str], prefix: str = "") -> tuple[int, int]:
    """Files and directories below ``prefix`` in a find-style listing, counted the slow obvious way."""
    entries = [line for line in lines if line and line != "."]
    dirs = {line for line in entries if any(other.startswith(line + "/") for other in entries)}
    files = [e for e in entries if e not in dirs and e.startswith(prefix)]
    return len(files), len([d for d in dirs if d.startswith(prefix)])


# --- file list -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_list():
    raw = (FIXTURES / "sample.filelist").read_bytes()
    plan, visible = run(filelist, raw)
    return raw, plan, visible


def test_filelist_fixture_is_classified_as_filelist(sample_list):
    assert classify(sample_list[0])[0] == "filelist"


def test_filelist_header_counts_match_the_listing(sample_list):
    raw, _, visible = sample_list
    lines = raw.decode().split("\n")
    files, dirs = listing_counts(lines)
    head = visible.split(b"\n", 1)[0].decode()
    assert f"({files:,} files in {dirs:,} directories)" in head
    for top in ("vendor", "node_modules", "src"):
        n, _ = listing_counts(lines, f"./{top}/")
        assert re.search(rf"^  (?:\./)?{top}/ \({n:,} (files|\.php)", visible.decode(), re.M), top


def test_filelist_one_ref_holds_the_whole_listing(sample_list):
    raw, plan, visible = sample_list
    assert omissions(plan) == {"filelist": raw}
    assert visible.count(b"#ref:") == 1
    assert len(visible) < 0.3 * len(raw)


def test_filelist_bulk_dirs_are_summarised_project_files_named(sample_list):
    _, _, visible = sample_list
    text_ = visible.decode()
    assert re.search(r"^  (?:\./)?vendor/ \(.*\) not expanded$", text_, re.M)
    assert re.search(r"^  (?:\./)?node_modules/ \(.*\) not expanded$", text_, re.M)
    assert "LoggerInterface.php" not in text_  # lives under vendor/
    assert "Kernel.php" in text_ and "AuthGuard.php" in text_
    assert "'Rechnung März 2024.pdf'" in text_  # a name with spaces is quoted, unicode kept
    assert [s for s in SIGNALS["sample.filelist"] if s not in text_] == []


def test_filelist_through_the_graph(monkeypatch, tmp_path):
    from flows.cli import run_packets
    from operators.packet import ContextPacket

    monkeypatch.setenv("NOLIFE_TOKENS_HOME", str(tmp_path))
    packets = [
        ContextPacket(source=f"fixtures/{name}", raw=(FIXTURES / name).read_bytes(), expected_signals=SIGNALS[name])
        for name in ("sample.filelist", "sample.txt")
    ]
    for p in run_packets(packets):
        assert (p.signal_pass, p.recovery_pass, p.restore_pass) == (True, True, True), (p.source, p.missing_signals)
        assert len(p.references) == 1, p.source
        assert p.measure.saved_pct > 0, p.source


def test_filelist_odd_names_render_safely_and_restore():
    names = [b"src/plain.py", b"src/with space.py", b"src/comma, too.py", b"src/quote'd.py", b"src/caf\xc3\xa9.py",
             b"src/bad\xff\xfe.py", b"src/tab\there.py", b"src/\xe6\x97\xa5\xe6\x9c\xac.md", b"src/new\rline.txt"]
    raw = b"\r\n".join(names * 3 + [b"lib/x%d.py" % i for i in range(60)])  # CRLF, no final newline
    plan, visible = run(filelist, raw, Config(filelist=FilelistConfig(max_entries_per_dir=20)))
    shown = visible.decode("utf-8")  # strict: whatever the names, the summary is clean UTF-8
    for expected in ("plain.py", "'with space.py'", "'comma, too.py'", "'quote\\'d.py'", "café.py",
                     "'bad\\xff\\xfe.py'", "'tab\\x09here.py'", "日本.md"):
        assert expected in shown, expected
    assert "\r" not in shown and "\t" not in shown
    assert "lib/ (60 .py)" in shown


def test_filelist_limits_entries_and_depth():
    paths = [f"big/f{i:03d}.txt" for i in range(30)]
    paths += ["deep/top.rs", "deep/a/mid.rs"] + [f"deep/a/b/c/f{i}.rs" for i in range(5)]
    paths += [f"many/d{i:02d}/x.go" for i in range(50)]
    raw = ("\n".join(paths) + "\n").encode()
    cfg = Config(filelist=FilelistConfig(max_entries_per_dir=5, max_depth=2))
    _, visible = run(filelist, raw, cfg)
    shown = visible.decode()
    assert "f000.txt, f001.txt, f002.txt, f003.txt, f004.txt, … +25 more" in shown
    assert "f005.txt" not in shown
    assert "top.rs" in shown  # deep/ is at depth 1: expanded
    assert re.search(r"^    a/ \(6 \.rs in 2 dirs\)$", shown, re.M)  # deep/a/ at depth 2: one summary line
    assert "mid.rs" not in shown and "f0.rs" not in shown
    assert "d19/" in shown and "d20/" not in shown  # 4 x max_entries subdirectories, then folded
    assert re.search(r"… 30 more dirs \(30 files in 30 dirs\)", shown)
    raw = ("\n".join(paths[30:37] + [f"big/f{i:03d}.txt" for i in range(300)]) + "\n").encode()
    deeper = run(filelist, raw, Config(filelist=FilelistConfig(max_entries_per_dir=5, max_depth=3)))[1].decode()
    assert "mid.rs" in deeper and re.search(r"^      b/c/ \(5 \.rs\)$", deeper, re.M)


def test_filelist_small_listing_passes_through():
    raw = b"a.py\nb.py\nsrc/c.py\n"
    plan, visible = run(filelist, raw)
    assert visible == raw and not plan.reasons


def test_filelist_absolute_paths_share_their_prefix_and_find_print0():
    raw = b"\0".join(b"/home/me/proj/src/m%d.c" % i for i in range(80)) + b"\0"
    _, visible = run(filelist, raw)
    assert b"/home/me/proj/src/ (80 .c)" in visible


@pytest.mark.parametrize("seed", range(15))
def test_filelist_odd_input_never_raises(seed):
    rng = random.Random(seed)
    pieces = [b"a/", b"b", b"/", b"./", b".", b"\n", b"\r\n", b"\0", b"\xff", b" ", b"x.txt", b"\\", b"node_modules/"]
    raw = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 400)))
    run(filelist, raw, Config(filelist=FilelistConfig(max_entries_per_dir=rng.randint(0, 3), max_depth=rng.randint(0, 4))))


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
    assert classify(sample_text[0])[0] == "text"


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


@settings(max_examples=3000, deadline=None)
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
    monkeypatch.setattr(text, "BLOCK_BYTES", block)  # blocks end mid-run, mid-block, every line
    rng = random.Random(seed)
    words = [b"a", b"b", b"", b"  ", b"x y", b"\t", b"a\r", b"b ", b"\x0b", b"zz"]
    lines = []
    while len(lines) < rng.randint(0, 90):
        lines += [rng.choice(words) for _ in range(rng.randint(1, 4))] * rng.randint(1, 5)
    raw = b"\n".join(lines) + rng.choice([b"", b"\n", b"tail", b"\n\n"])
    expected = repeat_runs_one_list(raw)
    assert list(text.repeat_runs(raw)) == expected
    if seed == 0 and block == 1:
        assert repeat_runs_one_list(b"q\n" * 5 + b"r\ns\n" * 3 + b"end\n") == [(0, 2, 10, 5, 1), (10, 14, 22, 3, 2)]
