"""Text reducer: whitespace normalisation only; every word stays where it was.

* Trailing spaces and tabs at the end of a line go (the line ending itself stays, ``\\r\\n`` too).
* A run of blank (empty or whitespace-only) lines keeps its first line; the others go.

Everything removed goes into one ref (group ``whitespace``), named by one marker line at the end.
A text with nothing (or too little) to normalise passes through untouched: a marker line that costs
more than it saves is not worth a ref.
"""

from __future__ import annotations

from operators.reduction import Plan, passthrough

GROUP = "whitespace"
REASON = "trailing whitespace and blank-line runs"
MIN_SAVING = 160  # bytes; below this the marker line (~70 bytes) eats most of the gain


def reduce_text(raw: bytes) -> Plan:
    n = len(raw)
    # (cut_start, cut_end) byte ranges to omit, in order; computed first so a tiny gain can pass through
    cuts: list[tuple[int, int]] = []
    trailing = blank = 0
    prev_blank = False
    pos = 0
    while pos < n:
        nl = raw.find(b"\n", pos)
        end = n if nl < 0 else nl + 1
        body_end = n if nl < 0 else nl
        if body_end > pos and raw[body_end - 1] == 0x0D:  # CR of CRLF belongs to the ending
            body_end -= 1
        content_end = body_end
        while content_end > pos and raw[content_end - 1] in (0x20, 0x09):
            content_end -= 1
        is_blank = content_end == pos
        if is_blank and prev_blank:
            cuts.append((pos, end))  # the whole line: its blanks and its ending
            blank += 1
        elif content_end < body_end:
            cuts.append((content_end, body_end))
            trailing += 1
        prev_blank = is_blank
        pos = end

    saved = sum(b - a for a, b in cuts)
    if saved < MIN_SAVING:
        return passthrough(raw)

    plan = Plan(raw)
    for a, b in cuts:
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
