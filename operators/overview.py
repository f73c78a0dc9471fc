"""Level 0 of progressive disclosure: a few lines about a finished packet.

    [command failed: exit code 1]                      (only for a failed `tokens run`)
    fixtures/pytest_failure.txt: build (pytest), 13,838 bytes; 3 failed, 118 passed, 1 error in 2.37s
    signals (4 of 9):
      FAILED tests/test_cart.py::test_total_with_discount - AssertionError: assert ...
    refs: #ref:ctx_6c1f0e (124 lines folded, 9.5 KB) -> tokens show-ref ID
    original: tokens expand --full pkt_0c61c3d65e3a
    est. tokens: L0 ~96, L1 ~1,080 (reduced text), L2 ~3,460 (original)

What it counts depends on the type: errors/warnings for logs and build output (with the test
runner's own summary line when there is one), files and +/- lines for diffs, fields parked in refs
for JSON, entries for file lists, lines for text. The "most important lines" are the first few
signal lines, shown as a terminal would (escapes removed) and cut at ``LINE_MAX`` bytes.
Levels: 0 this overview, 1 the reduced text with its markers, 2 the original bytes.
"""

from __future__ import annotations

from operators import types
from operators.packet import ContextPacket
from operators.reduction import size_text
from operators.tokens import estimate_tokens
from operators.launcher import tokens_command  # hints name a `tokens` that runs from the agent's shell
from operators.types import Facts
from operators.rank import signal_rank
from operators.vocab import ERROR_RE, WARN_RE, display_line, signal_line_spans
from operators.safety import clean_text

IMPORTANT_MAX = 5  # signal lines shown
LINE_SCAN_MAX = 8192  # bytes of a line that the ranking regexes read
LINE_MAX = 150  # bytes of each
REFS_MAX = 3  # refs listed by id
SOURCE_MAX = 60  # characters of the source named

def overview(packet: ContextPacket, config=None) -> bytes:
    """A few lines for a finished packet; small (≈ 60 estimated tokens + the important lines)."""
    if packet.error:
        return f"{packet.source}: error: {packet.error}\n".encode()
    m = packet.measure
    lines: list[str] = []
    if packet.exit_code:
        lines.append(f"[command failed: exit code {packet.exit_code}]")
    facts = type_facts(packet, config)
    counts, important, total_signals = facts.counts, facts.important, facts.total
    kind = packet.type + (f" ({facts.label})" if facts.label else "")
    head = f"{_short_source(packet.source)}: {kind}, {size_text(m.raw_bytes)}"
    lines.append(head + (f"; {counts}" if counts else ""))
    if important:
        more = f" {len(important)}/{total_signals}" if total_signals > len(important) else ""
        lines.append(f"signals{more}:")
        lines.extend("  " + line for line in important)
    if packet.references:
        listed = [f"{r.id} ({_ref_label(r.reason, len(r.content))})" for r in packet.references[:REFS_MAX]]
        extra = f" +{len(packet.references) - REFS_MAX} more" if len(packet.references) > REFS_MAX else ""
        lines.append("refs: " + ", ".join(listed) + extra + f" -> {tokens_command()} show-ref ID")
    elif not packet.guard:
        lines.append("refs: none (nothing omitted)")
    else:
        lines.append(f"refs: none ({packet.guard})")
    if packet.manifest_id:
        lines.append(f"original: {tokens_command()} expand --full {packet.manifest_id}")
    body = clean_text(("\n".join(lines) + "\n").encode()).decode()  # lines from the input: no terminal controls
    level0 = 0
    for _ in range(4):  # the line holds its own size: settle it
        tail = f"est. tokens L0/L1/L2: ~{level0:,}/~{m.visible_tokens:,}/~{m.raw_tokens:,}\n"
        size = estimate_tokens(len((body + tail).encode()))
        if size == level0:
            break
        level0 = size
    return (body + tail).encode()


def type_facts(packet: ContextPacket, config=None) -> Facts:
    """The packet's facts as its content type tells them (``facts(packet)`` in its module; the type
    of ``config``'s registry), else the signal lines of its text (``line_facts``)."""
    own = types.attr(packet.type, "facts", None, config)
    return own(packet) if own is not None else line_facts(packet)


def line_facts(packet: ContextPacket, every_line: bool = False, summary_of=None, is_signal=None,
               label: str = "") -> Facts:
    """Counts of error/warning lines and the best signal lines of the raw text.

    ``every_line``: rank every line, not only those the signal vocabulary finds (build output needs
    its ``E`` lines and runner summaries); ``summary_of(shown)``: the runner's own count line, or
    None; ``is_signal(shown)``: whether a line counts as a signal at all."""
    raw = packet.raw
    errors = warnings = 0
    summary = b""
    ranked: dict[bytes, tuple[int, int]] = {}
    if every_line:
        candidates = enumerate(raw.split(b"\n"))
    else:  # one RE2 scan finds the signal lines; only those get the slower per-line regexes
        candidates = ((start, raw[start : min(end, start + LINE_SCAN_MAX)]) for start, end in signal_line_spans(raw))
    for index, line in candidates:
        line = line[:LINE_SCAN_MAX]  # ranking reads the head of a line; the line itself stays whole
        shown = display_line(line) if (b"\x1b" in line or b"\r" in line or b"\x08" in line) else line.rstrip(b"\r")
        if summary_of is not None:
            summary = summary_of(shown) or summary
        if is_signal is not None and not is_signal(shown):
            continue
        error = ERROR_RE.search(shown) is not None
        if error:
            errors += 1
        elif WARN_RE.search(shown):
            warnings += 1
        key = shown.strip()
        if key and key not in ranked:
            ranked[key] = (signal_rank(shown, error), index)
    best = sorted(ranked, key=ranked.__getitem__)[:IMPORTANT_MAX]
    n_lines = raw.count(b"\n") + (0 if raw.endswith(b"\n") or not raw else 1)
    if summary:  # the runner's own count says it best
        counts = summary.decode("utf-8", "replace")[:120]
    else:
        counts = f"{errors:,} error/{warnings:,} warning lines"
    return Facts(f"{n_lines:,} line{'s' if n_lines != 1 else ''}; {counts}", [clip(key) for key in best], len(ranked), label)


def _short_source(source: str) -> str:
    return source if len(source) <= SOURCE_MAX else source[: SOURCE_MAX - 21] + "…" + source[-20:]


def clip(line: bytes) -> str:
    text = line.decode("utf-8", "replace")
    return text if len(text) <= LINE_MAX else text[: LINE_MAX - 1] + "…"


def _ref_label(reason: str, size: int) -> str:
    short = reason if len(reason) <= 28 else reason[:27] + "…"
    return f"{short}, {size_text(size)}"
