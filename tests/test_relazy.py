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


def _fresh(monkeypatch, tmp_path):
    from operators import relazy

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("NOLIFE_TOKENS_RE_CACHE", raising=False)
    monkeypatch.setattr(relazy, "_cache", None)
    monkeypatch.setattr(relazy, "_added", {})
    return relazy


def test_a_pattern_from_the_cache_is_the_compiled_one(monkeypatch, tmp_path):
    from operators import vocab  # noqa: F401

    relazy = _fresh(monkeypatch, tmp_path)
    _all_type_modules()
    plain = [p for p in relazy.made if p._compiler is None and p.pattern != rb"(unclosed"]  # not the bad one above
    made = [relazy.compile_re(p.pattern, p._flags) for p in plain]  # parsed here, kept for the cache
    relazy._save()
    monkeypatch.setattr(relazy, "_cache", None)
    assert relazy._added == {} and len(relazy._load()) == len({(p.pattern, int(p._flags)) for p in plain})

    def no_parsing(*args, **kwargs):
        raise AssertionError("parsed again: the cache was not used")

    reals = [re.compile(p.pattern, p._flags) for p in plain]
    monkeypatch.setattr(relazy, "_cache", None)  # as a new process: the file is read again
    parse = re._parser.parse
    re._parser.parse = no_parsing
    try:
        from_cache = [relazy.compile_re(p.pattern, p._flags) for p in plain]
    finally:
        re._parser.parse = parse
    lines = SAMPLE.splitlines(keepends=True) + [b"src/a.py:12:3: E501 line too long", b"commit 0123abc",
                                                b"@@ -1,2 +1,3 @@ def f():", b"  File \"x.py\", line 3, in <module>"]
    for cached, real, first in zip(from_cache, reals, made):
        assert (cached.pattern, cached.flags, cached.groups, cached.groupindex) == (real.pattern, real.flags, real.groups,
                                                                                     real.groupindex)
        assert (first.flags, first.groups) == (real.flags, real.groups)
        for line in lines:
            text = line if isinstance(real.pattern, bytes) else line.decode()
            assert [m.span() for m in cached.finditer(text)] == [m.span() for m in real.finditer(text)]


def test_a_damaged_cache_is_compiled_around(monkeypatch, tmp_path):
    relazy = _fresh(monkeypatch, tmp_path)
    path = relazy._cache_file()
    os_path = __import__("pathlib").Path(path)
    os_path.parent.mkdir(parents=True)
    import marshal

    os_path.write_bytes(marshal.dumps({(rb"a(b)c", 0): (0, [1, 2, 3], 0, {}, (None, None))}))  # invalid code
    assert relazy.compile_re(rb"a(b)c").search(b"xabcx").span() == (1, 4)
    monkeypatch.setattr(relazy, "_cache", None)
    os_path.write_bytes(b"not marshal at all")
    assert relazy.compile_re(rb"a(b)c").groups == 1


_HOOKED = """
import marshal, re, sys
from operators import relazy
relazy.install()
sys.path.insert(0, sys.argv[1])
import planted_module  # compiles rb"planted (import) (\\\\d+)" at import
word = b"from" + b"content"
found = re.compile(rb"(" + word + rb")+x").search(b"fromcontentx")  # made from an input at run time
print(planted_module.PAT.search(b"planted import 42").group(2).decode(), found.span(), int(re.compile("zz", re.I).flags & re.I))
"""


def test_installed_every_re_compile_uses_the_cache_and_only_constant_patterns_are_added(tmp_path):
    (tmp_path / "planted_module.py").write_text('import re\nPAT = re.compile(rb"planted (import) (\\d+)")\n')
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    run = [sys.executable, "-c", _HOOKED, str(tmp_path)]
    first = subprocess.run(run, cwd=PROJECT, capture_output=True, env=env, timeout=60)
    assert first.returncode == 0, first.stderr.decode()[-2000:]
    assert first.stdout == b"42 (0, 12) 2\n"
    [cache] = (tmp_path / "cache" / "nolife-tokens").iterdir()
    import marshal

    keys = marshal.loads(cache.read_bytes())
    assert (rb"planted (import) (\d+)", 0) in keys  # a module's constant: cached
    assert ("zz", int(re.I)) in keys  # a literal of the code that compiled it at run time: cached too
    assert not [k for k in keys if b"content" in (k[0] if isinstance(k[0], bytes) else k[0].encode())]  # never an input's
    planted = keys[(rb"planted (import) (\d+)", 0)]
    cache.write_bytes(marshal.dumps({**keys, (rb"planted (import) (\d+)", 0): (0, [1, 2, 3], 0, {}, (None,))}))
    again = subprocess.run(run, cwd=PROJECT, capture_output=True, env=env, timeout=60)
    assert again.returncode == 0 and again.stdout == first.stdout  # a damaged entry: compiled around
    cache.write_bytes(marshal.dumps({**keys, (rb"planted (import) (\d+)", 0): planted}))
    off = subprocess.run(run, cwd=PROJECT, capture_output=True, env={**env, "NOLIFE_TOKENS_RE_CACHE": "0"}, timeout=60)
    assert off.returncode == 0 and off.stdout == first.stdout
