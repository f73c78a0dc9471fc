"""Text reducer: whitespace normalisation only; every word stays where it was.

* Trailing spaces and tabs at the end of a line go (the line ending itself stays, ``\\r\\n`` too).
* A run of blank (empty or whitespace-only) lines keeps its first line; the others go.

Everything removed goes into one ref (group ``whitespace``), named by one marker line at the end.
A text with nothing (or too little) to normalise passes through untouched: a marker line that costs
more than it saves is not worth a ref.

Speed and memory: one RE2 search over the bytes; Python sees each match (a run of blank lines is one),
and the cuts are two int64 columns, merged where they touch.
"""

from __future__ import annotations

from array import array

import re2

from operators.reduction import Plan, line_body_end, passthrough

GROUP = "whitespace"
REASON = "trailing whitespace and blank-line runs"
MIN_SAVING = 160  # bytes; below this the marker line (~70 bytes) eats most of the gain

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


def reduce_text(raw: bytes) -> Plan:
    starts, ends, trailing, blank = cuts_of(raw)
    saved = sum(ends) - sum(starts)
    if saved < MIN_SAVING:
        return passthrough(raw)

    plan = Plan(raw)
    for a, b in zip(starts, ends):
        plan.keep(plan.position, a)
        plan.omit(a, b, GROUP, REASON)
    plan.keep_rest()
    lead = b"" if plan.ends_line() else b"\n"
    plan.show(lead + f"[whitespace normalised ({trailing} trailing, {blank} blank lines); original: ".encode())
    plan.mark(GROUP)
    plan.show(b"]\n")
    return plan.finish()


def reduce(raw: bytes, granularity: str, config) -> Plan:
    return reduce_text(raw)


# -- the content type ----------------------------------------------------------------------------
NAME = "text"
SIGNALS = "lines"


def detect(sample) -> str | None:
    return "no stronger type matched"  # the last type: takes everything
