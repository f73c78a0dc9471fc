"""Source code (``cat``, ``head``, ``sed -n``, ``cat -n`` of a Python, JS/TS, Go, Rust, Java, Kotlin, C/C++ or shell file).

The reader asked to read the file, so level 1 passes it through: only trailing whitespace and runs of
blank lines are normalised (as the ``text`` type does; group ``whitespace``; not in a file over
``CUT_ANYWAY`` times the output ceiling, which is cut to its outline and head whatever is folded, its
lines shown as written), and a license header —
the leading comment block (after a shebang) that says Copyright, License or SPDX — goes behind a ref
(group ``license``), replaced by one line ``[license header: N lines (…first words…); #ref:…]``.

Level 0 (``facts``) is an outline: the language, the number of lines and imports, and every class,
function and method signature with its line number (``12: def parse(raw: bytes) -> Plan:``). With
``cat -n`` numbering the numbers printed are used.

Over the output ceiling (``cut_head``, ``rank_lines``) a cut file shows its outline first: each
definition (classes, functions, methods, Go types, Rust items, Kotlin/Java declarations, JS
``x = function`` and object-literal methods, TS interfaces and types, a JS/TS test file's
``describe``/``it``/``test`` blocks) as printed, after its line number; when the outline is more than ``OUTLINE_SHARE`` of the budget, the main and outer
definitions go first, a level that does not fit whole evenly spread from its first to its last, and the
others are counted. Then the file from its first line, as far as the
budget lasts: no line jumps ahead for naming an error, code is not a log.

Detection asks for several signals at once, so that prose with a code snippet, a log or a diff is not
taken for source: lines that start with a language keyword (or a test file's call: ``expect(``,
``it(``), lines that end in ``{``, ``}``, ``;``, ``:`` or ``,``, indented lines, and few lines that
look like prose sentences or log records. The language is the one whose marks are most frequent;
``=>`` counts for JS only beside a mark of JS of its own (Rust's ``match`` arms hold it too).

``SIGNALS`` is empty: ``raise ValueError`` in a file is code, not an event.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from functools import reduce as fold
from itertools import compress, repeat
from operator import add, and_, mul, or_, sub

from operators.kernel import source_lines
from operators.kernel.source_twins import BLANKS, FIELDS, FIRST, LEAD, NOT, START, TAIL, WORD
from operators.ceiling import settings_of
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
TEST_BLOCKS = (b"describe", b"it", b"test", b"suite", b"context")  # a JS/TS test file's blocks: test("name", () => {
_TEST_BLOCK = b"|".join(TEST_BLOCKS)
KEYWORD_RE = lazy(
    rb"^\s*(?:def|class|import|from\s+[\w.]+\s+import|async\s+def|return|if|elif|else|for|while|try|except|finally|with"
    rb"|raise|yield|function|const|let|var|export|package|func|fn|pub|use|impl|struct|enum|trait|mod|match|#include"
    rb"|#define|#ifn?def|#endif|#pragma|public|private|protected|static|final|abstract|interface|namespace|template"
    rb"|typedef|switch|case|break|continue|do|then|fi|done|esac|local|echo|set|unset|type|void|int|char|bool|auto"
    rb"|throw|catch|new|await|async|assert|global|nonlocal|lambda|pass|module\.exports|require"
    rb"|fun|val|override|internal|companion|lateinit|suspend|when|init)\b"
    rb"|^\s*(?:" + _TEST_BLOCK + rb"|expect\w*|before\w*|after\w*)(?:\.\w+)*\("  # a test file's calls
)
END_RE = lazy(rb"[{}();:,\[\]]\s*(?://.*|#.*)?$|^\s*[})\]]+[;,)]*\s*$|\)[*+?]\s*$|^\s*\$[\w(]")  # code, or a macro's repetition or metavariable
PROSE_RE = lazy(rb"^[A-Z][a-z]+(?: [a-z,']+){4,}[.!?]\s*$")
LOG_RE = lazy(rb"^\s*\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|^\s*\d\d:\d\d:\d\d[.,]|^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d|"
                    rb"^\s*(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE|FATAL)\b[ :\]]")
WORDY_RE = lazy(rb"^\s*[A-Za-z][a-z',]*(?: +[A-Za-z][a-z',.:]*){5,}")  # six plain words in a row
UNDERLINE_RE = lazy(rb"^\s*(?:={3,}|-{3,}|~{3,}|\^{3,}|\.\. [\w|-]+::?)")  # rst/markdown titles, directives
# the first line of code of a file that says so (Go's and Java's package clause, a C include)
FILE_HEADER_RE = lazy(rb"^package [A-Za-z_]\w*\s*$|^package [A-Za-z_][\w.]*;\s*$|^#include\s*[<\"]")
DIFF_RE = lazy(rb"^(?:diff --git |@@ -\d|\+\+\+ |--- a/|index [0-9a-f]{7})")
COMMENT_RE = lazy(rb"^\s*(?:#(?!include|define|if|endif|pragma|!)|//|/\*|\*|\*/|--|;;|\"\"\"|''')")
LICENSE_WORD_RE = lazy(rb"(?i)copyright|licen[cs]e|spdx-license-identifier|all rights reserved")

# Each language's signature pattern, alternative by alternative (the pattern is their join): an
# alternative is tried only on the lines that pass the byte tests it needs (``SIGNATURE_NEEDS``)
SIGNATURE_ALTS = {
    "python": (rb"^\s*(?:async\s+def|def|class)\s+\w+",),
    "go": (rb"^(?:func\s|type\s+\w+(?:\[[^\]]*\])?\s+(?:struct|interface|func)\b)",),
    "rust": (rb"^\s*(?:#\[[^\]]*\]\s*)?(?:pub(?:\([^)]*\))?\s+)?(?:(?:default|async|unsafe|const|extern(?:\s+\"[^\"]*\")?)\s+)*"
             rb"(?:fn\s+\w+|struct\s+\w+|enum\s+\w+|trait\s+\w+|union\s+\w+|type\s+\w+|impl\b|mod\s+\w+"
             rb"|macro_rules!)",),
    "js": (
        rb"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
        rb"(?:function\b\*?\s*[\w$]*|class\s+[\w$]+|interface\s+[\w$]+|type\s+[\w$]+\s*(?:<[^=]*>)?\s*=|enum\s+[\w$]+"
        rb"|(?:const|let|var)\s+[\w$]+\s*(?::[^=]+)?=\s*(?:async\s*)?function\b)",
        rb"^(?:export\s+)?(?:const|let|var)\s+[\w$]+\s*(?::[^=]+)?=\s*(?:async\s*)?(?:\([^)]*\)\s*(?::[^=]+)?=>|\w+\s*=>|<)",
        rb"^export\s+(?:const|let|var)\s+[\w$]+",  # a module's exported values
        rb"^\s*(?!(?:if|for|while|switch|catch|return|else|case|do|throw|await|yield|new|typeof|delete|void|super)\b)"
        rb"[\w$][\w$.]*(?:\[[^=\]]*\])?\s*=\s*(?:async\s+)?function\b",  # x = function, A.prototype.m = function
        rb"^\s+[\w$]+\s*:\s*(?:async\s+)?function\b",  # a method in an object literal: name: function(
        rb"^\s+(?:(?:public|private|protected|static|async|get|set|readonly|override|abstract)\s+)*\*?#?"
        rb"(?!(?:if|for|while|switch|catch|return|function|new|await|throw|else|do|super|typeof|this|const|let|var"
        rb"|yield|delete|void|try)\b)[\w$]+\??\s*(?:<.*>)?\((?::\s*\([^()]*\)\s*=>|(?!=>|\bfunction\b)[^;{]|\{[^{}]*\})*\)"
        rb"(?:\s*:\s*(?:[^=(){};]|\{[^{}]*\}|\([^()]*\))+)?\s*\{\s*$",  # a class member: name(args): type {
        rb"^\s*(?:" + _TEST_BLOCK + rb")(?:\.\w+)*\s*\(\s*[\"'`].*\{\s*$",  # a test file's block: test("name", () => {
    ),
    "java": (
        rb"^\s*(?:@\w+\s+)*(?:(?:public|private|protected|static|final|abstract|synchronized|sealed|default)\s+)*"
        rb"(?:class|interface|enum|record)\s+\w+",
        rb"^\s*(?:(?:public|private|protected|static|final|abstract|synchronized)\s+)+[\w<>\[\], ?]+\s+\w+\s*\(",
        rb"^\s*(?:public|private|protected)\s+[A-Z]\w*\s*\(",  # a constructor
        rb"^\s*(?!(?:return|throw|new|else|case|yield|import|package)\b)[\w<>\[\]?,.]+(?:\s+[\w<>\[\]?,.]+)*\s+\w+\s*"
        rb"\([^;{=]*\)\s*(?:throws\s+[\w., ]+)?\s*[;{]\s*$",  # a method without modifiers (interfaces)
    ),
    "c": (
        rb"^(?!(?:if|for|while|switch|return|else|do|case)\b)[A-Za-z_][\w \t\*&:<>,]*?[\s\*&]\**(?:\w+::)?~?\w+\s*\([^;]*$",
        rb"^(?:typedef\s+)?(?:struct|class|union|enum)\s+\w+[^;]*$",
    ),
    "kotlin": (
        rb"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|protected|internal|open|abstract|override|final|sealed"
        rb"|data|enum|inline|suspend|operator|infix|tailrec|external|actual|expect|inner|annotation|value|companion"
        rb"|fun)\s+)*(?:fun\b|class\s+\w+|interface\s+\w+|object\b|typealias\s+\w+|constructor\s*\()",
    ),
    "shell": (rb"^\s*(?:function\s+[\w:-]+|[\w:-]+\s*\(\)\s*\{?)",),
}
SIGNATURE_RES = {lang: lazy(b"|".join(alts)) for lang, alts in SIGNATURE_ALTS.items()}


def _any(mode: int, *needles: bytes) -> tuple:
    """Clauses passed by a line that passes one of the tests ``(mode, needle)``."""
    return tuple(((mode, needle),) for needle in needles)


_LETTER = bytes(range(65, 91)) + bytes(range(97, 123)) + b"_"
_FN = (WORD, b"function")
# For each alternative of ``SIGNATURE_ALTS`` what a line it matches passes (``operators.kernel.source_lines``):
# one of its clauses, each a tuple of byte tests all passed (``source_twins``: WORD a word the line holds,
# LEAD the word first after the indent, START first in the line, TAIL last before trailing blanks, FIRST
# the line's first byte one of these; ``| NOT``: not so)
SIGNATURE_NEEDS = {
    "python": (_any(LEAD, b"async", b"def", b"class"),),
    "go": (_any(START, b"func", b"type"),),
    "rust": (_any(LEAD, b"#[", b"pub", b"default", b"async", b"unsafe", b"const", b"extern", b"fn", b"struct", b"enum",
                  b"trait", b"union", b"type", b"impl", b"mod", b"macro_rules!"),),
    "js": (
        tuple(((LEAD, word), (WORD, what)) for word in (b"export", b"default", b"declare", b"abstract", b"async")
              for what in (b"function", b"class", b"interface", b"type", b"enum"))
        + _any(LEAD, b"function", b"class", b"interface", b"enum")
        + (((LEAD, b"type"), (WORD, b"=")),) + tuple(((LEAD, word), _FN) for word in (b"const", b"let", b"var")),
        tuple(((START, word), (WORD, b"="), (WORD, what)) for word in (b"export", b"const", b"let", b"var")
              for what in (b"=>", b"<")),
        tuple(((START, b"export"), (WORD, word)) for word in (b"const", b"let", b"var")),
        ((_FN, (WORD, b"=")),),
        (((FIRST, BLANKS), _FN, (WORD, b":")),),
        (((FIRST, BLANKS), (WORD, b"("), (WORD, b")"), (TAIL, b"{"))
         + tuple((LEAD | NOT, word) for word in (b"}", b"if ", b"if(", b"for ", b"for(", b"while ", b"while(",
                                                 b"switch ", b"switch(", b"catch ", b"catch(", b"else ")),),
        tuple(((LEAD, word), (TAIL, b"{")) for word in TEST_BLOCKS),
    ),
    "java": (
        _any(WORD, b"class", b"interface", b"enum", b"record"),
        tuple(((LEAD, word), (WORD, b"(")) for word in (b"public", b"private", b"protected", b"static", b"final",
                                                          b"abstract", b"synchronized")),
        tuple(((LEAD, word), (WORD, b"(")) for word in (b"public", b"private", b"protected")),
        tuple(((WORD, b"("), (WORD, b")"), (TAIL, end), (WORD | NOT, b"="), (LEAD | NOT, b"return "),
               (LEAD | NOT, b"throw "), (LEAD | NOT, b"new ")) for end in (b";", b"{")),
    ),
    "c": ((((FIRST, _LETTER), (WORD, b"(")),), _any(START, b"typedef", b"struct", b"class", b"union", b"enum")),
    "kotlin": (_any(WORD, b"fun", b"class", b"interface", b"object", b"typealias", b"constructor"),),
    "shell": (_any(LEAD, b"function") + _any(WORD, b"()"),),
}
IMPORT_RE = lazy(
    rb"^\s*(?:import\b|from\s+[\w.]+\s+import\b|#include\b|use\s+[\w:{]|extern crate\b|using\s+[\w.]+;"
    rb"|(?:const|let|var)\s+[\w{}, ]+=\s*require\(|require\(|source\s|\.\s+\S+\.sh)"
)
LANG_HINTS = (
    ("go", lazy(rb"^package \w+\s*$|^func (?:\([^)]*\) )?\w+\(|:= ", re.M)),
    ("rust", lazy(rb"^\s*(?:pub )?fn \w+|^use [\w:]+|^\s*impl\b|^\s*let mut |->\s*(?:Self|Result|Option)|^\s*macro_rules!"
                  rb"|\$\w+:(?:ident|ty|expr|tt|vis|block|path|literal|pat|item|meta|lifetime)\b", re.M)),  # macros' fragments
    ("python", lazy(rb"^\s*(?:def \w+\(.*\)(?: -> .+)?:\s*$|class \w+.*:\s*$|from [\w.]+ import |import \w+\s*$|if __name__)", re.M)),
    ("java", lazy(rb"^\s*(?:public|private|protected) (?:static )?(?:final )?(?:class|[\w<>\[\]]+ \w+\()|^package [\w.]+;", re.M)),
    ("kotlin", lazy(rb"^\s*(?:(?:private|internal|public|protected|override|open|abstract|suspend|inline|operator) )*"
                    rb"(?:fun (?:<[^>]*> )?[\w.]+\(|val \w+(?:: [\w<>?, ]+)? ?=|(?:data |sealed |enum )class \w+\()"
                    rb"|^package [\w.]+\s*$|^import [\w]+\.[\w.]+\s*$", re.M)),
    ("js", lazy(rb"^\s*(?:export |import .* from |const \w+ = |function \w*\(|module\.exports)"
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
    text = text[:32768]
    scores = {lang: len(pattern.findall(text)) for lang, pattern in LANG_HINTS}
    if scores["js"]:  # JS's arrow: a mark of JS only beside one of its own (Rust's match arms, PHP's arrays hold it)
        scores["js"] += text.count(b"=>")
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
    # calls and literals (tests), few of them keywords when the file begins with its package clause (a Go
    # test file's tables of literals)
    if (keyword >= 0.05 * code or FILE_HEADER_RE.match(lines[0])) and ending >= 0.8 * code and c["indented"] >= 0.6 * n:
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


CUT_ANYWAY = 2  # times the output ceiling: a file longer is cut to its outline and head, its whitespace left as it is


def reduce(raw: bytes, granularity: str, config) -> Plan:
    lines = [raw[ln.start : ln.body_end] for ln in split_lines(raw[:65536]) if ln.body_end > ln.start]
    numbered = is_numbered(lines[:1500])
    start, end, count = license_header(raw, numbered)
    if not count and len(raw) > CUT_ANYWAY * settings_of(config).budget_chars:
        return passthrough(raw)  # normalised, its head would save a few bytes, and the cut would copy the whole file
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
    table = _signature_table(raw, count_imports)
    return table.lang, table.lines, table.imports, list(zip(table.numbers, table.sigs))


IMPORT_NEEDS = _any(LEAD, b"import", b"from", b"#include", b"use", b"extern", b"using", b"const", b"let", b"var",
                    b"require(", b"source", b".")  # what a line IMPORT_RE matches starts with
OUTLINE_NEEDS = (b"type", b"const", b"let", b"var", b"interface")  # in each line MINOR_RE or INTERFACE_RE matches
_PLANS: dict = {}


def _plan(lang: str, count_imports: bool) -> tuple[tuple, tuple, int]:
    """(the byte tests, the groups of clauses (masks of test bits): one per alternative of the language's
    signature pattern, then the imports' when counted, and the mask of the ``OUTLINE_NEEDS`` words)."""
    made = _PLANS.get((lang, count_imports))
    if made is None:
        tests: dict[tuple[int, bytes], int] = {}

        def mask(clause) -> int:
            return fold(or_, (1 << tests.setdefault(test, len(tests)) for test in clause), 0)

        groups = [tuple(map(mask, clauses)) for clauses in SIGNATURE_NEEDS.get(lang, ())]
        if count_imports:
            groups.append(tuple(map(mask, IMPORT_NEEDS)))
        outline = fold(or_, (mask(((WORD, word),)) for word in OUTLINE_NEEDS), 0)
        made = _PLANS[(lang, count_imports)] = (tuple(tests), tuple(groups), outline)
    return made


class _Table:
    """``_signature_table``: the language, the number of lines and of imports, and of each signature line
    its number (printed by ``cat -n``, else from 1), the line (``sigs``: without trailing blanks, and
    without the printed number), its indent (``_indent``) and whether it holds one of ``OUTLINE_NEEDS``."""

    __slots__ = ("lang", "lines", "imports", "numbers", "sigs", "indents", "outlined")

    def __init__(self, lang: str, lines: int, imports: int = 0):
        self.lang, self.lines, self.imports = lang, lines, imports
        self.numbers, self.sigs, self.indents, self.outlined = array("q"), [], array("q"), b""


def _head_lines(raw: bytes, n: int) -> list[bytes]:
    """The first ``n`` lines of ``raw`` as ``LineTable`` gives them (without ``\\n`` or ``\\r\\n``)."""
    end = -1
    for _ in range(n):
        end = raw.find(b"\n", end + 1)
        if end < 0:
            break
    head = raw if end < 0 else raw[: end + 1]
    table = LineTable(head)
    return [head[a:b] for a, b in zip(table.starts, table.bodies)]


def _line_count(raw: bytes) -> int:
    """The lines of ``raw`` as ``LineTable`` counts them (a last line without a newline is one)."""
    return raw.count(b"\n") + (bool(raw) and raw[-1] != 10)


def _signature_table(raw: bytes, count_imports: bool = False) -> _Table:
    """``definitions`` as a ``_Table``. The lines are tested by the kernel (``source_lines``): each
    alternative of the language's signature pattern is tried only on the lines that pass the byte tests
    it needs (``SIGNATURE_NEEDS``), where they stand in the whole text; in a ``cat -n`` text each line
    less its number. The signature lines of a text not numbered are a sequence (``_Signatures``: each
    line's bytes made when read, none kept)."""
    head = _head_lines(raw, 2000)
    numbered = is_numbered([ln for ln in head[:1500] if ln.strip()])
    lang = language(b"\n".join(_strip_number(ln, numbered) for ln in head))
    return _signatures_of(raw, lang, numbered, count_imports)


def _signatures_of(raw: bytes, lang: str, numbered: bool, count_imports: bool = False) -> _Table:
    """``_signature_table`` of a text in language ``lang``, numbered by ``cat -n`` or not."""
    alts = SIGNATURE_ALTS.get(lang, ())
    if not alts and not count_imports:
        return _Table(lang, _line_count(raw))
    tests, groups, outline = _plan(lang, count_imports)
    nlines, found = source_lines(raw, SIG_LINE_MAX, numbered, tests, groups)
    imports = sum(_matching(raw, found[-1], IMPORT_RE.pattern, numbered)) if count_imports else 0
    table = _Table(lang, nlines, imports)
    cols = [array("q") for _ in range(FIELDS)]  # the fields of the lines found, alternative after alternative
    for alt, records in zip(alts, found):
        ok = _matching(raw, records, alt, numbered)
        for f, col in enumerate(cols):
            col.extend(compress(records[f::FIELDS], ok))
    if len(alts) > 1:  # in the order of the lines, each once
        at = dict(zip(cols[1], range(len(cols[1]))))
        order = list(map(at.__getitem__, sorted(at)))
        cols = [array("q", map(col.__getitem__, order)) for col in cols]
    numbers, starts, _, ends, table.indents, bits = cols
    table.numbers = numbers
    sigs = _Signatures(raw, starts, ends)
    table.sigs = list(sigs) if numbered else sigs
    table.outlined = bytes(map(bool, map(and_, bits, repeat(outline))))
    return table


def _matching(raw: bytes, records, pattern: bytes, numbered: bool) -> bytes:
    """A byte for each line of ``records`` (``source_lines``): 1 when ``pattern`` matches it. A line of
    a numbered text is matched as a bytes object of its own (its ``^`` after the number); any other
    where it stands (``_in_place``)."""
    starts, ends = records[1::FIELDS], records[2::FIELDS]
    if numbered:
        return bytes(map(bool, map(_compiled(pattern).match, map(raw.__getitem__, map(slice, starts, ends)))))
    return bytes(map(bool, map(_in_place(pattern).match, repeat(raw), starts, ends)))


_IN_PLACE: dict[bytes, re.Pattern] = {}
_COMPILED: dict[bytes, re.Pattern] = {}


def _in_place(pattern: bytes) -> re.Pattern:
    """``pattern`` (anchored at a line's start by ``^``) compiled to match a line where it stands in the
    whole text (``match(raw, start, body_end)``: no bytes object a line): ``^`` matches after a newline
    too, as at the start of the line alone; the line holds no newline for ``$`` to see."""
    made = _IN_PLACE.get(pattern)
    if made is None:
        made = _IN_PLACE[pattern] = re.compile(pattern, re.M)
    return made


def _compiled(pattern: bytes) -> re.Pattern:
    made = _COMPILED.get(pattern)
    if made is None:
        made = _COMPILED[pattern] = re.compile(pattern)
    return made


class _Signatures(Sequence):
    """The signature lines of a file (where each starts and ends, trailing blanks left out), each one's
    bytes made when read."""

    __slots__ = ("raw", "starts", "ends")

    def __init__(self, raw: bytes, starts: array, ends: array):
        self.raw, self.starts, self.ends = raw, starts, ends

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return self.raw[self.starts[i] : self.ends[i]]

    def __iter__(self):
        return map(self.raw.__getitem__, map(slice, self.starts, self.ends))

    def sizes(self) -> array:
        return array("q", map(sub, self.ends, self.starts))


def outline(raw: bytes) -> tuple[str, int, int, list[str]]:
    """(language, lines, imports, ["12: def f(x):", …]) of a source text."""
    lang, nlines, imports, sigs = definitions(raw)
    return lang, nlines, imports, [f"{n}: {line.decode('utf-8', 'replace')[:200]}" for n, line in sigs]


def facts(packet):
    from operators.types import Facts

    lang, nlines, imports, sigs = outline(packet.raw)
    return Facts(f"{lang}, {nlines:,} lines, {imports:,} imports, {len(sigs):,} definitions", sigs, len(sigs), lang)


# -- over the output ceiling -----------------------------------------------------------------------

OUTLINE_SHARE = 0.95  # of a cut's budget the outline may take; the file's first lines get the rest (a
# twentieth when the definitions alone are more than the budget: they are what a cut view is for; 0.8 had left
# 40 lines of `use` statements where 30 more definitions fit)
PACK_CONTEXT = False


def _indent(line: bytes) -> int:
    """A line's leading blanks, a tab counted as four (``source_lines`` finds it of each signature line)."""
    body = line.lstrip(b" \t")
    return len(line) - len(body) + 3 * line[: len(line) - len(body)].count(b"\t")


KIND = 1 << 32  # an entry's key: its kind (``_weights``) times this, plus its indent (``_indent``)


def _weights(table: _Table) -> bytearray:
    """0 for a main definition, 1 for an interface, 2 for a minor one (a type alias, a constant), of each
    signature line (as its outline entry holds it: with its newline); the patterns are tried only on
    the lines holding one of ``OUTLINE_NEEDS``."""
    sigs = table.sigs
    weights = bytearray(len(sigs))
    for i in compress(range(len(sigs)), table.outlined):
        line = sigs[i] + b"\n"
        weights[i] = 2 if MINOR_RE.match(line) else 1 if INTERFACE_RE.match(line) else 0
    return weights


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
    """As many of ``members`` as ``room`` bytes hold, evenly spaced from the first to the last (fewer
    of them while the picks come out over ``room``: the even spacing stays, the last one with it)."""
    n = len(members)
    take = min(n, int(room // (sum(sizes[i] for i in members) / n))) if members else 0
    while take > 0:
        if take >= n:
            picked = [i for i in members if sizes[i] <= room]
        else:
            step = (n - 1) / (take - 1) if take > 1 else 0
            picked = [i for i in (members[round(k * step)] for k in range(take)) if sizes[i] <= room]
        if sum(sizes[i] for i in picked) <= room:
            return picked
        take -= max(1, take // 32)
    return []


def cut_head(raw: bytes, budget: int) -> bytes:
    """What a source file cut to a budget shows first (``operators.ceiling``): its outline, every
    class, function and method signature as printed with its line number (``812:     fn parse(…) {``),
    as many as ``OUTLINE_SHARE`` of the budget holds (main and outer definitions first), the others
    counted; the file itself follows from its first line (``rank_lines``). The entries are measured
    without being made (``_signature_table``); only those shown are made."""
    table = _signature_table(raw)
    numbers, sigs = table.numbers, table.sigs
    n = len(numbers)
    if not n:
        return b""
    head = (f"[{table.lang} source, {table.lines:,} lines: its {n:,} definition{'s' if n != 1 else ''} first "
            "(line: signature), then the file from its first line as far as it fits]\n").encode()
    room = int(budget * OUTLINE_SHARE) - len(head) - 80
    lengths = sigs.sizes() if isinstance(sigs, _Signatures) else array("q", map(len, sigs))
    sizes = array("q", map(add, map(add, lengths, map(len, map(str, numbers))), repeat(3)))  # 3: ": " and the newline
    chosen = _fitting(sizes, array("q", map(add, map(mul, _weights(table), repeat(KIND)), table.indents)), room) \
        if sum(sizes) > room else range(n)
    out = [head] + [str(numbers[i]).encode() + b": " + sigs[i] + b"\n" for i in chosen]
    if len(chosen) < n:
        out.append(f"[… {n - len(chosen):,} more definitions: in the file's refs below]\n".encode())
    out.append(b"[end of outline]\n")
    return b"".join(out)


class InOrder(Sequence):
    """``(1, i)`` for each line ``i`` of ``n``: made when read, no tuple kept a line. ``in_order``: the
    output ceiling takes the lines in order without reading these (``operators.rank.in_order_tiers``)."""

    __slots__ = ("n",)
    in_order = True

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
