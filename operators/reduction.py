"""Reduction plans: how a reducer says what to keep, what to omit and what to show instead.

A reducer never builds the visible text itself. It walks the raw bytes in order and calls
``keep(start, end)`` (shown verbatim) or ``omit(start, end, group, reason)`` (parked in the ref of
``group``), and may add synthetic text with ``show(text)`` or the marker of a group with
``mark(group)``. Every raw byte is covered exactly once, in order; ``finish`` checks that.

From a finished plan, ``omissions`` gives each group's exact bytes (one ref each) and ``render``
gives the visible bytes plus a *layout*: the recipe that rebuilds the original from the visible
bytes and the refs. The layout and the real marker positions go into the packet manifest, so text
in the input that merely looks like a marker can never be confused with a real one.

Memory: a plan lives as long as its packet, and a diff or a ``fine`` log makes a piece every few
lines, so ``Pieces`` keeps them in columns (about 25 bytes a piece) and hands out lists only when
read. ``omissions`` and ``render`` add up the size first and write into one buffer of that size
(``_buffer``) rather than joining a list of slices, which would cost an object per piece on top of
the bytes.
"""

from __future__ import annotations

import io
import re
from array import array
from bisect import bisect_right
from itertools import accumulate, compress
from operator import sub

import msgspec

from operators.errors import InvariantError

KEEP, SHOW, OMIT, MARK = 0, 1, 2, 3
_MARK_FLAGS = bytes(kind == MARK for kind in range(256))  # a piece's kind -> 1 for a marker
_SPAN_FLAGS = bytes(kind in (KEEP, OMIT) for kind in range(256))  # ... for a piece of the input's bytes (``extend``)
FROM_VISIBLE, FROM_REF = 0, 1


class PlanError(InvariantError):
    """A reducer produced a plan that does not cover the raw bytes exactly once (exit status 3)."""


def marker_bytes(ref_id: str) -> bytes:
    return b"#ref:" + ref_id.encode("ascii")


class Pieces:
    """A plan's pieces, read as a list of ``[KEEP, start, end]``, ``[OMIT, start, end, group]``,
    ``[SHOW, text]`` and ``[MARK, group]`` lists, stored in four columns: a kind byte, two int64
    spans and one object (``None``, the group or the text) a piece.

    About 25 bytes a piece instead of about 140 for a list and its ints: a diff or a ``fine`` log
    makes one piece every few lines, and the plan lives as long as its packet. Indexing and iteration
    build the lists on the fly, so changing a list read from here changes nothing; ``append`` and
    ``insert`` take such lists."""

    __slots__ = ("kinds", "starts", "ends", "objs")

    def __init__(self) -> None:
        self.kinds = bytearray()
        self.starts = array("q")
        self.ends = array("q")
        self.objs: list = []

    @staticmethod
    def _columns(piece) -> tuple[int, int, int, object]:
        kind = piece[0]
        if kind == KEEP:
            return KEEP, piece[1], piece[2], None
        if kind == OMIT:
            return OMIT, piece[1], piece[2], piece[3]
        return kind, 0, 0, piece[1]

    @staticmethod
    def _piece(kind: int, start: int, end: int, obj) -> list:
        if kind == KEEP:
            return [KEEP, start, end]
        if kind == OMIT:
            return [OMIT, start, end, obj]
        return [kind, obj]

    def append(self, piece) -> None:
        kind, start, end, obj = self._columns(piece)
        self.kinds.append(kind)
        self.starts.append(start)
        self.ends.append(end)
        self.objs.append(obj)

    def insert(self, index: int, piece) -> None:
        kind, start, end, obj = self._columns(piece)
        self.kinds.insert(index, kind)
        self.starts.insert(index, start)
        self.ends.insert(index, end)
        self.objs.insert(index, obj)

    def __len__(self) -> int:
        return len(self.kinds)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._piece(self.kinds[index], self.starts[index], self.ends[index], self.objs[index])

    def __iter__(self):  # the lists built inline, not by _piece: twice as fast
        for kind, start, end, obj in zip(self.kinds, self.starts, self.ends, self.objs):
            if kind == KEEP:
                yield [KEEP, start, end]
            elif kind == OMIT:
                yield [OMIT, start, end, obj]
            else:
                yield [kind, obj]

    def __eq__(self, other) -> bool:
        if isinstance(other, Pieces):
            return (self.kinds, self.starts, self.ends, self.objs) == (other.kinds, other.starts, other.ends, other.objs)
        return list(self) == other

    def __repr__(self) -> str:
        return repr(list(self))


class Plan:
    __slots__ = ("raw", "pieces", "reasons", "_pos")

    def __init__(self, raw: bytes):
        self.raw = raw
        self.pieces = Pieces()
        self.reasons: dict[str, str] = {}  # group -> reason, in order of first omission
        self._pos = 0

    @property
    def position(self) -> int:
        return self._pos

    def keep(self, start: int, end: int) -> None:
        if start != self._pos or end < start or end > len(self.raw):  # _advance and _span inline:
            self._advance(start, end)  # (raises)         # a reducer calls this every few lines
        self._pos = end
        if end != start:
            pieces = self.pieces
            kinds, ends = pieces.kinds, pieces.ends
            if kinds and kinds[-1] == KEEP and ends[-1] == start:  # a kept piece's group is None
                ends[-1] = end
            else:
                kinds.append(KEEP)
                pieces.starts.append(start)
                ends.append(end)
                pieces.objs.append(None)

    def omit(self, start: int, end: int, group: str, reason: str) -> None:
        if start != self._pos or end < start or end > len(self.raw):  # as in keep
            self._advance(start, end)  # (raises)
        self._pos = end
        if end != start:
            if group not in self.reasons:
                self.reasons[group] = reason
            pieces = self.pieces
            kinds, ends, objs = pieces.kinds, pieces.ends, pieces.objs
            if kinds and kinds[-1] == OMIT and ends[-1] == start and objs[-1] == group:  # lengthen the last piece
                ends[-1] = end
            else:
                kinds.append(OMIT)
                pieces.starts.append(start)
                ends.append(end)
                objs.append(group)

    def extend(self, kinds: bytes, starts, ends, objs) -> None:
        """Pieces appended as given, in columns (``kinds``: ``KEEP``, ``OMIT`` or ``SHOW``; ``objs``: None,
        the group, or the text shown): the first kept or omitted one continues where the plan is and
        each the one before; the caller sees to it that none would have joined the one before it
        (``keep``, ``omit`` and ``show`` join them) and that each group is in ``reasons`` already."""
        if not kinds:
            return
        spans = kinds.translate(_SPAN_FLAGS)
        first = spans.find(1)
        if first >= 0 and starts[first] != self._pos:
            raise PlanError(f"piece {starts[first]}:{ends[first]} does not continue at {self._pos}")
        pieces = self.pieces
        pieces.kinds.extend(kinds)
        pieces.starts.extend(starts)
        pieces.ends.extend(ends)
        pieces.objs.extend(objs)
        if first >= 0:
            self._pos = ends[spans.rfind(1)]

    def show(self, text: bytes) -> None:
        if not text:
            return
        pieces = self.pieces
        if pieces.kinds and pieces.kinds[-1] == SHOW:
            pieces.objs[-1] += text
        else:  # Pieces.append's columns, inline
            pieces.kinds.append(SHOW)
            pieces.starts.append(0)
            pieces.ends.append(0)
            pieces.objs.append(text)

    def mark(self, group: str) -> None:
        self.pieces.append([MARK, group])

    def keep_rest(self) -> "Plan":
        self.keep(self._pos, len(self.raw))
        return self

    def finish(self) -> "Plan":
        if self._pos != len(self.raw):
            raise PlanError(f"plan covers {self._pos} of {len(self.raw)} bytes")
        pieces = self.pieces
        for group in compress(pieces.objs, pieces.kinds.translate(_MARK_FLAGS)):  # the markers only
            if group not in self.reasons:
                raise PlanError(f"marker for group {group!r} that omits nothing")
        return self

    def _advance(self, start: int, end: int) -> None:
        if start != self._pos or end < start or end > len(self.raw):
            raise PlanError(f"piece {start}:{end} does not continue at {self._pos}")
        self._pos = end

    def ends_line(self) -> bool:
        """Whether what is shown so far ends with a newline (or nothing is shown yet)."""
        pieces = self.pieces
        for i in range(len(pieces) - 1, -1, -1):
            kind = pieces.kinds[i]
            if kind == KEEP:
                end = pieces.ends[i]
                return self.raw[end - 1 : end] == b"\n"
            if kind == SHOW:
                return pieces.objs[i].endswith(b"\n")
            if kind == MARK:
                return False
        return True

    @property
    def omits_anything(self) -> bool:
        return bool(self.reasons)


def line_body_end(raw: bytes, start: int, line_end: int) -> int:
    """Where the text of the line ``raw[start:line_end]`` ends: before its ``\n`` or ``\r\n``."""
    body_end = line_end
    if raw[body_end - 1 : body_end] == b"\n":
        body_end -= 1
    if raw[body_end - 1 : body_end] == b"\r" and body_end > start:
        body_end -= 1
    return body_end


def line_spans(raw: bytes, a: int = 0, b: int | None = None):
    """(start, end of its text, end) of each line in ``raw[a:b]`` (``a`` at a line start; the text
    ends before ``\n`` or ``\r\n``, ``line_body_end``)."""
    b = len(raw) if b is None else b
    while a < b:
        nl = raw.find(b"\n", a, b)
        end = b if nl < 0 else nl + 1
        yield a, line_body_end(raw, a, end), end
        a = end


def passthrough(raw: bytes) -> Plan:
    return Plan(raw).keep_rest().finish()


def _buffer(size: int) -> io.BytesIO:
    """A buffer for bytes whose total is known. ``BytesIO`` takes ``bytes(size)`` (zero pages, not
    resident until written) as its own buffer, writes land in place and ``_value`` hands the same
    object over: the result exists once, with no growth copies and no list of slices to join."""
    return io.BytesIO(bytes(size))


def _value(buf: io.BytesIO) -> bytes:
    buf.truncate()  # what was written, even if the size given to _buffer was too big
    return buf.getvalue()


class Spans:
    """A group's omitted bytes as spans of the raw input, in order, not joined: what a big ref holds
    between OPTIMIZE and the end of the packet. The store hashes and writes it part by part, and the
    checks compare part by part, so an omission costs 16 bytes a span instead of a copy of its bytes.

    ``parts()`` yields each span as a memoryview of the raw bytes; ``bytes(spans)`` joins them (done
    only for small refs); ``view(offset, length)`` is a view of that many bytes from that offset (a
    copy of those bytes only when they straddle two spans)."""

    __slots__ = ("raw", "starts", "ends", "offsets")

    def __init__(self, raw: bytes, starts: array, ends: array):
        self.raw, self.starts, self.ends = raw, starts, ends
        # where each span starts in the content, and the total
        self.offsets = array("q", accumulate(map(sub, ends, starts), initial=0))

    def parts(self):
        raw = memoryview(self.raw)
        return (raw[start:end] for start, end in zip(self.starts, self.ends))

    def chunks(self):
        """The content as ``parts()`` has it, but spans under ``SPAN_ALONE`` bytes copied one after
        another into blocks of about ``CHUNK`` bytes: many small spans (the lines of one rule among
        others') are hashed, written and compared a block at a time rather than a call a span; a span
        of ``SPAN_ALONE`` bytes or more stays a view of the input (a call per 64 KiB or more costs
        nothing next to its bytes: a log's folded runs between its shown lines are never copied)."""
        view, out = memoryview(self.raw), bytearray()
        for start, end in zip(self.starts, self.ends):
            if end - start >= SPAN_ALONE:
                if out:
                    yield out
                    out = bytearray()
                yield view[start:end]
            else:
                out += view[start:end]  # one copy: no bytes object of the span in between
                if len(out) >= CHUNK:
                    yield out
                    out = bytearray()
        if out:
            yield out

    def __len__(self) -> int:
        return self.offsets[-1]

    def __bytes__(self) -> bytes:
        return b"".join(self.parts())

    def view(self, offset: int, length: int):
        i = bisect_right(self.offsets, offset) - 1
        if 0 <= i < len(self.starts):
            start = self.starts[i] + offset - self.offsets[i]
            if start + length <= self.ends[i]:
                return memoryview(self.raw)[start : start + length]
        if offset < 0 or length < 0:
            return bytes(self)[offset : offset + length]
        return self._copy(max(i, 0), offset, length)  # straddles spans: a copy of these bytes alone

    def _copy(self, i: int, offset: int, length: int) -> bytes:
        """``length`` bytes (fewer at the end) from ``offset``, which lies in span ``i`` or after it."""
        out = _buffer(max(0, min(length, len(self) - offset)))
        raw, starts, ends, offsets = memoryview(self.raw), self.starts, self.ends, self.offsets
        end = offset + length
        while i < len(starts) and offsets[i] < end:
            out.write(raw[starts[i] + max(0, offset - offsets[i]) : min(ends[i], starts[i] + end - offsets[i])])
            i += 1
        return _value(out)

    def __eq__(self, other) -> bool:
        return bytes(self) == (bytes(other) if isinstance(other, Spans) else other)

    def __repr__(self) -> str:
        return f"Spans({len(self.starts)} spans, {len(self)} bytes)"


def parts_of(content):
    """The buffers that make up a ref's content, bytes or ``Spans`` (``Spans.chunks``), in order."""
    return content.chunks() if isinstance(content, Spans) else (content,)


CHUNK = 1 << 20  # bytes of a ref's small spans joined into one block (``Spans.chunks``)
SPAN_ALONE = 1 << 16  # bytes from which a ref's span is hashed, written and compared as a view of its own
SHARE_MIN = 1 << 16  # bytes from which omissions(share=True) gives views instead of a copy


def omissions(plan: Plan, share: bool = False) -> dict:
    """Each group's omitted bytes, concatenated in original order.

    ``share``: a group of ``SHARE_MIN`` bytes or more comes back as ``Spans``, views of the raw bytes
    instead of a copy (a log's folded lines, a JSON document's big array); smaller groups are bytes."""
    pieces = plan.pieces
    columns = pieces.kinds, pieces.starts, pieces.ends, pieces.objs
    sizes = dict.fromkeys(plan.reasons, 0)
    for kind, start, end, group in zip(*columns):
        if kind == OMIT:
            sizes[group] += end - start
    shared = {group: (array("q"), array("q")) for group, size in sizes.items() if share and size >= SHARE_MIN}
    out = {group: _buffer(size) for group, size in sizes.items() if group not in shared}
    raw = memoryview(plan.raw)  # slices without copies
    for kind, start, end, group in zip(*columns):
        if kind == OMIT:
            if group in shared:
                starts, ends = shared[group]
                starts.append(start)
                ends.append(end)
            else:
                out[group].write(raw[start:end])
    return {group: Spans(plan.raw, *shared[group]) if group in shared else _value(out[group]) for group in sizes}


class Layout:
    """The recipe that rebuilds the original from the visible bytes and the refs, in order:
    ``[FROM_VISIBLE, visible_offset, length]`` and ``[FROM_REF, ref_index, ref_offset, length]``.

    Kept in four columns (about 25 bytes an entry instead of about 150 for a list of ints): a diff
    makes an entry every few lines, and the layout is built for the manifest and read back by
    RESTORE. Reads as a list of such lists. ``to_json`` gives the manifest's text, the same text a
    list of lists encodes to (``[[0,0,12],[1,0,0,40]]``); ``from_json`` reads it back entry by entry."""

    __slots__ = ("kinds", "a", "b", "c")

    def __init__(self) -> None:
        self.kinds = bytearray()
        self.a, self.b, self.c = array("q"), array("q"), array("q")

    def add_visible(self, offset: int, length: int) -> None:
        """Append, or lengthen the last entry when it ends right before ``offset``."""
        if self.kinds and self.kinds[-1] == FROM_VISIBLE and self.a[-1] + self.b[-1] == offset:
            self.b[-1] += length
        else:
            self._append(FROM_VISIBLE, offset, length, 0)

    def add_ref(self, index: int, offset: int, length: int) -> None:
        if self.kinds and self.kinds[-1] == FROM_REF and self.a[-1] == index and self.b[-1] + self.c[-1] == offset:
            self.c[-1] += length
        else:
            self._append(FROM_REF, index, offset, length)

    def _append(self, kind: int, a: int, b: int, c: int) -> None:
        self.kinds.append(kind)
        self.a.append(a)
        self.b.append(b)
        self.c.append(c)

    def kept_bytes(self) -> int:
        """Bytes of the original shown as they are (the lengths of the FROM_VISIBLE entries)."""
        return sum(length for kind, length in zip(self.kinds, self.b) if kind == FROM_VISIBLE)

    def __len__(self) -> int:
        return len(self.kinds)

    def __iter__(self):
        for kind, a, b, c in zip(self.kinds, self.a, self.b, self.c):
            yield [FROM_VISIBLE, a, b] if kind == FROM_VISIBLE else [FROM_REF, a, b, c]

    def __getitem__(self, i: int) -> list[int]:
        kind = self.kinds[i]
        return [FROM_VISIBLE, self.a[i], self.b[i]] if kind == FROM_VISIBLE else [FROM_REF, self.a[i], self.b[i], self.c[i]]

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def __repr__(self) -> str:
        return f"Layout({list(self)!r})"

    def to_json(self) -> bytes:
        out = io.BytesIO()
        out.write(b"[")
        batch: list[bytes] = []
        sep = b""  # before each batch but the first
        for kind, a, b, c in zip(self.kinds, self.a, self.b, self.c):
            batch.append(b"[0,%d,%d]" % (a, b) if kind == FROM_VISIBLE else b"[1,%d,%d,%d]" % (a, b, c))
            if len(batch) == 4096:  # joined in batches: no list of every entry's text
                out.write(sep)
                out.write(b",".join(batch))
                sep = b","
                batch.clear()
        if batch:
            out.write(sep)
            out.write(b",".join(batch))
        out.write(b"]")
        return out.getvalue()  # the buffer itself: no copy of the whole text

    @classmethod
    def from_json(cls, data: bytes) -> "Layout":
        """Read the manifest's layout text; ValueError when it is not a list of valid entries."""
        layout = cls()
        if data[:1] == b"[" and data[-1:] == b"]":
            match, pos, end = _LAYOUT_ENTRY.match, 1, len(data) - 1
            while pos < end:
                m = match(data, pos)
                if m is None:
                    break
                if m.group(1) is not None:
                    layout._append(FROM_VISIBLE, int(m.group(1)), int(m.group(2)), 0)
                else:
                    layout._append(FROM_REF, int(m.group(3)), int(m.group(4)), int(m.group(5)))
                pos = m.end()
                if pos < end:
                    if data[pos] != 0x2C or pos + 1 == end:  # a comma, then another entry
                        break
                    pos += 1
            else:
                if pos == end:  # every entry read, and the closing bracket is the outer one
                    return layout
        return cls._from_lists(data)  # other spacing, or not a layout at all

    @classmethod
    def _from_lists(cls, data: bytes) -> "Layout":
        try:
            entries = msgspec.json.decode(data, type=list[list[int]])
        except msgspec.DecodeError as exc:
            raise ValueError(f"bad layout: {exc}") from None
        return cls.from_lists(entries)

    @classmethod
    def from_lists(cls, entries) -> "Layout":
        """From ``[kind, …]`` lists; ValueError for an entry that is not one of the two kinds."""
        layout = cls()
        for entry in entries:
            if len(entry) == 3 and entry[0] == FROM_VISIBLE and min(entry) >= 0:
                layout._append(FROM_VISIBLE, entry[1], entry[2], 0)
            elif len(entry) == 4 and entry[0] == FROM_REF and min(entry) >= 0:
                layout._append(FROM_REF, entry[1], entry[2], entry[3])
            else:
                raise ValueError(f"bad layout entry {entry!r}")
        return layout


_LAYOUT_ENTRY = re.compile(rb"\[0,(\d+),(\d+)\]|\[1,(\d+),(\d+),(\d+)\]")


def render(plan: Plan, ids: dict[str, str]) -> tuple[bytes, "Layout", list[list[int]]]:
    """Visible bytes, the layout to restore the original, and the real marker positions.

    Layout entries: ``[FROM_VISIBLE, visible_offset, length]`` or
    ``[FROM_REF, ref_index, ref_offset, length]`` where ref_index follows ``plan.reasons`` order.
    Markers: ``[visible_offset, ref_index]``.
    """
    index = {group: i for i, group in enumerate(plan.reasons)}
    ref_offset = [0] * len(index)
    pieces = plan.pieces
    columns = pieces.kinds, pieces.starts, pieces.ends, pieces.objs
    size = 0
    for kind, start, end, obj in zip(*columns):
        if kind == KEEP:
            size += end - start
        elif kind == SHOW:
            size += len(obj)
        elif kind == MARK:
            size += len(marker_bytes(ids[obj]))
    out = _buffer(size)
    raw = memoryview(plan.raw)  # kept spans are written straight from the input
    layout = Layout()
    markers: list[list[int]] = []
    vis = 0
    for kind, start, end, obj in zip(*columns):
        if kind == KEEP:
            length = end - start
            out.write(raw[start:end])
            layout.add_visible(vis, length)
            vis += length
        elif kind == OMIT:
            i = index[obj]
            length = end - start
            layout.add_ref(i, ref_offset[i], length)
            ref_offset[i] += length
        elif kind == SHOW:
            out.write(obj)
            vis += len(obj)
        else:  # MARK
            text = marker_bytes(ids[obj])
            markers.append([vis, index[obj]])
            out.write(text)
            vis += len(text)
    return _value(out), layout, markers


def restores_to(original: bytes, visible: bytes, layout, ref_contents: list) -> bool:
    """Whether the layout rebuilds ``original``, compared piece by piece (no rebuilt copy), with
    every byte of every ref used once, in order: a ref is exactly the bytes it stands for.

    ``ref_contents``: bytes, or ``Spans`` as made by ``omissions(share=True)``."""
    vis = memoryview(visible)
    refs = [content if isinstance(content, Spans) else memoryview(content) for content in ref_contents]
    if not isinstance(layout, Layout):
        layout = Layout.from_lists(layout)
    used = [0] * len(refs)  # each ref is read in order, from its first byte to its last
    span_at = [0] * len(refs)  # for Spans: the span holding the ref's next byte (read in order: no search)
    raws = [memoryview(ref.raw) if isinstance(ref, Spans) else None for ref in refs]
    pos = 0
    for kind, a, b, c in zip(layout.kinds, layout.a, layout.b, layout.c):
        if kind == FROM_VISIBLE:
            piece = vis[a : a + b]
        else:
            if not 0 <= a < len(refs) or b != used[a]:
                return False
            ref = refs[a]
            if isinstance(ref, Spans):
                offsets, i = ref.offsets, span_at[a]
                while i + 1 < len(offsets) and offsets[i + 1] <= b:
                    i += 1
                span_at[a] = i
                if i + 1 < len(offsets) and b + c <= offsets[i + 1]:  # within one span: a view of the input
                    start = ref.starts[i] + b - offsets[i]
                    piece = raws[a][start : start + c]
                else:
                    piece = ref.view(b, c)  # across spans (a copy), or past the end
            else:
                piece = ref[b : b + c]
            if len(piece) != c:
                return False
            used[a] += c
        # bytes.startswith compares with memcmp; memoryview == memoryview goes element by element
        if not original.startswith(piece, pos):
            return False
        pos += len(piece)
    # the original rebuilt, and no ref holds a byte that is not part of it
    return pos == len(original) and used == [len(ref) for ref in refs]


def restore(visible: bytes, layout: list[list[int]], ref_contents: list[bytes]) -> bytes:
    """Rebuild the original from visible bytes, the layout and the refs' contents."""
    out: list[bytes] = []
    for entry in layout:
        if entry[0] == FROM_VISIBLE:
            out.append(visible[entry[1] : entry[1] + entry[2]])
        else:
            content = ref_contents[entry[1]]
            out.append(content[entry[2] : entry[2] + entry[3]])
    return b"".join(out)


def size_text(n: int, kb_digits: int = 1) -> str:
    """A number of bytes as a reader sees it in a shown line: ``512 B``, ``56 KB`` (``kb_digits``
    decimals), ``1.2 MB``."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.{kb_digits}f} KB"
    return f"{n / (1024 * 1024):.1f} MB"
