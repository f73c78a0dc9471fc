"""Stages plugged in by tests through config: plain functions ContextPacket -> ContextPacket."""


def tag_source(packet):
    packet.add_trace("TAG_SOURCE", tagged=True, visible_bytes=len(packet.visible))
    packet.visible = packet.visible  # reads what OPTIMIZE produced
    return packet


def untraced(packet):
    return packet


not_callable = 42


def tamper_visible(packet):
    """Drops the last visible byte after STORE: RESTORE must notice."""
    packet.visible = packet.visible[:-1]
    return packet


def corrupt_first_ref(packet):
    """Overwrites the first ref's file after STORE: RECOVERY and RESTORE must notice."""
    import os

    from operators.config import home_path, load_config

    ref = packet.references[0]
    path = home_path(load_config()) / "context" / f"{ref.id}.json"
    data = path.read_bytes().replace(b'"content":"', b'"content":"X', 1)
    os.chmod(path, 0o644)
    path.write_bytes(data)
    return packet


def corrupt_manifest_layout(packet):
    """Shifts the first layout entry in the stored manifest after STORE: RESTORE must notice."""
    import os
    import re

    from operators.config import home_path, load_config

    path = home_path(load_config()) / "context" / f"{packet.manifest_id}.json"
    data = re.sub(rb'"layout":\[\[0,0,(\d+)\]', lambda m: b'"layout":[[0,0,%d]' % (int(m.group(1)) - 1), path.read_bytes(), count=1)
    os.chmod(path, 0o644)
    path.write_bytes(data)
    return packet


def append_to_first_ref(packet):
    """Changes the first ref's bytes after OPTIMIZE hashed them: the store must hash them again."""
    ref = packet.references[0]
    ref.content = bytes(ref.content) + b"appended by a stage\n"
    return packet


def edit_visible(packet):
    """Edits the visible text by hand after OPTIMIZE: the contract says change the plan instead."""
    packet.visible = packet.visible + b"extra\n"
    return packet


def keep_everything(packet):
    """Replaces the reducer's plan after OPTIMIZE with one that shows the input whole."""
    from operators.reduction import passthrough

    packet.plan = passthrough(packet.raw)
    return packet


def set_unknown_type(packet):
    packet.type = "no-such-type"
    return packet
