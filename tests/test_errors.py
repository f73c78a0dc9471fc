"""The one error tree (``operators.errors``), the one way an error line is printed, and the one call
into the engine's run entry (``flows.runner.run_flow``)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, PROJECT, run_cli, tokens_cli

LOG = FIXTURES / "sample.log"
PRIVATE = "bytewax." + "_bytewax"  # the engine's private run entry (spelt so this file does not name it)


def _classes():
    from flows.retrieve import SliceError
    from flows.tail import TailError
    from operators.config import ConfigError
    from operators.errors import InvariantError, UsageError
    from operators.pack import PackError
    from operators.reduction import PlanError
    from operators.stages import StageError
    from operators.store import StoreError

    return [(StoreError, 1), (UsageError, 2), (ConfigError, 2), (SliceError, 2), (PackError, 2), (TailError, 2),
            (StageError, 2), (InvariantError, 3), (PlanError, 3)]


@pytest.mark.parametrize("index", range(9))
def test_every_error_class_is_a_tokens_error_with_its_exit_code(index):
    from operators.errors import TokensError

    cls, code = _classes()[index]
    assert issubclass(cls, TokensError) and not issubclass(cls, ValueError), cls
    assert cls("x").exit_code == code, cls


def _strings_outside_docstrings(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_the_error_line_is_made_in_one_place():
    """No module but ``operators.errors`` writes ``tokens: error:`` itself: every entry point prints
    through ``say``/``report`` (or ``error_line`` for the MCP tool error)."""
    found = []
    for folder in ("flows", "operators", "bin"):
        for path in sorted((PROJECT / folder).rglob("*")):
            if path.suffix != ".py" and path.name != "tokens-python" or not path.is_file() or path.name == "errors.py":
                continue
            found += [f"{path.relative_to(PROJECT)}:{line}" for line, text in _strings_outside_docstrings(path)
                      if "tokens: error:" in text]
    assert found == []


def test_only_the_runner_imports_the_engines_private_run_entry():
    users = sorted(str(path.relative_to(PROJECT)) for folder in ("flows", "operators", "tests", "bench", "bin")
                   for path in (PROJECT / folder).rglob("*.py") if PRIVATE in path.read_text(errors="replace"))
    assert users == ["flows/runner.py"]


def test_run_flow_falls_back_to_the_public_entry_when_the_private_one_is_gone(monkeypatch):
    import types

    import bytewax.testing  # noqa: F401 - the public entry, imported while the private module is still there

    from flows.runner import run_flow
    from operators.graphio import CallbackSink
    from operators.packet import ContextPacket

    monkeypatch.setitem(sys.modules, PRIVATE, types.ModuleType(PRIVATE))  # no run_main
    got = []
    from flows.reduce import get_flow

    run_flow(get_flow(packets=[ContextPacket(source="sample.log", raw=LOG.read_bytes())], sink=CallbackSink(got.append)))
    [packet] = got
    assert packet.restore_pass and b"ERROR PaymentService line 421" in packet.visible


def test_a_plan_error_reaching_the_command_is_one_line_with_exit_status_3(capsysbinary, monkeypatch):
    """A plan that does not cover its input (here: every plan) is an invariant failure, not a traceback."""
    from operators.reduction import Plan, PlanError

    def broken(self):
        raise PlanError("plan covers 0 of 1 bytes")

    monkeypatch.setattr(Plan, "finish", broken)
    code, out, err = run_cli(capsysbinary, "analyze", str(LOG))
    assert code == 3 and out == b""
    assert err == b"tokens: error: plan covers 0 of 1 bytes\n"


def test_a_tail_that_cannot_follow_its_path_exits_with_the_usage_status(tmp_path):
    result = tokens_cli("tail", str(tmp_path / "missing.log"))
    assert result.returncode == 2
    assert result.stderr.decode().startswith("tokens: error: ") and result.stderr.count(b"\n") == 1


def test_report_names_the_file_of_an_os_error(capsys):
    from operators.errors import report

    assert report(IsADirectoryError(21, "Is a directory", "/tmp/x")) == 1
    assert capsys.readouterr().err == "tokens: error: Is a directory: /tmp/x\n"
