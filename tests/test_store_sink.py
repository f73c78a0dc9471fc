"""The graph's output step ``store`` writes the refs before anything is delivered.

No visible text may name a ref that is not yet in the store: a packet reaches the delivering sink
only after STORE wrote every ref and the manifest (and RECOVERY/RESTORE checked them), and a flow
stopped between the two delivers nothing.
"""

from __future__ import annotations

import re

import pytest
from conftest import FIXTURES
from flows.reduce import build_flow
from flows.runner import run_flow
from operators.config import load_config
from operators.packet import ContextPacket
from operators.sources import CallbackSink, PacketSource, file_packets, fixture_paths
from operators.store import Store

MARKER = re.compile(rb"#ref:(ctx_[0-9a-f]{6,64})")


def _flow(packets, deliver):
    config = load_config()
    return build_flow(PacketSource(packets), CallbackSink(deliver), config)


def test_the_output_step_is_named_store_and_is_the_only_output():
    flow = _flow([], lambda packet: None)
    steps = [step.step_id.rpartition(".")[2] for step in flow.substeps]
    assert steps[-1] == "store"
    assert "sink" not in steps


def test_every_ref_a_delivered_text_names_is_already_in_the_store(home):
    store_dir = Store(home).dir
    seen = []

    def deliver(packet: ContextPacket) -> None:
        # runs when the packet is handed over: each ref it names must already be a file in the store
        named = set(MARKER.findall(packet.visible))
        assert named <= {r.id.encode() for r in packet.references}
        for ref_id in named:
            assert (store_dir / f"{ref_id.decode()}.json").is_file(), ref_id
        assert (store_dir / f"{packet.manifest_id}.json").is_file()
        seen.append(packet)

    packets = file_packets(fixture_paths(), both_for_logs=True)
    run_flow(_flow(packets, deliver))
    assert len(seen) == len(packets)
    assert sum(len(p.references) for p in seen) >= len(packets)  # the fixtures do make refs
    assert all(p.restore_pass and p.recovery_pass for p in seen)


def test_a_flow_stopped_between_writing_refs_and_delivering_delivers_nothing(home, monkeypatch):
    """The store dies after the first ref is written: the packet whose text names it never arrives."""
    delivered = []
    real_put = Store.put
    calls = {"n": 0}

    def put_then_die(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 1:
            raise RuntimeError("power cut while writing refs")
        return real_put(self, *args, **kwargs)

    monkeypatch.setattr(Store, "put", put_then_die)
    raw = (FIXTURES / "sample.json").read_bytes()  # several refs: the second write fails
    with pytest.raises(Exception) as failure:
        run_flow(_flow([ContextPacket(source="sample.json", raw=raw)], delivered.append))
    assert "power cut" in str(failure.getrepr())
    assert calls["n"] == 2
    assert delivered == []
