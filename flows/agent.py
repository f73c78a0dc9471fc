"""Agent-facing commands: ``tokens run`` and ``tokens pack``.

    tokens run [--level 0|1] [--raw] -- CMD ARGS…
        Run CMD (no shell; stdout and stderr captured together, in order) in its own process group.
        Its output is a stream source (``operators.runsource``): cut into windows as it is produced,
        each reduced by the graph (source ``run: CMD ARGS``) and printed as soon as it is done
        (``window_text`` decides what one window shows), so a signal line shows within a second.
        Exit with CMD's exit code (128+N when a signal N killed it, 127 when CMD does not exist, 126
        when it cannot be executed). A failed command's output starts with
        ``[command failed: exit code N]`` when the whole output was one window (a command that ends
        at once: the common case, exactly as a batch run); after windows already printed it is the
        last line instead. The last line (``operators.launcher.refs_hint``: ``… whole original: tokens
        expand --full pkt_…]``) names one packet for the
        whole output: the window's own, or for several windows one more packet stored at the end
        whose visible text is the windows' texts in order and whose layout is theirs (its refs are
        the windows' refs), so ``expand --full`` gives the entire original byte for byte.
        SIGINT, SIGTERM and SIGHUP (a caller's ``timeout``, Ctrl-C, a closed terminal) are forwarded
        to CMD's process group; what CMD prints in the next moments is still read, everything is
        printed and stored, the group is killed if still there a second later (no orphans), and the
        exit status is 128+N. When CMD exits but a background child keeps the pipe open, reading
        stops once the pipe is quiet (0.1 s, 1 s at most): the child does not hold ``tokens``.
        ``--raw`` prints the output unchanged (no failure line, no pointer), window by window, and
        still stores it.

    tokens pack --budget N PATH… [--json]
        Reduce each input, then print as much signal as fits in N estimated tokens, headers included
        (see ``operators.pack``); what is left out is named with the command that gets it back.

Both keep the reduced text under ``<home>/out/<pkt>.reduced`` so ``tokens expand --full pkt_…`` works.
The trace goes nowhere unless ``--trace`` (then to stderr): stdout is for the agent.
Their arguments are declared here (``run_arguments``, ``pack_arguments``), when ``flows.cli`` parses one of them.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import _signal as signal  # the signal module's functions without its enums (building them costs every run ~1 ms)

from operators.errors import UsageError, say
from operators.digest import sha256_hex, sha256_stream

if TYPE_CHECKING:
    import argparse

SOURCE_MAX = 200  # characters of the command line kept as the packet's source
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # passed on to the command's process group
REAP_GRACE = 1.0  # seconds an interrupted command has to exit before its group is killed


def _quiet_trace(enabled: bool) -> None:
    from operators.trace import configure_trace

    if enabled:
        configure_trace()
    else:
        configure_trace(json=True, stream=open(os.devnull, "w"))


def _exit_code(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


class _Run:
    """What one ``tokens run`` has printed and stored so far (its windows arrive one by one)."""

    def __init__(self, args: argparse.Namespace, out):
        self.args = args
        self.config = None  # the run's config: level 0 asks its registry (a type it adds)
        self.out = out
        self.signum = 0  # the first SIGINT/SIGTERM/SIGHUP received (forwarded to the command)
        self.closed = False  # our reader went away (| head)
        self.windows = 0
        self.first: object = None  # the first window's packet (kept while it may be the only one)
        self.parts: list[tuple[str, bytes]] = []  # (manifest id, visible) of every window, for the whole packet
        self.raw_sha = None  # the whole output's sha256, hashed from the second window on
        self.raw_bytes = 0
        self.any_refs = False
        self.stored = True  # every window's refs were written
        self.failed_checks: set[str] = set()
        self.header_printed = False
        self.ends_with_newline = True
        self.budget = None  # the output ceiling the windows share (operators.ceiling.RunBudget)
        self.unshown = [0, 0]  # windows not printed (the ceiling was reached before them), their lines
        self.ceiling_hit = False  # a window was cut to the ceiling, or not printed


def window_text(packet, level: int, raw: bool, config=None) -> bytes:
    """The bytes one window shows: the only place a window's printed text is decided."""
    if raw or packet.error:
        text = packet.raw
        if packet.error and not raw:  # nothing stored: a bounded view, never the raw flood
            from operators.ceiling import budget_of
            from operators.safety import fallback_view

            text = fallback_view(packet.raw, budget_of(packet, None))
        if packet.error and packet.exit_code:
            text = f"[command failed: exit code {packet.exit_code}]\n".encode() + text
        return text
    if level == 0:
        from operators.overview import overview  # (level 1, the default, needs none of it)

        text = overview(packet, config)
        return packet.visible if len(packet.visible) <= len(text) else text
    return packet.visible


def _on_window(run: _Run, packet) -> None:
    """Print one window as soon as the graph has finished it, and note what the run needs at its end."""
    run.windows += 1
    if run.windows == 1:
        run.first = packet
    if run.windows == 2:  # a single window's packet has its own raw_sha256
        run.raw_sha = sha256_stream(run.first.raw)
    if run.windows >= 2:
        run.raw_sha.update(packet.raw)
    run.raw_bytes += len(packet.raw)
    if packet.error:  # e.g. the store is full: its markers would name refs never written
        run.stored = False
        if not run.args.raw:
            say(f"{packet.error}; head, signal lines and tail follow")
    else:
        run.parts.append((packet.manifest_id, packet.visible))
        run.any_refs = run.any_refs or bool(packet.references)
        run.ceiling_hit = run.ceiling_hit or "output ceiling" in packet.guard
        run.failed_checks.update(name for name, ok in (("SIGNAL", packet.signal_pass), ("RECOVERY", packet.recovery_pass),
                                                       ("RESTORE", packet.restore_pass)) if ok is False)
    text = window_text(packet, run.args.level, run.args.raw, run.config)
    if run.budget is not None and text and not run.budget.spend(packet.budget, len(text), packet.last):
        run.unshown[0] += 1  # over the ceiling: counted on the last lines, kept in the whole packet
        run.unshown[1] += packet.raw.count(b"\n")
        run.budget.absorb(packet.raw)  # its signal templates: shown at the end
        run.any_refs = True
        return
    run.header_printed = run.header_printed or bool(packet.exit_code)
    if run.closed or not text:
        return
    try:
        run.out.write(text)
        run.out.flush()
    except BrokenPipeError:
        run.closed = True
        return
    run.ends_with_newline = text.endswith(b"\n")


def _store_whole(run: _Run, config, source: str) -> str:
    """Store the whole output of a run of several windows as one packet: its visible text is the
    windows' visible texts one after the other, its layout theirs (offsets and ref indexes moved), so
    ``tokens expand --full`` gives the entire original. Returns its id ('' when it cannot be stored)."""
    import time

    import msgspec

    from operators.config import home_path
    from operators.reduction import FROM_VISIBLE, Layout
    from operators.store import Manifest, Store, StoreError, manifest_layout

    store = Store(home_path(config))
    entries: list[list[int]] = []
    markers: list[list[int]] = []
    refs: list[str] = []
    vbase = 0
    try:
        kinds = set()
        for pkt_id, visible in run.parts:
            part = store.get_manifest(pkt_id)
            kinds.add(part.type)
            rbase = len(refs)
            for entry in manifest_layout(part):
                entry = list(entry)
                entry[1] += vbase if entry[0] == FROM_VISIBLE else rbase
                entries.append(entry)
            markers.extend([m[0] + vbase, m[1] + rbase, *m[2:]] for m in part.markers)
            refs.extend(part.refs)
            vbase += len(visible)
        visible = b"".join(v for _, v in run.parts)
        manifest = Manifest(id="", source=source, type=kinds.pop() if len(kinds) == 1 else "mixed",
                            raw_bytes=run.raw_bytes, raw_sha256=run.raw_sha.hexdigest(), visible_bytes=len(visible),
                            visible_sha256=sha256_hex(visible), refs=refs,
                            layout=msgspec.Raw(Layout.from_lists(entries).to_json()), markers=markers,
                            created=time.time(), ceiling=run.ceiling_hit or bool(run.unshown[0]))
        pkt_id = store.put_manifest(manifest)
        store.put_visible(pkt_id, visible)
    except (StoreError, OSError, ValueError) as exc:
        print(f"tokens: warning: the whole output could not be stored as one packet ({exc}); "
              "each window's refs are kept", file=sys.stderr)
        return ""
    return pkt_id


def _start(cmd: list[str]):
    """Start CMD in its own process group (signals reach all of it); (proc, None) or (None, exit code)."""
    import subprocess

    from flows.watchdog import cancel, prepare, watch

    handle = prepare()  # the watchdog first: once the command runs, one write hands it the group
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=None,
                                start_new_session=True)
    except OSError as exc:
        from flows.quick import cannot_start

        cancel(handle)
        return None, cannot_start(cmd, exc)
    watch(handle, proc.pid)  # killed outright, tokens takes the command's group with it (flows/watchdog.py)
    return proc, None


def _signal_group(proc, signum: int) -> None:
    try:
        os.killpg(proc.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _reap(proc, interrupted: bool) -> None:
    """After the output is done: an interrupted command gets REAP_GRACE s to go, then its whole group
    is killed (no orphans); otherwise the command has exited already (background children it left
    are its own business)."""
    if interrupted:
        import subprocess  # (a command that exited needs only its wait: no subprocess module)

        try:
            proc.wait(timeout=REAP_GRACE)
        except subprocess.TimeoutExpired:
            pass
        _signal_group(proc, signal.SIGKILL)
    proc.wait()


def run_arguments(p: argparse.ArgumentParser) -> None:
    import argparse

    from flows.options import add_budget_and_host, add_granularity, add_type

    p.description = ("Run CMD without a shell (use `bash -c '…'` for pipes), reduce its combined stdout+stderr "
                     "and exit with its exit code.")
    add_budget_and_host(p)
    p.add_argument("--level", type=int, choices=[0, 1], default=1,
                   help="0: a few lines (counts, first signals, refs); 1: the reduced output (default)")
    add_granularity(p)
    add_type(p)
    p.add_argument("--trace", action="store_true", help="print the stage trace on stderr")
    p.add_argument("--raw", action="store_true", help="print the output unchanged (it is still stored)")
    p.add_argument("--stream", action="store_true",
                   help="print window by window as the output comes (default: the whole output reduced at "
                        "once when the command ends, exactly as tokens analyze; a signal prints what came)")
    p.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- CMD ARGS", help="the command to run")
    p.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace, config) -> int:
    from flows.runner import run_source
    from operators.launcher import shell_join
    from operators.runsource import RunSource

    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError("tokens run needs a command: tokens run -- CMD ARGS…")
    from flows.retrieve import own_command

    args.raw = args.raw or own_command(cmd)  # our own output (an expanded ref, …) is never reduced again
    source = "run: " + shell_join(cmd)
    if len(source) > SOURCE_MAX:
        source = source[: SOURCE_MAX - 1] + "…"
    _quiet_trace(args.trace)
    flow_source = None  # built after the command starts; the handlers below may fire before
    from flows.quick import take_started

    started = take_started(cmd)  # a command the fast path started and handed over (signals blocked)
    proc, code = (started.child, 0) if started is not None else _start(cmd)
    if proc is None:
        return code
    run = _Run(args, sys.stdout.buffer)
    run.config = config

    def on_signal(signum, frame) -> None:
        if run.signum:  # a second one: no more grace
            _signal_group(proc, signal.SIGKILL)
            return
        run.signum = signum
        _signal_group(proc, signum)
        if flow_source is not None:
            flow_source.stop()

    previous = {sig: signal.signal(sig, on_signal) for sig in FORWARDED}
    if started is not None:
        started.unblock()  # a signal that came while the fast path held the command is handled now
    try:
        flow_source = RunSource(proc, source, config, granularity=args.granularity or config.reduce.granularity,
                                forced_type=args.type, initial=started.data if started else b"",
                                ended=bool(started and started.eof))
        flow_source.stream = bool(getattr(args, "stream", False))
        if not args.raw:  # one window has the run's budget, as analyze; several share it
            from flows.options import budget
            from operators.ceiling import run_budget

            flow_source.budget_tokens = budget(args.budget)
            flow_source.budget = run.budget = run_budget(flow_source.budget_tokens, config)
        if run.signum:
            flow_source.stop()

        def on_window(packet) -> None:
            _on_window(run, packet)
            if run.closed and not run.signum:  # the reader went away: stop the command as a pipe would
                on_signal(signal.SIGPIPE, None)

        try:
            run_source(flow_source, on_window, config)  # the graph, or its steps alone for a finished command
        finally:
            _reap(proc, interrupted=bool(run.signum) or proc.poll() is None)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    code = _exit_code(proc.returncode)
    return _finish(run, config, source, 128 + run.signum if run.signum else code, code)


def _finish(run: _Run, config, source: str, status: int, code: int) -> int:
    """The run's last lines: the failure line when the first window could not carry it, the pointer to
    the full output, the failed checks (stderr). Returns ``status``."""
    lines = _closing_lines(run, config, source, status)
    if lines and not run.ends_with_newline:  # a closing line starts a line of its own; nothing else is added
        lines = b"\n" + lines
    if lines and not run.closed:
        try:
            run.out.write(lines)
            run.out.flush()
        except BrokenPipeError:
            pass
    if run.failed_checks:
        failed = [name for name in ("SIGNAL", "RECOVERY", "RESTORE") if name in run.failed_checks]
        print(f"tokens: warning: {'/'.join(failed)} check failed for this output"
              + ("; the original is not recoverable" if "RESTORE" in failed else ""), file=sys.stderr)
    return status


def _closing_lines(run: _Run, config, source: str, status: int) -> bytes:
    """The failure line when the first window could not carry it and the pointer to the full output
    (none with ``--raw``); an output of several windows is stored whole as one packet all the same."""
    if run.args.raw:
        if run.windows > 1 and run.stored:
            _store_whole(run, config, source)
        return b""
    lines = b""
    if status and not run.header_printed:
        lines += f"[command failed: exit code {status}]\n".encode()
    pkt_id = ""
    if run.any_refs and run.stored:
        pkt_id = run.first.manifest_id if run.windows == 1 else _store_whole(run, config, source)
    elif run.windows > 1 and run.stored:
        _store_whole(run, config, source)  # kept as one packet all the same
    if run.unshown[0]:
        from operators.launcher import tokens_command

        lines += run.budget.summary()
        lines += (f"[… {run.unshown[1]:,} more lines in {run.unshown[0]:,} window{'s' if run.unshown[0] != 1 else ''}"
                  f" not shown (output ceiling): {tokens_command()} expand --full {pkt_id or 'pkt_…'}]\n").encode()
    if pkt_id and run.args.level != 0:
        from operators.launcher import refs_hint  # one line: how to expand a ref, and the whole original

        lines += refs_hint(pkt_id)
    return lines


def pack_arguments(p: argparse.ArgumentParser) -> None:
    from flows.options import add_granularity

    p.add_argument("paths", nargs="+", metavar="PATH", help="files to reduce and pack (- for stdin)")
    p.add_argument("--budget", type=int, required=True, help="estimated tokens (bytes/4) the printed text may use")
    add_granularity(p)
    p.add_argument("--json", action="store_true", help="print a JSON report (the packed text is its 'text' field)")
    p.add_argument("--trace", action="store_true", help="print the stage trace on stderr")
    p.set_defaults(func=cmd_pack)


def cmd_pack(args: argparse.Namespace, config) -> int:
    import msgspec

    from flows.options import check_readable
    from flows.runner import run_packets
    from operators.pack import pack
    from operators.packet import ContextPacket
    from operators.sources import file_packets

    if args.budget < 1:
        raise UsageError("--budget must be a positive number of estimated tokens")
    granularity = args.granularity or config.reduce.granularity
    if args.paths.count("-") > 1:
        raise UsageError("stdin (-) can be packed only once")
    packets = []
    for path in args.paths:
        if path == "-":
            packets.append(ContextPacket(source="stdin", raw=sys.stdin.buffer.read(), granularity=granularity))
        else:
            check_readable(path)
            packets.extend(file_packets([path], [granularity]))
    from operators.ceiling import settings_of

    for packet in packets:  # no input's reduction is cut below the pack's own budget
        packet.budget = max(args.budget, settings_of(config).max_chars // 4)
    _quiet_trace(args.trace)
    done = run_packets(packets, args.config, config)
    errors = [p for p in done if p.error]
    if errors:
        raise UsageError(errors[0].error)
    text, result = pack(done, args.budget, config)  # PackError: a budget too small, exit status 2
    if args.json:
        sys.stdout.write(msgspec.json.encode(result).decode() + "\n")
    else:
        sys.stdout.buffer.write(text)
    sys.stdout.flush()
    return 0
