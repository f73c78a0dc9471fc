"""The ``tokens`` entry point, and the short-output fast path of ``tokens run``.

An agent sends every shell command through ``tokens run``; most print a few lines, which the graph
would pass through untouched (shorter than ``min_bytes``). Paying for the engine's start-up on each
of them would cost far more than the command itself, so ``main`` looks first, importing nothing
but ``os``, ``sys`` and ``select``:

* only ``tokens run -- CMD …`` (or ``tokens run CMD …``) with no options, on Linux, with
  ``NOLIFE_TOKENS_QUICK`` not ``0``;
* the command starts exactly as the full path starts it (its own session, stdout and stderr on one
  pipe, default signal dispositions) and is read for at most ``QUICK_WAIT`` s (``READ_MAX`` bytes);
* when it exits within that time having printed fewer than ``DEFAULT_MIN_BYTES`` bytes of plain
  printable ASCII (tab, newline and CRLF allowed; no ``#ref:``; no ``=`` and no secret-like word, which
  a type that hides secrets even in short inputs could claim), and no config file could change
  ``min_bytes`` (no ``$NOLIFE_TOKENS_CONFIG``, no user config file), the result is what the graph
  prints for it — the bytes unchanged, ``[command failed: exit code N]`` first when it failed, a final
  newline when the output lacks one — and nothing is stored (nothing was omitted);
* otherwise the command is handed to the full path (``flows.agent.cmd_run``) with what was read so
  far: nothing is read twice or lost. A command that has exited with its whole output read is
  reduced there without starting the engine (``flows.runner.run_source``); one still running (or
  printing more than ``READ_MAX``) keeps running and is read by the graph.

SIGINT, SIGTERM and SIGHUP are blocked while the fast path holds the command (the child starts with
an empty mask); a signal that arrives then stays pending and is delivered once the full path has
installed its handlers, which forward it to the command's group. ``tests/test_quick.py`` proves the
fast path prints byte for byte what the graph prints, for every fixture and bad input cut short.
"""

import os  # no ``from __future__ import annotations`` here (nor in flows.watchdog, flows.quickcount): importing
import sys  # ``__future__`` is part of every short run's cost; these annotations are valid at run time (3.10+)

QUICK_WAIT = 0.25  # seconds the fast path waits for a command to finish
DEFAULT_MIN_BYTES = 4096  # operators.config.ReduceConfig.min_bytes: shorter inputs pass through
READ_MAX = 8 * 1024 * 1024  # operators.runsource.MAX_WINDOW_BYTES: the fast path reads at most this
_PLAIN = bytes(range(0x20, 0x7F)) + b"\t\n\r"


class Child:
    """A command started by ``posix_spawn``, with what ``flows.agent``/``operators.runsource`` use of a
    ``subprocess.Popen``: ``pid``, ``stdout``, ``poll()``, ``wait(timeout)`` and ``returncode``."""

    def __init__(self, pid: int, read_fd: int):
        self.pid = pid
        self.stdout = os.fdopen(read_fd, "rb", buffering=0)
        self.returncode: int | None = None

    def _status(self, flags: int) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, flags)
            except ChildProcessError:
                return self.returncode
            if pid:
                self.returncode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        return self.returncode

    def poll(self) -> int | None:
        return self._status(os.WNOHANG)

    def wait(self, timeout: float | None = None) -> int:
        if timeout is None:
            return self._status(0)
        import time

        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() >= deadline:
                import subprocess

                raise subprocess.TimeoutExpired(str(self.pid), timeout)
            time.sleep(0.01)
        return self.returncode


class Started:
    """A command the fast path started and handed over: the process, the bytes read, whether the output
    has ended, and the signal mask to restore once the full path handles signals."""

    def __init__(self, cmd: list[str], child: Child, data: bytes, eof: bool, mask):
        self.cmd, self.child, self.data, self.eof, self._mask = cmd, child, data, eof, mask

    def unblock(self) -> None:
        """Restore the signal mask: a signal that arrived meanwhile is delivered now."""
        import _signal

        if self._mask is not None:
            _signal.pthread_sigmask(_signal.SIG_SETMASK, self._mask)
            self._mask = None


_handover: Started | None = None


def take_started(cmd: list[str]) -> Started | None:
    """The command the fast path started for ``cmd``, once (None when it started none)."""
    global _handover
    started, _handover = _handover, None
    return started if started is not None and started.cmd == cmd else None


def _command(argv: list[str]) -> list[str] | None:
    """The command of a ``run`` with no options, else None."""
    if len(argv) >= 3 and argv[0] == "run" and argv[1] == "--host":  # a host sizes the budget: short output is the same
        argv = ["run", *argv[3:]]
    if len(argv) < 2 or argv[0] != "run":
        return None
    cmd = argv[2:] if argv[1] == "--" else argv[1:]
    if not cmd or cmd[0].startswith("-") or os.path.basename(cmd[0]) == "tokens":
        return None
    return cmd


def _eligible() -> bool:
    if os.environ.get("NOLIFE_TOKENS_CONFIG"):
        return False
    base = os.environ.get("XDG_CONFIG_HOME", "").strip() or os.path.expanduser("~/.config")
    return not os.path.exists(os.path.join(base, "nolife-tokens", "config.toml"))


def _spawn(cmd: list[str]) -> tuple[Child | None, int]:
    """Start ``cmd`` as ``flows.agent`` does: (child, 0), or (None, exit code) with the same message."""
    import _signal

    read_fd, write_fd = os.pipe()
    if min(read_fd, write_fd) < 3:  # a standard stream was closed: leave it to the full path
        os.close(read_fd)
        os.close(write_fd)
        return None, -1
    defaults = [_signal.SIGPIPE, _signal.SIGXFSZ]  # Python ignores these; a command must not inherit that
    from flows.watchdog import cancel, prepare, watch

    handle = prepare()  # the watchdog first: once the command runs, one write hands it the group
    try:
        pid = os.posix_spawnp(cmd[0], cmd, os.environ, setsid=True, setsigmask=(), setsigdef=defaults,
                              file_actions=[(os.POSIX_SPAWN_DUP2, write_fd, 1), (os.POSIX_SPAWN_DUP2, write_fd, 2),
                                            (os.POSIX_SPAWN_CLOSE, read_fd), (os.POSIX_SPAWN_CLOSE, write_fd)])
    except OSError as exc:
        os.close(read_fd)
        os.close(write_fd)
        cancel(handle)
        return None, cannot_start(cmd, exc)
    os.close(write_fd)
    watch(handle, pid)  # killed outright, tokens takes the command's group with it (flows/watchdog.py)
    return Child(pid, read_fd), 0


def cannot_start(cmd: list[str], exc: OSError) -> int:
    """Say why ``cmd`` could not start (one line on stderr) and return the shell's exit code for it:
    127 not found, 126 not executable (both paths of ``tokens run`` say it the same way)."""
    if isinstance(exc, FileNotFoundError):
        message, code = f"command not found: {cmd[0]}", 127
    elif isinstance(exc, PermissionError):
        message, code = f"cannot execute (permission denied): {cmd[0]}", 126
    else:
        message, code = f"cannot execute {cmd[0]}: {exc.strerror or exc}", 126
    from operators.errors import say

    say(message)
    return code


def _read(child: Child, limit: int) -> tuple[bytes, bool]:
    """What the command prints within QUICK_WAIT s (stopping at ``limit`` bytes), and whether the
    output ended and the command exited."""
    import select
    import time

    fd = child.stdout.fileno()
    deadline = time.monotonic() + QUICK_WAIT
    data = bytearray()
    while len(data) < limit:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return bytes(data), False
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    else:
        return bytes(data), False
    while child.poll() is None:  # the output ended: the command is about to exit
        if time.monotonic() >= deadline:
            return bytes(data), False
        time.sleep(0.001)
    return bytes(data), True


_SECRET_WORDS = (b"token", b"secret", b"pass", b"key", b"auth", b"credential", b"private", b"cookie", b"session",
                 b"dsn", b"signature", b"cert", b"bearer",
                 # bare tokens and a URL's user:password@ (operators.secrets hides them in any output)
                 b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_", b"github_pat_", b"glpat-", b"xox", b"sk-", b"sk_", b"rk_",
                 b"akia", b"asia", b"agpa", b"aida", b"aroa", b"anpa", b"aiza", b"eyj", b"npm_", b"hf_")


def _plain(data: bytes) -> bool:
    """Plain printable ASCII the graph would show as it is: no control byte, no marker look-alike, and
    nothing a type that hides secrets (``REDACTS``: ``KEY=value`` lines, secret-like words) could claim."""
    if data.translate(None, _PLAIN) or b"#ref:" in data or data.replace(b"\r\n", b"").find(b"\r") >= 0:
        return False
    if b"=" in data:  # KEY=value lines (env, config dumps): the table type may hide values
        return False
    lower = data.lower()
    return not any(word in lower for word in _SECRET_WORDS) and not (b"://" in data and b"@" in data)


def try_run(argv: list[str]) -> int | None:
    """Run a short command completely (its exit status), or hand it over (None: the full path goes on)."""
    global _handover
    cmd = _command(argv)
    if cmd is None or sys.platform != "linux" or os.environ.get("NOLIFE_TOKENS_QUICK") == "0":
        return None
    printable = _eligible()  # no config that could change min_bytes: a short output may be printed here
    import _signal

    mask = _signal.pthread_sigmask(_signal.SIG_BLOCK, [_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP])
    child, code = _spawn(cmd)
    if child is None:
        _signal.pthread_sigmask(_signal.SIG_SETMASK, mask)
        return None if code < 0 else code
    data, done = _read(child, READ_MAX)
    if not (done and len(data) < DEFAULT_MIN_BYTES and printable and _plain(data)):
        _handover = Started(cmd, child, data, done, mask)
        return None
    child.stdout.close()
    status = child.returncode
    status = 128 - status if status < 0 else status
    out = (f"[command failed: exit code {status}]\n".encode() if status else b"") + data  # bytes as printed
    try:
        os.write(1, out) if out else None
    except BrokenPipeError:
        pass
    from flows.quickcount import count

    count(cmd, len(out))  # tokens gain counts this run too (flows/quickcount.py)
    _signal.pthread_sigmask(_signal.SIG_SETMASK, mask)  # a signal that came meanwhile ends us now
    return status


def import_msgspec() -> None:
    """Import msgspec with ``typing_extensions`` hidden for the moment of its import.

    msgspec takes ``get_type_hints`` (and ``Required``/``NotRequired``) from ``typing_extensions`` when
    that package is installed (the MCP SDK brings it), and importing it pulls in ``inspect``: about
    40 M instructions, ~9 ms, on every call of ``tokens``. Without it msgspec uses the standard
    ``typing`` functions, which give the same hints for this project's Structs (plain annotations, no
    ``TypedDict`` with ``Required``). Nothing else changes: the package is importable again at once
    for whatever needs it later (the MCP server), and nothing is hidden if it was already imported.
    """
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # makes its import raise ImportError
    try:
        import msgspec  # noqa: F401
    finally:
        del sys.modules["typing_extensions"]


def adopt(argv: list[str]) -> bool:
    """Take over the command the native ``tokens`` (``bin/tokens.c``) started and handed over in
    ``NOLIFE_TOKENS_HANDOVER`` (``1 PID READ_FD MEMORY_FD ENDED STATUS WATCHDOG_FD BLOCKED``), as if
    ``try_run`` had started it: whether there was one. A value that does not name a child of this
    process, a pipe and a file (left in the environment by mistake) is ignored."""
    global _handover
    value = os.environ.pop("NOLIFE_TOKENS_HANDOVER", None)
    cmd = _command(argv)
    if value is None or cmd is None:
        return False
    import stat

    try:
        tag, pid, read_fd, memory, ended, status, guard, blocked = (int(word) for word in value.split())
        if tag != 1 or not stat.S_ISFIFO(os.fstat(read_fd).st_mode) or not stat.S_ISREG(os.fstat(memory).st_mode):
            return False
        if not ended:  # ChildProcessError: not a child of ours (WNOWAIT: one that exited stays to be reaped)
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except (ValueError, OSError):
        return False
    chunks = []
    while chunk := os.read(memory, 1 << 20):
        chunks.append(chunk)
    os.close(memory)
    os.set_inheritable(read_fd, False)
    child = Child(pid, read_fd)
    if ended:
        child.returncode = status  # reaped by the launcher
    import _signal

    unblocked = {sig for bit, sig in ((1, _signal.SIGINT), (2, _signal.SIGTERM), (4, _signal.SIGHUP)) if not blocked & bit}
    mask = _signal.pthread_sigmask(_signal.SIG_BLOCK, []) - unblocked  # the mask the launcher started with
    if guard >= 0:
        from flows.watchdog import adopt as guard_adopt

        guard_adopt(guard)
    _handover = Started(cmd, child, b"".join(chunks), bool(ended), mask)
    return True


def main(argv: list[str] | None = None) -> int:
    """The ``tokens`` console script: the fast path first, else the full command line (``flows.cli``)."""
    if argv is None:
        if sys.argv[1:2] == ["hook"]:  # the agent's hook: no config, no argparse, never a failing exit
            from flows.hooks import main as hook

            return hook(sys.argv[2:])
        if not adopt(sys.argv[1:]):
            status = try_run(sys.argv[1:])
            if status is not None:
                return status
    from operators.relazy import install

    install()  # every re.compile of the full path built from the cache of compiled patterns (operators/relazy.py)
    import_msgspec()
    from flows.cli import main as full

    return full(argv)


if __name__ == "__main__":  # python -m flows.quick: run the module's own main, so that the command the fast
    from flows.quick import main as _main  # path hands over is found by take_started (not in __main__'s globals)

    raise SystemExit(_main())
