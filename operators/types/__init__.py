"""The content types: one module each, made into one ``ContentType`` record, held in detection order
by a ``Registry``.

A content type module (``operators/types/<name>.py``, or any importable module a config names) owns
everything about its kind of output. Its contract (the module attribute, then the record's field):

    NAME = "log"                            name          the type's name: --type, config section, trace
    def detect(sample) -> str | None        detect        why a ``Sample`` is this type (a short phrase), or None
    def reduce(raw, granularity, config)    reduce        the reduction ``Plan`` (operators.reduction)
    class Settings(Section)                 settings      optional: its [NAME] config section; the type
                                                          reads it with ``operators.config.section(config, NAME)``
    def facts(packet) -> Facts              facts         optional: level-0 counts and signal lines
    def tier(text, shown, config)           tier          optional: (tier, rank) of a reduced line for the
                                                          packer (tier 0 signal, 1 context, 2 other), or None
    def rank_lines(lines, config)           rank_lines    optional: (tier, rank) or None for every reduced
                                                          line at once (or None: ``tier``/the general rules)
    def tiers(lines, config)                tiers         optional: ``tier`` of many reduced lines at once,
                                                          None where ``tier`` is asked, ``()`` where it
                                                          gives None (or None: every line)
    OTHER_LINES = (1, 1)                    other_lines   optional: (tier, rank) of the lines no rule names
    CONTEXT_RANK = 2                        context_rank  optional: rank of a marker/fold line (tier 1)
    PACK_CONTEXT = False                    pack_context  optional: lines around a signal count as its
                                                          context (default True)
    SIGNALS = "lines"                       signals       automatic SIGNAL check: "lines" (signal words),
                                                          "changed" (+/- lines of a diff) or "" (none)
    REDACTS = True                          redacts       optional: reduced at any size; a plan with a
                                                          "secrets" group is never swapped for the raw text
    def cut_head(raw, budget) -> bytes      cut_head      optional: what a cut output shows first
    def apart_lines(lines, indexes)         apart_lines   optional: the must-see lines the ceiling shows
                                                          each on its own, not folded by template
    def family(line) -> bytes               family        optional: the kind of a must-see line (a log's:
                                                          its words); a cut shows a line of each kind
                                                          before a second of any
    FILL = True                             fill          optional: a cut output fills its budget (not
                                                          the target) with head and tail (every line is
                                                          content: a file read)
    FITS = True                             fits          optional: the reducer fits its output to the
                                                          ceiling's room itself: cut at the budget only

``ContentType.of(module)`` makes the record and checks it once (ValueError naming the bad part);
the rest of the product reads records, never modules. ``BUILTIN`` is the registry of the shipped
types, in ``ORDER``: ``classify`` asks each type's ``detect`` in turn and the first that answers
wins; ``text`` is last and takes everything (a shipped type whose cheap test in ``maybe`` says no
is passed over unimported: ``Registry.may_be``). A config's ``[[types]]`` make a registry of its own
(``Registry.with_module``); ``registry_of(config)`` gives the registry a config was loaded with
(``BUILTIN`` for None or a config without plug-in types). Config validation, ``--type``, level 0,
the packer, the ceiling and SIGNAL ask it. Adding a type is one module and one line in ``ORDER``
(see docs/extending.md).
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType
from typing import Any, Callable, Iterator, NamedTuple

import msgspec

from operators.configbase import Section

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


class ContentType(msgspec.Struct, frozen=True, kw_only=True):
    """One content type's contract (see the module docstring), made from its module by ``of``."""

    name: str
    detect: Callable[[Sample], str | None]
    reduce: Callable[[bytes, str, Any], Any]
    settings: type | None = None
    facts: Callable[[Any], Facts] | None = None
    tier: Callable[[bytes, bytes, Any], tuple[int, int] | None] | None = None
    rank_lines: Callable[[list[bytes], Any], list | None] | None = None
    tiers: Callable[[Any, Any], list | None] | None = None
    other_lines: tuple[int, int] | None = None
    context_rank: int = 0
    pack_context: bool = True
    signals: str = "lines"
    redacts: bool = False
    cut_head: Callable[[bytes, int], bytes] | None = None
    apart_lines: Callable[[Any, Any], list] | None = None
    family: Callable[[bytes], bytes] | None = None
    fill: bool = False
    fits: bool = False
    module: str = ""  # where it was made from (messages)

    @classmethod
    def of(cls, module: ModuleType) -> ContentType:
        """The record of a module that follows the contract; ValueError naming the first bad part."""
        name = getattr(module, "NAME", None)
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,31}", name):
            raise ValueError("NAME must be a short lower-case identifier")
        parts = {"name": name, "module": module.__name__}
        for field, (attribute, check, wanted) in PARTS.items():
            if hasattr(module, attribute):
                value = getattr(module, attribute)
                if not check(value):
                    raise ValueError(f"{attribute} must be {wanted}")
                parts[field] = value
            elif field in REQUIRED:
                raise ValueError(f"it has no function {attribute}()")
        return cls(**parts)


def _function(value) -> bool:
    return callable(value)


def _flag(value) -> bool:
    return isinstance(value, bool)


def _rank(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _pair(value) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and all(_rank(v) for v in value)


def _section(value) -> bool:
    return isinstance(value, type) and issubclass(value, Section)


# field -> (module attribute, check, what it must be): every part of the contract but NAME
PARTS: dict[str, tuple[str, Callable[[Any], bool], str]] = {
    "detect": ("detect", _function, "a function"),
    "reduce": ("reduce", _function, "a function"),
    "settings": ("Settings", _section, "a config section (a subclass of operators.config.Section)"),
    "facts": ("facts", _function, "a function"),
    "tier": ("tier", _function, "a function"),
    "rank_lines": ("rank_lines", _function, "a function"),
    "tiers": ("tiers", _function, "a function"),
    "other_lines": ("OTHER_LINES", _pair, "a (tier, rank) pair of integers"),
    "context_rank": ("CONTEXT_RANK", _rank, "an integer"),
    "pack_context": ("PACK_CONTEXT", _flag, "True or False"),
    "signals": ("SIGNALS", lambda value: value in ("lines", "changed", ""), '"lines", "changed" or ""'),
    "redacts": ("REDACTS", _flag, "True or False"),
    "cut_head": ("cut_head", _function, "a function"),
    "apart_lines": ("apart_lines", _function, "a function"),
    "family": ("family", _function, "a function"),
    "fill": ("FILL", _flag, "True or False"),
    "fits": ("FITS", _flag, "True or False"),
}
REQUIRED = ("detect", "reduce")
ATTRIBUTES = {"NAME": "name", **{attribute: field for field, (attribute, _, _) in PARTS.items()}}

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
    "document",  # before source: Markdown's list items and quotes are no code
    "source",  # after filelist and before log: code, not records
    "log",
    "text",
)


class Registry:
    """Content types in detection order. A shipped type's module is imported, and its record made,
    on first use; a registry is never changed: ``with_module`` makes another one."""

    __slots__ = ("names", "key", "_sources", "_records")

    def __init__(self, sources: dict[str, str | ContentType]):
        self.names: tuple[str, ...] = tuple(sources)  # detection order
        self._sources = sources  # name -> module path (made on first use) or the record itself
        self._records: dict[str, ContentType] = {n: s for n, s in sources.items() if isinstance(s, ContentType)}
        # what tells two registries apart: each type's name and module, in detection order
        self.key: tuple[tuple[str, str], ...] = tuple(
            (name, source if isinstance(source, str) else source.module) for name, source in sources.items())

    def __contains__(self, name: str) -> bool:
        return name in self._sources

    def __iter__(self) -> Iterator[ContentType]:
        """Every record, in detection order (every module imported)."""
        return (self.get(name) for name in self.names)

    def get(self, name: str) -> ContentType:
        """The record of a registered type (made on first use); KeyError for an unknown name."""
        record = self._records.get(name)
        if record is None:
            record = ContentType.of(importlib.import_module(self._sources[name]))
            if record.name != name:
                raise ValueError(f"module {record.module} says NAME = {record.name!r}, registered as {name!r}")
            self._records[name] = record
        return record

    def may_be(self, name: str, sample: Sample) -> bool:
        """False when a shipped type's cheap test (``operators.types.maybe``) says its detector would
        say no to ``sample``: the classifier then leaves it (and its module, when not imported yet)
        unasked. True for the others (the detector decides)."""
        source = self._sources[name]
        if not isinstance(source, str):
            return True
        from operators.types.maybe import CHECKS

        check = CHECKS.get(source)
        return check is None or check(sample)

    def find(self, name: str) -> ContentType | None:
        """The record of ``name``, or None when it is not registered."""
        return self.get(name) if name in self._sources else None

    def with_module(self, module: ModuleType, before: str = "text") -> Registry:
        """This registry and the type of ``module`` (checked: ValueError), detected just before
        ``before``; the same registry when that very module is already registered."""
        record = ContentType.of(module)
        if record.name in self._sources:
            if self.get(record.name).module == record.module:
                return self
            raise ValueError(f"content type {record.name!r} is already registered")
        if before not in self._sources:
            raise ValueError(f"no registered content type {before!r} to place it before")
        items = list(self._sources.items())
        at = self.names.index(before)
        return Registry(dict(items[:at] + [(record.name, record)] + items[at:]))


BUILTIN = Registry({name: f"operators.types.{name}" for name in ORDER})


def registry_of(config) -> Registry:
    """The registry ``config`` was loaded with (``operators.config.config_class``): the shipped types
    and the ones its ``[[types]]`` name; ``BUILTIN`` for None or a config of no registry."""
    return getattr(type(config), "__type_registry__", None) or BUILTIN


def names(config=None) -> tuple[str, ...]:
    """Every type of ``config``'s registry (the shipped ones for None), in detection order."""
    return registry_of(config).names


def get(name: str, config=None) -> ContentType:
    """The record of a type of ``config``'s registry (the shipped ones for None); KeyError if unknown."""
    registry = registry_of(config)
    if name not in registry:
        raise KeyError(name)
    return registry.get(name)


def attr(name: str, attribute: str, default=None, config=None):
    """A part of a type's contract by its module attribute (``SIGNALS``, ``FILL``, ``cut_head``, …):
    the record's field for the type ``name`` of ``config``'s registry (the shipped types for None),
    or ``default`` when no such type is registered."""
    record = registry_of(config).find(name)
    return default if record is None else getattr(record, ATTRIBUTES[attribute])
