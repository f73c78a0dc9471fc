"""The packages type (operators/types/packages.py): npm ls, pipdeptree, pip list/freeze keep every root and
problem line; byte-exact restore."""

from __future__ import annotations

import re

import pytest

from conftest import check_fixture_through_the_graph, fixture_bytes, reduce_alone
from operators.classify import classify
from operators.types import packages

TYPED = {
    "npm_ls_all.txt": "packages",
    "pip_list.txt": "packages",
    "pipdeptree.txt": "packages",
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


# -- packages -------------------------------------------------------------------------------------
def test_npm_ls_keeps_every_top_level_dependency_and_problem_line():
    raw = fixture_bytes("npm_ls_all.txt")
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
    raw = fixture_bytes("pipdeptree.txt")
    visible, _ = reduced(packages, raw)
    for line in raw.splitlines():
        if not line.startswith((" ".encode(), "│".encode())):  # a root package or one of its requirements
            assert b"\n" + line + b"\n" in b"\n" + visible, line
    assert b"more packages" in visible and len(visible) < len(raw)


def test_pip_list_and_freeze_pass_through_whole():
    raw = fixture_bytes("pip_list.txt")
    assert reduced(packages, raw) == (raw, {})
    freeze = b"".join(line.split()[0] + b"==" + line.split()[1] + b"\n" for line in raw.splitlines()[2:])
    assert classify(freeze * 2)[0] == "packages"
    assert reduced(packages, freeze * 2) == (freeze * 2, {})


def test_npm_ls_of_a_project_without_a_version_is_a_dependency_tree():
    """A project whose package.json has no ``version`` prints its root as ``name@ /path``: the same tree."""
    raw = fixture_bytes("npm_ls_all.txt")
    first, rest = raw.split(b"\n", 1)
    unversioned = re.sub(rb"^([\w.@/-]+?)@\S+", rb"\1@", first) + b"\n" + rest
    assert unversioned.split(b"\n", 1)[0].endswith(first.split(b" ", 1)[1]) and b"@ " in unversioned.split(b"\n", 1)[0]
    assert classify(unversioned)[0] == "packages"
