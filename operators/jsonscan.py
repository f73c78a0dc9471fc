"""Position-aware JSON scanning over bytes, without recursion.

The JSON reducer never re-serialises anything: it works on byte spans of the raw input. This module
finds those spans.

* ``container_ends`` — a quick pass that pairs every ``{``/``[`` with its closing bracket (strings are
  skipped inside the regex engine, so only brackets cost Python work). It fills ``Ends``:
  ``open position -> end position (exclusive)``.
* ``scan_level`` — the exact tokenizer for the *direct* children of one container: object members as
  ``(key_start, key_end, value_start, value_end)`` and array elements as ``(-1, -1, value_start,
  value_end)``. Nested containers are jumped over with the dict, so a document is tokenised about once
  however deep it nests (10,000 levels are fine: nothing here recurses).
* ``top_level`` — the top-level values of a document: one value, or a sequence of values (NDJSON: one
  per line). A broken NDJSON line becomes a ``BAD`` segment and scanning resumes on the next line; a
  broken single document yields its parsed prefix (value end ``-1``) and the rest is left alone.
* ``iter_spans`` — every value, member and element with its byte span, in document order.
* ``is_valid_json`` — a strict, iterative validator (the classifier uses it when msgspec refuses a
  document: very deep nesting; escaped lone surrogates, which the grammar allows).

Spans are half-open ``[start, end)``; key spans include the quotes, never the colon.
"""

from __future__ import annotations

import codecs
import re
from array import array
from bisect import bisect_left
from typing import Iterator

from operators.kernel import pair_brackets  # the C kernel's, or its pure-Python twin

BOM = b"\xef\xbb\xbf"
BAD = -2  # key_start of a top-level segment that did not parse (kept verbatim by the reducer)

_ESCAPE = rb'["\\/bfnrt]|u[0-9a-fA-F]{4}'
# strict: a \u escape of a UTF-16 surrogate must be a well-formed pair (msgspec agrees)
_ESCAPE_STRICT = rb'["\\/bfnrt]|u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|u(?![dD][89a-fA-F])[0-9a-fA-F]{4}'


def _token_re(escape: bytes) -> re.Pattern:
    string = rb'"[^"\\\x00-\x1f]*+(?:\\(?:' + escape + rb')[^"\\\x00-\x1f]*+)*+"'
    return re.compile(
        rb"[ \t\r\n]*+(?:(" + string + rb")([ \t\r\n]*+:)?"  # 1 string, 2 ... followed by a colon: a key
        rb"|(-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][+-]?[0-9]++)?)"  # 3 number
        rb"|(true|false|null)"  # 4
        rb"|([\[{])"  # 5
        rb"|([\]}])"  # 6
        rb"|(,)"  # 7
        rb"|(.))",  # 8 anything else is an error
        re.S,
    )


# One token, with the whitespace in front of it. lastindex tells the kind:
T_STRING, T_KEY, T_NUMBER, T_LITERAL, T_OPEN, T_CLOSE, T_COMMA, T_ERROR = 1, 2, 3, 4, 5, 6, 7, 8  # the order matters: ranges are tested
TOKEN = _token_re(_ESCAPE)  # lenient about lone surrogates: the reducer copes with them
STRICT_TOKEN = _token_re(_ESCAPE_STRICT)

_OPEN_OBJ, _OPEN_ARR, _CLOSE_OBJ, _CLOSE_ARR = 0x7B, 0x5B, 0x7D, 0x5D

# A flat array of numbers/literals (no strings, no containers) is split in C instead of tokenised.
_SCALAR = rb"(?:-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][+-]?[0-9]++)?|true|false|null)"
_FLAT = re.compile(rb"[ \t\r\n]*+(?:" + _SCALAR + rb"[ \t\r\n]*+(?:,[ \t\r\n]*+" + _SCALAR + rb"[ \t\r\n]*+)*+)?")
FLAT_MIN = 4096  # bytes from which an array is worth trying the flat path


class Ends:
    """Where each container ends: ``open position -> end (exclusive)``, 8 bytes a container (16 past 2 GiB).

    Two parallel arrays in order of the opening bracket (the scans only ever move forward), looked
    up by bisection: a dict of a few hundred thousand ints would cost far more memory than the input.
    """

    __slots__ = ("opens", "closes")

    def __init__(self, size: int = 1 << 62) -> None:
        typecode = "i" if size < 1 << 31 else "q"  # int32 offsets for inputs under 2 GiB: half the memory
        self.opens = array(typecode)
        self.closes = array(typecode)

    def get(self, pos: int, default=None):
        opens = self.opens
        i = bisect_left(opens, pos)
        if i < len(opens) and opens[i] == pos:
            end = self.closes[i]
            if end >= 0:
                return end
        return default

    def __len__(self) -> int:
        return len(self.opens)


def container_ends(raw: bytes, start: int, stop: int, ends: Ends) -> int:
    """Pair the brackets of the container opening at ``start`` (searching before ``stop``).

    Records the end of every container closed on the way in ``ends`` and returns the end of the one
    at ``start``, or -1 when it does not close (truncated, mismatched bracket, stray string). The
    pairing runs in the C kernel when it is built (``_kernel.pair_brackets``), else in its twin
    ``operators.kernel.json_twins.container_ends_py``: the same results, the tests check.
    """
    opens = ends.opens
    if opens and opens[-1] >= start:  # scanned already (never twice: the arrays stay sorted)
        end = ends.get(start)
        return -1 if end is None else end
    return pair_brackets(raw, start, stop, ends)


class Entries:
    """The entries of one container level, ``(key_start, key_end, value_start, value_end)`` each, kept
    in four int columns (16 bytes an entry for inputs under 2 GiB, 32 past that, instead of about 140
    for a tuple and its ints: a big array has one per element, NDJSON one per line). Read like a list
    of tuples; ``append`` takes such a tuple. ``size``: the length of the input the offsets point into."""

    __slots__ = ("ks", "ke", "vs", "ve")

    def __init__(self, size: int = 1 << 62) -> None:
        typecode = "i" if size < 1 << 31 else "q"
        self.ks, self.ke, self.vs, self.ve = array(typecode), array(typecode), array(typecode), array(typecode)

    def append(self, entry: tuple[int, int, int, int]) -> None:
        ks, ke, vs, ve = entry
        self.ks.append(ks)
        self.ke.append(ke)
        self.vs.append(vs)
        self.ve.append(ve)

    def __len__(self) -> int:
        return len(self.vs)

    def __getitem__(self, i: int) -> tuple[int, int, int, int]:
        return self.ks[i], self.ke[i], self.vs[i], self.ve[i]

    def __iter__(self):
        return zip(self.ks, self.ke, self.vs, self.ve)

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def __repr__(self) -> str:
        return f"Entries({list(self)!r})"


def scan_level(raw: bytes, start: int, ends: Ends) -> tuple[Entries, int | None]:
    """The direct children of the container opening at ``start``, and the error position (or None).

    A nested container whose end is unknown is the last entry, with value end -1 (incomplete).
    """
    is_obj = raw[start] == _OPEN_OBJ
    flat = None if is_obj else _big_flat_array(raw, start, ends)
    if flat is not None:
        return flat, None
    close = _CLOSE_OBJ if is_obj else _CLOSE_ARR
    match = TOKEN.match
    entries = Entries(len(raw))
    append = entries.append
    pos = start + 1
    ks = ke = -1
    # states: 0 = first (key/value or close), 1 = key needed, 2 = value needed, 3 = after a value
    state = 0
    # raw[m.end() - 1], a token's last byte, is ']' or '}' only for that closing bracket (a string ends
    # with '"', a key with ':'; the error alternative comes after the brackets')
    while True:
        m = match(raw, pos)
        if m is None:
            return entries, len(raw)
        t = m.lastindex
        if state == 3:
            if t == T_COMMA:
                state = 1 if is_obj else 2
                pos = m.end()
                continue
            return entries, (None if raw[m.end() - 1] == close else m.start(t))
        if is_obj and state != 2:
            if t == T_KEY:
                ks, ke = m.start(1), m.end(1)
                state = 2
                pos = m.end()
                continue
            if state == 0 and raw[m.end() - 1] == close:
                return entries, None
            return entries, m.start(t)
        # a value is expected (object after a key, or array)
        if t == T_STRING:
            append((ks, ke, m.start(1), m.end(1)))
        elif T_NUMBER <= t <= T_LITERAL:
            append((ks, ke, m.start(t), m.end(t)))
        elif t == T_OPEN:
            vs = m.start(t)
            ve = ends.get(vs)
            if ve is None:
                append((ks, ke, vs, -1))
                return entries, vs
            append((ks, ke, vs, ve))
            pos = ve
            state = 3
            continue
        elif state == 0 and raw[m.end() - 1] == close:
            return entries, None
        else:
            return entries, m.start(t)
        pos = m.end()
        state = 3


def _big_flat_array(raw: bytes, start: int, ends: Ends) -> Entries | None:
    """The elements of the array opening at ``start`` when it is long (over ``FLAT_MIN`` bytes) and flat
    (numbers and literals only), split without the tokenizer; else None."""
    end = ends.get(start, -1)
    if end - start > FLAT_MIN:
        return _flat_elements(raw, start, end)
    return None


def _flat_elements(raw: bytes, start: int, end: int) -> Entries | None:
    lo, hi = start + 1, end - 1
    # the regex stops at the first string or bracket: never a scan of the whole span per nesting level
    # (a search for '"' here made `[[[…]]]` quadratic in its depth)
    if _FLAT.fullmatch(raw, lo, hi) is None:
        return None
    pieces = raw[lo:hi].split(b",")
    if len(pieces) == 1 and not pieces[0].strip():
        return Entries(len(raw))
    lengths = list(map(len, pieces))
    lstripped = map(len, map(bytes.lstrip, pieces))
    stripped = map(len, map(bytes.strip, pieces))
    out = Entries(len(raw))
    append = out.append
    pos = lo
    for length, rest, size in zip(lengths, lstripped, stripped):
        vs = pos + length - rest
        append((-1, -1, vs, vs + size))
        pos += length + 1
    return out


def top_level(raw: bytes, start: int, ends: Ends) -> tuple[Entries, bool]:
    """Top-level entries ``(-1, -1, vs, ve)`` (``(BAD, BAD, s, e)`` for a broken NDJSON line) and
    whether the input is a sequence of one-line values (NDJSON). In int64 columns: NDJSON has an
    entry a line."""
    n = len(raw)
    match = TOKEN.match
    items = Entries(n)
    ndjson = False
    pos = start
    while True:
        m = match(raw, pos)
        if m is None:
            break
        t = m.lastindex
        s = m.start(t)
        if t == T_STRING or t == T_NUMBER or t == T_LITERAL:
            e = m.end(t)
        elif t == T_OPEN:
            stop = n
            if ndjson:
                le = raw.find(b"\n", s)
                stop = n if le < 0 else le
            e = container_ends(raw, s, stop, ends)
            if e < 0:
                if ndjson:
                    items.append((BAD, BAD, s, stop))
                    pos = stop
                    continue
                items.append((-1, -1, s, -1))  # a broken document: reduce what parsed
                break
        else:
            if ndjson:
                le = raw.find(b"\n", s)
                le = n if le < 0 else le
                items.append((BAD, BAD, s, le))
                pos = le
                continue
            break  # garbage after (or instead of) a value: left as it is
        items.append((-1, -1, s, e))
        pos = e
        if len(items) == 1 and raw.find(b"\n", s, e) < 0 and match(raw, e) is not None:
            ndjson = True  # a one-line value followed by more: one value per line
    return items, ndjson


def iter_spans(raw: bytes) -> Iterator[tuple]:
    """Every span in document order: ``("value", vs, ve)`` for a top-level value, ``("member", ks, ke,
    vs, ve)`` for an object member, ``("element", vs, ve)`` for an array element. Iterative; stops
    quietly where the input stops parsing (value end -1 for an incomplete container)."""
    start = len(BOM) if raw.startswith(BOM) else 0
    ends = Ends()
    items, _ = top_level(raw, start, ends)
    stack: list[Iterator] = []
    for _, _, vs, ve in (item for item in items if item[0] != BAD):
        yield ("value", vs, ve)
        if raw[vs] in (_OPEN_OBJ, _OPEN_ARR):
            stack.append(iter(scan_level(raw, vs, ends)[0]))
        while stack:
            entry = next(stack[-1], None)
            if entry is None:
                stack.pop()
                continue
            ks, ke, cvs, cve = entry
            yield ("member", ks, ke, cvs, cve) if ks >= 0 else ("element", cvs, cve)
            if raw[cvs] in (_OPEN_OBJ, _OPEN_ARR):
                stack.append(iter(scan_level(raw, cvs, ends)[0]))


def is_json_prefix(raw: bytes, lines_min: int = 3) -> bool:
    """Whether ``raw`` is a JSON document cut short (``head -n 300`` of a big one, a truncated download):
    a container opens at its start (after a BOM), every token is where JSON allows it, that container is
    still open where ``raw`` ends, and only its last line may stop inside a token; ``lines_min`` lines at
    least. A document that closes (then something follows it) is not one; nor is one whose first bad token
    comes before its last line (``[2024-05-01 10:00:00] ERROR …``, ``[link](url)``)."""
    start = len(BOM) if raw.startswith(BOM) else 0
    m = TOKEN.match(raw, start)
    if m is None or m.lastindex != T_OPEN:
        return False
    _, depth, stop = _walk(raw, start, TOKEN.match, False)
    if stop == -1:
        return depth > 0 and raw.count(b"\n", start) >= lines_min
    return stop >= 0 and raw.find(b"\n", stop) < 0 and raw.count(b"\n", start, stop) >= lines_min


_OUT_OF_PLACE = -2  # ``_walk`` stopped at a token where JSON does not allow it (or, a prefix, at the close)


def _walk(raw: bytes, pos: int, match, whole: bool) -> tuple[int, int, int]:
    """The token walk of ``is_valid_json`` (``whole``: one document and nothing after it; runs of brackets
    taken at once) and ``is_json_prefix`` (it stops as soon as the first container closes). Returns the
    state after the last token (0 value, 1 value or ']', 2 key or '}', 3 key, 4 after a value), how many
    containers are left open, and where it stopped: -1 at the end, the start of a token no JSON has (a cut
    one), or ``_OUT_OF_PLACE``."""
    stack = bytearray()  # open brackets
    state = 0
    # raw[pos - 1], the token's last byte, is ']' or '}' only for that closing bracket (a string ends
    # with '"', a key with ':'; the error alternative comes after the brackets')
    while True:
        m = match(raw, pos)
        if m is None:
            return state, len(stack), -1
        pos = m.end()
        t = m.lastindex
        if T_OPEN <= t <= T_CLOSE and whole:
            run = _bracket_run(raw, m, stack, state)
            if run:  # a run of '[' (or of ']' closing only arrays) taken at once: `[[[[…]]]]` costs no loop per level
                pos, state = run
                continue
        if t == T_ERROR:
            return state, len(stack), m.start(T_ERROR)
        if state == 4:
            if not stack:
                return state, 0, _OUT_OF_PLACE  # more than one top-level value
            if t == T_COMMA:
                state = 3 if stack[-1] == _OPEN_OBJ else 0
            elif raw[pos - 1] == stack[-1] + 2:  # '{'+2 == '}', '['+2 == ']'
                stack.pop()
            else:
                return state, len(stack), _OUT_OF_PLACE
        elif state >= 2:
            if t == T_KEY:
                state = 0
            elif state == 2 and raw[pos - 1] == _CLOSE_OBJ:
                stack.pop()
                state = 4
            else:
                return state, len(stack), _OUT_OF_PLACE
        elif t == T_STRING or T_NUMBER <= t <= T_LITERAL:
            state = 4
        elif t == T_OPEN:
            c = raw[m.start(t)]
            stack.append(c)
            state = 2 if c == _OPEN_OBJ else 1
        elif state == 1 and raw[pos - 1] == _CLOSE_ARR:
            stack.pop()
            state = 4
        else:
            return state, len(stack), _OUT_OF_PLACE
        if not stack and not whole:
            return state, 0, _OUT_OF_PLACE  # the document closed: whole (``is_valid_json``'s case) or with more after it


def _is_utf8(raw: bytes) -> bool:
    if raw.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for i in range(0, len(raw), 1 << 20):  # in slices: never a str the size of the input
            decoder.decode(raw[i : i + (1 << 20)])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


_OPENS = re.compile(rb"[\[ \t\r\n]*+")  # one character class: the engine keeps no state per repetition
_CLOSES = re.compile(rb"[\] \t\r\n]*+")


def _bracket_run(raw: bytes, m: re.Match, stack: bytearray, state: int) -> tuple[int, int] | None:
    """For ``is_valid_json``: when the bracket token ``m`` starts a run of two or more ``[`` (where a value
    may stand) or ``]`` (each closing an array), apply the whole run to ``stack`` and return the position
    after it and the new state; else None (the token is handled as usual)."""
    p = m.start(T_OPEN if m.lastindex == T_OPEN else T_CLOSE)
    c = raw[p]
    if c == _OPEN_ARR and state <= 1:
        run = _OPENS.match(raw, p)
        n = raw.count(b"[", p, run.end())
        if n < 2:
            return None
        stack += b"[" * n
        return run.end(), 1
    if c == _CLOSE_ARR and (state == 4 or state == 1):
        run = _CLOSES.match(raw, p)
        n = raw.count(b"]", p, run.end())
        if n < 2 or n > len(stack) or stack.count(b"{", len(stack) - n):
            return None
        del stack[len(stack) - n :]
        return run.end(), 4
    return None


def _brackets_close(raw: bytes, start: int) -> bool:
    """For ``is_valid_json``, brackets first (a truncated document fails fast): False when the document
    opens a container that does not close, or has more after it; True otherwise (even when it does not
    open a container: the token walk decides)."""
    m = TOKEN.match(raw, start)
    if m is None or m.lastindex != T_OPEN:
        return True
    end = container_ends(raw, m.start(T_OPEN), len(raw), Ends(len(raw)))
    return end >= 0 and TOKEN.match(raw, end) is None


def is_valid_json(raw: bytes, surrogates: bool = False) -> bool:
    """Strict RFC 8259 check (a leading UTF-8 BOM is tolerated), at any nesting depth. An escaped lone
    UTF-16 surrogate (grammatical, but msgspec refuses it) is accepted only with ``surrogates``."""
    start = len(BOM) if raw.startswith(BOM) else 0
    if not _is_utf8(raw) or not _brackets_close(raw, start):
        return False
    state, depth, stop = _walk(raw, start, (TOKEN if surrogates else STRICT_TOKEN).match, True)
    return stop == -1 and state == 4 and not depth
