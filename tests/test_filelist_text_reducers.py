"""File-list and text reducers: summaries that tell the truth, one ref each, byte-exact restore."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operators.classify import classify
from operators.config import Config
from operators.types.filelist import Settings as FilelistConfig
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


def path_lines(visible: bytes) -> list[bytes]:
    """The lines of a folded listing that are paths as listed (not the header, not fold lines)."""
    return [line for line in visible.split(b"\n")[1:] if line and not line.startswith((b"  \xe2\x80\xa6", b"["))]


def parents(raw: bytes) -> set[bytes]:
    """Each listed path's directory (``./a/b/`` of ``./a/b/c.py``), the slow obvious way."""
    return {line[: line.rfind(b"/") + 1] for line in raw.split(b"\n") if b"/" in line}


def test_filelist_fixture_is_classified_as_filelist(sample_list):
    assert classify(sample_list[0])[0] == "filelist"


def test_filelist_header_counts_match_the_listing(sample_list):
    raw, _, visible = sample_list
    lines = raw.decode().split("\n")
    files, dirs = listing_counts(lines)
    head = visible.split(b"\n", 1)[0].decode()
    assert f"({files:,} files in {dirs:,} directories)" in head
    for top in ("vendor", "node_modules"):  # bulk directories: one fold line with the counts of the subtree
        n, _ = listing_counts(lines, f"./{top}/")
        assert re.search(rf"^  … \+[\d,]+ more under \./{top}/ \({n:,} files in \d+ dirs: ", visible.decode(), re.M), top


def test_filelist_shown_paths_are_lines_of_the_listing_verbatim(sample_list):
    raw, _, visible = sample_list
    listed = set(raw.split(b"\n"))
    shown = path_lines(visible)
    assert shown and all(line in listed for line in shown)
    assert len(visible) < 0.6 * len(raw)


def test_filelist_every_top_level_entry_and_every_project_directory_shows_a_path(sample_list):
    raw, _, visible = sample_list
    shown = set(path_lines(visible))
    top = [line for line in raw.split(b"\n") if line.count(b"/") == 1]
    assert top and [t for t in top if t not in shown] == []
    bulk = (b"./vendor/", b"./node_modules/", b"./var/cache/")
    for parent in parents(raw):
        if parent.startswith(bulk) or parent == b"./":
            continue
        assert any(line.startswith(parent) for line in shown), parent


def test_filelist_one_ref_holds_every_folded_path(sample_list):
    raw, plan, visible = sample_list
    assert list(omissions(plan)) == ["filelist"]
    assert visible.count(b"#ref:") == 1
    folded = omissions(plan)["filelist"].split(b"\n")
    assert b"./vendor/psr/log/src/LoggerInterface.php" in folded
    assert b"./vendor/psr/log/src/LoggerInterface.php" not in visible  # lives under vendor/: folded


def test_filelist_bulk_dirs_fold_project_files_named(sample_list):
    _, _, visible = sample_list
    text_ = visible.decode()
    assert "./src/Kernel.php" in text_ and "./src/Security/AuthGuard.php" in text_
    assert "Rechnung März 2024.pdf" in text_  # a name with spaces stays as listed, unicode kept
    assert [s for s in SIGNALS["sample.filelist"] if s not in text_] == []


def test_filelist_real_find_keeps_a_path_of_every_directory_and_folds_with_names():
    raw = (FIXTURES / "find_type_f_gson.txt").read_bytes()  # find gson -type f, a real Java tree
    assert classify(raw)[0] == "filelist"
    _, visible = run(filelist, raw)
    shown = path_lines(visible)
    listed = set(raw.split(b"\n"))
    assert all(line in listed for line in shown)
    for parent in parents(raw):
        assert any(line.startswith(parent) and line.find(b"/", len(parent)) < 0 for line in shown), parent
    # the other files of a directory are named on the fold line right after its shown path
    at = visible.index(b"gson/src/test/java/com/google/gson/functional/")
    fold = visible[visible.index(b"\n", at) + 1 :].split(b"\n", 1)[0]
    assert fold.startswith("  … +".encode()) and fold.count(b", ") >= 3 and len(fold) < 140, fold
    assert len(visible) < 0.6 * len(raw)


def test_filelist_deep_listing_folds_its_deepest_levels_to_max_dirs():
    paths = [f"./top{t}/mid{m}/leaf{n}/f{i}.py" for t in range(3) for m in range(10) for n in range(10) for i in range(3)]
    raw = ("\n".join(paths) + "\n").encode()
    cfg = Config(filelist=FilelistConfig(max_dirs=40))
    _, visible = run(filelist, raw, cfg)
    shown = path_lines(visible)
    assert {line.split(b"/")[1] for line in shown} == {b"top0", b"top1", b"top2"}
    assert {line.rsplit(b"/", 2)[0] for line in shown} == {f"./top{t}/mid{m}".encode() for t in range(3) for m in range(10)}
    assert re.search(r"^  … \+29 more under \./top0/mid0/ \(30 \.py in 10 dirs\)$", visible.decode(), re.M)
    _, wide = run(filelist, raw, Config(filelist=FilelistConfig(max_dirs=400)))  # room for every directory
    assert len({line.rsplit(b"/", 1)[0] for line in path_lines(wide)}) == 300


def test_filelist_rank_puts_top_level_entries_before_deeper_paths():
    raw = (FIXTURES / "find_type_f_gson.txt").read_bytes()
    _, visible = run(filelist, raw)
    lines = visible.split(b"\n")
    ranks = filelist.rank_lines(lines, Config())
    assert ranks[0] == (0, 0)
    firsts: dict[bytes, tuple[int, int]] = {}
    for line, rank in zip(lines, ranks):
        if line.startswith(b"gson/"):
            firsts.setdefault(line.split(b"/")[1], rank)
    best = {rank for rank in firsts.values()}
    assert best == {(0, 1)}  # every top-level entry (a directory by its first path) ranks first
    deeper = [rank for line, rank in zip(lines, ranks) if line.startswith(b"gson/") and rank not in best]
    by_depth = {}
    for line, rank in zip(lines, ranks):
        if line.startswith(b"gson/") and rank != (0, 1):
            by_depth.setdefault(line.count(b"/"), set()).add(rank)
    assert deeper and all(rank[1] == depth for depth, ranks_ in by_depth.items() for rank in ranks_)
    folds = [rank for line, rank in zip(lines, ranks) if line.startswith("  …".encode())]
    assert folds and all(rank[0] == 1 for rank in folds)


def test_filelist_under_a_small_budget_keeps_the_top_level_first():
    from operators.ceiling import fit

    raw = (FIXTURES / "find_type_f_gson.txt").read_bytes()
    plan, _ = run(filelist, raw)
    cut = fit(plan, 3000, "filelist", Config())
    contents = omissions(cut)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(cut.reasons)}
    visible = render(cut, ids)[0]
    assert restore(visible, render(cut, ids)[1], [contents[g] for g in cut.reasons]) == raw
    tops = {line.split(b"/")[1] for line in raw.split(b"\n") if line.count(b"/") >= 1}  # below gson/
    shown = {line.split(b"/")[1] for line in visible.split(b"\n") if line.startswith(b"gson/")}
    assert len(tops) > 15 and tops <= shown, tops - shown


def test_filelist_through_the_graph(monkeypatch, tmp_path):
    from flows.runner import run_packets
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


def test_filelist_odd_names_in_fold_lines_render_safely_and_restore():
    names = [b"src/plain.py", b"src/with space.py", b"src/comma, too.py", b"src/quote'd.py", b"src/caf\xc3\xa9.py",
             b"src/bad\xff\xfe.py", b"src/tab\there.py", b"src/\xe6\x97\xa5\xe6\x9c\xac.md", b"src/new\rline.txt"]
    raw = b"\r\n".join(names * 3 + [b"lib/x%d.py" % i for i in range(60)])  # CRLF, no final newline
    plan, visible = run(filelist, raw, Config(filelist=FilelistConfig(max_entries_per_dir=20, names_width=400)))
    assert visible.split(b"\r\n")[0].endswith(b"src/plain.py")  # the first path of src/ as listed
    fold = next(line for line in visible.split(b"\n") if line.startswith("  … +26 more".encode()))
    shown = fold.decode("utf-8")  # strict: whatever the names, a fold line is clean UTF-8
    for expected in ("'with space.py'", "'comma, too.py'", "'quote\\'d.py'", "café.py",
                     "'bad\\xff\\xfe.py'", "'tab\\x09here.py'", "日本.md"):
        assert expected in shown, expected
    assert "\t" not in shown
    assert b"lib/x0.py\r\n  \xe2\x80\xa6 +59 more: x1.py, x2.py" in visible


def test_filelist_small_listing_passes_through():
    raw = b"a.py\nb.py\nsrc/c.py\n"
    plan, visible = run(filelist, raw)
    assert visible == raw and not plan.reasons


def test_filelist_absolute_paths_and_find_print0_show_one_path_a_line():
    paths = [b"/home/me/proj/src/m%d.c" % i for i in range(80)] + [b"/home/me/proj/include/h%d.h" % i for i in range(9)]
    _, visible = run(filelist, b"\0".join(paths) + b"\0")
    assert b"\n/home/me/proj/src/m0.c\n  \xe2\x80\xa6 +79 more: m1.c, m2.c" in visible
    assert b"\n/home/me/proj/include/h0.h\n  \xe2\x80\xa6 +8 more: h1.h, h2.h" in visible
    assert b"\0" not in visible


@pytest.mark.parametrize("seed", range(15))
def test_filelist_odd_input_never_raises(seed):
    rng = random.Random(seed)
    pieces = [b"a/", b"b", b"/", b"./", b".", b"\n", b"\r\n", b"\0", b"\xff", b" ", b"x.txt", b"\\", b"node_modules/"]
    raw = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 400)))
    cfg = FilelistConfig(max_entries_per_dir=rng.randint(0, 3), max_depth=rng.randint(0, 4), max_dirs=rng.randint(1, 9))
    run(filelist, raw, Config(filelist=cfg))


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
