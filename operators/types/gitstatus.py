"""git status, git branch and git tag lists: every path and branch name stays; hints and long tag runs fold.

* ``git status`` (long form): the ``(use "git …" to …)`` hint lines go behind the ref (but for a hint
  holding a signal word, ``abort`` …: it stays); every other line (branch, upstream state, section titles, every path, the closing summary) stays verbatim.
* ``git status -s`` / ``--porcelain`` and ``git branch`` (``-a``, ``-r``, ``-v``, ``-vv``): already one
  path or branch a line, all signal: passed through (the type exists so that no other reducer
  folds them).
* ``git tag`` (also ``git tag -n``, each name with its note): a list that fits in the output ceiling
  is shown whole (every tag is what the agent asked for). A longer one (of more than ``fold_min``
  tags) keeps, for each family of
  tags (the name with its version number taken out: ``v1.2.3`` and ``v2.0`` are one family,
  ``pkg-a@1.0`` another), the newest ``keep_newest`` and the oldest ``keep_oldest`` by version order
  (pre-releases before their release), every tag of the newest ``major.minor`` series, the newest of
  each major version, every tag that carries no version, and every line with a signal word (a
  ``git tag -n`` note that says "failed"). Runs of other tags become one line each, ``⋯ N more tags
  (first … last)`` in place, the longest runs first and only as many as it takes to fit what the
  ceiling leaves uncut (``operators.ceiling.target``); the exact lines go to one ref (group ``tags``).
  Cut further (a smaller ``--budget``), ``rank_lines`` keeps the counts and an even spread of the tags.
"""

from __future__ import annotations

import re
from typing import Annotated

import msgspec

from operators.ceiling import target
from operators.config import Section, section
from operators.reduction import Plan, passthrough
from operators.types.gitlog import Line, split_lines
from operators.vocab import SIGNAL_RE
from operators.relazy import lazy  # patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first

NAME = "gitstatus"
SIGNALS = "lines"

HINTS, HINTS_REASON = "hints", "git status hint lines"
TAGS, TAGS_REASON = "tags", "tags of the middle of the version history"
MIN_GAIN = 48


class Settings(Section):
    fold_min: Annotated[int, msgspec.Meta(ge=0)] = 40  # tag lists up to this many lines pass through
    keep_newest: Annotated[int, msgspec.Meta(ge=0)] = 10  # per family of tags
    keep_oldest: Annotated[int, msgspec.Meta(ge=0)] = 3


STATUS_START_RE = lazy(
    rb"(?:On branch \S|HEAD detached (?:at|from) \S|Not currently on any branch|"
    rb"(?:interactive )?rebase in progress|You are currently |No commits yet)"
)
STATUS_SECTION_RE = lazy(
    rb"^(?:Changes to be committed:|Changes not staged for commit:|Untracked files:|Unmerged paths:"
    rb"|nothing to commit|nothing added to commit|no changes added to commit|Your branch is"
    rb"|Your branch and '|Ignored files:)",
    re.M,
)
HINT_RE = lazy(rb'  \((?:use "git |use "git|fix conflicts|all conflicts fixed|commit or discard|'
                     rb'create/copy files|see more in )[^\r\n]*\)\r?$')
SHORT_RE = lazy(rb"(?:[ MTADRCU?!]{2} \S[^\r\n]*|## \S[^\r\n]*)\r?")
BRANCH_RE = lazy(rb"[*+ ] (?:\([^)\r\n]*\)|\S+)(?: +-> \S+)?(?: +[0-9a-f]{7,40}(?: [^\r\n]*)?)?\r?")
VERSION_RE = lazy(rb"v?(\d+(?:[._]\d+)+|\d+)(?=$|[-+._~a-zA-Z])")
TAG_RE = lazy(rb"(?:[\w./@+-]*?[-_/@])?v?\d+(?:\.\d+)+(?:[-+.~_]?[0-9A-Za-z][0-9A-Za-z.+~_-]*)?")
FILE_EXT_RE = lazy(rb"\.(?:tar\.gz|tgz|zip|whl|gz|bz2|xz|jar|deb|rpm|txt|md|rst|py|js|ts|json|ya?ml|toml"
                         rb"|exe|dmg|so|dll|html?|css|c|h|go|rs|java|log|csv|lock)$", re.I)
IPV4_RE = lazy(rb"\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?")
PRE_RE = lazy(rb"(?i)(?:dev|alpha|beta|pre|rc|a|b|c)\.?\d*$|(?i:snapshot|nightly)")


# -- git status (long form) -----------------------------------------------------------------------


def reduce_status(raw: bytes, lines: list[Line]) -> Plan:
    plan = Plan(raw)
    hints = 0
    omitted = 0
    for line in lines:
        if HINT_RE.fullmatch(raw, line.start, line.body_end) and not SIGNAL_RE.search(raw, line.start, line.body_end):
            plan.keep(plan.position, line.start)
            plan.omit(line.start, line.end, HINTS, HINTS_REASON)
            hints += 1
            omitted += line.end - line.start
    plan.keep_rest()
    if not hints:
        return plan.finish()
    text = (b"" if plan.ends_line() else b"\n") + f"[{hints} git hint line{'s' if hints != 1 else ''}: ".encode()
    if omitted - len(text) - 20 < MIN_GAIN:
        return passthrough(raw)
    plan.show(text)
    plan.mark(HINTS)
    plan.show(b"]\n")
    return plan.finish()


# -- git tag --------------------------------------------------------------------------------------


def tag_name(raw: bytes, line: Line) -> bytes:
    text = raw[line.start : line.body_end]
    return text.split(None, 1)[0] if text.strip() else b""


def version_key(name: bytes) -> tuple[bytes, tuple] | None:
    """(family, sort key) of a tag that carries a version number, else None."""
    m = VERSION_RE.search(name)
    if m is None or not TAG_RE.fullmatch(name) and not re.fullmatch(rb"v?\d+", name):
        return None
    nums = tuple(int(x) for x in re.split(rb"[._]", m.group(1)))
    rest = name[m.end() :]
    family = name[: m.start()] + b"#"
    final = 0 if rest and PRE_RE.search(rest) else 1
    return family, (nums, final, rest)


def kept_tags(names: list[bytes], settings: Settings) -> set[int]:
    """Indexes of the tags that stay visible."""
    families: dict[bytes, list[tuple[tuple, int]]] = {}
    keep: set[int] = set()
    for i, name in enumerate(names):
        key = version_key(name)
        if key is None:
            keep.add(i)  # no version: it stays
        else:
            families.setdefault(key[0], []).append((key[1], i))
    for members in families.values():
        members.sort()
        keep.update(i for _, i in members[: settings.keep_oldest])
        keep.update(i for _, i in members[-settings.keep_newest :] if settings.keep_newest)
        newest = members[-1][0][0]
        keep.update(i for key, i in members if key[0][:2] == newest[:2])  # the newest major.minor series
        by_major: dict[int, int] = {}
        for key, i in members:  # ascending: the last one of each major wins
            by_major[key[0][0]] = i
        keep.update(by_major.values())
    return keep


SUMMARY_EST = 260  # bytes of the closing summary line of a folded tag list (about 230 with its marker)


def _runs_to_fold(raw: bytes, lines: list[Line], names: list[bytes], keep: set[int], room: int) -> list:
    """The runs of tags not kept (``kept_tags``) that fold, in order, as ``(first, end, hint line)``: the
    runs that save the most first, only as many as it takes to fit ``room`` (a run of 1 or 2 tags costs
    less shown than as a hint: never)."""
    runs = []
    i, n = 0, len(lines)
    while i < n:
        if i in keep:
            i += 1
            continue
        j = i
        while j < n and j not in keep:
            j += 1
        if j - i >= 3:
            runs.append((*_fold(lines, names, i, j), i, j))
        i = j
    size = len(raw) + SUMMARY_EST
    chosen = []
    for saving, hint, i, j in sorted(runs, key=lambda r: -r[0]):
        if size <= room:
            break
        if size - saving < room:  # the whole run would leave room unused: its first tags stay, the rest folds
            i = _partial_start(lines, names, i, j, size - room)
            saving, hint = _fold(lines, names, i, j)
        chosen.append((i, j, hint))
        size -= saving
    return sorted(chosen)


def _fold(lines: list[Line], names: list[bytes], i: int, j: int) -> tuple[int, bytes]:
    """What folding tags ``i``..``j`` saves (their lines less the hint line) and the hint line."""
    first, last = names[i].decode("utf-8", "replace"), names[j - 1].decode("utf-8", "replace")
    hint = f"⋯ {j - i} more tags ({first} … {last})\n".encode()
    return lines[j - 1].end - lines[i].start - len(hint), hint


def _partial_start(lines: list[Line], names: list[bytes], i: int, j: int, need: int) -> int:
    """Where to start folding the run of tags ``i``..``j`` so that it saves ``need`` bytes or more (the
    run's first tags shown): the latest start that does, at most ``j - 3`` (a fold of fewer costs more)."""
    start = j - 3
    while start > i and _fold(lines, names, start, j)[0] < need:
        start -= 1
    return start


def reduce_tags(raw: bytes, lines: list[Line], settings: Settings, budget: int) -> Plan:
    """A tag list that fits in ``budget`` bytes (the output ceiling) is shown whole; a longer one folds
    its runs of middle tags, the longest first, until it fits what the ceiling leaves uncut (``target``)."""
    names = [tag_name(raw, line) for line in lines]
    if len(lines) <= settings.fold_min or len(raw) <= budget:
        return passthrough(raw)
    room = target(budget)
    keep = kept_tags(names, settings)
    keep.update(i for i, line in enumerate(lines) if SIGNAL_RE.search(raw, line.start, line.body_end))
    plan = Plan(raw)
    folded = 0
    for i, j, hint in _runs_to_fold(raw, lines, names, keep, room):
        plan.keep(plan.position, lines[i].start)
        plan.omit(lines[i].start, lines[j - 1].end, TAGS, TAGS_REASON)
        plan.show((b"" if plan.ends_line() else b"\n") + hint)
        folded += j - i
    plan.keep_rest()
    if not folded:
        return plan.finish()
    n = len(lines)
    shown = n - folded
    plan.show((b"" if plan.ends_line() else b"\n") + f"[git tag: {n:,} tags, {shown:,} shown (runs of middle versions "
              f"folded, the longest first; the newest {settings.keep_newest} and oldest {settings.keep_oldest} of each "
              f"family, the newest series, the newest of each major, every tag without a version stay); every tag: ".encode())
    plan.mark(TAGS)
    plan.show(b"]\n")
    return plan.finish()


# -- the content type -----------------------------------------------------------------------------


def reduce(raw: bytes, granularity: str, config) -> Plan:
    lines = split_lines(raw)
    nonblank = [line for line in lines if line.body_end > line.start]
    if not nonblank:
        return passthrough(raw)
    first = raw[nonblank[0].start : nonblank[0].body_end]
    if STATUS_START_RE.match(first) or STATUS_SECTION_RE.search(raw[:4096]):
        return reduce_status(raw, lines)
    if _is_tag_list([raw[ln.start : ln.body_end] for ln in nonblank[:400]]):
        return reduce_tags(raw, lines, section(config, NAME), section(config, "ceiling").room_for(len(raw)))
    return passthrough(raw)  # short status, branch lists: every line is signal


def _is_tag_list(lines: list[bytes]) -> bool:
    if len(lines) < 5:
        return False
    names = []
    annotated = 0
    for line in lines:
        if line[:1].isspace() or line.startswith((b"-", b"#")):
            return False
        name, _, note = line.partition(b" ")
        annotated += bool(note.strip())
        names.append(name)
    if annotated and annotated < 0.9 * len(lines) or annotated and b"    " not in lines[0]:
        return False  # git tag -n pads each name to 15 columns; a line of words is not a tag list
    if any(FILE_EXT_RE.search(name) for name in names):
        return False
    if sum(1 for name in names if IPV4_RE.fullmatch(name)) > 0.3 * len(names):
        return False
    versioned = sum(1 for name in names if version_key(name) is not None)
    return versioned >= 0.7 * len(names) and len(set(names)) == len(names)


def detect(sample) -> str | None:
    if not maybe.gitstatus(sample):
        return None  # no first line of a status, a branch list or a tag list
    lines = [line.rstrip(b"\r") for line in sample.lines[:400]]
    if not lines:
        return None
    if STATUS_START_RE.match(lines[0]) and STATUS_SECTION_RE.search(sample.head[:4096]):
        return "git status (long form)"
    if _is_short_status(lines):
        return "git status --short lines (XY path)"
    if _is_branch_list(lines):
        return "git branch list"
    if _is_tag_list(lines):
        return "git tag list (version-like names)"
    return None


def _is_short_status(lines: list[bytes]) -> bool:
    return len(lines) >= 2 and all(SHORT_RE.fullmatch(line) for line in lines) \
        and any(not line.startswith((b"## ", b"   ")) for line in lines)


def _is_branch_list(lines: list[bytes]) -> bool:
    """One branch a line, at most one current (``*``), and a sign it is git's: a current branch, a
    remote branch or a symbolic ref (``->``)."""
    if len(lines) < 2 or not all(BRANCH_RE.fullmatch(line) for line in lines):
        return False
    current = sum(1 for line in lines if line.startswith(b"* "))
    return current <= 1 and bool(current or any(b"remotes/" in line or b" -> " in line for line in lines))


def facts(packet):
    from operators.types import Facts

    raw = packet.raw
    lines = [raw[ln.start : ln.body_end] for ln in split_lines(raw) if ln.body_end > ln.start]
    paths = [line for line in lines if line.startswith(b"\t") or SHORT_RE.fullmatch(line) and not line.startswith(b"## ")]
    if paths:
        from operators.overview import IMPORTANT_MAX, clip

        return Facts(f"{len(paths):,} changed or untracked paths", [clip(p.strip()) for p in paths[:IMPORTANT_MAX]], len(paths))
    if _is_tag_list(lines[:400]):
        return Facts(f"{len(lines):,} tags", [], 0)
    return Facts(f"{len(lines):,} lines", [], 0)


PACK_CONTEXT = False  # each path or name is signal on its own


def tier(text: bytes, shown: bytes, config):
    """Pack tiers: every path and branch line is signal; the status' own lines are context."""
    if text.startswith(b"\t") or SHORT_RE.fullmatch(text) or BRANCH_RE.fullmatch(text):
        return 0, 0
    if STATUS_START_RE.match(text) or STATUS_SECTION_RE.match(text):
        return 0, 1
    return None


def rank_lines(lines: list[bytes], config) -> list[tuple[int, int] | None]:
    """A tag list (what is left of it after folding) ranks its tags as an even spread: the first and
    the last, then the middle, then the quarters …, so whatever part of it a budget keeps is spread
    over the whole list; the fold and note lines (the counts) before them. As tags are not signal
    lines of one template each, they rank in tier 1. A branch list ranks the same way, its current
    branch (``*``) first. Other outputs: ``tier`` line by line."""
    bodies = [line.rstrip(b"\r") for line in lines]
    names = [i for i, b in enumerate(bodies) if b.strip() and not _tag_note(b)]
    head = [bodies[i] for i in names[:400]]
    branches = _is_branch_list(head)
    if not branches and not _is_tag_list(head):
        return [tier(b, b, config) for b in bodies]
    out: list[tuple[int, int] | None] = [None] * len(lines)
    for i, b in enumerate(bodies):
        if _tag_note(b):
            out[i] = (1, 0)
    if branches:  # the current branch first; the others spread like tags
        current = [i for i in names if bodies[i].startswith(b"* ")]
        for i in current:
            out[i] = (0, 0)
        names = [i for i in names if i not in current]
    n = len(names)
    top = max(0, (n - 2).bit_length() - 1)  # the most trailing zero bits an inner position can have
    for k, i in enumerate(names):
        if k in (0, n - 1):
            out[i] = (1, 1)
        else:
            trailing = (k & -k).bit_length() - 1
            out[i] = (1, 2 + top - trailing)
    return out


def _tag_note(body: bytes) -> bool:
    return body.startswith((b"[git tag:", "⋯ ".encode()))
