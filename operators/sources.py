"""The inputs of the graph: files as packets, how they are read, and where reduced texts are written.

The engine's batch source and callback sink (``PacketSource``, ``CallbackSink``) live in
``operators.graphio``, so that reading one input does not import the engine; they are still found
here by name (imported on first use).

Only regular files are inputs: ``unreadable_reason`` refuses directories, FIFOs and devices before
anything is opened, and ``read_input`` checks again with ``fstat`` on a descriptor opened without
blocking. ``write_output`` replaces its target atomically and never writes through a symlink.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from operators.config import BUNDLED_FIXTURES, PROJECT_ROOT, home_path
from operators.packet import ContextPacket
from operators.signals import load_sidecar
from operators.store import check_directory, kind_of, replace_file

if TYPE_CHECKING:
    from operators.config import Config

FIXTURES = BUNDLED_FIXTURES
SIDECAR = FIXTURES / "signals.toml"
SIDECAR_NAMES = {"signals.toml", "types.toml", "README.md", ".gitkeep"}  # beside the fixtures, not fixtures


def display_name(path: Path) -> str:
    """How a file is named in traces and refs: relative to the working directory (or the project) when inside it."""
    resolved = path.resolve()
    if resolved.parent == FIXTURES.resolve():  # the same name in a checkout and in an installed package
        return f"fixtures/{resolved.name}"
    for base in (Path.cwd().resolve(), PROJECT_ROOT):
        try:
            return str(resolved.relative_to(base))
        except ValueError:
            continue
    return str(path)


def unreadable_reason(path: str) -> str | None:
    """Why ``path`` cannot be read as an input file (one line for the user), or None if it can.

    Only regular files are inputs (``-`` is stdin, handled by the caller): a directory, FIFO or
    device (``/dev/zero`` never ends, a FIFO blocks) is refused before anything is opened."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return f"no such file: {path}"
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    if stat.S_ISDIR(st.st_mode):
        return f"is a directory, not a file: {path}"
    if not stat.S_ISREG(st.st_mode):
        return f"is {kind_of(st.st_mode)}, not a regular file: {path}"
    if not os.access(path, os.R_OK):
        return f"cannot read (permission denied): {path}"
    return None


def read_input(path: str | Path) -> bytes:
    """The bytes of an input file, opened without blocking and checked with ``fstat`` before reading
    (the file may have been swapped for a FIFO or device since ``unreadable_reason`` looked): a
    non-regular file is an OSError naming what it is, never a hang or an endless read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, f"{kind_of(mode)}, not a regular file", str(path))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def fixture_paths() -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.is_file() and p.name not in SIDECAR_NAMES)


def file_packets(paths: Iterable[str | Path], granularities: Iterable[str] = ("coarse",),
                 forced_type: str | None = None, both_for_logs: bool = False) -> list[ContextPacket]:
    """One packet per file (two for logs when ``both_for_logs``), with planted signals when known."""
    fixtures = FIXTURES.resolve()
    sidecar: dict[str, list[str]] | None = None  # read only for bundled fixtures
    packets = []
    for raw_path in paths:
        path = Path(raw_path)
        signals = []
        if path.resolve().parent == fixtures:
            if sidecar is None:
                sidecar = load_sidecar(SIDECAR)
            signals = sidecar.get(path.name, [])
        grans = list(granularities)
        if both_for_logs and path.suffix == ".log":
            grans = ["coarse", "fine"]
        problem = unreadable_reason(str(path))  # a FIFO or device would block or never end in LOAD
        for granularity in grans:
            if problem:
                packets.append(ContextPacket(source=display_name(path), granularity=granularity, error=problem))
                continue
            packets.append(ContextPacket(source=display_name(path), path=str(path), granularity=granularity,
                                         expected_signals=signals, forced_type=forced_type))
    return packets


def __getattr__(name: str):
    """``PacketSource`` and ``CallbackSink``: from ``operators.graphio`` (which imports the engine)."""
    if name in ("PacketSource", "CallbackSink"):
        from operators import graphio

        return getattr(graphio, name)
    raise AttributeError(name)


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def output_name(packet: ContextPacket) -> str:
    """A file name for a packet's reduced text: the source, flattened and sanitised (never a path)."""
    name = _UNSAFE.sub("_", packet.source.replace("/", "__")).strip("._") or "input"
    return f"{name[:150]}.{packet.granularity}.reduced"


def write_output(packet: ContextPacket, config: Config) -> Path:
    """Write a packet's visible text to ``<home>/out/`` (where ``tokens expand --full pkt_…`` finds it).

    Atomically, through a fresh temp file in that directory; never through a symlink: a symlink or
    anything but a regular file at the target (or a symlink as ``out/``) is a StoreError, as is a
    write that fails (disk full, read-only)."""
    out_dir = home_path(config) / "out"
    check_directory(out_dir, "output directory")
    target = out_dir / output_name(packet)
    replace_file(target, packet.visible, "output", mode=0o644)
    return target
