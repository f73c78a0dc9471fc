"""The JSON reducer on real documents: recorded GitHub API responses, npm and PyPI registry JSON.

Each fixture is a real response (trimmed by whole items to stay small): its decision fields stay
visible, folded items keep their order with a marker where they stood, link fields are parked, long
maps are folded, every ref and the whole original come back byte for byte, and it saves what we
measured (thresholds a little under the measured figures, noted beside each).
"""

from __future__ import annotations

import json
import re
import statistics

import msgspec
import pytest

from conftest import FIXTURES, reduce_bytes
from operators.config import Config
from operators.types.json import Settings as JsonConfig
from operators.reduction import omissions, render, restore
from operators.signals import load_sidecar
from operators.store import Store
from operators.types import json as json_reducer

SIDECAR = load_sidecar(FIXTURES / "signals.toml")
MARKER = re.compile(rb"#ref:ctx_[0-9a-f]{6,64}")
# measured saved % (coarse), and the floor a test asserts
SAVED = {
    "github_workflow_runs.json": (93.1, 90.0),
    "github_check_runs.json": (76.3, 74.0),  # its folded runs shown by their identity (id, name, title …)
    "github_dependabot_alerts.json": (70.8, 67.0),  # every alert of a new state or severity stays
    "npm_view_vite.json": (89.7, 87.0),
    "pypi_httpx.json": (90.5, 87.0),
}
# a decision field and its value (a string, or the first bytes of anything else)
DECISION_PAIR = re.compile(
    rb'"(status|state|conclusion|severity|result|code|error)"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?[0-9][0-9.eE+-]*|true|false)'
)


def reduce_alone(raw: bytes, **json_cfg):
    """The reducer alone: (visible, {group: content}, plan), after checking the exact restore."""
    config = Config(json=JsonConfig(**json_cfg)) if json_cfg else Config()
    plan = json_reducer.reduce(raw, "coarse", config)
    contents = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restore(visible, layout, list(contents.values())) == raw
    return visible, contents, plan


@pytest.mark.parametrize("name", sorted(SAVED))
def test_real_document_keeps_its_signals_restores_and_saves(name, home):
    raw = (FIXTURES / name).read_bytes()
    planted = SIDECAR[name]
    packet = reduce_bytes(raw, source=f"fixtures/{name}", expected_signals=planted)
    assert packet.type == "json" and not packet.guard
    for signal in planted:
        assert signal.encode() in packet.visible, signal
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    assert packet.measure.saved_pct >= SAVED[name][1]
    msgspec.json.decode(reduce_alone(raw)[0])  # the reducer's text is still one valid JSON document
    store = Store(home)
    for ref in packet.references:  # every ref holds bytes of the original
        assert store.get(ref.id).content


@pytest.mark.parametrize("name", ["github_check_runs.json", "github_workflow_runs.json"])
def test_each_item_of_an_api_list_is_named_by_its_identity(name):
    """Room left under the ceiling shows the folded items of a list by what names them: every item's
    own ``id`` and ``name`` (read here with the standard library) are visible, each exactly as written,
    and the document stays valid JSON that restores exactly."""
    raw = (FIXTURES / name).read_bytes()
    doc = json.loads(raw)
    items = next(v for v in doc.values() if isinstance(v, list))
    assert len(items) >= 5
    visible, _, plan = reduce_alone(raw)
    msgspec.json.decode(visible)
    sep = b'": ' if b'": ' in raw else b'":'
    for item in items:
        for key in ("id", "name"):
            if key in item:
                value = json.dumps(item[key]).encode()
                assert b'"' + key.encode() + sep + value in visible, (key, value)
    assert b"more keys: #ref:" in visible  # the rest of each item is named, not dropped


@pytest.mark.parametrize("name", [name for name in sorted(SAVED) if name.startswith("github_")])
def test_every_decision_value_stays_visible(name):
    """Independent of the reducer's rules: each distinct (decision field, value) of the input is
    visible at least once."""
    raw = (FIXTURES / name).read_bytes()
    visible, _, _ = reduce_alone(raw)
    pairs = {(m.group(1), m.group(2)) for m in DECISION_PAIR.finditer(raw)}
    shown = {(m.group(1), m.group(2)) for m in DECISION_PAIR.finditer(visible)}
    assert pairs and pairs <= shown, pairs - shown


def test_median_saving_over_the_real_documents():
    saved = []
    for name in SAVED:
        raw = (FIXTURES / name).read_bytes()
        visible, _, _ = reduce_alone(raw)
        saved.append(100 * (1 - len(visible) / len(raw)))
    assert statistics.median(saved) >= 87.0  # measured: 89.7


def _items_in_order(visible: bytes, key: bytes) -> list:
    """The visible items of the array under ``key``: dicts, or marker strings."""
    return msgspec.json.decode(visible)[key.decode()]


@pytest.mark.parametrize("name, key", [("github_workflow_runs.json", b"workflow_runs"),
                                       ("github_check_runs.json", b"check_runs")])
def test_fold_markers_stand_where_the_folded_items_stood(name, key):
    raw = (FIXTURES / name).read_bytes()
    original = json.loads(raw)[key.decode()]
    visible, contents, plan = reduce_alone(raw, identity=False)  # the folds alone (the identity view: above)
    shown = _items_in_order(visible, key)
    at = 0  # position in the original array
    folded = 0
    for item in shown:
        if isinstance(item, str):
            count = int(re.fullmatch(r"\u2026 (\d+) more items?: #ref:ctx_[0-9a-f]{6}", item).group(1))
            at += count
            folded += count
        else:
            assert item["id"] == original[at]["id"]  # the next kept item is the next one of the input
            at += 1
    assert at == len(original) and folded >= 1
    # the kept items include every failing or cancelled one, with its decision fields as they were
    kept = {item["id"] for item in shown if isinstance(item, dict)}
    for item in original:
        if item["conclusion"] != "success":
            assert item["id"] in kept


def test_items_differing_only_in_a_decision_field_are_kept():
    """Dependabot alerts: an auto-dismissed one and a low-severity one carry no failure word, and
    stay because their state / severity differ from every other kept alert's."""
    raw = (FIXTURES / "github_dependabot_alerts.json").read_bytes()
    original = json.loads(raw)
    visible, _, _ = reduce_alone(raw, identity=False)  # the items kept whole (by identity: another test)
    shown = msgspec.json.decode(visible)
    def key(alert):
        return alert["html_url"]  # the repository object of later alerts is a marker (same as above)

    order = [key(a) for a in original]
    kept = [key(a) for a in shown if isinstance(a, dict)]
    assert kept == [k for k in order if k in kept]  # in order
    by_key = {key(a): a for a in original}
    assert {by_key[k]["state"] for k in kept} == {a["state"] for a in original}
    assert {by_key[k]["security_advisory"]["severity"] for k in kept} == {a["security_advisory"]["severity"] for a in original}
    assert len(kept) < len(original)  # and something is folded all the same
    # with the fields not looked at, the middle auto-dismissed and low-severity alerts fold away
    visible, _, _ = reduce_alone(raw, fold_fields=[])
    kept = [key(a) for a in msgspec.json.decode(visible) if isinstance(a, dict)]
    middle = [by_key[k] for k in order[1:-1] if k not in kept]
    assert {"auto_dismissed"} <= {a["state"] for a in middle}
    assert {"low"} <= {a["security_advisory"]["severity"] for a in middle}


def test_registry_time_map_keeps_the_current_version_and_refs_restore_it():
    raw = (FIXTURES / "npm_view_vite.json").read_bytes()
    original = json.loads(raw)
    visible, contents, plan = reduce_alone(raw)
    lines = visible.split(b"\n")
    start = lines.index(b'  "time": {')
    end = lines.index(b"  },", start)
    time_lines = lines[start + 1 : end]
    latest = original["dist-tags"]["latest"]
    assert f'    "{latest}": "{original["time"][latest]}"'.encode() in time_lines
    markers = [line for line in time_lines if line.lstrip().startswith('"\u2026": '.encode())]
    assert markers and len(time_lines) <= 3 + 2 * len(markers) + 2
    # the time map's ref holds exactly the members it folded, as they were written
    [marker] = {MARKER.search(line).group() for line in markers}
    group = list(plan.reasons)[int(marker[len(b"#ref:ctx_"):], 16)]
    parked = contents[group]
    shown_keys = {json.loads(b"{" + line.rstrip(b",") + b"}").popitem()[0] for line in time_lines if line not in markers}
    for version, when in original["time"].items():
        member = f'"{version}": "{when}"'.encode()
        assert (member in parked) != (version in shown_keys), version
    # the versions list keeps the latest too
    versions = msgspec.json.decode(visible)["versions"]
    assert latest in versions and versions[0] == original["versions"][0]


def test_pypi_releases_map_keeps_the_current_release_whole():
    raw = (FIXTURES / "pypi_httpx.json").read_bytes()
    original = json.loads(raw)
    doc = msgspec.json.decode(reduce_alone(raw)[0])
    current = original["info"]["version"]
    assert doc["releases"][current] == original["releases"][current]
    assert len(doc["releases"]) < len(original["releases"]) / 4


def test_link_fields_are_parked_per_object_and_html_url_stays():
    raw = (FIXTURES / "github_workflow_runs.json").read_bytes()
    visible, contents, plan = reduce_alone(raw, identity=False)  # items kept whole (by identity: above)
    assert b'"url":"https://api.github.com' not in visible and b'_url":"https://api.github.com' not in visible
    doc = msgspec.json.decode(visible)
    for run in (item for item in doc["workflow_runs"] if isinstance(item, dict)):
        assert run["html_url"].startswith("https://github.com/")
        assert re.fullmatch(r"\d+ links: #ref:ctx_[0-9a-f]{6}", run["*_url|url"])
    link_refs = [content for group, content in contents.items() if group.startswith("links ")]
    assert any(b'"jobs_url":"https://api.github.com/repos/' in content for content in link_refs)
    # configurable: with links_noise off they stay where they were
    visible, _, _ = reduce_alone(raw, links_noise=False)
    assert b'"jobs_url":"https://api.github.com/repos/' in visible and b"links: #ref" not in visible


@pytest.mark.parametrize("name", ["github_check_runs.json", "github_dependabot_alerts.json", "npm_view_vite.json"])
def test_pretty_printing_and_key_order_stay_as_written(name):
    """Every visible line but the markers is a line of the input, and lines keep their order."""
    raw = (FIXTURES / name).read_bytes()
    visible, _, _ = reduce_alone(raw)
    raw_lines = raw.split(b"\n")
    position = 0
    for line in visible.split(b"\n"):
        if MARKER.search(line):
            continue
        position = raw_lines.index(line, position) + 1  # found at or after the previous one
