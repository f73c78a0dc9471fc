"""What each shipped content type's detector needs of a sample at the least, tested cheaply.

``CHECKS`` maps a shipped type's module to its test. The classifier asks the test before it imports
the module (``Registry.may_be``), and the type's ``detect`` asks it first too: False is the
detector's own "no", so classification is the same whether the module was asked or not. True says
nothing: the detector decides. Each test reads the first lines or scans the head once, and is loose
(a superset of what its detector takes): a log, asked of every type before ``log``, used to import
13 modules and run 13 parsers over its sample; the tests of those types say no on its first line or
in one scan. ``tests/test_classify.py`` checks each test against its detector (every test False
where the detector's own conditions say no, on every fixture and corpus input and on generated ones).

A type module that changes what its detector accepts changes its test here in the same commit.
"""

from __future__ import annotations

import re
from typing import Callable

from operators.relazy import lazy  # patterns compiled on first use

BOM = b"\xef\xbb\xbf"
NON_SPACE_RE = lazy(rb"\S")
PREAMBLE_REACH = 4096 + 1  # json: a document after printed lines starts within the first 4 KB


def json(sample) -> bool:
    """A ``{`` or ``[`` that starts the input (after a BOM and blanks), a line of its first 4 KB, or
    its first non-blank line (NDJSON)."""
    if sample.head.lstrip()[:1] in (b"{", b"["):
        return True
    raw = sample.raw
    start = len(BOM) if raw.startswith(BOM) else 0
    first = NON_SPACE_RE.search(raw, start)
    if first is not None and raw[first.start() : first.start() + 1] in (b"{", b"["):
        return True
    reach = raw[: start + PREAMBLE_REACH]
    if b"\n{" in reach or b"\n[" in reach:
        return True
    return bool(sample.lines) and sample.lines[0].strip()[:1] in (b"{", b"[")


ONELINE_START_RE = lazy(rb"[*|/\\_.\- ]*(?:[0-9a-f]{7}|\r?$)")  # a hash after graph characters, or a graph line


def gitlog(sample) -> bool:
    """A ``commit <hash>`` line, a tag's header, or a first line that a ``--oneline`` log starts with."""
    if b"commit " in sample.head or sample.plain.startswith(b"tag "):
        return True
    lines = sample.lines
    return len(lines) >= 3 and ONELINE_START_RE.match(lines[0]) is not None


BLAME_START_RE = lazy(rb"\n\^?[0-9a-f]{4,40} ")  # how every blame line starts (default, -s, porcelain header)


def gitblame(sample) -> bool:
    """Nine lines in ten starting with a commit hash and a space (or the first: porcelain)."""
    lines = sample.lines[:300]
    if len(lines) < 2:
        return False
    if BLAME_START_RE.match(b"\n" + lines[0]):
        return True
    return len(BLAME_START_RE.findall(b"\n" + b"\n".join(lines))) >= 0.9 * len(lines)


STATUS_STARTS = (b"On branch ", b"HEAD detached ", b"Not currently on any branch", b"rebase in progress",
                 b"interactive rebase in progress", b"You are currently ", b"No commits yet")
NOTE_RE = lazy(rb" [^\S\n]*\S")  # a word after a space: git tag -n's annotation


def gitstatus(sample) -> bool:
    """A first line of ``git status``, ``--short`` (``XY path``, ``## branch``) or ``git branch``, or
    five lines or more that a tag list can be (names alone, or annotated as ``git tag -n`` pads them)."""
    lines = sample.lines[:400]  # (a line's "\r" changes none of the tests below)
    if not lines:
        return False
    first = lines[0].rstrip(b"\r")
    if first.startswith(STATUS_STARTS) or first[2:3] == b" " or first[1:2] == b" " and first[:1] in (b"*", b"+", b" "):
        return True
    return len(lines) >= 5 and (b"    " in first or NOTE_RE.search(b"\n".join(lines)) is None)


def diff(sample) -> bool:
    """A ``diff --…`` line or a ``+++`` file line, or a first line indented as ``--stat`` lines are."""
    head = sample.head
    if b"diff --" in head or b"\n+++ " in head:
        return True
    return bool(sample.lines) and sample.lines[0][:1] == b" "


# a line that may start a diagnostic (every form the parser's heads take: a location, an indented
# ``12:5`` entry, a rustc ``-->`` line after its head, tsc's ``error TS``), after a newline; tsc's
# ``path(1,2): error TS…`` lines are counted apart (TSC_MARKS)
DIAGNOSTIC_HEAD_RE = lazy(rb"\n[^\S\n]*(?:(?:[A-Za-z]:)?[^\s:()]+:\d|--> |error TS|,-\[|\xe2\x95\xad\xe2\x94\x80\[)")
TSC_MARKS = (b"): error TS", b"): warning TS", b"): message TS")


# a head's ``path:1`` that is a line's time: ``2024-05-01T10:00:00``, ``[2024-05-01T10:00:00.5Z]``,
# ``10:00:00.123`` (a log's lines; no diagnostic's path is a date and hour)
TIME_HEAD_RE = lazy(rb"\n[^\S\n]*\[?(?:\d{4}-\d\d-\d\dT\d\d:\d\d|\d\d?:\d\d:\d\d[.,]\d)")


def diagnostics(sample) -> bool:
    """Two lines that may start (or, ``-->``, follow) a diagnostic's head, not counting a line that
    starts with a time (a timestamped log's every line would be one: its whole head parsed for nothing)."""
    plain = sample.plain
    text = b"\n" + plain
    is_time = TIME_HEAD_RE.match
    found = (m for m in DIAGNOSTIC_HEAD_RE.finditer(text) if is_time(text, m.start()) is None)
    heads = sum(1 for _ in zip(range(2), found))
    return heads + sum(plain.count(mark) for mark in TSC_MARKS) >= 2


# a line that may be a matching line in some shape: ``12:`` (heading, bare), or a path before its
# first colon that search's ``_pathlike`` takes (a ``/`` in it, or a name with an extension), or a
# bare name before ``:12:`` (numbered)
SEARCH_MATCH_RE = lazy(rb"\n(?:\d+:|(?=[\w.@~+/-])[^\x00\n: ]*/[^\x00\n: ]*[ \t\r\x0b\x0c]*:|[\w.@~+-]*\.\w{1,10}:"
                       rb"|[A-Za-z_.][\w.@~+-]{0,254}:\d+:)")  # after a newline


def search(sample) -> bool:
    """No colour escapes (coloured output is not parsed), and three lines that may be matching lines."""
    head = sample.head
    if b"\x1b[" in head:
        return False
    found = SEARCH_MATCH_RE.finditer(b"\n" + head)
    return all(next(found, None) is not None for _ in range(3))


FREEZE_LINE_RE = lazy(rb"\n(?:[^\n]*?(?:==|@ )|-e |# )")  # every pip freeze line holds one of these
FREEZE_MARKS = (b"==", b"@ ", b"\n-e ", b"\n# ")


def packages(sample) -> bool:
    """A first line that a dependency tree's root, ``pip list``'s header or ``conda list``'s can be,
    or nineteen lines in twenty that ``pip freeze`` lines can be."""
    lines = sample.lines[:2000]  # (a line's "\r" changes none of the tests below)
    if not lines:
        return False
    first = lines[0].rstrip(b"\r")
    if b"@" in first or b" v" in first or b"==" in first or first.startswith((b"Package ", b"# ")):
        return True
    if len(lines) < 3:
        return False
    text = b"\n" + b"\n".join(lines)
    if sum(text.count(mark) for mark in FREEZE_MARKS) < 0.95 * len(lines):
        return False  # (each freeze line holds one of them: counted far faster than lines are matched)
    return len(FREEZE_LINE_RE.findall(text)) >= 0.95 * len(lines)


BUILD_RE = lazy(
    rb"^(?:=+ (?:test session starts|FAILURES|ERRORS|short test summary info|\d+ (?:passed|failed))"
    rb"|(?:PASSED|FAILED|ERROR) [\w/.-]+::|[\w/.-]+::\S.*? (?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b"  # -rA, -v
    rb"|(?:collecting \.\.\. )?collected \d+ items?|[.FEsxX]+ +\[ *\d{1,3}%\]\s*$"  # pytest -q's progress lines
    rb"|[\w./-]+\.(?:c|cc|cpp|h|hpp|rs|go):\d+:\d+: (?:error|warning|note)"
    rb"|npm (?:ERR!|WARN|warn|error)|Collecting \S+|Successfully installed |ERROR: (?:Could not|No matching)"
    rb"|\s+\d+ (?:passing|failing|pending)(?: \(\d+\w*\))?\s*$|\s+(?:\xe2\x9c\x93|\xe2\x9c\x94) \S"  # mocha
    rb"|test \S+(?: - .+)? \.\.\. (?:ok|FAILED|ignored)\s*$|test result: (?:ok|FAILED)\. \d+ passed"  # cargo test (libtest;
    # a doc-test: ``test src/lib.rs - Type::f (line 12) ... ok``)
    rb"|(?:PASS|FAIL) +\S+\.[cm]?[jt]sx?\b|Test Suites: +\d|Tests: +\d"  # jest
    rb"|\s*Test Files +\d+ (?:failed|passed)|\s+Tests +\d+ (?:failed|passed)"  # vitest
    rb"|\s*(?:not )?ok \d+ - \S|# (?:tests|pass|fail) \d+\s*$)",  # TAP (node --test)
    re.M,
)


# a piece of text in every BUILD_RE match (one per alternative, in its order): fewer than two of
# them in all and BUILD_RE cannot match twice (counted far faster than the pattern is tried)
BUILD_MARKS = (b"test session starts", b"FAILURES", b"ERRORS", b"short test summary info", b" passed", b" failed",
               b"::", b"collected ", b"%]", b": error", b": warning", b": note", b"npm ", b"Collecting ",
               b"Successfully installed ", b"ERROR: ", b" passing", b" failing", b" pending", b"\xe2\x9c\x93 ",
               b"\xe2\x9c\x94 ", b" ... ", b"test result: ", b"PASS ", b"FAIL ",
               b"Test Suites: ", b"Tests: ", b"ok ", b"# tests ", b"# pass ", b"# fail ")


def _two_build_marks(plain: bytes) -> bool:
    found = 0
    for mark in BUILD_MARKS:
        found += plain.count(mark)
        if found >= 2:
            return True
    return False


def build(sample) -> bool:
    """Two lines of a test or build runner (this is the build type's whole test)."""
    plain = sample.plain
    return bool(sample.lines) and _two_build_marks(plain) and len(BUILD_RE.findall(plain)) >= 2


LONG_START_RE = lazy(rb"\n[-dlcbpsDn?][rwxsStTlL-]{9}")  # how every ls -l line starts, after a newline
TREE_MARKS = ("├── ".encode(), "└── ".encode(), b"|-- ", b"`-- ")  # one is in every tree line
DIR_HEADER_RE = lazy(rb"\S.*:")  # ls -R: a directory's header, the first line among them


def listing(sample) -> bool:
    """Three lines or more, and the marks of one of the shapes: six lines in ten starting as ``ls -l``
    lines do, a tab (du), a tree branch, or a first line ending in a colon (``ls -R``)."""
    lines = sample.lines[:2000]  # (a line's "\r" changes none of the tests but the first line's)
    if len(lines) < 3:
        return False
    text = b"\n" + b"\n".join(lines)
    if b"\t" in text or any(mark in text for mark in TREE_MARKS):  # du, tree
        return True
    if DIR_HEADER_RE.fullmatch(lines[0].rstrip(b"\r")) is not None:
        return True
    return len(LONG_START_RE.findall(text)) >= 0.6 * len(lines)


ENV_LINE_RE = lazy(rb"\n(?:declare -x |export )?[A-Za-z_][A-Za-z0-9_]*=")  # after a newline
TIMESTAMP_RE = lazy(rb"^\s*(?:\[?\d{4}-\d\d-\d\d[T ]\d|\d\d:\d\d:\d\d|[A-Z][a-z]{2} +\d+ \d\d:)")  # table's own
HEADER_MARK_RE = lazy(rb"[A-Z%]")  # every column-name word has one


def table(sample) -> bool:
    """Three lines or more: nine in ten ``KEY=value`` lines, or a first line that a header of column
    names can be (a capital or ``%``, no timestamp)."""
    lines = sample.lines[:400]  # (a line's "\r" changes none of the tests but the first line's)
    if len(lines) < 3:
        return False
    first = lines[0].rstrip(b"\r")
    if not TIMESTAMP_RE.match(first) and HEADER_MARK_RE.search(first):
        return True
    return len(ENV_LINE_RE.findall(b"\n" + b"\n".join(lines))) >= 0.9 * len(lines)


def filelist(sample) -> bool:
    """Three lines or more, at most half of them with a space."""
    lines = sample.lines
    if len(lines) < 3:
        return False
    most, spaced = 0.5 * len(lines), 0
    for line in lines:
        if b" " in line:
            spaced += 1
            if spaced > most:
                return False  # (prose, a log: said after half the lines)
    return True


NUMBERED_INDENT_RE = lazy(rb"\n\d{1,7}(?:\t| {1,2}|: ?)[ \t]")  # indented after a cat -n number


def source(sample) -> bool:
    """An indented line (a fifth of the lines of code must be), its line number (``cat -n``) aside."""
    head = sample.head
    if head[:1] in (b" ", b"\t") or b"\n " in head or b"\n\t" in head:
        return True
    return NUMBERED_INDENT_RE.search(b"\n" + head) is not None


DOCUMENT_MARKS = tuple(b"\n" + b" " * k + mark for mark in (b"#", b"==", b"--", b"~~", b"^^", b"**") for k in range(4))


def document(sample) -> bool:
    """A line starting (after up to three spaces) with ``#`` (a Markdown heading) or with ``==``, ``--``,
    ``~~``, ``^^`` or ``**`` (a title's underline)."""
    head = b"\n" + sample.head
    return any(mark in head for mark in DOCUMENT_MARKS)


CHECKS: dict[str, Callable] = {f"operators.types.{check.__name__}": check for check in (
    json, gitlog, gitblame, gitstatus, diff, diagnostics, search, packages, build, listing, table, filelist, document, source)}
