import pytest

from conftest import FIXTURES, tokens_cli
from operators.store import MARKER_RE, Store

LOG = FIXTURES / "sample.log"


def _one_error_line(result):
    err = result.stderr.decode()
    assert result.returncode != 0
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tokens: error:"), err
    return lines[0]


def test_analyze_prints_visible_text_and_show_ref_returns_exact_bytes(home):
    result = tokens_cli("analyze", str(LOG))
    assert result.returncode == 0, result.stderr.decode()
    visible = result.stdout
    assert b"ERROR PaymentService line 421" in visible
    markers = MARKER_RE.findall(visible)
    assert markers
    store = Store(home)
    for marker in markers:
        shown = tokens_cli("show-ref", marker.decode())
        assert shown.returncode == 0
        header, sep, content = shown.stdout.partition(b"--- RAW CONTENT ---\n")
        assert sep and b"Source: fixtures/sample.log" in header and b"Reason: " in header
        assert content == store.get(marker.decode()).content
        assert content and all(line in LOG.read_bytes() for line in content.splitlines())
        bare = tokens_cli("show-ref", marker.decode().removeprefix("#ref:"))
        assert bare.stdout == shown.stdout


def test_analyze_reads_stdin_with_source_name_stdin(home):
    data = LOG.read_bytes()
    result = tokens_cli("analyze", "-", "--trace", stdin=data)
    assert result.returncode == 0
    assert b'"source":"stdin"' in result.stderr
    assert b"ERROR PaymentService line 421" in result.stdout


def test_expand_full_restores_the_original_from_the_reduced_file(home, tmp_path):
    result = tokens_cli("analyze", str(LOG))
    reduced = tmp_path / "reduced.txt"
    reduced.write_bytes(result.stdout)
    restored = tokens_cli("expand", "--full", str(reduced))
    assert restored.returncode == 0, restored.stderr.decode()
    assert restored.stdout == LOG.read_bytes()


def test_expand_full_refuses_a_manifest_whose_layout_was_changed(home, tmp_path):
    import os
    import re

    result = tokens_cli("analyze", str(LOG), "--trace")
    pkt = re.search(rb"pkt_[0-9a-f]{12}", result.stderr).group().decode()
    path = Store(home).dir / f"{pkt}.json"
    data = path.read_bytes()
    # read the second visible piece one byte early: the rebuilt text is as long as the original, but not it
    edited = re.sub(rb'"layout":\[\[0,(\d+),(\d+)\],\[0,(\d+),',
                    lambda m: b'"layout":[[0,%s,%s],[0,%d,' % (m.group(1), m.group(2), int(m.group(3)) - 1), data, count=1)
    assert edited != data
    os.chmod(path, 0o644)
    path.write_bytes(edited)
    line = _one_error_line(tokens_cli("expand", "--full", pkt))
    assert "does not restore to the original" in line


@pytest.mark.parametrize("args, fragment", [
    (("analyze", "/no/such/file.log"), "no such file"),
    (("analyze", "."), "is a directory"),
    (("show-ref", "ctx_abcdef"), "unknown ref"),
    (("show-ref", "../../etc/passwd"), "not a ref id"),
    (("show-ref", "#ref:ctx_12"), "not a ref id"),
    (("expand", "ctx_zzzzzz"), "not a ref id"),
    (("expand", "--full", "pkt_0123456789ab"), "unknown packet"),
    (("refs", "gc"), "needs --older-than"),
    (("refs", "gc", "--older-than", "soon"), "not a duration"),
    (("--config", "/no/such.toml", "refs", "list"), "cannot read config"),
])
def test_bad_input_gives_one_clear_error_line(args, fragment, home):
    line = _one_error_line(tokens_cli(*args))
    assert fragment in line


def test_expand_full_of_text_the_tool_never_produced_is_refused(tmp_path, home):
    fake = tmp_path / "fake.txt"
    fake.write_bytes(b"looks reduced #ref:ctx_abcdef but is not\n")
    assert "no packet" in _one_error_line(tokens_cli("expand", "--full", str(fake)))


def test_refs_list_and_gc(home):
    tokens_cli("analyze", str(LOG))
    listed = tokens_cli("refs", "list")
    assert listed.returncode == 0
    out = listed.stdout.decode()
    assert "fixtures/sample.log" in out and "folded repeated log lines" in out
    gc = tokens_cli("refs", "gc", "--max-bytes", "0")
    assert gc.returncode == 0 and "removed" in gc.stdout.decode()
    assert not list((home / "context").glob("*.json"))


@pytest.mark.parametrize("level", [0, 1, 2])
def test_analyze_levels_and_their_estimated_tokens_in_the_trace(level, home):
    import json

    result = tokens_cli("analyze", str(LOG), "--level", str(level), "--trace")
    assert result.returncode == 0
    events = [json.loads(line) for line in result.stderr.decode().splitlines()]
    levels = events[-1]
    assert levels["stage"] == "LEVELS" and levels["level"] == level
    raw = LOG.read_bytes()
    assert levels["l2_est"] == -(-len(raw) // 4)
    assert levels["l1_est"] < levels["l2_est"]
    assert ("l0_est" in levels) == (level == 0)  # level 0 is made only when asked for
    if level == 0:
        assert levels["l0_est"] < levels["l1_est"]
    out = result.stdout
    assert -(-len(out) // 4) == levels[f"l{level}_est"]
    if level == 2:
        assert out == raw
    if level == 0:
        assert b"ERROR PaymentService line 421" in out and b"pkt_" in out


@pytest.mark.parametrize("target", ["{tmp}", "{tmp}/no/such/dir/out.txt"])
def test_expand_to_an_unwritable_output_is_one_error_line(target, tmp_path, home):
    tokens_cli("analyze", str(LOG))
    packet = next((home / "context").glob("pkt_*.json")).stem
    line = _one_error_line(tokens_cli("expand", "--full", packet, "-o", target.format(tmp=tmp_path)))
    assert str(tmp_path) in line


# -- startup: what `tokens` imports (checked by module name, never by timing) ----------------------
def _python(code: str, *argv: str):
    import subprocess
    import sys

    from conftest import PROJECT

    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, cwd=PROJECT, timeout=120)


_REPORT_MODULES = """
import gc, json, sys
def report(rc):
    real_asyncio = type(sys.modules.get("asyncio")).__name__ == "module"
    mods = [m for m in ("flows.tail", "flows.agent", "operators.tail", "operators.pack", "operators.report",
                        "tempfile", "asyncio.base_events") if m in sys.modules]
    print(json.dumps({"rc": rc, "loaded": mods, "real_asyncio": real_asyncio, "gc_enabled": gc.isenabled(),
                      "asyncio": type(sys.modules.get("asyncio")).__name__,
                      "bytewax": "bytewax.operators" in sys.modules, "structlog": "structlog" in sys.modules}),
          file=sys.stderr)
"""


def _modules_after(*argv: str) -> dict:
    import json

    code = _REPORT_MODULES + "sys.argv[0] = 'tokens'\nfrom flows.cli import main\nreport(main())\n"
    result = _python(code, *argv)
    return json.loads(result.stderr.decode().strip().splitlines()[-1])


def test_analyze_imports_neither_the_tail_nor_the_agent_commands_nor_asyncio(home):
    after = _modules_after("analyze", str(LOG), "--trace")
    assert after["rc"] == 0
    assert after["loaded"] == []  # flows.tail, flows.agent, operators.report, tempfile, asyncio
    assert not after["real_asyncio"]
    assert not after["bytewax"] and after["structlog"]  # one document runs the graph's steps without the engine; --trace
    assert after["gc_enabled"]  # paused for the start only


def test_show_ref_imports_no_graph(home):
    after = _modules_after("show-ref", "ctx_abcdef")
    assert after["rc"] == 1
    assert not after["bytewax"] and not after["structlog"] and after["loaded"] == []


def test_the_deferred_asyncio_is_the_real_one_on_first_use():
    code = """
import sys
import flows.cli
flows.cli.defer_import("asyncio")  # what main() does first in the `tokens` process
import structlog, bytewax.inputs
stand_in = sys.modules["asyncio"]
assert type(stand_in).__name__ == "_Deferred" and structlog.stdlib.asyncio is stand_in
assert "asyncio.base_events" not in sys.modules

async def twice(x):
    await stand_in.sleep(0)
    return 2 * x

assert stand_in.run(twice(21)) == 42  # first use: the real module is imported ...
real = sys.modules["asyncio"]
assert type(real).__name__ == "module" and real is not stand_in and real.run is stand_in.run  # ... and replaces it
import asyncio, asyncio.subprocess
from asyncio import Queue
assert asyncio is real and Queue is real.Queue and bytewax.inputs.asyncio.CancelledError is real.CancelledError
print("ok")
"""
    result = _python(code)
    assert result.returncode == 0 and result.stdout.decode().strip() == "ok", result.stderr.decode()
    already = _python("import asyncio, sys, flows.cli; flows.cli.defer_import('asyncio'); "
                      "assert sys.modules['asyncio'] is asyncio; print('ok')")
    assert already.returncode == 0 and already.stdout.decode().strip() == "ok", already.stderr.decode()


def test_main_called_with_arguments_leaves_the_process_alone(home):
    import json

    code = _REPORT_MODULES + f"from flows.cli import main\nrc = main(['analyze', {str(LOG)!r}])\n" \
        "assert gc.get_freeze_count() == 0\nreport(rc)\n"
    result = _python(code)
    after = json.loads(result.stderr.decode().strip().splitlines()[-1])
    assert after["rc"] == 0 and after["gc_enabled"] and after["asyncio"] in ("module", "NoneType")  # no stand-in, no frozen GC


@pytest.mark.parametrize("columns", [None, "40", "200", "0", "-3", "wide"])
def test_help_width_is_the_one_shutil_gives(columns, monkeypatch):
    import shutil

    from flows.parser import terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns
