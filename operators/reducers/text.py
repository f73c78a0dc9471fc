"""text reducer (placeholder: passes the input through until the real reducer lands)."""

from __future__ import annotations

from operators.reduction import Plan, passthrough


def reduce(raw: bytes, granularity: str, config) -> Plan:
    return passthrough(raw)
