"""The pure-Python twins of the text type's kernel functions: ``text_runs``, the runs of repeated lines
and blocks the text reducer folds, found over the whole lines a block of the input at a time
(``_WholeLines``), as five int64 columns (start, end of the first copy, end of the run, copies, lines
per copy); ``text_cuts``, the trailing whitespace and blank-line runs it omits, found by one RE2 search
(``text_cuts_py``); ``text_pieces``, the pieces of the reducer's plan for those cuts and runs
(``text_pieces_py``); and ``line_of``, the line holding each offset, which the line ranking asks of every
match of its whole-text scans (``line_of_py``), and ``blank_lines``, the lines ``bytes.strip`` empties,
which it asks of every text it ranks (``blank_lines_py``)."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from heapq import merge
from itertools import accumulate, chain, compress, islice, repeat
from operator import eq, sub

import re2


def text_runs_py(raw: bytes, repeat_min: int, block_max: int, block_work: int) -> tuple[array, ...]:
    """Each folded run, in order, as five columns: (start, end of its first copy, end of the run, copies,
    lines per copy).

    For each period p (1 line, 2 lines … ``block_max``) one C-speed pass marks the lines equal to the
    line p further on; a run of such marks ``(repeat_min - 1) * p`` long is a block of p lines
    repeated (blocks are looked for while that costs at most ``block_work`` comparisons in all; single
    lines always). Runs are taken from the start, the shortest period first where two start together;
    blank blocks are left to the whitespace cut. Only whole lines (ending in ``\\n``) take part."""
    columns = tuple(array("q") for _ in range(5))
    lines = _WholeLines(raw)
    if lines.count < repeat_min:
        return columns
    found = []  # per period, its runs in order: (period, first lines, copies)
    for period, marks in lines.marks(repeat_min, block_max, block_work).items():
        need = b"\x01" * ((repeat_min - 1) * period)
        firsts, counts = array("q"), array("q")
        at = marks.find(need)
        while at >= 0:
            end = marks.find(b"\x00", at)
            end = len(marks) if end < 0 else end
            copies = (end - at) // period + 1
            firsts.append(at)
            counts.append(copies)
            at = marks.find(need, at + (copies - 1) * period)
        found.append(zip(firsts, repeat(period), counts))
    taken = 0  # lines before this one are folded already
    for first, period, copies in merge(*found):  # by first line, then period
        if first < taken:
            continue
        start, first_end = lines.start_of(first), lines.start_of(first + period)
        if not INK_RE.search(raw, start, first_end):
            continue  # blank lines: the whitespace cut folds them
        run = (start, first_end, lines.start_of(first + period * copies), copies, period)
        for column, value in zip(columns, run):
            column.append(value)
        taken = first + period * copies
    return columns


INK_RE = re.compile(rb"[^ \t\n\r\x0b\x0c]")  # a byte ``bytes.strip()`` keeps: the line is not blank
BLOCK_BYTES = 1 << 18  # whole lines are split a block of about this size at a time


class _WholeLines:
    """The whole lines of ``raw`` (each ends in ``\\n``), split a block at a time: at no time is more
    than a block's worth of lines a Python list. Kept for the input: one mark byte per line and
    period, and where each block starts (line index, byte offset)."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.end = raw.rfind(b"\n") + 1
        self.count = raw.count(b"\n", 0, self.end)
        self.first_lines, self.offsets = array("q"), array("q")  # of each block
        self._cached = -1, [0]  # a block's index and the offsets of its lines (relative, one past the last)

    def blocks(self):
        """(start, stop) of the blocks: whole lines, about ``BLOCK_BYTES`` each, in order."""
        pos = 0
        while pos < self.end:
            stop = self.raw.find(b"\n", min(pos + BLOCK_BYTES, self.end) - 1) + 1
            yield pos, stop
            pos = stop

    def periods(self, repeat_min: int, block_max: int, block_work: int) -> list[int]:
        """The periods looked for: single lines always, blocks while the work stays bounded."""
        out = []
        for period in range(1, block_max + 1):
            if self.count < repeat_min * period or (period > 1 and self.count * period > block_work):
                break
            out.append(period)
        return out

    def marks(self, repeat_min: int, block_max: int, block_work: int) -> dict[int, bytearray]:
        """For each period p: byte i is 1 when line i equals line i + p (one split of the input)."""
        periods = self.periods(repeat_min, block_max, block_work)
        marks = {period: bytearray(self.count - period) for period in periods}  # written in place
        tail: list[bytes] = []  # the last ``block_max`` lines of the blocks before
        line = 0
        for start, stop in self.blocks():
            block = self.raw[start:stop].split(b"\n")
            block.pop()  # after the block's last newline: nothing
            self.first_lines.append(line)
            self.offsets.append(start)
            window, known = tail + block, len(tail)
            for period, out in marks.items():  # each pair once: the one whose later line is in this block
                j = max(0, known - period)
                done = max(0, line - period)  # pairs counted in the blocks before
                same = bytes(map(eq, islice(window, j, None), islice(window, j + period, None)))
                out[done : done + len(same)] = same
            tail = window[-block_max:]
            line += len(block)
        return marks

    def start_of(self, index: int) -> int:
        """Where line ``index`` starts (the end of the whole lines for ``index == count``)."""
        if index >= self.count:
            return self.end
        b = bisect_right(self.first_lines, index) - 1
        if self._cached[0] != b:
            start = self.offsets[b]
            stop = self.offsets[b + 1] if b + 1 < len(self.offsets) else self.end
            lines = self.raw[start:stop].split(b"\n")
            lines.pop()
            self._cached = b, list(accumulate(map(len, lines), initial=0))
        within = index - self.first_lines[b]
        return self.offsets[b] + self._cached[1][within] + within


# A line's body is the line without its "\n" and without one "\r" right before it (or before the end
# of the input); it is blank when the body holds only spaces and tabs. One search (RE2: linear time,
# no backtracking stack however long a run is) finds, in order, each run of blank lines (group 1)
# and the spaces and tabs that end the body of every other line (group 2, its line ending after it).
EVENT_RE = re2.compile(
    rb"(?m)(^(?:[ \t]*\r?\n)+(?:[ \t]*\r?\z)?"  # blank lines at a line start (the input's last one may lack its newline)
    rb"|^[ \t]*\r?\z)"  # or just that last line, blank and without a newline
    rb"|([ \t]+)(?:\r?\n|\r?\z)"  # the spaces and tabs that end the body of a line with words
)


def text_cuts_py(raw: bytes) -> tuple[array, array, int, int]:
    """The byte ranges the text type omits as whitespace, in order and merged where they touch:
    (starts, ends, trailing, blank).

    Of a run of blank lines the first stays (its spaces go as trailing whitespace) and the others go
    whole. The work is per match, never per line, and a million blank lines in a row are one match."""
    starts, ends = array("q"), array("q")
    trailing = blank = 0

    def cut(a: int, b: int) -> None:
        if ends and ends[-1] == a:
            ends[-1] = b
        else:
            starts.append(a)
            ends.append(b)

    n = len(raw)
    for m in EVENT_RE.finditer(raw):
        a, b = m.span(1)
        if a < 0:
            cut(*m.span(2))  # trailing whitespace of a line with words
            trailing += 1
            continue
        if a == b:  # the empty "line" after a final newline
            continue
        nl = raw.find(b"\n", a)
        first_end = n if nl < 0 else nl + 1  # the run's first line stays, newline included ...
        body_end = first_end - (raw[first_end - 1] == 0x0A)
        if body_end > a and raw[body_end - 1] == 0x0D:
            body_end -= 1
        if body_end > a:  # ... but not its spaces
            cut(a, body_end)
            trailing += 1
        if b > first_end:  # the other lines of the run go whole
            cut(first_end, b)
            blank += raw.count(b"\n", first_end, b) + (1 if b == n and raw[b - 1] != 0x0A else 0)
    return starts, ends, trailing, blank


def line_of_py(starts, offsets) -> array:
    """The line holding each offset (``bisect_right(starts, offset) - 1``; ``starts``: where each line
    starts), as int64."""
    return array("q", map(sub, map(bisect_right, repeat(starts), offsets), repeat(1)))


KEEP, SHOW, OMIT, MARK = 0, 1, 2, 3  # operators.reduction's piece kinds
NONE, WHITESPACE, REPEATS, TAGS = 0, 1, 2, 3  # a piece's object: none (kept), a group, the tags from 3 on


class _Stop(Exception):
    """A piece that does not continue the plan, or a shown text next to another: the caller's to write."""


class _Pieces:
    """The columns of the pieces written so far, as ``Plan.keep``, ``omit`` and ``show`` write them."""

    def __init__(self) -> None:
        self.kinds, self.starts, self.ends, self.codes = bytearray(), array("q"), array("q"), array("q")
        self.pos = self.first = self.used = 0

    def span(self, kind: int, a: int, b: int, code: int) -> None:
        if a != self.pos or b < a:
            raise _Stop
        self.pos = b
        if b == a:
            return
        if kind == OMIT:
            self.first = self.first or code
            self.used |= 1 << code
        if self.kinds and self.kinds[-1] == kind and self.ends[-1] == a and self.codes[-1] == code:
            self.ends[-1] = b
        else:
            self.push(kind, a, b, code)

    def show(self, code: int) -> None:
        if self.kinds and self.kinds[-1] == SHOW:
            raise _Stop
        self.push(SHOW, 0, 0, code)

    def push(self, kind: int, a: int, b: int, code: int) -> None:
        self.kinds.append(kind)
        self.starts.append(a)
        self.ends.append(b)
        self.codes.append(code)


def text_pieces_py(raw: bytes, run_starts, first_ends, run_ends, copies, periods, cut_starts, cut_ends, tags):
    """The text reducer's pieces for its whitespace cuts and folded runs, in order (see
    ``operators.types.text``): (kinds, starts, ends, codes, position, repeated copies, the group omitted
    first, the groups omitted as bits 1 << code); a piece's code is 0 for none, 1 or 2 for the whitespace
    or repeats group, 3 + ``tags[r]`` for the note of run r. None when a piece would not continue the plan
    or a shown text would stand next to another (the caller writes those with the plan's methods)."""
    out = _Pieces()
    n, cuts, repeated = len(raw), list(zip(cut_starts, cut_ends)), 0
    ci = 0
    try:
        for run in zip(chain(run_starts, [n]), chain(first_ends, [n]), chain(run_ends, [n]), chain(copies, [0]),
                       chain(periods, [0]), chain(tags, [0])):
            while ci < len(cuts) and cuts[ci][1] <= run[1]:  # the cuts before the run and in its first copy
                out.span(KEEP, out.pos, cuts[ci][0], NONE)
                out.span(OMIT, cuts[ci][0], cuts[ci][1], WHITESPACE)
                ci += 1
            if not run[3]:
                break
            _fold_run(out, raw, run)
            repeated += run[3] - 1
            while ci < len(cuts) and cuts[ci][0] < run[2]:  # cuts inside the folded copies: in the repeats ref
                ci += 1
    except _Stop:
        return None
    return bytes(out.kinds), out.starts, out.ends, out.codes, out.pos, repeated, out.first, out.used


def _fold_run(out: _Pieces, raw: bytes, run) -> None:
    start, first_end, end, _, lines, tag = run
    if lines == 1:  # the line's text, its note, its line end; the copies
        shown_end = first_end - 2 if raw[first_end - 2] == 0x0D and first_end - 1 > start else first_end - 1
        out.span(KEEP, out.pos, shown_end, NONE)
        out.show(TAGS + tag)
        out.span(KEEP, shown_end, first_end, NONE)
        out.span(OMIT, first_end, end, REPEATS)
    else:
        out.span(KEEP, out.pos, first_end, NONE)
        out.span(OMIT, first_end, end, REPEATS)
        out.show(TAGS + tag)


def blank_lines_py(text: bytes) -> array:
    """The indexes of the lines of ``text`` (split at ``\\n``; the empty piece after a final newline is no
    line) that ``bytes.strip`` empties, in order, as int64; split a block at a time."""
    out, line, pos, n = array("q"), 0, 0, len(text)
    while pos < n:
        stop = text.find(b"\n", min(pos + BLOCK_BYTES, n) - 1)
        stop = n if stop < 0 else stop + 1  # blocks end after a newline, or at the end
        pieces = text[pos:stop].split(b"\n")
        if text[stop - 1] == 0x0A:
            pieces.pop()  # after the block's last newline: nothing
        out.extend(line + k for k, piece in enumerate(pieces) if not piece.strip())
        line += len(pieces)
        pos = stop
    return out


_PLAIN_BYTES = bytes(range(0x20, 0x7F)) + b"\t\n"  # printable ASCII, tab, newline


def plain_text_py(buf: bytes, marker: bytes) -> int:
    """-1 when ``buf`` holds a byte other than printable ASCII, tab and newline; else whether it holds
    ``marker`` (1 or 0)."""
    if buf.translate(None, _PLAIN_BYTES):
        return -1
    return int(marker in buf)


def tier_order_py(tiers, ranks, itemsize: int, tier: int) -> tuple[array, int]:
    """The lines of ``tier`` (``tiers``: a tier a line) in rank order (``ranks``: an array, a rank a line;
    ``itemsize``: its bytes a rank, read by the kernel), in order within a rank, as int32 indexes; and
    how many of them lead with the first one's rank."""
    rank_of = ranks.__getitem__
    order = array("i", sorted(compress(range(len(tiers)), map(tier.__eq__, tiers)), key=rank_of))
    if not order:
        return order, 0
    first = rank_of(order[0])
    return order, next((k for k, line in enumerate(order) if rank_of(line) != first), len(order))


def render_view_py(raw: bytes, kinds, starts, ends, objs: list, placeholder: bytes) -> tuple[bytes, array] | None:
    """A plan's visible text (its columns: kept spans of ``raw``, shown texts, markers written as
    ``placeholder``, any other piece nothing) and where each piece starts in it, then its length
    (int64); None for a kept span outside ``raw`` or a shown text that is no bytes."""
    out, vstarts = [], array("q", [0])
    for kind, start, end, obj in zip(kinds, starts, ends, objs):
        if kind == KEEP:
            if not 0 <= start <= end <= len(raw):
                return None
            out.append(raw[start:end])
        elif kind == SHOW:
            if not isinstance(obj, bytes):
                return None
            out.append(obj)
        elif kind == MARK:
            out.append(placeholder)
        else:
            out.append(b"")
        vstarts.append(vstarts[-1] + len(out[-1]))
    return b"".join(out), vstarts
