"""git blame: consecutive lines of one commit share one header; every code line stays.

Default form (``hash [file] (author date time zone lineno) code``): the first line of a run of
lines from the same commit stays whole, so its hash, author and date are shown once per run; on
the run's other lines the ``hash (author date time zone`` part goes behind the ref and the line
number (aligned as git printed it) and the code stay: ``  12) code``. A line holding a signal word
(error, failed, …: ``operators.types.log.SIGNAL_RE``) stays whole.

``--porcelain`` and ``--line-porcelain``: the first entry of a run keeps its ``<hash> <orig>
<final> <count>`` line and its ``author`` and ``summary`` lines; the other key lines (mail, times,
zones, committer, previous, filename, boundary) and, inside a run, the repeated header lines go
behind the ref (a key line with a signal word is shown the first time it occurs: a file named
``errors.py``). Every ``\\t``-prefixed code line stays.

``-s`` (no author or date): the first line of a run stays whole, the others keep their line number
and code.

Everything omitted goes to one ref (group ``blame``), named by one marker line at the end.
"""

from __future__ import annotations

import re

from operators.reduction import Plan, passthrough
from operators.types.gitlog import Line, split_lines
from operators.types.log import SIGNAL_RE
from operators.relazy import lazy  # patterns compiled on first use

NAME = "gitblame"
SIGNALS = "lines"

GROUP, REASON = "blame", "repeated blame headers (hash, author, date) and porcelain key lines"
MIN_GAIN = 64

BLAME_RE = lazy(rb"(\^?[0-9a-f]{4,40}) (?:[^(\r\n]*?)\((.*?) +(\d+)\) ?")
# git blame -s: no author or date, the file name when blame followed the lines across files
BLAME_S_RE = re.compile(rb"(\^?[0-9a-f]{4,40}) ((?:[^()\s][^()\r\n]*? )?) *(\d+)\) ?")
PORCELAIN_HEAD_RE = lazy(rb"([0-9a-f]{40}) \d+ \d+(?: \d+)?\r?$")
PORCELAIN_KEPT = (b"author ", b"summary ")


def run_key(match: re.Match) -> bytes:
    return match.group(1).lstrip(b"^")


def reduce_default(raw: bytes, lines: list[Line]) -> Plan | None:
    """The default form; None when a line does not fit it (left to the caller)."""
    matches = []
    for line in lines:
        m = BLAME_RE.match(raw, line.start, line.body_end) or BLAME_S_RE.match(raw, line.start, line.body_end)
        if m is None and line.body_end > line.start:
            return None
        matches.append(m)
    width = max((len(m.group(3)) for m in matches if m), default=0)
    walk = _DefaultWalk(raw, width)
    for line, m in zip(lines, matches):
        if m is not None:
            walk.line(line, m)
    walk.plan.keep_rest()
    return _finish(walk.plan, walk.omitted, f"{walk.runs:,} runs of lines from one commit; author and date "
                   "on a commit's first run, its hash on each run")


class _DefaultWalk:
    """The plan of a default-form blame, line by line: which commit the run is of, which commits
    were introduced already."""

    def __init__(self, raw: bytes, width: int):
        self.raw, self.width = raw, width
        self.plan = Plan(raw)
        self.prev: bytes | None = None
        self.seen: set[bytes] = set()
        self.last_file: bytes | None = None
        self.omitted = self.runs = 0

    def cut(self, start: int, end: int) -> None:
        if end > start:
            self.plan.keep(self.plan.position, start)
            self.plan.omit(start, end, GROUP, REASON)
            self.omitted += end - start

    def line(self, line: Line, m: re.Match) -> None:
        raw = self.raw
        key = run_key(m)
        number = max(m.start(3) - (self.width - len(m.group(3))), m.start(2))  # the aligned line number
        # the file name column (blame -C, or a file renamed in its history): shown when it changes
        file_end = m.end(2) if m.re is BLAME_S_RE else m.start(2) - 1
        file = raw[m.end(1) + 1 : file_end].strip()
        same_file = bool(file) and file == self.last_file
        if SIGNAL_RE.search(raw, line.start, line.body_end):
            self.prev = key  # a signal line stays whole, and shows its commit
            self.runs += key not in self.seen
            self.seen.add(key)
            self.last_file = file
            return
        if key == self.prev:
            self.cut(line.start, number)
            return
        self.prev = key
        self.runs += 1
        if not same_file:
            self.last_file = file
        if m.re is BLAME_S_RE or key in self.seen:  # no author or date, or introduced already: the hash
            self.cut(m.end(1) if same_file else file_end, number - 1)
            return
        self.seen.add(key)
        if same_file:
            self.cut(m.end(1) + 1, m.start(2) - 1)
        who = WHO_RE.match(raw, m.start(2), m.end(2))
        if who is None:
            return  # stays whole
        self.cut(who.end(1) + 1, who.start(2))  # the author's padding
        self.cut(who.end(2), number - 1)  # time and zone


WHO_RE = lazy(rb"(.*?\S) +(\d{4}-\d\d-\d\d)(?: \d\d:\d\d(?::\d\d)?)?(?: [+-]\d{4})? *$")


def head_of(raw: bytes, line: Line) -> re.Match | None:
    return PORCELAIN_HEAD_RE.match(raw, line.start, line.end)


def reduce_porcelain(raw: bytes, lines: list[Line]) -> Plan:
    plan = Plan(raw)
    prev = None
    in_first = False  # inside the key lines of a run's first entry
    omitted = runs = 0

    def cut(line: Line) -> None:
        nonlocal omitted
        plan.keep(plan.position, line.start)
        plan.omit(line.start, line.end, GROUP, REASON)
        omitted += line.end - line.start

    signals: set[bytes] = set()  # key lines with a signal word shown once (a file named errors.py)
    for line in lines:
        if raw[line.start : line.start + 1] == b"\t":
            continue  # a code line stays
        if SIGNAL_RE.search(raw, line.start, line.body_end):
            text = raw[line.start : line.body_end]
            if text not in signals:
                signals.add(text)
                if head_of(raw, line) is None:
                    continue  # stays
        head = head_of(raw, line)
        if head:
            in_first = head.group(1) != prev
            if in_first:
                prev = head.group(1)
                runs += 1
            else:
                cut(line)
            continue
        if not (in_first and raw.startswith(PORCELAIN_KEPT, line.start)):
            cut(line)
    plan.keep_rest()
    return _finish(plan, omitted, f"{runs:,} runs of lines from one commit; author and summary once a run")


def _finish(plan: Plan, omitted: int, what: str) -> Plan:
    if not plan.omits_anything:
        return plan.finish()
    text = f"[git blame: {what}; the omitted headers: ".encode()
    text = (b"" if plan.ends_line() else b"\n") + text
    plan.show(text)
    plan.mark(GROUP)
    plan.show(b"]\n")
    if omitted - len(text) - 20 < MIN_GAIN:
        return passthrough(plan.raw)
    return plan.finish()


def reduce(raw: bytes, granularity: str, config) -> Plan:
    lines = split_lines(raw)
    if lines and PORCELAIN_HEAD_RE.match(raw, lines[0].start, lines[0].end):
        return reduce_porcelain(raw, lines)
    plan = reduce_default(raw, lines)
    return plan if plan is not None else passthrough(raw)


def detect(sample) -> str | None:
    lines = sample.lines[:300]
    if len(lines) < 2:
        return None
    first = lines[0].rstrip(b"\r")
    if PORCELAIN_HEAD_RE.match(first) and any(line.startswith(b"author ") for line in lines[1:14]) \
            and any(line.startswith(b"\t") for line in lines[1:20]):
        return "git blame --porcelain entries"
    fit = sum(1 for line in lines if BLAME_RE.match(line) and b"-" in line[:120])
    if fit >= 0.9 * len(lines):
        return f"{fit}/{len(lines)} lines are git blame lines (hash (author date line) code)"
    return _detect_short(lines)


def _detect_short(lines: list[bytes]) -> str | None:
    """``git blame -s``: hash, line number counting up, code; hashes repeat (runs of one commit)."""
    found = [BLAME_S_RE.match(line) for line in lines]
    if len(lines) < 5 or not all(found):
        return None
    numbers = [int(m.group(3)) for m in found]
    rising = sum(1 for a, b in zip(numbers, numbers[1:]) if b == a + 1)
    hashes = {m.group(1) for m in found}
    widths = {len(h) for h in hashes}  # a boundary commit is "^" and one hex digit less
    if rising >= 0.9 * (len(numbers) - 1) and len(hashes) < len(lines) and max(widths) - min(widths) <= 1:
        return f"{len(lines)} lines are git blame -s lines (hash line) code)"
    return None


def facts(packet):
    from operators.types import Facts

    raw = packet.raw
    commits: dict[bytes, None] = {}
    n = 0
    for line in split_lines(raw):
        m = BLAME_RE.match(raw, line.start, line.body_end) or PORCELAIN_HEAD_RE.match(raw, line.start, line.end)
        if m:
            commits.setdefault(m.group(1).lstrip(b"^")[:8], None)
            n += 1
    return Facts(f"{n:,} lines from {len(commits):,} commits", [], 0)
