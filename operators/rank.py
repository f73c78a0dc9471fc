"""Line ranking: how much each line of a reduced text matters to an agent, for every budget that cuts.

The output ceiling (``operators.ceiling``) and the packer (``operators.pack``) both cut a reduced
text to a budget; both ask ``line_tiers`` which lines to keep first. Each line gets a tier and, inside
its tier, a rank (0 first):

* tier 0: what an agent must see: ``[command failed …]``; error/failure/warning lines (ranked by
  ``signal_rank``: what went wrong first, then exceptions, errors, warnings, headers last); and
  whatever the content type puts there (a diff's file headers and changed lines, a test run's failing
  ids, a linter's messages, a source file's outline, a search's files, a commit's subject…);
* tier 1: context: lines that say what was omitted (markers, ``×N``/``[folded …]`` summaries), runner
  summaries and section headers, and the lines right around a signal (unless the type says no);
* tier 2: everything else.

A content type may say where the lines the general rules leave at tier 2 go (``OTHER_LINES = (tier,
rank)``) and the rank of its context lines (``CONTEXT_RANK``): a log ranks its rare lines before its
folded templates that way, without a function called per line. It ranks its own lines with
``tier(text, shown, config)`` in its module (one line:
``(tier, rank)``, or None for the general rules), or ``rank_lines(lines, config)`` (the whole text:
a ``(tier, rank)`` or None per line) when a line's place depends on its neighbours. ``PACK_CONTEXT =
False`` in the module turns the context rule off. Blank lines take the better tier of their
neighbours and come last in it.

The output ceiling ranks a whole reduced candidate (most of a 20 MB input, hundreds of thousands of
lines) as a ``Lines`` (the text and an array of line starts, no object per line) through
``compact_line_tiers`` (tiers and ranks a byte a line); the packer gets lists from ``line_tiers``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import cache
from collections.abc import Sequence
from array import array
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, is_, methodcaller

from operators import kernel
from operators.kernel import line_starts  # the kernel's, or its twin (diff_twins)
from operators.store import MARKER_RE
from operators.vocab import (CONCLUSION_RE, DIGITS_TO_ZERO, ERROR_RE, EXCEPTION_RE, EXTRA_SIGNAL_SCAN, WARN_RE, display_line,
                             is_signal_text, line_runs_program, program_spans, signal_line_runs)

CONTEXT_AFTER, CONTEXT_BEFORE = 3, 1  # lines around a signal line that are tier 1
BLANK_RANK = 99
FOLD_PATTERN = rb"\xc3\x97\d|^\[folded |^\[build output: |\[\d+ repeated lines folded"
FOLD_RE = re.compile(FOLD_PATTERN)
FOLD_SCAN = re.compile(FOLD_PATTERN, re.M)
SYNTHETIC_SCAN = re.compile(rb"^\[(?:\xe2\x80\xa6 )?[0-9][0-9,]* [^\]\n]*\]", re.M)  # "[N … lines]", "[… N lines …]"
# The same scans as ``_general`` runs them: each alternative led by a literal (``^`` as a newline,
# ``led``), which the regex engine skips to; under ``re.M`` a ``^`` or an alternation is tried at every byte.
FOLD_SCANS = (re.compile(rb"\xc3\x97\d"), re.compile(rb"\[\d+ repeated lines folded"))
FOLD_LED = re.compile(rb"\n\[(?:folded |build output: )")
SYNTHETIC_LED = re.compile(rb"\n\[(?:\xe2\x80\xa6 )?[0-9][0-9,]* [^\]\n]*\]")
HEADER_RE = re.compile(rb"^={3,} .* ={3,}\s*$|^_{3,} .* _{3,}\s*$|^\S+::\S.*? (?:FAILED|ERROR)\b")
FAILED_HEAD = b"[command failed: exit code "
BLANK_SCAN = re.compile(rb"\n[ \t\r\x0b\x0c]*(?=\n|\Z)")  # a line ``bytes.strip`` empties (``Lines.led``)
ITER_LINES = 4096  # lines split at a time when a ``Lines`` is iterated
_START = methodcaller("start")  # a match's start (``re`` and RE2 matches alike)


class Lines(Sequence):
    """The lines of ``text`` (newline excluded, as ``text.split(b"\\n")`` without the empty piece after a
    final newline) as a sequence, without a bytes object per line held: ``starts`` (8 bytes a line,
    ``operators.kernel.diff_twins.line_starts``) says where each starts; a line is sliced when asked
    for, and iterating splits a few thousand lines at a time."""

    def __init__(self, text: bytes):
        self.text = text
        self.starts = line_starts(text)
        self.n = len(self.starts) - 1
        self.last_nl = text.endswith(b"\n")
        self.blank: array | None = None  # ``blank_lines``, found once: the ranking and the ceiling both ask

    def __len__(self) -> int:
        return self.n

    def end(self, i: int) -> int:
        """Where line ``i`` ends, its newline excluded."""
        e = self.starts[i + 1]
        return e - 1 if i + 1 < self.n or self.last_nl else e

    def span(self, i: int) -> tuple[int, int]:
        return self.starts[i], self.end(i)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.n))]
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(i)
        return self.text[self.starts[i] : self.end(i)]

    def __iter__(self):
        text, starts = self.text, self.starts
        for k in range(0, self.n, ITER_LINES):
            yield from text[starts[k] : self.end(min(k + ITER_LINES, self.n) - 1)].split(b"\n")

    def matching(self, scan: re.Pattern) -> list[int]:
        """The lines a whole-text ``scan`` (a MULTILINE pattern that cannot cross a newline) matches, in order."""
        found = line_indexes(self.starts, scan.finditer(self.text), 0)
        return [i for i in dict.fromkeys(found) if i < self.n]  # a match after a final newline is no line

    def led(self, scan: re.Pattern) -> list[int]:
        """The lines a ``scan`` starting with ``\\n`` matches from the newline before them (the first line
        as if one stood before it), in order: a pattern led by a literal is searched at C speed,
        where ``^`` under ``re.M`` is tried at every byte."""
        return self.led_array(scan).tolist()

    def led_array(self, scan: re.Pattern) -> array:
        """``led`` as an int64 array: 8 bytes a line found, no int object each."""
        starts, n, text = self.starts, self.n, self.text
        found = array("q")
        found.frombytes(memoryview(line_indexes(starts, scan.finditer(text), 1)).cast("B"))
        if n and scan.match(b"\n" + text[: starts[1]]):
            found.insert(0, 0)
        while found and found[-1] >= n:  # a match after a final newline is no line (the lines come in order)
            found.pop()
        return found


def line_indexes(starts, matches, shift: int):
    """The index of the line (``starts``: where each begins) holding each match's start plus ``shift``,
    in order: the starts gathered into an array, the lines found by the kernel (``line_of``), no
    Python-level step a match."""
    at = map(_START, matches)
    return lines_at(starts, map(add, at, repeat(shift)) if shift else at)


def lines_at(starts, offsets):
    """The index of the line (``starts``: where each begins) holding each of ``offsets`` (in order)."""
    if not (isinstance(starts, array) and starts.typecode == "q"):  # a list (``_general`` of a list of lines)
        starts = array("q", starts)
    return kernel.line_of(starts, array("q", offsets))


def run_lines(starts, spans):
    """(first, last) line index (``starts``: where each line begins) of each (start, end) span of whole
    lines (the end after the last one's newline), in order."""
    ends = iter(lines_at(starts, chain.from_iterable((a, b - 1) for a, b in spans)))
    return zip(ends, ends)


def blank_lines(lines) -> list[int]:
    """The indexes of the lines ``bytes.strip`` empties, in order, as a list (``blank_lines_array``)."""
    found = blank_lines_array(lines)
    return found.tolist() if isinstance(found, array) else found


def blank_lines_array(lines):
    """``blank_lines`` as the ranking keeps them: for a ``Lines`` an int64 array, found once and kept
    on it (the ranking and the output ceiling both ask), else a list."""
    if isinstance(lines, Lines):
        if lines.blank is None:  # one pass of the kernel (its twin: a split a block at a time)
            lines.blank = array("q")
            lines.blank.frombytes(memoryview(kernel.blank_lines(lines.text)).cast("B"))
        return lines.blank
    return [i for i, line in enumerate(lines) if not line.strip()]


def signal_rank(shown: bytes, error: bool | None = None) -> int:
    """How telling a signal line is, 0 best: what went wrong (``FAILED x::y``, ``error:``, ``make: ***``),
    then exceptions, other error lines, warnings, the rest, and headers/progress lines last."""
    if CONCLUSION_RE.search(shown):
        return 0
    if EXCEPTION_RE.search(shown):
        return 1
    if HEADER_RE.match(shown):
        return 5
    if error is None:
        error = ERROR_RE.search(shown) is not None
    if error:
        return 2
    if WARN_RE.search(shown):
        return 3
    return 4


RANK_BLOCK = 1 << 14  # lines ranked at a time by ``signal_ranks``
JOIN_BLOCK = 1 << 11  # distinct lines ranked at a time by ``_line_ranks``
# (matches CONCLUSION_RE, EXCEPTION_RE, HEADER_RE, ERROR_RE, WARN_RE) as 5 bits -> ``signal_rank``
_RANK_OF_BITS = bytes(0 if bits & 16 else 1 if bits & 8 else 5 if bits & 4 else 2 if bits & 2 else 3 if bits & 1 else 4
                      for bits in range(256))
_OR_BIT = {bit: bytes(b | bit for b in range(256)) for bit in (1, 2, 4, 8, 16)}


def signal_ranks(lines) -> list[int]:
    """``signal_rank`` of each of ``lines`` (no newline) as shown (``_shown``), in order. ``signal_rank``'s
    patterns tell no digit from another (``\\d`` and ``\\w`` take any, none names one), so a line with
    every digit made ``0`` ranks as the line does: the distinct such keys of a block of lines are
    ranked, at once (``_ranks_of``: a log's thousands of lines of one message cost one key)."""
    out: list[int] = []
    lines = iter(lines)
    while block := list(islice(lines, RANK_BLOCK)):
        joined = b"\n".join(block)
        if b"\x1b" in joined or b"\r" in joined:  # as a terminal shows them (a line holds no newline after)
            joined = b"\n".join(map(_shown, block))
        keys = joined.translate(DIGITS_TO_ZERO).split(b"\n")
        distinct = list(dict.fromkeys(keys))
        rank_of = dict(zip(distinct, _ranks_of(distinct)))
        out.extend(map(rank_of.__getitem__, keys))
    return out


def _ranks_of(lines: list[bytes]) -> bytes:
    """``signal_rank`` of each of ``lines`` (as shown, no newline), a byte each: each of its patterns
    searched once over the lines joined (``_rank_programs``: RE2, a search a run of lines it matches
    in), the first that matches a line naming its rank; a line at a time where RE2 is not at hand."""
    programs = _rank_programs()
    if programs is None or len(lines) < 2:
        return bytes(map(signal_rank, lines))
    text = b"\n".join(lines)
    return _ranks_joined(programs, text, array("q", accumulate(map((1).__add__, map(len, lines)), initial=0)))


def _ranks_joined(programs, text: bytes, starts) -> bytes:
    """``_ranks_of`` of the lines joined by newlines (``text``; ``starts``: where each begins, then one
    past the end)."""
    count = len(starts) - 1
    bits = bytearray(count + 1)
    for bit, program in programs:
        for first, last in run_lines(starts, program_spans(program, text)):
            bits[first : last + 1] = bits[first : last + 1].translate(_OR_BIT[bit])
    del bits[count]
    return bytes(bits).translate(_RANK_OF_BITS)


_LINE_SPACE, _LINE_NONSPACE = rb"[\t\x0b\x0c\r ]", rb"[^\t\n\x0b\x0c\r ]"  # ``re``'s \s and \S of bytes, in a line


@cache
def _rank_programs():
    """(bit, RE2 program) of each of ``signal_rank``'s patterns as a run of lines holding a match of it
    (Latin-1: a byte a character, as ``re`` reads bytes; its \\s and \\S as ``re`` has them, no newline
    in either; ``^`` and ``$`` at each line's ends), or None (another engine)."""
    made = []
    for bit, pattern in ((16, CONCLUSION_RE), (8, EXCEPTION_RE), (4, HEADER_RE), (2, ERROR_RE), (1, WARN_RE)):
        program = line_runs_program(pattern.pattern.replace(rb"\s", _LINE_SPACE).replace(rb"\S", _LINE_NONSPACE))
        if program is None:
            return None
        made.append((bit, program))
    return made


def _line_ranks(lines, indexes):
    """``signal_ranks`` of the lines ``indexes`` names (in order): of a ``Lines`` with neither ESC nor
    CR, the lines that rank alike (equal but for their digits) grouped by the kernel in one pass
    (``equal_groups``), only the first of each group made a bytes object and ranked (``_ranks_of``), and
    each line given its group's rank by the kernel (``gather``): no Python step a line."""
    if not isinstance(lines, Lines) or b"\x1b" in lines.text or b"\r" in lines.text:
        return signal_ranks(_line_texts(lines, indexes))
    if not (isinstance(indexes, array) and indexes.typecode == "i"):
        indexes = array("i", indexes)
    groups, firsts = kernel.equal_groups(lines.text, lines.starts, indexes, True)
    programs = _rank_programs()
    if programs is None or len(firsts) < 2:
        ranks = _ranks_of(list(_line_texts(lines, list(map(indexes.__getitem__, firsts)))))
    else:
        ranks = bytearray()  # the rank of each group, ranked a block of groups at a time (a buffer of a few hundred KB)
        for k in range(0, len(firsts), JOIN_BLOCK):  # the lines joined by the kernel, as ``_ranks_of`` joins their texts
            at = array("q", map(indexes.__getitem__, firsts[k : k + JOIN_BLOCK]))
            ranks += _ranks_joined(programs, *kernel.join_lines(lines.text, lines.starts, at))
    return bytearray(kernel.gather(ranks, groups))


def _line_texts(lines, indexes):
    """The lines ``indexes`` (a sequence) names, each without its newline (a ``Lines``: sliced by ``map``, no
    Python step a line; a trailing ``\\r`` may be left out too, as ``_shown`` leaves it out)."""
    if not isinstance(lines, Lines):
        return map(lines.__getitem__, indexes)
    text, starts = lines.text, lines.starts
    spans = map(slice, map(starts.__getitem__, indexes), map(starts.__getitem__, map((1).__add__, indexes)))
    return map(bytes.rstrip, map(text.__getitem__, spans), repeat(b"\r\n"))


def is_context_line(text: bytes) -> bool:
    """A reduced line that says what was omitted: a marker, a ``×N`` or ``[folded …]`` summary."""
    return bool(MARKER_RE.search(text) or FOLD_RE.search(text))


def line_tiers(kind: str, lines: list[bytes], config) -> tuple[list[int], list[int]]:
    """Each line's tier (0 must-see, 1 context, 2 other) and its rank inside the tier (0 first), for
    the lines (no newline) of a reduced text of content type ``kind``: a list, or a ``Lines`` (no
    bytes object per line)."""
    tiers, ranks = compact_line_tiers(kind, lines, config)
    return list(tiers), list(ranks)


def _rank_array(make, *later: int):
    """The ranks ``make()`` gives, a signed byte each when they and the ranks set ``later`` fit (they
    do, but for a type's own ranks), else 4 bytes each (a source file's ranks are its line numbers), else 8, else a list."""
    if all(-128 <= rank < 128 for rank in (*later, BLANK_RANK, -1, *range(6))):
        try:
            return array("b", make())
        except (OverflowError, TypeError):
            pass
    for code in "iq":  # 4 bytes a rank when they fit (the line numbers of a file under 2**31 lines)
        try:
            return array(code, make())
        except (OverflowError, TypeError):
            pass
    return list(make())


def given_ranks(kind: str, lines, config):
    """What the type's ``rank_lines`` gives for ``lines``, or None (a type without one): asked once by
    the output ceiling for ``in_order_tiers`` and ``compact_line_tiers``."""
    from operators import types

    whole = types.attr(kind, "rank_lines", None, config)
    return whole(lines, config) if whole is not None else None


_ASK = object()  # compact_line_tiers' and in_order_tiers' ``given`` not passed: ``given_ranks`` asked


def compact_line_tiers(kind: str, lines, config, given=_ASK):
    """``line_tiers`` as the output ceiling holds them for a whole candidate: the tiers in a
    ``bytearray``, the ranks a byte each (``_rank_array``) instead of a list's 8 bytes a line.
    ``given``: what ``given_ranks`` gives, when asked already."""
    from operators import types

    if given is _ASK:
        given = given_ranks(kind, lines, config)
    own = types.attr(kind, "tier", None, config) if given is None else None
    if given is None:
        signal, context = _general(lines)
    if given is not None:
        tiers, ranks = _given_tiers(given, lines)
    elif own is None:  # the general rules alone: only the lines they name are visited
        tiers, ranks = _general_tiers(kind, lines, signal, context, config)
    else:
        signal, context = set(signal), set(context)
        tiers, ranks = bytearray([2]) * len(lines), [0] * len(lines)
        many = types.attr(kind, "tiers", None, config)  # the type's tiers of many lines at once, None: ask ``tier``
        known = many(lines, config) if many is not None else None
        for i, line in enumerate(lines):
            ranked = known[i] if known is not None else None
            if ranked is None:
                ranked = own(line.rstrip(b"\r"), _shown(line), config)
            if ranked:  # (``tiers``' ``()``: ``tier`` gives None)
                tiers[i], ranks[i] = ranked
            elif i in signal:
                tiers[i], ranks[i] = 0, signal_rank(_shown(line))
            elif i in context:
                tiers[i] = 1
    if len(lines) and lines[0].startswith(FAILED_HEAD):
        tiers[0], ranks[0] = 0, -1
    blank = blank_lines_array(lines)
    if types.attr(kind, "PACK_CONTEXT", True, config):
        _context(tiers, lines, blank)
    _blanks(tiers, ranks, blank)
    return tiers, ranks


def in_order_tiers(kind: str, lines, config, given=_ASK):
    """What the output ceiling makes of ``compact_line_tiers`` (its tier-0 and tier-1 lines, each in
    rank order) for a type whose ``rank_lines`` ranks every line by its place (a sequence with
    ``in_order``: a source file), made at once: no line of tier 0, and the lines that are not blank (a
    blank line falls to tier 2), in order (their ranks are their places), of tier 1; None for any other
    type, and for a text led by a failure header (its first line is of tier 0). ``given``: what
    ``given_ranks`` gives, when asked already."""
    from operators import types

    whole = types.attr(kind, "rank_lines", None, config)
    if whole is None or (len(lines) and lines[0].startswith(FAILED_HEAD)):
        return None
    if given is _ASK:
        given = whole(lines, config)
    if not getattr(given, "in_order", False):
        return None
    keep = bytearray(b"\x01") * len(lines)
    for i in blank_lines_array(lines):
        keep[i] = 0
    return array("i"), array("i", compress(range(len(lines)), keep))


def _given_tiers(given, lines):
    """Tiers and ranks of the ``(tier, rank)`` pairs a type's ``rank_lines`` gave, the general rules
    only for the lines it left unranked (a few, in a diff); made at once by a sequence that can
    (``compact``: a source file's lines in order)."""
    if hasattr(given, "compact"):
        return given.compact(_rank_array)
    made = _coded_tiers(given)
    if made is not None:
        todo, tiers, ranks = made
        signal, context = _general([lines[i] for i in todo])
    else:
        todo, signal, context, tiers, ranks = _paired_tiers(given, lines)
    for j in context:  # disjoint from the signal lines
        tiers[todo[j]] = 1
    for j, rank in zip(signal, signal_ranks(map(lines.__getitem__, map(todo.__getitem__, signal)))):
        i = todo[j]
        tiers[i], ranks[i] = 0, rank
    return tiers, ranks


_NONE_CODE = bytes(code == 255 for code in range(256))  # a code of ``codes`` -> 1 for a line left unranked


def _coded_tiers(given):
    """The unranked lines, tiers and ranks of a ``rank_lines`` list that carries its codes (``codes``: a
    byte a line, 255 for None; ``pairs``: each code's (tier, rank)), each column made by one
    ``translate``; None for any other list, or ranks that do not fit a byte."""
    codes, pairs = getattr(given, "codes", None), getattr(given, "pairs", None)
    if codes is None or pairs is None or not all(p is None or -128 <= p[1] < 128 for p in pairs.values()):
        return None
    tier_of = bytes(2 if pairs.get(code) is None else pairs[code][0] for code in range(256))
    rank_of = bytes(0 if pairs.get(code) is None else pairs[code][1] & 255 for code in range(256))
    ranks = array("b")
    ranks.frombytes(codes.translate(rank_of))
    return list(compress(range(len(codes)), codes.translate(_NONE_CODE))), bytearray(codes.translate(tier_of)), ranks


def _paired_tiers(given, lines):
    """``_given_tiers``' unranked lines, their signal and context lines, tiers and ranks, of any list."""
    todo = list(compress(range(len(given)), map(is_, given, repeat(None))))
    signal, context = _general([lines[i] for i in todo])
    try:  # a tier and a rank of each distinct pair, read by ``map``: no Python step a line
        pairs = set(given)
        pairs.discard(None)
        tier_of = {ranked: ranked[0] for ranked in pairs}
        rank_of = {ranked: ranked[1] for ranked in pairs}
    except TypeError:  # an unhashable pair (a list)
        tiers = bytearray(2 if ranked is None else ranked[0] for ranked in given)
        ranks = _rank_array(lambda: (0 if ranked is None else ranked[1] for ranked in given))
    else:
        tier_of[None], rank_of[None] = 2, 0
        tiers = bytearray(map(tier_of.__getitem__, given))
        ranks = _rank_array(lambda: map(rank_of.__getitem__, given))
    return todo, signal, context, tiers, ranks


def _general_tiers(kind: str, lines, signal, context, config) -> tuple[list[int], list[int]]:
    """Tiers and ranks by the general rules alone: the type's ``OTHER_LINES`` for the lines they do not name."""
    from operators import types

    other = types.attr(kind, "OTHER_LINES", None, config) or (2, 0)
    context_rank = types.attr(kind, "CONTEXT_RANK", 0, config)
    tiers, ranks = bytearray([other[0]]) * len(lines), _rank_array(lambda: _filled(other[1], len(lines)), context_rank)
    for i in context:
        tiers[i], ranks[i] = 1, context_rank
    signal_ranks_ = _line_ranks(lines, signal)
    if (isinstance(signal, array) and signal.typecode == "i" and isinstance(ranks, array) and ranks.typecode == "b"
            and isinstance(signal_ranks_, (bytes, bytearray)) and len(signal_ranks_) == len(signal)):
        kernel.scatter(tiers, signal, 0)  # by the kernel: no Python step a signal line (a log of errors: every line)
        kernel.scatter(ranks, signal, signal_ranks_)
        return tiers, ranks
    for i, rank in zip(signal, signal_ranks_):
        tiers[i], ranks[i] = 0, rank
    return tiers, ranks


def _filled(rank: int, n: int):
    """``n`` times ``rank``: a byte array made by one copy when the rank fits a signed byte."""
    return array("b", [rank]) * n if -128 <= rank < 128 else repeat(rank, n)


def _shown(line: bytes) -> bytes:
    """A line as a terminal shows it (escapes and overprints applied), its line end left out."""
    text = line.rstrip(b"\r")
    return display_line(text) if (b"\x1b" in text or b"\r" in text) else text


SIG, SYN, CTX = 1, 2, 4  # a line's flags in ``_general``: a signal match, a reducer's count line, a context match
_SIGNAL_FLAGS = bytes(f & SIG and not f & SYN for f in range(256))  # a signal line: not a count line
_CONTEXT_FLAGS = bytes(bool(f & CTX) and not (f & SIG and not f & SYN) for f in range(256))
_ONE = re.compile(rb"\x01")


def _general(lines) -> tuple[array, array]:
    """The indexes of the signal lines (``is_signal_text`` of the line as shown) and of the context
    lines (``is_context_line``), in order, found by whole-text scans: no per-line work for the other
    lines (a ``Lines`` is scanned in place, a list joined once); a byte of flags per line, no set per
    scan, and 4 bytes per line found (a text's 73,000 fold lines were a set of int objects)."""
    if isinstance(lines, Lines):
        text, starts = lines.text, lines.starts
    else:
        text = b"\n".join(lines)
        starts = list(accumulate((len(line) + 1 for line in lines), initial=0))
    n = len(lines)
    flags = bytearray(n + 1)  # the last: a match after a final newline, no line

    def mark(scan, flag: int, led: bool = False) -> None:
        for i in line_indexes(starts, scan.finditer(text), led):
            flags[i] |= flag
        if led and n and scan.match(b"\n" + text[: starts[1]]):  # the first line
            flags[0] |= flag

    runs = signal_line_runs(text)  # ``SIGNAL_RE``'s lines: a search a line, or a run of them (no match object a match)
    for first, last in run_lines(starts, runs):
        flags[first : last + 1] = bytes([SIG]) * (last + 1 - first)  # no flag is set yet
    mark(EXTRA_SIGNAL_SCAN, SIG)
    if b"\x1b" in text or b"\r" in text:  # what a terminal shows decides: those lines one by one
        for i, line in enumerate(lines):
            if b"\x1b" in line or b"\r" in line.rstrip(b"\r"):
                flags[i] = flags[i] & ~SIG | (SIG if is_signal_text(_shown(line)) else 0)
    mark(SYNTHETIC_LED, SYN | CTX, True)  # a reducer's own count line ("[23 traceback lines]"): context
    mark(MARKER_RE, CTX)
    mark(FOLD_LED, CTX, True)
    for scan in FOLD_SCANS:
        mark(scan, CTX)
    del flags[n]
    return _ones(flags.translate(_SIGNAL_FLAGS)), _ones(flags.translate(_CONTEXT_FLAGS))


def _ones(mask: bytes) -> array:
    """The places of the 1 bytes of ``mask`` (0 or 1 a line), as int32: found by the regex engine when
    they are few, else by ``compress`` (no match object a line: a log of errors)."""
    if mask.count(1) * 32 < len(mask):
        return array("i", map(_START, _ONE.finditer(mask)))
    return array("i", compress(range(len(mask)), mask))


def _context(tiers: list[int], lines, blank) -> None:
    """The lines right around a tier-0 line are its context (tier 1); ``blank``: the blank lines'
    indexes, in order (a set of them is made only when the tier-0 lines are not few beside them)."""
    n = len(lines)
    if isinstance(tiers, bytearray):
        _context_at_once(tiers, blank)
        return
    must = [i for i, tier in enumerate(tiers) if tier == 0]
    if len(must) * 8 < len(blank):  # a few signal lines in a text of many blank lines: a bisection each
        def is_blank(j: int) -> bool:
            k = bisect_left(blank, j)
            return k < len(blank) and blank[k] == j
    else:
        is_blank = set(blank).__contains__
    for i in must:
        for j in range(max(0, i - CONTEXT_BEFORE), min(n, i + CONTEXT_AFTER + 1)):
            if tiers[j] == 2 and not is_blank(j):
                tiers[j] = 1


_IS_ZERO = bytes([1]) + bytes(255)  # a tier-0 line -> 1, any other -> 0
_IS_TWO = bytes(2) + bytes([1]) + bytes(253)


def _context_at_once(tiers: bytearray, blank) -> None:
    """``_context`` of a ``bytearray`` of tiers, by whole-text arithmetic: the tiers as one integer a
    byte a line; the lines near a tier-0 line (``CONTEXT_BEFORE`` before it, ``CONTEXT_AFTER`` after)
    found by shifts of its 0/1 bytes, those of tier 2 that are not blank lowered to 1 by one subtraction."""
    n = len(tiers)
    if not n:
        return
    must = int.from_bytes(tiers.translate(_IS_ZERO), "little")
    if not must:
        return
    near = 0
    for k in range(1, CONTEXT_AFTER + 1):
        near |= must << (8 * k)
    for k in range(1, CONTEXT_BEFORE + 1):
        near |= must >> (8 * k)
    other = bytearray(tiers.translate(_IS_TWO))
    for i in blank:
        other[i] = 0
    lower = near & int.from_bytes(other, "little")
    if lower:
        tiers[:] = (int.from_bytes(tiers, "little") - lower).to_bytes(n, "little")


def _blanks(tiers: list[int], ranks: list[int], blank: list[int]) -> None:
    """A blank line belongs to the block around it: the better tier of its neighbours, last in it
    (``blank``: the blank lines' indexes, in order; only they are visited)."""
    n = len(tiers)
    prev_tier, before = 2, -2  # the blank line visited before (none: -2)
    for i in blank:
        if i != before + 1:  # the first of a run of blank lines
            prev_tier = tiers[i - 1] if i else 2
        tiers[i] = prev_tier
        ranks[i] = BLANK_RANK
        before = i
    next_tier, after = 2, -2  # backwards: the blank line visited before (none: -2)
    for i in reversed(blank):
        if i != after - 1:  # the last of a run
            next_tier = tiers[i + 1] if i + 1 < n else 2
        if next_tier < tiers[i]:
            tiers[i] = next_tier
        after = i
