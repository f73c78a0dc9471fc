"""Log reducer: fold repeated lines by template, keep every signal and every rare line in place.

* A *signal* line (error, warning, failure, exception, 4xx/5xx status, …) and the stack trace that
  follows it stay verbatim and in place. Identical consecutive copies of one signal line show once
  with ``×N``.
* Other lines are grouped by template: numbers, hex ids and timestamps masked (for grouping only).
  A template seen fewer than ``fold_min`` times is rare: its lines stay in place, verbatim up to
  ``long_line`` bytes; the rest of a longer line goes to one "long lines" ref, marked where it was cut.
* A frequent template shows its first line, in place, with ``×N`` (N lines of that template; their
  numbers and ids may differ — the footer says so); the other copies go to a ref. ``coarse``: one
  ref for every folded line; ``fine``: one ref per template, its marker on the representative line.

Speed: the signal scan runs once over the whole buffer with RE2 (linear time, hundreds of MB/s);
line shapes come from one ``bytes.translate`` (digits to ``0``) and one split; the regex work is
done once per *distinct* shape (digit runs collapsed; hex ids masked for shapes still rare).
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from itertools import accumulate, islice, repeat
from operator import add

import re2

from operators.config import LogConfig
from operators.reduction import Plan

_SIGNAL_PATTERN = (
    rb"(?i:\b(?:errors?|err|warn|warning|fatal|critical|crit|alert|emerg|severe|exception|traceback"
    rb"|panic|panicked|fail|failed|failure|failures|denied|refused|unable|cannot|timeout|timed out"
    rb"|killed|abort|aborted|segfault|invalid|unauthorized|forbidden|unreachable|oom)\b)"
    rb"|[A-Za-z](?:Exception|Error)\b"
    rb'|" [45]\d\d '
)
SIGNAL_RE = re2.compile(_SIGNAL_PATTERN)
CONTINUATION_RE = re.compile(rb"[ \t]|Caused by|\.\.\. \d+ more|[\w.$]+(?:Exception|Error)\b|\}")
MASK_RE = re.compile(rb"0[xX][0-9a-fA-F]++|\b[a-fA-F]*+\d[0-9a-fA-F]*+\b|\d+")
IDENT_INSIDE_RE = re.compile(rb"[:/=@].")  # package:arch, paths, key=value, user@host
DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
SHAPE_BLOCK = 4 << 20  # bytes of input shaped at a time
LONG_GROUP, LONG_REASON = "long", "cut from long lines"


def signal_line_spans(raw: bytes) -> list[tuple[int, int]]:
    """(start, end) of every line holding a signal, newline excluded, from one scan of the buffer."""
    spans = []
    end = -1
    for match in SIGNAL_RE.finditer(raw):
        pos = match.start()
        if pos <= end:
            continue  # same line as the previous match
        start = raw.rfind(b"\n", 0, pos) + 1
        end = raw.find(b"\n", pos)
        if end == -1:
            end = len(raw)
        spans.append((start, end))
    return spans


def signal_line_indexes(raw: bytes) -> list[int]:
    """Indexes (0-based, split on ``\\n``) of the lines holding a signal."""
    found: list[int] = []
    line = last = 0
    for start, _end in signal_line_spans(raw):
        line += raw.count(b"\n", last, start)
        found.append(line)
        last = start
    return found


def signal_lines(raw: bytes) -> list[bytes]:
    """Every distinct signal line of ``raw`` (line ending stripped): what must stay visible."""
    return list(dict.fromkeys(raw[start:end].rstrip(b"\r") for start, end in signal_line_spans(raw)))


def _verbatim_lines(raw: bytes, starts: array, n: int) -> set[int]:
    """Signal lines and the stack-trace lines that follow them."""
    keep: set[int] = set()
    for i in signal_line_indexes(raw):
        if i >= n or i in keep:
            continue
        keep.add(i)
        j = i + 1
        while j < n and starts[j + 1] - starts[j] > 1 and CONTINUATION_RE.match(raw, starts[j], starts[j + 1]):
            keep.add(j)
            j += 1
    return keep


def _group_keys(shapes: list[bytes], verbatim: set[int], cfg: LogConfig) -> tuple[list, Counter]:
    """Each line's template (None for verbatim lines) and the number of lines per template.

    ``shapes`` are the lines with every digit turned into ``0`` (same lengths as the raw lines). Each
    distinct shape is normalised once: runs of digits collapse; a template still rare after that gets
    the precise mask (hex ids too); one still rare after that is keyed by its words, every token that
    looks like an identifier masked (package names with versions, hosts with ports, paths).
    """
    counts = Counter(shapes)
    for i in verbatim:
        counts[shapes[i]] -= 1
    if cfg.mask_templates:
        template = {shape: _collapse_zeros(shape) for shape in counts}
    else:
        template = {shape: shape for shape in counts}
    per_template: Counter = Counter()
    for shape, count in counts.items():
        per_template[template[shape]] += count
    for coarser in (_masked_key, _word_key) if cfg.mask_templates else ():
        rare = [s for s, c in counts.items() if c and per_template[template[s]] < cfg.fold_min]
        for shape in rare:
            per_template[template[shape]] -= counts[shape]
            template[shape] = coarser(shape)
            per_template[template[shape]] += counts[shape]
    keys = list(map(template.__getitem__, shapes))
    for i in verbatim:
        keys[i] = None
    return keys, per_template


def _masked_key(shape: bytes) -> bytes:
    return b"\x00" + MASK_RE.sub(b"#", shape)  # a key space of its own


def _word_key(shape: bytes) -> bytes:
    """The line's words, with every identifier-like token (a digit, or ``: / = @`` inside) masked."""
    return b"\x01" + b" ".join(
        b"#" if b"0" in token or IDENT_INSIDE_RE.search(token) else token for token in shape.split())


def _collapse_zeros(shape: bytes) -> bytes:
    """Runs of ``0`` (every digit is one in a shape) become a single ``0``; faster than a regex."""
    while b"00" in shape:
        shape = shape.replace(b"00", b"0")
    return shape


def _line_shapes(raw: bytes, mask: bool) -> tuple[list[bytes], array]:
    """Each line's shape (digits turned into ``0``: same length as the line) and the lines' start offsets.

    Worked in blocks cut at newlines, and equal shapes are one shared object: memory grows with
    the number of *distinct* shapes plus a pointer and an offset per line, not with a copy of the input.
    """
    shared: dict[bytes, bytes] = {}
    shapes: list[bytes] = []
    starts = array("q", [0])  # 8 bytes an offset, not a Python int object each
    pos, size = 0, len(raw)
    while pos < size:
        cut = raw.find(b"\n", min(pos + SHAPE_BLOCK, size) - 1)
        end = size if cut == -1 else cut + 1
        block = raw[pos:end]
        lines = (block.translate(DIGITS_TO_ZERO) if mask else block).split(b"\n")
        if lines[-1] == b"":
            lines.pop()  # the block ends with a newline: no partial last line
        starts.extend(islice(accumulate(map(add, map(len, lines), repeat(1)), initial=starts[-1]), 1, None))
        shapes.extend(map(shared.setdefault, lines, lines))
        pos = end
    if starts[-1] > size:
        starts[-1] = size  # the last line has no newline
    return shapes, starts


def reduce_log(raw: bytes, granularity: str, cfg: LogConfig) -> Plan:
    shapes, starts = _line_shapes(raw, cfg.mask_templates)
    n = len(shapes)

    verbatim = _verbatim_lines(raw, starts, n)
    keys, counts = _group_keys(shapes, verbatim, cfg)
    del shapes
    frequent = {key for key, count in counts.items() if count >= cfg.fold_min}

    fine = granularity == "fine"
    group_of: dict[bytes, str] = {}
    plan = Plan(raw)
    folded = 0
    i = 0
    while i < n:
        key = keys[i]
        pos, line_end = starts[i], starts[i + 1]
        if key in group_of:
            # a copy of a template already shown: omit it, and every following copy in one piece (coarse)
            j = i + 1
            if fine:
                while j < n and keys[j] == key:
                    j += 1
            else:  # coarse: every following copy of any template already shown joins this piece
                while j < n and keys[j] in group_of:
                    j += 1
            plan.omit(pos, starts[j], group_of[key], _reason(fine, key))
            folded += j - i
            i = j
            continue
        if key in frequent:
            group = f"t{len(group_of)}" if fine else "log"
            group_of[key] = group
            if fine:  # the ref must exist before its marker: the copies are omitted further down
                plan.reasons.setdefault(group, _reason(fine, key))
            _representative(plan, pos, line_end, f" ×{counts[key]}".encode(), group if fine else None, cfg.long_line)
            i += 1
            continue
        # verbatim: signal, trace or rare line; identical consecutive signal copies show once
        run = 1
        if key is None:
            line = raw[pos:line_end]
            while i + run < n and keys[i + run] is None and raw[starts[i + run] : starts[i + run + 1]] == line:
                run += 1
        if run == 1 and key is None:
            plan.keep(pos, line_end)  # signal lines stay whole, however long
        elif run == 1:
            body_end = _body_end(raw, pos, line_end)
            _keep_body(plan, pos, body_end, cfg.long_line)
            plan.keep(body_end, line_end)
        else:
            group = f"s{i}" if fine else "log"
            if fine:
                plan.reasons.setdefault(group, _reason(fine, line))
            _representative(plan, pos, line_end, f" ×{run}".encode(), group if fine else None)
            plan.omit(line_end, starts[i + run], group, _reason(fine, line))
            folded += run - 1
        i += run

    if folded:
        lead = b"" if plan.ends_line() else b"\n"
        if fine:
            plan.show(lead + f"[{folded} repeated lines folded; ×N counts lines of one template (numbers and ids may differ); exact lines behind each #ref]\n".encode())
        else:
            plan.show(lead + f"[{folded} repeated lines folded; ×N counts lines of one template (numbers and ids may differ); exact lines: ".encode())
            plan.mark("log")
            plan.show(b"]\n")
    return plan.finish()


def _body_end(raw: bytes, start: int, line_end: int) -> int:
    """Where a line's text ends: before its ``\n`` or ``\r\n``."""
    body_end = line_end
    if raw[body_end - 1 : body_end] == b"\n":
        body_end -= 1
    if raw[body_end - 1 : body_end] == b"\r" and body_end > start:
        body_end -= 1
    return body_end


def _keep_body(plan: Plan, start: int, body_end: int, limit: int) -> None:
    """Keep a line's text; past ``limit`` bytes the rest goes to the long-lines ref, marked in place."""
    if not limit or body_end - start <= limit:
        plan.keep(start, body_end)
        return
    cut = start + limit
    while cut > start and plan.raw[cut] & 0xC0 == 0x80:
        cut -= 1  # never inside a UTF-8 character
    plan.keep(start, cut)
    plan.show(f" …[{body_end - cut:,} more bytes of this line: ".encode())
    plan.reasons.setdefault(LONG_GROUP, LONG_REASON)  # the ref exists before its marker
    plan.mark(LONG_GROUP)
    plan.show(b"]")
    plan.omit(cut, body_end, LONG_GROUP, LONG_REASON)


def _representative(plan: Plan, start: int, line_end: int, suffix: bytes, group: str | None, limit: int = 0) -> None:
    """Keep the line, with ``suffix`` (and the group's marker) before its line ending."""
    body_end = _body_end(plan.raw, start, line_end)
    _keep_body(plan, start, body_end, limit)
    plan.show(suffix)
    if group is not None:
        plan.show(b" ")
        plan.mark(group)
    plan.keep(body_end, line_end)


def _reason(fine: bool, key: bytes) -> str:
    if not fine:
        return "folded repeated log lines"
    return "folded repeats of: " + key.lstrip(b"\x00")[:80].decode("utf-8", "replace")


def reduce(raw: bytes, granularity: str, config) -> Plan:
    return reduce_log(raw, granularity, config.log)
