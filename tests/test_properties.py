"""Property tests: whatever the bytes, every reducer's plan restores them exactly, and the graph agrees."""

import json as jsonlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples


from operators.config import Config, ReduceConfig
from operators.packet import ContextPacket
from operators.reduction import omissions, render, restore
from operators import types
from operators.stages import plan_for

CONFIG = Config(reduce=ReduceConfig(min_bytes=0))

# bytes that look like the things reducers care about, mixed with arbitrary bytes
FRAGMENTS = [
    b"\n", b"\r\n", b"\r", b"  ", b"\t", b"\x00", b"\xff", b"\xc3\x28", b"\xef\xbb\xbf", b"ERROR ", b"WARN ", b"INFO ",
    b"2026-01-01 10:00:00 ", b"Traceback (most recent call last):\n", b"    at x.y(Z.java:1)\n",
    b"diff --git a/x b/x\n", b"--- a/x\n", b"+++ b/x\n", b"@@ -1,3 +1,4 @@\n", b"+added\n", b"-removed\n", b" context\n",
    b"\\ No newline at end of file\n", b"{", b"}", b"[", b"]", b'"key": ', b'"telemetry": ', b'"padding_1": ', b",", b"42",
    b"#ref:ctx_abcdef", b"src/a/b.py\n", b"PASSED", b"FAILED tests/test_x.py::test_y", b"\x1b[31m", b"\x1b[0m",
]
raw_inputs = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.binary(max_size=40)), max_size=120).map(b"".join)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=raw_inputs, content_type=st.sampled_from(sorted(types.names())), granularity=st.sampled_from(["coarse", "fine"]))
def test_every_reducer_restores_any_bytes(raw, content_type, granularity):
    packet = ContextPacket(source="prop", raw=raw, type=content_type, granularity=granularity)
    plan, _guard = plan_for(packet, CONFIG)
    contents = omissions(plan)
    ids = {g: f"ctx_{i:06x}" for i, g in enumerate(contents)}
    visible, layout, _ = render(plan, ids)
    assert restore(visible, layout, list(contents.values())) == raw


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=12) | st.dictionaries(
        st.sampled_from(["id", "status", "error", "telemetry", "debug", "padding_1", "padding_2", "noise_x", "items", "name"]) | st.text(max_size=8),
        children, max_size=8),
    max_leaves=60,
)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values, indent=st.sampled_from([None, 2, 4]), ndjson=st.booleans())
def test_json_reducer_restores_and_keeps_valid_json(value, indent, ndjson):
    raw = (jsonlib.dumps(value, indent=indent, ensure_ascii=False) + "\n").encode() * (3 if ndjson and indent is None else 1)
    packet = ContextPacket(source="prop.json", raw=raw, type="json")
    plan, _guard = plan_for(packet, CONFIG)
    contents = omissions(plan)
    ids = {g: f"ctx_{i:06x}" for i, g in enumerate(contents)}
    visible, layout, _ = render(plan, ids)
    assert restore(visible, layout, list(contents.values())) == raw
    if not (ndjson and indent is None):
        jsonlib.loads(visible)  # the visible text is still JSON


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(raws=st.lists(raw_inputs.map(lambda b: b * 8), min_size=1, max_size=4))
def test_graph_restores_random_inputs_through_the_store(raws):
    from flows.runner import run_packets

    packets = run_packets([ContextPacket(source=f"rand{i}", raw=r) for i, r in enumerate(raws)])
    for packet, raw in zip(packets, raws):
        assert packet.raw == raw
        assert packet.recovery_pass and packet.restore_pass, packet.trace


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(values=st.lists(json_values, min_size=1, max_size=4), indent=st.sampled_from([None, 2]))
def test_graph_restores_random_json_through_the_store(values, indent):
    from flows.runner import run_packets

    raws = [(jsonlib.dumps({"id": i, "status": "failed", "telemetry": v, "padding_1": "x" * 300, "items": [v] * 12},
                           indent=indent) + "\n").encode() for i, v in enumerate(values)]
    packets = run_packets([ContextPacket(source=f"doc{i}.json", raw=r) for i, r in enumerate(raws)])
    for packet, raw in zip(packets, raws):
        assert packet.type == "json"
        assert packet.recovery_pass and packet.restore_pass, packet.trace
        jsonlib.loads(packet.visible)
