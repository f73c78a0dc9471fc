"""Benchmark rows and their table, computed from finished packets (never typed in).

Columns are estimated tokens (bytes/4). Accounting: RAW bytes = KEPT bytes (shown verbatim) +
REFERENCED bytes (parked in refs), exactly; VISIBLE = KEPT + summaries and markers. The ``ADDS_UP``
column checks the first identity on every row.
"""

from __future__ import annotations

import msgspec

from operators.packet import ContextPacket
from operators.tokens import ESTIMATE_LABEL


class BenchRow(msgspec.Struct, kw_only=True):
    source: str
    type: str
    granularity: str
    raw: int
    visible: int
    markers: int
    referenced: int
    saved_pct: float
    refs: int
    raw_bytes: int
    kept_bytes: int
    referenced_bytes: int
    adds_up: bool
    signal: bool
    recovery: bool
    restore: bool
    guard: str = ""


def benchmark_rows(packets: list[ContextPacket]) -> list[BenchRow]:
    rows = []
    for p in packets:
        m = p.measure
        kept = m.kept_bytes  # counted from the restore layout, not by subtraction
        rows.append(BenchRow(
            source=p.source, type=p.type, granularity=p.granularity if p.type == "log" else "-",
            raw=m.raw_tokens, visible=m.visible_tokens, markers=m.marker_tokens, referenced=m.referenced_tokens,
            saved_pct=round(m.saved_pct, 1), refs=len(p.references), raw_bytes=m.raw_bytes, kept_bytes=kept,
            referenced_bytes=m.referenced_bytes, adds_up=kept + m.referenced_bytes == m.raw_bytes,
            signal=bool(p.signal_pass), recovery=bool(p.recovery_pass), restore=bool(p.restore_pass), guard=p.guard,
        ))
    return rows


def format_table(rows: list[BenchRow]) -> str:
    head = ["SOURCE", "TYPE", "GRAN", "RAW", "VISIBLE", "MARKERS", "REFERENCED", "SAVED", "REFS", "ADDS UP", "SIGNAL", "RECOVERY", "RESTORE"]
    body = [
        [r.source, r.type, r.granularity, f"{r.raw:,}", f"{r.visible:,}", f"{r.markers:,}", f"{r.referenced:,}",
         f"{r.saved_pct:.1f}%", str(r.refs), "yes" if r.adds_up else "NO", _pf(r.signal), _pf(r.recovery), _pf(r.restore)]
        for r in rows
    ]
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    right = {3, 4, 5, 6, 7, 8}
    lines = [
        "  ".join(cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()
        for row in [head, *body]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("")
    lines.append(f"Tokens are {ESTIMATE_LABEL}. ADDS UP: RAW bytes = bytes kept verbatim in VISIBLE + REFERENCED bytes,")
    lines.append("exactly (nothing neither shown nor stored). VISIBLE also counts summaries (×N, headers) and MARKERS,")
    lines.append("so VISIBLE + REFERENCED may exceed RAW by that overhead. RESTORE rebuilds every input byte-for-byte.")
    return "\n".join(lines)


def _pf(ok: bool) -> str:
    return "PASS" if ok else "FAIL"
