"""The per-stage trace: one structlog event per stage per packet.

Each event is named after its stage (``LOAD``, ``CLASSIFY``, …) and carries ``source`` and the stage's
figures. On a terminal it renders as aligned ``STAGE | source | figures`` lines; with ``--json`` or
when stderr is not a terminal, as one JSON object per line. On a terminal PASS is green and FAIL red,
unless ``NO_COLOR`` is set (https://no-color.org) or ``TERM=dumb``. Tests capture the events with
``structlog.testing.capture_logs`` instead of reading printed text. ``progress`` says on a terminal
that a big input (``PROGRESS_MIN`` bytes or more) is being worked on.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

import msgspec

_json_encoder = msgspec.json.Encoder()
_off = False  # configured to os.devnull: events are dropped here, without importing structlog
_log = None  # the structlog logger, made on first use
PROGRESS_MIN = 50 * 1024 * 1024  # bytes: inputs this big get a progress line on a terminal
_COLORS = {"PASS": "\x1b[32mPASS\x1b[0m", "FAIL": "\x1b[31mFAIL\x1b[0m"}


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when ``NO_COLOR`` is set (to anything but "") or TERM is dumb."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


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


def render_console_color(logger: Any, name: str, event: dict[str, Any]) -> str:
    """``render_console`` with PASS/FAIL coloured (a terminal without NO_COLOR)."""
    for key, value in event.items():
        if isinstance(value, bool) and key != "event":
            event[key] = _COLORS["PASS" if value else "FAIL"]
    return render_console(logger, name, event)


def render_json(_logger: Any, _name: str, event: dict[str, Any]) -> str:
    event["stage"] = event.pop("event")
    return _json_encoder.encode(event).decode()


def configure_trace(json: bool | None = None, stream: TextIO | None = None) -> None:
    """Send the trace to ``stream`` (stderr by default), as JSON lines unless it is a terminal.

    ``os.devnull`` turns it off: events are then dropped without building them, and structlog (some
    15 ms of imports) is not imported for it (it is pointed at that stream too when already loaded,
    so that a capture set up later still sees the events, see ``emit``)."""
    global _off
    stream = stream or sys.stderr
    _off = getattr(stream, "name", None) == os.devnull
    if _off and "structlog" not in sys.modules:
        return
    import structlog

    as_json = (not stream.isatty()) if json is None else json
    structlog.configure(
        processors=[render_json if as_json else render_console_color if use_color(stream) else render_console],
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )


def trace_configured() -> bool:
    """Whether the trace has been set up (by ``configure_trace``, or structlog configured otherwise)."""
    structlog = sys.modules.get("structlog")
    return _off or (structlog is not None and structlog.is_configured())


def dropped() -> bool:
    """Whether an event emitted now goes nowhere: the trace is off and no capture was set up since (a
    figure that costs work, such as the store's size, is then not worked out)."""
    if not _off:
        return False
    structlog = sys.modules.get("structlog")
    return structlog is None or not structlog.is_configured()


def emit(stage: str, source: str, figures: dict[str, Any]) -> None:
    global _log
    if dropped():  # unless structlog was set up since the trace was turned off (a test's capture_logs)
        return
    if _log is None:
        import structlog

        _log = structlog.get_logger("nolife_tokens")
    _log.info(stage, source=source, **figures)


def progress(what: str, name: str | None, size: int, stream: TextIO | None = None) -> None:
    """One line on a terminal's stderr before a long step over a big input (``size`` bytes)."""
    stream = stream or sys.stderr
    if size < PROGRESS_MIN or not stream.isatty():
        return
    stream.write(f"tokens: {what} {name or 'input'} ({size / 1024 / 1024:,.0f} MB)…\n")
    stream.flush()
