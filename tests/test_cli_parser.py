"""The command line's parsers: one per command, declared in the module that implements the command,
and only for the command that runs (``flows.cli.COMMANDS``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import PROJECT
from flows.cli import COMMANDS, build_parser

COMMAND_MODULES = ("flows.retrieve", "flows.tail", "flows.agent", "flows.hooks", "flows.init", "flows.mcp_server")

# options each command's --help must show (planted: one or more per command, from the README and docs)
OPTIONS = {
    "analyze": ["path", "--granularity", "--type", "--json", "--trace", "--budget", "--host", "--level"],
    "benchmark": ["--json", "--trace"],
    "show-ref": ["id"],
    "expand": ["target", "--full", "--output", "--lines", "--grep", "--context", "--head", "--tail", "--reveal"],
    "search": ["pattern", "--limit", "--json"],
    "gain": ["--json"],
    "mcp": ["--run"],
    "refs": ["list", "gc"],
    "tail": ["PATH", "--output", "--granularity", "--from-start", "--from-end", "--json", "Follow growing files"],
    "run": ["--budget", "--host", "--level", "--granularity", "--type", "--trace", "--raw", "--stream", "-- CMD ARGS",
            "Run CMD without a shell"],
    "pack": ["PATH", "--budget", "--granularity", "--json", "--trace"],
    "hook": ["claude-code", "--skip"],
    "init": ["--agent", "--global", "--project", "--show", "--uninstall", "--route"],
}


def _python(code: str):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=PROJECT, timeout=120)


def test_every_command_has_its_options_listed():
    assert sorted(OPTIONS) == sorted(COMMANDS)


@pytest.mark.parametrize("command", sorted(OPTIONS))
def test_a_commands_help_lists_all_its_options(command, capsys):
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([command, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: tokens {command}")
    missing = [option for option in OPTIONS[command] if option not in out]
    assert missing == []


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_is_declared_and_run_by_the_same_module(command):
    """One parser per command module: the function that declares a command's arguments sets, as its
    ``func``, a function of its own module."""
    from flows.parser import _Parser

    parser = _Parser(prog=f"tokens {command}", declare=COMMANDS[command][1])
    parser.format_usage()  # declares it
    func = parser.get_default("func")
    assert func is not None and func.__name__.startswith("cmd_")
    assert func.__module__ == COMMANDS[command][1].partition(":")[0]


def test_parsing_one_command_declares_no_other():
    parser = build_parser()
    args = parser.parse_args(["show-ref", "ctx_abcdef"])
    assert args.command == "show-ref" and args.id == "ctx_abcdef"
    [sub] = [action for action in parser._actions if action.dest == "command"]
    undeclared = sorted(name for name, p in sub.choices.items() if p._declare)
    assert undeclared == sorted(set(COMMANDS) - {"show-ref"})


def test_the_top_help_lists_every_command_and_imports_none_of_them():
    code = ("import json, sys\nfrom flows.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            f"print(json.dumps([m for m in {list(COMMAND_MODULES) + ['operators.config', 'msgspec']!r} "
            "if m in sys.modules]), file=sys.stderr)")
    result = _python(code)
    assert json.loads(result.stderr.decode().strip().splitlines()[-1]) == []
    out = result.stdout.decode()
    for name, (help_line, _) in COMMANDS.items():
        assert f"    {name} " in out and help_line.split()[0] in out, name


def test_version_reads_no_config():
    code = ("import sys\nfrom flows.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
            "print('operators.config' in sys.modules, 'msgspec' in sys.modules, file=sys.stderr)")
    result = _python(code)
    assert result.stdout.decode().startswith("tokens (nolife-tokens) ")
    assert result.stderr.decode().split() == ["False", "False"]


def test_a_config_value_named_like_a_command_is_not_taken_for_it():
    """The command is the one argparse parses, whatever words come before it."""
    args = build_parser().parse_args(["--config", "run", "show-ref", "ctx_abcdef"])
    assert args.command == "show-ref" and args.config == "run" and args.id == "ctx_abcdef"


PLAIN_FORMS = [["analyze", "x.log"], ["analyze", "-"], ["analyze", ""], ["analyze", "dir/a b.txt"],
               ["run", "--", "true"], ["run", "true"], ["run", "cat", "-n", "x"], ["run", "--", "git", "log", "--", "f"],
               ["run", "cat", "--budget", "5"], ["run", "--", "cat", "--", "--"], ["run", "ls", "-la"],
               ["run", "a b", "--raw"], ["run", ""], ["run", "--", ""], ["run", "tokens", "expand", "ctx_1"]]
PARSER_FORMS = [["run"], ["run", "--"], ["run", "--", "-x"], ["run", "-x"], ["run", "--raw", "--", "true"],
                ["run", "--host", "codex", "--", "true"], ["analyze"], ["analyze", "-x"], ["analyze", "a", "b"],
                ["analyze", "--json", "x"], ["show-ref", "x"], ["expand", "ctx_1"], ["--config", "c", "analyze", "x"]]


@pytest.mark.parametrize("argv", PLAIN_FORMS)
def test_a_plain_form_reads_as_the_parser_reads_it(argv):
    from flows.cli import plain_args

    plain = plain_args(argv)
    assert plain is not None
    assert vars(plain) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize("argv", PARSER_FORMS)
def test_any_other_form_is_left_to_the_parser(argv):
    from flows.cli import plain_args

    assert plain_args(argv) is None
