"""Build and test output reducer: keep every failure and its context, fold the passing noise.

What stays visible, verbatim and in place (minus terminal escapes, see below):

* every signal line: FAILED/ERROR/error:/warning:/Traceback/…, anything ``vocab.SIGNAL_RE`` matches,
  pytest's ``E   …`` assertion lines, linker errors, jest's ``✕``;
* the block of each failure: pytest's ``FAILURES``/``ERRORS`` sections (every ``____ test_x ____``
  traceback; long captured output keeps its head and tail), mocha's numbered failures after its ``N
  failing`` (``  3) suite``, the test's name, its error, the expected/actual diff, its frames: a run of
  failures of one suite repeats its lines but for their numbers and places), the lines that follow an error (stack
  frames, gcc's ``  12 |`` source and ``^~~~`` caret lines, pip's ``│ ╰─>`` subprocess block), gcc's
  ``In function``/``In file included from`` context, the compile command and the ``make: Entering
  directory`` line that a diagnostic belongs to;
* summaries: pytest's ``=== 3 failed, 120 passed in 4.2s ===``, ``Successfully installed …``,
  npm's ``added N packages``/``found N vulnerabilities``, ``test result:``, jest's ``Tests:`` …;
* every line that is not recognised as noise and is not one of many similar lines (rare lines).

What is folded (one ref for all of it; ``fine``: one ref per kind): ``PASSED``/``SKIPPED`` lines, the
``✔``/``✓`` results of passing tests (mocha, jest; mocha's ``N passing``/``N failing`` stay as summaries),
``tests/x.py ....... [ 40%]`` progress lines, the pytest header, ``Collecting``/``Downloading``/
``Requirement already satisfied`` lines, download progress bars, npm ``http``/``timing``/``silly``/``verbose`` lines (not ``verbose stack``: an
error's frames), compile
commands and ``make: Entering/Leaving directory`` lines of files that compiled cleanly, cmake/cargo
progress, TAP's passing ``ok N -`` results with their ``# Subtest:`` lines and ``duration_ms`` blocks (node
--test), and unknown lines that repeat by template (numbers masked) at least ``FOLD_MIN`` times.
Each run of folded lines is replaced in place by one line: ``[folded 40 lines: PASSED ×38, blank ×2]``.
A failure whose lines repeat an earlier failure's line for line (a parametrized test failing the same
way) keeps its ``____ name ____`` header and one line: ``[57 lines: the same failure as test_x[a] above]``.

The budget: a test run whose kept lines do not fit ``ROOM_SHARE`` of the output ceiling keeps, in
each failure, its ``____ name ____`` header, its ``>`` lines, its frame locations and its first ``E``
lines (8, else fewer); the rest of the failure folds into ``[N traceback lines]`` (a distinct signal
line stays). Under a smaller budget the ceiling ranks by ``rank_lines``: failing test ids, the
``collected`` and summary lines first, then each failure's first ``E`` line and locations.

Terminals: ANSI escape sequences, backspace spinners and carriage-return redraws (``\\r``: only the
last frame of a line is what a terminal shows) are removed from the visible text only; their bytes
go to the ref, so RESTORE stays exact. ``display_text`` is that same transformation for any bytes;
``display_signals`` lets the SIGNAL check compare signal lines the way they are displayed.
"""

from __future__ import annotations

import re


from operators.config import section
from operators.reduction import Plan
from operators.kernel.log_twins import MASK_RE
from operators.types.log import signal_line_indexes
from operators.vocab import (  # the terminal helpers and the signal markers
    CONTROL_RE, ESC_RE, EXTRA_SIGNAL_SCAN as _EXTRA_SIGNAL_SCAN, GO_TEST_START, LIBTEST_OK, PASSING_RE, SIGNAL_RE,
    display_line, display_text,
    frame as _frame, has_text as _has_text, is_signal_text, shown_spans, strip_escapes, text_pieces,
)
from operators.relazy import lazy  # patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first

FOLD_MIN = 5  # unknown lines repeating by template this often are folded
CONTINUATION_MAX = 400  # lines kept after one error line as its context
CAPTURED_HEAD, CAPTURED_TAIL = 12, 6  # long captured output inside a pytest failure
SECTION_HEAD, SECTION_TAIL = 40, 5  # long warnings / durations / coverage sections

def _redrawn(raw: bytes, start: int, end: int, fs: int) -> bool:
    """Whether a frame before the shown one (starting at ``fs``) had visible text too."""
    fe = fs - 1  # the \r before the shown frame
    while fe > start:
        cut = raw.rfind(b"\r", start, fe)
        if _has_text(raw, cut + 1 if cut >= 0 else start, fe):
            return True
        if cut < 0:
            return False
        fe = cut
    return False


def _line_end(raw: bytes, start: int, end: int) -> int:
    """Where the body of a line ends: before a CRLF's ``\\r``."""
    return end - 1 if end > start and raw[end - 1 : end] == b"\r" else end


def display_signals(visible: bytes, auto: list[bytes]) -> tuple[bytes, list[bytes]]:
    """The SIGNAL check's inputs as displayed: ``visible`` and each auto signal line without
    terminal escapes or overwritten ``\\r`` frames (what the build reducer shows)."""
    shown = [display_line(s).rstrip() for s in auto]
    return display_text(visible), [s for s in shown if s]


def visible_signal_lines(raw: bytes) -> list[bytes]:
    """Every distinct signal line of ``raw`` as displayed (escapes removed, last frame); a line of a
    passing test is none (``vocab.PASSING_RE``)."""
    seen: dict[bytes, None] = {}
    for line in raw.split(b"\n"):
        if SIGNAL_RE.search(line):
            shown = display_line(line).rstrip()
            if shown and PASSING_RE.match(shown) is None:
                seen.setdefault(shown, None)
    return list(seen)


# -- line kinds (matched on the displayed text) -------------------------------------------------
SECTION_RE = lazy(rb"^={3,} ?(.*?) ?={3,}\s*$")
SUMMARY_RE = lazy(
    rb"^=*\s*(?:\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?|rerun)(?:, )?)+"
    rb"(?: in [\d.]+s)?(?: \([\d:.]+\))?\s*=*\s*$"
    rb"|^=*\s*no tests ran\b"
    rb"|^\s*Successfully (?:installed|built) |^Installing collected packages:|^Installed \d+ packages?"
    rb"|^(?:added|removed|changed|updated|audited) \d+ packages?|^up to date\b|^found \d+ vulnerabilit"
    rb"|^\d+ (?:\w+ )?vulnerabilit|^\d+ (?:errors?|warnings?)(?: and \d+ (?:errors?|warnings?))? generated"
    rb"|^(?:Tests|Test Suites|Snapshots|Time|Ran all test suites):?\s"
    rb"|^test result: |^\s*Finished |^Ran \d+ tests? in |^OK(?: \(.*\))?$|^BUILD (?:SUCCESS|FAILED)"
    rb"|^\s*\d+ (?:passing|failing|pending)\b"  # mocha
    rb"|^\[INFO\] BUILD |^(?:collecting \.\.\. )?collected \d+ items?"
    rb"|^ok\s+\S+\s+(?:[\d.]+s|\(cached\))"  # go test: a package whose tests passed
)
SUBSECTION_RE = lazy(rb"^_{3,} .* _{3,}\s*$")
CAPTURED_RE = lazy(rb"^-{3,} (?:Captured|generated|coverage|Docs)")
SHORT_RESULT_RE = lazy(rb"^(PASSED|SKIPPED|XFAIL|XPASS) ")
CONTEXT_RE = lazy(  # compiler context: shown like the diagnostics they belong to
    rb"^In file included from |^\s+from \S+:\d+[,:]$|: In (?:static |member )?function |: At top level:"
    rb"|: In instantiation of |: required from |^In function |^\s+inlined from |^\s*\d*\s*\|"
    rb"|^\s*\^[~^ ]*$|: note: "
)
SUBPROCESS_RE = lazy(rb"\xe2\x95\xb0\xe2\x94\x80> \[(\d{1,6}) lines of output\]")  # ╰─> [N lines of output]
DIAGNOSTIC_RE = lazy(rb"^\S+?:\d+(?::\d+)?: |^\S+?: In |^In file included from |^\S+?: At top level:")
# a line that goes on with the error line before it (``- Expected``, ``@@ -5,13 +5,6 @@``: an assertion's diff)
CONTINUATION_RE = lazy(
    rb"^\s|^(?:\xe2\x94\x82|\xe2\x95\xb0|\|)|^Caused by|^During handling|^The above exception|^[-+] |^@@ -\d")

_BAR = rb"(?:\xe2\x94\x81|\xe2\x95\xb8|\xe2\x95\xba|\xe2\x96[\x88-\x8f]|\xe2\x96[\x91-\x93]|\xe2\x94\x80|#|=|-)"
NOISE_PATTERNS: list[tuple[str, re.Pattern]] = [
    (label, lazy(pattern)) for label, pattern in [
        ("PASSED", rb"^\S+::\S.*? PASSED\b|^PASSED \S"),
        ("SKIPPED", rb"^\S+::\S.*? (?:SKIPPED|XFAIL)\b|^(?:SKIPPED|XFAIL) \S"),
        ("pytest progress", rb"^(?:\S+\.py )?[.sxXFEP]+ *(?:\[ *\d+%\])?\s*$"),
        ("pytest header", rb"^(?:platform \S+ -- Python|cachedir: |rootdir: |configfile: |testpaths: |plugins: "
                          rb"|hypothesis profile |benchmark: |asyncio: |Using --randomly-seed|django: |metadata: "
                          rb"|timeout: |timeout method: |timeout func_only: |sensitiveurl: |anyio)"),
        ("pip download", rb"^\s*(?:Collecting|Downloading|Using cached|Requirement already satisfied:|Obtaining file:"
                         rb"|Obtaining dependency information|Looking in (?:indexes|links):|Processing \.{0,2}/"
                         rb"|Processing \S+\.(?:whl|tar\.gz|zip)\b|Saved \S+\.(?:whl|tar\.gz|zip)\b"
                         rb"|Link requires a different Python|Created wheel for|Stored in directory:"
                         rb"|Building wheels for collected packages:|Attempting uninstall:|Found existing installation:"
                         rb"|Uninstalling \S+:|Successfully uninstalled)"),
        ("pip step done", rb"^\s*(?:Preparing metadata|Installing build dependencies|Getting requirements to build"
                          rb"|Building wheel for|Installing backend dependencies|Building editable for|Running setup\.py)"
                          rb".*\.\.\. done\s*$"),
        ("pip notice", rb"^\[notice\] "),
        ("setuptools build", rb"^\s*(?:running (?:build|build_py|build_ext|build_clib|build_scripts|egg_info|dist_info|install"
                             rb"|install_lib|install_egg_info|install_scripts|install_headers|install_data|bdist_wheel"
                             rb"|bdist_egg|sdist|develop|editable_wheel|check)\s*$|copying \S+ -> \S+|Copying \S+ to \S+"
                             rb"|creating \S+|adding '[^']+'|adding license file |writing \S+|writing (?:[\w-]+ )+to \S+"
                             rb"|reading manifest (?:file|template) |building '\S+' extension|installing to \S+|removing \S+"
                             rb"|byte-compiling \S+|(?:Getting requirements to build wheel|Preparing metadata \(pyproject\.toml\)"
                             rb"|Building wheel for \S+ \(pyproject\.toml\)|Installing build dependencies|Installing backend"
                             rb" dependencies): (?:started|finished with status 'done')|Running command (?:python setup\.py|Getting"
                             rb" requirements|Preparing metadata|Building wheel|pip subprocess|Preparing)|Source in \S+ has version"
                             rb"|(?:Added|Removed) \S+ (?:to|from) build tracker|Created temporary directory:|Using pip \d"
                             rb"|Non-user install |Skipping link:|Found link |Fetched page |Remote version of pip)"),
        ("progress bar", rb"^\s*" + _BAR + rb"{6,}.*(?:\d+(?:\.\d+)?/\d+(?:\.\d+)?|\d+%|eta|/s\b)"
                         rb"|^\s*\d+%\|.*\|\s*\d+/\d+|\beta \d+:\d\d:\d\d\b|\beta -:--:--"),
        ("npm log", rb"^npm (?:http|timing|sill|silly|verb|verbose(?! stack )|info|notice)\b|^(?:gyp|node-gyp) info "),
        ("npm funding", rb"^\d+ packages? (?:are|is) looking for funding|^\s+run `npm fund` for details"),
        ("make directory", rb"^g?make(?:\[\d+\])?: (?:Entering|Leaving) directory|^g?make(?:\[\d+\])?: Nothing to be done"),
        ("compile command", rb"^\s*(?:\S*/)?(?:[\w.-]*-)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|nvcc|ld|icc|icpx)"
                            rb"(?:-\d+(?:\.\d+)?)? (?:.* )?-[A-Za-z]|^\s*(?:\S*/)?(?:ar|ranlib) (?:[a-zA-Z]+ )?\S+\.a\b"
                            rb"|^libtool: (?:compile|link):|^\s+(?:CC|CXX|LD|AR|AS|GEN|CCLD"
                            rb"|CXXLD|HOSTCC|HOSTLD|SOLINK_MODULE|SOLINK|LINK|COPY|TOUCH|ACTION|RULE|INSTALL|STRIP|OBJCOPY)"
                            rb"(?:\([\w.]+\))? +\S"),
        ("build progress", rb"^\[ *\d+%\] (?:Building|Linking|Built target|Scanning|Generating|Automatic MOC)"
                           rb"|^\[\d+/\d+\] (?:Building|Linking|Generating|Compiling|Copying|Install)"
                           rb"|^-- (?:The \w+ compiler|Detecting|Check|Looking for|Found |Performing Test|Configuring done"
                           rb"|Generating done|Build files have been written|Using )"),
        ("cargo progress", rb"^\s*(?:Compiling|Downloaded|Downloading|Checking|Fresh|Updating|Locking|Adding|Blocking"
                           rb"|Unpacking|Installing|Fetching|Documenting) \S+ v?\d"),
        ("test started", rb"^running \d+ tests?$|^" + GO_TEST_START),  # go test -v, cargo test: not a result
        ("test ok", rb"^" + LIBTEST_OK + rb"$|^\s*--- (?:PASS|SKIP): "
                   rb"|^\?\s+\S+\s+\[no test files\]|^PASS$"
                   rb"|^\s*(?:\xe2\x9c\x93|\xe2\x9c\x94|\xe2\x88\x9a) |^\s*PASS\s+\S"),  # go, cargo, jest ✓ √, mocha ✔
        ("yarn step", rb"^\[\d+/\d+\] (?:Resolving|Fetching|Linking|Building|Validating|Auditing)"),
        ("TAP ok", rb"^\s*ok \d+(?: -)? \S|^\s*# Subtest: |^\s*duration_ms: [\d.]+\s*$|^\s*type: '(?:test|suite)'\s*$"
                   rb"|^\s*(?:---|\.\.\.)\s*$|^\s*1\.\.\d+\s*$|^TAP version \d+\s*$"),  # node --test's passing results
    ]
]
KEEP_SECTIONS = (b"FAILURES", b"ERRORS")
TAP_BLOCK = (b"---", b"...")  # a TAP diagnostic block's edges: noise after ``ok``, the failure's details after ``not ok``
MOCHA_FAILING_RE = lazy(rb"^ {0,4}\d+ failing\b")  # mocha's count before its numbered failures
CAPPED_SECTIONS = (b"warnings summary", b"slowest", b"coverage", b"tests coverage")

KEEP, NOISE, BLANK, UNKNOWN = 0, 1, 2, 3


NOISE_RE = lazy(b"|".join(b"(?P<g%d>%s)" % (k, pattern.pattern) for k, (_, pattern) in enumerate(NOISE_PATTERNS)))
NOISE_LABELS = {f"g{k}": label for k, (label, _) in enumerate(NOISE_PATTERNS)}
MATCH_MAX = 1024  # patterns are matched on the first bytes of a line: a huge line is never slow


def _noise_label(text: bytes) -> str | None:
    m = NOISE_RE.search(text[:MATCH_MAX])
    return None if m is None else NOISE_LABELS[m.lastgroup]


class _Lines:
    """The raw split into lines: spans, displayed text, whether a line was redrawn, which are signal."""

    __slots__ = ("starts", "ends", "bodies", "shown", "redrawn", "signal")

    def __init__(self, raw: bytes):
        parts = raw.split(b"\n")
        if parts and parts[-1] == b"":
            parts.pop()  # raw ends with a newline
        n = len(parts)
        self.starts = starts = [0] * n
        self.ends = ends = [0] * n
        self.bodies = bodies = [0] * n
        self.shown = shown = parts
        self.redrawn = redrawn = [False] * n
        pos = 0
        terminal = CONTROL_RE.search(raw) is not None  # \r, ESC, backspace, …: lines need display_line
        for i, line in enumerate(parts):
            starts[i] = pos
            end = pos + len(line)
            body = end - 1 if line.endswith(b"\r") else end
            bodies[i] = body
            pos = end + 1
            ends[i] = pos
            if terminal and CONTROL_RE.search(line, 0, body - starts[i]) is not None:
                fs, fe = _frame(raw, starts[i], body)
                redrawn[i] = fs > starts[i] and _redrawn(raw, starts[i], body, fs)
                shown[i] = strip_escapes(raw[fs:fe])
            elif body < end:
                shown[i] = line[:-1]  # CRLF: the \r is the line ending
        if n:
            ends[-1] = min(ends[-1], len(raw))  # the last line may have no newline
        # signal: the raw bytes match anywhere (even in an overwritten frame), or the displayed text does
        self.signal = signal = [False] * n
        for i in signal_line_indexes(raw):
            if i < n:
                signal[i] = True
        last = -1
        for m in _EXTRA_SIGNAL_SCAN.finditer(raw):
            if m.start() <= last:
                continue
            i = raw.count(b"\n", 0, m.start()) if last < 0 else i + raw.count(b"\n", last, m.start())
            last = m.start()
            if i < n:
                signal[i] = True
        if terminal:
            passing = PASSING_RE.match  # (a coloured ``✓ throws an error`` passed: no signal, as a plain one)
            for i in range(n):
                if (not signal[i] and bodies[i] - starts[i] != len(shown[i]) and is_signal_text(shown[i])
                        and passing(shown[i]) is None):
                    signal[i] = True

    def __len__(self) -> int:
        return len(self.starts)


TRACEBACK_KEEP_RE = lazy(rb"^(?:>|E(?: |$))|^\S+?:\d+: |^\S+?:\d+$")  # failing line, assertion, frame location
FRAME_SEPARATOR_RE = lazy(rb"^(?:_ ){8,}_?\s*$")
FRAME_LOCAL_RE = lazy(rb"^[A-Za-z_]\w* = ")  # an argument of the frame: self = <…>


def _traceback_fold(text: bytes, signal: bool, quoted_seen: set[bytes]) -> tuple[int, str] | None:
    """How a line of a pytest traceback is folded, or None when it stays: the failing ``>`` line, the
    ``E`` lines and each frame's ``file:line`` stay; the rest of the quoted source (indented lines,
    ``^^^^`` marks), frame separators and argument lines fold. A quoted line holding a signal word stays
    the first time it is quoted (failures often quote the same function again)."""
    if not text.strip():
        return BLANK, ""
    if TRACEBACK_KEEP_RE.match(text):
        return None
    if FRAME_SEPARATOR_RE.match(text):
        return NOISE, "frame separator"
    if text[:1] in b" \t" or FRAME_LOCAL_RE.match(text):
        if signal:
            key = text.strip()
            if key not in quoted_seen:
                quoted_seen.add(key)
                return None
        return NOISE, "quoted source"
    return None


class _Walk:
    """The state of ``classify_lines``'s walk over the lines: the pytest section it is in, the capped block
    being gathered, the context blocks left after an error, the open ``make`` directories. Fills
    ``kind`` (KEEP, NOISE, BLANK, or UNKNOWN for the lines no rule claimed) and ``label``."""

    __slots__ = ("lines", "kind", "label", "section", "capped", "cap", "in_captured", "continuation",
                 "subprocess_left", "dirs", "rescued", "quoted_seen", "failures", "mocha", "announced")

    def __init__(self, lines: _Lines):
        n = len(lines)
        self.lines = lines
        self.kind = [UNKNOWN] * n
        self.label = [""] * n
        self.section = b""  # current pytest section name
        self.capped: list[int] = []  # the current capped block (captured output, warnings, …)
        self.cap = (SECTION_HEAD, SECTION_TAIL, "long section")
        self.in_captured = False
        self.continuation = 0  # lines left in an error's context block
        self.subprocess_left = 0  # lines left in pip's "╰─> [N lines of output]" block
        self.dirs: list[int] = []  # open `make: Entering directory` lines
        self.rescued: set[int] = set()
        self.quoted_seen: set[bytes] = set()  # signal lines of quoted source already shown in a traceback
        self.failures: list[int] = []  # the lines of the FAILURES and ERRORS sections
        self.mocha = False  # past mocha's "N failing": its numbered failures follow, each kept whole
        self.announced = False  # the line before was a signal ending with ':' (Rust's ``panicked at a.rs:9:5:``)

    def close_capped(self) -> None:
        """A capped block longer than its head and tail folds its middle (never a signal line)."""
        head, tail, name = self.cap
        capped, kind, label, signal = self.capped, self.kind, self.label, self.lines.signal
        if len(capped) > head + tail:
            for j in capped[head:-tail]:
                if not signal[j]:
                    kind[j], label[j] = NOISE, name
        capped.clear()

    def header(self, i: int, text: bytes) -> bool:
        """A pytest section header (``==== FAILURES ====``) or summary line: True when line ``i`` is one."""
        summary = SUMMARY_RE.match(text) is not None and SHORT_RESULT_RE.match(text) is None
        m = None if summary else SECTION_RE.match(text)
        if m:
            self.close_capped()
            self.in_captured = False
            self.continuation = 0
            self.section = m.group(1).strip()
            if self.section == b"test session starts":
                self.kind[i], self.label[i] = NOISE, "pytest header"
            else:
                self.kind[i] = KEEP
            self.cap = (SECTION_HEAD, SECTION_TAIL, "long section")
            return True
        if summary:
            self.close_capped()
            self.in_captured = False
            self.mocha = self.mocha or MOCHA_FAILING_RE.match(text) is not None
            if text.lstrip().startswith(b"=") or b" in " in text:
                self.section = b""
            self.kind[i] = KEEP
            return True
        return False

    def in_section(self, i: int, text: bytes, signal: bool) -> bool:
        """Line ``i`` inside a pytest section with rules of its own: True when one claimed it."""
        section, kind, label = self.section, self.kind, self.label
        if section in KEEP_SECTIONS:  # each failure's traceback, assertion and captured output
            self.failure_line(i, text, signal)
            return True
        if section == b"short test summary info":
            short = SHORT_RESULT_RE.match(text)
            if short and not signal:
                kind[i], label[i] = NOISE, short.group(1).decode()
            else:
                kind[i] = KEEP
            return True
        if section == b"PASSES":
            kind[i], label[i] = (KEEP, "") if signal else (NOISE, "PASSES section")
            return True
        if section.startswith(CAPPED_SECTIONS):  # warnings summary, slowest durations, coverage
            kind[i] = KEEP
            self.capped.append(i)
            return True
        return False

    def failure_line(self, i: int, text: bytes, signal: bool) -> None:
        """A line of FAILURES or ERRORS: kept, except captured output (capped) and folded traceback lines."""
        self.kind[i] = KEEP
        self.failures.append(i)
        if SUBSECTION_RE.match(text) or CAPTURED_RE.match(text):
            self.close_capped()
            self.in_captured = CAPTURED_RE.match(text) is not None
            self.cap = (CAPTURED_HEAD, CAPTURED_TAIL, "captured output")
        elif self.in_captured:
            self.capped.append(i)
        elif (folded_as := _traceback_fold(text, signal, self.quoted_seen)) is not None:
            self.kind[i], self.label[i] = folded_as

    def plain(self, i: int, text: bytes, signal: bool) -> None:
        """A line outside the pytest sections: a signal and its context block, pip's subprocess output,
        progress redraws, known noise, context lines, blank lines; then the ``make`` directories."""
        kind, label = self.kind, self.label
        redraw_only = self.lines.redrawn[i] and not signal
        if self.mocha and not redraw_only:  # a failure's title, test name, error, expected/actual diff, frames
            kind[i] = KEEP if text.strip() else BLANK
            return
        announced, self.announced = self.announced, False
        if signal:
            kind[i] = KEEP
            self.continuation = CONTINUATION_MAX
            self.subprocess_block(text)
            self.announced = text.rstrip().endswith(b":")
        elif self.subprocess_left and not redraw_only:  # pip's captured subprocess output: all of it is the error
            kind[i] = KEEP
            self.subprocess_left -= 1
        elif redraw_only:
            kind[i], label[i] = NOISE, "progress redraw"
            self.continuation = 0
        elif (noise := _noise_label(text)) is not None and not (self.continuation and text.strip() in TAP_BLOCK):
            # (a TAP block's edges after a ``not ok`` go on with it)
            kind[i], label[i] = NOISE, noise
            self.continuation = 0
        elif announced and text.strip():
            kind[i] = KEEP  # what the signal line announced: a panic's message on the line after its place
        elif self.continuation and text.strip() and CONTINUATION_RE.match(text):
            kind[i] = KEEP
            self.continuation -= 1
            self.subprocess_block(text)
        elif self.continuation and not text.strip():
            kind[i] = BLANK  # inside an error's block (jest's, between its title, its assertion and its source):
            # the block goes on when the line after the blank continues it
        else:
            self.continuation = 0
            if CONTEXT_RE.search(text) or MOCHA_FAILURE_RE.match(text):  # (mocha's list: a failing test, numbered)
                kind[i] = KEEP
            elif not text.strip():
                kind[i] = BLANK
        self.track_dirs(i, text, signal)

    def subprocess_block(self, text: bytes) -> None:
        """pip's ``╰─> [N lines of output]``: the next N + 1 lines are the subprocess's error output."""
        if (m := SUBPROCESS_RE.search(text)) is not None:
            self.subprocess_left = int(m.group(1)) + 1

    def track_dirs(self, i: int, text: bytes, signal: bool) -> None:
        """The directory a diagnostic belongs to stays visible with it."""
        dirs = self.dirs
        if self.label[i] == "make directory":
            if b"Entering directory" in text:
                dirs.append(i)
            elif b"Leaving directory" in text and dirs:
                dirs.pop()
        elif signal and dirs:
            self.rescued.add(dirs[-1])

    def finish(self) -> None:
        """The last capped block closes; the directories of diagnostics stay."""
        self.close_capped()
        kind, label = self.kind, self.label
        for j in self.rescued:
            kind[j], label[j] = KEEP, ""


def _fold_unknown(shown: list[bytes], kind: list[int], label: list[str]) -> None:
    """Unknown lines: rare ones stay, a template seen FOLD_MIN times or more is folded."""
    counts: dict[bytes, int] = {}
    keys: dict[int, bytes] = {}
    for i in range(len(kind)):
        if kind[i] == UNKNOWN:
            key = MASK_RE.sub(b"#", shown[i].strip()) if len(shown[i]) < 4096 else shown[i]
            keys[i] = key
            counts[key] = counts.get(key, 0) + 1
    first_text: dict[bytes, bytes] = {}
    for i, key in keys.items():
        if counts[key] >= FOLD_MIN:
            first = first_text.setdefault(key, shown[i].strip())
            kind[i], label[i] = NOISE, "like “" + first[:40].decode("utf-8", "replace") + ("…”" if len(first) > 40 else "”")
        else:
            kind[i] = KEEP


def _keep_compile_commands(shown: list[bytes], kind: list[int], label: list[str]) -> None:
    """A compile command whose output is shown stays with it."""
    for i in range(len(kind) - 1):
        if kind[i] == NOISE and label[i] == "compile command" and kind[i + 1] == KEEP and DIAGNOSTIC_RE.search(shown[i + 1]):
            kind[i] = KEEP


def _keep_test_starts(shown: list[bytes], kind: list[int], label: list[str]) -> None:
    """A test's start (go test -v's ``=== RUN   TestX``) stays when the output it printed does (the
    indented lines before its ``--- FAIL``): they say which test they are about."""
    for i in range(len(kind) - 1):
        if kind[i] == NOISE and label[i] == "test started" and kind[i + 1] == KEEP and shown[i + 1][:1] in (b" ", b"\t"):
            kind[i] = KEEP


def _fold_blanks(kind: list[int], label: list[str]) -> None:
    """Blank lines fold with the noise around them, otherwise stay."""
    n = len(kind)
    prev_noise = False
    i = 0
    while i < n:
        if kind[i] != BLANK:
            prev_noise = kind[i] == NOISE
            i += 1
            continue
        j = i
        while j < n and kind[j] == BLANK:
            j += 1
        fold = prev_noise and j < n and kind[j] == NOISE
        for k in range(i, j):
            kind[k], label[k] = (NOISE, "blank") if fold else (KEEP, "")
        i = j


E_LINE_RE = lazy(rb"^E(?: |$)")
LOCATION_RE = lazy(rb"^\S+?:\d+: |^\S+?:\d+$")
JEST_TITLE_RE = lazy(rb"^\s*\xe2\x97\x8f (?!Console\s*$)\S")  # jest's failure title, not its console block
# jest's and vitest's assertion values: ``Expected: 3`` / ``Received: 2``, ``Expected value to be:`` with the
# value on the next line, ``- Expected`` / ``+ Received`` over a diff (what pytest's ``E`` lines are)
ASSERTION_RE = lazy(rb"^\s*(?:Expected|Received)\b[\w ]{0,30}:(\s*\S)?|^[-+] (?:Expected|Received)\b")
E_STEPS = (8, 4, 2, 1)  # E lines a failure keeps when the failures do not fit the room
RUN_COST = 32  # bytes a "[folded …]" line takes


def _estimate(lines: _Lines, kind: list[int]) -> int:
    """About the bytes shown: the lines kept, a summary line per run of folded lines."""
    total, prev = 0, KEEP
    for text, k in zip(lines.shown, kind):
        if k == KEEP:
            total += len(text) + 1
        elif prev == KEEP:
            total += RUN_COST
        prev = k
    return total


def _fit_failures(lines: _Lines, kind: list[int], label: list[str], failures: list[int], room: int) -> None:
    """A test run whose failures do not fit ``room``: each failure keeps its header, its ``>`` lines,
    its frame locations and its first ``E`` lines (8, else 4, 2, 1); the other lines of the failure
    fold (a signal line seen nowhere else stays: every distinct one stays visible)."""
    if not failures or not room or _estimate(lines, kind) <= room:
        return
    for e_max in E_STEPS:
        trial, names = list(kind), list(label)
        _compact_failures(lines, trial, names, failures, e_max)
        if _estimate(lines, trial) <= room or e_max == E_STEPS[-1]:
            kind[:], label[:] = trial, names
            return


def _compact_failures(lines: _Lines, kind: list[int], label: list[str], failures: list[int], e_max: int) -> None:
    shown, signal = lines.shown, lines.signal
    kept_signal: set[bytes] = set()  # the signal lines left visible so far (the first of equal ones)
    e_count = 0
    for i in failures:
        text = shown[i]
        if SUBSECTION_RE.match(text):
            e_count = 0
            continue
        if kind[i] != KEEP or text.startswith(b">") or LOCATION_RE.match(text):
            continue
        is_e = E_LINE_RE.match(text) is not None
        e_count += is_e
        if (is_e and e_count <= e_max) or (signal[i] and text not in kept_signal):
            kept_signal.add(text)
            continue
        kind[i], label[i] = NOISE, "E lines" if is_e else "traceback"


def classify_lines(raw: bytes, room: int = 0) -> tuple[_Lines, list[int], list[str]]:
    """Each line's kind (KEEP or NOISE) and, for noise, its label; with ``room`` (bytes), a test run's
    failures are fitted to it (``_fit_failures``)."""
    lines = _Lines(raw)
    walk = _Walk(lines)
    header, in_section, plain = walk.header, walk.in_section, walk.plain
    for i, (text, signal) in enumerate(zip(lines.shown, lines.signal)):
        if header(i, text) or (walk.section and in_section(i, text, signal)):
            continue
        plain(i, text, signal)
    walk.finish()
    kind, label = walk.kind, walk.label
    _fold_unknown(lines.shown, kind, label)
    _keep_compile_commands(lines.shown, kind, label)
    _keep_test_starts(lines.shown, kind, label)
    _fold_blanks(kind, label)
    for i in range(len(kind)):
        if kind[i] != NOISE:
            kind[i], label[i] = KEEP, ""
    _fold_repeated_failures(lines, kind, label, walk.failures)
    _fit_failures(lines, kind, label, walk.failures, room)
    return lines, kind, label


SAME_FAILURE = "the same failure as "  # the label of a failure's lines shown already by an earlier one


def _fold_repeated_failures(lines: _Lines, kind: list[int], label: list[str], failures: list[int]) -> None:
    """A failure (``____ name ____`` and the lines up to the next one) whose lines are, line for line,
    those of an earlier failure (a parametrized test failing the same way, one missing module breaking
    many tests) keeps its header; the rest folds into one line naming the earlier one."""
    shown = lines.shown
    seen: dict[tuple, bytes] = {}
    blocks: list[list[int]] = []
    for i in failures:
        if SUBSECTION_RE.match(shown[i]):
            blocks.append([i])
        elif blocks:
            blocks[-1].append(i)
    for header, *body in blocks:
        key = tuple(shown[k] for k in body)
        if not any(kind[k] == KEEP for k in body):
            continue
        first = seen.setdefault(key, shown[header])
        if first is shown[header]:
            continue
        name = first.strip(b"_ \r").decode("utf-8", "replace")
        for k in body:
            kind[k], label[k] = NOISE, SAME_FAILURE + name


def reduce_build(raw: bytes, granularity: str, room: int = 0) -> Plan:
    lines, kind, label = classify_lines(raw, room)
    n = len(lines)
    fine = granularity == "fine"
    term = ("terminal", "terminal escapes and progress redraws") if fine else ("build", COARSE_REASON)
    plan = Plan(raw)
    folded = 0
    escapes = False
    i = 0
    plain = [lines.bodies[k] - lines.starts[k] == len(lines.shown[k]) for k in range(n)]  # shown as is
    while i < n:
        if kind[i] == KEEP:
            j = i
            while j < n and kind[j] == KEEP and plain[j]:
                j += 1
            if j > i:  # a run of lines shown verbatim
                plan.keep(lines.starts[i], lines.ends[j - 1])
                i = j
                continue
            escapes |= _keep_line(plan, raw, lines, i, *term)
            i += 1
            continue
        j = i
        run: dict[str, int] = {}
        while j < n and kind[j] == NOISE:
            run[label[j]] = run.get(label[j], 0) + 1
            j += 1
        summary = _run_summary(j - i, run)
        if j - i == 1 and len(lines.shown[i].rstrip()) <= len(summary):
            escapes |= _keep_line(plan, raw, lines, i, *term)  # cheaper shown than summarised
            i = j
            continue
        if fine:
            for k in range(i, j):
                plan.omit(lines.starts[k], lines.ends[k], "n:" + label[k], FINE_REASON + label[k])
        else:
            plan.omit(lines.starts[i], lines.ends[j - 1], "build", COARSE_REASON)
        if not plan.ends_line():
            plan.show(b"\n")
        plan.show(summary.encode() + b"\n")
        folded += j - i
        i = j
    plan.keep_rest()
    if plan.omits_anything:
        parts = []
        if folded:
            parts.append(f"{folded} noise line{'s' if folded != 1 else ''} folded (see [folded …] above)")
        if escapes:
            parts.append("terminal escapes/redraws removed")
        lead = b"" if plan.ends_line() else b"\n"
        plan.show(lead + ("[build output: " + "; ".join(parts) + "; exact bytes: ").encode())
        if fine:
            for k, (group, reason) in enumerate(list(plan.reasons.items())):
                name = "terminal" if group == "terminal" else reason.removeprefix(FINE_REASON)
                plan.show(((", " if k else "") + name + " ").encode())
                plan.mark(group)
        else:
            plan.mark("build")
        plan.show(b"]\n")
    return plan.finish()


COARSE_REASON = "folded build/test noise"
FINE_REASON = "folded build/test noise: "


def _keep_line(plan: Plan, raw: bytes, lines: _Lines, i: int, group: str, reason: str) -> bool:
    """Show line ``i`` as a terminal would; returns whether escape or redraw bytes were omitted."""
    start, body, end = lines.starts[i], lines.bodies[i], lines.ends[i]
    if ESC_RE.search(raw, start, body) is None and raw.find(b"\r", start, body) < 0:
        plan.keep(start, end)
        return False
    fs, fe = _frame(raw, start, body)
    plan.omit(start, fs, group, reason)
    pos = fs
    for a, b in shown_spans(raw, text_pieces(raw, fs, fe)):
        plan.omit(pos, a, group, reason)
        plan.keep(a, b)
        pos = b
    plan.omit(pos, body, group, reason)
    plan.keep(body, end)
    return True


TRACEBACK_LABELS = {"quoted source", "frame separator", "blank"}
FITTED_LABELS = TRACEBACK_LABELS | {"traceback", "E lines"}


def _run_summary(count: int, run: dict[str, int]) -> str:
    if len(run) == 1 and (name := next(iter(run))).startswith(SAME_FAILURE):
        return f"[{count} line{'s' if count != 1 else ''}: {name} above]"
    if "quoted source" in run and run.keys() <= TRACEBACK_LABELS:  # inside a traceback: short, there are many
        return f"[{count} source line{'s' if count != 1 else ''}]"
    if run.keys() <= FITTED_LABELS:  # a failure fitted to the room (``_fit_failures``)
        return f"[{count} traceback line{'s' if count != 1 else ''}]"
    parts = [f"{name} ×{c}" for name, c in sorted(run.items(), key=lambda kv: -kv[1])]
    if len(parts) > 4:
        parts = parts[:4] + [f"+{len(parts) - 4} more kinds"]
    return f"[folded {count} line{'s' if count != 1 else ''}: {', '.join(parts)}]"


ROOM_SHARE = 0.85  # of the output ceiling a test run's failures fit themselves to (``_fit_failures``)


def reduce(raw: bytes, granularity: str, config) -> Plan:
    return reduce_build(raw, granularity, int(section(config, "ceiling").max_chars * ROOM_SHARE))


# -- the content type ----------------------------------------------------------------------------
NAME = "build"
SIGNALS = "lines"

def detect(sample) -> str | None:
    if maybe.build(sample):  # two lines of a test or build runner (maybe.BUILD_RE): the whole test
        return "test/build runner output"
    return None


def tier(text: bytes, shown: bytes, config) -> tuple[int, int] | None:
    """Pack tiers: runner summaries and section headers are context (signal lines: the general rule)."""
    if is_signal_text(shown):
        return None
    if SUMMARY_RE.match(shown) or SECTION_RE.match(shown) or SUBSECTION_RE.match(shown):
        return 1, 0
    return None


SUMMARY_ID = rb"^(?:FAILED|ERROR) \S+::"  # pytest: a failing test's id in its short summary
MOCHA_FAILURE = rb"^ {1,8}\d+\) \S"  # mocha: "  1) suite" opens a failure's title lines
FAILED_ID_RE = lazy(SUMMARY_ID + rb"|^\S+::\S.*? (?:FAILED|ERROR)\b|^(?:collecting \.\.\. )?collected \d+ items?")
# the final counts of other runners: mocha, jest/vitest, cargo test, unittest
RUN_TOTALS_RE = lazy(rb"^\s*\d+ (?:passing|failing|pending)\b|^\s*(?:Tests|Test Suites|Test Files):\s+\d"
                     rb"|^test result: |^Ran \d+ tests? in ")
MOCHA_FAILURE_RE = lazy(MOCHA_FAILURE)


TEST_ID_RE = lazy(SUMMARY_ID + b"|" + MOCHA_FAILURE)  # a failing test's id line (``apart_lines``)


def apart_lines(lines, indexes) -> list[int]:
    """Of the must-see lines ``indexes`` (of ``operators.rank.Lines``), those the output ceiling shows
    each as a group of its own, not folded with the others of its template (numbers masked): a failing
    test's id — pytest's ``FAILED tests/a.py::test_evict[3-lru]``, mocha's ``  12) suite`` — in which
    a number is part of the name, not a count."""
    text, starts, match = lines.text, lines.starts, TEST_ID_RE.match
    return [i for i in indexes if text.startswith((b"FAILED ", b"ERROR ", b" "), starts[i]) and match(text[starts[i] : lines.end(i)])]


def rank_lines(lines: list[bytes], config) -> list[tuple[int, int] | None]:
    """Under a budget a test run shows first its failing test ids (short summary, ``-v`` result lines),
    its ``collected`` and final summary lines (other runners' totals too: mocha's ``838 passing``,
    jest's ``Tests:``, ``test result:``); then each failure's ``____ name ____`` header (jest's
    ``● title``, mocha's ``1) suite`` and the title lines under it, up to its error); then
    each failure's first ``E`` line and its frame locations; then the other ``E`` and ``>`` lines with a
    signal word (what SIGNAL asks for); then, one by one (context), jest's and vitest's expected and
    received values (``ASSERTION_RE``), the other ``>`` and ``E`` lines. The other lines:
    ``tier``, then the general rules."""
    out: list[tuple[int, int] | None] = []
    first_e = False
    title = False  # in a mocha failure's title lines (``1) suite`` / ``test name:``), up to its error
    value_next = False  # the line after jest's ``Expected value to be:``: the value
    for line in lines:
        text = line.rstrip(b"\r")
        shown = display_line(text) if b"\x1b" in text else text
        rank = _failure_rank(shown, first_e)
        if rank is None:
            m = None if value_next else ASSERTION_RE.match(shown)
            if value_next or m is not None:
                rank = (1, 0)  # an assertion's expected and received values: first of the context, after the titles
            value_next = m is not None and m.group(1) is None and not shown.startswith((b"-", b"+"))
        else:
            value_next = False
        if SUBSECTION_RE.match(shown):
            first_e = True
        elif E_LINE_RE.match(shown):
            first_e = False
        if MOCHA_FAILURE_RE.match(shown):
            title, rank = True, (0, 1)
        elif title and shown.strip() and not is_signal_text(shown):
            rank = (0, 1)
        else:
            title = False
        out.append(rank if rank is not None else tier(text, shown, config))
    return out


def _failure_rank(shown: bytes, first_e: bool) -> tuple[int, int] | None:
    if FAILED_ID_RE.match(shown) or (SUMMARY_RE.match(shown) and SECTION_RE.match(shown)) or RUN_TOTALS_RE.match(shown):
        return 0, 0
    if SUBSECTION_RE.match(shown) or JEST_TITLE_RE.match(shown):  # a failure's header (jest's ``● suite › test``)
        return 0, 1
    if E_LINE_RE.match(shown):
        if first_e:
            return 0, 2
        return (0, 3) if is_signal_text(shown) else (1, 1)
    if LOCATION_RE.match(shown) and is_signal_text(shown):
        return 0, 2
    if shown.startswith(b">"):  # the line a frame failed on: must-see when it names a signal (``warnings.warn(``)
        return (0, 3) if is_signal_text(shown) else (1, 0)
    return None


RUNNERS = [  # (runner, pattern searched with re.M): the label level 0 shows after "build"
    ("pytest", rb"test session starts|^(?:PASSED|FAILED|ERROR) \S+::|::\S+ (?:PASSED|FAILED)"),
    ("gcc/make", rb"^\S+:\d+:\d+: (?:error|warning|fatal error):|^g?make(?:\[\d+\])?: "),
    ("npm", rb"^npm (?:ERR!|WARN|warn|error|http)"),
    ("pip", rb"^(?:\x1b\[[0-9;?]*[A-Za-z])*(?:Collecting \S|Successfully installed|ERROR: (?:Could not|No matching))"),
    ("cargo", rb"^\s*(?:Compiling|Finished) \S+|^error\[E\d+\]"),
    ("go test", rb"^(?:--- FAIL|=== RUN|ok  \t|FAIL\t)"),
    ("jest", rb"^(?:PASS|FAIL) \S+\.(?:js|ts|jsx|tsx)|^Test Suites:"),
]


def runner(raw: bytes) -> str:
    head = raw[:65536]
    for name, pattern in RUNNERS:
        if re.search(pattern, head, re.M):
            return name
    return ""


def _summary(shown: bytes) -> bytes | None:
    if SUMMARY_RE.match(shown) and (b" in " in shown or b"passed" in shown or b"failed" in shown):
        return shown.strip(b"= ")
    return None


def facts(packet):
    """Level 0: every line is ranked (pytest's ``E`` lines, runner summaries), the runner named."""
    from operators.overview import line_facts

    return line_facts(packet, every_line=True, summary_of=_summary, is_signal=is_signal_text,
                      label=runner(packet.raw))
