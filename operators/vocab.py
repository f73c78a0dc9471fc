"""The signal vocabulary: what an error, a warning or a failure looks like, and how a terminal shows a line.

A leaf module (it imports nothing from the project) that the reducers and the checks share:

* **signal words** (``SIGNAL_RE``): error, warning, failure, exception, crash, … in any inflection
  (``errors``, ``warnings``, ``failures``, ``crashed``, ``rejected``, ``unavailable``, ``denied``, …),
  camel-case exception names (``IOException``, ``ValueError``, ``DeprecationWarning``), upper-case result
  codes that end in one (squid's ``TCP_DENIED``, memcached's ``SERVER_ERROR``) and **error
  codes** (an HTTP 4xx/5xx status, squid's ``TCP_MISS/502``, ``exit code 2``, errno names like ``ECONNREFUSED``, ``ORA-00942``,
  failing HRESULTs ``0x800f081f``, npm's ``E404``) and the error/warning level fields of logcat and
  glog/klog lines, which carry no word (``03-02 08:01:02.345  1702  2395 E Tag:``, ``E0302 08:01:02.123456``).
  ``signal_line_spans`` finds every line holding one in a single RE2 pass over the buffer, but for a
  test runner's line of a passing test (``PASSING_RE``: a test named ``rejects invalid input`` that
  passed): the definition the SIGNAL check uses on its own. ``WORD_PATTERN`` holds no digit, so it matches a line's
  *shape* (digit runs as one ``0``) exactly when it matches the line (a word inside a file name counts
  too: ``util/timeout.py`` is a signal line, as a reader scanning for trouble would see it);
  ``CODE_RE`` needs the digits, and ``SHAPE_CODE_RE`` finds the shapes that may hold one (a superset:
  each candidate line is checked on its raw bytes).
* build/test markers that are signal in runner output (``EXTRA_SIGNAL_RE``: pytest ``E`` lines, linker
  errors, ``npm ERR!``, jest's ``✕``) and the ranking regexes of level 0 (``ERROR_RE``, ``WARN_RE``,
  ``CONCLUSION_RE``, ``EXCEPTION_RE``);
* line finders (``LineFinder``): every line starting with a pattern, at C speed;
* terminal display (``display_line``, ``display_text``, ``strip_escapes``, ``CONTROL_RE``): escapes,
  backspaces and ``\\r`` redraws as a terminal resolves them;
* log records (``LOG_LINE_RE``, ``LEVEL_RE``, ``is_log_line``): the timestamps and levels that start a
  log line, from ISO and syslog to logcat, Apache, HDFS, Spark, Windows CBS and epoch-stamped HPC logs.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cache
from typing import Iterator

import re2
from operators.kept import KeptFor  # a large input's spans kept for the next stage that scans it
from operators.relazy import lazy, re2_program  # patterns compiled on first use

# -- signal words and error codes ----------------------------------------------------------------
WORD_PATTERN = (
    rb"(?i:\b(?:err|errs|errors?|errored|erroring|erroneous|errno|warn|warns|warned|warnings?"
    rb"|fatal|fatally|critical|crit|alerts?|emerg|emergency|severe|exceptions?|traceback"
    rb"|panic|panics|panicked|panicking|fail|fails|failed|failing|failures?"
    rb"|denied|denial|denials|refused|refuse|refuses|refusing|reject|rejects|rejected|rejecting|rejections?"
    rb"|unable|cannot|can't|couldn't|could not|unavailable|timeouts?|timed out"
    rb"|killed|abort|aborts|aborted|aborting|crash|crashes|crashed|crashing"
    rb"|segfaults?|segmentation fault|invalid|unauthori[sz]ed|forbidden|unreachable|oom|out of memory"
    rb"|not found|no such file|unsupported|abnormal|abnormally|break-in|non-zero|corrupt|corrupted|corruption|violations?|deadlocks?|deadlocked|unhandled|uncaught|unexpected|unexpectedly"
    rb"|sqlstate)\b)"
    rb"|[A-Za-z](?:Exception|Error|Warning|Failure)s?\b"
    rb"|\bE(?:NOENT|ACCES|PERM|CONNREFUSED|CONNRESET|CONNABORTED|TIMEDOUT|ADDRINUSE|ADDRNOTAVAIL|NOSPC|NOMEM"
    rb"|PIPE|EXIST|NOTDIR|ISDIR|AGAIN|INVAL|BUSY|HOSTUNREACH|NETUNREACH|NETDOWN|MFILE|NFILE|NOTEMPTY|ROFS"
    rb"|NOTFOUND|BADF|NOTCONN|NOTSUP|DQUOT)\b"
    rb"|\bERR_[A-Z][A-Z_]{2,}\b"
    rb"|_(?:DENIED|REFUSED|FAILED|FAILURE|ERROR|ABORTED|TIMEDOUT|REJECTED|FORBIDDEN|UNAVAILABLE)\b"  # TCP_DENIED, SERVER_ERROR
)
STATUS_PATTERN = rb'" [45]\d\d '  # an access log's status field
CODE_PATTERN = (  # error codes that need their digits
    rb"(?i:\bexit(?:ed)?(?: with)? (?:code|status)[ =:]*)-?[1-9]"
    rb"|(?i:\b(?:status|response)(?:[ _]?code)?)[ =:\"]+[45]\d\d\b|[a-z]Status(?:Code)?[ =:\"]+[45]\d\d\b"  # Traefik's DownstreamStatus
    rb"|(?i:\b(?:code|error)[ =:]+)[45]\d\d\b"
    rb"|\bHTTP/\d(?:\.\d)? [45]\d\d\b|\b[A-Z]+(?:_[A-Z]+)+/[45]\d\d\b"  # squid's TCP_MISS/502
    rb"|\bORA-\d{5}\b|\bE[45]\d\d\b"
    rb"|(?i:\b(?:hr|hresult|error|status|code)\s*[=:]?\s*)0x8[0-9A-Fa-f]{7}\b"
    rb"|\d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [EWFA] "  # Android logcat (threadtime): error, warning, fatal, assert
    rb"|\b[EWF]/[\w.$-]+\( *\d+\): "  # logcat brief: E/Tag( 123):
    rb"|\b[EWF]\d{4} \d\d:\d\d:\d\d\.\d{6} "  # glog / klog (Kubernetes): E0302 08:01:02.123456
)
# the same alternatives on a shape (every digit run one "0"): a superset of the shapes of CODE_PATTERN's lines
SHAPE_CODE_PATTERN = (
    rb"(?i:\bexit(?:ed)?(?: with)? (?:code|status)[ =:]*)-?0"
    rb"|(?i:\b(?:status|response)(?:[ _]?code)?)[ =:\"]+0\b|[a-z]Status(?:Code)?[ =:\"]+0\b|(?i:\b(?:code|error)[ =:]+)0\b"
    rb"|\bHTTP/0(?:\.0)? 0\b|\b[A-Z]+(?:_[A-Z]+)+/0\b"
    rb"|\bORA-0\b|\bE0\b"
    rb"|(?i:\b(?:hr|hresult|error|status|code)\s*[=:]?\s*)0x"
    rb"|0:0:0\.0 +0 +0 [EWFA] "
    rb"|\b[EWF]/[\w.$-]+\( *0\): "
    rb"|\b[EWF]0 0:0:0\.0 "
)
SIGNAL_PATTERN = WORD_PATTERN + rb"|" + CODE_PATTERN + rb"|" + STATUS_PATTERN
SIGNAL_RE = lazy(SIGNAL_PATTERN, compiler=re2.compile)
WORD_RE = lazy(WORD_PATTERN, compiler=re2.compile)  # what a shape can tell
CODE_RE = lazy(CODE_PATTERN, compiler=re2.compile)
SHAPE_CODE_RE = lazy(SHAPE_CODE_PATTERN, compiler=re2.compile)
SHAPE_STATUS = b'" 0 '  # a shape that may hold a 4xx/5xx status; the raw line decides
# a shape that holds a match of WORD_PATTERN or may hold one of CODE_PATTERN or STATUS_PATTERN, or holds 0x (signal_shapes)
SHAPE_SIGNAL_RE = lazy(WORD_PATTERN + rb"|" + SHAPE_CODE_PATTERN + rb"|" + re.escape(SHAPE_STATUS) + rb"|0x", compiler=re2.compile)
STATUS_RE = lazy(STATUS_PATTERN)


LIBTEST_OK = rb"test \S+(?: - .+)? \.\.\. ok"  # cargo test's line of a test that passed (a doc-test's name: ``src/a.rs - f (line 3)``)
GO_TEST_START = rb"=== (?:RUN|PAUSE|CONT|NAME) "  # go test -v's line as a test starts, pauses or goes on
# a test runner's line for a test that passed (or, go test -v's ``=== RUN``, that starts): its name may
# say "error" or "throws", it is no signal
PASSING_RE = lazy(
    rb"[ \t]*(?:\xe2\x9c\x93|\xe2\x9c\x94|\xe2\x88\x9a)[ \t]"  # jest, vitest, mocha: ✓ ✔ √
    rb"|\S+::\S.*? PASSED(?: |\r?$)"  # pytest -v
    rb"|[ \t]*ok \d+ - |[ \t]*--- PASS: |" + GO_TEST_START + rb" *\S|" + LIBTEST_OK + rb"\r?$"  # TAP, go test -v, cargo test
)


SPANS_KEPT_MIN = 1 << 20  # bytes of an input whose signal spans are kept for the next scan of it
_kept = KeptFor(SPANS_KEPT_MIN)  # the input last scanned (bytes of SPANS_KEPT_MIN or more) and its spans


def signal_line_spans(raw: bytes) -> list[tuple[int, int]]:
    """The definition: (start, end) of every line where ``SIGNAL_RE`` matches, newline excluded,
    but for a test runner's line of a passing test (``PASSING_RE``: ``✓ rejects invalid input``,
    ``test_error_page PASSED``). One RE2 pass over the buffer; no list of lines is made.

    The spans of a large input are kept until ``forget_spans``: asked again of that very object (the
    log reducer scans a log whose lines all differ, the SIGNAL stage scans the same bytes), they are
    not computed twice. The result depends on the bytes alone (immutable), whoever asked first."""
    return _kept.of(raw, _signal_line_spans)


def forget_spans() -> None:
    """Drop the kept spans (and the reference to their input): the SIGNAL stage is done with it."""
    _kept.forget()


SHAPED_KEEP_MAX = 10_000  # signal lines beyond which ``keep_shaped_spans`` keeps nothing (SIGNAL's own scan stops early)


def signal_shapes(shape_data: bytes, shape_ends, sparse: bool = False) -> tuple[bytearray, bytearray] | None:
    """Two flags a shape of the kernel's table of a text's lines (``kernel.scan_lines(raw, True)``: the
    distinct shapes, each followed by a newline, and where each ends): ``word``, every line of the
    shape holds a match of ``SIGNAL_RE`` (of ``WORD_PATTERN``); ``maybe``, its lines may hold one (its
    shape holds a match of ``SHAPE_CODE_RE`` or ``SHAPE_STATUS``, and no word): each to be searched on
    its own bytes. One search a shape that holds any (``SHAPE_SIGNAL_RE``), then ``WORD_RE`` on those.
    None when the shapes hold ``0x`` (see ``keep_shaped_spans``).

    A shape is its line with every run of ASCII digits one ``0``. ``WORD_PATTERN`` holds no digit and
    digits are word characters, so a shape holds a match of it exactly when its lines do.
    ``CODE_PATTERN`` and ``STATUS_PATTERN`` need digits: a line holding a match of either has a shape
    holding a match of ``SHAPE_CODE_RE`` or ``SHAPE_STATUS`` (a superset). No match of these patterns
    goes on past a line's end but the failing-HRESULT alternative's, which needs ``0x8`` in a line
    (``0x`` in a shape): where no shape holds ``0x``, a shape holds a match exactly when the shapes
    searched as one text have a match start on it. ``SHAPE_SIGNAL_RE`` matches ``0x`` too: a shape that
    holds it is one the search stops at (or a match before it goes on past a shape's end: None too).
    None also where RE2's program cannot be asked directly (``relazy.re2_program``). ``sparse``: None
    too as soon as the shapes it stops at come as densely as ``signal_line_runs`` goes on a run at a
    time (``DENSE_LINES``, ``DENSE_BYTES``: a log of errors, whose raw bytes are searched faster so
    than its shapes one by one)."""
    program = re2_program(SHAPE_SIGNAL_RE)
    if program is None:
        return None
    match, unanchored = program[0], program[1].UNANCHORED
    ends, n = shape_ends, len(shape_data)  # offset after each shape's newline
    word = bytearray(len(ends))
    maybe = bytearray(len(ends))
    has_word = WORD_RE.search
    pos = found = 0
    while pos < n:  # a search a shape that holds a word, a code's shape, a status's or 0x
        at, end = match(unanchored, shape_data, pos, n)[0]
        if at < 0:
            break
        shape = bisect_right(ends, at)
        pos, stop = ends[shape], ends[shape] - 1  # on from the next shape; this one's newline
        if end > stop or shape_data.find(b"0x", at, stop) >= 0:
            return None
        if has_word(shape_data, at, stop) is not None:
            word[shape] = 1
        else:
            maybe[shape] = 1
        found += 1
        if sparse and found >= DENSE_LINES and found * DENSE_BYTES >= pos:
            return None
    return word, maybe


SHAPED_KEEP_MAX = 10_000  # signal lines beyond which ``keep_shaped_spans`` keeps nothing (SIGNAL's own scan stops early)


def keep_shaped_spans(raw: bytes, starts, ids, shape_data: bytes, shape_ends, lines_with, flags=None) -> bool:
    """Keep for the next ``signal_line_spans`` or ``signal_lines`` of this very object the spans the
    definition gives, found from the kernel's table of its lines (``kernel.scan_lines(raw, True)``:
    ``starts``, each line's shape id ``ids``, the distinct shapes, each followed by a newline, and where
    each ends; ``lines_with`` is the kernel's) instead of a pass of ``SIGNAL_RE`` over every byte: a log
    whose lines repeat a few shapes is searched a shape at a time. ``flags``: ``signal_shapes`` of
    these shapes, when the caller has it. Whether it kept them.

    The same spans, line for line (``signal_shapes``): the lines of a ``word`` shape, and those of a
    ``maybe`` shape where ``SIGNAL_RE`` finds a match in the line's own bytes; but a passing test's
    line (``PASSING_RE``), left out as ``signal_line_spans`` leaves it. Nothing is kept of an input
    whose shapes hold ``0x``, nor of one with more than ``SHAPED_KEEP_MAX`` signal lines (a log of
    errors: SIGNAL's own scan stops at its limit), nor of one under ``SPANS_KEPT_MIN`` bytes."""
    if type(raw) is not bytes or len(raw) < SPANS_KEPT_MIN:
        return False
    if flags is None:
        flags = signal_shapes(shape_data, shape_ends)
        if flags is None:
            return False
    word, maybe = flags
    found = lines_with(ids, word)
    if len(found) > SHAPED_KEEP_MAX:
        return False
    search = SIGNAL_RE.search
    checked = [] if 1 not in maybe else [i for i in lines_with(ids, maybe)
                                         if search(raw, starts[i], _body_end(raw, starts[i + 1])) is not None]
    if len(found) + len(checked) > SHAPED_KEEP_MAX:
        return False
    lines = sorted((*found, *checked)) if checked else found
    spans = []
    for i in lines:
        start, end = starts[i], _body_end(raw, starts[i + 1])
        if not passed(raw, start, end):
            spans.append((start, end))
    _kept.keep(raw, spans)
    return True


def passed(raw: bytes, start: int, end: int) -> bool:
    """Whether the line ``raw[start:end]`` is a test runner's line of a passing test (``PASSING_RE``),
    as it is or with its escapes removed (vitest's coloured ``\\x1b[32m✓\\x1b[39m throws an error``; a
    line redrawn with ``\\r`` is read whole: a failure in a frame drawn over stays a signal)."""
    if PASSING_RE.match(raw, start, end) is not None:
        return True
    return raw.find(b"\x1b", start, end) >= 0 and PASSING_RE.match(strip_escapes(raw[start:end])) is not None


def _body_end(raw: bytes, next_start: int) -> int:
    """Where a line ends before its newline, from where the next line starts (the input's length
    after a last line without one)."""
    return next_start - 1 if next_start and raw[next_start - 1] == 10 else next_start


def _signal_line_spans(raw: bytes) -> list[tuple[int, int]]:
    return list(_iter_signal_line_spans(raw))


def _iter_signal_line_spans(raw: bytes) -> Iterator[tuple[int, int]]:
    """``signal_line_spans``, made as they are asked for (``signal_line_runs``)."""
    for start, stop in signal_line_runs(raw):
        while start < stop:
            end = raw.find(b"\n", start, stop)
            if end < 0:
                end = stop  # the last line, no newline after it
            if not passed(raw, start, end):
                yield start, end
            start = end + 1


# what follows a line's end when a SIGNAL_RE match may go on past it: its one alternative that may
# (``\s`` before a failing HRESULT: ``error\n  0x80070005``) ends in ``0x8``, after spaces and ``=`` or ``:``
_CROSSING_RE = lazy(rb"[\s=:]*0x8")


def line_runs_pattern(body: bytes) -> bytes:
    """A run of lines each holding a match of ``body`` (a line holds no newline; a run ends after one)."""
    return rb"(?m)(?:^[^\n]*?(?:" + body + rb")[^\n]*(?:\n|\z))+"


def line_runs_program(body: bytes):
    """The RE2 program (``relazy.re2_program``) of ``line_runs_pattern(body)`` read as Latin-1 (a byte a
    character: ``[^\n]`` takes any other byte, where UTF-8 takes no byte of a broken character), or None
    (another engine)."""
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    return re2_program(re2.compile(line_runs_pattern(body), options))


SIGNAL_RUN_PATTERN = line_runs_pattern(SIGNAL_PATTERN)  # a run of lines each holding a match of SIGNAL_RE
# what SIGNAL_RE (UTF-8) may match that SIGNAL_RUN_PATTERN (Latin-1) does not: the two characters outside
# ASCII that case-fold to a letter of it (KELVIN SIGN for k, LATIN SMALL LETTER LONG S for s), and ``0x8``,
# which ends the one alternative that may go on past a line's end (``\s`` before a failing HRESULT)
RUNS_APART = (b"\xe2\x84\xaa", b"\xc5\xbf", b"0x8")  # (the first two only in a block past ASCII)
DENSE_LINES, DENSE_BYTES = 256, 4096  # signal lines found one by one, at least one in so many bytes: runs from there on
RUNS_BLOCK = 1 << 20  # bytes searched at a time for runs (a run never crosses a block's end): a reader that stops early


def signal_line_runs(text: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) of runs of consecutive lines where ``SIGNAL_RE.finditer(text)`` starts a match (the
    end after the last line's newline, if any), in order, together every such line once. The lines
    are found one by one (``signal_starts``, a run of one line each) until they are many and dense
    (``DENSE_LINES``, ``DENSE_BYTES``: a log of errors), then a run at a time (``_runs``: one search a
    run, ``SIGNAL_RUN_PATTERN``), a block of lines at a time, in each block that holds none of
    ``RUNS_APART`` and that no match may go on from (``_CROSSING_RE`` after it), which finds the very
    same lines; from a block that does, one by one again."""
    n = len(text)
    found, at, until = 0, 0, 0  # lines found; where to search from; one by one up to there at least
    program = _signal_run_program()
    while at < n:
        for pos in signal_starts(text, at):
            start = text.rfind(b"\n", 0, pos) + 1
            if found >= DENSE_LINES and found * DENSE_BYTES >= start and start >= until and program is not None:
                at, until = yield from _runs(program, text, start)
                break
            end = text.find(b"\n", pos)
            yield start, n if end < 0 else end + 1
            found += 1
        else:
            return


@cache
def _signal_run_program():
    """The RE2 program of ``SIGNAL_RUN_PATTERN`` (Latin-1), or None (another engine)."""
    return line_runs_program(SIGNAL_PATTERN)


def _runs(program, text: bytes, pos: int):
    """The runs of ``signal_line_runs`` from ``pos`` (a line start), a block of whole lines at a time;
    returns where a block that may not be searched so starts and ends (the length of ``text`` twice
    when none does)."""
    n = len(text)
    crossing = _CROSSING_RE.match
    while pos < n:
        stop = text.find(b"\n", pos + RUNS_BLOCK) + 1 or n  # after a newline: no line is cut
        if text.find(b"0x8", pos, stop) >= 0 or crossing(text, stop) is not None or (
                not text[pos:stop].isascii() and any(text.find(apart, pos, stop) >= 0 for apart in RUNS_APART)):
            return pos, stop
        yield from program_spans(program, text, pos, stop)
        pos = stop
    return n, n


def program_spans(program, text: bytes, pos: int = 0, stop: int | None = None):
    """(start, end) of each match of an RE2 program (``relazy.re2_program``) in ``text[pos:stop]``, in
    order, without match objects."""
    match, unanchored = program[0], program[1].UNANCHORED
    stop = len(text) if stop is None else stop
    while pos < stop:
        span = match(unanchored, text, pos, stop)[0]
        if span[0] < 0:
            return
        yield span
        pos = span[1]


def signal_starts(text: bytes, pos: int = 0) -> Iterator[int]:
    """Where the first match of ``SIGNAL_RE.finditer(text)`` on each line that holds the start of one
    begins, in order, from ``pos`` (a line start no match goes on past) (``line_matches``)."""
    return line_matches(SIGNAL_RE, text, _CROSSING_RE, pos)


def line_matches(pattern, text: bytes, crossing=None, pos: int = 0) -> Iterator[int]:
    """Where the first match of ``pattern.finditer(text)`` (an RE2 pattern that never matches empty) on
    each line that holds the start of one begins, in order: the lines those matches start on, found
    with one search a line. After a match the search goes on from the next line, not through the
    other matches of that line (a log line says "error" three times), which finds the same lines as
    long as none of those would go on past the line's end: a pattern that may do so names
    ``crossing``, matched after the end of a line, which its matches need there to go on; the matches
    of a line it matches after are stepped through as ``finditer`` does. RE2's program is asked
    directly (``relazy.re2_program``): no match object a match."""
    program = re2_program(pattern)
    if program is None:  # another engine: every match
        end = -1
        for match in pattern.finditer(text, pos):
            pos = match.start()
            if pos > end:
                yield pos
                end = text.find(b"\n", pos)
                if end < 0:
                    return
        return
    match, anchor = program
    unanchored, n = anchor.UNANCHORED, len(text)
    crossing = crossing.match if crossing is not None else None
    while True:
        start, end = match(unanchored, text, pos, n)[0]
        if start < 0:
            return
        yield start
        line_end = text.find(b"\n", start)
        if line_end < 0:
            return
        if end > line_end:  # the match went on past the line's end: finditer goes on from its end
            pos = end
            continue
        pos = line_end + 1
        if crossing is None or crossing(text, pos) is None:
            continue
        while True:  # the line's other matches as finditer steps through them (none is empty)
            start, end = match(unanchored, text, end, n)[0]
            if start < 0:
                return
            if start > line_end:  # the next line's first match
                pos = start
                break
            if end > line_end:
                pos = end
                break


def signal_lines(raw: bytes, limit: int = 0) -> list[bytes]:
    """Every distinct signal line of ``raw`` (trailing whitespace stripped, empty ones dropped), in
    order; at most ``limit`` of them when given."""
    spans = _kept.get(raw)
    if spans is None:  # made as they are read: a log of distinct signal lines stops at ``limit``
        spans = _iter_signal_line_spans(raw) if limit else signal_line_spans(raw)
    out: dict[bytes, None] = {}
    for start, end in spans:
        line = raw[start:end].rstrip()
        if line:
            out.setdefault(line, None)
            if limit and len(out) >= limit:
                break
    return list(out)


# -- signal templates (operators.signals.templates, the kernel's mask_numbers and first_template) ----------
# what varies between lines of one template: hex ids (8+ hex digits holding a digit), numbers
NUMBERS_RE = re.compile(  # 0x and hex digits, a UUID, a hex id of 8 to 64 digits (one a decimal digit at least), a number
    rb"(?<![0-9A-Za-z])0[xX][0-9a-fA-F]+(?![0-9A-Za-z])"
    rb"|(?<![0-9A-Za-z])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Za-z])"
    rb"|(?<![0-9A-Za-z])(?=[0-9a-fA-F]{0,63}[0-9])[0-9a-fA-F]{8,64}(?![0-9A-Za-z])|[0-9]+")
COUNT_RE = re.compile(rb"(?m) \xc3\x97[0-9][0-9,]*+[ \t\r]*+$")  # a reducer's " ×52" at a line's end
DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")  # (``bytes.translate``) any digit equal to any other


# -- build and test runner markers, level-0 ranking ------------------------------------------------
EXTRA_SIGNAL_PATTERN = (
    rb"^E(?: |$)"  # pytest assertion detail
    rb"|undefined reference to|multiple definition of|[Nn]o rule to make target|\bnot ok\b"
    rb"|^[ \t]*(?:\xe2\x9c\x95|\xe2\x9c\x97|\xc3\x97|\xe2\x9d\x8c)[ \t]"  # ✕ ✗ × ❌
    rb"|^[ \t]*npm (?:ERR!|error)|\bERR!"
)
EXTRA_SIGNAL_RE = lazy(EXTRA_SIGNAL_PATTERN)
EXTRA_SIGNAL_SCAN = lazy(b"(?m)" + EXTRA_SIGNAL_PATTERN, compiler=re2.compile)  # one linear pass over a whole buffer

ERROR_RE = lazy(
    rb"(?i:\b(?:errors?|err!?|fatal|failed|failure|failures|exception|traceback|panic|panicked|critical|segfault"
    rb"|killed|aborted|not ok)\b)|[A-Za-z](?:Exception|Error)\b|^E(?: |$)|undefined reference"
)
CONCLUSION_RE = lazy(  # the lines that say what went wrong, best first
    rb"^(?:FAILED|ERROR) \S+::|: (?:fatal )?error(?:\[\w+\])?: |^\s*error(?:\[\w+\])?: |^ERROR: |^npm (?:ERR!|error) code "
    rb"|make(?:\[\d+\])?: \*\*\*|^--- FAIL: |^FAIL\b|undefined reference|^\s*(?:\xe2\x97\x8f|\xe2\x9c\x95) "
)
EXCEPTION_RE = lazy(rb"^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt): |^E\s+\w+(?:Error|Exception)\b")
WARN_RE = lazy(rb"(?i:\bwarn(?:ing|ings)?\b)|[a-z]Warning\b")


def is_signal_text(text: bytes) -> bool:
    """A displayed line that must stay visible (and that a budget packer shows first)."""
    return SIGNAL_RE.search(text) is not None or EXTRA_SIGNAL_RE.search(text) is not None


# -- line finders ----------------------------------------------------------------------------------
class LineFinder:
    """Every line of a buffer (without its ``\\n``) that starts with a match of ``head``, in order.

    Searched as ``\\n`` + head, which ``re`` finds at C speed (a pattern starting with ``^`` is tried
    at every byte); the first line has no ``\\n`` before it and is matched on its own. No list of
    every line is made."""

    def __init__(self, head: bytes):
        self._first = re.compile(head + rb"[^\n]*")
        self._rest = re.compile(rb"\n(" + head + rb"[^\n]*)")

    def __call__(self, raw: bytes) -> Iterator[bytes]:
        first = self._first.match(raw)
        if first:
            yield first.group()
        for match in self._rest.finditer(raw):
            yield match.group(1)

    def lists(self, raw: bytes, block: int = 1 << 20) -> Iterator[list[bytes]]:
        """The same lines, in order, as lists: one ``findall`` over each block of about ``block``
        bytes (from a newline to a newline), no Python step a line."""
        first = self._first.match(raw)
        if first:
            yield [first.group()]
        pos, n = 0, len(raw)
        while pos < n:
            stop = raw.find(b"\n", pos + block)
            stop = n if stop < 0 else stop  # the next block starts at this newline
            yield self._rest.findall(raw, pos, stop)
            pos = stop


# -- terminal display ------------------------------------------------------------------------------
ESCAPES_PATTERN = (
    rb"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erase line
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks
    rb"|\x1b[PX^_][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # DCS, SOS, PM, APC strings (as operators.safety)
    rb"|\x1b[()*+][0-9A-Za-z]"  # charset selection
    rb"|\x1b[@-Z\\-_=>78]"  # two-byte escapes
)
_CONTROLS = rb"\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f"  # other control characters (not \t, \n, \r, backspace)
ESC_RE = lazy(ESCAPES_PATTERN + rb"|[\x08" + _CONTROLS + rb"]")
ESC_NO_BS_RE = lazy(ESCAPES_PATTERN + rb"|[" + _CONTROLS + rb"]")  # backspaces left: they move (``shown_spans``)
CONTROL_RE = lazy(rb"[\x00-\x08\x0b-\x1f\x7f]")  # anything display_line may change (with \r and ESC)
_BACKSPACES = re.compile(rb"\x08+")
_CHAR = re.compile(rb"[\xc0-\xff][\x80-\xbf]{0,3}|[\x00-\xff]")  # one character: a UTF-8 sequence, or a byte


def text_pieces(raw: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of ``raw[start:end]`` (one line) between its escape sequences and controls, backspaces
    left in (``shown_spans`` reads them)."""
    pieces, pos = [], start
    for m in ESC_NO_BS_RE.finditer(raw, start, end):
        pieces.append((pos, m.start()))
        pos = m.end()
    pieces.append((pos, end))
    return pieces


def shown_spans(raw: bytes, pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Of one line's text ``pieces`` (escapes left out), the spans a terminal shows once its backspaces
    have acted: a backspace moves back one character (never before the line's start) and what is
    printed next overwrites what was there (``B\\bB`` bold, ``_\\bu`` underlined, a spinner's
    ``|\\b/\\b-``); a character moved back over and not overwritten stays (``got 3\\b`` ends with its
    3). The columns are shown left to right, but a character written before one left of it (what is
    left of a longer text written over by a shorter one, ``abc\\b\\b\\bxy``: ``xy``, where a terminal
    shows ``xyc``), so what is shown is always a part of the line's bytes, in their order."""
    if not any(raw.find(b"\x08", a, b) >= 0 for a, b in pieces):
        return [(a, b) for a, b in pieces if a < b]
    cells: list[int] = []  # the start in raw of the character in each column
    cur = 0

    def put(cur: int, a: int, b: int) -> int:
        """``raw[a:b]`` printed from column ``cur``; returns the column after it."""
        if a >= b:
            return cur
        segment = raw[a:b]
        starts = range(a, b) if segment.isascii() else [a + m.start() for m in _CHAR.finditer(segment)]
        cells[cur : cur + len(starts)] = starts
        return cur + len(starts)

    for a, b in pieces:
        pos = a
        for m in _BACKSPACES.finditer(raw, a, b):
            cur = max(0, put(cur, pos, m.start()) - (m.end() - m.start()))
            pos = m.end()
        cur = put(cur, pos, b)
    spans: list[tuple[int, int]] = []
    for at in cells:
        if spans and at < spans[-1][1]:
            continue  # written before a character left of it: out of the line's order, not shown
        stop = at + 1 if raw[at] < 0x80 else _CHAR.match(raw, at).end()
        if spans and spans[-1][1] == at:
            spans[-1] = (spans[-1][0], stop)
        else:
            spans.append((at, stop))
    return spans


def overstrike(data: bytes) -> tuple[bytes, int]:
    """``data`` (escapes removed) with each line's backspaces acted on as ``shown_spans`` says, and
    how many backspaces went."""
    if b"\x08" not in data:
        return data, 0
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        if b"\x08" in line:
            lines[i] = b"".join(line[a:b] for a, b in shown_spans(line, [(0, len(line))]))
    return b"\n".join(lines), data.count(b"\x08")


def strip_escapes(segment: bytes) -> bytes:
    """One line as a terminal shows it but for carriage returns: escapes and controls removed,
    backspaces acted on."""
    if b"\x08" not in segment:
        return ESC_RE.sub(b"", segment)
    return b"".join(segment[a:b] for a, b in shown_spans(segment, text_pieces(segment, 0, len(segment))))


def has_text(raw: bytes, start: int, end: int) -> bool:
    return bool(strip_escapes(raw[start:end]).strip())


def frame(raw: bytes, start: int, end: int) -> tuple[int, int]:
    """The span of ``raw[start:end]`` (one line, no line ending) that a terminal ends up showing.

    ``\\r`` returns the cursor to the start of the line: the last frame with visible text wins."""
    cut = raw.rfind(b"\r", start, end)
    if cut < 0:
        return start, end
    fe = end
    while True:
        fs = cut + 1 if cut >= 0 else start
        if has_text(raw, fs, fe):
            return fs, fe
        if cut < 0:
            last = raw.rfind(b"\r", start, end)
            return last + 1, end  # nothing visible anywhere: the last frame
        fe = cut
        cut = raw.rfind(b"\r", start, cut)


def display_line(line: bytes) -> bytes:
    """One line (no ``\\n``) as a terminal shows it: last ``\\r`` frame, escapes removed."""
    end = len(line) - 1 if line.endswith(b"\r") else len(line)
    fs, fe = frame(line, 0, end)
    return strip_escapes(line[fs:fe])


def display_text(data: bytes) -> bytes:
    """``data`` as a terminal shows it, line by line (line endings kept as ``\\n``)."""
    if b"\x1b" not in data and b"\r" not in data and b"\x08" not in data:
        return data
    return b"\n".join(display_line(line) for line in data.split(b"\n"))


# -- log records -------------------------------------------------------------------------------------
_MON = rb"[A-Z][a-z]{2}"
LOG_LINE_RE = lazy(
    rb"^(?:<\d{1,3}>\d? ?)?(?:\S+\s+)?(?:(?:time|ts|timestamp|date)=\"?)?"  # logfmt: time=2026-12-04T…
    rb"(?:\[?\d{4}-\d{2}-\d{2}[T _]\d{2}[:.]\d{2}|\[?\d{2}:\d{2}:\d{2}"
    rb"|\[?" + _MON + rb" +\d{1,2} \d{2}:\d{2}:\d{2}"  # syslog (no year)
    rb"|\d{1,2} " + _MON + rb" \d{4} \d{2}:\d{2}:\d{2}"  # day month year: Redis ("7147:M 04 Dec 2026 15:11:09.562 *")
    rb"|\[" + _MON + rb" " + _MON + rb" [ \d]\d \d{2}:\d{2}:\d{2}"  # Apache error log
    rb"|\d{8}-\d{2}:\d{2}:\d{2}"  # 20171223-22:15:29:606
    rb"|\d{2}-\d{2} \d{2}:\d{2}:\d{2}"  # Android logcat
    rb"|\d{4}[/.]\d{2}[/.]\d{2}[ T-]\d{2}[:.]\d{2}"  # nginx, Go, BGL
    rb"|\[\d{2}\.\d{2} \d{2}:\d{2}:\d{2}\]"  # Proxifier
    rb"|\d{2}\.\d{2}\.\d{4},? \d{2}:\d{2}"
    rb"|\d{6} \d{6}|\d{2}/\d{2}/\d{2,4}|\[\d+/[A-Z][a-z]{2}/\d{4}|\d{10}(?:\.\d+)?\s"
    rb"|\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL)\b)"
    rb"|^(?:\S+\s+){1,4}1\d{9} \d+ [A-Za-z]"  # HPC: the epoch after a record id and a node
    rb"|^(?:\S+\s+){1,3}\[\d{1,2}/[A-Z][a-z]{2}/\d{4}[: ]\d{2}:\d{2}"  # access logs: host ident user [date]
)
LEVEL_RE = lazy(rb"\b(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL)\b")
CONTINUATION_RE = lazy(  # a line that goes on with the record before it: a stack trace's frame, cause, end
    rb"[ \t]|Caused by|\.\.\. \d+ more|[\w.$]+(?:Exception|Error)\b|\}"
    rb"|#\d+ |Stack trace:|\[(?:stacktrace|previous exception)\]|\"\}")  # PHP's trace (Laravel, Monolog: #0 /a.php(9): f()), gdb's


JSON_RECORD_RE = lazy(  # a JSON log record: an object that either
    # names its level, and its time or its message, near its start (pino, bunyan, zap, logrus, winston,
    # structlog, json-logging; not a nested message's level: cargo's JSON), or
    rb'^[ \t]*\{(?:(?=[^\n]{0,200}?"(?:level|severity|lvl|levelname|log\.level)"[ \t]*:)'
    rb'(?=[^\n]{0,300}?"(?:time|timestamp|ts|@timestamp|asctime|datetime|msg|message|event)"[ \t]*:)'
    # holds a timestamp (a date, a time of day, an epoch of 9 digits or more) by a log's name for it,
    # anywhere: an access log written as JSON (nginx's and Traefik's,
    # whose sorted keys put ``level`` last), Docker's json-file lines, Serilog's ``@t``, journald's
    # ``__REALTIME_TIMESTAMP`` (``journalctl -o json``), an audit log's ``requestReceivedTimestamp``
    # (not ``go test -json``'s ``Time``: test events, the JSON type's)
    rb'|(?=[^\n]*"(?:time|timestamp|@timestamp|ts|@t|datetime|asctime|[a-z][a-z_]*_time(?:stamp)?'
    rb'|[a-z][A-Za-z]*Timestamp|_*[A-Z][A-Z_]*_TIMESTAMP)"[ \t]*:[ \t]*(?:"\d{1,4}[-/:.][^"\n]{4}|"?\d{9})))')  # a date or an epoch


def is_log_line(line: bytes) -> bool:
    """A line that starts like a log record (a timestamp), names a level near its start, or is a JSON
    log record (``JSON_RECORD_RE``)."""
    return (LOG_LINE_RE.match(line) is not None or LEVEL_RE.search(line[:200]) is not None
            or JSON_RECORD_RE.match(line) is not None)


def json_records(lines: list[bytes]) -> bool:
    """Whether lines are JSON log records, four in five at least: a log written as NDJSON, read by the
    log type line by line (its records' levels and messages are what matters, not their structure)."""
    return len(lines) >= 2 and sum(1 for line in lines if JSON_RECORD_RE.match(line)) * 5 >= len(lines) * 4


# -- diffs: files whose hunks are summarised -----------------------------------------------------------
# Lockfiles and generated files: a diff shows their path and a summary, their hunks go behind a ref, and
# the SIGNAL check does not ask for their changed lines. The rule is the path alone (the ``b/`` side of
# a ``diff --git`` line), so the check computes it from the raw diff on its own.
SUMMARISED_PATH_RE = lazy(
    rb"(?:^|/)(?:package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|poetry\.lock|Cargo\.lock"
    rb"|Gemfile\.lock|go\.sum|composer\.lock)$|\.min\.(?:js|css)$|\.map$|\.snap$|(?:^|/)__snapshots__/"
)
GIT_FILE_LINE_RE = lazy(rb"diff --git (?:\"?a/.*?\"? )?\"?b/(.*?)\"?\r?$")


def latin1_re2(pattern: bytes, flags: int = 0):
    """An RE2 pattern over bytes as bytes (Latin-1), not as UTF-8 code points (``flags`` is ignored:
    a ``lazy(…, compiler=latin1_re2)`` passes one)."""
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    return re2.compile(pattern, options)


# a line holding "diff --git " and, after it, a name ``SUMMARISED_PATH_RE`` can match ends with or holds: every
# line naming a summarised file holds one (the others are not looked at, one by one, for it); RE2 over bytes
SUMMARISED_HINT_RE = lazy(
    rb"diff --git [^\n]*?(?:package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|poetry\.lock|Cargo\.lock"
    rb"|Gemfile\.lock|go\.sum|composer\.lock|\.min\.js|\.min\.css|\.map|\.snap|__snapshots__/)",
    compiler=latin1_re2,
)


def may_summarise(raw: bytes) -> bool:
    """Whether a ``diff --git`` line of ``raw`` may name a summarised file (``SUMMARISED_HINT_RE``, one
    search): when not, none does."""
    return SUMMARISED_HINT_RE.search(raw) is not None


def summarised_file(path: bytes) -> bool:
    """Whether a diff summarises the file at ``path`` (a lockfile, a minified or source-map file, a snapshot)."""
    return SUMMARISED_PATH_RE.search(path) is not None


def git_file_path(line: bytes) -> bytes | None:
    """The new (``b/``) path a ``diff --git a/X b/Y`` line names, or None."""
    m = GIT_FILE_LINE_RE.match(line)
    return m.group(1) if m else None


def _diff_file_starts(raw: bytes) -> list[int]:
    """Where each ``diff --git``/``--cc``/``--combined`` line starts: a ``find`` per ``\\ndiff --``, not a
    regex tried at every byte (a pattern that starts with ``(?:^|\\n)`` has no literal prefix to skip by)."""
    heads = (b"diff --git ", b"diff --cc ", b"diff --combined ")
    starts = [0] if raw.startswith(heads) else []
    pos = raw.find(b"\ndiff --")
    while pos >= 0:
        if raw.startswith(heads, pos + 1):
            starts.append(pos + 1)
        pos = raw.find(b"\ndiff --", pos + 1)
    return starts


def summarised_spans(raw: bytes) -> list[tuple[int, int]]:
    """The byte spans of a diff's summarised files: from each ``diff --git`` line whose path is
    summarised to the next ``diff --git``/``diff --cc`` line (or the end)."""
    spans = []
    if not may_summarise(raw):
        return spans
    starts = _diff_file_starts(raw)
    for k, s in enumerate(starts):
        nl = raw.find(b"\n", s)
        path = git_file_path(raw[s : len(raw) if nl < 0 else nl])
        if path is not None and summarised_file(path):
            spans.append((s, starts[k + 1] if k + 1 < len(starts) else len(raw)))
    return spans
