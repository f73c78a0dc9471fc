"""The one error hierarchy: every problem a user can cause or meet is a ``TokensError``.

The CLI prints it as one line, ``tokens: error: …``, and exits with its ``exit_code``; nothing else
prints errors. Exit codes:

* 1 — the store or the file system failed (``StoreError``: unreadable or corrupt record, disk full …)
* 2 — bad usage or configuration (``UsageError``, ``ConfigError``)
* 3 — an invariant failed: SIGNAL, RECOVERY or RESTORE said FAIL for an input (``InvariantError``)
"""

from __future__ import annotations


class TokensError(Exception):
    """A user-facing problem, reported as one line."""

    exit_code = 1


class UsageError(TokensError):
    """Bad input from the user (arguments, paths, ids)."""

    exit_code = 2


class InvariantError(TokensError):
    """SIGNAL, RECOVERY or RESTORE failed for an input."""

    exit_code = 3
