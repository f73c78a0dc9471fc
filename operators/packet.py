"""The records that flow through the graph: one ``ContextPacket`` per document (or tail window).

A packet starts with the raw bytes of its source and collects, stage by stage, what each stage found:
its type, the reduction plan, the references written for omitted bytes, the measurements and the
pass/fail of each invariant. ``trace`` holds one entry per stage, in order.
"""

from __future__ import annotations

from typing import Any

import msgspec

from operators.reduction import Layout, Plan, Spans


class TraceEntry(msgspec.Struct, frozen=True, kw_only=True):
    stage: str
    figures: dict[str, Any]


class Reference(msgspec.Struct, kw_only=True):
    """One omission parked in the store: ``content`` is the exact omitted bytes."""

    id: str
    source: str
    type: str
    reason: str
    content: bytes  # or a read-only memoryview of the packet's raw bytes (one-span omissions, see omissions)
    digest: str = ""  # operators.store.ref_digest of (source, reason, sha256, size), once computed
    sha256: str = ""  # operators.store.content_sha256 of content, once computed (by OPTIMIZE)
    # the object that sha256 and digest were computed from: they are trusted only while content is it
    # (a stage that replaces content gets it hashed again by the store, never a stale checksum)
    hashed: bytes | memoryview | Spans | None = None

    @property
    def marker(self) -> str:
        return f"#ref:{self.id}"


class Measure(msgspec.Struct, kw_only=True):
    """Sizes in bytes and estimated tokens (see ``operators.tokens``)."""

    raw_bytes: int = 0
    raw_tokens: int = 0
    visible_bytes: int = 0
    visible_tokens: int = 0
    kept_bytes: int = 0
    marker_tokens: int = 0
    referenced_bytes: int = 0
    referenced_tokens: int = 0
    # real BPE counts when a tokenizer other than bytes4 is configured (0 otherwise)
    tokenizer: str = "bytes4"
    raw_real_tokens: int = 0
    visible_real_tokens: int = 0

    @property
    def saved_pct(self) -> float:
        if not self.raw_tokens:
            return 0.0
        return 100.0 * (self.raw_tokens - self.visible_tokens) / self.raw_tokens


class Rendered(msgspec.Struct, kw_only=True):
    """OPTIMIZE's render of its plan with the refs' pure ids: STORE reuses it when the ids it stores
    under are these (they are lengthened only on a collision), instead of rendering again."""

    plan: Plan
    visible: bytes
    ids: dict[str, str]
    layout: Layout
    markers: list[list[int]]


class ContextPacket(msgspec.Struct, kw_only=True):
    source: str
    raw: bytes = b""
    path: str | None = None  # read by LOAD when set
    error: str = ""  # LOAD failed; the other stages pass the packet on untouched
    # inputs that steer the stages
    forced_type: str | None = None
    granularity: str = "coarse"
    expected_signals: list[str] = []
    exit_code: int | None = None
    budget: int | None = None  # estimated tokens the visible text may take (None: the [ceiling] config)
    # filled in by the stages
    type: str = ""
    classify_reason: str = ""
    plan: Plan | None = None  # set by OPTIMIZE
    rendered: Rendered | None = None  # set by OPTIMIZE, used and cleared by STORE
    guard: str = ""  # which guard fired, if any
    visible: bytes = b""
    references: list[Reference] = []
    manifest_id: str = ""
    layout: Layout | None = None  # written to the manifest by STORE
    layout_sha256: str = ""  # of that layout's JSON text: RESTORE checks the stored text against it
    measure: Measure = msgspec.field(default_factory=Measure)
    signal_pass: bool | None = None
    missing_signals: list[str] = []
    recovery_pass: bool | None = None
    restore_pass: bool | None = None
    trace: list[TraceEntry] = []

    def add_trace(self, stage: str, **figures: Any) -> None:
        self.trace.append(TraceEntry(stage=stage, figures=figures))
