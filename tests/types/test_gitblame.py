"""The gitblame type (operators/types/gitblame.py): every code line and each commit once, definition lines
as git printed them, the budget fitted on real blames; byte-exact restore."""

from __future__ import annotations

import re

import pytest

from conftest import check_fixture_through_the_graph, fixture_bytes, odd_variants, reduce_alone, reduce_bytes, type_data
from operators.ceiling import CeilingSettings, fit, visible_size
from operators.classify import classify
from operators.config import config_class
from operators.reduction import omissions, render, restore
from operators.kernel import blame_twins
from operators.types import gitblame
from operators.vocab import SIGNAL_RE

EXPECTED_TYPE = {
    "git_blame_s.txt": "gitblame",
    "git_blame.txt": "gitblame",
    "git_blame_porcelain.txt": "gitblame",
    "git_blame_line_porcelain.txt": "gitblame",
}


def run(module, raw: bytes, granularity: str = "coarse", config=None):
    """The module's plan on ``raw``: the visible bytes and each group's bytes, restore checked."""
    alone = reduce_alone(module, raw, config or config_class()(), granularity)
    return alone.visible, alone.contents


# --- detection -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED_TYPE))
def test_each_fixture_is_classified_as_its_git_type(name):
    assert classify(fixture_bytes(name))[0] == EXPECTED_TYPE[name]


# --- must-see strings and the three invariants, through the whole graph --------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED_TYPE))
def test_planted_signals_survive_and_everything_restores(name):
    check_fixture_through_the_graph(name, EXPECTED_TYPE[name])


# --- git blame -----------------------------------------------------------------------------------


def test_blame_shows_each_commit_once_and_every_code_line():
    raw = fixture_bytes("git_blame.txt")
    visible, _ = run(gitblame, raw)
    rows = raw.split(b"\n")[:-1]
    shown = visible.split(b"\n")
    for row in rows:
        number_and_code = re.search(rb" +(\d+\) .*)$", row).group(1)
        assert any(line.endswith(number_and_code) for line in shown), row
    def whole(row: bytes) -> bool:  # a line with a signal word or a definition stays as git printed it
        return bool(SIGNAL_RE.search(row) or re.search(rb"\d\) \s*(?:def|class) ", row))

    for commit in {row.split(b" ", 1)[0] for row in rows if not whole(row)}:
        introduced = re.findall(rb"^" + re.escape(commit) + rb" \(", visible, re.M)
        # author and date once per commit (and on its lines kept whole)
        kept = sum(1 for row in rows if row.startswith(commit + b" (") and whole(row))
        assert len(introduced) == 1 + kept, commit
    # a commit's first line: author and date without time and zone; a definition line as git printed it
    assert b"e21793e90 (Filipe Brandenburger 2024-11-17   8) from ._make import" in visible
    assert b"e21793e90 (Filipe Brandenburger 2024-11-17 03:15:26 -0800  36)         def optional_converter(" in visible
    assert len(visible) < 0.5 * len(raw)


def test_blame_porcelain_keeps_code_and_one_author_and_summary_per_run():
    raw = fixture_bytes("git_blame_porcelain.txt")
    visible, _ = run(gitblame, raw)
    for line in raw.split(b"\n"):
        if line.startswith(b"\t"):
            assert line + b"\n" in visible
    assert b"author-mail" not in visible and b"committer-time" not in visible
    assert visible.count(b"summary Add on_setattr hooks to attr.s and attr.ib (#660)") >= 1


def test_blame_s_shows_each_runs_commit_and_every_number_and_code():
    raw = fixture_bytes("git_blame_s.txt")  # git blame -s (a file blame followed across a rename)
    visible, _ = run(gitblame, raw)
    shown = visible.split(b"\n")
    rows = raw.split(b"\n")[:-1]
    assert rows[0] in shown  # the file name once, on the first line
    prev = None
    for row in rows:
        commit = row.split(b" ", 1)[0]
        number_and_code = re.search(rb" +(\d+\) .*)$", row).group(1)
        if commit != prev:  # each run shows its commit
            assert any(line.startswith(commit + b" ") and line.endswith(number_and_code) for line in shown), row
        else:
            assert number_and_code in visible
        prev = commit
    # the file name column is shown when it changes (old lines come from attr/__init__.py), and on
    # lines with a signal word (kept whole)
    files = [re.match(rb"\S+ (.*?) +\d+\) ", row).group(1) for row in rows]
    changes = 1 + sum(1 for a, b in zip(files, files[1:]) if a != b)
    whole = sum(1 for row in rows[1:] if SIGNAL_RE.search(row) or re.search(rb"\d\) \s*(?:def|class) ", row))
    assert 1 <= visible.count(b"attr/__init__.py") <= changes + whole < len(rows) / 3
    assert len(visible) < 0.75 * len(raw)


def test_blame_signal_lines_stay_whole():
    raw = fixture_bytes("git_blame.txt")
    with_error = [line for line in raw.split(b"\n") if b"Error" in line or b"error" in line]
    visible, _ = run(gitblame, raw)
    for line in with_error:
        assert line in visible


# --- odd input: never raises, always restores ----------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED_TYPE))
def test_crlf_no_final_newline_and_cut_inputs_restore(name):
    for variant in odd_variants(fixture_bytes(name), name, b"\n\r\x00\xff +-@c:"):
        run(gitblame, variant)

BLAME_RE = re.compile(rb"^\^?[0-9a-f]{7,40} (?:\S+ +)?\(.*? +\d+\) (.*)$")
DEFINITION = {  # what a reader of each language calls a definition (independent of the type's patterns)
    "go": re.compile(rb"^(?:func |type \w+ (?:struct|interface)\b)"),
    "py": re.compile(rb"^\s*(?:async def|def|class) \w+"),
    "js": re.compile(rb"^\s*(?:function \w+|class \w+|[\w.]+ = function\b)"),
    "rs": re.compile(rb"^\s*(?:pub(?:\([^)]*\))? )?(?:fn|struct|enum|trait|impl|type|union)\b"),
}



def definitions(raw: bytes, lang: str) -> list[bytes]:
    out = []
    for line in raw.split(b"\n"):
        m = BLAME_RE.match(line)
        if m and DEFINITION[lang].match(m.group(1)):
            out.append(line)
    return out


def run_blame(raw: bytes, config=None):
    alone = reduce_alone(gitblame, raw, config or config_class()())
    return alone.plan, alone.visible, alone.contents


def test_definition_lines_stay_as_git_printed_them_the_others_are_compact():
    raw = type_data("git_blame_axios_searchparams_js.txt")
    _, visible, _ = run_blame(raw)
    defs = definitions(raw, "js")
    assert len(defs) >= 4 and any(b"prototype.append = function append(" in d for d in defs)
    shown = visible.split(b"\n")
    for line in defs:
        assert line in shown, line
    # a line that is no definition keeps its number and code, not its date and time
    assert b"2022-05-25 09:16:38 +0300 15)" not in visible
    assert re.search(rb"^934f390cc +15\)     '!': '%21',$", visible, re.M)


def test_rust_items_and_methods_are_definitions():
    raw = type_data("git_blame_clap_action_rs.txt.gz")
    _, visible, _ = run_blame(raw)
    defs = definitions(raw, "rs")
    assert any(b") pub enum ArgAction {" in d for d in defs) and any(b" fn " in d for d in defs)
    shown = set(visible.split(b"\n"))
    assert [d for d in defs if d not in shown] == []


def test_a_blame_over_the_ceiling_keeps_every_definition_and_fits_by_itself():
    raw = type_data("git_blame_fzf_light_go.txt.gz")
    config = config_class()(ceiling=CeilingSettings(max_chars=50_000))  # room for the lines after each definition
    plan, visible, contents = run_blame(raw, config)
    defs = definitions(raw, "go")
    assert len(defs) > 80 and len(raw) > 100_000
    shown = set(visible.split(b"\n"))
    assert [d for d in defs if d not in shown] == []
    assert visible_size(plan) <= config.ceiling.target_chars * gitblame.ROOM_SHARE < 0.5 * config.ceiling.max_chars
    # the lines between the definitions are counted in place and kept in one ref
    folds = [int(n.replace(b",", b"")) for n in re.findall(rb"^\[\xe2\x80\xa6 ([\d,]+) lines?\]$", visible, re.M)]
    assert folds and sum(folds) == bytes(contents[gitblame.BODY_GROUP]).count(b"\n")
    assert b"\xe2\x80\xa6 1 lines]" not in visible and b"\xe2\x80\xa6 1 line]" in visible  # one line: "1 line"
    # the source stays readable: a definition is followed by the lines right after it
    first = defs[0]
    after = raw.split(first + b"\n", 1)[1].split(b"\n", 1)[0]
    assert BLAME_RE.match(after).group(1) in visible


def test_a_blame_under_the_ceiling_shows_every_line():
    raw = type_data("git_blame_axios_searchparams_js.txt")
    _, visible, _ = run_blame(raw)
    for line in raw.split(b"\n"):
        m = BLAME_RE.match(line)
        if m:
            assert m.group(1) in visible
    assert b"lines]\n" not in visible


def test_under_a_small_budget_the_definitions_come_first():
    raw = type_data("git_blame_attrs_validators_py.txt.gz")
    plan, _, _ = run_blame(raw, config_class()(ceiling=CeilingSettings(max_chars=50_000)))  # a plan the budget cuts
    defs = definitions(raw, "py")
    assert len(defs) >= 30
    budget = 16_000  # the definitions and a gap line between each two fit, the rest does not
    assert visible_size(plan) > budget + 4000
    cut = fit(plan, budget, "gitblame", config_class()())
    contents = omissions(cut)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(cut.reasons)}
    visible, layout, _ = render(cut, ids)
    assert restore(visible, layout, [contents[g] for g in cut.reasons]) == raw
    shown = set(visible.split(b"\n"))
    assert [d for d in defs if d not in shown] == []


def test_rank_lines_puts_definitions_in_tier_zero_and_code_signal_words_in_tier_one():
    lines = [
        b"046beaaaa (Hynek Schlawack 2021-12-27   1) # SPDX-License-Identifier: MIT",
        b"  2) ",
        b"e21793e90 (Filipe Brandenburger 2024-11-17 03:15:26 -0800  36)         def optional_converter(val, inst, field):",
        b"  37)             raise ValueError('x')",
        b"[\xe2\x80\xa6 12 lines]",
    ]
    ranked = gitblame.rank_lines(lines, None)
    assert ranked[2] == (0, 0) and ranked[3] == (1, 0) and ranked[0] == (2, 0) and ranked[4] is None
    porcelain = [  # --porcelain: the code lines start with a tab
        b"fdfd51e24c0ee8c4ec39bd3bc1a6e45b3ff7c0ff 33 33 2",
        b"author Timothy Emiola",
        b"\tdef optional(converter):",
        b"\t    return converter",
    ]
    ranked = gitblame.rank_lines(porcelain, None)
    assert ranked[2] == (0, 0) and ranked[3] == (2, 0) and ranked[0] is None


def test_a_blame_of_a_file_without_definitions_is_not_fitted():
    raw = type_data("git_blame_fzf_changelog_head1000.txt.gz")  # prose: no definition to fit by
    plan, visible, _ = run_blame(raw)
    assert visible_size(plan) > 25_000  # left to the output ceiling's head and tail
    assert gitblame.BODY_GROUP not in plan.reasons and b" lines]\n" not in visible


def test_the_whole_pipeline_shows_every_definition_of_a_big_blame():
    raw = type_data("git_blame_fzf_light_go.txt.gz")
    packet = reduce_bytes(raw)
    assert packet.type == "gitblame" and packet.restore_pass and packet.signal_pass
    shown = set(packet.visible.split(b"\n"))
    assert [d for d in definitions(raw, "go") if d not in shown] == []


# --- the one-pass scan of big blames --------------------------------------------------------------


def _line_matches(raw: bytes) -> list:
    """BLAME_RE's match (whole span and groups) at each line start after the first, None where none."""
    out, start = [], raw.find(b"\n") + 1
    while 0 < start <= len(raw):
        end = raw.find(b"\n", start)
        end = len(raw) if end < 0 else end
        m = gitblame.BLAME_RE.match(raw, start, end - (raw[end - 1 : end] == b"\r" and end > start))
        out.append(m and [m.span(k) for k in range(4)])
        start = end + 1
    return out


def _scan_matches(raw: bytes) -> list:
    found = {m.start() + 1: [(m.start() + 1, m.end()), *(m.span(k) for k in range(1, 4))]
             for m in blame_twins.BLAME_SCAN.finditer(raw)}
    out, start = [], raw.find(b"\n") + 1
    while 0 < start <= len(raw):
        out.append(found.get(start))
        start = raw.find(b"\n", start) + 1 or len(raw) + 1
    return out


@pytest.mark.parametrize("name", ["git_blame_axios_searchparams_js.txt", "git_blame_clap_action_rs.txt.gz",
                                  "git_blame_fzf_light_go.txt.gz", "git_blame_attrs_validators_py.txt.gz"])
def test_the_one_pass_scan_finds_what_the_line_pattern_finds_on_real_blames(name):
    raw = type_data(name)
    assert _scan_matches(raw) == _line_matches(raw) and sum(map(bool, _line_matches(raw))) > 50
    import operators.kernel as dispatch
    from operators.types.gitlog import LineTable

    starts = LineTable(raw).starts  # the kernel's code columns: the scan's ends, -1 where it found none
    code, width = dispatch.blame_columns(raw, starts)
    assert list(code) == [m[0][1] if m else -1 for m in [None] + _scan_matches(raw)][: len(code)]
    assert (list(code), width) == (list(blame_twins.blame_columns_py(raw, starts)[0]), width)


def test_the_one_pass_scan_finds_what_the_line_pattern_finds_on_random_lines():
    """Lines made of the characters where a lazy and a possessive pattern could part: spaces, digits,
    parentheses, carriage returns, hex digits; planted shapes among them."""
    import random

    rng = random.Random(23)
    pieces = [b"a", b"0", b"12", b" ", b"  ", b"(", b")", b"\r", b"x", b"^", b"f", b"-", b"9)", b" 7) "]
    heads = [b"abcd ", b"^0f1e ", b"", b"abcdef0 src/a.py ", b"0123456789abcdef0123456789abcdef012345678 "]
    lines = [rng.choice(heads) + b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 24))) for _ in range(60_000)]
    raw = b"\n".join(lines) + b"\n"
    expected = _line_matches(raw)
    assert _scan_matches(raw) == expected and 1000 < sum(map(bool, expected)) < len(expected) - 1000


@pytest.mark.parametrize("name", ["git_blame_axios_searchparams_js.txt", "git_blame_attrs_validators_py.txt.gz"])
def test_the_floor_of_the_estimates_is_the_least_selections_estimated_lines(name):
    """``_floor`` (what lets a blame far over the room skip every selection with a head) is the costs of
    the least such selection summed, an empty line and a head line that is no definition included."""
    from itertools import compress

    from operators.types.gitlog import LineTable

    raw = type_data(name)
    raw = b"\n" + raw[: raw.index(b"\n", 2000) + 1] + raw  # an empty first line, in the head
    lines = LineTable(raw)
    code, _ = gitblame._columns(raw, lines)
    lang = gitblame.code_language([raw[c:b] for c, b in zip(code, lines.bodies) if c >= 0])
    sig = gitblame._signatures(raw, lines, code, lang)
    for head in (0, 1, 12, 40):
        least = gitblame._selection(sig, 0, head)
        assert gitblame._floor(lines, code, sig, head) == sum(compress(gitblame._costs(lines, code, sig), least))
    assert sig.count(1) > 3 and sig[:40].count(1) < 40 and code[0] == -1
