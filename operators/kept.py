"""One result kept for the very input object it was made of: a large input asked twice by two stages
(the safety pass, then the SIGNAL stage; the log reducer, then the SIGNAL stage) is scanned once. The
result depends on the bytes alone (immutable), whoever asked first; a stage done with the input
drops it (``forget``), and the reference to the input with it."""

from __future__ import annotations


class KeptFor:
    """The last input asked about (a ``bytes`` object of ``min_size`` bytes or more, by identity) and
    its result, as a tuple. One attribute read at once: another worker thread may replace it."""

    __slots__ = ("entry", "min_size")

    def __init__(self, min_size: int):
        self.entry: tuple | None = None
        self.min_size = min_size

    def get(self, raw) -> tuple | None:
        """The result kept for this very object, or None."""
        entry = self.entry  # read once
        return entry[1] if entry is not None and entry[0] is raw else None

    def keep(self, raw, result) -> None:
        """Keep ``result`` for ``raw`` whatever its size (a caller that knows it is worth it)."""
        self.entry = (raw, tuple(result))

    def keep_large(self, raw, result) -> None:
        """Keep ``result`` for ``raw`` when it is bytes of ``min_size`` or more."""
        if type(raw) is bytes and len(raw) >= self.min_size:
            self.entry = (raw, tuple(result))

    def of(self, raw, make) -> list:
        """The result for ``raw``: the one kept for this very object, else ``make(raw)``, kept when
        ``raw`` is large (``keep_large``); a new list either way (the caller may change it)."""
        kept = self.get(raw)
        if kept is not None:
            return list(kept)
        result = make(raw)
        self.keep_large(raw, result)
        return result

    def forget(self) -> None:
        self.entry = None
