"""The fast path of ``tokens run`` counts its runs for ``tokens gain``.

A run the fast path printed (short plain output, nothing stored) leaves no manifest, so ``tokens gain``
would never see it and overstate SAVED% (such a run adds the same to HOST and VISIBLE). ``count``
appends one line to ``<home>/usage.jsonl`` (``{"t":…,"cmd":"run-quick","id":"run: CMD","bytes":N}``)
when the store's home already exists (it is never made here, and a link is never followed), in one
``O_APPEND`` write; it imports nothing but ``os`` and ``time`` (``json`` imports ``re``, ~3 ms of a
short run: ``_json_str`` writes what ``json.dumps`` writes), and never fails the run. The
fast path runs only without a config file, so the home is ``$NOLIFE_TOKENS_HOME`` or the per-user data
directory (``operators.config.user_data_dir`` on Linux).
"""

import os
import time

SOURCE_MAX = 200  # flows.agent.SOURCE_MAX
USAGE_MAX = 4 * 1024 * 1024  # operators.usage.USAGE_MAX: past it, the full path's next read rotates the file


def home() -> str:
    env = os.environ.get("NOLIFE_TOKENS_HOME", "").strip()
    if env:
        return env
    base = os.environ.get("XDG_DATA_HOME", "").strip() or os.path.expanduser("~/.local/share")
    return os.path.join(base, "nolife-tokens")


def _quote(arg: str) -> str:
    """``shlex.quote`` without importing ``shlex`` (and ``re``) on the fast path."""
    if arg and all(c.isascii() and (c.isalnum() or c in "@%+=:,./-_") for c in arg):
        return arg
    return "'" + arg.replace("'", "'\"'\"'") + "'"


def _json_str(text: str) -> str:
    """``json.dumps(text)``: a JSON string, ASCII only (``\\uXXXX``, surrogate pairs past U+FFFF)."""
    out = ['"']
    for c in text:
        code = ord(c)
        if c in '"\\':
            out.append("\\" + c)
        elif 0x20 <= code < 0x7F:
            out.append(c)
        elif c in _SHORT:
            out.append(_SHORT[c])
        elif code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{code:04x}")
    out.append('"')
    return "".join(out)


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def count(cmd: list[str], size: int) -> None:
    """Record one fast-path run of ``cmd`` that printed ``size`` bytes."""
    try:
        where = home()
        if not os.path.isdir(where) or os.path.islink(where):
            return
        path = os.path.join(where, "usage.jsonl")
        source = "run: " + " ".join(_quote(a) for a in cmd)  # as flows.agent names a run (shlex.join)
        line = f'{{"t": {time.time()!r}, "cmd": "run-quick", "id": {_json_str(source[:SOURCE_MAX])}, "bytes": {int(size)}}}\n'
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except (OSError, ValueError):
        pass
