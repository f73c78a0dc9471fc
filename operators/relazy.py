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

A bad pattern raises its ``re.error`` on first use instead of at import; ``tests/test_relazy.py``
compiles every lazy pattern of every module, so a bad one still fails the tests.
"""

from __future__ import annotations

import re
from typing import Any, Callable

_KEPT = ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")
made: list["LazyPattern"] = []  # every lazy pattern, for the test that compiles them all


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
            compiler = self._compiler or re.compile
            real = compiler(self.pattern, self._flags) if self._flags or compiler is re.compile else compiler(self.pattern)
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


def lazy(pattern: Any, flags: Any = 0, compiler: Callable | None = None) -> LazyPattern:
    """``re.compile(pattern, flags)`` (or ``compiler(pattern, flags)``), done on first use."""
    made.append(LazyPattern(pattern, flags, compiler))
    return made[-1]


__all__ = ["LazyPattern", "lazy"]
