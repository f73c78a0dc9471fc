"""The pure-Python twin of the source type's kernel function ``source_lines``: the lines of a source file
that a signature pattern may match, found by byte tests (a word in the line, a word first after its
indent, a last byte before trailing blanks ...), so that the pattern is tried on those lines alone.

A test is ``(mode, needle)``: ``WORD`` the line holds ``needle``; ``LEAD`` the line less its leading
blanks starts with it; ``START`` the line starts with it; ``TAIL`` the line less its trailing blanks
ends with it; ``FIRST`` the line's first byte is one of ``needle``'s (blanks: what ``bytes.strip``
strips); any of them ``| NOT``: the line fails it. Each line gets a bit for each test it passes
(``bits``, up to ``TESTS_MAX`` tests); a group of ``clauses`` (masks of bits) takes the lines that pass
every test of one of its masks (mask 0: every line). A line is the body of a line (no ``\\n``, no
``\\r`` before it), less the ``cat -n`` number before it when ``numbered``
(``operators.types.source.NUMBERED_RE``: then its number is the one printed); lines longer than
``max_len`` are in no group.
"""

from __future__ import annotations

from array import array

WORD, LEAD, START, TAIL, FIRST = range(5)
NOT = 8
TESTS_MAX = 62
FIELDS = 6  # a found line's record: its number, start, end, end less trailing blanks, indent, bits
BLANKS = b" \t\n\r\x0b\x0c"


def number_prefix(raw: bytes, start: int, end: int) -> tuple[int, int]:
    """(where the line ``raw[start:end]`` goes on after its ``cat -n`` number, the number), or
    (``start``, -1) when it has none: ``^ {0,8}(\\d{1,7})(?:\\t| {1,2}|: ?)``."""
    q = start
    while q < end and q - start < 8 and raw[q] == 0x20:
        q += 1
    d = q
    while q < end and q - d < 7 and 0x30 <= raw[q] <= 0x39:
        q += 1
    if q == d or q >= end:
        return start, -1
    number = int(raw[d:q])
    c = raw[q]
    if c == 0x09:
        return q + 1, number
    if c == 0x20 or c == 0x3A:
        q += 1
        return (q + 1 if q < end and raw[q] == 0x20 else q), number
    return start, -1


def _passes(line: bytes, mode: int, needle: bytes) -> bool:
    """Whether ``line`` passes the test ``(mode, needle)``."""
    kind = mode & ~NOT
    if kind == WORD:
        hit = needle in line
    elif kind == LEAD:
        hit = line.lstrip(BLANKS).startswith(needle)
    elif kind == START:
        hit = line.startswith(needle)
    elif kind == TAIL:
        hit = line.rstrip(BLANKS).endswith(needle)
    else:
        hit = bool(line) and line[0] in needle
    return hit != bool(mode & NOT)


def source_lines_py(raw: bytes, max_len: int, numbered: bool, tests, clauses) -> tuple[int, list[array]]:
    """(the number of lines, for each group of ``clauses`` the records of its lines in order: ``FIELDS``
    int64 each, the line's number (from 1, or printed), where it starts and ends (the body, after its
    printed number), where it ends less trailing blanks, its indent (its leading spaces and tabs, a tab
    counted as four) and its test bits)."""
    if len(tests) > TESTS_MAX:
        raise ValueError("source_lines: too many tests")
    if not all(needle for _, needle in tests) or any(mask >> len(tests) for masks in clauses for mask in masks):
        raise ValueError("source_lines: an empty needle, or a mask naming a test not given")
    out = [array("q") for _ in clauses]
    pos, n, index = 0, len(raw), 0
    while pos < n:
        nl = raw.find(b"\n", pos)
        end = n if nl < 0 else nl
        e = end - 1 if end > pos and raw[end - 1] == 0x0D else end
        p, number = pos, index + 1
        if numbered:
            at, printed = number_prefix(raw, pos, e)
            if printed >= 0:
                p, number = at, printed
        index += 1
        pos = end + 1
        if e - p > max_len:
            continue
        line = raw[p:e]
        bits = sum(1 << j for j, (mode, needle) in enumerate(tests) if _passes(line, mode, needle))
        record = None
        for group, masks in zip(out, clauses):
            if any(bits & mask == mask for mask in masks):
                if record is None:
                    shown = line.rstrip(BLANKS)
                    blanks = len(shown) - len(shown.lstrip(b" \t"))
                    indent = blanks + 3 * shown.count(b"\t", 0, blanks)
                    record = (number, p, e, p + len(shown), indent, bits)
                group.extend(record)
    return index, out
