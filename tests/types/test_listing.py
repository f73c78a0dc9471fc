"""The listing type (operators/types/listing.py): ls, ls -R, tree, du and find through the reducer and the whole
graph; every top-level entry stays, the rest folds behind refs; byte-exact restore."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, check_fixture_through_the_graph, fixture_bytes, reduce_alone, reduce_bytes, tokens_cli
from operators.classify import classify
from operators.reduction import render
from operators.types import listing


def finished(name: str):
    raw = (FIXTURES / name).read_bytes()
    packet = reduce_bytes(raw, source=f"fixtures/{name}")
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass, packet.missing_signals
    return raw, packet.visible


def lines_of(data: bytes) -> set[bytes]:
    return set(data.split(b"\n"))


def test_find_shows_a_real_path_of_every_directory_as_listed():
    raw, visible = finished("find_type_f_gson.txt")  # find gson -type f
    shown = lines_of(visible)
    parents = {line[: line.rfind(b"/") + 1] for line in raw.split(b"\n") if b"/" in line}
    assert len(parents) > 40
    listed = lines_of(raw)
    for parent in parents:  # a path of the directory itself, the whole line as find printed it
        assert any(s.startswith(parent) and b"/" not in s[len(parent):] and s in listed for s in shown), parent
    assert len(visible) < 0.5 * len(raw)


def test_du_shows_every_line_under_the_ceiling_and_totals_first_over_it():
    raw, visible = finished("du_h_gson.txt")
    assert visible.startswith(raw)
    raw, visible = finished("du_h_dist_packages.txt")  # 26 KB: over the ceiling
    for line in raw.split(b"\n"):
        if b"\t" in line and line.split(b"\t", 1)[1].count(b"/") <= 4:
            assert line in lines_of(visible), line


def test_ls_lR_and_git_tag_keep_what_the_agent_asked_for_as_printed():
    raw, visible = finished("ls_lR_attrs.txt")
    assert visible.startswith(raw.split(b"\n\n", 1)[0] + b"\n\n")
    raw, visible = finished("git_tag_fzf.txt")  # 178 tags, under the ceiling: all of them
    assert visible.startswith(raw)

TYPED = {
    "ls_la_usr_lib_x86.txt": "listing",
    "ls_R_pygithub_head.txt": "listing",
    "tree_pygithub.txt": "listing",
    "du_h_dist_packages.txt": "listing",
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


@pytest.mark.parametrize("name", ["ls_la_usr_lib_x86.txt", "ls_R_pygithub_head.txt", "tree_pygithub.txt",
                                  "npm_ls_all.txt"])
def test_big_listings_and_trees_save_at_least_a_third(name):
    raw = fixture_bytes(name)
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
        assert full.stdout == fixture_bytes(name)


# -- listings -------------------------------------------------------------------------------------
def test_ls_la_keeps_every_name_type_size_and_link_target_and_hides_the_uniform_columns():
    raw = fixture_bytes("ls_la_usr_lib_x86.txt")
    visible, refs = reduced(listing, raw)
    lines = [m for line in raw.splitlines() if (m := listing.LONG_RE.fullmatch(line))]
    assert len(lines) > 250
    for m in lines:  # type, size, name (-> target); a directory's size (its entry table's blocks) in the ref
        size = b"" if m.group(1) == b"d" else b" " + m.group(6).strip()
        assert b"\n" + m.group(1) + size + m.group(8) + b"\n" in visible
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
    raw = fixture_bytes("ls_R_pygithub_head.txt")
    visible, refs = reduced(listing, raw)
    sections = raw.split(b"\n\n")
    for section in sections:
        assert section.split(b"\n")[0] in visible  # every ./dir: header
    for name in sections[0].split(b"\n")[1:]:
        assert b"\n" + name + b"\n" in visible  # every top-level entry
    assert b"more entries" in visible


def test_tree_keeps_every_top_level_entry_and_the_summary_line():
    raw = fixture_bytes("tree_pygithub.txt")
    visible, _ = reduced(listing, raw)
    top = [line for line in raw.splitlines() if line.startswith(("├── ".encode(), "└── ".encode()))]
    assert len(top) == 17
    for line in top:
        assert b"\n" + line + b"\n" in visible
    assert visible.split(b"\n")[0] == b"."
    assert b"\n60 directories, 456 files\n" in visible


def test_du_under_the_ceiling_shows_every_line():
    raw = fixture_bytes("du_h_gson.txt")  # real: du -h in a gson checkout
    assert classify(raw)[0] == "listing"
    visible, refs = reduced(listing, raw)
    assert visible == raw and refs == {}


def test_du_over_the_ceiling_keeps_the_total_the_top_level_and_the_biggest_first():
    from operators.ceiling import fit
    from operators.config import Config

    raw = fixture_bytes("du_h_dist_packages.txt")
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
    raw = fixture_bytes("ls_lR_attrs.txt")  # real: ls -lR in an attrs checkout
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
                size = b"" if m.group(1) == b"d" else b" " + m.group(6).strip()
                assert b"\n" + m.group(1) + size + m.group(8) + b"\n" in visible, row
    assert b"Aug  7 05:35 tests\n" in visible and b"Aug  7 05:35 test_funcs.py" not in visible


def test_listing_ranks_top_level_first():
    from operators.config import Config

    tree = fixture_bytes("tree_pygithub.txt").split(b"\n")
    ranks = listing.rank_lines(tree, Config())
    top = [r for line, r in zip(tree, ranks) if line.startswith(("├── ".encode(), "└── ".encode()))]
    deeper = [r for line, r in zip(tree, ranks) if line.startswith("│".encode())]
    assert top and all(r == (0, 1) for r in top) and deeper and all(r[0] == 1 for r in deeper)
    assert ranks[tree.index(b"60 directories, 456 files")] == (0, 0)
    ls = fixture_bytes("ls_lR_attrs.txt").split(b"\n")
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
        paths += [b"./%s/sub%d/file_%d.py" % (d, i % 4, i) for i in range(200)]  # past the target: folded
    raw = b"\n".join(paths) + b"\n"
    assert classify(raw)[0] == "filelist"
    packet = reduce_bytes(raw)
    assert packet.restore_pass and b"#ref:" in packet.visible
    for path in paths[1:]:
        if path.count(b"/") == 1:
            assert path in packet.visible, path


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


def test_an_ls_l_listing_under_the_target_keeps_every_entry_of_every_directory():
    """``ls -la a b c`` (each directory asked for) under the ceiling's target: every entry's name
    stays, in its shortened columns; over it, the sections after the first fold past ``max_entries``."""
    def section(name, n):
        return [f"{name}:", "total 8", "drwxr-xr-x 2 root root 4096 Dec  5 11:56 .", "drwxr-xr-x 6 root root 4096 Dec  5 11:56 .."] + [
            f"-rw-r--r-- 1 root root {100 + k} Dec  5 11:56 {name}_hook_{k}.json" for k in range(n)]
    small = ("\n".join(section("testdata", 20) + [""] + section("webhooks", 30)) + "\n").encode()
    assert classify(small)[0] == "listing"
    visible, _ = reduced(listing, small)
    assert all(b" webhooks_hook_%d.json\n" % k in visible for k in range(30)) and b"more entries" not in visible
    big = ("\n".join(section("testdata", 20) + [""] + section("webhooks", 300)) + "\n").encode()
    visible, _ = reduced(listing, big)
    assert "… 290 more entries".encode() in visible
