"""Source code (``cat``, ``head``, ``sed -n``, ``cat -n`` of a Python, JS/TS, Go, Rust, Java, Kotlin, C/C++ or shell file).

The reader asked to read the file, so level 1 passes it through: only trailing whitespace and runs of
blank lines are normalised (as the ``text`` type does; group ``whitespace``), and a license header —
the leading comment block (after a shebang) that says Copyright, License or SPDX — goes behind a ref
(group ``license``), replaced by one line ``[license header: N lines (…first words…); #ref:…]``.

Level 0 (``facts``) is an outline: the language, the number of lines and imports, and every class,
function and method signature with its line number (``12: def parse(raw: bytes) -> Plan:``). With
``cat -n`` numbering the numbers printed are used.

Over the output ceiling (``cut_head``, ``rank_lines``) a cut file shows its outline first: each
definition (classes, functions, methods, Go types, Rust items, Kotlin/Java declarations, JS
``x = function`` and object-literal methods, TS interfaces and types) as printed, after its line
number; when the outline is more than ``OUTLINE_SHARE`` of the budget, the main and outer
definitions go first and the others are counted. Then the file from its first line, as far as the
budget lasts: no line jumps ahead for naming an error, code is not a log.

Detection asks for several signals at once, so that prose with a code snippet, a log or a diff is not
taken for source: lines that start with a language keyword, lines that end in ``{``, ``}``, ``;``,
``:`` or ``,``, indented lines, and few lines that look like prose sentences or log records.

``SIGNALS`` is empty: ``raise ValueError`` in a file is code, not an event.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator, Sequence
from itertools import compress, count, repeat
from operator import add, and_, le, mul, sub

from operators.kernel import line_of
from operators.reduction import Plan, passthrough
from operators.types import text as texttype
from operators.types.gitlog import LineTable, split_lines
from operators.relazy import lazy  # patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first

NAME = "source"
SIGNALS = ""
FILL = True  # cut to a budget, its every line is content: the head and tail fill what the ranked lines leave

LICENSE, LICENSE_REASON = "license", "license header comment"
MIN_HEADER_LINES = 3

NUMBERED_RE = lazy(rb"^ {0,8}(\d{1,7})(?:\t| {1,2}|: ?)")  # cat -n, nl, grep -n of a whole file
KEYWORD_RE = lazy(
    rb"^\s*(?:def|class|import|from\s+[\w.]+\s+import|async\s+def|return|if|elif|else|for|while|try|except|finally|with"
    rb"|raise|yield|function|const|let|var|export|package|func|fn|pub|use|impl|struct|enum|trait|mod|match|#include"
    rb"|#define|#ifn?def|#endif|#pragma|public|private|protected|static|final|abstract|interface|namespace|template"
    rb"|typedef|switch|case|break|continue|do|then|fi|done|esac|local|echo|set|unset|type|void|int|char|bool|auto"
    rb"|throw|catch|new|await|async|assert|global|nonlocal|lambda|pass|module\.exports|require"
    rb"|fun|val|override|internal|companion|lateinit|suspend|when|init)\b"
)
END_RE = lazy(rb"[{}();:,\[\]]\s*(?://.*|#.*)?$|^\s*[})\]]+[;,)]*\s*$")
PROSE_RE = lazy(rb"^[A-Z][a-z]+(?: [a-z,']+){4,}[.!?]\s*$")
LOG_RE = lazy(rb"^\s*\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|^\s*\d\d:\d\d:\d\d[.,]|^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d|"
                    rb"^\s*(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE|FATAL)\b[ :\]]")
WORDY_RE = lazy(rb"^\s*[A-Za-z][a-z',]*(?: +[A-Za-z][a-z',.:]*){5,}")  # six plain words in a row
UNDERLINE_RE = lazy(rb"^\s*(?:={3,}|-{3,}|~{3,}|\^{3,}|\.\. [\w|-]+::?)")  # rst/markdown titles, directives
DIFF_RE = lazy(rb"^(?:diff --git |@@ -\d|\+\+\+ |--- a/|index [0-9a-f]{7})")
COMMENT_RE = lazy(rb"^\s*(?:#(?!include|define|if|endif|pragma|!)|//|/\*|\*|\*/|--|;;|\"\"\"|''')")
LICENSE_WORD_RE = lazy(rb"(?i)copyright|licen[cs]e|spdx-license-identifier|all rights reserved")

SIGNATURE_RES = {
    "python": lazy(rb"^\s*(?:async\s+def|def|class)\s+\w+"),
    "go": lazy(rb"^(?:func\s|type\s+\w+(?:\[[^\]]*\])?\s+(?:struct|interface|func)\b)"),
    "rust": lazy(rb"^\s*(?:#\[[^\]]*\]\s*)?(?:pub(?:\([^)]*\))?\s+)?(?:(?:default|async|unsafe|const|extern(?:\s+\"[^\"]*\")?)\s+)*"
                       rb"(?:fn\s+\w+|struct\s+\w+|enum\s+\w+|trait\s+\w+|union\s+\w+|type\s+\w+|impl\b|mod\s+\w+"
                       rb"|macro_rules!)"),
    "js": lazy(
        rb"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
        rb"(?:function\b\*?\s*[\w$]*|class\s+[\w$]+|interface\s+[\w$]+|type\s+[\w$]+\s*(?:<[^=]*>)?\s*=|enum\s+[\w$]+"
        rb"|(?:const|let|var)\s+[\w$]+\s*(?::[^=]+)?=\s*(?:async\s*)?function\b)"
        rb"|^(?:export\s+)?(?:const|let|var)\s+[\w$]+\s*(?::[^=]+)?=\s*(?:async\s*)?(?:\([^)]*\)\s*(?::[^=]+)?=>|\w+\s*=>|<)"
        rb"|^export\s+(?:const|let|var)\s+[\w$]+"  # a module's exported values
        rb"|^\s*(?!(?:if|for|while|switch|catch|return|else|case|do|throw|await|yield|new|typeof|delete|void|super)\b)"
        rb"[\w$][\w$.]*(?:\[[^=\]]*\])?\s*=\s*(?:async\s+)?function\b"  # x = function, A.prototype.m = function
        rb"|^\s+[\w$]+\s*:\s*(?:async\s+)?function\b"  # a method in an object literal: name: function(
        rb"|^\s+(?:(?:public|private|protected|static|async|get|set|readonly|override|abstract)\s+)*\*?#?"
        rb"(?!(?:if|for|while|switch|catch|return|function|new|await|throw|else|do|super|typeof|this|const|let|var"
        rb"|yield|delete|void|try)\b)[\w$]+\??\s*(?:<.*>)?\((?:(?!=>|\bfunction\b)[^;{]|\{[^{}]*\})*\)"
        rb"(?:\s*:\s*(?:[^=(){};]|\{[^{}]*\}|\([^()]*\))+)?\s*\{\s*$"  # a class member: name(args): type {
    ),
    "java": lazy(
        rb"^\s*(?:@\w+\s+)*(?:(?:public|private|protected|static|final|abstract|synchronized|sealed|default)\s+)*"
        rb"(?:class|interface|enum|record)\s+\w+|^\s*(?:(?:public|private|protected|static|final|abstract|synchronized)\s+)+"
        rb"[\w<>\[\], ?]+\s+\w+\s*\("
        rb"|^\s*(?:public|private|protected)\s+[A-Z]\w*\s*\("  # a constructor
        rb"|^\s*(?!(?:return|throw|new|else|case|yield|import|package)\b)[\w<>\[\]?,.]+(?:\s+[\w<>\[\]?,.]+)*\s+\w+\s*"
        rb"\([^;{=]*\)\s*(?:throws\s+[\w., ]+)?\s*[;{]\s*$"  # a method without modifiers (interfaces)
    ),
    "c": lazy(
        rb"^(?!(?:if|for|while|switch|return|else|do|case)\b)[A-Za-z_][\w \t\*&:<>,]*?[\s\*&]\**(?:\w+::)?~?\w+\s*\([^;]*$"
        rb"|^(?:typedef\s+)?(?:struct|class|union|enum)\s+\w+[^;]*$"
    ),
    "kotlin": lazy(
        rb"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|protected|internal|open|abstract|override|final|sealed"
        rb"|data|enum|inline|suspend|operator|infix|tailrec|external|actual|expect|inner|annotation|value|companion"
        rb"|fun)\s+)*(?:fun\b|class\s+\w+|interface\s+\w+|object\b|typealias\s+\w+|constructor\s*\()"
    ),
    "shell": lazy(rb"^\s*(?:function\s+[\w:-]+|[\w:-]+\s*\(\)\s*\{?)"),
}
# What each line a language's SIGNATURE_RES matches holds (a word it needs, or a ``{`` it ends with): a
# signature pattern is tried only on the lines where one pass over the whole text found this
SIGNATURE_NEEDS = {
    "js": lazy(rb"function|class|interface|type|enum|const|let|var|\{[ \t\r\f\v]*$", re.M),
    "rust": lazy(rb"fn|struct|enum|trait|union|type|impl|mod|macro_rules!"),
}
IMPORT_RE = lazy(
    rb"^\s*(?:import\b|from\s+[\w.]+\s+import\b|#include\b|use\s+[\w:{]|extern crate\b|using\s+[\w.]+;"
    rb"|(?:const|let|var)\s+[\w{}, ]+=\s*require\(|require\(|source\s|\.\s+\S+\.sh)"
)
LANG_HINTS = (
    ("go", lazy(rb"^package \w+\s*$|^func (?:\([^)]*\) )?\w+\(|:= ", re.M)),
    ("rust", lazy(rb"^\s*(?:pub )?fn \w+|^use [\w:]+|^\s*impl\b|^\s*let mut |->\s*(?:Self|Result|Option)", re.M)),
    ("python", lazy(rb"^\s*(?:def \w+\(.*\)(?: -> .+)?:\s*$|class \w+.*:\s*$|from [\w.]+ import |import \w+\s*$|if __name__)", re.M)),
    ("java", lazy(rb"^\s*(?:public|private|protected) (?:static )?(?:final )?(?:class|[\w<>\[\]]+ \w+\()|^package [\w.]+;", re.M)),
    ("kotlin", lazy(rb"^\s*(?:(?:private|internal|public|protected|override|open|abstract|suspend|inline|operator) )*"
                    rb"(?:fun (?:<[^>]*> )?[\w.]+\(|val \w+(?:: [\w<>?, ]+)? ?=|(?:data |sealed |enum )class \w+\()"
                    rb"|^package [\w.]+\s*$|^import [\w]+\.[\w.]+\s*$", re.M)),
    ("js", lazy(rb"^\s*(?:export |import .* from |const \w+ = |function \w*\(|module\.exports)|=>"
                rb"|(?:=|:) ?function ?\w*\(", re.M)),
    ("c", lazy(rb"^#include [<\"]|^#define |^\w[\w \*]*\s\**\w+\([^;]*\)\s*\{?\s*$", re.M)),
    ("shell", lazy(rb"^#!/(?:usr/)?bin/(?:env )?(?:ba|z|da)?sh|^\s*(?:fi|done|esac)\s*$|; (?:then|do)\s*$|^\s*(?:local|export|readonly) \w+=", re.M)),
)


def _strip_number(line: bytes, numbered: bool) -> bytes:
    if numbered:
        m = NUMBERED_RE.match(line)
        if m:
            return line[m.end() :]
    return line


def is_numbered(lines: list[bytes]) -> bool:
    """``cat -n`` output: nearly every line starts with a number that goes up by one."""
    nums = [int(m.group(1)) for line in lines if (m := NUMBERED_RE.match(line))]
    if len(lines) < 3 or len(nums) < 0.95 * len(lines):
        return False
    steps = sum(1 for a, b in zip(nums, nums[1:]) if b == a + 1)
    return steps >= 0.9 * (len(nums) - 1)


def language(text: bytes) -> str:
    scores = {lang: len(pattern.findall(text[:32768])) for lang, pattern in LANG_HINTS}
    best = max(scores, key=lambda k: scores[k])
    return best if scores[best] else "code"


def _outside_comments(lines: list[bytes]) -> list[bytes]:
    """The lines outside docstrings (triple quotes) and ``/* … */`` blocks: prose there is the code's own."""
    out: list[bytes] = []
    closing = b""
    for line in lines:
        if closing:
            if closing in line:
                closing = b""
            continue
        stripped = line.strip()
        closing = _block_opened(line, stripped)
        if not closing and not stripped.startswith((b"*", b"//", b"#")) or stripped.startswith(b"#!"):
            out.append(line)
    return out


def _block_opened(line: bytes, stripped: bytes) -> bytes:
    """The closer of a docstring or ``/*`` block the line opens and does not close, else b"". An opener
    inside a line comment (``//! see https://x/*/y``) or after a quote (``"src/**/*.ts"``) opens nothing."""
    if stripped.startswith((b"//", b"#", b"--")):
        return b""
    for opener, closer in ((b'"""', b'"""'), (b"'''", b"'''"), (b"/*", b"*/")):
        at = line.find(opener)
        if at < 0:
            continue
        before = line[:at]
        if b"//" in before or (opener == b"/*" and (before.count(b'"') % 2 or before.count(b"'") % 2)):
            continue
        if closer not in line[at + len(opener) :]:
            return closer
    return b""


def _is_markup(line: bytes) -> bool:
    return line.lstrip().startswith((b"```", b"<p>", b"* ", b"- ", b"> ", b"##")) or UNDERLINE_RE.match(line) is not None


LINE_TESTS = {  # what each line is counted as (a line may count several times)
    "keyword": lambda line: KEYWORD_RE.match(line) is not None,
    "ending": lambda line: END_RE.search(line) is not None,
    "indented": lambda line: line[:1] in (b" ", b"\t"),
    "comment": lambda line: COMMENT_RE.match(line) is not None,
    "prose": lambda line: PROSE_RE.match(line) is not None,
    "log": lambda line: LOG_RE.match(line) is not None,
    "markup": _is_markup,
    "wordy": lambda line: WORDY_RE.match(line) is not None and COMMENT_RE.match(line) is None,
}


def score(lines: list[bytes]) -> tuple[int, int, int] | None:
    """(keyword lines, code-ending lines, n) of the lines when they look like source, else None."""
    lines = _outside_comments(lines)
    n = len(lines)
    if n < 5 or any(DIFF_RE.match(line) for line in lines[:50]):
        return None
    indented = sum(map(LINE_TESTS["indented"], lines))
    if indented < 0.2 * n:
        return None  # what both tests below ask first (the cheapest count)
    c = {name: indented if name == "indented" else sum(map(test, lines)) for name, test in LINE_TESTS.items()}
    code = n - c["comment"]
    if c["log"] > 0.1 * n or c["prose"] > 0.15 * n or c["markup"] > 0.05 * n or c["wordy"] > 0.25 * n or code <= 0:
        return None
    keyword, ending = c["keyword"], c["ending"]
    if keyword >= 0.15 * code and keyword + ending >= 0.45 * code and c["indented"] >= 0.2 * n:
        return keyword, ending, n
    if keyword >= 0.05 * code and ending >= 0.8 * code and c["indented"] >= 0.6 * n:  # calls and literals (tests)
        return keyword, ending, n
    return None


def _sample_lines(sample_lines: list[bytes]) -> tuple[list[bytes], bool]:
    lines = [line.rstrip(b"\r") for line in sample_lines[:1500]]
    numbered = is_numbered(lines)
    return [_strip_number(line, numbered) for line in lines], numbered


def _indented_anywhere(lines: list[bytes]) -> bool:
    """Whether one of ``lines`` starts with a space or a tab (source lines must, a fifth of them)."""
    text = b"\n".join(lines)
    return text[:1] in (b" ", b"\t") or b"\n " in text or b"\n\t" in text


def detect(sample) -> str | None:
    if not maybe.source(sample):
        return None  # no line indented (a log, records, a listing)
    lines, numbered = _sample_lines(sample.lines)
    if not _indented_anywhere(lines):
        return None  # no line indented: ``score`` says no (a log, records, a listing)
    got = score([line for line in lines if line.strip()])
    if got is None:
        return None
    keyword, ending, n = got
    lang = language(b"\n".join(lines))
    return f"{lang} source{' (numbered lines)' if numbered else ''}: {keyword}/{n} lines start with keywords, {ending} end like code"


# -- level 1 ---------------------------------------------------------------------------------------


def license_header(raw: bytes, numbered: bool) -> tuple[int, int, int]:
    """(start, end, lines) of the leading comment block that names a license, else (0, 0, 0)."""
    lines = split_lines(raw[:65536])
    i = 0
    if lines and _strip_number(raw[lines[0].start : lines[0].body_end], numbered).startswith(b"#!"):
        i = 1
    start = lines[i].start if i < len(lines) else 0
    j = i
    in_block = False
    while j < len(lines):
        body = _strip_number(raw[lines[j].start : lines[j].body_end], numbered)
        stripped = body.strip()
        if in_block:
            if b"*/" in stripped or stripped.endswith((b'"""', b"'''")):
                in_block = False
            j += 1
            continue
        if stripped.startswith((b"/*", b'"""', b"'''")):
            rest = stripped[3:] if stripped[:3] in (b'"""', b"'''") else stripped[2:]
            in_block = not (b"*/" in rest or rest.endswith((b'"""', b"'''")))
        elif not stripped:
            if j > i and LICENSE_WORD_RE.search(raw, start, lines[j - 1].end):
                break  # a blank line after the license: what follows (a package doc) is not the header
        elif not (COMMENT_RE.match(body) and not stripped.startswith(b"*/")):
            break
        j += 1
    if j - i < MIN_HEADER_LINES or in_block:
        return 0, 0, 0
    end = lines[j - 1].end
    if not LICENSE_WORD_RE.search(raw, start, end):
        return 0, 0, 0
    return start, end, j - i


def reduce(raw: bytes, granularity: str, config) -> Plan:
    lines = [raw[ln.start : ln.body_end] for ln in split_lines(raw[:65536]) if ln.body_end > ln.start]
    numbered = is_numbered(lines[:1500])
    start, end, count = license_header(raw, numbered)
    starts, ends, trailing, blank = texttype.cuts_of(raw)
    saved = sum(b - a for a, b in zip(starts, ends) if a >= end or b <= start)
    if not count and saved < texttype.MIN_SAVING:
        return passthrough(raw)
    plan = Plan(raw)
    cuts = [(a, b) for a, b in zip(starts, ends) if saved >= texttype.MIN_SAVING and (a >= end or b <= start)]
    for a, b in cuts:
        if count and a >= end and plan.position <= start:
            _license(plan, start, end, count, numbered)
        plan.keep(plan.position, a)
        plan.omit(a, b, texttype.GROUP, texttype.REASON)
    if count and plan.position <= start:
        _license(plan, start, end, count, numbered)
    plan.keep_rest()
    if texttype.GROUP in plan.reasons:
        plan.show((b"" if plan.ends_line() else b"\n")
                  + f"[whitespace normalised ({trailing} trailing, {blank} blank lines); original: ".encode())
        plan.mark(texttype.GROUP)
        plan.show(b"]\n")
    return plan.finish()


def _license(plan: Plan, start: int, end: int, count: int, numbered: bool) -> None:
    plan.keep(plan.position, start)
    words = LICENSE_WORD_RE.search(plan.raw, start, end)
    line_start = plan.raw.rfind(b"\n", start, words.start()) + 1
    line_end = plan.raw.find(b"\n", words.start(), end)
    said = _strip_number(plan.raw[max(line_start, start) : line_end if line_end >= 0 else end], numbered).strip(b" \t\r#/*-;")
    said = said.decode("utf-8", "replace")[:80]
    plan.omit(start, end, LICENSE, LICENSE_REASON)
    plan.show(f"[license header: {count} lines ({said}); ".encode())
    plan.mark(LICENSE)
    plan.show(b"]\n")


# -- level 0 ---------------------------------------------------------------------------------------


SIG_LINE_MAX = 500  # longer lines are data (a minified bundle, a literal), never read as signatures
INTERFACE_RE = lazy(rb"^\s*(?:export\s+)?(?:declare\s+)?interface\s")  # an outline gives these up second ...
MINOR_RE = lazy(  # ... and these first: type aliases, constants
    rb"^\s*(?:export\s+)?(?:declare\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:type|typealias)\s+[\w$]+"
    rb"|^\s*(?:export\s+)?(?:const|let|var)\s+[\w$]+\s*(?::[^=]*)?=(?!\s*(?:[(\w$]+\s*=>|(?:async\s*)?(?:function|\()))"
)


def definitions(raw: bytes, count_imports: bool = True) -> tuple[str, int, int, list[tuple[int, bytes]]]:
    """(language, lines, imports, [(line number, signature line as printed, number prefix stripped)]);
    imports 0 when not ``count_imports`` (an outline shown when a file is cut does not say it)."""
    lang, nlines, imports, numbers, sigs = _signature_table(raw, count_imports)
    return lang, nlines, imports, list(zip(numbers, sigs))


def _signature_table(raw: bytes, count_imports: bool = False):
    """``definitions`` as (language, lines, imports, line numbers, signature lines): the signature lines
    a sequence (``_Signatures``: each line's bytes made when read, none kept) but in a ``cat -n`` text."""
    table = LineTable(raw)
    head = [raw[a:b] for a, b in zip(table.starts[:2000], table.bodies[:2000])]
    numbered = is_numbered([ln for ln in head[:1500] if ln.strip()])
    lang = language(b"\n".join(_strip_number(ln, numbered) for ln in head))
    sig_re = SIGNATURE_RES.get(lang)
    if numbered:
        imports, sigs = _numbered_definitions(raw, table, sig_re)
        return lang, len(table), imports, [n for n, _ in sigs], [line for _, line in sigs]
    def lines():  # each line's bytes, made one at a time
        return map(raw.__getitem__, map(slice, table.starts, table.bodies))

    short = bytes(map(le, map(sub, table.bodies, table.starts), repeat(SIG_LINE_MAX)))  # longer: data
    imports = sum(map(bool, map(IMPORT_RE.match, compress(lines(), short)))) if count_imports else 0
    if sig_re is None:
        return lang, len(table), imports, [], []
    line_re = _in_place(sig_re)
    if lang in SIGNATURE_NEEDS:
        short = bytes(map(and_, short, _lines_holding(raw, table.starts, SIGNATURE_NEEDS[lang])))
    found = bytes(map(bool, map(line_re.match, repeat(raw), compress(table.starts, short), compress(table.bodies, short))))
    numbers = array("q", compress(compress(count(1), short), found))
    starts = array("q", compress(compress(table.starts, short), found))
    ends = array("q", compress(compress(table.bodies, short), found))
    return lang, len(table), imports, numbers, _Signatures(raw, starts, ends)


def _numbered_definitions(raw: bytes, table: LineTable, sig_re) -> tuple[int, list[tuple[int, bytes]]]:
    """(imports, definitions) of a ``cat -n`` text: the numbers printed, each line's own stripped."""
    imports = 0
    sigs: list[tuple[int, bytes]] = []
    for index, line in enumerate(map(raw.__getitem__, map(slice, table.starts, table.bodies)), 1):
        number = index
        if m := NUMBERED_RE.match(line):
            number, line = int(m.group(1)), line[m.end() :]
        if len(line) > SIG_LINE_MAX:
            continue
        if IMPORT_RE.match(line):
            imports += 1
        if sig_re is not None and sig_re.match(line):
            sigs.append((number, line.rstrip()))
    return imports, sigs


def _lines_holding(raw: bytes, starts, pattern) -> bytearray:
    """1 for each line (``starts``: n + 1 offsets) in which ``pattern`` (no newline in its matches) is
    found, from one pass over the whole text."""
    flags = bytearray(len(starts) - 1)
    for i in line_of(starts, array("q", map(re.Match.start, pattern.finditer(raw)))):
        flags[i] = 1
    return flags


_IN_PLACE: dict[bytes, re.Pattern] = {}


def _in_place(pattern) -> re.Pattern:
    """``pattern`` (anchored at a line's start by ``^``) compiled to match a line where it stands in the
    whole text (``match(raw, start, body_end)``: no bytes object a line): ``^`` matches after a newline
    too, as at the start of the line alone; the line holds no newline for ``$`` to see."""
    made = _IN_PLACE.get(pattern.pattern)
    if made is None:
        made = _IN_PLACE[pattern.pattern] = re.compile(pattern.pattern, re.M)
    return made


class _Signatures(Sequence):
    """The signature lines of a file (where each starts and ends), each one's bytes made when read."""

    __slots__ = ("raw", "starts", "ends")

    def __init__(self, raw: bytes, starts: array, ends: array):
        self.raw, self.starts, self.ends = raw, starts, ends

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return self.raw[self.starts[i] : self.ends[i]].rstrip()

    def __iter__(self):
        return map(bytes.rstrip, map(self.raw.__getitem__, map(slice, self.starts, self.ends)))

    def holding(self, words) -> Iterator[int]:
        """The indexes of the lines in which pattern ``words`` (no blank in its matches) is found."""
        return compress(count(), map(words.search, repeat(self.raw), self.starts, self.ends))


def outline(raw: bytes) -> tuple[str, int, int, list[str]]:
    """(language, lines, imports, ["12: def f(x):", …]) of a source text."""
    lang, nlines, imports, sigs = definitions(raw)
    return lang, nlines, imports, [f"{n}: {line.decode('utf-8', 'replace')[:200]}" for n, line in sigs]


def facts(packet):
    from operators.types import Facts

    lang, nlines, imports, sigs = outline(packet.raw)
    return Facts(f"{lang}, {nlines:,} lines, {imports:,} imports, {len(sigs):,} definitions", sigs, len(sigs), lang)


# -- over the output ceiling -----------------------------------------------------------------------

OUTLINE_SHARE = 0.8  # of a cut's budget the outline may take; the file's first lines get the rest
PACK_CONTEXT = False


def _indent(line: bytes) -> int:
    body = line.lstrip(b" \t")
    return len(line) - len(body) + 3 * line[: len(line) - len(body)].count(b"\t")


KIND = 1 << 32  # an entry's key: its kind (``_weights``) times this, plus its indent (``_indents``)


OUTLINE_WORDS = lazy(rb"type|const|let|var|interface")  # in each line MINOR_RE or INTERFACE_RE matches


def _weights(sigs) -> bytearray:
    """0 for a main definition, 1 for an interface, 2 for a minor one (a type alias, a constant), of each
    signature line (as its outline entry holds it: with its newline); the patterns are tried only on
    the lines holding one of ``OUTLINE_WORDS``."""
    weights = bytearray(len(sigs))
    for i in sigs.holding(OUTLINE_WORDS) if isinstance(sigs, _Signatures) else range(len(sigs)):
        line = sigs[i] + b"\n"
        weights[i] = 2 if MINOR_RE.match(line) else 1 if INTERFACE_RE.match(line) else 0
    return weights


def _indents(sigs):
    """``_indent`` of each signature line: its leading blanks, a tab counted as four."""
    blanks = array("q", map(sub, map(len, sigs), map(len, map(bytes.lstrip, sigs, repeat(b" \t")))))
    tabs = map(bytes.count, sigs, repeat(b"\t"), repeat(0), blanks)
    return map(add, blanks, map(mul, tabs, repeat(3)))


def _fitting(sizes: array, keys: array, room: int) -> list[int]:
    """The indexes of the entries (``sizes``: each one's bytes) an outline of ``room`` bytes shows: the
    main definitions (classes, functions, methods) before the minor ones (interfaces, then types and
    constants), the outer before the nested (``keys``: kind and indent, ``KIND``); when a level does not
    fit whole, an even spread of it and the deeper levels of the same kind together (nested definitions
    keep a share); kept in file order."""
    if sum(sizes) <= room:
        return list(range(len(sizes)))
    classes: dict[int, array] = {}
    for i, key in enumerate(keys):
        members = classes.get(key)
        if members is None:
            members = classes[key] = array("q")
        members.append(i)
    chosen: list[int] = []
    for key in sorted(classes):
        members = classes[key]
        cost = sum(map(sizes.__getitem__, members))
        if cost > room:
            pool = sorted(i for other in classes if other // KIND == key // KIND and other >= key for i in classes[other])
            return sorted(chosen + _spread(pool, sizes, room))
        chosen += members
        room -= cost
    return sorted(chosen)


def _spread(members: list[int], sizes: array, room: int) -> list[int]:
    """As many of ``members`` as ``room`` bytes hold, evenly spaced."""
    cost = sum(sizes[i] for i in members)
    take = int(room // (cost / len(members))) if members else 0
    if take <= 0:
        return []
    step = len(members) / take
    picked = [i for i in (members[int(k * step)] for k in range(take)) if sizes[i] <= room]
    while picked and sum(sizes[i] for i in picked) > room:
        picked.pop()
    return picked


def cut_head(raw: bytes, budget: int) -> bytes:
    """What a source file cut to a budget shows first (``operators.ceiling``): its outline, every
    class, function and method signature as printed with its line number (``812:     fn parse(…) {``),
    as many as ``OUTLINE_SHARE`` of the budget holds (main and outer definitions first), the others
    counted; the file itself follows from its first line (``rank_lines``). The entries are measured
    without being made (``_signature_table``); only those shown are made."""
    lang, nlines, _, numbers, sigs = _signature_table(raw)
    n = len(numbers)
    if not n:
        return b""
    head = (f"[{lang} source, {nlines:,} lines: its {n:,} definition{'s' if n != 1 else ''} first (line: signature), "
            "then the file from its first line as far as it fits]\n").encode()
    room = int(budget * OUTLINE_SHARE) - len(head) - 80
    sizes = array("q", map(add, map(len, sigs), map(len, map(str, numbers))))  # + 3 each: ": " and the newline
    sizes = array("q", map(add, sizes, repeat(3)))
    chosen = _fitting(sizes, array("q", map(add, map(mul, _weights(sigs), repeat(KIND)), _indents(sigs))), room) \
        if sum(sizes) > room else range(n)
    out = [head] + [str(numbers[i]).encode() + b": " + sigs[i] + b"\n" for i in chosen]
    if len(chosen) < n:
        out.append(f"[… {n - len(chosen):,} more definitions: in the file's refs below]\n".encode())
    out.append(b"[end of outline]\n")
    return b"".join(out)


class InOrder(Sequence):
    """``(1, i)`` for each line ``i`` of ``n``: made when read, no tuple kept a line."""

    __slots__ = ("n",)

    def __init__(self, n: int):
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [(1, j) for j in range(*i.indices(self.n))]
        if not -self.n <= i < self.n:
            raise IndexError(i)
        return (1, i % self.n)

    def __iter__(self):
        return zip(repeat(1), range(self.n))

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def compact(self, rank_array) -> tuple[bytearray, array]:
        """The tiers and ranks ``operators.rank.compact_line_tiers`` makes of these pairs, made at once:
        every line of tier 1, its index its rank (``rank_array``: the array that holds them)."""
        return bytearray(b"\x01") * self.n, rank_array(lambda: range(self.n))


def rank_lines(lines: list[bytes], config) -> InOrder:
    """A cut source file (its outline comes first, ``cut_head``) shows its lines from the top: every
    line is context ranked by its place, so no line mentioning an error jumps ahead of the code."""
    return InOrder(len(lines))
