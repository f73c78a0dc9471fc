"""Every bundled fixture has its expected content type recorded (fixtures/types.toml), and the
classifier gives exactly that type: a fixture that falls to another reducer fails here."""

from __future__ import annotations

import msgspec
import pytest

from conftest import FIXTURES
from operators.sources import fixture_paths

EXPECTED = msgspec.toml.decode((FIXTURES / "types.toml").read_bytes(), type=dict[str, str])
FILES = [p.name for p in fixture_paths()]


def test_every_fixture_has_an_expected_type():
    from operators import types

    assert sorted(EXPECTED) == FILES, "add each new fixture to fixtures/types.toml (and remove gone ones)"
    assert set(EXPECTED.values()) <= set(types.names())


@pytest.mark.parametrize("name", FILES)
def test_the_fixture_is_classified_as_recorded(name):
    from operators.classify import classify

    kind, why = classify((FIXTURES / name).read_bytes(), None)
    assert kind == EXPECTED.get(name), f"{name}: {kind} ({why})"
