"""Diff reducer: changed lines never cut, one coarse ref, byte-exact restore on odd input."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operators.classify import classify
from operators.config import Config
from operators.types.diff import Settings as DiffConfig
from operators.packet import ContextPacket
from operators.kernel import diff_twins
from operators.types import diff
from operators.reduction import KEEP, MARK, OMIT, SHOW, omissions, render, restore
from operators.signals import load_sidecar

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
HINT_RE = re.compile(rb"^\xe2\x8b\xaf (\d+)\r?$", re.M)  # "⋯ N": N unchanged lines


def run(raw: bytes, context_keep: int = 1):
    plan = diff.reduce(raw, "coarse", Config(diff=DiffConfig(context_keep=context_keep)))
    contents = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restore(visible, layout, [contents[g] for g in plan.reasons]) == raw
    return plan, visible


def changed(raw: bytes) -> list[bytes]:
    """The +/- lines of a plain (non-combined) diff, found without the reducer's hunk walk."""
    return [
        line.rstrip(b"\r")
        for line in raw.split(b"\n")
        if line[:1] in (b"+", b"-") and not line.startswith((b"+++ ", b"--- "))
    ]


def vis_lines(visible: bytes) -> set[bytes]:
    return {line.rstrip(b"\r") for line in visible.split(b"\n")}


def context_block(n: int, tag: str = "ctx") -> bytes:
    return b"".join(f" {tag} line {i} = something_unchanged({i});\n".encode() for i in range(n))


# --- the fixture ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample():
    raw = (FIXTURES / "sample.diff").read_bytes()
    plan, visible = run(raw)
    return raw, plan, visible


def test_fixture_is_classified_as_diff(sample):
    raw, _, _ = sample
    assert classify(raw)[0] == "diff"


def test_fixture_keeps_every_changed_line_and_planted_signal(sample):
    raw, _, visible = sample
    lines = vis_lines(visible)
    wanted = changed(raw)
    assert len(wanted) > 50
    assert [c for c in wanted if c not in lines] == []
    signals = load_sidecar(FIXTURES / "signals.toml")["sample.diff"]
    assert "authentication check removed" in signals
    assert [s for s in signals if s.encode() not in visible] == []


def test_fixture_keeps_file_and_hunk_headers_and_drops_index_lines(sample):
    raw, _, visible = sample
    lines = vis_lines(visible)
    binary = binary_file_lines(raw)  # a binary file shows as its one "Binary files … differ" line
    for line in raw.split(b"\n"):
        if line in binary:
            assert line not in lines, line
        elif line.startswith((b"diff --git ", b"--- ", b"+++ ", b"@@ ", b"rename ", b"new file mode", b"Binary files", b"\\ ")):
            assert line in lines, line
        if line.startswith((b"index ", b"similarity index", b"old mode")):
            assert line not in lines, line


def test_fixture_has_exactly_one_context_ref_and_one_marker(sample):
    _, plan, visible = sample
    assert list(plan.reasons) == ["context"]
    assert visible.count(b"#ref:") == 1
    assert visible.rstrip().endswith(b"#ref:ctx_000000]")


def test_fixture_hints_account_for_every_unchanged_line(sample):
    raw, plan, visible = sample
    context_raw = sum(1 for line in raw.split(b"\n") if line.startswith(b" "))
    context_shown = sum(1 for line in visible.split(b"\n") if line.startswith(b" "))
    hinted = sum(int(n) for n in HINT_RE.findall(visible))
    assert hinted > 0
    assert context_shown + hinted == context_raw
    ref = omissions(plan)["context"]
    metadata = sum(1 for l in raw.split(b"\n") if l.startswith((b"index ", b"similarity", b"old mode")))
    assert ref.count(b"\n") == hinted + metadata + len(binary_file_lines(raw))


def binary_file_lines(raw: bytes) -> set[bytes]:
    """The ``diff --git`` lines of files whose header is only an index line and ``Binary files … differ``."""
    lines = raw.split(b"\n")
    return {
        line for k, line in enumerate(lines[:-2])
        if line.startswith(b"diff --git ") and lines[k + 1].startswith(b"index ") and lines[k + 2].startswith(b"Binary files ")
    }


def test_fixture_saves_at_least_a_fifth(sample):
    raw, _, visible = sample
    tokens = lambda b: -(-len(b) // 4)  # noqa: E731
    assert tokens(visible) <= 0.8 * tokens(raw)


def test_fixture_through_the_graph(monkeypatch, tmp_path):
    from flows.runner import run_packets
    from operators.packet import ContextPacket

    monkeypatch.setenv("NOLIFE_TOKENS_HOME", str(tmp_path))
    raw = (FIXTURES / "sample.diff").read_bytes()
    signals = load_sidecar(FIXTURES / "signals.toml")["sample.diff"]
    [p] = run_packets([ContextPacket(source="fixtures/sample.diff", raw=raw, expected_signals=signals)])
    assert p.type == "diff"
    assert (p.signal_pass, p.recovery_pass, p.restore_pass) == (True, True, True), p.missing_signals
    assert len(p.references) == 1
    assert p.measure.saved_pct >= 20


# --- shapes of real diffs ------------------------------------------------------------------------


def test_context_keep_lines_next_to_each_change():
    raw = (
        b"diff --git a/x.php b/x.php\nindex 1111111..2222222 100644\n--- a/x.php\n+++ b/x.php\n"
        b"@@ -1,21 +1,21 @@\n" + context_block(10, "top") + b"-old();\n+new();\n" + context_block(10, "bot")
    )
    _, visible = run(raw, context_keep=3)
    lines = vis_lines(visible)
    for i in (7, 8, 9):
        assert f" top line {i} = something_unchanged({i});".encode() in lines
    for i in (0, 1, 2):
        assert f" bot line {i} = something_unchanged({i});".encode() in lines
    assert b" top line 6 = something_unchanged(6);" not in lines
    assert b" bot line 3 = something_unchanged(3);" not in lines
    assert [int(n) for n in HINT_RE.findall(visible)] == [7, 7]


def test_removed_lines_that_look_like_headers_stay_changed_lines():
    # removed "-- a/x", "--- b/y", "-diff --git a/z b/z"; added "@@ -1 +1 @@", "++++ b/q"
    raw = (
        b"diff --git a/q.sql b/q.sql\n--- a/q.sql\n+++ b/q.sql\n@@ -1,14 +1,12 @@\n"
        + context_block(5) + b"--- a/x\n---- b/y\n--diff --git a/z b/z\n+@@ -1 +1 @@\n+++++ b/q\n" + context_block(6, "after")
    )
    plan, visible = run(raw)
    lines = vis_lines(visible)
    for line in (b"--- a/x", b"---- b/y", b"--diff --git a/z b/z", b"+@@ -1 +1 @@", b"+++++ b/q"):
        assert line in lines
    # the hunk walk was not thrown off: the trailing context run is still cut
    assert [int(n) for n in HINT_RE.findall(visible)] == [4, 5]


def test_rename_mode_change_new_file_and_binary_patch():
    raw = (
        b"diff --git a/old.php b/new.php\nsimilarity index 98%\nrename from old.php\nrename to new.php\n"
        b"index 1111111..2222222 100644\n--- a/old.php\n+++ b/new.php\n@@ -1,9 +1,9 @@\n"
        + context_block(4) + b"-namespace A;\n+namespace B;\n" + context_block(4, "x")
        + b"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
        b"diff --git a/logo.png b/logo.png\nnew file mode 100644\nindex 0000000..3f2a9c1\nGIT binary patch\nliteral 300\n"
        + b"".join(b"zcmV-Y0@v0XA9x" + bytes([65 + i % 26]) * 50 + b"\n" for i in range(12))
        + b"\nliteral 0\nHcmV?d00001\n\n"
        b"diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\nindex 3333333..0000000\n"
        b"Binary files a/gone.txt and /dev/null differ\n"
    )
    plan, visible = run(raw)
    lines = vis_lines(visible)
    for kept in (b"rename from old.php", b"rename to new.php", b"-namespace A;", b"+namespace B;", b"new mode 100755",
                 b"new file mode 100644", b"GIT binary patch", b"literal 300", b"literal 0",
                 b"Binary files a/gone.txt and /dev/null differ"):
        assert kept in lines, kept
    # a deleted binary file is one line: "Binary files a/gone.txt and /dev/null differ" says it all
    for dropped in (b"similarity index 98%", b"old mode 100644", b"index 1111111..2222222 100644", b"HcmV?d00001",
                    b"deleted file mode 100644", b"diff --git a/gone.txt b/gone.txt"):
        assert dropped not in lines, dropped
    assert b"zcmV-Y0@v0XA9x" not in visible
    assert b"lines of binary patch data" in visible
    assert list(plan.reasons) == ["context"] and visible.count(b"#ref:") == 1


def test_no_newline_marker_keeps_the_line_it_is_about():
    raw = (
        b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,12 +1,12 @@\n-first\n+FIRST\n"
        + context_block(10) + b" last line\n\\ No newline at end of file\n"
    )
    _, visible = run(raw, context_keep=0)
    assert b" last line\n\\ No newline at end of file\n" in visible
    assert b"-first\n+FIRST\n" in visible


def test_combined_diff_cuts_only_all_space_prefixes():
    raw = (
        b"diff --cc f.c\nindex 1111111,2222222..3333333\n--- a/f.c\n+++ b/f.c\n@@@ -1,10 -1,10 +1,11 @@@\n"
        + b"".join(b"  same %d: a longer line of unchanged content\n" % i for i in range(5))
        + b"- from ours\n +from theirs\n++both\n"
        + b"".join(b"  tail %d: a longer line of unchanged content\n" % i for i in range(4))
    )
    _, visible = run(raw)
    lines = vis_lines(visible)
    for kept in (b"- from ours", b" +from theirs", b"++both", b"@@@ -1,10 -1,10 +1,11 @@@",
                 b"  same 4: a longer line of unchanged content", b"  tail 0: a longer line of unchanged content"):
        assert kept in lines, kept
    assert b"  same 0: a longer line of unchanged content" not in lines
    assert b"  tail 3: a longer line of unchanged content" not in lines
    assert b"index 1111111,2222222..3333333" not in lines


def test_hunk_that_does_not_match_its_header_is_left_alone():
    raw = b"diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,40 +1,40 @@\n" + context_block(12) + b"not a diff line\n" + context_block(12, "z")
    _, visible = run(raw)
    lines = vis_lines(visible)
    assert b"not a diff line" in lines
    assert all(f" z line {i} = something_unchanged({i});".encode() in lines for i in range(12))


def test_crlf_diff_cuts_context_and_keeps_crlf():
    raw = (
        b"diff --git a/w.php b/w.php\r\nindex 1111111..2222222 100644\r\n--- a/w.php\r\n+++ b/w.php\r\n@@ -1,21 +1,21 @@\r\n"
        + context_block(10).replace(b"\n", b"\r\n") + b"-old();\r\n+new();\r\n" + context_block(10, "z").replace(b"\n", b"\r\n")
    )
    plan, visible = run(raw)
    assert HINT_RE.findall(visible) == [b"9", b"9"]
    assert b"\xe2\x8b\xaf 9\r\n" in visible
    assert b"\r\n-old();\r\n+new();\r\n" in visible
    assert list(plan.reasons) == ["context"]


def test_no_final_newline_and_invalid_utf8_and_nul():
    raw = (
        b"diff --git a/b.bin b/b.bin\n--- a/b.bin\n+++ b/b.bin\n@@ -1,32 +1,32 @@\n"
        + b" caf\xe9 \xff\xfe\x00 ok\n" * 15 + b"-\xc3(\x00 old\n+\xa0\xa1 new\x00\n" + b" tail \xff\n" * 15 + b" end\xff"
    )
    plan, visible = run(raw)
    lines = vis_lines(visible)
    assert b"-\xc3(\x00 old" in lines and b"+\xa0\xa1 new\x00" in lines
    assert HINT_RE.findall(visible) == [b"14", b"15"]


@pytest.mark.parametrize("seed", range(25))
def test_odd_input_never_raises_and_restores(seed):
    rng = random.Random(seed)
    pieces = [b"diff --git a/x b/x\n", b"@@ -1,3 +1,2 @@\n", b"@@@ -1 -1 +1 @@@\n", b" ctx\n", b"-gone\n", b"+new\n",
              b"\\ No newline at end of file\n", b"GIT binary patch\n", b"literal 12\n", b"zcmV\n", b"\n", b"\r\n",
              b"index 1234567..89abcde 100644\n", b"\xff\xfe", b"\x00", b" ", b"@@ -x +y @@\n", b"@@ -1,999999999 +1 @@\n"]
    raw = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 80)))
    run(raw, context_keep=rng.randint(0, 3))


def test_small_gain_passes_through():
    raw = b"diff --git a/a b/a\nindex 1111111..2222222 100644\n--- a/a\n+++ b/a\n@@ -1,5 +1,5 @@\n x\n y\n-b\n+c\n z\n w\n"
    plan, visible = run(raw)
    assert visible == raw and not plan.reasons


def test_plain_diff_u_output_is_reduced_too():
    raw = (
        b"--- old/app.py\t2024-05-01 10:00:00.000000000 +0200\n+++ new/app.py\t2024-05-01 10:05:00.000000000 +0200\n"
        b"@@ -1,21 +1,21 @@\n" + context_block(10) + b"-x = 1\n+x = 2\n" + context_block(10, "z")
    )
    assert classify(raw)[0] == "diff"
    _, visible = run(raw)
    assert HINT_RE.findall(visible) == [b"9", b"9"]


def test_text_after_a_complete_hunk_is_not_context():
    # e.g. `git log -p --format='%h%n%b'`: the next commit's indented body follows the last hunk directly
    body = b"".join(b"    body line %d of the next commit message\n" % i for i in range(8))
    raw = (
        b"diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,6 +1,5 @@\n"
        + context_block(2) + b"-removed one\n-removed two\n+added\n" + context_block(1, "z")
        + body + b"deadbee\n" + body
    )
    _, visible = run(raw)
    assert visible.count(body) == 2


# --- line walk and memory ------------------------------------------------------------------------

O, M, X, C, N = diff_twins.OTHER, diff_twins.META, diff_twins.CTX, diff_twins.CHG, diff_twins.NONL


@pytest.mark.parametrize("raw, kinds", [
    (  # a blank line whose space was stripped and a CRLF line inside a hunk; "\ No newline" inside and after it
        b"diff --git a/f b/f\nindex 1234567..89abcde\n--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n\n-b\n"
        b"\\ No newline at end of file\n+c\n d\r\n\\ No newline at end of file\n after\n",
        [O, M, O, O, O, X, X, C, N, C, X, N, O],
    ),
    (b"@@ -1,1 +1,1 @@\n-a\n+b\n+c\n", [O, C, C, O]),  # the counts end inside a run of added lines
    (b"@@ -1,5 +1,5 @@\n a\n b\n@@ -9 +9 @@\n-x\n+y\n z\n", [O, X, X, O, C, C, O]),  # a hunk cut short by the next
    (b"@@ -1,3 +1,3 @@\n a\n\tb\n c\n", [O, X, O, O]),  # a line that fits no hunk ends it
    (b"@@ -1,2 +1,2 @@\n a\n b", [O, X, X]),  # no final newline
])
def test_hunk_lines_are_walked_by_their_counts(raw, kinds):
    assert list(diff_twins.classify_lines_py(raw, diff_twins.line_starts(raw))) == kinds  # the Python twin
    starts, found = diff.lines_and_kinds(raw)  # the C kernel where built
    assert list(found) == kinds and list(starts) == list(diff_twins.line_starts(raw))


@pytest.mark.parametrize("seed", range(10))
def test_line_starts_in_small_blocks_match_a_plain_split(monkeypatch, seed):
    rng = random.Random(seed)
    raw = b"".join(rng.choice([b"\n", b"\r\n", b"x", b"yy ", b"\r", b"+z\n"]) for _ in range(rng.randint(0, 300)))
    monkeypatch.setattr(diff_twins, "BLOCK", rng.randint(1, 40))
    expected = [0] + [i + 1 for i, byte in enumerate(raw) if byte == 0x0A]
    if expected[-1] != len(raw):
        expected.append(len(raw))
    assert list(diff_twins.line_starts(raw)) == expected


def big_diff(files: int) -> bytes:
    out = []
    for f in range(files):
        out.append(f"diff --git a/f{f}.py b/f{f}.py\nindex 1234567..89abcde 100644\n--- a/f{f}.py\n+++ b/f{f}.py\n".encode())
        out.append(b"@@ -1,21 +1,21 @@\n" + context_block(10) + b"-old()\n+new()\n" + context_block(10, "z"))
    return b"".join(out)


def test_big_diff_is_reduced_without_a_copy_per_line(monkeypatch):
    import tracemalloc

    raw = big_diff(1000)  # about 1 MB, 26,000 lines
    monkeypatch.setattr(diff_twins, "BLOCK", 1 << 12)  # the transient split of one block stays out of the figure
    tracemalloc.start()
    try:
        plan = diff.reduce_diff(raw, 1)
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        content = omissions(plan)["context"]
        _, peak_omissions = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(plan.pieces) > 3000
    assert held / len(plan.pieces) < 40  # bytes a piece: columns, not a list and two ints each
    assert peak < len(raw)  # line offsets, kinds and the plan: never a bytes object per line
    assert peak_omissions - held < 1.3 * len(content)  # the ref's bytes once, not a slice object per piece


def test_plan_pieces_read_as_lists_and_take_an_inserted_header():
    raw = big_diff(3)
    plan = diff.reduce(raw, "coarse", Config())
    assert plan.pieces[0] == [KEEP, 0, raw.index(b"index ")]
    assert plan.pieces[1] == [OMIT, raw.index(b"index "), raw.index(b"--- "), "context"]
    assert [piece[0] for piece in plan.pieces][-3:] == [SHOW, MARK, SHOW]
    plan.pieces.insert(0, [SHOW, b"[command failed: exit code 1]\n"])  # what OPTIMIZE does on a failure
    visible, layout, _ = render(plan, {"context": "ctx_000000"})
    assert visible.startswith(b"[command failed: exit code 1]\ndiff --git a/f0.py b/f0.py\n--- a/f0.py\n")
    assert restore(visible, layout, [omissions(plan)["context"]]) == raw


@settings(max_examples=300, deadline=None)
@given(raw=st.lists(st.sampled_from([b"\n", b"\r\n", b"+", b"-", b"++ ", b"-- ", b"+++ b/x", b"--- a/x", b" ctx", b"x", b"\r"]),
                    max_size=40).map(b"".join))
def test_changed_lines_are_the_plus_and_minus_lines_of_a_split(raw):
    from operators.signals import changed_lines

    expected: dict[bytes, None] = {}
    for line in raw.split(b"\n"):
        if line[:1] in (b"+", b"-") and not line.startswith((b"+++ ", b"--- ")) and len(line.rstrip(b"\r")) > 1:
            expected.setdefault(line.rstrip(b"\r"), None)
    flip = {b"+": b"-", b"-": b"+"}
    # a line that also occurs with the opposite sign (moved) is not asked for on either side
    assert changed_lines(raw) == [line for line in expected if flip[line[:1]] + line[1:] not in expected]


@settings(max_examples=300, deadline=None)
@given(raw=st.lists(st.sampled_from([b"\n", b"\r\n", b"+", b"-", b"++ ", b"-- ", b"+++ b/x", b"--- a/x", b" ctx", b"x",
                                     b"diff --git a/f b/f", b"diff --git ", b"\xff"]), max_size=40).map(b"".join))
def test_level0_diff_facts_see_the_lines_a_split_sees(raw):
    from operators import overview

    files, added, removed, changed = [], 0, 0, []
    for line in raw.split(b"\n"):  # what the facts are about, read line by line
        if line.startswith(b"diff --git "):
            files.append(line[11:].decode("utf-8", "replace").split(" b/")[-1])
        elif line.startswith(b"+++ ") and not files:
            files.append(line[4:].decode("utf-8", "replace").removeprefix("b/"))
        elif line.startswith(b"+") and not line.startswith(b"+++ "):
            added += 1
        elif line.startswith(b"-") and not line.startswith(b"--- "):
            removed += 1
        else:
            continue
        if line[:1] in (b"+", b"-") and not line.startswith((b"+++ ", b"--- ")) and len(line.strip()) > 1:
            changed.append(line)
    facts = diff.facts(ContextPacket(source="x", raw=raw))
    summary, important, total = facts.counts, facts.important, facts.total
    assert f"+{added:,} -{removed:,} lines" in summary and f"{len(files)} file" in summary
    assert total == len(changed) and len(important) == min(len(changed), overview.IMPORTANT_MAX)
