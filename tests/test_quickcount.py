"""The fast path's usage line (flows.quickcount) is the JSON ``json.dumps`` writes, without importing ``json``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from flows import quickcount

AWKWARD = ["plain", 'a "quoted" \\ back', "tab\tnew\nline\rcr\b\f", "\x00\x1f\x7f", "é ü €", "emoji 😀 𝄞",
           "lone \udcff surrogate", "'single' $HOME `x`", ""]


@pytest.mark.parametrize("text", AWKWARD)
def test_json_str_is_what_json_dumps_writes(text):
    assert quickcount._json_str(text) == json.dumps(text)


def test_the_usage_line_is_one_json_object(tmp_path, monkeypatch):
    monkeypatch.setenv("NOLIFE_TOKENS_HOME", str(tmp_path))
    quickcount.count(["printf", "a\tb", 'say "hi" é'], 17)
    [line] = (tmp_path / "usage.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert record["cmd"] == "run-quick" and record["bytes"] == 17 and isinstance(record["t"], float)
    assert record["id"] == "run: printf 'a\tb' 'say \"hi\" é'"


def test_the_fast_path_imports_neither_json_nor_re(tmp_path):
    code = ("import sys; before = set(sys.modules); from flows.quick import main; sys.argv = ['tokens', 'run', '--', 'true']; "
            "status = main(); new = set(sys.modules) - before; "  # (an editable install's finder imports re at start)
            "assert not {'json', 're', 'enum'} & new, sorted(new); sys.exit(status)")
    env = {"NOLIFE_TOKENS_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "PATH": "/usr/bin:/bin"}
    tmp_path.mkdir(exist_ok=True)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert (tmp_path / "usage.jsonl").exists()  # counted
