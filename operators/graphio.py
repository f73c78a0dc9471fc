"""The engine's batch source and callback sink.

``PacketSource`` hands each worker a disjoint share of a fixed list of packets (files to read, or
bytes already in hand such as stdin); each worker reads its own files, so a document stays on one
worker. ``CallbackSink`` hands every finished packet to a function (the CLI collects them; the main
job writes the reduced text and prints a row). ``engine_source`` hands the engine a source written
without it (``operators.runsource.RunSource``: same methods, no bytewax base class). Only the graph
imports this module (it imports bytewax); ``operators.sources`` names the first two for the callers
that always found them there.
"""

from __future__ import annotations

from typing import Callable, Iterable

from bytewax.inputs import DynamicSource, FixedPartitionedSource, Source, StatefulSourcePartition, StatelessSourcePartition
from bytewax.outputs import DynamicSink, StatelessSinkPartition

from operators.packet import ContextPacket


class _ListPartition(StatelessSourcePartition[ContextPacket]):
    def __init__(self, items: list[ContextPacket]):
        self._items = items

    def next_batch(self) -> list[ContextPacket]:
        if not self._items:
            raise StopIteration
        batch, self._items = self._items[:16], self._items[16:]
        return batch


class PacketSource(DynamicSource[ContextPacket]):
    def __init__(self, packets: Iterable[ContextPacket]):
        self.packets = list(packets)

    def build(self, step_id: str, worker_index: int, worker_count: int) -> _ListPartition:
        return _ListPartition(self.packets[worker_index::worker_count])


class _CallbackPartition(StatelessSinkPartition[ContextPacket]):
    def __init__(self, callback: Callable[[ContextPacket], None], on_close: Callable[[], None] | None):
        self._callback = callback
        self._on_close = on_close

    def write_batch(self, items: list[ContextPacket]) -> None:
        for packet in items:
            self._callback(packet)

    def close(self) -> None:
        if self._on_close is not None:
            self._on_close()


class CallbackSink(DynamicSink[ContextPacket]):
    """Calls ``callback`` for every finished packet and ``on_close`` when a worker's input is done."""

    def __init__(self, callback: Callable[[ContextPacket], None], on_close: Callable[[], None] | None = None):
        self.callback = callback
        self.on_close = on_close

    def build(self, step_id: str, worker_index: int, worker_count: int) -> _CallbackPartition:
        return _CallbackPartition(self.callback, self.on_close)


class _EnginePartition(StatefulSourcePartition[ContextPacket, None]):
    def __init__(self, part):
        self._part = part

    def next_batch(self) -> list[ContextPacket]:
        return self._part.next_batch()

    def next_awake(self):
        return self._part.next_awake()

    def snapshot(self) -> None:
        return self._part.snapshot()

    def close(self) -> None:
        self._part.close()


class _EngineSource(FixedPartitionedSource[ContextPacket, None]):
    def __init__(self, source):
        self.source = source

    def list_parts(self) -> list[str]:
        return self.source.list_parts()

    def build_part(self, step_id: str, for_part: str, resume_state: None) -> _EnginePartition:
        return _EnginePartition(self.source.build_part(step_id, for_part, resume_state))


def engine_source(source) -> Source:
    """``source`` as the engine takes it: a bytewax ``Source`` as it is, else (a source with the methods
    of a ``FixedPartitionedSource``: ``list_parts``, ``build_part``) wrapped in one."""
    return source if isinstance(source, Source) else _EngineSource(source)


__all__ = ["CallbackSink", "PacketSource", "engine_source"]
