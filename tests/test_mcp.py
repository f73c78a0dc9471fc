"""``tokens mcp`` driven by the MCP SDK's own client over stdio: each tool, on the same store."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import re
import sys
import time

import pytest

from conftest import FIXTURES, PROJECT, sleepers
from operators.store import Store

needs_mcp = pytest.mark.skipif(importlib.util.find_spec("mcp") is None, reason="the [mcp] extra is not installed")

LOG = FIXTURES / "sample.log"


async def _session(home, calls, args=("--run",), roots=None):
    from mcp import StdioServerParameters
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    env = {**os.environ, "NOLIFE_TOKENS_HOME": str(home)}
    env.pop("NOLIFE_TOKENS_MCP_RUN", None)
    params = StdioServerParameters(command=sys.executable, args=["-m", "flows.cli", "mcp", *args], env=env,
                                   cwd=str(PROJECT))
    list_roots = None
    if roots is not None:
        import mcp.types as types

        async def list_roots(context):  # the client's roots, as a host declares its workspace
            return types.ListRootsResult(roots=[types.Root(uri=f"file://{r}") for r in roots])
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, list_roots_callback=list_roots) as session:
                await session.initialize()
                return await calls(session)


def drive(home, calls, args=("--run",), roots=None):
    import anyio

    return anyio.run(_session, home, calls, args, roots)


def text_of(result) -> str:
    return "".join(part.text for part in result.content if getattr(part, "type", "") == "text")


@needs_mcp
def test_every_tool_through_the_sdk_client(home):
    async def calls(session):
        out = {"tools": sorted(t.name for t in (await session.list_tools()).tools)}
        out["version"] = session.server_info.version if hasattr(session, "server_info") and session.server_info else \
            getattr(getattr(session, "_server_info", None), "version", "")
        out["run"] = await session.call_tool("run", {"command": f"cat {LOG}; echo done >&2; exit 3"})
        text = text_of(out["run"])
        ref = re.search(r"#ref:(ctx_[0-9a-f]+)", text).group(1)
        pkt = re.search(r"expand\(id='(pkt_[0-9a-f]+)', full=True\)", text).group(1)
        out["ids"] = ref, pkt
        out["lines"] = await session.call_tool("expand", {"id": ref, "lines": "2:3"})
        out["whole"] = await session.call_tool("expand", {"id": f"#ref:{ref}"})
        out["grep"] = await session.call_tool("expand", {"id": pkt, "full": True, "grep": "PaymentService", "context": 1})
        out["bad"] = await session.call_tool("expand", {"id": ref, "grep": "(unclosed"})
        out["unknown"] = await session.call_tool("expand", {"id": "ctx_000000"})
        out["search"] = await session.call_tool("search", {"pattern": "heartbeat", "limit": 1})
        out["stats"] = await session.call_tool("stats", {})
        return out

    out = drive(home, calls)
    assert out["tools"] == ["expand", "run", "search", "stats"]
    assert out["version"] and out["version"] != "0+unknown"
    ref, pkt = out["ids"]
    run = text_of(out["run"])
    assert not out["run"].is_error
    assert run.startswith("[command failed: exit code 3]\n")
    assert "ERROR PaymentService line 421: charge declined" in run  # the signal survives
    assert "\ndone\n" in run  # stderr merged in, in order
    # the hints name the MCP tools, the exit code comes last
    assert run.endswith(f"; whole original: expand(id='{pkt}', full=True)]\n[exit code 3]")
    assert "tokens expand" not in run and "expand(id='ID', grep=PAT" in run
    content = Store(home).get(ref).content
    assert text_of(out["whole"]) == content.decode()
    lines = content.split(b"\n")
    total = len(lines) - (content.endswith(b"\n"))
    assert text_of(out["lines"]) == f"[{ref} lines 2-3 of {total}]\n" + (lines[1] + b"\n" + lines[2] + b"\n").decode()
    grep = text_of(out["grep"])
    assert grep.startswith(f"[{pkt} (original) grep 'PaymentService': 2 matching lines")
    assert "203:2026-08-16 09:01:28.329 ERROR PaymentService line 421" in grep and "\n--\n" in grep
    for bad, words in (("bad", "bad --grep pattern"), ("unknown", "unknown ref ctx_000000")):
        assert out[bad].is_error and words in text_of(out[bad]) and "Traceback" not in text_of(out[bad])
    search = text_of(out["search"])
    assert search.startswith(f"{ref} | run: /bin/bash -c") or search.startswith(f"{ref} | run: bash -c"), search
    assert "[1 ref;" in search
    stats = json.loads(text_of(out["stats"]))
    [row] = [r for r in stats["rows"] if r["command"] == "run: cat"]
    assert row["runs"] == 1 and row["refs_expanded"] == 1 and row["originals_restored"] == 1
    assert row["raw_tokens"] == -(-(LOG.stat().st_size + len(b"done\n")) // 4)  # the log, then stderr's line




@needs_mcp
def test_a_run_that_times_out_returns_what_it_printed_and_leaves_nothing_running(home):
    tag = "97.31"

    async def calls(session):
        return await session.call_tool("run", {"command": f"echo started; sleep {tag}", "timeout": 2})

    start = time.monotonic()
    result = drive(home, calls)
    text = text_of(result)
    assert time.monotonic() - start < 60
    assert "started\n" in text and "[timed out after 2 s: stopped]" in text
    assert re.search(r"\[exit code \d+\]$", text)
    deadline = time.monotonic() + 5
    while sleepers(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sleepers(tag) == []


def test_without_the_sdk_it_is_one_error_line(home):
    code = "import sys; sys.modules['mcp'] = None; from flows.cli import main; raise SystemExit(main(['mcp']))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=PROJECT, timeout=60, stdin=subprocess.DEVNULL)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and proc.stdout == b""
    assert err == "tokens: error: tokens mcp needs the MCP SDK: pip install 'nolife-tokens[mcp]'\n"


@needs_mcp
def test_run_is_opt_in(home):
    async def calls(session):
        return sorted(t.name for t in (await session.list_tools()).tools)

    assert drive(home, calls, args=()) == ["expand", "search", "stats"]


@needs_mcp
def test_run_stays_inside_the_clients_roots(home, tmp_path):
    inside = tmp_path / "workspace"
    (inside / "sub").mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (inside / "sub" / "planted.txt").write_text("x")

    async def calls(session):
        out = {}
        for name, cwd in (("sub", str(inside / "sub")), ("out", str(outside)), ("dotdot", str(inside / "sub" / ".." / "..")),
                          ("default", None)):
            args = {"command": "ls"} if cwd is None else {"command": "ls", "cwd": cwd}
            out[name] = await session.call_tool("run", args)
        return out

    out = drive(home, calls, roots=[str(inside)])
    assert not out["sub"].is_error and "planted.txt" in text_of(out["sub"])
    for name in ("out", "dotdot"):
        assert out[name].is_error and "outside the client's roots" in text_of(out[name])
    assert not out["default"].is_error and "sub" in text_of(out["default"])  # the first root


@needs_mcp
def test_a_run_stops_when_the_client_goes(home):
    """The client disconnects in the middle of a run: the command is gone within seconds, not at the
    run's timeout."""
    import anyio

    tag = "83.17"

    async def calls(session):
        with anyio.move_on_after(3):
            await session.call_tool("run", {"command": f"sleep {tag}", "timeout": 300})
        return None

    drive(home, calls)
    deadline = time.monotonic() + 15
    while sleepers(tag) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert sleepers(tag) == []


@needs_mcp
def test_expand_respects_the_output_ceiling_and_names_the_rest(home):
    big = "".join(f"line {i} {'x' * 60}\n" for i in range(3000)).encode()  # 200 KB, each line distinct
    from conftest import reduce_bytes

    packet = reduce_bytes(big)

    async def calls(session):
        return await session.call_tool("expand", {"id": packet.manifest_id, "full": True})

    text = text_of(drive(home, calls, args=()))
    assert len(text) <= 25_000 + 300
    m = re.search(r"more bytes not returned \(output ceiling\): read them with expand\(id='(pkt_[0-9a-f]+)', "
                  r"full=True, lines='(\d+):'\)", text)
    assert m and m.group(1) == packet.manifest_id
    assert big.decode().startswith(text[:text.index("[")])
