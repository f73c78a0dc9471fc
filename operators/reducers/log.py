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

try:
    from operators.reducers import _logscan  # the C kernel, built at install when a compiler is there
except ImportError:  # pragma: no cover - depends on the machine
    _logscan = None

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


_last_scan: tuple[bytes, tuple[tuple[int, int], ...]] = (b"", ())
MEMO_MIN = 1 << 20  # inputs this big keep their scan for the next caller (the SIGNAL stage)


def signal_line_spans(raw: bytes) -> tuple[tuple[int, int], ...]:
    """(start, end) of every line holding a signal, newline excluded, from one scan of the buffer.

    The reducer and the SIGNAL check both need this scan of the same packet; the last big buffer's
    result is kept (by identity: the same bytes object, never an equal copy), so it runs once.
    """
    global _last_scan
    last_raw, last_spans = _last_scan
    if raw is last_raw:
        return last_spans
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
    result = tuple(spans)
    if len(raw) >= MEMO_MIN:
        _last_scan = (raw, result)
    return result


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


def scan_lines_py(raw: bytes, mask: bool) -> tuple[array, array, list[bytes], list[int]]:
    """Pure-Python twin of ``_logscan.scan``: line starts, each line's shape id, the shapes, their counts.

    A shape is a line without its ``\\n``; with ``mask``, every run of digits is a single ``0``. Worked in
    blocks cut at newlines: memory grows with the distinct shapes plus an id and an offset per line.
    """
    ids_of: dict[bytes, int] = {}
    ids = array("i")
    starts = array("q", [0])
    pos, size = 0, len(raw)
    while pos < size:
        cut = raw.find(b"\n", min(pos + SHAPE_BLOCK, size) - 1)
        end = size if cut == -1 else cut + 1
        block = raw[pos:end]
        lines = (block.translate(DIGITS_TO_ZERO) if mask else block).split(b"\n")  # same lengths as raw
        if lines[-1] == b"":
            lines.pop()  # the block ends with a newline: no partial last line
        starts.extend(islice(accumulate(map(add, map(len, lines), repeat(1)), initial=starts[-1]), 1, None))
        if mask:
            collapsed = {line: _collapse_zeros(line) for line in set(lines)}
            lines = map(collapsed.__getitem__, lines)
        ids.extend(ids_of.setdefault(shape, len(ids_of)) for shape in lines)
        pos = end
    if starts[-1] > size:
        starts[-1] = size  # the last line has no newline
    counts = [0] * len(ids_of)
    for shape_id in ids:
        counts[shape_id] += 1
    return starts, ids, list(ids_of), counts


def select_py(ids, template_of, frequent: bytes, verbatim) -> array:
    """Pure-Python twin of ``_logscan.select``: the visible line indexes (see ``reduce_log``)."""
    verbatim = set(verbatim)
    seen: set[int] = set()
    visible = array("q")
    for i, shape_id in enumerate(ids):
        if i in verbatim:
            visible.append(i)
            continue
        template = template_of[shape_id]
        if not frequent[template] or template not in seen:
            seen.add(template)
            visible.append(i)
    return visible


def scan_lines(raw: bytes, mask: bool):
    """Line starts (n + 1 offsets), each line's shape id, the distinct shapes and their counts."""
    if _logscan is None:
        return scan_lines_py(raw, mask)
    starts, ids, shapes, counts = _logscan.scan(raw, mask)
    return memoryview(starts).cast("q"), memoryview(ids).cast("i"), shapes, counts


def select_visible(ids, template_of: array, frequent: bytes, verbatim: array):
    if _logscan is None:
        return select_py(ids, template_of, frequent, verbatim)
    return memoryview(_logscan.select(ids, template_of, frequent, verbatim)).cast("q")


def _templates(shapes: list[bytes], counts: list[int], cfg: LogConfig) -> tuple[array, list[bytes], list[int]]:
    """Each shape's template id, each template's key and its number of lines.

    A shape is its own template; when ``mask_templates`` is on, a template still rare (fewer than
    ``fold_min`` lines) gets the precise mask (hex ids too); one still rare after that is keyed by its
    words, every token that looks like an identifier masked (package names with versions, hosts with
    ports, paths). Work is done once per distinct shape, never per line.
    """
    template = list(shapes)
    per_template: Counter = Counter()
    for key, count in zip(template, counts):
        per_template[key] += count
    for coarser in (_masked_key, _word_key) if cfg.mask_templates else ():
        rare = [s for s, count in enumerate(counts) if count and per_template[template[s]] < cfg.fold_min]
        for s in rare:
            per_template[template[s]] -= counts[s]
            template[s] = coarser(shapes[s])
            per_template[template[s]] += counts[s]
    number: dict[bytes, int] = {}
    template_of = array("i", [number.setdefault(key, len(number)) for key in template])
    totals = [0] * len(number)
    for t, count in zip(template_of, counts):
        totals[t] += count
    return template_of, list(number), totals


def mask_py(shape: bytes) -> bytes:
    """Pure-Python twin of ``_logscan.mask``: hex numbers, hex words holding a digit and digit runs → ``#``."""
    return MASK_RE.sub(b"#", shape)


_mask = mask_py if _logscan is None else _logscan.mask


def _masked_key(shape: bytes) -> bytes:
    return b"\x00" + _mask(shape)  # a key space of its own


def _word_key(shape: bytes) -> bytes:
    """The line's words, with every identifier-like token (a digit, or ``: / = @`` inside) masked."""
    return b"\x01" + b" ".join(
        b"#" if b"0" in token or IDENT_INSIDE_RE.search(token) else token for token in shape.split())


def _collapse_zeros(shape: bytes) -> bytes:
    """Runs of ``0`` (every digit is one in a shape) become a single ``0``; faster than a regex."""
    while b"00" in shape:
        shape = shape.replace(b"00", b"0")
    return shape


def reduce_log(raw: bytes, granularity: str, cfg: LogConfig) -> Plan:
    starts, ids, shapes, counts = scan_lines(raw, cfg.mask_templates)
    n = len(ids)
    verbatim = array("q", sorted(_verbatim_lines(raw, starts, n)))
    for i in verbatim:
        counts[ids[i]] -= 1  # verbatim lines are never folded: they do not count for their template
    template_of, names, totals = _templates(shapes, counts, cfg)
    del shapes
    frequent = bytes(total >= cfg.fold_min for total in totals)
    visible = select_visible(ids, template_of, frequent, verbatim)
    is_verbatim = set(verbatim)

    fine = granularity == "fine"
    group_of: dict[int, str] = {}  # template id -> group, for the frequent templates shown so far
    plan = Plan(raw)
    folded = 0
    i = 0  # the first line not yet in the plan
    v, nvisible = 0, len(visible)
    while v < nvisible:
        line = visible[v]
        if line > i:  # copies of templates already shown: omitted
            folded += line - i
            _omit_copies(plan, starts, ids, template_of, names, group_of, i, line, fine)
        pos, line_end = starts[line], starts[line + 1]
        if line in is_verbatim:
            # signal or trace line; identical consecutive signal copies show once
            body = raw[pos:line_end]
            run = 1
            while (v + run < nvisible and visible[v + run] == line + run and line + run in is_verbatim
                   and raw[starts[line + run] : starts[line + run + 1]] == body):
                run += 1
            if run == 1:
                plan.keep(pos, line_end)  # signal lines stay whole, however long
            else:
                group = f"s{line}" if fine else "log"
                if fine:
                    plan.reasons.setdefault(group, _reason(fine, body))
                _representative(plan, pos, line_end, f" ×{run}".encode(), group if fine else None)
                plan.omit(line_end, starts[line + run], group, _reason(fine, body))
                folded += run - 1
            v += run
            i = line + run
            continue
        t = template_of[ids[line]]
        if frequent[t]:  # the first line of a frequent template: shown with its count
            group = f"t{len(group_of)}" if fine else "log"
            group_of[t] = group
            if fine:  # the ref must exist before its marker: the copies are omitted further down
                plan.reasons.setdefault(group, _reason(fine, names[t]))
            _representative(plan, pos, line_end, f" ×{totals[t]}".encode(), group if fine else None, cfg.long_line)
        else:  # a rare line: in place
            body_end = _body_end(raw, pos, line_end)
            _keep_body(plan, pos, body_end, cfg.long_line)
            plan.keep(body_end, line_end)
        v += 1
        i = line + 1
    if i < n:
        folded += n - i
        _omit_copies(plan, starts, ids, template_of, names, group_of, i, n, fine)

    if folded:
        lead = b"" if plan.ends_line() else b"\n"
        if fine:
            plan.show(lead + f"[{folded} repeated lines folded; ×N counts lines of one template (numbers and ids may differ); exact lines behind each #ref]\n".encode())
        else:
            plan.show(lead + f"[{folded} repeated lines folded; ×N counts lines of one template (numbers and ids may differ); exact lines: ".encode())
            plan.mark("log")
            plan.show(b"]\n")
    return plan.finish()


def _omit_copies(plan: Plan, starts, ids, template_of, names, group_of, first: int, stop: int, fine: bool) -> None:
    """Omit lines ``first`` to ``stop`` (copies of shown templates): one piece (coarse) or one per run of a template."""
    if not fine:
        plan.omit(starts[first], starts[stop], "log", _reason(fine, b""))
        return
    j = first
    while j < stop:
        t = template_of[ids[j]]
        k = j + 1
        while k < stop and template_of[ids[k]] == t:
            k += 1
        plan.omit(starts[j], starts[k], group_of[t], _reason(fine, names[t]))
        j = k


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
