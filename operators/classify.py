"""Content classifier: asks each registered content type, in detection order, whether it knows the input.

The types asked are those of the config's registry (``operators.types.registry_of``: the shipped
ones, and those its ``[[types]]`` add). Deterministic heuristics on the first few KB and line statistics (see ``operators.types.Sample``), no
model. Before any type is asked, an empty or blank input and one with NUL bytes are ``text`` (the
safest type: it only touches whitespace). A detector that is unsure says no, and the input falls
through to a safer type; ``text`` is last and takes everything. A detector that raises says no too
(its failure is named in the reason, which the trace shows): a bug in one type never stops a run.
"""

from __future__ import annotations

from operators import types


def classify(raw: bytes, forced: str | None = None, config=None) -> tuple[str, str]:
    """Return (type, reason)."""
    if forced:
        return forced, "forced by config"
    if not raw or raw.isspace():
        return "text", "empty or blank"
    if b"\x00" in raw[: types.SAMPLE]:
        return "text", "binary (NUL bytes)"
    sample = types.Sample(raw)
    failed = []
    name, reason = "text", "no stronger type matched"
    for record in types.registry_of(config):
        try:
            said = record.detect(sample)
        except Exception as exc:  # a detector's bug never stops a run: that type says no
            failed.append(f"{record.name} ({type(exc).__name__}: {exc})")
            continue
        if said:
            name, reason = record.name, said
            break
    return name, reason + (f"; detector failed: {', '.join(failed)}" if failed else "")
