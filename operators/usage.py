"""Local usage records and the savings report (``tokens gain``).

Each ``tokens expand``/``show-ref`` (and the MCP server's ``expand``) appends one JSON line to
``<home>/usage.jsonl``: when, which command, which id, which slice. Runs themselves write nothing new:
the report reads the packet manifests the store keeps anyway (``<home>/context/pkt_*.json``: source,
raw and visible bytes, refs, created). Nothing leaves the machine.

What the report can and cannot say: a packet is one distinct output (the same output stored twice is
one content-addressed packet), a run of several windows is stored per window and once whole (only
the whole one is counted when present), and ``tokens refs gc`` or the automatic retention removes old
packets, so the report covers what the store still holds. Tokens are estimated (bytes/4). Whether a
run hit the output ceiling is the manifest's ``ceiling`` flag; a manifest written before the flag
existed is read from its refs instead (the ceiling parks every gap it cuts in a ref whose reason is
``operators.ceiling.GAP_REASON``); without either the count is unknown, never guessed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import msgspec

USAGE_FILE = "usage.jsonl"
WINDOWS_MAX = 256  # windows of one run looked back at (read_packets)
USAGE_MAX = 4 * 1024 * 1024  # bytes: the file is moved to usage.jsonl.1 (one old generation) beyond this
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class Use(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One read back from the store."""

    t: float
    cmd: str  # expand, show-ref, mcp-expand
    id: str  # ctx_… or pkt_…
    slice: str = ""  # lines, grep, head, tail, or "" (the whole)
    bytes: int = 0  # what the read printed: it went into the context too, so it is taken off the savings


class _PacketInfo(msgspec.Struct):
    """What the report reads of a manifest (the layout is skipped, not parsed)."""

    id: str = ""
    source: str = ""
    type: str = ""
    raw_bytes: int = 0
    visible_bytes: int = 0
    refs: list[str] = []
    created: float = 0.0
    ceiling: bool | None = None  # the output ceiling cut it (None: a manifest older than the flag)


class GainRow(msgspec.Struct, kw_only=True):
    command: str
    runs: int = 0  # distinct outputs stored (an identical output stored again is one packet)
    raw_tokens: int = 0
    host_tokens: int = 0  # what the host would have put in context without us (its own cut applied)
    visible_tokens: int = 0  # what was shown, our hint line included
    expanded_tokens: int = 0  # what was read back later with expand/show-ref (it went into the context too)
    saved_tokens: int = 0  # host - visible - expanded: negative when an output grew
    saved_pct: float = 0.0
    refs: int = 0
    refs_expanded: int = 0  # refs read back (tokens expand ID, show-ref) after the packet was made
    originals_restored: int = 0  # packets read back whole (tokens expand --full pkt_…)
    ceiling_hits: int | None = None  # outputs cut to the output ceiling (None: unknown)


class GainReport(msgspec.Struct, kw_only=True):
    home: str
    rows: list[GainRow]
    total: GainRow
    expansions: int  # reads back recorded in usage.jsonl (all of them, of any id)
    since: float | None  # the oldest packet counted
    host: str | None = None  # whose cut the HOST column applies
    estimated: str = "tokens are estimated as ceil(bytes / 4)"


_use_encoder = msgspec.json.Encoder()
_use_decoder = msgspec.json.Decoder(Use)
_info_decoder = msgspec.json.Decoder(_PacketInfo)


def record_use(home: Path | str, cmd: str, ident: str, args=None, size: int = 0) -> None:
    """Append one read back (``size``: the bytes it printed) to ``<home>/usage.jsonl``; never fails
    the command that reads."""
    kind = ""
    for name in ("lines", "grep", "head", "tail"):
        if args is not None and getattr(args, name, None) is not None:
            kind = name
    line = _use_encoder.encode(Use(t=time.time(), cmd=cmd, id=ident, slice=kind, bytes=size)) + b"\n"
    path = Path(home) / USAGE_FILE
    try:
        if not os.path.isdir(Path(home)) or os.path.islink(Path(home)):
            return
        try:
            if os.lstat(path).st_size > USAGE_MAX:
                os.replace(path, path.with_name(USAGE_FILE + ".1"))
        except FileNotFoundError:
            pass
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o600)
        try:
            os.write(fd, line)  # one write of a short line with O_APPEND: lines of concurrent readers do not mix
        finally:
            os.close(fd)
    except OSError:
        pass


def read_uses(home: Path | str) -> list[Use]:
    """Every recorded read back (the old generation first); unreadable lines are skipped."""
    from operators.store import read_regular

    uses = []
    for name in (USAGE_FILE + ".1", USAGE_FILE):
        try:
            data = read_regular(Path(home) / name, "usage file")
        except FileNotFoundError:
            continue
        except Exception:  # a symlink, a FIFO: not ours to read
            continue
        for line in data.splitlines():
            try:
                uses.append(_use_decoder.decode(line))
            except msgspec.DecodeError:
                continue
    return uses


def command_of(source: str, type_: str) -> str:
    """The command a packet came from: ``run: git status -s`` -> ``git status``; a file or stdin -> ``analyze (TYPE)``."""
    if source.startswith("run: "):
        import shlex

        from operators.secrets import scan

        try:
            words = shlex.split(source[5:])
        except ValueError:
            words = source[5:].split()
        if words and os.path.basename(words[0]) in ("bash", "sh", "zsh") and words[1:2] == ["-c"] and len(words) > 2:
            words = words[2].split()  # the program of a shell line
        words = [os.path.basename(words[0])] + words[1:] if words else ["?"]
        sub = words[1] if len(words) > 1 and words[1][:1].isalpha() and words[1].replace("-", "").isalnum() else ""
        sub = "" if sub and scan(sub.encode()) else sub  # a token given as the first argument is no subcommand
        return "run: " + " ".join(filter(None, (words[0], sub)))
    if "#" in source and source.rsplit("#", 1)[1].replace("-", "").isdigit():
        return f"tail ({type_ or '?'})"
    return f"analyze ({type_ or '?'})"


def read_packets(home: Path | str) -> list[_PacketInfo]:
    """The manifests the store holds (unreadable ones skipped), without the windows of a run that was
    also stored whole (their figures are in the whole packet)."""
    from operators.store import read_regular

    directory = Path(home) / "context"
    infos = []
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return infos
    for name in names:
        if not (name.startswith("pkt_") and name.endswith(".json")):
            continue
        try:
            infos.append(_info_decoder.decode(read_regular(directory / name, "store file")))
        except Exception:
            continue
    by_source: dict[str, list[_PacketInfo]] = {}
    for info in infos:
        by_source.setdefault(info.source, []).append(info)
    kept = []
    for group in by_source.values():
        group.sort(key=lambda i: i.created)
        windows = _windows_of_wholes(group) if group[0].source.startswith("run: ") else set()
        kept.extend(info for k, info in enumerate(group) if k not in windows)
    return kept


def _windows_of_wholes(group: list[_PacketInfo]) -> set[int]:
    """Indexes (in ``group``, one source by creation time) of the windows of a run stored whole after
    them: two or more packets just before it whose refs, one after the other, are its refs and whose
    sizes add up to its size."""
    windows: set[int] = set()
    for j, whole in enumerate(group):
        size, refs = 0, []
        for k in range(j - 1, max(-1, j - 1 - WINDOWS_MAX), -1):
            part = group[k]
            if k in windows:
                break
            size += part.raw_bytes
            refs[:0] = part.refs
            if size > whole.raw_bytes:
                break
            if j - k >= 2 and size == whole.raw_bytes and refs == whole.refs:
                windows.update(range(k, j))
                break
    return windows


class _RefReason(msgspec.Struct):
    """What the report reads of a ref record: its reason (the content is skipped, not decoded)."""

    reason: str = ""


_reason_decoder = msgspec.json.Decoder(_RefReason)


def _gap_reason() -> str | None:
    try:
        from operators.ceiling import GAP_REASON
    except ImportError:
        return None
    return GAP_REASON


def _hit_ceiling(directory: Path, refs: list[str], gap_reason: str) -> bool:
    """Whether one of these refs holds lines the output ceiling cut (a ref gone from the store: no)."""
    from operators.store import REF_ID_RE, read_regular

    for ref in refs:
        if not REF_ID_RE.fullmatch(ref):
            continue
        try:
            if _reason_decoder.decode(read_regular(directory / f"{ref}.json", "store file")).reason == gap_reason:
                return True
        except Exception:
            continue
    return False


def _tokens(size: int) -> int:
    return -(-size // 4)


# what a host keeps of a long shell output without us: (over this many characters, it keeps this many)
# Claude Code: the Bash tool's maxResultSizeChars (30,000) and the 2,000-character preview of the
# spilled file (docs/agents.md). Other hosts: no cut known, the whole output counts.
HOST_CUTS = {"claude-code": (30_000, 2_000)}
HINT_BYTES = 160  # the refs hint line shown after an output with refs (operators.launcher.refs_hint), about


def host_bytes(raw_bytes: int, host: str | None) -> int:
    """The bytes of an output the host would have put in context without us."""
    cut = HOST_CUTS.get(host or "")
    if cut and raw_bytes > cut[0]:
        return cut[1]
    return raw_bytes


def _hint_bytes(info) -> int:
    """Our hint line after an output with refs: shown, so counted as visible."""
    if not info.refs:
        return 0
    try:
        from operators.launcher import refs_hint

        return len(refs_hint(info.id, "ID"))
    except Exception:  # noqa: BLE001 - the figure, not the report, is approximate then
        return HINT_BYTES


def gain(home: Path | str, host: str | None = "claude-code") -> GainReport:
    """The savings report over the packets the store holds and the recorded read backs: against what
    ``host`` would have shown without us (its cut applied), our hint lines counted as shown, and what
    was read back later taken off."""
    packets = read_packets(home)
    uses = read_uses(home)
    expanded: dict[str, float] = {}  # id -> the last time it was read back
    read_bytes: dict[str, int] = {}  # id -> bytes printed by its reads back
    quick = [use for use in uses if use.cmd == "run-quick"]  # fast-path runs: shown whole, nothing stored
    uses = [use for use in uses if use.cmd != "run-quick"]
    for use in uses:
        expanded[use.id] = max(use.t, expanded.get(use.id, use.t))
        read_bytes[use.id] = read_bytes.get(use.id, 0) + use.bytes
    rows: dict[str, GainRow] = {}
    total = GainRow(command="total")
    gap_reason = _gap_reason()
    for info in packets:
        hit = info.ceiling
        if hit is None and gap_reason is not None:
            hit = _hit_ceiling(Path(home) / "context", info.refs, gap_reason)
        row = rows.setdefault(command_of(info.source, info.type), GainRow(command=command_of(info.source, info.type)))
        shown = info.visible_bytes + _hint_bytes(info)
        reread = sum(read_bytes.get(i, 0) for i in {info.id, *info.refs})
        for r in (row, total):
            r.runs += 1
            r.raw_tokens += _tokens(info.raw_bytes)
            r.host_tokens += _tokens(host_bytes(info.raw_bytes, host))
            r.visible_tokens += _tokens(shown)
            r.expanded_tokens += _tokens(reread)
            r.refs += len(info.refs)
            r.refs_expanded += sum(1 for ref in set(info.refs) if expanded.get(ref, 0.0) >= info.created - 1)
            r.originals_restored += int(info.id in expanded)
            if hit is not None:
                r.ceiling_hits = (r.ceiling_hits or 0) + int(hit)
    for use in quick:
        row = rows.setdefault(command_of(use.id, ""), GainRow(command=command_of(use.id, "")))
        for r in (row, total):
            r.runs += 1
            r.raw_tokens += _tokens(use.bytes)
            r.host_tokens += _tokens(use.bytes)
            r.visible_tokens += _tokens(use.bytes)
    for r in [*rows.values(), total]:
        r.saved_tokens = r.host_tokens - r.visible_tokens - r.expanded_tokens
        r.saved_pct = round(100.0 * r.saved_tokens / r.host_tokens, 1) if r.host_tokens else 0.0
    ordered = sorted(rows.values(), key=lambda r: (-r.saved_tokens, r.command))
    since = min([i.created for i in packets] + [u.t for u in quick], default=None)
    return GainReport(home=str(home), rows=ordered, total=total, expansions=len(uses), since=since, host=host)


def format_gain(report: GainReport) -> str:
    """The report as a table, with what its numbers mean."""
    if not report.rows:
        return f"no packets in {report.home} yet: run something through tokens run or tokens analyze\n"
    head = ("COMMAND", "RUNS", "RAW", "HOST", "VISIBLE", "READ", "SAVED", "SAVED%", "REFS", "EXPANDED", "RESTORED",
            "CEILING")
    table = [head]
    for r in [*report.rows, report.total]:
        table.append((r.command[:40], f"{r.runs:,}", f"{r.raw_tokens:,}", f"{r.host_tokens:,}", f"{r.visible_tokens:,}",
                      f"{r.expanded_tokens:,}", f"{r.saved_tokens:,}", f"{r.saved_pct:.1f}%", f"{r.refs:,}",
                      f"{r.refs_expanded:,}", f"{r.originals_restored:,}",
                      "?" if r.ceiling_hits is None else f"{r.ceiling_hits:,}"))
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.insert(len(lines) - 1, "  ".join("-" * w for w in widths))
    since = time.strftime("%Y-%m-%d %H:%M", time.localtime(report.since)) if report.since else "?"
    lines += [
        "",
        f"Since {since}, over the packets {report.home} still holds (gc and retention remove old ones).",
        "Estimated tokens (bytes/4). RAW: the original outputs; HOST: what the host would have shown without",
        f"us (its own cut applied: {report.host or 'none'}); VISIBLE: what was shown, hint lines included; READ: what",
        "was read back later (expand, show-ref); SAVED = HOST - VISIBLE - READ (negative: the output grew).",
        "RUNS: distinct outputs (an identical output stored again counts once). EXPANDED: refs read back",
        f"later with tokens expand/show-ref ({report.expansions:,} reads recorded); RESTORED: whole originals read",
        "back (tokens expand --full pkt_…). CEILING: outputs cut to the output ceiling (their gaps are refs).",
    ]
    return "\n".join(lines) + "\n"
