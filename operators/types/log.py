"""Log reducer: fold repeated lines by template, keep every signal and every rare line in place.

* A *signal* line (error, warning, failure, exception, 4xx/5xx status, …) and the stack trace that
  follows it stay verbatim and in place. Identical consecutive copies of one signal line show once
  with ``×N``.
* Other lines are grouped by template: numbers, hex ids and timestamps masked (for grouping only).
  A template seen fewer than ``fold_min`` times is rare: its lines stay in place, verbatim up to
  ``long_line`` bytes; the rest of a longer line goes to one "long lines" ref, marked where it was cut
  (not in a log that fits the output ceiling whole: a JSON-lines record of 5 KB is shown whole).
* A frequent template shows its first line, in place, with ``×N`` (N lines of that template; their
  numbers and ids may differ — the footer says so); the other copies go to a ref. ``coarse``: one
  ref for every folded line; ``fine``: one ref per template, its marker on the representative line.

Cut by the output ceiling, a log shows a line of each kind of signal line (``family``: its words, the
times, hosts, paths and ids in it aside) before a second line of any kind.

Speed: the per-line loops run in a C kernel (``_kernel``: line starts, each line's shape with digit
runs as one ``0``, shape counts, id masks, template grouping, the visible lines), each with a pure-Python
twin (``operators.kernel.log_twins``) used when the kernel is not built; ``operators.kernel`` picks
either, and tests check that both agree. Python works once per *distinct* shape (templates, the
signal scan with RE2) and once per line it shows.

Memory: the distinct shapes live in one buffer, each followed by a newline (what the signal scan
searches as it is), and template keys are made one at a time: only distinct templates become objects.
A log with a request id in every line has as many shapes as lines and still costs no object per line;
its shapes fall into few id classes (``_id_classes``: shapes that differ only inside their hex ids),
and the signal search and the ids' masks are done once a class, not once a shape.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from functools import cache
from itertools import chain, compress, repeat
from operator import ne
from typing import Annotated

import msgspec

from operators.config import Section, section
from operators.reduction import Plan, line_body_end
from operators.relazy import lazy, re2_program
from operators.kernel import C  # the built kernel, or None
from operators.kernel import (  # the C kernel's functions, or their pure-Python twins
    first_equal, gather, group_shapes, id_classes, line_of, lines_with, mark_rare, mask, next_shapes, scan_lines,
    select_visible, status_lines, take, traced_heads, verbatim_lines,
)
from operators.vocab import (  # the signal vocabulary
    CODE_RE, RUNS_APART, SHAPE_CODE_RE, SHAPE_STATUS, WORD_PATTERN, WORD_RE as SHAPE_SIGNAL_RE, is_log_line,
    CONTINUATION_RE, keep_shaped_spans, line_matches, line_runs_program, program_spans,
    signal_line_spans as signal_line_spans_direct, signal_shapes, DENSE_BYTES, DENSE_LINES,
)
LONG_GROUP, LONG_REASON = "long", "cut from long lines"
TRACEBACK = b"Traceback (most recent call last)"  # a Python trace's first line: part of the record before it


SHAPE_SHARE_MAX = 4  # scan the shapes only when they are at most 1/4 of the input
SPARSE_SHARE_MAX = 7 / 8  # or at most 7/8 of it while the shapes holding a signal are sparse (``_shape_flags``)


def _signals_from_shapes(raw: bytes, starts, ids, shape_data: bytes, shape_ends,
                         shape_share: int = SHAPE_SHARE_MAX, flags=None):
    """Indexes of the signal lines, found by scanning each distinct shape once instead of every line.

    A shape differs from its lines only in digit runs (one ``0`` each), and the word alternatives of
    the signal vocabulary (``vocab.WORD_PATTERN``) hold no digit and end at the same word boundaries: a
    shape matches them exactly when its lines do. The status and error-code alternatives need digits:
    shapes holding ``" 0 `` or matching ``vocab.SHAPE_CODE_RE`` are candidates, and their lines are
    checked on the raw bytes. ``shape_data`` holds the shapes, each followed by a newline
    (``shape_ends``: where each ends). When the shapes are more than 1/``shape_share`` of the input
    (few repeats), the raw buffer is scanned instead. ``flags``: ``vocab.signal_shapes`` of these shapes
    (the shapes holding a word, and those that may hold a code or a status; ``_shape_flags`` chose the
    shapes over the raw bytes already): then only the latter are searched again, one by one, for the
    code and status shapes (the same shapes: no match of either pattern goes on past a shape's end
    where none holds ``0x``).
    """
    if flags is None and (len(shape_data) - len(shape_ends)) * shape_share > len(raw):
        return tuple(_indexes_at(starts, signal_line_spans_direct(raw)))
    ends = shape_ends  # offset after each shape's newline
    if flags is not None:
        signal, maybe = flags
        candidate = bytearray(len(ends))
        coded = bytearray(len(ends))
        shape = maybe.find(1)  # the shapes flagged, found by bytearray.find (no int object a shape)
        while shape != -1:
            start, end = ends[shape - 1] if shape else 0, ends[shape]
            if shape_data.find(SHAPE_STATUS, start, end) >= 0:
                candidate[shape] = 1
            if SHAPE_CODE_RE.search(shape_data, start, end - 1) is not None:
                coded[shape] = 1
            shape = maybe.find(1, shape + 1)
    else:
        signal = bytearray(len(ends))
        program = _word_run_program()
        if program is not None and not (not shape_data.isascii() and any(apart in shape_data for apart in RUNS_APART[:2])):
            # the shapes holding a match, a run of consecutive ones a search (a log of errors: most shapes);
            # the very same shapes (``vocab.signal_line_runs``: no word alternative goes past a line's end)
            shape_starts = array("q", [0])
            shape_starts.frombytes(memoryview(ends).cast("B"))
            bounds = iter(line_of(shape_starts, array("q", chain.from_iterable((a, b - 1) for a, b in program_spans(program, shape_data)))))
            for first, last in zip(bounds, bounds):  # the first and the last shape of each run
                signal[first : last + 1] = b"\x01" * (last + 1 - first)
        else:
            for at in line_matches(SHAPE_SIGNAL_RE, shape_data):  # the shapes holding a match: a search a shape
                signal[bisect_right(ends, at)] = 1
        candidate = bytearray(len(ends))
        at = shape_data.find(SHAPE_STATUS)
        while at != -1:
            shape = bisect_right(ends, at)
            if not signal[shape]:
                candidate[shape] = 1
            at = shape_data.find(SHAPE_STATUS, ends[shape])  # on from the next shape
        coded = _coded_shapes(shape_data, ends, signal)
    found = lines_with(ids, signal)
    extra: list[int] = []
    if 1 in candidate:
        extra.extend(status_lines(raw, starts, lines_with(ids, candidate)))
    if 1 in coded:
        extra.extend(i for i in lines_with(ids, coded) if CODE_RE.search(raw, starts[i], _line_end(raw, starts[i], starts[i + 1])))
    if extra:
        found = sorted(set((*found, *extra)))
    return array("q", found)  # 8 bytes a line, not an int object (a log of errors: every line)


def _shape_flags(raw: bytes, shape_data: bytes, shape_ends, classes=None):
    """``vocab.signal_shapes`` of the shapes, when they are searched for the signal lines instead of
    the raw bytes, else None: when they are at most 1/``SHAPE_SHARE_MAX`` of the input, or at most
    ``SPARSE_SHARE_MAX`` of it while the shapes holding a signal are sparse (a log with an id on every
    line: a shape a line, but the digit runs of its timestamps and ids one byte each; the very same
    lines, see ``_signals_from_shapes``). Shapes holding a signal densely (a log of errors): None,
    the raw bytes are searched a run of signal lines at a time. ``classes``: ``_id_classes`` of the
    shapes (the same flags, from a search of each class's first shape: ``_class_flags``)."""
    size = len(shape_data) - len(shape_ends)
    if size * SHAPE_SHARE_MAX <= len(raw):
        return _class_flags(shape_ends, classes) if classes else signal_shapes(shape_data, shape_ends)
    if size <= len(raw) * SPARSE_SHARE_MAX:
        return _class_flags(shape_ends, classes, sparse=True) if classes else signal_shapes(shape_data, shape_ends, sparse=True)
    return None


CLASSED_SHAPES_MIN = 4096  # distinct shapes from which they are put in id classes (``_id_classes``)
CLASS_CHECK_AT = 4096  # shapes after which the classes stop if more than half of them began one
CLASS_SHARE_MAX = 4  # classes are used when they are at most 1/4 of the shapes


def _id_classes(shape_data: bytes, shape_ends):
    """The shapes' id classes (``kernel.id_classes``: shapes that differ only inside their hex ids,
    such as a request id's uuid, are one class), when the kernel is built, the shapes are many and the
    classes at most 1/``CLASS_SHARE_MAX`` of them (a log with an id on every line), else None. The
    signal flags and the masked templates of a shape are those of its class's first shape (see
    the kernel's ``id_key_run``): each is worked out once a class instead of once a shape."""
    if C is None or len(shape_ends) < CLASSED_SHAPES_MIN:
        return None
    got = id_classes(shape_data, shape_ends, CLASS_CHECK_AT)
    if got is None or len(got[2]) * CLASS_SHARE_MAX > len(shape_ends):
        return None
    return got


def _class_flags(shape_ends, classes, sparse: bool = False):
    """``vocab.signal_shapes(shape_data, shape_ends, sparse)`` from the classes (``_id_classes``):
    ``signal_shapes`` of the classes' first shapes, each shape flagged as its class's first. Two
    shapes of a class differ only inside id runs, where no alternative of the vocabulary reaches but
    by the bytes the class keeps, and hold ``0x`` alike (a match that goes on past a shape's end needs
    one): the same flags, and None exactly when ``signal_shapes`` of the shapes gives None for ``0x``;
    ``sparse``'s stop (``DENSE_LINES``, ``DENSE_BYTES``) is then worked out on the flags themselves."""
    ids, rep_data, rep_ends = classes
    got = signal_shapes(rep_data, rep_ends)
    if got is None:
        return None
    word, maybe = (bytearray(gather(bytes(flags), ids)) if 1 in flags else bytearray(len(ids)) for flags in got)
    if sparse:  # where signal_shapes stops, the shapes it stops at in order
        found, a, b = 0, word.find(1), maybe.find(1)
        while a != -1 or b != -1:  # (a shape is flagged word or maybe, never both)
            if b == -1 or (a != -1 and a < b):
                shape, a = a, word.find(1, a + 1)
            else:
                shape, b = b, maybe.find(1, b + 1)
            found += 1
            if found >= DENSE_LINES and found * DENSE_BYTES >= shape_ends[shape]:
                return None
    return word, maybe


def _coded_shapes(shape_data: bytes, ends, signal: bytearray) -> bytearray:
    """A byte a shape: 1 for a shape ``signal`` does not flag that holds the start of a match of
    ``vocab.SHAPE_CODE_RE`` as ``finditer`` finds them. Without ``0x`` in the shapes no match goes past a
    line's end (only the HRESULT alternative's ``\\s`` may, before its ``0x``): RE2's program is searched
    over each run of shapes not flagged only, a search a shape that matches (no match object; a log of
    errors has hardly any such shape); with it, every match as ``finditer`` steps through them."""
    coded = bytearray(len(ends))
    program = re2_program(SHAPE_CODE_RE)
    if program is None or b"0x" in shape_data:  # another engine, or a match may cross a line's end: every match
        for match in SHAPE_CODE_RE.finditer(shape_data):
            shape = bisect_right(ends, match.start())
            if not signal[shape]:
                coded[shape] = 1
        return coded
    match, anchor = program
    unanchored, count = anchor.UNANCHORED, len(ends)
    first = signal.find(0)
    while first != -1:  # a run of shapes not flagged: [first, stop)
        stop = signal.find(1, first)
        if stop == -1:
            stop = count
        pos, end = ends[first - 1] if first else 0, ends[stop - 1]
        while pos < end:
            at = match(unanchored, shape_data, pos, end)[0][0]
            if at < 0:
                break
            shape = bisect_right(ends, at)
            coded[shape] = 1
            pos = ends[shape]  # on from the next shape
        first = signal.find(0, stop) if stop < count else -1
    return coded


@cache
def _word_run_program():
    """The RE2 program of a run of lines each holding a match of ``vocab.WORD_PATTERN`` (Latin-1), or None
    (another engine)."""
    return line_runs_program(WORD_PATTERN)


def _line_indexes(raw: bytes, spans) -> list[int]:
    """The line index (0-based, split on ``\\n``) of each span's start; spans in order."""
    found: list[int] = []
    line = last = 0
    for start, _end in spans:
        line += raw.count(b"\n", last, start)
        found.append(line)
        last = start
    return found


def _indexes_at(starts, spans) -> list[int]:
    """What ``_line_indexes`` gives, read from the line starts at hand (``scan_lines``: n + 1 offsets,
    strictly increasing) instead of counting the newlines before each span: a span starts a line."""
    return [bisect_right(starts, start) - 1 for start, _end in spans]


def _line_end(raw: bytes, start: int, next_start: int) -> int:
    return next_start - 1 if next_start > start and raw[next_start - 1] == 10 else next_start


def signal_line_spans(raw: bytes) -> list[tuple[int, int]]:
    """(start, end) of every line holding a signal, newline excluded (``vocab.signal_line_spans``)."""
    return signal_line_spans_direct(raw)


def signal_line_indexes(raw: bytes) -> list[int]:
    """Indexes (0-based, split on ``\\n``) of the lines holding a signal."""
    return _line_indexes(raw, signal_line_spans_direct(raw))


def signal_lines(raw: bytes) -> list[bytes]:
    """Every distinct signal line of ``raw`` (line ending stripped): what must stay visible."""
    return list(dict.fromkeys(raw[start:end].rstrip(b"\r") for start, end in signal_line_spans_direct(raw)))


def _signal_blocks(raw: bytes, starts, n: int, signal_indexes, shapes=None) -> tuple[array, array]:
    """(first, stop) of each signal line with the stack-trace lines that follow it (indented lines,
    ``Caused by``, ``... N more``); an identical copy of the signal line starts a block of its own. Two
    arrays, the firsts and the stops. The lines right after the signal lines are tried by ``map``, or
    their distinct shapes once each (``shapes``: each line's shape id, the shapes and where each ends,
    as ``scan_lines`` gives them: ``CONTINUATION_RE`` takes a shape's digit run as it takes the line's
    digits); a signal line no trace line follows (most, in a log of errors) is a block of one line,
    and only the others are stepped through."""
    firsts = array("q", signal_indexes)
    while firsts and firsts[-1] >= n:
        firsts.pop()
    if shapes is not None:  # the kernel: the shapes after the signal lines, then the lines a trace may follow
        ids, shape_data, shape_ends = shapes
        flags = bytearray(len(shape_ends))
        for k in next_shapes(ids, firsts, n):
            if CONTINUATION_RE.match(shape_data, shape_ends[k - 1] if k else 0, shape_ends[k]):
                flags[k] = 1
        heads, ones = traced_heads(ids, starts, firsts, n, flags)
    else:
        nexts = array("q", map((1).__add__, firsts))
        if nexts and nexts[-1] == n:  # the last line: nothing follows it
            nexts.pop()
        after = starts.__getitem__
        goes_on = map(CONTINUATION_RE.match, repeat(raw), map(after, nexts), map(after, map((1).__add__, nexts)))
        traced = {j for j in compress(nexts, goes_on) if starts[j + 1] - starts[j] > 1}
        heads, ones = compress(firsts, map(traced.__contains__, map((1).__add__, firsts))), None
    long: dict[int, int] = {}  # the first line of each block of more than one line -> its stop
    covered = 0
    for i in heads:
        if i < covered:  # a trace line of the block before (that says "error" too)
            continue
        head = raw[starts[i] : starts[i + 1]]
        j = i + 1
        while (j < n and starts[j + 1] - starts[j] > 1 and CONTINUATION_RE.match(raw, starts[j], starts[j + 1])
               and raw[starts[j] : starts[j + 1]] != head):
            j += 1
        if j > i + 1:
            long[i] = covered = j
    plus = memoryview(array("q", map((1).__add__, firsts)) if ones is None else ones)  # each first's stop alone
    if not long:
        return firsts, plus
    kept, stops = array("q"), array("q")
    done = 0  # the firsts placed so far
    for i, j in long.items():  # the signal lines before the block, each a block of one line; the block; past its trace
        at = bisect_left(firsts, i, done)
        kept.extend(firsts[done:at])
        stops.frombytes(plus[done:at].cast("B"))
        kept.append(i)
        stops.append(j)
        done = bisect_left(firsts, j, at)
    kept.extend(firsts[done:])
    stops.frombytes(plus[done:].cast("B"))
    return kept, stops


def _uncount(counts, ids, verbatim, verbatim_counts) -> None:
    """``counts[s] -= verbatim_counts[s]`` for every shape ``s`` that verbatim lines have (they are never
    folded: they do not count for their template): the shapes of the verbatim lines when those are
    few (a set of their ids), else every shape stepped through (a log of errors: most lines)."""
    if len(verbatim) * 8 <= len(verbatim_counts):
        shapes = set(map(ids.__getitem__, verbatim))
    else:
        shapes = compress(range(len(verbatim_counts)), verbatim_counts)
    for shape in shapes:
        counts[shape] -= verbatim_counts[shape]


def _duplicate_blocks(raw: bytes, starts, firsts, stops) -> tuple[dict[int, int], dict[int, tuple[int, int]]]:
    """Exact copies among the signal blocks (also far apart; line endings aside): the first block of each
    text with its number of copies (only when more than one), and each later copy -> (stop, first).
    The texts are compared by the kernel (``first_equal``): only the copies take a Python step."""
    first = first_equal(raw, take(starts, firsts), take(starts, stops), False, True, False)  # the spans by the kernel
    copies: dict[int, int] = {}
    later: dict[int, tuple[int, int]] = {}
    for k in compress(range(len(first)), map(ne, first, range(len(first)))):
        rep = firsts[first[k]]
        copies[rep] = copies.get(rep, 1) + 1
        later[firsts[k]] = (stops[k], rep)
    return copies, later


def _templates(shape_data: bytes, shape_ends, counts, cfg: Settings, room: int = 0, classes=None) -> tuple:
    """Each shape's template id, each template's key and its number of lines.

    A shape is its own template; when ``mask_templates`` is on, every shape gets the precise mask (hex
    ids too: a shape keeps a hex id's letters, so ``session:1600a35a`` and ``session:8d116ece`` were two);
    a template still rare after that (fewer than ``fold_min`` lines) is keyed by its
    words, every token that looks like an identifier masked (package names with versions, hosts with
    ports, paths) — but only when the log would not fit in ``room`` bytes without it (a rare line that
    differs in a path, a user or a host is news, not noise, while there is room to show it). Work is
    done once per distinct shape, never per line, and keys are made one at a time: only distinct
    templates become objects (a log whose lines all differ has a shape a line). ``classes``
    (``_id_classes``): the precise mask is made once a class.
    """
    modes = bytearray(len(shape_ends))  # per shape: 0 its own template, 1 masked, 2 by its words
    template_of, names, totals = None, None, counts  # while every shape is its own template
    for mode in (1, 2) if cfg.mask_templates else ():
        if mode == 1:  # every shape the precise mask: shapes that differ only in a hex id's letters are one
            modes[:] = b"\x01" * len(modes)
        elif not mark_rare(counts, template_of, totals, cfg.fold_min, modes, mode):
            break
        # pass 2 keeps the keys of pass 1 for the shapes it does not mark (no mask made again)
        if mode == 1 and classes:
            template_of, names, totals = group_shapes(shape_data, shape_ends, modes, counts, classes=classes[0])
        else:
            template_of, names, totals = group_shapes(shape_data, shape_ends, modes, counts,
                                                      *((template_of, names) if mode == 2 else ()))
    if template_of is None:
        template_of, names, totals = group_shapes(shape_data, shape_ends, modes, counts)
    elif cfg.mask_templates and 2 in modes:
        template_of, names, totals = _split_variants(shape_data, shape_ends, modes, counts, template_of, names,
                                                     totals, cfg.fold_min)
        if room:
            template_of, names, totals = _unfold(shape_data, shape_ends, modes, counts, template_of, names,
                                                 totals, cfg.fold_min, room)
    return template_of, names, totals


FIT_SHAPES_MAX = 100_000  # distinct shapes beyond which the room is not estimated (word keys stay)


def _shown_size(lengths, counts, template_of, totals, fold_min: int) -> int:
    """The bytes of the lines a log shows, estimated on the shapes: every line of a rare template,
    one line of a frequent one (with its count)."""
    size, seen = 0, set()
    for s, count in enumerate(counts):
        if not count:
            continue
        t = template_of[s]
        if totals[t] >= fold_min:
            if t not in seen:
                seen.add(t)
                size += lengths[s] + 8
        else:
            size += lengths[s] * count
    return size


def _unfold(shape_data: bytes, shape_ends, modes: bytearray, counts, template_of, names, totals,
            fold_min: int, room: int) -> tuple:
    """The templates keyed by their words, smallest first, back to their shapes (each its own rare
    template, so its lines show as they are) while the lines shown stay within ``room`` bytes: words
    fold only what does not fit. Of the first template that does not fit whole, its first shapes that
    do (the rest, ``fold_min`` lines at least, still fold: ``×N`` on the first of them)."""
    if len(shape_ends) > FIT_SHAPES_MAX:
        return template_of, names, totals
    lengths = array("q", [end - start for start, end in zip([0, *shape_ends[:-1]], shape_ends)])
    members: dict[int, list[int]] = {}
    at = modes.find(2)
    while at != -1:
        if counts[at] and totals[template_of[at]] >= fold_min:
            members.setdefault(template_of[at], []).append(at)
        at = modes.find(2, at + 1)
    if not members:
        return template_of, names, totals
    size = _shown_size(lengths, counts, template_of, totals, fold_min)
    template_of, totals, names = array("i", template_of), array("q", totals), list(names)
    for t in sorted(members, key=lambda t: (totals[t], t)):
        shapes = members[t]
        cost = sum(lengths[s] * counts[s] for s in shapes) - lengths[shapes[0]] - 8
        if size + cost > room:  # the first shapes of the template while they fit, the others fold
            shapes, left = [], totals[t]  # (as many lines as ``fold_min`` at least: still a frequent template)
            for shape_id in members[t]:
                cost = lengths[shape_id] * counts[shape_id]
                if size + cost > room or left - counts[shape_id] < fold_min:
                    break
                size += cost
                left -= counts[shape_id]
                shapes.append(shape_id)
            room = 0  # no template after this one
        else:
            size += cost
        for shape_id in shapes:
            totals[t] -= counts[shape_id]
            template_of[shape_id] = len(names)
            start = shape_ends[shape_id - 1] if shape_id else 0
            names.append(b"\x02" + shape_data[start : shape_ends[shape_id] - 1])
            totals.append(counts[shape_id])
        if not room:
            break
    return template_of, names, totals


VARIANT_GROUP_MAX = 256  # shapes of one word-keyed template compared token by token (bounds the cost)


def _word_groups(modes: bytearray, template_of, totals, fold_min: int) -> dict[int, list[int]]:
    """The shapes keyed by their words (mode 2), by template; only templates frequent enough to fold."""
    groups: dict[int, list[int]] = {}
    at = modes.find(2)
    while at != -1:
        t = template_of[at]
        if totals[t] >= fold_min:
            groups.setdefault(t, []).append(at)
        at = modes.find(2, at + 1)
    return {t: shapes for t, shapes in groups.items() if 1 < len(shapes) <= VARIANT_GROUP_MAX}


def _variants(tokens: list[list[bytes]], weights: list[int], fold_min: int) -> list[int]:
    """Indexes of the rare members (fewer than ``fold_min`` lines) that differ from all the others at a
    position where all the others agree: a word, not an id (ids are masked in ``tokens``)."""
    found = []
    for k, own in enumerate(tokens):
        if weights[k] >= fold_min:
            continue
        others = [tokens[m] for m in range(len(tokens)) if m != k]
        for p, token in enumerate(own):
            seen = {other[p] if p < len(other) else None for other in others}
            if len(seen) == 1 and token not in seen:
                found.append(k)
                break
    return found


def _split_variants(shape_data: bytes, shape_ends, modes: bytearray, counts, template_of, names, totals,
                    fold_min: int) -> tuple:
    """A frequent template must not absorb a rare variant: a shape that joined a template by its words
    (mode 2) but differs from every other member in a word where all of them agree (``reason = DeauthInd``
    among thirteen ``reason = AuthFail``) gets a template of its own, so it stays visible as a rare line."""
    groups = _word_groups(modes, template_of, totals, fold_min)
    moved: list[tuple[int, int]] = []
    for shapes in groups.values():
        tokens = []
        for shape_id in shapes:
            start = shape_ends[shape_id - 1] if shape_id else 0
            tokens.append(mask(shape_data[start : shape_ends[shape_id] - 1]).split())
        weights = [counts[shape_id] for shape_id in shapes]
        moved.extend((shapes[k], weights[k]) for k in _variants(tokens, weights, fold_min))
    if not moved:
        return template_of, names, totals
    template_of, totals, names = array("i", template_of), array("q", totals), list(names)
    for shape_id, weight in moved:
        totals[template_of[shape_id]] -= weight
        template_of[shape_id] = len(names)
        start = shape_ends[shape_id - 1] if shape_id else 0
        names.append(b"\x02" + shape_data[start : shape_ends[shape_id] - 1])
        totals.append(weight)
    return template_of, names, totals


def reduce_log(raw: bytes, granularity: str, cfg: Settings, room: int = 0) -> Plan:
    """The plan of a log (see the module docstring); ``room``: the bytes an output may show (0: no
    limit known), below which rare lines are not folded by their words."""
    starts, ids, shape_data, shape_ends, counts = scan_lines(raw, cfg.mask_templates)
    n = len(ids)
    classes = _id_classes(shape_data, shape_ends) if cfg.mask_templates else None
    if cfg.mask_templates:  # the shapes at hand are the ones the signal scan works on
        flags = _shape_flags(raw, shape_data, shape_ends, classes)  # the vocabulary's, a shape at a time (or None)
        signal_indexes = _signals_from_shapes(raw, starts, ids, shape_data, shape_ends, flags=flags)
        if flags is not None:  # SIGNAL's spans, by its own definition, kept for it
            keep_shaped_spans(raw, starts, ids, shape_data, shape_ends, lines_with, flags)
    else:
        signal_indexes = _indexes_at(starts, signal_line_spans_direct(raw))
    firsts, stops = _signal_blocks(raw, starts, n, signal_indexes, (ids, shape_data, shape_ends))
    # the signal blocks' lines, a byte a line flagging them (a set held an int object a line of a log of
    # errors) and their number of each shape, by the kernel: no Python step a line
    verbatim, is_verbatim, verbatim_counts = verbatim_lines(ids, firsts, stops, n, len(counts))
    copies, later = _duplicate_blocks(raw, starts, firsts, stops)
    del firsts, stops
    _uncount(counts, ids, verbatim, verbatim_counts)
    del verbatim_counts
    template_of, names, totals = _templates(shape_data, shape_ends, counts, cfg, room, classes)
    del shape_data, shape_ends, classes
    frequent = bytes(total >= cfg.fold_min for total in totals)
    visible = select_visible(ids, template_of, frequent, verbatim)
    plain = bytearray(is_verbatim)  # the verbatim lines that show as they are: no block's copy, none copied
    for i in chain(later, copies):
        plain[i] = 0

    fine = granularity == "fine"
    group_of: dict[int, str] = {}  # template id -> group, for the frequent templates shown so far
    plan = Plan(raw)
    folded = 0
    i = 0  # the first line not yet in the plan
    v, nvisible = 0, len(visible)
    while v < nvisible:
        line = visible[v]
        if line > i:  # copies of templates already shown: omitted
            folded += line - i
            _omit_copies(plan, starts, ids, template_of, names, group_of, i, line, fine)
        pos, line_end = starts[line], starts[line + 1]
        if is_verbatim[line]:  # a signal or trace line
            if line in later or line in copies:
                i = _show_verbatim(plan, starts, line, fine, copies, later)
                folded += i - line - 1
                while v < nvisible and visible[v] < i:
                    v += 1
            else:
                i, v = _keep_verbatim_run(plan, starts, visible, v, plain)
            continue
        t = template_of[ids[line]]
        if frequent[t]:  # the first line of a frequent template: shown with its count
            group = f"t{len(group_of)}" if fine else "log"
            group_of[t] = group
            if fine:  # the ref must exist before its marker: the copies are omitted further down
                plan.reasons.setdefault(group, _reason(fine, names[t]))
            _representative(plan, pos, line_end, f" ×{totals[t]}".encode(), group if fine else None, cfg.long_line)
        else:  # a rare line: in place, with the short rare lines right after it in the same piece
            body_end = line_body_end(raw, pos, line_end)
            _keep_body(plan, pos, body_end, cfg.long_line)
            plan.keep(body_end, line_end)
            v += 1
            i = line + 1
            limit = cfg.long_line or len(raw)
            while (v < nvisible and visible[v] == i and not is_verbatim[i] and not frequent[template_of[ids[i]]]
                   and starts[i + 1] - starts[i] <= limit):
                v += 1
                i += 1
            plan.keep(line_end, starts[i])
            continue
        v += 1
        i = line + 1
    if i < n:
        folded += n - i
        _omit_copies(plan, starts, ids, template_of, names, group_of, i, n, fine)

    _footer(plan, folded, fine)
    return plan.finish()


def _keep_verbatim_run(plan: Plan, starts, visible, v: int, plain: bytearray) -> tuple[int, int]:
    """Keep the signal or trace line ``visible[v]`` and the ones right after it that show as they are
    (``plain``: a verbatim line no later copy of a block starts and none copied), as one piece (``keep``
    would join them); the next line to place and the next visible index. The run ends at the first line
    that is not plain (found by ``bytearray.find``: no Python step a line); its lines are visible (every
    verbatim line is), so they are the next visible indexes."""
    line = visible[v]
    i = plain.find(0, line + 1)
    plan.keep(starts[line], starts[i])
    return i, v + (i - line)


def _show_verbatim(plan: Plan, starts, line: int, fine: bool, copies: dict[int, int], later: dict[int, tuple[int, int]]) -> int:
    """Show signal or trace line ``line`` (whole, however long) and return the next line to place. Exact
    copies of a signal block (also far apart) show once, with ×N; a later copy is omitted whole."""
    raw = plan.raw
    pos, line_end = starts[line], starts[line + 1]
    if line in later:
        stop, rep = later[line]
        plan.omit(pos, starts[stop], f"s{rep}" if fine else "log", _reason(fine, raw[starts[rep] : starts[rep + 1]]))
        return stop
    if line in copies:
        group = f"s{line}" if fine else "log"
        if fine:  # the ref must exist before its marker: the copies are omitted further down
            plan.reasons.setdefault(group, _reason(fine, raw[pos:line_end]))
        _representative(plan, pos, line_end, f" ×{copies[line]}".encode(), group if fine else None)
    else:
        plan.keep(pos, line_end)
    return line + 1


def _footer(plan: Plan, folded: int, fine: bool) -> None:
    if not folded:
        return
    lead = b"" if plan.ends_line() else b"\n"
    if fine:
        plan.show(lead + f"[{folded} repeated lines folded; ×N counts lines of one template (numbers and ids may differ); exact lines behind each #ref]\n".encode())
    else:
        plan.show(lead + f"[{folded} repeated lines folded; ×N counts lines of one template (numbers and ids may differ); exact lines: ".encode())
        plan.mark("log")
        plan.show(b"]\n")


def _omit_copies(plan: Plan, starts, ids, template_of, names, group_of, first: int, stop: int, fine: bool) -> None:
    """Omit lines ``first`` to ``stop`` (copies of shown templates): one piece (coarse) or one per run of a template."""
    if not fine:
        plan.omit(starts[first], starts[stop], "log", _reason(fine, b""))
        return
    j = first
    while j < stop:
        t = template_of[ids[j]]
        k = j + 1
        while k < stop and template_of[ids[k]] == t:
            k += 1
        group = group_of[t]
        plan.omit(starts[j], starts[k], group, plan.reasons.get(group) or _reason(fine, names[t]))
        j = k


def _keep_body(plan: Plan, start: int, body_end: int, limit: int) -> None:
    """Keep a line's text; past ``limit`` bytes the rest goes to the long-lines ref, marked in place."""
    if not limit or body_end - start <= limit:
        plan.keep(start, body_end)
        return
    cut = start + limit
    while cut > start and plan.raw[cut] & 0xC0 == 0x80:
        cut -= 1  # never inside a UTF-8 character
    plan.keep(start, cut)
    plan.show(f" …[{body_end - cut:,} more bytes of this line: ".encode())
    plan.reasons.setdefault(LONG_GROUP, LONG_REASON)  # the ref exists before its marker
    plan.mark(LONG_GROUP)
    plan.show(b"]")
    plan.omit(cut, body_end, LONG_GROUP, LONG_REASON)


def _representative(plan: Plan, start: int, line_end: int, suffix: bytes, group: str | None, limit: int = 0) -> None:
    """Keep the line, with ``suffix`` (and the group's marker) before its line ending."""
    body_end = line_body_end(plan.raw, start, line_end)
    _keep_body(plan, start, body_end, limit)
    plan.show(suffix)
    if group is not None:
        plan.show(b" ")
        plan.mark(group)
    plan.keep(body_end, line_end)


def _reason(fine: bool, key: bytes) -> str:
    if not fine:
        return "folded repeated log lines"
    return "folded repeats of: " + key.lstrip(b"\x00")[:80].decode("utf-8", "replace")


FAMILY_RE = lazy(rb"(?<!\S)(?![\[(<\"'`]*[A-Za-z]+[\])>\"'`,:;.!?]*(?!\S))\S+")  # a token not a word (a time, host, path, id, number)


def family(line: bytes) -> bytes:
    """The kind of a must-see line (``operators.ceiling`` shows a line of each kind before a second of
    any): its words, every other token (a time, a host, a path, an id, a number, a quoted name) one
    ``*``; ``Exception building answer packet for bad.internal.test/A`` and ``… for mx2.internal.test/MX``
    are of one kind, ``client '127.0.0.1:40421', denied: client IP has no permission`` of another."""
    return FAMILY_RE.sub(b"*", line)


FITS = True  # the reducer fits a log to its room itself (rare lines fold by their words): cut at the budget only
ROOM_SHARE = 0.8  # of the output ceiling the lines of a log may take before rare lines fold by their words


def reduce(raw: bytes, granularity: str, config) -> Plan:
    cfg, ceiling = section(config, NAME), section(config, "ceiling").max_chars
    if len(raw) <= ceiling and cfg.long_line:  # a log that fits the ceiling whole: no line cut for its length
        cfg = msgspec.structs.replace(cfg, long_line=0)
    return reduce_log(raw, granularity, cfg, int(ceiling * ROOM_SHARE))


# -- the content type ----------------------------------------------------------------------------
NAME = "log"
SIGNALS = "lines"


class Settings(Section):
    fold_min: Annotated[int, msgspec.Meta(ge=2)] = 3  # a template seen fewer times than this is a rare line and stays visible
    mask_templates: bool = True  # group lines that differ only by numbers, ids, hex, timestamps
    long_line: Annotated[int, msgspec.Meta(ge=0)] = 4096  # bytes of a non-signal line shown; the rest to a ref (0: never cut)

def detect(sample) -> str | None:
    lines = sample.lines
    n = len(lines)
    log_like = sum(1 for line in lines if is_log_line(line))
    if n >= 3 and log_like >= 0.5 * n:
        return f"{log_like}/{n} lines have timestamps or levels"
    # records with their tracebacks (uvicorn's ``ERROR:    Exception in ASGI application`` and its frames):
    # half the lines that start a record, a quarter of all lines at least
    heads = sum(1 for line in lines if line.strip() and not CONTINUATION_RE.match(line) and not line.startswith(TRACEBACK))
    if heads >= 3 and log_like >= 0.5 * heads and (4 * log_like >= n or log_like >= 0.8 * heads):
        return f"{log_like}/{heads} records have timestamps or levels (their traces aside)"
    return None



# budget ranks (operators.rank): after the signal lines (the general rule, tier 0), the rare lines (each a
# template seen less than fold_min times: news, not noise), then the frequent templates folded with counts
OTHER_LINES = (1, 1)
CONTEXT_RANK = 2
