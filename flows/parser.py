"""The ``tokens`` command line's parser: argparse's, with each command's arguments declared only when
that command is parsed or its help shown (``make_parser``), and a help layout that reads the terminal's
width without ``shutil``.

Imported only to parse: the common forms of ``analyze`` and ``run`` are read without argparse
(``flows.cli.plain_args``). ``flows.cli`` keeps the list of commands (``COMMANDS``) and re-exports
these names.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing ``shutil`` (with bz2, lzma, zlib: about
    5 ms of every start, for argparse's help layout only): ``$COLUMNS`` if it is a positive number,
    else the width of the terminal on stdout, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's own layout; only the width is read by ``terminal_columns``."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, terminal_columns() - 2 if width is None else width)


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose help formatter does not import ``shutil``; its subparsers are ``_Parser`` too.

    ``declare``: ``"module:function"`` that adds this parser's arguments, called the first time the
    parser parses or formats its help (a command's sub-parser: only the command run is declared)."""

    def __init__(self, *args, formatter_class: type = _HelpFormatter, declare: str | None = None, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)
        self._declare = declare

    def _declared(self) -> None:
        if self._declare:
            module, _, name = self._declare.partition(":")
            self._declare = None
            getattr(importlib.import_module(module), name)(self)

    def parse_known_args(self, args=None, namespace=None):
        self._declared()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._declared()
        return super().format_usage()

    def format_help(self) -> str:
        self._declared()
        return super().format_help()


class _Commands(dict):
    """The commands' parsers by name, each made the first time it is asked for: a run parses one
    command, and making the thirteen others (three gettext look-ups and a help action each) cost every
    start ~2 ms. Names, membership and help lines need no parser."""

    def __init__(self, make):
        super().__init__()
        self._make = make  # name -> its parser

    def __getitem__(self, name):
        parser = dict.__getitem__(self, name)
        if parser is None:
            parser = self._make(name)
            dict.__setitem__(self, name, parser)
        return parser

    def get(self, name, default=None):
        return self[name] if name in self else default

    def values(self):
        return [self[name] for name in self]

    def items(self):
        return [(name, self[name]) for name in self]


class _LazySubParsers(argparse._SubParsersAction):
    """``add_subparsers`` whose ``add_parser`` notes a command (its help line shows at once) and makes
    its parser only when that command is parsed (``_Commands``); every command added returns None."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._specs: dict[str, dict] = {}
        self._name_parser_map = self.choices = _Commands(self._parser_of)

    def add_parser(self, name, **kwargs):
        if kwargs.get("prog") is None:
            kwargs["prog"] = f"{self._prog_prefix} {name}"
        if "help" in kwargs:
            self._choices_actions.append(self._ChoicesPseudoAction(name, (), kwargs.pop("help")))
        self._specs[name] = kwargs
        dict.__setitem__(self._name_parser_map, name, None)

    def _parser_of(self, name: str) -> argparse.ArgumentParser:
        return self._parser_class(**self._specs[name])


class _Version(argparse.Action):
    """``--version``: the installed package's version (read only when asked)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("nolife-tokens")
        except PackageNotFoundError:
            number = "unknown (not installed)"
        print(f"tokens (nolife-tokens) {number}")
        parser.exit()


def make_parser(commands: dict[str, tuple[str, str]]) -> argparse.ArgumentParser:
    """The global options and every command's name and help (``commands``: name -> (help line,
    "module:function" that declares its arguments)); a command's own arguments are declared by its
    module when that command is parsed (``_Parser``)."""
    parser = _Parser(prog="tokens", description="Reduce tool output for LLM context; nothing is lost.")
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    parser.add_argument("--config", help="TOML config file (default: config/default.toml)")
    parser.add_argument("--tokenizer", choices=["bytes4", "o200k", "cl100k"],
                        help="token counts in the trace: bytes/4 (default) or a real BPE count, offline "
                             "(needs pip install -e '.[tokenizers]'); overrides [reduce] tokenizer")
    sub = parser.add_subparsers(dest="command", required=True, action=_LazySubParsers)
    for name, (help_line, declare) in commands.items():
        sub.add_parser(name, help=help_line, declare=declare)
    return parser
