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
from itertools import chain

from operators import kernel
from operators.reduction import KEEP, OMIT, SHOW, Plan, passthrough

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
    shown texts made so far, by (lines, copies): a plan holds one object for all the runs alike.

    Written straight into the plan's columns, as ``Plan.keep``, ``omit`` and ``show`` write them
    (a span lengthens the last piece of its kind that ends where it starts; shown texts next to each
    other are one piece), without a method call per piece: a text of short repeated lines has a run
    every few lines. The spans continue each other by construction (the plan's position is at or
    before ``run_start``; a run's first copy holds a byte that is not whitespace)."""
    raw, pieces = plan.raw, plan.pieces
    kinds, starts, ends, objs = pieces.kinds, pieces.starts, pieces.ends, pieces.objs
    tag = tags.get((lines, copies))
    if tag is None:
        tag = tags[lines, copies] = (f" ×{copies}" if lines == 1 else f"[the {lines} lines above ×{copies}]\n").encode()
    shown_end = first_end
    if lines == 1:  # the line's text, then " ×N", then its line end
        shown_end = first_end - 2 if raw[first_end - 2] == 0x0D and first_end - 1 > run_start else first_end - 1
    pos = plan.position
    if shown_end != pos:  # what is kept up to the tag (or, for a block, up to the copies omitted)
        if kinds and kinds[-1] == KEEP and ends[-1] == pos:
            ends[-1] = shown_end
        else:
            kinds.append(KEEP), starts.append(pos), ends.append(shown_end), objs.append(None)
    if lines == 1:
        if kinds and kinds[-1] == SHOW:
            objs[-1] += tag
        else:
            kinds.append(SHOW), starts.append(0), ends.append(0), objs.append(tag)
        kinds.append(KEEP), starts.append(shown_end), ends.append(first_end), objs.append(None)  # its line end
    if kinds[-1] == OMIT and ends[-1] == first_end and objs[-1] == REPEATS:
        ends[-1] = run_end
    else:
        kinds.append(OMIT), starts.append(first_end), ends.append(run_end), objs.append(REPEATS)
    plan.reasons.setdefault(REPEATS, REPEATS_REASON)
    plan._pos = run_end  # what ``Plan.omit`` leaves; the tag of a block after its copies
    if lines > 1:
        if kinds[-1] == SHOW:
            objs[-1] += tag
        else:
            kinds.append(SHOW), starts.append(0), ends.append(0), objs.append(tag)


def reduce(raw: bytes, granularity: str, config) -> Plan:
    return reduce_text(raw)


# -- the content type ----------------------------------------------------------------------------
NAME = "text"
SIGNALS = "lines"
FILL = True  # cut to a budget, its every line is content: the head and tail fill what the ranked lines leave


def detect(sample) -> str | None:
    return "no stronger type matched"  # the last type: takes everything
