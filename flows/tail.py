"""``tokens tail PATH...``: follow live logs through the reduction graph and stream the reduced windows.

The graph is the one of ``flows.reduce`` (``get_flow(source=TailSource(...))``), run in this process
with ``flows.runner.run_flow``; the sink writes each window's visible text to stdout or appends
it to ``-o FILE``, then records an **offset checkpoint** (``<home>/tail/<key>.json``, written to a
temp file and renamed over the old one):

* ``files``: per followed path, the file identity ``(dev, ino)``, a fingerprint of its first bytes
  (``head``, ``fingerprint``: see ``operators.tail``) and the end offset of the last window whose
  output was written;
* ``out_size``: with ``-o FILE``, the size of FILE once that window was appended.

On start, each file resumes from its checkpoint (``--from-start``: from byte 0; ``--from-end``: from
its current end, like ``tail -f``; a file without a checkpoint starts at its end). With ``-o FILE``,
bytes in FILE beyond ``out_size`` belong to a window written just before a crash but never
checkpointed: they are cut off and that window is produced again from the checkpointed offset, so
after a SIGKILL no line is lost and none is written twice. On stdout such a window may repeat once.

The store full or read-only (or the disk of ``-o FILE`` full: a window written in part is cut off
again): a window whose refs cannot be written is not printed nor checkpointed;
its file is read again from that window after a pause that doubles up to ``MAX_BACKOFF`` seconds, so
nothing is lost and the tail keeps going. A checkpoint that cannot be written is tried again at the
next window (a kill before then repeats windows, never loses them). Files are never written through a
symlink: the checkpoint is replaced through a fresh temp file, and a symlink (or anything but a regular
file) as ``-o FILE`` or checkpoint is refused.

SIGINT (Ctrl-C) and SIGTERM stop cleanly: the pending window of every file (what was read, partial
line included) goes through the graph and out, the checkpoint is written, exit status 0. Bytes not
read yet stay for the next run. A second Ctrl-C interrupts at once.

The command's arguments are declared here (``tail_arguments``), when ``flows.cli`` parses ``tokens tail``.
"""

from __future__ import annotations

import argparse
import errno
import os
import stat
import sys
import time
from pathlib import Path

import msgspec

from operators.config import Config, home_path
from operators.digest import sha256_hex
from operators.errors import UsageError
from operators.sources import display_name, unreadable_reason
from operators.store import StoreError, check_directory, read_regular, replace_file
from operators.trace import configure_trace, emit


class Position(msgspec.Struct, kw_only=True):
    dev: int
    ino: int
    offset: int
    head: int = 0
    fingerprint: str = ""


FIRST_BACKOFF = 0.5  # seconds before a window the store could not take is tried again
MAX_BACKOFF = 30.0
STORE_STAGES = ("STORE", "RECOVERY", "RESTORE")


class Checkpoint(msgspec.Struct, kw_only=True):
    output: str
    out_size: int | None = None
    files: dict[str, Position] = {}
    updated: float = 0.0


_decoder = msgspec.json.Decoder(Checkpoint)
_encoder = msgspec.json.Encoder()


def checkpoint_path(config: Config, paths: list[str], output: str | None) -> Path:
    """One checkpoint per destination: ``-o FILE`` (any inputs), or stdout and this set of inputs."""
    key = os.path.abspath(output) if output else "stdout\0" + "\0".join(sorted(os.path.abspath(p) for p in paths))
    label = Path(output).name if output else "stdout"
    return home_path(config) / "tail" / f"{label[:60]}-{sha256_hex(key.encode('utf-8', 'surrogateescape'))[:16]}.json"


def load_checkpoint(path: Path, output: str) -> Checkpoint:
    try:
        return _decoder.decode(read_regular(path, "tail checkpoint"))
    except FileNotFoundError:
        return Checkpoint(output=output)
    except (OSError, StoreError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise TailError(f"unreadable tail checkpoint {path}: {exc} (delete it, or pass --from-start/--from-end)") from None


def save_checkpoint(path: Path, cp: Checkpoint) -> None:
    """Replace the checkpoint atomically (a fresh temp file beside it, never through a symlink);
    StoreError when it cannot be written."""
    cp.updated = time.time()
    check_directory(path.parent, "tail checkpoint directory")
    replace_file(path, _encoder.encode(cp), "tail checkpoint")


class TailError(UsageError):
    """A path ``tokens tail`` cannot follow or write, or a checkpoint it cannot read: exit status 2."""


def _check_paths(paths: list[str], output: str | None) -> None:
    for path in paths:
        problem = unreadable_reason(path)
        if problem:
            raise TailError(problem)
    if output:
        out = Path(output)
        if out.is_symlink():
            raise TailError(f"output is a symlink (refused; name the file itself): {output}")
        if out.is_dir():
            raise TailError(f"output is a directory, not a file: {output}")
        if out.exists() and not out.is_file():
            raise TailError(f"output is not a regular file: {output}")
        if not out.parent.is_dir():
            raise TailError(f"no such directory for the output: {out.parent}")
        if any(os.path.abspath(p) == os.path.abspath(output) for p in paths):
            raise TailError(f"the output cannot be one of the followed files: {output}")


def tail_arguments(p: argparse.ArgumentParser) -> None:
    from flows.options import add_granularity

    p.description = ("Follow growing files (rotation, copytruncate, deletion handled) and stream each window's "
                     "reduced text. Resumes from its checkpoint after a restart; Ctrl-C/SIGTERM flush and stop.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files to follow")
    p.add_argument("-o", "--output", metavar="FILE", help="append the reduced windows to FILE instead of stdout")
    add_granularity(p)
    start = p.add_mutually_exclusive_group()
    start.add_argument("--from-start", action="store_true", help="read every file from byte 0 (ignore the checkpoint)")
    start.add_argument("--from-end", action="store_true", help="start at the current end (ignore the checkpoint)")
    p.add_argument("--json", action="store_true", help="trace as JSON lines (stderr)")
    p.set_defaults(func=cmd_tail)


def cmd_tail(args: argparse.Namespace, config: Config) -> int:
    """``tokens tail``: a path it cannot follow (``TailError``) or a store it cannot write (``StoreError``)
    is raised for the entry point to report."""
    from flows.runner import run_flow, startup_done
    from flows.reduce import get_flow
    from operators.sources import CallbackSink
    from operators.tail import TailPacket, TailPosition, TailSource

    paths: list[str] = args.paths
    _check_paths(paths, args.output)
    configure_trace(json=args.json or None)
    granularity = args.granularity or config.reduce.granularity

    check_directory(home_path(config) / "context", "store directory", create=False)  # a symlink or file: now, once
    cp_path = checkpoint_path(config, paths, args.output)
    cp = load_checkpoint(cp_path, args.output or "-")
    out_fd = sys.stdout.fileno()
    if args.output:
        try:
            out_fd = os.open(args.output, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
                             | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as exc:
            raise TailError(f"cannot write {args.output}: {exc.strerror or exc}") from None
        st = os.fstat(out_fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(out_fd)
            raise TailError(f"output is not a regular file: {args.output}")
        os.set_blocking(out_fd, True)
        size = st.st_size
        if cp.out_size is not None and size > cp.out_size and not (args.from_start or args.from_end):
            os.truncate(args.output, cp.out_size)  # a window written but never checkpointed: it comes again
            emit("TAIL", args.output, {"what": "cut an unconfirmed window off the output", "bytes": size - cp.out_size})
            size = cp.out_size
        cp.out_size = size

    # Every file's start is fixed and checkpointed *before* the first window can be written, so a
    # kill right after that window still finds where this run began.
    positions = {}
    for path in dict.fromkeys(os.path.abspath(p) for p in paths):
        saved = cp.files.get(path)
        if saved is None or args.from_start or args.from_end:
            saved = cp.files[path] = _position_now(path, at_end=not args.from_start)
        positions[path] = TailPosition(saved.dev, saved.ino, saved.offset, saved.head, saved.fingerprint)
    state = {"last": None, "error": None, "closed": False, "cp_error": "", "backoff": 0.0, "generation": {}}
    _save_or_note(cp_path, cp, state, strict=True)
    source = TailSource(paths, config, granularity=granularity, positions=positions)
    several = len(source.paths) > 1

    def write_all(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(out_fd, view):]

    def handle(packet) -> None:
        if state["error"] or state["closed"] or not isinstance(packet, TailPacket):
            return
        if packet.generation < state["generation"].get(packet.tail_path, 0):
            return  # read before a retry was asked for: it comes again
        if packet.error and packet.trace and packet.trace[-1].stage in STORE_STAGES:
            _retry_later(source, packet, state, packet.error)
            return
        state["backoff"] = 0.0
        data = packet.visible
        if several and state["last"] != packet.tail_path:
            data = f"==> {display_name(Path(packet.tail_path))} <==\n".encode() + data
        try:
            write_all(data)
        except BrokenPipeError:
            state["closed"] = True  # the reader went away (| head): stop quietly
            source.stop()
            return
        except OSError as exc:
            if args.output and exc.errno in (errno.ENOSPC, errno.EDQUOT) and _take_back(out_fd, cp.out_size or 0):
                _retry_later(source, packet, state, f"cannot write {args.output}: {exc.strerror}")
                return
            state["error"] = f"cannot write {args.output or 'stdout'}: {exc.strerror or exc}"
            source.stop()
            return
        state["last"] = packet.tail_path
        if args.output:
            cp.out_size = (cp.out_size or 0) + len(data)
        cp.files[packet.tail_path] = Position(dev=packet.tail_dev, ino=packet.tail_ino, offset=packet.end,
                                              head=packet.tail_head, fingerprint=packet.tail_fingerprint)
        _save_or_note(cp_path, cp, state)

    try:
        flow = get_flow(source=source, sink=CallbackSink(handle), config_path=args.config, config=config)
        startup_done()
        run_flow(flow)
    finally:
        if args.output:
            os.close(out_fd)
    if state["error"]:
        raise TailError(state["error"])
    return 0


def _position_now(path: str, at_end: bool) -> Position:
    """Where a file stands now: its identity and fingerprint, at its end or at 0."""
    from operators.tail import fingerprint

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise TailError(f"not a regular file: {path}")
        offset = st.st_size if at_end else 0
        head, digest = fingerprint(fd, offset)
    finally:
        os.close(fd)
    return Position(dev=st.st_dev, ino=st.st_ino, offset=offset, head=head, fingerprint=digest)


def _save_or_note(path: Path, cp: Checkpoint, state: dict, strict: bool = False) -> None:
    """Write the checkpoint; when it cannot be written (disk full, read-only), say so once and go on:
    the next window tries again (a kill before then repeats windows, never loses them). ``strict``:
    a symlink or other non-file at the checkpoint's path is an error (it will not go away by waiting)."""
    try:
        save_checkpoint(path, cp)
    except StoreError as exc:
        if strict and exc.errno is None:
            raise
        if state["cp_error"] != str(exc):
            state["cp_error"] = str(exc)
            emit("TAIL", str(path), {"what": "checkpoint not written; trying again at the next window", "error": str(exc)})
        return
    state["cp_error"] = ""


def _take_back(fd: int, size: int) -> bool:
    """Cut the output back to ``size`` (a window written in part); whether that worked."""
    try:
        os.ftruncate(fd, size)
    except OSError:
        return False
    return True


def _retry_later(source, packet, state: dict, error: str) -> None:
    """The store (or the ``-o`` disk) could not take this window: neither print nor checkpoint it;
    read it again later, waiting twice as long each time (up to ``MAX_BACKOFF``) until it can."""
    delay = state["backoff"] = min(MAX_BACKOFF, max(FIRST_BACKOFF, state["backoff"] * 2))
    state["generation"][packet.tail_path] = source.retry(packet, delay)
    emit("TAIL", packet.source, {"what": "window not delivered; it will be read again", "retry_in_s": delay,
                                 "error": error})
