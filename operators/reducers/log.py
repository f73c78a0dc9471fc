"""Log reducer: fold repeated lines by template, keep every signal and every rare line in place.

* A *signal* line (error, warning, failure, exception, 4xx/5xx status, …) and the stack trace that
  follows it stay verbatim and in place. Identical consecutive copies of one signal line show once
  with ``×N``.
* Other lines are grouped by template: numbers, hex ids and timestamps masked (for grouping only).
  A template seen fewer than ``fold_min`` times is rare: its lines stay verbatim.
* A frequent template shows its first line, in place, with ``×N`` (``×N similar`` when the copies
  differ); the other copies go to a ref. ``coarse``: one ref for every folded line; ``fine``: one
  ref per template, its marker on the representative line.
"""

from __future__ import annotations

import re

from operators.config import LogConfig
from operators.reduction import Plan

SIGNAL_RE = re.compile(
    rb"(?i:\b(?:errors?|err|warn|warning|fatal|critical|crit|alert|emerg|severe|exception|traceback"
    rb"|panic|panicked|fail|failed|failure|failures|denied|refused|unable|cannot|timeout|timed out"
    rb"|killed|abort|aborted|segfault|invalid|unauthorized|forbidden|unreachable|oom)\b)"
    rb"|[A-Za-z](?:Exception|Error)\b"
    rb'|" [45]\d\d '
)
CONTINUATION_RE = re.compile(rb"[ \t]|Caused by|\.\.\. \d+ more|[\w.$]+(?:Exception|Error)\b|\}")
MASK_RE = re.compile(rb"\b[0-9a-fA-F]*\d[0-9a-fA-F]*\b|\d+")
LONG_LINE = 4096  # lines longer than this are grouped by exact bytes (masking them is not worth it)


def is_signal_line(line: bytes) -> bool:
    return SIGNAL_RE.search(line) is not None


def signal_lines(raw: bytes) -> list[bytes]:
    """Every distinct signal line of ``raw`` (line ending stripped): what must stay visible."""
    seen: dict[bytes, None] = {}
    for line in raw.split(b"\n"):
        if SIGNAL_RE.search(line):
            seen.setdefault(line.rstrip(b"\r"), None)
    return list(seen)


def template_of(line: bytes, mask: bool) -> bytes:
    body = line[:-1] if line.endswith(b"\r") else line
    if not mask or len(body) > LONG_LINE:
        return body
    return MASK_RE.sub(b"#", body)


def reduce_log(raw: bytes, granularity: str, cfg: LogConfig) -> Plan:
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # raw ends with a newline: no partial last line
    n = len(lines)

    # 1. which lines are signal (with their stack traces)
    keep_verbatim = [False] * n
    in_trace = False
    for i, line in enumerate(lines):
        if SIGNAL_RE.search(line):
            keep_verbatim[i] = True
            in_trace = True
        elif in_trace and line and CONTINUATION_RE.match(line):
            keep_verbatim[i] = True
        else:
            in_trace = False

    # 2. template counts over the other lines
    keys: list[bytes | None] = [None] * n
    counts: dict[bytes, int] = {}
    for i, line in enumerate(lines):
        if not keep_verbatim[i]:
            key = template_of(line, cfg.mask_templates)
            keys[i] = key
            counts[key] = counts.get(key, 0) + 1

    # 3. groups: frequent templates, and runs of identical signal lines
    fine = granularity == "fine"
    group_of: dict[bytes, str] = {}
    first_line: dict[bytes, bytes] = {}
    similar: dict[bytes, bool] = {}
    for i, key in enumerate(keys):
        if key is not None and counts[key] >= cfg.fold_min:
            if key not in group_of:
                group_of[key] = f"t{len(group_of)}" if fine else "log"
                first_line[key] = lines[i]
                similar[key] = False
            elif lines[i] != first_line[key]:
                similar[key] = True

    starts = [0] * (n + 1)
    for i, line in enumerate(lines):
        starts[i + 1] = starts[i] + len(line) + 1
    starts[n] = min(starts[n], len(raw))  # the last line may have no newline

    plan = Plan(raw)
    folded = 0
    seen_rep: set[bytes] = set()
    i = 0
    while i < n:
        line, pos, line_end = lines[i], starts[i], starts[i + 1]
        content_end = pos + len(line)
        key = keys[i]
        if key is None or key not in group_of:
            # verbatim: signal, trace or rare line; identical consecutive signal copies show once
            run = 1
            while keep_verbatim[i] and i + run < n and keep_verbatim[i + run] and lines[i + run] == line:
                run += 1
            if run == 1:
                plan.keep(pos, line_end)
            else:
                group = f"s{i}" if fine else "log"
                if fine:
                    plan.reasons.setdefault(group, _reason(fine, line))
                _representative(plan, pos, content_end, line_end, line, f" ×{run}".encode(), group if fine else None)
                plan.omit(line_end, starts[i + run], group, _reason(fine, line))
                folded += run - 1
            i += run
            continue
        group = group_of[key]
        if key not in seen_rep:
            seen_rep.add(key)
            suffix = f" ×{counts[key]}{' similar' if similar[key] else ''}".encode()
            if fine:  # the ref must exist before its marker: the copies are omitted further down
                plan.reasons.setdefault(group, _reason(fine, key))
            _representative(plan, pos, content_end, line_end, line, suffix, group if fine else None)
        else:
            plan.omit(pos, line_end, group, _reason(fine, key))
            folded += 1
        i += 1

    if folded and not fine:
        lead = b"" if plan.ends_line() else b"\n"
        plan.show(lead + f"[{folded} repeated lines folded (see ×N above); exact lines: ".encode())
        plan.mark("log")
        plan.show(b"]\n")
    return plan.finish()


def _representative(plan: Plan, start: int, end: int, line_end: int, line: bytes, suffix: bytes, group: str | None) -> None:
    body_end = end - 1 if line.endswith(b"\r") else end
    plan.keep(start, body_end)
    plan.show(suffix)
    if group is not None:
        plan.show(b" ")
        plan.mark(group)
    plan.keep(body_end, line_end)


def _reason(fine: bool, key: bytes) -> str:
    if not fine:
        return "folded repeated log lines"
    return "folded repeats of: " + key[:80].decode("utf-8", "replace")


def reduce(raw: bytes, granularity: str, config) -> Plan:
    return reduce_log(raw, granularity, config.log)
