"""The output ceiling: keeps a finished plan's visible text under a budget, choosing its lines by
what the content type says an agent needs (``operators.rank``), never by a blind cut.

``fit(plan, budget_bytes, kind, config)`` returns ``plan`` itself when its visible text fits (the
common case costs one sum over the pieces). Otherwise it cuts the visible text into lines, ranks
them with the ranking of content type ``kind`` (the same ranking the packer uses) and keeps, until
the budget is spent:

1. the must-see lines (tier 0: error/failure lines, failing test ids, a diff's file headers and
   changed lines, a linter's messages, a source file's outline, …), best rank first. For a type
   whose signals are lines (a log, a build, text) lines of one *template* (numbers, timestamps and
   hex ids masked: different users, hosts, paths and test names stay apart) are one group: its first
   line shown as it is, followed by ``(×N similar, first 08:01:02, last 08:59:58)`` when the
   template occurs more than once; these take at most ``MUST_SHARE`` of the budget, tried best rank
   first — for a type that tells the kinds of its must-see lines apart (``family``: a log's words),
   the first group of each kind before any other (``_kinds_first``);
2. their context (tier 1: fold summaries, runner summaries, the lines around a signal), up to
   ``CONTEXT_SHARE``. For a log (a type whose signals are lines and whose tier 1 is the general
   rules': its rare lines and the traces after its signal lines) a trace is shown only after a line
   shown, never the trace of a line left out; then the other lines of each signal template, one of
   each template in turn and each template's spread over its run (``_spread``: first, last, middle,
   quarters …), copies of a line shown passed over, up to ``MEMBERS_SHARE``; then its rare lines,
   spread over the log; then more lines of the templates, up to ``CONTEXT_SHARE``;
3. the head and the tail of the output, a line from each in turn.

A line between two lines shown that is no longer than the gap line that would stand for it is shown
(``_close_short_gaps``). Gap lines are reckoned as they mostly are (``GAP_TYPICAL``) while lines
are chosen, at their longest (``GAP_EST``) when that went over the budget; what the lines printed
did not take of that (``SLACK_MIN`` or more) is chosen again, once, with every limit raised by it
(``fit``), so a cut output of many gaps still fills its room.

The budget is a ceiling for the must-see lines and only a *target* for the rest (``target``: half
the budget, at least ``TARGET_MIN``): a reduced text under the target is shown as it is; over it,
context, head and tail stop at the target while must-see lines go on to the budget. The target is
the whole output's: what the type shows first when cut (``cut_head``: a diff's file list) counts in
it. A type whose reducer fits itself to the room (``FITS``: JSON, logs, diagnostics, blame) is cut
at the budget only, and then only by what is over it: its target is the budget (a log of unique
lines just over it is not halved); so is a type whose every line is content (``FILL``: source code,
documents, tables, blame, unknown text — a file the agent asked to read): its outline first, then
its body as far as the budget goes, not half of it. An input whose raw text fits the budget is never
cut (``apply``).
What context, head and tail leave of the budget goes back to must-see lines past their share
(``_fill_must``).

Every run of lines not shown becomes one *gap*: all the raw bytes it covers (kept and omitted alike)
go to one new ref, its synthetic lines (summaries, markers) are dropped, and one line stands where
it was: ``[… 1,234 lines (56 KB) not shown: #ref:ctx_…]`` (the first one also says how to read a
ref; the others are shorter, ``[… 12 lines: #ref:ctx_…]``, naming their size from ``GAP_SIZE_MIN``). A reducer group whose bytes all went into gaps disappears, its marker reading ``(in the
gaps)``; the bytes of groups that keep some outside the gaps but lost every marker are pooled into
one more ref named on a last line, so no omission is unnamed. Must-see lines (groups) that did not
fit are counted on a first line: ``[N more signal templates (M lines) not shown: …]``. A line longer than ``LINE_MAX`` (or a tenth of the budget) is shown cut,
the rest of it in the next gap's ref; must-see lines shown cut are counted on a line of their own:
``[1 must-see line (3 parts) shown cut: the rest of it is in the ref after it]`` (its parts: the
spans between the markers in it, a hidden secret's or a long line's cut).

``apply`` is OPTIMIZE's step (after the reducer and the safety pass): the packet's ``budget``
(estimated tokens) or ``[ceiling] max_chars``. ``RunBudget`` shares one ceiling among the windows of
a ``tokens run``. The SIGNAL check (``operators.signals.uncounted``) reads the lines a cut adds
(``(×N similar …)``, ``[N more … not shown …]``) to know which missing signals it accounts for.

The visible text is built once and ranked line by line (only when it is over the budget); the
lines of each template are found by the kernel (``template_groups``); the gaps are located by
bisection over the pieces' offsets.
"""

from __future__ import annotations

import io
import re
from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Sequence
from functools import cached_property
from itertools import accumulate, compress, islice, repeat, takewhile
from operator import itemgetter, le, sub
from typing import Annotated, Literal

import msgspec

from operators.configbase import Section
from operators.reduction import KEEP, MARK, OMIT, SHOW, Plan, size_text
from operators.store import REF_ID_LEN
from operators.kernel import release_memory, render_view, template_groups, tier_order
from operators.signals import signals_kind, templates
from operators.vocab import CONTINUATION_RE, signal_line_spans

MARK_LEN = len("#ref:ctx_") + REF_ID_LEN  # a marker as rendered (an id lengthened on a collision: rare)
GAP_REASON = "not shown: over the output ceiling"
APART_FIRST = 50  # must-see lines apart that lead no template (numbered test ids) placed before the other groups; the rest after them
GAP_EST = 64  # bytes a gap line takes at most (its counts, its size and its marker; the first one's hint apart)
GAP_TYPICAL = 36  # ... and mostly (``[… 12 lines: #ref:ctx_…]``): what the first choice reckons (``fit``)
GAP_SIZE_MIN = 10 * 1024  # a gap of fewer bytes names only its lines (but the first, which says what a gap is)
SLACK_MIN = 2 * GAP_EST  # bytes reckoned for a cut output but not printed that are worth choosing again (``fit``)
SHORT_GAP = len("[… 1 line: ".encode()) + MARK_LEN + 2  # ... and at least (``_close_short_gaps``)
def _hint() -> bytes:
    """How to read a gap's ref, naming a ``tokens`` that runs from the agent's shell."""
    from operators.launcher import tokens_command

    return f" — {tokens_command()} expand ctx_… --grep PATTERN".encode()

SUMMARY_EST = 200  # the line counting the signal templates that did not fit
MUST_SHARE = 0.85  # of the budget the must-see lines (tier 0) may take ...
CONTEXT_SHARE = 0.9  # ... and with their context (tier 1); the rest goes to head and tail
MEMBERS_SHARE = 0.6  # ... of which a log's other lines of its signal templates first, then its rare lines
HEAD_TAIL_SHARE = 0.1  # ... of which a type that does not fill its budget (FILL) shows at most this much more
TARGET_SHARE = 0.5  # the lines beyond the must-see ones (context, head, tail) fill at most this
TARGET_MIN = 9_000  # ... of the budget, never less than this many bytes (``target``)
LINE_MAX = 2000  # bytes of one line shown at most (a tenth of the budget when that is less)
CEILING_GUARD = "output ceiling"
IN_GAPS = b"(in the gaps)"  # stands for a marker whose ref went wholly into the gaps (not longer than one)
REST_GROUP, REST_REASON = "ceiling:between", "omitted between lines shown under the output ceiling"
REST_EST = 80  # the last line naming that ref
RESERVE = 200  # bytes printed around a packet's text: "[command failed: exit code N]", the refs hint
HEADER_MAX = 64  # ... of which the failure header: what an input shown whole (no refs line) leaves room for
BUDGET_MIN = 256  # a budget never leaves less than this (a gap line and a few signal lines)
_TIME = re.compile(rb"(?<![0-9])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?")


# What each agent host puts in the model's context of one tool output, and the budget that stays in it:
# Claude Code's Bash tool keeps up to 30,000 characters inline (a longer output is replaced by its
# first 2,000 characters and a file path): 25,000 stays inline with room for our own lines; Codex CLI
# keeps about 10,000 bytes (the first and last 5,000): 9,000, the most issue 20 allows it (room for the
# lines Codex itself adds around an output); Gemini CLI and no host: 25,000.
HOST_LIMITS = {"claude-code": 25_000, "codex": 9_000, "gemini": 25_000, "none": 25_000}
# ... and what the host itself shows whole (Claude Code: characters, at most one a byte; Codex: bytes):
# an input that fits it with room for our lines has it as its ceiling (``total_of``): never cut below
# what the host would have shown of it without us. Claude Code's is 500 under its 30,000: past it the
# model would see a 2,000-character preview, so a refs line naming a long install path must still fit
HOST_VIEWS = {"claude-code": 29_500, "codex": 10_000}
DEFAULT_BUDGET = HOST_LIMITS["none"] - RESERVE  # the budget a fixture's planted signals are promised at


class CeilingSettings(Section):
    """``[ceiling]``: the most characters (counted as bytes) an output of ``tokens run``/``analyze``
    shows: ``max_chars``, or when it is not set the limit of the agent ``host`` that reads the output
    (``HOST_LIMITS``)."""

    host: Literal["claude-code", "codex", "gemini", "none"] = "none"
    max_chars: Annotated[int, msgspec.Meta(ge=0)] = 0  # 0: the host's limit

    def __post_init__(self) -> None:
        if 0 < self.max_chars < 1000:
            raise ValueError("max_chars must be at least 1000 (or 0: the host's limit)")
        if not self.max_chars:
            self.max_chars = HOST_LIMITS[self.host]

    @property
    def budget_chars(self) -> int:
        """The bytes an output's plan may show under this ceiling (``budget_of`` a packet without a
        budget of its own): what a reducer fits to when it fits itself to the budget."""
        return _less_reserve(self.max_chars)

    def room_for(self, size: int) -> int:
        """The bytes a reducer that folds only for room may show of an input of ``size`` bytes: all of
        it when the host shows it whole with a failure header (no refs line is printed then), else
        ``budget_chars``."""
        whole = self.max_chars - HEADER_MAX
        return whole if size <= whole else self.budget_chars

    @property
    def target_chars(self) -> int:
        """What an output is cut to but for its must-see lines (``target``): the room of a reducer
        that fits itself."""
        return target(self.max_chars)


def settings_of(config) -> CeilingSettings:
    return getattr(config, "ceiling", None) or CeilingSettings()


def budget_of(packet, config) -> int:
    """The bytes a packet's plan may show: its own ``budget`` (estimated tokens, 4 bytes each) or the
    configured ceiling, less what is printed around it (a failure header, the hint line)."""
    return _less_reserve(total_of(packet, config))


def total_of(packet, config) -> int:
    """The characters (counted as bytes) a packet's output may take in all: its own ``budget``
    (estimated tokens, 4 bytes each) or the ceiling of its size (``total_chars``)."""
    return packet.budget * 4 if packet.budget else total_chars(len(packet.raw), settings_of(config))


def total_chars(size: int, settings: CeilingSettings) -> int:
    """The ceiling of an input of ``size`` bytes: ``max_chars``, or, when that is the host's own limit
    and the host shows the input whole with room for our lines (``HOST_VIEWS``), what the host shows:
    Codex keeps a 9,800-byte output whole, and a reducer given 9,000 would have cut it."""
    view = HOST_VIEWS.get(settings.host, 0)
    if view and size <= view - RESERVE and settings.max_chars == HOST_LIMITS[settings.host]:
        return view
    return settings.max_chars


def _less_reserve(total: int) -> int:
    return max(BUDGET_MIN, total - RESERVE)


def apply(packet, plan: Plan, guard: str, config) -> tuple[Plan, str]:
    """OPTIMIZE's ceiling step: the plan cut to the packet's budget, and the guard saying so."""
    budget = budget_of(packet, config)
    if len(packet.raw) <= budget:  # the raw text fits: "never worse than raw" shows it whole if need be
        return plan, guard
    if len(packet.raw) <= total_of(packet, config) - HEADER_MAX and not plan.omits_anything:
        return plan, guard  # shown whole, it prints no refs line: the reserve for one is not needed
    hint = getattr(packet, "window", 1) <= 1  # a run's later windows do not repeat it
    new = fit(plan, budget, packet.type, config, hint)
    if new is plan:
        return plan, guard
    return new, (guard + "; " if guard else "") + f"{CEILING_GUARD}: {budget:,} bytes"


def visible_size(plan: Plan) -> int:
    """The plan's visible bytes, markers counted at their usual length."""
    pieces = plan.pieces
    kinds = pieces.kinds
    return (sum(compress(map(sub, pieces.ends, pieces.starts), kinds.translate(_KEEP_FLAGS)))  # a pass a column, by ``map``
            + sum(map(len, compress(pieces.objs, kinds.translate(_SHOW_FLAGS)))) + MARK_LEN * kinds.count(MARK))


_KEEP_FLAGS = bytes(kind == KEEP for kind in range(256))  # a piece's kind -> 1 for a kept span
_SHOW_FLAGS = bytes(kind == SHOW for kind in range(256))  # ... for a shown text


NEWLINE_BLOCK = 1 << 16  # bytes of raw whose newlines a view counts once (``_View.newlines``)
RELEASE_MIN = 1 << 20  # bytes of input from which the C library's free memory is handed back before a view is made (``fit``)


class _View:
    """The plan's visible text (markers as placeholders of their usual length) and, for every piece,
    where it starts in the visible text (``vstart``) and in the raw input (``rstart``)."""

    def __init__(self, plan: Plan, size: int):
        pieces = plan.pieces
        placeholder = b"#ref:ctx_" + b"0" * REF_ID_LEN
        raw = plan.raw
        if len(pieces) == 1 and pieces.kinds[0] == KEEP and pieces.starts[0] == 0 and pieces.ends[0] == len(raw) \
                and type(raw) is bytes:  # the input as it is (a file read, text under no fold): no copy of it
            made = raw, array("q", (0, len(raw)))
        else:
            made = render_view(raw, pieces.kinds, pieces.starts, pieces.ends, pieces.objs, placeholder)  # one pass of the kernel
        if made is not None:
            self.text, self.vstart = made
        else:
            out = io.BytesIO(bytes(size))  # written in place: no object kept per piece
            self.vstart = array("q", accumulate(self._widths(plan, out), initial=0))
            out.truncate()
            self.text = out.getvalue()
        self.pieces = pieces
        self.n = len(pieces)
        self.raw_size = len(plan.raw)  # the input's bytes: an input just over the budget is cut less (``target``)
        self.block_newlines: dict[int, int] = {}  # block -> its newlines (``newlines``)

    @cached_property
    def rstart(self) -> array:
        """Made when the new plan is built, after the ranking's arrays are gone: not held through it."""
        pieces = self.pieces
        return array("q", accumulate(map(sub, pieces.ends, pieces.starts), initial=0))

    @staticmethod
    def _widths(plan: Plan, out: io.BytesIO):
        """Each piece's visible width, its visible bytes written to ``out`` on the way."""
        pieces = plan.pieces
        placeholder = b"#ref:ctx_" + b"0" * REF_ID_LEN
        raw = memoryview(plan.raw)
        write = out.write
        for kind, start, end, obj in zip(pieces.kinds, pieces.starts, pieces.ends, pieces.objs):
            if kind == KEEP:
                yield write(raw[start:end])
            elif kind == SHOW:
                yield write(obj)
            elif kind == MARK:
                yield write(placeholder)
            else:
                yield 0

    def cut_low(self, v: int) -> tuple[int, int]:
        """The cut at visible offset ``v`` before any zero-width piece there: (piece, offset in it)."""
        i = bisect_left(self.vstart, v)
        if i <= self.n and self.vstart[i] == v:
            return i, 0
        return i - 1, v - self.vstart[i - 1]

    def cut_high(self, v: int) -> tuple[int, int]:
        """The cut at visible offset ``v`` after every zero-width piece there."""
        i = bisect_right(self.vstart, v) - 1  # the last piece starting at v comes after the zero-width ones
        return i, v - self.vstart[i]

    def newlines(self, raw: bytes, r0: int, r1: int) -> int:
        """``raw.count(b"\\n", r0, r1)``, each whole ``NEWLINE_BLOCK`` inside the range counted once for
        every build of the plan (fitting builds it up to three times over the same gaps)."""
        b0, b1 = -(-r0 // NEWLINE_BLOCK), r1 // NEWLINE_BLOCK
        if b1 - b0 < 2:
            return raw.count(b"\n", r0, r1)
        from operators.kernel import count_newlines  # a large range: the kernel's loop

        counts = self.block_newlines
        n = raw.count(b"\n", r0, b0 * NEWLINE_BLOCK) + raw.count(b"\n", b1 * NEWLINE_BLOCK, r1)
        for b in range(b0, b1):
            count = counts.get(b)
            if count is None:
                count = counts[b] = count_newlines(raw, b * NEWLINE_BLOCK, (b + 1) * NEWLINE_BLOCK)
            n += count
        return n

    def raw_at(self, plan: Plan, cut: tuple[int, int]) -> int:
        i, o = cut
        if o and plan.pieces.kinds[i] == KEEP:
            return self.rstart[i] + o
        return self.rstart[i]

    def piece_at(self, v: int) -> int:
        """The piece of positive width holding visible offset ``v``."""
        return bisect_right(self.vstart, v) - 1


class _Choice:
    """The lines chosen so far: ``items`` maps a line's visible start to (shown end, insert offset,
    insert text); the cost of each addition counts its bytes and the gap lines it adds or removes."""

    def __init__(self, view: _View, budget: int, kinds: bytearray, gap_est: int = GAP_EST):
        self.view = view
        self.gap_est = gap_est  # what a gap line is reckoned at
        self.kinds = kinds
        self.size = len(view.text)
        self.budget = budget
        self.used = GAP_EST + len(_hint()) + REST_EST  # nothing shown yet: one gap (with the hint); the pooled ref's line
        self.items: dict[int, tuple[int, int, bytes]] = {}
        self.ends: set[int] = set()  # line ends (after the newline) of whole lines shown
        self.line_max = max(80, min(LINE_MAX, budget // 10))
        self.cut: list[int] = []  # visible starts of the lines shown cut (``clip``)

    def clip(self, vs: int, le: int) -> int:
        """Where a line [vs, le) is cut when it is too long (``le`` when it is not)."""
        if le - vs <= self.line_max:
            return le
        view = self.view
        v = vs + self.line_max
        i = view.piece_at(v)
        kind = self.kinds[i]
        if kind == MARK:
            v = view.vstart[i] if view.vstart[i] > vs else view.vstart[i + 1]
        elif kind == KEEP:
            text = view.text
            back = 0
            while back < 3 and 0x80 <= text[v] < 0xC0:  # not inside a UTF-8 character
                v -= 1
                back += 1
        return v

    def fold(self, vs: int, suffix: bytes) -> bool:
        """Whether the line at ``vs`` is shown and counts the lines of its group: given ``suffix`` when
        it has none and it still fits (shown without it, the others of its group are not counted)."""
        item = self.items.get(vs)
        if item is None:
            return False
        ve, ins, had = item
        if not suffix or had:
            return True
        if self.used + len(suffix) > self.budget:
            return False
        self.used += len(suffix)
        end = vs + len(self.view.text[vs:ve].rstrip(b"\r\n")) if ve in self.ends else ve
        self.items[vs] = (ve, end, suffix)
        return True

    def unfold(self, vs: int) -> None:
        """The line at ``vs`` without its fold suffix (every line it counted is shown)."""
        ve, ins, suffix = self.items[vs]
        if suffix:
            self.used -= len(suffix)
            self.items[vs] = (ve, ve, b"")

    def add(self, vs: int, le: int, suffix: bytes = b"") -> bool:
        """Show line [vs, le) (``le`` after its newline), with ``suffix`` before its line end, if it fits."""
        if vs in self.items:
            return True
        ve = self.clip(vs, le)
        cut = ve < le
        prev_adj = vs == 0 or vs in self.ends
        next_adj = not cut and (le == self.size or le in self.items)
        delta = (not prev_adj) + (not next_adj) - 1
        cost = (ve - vs) + len(suffix) + delta * self.gap_est
        if self.used + cost > self.budget:
            return False
        self.used += cost
        if cut:
            ins = ve
        else:
            ins = vs + len(self.view.text[vs:le].rstrip(b"\r\n")) if suffix else ve
        self.items[vs] = (ve, ins, suffix)
        if cut:
            self.cut.append(vs)
        else:
            self.ends.add(le)
        return True


def _line_end(text: bytes, vs: int) -> int:
    e = text.find(b"\n", vs)
    return len(text) if e < 0 else e + 1


def _fold_suffix(text: bytes, count: int, first: tuple[int, int], last: tuple[int, int]) -> bytes:
    if count < 2:
        return b""
    out = " (×{:,} similar".format(count).encode()
    t0 = _TIME.search(text, first[0], first[1])
    t1 = _TIME.search(text, last[0], last[1])
    if t0 and t1:
        out += b", first " + t0.group() + b", last " + t1.group()
    return out + b")"


class _Groups(list):
    """The groups ``_groups`` makes, and which group each line is of (``of_line``: -1 for none), found
    by its start (``lines``): ``_show_members`` asks for the members shown without visiting every member."""

    def __init__(self, groups: list, lines, of_line: array, flat=None, bounds=None, multi=None):
        super().__init__(groups)
        self.lines, self.of_line = lines, of_line
        self.flat, self.bounds = flat, bounds  # each group's lines (``template_groups``): its members made when asked
        self.multi = multi  # the groups of more than one line, in order (None: not known)

    def members(self, g: int) -> "_Members":
        """The members of group ``g``."""
        return _Members(self.lines, self.flat, self.bounds[g], self.bounds[g + 1])

    def shown_texts(self, text: bytes, items) -> dict[int, set[bytes]]:
        """The texts of the members (their spans in ``text``) whose start is a key of ``items``, by group."""
        lines = self.lines
        found: dict[int, set[bytes]] = {}
        for i in _lines_starting(lines.starts, items, len(lines)):
            if self.of_line[i] >= 0:
                found.setdefault(self.of_line[i], set()).add(text[lines.starts[i] : lines.end(i)])
        return found


def _lines_starting(starts, items, n: int):
    """The index of each line (of the first ``n`` of ``starts``) that a key of ``items`` (a visible
    piece's start) starts, in the order of ``items``."""
    for vs in items:
        i = bisect_left(starts, vs)
        if i < n and starts[i] == vs:
            yield i


class _Members(Sequence):
    """The members of a group: each line's (start, end) in ``lines``, made when asked for from the
    line indexes ``flat[lo:hi]`` (4 bytes a line, not a tuple and two ints; no slice object a group)."""

    __slots__ = ("lines", "flat", "lo", "hi")

    def __init__(self, lines, flat, lo: int, hi: int):
        self.lines, self.flat, self.lo, self.hi = lines, flat, lo, hi

    def __len__(self) -> int:
        return self.hi - self.lo

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        return self.lines.span(self.flat[self.lo + k])

    def __iter__(self):
        return map(self.lines.span, self.flat[self.lo : self.hi])


def _apart(kind: str, lines, must, config) -> list[int]:
    """The must-see lines the type shows each as a group of its own (its ``apart_lines``: failing test
    ids, whose numbers name them); none for a type without it."""
    from operators import types

    own = types.attr(kind, "apart_lines", None, config)
    return own(lines, must) if own is not None and len(must) else []


def _groups(lines, order: list[int], apart=()) -> _Groups:
    """(count, first (start, end), last (start, end), None) per group of the lines ``order`` names, in
    that order: the lines of one template (``template``) are one group, its members (every member's
    span) asked of the ``_Groups`` (``members``); but each of ``apart`` (line indexes) is one of its
    own (``_set_apart``). The groups, which group each line is of and each group's lines found by the
    kernel in one pass (``template_groups``): no bytes object, span or Python step a line, and no
    object a group but its entry and spans (a storm of distinct errors has tens of thousands of groups)."""
    if not (isinstance(order, array) and order.typecode == "i"):
        order = array("i", order)
    of_line, flat, bounds, spans = template_groups(lines.text, lines.starts, order, lines.last_nl)
    if apart:
        of_line, flat, bounds, spans = _set_apart(lines, order, of_line, flat, bounds, set(apart))
    counts = list(map(sub, islice(bounds, 1, None), bounds))
    firsts = list(zip(spans[0::4], spans[1::4]))  # each group's first line (start, end), made by ``zip``
    lasts = firsts.copy()  # ... and its last: the same span for a group of one line (most, in a storm of distinct errors)
    multi = list(compress(range(len(counts)), map((1).__lt__, counts)))
    for g in multi:
        lasts[g] = (spans[4 * g + 2], spans[4 * g + 3])
    return _Groups(list(zip(counts, firsts, lasts, repeat(None))), lines, of_line, flat, bounds, multi)


def _set_apart(lines, order, of_line, flat, bounds, apart: set) -> tuple[array, array, array, array]:
    """``template_groups``' columns again with each line of ``apart`` a group of its own: one that leads
    its template stays where the template's group was; of the others (ids that differ from one before
    them by a number: ``test_evict[5-lru]``, mocha's ``12) suite``) the first ``APART_FIRST`` take their
    own place in the rank order (a failing test's id ranks first: before the other groups' lines), the
    rest come after every other group (a line of each template — an ``E`` line of each failure — before
    them); the template's other lines stay one group, where the first of them is."""
    position = {i: k for k, i in enumerate(order)}
    placed, own = [], []  # (position of its first line, its lines); (position, line) of each other line apart
    for g in range(len(bounds) - 1):
        members = flat[bounds[g] : bounds[g + 1]]
        rest = [i for i in members if i not in apart]
        if members[0] in apart:  # it leads its template: where the template's group was
            placed.append((position[members[0]], [members[0]]))
            members = members[1:]
        if rest:
            placed.append((position[rest[0]], rest))
        own.extend((position[i], i) for i in members if i in apart)
    own.sort()
    placed.extend((k, [i]) for k, i in own[:APART_FIRST])
    placed.sort(key=itemgetter(0))
    placed.extend((k, [i]) for k, i in own[APART_FIRST:])
    of_line, flat, bounds, spans = array("i", [-1]) * len(of_line), array("i"), array("q", [0]), array("q")
    for g, (_, members) in enumerate(placed):
        for i in members:
            of_line[i] = g
        flat.extend(members)
        bounds.append(len(flat))
        low, high = min(members), max(members)
        spans.extend((*lines.span(low), *lines.span(high)))
    return of_line, flat, bounds, spans


def _ranked(text: bytes, kind: str, config):
    """The lines of ``text`` (``operators.rank.Lines``: where each starts, no bytes object per line),
    the non-blank lines of tiers 0 and 1 (``operators.rank``), each tier best rank first, then in
    order, how many of tier 1 are of its best rank, and the tier of each line (a byte a line; None
    when every line is ranked by its place)."""
    from operators.rank import Lines, blank_lines_array, compact_line_tiers, given_ranks, in_order_tiers

    lines = Lines(text)
    given = given_ranks(kind, lines, config)  # the type's own ranks, asked once for both
    orders = in_order_tiers(kind, lines, config, given)
    if orders is not None:  # every line ranked by its place (a source file): the non-blank lines, in order
        return lines, list(orders), min(len(orders[1]), 1), None
    tiers, ranks = compact_line_tiers(kind, lines, config, given)
    del given
    tiers = bytearray(tiers)  # a copy in which the blank lines are of tier 2
    for i in blank_lines_array(lines):
        tiers[i] = 2
    out = []
    best = 0  # how many tier-1 lines are of its best rank (a log's rare lines)
    for tier in (0, 1):  # an array, not an int object per line: most of a diff's lines are tier 0
        if isinstance(ranks, array) and ranks.typecode in "biq":  # one pass of the kernel (a stable sort by rank)
            order, best = tier_order(tiers, ranks, ranks.itemsize, tier)
            out.append(order)
            continue
        order = array("i", compress(range(len(tiers)), map(tier.__eq__, tiers)))
        rank_of = ranks.__getitem__
        if not all(map(le, map(rank_of, order), map(rank_of, islice(order, 1, None)))):  # (a source file's ranks are its line numbers)
            order = _by_rank(order, rank_of)
        best = len(order) and _leading(rank_of(order[0]).__eq__, map(rank_of, order))
        out.append(order)
    return lines, out, best, tiers


def _leading(pred, items) -> int:
    """How many of ``items`` lead it for which ``pred`` holds (``takewhile`` counted in C: the last of
    ``enumerate`` kept, no object a line held)."""
    last = deque(enumerate(takewhile(pred, items), 1), maxlen=1)
    return last[0][0] if last else 0


RANK_PASSES = 64  # distinct ranks up to which a tier's lines are put in rank order by one pass a rank


def _by_rank(order: array, rank_of) -> array:
    """``order`` (line indexes, ascending) in rank order, in order within a rank: one pass a rank for a
    few ranks (a diff's: no list of 300,000 ints and keys beside the array), else a stable sort."""
    ranks = sorted(set(map(rank_of, order)))
    if len(ranks) > RANK_PASSES:
        return array("i", sorted(order, key=rank_of))
    out = array("i")
    if -128 <= ranks[0] and ranks[-1] < 128:  # a byte a line: each pass picks its lines by a translated mask
        codes = array("b", map(rank_of, order)).tobytes()
        for rank in ranks:
            out.extend(compress(order, codes.translate(bytes(v == rank & 255 for v in range(256)))))
        return out
    for rank in ranks:
        out.extend(compress(order, map(rank.__eq__, map(rank_of, order))))
    return out


def target(budget: int, size: int = 0) -> int:
    """The bytes an output over it is cut to, but for its must-see lines: the budget is a ceiling for
    what an agent must see, and only a smaller target for the rest (``TARGET_SHARE``, ``TARGET_MIN``).
    An input of ``size`` bytes just over the budget is cut by as much as it is over (to ``2 × budget -
    size``, never below the target): one a little longer than the budget is not halved, where one a
    little shorter is shown whole (``apply``)."""
    cut = min(budget, max(int(budget * TARGET_SHARE), TARGET_MIN))
    return max(cut, min(budget, 2 * budget - size)) if size else cut


def _choose(view: _View, budget: int, kind: str, config, kinds, head: int = 0,
            ranked=None, extra: int = 0, groups=None, gap_est: int = GAP_EST) -> tuple[_Choice, int, int, int]:
    """Pick the lines to show, most needed first (``_ranked``): tier 0 (a line per template for a
    type whose signals are lines, folded with its count) up to ``MUST_SHARE`` of the budget, tier 1
    up to ``CONTEXT_SHARE`` of the ``target``, then the head and the tail up to the target (a short
    head and tail for a type that does not ``FILL``); ``extra`` bytes more for each of these limits (what
    the gap lines, reckoned at their longest, did not take at a first try). Returns the choice, the tier-0 groups (and
    lines) left out and the must-see lines shown cut."""
    choice = _Choice(view, budget + extra, kinds, gap_est)
    text = view.text
    lines, (must, context), best, tiers = ranked or _ranked(text, kind, config)
    starts = lines.starts
    left = []  # groups whose line did not fit
    fold = signals_kind(kind, config) == "lines"
    if groups is None:
        groups = _groups(lines, must, _apart(kind, lines, must, config)) if fold else []
    rest: list[int] = []  # must-see lines (of a type whose signals are not lines) past the share
    if must:
        choice.used += SUMMARY_EST
        share = int(budget * MUST_SHARE) + extra
        if fold:
            for group in _kinds_first(groups, text, kind, config):
                count, first, last, _ = group
                fits = choice.used < share and choice.add(  # the suffix is made only for a line tried
                    first[0], _line_end(text, first[0]), _fold_suffix(text, count, first, last))
                if not fits:
                    left.append(group)  # the group's own entry: no tuple made a group left out (tens of thousands)
        else:  # each line its own group: no object per line, and none tried past the share
            for k, i in enumerate(must):
                if choice.used >= share:
                    rest = memoryview(must)[k:] if isinstance(must, array) else must[k:]  # a view: no copy
                    break
                if not choice.add(starts[i], _line_end(text, starts[i])):
                    span = lines.span(i)
                    left.append((1, span, span, None))
        if not left and not rest:
            choice.used -= SUMMARY_EST
    fits = _fits_itself(kind, config)  # its reducer made what it shows: only the excess over the budget goes
    fills = _fills(kind, config)  # every line is content (a file read): its body goes on to the budget
    whole = budget + head if fits or fills else target(budget + head, view.raw_size)  # the whole output's, ``head`` included
    soft = max(0, whole - head) + extra
    share = int(soft * CONTEXT_SHARE)
    attach = fold and not _ranks_own_lines(kind, config)  # a log: tier 1 is its rare lines and its traces
    _show_context(choice, text, context, starts, share, attach)
    if attach:
        _show_members(choice, text, groups, int(budget * MEMBERS_SHARE) + extra)
        _show_rare(choice, text, context[:best], starts, share)
    _show_members(choice, text, groups, int(budget * CONTEXT_SHARE) + extra)
    full = choice.budget
    more = int(whole * HEAD_TAIL_SHARE)  # a short head and tail for orientation, whatever the must-see lines took
    choice.budget = min(full, max(soft, choice.used + more) if fits or fills else choice.used + more)
    _head_and_tail(choice, text)
    choice.budget = full
    _close_short_gaps(choice, text)
    left, rest, tail = _fill_must(choice, text, left, rest, starts)
    items = choice.items  # a group whose line is not shown has no suffix made
    left = [g for g in left if not (g[1][0] in items and choice.fold(g[1][0], _fold_suffix(text, *g[:3])))]  # shown by head or tail after all
    rest_left = _not_shown(choice.items, starts, (rest, tail), must, tiers)
    return choice, len(left) + rest_left, sum(g[0] for g in left) + rest_left, _cut_must(choice, lines, must)


FAMILY_GROUPS = 1024  # groups (templates) of must-see lines ordered by their kind at most; the others follow in rank order


def _kinds_first(groups, text: bytes, kind: str, config):
    """The tier-0 groups in the order they are tried: for a type that tells the kinds of its must-see
    lines apart (``family``: a log's message words, its hosts, paths and ids aside), the first group of
    each kind, then the others, each part in rank order, so that twenty hosts failing one way do not
    crowd out a service failing another (of the first ``FAMILY_GROUPS``; the rest follow as ranked);
    for any other type, the groups as ranked."""
    from operators import types

    family = types.attr(kind, "family", None, config)
    if family is None or len(groups) < 2:
        yield from groups
        return
    seen, later = set(), []
    for k, group in enumerate(groups):
        if k == FAMILY_GROUPS:
            break
        first = group[1]
        key = family(text[first[0] : first[1]])
        if key in seen:
            later.append(group)
        else:
            seen.add(key)
            yield group
    yield from later
    yield from islice(groups, FAMILY_GROUPS, None)


def _not_shown(items: dict, starts, parts, must=(), tiers=None) -> int:
    """How many of the lines ``parts`` name are not shown (their start is no key of ``items``): the
    lines shown found once (the items at a line start), one look a line left out, not two."""
    shown = set(_lines_starting(starts, items, len(starts)))
    return sum(map(len, parts)) - sum(_shown_in(shown, part, must, tiers) for part in parts)


def _shown_in(shown: set, part, must, tiers) -> int:
    """How many of the lines ``part`` names are in ``shown``. When ``part`` is a view of the end of
    ``must`` (the tier-0 lines: those ``tiers`` has 0 for), longer than the rest of it: those of
    ``shown`` in ``must`` less those in its head, one look a line of the head, not of ``part`` (the
    changed lines of a big diff left out)."""
    head = len(must) - len(part)
    if tiers is None or not isinstance(part, memoryview) or part.obj is not must or not part.contiguous \
            or head >= len(part) or part[-1] != must[-1]:
        return sum(map(shown.__contains__, part))
    n = len(tiers)
    return sum(1 for i in shown if i < n and tiers[i] == 0) - sum(map(shown.__contains__, islice(must, head)))


def _show_context(choice: _Choice, text: bytes, context, starts, share: int, attach: bool) -> None:
    """The tier-1 lines, best rank first, while the share lasts; ``attach`` (the lines around a folded
    signal line, by the general rules): only those that follow a line shown, a trace after its signal
    line, not the trace of a line left out."""
    for i in context:
        if choice.used >= share:
            break
        a = starts[i]
        if attach and a not in choice.ends:
            continue
        choice.add(a, _line_end(text, a))


def _show_rare(choice: _Choice, text: bytes, rare, starts, share: int) -> None:
    """A log's rare lines (a template seen less than its reducer folds: news, not noise) that are not
    the trace of a line left out, spread over the log, while the share lasts."""
    items = choice.items
    for i in _spread(rare):
        if choice.used >= share:
            break
        a = starts[i]
        if a not in items and not CONTINUATION_RE.match(text, a, a + 64):
            choice.add(a, _line_end(text, a))


def _fill_must(choice: _Choice, text: bytes, left: list, rest, starts) -> tuple[list, list[int], Sequence[int]]:
    """The must-see lines left out by their share, shown after all while the whole budget lasts: the
    share keeps room for context, head and tail, and what those did not take (the gap lines are
    reckoned at their longest) goes back to the must-see lines, in their rank order. Returns the
    groups still left out and the lines still left out, as two parts: those tried that did not fit,
    and those not tried (a view of ``rest``: no copy of the ranks of a big diff's changed lines)."""
    if not (left or rest) or choice.used >= choice.budget - GAP_EST:
        return left, rest, ()
    still = []
    for group in left:
        first = group[1][0]
        if first in choice.items:
            still.append(group)  # one shown by the head or the tail gets its count below
            continue
        le = _line_end(text, first)
        if le - first <= choice.line_max and le - first - choice.gap_est > choice.budget - choice.used:
            still.append(group)  # no room even if it spared a gap line (``add`` would refuse it): no suffix made
            continue
        if not choice.add(first, le, _fold_suffix(text, *group[:3])):
            still.append(group)
    more = array("i")  # an array, not a list of ints (a 20 MB git log -p has 300,000 must-see lines)
    for k, i in enumerate(rest):
        if choice.used >= choice.budget - GAP_EST:
            return still, more, rest[k:]
        if not choice.add(starts[i], _line_end(text, starts[i])):
            more.append(i)
    return still, more, ()


def _cut_must(choice: _Choice, lines, must) -> tuple[int, int]:
    """The must-see lines shown cut (longer than ``LINE_MAX``: the rest of each is in the next gap's
    ref) and their parts (the spans between the markers inside them: a hidden secret, a long line's
    cut), which a line says (the SIGNAL check reads it: ``CUT_RE``)."""
    if not choice.cut:
        return 0, 0
    view = choice.view
    text = view.text
    tier0 = {lines.starts[i] for i in must}
    cut = [vs for vs in choice.cut if vs in tier0]
    parts = 0
    for vs in cut:
        first, last = view.piece_at(vs), view.piece_at(_line_end(text, vs) - 1)
        parts += 1 + sum(1 for k in range(first, last + 1) if choice.kinds[k] == MARK)
    return len(cut), parts


def _show_members(choice: _Choice, text: bytes, groups: list, share: int) -> None:
    """The other lines of the folded groups shown while the share lasts: they are signal lines too (the
    same template, other numbers, users, requests). One of each group in turn, so that every template
    shows some; inside a group spread over its run (``_spread``: the times it happened), a copy of a
    line shown passed over (the fold count stands for it); a group shown whole loses its fold count.
    Lines shown already are passed over (a second call goes on)."""
    if not groups:
        return
    items = choice.items
    shown, members_of, multi = _members_view(groups, text, items)
    todo = [(_spread(members_of(g), groups[g][1]), shown.get(g) or set())
            for g in multi if groups[g][0] > 1 and groups[g][1][0] in items]
    while todo and choice.used < share:
        going = []
        for order, seen in todo:
            if choice.used >= share:
                break
            member = next((m for m in order if m[0] not in items and text[m[0]:m[1]] not in seen), None)
            if member is not None and choice.add(member[0], _line_end(text, member[0])):
                seen.add(text[member[0]:member[1]])
                going.append((order, seen))
        todo = going
    for g in multi:  # (only the groups of more than one line can be shown whole)
        count, first = groups[g][0], groups[g][1]
        if count > 1 and first[0] in items and all(a in items for a, _ in members_of(g)):
            choice.unfold(first[0])


def _members_view(groups: list, text: bytes, items) -> tuple[dict, object, Sequence[int]]:
    """What ``_show_members`` reads of ``groups``: the texts of the members shown (``items``), by group;
    how to get a group's members; the groups that may have more than one line, in order. Of a
    ``_Groups``: the members shown found by one look an item, none a member; its groups of several
    lines alone. Of a list of groups: each member looked at, every group."""
    if isinstance(groups, _Groups):
        multi = groups.multi if groups.multi is not None else range(len(groups))
        return groups.shown_texts(text, items), groups.members, multi
    shown = {g: {text[a:b] for a, b in members if a in items} for g, (_, _, _, members) in enumerate(groups)}
    return shown, (lambda g: groups[g][3]), range(len(groups))


def _spread(members: list, but=None):
    """``members`` (in order) one by one, ``but`` left out, so that any first k of them are spread over
    the whole run: the first, the last, the middle, then the middles of the halves, of the quarters …
    (made as they are asked: a group of a million lines costs what is shown of it)."""
    n = len(members)
    order = range(n) if n <= 2 else _spread_order(n)
    for i in order:
        if members[i] != but:
            yield members[i]


def _spread_order(n: int):
    """0 … n-1 (n > 2): 0, n-1, then the middles of the halves, of the quarters …, then any left."""
    yield 0
    yield n - 1
    seen = {0, n - 1}
    parts = 2
    while len(seen) < n and parts < 2 * n:
        for j in range(1, parts, 2):  # the middles of the parts not taken yet
            i = (j * (n - 1)) // parts
            if i not in seen:
                seen.add(i)
                yield i
        parts *= 2
    for i in range(n):
        if i not in seen:
            yield i

def _fills(kind: str, config=None) -> bool:
    """Whether a cut output of this type fills the rest of its budget with its head and tail (``FILL =
    True`` in the type's module: source code, blame, unknown text, whose every line is content); other
    types show their must-see lines and context, and only a short head and tail."""
    from operators import types

    return kind not in types.names(config) or bool(types.attr(kind, "FILL", False, config))


def _ranks_own_lines(kind: str, config=None) -> bool:
    """Whether the type ranks its lines itself (``rank_lines`` or ``tier``), its tier 1 not only the
    lines around its signals."""
    from operators import types

    return any(types.attr(kind, name, None, config) is not None for name in ("rank_lines", "tier"))


def _fits_itself(kind: str, config=None) -> bool:
    """Whether the type's reducer fits its output to the ceiling's room itself (``FITS = True`` in its
    module: JSON folds its arrays to the room), so its output is cut at the budget, not at the target."""
    from operators import types

    return bool(types.attr(kind, "FITS", False, config))


def is_blank(text: bytes, a: int, le: int) -> bool:
    """Whether the line ``text[a:le]`` (its newline included) holds spaces, tabs and carriage returns at most."""
    return not text[a:le].rstrip(b"\n").strip(b"\r \t")


def _close_short_gaps(choice: _Choice, text: bytes) -> None:
    """The lines between two lines shown are shown too when they are no longer than the gap line that
    would stand for them (``SHORT_GAP``): a blank line, a short line or two cost no more than the gap
    line they spare, and an agent reads them instead of a marker."""
    items, ends = choice.items, choice.ends
    for a in sorted(ends):  # a blank line right after a line shown, before another: looked at only there
        le = _line_end(text, a)
        if le in items and is_blank(text, a, le):
            choice.add(a, le)
    shown = sorted(items)
    full = choice.budget
    choice.budget = full + choice.gap_est  # a run costs its bytes until its last line spares the gap line
    for a, b in zip(shown, shown[1:]):
        v = items[a][0]
        if v in ends and v < b and b - v <= SHORT_GAP:
            while v < b:
                le = _line_end(text, v)
                choice.add(v, le)
                v = le
    choice.budget = full


def _head_and_tail(choice: _Choice, text: bytes) -> None:
    """Lines from the head and the tail, one of each in turn, while they fit."""
    head, tail = 0, len(text)
    open_head = open_tail = True
    while (open_head or open_tail) and head < tail:
        if open_head:
            le = _line_end(text, head)
            open_head = choice.add(head, le)
            if open_head:
                head = le
        if open_tail and head < tail:
            vs = text.rfind(b"\n", 0, tail - 1) + 1
            open_tail = choice.add(vs, tail)
            if open_tail:
                tail = vs


class _Builder:
    """Writes the new plan: shown ranges copied piece by piece, each gap as one omission and its line."""

    def __init__(self, plan: Plan, view: _View, hint: bool):
        self.hint = hint
        self.old = plan
        self.view = view
        self.new = Plan(plan.raw)
        self.gaps = 0
        self.marks_in_gaps: set[str] = set()

    def group(self) -> str:
        """A new gap's group, never one of the reducer's."""
        self.gaps += 1
        group = f"ceiling-{self.gaps}"
        while group in self.old.reasons:
            group += "+"
        return group

    def shown(self, c0: tuple[int, int], c1: tuple[int, int]) -> None:
        if c1 <= c0:
            return
        old, new = self.old, self.new
        pieces = old.pieces
        kinds, starts, ends, objs = pieces.kinds, pieces.starts, pieces.ends, pieces.objs
        vstart = self.view.vstart
        i0, o0 = c0
        i1, o1 = c1
        for i in range(i0, min(i1 + 1, self.view.n)):
            a = o0 if i == i0 else 0
            if i == i1:
                if o1 == 0:
                    break
                b = o1
            else:
                b = vstart[i + 1] - vstart[i]
            kind = kinds[i]
            if kind == KEEP:
                new.keep(starts[i] + a, starts[i] + b)
            elif kind == OMIT:
                new.omit(starts[i], ends[i], objs[i], old.reasons[objs[i]])
            elif kind == SHOW:
                new.show(objs[i][a:b])
            else:
                new.mark(objs[i])

    def gap(self, c0: tuple[int, int], c1: tuple[int, int]) -> None:
        if c1 <= c0:
            return
        raw, new, kinds = self.old.raw, self.new, self.old.pieces.kinds
        i = kinds.find(MARK, c0[0], c1[0] + (1 if c1[1] else 0))
        while i >= 0:
            self.marks_in_gaps.add(self.old.pieces.objs[i])
            i = kinds.find(MARK, i + 1, c1[0] + (1 if c1[1] else 0))
        r0, r1 = self.view.raw_at(self.old, c0), self.view.raw_at(self.old, c1)
        if r1 <= r0:
            return  # only synthetic lines: nothing to keep
        group = self.group()
        lines = self.view.newlines(raw, r0, r1) + (raw[r1 - 1 : r1] != b"\n")
        new.omit(r0, r1, group, GAP_REASON)
        lead = b"" if new.ends_line() else b"\n"
        first = self.gaps == 1  # says what a gap is; the others only their lines (and a big one its size)
        size = f" ({size_text(r1 - r0, 0)})" if first or r1 - r0 >= GAP_SIZE_MIN else ""
        new.show(lead + f"[… {lines:,} line{'s' if lines != 1 else ''}{size}{' not shown' if first else ''}: ".encode())
        new.mark(group)
        new.show((_hint() if self.gaps == 1 and self.hint else b"") + b"]\n")


def _build(plan: Plan, view: _View, choice: _Choice, left: tuple, hint: bool) -> Plan:
    b = _Builder(plan, view, hint)
    cur, cur_v = (0, 0), 0
    for vs in sorted(choice.items):
        ve, ins, suffix = choice.items[vs]
        if vs > cur_v:
            b.gap(cur, view.cut_high(vs))
            cur = view.cut_high(vs)
        if suffix:
            at = max(cur, view.cut_low(ins))
            b.shown(cur, at)
            b.new.show(suffix)
            cur = at
        end = max(cur, view.cut_low(ve))
        b.shown(cur, end)
        cur, cur_v = end, ve
    last = (view.n, 0)
    if cur_v < len(view.text):
        b.gap(cur, last)
    else:
        b.shown(cur, last)
    new = b.new
    if b.new.position != len(plan.raw):  # defensive: never lose a byte (cannot happen by construction)
        new.omit(new.position, len(plan.raw), b.group(), GAP_REASON)
    _fix_marks(plan, new, b.marks_in_gaps)
    cut, parts = left[3]
    if cut:
        new.pieces.insert(0, [SHOW, (f"[{cut:,} must-see line{'s' if cut != 1 else ''} ({parts:,} part"
                                     f"{'s' if parts != 1 else ''}) shown cut: the rest of {'each' if cut != 1 else 'it'} "
                                     "is in the ref after it]\n").encode()])
    if left[0]:
        lines = f" ({left[1]:,} lines)" if left[1] != left[0] else ""
        head = (f"[{left[0]:,} more {left[2]}{'s' if left[0] != 1 else ''}{lines} "
                "not shown: they are in the refs below]\n").encode()
        new.pieces.insert(0, [SHOW, head])
    return new.finish()


def _fix_marks(old: Plan, new: Plan, marks_in_gaps: set[str]) -> None:
    """A marker whose group went wholly into gaps says so instead (in no more bytes than a marker);
    the bytes of groups that lost every marker to the gaps (the reducer's copies of lines shown only
    there) are pooled into one more ref, named on a last line."""
    pieces = new.pieces
    marked = set()
    for i, (kind, obj) in enumerate(zip(pieces.kinds, pieces.objs)):
        if kind == MARK:
            if obj in new.reasons:
                marked.add(obj)
            else:
                pieces.kinds[i] = SHOW
                pieces.objs[i] = IN_GAPS
    orphans = {g for g in new.reasons if g not in marked and g in marks_in_gaps}
    if not orphans:
        return
    rest = REST_GROUP
    while rest in old.reasons:
        rest += "+"
    for i, (kind, obj) in enumerate(zip(pieces.kinds, pieces.objs)):
        if kind == OMIT and obj in orphans:
            pieces.objs[i] = rest
    reasons = {}
    for group, reason in new.reasons.items():
        if group in orphans:
            reasons.setdefault(rest, REST_REASON)
        else:
            reasons[group] = reason
    new.reasons = reasons
    new.show((b"" if new.ends_line() else b"\n") + b"[more lines omitted between the lines shown: ")
    new.mark(rest)
    new.show(b"]\n")


def fit(plan: Plan, budget_bytes: int, kind: str = "", config=None, hint: bool = True) -> Plan:
    """``plan`` when its visible text fits in ``budget_bytes``; else a plan that does (see the module
    docstring), its lines chosen by the ranking of content type ``kind`` (``operators.rank``);
    ``hint``: the first gap line says how to read a ref."""
    size = visible_size(plan)
    if size <= (budget_bytes if _fits_itself(kind, config) else target(budget_bytes)):
        return plan
    head = _cut_head(kind, plan.raw, budget_bytes, config)
    if len(head) + GAP_EST + len(_hint()) + REST_EST > budget_bytes:  # no room for a gap line beside it (a
        head = b""  # budget of a few hundred bytes): the lines are chosen without it
    if len(plan.raw) >= RELEASE_MIN:  # the reducer's freed temporaries are not kept resident under the view
        release_memory()
    view = _View(plan, size)
    ranked = _ranked(view.text, kind, config)
    fold = signals_kind(kind, config) == "lines"
    groups = _groups(ranked[0], ranked[1][0], _apart(kind, ranked[0], ranked[1][0], config)) if fold else []  # made once for both tries
    noun = "signal template" if fold else "must-see line"
    new, extra, est = None, 0, GAP_TYPICAL
    for _ in range(3):  # gap lines reckoned as they mostly are; at their longest when that went over
        choice, left_groups, left_lines, cut = _choose(view, budget_bytes - len(head), kind, config,
                                                      plan.pieces.kinds, len(head), ranked, extra, groups, est)
        made = _build(plan, view, choice, (left_groups, left_lines, noun, cut), hint)
        if head:
            made.pieces.insert(0, [SHOW, head])
        size_made = visible_size(made)
        if size_made > budget_bytes and new is None and est < GAP_EST:
            est = GAP_EST  # longer gap lines than reckoned (big gaps name their size): reckon each at its longest
            continue
        if new is not None and size_made > budget_bytes:  # the try of what was left went over: the first stands
            break
        new = made
        over = choice.used + len(head) - size_made  # what the estimates reckoned that was not printed
        if over < SLACK_MIN:
            break
        extra = over
    if size <= budget_bytes and visible_size(new) >= size:  # cut to the target but no smaller: not worth a cut
        return plan
    return new


def _cut_head(kind: str, raw: bytes, budget: int, config=None) -> bytes:
    """What the content type shows first when its output is cut (``cut_head(raw, budget)`` in its
    module: a diff's file list with +/- counts), made safe to show; empty when it has none."""
    from operators import types

    made = types.attr(kind, "cut_head", None, config)
    if made is None:
        return b""
    from operators.safety import clean_text

    return clean_text(made(raw, budget))


class RunBudget:
    """The ceiling of a run printed window by window (``tokens run``): the windows share one budget.

    Each window is allotted half of what is left of the windows' share when it is cut (``allot``, in
    estimated tokens, for its packet's ``budget``), never less than a gap line's worth; what a window
    prints is counted when it is printed (``spend``). Once that share is spent, a window that is not
    the last is not printed (``spend`` says so): the caller hands its raw bytes to ``absorb``, and at
    the end ``summary`` shows each signal template of those windows once with its count, in the part
    of the budget kept for it (``END_SHARE``); the templates that do not fit are counted."""

    END_SHARE = 0.25
    WINDOW_MIN = 4000  # bytes a printed window is given at least

    def __init__(self, total_bytes: int):
        self.total = total_bytes
        self.windows_share = int(total_bytes * (1 - self.END_SHARE))
        self.spent = 0
        self.pending = 0  # allotted to windows cut but not printed yet
        self.unshown: dict[bytes, list] = {}  # template -> [count, first line] of the windows not printed

    def allot(self) -> int:
        floor = max(BUDGET_MIN + RESERVE, min(self.WINDOW_MIN, self.windows_share // 4))  # room for a few templates
        share = max((self.windows_share - self.spent - self.pending) // 2, floor)
        self.pending += share
        return share // 4

    def spend(self, allotted: int | None, printed: int, last: bool) -> bool:
        """Count a window's printed bytes; False when it would go over the windows' share and is not the last."""
        self.pending = max(0, self.pending - (allotted or 0) * 4)
        if not last and self.spent + printed > self.windows_share:
            return False
        self.spent += printed
        return True

    def absorb(self, raw: bytes) -> None:
        """Count the signal lines of a window that is not printed, by template."""
        spans = signal_line_spans(raw)
        lines = [raw[s:e] for s, e in spans]
        for key, line in zip(templates(lines), lines):
            entry = self.unshown.get(key)
            if entry is None:
                self.unshown[key] = [1, line]
            else:
                entry[0] += 1

    def summary(self) -> bytes:
        """The signal templates of the windows not printed: a line of each with its count, as many as
        the rest of the budget holds; the others counted on one line."""
        if not self.unshown:
            return b""
        from operators.safety import clean_text

        room = self.total - self.spent - SUMMARY_EST
        out = [b"[signal lines in the windows not shown, one per template:]\n"]
        used = len(out[0])
        left = [0, 0]
        line_max = max(80, min(LINE_MAX, self.total // 10))
        for count, line in self.unshown.values():
            shown = clean_text(line).rstrip()[:line_max]  # as any visible text: controls and look-alikes made safe
            text = shown + (" (×{:,})".format(count).encode() if count > 1 else b"") + b"\n"
            if used + len(text) > room:
                left[0] += 1
                left[1] += count
                continue
            out.append(text)
            used += len(text)
        if left[0]:
            out.append(f"[{left[0]:,} more signal template{'s' if left[0] != 1 else ''} ({left[1]:,} lines) "
                       "in the windows not shown]\n".encode())
        return b"".join(out)


def run_budget(budget_tokens: int | None, config) -> RunBudget:
    """The budget a run's windows share: ``--budget`` (estimated tokens) or the configured ceiling."""
    total = budget_tokens * 4 if budget_tokens else settings_of(config).max_chars
    return RunBudget(max(BUDGET_MIN, total - 2 * RESERVE))  # and the run's last lines: windows not shown, refs
