"""Source files and JSON documents over the output ceiling, on real outputs (tests/data/types/README.md):
a cut source file shows its whole outline first, then the file from its top; Kotlin is source; a
line comment holding ``/*`` opens no comment block."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from conftest import reduce_bytes

from operators.ceiling import fit
from operators.classify import classify
from operators.config import Config
from operators.reduction import omissions, render, restores_to
from operators.types import source

DATA = Path(__file__).parent / "data" / "types"
CEILING = 25_000


def data(name: str) -> bytes:
    path = DATA / name
    return gzip.decompress(path.read_bytes()) if name.endswith(".gz") else path.read_bytes()


def cut(module, kind: str, raw: bytes, budget: int) -> bytes:
    """The type's plan cut to ``budget`` by the output ceiling: its visible text, restore checked."""
    plan = fit(module.reduce(raw, "coarse", Config()), budget, kind, Config())
    refs = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restores_to(raw, visible, layout, [refs[g] for g in plan.reasons])
    return visible


# What a reader calls a definition, per language, written independently of the type's patterns.
DEFINITIONS = {
    "cat_serde_ser_mod_rs.txt.gz": re.compile(
        rb"^\s*(?:pub(?:\(\w+\))? )?(?:unsafe )?(?:fn|struct|enum|trait|impl|mod|type|macro_rules!)[\s<!]"),
    "cat_fzf_options_go.txt.gz": re.compile(rb"^(?:func |type \w+ (?:struct|interface|func)\b)"),
    "cat_zod_v4_core_schemas_ts.txt.gz": re.compile(
        rb"^export (?:(?:abstract |declare )?class|(?:async )?function) [\w$]+"),
    "cat_backbone_js.txt.gz": re.compile(rb"^\s*[\w$.]+ = function\b|^    [a-zA-Z_]+: function\("),
    "cat_gson_jsonreader_java.txt.gz": re.compile(
        rb"^  (?:public|private|protected)(?: static| final)* [\w<>\[\]]+ \w+\([^;]*$|^public (?:final )?class "),
    "cat_okhttp_httpurl_kt.txt.gz": re.compile(rb"^\s*(?:(?:private|internal|override|inline|operator) )*fun "),
}


def definitions(raw: bytes, pattern) -> list[tuple[int, bytes]]:
    return [(n, line.rstrip()) for n, line in enumerate(raw.split(b"\n"), 1) if pattern.match(line)]


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
def test_a_cut_source_file_shows_every_definition_then_its_first_lines(name):
    raw = data(name)
    assert classify(raw)[0] == "source" and len(raw) > 2 * CEILING
    wanted = definitions(raw, DEFINITIONS[name])
    assert len(wanted) >= 10
    visible = cut(source, "source", raw, CEILING)
    assert len(visible) <= CEILING
    outline, _, rest = visible.partition(b"[end of outline]\n")
    assert rest, "the outline comes first"
    for number, line in wanted:  # each as printed, with its line number
        assert b"\n%d: %s\n" % (number, line) in outline, (number, line)
    first = raw[: raw.index(b"\n", 2000) + 1]
    if not first.lstrip().startswith((b"/*", b"//", b"/**")):  # a license header is parked behind a ref
        assert rest.startswith(first), "then the file from its first line"
    else:
        assert raw[len(first) - 600 : len(first)] in rest
    assert b"signal template" not in visible and b"must-see line" not in visible  # code naming errors is code


def test_code_that_names_errors_does_not_jump_ahead_of_the_file():
    raw = data("cat_serde_ser_mod_rs.txt.gz")  # a trait full of `Error` lines, comments and doc links
    visible = cut(source, "source", raw, CEILING)
    rest = visible.partition(b"[end of outline]\n")[2]
    shown = [line for line in rest.split(b"\n") if line and not line.startswith(b"[")]
    lines = raw.split(b"\n")
    at = lines.index(shown[0])
    run = 0
    while run < len(shown) and at + run < len(lines) and lines[at + run].rstrip() == shown[run].rstrip():
        run += 1
    assert run >= 100  # the head of the file is shown as one block, not error lines picked from its body


def test_an_outline_over_its_share_keeps_the_outer_definitions_and_counts_the_others():
    raw = data("cat_serde_ser_mod_rs.txt.gz")
    visible = cut(source, "source", raw, 4_000)
    outline = visible.partition(b"[end of outline]\n")[0]
    outer = [(n, line) for n, line in definitions(raw, re.compile(rb"^(?:pub )?(?:trait|mod|macro_rules!) ")) ]
    assert len(outer) >= 5
    for number, line in outer:
        assert b"\n%d: %s\n" % (number, line) in outline
    nested = definitions(raw, re.compile(rb"^    fn "))
    assert len(nested) >= 20
    assert sum(b"%d: %s" % (n, line) in outline for n, line in nested) < len(nested)
    assert re.search(rb"\n\[\xe2\x80\xa6 [\d,]+ more definitions: ", outline)


def test_a_source_file_under_the_ceiling_shows_no_outline():
    raw = data("cat_gson_jsonreader_java.txt.gz")[:20_000]
    raw = raw[: raw.rindex(b"\n") + 1]
    visible = reduce_bytes(raw, forced_type="source").visible  # a raw text under the ceiling is never cut
    assert b"[end of outline]" not in visible and visible.startswith(b"[license header: 15 lines")
    assert visible.endswith(raw[-3000:])


def test_kotlin_is_source_with_its_classes_and_functions():
    raw = data("cat_okhttp_httpurl_kt.txt.gz")
    kind, reason = classify(raw)
    assert kind == "source" and reason.startswith("kotlin source"), reason
    lang, _, _, sigs = source.outline(raw)
    assert lang == "kotlin"
    texts = [s.split(": ", 1)[1].strip() for s in sigs]
    assert "class HttpUrl private constructor(" in texts
    assert "class Builder {" in texts and "companion object {" in texts
    assert sum(t.startswith(("fun ", "override fun ", "internal fun ", "private fun ")) for t in texts) >= 50


def test_a_line_comment_holding_slash_star_opens_no_comment_block():
    raw = data("cat_serde_ser_mod_rs.txt.gz")  # `//! [`LinkedHashMap<K, V>`]: https://docs.rs/…/*/…` in its module doc
    doc = re.search(rb"^//!.*/\*.*$", raw, re.M).group()
    code = raw[raw.index(b"\nmod fmt;") + 1 :].split(b"\n")[:400]
    kept = source._outside_comments([doc] + code)
    assert b"pub trait Serialize {" in kept and len(kept) >= 60  # an opened block would swallow them
    assert classify(raw)[0] == "source"
    js = b'const glob = "src/**/*.ts";\n' + b"export function f(a) {\n  return a + 1;\n}\n" * 4
    assert len(source._outside_comments(js.split(b"\n"))) == len(js.split(b"\n"))


def test_js_outline_has_prototype_assignments_object_methods_and_class_members():
    lang, _, _, sigs = source.outline(data("cat_backbone_js.txt.gz"))
    texts = [s.split(": ", 1)[1] for s in sigs]
    assert lang == "js"
    assert "  Backbone.noConflict = function() {" in texts
    assert "    set: function(key, val, options) {" in texts
    ts = (b"export class Schema<T> {\n  private cache: Map<string, T> = new Map();\n"
          b"  _getCached(): { shape: T; keys: string[] } {\n    return this.x;\n  }\n"
          b"  ip(options?: string | { version?: 4; message?: string }) {\n    if (options) {\n      return 1;\n    }\n  }\n"
          b"  describe(name: string) {\n    it(\"works\", () => {\n      call(a, {\n      });\n    });\n  }\n}\n")
    got = [s.split(": ", 1)[1].strip() for s in source.outline(ts)[3]]
    assert got == ["export class Schema<T> {", "_getCached(): { shape: T; keys: string[] } {",
                   "ip(options?: string | { version?: 4; message?: string }) {", "describe(name: string) {"]


# -- JSON ---------------------------------------------------------------------------------------------
def json_cut(raw: bytes) -> bytes:
    from operators.types import json as jsontype

    return cut(jsontype, "json", raw, CEILING)


def test_a_test_report_shows_every_test_whose_outcome_is_not_the_usual_one():
    raw = data("pytest_json_report_attrs_funcs.json.gz")  # 635 passed, 10 failed, 7 skipped, 1 xfailed
    doc = json.loads(raw)
    assert classify(raw)[0] == "json" and len(raw) > 400_000
    visible = json_cut(raw)
    assert len(visible) <= CEILING
    unusual = [t for t in doc["tests"] if t["outcome"] != "passed"]
    assert len(unusual) == 18
    for test in unusual:
        assert b'{"nodeid": %s, "lineno": %d, "outcome": "%s"' % (
            json.dumps(test["nodeid"]).encode(), test["lineno"], test["outcome"].encode()) in visible, test["nodeid"]
    for test in (t for t in unusual if t["outcome"] == "failed"):  # each failure's crash message as written
        assert json.dumps(test["call"]["crash"]["message"]).encode() in visible
    assert visible.count(b'"outcome": "passed", "keywords"') <= 6  # the passed ones are folded
    assert b'"\xe2\x80\xa6": "traceback, longrepr: #ref:ctx_' in visible  # the bulk of a failure, named


def test_a_linter_json_after_its_warnings_is_json_with_every_rule_and_message():
    raw = data("ruff_json_httpx_client.txt.gz")  # ruff prints two warning lines before the array
    assert raw.startswith(b"warning: ") and classify(raw) == ("json", "parses as JSON after 2 lines printed before it")
    items = json.loads(raw[raw.index(b"\n[") + 1 :])
    visible = json_cut(raw)
    assert visible.startswith(raw[: raw.index(b"\n[") + 3])  # the warnings as printed, then the array
    assert len(visible) <= CEILING and len(raw) > 6 * len(visible)
    for code in {item["code"] for item in items}:
        assert b'"code": "%s"' % code.encode() in visible, code
    for message in {item["message"] for item in items}:  # they repeat: each distinct one stays
        assert b'"message": ' + json.dumps(message).encode() in visible, message


def test_a_linter_json_with_mostly_distinct_messages_keeps_every_rule():
    raw = data("ruff_json_typer_main.txt.gz")
    items = json.loads(raw[raw.index(b"\n[") + 1 :])
    visible = json_cut(raw)
    assert classify(raw)[0] == "json" and len(visible) <= CEILING
    for code in {item["code"] for item in items}:
        assert b'"code": "%s"' % code.encode() in visible, code


def test_go_outline_has_function_types_and_generic_types():
    go = (b"package util\n\nimport \"sync\"\n\n// ConcurrentSet is a thread-safe set\n"
          b"type ConcurrentSet[T comparable] struct {\n\tlock  sync.Mutex\n\titems map[T]struct{}\n}\n\n"
          b"type ItemBuilder func(*Item, []byte) bool\n\n"
          b"func NewConcurrentSet[T comparable]() *ConcurrentSet[T] {\n\treturn &ConcurrentSet[T]{items: make(map[T]struct{})}\n}\n")
    lang, _, _, sigs = source.outline(go)
    assert lang == "go"
    assert [s.split(": ", 1)[1] for s in sigs] == [
        "type ConcurrentSet[T comparable] struct {", "type ItemBuilder func(*Item, []byte) bool",
        "func NewConcurrentSet[T comparable]() *ConcurrentSet[T] {"]


def test_ndjson_after_a_warning_line_is_json_and_keeps_its_odd_lines():
    from operators.types import json as jsontype

    lines = [json.dumps({"ts": f"2024-01-01T00:00:{i:02d}", "level": "error" if i % 17 == 5 else "info",
                         "msg": "upstream timed out" if i % 17 == 5 else "request handled", "id": i}) for i in range(60)]
    raw = ("npm warn config production Use `--omit=dev` instead.\n" + "\n".join(lines) + "\n").encode()
    assert classify(raw)[0] == "json"
    plan = jsontype.reduce(raw, "coarse", Config())
    refs = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restores_to(raw, visible, layout, [refs[g] for g in plan.reasons])
    assert visible.startswith(b"npm warn config production") and len(visible) < len(raw) / 2
    for i in (5, 22, 39, 56):  # every error line stays
        assert lines[i].encode() + b"\n" in visible


def test_an_outline_too_long_keeps_every_outer_definition_and_a_share_of_the_nested_ones():
    raw = data("cat_backbone_js.txt.gz")
    head = source.cut_head(raw, 5_000)
    assert len(head) <= 5_000
    shown = {int(line.split(b":", 1)[0]) for line in head.split(b"\n")[1:] if line[:1].isdigit()}
    outer = definitions(raw, re.compile(rb"^  (?:var \w+|[\w.]+) = function\b"))
    assert len(outer) >= 20 and all(n in shown for n, _ in outer)  # `var x = function` is no constant
    nested = definitions(raw, re.compile(rb"^      [\w.]+ = function\b"))
    assert 0 < sum(n in shown for n, _ in nested) < len(nested)
    members = definitions(raw, re.compile(rb"^    \w+: function\b"))
    assert 0 < sum(n in shown for n, _ in members) < len(members)
    assert re.search(rb"\n\[\xe2\x80\xa6 [\d,]+ more definitions: ", head)
