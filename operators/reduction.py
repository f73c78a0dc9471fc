"""Reduction plans: how a reducer says what to keep, what to omit and what to show instead.

A reducer never builds the visible text itself. It walks the raw bytes in order and calls
``keep(start, end)`` (shown verbatim) or ``omit(start, end, group, reason)`` (parked in the ref of
``group``), and may add synthetic text with ``show(text)`` or the marker of a group with
``mark(group)``. Every raw byte is covered exactly once, in order; ``finish`` checks that.

From a finished plan, ``omissions`` gives each group's exact bytes (one ref each) and ``render``
gives the visible bytes plus a *layout*: the recipe that rebuilds the original from the visible
bytes and the refs. The layout and the real marker positions go into the packet manifest, so text
in the input that merely looks like a marker can never be confused with a real one.
"""

from __future__ import annotations

KEEP, SHOW, OMIT, MARK = 0, 1, 2, 3
FROM_VISIBLE, FROM_REF = 0, 1


class PlanError(ValueError):
    """A reducer produced a plan that does not cover the raw bytes exactly once."""


def marker_bytes(ref_id: str) -> bytes:
    return b"#ref:" + ref_id.encode("ascii")


class Plan:
    __slots__ = ("raw", "pieces", "reasons", "_pos")

    def __init__(self, raw: bytes):
        self.raw = raw
        self.pieces: list[list] = []
        self.reasons: dict[str, str] = {}  # group -> reason, in order of first omission
        self._pos = 0

    @property
    def position(self) -> int:
        return self._pos

    def keep(self, start: int, end: int) -> None:
        self._advance(start, end)
        if end == start:
            return
        last = self.pieces[-1] if self.pieces else None
        if last is not None and last[0] == KEEP and last[2] == start:
            last[2] = end
        else:
            self.pieces.append([KEEP, start, end])

    def omit(self, start: int, end: int, group: str, reason: str) -> None:
        self._advance(start, end)
        if end == start:
            return
        self.reasons.setdefault(group, reason)
        last = self.pieces[-1] if self.pieces else None
        if last is not None and last[0] == OMIT and last[2] == start and last[3] == group:
            last[2] = end
        else:
            self.pieces.append([OMIT, start, end, group])

    def show(self, text: bytes) -> None:
        if not text:
            return
        last = self.pieces[-1] if self.pieces else None
        if last is not None and last[0] == SHOW:
            last[1] += text
        else:
            self.pieces.append([SHOW, text])

    def mark(self, group: str) -> None:
        self.pieces.append([MARK, group])

    def keep_rest(self) -> "Plan":
        self.keep(self._pos, len(self.raw))
        return self

    def finish(self) -> "Plan":
        if self._pos != len(self.raw):
            raise PlanError(f"plan covers {self._pos} of {len(self.raw)} bytes")
        for piece in self.pieces:
            if piece[0] == MARK and piece[1] not in self.reasons:
                raise PlanError(f"marker for group {piece[1]!r} that omits nothing")
        return self

    def _advance(self, start: int, end: int) -> None:
        if start != self._pos or end < start or end > len(self.raw):
            raise PlanError(f"piece {start}:{end} does not continue at {self._pos}")
        self._pos = end

    def ends_line(self) -> bool:
        """Whether what is shown so far ends with a newline (or nothing is shown yet)."""
        for piece in reversed(self.pieces):
            if piece[0] == KEEP:
                return self.raw[piece[2] - 1 : piece[2]] == b"\n"
            if piece[0] == SHOW:
                return piece[1].endswith(b"\n")
            if piece[0] == MARK:
                return False
        return True

    @property
    def omits_anything(self) -> bool:
        return bool(self.reasons)


def passthrough(raw: bytes) -> Plan:
    return Plan(raw).keep_rest().finish()


def omissions(plan: Plan) -> dict[str, bytes]:
    """Each group's omitted bytes, concatenated in original order."""
    parts: dict[str, list[memoryview]] = {group: [] for group in plan.reasons}
    raw = memoryview(plan.raw)  # slices without copies: the join below is the only copy
    for piece in plan.pieces:
        if piece[0] == OMIT:
            parts[piece[3]].append(raw[piece[1] : piece[2]])
    return {group: b"".join(chunks) for group, chunks in parts.items()}


def render(plan: Plan, ids: dict[str, str]) -> tuple[bytes, list[list[int]], list[list[int]]]:
    """Visible bytes, the layout to restore the original, and the real marker positions.

    Layout entries: ``[FROM_VISIBLE, visible_offset, length]`` or
    ``[FROM_REF, ref_index, ref_offset, length]`` where ref_index follows ``plan.reasons`` order.
    Markers: ``[visible_offset, ref_index]``.
    """
    index = {group: i for i, group in enumerate(plan.reasons)}
    ref_offset = [0] * len(index)
    raw = memoryview(plan.raw)  # kept spans are joined straight from the input, not copied twice
    out: list[bytes | memoryview] = []
    layout: list[list[int]] = []
    markers: list[list[int]] = []
    vis = 0
    for piece in plan.pieces:
        kind = piece[0]
        if kind == KEEP:
            length = piece[2] - piece[1]
            out.append(raw[piece[1] : piece[2]])
            last = layout[-1] if layout else None
            if last is not None and last[0] == FROM_VISIBLE and last[1] + last[2] == vis:
                last[2] += length
            else:
                layout.append([FROM_VISIBLE, vis, length])
            vis += length
        elif kind == OMIT:
            i = index[piece[3]]
            length = piece[2] - piece[1]
            last = layout[-1] if layout else None
            if last is not None and last[0] == FROM_REF and last[1] == i and last[2] + last[3] == ref_offset[i]:
                last[3] += length
            else:
                layout.append([FROM_REF, i, ref_offset[i], length])
            ref_offset[i] += length
        elif kind == SHOW:
            out.append(piece[1])
            vis += len(piece[1])
        else:  # MARK
            text = marker_bytes(ids[piece[1]])
            markers.append([vis, index[piece[1]]])
            out.append(text)
            vis += len(text)
    return b"".join(out), layout, markers


def restores_to(original: bytes, visible: bytes, layout: list[list[int]], ref_contents: list[bytes]) -> bool:
    """Whether the layout rebuilds ``original``, compared piece by piece (no rebuilt copy)."""
    vis = memoryview(visible)
    refs = [memoryview(content) for content in ref_contents]
    pos = 0
    for entry in layout:
        if entry[0] == FROM_VISIBLE:
            piece = vis[entry[1] : entry[1] + entry[2]]
        else:
            piece = refs[entry[1]][entry[2] : entry[2] + entry[3]]
        # bytes.startswith compares with memcmp; memoryview == memoryview goes element by element
        if not original.startswith(piece, pos):
            return False
        pos += len(piece)
    return pos == len(original)


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
