"""Stages plugged in by tests through config: plain functions ContextPacket -> ContextPacket."""


def tag_source(packet):
    packet.add_trace("TAG_SOURCE", tagged=True, visible_bytes=len(packet.visible))
    packet.visible = packet.visible  # reads what OPTIMIZE produced
    return packet


def untraced(packet):
    return packet


not_callable = 42
