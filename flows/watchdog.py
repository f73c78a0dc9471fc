"""Nothing ``tokens run`` starts outlives ``tokens`` when ``tokens`` itself is killed.

The command runs in a session of its own (so signals reach all of it), which also means a signal that
kills ``tokens`` outright (SIGKILL, or a default-action signal ``tokens`` does not handle) would leave
it running. ``guard(pgid)`` starts a tiny watchdog right after the command: ``/bin/sh`` in a session of
its own too (a signal to ``tokens``' group does not reach it), reading a pipe only ``tokens`` holds.
When ``tokens`` exits normally it writes ``done`` first and the watchdog leaves the command's group
alone (its background children are its own business, as without us); when ``tokens`` dies any other
way the pipe closes empty and the watchdog kills the whole group (SIGKILL).

It costs one ``posix_spawn`` of ``sh`` per run, imports nothing but ``os`` and ``atexit``, and does
nothing where ``/bin/sh`` is missing or the pipe cannot be made (the run goes on unguarded).
"""

import atexit
import os

_SCRIPT = 'read -r word; [ "$word" = done ] || kill -9 "-$1" 2>/dev/null'
_guards: list[int] = []  # write ends of live watchdogs' pipes


def guard(pgid: int) -> None:
    """Watch the command's process group ``pgid`` until this process exits (see the module)."""
    if not os.path.exists("/bin/sh"):
        return
    try:
        read_fd, write_fd = os.pipe()
    except OSError:
        return
    try:
        os.posix_spawn("/bin/sh", ["sh", "-c", _SCRIPT, "sh", str(pgid)], _clean_env(), setsid=True,
                       file_actions=[(os.POSIX_SPAWN_DUP2, read_fd, 0), (os.POSIX_SPAWN_CLOSE, read_fd),
                                     (os.POSIX_SPAWN_CLOSE, write_fd)])
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return
    os.close(read_fd)
    if not _guards:
        atexit.register(release)
    _guards.append(write_fd)


def release() -> None:
    """A normal exit: every watchdog leaves its group alone."""
    while _guards:
        fd = _guards.pop()
        try:
            os.write(fd, b"done\n")
        except OSError:
            pass
        finally:
            os.close(fd)


def _clean_env() -> dict:
    return {"PATH": "/usr/bin:/bin"}
