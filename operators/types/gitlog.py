"""git log and git show: one line per commit, the rest of each commit behind a ref, patches as diffs.

Understood shapes: ``git log`` in the default (medium), ``fuller`` and ``--graph`` forms, with or
without ``--stat``, ``--name-status``/``--name-only`` and ``-p``; ``git show`` (one commit, often
with a patch); ``--oneline`` (with or without ``--graph``) and ``git reflog``.

A commit with headers becomes ONE visible line, in place of its ``commit``/``Author``/``Date`` lines:

    <graph prefix><hash, first hash_chars hex> (<refs>) <YYYY-MM-DD> <author>: <subject> [<N files +A -D>]

The subject is kept verbatim from the input; hash, refs, date and author are shown as read from the
headers. Omitted, behind the ref (group ``commits``; with granularity ``fine`` one group a commit,
its marker at the end of its line): the header lines, the message body and trailers, the ``--stat``
block (its totals stay on the line), the blank separator lines, and the spaces that align a shown
stat line's ``|`` to the longest path (one stays). Kept verbatim, in place: every
message or stat line that holds a signal word (error, failed, …: ``operators.vocab.SIGNAL_RE``),
``--name-status``/``--name-only`` lines, and anything before the first commit (a tag header,
a warning from git; the lines inside a signature block there go behind the ref).

A patch (from a commit's first ``diff`` line to its end) is reduced by the diff type
(``operators.types.diff.reduce_diff``), spliced in place: every changed line and file header stays,
unchanged context and index lines go to the same ref, but for a context line with a signal word:
it stays, and the diff's hint around it counts the lines on each side. With ``--graph`` a patch is kept whole.

One commit alone (``git show``, ``git log -1``) keeps its whole message (trailers aside) and its
stat block: the reader asked for that commit. Beyond ``max_commits`` commits, the older ones go
whole behind a ref of their own (group ``older``), with a count and their date range, unless one
of them has a patch (changed lines are never folded away). An
``--oneline`` list is already one line per commit: it only folds beyond ``max_commits``.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from datetime import datetime, timezone
from functools import cache
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, eq, itemgetter
from operator import sub as sub_
from typing import Annotated, NamedTuple

import msgspec

from operators.config import Section, section
from operators.kernel import diff_twins, gitlog_splice, line_bodies, line_starts, place_matches
from operators.reduction import KEEP, MARK, OMIT, SHOW, Plan, line_body_end, line_spans, passthrough
from operators.types import diff as difftype
from operators.vocab import SIGNAL_RE, latin1_re2, may_summarise
from operators.relazy import NO_SPAN, lazy, re2_program  # lazy: patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first

NAME = "gitlog"
SIGNALS = "changed"  # the +/- lines of every patch must stay visible
PACK_CONTEXT = False

GROUP, REASON = "commits", "commit headers, message bodies, trailers, stats and unchanged diff context"
OLDER, OLDER_REASON = "older", "older commits, whole"
MIN_GAIN = 64  # bytes; a smaller saving passes the input through


class Settings(Section):
    hash_chars: Annotated[int, msgspec.Meta(ge=7, le=64)] = 12  # hex digits of a commit hash shown on its line
    max_commits: Annotated[int, msgspec.Meta(ge=1)] = 200  # commits shown one line each; older ones fold behind a ref
    context_keep: Annotated[int, msgspec.Meta(ge=0)] = 0  # unchanged lines kept next to each change in a patch (the diff type keeps 1)


GRAPH_CHARS = rb"*|/\\_.\- "
COMMIT_RE = lazy(rb"([" + GRAPH_CHARS + rb"]*?)commit ([0-9a-f]{7,64})\b([^\r\n]*)")
# a line COMMIT_RE can match holds this (after its graph prefix): a literal head, searched at C speed
# (``^`` under ``re.M`` is tried at every byte); a line holding it elsewhere is tried and left
COMMIT_SCAN = lazy(rb"commit [0-9a-f]{7}")
HEADER_RE = lazy(
    rb"(?:Merge|Author|AuthorDate|Commit|CommitDate|Date|Reflog|Reflog message|Tagger|Primary key fingerprint):"
    rb"|gpg: |(?:tree|parent|author|committer|gpgsig|gpgsig-sha256|mergetag|encoding) "  # --format=raw
)
RAW_SIGNED_RE = lazy(rb"(?:gpgsig|gpgsig-sha256|mergetag) ")  # continued by lines starting with a space
EPOCH_RE = lazy(rb".*? (\d{9,11}) [+-]\d{4}$")
ONELINE_RE = lazy(rb"[" + GRAPH_CHARS + rb"]*[0-9a-f]{7,40} [ \t]*\S")  # a subject may start with blanks
GRAPH_ONLY_RE = lazy(rb"[" + GRAPH_CHARS + rb"]*\r?$")
STAT_RE = lazy(rb" (?:\S.*?) +\| +(?:\d+(?: [+-]*)?|Bin\b.*)\r?$")
STAT_TOTAL_RE = lazy(
    rb" (\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?\r?$"
)
TRAILER_RE = lazy(rb"    [A-Z][A-Za-z-]*(?:-by|-to|-Id|-id): ")
DEFAULT_DATE_RE = lazy(rb"[A-Z][a-z]{2} ([A-Z][a-z]{2}) (\d{1,2}) \d\d:\d\d:\d\d (\d{4})")
RFC_DATE_RE = lazy(rb"(?:[A-Z][a-z]{2}, )?(\d{1,2}) ([A-Z][a-z]{2}) (\d{4})")
ISO_DATE_RE = lazy(rb"\d{4}-\d\d-\d\d")
SIGNATURE_BEGIN_RE = lazy(rb"-----BEGIN [A-Z ]*SIGNATURE-----$")
SIGNATURE_END_RE = lazy(rb"-----END [A-Z ]*SIGNATURE-----$")
HINT_RE = lazy(rb"(\n?)\xe2\x8b\xaf (\d+)(\r?\n)")  # the diff type's hint line: "⋯ N" (N unchanged lines)
MONTHS = {m: i for i, m in enumerate(b"Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}


class Line(NamedTuple):
    start: int
    end: int  # after the newline
    body_end: int  # before the line ending


class Commit:
    """One commit of a ``git log`` with headers: where its parts are (line indexes) and what it says."""

    __slots__ = ("first", "end", "width", "hash", "decor", "author", "date", "subject", "message_end",
                 "patch", "stat")

    def __init__(self, first: int, width: int, hash_: bytes, decor: bytes):
        self.first, self.width, self.hash, self.decor = first, width, hash_, decor
        self.end = first + 1
        self.author = self.date = b""
        self.subject: int | None = None
        self.message_end = first + 1
        self.patch: int | None = None  # first line of the patch
        self.stat: tuple[int, int, int] | None = None


class LineTable(Sequence):
    """Every line of ``raw`` as ``split_lines`` gives them, without an object per line held: where each
    line starts and where its body ends (two ``array('q')``, 16 bytes a line); a ``Line`` is made when
    asked for. A body ends before ``\n`` or ``\r\n`` (``reduction.line_body_end``), found without a
    Python call per line (``kernel.line_bodies``: one pass over the line starts)."""

    def __init__(self, raw: bytes):
        self.starts = line_starts(raw)
        self.bodies = line_bodies(raw, self.starts)

    def __len__(self) -> int:
        return len(self.bodies)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self.bodies)))]
        if i < 0:
            i += len(self.bodies)
        return tuple.__new__(Line, (self.starts[i], self.starts[i + 1], self.bodies[i]))

    def __iter__(self):
        return map(tuple.__new__, repeat(Line), zip(self.starts, islice(self.starts, 1, None), self.bodies))

    def at(self, pos: int) -> int:
        """The index of the line holding offset ``pos``."""
        return bisect_right(self.starts, pos) - 1


def split_lines(raw: bytes) -> list[Line]:
    """Every line of ``raw`` (``LineTable``), as a list."""
    return list(LineTable(raw))


def _content(raw: bytes, line: Line, width: int) -> bytes:
    """The line without its graph prefix (``width`` columns, when they are all graph characters)."""
    body = raw[line.start : line.body_end]
    if width and len(body) >= width and not body[:width].strip(b"*|/\\_.- "):
        return body[width:]
    if width and not body.strip(b"*|/\\_.- "):
        return b""  # a line of the graph alone
    return body


def _text_at(raw: bytes, lines: Sequence[Line], j: int, width: int) -> bytes:
    """``_content(raw, lines[j], width)``; a line of a log without a graph (``width`` 0) sliced from the
    line table's columns, no ``Line`` made."""
    if width or not isinstance(lines, LineTable):
        return _content(raw, lines[j], width)
    return raw[lines.starts[j] : lines.bodies[j]]


def commit_start(raw: bytes, line: Line) -> re.Match | None:
    m = COMMIT_RE.match(raw, line.start, line.body_end)
    if m is None:
        return None
    if m.group(1) and b"*" not in m.group(1):
        return None  # a graph commit line has its "*"
    return m


def parse(raw: bytes, lines: LineTable) -> tuple[int, list[Commit]]:
    """The index of the first commit line and the commits with headers (empty: not that shape). Only
    the lines one ``COMMIT_SCAN`` pass finds something in are tried."""
    commits: list[Commit] = []
    for i in dict.fromkeys(lines.at(m.start()) for m in COMMIT_SCAN.finditer(raw)):
        m = commit_start(raw, lines[i])
        if m is None:
            continue
        j = i + 1
        if j >= len(lines) or not HEADER_RE.match(_text_at(raw, lines, j, len(m.group(1)))):
            continue
        if commits:
            commits[-1].end = i
        commits.append(Commit(i, len(m.group(1)), m.group(2), m.group(3).strip()))
        _parse_commit(raw, lines, commits[-1], i + 1)
    if commits:
        commits[-1].end = len(lines)
        for commit in commits:
            _parse_tail(raw, lines, commit)
    first = commits[0].first if commits else len(lines)
    return first, commits


def _parse_commit(raw: bytes, lines: Sequence[Line], commit: Commit, j: int) -> None:
    """Headers and message of the commit whose header starts at line ``j``."""
    n, width = len(lines), commit.width
    signed = False
    while j < n:
        content = _text_at(raw, lines, j, width)
        if signed and content.startswith(b" "):
            j += 1
            continue
        if not HEADER_RE.match(content):
            break
        signed = RAW_SIGNED_RE.match(content) is not None
        key, _, value = content.partition(b":")
        if key == b"Author":
            commit.author = _name(value.strip())
        elif key in (b"Date", b"AuthorDate"):
            commit.date = _date(value.strip())
        elif content.startswith(b"author "):  # --format=raw: name <mail> epoch zone
            commit.author = _name(content[7:].strip())
            epoch = EPOCH_RE.match(content)
            commit.date = _epoch_date(int(epoch.group(1))) if epoch else b""
        j += 1
    while j < n:  # the message: lines indented by 4 spaces, and blank lines
        content = _text_at(raw, lines, j, width)
        if content.startswith(b"    "):
            if commit.subject is None and content.strip():
                commit.subject = j
        elif content.strip():
            break
        j += 1
    commit.message_end = j


def _parse_tail(raw: bytes, lines: Sequence[Line], commit: Commit) -> None:
    """After the message: stat lines (their totals), name lines, the patch."""
    for j in range(commit.message_end, commit.end):
        content = _text_at(raw, lines, j, commit.width)
        if content.startswith(b"diff "):
            commit.patch = j
            return
        total = STAT_TOTAL_RE.match(content)
        if total:
            commit.stat = tuple(int(g or 0) for g in total.groups())


def _name(author: bytes) -> bytes:
    name = author.split(b" <", 1)[0].strip()
    return name or author.strip(b"<>")


def _epoch_date(seconds: int) -> bytes:
    try:
        return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%d").encode()
    except (OverflowError, OSError, ValueError):
        return b""


def _date(value: bytes) -> bytes:
    m = DEFAULT_DATE_RE.match(value)
    if m and m.group(1) in MONTHS:
        return b"%s-%02d-%02d" % (m.group(3), MONTHS[m.group(1)], int(m.group(2)))
    m = RFC_DATE_RE.match(value)
    if m and m.group(2) in MONTHS:
        return b"%s-%02d-%02d" % (m.group(3), MONTHS[m.group(2)], int(m.group(1)))
    m = ISO_DATE_RE.match(value)
    return m.group() if m else value


def summary(commit: Commit, hash_chars: int) -> bytes:
    """Hash, refs, date and author of a commit, as shown before its subject."""
    parts = [commit.hash[: max(7, hash_chars)]]
    if commit.decor:
        parts.append(commit.decor)
    if commit.date:
        parts.append(commit.date)
    text = b" ".join(parts)
    return text + (b" " + commit.author if commit.author else b"") + b": "


def stat_text(commit: Commit) -> bytes:
    if commit.stat is None:
        return b""
    files, added, removed = commit.stat
    return b" [%d file%s +%d -%d]" % (files, b"" if files == 1 else b"s", added, removed)


PREPARE_PATCHES = 64  # patches whose diff plans are made, and their signal lines found, at a time
COPY_MIN = 12  # untouched pieces in a row copied by columns; fewer go one by one (a copy's fixed cost)
_OMIT_FLAG = bytes(k == OMIT for k in range(256))  # a piece's kind -> 1 for an omitted piece
_SHOW_FLAG = bytes(k == SHOW for k in range(256))
_SPAN_FLAG = bytes(k in (KEEP, OMIT) for k in range(256))  # ... for a piece of raw bytes


class _Emitter:
    """Builds the plan commit by commit; ``group`` is where the current commit's omissions go (one
    group for all, or one a commit with granularity ``fine``)."""

    def __init__(self, raw: bytes, lines: Sequence[Line], settings: Settings, fine: bool, single: bool):
        self.raw, self.lines, self.settings = raw, lines, settings
        self.fine, self.single = fine, single
        self.plan = Plan(raw)
        self.group = GROUP
        self.omitted = 0
        self.shown = 0
        self.found: _Found | None = None  # the signal matches of the omitted pieces of the patch being read
        self.hint_of: dict[bytes, re.Match | None] = {}  # a diff's shown text -> its hint (``HINT_RE``)
        self.hint_texts: dict[tuple[int, bytes], bytes] = {}  # the hints of the parts split at signal lines
        self.upcoming: list[Commit] = []  # the commits whose patches go through the kernel, not prepared yet
        self.prepared: dict[int, tuple] | None = None  # commit's first line -> its diff plan and signal parts
        self.summarise: bool | None = None  # False: no "diff --git" line names a summarised file (``reduce_diff``)
        self.moved: difftype.Moved | None = None  # what moved blocks' added lines may show (``reduce_diff``)

    def omit_to(self, pos: int) -> None:
        plan = self.plan
        if pos > plan.position:
            self.omitted += pos - plan.position
            plan.omit(plan.position, pos, self.group, REASON if self.group == GROUP else f"commit {self.group[7:]}: {REASON}")

    def show(self, text: bytes) -> None:
        self.shown += len(text)
        self.plan.show(text)

    def commit(self, c: Commit) -> None:
        raw, lines, plan = self.raw, self.lines, self.plan
        if self.fine:
            self.group = f"commit {c.hash[:12].decode()}"
        first = lines[c.first]
        plan.keep(plan.position, first.start + c.width)  # the graph prefix
        head = summary(c, self.settings.hash_chars)
        if c.subject is not None:
            sub = lines[c.subject]
            at = sub.start + len(raw[sub.start : sub.body_end]) - len(_content(raw, sub, c.width)) + 4
            at += len(raw[at : sub.body_end]) - len(raw[at : sub.body_end].lstrip(b" "))
            self.omit_to(at)
            self.show(head)
            plan.keep(at, sub.body_end)
            self._line_end(c, sub)
            start = c.subject + 1
        else:
            self.omit_to(first.body_end)
            self.show(head + b"(no message)")
            self._line_end(c, first)
            start = c.first + 1
        stop = c.patch if c.patch is not None else c.end
        for j in range(start, stop):
            if self._keeps(c, j):
                self.omit_to(lines[j].start)
                self._keep_line(c, lines[j])
        if c.patch is not None:
            self.omit_to(lines[c.patch].start)
            self.patch(c)
        else:
            self.omit_to(lines[stop - 1].end)

    def _keep_line(self, c: Commit, line: Line) -> None:
        """Keep a line; a ``--stat`` line without the spaces aligning its ``|`` and counts to the
        longest path (one stays; the rest goes with the commit's other omitted bytes)."""
        raw, plan = self.raw, self.plan
        if raw.find(b"  ", line.start, line.end) >= 0 and STAT_RE.match(_content(raw, line, c.width)):
            for m in difftype.STAT_PAD_RE.finditer(raw, line.start, line.end):
                plan.keep(plan.position, m.start() + 1)
                self.omit_to(m.end())
        plan.keep(plan.position, line.end)

    def _line_end(self, c: Commit, line: Line) -> None:
        """What ends a commit's line: its stat totals, its marker (fine), the line ending."""
        self.show(stat_text(c))
        if self.fine:
            self.show(b" ")
            self.plan.mark(self.group)
        self.plan.keep(line.body_end, line.end)
        if line.end == line.body_end:
            self.show(b"\n")

    def _keeps(self, c: Commit, j: int) -> bool:
        """Whether line ``j`` (after the subject, before any patch) stays visible."""
        content = _text_at(self.raw, self.lines, j, c.width)
        if not content.strip() or HEADER_RE.match(content):  # blank, or a header (a commit without message)
            return False
        if j < c.message_end:  # message body
            if self.single:
                return not TRAILER_RE.match(content)
            return SIGNAL_RE.search(content) is not None and not TRAILER_RE.match(content)
        if STAT_RE.match(content) or STAT_TOTAL_RE.match(content):
            return self.single or SIGNAL_RE.search(content) is not None
        return True  # --name-status / --name-only lines, anything else git printed

    def patch(self, c: Commit) -> None:
        """The commit's patch, through the diff type (whole with a graph), its pieces read from their
        columns (``reduction.Pieces``) in place: no list a piece. The pieces between the omitted ones
        that a signal match touches (``_Found``) are copied column by column (``_copy``)."""
        raw, plan = self.raw, self.plan
        start, end = self.lines[c.patch].start, self.lines[c.end - 1].end
        if c.width:
            plan.keep(start, end)
            return
        prepared = self.prepared.pop(c.first, None) if self.prepared is not None else None
        if prepared is None and self.upcoming:
            self._prepare()
            prepared = self.prepared.pop(c.first, None)
        sub = prepared[0] if prepared is not None else difftype.reduce_diff(raw[start:end], self.settings.context_keep, moved=self.moved).pieces
        kinds = sub.kinds
        texts = {}  # piece -> the text shown in place of its own
        k = kinds.rfind(MARK)
        stop = len(kinds)
        if k >= 0:  # the diff's own marker line: this type names the ref once, at the end
            text = sub.objs[k - 1]
            cut = text.rfind(b"[diff: omitted")
            texts[k - 1] = b"" if text[:cut] == b"\n" else text[:cut]
        if prepared is not None and (k < 0 or k + 2 >= stop) and self._splice(
                start, sub, k if k >= 0 else stop, k - 1 if k >= 0 else -1, texts.get(k - 1, b""), *prepared[1:]):
            return
        slow = None  # the pieces read one by one: the omitted ones a signal match touches (None: every piece)
        if not _end_anchored():
            at = list(compress(range(len(kinds)), kinds.translate(_OMIT_FLAG)))  # the omitted pieces
            self.found = _Found(raw, list(zip(map(start.__add__, map(sub.starts.__getitem__, at)),
                                              map(start.__add__, map(sub.ends.__getitem__, at)))))
            slow = sorted(map(at.__getitem__, self.found.touched))
        if k >= 0:
            self._pieces(start, sub, 0, k, texts, slow)
            start_again = k + 2
        else:
            start_again = 0
        self._pieces(start, sub, start_again, stop, texts, slow)
        self.found = None

    def _prepare(self) -> None:
        """The diff plans of the next ``PREPARE_PATCHES`` patches to come (``upcoming``), and the signal
        parts of their omitted pieces (``_signal_parts``: one pass for them all), each patch's share."""
        batch, self.upcoming = self.upcoming[:PREPARE_PATCHES], self.upcoming[PREPARE_PATCHES:]
        raw, lines = self.raw, self.lines
        subs, starts, ends = [], array("q"), array("q")
        for c in batch:
            start, end = lines[c.patch].start, lines[c.end - 1].end
            sub = difftype.reduce_diff(raw[start:end], self.settings.context_keep, summarise=self.summarise,
                                       moved=self.moved).pieces
            omits = sub.kinds.translate(_OMIT_FLAG)  # the omitted pieces
            starts.extend(map(start.__add__, compress(sub.starts, omits)))
            ends.extend(map(start.__add__, compress(sub.ends, omits)))
            subs.append((c, sub, start, end))
        split, sig_starts, sig_ends = _signal_parts(raw, lines, starts, ends)
        del starts, ends
        self.prepared = {}
        for c, sub, start, end in subs:
            x0, x1 = bisect_left(split, start), bisect_left(split, end)
            s0, s1 = bisect_left(sig_starts, start), bisect_left(sig_starts, end)
            self.prepared[c.first] = (sub, split[x0:x1], sig_starts[s0:s1], sig_ends[s0:s1])

    def _splice(self, offset: int, sub, stop: int, over_k: int, over_text: bytes, split: array, sig_starts: array,
                sig_ends: array) -> bool:
        """Pieces ``0:stop`` of the diff's plan into this plan by the kernel (``gitlog_splice``), as
        ``_pieces`` puts them (piece ``over_k`` showing ``over_text``): the omitted pieces holding a
        signal match (starting at ``split``) are split at the lines that hold one (``sig_starts`` to
        ``sig_ends``; ``_prepare``). False: the kernel declined (nothing done)."""
        plan = self.plan
        made = gitlog_splice(self.raw, offset, sub.kinds, sub.starts, sub.ends, sub.objs, 0, stop, over_k, over_text,
                             split, sig_starts, sig_ends, self.group, plan.position, plan.ends_line())
        if made is None:
            return False
        kinds, starts, ends, objs, omitted, shown = made
        if kinds:
            group = self.group
            reason = REASON if group == GROUP else f"commit {group[7:]}: {REASON}"
            if omitted and group not in plan.reasons:
                plan.reasons[group] = reason
            kind = kinds[0]  # the first piece through the plan's steps: it may lengthen the plan's last one
            if kind == KEEP:
                plan.keep(starts[0], ends[0])
            elif kind == OMIT:
                plan.omit(starts[0], ends[0], group, reason)
            else:
                plan.show(objs[0])
            plan.extend(kinds[1:], starts[1:], ends[1:], objs[1:])
        self.omitted += omitted
        self.shown += shown
        return True

    def _pieces(self, offset: int, sub, first: int, stop: int, texts: dict, slow: list[int] | None) -> None:
        """Pieces ``first:stop`` of the diff's plan (``sub``, a ``Pieces`` of ``raw[offset:]``) into
        this plan: kept and shown as they are, omitted but for the lines with a signal word. Only the
        pieces ``slow`` names (with the piece after each, which may show another text) are read one by
        one, the others copied a run at a time (``_copy``); ``slow`` None: every piece one by one."""
        if slow is None:
            self._one_by_one(offset, sub, first, stop, texts)
            return
        pos = run = first  # pieces run:pos go one by one (touched, or too few to copy)
        for k in slow:
            if k < first or k >= stop:
                continue
            if k - pos >= COPY_MIN:
                self._one_by_one(offset, sub, run, pos, texts)
                self._copy(offset, sub, pos, k, texts)
                run = k
            pos = max(pos, min(k + 2, stop))  # the piece after it too: its text may change (a hint split)
        if stop - pos >= COPY_MIN:
            self._one_by_one(offset, sub, run, pos, texts)
            self._copy(offset, sub, pos, stop, texts)
        else:
            self._one_by_one(offset, sub, run, stop, texts)

    def _one_by_one(self, offset: int, sub, first: int, stop: int, texts: dict) -> None:
        plan = self.plan
        kinds, starts, ends, objs = sub.kinds, sub.starts, sub.ends, sub.objs
        for k in range(first, stop):
            kind = kinds[k]
            if kind == KEEP:
                plan.keep(offset + starts[k], offset + ends[k])
            elif kind == OMIT:
                nxt = texts.get(k + 1, objs[k + 1]) if k + 1 < stop and kinds[k + 1] == SHOW else None
                hint = self._omit_keeping_signals(offset + starts[k], offset + ends[k], nxt)
                if hint is not None:
                    texts[k + 1] = nxt[hint.end() :]
            elif kind == SHOW:
                self.show(texts.get(k, objs[k]))

    def _copy(self, offset: int, sub, first: int, stop: int, texts: dict) -> None:
        """Pieces ``first:stop`` (no omitted one a signal match touches, no text of ``texts`` but the
        last one's) appended as they are, the omitted ones into this commit's group: what ``keep``,
        ``omit_to`` and ``show`` would append one by one. The first piece goes through them (it may
        lengthen this plan's last one), and the last when its text is replaced; the others cannot
        (a diff's plan has no two pieces in a row that would have been one)."""
        self._one_by_one(offset, sub, first, first + 1, texts)
        a = first + 1
        last = stop - 1 if stop - 1 >= a and (stop - 1) in texts else stop
        if a < last:
            b = last
            kinds = sub.kinds[a:b]
            if MARK in kinds:  # (none: the marker is not copied)
                self._one_by_one(offset, sub, a, b, texts)
            else:
                plan = self.plan
                spans = kinds.translate(_SPAN_FLAG)  # 1 for a kept or omitted piece, 0 for a shown text
                omits = kinds.translate(_OMIT_FLAG)
                starts = array("q", map(add, islice(sub.starts, a, b), map(offset.__mul__, spans)))
                ends = array("q", map(add, islice(sub.ends, a, b), map(offset.__mul__, spans)))
                objs = sub.objs[a:b]
                group = self.group
                if omits.find(1) >= 0:
                    if group not in plan.reasons:
                        plan.reasons[group] = REASON if group == GROUP else f"commit {group[7:]}: {REASON}"
                    objs = list(map({difftype.GROUP: group}.get, objs, objs))
                    self.omitted += sum(compress(map(sub_, ends, starts), omits))
                shows = kinds.translate(_SHOW_FLAG)
                self.shown += sum(map(len, compress(objs, shows)))
                plan.extend(kinds, starts, ends, objs)
        if last < stop:
            self._one_by_one(offset, sub, last, stop, texts)

    def _omit_keeping_signals(self, a: int, b: int, nxt: bytes | None) -> re.Match | None:
        """Omit ``a:b`` (whole lines of unchanged context or index lines), but keep visible each line
        with a signal word, the hint of each part that goes counting its own lines. The diff's one
        hint (``HINT_RE`` at the start of ``nxt``, the text shown next), when the lines were split:
        the caller shows the rest of ``nxt`` in its place."""
        raw, found = self.raw, self.found
        if not (found.search(a, b) if found is not None else SIGNAL_RE.search(raw, a, b) is not None):
            self.omit_to(b)
            return None
        hint = None
        if nxt is not None:  # the diff's hints are a few shared texts: each matched once
            hint = self.hint_of.get(nxt, False)
            if hint is False:
                hint = self.hint_of[nxt] = HINT_RE.match(nxt)
        pos = a
        for line_start, line_end in (found.lines(a, b) if found is not None else _signal_lines(raw, a, b)):
            self._omit_part(pos, line_start, hint)
            self.plan.keep(line_start, line_end)
            pos = line_end
        self._omit_part(pos, b, hint)
        return hint

    def _omit_part(self, a: int, b: int, hint: re.Match | None) -> None:
        if b <= a:
            return
        self.omit_to(b)
        if hint is not None:
            n = _unchanged_lines(self.raw, a, b)
            if n:
                key = (n, hint.group(3))
                text = self.hint_texts.get(key)
                if text is None:
                    text = self.hint_texts[key] = f"⋯ {n}".encode() + key[1]
                self.show(text if self.plan.ends_line() else b"\n" + text)


class _Found:
    """``SIGNAL_RE``'s matches in a patch's omitted pieces (``spans``, whole lines each), from one RE2
    pass over them joined, each followed by the byte that follows it in ``raw`` and a newline (the
    byte before each is a newline in ``raw`` too): a match of a search of one piece alone is a match
    there, in the same neighbourhood, and a match there inside one piece is one a search of that piece
    finds. So a piece no match touches holds none, one holding a whole match holds one, and only a
    piece touched by a match across its edges is searched on its own; ``lines`` tries only the lines
    the matches touch (a line that matches alone is touched by one), a line holding a whole match
    without a search. One RE2 call a patch, not two a piece and one a line."""

    __slots__ = ("raw", "index", "touched", "inside")

    def __init__(self, raw: bytes, spans: list[tuple[int, int]]):
        self.raw = raw
        self.index = dict(zip(map(itemgetter(0), spans), range(len(spans))))
        self.touched: dict[int, list[tuple[int, int]]] = {}  # piece -> the matches touching it, in raw offsets
        self.inside: set[int] = set()  # the pieces holding a whole match
        if not spans:
            return
        starts, ends = map(list, zip(*spans))
        # each piece and the byte after it, then a newline: sliced and joined by ``map``, not a step a piece
        texts = list(map(raw.__getitem__, map(slice, starts, map(add, ends, repeat(1)))))
        offsets = array("q", accumulate(map(add, map(len, texts), repeat(1)), initial=1))
        del offsets[-1]
        for s, e in _signal_matches(b"\n" + b"\n".join(texts) + b"\n"):
            self._touch(spans, offsets, s, e)

    def _touch(self, spans, offsets, s: int, e: int) -> None:
        k = max(0, bisect_right(offsets, s) - 1)
        while k < len(spans) and offsets[k] < e:
            a, b = spans[k]
            lo = offsets[k]
            if s < lo + b - a and e > lo:
                self.touched.setdefault(k, []).append((a + s - lo, a + e - lo))
                if s >= lo and e <= lo + b - a:
                    self.inside.add(k)
            k += 1

    def search(self, a: int, b: int) -> bool:
        """Whether ``SIGNAL_RE.search(raw, a, b)`` finds a match (``a:b`` one of the pieces)."""
        k = self.index[a]
        if k in self.inside:
            return True
        return k in self.touched and _signal_in(self.raw, a, b)

    def lines(self, a: int, b: int):
        """``_signal_lines(raw, a, b)``, from the matches touching the piece."""
        return _lines_of_matches(self.raw, a, b, self.touched.get(self.index[a], ()))


def _signal_parts(raw: bytes, lines: LineTable, starts: array, ends: array) -> tuple[array, array, array]:
    """Of the omitted pieces ``starts``/``ends`` (whole lines, in order), those ``_Found.search`` finds a
    signal match in (their starts) and the lines ``_Found.lines`` gives of them (their starts and ends), in
    order: from one RE2 pass over the pieces joined as ``_Found`` joins them. A match inside one line's
    text makes its piece one and its line one; the pieces a match crosses a line's end or a piece's in are
    read as ``_Found`` reads them. The matches are placed by the kernel (``place_matches``), not a Python
    step each."""
    split, sig_starts, sig_ends = array("q"), array("q"), array("q")
    if not starts:
        return split, sig_starts, sig_ends
    texts = list(map(raw.__getitem__, map(slice, starts, map(add, ends, repeat(1)))))
    offsets = array("q", accumulate(map(add, map(len, texts), repeat(1)), initial=1))
    del offsets[-1]
    flat = array("q", chain.from_iterable(_signal_matches(b"\n" + b"\n".join(texts) + b"\n")))
    del texts
    if not flat:
        return split, sig_starts, sig_ends
    pieces, line, inside = place_matches(offsets, starts, ends, flat, lines.starts, lines.bodies)
    odd = inside.find(0) >= 0
    found = dict.fromkeys(compress(pieces, inside))  # piece -> None: its lines are the lines of its matches
    signal_lines = set(compress(line, inside))
    if odd:  # the pieces the other matches touch: as _Found reads them
        spans = list(zip(starts, ends))
        other = _Found.__new__(_Found)
        other.raw, other.touched, other.inside = raw, {}, set()
        for j in compress(range(len(pieces)), map((0).__eq__, inside)):
            other._touch(spans, offsets, flat[2 * j], flat[2 * j + 1])
        for j in compress(range(len(pieces)), inside):
            shift = starts[pieces[j]] - offsets[pieces[j]]
            other.touched.setdefault(pieces[j], []).append((flat[2 * j] + shift, flat[2 * j + 1] + shift))
            other.inside.add(pieces[j])
        for k in sorted(set(other.touched) - set(found)):  # (_Found.search)
            a, b = spans[k]
            if k in other.inside or _signal_in(raw, a, b):
                found[k] = None
        for k in other.touched:
            if k in found:
                a, b = spans[k]
                signal_lines.update(map(lines.at, map(itemgetter(0), _lines_of_matches(raw, a, b, sorted(other.touched[k])))))
    split.extend(sorted(map(starts.__getitem__, found)))
    for i in sorted(signal_lines):
        sig_starts.append(lines.starts[i])
        sig_ends.append(lines.starts[i + 1])
    return split, sig_starts, sig_ends


@cache
def _signal_program():
    """``SIGNAL_RE``'s compiled RE2 program and how ``search`` asks it, or None (another engine)."""
    program = re2_program(SIGNAL_RE)
    return None if program is None else (program[0], program[1].UNANCHORED)


def _signal_in(raw: bytes, a: int, b: int) -> bool:
    """``SIGNAL_RE.search(raw, a, b) is not None`` (``a:b`` within ``raw``), by the program directly:
    no match object."""
    program = _signal_program()
    if program is None:
        return SIGNAL_RE.search(raw, a, b) is not None
    return program[0](program[1], raw, a, b)[0] != NO_SPAN


def _signal_matches(text: bytes):
    """The spans of ``SIGNAL_RE.finditer(text)``, by the program directly (the steps of RE2's
    ``finditer``, without a match object each)."""
    program = _signal_program()
    if program is None:
        yield from (m.span() for m in SIGNAL_RE.finditer(text))
        return
    match, unanchored = program
    pos, end = 0, len(text)
    while True:
        span = match(unanchored, text, pos, end)[0]
        if span == NO_SPAN:
            return
        yield span
        if pos == end:
            return
        pos = pos + 1 if pos == span[1] else span[1]


def _unchanged_lines(raw: bytes, a: int, b: int) -> int:
    """How many lines of ``raw[a:b]`` (``a < b``, whole lines) are no index/mode line
    (``diff_twins.META_RE``): counted at C speed when no line can be one (each holds ``index `` or
    ``old mode ``), else line by line."""
    if raw.find(b"index ", a, b) < 0 and raw.find(b"old mode ", a, b) < 0:
        return raw.count(b"\n", a, b) + (raw[b - 1] != 10)
    return sum(1 for s, e, _ in line_spans(raw, a, b) if not diff_twins.META_RE.match(raw, s, e))


def _signal_lines(raw: bytes, a: int, b: int):
    """(start, end) of each line of ``raw[a:b]`` (``a`` at a line start) where ``SIGNAL_RE`` matches
    the line's text alone, in order. Only the lines that one pass over ``a:b`` finds a match in (or
    across) are tried: a line that matches alone is one of them (the pattern has no ``$``: a line's
    text is followed by its line ending, which no match needs to be the end of the text)."""
    if _end_anchored():  # a pattern that could need the end of the text: every line alone
        for line_start, body_end, line_end in line_spans(raw, a, b):
            if SIGNAL_RE.search(raw, line_start, body_end) is not None:
                yield line_start, line_end
        return
    yield from _lines_of_matches(raw, a, b, (m.span() for m in SIGNAL_RE.finditer(raw, a, b)))


def _lines_of_matches(raw: bytes, a: int, b: int, spans):
    """(start, end) of each line of ``raw[a:b]`` that ``SIGNAL_RE`` matches alone, among the lines the
    match ``spans`` (in order; one may start before ``a``) fall in or across."""
    done = a  # lines before this were tried
    for first, stop in spans:
        at = max(done, raw.rfind(b"\n", a, max(first, a)) + 1)
        last = max(first, stop - 1)
        while at <= last and at < b:
            nl = raw.find(b"\n", at, b)
            end = b if nl < 0 else nl + 1
            body_end = line_body_end(raw, at, end)
            # a match inside the line's text is one its own search finds (no match ends with a line
            # ending, and no assertion of the pattern tells a line's end from a text's end)
            if (at <= first and stop <= body_end) or _signal_in(raw, at, body_end):
                yield at, end
            at = done = end


_ESCAPE_OR_CLASS_RE = lazy(rb"\\.|\[\^?\]?(?:\\.|[^\]])*\]")  # \x, [...]: where a "$" is no anchor
@cache
def _end_anchored() -> bool:
    """Whether ``SIGNAL_RE`` has a ``$`` outside its escapes and character classes (asked once)."""
    return b"$" in _ESCAPE_OR_CLASS_RE.sub(b"", SIGNAL_RE.pattern)


def reduce_log(raw: bytes, settings: Settings, fine: bool = False, room: int = 0, moved: difftype.Moved | None = None) -> Plan:
    lines = LineTable(raw)
    first, commits = parse(raw, lines)
    if not commits:
        return reduce_oneline(raw, lines, settings, room)
    single = len(commits) == 1
    em = _Emitter(raw, lines, settings, fine, single)
    em.moved = moved
    plan = em.plan
    if first:
        _preamble(em, first)
    shown = commits[: max(1, settings.max_commits)]
    if any(c.patch is not None for c in commits[len(shown) :]):
        shown = commits  # a patch's changed lines are never folded away
    if not _end_anchored():
        em.upcoming = [c for c in shown if c.patch is not None and not c.width]
        if em.upcoming and not may_summarise(raw):  # one search of the whole input, not one a patch
            em.summarise = False
    for c in shown:
        em.commit(c)
    older = commits[len(shown) :]
    if older:
        _fold_older(em, older)
    plan.keep_rest()
    if not fine and GROUP in plan.reasons:
        lead = b"" if plan.ends_line() else b"\n"
        what = "1 commit;" if single else f"{len(shown):,} commits, one line each (hash, date, author: subject);"
        em.show(lead + f"[git log: {what} full headers, messages, stats and unchanged diff context: ".encode())
        plan.mark(GROUP)
        em.show(b"]\n")
    if em.omitted - em.shown < MIN_GAIN:
        return passthrough(raw)
    return plan.finish()


def _preamble(em: _Emitter, first: int) -> None:
    """What comes before the first commit (a tag's header, a warning) stays, but for the lines inside
    a signature block (between ``-----BEGIN … SIGNATURE-----`` and its END line), which go behind the ref."""
    raw, plan = em.raw, em.plan
    in_signature = False
    for line in em.lines[:first]:
        text = raw[line.start : line.body_end]
        if in_signature and SIGNATURE_END_RE.match(text):
            in_signature = False
        elif in_signature and text[:1] not in (b"+", b"-"):  # (such a line would read as a changed line)
            em.omit_to(line.end)
            continue
        plan.keep(plan.position, line.end)
        in_signature = in_signature or SIGNATURE_BEGIN_RE.match(text) is not None


def _fold_older(em: _Emitter, older: list[Commit]) -> None:
    plan, lines = em.plan, em.lines
    start, end = lines[older[0].first].start, lines[older[-1].end - 1].end
    plan.omit(start, end, OLDER, OLDER_REASON)
    em.omitted += end - start
    span = _date_span(older)
    lead = b"" if plan.ends_line() else b"\n"
    em.show(lead + f"[{len(older):,} older commits{span}: ".encode())
    plan.mark(OLDER)
    em.show(b"]\n")


def _date_span(commits: list[Commit]) -> str:
    """`` (oldest … newest)`` of the commits' dates (as shown), or `` (date)`` when there is one."""
    dates = [c.date.decode("utf-8", "replace") for c in commits if c.date]
    if not dates:
        return ""
    return f" ({dates[0]})" if dates[0] == dates[-1] else f" ({dates[-1]} … {dates[0]})"


def reduce_oneline(raw: bytes, lines: Sequence[Line], settings: Settings, room: int = 0) -> Plan:
    """One line per commit already (or a record of a few lines: ``--format="%h %ad %an%n    %s"``): fold
    the commits beyond ``max_commits``, or beyond ``room`` bytes (0: no limit) from the newest, whole
    records only."""
    seen = 0
    for i, line in enumerate(lines):
        if ONELINE_RE.match(raw, line.start, line.body_end) and not GRAPH_ONLY_RE.match(raw, line.start, line.body_end):
            seen += 1
            if seen > settings.max_commits or (room and seen > 1 and line.start > room):
                rest = sum(1 for ln in lines[i:] if ONELINE_RE.match(raw, ln.start, ln.body_end))
                plan = Plan(raw)
                plan.keep(0, line.start)
                plan.omit(line.start, len(raw), OLDER, OLDER_REASON)
                plan.show(f"[{rest:,} older commits: ".encode())
                plan.mark(OLDER)
                plan.show(b"]\n")
                return plan.finish()
    return passthrough(raw)


ROOM_SHARE = 0.9  # of the output ceiling a list of commits takes, newest first, before the older ones fold


def reduce(raw: bytes, granularity: str, config) -> Plan:
    """``reduce_log``; then, when the patches' moved blocks folded and the view leaves room, the
    added lines of as many of them as it holds are shown (``diff.with_moved``)."""
    room = int(section(config, "ceiling").max_chars * ROOM_SHARE)
    settings, fine, moved = section(config, NAME), granularity == "fine", difftype.Moved()
    plan = reduce_log(raw, settings, fine=fine, room=room, moved=moved)
    return difftype.with_moved(plan, moved, room, lambda spare: reduce_log(raw, settings, fine, room, difftype.Moved(spare)))


# -- detection ------------------------------------------------------------------------------------


def detect(sample) -> str | None:
    if not maybe.gitlog(sample):
        return None  # no "commit ", no tag, no --oneline first line
    lines = sample.lines[:400]
    raw = sample.plain
    for i, line in enumerate(lines[:50]):
        m = COMMIT_RE.fullmatch(line.rstrip(b"\r"))
        if m is None or (m.group(1) and b"*" not in m.group(1)) or i + 1 >= len(lines):
            continue
        nxt = lines[i + 1]
        width = len(m.group(1))
        content = nxt[width:] if width and not nxt[:width].strip(b"*|/\\_.- ") else nxt
        if HEADER_RE.match(content):
            return "git commit headers (commit <hash>, Author:, Date:)"
    if raw.startswith(b"tag ") and b"\nTagger: " in raw[:2000] and b"\ncommit " in raw:
        return "git show of a tag"
    return _detect_oneline(lines)


def _detect_oneline(lines: list[bytes]) -> str | None:
    if len(lines) < 3:
        return None
    hashes = []
    graph_only = 0
    more = 0  # the indented lines of a record (``--format="%h %an%n    %s"``)
    for line in lines:
        if GRAPH_ONLY_RE.fullmatch(line):
            graph_only += 1
            continue
        m = re.match(rb"[" + GRAPH_CHARS + rb"]*([0-9a-f]{7,40}) [ \t]*\S", line)  # a subject may start with blanks
        if m is None:
            if not hashes or line[:1] not in (b" ", b"\t"):
                return None
            more += 1
            continue
        hashes.append(m.group(1))
    if len(hashes) < 3 or more > 3 * len(hashes):
        return None
    lengths = {len(h) for h in hashes}
    with_digit = sum(1 for h in hashes if re.search(rb"\d", h) and re.search(rb"[a-f]", h))
    # hashes are random: neighbours rarely share a prefix (sequential ids do); subjects differ
    shared = sum(1 for a, b in zip(hashes, hashes[1:]) if a[:3] == b[:3])
    subjects = {re.sub(rb"\d+", b"0", line.split(b" ", 1)[-1]) for line in lines}
    if len(lengths) == 1 and len(set(hashes)) == len(hashes) and with_digit >= 0.8 * len(hashes) \
            and shared <= 0.2 * len(hashes) and len(subjects) >= 0.5 * len(hashes):
        if more:
            return f"{len(hashes)} commits of git log --format, a record of a line and indented lines each"
        return f"{len(hashes)} lines of git log --oneline (hash, subject)"
    return None


# -- level 0 and packing --------------------------------------------------------------------------


def facts(packet):
    from operators.overview import IMPORTANT_MAX, clip
    from operators.types import Facts

    raw = packet.raw
    lines = LineTable(raw)
    _, commits = parse(raw, lines)
    settings = Settings()
    important = []
    for c in commits[:IMPORTANT_MAX]:
        subject = b"" if c.subject is None else _content(raw, lines[c.subject], c.width).strip()
        important.append(clip(summary(c, settings.hash_chars) + subject))
    if not commits:
        n = sum(1 for ln in lines if ONELINE_RE.match(raw, ln.start, ln.body_end))
        return Facts(f"{n:,} commits", [], 0)
    span = _date_span(commits)
    patches = sum(1 for c in commits if c.patch is not None)
    counts = f"{len(commits):,} commit{'s' if len(commits) != 1 else ''}{span}" + (f", {patches} with patches" if patches else "")
    return Facts(counts, important, len(commits))


HASH_LINE_RE = lazy(rb"[" + GRAPH_CHARS + rb"]*[0-9a-f]{7,40} ")
# HASH_LINE_RE led by a newline (``Lines.led``), by RE2 over bytes: one linear pass (``re`` tries the class at every newline)
HASH_LINE_SCAN = lazy(rb"\n[" + GRAPH_CHARS + rb"]*[0-9a-f]{7,40} ", compiler=latin1_re2)


def tier(text: bytes, shown: bytes, config):
    """Pack tiers: commit lines and changed lines are signal; hunk headers context."""
    if HASH_LINE_RE.match(text):
        return 0, 0
    return difftype.tier(text, shown, config)


_STAT_CODE, _COMMIT_CODE = 16, 254  # the codes of (1, 0) (tier 1 a 16) and of (0, -1) (no code of the diff's)


def rank_lines(lines: list[bytes], config) -> list[tuple[int, int] | None]:
    """Budget ranks (``operators.rank``): every commit line first (one line per commit, newest first),
    then the patches as the diff type ranks them (whole small hunks first); a commit's ``--stat``
    lines are its context."""
    from operators.rank import Lines

    coded = difftype.rank_codes(lines)  # the diff's codes, not yet made into its list
    out = difftype.rank_lines(lines, config) if coded is None else None
    if isinstance(lines, Lines):  # one scan of the text, not a match per line
        commit_lines = lines.led(HASH_LINE_SCAN)
    else:
        commit_lines = [i for i, line in enumerate(lines) if HASH_LINE_RE.match(line)]
    if coded is not None:  # the same steps on the codes: no pass over the list
        codes, pairs = coded
        i = codes.find(0)  # (0, 0)
        while i >= 0:
            if difftype.STAT_RE.match(lines[i]):
                codes[i] = _STAT_CODE
            i = codes.find(0, i + 1)
        for i in commit_lines:
            codes[i] = _COMMIT_CODE
        pairs[_STAT_CODE], pairs[_COMMIT_CODE] = (1, 0), (0, -1)
        return difftype.RankCodes(codes, pairs)
    stat = (0, 0)
    for i in list(compress(range(len(out)), map(eq, out, repeat(stat)))):
        if difftype.STAT_RE.match(lines[i]):
            out[i] = (1, 0)
    for i in commit_lines:
        out[i] = (0, -1)
    return out


def cut_head(raw: bytes, budget: int) -> bytes:
    """A single commit with a patch (``git show``) cut to a budget lists its files first, as a diff does.
    A second ``commit`` line is looked for, not every one counted (a long log has thousands)."""
    first = raw.find(b"\ncommit ")
    commits = raw.startswith(b"commit ") + (first >= 0)
    if commits == 1:
        commits += raw.find(b"\ncommit ", first + 1) >= 0 if first >= 0 else 0
    return difftype.cut_head(raw, budget) if commits <= 1 else b""
