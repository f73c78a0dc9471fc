"""Diff reducer: keep what changed and what tells the reader where; park unchanged context in one ref.

Kept verbatim, in place: every file header (``diff --git``, ``---``/``+++``, rename/copy from/to,
``new``/``deleted file mode``, ``new mode``, ``Binary files … differ``, ``GIT binary patch`` with its
``literal``/``delta`` lines), every hunk header, every ``+``/``-`` line, every ``\\ No newline at end of
file``, and anything that is not part of a diff (commit headers, messages, stat blocks, trailers).

Omitted, all into ONE coarse ref (group ``context``):

* git metadata with no decision value: ``index abc..def 100644``, ``old mode``, ``similarity index``,
  ``dissimilarity index`` (the rename/copy lines and ``new mode`` stay);
* unchanged context lines further than ``context_keep`` lines from a change, when at least two lines
  in a row can go; a hint line ``⋯ N unchanged lines`` stands where they were;
* the base85 data of ``GIT binary patch`` blocks (hint ``⋯ N lines of binary patch data``).

Hunks are walked by their line counts, so a removed line that reads ``--- a/x`` or ``diff --git`` is
still a changed line. Combined diffs (``diff --cc``, ``@@@``) work the same way with one prefix column
per parent. A hunk whose lines do not match its header is left as it is: nothing is cut from it.
One marker line at the end names the ref. A diff where cutting would save less than ``MIN_GAIN``
bytes net (hints and marker included) passes through untouched.
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate, islice, repeat
from operator import add

from operators.reduction import OMIT, SHOW, Plan, passthrough

GROUP = "context"
REASON = "unchanged diff context, git metadata and binary patch data"

OTHER, META, CTX, CHG, NONL, BIN = range(6)
ANCHORS = (CHG, NONL)
MIN_CUT = 2  # cut a context run only when at least this many lines can go
MIN_GAIN = 64  # bytes; a smaller net saving is not worth a ref and a marker: pass through

FILE_START_RE = re.compile(rb"diff (?:--git|--cc|--combined) ")
HUNK_RE = re.compile(rb"(@{2,}) ((?:-\d+(?:,\d+)? )+)\+(\d+)(?:,(\d+))? \1(?:[ \t]|$)")
RANGE_RE = re.compile(rb"-(\d+)(?:,(\d+))?")
META_RE = re.compile(
    rb"(?:index [0-9a-f]{4,}(?:,[0-9a-f]{4,})*\.\.[0-9a-f]{4,}(?: [0-7]{6})?"
    rb"|old mode [0-7]{6}|similarity index \d{1,3}%|dissimilarity index \d{1,3}%)$"
)
BINARY_DATA_RE = re.compile(rb"[A-Za-z][0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]*$")
BINARY_HUNK_RE = re.compile(rb"(?:literal|delta) \d+$")


def _lines(raw: bytes) -> tuple[array, list[bytes]]:
    """Line start offsets (plus the end of raw) and each line's body (no ``\\n``, no ``\\r`` before it).

    One C-level split and an int64 offset array: no per-line Python loop, no per-offset int object."""
    bodies = raw.split(b"\n")
    if bodies[-1] == b"":
        bodies.pop()  # raw ends with a newline (or is empty): no partial last line
    starts = array("q", [0])
    starts.extend(islice(accumulate(map(add, map(len, bodies), repeat(1)), initial=0), 1, None))
    if len(starts) > 1 and starts[-1] > len(raw):
        starts[-1] = len(raw)  # the last line has no newline
    if b"\r" in raw:
        bodies = [body[:-1] if body.endswith(b"\r") else body for body in bodies]
    return starts, bodies


def classify_lines(bodies: list[bytes]) -> list[int]:
    """The role of each line: OTHER (kept), META and BIN (omitted), CTX, CHG, NONL (hunk lines)."""
    kinds = [OTHER] * len(bodies)
    in_header = False  # between a ``diff --git`` line and its first hunk: git metadata lives here
    in_binary = False
    old: list[int] = []  # lines still expected from each parent in the current hunk
    new = 0
    width = 0  # prefix columns of the current hunk (1, or the number of parents of a combined diff)
    for i, body in enumerate(bodies):
        if width:
            if new > 0 or any(c > 0 for c in old):
                prefix = body[:width]
                if body.startswith(b"\\"):
                    kinds[i] = NONL
                    continue
                if len(prefix) < width and not prefix.strip(b" "):
                    prefix = b" " * width  # a blank context line whose spaces an editor stripped
                if len(prefix) == width and not prefix.strip(b" +-"):
                    kinds[i] = CTX if not prefix.strip(b" ") else CHG
                    for j, c in enumerate(prefix):
                        if c != 0x2B:  # '+': not in this parent
                            old[j] -= 1
                    if 0x2D not in prefix:  # '-': not in the result
                        new -= 1
                    continue
                width = 0  # the hunk does not match its header: leave the rest alone
            elif body.startswith(b"\\"):
                kinds[i] = NONL
                continue
            else:
                width = 0
        if FILE_START_RE.match(body):
            in_header, in_binary = True, False
            continue
        m = HUNK_RE.match(body)
        if m:
            ranges = RANGE_RE.findall(m.group(2))
            if len(ranges) == len(m.group(1)) - 1:
                old = [int(count) if count else 1 for _, count in ranges]
                new = int(m.group(4)) if m.group(4) is not None else 1
                width = len(ranges)
            in_header = in_binary = False
            continue
        if in_binary:
            if BINARY_HUNK_RE.match(body):
                continue
            if not body or BINARY_DATA_RE.match(body):
                kinds[i] = BIN
                continue
            in_binary = False
        if in_header:
            if body == b"GIT binary patch":
                in_binary = True
            elif META_RE.match(body):
                kinds[i] = META
    return kinds


def reduce_diff(raw: bytes, context_keep: int) -> Plan:
    starts, bodies = _lines(raw)
    kinds = classify_lines(bodies)
    n = len(kinds)
    keep_n = max(0, context_keep)
    plan = Plan(raw)
    cut_context = cut_meta = cut_binary = 0

    def ending(last: int) -> bytes:
        return b"\r\n" if raw[starts[last] : starts[last + 1]].endswith(b"\r\n") else b"\n"

    i = 0
    while i < n:
        kind = kinds[i]
        j = i + 1
        while j < n and kinds[j] == kind:
            j += 1
        if kind == CTX:
            head = keep_n if i > 0 and kinds[i - 1] in ANCHORS else 0
            tail = keep_n if j < n and kinds[j] in ANCHORS else 0
            if j < n and kinds[j] == NONL:
                tail = max(tail, 1)  # the line a "\ No newline" note is about
            a, b = i + head, j - tail
            hint = f"⋯ {b - a} unchanged lines".encode() + ending(b - 1) if b > a else b""
            if b - a >= MIN_CUT and starts[b] - starts[a] > len(hint):
                plan.keep(starts[i], starts[a])
                plan.omit(starts[a], starts[b], GROUP, REASON)
                plan.show(_after_newline(plan, hint))
                plan.keep(starts[b], starts[j])
                cut_context += b - a
            else:
                plan.keep(starts[i], starts[j])
        elif kind == META:
            plan.omit(starts[i], starts[j], GROUP, REASON)
            cut_meta += j - i
        elif kind == BIN:
            plan.omit(starts[i], starts[j], GROUP, REASON)
            plan.show(_after_newline(plan, f"⋯ {_count(j - i, 'line')} of binary patch data".encode() + ending(j - 1)))
            cut_binary += j - i
        else:
            plan.keep(starts[i], starts[j])
        i = j

    if plan.omits_anything:
        parts = []
        if cut_context:
            parts.append(_count(cut_context, "unchanged context line"))
        if cut_meta:
            parts.append(_count(cut_meta, "index/mode line"))
        if cut_binary:
            parts.append(_count(cut_binary, "line") + " of binary patch data")
        plan.show(_after_newline(plan, f"[diff: omitted {', '.join(parts)}; exact bytes: ".encode()))
        plan.mark(GROUP)
        plan.show(b"]\n")
        omitted = sum(piece[2] - piece[1] for piece in plan.pieces if piece[0] == OMIT)
        shown = sum(len(piece[1]) for piece in plan.pieces if piece[0] == SHOW) + len("#ref:ctx_000000")
        if omitted - shown < MIN_GAIN:
            return passthrough(raw)
    return plan.finish()


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _after_newline(plan: Plan, text: bytes) -> bytes:
    return text if plan.ends_line() else b"\n" + text


def reduce(raw: bytes, granularity: str, config) -> Plan:
    return reduce_diff(raw, config.diff.context_keep)
