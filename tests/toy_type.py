"""A toy content type, written by following docs/extending.md: CSV tables.

It recognises comma-separated tables (a header and rows with the same number of fields) and keeps
the header, the first rows and the last row; the rows between go to one ref, named by a marker line.
"""

from __future__ import annotations

from operators.config import Section, section
from operators.reduction import Plan, passthrough

NAME = "csvtable"
SIGNALS = ""  # no automatic SIGNAL check: a table has no error lines of its own


class Settings(Section):
    head_rows: int = 5  # rows kept after the header


def detect(sample) -> str | None:
    lines = sample.lines
    if len(lines) < 4:
        return None
    fields = lines[0].count(b",")
    if fields >= 2 and all(line.count(b",") == fields for line in lines):
        return f"{len(lines)} lines of {fields + 1} comma-separated fields"
    return None


def reduce(raw: bytes, granularity: str, config) -> Plan:
    starts = [0] + [i + 1 for i, byte in enumerate(raw) if byte == 0x0A and i + 1 < len(raw)]
    keep_head = 1 + section(config, NAME).head_rows
    if len(starts) <= keep_head + 2:
        return passthrough(raw)
    plan = Plan(raw)
    cut_from, cut_to = starts[keep_head], starts[-1]  # the last row stays too
    plan.keep(0, cut_from)
    plan.omit(cut_from, cut_to, "rows", "table rows between the first ones and the last")
    rows = raw.count(b"\n", cut_from, cut_to)
    plan.show(f"[{rows} rows: ".encode())
    plan.mark("rows")
    plan.show(b"]\n")
    plan.keep_rest()
    return plan.finish()


def facts(packet):
    from operators.types import Facts

    rows = max(packet.raw.count(b"\n") - 1, 0)
    return Facts(f"{rows:,} rows", [], 0)
