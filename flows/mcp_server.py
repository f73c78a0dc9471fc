"""``tokens mcp``: an MCP server on stdio (the official ``mcp`` Python SDK, the ``[mcp]`` extra).

Tools, over the same store as the ``tokens`` command:

* ``run(command, cwd?, timeout?, level?)`` — **opt-in** (``tokens mcp --run``, or
  ``NOLIFE_TOKENS_MCP_RUN=1`` in the server's environment): runs a shell command line under ``tokens
  run`` and returns its reduced output followed by ``[exit code N]``. This is shell execution outside
  the host's own Bash permission rules, so it is off unless asked for. Its ``cwd`` must lie inside one
  of the client's roots (MCP ``roots/list``; the server's own directory when the client has none).
  On ``timeout``, and when the client goes away (the call is cancelled), the run gets SIGTERM, which
  it forwards to the command's process group, then SIGKILL after a grace period: nothing outlives it.
* ``expand(id, lines?, grep?, context?, head?, tail?, full?)`` — a ref (``ctx_…``) or, with ``full``,
  the original of a packet (``pkt_…``), whole or a slice, as ``tokens expand`` prints it; a text
  longer than the output ceiling (``[ceiling] max_chars``) is cut there with a line naming the
  ``expand`` call that reads the rest.
* ``search(pattern, limit?)`` — ``tokens search``.
* ``stats()`` — ``tokens gain --json``.

Hints inside results name these tools (``expand(id='ctx_…', grep=…)``), not command lines. The
server reports the package's version. MCP carries text: bytes that are not valid UTF-8 come back
replaced (``tokens expand`` on the command line gives the exact bytes). Nothing is printed on stdout
but the protocol.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from operators.config import Config

EXPAND_MAX = 200_000  # bytes of an expanded text returned in one call
RUN_TIMEOUT = 600.0  # seconds a run may take by default
STOP_GRACE = 5.0  # seconds a timed-out run has to print what it has after SIGTERM
INSTRUCTIONS = (
    "Reads back shell output that was reduced for your context; nothing is lost. A marker like "
    "#ref:ctx_1a2b3c stands for omitted lines: read them with expand(id, grep=…, lines='A:B', head=N), "
    "or the whole original with expand('pkt_…', full=True). search finds words in stored refs; stats "
    "reports the savings. run (when enabled) runs a shell line with its output reduced."
)
RUN_ENV = "NOLIFE_TOKENS_MCP_RUN"

_EXE = r"(?:'[^'\n]*'|[^\s\[\]]+)(?: -I -m flows\.cli)?"
_HINTS = [  # command-line hints -> the MCP tools that do the same
    (re.compile(rf"\[refs: {_EXE} expand (\S+) \[--grep PAT \[-C N\] \| --lines A:B \| --head N\]"
                rf"(?:; whole original: {_EXE} expand --full (pkt_[0-9a-f]+))?\]"),
     lambda m: f"[refs: expand(id='{m.group(1)}', grep=PAT, context=N | lines='A:B' | head=N)"
               + (f"; whole original: expand(id='{m.group(2)}', full=True)" if m.group(2) else "") + "]"),
    (re.compile(rf"{_EXE} expand --full (pkt_[0-9a-f]+|pkt_…)"), lambda m: f"expand(id='{m.group(1)}', full=True)"),
    (re.compile(rf"{_EXE} expand (ctx_…|ctx_[0-9a-f]+|ID) --grep (PATTERN|PAT)(?: -C (\d+|N))?"),
     lambda m: f"expand(id='{m.group(1)}', grep={m.group(2)}" + (f", context={m.group(3)}" if m.group(3) else "") + ")"),
    (re.compile(rf"-> {_EXE} show-ref ID"), lambda m: "-> expand(id)"),
]


def mcp_hints(text: str) -> str:
    """``text`` with every command-line hint replaced by the MCP call that does the same."""
    for pattern, repl in _HINTS:
        text = pattern.sub(repl, text)
    return text


def within_roots(cwd: str | None, roots: list[str]) -> str:
    """The directory a run may use: ``cwd`` (default: the first root) when it lies inside one of the
    client's ``roots`` (symbolic links resolved); else a ``UsageError``."""
    from operators.errors import UsageError

    real_roots = [os.path.realpath(r) for r in roots]
    target = os.path.realpath(cwd if cwd is not None else real_roots[0])
    if not os.path.isdir(target):
        raise UsageError(f"cwd is not a directory: {cwd}")
    if not any(target == r or target.startswith(r.rstrip(os.sep) + os.sep) for r in real_roots):
        raise UsageError(f"cwd {cwd} is outside the client's roots ({', '.join(roots)})")
    return target


def run_argv(command: str, level: int, config_path: str | None) -> list[str]:
    """``tokens run`` of a shell line, as argv."""
    from flows.hooks import tokens_argv
    from operators.errors import UsageError

    if not command.strip():
        raise UsageError("run needs a command")
    if level not in (0, 1):
        raise UsageError("level is 0 or 1")
    argv = tokens_argv() + (["--config", config_path] if config_path else [])
    return argv + ["run", "--level", str(level), "--", "/bin/bash" if os.path.exists("/bin/bash") else "bash", "-c",
                   command]


async def _stop(proc) -> None:
    """SIGTERM (``tokens run`` forwards it to the command's group and prints what it has), then
    SIGKILL after ``STOP_GRACE``; shielded, so it completes even when the call was cancelled."""
    import anyio

    with anyio.CancelScope(shield=True):
        if proc.returncode is None:
            try:
                proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                return
            with anyio.move_on_after(STOP_GRACE):
                await proc.wait()
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def run_command(command: str, cwd: str, timeout: float, level: int, config_path: str | None) -> str:
    """Run the line; its stdout, its warnings, its exit code. Cancelled (the client went away) or
    timed out: the run is stopped and nothing it started is left running."""
    import anyio

    argv = run_argv(command, level, config_path)
    out, err = bytearray(), bytearray()
    proc = await anyio.open_process(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    cwd=cwd)
    note = ""
    try:
        async with anyio.create_task_group() as tg:
            for stream, buf in ((proc.stdout, out), (proc.stderr, err)):
                tg.start_soon(_pump, stream, buf)
            with anyio.move_on_after(timeout) as scope:
                await proc.wait()
            if scope.cancelled_caught:
                note = f"[timed out after {timeout:g} s: stopped]\n"
                await _stop(proc)
    finally:
        await _stop(proc)
    text = out.decode("utf-8", "replace")
    if text and not text.endswith("\n"):
        text += "\n"
    warnings = err.decode("utf-8", "replace").strip()
    if warnings:
        text += warnings + "\n"
    return mcp_hints(text) + note + f"[exit code {proc.returncode}]"


async def _pump(stream, buf: bytearray) -> None:
    import anyio

    try:
        async for chunk in stream:
            buf += chunk
    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass


def expand_ref(home, ident: str, lines: str | None = None, grep: str | None = None, context: int | None = None,
               head: int | None = None, tail: int | None = None, full: bool = False, limit: int = EXPAND_MAX) -> str:
    """``tokens expand`` as text, at most ``limit`` bytes (the output ceiling) whatever was asked: the
    rest is named by the ``expand`` call that reads it."""
    from flows.retrieve import expand_output, wants_slice
    from operators.store import Store
    from operators.usage import record_use

    args = argparse.Namespace(target=ident, full=full, lines=lines, grep=grep, context=context, head=head, tail=tail)
    data, read = expand_output(Store(home), args)
    record_use(home, "mcp-expand", read, args, min(len(data), limit))
    if len(data) > limit:
        cut = data.rfind(b"\n", 0, limit) + 1 or limit
        shown_lines = data.count(b"\n", 0, cut)
        first = shown_lines + 1 if not wants_slice(args) else None
        how = f"expand(id='{ident}', {'full=True, ' if full else ''}lines='{first}:')" if first else "a narrower slice"
        return (data[:cut].decode("utf-8", "replace")
                + f"[{len(data) - cut:,} more bytes not returned (output ceiling): read them with {how} "
                  "or grep=PATTERN]\n")
    return data.decode("utf-8", "replace")


def _sdk():
    """(the server class, the tool error class): ``MCPServer`` of mcp 2, ``FastMCP`` of mcp 1."""
    try:
        from mcp.server.mcpserver import MCPServer as Server
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError:
        from mcp.server.fastmcp import FastMCP as Server
        from mcp.server.fastmcp.exceptions import ToolError
    return Server, ToolError


def _user_errors(tool_error: type):
    """A tool's problems a user can fix (a bad id, a bad pattern) are one line for the caller."""
    import functools

    from operators.errors import TokensError, error_line

    def wrap(fn):
        import inspect

        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def acall(*args, **kwargs):
                try:
                    return await fn(*args, **kwargs)
                except TokensError as exc:
                    raise tool_error(error_line(exc)) from None

            return acall

        @functools.wraps(fn)
        def call(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except TokensError as exc:
                raise tool_error(error_line(exc)) from None

        return call

    return wrap


async def client_roots(ctx) -> list[str]:
    """The client's roots as directories (``file://`` URIs); the server's own directory when the
    client declares none or cannot list them."""
    from urllib.parse import unquote, urlparse

    try:
        result = await ctx.session.list_roots()
        roots = [unquote(urlparse(str(r.uri)).path) for r in result.roots if str(r.uri).startswith("file://")]
    except Exception:  # noqa: BLE001 - a client without roots: the directory it started us in
        roots = []
    return roots or [os.getcwd()]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nolife-tokens")
    except PackageNotFoundError:
        return "0+unknown"


def build_server(config: Config, config_path: str | None = None, allow_run: bool = False):
    """The MCP server and its tools (``run`` only when ``allow_run``)."""
    Server, ToolError = _sdk()
    checked = _user_errors(ToolError)

    from flows.retrieve import search_text
    from operators.ceiling import settings_of
    from operators.config import home_path

    home = home_path(config)
    limit = min(EXPAND_MAX, settings_of(config).max_chars)
    server = Server("nolife-tokens", instructions=INSTRUCTIONS, version=_version())
    if allow_run:
        _add_run(server, checked, config_path)

    @server.tool()
    @checked
    def expand(id: str, lines: str | None = None, grep: str | None = None, context: int | None = None,
               head: int | None = None, tail: int | None = None, full: bool = False) -> str:
        """Read back a ref (ctx_… or #ref:ctx_…) or, with full=True, a packet's whole original (pkt_…).
        Optional slice: lines='A:B' (1-based), grep=RE2 pattern (with context=N lines), head=N or tail=N."""
        return mcp_hints(expand_ref(home, id, lines, grep, context, head, tail, full, limit))

    @server.tool()
    @checked
    def search(pattern: str, limit: int = 10) -> str:
        """Find words in the stored refs of recent outputs: ref id, source, line numbers, matching lines."""
        from operators.errors import UsageError

        if not pattern.strip() or limit < 1:
            raise UsageError("search needs a word and a limit of 1 or more")
        return mcp_hints(search_text(home, pattern, limit)[0])

    @server.tool()
    def stats() -> str:
        """Savings so far, per command and in total (estimated tokens), as JSON."""
        import msgspec

        from operators.usage import gain

        return msgspec.json.encode(gain(home)).decode()

    return server


def _add_run(server, checked, config_path: str | None) -> None:
    from mcp.server.mcpserver import Context

    async def run(command: str, ctx: Context, cwd: str | None = None, timeout: float = RUN_TIMEOUT,
                  level: int = 1) -> str:
        """Run a shell command line (outside the host's own shell permission rules) in cwd, which must
        lie inside the client's roots; return its output reduced (omitted lines behind #ref markers),
        then its exit code as [exit code N]. level 0: a few lines only (counts, first signals, refs)."""
        where = within_roots(cwd, await client_roots(ctx))
        return await run_command(command, where, timeout, level, config_path)

    run.__annotations__["ctx"] = Context  # the SDK finds the context parameter by its type
    server.tool()(checked(run))


def run_allowed(args: argparse.Namespace, environ=None) -> bool:
    env = os.environ if environ is None else environ
    return bool(getattr(args, "run", False)) or env.get(RUN_ENV, "") not in ("", "0")


def mcp_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--run", action="store_true",
                   help="also offer the run tool: shell execution outside the host's own permission rules")
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace, config: Config) -> int:
    from flows.runner import startup_done
    from operators.errors import UsageError

    try:
        import mcp  # noqa: F401
    except ImportError:
        raise UsageError("tokens mcp needs the MCP SDK: pip install 'nolife-tokens[mcp]'") from None
    startup_done()  # a long-lived process: the collector runs as usual
    build_server(config, args.config, run_allowed(args)).run("stdio")
    return 0
