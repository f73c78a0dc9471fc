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
    REDACTS = True                       # optional: reduced at any size; a plan with a "secrets" group is
                                         # never swapped for the raw text (operators.stages)
    def rank_lines(lines, config)        # optional: budget ranks of the reduced lines, (tier, rank) or None
                                         # each (or OTHER_LINES/CONTEXT_RANK; see operators.rank)
    def cut_head(raw, budget) -> bytes   # optional: what a cut output shows first (operators.ceiling)
    FILL = True                          # optional: a cut output fills its budget with head and tail

Optional parts are read with ``attr(name, attribute, default)``.

``ORDER`` is the detection order: ``classify`` asks each type's ``detect`` in turn and the first that
answers wins; ``text`` is last and takes everything. Config validation, the CLI's ``--type`` choices,
the level-0 overview, the packer and the SIGNAL check all read this registry. Adding a type is one
module and one line here (see docs/extending.md).
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType
from typing import NamedTuple

SAMPLE = 64 * 1024  # bytes a detector looks at
ANSI_RE = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")  # colours and cursor moves hide line starts


class Sample:
    """What detectors look at, computed once per input.

    ``raw``: the whole input; ``head``: its first ``SAMPLE`` bytes; ``lines``: the non-blank lines of
    ``head`` (``\\n`` split, line endings kept but for the ``\\n``; the last one dropped when the head
    cuts it); ``plain``: ``head`` with ANSI colour/cursor escapes removed (computed on first use)."""

    __slots__ = ("raw", "head", "lines", "_plain")

    def __init__(self, raw: bytes):
        self.raw = raw
        self.head = raw[:SAMPLE]
        lines = [line for line in self.head.split(b"\n") if line.strip()]
        if len(raw) > SAMPLE and lines:
            lines.pop()  # may be cut in the middle
        self.lines = lines
        self._plain: bytes | None = None

    @property
    def plain(self) -> bytes:
        if self._plain is None:
            self._plain = ANSI_RE.sub(b"", self.head) if b"\x1b[" in self.head else self.head
        return self._plain


class Facts(NamedTuple):
    """Level 0 of a packet, as a type sees it: a counts phrase ("3 files changed, +10 -2 lines"), the
    first few signal lines (as displayed, clipped), how many signal lines there are in all, and a
    label shown after the type's name (the test runner, …)."""

    counts: str
    important: list[str]
    total: int
    label: str = ""

# detection order: the most specific shapes first, text (takes everything) last
ORDER: tuple[str, ...] = (
    "json",
    "gitlog",  # before diff: git log -p / git show are commits with patches
    "gitblame",
    "gitstatus",
    "diff",
    "diagnostics",  # before build: a linter's or compiler's diagnostics alone (build logs say no)
    "search",  # after diagnostics: path:line:col: CODE lines are diagnostics, path:line:text are hits
    "packages",  # before build (npm ls ends in npm error lines) and listing (npm ls draws a tree too)
    "build",
    "listing",  # ls -l, ls -R, tree, du
    "table",  # ps aux, df -h, docker ps, env
    "filelist",
    "source",  # after filelist and before log: code, not records
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


def attr(name: str, attribute: str, default=None):
    """An optional part of a type's contract (``SIGNALS``, ``FILL``, ``cut_head``, …): the attribute of
    the registered type ``name``, or ``default`` when the type lacks it or is not registered."""
    return getattr(get(name), attribute, default) if name in ORDER else default


def check_module(module: ModuleType) -> None:
    """ValueError unless ``module`` follows the contract: a ``NAME``, ``detect`` and ``reduce``."""
    name = getattr(module, "NAME", None)
    if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,31}", name):
        raise ValueError("NAME must be a short lower-case identifier")
    for attr in ("detect", "reduce"):
        if not callable(getattr(module, attr, None)):
            raise ValueError(f"it has no function {attr}()")
    if getattr(module, "SIGNALS", "lines") not in ("lines", "changed", ""):
        raise ValueError('SIGNALS must be "lines", "changed" or ""')


def register(name: str, module: ModuleType, before: str = "text") -> None:
    """Add a type at run time (from config ``[[types]]``, or a test), detected just before ``before``."""
    global ORDER
    if name in ORDER:
        raise ValueError(f"content type {name!r} is already registered")
    if before not in ORDER:
        raise ValueError(f"no registered content type {before!r} to place it before")
    at = ORDER.index(before)
    ORDER = ORDER[:at] + (name,) + ORDER[at:]
    _modules[name] = module


def unregister(name: str) -> None:
    global ORDER
    ORDER = tuple(n for n in ORDER if n != name)
    _modules.pop(name, None)
