"""Live tail source: follow growing files and cut them into windows, one ``ContextPacket`` each.

``TailSource(paths, config)`` is a bytewax ``FixedPartitionedSource`` with one partition per file, so
several files are followed at once (and spread over workers). Each partition reads its file in
bounded chunks and cuts the byte stream into *windows* of whole lines; every window becomes one
packet (``TailPacket``, a ``ContextPacket`` with the window's file identity and byte range) that goes
through the very same stages as a batch input (``flows.reduce.build_flow``).

A window closes when

* it holds ``config.tail.window_lines`` lines, or
* the file has been quiet for ``idle_ms``, or the window has been open for ``max_ms``, or
* a *signal* line arrived (the log reducer's ``SIGNAL_RE``: ERROR, WARN, Exception, …): the window
  closes as soon as the bytes available now are read (its stack trace and a burst of errors stay in
  one window, so they still fold), without waiting for lines, idle or max, or
* it reached ``max_window_bytes`` (a longer line is cut there; the rest follows in the next window).

A last line without its newline is held until the newline arrives or, after ``partial_flush_ms`` of
quiet, emitted as it is. Concatenating the ``raw`` bytes of the windows of one file gives exactly the
bytes of the file from the start position on: nothing is dropped, decoded or re-encoded.

The file behind the path may change:

* **rotation by rename** (``app.log`` → ``app.log.1``, a new ``app.log``): the old file is read to its
  end and until it has been quiet for ``min(idle_ms, 1 s)`` (writers often add a few lines before
  they reopen), its last window flushed, then the new file is followed from offset 0;
* **deletion and recreation**: the open old file is still read (a writer may hold it), the new file
  is followed from 0 as soon as it appears;
* **copytruncate** (same inode, size below our offset, or the bytes just before our offset changed):
  what was already read is flushed, then reading restarts at 0.

The partition snapshot (``TailPosition``) is the file identity ``(dev, ino)`` plus a *fingerprint* (the
sha256 of its first ``head`` bytes, up to ``FINGERPRINT_BYTES``, as log shippers do: an inode number is
reused when a file is deleted and another created) and the offset of the end of the last *emitted*
window, never of what is only buffered: resuming from it re-reads the buffered bytes instead of
losing them. A file at the saved inode whose first bytes differ is a new file: it is read from 0. It serves bytewax recovery (``resume_state``) as well as the offset
checkpoint that ``tokens tail`` writes after each window's output (``positions=``); when the file at
the path is no longer the checkpointed inode, the rotated file is looked up by inode among its
siblings and finished first.

``TailSource.stop()`` (also bound to SIGINT/SIGTERM when built in the main thread) makes every
partition flush its pending window (what it has read, partial line included) and finish, so the
dataflow ends normally; bytes not read yet are left for the next run.

``TailSource.retry(packet, delay)``: the window could not be delivered (the store is full or read-only):
its partition goes back to the window's start and reads it again after ``delay`` seconds, so nothing is
lost while the store recovers (``tokens tail`` backs off between tries).
"""

from __future__ import annotations

import os
import signal
import stat
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Literal

import msgspec
from bytewax.inputs import FixedPartitionedSource, StatefulSourcePartition

from operators.config import Config
from operators.digest import sha256_hex
from operators.packet import ContextPacket
from operators.vocab import SIGNAL_RE
from operators.sources import display_name
from operators.trace import emit

CHUNK = 64 * 1024  # one read
READ_BUDGET = 1024 * 1024  # bytes read per partition per activation; the rest on the next one, at once
MAX_WINDOW_BYTES = 4 * 1024 * 1024  # a window never holds more; a longer line is cut (not dropped)
ROTATE_GRACE_MS = 1000  # after a rotation the old file is read until quiet this long (or idle_ms if shorter)
RECENT = 32  # bytes before our offset remembered to notice a file rewritten under us
FINGERPRINT_BYTES = 1024  # the first bytes of a file that tell it from another file at the same inode

Start = Literal["end", "start"]


class TailPosition(msgspec.Struct, frozen=True):
    """Where a partition stands: file identity and the end offset of the last emitted window."""

    dev: int
    ino: int
    offset: int
    head: int = 0  # how many first bytes ``fingerprint`` covers (0: none known)
    fingerprint: str = ""  # sha256 (hex) of the file's first ``head`` bytes


def fingerprint(fd: int, upto: int) -> tuple[int, str]:
    """(head, sha256 hex) of the first ``min(upto, FINGERPRINT_BYTES)`` bytes of an open file."""
    data = os.pread(fd, max(0, min(upto, FINGERPRINT_BYTES)), 0)
    return len(data), sha256_hex(data)


def same_file(fd: int, position: TailPosition) -> bool:
    """Whether the open file still starts with the bytes ``position`` fingerprinted (True when none were)."""
    if position.head <= 0 or not position.fingerprint:
        return True
    return fingerprint(fd, position.head) == (position.head, position.fingerprint)


class TailPacket(ContextPacket, kw_only=True):
    """A tail window: a ``ContextPacket`` that also says which bytes of which file it holds."""

    tail_path: str = ""  # the followed path (absolute)
    tail_dev: int = 0
    tail_ino: int = 0
    tail_head: int = 0  # the file's fingerprint (see TailPosition) once this window is emitted
    tail_fingerprint: str = ""
    start: int = 0  # byte range [start, end) of the file identified by (tail_dev, tail_ino)
    end: int = 0
    window: int = 0  # 1, 2, … per partition and run
    generation: int = 0  # how many times this file's reading went back to an undelivered window (see retry)
    closed_by: str = ""  # lines | idle | max | signal | bytes | partial | rotate | truncate | stop

    @property
    def position(self) -> TailPosition:
        """The position to resume from once this window's output is safely written."""
        return TailPosition(self.tail_dev, self.tail_ino, self.end, self.tail_head, self.tail_fingerprint)


def _utc_in(seconds: float) -> datetime:
    return datetime.now(timezone.utc) + timedelta(seconds=max(0.0, seconds))


class _TailPartition(StatefulSourcePartition[ContextPacket, TailPosition]):
    def __init__(self, source: "TailSource", path: str, resume: TailPosition | None):
        self.src = source
        self.cfg = source.config.tail
        self.path = path
        self.name = display_name(Path(path))
        self.forced_type = source.config.reduce.force_type or "log"
        self.fd: int | None = None
        self.ident = (0, 0)
        self.fp = (0, sha256_hex(b""))  # fingerprint of the open file (see TailPosition)
        self.pos = 0  # offset of the next byte to read; invariant: emitted + len(buf) == pos
        self.emitted = 0
        self.recent = b""  # the last bytes read, up to RECENT, ending at pos
        self.buf = bytearray()  # the open window: whole lines, then maybe a partial line
        self.scan = 0  # buf[:scan] are complete, examined lines
        self.lines = 0
        self.signal_open = False  # a signal line is in the window: close it once what is there is read
        self.opened = 0.0  # when the open window got its first byte
        self.last_data = time.monotonic()
        self.windows = 0
        self.generation = 0
        self.out: list[ContextPacket] = []
        self.more = False  # the read budget ran out: come back at once
        self.rotated_at: float | None = None  # a new file is at the path; finishing the old one
        self.gone_noted = False
        self.finished = False
        self.last_problem = ""
        self._start(resume)

    # -- opening ---------------------------------------------------------------------------------
    def _note(self, **figures) -> None:
        emit("TAIL", self.name, figures)

    def _problem(self, what: str, exc: OSError) -> None:
        """Report an I/O problem once (it is retried every poll), not at every poll."""
        text = f"{what}: {exc.strerror or exc}"
        if text != self.last_problem:
            self.last_problem = text
            self._note(what=what, error=exc.strerror or str(exc))

    def _open(self, path: str, offset: int | Literal["end"], expect: TailPosition | None = None) -> bool:
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            if not isinstance(exc, FileNotFoundError):
                self._problem(f"cannot open {path}", exc)
            return False
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # a FIFO or device planted at the path: never read (or block on) it
            os.close(fd)
            self._problem(f"cannot follow {path}", OSError(0, "not a regular file"))
            return False
        if expect is not None and ((st.st_dev, st.st_ino) != (expect.dev, expect.ino) or not same_file(fd, expect)):
            os.close(fd)  # replaced since we looked, or another file at the same inode
            return False
        self.last_problem = ""
        if self.fd is not None:
            os.close(self.fd)
        self.fd, self.ident = fd, (st.st_dev, st.st_ino)
        pos = st.st_size if offset == "end" else offset
        if pos > st.st_size:  # shrank while we were away: copytruncate
            self._note(what="file shorter than the saved offset; reading it from 0", offset=pos, size=st.st_size)
            pos = 0
        self.pos = self.emitted = pos
        self.fp = fingerprint(fd, pos)
        self.recent = os.pread(fd, min(RECENT, pos), pos - min(RECENT, pos)) if pos else b""
        self.buf.clear()
        self.scan = self.lines = 0
        self.signal_open = False
        self.rotated_at = None
        self.gone_noted = False
        return True

    def _find_sibling(self, dev: int, ino: int) -> str | None:
        """A file next to ours with this inode: the checkpointed file after a rotation by rename (its
        fingerprint is checked when it is opened)."""
        try:
            with os.scandir(os.path.dirname(self.path) or ".") as entries:
                for entry in entries:
                    try:
                        if entry.inode() == ino and entry.is_file(follow_symlinks=False) \
                                and entry.stat(follow_symlinks=False).st_dev == dev:
                            return entry.path
                    except OSError:
                        continue
        except OSError:
            pass
        return None

    def _start(self, resume: TailPosition | None) -> None:
        if resume is None:
            resume = self.src.positions.get(self.path)
        if resume is None:
            where: int | Literal["end"] = 0 if self.src.start == "start" else "end"
            if self._open(self.path, where):
                self._note(what="following", offset=self.pos, start=self.src.start)
            else:
                self._note(what="waiting for the file to appear")
            return
        try:
            st = os.stat(self.path)
            here = (st.st_dev, st.st_ino)
        except OSError:
            here = None
        if here == (resume.dev, resume.ino):
            if self._open(self.path, resume.offset, expect=resume):
                self._note(what="following from the saved position", offset=self.pos)
                return
            if self.fd is None and self._open(self.path, 0, expect=TailPosition(resume.dev, resume.ino, 0)):
                self._note(what="same inode, other first bytes: a new file; following it from 0",
                           saved_offset=resume.offset)
                return
        sibling = self._find_sibling(resume.dev, resume.ino) if resume.ino else None
        if sibling and self._open(sibling, resume.offset, expect=resume):
            self._note(what="resumed in the rotated file; the new file follows from 0", file=sibling, offset=self.pos)
            return
        if self._open(self.path, 0):
            self._note(what="saved file is gone; following the file at the path from 0")
        else:
            self._note(what="waiting for the file to appear")

    # -- windows ---------------------------------------------------------------------------------
    def _cut(self, n: int, why: str) -> None:
        raw = bytes(self.buf[:n])
        del self.buf[:n]
        start, self.emitted = self.emitted, self.emitted + n
        self.windows += 1
        if self.fp[0] < min(self.emitted, FINGERPRINT_BYTES):  # the file's first bytes, once we have them
            self.fp = fingerprint(self.fd, self.emitted) if self.fd is not None else self.fp
        self.out.append(TailPacket(
            source=f"{self.name}#{start}-{self.emitted}", raw=raw, granularity=self.src.granularity,
            forced_type=self.forced_type, tail_path=self.path, tail_dev=self.ident[0], tail_ino=self.ident[1],
            tail_head=self.fp[0], tail_fingerprint=self.fp[1],
            start=start, end=self.emitted, window=self.windows, closed_by=why, generation=self.generation,
        ))
        self.scan = max(0, self.scan - n)
        self.lines = 0
        self.signal_open = False
        self.opened = time.monotonic()

    def _scan(self) -> None:
        """Take the complete lines of ``buf`` into the window, cutting it where it is full.

        Lines are counted with ``bytes.count`` and signal lines found with one regex search over
        the new lines (a match never spans a newline), not line by line in Python.
        """
        buf, limit, want = self.buf, self.src.max_window_bytes, self.cfg.window_lines
        while True:
            last = buf.rfind(b"\n", self.scan, limit)  # the last line that still fits in the window
            if last < 0:
                if len(buf) >= limit:  # no room for the next line: close before it, or cut it
                    self._cut(self.scan or limit, "bytes")
                    continue
                return
            n = buf.count(b"\n", self.scan, last + 1)
            if self.lines + n >= want:
                end = self.scan
                for _ in range(want - self.lines):
                    end = buf.find(b"\n", end) + 1
                self._take(end, want - self.lines)
                self._cut(end, "lines")
                continue
            self._take(last + 1, n)
            if len(buf) >= limit:
                self._cut(self.scan, "bytes")
                continue
            return

    def _take(self, end: int, n: int) -> None:
        if not self.signal_open and SIGNAL_RE.search(self.buf, self.scan, end) is not None:
            self.signal_open = True
        self.scan = end
        self.lines += n

    def _read(self, until: int | None = None) -> bool:
        """Read from the open file within the budget; True when its current end was reached."""
        budget = READ_BUDGET
        while budget > 0:
            want = CHUNK if until is None else min(CHUNK, until - self.pos)
            if want <= 0:
                return True
            chunk = os.pread(self.fd, want, self.pos)
            if not chunk:
                return True
            now = time.monotonic()
            if not self.buf:
                self.opened = now
            self.last_data = now
            self.buf += chunk
            self.pos += len(chunk)
            self.recent = (self.recent + chunk)[-RECENT:]
            budget -= len(chunk)
            self._scan()
            if len(chunk) < want:
                return True
        return False

    def _flush_all(self, why: str) -> None:
        if self.buf:
            self._cut(len(self.buf), why)

    def _check_identity(self) -> None:
        """At the end of the open file: has the path been rotated, deleted, truncated or rewritten?"""
        try:
            st = os.stat(self.path)
            here = (st.st_dev, st.st_ino)
        except OSError:
            st = here = None
        if self.fd is None:
            if here is not None and self._open(self.path, 0):
                self._note(what="file appeared; following it from 0")
            return
        if here is None:
            if not self.gone_noted:
                self.gone_noted = True
                self._note(what="file deleted; reading the open file until it is recreated", offset=self.pos)
            return
        if here != self.ident:
            now = time.monotonic()
            if self.rotated_at is None:
                self.rotated_at = now
                self._note(what="new file at the path; finishing the old one", offset=self.pos)
            if now - max(self.rotated_at, self.last_data) < min(self.cfg.idle_ms, ROTATE_GRACE_MS) / 1000:
                return  # the writer may still be adding to the old file before it reopens
            self._flush_all("rotate")
            old = self.pos
            if self._open(self.path, 0):
                self._note(what="rotated: old file finished; following the new file from 0", old_end=old)
            return
        size = os.fstat(self.fd).st_size
        rewritten = size >= self.pos and self.recent and \
            os.pread(self.fd, len(self.recent), self.pos - len(self.recent)) != self.recent
        if size < self.pos or rewritten:
            self._flush_all("truncate")
            self._note(what="file truncated (copytruncate?); reading it again from 0", offset=self.pos, size=size)
            self.pos = self.emitted = 0
            self.recent = b""
            self.fp = fingerprint(self.fd, 0)

    def _timers(self, now: float) -> None:
        if not self.buf:
            return
        if self.scan:
            if self.signal_open:
                self._cut(self.scan, "signal")
            elif now - self.last_data >= self.cfg.idle_ms / 1000:
                self._cut(self.scan, "idle")
            elif now - self.opened >= self.cfg.max_ms / 1000:
                self._cut(self.scan, "max")
        if self.buf and not self.scan and now - self.last_data >= self.cfg.partial_flush_ms / 1000:
            self._cut(len(self.buf), "partial")  # a last line that never got its newline, as it is

    # -- bytewax ---------------------------------------------------------------------------------
    def next_batch(self) -> list[ContextPacket]:
        if self.finished:
            raise StopIteration
        if self.src.stopping.is_set():
            return self._stop()
        self.more = False
        rewind = self.src.rewinds.get(self.path)
        if rewind is not None:
            if time.monotonic() < rewind[1]:
                return []  # backing off: read nothing until the retry is due
            del self.src.rewinds[self.path]
            self.generation = rewind[2]
            self._rewind(rewind[0])
        try:
            if self.fd is None:
                self._check_identity()
            if self.fd is not None:
                at_end = self._read()
                self.more = not at_end
                if at_end:
                    self._check_identity()
                    if self.fd is not None and self.rotated_at is None:
                        self.more = not self._read()  # after a truncation or a switch: read the new bytes now
        except OSError as exc:  # e.g. EIO, ESTALE: keep what we have and try again at the next poll
            self.more = False
            self._problem("cannot read", exc)
        self._timers(time.monotonic())
        out, self.out = self.out, []
        return out

    def _rewind(self, position: TailPosition) -> None:
        """Go back to ``position`` (a window that could not be delivered) and read it again."""
        self.out.clear()  # windows after it were not delivered either: they come again
        self.buf.clear()
        self.scan = self.lines = 0
        self.signal_open = False
        if self.fd is not None and self.ident == (position.dev, position.ino) and position.offset <= self.pos:
            self.pos = self.emitted = position.offset
            start = max(0, self.pos - RECENT)
            self.recent = os.pread(self.fd, self.pos - start, start)
            self._note(what="reading again from an undelivered window", offset=self.pos)
            return
        self._start(position)

    def _stop(self) -> list[ContextPacket]:
        """Flush what is buffered (the pending window, partial line included) and finish.

        Nothing more is read: the rest of the file is for the next run, from the saved position.
        """
        self._flush_all("stop")
        self.finished = True
        out, self.out = self.out, []
        return out

    def next_awake(self) -> datetime | None:
        if self.more or self.finished or self.src.stopping.is_set():
            return None
        now = time.monotonic()
        wait = self.cfg.poll_ms / 1000
        rewind = self.src.rewinds.get(self.path)
        if rewind is not None:
            return _utc_in(min(wait, rewind[1] - now))
        if self.buf:
            if self.scan:
                wait = min(wait, self.last_data + self.cfg.idle_ms / 1000 - now,
                           self.opened + self.cfg.max_ms / 1000 - now)
            else:
                wait = min(wait, self.last_data + self.cfg.partial_flush_ms / 1000 - now)
        return _utc_in(wait)

    def snapshot(self) -> TailPosition:
        if self.fd is None:
            return TailPosition(0, 0, 0)  # nothing yet: read the file from 0 when it appears
        return TailPosition(self.ident[0], self.ident[1], self.emitted, *self.fp)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        self.src._partition_closed()


class TailSource(FixedPartitionedSource[ContextPacket, TailPosition]):
    """Follow ``paths`` (one partition each) and emit one ``TailPacket`` per window.

    ``start``: where a file without a saved position starts, ``"end"`` (like ``tail -f``) or
    ``"start"``. ``positions``: saved ``TailPosition`` per absolute path (an offset checkpoint);
    bytewax recovery state, when there is some, wins over it. ``handle_signals``: when built in the
    main thread, the first SIGINT/SIGTERM calls ``stop()`` (a second one acts as usual).
    """

    def __init__(self, paths: list[str], config: Config, granularity: str = "coarse", start: Start = "end",
                 positions: dict[str, TailPosition] | None = None, handle_signals: bool = True,
                 max_window_bytes: int = MAX_WINDOW_BYTES):
        if start not in ("end", "start"):
            raise ValueError(f"start must be 'end' or 'start', not {start!r}")
        self.paths = list(dict.fromkeys(os.path.abspath(p) for p in paths))
        self.config = config
        self.granularity = granularity
        self.start = start
        self.positions = {os.path.abspath(k): v for k, v in (positions or {}).items()}
        self.max_window_bytes = max(1, max_window_bytes)
        self.stopping = threading.Event()
        self.rewinds: dict[str, tuple[TailPosition, float, int]] = {}  # path -> (where to read again, not before, generation)
        self.generations: dict[str, int] = {}
        self._open_parts = 0
        self._previous_handlers: dict[int, object] = {}
        if handle_signals and threading.current_thread() is threading.main_thread():
            self._install_handlers()

    def list_parts(self) -> list[str]:
        return list(self.paths)

    def build_part(self, step_id: str, for_part: str, resume_state: TailPosition | None) -> _TailPartition:
        self._open_parts += 1
        return _TailPartition(self, for_part, resume_state)

    def stop(self) -> None:
        """Flush every pending window and finish (safe from a signal handler or another thread)."""
        self.stopping.set()

    def retry(self, packet: "TailPacket", delay: float) -> int:
        """``packet`` was not delivered: read its window again, from its start, in ``delay`` seconds.
        Returns the generation the windows read again will carry: windows of that file with a lower
        one were read before the retry and must not be delivered either (they come again)."""
        start = TailPosition(packet.tail_dev, packet.tail_ino, packet.start, packet.tail_head, packet.tail_fingerprint)
        generation = self.generations[packet.tail_path] = self.generations.get(packet.tail_path, 0) + 1
        self.rewinds[packet.tail_path] = (start, time.monotonic() + max(0.0, delay), generation)
        return generation

    # -- signals ---------------------------------------------------------------------------------
    def _install_handlers(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous_handlers[sig] = signal.signal(sig, self._on_signal)

    def _restore_handlers(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for sig, previous in self._previous_handlers.items():
            if signal.getsignal(sig) == self._on_signal:
                signal.signal(sig, previous)
        self._previous_handlers.clear()

    def _on_signal(self, signum, frame) -> None:
        self.stop()
        self._restore_handlers()  # a second Ctrl-C interrupts for real

    def _partition_closed(self) -> None:
        self._open_parts -= 1
        if self._open_parts <= 0:
            self._restore_handlers()


__all__ = ["TailPacket", "TailPosition", "TailSource"]
