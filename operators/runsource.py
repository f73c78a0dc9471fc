"""Run source: a running command's combined output as a stream of windows, one ``RunPacket`` each.

``RunSource(proc, source, config)`` is a source (in bytewax's terms, fixed-partitioned) with one partition that
reads the command's output pipe (``proc.stdout``) as it is produced and cuts it into *windows*; each
window goes through the very same stages as any other input (``flows.reduce.build_flow``). It has
the methods of a bytewax ``FixedPartitionedSource`` without importing the engine (the graph wraps it:
``operators.graphio.engine_source``), so a command that has exited is cut into its window by the
partition alone and reduced without the engine (``flows.runner.run_source``).

By default (``stream`` False) the whole output is one window, closed when the output ends or on
``stop()``: a command that completes is reduced exactly as ``tokens analyze`` reduces the same bytes,
with the run's own budget (``budget_tokens``); only past ``WHOLE_MAX_BYTES`` is it cut into windows
that share a ``RunBudget``. With ``stream`` set (``tokens run --stream``) the caller sees the reduced
output window by window as it comes; that windowing follows the tail's (``operators.tail``), tuned
for a command:

* the end of the output (EOF on the pipe) closes the last window, after the command has exited: a
  command that prints and exits at once gives exactly one window, with its exit code on the packet
  (no delay is added: the partition waits on the pipe itself, never on a timer);
* a *signal* line (the log reducer's ``SIGNAL_RE``) closes the window once the pipe has been quiet
  for ``SIGNAL_QUIET`` s, or ``SIGNAL_MAX`` s after the line arrived at the latest (a stack trace
  and a burst of errors stay in one window; the line shows well within a second);
* ``config.tail.idle_ms`` of quiet, or the window being open ``config.tail.max_ms``, closes it too;
* ``MAX_WINDOW_BYTES`` (a longer line is cut there; the rest follows in the next window).

Windows are cut after a newline when there is one (idle, the end and a stop flush a partial line
as it is). Concatenating the ``raw`` of the windows gives exactly the command's output.

When the command (the direct child) has exited but the pipe stays open (a background child holds
it), reading goes on until the pipe has been quiet for ``DRAIN_QUIET`` s (counted from the exit
too: what it printed as it exited is read), ``DRAIN_MAX`` s at most, then the pipe is closed: the background child does not hold the caller.

``RunSource.stop()`` (safe in a signal handler): read on (the command's last words after a forwarded
signal) until the command has exited and the pipe has been quiet for ``DRAIN_QUIET`` s, ``STOP_DRAIN``
s at most (a fixed 0.3 s lost a trap's last line printed half a second later), flush it as the last window and
finish.
"""

from __future__ import annotations

import os
import select
import threading
import time
from typing import TYPE_CHECKING

from operators.packet import ContextPacket
from operators.vocab import SIGNAL_RE

if TYPE_CHECKING:
    import subprocess

    from operators.config import Config

CHUNK = 64 * 1024  # one read
READ_BUDGET = 4 * 1024 * 1024  # bytes read per activation; the rest at once on the next one
MAX_WINDOW_BYTES = 8 * 1024 * 1024  # a streamed window never holds more; a longer line is cut (not dropped)
WHOLE_MAX_BYTES = 64 * 1024 * 1024  # the one window of a run that is not streamed: past this, windows again
POLL_S = 0.05  # the longest wait on the pipe before the timers are looked at again
SIGNAL_QUIET = 0.1  # a window with a signal line closes after this much quiet ...
SIGNAL_MAX = 0.5  # ... or this long after the line arrived
DRAIN_QUIET = 0.1  # after the command exited, a pipe still open is read until quiet this long ...
DRAIN_MAX = 1.0  # ... or this long at most
STOP_DRAIN = 1.0  # after stop(): what arrives within this is still read, until the command has exited and its pipe is quiet


class RunPacket(ContextPacket, kw_only=True):
    """A window of a command's output: a ``ContextPacket`` that also says where it stands."""

    window: int = 0  # 1, 2, …
    start: int = 0  # byte range [start, end) of the command's output
    end: int = 0
    closed_by: str = ""  # end | signal | idle | max | bytes | drain | stop
    last: bool = False  # the window that ended the run (none is, when nothing was pending then)


class _RunPartition:
    def __init__(self, source: "RunSource"):
        self.src = source
        self.fd = source.proc.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.buf = bytearray(source.initial)
        self.scan = 0  # buf[:scan] was searched for signal lines
        self.emitted = 0  # bytes of output in windows so far
        now = time.monotonic()
        self.opened = self.last_data = now
        self.signal_at: float | None = None
        self.exited_at: float | None = None
        self.stop_at: float | None = None
        self.eof = source.ended
        self.windows = 0
        self.out: list[ContextPacket] = []
        self.finished = False
        if self.buf:
            self._find_signal()

    # -- reading ---------------------------------------------------------------------------------
    def _read(self) -> None:
        """Wait up to POLL_S for output, then take what is there (up to READ_BUDGET)."""
        try:
            ready, _, _ = select.select([self.fd], [], [], POLL_S)
        except (OSError, ValueError):
            ready = [self.fd]
        if not ready:
            return
        got = 0
        while got < READ_BUDGET:
            try:
                data = os.read(self.fd, CHUNK)
            except BlockingIOError:
                break
            except OSError:  # EIO and the like: the output ends here
                data = b""
            if not data:
                self.eof = True
                break
            if not self.buf:
                self.opened = time.monotonic()
            self.buf += data
            got += len(data)
        if got:
            self.last_data = time.monotonic()
            self._find_signal()

    def _find_signal(self) -> None:
        end = self.buf.rfind(b"\n") + 1
        if end > self.scan:
            if self.signal_at is None and SIGNAL_RE.search(self.buf, self.scan, end) is not None:
                self.signal_at = time.monotonic()
            self.scan = end

    # -- windows ---------------------------------------------------------------------------------
    def _cut(self, n: int, why: str, last: bool = False) -> None:
        raw = bytes(self.buf[:n])
        del self.buf[:n]
        start, self.emitted = self.emitted, self.emitted + n
        self.windows += 1
        code = None
        if last and self.windows == 1:  # the whole output in one window: it carries the exit code
            code = self.src.exit_code()
        self.out.append(RunPacket(
            source=self.src.source, raw=raw, granularity=self.src.granularity, forced_type=self.src.forced_type,
            exit_code=code, window=self.windows, start=start, end=self.emitted, closed_by=why, last=last,
            budget=self._budget(last),
        ))
        self.scan = max(0, self.scan - n)
        self.signal_at = None
        if self.buf:
            self.opened = time.monotonic()
            self._find_signal()

    def _budget(self, last: bool) -> int | None:
        """The window's budget: the run's own (as ``tokens analyze`` would use) when it is the whole
        output, else its share of the budget the windows split (``operators.ceiling.RunBudget``)."""
        if last and self.windows == 1:
            return self.src.budget_tokens
        return self.src.budget.allot() if self.src.budget is not None else self.src.budget_tokens

    def _cut_lines(self, why: str, limit: int | None = None) -> None:
        """Close the window after its last whole line (before ``limit``), else at ``limit`` or the end."""
        end = self.buf.rfind(b"\n", 0, limit) + 1
        self._cut(end or (limit or len(self.buf)), why)

    def _finish(self, why: str) -> None:
        """The last window: what is pending (an empty output is one empty window, with its exit code)."""
        if self.buf or self.windows == 0:
            self._cut(len(self.buf), why, last=True)
        elif self.out:
            self.out[-1].last = True
        self.finished = True

    def _timers(self, now: float) -> None:
        cap = self.src.max_window
        while len(self.buf) >= cap:
            self._cut_lines("bytes", cap)
        if not self.buf or not self.src.stream:  # the whole output is one window: no timer cuts it
            return
        quiet = now - self.last_data
        if self.signal_at is not None and (quiet >= SIGNAL_QUIET or now - self.signal_at >= SIGNAL_MAX):
            self._cut_lines("signal")
        elif quiet >= self.src.config.tail.idle_ms / 1000:
            self._cut(len(self.buf), "idle")
        elif now - self.opened >= self.src.config.tail.max_ms / 1000:
            self._cut_lines("max")

    def _ended(self, now: float) -> str:
        """Why reading is over ('' while it is not): the end of the output, a stop, or a drain."""
        if self.eof:
            return "end"
        if self.exited_at is None and self.src.proc.poll() is not None:
            self.exited_at = now
        if self.src.stopping.is_set():
            self.stop_at = self.stop_at or now
            if now - self.stop_at >= STOP_DRAIN or (self.exited_at is not None and
                                                    now - max(self.last_data, self.exited_at, self.stop_at) >= DRAIN_QUIET):
                return "stop"
            return ""
        if self.exited_at is not None and (now - max(self.last_data, self.exited_at) >= DRAIN_QUIET
                                           or now - self.exited_at >= DRAIN_MAX):
            return "drain"  # the command is gone; a background child holds the pipe
        # (quiet counts from the exit too: what a command prints just before it exits, after a long
        # silence, is read on the next turn, not left in the pipe)
        return ""

    # -- bytewax ---------------------------------------------------------------------------------
    def next_batch(self) -> list[ContextPacket]:
        if self.finished:
            raise StopIteration
        self._read()
        now = time.monotonic()
        why = self._ended(now)
        if why:
            while len(self.buf) > self.src.max_window:
                self._cut_lines("bytes", self.src.max_window)
            if why == "end" and not self.src.stopping.is_set():
                self.src.wait()
            self._finish(why)
        else:
            self._timers(now)
        out, self.out = self.out, []
        return out

    def next_awake(self):
        return None  # next_batch waits on the pipe itself (select, POLL_S at most)

    def snapshot(self) -> None:
        return None

    def close(self) -> None:
        self.src.close_pipe()


class RunSource:
    """The output of ``proc`` (started with ``stdout=PIPE``) as windows, one ``RunPacket`` each.

    ``source``: the packets' source name (``run: CMD ARGS``). Single partition; one worker."""

    def __init__(self, proc: subprocess.Popen, source: str, config: Config, granularity: str = "coarse",
                 forced_type: str | None = None, initial: bytes = b"", ended: bool = False):
        self.proc = proc
        self.initial = initial  # output already read from the pipe (by the fast path of tokens run)
        self.ended = ended  # ... up to its end
        self.source = source
        self.config = config
        self.granularity = granularity
        self.forced_type = forced_type
        self.budget = None  # an operators.ceiling.RunBudget the windows share (set by tokens run)
        self.budget_tokens: int | None = None  # --budget: the budget of an output that is one window
        self.stream = False  # cut windows by time (idle, age, a signal line) as the output comes
        self.stopping = threading.Event()

    @property
    def max_window(self) -> int:
        """The most bytes one window holds (a longer line is cut there, the rest in the next window)."""
        return MAX_WINDOW_BYTES if self.stream else WHOLE_MAX_BYTES

    def list_parts(self) -> list[str]:
        return ["run"]

    def build_part(self, step_id: str, for_part: str, resume_state: None) -> _RunPartition:
        return _RunPartition(self)

    def stop(self) -> None:
        """Read until the command has exited and its pipe is quiet (STOP_DRAIN s at most), flush what
        there is and finish (safe in a signal handler)."""
        self.stopping.set()

    def wait(self) -> None:
        """The output ended: wait for the command to exit (interruptible by a forwarded signal)."""
        if self.proc.poll() is not None:
            return  # (it has: no subprocess module to import)
        import subprocess

        while self.proc.poll() is None and not self.stopping.is_set():
            try:
                self.proc.wait(timeout=POLL_S)
            except subprocess.TimeoutExpired:
                continue

    def exit_code(self) -> int | None:
        """The command's exit status as a shell gives it (128+N when signal N ended it), None if running."""
        code = self.proc.poll()
        if code is None:
            return None
        return 128 - code if code < 0 else code

    def close_pipe(self) -> None:
        try:
            self.proc.stdout.close()
        except OSError:
            pass


__all__ = ["RunPacket", "RunSource"]
