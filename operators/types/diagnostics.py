"""Diagnostics of linters, type checkers and compilers: every location and rule stays, the rest folds.

Recognised diagnostic lines (matched on the text without terminal escapes):

* ``path:line:col: CODE message`` — ruff (concise), flake8, pylint (``C0116: … (symbol)``), gcc/clang
  (``error: … [-Wflag]``), mypy (``path:line: error: … [code]``, with or without a column), eslint
  ``-f unix`` (``… [Warning/rule]``);
* ``path(line,col): error TS2322: …`` (tsc) and ``path:line:col - error …`` (tsc ``--pretty``,
  pyright, indented under a file line);
* ``path:line: [CODE] message`` — ruff and pylint ``parseable`` (``[C0325(superfluous-parens), ]``);
* eslint's stylish format (and yamllint's, ``(rule)``): a file line, then ``  12:5  warning  message
  rule`` entries; ruff's
  ``grouped`` format: ``path:`` alone, then ``  12:5 E501 message`` entries;
* rustc/cargo/clippy and ruff's full format: ``error[E0308]: message`` or ``F401 message`` followed by
  `` --> path:line:col``; miette's report (oxlint): ``  x eslint(no-shadow): message`` (``×`` in a
  terminal, ``!``/``⚠`` a warning) followed by ``  ,-[path:line:col]`` (``╭─[``).

What the reader sees: a summary line on top (how many diagnostics, by severity, by rule, by file;
shown when rules are folded or the folded details are worth it), then every diagnostic line verbatim,
in place, with its wrapped message lines (pyright's and tsc's indented elaboration, mypy
``--pretty``'s wrapped ``[code]``; javac's source line and its ``symbol:``/``location:``/``where``
lines and the lines it indents by two after the caret), file and summary lines: the same message at many places keeps each of its lines, as the
tool printed it. A rule is the code (``E501``, ``TS2322``, ``[no-untyped-def]``), else the message (its first ``KEY_CHARS``
bytes, numbers and quoted names masked, ``…`` after them when it is longer: ``go vet``'s; an eslint
message on several lines names its rule at the end of its last: ``_stylish_trailing_rules``);
javac's ``cannot find symbol`` is a rule for each missing symbol (``error: cannot find symbol (class
TypeAdapter)``: its ``symbol:`` line names it), so each keeps an example however small the room. Source snippets, caret lines, ``= help``/``= note`` text, notes at the diagnostic's
own place and the blank lines between them go to one ref (group ``details``) — but gcc's and clang's (a
source line and a caret under each warning: the code to fix), which stay when the whole output fits the
output ceiling (it is then shown as printed; ``_gnu_snippets``), or when it does once the diagnostics
printed again (a header's warnings for each file that includes it) fold, each copy's run behind one
marker line that counts them (group ``repeats``, ``_unrepeated``), and else those of the first warnings,
in order, while the room the view leaves lasts (``_details_back``); cargo's lines about
each target it built (``could not compile `x` (bin "y")``, ``generated N warnings``, ``rustc --explain``:
a workspace of many binaries prints them for each) to another when there are ``TARGET_MIN`` or more,
the last of each kind staying (group ``targets``); colour escapes of the
shown lines to another (``escapes``), and runs of 8 spaces or more inside a shown line (eslint aligns
every message of a file to its longest, hundreds of bytes a line) are shortened to two, the rest to a
third (``padding``). The first line of a ``help:`` or ``note:`` (rustc's and ruff's suggested fix, miette's
advice indented by two, the item a note points to) and a note's own ``--> path:line:col`` stay, each the first
time its text appears.

The budget: while the view fits ``room_share`` of the output ceiling (``[ceiling] max_chars``)
nothing else folds. Past it (or past ``max_shown`` diagnostics), the most frequent rules are folded
first until it fits: a folded rule keeps its first ``examples`` diagnostics verbatim (one when two do
not fit), and the rest are listed right after the last example by location only — ``[E501 ×118 more
(line too long…): a.py:1:80 a.py:5:80 …; exact lines: #ref]`` — while the repeated messages go to the
rule's ref. A folded rule of ``path:line: error: message`` diagnostics (mypy, gcc, javac) whose
messages differ from place to place (mypy's ``Call to untyped function "x"``: a list of places would
drop the names) shows lines as printed first, evenly spaced over the rule, in ``SPREAD_SHARE`` of the
room (``_spread``); its other places are listed after them. Room the folding leaves goes back to lines as printed (``_unfold``): first one for each
message of a folded rule not shown yet (one rule, many functions or attributes), then the others in
order; the rest stay listed by place. tsc's places are listed one a line as tsc prints the start of its line, ``src/a.ts(3,7):
error TS7006``: the form editors' problem matchers and an agent's searches look for. When even that is too long, each folded rule lists fewer locations, evenly spaced over
the rule (first and last kept), the others counted (``and N more places``). Past ``max_shown`` the
folded rules' diagnostics go to one ref (group ``rules``; ``tokens expand ID --grep RULE`` gives one
rule's): a ref a rule would make a piece for each run of one rule among the others, hundreds of
thousands over a whole tree, each hashed, written and checked on its own. Under a smaller budget
(``tier``) the summary and folded-rule lines come first, then errors, warnings and the other
diagnostic lines.

Boundary with ``build`` (detected after this type): a compiler's diagnostics alone (``gcc
-fsyntax-only``, ``cargo clippy``, a linter run) are this type; a build log — make lines, compile
commands, a pytest session, pip output — stays ``build``, which keeps its diagnostics too.
``detect`` says yes only when diagnostics, their details and summaries make up at least 80% of the
lines and no such build line is present (``npm run lint``'s own ``> script`` and ``npm error`` lines
around a linter's output are only a wrapper: they count against the 80%, nothing more).

``SIGNALS`` is empty: the lines that must stay are the locations and codes, which this type lists
even when it folds their messages; the fixtures' planted signals check them.

Big outputs (a linter over a whole tree prints hundreds of thousands of diagnostics): the parse keeps
the lines as two arrays of offsets, each line's text cut from the input when read (``_Texts``); the
``path:line:col: …`` lines that start with their path are found by one pass over the whole input
(``operators.kernel.diag_heads``, in C when the kernel is built: ``LOC_LINES_RE``'s lines as columns,
each distinct text after a location and each path once) and, where no other form can take them, added
a run of lines at a time without the chain of other forms (``_bulk``; the others one by one,
``_plain_head``); the diagnostics are columns (``_Diags``: line numbers, rule, severity and path as
numbers into tables, place and message as offsets in the head line), a ``Diag`` made only when one is
read; the text after a location (rule, severity, message) is worked out once for each distinct text
(``_tail``). The views built while fitting the room share what does not change between them
(``_Common``: the summary line, each rule's diagnostics as an array of indexes and each diagnostic's
rank in its rule, ``diag_ranks``; which diagnostics are one line shown as printed, ``one_line``): a
view gives each diagnostic a code (kept, omitted to its rule's group, or done on its own: the last
example of a folded rule, one with details; ``diag_codes``) and hands the plan a piece for each run of
the same code (``diag_runs``). The output ceiling asks ``tiers`` for the ranks of a cut view's lines:
its location lines by the same one pass, each text after a location worked out once.

rustc's and ruff's default format (a head line, its ``-->`` line, then a snippet with a line-number
gutter, carets, ``help:`` lines and fixes: ten lines or more a diagnostic) is read a run of lines at a
time: one pass (``operators.kernel.diag_lines``) sorts the lines no other form can take (blank, gutter,
``help:``/``note:`` lines, rustc's ``= help:``) and the ones that may be rustc's heads; a head and its
``-->`` line are read by one pattern and added to the columns (``_Parser._rust_head``), the lines after
them as one run of details (``_Parser._run``; ``_note_line`` for a ``= `` line, which may name the lint). A view is then made a run of lines at a time (``_Reducer._lines``: a code a
line, kept, omitted to a group or done on its own), the ``help:`` and ``note:`` lines kept worked out
once for the whole view; the kept lines holding runs of alignment spaces are cut by the same pass
(``operators.kernel.diag_line_pieces``). tsc's heads one after another are read by one pass too
(``operators.kernel.diag_tsc_heads``), the lines continuing their messages as pyright's
(``_Parser._tsc``); gcc's source and caret lines with the location lines around them (``_Parser._bulk``,
``operators.kernel.diag_bulk``). Read a run at a time too: rustc's heads whose rule was seen before, with their ``-->``
lines, details and ``= help:`` lines (``operators.kernel.diag_rust_run``, ``diag_rust_details``); pyright's indented
heads whose text after the place was seen before and the lines continuing their messages, a trailing code the rule
(``operators.kernel.diag_indented_known``, ``diag_elaborations``); the rest one by one. A path alone on its line
before an entry (eslint's, pyright's) and gcc's ``path: In function`` line are file lines read without the chain of
forms (``_Parser._path_line``, ``_function_line``).
"""

from __future__ import annotations

import os
import posixpath
import re
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from itertools import compress, islice, repeat
from operator import add, and_, eq, gt, itemgetter, lt, ne, sub
from typing import Annotated, NamedTuple

import msgspec

from operators.ceiling import settings_of, visible_size
from operators.kernel import diag_patterns as P  # the patterns the kernel's twins match too, written once
from operators.kernel import (diag_bulk, diag_codes, diag_columns, diag_elaborations, diag_fill, diag_heads,
                               diag_indented, diag_indented_known, diag_indented_unknown, diag_line_pieces, diag_line_runs,
                               diag_lines, diag_offsets, diag_pads, diag_place_sizes, diag_places, diag_ranks, diag_runs, diag_rust_details,
                               diag_rust_run, diag_shown, diag_stylish, diag_tsc_heads, gather, line_starts)
from operators.config import Section, section
from operators.reduction import KEEP, OMIT, Plan, passthrough
from operators.relazy import lazy  # patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first


def _files_n(n: int) -> str:
    return f"{n:,} file" + ("" if n == 1 else "s")


NAME = "diagnostics"
SIGNALS = ""


class Settings(Section):
    max_shown: Annotated[int, msgspec.Meta(ge=1)] = 100_000  # diagnostics shown verbatim at most (past that, rules fold)
    examples: Annotated[int, msgspec.Meta(ge=1)] = 2  # diagnostics of a folded rule shown verbatim
    top: Annotated[int, msgspec.Meta(ge=1)] = 6  # rules and files named in the summary line
    max_locations: Annotated[int, msgspec.Meta(ge=1)] = 1000  # locations listed for one folded rule (the rest are counted, in its ref)
    room_share: Annotated[float, msgspec.Meta(gt=0, le=1)] = 0.9  # of the output ceiling the diagnostics fit themselves to


ANSI_RE = lazy(rb"\x1b\[[0-?]*[ -/]*[@-~]")
PAD_MIN = 8  # spaces in a row inside a line (eslint's column alignment) past which they are shortened ...
PAD_KEPT = 2  # ... to this many; the rest go to group ``padding``
ODD_RE = lazy(rb"\x1b\[[0-?]*[ -/]*[@-~]|(?<=[^ \n]) {%d,}(?=[^ \r\n])" % PAD_MIN)  # what a shown line loses
_SEV = P.SEV
# path:line[:col] then ":" or " - "; the path has no spaces, parentheses or colons
LOC_RE = lazy(P.LOC)
LOC_LINES_RE = lazy(P.LOC_LINES, re.M)  # LOC_RE, no indent, over a whole input
TSC_RE = lazy(P.TSC)
TSC_LINE_RE = lazy(TSC_RE.pattern, re.M)  # TSC_RE on a line of the input (``_Parser._tsc``)
STYLISH_RE = lazy(P.STYLISH)  # yamllint: (rule)
RUST_HEAD_RE = lazy(P.RUST_HEAD)
# RUST_HEAD_RE's line then ARROW_RE's over a whole input (``_Parser._rust_head``; a line's text is its bytes there)
RUST_BLOCK_RE = lazy(P.RUST_BLOCK, re.M)
LOC_LINE_RE = lazy(LOC_RE.pattern, re.M)  # LOC_RE on a line of the input (``_Parser._indented``)
LOC_TAIL_RE = lazy(P.LOC_TAIL)  # LOC_RE's line and column after its path, as the place keeps them (``_Kept.place``)
# whether STYLISH_RE matches a line of the input (``_Parser._path_line``): the head of its pattern, as what follows
# ``(.*?)`` matches the rest of any line (no newline in it)
STYLISH_LINE_RE = lazy(rb"^\s+\d+:\d+\s+(?:error|warning)\s", re.M)
STYLISH_MESSAGE_LINES = 20  # lines a stylish message may go on for after its head (``_stylish_trailing_rules``)
STYLISH_RULE_TAIL_RE = lazy(rb"\S {2,}(@?[A-Za-z][\w.-]*(?:/[\w.-]+)*)[ \t]*\r?\n?$")  # a stylish message's last line ending in its rule
STYLISH_FILE_RE = lazy(rb"^(?:[A-Za-z]:)?[/\\.\w][^\s:]*\.[A-Za-z0-9]{1,8}$")  # eslint/stylelint: a file's header line
# miette's report (oxlint): ``  x eslint(no-shadow): 'a' is already declared`` (``×``/``x`` an error,
# ``⚠``/``!`` a warning), then ``   ,-[src/a.ts:7:9]`` (``╭─[`` drawn in Unicode), a numbered snippet, ```----``
MIETTE_HEAD_RE = lazy(rb"^\s*(x|\xc3\x97|!|\xe2\x9a\xa0) +([\w@./-]+(?:\([\w@./-]+\))?): (.+)$")
MIETTE_LOC_RE = lazy(rb"^\s*(?:,-|\xe2\x95\xad\xe2\x94\x80)\[((?:[A-Za-z]:)?[^\s:\]]+):(\d+):(\d+)\]\s*$")
ARROW_RE = lazy(rb"^\s*--> ((?:[A-Za-z]:)?[^\s:]+):(\d+)(?::(\d+))?\s*$")
FILE_RE = lazy(rb"^(?:\*{5,} Module \S+|\S[^:\n]*: (?:In (?:static |member )?function|In instantiation|At top level)"
                     rb"|In file included from \S+|# [\w./@-]+$)")  # go build: "# example.com/app" names the package
SUMMARY_RE = lazy(P.SUMMARY)
BUILD_MARKER_RE = lazy(
    rb"^(?:g?make(?:\[\d+\])?: |\s*(?:\S*/)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+)(?:-\d+)? .*-c |=+ test session starts"
    rb"|Collecting \S|Successfully installed )",
    re.M,
)
DETAIL_RE = lazy(rb"^(?:[ \t|]|\d+ *\||\d+ |= |help:|note:|\.\.\.|==\S)")  # snippet, caret, help lines
LINT_RE = lazy(P.LINT)
FUNCTION_LINE_RE = lazy(rb"[^\s:()]+: (?:In (?:static |member )?function|In instantiation|At top level)")  # FILE_RE's (``_function_line``)
PATH_ALONE_RE = lazy(rb"[^\s:]*[/\\.][^\s:]*")  # PATHLIKE_RE with no colon, over a line's whole text (``_Parser._path_line``)
_BLANK_RE = lazy(rb"[ \t\n\r\x0b\x0c]*")  # what ``bytes.strip`` takes off
PATHLIKE_RE = lazy(rb"^(?:[A-Za-z]:)?[^\s:]*[/\\.][^\s:]*$")
GO_RE = lazy(rb"[^\s:()]+\.go:\d+:\d+: \S")  # ": " then a word: rg --vimgrep's "path:1:2:code" is not one
GO_CODE_RE = lazy(rb"\(([A-Z]{1,4}\d{1,5}|[a-z][a-z0-9]+)\)\s*$")  # staticcheck (SA4006), golangci-lint (errcheck)
RUST_FIRST = {bytes([c]) for c in b"fewnihrcABCDEFGHIJKLMNOPQRSTUVWXYZ"}  # how a RUST_HEAD_RE line can start
CODE_RE = lazy(rb"^([A-Z]{1,4}\d{2,4})\b:?")
TS_AFTER_SEV_RE = lazy(rb"^(?:error|warning|message) (TS\d+):")  # tsc --pretty
BRACKET_CODE_RE = lazy(rb"^\[([A-Z]{1,4}\d{2,4})(?:\([\w-]+\))?(?:, [^\]]*)?\]")  # ruff/pylint parseable
GROUPED_HEAD_RE = lazy(rb"^(?:[A-Za-z]:)?[^\s:]*[/\\.][^\s:]*:$")  # a path alone, then a colon
GROUPED_RE = lazy(rb"^\s+(\d+):(\d+) +([A-Z]{1,4}\d{2,4}) (?:\[\*\] )?(.*)$")  # ruff --output-format grouped
TRAIL_CODE_RE = lazy(P.TRAIL_CODE)
SEV_HEAD_RE = lazy(rb"(" + _SEV + rb")\b:?")
SEV_RE = lazy(rb"\b(" + _SEV + rb")\b", re.I)
MASK_RE = lazy(rb"\d+|'[^']*'|\"[^\"]*\"|`[^`]*`|\xe2\x80\x98.*?\xe2\x80\x99")

HEAD, PART, DETAIL, FILE, SUMMARY, OTHER, BLANK, PROGRESS = range(8)
PROGRESS_MIN = 5  # cargo progress lines folded from this many on
PROGRESS_RE = lazy(P.PROGRESS)
JAVAC_INFO_RE = lazy(rb"^\s+(?:(?:symbol|location|required|found|reason):\s|where \S.*:$|[\w#]+ extends \S+ declared in )")
JAVAC_MORE_RE = lazy(rb"^  \S")  # javac: a line of its message, indented by two, after the caret
CARET_RE = lazy(P.CARET)
_CARET_FIRST = frozenset(b" \t\r\x0b\x0c^")  # how a line CARET_RE matches starts
SYMBOL_RE = lazy(rb"^\s+symbol:\s")  # javac: what a "cannot find symbol" is missing
HINT_PRE_RE = lazy(rb"^(?:[ \t\r\x0b\x0c]*-->| {0,2}(?:help|note))", re.M)  # the lines HINT_HEAD_RE or ARROW_RE may match, and more
PAD_BIT = 0x80  # ``diag_lines``: a line holding ``PAD_MIN`` spaces in a row
_PADDED = bytes(bool(c & PAD_BIT) for c in range(256))
_CLASS = bytes(c & ~PAD_BIT for c in range(256))
_MAY_HINT = bytes(c in (0, 3) for c in range(256))  # ``_Parser.hint_lines``: the classes a hint line may have


def _ones(flags: bytes):
    """The indexes of the 1 bytes of ``flags`` (0 or 1 each), in order."""
    i = flags.find(1)
    while i >= 0:
        yield i
        i = flags.find(1, i + 1)


NOTE_LINE = 5  # ``_Parser._classes``: rustc's ``   = help: …`` (``_note_line``)
RUST_LINE = 4  # ``_Parser._classes``: a line that may be rustc's head; 1 to 3: lines ``_run`` reads a run at a time
NOTE_READ = 2  # ``_Parser._rust_head``: a note at the open diagnostic's place read, with its --> line
_IN_RUN = bytes(1 <= c <= 3 for c in range(256))
_FREE_KINDS = bytes([OTHER, BLANK, OTHER, OTHER]) + bytes([OTHER]) * 252  # read with no diagnostic open
_DETAILS_ONLY = ("rust", "plain", "stylish")  # styles whose every line after the head lines is a detail
HINT_HEAD_RE = lazy(rb"^ {0,2}(?:help|note)(?:\[[\w-]+\])?: \S")  # rustc's help/note at the start of a line, miette's indented by two
MIN_DETAILS = 120  # bytes of details below which they stay (a marker would cost as much)
_HEADS = bytes([HEAD])
_PARTS = bytes([PART])
_FLIP = b"\x01\x00" + bytes(254)  # 0 <-> 1
_TSC_BYTE = bytes([3])  # the style number of tsc's diagnostics (``TSC``)
_BLANKS = b" \t"  # how a stylish entry starts
_DIGITS = b"0123456789"
_ODD_FIRST = P.ODD_FIRST  # how a line another form of ``_head`` may take can start after its indent
DETAIL_BYTE = bytes([DETAIL])
PART_BYTE = bytes([PART])
_IS_DETAIL = bytes(kind == DETAIL for kind in range(256))


class Diag:
    """One diagnostic: its head line (index), last line of the head (wrapped/arrow lines), location
    text as printed (or path:line:col), rule key, severity, path, message."""

    __slots__ = ("head", "head_end", "end", "_loc", "key", "severity", "path", "_message", "style", "texts")

    def __init__(self, head: int, loc: bytes | int, key: str, severity: str, path: bytes, message: bytes | int,
                 style: str, texts: "_Texts | None" = None):
        self.head = self.head_end = self.end = head
        self._loc, self.key, self.severity, self.path, self._message, self.style = loc, key, severity, path, message, style
        self.texts = texts

    @property
    def loc(self) -> bytes:
        """The location as printed; kept as where it ends in the head line's text when it starts it
        (a bytes object a diagnostic would cost more than the rest of it)."""
        loc = self._loc
        return self.texts[self.head][:loc] if loc.__class__ is int else loc

    @property
    def message(self) -> bytes:
        """The message; kept as where it starts in the head line's text when it runs to its end."""
        message = self._message
        return self.texts[self.head][message:] if message.__class__ is int else message


STYLES = ("plain", "gnu", "pyright", "tsc", "rust", "stylish")
STYLE_IDS = {style: n for n, style in enumerate(STYLES)}
PLAIN, GNU, PYRIGHT, TSC, RUST = 0, 1, 2, 3, 4
STYLISH = STYLE_IDS["stylish"]
_STYLISH_BYTE = bytes([STYLISH])
_pyright_or = (lambda dash, style: PYRIGHT if dash else style)  # ``_Parser._indented``: a place then `` - `` is pyright's
_LISTED_AS_IS = bytes((PLAIN, GNU, PYRIGHT, STYLE_IDS["rust"]))  # styles whose place is the location as printed
SMALL = 1 << 31  # offsets in a head line below this are kept in an array('i')
_NOT_SUSPECT = bytes(not v & 1 for v in range(256))  # ``diag_heads``' flags: 1 for a line no other form can take


class _Diags:
    """The diagnostics of one parse as columns (a few bytes a diagnostic where an object would take
    over a hundred): head, head_end and end line indexes; rule, severity and path as numbers into
    their tables (each distinct text once); place and message as ``Diag`` keeps them (where they end
    or start in the head line, or bytes). ``d[j]`` makes the ``Diag`` of the ``j``-th when asked."""

    __slots__ = ("head", "head_end", "end", "key", "severity", "path", "style", "loc", "message", "texts", "texts_kept",
                 "keys", "key_ids", "paths", "path_ids")

    def __init__(self, texts: "_Texts"):
        code = _typecode(texts.raw)
        self.head, self.head_end, self.end = array(code), array(code), array(code)
        self.key, self.severity, self.path = array("I"), array("I"), array("I")
        self.style = bytearray()
        self.loc, self.message = array("i"), array("i")  # an offset in the head line, or ~n: ``texts_kept[n]``
        self.texts_kept = _Kept(self)
        self.texts = texts
        self.keys: list[str] = []  # rules and severities, each once
        self.key_ids: dict[str, int] = {}
        self.paths: list[bytes] = []
        self.path_ids: dict[bytes, int] = {}

    def __len__(self) -> int:
        return len(self.head)

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [self[k] for k in range(*j.indices(len(self)))]
        keys = self.keys
        loc, message = self.loc[j], self.message[j]
        d = Diag(self.head[j], loc if loc >= 0 else self.texts_kept[~loc], keys[self.key[j]], keys[self.severity[j]],
                 self.paths[self.path[j]], message if message >= 0 else self.texts_kept[~message], STYLES[self.style[j]],
                 self.texts)
        d.head_end, d.end = self.head_end[j], self.end[j]
        return d

    def __iter__(self):
        return map(self.__getitem__, range(len(self.head)))

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def key_id(self, key: str) -> int:
        n = self.key_ids.get(key)
        if n is None:
            n = self.key_ids[key] = len(self.keys)
            self.keys.append(key)
        return n

    def path_id(self, path: bytes) -> int:
        n = self.path_ids.get(path)
        if n is None:
            n = self.path_ids[path] = len(self.paths)
            self.paths.append(path)
        return n

    def add(self, head: int, loc, key: str, severity: str, path: bytes, message, style: str) -> int:
        """A one-line diagnostic appended; its index."""
        return self.add_ids(head, loc, self.key_id(key), self.key_id(severity), path, message, STYLE_IDS[style])

    def add_ids(self, head: int, loc, key: int, severity: int, path: bytes, message, style: int) -> int:
        """``add`` with rule, severity and style as their numbers."""
        self.path.append(self.path_id(path))
        self.head.append(head)
        self.head_end.append(head)
        self.end.append(head)
        self.key.append(key)
        self.severity.append(severity)
        self.style.append(style)
        self.loc.append(loc if loc.__class__ is int and loc < SMALL else self._kept(loc))
        self.message.append(message if message.__class__ is int and message < SMALL else self._kept(message))
        return len(self.head) - 1

    def sync(self, j: int, d: Diag) -> None:
        """The ``j``-th diagnostic's lines as ``d`` (its ``Diag``, grown by the parse) has them."""
        self.head_end[j], self.end[j] = d.head_end, d.end

    def message_of(self, j: int) -> bytes:
        message = self.message[j]
        if message < 0:
            message = self.texts_kept[~message]
        return self.texts[self.head[j]][message:] if message.__class__ is int else message

    def _kept(self, text: "bytes | int") -> int:
        """``text`` (a place or message not cut from its head line, or an offset past ``SMALL``) kept
        aside; its number as stored."""
        self.texts_kept.append(text)
        return ~(len(self.texts_kept) - 1)


LAZY = 1 << 30  # ``_Kept``: from this number on, the place of the stylish or indented entry ``n - LAZY``


class _Kept(list):
    """``_Diags.texts_kept``: the places and messages not cut from their head lines; past ``LAZY``, the
    place of a stylish entry (``path:line:col``) or an indented one (``_Parser._indented``), made when asked (a bytes object an entry, kept, would
    take about as much memory as its line)."""

    __slots__ = ("diags",)

    def __init__(self, diags: "_Diags"):
        super().__init__()
        self.diags = diags

    def __getitem__(self, n):
        return self.place(n - LAZY) if n.__class__ is int and n >= LAZY else list.__getitem__(self, n)

    def place(self, j: int) -> bytes:
        """The place of the ``j``-th diagnostic, made from its head line: a stylish entry's ``path:line:col``,
        an indented one's location as printed (``_Parser._indented``)."""
        diags = self.diags
        if diags.style[j] != STYLISH:  # ``LOC_RE``'s path (as ``_Diags`` has it: it starts the line after its indent), line and column
            texts, head, path = diags.texts, diags.head[j], diags.paths[diags.path[j]]
            raw, end = texts.raw, texts.ends[head]
            at = raw.find(path, texts.starts[head], end)
            return raw[at : LOC_TAIL_RE.match(raw, at + len(path), end).end()]
        texts, head = diags.texts, diags.head[j]  # its head line: spaces, line:col, spaces, ... (``STYLISH_RE``)
        return diags.paths[diags.path[j]] + b":" + texts.raw[texts.starts[head] : texts.ends[head]].split(None, 1)[0]

    def items(self, ns) -> list:
        """``self[n]`` of each of ``ns``, the places made when asked made at once (``operators.kernel.diag_places``)."""
        lazy = [n - LAZY for n in ns if n >= LAZY]
        if not lazy:
            return list(map(list.__getitem__, repeat(self), ns))
        diags = self.diags
        texts = diags.texts
        made = iter(diag_places(texts.raw, texts.starts, texts.ends, diags.head, diags.path, diags.style, array("q", lazy),
                                diags.paths, STYLISH))
        return [next(made) if n >= LAZY else list.__getitem__(self, n) for n in ns]

    def place_sizes(self, js):
        """``len(self.place(j))`` of each of ``js`` (``operators.kernel.diag_place_sizes``), the places not made."""
        diags = self.diags
        texts = diags.texts
        return memoryview(diag_place_sizes(texts.raw, texts.starts, texts.ends, diags.head, diags.path, diags.style,
                                           array("q", js), diags.paths, STYLISH)).cast("I")


def _added(numbers: dict, known: int) -> list:
    """The keys added to ``numbers`` past its first ``known``, in order (read from its end)."""
    new = len(numbers) - known
    return list(islice(reversed(numbers), new))[::-1] if new else []


def _typecode(raw: bytes) -> str:
    """The array type of offsets into ``raw`` and of its line numbers: 4 bytes each below 4 GiB."""
    return "I" if len(raw) < 1 << 32 else "q"


def _lines(raw: bytes) -> tuple[array, array]:
    """Where each line starts and ends (after its newline): two arrays, 8 bytes a line (``_typecode``)."""
    code = _typecode(raw)
    if code == "I":  # each line's start, then the end, 4 bytes each
        found = memoryview(diag_offsets(raw))
        starts, ends = array("I"), array("I")
        starts.frombytes(found[:-4])
        ends.frombytes(found[4:])
        return starts, ends
    found = line_starts(raw)
    return array(code, found[:-1]), array(code, found[1:])


class _Texts:
    """The lines' text without its line break and terminal escapes, made each time it is read: kept,
    a bytes object a line would take more memory than the input."""

    __slots__ = ("raw", "starts", "ends", "last")

    def __init__(self, raw: bytes, starts: array, ends: array):
        self.raw, self.starts, self.ends = raw, starts, ends
        self.last: tuple[int, bytes] = (-1, b"")  # the line read last: the parser reads ahead one line

    def __getitem__(self, i: int) -> bytes:
        last = self.last
        if last[0] == i:
            return last[1]
        text = self._make(i)
        self.last = (i, text)
        return text

    def __len__(self) -> int:
        return len(self.starts)

    def _make(self, i: int) -> bytes:
        raw, start, end = self.raw, self.starts[i], self.ends[i]
        if end > start and raw[end - 1] == 10:  # line_body_end
            end -= 1
        if end > start and raw[end - 1] == 13:
            end -= 1
        text = raw[start:end]
        return ANSI_RE.sub(b"", text) if b"\x1b" in text else text

    def __iter__(self):
        return map(self.__getitem__, range(len(self.starts)))


def _severity(text: bytes) -> str:
    m = SEV_RE.search(text[:80])
    return m.group(1).decode().lower() if m else ""


KEY_CHARS = 60  # the rule of a diagnostic without a code: its message's first bytes, numbers and quoted names masked


def _key(code: bytes | None, severity: str, message: bytes) -> str:
    if code:
        return code.decode("utf-8", "replace")
    masked = MASK_RE.sub(b"_", message.strip())
    cut = masked[:KEY_CHARS].decode("utf-8", "replace") + ("…" if len(masked) > KEY_CHARS else "")
    return f"{severity}: {cut}" if severity else cut


PYLINT_CODE_RE = lazy(rb"[CRWEFI]\d{4}")
PYLINT_CATEGORY = {"F": "fatal error", "E": "error", "W": "warning", "C": "convention", "R": "refactor", "I": "info"}


_IS_ONE, _IS_TWO = bytes(v == 1 for v in range(256)), bytes(v == 2 for v in range(256))  # (``_Parser._bulk_columns``)
TAILS_MAX = 50_000  # distinct texts after a location remembered by one parse (``_tail``)


def _loc_diag(i: int, text: bytes, tails: dict | None = None, texts: "_Texts | None" = None) -> Diag | None:
    """A ``path:line:col: …`` or ``path:line:col - …`` diagnostic, or None when the rest is not one.
    ``tails``: what ``_tail`` made of the texts after a location seen before (most repeat: the same
    message at many places), so each is worked out once."""
    m = LOC_RE.match(text) if b":" in text else None
    if m is None:
        return None
    indent, path, rest = m.group(1, 2, 5)
    go = b".go:" in text and GO_RE.match(text, len(indent)) is not None  # go build/vet/staticcheck: path.go:line:col: message
    if go or tails is None:
        tail = _tail(rest, go)
    else:
        tail = tails.get(rest, False)
        if tail is False:
            tail = _tail(rest, go)
            if len(tails) < TAILS_MAX:
                tails[rest] = tail
    if tail is None:
        return None
    severity, key, message, gnu = tail
    at = m.start(5)
    loc = text[len(indent) : at].rstrip(b": -")
    style = "pyright" if b" - " in text[at - 3 : at] else "gnu" if gnu else "plain"
    if texts is not None and not indent:  # ``texts[i]`` is ``text``: the location starts it, the message ends it
        return Diag(i, len(loc), key, severity, path, len(text) - len(message), style, texts)
    return Diag(i, loc, key, severity, path, message, style)


def _tail(rest: bytes, go: bool) -> tuple[str, str, bytes, bool] | None:
    """(severity, rule key, message, whether a severity word leads) of what follows a location, or
    None when it is no diagnostic (``_code_and_severity``)."""
    found = _code_and_severity(rest, go)
    if found is None:
        return None
    code, severity, sev_m = found
    message = rest[sev_m.end():].lstrip() if sev_m else rest
    return severity, _key(code, severity, message), message, sev_m is not None


def _code_and_severity(rest: bytes, go: bool):
    """(code, severity, the severity's match) of what follows a location, or None when it has neither
    a rule code nor a severity word (then it is no diagnostic: a search hit, a log line)."""
    first = rest[:1]  # (each of the three codes' patterns has its own first byte: only it is asked)
    code_m = (CODE_RE.match(rest) if b"A" <= first <= b"Z" else BRACKET_CODE_RE.match(rest) if first == b"["
              else TS_AFTER_SEV_RE.match(rest) if b" TS" in rest[:12] else None)
    sev_m = SEV_HEAD_RE.match(rest)  # lower case: "INFO" after file:line is a log's level, not a severity
    trail = TRAIL_CODE_RE.search(rest) if rest.rstrip()[-1:] in (b")", b"]") else None  # every trail ends so
    if not (code_m or sev_m or (trail and trail.group(1)) or go):
        return None
    if go and not (code_m or sev_m):
        trail = GO_CODE_RE.search(rest) or trail
    code = code_m.group(1) if code_m else trail[trail.lastindex] if trail else None  # (one group a form: the one matched)
    severity = sev_m.group(1).decode().lower() if sev_m else _severity(trail.group(0)) if trail and trail.group(1) else ""
    if code and not sev_m and PYLINT_CODE_RE.fullmatch(code):  # pylint: the letter is the category
        severity = severity or PYLINT_CATEGORY.get(chr(code[0]), "")
    return code, severity, sev_m


class _Common(NamedTuple):
    settings: "Settings"
    summary: bytes  # the summary line
    by_key: dict  # rule -> the indexes of its diagnostics in order
    rank: array  # each diagnostic's place among its rule's (from 1)
    details: int  # bytes of detail lines
    progress: int  # cargo progress lines
    targets: frozenset  # cargo's lines about each target folded (``_target_lines``)


# cargo's lines about each target it built (a workspace of many binaries prints them for each):
TARGET_RE = lazy(rb"^(?:(?:error|warning): (?:could not compile `|`[^`\n]+` \(\w+ )|For more information about (?:this|an) "
                 rb"error, try `rustc --explain|Some errors have detailed explanations: |warning: build failed, waiting)"
                 rb"[^\n]*", re.M)
_TARGET_FIRST = bytes(c in b"ewFS" for c in range(256))  # how a ``TARGET_RE`` line starts: error, warning, For, Some


def _target_starts(raw: bytes, starts) -> list[int]:
    """The start of each line (``starts``) whose first byte one of ``TARGET_RE``'s lines starts with,
    in order: the first bytes of the lines taken at once, a byte a line (four searches of the whole
    input for the lines' openings took longer)."""
    firsts = bytes(map(raw.__getitem__, starts)).translate(_TARGET_FIRST)
    return list(map(starts.__getitem__, _ones(firsts)))


TARGET_MIN = 8  # such lines folded from this many on, the last of each kind kept (the build's conclusion)


def _target_lines(raw: bytes, starts) -> frozenset:
    """The line indexes of cargo's lines about each target to fold: all but the last of each kind
    (``could not compile``, ``generated N warnings``, ``rustc --explain``, …) when there are
    ``TARGET_MIN`` or more."""
    match = TARGET_RE.match  # at each line start that may begin one (finditer's matches: each is a line's start)
    found = [(m.start(), m[0][:24]) for m in map(match, repeat(raw), _target_starts(raw, starts)) if m is not None]
    if len(found) < TARGET_MIN:
        return frozenset()
    last = {kind: at for at, kind in found}
    return frozenset(bisect_right(starts, at) - 1 for at, kind in found if last[kind] != at)


class _Parser:
    def __init__(self, raw: bytes):
        self.raw = raw
        self.starts, self.ends = _lines(raw)
        self.kind = bytearray([OTHER]) * len(self.starts)
        self.text = _Texts(raw, self.starts, self.ends)
        self.clean = b"\x1b" not in raw and PAD not in raw  # then no shown line loses anything (``_hidden``)
        self.diags = _Diags(self.text)
        self.tails: dict = {}  # ``_loc_diag``
        self.plain: dict = {}  # ``_plain_head``: what it made of each text after a location
        self.padded = b""  # ``run``: a byte a line, 1 for one holding ``PAD``, when the input is not clean (no escapes)
        self.rust_keys: dict = {}  # ``_rust_head``: the rule number of each code (or severity and message)
        self.stylish: dict = {}  # ``_stylish``: the number of each severity and code (or message) (``diag_stylish``)
        self.stylish_keys: list[int] = []  # ... the rule number of each
        self.stylish_severities: list[int] = []  # ... and its severity's
        self.messages: dict = {}  # ``_stylish``: the number of each message text
        self.message_slots: list[int] = []  # ... and its place in ``texts_kept`` as ``_Diags`` stores it
        self.tsc_combos: dict = {}  # ``_tsc``: the number of each severity and code (``diag_tsc_heads``)
        self.tsc_paths: dict = {}  # ... and of each path
        self.tsc_ids: tuple = ([], [], [])  # ... the rule and severity numbers of each combination, each path's
        self.indented: dict = {}  # ``_indented``: rule and severity numbers, message and style of each text after a location
        self.bulk = None  # ``_bulk_columns``: the location lines found at once and what each distinct text after one is

    def common(self, settings: Settings) -> "_Common":
        """What every view built from this parse shares (made once for ``settings``)."""
        made = self.__dict__.get("_common")
        if made is None or made.settings is not settings:
            keys = self.diags.keys
            rank, order, firsts, counts = diag_ranks(self.diags.key, len(keys))
            by_key, at, order = {}, 0, memoryview(order).cast("B")
            for key, count in zip(firsts, counts):  # each rule's diagnostics, the rules in order of first use
                indexes = by_key[keys[key]] = array("I")
                indexes.frombytes(order[at * 4 : (at + count) * 4])
                at += count
            detail = self.kind.translate(_IS_DETAIL)
            details = sum(compress(self.ends, detail)) - sum(compress(self.starts, detail)) if 1 in detail else 0
            made = self._common = _Common(settings, _summary(self.diags, settings, by_key), by_key, rank, details,
                                          self.kind.count(PROGRESS), _target_lines(self.raw, self.starts))
        return made

    def one_line(self) -> bytes:
        """A byte a diagnostic: 1 when it is one line that is shown as printed (no colour escape, no run
        of ``PAD_MIN`` spaces: ``_hidden`` finds nothing to leave out of it)."""
        made = self.__dict__.get("_plain")
        if made is None:
            diags = self.diags
            single = diags.head.tobytes() == diags.end.tobytes()  # (each diagnostic one line: eslint's, most linters')
            made = b"\x01" * len(diags) if single else bytes(map(eq, diags.head, diags.end))
            if self.padded:  # no escapes: the lines holding ``PAD`` (``run``), read by the kernel (line numbers as int32)
                at_heads = (gather(self.padded, diags.head) if diags.head.typecode == "I" and len(self.starts) < 1 << 31
                            else bytes(map(self.padded.__getitem__, diags.head)))
                made = at_heads.translate(_FLIP) if single else bytes(map(gt, made, at_heads))
            elif not self.clean:  # (bytes.find in each head line: a regex scan of the whole input took longer)
                raw, starts, ends = self.raw, self.starts, self.ends
                for odd in (b"\x1b", PAD):
                    found = map(raw.find, repeat(odd), map(starts.__getitem__, diags.head), map(ends.__getitem__, diags.head))
                    made = bytes(map(gt, made, map((-1).__lt__, found)))
            self._plain = made
        return made

    def gaps(self) -> bytes:
        """A byte a diagnostic: 1 when it does not start on the line after the one before it ends (the
        first's is 1)."""
        made = self.__dict__.get("_gaps")
        if made is None:
            diags = self.diags
            made = self._gaps = b"\x01" + bytes(map(ne, islice(diags.head, 1, None), map(add, diags.end, repeat(1))))
        return made

    def run(self) -> "_Parser":
        current_file = b""
        self.open: Diag | None = None  # the diagnostic whose lines are being read
        self.open_j = -1  # its index in ``diags``
        self.pending = False  # the open one is the last diagnostic, its ``Diag`` not made yet (``_plain_head``)
        self.detail_started = False
        n = len(self.text)
        found = self._heads()
        lines = found[0] if found else ()
        ok = self._bulk_columns(found) if found else b""
        del found  # what ``_bulk`` reads is kept in ``bulk``: the rest of the columns go now
        n_heads, h = len(lines), 0
        starts, raw = self.starts, self.raw
        bits = self._classes()
        classes = self.classes = bits.translate(_CLASS)
        self.padded = bits.translate(_PADDED) if bits and not self.clean else b""  # (``_Reducer._line_codes``)
        del bits
        runs = self.runs = classes.translate(_IN_RUN)
        i = -1
        while i + 1 < n:
            i += 1
            if h < n_heads and lines[h] == i:
                if ok[h]:  # a run of location lines no other form takes: added at once
                    h = self._bulk(h, ok)
                    i = lines[h - 1]
                    continue
                h += 1
                if self._plain_head(i, LOC_LINES_RE.match(raw, starts[i])):
                    continue
            if classes and classes[i]:
                upto = self._by_class(i, n, runs, lines[h] if h < n_heads else n)
                if upto is not None:
                    i = upto
                    continue
            elif classes and raw[starts[i]] in _BLANKS:
                upto = self._stylish(i, n, current_file) if current_file else i - 1
                if upto < i:
                    upto = self._indented(i, n)
                if upto >= i:
                    i = upto
                    continue
            elif classes:
                upto = self._unindented(i, n, lines[h] if h < n_heads else n)
                if upto >= i:
                    i = upto
                    continue
                path = self._path_line(i, n) or self._function_line(i)
                if path:
                    current_file = path
                    continue
            current_file = self._line(i, n, current_file)
        self._stylish_trailing_rules()
        self.tails, self.plain, self.bulk, self.stylish, self.messages, self.indented = {}, {}, None, {}, {}, {}
        self.tsc_combos, self.tsc_paths, self.tsc_ids, self.runs = {}, {}, ([], [], []), b""
        self.stylish_keys, self.stylish_severities, self.message_slots = [], [], []
        return self

    def _stylish_trailing_rules(self) -> None:
        """An eslint stylish message that spans lines names its rule at the end of its last line
        (typescript-eslint's ``no-empty-object-type``: three ``- If …`` lines after the message, then
        ``  @typescript-eslint/no-empty-object-type``): such a diagnostic, read with its message as its rule
        (``_key``: no code on its head line), takes that rule, and those lines are its own (``PART``, as
        tsc's continued messages are): listed by place, it no longer leaves them behind as lines of their
        own. The summary had named 7 of them ``error: The _ (_) type allows any non-nullish value, including
        liter…``. Looked for only when a stylish rule is a message (a key with a space)."""
        diags = self.diags
        keys = diags.keys
        named = {k for k, key in enumerate(keys) if " " in key}
        if not named or _STYLISH_BYTE not in diags.style:
            return
        raw, starts, ends, kind = self.raw, self.starts, self.ends, self.kind
        heads, styles, n = diags.head, diags.style, len(starts)
        for j, k in enumerate(diags.key):
            if k not in named or styles[j] != STYLISH:
                continue
            i = heads[j] + 1  # the message's other lines: the lines after its head no form took
            while i < n and i - heads[j] <= STYLISH_MESSAGE_LINES and kind[i] == OTHER and ends[i] - starts[i] > 1:
                i += 1
            m = STYLISH_RULE_TAIL_RE.search(raw, starts[i - 1], ends[i - 1]) if i > heads[j] + 1 else None
            if m is not None and _key(None, keys[diags.severity[j]], diags.message_of(j)) == keys[k]:
                diags.key[j] = diags.key_id(m.group(1).decode("utf-8", "replace"))
                kind[heads[j] + 1 : i] = PART_BYTE * (i - heads[j] - 1)  # its lines, shown or listed with it
                diags.head_end[j] = diags.end[j] = i - 1

    def _path_line(self, i: int, n: int) -> bytes:
        """Line ``i`` (class 0, not indented, a line's text its bytes) read as ``_line`` reads it when it is a path
        alone (no space, no colon) followed by an eslint stylish entry or an indented pyright diagnostic: no form
        of ``_head`` takes such a line, nor ``SUMMARY_RE`` or ``FILE_RE``, so it is a file line (``_file_line``);
        the path, or ``b""`` when it is not one (the loop reads it as any line)."""
        if i + 1 >= n or self.kind[i] != OTHER:
            return b""
        raw, start, end = self.raw, self.starts[i], self.ends[i]
        if raw.find(b":", start, end) >= 0:  # (no colon in a path alone: gcc's ``path: In function`` asks no pattern)
            return b""
        m = PATH_ALONE_RE.fullmatch(raw, start, end - 1 if raw[end - 1] == 10 else end)
        if m is None:
            return b""
        t, at, end = m[0], self.starts[i + 1], self.ends[i + 1]  # the next line matched in the input, not cut from it
        end -= raw[end - 1] == 10
        if not (STYLISH_LINE_RE.match(raw, at, end)
                or (raw[at] == 32 and raw.startswith(t + b":", _BLANK_RE.match(raw, at, end).end(), end))):
            return b""
        self.kind[i], self.open, self.pending = FILE, None, False
        return t

    def _function_line(self, i: int) -> bytes:
        """Line ``i`` (class 0, not indented, a line's text its bytes) read as ``_line`` reads it when it is gcc's
        ``path: In function ‘f’:`` (``FUNCTION_LINE_RE``: a path with no colon, parenthesis or space; no ``): ``, not
        rustc's head): no form of ``_head`` takes it, nor ``SUMMARY_RE``, so it is a file line (``FILE_RE``); its text
        stripped, or ``b""`` when it is not one (the loop reads it as any line)."""
        if self.kind[i] != OTHER:
            return b""
        raw, start, end = self.raw, self.starts[i], self.ends[i]
        if FUNCTION_LINE_RE.match(raw, start, end) is None:
            return b""
        t = raw[start : end - 1 if raw[end - 1] == 10 else end]
        if b"): " in t or (t[:1] in RUST_FIRST and RUST_HEAD_RE.match(t)):
            return b""
        self.kind[i], self.open, self.pending = FILE, None, False
        return t.strip()

    def _stylish(self, i: int, n: int, current_file: bytes) -> int:
        """The eslint stylish entries from line ``i`` on under ``current_file`` (``STYLISH_RE`` lines of class
        0: a line's text is its bytes; no ``GROUPED_RE`` one can be), read a run at a time
        (``operators.kernel.diag_stylish``) and added as ``_head`` then ``_start`` add each (the last left
        open, its ``Diag`` to be made); the last line read, ``i - 1`` when line ``i`` is none (then it is
        read as any line). Each place is made when asked (``_Kept``), each message text kept once."""
        diags, combos, messages = self.diags, self.stylish, self.messages
        known, known_messages = len(combos), len(messages)
        k, combo_ids, message_ids = diag_stylish(self.raw, self.starts, self.ends, self.classes, i, n, combos, messages)
        m = k - i
        if m <= 0:
            return i - 1
        key_of, severity_of, kept_at = self.stylish_keys, self.stylish_severities, self.message_slots
        if len(combos) != known:
            for combo in _added(combos, known):  # rule and severity numbers, in order of first use
                severity = "error" if combo[0] == 0x65 else "warning"
                key_of.append(diags.key_id(_key(combo[2:], severity, b"") if combo[1] else _key(None, severity, combo[2:])))
                severity_of.append(diags.key_id(severity))
        if len(messages) != known_messages:
            kept_at.extend(map(diags._kept, _added(messages, known_messages)))
        combo_ids, message_ids = memoryview(combo_ids).cast("i"), memoryview(message_ids).cast("i")
        first = len(diags.head)
        diags.path.extend(array("I", (diags.path_id(current_file),)) * m)
        lines = array(diags.head.typecode, range(i, k))  # (an array extends the other columns by a copy)
        diags.head.extend(lines)
        diags.head_end.extend(lines)
        diags.end.extend(lines)
        diags.key.extend(map(key_of.__getitem__, combo_ids))
        diags.severity.extend(map(severity_of.__getitem__, combo_ids))
        diags.style.extend(_STYLISH_BYTE * m)
        if first + m < LAZY:  # a place: ``~(LAZY + j)``, made from the path and the head line when asked
            diags.loc.extend(range(~(LAZY + first), ~(LAZY + first + m), -1))
        else:
            diags.loc.extend(diags._kept(diags.texts_kept.place(j)) for j in range(first, first + m))
        diags.message.extend(map(kept_at.__getitem__, message_ids))
        self.kind[i:k] = _HEADS * m
        self.open_j = len(diags.head) - 1
        self.open, self.pending, self.detail_started = None, True, False
        return k - 1

    def _indented(self, i: int, n: int) -> int:
        """The indented ``path:line:col - severity: message`` diagnostics from line ``i`` on (pyright's, under
        a file line: ``LOC_RE`` lines of class 0 that no earlier form of ``_head`` takes, not notes; a
        line's text is its bytes), with the lines that continue their messages (``_elaboration``), added
        as ``_head`` then ``_start`` then ``_inside`` add each (the last left open, its ``Diag`` to be
        made); the last line read, ``i - 1`` when line ``i`` is none. The lines are read a run at a time
        (``operators.kernel.diag_indented``), the columns added at once; each place is made when asked
        (``_Kept``)."""
        raw, starts, diags = self.raw, self.starts, self.diags
        stop, cols = diag_indented(raw, starts, self.ends, self.classes, i, n)
        if stop == i or memoryview(cols).cast("q")[0] < 0:  # line i no location: no head open, nothing is read
            return i - 1
        reads = diag_elaborations(raw, starts, self.ends, cols, i, -1)
        run, c, j, m = _IndentedRun(), memoryview(cols).cast("q"), 0, stop - i
        self._indented_tails(cols, c)
        while j < m:  # the lines read without Python (``diag_indented_known``), then the one after them here
            j, *known = diag_indented_known(raw, starts, cols, reads, j, i, run.head - i if run.head >= 0 else -1, run.dash,
                                            self.indented, diags.path_ids, diags.paths, diags.key_ids, diags.keys)
            run.extend(*known)
            if j >= m or not self._indented_line(run, c, reads, i + j, j):
                break
            j += 1
        if not run.gots:
            return i - 1
        self.kind[i : i + j] = run.kinds
        self._add_indented(run)
        self.open_j = len(diags.head) - 1
        self.open, self.pending, self.detail_started = None, True, False
        return i + j - 1

    def _indented_line(self, run: "_IndentedRun", c, reads: bytes, k: int, j: int) -> bool:
        """Line ``k`` (the ``j``-th of the run ``_indented`` reads: ``c``, ``diag_indented``'s columns; ``reads``,
        ``diag_elaborations``') read as the loop of ``_line`` reads it, into ``run``: a head (a diagnostic when
        what follows its place is one: ``_indented_tail``) or a line that continues the open head's message
        (``_elaboration``; a trailing code its rule, unless the head line has one). False when it is neither."""
        raw, starts = self.raw, self.starts
        path_at, path_end, at, end, dash = c[5 * j : 5 * j + 5]
        if path_at >= 0:
            rest = raw[at:end]
            got = self.indented.get(rest, False)
            if got is False:
                got = self._indented_tail(rest)
            if got is None:
                return False
            run.add(k, got, self.diags.path_id(raw[path_at:path_end]), PYRIGHT if dash else got[3], dash)
            return True
        found = _READS[reads[j]] if run.dash else None  # (``diag_elaborations``: as ``_elaboration`` reads the line)
        if found is False:
            found = TRAIL_CODE_RE.search(raw[starts[k] : end]) or True
        elif found == 3:
            found = self._elaboration(k, end, INDENT_RE.match(raw, starts[run.head]).end() - starts[run.head])
        if found is None:
            return False
        if found is not True:  # a trailing code: the rule, unless the head line has one
            if run.trail is None:
                head_end = self.ends[run.head]
                run.trail = TRAIL_CODE_RE.search(raw, starts[run.head], head_end - 1 if raw[head_end - 1] == 10 else head_end) is not None
            if not run.trail:
                run.rekeys.append((len(run.gots) - 1, self.diags.key_id(next(g for g in found.groups() if g).decode("utf-8", "replace"))))
        run.lasts[-1] = k
        run.kinds.append(PART)
        return True

    def _unindented(self, i: int, n: int, stop: int) -> int:
        """Line ``i`` (class 0, not indented, a line's text its bytes) read with the lines after it when it is
        tsc's head (``_tsc``) or rustc's ``note:`` followed by its ``-->`` line (``_rust_head``; ``_classes`` leaves
        such a note to the loop); the last line read, ``i - 1`` when it is neither (the loop reads it)."""
        raw, start = self.raw, self.starts[i]
        if raw.find(b"): ", start, self.ends[i]) >= 0:
            return self._tsc(i, stop)
        if raw.startswith(b"note: ", start) and i + 1 < stop:
            read = self._rust_head(i, n)
            if read is True and i + 2 < n and (self.runs[i + 2] or self.classes[i + 2] == NOTE_LINE):
                return self._rust_details(i + 2, stop)  # its details, as the loop reads them
            return i + 1 if read else i - 1
        return i - 1

    def _tsc(self, i: int, stop: int) -> int:
        """tsc's ``path(line,col): error TS2322: …`` diagnostics from line ``i`` on (before ``stop``: lines of
        class 0, a line's text its bytes), with the indented lines that continue their messages (as
        ``_elaboration`` reads them), added as ``_head`` then ``_start`` then ``_inside`` add each (the
        last left open, its ``Diag`` to be made), the columns at once; the last line read, ``i - 1`` when
        line ``i`` is none. The heads one after another are read at once (``operators.kernel.diag_tsc_heads``:
        each severity and code, each path numbered once); what each run gives is kept as it comes and
        turned into the columns once, at the end (a rule's and a path's numbers, once made, stay)."""
        raw, starts, ends, classes, diags, kind = self.raw, self.starts, self.ends, self.classes, self.diags, self.kind
        combos, paths, key_of, severity_of, path_of = self.tsc_combos, self.tsc_paths, *self.tsc_ids
        runs, ids, path_ids, locs, messages = [], [], [], [], []  # each run of heads' own
        last_of: dict[int, int] = {}  # a head's last line, when lines continue its message
        key_by: dict[int, int] = {}  # a head's rule, when a line continuing its message names it
        k, read = i, 0  # (heads read)
        while k < stop and not classes[k]:
            known, known_paths = len(combos), len(paths)
            upto, made_ids, made_paths, made_locs, made_messages = diag_tsc_heads(raw, starts, ends, classes, k, stop,
                                                                                  combos, paths)
            if upto == k:
                break
            if len(combos) != known:
                for combo in _added(combos, known):  # (``_head``: the rule's number, then the severity's)
                    sev, code = combo.split(b" ")
                    key_of.append(diags.key_id(code.decode()))
                    severity_of.append(diags.key_id(sev.decode()))
            if len(paths) != known_paths:
                path_of.extend(map(diags.path_id, _added(paths, known_paths)))
            read += upto - k
            runs.append(range(k, upto)), ids.append(made_ids), path_ids.append(made_paths), locs.append(made_locs)
            messages.append(made_messages)
            kind[k:upto] = _HEADS * (upto - k)
            k = upto
            if k >= stop or classes[k] or raw[starts[k]] not in _BLANKS:
                break
            start, end = starts[k - 1], ends[k - 1]
            k, done = self._tsc_parts(k, stop, read - 1, last_of, key_by, start,
                                      end - 1 if raw[end - 1] == 10 else end, diag_indented, diag_elaborations)
            if done:
                break
        if not runs:
            return i - 1
        heads = array(diags.head.typecode)
        for run in runs:
            heads.extend(run)
        lasts = array(heads.typecode, heads)
        for j, last in last_of.items():
            lasts[j] = last
        combo_ids = memoryview(b"".join(ids)).cast("i")
        key = list(map(key_of.__getitem__, combo_ids))
        for j, rule in key_by.items():
            key[j] = rule
        for column, made in zip((diags.head, diags.head_end, diags.end, diags.key, diags.severity, diags.path, diags.loc,
                                 diags.message),
                                (heads, lasts, lasts, key, map(severity_of.__getitem__, combo_ids),
                                 map(path_of.__getitem__, memoryview(b"".join(path_ids)).cast("i")),
                                 memoryview(b"".join(locs)).cast("i"), memoryview(b"".join(messages)).cast("i"))):
            column.extend(made)
        diags.style.extend(bytes([TSC]) * len(heads))
        self.open_j, self.open, self.pending, self.detail_started = len(diags.head) - 1, None, True, False
        return k - 1

    def _tsc_parts(self, k: int, stop: int, j: int, last_of: dict, key_by: dict, start: int, eol: int, diag_indented,
                   diag_elaborations) -> tuple[int, bool]:
        """The indented lines from ``k`` on that continue the message of the tsc diagnostic ``_tsc`` read last
        (the ``j``-th it read; its head line: ``raw[start:eol]``; its last line and rule noted in ``last_of`` and
        ``key_by``), read as ``_indented`` reads pyright's (``_elaboration``); the line after them, and whether a
        line before ``stop`` is left that the loop is to read. (``diag_indented``, ``diag_elaborations``: the
        kernel's, as ``_tsc`` found them.)"""
        raw = self.raw
        upto, cols = diag_indented(raw, self.starts, self.ends, self.classes, k, stop)
        indent, trail = INDENT_RE.match(raw, start).end() - start, None
        reads = diag_elaborations(raw, self.starts, self.ends, cols, k, indent)
        cols = memoryview(cols).cast("q")
        for path_at, end, read in zip(cols[0::5], cols[3::5], reads):
            found = None if path_at >= 0 else _READS[read]  # (``diag_elaborations``: as ``_elaboration`` reads it)
            if found is False:
                found = TRAIL_CODE_RE.search(raw[self.starts[k] : end]) or True
            elif found == 3:
                found = self._elaboration(k, end, indent)
            if found is None:
                return k, True
            last_of[j] = k
            self.kind[k] = PART
            if found is not True:  # a trailing code: the rule, unless the head line has one
                if trail is None:
                    trail = TRAIL_CODE_RE.search(raw, start, eol) is not None
                if not trail:
                    key_by[j] = self.diags.key_id(next(g for g in found.groups() if g).decode("utf-8", "replace"))
            k += 1
        return k, upto < stop and (self.classes[upto] or raw[self.starts[upto]] in _BLANKS)

    def _indented_tails(self, cols: bytes, c) -> None:
        """What follows each location in the lines ``_indented`` reads (``cols``, ``c``: ``diag_indented``'s columns)
        worked out (``_indented_tail``) when not known yet (``operators.kernel.diag_indented_unknown``), before they
        are read, up to the first that is no diagnostic: ``diag_indented_known`` then reads them through, not
        stopping at each text it does not know (a rule's and a severity's numbers only name their texts: made in
        another order, they name the same ones)."""
        raw, made = self.raw, self.indented
        for j in memoryview(diag_indented_unknown(raw, cols, made)).cast("i"):
            rest = raw[c[5 * j + 2] : c[5 * j + 3]]
            if rest not in made and (len(made) >= TAILS_MAX or self._indented_tail(rest) is None):
                return

    def _indented_tail(self, rest: bytes):
        """(rule, severity, message as ``_Diags`` stores it, style) of what follows an indented location, or
        None when it is no diagnostic or a note; remembered (up to ``TAILS_MAX`` texts)."""
        diags, made = self.diags, self.indented
        tail = _tail(rest, False)
        got = None if tail is None or tail[0] == "note" else (
            diags.key_id(tail[1]), diags.key_id(tail[0]), diags._kept(tail[2]), GNU if tail[3] else PLAIN)
        if len(made) < TAILS_MAX:
            made[rest] = got
        return got

    def _add_indented(self, run: "_IndentedRun") -> None:
        """The columns of the diagnostics ``_indented`` read (``run``) added at once, then the rules the lines continuing
        their messages name."""
        diags, gots = self.diags, run.gots
        m = len(gots)
        if m:
            first = len(diags.head)
            diags.path.extend(run.paths)
            diags.head.extend(run.heads)
            diags.head_end.extend(run.lasts)
            diags.end.extend(run.lasts)
            diags.key.extend(map(itemgetter(0), gots))
            diags.severity.extend(map(itemgetter(1), gots))
            diags.style.extend(run.styles)
            if first + m < LAZY:  # a place: ``~(LAZY + j)``, cut from the head line when asked
                diags.loc.extend(range(~(LAZY + first), ~(LAZY + first + m), -1))
            else:
                diags.loc.extend(diags._kept(diags.texts_kept.place(j)) for j in range(first, first + m))
            diags.message.extend(map(itemgetter(2), gots))
            for j, key in run.rekeys:
                diags.key[first + j] = key

    def _elaboration(self, k: int, end: int, indent: int):
        """Whether line ``k`` (class 0, indented, no ``LOC_RE`` line; its text ends at ``end``), read as ``_line``
        then ``_inside`` read it, continues the message of the diagnostic just read by ``_indented`` (the head
        line indented by ``indent``): indented deeper, none of the forms ``_head`` tries before
        ``_loc_diag``, no progress or summary line. None when it does not; else its ``TRAIL_CODE_RE`` match,
        or True when it has none."""
        raw, start = self.raw, self.starts[k]
        at = INDENT_RE.match(raw, start).end()
        if at - start <= indent or at >= end or raw[at] in _ODD_FIRST or raw.find(b"): ", start, end) >= 0:
            return None
        t = raw[start:end]
        if raw[at] in _PROGRESS_FIRST and (PROGRESS_RE.match(t) or SUMMARY_RE.match(t)):
            return None
        if k + 1 < len(self.starts) and (raw.find(b"-[", end, self.ends[k + 1]) >= 0 or raw.find(b"\xe2\x94\x80[", end, self.ends[k + 1]) >= 0):
            return None
        return TRAIL_CODE_RE.search(t) or True

    def _by_class(self, i: int, n: int, runs: bytes, next_head: int) -> int | None:
        """Line ``i`` of a class ``_classes`` found (``classes[i]`` not 0) read with the lines its class lets
        go along (up to ``next_head``, the next location line found at once): the last line read, or
        None when it is to be read as any line (``_line``)."""
        cls = self.classes[i]
        if cls == RUST_LINE:
            upto = self._rust_run(i, next_head)
            if upto >= i:
                return upto
            read = self._rust_head(i, n)
            if not read:
                return None
            if read == NOTE_READ:
                return i + 1
            if i + 2 < n and (runs[i + 2] or self.classes[i + 2] == NOTE_LINE):  # its --> line read with it, then its details
                return self._rust_details(i + 2, next_head)
            return i + 1
        if cls == NOTE_LINE:
            return i if self._note_line(i) else None
        e = runs.find(0, i)
        e = min(n if e < 0 else e, next_head)
        return e - 1 if self._run(i, e) else None

    def _rust_run(self, i: int, stop: int) -> int:
        """rustc's diagnostics from line ``i`` on (before ``stop``) read a run at a time (``operators.kernel.diag_rust_run``)
        as ``_rust_head`` then ``_rust_details`` read each: heads of class ``RUST_LINE`` with their ``-->`` lines, not
        notes, whose rule was worked out before (``rust_keys``), and their details; the columns added at once (the
        last left open, its ``Diag`` to be made). The last line read, ``i - 1`` when line ``i`` is none."""
        diags = self.diags
        k, heads, lasts, keys, severities, paths, messages, locs, rekeys, detailed = diag_rust_run(
            self.raw, self.starts, self.ends, self.classes, self.kind, i, stop, self.rust_keys, diags.key_ids, diags.keys,
            diags.path_ids, diags.paths)
        if k == i:
            return i - 1
        first = len(diags.head)
        for column, made in ((diags.head, heads), (diags.end, lasts), (diags.key, keys), (diags.severity, severities),
                             (diags.path, paths), (diags.message, messages)):
            column.frombytes(made)  # int32 items into arrays of 4-byte items (the input is under 2 GiB)
        diags.head_end.extend(map((1).__add__, memoryview(heads).cast("I")))  # the --> line
        kept = len(diags.texts_kept)
        diags.texts_kept.extend(locs)
        diags.loc.extend(range(~kept, ~(kept + len(locs)), -1))
        diags.style.extend(bytes([RUST]) * len(locs))
        rekeys = memoryview(rekeys).cast("i")
        for j, key in zip(rekeys[0::2], rekeys[1::2]):
            diags.key[first + j] = key
        self.open_j = len(diags.head) - 1
        self.open, self.pending, self.detail_started = None, True, bool(detailed)
        return k - 1

    def _rust_details(self, k: int, stop: int) -> int:
        """The lines from ``k`` on (before ``stop``) after the head and ``-->`` line of the rustc diagnostic just
        read, read as ``_run`` and ``_note_line`` read them (``operators.kernel.diag_rust_details``: lines of
        ``_classes`` 1 to 3 and ``NOTE_LINE``, a run at a time): its details, the lint a ``= `` line names its rule
        unless its head has a code; the last line read."""
        raw, diags, j = self.raw, self.diags, self.open_j
        e, lints = diag_rust_details(raw, self.starts, self.ends, self.classes, self.kind, k, stop)
        if lints:
            head = diags.head[j]
            end = self.ends[head]
            if b"[" not in raw[self.starts[head] : end - 1 if raw[end - 1] == 10 else end].split(b":")[0]:
                lints = memoryview(lints).cast("q")
                for at, to in zip(lints[0::2], lints[1::2]):
                    diags.key[j] = diags.key_id(raw[at:to].decode("utf-8", "replace"))
        diags.end[j] = e - 1
        self.detail_started = True
        return e - 1

    def _line(self, i: int, n: int, current_file: bytes) -> bytes:
        """Read line ``i`` by the parser's chain of forms: a diagnostic's head, its ``-->`` line, a
        progress, summary or file line, a line of the open diagnostic, or another line. Returns the
        file the lines after it belong to (stylish, grouped)."""
        if self.pending:
            self._materialize()
        t = self.text[i]
        diag = self._head(i, t, current_file, n)
        if diag is not None:
            self._start(i, diag)
            return current_file
        if self.open is not None and self.kind[i] == PART:  # rustc's --> line
            self.open.head_end = self.open.end = i
            self._sync()
            return current_file
        self._lint_name(t)
        indented = t[:1].isspace()  # then neither a file line nor a path alone
        if indented and PROGRESS_RE.match(t):
            self.kind[i], self.open = PROGRESS, None
        elif SUMMARY_RE.match(t):
            self.kind[i], self.open = SUMMARY, None
        elif not indented and (FILE_RE.match(t) or self._file_line(i, t, n)):
            self.kind[i], self.open = FILE, None
            current_file = t.strip().removesuffix(b":") if GROUPED_HEAD_RE.match(t) else t.strip()
        elif self.open is None or not self._inside(i, t):
            self.open = None
            self.kind[i] = BLANK if not t.strip() else OTHER
        return current_file

    def hint_lines(self) -> tuple[list, list]:
        """The detail lines ``_Reducer._hint`` may keep (``HINT_HEAD_RE`` or ``ARROW_RE``), in order: their
        indexes and their texts stripped."""
        made = self.__dict__.get("_hints")
        if made is None:
            kind, text, starts, raw = self.kind, self.text, self.starts, self.raw
            lines, keys = [], []
            made_of: dict[bytes, bytes | None] = {}  # a line -> its key, None when it is no hint (most repeat)
            if self.classes:  # a detail line of class 0 or 3 (``_classes``: the others are neither); its bytes its text
                n = len(kind)
                both = (int.from_bytes(kind.translate(_IS_DETAIL), "little")
                        & int.from_bytes(self.classes.translate(_MAY_HINT), "little")).to_bytes(n, "little")
                ends = self.ends
                found = ((i, raw[starts[i] : ends[i]]) for i in _ones(both))  # with its newline: read the same
            else:
                found = ((i, text[i]) for i in (bisect_right(starts, m.start()) - 1 for m in HINT_PRE_RE.finditer(raw))
                         if kind[i] == DETAIL)
            for i, t in found:
                key = made_of.get(t, False)
                if key is False:
                    key = made_of[t] = t.strip() if HINT_HEAD_RE.match(t) or ARROW_RE.match(t) else None
                if key is not None:
                    lines.append(i)
                    keys.append(key)
            made = self._hints = (lines, keys)
        return made

    def _classes(self) -> bytes:
        """A byte a line (``operators.kernel.diag_lines``, with ``PAD_BIT``): the blank lines, the snippet, caret and fix
        lines, the ``help:``/``note:`` lines and the lines that may be rustc's heads, which ``_run`` and
        ``_rust_head`` read without the chain of other forms; empty when a line's text is not its bytes
        (as ``_heads``)."""
        raw = self.raw
        if b"\x1b" in raw or b"\r" in raw or len(raw) >= SMALL:
            return b""
        return diag_lines(raw)

    def _run(self, i: int, e: int) -> bool:
        """Lines ``i`` to ``e`` (``_classes`` 1 to 3: none is a diagnostic, a file, progress or summary
        line, nor names a lint), read at once as the loop reads each: details of the open diagnostic
        when its style has no wrapped message (rustc, ruff's full format, ``path:line:col: CODE``), blank
        and other lines when none is open; False, having read nothing, under any other style."""
        d = self.open
        style = d.style if d is not None else STYLES[self.diags.style[self.open_j]] if self.pending else None
        if style is None:
            self.kind[i:e] = self.classes[i:e].translate(_FREE_KINDS)
            return True
        if style not in _DETAILS_ONLY and (style != "gnu" or not self._gnu_details(i, e)):
            return False
        self.kind[i:e] = DETAIL_BYTE * (e - i)
        if d is not None:
            d.end = e - 1
            self._sync()
        else:
            self.diags.end[self.open_j] = e - 1
        self.detail_started = True
        return True

    def _gnu_details(self, i: int, e: int) -> bool:
        """Whether lines ``i`` to ``e`` (``_classes`` 1 to 3) are each a detail of the open ``gnu``
        diagnostic (gcc's source and caret lines) as ``_inside`` reads them: not under a ``.java`` path
        (javac's parts), the first blank or indented unless details have started (else it may continue
        the message: mypy ``--pretty``), the last not followed by a bare caret line (javac's source line)."""
        diags, raw, starts = self.diags, self.raw, self.starts
        path = self.open.path if self.open is not None else diags.paths[diags.path[self.open_j]]
        if path.endswith(b".java") or not (self.detail_started or self.classes[i] == 1 or raw[starts[i]] in _BLANKS):
            return False
        return (e >= len(starts) or self.classes[e - 1] == 1 or raw.find(b"^", starts[e], self.ends[e]) < 0  # (none: none once escapes go)
                or CARET_RE.match(self.text[e]) is None)

    def _note_line(self, i: int) -> bool:
        """Line ``i`` (``_classes`` 5: an indent then ``= ``, rustc's ``= help:``/``= note:``: no other form
        takes it) read as the loop reads it: a detail of the open diagnostic whose style has no wrapped
        message (rustc's names its lint: ``_lint_name``), another line when none is open; False, having
        read nothing, under any other style."""
        d, diags = self.open, self.diags
        style = d.style if d is not None else STYLES[diags.style[self.open_j]] if self.pending else None
        if style is None:
            self.kind[i] = OTHER
            return True
        if style not in _DETAILS_ONLY:
            return False
        raw, starts, ends = self.raw, self.starts, self.ends
        if style == "rust":
            end = ends[i]
            m = LINT_RE.search(raw[starts[i] : end - 1 if raw[end - 1] == 10 else end])
            if m:
                head = diags.head[self.open_j]
                end = ends[head]
                if b"[" not in raw[starts[head] : end - 1 if raw[end - 1] == 10 else end].split(b":")[0]:
                    key = next(g for g in m.groups() if g).decode("utf-8", "replace")
                    if d is not None:
                        d.key = key
                    diags.key[self.open_j] = diags.key_id(key)
        self.kind[i] = DETAIL
        if d is not None:
            d.end = i
            self._sync()
        else:
            diags.end[self.open_j] = i
        self.detail_started = True
        return True

    def _rust_head(self, i: int, n: int) -> int:
        """Line ``i`` (``_classes`` 4, or 0 and ``note: ``: not indented, not tsc's head; the input has no escapes or
        carriage returns, so a line's text is its bytes) read as ``_head`` then ``_start`` read it when it is
        rustc's head (``RUST_HEAD_RE`` and a ``-->`` line after it), with its ``-->`` line: added to
        the columns, its ``Diag`` left to be made (``pending``, as ``_plain_head``; the message where it
        starts in the head line); False, having changed nothing but made the open diagnostic's
        ``Diag``, when it is not one; ``NOTE_READ`` when it is a note at the open one's place, read with its
        ``-->`` line as the loop reads them (``_head`` then ``_start``: a detail; the ``-->`` line a part)."""
        start = self.starts[i]
        m = RUST_BLOCK_RE.match(self.raw, start)
        if m is None:
            return False
        diags = self.diags
        code = m.group(2) or m.group(4)
        severity = (m.group(1) or b"").decode() or "error"
        at = m.start(3) if m.start(3) >= 0 else m.start(5)
        loc = m.group()[m.start(6) - start : (m.end(8) if m.start(8) >= 0 else m.end(7)) - start]
        if severity == "note" and (self.open is not None or self.pending):
            if self.pending:
                self._materialize()
            if loc == self.open.loc:  # a detail of the open one
                d = self.open
                self.kind[i], self.kind[i + 1] = DETAIL, PART
                d.head_end = d.end = i + 1
                self._sync()
                self.detail_started = True
                return NOTE_READ
        name = code or (severity, m.group(3))  # a rule: its code, else its message masked
        key = self.rust_keys.get(name)
        if key is None:
            key = diags.key_id(_key(code, severity, m.group(3) or m.group(5)))
            if len(self.rust_keys) < TAILS_MAX:
                self.rust_keys[name] = key
        kind = self.kind
        kind[i] = HEAD
        kind[i + 1] = PART
        diags.path.append(diags.path_id(m.group(6)))
        diags.head.append(i)
        diags.head_end.append(i + 1)
        diags.end.append(i + 1)
        diags.key.append(key)
        diags.severity.append(diags.key_id(severity))
        diags.style.append(RUST)
        diags.loc.append(diags._kept(loc))
        at -= start  # where the message starts in the head line
        diags.message.append(at if at < SMALL else diags._kept(at))
        self.open_j = len(diags.head) - 1
        self.open, self.pending, self.detail_started = None, True, False
        return True

    def _heads(self):
        """The ``path:line:col: …`` lines that start with their path (``LOC_RE`` with no indent), found
        by one pass over the whole input (``operators.kernel.diag_heads``: their line indexes, where the
        text after the location starts, the location's length, flags, the ids of that text and of the
        path); None when a line's text is not its bytes (a colour escape, a carriage return) or the
        input is too big for 4-byte columns: then each line is read on its own."""
        raw = self.raw
        if b"\x1b" in raw or b"\r" in raw or len(raw) >= SMALL:
            return None
        return diag_heads(raw)

    def _bulk_columns(self, found) -> bytes:
        """What ``_plain_head`` makes of the location lines ``found`` (``_heads``), worked out once for
        each distinct text after a location (rule, severity, where the message starts, whether a
        severity leads it) and kept for ``_bulk``; a byte a line: 1 when ``_plain_head`` adds it as a
        diagnostic whatever came before (not a note, no other form can take it, a rule or a severity)."""
        flags, rest_ids, rests, paths = found[3], found[4], found[5], found[7]
        diags = self.diags
        keys, sevs, skips, oks, gnus = array("I"), array("I"), array("i"), bytearray(), bytearray()
        for rest in rests:
            tail = _tail(rest, False)
            if tail is None:
                keys.append(0), sevs.append(0), skips.append(0), oks.append(0), gnus.append(0)
                continue
            severity, key, message, gnu = tail
            keys.append(diags.key_id(key))
            sevs.append(diags.key_id(severity))
            skips.append(len(rest) - len(message))
            oks.append(1 if severity != "note" else 2)
            gnus.append(gnu)
        path_of = array("I", map(diags.path_id, paths))
        plain = flags.translate(_NOT_SUSPECT)
        ok = bytes(map(and_, map(oks.translate(_IS_ONE).__getitem__, rest_ids), plain))
        notes = bytes(map(and_, map(oks.translate(_IS_TWO).__getitem__, rest_ids), plain))  # (a note: 2)
        self.bulk = (found[0], found[2], diag_columns(rest_ids, found[6], found[1], flags, keys, sevs, skips, gnus, path_of),
                     self._notes_after(found[0], found[2], ok, notes))
        return ok

    def _notes_after(self, lines, locs, ok: bytes, notes: bytes) -> bytes:
        """``ok`` (``_bulk_columns``), and 1 too for each note (``notes``: a location line ``_plain_head`` takes, its
        severity ``note``) whose place differs from that of the location line before it: read by ``_bulk`` right
        after that line's diagnostic (or its details), the one open then, such a note is a diagnostic of its own
        (``_start``), as those ``ok`` names are."""
        if 1 not in notes:
            return ok
        raw, starts, inner = self.raw, self.starts, bytearray(ok)
        for e in compress(range(len(notes)), notes):
            if e:
                at, before = starts[lines[e]], starts[lines[e - 1]]
                inner[e] = raw[at : at + locs[e]] != raw[before : before + locs[e - 1]]
        return bytes(inner)

    def _bulk(self, h: int, ok: bytes) -> int:
        """The location lines from the ``h``-th on that follow each other and that ``ok`` says are plain
        diagnostics, added as ``_plain_head`` adds each (the last left open); then, while the lines after
        the last are read by ``_run`` as its details up to the next such line (gcc's source and caret
        lines), those details and the location lines from that one on, a run at a time (``operators.kernel.diag_bulk``), a
        note among them too when its place is not that of the line before it (``_notes_after``). The index past the
        location lines read."""
        lines, locs, (key, severity, path, style, message), inner = self.bulk
        diags, first_h = self.diags, h
        e, grown = diag_bulk(lines, inner, self.classes, self.raw, self.starts, self.ends, style, path, diags.paths, self.kind, h)
        del inner
        if e == len(lines):  # the last run: each column let go once it is copied (a big linter run's peak)
            self.bulk = None
        grown = memoryview(grown).cast("q")
        heads = memoryview(lines[first_h:e]).cast("B")
        first = len(diags.head)
        diags.head.frombytes(heads)  # the same type (``_typecode``: the input is under 2 GiB)
        diags.head_end.frombytes(heads)
        diags.end.frombytes(heads)
        made = [(diags.key, key), (diags.severity, severity), (diags.path, path), (diags.loc, locs), (diags.message, message)]
        del key, severity, path, locs, message
        while made:
            column, values = made.pop(0)
            column.frombytes(memoryview(values[first_h:e]).cast("B"))
            del values
        diags.style.extend(style[first_h:e])
        end = diags.end
        for k, last in zip(grown[0::2], grown[1::2]):
            end[first + k - first_h] = last
        self.open_j = len(diags) - 1
        self.open, self.pending, self.detail_started = None, True, False
        return e

    def _plain_head(self, i: int, m) -> bool:
        """Line ``i`` read as ``_head`` then ``_start`` read it, when it is a location's diagnostic
        (``m``: its ``LOC_LINES_RE`` match, the line's whole text) that no earlier form of ``_head``
        takes; False, having changed nothing, for any other line (then it is read as usual)."""
        t = m.group()
        if b"): " in t or b".go:" in t or (t[:1] in RUST_FIRST and RUST_HEAD_RE.match(t)):
            return False
        rest, plain, diags = m.group(5), self.plain, self.diags
        got = plain.get(rest, False)
        if got is False:  # rule and severity as numbers, the message's length, whether a severity leads it
            tail = _tail(rest, False)
            got = None if tail is None else (diags.key_id(tail[1]), diags.key_id(tail[0]), len(tail[2]), tail[3])
            if len(plain) < TAILS_MAX:
                plain[rest] = got
        if got is None:
            return False
        key, severity, message, gnu = got
        at = m.start(5) - m.start()
        style = PYRIGHT if b" - " in t[at - 3 : at] else GNU if gnu else PLAIN
        loc, message = len(t[:at].rstrip(b": -")), len(t) - message
        if (self.open is not None or self.pending) and diags.keys[severity] == "note":
            if self.pending:
                self._materialize()
            self._start(i, Diag(i, loc, diags.keys[key], "note", m.group(2), message, STYLES[style], self.text))
            return True
        self.kind[i] = HEAD
        self.open_j = diags.add_ids(i, loc, key, severity, m.group(2), message, style)
        self.open, self.pending, self.detail_started = None, True, False
        return True

    def _materialize(self) -> None:
        """The open diagnostic's ``Diag``, made from the columns (``_plain_head`` left it to be made)."""
        self.open, self.pending = self.diags[self.open_j], False

    def _sync(self) -> None:
        """The open diagnostic's lines, grown by the line just read, written to the columns."""
        self.diags.sync(self.open_j, self.open)

    def _rekey(self, key: str) -> None:
        """The open diagnostic's rule, named by a line after its head."""
        self.open.key = key
        self.diags.key[self.open_j] = self.diags.key_id(key)

    def _start(self, i: int, diag: Diag) -> None:
        """A diagnostic line: a new diagnostic, or a note at the open one's own place (mypy's hints)."""
        open_diag = self.open
        if open_diag is not None and diag.severity == "note" and diag.loc == open_diag.loc:
            self.kind[i] = DETAIL  # help text of the open diagnostic
            open_diag.end = i
            self._sync()
            self.detail_started = True
            return
        self.kind[i] = HEAD
        self.open_j = self.diags.add(i, diag._loc, diag.key, diag.severity, diag.path, diag._message, diag.style)
        self.open, self.detail_started = diag, False

    def _lint_name(self, t: bytes) -> None:
        """rustc/clippy without an [E0308] code: the lint's name from its note or help line is the rule."""
        d = self.open
        if d is not None and d.style == "rust" and b"= " in t and (m := LINT_RE.search(t)) and b"[" not in self.text[d.head].split(b":")[0]:
            self._rekey(next(g for g in m.groups() if g).decode("utf-8", "replace"))

    def _inside(self, i: int, t: bytes) -> bool:
        """Whether line ``i`` belongs to the open diagnostic (its wrapped message or a detail); sets its kind."""
        d = self.open
        if d.style == "gnu" and self._javac_part(i, t, d.path.endswith(b".java")):
            self.kind[i] = PART  # javac: the source line and the symbol/location lines stay with the message
            d.head_end = d.end = i
            if SYMBOL_RE.match(t):  # "cannot find symbol": the rule is what is missing
                self._rekey(f"{d.key} ({b' '.join(t.split()[1:]).decode('utf-8', 'replace')})")
            self._sync()
            return True
        if self._continues(d, t, self.detail_started):
            self.kind[i] = PART
            d.head_end = d.end = i
            if (m := TRAIL_CODE_RE.search(t)) and not TRAIL_CODE_RE.search(self.text[d.head]):
                self._rekey(next(g for g in m.groups() if g).decode("utf-8", "replace"))  # a wrapped [code]
            self._sync()
            return True
        if not t.strip() or DETAIL_RE.match(t):
            self.kind[i] = DETAIL
            d.end = i
            self._sync()
            self.detail_started = True
            return True
        return False

    def _javac_part(self, i: int, t: bytes, java: bool = False) -> bool:
        """javac's lines after ``path:line: error: message``: the source line (followed by its caret
        line: the caret is a detail) and the ``symbol:``/``location:``/``where`` lines; under a
        ``.java`` path, any line javac indents by two (``missing type arguments for generic class
        Class<T>``: the rest of the message)."""
        if JAVAC_INFO_RE.match(t) or (java and JAVAC_MORE_RE.match(t) is not None):
            return True
        return i + 1 < len(self.text) and bool(t.strip()) and CARET_RE.match(self.text[i + 1]) is not None

    def _head(self, i: int, t: bytes, current_file: bytes, n: int) -> Diag | None:
        if current_file and (m := GROUPED_RE.match(t)):
            loc = current_file + b":" + m.group(1) + b":" + m.group(2)
            severity = "warning" if m.group(3)[:1] == b"W" else "error"
            return Diag(i, loc, m.group(3).decode(), severity, current_file, m.group(4), "stylish")
        if current_file and (m := STYLISH_RE.match(t)):
            loc = current_file + b":" + m.group(1) + b":" + m.group(2)
            return Diag(i, loc, _key(m.group(5), m.group(3).decode(), m.group(4)), m.group(3).decode(), current_file,
                        m.group(4), "stylish")
        if b"): " in t and (m := TSC_RE.match(t)):
            return Diag(i, m.start(4) - 2, m.group(5).decode(), m.group(4).decode(), m.group(1), m.end(), "tsc", self.text)
        if t[:1] in RUST_FIRST and (m := RUST_HEAD_RE.match(t)) and i + 1 < n and (a := ARROW_RE.match(self.text[i + 1])):
            self.kind[i + 1] = PART
            code = m.group(2) or m.group(4)
            severity = (m.group(1) or b"").decode() or "error"
            message = m.group(3) or m.group(5)
            loc = self.text[i + 1].strip()[4:]
            return Diag(i, loc, _key(code, severity, message), severity, a.group(1), message, "rust")
        if i + 1 < n and (b"-[" in (nxt := self.text[i + 1]) or b"\xe2\x94\x80[" in nxt):
            if (m := MIETTE_HEAD_RE.match(t)) and (a := MIETTE_LOC_RE.match(nxt)):  # oxlint, miette's report
                self.kind[i + 1] = PART
                severity = "warning" if m.group(1) in (b"!", b"\xe2\x9a\xa0") else "error"
                loc = b"%s:%s:%s" % a.groups()
                return Diag(i, loc, _key(m.group(2), severity, m.group(3)), severity, a.group(1), m.group(3), "rust")
        if t.startswith(b"error TS") and (m := re.match(rb"error (TS\d+): ", t)):
            return Diag(i, b"", m.group(1).decode(), "error", b"", t[m.end():], "tsc")
        return _loc_diag(i, t, self.tails, self.text)

    def _file_line(self, i: int, t: bytes, n: int) -> bool:
        """A path alone on its line, followed by an eslint stylish entry or an indented pyright diagnostic."""
        if i + 1 >= n:
            return False
        if GROUPED_HEAD_RE.match(t):
            return bool(GROUPED_RE.match(self.text[i + 1]))
        if not PATHLIKE_RE.match(t):
            return False
        nxt = self.text[i + 1]
        return bool(STYLISH_RE.match(nxt)) or (nxt[:1] == b" " and nxt.strip().startswith(t.strip() + b":"))

    def _continues(self, diag: Diag, t: bytes, detail_started: bool) -> bool:
        """Whether ``t`` continues the message of ``diag`` (shown with it) rather than a detail."""
        if detail_started or not t.strip():
            return False
        if diag.style in ("tsc", "pyright"):
            return _indent(t) > _indent(self.text[diag.head])
        if diag.style == "gnu":  # mypy --pretty wraps the message and the [code] at the terminal width
            return t[:1] not in b" \t|"
        return False


class _IndentedRun:
    """What ``_Parser._indented`` has read of a run of lines: each diagnostic's value in ``_Parser.indented`` (rule,
    severity, message as ``_Diags`` stores it, style), head line, last line, path number and style; each line's
    kind; the rules the lines continuing a message name (which diagnostic, rule); the open head's line, whether
    `` - `` ends its place (1: lines may continue its message) and whether it has a trailing code (None: not
    worked out yet)."""

    __slots__ = ("gots", "heads", "lasts", "paths", "styles", "kinds", "rekeys", "head", "dash", "trail")

    def __init__(self):
        self.gots: list = []
        self.heads, self.lasts, self.paths = array("I"), array("I"), array("I")
        self.styles, self.kinds, self.rekeys = bytearray(), bytearray(), []
        self.head, self.dash, self.trail = -1, 0, None

    def add(self, k: int, got: tuple, path: int, style: int, dash: int) -> None:
        """A head read on line ``k``."""
        self.gots.append(got)
        self.heads.append(k)
        self.lasts.append(k)
        self.paths.append(path)
        self.styles.append(style)
        self.kinds.append(HEAD)
        self.head, self.dash, self.trail = k, int(dash != 0), None

    def extend(self, gots: list, heads: bytes, lasts: bytes, paths: bytes, styles: bytes, kinds: bytes, rekeys: bytes,
               first_last: int, dash: int) -> None:
        """The lines ``operators.kernel.diag_indented_known`` read added."""
        if first_last >= 0:
            self.lasts[-1] = first_last
        if rekeys:
            rekeys, known = memoryview(rekeys).cast("i"), len(self.gots)
            self.rekeys.extend(zip(map(known.__add__, rekeys[0::2]), rekeys[1::2]))
        if gots:
            self.gots.extend(gots)
            self.heads.frombytes(heads)
            self.lasts.frombytes(lasts)
            self.paths.frombytes(paths)
            self.styles += styles
            self.head, self.trail = self.heads[-1], None
        self.kinds += kinds
        self.dash = dash


_READS = (None, True, False, 3)  # ``diag_elaborations``' bytes: no part, a part, a part maybe with a trailing code, to be read
INDENT_RE = lazy(P.INDENT)  # pyright indents its elaboration with no-break spaces
# how the text of an indented line (class 0: no escape, carriage return, vertical tab or form feed; not a digit
# after its indent) starts after its spaces and tabs when ``PROGRESS_RE`` or ``SUMMARY_RE`` can match it (``\s+Finished``,
# ``\s+Compiling`` …; a no-break space stops their ``\s+``): the line's first byte after ``INDENT_RE`` is no other
_PROGRESS_FIRST = frozenset(b"ABCDFLU")


PAD = b" " * PAD_MIN


def _indent(text: bytes) -> int:
    return INDENT_RE.match(text).end()


def _fold_plan(p: "_Parser", s: Settings) -> set[str]:
    """The rules folded so that at most ``max_shown`` diagnostics stay verbatim: the most frequent first."""
    counts = _rule_counts(p.common(s).by_key)
    shown = len(p.diags)
    folded: set[str] = set()
    for key, count in counts.most_common():
        if shown <= s.max_shown:
            break
        if count > s.examples:
            folded.add(key)
            shown -= count - s.examples
    return folded


def _rule_counts(by_key: dict) -> Counter:
    """How many diagnostics each rule has, the rules in order of first use (read off ``_Common.by_key``: no
    count of the column again)."""
    return Counter(dict(zip(by_key, map(len, by_key.values()))))


def _column_counts(column: array, n: int):
    """Each number under ``n`` in ``column`` with how many times it comes, in order of first use (as ``Counter(column)``
    has them; counted by ``diag_ranks``)."""
    _, _, firsts, counts = diag_ranks(column, n)
    return zip(firsts, counts)


def _summary(diags: _Diags, s: Settings, by_key: dict) -> bytes:
    keys, paths = diags.keys, diags.paths
    sev = Counter({keys[k]: n for k, n in _column_counts(diags.severity, len(keys)) if keys[k]})
    rules = _rule_counts(by_key)
    files: Counter = Counter()
    for path, n in _column_counts(diags.path, len(paths)):
        if paths[path]:
            files[paths[path].decode("utf-8", "replace")] += n

    def top(counter: Counter) -> str:
        items = [f"{k} ×{v}" for k, v in counter.most_common(s.top)]
        if len(counter) > s.top:
            items.append(f"+{len(counter) - s.top} more")
        return ", ".join(items)

    sev_text = " (" + ", ".join(f"{k} {v}" for k, v in sev.most_common()) + ")" if sev else ""
    text = f"[{len(diags)} diagnostics{sev_text} in {_files_n(len(files))}; by rule: {top(rules)}"
    if len(files) > 1:
        common = _common_dir(list(files)) if all(f.startswith("/") for f in files) else ""
        if len(common) > 1:  # absolute paths (pyright, eslint): their common directory once
            files = Counter({f[len(common) + 1 :]: n for f, n in files.items()})
            text += f"; by file (in {common}/): {top(files)}"
        else:
            text += f"; by file: {top(files)}"
    return (text + "]\n").encode()


def _place(p: "_Parser", j: int) -> bytes:
    """How the ``j``-th diagnostic is listed when folded: its location as printed; tsc's as tsc prints
    the start of its line (``path(12,5): error TS7006``, the form editors and agents look for)."""
    d = p.diags[j]
    return b"%s: %s %s" % (d.loc, d.severity.encode(), d.key.encode()) if d.style == "tsc" and d.loc else d.loc


def _starts_of(p: "_Parser", indexes) -> tuple[list, list] | None:
    """Where the places of the diagnostics ``indexes`` start and end in the input when each is the
    start of its head line as printed (``_Diags.loc`` an offset in it, no escapes in the input: clean,
    or read by ``_classes``; neither tsc nor stylish: ``_place`` is the location as printed, listed
    whole); None otherwise."""
    diags = p.diags
    locs = list(map(diags.loc.__getitem__, indexes))
    if not (p.clean or p.classes) or not locs or min(locs) < 0 or bytes(map(diags.style.__getitem__, indexes)).translate(None, _LISTED_AS_IS):
        return None
    starts = list(map(p.starts.__getitem__, map(diags.head.__getitem__, indexes)))
    return starts, list(map(add, starts, locs))


def _common_dir(paths: list[str]) -> str:
    """``os.path.commonpath`` of ``paths`` (absolute, distinct, at least two), which compares only the least and the
    greatest of them split at each ``/``: those two are found as strings whose ``/`` sorts before any other
    character (split or not, they sort alike when no part is empty or ``.``, nor holds a NUL), so no list is
    made for each path; else (such parts, a path holding a line break) it is asked of them all."""
    joined = "\n".join(paths) + "\n"
    if (os.path is not posixpath or joined.count("\n") != len(paths) or "//" in joined or "/\n" in joined
            or "/./" in joined or "/.\n" in joined or "\0" in joined):
        return os.path.commonpath(paths)
    keys = joined.replace("/", "\0")[:-1].split("\n")
    return os.path.commonpath([min(keys).replace("\0", "/"), max(keys).replace("\0", "/")])


def _places_size(p: "_Parser", indexes) -> int:
    """``sum(len(_place(p, j)) + 1 for j in indexes)`` read off the columns: a place that starts its
    head line is as long as the offset where it ends (``_Diags.loc``), one kept aside (rustc's, from
    its --> line; a stylish or indented one, made when asked) as its text, tsc's as its location, its
    severity and its rule. Each diagnostic's worked out once (the room is reckoned many times over
    the same rules: ``_gain``, ``_cap``)."""
    if not len(indexes):
        return 0
    diags = p.diags
    sizes = p.__dict__.get("_place_sizes")
    if sizes is None:
        sizes = p._place_sizes = array("i", [-1]) * len(diags)
    get = sizes.__getitem__
    if min(map(get, indexes)) < 0:
        locs, kept, styles, keys = diags.loc, diags.texts_kept, diags.style, diags.keys
        todo = list(compress(indexes, map((0).__gt__, map(get, indexes))))
        made = [j for j in todo if locs[j] <= ~LAZY]  # places made when asked (``_Kept``): their sizes at once
        made = dict(zip(made, kept.place_sizes([~locs[j] - LAZY for j in made]))) if made else {}
        for j in todo:
            loc = locs[j]
            size = loc if loc >= 0 else made[j] if loc <= ~LAZY else len(kept[~loc])
            if size and styles[j] == TSC:  # ``path(1,2): error TS2322``
                size += 3 + len(keys[diags.severity[j]].encode()) + len(keys[diags.key[j]].encode())
            sizes[j] = size
    return sum(map(get, indexes)) + len(indexes)


def _places_of(p: "_Parser", indexes) -> list:
    """Each diagnostic's place as ``_place`` makes it but tsc's (as printed: kept aside, made when asked, or cut from its
    head line), the places made when asked made at once (``_Kept.items``)."""
    diags = p.diags
    texts, heads = p.text, diags.head
    locs = list(map(diags.loc.__getitem__, indexes))
    made = iter(diags.texts_kept.items([~loc for loc in locs if loc < 0]))
    return [next(made) if loc < 0 else texts[heads[j]][:loc] for j, loc in zip(indexes, locs)]


def _locations(p: "_Parser", indexes) -> bytes:
    """The places of folded diagnostics (``_place``; bytes: a path need not be UTF-8), separated by a
    space, tsc's one a line; stylish ones as ``path:line:col`` then ``line:col`` while the file
    stays the same; a place seen several times once, with ``×N``."""
    fast = _starts_of(p, indexes)
    diags = p.diags
    if fast is not None or (indexes and not bytes(map(diags.style.__getitem__, indexes)).translate(None, _LISTED_AS_IS)):
        if fast is not None:  # each place the start of its head line, as printed
            places = list(map(p.raw.__getitem__, map(slice, *fast)))
        else:  # each place as ``_place`` makes it: as printed, kept aside or cut from its head line
            places = _places_of(p, indexes)
        repeats = Counter(places)
        if len(repeats) < len(places):
            places = [loc + b" \xc3\x97%d" % repeats[loc] if repeats[loc] > 1 else loc for loc in repeats]
        return b" ".join(places)
    parts: list[bytes] = []
    last_path = None
    keys = diags.keys
    styles = bytes(map(diags.style.__getitem__, indexes))
    locs = _places_of(p, indexes)
    repeats = Counter(locs)
    listed: set[bytes] = set()
    for j, loc, style in zip(indexes, locs, styles):  # each place as ``_place`` makes it, from the columns
        if loc in listed:
            continue
        listed.add(loc)
        path = diags.path[j]
        place = b"%s: %s %s" % (loc, keys[diags.severity[j]].encode(), keys[diags.key[j]].encode()) if style == TSC and loc else loc
        if style == STYLISH and path == last_path:
            place = place[len(diags.paths[path]) + 1 :]
        last_path = path
        parts.append(place + b" \xc3\x97%d" % repeats[loc] if repeats[loc] > 1 else place)
    return (b"\n" if styles[:1] == _TSC_BYTE else b" ").join(parts)


class _Reducer:
    by_lines = True  # with no colour escape in the input, a run of lines at a time (``_lines``); else ``_runs`` and ``_one``

    def __init__(self, raw: bytes, parser: _Parser, settings: Settings, fold: "_Fold", one_ref: bool = False):
        self.raw, self.p, self.s = raw, parser, settings
        self.one_ref = one_ref  # every folded rule's diagnostics to one ref (past ``max_shown``: ``reduce``)
        self.plan = Plan(raw)
        self.folded, self.examples, self.cap, self.more = fold.rules, fold.examples, fold.cap, fold.more
        self.groups: dict[str, str] = {}
        self.reasons: dict[str, str] = {}
        self.held: list | None = None  # omitted diagnostics not given to the plan yet (``_omit``)
        self.common = common = parser.common(settings)
        self.details, self.progress = common.details, common.progress
        self.detail_group = "details" if self.details >= MIN_DETAILS else ""  # a few blank lines stay
        self.hints: set[bytes] = set()  # help/note lines shown so far (``_hint``)
        self.kept: set[int] | None = None  # the hint lines kept, when worked out for the whole view (``_lines``)
        self.details_until = fold.details_until  # detail lines before this one shown (``_details_back``)
        self.pads = diag_pads  # ``_keep``

    def _keep(self, start: int, end: int) -> None:
        """Show ``raw[start:end]`` as a terminal would, colour escapes to group ``escapes``, and a run of
        ``PAD_MIN`` spaces or more inside the line (a column aligned to the longest message of the
        file: eslint pads hundreds of bytes a line) shortened to ``PAD_KEPT``, the rest to ``padding``."""
        plan = self.plan
        if self.p.padded:  # no escapes in the input: the runs of spaces found at once, their pieces added at once
            bounds = array("q", (start,))
            bounds.frombytes(self.pads(self.raw, start, end, PAD_MIN, PAD_KEPT))
            if len(bounds) == 1:
                plan.keep(start, end)
                return
            bounds.append(end)
            plan.keep(start, bounds[1])
            plan.omit(bounds[1], bounds[2], "padding", "alignment spaces")
            more = len(bounds) // 2 - 2  # runs past the first
            plan.extend(_KEEP_OMIT * more + _KEEP_ONE, bounds[2:-1], bounds[3:], [None, "padding"] * more + [None])
            return
        hidden = [] if self.p.clean else _hidden(self.raw, start, end)
        if not hidden:
            plan.keep(start, end)
            return
        for a, b, group, reason in hidden:
            plan.keep(plan.position, a)
            plan.omit(a, b, group, reason)
        plan.keep(plan.position, end)

    def _detail(self, i: int) -> None:
        p = self.p
        if self.detail_group and i >= self.details_until and not (self._hint(p.text[i]) if self.kept is None else i in self.kept):
            self.plan.omit(p.starts[i], p.ends[i], self.detail_group, "source snippets, carets, help and notes")
        else:
            self._keep(p.starts[i], p.ends[i])

    def _hint(self, text: bytes) -> bool:
        """Whether a detail line stays: the first line of a ``help:`` or ``note:`` (rustc's suggested
        fix, what it points to) and a note's own ``--> path:line:col``, the first time its text is seen."""
        if not (HINT_HEAD_RE.match(text) or ARROW_RE.match(text)):
            return False
        key = text.strip()
        if key in self.hints:
            return False
        self.hints.add(key)
        return True

    def _group(self, key: str) -> str:
        if key not in self.groups:
            self.groups[key] = "rule:" + key if len(self.groups) < 30 and not self.one_ref else "rules"
        return self.groups[key]

    def run(self) -> Plan:
        """The lines in order; the diagnostics' spans (in order of their heads, never overlapping) each
        as one, the lines between them one at a time. The diagnostics between two that need more than
        a span kept or omitted (``_codes``) go to the plan a run of the same code at a time (``_runs``)."""
        p, plan = self.p, self.plan
        summary = self.common.summary
        if self.folded or self.details >= 4 * len(summary):  # the summary line pays for itself
            plan.show(summary)
        diags = p.diags
        heads, last_lines, rank = diags.head, diags.end, self.common.rank
        codes, names = self._codes()
        if self.by_lines and (p.clean or p.padded):
            return self._lines(codes, names)
        gaps = p.gaps()
        n, i, j = len(diags), 0, 0
        while j < n:
            head = heads[j]
            if i < head:
                self._flush()
                for k in range(i, head):
                    self._other(k)
            if codes[j] == SPECIAL:
                self._one(j, head, rank[j])
                i = last_lines[j] + 1
                j += 1
                continue
            e = codes.find(SPECIAL_BYTE, j + 1)
            gap = gaps.find(1, j + 1, n if e < 0 else e)
            e = gap if gap >= 0 else n if e < 0 else e
            self._runs(j, e, codes, names)
            i = last_lines[e - 1] + 1
            j = e
        self._flush()
        for k in range(i, len(p.starts)):
            self._other(k)
        self._footer()
        return plan.finish()

    def _lines(self, codes: bytearray, names: list) -> Plan:
        """``run`` a run of lines at a time (no colour escape in the input): a code a line, as the
        diagnostics' codes and the lines' kinds make it (``_line_codes``), the runs of one code handed to
        the plan at once; the last example of a folded rule, followed by its line, on its own (``_one``),
        and a line kept that holds ``PAD_MIN`` spaces in a row (``_keep``)."""
        p, plan, diags = self.p, self.plan, self.p.diags
        lc, lasts = self._line_codes(codes)
        group_of = [None] * 256
        group_of[1 : len(names)] = names[1:]
        group_of[LINE_DETAILS], group_of[LINE_PROGRESS], group_of[LINE_TARGETS] = self.detail_group, "progress", "targets"
        group_of[LINE_PAD] = "padding"
        at = 0
        for j in [*lasts, -1]:
            head = diags.head[j] if j >= 0 else len(p.starts)
            if at < head:
                self._emit(lc, at, head, group_of)
            if j < 0:
                break
            self._one(j, head, self.common.rank[j])
            at = diags.end[j] + 1
        self._footer()
        return plan.finish()

    def _line_codes(self, codes: bytearray) -> tuple[bytearray, list]:
        """A code a line: 0 kept; a folded rule's group (its ``codes``: 1 to 31) for each line of a
        diagnostic listed by place; ``LINE_DETAILS``, ``LINE_PROGRESS``, ``LINE_TARGETS`` for a line
        ``_detail`` or ``_other`` omits; ``LINE_PADDED`` for one kept that ``_keep`` may shorten;
        ``SPECIAL`` for the lines of the last example of a folded rule. With the diagnostics that are
        such last examples, in order. The hint lines kept are worked out here, in order (``kept``)."""
        p, diags = self.p, self.p.diags
        table = bytearray(256)
        if self.detail_group:
            table[DETAIL] = LINE_DETAILS
        if self.progress >= PROGRESS_MIN:
            table[PROGRESS] = LINE_PROGRESS
        lc = p.kind.translate(table)
        if self.detail_group and self.details_until:  # the details of the first diagnostics shown (``_details_back``)
            until = self.details_until
            lc[:until] = lc[:until].replace(LINE_DETAILS_BYTE, b"\x00")
        heads, ends = diags.head, diags.end
        kind = p.kind
        for i in self.common.targets:
            j = bisect_right(heads, i) - 1
            if lc[i] == 0 and kind[i] != DETAIL and (j < 0 or i > ends[j]):  # ``_other``: a line between diagnostics
                lc[i] = LINE_TARGETS
        diag_fill(lc, codes, heads, ends, 1, 31)
        by_key, examples = self.common.by_key, self.examples
        lasts = sorted(by_key[key][examples - 1] for key in self.folded if len(by_key.get(key, ())) >= examples)
        for j in lasts:
            lc[heads[j] : ends[j] + 1] = SPECIAL_BYTE * (ends[j] + 1 - heads[j])
        kept = self.kept = set()
        if self.detail_group:  # the first of each text among the detail lines shown (not of a diagnostic listed by place)
            seen: set[bytes] = set()
            for i, key in zip(*p.hint_lines()):
                code = lc[i]
                if not 0 < code < 32 and key not in seen:
                    seen.add(key)
                    kept.add(i)
                    if code == LINE_DETAILS:
                        lc[i] = 0
        if p.padded:  # a kept line holding a run of spaces: ``_keep`` on its own (not a source or caret line)
            n = len(lc)
            padded = int.from_bytes(p.padded, "little")
            if self.details_until:
                padded &= ~int.from_bytes(p.kind.translate(_IS_DETAIL), "little")
            both = (int.from_bytes(lc.translate(_IS_KEPT), "little") & padded).to_bytes(n, "little")
            i = both.find(1)
            while i >= 0:
                lc[i] = LINE_PADDED
                i = both.find(1, i + 1)
        return lc, lasts

    def _emit(self, lc: bytearray, a: int, b: int, group_of: list) -> None:
        """Lines ``a`` to ``b`` to the plan, a run of one code at a time (``_line_codes``); a kept run holding
        ``PAD_MIN`` spaces in a row (``LINE_PADDED``) as ``_keep`` gives it: its runs of spaces cut out
        (``LINE_PAD``) by the same pass (whole lines: as each line on its own, no run of spaces ends a line).
        ``EMIT_LINES`` lines at a time (the pieces of a padded view are several a line: made all at once,
        they would outweigh the plan's own); the first piece of each joined to the plan's last as
        ``Plan.keep`` and ``Plan.omit`` join them."""
        self._flush()
        for start in range(a, b, EMIT_LINES):
            self._emit_lines(lc, start, min(b, start + EMIT_LINES), group_of)

    def _emit_lines(self, lc: bytearray, a: int, b: int, group_of: list) -> None:
        """``_emit`` of lines ``a`` to ``b``."""
        p, plan = self.p, self.plan
        if p.padded:
            codes, starts, ends = diag_line_pieces(lc, a, b, p.starts, p.ends, self.raw, LINE_PADDED, LINE_PAD, PAD_MIN, PAD_KEPT)
        else:
            codes, starts, ends = diag_line_runs(lc, a, b, p.starts, p.ends)
        reasons = plan.reasons
        for code in dict.fromkeys(codes):  # groups in order of their first piece
            group = group_of[code]
            if code and group not in reasons:
                reasons[group] = self._line_reason(code, starts[codes.index(code)])
        first = codes[0]
        if first:
            plan.omit(starts[0], ends[0], group_of[first], reasons[group_of[first]])
        else:
            plan.keep(starts[0], ends[0])
        rest = codes[1:]
        plan.extend(rest.translate(_KIND_OF), starts[1:], ends[1:], map(group_of.__getitem__, rest))

    def _line_reason(self, code: int, start: int) -> str:
        """The reason of the group of a run of ``code`` starting at ``start``: a folded rule's is its first
        diagnostic's (``_reason``)."""
        if code == LINE_DETAILS:
            return "source snippets, carets, help and notes"
        if code == LINE_PROGRESS:
            return "cargo progress lines"
        if code == LINE_PAD:
            return "alignment spaces"
        if code == LINE_TARGETS:
            return "cargo's lines about each target"
        diags = self.p.diags
        j = bisect_left(diags.head, bisect_right(self.p.starts, start) - 1)
        return self._reason(diags.keys[diags.key[j]])

    def _one(self, j: int, head: int, index: int) -> None:
        """The ``j``-th diagnostic (``index``-th of its rule) to the plan."""
        p, plan, diags = self.p, self.plan, self.p.diags
        key, end = diags.key[j], diags.end[j]
        starts, ends, keys = p.starts, p.ends, diags.keys
        folded = keys[key] in self.folded
        if index > self.examples and folded and head not in self.more:  # listed by place only
            group = self.groups.get(keys[key]) or self._group(keys[key])
            held = self.held
            if held is not None and held[1] == starts[head] and held[2] == group:  # ``_omit``, inline
                held[1] = ends[end]
            else:
                self._omit(starts[head], ends[end], group, keys[key])
            return
        if self.held is not None:
            self._flush()
        if end == head and (index != self.examples or not folded):  # ``_show``, inline
            if p.clean:
                plan.keep(starts[head], ends[head])
            else:
                self._keep(starts[head], ends[head])
        else:
            self._show(diags[j], index)

    def _codes(self) -> tuple[bytes, list]:
        """A byte a diagnostic: ``KEPT`` for a one-line diagnostic shown as printed, the number of its
        group in ``names`` for one listed by place only, ``SPECIAL`` for any other (the last example of a
        folded rule, lines of details, escapes or padding, one shown again: ``_one`` does it). The
        groups of the folded rules are those ``_group`` gives, in the order it is first asked for them
        (at each rule's last example, before any of its diagnostics listed by place)."""
        p, diags, examples = self.p, self.p.diags, self.examples
        by_key, key_ids = self.common.by_key, diags.key_ids
        lasts = sorted((by_key[key][examples - 1], key) for key in self.folded if len(by_key.get(key, ())) >= examples)
        for _, key in lasts:
            self._group(key)
        names: list = [None, *dict.fromkeys(self.groups[key] for _, key in lasts)]
        number = {name: n for n, name in enumerate(names)}
        group_of = bytearray(len(diags.keys))  # a key's group's number, 0 for a rule not folded
        for _, key in lasts:
            group_of[key_ids[key]] = number[self.groups[key]]
        codes = diag_codes(diags.key, self.common.rank, p.one_line(), group_of, examples)
        heads = diags.head
        for head in self.more:  # shown again: on its own
            j = bisect_left(heads, head)
            if j < len(heads) and heads[j] == head:
                codes[j] = SPECIAL
        return codes, names

    def _runs(self, j: int, e: int, codes: bytearray, names: list) -> None:
        """The diagnostics ``j`` to ``e`` (one after another, each one line kept or omitted whole by its
        code) to the plan: a piece a run of the same code, as ``Plan.keep`` and ``Plan.omit`` join them."""
        self._flush()
        p, plan, diags = self.p, self.plan, self.p.diags
        run_codes, firsts, starts, ends = diag_runs(codes, j, e, diags.head, diags.end, p.starts, p.ends)
        keys, key_col = diags.keys, diags.key
        code = run_codes[0]
        if code:
            plan.omit(starts[0], ends[0], names[code], self._reason(keys[key_col[j]]))
        else:
            plan.keep(starts[0], ends[0])
        if len(firsts) == 1:
            return
        rest = run_codes[1:]
        reasons = plan.reasons
        for code in dict.fromkeys(rest):  # groups in order of their first run
            if code and names[code] not in reasons:
                reasons[names[code]] = self._reason(keys[key_col[firsts[1 + rest.index(code)]]])
        plan.extend(rest.translate(_KIND_OF), starts[1:], ends[1:], map(names.__getitem__, rest))

    def _flush(self) -> None:
        """Omit the diagnostics held back (``_omit``)."""
        if self.held is not None:
            start, end, group, reason = self.held
            self.plan.omit(start, end, group, reason)
            self.held = None

    def _omit(self, start: int, end: int, group: str, key: str) -> None:
        """Omit ``raw[start:end]`` (a diagnostic of rule ``key``) to ``group``, joined to the ones held
        back when it follows them in the same group (the plan would join them: one call a run instead
        of one a diagnostic; the run's reason is its first's, as the plan keeps the first)."""
        held = self.held
        if held is not None and held[1] == start and held[2] == group:
            held[1] = end
            return
        self._flush()
        self.held = [start, end, group, self._reason(key)]

    def _show(self, d: Diag, index: int) -> None:
        """The ``index``-th diagnostic of its rule, shown (and, the last example of a folded rule,
        followed by the rule's folded line)."""
        key = d.key
        if d.end == d.head:  # one line (most)
            self._keep(self.p.starts[d.head], self.p.ends[d.head])
        else:
            self._keep_head(d)
            for k in range(d.head_end + 1, d.end + 1):
                self._detail(k)
        if key in self.folded and index == self.examples:
            self._folded_line(d, _listed(self.p, self.more, self.common.by_key[key][self.examples :]))

    def _reason(self, key: str) -> str:
        reason = self.reasons.get(key)
        if reason is None:
            reason = self.reasons[key] = "diagnostics of the folded rules" if self.one_ref else f"diagnostics of rule {key}"
        return reason

    def _keep_head(self, d: Diag) -> None:
        """A diagnostic's head lines, a detail among them (javac's caret line) folded."""
        p = self.p
        start = p.starts[d.head]
        for k in range(d.head + 1, d.head_end + 1):
            if p.kind[k] == DETAIL:
                self._keep(start, p.starts[k])
                self._detail(k)
                start = p.ends[k]
        self._keep(start, p.ends[d.head_end])

    def _other(self, i: int) -> None:
        p = self.p
        if p.kind[i] == DETAIL:
            self._detail(i)
        elif p.kind[i] == PROGRESS and self.progress >= PROGRESS_MIN:
            self.plan.omit(p.starts[i], p.ends[i], "progress", "cargo progress lines")
        elif i in self.common.targets:
            self.plan.omit(p.starts[i], p.ends[i], "targets", "cargo's lines about each target")
        else:
            self._keep(p.starts[i], p.ends[i])

    def _folded_line(self, d: Diag, rest: array) -> None:
        plan = self.plan
        if not plan.ends_line():
            plan.show(b"\n")
        before, after = _folded_text(self.p, d, rest, self.cap)
        plan.show(before)
        plan.mark(self._group(d.key))
        plan.show(after)

    def _footer(self) -> None:
        plan = self.plan
        for group, text in (("details", b"[source snippets, carets, help and notes folded: "),
                            ("progress", f"[{self.progress} cargo progress lines folded: ".encode()),
                            ("targets", f"[{len(self.common.targets)} lines about each target folded (could not "
                                        "compile, generated N warnings, rustc --explain; the last of each shown): ".encode()),
                            ("escapes", b"[terminal colour escapes removed: "),
                            ("padding", b"[runs of alignment spaces shortened: ")):
            if group in plan.reasons:
                plan.show((b"" if plan.ends_line() else b"\n") + text)
                plan.mark(group)
                plan.show(b"]\n")


def _folded_text(p: _Parser, d: Diag, rest: array, cap: int) -> tuple[bytes, bytes]:
    """The line of a folded rule (``d``: its last example; ``rest``: its diagnostics listed by place),
    ``cap`` places listed: its text before the marker of the rule's ref and after it."""
    key, text = d.key, d.message.strip().decode("utf-8", "replace")
    if _key(None, d.severity, d.message) == key:  # no rule code: the rule is the message's start (``_key``):
        start = key.removeprefix(f"{d.severity}: " if d.severity else "").removesuffix("…")
        message = "" if text.startswith(start) else text  # its text, when masked names made the rule's differ
    else:  # (what follows an unmasked start is no message of its own: "(s unkeyed fields)", "()")
        message = text.removeprefix(key).lstrip(": ")
    label = f" ({message[:50]}…)" if len(message) > 50 else f" ({message})" if message else ""
    listed = spread(rest, cap)
    left = len(rest) - len(listed)
    more = f" and {left:,} more place{'s' if left != 1 else ''}" if left else ""
    if d.style == "tsc":  # a place a line, as tsc prints it
        return (f"[{key} ×{len(rest)} more{label}, exact lines: ".encode(),
                b"]\n" + _locations(p, listed) + (f"\n[…{more} of {d.key}]\n" if more else "\n").encode())
    return (f"[{key} ×{len(rest)} more{label}: ".encode() + _locations(p, listed) + f"{more}; exact lines: ".encode(),
            b"]\n")


LINE_DETAILS, LINE_PROGRESS, LINE_TARGETS, LINE_PADDED = 250, 251, 252, 254  # ``_Reducer._line_codes``
LINE_DETAILS_BYTE = bytes((LINE_DETAILS,))
LINE_PAD = 253  # ``_Reducer._emit``: a run of spaces cut out of a line kept
EMIT_LINES = 1 << 14  # ``_Reducer._emit``: lines handed to the plan at once
_IS_KEPT = b"\x01" + bytes(255)
SPECIAL, KEPT = 255, 0  # ``_Reducer._codes``: a diagnostic done on its own, one kept whole; 1-31: omitted to a group
SPECIAL_BYTE = bytes([SPECIAL])
_KEEP_OMIT, _KEEP_ONE = bytes((KEEP, OMIT)), bytes((KEEP,))  # ``_Reducer._keep``: the pieces of a padded span
_KIND_OF = bytes([KEEP]) + bytes([OMIT]) * 255  # a run's code -> its piece's kind


def spread(items: list, k: int) -> list:
    """All of ``items`` when there are at most ``k``, else ``k`` of them at evenly spaced places
    (the first and the last kept)."""
    n = len(items)
    if n <= k:
        return items
    if k <= 1:
        return items[:k]
    return [items[round(i * (n - 1) / (k - 1))] for i in range(k)]


def parse(raw: bytes) -> _Parser:
    return _Parser(raw).run()


class _Fold(NamedTuple):
    rules: set  # the rules folded
    examples: int  # diagnostics of a folded rule shown verbatim
    cap: int  # locations listed for one folded rule
    more: frozenset = frozenset()  # head lines of other diagnostics of folded rules shown verbatim (``_unfold``)
    details_until: int = 0  # detail lines before this line shown as printed (``_details_back``)


FOLD_LINE = 80  # bytes a folded rule's line takes besides its locations


def _listed(p: _Parser, more: frozenset, rest):
    """The diagnostics of ``rest`` (a folded rule's past its examples, in order) that its line lists by place:
    all but those shown as printed again (``more``: their head lines)."""
    if not more or not len(rest):
        return rest
    made = p.__dict__.setdefault("_listed", {})  # (a view's is asked again by the next, and in sizing it)
    listed = made.get((more, rest[0], len(rest)))
    if listed is None:
        listed = made[(more, rest[0], len(rest))] = array("I", compress(rest, _unshown_flags(p, more, rest)))
    return listed


def _unshown_flags(p: _Parser, more: frozenset, rest) -> bytes:
    """A byte each diagnostic of ``rest`` (their indexes, ascending) has: 0 when its head line is in ``more``, else 1.
    When the diagnostics' head lines ascend (they are read in order), the diagnostic of each line of ``more`` is
    found by bisection, then its place in ``rest`` (``more``: a few hundred lines; ``rest``: up to every diagnostic)."""
    heads = p.diags.head
    ascend = p.__dict__.get("_ascend")
    if ascend is None:
        ascend = p._ascend = all(map(lt, heads, islice(heads, 1, None)))
    if not ascend:
        return bytes(map(more.__contains__, map(heads.__getitem__, rest))).translate(_FLIP)
    flags, low, high = bytearray(b"\x01") * len(rest), heads[rest[0]], heads[rest[-1]]
    for line in more:
        if low <= line <= high and heads[j := bisect_left(heads, line)] == line:  # (``line`` <= the last head)
            at = bisect_left(rest, j)
            if at < len(rest) and rest[at] == j:
                flags[at] = 0
    return flags


def _verbatim(p: _Parser, j: int) -> int:
    """The bytes the ``j``-th diagnostic's head lines take shown (``_Reducer._keep``: escapes gone, padding short)."""
    start, end = p.starts[p.diags.head[j]], p.ends[p.diags.head_end[j]]
    if p.clean:
        return end - start
    if p.padded:  # no escapes: the runs of spaces alone
        pads = memoryview(diag_pads(p.raw, start, end, PAD_MIN, PAD_KEPT)).cast("q")
        return end - start - sum(pads[1::2]) + sum(pads[::2])
    return end - start - sum(b - a for a, b, _, _ in _hidden(p.raw, start, end))


def _hidden(raw: bytes, start: int, end: int) -> list[tuple[int, int, str, str]]:
    """What a shown ``raw[start:end]`` leaves out, in order, as (from, to, group, reason): its colour
    escapes whole, and of each run of ``PAD_MIN`` spaces or more inside a line all but ``PAD_KEPT``."""
    if raw.find(b"\x1b", start, end) < 0 and raw.find(PAD, start, end) < 0:
        return []
    out = []
    for m in ODD_RE.finditer(raw, start, end):
        if raw[m.start()] == 0x1B:
            out.append((m.start(), m.end(), "escapes", "terminal colour escapes"))
        else:
            out.append((m.start() + PAD_KEPT, m.end(), "padding", "alignment spaces"))
    return out


def _shown_size(p: _Parser, indexes) -> int:
    """The bytes the head lines of the diagnostics ``indexes`` take shown (``_verbatim``)."""
    if p.clean or p.padded:  # no escapes: a diagnostic's head lines lose something only when one holds ``PAD``
        sizes = p.__dict__.get("_sizes")
        if sizes is None:  # each diagnostic's, once, by the kernel (``_verbatim`` of each; clean: no run is that long)
            sizes = p._sizes = array("I")
            sizes.frombytes(diag_shown(p.raw, p.starts, p.ends, p.diags.head, p.diags.head_end,
                                       len(p.raw) + 1 if p.clean else PAD_MIN, PAD_KEPT))
        return sum(map(sizes.__getitem__, indexes))
    return sum(_verbatim(p, j) for j in indexes)


def _gain(p: _Parser, key: str, examples: int, cap: int, s: Settings) -> int:
    """Bytes saved by listing the diagnostics of rule ``key`` past its first ``examples`` by location
    instead of verbatim. The size of a rule's lines shown is worked out once (``_fit`` asks again
    for one example, after two)."""
    indexes = p.common(s).by_key[key]
    rest = indexes[examples:]
    sizes = p.__dict__.setdefault("_rule_sizes", {})
    whole = sizes.get(key)
    if whole is None:
        whole = sizes[key] = _shown_size(p, indexes)
    return whole - _shown_size(p, indexes[:examples]) - _places_size(p, spread(rest, cap)) - FOLD_LINE


def _fit(p: _Parser, s: Settings, over: int) -> tuple[_Fold, int]:
    """The folding that takes about ``over`` bytes off the verbatim view: the most frequent rules
    folded first (their first ``examples`` diagnostics verbatim, the others by location); then one
    example a rule (``_cap`` then lists fewer locations a rule when that is not enough). ``over`` is
    measured on the view where the rules past ``max_shown`` are folded already (``_fold_plan``): what
    their folding takes off is added to it, so that it is not counted again as it is reckoned for them.
    With the bytes still over by that reckoning (0 or less: it fits)."""
    by_key = p.common(s).by_key
    ranked = sorted(by_key, key=lambda k: -len(by_key[k]))
    fold = _Fold(set(_fold_plan(p, s)), s.examples, s.max_locations)
    over += sum(_gain(p, key, s.examples, fold.cap, s) for key in fold.rules)  # folded in the view measured already
    for examples in sorted({s.examples, 1}, reverse=True):
        rules, left = set(), over
        for key in ranked:
            rest = by_key[key][examples:]
            if left <= 0 or not rest:
                continue
            gain = _gain(p, key, examples, fold.cap, s)
            if key in fold.rules or gain > 0:
                rules.add(key)
                left -= gain
        fold = _Fold(rules | fold.rules, examples, fold.cap)
        if left <= 0:
            break
    return fold, left


UNFOLD_MIN = 200  # bytes of room left over below which no folded diagnostic is shown verbatim again


def _unfold(p: _Parser, fold: _Fold, spare: int) -> frozenset:
    """Diagnostics of the folded rules shown verbatim again in the room the folding left (each
    reckoned at its lines' size): first one for each message text not shown yet (the same
    rule names different functions, attributes, types), then the others in order, while the room
    lasts. Their head lines' indexes."""
    first, other = _unshown(p, fold)
    chosen: set[int] = set()
    heads, keys = p.diags.head, p.diags.key
    listed = Counter(keys[j] for j in first + other if heads[j] not in fold.more)  # a folded rule's line lists one place at least
    for j in first + other:
        if heads[j] in fold.more:
            continue  # shown already (``_spread``)
        cost = _verbatim(p, j)  # its place leaves the list, but a listed place may be short (``line:col``)
        if cost > spare:
            break
        if listed[keys[j]] == 1:
            continue
        listed[keys[j]] -= 1
        spare -= cost
        chosen.add(heads[j])
    return frozenset(chosen)


def _unshown(p: _Parser, fold: _Fold) -> tuple[list[int], list[int]]:
    """The diagnostics of the folded rules past their examples: the first of each message text not
    shown yet, and the others."""
    seen: set[bytes] = set()
    counts: dict[int, int] = {}
    first, other = [], []
    diags = p.diags
    rules = {diags.key_ids[key] for key in fold.rules if key in diags.key_ids}
    for j, key in enumerate(diags.key):
        count = counts[key] = counts.get(key, 0) + 1
        message = diags.message_of(j).strip()
        if key not in rules or count <= fold.examples:
            seen.add(message)
        elif message in seen:
            other.append(j)
        else:
            seen.add(message)
            first.append(j)
    return first, other


def _widen(build, p: _Parser, fold: _Fold, plan: Plan, spare: int) -> tuple[Plan, _Fold]:
    """``plan`` with folded diagnostics shown verbatim again in ``spare`` bytes (``_unfold``); the
    sizes are reckoned, so a view that comes out too long is tried again with less, and one that
    comes out shorter gives what is left to more lines. With the fold it was built with."""
    room = visible_size(plan) + spare
    for _ in range(WIDEN_TRIES):
        if spare < UNFOLD_MIN:
            break
        more = _unfold(p, fold, spare)
        if not more:
            break
        wider_fold = fold._replace(more=more | fold.more)
        wider = build(wider_fold)
        size = visible_size(wider)
        if size > room:
            spare = int(spare * 0.9)
        else:  # each line reckoned at its whole size, its place leaving the list aside: room is left over
            plan, fold, spare = wider, wider_fold, room - size
    return plan, fold


DETAILS_BACK_MAX = 1 << 20  # bytes of an input whose folded details may come back (its view is built again)
DETAILS_TRIES = 3  # views built to give the room back to details (``_details_back``)


def _details_back(build, p: _Parser, fold: _Fold, plan: Plan, room: int) -> Plan:
    """``plan`` with the details of its first diagnostics shown as printed again, in order, while ``room``
    lasts (gcc's source and caret lines: the code each warning is about), where the view of the
    diagnostics leaves room. Each detail line is reckoned at its whole size (one kept already, or of a
    diagnostic listed by place, is counted all the same), so a view that comes out shorter gives what
    is left to the next diagnostics, and one over is tried with less."""
    if "details" not in plan.reasons or len(p.raw) > DETAILS_BACK_MAX:
        return plan
    size = visible_size(plan)
    if room - size < UNFOLD_MIN:
        return plan
    kind, starts, ends, diag_ends = p.kind, p.starts, p.ends, p.diags.end
    cuts, sizes, total, i = [], [], 0, kind.find(DETAIL)  # after each diagnostic: the detail bytes before it
    for end in diag_ends:
        while 0 <= i <= end:
            total += ends[i] - starts[i] + 1
            i = kind.find(DETAIL, i + 1)
        cuts.append(end + 1)
        sizes.append(total)
    spare, done, used = room - size, 0, 0  # room left; the line the details are shown to, and their bytes
    for _ in range(DETAILS_TRIES):
        k = bisect_right(sizes, used + spare) - 1
        if k < 0 or cuts[k] <= done:
            break
        wider = build(fold._replace(details_until=cuts[k]))
        wider_size = visible_size(wider)
        if wider_size > room:
            spare = int(spare * 0.9)
            continue
        plan, done, used, spare = wider, cuts[k], sizes[k], room - wider_size
        if spare < UNFOLD_MIN:
            break
    return plan


WIDEN_TRIES = 4  # views built to give the room back to lines as printed (``_widen``)


SPREAD_SHARE = 0.6  # of the room, for the lines of folded rules whose messages differ (``_spread``)
SPREAD_DISTINCT = 0.25  # ... a rule whose messages are at least this share distinct
SPREAD_SAMPLE = 256  # diagnostics of a rule looked at to tell


def _spread(p: _Parser, fold: _Fold, room: int, s: Settings) -> frozenset:
    """Diagnostics shown as printed, evenly spaced over each folded rule of ``path:line: error:
    message`` diagnostics (mypy, gcc, javac) whose messages differ from place to place (mypy's
    ``Untyped decorator makes function "test_x" untyped``: a list of places would drop the names), in
    ``SPREAD_SHARE`` of ``room`` shared by the rules as their sizes. Their head lines' indexes. The
    rules chosen and their lines' mean size are worked out once for a fold (``reduce`` asks again with
    less room)."""
    diags = p.diags
    made = p.__dict__.setdefault("_spreads", {})
    chosen = made.get((frozenset(fold.rules), fold.examples, id(s)))
    if chosen is None:
        chosen = made[(frozenset(fold.rules), fold.examples, id(s))] = _spread_rules(p, fold, s)
    total = sum(len(rest) for rest, _ in chosen)
    heads, out = diags.head, set()
    for rest, each in chosen:
        share = room * SPREAD_SHARE * len(rest) / total
        out.update(heads[j] for j in spread(rest, min(int(share // each), len(rest) - 1)))  # one place stays listed
    return frozenset(out)


def _spread_rules(p: _Parser, fold: _Fold, s: Settings) -> list[tuple]:
    """``_spread``'s rules: (the diagnostics past its examples, the mean size of their lines shown, from a
    sample of them) of each folded rule whose messages differ."""
    by_key = p.common(s).by_key
    diags = p.diags
    chosen: list[tuple] = []
    for key in fold.rules:
        rest = by_key.get(key, ())[fold.examples :]
        if len(rest) < 2 or diags.style[rest[0]] != GNU:
            continue
        sample = spread(rest, SPREAD_SAMPLE)
        if len({diags.message_of(j).strip() for j in sample}) >= max(2, SPREAD_DISTINCT * len(sample)):
            chosen.append((rest, (_shown_size(p, sample) + len(sample)) / len(sample)))  # (``_verbatim`` of each)
    return chosen


def _cap(build, fold: _Fold, room: int, p: _Parser, s: Settings, smallest: Plan | None = None,
         smallest_size: int | None = None) -> Plan:
    """The plan listing the most locations a folded rule (evenly spaced) that fits ``room``; with one
    location a rule when even that does not fit (the output ceiling then cuts by rank). The size of
    each cap is reckoned from the locations' lengths (never past the longest list: a cap beyond lists
    no more), then checked on the view built, a smaller one tried when over. ``smallest``:
    the view with one location a rule, when it is built already (``smallest_size``: its visible size,
    when measured already)."""
    by_key = p.common(s).by_key
    rests = {k: _listed(p, fold.more, v[fold.examples :]) for k, v in by_key.items() if k in fold.rules}

    def listed(cap: int) -> int:
        return sum(_places_size(p, spread(rest, cap)) + (20 if len(rest) > cap else 0) for rest in rests.values())

    if smallest is None:
        smallest, smallest_size = build(fold._replace(cap=1)), None
    base = (visible_size(smallest) if smallest_size is None else smallest_size) - listed(1)
    most = max(map(len, rests.values()), default=1)  # a cap past the longest list lists no more places
    low, high, best = 1, min(fold.cap, most), 1
    while low <= high:
        mid = (low + high) // 2
        if base + listed(mid) <= room:
            best, low = mid, mid + 1
        else:
            high = mid - 1
    for _ in range(3):
        if best <= 1:
            break
        plan = build(fold._replace(cap=best))
        if visible_size(plan) <= room:
            return plan
        best = min(int(best * 0.8), best - 1)
    return smallest


def _lines_size(p: _Parser, fold: _Fold, s: Settings) -> int:
    """The bytes the folded rules' lines take in the view of ``fold`` (``_folded_text``, markers
    aside): the view's size is that of another listing fewer places a rule, less its lines, plus these."""
    by_key, diags, total = p.common(s).by_key, p.diags, 0
    for key in fold.rules:
        indexes = by_key.get(key, ())
        if len(indexes) >= fold.examples:  # its last example is followed by its line
            before, after = _folded_text(p, diags[indexes[fold.examples - 1]],
                                         _listed(p, fold.more, indexes[fold.examples :]), fold.cap)
            total += len(before) + len(after)
    return total


def reduce(raw: bytes, granularity: str, config) -> Plan:
    """Every diagnostic line as printed while the view fits the room (``room_share`` of the output
    ceiling); past it the rules fold (``_fit``), then their location lists shorten (``_cap``)."""
    settings = section(config, NAME)
    parser = parse(raw)
    if not parser.diags:
        return passthrough(raw)

    fold = _Fold(_fold_plan(parser, settings), settings.examples, settings.max_locations)
    one_ref = bool(fold.rules)  # past max_shown: the folded rules' diagnostics, runs of many rules, in one ref

    def build(fold: _Fold) -> Plan:
        return _Reducer(raw, parser, settings, fold, one_ref).run()

    plan = build(fold)
    room = int(section(config, "ceiling").max_chars * settings.room_share)
    size = visible_size(plan)
    if gnu := _gnu_snippets(parser, settings):  # gcc's source and caret lines: the code each warning is about
        if size <= room and len(raw) <= settings_of(config).room_for(len(raw)):
            return passthrough(raw)  # they fit with the rest
        fit = min(room, settings_of(config).budget_chars)  # ... or do once each block printed again is folded
        once = _unrepeated(parser, fit)  # (a header's warnings in each file)
        if once is not None and visible_size(once) <= fit:
            return once
    final = fold  # the fold of the view returned, when known (``_cap``'s is not): its room goes back to details
    if size > room:
        del plan  # each view let go before the next is built
        fold, short = _fit(parser, settings, size - room)
        spread_room = room
        for _ in range(3):
            spread_fold = fold._replace(more=_spread(parser, fold, spread_room, settings))
            smallest, smallest_size = None, 0
            if short > 0 and spread_fold.cap > 1:  # over by the reckoning: the view with one place a rule first,
                one = spread_fold._replace(cap=1)  # the one with every list measured from it (not built when over)
                smallest = build(one)
                smallest_size = visible_size(smallest)  # (measured once: ``_cap`` may return it)
                size = smallest_size - _lines_size(parser, one, settings) + _lines_size(parser, spread_fold, settings)
                if size <= room:
                    smallest = None
            final = None
            if smallest is not None:
                plan = _cap(build, spread_fold, room, parser, settings, smallest, smallest_size)
            elif (size := visible_size(plan := build(spread_fold))) > room:
                del plan
                plan = _cap(build, spread_fold, room, parser, settings)
            else:
                plan, final = _widen(build, parser, spread_fold, plan, room - size)
            if not spread_fold.more or (smallest_size if plan is smallest else visible_size(plan)) <= room:
                break
            spread_room //= 2  # the lines spread took too much of the room: fewer of them
    if final is not None and gnu:  # gcc's: the source and caret lines of the first warnings, while the room lasts
        plan = _details_back(build, parser, final, plan, min(room, settings_of(config).budget_chars))
    return plan if plan.omits_anything else passthrough(raw)


def _unrepeated(parser: _Parser, room: int) -> Plan | None:
    """Every line as printed but gcc's diagnostics printed again (a header's warnings for each file that
    includes it, a build run once for each set of flags): a diagnostic whose lines (its head, source and
    caret lines, notes) are those of one before it folds, with the context lines between such copies that
    were printed before too (``In function``, ``In file included from``), into one ref; a marker line
    says how many. None when no diagnostic is printed twice, or as soon as the diagnostics printed once
    are over ``room`` bytes (the view shows each of them: a big output is not copied block by block)."""
    raw, starts, ends, diags = parser.raw, parser.starts, parser.ends, parser.diags
    again = bytearray(len(starts))  # 1: a line of a diagnostic printed before; 2: a context line printed before
    inside = bytearray(len(starts))  # the lines of diagnostics
    blocks: set[bytes] = set()
    distinct = 0  # bytes of the diagnostics printed once
    for head, end in zip(diags.head, diags.end):
        inside[head : end + 1] = b"\x01" * (end + 1 - head)
        block = raw[starts[head] : ends[end]]
        if block in blocks:
            again[head : end + 1] = b"\x01" * (end + 1 - head)
            continue
        distinct += len(block)
        if distinct > room:
            return None
        blocks.add(block)
    if 1 not in again:
        return None
    lines: set[bytes] = set()
    for i, (start, end) in enumerate(zip(starts, ends)):
        line = raw[start:end]
        if not inside[i] and line in lines:
            again[i] = 2
        lines.add(line)
    plan, i, n = Plan(raw), 0, len(starts)
    while i < n:
        if not again[i]:
            i += 1
            continue
        j = last = i
        while j < n and again[j]:
            if again[j] == 1:
                last = j
            j += 1
        if again[last] != 1:  # context lines only: they stay
            i = j
            continue
        folded = bisect_right(diags.head, last) - bisect_left(diags.head, i)  # (heads in order)
        plan.keep(plan.position, starts[i])
        plan.omit(starts[i], ends[last], "repeats", "diagnostics printed again")
        if not plan.ends_line():
            plan.show(b"\n")
        plan.show(f"[{folded} diagnostic{'s' if folded != 1 else ''} as printed above, again: ".encode())
        plan.mark("repeats")
        plan.show(b"]\n")
        i = last + 1
    return plan.keep_rest().finish()


def _gnu_snippets(parser: _Parser, settings: Settings) -> bool:
    """Whether the details are gcc's or clang's (every diagnostic ``path:line:col: warning: … [-Wflag]``,
    or an error with no flag, its source line in a numbered gutter and the caret under it): two short
    lines a diagnostic, which the room may hold."""
    diags = parser.diags
    return parser.common(settings).details >= MIN_DETAILS and not diags.style.translate(None, _GNU_ONLY) \
        and (any(key.startswith(("-W", "-f")) for key in diags.keys) or bool(_GCC_CARET_RE.search(parser.raw)))


_GNU_ONLY = bytes((GNU,))
_GCC_CARET_RE = lazy(rb"(?m)^ +\d+ \| .*\n +\| +[\^~]")  # gcc's source line in its numbered gutter, the caret under it


def detect(sample) -> str | None:
    head = sample.head
    if len(sample.raw) > len(head):
        head = head[: head.rfind(b"\n") + 1]
    if not maybe.diagnostics(sample):
        return None  # fewer than two lines that may start a diagnostic (a log, prose: most inputs)
    if BUILD_MARKER_RE.search(sample.plain):
        return None  # a build log: the build type keeps its diagnostics with the build's context
    parser = parse(head)
    diags = parser.diags
    if len(diags) < 2:
        return None
    content = [k for k, t in zip(parser.kind, parser.text) if t.strip()]
    explained = sum(k != OTHER for k in content)
    if explained < 0.8 * len(content):
        return None
    styles = Counter(d.style for d in diags).most_common(1)[0][0]
    files = len({d.path for d in diags})
    return f"{len(diags)} diagnostics in {_files_n(files)} ({styles} style)"


FITS = True  # the reducer fits its view to the room itself: the ceiling cuts it at the budget only
SEVERITY_RANK = {"fatal error": 0, "error": 1, "warning": 2}


def facts(packet):
    """Level 0: the counts, and the first diagnostic of each rule (errors first, then the most frequent)."""
    from operators.types import Facts

    diags = parse(packet.raw).diags
    counts = Counter(d.key for d in diags)
    first: dict[str, Diag] = {}
    for d in diags:
        first.setdefault(d.key, d)
    ranked = sorted(first.values(), key=lambda d: (SEVERITY_RANK.get(d.severity, 3), -counts[d.key]))
    important = [f"{d.loc.decode('utf-8', 'replace')} {d.severity} {d.key} ×{counts[d.key]}".replace("  ", " ")
                 for d in ranked[:5]]
    files = len({d.path for d in diags})
    return Facts(f"{len(diags):,} diagnostics in {_files_n(files)}, {len(counts):,} rules", important, len(first))


ERROR_RE = lazy(rb"\b(?:fatal error|error)\b|\[Error/|\berror\[")
WARNING_RE = lazy(rb"\bwarning\b|\[Warning/")


def tier(text: bytes, shown: bytes, config) -> tuple[int, int] | None:
    """Pack tiers: the summary and folded-rule lines first, then errors, warnings, the other diagnostic
    lines (a rule code without a severity: ruff, flake8) with the places they point at (``-->
    path:line``) and eslint's file headers; other ``path:line`` lines are context."""
    if (m := LOC_RE.match(shown)) and not m.group(1) and b".go:" not in shown and shown[:1] != b"[":
        return _loc_tier(shown[: m.start(5)], m.group(5))
    if shown.startswith(b"[") and (b" diagnostics (" in shown[:40] or b" more (" in shown[:80] or b" more: " in shown[:84]):
        return 0, 0
    if (b"--> " in shown and ARROW_RE.match(shown)) or STYLISH_FILE_RE.match(shown):  # a diagnostic's place, an eslint file header
        return 0, 3
    if m is not None or (b"): " in shown and TSC_RE.match(shown)) or STYLISH_RE.match(shown):  # (``m``: LOC_RE's, above)
        if ERROR_RE.search(shown):
            return 0, 1
        if WARNING_RE.search(shown) or GROUPED_RE.match(shown):
            return 0, 2
        return (0, 3) if _head_line(shown, m) else (1, 0)
    return None


def tiers(lines, config) -> list | None:
    """``tier`` of many lines at once (``lines``: an ``operators.rank.Lines``), the ``path:line:col: …``
    lines that start with their path found by one pass (``operators.kernel.diag_heads``) and the text
    after each location worked out once for each text, file headers and gcc's function lines by a scan
    each: a list, each such line's tier (``()`` where ``tier`` gives None), None for the other lines
    (``tier`` is asked for each); None when the text holds what a terminal would change (then every
    line is asked)."""
    text = getattr(lines, "text", None)
    if text is None or b"\x1b" in text or b"\r" in text or len(text) >= SMALL:
        return None
    found, at, _, flags, rest_ids, rests, _, _ = diag_heads(text)
    hits = list(map(_rest_tier, rests))
    out: list = [None] * len(lines)
    for line, rest in zip(found, rest_ids):
        out[line] = hits[rest]
    starts = lines.starts
    for k in compress(range(len(found)), flags.translate(_SUSPECT)):  # ``.go:`` perhaps: asked on their own
        out[found[k]] = None
    for word in (b"rror", b"arning", b"\n["):  # a place naming an error or a warning; a line led by "["
        at = -1 if word != b"\n[" or text[:1] != b"[" else 0
        if at == 0:
            out[0] = None
        while (at := text.find(word, at + 1)) >= 0:
            if word == b"\n[":
                out[bisect_right(starts, at + 1) - 1] = None
            elif out[line := bisect_right(starts, at) - 1] != (0, 1):
                out[line] = None
    led = getattr(lines, "led", None)
    if led is not None:  # lines ``tier`` gives the same for whatever they hold, found by a scan each
        for line in led(HEADER_SCAN):  # an eslint or pyright file header (``STYLISH_FILE_RE``)
            out[line] = (0, 3)
        for line in led(FUNCTION_SCAN):  # gcc's ``path: In function ‘f’:``: no form of ``tier`` takes it
            out[line] = ()
        for line in led(ENTRY_SCAN):  # an eslint stylish entry: an error, else a warning (its severity a word)
            out[line] = (0, 1) if ERROR_RE.search(lines[line]) else (0, 2)
    return out


# ``tiers``: lines led by their newline (``operators.rank.Lines.led``; the text holds no ``\r``). A ``STYLISH_FILE_RE`` line
# has no space and at most one colon (a drive's): no ``LOC_RE`` location, no ``[`` or ``-->`` first. A ``FUNCTION_SCAN``
# line: its first colon (after a path with no space, parenthesis or colon, not led by ``[`` or ``-``) then a space, no
# parenthesis after it: neither ``LOC_RE``, ``ARROW_RE``, ``STYLISH_FILE_RE`` nor ``TSC_RE`` (``): ``) nor ``STYLISH_RE``
# (an indent first) takes it. An ``ENTRY_SCAN`` line: ``STYLISH_RE``'s (whose tail matches the rest of any line), indented
# (``LOC_RE``'s indent, if it matches, is not empty), a digit after its indent (no ``ARROW_RE``), a severity word in it.
HEADER_SCAN = lazy(rb"\n(?:[A-Za-z]:)?[/\\.\w][^\s:]*\.[A-Za-z0-9]{1,8}$", re.M)
ENTRY_SCAN = lazy(rb"\n[ \t\x0b\x0c]+\d+:\d+[ \t\x0b\x0c]+(?:error|warning)[ \t\x0b\x0c]", re.M)
FUNCTION_SCAN = lazy(rb"\n[^\s:()\[\-][^\s:()]*: In (?:static |member )?function [^\n()]*$", re.M)


_SUSPECT = bytes(v & 1 for v in range(256))  # ``diag_heads``' flags: 1 for a line another form may take


TIERS: dict[bytes, tuple[int, int]] = {}  # ``_loc_tier``: the tier of each text after a location seen
TIERS_MAX = 20_000


def _rest_tier(rest: bytes) -> tuple[int, int]:
    """``tier`` of the text after a location: an error, a warning, another diagnostic (a rule code or a
    severity), else context."""
    if ERROR_RE.search(rest):
        return 0, 1
    if WARNING_RE.search(rest):
        return 0, 2
    return (0, 3) if _code_and_severity(rest, False) is not None else (1, 0)


def _loc_tier(loc: bytes, rest: bytes) -> tuple[int, int]:
    """``tier`` of a ``path:line:col: rest`` line (``loc``: what comes before ``rest``), its rest's
    part worked out once for each text (the same message at many places): no error or warning word
    can run across the two (``loc`` ends with ``:``, ``-`` or a space)."""
    hit = TIERS.get(rest)
    if hit is None:
        hit = _rest_tier(rest)
        if len(TIERS) >= TIERS_MAX:
            TIERS.clear()
        TIERS[rest] = hit
    if hit != (0, 1) and (b"rror" in loc or b"arning" in loc):  # every ERROR_RE and WARNING_RE match has one
        if ERROR_RE.search(loc):
            return 0, 1
        if hit != (0, 2) and WARNING_RE.search(loc):
            return 0, 2
    return hit


def _head_line(shown: bytes, m) -> bool:
    """Whether a ``path:line…`` line (``m``: its ``LOC_RE`` match) is a diagnostic (a rule code or a
    severity after the location)."""
    return m is not None and _code_and_severity(m.group(5), GO_RE.match(shown, len(m.group(1))) is not None) is not None
