"""The ``tokens`` command: parses arguments and dispatches to the command that runs them.

``COMMANDS`` lists every command: its one-line help and the ``module:function`` that declares its
arguments (and sets the function that runs it) in the module that implements it. A command's
arguments are declared only when that command is parsed or its help is shown: ``tokens --help``
lists every command without importing any. This module implements ``analyze``, ``benchmark``,
``show-ref`` and ``refs``; ``expand``, ``search`` and ``gain`` live in ``flows.retrieve``, ``tail`` in
``flows.tail``, ``run`` and ``pack`` in ``flows.agent``, ``hook``, ``init`` and ``mcp`` in
``flows.hooks``, ``flows.init`` and ``flows.mcp_server``.

Every user-facing problem is a ``TokensError`` (``operators.errors``): ``main`` prints it as one line,
``tokens: error: …`` (``operators.errors.report``), and exits with its code; never a traceback.
Commands import what they use when they run (start-up time): ``show-ref`` and ``refs`` never import
bytewax or structlog. Running the graph and the process's start-up tuning live in ``flows.runner``;
the options several commands share in ``flows.options``; the parser (argparse's, declaring a command's
arguments when it is parsed) in ``flows.parser``, imported only when a command line is not one of the
plain forms ``plain_args`` reads.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from types import SimpleNamespace
from typing import TYPE_CHECKING

from flows.options import HOSTS, add_budget_and_host, add_granularity, add_type, budget, check_readable
from flows.runner import defer_import, exiting, pause_gc, run_packets, startup_done
from operators.errors import InvariantError, TokensError, UsageError, report

if TYPE_CHECKING:
    import argparse

    from operators.config import Config
    from operators.packet import ContextPacket


def _stdin_packet(granularity: str) -> ContextPacket:
    from operators.packet import ContextPacket

    data = sys.stdin.buffer.read()
    return ContextPacket(source="stdin", raw=data, granularity=granularity)


def analyze_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path")
    add_granularity(p)
    add_type(p)
    p.add_argument("--json", action="store_true",
                   help="print the result as JSON: visible text, refs, packet, figures, invariants, trace")
    p.add_argument("--trace", action="store_true", help="the stage trace on stderr (JSON lines when not a terminal); "
                                                        "without it the trace shows only on a terminal")
    add_budget_and_host(p)
    p.add_argument("--level", type=int, choices=[0, 1, 2], default=1,
                   help="0: overview, 1: reduced text with refs (default), 2: raw input")
    p.set_defaults(func=cmd_analyze)


def cmd_analyze(args: argparse.Namespace, config: Config) -> int:
    from operators.sources import file_packets
    from operators.trace import configure_trace, emit, progress

    granularity = args.granularity or config.reduce.granularity
    if args.path == "-":
        packet = _stdin_packet(granularity)
    else:
        check_readable(args.path)
        packet = file_packets([args.path], [granularity])[0]
    packet.forced_type = args.type
    packet.budget = budget(args.budget)
    traced = args.trace or sys.stderr.isatty()  # the trace: on a terminal, or asked for (JSON lines off a terminal)
    configure_trace() if traced else configure_trace(json=True, stream=open(os.devnull, "w"))
    progress("reducing", args.path, len(packet.raw) if args.path == "-" else os.stat(args.path).st_size)
    [packet] = run_packets([packet], args.config, config)
    if packet.error:  # the store failed (exit 1), or the input (exit 2)
        if packet.trace and packet.trace[-1].stage == "STORE":  # a bounded view of the input, then the error
            from operators.ceiling import budget_of
            from operators.safety import fallback_view

            sys.stdout.buffer.write(fallback_view(packet.raw, budget_of(packet, config)))
            sys.stdout.buffer.flush()
            raise TokensError(packet.error)
        raise UsageError(packet.error)
    figures = {"level": args.level, "l1_est": packet.measure.visible_tokens, "l2_est": packet.measure.raw_tokens}
    if args.level == 0:  # the overview is made only when it is asked for
        from operators.overview import overview
        from operators.tokens import estimate_tokens

        text = overview(packet, config)
        figures["l0_est"] = estimate_tokens(len(text))
    else:
        text = packet.visible if args.level == 1 else packet.raw
    emit("LEVELS", packet.source, figures)
    out = sys.stdout.buffer
    if args.json:  # the result, machine-readable: text, refs, packet, figures, invariants, trace
        from flows.retrieve import analyze_result

        packet.add_trace("LEVELS", **figures)
        out.write(analyze_result(packet, text, figures))
    else:
        out.write(text)  # exactly the visible bytes: `tokens expand --full` accepts this output as it is
    out.flush()
    if packet.references and args.level == 1 and not (args.json or args.trace):
        from operators.launcher import refs_hint

        sys.stderr.write(refs_hint(packet.manifest_id, packet.references[0].id).decode())
    _check_invariants([packet])
    return 0


def _env_host() -> str | None:
    """``$NOLIFE_TOKENS_HOST``: the agent host, for a shell where every ``tokens`` runs under one host."""
    host = os.environ.get("NOLIFE_TOKENS_HOST", "").strip()
    if host and host not in HOSTS:
        raise UsageError(f"NOLIFE_TOKENS_HOST={host!r} is not a host: {', '.join(HOSTS)}")
    return host or None


def _for_host(config, host: str | None):
    """``--host``: the output ceiling of that agent host, unless ``[ceiling] max_chars`` sets its own."""
    if not host:
        return config
    import msgspec

    from operators.ceiling import HOST_LIMITS, CeilingSettings

    own = config.ceiling.max_chars != HOST_LIMITS[config.ceiling.host]
    ceiling = CeilingSettings(host=host, max_chars=config.ceiling.max_chars if own else 0)
    return msgspec.structs.replace(config, ceiling=ceiling)


def _check_invariants(packets: list[ContextPacket]) -> None:
    """Exit status 3 (``InvariantError``) when SIGNAL, RECOVERY or RESTORE failed for any packet."""
    for packet in packets:
        failed = [name for name, ok in (("SIGNAL", packet.signal_pass), ("RECOVERY", packet.recovery_pass),
                                        ("RESTORE", packet.restore_pass)) if ok is False]
        if failed:
            raise InvariantError(f"{'/'.join(failed)} failed for {packet.source} (exit status 3); see the trace")


def benchmark_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="rows as JSON")
    p.add_argument("--trace", action="store_true", help="also print the stage trace")
    p.set_defaults(func=cmd_benchmark)


def cmd_benchmark(args: argparse.Namespace, config: Config) -> int:
    import msgspec

    from operators.report import benchmark_rows, format_table
    from operators.sources import file_packets, fixture_paths
    from operators.trace import configure_trace

    configure_trace(json=True, stream=open(os.devnull, "w")) if not args.trace else configure_trace()
    packets = run_packets(file_packets(fixture_paths(), both_for_logs=True), args.config, config)
    rows = benchmark_rows(packets)
    if args.json:
        sys.stdout.write(msgspec.json.encode(rows).decode() + "\n")
    else:
        sys.stdout.write(format_table(rows) + "\n")
    sys.stdout.flush()
    _check_invariants(packets)
    return 0 if all(r.adds_up for r in rows) else 1


def show_ref_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="#ref:ctx_… or ctx_…")
    p.set_defaults(func=cmd_show_ref)


def cmd_show_ref(args: argparse.Namespace, config: Config) -> int:
    from operators.config import home_path
    from operators.store import Store

    from operators.usage import record_use

    ref = Store(home_path(config)).get(args.id)
    record_use(home_path(config), "show-ref", ref.id)
    out = sys.stdout.buffer
    out.write(f"Source: {ref.source}\nType: {ref.type}\nReason: {ref.reason}\nBytes: {len(ref.content)}\n--- RAW CONTENT ---\n".encode())
    out.write(ref.content)
    out.flush()
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


def refs_arguments(p: argparse.ArgumentParser) -> None:
    refs_sub = p.add_subparsers(dest="refs_command", required=True)
    refs_sub.add_parser("list", help="id, bytes, age, source and reason of every ref")
    gc_parser = refs_sub.add_parser("gc", help="delete old records, or the oldest until under a size")
    gc_parser.add_argument("--older-than", help="e.g. 7d, 12h")
    gc_parser.add_argument("--max-bytes", help="e.g. 100M")
    p.set_defaults(func=cmd_refs)


def cmd_refs(args: argparse.Namespace, config: Config) -> int:
    from operators.config import home_path
    from operators.store import Store

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


def _check_type(name: str | None, config) -> None:
    """``--type`` names a type of the config's registry (the shipped ones and those it adds)."""
    from operators import types

    known = types.names(config)
    if name is not None and name not in known:
        raise UsageError(f"unknown content type {name!r} (one of: {', '.join(known)})")


# Every command: its one-line help (``tokens --help``) and the "module:function" that declares its
# arguments and sets ``func``, the function that runs it, in the module that implements it.
COMMANDS = {
    "analyze": ("reduced text of one file (- for stdin); --json: the whole result", "flows.cli:analyze_arguments"),
    "benchmark": ("table over fixtures/: RAW, VISIBLE, MARKERS, REFERENCED, SAVED, invariants",
                  "flows.cli:benchmark_arguments"),
    "show-ref": ("source, type, reason and the exact bytes of a ref", "flows.cli:show_ref_arguments"),
    "expand": ("a ref's content (or a slice of it), or with --full the restored original",
               "flows.retrieve:expand_arguments"),
    "search": ("find words in the stored refs of recent packets: ref, source, lines", "flows.retrieve:search_arguments"),
    "gain": ("savings over real use, per command and in total (local; nothing is sent)", "flows.retrieve:gain_arguments"),
    "mcp": ("MCP server on stdio: tools expand, search, stats (and run with --run; needs the [mcp] extra)",
            "flows.mcp_server:mcp_arguments"),
    "refs": ("store hygiene", "flows.cli:refs_arguments"),
    "tail": ("follow live logs; stream each window's reduced text (the same graph, a tail source)",
             "flows.tail:tail_arguments"),
    "run": ("run a command, print its reduced output, exit with its exit code", "flows.agent:run_arguments"),
    "pack": ("fit the most signal of several inputs into a token budget", "flows.agent:pack_arguments"),
    "hook": ("agent hook: read a hook payload on stdin, print the reduced output or the rewrite",
             "flows.hooks:hook_arguments"),
    "init": ("install (or --uninstall) the agent hook and a note on #ref markers", "flows.init:init_arguments"),
}
# imported by libraries at their top, used only on paths a run seldom takes (see ``defer_import``):
# asyncio (structlog, bytewax.inputs: async code only), ipaddress (urllib.parse, which pathlib imports:
# bracketed URL hosts only) and ntpath (pathlib: Windows paths only); about 55 ms, ~1 ms and ~0.3 ms
DEFERRED = ("asyncio", "ipaddress", "ntpath")
NO_GRAPH = ("show-ref", "expand", "refs")  # commands that start no graph: the start is over once parsed


def build_parser() -> argparse.ArgumentParser:
    """The global options and every command's name and help (``flows.parser.make_parser``); a command's
    own arguments are declared by its module when that command is parsed."""
    from flows.parser import make_parser

    return make_parser(COMMANDS)


def plain_args(argv: list[str]) -> SimpleNamespace | None:
    """The arguments ``build_parser().parse_args(argv)`` gives the two forms an agent sends most, with no
    option: ``analyze PATH`` and ``run [--] CMD ARGS…`` (everything after ``run`` is the command); None for
    any other form, which the parser reads. Importing argparse and building the parsers (which look their
    messages up in gettext's catalogs, importing ``locale``) costs every start ~3 ms.
    ``tests/test_cli_parser.py`` compares both for every form taken here."""
    if len(argv) != 2 and (len(argv) < 2 or argv[0] != "run"):
        return None
    common = {"version": None, "config": None, "tokenizer": None, "command": argv[0]}
    if argv[0] == "analyze":
        path = argv[1]
        if path.startswith("-") and path != "-":
            return None
        return SimpleNamespace(**common, path=path, granularity=None, type=None, json=False, trace=False,
                               budget=None, host=None, level=1, func=cmd_analyze)
    if argv[0] != "run":
        return None
    first = argv[2] if argv[1] == "--" and len(argv) > 2 else argv[1]
    if first.startswith("-"):
        return None
    run_module = importlib.import_module(COMMANDS["run"][1].partition(":")[0])  # as the parser declares it
    return SimpleNamespace(**common, budget=None, host=None, level=1, granularity=None, type=None, trace=False,
                           raw=False, stream=False, cmd=argv[1:], func=run_module.cmd_run)


def main(argv: list[str] | None = None) -> int:
    """Run one command. Without ``argv`` (the console script, ``python -m flows.cli``) this is the
    process's entry point, which owns the process: ``DEFERRED`` modules are deferred (see ``defer_import``),
    the garbage collector is paused while the process starts (see ``startup_done``) and frozen
    when it ends (see ``_exiting``). ``main([...])`` changes none of that."""
    if argv is None:
        for name in DEFERRED:
            defer_import(name)
        pause_gc()
    try:
        args = plain_args(sys.argv[1:] if argv is None else argv) or build_parser().parse_args(argv)  # --version
        # and --help end here: no config, no msgspec
        if args.command in NO_GRAPH:  # no graph to start: nothing big to import
            startup_done()
        try:
            from operators.config import load_config

            config = load_config(args.config)
            if args.tokenizer:
                import msgspec

                config = msgspec.structs.replace(config, reduce=msgspec.structs.replace(config.reduce, tokenizer=args.tokenizer))
            config = _for_host(config, getattr(args, "host", None) or _env_host())
            _check_type(getattr(args, "type", None), config)
            return args.func(args, config)
        except BrokenPipeError:
            return 0
        except (TokensError, OSError) as exc:  # OSError: e.g. -o pointing at a directory or a missing folder
            return report(exc)
        except KeyboardInterrupt:
            return 130
    finally:
        if argv is None:
            exiting()


if __name__ == "__main__":
    # run the module proper, not this __main__ copy: the commands COMMANDS declares (``flows.cli:…``)
    # must be the functions of the module main() belongs to
    from flows.cli import main as _main

    raise SystemExit(_main())
