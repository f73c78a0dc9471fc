"""The one error hierarchy, and the one way an error reaches the user.

Every problem a user can cause or meet is a ``TokensError``; each entry point (the ``tokens`` command,
the fast path of ``tokens run``, the MCP server, ``python -m bytewax.run flows.reduce``) shows it as
one line, ``tokens: error: …``, made by ``error_line`` and printed by ``say``/``report`` (never a
traceback), and exits with its ``exit_code``:

* 1 — the store or the file system failed (``StoreError``: unreadable or corrupt record, disk full …;
  an ``OSError`` such as ``-o`` naming a directory)
* 2 — bad usage or configuration: ``UsageError`` (``SliceError`` a bad ``--lines``/``--grep``,
  ``PackError`` a budget too small for ``tokens pack``, ``TailError`` a path ``tokens tail`` cannot
  follow or write), ``ConfigError``, ``StageError`` (a plug-in stage or a type broke its contract)
* 3 — an invariant failed: SIGNAL, RECOVERY or RESTORE said FAIL for an input (``InvariantError``),
  or a reduction plan does not cover its input exactly once (``PlanError``)

Each class lives beside the code that raises it; this module imports nothing of the project.
"""

from __future__ import annotations

import sys

PROG = "tokens"


class TokensError(Exception):
    """A user-facing problem, reported as one line."""

    exit_code = 1


class UsageError(TokensError):
    """Bad input from the user (arguments, paths, ids)."""

    exit_code = 2


class InvariantError(TokensError):
    """SIGNAL, RECOVERY or RESTORE failed for an input."""

    exit_code = 3


def error_line(problem: object, prog: str = PROG) -> str:
    """The line a user sees for a problem: ``tokens: error: …`` (no newline)."""
    return f"{prog}: error: {problem}"


def say(problem: object, prog: str = PROG) -> None:
    """Print ``problem`` as its one error line on stderr."""
    print(error_line(problem, prog), file=sys.stderr, flush=True)


def report(exc: BaseException, prog: str = PROG) -> int:
    """Print ``exc`` as one error line and return the exit status it stands for: a ``TokensError``'s
    ``exit_code``; 1 for an ``OSError`` (its reason and the file it names) or anything else."""
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        say(f"{exc.strerror or exc}{where}", prog)
        return 1
    say(exc, prog)
    return getattr(exc, "exit_code", 1)
