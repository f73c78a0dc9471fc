"""The diagnostics type (operators/types/diagnostics.py): detection with near misses, every location and
rule code kept, folding by rule, fitting under the output ceiling on real outputs; exact restore."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from conftest import FIXTURES, cut, fixture_bytes, planted, reduce_alone, reduce_bytes, tokens_cli, type_data
from operators.ceiling import CeilingSettings, visible_size
from operators.classify import classify
from operators.types import diagnostics

DIAG_FIXTURES = ["ruff.txt", "mypy.txt", "tsc.txt", "eslint.txt", "gcc_warnings.txt", "clippy.txt",
                 "pylint_parseable.txt", "tsc_pretty.txt", "pyright.txt", "rustc_errors.txt"]


def reduced(module, raw: bytes, settings=None) -> tuple[bytes, dict, object]:
    """Reduce with one type directly; check the plan restores the original and return visible and refs."""
    config = type("C", (), {module.NAME: settings})() if settings is not None else None
    alone = reduce_alone(module, raw, config, named=True)
    return alone.visible, alone.by_id(), alone.plan


@pytest.mark.parametrize("name", DIAG_FIXTURES)
def test_diagnostic_fixtures_are_diagnostics(name):
    assert classify((FIXTURES / name).read_bytes())[0] == "diagnostics"


def test_a_build_log_with_make_and_compile_lines_stays_build_its_diagnostics_alone_are_diagnostics():
    raw = (FIXTURES / "gcc_errors.txt").read_bytes()
    assert classify(raw)[0] == "build"
    # the same compiler's lines without the build around them (what gcc -fsyntax-only prints)
    keep = re.compile(rb"^(?:\S+\.c:\d+:\d+: |\S+\.c: In function|\s+\d+ \||\s+\|)")
    only = b"".join(line for line in raw.splitlines(keepends=True) if keep.match(line))
    assert only.count(b": error: ") + only.count(b": warning: ") >= 2
    assert classify(only)[0] == "diagnostics"


def test_grep_hits_inside_diagnostics_need_a_rule_or_severity():
    """path:line:col followed by plain text is a search hit, not a diagnostic."""
    raw = b"".join(b"src/a.py:%d:    value = compute(%d)\n" % (i * 3 + 1, i) for i in range(20))
    assert classify(raw)[0] == "search"
    assert diagnostics.parse(raw).diags == []


# -- must-see strings, restore, savings -----------------------------------------------------------
@pytest.mark.parametrize("name", DIAG_FIXTURES)
def test_fixture_keeps_its_planted_signals_and_restores(name):
    raw = fixture_bytes(name)
    visible, _, _ = reduced(diagnostics, raw)
    assert [s for s in planted(name) if s.encode() not in visible] == []
    # diagnostics without snippets under the output ceiling are best as they are
    assert len(visible) < len(raw) or visible == raw and len(raw) < 22_500


def test_diagnostics_fold_by_rule_keeps_every_location_and_code():
    raw = (FIXTURES / "tsc.txt").read_bytes()
    visible, refs, _ = reduced(diagnostics, raw)
    locations = re.findall(rb"^(\S+\(\d+,\d+\)): error (TS\d+)", raw, re.M)
    assert len(locations) > 400
    unseen = Counter()  # a place is listed as tsc prints it, one a line, or counted on its rule's last line
    for loc, code in locations:
        if not re.search(rb"^%s: error %s(?::|$)" % (re.escape(loc), code), visible, re.M):
            unseen[code] += 1
    assert sum(unseen.values()) < len(locations) / 2
    for code, n in unseen.items():
        assert b"[\xe2\x80\xa6 and %d more places of %s]" % (n, code) in visible, code
    # a folded rule: its line names the count, and its ref holds exactly the folded lines of that rule
    m = re.search(rb"^\[TS7006 \xc3\x97(\d+) more \(.*?, exact lines: #ref:(ctx_\w+)\]$", visible, re.M)
    assert m
    folded = bytes(refs[m.group(2).decode()])
    verbatim = visible.count(b"error TS7006: ")  # the examples, message and all
    assert 1 <= verbatim <= 2
    assert folded.count(b"error TS7006") == int(m.group(1)) == raw.count(b"error TS7006") - verbatim
    summary = visible.split(b"\n", 1)[0]
    assert summary.startswith(b"[446 diagnostics (error 446) in 20 files; by rule: TS7006 \xc3\x97224")


def test_diagnostics_under_budget_keep_every_line_and_fold_snippets():
    raw = (FIXTURES / "ruff.txt").read_bytes()
    visible, refs, _ = reduced(diagnostics, raw)
    heads = re.findall(rb"^[A-Z]+\d+ .*$|^\s*--> .*$", raw, re.M)
    assert len(heads) == 62
    for line in heads:
        assert line in visible
    assert b" | " not in visible  # source snippets folded ...
    [details] = refs.values()
    assert bytes(details).count(b"^") >= 31  # ... with their carets, into one ref
    assert b"Found 31 errors." in visible


def test_eslint_stylish_and_gcc_locations_survive_folding():
    raw = (FIXTURES / "eslint.txt").read_bytes()
    visible, _, _ = reduced(diagnostics, raw)
    path = None
    for line in raw.decode().splitlines():
        if line.startswith("/"):
            path = line
        elif m := re.match(r"^\s+(\d+:\d+)\s+(?:error|warning)\s+.*\s(\S+)$", line):
            assert m.group(1).encode() in visible and m.group(2).encode() in visible
    assert path and path.encode() in visible
    raw = (FIXTURES / "gcc_warnings.txt").read_bytes()
    visible, _, _ = reduced(diagnostics, raw)
    for loc, flag in re.findall(rb"^(kilo\.c:\d+:\d+): \w+: .*?(?:\[(-W[\w-]+)\])?$", raw, re.M):
        assert loc in visible and flag in visible


def test_diagnostics_odd_bytes_crlf_and_no_final_newline():
    raw = b"".join(b"src/\xff%d.py:%d:1: F401 `os` imported but unused\r\n" % (i % 3, i + 1) for i in range(60))
    raw += b"src/a.py:9:1: E999 SyntaxError: bad \xe9 input"
    assert classify(raw)[0] == "diagnostics"
    visible, _, _ = reduced(diagnostics, raw, diagnostics.Settings(max_shown=10, examples=1))
    for i in range(60):
        assert b"src/\xff%d.py:%d:1" % (i % 3, i + 1) in visible
    assert raw.rsplit(b"\n", 1)[1] in visible  # the last line, kept verbatim


# -- through the product --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["grep_rn_rare.txt", "mypy.txt", "clippy.txt"])
def test_through_the_graph_signal_recovery_restore(name):
    raw = (FIXTURES / name).read_bytes()
    packet = reduce_bytes(raw, source=f"fixtures/{name}", expected_signals=planted(name))
    assert packet.type in ("search", "diagnostics")
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    for ref in packet.references:
        assert f"#ref:{ref.id}".encode() in packet.visible


def test_tokens_analyze_and_expand_full_restore_byte_exact(tmp_path):
    env = {"NOLIFE_TOKENS_HOME": str(tmp_path / "home")}
    for name in ("rg_common.txt", "clippy.txt"):  # (eslint.txt's lines fit the ceiling: shown as they are)
        result = tokens_cli("analyze", "--trace", str(FIXTURES / name), env=env)
        assert result.returncode == 0, result.stderr
        assert len(result.stdout) < len((FIXTURES / name).read_bytes()) and b"#ref:ctx_" in result.stdout
        out = tmp_path / (name + ".reduced")
        out.write_bytes(result.stdout)
        full = tokens_cli("expand", "--full", str(out), env=env)
        assert full.returncode == 0, full.stderr
        assert full.stdout == (FIXTURES / name).read_bytes()
        ref = re.search(rb"#ref:(ctx_\w+)", result.stdout).group(1).decode()
        shown = tokens_cli("expand", ref, env=env)
        assert shown.returncode == 0 and shown.stdout and shown.stdout in (FIXTURES / name).read_bytes() or \
            all(line in (FIXTURES / name).read_bytes() for line in shown.stdout.splitlines())


# -- more formats (real outputs of ruff and pylint on tqdm) ----------------------------------------
RUFF_GROUPED = b"""tqdm/_utils.py:
  7:89 E501 Line too long (93 > 88)

tqdm/asyncio.py:
  49:13 B904 Within an `except` clause, raise exceptions with `raise ... from err` or `raise ... from None` to distinguish them from errors in exception handling
  71:89 E501 Line too long (92 > 88)

tqdm/cli.py:
  231:17 B904 Within an `except` clause, raise exceptions with `raise ... from err` or `raise ... from None` to distinguish them from errors in exception handling

tqdm/contrib/concurrent.py:
  51:89 E501 Line too long (90 > 88)
"""
RUFF_GROUPED_PADDED = b"""more_itertools/recipes.py:
     7:89  E501 Line too long (93 > 88)
    49:13  B904 Within an `except` clause, raise exceptions with `raise ... from err` or `raise ... from None` to distinguish them from errors in exception handling
    71:89  E501 Line too long (92 > 88)
   231:17  B904 Within an `except` clause, raise exceptions with `raise ... from err` or `raise ... from None` to distinguish them from errors in exception handling
    51:89  E501 Line too long (90 > 88)
"""  # recent ruff: line numbers right-aligned, two spaces before the code
RUFF_PARSEABLE = b"""tqdm/_utils.py:7: [E501] Line too long (93 > 88)
tqdm/asyncio.py:49: [B904] Within an `except` clause, raise exceptions with `raise ... from err` or `raise ... from None` to distinguish them from errors in exception handling
tqdm/asyncio.py:71: [E501] Line too long (92 > 88)
tqdm/cli.py:231: [B904] Within an `except` clause, raise exceptions with `raise ... from err` or `raise ... from None` to distinguish them from errors in exception handling
"""


def test_ruff_grouped_and_parseable_formats_are_diagnostics_and_pass_through_when_small():
    for raw, locations in ((RUFF_GROUPED, [b"7:89", b"49:13", b"71:89", b"231:17", b"51:89"]),
                           (RUFF_GROUPED_PADDED, [b"7:89", b"49:13", b"71:89", b"231:17", b"51:89"]),
                           (RUFF_PARSEABLE, [b"tqdm/_utils.py:7", b"tqdm/asyncio.py:49", b"tqdm/cli.py:231"])):
        assert classify(raw)[0] == "diagnostics"
        parsed = diagnostics.parse(raw).diags
        assert [d.key for d in parsed][:2] == ["E501", "B904"]
        assert all(any(loc in d.loc for d in parsed) for loc in locations)
        plan = diagnostics.reduce(raw, "coarse", None)
        assert not plan.omits_anything  # nothing worth folding: no summary, no marker, the text as it is


def test_pylint_parseable_fixture_keeps_every_location_and_code():
    raw = (FIXTURES / "pylint_parseable.txt").read_bytes()
    assert classify(raw)[0] == "diagnostics"
    visible, _, _ = reduced(diagnostics, raw)
    assert visible == raw  # under the output ceiling every line stays as pylint printed it
    visible, _, _ = reduced(diagnostics, raw, diagnostics.Settings(max_shown=20))  # past it, rules fold
    for loc, code in re.findall(rb"^(tqdm/std\.py:\d+): \[([A-Z]\d{4})\(", raw, re.M):
        assert re.search(re.escape(loc) + rb"\b", visible) and code in visible
    assert b"Your code has been rated at 8.85/10" in visible
    assert len(visible) < 0.8 * len(raw)


def test_pack_ranks_file_headers_and_diagnostics_first():
    from operators.pack import pack

    packets = [reduce_bytes((FIXTURES / name).read_bytes(), source=name) for name in ("rg_common.txt", "tsc.txt")]
    text, _ = pack(packets, 700)
    search_part = text.split(b"=== rg_common.txt", 1)[1]
    shown = [line for line in search_part.split(b"\n")[1:] if line and not line.startswith((b"[", b"==="))]
    assert shown and all(not re.match(rb"^\d+[:-]", line) for line in shown)  # file names before any hit
    assert b"[446 diagnostics (error 446) in 20 files" in text


def test_coloured_tsc_pretty_output_shows_plain_locations_and_restores():
    raw = (FIXTURES / "tsc_pretty.txt").read_bytes()
    assert b"\x1b[" in raw
    assert classify(raw)[0] == "diagnostics"
    visible, refs, _ = reduced(diagnostics, raw)
    assert b"\x1b" not in visible
    plain = re.sub(rb"\x1b\[[0-9;]*m", b"", raw)
    for loc, code in re.findall(rb"^(\S+:\d+:\d+) - error (TS\d+):", plain, re.M):
        assert loc + b" - error " + code in visible
    assert b"~~~" not in visible  # the snippets and their carets are behind the details ref
    assert any(b"\x1b[" in bytes(content) for content in refs.values())


def test_cargo_progress_around_clippy_output_stays_diagnostics():
    raw = (FIXTURES / "clippy.txt").read_bytes()
    wrapped = (b"    Checking itoa v1.0.18 (/src/itoa)\n" + raw.replace(b"warning: 95 warnings emitted",
               b"warning: `itoa` (lib) generated 95 warnings") + b"    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.61s\n")
    assert classify(wrapped)[0] == "diagnostics"
    visible, _, _ = reduced(diagnostics, wrapped)
    assert b"Checking itoa v1.0.18" in visible and b"generated 95 warnings" in visible and b"Finished `dev`" in visible


def test_pyright_rule_codes_on_continuation_lines_count_and_stay_visible():
    """pyright indents a message's elaboration with no-break spaces and ends it with the rule."""
    raw = (FIXTURES / "pyright.txt").read_bytes()
    visible, _, _ = reduced(diagnostics, raw)
    codes = set(re.findall(rb"\((report\w+)\)$", raw, re.M))
    assert len(codes) >= 10
    for code in codes:
        assert code in visible
    for loc in re.findall(rb"^  (/\S+:\d+:\d+) - ", raw, re.M):
        assert loc in visible
    summary = visible.split(b"\n", 1)[0]
    assert b"by rule: reportArgumentType \xc3\x97113" in summary


def test_rustc_errors_keep_code_header_and_arrow_fold_the_snippets():
    raw = (FIXTURES / "rustc_errors.txt").read_bytes()
    visible, refs, _ = reduced(diagnostics, raw)
    heads = re.findall(rb"^error\[E\d+\]: .*\n +--> .*$", raw, re.M)
    assert len(heads) == 12
    for head in heads:
        assert head in visible  # the header and its --> line, together and verbatim
    assert b"= help:" not in visible and b"^^^^" not in visible
    assert visible.startswith(b"[12 diagnostics (error 12) in 1 file; by rule: E0599 \xc3\x9710, E0432 \xc3\x971, E0433 \xc3\x971]")


def test_npm_run_lint_wrapper_lines_do_not_make_a_linter_output_a_build():
    raw = (b"\n> debug@4.4.3 lint\n> eslint src test.js\n\n" + (FIXTURES / "eslint.txt").read_bytes()
           + b"npm error Lifecycle script `lint` failed with error:\nnpm error code 1\n"
             b"npm error command failed\nnpm error command sh -c eslint src test.js\n")
    assert classify(raw)[0] == "diagnostics"
    visible, _, _ = reduced(diagnostics, raw)
    assert b"npm error code 1" in visible and b"> eslint src test.js" in visible


def test_go_compiler_and_linter_lines_are_diagnostics_vimgrep_hits_are_not():
    go_build = (b"# example.com/app\n./main.go:12:2: undefined: foo\n"
                b"./main.go:15:9: cannot use x (variable of type int) as string value in return statement\n"
                b"./server/http.go:51:3: declared and not used: n\n")
    assert classify(go_build)[0] == "diagnostics"
    lint = (b"main.go:12:2: Error return value of `f.Close` is not checked (errcheck)\n"
            b"main.go:20:5: SA4006: this value of err is never used (staticcheck)\n")
    assert [d.key for d in diagnostics.parse(lint).diags] == ["errcheck", "SA4006"]
    vimgrep = b"".join(b"main.go:%d:5:\tx := compute(%d)\n" % (i * 2 + 1, i) for i in range(20))
    assert classify(vimgrep)[0] == "search"


def test_cargo_build_progress_folds_and_the_errors_stay():
    raw = (FIXTURES / "rustc_errors.txt").read_bytes()
    progress = b"".join(b"   Compiling dep%d v1.0.%d\n" % (i, i) for i in range(60))
    wrapped = progress + raw
    assert classify(wrapped)[0] == "diagnostics"
    visible, refs, _ = reduced(diagnostics, wrapped)
    assert b"Compiling dep" not in visible
    m = re.search(rb"\[60 cargo progress lines folded: #ref:(ctx_\w+)\]", visible)
    assert m and bytes(refs[m.group(1).decode()]) == progress
    for head in re.findall(rb"^error\[E\d+\]: .*\n +--> .*$", raw, re.M):
        assert head in visible


YAMLLINT = b"""./.pre-commit-config.yaml
  1:1       warning  missing document start "---"  (document-start)
  4:1       error    wrong indentation: expected 2 but found 0  (indentation)
  7:3       error    wrong indentation: expected 4 but found 2  (indentation)

./environment.yml
  1:1       warning  missing document start "---"  (document-start)
  4:1       error    wrong indentation: expected 2 but found 0  (indentation)
"""


def test_yamllint_entries_take_their_rule_from_the_parentheses():
    parsed = diagnostics.parse(YAMLLINT).diags
    assert [d.key for d in parsed] == ["document-start", "indentation", "indentation", "document-start", "indentation"]
    assert parsed[3].loc == b"./environment.yml:1:1"




def config(max_chars: int = 25_000, **settings):
    return type("C", (), {"diagnostics": diagnostics.Settings(**settings),
                          "ceiling": CeilingSettings(max_chars=max_chars)})()


def reduced_fit(raw: bytes, conf=None):
    alone = reduce_alone(diagnostics, raw, conf or config())
    return alone.plan, alone.visible, alone.by_id()


@pytest.mark.parametrize("max_chars", [9_500, 15_000])
def test_a_folded_rule_whose_messages_differ_shows_lines_spread_over_it(max_chars):
    """mypy names the function in each ``Call to untyped function "x" in typed context``: a list of
    places would drop the names. Past the room such a rule shows lines as printed, evenly spaced over
    the whole rule (not only its first ones); the places not shown are listed or counted, and the
    rule's ref holds exactly the lines not shown."""
    raw = type_data("mypy_strict_radon.txt")
    calls = re.findall(rb"^\S+:\d+: error: Call to untyped function .*\[no-untyped-call\]$", raw, re.M)
    assert len(calls) == 149 and len(set(c.split(b": error: ")[1] for c in calls)) == 67
    plan, visible, refs = reduced_fit(raw, config(max_chars=max_chars))
    assert visible_size(plan) <= max_chars
    shown = [i for i, line in enumerate(calls) if line in visible.split(b"\n")]
    assert len(shown) >= max_chars // 1000  # many lines, ...
    assert shown[-1] >= len(calls) * 3 // 4 and any(len(calls) // 4 <= i <= len(calls) * 3 // 4 for i in shown)  # ... spread
    m = re.search(rb"^\[no-untyped-call \xc3\x97(\d+) more \(.*; exact lines: #ref:(ctx_\w+)\]$", visible, re.M)
    assert m
    folded = refs[m.group(2).decode()]
    assert folded.count(b"[no-untyped-call]") == int(m.group(1)) == len(calls) - len(shown)
    assert b"Found 298 errors in 11 files (checked 12 source files)" in visible


def test_a_folded_rule_whose_messages_are_the_same_lists_places_not_lines():
    raw = type_data("mypy_strict_typer_tests.txt")  # 58 of 63 no-untyped-def: one message
    plan, visible, _ = reduced_fit(raw, config(max_chars=6_000))
    shown = re.findall(rb"^\S+:\d+: error: Function is missing a return type annotation  \[no-untyped-def\]$", visible, re.M)
    assert len(shown) <= 2  # the examples: the rest are places


def test_mypy_strict_keeps_every_error_line_as_printed_and_folds_the_notes():
    raw = type_data("mypy_strict_typer_tests.txt")
    assert classify(raw)[0] == "diagnostics"
    errors = re.findall(rb"^\S+:\d+: error: .*$", raw, re.M)
    notes = re.findall(rb"^\S+:\d+: note: .*$", raw, re.M)
    assert len(errors) == 129 and len(notes) >= 50
    # the same message at many places: each place keeps its whole line
    assert raw.count(b": error: Function is missing a return type annotation  [no-untyped-def]") == 58
    _, visible, refs = reduced_fit(raw)
    shown = visible.split(b"\n")
    assert [e for e in errors if e not in shown] == []
    assert b": note: " not in visible
    assert sum(r.count(b": note: ") for r in refs.values()) == len(notes)
    assert b"Found 129 errors in 17 files (checked 7 source files)" in visible


def test_javac_keeps_the_error_its_source_line_and_symbol_and_location_lines():
    raw = type_data("javac_gson_stream_fail.txt")
    assert classify(raw)[0] == "diagnostics"
    _, visible, refs = reduced_fit(raw, config(max_chars=40_000))  # (25 KB: under this ceiling)
    shown = visible.split(b"\n")
    heads = re.findall(rb"^\S+\.java:\d+: (?:error|warning): .*$", raw, re.M)
    assert len(heads) == 100
    assert [h for h in heads if h not in shown] == []
    for kind in (b"symbol:", b"location:"):
        lines = re.findall(rb"^  " + kind + rb" .*$", raw, re.M)
        assert lines and [x for x in lines if x not in shown] == []
    assert b"import com.google.gson.internal.JsonReaderInternalAccess;" in shown  # the source line
    carets = re.findall(rb"^ *\^$", raw, re.M)
    assert len(carets) >= 90 and not re.search(rb"^ *\^$", visible, re.M)  # carets fold ...
    assert sum(len(re.findall(rb"^ *\^$", r, re.M)) for r in refs.values()) == len(carets)  # ... into a ref
    assert b"only showing the first 100 errors, of 307 total" in visible


def test_javac_closing_count_of_warnings_stays():
    """javac ends with ``19 warnings`` after the last warning's caret: a summary line, not that
    warning's snippet (it was folded with the carets)."""
    raw = type_data("javac_xlint_serial_jsoup.txt")
    assert raw.endswith(b"\n19 warnings\n") and classify(raw)[0] == "diagnostics"
    _, visible, _ = reduced_fit(raw, config())
    assert b"\n19 warnings\n" in visible


@pytest.mark.parametrize("unicode", [False, True])
def test_oxlint_reports_are_diagnostics_each_with_its_rule_and_location(unicode):
    """miette's report (oxlint): a ``x rule: message`` head, its ``,-[path:line:col]`` line, a numbered
    snippet; in a terminal drawn with ``×`` and ``╭─[``."""
    raw = type_data("oxlint_datefns_head.txt")
    if unicode:
        raw = re.sub(rb"(?m)^(\s*)x ", "\\1\u00d7 ".encode(), raw)
        raw = re.sub(rb"(?m)^(\s*),-\[", "\\1\u256d\u2500[".encode(), raw)
    heads = re.findall(rb"(?m)^\s*(?:x|\xc3\x97) (eslint\([\w-]+\)): .*\n\s*(?:,-|\xe2\x95\xad\xe2\x94\x80)\[([^\]]+)\]", raw)
    assert len(heads) >= 10 and classify(raw)[0] == "diagnostics"
    parsed = diagnostics.parse(raw).diags
    assert [(d.key.encode(), d.loc) for d in parsed] == heads
    _, visible, refs = reduced_fit(raw, config(max_chars=2_500))  # a room that folds
    for rule in {h[0] for h in heads}:
        assert rule in visible
    assert b"Found 0 warnings and 228 errors." in visible and b" | " not in visible  # snippets folded ...
    assert any(b"45 |   const date_ = toDate(date, options?.in);" in r for r in refs.values())  # ... into a ref


def test_oxlint_help_lines_stay_once_each_with_the_snippets_folded():
    raw = type_data("oxlint_datefns_head.txt")
    helps = set(re.findall(rb"(?m)^  help: .*$", raw))
    assert len(helps) >= 3
    _, visible, _ = reduced_fit(raw, config(max_chars=25_000))
    assert b" | " not in visible  # the snippets fold ...
    assert [h for h in helps if h not in visible.split(b"\n")] == []  # ... each advice stays
    assert all(visible.count(h + b"\n") == 1 for h in helps)  # once


def test_ruff_over_the_ceiling_fits_itself_and_each_rule_keeps_its_first_line():
    raw = type_data("ruff_all_concise_typer.txt.gz")
    lines = re.findall(rb"^(\S+:\d+:\d+): ([A-Z]+\d+) .*$", raw, re.M)
    assert len(lines) == 564 and len(raw) > 40_000
    conf = config()
    plan, visible, refs = reduced_fit(raw, conf)
    assert visible_size(plan) <= 25_000 * conf.diagnostics.room_share
    shown = set(visible.split(b"\n"))
    first: dict[bytes, bytes] = {}
    for line in raw.split(b"\n"):
        m = re.match(rb"^\S+:\d+:\d+: ([A-Z]+\d+) ", line)
        if m:
            first.setdefault(m.group(1), line)
    assert [line for line in first.values() if line not in shown] == []
    # a folded rule names its count, and its ref holds exactly its other lines
    m = re.search(rb"^\[(\w+) \xc3\x97(\d+) more \(.*; exact lines: #ref:(ctx_\w+)\]$", visible, re.M)
    assert m and refs[m.group(3).decode()].count(b": " + m.group(1) + b" ") == int(m.group(2))
    assert b"Found 564 errors." in visible


def test_ruff_under_a_larger_ceiling_shows_every_line_as_printed():
    raw = type_data("ruff_all_concise_typer.txt.gz")
    plan, visible, _ = reduced_fit(raw, config(max_chars=60_000))
    assert visible == raw and not plan.omits_anything


def test_locations_of_a_folded_rule_are_spread_over_the_rule():
    raw = type_data("ruff_all_concise_typer.txt.gz")
    plan, visible, _ = reduced_fit(raw, config(max_chars=20_000))
    assert visible_size(plan) <= 18_000
    m = re.search(rb"^\[COM812 \xc3\x97(\d+) more \(.*?\): (.*?) and ([\d,]+) more places; exact", visible, re.M)
    assert m, visible[:2000]
    listed = m.group(2).split(b" ")
    assert len(listed) >= 3
    places = re.findall(rb"^(\S+:\d+:\d+): COM812 ", raw, re.M)
    assert len(listed) + int(m.group(3).replace(b",", b"")) == int(m.group(1)) == len(places) - 1
    assert listed[-1] == places[-1]  # the last place of the rule is listed, not only the first ones


def test_javac_over_the_ceiling_folds_its_most_frequent_message_and_keeps_the_others():
    raw = type_data("javac_gson_stream_fail.txt")
    plan, visible, _ = reduced_fit(raw, config(max_chars=20_000))
    assert visible_size(plan) <= 18_000
    shown = visible.split(b"\n")
    heads = re.findall(rb"^\S+\.java:\d+: (?:error|warning): (.*)$", raw, re.M)
    for message in set(heads):  # each distinct message keeps a line as printed
        assert any(line.endswith(b": " + message) for line in shown), message
    assert re.search(rb"^\[error: cannot find symbol \(class TypeAdapter\) \xc3\x97\d+ more ", visible, re.M)


def test_javac_lines_after_the_caret_are_the_rest_of_the_message():
    """javac prints part of a warning after its caret line, indented by two (``missing type arguments
    for generic class List<E>``); those lines stay with the warning, the carets fold."""
    raw = type_data("javac_xlint_rawtypes.txt")
    assert classify(raw)[0] == "diagnostics"
    _, visible, refs = reduced_fit(raw)
    shown = visible.split(b"\n")
    more = re.findall(rb"^  (?:missing type arguments|where) .*$", raw, re.M)
    assert len(more) == 13
    assert [line for line in more if line not in shown] == []
    carets = re.findall(rb"^ *\^$", raw, re.M)
    assert len(carets) == 7 and not re.search(rb"^ *\^$", visible, re.M)


@pytest.mark.parametrize("max_chars", [20_000, 9_500, 6_000])
def test_javac_cannot_find_symbol_is_a_rule_for_each_missing_symbol(max_chars):
    """javac says only "cannot find symbol" on its first line; the symbol is on the ``symbol:`` line
    under it. Each missing symbol is its own rule, so each keeps an example with its symbol line
    however small the room, and the summary counts each."""
    raw = type_data("javac_gson_stream_fail.txt")
    missing = set(re.findall(rb"^  symbol: +(.*)$", raw, re.M))
    assert len(missing) == 14
    plan, visible, _ = reduced_fit(raw, config(max_chars=max_chars))
    assert visible_size(plan) <= max_chars
    shown = set(re.findall(rb"^  symbol: +(.*)$", visible, re.M))
    assert shown == missing
    summary = visible.split(b"\n", 1)[0]
    assert b"cannot find symbol (class TypeAdapter) \xc3\x9741" in summary


def test_the_room_folding_left_shows_each_message_of_a_folded_rule_then_more_lines_as_printed():
    """Folding two frequent rules frees far more than the room needed: the room left goes back to
    lines as printed, first one for each message of a folded rule not shown yet (the same rule
    calls twelve different functions), then more in order; what stays folded is listed by place and
    counted, its ref holding exactly those lines."""
    lines = []
    for k in range(160):
        lines.append(b"pkg/calls_%02d.py:%d: error: Call to untyped function \"helper_%s\" in typed context"
                     b"  [no-untyped-call]" % (k // 20, 10 + k, b"abcdefghijkl"[k % 12 : k % 12 + 1] * 6))
        lines.append(b"pkg/defs_%02d.py:%d: error: Function is missing a type annotation  [no-untyped-def]"
                     % (k // 20, 5 + k))
    raw = b"\n".join(lines) + b"\nFound 320 errors in 16 files (checked 16 source files)\n"
    conf = config(max_chars=20_000)
    plan, visible, refs = reduced_fit(raw, conf)
    assert visible_size(plan) <= 20_000 * conf.diagnostics.room_share
    shown = visible.split(b"\n")
    for name in b"abcdefghijkl":
        message = b'"helper_%s" in typed context  [no-untyped-call]' % (bytes([name]) * 6)
        assert any(line.endswith(message) and b": error: " in line for line in shown), message
    verbatim = [line for line in shown if line in lines]
    assert len(verbatim) > 12 + 2 * 2 + 60  # beyond the examples and the twelve messages, more lines as printed
    counted = 0
    for m in re.finditer(rb"^\[(no-untyped-\w+) \xc3\x97(\d+) more \(.*?; exact lines: #ref:(ctx_\w+)\]$", visible, re.M):
        assert refs[m.group(3).decode()].count(b"[" + m.group(1) + b"]") == int(m.group(2))
        counted += int(m.group(2))
    assert counted and counted + len(verbatim) == 320


def test_eslint_column_padding_is_shortened_and_restored():
    """eslint's stylish format pads every message of a file to its longest one: a 300-byte message
    pads the others with hundreds of spaces. Shown lines keep two of them; the rest go to one ref
    named once, and the bytes restore exactly (reduce_alone checks it)."""
    long_message = b"The `{}` type allows any non-nullish value " + b"x" * 260
    rows = [b"", b"/repo/src/core/api.ts", b"  17:13  error  " + long_message + b"  @typescript-eslint/no-empty-object-type"]
    width = len(long_message)
    for k in range(30):
        message = b"Unexpected any. Specify a different type"
        rows.append(b"  %d:9   error  %s%s  @typescript-eslint/no-explicit-any"
                    % (100 + k, message, b" " * (width - len(message))))
    rows += [b"", b"\xe2\x9c\x96 31 problems (31 errors, 0 warnings)", b""]
    raw = b"\n".join(rows)
    _, visible, refs = reduced_fit(raw)
    for k in range(30):
        assert b"  %d:9   error  Unexpected any. Specify a different type  @typescript-eslint/no-explicit-any\n" % (100 + k) in visible
    assert len(visible) < len(raw) / 2
    m = re.search(rb"^\[runs of alignment spaces shortened: #ref:(ctx_\w+)\]$", visible, re.M)
    assert m and set(refs[m.group(1).decode()]) == {ord(" ")}
    assert b"  17:13  error  The `{}` type" in visible  # a line with no run of spaces stays as printed


def test_rank_puts_rule_code_lines_without_a_severity_first():
    line = b"typer/utils.py:189:68: COM812 [*] Trailing comma missing"
    assert diagnostics.tier(line, line, None) == (0, 3)
    assert diagnostics.tier(b"src/a.py:3: error: Name 'x' is not defined  [name-defined]",
                            b"src/a.py:3: error: Name 'x' is not defined  [name-defined]", None) == (0, 1)
    assert diagnostics.tier(b"src/a.py:3:1: some text", b"src/a.py:3:1: some text", None) == (1, 0)


def test_rank_puts_the_place_a_message_points_at_and_eslint_file_headers_with_the_messages():
    """ruff's/rustc's `--> path:line:col` and eslint's file header name where a message is: they rank
    with the messages (tier 0), not as context that a cut drops first."""
    for line in (b"   --> pydantic/_internal/_config.py:84:121", b"/srv/app/src/v4/core/api.ts",
                 b"src\\lib\\index.js"):
        assert diagnostics.tier(line, line, None) == (0, 3), line
    for line in (b"Found 3 errors.", b"  help: remove this"):
        assert diagnostics.tier(line, line, None) != (0, 3), line


def test_rustc_help_and_note_lines_stay_once_their_snippets_fold():
    """cargo build (real, rust-lang/log with a function renamed without its callers): five E0599 errors,
    each with a note naming the associated functions, the note's own ``--> src/lib.rs:685:5`` and a
    ``help:`` suggesting ``from_str``. The help and note lines and the note's place show once (the
    suggested fix is what an agent needs); snippets and carets fold; the repeats fold too."""
    raw = type_data("cargo_build_log_errors.txt")
    visible, refs, _ = reduced(diagnostics, raw)
    assert raw.count(b"help: there is an associated function `from_str` with a similar name") == 5
    assert visible.count(b"help: there is an associated function `from_str` with a similar name\n") == 1
    assert visible.count(b"note: if you're trying to build a new `LevelFilter` consider using one of the following") == 1
    assert visible.count(b"   --> src/lib.rs:685:5\n") == 1
    for place in (b"733:30", b"555:22", b"671:40", b"754:15", b"776:15"):
        assert b"   --> src/lib.rs:%s\n" % place in visible
    assert b"685 |     fn from_index" not in visible and b"^^^^" not in visible  # snippets and carets folded
    assert b"error: could not compile `log` (lib) due to 5 previous errors; 7 warnings emitted" in visible


# -- the parse's compact form: lines as offsets, places and messages read back from their line ---------
def test_line_texts_are_the_lines_without_break_or_escapes():
    """The parser keeps no bytes object a line: each line's text is cut from the input when read,
    without ``\\n``/``\\r\\n`` and colour escapes, also after a lone ``\\r``, a blank line, no final newline."""
    raw = b"a.py:1:1: F401 x\r\n\r\nb\rc\n\x1b[31mred\x1b[0m line\n\n\rtail"
    parser = diagnostics._Parser(raw)
    assert list(parser.text) == [b"a.py:1:1: F401 x", b"", b"b\rc", b"red line", b"", b"\rtail"]
    assert [raw[a:b] for a, b in zip(parser.starts, parser.ends)] == [
        b"a.py:1:1: F401 x\r\n", b"\r\n", b"b\rc\n", b"\x1b[31mred\x1b[0m line\n", b"\n", b"\rtail"]
    assert parser.text[2] == b"b\rc" and parser.text[0] == b"a.py:1:1: F401 x"  # read again, out of order
    assert list(diagnostics._Parser(b"").text) == []


def test_places_and_messages_are_those_printed_whatever_their_form():
    raw = (b"src/a.py:3:7: F401 `os` imported but unused\n"
           b"src/a.py:9: error: Missing return  [return]\n"
           b"src/a.py:9: note: See the docs\n"
           b"\x1b[1msrc/b.py\x1b[0m:4:2: E501 Line too long (99 > 88)\n"
           b"src/c.ts(12,5): error TS7006: Parameter 'x' implicitly has an 'any' type.\n"
           b"/w/d.py\n"
           b"  /w/d.py:6:48 - error: \"x\" is unknown (reportAttributeAccessIssue)\n")
    got = [(d.loc, d.message, d.key, d.severity, d.path) for d in diagnostics.parse(raw).diags]
    assert got == [
        (b"src/a.py:3:7", b"F401 `os` imported but unused", "F401", "", b"src/a.py"),
        (b"src/a.py:9", b"Missing return  [return]", "return", "error", b"src/a.py"),
        (b"src/b.py:4:2", b"E501 Line too long (99 > 88)", "E501", "", b"src/b.py"),
        (b"src/c.ts(12,5)", b"Parameter 'x' implicitly has an 'any' type.", "TS7006", "error", b"src/c.ts"),
        (b"/w/d.py:6:48", b"\"x\" is unknown (reportAttributeAccessIssue)", "reportAttributeAccessIssue", "error",
         b"/w/d.py"),
    ]


def test_a_message_seen_before_parses_as_the_first_time():
    """What follows a location is worked out once per text (``_tail``): the same text at other places,
    and a text seen past the remembered ones, give the same rule, severity and message."""
    lines = [b"m%d.py:%d:1: W0611: Unused import os (unused-import)\n" % (i, i + 1) for i in range(30)]
    lines += [b"n.py:%d:2: error: Name \"v%d\" is not defined  [name-defined]\n" % (i + 1, i) for i in range(30)]
    raw = b"".join(lines)
    fresh = diagnostics.parse(raw).diags
    small = diagnostics.TAILS_MAX
    try:
        diagnostics.TAILS_MAX = 3
        remembered = diagnostics.parse(raw).diags
    finally:
        diagnostics.TAILS_MAX = small
    assert len(fresh) == 60
    assert {(d.key, d.severity, d.message) for d in fresh[:30]} == {("W0611", "warning", b"W0611: Unused import os (unused-import)")}
    assert [(d.loc, d.key, d.severity, d.message, d.style) for d in remembered] == \
        [(d.loc, d.key, d.severity, d.message, d.style) for d in fresh]
    assert fresh[31].message == b"Name \"v1\" is not defined  [name-defined]" and fresh[31].key == "name-defined"


# -- the whole-input search for location lines reads them as the line-by-line parse does ---------------
MIXED = (b"src/a.py:3:7: F401 `os` imported but unused\n"
         b"src/a.py:9: error: Missing return  [return]\n"
         b"src/a.py:9: note: See the docs\n"
         b"src/a.py:10: note: a note at another place\n"
         b"src/c.ts(12,5): error TS7006: Parameter 'x' implicitly has an 'any' type.\n"
         b"  /w/d.py:6:48 - error: \"x\" is unknown (reportAttributeAccessIssue)\n"
         b"w/e.py:6:48 - error: \"y\" is unknown (reportAttributeAccessIssue)\n"
         b"    more of the message\n"
         b"main.go:4:2: declared and not used: x (unusedvar)\n"
         b"error:1:2: E1 a path named as a severity\n"
         b"C:/w/f.c:1:2: warning: drive letter [-Wshadow]\n"
         b"rg.py:12:3:hit of a search, no rule\n"
         b"mypy.py:8: error: wrapped message\n"
         b"  [code-wrapped]\n"
         b"Found 5 errors in 4 files")


GCC_NOTES = (b"a.c:1:1: note: a note first\n"
             b"a.c:3:6: warning: unused variable \xe2\x80\x98x\xe2\x80\x99 [-Wunused-variable]\n"
             b"    3 |   int x;\n      |      ^\n"
             b"a.c:2:5: note: \xe2\x80\x98x\xe2\x80\x99 was declared here\n"
             b"    2 |   int y;\n      |     ^\n"
             b"a.c:2:5: note: at the place of the note before\n"
             b"a.c:9:1: warning: no return [-Wreturn-type]\n"
             b"a.c:9:1: note: at its warning's place\n"
             b"    9 | }\n      | ^\n"
             b"a.c:7:2: note: right after it, elsewhere\n"
             b"a.c:8:2: note: and another\n"
             b"b.c: In function \xe2\x80\x98f\xe2\x80\x99:\n"
             b"b.c:4:2: note: after a function line\n"
             b"b.c:5:3: error: expected \xe2\x80\x98;\xe2\x80\x99 [-Wfoo]\n"
             b"    5 |   x = 1\n      |   ^\n"
             b"b.c:5:3: note: the same place, after details\n"
             b"b.c:6:3: note: then another place\n"
             b"    6 |   y = 2\n      |   ^\n")


@pytest.mark.parametrize("name", [*DIAG_FIXTURES, "MIXED", "GCC_NOTES"])
def test_location_lines_found_over_the_whole_input_parse_as_line_by_line(name, monkeypatch):
    """``_Parser._heads`` finds the ``path:line:col: …`` lines by one pass over the input (and ``_bulk``
    adds runs of them at once); the parse is the one reading each line on its own gives (``_heads``
    finding nothing), line kinds included."""
    raw = {"MIXED": MIXED, "GCC_NOTES": GCC_NOTES}.get(name) or (FIXTURES / name).read_bytes().replace(b"\r", b"")

    def facts(parser):
        return ([(d.head, d.head_end, d.end, d.loc, d.key, d.severity, d.path, d.message, d.style) for d in parser.diags],
                bytes(parser.kind))

    fast = diagnostics.parse(raw)
    assert b"\x1b" in raw or len(fast.diags) >= 2
    monkeypatch.setattr(diagnostics._Parser, "_heads", lambda self: None)
    assert facts(fast) == facts(diagnostics.parse(raw))


def test_a_parse_keeps_its_diagnostics_as_columns_not_objects():
    """Thousands of diagnostics hold no ``Diag`` object each (a hundred bytes and more apiece): the
    parse keeps columns, and a ``Diag`` is made when one is read; what it reads is what was printed."""
    import gc

    raw = b"".join(b"src/m%d.py:%d:%d: E%03d message number %d\n" % (i % 50, i, i % 80, i % 7, i) for i in range(5000))
    raw += b"mypy.py:8: error: wrapped message\nwrapped tail  [code-wrapped]\nmypy.py:8: note: a hint at its place\n"
    gc.collect()
    before = sum(isinstance(o, diagnostics.Diag) for o in gc.get_objects())
    parser = diagnostics.parse(raw)
    gc.collect()
    assert sum(isinstance(o, diagnostics.Diag) for o in gc.get_objects()) - before <= 1  # the one open at the end
    diags = parser.diags
    assert len(diags) == 5001 and (diags[4999].loc, diags[4999].key, diags[4999].path) == (b"src/m49.py:4999:39", "E001", b"src/m49.py")
    last = diags[-1]
    assert (last.key, last.severity, last.head, last.head_end, last.end) == ("code-wrapped", "error", 5000, 5001, 5002)


@pytest.mark.parametrize("line", [b"src/error/a.py:1:2: E1 x", b"a/warning.py:3:4: F1 y", b"b.py:1:2: warning: w [x]",
                                  b"fatal.py:1: error: q", b"a.py:1:2 - warning: w (reportX)", b"a.py:1:2:error in it",
                                  b"p.py:1:2: note: see [Error/x]", b"w.py:9: x warningy errorz", b"a.py:1: 12 problems",
                                  b"src/a.py:3:7: F401 `os` imported but unused", b"a.py:1:2: just words"])
def test_the_tier_of_a_location_line_is_the_same_the_second_time(line, monkeypatch):
    """``tier`` works out the text after a location once (``_loc_tier``): a path naming an error or a
    warning still counts, and the answer is the one the whole line's reading gives."""
    monkeypatch.setattr(diagnostics, "TIERS", {})
    first = diagnostics.tier(line, line, None)
    assert diagnostics.tier(line, line, None) == first
    m = diagnostics.LOC_RE.match(line)
    assert first == (0, 1) if diagnostics.ERROR_RE.search(line) else True
    assert first == (0, 2) if not diagnostics.ERROR_RE.search(line) and diagnostics.WARNING_RE.search(line) else True
    if not (diagnostics.ERROR_RE.search(line) or diagnostics.WARNING_RE.search(line)):
        assert first == ((0, 3) if diagnostics._head_line(line, m) else (1, 0))


def test_offsets_past_the_small_column_are_kept_aside_and_read_back(monkeypatch):
    """A place's or message's offset too big for the 4-byte column is kept aside (``_Diags._kept``),
    as are places and messages that are not cut from their line: each reads back as printed."""
    raw = b"src/a.py:3:7: F401 `os` imported but unused\nsrc/b.py:9: error: Missing return  [return]\n" \
          b"src/c.ts(12,5): error TS7006: Parameter 'x' implicitly has an 'any' type.\nsrc/d.py:\n  4:2 E501 Line too long\n"

    def read(parser):
        return [(d.loc, d.message, d.key) for d in parser.diags], [parser.diags.message_of(j) for j in range(len(parser.diags))]

    usual = read(diagnostics.parse(raw))
    monkeypatch.setattr(diagnostics, "SMALL", 10)
    small = diagnostics.parse(raw)
    assert len(small.diags.texts_kept) > len(diagnostics.parse(b"").diags.texts_kept)
    assert read(small) == usual
    assert usual[1] == [b"F401 `os` imported but unused", b"Missing return  [return]",
                        b"Parameter 'x' implicitly has an 'any' type.", b"Line too long"]


def test_room_left_never_shows_every_listed_place_of_a_folded_rule_verbatim():
    """Shown again as printed in the room the folding leaves (``_unfold``), a folded rule keeps at least
    one place on its line: with none, its line would stand for nothing (the plan refuses such a marker)."""
    raw = b"".join(b"src/m%d.py:%d:1: error: Function is missing a type annotation  [no-untyped-def]\n" % (i, i)
                   for i in range(3)) + b"Found 3 errors in 3 files (checked 3 source files)\n"
    p = diagnostics.parse(raw)
    key = next(iter(p.common(diagnostics.Settings()).by_key))
    fold = diagnostics._Fold({key}, 1, 10)
    more = diagnostics._unfold(p, fold, 100_000)
    assert len(more) == 1  # two places past the example: one shown again, one still listed
    plan = diagnostics._Reducer(raw, p, diagnostics.Settings(), fold._replace(more=more)).run()
    assert plan.omits_anything


def test_cargos_lines_about_each_target_fold_but_the_last_of_each_kind():
    raw = type_data("cargo_build_rustlings_exercises.txt.gz")  # a crate of ~100 binaries, most failing
    assert classify(raw)[0] == "diagnostics"
    lines = raw.split(b"\n")
    failed = [ln for ln in lines if ln.startswith(b"error: could not compile `")]
    assert len(failed) > 30
    visible = cut(diagnostics, "diagnostics", raw, 25_000)
    assert len(visible) <= 25_000
    assert [ln for ln in visible.split(b"\n") if ln.startswith(b"error: could not compile `")] == failed[-1:]
    folded = re.search(rb"\[(\d+) lines about each target folded \([^)]*\): #ref:ctx_\w+\]", visible)
    assert folded and int(folded[1]) >= len(failed) - 1  # counted, behind a ref
    headers = {ln for ln in lines if re.match(rb"error\[E\d+\]: ", ln)}
    shown = {h for h in headers if h + b"\n" in visible}
    assert len(shown) >= 0.9 * len(headers)  # the room they took goes to the diagnostics


# -- many lines at once: the ceiling's tiers, the plan's runs -------------------------------------------
TIER_LINES = [b"src/error/a.py:1:2: E1 x", b"a/warning.py:3:4: F1 y", b"b.py:1:2: warning: w [x]", b"fatal.py:1: error: q",
              b"a.py:1:2 - warning: w (reportX)", b"a.py:1:2:error in it", b"p.py:1:2: note: see [Error/x]",
              b"w.py:9: x warningy errorz", b"a.py:1: 12 problems", b"src/a.py:3:7: F401 `os` imported but unused",
              b"a.py:1:2: just words", b"[a.py:1:2: E1 led by a bracket", b"[3 diagnostics (error 3) in 1 file]",
              b"main.go:4:2: declared and not used: x", b"x.ts(1,2): error TS1: y", b"  b.py:1:2: E2 indented",
              b"", b"error[E0308]:1:2: E3 a rustc head", b"C:/w/f.c:1:2: warning: drive [-Wshadow]", b"plain text",
              b"src/app/main.js", b"C:x.js", b"/w/errors.py", b"   3:4  warning  Unexpected error  no-console",
              b"  12:1  error  Missing semicolon  semi", b"  1:2  warning", b"lib/a.c: In function \xe2\x80\x98f\xe2\x80\x99:",
              b"lib/b.cc: In member function \xe2\x80\x98void g(int)\xe2\x80\x99:", b"a: In function \xe2\x80\x98f\xe2\x80\x99:"]


@pytest.mark.parametrize("name", [*DIAG_FIXTURES, "TIER_LINES"])
def test_the_tiers_of_many_lines_are_those_of_each_line(name):
    """``tiers`` (the ceiling asks it for a whole view) gives what ``tier`` gives for each line it
    answers, and leaves the others to it."""
    from operators.rank import Lines, _shown

    raw = b"\n".join(TIER_LINES * 3) if name == "TIER_LINES" else (FIXTURES / name).read_bytes()
    lines = Lines(raw)
    many = diagnostics.tiers(lines, None)
    if b"\x1b" in raw or b"\r" in raw:
        assert many is None
        return
    assert len(many) == len(lines)
    assert name != "TIER_LINES" or sum(ranked is not None for ranked in many) >= 12
    for line, ranked in zip(lines, many):
        if ranked is not None:
            assert ranked == (diagnostics.tier(line, _shown(line), None) or ()), line  # (): tier gives None


def test_a_view_made_a_run_at_a_time_is_the_one_made_a_diagnostic_at_a_time(monkeypatch):
    """The plan's pieces for runs of lines (``_Reducer._lines``) and for runs of diagnostics kept or
    omitted (``_Reducer._runs``) are those the diagnostics given to the plan one at a time make
    (``_one``): folded rules past 30 groups, shown again (``more``), padded lines, details between."""
    lines = []
    for i in range(400):
        lines.append(b"src/m%d.py:%d:%d: R%02d message %d\n" % (i % 7, i, i % 9, i % 37, i % 5))
        if i % 50 == 7:
            lines.append(b"    |         detail under it\n")
        if i % 61 == 3:
            lines.append(b"src/p.py:%d:1: E999 padded          message\n" % i)
    raw = b"".join(lines) + b"Found 400 errors.\n"
    p = diagnostics.parse(raw)
    s = diagnostics.Settings()
    by_key = p.common(s).by_key
    rules = set(by_key)
    heads = [p.diags.head[j] for j in by_key["R03"][3:6]]
    for fold in (diagnostics._Fold(rules, 2, 5), diagnostics._Fold(rules, 1, 1, frozenset(heads)),
                 diagnostics._Fold({"R01", "R02"}, 3, 2), diagnostics._Fold(set(), 2, 5)):
        fast = diagnostics._Reducer(raw, p, s, fold).run()
        with monkeypatch.context() as m:
            m.setattr(diagnostics._Reducer, "by_lines", False)
            runs = diagnostics._Reducer(raw, p, s, fold).run()
            m.setattr(diagnostics._Reducer, "_codes", lambda self: (bytearray([diagnostics.SPECIAL]) * len(self.p.diags), [None]))
            slow = diagnostics._Reducer(raw, p, s, fold).run()
        assert list(fast.pieces) == list(runs.pieces) == list(slow.pieces)
        assert list(fast.reasons.items()) == list(runs.reasons.items()) == list(slow.reasons.items())


def _many_rules(counts: list[int], seed: int = 3) -> bytes:
    """A linter's output: rule ``X0nn`` at ``counts[nn]`` places, the rules mixed as a tree's files mix them."""
    import random

    rng = random.Random(seed)
    rules = [r for r, n in enumerate(counts) for _ in range(n)]
    rng.shuffle(rules)
    lines = [b"src/pkg%d/mod_%d.py:%d:%d: X%03d Message of rule %d at this place\n"
             % (i % 7, i % 41, i + 1, rng.randint(1, 80), r, r) for i, r in enumerate(rules)]
    return b"".join(lines) + b"Found %d errors.\n" % len(rules)


def test_rules_folded_past_max_shown_are_not_counted_again_when_the_view_fits_the_room():
    """Past ``max_shown`` the most frequent rules fold before the view is measured; fitting it to the
    room then folds the others too (their folding was not taken for done by counting the first ones'
    again): the view fits the room, every rule shows its first line and its folded line. The folded
    rules' lines not shown are in one ref (a rule's ref each would make a piece for each run of a
    rule among the others: hundreds of thousands over a whole tree)."""
    counts = [3000, 1500, 800, 600, 400, 300, 200, 100]
    raw = _many_rules(counts)
    conf = config(max_chars=25_000, max_shown=2_000)
    assert len(diagnostics.parse(raw).diags) == sum(counts) > conf.diagnostics.max_shown
    plan, visible, refs = reduced_fit(raw, conf)
    assert visible_size(plan) <= 25_000 * conf.diagnostics.room_share
    shown = set(visible.split(b"\n"))
    ids = set()
    for r, n in enumerate(counts):
        first = re.search(rb"^.*: X%03d .*$" % r, raw, re.M).group()
        assert first in shown
        m = re.search(rb"^\[X%03d \xc3\x97(\d+) more \(.*; exact lines: #ref:(ctx_\w+)\]$" % r, visible, re.M)
        assert m and int(m.group(1)) == n - 1  # one example, the others listed by place or counted
        ids.add(m.group(2).decode())
        as_printed = len(re.findall(rb"^\S+: X%03d .*$" % r, visible, re.M))
        assert bytes(refs[m.group(2).decode()]).count(b": X%03d " % r) == n - as_printed
    assert len(ids) == 1
    assert b"Found 6900 errors." in visible


def test_a_detailed_format_read_a_run_at_a_time_is_read_line_by_line(monkeypatch):
    """ruff's default format and rustc's (a head, its ``-->`` line, snippet, caret, help and fix lines)
    parse to the same lines and diagnostics when the lines ``_Parser._classes`` sorts are read a run at a
    time (``_run``, ``_rust_head``) as when each is read on its own; their views (``_Reducer._lines``) are
    those the diagnostics given to the plan one at a time make."""
    from bench.generate import make_diagnostics_full

    raw = (make_diagnostics_full(120_000) + (FIXTURES / "clippy.txt").read_bytes() + (FIXTURES / "rustc_errors.txt").read_bytes()
           + b"E501 [*] \n --> a.py:1:2\n  |\n1 | x        y\n  |\nnote: z\n  --> a.py:1:2\n\n----------\n12 | q\nhelp: h\n"
           b"F401 x\n --> b.py:2:1\n  |\n2 | f(1,2): error TS2322: y\n3 | g(): h\n  |\n")
    fast = diagnostics.parse(raw)
    with monkeypatch.context() as m:
        m.setattr(diagnostics._Parser, "_classes", lambda self: b"")
        slow = diagnostics.parse(raw)
    assert fast.kind == slow.kind
    for column in ("head", "head_end", "end", "style"):
        assert bytes(getattr(fast.diags, column)) == bytes(getattr(slow.diags, column))
    for a, b in zip(fast.diags, slow.diags, strict=True):
        assert (a.key, a.severity, a.path, a.loc, a.message) == (b.key, b.severity, b.path, b.loc, b.message)
    s = diagnostics.Settings()
    by_key = fast.common(s).by_key
    rules = {key for key, indexes in by_key.items() if len(indexes) > 2}  # (a rule folds when it has places to list)
    heads = [fast.diags.head[j] for j in by_key["E000"][3:9]]
    for fold in (diagnostics._Fold(rules, 2, 5), diagnostics._Fold({"E000", "W002"}, 1, 1, frozenset(heads)),
                 diagnostics._Fold(set(), 2, 5)):
        view = diagnostics._Reducer(raw, fast, s, fold).run()
        with monkeypatch.context() as m:
            m.setattr(diagnostics._Reducer, "by_lines", False)
            m.setattr(diagnostics._Reducer, "_codes", lambda self: (bytearray([diagnostics.SPECIAL]) * len(self.p.diags), [None]))
            one_at_a_time = diagnostics._Reducer(raw, slow, s, fold).run()
        assert list(view.pieces) == list(one_at_a_time.pieces)
        assert list(view.reasons.items()) == list(one_at_a_time.reasons.items())


def test_gcc_source_and_caret_lines_stay_when_the_whole_output_fits_and_fold_when_it_does_not():
    """gcc's warnings each come with the source line and a caret (two short lines): the code an agent
    fixes. An output that fits the ceiling is shown as gcc printed it; past it the snippets of the first
    warnings stay, in order and as printed (the caret under its column), while the room lasts, the
    others fold to the details ref, and every warning's location and flag stay."""
    raw = fixture_bytes("gcc_warnings.txt")
    assert len(raw) < 25_000
    plan, visible, _ = reduced_fit(raw)
    assert visible == raw and not plan.omits_anything
    plan, visible, refs = reduced_fit(raw, config(max_chars=9_500))
    assert len(visible) <= 9_500 * 0.9
    first = b"  229 |     raw.c_iflag &= ~(BRKINT | ICRNL | INPCK | ISTRIP | IXON);\n      |                 ^~\n"
    assert first in visible and first in raw  # the room the folded snippets leave goes back to the first ones
    last = raw.split(b"\n")[157] + b"\n"  # the source line of the last warning
    assert last not in visible and any(last in content for content in refs.values())
    snippets = [line for line in raw.split(b"\n") if re.match(rb"^ +\d+ \| ", line)]
    shown = [line in visible.split(b"\n") for line in snippets]
    assert 3 <= sum(shown) < len(snippets) and shown == sorted(shown, reverse=True)  # a prefix of them
    for loc, flag in re.findall(rb"^(kilo\.c:\d+:\d+): \w+: .*?(?:\[(-W[\w-]+)\])?$", raw, re.M):
        assert loc in visible and flag in visible
    # rustc's snippets (five lines and more a diagnostic, help and fixes) still fold under the ceiling
    plan, visible, _ = reduced_fit(fixture_bytes("clippy.txt"))
    assert "details" in plan.reasons


def test_gcc_warnings_printed_again_fold_once_each_and_the_rest_stays_as_printed():
    """A header's warnings come again for each file that includes it (a build for each set of flags):
    past the room with every copy, each diagnostic is shown once as gcc printed it (source and caret
    lines too), later copies fold to one ref behind a marker that counts them, and a warning that is
    new in a later unit stays with its snippet."""
    warnings = fixture_bytes("gcc_warnings.txt")
    fresh = (b"kilo.c:999:5: warning: planted only in the second unit [-Wplanted]\n"
             b"  999 |     planted_call(x);\n      |     ^~~~~~~~~~~~\n")
    raw = (b"cc -Wall -o unit_a a.c\n" + warnings + b"PASSED: 16\n"
           + b"cc -Wall -o unit_b b.c\n" + fresh + warnings + b"PASSED: 16\n"
           + b"cc -Wall -o unit_c c.c\n" + warnings + b"PASSED: 16\n")
    assert len(raw) > 25_000
    plan, visible, refs = reduced_fit(raw)
    assert list(plan.reasons) == ["repeats"]
    assert visible.count(b"  229 |     raw.c_iflag &= ~(BRKINT | ICRNL | INPCK | ISTRIP | IXON);\n") == 1
    assert fresh in visible
    for unit in (b"unit_a", b"unit_b", b"unit_c"):
        assert b"cc -Wall -o " + unit in visible
    count = len(re.findall(rb"^kilo\.c:\d+:\d+: ", warnings, re.M))
    assert re.findall(rb"\[(\d+) diagnostics as printed above, again: #ref:ctx_\w+\]", visible) == [str(count).encode()] * 2
    (content,) = refs.values()
    assert content.count(b"  229 |     raw.c_iflag") == 2
    # the same output under a room its first copy does not fit: folded by rule as before, no repeats ref
    plan, visible, _ = reduced_fit(raw, config(max_chars=9_500))
    assert "repeats" not in plan.reasons and b"kilo.c:999:5" in visible


def test_an_output_a_little_over_the_room_gives_the_room_back_to_lines_as_printed():
    """A flake8 run a little longer than the room: its most frequent rule folds to a list of places,
    then lines as printed come back while the room lasts — reckoned, built, and reckoned again from the
    view built, so the room is filled, not left a sixth empty by the first reckoning."""
    raw = b"".join(b"pkg/table.py:%d:89: E501 line too long (%d > 88 characters)\n" % (40 + 7 * k, 90 + k % 23)
                   for k in range(150))
    raw += b"pkg/cli.py:3:1: E203 whitespace before ':'\npkg/cli.py:9:1: E203 whitespace before ':'\n"
    conf = config(max_chars=9_500)
    room = int(9_500 * diagnostics.Settings().room_share)
    assert room < len(raw) < 1.3 * room
    plan, visible, refs = reduced_fit(raw, conf)
    assert room - 400 <= visible_size(plan) <= room
    for line in raw.splitlines():  # every place stays, as printed or listed
        assert line.split(b": ")[0] in visible


def test_gcc_errors_without_a_flag_keep_their_source_and_caret_lines_when_they_fit():
    """gcc's and g++'s errors name no ``-W`` flag (``error: 'x' undeclared``, ``error: invalid
    conversion …``), yet carry the same numbered source line and caret as its warnings: an output of
    them that fits the ceiling is shown as printed, not folded to its locations."""
    blocks = []
    for k in range(40):
        blocks.append(f"src/value.c:{60 + 9 * k}:{20 + k % 7}: error: invalid conversion from \u2018void*\u2019 to "
                      f"\u2018json_t{k}*\u2019\n   {60 + 9 * k} |     json_t{k} *v = jsonp_malloc(sizeof(json_t{k}));\n"
                      f"      |                         ~~~~~~~~~~~~^~~~~~~~~~~~~~~~~\n"
                      f"      |                                     |\n      |                                     void*\n")
    raw = ("".join(f"src/value.c: In function \u2018json_t{k}* make{k}()\u2019:\n" + blocks[k] for k in range(40))).encode()
    assert classify(raw)[0] == "diagnostics" and 4_000 < len(raw) < 20_000
    plan, visible, _ = reduced_fit(raw)
    assert visible == raw and not plan.omits_anything


def test_a_rule_without_a_code_is_named_by_its_message_whole_or_cut_with_an_ellipsis():
    """``go vet``: no rule codes, so a diagnostic's rule is its message's first 60 bytes (numbers and quoted
    names masked). A longer message's rule is marked cut (``…``) where it is named, and a folded rule's
    line is no longer followed by the piece of the message past the cut, read as a message of its own
    (``(ed fields)``), nor a short message's by an empty one (``()``)."""
    long = "example.com/pkg/syntax/ast.Text composite literal uses unkeyed fields"
    lines = ["# example.com/pkg"]
    lines += [f"pkg/a_test.go:{10 + k * 3}:2: unreachable code" for k in range(60)]
    lines += [f"pkg/b_test.go:{10 + k * 3}:31: {long}" for k in range(60)]
    raw = ("\n".join(lines) + "\n").encode()
    assert classify(raw)[0] == "diagnostics"
    packet = reduce_bytes(raw, budget=500)
    assert packet.restore_pass
    folds = re.findall(rb"^\[(.*?) \xc3\x97(\d+) more(.*?): pkg/", packet.visible, re.M)
    assert sorted(folds) == [(long[:60].encode() + "…".encode(), b"59", b""), (b"unreachable code", b"59", b"")]
    assert f"by rule: unreachable code ×60, {long[:60]}… ×60".encode() in packet.visible


def test_a_room_the_reckoning_says_every_place_fits_but_the_view_does_not_still_lists_most_places():
    """``_cap``: when the places of every folded rule fit the room by their reckoned sizes but the view
    built comes out a few bytes over, the rules list fewer places, not one each: the caps tried after
    the reckoned one were 1000, 800, 640 (each past a rule's longest list, the same view) and then one
    place a rule — pylint's report of 163 diagnostics under Codex's budget showed 4.3 KB of its 8.1 KB
    room, each of four rules naming one place of 22 to 41."""
    from operators.config import config_class

    lines = ["************* Module pkg.exceptions"]
    lines += [f"pkg/exceptions.py:{40 + k * 9}:12: W0212: Access to a protected member _m{k} of a client class"
              " (protected-access)" for k in range(20)]
    lines += [f"pkg/exceptions.py:{129 + k * 4}:4: C0116: Missing function or method docstring"
              " (missing-function-docstring)" for k in range(38)]
    lines += [f"pkg/_keywords.py:{16 + k * 6}:0: C0103: Function name \"pattern{k}\" doesn't conform to snake_case"
              " naming style (invalid-name)" for k in range(41)]
    lines += [f"pkg/_keywords.py:{85 + k * 7}:10: W0613: Unused argument 'schema' (unused-argument)" for k in range(30)]
    raw = ("\n".join(lines) + "\n").encode()
    settings = diagnostics.section(config_class()(), diagnostics.NAME)
    parser = diagnostics.parse(raw)
    fold, _ = diagnostics._fit(parser, settings, 1 << 30)  # every rule folded that can be

    def build(f):
        return diagnostics._Reducer(raw, parser, settings, f, True).run()

    most = max(len(v) for k, v in parser.common(settings).by_key.items() if k in fold.rules)
    every, one = visible_size(build(fold._replace(cap=most))), visible_size(build(fold._replace(cap=1)))
    for room in range(every - 12, every):  # (the reckoning of every place is a few bytes short of the view)
        size = visible_size(diagnostics._cap(build, fold, room, parser, settings))
        assert one < room - 1_000 and room - 600 < size <= room, (room, size, one, every)


def test_an_eslint_message_on_several_lines_is_counted_under_the_rule_its_last_line_names():
    """eslint's stylish report prints a long message on several lines, its rule at the end of the last
    (typescript-eslint's ``no-empty-object-type``): such diagnostics are counted under that rule, not
    under their message masked and cut (``error: The _ (_) type allows any non-nullish value, including
    liter…``, a rule of its own beside the real one), and the message's other lines go with it."""
    lines = ["", "/work/app/src/schemas.ts"]
    for k in range(8):
        lines += [f"  {10 + k * 7}:13  error  The `{{}}` (\"empty object\") type allows any non-nullish value, including"
                  " literals like `0` and `\"\"`.",
                  "- If that's what you want, disable this lint rule with an inline comment or configure the"
                  " 'allowObjectTypes' rule option.",
                  "- If you want a type meaning \"any value\", you probably want `unknown` instead"
                  "  @typescript-eslint/no-empty-object-type"]
    for k in range(40):
        lines.append(f"  {100 + k * 3}:9  error  An interface declaring no members is equivalent to its supertype"
                     "  @typescript-eslint/no-empty-object-type")
    for k in range(60):
        lines.append(f"  {300 + k * 2}:20  error  Unexpected any. Specify a different type  @typescript-eslint/no-explicit-any")
    lines += ["", "\u2716 108 problems (108 errors, 0 warnings)", ""]
    raw = "\n".join(lines).encode()
    assert classify(raw)[0] == "diagnostics"
    packet = reduce_bytes(raw, budget=1_000)
    assert packet.restore_pass
    header = packet.visible.split(b"\n", 1)[0]
    assert b"@typescript-eslint/no-empty-object-type \xc3\x9748" in header, header
    assert b"The _ (_)" not in packet.visible and b"liter\xe2\x80\xa6" not in header
    # its lines are its own: shown with it, or listed with it by place in its rule's line, none left behind
    shown = packet.visible.count(b'error  The `{}` ("empty object")')
    assert 1 <= shown < 8 and packet.visible.count(b"- If you want a type meaning") == shown
