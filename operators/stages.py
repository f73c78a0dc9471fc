"""The stages of the graph: ``STAGES``, each a named module-level function ``(packet, run) -> packet``.

``STAGES`` is the one list of the built-in stages, in graph order (``STAGE_NAMES``: LOAD CLASSIFY
MEASURE_RAW OPTIMIZE MEASURE_OPT SIGNAL STORE RECOVERY RESTORE); ``run`` is what a stage reads
besides the packet (``Run``: the config and the store). ``build_stages(config, store)`` binds them to
one run and inserts the plug-in stages a config names (``[[stages]]``, checked against
``STAGE_NAMES``) where they asked to go; ``flows.direct`` makes them the steps of the bytewax flow
(``flows.reduce``) and of the engine-free path. Every stage records its figures with
``packet.add_trace``; the flow turns that entry into the structlog event. A packet whose LOAD failed
carries ``error`` and passes through the other stages untouched.
"""

from __future__ import annotations

import importlib
import time
from functools import partial
from typing import TYPE_CHECKING, Callable, NamedTuple

import msgspec

from operators import ceiling, types
from operators.classify import classify as classify_raw
from operators.config import ConfigError, section
from operators.digest import sha256_hex
from operators.errors import TokensError
from operators.packet import ContextPacket, Rendered
from operators.reduction import MARK, SHOW, Plan, Spans, omissions, passthrough, render, restores_to
from operators.safety import secure
from operators.index import index_packet
from operators.signals import auto_signals, missing_signals, uncounted
from operators.sources import read_input
from operators.store import Manifest, Store, StoreError, assign_ids, manifest_layout, raw_sha256_kept
from operators.tokens import count_real, estimate_tokens, require_tokenizer
from operators.trace import dropped as trace_dropped

if TYPE_CHECKING:  # the full class is made only when asked for (operators.config.defaults_class)
    from operators.config import Config

StageFn = Callable[[ContextPacket], ContextPacket]


class StageError(TokensError):
    """A stage cannot go on with this packet (an unknown type, a plug-in that broke its contract):
    the packet carries the message as its error, and no visible text is made from it (exit status 2:
    the configuration named the type or the plug-in)."""

    exit_code = 2


def content_type(name: str, config=None) -> types.ContentType:
    """The record of a type of ``config``'s registry (``operators.types``); StageError if unknown."""
    registry = types.registry_of(config)
    if name not in registry:
        raise StageError(f"unknown content type {name!r} (registered: {', '.join(registry.names)})")
    return registry.get(name)


def reducer_for(name: str, config=None):
    """The ``reduce`` function of a type of ``config``'s registry (imported on first use)."""
    return content_type(name, config).reduce


REDACTED = "secrets"  # a plan's group of hidden secret values: never shown raw, even when not smaller
HINT_MAX = 400  # bytes a refs line takes at most (a long launcher path); a bigger saving is always worth it


class Run(NamedTuple):
    """What a built-in stage reads besides the packet: the run's config and its store."""

    config: Config
    store: Store


def load(packet: ContextPacket, run: Run) -> ContextPacket:
    if packet.path is not None:
        try:
            packet.raw = read_input(packet.path)  # never a hang: a FIFO or device swapped in is an error
        except OSError as exc:
            packet.error = f"cannot read {packet.path}: {exc.strerror or exc}"
            packet.add_trace("LOAD", error=packet.error)
            return packet
    packet.add_trace("LOAD", bytes=len(packet.raw))
    return packet


def classify(packet: ContextPacket, run: Run) -> ContextPacket:
    config = run.config
    packet.type, packet.classify_reason = classify_raw(packet.raw, packet.forced_type or config.reduce.force_type,
                                                       config)
    packet.add_trace("CLASSIFY", type=packet.type, why=packet.classify_reason)
    return packet


def measure_raw(packet: ContextPacket, run: Run) -> ContextPacket:
    tokenizer = run.config.reduce.tokenizer  # known to load: build_stages asked (require_tokenizer)
    m = packet.measure
    m.raw_bytes = len(packet.raw)
    m.raw_tokens = estimate_tokens(m.raw_bytes)
    figures = {"bytes": m.raw_bytes, "est_tokens": m.raw_tokens}
    if tokenizer != "bytes4":
        m.tokenizer = tokenizer
        m.raw_real_tokens = figures[f"{tokenizer}_tokens"] = count_real(packet.raw, tokenizer)
    packet.add_trace("MEASURE_RAW", **figures)
    return packet


def _sized(config: Config, packet: ContextPacket) -> Config:
    """The config a reducer sees: with a packet's own budget (``--budget``, estimated tokens) as its
    output ceiling, or the host's whole view of an input it shows whole (``ceiling.total_of``), so a
    type that fits itself to the ceiling's room fits this one."""
    current = section(config, "ceiling")
    chars = max(1000, ceiling.total_of(packet, config))
    if chars == current.max_chars:
        return config
    return msgspec.structs.replace(config, ceiling=ceiling.CeilingSettings(host=current.host, max_chars=chars))


def plan_for(packet: ContextPacket, config: Config) -> tuple[Plan, str]:
    """The reducer's plan, or a pass-through plan and the guard that fired."""
    raw = packet.raw
    record = content_type(packet.type, config)
    if len(raw) < config.reduce.min_bytes and not record.redacts:
        return passthrough(raw), "short input passes through"  # a type that hides secrets reduces any size
    reducer = record.reduce
    try:
        plan = reducer(raw, packet.granularity, _sized(config, packet))
    except RecursionError:
        return passthrough(raw), "reducer gave up (nesting too deep); passed through"
    except Exception as exc:  # a reducer bug must never lose or garble input: show it raw instead
        return passthrough(raw), f"reducer failed ({type(exc).__name__}: {exc}); passed through"
    return plan, ""


def optimize(packet: ContextPacket, run: Run) -> ContextPacket:
    config = run.config
    plan, guard = plan_for(packet, config)
    apply_plan(packet, *bound_plan(packet, plan, guard, config), config)
    figures = {"type": packet.type, "refs": len(packet.references), "visible_bytes": len(packet.visible)}
    if packet.type == "log":
        figures["granularity"] = packet.granularity
    if packet.guard:
        figures["guard"] = packet.guard
    packet.add_trace("OPTIMIZE", **figures)
    return packet


def bound_plan(packet: ContextPacket, plan: Plan, guard: str, config: Config) -> tuple[Plan, str]:
    """A reducer's (or a plug-in's) plan made safe to show (``operators.safety``) and kept under the
    output ceiling (``operators.ceiling``): every plan passes here before it is applied."""
    whole = _fits_whole(packet, config) or ceiling.visible_size(plan) <= ceiling.budget_of(packet, config)
    return ceiling.apply(packet, secure(plan, config, packet.type, whole), guard, config)


def _fits_whole(packet: ContextPacket, config: Config) -> bool:
    """Whether the packet's input fits its whole output ceiling (``ceiling.total_of``: a budget, or the
    host's view of an input it shows whole): then no line of it is cut for its length (a JSON-lines
    record of 5 KB in a 22 KB log Claude Code shows whole lost its tail behind a ref). A plan that fits
    the budget as the reducer made it keeps its lines whole too (``bound_plan``): the reducer chose
    them for the room (a one-line API answer the JSON type fitted under Codex's budget kept 7.8 KB of
    records, then lost all but a head and a tail of them to a cut blind to the type)."""
    return len(packet.raw) <= ceiling.total_of(packet, config)


def apply_plan(packet: ContextPacket, plan: Plan, guard: str = "", config: Config | None = None) -> None:
    """Make ``plan`` the packet's reduction: its refs (named by the store's ``assign_ids``), its visible
    text and the render STORE reuses. Guards: never worse than raw; a failed command says so first."""
    contents = omissions(plan, share=True)  # a one-span ref is a view of raw, not a copy
    refs = assign_ids(packet.source, packet.type, plan.reasons, contents)
    ids = {group: ref.id for group, ref in refs.items()}
    visible, layout, markers = render(plan, ids)
    rendered: Rendered | None = Rendered(plan=plan, visible=visible, ids=ids, layout=layout, markers=markers)
    if not guard and plan.omits_anything and REDACTED not in plan.reasons and not _worth(len(packet.raw) - len(visible)):
        safe = secure(passthrough(packet.raw), config, packet.type, _fits_whole(packet, config))
        if safe.omits_anything:  # the raw text is not safe to show as it is: its cleaned version
            return apply_plan(packet, safe, "never worse than raw: passed through", config)
        plan, guard, refs = safe, "never worse than raw: passed through", {}
        visible, rendered = packet.raw, None
    if packet.exit_code:  # never let a failure read like success: say so first
        header = f"[command failed: exit code {packet.exit_code}]\n".encode()
        plan.pieces.insert(0, [SHOW, header])
        visible, rendered = header + visible, None
    packet.plan, packet.guard, packet.visible, packet.rendered = plan, guard, visible, rendered
    packet.references = list(refs.values())


def _worth(saved: int) -> bool:
    """Whether a reduction saving ``saved`` bytes is worth showing: an output with refs ends with the
    line saying how to read them (``operators.launcher.refs_hint``), so a smaller saving would leave
    the reader more to read than the raw text."""
    if saved <= 0:
        return False
    if saved > HINT_MAX:
        return True
    from operators.launcher import refs_hint

    return saved > len(refs_hint("pkt_" + "0" * 12, "ctx_000000"))


def store(packet: ContextPacket, run: Run) -> ContextPacket:
    """Write the refs and the manifest (in the ``store`` sink, before anything is delivered)."""
    store = run.store
    plan: Plan = packet.plan
    written = 0
    stored = []
    for ref in packet.references:
        saved, created = store.put_ref(ref)
        stored.append(saved)
        written += created
    packet.references = stored
    ids = dict(zip(plan.reasons, (ref.id for ref in stored)))
    done = packet.rendered
    packet.rendered = None
    if done is not None and done.plan is plan and done.visible is packet.visible and done.ids == ids:
        visible, layout, markers = done.visible, done.layout, done.markers  # what OPTIMIZE rendered with these ids
    else:
        visible, layout, markers = render(plan, ids)  # a prefix other content holds in the store: a longer id
    if visible != packet.visible:  # a lengthened id: the measures follow the text that is shown
        packet.visible = visible
        _measure_visible(packet)
    packet.measure.kept_bytes = layout.kept_bytes()
    layout_json = layout.to_json()
    packet.layout, packet.layout_sha256 = layout, sha256_hex(layout_json)
    manifest = Manifest(
        id="", source=packet.source, type=packet.type, raw_bytes=len(packet.raw),
        raw_sha256=raw_sha256(packet.raw, stored), visible_bytes=len(visible),
        visible_sha256=sha256_hex(visible), refs=[r.id for r in stored],
        layout=msgspec.Raw(layout_json), markers=markers, created=time.time(),
        ceiling=ceiling.CEILING_GUARD in packet.guard,
    )
    packet.manifest_id = store.put_manifest(manifest)
    store.put_visible(packet.manifest_id, visible)
    index_packet(store.home, manifest, stored)  # for tokens search; never fails the run
    figures = {"refs": len(stored), "new": written, "packet": packet.manifest_id}
    if not trace_dropped():  # the store's size is a scan of its directory: only for a trace someone reads
        figures["store_files"], figures["store_bytes"] = store.size()
    packet.add_trace("STORE", **figures)
    return packet


def raw_sha256(raw: bytes, refs) -> str:
    """The sha256 (hex) of the raw input; a ref whose content is the whole input, hashed already (a
    binary file omitted whole), gives it without a second pass over the bytes, and so does the digest
    made beside a big ref's in OPTIMIZE (``store.raw_sha256_kept``: the two hashes in one pass)."""
    kept = raw_sha256_kept(raw)
    if kept is not None:
        return kept
    for ref in refs:
        if ref.sha256 and ref.hashed is ref.content and _whole(ref.content, raw):
            return ref.sha256
    return sha256_hex(raw)


def _whole(content, raw: bytes) -> bool:
    """Whether ``content`` is the bytes of ``raw``: the very object, or views of it end to end."""
    if content is raw:
        return True
    if not isinstance(content, Spans) or content.raw is not raw or len(content) != len(raw):
        return False
    starts, ends = content.starts, content.ends
    return bool(starts) and starts[0] == 0 and ends[-1] == len(raw) and starts[1:] == ends[:-1]


def measure_opt(packet: ContextPacket, run: Run) -> ContextPacket:
    m = packet.measure
    real = _measure_visible(packet)
    packet.add_trace(
        "MEASURE_OPT", visible_bytes=m.visible_bytes, est_tokens=m.visible_tokens, markers_est=m.marker_tokens,
        referenced_est=m.referenced_tokens, saved_pct=round(m.saved_pct, 1), **real,
    )
    return packet


def _measure_visible(packet: ContextPacket) -> dict:
    """Fill in the visible/marker/referenced measures; returns the real-tokenizer figures, if any."""
    m = packet.measure
    real = {}
    if m.tokenizer != "bytes4":
        m.visible_real_tokens = real[f"{m.tokenizer}_tokens"] = count_real(packet.visible, m.tokenizer)
    m.visible_bytes = len(packet.visible)
    m.visible_tokens = estimate_tokens(m.visible_bytes)
    m.referenced_bytes = sum(len(ref.content) for ref in packet.references)
    m.referenced_tokens = estimate_tokens(m.referenced_bytes)
    marker_bytes = 0
    if packet.plan:
        marker_len = {group: len("#ref:") + len(ref.id) for group, ref in zip(packet.plan.reasons, packet.references)}
        pieces = packet.plan.pieces
        marker_bytes = sum(marker_len[group] for kind, group in zip(pieces.kinds, pieces.objs) if kind == MARK)
    m.marker_tokens = estimate_tokens(marker_bytes)
    return real


def signal(packet: ContextPacket, run: Run) -> ContextPacket:
    auto = auto_signals(packet.type, packet.raw, run.config)
    packet.missing_signals = missing_signals(packet.visible, packet.expected_signals, auto)
    full = ceiling.budget_of(packet, run.config) >= ceiling.DEFAULT_BUDGET  # planted signals' promise
    if packet.missing_signals and (ceiling.CEILING_GUARD in packet.guard or not full):  # cut: what it says
        packet.missing_signals = uncounted(packet.missing_signals, packet.visible, packet.expected_signals,
                                           packet.type, run.config, planted_strict=full)
    packet.signal_pass = not packet.missing_signals
    figures = {"result": packet.signal_pass, "planted": len(packet.expected_signals), "auto": len(auto)}
    if packet.missing_signals:
        figures["missing"] = [s[:120] for s in packet.missing_signals[:5]]
    packet.add_trace("SIGNAL", **figures)
    return packet


def recovery(packet: ContextPacket, run: Run) -> ContextPacket:
    """Every ref read back from the store equals the content it was made from."""
    bad = []
    for ref in packet.references:
        try:
            if not run.store.holds(ref.id, ref.content, ref.sha256 or None):
                bad.append(ref.id)
        except Exception:
            bad.append(ref.id)
    packet.recovery_pass = not bad
    figures = {"result": packet.recovery_pass, "refs": len(packet.references)}
    if bad:
        figures["bad"] = bad
    packet.add_trace("RECOVERY", **figures)
    return packet


def restore(packet: ContextPacket, run: Run) -> ContextPacket:
    """Check that the visible bytes, the stored manifest and the stored refs rebuild the original
    exactly (compared piece by piece; ref bytes that RECOVERY verified against the store are reused)."""
    store = run.store
    try:
        manifest = store.get_manifest(packet.manifest_id)
        if sha256_hex(packet.visible) != manifest.visible_sha256:
            raise StoreError(f"visible text does not match packet {manifest.id}")
        if packet.recovery_pass and [r.id for r in packet.references] == manifest.refs:
            # RECOVERY just proved these equal the store's bytes: no second read
            contents = [ref.content for ref in packet.references]
        else:
            contents = [store.get(ref_id).content for ref_id in manifest.refs]
        if packet.layout is not None and sha256_hex(manifest.layout) == packet.layout_sha256:
            layout = packet.layout  # the stored text is exactly the one written from it: no parse
        else:
            layout = manifest_layout(manifest)
        packet.restore_pass = restores_to(packet.raw, packet.visible, layout, contents)
        figures = {"result": packet.restore_pass, "packet": packet.manifest_id}
    except Exception as exc:
        packet.restore_pass = False
        figures = {"result": False, "error": str(exc)}
    packet.add_trace("RESTORE", **figures)
    return packet


def import_stage(path: str) -> StageFn:
    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"stage {path!r} must look like 'module:function'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"cannot import stage module {module_name!r}: {exc}") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ConfigError(f"stage {path!r}: {module_name} has no function {attr!r}")
    return fn


class Graph(NamedTuple):
    """The stages in graph order: ``mapped`` run as ``op.map`` steps, ``stored`` run by the ``store``
    sink, which writes the refs and the manifest before anything is delivered (see flows.reduce)."""

    mapped: list[tuple[str, StageFn]]
    stored: list[tuple[str, StageFn]]


class Stage(NamedTuple):
    """A built-in stage: its name (trace, ``[[stages]] after``) and its function."""

    name: str
    fn: Callable[[ContextPacket, Run], ContextPacket]


# the built-in stages in graph order; from STORE on they run in the store sink (``Graph.stored``)
STAGES: tuple[Stage, ...] = (
    Stage("LOAD", load),
    Stage("CLASSIFY", classify),
    Stage("MEASURE_RAW", measure_raw),
    Stage("OPTIMIZE", optimize),
    Stage("MEASURE_OPT", measure_opt),
    Stage("SIGNAL", signal),
    Stage("STORE", store),
    Stage("RECOVERY", recovery),
    Stage("RESTORE", restore),
)
STAGE_NAMES: tuple[str, ...] = tuple(stage.name for stage in STAGES)
SINK_FROM = "STORE"  # the first stage the store sink runs


def build_stages(config: Config, store: Store) -> Graph:
    """``STAGES`` bound to this run (``Run(config, store)``), with the plug-in stages of
    ``config.stages`` inserted after the stage each names; ConfigError for a bad one."""
    require_tokenizer(config.reduce.tokenizer)  # fail now, with one clear line, not inside a running step
    run = Run(config, store)
    stages: list[tuple[str, StageFn]] = [(stage.name, partial(stage.fn, run=run)) for stage in STAGES]
    taken = set(STAGE_NAMES)
    for spec in config.stages:
        if spec.after not in STAGE_NAMES:
            raise ConfigError(f"invalid config: [[stages]] {spec.path!r}: after {spec.after!r} is not a stage "
                              f"(one of: {' '.join(STAGE_NAMES)})")
        fn = import_stage(spec.path)
        name = base = spec.path.rpartition(":")[2].upper()
        n = 2
        while name in taken:  # two plug-ins may share a function name: each gets its own step
            name, n = f"{base}_{n}", n + 1
        taken.add(name)
        at = next(i for i, (stage, _) in enumerate(stages) if stage == spec.after)
        # after the named stage and any plug-ins already placed after it
        while at + 1 < len(stages) and stages[at + 1][0] not in STAGE_NAMES:
            at += 1
        after_store = STAGE_NAMES.index(spec.after) >= STAGE_NAMES.index(SINK_FROM)
        stages.insert(at + 1, (name, plugin(name, fn, after_store, config)))
    cut = next(i for i, (stage, _) in enumerate(stages) if stage == SINK_FROM)
    return Graph(stages[:cut], stages[cut:])


def plugin(name: str, fn: StageFn, after_store: bool, config: Config) -> StageFn:
    """A plug-in stage under the contract (docs/extending.md): before STORE it may set ``type``,
    ``granularity`` and ``expected_signals`` (before OPTIMIZE), replace ``plan`` with another finished
    plan (after OPTIMIZE: the refs and visible text are made from it again) or change a ref's
    ``content`` (hashed again by STORE); it may not change ``raw`` after MEASURE_RAW nor edit
    ``visible`` by hand. After STORE it may only read: what it changes there is what RECOVERY and
    RESTORE check."""
    if after_store:
        return fn

    def contracted(packet: ContextPacket) -> ContextPacket:
        raw, plan, visible, measured = packet.raw, packet.plan, packet.visible, bool(packet.measure.raw_bytes)
        packet = fn(packet)
        if measured and packet.raw is not raw and packet.raw != raw:
            raise StageError(f"stage {name} changed packet.raw after MEASURE_RAW (not allowed)")
        if plan is not None and packet.plan is not plan:
            if not isinstance(packet.plan, Plan):
                raise StageError(f"stage {name} set packet.plan to something that is not a Plan")
            apply_plan(packet, *bound_plan(packet, packet.plan, packet.guard, config), config)
        elif packet.visible is not visible and packet.visible != visible:
            raise StageError(f"stage {name} edited packet.visible; change packet.plan instead (docs/extending.md)")
        return packet

    return contracted


def run_steps(steps: list[StageFn], packet: ContextPacket) -> ContextPacket:
    """Run ``steps`` on one packet in order: the store sink's work on each packet (STORE, RECOVERY,
    RESTORE, as traced callables; ``operators.sinks``), also done without the engine (``flows.direct``)."""
    for step in steps:
        packet = step(packet)
    return packet


def run_stage(name: str, fn: StageFn, packet: ContextPacket) -> ContextPacket:
    """Run one stage and return the packet; a packet that failed to load is passed on untouched."""
    if packet.error and name != "LOAD":
        return packet
    before = len(packet.trace)
    try:
        packet = fn(packet)
    except (StageError, StoreError) as exc:  # a store that cannot be written (disk full, read-only): this packet fails, clearly
        packet.error = str(exc)
        packet.add_trace(name, error=packet.error)
        return packet
    if len(packet.trace) == before:
        packet.add_trace(name)
    return packet
