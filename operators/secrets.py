"""The one secret detector: where, in bytes, a secret value lies (a leaf module: it imports nothing
from the project but ``operators.relazy``, a leaf too).

Secret values are found by one RE2 scan (bytes as Latin-1: any input, valid UTF-8 or not). The shapes:

* ``key=value`` and ``key: value`` where the key names a secret (``password``, ``passwd``,
  ``secret``, ``token``, ``api_key``/``apikey``, ``access_key``, ``private_key``, ``credential``, …):
  log fields, URL query strings (``?access_token=…&``), ``KEY=value`` environment lines, config and
  source lines (``api_key = "…"``, ``password: "…"``); a key that only holds such a word
  (``SECRET_KEY_BASE``, ``session_auth``) hides a value that looks random (high entropy);
* JSON string fields whose name ends with such a word (``"api_key"``, ``"token"``, ``"access_token"``,
  ``"client_secret"``, ``"password"`` …), also escaped inside a JSON string (``\\"token\\": \\"…\\"``);
* the password of a URL's ``user:password@``;
* HTTP ``Authorization: Bearer …``/``Basic …`` credentials, and a ``Bearer`` token anywhere;
* the body of a PEM private key (``-----BEGIN … PRIVATE KEY-----`` to its ``-----END``);
* bare provider tokens: AWS access key ids (``AKIA…``, ``ASIA…``), GitHub (``ghp_``, ``gho_``,
  ``ghu_``, ``ghs_``, ``ghr_``, ``github_pat_``), GitLab (``glpat-``), Slack (``xox[abposr]-``),
  OpenAI-like ``sk-…`` (long, letters and digits), Stripe (``sk_live_``), npm (``npm_``), Hugging
  Face (``hf_``), Google API keys (``AIza…``) and JWTs (``eyJ….eyJ….…``).

A value that is a placeholder (``***``, ``<redacted>``, ``${VAR}``, ``null``, ``true``, a short
number, a version range) is not a secret, nor is the name after a test runner's ``PASS:`` (``--- PASS: TestParse2``). Only the value is a span: the key stays readable.

``scan(data, start, end)`` gives the ``(start, end)`` of every secret value; ``hide(data)`` replaces
each value by ``[secret hidden]`` (text with no ref of its own: a summary, a search result);
``split(data)`` cuts ``data`` at every value (the SIGNAL check asks for the pieces around a hidden
value). Cost: one RE2 search over the buffer when it holds no secret (about what the safety pass's
own search costs).
"""

from __future__ import annotations

import math
from collections import Counter
from functools import cache

import re2

from operators.relazy import NO_SPAN, lazy, re2_program  # lazy: the patterns most runs never use, compiled on first use

HIDDEN = b"[secret hidden]"
MULTILINE_HINT = b"PRIVATE KEY"  # the one shape that spans lines: a PEM private key
REASON = "secret values hidden from the visible text"
GROUP = "secrets"  # the plan group of hidden values (operators.stages.REDACTED)

_STRONG = (  # a key ending with one of these names a secret: any real value of it is hidden
    rb"passwords?|passwd|passphrase|pass|secrets?|tokens?|api[_-]?keys?|apikeys?|access[_-]?keys?"
    rb"|secret[_-]?keys?|private[_-]?keys?|signing[_-]?keys?|auth[_-]?keys?|credentials?|client[_-]?secret"
    rb"|auth[_-]?token|session[_-]?(?:id|key|token)|dsn"
)
_WEAK = rb"secret|token|passw|api[_-]?key|apikey|credential|private|auth|session|signature|key"
_KEY = rb"[A-Za-z0-9_.-]*?(?:" + _WEAK + rb")[A-Za-z0-9_.-]*?"
_VALUE = (  # a quoted string, or a bare run up to a space, a quote, a backslash or a separator of fields
    rb"\"((?:[^\"\\\n]|\\.)+)\"|'([^'\n]+)'|\\\"([^\"\\\n]+)\\\"|([^\s\"'`&,;<>()\[\]\\]+)"
)
_PROVIDER = (
    rb"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b"
    rb"|\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}\b|\bglpat-[A-Za-z0-9_-]{20,}"
    rb"|\bxox[abposr]-[A-Za-z0-9-]{10,}|\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{20,}"
    rb"|\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}|\bnpm_[A-Za-z0-9]{36}\b|\bhf_[A-Za-z0-9]{30,}\b"
    rb"|\bAIza[0-9A-Za-z_-]{35}|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{2,}"
)
# one alternative a shape, each with its numbered groups: 1-4 PEM, 5 Authorization, 6 Bearer, 7-8 JSON
# (key, value), 9 URL password, 10 provider token, 11-16 key, separator and value (double-quoted,
# single-quoted, in escaped quotes, bare), 17 a random-looking value, 18 an escaped JSON field's value
_PATTERN = (
    # 1: a PEM private key's body (to its END line, or a run of base64 when the END is missing)
    rb"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----\s*((?s:.*?))\s*-----END [A-Z0-9 ]*PRIVATE KEY"
    rb"|-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----([A-Za-z0-9+/=\s\\]{16,})"
    # 2: Authorization header (any quoting), then a Bearer token anywhere
    rb"|(?i:\b(?:proxy-)?authorization)[\"']?\s*[:=]\s*[\"']?(?i:(?:bearer|basic|token|digest|bot|apikey)\s+)?"
    rb"([^\s\"'`,;<>\\]{4,})"
    rb"|(?i:\bbearer\s+)([A-Za-z0-9._~+/=-]{12,})"
    # 3: a JSON field named for a secret, with a string value
    rb"|\"((?i:[A-Za-z0-9_.-]*?(?:" + _STRONG + rb")))\"\s*:\s*\"((?:[^\"\\\n]|\\.)+)\""
    # 4: a URL's user:password@
    rb"|\b[A-Za-z][A-Za-z0-9+.-]+://[^\s/:@\"'<>\\]+:([^\s/@\"'<>\\]+)@"
    # 5: provider tokens
    rb"|(" + _PROVIDER + rb")"
    # 6: key = value, key: value (the key ends with a secret word)
    rb"|\b((?i:[A-Za-z0-9_.-]*?(?:" + _STRONG + rb")))(\s*[=:]\s*)(?:" + _VALUE + rb")"
    # 7: a long token-like value of a key that holds a secret word
    rb"|\b(?i:" + _KEY + rb")\s*[=:]\s*[\"']?([A-Za-z0-9+/=_~.-]{16,})"
    # 8: a JSON field named for a secret inside a JSON string (escaped quotes: a logged request body)
    rb"|\\\"(?i:[A-Za-z0-9_.-]*?(?:" + _STRONG + rb"))\\\"\s*:\s*\\\"([^\"\\\n]+)\\\""
)


def _options():
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.log_errors = False
    return options


def _compile(pattern: bytes):
    """An RE2 pattern over bytes as Latin-1, compiled on first use (every scan uses ``SECRET_RE``; the
    others only when a value is found or an environment is listed)."""
    return lazy(pattern, _options(), compiler=re2.compile)


SECRET_RE = re2.compile(_PATTERN, _options())
# a version (dotted: 7.1.3, 2.x) or one under an operator (^4.0.0-rc.1, >=3): never a long bare number
_RANGE = rb"(?:[\^~<>=]+\s*v?\d+(?:\.(?:\d+|[x*]))*|v?\d+(?:\.(?:\d+|[x*]))+)(?:[-+][0-9A-Za-z.]+)?"
_PLACEHOLDER = _compile(
    rb"(?i)\A(?:\**|x{3,}|\.{3,}|-+|_+|<[^>]*>|\$\{?[A-Za-z_][\w.]*\}?|%[sd]|\{\{[^}]*\}\}|\{[^}]*\}|%\([^)]*\)s"
    rb"|null|none|nil|true|false|yes|no|on|off|undefined|redacted|\[redacted\]|hidden|masked|changeme|secret"
    rb"|password|token|\[secret hidden[^\]]*\]|#ref\\?:ctx_[0-9a-f]+|\d{1,9}|latest"
    # a version or a range of them (``"minipass": "^7.1.3"``, ``"js-tokens": ">=3 <5 || ^4.0.0-rc.1"``)
    rb"|" + _RANGE + rb"(?:\s*(?:\|\||-|\s)\s*" + _RANGE + rb")*)\z"
)
# a printed object's identity, not a credential: Java's and Android's ``Token{5dfb1e3 ActivityRecord{…}}``
# (a value ends at a space), ``Object@1b6d3586``; unless its key names a password (one may be anything)
_OBJECT = _compile(rb"\A[A-Z][A-Za-z0-9_$.]*(?:\{[0-9a-f]{4,16}\}*|@[0-9a-f]{4,16})\z")
# a bare value that reads a name, not a literal: letters and underscores, dotted (``self.secret``,
# ``settings.API_KEY``, ``get_password``); an attribute (a dot in it) or a name a call or subscript follows
_NAME = _compile(rb"\A[A-Za-z_]+(?:\.[A-Za-z_]+)*\z")
RESULT_WORDS = (b"PASS", b"XPASS")  # ``PASS: name`` is a test runner's line (go test, automake, TAP-like), not a key
_SCHEMES = (b"bearer", b"basic", b"token", b"digest", b"bot", b"apikey")
_TOKEN_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_~.-"  # [A-Za-z0-9+/=_~.-]


# -- environment variables (``env``, ``export -p``: the table type) ------------------------------
ENV_NAME_RE = _compile(
    rb"(?i)(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|PASS|PASSPHRASE|KEY|APIKEY|AUTH|CREDENTIAL|CREDENTIALS|"
    rb"PRIVATE|COOKIE|DSN|SIGNATURE)S?(?:_|$)|(?i:TOKEN|SECRET|PASSWORD|APIKEY|CREDENTIAL)"
)
_PLAIN_PATH = _compile(rb"[~/.][\w./:@+-]*")


def env_value_is_secret(name: bytes, value: bytes) -> bool:
    """Whether the value of the variable ``name`` must not be shown: a secret shape in it, a name
    that says secret (unless the value is a plain path or a flag), or a long random-looking value."""
    value = value.strip().strip(b"\"'")
    if not value:
        return False
    if scan(value) or value.startswith(b"-----BEGIN ") and b"PRIVATE KEY" in value:
        return True
    if ENV_NAME_RE.search(name):
        plain = _PLAIN_PATH.fullmatch(value) is not None and entropy(value) < 4.2
        return not plain and value.lower() not in (b"true", b"false", b"0", b"1")
    if len(value) >= 24 and b" " not in value and not value.startswith((b"/", b"~", b"http")) and b":/" not in value:
        classes = (any(97 <= c <= 122 for c in value), any(65 <= c <= 90 for c in value), any(48 <= c <= 57 for c in value))
        return all(classes) and entropy(value) >= 4.0
    return False


def holds_only_secrets(reason: str) -> bool:
    """Whether a ref with this reason holds the values a reduction hid (this module's, or a type's
    own ``secrets`` group): its bytes are all secret, with nothing around them to tell them by."""
    return reason == REASON or GROUP in reason.split()


def entropy(value: bytes) -> float:
    """Shannon entropy of ``value`` in bits per byte."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


def looks_random(value: bytes, min_len: int = 16) -> bool:
    """A value that looks like a generated key: long, letters and digits, high entropy."""
    if len(value) < min_len or not _token_like(value) or value.startswith((b"/", b"~", b".")):
        return False  # a path is not a key
    has_digit = _has(value, _DIGITS)
    has_alpha = _has(value, _LETTERS)
    return has_digit and has_alpha and entropy(value) >= 3.0


def _token_like(value: bytes) -> bool:
    """``[A-Za-z0-9+/=_~.-]+`` matches the whole of ``value``."""
    return bool(value) and not value.translate(None, _TOKEN_BYTES)


_DIGITS = b"0123456789"
_LETTERS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _has(value: bytes, chars: bytes) -> bool:
    """Whether ``value`` holds one of the bytes ``chars`` (deleting them shortens it: at C speed)."""
    return len(value.translate(None, chars)) < len(value)


@cache
def _placeholder_program():
    """``_PLACEHOLDER``'s compiled program (``re2_program``), asked once, not once a value."""
    return re2_program(_PLACEHOLDER)


def _placeholder(value: bytes) -> bool:
    value = value.strip()
    if not value:
        return True
    program = _placeholder_program()
    if program is None or type(value) is not bytes:
        return _PLACEHOLDER.fullmatch(value) is not None
    return program[0](program[1].ANCHOR_BOTH, value, 0, len(value))[0] != NO_SPAN


def _names_key(key: bytes, value: bytes) -> bool:
    """Whether ``value`` is its key's own name, or an attribute of that name (``api_key=api_key``,
    ``"client_secret": "client_secret"``, ``token=opts.token``): code passing a variable on, or a
    fixture's placeholder, not a credential. Case, ``_`` and ``-`` aside."""
    def name(text: bytes) -> bytes:
        return text.rsplit(b".", 1)[-1].lower().replace(b"_", b"").replace(b"-", b"")

    word = value.replace(b".", b"").replace(b"-", b"").replace(b"_", b"")
    return bool(value) and name(value) == name(key) and word.isalnum()


def _reads_code(key: bytes, value: bytes, after: bytes) -> bool:
    """Whether a bare ``value`` (``after``: the byte that follows it) is code or a printed object, not a
    credential: a name a call or a subscript follows (``password=auth[1]``, ``token=get_token()``; not
    a long run of letters, which may be a key), or, under a key that names no password, a printed
    object's identity (``token=Token{5dfb1e3``) or an attribute read (``secret=self.secret``)."""
    name = _NAME.search(value) is not None
    if name and after in (b"(", b"[") and (len(value) <= 24 or b"_" in value or b"." in value):
        return True
    return b"pass" not in key.lower() and (_OBJECT.search(value) is not None or name and b"." in value)


def _kv_span(m) -> tuple[int, int] | None:
    """The span of a ``key=value`` match's value, if it is one to hide."""
    key, sep = m.group(11), m.group(12)
    for group, quoted in ((13, True), (14, True), (15, True), (16, False)):
        if m.group(group) is not None:
            value, start, end = m.group(group), m.start(group), m.end(group)
            break
    if _placeholder(value) or (key in RESULT_WORDS and sep.strip() == b":"):
        return None  # a test's result, ``--- PASS: TestParse2 (0.00s)``, names no password
    if _names_key(key, value) or not quoted and _reads_code(key, value, m.string[end : end + 1]):
        return None  # ``api_key=api_key``: the key's own name; ``password=auth[1]``: code
    if quoted or (sep == b"=" and not key.lower().endswith(b"pass")):
        return start, end  # password=…, token=… in a log or a query; api_key = "…"
    # key: value, key = value (prose, code, YAML): a value that reads as a key, not a word or an expression
    if _token_like(value) and len(value) >= 6 and _has(value, _DIGITS) and _has(value, _LETTERS):
        return start, end
    return (start, end) if looks_random(value, 20) else None


def _provider_span(m) -> tuple[int, int] | None:
    value = m.group(10)
    if value.startswith(b"sk-") and not (any(48 <= c <= 57 for c in value) and any(65 <= c <= 90 for c in value[3:])):
        return None  # sk- names (sk-learn-…): a key mixes digits and capitals
    return m.span(10)


def _span(m) -> tuple[int, int] | None:
    """The value to hide of one match (``None``: a placeholder, or not a secret after all)."""
    if m.group(11) is not None:
        return _kv_span(m)
    if m.group(17) is not None:
        return m.span(17) if looks_random(m.group(17)) else None
    if m.group(10) is not None:
        return _provider_span(m)
    for group in (2, 4, 5, 6, 8, 9, 18):
        if m.group(group) is not None:
            value = m.group(group)
            if group in (5, 6, 8, 9, 18) and _placeholder(value) or value.lower() in _SCHEMES:
                return None  # a placeholder, or a scheme whose credential is not given (Bearer <token>)
            if group == 8 and _names_key(m.group(7), value):
                return None  # ``"client_secret": "client_secret"``: a fixture's placeholder
            return m.span(group)
    return None


def scan(data: bytes, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """The secret values in ``data[start:end]``, as ``(start, end)`` offsets into ``data``, in order. The
    compiled program is asked for each match's spans directly (``_Spans``: no match object of the RE2
    module, whose every group read costs a few Python calls); the same searches as ``SECRET_RE.search``."""
    end = len(data) if end is None else end
    program = re2_program(SECRET_RE)
    found = []
    pos = start
    if program is None or type(data) is not bytes:
        while pos < end:
            m = SECRET_RE.search(data, pos, end)
            if m is None:
                break
            span = _span(m)
            if span is not None and span[1] > span[0]:
                found.append(span)
            pos = max(m.end(), pos + 1)
        return found
    match, unanchored, size = program[0], program[1].UNANCHORED, len(data)
    stop = max(0, min(end, size))
    while pos < end:
        at = max(0, min(pos, size))
        if at > stop:
            break
        spans = match(unanchored, data, at, stop)
        if spans[0] == NO_SPAN:
            break
        span = _span(_Spans(data, spans))
        if span is not None and span[1] > span[0]:
            found.append(span)
        pos = max(spans[0][1], pos + 1)
    return found


class _Spans:
    """A match as ``_span`` reads it (``group``, ``start``, ``end``, ``span`` of a group), from the spans
    the compiled program gave."""

    __slots__ = ("string", "spans")

    def __init__(self, data: bytes, spans):
        self.string, self.spans = data, spans  # (``string``: as a match object names what it searched)

    def group(self, g: int = 0):
        span = self.spans[g]
        return None if span == NO_SPAN else self.string[span[0] : span[1]]

    def start(self, g: int = 0) -> int:
        return self.spans[g][0]

    def end(self, g: int = 0) -> int:
        return self.spans[g][1]

    def span(self, g: int = 0) -> tuple[int, int]:
        return tuple(self.spans[g])


def hide(data: bytes, marker: bytes = HIDDEN) -> bytes:
    """``data`` with every secret value replaced by ``marker`` (and the newlines of a value that
    spans lines, a private key's body: the lines after it keep their numbers)."""
    found = scan(data)
    if not found:
        return data
    out, pos = [], 0
    for a, b in found:
        out += (data[pos:a], marker + b"\n" * data.count(b"\n", a, b))
        pos = b
    out.append(data[pos:])
    return b"".join(out)


def split(data: bytes, sep: bytes = b"\n") -> bytes:
    """``data`` with every secret value replaced by ``sep``: what is around a hidden value, cut apart."""
    found = scan(data)
    if not found:
        return data
    out, pos = [], 0
    for a, b in found:
        out += (data[pos:a], sep)
        pos = b
    out.append(data[pos:])
    return b"".join(out)
