"""The stage steps of the graph, and one small document run through them without the engine.

``graph_steps(config)`` turns ``operators.stages.STAGES`` (the one list of stages, bound to the run
by ``build_stages``, plug-ins included) into traced steps: ``mapped`` (LOAD … SIGNAL, the ``op.map`` steps of ``flows.reduce``)
and ``stored`` (STORE, RECOVERY, RESTORE and plug-ins after them, run by the ``store`` sink). The
graph is wired from this list, and so is ``run_direct``: a packet goes through the same functions in
the same order, then through the sink's own per-packet function (``operators.stages.run_steps``),
then to ``deliver``. Adding a stage changes both.

``run_direct`` is what ``tokens analyze`` of one input and ``tokens run`` of a command that has
exited (its whole output read) use (see ``flows.runner``): starting the engine costs more than
reducing a small document. It imports nothing of bytewax. Batches, tails, commands still running and
``python -m bytewax.run flows.reduce`` use the graph.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, NamedTuple

from operators.config import home_path
from operators.packet import ContextPacket
from operators.stages import StageFn, build_stages, run_stage, run_steps
from operators.store import Store, retention_of
from operators.trace import configure_trace, emit, trace_configured

if TYPE_CHECKING:
    from operators.config import Config


def traced(name: str, fn: StageFn) -> Callable[[ContextPacket], ContextPacket]:
    """``fn`` as a step: run by ``run_stage`` (a packet that failed to load passes untouched), then its
    trace entry emitted as the structlog event of that stage."""

    def step(packet: ContextPacket) -> ContextPacket:
        packet = run_stage(name, fn, packet)
        if not packet.error or name == "LOAD":
            emit(name, packet.source, packet.trace[-1].figures)
        return packet

    return step


class Steps(NamedTuple):
    """The graph's steps in order: ``mapped`` as (stage name, step), ``stored`` as steps."""

    mapped: list[tuple[str, Callable[[ContextPacket], ContextPacket]]]
    stored: list[Callable[[ContextPacket], ContextPacket]]


def graph_steps(config: Config) -> Steps:
    """Every stage of the graph for ``config``, traced, over the store of its home."""
    store = Store(home_path(config), retention=retention_of(config))
    graph = build_stages(config, store)
    return Steps([(stage, traced(stage, fn)) for stage, fn in graph.mapped],
                 [traced(stage, fn) for stage, fn in graph.stored])


def run_direct(packets: Iterable[ContextPacket], config: Config, deliver: Callable[[ContextPacket], None],
               ready: Callable[[], None] | None = None) -> None:
    """Run each packet through every step of the graph, in graph order, and hand it to ``deliver``
    once the store sink's steps (STORE, RECOVERY, RESTORE) are done: what the graph does with one
    document, without starting the engine. ``ready`` is called once the steps are built."""
    if not trace_configured():  # as flows.reduce.get_flow: the trace goes to stderr by default
        configure_trace()
    steps = graph_steps(config)
    if ready is not None:
        ready()
    for packet in packets:
        for _, step in steps.mapped:
            packet = step(packet)
        deliver(run_steps(steps.stored, packet))


__all__ = ["Steps", "graph_steps", "run_direct", "traced"]
