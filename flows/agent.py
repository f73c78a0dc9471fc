"""Agent-facing commands: `tokens run` and `tokens pack` (placeholder until they land)."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `run` and `pack` subcommands (none yet)."""
