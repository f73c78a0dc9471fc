"""The pure-Python twin of the diagnostics type's kernel function ``diag_heads``: the ``path:line:col: …``
lines that start with their path (``LOC_LINES_RE`` of ``operators.types.diagnostics``), found over a
whole input, as columns, the texts after their locations and their paths each kept once."""

from __future__ import annotations

import re
from array import array

from operators.kernel import diag_patterns as P  # the reducer's patterns, written once

LOC_LINES_RE = re.compile(P.LOC_LINES, re.M)  # diagnostics.LOC_LINES_RE
SEV_BRACKET_RE = re.compile(rb"[a-z]+\[")  # how a line both rustc's ``error[E0308]: …`` and a location's can start
SUSPECT, DASH = 1, 2


def _intern(numbers: dict, items: list, item: bytes) -> int:
    """``item``'s number in ``items``, appended when new."""
    n = numbers.get(item)
    if n is None:
        n = numbers[item] = len(items)
        items.append(item)
    return n


def diag_heads_py(raw: bytes):
    """(lines, at, loc, flags, rest_ids, rests, path_ids, paths), as ``_kernel.diag_heads``: for each line
    ``LOC_LINES_RE`` matches (its text: up to its ``\\n``), in order: its index (uint32; lines split after
    each ``\\n``; the input is under 2 GiB), where its text after the location starts (``at``: group 5) and how long its location is
    (``loc``: ``text[:at].rstrip(b": -")``), int32 each; its flags (a byte: ``SUSPECT`` when it holds
    ``): `` or ``.go:`` or starts with lower-case letters and ``[``, the lines another form may take;
    ``DASH`` when `` - `` ends its location, pyright's form); the id of its text after the location
    (int32) into ``rests`` and of its path into ``paths`` (each distinct text once, in order of first
    appearance)."""
    lines, at, loc, rest_ids, path_ids = array("I"), array("i"), array("i"), array("i"), array("i")
    flags = bytearray()
    rests: list[bytes] = []
    paths: list[bytes] = []
    rest_of: dict[bytes, int] = {}
    path_of: dict[bytes, int] = {}
    line, pos = 0, 0
    for m in LOC_LINES_RE.finditer(raw):
        start = m.start()
        line += raw.count(b"\n", pos, start)
        pos = start
        text = m.group()
        a = m.start(5) - start
        lines.append(line)
        at.append(a)
        loc.append(len(text[:a].rstrip(b": -")))
        suspect = b"): " in text or b".go:" in text or SEV_BRACKET_RE.match(text) is not None
        flags.append((SUSPECT if suspect else 0) | (DASH if b" - " in text[a - 3 : a] else 0))
        rest_ids.append(_intern(rest_of, rests, m.group(5)))
        path_ids.append(_intern(path_of, paths, m.group(2)))
    return lines, at, loc, flags, rest_ids, rests, path_ids, paths


SPECIAL = 255  # diagnostics.SPECIAL: a diagnostic the reducer does on its own


def diag_codes_py(key, rank, plain, group_of, examples: int) -> bytearray:
    """A byte a diagnostic, as ``_kernel.diag_codes``: the number of its rule's group (``group_of[key]``,
    0 for a rule not folded) when its rank in its rule (``rank``) is past ``examples``; ``SPECIAL`` at
    its folded rule's last example; else 0 when ``plain`` (one line shown as printed), ``SPECIAL`` when not."""
    codes = bytearray(len(key))
    for j, (k, r, p) in enumerate(zip(key, rank, plain)):
        g = group_of[k] if k < len(group_of) else 0
        codes[j] = g if g and r > examples else SPECIAL if g and r == examples else 0 if p else SPECIAL
    return codes


def diag_runs_py(codes, first: int, stop: int, heads, lasts, starts, ends):
    """(run_codes, firsts, run_starts, run_ends), as ``_kernel.diag_runs``: the runs of equal codes among
    diagnostics ``first`` to ``stop`` (their first and last lines: ``heads``, ``lasts``; the lines' starts
    and ends: ``starts``, ``ends``): each run's code, its first diagnostic, where its first line starts
    and where its last line ends (int64 each)."""
    if not 0 <= first < stop <= min(len(heads), len(codes)) or len(lasts) != len(heads):
        raise ValueError("diag_runs: bad range or columns")
    run_codes, firsts, run_starts, run_ends = bytearray(), array("q"), array("q"), array("q")
    for j in range(first, stop):
        if j == first or codes[j] != codes[j - 1]:
            run_codes.append(codes[j])
            firsts.append(j)
            run_starts.append(starts[heads[j]])
        if j + 1 == stop or codes[j + 1] != codes[j]:
            run_ends.append(ends[lasts[j]])
    return bytes(run_codes), firsts, run_starts, run_ends


def diag_ranks_py(key, nkeys: int):
    """(rank, order, firsts, counts), as ``_kernel.diag_ranks``, uint32 each: each diagnostic's place
    among those of its key (from 1; ``key``: a key id under ``nkeys`` each), the diagnostics' indexes
    by key (the keys in order of first use, each one's in order), those keys and how many each has."""
    count = [0] * nkeys
    rank, firsts = array("I"), array("I")
    by: dict[int, array] = {}
    for j, k in enumerate(key):
        if not 0 <= k < nkeys:
            raise ValueError("diag_ranks: a key past nkeys")
        count[k] += 1
        rank.append(count[k])
        if count[k] == 1:
            firsts.append(k)
            by[k] = array("I")
        by[k].append(j)
    order = array("I")
    for k in firsts:
        order.extend(by[k])
    return rank, order, firsts, array("I", (count[k] for k in firsts))


PLAIN, GNU, PYRIGHT = 0, 1, 2  # diagnostics.py's style numbers


def diag_columns_py(rest_ids, path_ids, at, flags, keys, sevs, skips, gnus, path_of):
    """(key, severity, path, style, message), as ``_kernel.diag_columns``: the columns of the location
    lines ``diag_heads`` found (``rest_ids``, ``path_ids``, ``at``, ``flags``), each distinct text after a
    location's rule and severity (``keys``, ``sevs``: uint32), how far its message starts into it
    (``skips``: int32) and whether a severity leads it (``gnus``: a byte), each path's number
    (``path_of``: uint32): uint32 rule, severity and path, a style byte (``PYRIGHT`` for a line flagged
    ``DASH``, else ``GNU`` or ``PLAIN``) and where the message starts in its line (int32)."""
    n = len(flags)
    if not len(rest_ids) == len(path_ids) == len(at) == n or not len(keys) == len(sevs) == len(skips) == len(gnus):
        raise ValueError("diag_columns: columns of different lengths")
    if any(not 0 <= r < len(gnus) for r in rest_ids) or any(not 0 <= p < len(path_of) for p in path_ids):
        raise ValueError("diag_columns: an id past its table")
    key = array("I", map(keys.__getitem__, rest_ids))
    severity = array("I", map(sevs.__getitem__, rest_ids))
    path = array("I", map(path_of.__getitem__, path_ids))
    style = bytes(PYRIGHT if f & DASH else GNU if gnus[r] else PLAIN for f, r in zip(flags, rest_ids))
    message = array("i", (a + skips[r] for a, r in zip(at, rest_ids)))
    return key, severity, path, style, message


PAD_BIT, _PAD = 0x80, b" " * 8
_BLANK = frozenset(b" \t")
_SPACE = frozenset(b" \t\r\x0b\x0c")  # \s of a line's text (no \n in it)
_MARKS = frozenset(b"|+-")
_RUST_FIRST = frozenset(b"fewnihrcABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _tsc(line: bytes) -> bool:
    """Whether a line holds what tsc's head (``TSC_RE``: ``path(1,2): error TS2322: ``) cannot lack."""
    return b"): error" in line or b"): warning" in line or b"): message" in line


def _odd(line: bytes) -> bool:
    """Whether a line not indented may hold what another form of the parser reads (tsc's head, gcc's
    ``file: In function``)."""
    return _tsc(line) or b": In " in line or b": At top level" in line


def _arrow_next(line: bytes) -> bool:
    """Whether ``line`` starts with optional whitespace then ``-->`` (rustc's location line)."""
    return line.lstrip(b" \t\r\x0b\x0c").startswith(b"-->")


def _line_class(line: bytes, nxt: bytes | None) -> int:
    p = len(line) - len(line.lstrip(b" \t"))
    if p == len(line):
        return 1
    if p and line[p : p + 2] == b"= ":
        return 5
    if p or line[0] in b"0123456789":
        return _snippet_class(line, p)
    if len(line) > 6 and line[:6] in (b"help: ", b"note: "):
        if line[6] in _SPACE or _odd(line) or (line[0] == 110 and nxt is not None and _arrow_next(nxt)):
            return 0
        return 3
    if line[0] in _RUST_FIRST and not _tsc(line) and nxt is not None and _arrow_next(nxt):
        return 4
    return 0


def _snippet_class(line: bytes, p: int) -> int:
    """2 for a snippet, caret or fix line indented by ``p`` (0: it starts with a digit), else 0."""
    if p and not (line[p] in _MARKS or 48 <= line[p] <= 57):
        return 0
    if 48 <= line[p] <= 57:
        while p < len(line) and 48 <= line[p] <= 57:
            p += 1
        if p >= len(line) or line[p] != 32:
            return 0
        while p < len(line) and line[p] == 32:
            p += 1
    if p >= len(line) or line[p] not in _MARKS or (p + 1 < len(line) and line[p + 1] != 32):
        return 0
    return 0 if line[0] not in _BLANK and _odd(line) else 2


def diag_lines_py(raw: bytes) -> bytes:
    """A byte a line (lines split after each ``\\n``), as ``_kernel.diag_lines``: the lines of a detailed
    format (rustc, ruff's full) that ``diagnostics._Parser`` reads a run at a time. 1: blank (spaces and
    tabs only); 2: a snippet, caret or fix line (``12 | code``, ``   |   ^^^``, ``   - old``, ``7 + new``: an
    indent and/or a line number, then ``|``, ``+`` or ``-`` and a space or the end; not indented, none of
    ``): error``, ``): warning``, ``): message`` (tsc's head), ``: In ``, ``: At top level`` (gcc's file
    lines)); 3: ``help: `` or ``note: `` then a non-space (none of those either; a note not followed by a
    ``-->`` line); 4: a line that may be rustc's head (its first byte one ``RUST_HEAD_RE`` can start
    with, not tsc's head, the next line ``-->`` after optional whitespace); 5: an indent of spaces and tabs
    then ``= `` (rustc's ``= help:``, ``= note:``); 0: any
    other; plus ``PAD_BIT`` when the line holds 8 spaces in a row (``diagnostics.PAD``)."""
    lines = raw.split(b"\n")
    if raw.endswith(b"\n") or not raw:
        lines.pop()
    last = len(lines) - 1
    return bytes(_line_class(line, lines[i + 1] if i < last else None) | (PAD_BIT if _PAD in line else 0)
                 for i, line in enumerate(lines))


def diag_line_runs_py(codes, first: int, stop: int, starts, ends):
    """(run_codes, run_starts, run_ends), as ``_kernel.diag_line_runs``: the runs of equal codes among the
    lines ``first`` to ``stop`` (a code a line), each run's code, where its first line starts and where
    its last line ends (int64 each)."""
    if not 0 <= first < stop <= min(len(starts), len(codes)) or len(ends) != len(starts):
        raise ValueError("diag_line_runs: bad range or columns")
    run_codes, run_starts, run_ends = bytearray(), array("q"), array("q")
    for j in range(first, stop):
        if j == first or codes[j] != codes[j - 1]:
            run_codes.append(codes[j])
            run_starts.append(starts[j])
        if j + 1 == stop or codes[j + 1] != codes[j]:
            run_ends.append(ends[j])
    return bytes(run_codes), run_starts, run_ends


def diag_fill_py(lines: bytearray, codes, heads, lasts, low: int, high: int) -> None:
    """As ``_kernel.diag_fill``: ``lines[heads[j]:lasts[j] + 1]`` set to ``codes[j]`` for each ``j`` whose
    code is from ``low`` to ``high``."""
    if not len(codes) == len(heads) == len(lasts):
        raise ValueError("diag_fill: columns of different lengths")
    for j, code in enumerate(codes):
        if low <= code <= high:
            a, z = heads[j], lasts[j]
            if not 0 <= a <= z < len(lines):
                raise ValueError("diag_fill: a line index out of range")
            lines[a : z + 1] = bytes([code]) * (z - a + 1)


def diag_offsets_py(raw: bytes) -> bytes:
    """As ``_kernel.diag_offsets``: where each line starts (lines split after each ``\\n``), then the end
    of ``raw``, as uint32 bytes (an input under 4 GiB)."""
    if len(raw) >= 1 << 32:
        raise ValueError("diag_offsets: an input of 4 GiB or more")
    offsets = array("I", [0])
    at = raw.find(b"\n")
    while at >= 0:
        offsets.append(at + 1)
        at = raw.find(b"\n", at + 1)
    if raw and raw[-1] != 10:
        offsets.append(len(raw))
    return offsets.tobytes()


_STYLISH_LINE_RE = re.compile(P.STYLISH, re.M)  # diagnostics.STYLISH_RE on a line of the input


def diag_stylish_py(raw: bytes, starts, ends, classes, first: int, stop: int, combos: dict, messages: dict):
    """(stop, combo_ids, message_ids), as ``_kernel.diag_stylish``: the lines from ``first`` on (before
    ``stop``, while ``classes`` is 0) that ``STYLISH_RE`` reads (eslint's stylish entries), up to the first
    it does not; for each, int32, the number in ``combos`` of its severity's initial (``e``, ``w``) then
    ``\\x01`` and its rule, or ``\\x00`` and its message when it has none, and the number in ``messages`` of
    its message (each new text numbered as it is added)."""
    combo_ids, message_ids, k = array("i"), array("i"), first
    while k < stop and not classes[k]:
        end = ends[k]
        m = _STYLISH_LINE_RE.match(raw, starts[k], end - 1 if end > starts[k] and raw[end - 1] == 10 else end)
        if m is None:
            break
        sev, message, rule = m.group(3, 4, 5)
        key = sev[:1] + (b"\x01" + rule if rule is not None else b"\x00" + message)
        combo_ids.append(combos.setdefault(key, len(combos)))
        message_ids.append(messages.setdefault(message, len(messages)))
        k += 1
    return k, combo_ids.tobytes(), message_ids.tobytes()


def diag_pads_py(raw: bytes, start: int, end: int, least: int, keep: int) -> bytes:
    """As ``_kernel.diag_pads``: int64 (from, to) of each run of ``least`` spaces or more in ``raw[start:end]``
    after a byte other than a space or a newline (looked for before ``start`` too) and before one other
    than a space, ``\\r`` or ``\\n`` (inside the span), less its first ``keep`` spaces."""
    out = array("q")
    for m in re.compile(rb"(?<=[^ \n]) {%d,}(?=[^ \r\n])" % least).finditer(raw, start, end):
        out.extend((m.start() + keep, m.end()))
    return out.tobytes()


def diag_shown_py(raw: bytes, starts, ends, heads, lasts, least: int, keep: int) -> bytes:
    """As ``_kernel.diag_shown``: uint32 the size of each span ``raw[starts[heads[j]]:ends[lasts[j]]]`` less the
    spaces ``diag_pads`` leaves out of it (``least``, ``keep``)."""
    if len(starts) != len(ends) or len(heads) != len(lasts) or least < 1 or not 0 <= keep <= least:
        raise ValueError("diag_shown: bad columns or range")
    out = array("I")
    for h, last in zip(heads, lasts):
        if not (0 <= h < len(starts) and 0 <= last < len(starts)):
            raise ValueError("diag_shown: a line out of range")
        start, end = starts[h], ends[last]
        if not 0 <= start <= end <= len(raw):
            raise ValueError("diag_shown: a span out of range")
        pads = memoryview(diag_pads_py(raw, start, end, least, keep)).cast("q")
        out.append(end - start - sum(pads[1::2]) + sum(pads[::2]))
    return out.tobytes()


def diag_line_pieces_py(codes, first: int, stop: int, starts, ends, raw: bytes, padded: int, pad: int, least: int, keep: int):
    """(piece_codes, piece_starts, piece_ends), as ``_kernel.diag_line_pieces``: the runs of equal codes among the
    lines ``first`` to ``stop`` as ``diag_line_runs`` gives them, a run of code ``padded`` cut at each run of spaces
    ``diag_pads`` finds in it (``least``, ``keep``): code 0 before, between and after them, code ``pad`` for each;
    no empty piece, the pieces of code 0 next to each other joined (int64 starts and ends)."""
    if not 0 <= padded <= 255 or not 0 <= pad <= 255 or least < 1 or not 0 <= keep <= least:
        raise ValueError("diag_line_pieces: bad range, columns or codes")
    try:
        run_codes, run_starts, run_ends = diag_line_runs_py(codes, first, stop, starts, ends)
    except ValueError:
        raise ValueError("diag_line_pieces: bad range, columns or codes") from None
    out_codes, out_starts, out_ends = bytearray(), array("q"), array("q")

    def push(code: int, a: int, z: int) -> None:
        if a == z:
            return
        if code == 0 and out_codes and out_codes[-1] == 0 and out_ends[-1] == a:
            out_ends[-1] = z
            return
        out_codes.append(code)
        out_starts.append(a)
        out_ends.append(z)

    for code, a, z in zip(run_codes, run_starts, run_ends):
        if a < 0 or a > z or (code == padded and z > len(raw)):
            raise ValueError("diag_line_pieces: a run out of range")
        if code != padded:
            push(code, a, z)
            continue
        at = a
        pads = array("q")
        pads.frombytes(diag_pads_py(raw, a, z, least, keep))
        for f, t in zip(pads[::2], pads[1::2]):
            push(0, at, f)
            push(pad, f, t)
            at = t
        push(0, at, z)
    return bytes(out_codes), out_starts, out_ends


_TSC_LINE_RE = re.compile(P.TSC, re.M)  # diagnostics.TSC_LINE_RE


def diag_tsc_heads_py(raw: bytes, starts, ends, classes, first: int, stop: int, combos: dict, paths: dict):
    """(stop, combo_ids, path_ids, locs, messages), as ``_kernel.diag_tsc_heads``: the lines from ``first`` on
    (before ``stop``, while ``classes`` is 0) that ``TSC_RE`` matches (tsc's heads: ``path(line,col): error
    TS2322: ``), up to the first it does not; for each, int32: the number in ``combos`` of its severity, a space
    and its code (``error TS2322``), the number in ``paths`` of its path (each new text numbered as it is
    added), where its location ends (path, line and column: ``TSC_RE``'s group 4 less 2) and where its
    message starts (the match's end), in its line."""
    if not len(starts) == len(ends) <= len(classes) or not 0 <= first <= stop <= len(starts):
        raise ValueError("diag_tsc_heads: bad range or columns")
    cols, k = tuple(array("i") for _ in range(4)), first
    while k < stop and not classes[k]:
        start, end = starts[k], ends[k]
        if not 0 <= start <= end <= len(raw):
            raise ValueError("diag_tsc_heads: a line out of range")
        m = _TSC_LINE_RE.match(raw, start, end - 1 if end > start and raw[end - 1] == 10 else end)
        if m is None:
            break
        cols[0].append(combos.setdefault(raw[m.start(4) : m.end(5)], len(combos)))
        cols[1].append(paths.setdefault(m.group(1), len(paths)))
        cols[2].append(m.start(4) - 2 - start)
        cols[3].append(m.end() - start)
        k += 1
    return (k, *(column.tobytes() for column in cols))


# diagnostics.LOC_LINE_RE: LOC_LINES_RE after an indent, on one line
_LOC_LINE_RE = re.compile(P.LOC, re.M)


def diag_indented_py(raw: bytes, starts, ends, classes, first: int, stop: int):
    """(stop, columns), as ``_kernel.diag_indented``: the lines from ``first`` on (before ``stop``; class 0, led
    by a space or a tab) up to the first that ``LOC_LINE_RE`` matches with a path that starts with a digit
    or a text that holds ``): `` or ``.go:``; for each, int64, where its path starts and ends, where the
    text after its location starts (-1 for the three when it does not match), where its text ends, and 1
    when `` - `` is just before the text after its location."""
    cols, k = array("q"), first
    while k < stop and not classes[k] and raw[starts[k]] in b" \t":
        end = ends[k]
        end = end - 1 if raw[end - 1] == 10 else end
        m = _LOC_LINE_RE.match(raw, starts[k], end)
        if m is None:
            cols.extend((-1, -1, -1, end, 0))
            k += 1
            continue
        if raw[m.start(2)] in b"0123456789" or b"): " in m.group() or b".go:" in m.group():
            break
        at = m.start(5)
        cols.extend((m.start(2), m.end(2), at, end, raw[at - 3 : at] == b" - "))
        k += 1
    return k, cols.tobytes()


_INDENT_RE = re.compile(P.INDENT)  # diagnostics.INDENT_RE
_ODD_FIRST = P.ODD_FIRST  # diagnostics._ODD_FIRST
_PROGRESS_RE = re.compile(P.PROGRESS)  # diagnostics.PROGRESS_RE
_SUMMARY_RE = re.compile(P.SUMMARY)  # diagnostics.SUMMARY_RE


def diag_elaborations_py(raw: bytes, starts, ends, cols: bytes, first: int, indent: int) -> bytes:
    """A byte a line of ``diag_indented``'s columns ``cols`` (lines ``first`` on), as ``_kernel.diag_elaborations``:
    how ``diagnostics._Parser._elaboration`` reads a line with no location under the last location line before it
    (``indent``: the indent of the head when none is in the run): 0 no part of the message, 1 a part with no
    trailing code, 2 a part that may end with one (``TRAIL_CODE_RE`` to be tried), 3 to be read by
    ``_elaboration`` itself (not indented: a progress or summary line may start so); 0 for a location line."""
    cols = memoryview(cols).cast("q")
    m = len(cols) // 5
    if not len(starts) == len(ends) or first < 0 or first + m > len(starts):
        raise ValueError("diag_elaborations: bad range or columns")
    out = bytearray(m)
    for j in range(m):
        k, start, end = first + j, starts[first + j], cols[5 * j + 3]
        if not 0 <= start <= end <= len(raw):
            raise ValueError("diag_elaborations: a line out of range")
        at = _INDENT_RE.match(raw, start).end()
        if cols[5 * j] >= 0:
            indent = at - start
            continue
        if at - start <= indent or at >= end or raw[at] in _ODD_FIRST or raw.find(b"): ", start, end) >= 0:
            continue
        if k + 1 < len(starts) and (raw.find(b"-[", end, ends[k + 1]) >= 0 or raw.find(b"\xe2\x94\x80[", end, ends[k + 1]) >= 0):
            continue
        if raw[at] in b"ABCDFLU":  # PROGRESS_RE or SUMMARY_RE may match
            if at == start:
                out[j] = 3
                continue
            if _PROGRESS_RE.match(raw[start:end]) or _SUMMARY_RE.match(raw[start:end]):
                continue
        out[j] = 2 if raw[start:end].rstrip()[-1:] in (b")", b"]") else 1
    return bytes(out)


_CARET_LINE_RE = re.compile(P.CARET)  # diagnostics.CARET_RE


def _bulk_details(classes, raw: bytes, starts, ends, style: int, path: bytes, i: int, stop: int) -> bool:
    """Whether lines ``i`` to ``stop`` (the location line after them) are each a detail of the location line before
    them (its style and path: ``style``, ``path``), as ``diag_bulk_py`` reads them."""
    if i >= stop or any(not 1 <= c <= 3 for c in classes[i:stop]):
        return False
    if style == 0:
        return True
    if style != 1 or path.endswith(b".java") or not (classes[i] == 1 or raw[starts[i]] in b" \t"):
        return False
    end = ends[stop]
    return classes[stop - 1] == 1 or not _CARET_LINE_RE.match(raw[starts[stop] : end - 1 if end > starts[stop] and raw[end - 1] == 10 else end])


def diag_bulk_py(lines, ok, classes, raw: bytes, starts, ends, style, path, paths: list, kind: bytearray, h: int):
    """(stop, pairs), as ``_kernel.diag_bulk``: the location lines ``diag_heads`` found (``lines``) from the ``h``-th
    on that follow each other and that ``ok`` says are plain diagnostics, their kinds set to ``HEAD`` (0) in
    ``kind``; then, while the lines after the last of them up to the next such line are a run of its details
    (``classes`` 1 to 3; under ``GNU`` (``style`` 1) not a ``.java`` path (``paths[path[...]]``), the first blank
    or indented or of class 1, the last of class 1 or the location line after them no bare caret line; any
    under ``PLAIN`` (0)), those details' kinds set to ``DETAIL`` (2) and the location lines from that one on
    read the same way: the index past the location lines read and, int64, the index of each location line
    whose details were read and its last detail line."""
    n, nl = len(lines), len(starts)
    if not len(ok) == len(style) == len(path) == n or len(ends) != nl or len(classes) < nl or len(kind) < nl or not 0 <= h < n:
        raise ValueError("diag_bulk: bad range or columns")
    grown = array("q")
    while True:
        first, e = lines[h], h + 1
        while e < n and ok[e] and lines[e] == first + (e - h):
            e += 1
        if not 0 <= first <= first + (e - h) <= nl:
            raise ValueError("diag_bulk: a line out of range")
        kind[first : first + (e - h)] = bytes(e - h)
        if e >= n or not ok[e]:
            break
        i, stop = lines[e - 1] + 1, lines[e]
        if stop >= nl:
            raise ValueError("diag_bulk: a line out of range")
        if not _bulk_details(classes, raw, starts, ends, style[e - 1], paths[path[e - 1]], i, stop):
            break
        kind[i:stop] = b"\x02" * (stop - i)
        grown.extend((e - 1, stop - 1))
        h = e
    return e, grown.tobytes()


# diagnostics.LINT_RE: the lint a rustc ``= note:`` or ``= help:`` line names
_LINT_RE = re.compile(P.LINT)


def diag_rust_details_py(raw: bytes, starts, ends, classes, kind: bytearray, first: int, stop: int):
    """(stop, pairs), as ``_kernel.diag_rust_details``: the lines from ``first`` on (before ``stop``) of class 1, 2, 3
    (snippet, blank, help) or 5 (rustc's ``= help:``/``= note:``), their kinds set to ``DETAIL`` (2) in ``kind``;
    the line past them and, int64, where the lint's name (``LINT_RE``) starts and ends in each ``=`` line that
    names one, in order."""
    n = len(starts)
    if len(ends) != n or len(classes) < n or len(kind) < n or first < 0 or stop > n:
        raise ValueError("diag_rust_details: bad range or columns")
    found, k = array("q"), first
    while k < stop and (1 <= classes[k] <= 3 or classes[k] == 5):
        kind[k] = 2
        if classes[k] == 5:
            start, end = starts[k], ends[k]
            if not 0 <= start <= end <= len(raw):
                raise ValueError("diag_rust_details: a line out of range")
            m = _LINT_RE.search(raw[start : end - 1 if end > start and raw[end - 1] == 10 else end])
            if m:
                g = 1 if m.start(1) >= 0 else 2
                found.extend((start + m.start(g), start + m.end(g)))
        k += 1
    return k, found.tobytes()


# diagnostics.TRAIL_CODE_RE: a rule's code at the end of a line
_TRAIL_CODE_RE = re.compile(P.TRAIL_CODE)


def _part_code(raw: bytes, start: int, end: int, head, trail):
    """(whether the head line (``head``: its ``diag_indented`` columns) has a trailing code, the code that ends the line
    ``raw[start:end]`` continuing its message or None) for ``diag_indented_known_py``; ``trail``: the first if known."""
    if not (0 <= start <= end <= len(raw) and 0 <= head[0] <= head[3] <= len(raw)):
        raise ValueError("diag_indented_known: a line out of range")
    if trail is None:
        trail = _TRAIL_CODE_RE.search(raw, head[0], head[3]) is not None
    found = None if trail else _TRAIL_CODE_RE.search(raw, start, end)
    return trail, next(g for g in found.groups() if g).decode("utf-8", "replace") if found else None


LOC_TAIL_RE = re.compile(P.LOC_TAIL)  # diagnostics.LOC_TAIL_RE


def diag_place_sizes_py(raw: bytes, starts, ends, heads, path, style, js, paths: list, stylish: int) -> bytes:
    """As ``_kernel.diag_place_sizes``: uint32 the size of the place ``_Kept.place`` makes of each diagnostic ``js``
    (``diag_places_py``)."""
    return array("I", map(len, _places_py(raw, starts, ends, heads, path, style, js, paths, stylish, "diag_place_sizes"))).tobytes()


def diag_places_py(raw: bytes, starts, ends, heads, path, style, js, paths: list, stylish: int) -> list:
    """As ``_kernel.diag_places``: the place ``_Kept.place`` makes of each diagnostic ``js`` (columns ``heads``, ``path``,
    ``style`` of ``_Diags``; ``paths`` its paths): a stylish entry's (style ``stylish``) its path, a colon and its head
    line's first word; another's from its path's first place in its head line to the end of ``LOC_TAIL_RE``'s match
    after it."""
    return _places_py(raw, starts, ends, heads, path, style, js, paths, stylish, "diag_places")


def _places_py(raw: bytes, starts, ends, heads, path, style, js, paths: list, stylish: int, what: str) -> list:
    if len(starts) != len(ends) or len(path) < len(heads) or len(style) < len(heads):
        raise ValueError(f"{what}: bad columns")
    out = []
    for j in js:
        h = heads[j] if 0 <= j < len(heads) else -1
        if not (0 <= h < len(starts) and 0 <= starts[h] <= ends[h] <= len(raw) and 0 <= path[j] < len(paths)):
            raise ValueError(f"{what}: a diagnostic, line or path out of range")
        start, end, name = starts[h], ends[h], paths[path[j]]
        if not isinstance(name, bytes):
            raise TypeError("a path is not bytes")
        if style[j] == stylish:
            words = raw[start:end].split(None, 1)
            place = name + b":" + words[0] if words else None
        else:
            at = raw.find(name, start, end)
            m = LOC_TAIL_RE.match(raw, at + len(name), end) if at >= 0 else None
            place = raw[at : m.end()] if m else None
        if place is None:
            raise ValueError("no place in the head line")
        out.append(place)
    return out


def diag_indented_unknown_py(raw: bytes, cols: bytes, made: dict) -> bytes:
    """As ``_kernel.diag_indented_unknown``: int32 the index in ``diag_indented``'s columns ``cols`` of each location
    line whose text after the location ``made`` (``_Parser.indented``) does not have, in order."""
    if len(cols) % 40:
        raise ValueError("diag_indented_unknown: bad columns")
    c = memoryview(cols).cast("q")
    out = array("i")
    for j in range(len(c) // 5):
        path_at, _, at, end, _ = c[5 * j : 5 * j + 5]
        if path_at < 0:
            continue
        if not 0 <= at <= end <= len(raw):
            raise ValueError("diag_indented_unknown: a line out of range")
        if raw[at:end] not in made:
            out.append(j)
    return out.tobytes()


def diag_indented_known_py(raw: bytes, starts, cols: bytes, reads: bytes, j: int, first: int, head_j: int, dash: int, made: dict,
                           path_ids: dict, paths: list, key_ids: dict, keys: list):
    """(stop, gots, heads, lasts, pids, styles, kinds, rekeys, first_last, dash), as ``_kernel.diag_indented_known``:
    from line ``j`` of ``diag_indented``'s columns ``cols`` (their ``diag_elaborations`` bytes: ``reads``; the line of
    the first: ``first``) on, each location line whose text after the location ``made`` (``_Parser.indented``) has as
    a diagnostic (not None), and each line ``reads`` says is a part (1, or 2: it may end with a code) under a head with
    `` - `` before its text (``dash``: 1 when the open one has; ``head_j``: its line in ``cols``, -1 for none), up to
    the first other line; each path numbered in ``path_ids``, appended to ``paths`` when new; a part's trailing code
    (``TRAIL_CODE_RE``) its head's rule when the head line has none, numbered in ``key_ids`` (appended to ``keys``
    when new). The line stopped at, the heads' values in ``made``, then int32 each head's line, its last line and its
    path's number, a byte its style (2, pyright's, after `` - ``, else the value's fourth item), a byte each line's
    kind (0 a head, 1 a part), int32 pairs (which head read here, -1 for the open one before them; its new rule), the
    last part line read before the first head (-1: none) and whether the open head has `` - ``."""
    c = memoryview(cols).cast("q")
    m = len(c) // 5
    if len(cols) % 40 or len(reads) != m or not 0 <= j <= m or head_j >= m or first < 0 or first + m > len(starts):
        raise ValueError("diag_indented_known: bad range or columns")
    gots, heads, lasts, pids, styles, kinds, rekeys = [], array("i"), array("i"), array("i"), bytearray(), bytearray(), array("i")
    first_last, trail = -1, None
    while j < m:
        path_at, path_end, at, end, dashed = c[5 * j : 5 * j + 5]
        if path_at < 0:
            if not dash or reads[j] not in (1, 2) or head_j < 0:
                break
            if reads[j] == 2:
                trail, key = _part_code(raw, starts[first + j], end, c[5 * head_j : 5 * head_j + 5], trail)
                if key is not None:
                    rekeys.extend((len(gots) - 1, _intern(key_ids, keys, key)))
            if heads:
                lasts[-1] = first + j
            else:
                first_last = first + j
            kinds.append(1)
            j += 1
            continue
        if not (0 <= path_at <= path_end <= len(raw) and 0 <= at <= end <= len(raw)):
            raise ValueError("diag_indented_known: a line out of range")
        got = made.get(raw[at:end], False)
        if got is False or got is None:
            break
        pid = _intern(path_ids, paths, raw[path_at:path_end])
        gots.append(got)
        heads.append(first + j)
        lasts.append(first + j)
        pids.append(pid)
        styles.append(2 if dashed else got[3])
        kinds.append(0)
        dash, head_j, trail = int(dashed != 0), j, None
        j += 1
    return (j, gots, heads.tobytes(), lasts.tobytes(), pids.tobytes(), bytes(styles), bytes(kinds), rekeys.tobytes(), first_last,
            dash)


# diagnostics.RUST_BLOCK_RE: rustc's head line (RUST_HEAD_RE), then its --> line (ARROW_RE's form)
_RUST_BLOCK_RE = re.compile(P.RUST_BLOCK, re.M)


def _rust_details(raw: bytes, starts, ends, classes, kind: bytearray, k: int, stop: int, key_ids: dict, keys: list, rekeys: array,
                  j: int) -> int:
    """The details after the head on line ``k`` (the ``j``-th diagnostic) read for ``diag_rust_run_py``, the lints they name
    added to ``rekeys`` unless the head line has a ``[`` before its first colon; their last line."""
    last, lints = diag_rust_details_py(raw, starts, ends, classes, kind, k + 2, stop)
    lints = memoryview(lints).cast("q")
    if b"[" not in raw[starts[k] : ends[k] - 1].split(b":")[0]:
        for at, to in zip(lints[0::2], lints[1::2]):
            rekeys.extend((j, _intern(key_ids, keys, raw[at:to].decode("utf-8", "replace"))))
    return last - 1


def _rust_run_head(raw: bytes, starts, ends, classes, k: int, stop: int, locs: list):
    """The ``RUST_BLOCK_RE`` match of line ``k`` when ``diag_rust_run_py`` reads it as a head (``locs``: the places of
    those it read before), else None."""
    start = starts[k]
    if classes[k] != 4 and (classes[k] != 0 or not locs or k + 1 >= stop or not raw.startswith(b"note: ", start)
                            or raw.find(b"): ", start, ends[k]) >= 0):
        return None  # (a note of class 0 after one read here: ``_unindented`` reads it with ``_rust_head``)
    if not 0 <= start < ends[k] <= len(raw):
        raise ValueError("diag_rust_run: a line out of range")
    m = _RUST_BLOCK_RE.match(raw, start)
    if m is None or (m.group(1) == b"note" and (not locs or raw[m.start(6) : m.end(8) if m.start(8) >= 0 else m.end(7)] == locs[-1])):
        return None  # a note at the place of the one before is its detail
    return m


def diag_rust_run_py(raw: bytes, starts, ends, classes, kind: bytearray, first: int, stop: int, rust_keys: dict, key_ids: dict,
                     keys: list, path_ids: dict, paths: list):
    """(stop, heads, lasts, keys, severities, paths, messages, locs, rekeys, detailed), as ``_kernel.diag_rust_run``:
    rustc's diagnostics read from line ``first`` on (before ``stop``) as ``diagnostics._Parser._rust_head`` then
    ``_rust_details`` read each, while a line of class 4 is a head (``RUST_BLOCK_RE`` with the line after it), not a
    note unless one was read before it here and its place is not that one's (then a line of class 0 starting ``note: ``
    with no ``): ``, its ``-->`` line before ``stop``, is one too), whose rule ``rust_keys`` knows (its code, else (severity, message)): its kinds set (0 the head, 1 its -->
    line, 2 the lines of class 1, 2, 3 or 5 after it, before ``stop``), its path numbered in ``path_ids`` (appended
    to ``paths`` when new), its severity in ``key_ids`` (``keys``), a lint a ``= `` line names (``LINT_RE``) its rule
    unless its head line has a ``[`` before its first colon. The line stopped at; int32 each one's head line, last
    line, rule, severity, path and where its message starts in its head line; each one's place (bytes); int32
    pairs (which one, its rule named by a lint); 1 when the last one's details were read."""
    n = len(starts)
    if len(ends) != n or len(classes) < n or len(kind) < n or not 0 <= first <= stop <= n:
        raise ValueError("diag_rust_run: bad range or columns")
    cols, locs, rekeys, k, detailed = tuple(array("i") for _ in range(6)), [], array("i"), first, 0
    while k < stop and k + 1 < n:
        start = starts[k]
        m = _rust_run_head(raw, starts, ends, classes, k, stop, locs)
        if m is None:
            break
        code = m.group(2) or m.group(4)
        severity = (m.group(1) or b"").decode() or "error"
        key = rust_keys.get(code or (severity, m.group(3)))
        if key is None:
            break
        severity_n, path_n = _intern(key_ids, keys, severity), _intern(path_ids, paths, m.group(6))
        locs.append(raw[m.start(6) : m.end(8) if m.start(8) >= 0 else m.end(7)])
        kind[k], kind[k + 1], detailed, last = 0, 1, 0, k + 1
        if k + 2 < n and (1 <= classes[k + 2] <= 3 or classes[k + 2] == 5):
            last, detailed = _rust_details(raw, starts, ends, classes, kind, k, stop, key_ids, keys, rekeys, len(locs) - 1), 1
        for column, value in zip(cols, (k, last, key, severity_n, path_n, (m.start(3) if m.start(3) >= 0 else m.start(5)) - start)):
            column.append(value)
        k = last + 1 if detailed else k + 2
    return (k, *(column.tobytes() for column in cols), locs, rekeys.tobytes(), detailed)
