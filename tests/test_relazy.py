"""Patterns compiled on first use (operators/relazy.py): nothing compiled at import, every pattern valid,
and a lazy pattern answers what the compiled one answers."""

from __future__ import annotations

import re
import subprocess
import sys

import re2

from conftest import PROJECT

SAMPLE = b"2026-01-01 10:00:00 ERROR worker-3 failed: ECONNREFUSED (exit code 2)\nok line\n\tat Foo.bar\n"


def _all_type_modules():
    from operators import types

    return [types.get(name) for name in types.names()]


def test_every_lazy_pattern_compiles():
    from operators import relazy, vocab  # noqa: F401

    _all_type_modules()
    assert len(relazy.made) > 150
    bad = []
    for pattern in relazy.made:
        try:
            pattern.compiled()
        except Exception as exc:  # re.error, re2.error
            bad.append((pattern.pattern, exc))
    assert not bad


def test_importing_every_type_compiles_none_of_them():
    code = ("import sys; from operators import relazy, types; [types.get(n) for n in types.names()]; "
            "print(sum('_compiled' in p.__dict__ for p in relazy.made), len(relazy.made))")
    done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, timeout=60, check=True)
    compiled, made = map(int, done.stdout.split())
    assert made > 150
    assert compiled == 0


def test_a_lazy_pattern_answers_as_the_compiled_one():
    from operators.relazy import lazy

    source = rb"(?P<level>ERROR|WARN)\w* (\S+)"
    lazy_one, real = lazy(source, re.M), re.compile(source, re.M)
    assert lazy_one.pattern == source and "_compiled" not in lazy_one.__dict__  # .pattern compiles nothing
    assert lazy_one.search(SAMPLE).group("level") == real.search(SAMPLE).group("level")
    assert lazy_one.match(SAMPLE) is None and real.match(SAMPLE) is None
    assert [m.span() for m in lazy_one.finditer(SAMPLE)] == [m.span() for m in real.finditer(SAMPLE)]
    assert lazy_one.sub(b"X", SAMPLE) == real.sub(b"X", SAMPLE)
    assert lazy_one.findall(SAMPLE) == real.findall(SAMPLE)
    assert lazy_one.split(SAMPLE) == real.split(SAMPLE)
    assert lazy_one.fullmatch(b"ERROR x").span() == real.fullmatch(b"ERROR x").span()
    assert (lazy_one.flags, lazy_one.groups, lazy_one.groupindex) == (real.flags, real.groups, real.groupindex)
    assert lazy_one.search(SAMPLE).re is lazy_one.compiled()
    assert lazy_one.search.__self__ is lazy_one.compiled()  # later calls go straight to the compiled pattern


def test_an_re2_pattern_is_lazy_too():
    from operators.relazy import lazy

    lazy_one = lazy(rb"EC[A-Z]{4,}", compiler=re2.compile)
    assert "_compiled" not in lazy_one.__dict__
    assert lazy_one.search(SAMPLE).group() == b"ECONNREFUSED"
    assert type(lazy_one.compiled()) is type(re2.compile(b"x"))


def test_a_bad_pattern_fails_on_first_use():
    from operators.relazy import lazy

    broken = lazy(rb"(unclosed")
    try:
        broken.search(b"x")
    except re.error:
        return
    raise AssertionError("a bad pattern compiled")
