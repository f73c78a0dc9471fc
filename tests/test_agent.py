"""Agent entry points: `tokens run` (exit codes, failure first, level 0), level 0 overviews and `tokens pack`."""

from __future__ import annotations

import json
import os
import sys

import pytest

from operators.store import Store
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, reduce_bytes, run_cli, tokens_cli, sleepers
from flows.runner import run_packets
from operators.overview import overview
from operators.pack import PackError, pack
from operators.sources import file_packets
from operators.store import MARKER_RE, Store
from operators.tokens import estimate_tokens

PY = sys.executable
PYTEST_FIXTURE = FIXTURES / "pytest_failure.txt"


def echo_fixture(path, exit_code: int = 0) -> list[str]:
    """A child that prints a fixture (as a test runner would) and exits with ``exit_code``."""
    return [PY, "-c", f"import sys; sys.stdout.buffer.write(open({str(path)!r}, 'rb').read()); sys.exit({exit_code})"]


# -- tokens run --------------------------------------------------------------------------------
@pytest.mark.parametrize("script, code", [
    ("print('all good')", 0),
    ("import sys; print('boom: failure'); sys.exit(1)", 1),
    ("import os, signal; print('about to die', flush=True); os.kill(os.getpid(), signal.SIGKILL)", 137),
])
def test_run_exits_with_the_commands_code(capsysbinary, script, code):
    got, out, _ = run_cli(capsysbinary, "run", "--", PY, "-c", script)
    assert got == code
    if code:
        assert out.startswith(f"[command failed: exit code {code}]\n".encode())
    else:
        assert out == b"all good\n"


def test_run_exit_code_is_real_in_a_subprocess_and_stderr_is_captured_too():
    result = tokens_cli("run", "--", PY, "-c", "import sys; print('out'); print('err line', file=sys.stderr); sys.exit(3)")
    assert result.returncode == 3
    assert result.stdout.startswith(b"[command failed: exit code 3]\n")
    assert b"out\n" in result.stdout and b"err line\n" in result.stdout
    assert result.stderr == b""


def test_run_missing_command_is_a_clear_error_with_127(capsysbinary):
    code, out, err = run_cli(capsysbinary, "run", "--", "no-such-command-nolife-xyz", "--flag")
    assert code == 127
    assert out == b""
    assert err.decode().strip() == "tokens: error: command not found: no-such-command-nolife-xyz"


def test_run_reduces_a_failing_test_run_and_the_original_comes_back(capsysbinary, home):
    code, out, _ = run_cli(capsysbinary, "run", "--", *echo_fixture(PYTEST_FIXTURE, 1))
    assert code == 1
    assert out.startswith(b"[command failed: exit code 1]\n")
    assert b"FAILED tests/test_parse.py::test_parse_order_missing_lines - KeyError: 'lines'" in out
    assert b"PASSED" not in out.replace(b"PASSED \xc3\x97", b"")
    assert len(out) < 0.4 * PYTEST_FIXTURE.stat().st_size
    pkt = out.rsplit(b"tokens expand --full ", 1)[1].split(b"]")[0].decode()
    code, restored, _ = run_cli(capsysbinary, "expand", "--full", pkt)
    assert code == 0 and restored == PYTEST_FIXTURE.read_bytes()
    [marker] = set(MARKER_RE.findall(out))
    assert b"tests/test_cart.py::test_add_quantity[1] PASSED" in Store(home).get(marker.decode()).content


def test_run_level_0_is_small_says_failure_first_and_names_the_refs(capsysbinary):
    code, out, _ = run_cli(capsysbinary, "run", "--level", "0", "--", *echo_fixture(PYTEST_FIXTURE, 1))
    assert code == 1
    text = out.decode()
    assert text.startswith("[command failed: exit code 1]\n")
    assert "3 failed, 118 passed" in text
    assert "FAILED tests/test_cart.py::test_total_with_discount" in text
    assert "ctx_" in text and "tokens show-ref" in text and "tokens expand --full pkt_" in text
    assert estimate_tokens(len(out)) < 220
    important = sum(len(line) + 1 for line in out.split(b"\n") if line.startswith(b"  "))
    assert estimate_tokens(len(out) - important) < 100


def test_run_level_0_of_a_short_output_is_the_output_itself(capsysbinary):
    code, out, _ = run_cli(capsysbinary, "run", "--level", "0", "--", PY, "-c", "import sys; print('tiny'); sys.exit(2)")
    assert (code, out) == (2, b"[command failed: exit code 2]\ntiny\n")


# -- level 0 -----------------------------------------------------------------------------------
FIXTURE_HOME: dict = {}  # where the module's fixture packets were stored


@pytest.fixture(scope="module")
def fixture_packets(tmp_path_factory):
    import os

    old = os.environ.get("NOLIFE_TOKENS_HOME")
    home = tmp_path_factory.mktemp("home")
    os.environ["NOLIFE_TOKENS_HOME"] = str(home)
    try:
        # a fixed set of one input of each of the first content types (the fixtures folder keeps growing)
        names = ["gcc_errors.txt", "npm_install.txt", "pip_install.txt", "pytest_failure.txt", "sample.diff",
                 "sample.filelist", "sample.json", "sample.log", "sample.txt"]
        paths = [FIXTURES / name for name in names]
        packets = run_packets(file_packets(paths))
        FIXTURE_HOME["home"] = home
        yield packets
    finally:
        if old is None:
            os.environ.pop("NOLIFE_TOKENS_HOME", None)
        else:
            os.environ["NOLIFE_TOKENS_HOME"] = old


def test_level_0_of_every_fixture_is_small_and_names_how_to_expand(fixture_packets):
    for packet in fixture_packets:
        text = overview(packet)
        assert estimate_tokens(len(text)) < 260, packet.source
        assert packet.source.encode() in text and packet.type.encode() in text
        assert f"tokens expand --full {packet.manifest_id}".encode() in text
        for ref in packet.references[:3]:
            assert ref.id.encode() in text
        assert b"L0/L1/L2" in text
        # the command it names works: the store keeps the visible text beside the manifest
        store = Store(FIXTURE_HOME["home"])
        manifest = store.get_manifest(packet.manifest_id)
        assert store.restore(manifest, store.get_visible(manifest)) == packet.raw


def test_level_0_counts_per_type(fixture_packets):
    by_name = {p.source.rsplit("/", 1)[-1]: overview(p).decode() for p in fixture_packets}
    assert "build (gcc/make)" in by_name["gcc_errors.txt"]
    assert "src/queue.c:25:5: error: expected" in by_name["gcc_errors.txt"]
    assert "3 failed, 118 passed" in by_name["pytest_failure.txt"]
    diff = next((v for k, v in by_name.items() if k.endswith(".diff")), None)
    if diff is not None:
        assert "changed, +" in diff


def test_expand_full_with_the_packet_id_from_level_0(capsysbinary, home):
    code, out, _ = run_cli(capsysbinary, "analyze", str(FIXTURES / "gcc_errors.txt"), "--level", "0")
    assert code == 0
    pkt = out.split(b"tokens expand --full ")[1].split()[0].decode()
    code, restored, _ = run_cli(capsysbinary, "expand", "--full", pkt)
    assert code == 0 and restored == (FIXTURES / "gcc_errors.txt").read_bytes()


# -- tokens pack -------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(budget=st.integers(min_value=1, max_value=12_000), subset=st.lists(st.integers(0, 50), min_size=1, max_size=6))
def test_pack_never_exceeds_the_budget(fixture_packets, budget, subset):
    chosen = [fixture_packets[i % len(fixture_packets)] for i in subset]
    try:
        text, result = pack(chosen, budget)
    except PackError as exc:
        assert "too small" in str(exc)
        return
    assert estimate_tokens(len(text)) <= budget
    assert result.used_tokens == estimate_tokens(len(text)) <= budget
    # what is not shown is reachable: the packet's expand command and every ref not shown
    for p in result.packets:
        if p.lines_shown < p.lines_total:
            assert f"tokens expand --full {p.packet}".encode() in text
        for ref in p.refs_not_shown:
            assert ref.encode() in text
    if not result.complete:
        assert b"signal lines not shown" in text.split(b"\n", 1)[0]


@pytest.mark.parametrize("budget", [400, 600, 900, 1500, 2500, 5000])
def test_pack_never_drops_a_signal_line_while_showing_a_less_important_one(fixture_packets, budget):
    text, result = pack(fixture_packets, budget)
    assert estimate_tokens(len(text)) <= budget
    best_dropped = min((t for p in result.packets for i, t in enumerate(p.tiers) if i not in set(p.shown_lines)), default=3)
    worst_shown = max((p.tiers[i] for p in result.packets for i in p.shown_lines), default=-1)
    assert worst_shown <= best_dropped, (worst_shown, best_dropped)
    if budget <= 900:
        assert not result.complete or worst_shown > 0
    for p in result.packets:  # the printed lines are the packet's reduced lines, in order
        packet = next(x for x in fixture_packets if x.manifest_id == p.packet)
        lines = packet.visible.split(b"\n")
        for i in p.shown_lines:
            assert lines[i] in text


def test_pack_a_signal_line_beats_noise_lines():
    noise = b"".join(f"2026-01-01 10:00:{i % 60:02d} INFO request {i} served in {i % 7}ms\n".encode() for i in range(40))
    raw = noise[: len(noise) // 2] + b"2026-01-01 10:00:30 ERROR payment 7781 declined: gateway timeout\n" + noise[len(noise) // 2:]
    packet = reduce_bytes(raw, source="app.log", forced_type="text")
    text, result = pack([packet], 120)
    assert b"ERROR payment 7781 declined: gateway timeout" in text
    assert b"INFO request 3 served" not in text
    assert result.complete and result.lines_shown < result.lines_total
    assert f"tokens expand --full {packet.manifest_id}".encode() in text


def test_pack_says_when_not_even_the_signals_fit():
    raw = b"".join(f"ERROR job {i} failed: disk quota exceeded on volume vol-{i:04d}\n".encode() for i in range(200))
    packet = reduce_bytes(raw, source="errors.log", forced_type="text")
    text, result = pack([packet], 200)
    assert estimate_tokens(len(text)) <= 200
    assert not result.complete and 0 < result.signal_shown < result.signal_total
    assert f"{result.signal_total - result.signal_shown:,} signal lines not shown".encode() in text.split(b"\n", 1)[0]


def test_pack_cli_json_and_too_small_budget(capsysbinary):
    code, out, _ = run_cli(capsysbinary, "pack", "--budget", "800", str(PYTEST_FIXTURE), str(FIXTURES / "gcc_errors.txt"), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["used_tokens"] <= 800 and estimate_tokens(len(report["text"].encode())) <= 800
    assert [p["type"] for p in report["packets"]] == ["build", "build"]
    assert all(p["expand"].startswith("tokens expand --full pkt_") for p in report["packets"])
    code, out, err = run_cli(capsysbinary, "pack", "--budget", "5", str(PYTEST_FIXTURE))
    assert code == 2 and out == b"" and b"too small" in err


# ------------------------------------------------------------------------------- process handling




@pytest.mark.parametrize("quick", ["1", "0"])
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGQUIT", "SIGUSR1"])
def test_killing_tokens_with_any_signal_leaves_nothing_running(quick, sig, tmp_path, home):
    """SIGKILL cannot be caught, SIGQUIT and SIGUSR1 are not handled: the command's whole group (a
    shell and its child) still goes with tokens."""
    import signal
    import subprocess
    import sys
    import time

    tag = f"71.{os.getpid() % 1000:03d}{('SIGKILL', 'SIGQUIT', 'SIGUSR1').index(sig)}{quick}"  # one a test
    env = {**os.environ, "NOLIFE_TOKENS_QUICK": quick, "NOLIFE_TOKENS_HOME": str(home)}
    proc = subprocess.Popen([sys.executable, "-m", "flows.quick", "run", "--", "bash", "-c", f"sleep {tag}; echo x"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 20
    while not sleepers(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sleepers(tag)
    proc.send_signal(getattr(signal, sig))
    proc.wait(timeout=20)
    deadline = time.monotonic() + 15  # the watchdog's poll, on a busy machine
    while sleepers(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sleepers(tag) == []


def _watchdogs() -> set[int]:
    """The pids of the watchdogs this process started that are running (``flows.watchdog``'s ``sh -c``
    script; other tests' runs start theirs meanwhile)."""
    from flows.watchdog import _SCRIPT

    found = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    script = _SCRIPT.encode() in fh.read().split(b"\0")
                with open(f"/proc/{pid}/stat", "rb") as fh:
                    parent = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if script and parent == os.getpid():
                found.add(int(pid))
    return found


def test_the_watchdog_starts_before_the_command_and_kills_its_group_only_once_handed_it():
    """The watchdog runs before the command starts, so nothing but one write lies between the command
    and its guard; handed the group, it kills it when its pipe closes empty (tokens killed); a command
    that did not start leaves it nothing to do (it exits, killing nothing)."""
    import subprocess
    import time

    from flows.watchdog import cancel, prepare, watch

    before = _watchdogs()
    handle = prepare()
    assert handle is not None
    deadline = time.monotonic() + 10
    while not (mine := _watchdogs() - before) and time.monotonic() < deadline:
        time.sleep(0.02)  # (its command line reads as ours until it has exec'd)
    assert len(mine) == 1
    cancel(handle)  # the command could not start
    deadline = time.monotonic() + 10
    while _watchdogs() & mine and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _watchdogs() & mine
    tag = f"72.{os.getpid() % 1000:03d}"
    handle = prepare()
    proc = subprocess.Popen(["sleep", tag], start_new_session=True)
    watch(handle, proc.pid)
    from flows import watchdog

    watchdog._guards.remove(handle)
    os.close(handle)  # as when tokens dies: the pipe closes without "done"
    assert proc.wait(timeout=10) == -9


@pytest.mark.parametrize("quick", ["1", "0"])
def test_a_normal_exit_leaves_a_background_child_alone(quick, tmp_path, home):
    """Without us a background child outlives its command: with us too (the watchdog lets it be)."""
    import subprocess
    import sys
    import time

    marker = tmp_path / "child-finished"
    env = {**os.environ, "NOLIFE_TOKENS_QUICK": quick, "NOLIFE_TOKENS_HOME": str(home)}
    proc = subprocess.run([sys.executable, "-m", "flows.quick", "run", "--", "sh", "-c",
                           f"(sleep 1.5; touch {marker}) >/dev/null 2>&1 & echo started"],
                          capture_output=True, env=env, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith(b"started")
    deadline = time.monotonic() + 10
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marker.exists()


@pytest.mark.parametrize("quick", ["1", "0"])
def test_output_passes_through_byte_identical(quick, home):
    import subprocess
    import sys

    env = {**os.environ, "NOLIFE_TOKENS_QUICK": quick, "NOLIFE_TOKENS_HOME": str(home)}
    for argv, expected in ((["printf", "abc"], b"abc"), (["printf", "a\\r\\nb"], b"a\r\nb"), (["true"], b"")):
        proc = subprocess.run([sys.executable, "-m", "flows.quick", "run", "--", *argv], capture_output=True, env=env,
                              timeout=60)
        assert proc.returncode == 0 and proc.stdout == expected, (argv, proc.stdout)
