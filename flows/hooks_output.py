"""The output route of ``tokens hook``: reduce a shell tool's output after the host ran the command.

Claude Code (2.1.121 and later) lets a ``PostToolUse`` hook replace what a tool returns to the
model: ``{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {…}}}``. For
``Bash`` the replacement must have the tool's own output shape (an object with ``stdout``,
``stderr``, ``interrupted`` and the optional ``isImage``, ``noOutputExpected``,
``returnCodeInterpretation`` …); a plain string is dropped by the host. When the host has spilled a
long output to a file it names it in ``persistedOutputPath`` (and ``persistedOutputSize``), and the
model would see a 2,000-character preview of it: the full output is read from that file, and both
keys are left out of the replacement (the host would show its preview instead of our text).

The command itself is never touched: exit status, permission rules, working directory, shell state
and terminal stay the host's. Its output goes through the same graph and store as ``tokens
analyze`` (source ``run: COMMAND``), and the replacement is exactly what ``tokens analyze`` prints
for those bytes, with the refs hint line after it (``operators.launcher`` names a ``tokens`` that
runs from the agent's shell).

Nothing is replaced (no answer, exit 0) when: the payload is not a ``PostToolUse`` of ``Bash``; the
command is one of ours (``tokens …``: an expanded ref is never reduced again); the output is an
image, a background task's, or shorter than ``min_bytes``; the reduction failed or would not be
shorter than the original. A short output costs a JSON parse and nothing else: no engine starts.

Gemini CLI (0.24.0 and later) has no field that replaces a tool's result, but an ``AfterTool`` hook
that answers ``{"decision": "deny", "reason": TEXT}`` hides the result and sends ``TEXT`` to the
model instead (``packages/core/src/core/coreToolHookTriggers.ts``; docs/hooks/reference.md: "This
text replaces the tool result sent back to the model"). The host files it as a tool error: the model
reads ``{"error": TEXT}`` and the user sees ``Tool result blocked: TEXT``. For ``run_shell_command``
``TEXT`` is the tool's own text (``llmContent``: ``Output: …`` then ``Exit Code: N``, ``Signal: …``,
``Process Group PGID: …``, inside ``<untrusted_context>`` from 0.49.0; ``Command:``/``Directory:``
first before 0.31.0) with the output part reduced, the other lines kept as they were, after a first
line saying the command ran and its output is reduced. Left alone besides: a background command, a
result carrying an ``error``, a cancelled or summarized result (no ``Output:`` part).
"""

from __future__ import annotations

import os
import re
import stat

PERSISTED_MAX = 256 * 1024 * 1024  # bytes read from a host's spill file at most (Claude Code caps it at 64 MiB)
MIN_BYTES = 512  # below this no output is replaced whatever the config says; above it the config's min_bytes (4,096 by default) decides
SOURCE_MAX = 200  # flows.agent.SOURCE_MAX: characters of the command kept as the packet's source
DROPPED_KEYS = ("persistedOutputPath", "persistedOutputSize")
UNTRUSTED = ("<untrusted_context>\n", "\n</untrusted_context>")  # Gemini CLI's wrapUntrusted (0.49.0+)
GEMINI_HEAD = re.compile(r"(?:Command: .*?\nDirectory: [^\n]*\n)?Output: ", re.S)
GEMINI_TRAILER = re.compile(r"(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): [^\n]*\Z")
GEMINI_NOTE = "[the command ran; its output is shown reduced, not blocked; the last output line names the refs]\n"


def _encode(text: str) -> bytes:
    """A JSON string from the host as bytes (lone surrogates kept recoverable, never an error)."""
    return text.encode("utf-8", "surrogatepass")


def read_persisted(path: str) -> bytes | None:
    """The host's spill file, whole; ``None`` when it is not a readable regular file (never follows a
    symbolic link, never reads past ``PERSISTED_MAX``)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError, TypeError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > PERSISTED_MAX:
            return None
        chunks, size = [], 0
        while size <= PERSISTED_MAX:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)[:PERSISTED_MAX]
    except OSError:
        return None
    finally:
        os.close(fd)


def output_bytes(response: dict) -> bytes | None:
    """What the command printed, as the model would have read it without us: the spill file when
    there is one, else ``stdout``, then ``stderr`` after it (the host shows both)."""
    stdout = response.get("stdout")
    stderr = response.get("stderr", "")
    if not isinstance(stdout, str) or not isinstance(stderr, str):
        return None
    data = None
    if isinstance(response.get("persistedOutputPath"), str):
        data = read_persisted(response["persistedOutputPath"])
    if data is None:
        data = _encode(stdout)
    if stderr:
        data += (b"" if not data or data.endswith(b"\n") else b"\n") + _encode(stderr)
    return data


def is_ours(command: str) -> bool:
    """A line that runs ``tokens`` itself (``tokens expand …``, ``/venv/bin/tokens search …``,
    ``python -m flows.cli …``): its output is ours already."""
    words = command.strip().split(None, 3)
    if not words:
        return False
    if os.path.basename(words[0].strip("'\"")) in ("tokens", "tokens-run.sh"):
        return True
    return os.path.basename(words[0]).startswith("python") and "flows.cli" in words[1:3]


def reduce_output(raw: bytes, command: str) -> bytes | None:
    """``tokens analyze`` of ``raw`` as printed (the visible text, then the refs hint line), stored
    under the source ``run: COMMAND``; ``None`` when nothing would be gained or anything failed."""
    from flows.runner import run_packets
    from operators.config import load_config
    from operators.packet import ContextPacket
    from operators.trace import configure_trace

    config = load_config(None)
    if len(raw) < config.reduce.min_bytes:
        return None
    configure_trace(json=True, stream=open(os.devnull, "w"))
    source = "run: " + command.strip()
    if len(source) > SOURCE_MAX:
        source = source[: SOURCE_MAX - 1] + "…"
    packet = ContextPacket(source=source, raw=raw, granularity=config.reduce.granularity)
    [packet] = run_packets([packet], None, config)
    if packet.error or packet.restore_pass is False:
        return None
    text = packet.visible
    if packet.references:
        from operators.launcher import refs_hint

        if text and not text.endswith(b"\n"):
            text += b"\n"
        text += refs_hint(packet.manifest_id, packet.references[0].id)
    return text if len(text) < len(raw) else None


def respond_output(payload: object) -> dict | None:
    """The ``PostToolUse`` answer for a ``Bash`` payload of Claude Code (``AfterTool`` of Gemini CLI:
    ``respond_gemini``), or ``None`` (leave it)."""
    if isinstance(payload, dict) and payload.get("hook_event_name") == "AfterTool":
        return respond_gemini(payload)
    if not isinstance(payload, dict) or payload.get("hook_event_name") != "PostToolUse":
        return None
    if payload.get("tool_name") != "Bash":
        return None
    tool_input = payload.get("tool_input")
    response = payload.get("tool_response")
    if not isinstance(tool_input, dict) or not isinstance(response, dict):
        return None
    command = tool_input.get("command")
    if not isinstance(command, str) or is_ours(command):
        return None
    if response.get("isImage") or response.get("backgroundTaskId"):
        return None
    raw = output_bytes(response)
    if raw is None or len(raw) < MIN_BYTES:
        return None
    reduced = reduce_output(raw, command)
    if reduced is None:
        return None
    updated = {k: v for k, v in response.items() if k not in DROPPED_KEYS}
    updated["stdout"] = reduced.decode("utf-8", "replace")
    updated["stderr"] = ""
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": updated}}


def split_shell_content(text: str) -> tuple[str, str, str] | None:
    """Gemini CLI's ``run_shell_command`` text as (head, output, tail): the head ends with ``Output: ``,
    the tail is the ``Error:``/``Exit Code:``/``Signal:``/``Background PIDs:``/``Process Group PGID:``
    lines after the output (each line of the tail starting with a newline); ``None`` when the text has
    no ``Output:`` part (cancelled, backgrounded, summarized)."""
    head = GEMINI_HEAD.match(text)
    if head is None:
        return None
    body = text[head.end():]
    cut = len(body)
    while True:
        nl = body.rfind("\n", 0, cut)
        if nl < 0 or not GEMINI_TRAILER.match(body, nl + 1, cut):
            break
        cut = nl
    return text[: head.end()], body[:cut], body[cut:]


def gemini_reason(content: str, command: str) -> str | None:
    """The replacement of a ``run_shell_command`` result: the same text, its output reduced."""
    wrapped = content.startswith(UNTRUSTED[0]) and content.endswith(UNTRUSTED[1])
    inner = content[len(UNTRUSTED[0]): -len(UNTRUSTED[1])] if wrapped else content
    parts = split_shell_content(inner)
    if parts is None:
        return None
    head, output, tail = parts
    raw = _encode(output)
    if len(raw) < MIN_BYTES:
        return None
    reduced = reduce_output(raw, command)
    if reduced is None:
        return None
    text = head + reduced.decode("utf-8", "replace").removesuffix("\n") + tail
    if wrapped:
        text = UNTRUSTED[0] + text.replace("</untrusted_context>", "&lt;/untrusted_context&gt;") + UNTRUSTED[1]
    return GEMINI_NOTE + text


def respond_gemini(payload: dict) -> dict | None:
    """The ``AfterTool`` answer for a ``run_shell_command`` payload of Gemini CLI, or ``None``."""
    if payload.get("tool_name") != "run_shell_command":
        return None
    tool_input = payload.get("tool_input")
    response = payload.get("tool_response")
    if not isinstance(tool_input, dict) or not isinstance(response, dict) or response.get("error"):
        return None
    command = tool_input.get("command")
    content = response.get("llmContent")
    if not isinstance(command, str) or not isinstance(content, str) or is_ours(command):
        return None
    if tool_input.get("is_background"):
        return None
    reason = gemini_reason(content, command)
    return None if reason is None else {"decision": "deny", "reason": reason}
