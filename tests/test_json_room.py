"""A JSON document that fits half the output ceiling with its long arrays and maps whole keeps them
whole (a package list: each item is content); a bigger one folds them; noise goes to refs either way."""

from __future__ import annotations

import json

from conftest import reduce_bytes


def _packages(n: int, pad: int = 0) -> bytes:
    items = [{"name": f"pkg-{i:03d}", "version": f"1.{i}.0", "summary": "x" * pad} for i in range(n)]
    return json.dumps(items, indent=2).encode()


def test_a_small_package_list_is_shown_whole():
    raw = _packages(40)
    packet = reduce_bytes(raw, forced_type="json")
    for i in range(40):
        assert b'"name": "pkg-%03d"' % i in packet.visible
    assert packet.restore_pass and packet.recovery_pass


def test_a_big_package_list_still_folds():
    raw = _packages(400, pad=200)
    packet = reduce_bytes(raw, forced_type="json")
    assert len(packet.visible) < len(raw) // 4
    assert b"more items" in packet.visible and packet.restore_pass


def test_noise_in_a_small_document_goes_to_a_ref_all_the_same():
    doc = {"id": 7, "status": "failed", "telemetry": {"spans": ["a" * 50] * 20},
           "items": [{"name": f"n{i}", "state": "ok"} for i in range(30)]}
    raw = json.dumps(doc, indent=2).encode()
    packet = reduce_bytes(raw, forced_type="json")
    assert b'"status": "failed"' in packet.visible and b"a" * 50 not in packet.visible
    assert all(b'"name": "n%d"' % i in packet.visible for i in range(30))
    assert packet.restore_pass


def test_under_a_small_ceiling_a_small_list_is_still_shown_whole():
    """Under Codex's 9,000-byte ceiling half the ceiling would fold a 4 KB package list; the room is at
    least ``ROOM_MIN``, so every package stays visible (the packet's budget: 9,000 bytes)."""
    from operators.types import json as jsontype

    raw = _packages(52)  # (under 4 KB: a few big items fold whatever the room)
    assert 3_500 < len(raw) <= jsontype.ROOM_MIN
    packet = reduce_bytes(raw, forced_type="json", budget=9_000 // 4)
    for i in range(52):
        assert b'"name": "pkg-%03d"' % i in packet.visible
    assert packet.restore_pass
