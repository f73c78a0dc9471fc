"""A second plug-in module whose function shares its name with one in plugin_stages."""


def tag_source(packet):
    packet.add_trace("TAG_SOURCE_B", tagged=True)
    return packet
