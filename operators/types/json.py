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
* **link fields** (``*_url``, ``url``, ``href``, ``_links``, ``*_link`` … whose value is a URL or a
  container of links; ``link_keys``, ``links_noise``): all of one object go to one ref, shown as one
  member ``"*_url|url": "38 links: #ref:ctx_…"`` like padding keys; ``html_url`` (``link_keep``) stays,
  and so does an object's lone ``url``/``href`` (it names the object).
* **long arrays** of same-shaped items (``array_min``; or a few same-shaped items of 4 KB together)
  and **long maps** (objects whose many members hold same-shaped containers, ``{"1.0": {...}, …}``,
  or scalars under keys that are data, such as a registry's ``time`` map of version → timestamp):
  the first ``array_keep`` items (up to about 1 KB: one big item is example enough) and the last
  ``array_keep_last`` stay, and so does every item that carries an error or a failing status (all of
  them when they are the exception and fit: past the first three, in brief; folded harder for the
  room, the first of them as many as it allows), every item whose
  decision field (``fold_fields``: status, conclusion, state, code, severity, result, outcome, error,
  message) holds a value (a scalar) no kept item holds (a field with many distinct values, such as a zip code,
  is no category; a message is one when each occurs four times on average), every item whose
  status-like field holds another value than most items' (a skipped test among passed ones; in
  brief, when all fit), and every map entry or string item whose key or value is the
  document's current version or a dist-tag (or a ``keep_keys`` key: ``latest``, ``created`` …). Each
  run of folded items becomes one element ``"… 95 more items: #ref:ctx_…"`` (a member ``"…": "95
  more keys: #ref:ctx_…"`` in a map) exactly where the run stood, so the order never changes; all
  runs of one container share one ref.
* **items in brief** (at most ``BRIEF_MAX`` a document): their decision fields and short scalars as
  written, their objects in brief too, each run of other members (arrays, long strings, links, noise
  keys' values: a recorded exchange's ``headers``) one member naming them: ``"…": "traceback, longrepr:
  #ref:ctx_…"``; but a short array of resources (objects with an ``id`` or a ``number``: the issues a
  recorded exchange's ``response`` returned) shows each by its identity when that takes ``BRIEF_LIST``
  bytes or less and the document is not folded harder for the room.
* **lines before the document** (a tool's ``warning: …`` lines before its JSON array) stay as printed.
* **repeats** (``repeats``): a container of 256 bytes or more byte-equal to one shown before it (the
  same ``owner`` or ``repository`` object in every item) becomes ``"… same as $.items[].owner above:
  #ref:ctx_…"``.
* **long strings** (over ``string_max``, not under a decision key): the head stays (cut on a character,
  never inside an escape), the tail goes to a ref: ``"head… +12345 bytes #ref:ctx_…"``.
* **NDJSON** (one value per line) is a sequence treated like an array: each line is reduced, newlines
  stay, and a long run of same-shaped lines is summarised; a line with a signal word in a value (not
  in a member's name), such as ``go test -json``'s ``"Output": "--- FAIL: …"``, counts as failing, and
  so does ``"Action": "fail"`` (a status-like field); of the two lines before a failing line kept, one
  naming a place in a value (``"Output": "    strip_test.go:43: want 200"``: the assertion) stays too,
  and so do the lines before it about the same test (``"Test": "TestX"``, ``"nodeid"``: its output, a
  panic and its stack; ``TEST_RUN_MAX`` at most). The lines whose status fails come first among the
  failing ones; folded harder for the room (``TIGHTER``), a test's other lines are left out, so every
  failing test shows its ``fail`` record before one test's 60 lines of output take the room.
* **under the ceiling** (``reduce``): a document that fits the room is shown unfolded (but for arrays of
  big items, 1 KB each on average, and of items alike but for their numbers; NDJSON's records are such
  items); a folded one still over the ceiling folds harder (``TIGHTER``: long strings to a ref sooner,
  then failing items past the first shown in brief, then every item kept for what it carries in brief, none whole; a
  document on few lines then shows as many of them in brief as fit, the first ones, the others counted
  in the runs' markers, while one printed over many lines is left to the ceiling, which keeps each
  item's decision lines) so that the ceiling never has to cut it blind (a one-line document would keep
  its line's head only); room left shows folded items by their identity (``IDENTITY``; a view whose
  estimate came out over the room is tried again with less), an item whose identity is about as long as
  the item whole (a dependency ``{"version": "1.0.3", "overridden": false}``, a server's statistic
  ``{"name": …, "type": …, "value": "0"}``: named, not counted), unless the run's items are alike but
  for their numbers (``alike``: they stay folded).
* **an outline** (``_outline``), for a big document that folding leaves over its room while nothing in
  an array would be folded (a dependency tree, ``npm ls --all --json``: its folded map kept a few
  dependencies whole and named none of the others): every member down to the deepest level at which
  the whole fits the budget, each container below it one string naming what it holds,
  ``"dependencies": "{…} 3 keys: #ref:ctx_…"``.
* **null members in brief**: a run of two or more members holding ``null`` is one member naming them.

Refs are grouped by path (``$.events[].metadata`` is one ref however many items show it) and
capped per document (``coarse``: 10, ``fine``: 64, where every occurrence gets its own ref until the
cap); past the cap, omissions share one overflow ref. Broken input (truncated, invalid bytes,
duplicate keys, 10,000-deep nesting) never raises: what parses is reduced, the rest stays verbatim.
Memory and time stay linear in the input at any depth: a level with nothing left to do is dropped
from the walk (arrays holding only the next array are jumped over in one pass), at most
``MAX_PENDING`` levels with work left are held (a value deeper than that stays verbatim), and paths
keep their last ``PATH_PARTS`` segments. A marker member is written with the input's own colon
spacing; everything else shown is the input's own bytes, so pretty-printing and key order stay.
"""

from __future__ import annotations

import fnmatch
import re
from array import array
from bisect import bisect_right
from functools import partial

import msgspec
import re2

from operators.config import Section, section
from operators.digest import blake2b
from operators.jsonscan import BAD, BOM, Ends, is_json_prefix, is_valid_json, scan_level, top_level
from operators.reduction import KEEP as KEPT, Plan, passthrough
from operators.vocab import DIGITS_TO_ZERO, SIGNAL_RE, json_records
from operators.types import maybe  # the cheap test each detector asks first

NOISE_MIN = 48  # a noise value shorter than this stays: its marker would save next to nothing
BUCKET_MIN = 64  # bytes the padding keys of one object must hold to be worth a ref
SUMMARY_MIN = 160  # bytes the omitted items of a summarised array must hold
SCALAR_SUMMARY_MIN = 1024  # ... when the items are plain strings/numbers (a short tag list stays)
NOTABLE_MAX = 3  # later items with an error/failing status kept visible per summarised array ...
BRIEF_MAX = 60  # ... and this many more per document in brief (their short fields; the bulk folded)
BRIEF_SCALAR = 200  # bytes of a scalar member an item in brief shows at most (decision fields: any)
BRIEF_NAMES = 3  # keys a brief item's fold marker names
RESOURCE_KEYS = {b"id", b"number"}  # ... each of its objects holds one of these
BRIEF_LIST, BRIEF_LIST_ITEMS = 2048, 8  # an array in an item in brief shown as its objects' identities: bytes (three or four GitHub issues), items at most
# what names an item of a list (and its status): a folded item is shown by these while the room lasts
IDENTITY = {b"id", b"name", b"number", b"title", b"version", b"login", b"key", b"sha", b"tag_name", b"full_name",
            b"nodeid", b"slug", b"path", b"filename", b"package", b"status", b"state", b"conclusion", b"outcome",
            b"result", b"severity", b"code", b"type"}
IDENTITY_DEPTH = 2  # objects inside an item looked into for its identity (``user.login``, ``metadata.name``)
IDENTITY_SHARE = 0.5  # an item is shown by its identity only when that is at most this part of it
IDENTITY_MIN = 512  # bytes of room left over below which folded items are not shown by their identity
MEMBER_EST = 12  # bytes a member shown adds around its own (a line's indentation, the comma)
MARKER_EST = 48  # bytes of an identity item's marker member ("…": "12 more keys: #ref:ctx_…")
STRING_HEAD = 160  # bytes of a long string kept in front of its marker
SAMPLE = 48  # items whose keys are compared to decide whether an array is same-shaped
MAX_GROUPS = {"coarse": 10, "fine": 64}
MAX_PENDING = 256  # levels of the walk with work left; a deeper value stays verbatim (memory stays flat)
PROTECT = {b"error", b"errors", b"message", b"msg", b"reason", b"detail", b"details", b"exception", b"cause"}

ELLIPSIS = "\u2026".encode()
KEEP, RECURSE, NOISE, STRING, RUN = range(5)
PAD, LINK = ("pad",), ("link",)  # member kinds bucketed per object (see plan_object)
ENUMS = {b"status", b"state", b"conclusion", b"severity", b"result", b"outcome"}  # categories (see mark_diverse) ...
ENUM_MAX = 64  # ... up to this many distinct values however few the items (free text is no category)
DIVERSE_MIN = 8  # a decision field with at most max(this, items / 4) distinct values is a category
TEXTS = {b"message"}  # ... a free-text one only with at most a fourth as many as it occurs (a linter's repeat)
HEAD_BYTES = 512  # the first items of a fold stop here (one at least): big items show one example
RUN_MIN = 48  # bytes a lone folded item must hold to be worth its marker
BIG_ITEMS = 4096  # bytes from which a few same-shaped items (fewer than array_min) are folded too ...
ITEM_BIG = 1024  # ... in a document unfolded for its room (``UNFOLDED``), when they hold this much each on average
ALIKE_SHARE = 0.25  # ... or when at most this share of them differ but for their numbers (``alike``)
DIGIT = re.compile(rb"[0-9]")
LONE_LINKS = {b"url", b"href", b"link", b"uri"}
REPEAT_MIN, REPEAT_MAX = 256, 1 << 16  # bytes of a container compared with those shown before it
_INSIDE_RUN = [(KEEP,)]  # entries covered by the RUN action in front of them
_OBJ, _ARR, _STR = 0x7B, 0x5B, 0x22

_ERROR_KEY = rb'"(?:[Ee]rrors?|ERRORS?|[Ee]xception|[Ff]ailure|[Ff]ault|[Ff]atal)"[ \t\r\n]*:[ \t\r\n]*'
_FAILING_STATUS = (
    rb'"(?:[Ss]tatus|STATUS|[Ss]tate|[Rr]esult|[Oo]utcome|[Ll]evel|[Ss]everity|[Cc]onclusion|[Hh]ealth|[Aa]ction)"[ \t\r\n]*:[ \t\r\n]*'
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
# (without the \b: RE2 looks past ``end`` for it, where ``re`` takes ``end`` as the end of the text)
NOTABLE_CANDIDATE_RE = re2.compile(_ERROR_KEY + b"|" + _FAILING_STATUS.replace(rb"\b", b""), options=_LATIN1)


_KEY_END = re.compile(rb'[^"\\\n]{0,64}"[ \t]*:')  # what follows a word that is part of a member's name
PLACE_IN_VALUE = re.compile(rb"[\w./-]+\.[A-Za-z]\w*:[0-9]+\b")  # ``handler_test.go:43`` (see mark_assertions)
ASSERT_BEFORE = 2  # lines before a failing NDJSON line looked at for its assertion
TEST_ID_RE = re.compile(rb'"(?:Test|nodeid)":[ \t]*"(?:[^"\\\n]|\\.){1,512}"')  # the test an NDJSON line is about
TEST_RUN_MAX = 60  # lines before a failing NDJSON line kept when they are about the same test


def _signal_in_values(raw: bytes, start: int, end: int):
    """Where a signal word (``vocab.SIGNAL_RE``) stands in ``raw[start:end]`` but not in a member's name
    (``"error": null`` names a field; ``"Output": "--- FAIL: …"`` says something)."""
    key_end = _KEY_END.match
    for m in SIGNAL_RE.finditer(raw, start, end):
        if key_end(raw, m.end()) is None:
            yield m.start()


def notable_starts(raw: bytes, start: int, end: int):
    """Where ``NOTABLE_RE`` matches in ``raw[start:end]``, as ``finditer`` would find them: RE2 finds
    the candidates (a DFA: tens of times faster than ``re`` trying every quote), ``re`` confirms each."""
    confirm = NOTABLE_RE.match
    for candidate in NOTABLE_CANDIDATE_RE.finditer(raw, start, end):
        if confirm(raw, candidate.start(), end):
            yield candidate.start()


NESTED_ARRAY = re.compile(rb"\[[ \t\r\n]*+\[")
# an object whose first member holds a container (group 1 the key, group 2 the container's bracket)
SINGLE_MEMBER = re.compile(rb'\{[ \t\r\n]*+("(?:[^"\\]++|\\.)*+")[ \t\r\n]*+:[ \t\r\n]*+([\[{])')
CLOSE_OBJ = re.compile(rb"[ \t\r\n]*+\}")
# runs of brackets and spaces: one character class, so the regex engine keeps no state per repetition
OPEN_RUN = re.compile(rb"[\[ \t\r\n]*+")
CLOSE_RUN = re.compile(rb"[\] \t\r\n]*+")
VERSION_KEYS = {b"version", b"latest", b"latest_version", b"current_version", b"latestversion", b"currentversion"}
TAG_MAPS = {b"dist-tags", b"dist_tags", b"disttags", b"tags"}


def important_values(raw: bytes, start: int, ends: Ends) -> set[bytes]:
    """The strings a folded map or list must keep in view: the document's current version (``version``
    and the like, at the top or one object down, as in PyPI's ``info``) and every value of a
    ``dist-tags`` object. Contents without quotes, as they are written."""
    found: set[bytes] = set()
    members, _ = scan_level(raw, start, ends)
    for ks, ke, vs, ve in members:
        if ve < 0:
            continue
        key = raw[ks + 1 : ke - 1].lower()
        if raw[vs] == _STR and key in VERSION_KEYS and ve - vs <= 130:
            found.add(raw[vs + 1 : ve - 1])
        elif raw[vs] == _OBJ and ve - vs <= 1 << 20:
            tags = key in TAG_MAPS
            for iks, ike, ivs, ive in scan_level(raw, vs, ends)[0]:
                if ive >= 0 and raw[ivs] == _STR and ive - ivs <= 130 and (tags or raw[iks + 1 : ike - 1].lower() in VERSION_KEYS):
                    found.add(raw[ivs + 1 : ive - 1])
    return found


_fold_res: dict[tuple[str, ...], tuple | None] = {}


def fold_field_re(fields: tuple[str, ...]) -> tuple | None:
    """``"<key>": <value>`` for a key whose last word is one of ``fields`` (``status``, ``check_status``,
    ``statusCode`` is ``code``: a camel-case word starts upper-case): an RE2 (Latin-1) pattern without
    groups that finds them, and the ``match`` of the same pattern in ``re`` reading group 1 (the key)
    and group 2 (the value: a string, or the first bytes of another scalar; an object or a list is no
    category value, so a key holding one, a tweet's ``quoted_status``, is not matched). None for no fields.
    Compiled once per field list."""
    if fields not in _fold_res:
        words = [f.lower().encode() for f in fields if f]
        if not words:
            _fold_res[fields] = None
        else:
            plain = b"|".join(re.escape(w) for w in words)
            camel = b"|".join(re.escape(w[:1].upper()) + b"(?i:" + re.escape(w[1:]) + b")" for w in words)
            key = rb'(?:[A-Za-z0-9_]{0,40}[_\-. ])?(?i:' + plain + rb')|[a-z][a-z0-9]{0,40}(?:' + camel + rb')'
            value = rb'"(?:[^"\\]|\\.){0,200}"|[^,\]}\s{\[][^,\]}\s]{0,63}'  # a scalar: an object or a list is no category
            gap = rb"[ \t\r\n]*:[ \t\r\n]*"
            scan = re2.compile(rb'"(?:' + key + rb')"' + gap + rb"(?:" + value + rb")", options=_LATIN1)
            read = re.compile(rb'"(' + key + rb')"' + gap + rb"(" + value + rb")").match
            _fold_res[fields] = (scan, read)
    return _fold_res[fields]


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


def shallow(path: tuple[str, ...] | None) -> bool:
    """Whether a path is short enough to compare its value with earlier ones (under ``PATH_PARTS``
    segments: a document 100,000 levels deep is not hashed once per level)."""
    return path is None or (len(path) < PATH_PARTS and path[0] != _CUT)


def _render_path(path: tuple[str, ...] | None) -> str:
    return "$" + "".join(path or ())


def _seg(key: bytes) -> str:
    text = key.decode("utf-8", "replace")
    return "." + (text if len(text) <= 40 else text[:40] + "\u2026")


def _json_str(text: str) -> bytes:
    return b'"' + text.replace("\\", "\\\\").replace('"', '\\"').encode() + b'"'


class _Reducer:
    def __init__(self, raw: bytes, granularity: str, cfg, notable_max: int = NOTABLE_MAX, brief_max: int = BRIEF_MAX,
                 test_runs: bool = True):
        self.raw = raw
        self.cfg = cfg
        self.plan = Plan(raw)
        self.notable_max, self.brief_max = notable_max, brief_max  # failing items whole, in brief (``_tightened``)
        self.test_runs = test_runs  # a failing NDJSON line keeps its test's lines before it (``mark_test_run``)
        self.fine = granularity == "fine"
        self.max_groups = MAX_GROUPS["fine" if self.fine else "coarse"]
        self.groups: dict[str, str] = {}
        self.wrapper_run: tuple[int, int, int] | None = None  # see skip_wrappers
        self.ends = Ends(len(raw))
        self.decision = {k.lower().encode() for k in cfg.decision_keys}
        self.noise = {k.lower().encode() for k in cfg.noise_keys}
        self.globs = [g.lower() for g in cfg.padding_globs]
        self.pad_re = re.compile("|".join(fnmatch.translate(g) for g in self.globs)) if self.globs else None
        self.link_globs = [g.lower() for g in cfg.link_keys] if cfg.links_noise else []
        self.link_re = re.compile("|".join(fnmatch.translate(g) for g in self.link_globs)) if self.link_globs else None
        self.link_keep = {k.lower().encode() for k in cfg.link_keep}
        self.fold_re = fold_field_re(tuple(cfg.fold_fields))
        self.keep_keys = {k.lower().encode() for k in cfg.keep_keys}
        self.important: set[bytes] = set()  # the current version and dist-tags (see important_values)
        self.shown: dict[bytes, tuple[str, ...] | None] = {}  # digest of a container walked -> its path
        self.plain_keys: dict[bytes, str] = {}  # ordinary keys (quoted) and their path segment (see skip_single_members)
        self.brief: set[int] = set()  # where the objects shown in brief start (see plan_brief)
        self.briefs = 0  # items shown in brief so far
        self.failing_folded = 0  # items with an error or a failing status folded (``summarise``)
        self.identity: dict[int, int] = {}  # where the objects shown by their identity start -> their depth in the item
        self.named_whole = 0  # folded items the identity view shows whole (their identity about as long as they)
        self.identity_room = 0  # bytes folded items may still take shown by their identity (0: none)
        self.identity_lists: set[int] = set()  # arrays of an item in brief whose objects are shown by their identity
        self.depth_max: int | None = None  # containers deeper than this are folded whole (``_outline``)
        self.depth_items = False  # ... and whether one of them lay in an array's item (the outline is no good then)
        self.deep = 0  # containers folded whole so far
        self.identity_costs: dict[int, int] = {}  # identity_cost of the objects looked at (mark, then plan)

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

    def summarise(self, entries, idxs, actions: list, path, unit: str) -> None:
        """Fold the items ``idxs`` (entry indexes, ascending) of a long array or map: the first
        ``array_keep`` and last ``array_keep_last`` stay, and so does every item that carries an error
        or a failing status, whose decision field holds a value no kept item holds (``fold_fields``),
        or (a map's entry, a string item) whose key or value matters (``keep_keys``, the document's
        current version and dist-tags). Each run of folded items becomes one marker where the run
        stood, with its own count: the order never changes. All runs of one array share one ref."""
        raw = self.raw
        cfg = self.cfg
        n = len(idxs)
        head, tail = max(cfg.array_keep, 0), max(cfg.array_keep_last, 0)
        if n <= head + tail:
            return
        keep = bytearray(n)  # 1: the item at this position of idxs stays visible
        head = self.head_count(entries, idxs, head)
        keep[:head] = b"\x01" * head
        keep[n - tail :] = b"\x01" * tail
        first_kind = raw[entries[idxs[head]][2]]
        errors = self.mark_notable(entries, idxs, keep, head, n - tail, first_kind, unit == "lines")
        if first_kind == _OBJ:
            self.mark_diverse(entries, idxs, keep)
        if self.important and (unit == "keys" or first_kind == _STR):
            self.mark_important(entries, idxs, keep, head, n - tail)
        runs = self.fold_runs(entries, idxs, keep)
        size = sum(entries[idxs[b]][3] - entries[idxs[a]][2] for a, b in runs)
        scalar = first_kind not in (_OBJ, _ARR)
        if not runs or size < (SCALAR_SUMMARY_MIN if scalar and unit != "keys" else SUMMARY_MIN):
            return
        if first_kind == _OBJ and unit != "lines" and self.identity_room > 0 and self.mark_identity(entries, idxs, keep, runs):
            runs = self.fold_runs(entries, idxs, keep)
            if not runs:
                return
        group = self.group(unit, path, f"more {unit} of the same shape", entries[idxs[runs[0][0]]][2])
        member = entries[idxs[0]][0] >= 0  # an object's members: each marker is a member of its own
        for a, b in runs:
            count = b - a + 1
            label = f"\u2026 {count} more {unit if count > 1 else unit[:-1]}"
            folded_errors = sum(1 for j in errors if a <= j <= b)
            self.failing_folded += folded_errors
            if folded_errors:
                label += f" ({folded_errors} with errors)"
            if member:
                before = _json_str("\u2026") + self.colon(entries[idxs[0]]) + _json_str(label[2:] + ": ")[:-1]
            else:
                before = _json_str(label + ": ")[:-1]
            first, last = idxs[a], idxs[b]
            actions[first] = (RUN, group, before, last)
            actions[first + 1 : last + 1] = _INSIDE_RUN * (last - first)

    @staticmethod
    def head_count(entries, idxs, head: int) -> int:
        """How many first items stay: up to ``head``, but big items stop at ``HEAD_BYTES`` (at least one)."""
        size = 0
        for j in range(min(head, len(idxs))):
            if j and size >= HEAD_BYTES:
                return j
            size += entries[idxs[j]][3] - entries[idxs[j]][2]
        return min(head, len(idxs))

    def hit_positions(self, hits, entries, idxs, lo: int, hi: int):
        """(position in idxs, hit) for each hit offset that lies inside the value of an item in
        ``idxs[lo:hi]`` (hits ascending)."""

        def value_start(i: int) -> int:  # bisect's key: idxs holds entry indexes
            return entries[i][2]

        for hit in hits:
            j = bisect_right(idxs, hit, lo, hi, key=value_start) - 1
            if j >= lo and hit < entries[idxs[j]][3]:
                yield j, hit

    def mark_notable(self, entries, idxs, keep: bytearray, lo: int, hi: int, first_kind: int, lines: bool = False) -> list[int]:
        """Keep up to NOTABLE_MAX items of ``idxs[lo:hi]`` that carry an error or a failing status (a
        signal word for strings; for the lines of NDJSON, a signal word in a value too: a test
        runner's ``"Output": "--- FAIL: …"``); returns the positions of the others that do."""
        if first_kind not in (_OBJ, _ARR, _STR) or lo >= hi:
            return []
        span = (self.raw, entries[idxs[lo]][2], entries[idxs[hi - 1]][3])
        verdicts: set[int] = set()  # NDJSON: the lines whose status fails (``"Action": "fail"``)
        if first_kind == _STR:
            hits = (m.start() for m in SIGNAL_RE.finditer(*span))
        elif lines:
            verdicts = {j for j, _ in self.hit_positions(notable_starts(*span), entries, idxs, lo, hi)}
            hits = _signal_in_values(*span)
        else:
            hits = notable_starts(*span)
        found = sorted(verdicts.union(j for j, _ in self.hit_positions(hits, entries, idxs, lo, hi)))
        if verdicts:  # those first, then the lines that say a test failed
            found.sort(key=lambda j: j not in verdicts)
        # failing items that are the exception are all shown (in brief past the first few) when all fit;
        # folded harder for the room (``TIGHTER``: fewer in brief), the first as many as it allows
        brief = first_kind == _OBJ and 2 * len(found) <= hi - lo and (
            self.brief_max < BRIEF_MAX or len(found) - self.notable_max <= self.brief_max - self.briefs)
        others: list[int] = []
        for kept, j in enumerate(found):
            if kept < self.notable_max:
                keep[j] = 1
            elif not keep[j] and brief and self.keep_brief(entries[idxs[j]][2]):
                keep[j] = 1
            elif not keep[j]:
                others.append(j)
        if lines and found:
            self.mark_assertions(entries, idxs, keep, lo, found)
        return others

    def mark_assertions(self, entries, idxs, keep: bytearray, lo: int, found: list[int]) -> None:
        """The lines just before a failing line kept (``ASSERT_BEFORE`` at most) that name a place in a
        value (``"Output": "    strip_test.go:43: want 200"``): a test runner's assertion and where it
        failed, printed before the line that says the test failed."""
        raw = self.raw
        failing = set(found)
        for j in found:
            if not keep[j]:
                continue
            if self.test_runs:  # not when folded harder for the room (``TIGHTER``): the failing lines first
                self.mark_test_run(entries, idxs, keep, lo, j)
            for k in range(j - 1, max(lo, j - ASSERT_BEFORE) - 1, -1):
                if keep[k] or k in failing:
                    break
                vs, ve = entries[idxs[k]][2], entries[idxs[k]][3]
                if any(_KEY_END.match(raw, m.end()) is None for m in PLACE_IN_VALUE.finditer(raw, vs, ve)):
                    keep[k] = 1

    def mark_test_run(self, entries, idxs, keep: bytearray, lo: int, j: int) -> None:
        """The lines before a failing line kept that belong to the same test (``go test -json``'s
        ``"Test": "TestX"``, pytest-reportlog's ``"nodeid"``), back to where that test's run of lines
        starts (``TEST_RUN_MAX`` at most): its output, the panic and the stack it printed; as printed,
        not in brief, unless the document is folded harder for the room."""
        raw = self.raw
        m = TEST_ID_RE.search(raw, entries[idxs[j]][2], entries[idxs[j]][3])
        if m is None:
            return
        same = m.group()
        whole = self.brief_max == BRIEF_MAX  # not folded harder for the room: a line in brief is shown whole
        for k in range(j - 1, max(lo, j - TEST_RUN_MAX) - 1, -1):
            vs = entries[idxs[k]][2]
            if raw.find(same, vs, entries[idxs[k]][3]) < 0:
                break
            keep[k] = 1
            if whole:
                self.brief.discard(vs)  # (a line with a signal word, ``somelevel=warning`` in an expected value)

    def keep_brief(self, vs: int) -> bool:
        """Show the object at ``vs`` in brief (``plan_brief``), if fewer than ``brief_max`` are."""
        if self.briefs >= self.brief_max:
            return False
        self.brief.add(vs)
        self.briefs += 1
        return True

    def mark_identity(self, entries, idxs, keep: bytearray, runs: list[tuple[int, int]]) -> bool:
        """Show folded items by their identity (``plan_identity``), in order, while ``identity_room``
        lasts; whether any is."""
        marked = False
        for a, b in runs:
            alike = None  # (worked out when an item of the run would be shown whole)
            for j in range(a, b + 1):
                ks, _, vs, ve = entries[idxs[j]]
                cost = self.identity_cost(vs, 0)
                if not cost:
                    continue
                if ks >= 0:
                    cost += vs - ks  # a map's entry: its key is shown too
                whole = cost > IDENTITY_SHARE * (ve - vs)  # its identity is about as long as the item: the item
                if whole:
                    if alike is None:
                        alike = self.alike(entries, idxs[a : b + 1])
                    if alike:  # items that repeat each other but for their numbers stay folded
                        continue
                    cost = ve - (vs if ks < 0 else ks) + MEMBER_EST
                if not self.charge_identity(cost):
                    return marked
                keep[j] = 1
                if whole:
                    self.named_whole += 1
                else:
                    self.identity[vs] = 0
                marked = True
        return marked

    def charge_identity(self, cost: int) -> bool:
        """Take ``cost`` bytes from ``identity_room`` when it holds them; else spend it all, so that no later
        item is shown by its identity before an earlier one (they are shown in order)."""
        if cost > self.identity_room:
            self.identity_room = 0
            return False
        self.identity_room -= cost
        return True

    def identity_member(self, member, depth: int) -> int:
        """What showing one member of an item by its identity costs: its bytes when it names the item
        (``IDENTITY``, a short scalar), an object's identity inside it (``IDENTITY_DEPTH``), else 0."""
        ks, ke, vs, ve = member
        if ks < 0 or ve < 0:
            return 0
        raw = self.raw
        kind = raw[vs]
        if kind == _OBJ:
            inner = self.identity_cost(vs, depth + 1) if depth < IDENTITY_DEPTH else 0
            return inner + (vs - ks) + MEMBER_EST if inner else 0
        if kind != _ARR and ve - vs <= BRIEF_SCALAR and raw[ks + 1 : ke - 1].lower() in IDENTITY \
                and raw[vs:ve] != b"null":  # (a null names nothing)
            return ve - ks + MEMBER_EST
        return 0

    def identity_cost(self, vs: int, depth: int) -> int:
        """The bytes an object takes shown by its identity (about), or 0 when nothing in it names it
        (made once per object: ``plan_identity`` asks again for the objects inside an item)."""
        cost = self.identity_costs.get(vs)
        if cost is None:
            entries, _ = scan_level(self.raw, vs, self.ends)
            shown = [self.identity_member(e, depth) for e in entries]
            rest = sum(e[3] - e[0] + MEMBER_EST for e, c in zip(entries, shown) if not c)
            cost = sum(shown) + min(rest, MARKER_EST + MEMBER_EST) + 2 * MEMBER_EST if any(shown) else 0
            self.identity_costs[vs] = cost
        return cost

    def plan_identity(self, entries, path, depth: int) -> list:
        """An item shown by its identity: the members that name it (``IDENTITY``: id, name, title,
        status …, also inside its objects: ``user.login``) as written; all the others, at every level,
        go to one ref per path, named by one marker member per object: ``"…": "12 more keys: #ref…"``
        (shown instead when they are shorter than that marker)."""
        raw = self.raw
        actions: list = [None] * len(entries)
        hidden: list[int] = []

        def member_path(entry) -> tuple[str, ...]:
            return _extend(path, _seg(raw[entry[0] + 1 : entry[1] - 1]))

        for i, entry in enumerate(entries):
            if entry[0] < 0 or entry[3] < 0:
                actions[i] = (KEEP,)
            elif not self.identity_member(entry, depth):
                hidden.append(i)
            elif raw[entry[2]] == _OBJ:
                self.identity[entry[2]] = depth + 1
                actions[i] = (RECURSE, member_path(entry), False)
            else:
                actions[i] = (KEEP,)
        if hidden and sum(entries[i][3] - entries[i][0] for i in hidden) <= MARKER_EST:
            for i in hidden:  # cheaper shown than named by a marker
                actions[i] = self.plain_action(entries[i][2], entries[i][3], member_path(entries[i]), False)
        elif hidden:
            group = self.group("identity", path, "the rest of items shown by their identity", entries[hidden[0]][2])
            n = len(hidden)
            before = _json_str("\u2026") + self.colon(entries[hidden[0]]) + _json_str(f"{n} more key{'s' if n > 1 else ''}: ")[:-1]
            self.bucket(hidden, actions, group, before)
        return actions

    def mark_diverse(self, entries, idxs, keep: bytearray) -> None:
        """Keep every item holding a value of a decision field (``fold_fields``: status, conclusion,
        …) that no item kept before it holds. ``status``, ``state``, ``conclusion``, ``severity`` and
        ``result`` are categories up to ``ENUM_MAX`` distinct values; another field with many distinct
        values (an id-like code, a zip code, error texts) is not looked at.

        Memory: the values of a field are forgotten as soon as it has too many to be a category, and
        the (item, pair) of each hit are two int columns, not an object per item."""
        if self.fold_re is None:
            return
        hits, hit_pairs, useful, minority = self._decision_hits(entries, idxs)
        if not any(useful):
            return  # one value each (every line "status": 200): nothing to keep
        at_items, item_pairs = _hits_on_items(entries, idxs, hits, hit_pairs, useful)
        del hits, hit_pairs
        for j in _keep_new_values(at_items, item_pairs, keep, len(useful))[self.notable_max:]:
            # shown for the value it adds: past the first few, in brief; folded harder, not at all past the briefs
            if not self.keep_brief(entries[idxs[j]][2]) and self.notable_max < NOTABLE_MAX:
                keep[j] = 0
        if self.raw[entries[idxs[0]][2]] == _OBJ:
            self.mark_minority(entries, idxs, keep, sorted({j for j, pid in zip(at_items, item_pairs) if minority[pid]}))

    def mark_minority(self, entries, idxs, keep: bytearray, found: list[int]) -> None:
        """Keep, in brief, every item whose status-like field (``ENUMS``) holds another value than
        most items' (a skipped test among passed ones), when they all fit (``BRIEF_MAX``)."""
        new = [j for j in found if not keep[j]]
        if not new or len(new) > self.brief_max - self.briefs:
            return
        for j in new:
            keep[j] = 1
            self.keep_brief(entries[idxs[j]][2])

    def _decision_hits(self, entries, idxs) -> tuple[array, array, bytearray, bytearray]:
        """Every decision field:value pair in the items, in order: where it was found, its pair
        number, and for each pair whether its field is a category with more than one value, and
        whether it is a status-like (``ENUMS``) value other than its field's most frequent one."""
        raw = self.raw
        starts, ends = entries.vs, entries.ve
        span = (raw, starts[idxs[0]], ends[idxs[-1]])
        limit = max(DIVERSE_MIN, len(idxs) // 4)
        values: dict[bytes, dict[bytes, int] | None] = {}  # field -> value -> a pair number; None: no category
        pairs = 0
        seen: dict[bytes, int] = {}  # how often each free-text field occurs
        counts: dict[int, int] = {}  # how often each pair occurs
        hits, hit_pairs = array("q"), array("i")  # where each pair was found, in order
        scan, read = self.fold_re
        for found in scan.finditer(*span):  # RE2 finds them (a DFA: fast over megabytes of NDJSON)
            m = read(raw, found.start(), span[2])  # ``re`` reads the key and the value
            if m is None:  # the engines differ on a byte such as \v: skip it
                continue
            field = m[1].lower()
            if field in TEXTS:
                seen[field] = seen.get(field, 0) + 1
            known = values.get(field, {})
            if known is None:
                continue  # too many values: never a category
            pid = known.get(m[2])
            if pid is None:
                if len(known) >= (max(ENUM_MAX, limit) if field in ENUMS else len(idxs) if field in TEXTS else limit):
                    values[field] = None
                    continue
                pid = known[m[2]] = pairs
                pairs += 1
                values[field] = known
            hits.append(m.start())
            hit_pairs.append(pid)
            counts[pid] = counts.get(pid, 0) + 1
        useful = bytearray(pairs)  # 1: a pair of a category field
        minority = bytearray(pairs)
        for field, known in values.items():
            if known is not None and 1 < len(known) and 4 * len(known) <= seen.get(field, 4 * len(known)):
                for pid in known.values():
                    useful[pid] = 1
                if field in ENUMS:
                    most = max(known.values(), key=counts.__getitem__)
                    for pid in known.values():
                        minority[pid] = pid != most
        return hits, hit_pairs, useful, minority

    def mark_important(self, entries, idxs, keep: bytearray, lo: int, hi: int) -> None:
        """Keep the entries whose key (a map's) or string value is the document's current version or
        a dist-tag, or whose key is one of ``keep_keys``."""
        raw = self.raw
        important, keys = self.important, self.keep_keys
        for j in range(lo, hi):
            ks, ke, vs, ve = entries[idxs[j]]
            if ks >= 0:
                key = raw[ks + 1 : ke - 1]
                if key in important or key.lower() in keys:
                    keep[j] = 1
                    continue
            if raw[vs] == _STR and ve - vs <= 130 and raw[vs + 1 : ve - 1] in important:
                keep[j] = 1

    def fold_runs(self, entries, idxs, keep: bytearray) -> list[tuple[int, int]]:
        """Runs ``(a, b)`` of positions of idxs to fold: not kept, next to each other in the container
        (``idxs[b] - idxs[a] == b - a``), and worth a marker (a lone short item stays)."""
        runs: list[tuple[int, int]] = []
        a = None
        for j in range(len(idxs) + 1):
            if a is not None and (j == len(idxs) or keep[j] or idxs[j] != idxs[j - 1] + 1):
                runs.append((a, j - 1))
                a = None
            if j < len(idxs) and not keep[j] and a is None:
                a = j
        return [(a, b) for a, b in runs if b > a or entries[idxs[a]][3] - entries[idxs[a]][2] >= RUN_MIN]

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
        actions: list = [None] * len(entries)
        pad: list[int] = []
        links: list[int] = []
        normal: list[int] = []
        for i, entry in enumerate(entries):
            action = self.member_action(entry, path, protected)
            if action is PAD:
                pad.append(i)
            elif action is LINK:
                links.append(i)
            elif action is None:
                normal.append(i)
            else:
                actions[i] = action
        if pad and not self.bucket_keys(pad, entries, actions, path, "padding", self.globs):
            normal = sorted(normal + pad)
        if links and not self.bucket_keys(links, entries, actions, path, "links", self.link_globs,
                                          self.has_human_link(entries)):
            normal = sorted(normal + links)
        if not protected:
            self.fold_map(entries, normal, actions, path)
        raw = self.raw
        for i in normal:
            if actions[i] is None:
                ks, ke, vs, ve = entries[i]
                actions[i] = self.plain_action(vs, ve, _extend(path, _seg(raw[ks + 1 : ke - 1])), protected)
        return actions

    def plan_brief(self, entries, path) -> list:
        """An object shown in brief (a failing item past the first few): its decision fields and short
        scalars as they are, its objects in brief too, and each run of other members (arrays, long
        strings) folded into one member naming them: ``"…": "traceback, longrepr: #ref:ctx_…"``."""
        raw = self.raw
        actions: list = [None] * len(entries)
        fold: list[int] = []
        nulls = _null_runs(raw, entries)
        for i, (ks, ke, vs, ve) in enumerate(entries):
            key = raw[ks + 1 : ke - 1]
            kind = raw[vs]
            if ve < 0 or ks < 0:
                actions[i] = (KEEP,)
            elif i in nulls or self.is_noise(key, vs, ve):
                fold.append(i)
            elif kind == _OBJ:
                self.brief.add(vs)
                actions[i] = (RECURSE, _extend(path, _seg(key)), False)
            elif kind != _ARR and (ve - vs <= BRIEF_SCALAR or key.lower() in self.decision) \
                    and self.member_action((ks, ke, vs, ve), path, False) not in (LINK, PAD):
                actions[i] = (KEEP,)
            elif kind == _ARR and key.lower() in PROTECT:
                actions[i] = (RECURSE, _extend(path, _seg(key)), True)
            elif kind == _ARR and self.named_list(vs):
                actions[i] = (RECURSE, _extend(path, _seg(key)), False)
            else:
                fold.append(i)
        group = None
        for a, b in _consecutive(fold):
            if group is None:
                group = self.group("brief", path, "the rest of an item shown in brief", entries[a][2])
            names = [raw[entries[i][0] + 1 : entries[i][1] - 1].decode("utf-8", "replace") for i in range(a, b + 1)]
            label = ", ".join(names[:BRIEF_NAMES]) + (f" and {len(names) - BRIEF_NAMES} more" if len(names) > BRIEF_NAMES else "")
            before = _json_str("\u2026") + self.colon(entries[a]) + _json_str(label + ": ")[:-1]
            actions[a] = (RUN, group, before, b)
            actions[a + 1 : b + 1] = _INSIDE_RUN * (b - a)
        return actions

    def named_list(self, vs: int) -> bool:
        """Whether the array at ``vs``, a member of an item in brief (a recorded exchange's ``response``:
        the issues it returned), is a few resources (objects with an ``id`` or a ``number``) each shown by
        its identity (``plan_identity``: id, number, title, state …) in ``BRIEF_LIST`` bytes or less; if
        so they are marked for it. Not when the document is folded harder for the room (``TIGHTER``)."""
        if self.notable_max < NOTABLE_MAX or self.brief_max < BRIEF_MAX:
            return False
        raw = self.raw
        entries, _ = scan_level(raw, vs, self.ends)
        if not entries or len(entries) > BRIEF_LIST_ITEMS or any(raw[e[2]] != _OBJ or e[3] < 0 for e in entries):
            return False
        for e in entries:
            keys = {raw[k[0] + 1 : k[1] - 1] for k in scan_level(raw, e[2], self.ends)[0] if k[0] >= 0}
            if not keys & RESOURCE_KEYS:
                return False
        costs = [self.identity_cost(e[2], 1) for e in entries]
        if not all(costs) or sum(costs) > BRIEF_LIST:
            return False
        self.identity_lists.add(vs)
        for e in entries:
            self.identity[e[2]] = 1
        return True

    def noise_key(self, kl: bytes) -> bool:
        """Whether a key (lower case) is a noise key's (``noise_keys``; ``_debug`` as ``debug``)."""
        return kl in self.noise or kl.lstrip(b"_") in self.noise

    def is_noise(self, key: bytes, vs: int, ve: int) -> bool:
        """Whether a member is a noise key's (``headers``, ``debug`` …) worth parking: an item in brief
        folds it with the rest it does not show."""
        kl = key.lower()
        return self.noise_key(kl) and ve >= 0 and ve - vs >= NOISE_MIN \
            and not (self.raw[vs] == _OBJ and self.names_something(vs))

    def member_action(self, entry, path, protected: bool):
        """What to do with one object member: an action, ``PAD`` or ``LINK`` (bucketed with its
        siblings of that kind), or None (an ordinary member, decided with its siblings)."""
        ks, ke, vs, ve = entry
        raw = self.raw
        key = raw[ks + 1 : ke - 1]
        kl = key.lower()
        container = raw[vs] == _OBJ or raw[vs] == _ARR
        if kl in self.decision:
            return (RECURSE, _extend(path, _seg(key)), protected or kl in PROTECT) if container else (KEEP,)
        if self.link_re is not None and ve >= 0 and kl not in self.link_keep \
                and self.link_re.match(kl.decode("utf-8", "surrogateescape")) and self.is_link_value(vs, ve):
            return LINK
        if self.noise_key(kl):
            if raw[vs] == _OBJ and ve >= 0 and self.names_something(vs):
                return None  # a package's or a resource's metadata: walked like any member
            if (ve if ve >= 0 else len(raw)) - vs >= NOISE_MIN:  # a truncated one: the rest of the input
                return (NOISE, _extend(path, _seg(key)))
            return (RECURSE, _extend(path, _seg(key)), protected) if container else (KEEP,)
        if ve >= 0 and self.pad_re is not None and self.pad_re.match(kl.decode("utf-8", "surrogateescape")):
            return PAD
        if self.is_decision_word(key):
            return (RECURSE, _extend(path, _seg(key)), protected) if container else (KEEP,)
        return None

    def names_something(self, vs: int) -> bool:
        """Whether the object at ``vs`` has a ``name`` (or ``namespace``) member next to a ``version``
        or a ``namespace``: it identifies a package or a resource (pip's and Kubernetes' ``metadata``),
        so it is no noise."""
        raw = self.raw
        keys = {raw[ks + 1 : ke - 1] for ks, ke, _, _ in scan_level(raw, vs, self.ends)[0]}
        return b"name" in keys and (b"version" in keys or b"namespace" in keys)

    def is_link_value(self, vs: int, ve: int) -> bool:
        """A URL (``scheme://…``, ``/path``, ``git@host:…``), or a container of links (HAL ``_links``)."""
        raw = self.raw
        c = raw[vs]
        if c == _STR:
            head = raw[vs + 1 : min(ve - 1, vs + 24)]
            return b"://" in head or head.startswith((b"/", b"git@", b"mailto:"))
        if c == _OBJ or c == _ARR:
            body = raw[vs : min(ve, vs + 4096)]
            return b'"href"' in body or b"://" in body
        return False

    def has_human_link(self, entries) -> bool:
        """Whether the object has a ``link_keep`` member (``html_url``) that stays in view."""
        raw = self.raw
        return bool(self.link_keep) and any(raw[ks + 1 : ke - 1].lower() in self.link_keep for ks, ke, _, _ in entries)

    def bucket_keys(self, members: list[int], entries, actions: list, path, kind: str, globs: list[str],
                    human: bool = False) -> bool:
        """Park ``members`` (padding keys or link fields of one object) in one ref, shown as one member
        where the first was; False (nothing done) when they hold too few bytes to be worth it. An
        object's one ``url``/``href`` stays unless a human link (``human``: ``html_url``) stays."""
        raw = self.raw
        if sum(entries[i][3] - entries[i][0] for i in members) < BUCKET_MIN:
            return False
        if kind == "links" and not human and len(members) == 1 and raw[entries[members[0]][2]] == _STR \
                and raw[entries[members[0]][0] + 1 : entries[members[0]][1] - 1].lower() in LONE_LINKS:
            return False  # an object's one url/href names it (a reference, a homepage): it stays
        keys = [raw[entries[i][0] + 1 : entries[i][1] - 1].lower().decode("utf-8", "surrogateescape") for i in members]
        firsts = {next((g for g in globs if fnmatch.fnmatchcase(k, g)), kind) for k in keys}  # each key's first glob
        label = "|".join(g for g in globs if g in firsts) or kind
        count = len(members)
        noun = "padding key" if kind == "padding" else "link field"
        group = self.group(kind, path, f"{count} {noun}s ({label})", entries[members[0]][0])
        shown = f"{count} {'key' if kind == 'padding' else 'link'}{'s' if count > 1 else ''}: "
        self.bucket(members, actions, group, _json_str(label) + self.colon(entries[members[0]]) + _json_str(shown)[:-1])
        return True

    def colon(self, member) -> bytes:
        """The colon of a member with the spaces around it as the input wrote them (``": "``, ``":"``):
        a marker member is written the same way."""
        sep = self.raw[member[1] : member[2]]
        return sep if len(sep) <= 8 and sep.strip() == b":" else b": "

    def fold_map(self, entries, normal: list[int], actions: list, path) -> None:
        """Fold an object whose many ordinary members hold same-shaped values like an array: members
        holding containers (``{"1.0": {...}, "1.1": {...}}``), or scalars under keys that are data
        (versions, ids, dates: most keys hold a digit), such as a registry's ``time`` map."""
        cfg = self.cfg
        raw = self.raw
        if len(normal) < cfg.array_min or 5 * len(normal) < 4 * len(entries):
            return
        complete = [i for i in normal if entries[i][3] >= 0]
        if len(complete) < cfg.array_min:
            return
        containers = sum(1 for i in complete if raw[entries[i][2]] in (_OBJ, _ARR))
        if containers == len(complete):
            pass
        elif containers or not self.data_keys(entries, complete):
            return
        if self.same_shape(entries, complete):
            self.summarise(entries, complete, actions, path, "keys")

    def data_keys(self, entries, idxs: list[int]) -> bool:
        """Whether the keys look like data rather than field names: most of them hold a digit."""
        raw = self.raw
        digits = sum(1 for i in idxs if DIGIT.search(raw, entries[i][0], entries[i][1]))
        return 10 * digits >= 6 * len(idxs)

    def plan_array(self, entries, path, protected: bool, unit: str = "items") -> list:
        actions: list = [None] * len(entries)
        if all(e[3] >= 0 and e[0] != BAD for e in entries):  # the usual case: no list of every index
            complete = range(len(entries))
        else:
            complete = [i for i, e in enumerate(entries) if e[3] >= 0 and e[0] != BAD]
        if not protected and complete and self.long_enough(entries, complete):
            self.summarise(entries, complete, actions, path, unit)
        child = _extend(path, "[]") if unit == "items" else path  # top-level values sit at $
        for i, (ks, ke, vs, ve) in enumerate(entries):
            if actions[i] is None:
                actions[i] = (KEEP,) if ks == BAD else self.plain_action(vs, ve, child, protected)
        return actions

    def long_enough(self, entries, complete) -> bool:
        """Whether an array's complete items are worth folding: ``array_min`` same-shaped containers
        (four times that many scalars), or a few big same-shaped containers (``BIG_ITEMS`` bytes); in a
        document unfolded for its room (``UNFOLDED``) only big ones (``ITEM_BIG`` each on average: a
        check run's 3 KB, not a release's 260 bytes of a list of 50) or alike ones (``alike``), NDJSON's
        lines as an array's items (``jq -c`` of 130 fixtures, 10.8 KB, had shown 4 records and a count)."""
        cfg = self.cfg
        raw = self.raw
        n = len(complete)
        scalar = raw[entries[complete[0]][2]] not in (_OBJ, _ARR)
        if scalar:
            enough = n >= 4 * cfg.array_min
        else:
            span = entries[complete[-1]][3] - entries[complete[0]][2]
            enough = n >= cfg.array_min or (span >= BIG_ITEMS and n >= 3 and (
                cfg.array_min != UNFOLDED or span >= ITEM_BIG * n or self.alike(entries, complete)))
        return enough and self.same_shape(entries, complete)

    def alike(self, entries, complete) -> bool:
        """Whether the items mostly repeat each other but for their numbers (``ALIKE_SHARE`` or fewer
        distinct once each digit is made ``0``): a payment's retry events, not a list of releases."""
        raw = self.raw
        texts = {raw[entries[i][2] : entries[i][3]].translate(DIGITS_TO_ZERO) for i in complete}
        return len(texts) <= len(complete) * ALIKE_SHARE

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
    def skip_single_members(self, vs: int, path, protected: bool):
        """Deep down (past ``PATH_PARTS`` levels), go straight through objects whose one member holds
        a container that is simply walked (``{"a":{"a":{…}}}``): the same result as a walk level each,
        at a few regex steps a level. Returns the container to walk, its path and protection."""
        raw, ends = self.raw, self.ends
        plain = self.plain_keys
        while True:
            m = SINGLE_MEMBER.match(raw, vs)
            if m is None:
                break
            cs = m.start(2)
            ce = ends.get(cs)
            close = CLOSE_OBJ.match(raw, ce) if ce is not None else None
            if close is None or close.end() != ends.get(vs):
                break
            key = m.group(1)
            seg = plain.get(key)
            if seg is not None:  # an ordinary key met before: its container is simply walked
                vs, path = cs, _extend(path, seg)
                continue
            action = self.member_action((m.start(1), m.end(1), cs, ce), path, protected)
            if action is None:
                seg = _seg(key[1:-1])
                if self.key_only(key[1:-1]):
                    plain[key] = seg
                action = self.plain_action(cs, ce, _extend(path, seg), protected)
            if action[0] != RECURSE:
                break
            vs, path, protected = cs, action[1], action[2]
        return vs, path, protected

    def key_only(self, key: bytes) -> bool:
        """Whether a key found ordinary is ordinary whatever its value (no link or noise key, whose
        fate depends on the value)."""
        kl = key.lower()
        if self.noise_key(kl):
            return False
        return self.link_re is None or not self.link_re.match(kl.decode("utf-8", "surrogateescape"))

    def repeated(self, vs: int, ve: int, path) -> bool:
        """A container byte-equal to one shown earlier (the same ``owner``, ``repository`` or ``app``
        object in every item of an API response) is parked behind a marker naming where it was shown."""
        if not self.cfg.repeats:
            return False
        digest = blake2b(memoryview(self.raw)[vs:ve], digest_size=16).digest()
        first = self.shown.get(digest)
        if first is None:
            self.shown[digest] = path
            return False
        label = f"\u2026 same as {_render_path(first)} above: "
        self.edit(vs, ve, self.group("repeat", path, "a value shown earlier", vs), _json_str(label)[:-1], b'"')
        return True

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
        if vs in self.identity:
            entries, _ = scan_level(self.raw, vs, self.ends)
            return entries, self.plan_identity(entries, path, self.identity[vs])
        if vs in self.brief:
            entries, _ = scan_level(self.raw, vs, self.ends)
            return entries, self.plan_brief(entries, path)
        if vs in self.identity_lists:  # every item of it by its identity
            entries, _ = scan_level(self.raw, vs, self.ends)
            return entries, [(RECURSE, _extend(path, "[]"), False)] * len(entries)
        if self.raw[vs] == _ARR and NESTED_ARRAY.match(self.raw, vs):
            vs, path = self.skip_wrappers(vs, path)
        elif self.raw[vs] == _OBJ and not shallow(path):
            vs, path, protected = self.skip_single_members(vs, path, protected)
        entries, _ = scan_level(self.raw, vs, self.ends)
        if self.raw[vs] == _OBJ:
            return entries, self.plan_object(entries, path, protected)
        return entries, self.plan_array(entries, path, protected)

    def fold_deep(self, vs: int, ve: int, path, in_array: bool) -> None:
        """A container past ``depth_max`` in one marker string naming what it holds:
        ``"dependencies": "{…} 3 keys: #ref:ctx_…"``."""
        if in_array:
            self.depth_items = True
        entries, _ = scan_level(self.raw, vs, self.ends)
        if not entries:
            return  # ``{}``, ``[]``: shown as they are
        self.deep += 1
        n, obj = len(entries), self.raw[vs] == _OBJ
        unit = ("key" if obj else "item") + ("s" if n > 1 else "")
        label = ("{\u2026} " if obj else "[\u2026] ") + f"{n} {unit}: "
        self.edit(vs, ve, self.group("deep", path, "what lies deeper than the outline shows", vs), _json_str(label)[:-1], b'"')

    def deep_identity(self, entry) -> bool:
        """Whether a container past ``depth_max`` is shown by its identity instead of one marker string
        (``plan_identity``: ``"account": {"id": "acct_1", "object": "account", "…": "18 more keys: #ref…"}``),
        in order while ``identity_room`` lasts: an object that something in it names, about twice as long
        as that at least."""
        if self.identity_room <= 0:
            return False
        ks, _, vs, ve = entry
        if self.raw[vs] != _OBJ:
            return False
        cost = self.identity_cost(vs, 0)
        if not cost or cost > IDENTITY_SHARE * (ve - vs):
            return False
        if not self.charge_identity(cost + (vs - ks if ks >= 0 else 0)):
            return False
        self.identity[vs] = 0
        return True

    def descend(self, stack: list, frame: list, action, depth_max: int | None) -> None:
        """Walk into the container ``frame`` is at (its entry before ``frame[2]``): a new frame on
        ``stack``, unless it repeats one shown before, lies past ``depth_max`` (``fold_deep``) or past
        ``MAX_PENDING`` pending levels (it stays verbatim)."""
        entries, _, i, depth, in_array = frame
        _, _, vs, ve = entries[i - 1]
        if not action[2] and REPEAT_MIN <= ve - vs <= REPEAT_MAX and shallow(action[1]) \
                and self.repeated(vs, ve, action[1]):
            return
        if depth_max is not None and depth >= depth_max and ve >= 0 and vs not in self.identity \
                and not self.deep_identity(entries[i - 1]):
            self.fold_deep(vs, ve, action[1], in_array)
            return
        if i == len(entries):
            stack.pop()  # nothing left at this level: `[[[…]]]` holds one frame, not one per level
        elif len(stack) >= MAX_PENDING:
            return  # that deep with work pending on every level: the value stays verbatim
        stack.append([*self.children(vs, action[1], action[2]), 0, depth + 1, in_array or self.raw[vs] == _ARR])

    def run(self) -> Plan:
        raw = self.raw
        start = document_start(raw)  # lines printed before the document stay as they are
        if start < 0:
            start = len(BOM) if raw.startswith(BOM) else 0
        items, ndjson = top_level(raw, start, self.ends)
        if not items:
            return passthrough(raw)
        if len(items) == 1 and raw[items[0][2]] == _OBJ:
            self.important = important_values(raw, items[0][2], self.ends)
        # the top-level values are walked like the elements of an array (one, or NDJSON lines)
        stack = [[items, self.plan_array(items, None, False, unit="lines" if ndjson else "values"), 0, 0, False]]
        depth_max = self.depth_max
        while stack:
            frame = stack[-1]
            entries, actions, i, depth, in_array = frame
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
                self.descend(stack, frame, action, depth_max)
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



def _consecutive(positions: list[int]) -> list[tuple[int, int]]:
    """Runs ``(first, last)`` of consecutive numbers in an ascending list."""
    runs: list[tuple[int, int]] = []
    for p in positions:
        if runs and runs[-1][1] == p - 1:
            runs[-1] = (runs[-1][0], p)
        else:
            runs.append((p, p))
    return runs


def _hits_on_items(entries, idxs, hits: array, hit_pairs: array, useful: bytearray) -> tuple[array, array]:
    """Each useful hit's item (its position in ``idxs``) and pair; the items and the hits both move
    forward, so this is one merge."""
    starts, ends = entries.vs, entries.ve
    n = len(idxs)
    at_items, item_pairs = array("q"), array("i")
    j = 0
    for at, pid in zip(hits, hit_pairs):
        if not useful[pid]:
            continue
        while j < n and ends[idxs[j]] <= at:
            j += 1
        if j == n:
            break
        if at >= starts[idxs[j]]:
            at_items.append(j)
            item_pairs.append(pid)
    return at_items, item_pairs


def _null_runs(raw: bytes, entries) -> set[int]:
    """The members of an object in brief whose value is ``null`` next to another such member: a run
    of them is one line naming them, a lone one stays (its line is shorter than the marker's)."""
    null = [ve >= 0 and ks >= 0 and raw[vs:ve] == b"null" for ks, _, vs, ve in entries]
    return {i for i, n in enumerate(null) if n and ((i and null[i - 1]) or (i + 1 < len(null) and null[i + 1]))}


def _keep_new_values(at_items: array, item_pairs: array, keep: bytearray, pairs: int) -> list[int]:
    """Keep each item that shows a pair no kept item shows yet (items in order); returns them."""
    added: list[int] = []
    seen = bytearray(pairs)
    for j, pid in zip(at_items, item_pairs):  # what the kept items show already
        if keep[j]:
            seen[pid] = 1
    k, count = 0, len(at_items)
    while k < count:  # item by item (their hits are next to each other)
        j, e = at_items[k], k + 1
        while e < count and at_items[e] == j:
            e += 1
        new = [pid for pid in item_pairs[k:e] if not seen[pid]]
        if new and not keep[j]:
            keep[j] = 1
            added.append(j)
            for pid in new:
                seen[pid] = 1
        k = e
    return added

FITS = True  # the reducer fits a document to the room itself (operators.ceiling cuts it at the budget only)
ROOM_SHARE = 0.5  # of the output ceiling a document may show with its long arrays and maps unfolded ...
ROOM_MIN = 8_000  # ... but at least this (under a small ceiling: Codex's) ...
ROOM_MAX_SHARE = 0.9  # ... and at most this part of the ceiling, which is also the room of a folded document
# with its folded items by their identity (``IDENTITY``: each names an item of the list, no redundancy) ...
IDENTITY_MAX_BYTES = 8 << 20  # ... in a document up to this size (a third walk of a bigger one costs too much)
IDENTITY_TRIES = 4  # walks to show them in: a view over the room is tried again with less, one far under it with
IDENTITY_FILLED = 0.8  # more, unless it spent this much of the room (its costs are estimates)
UNFOLDED = 1 << 40  # array_min that no array reaches


def reduce(raw: bytes, granularity: str, config) -> Plan:
    """The plan of a JSON document. One that fits the room (``ROOM_SHARE`` of the output ceiling, at
    least ``ROOM_MIN``) with its long arrays and maps whole keeps them whole (a package list, a short
    API answer: each item is content); noise, padding and link fields go to refs all the same. A
    bigger one folds them (module docstring) and shows its folded items by their identity in the
    room left."""
    from operators.ceiling import visible_size

    cfg = section(config, NAME)
    ceiling = section(config, "ceiling").max_chars
    room = min(int(ceiling * ROOM_MAX_SHARE), max(int(ceiling * ROOM_SHARE), ROOM_MIN))
    named_room = int(ceiling * ROOM_MAX_SHARE)  # for the folded items by their identity
    try:
        plan = make = None
        if len(raw) <= 4 * room:
            unfolded = msgspec.structs.replace(cfg, array_min=UNFOLDED)  # big items still fold (``long_enough``)
            whole = _Reducer(raw, granularity, unfolded).run()
            if visible_size(whole) <= room:
                plan, make = whole, partial(_Reducer, raw, granularity, unfolded)
        if plan is None:
            fit = section(config, "ceiling").budget_chars
            first = _Reducer(raw, granularity, cfg)
            plan, folded = first.run(), first.failing_folded
            del first  # (its walk's tables are not held while the next walks run)
            if folded and visible_size(plan) <= fit:  # not to be folded harder: failing items may fill the room
                plan, make = _more_failing(raw, granularity, cfg, plan, folded, room)
            else:
                plan, make = _tightened(raw, granularity, cfg, plan, fit)
            if visible_size(plan) > room and len(raw) > fit:  # no room to name what it folded: an outline may
                outline = _outline(raw, granularity, cfg, fit)  # show more
                if outline is not None:
                    return outline
        spare = named_room - visible_size(plan)
        if not cfg.identity or spare < IDENTITY_MIN or len(raw) > IDENTITY_MAX_BYTES or not plan.omits_anything:
            return plan
        base, allowed, best = named_room - spare, spare, plan
        for _ in range(IDENTITY_TRIES):  # the folded items shown by their identity while the room lasts
            named = make()
            named.identity_room = allowed
            shown = named.run()
            size = visible_size(shown)
            if not named.identity and not named.named_whole:
                return best  # nothing folded could be named
            if size <= named_room:
                best = shown
                if named.identity_room or size - base >= spare * IDENTITY_FILLED:
                    return shown  # every folded item named, or the room about spent
                # the costs were reckoned long: the room is far from spent, try with as much more
            allowed = allowed * spare // max(size - base, 1) - MARKER_EST  # (reckoned short: with as much less,
            if size > named_room:  # and a twentieth less at least: a view just over stays over with a few bytes less)
                allowed = min(allowed, allowed * 19 // 20)
            if allowed < IDENTITY_MIN:
                break
        return best
    except RecursionError:
        return passthrough(raw)


FAILING_FILL_MAX_BYTES = 512 << 10  # a bigger document is not walked again to show more of its failing items
FAILING_FILL_TRIES = 6  # walks at most (each walks the whole document)


def _more_failing(raw: bytes, granularity: str, cfg, plan: Plan, folded: int, room: int, test_runs: bool = True):
    """A folded document whose failing items are not all shown (``NOTABLE_MAX`` whole a long array, and
    none in brief when they are too many for ``BRIEF_MAX``: ``go test -json``'s 119 failing lines)
    shows as many more of them whole, the first ones, as fit ``room``: every one when they fit, else
    the most found by halving in ``FAILING_FILL_TRIES`` walks (a test's lines come with its failing
    one, so the size grows in steps). When some are still left out so, the failing lines without
    their tests' other lines (``test_runs`` false, as a view folded harder for the room shows them) are
    shown instead if fewer are left out then: every failing test's ``fail`` record before one test's
    60 lines of output. The plan and its maker (for the identity view)."""
    shown, make, left = _more_failing_walks(raw, granularity, cfg, plan, folded, room, test_runs)
    if test_runs and left:
        bare = _more_failing_walks(raw, granularity, cfg, plan, folded, room, False)
        if bare[2] < left:
            return bare[:2]
    return shown, make


def _more_failing_walks(raw: bytes, granularity: str, cfg, plan: Plan, folded: int, room: int, test_runs: bool):
    """``_more_failing``'s halving: the plan, its maker and how many failing items it still folds."""
    from operators.ceiling import visible_size

    best = plan, partial(_Reducer, raw, granularity, cfg, test_runs=test_runs), folded
    if len(raw) > FAILING_FILL_MAX_BYTES or visible_size(plan) >= room:
        return best
    lo, hi = NOTABLE_MAX + 1, NOTABLE_MAX + folded
    mid = hi  # every failing item first
    for _ in range(FAILING_FILL_TRIES):
        more = partial(_Reducer, raw, granularity, cfg, mid, test_runs=test_runs)
        reducer = more()
        tried = reducer.run()
        if visible_size(tried) <= room:
            best, lo = (tried, more, reducer.failing_folded), mid + 1
        else:
            hi = mid - 1
        if lo > hi:
            break
        mid = (lo + hi) // 2
    return best


OUTLINE_MAX_BYTES = 8 << 20  # a bigger document is not walked again for an outline
OUTLINE_DEPTHS = range(2, 13)  # levels an outline shows: at least two (a map's keys and what each holds)


def _outline(raw: bytes, granularity: str, cfg, fit: int) -> Plan | None:
    """A document that folding leaves over its room (a dependency tree: ``npm ls --all --json``, whose
    folded map keeps a few dependencies whole and names none of the others), shown breadth first:
    every member down to the deepest level at which the whole fits, each container below it one
    marker string (``fold_deep``), nothing folded beside. None when not even two levels fit, when
    fewer than two containers lie below them (a chain of single members is no tree), or when it would
    fold anything inside an array (a list of items: the folded view names them better, by their
    identity, the failing ones first)."""
    from operators.ceiling import visible_size

    if len(raw) > OUTLINE_MAX_BYTES:
        return None
    unfolded = msgspec.structs.replace(cfg, array_min=UNFOLDED)
    best = None
    for depth in OUTLINE_DEPTHS:
        reducer = _Reducer(raw, granularity, unfolded)
        reducer.depth_max = depth
        tried = reducer.run()
        if reducer.depth_items or visible_size(tried) > fit or reducer.deep < 2:
            break  # (one container folded: a chain, ``{"a":{"a":…}}``, no tree)
        best, best_depth = tried, depth
    if best is None or not cfg.identity:
        return best
    size = visible_size(best)
    allowed = spare = fit - size  # the room left: the folded containers shown by their identity, in order
    for _ in range(IDENTITY_TRIES):
        if allowed < IDENTITY_MIN:
            break
        named = _Reducer(raw, granularity, unfolded)
        named.depth_max, named.identity_room = best_depth, allowed
        shown = named.run()
        shown_size = visible_size(shown)
        if shown_size <= fit:
            return shown
        allowed = min(allowed * spare // max(shown_size - size, 1), allowed * 19 // 20) - MARKER_EST
    return best


# What a folded document over the ceiling gives up, step by step: long strings (a failure's traceback)
# to a ref sooner; then failing items past the first shown in brief (their short fields); then every
# item kept for what it carries in brief, none whole; then as many in brief as fit (the first ones), the
# others counted in the runs' markers
TIGHTER_MAX_BYTES = 8 << 20  # a bigger document is not walked again (up to ten more walks): the ceiling cuts it
LINES_CUT = 200  # a document shown on more lines than this is left to the ceiling past the last step
TIGHTER = (({"string_max": 512}, NOTABLE_MAX), ({"string_max": 160, "array_keep": 1}, 1),
           ({"string_max": 160, "array_keep": 0, "array_keep_last": 0}, 0))


def _lines_shown(plan: Plan) -> int:
    raw, pieces = plan.raw, plan.pieces
    return sum(raw.count(b"\n", s, e) for kind, s, e in zip(pieces.kinds, pieces.starts, pieces.ends) if kind == KEPT)


def _tightened(raw: bytes, granularity: str, cfg, plan: Plan, fit: int):
    """A folded document still over ``fit`` bytes (the ceiling would cut it blind: a one-line document
    to its first line's head) folded harder (``TIGHTER``), until it fits (the failing NDJSON lines a step
    left out then come back, the first ones, while they fit, without their tests' other lines:
    ``_more_failing``); past the last step, the most items in brief that fit are found by halving.
    Returns the plan and a maker of reducers with its settings (for the identity view)."""
    from operators.ceiling import visible_size

    make = partial(_Reducer, raw, granularity, cfg)
    if len(raw) > TIGHTER_MAX_BYTES:
        return plan, make
    briefs = folded = 0
    for step, notable in TIGHTER:
        if visible_size(plan) <= fit:
            break
        tighter = msgspec.structs.replace(cfg, **{k: min(v, getattr(cfg, k)) for k, v in step.items()})
        runs = notable >= NOTABLE_MAX  # past the first step, a failing line comes without its test's lines
        make = partial(_Reducer, raw, granularity, tighter, notable, test_runs=runs)
        reducer = make()
        plan, briefs = reducer.run(), reducer.briefs
        folded = 0 if runs else reducer.failing_folded
    if visible_size(plan) <= fit and folded:  # failing lines left out with their tests' other lines: more of them while they fit
        return _more_failing(raw, granularity, tighter, plan, folded, fit, test_runs=False)
    if visible_size(plan) <= fit or _lines_shown(plan) > LINES_CUT:
        return plan, make  # many lines over: the ceiling keeps the lines that matter of every item
    lo, hi, best = 0, briefs - 1, None  # the most briefs under ``fit``: between 0 and one fewer than shown
    while lo <= hi:
        mid = (lo + hi + 1) // 2
        shown = partial(_Reducer, raw, granularity, tighter, 0, mid)
        reducer = shown()
        tried = reducer.run()
        if visible_size(tried) <= fit:
            best, lo = (tried, shown), mid + 1
        else:
            hi = min(mid, reducer.briefs) - 1
    return best or (plan, make)


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
        "_links", "links", "headers", "request_headers", "response_headers", "reqheaders", "rawHeaders", "meta", "metadata",
        "raw", "internal", "profiling", "timings", "spans", "logs", "history", "audit",
    ])
    padding_globs: list[str] = msgspec.field(default_factory=lambda: ["padding_*", "noise_*", "filler_*", "_pad*"])
    array_keep: int = 3  # long arrays of same-shaped objects keep this many items visible
    array_min: int = 8  # ... once they have at least this many
    string_max: int = 2048  # longer non-decision strings go to a ref
    array_keep_last: int = 1  # ... and this many at their end
    # an item whose value of one of these (or a key ending in one) differs from every kept item's stays
    fold_fields: list[str] = msgspec.field(default_factory=lambda: [
        "status", "code", "error", "state", "conclusion", "severity", "result", "outcome", "message",
    ])
    keep_keys: list[str] = msgspec.field(default_factory=lambda: ["latest", "created", "modified", "current", "stable"])
    links_noise: bool = True  # hypermedia link fields holding a URL go to one ref per object
    link_keys: list[str] = msgspec.field(default_factory=lambda: [
        "*_url", "url", "href", "_links", "links", "*_link", "link", "*_href", "*_uri", "uri", "*Url", "*Uri", "*Href",
    ])
    link_keep: list[str] = msgspec.field(default_factory=lambda: ["html_url"])  # human links stay
    repeats: bool = True  # a container byte-equal to one shown before it is parked behind a marker
    identity: bool = True  # room left under the ceiling shows folded items by what names them (IDENTITY)


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
        return is_valid_json(raw, surrogates=True)  # msgspec refuses deep nesting and escaped lone surrogates


def is_ndjson(lines: list[bytes]) -> bool:
    return len(lines) >= 2 and all(map(_json_line, lines))


def _json_line(line: bytes) -> bool:
    """Whether a line is one JSON object or array."""
    s = line.strip()
    if s[:1] not in (b"{", b"["):
        return False
    try:
        msgspec.json.decode(s)
    except msgspec.DecodeError:
        return False
    return True


PREAMBLE_LINES = 8  # lines a tool may print before its JSON document (ruff's and npm's warnings)
PREAMBLE_MAX = 4096  # bytes of them at most


def document_start(raw: bytes) -> int:
    """Where the JSON document of an input starts: after a BOM, or after a few lines a tool printed
    before it (``warning: …`` then ``[`` on a line of its own) when the rest is one JSON document or
    NDJSON; -1 when there is none."""
    start = len(BOM) if raw.startswith(BOM) else 0
    if raw[start:].lstrip()[:1] in (b"{", b"["):
        return start
    pos = start
    for _ in range(PREAMBLE_LINES):
        end = raw.find(b"\n", pos, start + PREAMBLE_MAX)
        if end < 0:
            return -1
        pos = end + 1
        if raw[pos : pos + 1] in (b"{", b"[") and (parses_json(raw[pos:]) or _ndjson_from(raw, pos)):
            return pos
    return -1


STRAY_SHARE = 10  # NDJSON after lines printed before it may hold one stray line in this many
STRAYS_AMONG = 2  # NDJSON from its first line may hold up to one stray line in this many (cargo's "Checking x"
# and "error: could not compile" on stderr between its JSON messages on stdout)
NDJSON_PROBE = (4096, 65536)  # bytes of lines read to tell NDJSON: more when the first holds under two records


def _ndjson_from(raw: bytes, pos: int, share: int = STRAY_SHARE, first: int = 2) -> bool:
    """Whether the lines from ``pos`` (the first 4 KB of them, a last cut line left out; up to 64 KB
    when that is not two lines: a compiler's JSON messages take a few KB each) are NDJSON: the first
    ``first`` parse, and so does all but one line in ``share`` (a tool's stderr line printed between
    its records, cargo's ``error: could not compile`` among its JSON messages, stays as printed); two
    lines at least."""
    for size in NDJSON_PROBE:
        head = raw[pos : pos + size]
        lines = [line for line in head.split(b"\n") if line.strip()]
        if len(raw) > pos + size and lines:
            lines.pop()
        if len(lines) >= 2 or len(raw) <= pos + size:  # two records, or all there is
            break
    if len(lines) < 2 or not all(map(_json_line, lines[:first])):
        return False
    stray = sum(not _json_line(line) for line in lines[first:])
    return stray * share <= len(lines) and len(lines) - stray >= 2


def detect(sample) -> str | None:
    if not maybe.json(sample):
        return None  # no "{" or "[" where a document or NDJSON can start
    if sample.head.lstrip()[:1] in (b"{", b"[") and parses_json(sample.raw):
        return "parses as JSON"
    start = document_start(sample.raw)
    if start > 0:
        lines = sample.raw.count(b"\n", 0, start)
        return f"parses as JSON after {lines} line{'s' if lines != 1 else ''} printed before it"
    if is_ndjson(sample.lines) and not json_records(sample.lines):  # a log of JSON records is the log type's
        return "NDJSON: every sampled line parses"
    if _ndjson_from(sample.raw, 0, STRAYS_AMONG, first=1) and not json_records(sample.lines):
        return "NDJSON with a tool's own lines among its records"  # cargo --message-format=json 2>&1
    if is_json_prefix(sample.head):
        return "a JSON document cut short (its end is missing: head -n, a truncated download)"
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
    from operators.rank import is_context_line

    if decision_key_re(section(config, NAME).decision_keys).search(text):
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
