"""``tokens mcp``: an MCP server on stdio (the official ``mcp`` Python SDK, the ``[mcp]`` extra).

Tools, over the same store as the ``tokens`` command:

* ``run(command, cwd?, timeout?, level?)`` — runs a shell command line under ``tokens run`` (a child
  process: the very code path of the command, streaming, signals and store included) and returns its
  reduced output followed by ``[exit code N]``. On ``timeout`` the run gets SIGTERM, which it forwards
  to the command's process group, and what it printed so far is returned.
* ``expand(id, lines?, grep?, context?, head?, tail?, full?)`` — a ref (``ctx_…``) or, with ``full``,
  the original of a packet (``pkt_…``), whole or a slice, as ``tokens expand`` prints it. A text
  over ``EXPAND_MAX`` bytes returned whole is cut there with a line saying how to read the rest.
* ``search(pattern, limit?)`` — ``tokens search``.
* ``stats()`` — ``tokens gain --json``.

MCP carries text: bytes that are not valid UTF-8 come back replaced (``tokens expand`` on the command
line gives the exact bytes). Nothing is printed on stdout but the protocol.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from operators.config import Config

EXPAND_MAX = 200_000  # bytes of an expanded text returned in one call
RUN_TIMEOUT = 600.0  # seconds a run may take by default
STOP_GRACE = 5.0  # seconds a timed-out run has to print what it has after SIGTERM
INSTRUCTIONS = (
    "Runs shell commands with their output reduced for your context; nothing is lost. A marker like "
    "#ref:ctx_1a2b3c stands for omitted lines: read them with expand(id, grep=…, lines='A:B', head=N), "
    "or the whole original with expand('pkt_…', full=True). search finds words in stored refs; stats "
    "reports the savings."
)


def run_command(command: str, cwd: str | None, timeout: float, level: int, config_path: str | None) -> str:
    """``tokens run`` of a shell line in a child process: its stdout, its warnings, its exit code."""
    from flows.hooks import tokens_argv
    from operators.errors import UsageError

    if not command.strip():
        raise UsageError("run needs a command")
    if cwd is not None and not os.path.isdir(cwd):
        raise UsageError(f"cwd is not a directory: {cwd}")
    if level not in (0, 1):
        raise UsageError("level is 0 or 1")
    argv = tokens_argv() + (["--config", config_path] if config_path else [])
    argv += ["run", "--level", str(level), "--", "/bin/bash" if os.path.exists("/bin/bash") else "bash", "-c", command]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
    note = ""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)  # tokens run forwards it to the command's group and prints what it has
        try:
            out, err = proc.communicate(timeout=STOP_GRACE)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        note = f"[timed out after {timeout:g} s: stopped]\n"
    text = out.decode("utf-8", "replace")
    if text and not text.endswith("\n"):
        text += "\n"
    warnings = err.decode("utf-8", "replace").strip()
    if warnings:
        text += warnings + "\n"
    return text + note + f"[exit code {proc.returncode}]"


def expand_ref(home, ident: str, lines: str | None = None, grep: str | None = None, context: int | None = None,
               head: int | None = None, tail: int | None = None, full: bool = False) -> str:
    """``tokens expand`` as text (bounded by ``EXPAND_MAX`` when returned whole)."""
    from flows.retrieve import expand_output, wants_slice
    from operators.store import Store
    from operators.usage import record_use

    args = argparse.Namespace(target=ident, full=full, lines=lines, grep=grep, context=context, head=head, tail=tail)
    data, read = expand_output(Store(home), args)
    record_use(home, "mcp-expand", read, args)
    if len(data) > EXPAND_MAX and not wants_slice(args):
        rest = len(data) - EXPAND_MAX
        cut = data.rfind(b"\n", 0, EXPAND_MAX) + 1 or EXPAND_MAX
        shown_lines = data.count(b"\n", 0, cut)
        return (data[:cut].decode("utf-8", "replace")
                + f"[{rest + EXPAND_MAX - cut:,} more bytes not returned: expand with lines='{shown_lines + 1}:' "
                  "or grep to read them]\n")
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

    from operators.errors import TokensError

    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except TokensError as exc:
                raise tool_error(f"tokens: error: {exc}") from None

        return call

    return wrap


def build_server(config: Config, config_path: str | None = None):
    """The MCP server and its four tools."""
    Server, ToolError = _sdk()
    checked = _user_errors(ToolError)

    from flows.retrieve import search_text
    from operators.config import home_path

    home = home_path(config)
    server = Server("nolife-tokens", instructions=INSTRUCTIONS)

    @server.tool()
    @checked
    def run(command: str, cwd: str | None = None, timeout: float = RUN_TIMEOUT, level: int = 1) -> str:
        """Run a shell command line; return its output reduced (omitted lines behind #ref markers), then
        its exit code as [exit code N]. level 0: a few lines only (counts, first signals, refs)."""
        return run_command(command, cwd, timeout, level, config_path)

    @server.tool()
    @checked
    def expand(id: str, lines: str | None = None, grep: str | None = None, context: int | None = None,
               head: int | None = None, tail: int | None = None, full: bool = False) -> str:
        """Read back a ref (ctx_… or #ref:ctx_…) or, with full=True, a packet's whole original (pkt_…).
        Optional slice: lines='A:B' (1-based), grep=RE2 pattern (with context=N lines), head=N or tail=N."""
        return expand_ref(home, id, lines, grep, context, head, tail, full)

    @server.tool()
    @checked
    def search(pattern: str, limit: int = 10) -> str:
        """Find words in the stored refs of recent outputs: ref id, source, line numbers, matching lines."""
        from operators.errors import UsageError

        if not pattern.strip() or limit < 1:
            raise UsageError("search needs a word and a limit of 1 or more")
        return search_text(home, pattern, limit)[0]

    @server.tool()
    def stats() -> str:
        """Savings so far, per command and in total (estimated tokens), as JSON."""
        import msgspec

        from operators.usage import gain

        return msgspec.json.encode(gain(home)).decode()

    return server


def cmd_mcp(args: argparse.Namespace, config: Config) -> int:
    from flows.runner import startup_done
    from operators.errors import UsageError

    try:
        import mcp  # noqa: F401
    except ImportError:
        raise UsageError("tokens mcp needs the MCP SDK: pip install 'nolife-tokens[mcp]'") from None
    startup_done()  # a long-lived process: the collector runs as usual
    build_server(config, args.config).run("stdio")
    return 0
