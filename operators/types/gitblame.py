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
from array import array
from functools import partial
from itertools import compress, islice
from operator import sub

from operators.config import section
from operators.kernel import blame_columns
from operators.reduction import Plan, passthrough
from operators.types.gitlog import Line, LineTable
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
    counts = {lang: len(list(filter(None, map(pattern.match, code)))) for lang, pattern in SIGNATURE_RES.items()
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


def _match(raw: bytes, start: int, body_end: int) -> re.Match | None:
    """A default-form (or ``-s``) line's match, None for another line."""
    return BLAME_RE.match(raw, start, body_end) or BLAME_S_RE.match(raw, start, body_end)


def _columns(raw: bytes, lines: LineTable) -> tuple[array, int] | None:
    """Where each line's code column starts (-1: an empty line) and the widest line number, from one
    pass over the whole text (``operators.kernel.blame_columns``: the default-form lines); the first
    line and those the pass skips are matched one by one (``-s`` lines, empty lines); None when a line
    is not a blame line. No match object is kept."""
    code, width = blame_columns(raw, lines.starts)
    i = -1
    try:
        while True:
            i = code.index(-1, i + 1)
            width = _skipped(raw, lines, i, code, width)
            if width < 0:
                return None
    except ValueError:
        return code, width


def _skipped(raw: bytes, lines: LineTable, i: int, code: array, width: int) -> int:
    """The widest line number so far after line ``i``, which ``BLAME_SCAN`` skipped: a ``-s`` line (its
    code column noted) or an empty line; -1 for another line."""
    start, body_end = lines.starts[i], lines.bodies[i]
    m = _match(raw, start, body_end)
    if m is None:
        return width if body_end <= start else -1
    code[i] = m.end()
    return max(width, len(m.group(3)))


def reduce_default(raw: bytes, lines: LineTable, room: int = 0) -> Plan | None:
    """The default form; None when a line does not fit it (left to the caller). With ``room`` (bytes),
    a view larger than that keeps every definition line and the lines after it (``_selection``)."""
    columns = _columns(raw, lines)
    if columns is None:
        return None
    code, width = columns
    bodies = lines.bodies
    lang = code_language([raw[c:b] for c, b in islice(((c, b) for c, b in zip(code, bodies) if c >= 0), 4000)])
    sig = _signatures(raw, lines, code, lang)
    walk = partial(_walk, raw, lines, code, sig, partial(_DefaultWalk, raw, width, lang))
    if not room or sig.find(1) < 0 or _least_shown(lines, code) <= room:  # else the whole view is over
        plan = walk()
        if not room or _visible(plan) <= room or sig.find(1) < 0:
            return plan
    tries = [(after, HEAD_LINES) for after in range(AFTER_MAX, -1, -1)] + [(0, 0)]
    if _floor(lines, code, sig, HEAD_LINES) > ESTIMATE_SLACK * room:
        tries = tries[-1:]  # the lines of the least selection with a head, a floor of every estimate, are over
    cost = _costs(lines, code, sig) if len(tries) > 1 else None
    for after, head in tries:
        shown = _selection(sig, after, head)
        if head and _estimate(shown, cost) > ESTIMATE_SLACK * room:  # clearly over: not built
            continue
        plan = walk(shown)
        if not head or _visible(plan) <= room:
            break
    return plan


def _signatures(raw: bytes, lines: LineTable, code: array, lang: str) -> bytearray:
    """1 for each line whose code column is a definition (``is_signature``), 0 for the others: each
    pattern mapped over the code columns, no Python call a line (an empty line's column, whatever it is, is
    not one)."""
    n = len(code)
    flags = 0
    for pattern in (SIGNATURE_RES.get(lang), EXTRA_SIGNATURE_RES.get(lang)):
        if pattern is not None:
            columns = map(raw.__getitem__, map(slice, code, lines.bodies))
            flags |= int.from_bytes(bytes(map(bool, map(pattern.match, columns))), "little")
    sig = bytearray(flags.to_bytes(n, "little"))
    i = -1
    try:
        while True:  # the empty lines
            i = code.index(-1, i + 1)
            sig[i] = 0
    except ValueError:
        return sig


def _least_shown(lines: LineTable, code: array) -> int:
    """Bytes the whole view shows at least: the code column of every blame line and its line end."""
    return sum(e - c for c, e in zip(code, islice(lines.starts, 1, None)) if c >= 0)


def _walk(raw: bytes, lines: LineTable, code: array, sig: bytearray, new_walk, shown: bytes | None = None) -> Plan:
    """The plan of the lines, each stretch of lines that ``shown`` leaves out (when given) replaced by
    ``[… N lines]``; the lines shown are matched again, one by one (``_DefaultWalk.line``)."""
    walk = new_walk()
    plan, starts, bodies, n = walk.plan, lines.starts, lines.bodies, len(code)
    shown = b"\x01" * n if shown is None else shown
    line, hide, match, match_s = walk.line, walk.hide, BLAME_RE.match, BLAME_S_RE.match  # (``_match``)
    folds: dict[int, bytes] = {}
    i = j = 0
    while i < n:
        j = shown.find(0, i)
        j = n if j < 0 else j
        for k in range(i, j):
            if code[k] >= 0:
                start, body_end = starts[k], bodies[k]
                line(start, body_end, match(raw, start, body_end) or match_s(raw, start, body_end), sig[k])
        i = shown.find(1, j)
        i = n if i < 0 else i
        if i > j:
            hide(starts[j], starts[i], i - j)
            if i < n:
                fold = folds.get(i - j)
                if fold is None:
                    fold = folds[i - j] = _fold_line(i - j)
                plan.show(fold)
    plan.keep_rest()
    if n and not shown[n - 1]:
        plan.show((b"" if plan.ends_line() else b"\n") + _fold_line(n - j))
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


def _fold_line(count: int) -> bytes:
    """The line a stretch of ``count`` blame lines not shown leaves: ``[… 23 lines]``, ``[… 1 line]``."""
    return f"[\u2026 {count:,} line{'s' if count != 1 else ''}]\n".encode()


def _costs(lines: LineTable, code: array, sig: bytearray) -> array:
    """Bytes each line takes when shown (about: a definition whole, another line its code)."""
    starts = lines.starts
    return array("q", ((e - s if d else e - c + 8) if c >= 0 else 1
                       for c, d, s, e in zip(code, sig, starts, islice(starts, 1, None))))


def _floor(lines: LineTable, code: array, sig: bytearray, head: int) -> int:
    """``_costs`` summed over the least selection with a head (``_selection(sig, 0, head)``): each
    definition line whole (none is an empty line), and the first ``head`` lines."""
    starts = lines.starts
    total = sum(compress(map(sub, islice(starts, 1, None), starts), sig))
    for i in range(min(head, len(sig))):
        if not sig[i]:
            total += starts[i + 1] - code[i] + 8 if code[i] >= 0 else 1
    return total


def _selection(sig: bytearray, after: int, head: int) -> bytearray:
    """The lines shown when a blame is fitted to the room (1 a line shown): every definition line and
    ``after`` lines after each (its docstring, its first statements), and the first ``head`` lines of
    the file. The flags are shifted as one integer, a byte a line."""
    n = len(sig)
    bits = shown = int.from_bytes(sig, "little")
    for k in range(1, after + 1):
        shown |= bits << (8 * k)
    out = bytearray(shown.to_bytes(n + after + 1, "little")[:n])
    out[: min(n, head)] = b"\x01" * min(n, head)
    return out


def _estimate(shown: bytearray, cost: array) -> int:
    """About the bytes of a selection: its lines, a run head where a shown stretch starts after a
    hidden one, a fold line for each hidden stretch."""
    folds = shown.count(b"\x01\x00") + (len(shown) > 0 and shown[0] == 0)
    return sum(compress(cost, shown)) + RUN_HEAD * shown.count(b"\x00\x01") + FOLD_LINE * folds


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

    def hide(self, start: int, end: int, count: int) -> None:
        """``count`` lines not shown (the view is fitted to the room): the next line shown starts a run."""
        plan = self.plan
        plan.keep(plan.position, start)
        plan.omit(start, end, BODY_GROUP, BODY_REASON)
        self.omitted += end - start
        self.hidden += count
        self.prev = None

    def cut(self, start: int, end: int) -> None:
        if end > start:
            self.plan.keep(self.plan.position, start)
            self.plan.omit(start, end, GROUP, REASON)
            self.omitted += end - start

    def line(self, start: int, body_end: int, m: re.Match, definition: bool) -> None:
        """The line ``raw[start:body_end]`` shown (``m``: its match); ``definition``: whether its code is a
        definition (``is_signature``)."""
        raw = self.raw
        key = run_key(m)
        # the file name column (blame -C, or a file renamed in its history): shown when it changes
        file_end = m.end(2) if m.re is BLAME_S_RE else m.start(2) - 1
        file = raw[m.end(1) + 1 : file_end].strip()
        if definition or SIGNAL_RE.search(raw, start, body_end):
            self.prev = key  # a signal or definition line stays whole, and shows its commit
            self.runs += key not in self.seen
            self.seen.add(key)
            self.last_file = file
            return
        number = max(m.start(3) - (self.width - len(m.group(3))), m.start(2))  # the aligned line number
        same_file = bool(file) and file == self.last_file
        if key == self.prev:
            self.cut(start, number)
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


def reduce_porcelain(raw: bytes, lines: LineTable) -> Plan:
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
    lines = LineTable(raw)
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
    codes = [None if line[:1] == b"[" else _code_of(line.rstrip(b"\r")) for line in lines]  # a fold line: none
    lang = code_language([c for c in codes if c is not None])
    pattern, extra, signal = SIGNATURE_RES.get(lang), EXTRA_SIGNATURE_RES.get(lang), SIGNAL_RE.search  # (``is_signature``)
    pattern, extra = (pattern.match if pattern is not None else None), (extra.match if extra is not None else None)
    out: list[tuple[int, int] | None] = []
    for code in codes:
        if code is None:
            out.append(None)
        elif (pattern is not None and pattern(code)) or (extra is not None and extra(code) is not None):
            out.append((0, 0))
        else:
            out.append((1, 0) if signal(code) else (2, 0))
    return out


def facts(packet):
    from operators.types import Facts

    raw = packet.raw
    commits: dict[bytes, None] = {}
    n = 0
    for line in LineTable(raw):
        m = BLAME_RE.match(raw, line.start, line.body_end) or PORCELAIN_HEAD_RE.match(raw, line.start, line.end)
        if m:
            commits.setdefault(m.group(1).lstrip(b"^")[:8], None)
            n += 1
    return Facts(f"{n:,} lines from {len(commits):,} commits", [], 0)
