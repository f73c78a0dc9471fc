"""The options several commands share, and the checks of their values.

``--budget``, ``--host``, ``--type`` and ``--granularity`` are declared the same way by ``analyze``
(``flows.cli``), ``run`` and ``pack`` (``flows.agent``) and ``tail`` (``flows.tail``); ``budget`` and
``check_readable`` check a value once the command runs. Nothing here is imported that a command's
start does not need: ``--type``'s help reads the type registry only when that command is parsed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from operators.errors import UsageError

if TYPE_CHECKING:
    import argparse

HOSTS = ("claude-code", "codex", "gemini", "none")  # operators.ceiling.HOST_LIMITS (not imported to parse)
BUDGET_HELP = ("estimated tokens (bytes/4) the output may take (default: [ceiling] max_chars, or the limit of "
               "the agent host that reads it, --host)")
HOST_HELP = ("the agent host that reads the output: claude-code (25,000 characters stay inline), codex (9,000 "
             "bytes), gemini (25,000), none (25,000); sets the output ceiling unless [ceiling] max_chars does "
             "(default: $NOLIFE_TOKENS_HOST, else [ceiling] host)")


def add_budget_and_host(p: argparse.ArgumentParser) -> None:
    """``--budget N`` and ``--host H``: how much the output may take, and whose ceiling it meets."""
    p.add_argument("--budget", type=int, metavar="N", help=BUDGET_HELP)
    p.add_argument("--host", choices=HOSTS, help=HOST_HELP)


def add_type(p: argparse.ArgumentParser) -> None:
    """``--type TYPE``: its help names the registered types (the registry only, no type is imported)."""
    from operators import types

    p.add_argument("--type", metavar="TYPE",
                   help="force a content type: " + ", ".join(types.names()) + " (or one a config registers)")


def add_granularity(p: argparse.ArgumentParser) -> None:
    p.add_argument("--granularity", choices=["coarse", "fine"])


def budget(value: int | None) -> int | None:
    """``--budget N``: estimated tokens the output may take (the ``[ceiling]`` default when not given)."""
    if value is not None and value < 1:
        raise UsageError("--budget must be a positive number of estimated tokens")
    return value


def check_readable(path: str) -> None:
    """An input path names a file this process can read (UsageError saying why not)."""
    from operators.sources import unreadable_reason

    problem = unreadable_reason(path)
    if problem:
        raise UsageError(problem)
