"""The per-stage trace: one structlog event per stage per packet.

Each event is named after its stage (``LOAD``, ``CLASSIFY``, …) and carries ``source`` and the stage's
figures. On a terminal it renders as aligned ``STAGE | source | figures`` lines; with ``--json`` or
when stderr is not a terminal, as one JSON object per line. Tests capture the events with
``structlog.testing.capture_logs`` instead of reading printed text.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

import msgspec
import structlog

log = structlog.get_logger("nolife_tokens")

_json_encoder = msgspec.json.Encoder()


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "PASS" if value else "FAIL"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.1f}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    return str(value)


def render_console(_logger: Any, _name: str, event: dict[str, Any]) -> str:
    stage = event.pop("event")
    source = event.pop("source", "")
    figures = " ".join(f"{key}={_fmt(value)}" for key, value in event.items())
    return f"{stage:<12} | {source} | {figures}".rstrip(" |")


def render_json(_logger: Any, _name: str, event: dict[str, Any]) -> str:
    event["stage"] = event.pop("event")
    return _json_encoder.encode(event).decode()


def configure_trace(json: bool | None = None, stream: TextIO | None = None) -> None:
    """Send the trace to ``stream`` (stderr by default), as JSON lines unless it is a terminal."""
    stream = stream or sys.stderr
    as_json = (not stream.isatty()) if json is None else json
    structlog.configure(
        processors=[render_json if as_json else render_console],
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )


def emit(stage: str, source: str, figures: dict[str, Any]) -> None:
    log.info(stage, source=source, **figures)
