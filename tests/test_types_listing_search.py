"""Listings and searches through the whole graph (reducer, safety pass, output ceiling, store): on real
outputs of find, grep, rg, du, ls -lR and git tag, what an agent copies stays as printed, and the
original comes back byte for byte."""

from __future__ import annotations

import re

import pytest

from conftest import FIXTURES, reduce_bytes


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


@pytest.mark.parametrize("name", ["rg_n_common_axios.txt", "rg_n_throw_axios.txt", "grep_rn_throw_gson.txt"])
def test_search_keeps_each_files_first_hit_as_path_line_text(name):
    raw, visible = finished(name)
    firsts: dict[bytes, bytes] = {}
    for line in raw.split(b"\n"):
        m = re.match(rb"^([^:]+):(\d+):", line)
        if m:
            firsts.setdefault(m.group(1), m.group(0))
    assert len(firsts) >= 8
    for path, lead in firsts.items():  # path:line: of the first hit, where the agent copies it from
        assert b"\n" + lead in b"\n" + visible, lead


def test_a_search_over_the_ceiling_names_every_file_with_its_count():
    raw, visible = finished("grep_rn_throw_gson.txt")  # 44 KB: over the 25,000-byte ceiling
    assert len(raw) > 25_000 and len(visible) < 25_000
    counts: dict[bytes, int] = {}
    for line in raw.split(b"\n"):
        if line:
            path = line.split(b":", 1)[0]
            counts[path] = counts.get(path, 0) + 1
    for path, n in counts.items():
        assert re.search(rb"^ +%d " % n + re.escape(path) + rb"$", visible, re.M), path


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
