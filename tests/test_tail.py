"""The live tail: a writer changes a log while the tail source follows it through the real graph.

In-process tests run the graph in the main thread (``flows.runner.run_flow``) while a thread plays the
writer and finally calls ``TailSource.stop()``. Subprocess tests drive ``tokens tail`` itself: SIGKILL and restart,
SIGINT flushing the pending window, bad paths. Timeouts come from a small TOML config.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from conftest import PROJECT
from flows.reduce import get_flow
from operators.config import load_config
from operators.sources import CallbackSink
from operators.store import Store
from operators.tail import TailPacket, TailSource

FAST = """
[reduce]
min_bytes = {min_bytes}
[tail]
window_lines = {window_lines}
idle_ms = {idle_ms}
max_ms = {max_ms}
partial_flush_ms = {partial_ms}
poll_ms = {poll_ms}
"""


def write_config(tmp_path: Path, min_bytes=64, window_lines=50, idle_ms=80, max_ms=300, partial_ms=300, poll_ms=10) -> str:
    path = tmp_path / "tail.toml"
    path.write_text(FAST.format(min_bytes=min_bytes, window_lines=window_lines, idle_ms=idle_ms, max_ms=max_ms,
                                partial_ms=partial_ms, poll_ms=poll_ms))
    return str(path)


def info_lines(n: int, start: int = 0, tag: str = "INFO") -> bytes:
    return b"".join(b"2024-05-01T10:00:%02d.%03dZ %s worker-3 request %d served in %dms\n"
                    % (i % 60, i % 1000, tag.encode(), i, i % 37) for i in range(start, start + n))


def wait_until(pred, timeout: float = 5.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


class Harness:
    """Writes to files while a TailSource runs in this (main) thread; records what was written."""

    def __init__(self, tmp_path: Path, names=("app.log",), config_path: str | None = None, **source_kw):
        self.paths = [tmp_path / n for n in names]
        for p in self.paths:
            p.write_bytes(b"")
        self.config_path = config_path
        self.expected = {str(p): bytearray() for p in self.paths}
        self.packets: list[TailPacket] = []
        self.arrivals: list[float] = []
        self.source = TailSource([str(p) for p in self.paths], load_config(config_path), start="start",
                                 handle_signals=False, **source_kw)
        self.error: BaseException | None = None

    def append(self, data: bytes, path: Path | None = None) -> None:
        path = path or self.paths[0]
        with open(path, "ab") as fh:
            fh.write(data)
        self.expected[str(path)] += data

    def emitted(self, path: Path | None = None) -> bytes:
        key = os.path.abspath(path or self.paths[0])
        return b"".join(p.raw for p in self.packets if p.tail_path == key)

    def caught_up(self, path: Path | None = None, timeout: float = 5.0) -> None:
        key = str(path or self.paths[0])
        wait_until(lambda: len(self.emitted(Path(key))) == len(self.expected[key]), timeout, f"windows covering {key}")

    def run(self, script, timeout: float = 30.0) -> None:
        def play():
            try:
                script(self)
            except BaseException as exc:  # surfaced after the flow stops
                self.error = exc
            finally:
                self.source.stop()

        def collect(packet):
            self.packets.append(packet)
            self.arrivals.append(time.monotonic())

        writer = threading.Thread(target=play, daemon=True)
        watchdog = threading.Timer(timeout, self.source.stop)
        writer.start()
        watchdog.start()
        try:
            from flows.runner import run_flow

            run_flow(get_flow(source=self.source, sink=CallbackSink(collect), config_path=self.config_path))
        finally:
            watchdog.cancel()
            writer.join(5)
        if self.error:
            raise self.error


def assert_restorable(packets: list[TailPacket]) -> None:
    store = Store(Path(os.environ["NOLIFE_TOKENS_HOME"]))
    for p in packets:
        assert p.restore_pass, p.source
        assert p.recovery_pass and p.signal_pass, p.source
        assert store.restore(store.get_manifest(p.manifest_id), p.visible) == p.raw, p.source


def test_windows_concatenate_to_exactly_what_was_written_through_rotation_truncation_and_partials(tmp_path):
    conf = write_config(tmp_path)
    h = Harness(tmp_path, config_path=conf, max_window_bytes=64 * 1024)
    log = h.paths[0]

    def script(h: Harness):
        h.append(info_lines(120) + b"bad bytes \xff\xfe\xc3( in a line\n" + b"a rare line once\n")
        h.caught_up()
        # rotation by rename: the writer adds a few lines to the old file before it reopens
        h.append(info_lines(10, 200))
        os.rename(log, tmp_path / "app.log.1")
        new = info_lines(30, 300)
        log.write_bytes(new)  # the new file appears and gets lines ...
        time.sleep(0.03)  # ... the tail notices it ...
        late = b"late line written to the renamed file\n"
        with open(tmp_path / "app.log.1", "ab") as old:
            old.write(late)  # ... and the writer still adds to the old file before it reopens
        h.expected[str(log)] += late + new  # the tail finishes the old file first
        h.caught_up()
        # copytruncate: copied away, then truncated in place; the writer goes on from 0
        h.append(info_lines(60, 400))
        h.caught_up()
        shutil.copyfile(log, tmp_path / "app.log.2")
        os.truncate(log, 0)
        h.append(b"after truncate 1\nafter truncate 2\n")
        h.caught_up()
        # a partial last line is emitted as it is after partial_flush_ms, the rest follows later
        h.append(b"partial line without newline")
        h.caught_up()
        assert h.packets[-1].closed_by == "partial" and h.packets[-1].raw.endswith(b"without newline")
        h.append(b" ... and its end\n" + info_lines(5, 600))
        h.caught_up()
        # deletion and recreation
        os.unlink(log)
        time.sleep(0.15)
        h.append(info_lines(20, 700))
        # a line longer than a window may hold is cut, not dropped
        h.append(b"x" * 300_000 + b" end of a very long line\n" + info_lines(3, 800))
        h.caught_up()

    with capture_logs() as events:
        h.run(script)
    assert h.emitted() == bytes(h.expected[str(log)])
    notes = " | ".join(str(e.get("what")) for e in events if e["event"] == "TAIL")
    for expected in ("rotated", "truncated", "deleted"):
        assert expected in notes, notes
    assert notes.count("rotated") >= 2, notes  # the rename, and the recreation after the deletion
    assert any(p.closed_by == "bytes" for p in h.packets)
    assert max(len(p.raw) for p in h.packets) <= 64 * 1024
    assert any(p.references for p in h.packets), "some window should have folded repeats into a ref"
    assert all(p.type == "log" for p in h.packets)
    assert_restorable(h.packets)
    # windows are whole lines except the partial flush and the cut of the very long line
    cut = [p for p in h.packets if not p.raw.endswith(b"\n")]
    assert {p.closed_by for p in cut} <= {"partial", "bytes"}


def test_two_files_are_followed_at_once(tmp_path):
    conf = write_config(tmp_path)
    h = Harness(tmp_path, names=("a.log", "b.log"), config_path=conf)
    a, b = h.paths

    def script(h: Harness):
        for i in range(5):
            h.append(info_lines(20, i * 20), a)
            h.append(info_lines(15, i * 20, tag="DEBUG"), b)
            time.sleep(0.03)
        h.caught_up(a)
        h.caught_up(b)

    h.run(script)
    assert h.emitted(a) == bytes(h.expected[str(a)])
    assert h.emitted(b) == bytes(h.expected[str(b)])
    assert_restorable(h.packets)


def test_an_error_line_closes_its_window_at_once(tmp_path):
    conf = write_config(tmp_path, window_lines=10_000, idle_ms=20_000, max_ms=30_000, partial_ms=30_000, poll_ms=20)
    h = Harness(tmp_path, config_path=conf)
    sent: dict[str, float] = {}

    def script(h: Harness):
        h.append(info_lines(40))
        time.sleep(0.5)
        assert h.packets == [], "with long timers nothing but a signal line closes a window"
        sent["t"] = time.monotonic()
        h.append(b"2024-05-01T10:00:41.000Z ERROR PaymentService line 421: card declined\n")
        wait_until(lambda: h.packets, 3.0, "the error window")

    h.run(script)
    [window] = [p for p in h.packets if b"ERROR PaymentService" in p.raw]
    assert window.closed_by == "signal"
    assert h.arrivals[h.packets.index(window)] - sent["t"] < 1.0
    assert b"ERROR PaymentService line 421: card declined" in window.visible
    assert h.emitted() == bytes(h.expected[str(h.paths[0])])


# -- the command, in a subprocess ------------------------------------------------------------------
def tail_cmd(conf: str, *args: str, started: bool = True) -> subprocess.Popen:
    """Start ``tokens tail`` (trace as JSON to a file); wait until it follows its files."""
    err = Path(conf).with_name(f"trace-{time.monotonic_ns()}.jsonl")
    with open(err, "wb") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "flows.cli", "--config", conf, "tail", *args, "--json"],
                                cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=fh)
    if started:  # the first TAIL event comes after the signal handlers are in place
        wait_until(lambda: b'"stage":"TAIL"' in err.read_bytes() or proc.poll() is not None, 15, "the tail to start")
    return proc


def test_sigkill_and_restart_lose_and_repeat_nothing(tmp_path):
    # min_bytes huge: every window passes through, so the output must equal the log byte for byte
    conf = write_config(tmp_path, min_bytes=10**9, window_lines=20, idle_ms=40, max_ms=150, partial_ms=150, poll_ms=10)
    log, out = tmp_path / "app.log", tmp_path / "out.txt"
    log.write_bytes(b"")
    written = bytearray()
    counter = iter(range(10**6))

    def write_for(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            chunk = b"".join(b"line %06d of the service log\n" % next(counter) for _ in range(25))
            with open(log, "ab") as fh:
                fh.write(chunk)
            written.extend(chunk)
            time.sleep(0.005)

    proc = tail_cmd(conf, str(log), "-o", str(out), "--from-start")
    try:
        for round_ in range(3):
            write_for(0.4)
            wait_until(lambda: out.exists() and out.stat().st_size > 0, 10, "first output")
            proc.send_signal(signal.SIGKILL)  # while the writer is busy: windows are in flight
            write_for(0.2)
            proc.wait(5)
            if round_ == 1:  # as if killed between writing a window and recording its checkpoint
                with open(out, "ab") as fh:
                    fh.write(b"UNCONFIRMED WINDOW\n")
            proc = tail_cmd(conf, str(log), "-o", str(out))
        write_for(0.3)
        wait_until(lambda: out.stat().st_size >= len(written), 10, "the output to catch up")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    data = out.read_bytes()
    assert b"UNCONFIRMED" not in data
    assert data == bytes(written), f"{len(data)} bytes out, {len(written)} written"


def test_sigint_flushes_the_pending_window_and_a_restart_finishes_a_rotated_file(tmp_path):
    conf = write_config(tmp_path, min_bytes=10**9, window_lines=10_000, idle_ms=60_000, max_ms=60_000,
                        partial_ms=60_000, poll_ms=10)
    log, out = tmp_path / "app.log", tmp_path / "out.txt"
    first = info_lines(30) + b"no newline yet"
    log.write_bytes(first)
    proc = tail_cmd(conf, str(log), "-o", str(out), "--from-start")
    time.sleep(0.5)
    assert not out.exists() or out.read_bytes() == b"", "long timers: the window is still pending"
    proc.send_signal(signal.SIGINT)
    assert proc.wait(10) == 0
    assert out.read_bytes() == first

    # rotated while no tail ran: the old file gets more lines, a new file appears
    with open(log, "ab") as fh:
        fh.write(b" - the line ends\n")
    os.rename(log, tmp_path / "app.log.1")
    with open(tmp_path / "app.log.1", "ab") as fh:
        fh.write(b"last line of the old file\n")
    log.write_bytes(b"first line of the new file\n")
    proc = tail_cmd(conf, str(log), "-o", str(out))
    expected = first + b" - the line ends\nlast line of the old file\nfirst line of the new file\n"
    # the old file is finished (flushed on the switch), the new file's line waits for its window to close
    wait_until(lambda: out.read_bytes().endswith(b"last line of the old file\n"), 10, "the old file's end")
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == 0
    assert out.read_bytes() == expected


@pytest.mark.parametrize("make, message", [
    (lambda d: str(d / "missing.log"), "no such file"),
    (lambda d: str(d), "is a directory"),
])
def test_bad_paths_are_one_clear_line(tmp_path, make, message):
    proc = subprocess.run([sys.executable, "-m", "flows.cli", "tail", make(tmp_path)], cwd=PROJECT,
                          capture_output=True, timeout=30)
    err = proc.stderr.decode()
    assert proc.returncode != 0
    assert err.startswith("tokens: error:") and message in err and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_output_in_a_missing_directory_is_a_clear_error(tmp_path):
    log = tmp_path / "app.log"
    log.write_bytes(b"x\n")
    proc = subprocess.run([sys.executable, "-m", "flows.cli", "tail", str(log), "-o", str(tmp_path / "no" / "out")],
                          cwd=PROJECT, capture_output=True, timeout=30)
    assert proc.returncode != 0
    assert proc.stderr.decode().startswith("tokens: error: no such directory")


def test_a_file_recreated_at_the_same_inode_while_the_tail_is_down_is_read_from_its_start(tmp_path):
    """The checkpoint knows the file by its inode *and* the sha256 of its first bytes: a new file that
    got the old inode back is not mistaken for the old one (its first bytes are not skipped)."""
    conf = write_config(tmp_path, min_bytes=10**9, window_lines=20, idle_ms=40, max_ms=150, partial_ms=150, poll_ms=10)
    log, out = tmp_path / "app.log", tmp_path / "out.txt"
    old = b"".join(b"old file line %04d\n" % i for i in range(60))
    log.write_bytes(old)
    proc = tail_cmd(conf, str(log), "-o", str(out), "--from-start")
    try:
        wait_until(lambda: out.exists() and out.stat().st_size == len(old), 10, "the old file in the output")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
        ino = os.stat(log).st_ino
        new = b"".join(b"NEW file line %04d\n" % i for i in range(120))  # longer than the saved offset
        with open(log, "r+b") as fh:  # another file's bytes at the same inode
            fh.truncate(0)
            fh.write(new)
        assert os.stat(log).st_ino == ino
        proc = tail_cmd(conf, str(log), "-o", str(out))
        wait_until(lambda: out.stat().st_size >= len(old) + len(new), 10, "the new file in the output")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert out.read_bytes() == old + new
