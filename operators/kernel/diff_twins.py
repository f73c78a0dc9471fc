"""The pure-Python twins of the diff type's kernel function ``diff_lines``: where each line starts
(``line_starts``) and the role of each line (``classify_lines_py``): OTHER (kept), META and BIN
(omitted), CTX, CHG, NONL (hunk lines). The diff type reads the roles; ``operators.kernel`` picks the
kernel or these, once."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from itertools import accumulate, compress, islice, repeat
from operator import add, itemgetter

OTHER, META, CTX, CHG, NONL, BIN, SPECIAL = range(7)  # SPECIAL: a summarised file's or a moved block's lines

FILE_START_RE = re.compile(rb"diff (?:--git|--cc|--combined) ")
HUNK_RE = re.compile(rb"(@{2,}) ((?:-\d+(?:,\d+)? )+)\+(\d+)(?:,(\d+))? \1(?:[ \t]|$)")
RANGE_RE = re.compile(rb"-(\d+)(?:,(\d+))?")
META_RE = re.compile(
    rb"(?:index [0-9a-f]{4,}(?:,[0-9a-f]{4,})*\.\.[0-9a-f]{4,}(?: [0-7]{6})?"
    rb"|old mode [0-7]{6}|similarity index \d{1,3}%|dissimilarity index \d{1,3}%)$"
)
BINARY_DATA_RE = re.compile(rb"[A-Za-z][0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]*$")
BINARY_HUNK_RE = re.compile(rb"(?:literal|delta) \d+$")
BINARY_PATCH = b"GIT binary patch"
HUNK_FIRSTS_RE = re.compile(rb"[ +\-\\]*")  # over first bytes: lines a one-parent hunk can hold
HUNK_KINDS = bytes.maketrans(b" +-\\", bytes([CTX, CHG, CHG, NONL]))  # first byte -> kind
NL, CR, PLUS, MINUS, BACKSLASH, SPACE = b"\n\r+-\\ "
BLOCK = 1 << 18  # bytes split at a time when finding line starts (a few times that in transient objects)




def line_starts(raw: bytes) -> array:
    """Where each line starts, plus the end of ``raw``: ``starts[i]:starts[i + 1]`` is line ``i`` with its ``\\n``.

    Split one block of about ``BLOCK`` bytes at a time, so the per-line bytes objects of the split
    never exist for more than one block; what stays is 8 bytes a line."""
    starts = array("q", [0])
    n = len(raw)
    pos = 0
    while pos < n:
        stop = raw.find(b"\n", pos + BLOCK)
        stop = n if stop < 0 else stop + 1  # blocks end on a newline (or at the end of raw)
        pieces = raw[pos:stop].split(b"\n")  # the last piece follows the block's last newline
        starts.extend(islice(accumulate(map(add, map(len, pieces), repeat(1)), initial=pos), 1, len(pieces)))
        pos = stop
    if starts[-1] != n:
        starts.append(n)  # the last line has no newline
    return starts


def line_bodies_py(raw: bytes, starts) -> array:
    """Where the text of each line (``starts``: ``line_starts``) ends: before its ``\n``, and before a
    ``\r`` then when the text is not empty (``operators.reduction.line_body_end``)."""
    bodies = array("q")
    for i in range(len(starts) - 1):
        a, e = starts[i], starts[i + 1]
        if raw[e - 1 : e] == b"\n":
            e -= 1
        if raw[e - 1 : e] == b"\r" and e > a:
            e -= 1
        bodies.append(e)
    return bodies


def classify_lines_py(raw: bytes, starts: array) -> bytearray:
    """The role of each line: OTHER (kept), META and BIN (omitted), CTX, CHG, NONL (hunk lines).

    A line's body is ``raw[s:be]``: without its ``\\n`` and without one ``\\r`` before it. The regexes
    match in place (``pos``/``endpos``), so no line is copied. The lines of a one-parent hunk are
    told apart by their first byte and counted in C (``_hunk_lines``); a line the first byte does not
    settle (an empty one, or one that does not fit) goes through the general, line-by-line walk."""
    n = len(starts) - 1
    walk = _LineWalk(raw, n)
    firsts = bytes(map(raw.__getitem__, islice(starts, n)))  # the first byte of each line
    kinds = walk.kinds
    i = 0
    while i < n:
        if walk.width == 1 and (walk.new > 0 or walk.old[0] > 0):
            j, walk.old[0], walk.new = _hunk_lines(firsts, i, walk.old[0], walk.new)
            if j > i:
                kinds[i:j] = firsts[i:j].translate(HUNK_KINDS)
                i = j
                continue
        s, e = starts[i], starts[i + 1]
        be = e - 1 if raw[e - 1] == NL else e
        if be > s and raw[be - 1] == CR:
            be -= 1
        if not (walk.width and walk.hunk_line(i, s, be)):
            walk.other_line(i, s, be)
        i += 1
    return kinds


class _LineWalk:
    """The state of ``classify_lines_py``'s walk: inside a file header (git metadata lives between a
    ``diff --git`` line and its first hunk), inside binary patch data, and inside a hunk (lines still
    expected from each parent, ``old``, and in the result, ``new``; ``width`` prefix columns: 1, or
    the number of parents of a combined diff)."""

    def __init__(self, raw: bytes, n: int):
        self.raw = raw
        self.kinds = bytearray(n)  # all OTHER
        self.in_header = self.in_binary = False
        self.old: list[int] = []
        self.new = 0
        self.width = 0

    def hunk_line(self, line: int, s: int, be: int) -> bool:
        """Classify a line of the current hunk; False when it is not one (the hunk is over)."""
        raw, width = self.raw, self.width
        if not (self.new > 0 or max(self.old) > 0):
            if be > s and raw[s] == BACKSLASH:
                self.kinds[line] = NONL
                return True
            self.width = 0
            return False
        if be > s and raw[s] == BACKSLASH:
            self.kinds[line] = NONL
            return True
        prefix = raw[s : min(s + width, be)]
        if len(prefix) < width and not prefix.strip(b" "):
            prefix = b" " * width  # a blank context line whose spaces an editor stripped
        if len(prefix) != width or prefix.strip(b" +-"):
            self.width = 0  # the hunk does not match its header: leave the rest alone
            return False
        self.kinds[line] = CTX if not prefix.strip(b" ") else CHG
        for j, c in enumerate(prefix):
            if c != PLUS:  # not in this parent
                self.old[j] -= 1
        if MINUS not in prefix:  # in the result
            self.new -= 1
        return True

    def other_line(self, line: int, s: int, be: int) -> None:
        """A line outside any hunk: a file start, a hunk header, binary data or header metadata."""
        raw = self.raw
        if FILE_START_RE.match(raw, s, be):
            self.in_header, self.in_binary = True, False
            return
        m = HUNK_RE.match(raw, s, be)
        if m:
            ranges = RANGE_RE.findall(m.group(2))
            if len(ranges) == len(m.group(1)) - 1:
                self.old = [int(count) if count else 1 for _, count in ranges]
                self.new = int(m.group(4)) if m.group(4) is not None else 1
                self.width = len(ranges)
            self.in_header = self.in_binary = False
            return
        if self.in_binary:
            if BINARY_HUNK_RE.match(raw, s, be):
                return
            if be == s or BINARY_DATA_RE.match(raw, s, be):
                self.kinds[line] = BIN
                return
            self.in_binary = False
        if self.in_header:
            if be - s == len(BINARY_PATCH) and raw.startswith(BINARY_PATCH, s):
                self.in_binary = True
            elif META_RE.match(raw, s, be):
                self.kinds[line] = META


def _hunk_lines(firsts: bytes, i: int, old: int, new: int) -> tuple[int, int, int]:
    """How far the lines from ``i`` on go on a one-parent hunk that still expects ``old``/``new``
    lines, and the counts left after them: ``(end, old, new)``.

    Only lines whose first byte is `` ``, ``+``, ``-`` or ``\\`` are taken. At least ``max(old, new)``
    more lines belong to the hunk (each line counts at most one against each side), so they are
    taken that many at a time and counted with ``bytes.count``."""
    stop = HUNK_FIRSTS_RE.match(firsts, i).end()
    while (old > 0 or new > 0) and i < stop:
        j = min(i + max(old, new), stop)
        both = firsts.count(b" ", i, j)
        old -= both + firsts.count(b"-", i, j)
        new -= both + firsts.count(b"+", i, j)
        i = j
    return i, old, new


def diff_lines_py(raw: bytes) -> tuple[array, bytearray]:
    """The twin of the kernel's ``diff_lines``: line starts and roles."""
    starts = line_starts(raw)
    return starts, classify_lines_py(raw, starts)


FILE_STARTS = (b"diff --git ", b"diff --cc ", b"diff --combined ")
FILE_HEADS = FILE_STARTS + (b"+++ ", b"--- ", b"rename from ", b"rename to ", b"copy from ", b"copy to ", b"Binary files ",
                            b"new file mode ", b"deleted file mode ", b"old mode ", b"new mode ", b"similarity index ",
                            b"dissimilarity index ", b"index ")
HINT_LEAD = "⋯".encode()
NONE_CODE = 255  # a line left to the general rules


def diff_ranks_py(text: bytes, starts, last_nl: bool) -> tuple[bytearray, array]:
    """The diff type's budget ranks of a reduced diff's lines, as ``_kernel.diff_ranks``: a code a line
    (tier * 16 + rank, ``NONE_CODE`` for a line left unranked) and the unranked lines that may be
    ``--stat`` lines (a space first, a ``|`` in it). A hunk's lines (its ``@@`` line, changes, the
    context and hints kept) share its rank, 1 to 6 by its changed lines; a file's header lines take
    its best hunk's rank, tier 2 for a file without hunks."""
    n = len(starts) - 1
    codes, stat = bytearray([NONE_CODE]) * n, array("q")
    head: list[int] = []
    state = [0, 0, -1, 0]  # best rank of the file, changed lines of the hunk, the hunk's first line, its end

    def close_hunk() -> None:
        if state[2] >= 0:
            changed = state[1]
            rank = 1 + (changed > 3) + (changed > 10) + (changed > 30) + (changed > 100) + (changed > 300)
            codes[state[2] : state[3]] = bytes([rank]) * (state[3] - state[2])
            state[0] = rank if not state[0] else min(state[0], rank)
        state[1:] = [0, -1, 0]

    def close_file() -> None:
        close_hunk()
        for j in head:
            codes[j] = state[0] if state[0] else 2 * 16
        head.clear()
        state[0] = 0

    for i in range(n):
        end = starts[i + 1] - 1 if i + 1 < n or last_nl else starts[i + 1]
        line = text[starts[i] : end]
        if line.startswith(FILE_STARTS):
            close_file()
            head.append(i)
        elif line.startswith(b"@@"):
            close_hunk()
            state[2], state[3] = i, i + 1
        elif state[2] >= 0 and (line[:1] in (b"+", b"-", b" ") or line.startswith(HINT_LEAD)):
            state[3] = i + 1
            state[1] += line[:1] in (b"+", b"-")
        elif head and state[2] < 0 and line.startswith(FILE_HEADS):
            head.append(i)
        else:
            close_hunk()
            if len(line) >= 2 and line[:1] == b" " and b"|" in line:
                stat.append(i)
    close_file()
    return codes, stat


CHG_RUN_RE = re.compile(b"%c+" % CHG)


def diff_common_py(raw: bytes, starts, kinds, skip) -> tuple[array, array, bytes] | None:
    """The changed lines (``skip[k]`` 0, first byte ``+`` or ``-``) whose text after the sign (line
    ending included) is both removed and added in the diff: their line indexes, a number for each text
    (1, 2, … in the order of each text's first such line) and their first bytes, in line order; None
    when there is none. The texts are sliced and compared by ``map`` and sets, not a Python step a line."""
    changed: list[int] = []
    for run in CHG_RUN_RE.finditer(kinds):
        changed.extend(range(*run.span()))
    if skip.find(1) >= 0:
        changed = [k for k in changed if not skip[k]]
    firsts = bytes(map(raw.__getitem__, map(starts.__getitem__, changed)))
    plus = list(compress(changed, map(PLUS.__eq__, firsts)))
    minus = list(compress(changed, map(MINUS.__eq__, firsts)))
    if not plus or not minus:
        return None
    plus_texts, minus_texts = _texts(raw, starts, plus), _texts(raw, starts, minus)
    common = set(plus_texts).intersection(minus_texts)
    if not common:
        return None
    lines = sorted([(k, t, PLUS) for k, t in zip(plus, plus_texts) if t in common]
                   + [(k, t, MINUS) for k, t in zip(minus, minus_texts) if t in common])
    numbers: dict[bytes, int] = {}
    for _, t, _ in lines:
        numbers.setdefault(t, len(numbers) + 1)
    return (array("q", [k for k, _, _ in lines]), array("q", [numbers[t] for _, t, _ in lines]),
            bytes(sign for _, _, sign in lines))


def _texts(raw: bytes, starts, lines: list[int]) -> list[bytes]:
    """The text of each line after its first byte (its line ending included)."""
    firsts = map(add, map(starts.__getitem__, lines), repeat(1))
    return list(map(raw.__getitem__, map(slice, firsts, map(starts.__getitem__, map(add, lines, repeat(1))))))


# over the kinds of the lines: a run of CTX, of META, of BIN, of SPECIAL, or of lines that stay
RUN_RE = re.compile(b"%c+|%c+|%c+|%c+|[%c%c%c]+" % (CTX, META, BIN, SPECIAL, OTHER, CHG, NONL))
HINT_LEN = len("⋯ ".encode())  # a hint line's head; a context hint is "⋯ N" and the line ending
PIECE_KEEP, PIECE_SHOW, PIECE_OMIT = 0, 1, 2  # as ``operators.reduction`` numbers a plan's pieces
SHOW_CONTEXT, SHOW_BINARY, SHOW_SPECIAL = range(3)  # the shown texts' families (``diff_pieces_py``)


class _Pieces:
    """A diff plan's pieces as columns, joined as ``operators.reduction.Plan`` joins them; ``merged``:
    a text would have been shown right after another (the columns cannot say that)."""

    def __init__(self, raw: bytes):
        self.raw, self.kinds, self.starts, self.ends, self.codes = raw, bytearray(), array("q"), array("q"), array("q")
        self.pos, self.line_ends, self.omitted, self.merged = 0, True, 0, False

    def keep(self, start: int, end: int) -> None:
        if end != start:
            if self.kinds and self.kinds[-1] == PIECE_KEEP and self.ends[-1] == start:
                self.ends[-1] = end
            else:
                self._add(PIECE_KEEP, start, end, 0)
            self.line_ends = self.raw[end - 1] == NL
        self.pos = end

    def omit(self, start: int, end: int) -> None:
        if end != start:
            self.omitted += end - start
            if self.kinds and self.kinds[-1] == PIECE_OMIT and self.ends[-1] == start:
                self.ends[-1] = end
            else:
                self._add(PIECE_OMIT, start, end, 1)
        self.pos = end

    def cut(self, start: int, end: int) -> None:
        self.keep(self.pos, start)
        self.omit(start, end)

    def show(self, value: int, family: int, crlf: bool) -> None:
        """A text, after a newline unless what is shown ends a line (``diff._after_newline``; a context
        hint follows a line start anyway)."""
        if self.kinds and self.kinds[-1] == PIECE_SHOW:
            self.merged = True
        lead = family != SHOW_CONTEXT and not self.line_ends
        self._add(PIECE_SHOW, 0, 0, 2 + (value << 4 | family << 2 | lead << 1 | crlf))
        self.line_ends = True  # every text shown ends with a line ending

    def _add(self, kind: int, start: int, end: int, code: int) -> None:
        self.kinds.append(kind)
        self.starts.append(start)
        self.ends.append(end)
        self.codes.append(code)


def _crlf(raw: bytes, start: int, end: int) -> bool:
    return raw.endswith(b"\r\n", start, end)


def _mixed(raw: bytes, starts, kinds, k: int, step: int) -> bool:
    """Whether the block of CHG/NONL lines from line ``k`` (read in direction ``step``) both removes and
    adds lines, or has a line of another first byte (a combined diff's)."""
    n, signs = len(kinds), set()
    while 0 <= k < n and kinds[k] in (CHG, NONL):
        if kinds[k] == CHG:
            signs.add(raw[starts[k]])
        k += step
    return len(signs) > 1 or not signs <= {PLUS, MINUS}


def diff_pieces_py(raw: bytes, starts, kinds, keep_n: int, pure_n: int, sp_first, sp_end, sp_len):
    """The pieces of a diff's plan but its marker, as columns: (piece kinds, starts, ends, codes, context
    lines cut, index/mode lines cut, binary lines cut, bytes omitted), or None when two texts would be
    shown one after the other or a run of SPECIAL lines does not start a block. ``kinds``: each line's
    role, SPECIAL for the lines of the blocks ``sp_first``/``sp_end`` (first line, end line, in order;
    ``sp_len``: the length of the text each shows, 0 for none). Each run of context lines goes but for
    ``keep_n`` lines next to a change that removes and adds lines (``pure_n`` next to one that only adds
    or only removes), when at least one line goes and its hint ``⋯ N`` is shorter; a run of index/mode
    lines goes; a run of binary data goes, a hint in its place; each block goes, its text in its place.
    A kept or omitted piece's code is 0 or 1; a shown text's is 2 + (value << 4 | family << 2 | lead
    << 1 | crlf): family SHOW_CONTEXT (``⋯ N``, value N), SHOW_BINARY (value: the lines cut) or
    SHOW_SPECIAL (value: the block), lead: a newline first, crlf: ending with ``\\r\\n``."""
    n = len(kinds)
    blocks = {a: (b, length, index) for index, (a, b, length) in enumerate(zip(sp_first, sp_end, sp_len))}
    out = _Pieces(raw)
    cut_context = cut_meta = cut_binary = 0
    for run in RUN_RE.finditer(kinds):
        i, j = run.span()
        kind = kinds[i]
        if kind == CTX:
            head = tail = 0
            if i > 0 and kinds[i - 1] in (CHG, NONL):
                head = keep_n if keep_n == pure_n or _mixed(raw, starts, kinds, i - 1, -1) else pure_n
            if j < n and kinds[j] in (CHG, NONL):
                tail = keep_n if keep_n == pure_n or _mixed(raw, starts, kinds, j, 1) else pure_n
            if j < n and kinds[j] == NONL:
                tail = max(tail, 1)  # the line a "\ No newline" note is about
            a, b = i + head, j - tail
            if b > a:
                start, end = starts[a], starts[b]
                crlf = _crlf(raw, starts[b - 1], end)
                if end - start > HINT_LEN + len(str(b - a)) + 1 + crlf:
                    out.cut(start, end)
                    out.show(b - a, SHOW_CONTEXT, crlf)
                    cut_context += b - a
        elif kind == META:
            out.cut(starts[i], starts[j])
            cut_meta += j - i
        elif kind == BIN:
            out.cut(starts[i], starts[j])
            out.show(j - i, SHOW_BINARY, _crlf(raw, starts[j - 1], starts[j]))
            cut_binary += j - i
        elif kind == SPECIAL:
            while i < j:
                if i not in blocks:
                    return None
                b, length, index = blocks[i]
                out.cut(starts[i], starts[b])
                if length:
                    out.show(index, SHOW_SPECIAL, False)
                i = b
    out.keep(out.pos, len(raw))
    if out.merged:
        return None
    return out.kinds, out.starts, out.ends, out.codes, cut_context, cut_meta, cut_binary, out.omitted


CHANGED_HEAD = rb"(?:\+(?!\+\+ )|-(?!-- ))"  # + or - lines, not the file headers
CHANGED_FIRST_RE = re.compile(CHANGED_HEAD + rb"[^\n]*")
CHANGED_REST_RE = re.compile(rb"\n(" + CHANGED_HEAD + rb"[^\n]*)")


def changed_lines_py(raw: bytes, limit: int, block: int = 1 << 20) -> list[bytes]:
    """The first distinct changed lines (``+``/``-`` lines but the file headers, trailing ``\r`` stripped,
    longer than their sign) among the first ``2 * limit`` of them, but those whose text occurs with the
    other sign too (moved lines), the first ``limit``. The lines are read a block of about ``block``
    bytes at a time (one ``findall`` each) and each block's go through ``map``, ``set`` and ``dict`` in C."""
    out: dict[bytes, None] = {}  # the first 2 * limit distinct lines (a block's more, cut below)
    seen: dict[int, set[int]] = {PLUS: set(), MINUS: set()}  # sign -> the hash of each text: 1 small entry a line
    cr = b"\r" in raw
    for lines in _changed_blocks(raw, block):
        if cr:
            lines = [line.rstrip(b"\r") for line in lines]
        bodies = list(compress(lines, map((1).__lt__, map(len, lines))))
        signs = bytes(map(_SIGN, bodies))
        hashes = list(map(hash, map(_TEXT, bodies)))
        for sign, hashed in seen.items():
            hashed.update(compress(hashes, map(sign.__eq__, signs)))
        if len(out) < 2 * limit:
            out.update(dict.fromkeys(bodies))
    other = {PLUS: seen[MINUS], MINUS: seen[PLUS]}
    first = islice(out, 2 * limit)
    return [body for body in first if hash(body[1:]) not in other[body[0]]][:limit]


_SIGN, _TEXT = itemgetter(0), itemgetter(slice(1, None))


def _changed_blocks(raw: bytes, block: int):
    """The changed lines of ``raw``, in order, a list a block of about ``block`` bytes."""
    first = CHANGED_FIRST_RE.match(raw)
    if first:
        yield [first.group()]
    pos, n = 0, len(raw)
    while pos < n:
        stop = raw.find(b"\n", pos + block)
        stop = n if stop < 0 else stop  # the next block starts at this newline
        yield CHANGED_REST_RE.findall(raw, pos, stop)
        pos = stop


GITLOG_HINT_RE = re.compile(rb"(\n?)\xe2\x8b\xaf (\d+)(\r?\n)")  # the diff type's hint line: "⋯ N"


class _Splice:
    """The pieces a git log's plan takes from a patch, as columns, joined as ``operators.reduction.Plan``
    joins them (texts in a row into one); ``declined``: the Python steps are needed."""

    def __init__(self, raw: bytes, group, pos: int, line_ends: bool):
        self.raw, self.group, self.pos, self.line_ends = raw, group, pos, line_ends
        self.kinds, self.starts, self.ends, self.objs = bytearray(), array("q"), array("q"), []
        self.omitted = self.shown = 0

    def _add(self, kind: int, start: int, end: int, obj) -> None:
        self.kinds.append(kind)
        self.starts.append(start)
        self.ends.append(end)
        self.objs.append(obj)

    def keep(self, start: int, end: int) -> bool:
        if start != self.pos or end < start:
            return False
        if end != start:
            if self.kinds and self.kinds[-1] == PIECE_KEEP and self.ends[-1] == start:
                self.ends[-1] = end
            else:
                self._add(PIECE_KEEP, start, end, None)
            self.line_ends = self.raw[end - 1] == NL
        self.pos = end
        return True

    def omit_to(self, end: int) -> None:
        if end > self.pos:
            self.omitted += end - self.pos
            if self.kinds and self.kinds[-1] == PIECE_OMIT and self.ends[-1] == self.pos and self.objs[-1] is self.group:
                self.ends[-1] = end
            else:
                self._add(PIECE_OMIT, self.pos, end, self.group)
            self.pos = end

    def show(self, text: bytes) -> None:
        self.shown += len(text)
        if text:
            if self.kinds and self.kinds[-1] == PIECE_SHOW:
                self.objs[-1] += text
            else:
                self._add(PIECE_SHOW, 0, 0, text)
            self.line_ends = text[-1] == NL

    def part(self, a: int, b: int, hint) -> bool:
        """A part of an omitted piece goes; with the diff's hint, its own ``⋯ N`` (N: its lines)."""
        if b <= a:
            return True
        self.omit_to(b)
        if hint is None:
            return True
        heads = (b"index ", b"old mode ", b"similarity index ", b"dissimilarity index ")
        if any(self.raw.startswith(heads, line_start, b) for line_start in _line_starts_in(self.raw, a, b)):
            return False  # maybe an index/mode line, not counted (``META_RE``): the Python steps count
        lines = self.raw.count(b"\n", a, b) + (self.raw[b - 1] != NL)
        if lines:
            text = f"⋯ {lines}".encode() + hint.group(3)
            self.show(text if self.line_ends else b"\n" + text)
        return True


def _line_starts_in(raw: bytes, a: int, b: int):
    """Where each line of ``raw[a:b]`` starts (``a`` at a line start)."""
    while a < b:
        yield a
        nl = raw.find(b"\n", a, b)
        a = b if nl < 0 else nl + 1


def gitlog_splice_py(raw: bytes, offset: int, kinds, starts, ends, objs: list, first: int, stop: int, over_k: int,
                     over_text: bytes, split, sig_starts, sig_ends, group, pos: int, line_ends: bool):
    """Pieces ``first:stop`` of a patch's plan (``kinds``, ``starts``, ``ends`` relative to ``offset``,
    ``objs``; piece ``over_k`` shows ``over_text`` instead) as a git log's plan takes them from position
    ``pos`` (``line_ends``: whether what it shows so far ends a line): kept and shown as they are, omitted
    into ``group`` but each piece starting at one of ``split`` (in order): its lines ``sig_starts`` to
    ``sig_ends`` (in order) stay, each part around them goes, and when the diff's text after the piece is a
    hint ``⋯ N``, each part shows its own and the rest of that text is shown in its place. Returns (piece
    kinds, starts, ends, objects, bytes omitted, bytes shown), or None when the Python steps are needed
    (a piece not where the plan is, a marker, a part that may hold an index line)."""
    out = _Splice(raw, group, pos, line_ends)
    split = set(split)
    sig = sorted(zip(sig_starts, sig_ends))
    si, pending = 0, {}
    for k in range(first, stop):
        kind = kinds[k]
        if kind == PIECE_KEEP:
            if not out.keep(offset + starts[k], offset + ends[k]):
                return None
        elif kind == PIECE_SHOW:
            out.show(pending.get(k, over_text if k == over_k else objs[k]))
        elif kind == PIECE_OMIT:
            a, b = offset + starts[k], offset + ends[k]
            if a != out.pos:
                return None
            if a not in split:
                out.omit_to(b)
                continue
            hint = None
            if k + 1 < stop and kinds[k + 1] == PIECE_SHOW:
                nxt = over_text if k + 1 == over_k else objs[k + 1]
                hint = GITLOG_HINT_RE.match(nxt)
            at = a
            while si < len(sig) and sig[si][0] < a:
                si += 1
            while si < len(sig) and sig[si][0] < b:
                line_start, line_end = sig[si]
                if line_start < at or line_end > b or not out.part(at, line_start, hint) or not out.keep(line_start, line_end):
                    return None
                at = line_end
                si += 1
            if not out.part(at, b, hint):
                return None
            if hint is not None:
                pending[k + 1] = nxt[hint.end():]
        else:
            return None  # a marker: the Python steps
    return bytes(out.kinds), out.starts, out.ends, out.objs, out.omitted, out.shown


def place_matches_py(offsets, starts, ends, matches, line_starts, bodies) -> tuple[array, array, bytes]:
    """For each match (``matches``: start, end pairs in the joined text of the pieces ``starts``/``ends``
    of an input, piece k's text at ``offsets[k]``): its piece (the last whose text starts at or before
    it, 0 before the first), the input's line holding its start there (``line_starts``: each line's start,
    then the end; the last line at most; ``bodies``: where each line's text ends), and whether it lies
    inside its piece and that line's text."""
    pieces, lines, inside = array("q"), array("q"), bytearray()
    for j in range(0, len(matches), 2):
        s, e = matches[j], matches[j + 1]
        k = max(0, bisect_right(offsets, s) - 1)
        rs, re_ = starts[k] + s - offsets[k], starts[k] + e - offsets[k]
        line = max(0, min(len(bodies) - 1, bisect_right(line_starts, rs) - 1))
        pieces.append(k)
        lines.append(line)
        inside.append(starts[k] <= rs < ends[k] and re_ <= bodies[line])
    return pieces, lines, bytes(inside)
