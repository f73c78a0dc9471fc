"""How a printed hint names ``tokens`` so that it runs from the agent's shell.

Every hint line (``[refs: tokens expand …]``, ``whole original: tokens expand --full pkt_…``, the
search footer, the hook's replaced output) names the command by ``tokens_command()``:

* ``tokens`` when that name, looked up on ``$PATH``, is this installation's launcher (the console
  script next to the running interpreter), so the short form works as printed;
* else the launcher's absolute path, shell-quoted (``/home/me/.venv/bin/tokens``), which works from
  any shell whatever its ``PATH``;
* else (no console script: a source checkout run as ``python -m flows.cli``) the interpreter with
  ``-I -m flows.cli``, also absolute.

``launcher_argv()`` is the same as an argv list (for a command line built with ``shlex.join``);
``refs_hint()`` is the line an output with refs ends with.
Nothing here imports more than ``os`` and ``sys``: it is called on the fast paths (``shell_join`` is
``shlex.join``, without importing ``shlex``).
"""

from __future__ import annotations

import os
import sys

_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")  # shlex's [\w@%+=:,./-]


def shell_quote(arg: str) -> str:
    """``shlex.quote(arg)``: the word as it is when every character is safe, else in single quotes."""
    if not arg:
        return "''"
    if all(c in _SAFE for c in arg):
        return arg
    return "'" + arg.replace("'", "'\"'\"'") + "'"


def shell_join(argv: list[str]) -> str:
    """``shlex.join(argv)``: a command line the shell splits back into ``argv``."""
    return " ".join(shell_quote(arg) for arg in argv)


def launcher_argv() -> list[str]:
    """The installed ``tokens`` as an absolute argv: the console script next to the running
    interpreter, else the interpreter with ``-I -m flows.cli``."""
    exe = os.path.abspath(sys.executable)
    script = os.path.join(os.path.dirname(exe), "tokens")
    if os.path.isfile(script) and os.access(script, os.X_OK):
        return [script]
    return [exe, "-I", "-m", "flows.cli"]


def on_path(path: str | None = None) -> bool:
    """Whether ``tokens`` looked up on ``path`` (default ``$PATH``) is this installation's launcher."""
    argv = launcher_argv()
    if len(argv) != 1:
        return False
    search = os.environ.get("PATH", os.defpath) if path is None else path
    for directory in search.split(os.pathsep):
        candidate = os.path.join(directory or ".", "tokens")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            try:
                return os.path.samefile(candidate, argv[0])
            except OSError:
                return False
    return False


def tokens_command(path: str | None = None) -> str:
    """The word(s) a hint uses for ``tokens``: ``tokens`` when it resolves on ``path`` (default
    ``$PATH``) to this installation, else the absolute launcher, shell-quoted."""
    if on_path(path):
        return "tokens"
    return shell_join(launcher_argv())


def refs_hint(manifest_id: str, ref_id: str = "ID") -> bytes:
    """The one line an output with refs ends with (once per output, not per marker): how to read a
    ref back in part or whole, and the whole original."""
    exe = tokens_command()
    line = f"[refs: {exe} expand {ref_id} [--grep PAT [-C N] | --lines A:B | --head N]"
    if manifest_id:
        line += f"; whole original: {exe} expand --full {manifest_id}"
    return (line + "]\n").encode()
