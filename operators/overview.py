"""Level 0 of progressive disclosure: a few lines about a finished packet.

    [command failed: exit code 1]                      (only for a failed `tokens run`)
    fixtures/pytest_failure.txt: build (pytest), 13,838 bytes; 3 failed, 118 passed, 1 error in 2.37s
    signals (4 of 9):
      FAILED tests/test_cart.py::test_total_with_discount - AssertionError: assert ...
    refs: #ref:ctx_6c1f0e (124 lines folded, 9.5 KB) -> tokens show-ref ID
    original: tokens expand --full pkt_0c61c3d65e3a
    est. tokens: L0 ~96, L1 ~1,080 (reduced text), L2 ~3,460 (original)

What it counts depends on the type: errors/warnings for logs and build output (with the test
runner's own summary line when there is one), files and +/- lines for diffs, fields parked in refs
for JSON, entries for file lists, lines for text. The "most important lines" are the first few
signal lines, shown as a terminal would (escapes removed) and cut at ``LINE_MAX`` bytes.
Levels: 0 this overview, 1 the reduced text with its markers, 2 the original bytes.
"""

from __future__ import annotations

import re

from operators.packet import ContextPacket
from operators.reduction import MARK
from operators.types.log import signal_line_spans
from operators.signals import LineFinder
from operators.tokens import estimate_tokens

IMPORTANT_MAX = 5  # signal lines shown
LINE_SCAN_MAX = 8192  # bytes of a line that the ranking regexes read
LINE_MAX = 150  # bytes of each
REFS_MAX = 3  # refs listed by id
SOURCE_MAX = 60  # characters of the source named

ERROR_RE = re.compile(
    rb"(?i:\b(?:errors?|err!?|fatal|failed|failure|failures|exception|traceback|panic|panicked|critical|segfault"
    rb"|killed|aborted|not ok)\b)|[A-Za-z](?:Exception|Error)\b|^E(?: |$)|undefined reference"
)
CONCLUSION_RE = re.compile(  # the lines that say what went wrong, best first
    rb"^(?:FAILED|ERROR) \S+::|: (?:fatal )?error(?:\[\w+\])?: |^\s*error(?:\[\w+\])?: |^ERROR: |^npm (?:ERR!|error) code "
    rb"|make(?:\[\d+\])?: \*\*\*|^--- FAIL: |^FAIL\b|undefined reference|^\s*(?:\xe2\x97\x8f|\xe2\x9c\x95) "
)
EXCEPTION_RE = re.compile(rb"^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt): |^E\s+\w+(?:Error|Exception)\b")
HEADER_RE = re.compile(rb"^={3,} .* ={3,}\s*$|^_{3,} .* _{3,}\s*$|^\S+::\S.*? (?:FAILED|ERROR)\b")
WARN_RE = re.compile(rb"(?i:\bwarn(?:ing|ings)?\b)|[a-z]Warning\b")
# Compiled on first use (``re`` caches them): only JSON needs JSON_KEY, only build output RUNNERS
JSON_KEY = rb'"(?:id|status|state|error|errors|message|msg|code|reason|detail|result|success|ok|title)"\s*:'
RUNNERS = [  # (runner, pattern searched with re.M)
    ("pytest", rb"test session starts|^(?:PASSED|FAILED|ERROR) \S+::|::\S+ (?:PASSED|FAILED)"),
    ("gcc/make", rb"^\S+:\d+:\d+: (?:error|warning|fatal error):|^g?make(?:\[\d+\])?: "),
    ("npm", rb"^npm (?:ERR!|WARN|warn|error|http)"),
    ("pip", rb"^(?:\x1b\[[0-9;?]*[A-Za-z])*(?:Collecting \S|Successfully installed|ERROR: (?:Could not|No matching))"),
    ("cargo", rb"^\s*(?:Compiling|Finished) \S+|^error\[E\d+\]"),
    ("go test", rb"^(?:--- FAIL|=== RUN|ok  \t|FAIL\t)"),
    ("jest", rb"^(?:PASS|FAIL) \S+\.(?:js|ts|jsx|tsx)|^Test Suites:"),
]


def overview(packet: ContextPacket) -> bytes:
    """A few lines for a finished packet; small (≈ 60 estimated tokens + the important lines)."""
    if packet.error:
        return f"{packet.source}: error: {packet.error}\n".encode()
    m = packet.measure
    lines: list[str] = []
    if packet.exit_code:
        lines.append(f"[command failed: exit code {packet.exit_code}]")
    kind = packet.type + (f" ({runner})" if (runner := _runner(packet)) else "")
    counts, important, total_signals = _facts(packet)
    head = f"{_short_source(packet.source)}: {kind}, {_size(m.raw_bytes)}"
    lines.append(head + (f"; {counts}" if counts else ""))
    if important:
        more = f" {len(important)}/{total_signals}" if total_signals > len(important) else ""
        lines.append(f"signals{more}:")
        lines.extend("  " + line for line in important)
    if packet.references:
        listed = [f"{r.id} ({_ref_label(r.reason, len(r.content))})" for r in packet.references[:REFS_MAX]]
        extra = f" +{len(packet.references) - REFS_MAX} more" if len(packet.references) > REFS_MAX else ""
        lines.append("refs: " + ", ".join(listed) + extra + " -> tokens show-ref ID")
    elif not packet.guard:
        lines.append("refs: none (nothing omitted)")
    else:
        lines.append(f"refs: none ({packet.guard})")
    if packet.manifest_id:
        lines.append(f"original: tokens expand --full {packet.manifest_id}")
    body = "\n".join(lines) + "\n"
    level0 = 0
    for _ in range(4):  # the line holds its own size: settle it
        tail = f"est. tokens L0/L1/L2: ~{level0:,}/~{m.visible_tokens:,}/~{m.raw_tokens:,}\n"
        size = estimate_tokens(len((body + tail).encode()))
        if size == level0:
            break
        level0 = size
    return (body + tail).encode()


def _runner(packet: ContextPacket) -> str:
    if packet.type != "build":
        return ""
    head = packet.raw[:65536]
    for name, pattern in RUNNERS:
        if re.search(pattern, head, re.M):
            return name
    return ""


def _build():
    """The build reducer's line helpers, imported on first use (it compiles many regexes: startup time)."""
    from operators.types import build

    return build


def _facts(packet: ContextPacket) -> tuple[str, list[str], int]:
    """(counts, the first signal lines, how many signal lines there are)."""
    raw = packet.raw
    kind = packet.type
    if kind == "diff":
        return _diff_facts(raw)
    if kind == "json":
        return _json_facts(packet)
    if kind == "filelist":
        entries = sum(1 for line in raw.split(b"\n") if line.strip())
        return f"{entries:,} entries", [], 0
    errors = warnings = 0
    summary = b""
    ranked: dict[bytes, tuple[int, int]] = {}
    if kind == "build":  # runner summaries and pytest's "E" lines need every line
        candidates = enumerate(raw.split(b"\n"))
    else:  # one RE2 scan finds the signal lines; only those get the slower per-line regexes
        candidates = ((start, raw[start : min(end, start + LINE_SCAN_MAX)]) for start, end in signal_line_spans(raw))
    for index, line in candidates:
        line = line[:LINE_SCAN_MAX]  # ranking reads the head of a line; the line itself stays whole
        shown = _build().display_line(line) if (b"\x1b" in line or b"\r" in line or b"\x08" in line) else line.rstrip(b"\r")
        if kind == "build" and _build().SUMMARY_RE.match(shown) and (b" in " in shown or b"passed" in shown or b"failed" in shown):
            summary = shown.strip(b"= ")
        if kind == "build" and not _build().is_signal_text(shown):
            continue
        error = ERROR_RE.search(shown) is not None
        if error:
            errors += 1
        elif WARN_RE.search(shown):
            warnings += 1
        key = shown.strip()
        if key and key not in ranked:
            rank = signal_rank(shown, error)
            ranked[key] = (rank, index)
    best = sorted(ranked, key=ranked.__getitem__)[:IMPORTANT_MAX]
    important = [_clip(key) for key in best]
    total = len(ranked)
    n_lines = raw.count(b"\n") + (0 if raw.endswith(b"\n") or not raw else 1)
    if summary:  # the runner's own count says it best
        counts = summary.decode("utf-8", "replace")[:120]
    else:
        counts = f"{errors:,} error/{warnings:,} warning lines"
    return f"{n_lines:,} line{'s' if n_lines != 1 else ''}; {counts}", important, total


def signal_rank(shown: bytes, error: bool | None = None) -> int:
    """How telling a signal line is, 0 best: what went wrong (``FAILED x::y``, ``error:``, ``make: ***``),
    then exceptions, other error lines, warnings, the rest, and headers/progress lines last."""
    if CONCLUSION_RE.search(shown):
        return 0
    if EXCEPTION_RE.search(shown):
        return 1
    if HEADER_RE.match(shown):
        return 5
    if error is None:
        error = ERROR_RE.search(shown) is not None
    if error:
        return 2
    if WARN_RE.search(shown):
        return 3
    return 4


diff_fact_lines = LineFinder(rb"(?:diff --git |[+-])")  # the only lines the facts are about


def _diff_facts(raw: bytes) -> tuple[str, list[str], int]:
    files: list[str] = []
    added = removed = 0
    important: list[str] = []
    total = 0
    for line in diff_fact_lines(raw):
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
            total += 1
            if len(important) < IMPORTANT_MAX:
                important.append(_clip(line.rstrip(b"\r")))
    names = ", ".join(files[:3]) + (f" +{len(files) - 3} more" if len(files) > 3 else "")
    counts = f"{len(files)} file{'s' if len(files) != 1 else ''} changed, +{added:,} -{removed:,} lines"
    return counts + (f" ({names})" if names else ""), important, total


def _json_facts(packet: ContextPacket) -> tuple[str, list[str], int]:
    parked = _marker_count(packet)
    important = []
    total = 0
    for line in packet.visible.split(b"\n"):
        if re.search(JSON_KEY, line):
            total += 1
            if len(important) < IMPORTANT_MAX:
                important.append(_clip(line.strip()))
    return f"{parked} value{'s' if parked != 1 else ''} parked behind refs", important, total


def _marker_count(packet: ContextPacket) -> int:
    """Real markers in the visible text (from the plan: text that merely looks like one is not counted)."""
    if packet.plan is None:
        return 0
    return packet.plan.pieces.kinds.count(MARK)


def _short_source(source: str) -> str:
    return source if len(source) <= SOURCE_MAX else source[: SOURCE_MAX - 21] + "…" + source[-20:]


def _clip(line: bytes) -> str:
    text = line.decode("utf-8", "replace")
    return text if len(text) <= LINE_MAX else text[: LINE_MAX - 1] + "…"


def _ref_label(reason: str, size: int) -> str:
    short = reason if len(reason) <= 28 else reason[:27] + "…"
    return f"{short}, {_size(size)}"


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1024 / 1024:.1f} MB"
