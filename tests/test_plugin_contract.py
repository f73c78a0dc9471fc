"""The written contract of plug-in stages (docs/extending.md): what a stage may change, and what
happens when it breaks the contract (one clear packet error, never a silent overwrite or a crash)."""

from __future__ import annotations

from structlog.testing import capture_logs

from conftest import FIXTURES, PROJECT
from flows.runner import run_packets
from operators.packet import ContextPacket

LOG = (FIXTURES / "sample.log").read_bytes()


def _run(tmp_path, monkeypatch, body: str) -> tuple[ContextPacket, list[dict]]:
    monkeypatch.syspath_prepend(str(PROJECT / "tests"))
    conf = tmp_path / "conf.toml"
    conf.write_text(body)
    with capture_logs() as events:
        [packet] = run_packets([ContextPacket(source="a.log", raw=LOG)], config_path=str(conf))
    return packet, events


def test_editing_visible_by_hand_is_a_clear_error_not_silently_overwritten(tmp_path, monkeypatch):
    packet, _ = _run(tmp_path, monkeypatch, '[[stages]]\npath = "plugin_stages:edit_visible"\nafter = "OPTIMIZE"\n')
    assert "EDIT_VISIBLE edited packet.visible" in packet.error
    assert "change packet.plan instead" in packet.error


def test_a_new_plan_is_honoured_refs_and_visible_follow_it(tmp_path, monkeypatch):
    packet, _ = _run(tmp_path, monkeypatch, '[[stages]]\npath = "plugin_stages:keep_everything"\nafter = "OPTIMIZE"\n')
    assert not packet.error
    assert packet.visible == LOG and packet.references == []
    assert packet.measure.visible_bytes == len(LOG)  # MEASURE_OPT measured the new text
    assert packet.restore_pass and packet.recovery_pass and packet.signal_pass


def test_two_plugins_with_the_same_function_name_each_get_their_own_step(tmp_path, monkeypatch):
    packet, events = _run(tmp_path, monkeypatch,
                          '[[stages]]\npath = "plugin_stages:tag_source"\nafter = "OPTIMIZE"\n'
                          '[[stages]]\npath = "plugin_stages_b:tag_source"\nafter = "OPTIMIZE"\n')
    assert not packet.error
    names = [e["event"] for e in events]
    assert names[names.index("OPTIMIZE") + 1 : names.index("OPTIMIZE") + 3] == ["TAG_SOURCE", "TAG_SOURCE_2"]
    assert [t.stage for t in packet.trace].count("TAG_SOURCE_B") == 1  # the second one really ran


def test_an_unknown_type_set_by_a_stage_is_an_error_not_silently_text(tmp_path, monkeypatch):
    packet, _ = _run(tmp_path, monkeypatch, '[[stages]]\npath = "plugin_stages:set_unknown_type"\nafter = "CLASSIFY"\n')
    assert "unknown content type 'no-such-type'" in packet.error
    assert packet.visible == b""


def test_a_plugin_plan_is_made_safe_and_bounded_like_a_reducer_plan(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(PROJECT / "tests"))
    conf = tmp_path / "conf.toml"
    conf.write_text('[[stages]]\npath = "plugin_stages:keep_everything"\nafter = "OPTIMIZE"\n')
    raw = b"".join(b"2026-01-01 10:00:%02d \x1b[31mERROR\x1b[0m step %d failed\x1b]52;c;aGk=\x07\n" % (i % 60, i)
                   for i in range(40))
    [packet] = run_packets([ContextPacket(source="esc.log", raw=raw)], config_path=str(conf))
    assert not packet.error and b"\x1b" not in packet.visible and b"\x07" not in packet.visible
    assert b"ERROR step 39 failed" in packet.visible
    assert packet.restore_pass and packet.recovery_pass
