"""The build type (operators/types/build.py): failures, summaries and tracebacks stay, passing noise folds,
failures fitted to the room on real pytest outputs; exact restore."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import cut, examples, FIXTURES, reduce_bytes, reducing_any_size
from operators.ceiling import CeilingSettings, fit, visible_size
from operators.reduction import omissions, render, restore
from operators.signals import auto_signals, missing_signals
from operators.types import build
from operators.types.build import display_signals, reduce_build, visible_signal_lines
from operators.vocab import SIGNAL_RE, display_line, display_text

BUILD_FIXTURES = ["pytest_failure.txt", "gcc_errors.txt", "npm_install.txt", "pip_install.txt", "mocha_spec_axios.txt"]
ESC = b"\x1b"


def plan_visible(raw: bytes, granularity: str = "coarse") -> tuple[bytes, bool]:
    """Reduce with the build reducer only; return the visible bytes and whether restore is exact."""
    plan = reduce_build(raw, granularity)
    contents = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    return visible, restore(visible, layout, list(contents.values())) == raw


def check_signals(packet) -> list[str]:
    """The SIGNAL check as it runs with the proposed signals.py change (compare displayed text)."""
    visible, auto = display_signals(packet.visible, auto_signals(packet.type, packet.raw))
    return missing_signals(visible, packet.expected_signals, auto)


@pytest.fixture(scope="module")
def pytest_raw() -> bytes:
    return (FIXTURES / "pytest_failure.txt").read_bytes()


@pytest.mark.parametrize("name", BUILD_FIXTURES)
def test_fixture_through_the_graph_is_build_restores_and_keeps_every_signal(name):
    from operators.signals import load_sidecar

    raw = (FIXTURES / name).read_bytes()
    planted = load_sidecar(FIXTURES / "signals.toml")[name]
    packet = reduce_bytes(raw, source=f"fixtures/{name}", expected_signals=planted, forced_type="build")
    assert packet.recovery_pass and packet.restore_pass
    assert len(packet.references) == 1  # coarse: one ref for all the noise
    assert len(packet.visible) < 0.7 * len(raw)
    assert check_signals(packet) == []
    for line in visible_signal_lines(raw):
        assert line in packet.visible, line
    assert ESC not in packet.visible


@pytest.mark.parametrize("name", [
    "pytest_failure.txt", "gcc_errors.txt", "npm_install.txt", "pip_install.txt",
])
def test_build_fixtures_classify_as_build(name):
    from operators.classify import classify

    assert classify((FIXTURES / name).read_bytes())[0] == "build"


def test_npm_10_lowercase_output_classifies_as_build():
    from operators.classify import classify

    raw = b"npm warn deprecated inflight@1.0.6: This module is not supported\nnpm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree\n"
    assert classify(raw)[0] == "build"


def test_pytest_keeps_every_failed_line_summary_and_traceback(pytest_raw):
    visible, exact = plan_visible(pytest_raw)
    assert exact
    lines = pytest_raw.split(b"\n")
    failed = [line for line in lines if re.search(rb"\b(?:FAILED|ERROR)\b", line)]
    assert len(failed) >= 9
    for line in failed:
        assert line in visible
    assert b"========= 3 failed, 118 passed, 1 skipped, 1 warning, 1 error in 2.37s =========" in visible
    # each failure's traceback: its ____ header, the failing ">" line, every "E" line and each frame's
    # file:line stay as whole lines; the rest of the quoted source folds behind the ref
    text = pytest_raw.decode()
    start = text.index("==================================== ERRORS")
    end = text.index("=============================== warnings summary")
    section = text[start:end].encode().split(b"\n")
    visible_lines = set(visible.split(b"\n"))
    must = [line for line in section if re.match(rb"^(?:>|E(?: |$)|_{3,} |\S+?:\d+: )", line)]
    assert len(must) >= 20
    assert [line for line in must if line not in visible_lines] == []
    quoted = [line for line in section if line.startswith(b"    ") and not SIGNAL_RE.search(line)]
    assert len(quoted) >= 10
    assert sum(line in visible_lines for line in quoted) < len(quoted) // 2
    assert re.search(rb"\[\d+ source lines\]", visible)
    assert b"tests/test_cart.py::test_add_quantity[1] PASSED" not in visible
    assert b"[folded 37 lines: PASSED \xc3\x9737]" in visible
    assert b"rootdir: /home/ci/work/shop" not in visible


def test_gcc_keeps_diagnostics_with_caret_context_and_their_directory():
    raw = (FIXTURES / "gcc_errors.txt").read_bytes()
    visible, exact = plan_visible(raw)
    assert exact
    for line in raw.split(b"\n"):
        if re.search(rb": (?:error|warning|note): |^\s*\d* *\|", line):
            assert line in visible, line
    # the directory of the storage_k.c warnings and its compile command stay; clean compiles fold
    assert b"make[1]: Entering directory '/home/ci/work/netq/storage'" in visible
    assert b"-c storage_k.c -o storage_k.o" in visible
    assert b"-c core_a.c -o core_a.o" not in visible
    assert b"make[1]: Entering directory '/home/ci/work/netq/core'" not in visible
    assert b"compile command \xc3\x97" in visible


def test_pip_progress_bars_escapes_and_redraws_fold_but_restore_exactly():
    raw = (FIXTURES / "pip_install.txt").read_bytes()
    assert raw.count(ESC) > 100 and b"\r\x1b[2K" in raw
    visible, exact = plan_visible(raw)
    assert exact
    assert ESC not in visible and b"\x08" not in visible
    assert "━".encode() not in visible  # download progress bars
    assert b"Collecting requests==2.31.0" not in visible
    assert b"error: subprocess-exited-with-error" in visible
    assert b"Exception: Can not find valid pkg-config name." in visible
    assert b"  Getting requirements to build wheel ... error" in visible  # spinner backspaces removed
    assert b"progress redraw \xc3\x97" in visible


def test_npm_err_block_is_kept_and_http_noise_is_one_folded_line():
    raw = (FIXTURES / "npm_install.txt").read_bytes()
    visible, exact = plan_visible(raw)
    assert exact
    for line in raw.split(b"\n"):
        if line.startswith(b"npm ERR!"):
            assert line in visible
    assert b"npm http fetch" not in visible
    assert visible.count(b"[folded 96 lines: npm log \xc3\x9796]\n") == 1 and visible.count(b"\n[folded ") == 0


def test_mocha_numbered_failures_stay_whole_though_their_lines_repeat_but_for_numbers():
    """mocha prints after ``N failing`` each failure as ``  3) suite``, the test's name, the error, the
    expected/actual diff and the frames; six failures of one suite repeat those lines but for their
    numbers and places, which must not fold them as noise (the number, the location and the diff go)."""
    passing = b"".join(b"    \xe2\x9c\x94 should match pattern %d\n" % k for k in range(40))
    failures = b"".join(
        b"  %d) slash handling - posix\n       should support glob %d:\n\n"
        b"      AssertionError [ERR_ASSERTION]: The expression evaluated to a falsy value:\n\n"
        b"  assert(!isMatch('a/%d', '*'))\n\n      + expected - actual\n\n      -false\n      +true\n      \n"
        b"      at Context.<anonymous> (test/slashes-posix.js:%d:5)\n"
        b"      at process.processImmediate (node:internal/timers:483:21)\n\n" % (k, k, k, 50 + 7 * k)
        for k in range(1, 7))
    raw = b"\n  slash handling - posix\n" + passing + b"\n  40 passing (212ms)\n  6 failing\n\n" + failures
    visible, exact = plan_visible(raw)
    assert exact
    for k in range(1, 7):
        assert b"\n  %d) slash handling - posix\n" % k in visible
        assert b"      at Context.<anonymous> (test/slashes-posix.js:%d:5)\n" % (50 + 7 * k) in visible
    assert visible.count(b"      -false\n      +true\n") == 6 and b"should match pattern 3" not in visible


def colour(raw: bytes) -> bytes:
    """Colour a plain pytest run the way `pytest --color=yes` does (bold headers, red failures, green passes)."""
    out = []
    for line in raw.split(b"\n"):
        if line.startswith(b"="):
            line = b"\x1b[1m" + line + b"\x1b[0m"
        line = line.replace(b"FAILED", b"\x1b[31mFAILED\x1b[0m").replace(b"PASSED", b"\x1b[32mPASSED\x1b[0m")
        if line.startswith(b"E "):
            line = b"\x1b[1m\x1b[31m" + line + b"\x1b[0m"
        out.append(line)
    return b"\n".join(out)


def test_ansi_coloured_pytest_is_shown_without_escapes_and_restores(pytest_raw):
    raw = colour(pytest_raw)
    visible, exact = plan_visible(raw)
    assert exact
    assert ESC not in visible
    plain, _ = plan_visible(pytest_raw)
    body, _, footer = visible.rstrip(b"\n").rpartition(b"\n")
    assert body == plain.rstrip(b"\n").rpartition(b"\n")[0]  # the same text a plain run gives
    assert b"terminal escapes/redraws removed" in footer
    packet = reduce_bytes(raw, source="coloured", forced_type="build")
    assert packet.restore_pass and packet.recovery_pass
    assert check_signals(packet) == []


def test_display_signals_also_match_when_the_input_passed_through_unchanged():
    raw = b"\x1b[31mERROR: Could not find a version that satisfies the requirement nope==9\x1b[0m\n"
    packet = reduce_bytes(raw, source="short", forced_type="build")
    # short input: passes through, its escapes removed by the safety pass (the original bytes in a ref)
    assert packet.visible.startswith(b"ERROR: Could not find a version that satisfies the requirement nope==9\n")
    assert check_signals(packet) == []


def test_carriage_return_frames_progress_is_noise_and_a_final_error_frame_stays():
    lines = [f"Downloading layer {i}: {p}%".encode() for i in range(4) for p in (10, 50, 100)]
    progress = b"\r".join(lines) + b"\n"
    raw = b"step 1\n" + progress * 6 + b"Checking 10%\rChecking 90%\rerror: layer 3 checksum mismatch\n" + b"done\n" * 3
    visible, exact = plan_visible(raw)
    assert exact
    assert b"Downloading layer" not in visible
    assert b"error: layer 3 checksum mismatch\n" in visible
    assert b"Checking 90%" not in visible
    assert b"progress redraw \xc3\x976" in visible


def test_rare_lines_stay_and_repeated_unknown_lines_fold():
    raw = b"".join(f"  compiling module_{i}.ts\n".encode() for i in range(30))
    raw += b"the one odd line that matters\n" + b"Done in 4.2s.\n"
    visible, exact = plan_visible(raw)
    assert exact
    assert b"the one odd line that matters\n" in visible
    assert b"compiling module_7.ts" not in visible
    assert b"\xc3\x9730" in visible


def test_npm_10_lowercase_and_cargo_and_go_output():
    raw = (
        b"npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.\n"
        + b"".join(f"npm http fetch GET 200 https://registry.npmjs.org/p{i} 12ms (cache miss)\n".encode() for i in range(20))
        + b"npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree\n"
        + b"".join(f"   Compiling crate{i} v0.{i}.0\n".encode() for i in range(12))
        + b"error[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let x: u8 = \"a\";\n  |                 ^^^ expected `u8`\n"
        + b"".join(f"=== RUN   TestThing{i}\n--- PASS: TestThing{i} (0.00s)\n".encode() for i in range(10))
        + b"--- FAIL: TestCharge (0.01s)\n    charge_test.go:41: got 402, want 200\nFAIL\nFAIL\texample.com/pay\t0.02s\n"
    )
    visible, exact = plan_visible(raw)
    assert exact
    for needle in (b"npm warn deprecated inflight", b"npm error code ERESOLVE", b"error[E0308]: mismatched types",
                   b" --> src/main.rs:4:18", b"  |                 ^^^ expected `u8`", b"--- FAIL: TestCharge",
                   b"    charge_test.go:41: got 402, want 200", b"FAIL\texample.com/pay\t0.02s"):
        assert needle in visible, needle
    for gone in (b"npm http fetch", b"Compiling crate3", b"--- PASS: TestThing4"):
        assert gone not in visible


def test_fine_granularity_one_ref_per_kind_and_exact(pytest_raw):
    raw = colour(pytest_raw)
    plan = reduce_build(raw, "fine")
    assert {"n:PASSED", "n:pytest header", "terminal"} <= set(plan.reasons)
    visible, exact = plan_visible(raw, "fine")
    assert exact
    assert visible.count(b"#ref:ctx_") == len(plan.reasons)


def test_display_text_of_lines():
    assert display_line(b"\x1b[31mred\x1b[0m") == b"red"
    assert display_line(b"a 10%\rb 50%\r\x1b[2K") == b"b 50%"
    assert display_line(b"spin -\x08 \x08\\\x08 \x08done\r") == b"spin done"
    assert display_text(b"x\x1b[1m!\x1b[0m\r\nplain\n") == b"x!\nplain\n"
    # a backspace moves back and what follows overwrites; what nothing overwrote stays
    assert display_line(b"got 2 expected 3\x08") == b"got 2 expected 3"
    assert display_line(b"abc\x08\x08\x08xyz and _\x08u") == b"xyz and u"
    assert display_line(b"\x1b[1mB\x1b[0m\x08B") == b"B"


def test_a_character_a_backspace_moved_back_over_stays_shown_and_restores():
    """go test printing a value whose String() ends in a backspace (``expected 3\\b``): a terminal still
    shows the 3, so the failing lines keep it, SIGNAL finds them and the bytes come back."""
    raw = (b"--- FAIL: TestUUID (0.00s)\n"
           + b"".join(b"    uuid_test.go:108: Variant(%s) got 2 expected 3\x08\n" % u
                      for u in (b"f47ac10b-58cc-4372-c567-0e02b2c3d479", b"F47AC10B-58CC-4372-D567-0E02B2C3D479"))
           + b"FAIL\nFAIL\tgithub.com/google/uuid\t2.574s\nFAIL\n")
    packet = reduce_bytes(raw, source="go-test-backspace", forced_type="build")
    assert packet.visible.count(b" got 2 expected 3\n") == 2, packet.visible.decode()
    assert b"\x08" not in packet.visible
    assert packet.signal_pass and packet.restore_pass
    assert restore(packet.visible, packet.layout, [bytes(r.content) for r in packet.references]) == raw


LINE_KINDS = st.sampled_from([
    b"tests/test_a.py::test_ok PASSED                 [ 10%]",
    b"tests/test_a.py::test_bad FAILED                [ 20%]",
    b"tests/test_b.py ......F..s                      [ 60%]",
    b"\x1b[32m.\x1b[0m\x1b[31mF\x1b[0m",
    b"Collecting requests==2.31.0",
    b"  Downloading requests-2.31.0-py3-none-any.whl (62 kB)",
    b"     \xe2\x94\x81\xe2\x94\x81\xe2\x94\x81\xe2\x94\x81\xe2\x94\x81\xe2\x94\x81 62.6/62.6 kB 3.0 MB/s eta 0:00:00",
    b"5%\r50%\r\x1b[2K100%",
    b"src/x.c:3:4: error: expected ';'",
    b"    3 |   int x",
    b"      |        ^",
    b"\x1b[1;31merror\x1b[0m: build failed",
    b"warning: unused variable",
    b"make[1]: Entering directory '/w'",
    b"gcc -c x.c -o x.o",
    b"", b"   ", b"\r", b"plain text line 7", b"E       assert 1 == 2",
    b"=== 1 failed, 3 passed in 0.1s ===", b"==== FAILURES ====", b"____ test_bad ____",
    b"\xff\xfe not utf-8",
])


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(LINE_KINDS, max_size=60), st.sampled_from([b"\n", b"\r\n"]), st.booleans(),
       st.sampled_from(["coarse", "fine"]))
def test_any_mix_restores_exactly_and_keeps_displayed_signal_lines(lines, eol, final_eol, granularity):
    raw = eol.join(lines) + (eol if final_eol and lines else b"")
    visible, exact = plan_visible(raw, granularity)
    assert exact
    visible_lines = {line.rstrip() for line in display_text(visible).split(b"\n")}
    for line in raw.split(b"\n"):
        if SIGNAL_RE.search(line):
            shown = display_line(line).rstrip()
            assert not shown or shown in visible_lines or shown in visible, shown


def test_missing_signals_names_an_auto_signal_line_the_visible_text_lacks():
    auto = [b"ERROR disk full", b"WARN slow query"]
    visible = b"INFO start\nERROR disk full\nWARN slow query \xc3\x973 #ref:ctx_000000\n"
    assert missing_signals(visible, [], auto) == []  # whole line, and a line shown with a suffix
    assert missing_signals(b"INFO start\nERROR disk full\n", [], auto) == ["WARN slow query"]
    assert missing_signals(b"", ["planted"], []) == ["planted"]


SIGNAL_BITS = [b"ERROR x", b"\x1b[31mERROR x\x1b[0m", b"WARN y", b"a\rWARN y", b"WARN y\r", b"ok", b" \xc3\x973", b"\x08",
               b"\x00", b"\x7f", b"\x0b", b"\x1b",
               b"\r", b"\x1b[2K", b"E  z", b"plain", b"\n", b"\r\n", b"\xff", b" "]
BITS = st.lists(st.sampled_from(SIGNAL_BITS), max_size=14).map(b"".join)


@settings(max_examples=examples(1500), deadline=None)
@given(visible=BITS, auto=st.lists(BITS.map(lambda b: b.replace(b"\n", b"")), max_size=4),
       expected=st.lists(st.sampled_from(["ERROR x", "WARN y", "ok\nplain", "y\nE", "z", "absent"]), max_size=3))
def test_missing_signals_line_by_line_is_the_check_on_the_whole_displayed_text(visible, auto, expected):
    """The displayed comparison works a line at a time (no copy of the text); the definition displays it all."""
    from operators import signals

    if signals._has_terminal_controls(visible) or any(map(signals._has_terminal_controls, auto)):
        visible_, auto_ = display_signals(visible, auto)  # as a terminal shows it, all at once
    else:
        visible_, auto_ = visible, auto
    assert missing_signals(visible, expected, auto) == signals._missing(visible_, expected, auto_)


def test_a_visible_line_with_any_control_byte_is_compared_as_displayed():
    # the \x1b elsewhere turns the displayed comparison on; "ERR\x00OR" shows as "ERROR" on a terminal
    visible = b"\x1b[1mbuild\x1b[0m\nERR\x00OR x\n"
    assert missing_signals(visible, ["ERROR x"], [b"ERROR x"]) == []
    assert missing_signals(visible, ["WARN"], [b"WARN y"]) == ["WARN", "WARN y"]


def test_missing_signals_makes_no_displayed_copy_of_a_big_text():
    import tracemalloc

    visible = b"".join(b"step %d \x1b[32mdone\x1b[0m\r\n" % i for i in range(60_000)) + b"ERROR disk full\n"
    missing_signals(visible[:4096] + b"ERROR x\n", ["step 7 done"], [b"ERROR x"])  # patterns compiled first, not counted
    tracemalloc.start()
    try:
        missing = missing_signals(visible, ["step 7 done"], [b"ERROR disk full", b"WARN gone"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert missing == ["WARN gone"]
    assert peak < len(visible) // 4  # no displayed copy, no list of lines


# -- real pip -v build from source, real pytest tracebacks ------------------------------------------
REAL_BUILD = ["pip_install_sdist_verbose.txt", "pytest_tracebacks_tomli.txt"]


@pytest.mark.parametrize("name", REAL_BUILD)
def test_real_build_output_keeps_must_see_strings_and_saves_half(name):
    from operators.signals import load_sidecar

    raw = (FIXTURES / name).read_bytes()
    planted = load_sidecar(FIXTURES / "signals.toml")[name]
    packet = reduce_bytes(raw, source=f"fixtures/{name}", expected_signals=planted)
    assert packet.type == "build"
    for signal in planted:
        assert signal.encode() in packet.visible, signal
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    assert packet.measure.saved_pct >= 50, packet.measure.saved_pct


def test_pip_build_chatter_folds_keeping_warnings_errors_and_successfully_lines():
    raw = (FIXTURES / "pip_install_sdist_verbose.txt").read_bytes()
    visible, exact = plan_visible(raw)
    assert exact
    visible_lines = set(visible.split(b"\n"))
    lines = raw.split(b"\n")
    for line in lines:
        if SIGNAL_RE.search(line) or re.match(rb"^\s*Successfully (?:built|installed) ", line):
            assert line in visible_lines, line
    chatter = [line for line in lines if re.match(rb"^\s*(?:copying \S+ -> |running build_ext|creating |adding '|gcc )", line)
               and not SIGNAL_RE.search(line)]
    assert len(chatter) >= 60
    assert [line for line in chatter if line in visible_lines] == []


def test_real_pytest_traceback_keeps_failing_lines_assertions_and_frame_locations():
    raw = (FIXTURES / "pytest_tracebacks_tomli.txt").read_bytes()
    visible, exact = plan_visible(raw)
    assert exact
    visible_lines = set(visible.split(b"\n"))
    text = raw.split(b"=== FAILURES ===")[1].split(b"short test summary info")[0]
    section = text.split(b"\n")
    must = [line for line in section if re.match(rb"^(?:>|E(?: |$)|_{3,} |\S+?:\d+: )", line)]
    assert len(must) >= 100
    assert [line for line in must if line not in visible_lines] == []
    quoted = [line for line in section if line.startswith(b"    ") and not SIGNAL_RE.search(line)]
    assert sum(line in visible_lines for line in quoted) < len(quoted) // 4


def test_a_quoted_signal_line_is_shown_the_first_time_only():
    raw = (FIXTURES / "pytest_tracebacks_tomli.txt").read_bytes()
    visible, _ = plan_visible(raw)
    line = b"                except UnicodeDecodeError:"
    assert raw.count(line + b"\n") > 5
    assert visible.count(line + b"\n") == 1

DATA = Path(__file__).resolve().parent.parent / "data" / "types"
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


def test_a_mocha_spec_run_folds_its_passing_tests_and_keeps_its_failures():
    """mocha's spec reporter (real output of axios' unit tests): each ``✔`` result of a passing test
    folds (unless its name holds a signal word), the suite titles, the ``N passing``/``N failing``
    summary and every numbered failure with its error and stack stay."""
    raw = (FIXTURES / "mocha_spec_axios.txt").read_bytes()
    visible, exact = plan_visible(raw)
    assert exact
    passing = [line for line in raw.split(b"\n") if line.lstrip().startswith("\u2714 ".encode())]
    assert len(passing) > 60
    quiet = [line for line in passing if not SIGNAL_RE.search(line)]
    assert not [line for line in quiet if line + b"\n" in visible]  # every quiet passing result folded
    for line in (b"  195 passing (2m)", b"  2 failing", b"  1) supports http with nodejs", b"  2) issues",
                 b"       should support HTTPS protocol:", b"     Error: getaddrinfo ENOTFOUND postman-echo.com",
                 b"  adapters", b"  supports fetch with nodejs"):
        assert line + b"\n" in visible, line
    assert len(visible) < 0.6 * len(raw)


def test_mochas_failing_tests_in_its_spec_list_stay_though_their_titles_repeat():
    """mocha's spec list numbers a failing test where it ran (``      3) should support negation patterns``);
    a test of one title failing under many suites (one test table run per platform) repeats that line
    but for its number: each is a failing test of its suite, kept in place, not folded as similar lines."""
    lines = [b"", b"  micromatch"]
    n = 0
    for suite in ("posix paths", "windows paths", "negation", "extglobs", "braces", "brackets", "globstars"):
        lines.append(b"    " + suite.encode())
        for t in range(4):
            lines.append("      \u2714 should match pattern %d".encode() % t)
        n += 1
        lines.append(b"      %d) should support negation patterns" % n)
    lines += [b"", b"", b"  28 passing (41ms)", b"  %d failing" % n, b""]
    for k in range(1, n + 1):
        lines += [b"  %d) micromatch" % k, b"       should support negation patterns:", b"",
                  b"      AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:", b""]
    raw = b"\n".join(lines) + b"\n"
    visible, exact = plan_visible(raw)
    assert exact
    for k in range(1, n + 1):
        assert b"      %d) should support negation patterns\n" % k in visible, k
    assert "\u2714 should match pattern 2".encode() not in visible


def _pytest_run(bodies: dict[str, bytes]) -> bytes:
    """A pytest -q run whose failures are ``bodies`` (test id -> its traceback lines)."""
    out = [b"..F.F.F.F" + b"." * 40 + b" [100%]\n", b"=" * 30 + b" FAILURES " + b"=" * 30 + b"\n"]
    for name, body in bodies.items():
        out.append(b"_" * 20 + b" " + name.encode() + b" " + b"_" * 20 + b"\n" + body)
    out.append(b"=" * 20 + b" short test summary info " + b"=" * 20 + b"\n")
    out += [b"FAILED tests/test_client.py::%s - ImportError: h2\n" % n.encode() for n in bodies]
    out.append(b"=" * 10 + b" %d failed, 45 passed in 1.20s " % len(bodies) + b"=" * 10 + b"\n")
    return b"".join(out)


def test_a_failure_that_repeats_an_earlier_one_line_for_line_folds_to_its_name():
    """Parametrized tests failing the same way: the second and third show their header and one line
    naming the first; a failure that differs in one shown line stays whole."""
    same = (b"\n    async def test_get(server):\n        url = server.url\n>       async with Client(http2=True) as c:\n\n"
            b"httpx/_client.py:1394: in __init__\n    raise ImportError(\n"
            b"E   ImportError: Using http2=True, but the 'h2' package is not installed.\n\n"
            b"httpx/_client.py:1394: ImportError\n")
    other = same.replace(b"_client.py:1394: ImportError", b"_client.py:1402: ImportError")
    raw = _pytest_run({"test_get[asyncio]": same, "test_get[trio]": same, "test_get[curio]": same,
                       "test_post[asyncio]": other})
    visible, exact = plan_visible(raw)
    assert exact
    for name in (b"test_get[asyncio]", b"test_get[trio]", b"test_get[curio]", b"test_post[asyncio]"):
        assert b" %s _" % name in visible  # every failure's header stays
    assert visible.count(b"E   ImportError: Using http2=True") == 2  # the first and the one that differs
    assert visible.count(b"the same failure as test_get[asyncio] above]") == 2
    assert b"httpx/_client.py:1402: ImportError" in visible
    assert b"FAILED tests/test_client.py::test_get[curio] - ImportError: h2" in visible


def test_a_cargo_test_run_is_a_test_run_its_failures_stay_and_passing_tests_fold():
    """Real ``cargo test`` output (rust-lang/log with two failing unit tests): no pytest, gcc or npm
    marker in it, yet it is a test run; the failing test names, each panic's location and assertion,
    the ``failures:`` list and the summary stay, the ``test x ... ok`` results fold."""
    from conftest import type_data
    from operators.classify import classify

    raw = type_data("cargo_test_log_fail.txt")
    assert classify(raw)[0] == "build"
    planted = [b"test tests::test_cross_cmp ... FAILED", b"test tests::test_level_from_str ... FAILED",
               b"thread 'tests::test_cross_cmp' (27273) panicked at src/lib.rs:1728:9:",
               b"assertion failed: LevelFilter::Warn > Level::Trace",
               b"thread 'tests::test_level_from_str' (27281) panicked at src/lib.rs:1695:13:",
               b"  left: Ok(Error)", b" right: Err(ParseLevelError(()))", b"    tests::test_level_from_str",
               b"test result: FAILED. 19 passed; 2 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.13s",
               b"error: test failed, to rerun pass `--lib`"]
    packet = reduce_bytes(raw, source="cargo_test_log_fail.txt")
    assert packet.type == "build" and packet.restore_pass and packet.signal_pass
    for line in planted:
        assert line + b"\n" in packet.visible, line
    assert b"test tests::test_level_show ... ok" not in packet.visible
    assert len(packet.visible) < 0.8 * len(raw)


@pytest.mark.parametrize("lines", [
    [b"running 3 tests", b"test a::b ... ok", b"test a::c ... FAILED", b"test result: FAILED. 1 passed; 1 failed"],
    [b"PASS test/unit/a.js", b"FAIL test/unit/b.js", b"Tests:       1 failed, 51 passed, 52 total"],
    [b" FAIL  |zod| src/a.test.ts > t", b" Test Files  1 failed | 3 passed (4)", b"      Tests  1 failed | 9 passed (10)"],
    [b"ok 1 - parses", b"not ok 2 - rejects", b"# tests 2", b"# fail 1"],
])
def test_cargo_jest_vitest_and_tap_runs_are_detected_as_test_runs(lines):
    from operators.types import Sample

    raw = b"\n".join(lines) + b"\n"
    assert build.detect(Sample(raw))
    assert not build.detect(Sample(b"\n".join(lines[:1]) + b"\nplain text\n"))


def test_a_tap_run_folds_its_passing_results_and_keeps_each_failure_and_the_summary():
    """Real ``node --test`` TAP output (axios' unit tests, two flipped assertions and one test without
    network): each ``ok N - name`` result with its ``# Subtest:`` line and YAML ``duration_ms`` block
    folds; every ``not ok`` line, its error, expected/actual and first stack frame, and the ``# tests``
    / ``# fail`` summary stay."""
    from conftest import type_data

    raw = type_data("node_test_axios_fail.tap")
    packet = reduce_bytes(raw, source="node_test_axios_fail.tap")
    assert packet.type == "build" and packet.restore_pass and packet.signal_pass
    for line in (b"    not ok 1 - should support headers argument", b"        '2' !== '3'",
                 b"      expected: '3'", b"      actual: '2'",
                 b"        TestContext.<anonymous> (file:///work/src/axios/test/unit/core/AxiosHeaders.js:13:12)",
                 b"    not ok 1 - should validate Stream", b"        false !== true",
                 b"          error: 'getaddrinfo ENOTFOUND postman-echo.com'", b"not ok 9 - utils",
                 b"# tests 57", b"# pass 54", b"# fail 3"):
        assert line + b"\n" in packet.visible, line
    assert b"ok 2 - should validate Buffer\n" in raw
    assert b"ok 2 - should validate Buffer\n" not in packet.visible
    assert b"duration_ms: " not in packet.visible
    assert len(packet.visible) < 0.4 * len(raw)


@pytest.mark.parametrize("colour", [False, True])
def test_passing_tests_named_after_errors_fold_like_the_others(colour):
    """A passing test's line is no signal, whatever its name says (``✓ rejects invalid input with an
    error``, ``test_error_page PASSED``), coloured or not: it folds with the other passing lines,
    SIGNAL does not ask for it, and the failing test and the summary stay."""
    from operators.vocab import signal_line_spans

    tick = b"\x1b[32m\xe2\x9c\x93\x1b[39m" if colour else b"\xe2\x9c\x93"
    rows = [b" RUN  v4.1.12 /repo", b"", b" \xe2\x9d\xaf src/string.test.ts (40 tests | 1 failed) 731ms"]
    for k in range(39):
        word = (b"throws an error", b"rejects invalid input", b"fails fast on timeout")[k % 3]
        rows.append(b"   %s case %d %s %dms" % (tick, k, word, k % 7))
    rows.insert(10, b"   \xc3\x97 length checks count code points 34ms")
    rows += [b"", b" Test Files  1 failed (1)", b"      Tests  1 failed | 39 passed (40)", b""]
    raw = b"\n".join(rows)
    spans = signal_line_spans(raw)
    assert [raw[a:b] for a, b in spans if b"\xe2\x9c\x93" in raw[a:b]] == []
    verbose = b"tests/a.py::test_error_page PASSED [ 5%]\ntests/a.py::test_error_post FAILED [ 9%]\n"
    assert [verbose[a:b] for a, b in signal_line_spans(verbose)] == [b"tests/a.py::test_error_post FAILED [ 9%]"]
    packet = reduce_bytes(raw, forced_type="build", config=reducing_any_size())
    assert b"throws an error" not in packet.visible and b"[folded " in packet.visible
    assert b"\xc3\x97 length checks count code points 34ms" in packet.visible
    assert b"Tests  1 failed | 39 passed (40)" in packet.visible
    assert packet.signal_pass and packet.restore_pass


NPM_VERBOSE_FAIL = (  # `npm install --loglevel silly` failing on a peer conflict (npm 10), an excerpt
    b"npm silly packumentCache full:https://registry.npmjs.org/react cache-miss\n"
    b"npm http fetch GET 200 https://registry.npmjs.org/react 126ms (cache updated)\n"
    b"npm silly packumentCache full:https://registry.npmjs.org/react set size:4071630 disposed:false\n"
    b"npm silly fetch manifest react-dom@18.2.0\n"
    b"npm silly packumentCache full:https://registry.npmjs.org/react-dom cache-miss\n"
    b"npm http fetch GET 200 https://registry.npmjs.org/react-dom 104ms (cache miss)\n"
    b"npm silly packumentCache full:https://registry.npmjs.org/react-dom set size:6954439 disposed:false\n"
    b"npm silly fetch manifest react@^18.2.0\n"
    b"npm silly packumentCache full:https://registry.npmjs.org/react cache-miss\n"
    b"npm http fetch GET 200 https://registry.npmjs.org/react 68ms (cache updated)\n"
    b"npm silly packumentCache full:https://registry.npmjs.org/react set size:4071630 disposed:false\n"
    b"npm verbose stack Error: unable to resolve dependency tree\n"
    b"npm verbose stack     at #failPeerConflict (/usr/lib/node_modules/npm/node_modules/@npmcli/arborist/lib/arborist/build-ideal-tree.js:1549:25)\n"
    b"npm verbose stack     at #loadPeerSet (/usr/lib/node_modules/npm/node_modules/@npmcli/arborist/lib/arborist/build-ideal-tree.js:1515:33)\n"
    b"npm verbose stack     at async #buildDepStep (/usr/lib/node_modules/npm/node_modules/@npmcli/arborist/lib/arborist/build-ideal-tree.js:999:15)\n"
    b"npm verbose stack     at async Arborist.buildIdealTree (/usr/lib/node_modules/npm/node_modules/@npmcli/arborist/lib/arborist/build-ideal-tree.js:180:7)\n"
    b"npm verbose stack     at async Promise.all (index 1)\n"
    b"npm verbose stack     at async Arborist.reify (/usr/lib/node_modules/npm/node_modules/@npmcli/arborist/lib/arborist/reify.js:118:5)\n"
    b"npm verbose stack     at async Install.exec (/usr/lib/node_modules/npm/lib/commands/install.js:158:5)\n"
    b"npm verbose stack     at async Npm.exec (/usr/lib/node_modules/npm/lib/npm.js:193:9)\n"
    b"npm verbose stack     at async module.exports (/usr/lib/node_modules/npm/lib/cli/entry.js:67:5)\n"
    b"npm error code ERESOLVE\n"
    b"npm error ERESOLVE unable to resolve dependency tree\n"
    b"npm error code ERESOLVE\n"
    b"npm error ERESOLVE unable to resolve dependency tree\n"
)


def test_npm_verbose_stack_frames_stay_with_their_error_and_the_silly_lines_fold():
    visible, exact = plan_visible(NPM_VERBOSE_FAIL)
    assert exact
    frames = [line for line in NPM_VERBOSE_FAIL.split(b"\n") if line.startswith(b"npm verbose stack ")]
    assert len(frames) == 10
    for line in frames:  # the error's stack, frame by frame: where npm failed
        assert line in visible, line
    assert b"npm silly " not in visible and b"npm http fetch" not in visible  # the chatter folds


@pytest.mark.parametrize("budget", [1200, 1600])
def test_a_small_room_keeps_mochas_totals_and_each_failures_title(budget):
    """mocha prints its totals (``195 passing``, ``2 failing``) and then each failure as ``1) suite``
    with the test's title on the lines under it, up to its error: under a small budget those stay
    before the passing tests' suites and the stack frames."""
    raw = (FIXTURES / "mocha_spec_axios.txt").read_bytes()
    visible = cut(build, "build", raw, budget)
    for line in (b"  195 passing (2m)", b"  2 failing", b"  1) supports http with nodejs",
                 b"       should support HTTPS protocol:", b"  2) issues", b"       4999"):
        assert line + b"\n" in visible, line



@pytest.mark.parametrize("host", ["", "codex"])
def test_a_failing_frames_line_with_a_signal_word_is_must_see(host, monkeypatch):
    """pytest's ``>           warnings.warn(`` line (the line a frame failed on) names a signal: SIGNAL
    asks for it, so the budget keeps it (or counts it) instead of leaving it in a gap as context: a real
    httpx run exited 3 under Claude Code's budget."""
    root = Path(__file__).resolve().parents[2]
    raw = (root / "bench/corpus/pytest_q_httpx_errors/input").read_bytes()
    if host:
        monkeypatch.setenv("NOLIFE_TOKENS_HOST", host)
    packet = reduce_bytes(raw)
    assert packet.type == "build" and packet.signal_pass and packet.restore_pass
    assert b">           warnings.warn(\n" in packet.visible


def _parametrized_failures(n: int = 200) -> bytes:
    """A pytest run in which ``n`` cases of one parametrized test fail: ids that differ by their numbers."""
    out = [b"=" * 29 + b" test session starts " + b"=" * 30, b"collected %d items" % (2 * n), b"",
           b"tests/test_cache.py " + b"F." * n + b" [100%]", b"", b"=" * 35 + b" FAILURES " + b"=" * 35]
    for k in range(0, 2 * n, 2):
        out += [b"_" * 24 + b" test_evict[%d-lru] " % k + b"_" * 24, b"", b"    def test_evict(size):",
                b">       assert cache.evict(%d) == %d" % (k, k + 1), b"E       assert %d == %d" % (k, k + 1), b"",
                b"tests/test_cache.py:%d: AssertionError" % (40 + k)]
    out.append(b"=" * 28 + b" short test summary info " + b"=" * 28)
    out += [b"FAILED tests/test_cache.py::test_evict[%d-lru] - assert %d == %d" % (k, k, k + 1) for k in range(0, 2 * n, 2)]
    out.append(b"=" * 24 + b" %d failed, %d passed in 1.23s " % (n, n) + b"=" * 24)
    return b"\n".join(out) + b"\n"


_WORDS = [b"alpha", b"bravo", b"charlie", b"delta", b"echo", b"foxtrot", b"golf", b"hotel", b"india", b"juliet",
          b"kilo", b"lima", b"mike", b"november", b"oscar", b"papa", b"quebec", b"romeo", b"sierra", b"tango"]


def _failures_of_many_reasons(n: int = 40) -> bytes:
    """A pytest run whose ``n`` failing cases of one parametrized test fail each for reasons of its own:
    ids that differ by a number, and three ``E`` lines a failure that differ in their words."""
    out = [b"=" * 29 + b" test session starts " + b"=" * 30, b"collected %d items" % n, b"",
           b"tests/test_codec.py " + b"F" * n + b" [100%]", b"", b"=" * 35 + b" FAILURES " + b"=" * 35]
    for k in range(n):
        a, b = _WORDS[k % 20], _WORDS[(k * 7 + 3) % 20]
        out += [b"_" * 24 + b" test_roundtrip[%d] " % k + b"_" * 24, b"", b"    def test_roundtrip(case):",
                b">       assert decode(encode(case)) == case",
                b"E       AssertionError: the %s field of the %s record came back as the %s field instead" % (a, b, b),
                b"E         while decoding the %s block, the %s marker was read where the %s header goes" % (b, a, a),
                b"E         hint: the %s table and the %s table disagree about the %s width" % (a, b, a + b), b"",
                b"tests/test_codec.py:%d: AssertionError" % (40 + k)]
    out.append(b"=" * 28 + b" short test summary info " + b"=" * 28)
    out += [b"FAILED tests/test_codec.py::test_roundtrip[%d] - AssertionError: assert %d == %d" % (k, k, k + 1)
            for k in range(n)]
    out.append(b"=" * 24 + b" %d failed in 1.23s " % n + b"=" * 24)
    return b"\n".join(out) + b"\n"


def test_every_failing_id_comes_before_the_reasons_of_each_failure():
    """Forty failing cases, each failing for reasons of its own (three ``E`` lines of other words): under
    Codex's budget every failing id is shown, before the failures' own lines fill what is left; those
    ids had come after a line of every other template, and most of them were left out."""
    raw = _failures_of_many_reasons()
    packet = reduce_bytes(raw, source="pytest.txt", budget=9_500 // 4)
    assert packet.type == "build" and len(packet.visible) <= 9_500
    ids = re.findall(rb"^FAILED tests/test_codec\.py::test_roundtrip\[(\d+)\] - ", packet.visible, re.M)
    assert sorted(map(int, set(ids))) == list(range(40))
    assert re.search(rb"^E       AssertionError: the \w+ field", packet.visible, re.M)  # and reasons after them
    assert b"40 failed in 1.23s" in packet.visible
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass


@pytest.mark.parametrize("budget, least", [(25_000, 200), (9_500, 100)])
def test_failing_test_ids_that_differ_by_a_number_are_not_folded_as_one_template(budget, least):
    """``FAILED …::test_evict[3-lru]`` and ``…[5-lru]`` are two failing tests, not one line with a
    count: under the output ceiling each failing id is must-see on its own (the ids first, as many as
    the budget holds), while lines that repeat but for numbers (the ``E`` lines) still fold."""
    raw = _parametrized_failures()
    packet = reduce_bytes(raw, source="pytest.txt", budget=budget // 4)
    assert packet.type == "build" and len(packet.visible) <= budget
    ids = re.findall(rb"^FAILED tests/test_cache\.py::test_evict\[(\d+)-lru\] - ", packet.visible, re.M)
    assert len(set(ids)) >= least
    assert re.search(rb"^E       assert \d+ == \d+ \(\xc3\x97\d+ similar", packet.visible, re.M)
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass


def _go_test_v(failing: bool) -> bytes:
    """``go test -v`` of one package as Go prints it: sub-tests named after the errors they check."""
    lines = []
    for i in range(60):
        name = f"TestEncode/(error)_slice_with_element_type_mismatch_{i}" if i % 3 == 0 else f"TestDecodeTable/case_{i}"
        lines += [f"=== RUN   {name}\n", f"--- PASS: {name} (0.00s)\n"]
    if failing:
        lines += ["=== RUN   TestPathClean\n", '    path_test.go:72: CleanPath("/abc/.") = "/abc", want "/abc/"\n',
                  "--- FAIL: TestPathClean (0.00s)\n", "FAIL\n", "FAIL\tgithub.com/example/router\t0.013s\n"]
    else:
        lines += ["PASS\n", "ok  \tgithub.com/example/toml\t0.013s\n"]
    return "".join(lines).encode()


def test_go_test_v_alone_is_shown_as_printed_and_folded_inside_a_build():
    """A ``go test -v`` output alone is text: each ``=== RUN``/``--- PASS:`` line names a test the run ran,
    so one that fits the budget is shown as printed, and one over it is cut by the ceiling with its
    failures first. Given to the build type (inside a longer build output, where its lines are folded):
    the passing tests fold, a ``=== RUN`` line of a test named for an error is no signal, the failure
    (with the ``=== RUN`` line its output follows) and the package's result lines stay."""
    from test_classify import kind

    for failing in (False, True):
        raw = _go_test_v(failing)
        assert kind(raw) == "text"
        assert reduce_bytes(raw, source="go-test.txt").visible == raw  # shown whole below the budget
        visible, exact = plan_visible(raw)
        assert exact
        assert b"=== RUN   TestEncode/(error)" not in visible and b"--- PASS: " not in visible
        assert b"test started \xc3\x97" in visible  # a test's start is not counted as a passing test
        assert len(visible) < len(raw) // 10 if not failing else len(visible) < len(raw) // 4
        kept = ([b"=== RUN   TestPathClean\n    path_test.go", b'path_test.go:72: CleanPath("/abc/.")', b"--- FAIL: TestPathClean (0.00s)",
                 b"FAIL\tgithub.com/example/router\t0.013s"] if failing else [b"ok  \tgithub.com/example/toml\t0.013s"])
        for needle in kept:
            assert needle in visible, needle
    many = b"".join(_go_test_v(False).split(b"PASS\n")[0] for _ in range(40)) + _go_test_v(True)  # 40 packages' worth
    packet = reduce_bytes(many, source="go-test.txt", budget=6000 // 4)
    assert packet.type == "text" and len(packet.visible) <= 6000
    for needle in (b'path_test.go:72: CleanPath("/abc/.")', b"--- FAIL: TestPathClean (0.00s)",
                   b"FAIL\tgithub.com/example/router\t0.013s"):
        assert needle in packet.visible, needle
    assert packet.signal_pass and packet.restore_pass


def test_cargo_doc_tests_are_a_test_run_their_failures_kept():
    """``cargo test --doc``: libtest names a doc-test by its file, item and line (``src/lib.rs - f (line 3)``,
    spaces in it); such lines are a test run's as ``test a::b ... ok`` are: the passing ones fold, a
    passing one named for an error is no signal, the failing ones stay."""
    from test_classify import kind

    lines = ["   Doc-tests itertools\n", "\n", "running 80 tests\n"]
    for i in range(80):
        result = "FAILED" if i in (17, 52) else "ok"
        lines.append(f"test src/error.rs - error::Error::kind_{i} (line {100 + i}) ... {result}\n")
    lines += ["\n", "failures:\n", "    src/error.rs - error::Error::kind_17 (line 117)\n",
              "test result: FAILED. 78 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.2s\n"]
    raw = "".join(lines).encode()
    assert kind(raw) == "build"
    visible, exact = plan_visible(raw)
    assert exact
    for needle in (b"test src/error.rs - error::Error::kind_17 (line 117) ... FAILED",
                   b"test src/error.rs - error::Error::kind_52 (line 152) ... FAILED", b"test result: FAILED. 78 passed"):
        assert needle in visible, needle
    assert b"kind_3 (line 103) ... ok" not in visible
    assert not SIGNAL_RE.search(b"x") and not build.PASSING_RE.match(b"test src/a.rs - f (line 3) ... FAILED")
    assert build.PASSING_RE.match(b"test src/error.rs - error::Error (line 3) ... ok")


def test_go_tests_result_line_of_each_package_stays():
    """``go test -v ./...`` over many packages prints an ``ok  pkg  0.01s`` line for each: a result, kept
    as the summary lines are, not folded with the passing tests nor as a repeated unknown line."""
    raw = (b"".join(b"=== RUN   TestA%d\n--- PASS: TestA%d (0.00s)\n" % (i, i) for i in range(30)) + b"PASS\n"
           + b"".join(b"ok  \tgithub.com/example/pkg%d\t0.0%ds\n" % (i, i) for i in range(8)))
    visible, exact = plan_visible(raw)
    assert exact
    for i in range(8):
        assert b"ok  \tgithub.com/example/pkg%d\t0.0%ds\n" % (i, i) in visible
    assert b"--- PASS: TestA3" not in visible


def _failing_run(head: str, failure, n: int, tail: str, **fields):
    """A test run's output (``head``, ``n`` failures, ``tail``) and its packet through the graph."""
    raw = (head + "".join(failure(k) for k in range(n)) + tail).encode()
    return raw, reduce_bytes(raw, source="test-run", forced_type="build", **fields)


def test_each_jest_failure_keeps_its_assertion_though_the_lines_repeat_across_failures():
    """Jest prints a blank line between a failure's title, its assertion and its source: the block goes
    on across it, so each failure's expected and received values stay, however often the same
    ``Expected value to be:`` lines recur (they were folded as frequent unknown lines)."""
    def failure(k: int) -> str:
        return (f"  \u25cf is same month {k}\n\n    expect(received).toBe(expected) // Object.is equality\n    \n"
                f"    Expected value to be:\n      {'true' if k % 2 else 'false'}\n    Received:\n"
                f"      {'false' if k % 2 else 'true'}\n\n      5{k} |   const m = dayjs(new Date(2011, 2, {k}))\n"
                f"    > 5{k} |   expect(m.isSame(dayjs(), 'month')).toBe(true)\n      \n"
                f"      at Object.<anonymous> (test/comparison.test.js:5{k}:71)\n\n")
    _, packet = _failing_run("FAIL test/comparison.test.js\n", failure, 30,
                             "Tests:       30 failed, 120 passed, 150 total\n")
    assert packet.visible.count(b"    Expected value to be:\n") == 30, packet.visible.decode()
    assert packet.visible.count(b"    Received:\n") == 30
    assert packet.signal_pass and packet.restore_pass


def test_each_vitest_failure_keeps_its_expected_received_diff():
    """vitest prints an assertion's diff after its error line: ``- Expected`` / ``+ Received``, a blank,
    a hunk header when it is long, then the values with ``-``/``+`` marks; the block goes on through
    them, so each failure's diff stays whole however often its lines recur."""
    def failure(k: int) -> str:
        return (f" FAIL   runtime  src/chunk{k}.test.ts > data first > equal size\n"
                f"AssertionError: expected [ [ 'a' ] ] to strictly equal [ [ 'a', 'b{k}' ] ]\n\n"
                f"- Expected\n+ Received\n\n@@ -5,13 +5,6 @@\n  [\n    [\n      \"a\",\n-     \"b{k}\",\n    ],\n  ]\n\n"
                f" \u276f src/chunk{k}.test.ts:6:44\n      6|     expect(chunk([\"a\", \"b\"], 2)).toStrictEqual([\n"
                f"       |                                            ^\n\n")
    _, packet = _failing_run("".join(f" \u2713  runtime  src/ok{k}.test.ts (2 tests) 1ms\n" for k in range(40)),
                             failure, 12, " Test Files  12 failed | 40 passed (52)\n")
    assert packet.visible.count(b"\n- Expected\n+ Received\n\n@@ -5,13 +5,6 @@\n  [\n    [\n") == 12, packet.visible.decode()
    for k in range(12):
        assert b'\n-     "b%d",\n' % k in packet.visible
    assert packet.signal_pass and packet.restore_pass


def test_under_a_small_budget_a_jest_run_shows_every_failure_title_then_the_values():
    """Under Codex's 9,000 bytes a jest run of many failures shows every failure's title (``● suite ›
    test``, as pytest's ``____ name ____``; jest's ``● Console`` block is none), then, room allowing,
    each failure's expected and received values before the rest of its block."""
    from operators.ceiling import CeilingSettings
    from operators.config import Config

    def failure(k: int) -> str:
        return (f"  \u25cf suite {k} \u203a handles case {k}\n\n    expect(received).toBe(expected) // Object.is equality\n\n"
                f"    Expected value to be:\n      \"v{k}-expected\"\n    Received:\n      \"v{k}-received\"\n\n"
                + "".join(f"      {k * 10 + j} |   const x{j} = compute({j}, {k}, 'some argument text')\n" for j in range(6))
                + f"\n      at Object.<anonymous> (test/case{k}.test.js:{k * 10 + 2}:7)\n\n")
    raw, packet = _failing_run("".join(f"PASS test/ok{k}.test.js\n" for k in range(60)),
                               lambda k: f"FAIL test/case{k}.test.js\n" + failure(k), 24,
                               "  \u25cf Console\n\n    console.warn node_modules/x.js:1\n      deprecated\n\n"
                               "Test Suites: 24 failed, 60 passed, 84 total\nTests:       24 failed, 700 passed, 724 total\n",
                               config=Config(ceiling=CeilingSettings(host="codex")))
    assert len(raw) > 9_000 + 6_000
    visible = packet.visible
    assert len(visible) <= 9_000
    for k in range(24):
        assert b"  \xe2\x97\x8f suite %d \xe2\x80\xba handles case %d\n" % (k, k) in visible, k
    shown_values = [k for k in range(24) if b'"v%d-expected"' % k in visible and b'"v%d-received"' % k in visible]
    assert shown_values[:8] == list(range(8)), shown_values  # the first failures' values, in order
    assert packet.signal_pass and packet.restore_pass


def test_each_rust_panic_keeps_its_message_on_the_line_after_its_place():
    """Rust prints a panic's place, then its message on a line of its own (``panicked at
    src/lib.rs:252:31:`` / ``index out of bounds: …``): the message is what the place announced, kept with it however
    often it recurs (six tests failing alike folded it as a frequent line)."""
    def failure(k: int) -> str:
        return (f"---- tests::case_{k} stdout ----\n\nthread 'tests::case_{k}' (159{k}) panicked at src/lib.rs:252:31:\n"
                f"index out of bounds: the len is 47 but the index is 47\n"
                f"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n")
    _, packet = _failing_run("running 206 tests\n" + "".join(f"test tests::ok_{k} ... ok\n" for k in range(200))
                             + "".join(f"test tests::case_{k} ... FAILED\n" for k in range(6)) + "\nfailures:\n\n",
                             failure, 6, "test result: FAILED. 200 passed; 6 failed; 0 ignored\n")
    message = b"panicked at src/lib.rs:252:31:\nindex out of bounds: the len is 47 but the index is 47\n"
    assert packet.visible.count(message) == 6
    assert packet.signal_pass and packet.restore_pass


def test_in_a_test_run_each_tap_failure_keeps_its_diagnostic_block():
    """TAP results, with the dash or without (tape's ``ok 12 parses a string``), fold when they pass,
    and each ``not ok`` keeps its YAML block whole (``---`` to ``...``: operator, expected, actual,
    at), whose edges node --test's passing results print too and fold. (A tape run alone reads as
    text: shown as printed below the budget, its ``not ok`` lines first above it, as ``go test -v``.)"""
    from operators.classify import classify

    def block(k: int) -> str:
        return (f"not ok {k} parses case {k}\n  ---\n    operator: deepEqual\n    expected: |-\n      {{ a: {k} }}\n"
                f"    actual: |-\n      {{ a: {k + 1} }}\n    at: Test.<anonymous> (/w/qs/test/parse.js:{k}:7)\n  ...\n")
    raw, packet = _failing_run("TAP version 13\n# parse()\n",
                               lambda k: "".join(f"ok {k * 40 + j} should be deeply equivalent\n" for j in range(40))
                               + block(k * 40 + 40), 8, "\n1..328\n# tests 328\n# pass  320\n# fail  8\n")
    assert classify(raw)[0] == "text"
    for k in range(8):
        n = k * 40 + 40
        assert (b"not ok %d parses case %d\n  ---\n    operator: deepEqual\n    expected: |-\n      { a: %d }\n"
                b"    actual: |-\n      { a: %d }\n" % (n, n, n, n + 1)) in packet.visible
    assert b"ok 1 should be deeply equivalent" not in packet.visible and b"TAP ok" in packet.visible
    assert packet.signal_pass and packet.restore_pass


def _pytest_q_run(failures: int) -> bytes:
    """``pytest -q`` of a suite with many failures: progress lines, then each failure's section (long enough
    that the first 64 KB hold no summary line), then the short summary with a ``FAILED`` id a failure."""
    names = [f"test_case_{k:03d}" for k in range(failures)]
    out = ["".join("F" if (k * 7 + j) % 5 == 0 else "." for j in range(72)) + f" [{(k + 1) * 100 // 20:3d}%]"
           for k in range(20)]
    out.append("=" * 35 + " FAILURES " + "=" * 35)
    for k, name in enumerate(names):
        out += [f"{'_' * 20} TestSpec.{name} {'_' * 20}", "", f"self = <tests.test_spec.TestSpec testMethod={name}>", "",
                "    def method(self):", ">       self.assert_case(n, text, html)", "", "tests/__init__.py:13:",
                "_ " * 40, "tests/test_spec.py:12: in assert_case",
                "    self.assertEqual(normalize_html(result), normalize_html(html))",
                f"E   AssertionError: '<p>case {k} rendered as this</p>' != '<p>case {k} rendered as that</p>'",
                f"E   - <p>case {k} rendered as this</p>", "E   ?                       ^^^^",
                f"E   + <p>case {k} rendered as that</p>", "E   ?                       ^^^^", ""]
    out.append("=" * 30 + " short test summary info " + "=" * 30)
    out += [f"FAILED tests/test_spec.py::TestSpec::{name} - AssertionError: '<p>case..." for name in names]
    out.append(f"{failures} failed, 1052 passed in 1.99s")
    return ("\n".join(out) + "\n").encode()


def test_a_pytest_q_run_whose_head_holds_no_summary_is_a_test_run_and_shows_every_failing_id():
    """``pytest -q`` prints progress lines (``..F.. [ 6%]``), then failures: with a hundred of them the
    summary is past the first 64 KB the detectors read, and the progress lines are what tell a test run
    (it was read as text, and a cut kept 64 of its 104 failing ids). As a test run, under the default
    budget every failing id is shown (they rank before the failures' ``E`` lines), and the summary line."""
    from operators.classify import classify

    raw = _pytest_q_run(104)
    assert len(raw) > 70_000 and b"short test summary" not in raw[:65536]
    assert classify(raw)[0] == "build"
    packet = reduce_bytes(raw, source="pytest-q")
    visible = packet.visible
    assert len(visible) <= 25_000 and packet.restore_pass
    for k in range(104):
        assert b"FAILED tests/test_spec.py::TestSpec::test_case_%03d - " % k in visible, k
    assert b"104 failed, 1052 passed in 1.99s" in visible
