"""The content-type contract, checked the same way for every registered type.

Each type of the shipped registry (``operators.types.BUILTIN``) goes through the same checks, on the
fixtures ``fixtures/types.toml`` records as its own:

* its record is what ``ContentType.of`` makes of its module (every part of the kind the contract says);
* its own ``detect`` answers each of its fixtures, and the classifier names it for them;
* ``reduce`` returns a ``Plan`` whose visible text and refs rebuild the input byte for byte (a log at
  both granularities);
* level 0 works: its facts (or the general line facts when it has none) are a well-formed ``Facts``,
  and the overview names the type;
* ``tier``/``rank_lines`` (and the ranking built on them) give a valid (tier, rank) for every line of
  its reduced text.

``test_each_check_fails_on_a_type_that_breaks_it`` gives each check a record broken in the part it
checks: every check can fail.
"""

from __future__ import annotations

import importlib

import msgspec
import pytest

from conftest import FIXTURES
from operators import types
from operators.config import Section, config_class
from operators.overview import line_facts, overview
from operators.packet import ContextPacket
from operators.rank import line_tiers
from operators.reduction import Plan, omissions, passthrough, render, restores_to
from operators.stages import Run, measure_raw, optimize
from operators.vocab import display_line

EXPECTED = msgspec.toml.decode((FIXTURES / "types.toml").read_bytes(), type=dict[str, str])
CONFIG = config_class()()
TIERS = (0, 1, 2)  # signal, context, other


def fixtures_of(name: str) -> list[tuple[str, bytes]]:
    return [(fixture, (FIXTURES / fixture).read_bytes()) for fixture, kind in sorted(EXPECTED.items()) if kind == name]


def granularities(record: types.ContentType) -> tuple[str, ...]:
    return ("coarse", "fine") if record.name == "log" else ("coarse",)


# -- the checks: each raises AssertionError naming what broke ---------------------------------------


def check_record(record: types.ContentType) -> None:
    made = types.ContentType.of(importlib.import_module(record.module))
    assert made == record, f"{record.name}: the record is not what its module {record.module} makes"
    assert record.name in types.BUILTIN.names and callable(record.detect) and callable(record.reduce)
    assert record.signals in ("lines", "changed", ""), f"{record.name}: SIGNALS {record.signals!r}"
    for flag in (record.redacts, record.fill, record.fits, record.pack_context):
        assert isinstance(flag, bool), f"{record.name}: a flag that is not True or False: {flag!r}"
    for hook in (record.facts, record.tier, record.rank_lines, record.cut_head):
        assert hook is None or callable(hook), f"{record.name}: {hook!r} is not a function"
    if record.settings is not None:
        assert isinstance(record.settings(), Section), f"{record.name}: Settings is not a config section"


def check_detect(record: types.ContentType, fixtures: list[tuple[str, bytes]]) -> None:
    from operators.classify import classify

    assert fixtures, f"{record.name}: no fixture in fixtures/types.toml"
    for fixture, raw in fixtures:
        reason = record.detect(types.Sample(raw))
        assert isinstance(reason, str) and reason, f"{record.name}: its detect says {reason!r} to {fixture}"
        assert classify(raw, None, CONFIG)[0] == record.name, f"{fixture}: not classified as {record.name}"


def check_restore(record: types.ContentType, fixture: str, raw: bytes, granularity: str) -> None:
    plan = record.reduce(raw, granularity, CONFIG)
    assert isinstance(plan, Plan), f"{fixture}: {record.name}.reduce returned {type(plan).__name__}"
    contents = omissions(plan)
    visible, layout, _ = render(plan, {group: f"ctx_{i:012x}" for i, group in enumerate(plan.reasons)})
    assert restores_to(raw, visible, layout, list(contents.values())), \
        f"{fixture} ({granularity}): the {record.name} plan does not rebuild the input"


def reduced(record: types.ContentType, raw: bytes, granularity: str, fixture: str) -> ContextPacket:
    """A packet of ``record``'s type through MEASURE_RAW and OPTIMIZE: what level 0 and the ranking read."""
    packet = ContextPacket(source=fixture, raw=raw, granularity=granularity, type=record.name)
    run = Run(CONFIG, None)  # no stage before STORE touches the store
    return optimize(measure_raw(packet, run), run)


def check_facts(record: types.ContentType, packet: ContextPacket) -> None:
    facts = record.facts(packet) if record.facts is not None else line_facts(packet)
    assert isinstance(facts, types.Facts), f"{packet.source}: {record.name}.facts returned {facts!r}"
    assert isinstance(facts.counts, str) and isinstance(facts.label, str)
    assert isinstance(facts.important, list) and all(isinstance(line, str) for line in facts.important)
    assert isinstance(facts.total, int) and facts.total >= 0
    text = overview(packet, CONFIG)
    assert f": {record.name}".encode() in text.split(b"\n")[0], f"{packet.source}: level 0 says {text[:120]!r}"


def _valid(ranked) -> bool:
    return (isinstance(ranked, (tuple, list)) and len(ranked) == 2 and ranked[0] in TIERS
            and isinstance(ranked[1], int) and not isinstance(ranked[1], bool))


def check_ranks(record: types.ContentType, packet: ContextPacket) -> None:
    lines = packet.visible.split(b"\n")
    if record.rank_lines is not None:
        given = record.rank_lines(lines, CONFIG)
        if given is not None:
            assert len(given) == len(lines), f"{packet.source}: {record.name}.rank_lines: {len(given)} for {len(lines)}"
            bad = [r for r in given if r is not None and not _valid(r)]
            assert not bad, f"{packet.source}: {record.name}.rank_lines gave {bad[:3]}"
    if record.tier is not None:
        for line in lines:
            text = line.rstrip(b"\r")
            ranked = record.tier(text, display_line(text), CONFIG)
            assert ranked is None or _valid(ranked), f"{packet.source}: {record.name}.tier({line[:60]!r}) = {ranked!r}"
    tiers, ranks = line_tiers(record.name, lines, CONFIG)
    assert len(tiers) == len(ranks) == len(lines)
    assert set(tiers) <= set(TIERS) and all(isinstance(rank, int) for rank in ranks)


# -- every registered type ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", types.BUILTIN.names)
def test_the_type_keeps_the_contract(name):
    record = types.BUILTIN.get(name)
    check_record(record)
    fixtures = fixtures_of(name)
    check_detect(record, fixtures)
    for fixture, raw in fixtures:
        for granularity in granularities(record):
            check_restore(record, fixture, raw, granularity)
            packet = reduced(record, raw, granularity, fixture)
            check_facts(record, packet)
            check_ranks(record, packet)


def test_every_type_has_fixtures_and_every_fixture_a_registered_type():
    assert set(EXPECTED.values()) == set(types.BUILTIN.names)


# -- each check can fail -------------------------------------------------------------------------------


def _sample_packet() -> tuple[types.ContentType, str, bytes, ContextPacket]:
    record = types.BUILTIN.get("log")
    fixture, raw = fixtures_of("log")[0]
    return record, fixture, raw, reduced(record, raw, "coarse", fixture)


def test_each_check_fails_on_a_type_that_breaks_it():
    record, fixture, raw, packet = _sample_packet()
    broken = msgspec.structs.replace
    cases = [
        (check_record, (broken(record, signals="words"),)),
        (check_record, (broken(record, fill="yes"),)),
        (check_detect, (broken(record, detect=lambda sample: None), [(fixture, raw)])),
        (check_detect, (types.BUILTIN.get("text"), [(fixture, raw)])),  # text answers, but log comes first
        (check_detect, (record, [])),
        (check_restore, (broken(record, reduce=lambda raw, granularity, config: passthrough(raw[:-1])), fixture, raw,
                         "coarse")),
        (check_restore, (broken(record, reduce=lambda raw, granularity, config: raw), fixture, raw, "coarse")),
        (check_facts, (broken(record, facts=lambda packet: ("3 lines", [], 0)), packet)),
        (check_facts, (broken(record, facts=lambda packet: types.Facts("3 lines", [b"bytes"], 1)), packet)),
        (check_ranks, (broken(record, tier=lambda text, shown, config: (5, 0)), packet)),
        (check_ranks, (broken(record, rank_lines=lambda lines, config: [(0, 0)]), packet)),
        (check_ranks, (broken(record, rank_lines=lambda lines, config: [(1, "first")] * len(lines)), packet)),
    ]
    for check, args in cases:
        with pytest.raises(AssertionError):
            check(*args)
    check_record(record)  # the same checks pass on the record itself
    check_detect(record, [(fixture, raw)])
    check_restore(record, fixture, raw, "coarse")
    check_facts(record, packet)
    check_ranks(record, packet)
