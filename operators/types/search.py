"""Search results (``grep -rn``, ``rg -n`` with or without ``--heading``, ``git grep``): hits as printed, folded per file.

Recognised shapes, line by line:

* ``path:12:text`` (a matching line, ``-n``), ``path-12-text`` (a context line, ``-A/-B/-C``),
  ``path:text`` (no line numbers: ``git grep``, ``grep -r``), ``--`` between context blocks;
* ``--heading`` (rg's default on a terminal): the path alone on a line, then ``12:text``/``12-text``
  lines, a blank line between files;
* one file's hits without a path (``grep -n PATTERN FILE``): ``12:text`` lines whose numbers go up
  but not one by one (a numbered listing of a file is not a search); shown whole under the output
  ceiling's budget (each is a line of the file the agent asked for), else as many hits as fill the
  ceiling's target (``for_room``; ``total`` at least), each with its context lines (``-A/-B/-C``: a
  hit counts with its share of them): the first ones, or, when most hits are alike but for their
  numbers, times and hex ids (a grep of a log), the first of each distinct hit, then the first and
  the last of the others (``_picks``), each run of the rest folded to a line counting its hits;
* binary-file notices: ``Binary file X matches``, ``grep: X: binary file matches``.

Not search, though shaped like ``path:text``: a listing or ``key: value`` lines (paths seldom
repeated), pytest's test ids, an access log's client address, a linter's ``file.js: line 42, col 5, …``
report (jshint, jslint).

What the reader sees: every line shown exactly as printed (``path:12:text`` keeps its prefix: an
agent copies ``path:12`` from it). Each file shows its first hits (``allowances``: every file its
first hit, then a second for every file, … at most ``per_file`` each, ``total`` in all: one file
never spends the budget of the others; past ``max_files`` files none), with the context lines of
the last one; the rest of the file becomes one line ``[… N more matching lines in PATH (M in all):
#ref:…]`` where they were (a ref per file for the first ``OWN_REFS`` such files, then one shared);
a log file's hits (``grep -rn ERROR logs/``), when most are alike, show its distinct ones first, then
its first and last others, each run of the rest a line counting it (``_picks``). When hits are folded (or the output is over the ceiling) in ``COUNTS_MIN`` files or more, the
output starts with every file and its number of hits (``  12 path``), in the order found. rg ``--heading`` output keeps its path lines,
each with its count and ref when hits fold; one file's hits without a path (``grep -n PATTERN
FILE``) show half as many more. A line longer than ``line_max`` bytes is cut around the match (the
pattern is guessed: the word found in most matching lines), its ``path:12:`` kept, the cut bytes to
group ``long``. Binary-file notices fold into one line with a ref. A search whose folding saves
little (``MIN_SAVING``, ``MIN_SHARE``) passes through.

Ranking (``rank_lines``, for the output ceiling and the packer): the count lines and each file's
first hit first, then the other hits (every file's second before any third), context lines last.

Must-see (checked by the fixtures' planted signals): for a rare pattern every file's first hit, for a
common one every file name. ``SIGNALS`` is empty: a matching line is not an event of the program
that printed it, so it carries no error/warning meaning of its own.
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from functools import partial
from itertools import accumulate, takewhile
from operator import ge
from typing import Annotated

import msgspec

from operators import kernel
from operators.config import Section, section
from operators.reduction import Plan, passthrough
from operators.relazy import lazy  # patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first


def _files_n(n: int) -> str:
    return f"{n:,} file" + ("" if n == 1 else "s")


NAME = "search"
SIGNALS = ""


class Settings(Section):
    per_file: Annotated[int, msgspec.Meta(ge=1)] = 8  # matching lines shown per file while the total lasts
    total: Annotated[int, msgspec.Meta(ge=1)] = 40  # matching lines shown in all, spread over the files; each file shows its first hit
    max_files: Annotated[int, msgspec.Meta(ge=1)] = 400  # past this many files, a file shows no hit (its count line names it)
    line_max: Annotated[int, msgspec.Meta(ge=40)] = 240  # a longer line is cut around the match


MIN_SAVING = 300  # bytes; below this (or MIN_SHARE of the output) the output passes through: the ref costs a line
MIN_SHARE = 0.15
OWN_REFS = 15  # files whose folded matches get a ref of their own (named in their header)
MARK_COST = 22  # bytes a marker and the closing bracket of a fold line take
COUNTS_MIN = 6  # files from which a search with folded hits starts with every file's hit count
SHARED = "more"  # the group of the folded matches of the files after those

# -- line shapes ---------------------------------------------------------------------------------
_PATH = rb"(?:\./|/|[\w.@~+-])[^\x00\n:]*+"  # a path: no NUL, newline or colon (so it ends at the first colon)
MATCH_N_RE = lazy(rb"(" + _PATH + rb"):(\d+):")
MATCH_RE = lazy(rb"(" + _PATH + rb"):")
CONTEXT_AT_RE = lazy(rb"-\d+-")
HEADING_LINE_RE = lazy(rb"(\d+)([:-])")
LEAD_RE = lazy(rb"\d{1,12}[:-]")  # the line number after a path (or alone) that a cut line keeps
BINARY_RE = lazy(
    rb"^(?:Binary file (.+) matches|grep: (.+): binary file matches|(.+): binary file matches \(found .*\))\s*$"
)
SEPARATOR = b"--"
PATHLIKE_RE = lazy(rb"^(?:\.{0,2}/)?(?:[\w.@~+-]+/)*[\w.@~+-]*\.[\w]{1,10}$|/")
WORD_RE = lazy(rb"[A-Za-z_][\w$]{2,}")
CASE_RE = lazy(rb"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")  # the parts of camelCase and snake_case words

MATCH, CONTEXT, SEP, BINARY, HEADER, BLANK, OTHER = range(7)
FILE_KINDS = (MATCH, CONTEXT, HEADER)  # the lines that start a file's run


class Line:
    """One raw line: its span, body end, kind, path, and where the shown part (after ``path:``) starts."""

    __slots__ = ("start", "end", "tail", "kind", "path", "lead")

    def __init__(self, start: int, end: int, body: int):
        # ``tail`` (the line ending's length) and ``lead`` (the path prefix's) are small ints, which
        # Python shares: two ints fewer per line than ``body`` and ``text_at`` (about 10 MB of 20 MB of
        # search output)
        self.start, self.end, self.tail = start, end, end - body
        self.kind, self.path, self.lead = OTHER, b"", 0

    @property
    def body(self) -> int:
        return self.end - self.tail

    @property
    def text_at(self) -> int:
        return self.start + self.lead


def _split(raw: bytes) -> list[Line]:
    """The lines of ``raw``; a body ends before ``\n`` or ``\r\n`` (``reduction.line_body_end``, inlined:
    this runs once per line of a 20 MB output)."""
    lines: list[Line] = []
    append, find, pos, n = lines.append, raw.find, 0, len(raw)
    while pos < n:
        nl = find(b"\n", pos)
        end = body = n if nl < 0 else nl
        if nl >= 0:
            end += 1
        if body > pos and raw[body - 1] == 13:  # \r
            body -= 1
        append(Line(pos, end, body))
        pos = end
    return lines


def _pathlike(path: bytes) -> bool:
    return b" " not in path.strip() and bool(PATHLIKE_RE.search(path)) and len(path) < 512


def _bare_name(path: bytes) -> bool:
    """A file name without a directory or extension (``Makefile``, ``LICENSE``): enough before ``:12:``."""
    return re.fullmatch(rb"[A-Za-z_.][\w.@~+-]{0,254}", path) is not None  # not "2026-01-01T10" (a timestamp)


def _plain_kind(body: bytes) -> int | None:
    """BLANK, SEP (``--``) or BINARY (``Binary file … matches``) for a line that is no hit, else None."""
    if not body or body.isspace():
        return BLANK
    if body == SEPARATOR:
        return SEP
    return BINARY if b"inary file " in body and BINARY_RE.match(body) else None  # each notice holds the words


def _parse_flat(raw: bytes, lines: list[Line], numbered: bool) -> None:
    """Kinds of a non-heading output (``path:12:text`` or, when not ``numbered``, ``path:text``)."""
    known: dict[bytes, bytes] = {}  # the paths of matching lines (each kept once, for every line of it)
    ok: dict[bytes, bool] = {}  # whether a path before ":12:" can be one (a path repeats on every hit)
    match = (MATCH_N_RE if numbered else MATCH_RE).match
    for ln in lines:
        body = raw[ln.start : ln.end - ln.tail]  # (ln.body without the property call: once per line)
        if not body or body.isspace() or body == SEPARATOR or b"inary file " in body:  # _plain_kind's cases only
            kind = _plain_kind(body)
            if kind is not None:
                ln.kind = kind
                continue
        m = match(body)
        if m is None:
            continue
        path = m.group(1)
        good = ok.get(path)
        if good is None:
            good = ok[path] = bool(_pathlike(path) or numbered and _bare_name(path))
        if good:
            path = known.setdefault(path, path)
            ln.kind, ln.path, ln.lead = MATCH, path, len(path) + 1
    if not numbered:
        return
    first_at = CONTEXT_AT_RE.search
    for ln in lines:  # context lines: a known path first (a path may hold "-12-")
        if ln.kind != OTHER:
            continue
        body = raw[ln.start : ln.end - ln.tail]
        m = first_at(body)
        if m is None:
            continue
        path = known.get(body[: m.start()])  # the usual case: the first "-12-" ends a known path
        if path is None:
            path = _context_path(body, known, ok)
        if path is not None:
            ln.kind, ln.path, ln.lead = CONTEXT, path, len(path) + 1


def _context_path(body: bytes, known: dict[bytes, bytes], ok: dict[bytes, bool]) -> bytes | None:
    """The path of a ``path-12-text`` context line: the first ``-12-`` after a path that has matching
    lines, else the first one after a plausible path (``ok``: what is known of paths so far)."""
    first = None
    for m in CONTEXT_AT_RE.finditer(body):
        path = body[: m.start()]
        if path in known:
            return known[path]
        if first is None and path:
            good = ok.get(path)
            if good is None:
                good = ok[path] = bool(_pathlike(path) or _bare_name(path))
            if good:
                first = path
    return first


def _parse_heading(raw: bytes, lines: list[Line]) -> None:
    """Kinds of an rg ``--heading`` output: a path line, then ``12:text`` / ``12-text`` lines."""
    path = b""
    for ln in lines:
        body = raw[ln.start : ln.body]
        kind = _plain_kind(body)
        if kind is not None:
            ln.kind = kind
            if kind == BLANK:
                path = b""
        elif path and (m := HEADING_LINE_RE.match(body)):
            ln.kind = MATCH if m.group(2) == b":" else CONTEXT
            ln.path = path
        elif not path and _pathlike(body):
            ln.kind, path = HEADER, body
            ln.path = path


def _parse_bare(raw: bytes, lines: list[Line]) -> None:
    """Kinds of one file's hits without a path (``grep -n PATTERN FILE``): ``12:text``, ``12-text``."""
    for ln in lines:
        body = raw[ln.start : ln.body]
        if not body.strip():
            ln.kind = BLANK
        elif body == SEPARATOR:
            ln.kind = SEP
        elif m := HEADING_LINE_RE.match(body):
            ln.kind = MATCH if m.group(2) == b":" else CONTEXT


def _parse(raw: bytes, lines: list[Line], shape: str) -> None:
    for ln in lines:
        ln.kind, ln.path, ln.lead = OTHER, b"", 0
    if shape == "heading":
        _parse_heading(raw, lines)
    elif shape == "bare":
        _parse_bare(raw, lines)
    else:
        _parse_flat(raw, lines, shape == "numbered")


def _shape(raw: bytes, lines: list[Line]) -> str:
    """Parse ``lines`` in place by the shape that explains the most of them: heading, numbered or
    flat. The shape is chosen on the first 2,000 lines; the whole input is parsed once by it."""
    head = lines[:2000]
    best, best_score = "", -1
    for shape in ("heading", "numbered", "flat", "bare"):
        _parse(raw, head, shape)
        score = sum(ln.kind != OTHER for ln in head) * 2 + sum(ln.kind == MATCH for ln in head)
        if score > best_score:
            best, best_score = shape, score
    _parse(raw, lines, best)
    return best


# -- detection -----------------------------------------------------------------------------------
def _numbers_increase(raw: bytes, lines: list[Line], shape: str) -> bool:
    """Within a file the line numbers of a search result go up: a log that repeats ``app.py:12:`` does not."""
    if shape == "flat":
        return True
    last: dict[bytes, int] = {}
    ups = downs = 0
    for ln in lines:
        if ln.kind not in (MATCH, CONTEXT):
            continue
        at = ln.start if shape in ("heading", "bare") else ln.start + len(ln.path) + 1
        m = re.match(rb"\d+", raw[at : ln.body])
        if m is None:
            continue
        number = int(m.group())
        if ln.path in last:
            if number > last[ln.path]:
                ups += 1
            else:
                downs += 1
        last[ln.path] = number
    return downs <= max(1, ups // 20)


def _repeats(lines: list[Line]) -> int:
    """Matching lines whose path is the one of the matching line before."""
    hits = [ln.path for ln in lines if ln.kind == MATCH]
    return sum(a == b for a, b in zip(hits, hits[1:]))


def _consecutive(raw: bytes, lines: list[Line]) -> bool:
    numbers = [int(HEADING_LINE_RE.match(raw, ln.start).group(1)) for ln in lines if ln.kind in (MATCH, CONTEXT)]
    return all(b == a + 1 for a, b in zip(numbers, numbers[1:]))


def _explains(sample_raw: bytes) -> tuple[str, int, int, int, list[Line]] | None:
    lines = _split(sample_raw)
    shape = _shape(sample_raw, lines)
    content = [ln for ln in lines if ln.kind != BLANK]
    matches = [ln for ln in lines if ln.kind == MATCH]
    if not content or len(matches) < 3:
        return None
    known = sum(ln.kind != OTHER for ln in content)
    return shape, known, len(content), len(matches), lines


IPV4_RE = lazy(rb"\d{1,3}(?:\.\d{1,3}){3}")


TEST_ID_RE = lazy(rb"^[^\s:]+::\S", re.M)  # a path, then "::": pytest's node id of a test
LINT_PLACE_RE = lazy(rb"^[^\s:]+: line \d+, col \d+, ", re.M)  # jshint's and jslint's report line


def detect(sample) -> str | None:
    if not maybe.search(sample):
        return None  # coloured output (not parsed here), or fewer than three lines that may be hits
    head = sample.head
    if len(sample.raw) > len(head):  # the sample may cut a line: parse whole lines only
        head = head[: head.rfind(b"\n") + 1]
    found = _explains(head)
    if found is None:
        return None
    shape, known, content, matches, lines = found
    if known < content * 0.95:
        return None
    paths = {ln.path for ln in lines if ln.kind == MATCH}
    if shape == "flat" and (matches < 5 or _repeats(lines) < 0.3 * matches):
        return None  # path:text with paths seldom repeated: a listing or key: value lines, not search hits
    if shape == "flat" and len(TEST_ID_RE.findall(head)) * 2 > matches:
        return None  # tests/a.py::TestX::test_y PASSED: a test run's ids (pytest -v), not search hits
    if shape == "flat" and all(IPV4_RE.fullmatch(path) for path in paths):
        return None  # 127.0.0.1:44790 [04/Dec/2026:…]: an access log's client address and port
    if shape == "flat" and len(LINT_PLACE_RE.findall(head)) * 2 > matches:
        return None  # a.js: line 42, col 5, message: a linter's report (jshint, jslint), not search hits
    if not _numbers_increase(head, lines, shape):
        return None  # one place repeated: a log with file:line prefixes
    if shape == "bare" and (matches < 5 or _consecutive(head, lines)):
        return None  # every line numbered in turn: a numbered listing of a file, not its hits
    kind = {"heading": "grouped by file", "numbered": "path:line:text", "flat": "path:text",
            "bare": "line:text of one file"}[shape]
    return f"{matches} search hits in {_files_n(len(paths))} ({kind})"


# -- reduction -----------------------------------------------------------------------------------
class _Table:
    """The lines of the whole input as columns: ``starts`` (n + 1 offsets), ``tails`` (each line
    ending's length), ``kinds`` (a byte a line), ``pids`` (each line's path as an index into ``paths``,
    -1 for none); ``table[k]`` is line ``k`` as a ``Line``. A path line of ``path:12:text`` output
    (``flat``) shows its text after ``path:``. 20 MB of search output is 228,000 lines: a ``Line``
    each cost a third of the reduction; the reducer makes one only for the lines it looks at alone."""

    __slots__ = ("starts", "tails", "kinds", "pids", "paths", "flat")

    def __init__(self, starts, tails, kinds, pids, paths: list[bytes], flat: bool):
        self.starts, self.tails, self.kinds, self.pids, self.paths = starts, tails, kinds, pids, paths
        self.flat = flat

    def __len__(self) -> int:
        return len(self.kinds)

    def __getitem__(self, k: int) -> Line:
        end = self.starts[k + 1]
        ln = Line(self.starts[k], end, end - self.tails[k])
        ln.kind, pid = self.kinds[k], self.pids[k]
        if pid >= 0:
            ln.path = self.paths[pid]
            if self.flat:
                ln.lead = len(ln.path) + 1
        return ln

    def path_of(self, k: int) -> bytes:
        pid = self.pids[k]
        return self.paths[pid] if pid >= 0 else b""

    @classmethod
    def of_lines(cls, lines: list[Line], end: int) -> "_Table":
        """The table of parsed ``lines`` (of an input ``end`` bytes long)."""
        ids: dict[bytes, int] = {b"": -1}
        paths: list[bytes] = []
        pids = array("i")
        for ln in lines:
            pid = ids.get(ln.path)
            if pid is None:
                pid = ids[ln.path] = len(paths)
                paths.append(ln.path)
            pids.append(pid)
        starts = array("q", [ln.start for ln in lines])
        starts.append(end)
        return cls(starts, bytes(ln.tail for ln in lines), bytearray(ln.kind for ln in lines), pids, paths, False)


def _head_end(raw: bytes, count: int) -> int:
    """Where the first ``count`` lines of ``raw`` end."""
    pos = 0
    for _ in range(count):
        nl = raw.find(b"\n", pos)
        if nl < 0:
            return len(raw)
        pos = nl + 1
    return pos


def _lines_of(raw: bytes) -> tuple[str, _Table]:
    """The shape (chosen on the first 2,000 lines, as ``_shape`` does) and the parsed lines of ``raw``:
    a ``path:12:text`` or ``path:text`` output through the kernel's ``search_lines``, the others as
    ``_parse`` finds them."""
    head = raw[: _head_end(raw, 2000)]
    shape = _shape(head, _split(head))
    if shape not in ("numbered", "flat"):
        lines = _split(raw)
        _parse(raw, lines, shape)
        return shape, _Table.of_lines(lines, len(raw))
    return shape, _flat_table(raw, shape == "numbered")


def _flat_table(raw: bytes, numbered: bool) -> _Table:
    """``_parse_flat``'s kinds and paths of every line, the kernel finding most; the lines it leaves
    (a possible binary notice, a context line whose first ``-12-`` ends no known path) as there."""
    ok: dict[bytes, bool] = {}  # every path of a matching line, and whether it can be one

    def good(path: bytes) -> bool:
        ok[path] = bool(_pathlike(path) or numbered and _bare_name(path))
        return ok[path]

    starts, tails, kinds, pids, paths, (plain, context) = kernel.search_lines(raw, numbered, good)
    table = _Table(starts, tails, kinds, pids, paths, True)
    if len(plain) or len(context):
        _parse_left(raw, table, ok, plain, context, numbered)
    return table


def _parse_left(raw: bytes, table: _Table, ok: dict[bytes, bool], plain, context, numbered: bool) -> None:
    """``_parse_flat`` for the lines the kernel left: first the plain and matching ones, then the
    context lines (of every known path)."""
    starts, tails, kinds, pids, paths = table.starts, table.tails, table.kinds, table.pids, table.paths
    ids = {path: k for k, path in enumerate(paths)}
    known = {path: path for path in paths if ok[path]}
    match = (MATCH_N_RE if numbered else MATCH_RE).match
    later = list(context)
    for i in plain:
        body = raw[starts[i] : starts[i + 1] - tails[i]]
        kind = _plain_kind(body)
        if kind is not None:
            kinds[i] = kind
            continue
        m = match(body)
        path = m.group(1) if m else None
        if path is not None and path not in ok:
            ok[path] = bool(_pathlike(path) or numbered and _bare_name(path))
        if path is not None and ok[path]:
            known.setdefault(path, path)
            kinds[i], pids[i] = MATCH, _path_id(path, ids, paths)
        else:
            later.append(i)
    for i in sorted(later) if numbered else ():
        body = raw[starts[i] : starts[i + 1] - tails[i]]
        m = CONTEXT_AT_RE.search(body)
        if m is None:
            continue
        path = known.get(body[: m.start()])
        if path is None:
            path = _context_path(body, known, ok)
        if path is not None:
            kinds[i], pids[i] = CONTEXT, _path_id(path, ids, paths)


def _path_id(path: bytes, ids: dict[bytes, int], paths: list[bytes]) -> int:
    pid = ids.get(path)
    if pid is None:
        pid = ids[path] = len(paths)
        paths.append(path)
    return pid


def _file_runs(kinds, pids) -> dict[int, int]:
    """{first index: end index} of the runs of lines of one file (headers, context and separators
    included), from the table's columns (a path id equal for equal paths, -1 for none)."""
    runs: dict[int, int] = {}
    i, n = 0, len(kinds)
    while i < n:
        if kinds[i] in FILE_KINDS:
            pid, j = pids[i], i + 1
            while j < n and (pids[j] == pid and kinds[j] <= CONTEXT or kinds[j] == SEP and j + 1 < n
                             and pids[j + 1] == pid):
                j += 1
            runs[i] = j
            i = j
        else:
            i += 1
    return runs


def _first_matches(table: _Table, count: int) -> list[Line]:
    """The first ``count`` matching lines."""
    out, kinds = [], table.kinds
    k = kinds.find(MATCH)
    while k >= 0 and len(out) < count:
        out.append(table[k])
        k = kinds.find(MATCH, k + 1)
    return out


def _guess_pattern(raw: bytes, matches: list[Line]) -> bytes:
    """The word found (as a substring, case-insensitive) in the most matching lines: most likely the
    searched text. Candidates are the words of the first lines (split at case changes too:
    ``logoColor`` holds ``logo``); each is counted over the first thousand lines."""
    texts = [raw[ln.text_at : min(ln.body, ln.text_at + 4096)].lower() for ln in matches[:1000]]
    candidates: set[bytes] = set()
    for ln in matches[:20]:
        for word in WORD_RE.findall(raw, ln.text_at, min(ln.body, ln.text_at + 4096)):
            candidates.update(p.lower() for p in CASE_RE.findall(word) + [word] if len(p) >= 3)
    best, best_count = b"", 0
    for word in sorted(candidates):
        count = sum(word in text for text in texts)
        if (count, len(word)) > (best_count, len(best)):
            best, best_count = word, count
    return best if best_count >= max(2, len(texts) // 2) else b""


def _char_start(raw: bytes, at: int, low: int) -> int:
    """``at`` moved back to the start of a UTF-8 character (never below ``low``)."""
    while low < at < len(raw) and 0x80 <= raw[at] < 0xC0:
        at -= 1
    return at


def for_room(settings: Settings, raw: bytes, hits: int, room: int, blocks: list[int] | None = None) -> Settings:
    """``settings`` with its ``total`` set to the hits of one file without a path that fill ``room``
    bytes: raised to that when it is more, each hit at an average line's length (``line_max`` at most);
    when the hits have context lines (``-A/-B/-C``, shown with their hit: ``grep -n -A14 Traceback
    app.log``, the exception is in them), as many first hits as fill it with theirs (``blocks``: each
    hit's bytes with the context lines after it, in order), raised or lowered (49 blocks cut by the
    ceiling had kept the 49 same ``Traceback`` lines and none of their exceptions). Such a file shows
    half as many more than ``total`` (``allowances``), so ``total`` is two thirds of them (one at least)."""
    if blocks:
        fit = sum(1 for _ in takewhile(partial(ge, room), accumulate(blocks)))
        total = fit * 2 // 3
        while total + 1 + (total + 1) // 2 <= fit:
            total += 1
        return msgspec.structs.replace(settings, total=max(1, total)) if total != settings.total else settings
    line = min(settings.line_max, len(raw) // max(1, raw.count(b"\n"))) + 1
    fit = min(hits, room // line) * 2 // 3
    return msgspec.structs.replace(settings, total=fit) if fit > settings.total else settings


def _blocks(lines: "_Table", cap: int) -> list[int]:
    """The bytes each hit of one file without a path shows with the context lines after it, in order (a
    line counted at ``cap`` bytes at most: a longer one is shown cut); empty when it has none."""
    kinds, starts = lines.kinds, lines.starts
    if CONTEXT not in kinds:
        return []
    sizes: list[int] = []
    for k, kind in enumerate(kinds):
        if kind == MATCH:
            sizes.append(0)
        if sizes and (kind == MATCH or kind == CONTEXT):
            sizes[-1] += min(starts[k + 1] - starts[k], cap)
    return sizes


def allowances(counts: list[tuple[bytes, int]], settings: Settings) -> list[int]:
    """How many matching lines each file (``(path, hits)`` in order) shows: every file its first hit,
    then a second for every file, and so on (at most ``per_file``) while the ``total`` lasts; what
    is left of it goes to the first files that have more. Past ``max_files`` files none. One file's
    hits without a path (``grep -n PATTERN FILE``) show half as many more: their lines are shorter."""
    s = settings
    if len(counts) == 1 and not counts[0][0]:
        return [min(counts[0][1], s.total + s.total // 2)]
    capped = [min(n, s.per_file) if i < s.max_files else 0 for i, (_, n) in enumerate(counts)]
    level = 1
    while level < s.per_file and sum(min(n, level + 1) for n in capped) <= s.total:
        level += 1
    allowed = [min(n, level) for n in capped]
    left = s.total - sum(allowed)
    for i, n in enumerate(capped):
        if left <= 0:
            break
        if n > allowed[i]:
            allowed[i] += 1
            left -= 1
    return allowed


class _Reducer:
    def __init__(self, raw: bytes, lines: _Table, shape: str, settings: Settings, big: bool = False):
        self.raw, self.lines, self.shape, self.s = raw, lines, shape, settings
        self.kinds = lines.kinds
        self.big = big  # over the output ceiling: the hit counts come first even when no hit folds
        self.plan = Plan(raw)
        self.pattern = _guess_pattern(raw, _first_matches(lines, 1000))
        self.binary: list[bytes] = []
        self.more = 0  # per-file groups made so far
        self.total_matches = 0  # counted by run()
        self.flat = shape in ("numbered", "flat")  # hit lines carry their path: shown as printed

    def run(self) -> Plan:
        runs = _file_runs(self.kinds, self.lines.pids)
        kinds = self.kinds  # a byte a line
        self.matches = {a: kinds.count(MATCH, a, b) for a, b in runs.items()}  # each file's matching lines
        self.total_matches = kinds.count(MATCH)
        counts = [(self.lines.path_of(a), self.matches[a]) for a in runs]
        self.allowed = dict(zip(runs, allowances(counts, self.s)))
        if self.flat:
            self._counts(runs)
        i, n = 0, len(self.lines)
        while i < n:
            if i in runs:
                self._file(i, runs[i])
                i = runs[i]
                continue
            ln = self.lines[i]
            if ln.kind == BINARY:
                m = BINARY_RE.match(self.raw[ln.start : ln.body])
                self.binary.append(next(g for g in m.groups() if g is not None))
                self.plan.omit(ln.start, ln.end, "binary", "binary-file match notices")
            elif ln.kind == SEP and self.shape not in ("heading", "numbered", "flat"):  # between files: the next header separates
                self.plan.omit(ln.start, ln.end, "prefixes", "repeated path prefixes and separators")
            else:
                self.plan.keep(ln.start, ln.end)
            i += 1
        self._footer()
        return self.plan.finish()

    def _counts(self, runs: dict[int, int]) -> None:
        """From ``COUNTS_MIN`` files with some hits folded, or over the output ceiling: every file with
        its number of hits first (``  12 path``, in the order found), so no file name depends on its
        hits being shown."""
        per_file: dict[bytes, int] = {}
        hidden = 0
        for start, end in runs.items():
            matches = self.matches[start]
            hidden += matches - min(self.allowed[start], matches)
            path = self.lines.path_of(start)
            per_file[path] = per_file.get(path, 0) + matches
        if not (hidden or self.big) or len(per_file) < COUNTS_MIN:
            return
        width = len(str(max(per_file.values())))
        lines = [f"[{self.total_matches:,} matching lines in {_files_n(len(per_file))}; hits per file:]\n".encode()]
        lines += [str(count).rjust(width + 2).encode() + b" " + path + b"\n" for path, count in per_file.items()]
        self.plan.show(b"".join(lines))

    def _file(self, i: int, j: int) -> None:
        if self.flat:
            self._flat_file(i, j)
            return
        plan, lines, kinds = self.plan, self.lines, self.kinds
        path = lines.path_of(i)
        matches = [k for k in range(i, j) if kinds[k] == MATCH]
        allowed = self.allowed[i]
        if not matches:
            show_upto = j  # context lines alone (a cut output): all shown
        else:
            show_upto = matches[min(allowed, len(matches)) - 1] if allowed else -1  # the last match shown
        hidden = len(matches) - min(allowed, len(matches))
        group = self._group(path) if hidden else ""
        i = self._header(i, len(matches), hidden, group)
        picks = self._picks(matches, allowed) if hidden and self.shape == "bare" else None
        if picks is not None:
            self._picked_hits(i, j, picks, group)
            return
        last_shown_sep = True
        trailing = True  # context right after the last shown match (same block) stays with it
        for k in range(i, j):
            ln = lines[k]
            if ln.kind == SEP:
                shown = k < show_upto
                trailing = False
            elif k <= show_upto:
                shown = trailing = True  # the context right after the last shown match is its own
            else:
                shown = ln.kind == CONTEXT and trailing and show_upto >= 0
                trailing = trailing and ln.kind == CONTEXT
            if not shown:
                plan.omit(ln.start, ln.end, group or "prefixes", f"search results of {path.decode('utf-8', 'replace')}")
            else:
                last_shown_sep = self._show(ln, last_shown_sep)

    def _show(self, ln: Line, after_sep: bool) -> bool:
        """Show line ``ln`` of a file's run: a ``--`` separator only after a line shown (``after_sep``:
        the last line shown was one, or none was), a hit's path prefix to the group of prefixes.
        Whether ``ln`` is a separator."""
        plan = self.plan
        if ln.kind == SEP:
            if after_sep:
                plan.omit(ln.start, ln.end, "prefixes", "repeated path prefixes and separators")
            else:
                plan.keep(ln.start, ln.end)
            return True
        if ln.text_at > ln.start:
            plan.omit(ln.start, ln.text_at, "prefixes", "repeated path prefixes and separators")
        self._line(ln)
        return False

    def _picks(self, matches: list[int], allowed: int, logs_only: bool = False) -> set[int] | None:
        """The hits one file shows when not all fit and most are alike (``grep -n PATTERN app.log``;
        ``logs_only``: and most are log records, ``grep -rn PATTERN logs/``, where a source file's
        alike statements keep its first hits and the line naming its total: at most half as many
        distinct hits as hits, a hit's text taken after its path and line number, its numbers, times and hex ids masked as a log's templates are,
        ``operators.signals.templates``): the first of each distinct hit, then of the others as
        many first as last ones while ``allowed`` lasts (the last: is it still failing?). The first
        ``allowed`` hits of 427 (a grep of a server's log) were three repeated failures; the four
        rarer ones later were never shown, nor were the last of 229 hits of a mail server's log.
        None when most hits differ (a grep of a source file): its first hits are shown."""
        from operators.signals import templates
        from operators.vocab import is_log_line

        raw, lines = self.raw, self.lines
        texts = []
        others = 0  # (``logs_only``) hits that are no log record: at half of them, the answer is None
        for k in matches:
            ln = lines[k]
            m = LEAD_RE.match(raw, ln.text_at, ln.body)
            texts.append(text := raw[m.end() if m else ln.text_at : ln.body])
            if logs_only and not is_log_line(text):
                others += 1
                if others * 2 >= len(matches):
                    return None
        seen: set[bytes] = set()
        firsts: list[int] = []
        for k, key in zip(matches, templates(texts)):
            if key not in seen:
                seen.add(key)
                firsts.append(k)
        if len(firsts) * 2 > len(matches):
            return None
        picked = set(firsts[:allowed])
        rest = [k for k in matches if k not in picked]
        room = max(0, allowed - len(picked))
        tail = room // 2
        picked.update(rest[:room - tail])
        picked.update(rest[len(rest) - tail:])  # (none when ``tail`` is 0)
        return picked

    def _picked_hits(self, i: int, j: int, picked: set[int], group: str, as_printed: bool = False) -> None:
        """Lines ``i:j`` of one file: each picked hit with its context lines (those right after it, and
        those before it that follow a ``--`` or the start: ``-B``), each run of the others folded to one
        line counting its hits, its bytes in ``group``'s ref. ``as_printed``: a hit keeps its path
        (``path:12:text`` output)."""
        plan, lines, kinds = self.plan, self.lines, self.kinds
        shown = bytearray(j - i)
        seps = []  # the ``--`` before a picked hit's block
        for k in picked:
            shown[k - i] = 1
            a = k + 1
            while a < j and kinds[a] == CONTEXT:
                shown[a - i] = 1
                a += 1
            b = k - 1
            while b >= i and kinds[b] == CONTEXT:
                b -= 1
            if b < i or kinds[b] == SEP:
                shown[b + 1 - i : k - i] = b"\x01" * (k - b - 1)
                if b > i:
                    seps.append(b)
        for b in seps:  # a ``--`` between two blocks shown stays
            if shown[b - 1 - i]:
                shown[b - i] = 1
        k = i
        last_shown_sep = True
        while k < j:
            ln = lines[k]
            if not shown[k - i]:
                end = k
                while end < j and not shown[end - i]:
                    end += 1
                hits = kinds.count(MATCH, k, end)
                plan.omit(ln.start, lines[end - 1].end, group, "search results")
                if hits:
                    plan.show(f"[\u2026 {hits:,} more hit{'s' if hits != 1 else ''}: ".encode())
                    plan.mark(group)
                    plan.show(b"]\n")
                    last_shown_sep = False
                k = end
                continue
            if as_printed and ln.kind != SEP:
                self._line(ln)
                last_shown_sep = False
            else:
                last_shown_sep = self._show(ln, last_shown_sep)
            k += 1

    def _flat_file(self, i: int, j: int) -> None:
        """One file's lines of a ``path:12:text`` output: the shown hits (and their context) exactly as
        printed, then one line ``[… N more matching lines in PATH …: #ref]`` where the folded ones were."""
        plan, lines, kinds, starts = self.plan, self.lines, self.kinds, self.lines.starts
        path = lines.path_of(i)
        matches = [k for k in range(i, j) if kinds[k] == MATCH]
        allowed = min(self.allowed[i], len(matches))
        hidden = len(matches) - allowed
        picks = self._picks(matches, allowed, logs_only=True) if hidden and allowed else None
        if picks is not None:  # a log's hits, mostly alike: its distinct ones first
            self._picked_hits(i, j, picks, self._group(path), as_printed=True)
            return
        end = j
        if hidden:
            end = matches[allowed - 1] + 1 if allowed else i
            while allowed and end < j and kinds[end] == CONTEXT:  # the last shown hit's context after it
                end += 1
        name = path.decode("utf-8", "replace")
        note = (f"[… {hidden:,} more matching line{'s' if hidden != 1 else ''} in {name} ({len(matches):,} in all): "
                .encode())
        if end < j and starts[j] - starts[end] <= len(note) + MARK_COST:
            end = j  # the lines cost no more than the line that would stand for them
        for k in range(i, end):
            self._line(lines[k])
        if end >= j:
            return
        group = self._group(path)
        plan.show((b"" if plan.ends_line() else b"\n") + note)
        plan.mark(group)
        plan.show(b"]\n")
        plan.omit(starts[end], starts[j], group, f"search results of {name}")

    def _header(self, i: int, matches: int, hidden: int, group: str) -> int:
        """A file's header: its path once (rg --heading's own line, else shown) with, when some of its
        hits are folded, their count and ref; returns the index of its first hit line."""
        plan, ln = self.plan, self.lines[i]
        heading = ln.kind == HEADER
        if heading:
            plan.keep(ln.start, ln.body)
        else:
            plan.show(ln.path)  # nothing for one file's hits (grep -n PATTERN FILE): no path printed
        if hidden and group == SHARED:  # past the first files with a ref of their own: the footer names it
            plan.show(f" [{matches} matches, {matches - hidden} shown]".encode())
        elif hidden:
            lead = " " if ln.path else ""
            plan.show(f"{lead}[{matches} matches, {matches - hidden} shown; the rest: ".encode())
            plan.mark(group)
            plan.show(b"]")
        if heading:
            plan.keep(ln.body, ln.end)
            return i + 1
        if ln.path or hidden:
            plan.show(b"\n")
        return i

    def _group(self, path: bytes) -> str:
        self.more += 1
        return "more:" + path.decode("utf-8", "replace") if self.more <= OWN_REFS else SHARED

    def _line(self, ln: Line) -> None:
        """Keep one line from what is not shown yet on; a long one is cut around the match, its lead
        (``path:12:`` as printed, or ``12:``) kept whole."""
        plan, raw, s = self.plan, self.raw, self.s
        start, body = plan.position, ln.body
        m = LEAD_RE.match(raw, ln.text_at, body)
        lead = max(start, m.end() if m else ln.text_at)
        if body - lead <= s.line_max:
            plan.keep(start, ln.end)
            return
        hit = raw[lead:body].lower().find(self.pattern) if self.pattern else -1
        half = s.line_max // 2
        a = _char_start(raw, lead if hit < half else lead + hit - half // 2, lead)
        b = _char_start(raw, min(body, a + s.line_max), a)
        plan.keep(start, lead)
        if a > lead:
            plan.show(b"\xe2\x80\xa6")
            plan.omit(lead, a, "long", "the cut parts of long lines")
        plan.keep(a, b)
        if b < body:
            plan.show(b"\xe2\x80\xa6")
            plan.omit(b, body, "long", "the cut parts of long lines")
        plan.keep(body, ln.end)

    def _footer(self) -> None:
        plan = self.plan
        lead = b"" if plan.ends_line() else b"\n"
        notes = []
        if "binary" in plan.reasons:
            names = ", ".join(p.decode("utf-8", "replace") for p in self.binary[:3])
            more = f" and {len(self.binary) - 3} more" if len(self.binary) > 3 else ""
            notes.append((f"{len(self.binary)} binary file{'s' if len(self.binary) != 1 else ''} match ({names}{more}): ", "binary"))
        if "prefixes" in plan.reasons:
            notes.append(("grouped by file; the repeated path prefixes: ", "prefixes"))
        if "long" in plan.reasons:
            notes.append(("long lines cut around the match (…); cut parts: ", "long"))
        if SHARED in plan.reasons:
            notes.append((f"the other folded matches (files past the first {OWN_REFS} with folded matches): ", SHARED))
        if not notes:
            return
        plan.show(lead + f"[{self.total_matches} matching lines; ".encode())
        for k, (text, group) in enumerate(notes):
            plan.show(((", " if k else "") + text).encode())
            plan.mark(group)
        plan.show(b"]\n")


HITS_SHARE = 0.8  # of the ceiling's target one file's hits shown fill (``for_room``; the fold lines take the rest)


def reduce(raw: bytes, granularity: str, config) -> Plan:
    settings = section(config, NAME)
    ceiling = section(config, "ceiling")
    shape, lines = _lines_of(raw)
    if MATCH not in lines.kinds:
        return passthrough(raw)
    if shape == "bare":  # one file's hits (``grep -n PATTERN FILE``): each a line of it the agent asked for
        if len(raw) <= ceiling.budget_chars:
            return passthrough(raw)
        settings = for_room(settings, raw, lines.kinds.count(MATCH), int(ceiling.target_chars * HITS_SHARE),
                            _blocks(lines, settings.line_max + 24))  # (a cut line keeps its number and two …)
    big = len(raw) > ceiling.max_chars
    plan = _Reducer(raw, lines, shape, settings, big).run()
    shown = sum(len(p[1]) if p[0] == 1 else (p[2] - p[1] if p[0] == 0 else 0) for p in plan.pieces)
    if len(raw) - shown < max(MIN_SAVING, MIN_SHARE * len(raw)) and not big:
        return passthrough(raw)
    return plan


def facts(packet):
    """Level 0: the counts, and the files with the most matching lines."""
    from operators.types import Facts

    lines = _split(packet.raw)
    _shape(packet.raw, lines)
    per_file = Counter(ln.path for ln in lines if ln.kind == MATCH)
    important = [f"{path.decode('utf-8', 'replace')} ×{count}" for path, count in per_file.most_common(5)]
    return Facts(f"{sum(per_file.values()):,} matching lines in {_files_n(len(per_file))}", important, len(per_file))


PACK_CONTEXT = False  # the lines around a file's first hit are its other hits, ranked below
HIT_RE = lazy(rb"^\d+:")
CONTEXT_HIT_RE = lazy(rb"^\d+-")
COUNT_LINE_RE = lazy(rb"^ +\d+ \S")


def rank_lines(lines: list[bytes], config) -> list[tuple[int, int] | None]:
    """Tiers for the ceiling and the packer: the hit counts of every file and each file's first hit
    (or ``--heading`` path line) first, then the other hits, the second of every file before the
    third of any; context lines last. A hit's own words (``error`` …) do not make it a signal."""
    out: list[tuple[int, int] | None] = []
    seen: dict[bytes, int] = {}
    in_counts = False
    heading = b""
    for line in lines:
        text = line.rstrip(b"\r")
        if not text.strip():
            out.append(None)
            in_counts, heading = False, b""
            continue
        if text.startswith(b"[") and text.endswith(b"hits per file:]"):
            in_counts = True
            out.append((0, 0))
            continue
        if in_counts and COUNT_LINE_RE.match(text):
            out.append((0, 0))
            continue
        in_counts = False
        ranked, path = _rank_hit(text, seen, heading)
        out.append(ranked)
        if path is not None:
            heading = path
    return out


def _rank_hit(text: bytes, seen: dict[bytes, int], heading: bytes) -> tuple[tuple[int, int] | None, bytes | None]:
    """A line's rank: a file's first hit 1 (tier 0), its n-th n (tier 1), a context line tier 2, a
    note tier 1; and the path when the line is an rg ``--heading`` path line (its hits follow)."""
    if text.startswith(b"["):
        return (1, 0), None
    if text.startswith(b"--"):
        return None, None
    path = None
    if HIT_RE.match(text) and (heading or not MATCH_N_RE.match(text)):
        path = heading  # rg --heading's hit, or one file's hit without a path (``grep -n PATTERN FILE``)
    elif CONTEXT_HIT_RE.match(text):
        return (2, 0), None
    else:
        for pattern in (MATCH_N_RE, MATCH_RE):
            m = pattern.match(text)
            if m and (_pathlike(m.group(1)) or pattern is MATCH_N_RE and _bare_name(m.group(1))):
                path = m.group(1)
                break
    if path is None:
        head = text.split(b" [", 1)[0]
        if _pathlike(head):
            return (0, 1), head  # an rg --heading path line
        return (2, 0), None
    n = seen.get(path, 0) + 1
    seen[path] = n
    return ((0, 1) if n == 1 else (1, n)), None
