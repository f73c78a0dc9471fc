"""Budget packer: fit the most signal of several reduced packets into N estimated tokens.

The packer works on the reduced (level 1) text of finished packets, line by line. Each line gets a
tier:

* tier 0 — signal: ``[command failed …]``; error/failure/warning lines of logs, build and text
  output (as the build reducer and ``vocab.SIGNAL_RE`` define them); changed lines and file headers of
  diffs; decision fields of JSON (``"status":``, ``"error":``, …);
* tier 1 — context: lines that say what was omitted (markers, ``×N``/``[folded …]`` summaries), diff
  hunk headers, test-runner summaries and section headers, and the lines right around a signal;
* tier 2 — everything else.

Lines are chosen tier by tier (round robin over the packets inside a tier, in order inside a
packet). A line that does not fit is skipped; once any line of a tier was skipped, no line of a
lower tier is shown, so a signal line is never dropped while a less important line is shown.

The printed text is the only thing measured: ``ceil(bytes / 4)`` of all of it, headers, gap lines
and footer included, never exceeds the budget. Every line left out stays reachable: each packet
header names ``tokens expand --full pkt_…`` (the original input), and the footer lists the refs
whose markers are not shown (``tokens show-ref ID``). When even the signal lines do not all fit,
the header says how many were shown.
"""

from __future__ import annotations

from bisect import bisect_left, insort

import msgspec

from operators.config import config_class
from operators.errors import UsageError
from operators.launcher import tokens_command  # hints name a `tokens` that runs from the agent's shell
from operators.packet import ContextPacket
from operators.rank import line_tiers
from operators.tokens import estimate_tokens


class PackError(UsageError):
    """The budget cannot hold even the headers (exit status 2: ``--budget`` is too small)."""


class PackedPacket(msgspec.Struct, kw_only=True):
    source: str
    type: str
    packet: str
    lines_total: int
    lines_shown: int
    signal_total: int
    signal_shown: int
    refs: list[str]
    refs_not_shown: list[str]
    expand: str
    shown_lines: list[int]  # 0-based line numbers of the reduced text that were printed
    tiers: list[int]  # each reduced line's tier: 0 signal, 1 context, 2 other


class PackResult(msgspec.Struct, kw_only=True):
    budget: int
    used_tokens: int
    complete: bool  # every signal line shown
    signal_total: int
    signal_shown: int
    lines_total: int
    lines_shown: int
    packets: list[PackedPacket]
    text: str  # what was printed (UTF-8, undecodable bytes replaced)


class _Doc:
    """One packet's reduced text as lines, with each line's tier and the lines chosen so far."""

    def __init__(self, packet: ContextPacket, config):
        self.packet = packet
        raw_lines = packet.visible.split(b"\n")
        if raw_lines and raw_lines[-1] == b"":
            raw_lines.pop()
        self.lines = [line + b"\n" for line in raw_lines]
        self.tiers, self.ranks = line_tiers(packet.type, raw_lines, config)
        self.shown: list[int] = []  # sorted indices

    def gap_cost_change(self, i: int) -> int:
        """Bytes the gap lines change by when line ``i`` is shown."""
        k = bisect_left(self.shown, i)
        prev = self.shown[k - 1] if k else -1
        nxt = self.shown[k] if k < len(self.shown) else len(self.lines)
        return _gap(i - prev - 1) + _gap(nxt - i - 1) - _gap(nxt - prev - 1)


    def close_blank_gaps(self, tier: int) -> int:
        """Show the blank lines (of ``tier`` or better) of gaps that hold nothing else when that is
        shorter than the gap line; returns the bytes saved."""
        saved = 0
        bounds = [-1, *self.shown, len(self.lines)]
        for prev, nxt in zip(bounds, bounds[1:]):
            gap = range(prev + 1, nxt)
            if not gap or not self.shown:
                continue
            if all(not self.lines[j].strip() and self.tiers[j] <= tier for j in gap):
                cost = sum(len(self.lines[j]) for j in gap)
                if cost < _gap(len(gap)):
                    for j in gap:
                        insort(self.shown, j)
                    saved += _gap(len(gap)) - cost
        return saved


def _gap(count: int) -> int:
    return len(_gap_line(count)) if count else 0


def _gap_line(count: int) -> bytes:
    return f"[… {count:,} line{'s' if count != 1 else ''} not shown]\n".encode()


def pack(packets: list[ContextPacket], budget: int, config=None) -> tuple[bytes, PackResult]:
    """The text to print for ``packets`` within ``budget`` estimated tokens, and what it holds."""
    config = config if config is not None else config_class()()
    docs = [_Doc(p, config) for p in packets if not p.error]
    limit = budget * 4  # bytes: ceil(bytes / 4) <= budget  <=>  bytes <= 4 * budget
    used = _fixed_cost(docs, budget)
    if used > limit:
        raise PackError(
            f"budget {budget:,} estimated tokens is too small: the headers alone need ~{estimate_tokens(used):,}"
        )
    for tier in (0, 1, 2):
        used, complete = _choose_tier(docs, tier, used, limit)
        if not complete:  # a line of this tier did not fit: no line of a lower tier is shown
            break
    text = _render(docs, budget)
    while len(text) > limit:  # cannot happen (every part above is an upper bound); never print more than asked
        victim = max((d for d in docs if d.shown), key=lambda d: max(d.tiers[i] for i in d.shown))
        victim.shown.remove(max(victim.shown, key=lambda i: (victim.tiers[i], i)))
        text = _render(docs, budget)
    return text, _result(docs, budget, text)


def _fixed_cost(docs: list[_Doc], budget: int) -> int:
    """Bytes of the fixed parts (rendered with the largest numbers they can show: an upper bound) and
    of the gap lines while nothing is shown."""
    n_signal = sum(t == 0 for d in docs for t in d.tiers)
    n_lines = sum(len(d.lines) for d in docs)
    fixed = len(_top(len(docs), budget, budget, n_signal, n_signal, n_lines, n_lines, bound=True))
    fixed += sum(len(_header(d, len(d.lines), bound=True)) for d in docs)
    fixed += len(_footer(n_lines, [r.id for d in docs for r in d.packet.references]))
    return fixed + sum(_gap(len(d.lines)) for d in docs)


def _tier_order(docs: list[_Doc], tier: int) -> list[tuple[int, int, int, int]]:
    """The lines of ``tier``: best rank first; inside a rank, round robin over the packets, each in its
    own order. Items are (rank, turn, packet index, line index)."""
    order = []
    for n, d in enumerate(docs):
        seen: dict[int, int] = {}
        for i, t in enumerate(d.tiers):
            if t == tier:
                r = d.ranks[i]
                order.append((r, seen.get(r, 0), n, i))
                seen[r] = seen.get(r, 0) + 1
    order.sort()
    return order


def _choose_tier(docs: list[_Doc], tier: int, used: int, limit: int) -> tuple[int, bool]:
    """Show every line of ``tier`` that fits; returns the bytes used and whether all of them fit."""
    left = _tier_order(docs, tier)
    for _attempt in range(2):  # a second pass after blank gaps were closed: they free room
        skipped = []
        for item in left:
            _, _, n, i = item
            d = docs[n]
            cost = len(d.lines[i]) + d.gap_cost_change(i)
            if used + cost <= limit:
                insort(d.shown, i)
                used += cost
            else:
                skipped.append(item)
        used -= sum(d.close_blank_gaps(tier) for d in docs)
        left = skipped
        if not skipped:
            break
    return used, not left


def _result(docs: list[_Doc], budget: int, text: bytes) -> PackResult:
    packed = []
    for d in docs:
        refs = [r.id for r in d.packet.references]
        shown_text = b"".join(d.lines[i] for i in d.shown)
        packed.append(PackedPacket(
            source=d.packet.source, type=d.packet.type, packet=d.packet.manifest_id,
            lines_total=len(d.lines), lines_shown=len(d.shown),
            signal_total=sum(t == 0 for t in d.tiers), signal_shown=sum(1 for i in d.shown if d.tiers[i] == 0),
            refs=refs, refs_not_shown=[r for r in refs if f"#ref:{r}".encode() not in shown_text],
            expand=f"{tokens_command()} expand --full {d.packet.manifest_id}", shown_lines=list(d.shown), tiers=list(d.tiers),
        ))
    n_signal = sum(t == 0 for d in docs for t in d.tiers)
    signal_shown = sum(p.signal_shown for p in packed)
    return PackResult(
        budget=budget, used_tokens=estimate_tokens(len(text)), complete=signal_shown == n_signal,
        signal_total=n_signal, signal_shown=signal_shown, lines_total=sum(len(d.lines) for d in docs),
        lines_shown=sum(p.lines_shown for p in packed), packets=packed, text=text.decode("utf-8", "replace"),
    )


def _render(docs: list[_Doc], budget: int) -> bytes:
    body: list[bytes] = []
    refs_not_shown: list[str] = []
    for d in docs:
        body.append(_header(d, len(d.shown)))
        prev = -1
        for i in d.shown:
            if i - prev - 1:
                body.append(_gap_line(i - prev - 1))
            body.append(d.lines[i])
            prev = i
        if len(d.lines) - prev - 1:
            body.append(_gap_line(len(d.lines) - prev - 1))
        shown_text = b"".join(d.lines[i] for i in d.shown)
        refs_not_shown += [r.id for r in d.packet.references if r.marker.encode() not in shown_text]
    left_out = sum(len(d.lines) - len(d.shown) for d in docs)
    body.append(_footer(left_out, refs_not_shown))
    rest = b"".join(body)
    sig_total = sum(t == 0 for d in docs for t in d.tiers)
    sig_shown = sum(1 for d in docs for i in d.shown if d.tiers[i] == 0)
    total = sum(len(d.lines) for d in docs)
    shown = total - left_out
    used = 0
    for _ in range(4):  # the header states the total size, itself included: settle it
        top = _top(len(docs), used, budget, sig_shown, sig_total, shown, total)
        size = estimate_tokens(len(top) + len(rest))
        if size == used:
            break
        used = size
    return top + rest


def _top(n_docs: int, used: int, budget: int, sig_shown: int, sig_total: int, shown: int, total: int,
         bound: bool = False) -> bytes:
    missing = sig_total if bound else sig_total - sig_shown
    note = f"; budget too small: {missing:,} signal lines not shown" if missing else ""
    return (
        f"[pack: {n_docs} input{'s' if n_docs != 1 else ''}, ~{used:,}/{budget:,} est. tokens; "
        f"signal lines {sig_shown:,}/{sig_total:,}; lines {shown:,}/{total:,}{note}]\n"
    ).encode()


def _header(d: _Doc, shown: int, bound: bool = False) -> bytes:
    p = d.packet
    total = len(d.lines)
    where = f"; rest: {tokens_command()} expand --full {p.manifest_id}" if bound or shown < total else ""
    return f"=== {p.source} [{p.type}] {total if bound else shown:,}/{total:,} lines{where} ===\n".encode()


def _footer(left_out: int, refs_not_shown: list[str]) -> bytes:
    if not left_out and not refs_not_shown:
        return b""
    parts = []
    if left_out:
        parts.append(f"{left_out:,} line{'s' if left_out != 1 else ''} not shown: see 'rest:' in the headers")
    if refs_not_shown:
        parts.append("refs not shown: " + " ".join(refs_not_shown) + f" ({tokens_command()} show-ref ID)")
    return ("[" + "; ".join(parts) + "]\n").encode()
