"""Content classifier: asks each registered content type, in detection order, whether it knows the input.

The types asked are those of the config's registry (``operators.types.registry_of``: the shipped
ones, and those its ``[[types]]`` add). Deterministic heuristics on the first few KB and line
statistics (see ``operators.types.Sample``), no model. Before any type is asked, an empty or blank
input and one dense with NUL bytes (binary, UTF-16, ``find -print0``) are ``text`` (the safest type:
it only touches whitespace). A detector that is unsure says no, and the input falls through to a
safer type; ``text`` is last and takes everything. A detector that raises says no too
(its failure is named in the reason, which the trace shows): a bug in one type never stops a run.
A shipped type's cheap test (``operators.types.maybe``) is asked before its detector: when it says
no, the type is passed over without its module being imported (its detector asks the same test
first, so the answer is the same): a log imports no module but ``log``'s.
"""

from __future__ import annotations

from operators import types


def _ask(registry, name: str, sample, failed: list[str]) -> str | None:
    """What type ``name`` says of ``sample``: its cheap test first (``Registry.may_be``: a shipped type
    that cannot match is not imported), then its detector. A test or detector that raises says no,
    its failure noted in ``failed``."""
    try:
        if not registry.may_be(name, sample):
            return None
    except Exception as exc:  # a test's bug never stops a run: that type says no (its detector asks the same)
        failed.append(f"{name} ({type(exc).__name__}: {exc})")
        return None
    record = registry.get(name)
    try:
        return record.detect(sample)
    except Exception as exc:  # a detector's bug never stops a run: that type says no
        failed.append(f"{record.name} ({type(exc).__name__}: {exc})")
        return None


NUL_SHARE = 64  # one NUL byte in this many of the sample or more: binary; fewer is text with a stray NUL (a test name)


def binary(raw: bytes) -> bool:
    """Dense with NUL bytes (an image, UTF-16, ``find -print0``): no type but ``text`` is asked. A
    stray NUL (a test named with one, a log line that printed it) leaves the rest to the types."""
    head = raw[: types.SAMPLE]
    return head.count(b"\x00") * NUL_SHARE > len(head)


def classify(raw: bytes, forced: str | None = None, config=None) -> tuple[str, str]:
    """Return (type, reason)."""
    if forced:
        return forced, "forced by config"
    if not raw or raw.isspace():
        return "text", "empty or blank"
    if binary(raw):
        return "text", "binary (NUL bytes)"
    sample = types.Sample(raw)
    failed = []
    name, reason = "text", "no stronger type matched"
    registry = types.registry_of(config)
    for asked in registry.names:
        said = _ask(registry, asked, sample, failed)
        if said:
            name, reason = asked, said
            break
    return name, reason + (f"; detector failed: {', '.join(failed)}" if failed else "")
