"""git blame: consecutive lines of one commit share one header; every code line stays.

Default form (``hash [file] (author date time zone lineno) code``): the first line of a run of
lines from the same commit stays whole, so its hash, author and date are shown once per run; on
the run's other lines the ``hash (author date time zone`` part goes behind the ref and the line
number (aligned as git printed it) and the code stay: ``  12) code``. A line holding a signal word
(error, failed, …: ``operators.vocab.SIGNAL_RE``) stays whole, and so does a definition line
(``def``/``class``/``fn``/``func``/``function`` signatures, by the language of the code column:
``is_signature``), exactly as git printed it, so that it can be searched for and copied.

``--porcelain`` and ``--line-porcelain``: the first entry of a run keeps its ``<hash> <orig>
<final> <count>`` line and its ``author`` and ``summary`` lines; the other key lines (mail, times,
zones, committer, previous, filename, boundary) and, inside a run, the repeated header lines go
behind the ref (a key line with a signal word is shown the first time it occurs: a file named
``errors.py``). Every ``\\t``-prefixed code line stays.

``-s`` (no author or date): the first line of a run stays whole, the others keep their line number
and code.

Everything omitted goes to one ref (group ``blame``), named by one marker line at the end.

The budget: a default-form blame whose view is larger than ``ROOM_SHARE`` of the output ceiling
fits itself by its definitions: every definition line, the same number of lines after each (its
docstring, its first statements: as many as fit, at most ``AFTER_MAX``) and the file's first lines
stay; each stretch in between is counted in place (``[… 23 lines]``) and kept in one ref (group
``lines``). A blame without definitions (prose) is left to the output ceiling. Under a smaller budget
(``rank_lines``) the definition lines come first, then the lines right after them, then the head and
the tail.
"""

from __future__ import annotations

import re

from operators.config import section
from operators.reduction import Plan, passthrough
from operators.types.gitlog import Line, split_lines
from operators.vocab import SIGNAL_RE
from operators.types.source import SIGNATURE_RES, language
from operators.relazy import lazy  # patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first

NAME = "gitblame"
SIGNALS = ""  # the lines are code: a signal word in them is the code's own (as for source); definitions are ranked first
FILL = True  # cut to a budget, its every line is content: the head and tail fill what the ranked lines leave

GROUP, REASON = "blame", "repeated blame headers (hash, author, date) and porcelain key lines"
MIN_GAIN = 64

BLAME_RE = lazy(rb"(\^?[0-9a-f]{4,40}) (?:[^(\r\n]*?)\((.*?) +(\d+)\) ?")
# git blame -s: no author or date, the file name when blame followed the lines across files
BLAME_S_RE = re.compile(rb"(\^?[0-9a-f]{4,40}) ((?:[^()\s][^()\r\n]*? )?) *(\d+)\) ?")
PORCELAIN_HEAD_RE = lazy(rb"([0-9a-f]{40}) \d+ \d+(?: \d+)?\r?$")
PORCELAIN_KEPT = (b"author ", b"summary ")


# JS: a function assigned to a name or a member (``Axios.prototype.request = function(config) {``)
JS_ASSIGNED_FN_RE = lazy(rb"^\s*[\w$.\[\]'\"]+\s*=\s*(?:async\s+)?function\b")
# Rust: type aliases and unions are items too
RUST_ITEM_RE = lazy(rb"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:type|union)\s+\w+")
EXTRA_SIGNATURE_RES = {"js": JS_ASSIGNED_FN_RE, "rust": RUST_ITEM_RE}


COMMENT_RE = lazy(rb"^\s*(?://|/\*|\*|#(?!\[))")  # doc comments hold examples in other syntaxes


def code_language(codes: list[bytes]) -> str:
    """The language of a blame's code column (``operators.types.source.language``), its comment
    lines left out (a Rust doc comment's example is no JS); when the definitions of another language
    are more than twice as many as those of that guess (Rust's ``=>`` looks like JS), that language."""
    code = [c for c in codes[:4000] if not COMMENT_RE.match(c)][:2000]
    guess = language(b"\n".join(code))
    counts = {lang: sum(1 for c in code if pattern.match(c)) for lang, pattern in SIGNATURE_RES.items()
              if lang not in ("c", "shell")}  # their patterns also match other languages' lines
    best = max(counts, key=counts.__getitem__)
    return best if counts[best] > 2 * counts.get(guess, 0) else guess


def is_signature(code: bytes, lang: str) -> bool:
    """Whether a code line is a definition (a def/class/fn/func/function signature) in ``lang``."""
    pattern = SIGNATURE_RES.get(lang)
    if pattern is not None and pattern.match(code):
        return True
    extra = EXTRA_SIGNATURE_RES.get(lang)
    return extra is not None and extra.match(code) is not None


def run_key(match: re.Match) -> bytes:
    return match.group(1).lstrip(b"^")


def reduce_default(raw: bytes, lines: list[Line], room: int = 0) -> Plan | None:
    """The default form; None when a line does not fit it (left to the caller). With ``room`` (bytes),
    a view larger than that keeps every definition line and the lines after it (``_selection``)."""
    matches = []
    for line in lines:
        m = BLAME_RE.match(raw, line.start, line.body_end) or BLAME_S_RE.match(raw, line.start, line.body_end)
        if m is None and line.body_end > line.start:
            return None
        matches.append(m)
    width = max((len(m.group(3)) for m in matches if m), default=0)
    lang = code_language([raw[m.end() : line.body_end] for line, m in zip(lines, matches) if m])
    sig = [m is not None and is_signature(raw[m.end() : line.body_end], lang) for line, m in zip(lines, matches)]
    plan = _walk(raw, lines, matches, _DefaultWalk(raw, width, lang))
    if not room or _visible(plan) <= room or not any(sig):
        return plan
    cost = _costs(lines, matches, sig)
    tries = [(after, HEAD_LINES) for after in range(AFTER_MAX, -1, -1)] + [(0, 0)]
    for after, head in tries:
        shown = _selection(sig, after, head)
        if head and _estimate(shown, cost) > ESTIMATE_SLACK * room:  # clearly over: not built
            continue
        plan = _walk(raw, lines, matches, _DefaultWalk(raw, width, lang), shown)
        if not head or _visible(plan) <= room:
            break
    return plan


def _walk(raw: bytes, lines: list[Line], matches: list, walk: "_DefaultWalk", shown: list[bool] | None = None) -> Plan:
    """The plan of the lines, those that ``shown`` leaves out (when given) replaced by ``[… N lines]``."""
    plan, hidden = walk.plan, 0
    for i, (line, m) in enumerate(zip(lines, matches)):
        if shown is not None and not shown[i]:
            walk.hide(line)
            hidden += 1
            continue
        if hidden:
            plan.show(f"[\u2026 {hidden:,} lines]\n".encode())
            hidden = 0
        if m is not None:
            walk.line(line, m)
    plan.keep_rest()
    if hidden:
        plan.show((b"" if plan.ends_line() else b"\n") + f"[\u2026 {hidden:,} lines]\n".encode())
    if walk.hidden:
        plan.show(f"[{walk.hidden:,} lines between the definitions not shown, to fit the output ceiling: ".encode())
        plan.mark(BODY_GROUP)
        plan.show(b"]\n")
    return _finish(plan, walk.omitted, f"{walk.runs:,} runs of lines from one commit; author and date "
                   "on a commit's first run, its hash on each run")


def _visible(plan: Plan) -> int:
    from operators.ceiling import visible_size

    return visible_size(plan)


ROOM_SHARE = 0.9  # of the ceiling's target a blame fits itself to (by its definitions) before any cut
FITS = True  # ... so the ceiling cuts it at the budget only (its definition lines may need more)
AFTER_MAX = 12  # lines shown after each definition when the whole blame is over the room
HEAD_LINES = 12  # lines shown at the top of the file then
FOLD_LINE = 16  # bytes a "[… N lines]" line takes
RUN_HEAD = 24  # bytes a run's hash adds to its first line shown
ESTIMATE_SLACK = 1.25  # a selection estimated this much over the room is not tried (the estimate is rough)


def _costs(lines: list[Line], matches: list, sig: list[bool]) -> list[int]:
    """Bytes each line takes when shown (about: a definition whole, another line its code)."""
    cost = [(line.end - m.end() + 8) if m is not None else 1 for line, m in zip(lines, matches)]
    for i, s in enumerate(sig):
        if s:
            cost[i] = lines[i].end - lines[i].start
    return cost


def _selection(sig: list[bool], after: int, head: int) -> list[bool]:
    """The lines shown when a blame is fitted to the room: every definition line and ``after`` lines
    after each (its docstring, its first statements), and the first ``head`` lines of the file."""
    n = len(sig)
    shown = [False] * n
    for i in range(min(n, head)):
        shown[i] = True
    for i in (i for i, s in enumerate(sig) if s):
        for k in range(i, min(n, i + after + 1)):
            shown[k] = True
    return shown


def _estimate(shown: list[bool], cost: list[int]) -> int:
    total, prev = 0, True
    for flag, c in zip(shown, cost):
        if flag:
            total += c + (0 if prev else RUN_HEAD)
        elif prev:
            total += FOLD_LINE
        prev = flag
    return total


BODY_GROUP = "lines"
BODY_REASON = "blame lines not shown to fit the output ceiling"


class _DefaultWalk:
    """The plan of a default-form blame, line by line: which commit the run is of, which commits
    were introduced already."""

    def __init__(self, raw: bytes, width: int, lang: str = "code"):
        self.raw, self.width, self.lang = raw, width, lang
        self.plan = Plan(raw)
        self.prev: bytes | None = None
        self.seen: set[bytes] = set()
        self.last_file: bytes | None = None
        self.omitted = self.runs = self.hidden = 0

    def hide(self, line: Line) -> None:
        """A line not shown (the view is fitted to the room): the next line shown starts a run."""
        self.plan.keep(self.plan.position, line.start)
        self.plan.omit(line.start, line.end, BODY_GROUP, BODY_REASON)
        self.omitted += line.end - line.start
        self.hidden += 1
        self.prev = None

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
        if SIGNAL_RE.search(raw, line.start, line.body_end) or is_signature(raw[m.end() : line.body_end], self.lang):
            self.prev = key  # a signal or definition line stays whole, and shows its commit
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
    if GROUP not in plan.reasons:
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
    plan = reduce_default(raw, lines, int(section(config, "ceiling").target_chars * ROOM_SHARE))
    return plan if plan is not None else passthrough(raw)


def detect(sample) -> str | None:
    if not maybe.gitblame(sample):
        return None  # too few lines starting with a commit hash
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


NUMBER_ONLY_RE = lazy(rb" *\d+\) ?")  # a run's later line as shown: the line number and the code


def _code_of(line: bytes) -> bytes | None:
    """The code column of a blame line as git printed it or as this type shows it; None for others."""
    if line[:1] == b"\t":
        return line[1:]  # porcelain
    m = BLAME_RE.match(line) or BLAME_S_RE.match(line) or NUMBER_ONLY_RE.match(line)
    return line[m.end() :] if m else None


def rank_lines(lines: list[bytes], config) -> list[tuple[int, int] | None]:
    """Under a budget the definition lines come first (tier 0), in order; a line of code with a
    signal word is context (tier 1: in a blame it is the code's own word, not a failure); the
    rest is left to the general rules (markers are context, the lines after a definition too)."""
    codes = [_code_of(line.rstrip(b"\r")) for line in lines]
    lang = code_language([c for c in codes if c is not None])
    out: list[tuple[int, int] | None] = []
    for code in codes:
        if code is None:
            out.append(None)
        elif is_signature(code, lang):
            out.append((0, 0))
        else:
            out.append((1, 0) if SIGNAL_RE.search(code) else (2, 0))
    return out


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
