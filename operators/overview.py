"""Level 0 overview of a finished packet (placeholder: a one-line summary until the real one lands)."""

from __future__ import annotations

from operators.packet import ContextPacket


def overview(packet: ContextPacket) -> bytes:
    m = packet.measure
    refs = " ".join(ref.marker for ref in packet.references)
    return f"{packet.source}: {packet.type}, {m.raw_bytes:,} bytes; refs: {refs or 'none'}\n".encode()
