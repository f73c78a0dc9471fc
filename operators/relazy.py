"""Regular expressions compiled on first use, not when their module is imported.

Each content type keeps its patterns as module constants, and classification imports every type
module in detection order: compiling all of them at import would cost every start ~30 ms, most of
it for patterns a run never uses (the reducers of the types the input is not). ``lazy(pattern,
flags)`` stands in for ``re.compile(pattern, flags)`` (``lazy(pattern, options, compiler=re2.compile)``
for ``re2.compile(pattern, options)``):

* ``.pattern`` is there at once (patterns are composed from others' ``.pattern`` at import);
* anything else (``match``, ``search``, ``finditer``, ``sub``, ``fullmatch``, ``findall``, ``split``,
  ``groups``, ``groupindex``, ``flags`` …) compiles the pattern once, then the compiled pattern's
  bound methods are kept on the object itself, so later calls cost what a compiled pattern's cost;
* ``compiled()`` returns the real compiled pattern, for code that needs one (``re.sub(X, …)`` with a
  pattern object, ``m.re is X``: such code keeps ``re.compile``, or compares with ``X.compiled()``).

``re2_program(pattern)`` gives the RE2 program behind a pattern, to be asked for its spans without a
match object (the secret scan, the safety pass and ``git log -p``'s signal search do).

A bad pattern raises its ``re.error`` on first use instead of at import; ``tests/test_relazy.py``
compiles every lazy pattern of every module, so a bad one still fails the tests.

What compiling a pattern of the ``re`` module yields (its ``_sre`` code, flags and groups) is kept in
a cache file, ``$XDG_CACHE_HOME/nolife-tokens/re-<interpreter>.marshal``, keyed by the interpreter
version, the regex engine's magic number and the cache's own format (the code of a pattern is kept as
the bytes of 32-bit words: reading a file of ints as Python ints cost every start ~3 ms, bytes only a
copy; the words of a pattern are made into the list ``_sre`` takes when that pattern is first
used): a later process builds the pattern from it with
``_sre.compile`` (which validates the code) instead of parsing it again. Anything unexpected (no
cache, a damaged or foreign one, another interpreter) falls back to compiling. Patterns compiled
anew are added when the process exits (written to a temporary file, then renamed into place).
``NOLIFE_TOKENS_RE_CACHE=0`` turns the cache off.

``install()`` (called by ``flows.quick.main`` before the full command line is imported) puts the same
cache behind every ``re.compile`` of the process, the standard library's and the modules that keep
``re.compile`` included (``re`` calls it on a miss of its own cache): a pattern compiled while a module
is being imported, or one that is a constant of the code asking for it (a literal in its text:
argparse's, a ``re.fullmatch(rb"…", line)``), is added to the cache file (never made from analysed
content); any other is only looked up, so no pattern made from an input (JSON keys, a search word) is
ever written.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, Callable

_KEPT = ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")
made: list["LazyPattern"] = []  # every lazy pattern, for the test that compiles them all


NO_SPAN = (-1, -1)  # what ``re2_program``'s ``match`` gives for a group that took no part (or no match)


def re2_program(pattern):
    """The RE2 program behind ``pattern`` (a compiled ``re2`` pattern, or a ``lazy`` one: compiled now),
    asked directly: ``(match, anchor)``, where ``match(anchor.UNANCHORED, text, start, end)`` (or
    ``anchor.ANCHOR_BOTH``) gives each group's ``(start, end)``, ``NO_SPAN`` for none, as ``search``
    (``fullmatch``) would find them but without a match object, whose every group read costs a few
    Python calls. None for a pattern of another engine, or an ``re2`` module that keeps it elsewhere."""
    real = pattern.compiled() if isinstance(pattern, LazyPattern) else pattern
    program = getattr(real, "_regexp", None)
    if program is None:
        return None
    import re2  # loaded already: it compiled ``real``

    anchor = getattr(re2, "_Anchor", None)
    return None if anchor is None else (program.Match, anchor)


class LazyPattern:
    """A pattern compiled the first time anything but ``pattern`` is read from it."""

    def __init__(self, pattern: Any, flags: Any = 0, compiler: Callable | None = None):
        self.pattern = pattern
        self._flags = flags
        self._compiler = compiler

    def compiled(self):
        """The compiled pattern (compiled now if it was not yet)."""
        real = self.__dict__.get("_compiled")
        if real is None:
            if self._compiler is None:
                real = compile_re(self.pattern, self._flags)
            else:
                real = self._compiler(self.pattern, self._flags) if self._flags else self._compiler(self.pattern)
            for name in _KEPT:
                method = getattr(real, name, None)
                if method is not None:
                    self.__dict__[name] = method
            self.__dict__["_compiled"] = real
        return real

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("_compiled", "_flags", "_compiler"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r})"


FORMAT = "w32"  # an entry's code: the bytes of its 32-bit words (see _words)
_cache: dict | None = None  # (pattern, flags) -> the arguments of _sre.compile (code as bytes), loaded on first use
_added: dict = {}  # compiled in this process, not in the cache file yet


def _cache_file() -> str | None:
    if os.environ.get("NOLIFE_TOKENS_RE_CACHE") == "0":
        return None
    try:
        from re import _constants

        tag = f"{sys.implementation.cache_tag}-{sys.hexversion:x}-{_constants.MAGIC}-{FORMAT}"
    except Exception:
        return None
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
    return os.path.join(base, "nolife-tokens", f"re-{tag}.marshal")


def _load() -> dict:
    global _cache
    if _cache is None:
        _cache = {}
        path = _cache_file()
        if path is not None:
            try:
                import marshal

                with open(path, "rb") as fh:
                    data = marshal.loads(fh.read())
                if isinstance(data, dict):
                    _cache = data
            except Exception:  # no cache yet, or an unreadable one: compile
                pass
    return _cache


def compile_re(pattern: Any, flags: Any = 0) -> re.Pattern:
    """``re.compile(pattern, flags)``, built from the cache when it holds the pattern."""
    flags = int(flags)
    key = (pattern, flags)
    entry = _load().get(key)
    if entry is not None:
        try:
            import _sre

            flags_of, words, *groups = entry
            return _sre.compile(pattern, flags_of, _code(words), *groups)
        except Exception:  # a damaged or foreign entry (_sre validates the code): compile
            pass
    try:
        import _sre
        from re import _compiler, _parser

        parsed = _parser.parse(pattern, flags)
        code = [int(op) for op in _compiler._code(parsed, flags)]  # plain ints (opcodes are an int subclass)
        groupindex = {name: int(index) for name, index in parsed.state.groupdict.items()}
        indexgroup = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        entry = (flags | parsed.state.flags, code, parsed.state.groups - 1, groupindex, tuple(indexgroup))
        compiled = _sre.compile(pattern, *entry)
        entry = (entry[0], _words(code), *entry[2:])
    except re.error:
        raise
    except Exception:  # the engine's internals differ from what this expects: the public way
        return _sre_compile(pattern, flags) if _sre_compile is not None else re.compile(pattern, flags)
    if not _added:
        import atexit

        atexit.register(_save)
    _added[key] = entry
    return compiled


def _words(code: list[int]) -> bytes:
    """A pattern's code as the cache keeps it: the bytes of its 32-bit words (native order: the file
    is this machine's own)."""
    from array import array

    return array("I", code).tobytes()


def _code(words: bytes) -> list[int]:
    """The code list ``_sre.compile`` takes, from ``_words``' bytes (TypeError for anything else)."""
    from array import array

    if not isinstance(words, bytes) or array("I").itemsize != 4:
        raise TypeError("not a cache entry of this format")
    return array("I", words).tolist()


def _importing() -> bool:
    """Whether a module is being imported (its top-level code is on the stack)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == "<frozen importlib._bootstrap>":
            return True
        frame = frame.f_back
    return False


def _literal(pattern: Any) -> bool:
    """Whether ``pattern`` is a constant of the code that asked ``re`` for it (the first caller outside
    the ``re`` package): written in a program's text (argparse's ``r'\\s+'``, a ``re.fullmatch(rb"…",
    line)``), so never made from analysed content."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "re":
        frame = frame.f_back
    return frame is not None and any(const == pattern and type(const) is type(pattern) for const in frame.f_code.co_consts)


def _cached_sre_compile(pattern: Any, flags: Any = 0):
    """``re._compiler.compile`` through the cache (see ``install``)."""
    if not isinstance(pattern, (str, bytes)) or int(flags) & re.DEBUG:
        return _sre_compile(pattern, flags)
    entry = _load().get((pattern, int(flags)))
    if entry is None and not _importing() and not _literal(pattern):
        return _sre_compile(pattern, flags)
    return compile_re(pattern, flags)


_sre_compile = None  # re._compiler.compile as it was before install()


def install() -> None:
    """Make every ``re.compile`` of this process use the cache (once; nothing when it is off)."""
    global _sre_compile
    if _sre_compile is not None or _cache_file() is None:
        return
    from re import _compiler

    _sre_compile = _compiler.compile
    _compiler.compile = _cached_sre_compile


def _save() -> None:
    """Add the patterns compiled in this process to the cache file (never through a symlink)."""
    path = _cache_file()
    if path is None or not _added:
        return
    try:
        import marshal

        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        merged = {**_load(), **_added}
        tmp = f"{path}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.write(fd, marshal.dumps(merged))
        finally:
            os.close(fd)
        os.replace(tmp, path)
        _cache.update(_added)
        _added.clear()
    except Exception:  # a cache is a convenience: a read-only or full disk changes nothing
        try:
            os.unlink(tmp)
        except Exception:
            pass


def lazy(pattern: Any, flags: Any = 0, compiler: Callable | None = None) -> LazyPattern:
    """``re.compile(pattern, flags)`` (or ``compiler(pattern, flags)``), done on first use."""
    made.append(LazyPattern(pattern, flags, compiler))
    return made[-1]


__all__ = ["LazyPattern", "compile_re", "install", "lazy"]
