"""The source type (operators/types/source.py): code passes through, license headers park, level-0 outlines,
cut files show their definitions first; near misses; byte-exact restore."""

from __future__ import annotations

import ast
import re

import pytest

from conftest import (
    FIXTURES, check_fixture_through_the_graph, cut, fixture_bytes, reduce_alone, reduce_bytes, tokens_cli, type_data,
)
from operators.ceiling import target
from operators.classify import classify
from operators.types import Sample, source

CEILING = 25_000




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
    raw = type_data(name)
    assert classify(raw)[0] == "source" and len(raw) > 2 * CEILING
    wanted = definitions(raw, DEFINITIONS[name])
    assert len(wanted) >= 10
    visible = cut(source, "source", raw, CEILING)
    assert len(visible) <= CEILING
    outline, _, rest = visible.partition(b"[end of outline]\n")
    assert rest, "the outline comes first"
    for number, line in wanted:  # each as printed, with its line number
        assert b"\n%d: %s\n" % (number, line) in outline, (number, line)
    # the outline is must-see; the body fills what it leaves of the budget (not of the smaller target)
    assert len(rest) >= min(CEILING - len(outline) - 3_000, len(raw) // 3), "the body goes on to the budget"
    first = raw[: raw.index(b"\n", 400) + 1]  # a short head at least, whatever the outline took
    if not rest.startswith(b"[license header: "):  # a license header is parked behind a ref
        assert rest.startswith(first), "then the file from its first line"
    else:  # the first code after it comes right after its line
        code = next(ln for ln in raw.split(b"\n") if ln.strip() and not ln.lstrip().startswith((b"/*", b"*", b"//")))
        assert 0 < rest.find(code) < 300
    assert b"signal template" not in visible and b"must-see line" not in visible  # code naming errors is code


def test_code_that_names_errors_does_not_jump_ahead_of_the_file():
    raw = type_data("cat_serde_ser_mod_rs.txt.gz")  # a trait full of `Error` lines, comments and doc links
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
    raw = type_data("cat_serde_ser_mod_rs.txt.gz")
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
    raw = type_data("cat_gson_jsonreader_java.txt.gz")[:20_000]
    raw = raw[: raw.rindex(b"\n") + 1]
    visible = reduce_bytes(raw, forced_type="source").visible  # a raw text under the ceiling is never cut
    assert b"[end of outline]" not in visible and visible.startswith(b"[license header: 15 lines")
    assert visible.endswith(raw[-3000:])


def test_kotlin_is_source_with_its_classes_and_functions():
    raw = type_data("cat_okhttp_httpurl_kt.txt.gz")
    kind, reason = classify(raw)
    assert kind == "source" and reason.startswith("kotlin source"), reason
    lang, _, _, sigs = source.outline(raw)
    assert lang == "kotlin"
    texts = [s.split(": ", 1)[1].strip() for s in sigs]
    assert "class HttpUrl private constructor(" in texts
    assert "class Builder {" in texts and "companion object {" in texts
    assert sum(t.startswith(("fun ", "override fun ", "internal fun ", "private fun ")) for t in texts) >= 50


def test_a_line_comment_holding_slash_star_opens_no_comment_block():
    raw = type_data("cat_serde_ser_mod_rs.txt.gz")  # `//! [`LinkedHashMap<K, V>`]: https://docs.rs/…/*/…` in its module doc
    doc = re.search(rb"^//!.*/\*.*$", raw, re.M).group()
    code = raw[raw.index(b"\nmod fmt;") + 1 :].split(b"\n")[:400]
    kept = source._outside_comments([doc] + code)
    assert b"pub trait Serialize {" in kept and len(kept) >= 60  # an opened block would swallow them
    assert classify(raw)[0] == "source"
    js = b'const glob = "src/**/*.ts";\n' + b"export function f(a) {\n  return a + 1;\n}\n" * 4
    assert len(source._outside_comments(js.split(b"\n"))) == len(js.split(b"\n"))


def test_js_outline_has_prototype_assignments_object_methods_and_class_members():
    lang, _, _, sigs = source.outline(type_data("cat_backbone_js.txt.gz"))
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
                   "ip(options?: string | { version?: 4; message?: string }) {", "describe(name: string) {",
                   'it("works", () => {']  # a test block (a call with a callback is no member: `call(a, {`)
    fn_typed = (b"export class Client {\n"
                b"  async #raceBodyRead(create: () => Promise<unknown>, response: Response): Promise<unknown> {\n"
                b"    return create();\n  }\n"
                b"  #retry<T>(fn: (attempt: number) => Promise<T>): Promise<T> {\n    return fn(1);\n  }\n"
                b"  run() {\n    items.forEach((x) => {\n      use(x);\n    });\n  }\n}\n")
    got = [s.split(": ", 1)[1].strip() for s in source.outline(fn_typed)[3]]
    assert got == ["export class Client {",  # a parameter typed as a function is no arrow callback
                   "async #raceBodyRead(create: () => Promise<unknown>, response: Response): Promise<unknown> {",
                   "#retry<T>(fn: (attempt: number) => Promise<T>): Promise<T> {", "run() {"]


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


def test_an_outline_too_long_keeps_every_outer_definition_and_a_share_of_the_nested_ones():
    raw = type_data("cat_backbone_js.txt.gz")
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



def test_an_outline_over_the_budget_takes_nearly_all_of_it_first_to_last():
    """When the definitions alone are more than the budget, the outline is what the view is for: the
    file's first lines get only what it leaves (a twentieth), and the nested definitions shown are
    spread over the whole file, its last one included."""
    raw = type_data("cat_serde_ser_mod_rs.txt.gz")
    for budget in (3_000, 4_000):
        visible = cut(source, "source", raw, budget)
        outline, _, rest = visible.partition(b"[end of outline]\n")
        assert re.search(rb"\n\[\xe2\x80\xa6 [\d,]+ more definitions: ", outline)
        assert len(outline) >= 0.85 * budget, (budget, len(outline))
        nested = definitions(raw, re.compile(rb"^    fn "))
        shown = [n for n, line in nested if b"\n%d: %s\n" % (n, line) in outline]
        assert 0 < len(shown) < len(nested) and shown[-1] == nested[-1][0]
TYPED = {
    "cat_tqdm_utils_py.txt": "source",
    "cat_n_pflag_flag_go.txt": "source",
    "cat_zustand_persist_ts.txt": "source",
    "head_kilo_c.txt": "source",
}


def reduced(module, raw: bytes) -> tuple[bytes, dict]:
    """Reduce with one type directly; the plan must restore the original; visible text and refs."""
    alone = reduce_alone(module, raw, named=True)
    return alone.visible, alone.by_id()


# -- the fixtures through the product -------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(TYPED))
def test_fixture_is_classified_as_its_type(name):
    assert classify(fixture_bytes(name))[0] == TYPED[name]


@pytest.mark.parametrize("name", sorted(TYPED))
def test_fixture_through_the_graph_keeps_signals_and_restores(name):
    check_fixture_through_the_graph(name, TYPED[name])


# -- source ---------------------------------------------------------------------------------------
def test_source_level_1_passes_the_code_through_and_parks_the_license_header():
    raw = fixture_bytes("head_kilo_c.txt")
    visible, refs = reduced(source, raw)
    assert visible.startswith(b"[license header: 33 lines (Copyright (C) 2016 Salvatore Sanfilippo")
    assert b"Redistribution and use" not in visible
    [header] = [c for c in refs.values() if c.startswith(b"/* Kilo")]
    assert b"Redistribution and use" in header and header.endswith(b"*/\n")
    assert visible.endswith(raw[len(header):])  # the code after it: untouched
    visible, refs = reduced(source, fixture_bytes("cat_tqdm_utils_py.txt"))
    assert visible == fixture_bytes("cat_tqdm_utils_py.txt") and refs == {}


def test_source_license_header_of_a_numbered_go_file_stops_before_the_package_doc():
    raw = fixture_bytes("cat_n_pflag_flag_go.txt")
    visible, refs = reduced(source, raw)
    assert visible.startswith(b"[license header: 3 lines (Copyright 2009 The Go Authors. All rights reserved.)")
    assert b"Package pflag is a drop-in replacement" in visible


def test_level_0_outline_lists_every_python_def_and_class_with_its_line():
    raw = fixture_bytes("cat_tqdm_utils_py.txt")
    packet = reduce_bytes(raw)
    facts = source.facts(packet)
    tree = ast.parse(raw)
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    assert len(defs) > 30 and facts.total == len(defs)
    shown = "\n".join(facts.important)
    for node in defs:
        assert re.search(rf"^{node.lineno}: +(?:async def|def|class) {node.name}\b", shown, re.M), node.name
    assert facts.counts.startswith("python, 328 lines, ")


def test_level_0_outline_of_numbered_go_uses_the_printed_numbers():
    raw = fixture_bytes("cat_n_pflag_flag_go.txt")
    facts = source.facts(reduce_bytes(raw))
    funcs = [line for line in raw.splitlines() if re.match(rb" *\d+\tfunc ", line)]
    assert len(funcs) > 20 and facts.total >= len(funcs)
    for line in funcs:
        number, code = line.strip().split(b"\t", 1)
        assert f"{int(number)}: {code.decode()}" in facts.important


def test_level_0_outline_of_typescript_and_c():
    ts = source.facts(reduce_bytes(fixture_bytes("cat_zustand_persist_ts.txt")))
    for sig in ("7: export interface StateStorage<R = unknown> {", "31: export function createJSONStorage<S, R = unknown>(",
                "63: export interface PersistOptions<"):
        assert sig in ts.important
    c = source.facts(reduce_bytes(fixture_bytes("head_kilo_c.txt")))
    for sig in ("204: void disableRawMode(int fd) {", "307: int getCursorPosition(int ifd, int ofd, int *rows, int *cols) {",
                "96: struct editorConfig {"):
        assert sig in c.important


def test_tokens_analyze_level_0_prints_the_outline(tmp_path):
    result = tokens_cli("analyze", str(FIXTURES / "cat_tqdm_utils_py.txt"), "--level", "0",
                        env={"NOLIFE_TOKENS_HOME": str(tmp_path / "h")})
    assert result.returncode == 0, result.stderr
    assert b"source (python)" in result.stdout and b"315: def disp_trim(data, length):" in result.stdout


PROSE_WITH_SNIPPETS = b"""Getting started
===============

Install the package with pip and wrap any iterable to see a progress bar in your terminal.
It works in notebooks too, and the bar adapts to the width of the window you are using.

.. code:: python

    from tqdm import tqdm
    for i in tqdm(range(10000)):
        pass

You can also use it on the command line, where it reads from standard input and counts lines.
The options are the same as those of the Python class, with dashes instead of underscores.

.. code:: sh

    seq 9999999 | tqdm --bytes | wc -l

The bar can be nested, and each nested bar gets its own line in the output of the program.
When a bar is closed, its line is kept or removed depending on the leave argument given.
"""


@pytest.mark.parametrize("name", ["sample.log", "sample.diff", "git_log_p.txt", "pytest_failure.txt", "sample.txt",
                                  "grep_rn_rare.txt", "mypy.txt"])
def test_near_misses_are_not_source_listing_or_table(name):
    assert classify(fixture_bytes(name))[0] not in ("source", "listing", "table", "packages")


def test_prose_with_code_snippets_is_not_source():
    assert classify(PROSE_WITH_SNIPPETS * 3)[0] != "source"
    # the same code alone is
    code = fixture_bytes("cat_tqdm_utils_py.txt")
    assert source.detect(Sample(code)) is not None


def test_a_diff_of_source_is_a_diff():
    raw = fixture_bytes("sample.diff")
    assert classify(raw)[0] == "diff"
    assert source.score([ln for ln in raw.split(b"\n") if ln.strip()][:400]) is None


JAVA = b"""package com.example.demo;

import java.util.List;
import java.util.Map;

public class OrderService implements Service {
    private final Map<String, Order> orders;

    public OrderService(Map<String, Order> orders) {
        this.orders = orders;
    }

    @Override
    public List<Order> findAll() {
        return List.copyOf(orders.values());
    }

    private static int count(String key) throws IOException {
        if (key == null) {
            throw new IllegalStateException(key);
        }
        return orders.get(key).size();
    }

    interface Listener {
        void onOrder(Order order);
    }
}
"""


def test_level_0_outline_of_java_has_constructors_methods_and_interface_methods_not_statements():
    facts = source.outline(JAVA)
    assert facts[0] == "java" and facts[2] == 2
    assert facts[3] == ["6: public class OrderService implements Service {",
                        "9:     public OrderService(Map<String, Order> orders) {",
                        "14:     public List<Order> findAll() {",
                        "18:     private static int count(String key) throws IOException {",
                        "25:     interface Listener {", "26:         void onOrder(Order order);"]


# Lines of every shape a language's signature pattern takes, and near misses, planted among plain code
NEEDS_PLANTED = {
    "js": [b"export default async function* gen(a) {", b"class A extends B {", b"  interface Props {",
           b"export type Id<T> = string", b"declare enum Color { Red }", b"const f = async function (x) {",
           b"export const g = (a: number): number => a", b"let h = x => x", b"export var conf = 3",
           b"A.prototype.request = function(config) {", b"    get: function() {", b"  async load(id: string): Promise<X> {",
           b"  static #make<T>(a, { b }) {  \r", b"  render() {", b"  if (x) {", b"  x = y(z);", b"  return a(b);",
           b"  ifReady(x) {", b"  } else if (y) {", b"  forEach(f) {", b"export const C = <T,>(p: T) => p",
           b"export default class extends B {", b"  type = 3", b"\tcatch(e) {",
           b'describe("parser", () => {', b"  it.each(cases)('reads %s', async (c) => {", b"  test('x', () => 1);",
           b"  items = {"],
    "rust": [b"pub(crate) async unsafe fn go() {", b"#[derive(Debug)] pub struct S;", b"enum E {", b"pub trait T {",
             b"union U {", b"type R = Result<()>;", b"impl<T> Foo for T {", b"mod tests {", b"macro_rules! m {",
             b"pub const extern \"C\" fn f() {}", b"    let x = 1;", b"    x.fn_call();", b"const X: u8 = 1;"],
    "python": [b"def f(x):", b"async def g():", b"class A(B):", b"    def method(self) -> int:", b"x = 1",
               b"definitely = 2", b"classy()", b"\tasync  def h(): pass", b"# def not(this)"],
    "go": [b"func main() {", b"func (c *C) M() error {", b"type T struct {", b"type I interface {",
           b"type F func(int)", b"type G[T any] struct {", b"  x := 1", b"types := 2", b"  func inner() {"],
    "java": [b"public class A {", b"@Override public final class B extends C {", b"  private static int f(int a) {",
             b"  public Foo(int x) {", b"  void run() throws IOException;", b"  int x = f(y);", b"  return g(1);",
             b"  foo.bar(x);", b"  List<String> names(Map<K, V> m) {", b"enum E { A }", b"record R(int a) {}",
             b"  throw new X(y);", b"  new Thread(r);", b"  String s = t(u) {"],
    "c": [b"int main(int argc, char **argv) {", b"static void *alloc(size_t n)", b"struct point {",
          b"typedef struct node node_t;", b"  if (x) {", b"  return f(x);", b"enum color { RED };",
          b"unsigned long long hash(const char *s) {", b"if (x) y(z", b"Foo::~Foo()", b"x = f(y);"],
    "kotlin": [b"fun main() {", b"  override fun toString(): String {", b"data class P(val x: Int)", b"object Registry {",
               b"interface I {", b"typealias T = Int", b"  constructor(x: Int) : this()", b"  val x = fun(y: Int) = y",
               b"  funny()", b"@JvmStatic internal inline fun <T> f() {"],
    "shell": [b"function deploy {", b"build() {", b"  nvm_ls() {", b"echo hi", b"  x() ", b"f ()", b"a=$(b)",
              b"  function  x::y-z"],
}


@pytest.mark.parametrize("lang", sorted(source.SIGNATURE_ALTS))
@pytest.mark.parametrize("numbered", [False, True])
def test_a_signature_pattern_is_tried_only_where_its_needs_are_found_and_finds_the_same_lines(lang, numbered):
    """``SIGNATURE_NEEDS`` is a filter: the outline of a text of planted signatures and near misses (CRLF
    lines, indented, long lines; numbered by ``cat -n`` or not) lists what the signature pattern finds
    line by line, no more, no less; and each alternative's needs hold in every planted line it matches."""
    import random

    from operators.kernel.source_twins import source_lines_py

    rng = random.Random(5)
    planted = NEEDS_PLANTED[lang]
    lines = [rng.choice(planted) if rng.random() < 0.5 else rng.choice([b"  ", b"\t"]) * rng.randint(0, 3)
             + rng.choice(planted) for _ in range(3000)] + [b"class " + b"x" * 600]  # too long: data, never a signature
    shown = [b"%6d\t" % n + line if numbered else line for n, line in enumerate(lines, 1)]
    raw = b"\n".join(line + (b"\r" if k % 7 == 0 else b"") for k, line in enumerate(shown)) + b"\n"
    pattern = source.SIGNATURE_RES[lang]
    expected = [(n, line.rstrip()) for n, line in enumerate(lines, 1) if len(line) <= 500 and pattern.match(line)]
    got = source._signatures_of(raw, lang, numbered)
    assert list(zip(got.numbers, got.sigs)) == expected and len(expected) > 600
    assert got.lines == len(lines)
    tests, groups, _ = source._plan(lang, False)
    for alt, clauses in zip(source.SIGNATURE_ALTS[lang], groups):
        matched = [line for line in set(planted) if re.match(alt, line)]
        assert matched, alt
        _, (found,) = source_lines_py(b"\n".join(matched), 500, False, tests, (clauses,))
        assert len(found) // 6 == len(matched), alt


def test_the_outline_of_each_language_is_the_same_with_the_kernel_and_its_twin(monkeypatch):
    """The outline of a planted text of every language, its imports counted, is the same whichever
    ``source_lines`` runs (the kernel's, or its pure-Python twin)."""
    from operators.kernel import source_twins

    for lang, planted in NEEDS_PLANTED.items():
        raw = b"\n".join(planted * 3 + [b"import os", b"use std::io;", b"#include <stdio.h>"])
        made = source._signatures_of(raw, lang, False, True)
        monkeypatch.setattr(source, "source_lines", source_twins.source_lines_py)
        twin = source._signatures_of(raw, lang, False, True)
        monkeypatch.undo()
        assert (made.lines, made.imports, list(made.numbers), list(made.sigs), list(made.indents), made.outlined) == \
            (twin.lines, twin.imports, list(twin.numbers), list(twin.sigs), list(twin.indents), twin.outlined)


def test_rust_with_macro_bodies_is_source():
    # a crate root whose macros repeat `$(...)*` and splice `$name` lines, as bitflags-style crates do
    body = [b"#[macro_export]", b"macro_rules! flags {", b"    (", b"        $vis:vis struct $Name:ident: $T:ty {",
            b"            $(", b"                const $Flag:ident = $value:expr;", b"            )*", b"        }",
            b"        $($t:tt)*", b"    ) => {", b"        $vis struct $Name($T);", b"        impl $Name {",
            b"            $(", b"                pub const $Flag: Self = Self($value);", b"            )*",
            b"            $empty_body", b"            $all_body", b"            $bits_body", b"            $from_body",
            b"        }", b"        $($t)*", b"    };", b"    ($name:ident) => { $name };", b"    () => {};", b"}", b""]
    raw = b"\n".join(body * 12)
    assert classify(raw)[0] == "source"
    assert source.language(raw) == "rust"  # its `=>` arms are no JS arrows


def test_rust_whose_match_arms_outnumber_its_items_is_rust():
    """A parser's ``match`` arms (``b'n' => { … }``, ``Some(x) => x,``) outnumber its ``fn`` lines: ``=>`` is a
    JS arrow only in a file with a mark of JS of its own (``const x =``, ``import … from``, ``function``), so
    the file is Rust and its outline names its functions, not its arms."""
    def parser(i: int) -> list[bytes]:
        arms = [b"            b'%c' => {" % c + b"\n                self.eat_char();\n                tri!(self.parse_%d())\n            }" % i
                for c in b"ntf-0123456789"]
        return [b"    fn parse_value_%d(&mut self, visitor: V) -> Result<V::Value> {" % i,
                b"        let peek = match tri!(self.parse_whitespace()) {", b"            Some(b) => b,",
                b"            None => return Err(self.peek_error(ErrorCode::EofWhileParsingValue)),", b"        };",
                b"        let value = match peek {", *arms, b"            _ => Err(self.peek_invalid_type(&visitor)),",
                b"        };", b"        value", b"    }", b""]
    lines = [b"//! Deserialize JSON data to a Rust data structure.", b"", b"use crate::error::{Error, ErrorCode, Result};",
             b"", b"impl<'de, R: Read<'de>> Deserializer<R> {"]
    for i in range(40):
        lines += parser(i)
    raw = b"\n".join(lines + [b"}", b""])
    assert source.language(raw) == "rust"
    visible = reduce_bytes(raw, source="de.rs", budget=6000 // 4, forced_type="source").visible
    assert b"[rust source" in visible
    assert b"fn parse_value_39(&mut self, visitor: V) -> Result<V::Value>" in visible
    js = b"\n".join([b"import { readFile } from 'node:fs';", b"const load = (path) => readFile(path);",
                     b"export const parse = (text) => text.split('\\n').map((line) => line.trim());"] * 5)
    assert source.language(js) == "js"


def _js_test_file(blocks: int) -> bytes:
    """A test file as mocha, jest and vitest read it: describe blocks of it/test calls, mostly expect calls."""
    out = [b'import { describe, expect, it } from "vitest";', b'import { pick } from "./pick";', b""]
    for b in range(blocks):
        out.append(b'describe("pick with key set %d", () => {' % b)
        out.append(b"  const DATA = { a: %d, b: \"x%d\", c: [%d, %d] };" % (b, b, b, b + 1))
        for t in range(6):
            out += [b'  it("keeps key %d of set %d when asked", async () => {' % (t, b),
                    b"    const result = pick(DATA, [\"a\", \"b\"]);", b"    expect(result.a).toBe(%d);" % b,
                    b"    expect(result).toEqual({ a: %d, b: \"x%d\" });" % (b, b),
                    b"    expect(Object.keys(result)).toHaveLength(2);", b"  });", b""]
        out += [b"});", b""]
    return b"\n".join(out)


def test_a_js_test_file_is_source_outlined_by_its_test_blocks():
    """A test file is calls and literals: ``describe(…, () => {`` and ``it(…)``/``expect(…)`` lines are a test
    file's keywords, so it is source, and over the budget its outline lists every describe/it/test block
    (the tests it defines), then the file from its first line."""
    raw = _js_test_file(60)
    assert classify(raw)[0] == "source"
    packet = reduce_bytes(raw, source="pick.test.ts", budget=12_000 // 4)
    assert packet.type == "source" and packet.restore_pass
    visible = packet.visible
    assert b"[js source" in visible
    for b in (0, 31, 59):
        assert b'describe("pick with key set %d", () => {' % b in visible
    assert b'it("keeps key 5 of set 59 when asked", async () => {' in visible
    small = _js_test_file(2)
    assert classify(small)[0] == "source" and reduce_bytes(small, source="pick.test.ts").visible == small


def test_a_file_the_ceiling_cuts_anyway_keeps_its_whitespace_as_it_is():
    """A source file over twice the output ceiling is cut to its outline and head whatever its reducer
    does; its trailing blanks and runs of blank lines are left as they are (the head shows its lines as
    written, and the cut reads the input itself instead of a normalised copy of the whole file: 20 MB of
    source peaked at 71 MB, now 52 MB), while a file that fits is normalised as before."""
    from operators.config import load_config

    body = "".join(f"def handler_{i}(request, retries=3):   \n    return request.get('k{i}')\n\n\n\n" for i in range(2000))
    raw = ("import os\n\n" + body).encode()
    config = load_config(None)
    assert len(raw) > 2 * config.ceiling.budget_chars
    plan = source.reduce(raw, "coarse", config)
    assert not plan.omits_anything
    small = ("import os\n\n" + "".join(f"def h_{i}(x):   \n    return x\n\n\n\n" for i in range(150))).encode()
    assert source.reduce(small, "coarse", config).omits_anything  # normalised: trailing blanks, blank runs
    packet = reduce_bytes(raw, source="big.py")
    assert packet.type == "source" and packet.restore_pass
    assert b"def handler_0(request, retries=3):   \n" in packet.visible


def test_a_go_test_file_of_literal_tables_is_source_with_its_test_functions():
    """A Go test file whose first 1,500 lines are tables of struct literals (few keywords: ``title:
    "…",`` lines) still starts with its package clause: it is Go source, outlined by its funcs."""
    case = ('\t\t{\n\t\t\ttitle:       "Host route %d, match",\n\t\t\troute:       new(Route).Host("aaa.bbb.ccc"),\n'
            '\t\t\trequest:     newRequest("GET", "http://aaa.bbb.ccc/%d/"),\n\t\t\tvars:        map[string]string{},\n'
            '\t\t\thost:        "",\n\t\t\tpath:        "",\n\t\t\tshouldMatch: true,\n\t\t},\n')
    tests = "".join(f"func TestHost{k}(t *testing.T) {{\n\ttests := []routeTest{{\n"
                    + "".join(case % (i, i) for i in range(40)) + "\t}\n\tfor _, test := range tests {\n"
                    "\t\tt.Run(test.title, func(t *testing.T) {\n\t\t\ttestRoute(t, test)\n\t\t})\n\t}\n}\n\n"
                    for k in range(12))
    raw = ("// Copyright 2012 The Gorilla Authors. All rights reserved.\n\npackage mux\n\nimport (\n\t\"net/http\"\n"
           "\t\"testing\"\n)\n\n" + tests).encode()
    kind, reason = classify(raw)
    assert kind == "source" and reason.startswith("go source"), reason
    packet = reduce_bytes(raw, source="mux_test.go")
    for k in range(12):
        assert b"func TestHost%d(t *testing.T) {" % k in packet.visible
    assert packet.signal_pass and packet.restore_pass
    # prose that merely starts with the word is not a package clause
    assert source.FILE_HEADER_RE.match(b"package manager of the year") is None
