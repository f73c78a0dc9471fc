"""Retrieval for an agent: slices of a ref (``expand --lines/--grep/--head/--tail``), ``tokens search``
over the refs of recent packets, ``tokens gain`` (the savings report), and the one hint line that says
how to expand what an output folded.

    tokens expand ID --lines A:B | --grep PATTERN [-C N] | --head N | --tail N
        A slice of a ref (or, with ``--full pkt_…``, of the restored original). The first line says
        which lines these are: ``[ctx_… lines 120-180 of 4,812]``; the lines follow as their exact
        bytes (``--grep`` prefixes each with its number, ``N:`` a match, ``N-`` context, like
        ``grep -n``). ``PATTERN`` is an RE2 regular expression, applied as data: linear time whatever
        it is, and a bad one is one clear error. ``expand ID`` with no option prints the raw bytes.
        Secret values (``operators.secrets``) in a slice read ``[secret hidden: --reveal shows it]``
        unless ``--reveal``; the ref of values a reduction hid prints only its size without it. With
        ``-o FILE`` the exact bytes are written (mode 0600). A caller that cannot say ``--reveal``
        (the MCP server) gets every expansion with its secrets hidden.

    tokens search PATTERN [--limit N] [--json]
        The refs of recent packets holding every word of PATTERN (``operators.index``): ref id,
        source, line numbers and the matching lines, bounded.

    tokens gain [--json]
        Savings over real use, per command and in total (``operators.usage``).

Every expansion is recorded (``operators.usage``) so ``gain`` can say how many refs were read back.
Also here: reading the hint line back (``strip_hint``; ``operators.launcher.refs_hint`` makes it),
``own_command`` (``run``
passes our own output through unreduced) and ``analyze_result`` (``analyze --json``). Nothing here
prints the trace or starts the graph.
"""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING

from operators.errors import UsageError

if TYPE_CHECKING:
    import argparse

    from operators.config import Config

GREP_MAX = 200  # matching lines --grep prints at most
PATTERN_MAX = 1000  # characters of a --grep pattern
PROGRESS_MIN = 50 * 1024 * 1024  # operators.trace.PROGRESS_MIN (a restore this big says so on a terminal)
LINE_MAX = 2000  # bytes of one line --grep and search print (the rest: --lines N:N gives it whole)
REVEAL_MARK = b"[secret hidden: --reveal shows it]"
HINT_RE = re.compile(rb"(?:^|(?<=\n))\[(?:refs: [^\n]*?expand [^\n]*|full output: [^\n]*?expand --full pkt_[0-9a-f]+)\]\n?\Z")


class SliceError(UsageError):
    """A slice option that cannot be applied (a bad range, a bad pattern): exit status 2."""


# ------------------------------------------------------------------------------------------ hint line


def strip_hint(text: bytes) -> list[bytes]:
    """What ``text`` was before ``run`` appended its hint line (with or without the newline added
    before it); empty when it ends with no hint line."""
    m = HINT_RE.search(text)
    if not m:
        return []
    bare = text[: m.start()]
    return [bare, bare[:-1]] if bare.endswith(b"\n") else [bare]


# --------------------------------------------------------------------------------------- own commands


def own_command(cmd: list[str]) -> bool:
    """Whether ``cmd`` runs ``tokens`` itself (the console script, or ``python -m flows.cli``): its
    output (an expanded ref, a restored original) is never reduced again."""
    if not cmd:
        return False
    base = os.path.basename(cmd[0])
    if base in ("tokens", "tokens-run.sh"):
        return True
    return base.startswith("python") and "flows.cli" in cmd[1:4]


# ------------------------------------------------------------------------------------------ slicing


def line_starts(data: bytes) -> list[int]:
    """The offset of each line of ``data`` (lines end with ``\\n``; a last line without one counts)."""
    starts = [0]
    find = data.find
    at = find(b"\n")
    while at != -1:
        starts.append(at + 1)
        at = find(b"\n", at + 1)
    if starts[-1] == len(data):
        starts.pop()
    return starts


def parse_range(text: str, total: int) -> tuple[int, int]:
    """``A:B``, ``A:``, ``:B`` or ``A`` (1-based, inclusive) clipped to ``1..total``."""
    m = re.fullmatch(r"\s*(\d*)\s*(?::\s*(\d*)\s*)?", text)
    if not m or (not m.group(1) and not m.group(2)):
        raise SliceError(f"--lines wants A:B (1-based, inclusive; A: or :B also work), not {text!r}")
    first = int(m.group(1)) if m.group(1) else 1
    last = int(m.group(2)) if m.group(2) else (total if m.group(2) is not None or ":" in text else first)
    if first < 1 or last < first:
        raise SliceError(f"--lines {text}: the range must start at 1 or later and not end before it starts")
    return first, min(last, total)


def compile_pattern(pattern: str):
    """An RE2 pattern over bytes that matches within one line (``^`` and ``$`` at the line's ends, no
    match across a newline); SliceError (one line) when it is not a valid one."""
    import re2

    if len(pattern) > PATTERN_MAX:
        raise SliceError(f"--grep pattern longer than {PATTERN_MAX} characters")
    options = re2.Options()
    options.log_errors = False
    options.never_nl = True
    try:
        return re2.compile(b"(?m)" + pattern.encode(), options)
    except re2.error as exc:
        detail = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise SliceError(f"bad --grep pattern {pattern!r}: {detail}") from None


def _lines(data: bytes, starts: list[int], first: int, last: int) -> bytes:
    """Lines ``first..last`` (1-based, inclusive) as their exact bytes."""
    if first > last:
        return b""
    end = starts[last] if last < len(starts) else len(data)
    return data[starts[first - 1] : end]


def _clip(line: bytes, number: int) -> bytes:
    if len(line) <= LINE_MAX:
        return line
    return line[:LINE_MAX] + f" … [{len(line) - LINE_MAX:,} more bytes: --lines {number}]".encode()


def _matching_lines(regex, data: bytes, starts: list[int]) -> list[int]:
    """Indexes of the lines holding a match: one search of the whole buffer per matching line (RE2,
    linear), going on from the next line's start."""
    from bisect import bisect_right

    total, size = len(starts), len(data)
    found: list[int] = []
    pos = 0
    while total:
        m = regex.search(data, pos)
        if m is None or (m.start() == size and data.endswith(b"\n")):  # after the last newline: no line there
            break
        i = bisect_right(starts, m.start()) - 1
        found.append(i)
        if i + 1 >= total:
            break
        pos = starts[i + 1]
    return found


def grep_lines(data: bytes, starts: list[int], pattern: str, context: int) -> tuple[bytes, int, int]:
    """``grep -n -C context``: (the numbered lines, matching lines, matching lines not printed)."""
    regex = compile_pattern(pattern)
    total = len(starts)
    matches = _matching_lines(regex, data, starts)
    shown, more = matches[:GREP_MAX], max(0, len(matches) - GREP_MAX)
    out = []
    prev = -1
    hits = set(shown)
    for i in shown:
        lo, hi = max(0, i - context), min(total - 1, i + context)
        if context and prev >= 0 and lo > prev + 1:  # like grep: groups of context apart
            out.append(b"--\n")
        for j in range(max(lo, prev + 1), hi + 1):
            line = _lines(data, starts, j + 1, j + 1)
            body = _clip(line.rstrip(b"\n"), j + 1)
            out.append(b"%d%s%s\n" % (j + 1, b":" if j in hits else b"-", body))
        prev = max(prev, hi)
    return b"".join(out), len(matches), more


def slice_text(name: str, data: bytes, args: argparse.Namespace) -> bytes:
    """The header line and the asked slice of ``data`` (a ref's content or an original)."""
    starts = line_starts(data)
    total = len(starts)
    of = f"of {total:,}"
    if args.grep is not None:
        body, found, more = grep_lines(data, starts, args.grep, args.context or 0)
        head = f"[{name} grep {args.grep!r}: {found:,} matching line{'s' if found != 1 else ''} {of}"
        head += f"; first {GREP_MAX} shown, narrow the pattern or use --lines]" if more else "]"
        return head.encode() + b"\n" + body
    if args.lines is not None:
        first, last = parse_range(args.lines, total)
    elif args.head is not None:
        first, last = 1, min(args.head, total)
    else:
        first, last = max(1, total - args.tail + 1), total
    body = _lines(data, starts, first, last)
    where = f"lines {first:,}-{last:,}" if first <= last else "no lines"
    head = f"[{name} {where} {of}]\n".encode()
    if body and not body.endswith(b"\n"):
        body += b"\n[no newline at the end of this ref]\n"
    return head + body


def wants_slice(args: argparse.Namespace) -> bool:
    return any(getattr(args, k, None) is not None for k in ("lines", "grep", "head", "tail"))


def check_slice_args(args: argparse.Namespace) -> None:

    given = [k for k in ("lines", "grep", "head", "tail") if getattr(args, k, None) is not None]
    if len(given) > 1:
        raise UsageError("give one of --lines, --grep, --head, --tail")
    if args.context is not None and args.grep is None:
        raise UsageError("-C/--context goes with --grep")
    for k in ("head", "tail", "context"):
        value = getattr(args, k, None)
        if value is not None and value < 0:
            raise UsageError(f"--{k} must be 0 or more")


# -------------------------------------------------------------------------------------- the commands


def expand_output(store, args: argparse.Namespace) -> tuple[bytes, str]:
    """What ``tokens expand`` prints, and the id it read (for the usage record)."""
    from operators.store import PKT_ID_RE, normalize_ref_id

    check_slice_args(args)
    hidden = not getattr(args, "reveal", False) and not getattr(args, "output", None)
    if not args.full:
        ref_id = normalize_ref_id(args.target)
        ref = store.get(ref_id)
        data, name = ref.content, ref_id
        if hidden and _secrets_ref(ref.reason):  # its bytes are all secret values
            return f"[{len(data):,} bytes of secret values hidden: tokens expand {ref_id} --reveal]\n".encode(), ref_id
    elif PKT_ID_RE.fullmatch(args.target):
        manifest = store.get_manifest(args.target)
        if manifest.raw_bytes >= PROGRESS_MIN and sys.stderr.isatty():  # operators.trace imports structlog: only then
            from operators.trace import progress

            progress("restoring", manifest.id, manifest.raw_bytes)
        data, name = store.restore(manifest, store.get_visible(manifest)), f"{manifest.id} (original)"
    else:
        data, pkt_id = _restore_file(store, args.target)
        name = f"{pkt_id} (original)"
    if wants_slice(args):
        data = slice_text(name, data, args)
    if hidden and (wants_slice(args) or not hasattr(args, "reveal")):
        data = hide_secrets(data)  # a slice, or anything for a caller that cannot ask to reveal (MCP)
    return data, name.split(" ")[0]


def hide_secrets(data: bytes) -> bytes:
    """``data`` with its secret values shown as ``[secret hidden]`` (``operators.secrets``)."""
    from operators.secrets import hide

    return hide(data, REVEAL_MARK)


def _secrets_ref(reason: str) -> bool:
    from operators.secrets import holds_only_secrets

    return holds_only_secrets(reason)


def _restore_file(store, path: str) -> tuple[bytes, str]:
    """The original of a reduced text saved to a file: as printed by ``analyze``, or by ``run``
    (its last line, the expand hint, is not part of the packet's visible text); and the packet's id."""
    from flows.options import check_readable
    from operators.sources import read_input
    from operators.store import StoreError

    check_readable(path)
    visible = read_input(path)
    try:
        manifest = store.find_manifest_for_visible(visible)
    except StoreError:
        for bare in strip_hint(visible):
            if store.find_manifests_for_visible(bare):
                manifest, visible = store.find_manifest_for_visible(bare), bare
                break
        else:
            raise
    return store.restore(manifest, visible), manifest.id


def expand_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", help="ref id; with --full: a reduced file or a packet id (pkt_…)")
    p.add_argument("--full", action="store_true", help="restore the whole original input")
    p.add_argument("-o", "--output", help="write to this file instead of stdout")
    p.add_argument("--lines", metavar="A:B", help="only lines A to B (1-based, inclusive)")
    p.add_argument("--grep", metavar="PATTERN", help="only lines matching this RE2 regular expression, numbered")
    p.add_argument("-C", "--context", type=int, metavar="N", help="with --grep: N lines of context around each match")
    p.add_argument("--head", type=int, metavar="N", help="only the first N lines")
    p.add_argument("--tail", type=int, metavar="N", help="only the last N lines")
    p.add_argument("--reveal", action="store_true",
                   help="show secret values (tokens, keys, passwords) in a slice; they are hidden otherwise")
    p.set_defaults(func=cmd_expand)


def cmd_expand(args: argparse.Namespace, config: Config) -> int:

    from operators.config import home_path
    from operators.store import Store
    from operators.usage import record_use

    home = home_path(config)
    data, read = expand_output(Store(home), args)
    record_use(home, "expand", read, args, len(data))
    if args.output:  # atomically, never through a symlink (one clear error, like a store path)
        from operators.store import replace_file

        replace_file(args.output, data, "output file")  # 0600: it may hold what the store keeps private
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    return 0


def search_text(home, pattern: str, limit: int) -> tuple[str, list]:
    """The printed search results and the hits (see ``operators.index.search``)."""
    from operators.index import search

    hits, scanned = search(home, pattern, limit=limit)
    if not hits:
        return f"no stored ref of the recent packets holds {pattern!r} ({scanned} refs indexed)\n", hits
    out = []
    for hit in hits:
        hit.source = hide_secrets(hit.source.encode()).decode("utf-8", "replace")  # a command line may hold one
        lines = ", ".join(str(n) for n, _ in hit.lines[:8])
        out.append(f"{hit.ref} | {hit.source} | line{'s' if len(hit.lines) != 1 else ''} {lines}"
                   f"{' …' if hit.more_lines else ''}")
        for number, text in hit.lines[:8]:
            out.append(f"  {number}: {text}")  # secret values hidden by operators.index
    from operators.launcher import tokens_command

    out.append(f"[{len(hits)} ref{'s' if len(hits) != 1 else ''}; read one: {tokens_command()} expand ID --grep PAT -C 3]")
    return "\n".join(out) + "\n", hits


def search_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("pattern", help="words to find (every one of them, case-insensitive)")
    p.add_argument("--limit", type=int, default=10, help="refs to show at most (default 10)")
    p.add_argument("--json", action="store_true", help="the hits as JSON")
    p.set_defaults(func=cmd_search)


def cmd_search(args: argparse.Namespace, config: Config) -> int:
    import msgspec

    from operators.config import home_path

    if not args.pattern.strip():
        raise UsageError("tokens search needs a word to look for")
    if args.limit < 1:
        raise UsageError("--limit must be 1 or more")
    text, hits = search_text(home_path(config), args.pattern, args.limit)
    if args.json:
        sys.stdout.write(msgspec.json.encode(hits).decode() + "\n")
    else:
        sys.stdout.write(text)
    sys.stdout.flush()
    return 0


def gain_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="the report as JSON")
    p.set_defaults(func=cmd_gain)


def cmd_gain(args: argparse.Namespace, config: Config) -> int:
    import msgspec

    from operators.config import home_path
    from operators.usage import format_gain, gain

    host = getattr(getattr(config, "ceiling", None), "host", None) or "claude-code"  # whose cut the baseline gets
    report = gain(home_path(config), host)
    sys.stdout.write(msgspec.json.encode(report).decode() + "\n" if args.json else format_gain(report))
    sys.stdout.flush()
    return 0


# ------------------------------------------------------------------------------ analyze --json result


def analyze_result(packet, text: bytes, figures: dict) -> bytes:
    """``tokens analyze --json``: the printed text, its refs, the packet, figures, invariants and trace,
    as one JSON object. ``visible`` is the text as UTF-8 (invalid bytes replaced); when it is not valid
    UTF-8 its exact bytes are in ``visible_base64`` too."""
    import base64

    import msgspec

    m = packet.measure
    result = {
        "source": packet.source,
        "type": packet.type,
        "visible": text.decode("utf-8", "replace"),
        "refs": [{"id": r.id, "bytes": len(r.content), "reason": r.reason} for r in packet.references],
        "packet": packet.manifest_id,
        "figures": {**figures, "raw_bytes": m.raw_bytes, "visible_bytes": m.visible_bytes,
                    "raw_est_tokens": m.raw_tokens, "visible_est_tokens": m.visible_tokens,
                    "referenced_bytes": m.referenced_bytes, "saved_pct": round(m.saved_pct, 1)},
        "invariants": {"signal": packet.signal_pass, "recovery": packet.recovery_pass, "restore": packet.restore_pass},
        "missing_signals": packet.missing_signals,
        "guard": packet.guard,
        "trace": [{"stage": e.stage, **e.figures} for e in packet.trace],
    }
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        result["visible_base64"] = base64.b64encode(text).decode()
    return msgspec.json.encode(result) + b"\n"
