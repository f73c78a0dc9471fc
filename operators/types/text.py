"""Text reducer: whitespace normalisation and folded repeats; every distinct line stays where it was.

* Trailing spaces and tabs at the end of a line go (the line ending itself stays, ``\\r\\n`` too).
* A run of blank (empty or whitespace-only) lines keeps its first line; the others go.
* A run of ``REPEAT_MIN`` or more identical lines keeps its first line, shown as ``line ×N``; a block
  of 2 to ``BLOCK_MAX`` lines repeated ``REPEAT_MIN`` or more times in a row keeps its first copy,
  followed by ``[the 3 lines above ×40]``. The copies go to one ref (group ``repeats``).

The whitespace goes into one ref (group ``whitespace``); each group is named by one marker line at
the end. A text with nothing (or too little) to normalise or fold passes through untouched: a marker
line that costs more than it saves is not worth a ref.

Speed and memory: one RE2 search over the bytes; Python sees each match (a run of blank lines is one),
and the cuts are two int64 columns, merged where they touch.
"""

from __future__ import annotations

from array import array
from itertools import chain

import re2

from operators import kernel
from operators.reduction import Plan, line_body_end, passthrough

GROUP = "whitespace"
REASON = "trailing whitespace and blank-line runs"
REPEATS, REPEATS_REASON = "repeats", "identical copies of repeated lines and blocks"
MIN_SAVING = 160  # bytes; below this the marker line (~70 bytes) eats most of the gain
REPEAT_MIN = 3  # a line or block seen this many times in a row is folded
BLOCK_MAX = 8  # lines in the longest repeated block looked for
BLOCK_WORK = 4_000_000  # line comparisons spent on blocks of 2+ lines (bounds the time on huge inputs)

# A line's body is the line without its "\n" and without one "\r" right before it (or before the end
# of the input); it is blank when the body holds only spaces and tabs. One search (RE2: linear time,
# no backtracking stack however long a run is) finds, in order, each run of blank lines (group 1)
# and the spaces and tabs that end the body of every other line (group 2, its line ending after it).
EVENT_RE = re2.compile(
    rb"(?m)(^(?:[ \t]*\r?\n)+(?:[ \t]*\r?\z)?"  # blank lines at a line start (the input's last one may lack its newline)
    rb"|^[ \t]*\r?\z)"  # or just that last line, blank and without a newline
    rb"|([ \t]+)(?:\r?\n|\r?\z)"  # the spaces and tabs that end the body of a line with words
)


def cuts_of(raw: bytes) -> tuple[array, array, int, int]:
    """The byte ranges to omit, in order and merged where they touch: (starts, ends, trailing, blank).

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
        first_end = _next_line(raw, a)  # the run's first line stays, newline included ...
        body_end = line_body_end(raw, a, first_end)
        if body_end > a:  # ... but not its spaces
            cut(a, body_end)
            trailing += 1
        if b > first_end:  # the other lines of the run go whole
            cut(first_end, b)
            blank += raw.count(b"\n", first_end, b) + (1 if b == n and raw[b - 1] != 0x0A else 0)
    return starts, ends, trailing, blank


def _next_line(raw: bytes, start: int) -> int:
    """Where the line after the one holding ``start`` begins (``len(raw)`` for the last)."""
    nl = raw.find(b"\n", start)
    return len(raw) if nl < 0 else nl + 1


def repeat_runs(raw: bytes) -> "Runs":
    """Each folded run, in order: (start, end of its first copy, end of the run, copies, lines per copy).

    A line or a block of up to ``BLOCK_MAX`` lines repeated ``REPEAT_MIN`` times or more in a row
    (blocks are looked for while that costs at most ``BLOCK_WORK`` line comparisons); runs are taken
    from the start, the shortest period first where two start together; blank blocks are left to the
    whitespace cut. Only whole lines (ending in ``\\n``) take part. One pass of the C kernel
    (``text_runs``; its twin ``operators.kernel.text_twins``: one split a block at a time)."""
    runs = Runs()
    # copied into arrays, the kernel's buffers freed at once: glibc then keeps the later big objects in
    # pages of their own (20 MB of text peaked 3 MB higher with the buffers kept to the end)
    runs.columns = tuple(array("q", column) for column in kernel.text_runs(raw, REPEAT_MIN, BLOCK_MAX, BLOCK_WORK))
    return runs


class Runs:
    """Folded runs in five int64 columns (a text of short repeated lines has a run every few lines);
    iterating gives each run as a tuple."""

    __slots__ = ("columns",)

    def __init__(self) -> None:
        self.columns = tuple(array("q") for _ in range(5))

    def __len__(self) -> int:
        return len(self.columns[0])

    def __iter__(self):
        return zip(*self.columns)


def reduce_text(raw: bytes) -> Plan:
    starts, ends, trailing, blank = cuts_of(raw)
    runs = repeat_runs(raw)
    folded = sum(end - first_end for _, first_end, end, _, _ in runs)
    saved = sum(ends) - sum(starts)
    if saved + folded < MIN_SAVING:
        return passthrough(raw)
    plan = Plan(raw)
    if folded < MIN_SAVING // 2:
        runs = Runs()  # not worth a second marker line
    elif saved < MIN_SAVING // 2:
        starts, ends = array("q"), array("q")
    cuts = iter(zip(starts, ends))
    cut = next(cuts, None)
    whitespace = repeated = 0
    tags: dict[tuple[int, int], bytes] = {}  # one shown " ×N" (or block note) object for every run alike
    for run_start, first_end, run_end, copies, lines in chain(runs, [(len(raw), len(raw), len(raw), 0, 0)]):
        while cut is not None and cut[1] <= first_end:  # the cuts before the run and in its first copy
            plan.keep(plan.position, cut[0])
            plan.omit(cut[0], cut[1], GROUP, REASON)
            whitespace += 1
            cut = next(cuts, None)
        if not copies:
            break
        _fold_run(plan, run_start, first_end, run_end, copies, lines, tags)
        repeated += copies - 1
        while cut is not None and cut[0] < run_end:  # cuts inside the folded copies: in the repeats ref
            cut = next(cuts, None)
    plan.keep_rest()
    lead = b"" if plan.ends_line() else b"\n"
    if GROUP in plan.reasons:
        plan.show(lead + f"[whitespace normalised ({trailing} trailing, {blank} blank lines); original: ".encode())
        plan.mark(GROUP)
        plan.show(b"]\n")
        lead = b""
    if REPEATS in plan.reasons:
        plan.show(lead + f"[{repeated:,} repeated copies folded (×N: N identical copies in a row); exact lines: ".encode())
        plan.mark(REPEATS)
        plan.show(b"]\n")
    return plan.finish()


def _fold_run(plan: Plan, run_start: int, first_end: int, run_end: int, copies: int, lines: int,
              tags: dict[tuple[int, int], bytes]) -> None:
    """Keep the first copy of a run (a line shown as ``line ×N``), omit the others. ``tags``: the
    shown texts made so far, by (lines, copies): a plan holds one object for all the runs alike."""
    raw = plan.raw
    tag = tags.get((lines, copies))
    if tag is None:
        tag = tags[lines, copies] = (f" ×{copies}" if lines == 1 else f"[the {lines} lines above ×{copies}]\n").encode()
    if lines == 1:
        body_end = line_body_end(raw, run_start, first_end)
        plan.keep(plan.position, body_end)
        plan.show(tag)
        plan.keep(body_end, first_end)
        plan.omit(first_end, run_end, REPEATS, REPEATS_REASON)
    else:
        plan.keep(plan.position, first_end)
        plan.omit(first_end, run_end, REPEATS, REPEATS_REASON)
        plan.show(tag)


def reduce(raw: bytes, granularity: str, config) -> Plan:
    return reduce_text(raw)


# -- the content type ----------------------------------------------------------------------------
NAME = "text"
SIGNALS = "lines"
FILL = True  # cut to a budget, its every line is content: the head and tail fill what the ranked lines leave


def detect(sample) -> str | None:
    return "no stronger type matched"  # the last type: takes everything
