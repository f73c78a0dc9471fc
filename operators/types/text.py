"""Text reducer: whitespace normalisation and folded repeats; every distinct line stays where it was.

* Trailing spaces and tabs at the end of a line go (the line ending itself stays, ``\\r\\n`` too).
* A run of blank (empty or whitespace-only) lines keeps its first line; the others go.
* A run of ``REPEAT_MIN`` or more identical lines keeps its first line, shown as ``line ×N``; a block
  of 2 to ``BLOCK_MAX`` lines repeated ``REPEAT_MIN`` or more times in a row keeps its first copy,
  followed by ``[the 3 lines above ×40]``. The copies go to one ref (group ``repeats``).

The whitespace goes into one ref (group ``whitespace``); each group is named by one marker line at
the end. A text with nothing (or too little) to normalise or fold passes through untouched: a marker
line that costs more than it saves is not worth a ref.

Speed and memory: one pass of the C kernel over the bytes for each of the whitespace cuts and the
repeated runs; the cuts are two int64 columns, merged where they touch.
"""

from __future__ import annotations

from array import array
from itertools import chain, repeat
from operator import add, mul

from operators import kernel
from operators.reduction import Plan, line_body_end, passthrough

GROUP = "whitespace"
REASON = "trailing whitespace and blank-line runs"
REPEATS, REPEATS_REASON = "repeats", "identical copies of repeated lines and blocks"
MIN_SAVING = 160  # bytes; below this the marker line (~70 bytes) eats most of the gain
REPEAT_MIN = 3  # a line or block seen this many times in a row is folded
BLOCK_MAX = 8  # lines in the longest repeated block looked for
BLOCK_WORK = 4_000_000  # line comparisons spent on blocks of 2+ lines (bounds the time on huge inputs)


def cuts_of(raw: bytes):
    """The byte ranges to omit, in order and merged where they touch: (starts, ends, trailing, blank).

    Of a run of blank lines (a line is blank when its body, the line without its ``\n`` and one
    ``\r`` before it, holds only spaces and tabs) the first stays (its spaces go as trailing
    whitespace) and the others go whole; the spaces and tabs ending the body of every other line go.
    One pass of the C kernel (``text_cuts``; its twin ``operators.kernel.text_twins``: one RE2 search),
    no object per line."""
    return kernel.text_cuts(raw)


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
    runs.columns = tuple(_int64(column) for column in kernel.text_runs(raw, REPEAT_MIN, BLOCK_MAX, BLOCK_WORK))
    return runs


def _int64(column) -> array:
    """An int64 column (an array or a memoryview of int64) copied whole into a new array."""
    out = array("q")
    out.frombytes(memoryview(column).cast("B"))
    return out


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
    folded = sum(runs.columns[2]) - sum(runs.columns[1])  # the bytes of the copies omitted
    saved = sum(ends) - sum(starts)
    if saved + folded < MIN_SAVING:
        return passthrough(raw)
    plan = Plan(raw)
    if folded < MIN_SAVING // 2:
        runs = Runs()  # not worth a second marker line
    elif saved < MIN_SAVING // 2:
        starts, ends = array("q"), array("q")
    repeated = _write_pieces(plan, runs, starts, ends)
    if repeated is None:
        repeated = _write_by_methods(plan, runs, starts, ends)
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


def _write_pieces(plan: Plan, runs: Runs, starts, ends) -> int | None:
    """Write the cuts and the folded runs into the plan's columns in one pass of the C kernel
    (``text_pieces``; its twin in ``operators.kernel.text_twins``), as ``_write_by_methods`` writes
    them with a method call a piece (a text of short repeated lines has a run every few lines); the
    copies folded, or None when the kernel leaves it to ``_write_by_methods`` (a piece that would not
    continue the plan, a note next to another)."""
    ids, table = _notes(runs)
    made = kernel.text_pieces(plan.raw, *runs.columns, starts, ends, ids)
    if made is None:
        return None
    kinds, piece_starts, piece_ends, codes, position, repeated, first, used = made
    pieces = plan.pieces
    pieces.kinds = bytearray(kinds)
    pieces.starts, pieces.ends = _int64(piece_starts), _int64(piece_ends)
    pieces.objs = list(map(table.__getitem__, codes))
    groups = {1: (GROUP, REASON), 2: (REPEATS, REPEATS_REASON)}  # the kernel's codes of the two groups
    for code in sorted(groups, key=lambda code: code != first):  # in the order of their first omission
        if used & 1 << code:
            plan.reasons[groups[code][0]] = groups[code][1]
    plan._pos = position  # where ``Plan.keep`` and ``omit`` left it
    return repeated


def _notes(runs: Runs) -> tuple[array, list]:
    """Each run's note (``line ×N``, or a block's ``[the 3 lines above ×N]`` line) as an index into
    the kernel's table of piece objects: nothing, the two groups, then one object for every note
    alike."""
    copies, lines = runs.columns[3], runs.columns[4]
    keys = array("q", map(add, map(mul, copies, repeat(16)), lines))  # lines <= BLOCK_MAX < 16
    index = {key: i for i, key in enumerate(dict.fromkeys(keys))}
    notes = [(f" ×{key >> 4}" if key & 15 == 1 else f"[the {key & 15} lines above ×{key >> 4}]\n").encode()
             for key in index]
    return array("i", map(index.__getitem__, keys)), [None, GROUP, REPEATS, *notes]


def _write_by_methods(plan: Plan, runs: Runs, starts, ends) -> int:
    """Write the cuts and the folded runs with the plan's methods; the copies folded."""
    cuts = iter(zip(starts, ends))
    cut = next(cuts, None)
    repeated = 0
    tags: dict[tuple[int, int], bytes] = {}  # one shown " ×N" (or block note) object for every run alike
    for run_start, first_end, run_end, copies, lines in chain(runs, [(len(plan.raw),) * 3 + (0, 0)]):
        while cut is not None and cut[1] <= first_end:  # the cuts before the run and in its first copy
            plan.keep(plan.position, cut[0])
            plan.omit(cut[0], cut[1], GROUP, REASON)
            cut = next(cuts, None)
        if not copies:
            break
        _fold_run(plan, run_start, first_end, run_end, copies, lines, tags)
        repeated += copies - 1
        while cut is not None and cut[0] < run_end:  # cuts inside the folded copies: in the repeats ref
            cut = next(cuts, None)
    return repeated


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
