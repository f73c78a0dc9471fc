"""Diff reducer: keep what changed and what tells the reader where; park the rest in one ref.

Kept verbatim, in place: every file header (``diff --git``, ``---``/``+++``, rename/copy from/to,
``new``/``deleted file mode``, ``new mode``, ``Binary files … differ``, ``GIT binary patch`` with its
``literal``/``delta`` lines), every hunk header, every ``+``/``-`` line, every ``\\ No newline at end of
file``, and anything that is not part of a diff (commit headers, messages, stat blocks, trailers).

Omitted, all into ONE coarse ref (group ``context``), each place with one line starting ``⋯``:

* git metadata with no decision value: ``index abc..def 100644``, ``old mode``, ``similarity index``,
  ``dissimilarity index`` (the rename/copy lines and ``new mode`` stay);
* unchanged context lines: ``context_keep`` lines (default 1) stay next to a change that removes and
  adds lines, ``pure_keep`` lines (default 0) next to a block that only adds or only removes lines
  (its hunk header already says where it is); the rest of a run goes, ``⋯ N`` standing for N lines;
* the base85 data of ``GIT binary patch`` blocks (hint ``⋯ N lines of binary patch data``);
* the hunks of lockfiles and generated files (``operators.vocab.summarised_file``: package-lock.json,
  yarn.lock, pnpm-lock.yaml, poetry.lock, Cargo.lock, Gemfile.lock, go.sum, composer.lock, *.min.js,
  *.min.css, *.map, snapshots): the ``diff --git`` line stays, then one line ``⋯ N packages changed:
  name old → new, … (+A -D lines)`` (``⋯ generated file: +A -D lines`` when no version is recognised);
* moved blocks: removed lines added back verbatim elsewhere in the diff (as git's ``--color-moved``
  finds them; at least 3 lines or 80 bytes, and 20 letters or digits), shown at both places as
  ``⋯ moved N lines from A:line to B:line`` — but where they were added, while the view has room for
  them (``ROOM_SHARE`` of the output ceiling; ``with_moved``), the added lines stay as printed (the
  first of a block too long for it, ``… : the first K shown above``);
* files without hunks become one line: a rename-only file its ``diff --git a/X b/Y`` line (the
  ``rename from``/``to`` lines go), a binary file its ``Binary files … differ`` line (its ``diff
  --git`` line and a plain ``new``/``deleted file mode 100644`` go).

The SIGNAL check asks for every changed line but those of summarised files (told by path alone) and
those that occur with both signs (moved lines): ``operators.signals.changed_lines``.

Hunks are walked by their line counts, so a removed line that reads ``--- a/x`` or ``diff --git`` is
still a changed line. Combined diffs (``diff --cc``, ``@@@``) work the same way with one prefix column
per parent. A hunk whose lines do not match its header is left as it is: nothing is cut from it.
One marker line at the end names the ref. A diff where cutting would save less than ``MIN_GAIN``
bytes net (hints and marker included) passes through untouched. A ``--stat`` listing alone (``git diff
--stat``) keeps every line, the spaces that align its ``|`` and counts to the longest path shortened
to one (group ``padding``, ``_stat_padding``: a third of pydantic's 31 KB listing).

Memory: no line is copied. The walk holds an int64 start offset and a kind byte a line, reads the
raw bytes in place, and the plan it makes is compact (``operators.reduction.Pieces``); one hint
bytes object is shared by every hint of the same text. Moved blocks are looked for among at most
``MAX_MOVED_LINES`` changed lines (a dict of the added lines' bytes).

Speed: line starts and roles come from one pass of the C kernel (``operators.kernel.diff_lines``) when it
is built; ``operators.kernel.diff_twins``' ``line_starts`` and ``classify_lines_py`` are its pure-Python
twins (same results).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from itertools import compress, repeat

from operators.ceiling import visible_size
from operators.config import Section, section
from operators.kernel import diff_common, diff_lines, diff_pieces, diff_ranks
from operators.kernel.diff_twins import (  # the line roles and the header patterns
    BIN, CHG, CTX, HUNK_RE, META, MINUS, NONL, OTHER, PLUS, RANGE_RE, SHOW_BINARY, SHOW_CONTEXT, SPECIAL,
)
from operators.reduction import SHOW, Plan, line_spans, passthrough
from operators.vocab import git_file_path, is_log_line, may_summarise, summarised_file
from operators.relazy import lazy  # patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first

GROUP = "context"
REASON = "unchanged diff context, git metadata and binary patch data"

ANCHORS = (CHG, NONL)
MIN_CUT = 1  # cut a context run only when at least this many lines can go
PURE_KEEP = 0  # unchanged lines kept next to a block that only adds or only removes lines
HINT = "⋯"  # starts every line the reducer shows; "⋯ N" stands for N unchanged lines
HINT_BYTES = HINT.encode()
MIN_GAIN = 32  # bytes; a smaller net saving is not worth a ref and a marker: pass through

# over the kinds of the lines (a bytearray): a run of CTX, of META, of BIN, or of lines that stay
RUN_RE = lazy(b"%c+|%c+|%c+|%c+|[%c%c%c]+" % (CTX, META, BIN, SPECIAL, OTHER, CHG, NONL))


def lines_and_kinds(raw: bytes) -> tuple:
    """Where each line starts and the role of each line, in one pass of the C kernel
    (``diff_lines``) when it is built, else by its Python twins (``operators.kernel.diff_twins``)."""
    return diff_lines(raw)


def reduce_diff(raw: bytes, context_keep: int, pure_keep: int | None = None, summarise: bool | None = None,
                moved: "Moved | None" = None) -> Plan:
    """The plan of a diff: ``context_keep`` unchanged lines stay next to a change that mixes removed
    and added lines, ``pure_keep`` (default: the smaller of ``PURE_KEEP`` and ``context_keep``) next
    to a block that only adds or only removes lines, or a moved block. ``summarise`` False: no
    ``diff --git`` line may name a summarised file, as a caller found once in a larger text holding
    this one (None: searched here). ``moved``: how many bytes of moved blocks' added lines may be
    shown where they were added, and the sizes of those folded (``Moved``)."""
    starts, kinds = lines_and_kinds(raw)
    keep_n = max(0, context_keep)
    pure_n = max(0, min(PURE_KEEP, keep_n) if pure_keep is None else pure_keep)
    special = _special_blocks(raw, starts, kinds, summarise, moved)  # first line -> (end line, shown text, what)
    if special:
        kinds = bytearray(kinds)
        for a, (b, _, _) in special.items():
            kinds[a:b] = bytes([SPECIAL]) * (b - a)
    cut_special = {"generated": 0, "moved": 0, "header": 0}
    made = _pieces(raw, starts, kinds, keep_n, pure_n, special)
    if made is None:
        plan, cut_context, cut_meta, cut_binary, omitted, shown = _plan_by_lines(raw, starts, kinds, keep_n, pure_n, special, cut_special)
    else:
        plan, cut_context, cut_meta, cut_binary, omitted, shown = made
        for a, (b, _, what) in special.items():
            cut_special[what] += b - a

    if plan.omits_anything:
        counts = {"context": cut_context, "meta": cut_meta, "binary": cut_binary, **cut_special}
        text = _after_newline(plan, f"[diff: omitted {_omitted(counts)}; exact bytes: ".encode())
        plan.show(text)
        plan.mark(GROUP)
        plan.show(b"]\n")
        shown += len(text) + 2
        if omitted - shown - len("#ref:ctx_000000") < MIN_GAIN:
            return passthrough(raw)
    return plan.finish()


def _pieces(raw: bytes, starts, kinds, keep_n: int, pure_n: int, special: dict):
    """The plan but its marker, a run of lines at a time by the kernel (``diff_pieces``: its pieces
    as columns, the texts shown as codes made into bytes here, one object each distinct text), and
    the lines and bytes cut and shown; None when the blocks of ``special`` overlap or the kernel
    declines (then ``_plan_by_lines`` makes it)."""
    firsts = sorted(special)
    if any(special[a][0] > b for a, b in zip(firsts, firsts[1:])):
        return None
    ends = array("q", [special[a][0] for a in firsts])
    texts = [special[a][1] for a in firsts]
    made = diff_pieces(raw, starts, kinds, keep_n, pure_n, array("q", firsts), ends, array("q", map(len, texts)))
    if made is None:
        return None
    piece_kinds, piece_starts, piece_ends, codes, cut_context, cut_meta, cut_binary, omitted = made
    plan = Plan(raw)
    pieces = plan.pieces
    pieces.kinds = bytearray(piece_kinds)
    pieces.starts.frombytes(memoryview(piece_starts).cast("B"))
    pieces.ends.frombytes(memoryview(piece_ends).cast("B"))
    pieces.objs = list(map((_Shown(texts) if texts else _PLAIN_SHOWN).__getitem__, codes))
    plan._pos = len(raw)
    if omitted:
        plan.reasons[GROUP] = REASON
    shown = sum(map(len, compress(pieces.objs, pieces.kinds.translate(_SHOW_FLAG))))
    return plan, cut_context, cut_meta, cut_binary, omitted, shown


_SHOW_FLAG = bytes(k == SHOW for k in range(256))


class _Shown(dict):
    """A piece's code (``diff_twins.diff_pieces_py``) -> its object: None (kept), the group (omitted) or
    the text shown, made on first use (``texts``: the special blocks' texts, in order)."""

    def __init__(self, texts: list[bytes]):
        super().__init__({0: None, 1: GROUP})
        self.texts = texts

    def __missing__(self, code: int) -> bytes:
        value, family, lead, crlf = (code - 2) >> 4, (code - 2) >> 2 & 3, (code - 2) >> 1 & 1, (code - 2) & 1
        eol = b"\r\n" if crlf else b"\n"
        if family == SHOW_CONTEXT:
            text = f"{HINT} {value}".encode() + eol
        elif family == SHOW_BINARY:
            text = f"{HINT} {_count(value, 'line')} of binary patch data".encode() + eol
        else:
            text = self.texts[value]
        text = b"\n" + text if lead else text
        self[code] = text
        return text


_PLAIN_SHOWN = _Shown([])  # the codes of a diff without special blocks (most patches of a git log): made once a process


def _plan_by_lines(raw: bytes, starts, kinds, keep_n: int, pure_n: int, special: dict, cut_special: dict):
    """``_pieces``' plan and counts made a run of lines at a time in Python, through the plan's steps."""
    n = len(kinds)
    plan = Plan(raw)
    cut_context = cut_meta = cut_binary = 0
    omitted = shown = 0  # bytes, for the MIN_GAIN check
    hints: dict[tuple[int, bool], bytes] = {}  # one bytes object per distinct hint, shared by its pieces

    def cut(start: int, end: int) -> None:  # everything since the last cut stays, then start:end goes
        nonlocal omitted
        plan.keep(plan.position, start)
        plan.omit(start, end, GROUP, REASON)
        omitted += end - start

    def show(text: bytes) -> None:
        nonlocal shown
        shown += len(text)
        plan.show(text)

    def keep_next(k: int, step: int) -> int:  # context kept on the side of the change at line k
        if keep_n == pure_n:  # (the git log type's patches: 0 either way)
            return keep_n
        return keep_n if _mixed_change(raw, starts, kinds, k, step) else pure_n

    keep, omit, plan_show = plan.keep, plan.omit, plan.show  # the context runs' steps, inline: a run every few lines
    for run in RUN_RE.finditer(kinds):  # runs of context, of git metadata, of binary data, of the rest
        i, j = run.span()
        kind = kinds[i]
        if kind == CTX:
            head = keep_next(i - 1, -1) if i > 0 and kinds[i - 1] in ANCHORS else 0
            tail = keep_next(j, 1) if j < n and kinds[j] in ANCHORS else 0
            if j < n and kinds[j] == NONL:
                tail = max(tail, 1)  # the line a "\ No newline" note is about
            a, b = i + head, j - tail
            if b > a:
                start, end = starts[a], starts[b]
                crlf = raw.endswith(b"\r\n", starts[b - 1], end)
                text = hints.get((b - a, crlf))
                if text is None:
                    text = hints[b - a, crlf] = f"{HINT} {b - a}".encode() + (b"\r\n" if crlf else b"\n")
                if b - a >= MIN_CUT and end - start > len(text):
                    keep(plan.position, start)  # (``cut`` and ``show``)
                    omit(start, end, GROUP, REASON)
                    omitted += end - start
                    shown += len(text)
                    plan_show(text)  # after a newline: what is kept ends at a line start, what is shown with one
                    cut_context += b - a
        elif kind == META:
            cut(starts[i], starts[j])
            cut_meta += j - i
        elif kind == BIN:
            cut(starts[i], starts[j])
            crlf = raw.endswith(b"\r\n", starts[j - 1], starts[j])
            show(_after_newline(plan, f"{HINT} {_count(j - i, 'line')} of binary patch data".encode() + (b"\r\n" if crlf else b"\n")))
            cut_binary += j - i
        elif kind == SPECIAL:
            while i < j:
                b, text, what = special[i]
                cut(starts[i], starts[b])
                if text:
                    show(_after_newline(plan, text))
                cut_special[what] += b - i
                i = b
    plan.keep_rest()
    return plan, cut_context, cut_meta, cut_binary, omitted, shown


OMITTED_TEXT = {  # what the marker line says of each kind of omitted line, in this order
    "context": ("unchanged line", f" ({HINT} N)"),
    "meta": ("index/mode line", ""),
    "binary": ("line", " of binary patch data"),
    "generated": ("line", " of lockfiles/generated files"),
    "header": ("header line", " of renamed/binary files"),
    "moved": ("moved line", ""),
}


def _omitted(counts: dict[str, int]) -> str:
    """``6 unchanged lines (⋯ N), 2 index/mode lines``: the omitted lines of each kind, for the marker line."""
    return ", ".join(_count(counts[kind], noun) + tail for kind, (noun, tail) in OMITTED_TEXT.items() if counts[kind])


def _mixed_change(raw: bytes, starts, kinds, k: int, step: int) -> bool:
    """Whether the block of changed lines that starts at line ``k`` (read in direction ``step``)
    both removes and adds lines (or is a combined diff's), rather than only adding or only removing."""
    n = len(kinds)
    signs = set()
    while 0 <= k < n and kinds[k] in ANCHORS:
        if kinds[k] == CHG:
            signs.add(raw[starts[k]])
            if len(signs) > 1:
                return True
        k += step
    return not signs <= {PLUS, MINUS}


# -- lockfiles and generated files, moved blocks ----------------------------------------------------
HEADER_LINE_RE = lazy(
    rb"(?:--- |\+\+\+ |@@|new file mode|deleted file mode|new mode|rename |copy |Binary files|GIT binary patch"
    rb"|literal \d|delta \d)"
)
FILE_LINE_RE = lazy(rb"\ndiff --(?:git|cc|combined) ")  # a literal head: found at C speed


def _special_blocks(raw: bytes, starts, kinds, summarise: bool | None = None,
                    moved: "Moved | None" = None) -> dict[int, tuple[int, bytes, str]]:
    """The lines that go behind the ref as a whole, each block with the one line shown instead:
    summarised files (all but their ``diff --git`` line) and moved blocks (both places; but the added
    lines of those, in order, that ``moved.left`` holds stay as printed where they were added: the
    code as it reads now).
    ``summarise`` False: no ``diff --git`` line may name a summarised file (``may_summarise``; None:
    searched here)."""
    others = _others(kinds)
    files = _file_lines(raw, starts, kinds, others)
    blocks: dict[int, tuple[int, bytes, str]] = {}
    skip = bytearray(len(kinds))  # lines of summarised files: no moved block there
    for k, f in enumerate(files if summarise is not False and may_summarise(raw) else ()):  # (one search: none names one)
        end = files[k + 1] if k + 1 < len(files) else len(kinds)
        path = git_file_path(_body(raw, starts, f))
        if path is None or not summarised_file(path):
            continue
        while end > f + 1 and kinds[end - 1] == OTHER and not HEADER_LINE_RE.match(_body(raw, starts, end - 1)):
            end -= 1  # lines after the file's last hunk are not its own
        if CHG not in kinds[f + 1 : end]:
            continue
        first = f + 1  # the file's header lines (its --- and +++ lines) stay: the summary starts at its first hunk
        while first < end and not raw.startswith(b"@@", starts[first]):
            first += 1
        if first == end:
            first = f + 1
        blocks[first] = (end, _eol(raw, starts, end - 1, _lock_summary(raw, starts, kinds, first, end)), "generated")
        skip[f + 1 : end] = b"\x01" * (end - f - 1)
    # a file without hunks shown as fewer lines has a "rename from/to" or a "Binary files" line
    for k, f in enumerate(files if _renamed_or_binary(raw, starts, others) else ()):
        header = _header_only(raw, starts, kinds, f, files[k + 1] if k + 1 < len(files) else len(kinds))
        if header is not None:
            blocks[header[0]] = (header[1], b"", "header")
    _moved_special(raw, starts, kinds, skip, moved, blocks)
    return blocks


def _moved_special(raw: bytes, starts, kinds, skip: bytearray, moved: "Moved | None", blocks: dict) -> None:
    """The moved blocks' entries of ``_special_blocks``: each removed place one line, each added place
    too unless ``moved`` holds room for its lines (or, past ``MOVED_PART_MIN`` bytes of room, its first
    lines)."""
    for d, a, length in _moved_blocks(raw, starts, kinds, skip):
        old = _where(raw, starts, kinds, d, MINUS)
        new = _where(raw, starts, kinds, a, PLUS)
        text = f"{HINT} moved {_count(length, 'line')} from {old} to {new}"
        blocks[d] = (d + length, _eol(raw, starts, d + length - 1, text), "moved")
        size = _span(raw, starts, a, a + length)
        if moved is not None and size <= moved.left:
            moved.left -= size
            continue
        first = 0  # the lines of a block too long for the room shown from its start, as many as it holds
        if moved is not None and moved.left >= MOVED_PART_MIN:
            longest = len(f"{text}: the first {length} shown above\n".encode())  # its line, which takes room too
            first = max(0, bisect_right(starts, starts[a] + moved.left - longest, a, a + length) - a - 1)
            moved.left = 0
            if first:
                text = f"{text}: the first {first} shown above"
        blocks[a + first] = (a + length, _eol(raw, starts, a + length - 1, text), "moved")
        if moved is not None and not first:
            moved.folded.append(size)


MOVED_PART_MIN = 2048  # bytes of room from which a moved block too long for it shows its first lines


def _span(raw: bytes, starts, a: int, b: int) -> int:
    """The bytes of lines ``a`` to ``b`` (not included)."""
    return (starts[b] if b < len(starts) else len(raw)) - starts[a]


class Moved:
    """Moved blocks' added lines in a view: ``left`` bytes of them may still be shown where they were
    added; ``folded``, the size of each block's added lines that were not (``reduce_diff``)."""

    __slots__ = ("left", "folded")

    def __init__(self, left: int = 0):
        self.left = left
        self.folded: list[int] = []


RENAMED_OR_BINARY = (b"rename ", b"Binary files ")  # what starts a line of a file without hunks shown as fewer lines
_OTHER_FLAG = bytes(kind == OTHER for kind in range(256))  # a line's kind -> 1 for OTHER


def _others(kinds) -> list[int]:
    """The OTHER lines (file and hunk headers, git's other lines): a few a file."""
    return list(compress(range(len(kinds)), kinds.translate(_OTHER_FLAG)))


def _renamed_or_binary(raw: bytes, starts, others: list[int]) -> bool:
    """Whether a line after the first starts with ``rename `` or ``Binary files `` (what
    ``raw.find(b"\\nrename ")`` and ``raw.find(b"\\nBinary files ")`` tell): only an OTHER line can (a
    hunk's lines start with a sign or a space, an index/mode line with neither word, a line of binary
    data holds no space), so only those (``others``) are looked at, not every byte of the diff."""
    after = others[1:] if others and not others[0] else others
    return any(map(raw.startswith, repeat(RENAMED_OR_BINARY), map(starts.__getitem__, after)))


RENAME_RE = lazy(rb"rename (?:from|to) ")
PLAIN_MODE_RE = lazy(rb"(?:new|deleted) file mode 100644$")
BINARY_FILES_RE = lazy(rb"Binary files .* differ$")


def _header_only(raw: bytes, starts, kinds, f: int, end: int) -> tuple[int, int] | None:
    """The lines ``(a, b)`` to omit so that a file without hunks shows as few lines: a rename-only
    file keeps its ``diff --git a/X b/Y`` line and its ``rename from``/``rename to`` lines (the
    ``similarity index`` line goes), a binary one its ``Binary files … differ`` line (the ``diff
    --git`` line and a plain ``new``/``deleted file mode 100644`` go). Other files without hunks
    (mode changes, copies, binary patches) stay as they are: None."""
    k, renames = f + 1, 0
    while k < end and kinds[k] in (OTHER, META):
        line = _body(raw, starts, k)
        if kinds[k] == OTHER and RENAME_RE.match(line):
            renames += 1
        elif BINARY_FILES_RE.match(line) and not renames:
            return (f, k) if k + 1 == end or _trailing(raw, starts, kinds, k + 1, end) else None
        elif kinds[k] == OTHER and not PLAIN_MODE_RE.match(line):
            break
        k += 1
    if renames == 2 and (k == end or _trailing(raw, starts, kinds, k, end)):
        plain = [j for j in range(f + 1, k) if PLAIN_MODE_RE.match(_body(raw, starts, j))]
        first_rename = next(j for j in range(f + 1, k) if RENAME_RE.match(_body(raw, starts, j)))
        return None if plain or first_rename == f + 1 else (f + 1, first_rename)
    return None


def _trailing(raw: bytes, starts, kinds, k: int, end: int) -> bool:
    """Whether lines ``k:end`` after a file's header are none of its own (no hunk, no header line)."""
    return all(kinds[j] == OTHER and not HEADER_LINE_RE.match(_body(raw, starts, j)) for j in range(k, end))


FILE_HEADS = (b"diff --git ", b"diff --cc ", b"diff --combined ")  # FILE_START_RE's, FILE_LINE_RE's heads


def _file_lines(raw: bytes, starts, kinds, others: list[int] | None = None) -> list[int]:
    """The line numbers of the ``diff --git``/``diff --cc`` lines that start files: the OTHER lines
    (``others``, found here when None) that start so, each asked at C speed (not a search of the diff)."""
    others = _others(kinds) if others is None else others
    return list(compress(others, map(raw.startswith, repeat(FILE_HEADS), map(starts.__getitem__, others))))


def _body(raw: bytes, starts, k: int) -> bytes:
    return raw[starts[k] : starts[k + 1]].rstrip(b"\r\n")


def _eol(raw: bytes, starts, last: int, text: str) -> bytes:
    """``text`` as a line, ending as line ``last`` of the input ends (CRLF or LF)."""
    return text.encode() + (b"\r\n" if raw.endswith(b"\r\n", starts[last], starts[last + 1]) else b"\n")


# one package's name or version on a lockfile line (the text after the diff's sign, stripped)
LOCK_NAME_RES = (
    lazy(rb'"(?:[^"]*/)?node_modules/((?:@[^/"]+/)?[^/"]+)": \{'),  # package-lock.json v2/v3
    lazy(rb'"?name"?\s*[=:]\s*"([^"]+)"'),  # Cargo.lock, poetry.lock, composer.lock
    lazy(  # pnpm-lock.yaml importers: a package's key (not one of the format's own keys)
        rb"(?!(?:\w*[dD]ependencies\w*|packages|importers|snapshots|specifiers|settings|resolution|engines|bin|os|cpu"
        rb"|libc|funding|overrides|patchedDependencies|lockfileVersion):$)'?((?:@[^@/\s']+/)?[^@\s':'\"]+)'?:$"
    ),
    lazy(rb'"?((?:@[^@/\s"]+/)?[^@\s",]+)@[^\n]*:$'),  # yarn.lock entry header
)
LOCK_VERSION_RE = lazy(rb'"?version"?\s*[=:]?\s*"?([^",\s(]+)')  # pnpm: without its (peer@x) suffix
LOCK_INLINE_RES = (
    lazy(rb"'?/?((?:@[^@/\s']+/)?[^@\s/'][^@\s']*)@(\d[^:\s('']*)(?:\([^)]*\))*'?:$"),  # pnpm-lock.yaml packages
    lazy(rb"/((?:@[^/\s]+/)?[^/\s]+)/(\d[^_:\s]*)(?:_[^:\s]*)?:$"),  # pnpm-lock.yaml v5 packages
    lazy(  # pnpm-lock.yaml v5 importers: 'name': 1.2.3 (not the format's own keys)
        rb"(?!(?:lockfileVersion|settings|version|specifier|requires|resolution):)'?((?:@[^@/\s']+/)?[^@\s':]+)'?: (\d[^\s_(]*)(?:[_(]\S*)?$"
    ),
    lazy(rb"([A-Za-z0-9_.-]+) \((\d[^)]*)\)$"),  # Gemfile.lock
    lazy(rb"(\S+) (v\d[^\s/]*)(?:/go\.mod)? h1:"),  # go.sum
)
MAX_NAMED = 12  # packages named on the summary line; the rest are counted


def _lock_summary(raw: bytes, starts, kinds, a: int, b: int) -> str:
    """``⋯ N packages changed: name old → new, …`` for the lines ``a:b`` of a lockfile, with the
    count of changed lines; just the counts when no package version is recognised."""
    old: dict[bytes, list[bytes]] = {}
    new: dict[bytes, list[bytes]] = {}
    added = removed = 0
    name = None
    for k in range(a, b):
        kind = kinds[k]
        line = _body(raw, starts, k)
        if kind == OTHER:
            if line.startswith(b"@@"):
                name = None
            continue
        if kind not in (CTX, CHG):
            continue
        sign, text = line[:1], line[1:].strip()
        if kind == CHG:
            added += sign == b"+"
            removed += sign == b"-"
        if not text:
            name = None  # a blank line ends an entry (yarn.lock, Cargo.lock, poetry.lock)
            continue
        for rx in LOCK_INLINE_RES:
            m = rx.match(text)
            if m:
                if kind == CHG:
                    _add_version(old if sign == b"-" else new, m.group(1), m.group(2))
                break
        else:
            m = next((m for m in map(lambda rx: rx.match(text), LOCK_NAME_RES) if m), None)
            if m:
                name = m.group(1)
            elif kind == CHG and name is not None:
                v = LOCK_VERSION_RE.match(text)
                if v:
                    _add_version(old if sign == b"-" else new, name, v.group(1))
    counts = f"+{added} -{removed} lines"
    changes = [_change(p, old.get(p, []), new.get(p, [])) for p in dict.fromkeys([*old, *new])]
    changes = [c for c in changes if c]
    if not changes:
        return f"{HINT} generated file: {counts}"
    shown = ", ".join(changes[:MAX_NAMED]) + (f", +{len(changes) - MAX_NAMED} more" if len(changes) > MAX_NAMED else "")
    return f"{HINT} {_count(len(changes), 'package')} changed: {shown} ({counts})"


def _add_version(side: dict, name: bytes, version: bytes) -> None:
    versions = side.setdefault(name, [])
    if version not in versions:
        versions.append(version)


def _change(name: bytes, old: list[bytes], new: list[bytes]) -> str:
    if sorted(old) == sorted(new):
        return ""
    text = name.decode("utf-8", "replace")
    was, now = (b",".join(v).decode("utf-8", "replace") for v in (old, new))
    if not old:
        return f"{text} (added {now})"
    if not new:
        return f"{text} (removed {was})"
    return f"{text} {was} → {now}"


MOVED_MIN_LINES, MOVED_MIN_BYTES, MOVED_MIN_ALNUM = 3, 80, 20
MAX_MOVED_CANDIDATES = 32  # places tried for each removed line (bounds repetitive diffs)
MAX_MOVED_LINES = 200_000  # changed lines beyond which moved blocks are not looked for
MOVED_WORK = 8  # lines compared, on average, for each changed line
ALNUM_RE = lazy(rb"[0-9A-Za-z]")


def _moved_blocks(raw: bytes, starts, kinds, skip: bytearray) -> list[tuple[int, int, int]]:
    """Blocks of removed lines added back verbatim elsewhere (as git's ``--color-moved`` finds them):
    ``(first removed line, first added line, lines)``, each at least ``MOVED_MIN_LINES`` lines or
    ``MOVED_MIN_BYTES`` bytes and ``MOVED_MIN_ALNUM`` letters or digits; for each removed line in
    order, the longest run from it among its first ``MAX_MOVED_CANDIDATES`` places. The lines
    compared in all are bounded (``MOVED_WORK`` a changed line), so a repetitive diff stays linear.
    Only the lines whose text is both removed and added somewhere get a number (``kernel.diff_common``):
    every other line has one of its own, equal to no other line's."""
    changed = kinds.count(CHG)
    if changed > MAX_MOVED_LINES:
        return []
    common = diff_common(raw, starts, kinds, skip)
    if common is None:
        return []
    ids = array("l", range(-1, -len(kinds) - 1, -1))  # the text of each line as a number, unique but for common texts
    signs = bytearray(len(kinds))  # MINUS or PLUS for the lines of a common text
    added: dict[int, list[int]] = {}
    removed = []
    for k, number, sign in zip(*common):
        ids[k] = number
        signs[k] = sign
        if sign == PLUS:
            added.setdefault(number, []).append(k)
        else:
            removed.append(k)
    del common
    used = bytearray(len(kinds))  # lines already in a block
    budget = MOVED_WORK * changed
    out = []
    for d in removed:
        candidates = None if used[d] else added.get(ids[d])
        if not candidates:
            continue
        best_a, best = 0, 0
        for a in candidates[:MAX_MOVED_CANDIDATES]:
            length = _same_run(ids, signs, used, d, a)
            budget -= length + 1
            if length > best:
                best_a, best = a, length
        if best and _big_enough(raw, starts[d], starts[d + best], best):
            used[d : d + best] = used[best_a : best_a + best] = b"\x01" * best
            out.append((d, best_a, best))
        if budget < 0:
            break
    return out


def _same_run(ids, signs, used, d: int, a: int) -> int:
    """How many removed lines from ``d`` on read as the added lines from ``a`` on (none in a block yet)."""
    n = len(ids)
    length = 0
    while (
        a + length < n and d + length < n and a + length != d and ids[d + length] == ids[a + length]
        and signs[d + length] == MINUS and signs[a + length] == PLUS
        and not used[d + length] and not used[a + length]
    ):
        length += 1
    return length


def _big_enough(raw: bytes, start: int, end: int, length: int) -> bool:
    size = end - start - length  # without the signs
    return (length >= MOVED_MIN_LINES or size >= MOVED_MIN_BYTES) and len(ALNUM_RE.findall(raw, start, end)) >= MOVED_MIN_ALNUM


def _where(raw: bytes, starts, kinds, k: int, sign: int) -> str:
    """``path:line`` of changed line ``k`` on its side (``sign``: removed, the old file; added, the new):
    the hunk header is the last line before it that is no hunk line, and the lines between count when
    they are context or carry the same sign."""
    j = max(kinds.rfind(bytes([OTHER]), 0, k), kinds.rfind(bytes([META]), 0, k))
    m = HUNK_RE.match(_body(raw, starts, j)) if j >= 0 else None
    if m is None:
        return "?"
    first = int(RANGE_RE.match(m.group(2)).group(1) if sign == MINUS else m.group(3))
    number = first + kinds.count(CTX, j + 1, k) + raw.count(b"\n" + bytes([sign]), starts[j], starts[k])
    return f"{_hunk_path(raw, starts, kinds, j, sign)}:{number}"


def _hunk_path(raw: bytes, starts, kinds, j: int, sign: int) -> str:
    """The path of the file the hunk header at line ``j`` belongs to, from the ``---``/``+++`` lines
    before it (the last ``+++`` line that is not a hunk line)."""
    end = starts[j]
    while True:
        pos = raw.rfind(b"\n+++ ", 0, end)
        if pos < 0:
            return "?"
        k = bisect_right(starts, pos + 1) - 1
        if kinds[k] in (OTHER, META):
            break
        end = pos
    new = _strip_path(_body(raw, starts, k)[4:], b"b/")
    old = None
    if k > 0 and raw.startswith(b"--- ", starts[k - 1]):
        old = _strip_path(_body(raw, starts, k - 1)[4:], b"a/")
    path = (old if sign == MINUS else new) or new or old or b"?"
    return path.decode("utf-8", "replace")


def _strip_path(text: bytes, prefix: bytes) -> bytes | None:
    text = text.split(b"\t")[0].strip(b'"')
    if text == b"/dev/null":
        return None
    return text[len(prefix) :] if text.startswith(prefix) else text


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _after_newline(plan: Plan, text: bytes) -> bytes:
    return text if plan.ends_line() else b"\n" + text


def reduce(raw: bytes, granularity: str, config) -> Plan:
    """``reduce_diff``; then, when moved blocks folded and the view leaves room (``ROOM_SHARE`` of the
    output ceiling), the added lines of as many of them as it holds are shown (``with_moved``)."""
    settings = section(config, NAME)
    moved = Moved()
    plan = reduce_diff(raw, settings.context_keep, settings.pure_keep, moved=moved)
    if not plan.omits_anything and (stat := _stat_padding(raw)) is not None:
        return stat
    room = int(section(config, "ceiling").max_chars * ROOM_SHARE)
    return with_moved(plan, moved, room, lambda spare: reduce_diff(raw, settings.context_keep, settings.pure_keep,
                                                                   moved=Moved(spare)))


ROOM_SHARE = 0.9  # of the output ceiling a diff with moved blocks may fill with their added lines


def with_moved(plan: Plan, moved: Moved, room: int, build) -> Plan:
    """The view ``build(spare)`` makes with ``spare`` bytes of moved blocks' added lines shown, when
    ``plan`` folded some (``moved``) and leaves room; ``plan`` when none fits or the view would not
    fit ``room``."""
    if not moved.folded or (size := visible_size(plan)) >= room or min(min(moved.folded), MOVED_PART_MIN) > room - size:
        return plan  # (no block and no part of one fits)
    again = build(room - size)
    return again if visible_size(again) <= room else plan


STAT_PAD_RE = lazy(rb"(?<=[^ \n]) {2,}(?=\| )|(?<=\|) {2,}(?=\d|Bin )")  # what aligns a --stat line's columns
PAD_GROUP, PAD_REASON = "padding", "spaces aligning the --stat columns"


def _stat_padding(raw: bytes) -> Plan | None:
    """A ``--stat`` listing alone (``git diff --stat``): the spaces aligning its ``|`` and counts (the
    longest path pads every line) shortened to one, the rest to one ref named on a last line (other
    lines stay as they are); None when that saves less than ``STAT_PAD_MIN`` bytes."""
    plan = Plan(raw)
    saved = 0
    for start, end, _ in line_spans(raw):
        if not STAT_RE.match(raw[start:end]):  # (its ^ holds only at the start of the string)
            continue
        for m in STAT_PAD_RE.finditer(raw, start, end):
            plan.keep(plan.position, m.start() + 1)
            plan.omit(m.start() + 1, m.end(), PAD_GROUP, PAD_REASON)
            saved += m.end() - m.start() - 1
    if saved < STAT_PAD_MIN:
        return None
    plan.keep_rest()
    plan.show((b"" if plan.ends_line() else b"\n") + b"[runs of spaces aligning the columns shortened: ")
    plan.mark(PAD_GROUP)
    plan.show(b"]\n")
    return plan.finish()


STAT_PAD_MIN = 256  # bytes of padding below which a --stat listing stays as printed


# -- the content type ----------------------------------------------------------------------------
NAME = "diff"
SIGNALS = "changed"  # every changed line must stay visible


class Settings(Section):
    context_keep: int = 1  # unchanged lines kept next to a change that removes and adds lines
    pure_keep: int = PURE_KEEP  # unchanged lines kept next to a block that only adds or only removes lines

GIT_FILE_RE = lazy(rb"^diff --(?:git|cc|combined) ", re.M)
GIT_EVIDENCE_RE = lazy(
    rb"^(?:@@@* -\d+(?:,\d+)? .*@@|Binary files .* differ|GIT binary patch|rename from |copy from "
    rb"|new file mode |deleted file mode |old mode )",
    re.M,
)
UNIFIED_RE = lazy(rb"^--- [^\r\n]*\r?\n\+\+\+ [^\r\n]*\r?\n@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@", re.M)
DIFF_START = (b"diff ", b"--- ", b"From ", b"commit ", b"Index: ", b"index ", b"Only in ")
FIRST_FILE_RE = lazy(rb"^(?:diff -|Index: |--- [^\r\n]*\r?\n\+\+\+ )", re.M)
DIFF_BODY_RE = lazy(
    rb"(?:[ +\-@\\]|$|\r$|diff |index |old mode |new mode |similarity |dissimilarity |rename |copy |new file |deleted file "
    rb"|Binary files |GIT binary patch|literal \d|delta \d|Only in |Index: |={20}|[A-Za-z][0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]{8,}\r?$)"
)


STAT_SUMMARY_RE = lazy(rb"^ [0-9]+ files? changed(?:, [0-9]+ insertions?\(\+\))?(?:, [0-9]+ deletions?\(-\))?\r?$")


def _stat_only(lines: list[bytes]) -> bool:
    """A ``git diff --stat`` alone: its file lines and the ``N files changed`` line, nothing else (the
    first other line ends the look: most inputs that reach here are no stat at all)."""
    stats = 0
    for line in lines:
        if STAT_RE.match(line):
            stats += 1
        elif not STAT_SUMMARY_RE.match(line):
            return False
    return stats >= 3


def detect(sample) -> str | None:
    if not maybe.diff(sample):
        return None  # no "diff --" or "+++ " line, no --stat first line
    head = sample.head
    if not ((GIT_FILE_RE.search(head) and GIT_EVIDENCE_RE.search(head)) or UNIFIED_RE.search(head)):
        return "git diff --stat (a line per file)" if _stat_only(sample.lines) else None
    if head.lstrip()[:200].startswith(DIFF_START):
        return "unified diff headers"
    # a preamble (commit header, mail headers, hg export) is fine; a diff embedded in a log is not a diff
    first = FIRST_FILE_RE.search(head)
    if first is None:
        return None
    pre = [line for line in head[: first.start()].split(b"\n") if line.strip()]
    if sum(1 for line in pre if is_log_line(line)) * 3 >= len(pre) > 0:
        return None
    body = head[first.start() :].split(b"\n")[:2000]
    if sum(1 for line in body if DIFF_BODY_RE.match(line)) >= 0.8 * len(body):
        return "unified diff headers"
    return None


PACK_CONTEXT = False  # a diff's lines are signal or not on their own
DIFF_SIGNAL_RE = lazy(rb"^(?:diff --git |\+\+\+ |--- |rename (?:from|to) |Binary files |new file mode |deleted file mode )")


def tier(text: bytes, shown: bytes, config) -> tuple[int, int]:
    """Pack tiers: file headers, then changed lines are signal; hunk headers are context."""
    if DIFF_SIGNAL_RE.match(text):
        return 0, 0
    if text[:1] in (b"+", b"-") and len(text) > 1:
        return 0, 1
    if text.startswith(b"@@"):
        return 1, 0
    return 2, 0

FILE_HEAD_RE = lazy(rb"(?:diff --(?:git|cc|combined) |\+\+\+ |--- |rename (?:from|to) |copy (?:from|to) |Binary files "
                    rb"|(?:new|deleted) file mode |old mode |new mode |similarity index |dissimilarity index |index )")
STAT_RE = lazy(rb"^ \S.* \| +(?:[0-9]+ ?[-+]*|Bin .*)\r?$")  # " path | 12 ++--", " img.png | Bin 0 -> 12 bytes"
RANK_BUCKETS = (3, 10, 30, 100, 300)  # a hunk's changed lines: whole small hunks rank before big ones


def _hunk_rank(changed: int) -> int:
    return 1 + sum(changed > b for b in RANK_BUCKETS)


def rank_lines(lines: list[bytes], config) -> list[tuple[int, int] | None]:
    """Budget ranks of a reduced diff (``operators.rank``): a hunk's lines rank together (its ``@@``
    line, changes and the context the reducer kept), whole small hunks first; a file's header lines
    take the rank of its best hunk, so a change never shows without its file; a file without hunks
    (binary, a rename, a mode change) is left to the head and tail: the file list a cut diff starts
    with names it. A ``--stat`` line ranks with the file headers.
    Other lines: the general rules. A whole candidate (``operators.rank.Lines``: its text and line
    starts) is ranked by the kernel's ``diff_ranks`` (a code a line), a list of lines here."""
    coded = rank_codes(lines)
    if coded is not None:
        return RankCodes(*coded)
    out: list[tuple[int, int] | None] = [None] * len(lines)
    head: list[int] = []  # the current file's header lines
    best = 0  # the best rank of the current file's hunks (0: none yet)
    hunk: list[int] = []
    changed = 0

    def close_hunk() -> None:
        nonlocal best, changed
        if hunk:
            rank = _hunk_rank(changed)
            ranked = (0, rank)  # one tuple for the whole hunk (a 20 MB patch has some 400,000 lines)
            for j in hunk:
                out[j] = ranked
            best = rank if not best else min(best, rank)
        hunk.clear()
        changed = 0

    def close_file() -> None:
        nonlocal best
        close_hunk()
        for j in head:  # a file without hunks (a rename, a binary file): its lines are in the file list (cut_head)
            out[j] = (0, best) if best else (2, 0)
        head.clear()
        best = 0

    for i, line in enumerate(lines):
        if line.startswith((b"diff --git ", b"diff --cc ", b"diff --combined ")):
            close_file()
            head.append(i)
        elif line.startswith(b"@@"):
            close_hunk()
            hunk.append(i)
        elif hunk and (line[:1] in (b"+", b"-", b" ") or line.startswith(HINT_BYTES)):
            hunk.append(i)
            changed += line[:1] in (b"+", b"-")
        elif head and not hunk and FILE_HEAD_RE.match(line):
            head.append(i)
        else:
            close_hunk()
            if STAT_RE.match(line):  # a --stat line names a file and its counts: as much as a file list line
                out[i] = (0, 0)
    close_file()
    return out


def rank_codes(lines) -> tuple[bytearray, dict] | None:
    """``rank_lines``' ranks of a whole candidate (``operators.rank.Lines``: its text and line starts)
    as the kernel's codes (``diff_ranks``: tier * 16 + rank, 255: none) and each code's (tier, rank),
    the possible ``--stat`` lines checked by ``STAT_RE``; None for a list of lines."""
    text, starts = getattr(lines, "text", None), getattr(lines, "starts", None)
    if text is None or starts is None:
        return None
    codes, stat = diff_ranks(text, starts, lines.last_nl)
    for i in stat:
        if STAT_RE.match(lines[i]):
            codes[i] = 0
    ranked = {code: (code >> 4, code & 15) for code in set(codes)}
    ranked[255] = None
    return codes, ranked


class RankCodes(list):
    """``rank_lines``' list made from a code a line (``codes``: a bytearray, 255 for None) and each code's
    (tier, rank) (``pairs``), which it keeps: the ranking reads the codes at once (``rank._coded_tiers``)."""

    __slots__ = ("codes", "pairs")

    def __init__(self, codes: bytearray, pairs: dict):
        super().__init__(map(pairs.__getitem__, codes))
        self.codes, self.pairs = codes, pairs


def file_list(raw: bytes) -> list[tuple[bytes, int, int, list[bytes]]]:
    """Every file of a diff as (the line that names it, lines added, lines removed, its rename/copy/
    binary lines): the ``+++ b/…`` line, or ``--- a/…`` for a deletion, else the ``diff --git`` line.
    Counted on the raw diff at C speed (one ``count`` per file and sign)."""
    return [(name, added, removed, extra) for span, (added, removed) in _file_counts(raw)
            for name, extra in [_file_names(raw, *span)]]


def _file_counts(raw: bytes) -> list[tuple[tuple[int, int, int, int], tuple[int, int]]]:
    """Each file's span (start, end, end of its header, its first ``@@`` or -1) and its lines added and
    removed: three C calls a file, no line of its header read (``_file_names``)."""
    out = []
    starts = [m.start() + 1 for m in FILE_LINE_RE.finditer(raw)]
    if raw.startswith((b"diff --git ", b"diff --cc ", b"diff --combined ")):
        starts.insert(0, 0)
    count = raw.count
    for k, a in enumerate(starts):
        b = starts[k + 1] if k + 1 < len(starts) else len(raw)
        hunk = raw.find(b"\n@@", a, b)
        head_end = b if hunk < 0 else hunk + 1
        counts = (count(b"\n+", head_end - 1, b), count(b"\n-", head_end - 1, b)) if hunk >= 0 else (0, 0)
        out.append(((a, b, head_end, hunk), counts))
    return out


def _file_names(raw: bytes, a: int, b: int, head_end: int, hunk: int) -> tuple[bytes, list[bytes]]:
    """The line naming the file at ``a:b`` (see ``file_list``) and its rename/copy/binary lines."""
    eol = raw.find(b"\n", a, b)
    name, extra = raw[a : eol if eol >= 0 else b], []
    plus = minus = None
    for line in raw[a:head_end].split(b"\n")[1:]:
        line = line.rstrip(b"\r")
        if line.startswith(b"+++ "):
            plus = line
        elif line.startswith(b"--- "):
            minus = line
        elif line.startswith((b"rename from ", b"rename to ", b"copy from ", b"copy to ", b"Binary files ")):
            extra.append(line)
    if plus is not None and plus != b"+++ /dev/null":
        name = plus
    elif minus is not None and minus != b"--- /dev/null":
        name = minus
    return name.rstrip(b"\r"), extra


LIST_SHARE = 0.75  # of the budget the file list of a cut diff may take (the changes that fit follow)


def cut_head(raw: bytes, budget: int) -> bytes:
    """What a diff cut to a budget shows first (``operators.ceiling``): every file with its +/- line
    counts (the line naming it as the diff names it), as many as ``LIST_SHARE`` of the budget holds,
    the others counted."""
    files = _file_counts(raw)  # the names of the files listed only are read (``_file_names``)
    if not files:
        return b""
    added = sum(f[1][0] for f in files)
    removed = sum(f[1][1] for f in files)
    n = len(files)
    head = (f"[{n:,} file{'s' if n != 1 else ''} changed, +{added:,} -{removed:,}: each file and its +/- lines "
            "first, then the changes that fit]\n").encode()
    out, room = [head], int(budget * LIST_SHARE) - len(head) - 60
    shown = 0
    for span, (plus, minus) in files:
        name, extra = _file_names(raw, *span)
        counts = f"  (+{plus:,} -{minus:,})".encode() if plus or minus else b""
        if extra and not name.startswith((b"+++ ", b"--- ")):  # a rename, copy or binary file: its own lines name it
            line = b"\n".join(extra) + counts + b"\n"
        else:
            line = name + counts + b"\n" + b"".join(x + b"\n" for x in extra)
        if len(line) > room:
            break
        out.append(line)
        room -= len(line)
        shown += 1
    if shown < n:
        out.append(f"[… {n - shown:,} more file{'s' if n - shown != 1 else ''}: in the diff below and its refs]\n".encode())
    return b"".join(out)


def facts(packet):
    """Level 0: files changed, +/- line counts, the first changed lines."""
    from operators.overview import IMPORTANT_MAX, clip
    from operators.types import Facts

    files: list[str] = []
    added = removed = 0
    important: list[str] = []
    total = 0
    for line in _fact_lines(packet.raw):
        if line.startswith(b"diff --git "):
            files.append(line[11:].decode("utf-8", "replace").split(" b/")[-1])
        elif line.startswith(b"+++ ") and not files:
            files.append(line[4:].decode("utf-8", "replace").removeprefix("b/"))
        elif line.startswith(b"+") and not line.startswith(b"+++ "):
            added += 1
        elif line.startswith(b"-") and not line.startswith(b"--- "):
            removed += 1
        else:
            continue
        if line[:1] in (b"+", b"-") and not line.startswith((b"+++ ", b"--- ")) and len(line.strip()) > 1:
            total += 1
            if len(important) < IMPORTANT_MAX:
                important.append(clip(line.rstrip(b"\r")))
    names = ", ".join(files[:3]) + (f" +{len(files) - 3} more" if len(files) > 3 else "")
    counts = f"{len(files)} file{'s' if len(files) != 1 else ''} changed, +{added:,} -{removed:,} lines"
    return Facts(counts + (f" ({names})" if names else ""), important, total)


def _fact_lines(raw: bytes):
    """The only lines the facts are about: file headers and +/- lines."""
    from operators.vocab import LineFinder

    global _fact_finder
    if _fact_finder is None:
        _fact_finder = LineFinder(rb"(?:diff --git |[+-])")
    return _fact_finder(raw)


_fact_finder = None
