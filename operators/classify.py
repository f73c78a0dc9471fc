"""Content classifier: deterministic heuristics on the first few KB and line statistics, no model.

Order of tests: json (whole document parses, or NDJSON: most lines parse as objects/arrays), unified
diff, build/test output, file listing, log, else text. Where a test is unsure it says no, and the
input falls through to a safer reducer (text is the safest: it only touches whitespace).
"""

from __future__ import annotations

import re

import msgspec

SAMPLE = 64 * 1024

GIT_FILE_RE = re.compile(rb"^diff --(?:git|cc|combined) ", re.M)
GIT_EVIDENCE_RE = re.compile(
    rb"^(?:@@@* -\d+(?:,\d+)? .*@@|Binary files .* differ|GIT binary patch|rename from |copy from "
    rb"|new file mode |deleted file mode |old mode )",
    re.M,
)
UNIFIED_RE = re.compile(rb"^--- [^\r\n]*\r?\n\+\+\+ [^\r\n]*\r?\n@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@", re.M)
DIFF_START = (b"diff ", b"--- ", b"From ", b"commit ", b"Index: ", b"index ", b"Only in ")
FIRST_FILE_RE = re.compile(rb"^(?:diff -|Index: |--- [^\r\n]*\r?\n\+\+\+ )", re.M)
DIFF_BODY_RE = re.compile(
    rb"(?:[ +\-@\\]|$|\r$|diff |index |old mode |new mode |similarity |dissimilarity |rename |copy |new file |deleted file "
    rb"|Binary files |GIT binary patch|literal \d|delta \d|Only in |Index: |={20}|[A-Za-z][0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]{8,}\r?$)"
)
LOG_LINE_RE = re.compile(
    rb"^(?:\S+\s+)?(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}"
    rb"|\d{6} \d{6}|\d{2}/\d{2}/\d{2,4}|\[\d+/[A-Z][a-z]{2}/\d{4}|\d{10}(?:\.\d+)?\s"
    rb"|\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL)\b)"
)
LEVEL_RE = re.compile(rb"\b(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL)\b")
NOT_IN_PATH_RE = re.compile(rb'[\x00-\x1f\x7f:*?"<>|;={}\t]|^\s|\s$')
FILE_NAME_RE = re.compile(rb"^(?:\.?[^ ./][^/]*\.[A-Za-z0-9_~-]{1,10}|\.[A-Za-z0-9_][^ /]*|\.{1,2})$")
ANSI_RE = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")  # colours and cursor moves hide line starts from BUILD_RE
BUILD_RE = re.compile(
    rb"^(?:=+ (?:test session starts|FAILURES|ERRORS|short test summary info|\d+ (?:passed|failed))"
    rb"|(?:PASSED|FAILED|ERROR) [\w/.-]+::|collected \d+ items?"
    rb"|[\w./-]+\.(?:c|cc|cpp|h|hpp|rs|go):\d+:\d+: (?:error|warning|note)"
    rb"|npm (?:ERR!|WARN|warn|error)|Collecting \S+|Successfully installed |ERROR: (?:Could not|No matching))",
    re.M,
)


def classify(raw: bytes, forced: str | None = None) -> tuple[str, str]:
    """Return (type, reason)."""
    if forced:
        return forced, "forced by config"
    if not raw or raw.isspace():
        return "text", "empty or blank"
    if b"\x00" in raw[:SAMPLE]:
        return "text", "binary (NUL bytes)"
    head = raw[:SAMPLE]
    stripped = head.lstrip()
    if stripped[:1] in (b"{", b"[") and _parses_json(raw):
        return "json", "parses as JSON"
    lines = [line for line in head.split(b"\n") if line.strip()]
    if len(raw) > SAMPLE and lines:
        lines.pop()  # may be cut in the middle
    if not lines:
        return "text", "no lines"
    if _is_ndjson(lines):
        return "json", "NDJSON: every sampled line parses"
    if _is_diff(head):
        return "diff", "unified diff headers"
    if len(BUILD_RE.findall(ANSI_RE.sub(b"", head) if b"\x1b[" in head else head)) >= 2:
        return "build", "test/build runner output"
    n = len(lines)
    path_like = sum(1 for line in lines if looks_like_path(line.rstrip(b"\r")))
    spaced = sum(1 for line in lines if b" " in line)  # prose has spaces on most lines, listings rarely
    if n >= 3 and path_like >= 0.9 * n and spaced <= 0.5 * n:
        return "filelist", f"{path_like}/{n} lines look like paths"
    log_like = sum(1 for line in lines if LOG_LINE_RE.match(line) or LEVEL_RE.search(line[:200]))
    if n >= 3 and log_like >= 0.5 * n:
        return "log", f"{log_like}/{n} lines have timestamps or levels"
    return "text", "no stronger type matched"


class _AnyObject(msgspec.Struct):
    """Decoding into this checks an object's syntax without building it (every field is ignored)."""


_SHALLOW = {b"{": msgspec.json.Decoder(_AnyObject), b"[": msgspec.json.Decoder(list[msgspec.Raw])}


def _parses_json(raw: bytes) -> bool:
    """Whether the whole input is one JSON document, checked without materialising it."""
    try:
        _SHALLOW[raw.lstrip()[:1]].decode(raw)
        return True
    except msgspec.ValidationError:  # syntax was fine, only the shape differed
        return True
    except (msgspec.DecodeError, RecursionError):
        return _deep_json_shape(raw)


def _deep_json_shape(raw: bytes) -> bool:
    """msgspec refuses very deep nesting; accept it if the bytes are well-formed JSON anyway."""
    from operators.jsonscan import is_valid_json

    return is_valid_json(raw)


def _is_ndjson(lines: list[bytes]) -> bool:
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


def looks_like_path(line: bytes) -> bool:
    """One line of a file listing: a path with separators, or a file name with an extension.

    Any byte that is not a control character or a shell/log punctuation mark may be in a name
    (unicode, spaces, brackets, parentheses); prose is kept out by the number of spaces.
    """
    if not line or len(line) > 1024:
        return False
    if line[1:3] in (b":\\", b":/") and line[:1].isalpha():
        line = line[3:] or b"."  # a Windows drive
    if NOT_IN_PATH_RE.search(line) or line.count(b" ") > 4:
        return False
    sep = b"/" if b"/" in line else b"\\"
    parts = line.split(sep)
    if len(parts) == 1:
        return FILE_NAME_RE.match(line) is not None and line.count(b" ") <= 2
    return all(len(part) <= 255 for part in parts)


def _is_diff(head: bytes) -> bool:
    if not ((GIT_FILE_RE.search(head) and GIT_EVIDENCE_RE.search(head)) or UNIFIED_RE.search(head)):
        return False
    if head.lstrip()[:200].startswith(DIFF_START):
        return True
    # a preamble (commit header, mail headers, hg export) is fine; a diff embedded in a log is not a diff
    first = FIRST_FILE_RE.search(head)
    if first is None:
        return False
    pre = [line for line in head[: first.start()].split(b"\n") if line.strip()]
    if sum(1 for line in pre if LOG_LINE_RE.match(line) or LEVEL_RE.search(line[:200])) * 3 >= len(pre) > 0:
        return False
    body = head[first.start() :].split(b"\n")[:2000]
    return sum(1 for line in body if DIFF_BODY_RE.match(line)) >= 0.8 * len(body)
