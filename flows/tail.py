"""``tokens tail PATH...``: follow live logs through the reduction graph and stream the reduced windows.

The graph is the one of ``flows.reduce`` (``get_flow(source=TailSource(...))``), run in this process
with ``bytewax.testing.run_main``; the sink writes each window's visible text to stdout or appends
it to ``-o FILE``, then records an **offset checkpoint** (``<home>/tail/<key>.json``, written to a
temp file and renamed over the old one):

* ``files``: per followed path, the file identity ``(dev, ino)`` and the end offset of the last
  window whose output was written;
* ``out_size``: with ``-o FILE``, the size of FILE once that window was appended.

On start, each file resumes from its checkpoint (``--from-start``: from byte 0; ``--from-end``: from
its current end, like ``tail -f``; a file without a checkpoint starts at its end). With ``-o FILE``,
bytes in FILE beyond ``out_size`` belong to a window written just before a crash but never
checkpointed: they are cut off and that window is produced again from the checkpointed offset, so
after a SIGKILL no line is lost and none is written twice. On stdout such a window may repeat once.

SIGINT (Ctrl-C) and SIGTERM stop cleanly: the pending window of every file (what was read, partial
line included) goes through the graph and out, the checkpoint is written, exit status 0. Bytes not
read yet stay for the next run. A second Ctrl-C interrupts at once.

The command's arguments are declared in ``flows.cli``, which imports this module only to run it.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

import msgspec

from operators.config import Config, home_path
from operators.sources import display_name, unreadable_reason
from operators.trace import configure_trace, emit


class Position(msgspec.Struct, kw_only=True):
    dev: int
    ino: int
    offset: int


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
    return home_path(config) / "tail" / f"{label[:60]}-{hashlib.sha256(key.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}.json"


def load_checkpoint(path: Path, output: str) -> Checkpoint:
    try:
        return _decoder.decode(path.read_bytes())
    except FileNotFoundError:
        return Checkpoint(output=output)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise TailError(f"unreadable tail checkpoint {path}: {exc} (delete it, or pass --from-start/--from-end)") from None


def save_checkpoint(path: Path, cp: Checkpoint) -> None:
    cp.updated = time.time()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(_encoder.encode(cp))
    os.replace(tmp, path)


class TailError(Exception):
    """A user-facing problem: one line ``tokens: error: …`` and exit status 2 (never a traceback)."""


def _check_paths(paths: list[str], output: str | None) -> None:
    for path in paths:
        problem = unreadable_reason(path)
        if problem:
            raise TailError(problem)
    if output:
        out = Path(output)
        if out.is_dir():
            raise TailError(f"output is a directory, not a file: {output}")
        if not out.parent.is_dir():
            raise TailError(f"no such directory for the output: {out.parent}")
        if any(os.path.abspath(p) == os.path.abspath(output) for p in paths):
            raise TailError(f"the output cannot be one of the followed files: {output}")


def cmd_tail(args: argparse.Namespace, config: Config) -> int:
    # TailError is reported here, as one line with exit status 2 (the same as flows.cli's UsageError)
    try:
        return _tail(args, config)
    except TailError as exc:
        print(f"tokens: error: {exc}", file=sys.stderr)
        return 2


def _tail(args: argparse.Namespace, config: Config) -> int:
    from bytewax._bytewax import run_main

    from flows.cli import startup_done
    from flows.reduce import get_flow
    from operators.sources import CallbackSink
    from operators.tail import TailPacket, TailPosition, TailSource

    paths: list[str] = args.paths
    _check_paths(paths, args.output)
    configure_trace(json=args.json or None)
    granularity = args.granularity or config.reduce.granularity

    cp_path = checkpoint_path(config, paths, args.output)
    cp = load_checkpoint(cp_path, args.output or "-")
    out_fd = sys.stdout.fileno()
    if args.output:
        try:
            out_fd = os.open(args.output, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise TailError(f"cannot write {args.output}: {exc.strerror or exc}") from None
        size = os.fstat(out_fd).st_size
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
            st = os.stat(path)
            saved = Position(dev=st.st_dev, ino=st.st_ino, offset=0 if args.from_start else st.st_size)
            cp.files[path] = saved
        positions[path] = TailPosition(saved.dev, saved.ino, saved.offset)
    save_checkpoint(cp_path, cp)
    source = TailSource(paths, config, granularity=granularity, positions=positions)
    several = len(source.paths) > 1
    state = {"last": None, "error": None, "closed": False}

    def write_all(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(out_fd, view):]

    def handle(packet) -> None:
        if state["error"] or state["closed"] or not isinstance(packet, TailPacket):
            return
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
            state["error"] = f"cannot write {args.output or 'stdout'}: {exc.strerror or exc}"
            source.stop()
            return
        state["last"] = packet.tail_path
        if args.output:
            cp.out_size = (cp.out_size or 0) + len(data)
        cp.files[packet.tail_path] = Position(dev=packet.tail_dev, ino=packet.tail_ino, offset=packet.end)
        save_checkpoint(cp_path, cp)

    try:
        flow = get_flow(source=source, sink=CallbackSink(handle), config_path=args.config, config=config)
        startup_done()
        run_main(flow)
    finally:
        if args.output:
            os.close(out_fd)
    if state["error"]:
        raise TailError(state["error"])
    return 0
