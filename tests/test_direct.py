"""One document without the engine (flows/direct.py) is the graph's result, byte for byte.

Every fixture and every bad input (empty, NUL bytes, invalid UTF-8, CRLF, no final newline, a 2 MB
line, …) goes through ``tokens analyze`` and through ``tokens run -- cat FILE`` twice: without the
engine (the default for one document) and through the bytewax graph (``NOLIFE_TOKENS_DIRECT=0``),
each with its own store home and the same clock. The printed bytes, the exit codes, the store's
files (names and bytes) and the trace of every stage must be the same."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, PROJECT, run_cli
from operators.sources import fixture_paths

NOW = 1_800_000_000.25  # the clock both runs see: manifests record when they were made
BAD = {
    "empty": b"",
    "nul-bytes": b"2026-01-01 10:00:00 INFO start\x00\x00 ok\n" * 40 + b"2026-01-01 10:00:01 ERROR \x00boom\n",
    "invalid-utf8": b"".join(b"line %d caf\xe9 \xff\xfe ok\n" % i for i in range(120)) + b"ERROR \xc3\x28 bad\n",
    "crlf": b"".join(b"2026-01-01 10:00:%02d INFO request %d done\r\n" % (i % 60, i) for i in range(200)),
    "no-final-newline": b"".join(b"2026-01-01 10:00:%02d WARN slow %d\n" % (i % 60, i) for i in range(150)) + b"last",
    "2mb-line": b"x" * 2_000_000 + b" ERROR at the very end\n",
}
INPUTS = {p.name: p for p in fixture_paths()}


@pytest.fixture(params=sorted(INPUTS) + [f"bad:{name}" for name in BAD])
def input_file(request, tmp_path) -> Path:
    name = request.param
    if not name.startswith("bad:"):
        return INPUTS[name]
    path = tmp_path / "inputs" / name[4:]
    path.parent.mkdir()
    path.write_bytes(BAD[name[4:]])
    return path


def store_files(home: Path) -> dict[str, bytes]:
    """Every file under a store home, by path relative to it, with its bytes."""
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def _analyze(capsysbinary, monkeypatch, home: Path, path: Path, direct: bool):
    import time

    monkeypatch.setenv("NOLIFE_TOKENS_HOME", str(home))
    monkeypatch.setenv("NOLIFE_TOKENS_DIRECT", "1" if direct else "0")
    monkeypatch.setattr(time, "time", lambda: NOW)
    return run_cli(capsysbinary, "analyze", str(path))


def test_analyze_prints_and_stores_what_the_graph_does(input_file, tmp_path, capsysbinary, monkeypatch):
    direct = _analyze(capsysbinary, monkeypatch, tmp_path / "direct", input_file, True)
    graph = _analyze(capsysbinary, monkeypatch, tmp_path / "graph", input_file, False)
    assert direct == graph
    assert store_files(tmp_path / "direct") == store_files(tmp_path / "graph")


def _run(tmp_path: Path, home: Path, path: Path, direct: bool) -> subprocess.CompletedProcess:
    env = {**os.environ, "NOLIFE_TOKENS_HOME": str(home), "NOLIFE_TOKENS_DIRECT": "1" if direct else "0",
           "PYTHONPATH": str(PROJECT)}
    code = (f"import sys, time; time.time = lambda: {NOW!r}; from flows.quick import main; "
            f"sys.argv = ['tokens', 'run', '--', 'cat', {str(path)!r}]; sys.exit(main())")
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, timeout=120)


def test_run_of_a_finished_command_prints_and_stores_what_the_graph_does(input_file, tmp_path):
    direct = _run(tmp_path, tmp_path / "direct", input_file, True)
    graph = _run(tmp_path, tmp_path / "graph", input_file, False)
    assert (direct.returncode, direct.stdout, direct.stderr) == (graph.returncode, graph.stdout, graph.stderr)
    assert store_files(tmp_path / "direct") == store_files(tmp_path / "graph")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"direct", "graph", "inputs"} & {
        p.name for p in tmp_path.iterdir()})  # nothing written where it ran


def test_the_trace_of_every_stage_is_the_graphs(tmp_path, monkeypatch):
    from flows.runner import run_packets
    from operators.packet import ContextPacket

    import time

    monkeypatch.setattr(time, "time", lambda: NOW)  # manifests record when they were made (their size too)
    raw = (FIXTURES / "sample.log").read_bytes()
    traces = []
    for direct in ("1", "0"):
        monkeypatch.setenv("NOLIFE_TOKENS_DIRECT", direct)
        monkeypatch.setenv("NOLIFE_TOKENS_HOME", str(tmp_path / direct))
        [packet] = run_packets([ContextPacket(source="sample.log", raw=raw)])
        traces.append([(t.stage, t.figures) for t in packet.trace])
    assert [stage for stage, _ in traces[0]] == ["LOAD", "CLASSIFY", "MEASURE_RAW", "OPTIMIZE", "MEASURE_OPT",
                                                 "SIGNAL", "STORE", "RECOVERY", "RESTORE"]
    assert traces[0] == traces[1]


def test_a_plugin_stage_runs_in_both(tmp_path, monkeypatch):
    """A stage added in config is in the graph and in the direct path alike: one list of stages."""
    from flows.runner import run_packets
    from operators.packet import ContextPacket

    conf = tmp_path / "stages.toml"
    conf.write_text('[[stages]]\npath = "plugin_stages:tag_source"\nafter = "OPTIMIZE"\n')
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    stages = []
    for direct in ("1", "0"):
        monkeypatch.setenv("NOLIFE_TOKENS_DIRECT", direct)
        [packet] = run_packets([ContextPacket(source="p.log", raw=b"a line\n" * 300)], config_path=str(conf))
        stages.append([t.stage for t in packet.trace])
    assert "TAG_SOURCE" in stages[0]
    assert stages[0] == stages[1]


def test_analyze_does_not_import_the_engine(tmp_path):
    path = tmp_path / "in.log"
    path.write_bytes((FIXTURES / "sample.log").read_bytes())
    env = {**os.environ, "NOLIFE_TOKENS_HOME": str(tmp_path / "home"), "PYTHONPATH": str(PROJECT)}
    code = (f"import sys; from flows.cli import main; code = main(['analyze', {str(path)!r}]); "
            "sys.stderr.write('\\nENGINE=%s\\n' % ('bytewax' in sys.modules)); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.endswith(b"ENGINE=False\n")
