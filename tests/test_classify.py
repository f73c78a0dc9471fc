"""Classifier: positive and negative examples for each type; unsure inputs fall back to safer types."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples, reduce_bytes
from operators.classify import binary, classify

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

LOG = b"".join(
    b"2024-05-01 10:00:%02d INFO  request started path=/api/items id=%d\n" % (i % 60, i) for i in range(30)
) + b"2024-05-01 10:00:31 ERROR PaymentService line 421: card declined\n"

GIT_DIFF = (
    b"diff --git a/src/a.php b/src/a.php\nindex 1111111..2222222 100644\n--- a/src/a.php\n+++ b/src/a.php\n"
    b"@@ -1,3 +1,3 @@\n <?php\n-echo 'a';\n+echo 'b';\n"
)

PROSE = (
    b"Agents pay for, and get distracted by, huge tool outputs. Most of that can be removed\n"
    b"deterministically, without a model, and removed does not have to mean destroyed.\n\n"
    b"The reducer for each type keeps what matters and parks the rest behind a short marker.\n"
)


def kind(raw: bytes, forced: str | None = None) -> str:
    return classify(raw, forced)[0]


# --- json ----------------------------------------------------------------------------------------


def test_json_document():
    assert kind(b'{"id": 7, "status": "failed", "items": [1, 2, 3]}') == "json"
    assert kind(b'  \n[{"a": 1}, {"a": 2}]\n') == "json"


def test_ndjson_is_json():
    assert kind(b'{"id":1,"state":"open"}\n{"id":2,"state":"failed"}\n{"id":3,"state":"open"}\n') == "json"


def test_a_log_of_json_records_is_a_log():
    pino = b'{"level":30,"time":1796355501901,"msg":"listening"}\n{"level":50,"time":1796355502786,"msg":"boom"}\n'
    structured = b'{"event": "started", "level": "info", "timestamp": "2026-11-02T10:00:00Z"}\n' * 3
    zap = b'{"level":"info","ts":1.7e9,"caller":"main.go:12","msg":"ready"}\n' * 3
    for raw in (pino * 3, structured, zap):
        assert kind(raw) == "log", raw
    mixed = b'{"level":"info","msg":"a"}\n{"id":1}\n{"id":2}\n{"id":3}\n'  # one record in four: not a log
    assert kind(mixed) == "json"
    nested = b"".join(b'{"reason":"compiler-message","target":{"name":"%s","src_path":"%s"},"message":'
                      b'{"level":"warning","message":"unused"}}\n' % (b"x" * 90, b"y" * 90) for _ in range(3))
    assert kind(nested) != "log"  # a level far inside (a compiler's message) does not make a log record


def test_a_log_of_json_records_by_their_time_alone_is_a_log():
    """An access log written as JSON names no level near its start (nginx's has none; Traefik sorts its
    keys, so ``level`` comes last, past a kilobyte of fields): its time makes it a log all the same, as
    does Docker's json-file line or an audit log's ``requestReceivedTimestamp``; ``go test -json``'s
    ``Time`` (test events) and a record whose ``time`` holds no timestamp (words, a small count) do not."""
    nginx = b''.join(b'{"time": "17/May/2015:08:05:%02d +0000", "remote_ip": "93.180.71.%d", "request": "GET /a HTTP/1.1",'
                     b' "response": 304, "bytes": 0, "agent": "Debian APT-HTTP/1.3"}\n' % (i, i) for i in range(5))
    fields = b"".join(b'"Field%02d": "%s", ' % (k, b"v" * 40) for k in range(30))
    traefik = b''.join(b'{"ClientAddr": "10.0.0.%d:4431", %s"level": "info", "msg": "", "time": "2024-03-01T10:00:0%dZ"}\n'
                       % (i, fields, i) for i in range(5))
    docker = b'{"log":"listening on :8080\\n","stream":"stdout","time":"2019-08-01T09:01:02.000000001Z"}\n' * 3
    audit = b'{"kind":"Event","stage":"ResponseComplete","requestReceivedTimestamp":"2019-04-12T09:00:00.000000Z"}\n' * 3
    journald = b''.join(b'{"__CURSOR" : "s=1;i=%d", "__REALTIME_TIMESTAMP" : "16999999%08d", "PRIORITY" : "6", '
                        b'"_SYSTEMD_UNIT" : "nginx.service", "MESSAGE" : "Started nginx"}\n' % (i, i) for i in range(5))
    for raw in (nginx, traefik, docker, audit, journald):
        assert kind(raw) == "log", raw[:80]
    gotest = b''.join(b'{"Time":"2024-01-02T10:00:0%dZ","Action":"run","Package":"x","Test":"TestA%d"}\n' % (i, i) for i in range(5))
    assert kind(gotest) == "json"
    words = b'{"time": "soon", "id": 1}\n{"time": "later", "id": 2}\n{"time": "never", "id": 3}\n'
    ticks = b''.join(b'{"ts": %d, "status": "ok", "msg": "tick %d"}\n' % (i, i) for i in range(5))  # a count, no epoch
    assert kind(words) == "json" and kind(ticks) == "json"


def test_log_lines_with_braces_are_not_json():
    raw = b"".join(b'2024-05-01 10:00:%02d INFO payload {"user": %d, "ok": true}\n' % (i, i) for i in range(10))
    assert kind(raw) == "log"
    bracketed = b"".join(b'[2024-05-01 10:00:%02d] INFO {"user": %d}\n' % (i, i) for i in range(10))
    assert kind(bracketed) == "log"


def test_broken_json_is_not_json():
    assert kind(b'{"id": 7, "status": "failed", "items": [1, 2, 3\n') != "json"


# --- diff ----------------------------------------------------------------------------------------


def test_git_diff_and_plain_unified_diff():
    assert kind(GIT_DIFF) == "diff"
    plain = b"--- old.txt\t2024-01-01 10:00:00 +0100\n+++ new.txt\t2024-01-01 10:01:00 +0100\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    assert kind(plain) == "diff"
    # a commit with its patch (git show, git log -p) is a commit: the gitlog type reduces its patch as a diff
    assert kind(b"commit 0123456789abcdef\nAuthor: A <a@b>\n\n    fix\n\n" + GIT_DIFF) == "gitlog"


@pytest.mark.parametrize("preamble", [
    b"Author: A Person <a@example.org>\nDate:   Sun Jun 22 01:15:05 2014 -0700\n\n    Fix the build\n\n",  # git log -p --format
    b"\n# HG changeset patch\n# User B <b@example.org>\n# Date 1302190091 14400\n# Node ID bd0f73a9538e\n\nFix\n\n",
    b"From: C <c@example.org>\nDate: Wed, 15 Dec 2021 23:12:36 -0800\nSubject: [PATCH] port it\n\nBody text.\n---\n",
])
def test_diff_with_a_commit_or_mail_preamble(preamble):
    assert kind(preamble + GIT_DIFF) == "diff"
    plain = b"--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    assert kind(preamble + plain) == "diff"


def test_mode_only_and_binary_only_git_diffs():
    assert kind(b"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n") == "diff"
    assert kind(b"diff --git a/x.png b/x.png\nindex 1111111..2222222 100644\nBinary files a/x.png and b/x.png differ\n") == "diff"


def test_diff_embedded_in_a_log_is_not_a_diff():
    assert kind(LOG + GIT_DIFF + LOG) == "log"


def test_prose_mentioning_diff_markers_is_not_a_diff():
    raw = PROSE + b"Lines starting with --- and +++ name the files; @@ marks a hunk.\n"
    assert kind(raw) == "text"


# --- file list -----------------------------------------------------------------------------------


def test_listing_is_filelist():
    assert kind(b"src/a.php\nsrc/b.php\nsrc/Security/AuthGuard.php\nREADME.md\n") == "filelist"
    assert kind(b".\n./src\n./src/main.c\n./include/main.h\n./Makefile\n") == "filelist"


def test_listing_with_unicode_spaces_and_brackets_is_filelist():
    raw = "docs/Überblick.md\npublic/uploads/Rechnung März 2024.pdf\napp/[slug]/page.tsx\napp/(auth)/login/page.tsx\n"
    assert kind(raw.encode()) == "filelist"


def test_windows_listing_is_filelist():
    assert kind(b"C:\\proj\\src\\a.cs\r\nC:\\proj\\src\\b.cs\r\nC:\\proj\\README.md\r\n") == "filelist"


def test_short_prose_lines_and_urls_are_not_filelist():
    assert kind(b"This is fine.\nWe went home.\nThe end is near.\nHello world.\n") == "text"
    assert kind(b"Use input/output wisely.\nRead and/or write files.\nThe client/server model works.\n") == "text"
    assert kind(b"https://example.com/a/b\nhttps://example.com/c\nhttps://example.org/x.html\n") == "text"


# --- log, build, text ----------------------------------------------------------------------------


def test_log_is_log():
    assert kind(LOG) == "log"
    syslog = b"".join(b"May  1 10:00:%02d host sshd[42]: Accepted publickey for u%d\n" % (i, i) for i in range(10))
    assert kind(syslog) == "log"


def test_build_output_is_build():
    pytest_out = b"============ test session starts ============\ncollected 3 items\n\nFAILED tests/t.py::test_a - x\n"
    assert kind(pytest_out) == "build"
    pip_out = b"Collecting a==1 (from -r r.txt)\nCollecting b==2 (from -r r.txt)\nSuccessfully installed a b\n"
    assert kind(pip_out) == "build"
    ansi_pip = b"\x1b[?25hCollecting a==1 (from -r r.txt)\n\x1b[?25hCollecting b==2 (from -r r.txt)\nSuccessfully installed a b\n"
    assert kind(ansi_pip) == "build"


def test_prose_is_text():
    assert kind(PROSE) == "text"


def test_markdown_is_a_document():
    assert kind((FIXTURES / "sample.txt").read_bytes()) == "document"  # a README with ## headings


def test_empty_and_binary_are_text():
    assert kind(b"") == "text"
    assert kind(b"  \n\n\t\n") == "text"
    assert kind(b"\x00\x01\x02PK\x03\x04" * 100) == "text"
    assert kind("a.py\0b/c.go\0".encode() * 200) == "text"  # find -print0
    assert kind("l\0i\0n\0e\0\n\0".encode() * 200) == "text"  # UTF-16


def test_a_stray_nul_leaves_the_input_to_its_type():
    """A NUL inside one line (a test named with it) does not make a test run binary: its passing
    results fold."""
    run = b"".join(b" \xe2\x9c\x93 test/parse.test.ts > parseURL > case %d 0ms\n" % i for i in range(300))
    run = run.replace(b"case 7 ", b"\x00javascript:alert(1) ") + b"\n Test Files  1 passed (1)\n      Tests  300 passed (300)\n"
    assert kind(run) == "build"
    packet = reduce_bytes(run)
    assert packet.type == "build" and packet.restore_pass
    assert len(packet.visible) < len(run) // 10 and b"Tests  300 passed (300)" in packet.visible


# --- forced type ---------------------------------------------------------------------------------


@pytest.mark.parametrize("forced", ["log", "json", "diff", "filelist", "text", "build"])
def test_forced_type_wins(forced):
    for raw in (LOG, GIT_DIFF, PROSE, b'{"a": 1}'):
        t, reason = classify(raw, forced)
        assert t == forced and "forced" in reason


def test_fixtures_classify_as_their_kind():
    expected = {"sample.diff": "diff", "sample.filelist": "filelist", "sample.txt": "document", "sample.log": "log"}
    for name, t in expected.items():
        path = FIXTURES / name
        if path.exists():
            assert kind(path.read_bytes()) == t, name


def test_a_detector_that_raises_says_no_and_is_named_in_the_reason(monkeypatch):
    """A bug in one type's detector (a plugin's, say) never stops a run: that type says no, the input
    goes on to the next ones, and the reason names the failure."""
    from types import ModuleType

    import operators.types

    real = operators.types.registry_of

    def broken(sample):
        raise ValueError("boom")

    module = ModuleType("broken_type")
    module.NAME, module.detect, module.reduce = "broken", broken, lambda raw, granularity, config: None
    monkeypatch.setattr(operators.types, "registry_of", lambda config=None: real(config).with_module(module, "json"))
    assert classify(b'{"id": 1, "status": "ok"}\n')[0] == "json"
    kind, reason = classify(b"plain words and nothing else\n" * 3)
    assert kind == "text" and "detector failed: broken (ValueError: boom)" in reason


def test_json_with_an_escaped_lone_surrogate_is_json():
    """The grammar allows ``"\\uD800"`` (URL and Unicode test suites carry them); msgspec refuses it, so
    the classifier's own validator decides, and the reducer copes."""
    raw = b'[\n  {"input": "http://example.com/\\uD800?q\\uDFFF", "failure": true},\n' + \
          b"".join(b'  {"input": "http://h%d/", "href": "http://h%d/"},\n' % (i, i) for i in range(200)) + b'  {"end": 1}\n]\n'
    assert classify(raw)[0] == "json"
    packet = reduce_bytes(raw)
    assert packet.type == "json" and packet.restore_pass and len(packet.visible) < len(raw)


# --- the detectors' cheap tests (operators.types.maybe) ---------------------------------------------
ROOT = FIXTURES.parent
REAL_INPUTS = sorted(p for pattern in ("fixtures/**/*", "tests/data/**/*", "bench/corpus/*/input")
                     for p in ROOT.glob(pattern) if p.is_file())


def _samples(raw: bytes):
    """The samples of a real input: the whole input, its first lines (a short output), a later part
    (an output whose first lines were cut), with CRLF line ends and with colour escapes."""
    lines = raw.split(b"\n")
    yield raw
    yield b"\n".join(lines[:12])
    yield b"\n".join(lines[len(lines) // 3 : len(lines) // 3 + 60])
    yield raw[:20000].replace(b"\n", b"\r\n")
    yield b"\n".join(b"\x1b[1;31m" + line + b"\x1b[0m" if i % 3 == 0 else line for i, line in enumerate(lines[:200]))


def _unchecked(name: str, sample):
    """What type ``name``'s detector says of ``sample`` with its cheap test out of the way."""
    import importlib
    from unittest import mock

    from operators.types import maybe

    with mock.patch.object(maybe, name, lambda sample: True):
        return importlib.import_module(f"operators.types.{name}").detect(sample)


def _checked_names() -> list[str]:
    """The types whose detector has conditions of its own after its cheap test (build's test is its
    whole detector: two runner lines)."""
    from operators.types.maybe import CHECKS

    return sorted(name for module in CHECKS if (name := module.rsplit(".", 1)[1]) != "build")


@pytest.mark.parametrize("name", _checked_names())
def test_a_cheap_test_says_no_only_where_its_detector_does(name):
    """Each type's cheap test is looser than its detector: on every real input (fixtures, test data,
    the bench corpus) and parts of it, where the test says no, the detector's own conditions say no
    too — so leaving the type unasked (its module not imported) changes no classification."""
    from operators import types
    from operators.types import maybe

    check = getattr(maybe, name)
    said_no = 0
    for path in REAL_INPUTS:
        for raw in _samples(path.read_bytes()):
            if not raw.strip() or binary(raw):
                continue  # classify decides these before any type is asked
            sample = types.Sample(raw)
            if not check(sample):
                said_no += 1
                assert _unchecked(name, sample) is None, (name, path.name)
    assert said_no > 100  # the test does say no, on most inputs


LINE_POOL = sorted({line for path in REAL_INPUTS[::7] for line in path.read_bytes().split(b"\n")[:40] if len(line) < 300})


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(LINE_POOL), st.sampled_from(LINE_POOL).map(lambda line: b"  " + line),
                          st.binary(max_size=30)), min_size=1, max_size=40))
def test_no_cheap_test_says_no_where_its_detector_says_yes(lines):
    """Lines of real outputs of every type, mixed, indented, with junk between: wherever a type's
    detector (its cheap test out of the way) says yes, the cheap test says yes too."""
    from operators import types
    from operators.types import maybe

    raw = b"\n".join(lines) + b"\n"
    if not raw.strip() or binary(raw):
        return
    sample = types.Sample(raw)
    for name in _checked_names():
        if _unchecked(name, sample) is not None:
            assert getattr(maybe, name)(sample), name


def test_a_log_imports_no_module_of_the_types_it_asks():
    """A log is asked of every type before ``log``; their cheap tests say no, so none of their modules
    is imported (each would cost the start-up its import)."""
    import subprocess
    import sys

    code = ("import sys; from operators.classify import classify; "
            f"print(classify({LOG!r})[0]); print(sorted(m for m in sys.modules if m.startswith('operators.types.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.splitlines() == ["log", "['operators.types.log', 'operators.types.maybe']"]


def test_a_cheap_test_that_raises_is_named_like_a_detector_that_raises(monkeypatch):
    from operators.types import maybe

    def broken(sample):
        raise RuntimeError("boom")

    monkeypatch.setitem(maybe.CHECKS, "operators.types.json", broken)
    name, reason = classify(b"plain words and nothing else\n" * 3)
    assert name == "text" and reason.endswith("detector failed: json (RuntimeError: boom)")


def test_a_plugin_type_has_no_cheap_test_and_is_always_asked():
    from types import ModuleType

    from operators import types

    module = ModuleType("toy_plugin")
    module.NAME, module.detect, module.reduce = "toy", lambda sample: "toy", lambda raw, granularity, config: None
    registry = types.BUILTIN.with_module(module, "json")
    sample = types.Sample(b"plain words\n")
    assert registry.may_be("toy", sample) and not registry.may_be("json", sample)


RUNNER_LINES = [  # one of each shape BUILD_RE knows
    b"============================= test session starts ==============================", b"=== FAILURES ===",
    b"==== 3 passed in 0.1s ====", b"FAILED tests/test_a.py::test_b - assert 1", b"collected 12 items",
    b"src/a.c:3:5: error: expected ';'", b"npm ERR! code 1", b"Collecting requests", b"Successfully installed a-1.0",
    b"ERROR: Could not find a version", b"  12 passing (30ms)", b"  \xe2\x9c\x94 works", b"test a::b ... ok",
    b"test result: ok. 3 passed; 0 failed", b"PASS src/a.test.ts", b"Test Suites: 1 failed", b"Tests: 2 passed",
    b" Test Files  1 failed (1)", b"      Tests  2 failed | 3 passed", b"not ok 2 - fails", b"# pass 3",
]


def _build_marks_hold(plain: bytes) -> None:
    from operators.types import maybe

    if len(maybe.BUILD_RE.findall(plain)) >= 2:
        assert maybe._two_build_marks(plain)


def test_builds_marks_are_in_every_runner_line_it_matches():
    """build's test counts its marks before it tries its pattern: wherever the pattern matches twice
    (every real input and parts), two marks are there."""
    from operators import types

    for path in REAL_INPUTS:
        for raw in _samples(path.read_bytes()):
            _build_marks_hold(types.Sample(raw).plain)


@pytest.mark.parametrize("line", RUNNER_LINES)
def test_each_runner_line_shape_has_its_build_mark(line):
    from operators.types import maybe

    assert len(maybe.BUILD_RE.findall(line + b"\n" + line)) >= 2  # the shape is one BUILD_RE knows
    _build_marks_hold(line + b"\n" + line)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.one_of(st.sampled_from(LINE_POOL), st.sampled_from(RUNNER_LINES), st.binary(max_size=20)),
                min_size=1, max_size=30))
def test_builds_marks_hold_on_mixed_runner_lines(lines):
    _build_marks_hold(b"\n".join(lines))


def test_logfmt_records_are_a_log_not_an_environment():
    logfmt = b"".join(b'time=2026-12-04T19:45:%02d.1Z level=%s msg="request" req_id=%d method=GET path=/orders/%d '
                      b'status=%d dur=60us\n' % (i % 60, b"error" if i % 7 == 0 else b"info", i, i, 500 if i % 7 == 0 else 200)
                      for i in range(40))
    assert kind(logfmt) == "log"
    env = b"".join(b"VAR_%d=value with spaces %d\n" % (i, i) for i in range(20)) + b"OPTS=-Dx=1 -Dy=2\n"
    assert kind(env) == "table"  # an environment stays one


def test_an_access_log_led_by_client_address_and_port_is_a_log_not_search_hits():
    haproxy = b"".join(b'127.0.0.1:%d [04/Dec/2026:19:44:50.%03d] web api/app1 0/0/0/3/3 %d 130 - - ---- 1/1/0/0/0 0/0 '
                       b'"GET /api/items/%d HTTP/1.1"\n' % (44790 + i, i, 404 if i % 5 == 0 else 200, i) for i in range(30))
    assert kind(haproxy) == "log"


def test_a_log_led_by_its_times_is_not_asked_as_diagnostics():
    """``path:1`` of a diagnostic's head is also how an ISO time or ``10:00:00.5`` starts a log line:
    such lines do not count as heads, so a timestamped log's head is not parsed as diagnostics first."""
    from operators import types
    from operators.types import maybe

    iso = b"".join(b"2026-08-16T00:00:%02d.%03dZ INFO request_id=%08x GET /api/v1/cart 200 97ms\n" % (i, i, i * 7919)
                   for i in range(40))
    bracketed = b"".join(b"[2018-08-19T03:11:%02d.102Z] I santad: action=EXEC|decision=ALLOW\n" % i for i in range(40))
    clock = b"".join(b"10:00:%02d.%03d worker-%d started job %d\n" % (i, i, i % 3, i) for i in range(40))
    for log in (iso, bracketed, clock):
        assert not maybe.diagnostics(types.Sample(log))
        assert kind(log) == "log"
    gcc = b"src/a.c:3:5: warning: unused variable 'x' [-Wunused-variable]\nsrc/b.c:9:1: error: expected ';'\n"
    assert maybe.diagnostics(types.Sample(gcc)) and kind(gcc * 3) == "diagnostics"
    assert maybe.diagnostics(types.Sample(b"".join(iso.splitlines(True)[:3]) + gcc))  # a log line does not hide the heads after it


def test_a_pytest_verbose_session_is_a_test_run_not_search_hits():
    """``pytest -v`` prints ``tests/a.py::TestX::test_y PASSED [ 0%]``: a path and ``:`` as a grep hit without
    ``-n`` starts, but ``::`` then a test's name is pytest's node id. Its session header is the only other
    runner line in the first 64 KB of a long run, so the ``-v`` result lines are the build type's marks."""
    header = (b"============================= test session starts ==============================\n"
              b"platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.7.0\nrootdir: /src/arrow\n"
              b"collecting ... collected 1904 items\n\n")
    files = [b"api", b"arrow", b"parser", b"locales"]  # a file's tests one after another, as pytest runs them
    results = b"".join(b"tests/test_%s.py::TestParser%d::test_case_%d PASSED%s[%3d%%]\n"
                       % (files[i // 475], i // 50, i, b" " * (20 - len(str(i))), i // 20) for i in range(1900))
    raw = header + results + b"tests/test_parser.py::TestParser3::test_two_digit FAILED [ 99%]\n"
    assert kind(raw) == "build"
    grep = b"".join(b"src/mod_%d.py:%d:    return value_%d\n" % (i // 10, 3 + i % 10 * 7, i) for i in range(60))
    assert kind(grep) == "search"  # path:line:text hits stay search hits


def test_a_zeek_log_of_tab_separated_fields_is_a_log_not_du():
    """Zeek (Bro) writes ``#fields`` and then one record a line, its fields split by tabs, the first an
    epoch with microseconds: a number, a tab and more, as a ``du`` line starts, but with tabs on; ``du``
    prints one tab, between the size and the path."""
    header = (b"#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\thttp\n"
              b"#fields\tts\tuid\tid.orig_h\tid.orig_p\tmethod\thost\turi\tstatus_code\n")
    rows = b"".join(b"1320279566.%06d\tCwFs%dP2Uc\t192.168.2.76\t%d\tGET\twww.example.org\t/item/%d\t%d\n"
                    % (i * 3917, i, 52026 + i, i, 404 if i % 9 == 0 else 200) for i in range(300))
    assert kind(header + rows) == "log"
    du = b"".join(b"%d\t./src/pkg_%d/module\n" % (4 * i + 8, i) for i in range(60)) + b"812\t.\n"
    assert kind(du) == "listing"
