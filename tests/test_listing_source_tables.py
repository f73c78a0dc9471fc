"""Listings, source files, package trees and tables: detection (with near misses), must-see strings,
secrets kept out of the visible text, level-0 outlines, and every ref and the original back byte-exact."""

from __future__ import annotations

import ast
import re

import pytest

from conftest import FIXTURES, reduce_bytes, tokens_cli
from operators.classify import classify
from operators.reduction import omissions, render, restores_to
from operators.signals import load_sidecar
from operators.types import listing, packages, source, table

TYPED = {
    "ls_la_usr_lib_x86.txt": "listing",
    "ls_R_pygithub_head.txt": "listing",
    "tree_pygithub.txt": "listing",
    "du_h_dist_packages.txt": "listing",
    "npm_ls_all.txt": "packages",
    "pip_list.txt": "packages",
    "pipdeptree.txt": "packages",
    "cat_tqdm_utils_py.txt": "source",
    "cat_n_pflag_flag_go.txt": "source",
    "cat_zustand_persist_ts.txt": "source",
    "head_kilo_c.txt": "source",
    "ps_aux.txt": "table",
    "env_with_secrets.txt": "table",
}
# the fake secrets planted in env_with_secrets.txt (none of them is real)
SECRETS = [
    b"ghp_Zq8vN3xK1mT6wYp0Rb4Lc9Hs2Fd7Ga5Je3Ku", b"AKIAZX3QF7TPLMN4VR2K", b"9sKq2Lm/Xv7Pz4Rt1Wb8Nc3Yh6Jf0Gd5Ea2Ui8Ok",
    b"s3cr3t-Pa55w0rd", b"sk-proj-4fT9xQ2mW7rL1kV8nB3cZ6yH0pD5sJ2aG9eU4iO", b"k2j4h5g6f7d8s9a0q1w2e3r4t5y6u7i8",
    b"hunter2-but-longer", b"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", b"7Hq2XzP9vLm4Rt8KcW1bN6yF3dJ0sG5a",
]


def raw_of(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def planted(name: str) -> list[str]:
    return load_sidecar(FIXTURES / "signals.toml")[name]


def reduced(module, raw: bytes) -> tuple[bytes, dict]:
    """Reduce with one type directly; the plan must restore the original; visible text and refs."""
    plan = module.reduce(raw, "coarse", None)
    refs = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restores_to(raw, visible, layout, [refs[g] for g in plan.reasons])
    for group in refs:
        assert f"#ref:{ids[group]}".encode() in visible, group
    return visible, {ids[g]: bytes(refs[g]) for g in plan.reasons}


# -- the fixtures through the product -------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(TYPED))
def test_fixture_is_classified_as_its_type(name):
    assert classify(raw_of(name))[0] == TYPED[name]


@pytest.mark.parametrize("name", sorted(TYPED))
def test_fixture_through_the_graph_keeps_signals_and_restores(name):
    raw = raw_of(name)
    packet = reduce_bytes(raw, source=f"fixtures/{name}", expected_signals=planted(name))
    assert packet.type == TYPED[name]
    missing = [s for s in planted(name) if s.encode() not in packet.visible]
    assert missing == []
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    for ref in packet.references:
        assert f"#ref:{ref.id}".encode() in packet.visible
        assert len(ref.content) > 0


@pytest.mark.parametrize("name", ["ls_la_usr_lib_x86.txt", "ls_R_pygithub_head.txt", "tree_pygithub.txt",
                                  "npm_ls_all.txt"])
def test_big_listings_and_trees_save_at_least_a_third(name):
    raw = raw_of(name)
    packet = reduce_bytes(raw, source=name)
    assert len(packet.visible) < 0.67 * len(raw), len(packet.visible)


def test_tokens_analyze_and_expand_full_restore_byte_exact(tmp_path):
    env = {"NOLIFE_TOKENS_HOME": str(tmp_path / "home")}
    for name in ("tree_pygithub.txt", "env_with_secrets.txt", "head_kilo_c.txt"):
        result = tokens_cli("analyze", str(FIXTURES / name), env=env)
        assert result.returncode == 0, result.stderr
        out = tmp_path / (name + ".reduced")
        out.write_bytes(result.stdout)
        full = tokens_cli("expand", "--full", str(out), env=env)
        assert full.returncode == 0, full.stderr
        assert full.stdout == raw_of(name)


# -- listings -------------------------------------------------------------------------------------
def test_ls_la_keeps_every_name_type_size_and_link_target_and_hides_the_uniform_columns():
    raw = raw_of("ls_la_usr_lib_x86.txt")
    visible, refs = reduced(listing, raw)
    lines = [m for line in raw.splitlines() if (m := listing.LONG_RE.fullmatch(line))]
    assert len(lines) > 250
    for m in lines:
        assert m.group(1) + b" " + m.group(6).strip() + m.group(8) in visible  # type, size, name (-> target)
    assert visible.startswith(b"total 575500\n")
    assert b" root " not in visible and b"Apr 27  2026" not in visible  # owner and dates behind the ref
    assert b"owner root, group root" in visible


def test_ls_l_with_two_owners_keeps_owner_and_group():
    rows = [f"-rw-r--r-- 1 {'alice' if i % 3 else 'bob'} staff {1000 + i} Jan  5 10:{i % 60:02d} file_{i}.txt"
            for i in range(60)]
    raw = ("total 240\n" + "\n".join(rows) + "\n").encode()
    assert classify(raw)[0] == "listing"
    visible, _ = reduced(listing, raw)
    assert b"- bob staff 1000 file_0.txt" in visible and b"- alice staff 1001 file_1.txt" in visible


def test_ls_R_keeps_every_header_and_the_top_level_and_folds_big_directories():
    raw = raw_of("ls_R_pygithub_head.txt")
    visible, refs = reduced(listing, raw)
    sections = raw.split(b"\n\n")
    for section in sections:
        assert section.split(b"\n")[0] in visible  # every ./dir: header
    for name in sections[0].split(b"\n")[1:]:
        assert b"\n" + name + b"\n" in visible  # every top-level entry
    assert b"more entries" in visible


def test_tree_keeps_every_top_level_entry_and_the_summary_line():
    raw = raw_of("tree_pygithub.txt")
    visible, _ = reduced(listing, raw)
    top = [line for line in raw.splitlines() if line.startswith(("├── ".encode(), "└── ".encode()))]
    assert len(top) == 17
    for line in top:
        assert b"\n" + line + b"\n" in visible
    assert visible.split(b"\n")[0] == b"."
    assert b"\n60 directories, 456 files\n" in visible


def test_du_under_the_ceiling_shows_every_line():
    raw = raw_of("du_h_gson.txt")  # real: du -h in a gson checkout
    assert classify(raw)[0] == "listing"
    visible, refs = reduced(listing, raw)
    assert visible == raw and refs == {}


def test_du_over_the_ceiling_keeps_the_total_the_top_level_and_the_biggest_first():
    from operators.ceiling import fit
    from operators.config import Config

    raw = raw_of("du_h_dist_packages.txt")
    plan = listing.reduce(raw, "coarse", None)
    cut = fit(plan, 12_000, "listing", Config())
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(cut.reasons)}
    visible = render(cut, ids)[0]
    rows = [line for line in raw.splitlines() if b"\t" in line]
    for line in rows:
        if line.split(b"\t", 1)[1].count(b"/") <= 4:  # the totals and the top level
            assert b"\n" + line + b"\n" in visible, line
    deeper = [line for line in rows if line.split(b"\t", 1)[1].count(b"/") > 4]
    size = {b"K": 1, b"M": 1024, b"G": 1024 * 1024}
    kib = {line: float(line.split(b"\t")[0][:-1]) * size.get(line.split(b"\t")[0][-1:], 1) for line in deeper}
    shown = [line for line in deeper if b"\n" + line + b"\n" in visible]
    biggest = sorted(deeper, key=kib.get, reverse=True)[:20]
    assert len(shown) < len(deeper) and all(line in shown for line in biggest)  # the biggest before the others
    assert b"more must-see lines not shown" in visible


def test_ls_lR_top_level_block_stays_as_printed_deeper_ones_shortened():
    raw = raw_of("ls_lR_attrs.txt")  # real: ls -lR in an attrs checkout
    assert classify(raw)[0] == "listing"
    visible, refs = reduced(listing, raw)
    sections = raw.split(b"\n\n")
    assert visible.startswith(sections[0] + b"\n\n")  # the top-level section, every column
    for section in sections[1:]:
        header, *rows = section.split(b"\n")
        assert b"\n" + header + b"\n" in visible
        for row in rows[:12]:
            m = listing.LONG_RE.fullmatch(row)
            if m:
                assert b"\n" + m.group(1) + b" " + m.group(6).strip() + m.group(8) + b"\n" in visible, row
    assert b"Aug  7 05:35 tests\n" in visible and b"Aug  7 05:35 test_funcs.py" not in visible


def test_listing_ranks_top_level_first():
    from operators.config import Config

    tree = raw_of("tree_pygithub.txt").split(b"\n")
    ranks = listing.rank_lines(tree, Config())
    top = [r for line, r in zip(tree, ranks) if line.startswith(("├── ".encode(), "└── ".encode()))]
    deeper = [r for line, r in zip(tree, ranks) if line.startswith("│".encode())]
    assert top and all(r == (0, 1) for r in top) and deeper and all(r[0] == 1 for r in deeper)
    assert ranks[tree.index(b"60 directories, 456 files")] == (0, 0)
    ls = raw_of("ls_lR_attrs.txt").split(b"\n")
    ranks = listing.rank_lines(ls, Config())
    first = ls.index(b"")
    assert all(r[0] == 0 for r in ranks[:first])
    headers = [r for line, r in zip(ls, ranks) if line.startswith(b"./")]
    assert headers and all(r == (0, 2) for r in headers)
    assert ranks[ls.index(b"./bench:") + 2] == (1, 1)


def test_find_output_keeps_its_dot_slash_prefix_and_every_top_level_entry():
    paths = [b"."] + [b"./%s" % n for n in (b"README.md", b"setup.cfg", b"Makefile", b"LICENSE.txt", b"tox.ini",
                                            b"noxfile.py", b"CHANGES.rst", b".gitignore", b".editorconfig", b"conftest.py")]
    for d in (b"src", b"docs", b"tests", b"bench"):
        paths.append(b"./" + d)
        paths += [b"./%s/sub%d/file_%d.py" % (d, i % 4, i) for i in range(120)]
    raw = b"\n".join(paths) + b"\n"
    assert classify(raw)[0] == "filelist"
    packet = reduce_bytes(raw)
    assert packet.restore_pass and b"#ref:" in packet.visible
    for path in paths[1:]:
        if path.count(b"/") == 1:
            assert path in packet.visible, path


# -- source ---------------------------------------------------------------------------------------
def test_source_level_1_passes_the_code_through_and_parks_the_license_header():
    raw = raw_of("head_kilo_c.txt")
    visible, refs = reduced(source, raw)
    assert visible.startswith(b"[license header: 33 lines (Copyright (C) 2016 Salvatore Sanfilippo")
    assert b"Redistribution and use" not in visible
    [header] = [c for c in refs.values() if c.startswith(b"/* Kilo")]
    assert b"Redistribution and use" in header and header.endswith(b"*/\n")
    assert visible.endswith(raw[len(header):])  # the code after it: untouched
    visible, refs = reduced(source, raw_of("cat_tqdm_utils_py.txt"))
    assert visible == raw_of("cat_tqdm_utils_py.txt") and refs == {}


def test_source_license_header_of_a_numbered_go_file_stops_before_the_package_doc():
    raw = raw_of("cat_n_pflag_flag_go.txt")
    visible, refs = reduced(source, raw)
    assert visible.startswith(b"[license header: 3 lines (Copyright 2009 The Go Authors. All rights reserved.)")
    assert b"Package pflag is a drop-in replacement" in visible


def test_level_0_outline_lists_every_python_def_and_class_with_its_line():
    raw = raw_of("cat_tqdm_utils_py.txt")
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
    raw = raw_of("cat_n_pflag_flag_go.txt")
    facts = source.facts(reduce_bytes(raw))
    funcs = [line for line in raw.splitlines() if re.match(rb" *\d+\tfunc ", line)]
    assert len(funcs) > 20 and facts.total >= len(funcs)
    for line in funcs:
        number, code = line.strip().split(b"\t", 1)
        assert f"{int(number)}: {code.decode()}" in facts.important


def test_level_0_outline_of_typescript_and_c():
    ts = source.facts(reduce_bytes(raw_of("cat_zustand_persist_ts.txt")))
    for sig in ("7: export interface StateStorage<R = unknown> {", "31: export function createJSONStorage<S, R = unknown>(",
                "63: export interface PersistOptions<"):
        assert sig in ts.important
    c = source.facts(reduce_bytes(raw_of("head_kilo_c.txt")))
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
    assert classify(raw_of(name))[0] not in ("source", "listing", "table", "packages")


def test_prose_with_code_snippets_is_not_source():
    assert classify(PROSE_WITH_SNIPPETS * 3)[0] != "source"
    # the same code alone is
    code = raw_of("cat_tqdm_utils_py.txt")
    assert source.detect(type("S", (), {"lines": [ln for ln in code.split(b"\n") if ln.strip()]})()) is not None


def test_a_diff_of_source_is_a_diff():
    raw = raw_of("sample.diff")
    assert classify(raw)[0] == "diff"
    assert source.score([ln for ln in raw.split(b"\n") if ln.strip()][:400]) is None


# -- packages -------------------------------------------------------------------------------------
def test_npm_ls_keeps_every_top_level_dependency_and_problem_line():
    raw = raw_of("npm_ls_all.txt")
    visible, refs = reduced(packages, raw)
    top = [line for line in raw.splitlines() if re.match("^(?:├|└)─(?:┬|─) ".encode(), line)]
    assert len(top) == 10
    for line in top:
        assert b"\n" + line + b"\n" in visible
    for line in raw.splitlines():
        if re.search(rb"UNMET|invalid|extraneous|npm error", line):
            assert line in visible, line
    assert b"(75 deduped)" in visible
    assert b"ms@2.1.3" not in visible and any(b"ms@2.1.3" in c for c in refs.values())


def test_pipdeptree_keeps_every_root_and_first_level_requirement():
    raw = raw_of("pipdeptree.txt")
    visible, _ = reduced(packages, raw)
    for line in raw.splitlines():
        if not line.startswith((" ".encode(), "│".encode())):  # a root package or one of its requirements
            assert b"\n" + line + b"\n" in b"\n" + visible, line
    assert b"more packages" in visible and len(visible) < len(raw)


def test_pip_list_and_freeze_pass_through_whole():
    raw = raw_of("pip_list.txt")
    assert reduced(packages, raw) == (raw, {})
    freeze = b"".join(line.split()[0] + b"==" + line.split()[1] + b"\n" for line in raw.splitlines()[2:])
    assert classify(freeze * 2)[0] == "packages"
    assert reduced(packages, freeze * 2) == (freeze * 2, {})


# -- tables and environments ----------------------------------------------------------------------
def test_env_secret_values_never_reach_the_visible_text():
    raw = raw_of("env_with_secrets.txt")
    for secret in SECRETS:
        assert secret in raw
    packet = reduce_bytes(raw, source="env")
    assert packet.restore_pass and packet.recovery_pass
    for secret in SECRETS:
        assert secret not in packet.visible, secret
    stored = b"".join(bytes(ref.content) for ref in packet.references)
    assert all(secret in stored for secret in SECRETS)
    assert b"GITHUB_TOKEN=<hidden: 40 bytes, #ref:ctx_" in packet.visible
    for keep in (b"PWD=/home/dev/project", b"SSH_AUTH_SOCK=/tmp/ssh-XXXXabcd/agent.1234", b"KEYBOARD_LAYOUT=us",
                 b"XAUTHORITY=/home/dev/.Xauthority", b"PATH=/home/dev/.local/bin:/usr/local/bin:/usr/bin:/bin"):
        assert keep + b"\n" in packet.visible


def test_a_short_env_with_a_short_secret_still_hides_it():
    """Shorter than the graph's pass-through size, and longer once hidden: the value stays out anyway."""
    raw = b"HOME=/home/dev\nUSER=dev\nDB_PASSWORD=pw1\nLANG=C.UTF-8\n"
    packet = reduce_bytes(raw, source="env")
    assert packet.type == "table" and packet.restore_pass and packet.recovery_pass
    assert b"pw1" not in packet.visible and b"DB_PASSWORD=<hidden: 3 bytes, #ref:ctx_" in packet.visible
    assert [bytes(ref.content) for ref in packet.references] == [b"pw1"]


@pytest.mark.parametrize(("name", "value", "secret"), [
    (b"API_TOKEN", b"abc", True), (b"MY_PASSWORD", b"x", True), (b"STRIPE_KEY", b"rk_live_51abc", True),
    (b"NOTES", b"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc", True),
    (b"SOME_ID", b"Xk9vT2qLm8Rw4Zp1Nc7Hb3Yd6Fj0Ga5S", True),
    (b"PWD", b"/home/dev", False), (b"KEYBOARD", b"us", False), (b"PATH", b"/usr/bin:/bin", False),
    (b"HOME", b"/home/dev", False), (b"GIT_SHA", b"3f2c1e9a", False), (b"AUTH_ENABLED", b"true", False),
    (b"LS_COLORS", b"rs=0:di=01;34:ln=01;36:mh=00", False),
    (b"DBUS_SESSION_BUS_ADDRESS", b"unix:path=/run/user/1000/bus", False), (b"SSL_CERT_FILE", b"/etc/ssl/cert.pem", False),
    (b"SESSION_TOKEN", b"FQoGZXIvYXdzEBYaDH", True), (b"DSN", b"https://abc@o1.ingest.example.io/2", True),
])
def test_looks_secret(name, value, secret):
    assert table.looks_secret(name, value) is secret


def test_ps_aux_keeps_the_header_and_every_process_and_folds_uniform_columns():
    raw = raw_of("ps_aux.txt")
    visible, refs = reduced(table, raw)
    rows = raw.splitlines()[1:]
    assert len(rows) > 40
    for row in rows:
        cells = row.split(None, 10)
        assert f"{cells[1].decode()}  ".encode() in visible and cells[10] in visible  # PID and command
    assert b"USER=root" in visible and b"TTY=?" in visible and b"TIME=0:00" in visible
    assert b"\nroot " not in visible


def test_small_tables_pass_through_and_a_log_is_not_a_table():
    df = (b"Filesystem      Size  Used Avail Use% Mounted on\n/dev/vda        252G   26G   77G  25% /\n"
          b"tmpfs            12G     0   12G   0% /sys/fs/cgroup\ntmpfs            24G     0   24G   0% /dev/shm\n")
    assert classify(df * 2)[0] == "table"
    assert reduced(table, df) == (df, {})
    log = b"".join(b"2026-08-16 09:00:%02d INFO GET /api/orders/%d 200 in %dms\n" % (i % 60, i, i % 90) for i in range(60))
    assert classify(log)[0] != "table"
    assert table.table_shape(log.splitlines()) is None


def test_docker_ps_style_columns_split_on_wide_gaps_and_keep_every_name():
    """docker ps pads its columns with 3+ spaces and its cells hold single spaces ("Up 2 hours")."""
    head = b"CONTAINER ID   IMAGE          COMMAND                  CREATED       STATUS       PORTS     NAMES\n"
    rows = b"".join(
        b'%012x   nginx:1.27     "/docker-entrypoint.\xe2\x80\xa6"   2 hours ago   Up 2 hours   80/tcp    web_%d\n' % (0xABC000 + i, i)
        for i in range(45)
    )
    raw = head + rows
    assert classify(raw)[0] == "table"
    visible, refs = reduced(table, raw)
    for i in range(45):
        assert b"%012x" % (0xABC000 + i) in visible and b"web_%d\n" % i in visible
    assert b"STATUS=Up 2 hours" in visible and b"IMAGE=nginx:1.27" in visible
    assert visible.count(b"Up 2 hours") == 1  # only in the note


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


def test_a_listing_whose_folding_saves_little_passes_through():
    rows = ["."] + [f"├── pkg{i}" for i in range(4)] + [f"│   ├── module_{i}.py" for i in range(14)]
    raw = ("\n".join(rows + ["└── README.md", "", "5 directories, 15 files"]) + "\n").encode()
    assert classify(raw)[0] == "listing"
    visible, refs = reduced(listing, raw)  # 2 entries past max_entries: a fold line saves under 300 bytes
    assert visible == raw and refs == {}
    rows = ["."] + [f"├── pkg{i}" for i in range(4)] + [f"│   ├── a_module_with_a_long_name_{i}.py" for i in range(40)]
    raw = ("\n".join(rows + ["└── README.md", "", "5 directories, 41 files"]) + "\n").encode()
    visible, refs = reduced(listing, raw)
    assert len(refs) == 1 and "… 28 more entries".encode() in visible
