"""The ``store`` sink: the graph's output step, where refs become durable before anything is delivered.

Each worker's partition takes its finished packets and runs, in order, the stages that touch the
store: STORE (the refs and the packet manifest are written; a write is complete, renamed into place,
before the call returns), then RECOVERY and RESTORE (the checks re-read what was just written), and
any plug-in stage configured after them. Only then is the packet handed to the delivering sink (the
CLI's collector, the main job's writer, the tail's printer). So no visible text that names a ref can
reach a reader before that ref is in the store, and the two checks still run, traced like every other
stage, right where the store was written: the place they are about.

Partitioned per worker (``DynamicSink``): each worker writes its own packets; the store itself is
safe for concurrent writers (exclusive creates, see ``operators.store``).
"""

from __future__ import annotations

from typing import Callable

from bytewax.outputs import DynamicSink, StatelessSinkPartition

from operators.packet import ContextPacket
from operators.stages import run_steps

Step = Callable[[ContextPacket], ContextPacket]


class _StorePartition(StatelessSinkPartition[ContextPacket]):
    def __init__(self, steps: list[Step], deliver: StatelessSinkPartition):
        self._steps = steps
        self._deliver = deliver

    def write_batch(self, items: list[ContextPacket]) -> None:
        self._deliver.write_batch([run_steps(self._steps, packet) for packet in items])

    def close(self) -> None:
        self._deliver.close()


class StoreSink(DynamicSink[ContextPacket]):
    """Runs ``steps`` (STORE, RECOVERY, RESTORE, as traced callables) on each packet, then hands it to
    ``deliver``, another sink, built for the same worker."""

    def __init__(self, steps: list[Step], deliver: DynamicSink):
        self.steps = steps
        self.deliver = deliver

    def build(self, step_id: str, worker_index: int, worker_count: int) -> _StorePartition:
        return _StorePartition(self.steps, self.deliver.build(step_id, worker_index, worker_count))
