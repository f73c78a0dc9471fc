"""Search results and diagnostics: detection (with near misses), must-see strings, budgets, exact restore."""

from __future__ import annotations

import re

import pytest

from conftest import FIXTURES, PROJECT, reduce_bytes, tokens_cli
from operators.classify import classify
from operators.reduction import omissions, render, restores_to
from operators.signals import load_sidecar
from operators.types import diagnostics, search

SEARCH_FIXTURES = ["rg_common.txt", "grep_rn_rare.txt", "grep_rn_long_lines.txt", "rg_heading_context.txt",
                   "grep_n_one_file.txt", "git_grep.txt"]
DIAG_FIXTURES = ["ruff.txt", "mypy.txt", "tsc.txt", "eslint.txt", "gcc_warnings.txt", "clippy.txt",
                 "pylint_parseable.txt", "tsc_pretty.txt", "pyright.txt", "rustc_errors.txt"]


def reduced(module, raw: bytes, settings=None) -> tuple[bytes, dict, object]:
    """Reduce with one type directly; check the plan restores the original and return visible and refs."""
    config = type("C", (), {module.NAME: settings})() if settings is not None else None
    plan = module.reduce(raw, "coarse", config)
    refs = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restores_to(raw, visible, layout, [refs[g] for g in plan.reasons])
    for group, content in refs.items():  # every group is named by its marker in the visible text
        assert f"#ref:{ids[group]}".encode() in visible, group
        assert len(content) > 0
    return visible, {ids[g]: refs[g] for g in plan.reasons}, plan


def planted(name: str) -> list[str]:
    return load_sidecar(FIXTURES / "signals.toml")[name]


# -- detection ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SEARCH_FIXTURES)
def test_search_fixtures_are_search(name):
    assert classify((FIXTURES / name).read_bytes())[0] == "search"


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


def test_a_log_with_file_line_prefixes_is_not_search_or_diagnostics():
    lines = [f"app.py:12: INFO request {i} served in {i % 7}ms\n".encode() for i in range(40)]
    lines[17] = b"app.py:30: WARNING slow request 17\n"
    assert classify(b"".join(lines))[0] not in ("search", "diagnostics")


def test_a_file_list_and_key_value_lines_are_not_search():
    files = b"".join(b"./src/pkg/module_%d.py\n" % i for i in range(50))
    assert classify(files)[0] != "search"
    env = b"".join(b"/etc/app/%d.conf: enabled\n" % i for i in range(30))  # every path once: a listing
    assert classify(env)[0] != "search"
    yaml = b"".join(b"key_%d: value %d\n" % (i, i) for i in range(30))
    assert classify(yaml)[0] != "search"


def test_grep_hits_inside_diagnostics_need_a_rule_or_severity():
    """path:line:col followed by plain text is a search hit, not a diagnostic."""
    raw = b"".join(b"src/a.py:%d:    value = compute(%d)\n" % (i * 3 + 1, i) for i in range(20))
    assert classify(raw)[0] == "search"
    assert diagnostics.parse(raw).diags == []


# -- must-see strings, restore, savings -----------------------------------------------------------
@pytest.mark.parametrize("name", SEARCH_FIXTURES + DIAG_FIXTURES)
def test_fixture_keeps_its_planted_signals_and_restores(name):
    raw = (FIXTURES / name).read_bytes()
    kind = classify(raw)[0]
    module = search if kind == "search" else diagnostics
    visible, _, _ = reduced(module, raw)
    missing = [s for s in planted(name) if s.encode() not in visible]
    assert missing == []
    # a small search is best as it is; so are diagnostics without snippets under the output ceiling
    assert len(visible) < len(raw) or visible == raw and (module is search or len(raw) < 22_500)


def test_overall_savings_on_the_fixtures():
    raw_total = visible_total = 0
    for name in SEARCH_FIXTURES + DIAG_FIXTURES:
        raw = (FIXTURES / name).read_bytes()
        module = search if name in SEARCH_FIXTURES else diagnostics
        visible, _, _ = reduced(module, raw)
        raw_total += len(raw)
        visible_total += len(visible)
    assert visible_total <= 0.5 * raw_total


@pytest.mark.parametrize("name", ["grep_rn_rare.txt", "rg_common.txt", "git_grep.txt", "rg_n_common_axios.txt",
                                  "rg_n_throw_axios.txt", "grep_rn_throw_gson.txt"])
def test_every_files_first_hit_stays_verbatim_as_path_line_text(name):
    """An agent greps and copies ``path:12:``: each file's first hit is the line as printed, prefix and all."""
    raw = (FIXTURES / name).read_bytes()
    visible, _, _ = reduced(search, raw)
    first: dict[bytes, bytes] = {}
    for line in raw.splitlines():
        m = re.match(rb"^(\S+?\.\w+):", line)
        if m:
            first.setdefault(m.group(1), line)
    assert len(first) >= 4
    shown = visible.splitlines()
    for path, line in first.items():
        lead = re.match(rb"^[^:]+:(?:\d+:)?", line).group()
        assert any(s.startswith(lead) for s in shown), lead  # path:line: as printed
        assert line[:200] in visible or len(line) > 240, line[:100]


@pytest.mark.parametrize("name", ["rg_n_common_axios.txt", "grep_rn_throw_gson.txt"])
def test_a_search_over_many_files_counts_every_file_first(name):
    raw = (FIXTURES / name).read_bytes()  # real: rg -n AxiosError in axios; grep -rn 'throw new' in gson
    visible, _, _ = reduced(search, raw)
    counts: dict[bytes, int] = {}
    for line in raw.splitlines():
        path = re.match(rb"^([^:]+):\d+:", line).group(1)
        counts[path] = counts.get(path, 0) + 1
    head, _, rest = visible.partition(b"hits per file:]\n")
    assert head.startswith(f"[{sum(counts.values())} matching lines in {len(counts)} files; ".encode())
    listed = [re.match(rb"^ +(\d+) (.+)$", line).groups() for line in rest.split(b"\n")[: len(counts)]]
    assert [(p, int(n)) for n, p in listed] == list(counts.items())  # every file, in order, its count
    assert not rest.split(b"\n")[len(counts)].startswith(b"  ")


def test_search_spreads_its_lines_over_the_files_and_folds_each_file_with_a_ref():
    raw = (FIXTURES / "grep_rn_throw_gson.txt").read_bytes()  # 342 hits in 82 files, one with 28
    visible, refs, _ = reduced(search, raw, search.Settings(per_file=3, total=120))
    hits = re.findall(rb"^([^:\n]+):\d+:", raw, re.M)
    per_file = {path: hits.count(path) for path in dict.fromkeys(hits)}
    shown = re.findall(rb"^([^:\n]+):\d+:", visible, re.M)
    assert set(shown) == set(per_file)  # every file its first hit
    allowed = dict(zip(per_file, search.allowances(list(per_file.items()), search.Settings(per_file=3, total=120))))
    assert sum(allowed.values()) <= 120 and max(allowed.values()) <= 3 and min(allowed.values()) == 1
    assert all(shown.count(p) in (allowed[p], n) for p, n in per_file.items())  # its share, or all when cheaper
    assert any(allowed[p] < shown.count(p) == n for p, n in per_file.items())  # a fold line would cost more
    big = max(per_file, key=per_file.get)
    m = re.search(rb"^\[\xe2\x80\xa6 (\d+) more matching lines in " + re.escape(big) + rb" \((\d+) in all\): #ref:(ctx_\w+)\]$",
                  visible, re.M)
    assert m, big
    assert int(m.group(2)) == per_file[big] and int(m.group(1)) == per_file[big] - shown.count(big)
    folded = [line for line in bytes(refs[m.group(3).decode()]).splitlines() if line.startswith(big + b":")]
    assert len(folded) == int(m.group(1)) and folded[-1] + b"\n" == raw[raw.rindex(b"\n" + big + b":") + 1 :][: len(folded[-1]) + 1]
    # the lines before the fold are the file's first hits exactly as printed
    lines = [line for line in raw.splitlines(keepends=True) if line.startswith(big + b":")]
    assert b"".join(lines[: shown.count(big)]) + m.group(0) in visible


def test_search_allowances_give_every_file_its_first_hit_before_any_second():
    s = search.Settings(per_file=8, total=10)
    assert search.allowances([(b"a", 30), (b"b", 1), (b"c", 5), (b"d", 2)], s) == [4, 1, 3, 2]
    assert search.allowances([(b"a", 30)] + [(b"f%d" % i, 2) for i in range(20)], s) == [1] + [1] * 20
    assert search.allowances([(b"", 500)], s) == [15]  # one file's hits without a path: shorter lines
    assert sum(search.allowances([(b"a", 3), (b"b", 3)], search.Settings(per_file=8, total=60))) == 6


def test_search_ranks_counts_and_first_hits_first_under_a_small_budget():
    from operators.ceiling import fit
    from operators.config import Config

    raw = (FIXTURES / "grep_rn_throw_gson.txt").read_bytes()  # 44 KB: over the output ceiling
    plan = search.reduce(raw, "coarse", None)
    cut = fit(plan, 16_000, "search", Config())
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(cut.reasons)}
    visible = render(cut, ids)[0]
    assert len(visible) < 16_500
    paths = list(dict.fromkeys(re.findall(rb"^([^:\n]+):\d+:", raw, re.M)))
    for path in paths:  # every file's count line ...
        assert re.search(rb"^ +\d+ " + re.escape(path) + rb"$", visible, re.M), path
    hits = [line for line in raw.splitlines() if re.match(rb"^[^:]+:\d+:", line)]
    firsts = {line.split(b":", 1)[0]: line for line in reversed(hits)}
    shown_firsts = [line for line in firsts.values() if line[:150] in visible]
    assert len(shown_firsts) >= 0.5 * len(paths)  # ... then first hits, as printed ...
    others = [line for line in hits if line not in firsts.values() and line[:150] in visible]
    assert len(others) <= 5 or len(shown_firsts) == len(paths)  # ... before other hits (but the head's few)


def test_long_lines_are_cut_around_the_match():
    raw = (FIXTURES / "grep_rn_long_lines.txt").read_bytes()
    visible, _, plan = reduced(search, raw, search.Settings(line_max=80))
    assert "long" in plan.reasons
    for line in visible.splitlines():
        if re.match(rb"^\d+:", line):
            assert len(line) <= 80 + 12 + 8, line  # the kept window, the line number, two ellipses
            assert b"logo" in line.lower(), line  # the match stays visible
    assert b"2 binary files match" in visible


def test_search_odd_bytes_crlf_no_final_newline_invalid_utf8():
    raw = b"".join(b"src/m\xc3\xa9t\xe9o.py:%d:    x = f\xff(%d)  # r\xc3\xa9sultat pattern \r\n" % (i + 1, i)
                   for i in range(30)) + b"src/other.py:4:" + "é".encode() * 200 + b"pattern" + b"\xe2\x82" * 3
    assert classify(raw)[0] == "search"
    visible, _, _ = reduced(search, raw, search.Settings(per_file=5, line_max=60))
    assert b"src/other.py" in visible and b"pattern" in visible


def test_diagnostics_fold_by_rule_keeps_every_location_and_code():
    raw = (FIXTURES / "tsc.txt").read_bytes()
    visible, refs, _ = reduced(diagnostics, raw)
    locations = re.findall(rb"^(\S+\(\d+,\d+\)): error (TS\d+)", raw, re.M)
    assert len(locations) > 400
    for loc, code in locations:
        assert loc in visible and code in visible
    # a folded rule: its line names the count, and its ref holds exactly the folded lines of that rule
    m = re.search(rb"^\[TS7006 \xc3\x97(\d+) more \(.*?; exact lines: #ref:(ctx_\w+)\]$", visible, re.M)
    assert m
    folded = bytes(refs[m.group(2).decode()])
    assert folded.count(b"error TS7006") == int(m.group(1)) == raw.count(b"error TS7006") - 2
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
RUFF_PARSEABLE = b"""tqdm/_utils.py:7: [E501] Line too long (93 > 88)
tqdm/asyncio.py:49: [B904] Within an `except` clause, raise exceptions with `raise ... from err` or `raise ... from None` to distinguish them from errors in exception handling
tqdm/asyncio.py:71: [E501] Line too long (92 > 88)
tqdm/cli.py:231: [B904] Within an `except` clause, raise exceptions with `raise ... from err` or `raise ... from None` to distinguish them from errors in exception handling
"""


def test_ruff_grouped_and_parseable_formats_are_diagnostics_and_pass_through_when_small():
    for raw, locations in ((RUFF_GROUPED, [b"7:89", b"49:13", b"71:89", b"231:17", b"51:89"]),
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


def test_heading_output_over_budget_keeps_the_path_line_and_names_the_ref():
    raw = (FIXTURES / "rg_heading_context.txt").read_bytes()
    visible, refs, _ = reduced(search, raw, search.Settings(per_file=1, total=3))
    m = re.search(rb"^tests/tests_tqdm\.py \[3 matches, 1 shown; the rest: #ref:(ctx_\w+)\]$", visible, re.M)
    assert m
    folded = bytes(refs[m.group(1).decode()])
    assert b"1822:" in folded and b"1923:" in folded  # the other hits and their context, exact
    assert b"13:from tqdm import TqdmDeprecationWarning, TqdmWarning, tqdm, trange" in visible


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


def test_python_warnings_with_source_lines_are_neither_search_nor_diagnostics():
    raw = b"".join(b"/venv/lib/python3.11/site-packages/pkg/mod%d.py:%d: DeprecationWarning: pkg_resources is deprecated\n"
                   b"  import pkg_resources\n" % (i, i * 7 + 3) for i in range(12))
    assert classify(raw)[0] not in ("search", "diagnostics")


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


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FRAGMENTS = [b"src/a.py:", b"src/b c.py:", b"Makefile", b"12:", b"3-", b"--", b"\n", b"\r\n", b"error: ", b"E501 ",
             b" --> x.rs:1:2", b"  |", b"   ^~~", b"\xff\xfe", b"\xc3\xa9", b"\x1b[31m", b"\x1b[0m", b"warning[W1]: ",
             b"(1,2): error TS1: ", b"  4:2  error  msg  rule", b"Binary file x matches", b"pattern" * 40, b" "]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=80), st.integers(1, 4), st.integers(1, 3))
def test_any_input_restores_exactly(parts, per_file, examples):
    raw = b"".join(parts)
    reduced(search, raw, search.Settings(per_file=per_file, total=per_file * 2, line_max=40))
    reduced(diagnostics, raw, diagnostics.Settings(max_shown=per_file, examples=examples, max_locations=2))


def test_rg_binary_notices_fold_into_one_line():
    raw = (FIXTURES / "grep_rn_long_lines.txt").read_bytes().replace(
        b"grep: ./.git/index: binary file matches\n",
        b'./.git/index: binary file matches (found "\\0" byte around offset 4)\n')
    assert classify(raw)[0] == "search"
    visible, refs, _ = reduced(search, raw)
    assert b"byte around offset" not in visible
    m = re.search(rb"2 binary files match \(\./\.git/objects/pack/\S+, \./\.git/index\): #ref:(ctx_\w+)", visible)
    assert m and bytes(refs[m.group(1).decode()]).count(b"binary file matches") == 2


def test_one_files_hits_without_a_path_fold_past_the_total_budget():
    """grep -n PATTERN FILE (real: self. in tqdm/std.py): no path to group by; the total budget applies."""
    raw = (FIXTURES / "grep_n_one_file.txt").read_bytes()
    assert classify(raw)[0] == "search"
    visible, refs, _ = reduced(search, raw, search.Settings(total=40))  # lines without a path: 1.5 times as many
    lines = raw.splitlines(keepends=True)
    assert visible.startswith(f"[{len(lines)} matches, 60 shown; the rest: #ref:".encode())
    assert visible.split(b"\n", 1)[1] == b"".join(lines[:60])
    [rest] = refs.values()
    assert bytes(rest) == b"".join(lines[60:])


def test_a_numbered_listing_of_a_file_is_not_search():
    source = (PROJECT / "operators" / "types" / "search.py").read_bytes().splitlines(keepends=True)[:60]
    numbered = b"".join(b"%d:%s" % (i + 1, line) for i, line in enumerate(source))
    assert classify(numbered)[0] != "search"


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


@pytest.mark.parametrize("line", [
    b"2026-01-01T10:%02d:%02d.123Z INFO http GET /api/v1/items/%d 200 4ms\n",  # ISO time: "2026-01-01T10" is no path
    b"12:%02d:%02d.%03d INFO worker done\n",  # time of day: "12:" is no line number
    b"Dec  3 09:%02d:%02d host sshd[%d]: Accepted publickey\n",
])
def test_timestamped_logs_are_not_search(line):
    raw = b"".join(line % (i // 60 % 60, i % 60, i) for i in range(300))
    assert classify(raw)[0] not in ("search", "diagnostics")
    assert search.detect(__import__("operators.types", fromlist=["Sample"]).Sample(raw)) is None


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


def test_a_search_over_the_ceiling_counts_every_file_first_even_when_nothing_folds():
    from operators.ceiling import CeilingSettings, fit
    from operators.config import config_class

    raw = (FIXTURES / "grep_rn_throw_gson.txt").read_bytes()
    firsts = {}
    for line in raw.splitlines(keepends=True):
        firsts.setdefault(line.split(b":", 1)[0], line)
    one_each = b"".join(firsts.values())  # one hit in each of 82 files: nothing for the reducer to fold
    config = config_class()(ceiling=CeilingSettings(max_chars=4000))
    plan = search.reduce(one_each, "coarse", config)
    visible = render(plan, {g: f"ctx_{i:06x}" for i, g in enumerate(plan.reasons)})[0]
    assert visible.startswith(f"[82 matching lines in 82 files; hits per file:]\n".encode())
    assert visible.endswith(one_each)  # then every hit as printed
    cut = fit(plan, 4000, "search", config)
    shown = render(cut, {g: f"ctx_{i:06x}" for i, g in enumerate(cut.reasons)})[0]
    names = sum(bool(re.search(rb"^ +1 " + re.escape(p) + rb"$", shown, re.M)) for p in firsts)
    hits = sum(line[:100] in shown for line in firsts.values())
    assert names >= 30 and hits < names / 4  # the count lines go first (a few hits come with the tail)
    default = search.reduce(one_each, "coarse", config_class()())  # under the default ceiling: as it is
    assert render(default, {})[0] == one_each
