"""What must stay visible: the expected signals of a packet.

Two sources, checked together by the SIGNAL stage:
* planted signals listed for a fixture in ``fixtures/signals.toml``;
* automatic signals derived from the raw input, independently of any reducer: every error/warning
  line of a log, text or build output, and every changed line of a diff.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Iterator

import msgspec

from operators.reducers.log import signal_lines

MAX_AUTO = 10_000  # enough for any real input; bounds the cost of pathological ones


class FixtureSignals(msgspec.Struct, forbid_unknown_fields=True):
    signals: list[str]


def load_sidecar(path: Path) -> dict[str, list[str]]:
    if not path.exists():
        return {}
    table = msgspec.toml.decode(path.read_bytes(), type=dict[str, FixtureSignals])
    return {name: entry.signals for name, entry in table.items()}


class LineFinder:
    """Every line of a buffer (without its ``\\n``) that starts with a match of ``head``, in order.

    Searched as ``\\n`` + head, which ``re`` finds at C speed (a pattern starting with ``^`` is tried
    at every byte); the first line has no ``\\n`` before it and is matched on its own. No list of
    every line is made."""

    def __init__(self, head: bytes):
        self._first = re.compile(head + rb"[^\n]*")
        self._rest = re.compile(rb"\n(" + head + rb"[^\n]*)")

    def __call__(self, raw: bytes) -> Iterator[bytes]:
        first = self._first.match(raw)
        if first:
            yield first.group()
        for match in self._rest.finditer(raw):
            yield match.group(1)


changed_line_bodies = LineFinder(rb"(?:\+(?!\+\+ )|-(?!-- ))")  # + or - lines, not the file headers


def changed_lines(raw: bytes) -> list[bytes]:
    """The distinct changed lines of a diff (``\\r`` stripped, longer than their sign), the first ``MAX_AUTO``."""
    out: dict[bytes, None] = {}
    for line in changed_line_bodies(raw):
        body = line.rstrip(b"\r")
        if len(body) > 1:
            out.setdefault(body, None)
            if len(out) >= MAX_AUTO:
                break
    return list(out)


def auto_signals(content_type: str, raw: bytes) -> list[bytes]:
    if content_type in ("log", "text", "build"):
        found = [line.rstrip() for line in signal_lines(raw)]
    elif content_type == "diff":
        found = changed_lines(raw)
    else:
        found = []
    return [s for s in found if s][:MAX_AUTO]


def _has_terminal_controls(data: bytes) -> bool:
    return b"\x1b" in data or b"\r" in data or b"\x08" in data


def missing_signals(visible: bytes, expected: list[str], auto: list[bytes]) -> list[str]:
    if _has_terminal_controls(visible) or any(_has_terminal_controls(line) for line in auto):
        from operators.reducers.build import display_signals  # imported only when needed (startup time)

        visible, auto = display_signals(visible, auto)  # compare lines as a terminal displays them
    missing = [s for s in expected if s.encode() not in visible]
    if auto:
        # a whole-line lookup first (visible lines read one at a time: no list of them all); a
        # substring search only for the few lines shown with a suffix
        wanted = set(auto)
        found = {stripped for stripped in map(bytes.rstrip, io.BytesIO(visible)) if stripped in wanted}
        missing += [s.decode("utf-8", "replace") for s in auto if s not in found and s not in visible]
    return missing
