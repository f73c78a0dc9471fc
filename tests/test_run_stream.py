"""`tokens run` streams window by window and survives interruption: real commands, real signals.

Streaming is checked without timing where it can be: the command waits for a file the test creates
only after it has read the first window from `tokens`, so a run that printed nothing before the
command ended would hang (and fail on the read timeout). Leftover processes are looked up by the
command's process group in /proc.
"""

from __future__ import annotations

import hashlib
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, PROJECT

PY = sys.executable
PKT_RE = re.compile(rb"tokens expand --full (pkt_[0-9a-f]+)\]")
WAIT = 60.0  # seconds: generous, for a loaded machine; a passing run takes well under one


def start(*args: str, cwd: Path | None = None) -> subprocess.Popen:
    return subprocess.Popen([PY, "-m", "flows.cli", "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=cwd or PROJECT)


def tokens(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "flows.cli", *args], capture_output=True, cwd=PROJECT, timeout=timeout)


_seen: dict[int, bytes] = {}  # per tokens process: what was read and not yet returned


def read_until(proc: subprocess.Popen, needle: bytes, timeout: float = WAIT) -> bytes:
    """Read tokens' stdout until ``needle`` shows; return everything up to the end of it (the rest of
    what was read is kept for the next call)."""
    fd, deadline = proc.stdout.fileno(), time.monotonic() + timeout
    got = _seen.pop(proc.pid, b"")
    while needle not in got:
        left = deadline - time.monotonic()
        assert left > 0, f"{needle!r} did not show within {timeout}s; got {got[-300:]!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            assert chunk, f"output ended before {needle!r}; got {got[-300:]!r}"
            got += chunk
    end = got.index(needle) + len(needle)
    _seen[proc.pid] = got[end:]
    return got[:end]


def rest_of(proc: subprocess.Popen) -> tuple[bytes, bytes]:
    """What tokens prints until it exits (after what read_until kept), and its stderr."""
    out, err = proc.communicate(timeout=WAIT)
    return _seen.pop(proc.pid, b"") + out, err


def group_members(pgid: int) -> list[int]:
    """Live processes (not zombies) in process group ``pgid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found


def gone(pgid: int, timeout: float = WAIT) -> bool:
    deadline = time.monotonic() + timeout
    while group_members(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def waiting_script(first: bytes, second: bytes, go: Path, code: int = 0) -> list[str]:
    """A command that prints ``first``, waits for the file ``go``, prints ``second`` and exits ``code``."""
    return [PY, "-c", (
        "import os, sys, time\n"
        f"sys.stdout.buffer.write({first!r}); sys.stdout.flush()\n"
        f"while not os.path.exists({str(go)!r}): time.sleep(0.02)\n"
        f"sys.stdout.buffer.write({second!r}); sys.stdout.flush()\n"
        f"sys.exit({code})\n")]


# -- streaming ---------------------------------------------------------------------------------
def test_windows_reach_the_caller_while_the_command_runs_and_the_whole_output_restores(tmp_path):
    from operators.vocab import SIGNAL_RE

    log = (FIXTURES / "sample.log").read_bytes()
    lines = log.splitlines(keepends=True)
    first, second = b"".join(lines[:150]), b"".join(lines[150:])
    go = tmp_path / "go"
    proc = start("--stream", "--", *waiting_script(first, second, go))
    try:
        shown = read_until(proc, b"#ref:ctx_")  # the first half, reduced, while the command waits
        assert proc.poll() is None
        go.touch()
        rest, err = rest_of(proc)
    finally:
        proc.kill()
    out = shown + rest
    assert proc.returncode == 0, err
    for planted in (b"ERROR", b"WARN"):
        assert planted in out
    firsts = [line for line in first.splitlines() if SIGNAL_RE.search(line)]
    seconds = [line for line in second.splitlines() if SIGNAL_RE.search(line)]
    assert firsts and seconds
    for line in firsts + seconds:  # every signal line of both windows is visible
        assert line in out
    [pkt] = PKT_RE.findall(out)
    full = tokens("expand", "--full", pkt.decode())
    assert full.returncode == 0, full.stderr
    assert full.stdout == log  # one packet for the whole run: RESTORE byte-exact
    assert len(out) < len(log)


def test_a_failure_after_streamed_windows_is_the_last_line(tmp_path):
    go = tmp_path / "go"
    proc = start("--stream", "--", *waiting_script(b"compiling\n", b"linking\n", go, code=3))
    try:
        read_until(proc, b"compiling\n")
        go.touch()
        rest, _ = rest_of(proc)
    finally:
        proc.kill()
    assert proc.returncode == 3
    assert rest == b"linking\n[command failed: exit code 3]\n"


def test_a_signal_line_shows_within_a_second_while_the_command_keeps_running(tmp_path):
    proc = start("--stream", "--", PY, "-c", "import sys, time\nprint('working', flush=True)\ntime.sleep(0.2)\n"
                                 "print('ERROR: disk quota exceeded', flush=True)\ntime.sleep(120)")
    try:
        read_until(proc, b"working")
        began = time.monotonic()
        read_until(proc, b"ERROR: disk quota exceeded")
        took = time.monotonic() - began
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        rest_of(proc)
    finally:
        proc.kill()
    assert took < 5.0  # ~0.2 s sleep + at most SIGNAL_MAX (0.5 s); generous for a loaded machine
    assert proc.returncode == 128 + signal.SIGTERM


# -- interruption ------------------------------------------------------------------------------
def test_timeout_prints_what_was_there_and_leaves_no_process():
    proc = subprocess.run(["timeout", "4", PY, "-m", "flows.cli", "run", "--", "bash", "-c",
                           "echo started $$; sleep 100"], capture_output=True, cwd=PROJECT, timeout=WAIT)
    assert proc.returncode == 124  # timeout's own status: it had to stop tokens
    m = re.search(rb"started (\d+)", proc.stdout)
    assert m, proc.stdout
    lines = proc.stdout.rstrip().split(b"\n")  # the whole output one window: the failure line first, as a batch run
    assert b"[command failed: exit code 143]" in (lines[0], lines[-1])
    assert gone(int(m.group(1)))  # bash and its sleep: the whole group


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_is_forwarded_to_the_group_and_tokens_exits_128_plus_n(sig):
    proc = start("--stream", "--", "bash", "-c", "trap 'echo caught; exit 7' INT TERM HUP; echo started $$; sleep 100 & wait; echo never")
    pgid = 0
    try:
        got = read_until(proc, b"started ") + read_until(proc, b"\n")
        pgid = int(re.search(rb"started (\d+)", got).group(1))
        proc.send_signal(sig)
        rest, err = rest_of(proc)
    finally:
        proc.kill()
    assert proc.returncode == 128 + sig, err
    assert b"caught\n" in rest and b"never" not in rest  # the command got the signal; its last words are kept
    assert rest.endswith(f"[command failed: exit code {128 + sig}]\n".encode())
    assert err == b""
    try:
        assert gone(pgid)
    finally:
        kill_group(pgid)


def test_a_commands_last_words_after_a_signal_are_kept_while_it_exits():
    """A command that takes half a second to print its last words after the forwarded signal (a
    trap's clean-up, a test runner's summary; or a busy machine) still has them shown: reading goes
    on until it has exited and its pipe is quiet (a fixed 0.3 s had cut them)."""
    proc = start("--stream", "--", "bash", "-c",
                 "trap 'sleep 0.5; echo summary: 3 passed 1 failed; exit 1' TERM; echo started $$; sleep 100 & wait")
    pgid = 0
    try:
        got = read_until(proc, b"started ") + read_until(proc, b"\n")
        pgid = int(re.search(rb"started (\d+)", got).group(1))
        proc.send_signal(signal.SIGTERM)
        rest, err = rest_of(proc)
    finally:
        proc.kill()
        if pgid:
            kill_group(pgid)
    assert proc.returncode == 143, err
    assert b"summary: 3 passed 1 failed\n" in rest


def test_what_an_interrupted_command_printed_is_stored(tmp_path, home):
    data = b"".join(b"2026-01-01 00:00:%02d INFO request %d served\n" % (i % 60, i) for i in range(400))
    src = tmp_path / "out.log"
    src.write_bytes(data)
    proc = start("--stream", "--", "bash", "-c", f"cat {src}; echo LAST-LINE; sleep 100")
    try:
        read_until(proc, b"LAST-LINE")
        proc.send_signal(signal.SIGTERM)
        out, _ = rest_of(proc)
    finally:
        proc.kill()
    assert proc.returncode == 143
    expected = data + b"LAST-LINE\n"
    manifests = [p.read_bytes() for p in (home / "context").glob("pkt_*.json")]
    assert any(hashlib.sha256(expected).hexdigest().encode() in m for m in manifests)


def test_a_background_child_holding_the_pipe_does_not_hold_tokens():
    began = time.monotonic()
    done = subprocess.run([PY, "-m", "flows.cli", "run", "--", "bash", "-c", "sleep 60 & echo bg $!; echo done"],
                          capture_output=True, cwd=PROJECT, timeout=WAIT)
    took = time.monotonic() - began
    pid = int(re.search(rb"bg (\d+)", done.stdout).group(1))
    try:
        assert done.returncode == 0, done.stderr
        assert done.stdout.endswith(b"done\n")
        assert took < 40  # far less than the child's 60 s
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# -- raw and exactness -------------------------------------------------------------------------
ODD = (b"caf\xe9 \xff\xfe invalid utf-8\r\nCRLF line\r\n\x00NUL\x00 inside\n\x1b[31mred\x1b[0m\n"
       + b"".join(b"2026-01-01 INFO same line %d\n" % i for i in range(300)) + b"ERROR no final newline")


def test_raw_passes_the_output_unchanged_and_still_stores_it(tmp_path, home):
    src = tmp_path / "odd.bin"
    src.write_bytes(ODD)
    done = tokens("run", "--raw", "--", "cat", str(src))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ODD
    manifests = [p.read_bytes() for p in (home / "context").glob("pkt_*.json")]
    assert any(hashlib.sha256(ODD).hexdigest().encode() in m for m in manifests)
    failing = tokens("run", "--raw", "--", "bash", "-c", f"cat {src}; exit 4")
    assert failing.returncode == 4 and failing.stdout == ODD


def test_windows_concatenate_to_the_exact_output(monkeypatch):
    """In process: small windows (bytes cap), odd bytes, a last line without newline."""
    from flows.runner import run_flow
    import operators.runsource as rs
    from flows.reduce import get_flow
    from operators.config import load_config
    from operators.sources import CallbackSink

    monkeypatch.setattr(rs, "MAX_WINDOW_BYTES", 1000)
    payload = ODD + b"x" * 2500  # a line longer than a window: cut, not dropped
    proc = subprocess.Popen([PY, "-c", f"import sys; sys.stdout.buffer.write({payload!r})"],
                            stdout=subprocess.PIPE, start_new_session=True)
    got = []
    config = load_config()
    source = rs.RunSource(proc, "run: test", config)
    source.stream = True  # streamed windows are capped at MAX_WINDOW_BYTES
    run_flow(get_flow(source=source, sink=CallbackSink(got.append), config=config))
    proc.wait()
    assert len(got) > 3
    assert b"".join(p.raw for p in got) == payload
    assert [p.window for p in got] == list(range(1, len(got) + 1))
    assert [p.last for p in got] == [False] * (len(got) - 1) + [True]
    assert all(len(p.raw) <= 1000 for p in got)
    assert all(p.raw.endswith(b"\n") for p in got if p.closed_by == "bytes" and b"\n" in p.raw)


def test_a_short_output_is_one_window_with_its_exit_code():
    from flows.runner import run_flow
    from flows.reduce import get_flow
    from operators.config import load_config
    from operators.runsource import RunSource
    from operators.sources import CallbackSink

    proc = subprocess.Popen([PY, "-c", "import sys; print('ERROR once'); sys.exit(5)"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    got = []
    config = load_config()
    run_flow(get_flow(source=RunSource(proc, "run: short", config), sink=CallbackSink(got.append), config=config))
    [packet] = got
    assert packet.closed_by == "end" and packet.exit_code == 5
    assert packet.visible == b"[command failed: exit code 5]\nERROR once\n"


def test_nothing_is_written_in_the_cwd(tmp_path):
    cwd = tmp_path / "empty"
    cwd.mkdir()
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    env.pop("NOLIFE_TOKENS_HOME")
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    done = subprocess.run([PY, "-m", "flows.cli", "run", "--", "ls"], cwd=cwd, env=env, capture_output=True,
                          timeout=WAIT)
    assert done.returncode == 0, done.stderr
    assert list(cwd.iterdir()) == []
    assert (tmp_path / "data" / "nolife-tokens" / "context").is_dir()


def test_what_a_command_prints_as_it_exits_after_a_long_silence_is_read():
    """A command quiet for longer than the drain's quiet time prints its last line and exits between
    one read of the pipe and the look at whether it exited: that line is read on the next turn, not
    left in the pipe (the output ended as a drain, empty)."""
    import time

    import operators.runsource as rs
    from operators.config import load_config

    read_fd, write_fd = os.pipe()

    class Quiet:  # a command that has been silent for a second, then prints and exits at once
        stdout = os.fdopen(read_fd, "rb", buffering=0)
        returncode = None

        def poll(self):
            if self.returncode is None and partition.windows == 0 and turns[0] >= 1:
                os.write(write_fd, b"late\n")
                os.close(write_fd)
                self.returncode = 0
            return self.returncode

        def wait(self, timeout=None):
            return self.poll()

    turns = [0]
    source = rs.RunSource(Quiet(), "run: late", load_config())
    partition = source.build_part("step", "run", None)
    partition.last_data = partition.opened = time.monotonic() - 1.0
    out = []
    for _ in range(100):
        try:
            out += partition.next_batch()
        except StopIteration:
            break
        turns[0] += 1
    assert b"".join(p.raw for p in out) == b"late\n"
    assert out[-1].closed_by == "end" and out[-1].exit_code == 0
