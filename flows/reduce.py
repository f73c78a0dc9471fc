"""The reduction graph: one declarative bytewax dataflow over ``ContextPacket`` records.

    source → LOAD → CLASSIFY → MEASURE_RAW → OPTIMIZE → MEASURE_OPT → SIGNAL
           → store (STORE → RECOVERY → RESTORE) → sink

The stages are ``operators.stages.STAGES``, in that order, bound to the run's config and store
(``build_stages``); plug-in stages named in config are inserted after the stage each names. The
steps come from ``flows.direct.graph_steps``, which also runs one small document through them
without the engine: each stage up to SIGNAL is an ``op.map`` step that emits its trace event; the
output step ``store`` (``operators.sinks.StoreSink``) runs STORE, RECOVERY and RESTORE on each packet
(the refs and the manifest are written and checked before the packet is delivered), then hands it
to the sink. Only the source changes between uses: fixture/file batches, bytes from stdin, a live
tail, or a command's output stream.

    python -m bytewax.run flows.reduce                                    # the bundled fixtures
    python -m bytewax.run "flows.reduce:get_flow(paths=['app.log'])"      # other files
    python -m bytewax.run flows.reduce -w 2                               # two workers
    python -m bytewax.run "flows.reduce:get_flow(benchmark=True)"         # the benchmark table
"""

from __future__ import annotations

import atexit
import os
import sys
from typing import Callable, Iterable

import bytewax.operators as op
from bytewax.dataflow import Dataflow
from bytewax.inputs import Source

from flows.direct import graph_steps
from operators.config import Config, ConfigError, load_config
from operators.errors import say
from operators.packet import ContextPacket
from operators.sinks import StoreSink
from operators.graphio import CallbackSink, PacketSource, engine_source
from operators.sources import file_packets, fixture_paths, write_output
from operators.store import StoreError
from operators.trace import configure_trace, trace_configured


def build_flow(source: Source, sink, config: Config, name: str = "nolife_tokens_reduce") -> Dataflow:
    """Wire ``source`` through every stage into ``sink``: the one graph every entry point uses.

    The stages up to SIGNAL are ``op.map`` steps; the output step ``store`` writes the refs and the
    manifest, checks them (RECOVERY, RESTORE) and only then hands each packet to ``sink``."""
    steps = graph_steps(config)  # the same steps flows.direct runs one document through
    flow = Dataflow(name)
    stream = op.input("source", flow, engine_source(source))  # a RunSource is written without bytewax
    for stage, step in steps.mapped:
        stream = op.map(stage.lower(), stream, step)
    op.output("store", stream, StoreSink(steps.stored, sink))
    return flow


def write_and_report(config: Config, failed: dict[str, int] | None = None) -> Callable[[ContextPacket], None]:
    """The main job's sink: write each reduced text under ``<home>/out/`` and print one row.

    ``failed``: counts ``error`` (an input or its output could not be handled) and ``invariant``
    (SIGNAL, RECOVERY or RESTORE said FAIL), for the exit status (see ``_exit_status``)."""
    failed = {} if failed is None else failed

    def handle(packet: ContextPacket) -> None:
        if packet.error:
            print(f"{packet.source}: error: {packet.error}", flush=True)
            failed["error"] = failed.get("error", 0) + 1
            return
        try:
            target = write_output(packet, config)
        except StoreError as exc:
            print(f"{packet.source}: error: {exc}", flush=True)
            failed["error"] = failed.get("error", 0) + 1
            return
        if not (packet.signal_pass and packet.recovery_pass and packet.restore_pass):
            failed["invariant"] = failed.get("invariant", 0) + 1
        m = packet.measure
        verdict = " ".join(
            f"{label} {'PASS' if ok else 'FAIL'}"
            for label, ok in (("SIGNAL", packet.signal_pass), ("RECOVERY", packet.recovery_pass), ("RESTORE", packet.restore_pass))
        )
        print(
            f"{packet.source} [{packet.type}{'/' + packet.granularity if packet.type == 'log' else ''}] ~{m.raw_tokens:,} -> ~{m.visible_tokens:,} "
            f"estimated tokens ({m.saved_pct:.1f}% saved), refs={len(packet.references)}, {verdict} -> {target}",
            flush=True,
        )

    return handle


def benchmark_table() -> CallbackSink:
    """A sink that prints the benchmark table once the input is done (run it with one worker)."""
    packets: list[ContextPacket] = []

    def close() -> None:
        from operators.report import benchmark_rows, format_table

        order = {(p.source, p.granularity): i for i, p in enumerate(file_packets(fixture_paths(), both_for_logs=True))}
        packets.sort(key=lambda p: order.get((p.source, p.granularity), len(order)))
        print(format_table(benchmark_rows(packets)), flush=True)

    return CallbackSink(packets.append, on_close=close)


def get_flow(paths: Iterable[str] | None = None, granularity: str | None = None,
             config_path: str | None = None, packets: list[ContextPacket] | None = None,
             sink=None, source: Source | None = None, tail: Iterable[str] | None = None,
             benchmark: bool = False, config: Config | None = None) -> Dataflow:
    """Build the graph. With no arguments: the inputs listed in config, else every bundled fixture.

    ``tail=[paths]`` follows those files live instead (see ``operators.tail``): same stages, other source.
    ``benchmark=True`` prints the ``tokens benchmark`` table at the end instead of writing outputs.
    ``config``: the configuration, already loaded by the caller (else read from ``config_path``).
    """
    if not trace_configured():  # e.g. `python -m bytewax.run "flows.reduce:get_flow(...)"`
        configure_trace()
    if benchmark:
        sink = benchmark_table()
    if config is None:  # a bad config file is one line and exit 2 here (the bytewax.run entry);
        try:            # code that wants the exception loads the config itself and passes config=
            config = load_config(config_path, project=True)
        except ConfigError as exc:
            _exit_with(exc)
    if source is None and tail:
        from operators.tail import TailSource

        source = TailSource(list(tail), config, granularity=granularity or config.reduce.granularity)
    if source is None:
        if packets is None:
            chosen = list(paths) if paths else (config.inputs or fixture_paths())
            grans = [granularity or config.reduce.granularity]
            packets = file_packets(chosen, grans, both_for_logs=paths is None and not config.inputs and granularity is None)
        source = PacketSource(packets)
    return build_flow(source, sink or CallbackSink(write_and_report(config)), config)


def __getattr__(name: str) -> Dataflow:
    """``python -m bytewax.run flows.reduce`` looks up ``flow``: build it on demand, with a console trace."""
    if name != "flow":
        raise AttributeError(name)
    configure_trace(json="--json" in sys.argv or None)
    failed: dict[str, int] = {}
    try:
        config = load_config(None, project=True)
        flow = get_flow(config=config, sink=CallbackSink(write_and_report(config, failed)))
    except (ConfigError, StoreError) as exc:
        _exit_with(exc)
    atexit.register(_exit_status, failed)
    return flow


def _exit_status(failed: dict[str, int]) -> None:
    """At the end of ``python -m bytewax.run flows.reduce``: exit status 3 when an invariant failed
    for some input, 1 when an input (or its output file) failed with an error, else 0 as usual.
    (``bytewax.run`` returns normally after the run; only a hard exit can set the status then.)"""
    code = 3 if failed.get("invariant") else 1 if failed.get("error") else 0
    if code:
        print(f"nolife-tokens: {failed.get('invariant', 0)} input(s) failed an invariant, "
              f"{failed.get('error', 0)} failed with an error (exit status {code})", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _exit_with(exc: Exception):
    say(exc, prog="nolife-tokens")
    raise SystemExit(2) from None


__all__ = ["build_flow", "get_flow"]
