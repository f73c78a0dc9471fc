"""`tokens tail`: follow live logs through the reduction graph (placeholder until the tail source lands)."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `tail` subcommand (none yet)."""
