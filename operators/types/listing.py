"""Directory listings: ``ls -l``/``-la`` (and ``ls -lR``), ``ls -R``, ``tree`` and ``du``/``du -h``.

Every top-level entry of a listing stays visible; the rest folds with counts, behind refs.

* ``ls -l``: each entry line keeps its type (``d``, ``l``, ``-`` …), its size and its name (a
  symlink's ``-> target`` too); the mode bits, link count and date go to one ref (group ``columns``),
  and so do the owner and group when they are the same on every line. A note line on top names the
  values left out. ``total N`` lines, headers and anything else stay.
* ``ls -R`` (with or without ``-l``): every directory header (``./dir:``) stays; the first section
  (the top level) keeps all its entries exactly as printed (``ls -lR``: every column); another
  section keeps its first ``max_entries`` entries (``-l``: shortened as above) and the others
  become one line ``… N more entries`` (group ``entries``).
* ``tree``: every top-level entry and the summary line (``N directories, M files``) stay; an entry
  deeper than ``max_depth`` levels, or past the first ``max_entries`` of its directory, folds with the
  others of its run into one line ``… N more entries`` drawn at the place of the first (group ``entries``).
* ``du``: every line stays (each is a size the agent asked for); over the output ceiling the
  ranking keeps each total and its top-level entries first, then the biggest.

An ``ls -l`` listing no longer than the ceiling's target (``target_chars``: 12,500 bytes under Claude
Code's ceiling, 9,000 under Codex's) folds no section: every entry's name stays (its columns still
shortened), as a file list's does (``ls -la a b c``: each directory was asked for).

``rank_lines`` ranks the lines for the ceiling: top-level entries first, then deeper levels.

``find`` output is the ``filelist`` type. A listing whose folding would save little passes through.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Annotated

import msgspec

from operators.config import Section, section
from operators.reduction import Plan, passthrough
from operators.types.gitlog import Line, split_lines
from operators.relazy import lazy  # patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first

NAME = "listing"
SIGNALS = ""

COLUMNS, COLUMNS_REASON = "columns", "ls -l mode, links, owner, group and date columns"
ENTRIES, ENTRIES_REASON = "entries", "listing entries past the shown ones"
MIN_SAVING = 300  # bytes, and MIN_SHARE of the listing: a smaller saving is not worth a ref and its hint line
MIN_SHARE = 0.1


ALL = 1 << 30  # entries a section of an ``ls -l`` listing under the ceiling's target shows


class Settings(Section):
    max_entries: Annotated[int, msgspec.Meta(ge=1)] = 12  # entries shown per directory below the top level
    max_depth: Annotated[int, msgspec.Meta(ge=1)] = 3  # tree levels shown
    keep_biggest: Annotated[int, msgspec.Meta(ge=0)] = 15  # unused: du lines all stay (kept for old config files)


LONG_RE = lazy(
    rb"([-dlcbpsDn?])([rwxsStTlL-]{9}[.+@]?)( +\d+)( +\S+)( +\S+)( +(?:\d+, +)?[\d.,]+[KMGTPE]?)"
    rb"( +(?:[A-Z][a-z]{2} +\d{1,2} +(?:\d{4}|\d\d:\d\d)|\d{1,2} +[A-Za-z]{3}\.? +(?:\d{4}|\d\d:\d\d)"
    rb"|\d{4}-\d\d-\d\d(?:[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?: [+-]\d{4})?)?))( .*)"
)
TOTAL_RE = lazy(rb"total \d[\d.,]*[KMGTPE]?")
HEADER_RE = lazy(rb"\S.*:")
TREE_RE = lazy(r"^((?:[│|](?:\s|\xa0){3}|(?:\s|\xa0){4})*)(├── |└── |\|-- |`-- )")
TREE_SUMMARY_RE = lazy(rb"\d+ director(?:y|ies)(?:, \d+ files?)?")
DU_RE = lazy(rb"(\d+(?:[.,]\d+)?)([KMGTPE]?)\t([^\t]+)")  # one tab: a log of tab-separated fields is no du
UNITS = {b"": 1, b"K": 1 << 10, b"M": 1 << 20, b"G": 1 << 30, b"T": 1 << 40, b"P": 1 << 50, b"E": 1 << 60}


def _bodies(raw: bytes, lines: list[Line]) -> list[bytes]:
    return [raw[ln.start : ln.body_end] for ln in lines]


def _more(n: int) -> str:
    return f"… {n:,} more entr{'y' if n == 1 else 'ies'}"


def _close(plan: Plan, group: str, text: str) -> Plan:
    plan.keep_rest()
    if group in plan.reasons:
        plan.show((b"" if plan.ends_line() else b"\n") + text.encode())
        plan.mark(group)
        plan.show(b"]\n")
    return plan.finish()


# -- shapes ----------------------------------------------------------------------------------------


def _is_long(lines: list[bytes]) -> bool:
    n = len(lines)
    long = sum(1 for line in lines if LONG_RE.fullmatch(line))
    other = sum(1 for line in lines if TOTAL_RE.fullmatch(line) or HEADER_RE.fullmatch(line) and b": " not in line)
    return long >= 0.6 * n and long + other >= 0.95 * n


def _is_tree(lines: list[bytes]) -> bool:
    n = len(lines)
    tree = sum(1 for line in lines if TREE_RE.match(line.decode("utf-8", "replace")))
    return tree >= 0.8 * (n - 2) and (TREE_SUMMARY_RE.fullmatch(lines[-1]) is not None or tree >= 0.95 * (n - 1))


def _is_recursive(lines: list[bytes]) -> bool:
    n = len(lines)
    headers = sum(1 for line in lines if HEADER_RE.fullmatch(line) and b": " not in line)
    if headers < 2 or not HEADER_RE.fullmatch(lines[0]) or any(line[:1].isspace() for line in lines):
        return False
    return sum(1 for line in lines if b": " in line or line.count(b" ") > 3) <= 0.1 * n


def shape_of(lines: list[bytes]) -> str | None:
    """``long``, ``recursive``, ``tree`` or ``du`` when the non-blank lines are such a listing."""
    if len(lines) < 3:
        return None
    if _is_long(lines):
        return "long"
    if _is_tree(lines):
        return "tree"
    if sum(1 for line in lines if DU_RE.fullmatch(line)) >= 0.95 * len(lines):
        return "du"
    return "recursive" if _is_recursive(lines) else None


def detect(sample) -> str | None:
    if not maybe.listing(sample):
        return None  # no mark of any listing shape (a log, prose)
    lines = [line.rstrip(b"\r") for line in sample.lines[:2000]]
    shape = shape_of(lines)
    return {
        "long": "ls -l lines (mode, links, owner, group, size, date, name)",
        "tree": "tree drawing (├── entries)",
        "du": "du lines (size, tab, path)",
        "recursive": "ls -R sections (dir: headers)",
    }.get(shape or "")


# -- ls -l columns ---------------------------------------------------------------------------------


def _long_lines(raw: bytes, lines: list[Line]) -> dict[int, re.Match]:
    return {ln.start: m for ln in lines if (m := LONG_RE.fullmatch(raw, ln.start, ln.body_end))}


def _pad(m: re.Match, group: int) -> int:
    text = m.group(group)
    return len(text) - len(text.lstrip())


def _columns(plan: Plan, m: re.Match, hide_owner: bool) -> None:
    """Keep the type, the size and the name of one ``ls -l`` line (and the owner and group unless
    ``hide_owner``); the other columns and the padding but one space go to the ref. A directory's
    size (the blocks of its entry table, 4096 on most file systems: no measure of what it holds) goes
    with them."""
    plan.keep(plan.position, m.end(1))
    directory = m.group(1) == b"d"
    if hide_owner:
        plan.omit(m.start(2), m.end(7) if directory else m.start(6) + _pad(m, 6) - 1, COLUMNS, COLUMNS_REASON)
    else:
        plan.omit(m.start(2), m.start(4) + _pad(m, 4) - 1, COLUMNS, COLUMNS_REASON)
        plan.keep(plan.position, m.end(5) if directory else m.start(6))
        plan.omit(plan.position, m.end(7) if directory else m.start(6) + _pad(m, 6) - 1, COLUMNS, COLUMNS_REASON)
    if not directory:
        plan.keep(plan.position, m.end(6))
        plan.omit(m.start(7), m.end(7), COLUMNS, COLUMNS_REASON)


def _column_note(matches: list[re.Match], hide_owner: bool) -> str:
    modes = Counter(m.group(1) + m.group(2) for m in matches).most_common(4)
    said = ", ".join(f"{mode.decode('utf-8', 'replace')} ×{n}" for mode, n in modes)
    owner = ""
    if hide_owner:
        owner = f"owner {matches[0].group(4).strip().decode('utf-8', 'replace')}, group {matches[0].group(5).strip().decode('utf-8', 'replace')}; "
    return f"[ls -l: {len(matches):,} entries shown as type, size, name; {owner}modes {said}; modes, links, dates, directory sizes: "


# -- the reducers ----------------------------------------------------------------------------------


def reduce_long(raw: bytes, lines: list[Line], settings: Settings, fold_sections: bool) -> Plan:
    matches = _long_lines(raw, lines)
    owners = {(m.group(4).strip(), m.group(5).strip()) for m in matches.values()}
    hide_owner = len(owners) == 1
    folded = _section_folds(raw, lines, settings) if fold_sections else {}
    top_end = _first_section_end(raw, lines) if fold_sections else 0
    plan = Plan(raw)
    hidden = 0
    i = 0
    while i < len(lines):
        ln = lines[i]
        fold = folded.get(i)
        if fold is not None:
            end, count, pad = fold
            plan.keep(plan.position, ln.start)
            plan.omit(ln.start, lines[end - 1].end, ENTRIES, ENTRIES_REASON)
            plan.show(f"{pad}{_more(count)}\n".encode())
            hidden += count
            i = end
            continue
        m = matches.get(ln.start)
        if m is not None and i >= top_end:
            _columns(plan, m, hide_owner)
        i += 1
    shortened = [m for start, m in matches.items() if start >= lines[top_end].start] if top_end < len(lines) else []
    note = _column_note(shortened, hide_owner) if shortened else ""
    plan.keep_rest()
    if ENTRIES in plan.reasons:
        plan.show((b"" if plan.ends_line() else b"\n") + f"[{hidden:,} entries of big directories folded; exact lines: ".encode())
        plan.mark(ENTRIES)
        plan.show(b"]\n")
    if COLUMNS in plan.reasons:
        plan.show((b"" if plan.ends_line() else b"\n") + note.encode())
        plan.mark(COLUMNS)
        plan.show(b"]\n")
    return plan.finish()


def _first_section_end(raw: bytes, lines: list[Line]) -> int:
    """``ls -lR``: the index of the line after the top-level section (its lines stay as printed: the
    entries an agent asked about first); 0 when the listing has one section (``ls -l``)."""
    bodies = _bodies(raw, lines)
    headers = [i for i, b in enumerate(bodies) if HEADER_RE.fullmatch(b) and b": " not in b
               and (i == 0 or not bodies[i - 1].strip())]
    if len(headers) < 2:
        return 0
    return headers[1]


def _section_folds(raw: bytes, lines: list[Line], settings: Settings) -> dict[int, tuple[int, int, str]]:
    """ls -R: line index -> (end index, entries, pad) of each run of entries to fold (not in the first section)."""
    folds: dict[int, tuple[int, int, str]] = {}
    bodies = _bodies(raw, lines)
    section = 0
    i = 0
    while i < len(bodies):
        body = bodies[i]
        if HEADER_RE.fullmatch(body) and (i == 0 or not bodies[i - 1].strip()):
            section += 1
            j = i + 1
            while j < len(bodies) and bodies[j].strip():
                j += 1
            entries = [k for k in range(i + 1, j) if not TOTAL_RE.fullmatch(bodies[k])]
            if section > 1 and len(entries) > settings.max_entries + 2:
                first = entries[settings.max_entries]
                folds[first] = (j, j - first, "")
            i = j
        else:
            i += 1
    return folds


def reduce_tree(raw: bytes, lines: list[Line], settings: Settings) -> Plan:
    plan = Plan(raw)
    counters: list[int] = []
    run: list[int] = []  # indexes of the hidden lines of the current run

    def flush() -> None:
        if not run:
            return
        first, last = lines[run[0]], lines[run[-1]]
        text = raw[first.start : first.body_end].decode("utf-8", "replace")
        m = TREE_RE.match(text)
        pad = (m.group(1) + m.group(2)) if m else ""
        plan.keep(plan.position, first.start)
        plan.omit(first.start, last.end, ENTRIES, ENTRIES_REASON)
        plan.show(f"{pad}{_more(len(run))}\n".encode())
        run.clear()

    total = 0
    for index, ln in enumerate(lines):
        m = TREE_RE.match(raw[ln.start : ln.body_end].decode("utf-8", "replace"))
        if m is None:
            flush()
            continue
        depth = len(m.group(1)) // 4 + 1
        del counters[depth:]
        while len(counters) < depth:
            counters.append(0)
        counters[depth - 1] += 1
        hide = depth > 1 and (depth > settings.max_depth or counters[depth - 1] > settings.max_entries)
        if hide:
            run.append(index)
            total += 1
        else:
            flush()
    flush()
    return _close(plan, ENTRIES, f"[tree: {total:,} deeper or further entries folded; exact lines: ")


def _du_size(m: re.Match) -> float:
    return float(m.group(1).replace(b",", b".")) * UNITS.get(m.group(2), 1)


def reduce(raw: bytes, granularity: str, config) -> Plan:
    lines = split_lines(raw)
    bodies = [b for b in _bodies(raw, lines[:2000]) if b.strip()]
    shape = shape_of(bodies)
    settings = section(config, NAME)
    if shape == "long" and len(raw) <= section(config, "ceiling").target_chars:  # every entry stays
        settings = msgspec.structs.replace(settings, max_entries=ALL)
    if shape in ("long", "recursive"):
        plan = reduce_long(raw, lines, settings, fold_sections=True)
    elif shape == "tree":
        plan = reduce_tree(raw, lines, settings)
    elif shape == "du":
        return passthrough(raw)  # every du line is a size an agent asked for; over the ceiling, rank_lines chooses
    else:
        return passthrough(raw)
    return plan if _saving(plan) >= max(MIN_SAVING, MIN_SHARE * len(raw)) else passthrough(raw)


def _saving(plan: Plan) -> int:
    omitted = sum(e - s for k, s, e in zip(plan.pieces.kinds, plan.pieces.starts, plan.pieces.ends) if k == 2)
    shown = sum(len(o) for k, o in zip(plan.pieces.kinds, plan.pieces.objs) if k == 1)
    return omitted - shown - 20 * sum(1 for k in plan.pieces.kinds if k == 3)


def facts(packet):
    from operators.types import Facts

    raw = packet.raw
    bodies = [b for b in _bodies(raw, split_lines(raw)) if b.strip()]
    shape = shape_of(bodies[:2000]) or "listing"
    summary = [b.decode("utf-8", "replace") for b in bodies[-1:] if TREE_SUMMARY_RE.fullmatch(b)]
    return Facts(f"{len(bodies):,} lines ({shape})", summary, len(summary))


PACK_CONTEXT = False


def rank_lines(lines: list[bytes], config) -> list[tuple[int, int] | None]:
    """Tiers for the ceiling and the packer. ``du``: every line is must-see, the total and the top
    level first, then by size (biggest first). ``tree``: the summary and every top-level entry, then
    the deeper levels one by one. ``ls -R``/``-lR``/``-l``: the top-level section and ``total``
    lines, then every directory header, then each section's entries (every section's first before
    any section's second). Notes (``[…]``, ``… N more``) are context."""
    bodies = [line.rstrip(b"\r") for line in lines]
    entries = [b for b in bodies if b.strip()]
    if entries and sum(1 for b in entries if DU_RE.fullmatch(b)) >= 0.8 * len(entries):
        return _rank_du(bodies)
    if entries and sum(1 for b in entries if TREE_RE.match(b.decode("utf-8", "replace"))) >= 0.5 * len(entries):
        return _rank_tree(bodies)
    return _rank_sections(bodies)


def _note(body: bytes) -> bool:
    return body.startswith(b"[") or body.lstrip(" │|`-├└─\xa0".encode()).startswith("…".encode())


def _rank_du(bodies: list[bytes]) -> list[tuple[int, int] | None]:
    """Each argument's total (a path below no other listed one) and its entries one level down
    first, then the others by size, biggest first."""
    found = {i: m for i, b in enumerate(bodies) if (m := DU_RE.fullmatch(b))}
    paths = {i: m.group(3).rstrip(b"/") or b"/" for i, m in found.items()}
    listed = set(paths.values())
    roots = {p for p in listed if not any(a in listed for a in _ancestors(p))}
    top = {i for i, p in paths.items() if p in roots or p.rpartition(b"/")[0] in roots}
    by_size = sorted((i for i in found if i not in top), key=lambda i: -_du_size(found[i]))
    place = {i: n + 1 for n, i in enumerate(by_size)}
    out: list[tuple[int, int] | None] = []
    for i, body in enumerate(bodies):
        if i in found:
            out.append((0, 0) if i in top else (0, place[i]))
        else:
            out.append((1, 0) if body.strip() else None)
    return out


def _ancestors(path: bytes) -> list[bytes]:
    out = []
    while b"/" in path.strip(b"/"):
        path = path.rpartition(b"/")[0]
        out.append(path)
    return out


def _rank_tree(bodies: list[bytes]) -> list[tuple[int, int] | None]:
    out: list[tuple[int, int] | None] = []
    for body in bodies:
        m = TREE_RE.match(body.decode("utf-8", "replace"))
        if TREE_SUMMARY_RE.fullmatch(body):
            out.append((0, 0))
        elif m is None or _note(body):
            out.append((1, 0) if body.strip() else None)
        else:
            depth = len(m.group(1)) // 4 + 1
            out.append((0, 1) if depth == 1 else (1, depth))
    return out


def _rank_sections(bodies: list[bytes]) -> list[tuple[int, int] | None]:
    out: list[tuple[int, int] | None] = []
    section, position = 0, 0
    for i, body in enumerate(bodies):
        if not body.strip():
            out.append(None)
        elif HEADER_RE.fullmatch(body) and b": " not in body and (i == 0 or not bodies[i - 1].strip()):
            section += 1
            position = 0
            out.append((0, 0) if section == 1 else (0, 2))
        elif TOTAL_RE.fullmatch(body):
            out.append((0, 1))
        elif _note(body):
            out.append((1, 0))
        elif section <= 1:
            out.append((0, 1))
        else:
            position += 1
            out.append((1, position))
    return out
