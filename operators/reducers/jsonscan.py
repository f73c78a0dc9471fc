"""Position-aware JSON scanning (placeholder)."""


def is_valid_json(raw: bytes) -> bool:
    return False
