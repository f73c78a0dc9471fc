"""The ``tokens`` command: parses arguments and runs the same graph as ``python -m bytewax.run flows.reduce``.

Every user-facing problem (missing file, bad id, corrupt store file, bad config) is one line on
stderr starting with ``tokens: error:`` and a non-zero exit; never a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import msgspec
from bytewax._bytewax import run_main  # bytewax.testing re-exports it but imports asyncio

from flows import agent as agent_cmd
from flows import tail as tail_cmd
from flows.reduce import get_flow
from operators.config import Config, ConfigError, home_path, load_config
from operators.packet import ContextPacket
from operators.overview import overview
from operators.report import benchmark_rows, format_table
from operators.sources import CallbackSink, file_packets, fixture_paths, unreadable_reason
from operators.store import PKT_ID_RE, Store, StoreError
from operators.tokens import estimate_tokens
from operators.trace import configure_trace, emit


class UsageError(Exception):
    """Bad input from the user: reported as one line."""


def run_packets(packets: list[ContextPacket], config_path: str | None = None) -> list[ContextPacket]:
    """Run packets through the graph in this process and return them finished, in input order."""
    done: list[ContextPacket] = []
    run_main(get_flow(packets=packets, sink=CallbackSink(done.append), config_path=config_path))
    order = {id(p): i for i, p in enumerate(packets)}
    done.sort(key=lambda p: order.get(id(p), 0))
    return done


def _stdin_packet(granularity: str) -> ContextPacket:
    data = sys.stdin.buffer.read()
    return ContextPacket(source="stdin", raw=data, granularity=granularity)


def _check_readable(path: str) -> None:
    problem = unreadable_reason(path)
    if problem:
        raise UsageError(problem)


def cmd_analyze(args: argparse.Namespace, config: Config) -> int:
    granularity = args.granularity or config.reduce.granularity
    if args.path == "-":
        packet = _stdin_packet(granularity)
    else:
        _check_readable(args.path)
        packet = file_packets([args.path], [granularity])[0]
    packet.forced_type = args.type
    configure_trace(json=args.json or None)
    [packet] = run_packets([packet], args.config)
    if packet.error:
        raise UsageError(packet.error)
    level0 = overview(packet)
    emit("LEVELS", packet.source, {"level": args.level, "l0_est": estimate_tokens(len(level0)),
                                   "l1_est": packet.measure.visible_tokens, "l2_est": packet.measure.raw_tokens})
    text = {0: level0, 1: packet.visible, 2: packet.raw}[args.level]
    out = sys.stdout.buffer
    out.write(text)  # exactly the visible bytes: `tokens expand --full` accepts this output as it is
    out.flush()
    return 0


def cmd_benchmark(args: argparse.Namespace, config: Config) -> int:
    configure_trace(json=True, stream=open(os.devnull, "w")) if not args.trace else configure_trace()
    packets = run_packets(file_packets(fixture_paths(), both_for_logs=True), args.config)
    rows = benchmark_rows(packets)
    if args.json:
        sys.stdout.write(msgspec.json.encode(rows).decode() + "\n")
    else:
        sys.stdout.write(format_table(rows) + "\n")
    return 0 if all(r.signal and r.recovery and r.restore and r.adds_up for r in rows) else 1


def cmd_show_ref(args: argparse.Namespace, config: Config) -> int:
    ref = Store(home_path(config)).get(args.id)
    out = sys.stdout.buffer
    out.write(f"Source: {ref.source}\nType: {ref.type}\nReason: {ref.reason}\nBytes: {len(ref.content)}\n--- RAW CONTENT ---\n".encode())
    out.write(ref.content)
    out.flush()
    return 0


def cmd_expand(args: argparse.Namespace, config: Config) -> int:
    store = Store(home_path(config))
    if not args.full:
        data = store.get(args.target).content
    else:
        if PKT_ID_RE.fullmatch(args.target):
            manifest = store.get_manifest(args.target)
            data = store.restore(manifest, store.get_visible(manifest))
        else:
            _check_readable(args.target)
            visible = Path(args.target).read_bytes()
            manifest = store.find_manifest_for_visible(visible)
            data = store.restore(manifest, visible)
    if args.output:
        Path(args.output).write_bytes(data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    return 0


_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smhdw])")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)([KMG]?)B?", re.I)


def parse_duration(text: str) -> float:
    m = _DURATION.fullmatch(text.strip())
    if not m:
        raise UsageError(f"not a duration: {text!r} (examples: 30m, 12h, 7d)")
    return float(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[m.group(2)]


def parse_size(text: str) -> int:
    m = _SIZE.fullmatch(text.strip())
    if not m:
        raise UsageError(f"not a size: {text!r} (examples: 500K, 100M, 2G)")
    return int(float(m.group(1)) * {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[m.group(2).upper()])


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit}"
    return f"{seconds:.0f}s"


def cmd_refs(args: argparse.Namespace, config: Config) -> int:
    store = Store(home_path(config))
    if args.refs_command == "list":
        infos = store.list_refs()
        for info in infos:
            print(f"{info.id:<14} {info.bytes:>10,} B  {_age(info.age_seconds):>5}  {info.source}  ({info.reason[:60]})")
        files, size = store.size()
        print(f"{len(infos)} refs; store holds {files} files, {size:,} bytes in {store.dir}")
        return 0
    if args.older_than is None and args.max_bytes is None:
        raise UsageError("refs gc needs --older-than DURATION and/or --max-bytes SIZE")
    removed, freed = store.gc(
        older_than=parse_duration(args.older_than) if args.older_than else None,
        max_bytes=parse_size(args.max_bytes) if args.max_bytes else None,
    )
    print(f"removed {removed} files, freed {freed:,} bytes")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tokens", description="Reduce tool output for LLM context; nothing is lost.")
    parser.add_argument("--config", help="TOML config file (default: config/default.toml)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("analyze", help="trace and reduced text for one file (- for stdin)")
    p.add_argument("path")
    p.add_argument("--granularity", choices=["coarse", "fine"])
    p.add_argument("--type", choices=["log", "json", "diff", "filelist", "text", "build"], help="force a content type")
    p.add_argument("--json", action="store_true", help="trace as JSON lines")
    p.add_argument("--level", type=int, choices=[0, 1, 2], default=1,
                   help="0: overview, 1: reduced text with refs (default), 2: raw input")
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser("benchmark", help="table over fixtures/: RAW, VISIBLE, MARKERS, REFERENCED, SAVED, invariants")
    p.add_argument("--json", action="store_true", help="rows as JSON")
    p.add_argument("--trace", action="store_true", help="also print the stage trace")
    p.set_defaults(func=cmd_benchmark)

    p = sub.add_parser("show-ref", help="source, type, reason and the exact bytes of a ref")
    p.add_argument("id", help="#ref:ctx_… or ctx_…")
    p.set_defaults(func=cmd_show_ref)

    p = sub.add_parser("expand", help="a ref's content, or with --full the restored original")
    p.add_argument("target", help="ref id; with --full: a reduced file or a packet id (pkt_…)")
    p.add_argument("--full", action="store_true", help="restore the whole original input")
    p.add_argument("-o", "--output", help="write to this file instead of stdout")
    p.set_defaults(func=cmd_expand)

    p = sub.add_parser("refs", help="store hygiene")
    refs_sub = p.add_subparsers(dest="refs_command", required=True)
    refs_sub.add_parser("list", help="id, bytes, age, source and reason of every ref")
    gc = refs_sub.add_parser("gc", help="delete old records, or the oldest until under a size")
    gc.add_argument("--older-than", help="e.g. 7d, 12h")
    gc.add_argument("--max-bytes", help="e.g. 100M")
    p.set_defaults(func=cmd_refs)

    tail_cmd.add_parser(sub)
    agent_cmd.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        config = load_config(args.config)
        return args.func(args, config)
    except (UsageError, ConfigError, StoreError) as exc:
        print(f"tokens: error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (UsageError, ConfigError)) else 1
    except BrokenPipeError:
        return 0
    except OSError as exc:  # e.g. -o pointing at a directory or a missing folder
        where = f": {exc.filename}" if exc.filename else ""
        print(f"tokens: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    # run the module proper, not this __main__ copy: the error classes other modules import from
    # flows.cli must be the ones main() catches
    from flows.cli import main as _main

    raise SystemExit(_main())
