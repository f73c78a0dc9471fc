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
the options several commands share in ``flows.options``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from typing import TYPE_CHECKING

from flows.options import HOSTS, add_budget_and_host, add_granularity, add_type, budget, check_readable
from flows.runner import defer_import, exiting, pause_gc, run_packets, startup_done
from operators.errors import InvariantError, TokensError, UsageError, report

if TYPE_CHECKING:
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


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing ``shutil`` (with bz2, lzma, zlib: about
    5 ms of every start, for argparse's help layout only): ``$COLUMNS`` if it is a positive number,
    else the width of the terminal on stdout, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's own layout; only the width is read by ``terminal_columns``."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, terminal_columns() - 2 if width is None else width)


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose help formatter does not import ``shutil``; its subparsers are ``_Parser`` too.

    ``declare``: ``"module:function"`` that adds this parser's arguments, called the first time the
    parser parses or formats its help (a command's sub-parser: only the command run is declared)."""

    def __init__(self, *args, formatter_class: type = _HelpFormatter, declare: str | None = None, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)
        self._declare = declare

    def _declared(self) -> None:
        if self._declare:
            module, _, name = self._declare.partition(":")
            self._declare = None
            getattr(importlib.import_module(module), name)(self)

    def parse_known_args(self, args=None, namespace=None):
        self._declared()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._declared()
        return super().format_usage()

    def format_help(self) -> str:
        self._declared()
        return super().format_help()


class _Commands(dict):
    """The commands' parsers by name, each made the first time it is asked for: a run parses one
    command, and making the thirteen others (three gettext look-ups and a help action each) cost every
    start ~2 ms. Names, membership and help lines need no parser."""

    def __init__(self, make):
        super().__init__()
        self._make = make  # name -> its parser

    def __getitem__(self, name):
        parser = dict.__getitem__(self, name)
        if parser is None:
            parser = self._make(name)
            dict.__setitem__(self, name, parser)
        return parser

    def get(self, name, default=None):
        return self[name] if name in self else default

    def values(self):
        return [self[name] for name in self]

    def items(self):
        return [(name, self[name]) for name in self]


class _LazySubParsers(argparse._SubParsersAction):
    """``add_subparsers`` whose ``add_parser`` notes a command (its help line shows at once) and makes
    its parser only when that command is parsed (``_Commands``); every command added returns None."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._specs: dict[str, dict] = {}
        self._name_parser_map = self.choices = _Commands(self._parser_of)

    def add_parser(self, name, **kwargs):
        if kwargs.get("prog") is None:
            kwargs["prog"] = f"{self._prog_prefix} {name}"
        if "help" in kwargs:
            self._choices_actions.append(self._ChoicesPseudoAction(name, (), kwargs.pop("help")))
        self._specs[name] = kwargs
        dict.__setitem__(self._name_parser_map, name, None)

    def _parser_of(self, name: str) -> argparse.ArgumentParser:
        return self._parser_class(**self._specs[name])


class _Version(argparse.Action):
    """``--version``: the installed package's version (read only when asked)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("nolife-tokens")
        except PackageNotFoundError:
            number = "unknown (not installed)"
        print(f"tokens (nolife-tokens) {number}")
        parser.exit()


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
NO_GRAPH = ("show-ref", "expand", "refs")  # commands that start no graph: the start is over once parsed


def build_parser() -> argparse.ArgumentParser:
    """The global options and every command's name and help; a command's own arguments are declared
    by its module when that command is parsed (``_Parser``)."""
    parser = _Parser(prog="tokens", description="Reduce tool output for LLM context; nothing is lost.")
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    parser.add_argument("--config", help="TOML config file (default: config/default.toml)")
    parser.add_argument("--tokenizer", choices=["bytes4", "o200k", "cl100k"],
                        help="token counts in the trace: bytes/4 (default) or a real BPE count, offline "
                             "(needs pip install -e '.[tokenizers]'); overrides [reduce] tokenizer")
    sub = parser.add_subparsers(dest="command", required=True, action=_LazySubParsers)
    for name, (help_line, declare) in COMMANDS.items():
        sub.add_parser(name, help=help_line, declare=declare)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command. Without ``argv`` (the console script, ``python -m flows.cli``) this is the
    process's entry point, which owns the process: ``asyncio`` is deferred (see ``defer_import``),
    the garbage collector is paused while the process starts (see ``startup_done``) and frozen
    when it ends (see ``_exiting``). ``main([...])`` changes none of that."""
    if argv is None:
        defer_import("asyncio")
        pause_gc()
    try:
        args = build_parser().parse_args(argv)  # --version and --help end here: no config, no msgspec
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
