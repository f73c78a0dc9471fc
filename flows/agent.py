"""Agent-facing commands: ``tokens run`` and ``tokens pack``.

    tokens run [--level 0|1] -- CMD ARGS…
        Run CMD (no shell; stdout and stderr captured together, in order), reduce its output through
        the graph (source ``run: CMD ARGS``, its exit code on the packet), print the result and exit
        with CMD's exit code (128+N when a signal N killed it, 127 when CMD does not exist, 126 when
        it cannot be executed). A failed command's output starts with ``[command failed: exit code N]``.

    tokens pack --budget N PATH… [--json]
        Reduce each input, then print as much signal as fits in N estimated tokens, headers included
        (see ``operators.pack``); what is left out is named with the command that gets it back.

Both keep the reduced text under ``<home>/out/<pkt>.reduced`` so ``tokens expand --full pkt_…`` works.
The trace goes nowhere unless ``--trace`` (then to stderr): stdout is for the agent.
Their arguments are declared in ``flows.cli``, which imports this module only to run one of them.
"""

from __future__ import annotations

import argparse
import os
import sys

SOURCE_MAX = 200  # characters of the command line kept as the packet's source


def _quiet_trace(enabled: bool) -> None:
    from operators.trace import configure_trace

    if enabled:
        configure_trace()
    else:
        configure_trace(json=True, stream=open(os.devnull, "w"))


def _exit_code(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


def cmd_run(args: argparse.Namespace, config) -> int:
    import shlex
    import subprocess

    from flows.cli import UsageError, run_packets
    from operators.overview import overview
    from operators.packet import ContextPacket

    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError("tokens run needs a command: tokens run -- CMD ARGS…")
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except FileNotFoundError:
        print(f"tokens: error: command not found: {cmd[0]}", file=sys.stderr)
        return 127
    except PermissionError:
        print(f"tokens: error: cannot execute (permission denied): {cmd[0]}", file=sys.stderr)
        return 126
    except OSError as exc:
        print(f"tokens: error: cannot execute {cmd[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 126
    try:
        output, _ = proc.communicate()
    except KeyboardInterrupt:
        proc.kill()
        proc.wait()
        raise
    code = _exit_code(proc.returncode)

    source = "run: " + shlex.join(cmd)
    if len(source) > SOURCE_MAX:
        source = source[: SOURCE_MAX - 1] + "…"
    packet = ContextPacket(source=source, raw=output, exit_code=code, forced_type=args.type,
                           granularity=args.granularity or config.reduce.granularity)
    out = sys.stdout.buffer
    _quiet_trace(args.trace)
    try:
        [packet] = run_packets([packet], args.config, config)
        if packet.error:  # e.g. the store is full: its markers would name refs never written
            raise RuntimeError(packet.error)
    except Exception as exc:  # never lose the command's output because the reduction failed
        print(f"tokens: warning: reduction failed ({type(exc).__name__}: {exc}); raw output follows", file=sys.stderr)
        if code:
            out.write(f"[command failed: exit code {code}]\n".encode())
        out.write(output)
        out.flush()
        return code
    if args.level == 0:
        text = overview(packet)
        if len(packet.visible) <= len(text):  # the whole reduced output is no longer than its overview
            text = packet.visible
    else:
        text = packet.visible
        if packet.references:
            lead = b"" if not text or text.endswith(b"\n") else b"\n"
            text += lead + f"[full output: tokens expand --full {packet.manifest_id}]\n".encode()
    out.write(text)
    if text and not text.endswith(b"\n"):
        out.write(b"\n")
    out.flush()
    failed = [name for name, ok in (("SIGNAL", packet.signal_pass), ("RECOVERY", packet.recovery_pass),
                                    ("RESTORE", packet.restore_pass)) if ok is False]
    if failed:
        print(f"tokens: warning: {'/'.join(failed)} check failed for this output; the original is "
              f"{'kept: tokens expand --full ' + packet.manifest_id if 'RESTORE' not in failed else 'not recoverable'}",
              file=sys.stderr)
    return code


def cmd_pack(args: argparse.Namespace, config) -> int:
    import msgspec

    from flows.cli import UsageError, _check_readable, run_packets
    from operators.pack import PackError, pack
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
            _check_readable(path)
            packets.extend(file_packets([path], [granularity]))
    _quiet_trace(args.trace)
    done = run_packets(packets, args.config, config)
    errors = [p for p in done if p.error]
    if errors:
        raise UsageError(errors[0].error)
    try:
        text, result = pack(done, args.budget, config)
    except PackError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        sys.stdout.write(msgspec.json.encode(result).decode() + "\n")
    else:
        sys.stdout.buffer.write(text)
    sys.stdout.flush()
    return 0
