"""What must stay visible: the expected signals of a packet.

Two sources, checked together by the SIGNAL stage:
* planted signals listed for a fixture in ``fixtures/signals.toml``;
* automatic signals derived from the raw input by the signal vocabulary alone (``operators.vocab``),
  independently of any reducer and sharing no state with one: for a log, text or build output (any
  type whose module says ``SIGNALS = "lines"``) every line with a signal word in any inflection or an
  error code (one RE2 pass over the buffer; ``vocab.signal_line_spans`` gives the spans of that very
  input again when it already scanned it, or when the kernel's table of its lines gave them a shape at a
  time (``vocab.keep_shaped_spans``, the vocabulary's own code: the same lines, as its docstring shows),
  a result of the bytes alone); for a diff every changed line, but for the lines of
  summarised files and moved lines (see ``changed_lines``).

An output cut to the ceiling accounts for a missing signal line only by what its visible text says
(``uncounted``): a fold line ``(×N similar …)`` counting the line's template, or the first line's
``[N more … not shown …]``. SIGNAL reads those lines as data; it calls no budget code.
"""

from __future__ import annotations

import io
import re
from functools import cache
from pathlib import Path
from typing import Iterator

import msgspec

from operators.kernel import changed_lines as kernel_changed_lines  # the kernel's, or its twin (diff_twins)
from operators.kernel import mask_numbers  # the kernel's, or its twin (log_twins)
from operators.vocab import (COUNT_RE, CONTROL_RE, display_line, display_text, forget_spans, signal_lines,
                             summarised_spans)

MAX_AUTO = 10_000  # enough for any real input; bounds the cost of pathological ones


class FixtureSignals(msgspec.Struct, forbid_unknown_fields=True):
    signals: list[str]


def load_sidecar(path: Path) -> dict[str, list[str]]:
    if not path.exists():
        return {}
    table = msgspec.toml.decode(path.read_bytes(), type=dict[str, FixtureSignals])
    return {name: entry.signals for name, entry in table.items()}


def without(raw: bytes, spans: list[tuple[int, int]], sep: bytes = b"") -> bytes:
    """``raw`` without the (ordered, disjoint) ``spans``, what is left joined with ``sep``."""
    if not spans:
        return raw
    parts, pos = [], 0
    for a, b in spans:
        parts.append(raw[pos:a])
        pos = b
    parts.append(raw[pos:])
    return sep.join(parts)


def changed_lines(raw: bytes, block: int = 1 << 20) -> list[bytes]:
    """The distinct changed lines of a diff (``\\r`` stripped, longer than their sign), the first ``MAX_AUTO``.

    Two rules of the diff vocabulary apply, both computed from the raw diff alone: the files a diff
    summarises (``vocab.summarised_file``: lockfiles, minified files, snapshots, told by their path)
    are skipped, and a changed line that also occurs with the opposite sign in the diff (a moved
    line: ``-x`` and ``+x``) is not asked for on either side. One pass of the kernel
    (``kernel.changed_lines``: a table of the texts), or its twin, which reads the lines a block of
    about ``block`` bytes at a time."""
    return kernel_changed_lines(without(raw, summarised_spans(raw)), MAX_AUTO, block)


def signals_kind(content_type: str, config=None) -> str:
    """The check a content type asks for (``SIGNALS`` in its module: "lines", "changed" or ""; the
    type of ``config``'s registry; "lines" for a name no registry knows)."""
    from operators import types

    return types.attr(content_type, "SIGNALS", "lines", config)


def auto_signals(content_type: str, raw: bytes, config=None) -> list[bytes]:
    """The lines that must stay visible, by the check its content type asks for (``signals_kind``)."""
    kind = signals_kind(content_type, config)
    raw = textual(raw)
    if kind == "lines":
        found = signal_lines(raw, MAX_AUTO)
    elif kind == "changed":
        found = changed_lines(raw)
    else:
        found = []
    forget_spans()  # the spans vocab kept of this input (for this scan) are not needed any more
    from operators.safety import forget_regions, signal_parts_of  # as the visible text shows them: cleaned, an over-long line's head and tail

    forget_regions()  # the binary regions the safety pass kept of it (``textual``) too

    return signal_parts_of(found, content_type)[:MAX_AUTO]


def textual(raw: bytes) -> bytes:
    """What of ``raw`` may hold signals: binary regions (shown as one description line, never as
    text) left out, and the input cut at every multi-line secret value (a private key's body lines
    are hidden, not asked for)."""
    from operators import secrets
    from operators.safety import binary_regions

    raw = without(raw, binary_regions(raw), b"\n")
    if _hint_re().search(raw) is not None:  # secrets.MULTILINE_HINT in raw
        raw = secrets.split(raw)
    return raw


@cache
def _hint_re():
    """RE2 for exactly the bytes of ``secrets.MULTILINE_HINT`` (bytes as Latin-1: any input), made on
    first use: a literal found by RE2 costs a fraction of ``bytes.__contains__`` on a large input."""
    import re2

    from operators import secrets

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    return re2.compile(re.escape(secrets.MULTILINE_HINT), options)


def _has_terminal_controls(data: bytes) -> bool:
    return b"\x1b" in data or b"\r" in data or b"\x08" in data


def missing_signals(visible: bytes, expected: list[str], auto: list[bytes]) -> list[str]:
    """The expected signals (planted strings, automatic signal lines) that ``visible`` lacks.

    An auto signal line counts as kept when a visible line equals it (trailing whitespace aside) or,
    for the few shown with a suffix (``×N``), when it occurs in the visible text. Text with terminal
    controls is compared as a terminal displays it (``vocab.display_line``), line by line."""
    if _has_terminal_controls(visible) or _has_terminal_controls(b"".join(auto)):  # (single bytes: in a line or in them all)
        return _missing_as_displayed(visible, expected, auto)
    return _missing(visible, expected, auto)


def _missing(visible: bytes, expected: list[str], auto: list[bytes]) -> list[str]:
    missing = [s for s in expected if s.encode() not in visible]
    if auto:
        # a whole-line lookup first (visible lines read one at a time: no list of them all); a
        # substring search only for the few lines shown with a suffix
        wanted = set(auto)
        found = {stripped for stripped in map(bytes.rstrip, io.BytesIO(visible)) if stripped in wanted}
        rest = [s for s in auto if s not in found]
        inside = _inside(visible) if len(rest) > HEADS_MIN else visible.__contains__
        missing += [s.decode("utf-8", "replace") for s in rest if not inside(s)]
    return missing


HEADS_MIN, HEAD_LEN, HEADS_TEXT_MAX = 64, 8, 1 << 20


def _inside(visible: bytes):
    """``visible.__contains__`` for many lines, most of them not inside: a line's first, middle and
    last ``HEAD_LEN`` bytes looked up among every such run of ``visible`` first (a cut log's 10,000
    signal lines were as many searches of the whole output; a diff's changed lines often start alike:
    their heads alone let half of them through); a large text is searched as it is."""
    if len(visible) > HEADS_TEXT_MAX:
        return visible.__contains__
    heads = {visible[i : i + HEAD_LEN] for i in range(len(visible) - HEAD_LEN + 1)}
    return lambda line: (len(line) < HEAD_LEN or _runs_in(line, heads)) and line in visible


def _runs_in(line: bytes, heads: set) -> bool:
    """Whether the first, middle and last ``HEAD_LEN`` bytes of ``line`` (at least that long) are all
    in ``heads``: each run of a line inside the text is one of its runs."""
    middle = len(line) // 2 - HEAD_LEN // 2
    return line[:HEAD_LEN] in heads and line[-HEAD_LEN:] in heads and line[middle : middle + HEAD_LEN] in heads


def _missing_as_displayed(visible: bytes, expected: list[str], auto: list[bytes]) -> list[str]:
    """``_missing`` on the text as displayed, one visible line at a time: only a line holding a
    control byte is converted, and no displayed copy of the whole text is made."""
    needles = [s.encode() for s in expected]
    if any(b"\n" in needle for needle in needles):  # a planted string across lines: display the whole text
        shown_auto = [shown for shown in (display_line(s).rstrip() for s in auto) if shown]
        return _missing(display_text(visible), expected, shown_auto)
    shown_auto = [shown for shown in (display_line(line).rstrip() for line in auto) if shown]
    # as vocab.display_text: a text without ESC, CR or backspace is shown as it is; else each line
    # holding any control byte is converted
    has_control = CONTROL_RE.search if _has_terminal_controls(visible) else _never
    found, pending = _whole_lines_and_needles(visible, set(shown_auto), needles, has_control)
    missing = [s for s, n in zip(expected, needles) if n in pending]
    rest = dict.fromkeys(s for s in shown_auto if s not in found)  # shown with a suffix, or missing
    if rest:
        _drop_shown_inside_lines(visible, rest, has_control)
    return missing + [s.decode("utf-8", "replace") for s in shown_auto if s in rest]


def _whole_lines_and_needles(visible: bytes, wanted: set[bytes], needles: list[bytes],
                             has_control) -> tuple[set[bytes], dict[bytes, None]]:
    """One pass over the displayed lines: the ``wanted`` lines met whole (right spaces aside), and the
    ``needles`` met in no line (the planted strings still missing)."""
    found: set[bytes] = set()
    pending = dict.fromkeys(needles)  # planted strings not met yet
    for shown in _displayed_lines(visible, display_line, has_control):
        stripped = shown.rstrip()
        if stripped in wanted:
            found.add(stripped)
        if pending:
            for needle in [n for n in pending if n in shown]:
                del pending[needle]
    return found, pending


def _drop_shown_inside_lines(visible: bytes, rest: dict[bytes, None], has_control) -> None:
    """Removes from ``rest`` every line met inside a displayed line (shown with a suffix)."""
    for shown in _displayed_lines(visible, display_line, has_control):
        for s in [s for s in rest if s in shown]:
            del rest[s]
        if not rest:
            break


def _never(_data: bytes) -> bool:
    return False


def _displayed_lines(visible: bytes, display_line, has_control) -> Iterator[bytes]:
    """Each line of ``visible`` (without its ``\\n``) as a terminal shows it, one at a time; a line
    without a control byte is shown as it is."""
    for line in io.BytesIO(visible):
        body = line[:-1] if line.endswith(b"\n") else line
        yield display_line(body) if has_control(body) else body


# -- what a cut output says it left out (operators.ceiling writes these lines; SIGNAL reads them) ---------
# what varies between lines of one template (``NUMBERS_RE``) and a reducer's count (``COUNT_RE``): in vocab,
# whose patterns the kernel's twins may read
LEFT_RE = re.compile(rb"^\[([0-9,]+) more (?:signal template|must-see line)s?(?: \(([0-9,]+) lines\))? not shown")
FOLD_RE = re.compile(rb" \(\xc3\x97[0-9,]+ similar(?:, first [^)]*?)?(?:, last [^)]*)?\)$")  # times may hold commas
CUT_RE = re.compile(rb"^\[[0-9,]+ must-see lines? \(([0-9,]+) parts?\) shown cut: ")
PLACES_RE = re.compile(rb"\band ([0-9,]+) more places\b")  # a diagnostic's places past those listed
PARTIAL_END_RE = re.compile(rb"[0-9A-Za-z_]*$")  # the word a cut may have split, at a head's end
CUT_MIN = 80  # bytes a must-see line is shown of at least when it is cut (operators.ceiling's shortest line_max)


def template(line: bytes) -> bytes:
    """A signal line's template: numbers, timestamps and hex ids masked (users, hosts, paths and
    test names stay apart), a reducer's ``×N`` count at its end left out."""
    return templates([line])[0]


def templates(lines: list[bytes]) -> list[bytes]:
    """The templates of many lines in one pass over them joined (lines hold no newline): ``NUMBERS_RE``
    applied by the kernel (``mask_numbers``; its twin is the regex, whose lookbehinds ``re`` tries at every byte)."""
    if not lines:
        return []
    return list(map(bytes.rstrip, mask_numbers(COUNT_RE.sub(b"", b"\n".join(lines))).split(b"\n")))


def uncounted(missing: list[str], visible: bytes, planted: list[str] = (), kind: str = "",
              config=None, planted_strict: bool = True) -> list[str]:
    """The missing signals an output cut to its budget does not account for, read from the lines the
    cut added to the visible text (``FOLD_RE``, ``LEFT_RE``). Planted strings stay missing while
    ``planted_strict`` (they are promised at the default budget); under a smaller one they are
    accounted for as automatic ones. An automatic signal line is accounted for when a fold line counts
    its template (a type whose signals are lines; when must-see lines were shown cut, a fold line may be
    such a line's head: it counts the templates that start as its own, its last word left out), or
    when the must-see lines alone were more than the budget holds and the visible text says how many
    were left out (the first line's ``[N more … not shown``, a diagnostic's ``and N more places``; their
    bytes are in refs): then at most that many may be missing; so may the parts of the must-see lines
    shown cut (``CUT_RE``)."""
    from operators.safety import secret_parts

    lines_kind = signals_kind(kind, config) == "lines"
    wanted = set(planted)
    folded = set()
    heads: list[bytes] = []  # fold lines long enough to be a must-see line shown cut (its head, then its count)
    stated = 0
    cut_lines = False
    for line in visible.split(b"\n"):
        line = line.rstrip(b"\r")
        m = FOLD_RE.search(line) if lines_kind else None
        if m:
            folded.add(template(line[: m.start()]))
            folded.update(template(part) for part in secret_parts(line[: m.start()]))  # SIGNAL asks for these
            if m.start() >= CUT_MIN:
                heads.append(line[: m.start()])
        left = LEFT_RE.match(line)
        if left:
            stated += int((left.group(2) or left.group(1)).replace(b",", b""))
        cut = CUT_RE.match(line)
        if cut:  # a must-see line shown cut: each of its parts may be missing, the head shown in part too
            stated += int(cut.group(1).replace(b",", b""))
            cut_lines = True
        stated += sum(int(n.replace(b",", b"")) for n in PLACES_RE.findall(line))
    strict = wanted if planted_strict else set()
    # a fold line that is the head of a line shown cut counts the lines whose template starts as the head's
    # does (its last word, perhaps cut in the middle, left out)
    prefixes = tuple(template(PARTIAL_END_RE.sub(b"", head)) for head in heads) if cut_lines else ()

    def counted(s: str) -> bool:
        shape = template(s.encode("utf-8", "replace"))
        return shape in folded or bool(prefixes) and shape.startswith(prefixes)

    kept = [s for s in missing if s in strict or not (lines_kind and counted(s))]
    rest = [s for s in kept if s not in strict]
    if rest and len(rest) <= stated:
        return [s for s in kept if s in strict]
    return kept
