"""The diff type (operators/types/diff.py): changed lines never cut, context next to changes, short hints,
lockfiles summarised, moved blocks shown once; real commits; byte-exact restore on odd input."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import example, given, settings, strategies as st

from conftest import examples, FIXTURES, reduce_alone, reduce_bytes
from operators.ceiling import CeilingSettings
from operators.classify import classify
from operators.config import Config
from operators.kernel import diff_twins
from operators.packet import ContextPacket
from operators.reduction import KEEP, MARK, OMIT, SHOW, omissions, render, restore
from operators.signals import auto_signals, load_sidecar, missing_signals
from operators.types import diff
from operators.types.diff import Settings as DiffConfig

HINT_RE = re.compile(rb"^\xe2\x8b\xaf (\d+)\r?$", re.M)  # "⋯ N": N unchanged lines


def run(raw: bytes, context_keep: int = 1):
    alone = reduce_alone(diff, raw, Config(diff=DiffConfig(context_keep=context_keep)))
    return alone.plan, alone.visible


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


@settings(max_examples=examples(300), deadline=None)
@given(raw=st.lists(st.sampled_from([b"\n", b"\r\n", b"+", b"-", b"++ ", b"-- ", b"+++ b/x", b"--- a/x", b" ctx", b"x", b"\r"]),
                    max_size=40).map(b"".join), block=st.sampled_from([1, 2, 5, 1 << 20]))
@example(raw=b"+a\n-a\n+b\r\r\n+c", block=2)
def test_changed_lines_are_the_plus_and_minus_lines_of_a_split(raw, block):
    from functools import partial

    from operators import signals

    changed_lines = partial(signals.changed_lines, block=block)  # read a block at a time: any size

    expected: dict[bytes, None] = {}
    for line in raw.split(b"\n"):
        if line[:1] in (b"+", b"-") and not line.startswith((b"+++ ", b"--- ")) and len(line.rstrip(b"\r")) > 1:
            expected.setdefault(line.rstrip(b"\r"), None)
    flip = {b"+": b"-", b"-": b"+"}
    # a line that also occurs with the opposite sign (moved) is not asked for on either side
    assert changed_lines(raw) == [line for line in expected if flip[line[:1]] + line[1:] not in expected]


def test_changed_lines_keep_the_first_distinct_lines_up_to_the_limits(monkeypatch):
    """Read a block at a time, the lines asked for are still the first distinct ones (``2 * MAX_AUTO``
    looked at, ``MAX_AUTO`` kept), a moved line left out even when its other side comes much later."""
    from operators import signals

    monkeypatch.setattr(signals, "MAX_AUTO", 5)
    lines = [b"+line %d" % i for i in range(40)] + [b"-line 3", b"+line 0", b"-line 12"]
    raw = b"\n".join(lines) + b"\n"
    expected = [b"+line 0", b"+line 1", b"+line 2", b"+line 4", b"+line 5"]  # 3 moved; 12 beyond the 10 looked at
    for block in (1, 7, 64, 1 << 20):
        assert signals.changed_lines(raw, block) == expected
    monkeypatch.setattr(signals, "MAX_AUTO", 2)
    assert signals.changed_lines(b"+a\n+a\n+b\n-a\n+c\n+d\n", 3) == [b"+b", b"+c"]
    assert signals.changed_lines(b"+a\n+b\n+c\n+d\n+e\n-a\n-b\n-c\n") == [b"+d"]  # +e: beyond the 4 looked at


@settings(max_examples=examples(300), deadline=None)
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
REAL = {  # fixture -> least share of bytes saved (each measured a few points above)
    "diff_cargo_lock_and_code.diff": 0.65,
    "diff_npm_lockfile_bump.diff": 0.90,
    "diff_moved_block_refactor.diff": 0.22,  # its moved blocks' added lines shown: the view has room for them
    "diff_binary_files_added.diff": 0.18,
    "diff_renames.diff": 0.25,
    "sample.diff": 0.50,  # 46.0% before this reducer knew pure blocks and short hints
}
LOCKFILES = re.compile(rb"(?:^|/)(?:package-lock\.json|Cargo\.lock)$")  # the ones these fixtures hold
HUNK = re.compile(rb"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
MOVED = re.compile(rb"^\xe2\x8b\xaf moved (\d+) lines from (\S+):(\d+) to (\S+):(\d+)$", re.M)
HINT = re.compile(rb"^\xe2\x8b\xaf (\d+)$", re.M)


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def run_real(raw: bytes, max_chars: int = 25_000, **settings):
    alone = reduce_alone(diff, raw, Config(diff=DiffConfig(**settings), ceiling=CeilingSettings(max_chars=max_chars)))
    return alone.visible, alone.contents


TIGHT = 9_500  # an output ceiling whose room a view of diff_moved_block_refactor.diff fills without its moved lines


class Line:
    """A line of a hunk, as this test's own walk of the raw diff sees it."""

    def __init__(self, old_path, new_path, sign, old_no, new_no, text, hunk):
        self.old_path, self.new_path, self.sign, self.hunk = old_path, new_path, sign, hunk
        self.old_no, self.new_no, self.text = old_no, new_no, text


def hunk_lines(raw: bytes) -> list[Line]:
    """Every hunk line of a (one-parent) diff with its file paths and line numbers, walked by the hunk counts."""
    out = []
    old_path = new_path = b""
    old_left = new_left = 0
    old_no = new_no = hunks = 0
    for line in raw.split(b"\n")[:-1]:
        if old_left > 0 or new_left > 0:
            sign, text = line[:1], line[1:]
            out.append(Line(old_path, new_path, sign, old_no, new_no, text, hunks))
            if sign in (b" ", b"-"):
                old_left, old_no = old_left - 1, old_no + 1
            if sign in (b" ", b"+"):
                new_left, new_no = new_left - 1, new_no + 1
            continue
        if line.startswith(b"diff --git "):
            old_path, new_path = re.match(rb"diff --git a/(.*) b/(.*)", line).groups()
        elif line.startswith(b"--- a/"):
            old_path = line[6:]
        elif line.startswith(b"+++ b/"):
            new_path = line[6:]
        m = HUNK.match(line)
        if m:
            hunks += 1
            old_no, new_no = int(m.group(1)), int(m.group(3))
            old_left = int(m.group(2)) if m.group(2) is not None else 1
            new_left = int(m.group(4)) if m.group(4) is not None else 1
    return out


def visible_lines(visible: bytes) -> set[bytes]:
    return set(visible.split(b"\n"))


# --- every fixture: restore, planted signals, every changed line of a code file, SIGNAL ------------------


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_diff_restores_and_keeps_every_changed_code_line(name):
    raw = fixture(name)
    visible, _ = run_real(raw)
    lines = visible_lines(visible)
    moved = set()  # (sign, path, line number) of each line of a moved block, from its visible line
    for n, a, a_line, b, b_line in MOVED.findall(visible):
        moved |= {(b"-", a, int(a_line) + k) for k in range(int(n))} | {(b"+", b, int(b_line) + k) for k in range(int(n))}
    for h in hunk_lines(raw):
        if h.sign in (b"+", b"-") and not LOCKFILES.search(h.new_path) and h.sign + h.text not in lines:
            place = (h.sign, h.old_path, h.old_no) if h.sign == b"-" else (h.sign, h.new_path, h.new_no)
            assert place in moved, (name, h.sign + h.text)  # only a line of a moved block may be missing
    for signal in load_sidecar(FIXTURES / "signals.toml")[name]:
        assert signal.encode() in visible, signal
    assert missing_signals(visible, load_sidecar(FIXTURES / "signals.toml")[name], auto_signals("diff", raw)) == []


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_diff_saves_what_it_did(name):
    raw = fixture(name)
    visible, _ = run_real(raw)
    assert 1 - len(visible) / len(raw) >= REAL[name]


@pytest.mark.parametrize("name", ["diff_cargo_lock_and_code.diff", "diff_moved_block_refactor.diff", "git_show_moved_rename.txt"])
def test_whole_graph_signal_recovery_restore(name):
    packet = reduce_bytes(fixture(name), source=name)
    assert packet.type == ("gitlog" if name.startswith("git_show") else "diff")
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    assert len(packet.visible) < len(packet.raw)


# --- context: none next to a pure block, one next to a mixed change, configurable ------------------------


def expected_context(raw: bytes, context_keep: int, pure_keep: int, skip=b"Cargo.lock") -> tuple[int, int, int]:
    """The context lines the rule leaves visible, computed on the raw hunks: a run of unchanged lines
    keeps ``context_keep`` lines on the side of a block that removes and adds, ``pure_keep`` on the
    side of a block that only adds or only removes, nothing on the side of a hunk header or the hunk
    end; the rest goes when it is longer than its ``⋯ N`` hint. Also how many pure and mixed blocks."""
    hunks: dict[int, list[Line]] = {}
    for h in hunk_lines(raw):
        if h.new_path != skip:
            hunks.setdefault(h.hunk, []).append(h)
    shown = pure = mixed = 0
    for lines in hunks.values():
        runs = []  # [sign set or None for context, lines]
        for h in lines:
            kind = None if h.sign == b" " else "chg"
            if runs and runs[-1][0] == kind:
                runs[-1][1].append(h)
            else:
                runs.append([kind, [h]])
        keeps = [None if kind is None else (pure_keep if len({h.sign for h in run_real}) == 1 else context_keep) for kind, run_real in runs]
        pure += sum(1 for kind, run_real in runs if kind and len({h.sign for h in run_real}) == 1)
        mixed += sum(1 for kind, run_real in runs if kind and len({h.sign for h in run_real}) == 2)
        for k, (kind, run_real) in enumerate(runs):
            if kind is not None:
                continue
            head = keeps[k - 1] if k > 0 else 0
            tail = keeps[k + 1] if k + 1 < len(runs) else 0
            cut = run_real[head : len(run_real) - tail] if head + tail < len(run_real) else []
            if cut and sum(len(h.text) + 2 for h in cut) > len(f"⋯ {len(cut)}\n".encode()):
                shown += len(run_real) - len(cut)
            else:
                shown += len(run_real)
    return shown, pure, mixed


@pytest.mark.parametrize("context_keep, pure_keep", [(1, 0), (1, 2), (3, 0), (0, 0)])
def test_context_next_to_pure_and_mixed_blocks(context_keep, pure_keep):
    raw = fixture("diff_binary_files_added.diff")  # pure additions (new functions, docs) and edits
    visible, _ = run_real(raw, context_keep=context_keep, pure_keep=pure_keep)
    assert not MOVED.search(visible)
    shown, pure, mixed = expected_context(raw, context_keep, pure_keep)
    assert pure >= 5 and mixed >= 5
    assert sum(1 for line in visible.split(b"\n") if line[:1] == b" ") == shown


def test_pure_addition_has_no_context_by_default():
    raw = fixture("diff_binary_files_added.diff")
    visible, _ = run_real(raw)
    lines = visible.split(b"\n")
    # a paragraph added to README.md sits between the hints of its context, none of which shows
    k = lines.index(b"+* `ripgrep` supports searching files compressed in a common format (gzip, xz,")
    assert lines[k - 1] == "⋯ 3".encode() and lines[k + 2] == "⋯ 3".encode()
    # an edit of doc/rg.1 keeps one line of context on each side
    k = lines.index(b"-This is equivalent to adding ^ to the list of search patterns.")
    assert lines[k - 1] == b" Show both matching and non\\-matching lines." and HINT.match(lines[k - 2])
    assert lines[k + 4] == b" .RS" and HINT.match(lines[k + 5])


def test_hints_are_short_and_count_every_unchanged_line():
    raw = fixture("diff_moved_block_refactor.diff")
    visible, contents = run_real(raw, TIGHT)
    hinted = sum(int(n) for n in HINT.findall(visible))
    context_raw = sum(1 for h in hunk_lines(raw) if h.sign == b" ")
    context_shown = sum(1 for line in visible.split(b"\n") if line[:1] == b" ")
    assert hinted > 50 and context_shown + hinted == context_raw
    hint_bytes = sum(len(m.group()) + 1 for m in HINT.finditer(visible))
    assert hint_bytes / len(visible) < 0.03  # "⋯ 12": a few bytes, not "⋯ 12 unchanged lines"
    assert b"unchanged lines" not in visible.replace(b"unchanged lines (\xe2\x8b\xaf N)", b"")
    # the one ref holds exactly the lines the hints, the index lines and the moved blocks stand for
    [ref] = contents.values()
    moved = sum(2 * int(n) for n, *_ in set(MOVED.findall(visible)))
    index = sum(1 for line in raw.split(b"\n") if line.startswith(b"index "))
    assert ref.count(b"\n") == hinted + index + moved


# --- lockfiles and generated files ---------------------------------------------------------------


def test_npm_lockfile_is_one_summary_line_and_its_hunks_are_behind_the_ref():
    raw = fixture("diff_npm_lockfile_bump.diff")
    visible, contents = run_real(raw)
    lines = visible.split(b"\n")
    assert lines[0] == b"diff --git a/package-lock.json b/package-lock.json"
    assert lines[1:3] == [b"--- a/package-lock.json", b"+++ b/package-lock.json"]  # the file's own header lines stay
    summary = lines[3].decode()
    assert summary.startswith("⋯ 11 packages changed: ")
    for change in ("cookie 0.4.2 → 0.7.2", "socket.io 4.5.0 → 4.8.1", "engine.io 6.2.1 → 6.6.2", "ws 8.2.3 → 8.17.1",
                   "@socket.io/base64-arraybuffer (removed 1.0.2)", "@socket.io/component-emitter (added 3.1.2)"):
        assert change in summary
    added = sum(1 for h in hunk_lines(raw) if h.sign == b"+")
    removed = sum(1 for h in hunk_lines(raw) if h.sign == b"-")
    assert f"(+{added} -{removed} lines)" in summary
    assert len(lines) == 6 and lines[5] == b""  # header lines, summary, marker
    [ref] = contents.values()
    index_line = raw[raw.index(b"\n") + 1 : raw.index(b"\n--- ") + 1]
    assert ref == index_line + raw[raw.index(b"\n@@") + 1 :]  # the index line and every hunk


def test_cargo_lock_summarised_code_kept():
    raw = fixture("diff_cargo_lock_and_code.diff")
    visible, _ = run_real(raw)
    assert (b"diff --git a/Cargo.lock b/Cargo.lock\n--- a/Cargo.lock\n+++ b/Cargo.lock\n"
            b"\xe2\x8b\xaf 15 packages changed: aho-corasick 1.1.4 \xe2\x86\x92 1.1.5") in visible
    assert "regex-automata 0.4.15 → 0.4.18".encode() in visible
    code = {h.sign + h.text for h in hunk_lines(raw) if h.new_path != b"Cargo.lock" and h.sign != b" "}
    assert code and code <= visible_lines(visible)
    lock = {h.sign + h.text for h in hunk_lines(raw) if h.new_path == b"Cargo.lock" and h.sign != b" "} - code
    assert len(lock) > 30 and not lock & visible_lines(visible)


def test_signal_check_skips_summarised_files_by_path_alone():
    raw = fixture("diff_cargo_lock_and_code.diff")
    auto = set(auto_signals("diff", raw))
    lock = {h.sign + h.text for h in hunk_lines(raw) if h.new_path == b"Cargo.lock" and h.sign != b" "}
    code = {h.sign + h.text for h in hunk_lines(raw) if h.new_path != b"Cargo.lock" and h.sign != b" "}
    assert not (auto & (lock - code)) and code <= auto and len(lock - code) > 30
    # the rule looks at the path, not at what a reducer made: the same hunks under another name count
    renamed = raw.replace(b"a/Cargo.lock b/Cargo.lock", b"a/Cargo.lock.txt b/Cargo.lock.txt")
    assert len(lock & set(auto_signals("diff", renamed)) - code) > 30
    visible, _ = run_real(renamed)  # not summarised: every changed line of it shows
    assert not missing_signals(visible, [], auto_signals("diff", renamed))
    # and the check still bites: a code line taken out of the visible text is missing
    line = sorted(code)[0]
    assert missing_signals(run_real(raw)[0].replace(line + b"\n", b""), [], sorted(auto)) == [line.decode()]


# --- moved blocks ----------------------------------------------------------------------------------------


def test_moved_blocks_shown_once_with_their_places_and_bytes_in_the_ref():
    raw = fixture("diff_moved_block_refactor.diff")
    visible, contents = run_real(raw, TIGHT)  # no room for their lines
    hunks = hunk_lines(raw)
    removed = {(h.old_path, h.old_no): h.text for h in hunks if h.sign == b"-"}
    added = {(h.new_path, h.new_no): h.text for h in hunks if h.sign == b"+"}
    moves = MOVED.findall(visible)
    assert len(set(moves)) >= 8 and all(moves.count(m) == 2 for m in moves)  # at the old place and the new
    total = 0
    for n, a, a_line, b, b_line in set(moves):
        n, a_line, b_line = int(n), int(a_line), int(b_line)
        old = [removed[a, a_line + k] for k in range(n)]
        assert old == [added[b, b_line + k] for k in range(n)]  # verbatim
        assert n >= 3 or sum(map(len, old)) >= 80
        total += n
    assert (b"moved 31 lines from crates/core/path_printer.rs:104 to crates/printer/src/path.rs:149") in visible
    assert f"{2 * total} moved lines".encode() in visible
    [ref] = contents.values()
    assert b"-/// A configuration for describing how paths should be written.\n" in ref
    # SIGNAL's own rule: a changed line that occurs with the other sign too is not asked for
    auto = auto_signals("diff", raw)
    assert not missing_signals(visible, [], auto)
    assert b"-/// A configuration for describing how paths should be written." not in auto


def _one_move(n: int = 200) -> tuple[bytes, list[bytes]]:
    """A diff that moves ``n`` lines from old.py into a new file, and those lines."""
    body = [f"    value_{k} = compute({k}, 'planted-{k}')\n".encode() for k in range(n)]
    raw = (b"diff --git a/old.py b/old.py\n--- a/old.py\n+++ b/old.py\n@@ -1,%d +1,2 @@\n def keep():\n" % (n + 2)
           + b"".join(b"-" + line for line in body) + b"     pass\n"
           + b"diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,%d @@\n" % n
           + b"".join(b"+" + line for line in body))
    return raw, body


def test_a_moved_blocks_added_lines_are_shown_where_they_were_added_when_the_room_holds_them():
    """A moved block folds at both places only when the view has no room for it: with room, its added
    lines stay as printed (the code as it reads now) and the removed place keeps its one line saying
    where they went; with room for part of it, its first lines stay and the line after them counts them."""
    raw, body = _one_move()
    visible, contents = run_real(raw)
    assert all(b"+" + line in visible for line in body)
    assert not any(b"-" + line in visible for line in body)
    assert visible.count(b"\xe2\x8b\xaf moved 200 lines from old.py:2 to new.py:1\n") == 1
    # room for part of it (at least MOVED_PART_MIN bytes): its first lines, as many as the room holds
    visible, _ = run_real(raw, 5_000)
    shown = re.search(rb"^\xe2\x8b\xaf moved 200 lines from old\.py:2 to new\.py:1: the first (\d+) shown above$", visible, re.M)
    first = int(shown.group(1))
    assert 20 < first < 200 and len(visible) <= 5_000 * diff.ROOM_SHARE
    assert [b"+" + line in visible for line in body] == [True] * first + [False] * (200 - first)
    # no room: both places fold, as before
    visible, _ = run_real(raw, 2_000)
    assert visible.count(b"\xe2\x8b\xaf moved 200 lines from old.py:2 to new.py:1\n") == 2
    assert b"value_0 =" not in visible


def test_moved_blocks_through_git_show():
    packet = reduce_bytes(fixture("git_show_moved_rename.txt"), source="git_show_moved_rename.txt")
    assert b"\xe2\x8b\xaf moved " in packet.visible
    assert b"rename to crates/printer/src/hyperlink/mod.rs" in packet.visible
    assert packet.signal_pass and packet.restore_pass


# --- binary and rename-only files: one line each --------------------------------------------------------


def test_binary_files_are_one_line_each():
    raw = fixture("diff_binary_files_added.diff")
    visible, _ = run_real(raw)
    lines = visible.split(b"\n")
    binaries = [line for line in raw.split(b"\n") if line.startswith(b"Binary files ")]
    assert len(binaries) == 4
    for line in binaries:
        k = lines.index(line)
        path = line.split(b" b/")[1].split(b" differ")[0]
        assert lines[k - 1] != b"diff --git a/" + path + b" b/" + path and b"diff --git a/" + path not in visible
        assert lines[k + 1].startswith((b"diff --git ", b"Binary files "))


def test_rename_only_files_are_their_rename_lines():
    raw = fixture("diff_renames.diff")
    visible, _ = run_real(raw)
    lines = visible.split(b"\n")
    for old, new in ((b"ci/sha256.sh", b"ci/sha256-releases"), (b"ci/test_complete.sh", b"ci/test-complete")):
        k = lines.index(b"diff --git a/" + old + b" b/" + new)
        # the rename lines as git prints them (what an agent greps for); the similarity line goes
        assert lines[k + 1 : k + 3] == [b"rename from " + old, b"rename to " + new]
        assert lines[k + 3].startswith(b"diff --git ")
    # a renamed file with changes keeps its rename lines
    assert b"rename from ci/build_deb.sh\nrename to ci/build-deb\n" in visible


# --- other lockfile formats: real hunks (git diff of one commit, the lockfile only) ----------------------------
PNPM_V5 = (  # antfu/ni 8614e036b2c9
    b'diff --git a/pnpm-lock.yaml b/pnpm-lock.yaml\n'
    b'index 6a9dc1d..dc4eef1 100644\n'
    b'--- a/pnpm-lock.yaml\n'
    b'+++ b/pnpm-lock.yaml\n'
    b'@@ -5,6 +5,7 @@ specifiers:\n'
    b"   '@types/ini': ^1.3.30\n"
    b"   '@types/node': ^16.7.10\n"
    b"   '@types/prompts': ^2.4.0\n"
    b"+  '@types/which': ^2.0.1\n"
    b'   ava: ^3.15.0\n'
    b'   c8: ^7.8.0\n'
    b'   esbuild-register: ^3.0.0\n'
    b'@@ -19,12 +20,14 @@ specifiers:\n'
    b'   terminal-link: ^3.0.0\n'
    b'   tsup: ^4.14.0\n'
    b'   typescript: ^4.4.2\n'
    b'+  which: ^2.0.2\n'
    b' \n'
    b' devDependencies:\n'
    b"   '@antfu/eslint-config-ts': 0.7.0_eslint@7.32.0+typescript@4.4.2\n"
    b"   '@types/ini': 1.3.30\n"
    b"   '@types/node': 16.7.10\n"
    b"   '@types/prompts': 2.4.0\n"
    b"+  '@types/which': 2.0.1\n"
    b'   ava: 3.15.0\n'
    b'   c8: 7.8.0\n'
    b'   esbuild-register: 3.0.0\n'
    b'@@ -39,6 +42,7 @@ devDependencies:\n'
    b'   terminal-link: 3.0.0\n'
    b'   tsup: 4.14.0_typescript@4.4.2\n'
    b'   typescript: 4.4.2\n'
    b'+  which: 2.0.2\n'
    b' \n'
    b' packages:\n'
    b' \n'
    b'@@ -420,6 +424,10 @@ packages:\n'
    b'     resolution: {integrity: sha512-7th8Opn+0XlN0O6qzO7dXOPwL6rigq/EwRS2DntaTHwSw8cLaYKeAPt5dWEKHSL+ffVSUl1itTPUC06+FlsV4Q==}\n'
    b'     dev: true\n'
    b' \n'
    b'+  /@types/which/2.0.1:\n'
    b'+    resolution: {integrity: sha512-Jjakcv8Roqtio6w1gr0D7y6twbhx6gGgFGF5BLwajPpnOIOxFkakFhCq+LmyyeAz7BX6ULrjBOxdKaCDy+4+dQ==}\n'
    b'+    dev: true\n'
    b'+\n'
    b'   /@typescript-eslint/eslint-plugin/4.30.0_8a8a2d3eaa9257455a03c16dce5f55b3:\n'
    b'     resolution: {integrity: sha512-NgAnqk55RQ/SD+tZFD9aPwNSeHmDHHe5rtUyhIq0ZeCWZEvo4DK9rYz7v9HDuQZFvn320Ot+AikaCKMFKLlD0g==}\n'
    b'     engines: {node: ^10.12.0 || >=12.0.0}\n'
)
YARN_V1 = (  # jaredpalmer/formik 34a0805b774e
    b'diff --git a/yarn.lock b/yarn.lock\n'
    b'index 0e7020d5..d3f843c0 100644\n'
    b'--- a/yarn.lock\n'
    b'+++ b/yarn.lock\n'
    b'@@ -449,14 +449,6 @@\n'
    b'   resolved "https://registry.yarnpkg.com/@types/estree/-/estree-0.0.39.tgz#e177e699ee1b8c22d23174caaa7422644389509f"\n'
    b'   integrity sha512-EYNwp3bU+98cpU4lAWYYL7Zz+2gryWH1qbdDTidVd6hkiR6weksdbMadyXKXNPEkQFhXM+hVO9ZygomHXp+AIw==\n'
    b' \n'
    b'-"@types/hoist-non-react-statics@^3.3.1":\n'
    b'-  version "3.3.1"\n'
    b'-  resolved "https://registry.yarnpkg.com/@types/hoist-non-react-statics/-/hoist-non-react-statics-3.3.1.tgz#1124aafe5118cb591977aeb1ceaaed1070eb039f"\n'
    b'-  integrity sha512-iMIqiko6ooLrTh1joXodJK5X9xeEALT1kM5G3ZLhD3hszxBdIEd5C75U834D9mLcINgD4OyZf5uQXjkuYydWvA==\n'
    b'-  dependencies:\n'
    b'-    "@types/react" "*"\n'
    b'-    hoist-non-react-statics "^3.3.0"\n'
    b'-\n'
    b' "@types/jest-diff@*":\n'
    b'   version "20.0.1"\n'
    b'   resolved "https://registry.yarnpkg.com/@types/jest-diff/-/jest-diff-20.0.1.tgz#35cc15b9c4f30a18ef21852e255fdb02f6d59b89"\n'
)
GO_SUM = (  # spf13/cobra 7da941c3547e
    b'diff --git a/go.sum b/go.sum\n'
    b'index de8d9a7..fafe83d 100644\n'
    b'--- a/go.sum\n'
    b'+++ b/go.sum\n'
    b'@@ -4,8 +4,8 @@ github.com/inconshreveable/mousetrap v1.1.0 h1:wN+x4NVGpMsO7ErUn/mUI3vEoE6Jt13X2\n'
    b' github.com/inconshreveable/mousetrap v1.1.0/go.mod h1:vpF70FUmC8bwa3OWnCshd2FqLfsEA9PFc4w1p2J65bw=\n'
    b' github.com/russross/blackfriday/v2 v2.1.0 h1:JIOH55/0cWyOuilr9/qlrm0BSXldqnqwMsf35Ld67mk=\n'
    b' github.com/russross/blackfriday/v2 v2.1.0/go.mod h1:+Rmxgy9KzJVeS9/2gXHxylqXiyQDYRxCVz55jmeOWTM=\n'
    b'-github.com/spf13/pflag v1.0.8 h1:/v546uKZ4gFGHpyXvV6CNKDeJBu4l5PRvxwQvdWrc0I=\n'
    b'-github.com/spf13/pflag v1.0.8/go.mod h1:McXfInJRrz4CZXVZOBLb0bTZqETkiAhM9Iw0y3An2Bg=\n'
    b'+github.com/spf13/pflag v1.0.9 h1:9exaQaMOCwffKiiiYk6/BndUBv+iRViNW+4lEMi0PvY=\n'
    b'+github.com/spf13/pflag v1.0.9/go.mod h1:McXfInJRrz4CZXVZOBLb0bTZqETkiAhM9Iw0y3An2Bg=\n'
    b' gopkg.in/check.v1 v0.0.0-20161208181325-20d25e280405 h1:yhCVgyC4o1eVCa2tZl7eS0r+SDo693bJlVdllGtEeKM=\n'
    b' gopkg.in/check.v1 v0.0.0-20161208181325-20d25e280405/go.mod h1:Co6ibVJAznAaIkqp8huTwlJQCZ016jof/cbN4VW5Yz0=\n'
    b' gopkg.in/yaml.v3 v3.0.1 h1:fxVm/GzAzEWqLHuvctI91KS9hhNmmWOoWu0XTYJS7CA=\n'
)
POETRY = (  # python-poetry/poetry b95f28aefeb3
    b'diff --git a/poetry.lock b/poetry.lock\n'
    b'index 06cbf032b..f538a59ab 100644\n'
    b'--- a/poetry.lock\n'
    b'+++ b/poetry.lock\n'
    b'@@ -1,4 +1,4 @@\n'
    b'-# This file is automatically @generated by Poetry 2.3.4 and should not be changed by hand.\n'
    b'+# This file is automatically @generated by Poetry 2.4.1 and should not be changed by hand.\n'
    b' \n'
    b' [[package]]\n'
    b' name = "anyio"\n'
    b'@@ -1977,14 +1977,14 @@ markers = {main = "python_version == \\"3.10\\"", github-actions = "python_version\n'
    b' \n'
    b' [[package]]\n'
    b' name = "tomlkit"\n'
    b'-version = "0.14.0"\n'
    b'+version = "0.15.0"\n'
    b' description = "Style preserving TOML library"\n'
    b' optional = false\n'
    b' python-versions = ">=3.9"\n'
    b' groups = ["main"]\n'
    b' files = [\n'
    b'-    {file = "tomlkit-0.14.0-py3-none-any.whl", hash = "sha256:592064ed85b40fa213469f81ac584f67a4f2992509a7c3ea2d632208623a3680"},\n'
    b'-    {file = "tomlkit-0.14.0.tar.gz", hash = "sha256:cf00efca415dbd57575befb1f6634c4f42d2d87dbba376128adb42c121b87064"},\n'
    b'+    {file = "tomlkit-0.15.0-py3-none-any.whl", hash = "sha256:4dbc8f0fc024412b57ced8757ac7461305126a648ff8c2c807fcb8e133a78738"},\n'
    b'+    {file = "tomlkit-0.15.0.tar.gz", hash = "sha256:7d1a9ecba3086638211b13814ea79c90dd54dd11993564376f3aa92271f5c7a3"},\n'
    b' ]\n'
    b' \n'
    b' [[package]]\n'
)
SNAPSHOT = (  # jaredpalmer/formik 2679523e27b9
    b'diff --git a/test/__snapshots__/Formik.test.tsx.snap b/test/__snapshots__/Formik.test.tsx.snap\n'
    b'index 2bae1ec4..bf750beb 100644\n'
    b'--- a/test/__snapshots__/Formik.test.tsx.snap\n'
    b'+++ b/test/__snapshots__/Formik.test.tsx.snap\n'
    b'@@ -5,7 +5,7 @@ exports[`Formik renders Formik correctly 1`] = `\n'
    b'   onSubmit={[Function]}\n'
    b' >\n'
    b'   <input\n'
    b'-    name="thing"\n'
    b'+    name="name"\n'
    b'     onBlur={[Function]}\n'
    b'     onChange={[Function]}\n'
    b'     type="text"\n'
)
CODE_FILE = (  # a code change next to them: it stays whole
    b"diff --git a/src/run.py b/src/run.py\nindex 1111111..2222222 100644\n--- a/src/run.py\n+++ b/src/run.py\n"
    b"@@ -1,2 +1,2 @@\n import os\n-raise SystemExit(run(os.environ))\n+raise SystemExit(run(dict(os.environ)))\n"
)


@pytest.mark.parametrize("raw, summary", [
    (PNPM_V5, "⋯ 2 packages changed: @types/which (added 2.0.1), which (added 2.0.2) (+8 -0 lines)"),
    (YARN_V1, "⋯ 1 package changed: @types/hoist-non-react-statics (removed 3.3.1) (+0 -8 lines)"),
    (GO_SUM, "⋯ 1 package changed: github.com/spf13/pflag v1.0.8 → v1.0.9 (+2 -2 lines)"),
    (POETRY, "⋯ 1 package changed: tomlkit 0.14.0 → 0.15.0 (+4 -4 lines)"),
    (SNAPSHOT, "⋯ generated file: +1 -1 lines"),
])
def test_lockfile_formats_are_summarised(raw, summary):
    raw = raw + CODE_FILE
    visible, contents = run_real(raw)
    lines = visible.decode().split("\n")
    assert lines[0].startswith("diff --git a/") and lines[1].startswith("--- ") and lines[2].startswith("+++ ")
    assert lines[3] == summary
    assert lines[4] == "diff --git a/src/run.py b/src/run.py"
    assert "-raise SystemExit(run(os.environ))" in lines and "+raise SystemExit(run(dict(os.environ)))" in lines
    assert missing_signals(visible, [], auto_signals("diff", raw)) == []
    [ref] = contents.values()
    first_hunk = raw.index(b"\n@@ ") + 1
    assert raw[first_hunk : raw.index(b"diff --git a/src/run.py")] in ref


@pytest.mark.parametrize("path, summarised", [
    (b"package-lock.json", True), (b"web/yarn.lock", True), (b"pnpm-lock.yaml", True), (b"poetry.lock", True),
    (b"Cargo.lock", True), (b"Gemfile.lock", True), (b"go.sum", True), (b"composer.lock", True),
    (b"dist/axios.min.js", True), (b"dist/site.min.css", True), (b"dist/axios.js.map", True),
    (b"test/__snapshots__/Formik.test.tsx.snap", True), (b"src/__snapshots__/x.ts", True),
    (b"src/lock.rs", False), (b"Cargo.toml", False), (b"package.json", False), (b"go.mod", False),
    (b"src/admin.js", False), (b"docs/sitemap.xml", False), (b"yarn.lock.md", False),
])
def test_summarised_file_rule(path, summarised):
    from operators.vocab import summarised_file

    assert summarised_file(path) is summarised


def test_crlf_diff_summaries_end_as_their_lines_do():
    raw = (fixture("diff_moved_block_refactor.diff") + fixture("diff_cargo_lock_and_code.diff")).replace(b"\n", b"\r\n")
    visible, _ = run_real(raw, TIGHT)  # restores byte for byte
    moved = re.findall(rb"^\xe2\x8b\xaf moved [^\r\n]*(\r?\n)", visible, re.M)
    assert len(moved) >= 16 and set(moved) == {b"\r\n"}
    assert re.search(rb"^\xe2\x8b\xaf 15 packages changed: [^\r\n]*\(\+41 -30 lines\)\r\n", visible, re.M)
    assert all(end == b"\r\n" for end in re.findall(rb"^\xe2\x8b\xaf \d+(\r?\n)", visible, re.M))
    assert not missing_signals(visible, [], auto_signals("diff", raw))


def test_plain_unified_diff_without_git_headers():
    # diff -ru output of the same move: the paths come from the ---/+++ lines
    raw = fixture("diff_moved_block_refactor.diff")
    plain = re.sub(rb"^(?:diff --git .*|index .*)\n", b"", raw, flags=re.M)
    visible, _ = run_real(plain)
    assert b"moved 31 lines from crates/core/path_printer.rs:104 to crates/printer/src/path.rs:149" in visible
    assert not missing_signals(visible, [], auto_signals("diff", plain))


def moved_pair(block: bytes) -> bytes:
    """A diff that removes ``block`` (lines without their sign) from one file and adds it to another."""
    lines = block.splitlines(keepends=True)
    minus, plus = b"".join(b"-" + line for line in lines), b"".join(b"+" + line for line in lines)
    ctx = b"".join(b" unchanged line number %d of the file\n" % i for i in range(3))
    n = len(lines)
    return (
        b"diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -10,%d +10,3 @@\n" % (n + 3) + ctx + minus
        + b"diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -20,3 +20,%d @@\n" % (n + 3) + ctx + plus
    )


@pytest.mark.parametrize("block, moved", [
    (b"def parse_numbers(text, *, strict=False):\n    return [int(value) for value in text.split(',') if value]\n", True),
    (b"def parse(text):\n    return [int(x) for x in text.split()]\n", False),  # 2 lines, 57 bytes
    (b"x = compute()\ny = other()\n", False),  # 2 short lines: not a block
    (b"alpha = load_alpha()\nbeta = load_beta()\ngamma = 1\n", True),  # 3 lines
    (b"    }\n  }\n}\n", False),  # 3 lines but no 20 letters or digits
])
def test_moved_block_size_rule(block, moved):
    raw = moved_pair(block)
    visible, _ = run_real(raw, context_keep=1)
    n = len(block.splitlines())
    assert (f"\u22ef moved {n} lines from a.py:13 to b.py:23".encode() in visible) is moved
    assert not missing_signals(visible, [], auto_signals("diff", raw))


@pytest.mark.parametrize("name", ["diff_moved_block_refactor.diff", "diff_npm_lockfile_bump.diff", "diff_binary_files_added.diff"])
def test_cut_and_spliced_real_diffs_restore(name):
    """A diff cut anywhere (a truncated paste) or with its files in another order still restores exactly."""
    import random

    raw = fixture(name)
    rng = random.Random(16)
    for _ in range(25):
        cut = raw[: rng.randrange(len(raw))]
        assert not missing_signals(run_real(cut)[0], [], auto_signals("diff", cut))
    files = re.split(rb"(?=^diff --git )", raw, flags=re.M)
    for _ in range(5):
        rng.shuffle(files)
        spliced = b"".join(files)
        visible, _ = run_real(spliced)
        assert not missing_signals(visible, [], auto_signals("diff", spliced))


def test_git_diff_stat_alone_is_a_diff_and_its_lines_are_must_see():
    """`git diff --stat` output is a diff's file list: every line ranks with the file headers (tier 0);
    inside a commit (`git show --stat`) the same lines are the commit's context (tier 1)."""
    from operators.rank import line_tiers

    stat = [b" src/module_%d/handler.py%s |  %d +%s" % (k, b" " * (20 - len(str(k))), k + 1, b"-" * (k % 3))
            for k in range(40)]
    raw = b"\n".join(stat + [b" 40 files changed, 820 insertions(+), 39 deletions(-)"]) + b"\n"
    assert classify(raw, None)[0] == "diff"
    tiers, _ = line_tiers("diff", raw.split(b"\n")[:-1], None)
    assert tiers[:40] == [0] * 40
    show = (b"commit " + b"a" * 40 + b"\nAuthor: A <a@example.com>\nDate:   Mon Jan 1 10:00:00 2026 +0000\n\n"
            b"    Move handlers\n\n" + raw)
    assert classify(show, None)[0] == "gitlog"
    lines = show.split(b"\n")[:-1]
    tiers, _ = line_tiers("gitlog", lines, None)
    assert {tiers[i] for i, line in enumerate(lines) if b" | " in line} == {1}
    assert classify(b"\n".join(stat[:2]) + b"\nsome other line\n", None)[0] != "diff"


def test_a_stat_listing_alone_loses_its_column_padding_not_its_lines():
    """``git diff --stat``: the longest path pads every line to its ``|``; shown lines keep one space
    there (and after the bar), the rest goes to one ref named on a last line, every file line stays
    whole otherwise and the listing restores exactly (reduce_alone checks it)."""
    long_path = b"packages/core/src/very/deeply/nested/module/with/a/long/name/index.ts"
    paths = [b"src/m%02d.py" % k for k in range(60)] + [long_path]
    width = len(long_path)
    rows = [b" %s%s | %4d %s" % (p, b" " * (width - len(p)), 7 * k + 1, b"+" * (k % 9 + 1))
            for k, p in enumerate(paths)]
    raw = b"\n".join(rows) + b"\n 61 files changed, 2000 insertions(+), 30 deletions(-)\n"
    alone = reduce_alone(diff, raw, named=True)
    visible = alone.visible
    assert len(visible) < 0.5 * len(raw)
    for k, p in enumerate(paths):
        assert b" %s | %d %s\n" % (p, 7 * k + 1, b"+" * (k % 9 + 1)) in visible
    assert b" 61 files changed, 2000 insertions(+), 30 deletions(-)\n" in visible
    assert re.search(rb"^\[runs of spaces aligning the columns shortened: #ref:ctx_\w+\]$", visible, re.M)
    assert set(b"".join(alone.contents.values())) == {ord(" ")}


RANK_LINES = [b"diff --git a/f b/f", b"--- a/f", b"+++ b/f", b"index 1234..5678", b"@@ -1,3 +1,3 @@", b"+a", b"-b", b" c",
              b"", b"x", b"\xe2\x8b\xaf 3", b" f.py | 3 ++-", b" f.py |", b" img.png | Bin 0 -> 12 bytes\r", b"rename to b",
              b"Binary files a and b differ", b"+x\r"]


@settings(max_examples=examples(500), deadline=None)
@given(lines=st.lists(st.sampled_from(RANK_LINES), max_size=60), added=st.integers(0, 320), last_nl=st.booleans(),
       twin=st.booleans())
def test_ranks_of_a_whole_candidate_are_the_line_by_line_ranks(lines, added, last_nl, twin):
    """``rank_lines`` of a whole candidate (``rank.Lines``: the kernel's ``diff_ranks``, or its twin)
    gives what the line-by-line loop gives for the same lines as a list."""
    from operators.kernel import TWINS
    from operators.rank import Lines

    text = b"\n".join(lines + [b"@@ -1 +1 @@"] + [b"+y"] * added + [b" z"]) + (b"\n" if last_nl else b"")
    whole = Lines(text)
    with pytest.MonkeyPatch.context() as mp:
        if twin:
            mp.setattr(diff, "diff_ranks", TWINS["diff_ranks"])
        ranked = diff.rank_lines(whole, None)
    assert ranked == diff.rank_lines(list(whole), None)


@pytest.mark.parametrize("name", ["sample.diff", "diff_renames.diff", "diff_moved_block_refactor.diff", "git_log_p.txt",
                                  "git_show.txt", "git_log_stat.txt"])
def test_ranks_of_real_diffs_are_the_line_by_line_ranks(name):
    from operators.rank import Lines

    whole = Lines((FIXTURES / name).read_bytes())
    assert diff.rank_lines(whole, None) == diff.rank_lines(list(whole), None)
