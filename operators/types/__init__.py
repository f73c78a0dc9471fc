"""The content types: one module each, listed here in detection order.

A content type module (``operators/types/<name>.py``) owns everything about its kind of output:

    NAME = "log"                         # the type's name: CLI --type, config section, trace
    class Settings(Section): ...         # optional: its [NAME] config section (operators.config.Section)
    def detect(sample) -> str | None     # why a Sample is this type (one short phrase), or None
    def reduce(raw, granularity, config) -> Plan   # the reduction plan (operators.reduction)
    def facts(packet) -> Facts           # optional: level-0 counts and signal lines (operators.facts)
    def tier(line) -> int | None         # optional: pack tier of a reduced line, 0 signal, 1 context
    SIGNALS = "lines"                    # automatic SIGNAL check: "lines" (signal words), "changed"
                                         # (+/- lines of a diff) or "" (none); see operators.signals

``ORDER`` is the detection order: ``classify`` asks each type's ``detect`` in turn and the first that
answers wins; ``text`` is last and takes everything. Config validation, the CLI's ``--type`` choices,
the level-0 overview, the packer and the SIGNAL check all read this registry. Adding a type is one
module and one line here (see docs/extending.md).
"""

from __future__ import annotations

import importlib
from types import ModuleType

# detection order: the most specific shapes first, text (takes everything) last
ORDER: tuple[str, ...] = (
    "json",
    "diff",
    "build",
    "filelist",
    "log",
    "text",
)

_modules: dict[str, ModuleType] = {}


def names() -> tuple[str, ...]:
    """Every registered type, in detection order."""
    return ORDER


def get(name: str) -> ModuleType:
    """The module of a registered type (imported on first use); KeyError for an unknown name."""
    module = _modules.get(name)
    if module is None:
        if name not in ORDER:
            raise KeyError(name)
        module = _modules[name] = importlib.import_module(f"operators.types.{name}")
    return module


def register(name: str, module: ModuleType, before: str = "text") -> None:
    """Add a type at run time (a plug-in or a test), detected just before ``before``."""
    global ORDER
    if name in ORDER:
        raise ValueError(f"content type {name!r} is already registered")
    at = ORDER.index(before)
    ORDER = ORDER[:at] + (name,) + ORDER[at:]
    _modules[name] = module


def unregister(name: str) -> None:
    global ORDER
    ORDER = tuple(n for n in ORDER if n != name)
    _modules.pop(name, None)
