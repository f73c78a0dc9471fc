"""The pure-Python twins of the log kernel functions (``_kernel.c``): the same results, slower.

``operators.kernel`` dispatches each function to the C kernel when it is built, else to its twin
here; ``tests/test_kernel.py`` checks both agree wherever the kernel is built. What each function
computes is described on its twin (the log reducer, ``operators.types.log``, says how it is used).
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate, islice, repeat
from operator import add, methodcaller

from operators.vocab import COUNT_RE, DIGITS_TO_ZERO, NUMBERS_RE, STATUS_RE

# hex numbers; uuid-like runs of 4+ hex groups joined by "-" (one of them holding a digit: a group of
# letters only, like "beef", must not keep a uuid apart); hex words holding a digit, also right after
# "_" (ids like req_7f3a2b, user_42ab); digit runs
MASK_RE = re.compile(
    rb"0[xX][0-9a-fA-F]++"
    rb"|(?<![0-9A-Za-z])(?=[0-9a-fA-F-]*\d)[0-9a-fA-F]++(?:-[0-9a-fA-F]++){3,}+(?![0-9A-Za-z])"
    rb"|(?<![0-9A-Za-z])[a-fA-F]*+\d[0-9a-fA-F]*+\b"
    rb"|\d+"
)
IDENT_INSIDE_RE = re.compile(rb"[:/=@].")  # package:arch, paths, key=value, user@host
SHAPE_BLOCK = 4 << 20  # bytes of input shaped at a time


def scan_lines_py(raw: bytes, mask: bool) -> tuple[array, array, bytes, array, array]:
    """Pure-Python twin of ``_kernel.scan``: line starts, each line's shape id, the shapes (each
    followed by a newline, in order of first appearance), where each shape ends, their counts.

    A shape is a line without its ``\\n``; with ``mask``, every run of digits is a single ``0``. Worked in
    blocks cut at newlines: memory grows with the distinct shapes plus an id and an offset per line.
    """
    ids_of: dict[bytes, int] = {}
    ids = array("i")
    starts = array("q", [0])
    pos, size = 0, len(raw)
    while pos < size:
        cut = raw.find(b"\n", min(pos + SHAPE_BLOCK, size) - 1)
        end = size if cut == -1 else cut + 1
        block = raw[pos:end]
        lines = (block.translate(DIGITS_TO_ZERO) if mask else block).split(b"\n")  # same lengths as raw
        if lines[-1] == b"":
            lines.pop()  # the block ends with a newline: no partial last line
        starts.extend(islice(accumulate(map(add, map(len, lines), repeat(1)), initial=starts[-1]), 1, None))
        if mask:
            collapsed = {line: _collapse_zeros(line) for line in set(lines)}
            lines = map(collapsed.__getitem__, lines)
        ids.extend(ids_of.setdefault(shape, len(ids_of)) for shape in lines)
        pos = end
    if starts[-1] > size:
        starts[-1] = size  # the last line has no newline
    counts = array("q", bytes(8 * len(ids_of)))
    for shape_id in ids:
        counts[shape_id] += 1
    shape_ends = array("q", accumulate(map(add, map(len, ids_of), repeat(1))))
    return starts, ids, b"".join(shape + b"\n" for shape in ids_of), shape_ends, counts


def select_py(ids, template_of, frequent: bytes, verbatim) -> array:
    """Pure-Python twin of ``_kernel.select``: the visible line indexes (see ``reduce_log``)."""
    verbatim = set(verbatim)
    seen: set[int] = set()
    visible = array("q")
    for i, shape_id in enumerate(ids):
        if i in verbatim:
            visible.append(i)
            continue
        template = template_of[shape_id]
        if not frequent[template] or template not in seen:
            seen.add(template)
            visible.append(i)
    return visible


def lines_with_py(ids, flags) -> array:
    """Pure-Python twin of ``_kernel.lines_with``: the lines whose shape is flagged."""
    return array("q", [i for i, shape_id in enumerate(ids) if flags[shape_id]])


def status_lines_py(raw: bytes, starts, lines) -> array:
    """Pure-Python twin of ``_kernel.status_lines``: the lines holding ``" 4xx `` or ``" 5xx ``."""
    return array("q", [i for i in lines if STATUS_RE.search(raw, starts[i], starts[i + 1])])



def mark_rare_py(counts, template_of, totals, fold_min: int, modes: bytearray, mode: int) -> int:
    """Pure-Python twin of ``_kernel.mark_rare``: ``modes[s] = mode`` for every shape with lines whose
    template (``template_of[s]``, or the shape itself when None) has fewer than ``fold_min`` lines."""
    marked = 0
    for s, count in enumerate(counts):
        if count and totals[s if template_of is None else template_of[s]] < fold_min:
            modes[s] = mode
            marked += 1
    return marked



def group_shapes_py(shape_data: bytes, shape_ends, modes: bytes, counts, prev_ids=None, prev_names=None, classes=None):
    """Pure-Python twin of ``_kernel.group_shapes``: ``group_py`` over one key per shape (mode 0: the
    shape, 1: ``_masked_key``, 2: ``_word_key``; with an earlier grouping, a shape not of mode 2
    keeps its earlier key). ``classes`` (``id_classes_py``'s, the kernel's ``group_classed``) changes
    nothing: a shape's mask is its class's (each key is made here all the same)."""
    keys, start = [], 0
    for i, (end, mode) in enumerate(zip(shape_ends, modes)):
        if prev_names is not None and mode != 2:
            keys.append(prev_names[prev_ids[i]])
        else:
            shape = shape_data[start : end - 1]
            keys.append(shape if mode == 0 else _masked_key(shape) if mode == 1 else _word_key(shape))
        start = end
    return group_py(keys, counts)



# a run of hex digits that no letter or digit precedes, or a \x01 (``id_key_py``)
ID_RUN_RE = re.compile(rb"(?<![0-9A-Za-z])[0-9a-f]+|\x01")
WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def id_key_py(shape: bytes) -> bytes:
    """Pure-Python twin of the kernel's ``id_key_run``: the shape's id class key. An id run (a run of
    [0-9a-f] holding a decimal digit, two bytes or more, that no letter or digit precedes and no word
    character follows) becomes ``\x01`` and a byte: 0x40, | 1 or 2 whether its first byte is a digit
    or not where ``code`` or ``status`` (any case), ``[ =:]*`` and an optional ``-`` come right before
    it, | 4 or 8 whether its last byte is a digit or not where a ``:`` follows; a ``\x01`` is ``\x01\x00``."""
    out, at = [], 0
    for match in ID_RUN_RE.finditer(shape):
        i, j = match.span()
        out.append(shape[at:i])
        run = shape[i:j]
        if run == b"\x01":
            out.append(b"\x01\x00")
        elif len(run) >= 2 and any(48 <= c <= 57 for c in run) and (j == len(shape) or shape[j] not in WORD_BYTES):
            what, b = 0x40, i
            if b and shape[b - 1] == 45:  # -
                b -= 1
            while b and shape[b - 1] in b" =:":
                b -= 1
            head = shape[max(0, b - 6) : b].lower()
            if head.endswith((b"code", b"status")):
                what |= 1 if run[0] <= 57 else 2
            if j < len(shape) and shape[j] == 58:  # :
                what |= 4 if run[-1] <= 57 else 8
            out.append(bytes((1, what)))
        else:
            out.append(run)
        at = j
    out.append(shape[at:])
    return b"".join(out)


def id_classes_py(shape_data: bytes, shape_ends, check_at: int):
    """Pure-Python twin of ``_kernel.id_classes``: each shape's id class (``id_key_py``), numbered in
    order of first appearance, the first shape of each class joined (each with its newline) and where
    each ends; None when, after ``check_at`` shapes, more than half of them began a class."""
    number: dict[bytes, int] = {}
    classes, reps, start = array("i"), [], 0
    for i, end in enumerate(shape_ends):
        if end - 1 < start or end - 1 >= len(shape_data) or shape_data[end - 1] != 10:
            raise ValueError("shape_ends do not fit shape_data")
        c = number.setdefault(id_key_py(shape_data[start : end - 1]), len(number))
        if c == len(reps):
            reps.append((start, end))
        classes.append(c)
        start = end
        if i + 1 == check_at and len(number) * 2 > check_at:
            return None
    return classes, b"".join(shape_data[a:b] for a, b in reps), array("q", accumulate(b - a for a, b in reps))


def group_py(keys: list[bytes], counts) -> tuple[array, list[bytes], array]:
    """Each key's group number (in order of first appearance),
    each group's key, and the sum of ``counts`` per group."""
    number: dict[bytes, int] = {}
    ids = array("i", [number.setdefault(key, len(number)) for key in keys])
    totals = array("q", bytes(8 * len(number)))
    for i, count in zip(ids, counts):
        totals[i] += count
    return ids, list(number), totals


def mask_py(shape: bytes) -> bytes:
    """Pure-Python twin of ``_kernel.mask``: hex numbers, hex words holding a digit (also right after
    an ``_``) and digit runs → ``#``."""
    return MASK_RE.sub(b"#", shape)


def mask_numbers_py(text: bytes) -> bytes:
    """Pure-Python twin of ``_kernel.mask_numbers``: uuids, hex ids of 8 to 64 digits holding a decimal
    digit and digit runs → ``#`` (``vocab.NUMBERS_RE``: what varies between the lines of a signal template)."""
    return NUMBERS_RE.sub(b"#", text)


_BODY_NL, _BODY_CR = methodcaller("removesuffix", b"\n"), methodcaller("removesuffix", b"\r")


def _spans_ok(what: str, starts, ends, size: int) -> tuple[list, list]:
    """``starts``/``ends`` as lists, when they are spans of one count each inside ``[0, size]`` (the
    kernel's ``spans_ok``); else the kernel's ValueError."""
    starts, ends = list(starts), list(ends)
    if len(starts) != len(ends):
        raise ValueError(f"{what}: starts and ends must be int64 arrays of one length")
    if any(a < 0 or a > b or b > size for a, b in zip(starts, ends)):
        raise ValueError(f"{what}: a span out of the buffer")
    return starts, ends


def first_equal_py(buf: bytes, starts, ends, digits_alike: bool = False, body: bool = False,
                   rstrip: bool = False) -> array:
    """Pure-Python twin of ``_kernel.first_equal``: for each span ``buf[starts[k]:ends[k]]``, the index
    of the first span of equal bytes, as int64; ``digits_alike``: any digit equals any other (each
    made ``0``); ``body``: a span's end left out when it is ``\n``, then ``\r`` (``line_body_end``);
    ``rstrip``: its trailing whitespace left out (``bytes.rstrip``)."""
    starts, ends = _spans_ok("first_equal", starts, ends, len(buf))
    keys = map(buf.__getitem__, map(slice, starts, ends))
    if body:
        keys = map(_BODY_CR, map(_BODY_NL, keys))
    if rstrip:
        keys = map(bytes.rstrip, keys)
    if digits_alike:
        keys = map(methodcaller("translate", DIGITS_TO_ZERO), keys)
    first: dict[bytes, int] = {}
    return array("q", map(first.setdefault, keys, range(len(starts))))


def first_template_py(buf: bytes, starts, ends) -> array:
    """Pure-Python twin of ``_kernel.first_template``: for each span ``buf[starts[k]:ends[k]]`` (a line,
    no newline), the index of the first span of the same template (``operators.signals.templates``: its
    count left out, ``mask_numbers``, trailing whitespace left out), as int64."""
    starts, ends = _spans_ok("first_template", starts, ends, len(buf))
    joined = b"\n".join(map(buf.__getitem__, map(slice, starts, ends)))
    keys = map(bytes.rstrip, NUMBERS_RE.sub(b"#", COUNT_RE.sub(b"", joined)).split(b"\n")) if starts else ()
    first: dict[bytes, int] = {}
    return array("q", map(first.setdefault, keys, range(len(starts))))


def template_groups_py(buf: bytes, starts, order, last_nl: bool) -> tuple[array, array, array, array]:
    """Pure-Python twin of ``_kernel.template_groups``: the lines ``order`` names (``starts``: where each
    line starts, then the end; a line ends before its newline, the last one at the end when ``last_nl`` is
    false) grouped by template as ``first_template_py`` groups them, the groups numbered in order of their
    first line in ``order``: the group of each line (int32, -1 for a line ``order`` does not name), the
    lines of each group in the order of ``order``, one group after another (int32), where each group's
    lines begin in that, then their end (int64), and the start and end of each group's first line (by
    place) and of its last (int64, four a group)."""
    n = len(starts) - 1
    if any(not 0 <= i < n for i in order):
        raise ValueError("template_groups: a line index out of range")
    ends = [starts[i + 1] - (1 if i + 1 < n or last_nl else 0) for i in order]
    first = first_template_py(buf, [starts[i] for i in order], ends)
    number: dict[int, int] = {}
    group_of = [number.setdefault(f, len(number)) for f in first]
    of_line = array("i", [-1]) * n
    members: list[list[int]] = [[] for _ in number]
    for i, g in zip(order, group_of):
        of_line[i] = g
        members[g].append(i)
    flat, bounds, spans = array("i"), array("q", [0]), array("q")
    end = lambda i: starts[i + 1] - (1 if i + 1 < n or last_nl else 0)  # noqa: E731
    for lines in members:
        flat.extend(lines)
        bounds.append(len(flat))
        low, high = min(lines), max(lines)
        spans.extend((starts[low], end(low), starts[high], end(high)))
    return of_line, flat, bounds, spans


def equal_groups_py(buf: bytes, starts, lines, digits_alike: bool) -> tuple[array, array]:
    """Pure-Python twin of ``_kernel.equal_groups``: the lines ``lines`` names (``starts``: where each
    line starts, then the end), each without its newline, then without a ``\r`` (``first_equal_py``'s
    ``body``), grouped by equal bytes (``digits_alike``: any digit equal to any other): the group of each
    (int32, numbered in order of first appearance) and the place in ``lines`` of each group's first (int64)."""
    n = len(starts) - 1
    if any(not 0 <= i < n for i in lines):
        raise ValueError("equal_groups: a line out of range")
    first = first_equal_py(buf, [starts[i] for i in lines], [starts[i + 1] for i in lines], digits_alike, True, False)
    number: dict[int, int] = {}
    groups = array("i", [number.setdefault(f, len(number)) for f in first])
    return groups, array("q", number)


def sha256_pair_py(a, b, starts, ends):
    """Pure-Python twin of ``_kernel.sha256_pair`` (the store's, not the log's): the SHA-256 digests of
    ``a`` and of ``b``'s spans ``[starts[k], ends[k])`` joined, by hashlib."""
    import hashlib

    starts, ends = _spans_ok("sha256_pair", starts, ends, len(b))
    second = hashlib.sha256()
    view = memoryview(b)
    for s, e in zip(starts, ends):
        second.update(view[s:e])
    return hashlib.sha256(a).digest(), second.digest()


def gather_py(table: bytes, ids) -> bytes:
    """Pure-Python twin of ``_kernel.gather``: ``table[id]`` of each of ``ids``, a byte each."""
    if any(not 0 <= i < len(table) for i in ids):
        raise ValueError("gather: an id out of the table")
    return bytes(map(table.__getitem__, ids))


def verbatim_lines_py(ids, firsts, stops, n: int, nshapes: int) -> tuple[array, bytes, array]:
    """Pure-Python twin of ``_kernel.verbatim_lines``: the lines of the blocks ``[firsts[k], stops[k])``
    (each below ``n``; ``ids``: the shape of each line), in order (a line of two blocks twice), a byte a
    line and one more (1 for a line of a block), and the number of those lines of each shape."""
    if len(firsts) != len(stops) or any(not 0 <= a <= b <= n for a, b in zip(firsts, stops)):
        raise ValueError("verbatim_lines: a block out of the lines")
    lines = array("q", [i for a, b in zip(firsts, stops) for i in range(a, b)])
    flags = bytearray(n + 1)
    counts = array("q", bytes(8 * nshapes))
    for i in lines:
        if not 0 <= ids[i] < nshapes:
            raise ValueError("verbatim_lines: a shape id out of range")
        flags[i] = 1
        counts[ids[i]] += 1
    return lines, bytes(flags), counts


def take_py(values, indexes) -> array:
    """Pure-Python twin of ``_kernel.take``: ``values[i]`` of each of ``indexes``, as int64."""
    if any(not 0 <= i < len(values) for i in indexes):
        raise ValueError("take: an index out of the values")
    return array("q", map(values.__getitem__, indexes))


def next_shapes_py(ids, firsts, n: int) -> array:
    """Pure-Python twin of ``_kernel.next_shapes``: the distinct shapes (``ids``: of each line) of the
    lines right after ``firsts``, those below ``n``, in order of first appearance, as int32."""
    if any(i < -1 for i in firsts) or any(ids[i + 1] < 0 for i in firsts if i + 1 < n):
        raise ValueError("next_shapes: a line index or shape id out of range")
    return array("i", dict.fromkeys(ids[i + 1] for i in firsts if i + 1 < n))


def traced_heads_py(ids, starts, firsts, n: int, flags) -> tuple[array, array]:
    """Pure-Python twin of ``_kernel.traced_heads``: the lines of ``firsts`` whose next line (below
    ``n``) is of a flagged shape (``flags``: a byte a shape) and holds more than its newline, in order;
    and each of ``firsts`` plus one (both int64)."""
    if any(i < -1 for i in firsts) or any(not 0 <= ids[i + 1] < len(flags) for i in firsts if i + 1 < n):
        raise ValueError("traced_heads: a line index or shape id out of range")
    heads = array("q", [i for i in firsts if i + 1 < n and flags[ids[i + 1]] and starts[i + 2] - starts[i + 1] > 1])
    return heads, array("q", [i + 1 for i in firsts])


def scatter_py(target, indexes, values) -> None:
    """Pure-Python twin of ``_kernel.scatter``: ``target[i] = `` the byte of ``values`` at the same place
    (or ``values``, one int 0-255, for every index) for each of ``indexes``."""
    one = values if isinstance(values, int) else None
    if one is not None and not 0 <= one <= 255:
        raise ValueError("scatter: a value out of 0-255")
    if one is None and len(values) != len(indexes):
        raise ValueError("scatter: values and indexes differ in length")
    if any(not 0 <= i < len(target) for i in indexes):
        raise ValueError("scatter: an index out of the target")
    for k, i in enumerate(indexes):
        target[i] = one if one is not None else values[k]


def release_memory_py() -> None:
    """Pure-Python twin of ``_kernel.release_memory``: nothing (the C library's allocator is out of reach)."""


def join_lines_py(buf: bytes, starts, lines) -> tuple[bytes, array]:
    """Pure-Python twin of ``_kernel.join_lines``: the lines ``lines`` names (``starts``: where each line
    starts, then the end; a line without its newline) joined by newlines, and where each begins in that,
    then one past its end (int64)."""
    n = len(starts) - 1
    if any(not 0 <= i < n for i in lines):
        raise ValueError("join_lines: a line out of range")
    texts = [buf[starts[i] : starts[i + 1]] for i in lines]
    texts = [t[:-1] if t.endswith(b"\n") else t for t in texts]
    begins = array("q", [0])
    for t in texts:
        begins.append(begins[-1] + len(t) + 1)
    return b"\n".join(texts), begins


def _masked_key(shape: bytes) -> bytes:
    return b"\x00" + mask_py(shape)  # a key space of its own


def words_py(shape: bytes) -> bytes:
    """Pure-Python twin of ``_kernel.words``: the words, every identifier-like token (a digit, or
    ``: / = @`` inside) masked."""
    return b" ".join(b"#" if b"0" in token or IDENT_INSIDE_RE.search(token) else token for token in shape.split())


def _word_key(shape: bytes) -> bytes:
    return b"\x01" + words_py(shape)



def _collapse_zeros(shape: bytes) -> bytes:
    """Runs of ``0`` (every digit is one in a shape) become a single ``0``; faster than a regex."""
    while b"00" in shape:
        shape = shape.replace(b"00", b"0")
    return shape


def count_newlines_py(raw: bytes, start: int, end: int) -> int:
    """The newlines of ``raw[start:end]``: ``bytes.count`` (the kernel's loop is vectorised)."""
    return raw.count(b"\n", start, end)


def long_lines_py(raw: bytes, limit: int, skip) -> list[tuple[int, int]]:
    """(start, end) of every line (newline excluded) longer than ``limit`` bytes, outside the
    (start, end) regions of ``skip`` (in order): ``operators.safety.long_lines``.

    Every such line holds a whole aligned window of ``limit // 2`` bytes without a newline: one
    ``find`` per window, not one step per line."""
    step = max(limit // 2, 1)
    found: list[tuple[int, int]] = []
    size = len(raw)
    regions = iter(skip)
    region = next(regions, None)
    pos = 0
    while pos + step <= size:
        while region is not None and region[1] <= pos:
            region = next(regions, None)
        if region is not None and region[0] < pos + step:
            pos = region[1]
            continue
        if raw.find(b"\n", pos, pos + step) >= 0:
            pos += step
            continue
        start = raw.rfind(b"\n", 0, pos) + 1
        end = raw.find(b"\n", pos)
        end = size if end < 0 else end
        if end - start > limit:
            found.append((start, end))
        pos = end + 1
    return found
