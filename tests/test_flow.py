import json
import subprocess
import sys

import pytest
from structlog.testing import capture_logs

from conftest import FIXTURES, PROJECT
from operators.sources import fixture_paths
from flows.runner import run_packets
from operators.config import ConfigError, load_config
from operators.packet import ContextPacket
from operators.sources import file_packets

STAGES = ["LOAD", "CLASSIFY", "MEASURE_RAW", "OPTIMIZE", "MEASURE_OPT", "SIGNAL", "STORE", "RECOVERY", "RESTORE"]
LOG = (FIXTURES / "sample.log").read_bytes()


def test_one_trace_event_per_stage_per_packet_with_figures():
    packets = [ContextPacket(source="a.log", raw=LOG), ContextPacket(source="b.log", raw=LOG[:5000])]
    with capture_logs() as events:
        run_packets(packets)
    for source in ("a.log", "b.log"):
        stages = [e["event"] for e in events if e.get("source") == source]
        assert stages == STAGES
    by_stage = {e["event"]: e for e in events if e["source"] == "a.log"}
    assert by_stage["LOAD"]["bytes"] == len(LOG)
    assert by_stage["MEASURE_RAW"]["est_tokens"] == -(-len(LOG) // 4)
    assert by_stage["CLASSIFY"]["type"] == "log"
    assert by_stage["SIGNAL"]["result"] is True
    assert by_stage["RECOVERY"]["result"] is True
    assert by_stage["RESTORE"]["result"] is True
    assert by_stage["MEASURE_OPT"]["saved_pct"] > 75
    assert by_stage["STORE"]["store_files"] >= 3 and by_stage["STORE"]["store_bytes"] > 0


def _config(tmp_path, body: str):
    path = tmp_path / "conf.toml"
    path.write_text(body)
    return str(path)


def test_plugin_stage_from_config_is_inserted_and_traced(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(PROJECT / "tests"))
    conf = _config(tmp_path, '[[stages]]\npath = "plugin_stages:tag_source"\nafter = "OPTIMIZE"\n'
                             '[[stages]]\npath = "plugin_stages:untraced"\nafter = "LOAD"\n')
    with capture_logs() as events:
        [packet] = run_packets([ContextPacket(source="p.log", raw=LOG)], config_path=conf)
    stages = [e["event"] for e in events]
    assert stages[:2] == ["LOAD", "UNTRACED"]
    assert stages.index("TAG_SOURCE") == stages.index("OPTIMIZE") + 1
    tag = next(e for e in events if e["event"] == "TAG_SOURCE")
    assert tag["tagged"] is True and tag["visible_bytes"] == len(packet.visible)
    assert packet.restore_pass


@pytest.mark.parametrize("body, message", [
    ('[[stages]]\npath = "no_such_module_xyz:fn"\n', "cannot import stage module"),
    ('[[stages]]\npath = "plugin_stages:not_callable"\n', "has no function"),
    ('[[stages]]\npath = "plugin_stages"\n', "module:function"),
    ('[[stages]]\npath = "plugin_stages:untraced"\nafter = "NOWHERE"\n', "invalid config"),
    ('[log]\nfold_min = "three"\n', "fold_min"),
    ('[log]\nfold_min = 1\n', "fold_min"),
    ('unknown_key = 1\n', "unknown_key"),
    ('[reduce\n', "not valid TOML"),
])
def test_bad_config_is_a_readable_error(tmp_path, monkeypatch, body, message):
    monkeypatch.syspath_prepend(str(PROJECT / "tests"))
    conf = _config(tmp_path, body)
    with pytest.raises(ConfigError, match=message):
        run_packets([ContextPacket(source="x", raw=b"x")], config_path=conf)


def test_default_config_file_matches_built_in_defaults(monkeypatch):
    import msgspec

    monkeypatch.delenv("NOLIFE_TOKENS_HOME")

    from operators.config import DEFAULT_CONFIG, Config

    assert msgspec.structs.asdict(load_config(DEFAULT_CONFIG)) == msgspec.structs.asdict(Config())


def test_a_config_file_that_differs_from_the_shipped_one_is_parsed(tmp_path):
    from operators.config import DEFAULT_CONFIG

    edited = tmp_path / "edited.toml"
    edited.write_bytes(DEFAULT_CONFIG.read_bytes().replace(b"fold_min = 3 ", b"fold_min = 7 "))
    assert load_config(edited).log.fold_min == 7
    broken = tmp_path / "broken.toml"
    broken.write_bytes(DEFAULT_CONFIG.read_bytes() + b"[reduce\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(broken)


def test_unreadable_input_is_reported_not_raised(tmp_path):
    [packet] = run_packets(file_packets([tmp_path / "missing.log"]))
    assert "no such file" in packet.error and "missing.log" in packet.error and packet.visible == b""


def _run_main_job(home, workers: int) -> tuple[str, set[str]]:
    out = subprocess.run(
        [sys.executable, "-m", "bytewax.run", "flows.reduce", "-w", str(workers)],
        cwd=PROJECT, capture_output=True, timeout=180, env={**__import__("os").environ, "NOLIFE_TOKENS_HOME": str(home)},
    )
    assert out.returncode == 0, out.stderr.decode()[-2000:]
    return out.stdout.decode(), {p.name for p in (home / "context").glob("*.json")}


def test_main_job_reduces_every_fixture_and_two_workers_write_the_same_refs(tmp_path):
    stdout_1, files_1 = _run_main_job(tmp_path / "one", 1)
    stdout_2, files_2 = _run_main_job(tmp_path / "two", 2)
    fixtures = fixture_paths()
    assert files_1 and files_1 == files_2
    for stdout in (stdout_1, stdout_2):
        for fixture in fixtures:
            assert f"fixtures/{fixture.name}" in stdout
        assert "FAIL" not in stdout
        assert stdout.count("RESTORE PASS") >= len(fixtures)
    outs = sorted(p.name for p in (tmp_path / "one" / "out").iterdir())
    assert outs == sorted(p.name for p in (tmp_path / "two" / "out").iterdir())


def test_trace_is_json_lines_when_not_a_terminal(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "flows.cli", "analyze", "--trace", str(FIXTURES / "sample.log")],
        cwd=PROJECT, capture_output=True, timeout=120, env={**__import__("os").environ, "NOLIFE_TOKENS_HOME": str(tmp_path)},
    )
    events = [json.loads(line) for line in out.stderr.decode().splitlines()]
    assert [e["stage"] for e in events] == STAGES + ["LEVELS"]
    assert all(e["source"] == "fixtures/sample.log" for e in events)


@pytest.mark.parametrize("stage, broken", [
    ("tamper_visible", {"RESTORE"}),
    ("corrupt_first_ref", {"RECOVERY", "RESTORE"}),
    ("corrupt_manifest_layout", {"RESTORE"}),
])
def test_the_invariants_fail_when_the_store_or_the_visible_text_is_broken(tmp_path, monkeypatch, stage, broken):
    monkeypatch.syspath_prepend(str(PROJECT / "tests"))
    conf = _config(tmp_path, f'[[stages]]\npath = "plugin_stages:{stage}"\nafter = "STORE"\n')
    [packet] = run_packets([ContextPacket(source="broken.log", raw=LOG)], config_path=conf)
    results = {"RECOVERY": packet.recovery_pass, "RESTORE": packet.restore_pass}
    assert {name for name, ok in results.items() if not ok} == broken


@pytest.mark.parametrize("target", ["flows.reduce", "flows.reduce:get_flow(paths=['fixtures/sample.log'])"])
def test_bytewax_entry_point_reports_a_bad_config_in_one_line(tmp_path, target):
    conf = _config(tmp_path, "bogus = 1\n")
    out = subprocess.run([sys.executable, "-m", "bytewax.run", target], cwd=PROJECT, capture_output=True, timeout=120,
                         env={**__import__("os").environ, "NOLIFE_TOKENS_CONFIG": conf, "NOLIFE_TOKENS_HOME": str(tmp_path)})
    err = out.stderr.decode()
    assert out.returncode == 2 and "Traceback" not in err
    assert err.strip().splitlines() == [f"nolife-tokens: error: invalid config {conf}: Object contains unknown field `bogus`"]


def test_a_ref_id_lengthened_by_a_collision_is_the_one_shown_and_restored(home):
    from operators.store import Store

    [first] = run_packets([ContextPacket(source="collide.log", raw=LOG)])
    pure_id = first.references[0].id
    store = Store(home)
    for path in store.dir.iterdir():  # a fresh store, where the pure id is taken by something else
        path.unlink()
    (store.dir / f"{pure_id}.json").write_bytes(b"{}")
    [packet] = run_packets([ContextPacket(source="collide.log", raw=LOG)])
    longer = packet.references[0].id
    assert longer.startswith(pure_id) and len(longer) > len(pure_id)
    assert f"#ref:{longer}".encode() in packet.visible
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    assert store.restore(store.find_manifest_for_visible(packet.visible), packet.visible) == LOG


class _CountingSha256:
    """A sha256 that adds up the bytes it is fed (to see what a run hashes, and how often)."""

    fed = 0

    def __init__(self, data=b""):
        self._h = _REAL_SHA256()
        self.update(data)

    def update(self, data) -> None:
        _CountingSha256.fed += memoryview(data).nbytes
        self._h.update(data)

    def hexdigest(self) -> str:
        return self._h.hexdigest()


_REAL_SHA256 = __import__("hashlib").sha256


def test_each_omitted_byte_is_hashed_once(home, monkeypatch):
    import hashlib

    from operators import digest
    from operators.reduction import Layout

    monkeypatch.setattr(hashlib, "sha256", _CountingSha256)  # big contents and streams
    monkeypatch.setattr(digest, "_small_sha256", _CountingSha256)  # small ones
    _CountingSha256.fed = 0
    [packet] = run_packets([ContextPacket(source="once.log", raw=LOG)])
    assert packet.recovery_pass and packet.restore_pass
    omitted = sum(len(ref.content) for ref in packet.references)
    assert omitted > len(LOG) // 2
    layout = len(packet.layout.to_json()) if isinstance(packet.layout, Layout) else 0
    # the raw input for the manifest, each ref once (its id and checksum share that hash), the visible
    # text and the layout written (and checked again by RESTORE), plus the ids' short keys
    allowed = len(LOG) + omitted + 2 * len(packet.visible) + 2 * layout + 1024
    assert len(LOG) <= _CountingSha256.fed <= allowed


def test_a_stage_that_changes_a_ref_after_optimize_gets_it_hashed_again(home, tmp_path, monkeypatch):
    from operators.store import Store

    monkeypatch.syspath_prepend(str(PROJECT / "tests"))
    conf = _config(tmp_path, '[[stages]]\npath = "plugin_stages:append_to_first_ref"\nafter = "OPTIMIZE"\n')
    [packet] = run_packets([ContextPacket(source="changed.log", raw=LOG)], config_path=conf)
    ref = packet.references[0]
    assert ref.content.endswith(b"appended by a stage\n")
    assert Store(home).get(ref.id).content == ref.content  # a stale checksum would read as corrupt
    assert packet.recovery_pass  # the store holds exactly what the packet carries ...
    assert not packet.restore_pass  # ... which no longer rebuilds the input


def test_ids_that_share_a_prefix_inside_one_plan_are_shown_as_stored_without_a_second_render(home, monkeypatch):
    import operators.stages as stages
    import operators.store as store_module
    from operators.store import Store

    real_digest, real_render = store_module.ref_digest, stages.render
    monkeypatch.setattr(store_module, "ref_digest", lambda *key: "abcdef" + real_digest(*key)[6:])
    renders = []
    monkeypatch.setattr(stages, "render", lambda *args: renders.append(1) or real_render(*args))
    [packet] = run_packets([ContextPacket(source="prefix.log", raw=LOG, granularity="fine")])
    ids = [ref.id for ref in packet.references]
    assert len(ids) >= 2 and len(set(ids)) == len(ids) and ids[0] == "ctx_abcdef"
    for ref_id in ids:
        assert f"#ref:{ref_id}".encode() in packet.visible
    assert renders == [1]  # OPTIMIZE rendered with the ids STORE wrote under: STORE did not render again
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    store = Store(home)
    assert store.restore(store.find_manifest_for_visible(packet.visible), packet.visible) == LOG


def test_a_reduction_saving_less_than_its_refs_line_shows_the_raw_text(home):
    """A package manifest whose reducer hides one short value (55 bytes of a debug script) would
    print a ref marker and the refs line (how to read refs, ~150 bytes) to save 35: never worse than
    raw shows it whole; a bigger saving is shown."""
    from conftest import reduce_bytes, reducing_any_size
    from operators.launcher import refs_hint

    doc = {"name": "demo-cli", "version": "1.2.3",
           "scripts": {f"task{k}": f"node scripts/task{k}.js --flag {k}" for k in range(40)}}
    doc["scripts"]["debug"] = "cross-env DEBUG=1 node --inspect-brk scripts/start.js"
    doc["dependencies"] = {f"pkg-{k}": f"^{k}.0.0" for k in range(40)}
    raw = json.dumps(doc, indent=2).encode() + b"\n"
    packet = reduce_bytes(raw, config=reducing_any_size())
    assert packet.type == "json"
    assert packet.visible == raw and packet.guard.startswith("never worse than raw")
    assert not packet.references and packet.restore_pass
    saved = 35 + len(refs_hint("pkt_" + "0" * 12, "ctx_000000"))
    big = raw.replace(b'"debug": "cross-env', b'"debug": "' + b"x" * saved + b" cross-env")
    packet = reduce_bytes(big, config=reducing_any_size())
    assert packet.references and len(packet.visible) < len(big) and packet.restore_pass
