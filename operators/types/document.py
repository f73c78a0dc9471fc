"""Documents: Markdown and reStructuredText prose (``cat README.md``, ``cat CHANGELOG.md``, ``tail HISTORY.md``,
a page of docs).

The reader asked to read the document, so level 1 passes it through as the ``text`` type does: trailing
whitespace, runs of blank lines and repeated lines are normalised (groups ``whitespace`` and ``repeats``).

Over the output ceiling (``cut_head``, ``rank_lines``) a cut document shows its outline first: every
heading (``## v4.1.0 - 2024-09-17``, a reST or setext title) after its line number, the top levels first
when they do not all fit in ``OUTLINE_SHARE`` of the budget (the others counted); then the document from
its first line, as far as the budget lasts. A changelog's newest entries are at its top; its structure
is its headings.

``SIGNALS`` is empty: "Fixed a crash when …" in a changelog or "raises an error if …" in a README
describes; it is no event of the command that printed it, so no such line jumps ahead of the text.

Detection asks for a document's marks together: two headings or more (``#`` headings outside code
fences, or titles underlined with ``=``/``-`` about as long as they are), most lines prose or list items,
few lines that look like code, log records or a tool's report (``Traceback``, ``FAIL:``, ``error:`` …).
"""

from __future__ import annotations

import heapq
from array import array
from itertools import accumulate

from operators.reduction import Plan
from operators.relazy import lazy  # patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first
from operators.types import text as texttype
from operators.vocab import latin1_re2

NAME = "document"
SIGNALS = ""  # a document's words describe; they are not events (module docstring)
FILL = True  # cut to a budget, its every line is content: the head fills what the outline leaves
PACK_CONTEXT = False
OUTLINE_SHARE = 0.5  # of a cut's budget the outline may take; the document's first lines get the rest
MIN_HEADINGS = 2
MIN_LINES = 12  # content lines (outside code fences): a shorter text is shown whole anyway
HEADING_SHARE = 0.5  # headings are at most this share of the content lines ...
PROSE_SHARE = 0.4  # ... prose and list items at least this share ...
CODE_SHARE = 0.1  # ... code-like lines at most this share ...
LOG_SHARE = 0.05  # ... and log records at most this share
BOM = b"\xef\xbb\xbf"
UNDERLINE_SLACK = 4  # a title's underline is at most this much longer than the title
TITLE_MARKS = b"`*_[\"'("  # a title may start with markup: reST's `` `0.7.3`_ `` links its release

ATX_RE = lazy(rb"^ {0,3}(#{1,6})[ \t]+(?!(?:include|define|ifn?def|if|endif|pragma|import)\b)\S")
FENCE_RE = lazy(rb"^ {0,3}(?:```|~~~)")
UNDERLINE_RE = lazy(rb"^ {0,3}(=+|-+|~+|\^+|\*+)[ \t]*\r?$")
PROSE_RE = lazy(rb"^[ \t]{0,3}(?:[-*+][ \t]+|\d{1,3}[.)][ \t]+|>[ \t]*|\|[ \t]*)?\S+(?:[ \t]+\S+){3}")  # four words ...
WORDS_RE = lazy(rb"[A-Za-z]{2,}[,;:]? [A-Za-z]{2,} [A-Za-z]")  # ... three of them plain words in a row
CODE_RE = lazy(rb"(?:[{};]|=>)[ \t]*\r?$|^[ \t]*[})\]]|^[ \t]*(?:def|class|import|from|return|function|const|let"
               rb"|var|func|fn|pub|package|public|private|if|for|while)\b[^\n]*[:({=;]")
LOG_RE = lazy(rb"^\s*\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|^\s*\d\d:\d\d:\d\d|^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d|"
              rb"^\s*(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE|FATAL)\b[ :\]]")
REPORT_RE = lazy(rb"^\s*(?:Traceback \(most recent call last\)|(?:FAIL|ERROR|FAILED|PASSED|PASS|ok|not ok)\b[: ]|=== RUN|"
                 rb"--- (?:FAIL|PASS)|npm (?:ERR|error|warn)|error(?:\[\w+\])?:|warning:|E   |diff --git |@@ )")
# the whole input's headings (``_headings``): RE2 programs read as Latin-1, linear over any input
ATX_SCAN = lazy(rb"(?m)^(?:\xef\xbb\xbf)? {0,3}#{1,6}[ \t]+\S[^\n]*", compiler=latin1_re2)  # (a BOM before the first)
UNDERLINE_SCAN = lazy(rb"(?m)^ {0,3}(?:=+|-+|~+|\^+)[ \t]*\r?$", compiler=latin1_re2)
FENCE_SCAN = lazy(rb"(?m)^ {0,3}(?:```|~~~)", compiler=latin1_re2)


def _is_title(title: bytes, underline: bytes) -> bool:
    """Whether ``underline`` (``===``, ``---`` …) underlines ``title``: a title of words about as long."""
    title, mark = title.strip(), underline.strip()
    return (len(mark) >= 3 and bool(title) and len(mark) <= len(title) + UNDERLINE_SLACK
            and (title[:1].isalnum() or title[:1] in TITLE_MARKS) and not UNDERLINE_RE.match(title))


def detect(sample) -> str | None:
    if not maybe.document(sample):
        return None  # no heading of either kind
    head = sample.head
    lines = head.split(b"\n")
    if len(sample.raw) > len(head):
        lines.pop()  # may be cut in the middle
    headings = content = prose = code = logs = 0
    fenced = False
    prev = b""
    for line in lines:
        if FENCE_RE.match(line):
            fenced = not fenced
            prev = b""
            continue
        if fenced or not line.strip():
            prev = b""
            continue
        if REPORT_RE.match(line):
            return None  # a test run's, a linter's or a diff's own line
        content += 1
        if ATX_RE.match(line):
            headings += 1
        elif prev and UNDERLINE_RE.match(line) and _is_title(prev, line):
            headings += 1
            content -= 1  # the underline is no line of its own
        elif PROSE_RE.match(line) and WORDS_RE.search(line):
            prose += 1
        if CODE_RE.search(line):
            code += 1
        if LOG_RE.match(line):
            logs += 1
        if code > len(lines) * CODE_SHARE or logs > len(lines) * LOG_SHARE:
            return None  # more than the most lines there can be allows: code or a log
        prev = line
    if content < MIN_LINES or headings < MIN_HEADINGS or headings > content * HEADING_SHARE or prose < content * PROSE_SHARE \
            or code > content * CODE_SHARE or logs > content * LOG_SHARE:
        return None
    return f"document: {headings} headings, {prose}/{content} lines of prose"


def reduce(raw: bytes, granularity: str, config) -> Plan:
    return texttype.reduce_text(raw)


def _fences(raw: bytes) -> array:
    """Offsets where code fences open and close, in order (an unclosed fence runs to the end)."""
    return array("q", (m.start() for m in FENCE_SCAN.finditer(raw)))


def _candidates(raw: bytes):
    """(offset, title, level) of each ATX heading and each underlined title, in order; fences not asked."""
    atx = ((m.start(), m.group().removeprefix(BOM), 0) for m in ATX_SCAN.finditer(raw))
    underlined = []
    for m in UNDERLINE_SCAN.finditer(raw):
        end = m.start() - 1  # the newline ending the line before
        if end <= 0:
            continue
        a = raw.rfind(b"\n", 0, end) + 1
        title = raw[a:end]
        if _is_title(title.rstrip(b"\r"), m.group()):
            underlined.append((a, title, {b"=": 1, b"-": 2}.get(m.group().strip()[:1], 3)))
    return heapq.merge(atx, underlined)


def _headings(raw: bytes) -> tuple[list[int], list[int], list[bytes]]:
    """The document's headings outside code fences: (line numbers from 1, levels, texts as printed).
    A setext or reST title is its title line (its underline left out); its level follows its mark:
    ``=`` 1, ``-`` 2, others 3."""
    fences = _fences(raw)
    numbers: list[int] = []
    levels: list[int] = []
    texts: list[bytes] = []
    line, pos, f = 1, 0, 0
    for a, title, level in _candidates(raw):
        while f < len(fences) and fences[f] < a:
            f += 1
        if f % 2:
            continue  # inside a fence
        if not level:  # an ATX heading: its level is its count of #
            if not ATX_RE.match(title):
                continue
            level = len(title.lstrip(b" ")) - len(title.lstrip(b" ").lstrip(b"#"))
        line += raw.count(b"\n", pos, a)
        pos = a
        numbers.append(line)
        levels.append(level)
        texts.append(title.rstrip(b"\r").strip())
    return numbers, levels, texts


def cut_head(raw: bytes, budget: int) -> bytes:
    """What a document cut to a budget shows first (``operators.ceiling``): its outline, every heading
    after its line number (``12: ## Fixed``), as many as ``OUTLINE_SHARE`` of the budget holds, the top
    levels first (in the order of the document), the others counted; the document itself follows from
    its first line (``rank_lines``)."""
    numbers, levels, texts = _headings(raw)
    n = len(numbers)
    if not n:
        return b""
    lines = raw.count(b"\n") + (not raw.endswith(b"\n"))
    head = (f"[document, {lines:,} lines: its {n:,} heading{'s' if n != 1 else ''} first (line: heading), "
            "then the document from its first line as far as it fits]\n").encode()
    room = int(budget * OUTLINE_SHARE) - len(head) - 80
    entries = [b"%d: %s\n" % (numbers[i], texts[i]) for i in range(n)]
    chosen = range(n)
    if sum(map(len, entries)) > room:
        by_level = sorted(range(n), key=lambda i: (levels[i], i))
        spent = list(accumulate(len(entries[i]) for i in by_level))
        chosen = sorted(by_level[: sum(1 for s in spent if s <= room)])
    out = [head] + [entries[i] for i in chosen]
    if len(chosen) < n:
        out.append(f"[… {n - len(chosen):,} more headings: in the document's refs below]\n".encode())
    out.append(b"[end of outline]\n")
    return b"".join(out)


def rank_lines(lines, config):
    """A cut document (its outline comes first, ``cut_head``) shows its lines from the top, as a source
    file does: every line is context ranked by its place."""
    from operators.types.source import InOrder

    return InOrder(len(lines))
