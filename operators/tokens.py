"""Token estimate: ``ceil(utf8_bytes / 4)``. An estimate, never a billed count."""

from __future__ import annotations

ESTIMATE_LABEL = "estimated (bytes/4)"


def estimate_tokens(n_bytes: int) -> int:
    return -(-n_bytes // 4)


def count_real(data: bytes, tokenizer: str) -> int:
    """A real BPE token count (placeholder until the offline tokenizer lands)."""
    raise NotImplementedError(tokenizer)
