"""The signal vocabulary (operators/vocab.py): a leaf module; signal words in every inflection, error
codes, log-record timestamps of many systems, and a SIGNAL check that shares no state with a reducer."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from operators import vocab
from operators.kernel import log_twins
from operators.types import log

VOCAB = Path(vocab.__file__)

SIGNAL_LINES = [
    b"3 errors found", b"request errored after retry", b"Unhandled exceptions: 2", b"2 warnings emitted",
    b"the job warned about quota", b"failures: 4", b"worker crashed with signal 11", b"app crashes on start",
    b"upload rejected by policy", b"message rejections rising", b"service unavailable", b"access denied for user",
    b"denials logged", b"connection refused", b"peer refusing connection", b"panicked at src/main.rs:4",
    b"aborting transaction", b"aborted", b"timeouts on shard 3", b"request timed out", b"segmentation fault (core dumped)",
    b"out of memory", b"corrupted block 7", b"constraint violations: 2", b"deadlock detected", b"Uncaught TypeError",
    b"unexpected EOF", b"java.lang.NullPointerException", b"raise ValueError('x')", b"DeprecationWarning: old api",
    b"could not open file", b"couldn't resolve host", b"cannot allocate", b"unable to stat /usr/libexec/polkitd",
    b"File not found", b"No such file or directory", b"Unsupported method ('POST')", b"avc: denied { ioctl }",
]
CODE_LINES = [
    b"process exited with exit code 2", b"exit status 1", b"ORA-00942: table or view does not exist",
    b"connect ECONNREFUSED 127.0.0.1:5432", b"Error: ENOENT: no such file", b"npm error code E404",
    b"hr = 0x800f081f", b"HRESULT = 0x80070005", b"status=503 upstream", b"status code: 404", b"HTTP/1.1 500 Internal",
    b'GET /x HTTP/1.1" 404 512 ', b"code 404, message File not found", b"errno 13", b"err=ERR_MODULE_NOT_FOUND",
    b"03-02 08:01:02.345  1702  2395 E SysUtils: ApplicationContext is null", b"03-02 08:01:02.345   877  1754 W Binder: x",
    b"E/MediaPlayer( 1234): stop called in state 0", b"E0302 08:01:02.123456    4242 reflector.go:138] list pods",
    b"sshd[24200]: POSSIBLE BREAK-IN ATTEMPT!", b"ALERT exited abnormally with [1]", b"returned non-zero exit status 2",
    b"1796423130.415      0 127.0.0.1 TCP_DENIED/403 3395 GET http://api.internal/admin - HIER_NONE/- text/html",
    b"1796423136.418   6002 127.0.0.1 TCP_MISS/502 3362 GET http://nosuchhost.invalid/ - HIER_NONE/- text/html",
    b">24 SERVER_ERROR object too large for cache", b"-   VCL_call       BACKEND_ERROR",
    b'{"time": "17/May/2015:08:05:32 +0000", "request": "GET /a HTTP/1.1", "response": 502, "bytes": 0}',
    b'{"DownstreamContentSize": 21, "DownstreamStatus": 404, "Duration": 1532}', b'"statusCode":503',
]
QUIET_LINES = [
    b"all good", b"exit code 0", b"status=200 ok", b"status code: 302", b"HTTP/1.1 200 OK", b"hr = 0x00000000",
    b"terrorist novel", b"informational", b"warningless", b"code 200", b"ORA-1", b"EVENT fired", b"Warn_count=0x0",
    b"03-02 08:01:02.345  1702  2395 I ActivityManager: Start proc", b"03-02 08:01:02.345  1702  2395 D Power: acquire",
    b"I0302 08:01:02.123456    4242 reflector.go:138] list pods", b"I/MediaPlayer( 1234): start",
    b"1796423130.323      1 127.0.0.1 TCP_MISS/200 301 GET http://shop.internal/api/items/80 - HIER_DIRECT/127.0.0.1",
    b"_DEFAULT_TIMEOUT: Final[int] = 30", b"ERRORS_SEEN = 0", b"on_error_callback registered",
    b'{"time": "17/May/2015:08:05:32 +0000", "response": 304, "bytes": 0}', b'{"DownstreamStatus": 200}',
    b'{"responses": 404}', b'{"xStatus": 200}',
]


def test_vocab_is_a_leaf_module():
    tree = ast.parse(VOCAB.read_text())
    imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    leaves = {"operators.relazy", "operators.kept"}  # patterns compiled on first use, a result kept: leaves themselves
    assert not [name for name in imported if name.split(".")[0] in {"operators", "flows"} and name not in leaves], imported


@pytest.mark.parametrize("line", SIGNAL_LINES + CODE_LINES)
def test_signal_words_in_any_inflection_and_error_codes_are_signal(line):
    assert vocab.SIGNAL_RE.search(line), line
    assert vocab.signal_lines(b"ok\n" + line + b"\nok\n") == [line.rstrip()]


@pytest.mark.parametrize("line", QUIET_LINES)
def test_near_misses_are_not_signal(line):
    assert vocab.SIGNAL_RE.search(line) is None, line


def _shape(line: bytes) -> bytes:
    return log_twins._collapse_zeros(line.translate(log_twins.DIGITS_TO_ZERO))


@pytest.mark.parametrize("line", SIGNAL_LINES + CODE_LINES + QUIET_LINES)
def test_a_shape_tells_what_its_line_is(line):
    """The log reducer scans shapes (digit runs as one 0): words match a shape exactly when they match
    its line; a line with an error code has a shape that SHAPE_CODE_RE flags as a candidate."""
    shape = _shape(line)
    assert (vocab.WORD_RE.search(shape) is not None) == (vocab.WORD_RE.search(line) is not None)
    if vocab.CODE_RE.search(line):
        assert vocab.SHAPE_CODE_RE.search(shape), (line, shape)


def test_reducer_signal_lines_equal_the_direct_scan_on_mixed_lines():
    rng = random.Random(7)
    pool = SIGNAL_LINES + CODE_LINES + QUIET_LINES + [b"2026-01-01 12:00:%02d INFO tick" % s for s in range(60)]
    raw = b"\n".join(rng.choice(pool) for _ in range(3000)) + b"\n"
    starts, ids, shape_data, shape_ends, _ = log.scan_lines(raw, True)
    from_shapes = list(log._signals_from_shapes(raw, starts, ids, shape_data, shape_ends, shape_share=10**9))
    direct = log._line_indexes(raw, vocab.signal_line_spans(raw))
    assert from_shapes == direct
    assert len(direct) > 1000


def test_sparse_signal_shapes_give_up_where_the_signal_shapes_come_densely():
    """signal_shapes(sparse=True): the flags of signal_shapes while the shapes holding a signal are
    sparse; None once they come as densely as the raw scan goes on a run at a time (a log of errors)."""
    rng = random.Random(11)
    quiet = [b"2026-01-01 12:00:%02d INFO id=%08x tick" % (s % 60, rng.getrandbits(32)) for s in range(4000)]
    sparse = b"\n".join(line if k % 50 else line + b" error" for k, line in enumerate(quiet)) + b"\n"
    dense = b"\n".join(line if k % 2 else line + b" error" for k, line in enumerate(quiet)) + b"\n"
    for raw, gives in ((sparse, True), (dense, False)):
        starts, ids, shape_data, shape_ends, _ = log.scan_lines(raw, True)
        flags = vocab.signal_shapes(shape_data, shape_ends, sparse=True)
        assert (flags is not None) == gives
        if gives:
            assert flags == vocab.signal_shapes(shape_data, shape_ends)
        shaped = log._shape_flags(raw, shape_data, shape_ends)
        found = log._signals_from_shapes(raw, starts, ids, shape_data, shape_ends, flags=shaped)
        assert list(found) == log._line_indexes(raw, vocab.signal_line_spans(raw))


LOG_RECORDS = [  # one line per timestamp format (contents invented, formats as the systems write them)
    b"20240302-08:01:02:123|StepCounter|4711|onSensorChanged 12",  # mobile app log
    b"Mar  2 08:01:02 host01 cron[311]: (root) CMD (run-parts /etc/cron.hourly)",  # syslog, no year
    b"2024-03-02 08:01:02, Info                  CBS    Session: 3071 initialized by client WindowsUpdate.",
    b"03-02 08:01:02.345  1702  2395 D PowerManager: acquire lock",  # Android logcat
    b"[Sat Mar 02 08:01:02 2024] [notice] Apache configured -- resuming normal operations",
    b"240302 080102 148 INFO dfs.DataNode: block received",  # HDFS
    b"24/03/02 08:01:02 INFO storage.BlockManager: Registering executor",  # Spark
    b"2024-03-02 08:01:02,747 - INFO  [main:QuorumPeer@1] - starting",  # Zookeeper
    b"- 1709366462 2024.03.02 R01-M0-N1 2024-03-02-08.01.02.123456 R01-M0-N1 RAS KERNEL INFO cache ok",  # BGL
    b"88412 node-12 unix.hw state_change.unavailable 1709366462 1 Component State Change",  # HPC
    b"2024/03/02 08:01:02 [error] 311#311: *1 open() failed",  # nginx error log
    b"127.0.0.1 - - [02/Mar/2024 08:01:02] \"GET / HTTP/1.1\" 200 -",  # python http.server
    b"10.0.0.1 - alice [02/Mar/2024:08:01:02 +0000] \"GET / HTTP/1.1\" 200 12",  # combined access log
    b"[03.02 08:01:02] chrome.exe - example.org:443 open through proxy",  # Proxifier
    b"<34>1 2024-03-02T08:01:02.003Z host app - - - started",  # RFC 5424
]
NOT_RECORDS = [
    b"Hello, this is a plain sentence about 08:01 in the morning.",
    b"-rw-r--r-- 1 alice staff 1234567890 Mar  2 08:01 big.iso",
    b"def test_parse():",
    b"src/app.py:12:5: E501 line too long",
]


@pytest.mark.parametrize("line", LOG_RECORDS)
def test_timestamp_formats_of_many_systems_start_a_log_record(line):
    assert vocab.is_log_line(line), line


@pytest.mark.parametrize("line", NOT_RECORDS)
def test_lines_that_are_not_log_records(line):
    assert not vocab.is_log_line(line), line


@pytest.mark.parametrize("line", LOG_RECORDS)
def test_a_log_of_each_format_is_classified_log(line):
    from operators.classify import classify

    raw = b"".join(line + b" %d\n" % k for k in range(20))
    assert classify(raw)[0] == "log", classify(raw)


def test_no_module_re_exports_names_it_does_not_use():
    """Each name is imported from its home (the vocabulary from here, the twins from operators.kernel):
    no ``from … import …  # noqa: F401`` shim in the product code (``import pkg  # noqa: F401``, a check
    that a package is installed, is not one)."""
    root = VOCAB.parent.parent
    shims = [f"{path.relative_to(root)}:{n}" for package in ("operators", "flows")
             for path in sorted((root / package).rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if "noqa" in line and "F401" in line and not line.lstrip().startswith("import ")]
    assert not shims, f"re-export shims (import the names from their home instead): {shims}"


def test_signal_check_shares_no_state_with_the_log_reducer(monkeypatch):
    """auto_signals reads the vocabulary only: the reducer's memo is gone, and breaking the reducer's own
    signal scan changes nothing in what the check expects."""
    from operators.signals import auto_signals

    assert not hasattr(log, "_last_signals") and not hasattr(log, "_remember")
    raw = b"".join(b"12:00:%02d INFO tick\n" % (i % 60) for i in range(2000)) * 600  # > 1 MB
    raw += b"12:01:00 WARN disk quota warnings rising\n12:01:01 worker crashed\n"
    expected = [b"12:01:00 WARN disk quota warnings rising", b"12:01:01 worker crashed"]
    from operators.config import Config

    log.reduce_log(raw, "coarse", Config().log)  # the reducer ran first on the same bytes object
    assert auto_signals("log", raw) == expected
    monkeypatch.setattr(log, "_signals_from_shapes", lambda *a, **k: ())
    monkeypatch.setattr(log, "signal_line_indexes", lambda raw: [])
    assert auto_signals("log", raw) == expected
    assert auto_signals("text", raw) == expected and auto_signals("build", raw) == expected


def test_line_finder_and_display_helpers():
    finder = vocab.LineFinder(rb"ERR")
    assert list(finder(b"ERR a\nok\nERR b")) == [b"ERR a", b"ERR b"]
    assert vocab.display_line(b"\x1b[31mred\x1b[0m") == b"red"
    assert vocab.display_line(b"a 10%\rb 50%\r\x1b[2K") == b"b 50%"
    assert vocab.display_text(b"x\x1b[1m!\x1b[0m\r\nplain\n") == b"x!\nplain\n"
    assert vocab.strip_escapes(b"\x1b]0;title\x07text") == b"text"


def test_a_private_key_body_is_not_asked_for_wherever_its_hint_sits():
    """SIGNAL's own look for a multi-line secret (the hint ``PRIVATE KEY``, found by RE2 as bytes): a
    key body after invalid UTF-8 or at the very end is cut out of what must stay visible too."""
    from operators import secrets
    from operators.signals import textual

    body = b"MIIEowIBAAKCAQEAfailedfailederror0123456789abcdefABCDEF+/"
    for lead in (b"", b"\xff\xfe\x80 junk\n", b"ERROR start\n" * 3):
        raw = lead + b"-----BEGIN RSA PRIVATE KEY-----\n" + body + b"\n-----END RSA PRIVATE KEY-----\n"
        assert secrets.MULTILINE_HINT in raw
        assert body not in textual(raw)
        assert textual(raw) == secrets.split(raw)
    plain = b"ERROR private key rotated\n" + body + b"\n"  # no hint: the input as it is
    assert textual(plain) is plain


def test_signal_line_spans_kept_for_the_same_input_until_forgotten():
    """A large input's signal spans are given again to the next scan of that very object (the log
    reducer, then the SIGNAL stage), equal to a fresh scan; ``forget_spans`` (SIGNAL is done) drops
    them and the reference to the input; a small input or a mutable buffer is never kept."""
    line = b"2026-01-01 INFO ok\n2026-01-01 ERROR disk full\n"
    raw = line * (vocab.SPANS_KEPT_MIN // len(line) + 1)
    fresh = vocab._signal_line_spans(raw)
    assert len(fresh) == raw.count(b"ERROR")
    first = vocab.signal_line_spans(raw)
    assert first == fresh
    first.clear()  # a caller's list is its own: the kept spans are not changed through it
    assert vocab._kept.get(raw) is not None and vocab.signal_line_spans(raw) == fresh
    assert vocab.signal_line_spans(bytes(raw)) == fresh  # an equal copy is scanned on its own
    vocab.forget_spans()
    assert vocab._kept.entry is None
    small = line * 3
    assert vocab.signal_line_spans(small) == vocab._signal_line_spans(small)
    assert vocab._kept.entry is None
    buffer = bytearray(raw)
    vocab.signal_line_spans(buffer)
    assert vocab._kept.entry is None


def test_signal_stage_forgets_the_kept_spans():
    """The SIGNAL stage's scan (``signals.auto_signals``) leaves no input referenced behind it."""
    from operators.signals import auto_signals

    line = b"2026-01-01 INFO ok\n2026-01-01 ERROR disk full\n"
    raw = line * (vocab.SPANS_KEPT_MIN // len(line) + 1)
    vocab.signal_line_spans(raw)
    assert vocab._kept.get(raw) is not None
    assert auto_signals("log", raw) == [b"2026-01-01 ERROR disk full"]
    assert vocab._kept.entry is None
