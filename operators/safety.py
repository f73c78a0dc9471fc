"""Safe, bounded visible text for every content type: one generic pass over a reducer's finished plan.

``secure(plan, config)`` returns a plan whose visible text

* carries no terminal control sequence: ESC sequences (CSI, OSC such as clipboard writes and window
  titles, DCS/SOS/PM/APC, two-byte escapes), C0 controls but tab and newline (a backspace moves back
  a character and what follows overwrites it, as a terminal shows it), C1 controls (UTF-8 encoded
  U+0080–U+009F and raw 0x80–0x9f bytes outside valid UTF-8), BiDi overrides, isolates and marks, invisible format
  characters (zero-width spaces and joiners, word joiner, BOM, tag characters) and carriage-return
  overprint (only the last frame of a line with text is shown, as a terminal does). In JSON, the
  characters a string may hold (DEL, C1, BiDi, invisible ones) are shown as ``\\uXXXX`` escapes
  instead and a lone CR as a newline: the document stays valid and decodes to the same strings;
* quotes text that looks like a marker: ``#ref:ctx_…`` in the input is shown as ``#ref\\:ctx_…``
  (``\\u0023ref:ctx_…`` in JSON, which decodes to the very same string), so only real markers read
  as ``#ref:ctx_…``;
* has a ceiling for what cannot be reduced: binary content (a known magic number, or a sample full of
  control bytes) becomes one line (size, what it looks like, its first and last bytes in hex, a ref)
  and a line longer than ``long_line`` bytes (``line_cap`` for a signal line) keeps its head and tail
  around ``[N bytes cut: #ref:…]`` — unless the input fits its output ceiling whole (``whole``: a
  budget, or the host's view of an input it shows whole) or the reducer's plan fits its budget as
  it is, when no line is cut for its length.

Nothing is lost: a kept span that changes becomes an omission (its original bytes go to a ref) plus
the cleaned text shown in its place, so RESTORE stays byte-exact. Cleaned lines share one ref,
announced by one line at the end: ``[terminal control sequences removed: 12; original bytes: #ref:…]``
(none in JSON when escapes were enough). Text a reducer adds (SHOW pieces) is cleaned the same way;
it is not part of the original. ``signal_parts`` tells the SIGNAL check what a signal line looks like
once shown, ``clean_text`` cleans any other text taken from the input (the level-0 overview).

Cost: when nothing needs doing (the common case) the same plan object comes back after a sampled
binary check, a windowed search for long lines (one ``bytes.find`` per ``long_line / 2`` bytes) and
one RE2 search over the input. Otherwise the work is one pass over the pieces and one RE2 search per
dirty region (a region spans at least ``CHUNK`` bytes of whole lines): never a Python loop per byte.
"""

from __future__ import annotations

import re
from itertools import compress
from typing import Annotated

import msgspec

from operators import secrets
from operators.reduction import KEEP, MARK, OMIT, SHOW, Pieces, Plan
from operators.kept import KeptFor  # a large input's binary regions kept for SIGNAL
from operators.relazy import NO_SPAN, re2_program
from operators.vocab import latin1_re2, overstrike

CHUNK = 4096  # a dirty region extends to at least this many bytes (whole lines): few regions on dense escapes
WINDOW, SAMPLE = 1 << 16, 8192  # binary check: the first SAMPLE bytes of every WINDOW bytes
CONTROLS, CONTROLS_REASON = "safety:controls", "original bytes of lines shown without terminal controls"
CUT_REASON, BINARY_REASON = "cut from an over-long line", "binary data"
MAX_GROUPS = 64  # over-long lines and binary regions with a ref of their own; later ones share the last
_KEEP_FLAGS = bytes(kind == KEEP for kind in range(256))  # a piece's kind -> 1 for a kept span
_SHOW_FLAGS = bytes(kind == SHOW for kind in range(256))


class SafetySettings(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The ``[safety]`` config section."""

    long_line: Annotated[int, msgspec.Meta(ge=64)] = 4096  # a longer line (not a signal line) is cut
    line_cap: Annotated[int, msgspec.Meta(ge=64)] = 16384  # every longer line is cut, signal lines too
    keep_head: Annotated[int, msgspec.Meta(ge=0)] = 1024  # bytes of a cut line shown before the cut
    keep_tail: Annotated[int, msgspec.Meta(ge=0)] = 256  # ... and after it

    def __post_init__(self) -> None:
        if self.keep_head + self.keep_tail >= min(self.long_line, self.line_cap):
            raise ValueError("keep_head + keep_tail must be less than long_line and line_cap")


def settings_of(config) -> SafetySettings:
    found = getattr(config, "safety", None)
    return found if isinstance(found, SafetySettings) else SafetySettings()


# invisible or reordering characters (UTF-8): ZWSP/ZWNJ/ZWJ, LRM/RLM (U+200B-U+200F), LRE..RLO
# (U+202A-U+202E), word joiner and invisible operators (U+2060-U+2064), LRI..PDI (U+2066-U+2069),
# the Arabic letter mark (U+061C), BOM / zero-width no-break space (U+FEFF), tag characters (U+E0000-U+E007F)
_INVISIBLE = (
    rb"\xe2\x80[\x8b-\x8f\xaa-\xae]|\xe2\x81[\xa0-\xa4\xa6-\xa9]|\xd8\x9c|\xef\xbb\xbf|\xf3\xa0[\x80\x81][\x80-\xbf]"
)
_VALID_MB = (  # a valid UTF-8 multi-byte sequence
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]"
    rb"|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
MARKER_LOOKALIKE = b"#ref:ctx_"
# what may need cleaning (a superset: a region found here and left as it is costs nothing but time);
# raw C1 bytes first: their context byte (ASCII, often a control) must not be taken by another alternative
FIND_RE = latin1_re2(
    rb"(?:\A|[\x00-\x7f\xc0\xc1\xf5-\xff]|" + _VALID_MB + rb")[\x80-\xbf]*[\x80-\x9f]"
    # C1-range bytes in invalid sequences: overlong or out-of-range forms, surrogates, cut-short sequences
    rb"|\xe0[\x80-\x9f]|\xed[\xa0-\xbf][\x80-\x9f]|\xf0[\x80-\x8f]|\xf4[\x90-\x9f]|\xf4[\xa0-\xbf][\x80-\xbf]*[\x80-\x9f]"
    rb"|[\xe1-\xef][\x80-\x9f](?:[^\x80-\xbf]|\z)"
    rb"|[\xf0-\xf4](?:[\x80-\x9f]|[\x80-\xbf][\x80-\x9f]|[\x80-\x9f][\x80-\xbf])(?:[^\x80-\xbf]|\z)"
    rb"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?:[^\n]|\z)|\xc2[\x80-\x9f]|" + _INVISIBLE + rb"|#ref:ctx_"
)
# what is removed from shown text (raw C1 bytes outside UTF-8 are removed before, by decoding;
# backspaces after, each line as a terminal shows it: ``vocab.overstrike``); every alternative starts
# with a byte of its own, so sre skips to candidates instead of trying each alternative at every byte
_STRIP = (
    rb"\x1b(?:\[[0-?]*[ -/]*[@-~]?"  # CSI: colours, cursor moves, erase, ESC[6n queries (cut short too)
    rb"|[\]PX^_][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC (titles, OSC 52 clipboard), DCS, SOS, PM, APC
    rb"|[ -/]*[0-~]?)"  # two-byte and nF escapes (charset selection, ESC c reset), a lone ESC
    rb"|\xc2(?:\x9b[0-?]*[ -/]*[@-~]?"  # C1 CSI (U+009B) and its parameters
    rb"|[\x90\x98\x9d-\x9f][^\x07\x1b\n\xc2]*(?:\x07|\xc2\x9c|\x1b\\)?"  # C1 DCS/SOS/OSC/PM/APC strings
    rb"|[\x80-\x9f])"  # other C1 controls
    rb"|[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]"  # other C0 controls (not tab, newline, CR, backspace)
    rb"|" + _INVISIBLE
)
STRIP_RE = re.compile(_STRIP)  # sre: its sub runs in C (the re2 module's sub loops in Python per match)
_OVERPRINT_RE = re.compile(rb"[^\n]*\r(?!\n)[^\n]*")  # a line holding a carriage return not ending it
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))
_CONTINUATION = re.compile(rb"[\x80-\xbf]*")
_RAW_C1 = dict.fromkeys(range(0xDC80, 0xDCA0))  # raw 0x80-0x9f bytes outside UTF-8, decoded by surrogateescape


_PLAIN = bytes(range(0x20, 0x7F)) + b"\t"


class Cleaned(msgspec.Struct):
    text: bytes
    removed: int = 0  # control sequences and characters removed, hidden overprinted frames
    quoted: int = 0  # marker look-alikes quoted
    escaped: int = 0  # characters shown as JSON escapes (``\\u202e``): the JSON still decodes to the same


def _quote(kind: str) -> bytes:
    return b"\\u0023ref:ctx_" if kind == "json" else b"#ref\\:ctx_"


def clean(data: bytes, kind: str = "") -> Cleaned:
    """``data`` as the visible text shows it: overprinted frames, controls and invisible characters
    removed, marker look-alikes quoted (``kind``: the content type, ``json`` quotes the JSON way)."""
    removed = escaped = 0
    if kind == "json":
        data, escaped = _json_escape(data)
    if b"\r" in data:
        data, removed = _overprint(data)
    while True:  # again while something goes: removing a byte may join its neighbours into a new one
        data, count = _strip_once(data)
        if not count:
            break
        removed += count
    if data[:1] and 0x80 <= data[0] < 0xC0:  # cannot continue what is shown before it: stray
        rest = data.lstrip(_CONTINUATION_BYTES)
        removed, data = removed + len(data) - len(rest), rest
    quoted = data.count(MARKER_LOOKALIKE)
    if quoted:
        data = data.replace(MARKER_LOOKALIKE, _quote(kind))
    return Cleaned(data, removed, quoted, escaped)


_JSON_ESCAPABLE = re.compile(rb"\x7f|\xc2[\x80-\x9f]|" + _INVISIBLE + rb"|\r(?!\n)")
JSON_ESCAPES_MAX = 64  # in one cleaned region; more are removed instead (the visible text must not grow)


def _json_escape(data: bytes) -> tuple[bytes, int]:
    """In JSON, characters that are valid in a string but act on or hide from a terminal (DEL, C1,
    BiDi and invisible characters) become ``\\uXXXX`` escapes: the document stays valid and decodes
    to the very same strings. A lone CR becomes a newline (JSON whitespace)."""
    if len(_JSON_ESCAPABLE.findall(data)) > JSON_ESCAPES_MAX:
        return data, 0
    return _JSON_ESCAPABLE.subn(_json_escape_one, data)


def _json_escape_one(match: re.Match) -> bytes:
    char = match.group()
    if char == b"\r":
        return b"\n"
    code = ord(char.decode("utf-8"))
    if code > 0xFFFF:  # a surrogate pair
        code -= 0x10000
        return b"\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))
    return b"\\u%04x" % code


def _strip_once(data: bytes) -> tuple[bytes, int]:
    """Raw C1 bytes outside UTF-8, then escape sequences, controls and invisible characters, then
    backspaces as a terminal shows them: the bytes left and how many things went."""
    count = 0
    if not data.isascii():
        text = data.decode("utf-8", "surrogateescape")
        stripped = text.translate(_RAW_C1)
        if len(stripped) != len(text):
            count += len(text) - len(stripped)
            data = stripped.encode("utf-8", "surrogateescape")
    data, found = STRIP_RE.subn(b"", data)
    count += found
    if b"\x08" in data:
        data, found = overstrike(data)
        count += found
    return data, count


def clean_text(data: bytes, kind: str = "") -> bytes:
    """``clean(data).text`` with its secret values shown as ``[secret hidden]``: what any text derived
    from the input should be shown as."""
    return secrets.hide(clean(data, kind).text)


def _overprint(data: bytes) -> tuple[bytes, int]:
    """Each line with a carriage return that does not end it: only its last frame holding text (and
    the empty frames after it) stays, as a terminal shows it. Returns the text and the carriage
    returns removed."""
    removed = 0

    def frame(match: re.Match) -> bytes:
        nonlocal removed
        line = match.group()
        end = match.end()
        suffix = b""
        if line.endswith(b"\r") and data[end : end + 1] == b"\n":
            line, suffix = line[:-1], b"\r"  # the line ending of a CRLF line
        frames = line.split(b"\r")
        removed += len(frames) - 1
        shown = len(frames) - 1
        while shown > 0 and not overstrike(STRIP_RE.sub(b"", frames[shown]))[0].strip():
            shown -= 1
        return b"".join(frames[shown:]) + suffix

    return _OVERPRINT_RE.sub(frame, data), removed


# -- binary content ----------------------------------------------------------------------------
_CONTROL_BYTES = bytes([*range(0x00, 0x08), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x7fELF", "ELF executable"), (b"\x89PNG\r\n\x1a\n", "PNG image"), (b"\x1f\x8b", "gzip data"),
    (b"PK\x03\x04", "zip archive"), (b"PK\x05\x06", "zip archive"), (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"), (b"GIF89a", "GIF image"), (b"%PDF-", "PDF document"), (b"BZh", "bzip2 data"),
    (b"\xfd7zXZ\x00", "xz data"), (b"\x28\xb5\x2f\xfd", "zstd data"), (b"7z\xbc\xaf\x27\x1c", "7-zip archive"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"), (b"\xce\xfa\xed\xfe", "Mach-O executable"),
    (b"\xca\xfe\xba\xbe", "Java class or Mach-O universal binary"), (b"MZ", "DOS/Windows executable"),
    (b"\x00asm", "WebAssembly module"), (b"SQLite format 3\x00", "SQLite database"),
    (b"\xff\xfe", "UTF-16 text"), (b"\xfe\xff", "UTF-16 text"),
)


_WEAK_MAGIC = ("binary data", "PDF document", "UTF-16 text", "DOS/Windows executable", "bzip2 data")  # text may start so


def what_is(head: bytes) -> str:
    """What binary bytes look like, from their magic number."""
    for magic, name in MAGIC:
        if head.startswith(magic):
            return name
    if head[257:262] == b"ustar":
        return "tar archive"
    return "binary data"


def _binary_sample(sample: bytes) -> bool:
    """Text in any encoding has almost no control bytes; binary data has many, and (compressed or
    random) mostly invalid UTF-8 too, or (UTF-16, tables of numbers) NUL bytes everywhere."""
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    if controls < 8 or controls * 20 < len(sample):
        return False
    invalid = len(sample) - len(sample.decode("utf-8", "ignore").encode())
    return controls * 5 >= len(sample) or invalid * 5 >= len(sample)


REGIONS_KEPT_MIN = 1 << 20  # bytes of an input whose binary regions are kept for the next ask of it
_regions_kept = KeptFor(REGIONS_KEPT_MIN)  # the input last looked at (bytes of REGIONS_KEPT_MIN or more) and its regions


def binary_regions(raw: bytes) -> list[tuple[int, int]]:
    """The spans of ``raw`` that are binary: every window whose sample is mostly control bytes
    (adjacent ones merged); all of it when it starts with a known magic number and holds NUL bytes
    or when its first window is binary.

    The regions of a large input are kept until ``forget_regions``: asked again of that very object
    (the safety pass asks, then the SIGNAL stage of the same bytes), they are not computed twice. They
    depend on the bytes alone (immutable), whoever asked first."""
    return _regions_kept.of(raw, _binary_regions)


def forget_regions() -> None:
    """Drop the kept regions (and the reference to their input): the SIGNAL stage is done with it."""
    _regions_kept.forget()


def _binary_regions(raw: bytes) -> list[tuple[int, int]]:
    if not raw:
        return []
    head = raw[:SAMPLE]
    if _binary_sample(head) or (what_is(head) not in _WEAK_MAGIC and b"\x00" in head):
        return [(0, len(raw))]
    regions: list[tuple[int, int]] = []
    for start in range(WINDOW, len(raw), WINDOW):
        if _binary_sample(raw[start : start + SAMPLE]):
            end = min(start + WINDOW, len(raw))
            if regions and regions[-1][1] == start:
                regions[-1] = (regions[-1][0], end)
            else:
                regions.append((start, end))
    return regions


def _hex(data: bytes) -> str:
    return data.hex(" ")


def describe(raw: bytes, start: int, end: int) -> bytes:
    """The one line shown for binary bytes ``raw[start:end]``, up to the ref's marker."""
    size = end - start
    head = raw[start : start + 16]
    text = f"[binary data: {size:,} bytes, {what_is(raw[start : start + 264])}; starts {_hex(head)}"
    if size > 16:
        text += f", ends {_hex(raw[max(end - 8, start + 16) : end])}"
    return (text + "; exact bytes: ").encode()


# -- long lines --------------------------------------------------------------------------------
def long_lines(raw: bytes, limit: int, skip: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(start, end) of every line (newline excluded) longer than ``limit`` bytes, outside ``skip``.

    Every such line holds a whole aligned window of ``limit // 2`` bytes without a newline: one
    look per window, not one step per line, in the C kernel (``operators.kernel.long_lines``; its
    twin ``log_twins.long_lines_py``)."""
    from operators.kernel import long_lines as find  # loaded on first use: most types load it anyway

    return find(raw, limit, skip)


def is_signal_line(line: bytes) -> bool:
    """Whether the SIGNAL check may ask for this line: a signal line of a log, or a diff's changed line."""
    from operators.vocab import signal_line_spans

    if line[:1] in (b"+", b"-") and line[:4] not in (b"+++ ", b"--- "):
        return True
    return bool(signal_line_spans(line))


def _char_start(raw: bytes, pos: int, low: int) -> int:
    """``pos`` moved back to the start of a UTF-8 character (never below ``low``)."""
    back = pos
    while back > low and pos - back < 3 and 0x80 <= raw[back] < 0xC0:
        back -= 1
    return back if 0x80 <= raw[pos] < 0xC0 and raw[back] >= 0xC0 else pos


def cut_span(raw: bytes, start: int, end: int, settings: SafetySettings) -> tuple[int, int]:
    """The part of the line ``raw[start:end]`` that is cut out: what lies between its head and its tail."""
    head = _char_start(raw, start + settings.keep_head, start)
    tail = _char_start(raw, end - settings.keep_tail, head)
    return head, tail


def signal_parts_of(lines: list[bytes], kind: str = "") -> list[bytes]:
    """``signal_parts`` of many lines, with one secret scan for them all."""
    from bisect import bisect_right

    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    holding = {bisect_right(starts, a) - 1 for a, _ in secrets.scan(b"\n".join(lines))}
    settings = settings_of(None)  # (made once, not a line)
    return [part for i, line in enumerate(lines) if line
            for part in (signal_parts(line, kind=kind) if i in holding else _shown_parts(line, None, kind, settings))]


def signal_parts(line: bytes, config=None, kind: str = "") -> list[bytes]:
    """What the visible text shows of one input line (no newline), as the SIGNAL check should look
    for it: the cleaned line, or the cleaned head and tail of a line longer than ``line_cap``; the
    text around a secret value (hidden in the visible text) as parts of their own."""
    found = secrets.scan(line)
    if not found:
        return _shown_parts(line, config, kind)
    parts, pos = [], 0
    for a, b in [*found, (len(line), len(line))]:
        if line[pos:a].strip():
            parts += _shown_parts(line[pos:a], config, kind)
        pos = b
    return [part for part in parts if part.strip()]


SECRET_MARK_RE = re.compile(rb"\[secret hidden(?:: #ref:ctx_[0-9a-f]{6,64})?\]")


def secret_parts(shown: bytes) -> list[bytes]:
    """The parts of a shown line around its hidden secrets (what ``signal_parts`` asks for)."""
    return [part for part in SECRET_MARK_RE.split(shown) if part.strip()] if b"[secret hidden" in shown else []


def _shown_parts(line: bytes, config, kind: str, settings: SafetySettings | None = None) -> list[bytes]:
    settings = settings_of(config) if settings is None else settings
    if len(line) <= settings.line_cap:
        if not line.translate(None, _PLAIN) and MARKER_LOOKALIKE not in line:
            return [line]  # printable ASCII: shown as it is (the common case, checked at C speed)
        return [clean(line, kind).text]
    head, tail = cut_span(line, 0, len(line), settings)
    return [part for part in (clean(line[:head], kind).text.strip(), clean(line[tail:], kind).text.strip()) if part]


# -- the pass ----------------------------------------------------------------------------------
class _Builder:
    """The new plan's pieces, appended in order; consecutive shown texts are joined once."""

    def __init__(self, plan: Plan, kind: str):
        self.raw = plan.raw
        self.pieces = Pieces()
        self.reasons = dict(plan.reasons)
        self.kind = kind
        self.shown: list[bytes] = []
        self.removed = self.quoted = self.escaped = 0
        self.groups = 0
        self.tail = b""  # the last visible bytes (a look-alike must not form across two pieces)

    def _flush(self) -> None:
        if self.shown:
            self.pieces.append([SHOW, b"".join(self.shown)])
            self.shown = []

    def _join(self, head: bytes) -> None:
        """Quote a look-alike that the visible text would form where ``head`` follows what is shown."""
        tail = self.tail
        at = (tail + head[: len(MARKER_LOOKALIKE)]).find(MARKER_LOOKALIKE, max(len(tail) - len(MARKER_LOOKALIKE) + 1, 0))
        if 0 <= at < len(tail):
            self.shown.append(b"\\")  # "#re" + "\\" + "f:ctx_": no longer a marker
            self.quoted += 1
            tail = b""
        self.tail = (tail + head[-len(MARKER_LOOKALIKE):])[-len(MARKER_LOOKALIKE):] if len(head) < len(MARKER_LOOKALIKE) \
            else head[-len(MARKER_LOOKALIKE):]

    def keep(self, start: int, end: int) -> None:
        if end <= start:
            return
        self._join(self.raw[start:end] if end - start <= 2 * len(MARKER_LOOKALIKE)
                   else self.raw[start : start + len(MARKER_LOOKALIKE)] + self.raw[end - len(MARKER_LOOKALIKE) : end])
        self._flush()
        pieces = self.pieces
        if pieces.kinds and pieces.kinds[-1] == KEEP and pieces.ends[-1] == start:
            pieces.ends[-1] = end
        else:
            pieces.append([KEEP, start, end])

    def omit(self, start: int, end: int, group: str, reason: str) -> None:
        if end <= start:
            return
        self.reasons.setdefault(group, reason)
        pieces = self.pieces
        last = len(pieces) - 1
        if not self.shown and last >= 0 and pieces.kinds[last] == OMIT and pieces.ends[last] == start and pieces.objs[last] == group:
            pieces.ends[last] = end
        else:
            self._flush()
            pieces.append([OMIT, start, end, group])

    def show(self, text: bytes) -> None:
        if text:
            self._join(text if len(text) <= 2 * len(MARKER_LOOKALIKE)
                       else text[: len(MARKER_LOOKALIKE)] + text[-len(MARKER_LOOKALIKE):])
            self.shown.append(text)

    def mark(self, group: str) -> None:
        self._flush()
        self.pieces.append([MARK, group])
        self.tail = b""  # a marker ends in hex digits: nothing forms across it

    def new_group(self, prefix: str) -> str:
        self.groups += 1
        return f"safety:{prefix}:{min(self.groups, MAX_GROUPS)}"

    def show_cleaned(self, text: bytes) -> bytes:
        done = clean(text, self.kind)
        self.removed += done.removed
        self.quoted += done.quoted
        self.escaped += done.escaped
        return done.text

    def plan(self) -> Plan:
        self._flush()
        plan = Plan(self.raw)
        plan.pieces, plan.reasons = self.pieces, self.reasons
        plan._pos = len(self.raw)
        return plan


class _Pass:
    """One walk over a plan's kept spans: binary regions, over-long lines, then dirty lines."""

    def __init__(self, plan: Plan, settings: SafetySettings, kind: str,
                 binary: list[tuple[int, int]], long: list[tuple[int, int]]):
        self.raw, self.settings = plan.raw, settings
        self.out = _Builder(plan, kind)
        self.binary, self.bi, self.described = binary, 0, -1
        self.long, self.li = long, 0
        self.caps: dict[int, int] = {}
        self.found_from, self.found = -1, None  # the last search: from where, and its match

    def keep(self, start: int, end: int) -> None:
        binary = self.binary
        while self.bi < len(binary) and binary[self.bi][1] <= start:
            self.bi += 1
        i = self.bi
        while start < end and i < len(binary) and binary[i][0] < end:
            a, b = binary[i]
            self.text(start, max(start, a))
            start = max(start, a)
            stop = min(end, b)
            self.binary_part(i, start, stop)
            start = stop
            if b <= end:
                i += 1
        self.bi = i
        self.text(start, end)

    def binary_part(self, i: int, start: int, stop: int) -> None:
        out = self.out
        group = f"safety:binary:{min(i + 1, MAX_GROUPS)}"
        if self.described < i:
            self.described = i
            a, b = self.binary[i]
            if out.pieces and not _ends_line(out):
                out.show(b"\n")
            out.show(describe(self.raw, a, b))
            out.omit(start, stop, group, BINARY_REASON)
            out.mark(group)
            out.show(b"]\n")
        else:
            out.omit(start, stop, group, BINARY_REASON)

    def text(self, start: int, end: int) -> None:
        long, raw = self.long, self.raw
        while self.li < len(long) and long[self.li][1] <= start:
            self.li += 1
        i = self.li
        while start < end and i < len(long) and long[i][0] < end:
            a, b = max(long[i][0], start), min(long[i][1], end)
            if b - a > self.cap(i):
                head, tail = cut_span(raw, a, b, self.settings)
                self.clean(start, head)
                group = self.out.new_group("cut")
                self.out.show(f" \u2026 [{tail - head:,} bytes cut: ".encode())
                self.out.omit(head, tail, group, CUT_REASON)
                self.out.mark(group)
                self.out.show("] \u2026 ".encode())
                start = tail
            if long[i][1] <= end:
                i += 1
            else:
                break
        self.li = i
        self.clean(start, end)

    def cap(self, i: int) -> int:
        cap = self.caps.get(i)
        if cap is None:
            start, end = self.long[i]
            signal = is_signal_line(self.raw[start:end])
            cap = self.caps[i] = self.settings.line_cap if signal else min(self.settings.long_line, self.settings.line_cap)
        return cap

    def next_match(self, pos: int, end: int):
        """The first match that reaches into ``raw[pos:end]`` (searched with a few bytes before
        ``pos`` as context for stray continuation bytes), or None."""
        look = max(pos - 4, 0)
        while True:
            if not (0 <= self.found_from <= look and (self.found is None or self.found.start() >= look)):
                self.found_from, self.found = look, FIND_RE.search(self.raw, look)
            m = self.found
            if m is None or m.start() >= end:
                return None
            if m.end() > pos:
                return m
            look = m.end()

    def clean(self, start: int, end: int) -> None:
        raw = self.raw
        pos = start
        if start < end and 0x80 <= raw[start] < 0xC0:  # starts inside a character: its bytes are stray here
            pos = _CONTINUATION.match(raw, start, end).end()
            self.out.omit(start, pos, CONTROLS, CONTROLS_REASON)
            self.out.removed += pos - start
        while pos < end:
            m = self.next_match(pos, end)
            if m is None:
                break
            at = max(m.start(), pos)
            a = max(raw.rfind(b"\n", pos, at) + 1, pos)
            stop = min(max(m.end(), a + CHUNK), end)
            b = raw.find(b"\n", stop - 1, end)
            pos = self.region(pos, a, end if b < 0 else b + 1)
        if pos < end and raw[end - 1] == 13:  # a CR whose LF is not shown right after it: a lone CR
            pos = self.region(pos, max(raw.rfind(b"\n", pos, end) + 1, pos), end)
        cut = _char_start(raw, end, pos) if end < len(raw) else end
        if cut < end and raw[cut] >= 0xC0:  # ends inside a character: its first bytes are stray here
            self.out.keep(pos, cut)
            self.out.omit(cut, end, CONTROLS, CONTROLS_REASON)
            self.out.removed += end - cut
            return
        self.out.keep(pos, end)

    def region(self, pos: int, a: int, b: int) -> int:
        """Keep ``raw[pos:a]``, show ``raw[a:b]`` cleaned (its bytes to the ref) unless cleaning
        changes nothing; returns ``b``."""
        out = self.out
        original = self.raw[a:b]
        shown = out.show_cleaned(original)
        out.keep(pos, a)
        if shown == original:
            out.keep(a, b)
        else:
            out.omit(a, b, CONTROLS, CONTROLS_REASON)
            out.show(shown)
        return b


def _ends_line(out: _Builder) -> bool:
    """Whether what the new plan shows so far ends a line (or shows nothing)."""
    if out.shown:
        return out.shown[-1].endswith(b"\n")
    pieces = out.pieces
    for i in range(len(pieces) - 1, -1, -1):
        kind = pieces.kinds[i]
        if kind == KEEP:
            return out.raw[pieces.ends[i] - 1 : pieces.ends[i]] == b"\n"
        if kind == SHOW:
            return pieces.objs[i].endswith(b"\n")
        if kind == MARK:
            return False
    return True


def _keeps_cr_without_lf(plan: Plan) -> bool:
    """Whether a kept span ends between the CR and the LF of a CRLF (what follows it is not the LF)."""
    raw, pieces = plan.raw, plan.pieces
    return any(kind == KEEP and raw[end - 1] == 13 for kind, end in zip(pieces.kinds, pieces.ends))


def _cuts_a_character(plan: Plan) -> bool:
    """Whether a kept span starts or ends inside a UTF-8 character (its bytes would be stray)."""
    raw, pieces = plan.raw, plan.pieces
    size = len(raw)
    return any(kind == KEEP and (0x80 <= raw[start] < 0xC0 or (end < size and 0x80 <= raw[end] < 0xC0))
               for kind, start, end in zip(pieces.kinds, pieces.starts, pieces.ends))


def kept_bytes(plan: Plan) -> int:
    """How many raw bytes the plan keeps (the size of its ``kept_spans``), added up without a Python
    step a piece."""
    pieces = plan.pieces
    keeps = pieces.kinds.translate(_KEEP_FLAGS)
    return sum(compress(pieces.ends, keeps)) - sum(compress(pieces.starts, keeps))


def _shows(pieces: Pieces) -> list[bytes]:
    """The texts a reducer shows, in order (only the SHOW pieces are visited)."""
    return [obj for obj in compress(pieces.objs, pieces.kinds.translate(_SHOW_FLAGS)) if obj.__class__ is bytes]


def kept_spans(plan: Plan) -> list[tuple[int, int]]:
    """The kept spans of a plan, merged where they touch."""
    spans: list[tuple[int, int]] = []
    pieces = plan.pieces
    for kind, start, end in zip(pieces.kinds, pieces.starts, pieces.ends):
        if kind == KEEP and end > start:
            if spans and spans[-1][1] == start:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
    return spans


def with_context(raw: bytes, spans: list[tuple[int, int]]) -> bytes:
    """The spans of ``raw`` joined, each with the byte before and the byte after it (where ``raw`` has
    them): a match that a search of one span finds is, with the bytes its edges' assertions (``\\b``,
    ``\\A``, ``\\z``) read, in there too. It may hold other matches (across two spans)."""
    size = len(raw)
    return b"".join([raw[start - 1 if start else 0 : end + 1 if end < size else end] for start, end in spans])


def matching_spans(regex, raw: bytes, spans: list[tuple[int, int]]):
    """The spans ``(start, end)`` of ``raw`` in which the RE2 pattern ``regex`` finds a match, each
    searched on its own exactly as ``regex.search(raw, start, end)`` searches it (spans within
    ``raw``). For RE2, which reads the bytes around a span for its edges' assertions, one search over
    the spans joined with those bytes (``with_context``) first: when it finds nothing, no span holds a
    match (the usual case: a folded log keeps thousands of short spans, and an RE2 call each costs
    more than the search). Otherwise the spans are searched one at a time, by the compiled program
    directly (no match object a span). Another pattern (``re``, whose ``endpos`` ends the text) is
    searched span by span."""
    program = re2_program(regex)
    if program is None:
        return ((start, end) for start, end in spans if regex.search(raw, start, end) is not None)
    if regex.search(with_context(raw, spans)) is None:
        return iter(())
    match, unanchored = program[0], program[1].UNANCHORED
    return ((start, end) for start, end in spans if match(unanchored, raw, start, end)[0] != NO_SPAN)


def _kept_text_dirty(plan: Plan, kept: int | None = None) -> bool:
    """Whether ``FIND_RE`` finds anything in what the plan keeps: the kept spans (merged where they
    touch) one by one when they are a small part of the input (a folded log), else the whole input in
    one scan. A kept span starting inside a character is ``_cuts_a_character``'s to see."""
    raw = plan.raw
    if (kept_bytes(plan) if kept is None else kept) * 8 >= len(raw):
        return _dirty(raw)
    return next(matching_spans(FIND_RE, raw, kept_spans(plan)), None) is not None


def _dirty(raw: bytes) -> bool:
    """``FIND_RE.search(raw) is not None``. Text of printable ASCII, tabs and newlines alone (told by
    one pass of the kernel, ``plain_text``) can hold a match only as a marker look-alike: every other
    alternative needs a control byte, a ``\\r`` or a byte from 0x80 (the pattern's own pass costs a
    few times as much)."""
    from operators.kernel import plain_text  # loaded on first use: most types load it anyway

    plain = plain_text(raw, MARKER_LOOKALIKE)
    return FIND_RE.search(raw) is not None if plain < 0 else plain > 0


def _dirty_shows(pieces: Pieces) -> bool:
    shows = _shows(pieces)
    return bool(shows) and FIND_RE.search(b"\n".join(shows)) is not None


# -- secrets -----------------------------------------------------------------------------------
SECRET_OPEN, SECRET_CLOSE = b"[secret hidden: ", b"]"


def secret_spans(plan: Plan, binary: list[tuple[int, int]], kept: int | None = None) -> list[tuple[int, int]]:
    """The secret values (``operators.secrets``) in what ``plan`` keeps, outside binary regions: one
    scan of the whole input when the kept spans are a large part of it, else one scan a span."""
    raw = plan.raw
    if (kept_bytes(plan) if kept is None else kept) * 8 >= len(raw):
        found = secrets.scan(raw)
    else:
        # a span where the pattern finds nothing has no secret: only the others are scanned
        found = [span for start, end in matching_spans(secrets.SECRET_RE, raw, kept_spans(plan))
                 for span in secrets.scan(raw, start, end)]
    if binary and found:
        found = [(a, b) for a, b in found if not any(x < b and a < y for x, y in binary)]
    return found


def _hide_in_shows(pieces: Pieces) -> bool:
    shows = _shows(pieces)
    return bool(shows) and bool(secrets.scan(b"\n".join(shows)))


def hide_secrets(plan: Plan, binary: list[tuple[int, int]], kept: int | None = None) -> Plan:
    """``plan`` with every secret value it keeps omitted to the ``secrets`` ref and shown as
    ``[secret hidden: #ref:ctx_…]``, and every one in a reducer's text shown as ``[secret hidden]``;
    ``plan`` itself when it shows none."""
    found = secret_spans(plan, binary, kept)
    if not found and not _hide_in_shows(plan.pieces):
        return plan
    out = Plan(plan.raw)
    out.reasons = dict(plan.reasons)
    i = 0
    for kind, start, end, obj in zip(plan.pieces.kinds, plan.pieces.starts, plan.pieces.ends, plan.pieces.objs):
        if kind == KEEP:
            while i < len(found) and found[i][1] <= start:
                i += 1
            i = _keep_hiding(out, start, end, found, i)
        elif kind == OMIT:
            out.omit(start, end, obj, plan.reasons[obj])
        elif kind == SHOW:
            out.show(secrets.hide(obj))
        else:
            out.mark(obj)
    return out


def _keep_hiding(out: Plan, start: int, end: int, found: list[tuple[int, int]], i: int) -> int:
    """Keep ``raw[start:end]`` but for the secret values in it (from ``found[i]`` on); the index of
    the first value that may reach past ``end``."""
    while i < len(found) and found[i][0] < end:
        a, b = max(found[i][0], start), min(found[i][1], end)
        out.keep(start, a)
        out.omit(a, b, secrets.GROUP, secrets.REASON)
        out.show(SECRET_OPEN)
        out.mark(secrets.GROUP)
        out.show(SECRET_CLOSE)
        start = b
        if found[i][1] > end:
            break
        i += 1
    out.keep(start, end)
    return i


def secure(plan: Plan, config, kind: str = "", whole: bool = False) -> Plan:
    """The plan whose visible text is safe and bounded (see the module docstring); ``plan`` itself
    when nothing needs doing. ``kind``: the content type (``json`` quotes look-alikes the JSON way);
    ``whole``: the input fits its output ceiling whole, so no line is cut for its length."""
    settings = settings_of(config)
    raw = plan.raw
    binary = binary_regions(raw)
    kept = kept_bytes(plan)  # the kept size (``kept=``: the plan's, added up once) decides how each check searches
    hidden = hide_secrets(plan, binary, kept)
    plan, kept = hidden, (kept if hidden is plan else None)
    long = [] if whole else long_lines(raw, min(settings.long_line, settings.line_cap), binary)
    pieces = plan.pieces
    if not binary and not long and not _kept_text_dirty(plan, kept) and not _dirty_shows(pieces) \
            and not (b"\r" in raw and _keeps_cr_without_lf(plan)) \
            and (raw.isascii() or not _cuts_a_character(plan)):
        return plan
    work = _Pass(plan, settings, kind, binary, long)
    out = work.out
    for piece_kind, start, end, obj in zip(pieces.kinds, pieces.starts, pieces.ends, pieces.objs):
        if piece_kind == KEEP:
            work.keep(start, end)
        elif piece_kind == OMIT:
            out.omit(start, end, obj, plan.reasons[obj])
        elif piece_kind == SHOW:
            out.show(out.show_cleaned(obj))
        else:
            out.mark(obj)
    if out.removed or out.quoted or out.escaped:
        _note(out, kind)
    result = out.plan()
    if result.pieces == pieces and result.reasons == plan.reasons:
        return plan
    return result


def _note(out: _Builder, kind: str) -> None:
    """The one line that says what was removed or quoted, with the ref of the original bytes."""
    if CONTROLS not in out.reasons:
        return  # only reducer-made text was cleaned: nothing of the input to point at
    if kind == "json" and not out.removed:
        return  # \u escapes decode to the very same strings: the JSON stays valid and says it all
    said = []
    if out.removed:
        said.append(f"terminal control sequences removed: {out.removed:,}")
    if out.quoted:
        said.append(f"marker look-alikes quoted as {_quote(kind).decode()}: {out.quoted:,}")
    if out.escaped:
        said.append(f"characters shown as JSON escapes: {out.escaped:,}")
    if not _ends_line(out):
        out.show(b"\n")
    out.show(f"[{', '.join(said)}; original bytes: ".encode())
    out.mark(CONTROLS)
    out.show(b"]\n")


# -- a view without the store -------------------------------------------------------------------
FALLBACK_LINE_MAX = 500  # bytes of one line a fallback view shows at most


def fallback_view(raw: bytes, budget: int) -> bytes:
    """What to show of ``raw`` when the store cannot keep what a reduction omits (disk full, read-only,
    refused): never the raw flood, no ref, at most about ``budget`` bytes. The text itself when it
    fits once cleaned; else a first line saying so, the head, the first distinct signal lines and
    the tail, each line cleaned (terminal controls, secrets) and cut to ``FALLBACK_LINE_MAX``, a
    line counting what is not shown in each gap. Binary content is one description line."""
    regions = binary_regions(raw)
    if regions and regions[0] == (0, len(raw)):
        return describe(raw, 0, len(raw))[: -len(b"; exact bytes: ")] + b"; not kept]\n"
    if len(raw) <= budget:
        shown = clean_text(raw)
        if len(shown) <= budget:
            return shown
    lines = raw.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    quota = max(budget - 300, 200)
    chosen = _head_tail(lines, quota // 4)
    _add_signals(raw, lines, chosen, quota - sum(len(text) for text in chosen.values()))
    out = [f"[the store could not be written: nothing omitted is kept; {len(lines):,} lines, {len(raw):,} bytes; "
           "head, signal lines and tail shown]\n".encode()]
    last = -1
    for i in sorted(chosen):
        if i > last + 1:
            out.append(f"[… {i - last - 1:,} lines not shown]\n".encode())
        out.append(chosen[i])
        last = i
    if last < len(lines) - 1:
        out.append(f"[… {len(lines) - 1 - last:,} lines not shown]\n".encode())
    return b"".join(out)


def _shown_line(line: bytes) -> bytes:
    shown = clean_text(line[: FALLBACK_LINE_MAX * 2])
    if len(shown) > FALLBACK_LINE_MAX or len(line) > FALLBACK_LINE_MAX * 2:
        shown = shown[:FALLBACK_LINE_MAX] + f" … [{len(line):,} bytes]".encode()
    return shown + b"\n"


def _head_tail(lines: list[bytes], quota: int) -> dict[int, bytes]:
    """Line index -> shown line, for the first and the last lines within ``quota`` bytes each."""
    chosen: dict[int, bytes] = {}
    for order in (range(len(lines)), range(len(lines) - 1, -1, -1)):
        spent = 0
        for i in order:
            if i in chosen:
                break
            shown = _shown_line(lines[i])
            spent += len(shown)
            if spent > quota:
                break
            chosen[i] = shown
    return chosen


def _add_signals(raw: bytes, lines: list[bytes], chosen: dict[int, bytes], quota: int) -> None:
    """Adds the first distinct signal lines (``operators.vocab``) that fit ``quota`` bytes."""
    from operators.vocab import signal_line_spans

    seen: set[bytes] = set()
    at = line = 0
    for start, end in signal_line_spans(raw):
        line += raw.count(b"\n", at, start)
        at = start
        if line in chosen or raw[start:end] in seen:
            continue
        seen.add(raw[start:end])
        shown = _shown_line(raw[start:end])
        if len(shown) > quota:
            break
        quota -= len(shown)
        chosen[line] = shown
