"""JSON reducer: keep the structure and the decision fields, park the bulk behind refs.

It works on raw byte spans (``jsonscan``) and never re-serialises: what stays visible keeps its
original formatting, and whatever is replaced is replaced by a JSON string, so the visible text is
valid JSON (or NDJSON) whenever the input was.

* **decision keys** (``id``, ``status``, ``error``, ``message``, ``code`` …, also as the last word of a
  key such as ``payment_id`` or ``errorMessage``): the value is never omitted nor shortened. Under
  the error-explaining ones (``error``, ``errors``, ``message``, ``reason``, ``detail`` …) nothing is
  summarised or shortened at any depth; noise keys inside are still parked.
* **noise keys** (``telemetry``, ``debug``, ``trace`` …): the key stays, its value becomes
  ``"#ref:ctx_…"`` (a value under ``NOISE_MIN`` bytes, such as ``"debug": false``, stays).
* **padding keys** (``padding_*``, ``noise_*`` … globs): all of one object go to one ref, shown as one
  member ``"padding_*|noise_*": "80 keys: #ref:ctx_…"`` where the first one was; each later one leaves
  with the comma in front of it, so the commas stay right.
* **long arrays** of same-shaped items (and objects whose many members all hold same-shaped
  containers, e.g. ``{"1.0": {...}, "1.1": {...}, …}``): the first ``array_keep`` stay, plus up to
  three later items that carry an error or a failing status; the rest go to one ref, shown as one
  element ``"… 95 more items: #ref:ctx_…"``.
* **long strings** (over ``string_max``, not under a decision key): the head stays (cut on a character,
  never inside an escape), the tail goes to a ref: ``"head… +12345 bytes #ref:ctx_…"``.
* **NDJSON** (one value per line) is a sequence treated like an array: each line is reduced, newlines
  stay, and a long run of same-shaped lines is summarised.

Refs are grouped by path (``$.events[].metadata`` is one ref however many items show it) and
capped per document (``coarse``: 10, ``fine``: 64, where every occurrence gets its own ref until the
cap); past the cap, omissions share one overflow ref. Broken input (truncated, invalid bytes,
duplicate keys, 10,000-deep nesting) never raises: what parses is reduced, the rest stays verbatim.
"""

from __future__ import annotations

import fnmatch
import re
from bisect import bisect_right

import msgspec
import re2

from operators.config import Section
from operators.jsonscan import BAD, BOM, Ends, is_valid_json, scan_level, top_level
from operators.reduction import Plan, passthrough
from operators.types.log import SIGNAL_RE

NOISE_MIN = 48  # a noise value shorter than this stays: its marker would save next to nothing
BUCKET_MIN = 64  # bytes the padding keys of one object must hold to be worth a ref
SUMMARY_MIN = 160  # bytes the omitted items of a summarised array must hold
SCALAR_SUMMARY_MIN = 1024  # ... when the items are plain strings/numbers (a short tag list stays)
NOTABLE_MAX = 3  # later items with an error/failing status kept visible per summarised array
STRING_HEAD = 160  # bytes of a long string kept in front of its marker
SAMPLE = 48  # items whose keys are compared to decide whether an array is same-shaped
MAX_GROUPS = {"coarse": 10, "fine": 64}
MAX_PENDING = 256  # levels of the walk with work left; a deeper value stays verbatim (memory stays flat)
PROTECT = {b"error", b"errors", b"message", b"msg", b"reason", b"detail", b"details", b"exception", b"cause"}

ELLIPSIS = "\u2026".encode()
KEEP, RECURSE, NOISE, STRING, RUN = range(5)
_INSIDE_RUN = [(KEEP,)]  # entries covered by the RUN action in front of them
_OBJ, _ARR, _STR = 0x7B, 0x5B, 0x22

_ERROR_KEY = rb'"(?:[Ee]rrors?|ERRORS?|[Ee]xception|[Ff]ailure|[Ff]ault|[Ff]atal)"[ \t\r\n]*:[ \t\r\n]*'
_FAILING_STATUS = (
    rb'"(?:[Ss]tatus|STATUS|[Ss]tate|[Rr]esult|[Oo]utcome|[Ll]evel|[Ss]everity|[Cc]onclusion|[Hh]ealth)"[ \t\r\n]*:[ \t\r\n]*'
    rb'"[^"\\]{0,80}?(?i:fail|error|fatal|critical|crash|panic|timeout|timed.out|denied|refused|abort|exception'
    rb"|invalid|unauthori[sz]ed|forbidden|unhealthy)"
    rb'|"(?:[Ss]tatus|[Ss]tatus_?[Cc]ode|[Hh]ttp_?[Ss]tatus|[Cc]ode)"[ \t\r\n]*:[ \t\r\n]*"?[45][0-9][0-9]\b'
)
# an item worth keeping in view: an error member (with a value that is not empty, null, false or 0), or a
# failing status/code
NOTABLE_RE = re.compile(_ERROR_KEY + rb'+(?!null\b|false\b|""|\[[ \t\r\n]*\]|\{[ \t\r\n]*\}|0\b)|' + _FAILING_STATUS)
# the same without the lookahead RE2 lacks, byte by byte (Latin-1): a superset, each hit checked with NOTABLE_RE
_LATIN1 = re2.Options()
_LATIN1.encoding = re2.Options.Encoding.LATIN1
NOTABLE_CANDIDATE_RE = re2.compile(_ERROR_KEY + b"|" + _FAILING_STATUS, options=_LATIN1)


def notable_starts(raw: bytes, start: int, end: int):
    """Where ``NOTABLE_RE`` matches in ``raw[start:end]``, as ``finditer`` would find them: RE2 finds
    the candidates (a DFA: tens of times faster than ``re`` trying every quote), ``re`` confirms each."""
    confirm = NOTABLE_RE.match
    for candidate in NOTABLE_CANDIDATE_RE.finditer(raw, start, end):
        if confirm(raw, candidate.start(), end):
            yield candidate.start()


NESTED_ARRAY = re.compile(rb"\[[ \t\r\n]*+\[")
# runs of brackets and spaces: one character class, so the regex engine keeps no state per repetition
OPEN_RUN = re.compile(rb"[\[ \t\r\n]*+")
CLOSE_RUN = re.compile(rb"[\] \t\r\n]*+")
WORD_SPLIT = re.compile(rb"[_\-. ]+|(?<=[a-z0-9])(?=[A-Z])")
STRING_UNIT = re.compile(rb"[^\\]++|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[0-9a-fA-F]{4}|\\u[0-9a-fA-F]{4}|\\.", re.S)


PATH_PARTS = 12  # the last segments of a path that name a ref group ("$…" in front when there are more)
_CUT = "\u2026"


def _extend(path: tuple[str, ...] | None, seg: str) -> tuple[str, ...]:
    """The path one level down: at most ``PATH_PARTS`` segments (behind ``_CUT``), so a walk 100,000
    levels deep holds short tuples, not a chain of 100,000."""
    if path is None:
        return (seg,)
    if len(path) < PATH_PARTS:
        return path + (seg,)
    return (_CUT,) + path[-(PATH_PARTS - 1) :] + (seg,)


def _render_path(path: tuple[str, ...] | None) -> str:
    return "$" + "".join(path or ())


def _seg(key: bytes) -> str:
    text = key.decode("utf-8", "replace")
    return "." + (text if len(text) <= 40 else text[:40] + "\u2026")


def _json_str(text: str) -> bytes:
    return b'"' + text.replace("\\", "\\\\").replace('"', '\\"').encode() + b'"'


class _Reducer:
    def __init__(self, raw: bytes, granularity: str, cfg):
        self.raw = raw
        self.cfg = cfg
        self.plan = Plan(raw)
        self.fine = granularity == "fine"
        self.max_groups = MAX_GROUPS["fine" if self.fine else "coarse"]
        self.groups: dict[str, str] = {}
        self.wrapper_run: tuple[int, int, int] | None = None  # see skip_wrappers
        self.ends = Ends(len(raw))
        self.decision = {k.lower().encode() for k in cfg.decision_keys}
        self.noise = {k.lower().encode() for k in cfg.noise_keys}
        self.globs = [g.lower() for g in cfg.padding_globs]
        self.pad_re = re.compile("|".join(fnmatch.translate(g) for g in self.globs)) if self.globs else None

    # ---- refs -------------------------------------------------------------------------------
    def group(self, kind: str, path, reason: str, at: int) -> tuple[str, str]:
        where = _render_path(path)
        name = f"{kind} {where}" + (f" @{at}" if self.fine else "")
        if name in self.groups:
            return name, self.groups[name]
        if len(self.groups) >= self.max_groups - 1:
            name = "overflow"
            reason = "json: further omitted values (ref budget reached)"
            self.groups.setdefault(name, reason)
            return name, reason
        reason = f"json: {reason} at {where}"
        self.groups[name] = reason
        return name, reason

    def edit(self, start: int, end: int, group: tuple[str, str], before: bytes, after: bytes) -> None:
        plan = self.plan
        if start < plan.position or end <= start:
            return  # never out of order: leave it visible
        plan.keep(plan.position, start)
        plan.omit(start, end, group[0], group[1])
        plan.show(before)
        plan.mark(group[0])
        plan.show(after)

    def silent(self, start: int, end: int, group: tuple[str, str]) -> None:
        plan = self.plan
        if start < plan.position or end <= start or group[0] not in plan.reasons:
            return
        plan.keep(plan.position, start)
        plan.omit(start, end, group[0], group[1])

    # ---- decisions --------------------------------------------------------------------------
    def is_decision_word(self, key: bytes) -> bool:
        words = [w for w in WORD_SPLIT.split(key) if w]
        return bool(words) and words[-1].lower() in self.decision

    def same_shape(self, entries, idxs: list[int]) -> bool:
        raw = self.raw
        kinds: dict[int, int] = {}
        if len(idxs) > 16 * SAMPLE:
            idxs = [idxs[k * len(idxs) // (16 * SAMPLE)] for k in range(16 * SAMPLE)]
        for i in idxs:
            c = raw[entries[i][2]]
            c = c if c in (_OBJ, _ARR, _STR) else 0
            kinds[c] = kinds.get(c, 0) + 1
        kind, count = max(kinds.items(), key=lambda kv: kv[1])
        if count < 0.9 * len(idxs):
            return False
        if kind != _OBJ:
            return True
        objs = [i for i in idxs if raw[entries[i][2]] == _OBJ]
        sample = objs if len(objs) <= SAMPLE else [objs[k * len(objs) // SAMPLE] for k in range(SAMPLE)]
        keysets = []
        for i in sample:
            members, _ = scan_level(raw, entries[i][2], self.ends)
            keysets.append(frozenset(raw[ks:ke] for ks, ke, _, _ in members))
        freq: dict[bytes, int] = {}
        for keys in keysets:
            for k in keys:
                freq[k] = freq.get(k, 0) + 1
        core = {k for k, c in freq.items() if 2 * c >= len(keysets)}
        if not core:
            return all(not keys for keys in keysets)
        similar = sum(1 for keys in keysets if len(keys & core) >= 0.5 * len(keys | core))
        return similar >= 0.8 * len(keysets)

    def summarise(self, entries, idxs: list[int], actions: list, path, unit: str) -> None:
        """Keep the first items of ``idxs`` (and a few notable ones); bucket the rest into one ref."""
        raw = self.raw
        rest = idxs[max(self.cfg.array_keep, 0):]
        if not rest:
            return
        first_kind = raw[entries[rest[0]][2]]
        notable: list[int] = []
        extra = 0
        if first_kind in (_OBJ, _ARR, _STR):
            last = -1
            span = (raw, entries[rest[0]][2], entries[rest[-1]][3])
            hits = notable_starts(*span) if first_kind != _STR else (m.start() for m in SIGNAL_RE.finditer(*span))

            def value_start(i: int) -> int:  # bisect's key: rest holds entry indexes
                return entries[i][2]

            for hit in hits:
                j = bisect_right(rest, hit, key=value_start) - 1
                if j > last and hit < entries[rest[j]][3]:
                    last = j
                    if len(notable) < NOTABLE_MAX:
                        notable.append(j)
                    else:
                        extra += 1
        keep = {rest[j] for j in notable}
        omitted_count = len(rest) - len(keep)
        size = entries[rest[-1]][3] - entries[rest[0]][2] - sum(entries[i][3] - entries[i][2] for i in keep)
        scalar = first_kind not in (_OBJ, _ARR)
        if not omitted_count or size < (SCALAR_SUMMARY_MIN if scalar else SUMMARY_MIN):
            return
        omitted = (i for i in rest if i not in keep)  # read once, in order: never a list of them all
        first = next(i for i in rest if i not in keep)
        group = self.group(unit, path, f"more {unit} of the same shape", entries[first][2])
        label = f"\u2026 {omitted_count} more {unit if omitted_count > 1 else unit[:-1]}"
        if extra:
            label += f" ({extra} with errors)"
        if entries[first][0] >= 0:  # an object member: a member of its own
            before = _json_str("\u2026") + b": " + _json_str(label[2:] + ": ")[:-1]
        else:
            before = _json_str(label + ": ")[:-1]
        self.bucket(omitted, actions, group, before)

    @staticmethod
    def bucket(members, actions: list, group, before: bytes) -> None:
        """Runs of consecutive members (ascending) go to one group: the first run shows ``before`` + marker."""
        first = last = None
        for member in members:
            if last is not None and member == last + 1:
                last = member
                continue
            if first is not None:
                actions[first] = (RUN, group, before, last)
                actions[first + 1 : last + 1] = _INSIDE_RUN * (last - first)
                before = None
            first = last = member
        if first is not None:
            actions[first] = (RUN, group, before, last)
            actions[first + 1 : last + 1] = _INSIDE_RUN * (last - first)

    def plan_object(self, entries, path, protected: bool) -> list:
        raw = self.raw
        cfg = self.cfg
        actions: list = [None] * len(entries)
        pad: list[int] = []
        normal: list[int] = []
        for i, (ks, ke, vs, ve) in enumerate(entries):
            key = raw[ks + 1 : ke - 1]
            kl = key.lower()
            container = raw[vs] == _OBJ or raw[vs] == _ARR
            if kl in self.decision:
                actions[i] = (RECURSE, _extend(path, _seg(key)), protected or kl in PROTECT) if container else (KEEP,)
            elif kl in self.noise or kl.lstrip(b"_") in self.noise:
                if (ve if ve >= 0 else len(raw)) - vs >= NOISE_MIN:  # a truncated one: the rest of the input
                    actions[i] = (NOISE, _extend(path, _seg(key)))
                else:
                    actions[i] = (RECURSE, _extend(path, _seg(key)), protected) if container else (KEEP,)
            elif ve >= 0 and self.pad_re is not None and self.pad_re.match(kl.decode("utf-8", "surrogateescape")):
                pad.append(i)
            elif self.is_decision_word(key):
                actions[i] = (RECURSE, _extend(path, _seg(key)), protected) if container else (KEEP,)
            else:
                normal.append(i)
        if pad:
            if sum(entries[i][3] - entries[i][0] for i in pad) >= BUCKET_MIN:
                keys = [raw[entries[i][0] + 1 : entries[i][1] - 1].lower().decode("utf-8", "surrogateescape") for i in pad]
                globs = [g for g in self.globs if any(fnmatch.fnmatchcase(k, g) for k in keys)]
                label = "|".join(globs) or "padding"
                group = self.group("padding", path, f"{len(pad)} padding keys ({label})", entries[pad[0]][0])
                before = _json_str(label) + b": " + _json_str(f"{len(pad)} key{'s' if len(pad) > 1 else ''}: ")[:-1]
                self.bucket(pad, actions, group, before)
            else:
                normal = sorted(normal + pad)
        if not protected and len(normal) >= cfg.array_min and 5 * len(normal) >= 4 * len(entries):
            complete = [i for i in normal if entries[i][3] >= 0]
            if complete and len(complete) >= cfg.array_min and all(raw[entries[i][2]] in (_OBJ, _ARR) for i in complete) \
                    and self.same_shape(entries, complete):
                self.summarise(entries, complete, actions, path, "keys")
        for i in normal:
            if actions[i] is None:
                ks, ke, vs, ve = entries[i]
                actions[i] = self.plain_action(vs, ve, _extend(path, _seg(raw[ks + 1 : ke - 1])), protected)
        return actions

    def plan_array(self, entries, path, protected: bool, unit: str = "items") -> list:
        raw = self.raw
        cfg = self.cfg
        actions: list = [None] * len(entries)
        if all(e[3] >= 0 and e[0] != BAD for e in entries):  # the usual case: no list of every index
            complete = range(len(entries))
        else:
            complete = [i for i, e in enumerate(entries) if e[3] >= 0 and e[0] != BAD]
        if not protected and complete and len(complete) >= cfg.array_min:
            scalar = raw[entries[complete[0]][2]] not in (_OBJ, _ARR)
            if (not scalar or len(complete) >= 4 * cfg.array_min) and self.same_shape(entries, complete):
                self.summarise(entries, complete, actions, path, unit)
        child = _extend(path, "[]") if unit == "items" else path  # top-level values sit at $
        for i, (ks, ke, vs, ve) in enumerate(entries):
            if actions[i] is None:
                actions[i] = (KEEP,) if ks == BAD else self.plain_action(vs, ve, child, protected)
        return actions

    def plain_action(self, vs: int, ve: int, path, protected: bool):
        c = self.raw[vs]
        if c == _OBJ or c == _ARR:
            return (RECURSE, path, protected)
        if c == _STR and not protected and ve >= 0 and ve - vs > max(self.cfg.string_max, STRING_HEAD + 2):
            return (STRING, path)
        return (KEEP,)

    def string_cut(self, vs: int, ve: int) -> int:
        """Where to cut a long string: after about STRING_HEAD bytes, never inside an escape or a character."""
        raw = self.raw
        limit = vs + 1 + STRING_HEAD
        cut = vs + 1
        for m in STRING_UNIT.finditer(raw, vs + 1, ve - 1):
            if m.end() > limit:
                cut = limit if raw[m.start()] != 0x5C else m.start()
                break
            cut = m.end()
        while cut > vs + 1 and 0x80 <= raw[cut] < 0xC0:
            cut -= 1
        return cut

    # ---- the walk ---------------------------------------------------------------------------
    def skip_wrappers(self, vs: int, path):
        """Jump over arrays that hold nothing but the next array (``[[[[…]]]]``): nothing in them can be
        reduced, and a walk level each would cost time per level. Returns the innermost such array's
        child to walk next and its path. One regex pass per run of opening brackets: the run is
        remembered, so the levels of it that do hold more are walked as usual without a new pass."""
        raw = self.raw
        run = self.wrapper_run
        if run is None or not run[0] <= vs <= run[2]:
            m = OPEN_RUN.match(raw, vs)
            inner = raw.rindex(b"[", vs, m.end())  # the last opening bracket of the run
            inner_end = self.ends.get(inner, -1)
            closes = CLOSE_RUN.match(raw, inner_end) if inner_end > 0 else None
            count = min(raw.count(b"]", closes.start(), closes.end()), raw.count(b"[", vs, inner)) if closes else 0
            first = inner - count  # arrays first..inner-1 hold only the next one (when no space between)
            if raw.count(b"[", first, inner) != count:  # spaces inside the run: find it bracket by bracket
                first = inner
                for _ in range(count):
                    first = raw.rindex(b"[", vs, first)
            run = self.wrapper_run = (vs, first, inner)
        _, first, inner = run
        if not first <= vs < inner:
            return vs, path
        levels = raw.count(b"[", vs, inner)
        return inner, _extend(path, "[]" * levels if levels <= 4 else f"[]\u00d7{levels}")

    def children(self, vs: int, path, protected: bool) -> tuple[list, list]:
        if self.raw[vs] == _ARR and NESTED_ARRAY.match(self.raw, vs):
            vs, path = self.skip_wrappers(vs, path)
        entries, _ = scan_level(self.raw, vs, self.ends)
        if self.raw[vs] == _OBJ:
            return entries, self.plan_object(entries, path, protected)
        return entries, self.plan_array(entries, path, protected)

    def run(self) -> Plan:
        raw = self.raw
        start = len(BOM) if raw.startswith(BOM) else 0
        items, ndjson = top_level(raw, start, self.ends)
        if not items:
            return passthrough(raw)
        # the top-level values are walked like the elements of an array (one, or NDJSON lines)
        stack = [[items, self.plan_array(items, None, False, unit="lines" if ndjson else "values"), 0]]
        while stack:
            frame = stack[-1]
            entries, actions, i = frame
            if i >= len(entries):
                stack.pop()
                continue
            frame[2] = i + 1
            action = actions[i]
            kind = action[0]
            if kind == KEEP:
                continue
            ks, ke, vs, ve = entries[i]
            if kind == RECURSE:
                if i + 1 == len(entries):
                    stack.pop()  # nothing left at this level: `[[[…]]]` holds one frame, not one per level
                elif len(stack) >= MAX_PENDING:
                    continue  # that deep with work pending on every level: the value stays verbatim
                stack.append([*self.children(vs, action[1], action[2]), 0])
            elif kind == NOISE:
                end = ve if ve >= 0 else len(raw)
                self.edit(vs, end, self.group("noise", action[1], "noise value", vs), b'"', b'"')
            elif kind == STRING:
                cut = self.string_cut(vs, ve)
                label = ELLIPSIS + f" +{ve - 1 - cut} bytes ".encode()
                self.edit(cut, ve - 1, self.group("string", action[1], "long string tail", vs), label, b"")
            elif kind == RUN:  # entries i..last go to one group
                _, group, before, last = action
                end = entries[last][3]
                if before is not None:
                    self.edit(ks if ks >= 0 else vs, end, group, before, b'"')
                else:
                    self.silent(entries[i - 1][3], end, group)
                frame[2] = last + 1
        return self.plan.keep_rest().finish()


def reduce(raw: bytes, granularity: str, config) -> Plan:
    try:
        return _Reducer(raw, granularity, config.json).run()
    except RecursionError:
        return passthrough(raw)


# -- the content type ----------------------------------------------------------------------------
NAME = "json"
SIGNALS = ""  # decision fields are checked through the planted signals; no automatic line check


class Settings(Section):
    decision_keys: list[str] = msgspec.field(default_factory=lambda: [
        "id", "status", "state", "error", "errors", "message", "msg", "code", "reason", "detail",
        "type", "name", "result", "success", "ok", "title", "version",
    ])
    noise_keys: list[str] = msgspec.field(default_factory=lambda: [
        "telemetry", "debug", "trace", "traces", "tracing", "metrics", "diagnostics", "stacktrace_raw",
        "_links", "links", "headers", "request_headers", "response_headers", "meta", "metadata",
        "raw", "internal", "profiling", "timings", "spans", "logs", "history", "audit",
    ])
    padding_globs: list[str] = msgspec.field(default_factory=lambda: ["padding_*", "noise_*", "filler_*", "_pad*"])
    array_keep: int = 3  # long arrays of same-shaped objects keep this many items visible
    array_min: int = 8  # ... once they have at least this many
    string_max: int = 2048  # longer non-decision strings go to a ref


class _AnyObject(msgspec.Struct):
    """Decoding into this checks an object's syntax without building it (every field is ignored)."""


_SHALLOW = {b"{": msgspec.json.Decoder(_AnyObject), b"[": msgspec.json.Decoder(list[msgspec.Raw])}


def parses_json(raw: bytes) -> bool:
    """Whether the whole input is one JSON document, checked without materialising it."""
    try:
        _SHALLOW[raw.lstrip()[:1]].decode(raw)
        return True
    except msgspec.ValidationError:  # syntax was fine, only the shape differed
        return True
    except (msgspec.DecodeError, RecursionError):
        return is_valid_json(raw)  # msgspec refuses very deep nesting; accept well-formed bytes anyway


def is_ndjson(lines: list[bytes]) -> bool:
    if len(lines) < 2:
        return False
    for line in lines:
        s = line.strip()
        if s[:1] not in (b"{", b"["):
            return False
        try:
            msgspec.json.decode(s)
        except msgspec.DecodeError:
            return False
    return True


def detect(sample) -> str | None:
    if sample.head.lstrip()[:1] in (b"{", b"[") and parses_json(sample.raw):
        return "parses as JSON"
    if is_ndjson(sample.lines):
        return "NDJSON: every sampled line parses"
    return None


PACK_CONTEXT = False
_decision_res: dict[tuple[str, ...], re.Pattern] = {}  # compiled decision-key pattern per key list


def decision_key_re(keys: list[str]) -> re.Pattern:
    """``"key":`` for any of the decision keys (compiled once per key list)."""
    key = tuple(keys)
    pattern = _decision_res.get(key)
    if pattern is None:
        pattern = _decision_res[key] = re.compile(rb'"(?:' + b"|".join(re.escape(k.encode()) for k in keys) + rb')"\s*:')
    return pattern


def tier(text: bytes, shown: bytes, config) -> tuple[int, int]:
    """Pack tiers: decision fields are signal, marker/summary lines context; signal words don't count."""
    from operators.pack import is_context_line

    if decision_key_re(config.json.decision_keys).search(text):
        return 0, 0
    return (1, 0) if is_context_line(text) else (2, 0)


FACT_KEY_RE = re.compile(rb'"(?:id|status|state|error|errors|message|msg|code|reason|detail|result|success|ok|title)"\s*:')


def facts(packet):
    """Level 0: how many values are parked behind refs, and the first decision-field lines."""
    from operators.overview import IMPORTANT_MAX, clip
    from operators.reduction import MARK
    from operators.types import Facts

    parked = packet.plan.pieces.kinds.count(MARK) if packet.plan is not None else 0  # real markers only
    important = []
    total = 0
    for line in packet.visible.split(b"\n"):
        if FACT_KEY_RE.search(line):
            total += 1
            if len(important) < IMPORTANT_MAX:
                important.append(clip(line.strip()))
    return Facts(f"{parked} value{'s' if parked != 1 else ''} parked behind refs", important, total)
