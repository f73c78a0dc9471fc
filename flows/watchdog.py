"""Nothing ``tokens run`` starts outlives ``tokens`` when ``tokens`` itself is killed.

The command runs in a session of its own (so signals reach all of it), which also means a signal that
kills ``tokens`` outright (SIGKILL, or a default-action signal ``tokens`` does not handle) would leave
it running. ``prepare()`` starts a tiny watchdog before the command: ``/bin/sh`` in a session of its
own too (a signal to ``tokens``' group does not reach it), reading a pipe only ``tokens`` holds;
``watch(handle, pgid)`` hands it the command's process group as soon as the command is started (one
write: no import, no spawn in between). When ``tokens`` exits normally it writes ``done`` first and
the watchdog leaves the command's group alone (its background children are its own business, as
without us); when ``tokens`` dies any other way the pipe closes empty and the watchdog kills the whole
group (SIGKILL); when the command could not start (``cancel``), or ``tokens`` died before it did, the
watchdog reads no group and leaves.

It costs one ``posix_spawn`` of ``sh`` per run, imports nothing but ``os`` and ``atexit``, and does
nothing where ``/bin/sh`` is missing or the pipe cannot be made (the run goes on unguarded).
"""

import atexit
import os

_SCRIPT = 'read -r pgid || exit 0; read -r word; [ "$word" = done ] || kill -9 "-$pgid" 2>/dev/null'
_guards: list[int] = []  # write ends of live watchdogs' pipes


def prepare() -> int | None:
    """Start a watchdog (see the module) and return its pipe's write end, or None (no watchdog)."""
    if not os.path.exists("/bin/sh"):
        return None
    try:
        read_fd, write_fd = os.pipe()
    except OSError:
        return None
    try:
        os.posix_spawn("/bin/sh", ["sh", "-c", _SCRIPT, "sh"], _clean_env(), setsid=True,
                       file_actions=[(os.POSIX_SPAWN_DUP2, read_fd, 0), (os.POSIX_SPAWN_CLOSE, read_fd),
                                     (os.POSIX_SPAWN_CLOSE, write_fd)])
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    os.close(read_fd)
    return write_fd


def watch(handle: int | None, pgid: int) -> None:
    """Hand the watchdog of ``handle`` the command's process group ``pgid``: watched until this
    process exits."""
    if handle is None:
        return
    try:
        os.write(handle, b"%d\n" % pgid)
    except OSError:
        os.close(handle)
        return
    _keep(handle)


def adopt(handle: int) -> None:
    """A watchdog the native ``tokens`` (``bin/tokens.c``) started and already handed the command's
    group: released at this process's normal exit, as one ``watch`` registered."""
    os.set_inheritable(handle, False)
    _keep(handle)


def _keep(handle: int) -> None:
    """A watchdog holding its group, released at this process's normal exit (``release``)."""
    if not _guards:
        atexit.register(release)
    _guards.append(handle)


def cancel(handle: int | None) -> None:
    """The command did not start: its watchdog reads no group and leaves."""
    if handle is not None:
        os.close(handle)


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
