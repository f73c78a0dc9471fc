"""Tables and process lists (``ps aux``, ``docker ps``, ``df -h``, ``kubectl get``) and environments (``env``).

* A table is a header line of column names (``USER PID %CPU …``, ``Filesystem Size Used …``,
  ``CONTAINER ID   IMAGE …``) and rows of whitespace-separated cells. Up to ``fold_rows`` rows it
  passes through. A longer one keeps the header and every row; each column whose cell is the same in
  every row (``USER root``, ``TTY ?``) leaves every row and the header, its bytes (with the padding
  after it) go to one ref (group ``columns``), named in a note line that gives the dropped values.
  Lines that are not rows (an error of ``df``, a blank line) stay where they are.
* ``env`` / ``printenv`` / ``export -p`` output (``KEY=value`` lines): every line stays, except the
  value of a variable that looks like a secret — its name holds TOKEN, SECRET, PASSWORD, KEY, AUTH,
  CREDENTIAL …, or its value looks like a key (a JWT, a known token prefix, a long high-entropy
  string). Such a value is never printed in the visible text: it reads
  ``KEY=<hidden: N bytes, #ref:ctx_…>`` and its bytes are in the ref (group ``secrets``). This happens
  whatever the size of the output (``REDACTS``: the graph's short-input pass-through and its
  never-worse-than-raw fallback do not apply to a plan that hides secrets).

``SIGNALS`` is empty: a cell or a value that says "error" is data, not an event of the program.
"""

from __future__ import annotations

import re
from typing import Annotated

import msgspec

from operators.config import Section, section
from operators.reduction import Plan, passthrough
from operators.secrets import env_value_is_secret as looks_secret  # the one secret detector
from operators.types.gitlog import Line, split_lines
from operators.relazy import lazy  # patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first

NAME = "table"
SIGNALS = ""
REDACTS = True  # reduced at any size, and never shown raw when hiding a secret makes the text longer
FILL = True  # cut to a budget, every row is content: the head and tail fill what the ranked lines leave

COLUMNS, COLUMNS_REASON = "columns", "table columns with one value in every row"
SECRETS, SECRETS_REASON = "secrets", "values of variables that look like secrets"


class Settings(Section):
    fold_rows: Annotated[int, msgspec.Meta(ge=0)] = 40  # tables with up to this many rows pass through


# -- env ------------------------------------------------------------------------------------------
ENV_RE = lazy(rb"(?:declare -x |export )?([A-Za-z_][A-Za-z0-9_]*)=")


PAIR_RE = lazy(rb" [A-Za-z_][\w.-]*=")  # a key=value pair after a space: logfmt's records hold several


def _is_env(lines: list[bytes]) -> bool:
    """Nine lines in ten ``KEY=value``, and not logfmt records (``time=… level=info msg="…" path=/x``: a
    log, half of its lines holding two pairs or more after the first)."""
    if len(lines) < 3:
        return False
    hits = sum(1 for line in lines if ENV_RE.match(line))
    if hits < 0.9 * len(lines):
        return False
    return sum(1 for line in lines if len(PAIR_RE.findall(line)) >= 2) < 0.5 * len(lines)


def reduce_env(raw: bytes, lines: list[Line]) -> Plan:
    plan = Plan(raw)
    for line in lines:
        m = ENV_RE.match(raw, line.start, line.body_end)
        if m is None:
            continue
        name, at = m.group(1), m.end()
        value = raw[at : line.body_end]
        if not looks_secret(name, value):
            continue
        plan.keep(plan.position, at)
        plan.omit(at, line.body_end, SECRETS, SECRETS_REASON)
        plan.show(f"<hidden: {line.body_end - at} bytes, ".encode())
        plan.mark(SECRETS)
        plan.show(b">")
    plan.keep_rest()
    return plan.finish()


# -- tables ---------------------------------------------------------------------------------------
HEADER_WORD_RE = lazy(rb"%?[A-Z][A-Z0-9%_/()-]*[A-Z0-9%)]?|[A-Z][a-z]+(?:[- ][a-z]+)?|%[A-Za-z]+|[A-Z]")
KNOWN_HEADER_RE = lazy(
    rb"^\s*(?:USER +PID|UID +PID|PID +|F +S +UID|Filesystem +(?:Size|1K-blocks|Type|Inodes|1M-blocks)|CONTAINER ID +"
    rb"|REPOSITORY +TAG|NAME +(?:READY|STATUS|TYPE|IMAGE|ID|STATE|NAMESPACE|CPU)|NAMESPACE +NAME|IMAGE +|ID +NAME"
    rb"|COMMAND +PID|Proto +Recv-Q|Netid +State|State +Recv-Q|NAME +MAJ:MIN|Name +Version)"
)
TIMESTAMP_RE = lazy(rb"^\s*(?:\[?\d{4}-\d\d-\d\d[T ]\d|\d\d:\d\d:\d\d|[A-Z][a-z]{2} +\d+ \d\d:)")


MULTIWORD_RE = lazy(rb"CONTAINER ID|IMAGE ID|LAST SEEN|NOMINATED NODE|READINESS GATES|CREATED AT|NETWORK ID")


def _splitter(header: bytes) -> re.Pattern:
    """Cells are split on runs of 2+ spaces when a column name holds a space (``CONTAINER ID``: docker
    and kubectl pad columns with 3 spaces, and their cells hold single spaces), else on any space."""
    return re.compile(rb"\s{2,}" if MULTIWORD_RE.search(header) else rb"\s+")


def _ncols(header: bytes, splitter: re.Pattern) -> int:
    n = len(cells(header, splitter, 99))
    return n - 1 if header.rstrip().endswith(b"Mounted on") and splitter.pattern == rb"\s+" else n  # df


def cells(line: bytes, splitter: re.Pattern, n: int) -> list[tuple[int, int]]:
    """Spans of up to ``n`` cells of a row (the last cell takes the rest of the line)."""
    spans = []
    pos = len(line) - len(line.lstrip())
    while pos < len(line) and len(spans) < n - 1:
        m = splitter.search(line, pos)
        if m is None:
            break
        spans.append((pos, m.start()))
        pos = m.end()
    if pos < len(line):
        spans.append((pos, len(line.rstrip())))
    return spans


def _header_ok(header: bytes) -> bool:
    if KNOWN_HEADER_RE.match(header):
        return True
    words = header.split()
    if len(words) < 3 or TIMESTAMP_RE.match(header):
        return False
    upper = sum(1 for w in words if HEADER_WORD_RE.fullmatch(w) and w.upper() == w)
    return upper >= 0.8 * len(words) and len(words) <= 20


def table_shape(lines: list[bytes]) -> tuple[int, re.Pattern, int] | None:
    """(header index, splitter, columns) when the lines are a table, else None."""
    if len(lines) < 2:
        return None
    header = lines[0]
    if not _header_ok(header):
        return None
    splitter = _splitter(header)
    ncols = _ncols(header, splitter)
    rows = lines[1:]
    fitting = sum(1 for row in rows if len(cells(row, splitter, ncols)) >= max(2, ncols - 2) and not TIMESTAMP_RE.match(row))
    if ncols < 2 or fitting < 0.8 * len(rows):
        return None
    return 0, splitter, ncols


def reduce_table(raw: bytes, lines: list[Line], settings: Settings) -> Plan:
    nonblank = [ln for ln in lines if ln.body_end > ln.start]
    bodies = [raw[ln.start : ln.body_end] for ln in nonblank]
    shape = table_shape(bodies)
    if shape is None or len(bodies) - 1 <= settings.fold_rows:
        return passthrough(raw)
    _, splitter, ncols = shape
    rows = [(ln, cells(body, splitter, ncols)) for ln, body in zip(nonblank, bodies)]
    full = [(ln, spans) for ln, spans in rows if len(spans) == ncols]
    header_ln, header_spans = rows[0]
    if len(header_spans) != ncols or len(full) < 0.8 * len(rows):
        return passthrough(raw)
    data = full[1:]
    uniform = [c for c in range(ncols - 1)
               if len({raw[ln.start + s[c][0] : ln.start + s[c][1]] for ln, s in data}) == 1]
    if not uniform:
        return passthrough(raw)
    cut_rows = {ln.start: spans for ln, spans in full}
    plan = Plan(raw)
    for ln in lines:
        spans = cut_rows.get(ln.start)
        if spans is None:
            continue
        for c in uniform:  # a cell and the padding after it
            a, b = ln.start + spans[c][0], ln.start + spans[c + 1][0]
            plan.keep(plan.position, a)
            plan.omit(a, b, COLUMNS, COLUMNS_REASON)
    plan.keep_rest()
    first = data[0]
    names = ", ".join(
        f"{raw[header_ln.start + header_spans[c][0] : header_ln.start + header_spans[c][1]].decode('utf-8', 'replace')}="
        f"{raw[first[0].start + first[1][c][0] : first[0].start + first[1][c][1]].decode('utf-8', 'replace')}"
        for c in uniform
    )
    plan.show((b"" if plan.ends_line() else b"\n")
              + f"[table: {len(data):,} rows; columns with one value in every row left out ({names}); exact lines: ".encode())
    plan.mark(COLUMNS)
    plan.show(b"]\n")
    return plan.finish()


# -- the content type -----------------------------------------------------------------------------


def reduce(raw: bytes, granularity: str, config) -> Plan:
    lines = split_lines(raw)
    bodies = [raw[ln.start : ln.body_end] for ln in lines if ln.body_end > ln.start]
    if _is_env(bodies[:400]):
        return reduce_env(raw, lines)
    return reduce_table(raw, lines, section(config, NAME))


def detect(sample) -> str | None:
    if not maybe.table(sample):
        return None  # no first line a header can be, too few KEY=value lines
    lines = [line.rstrip(b"\r") for line in sample.lines[:400]]
    if _is_env(lines):
        return f"{len(lines)} KEY=value lines (environment)"
    if len(lines) >= 3 and table_shape(lines) is not None:
        return f"a header of column names and {len(lines) - 1} rows"
    return None


def facts(packet):
    from operators.types import Facts

    raw = packet.raw
    bodies = [raw[ln.start : ln.body_end] for ln in split_lines(raw) if ln.body_end > ln.start]
    if _is_env(bodies[:400]):
        hidden = sum(1 for b in bodies if (m := ENV_RE.match(b)) and looks_secret(m.group(1), b[m.end() :]))
        return Facts(f"{len(bodies):,} variables, {hidden:,} secret-looking values hidden", [], 0, "env")
    header = bodies[0].decode("utf-8", "replace").strip() if bodies else ""
    return Facts(f"{max(0, len(bodies) - 1):,} rows", [header[:150]] if header else [], 1 if header else 0)


def tier(text: bytes, shown: bytes, config):
    """Pack tiers: the header and the fold note are signal, rows context."""
    if shown.startswith(b"[table: ") or KNOWN_HEADER_RE.match(shown):
        return 0, 0
    return None
