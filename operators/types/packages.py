"""Package trees and lists: ``npm ls`` (``--all``), ``cargo tree``, ``pipdeptree``, ``pip list``, ``pip freeze``.

* Dependency trees (``npm ls``, ``cargo tree``, ``pipdeptree``): the root line, every top-level
  dependency and every problem line (``UNMET``, ``invalid``, ``extraneous``, ``missing``, ``ERR``,
  ``npm error`` …) stay, and so do the entries down to ``max_depth`` levels. Deeper entries and
  deduplicated ones (``deduped``, cargo's ``(*)``) fold, each run into one line ``… N more packages
  (K deduped)`` drawn at the place of the first (group ``packages``). A tree of up to ``fold_min``
  lines passes through.
* ``pip list`` / ``pip freeze`` / ``conda list``: every ``name version`` line is must-see, so the
  list passes through (the type exists so that no other reducer folds it).
"""

from __future__ import annotations

import re
from typing import Annotated

import msgspec

from operators.config import Section, section
from operators.reduction import Plan, passthrough
from operators.types.gitlog import split_lines
from operators.relazy import lazy  # patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first

NAME = "packages"
SIGNALS = ""

PACKAGES, PACKAGES_REASON = "packages", "dependency tree entries below the shown levels"


class Settings(Section):
    fold_min: Annotated[int, msgspec.Meta(ge=0)] = 40  # trees up to this many lines pass through
    max_depth: Annotated[int, msgspec.Meta(ge=1)] = 1  # tree levels shown below the root


ROOT_RE = lazy(rb"^(?:@?[\w.-]+(?:/[\w.-]+)?@\S*(?: \S.*)?|[\w-]+ v\d\S*(?: \(.*\))?|[\w.-]+==\S+)$")
BRANCH_RE = lazy(r"^((?:[│|](?:\s|\xa0)|(?:\s|\xa0){2}|[│|](?:\s|\xa0){3}|(?:\s|\xa0){4})*?)(├─[┬─] |└─[┬─] |├── |└── |\|-- |`-- )")
PROBLEM_RE = lazy(rb"UNMET|\binvalid\b|\bextraneous\b|\bmissing\b|\bERR!?\b|^npm (?:error|ERR!)|\bconflict|\bpeer dep", re.I)
DEDUPED_RE = lazy(rb" deduped\b| \(\*\)$")
PIP_HEADER_RE = lazy(rb"^Package +Version\b")
FREEZE_RE = lazy(rb"^[A-Za-z0-9][\w.-]*(?:\[[\w,.-]+\])? *(?:==|===|@ )\S.*$|^-e \S+$|^# ")
CONDA_RE = lazy(rb"^# packages in environment at ")


def _depth(m: re.Match, width: int) -> int:
    """A tree entry's level below the root: npm draws 2 columns a level, cargo and pipdeptree 4."""
    return len(m.group(1)) // width + 1


def tree_kind(lines: list[bytes]) -> str | None:
    if len(lines) < 2:
        return None
    if not ROOT_RE.match(lines[0]):
        return None
    body = [line.decode("utf-8", "replace") for line in lines[1:]]
    branches = sum(1 for line in body if BRANCH_RE.match(line))
    if branches < 0.7 * len(body):
        return None
    return "npm" if any("─┬" in line for line in body) or b" deduped" in b"".join(lines) else "tree"


def list_kind(lines: list[bytes]) -> str | None:
    if len(lines) >= 3 and PIP_HEADER_RE.match(lines[0]) and set(lines[1].strip()) <= set(b"- "):
        return "pip list"
    if len(lines) >= 3 and sum(1 for line in lines if FREEZE_RE.match(line)) >= 0.95 * len(lines):
        return "pip freeze"
    if lines and CONDA_RE.match(lines[0]):
        return "conda list"
    return None


def detect(sample) -> str | None:
    if not maybe.packages(sample):
        return None  # no first line of a tree or a list, too few pip freeze lines
    lines = [line.rstrip(b"\r") for line in sample.lines[:2000]]
    kind = tree_kind(lines)
    if kind:
        return "dependency tree (root package line, then ├── entries)"
    kind = list_kind(lines)
    return f"{kind} (one package a line)" if kind else None


def reduce_tree(raw: bytes, settings: Settings, width: int) -> Plan:
    lines = split_lines(raw)
    if sum(1 for ln in lines if ln.body_end > ln.start) <= settings.fold_min:
        return passthrough(raw)
    plan = Plan(raw)
    run: list = []
    totals = [0, 0]

    def flush() -> None:
        if not run:
            return
        first = run[0]
        text = raw[first.start : first.body_end].decode("utf-8", "replace")
        m = BRANCH_RE.match(text)
        pad = m.group(1) + m.group(2)[:1] + "  " if m else ""
        deduped = sum(1 for ln in run if DEDUPED_RE.search(raw, ln.start, ln.body_end))
        plan.keep(plan.position, first.start)
        plan.omit(first.start, run[-1].end, PACKAGES, PACKAGES_REASON)
        more = f"… {len(run):,} more package{'s' if len(run) != 1 else ''}" + (f" ({deduped:,} deduped)" if deduped else "")
        plan.show(f"{pad}{more}\n".encode())
        totals[0] += len(run)
        totals[1] += deduped
        run.clear()

    for ln in lines[1:]:
        body = raw[ln.start : ln.body_end]
        text = body.decode("utf-8", "replace")
        m = BRANCH_RE.match(text)
        if m is None or PROBLEM_RE.search(body) or _depth(m, width) <= settings.max_depth:
            flush()
            continue
        run.append(ln)
    flush()
    plan.keep_rest()
    if PACKAGES not in plan.reasons:
        return plan.finish()
    plan.show((b"" if plan.ends_line() else b"\n")
              + f"[dependency tree: {totals[0]:,} entries below level {settings.max_depth} folded ({totals[1]:,} deduped); "
                f"every top-level dependency and problem line shown; exact lines: ".encode())
    plan.mark(PACKAGES)
    plan.show(b"]\n")
    return plan.finish()


def reduce(raw: bytes, granularity: str, config) -> Plan:
    lines = [ln.rstrip(b"\r") for ln in raw[:65536].split(b"\n") if ln.strip()]
    kind = tree_kind(lines[:2000])
    if kind:
        return reduce_tree(raw, section(config, NAME), 2 if kind == "npm" else 4)
    return passthrough(raw)


def facts(packet):
    from operators.types import Facts

    lines = [ln.rstrip(b"\r") for ln in packet.raw.split(b"\n") if ln.strip()]
    problems = [ln.decode("utf-8", "replace").strip()[:150] for ln in lines if PROBLEM_RE.search(ln)]
    kind = tree_kind(lines[:2000])
    if kind:
        top = 0
        for ln in lines[1:]:
            text = ln.decode("utf-8", "replace")
            m = BRANCH_RE.match(text)
            top += bool(m and _depth(m, 2 if kind == "npm" else 4) == 1)
        return Facts(f"{len(lines) - 1:,} entries, {top:,} top-level dependencies, {len(problems):,} problems",
                     problems[:5], len(problems), "tree")
    rows = max(0, len(lines) - (2 if lines and PIP_HEADER_RE.match(lines[0]) else 0))
    return Facts(f"{rows:,} packages", problems[:5], len(problems))


PACK_CONTEXT = False


def tier(text: bytes, shown: bytes, config):
    """Pack tiers: problem lines first, then the root and top-level entries."""
    if PROBLEM_RE.search(shown):
        return 0, 0
    if ROOT_RE.match(shown) or shown.startswith(TOP_LEVEL):
        return 0, 1
    return None


TOP_LEVEL = tuple(c.encode() for c in ("├─┬ ", "└─┬ ", "├── ", "└── ", "|-- ", "`-- "))
