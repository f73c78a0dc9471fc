"""The JSON type (operators/types/json.py): the scanner, signals that stay, a visible text that stays valid JSON,
real API and registry documents, the room a small document gets, and every byte back."""

from __future__ import annotations

import json
import random
import re
import statistics
import time

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from conftest import examples, FIXTURES, cut, reduce_bytes, reducing_any_size, type_data
from operators.ceiling import CeilingSettings, fit
from operators.classify import classify
from operators.config import Config
from operators.jsonscan import is_valid_json, iter_spans
from operators.reduction import omissions, render, restore, restores_to
from operators.signals import load_sidecar
from operators.store import Store
from operators.types import json as json_reducer
from operators.types.json import Settings as JsonConfig

SAMPLE = (FIXTURES / "sample.json").read_bytes()
PLANTED = load_sidecar(FIXTURES / "signals.toml")["sample.json"]
MARKER = re.compile(r"#ref:ctx_[0-9a-f]{6,64}")
ONLY_MARKER = re.compile(r"#ref:ctx_[0-9a-f]{6,64}")


@pytest.fixture
def no_room(monkeypatch):
    """These tests are about folding: no document here is kept whole for fitting the ceiling's room
    (that rule has its own tests below: the room a small document gets)."""
    monkeypatch.setattr(json_reducer, "ROOM_SHARE", 0)
    monkeypatch.setattr(json_reducer, "ROOM_MIN", 0)


def run(raw: bytes, granularity: str = "coarse", **json_cfg):
    """Reduce with the reducer alone; check the exact restore; return (visible, {group: content}, plan)."""
    config = Config(json=JsonConfig(**json_cfg)) if json_cfg else Config()
    plan = json_reducer.reduce(raw, granularity, config)
    contents = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, markers = render(plan, ids)
    assert restore(visible, layout, list(contents.values())) == raw
    assert len(markers) == sum(1 for _ in MARKER.finditer(visible.decode("utf-8", "replace")))
    return visible, contents, plan


def decode(visible: bytes):
    return msgspec.json.decode(visible)


def content_of(visible_value: str, plan, contents) -> bytes:
    """The ref content behind the (single) marker in a visible string value."""
    [marker] = MARKER.findall(visible_value)
    index = int(marker[len("#ref:ctx_"):], 16)
    return contents[list(plan.reasons)[index]]


# ---- the fixture through the whole graph -------------------------------------------------------

@pytest.mark.usefixtures("no_room")
def test_fixture_signals_savings_refs_and_exact_restore(home):
    packet = reduce_bytes(SAMPLE, source="fixtures/sample.json", expected_signals=PLANTED)
    assert packet.type == "json" and not packet.guard
    for signal in PLANTED:
        assert signal.encode() in packet.visible
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    assert packet.measure.saved_pct >= 97.0
    assert 1 <= len(packet.references) <= 10
    # visible + referenced add up: every raw byte is either kept verbatim or in exactly one ref
    assert packet.measure.kept_bytes + packet.measure.referenced_bytes == len(SAMPLE)
    doc = decode(packet.visible)  # still valid JSON
    original = json.loads(SAMPLE)
    assert doc["id"] == 42 and doc["status"] == "failed" and doc["payment_id"] == original["payment_id"]
    assert doc["error"] == original["error"]
    store = Store(home)
    by_id = {ref.id: store.get(ref.id).content for ref in packet.references}
    # noise keys: the key stays, the value is a marker whose ref holds exactly the original value
    for key in ("telemetry", "debug", "trace"):
        assert ONLY_MARKER.fullmatch(doc[key]), doc[key]
        content = by_id[doc[key][len("#ref:"):]]
        assert json.loads(content) == original[key]
        assert SAMPLE.count(content) == 1
    # padding: one member for all padding_*/noise_* keys, one ref holding all of them
    assert not [k for k in doc if re.fullmatch(r"(padding|noise)_\d+", k)]
    [bucket_key] = [k for k in doc if "*" in k]
    assert "padding_*" in bucket_key and "noise_*" in bucket_key
    pad_content = by_id[MARKER.search(doc[bucket_key]).group()[len("#ref:"):]]
    padding = {k: v for k, v in original.items() if re.fullmatch(r"(padding|noise)_\d+", k)}
    assert len(padding) == 100 and json.loads(b"{" + pad_content + b"}") == padding
    # the long event list: first three, a summary, and the failing event kept in view
    events = doc["events"]
    assert events[:3] == original["events"][:3]
    assert re.fullmatch(r"\u2026 56 more items: #ref:ctx_[0-9a-f]{6,64}", events[3])
    assert events[4] == original["events"][-1] and events[4]["status"] == "failed"
    omitted = by_id[MARKER.search(events[3]).group()[len("#ref:"):]]
    assert json.loads(b"[" + omitted + b"]") == original["events"][3:-1]


@pytest.mark.usefixtures("no_room")
def test_fixture_fine_granularity_also_within_budget():
    visible, contents, _ = run(SAMPLE, "fine")
    decode(visible)
    assert len(contents) <= 10
    assert 1 - len(visible) / len(SAMPLE) >= 0.97


# ---- the rules ---------------------------------------------------------------------------------

@pytest.mark.usefixtures("no_room")
def test_noise_values_become_markers_and_decision_siblings_stay():
    raw = json.dumps({
        "id": "req_77", "status": "error", "message": "card declined by issuer",
        "debug": {"sql": ["SELECT 1"] * 20, "cache": {"hit": False}},
        "headers": {f"x-h{i}": "v" * 20 for i in range(10)},
        "meta": True,  # short: a marker would not be shorter, stays
        "data": {"order": {"id": 5, "telemetry": [1.5] * 40, "total": 12}},
    }, indent=2).encode()
    visible, contents, plan = run(raw)
    doc, original = decode(visible), json.loads(raw)
    for key in ("id", "status", "message", "meta"):
        assert doc[key] == original[key]
    for value, expected in ((doc["debug"], original["debug"]), (doc["headers"], original["headers"]),
                            (doc["data"]["order"]["telemetry"], original["data"]["order"]["telemetry"])):
        assert ONLY_MARKER.fullmatch(value)
        assert json.loads(content_of(value, plan, contents)) == expected
    assert doc["data"]["order"]["id"] == 5 and doc["data"]["order"]["total"] == 12


@pytest.mark.usefixtures("no_room")
@pytest.mark.parametrize("indent", [None, 2, "\t"])
@pytest.mark.parametrize("layout", ["first", "middle", "last", "interleaved", "only"])
def test_padding_keys_share_one_ref_and_commas_stay_valid(indent, layout):
    pads = {f"padding_{i:03d}": f"filler text number {i}" for i in range(30)}
    pads.update({f"noise_{i}": "n" * 30 for i in range(5)})
    keep = {"id": 9, "status": "ok", "name": "widget"}
    if layout == "first":
        obj = {**pads, **keep}
    elif layout == "middle":
        obj = {"id": 9, **pads, "status": "ok", "name": "widget"}
    elif layout == "last":
        obj = {**keep, **pads}
    elif layout == "interleaved":
        obj = {}
        for i, (k, v) in enumerate(pads.items()):
            obj[k] = v
            if i % 10 == 3:
                obj[f"k{i}"] = i
        obj.update(keep)
    else:
        obj = dict(pads)
    raw = json.dumps({"outer": obj, "items": [obj, obj]}, indent=indent).encode()
    visible, contents, plan = run(raw, repeats=False)  # each copy on its own (repeats: see below)
    doc = decode(visible)
    for node in (doc["outer"], doc["items"][0], doc["items"][1]):
        real = {k: v for k, v in obj.items() if k not in pads}
        assert {k: v for k, v in node.items() if "*" not in k} == real
        [bucket] = [k for k in node if "*" in k]
        assert bucket == "padding_*|noise_*" and node[bucket].startswith("35 keys: #ref:ctx_")
    padding_refs = [g for g, reason in plan.reasons.items() if "padding" in reason]
    assert len(padding_refs) <= 2  # one per object path ($.outer, $.items[]), not one per key


@pytest.mark.usefixtures("no_room")
def test_long_same_shaped_array_keeps_first_items_and_notable_ones():
    items = [{"sku": f"SKU-{i:04d}", "qty": i % 5 + 1, "state": "shipped"} for i in range(100)]
    items[61]["state"] = "payment failed"
    raw = json.dumps({"order": 3, "items": items}, indent=2).encode()
    visible, contents, plan = run(raw)
    got = decode(visible)["items"]
    # in order: the first three, a marker where 3..60 stood, the failing item, a marker for 62..98, the last
    assert got[:3] == items[:3] and got[4] == items[61] and got[6] == items[99] and len(got) == 7
    assert re.fullmatch(r"\u2026 58 more items: #ref:ctx_[0-9a-f]{6}", got[3])
    assert re.fullmatch(r"\u2026 37 more items: #ref:ctx_[0-9a-f]{6}", got[5])
    assert MARKER.search(got[3]).group() == MARKER.search(got[5]).group()  # one ref for the array
    rest = content_of(got[3], plan, contents)
    element = [span[1:] for span in iter_spans(raw) if span[0] == "element"]  # the items, in order
    assert rest == raw[element[3][0] : element[60][1]] + raw[element[62][0] : element[98][1]]


@pytest.mark.usefixtures("no_room")
def test_error_subtrees_are_never_summarised_or_cut():
    errors = [{"field": f"f{i}", "problem": "must not be empty"} for i in range(30)]
    raw = json.dumps({"errors": errors, "error": {"details": {"text": "why " * 1500}, "debug": "d" * 200},
                      "result": {"rows": errors}}).encode()
    visible, _, _ = run(raw)
    doc = decode(visible)
    assert doc["errors"] == errors and doc["error"]["details"]["text"] == "why " * 1500
    assert ONLY_MARKER.fullmatch(doc["error"]["debug"])  # noise is parked even under an error
    rows = doc["result"]["rows"]  # other decision keys protect only their own scalar
    assert len(rows) == 5 and rows[:3] == errors[:3] and rows[4] == errors[-1]


@pytest.mark.usefixtures("no_room")
def test_short_or_mixed_arrays_stay_whole():
    raw = json.dumps({"few": [{"a": i} for i in range(7)], "mixed": [1, "two", {"three": 3}, [4]] * 5,
                      "tags": ["alpha", "beta", "gamma"] * 4}).encode()
    visible, contents, _ = run(raw)
    assert decode(visible) == json.loads(raw)
    assert contents == {}


@pytest.mark.usefixtures("no_room")
def test_long_strings_keep_a_head_but_decision_strings_stay_whole():
    body = "".join(f"line {i}: the quick brown fox \u00e9\u00e8 \\ \"quoted\"\n" for i in range(200))
    raw = json.dumps({"body": body, "message": body, "emoji": "\U0001F600" * 1000}, ensure_ascii=False).encode()
    for data in (raw, json.dumps(json.loads(raw)).encode()):  # raw UTF-8 and \u escapes (surrogate pairs)
        visible, contents, plan = run(data)
        doc = decode(visible)
        assert doc["message"] == body
        for key in ("body", "emoji"):
            head = doc[key].split("\u2026")[0]
            assert json.loads(data)[key].startswith(head) and 0 < len(head) < 200
            assert MARKER.search(doc[key])


@pytest.mark.usefixtures("no_room")
def test_ndjson_lines_are_reduced_one_by_one_and_summarised():
    lines = [json.dumps({"ts": i, "status": "ok", "msg": f"tick {i}", "trace": {"spans": list(range(30))}})
             for i in range(40)]  # records of a job, not of a log (no level: see test_log's JSON records)
    lines[25] = json.dumps({"ts": 25, "status": "error", "msg": "PaymentService timeout", "trace": None})
    raw = ("\n".join(lines) + "\n").encode()
    assert classify(raw)[0] == "json"
    visible, contents, plan = run(raw)
    out = visible.decode().splitlines()
    docs = [json.loads(line) for line in out]  # every visible line is JSON
    assert [d["ts"] for d in docs[:3]] == [0, 1, 2] and ONLY_MARKER.fullmatch(docs[0]["trace"])
    assert re.fullmatch(r"\u2026 22 more lines: #ref:ctx_[0-9a-f]{6}", docs[3])
    assert docs[4]["msg"] == "PaymentService timeout"  # where it stood: between the lines 0..24 and 26..39
    assert re.fullmatch(r"\u2026 13 more lines: #ref:ctx_[0-9a-f]{6}", docs[5])
    assert docs[6]["ts"] == 39 and len(docs) == 7
    assert len(contents) == 2  # all trace values of one path share a ref, plus the folded lines
    packet = reduce_bytes(raw)
    assert packet.type == "json" and packet.restore_pass and packet.recovery_pass


def test_ndjson_of_distinct_records_that_fits_the_room_is_shown_whole():
    """``jq -c '{f: input_filename, s: .status}' fixtures/*/*.json``: 130 records of one shape, each naming
    another file (not alike but for their numbers, as a job's ticks are: above), 10 KB, under the room of
    a document shown unfolded: each record is what the agent asked for. They had been folded as a log's
    records, 4 of 130 shown."""
    bots = ["baremetrics", "bee", "dialogflow", "giphy", "github", "google_search", "jira", "link_shortener",
            "mention", "trello", "weather", "wikipedia", "youtube"]
    cases = ["account_info", "create_plan", "invalid_key", "list_items", "no_result", "rate_limited", "server_error",
             "timeout", "unknown_user", "valid_query"]
    lines = [json.dumps({"f": f"zulip_bots/bots/{bot}/fixtures/{case}.json", "s": (None, 200, 400, 404)[(i * 7) % 4]},
                        separators=(",", ":")) for i, (bot, case) in enumerate((b, c) for b in bots for c in cases)]
    raw = ("\n".join(lines) + "\n").encode()
    assert classify(raw)[0] == "json" and len(lines) == 130 and 8_000 < len(raw) < 12_500
    packet = reduce_bytes(raw)
    assert packet.type == "json" and packet.restore_pass and packet.visible == raw


def _go_test_json(failing: set[str]) -> bytes:
    """`go test -json` records (the shape Go prints): a run, an output, a pass or fail per test."""
    out, t = [], 0.0
    for k in range(120):
        name = f"TestHandler{k:03d}"
        for action, output in (("run", None), ("output", f"=== RUN   {name}\n"),
                               ("output", f"    handler_test.go:{40 + k}: got 204, want 200\n" if name in failing else None),
                               ("output", f"--- {'FAIL' if name in failing else 'PASS'}: {name} (0.00s)\n"),
                               ("fail" if name in failing else "pass", None)):
            if action == "output" and output is None:
                continue
            t += 0.000137
            record = {"Time": f"2026-12-04T15:05:{57 + t:09.6f}Z", "Action": action, "Package": "example.com/mux", "Test": name}
            if output is not None:
                record["Output"] = output
            out.append(json.dumps(record, separators=(",", ":")))
    out.append(json.dumps({"Time": "2026-12-04T15:06:22.3Z", "Action": "fail", "Package": "example.com/mux", "Elapsed": 1.2},
                          separators=(",", ":")))
    return ("\n".join(out) + "\n").encode()


def test_ndjson_lines_that_say_a_test_failed_stay_in_view():
    """`go test -json`: no error member, no status field; the failing tests are the records whose
    ``Action`` is ``fail`` and the output records that print ``--- FAIL``. They stay, in place, and so
    does the assertion each printed before (``handler_test.go:57: got 204, want 200``: no signal word)."""
    failing = {"TestHandler017", "TestHandler060", "TestHandler101"}
    raw = _go_test_json(failing)
    assert classify(raw)[0] == "json" and len(raw) > 30_000
    packet = reduce_bytes(raw)
    assert packet.type == "json" and packet.restore_pass and packet.recovery_pass
    visible = packet.visible.decode()
    for name in sorted(failing):
        assert f'"Output":"--- FAIL: {name} (0.00s)\\n"' in visible, name
        assert f'"Action":"fail","Package":"example.com/mux","Test":"{name}"' in visible, name
        line = 40 + int(name[-3:])
        assert f'"Output":"    handler_test.go:{line}: got 204, want 200\\n"' in visible, name
    assert "--- PASS: TestHandler050" not in visible  # the passing ones fold
    assert visible.index("TestHandler017") < visible.index("TestHandler060") < visible.index("TestHandler101")


def test_ndjson_many_failing_tests_show_as_many_of_their_lines_as_the_room_holds():
    """Failing lines too many to show in brief (40 failing tests of 120: 160 lines that say so) were
    three lines shown: as many as the room holds show, the first ones, each as printed; the rest are
    counted in the runs' markers, the passing tests fold, and the output stays under the ceiling."""
    failing = {f"TestHandler{k:03d}" for k in range(0, 120, 3)}
    raw = _go_test_json(failing)
    packet = reduce_bytes(raw)
    assert packet.type == "json" and packet.restore_pass and packet.recovery_pass
    visible = packet.visible.decode()
    shown = [name for name in sorted(failing) if f'"Output":"--- FAIL: {name} (0.00s)\\n"' in visible]
    assert len(shown) >= 8 and shown == sorted(failing)[: len(shown)]  # the first ones, in order
    assert "with errors)" in visible and "--- PASS: TestHandler050" not in visible
    codex = reduce_bytes(raw, config=Config(ceiling=CeilingSettings(max_chars=9_000)))
    assert codex.restore_pass and len(codex.visible) <= 9_000
    assert 3 < sum(f"--- FAIL: {name} " in codex.visible.decode() for name in failing) <= len(shown)


def test_ndjson_under_a_small_room_every_failing_test_says_so_before_any_tests_output():
    """Under Codex's ceiling, a first failing test that printed 60 lines (each a sub-case it ran, a few
    of them failing assertions) took the room with its run of lines and left the three other failing
    tests, and the package's ``FAIL``, behind a count: folded harder for the room, the records that
    fail (``"Action":"fail"``) come first, with the lines that say so, before any test's other output."""
    out = []
    def rec(action: str, test: str | None, output: str | None = None) -> None:
        r = {"Time": f"2026-12-05T15:51:56.{len(out):06d}Z", "Action": action, "Package": "github.com/x/parser"}
        if test:
            r["Test"] = test
        if output is not None:
            r["Output"] = output
        out.append(json.dumps(r, separators=(",", ":")))
    rec("run", "TestGet")
    rec("output", "TestGet", "=== RUN   TestGet\n")
    for k in range(60):
        rec("output", "TestGet", f"Running: read case number {k} of the parser table\n")
        if k % 20 == 7:
            rec("output", "TestGet", f"    parser_test.go:{1100 + k}: Get() test {k} expected to return value {k}, but did returned {k}}} instead\n")
    rec("output", "TestGet", "--- FAIL: TestGet (0.00s)\n")
    rec("fail", "TestGet")
    for name in ("TestGetInt", "TestGetFloat", "TestGetBoolean"):
        rec("run", name)
        rec("output", name, f"=== RUN   {name}\n")
        rec("output", name, f"    parser_test.go:1125: {name[4:]}() test 'overflow' isErr mismatch: expected false, obtained true\n")
        rec("output", name, f"--- FAIL: {name} (0.00s)\n")
        rec("fail", name)
    for k in range(20):
        rec("run", f"TestArrayEach{k}")
        rec("output", f"TestArrayEach{k}", f"--- PASS: TestArrayEach{k} (0.00s)\n")
        rec("pass", f"TestArrayEach{k}")
    rec("output", None, "FAIL\n")
    rec("fail", None)
    raw = ("\n".join(out) + "\n").encode()
    assert 10_000 < len(raw) < 30_000
    packet = reduce_bytes(raw, forced_type="json", config=Config(ceiling=CeilingSettings(max_chars=9_000)))
    assert packet.restore_pass and len(packet.visible) <= 9_000
    for name in ("TestGet", "TestGetInt", "TestGetFloat", "TestGetBoolean"):
        assert b'"Action":"fail","Package":"github.com/x/parser","Test":"%s"' % name.encode() in packet.visible, name
        assert b"--- FAIL: %s (0.00s)" % name.encode() in packet.visible, name
    assert b'"Output":"FAIL\\n"' in packet.visible and packet.visible.count(b'"Action":"fail"') == 5


def test_ndjson_a_failing_test_keeps_every_line_it_printed_its_panic_and_stack():
    """A test that panics prints the panic and a stack of frames, most of them without a signal word
    or a place in a value (``created by testing.(*T).Run``): the lines about the failing test, back to
    its ``=== RUN``, stay with the ``fail`` record, as printed (an assertion's long expected and actual
    values, which hold a signal word, are not shown in brief); the passing tests around it still fold."""
    raw = _go_test_json({"TestHandler011", "TestHandler023"})  # two failing tests before it
    lines = raw.split(b"\n")
    frames = ["panic: runtime error: index out of range [3] with length 3 [recovered]\n",
              "goroutine 7 [running]:\n", "testing.tRunner.func1.2({0x5a1b20, 0xc000016180})\n",
              "\t/usr/lib/go/src/testing/testing.go:1396 +0x24e\n", "example.com/mux.route(...)\n",
              "\t/src/mux/route.go:88\n", "created by testing.(*T).Run\n",
              "\t/usr/lib/go/src/testing/testing.go:1493 +0x35f\n",
              # an assertion's expected and actual values: long, and a signal word inside the values
              "        \t            \texpected: \"time=\\\"1981-02-24T04:28:03Z\\\" level=warning msg=\\\"routed\\\" "
              + "path=/a route=first handler=alpha status=200 bytes=512 took=3ms\\n\"\n" * 2,
              "        \t            \tactual  : \"time=\\\"1981-02-24T04:28:03Z\\\" level=warning msg=routed "
              + "path=/a route=second handler=beta status=204 bytes=0 took=3ms\\n\"\n" * 2,
              "--- FAIL: TestHandler060 (0.00s)\n"]
    records = [json.dumps({"Time": "2026-12-04T15:06:01.%06dZ" % k, "Action": "output", "Package": "example.com/mux",
                           "Test": "TestHandler060", "Output": out}, separators=(",", ":")).encode()
               for k, out in enumerate(frames)]
    records.append(b'{"Time":"2026-12-04T15:06:01.9Z","Action":"fail","Package":"example.com/mux","Test":"TestHandler060"}')
    at = next(i for i, line in enumerate(lines) if b'"Test":"TestHandler060","Output":"--- PASS' in line)
    raw = b"\n".join(lines[:at] + records + lines[at + 2:])  # its PASS and pass records replaced
    packet = reduce_bytes(raw)
    assert packet.type == "json" and packet.restore_pass and packet.recovery_pass
    for record in records:
        assert record in packet.visible, record
    assert b'"Output":"=== RUN   TestHandler060\\n"' in packet.visible
    assert b"--- PASS: TestHandler050" not in packet.visible


def _exchanges(n: int = 40) -> list:
    """Recorded HTTP exchanges as a test suite keeps them: request, status, response, and the request's
    and response's headers (noise)."""
    rng = random.Random(5)
    out = []
    for k in range(n):
        status = rng.choice([200, 200, 201, 404, 422, 200, 304])
        issues = [{"id": 1000 + 10 * k + i, "number": 10 * k + i, "title": f"Widget issue {10 * k + i}",
                   "state": rng.choice(["open", "closed"]), "labels": [{"id": 11, "name": "bug", "color": "d73a4a"}],
                   "body": "Steps to reproduce. " * rng.randint(1, 20)} for i in range(rng.randint(1, 4))]
        answer = issues if status < 300 else {"message": "Not Found" if status == 404 else "Validation Failed",
                                              "documentation_url": "https://docs.example.com/rest"}
        out.append({"scope": "https://api.example.com:443", "method": rng.choice(["GET", "POST"]),
                    "path": f"/repos/acme/widgets/issues?page={k}", "status": status, "response": answer,
                    "reqheaders": {"accept": "application/json", "user-agent": "client/1.0 (+https://example.com)"},
                    "headers": {"server": "api", "content-type": "application/json; charset=utf-8",
                                "x-ratelimit-remaining": str(4999 - k), "etag": 'W/"%032x"' % rng.getrandbits(128)}})
    return out


def test_an_item_in_brief_parks_its_noise_keys_with_the_rest():
    """Recorded exchanges over the room are shown in brief: each keeps its method, path and status, and
    its request and response headers (noise keys) fold with the rest it does not show, instead of
    taking the room as they are."""
    raw = json.dumps(_exchanges(), indent=2).encode()
    assert len(raw) > 50_000
    visible, contents, _ = run(raw)
    text = visible.decode()
    assert '"headers": {' not in text and '"reqheaders": {' not in text
    assert text.count('"path": "/repos/acme/widgets/issues?page=') >= 36  # in brief, nearly all
    assert text.count('"status": 404') == raw.decode().count('"status": 404')
    assert len(visible) < 25_000


def test_an_item_in_brief_shows_a_short_list_of_objects_by_their_identity():
    """An exchange in brief whose response is a few issues shows each by what names it (id, number,
    title, state), the rest of each behind a ref, instead of one marker for the whole response."""
    exchanges = _exchanges()
    raw = json.dumps(exchanges, indent=2).encode()
    visible, _, _ = run(raw)
    text = visible.decode()
    ids = [issue["id"] for ex in exchanges if ex["status"] < 300 for issue in ex["response"]]
    shown = [i for i in ids if f'"id": {i},' in text]
    assert len(shown) >= len(ids) // 2, (len(shown), len(ids))
    for ex in exchanges:
        if ex["status"] < 300 and any(f'"id": {issue["id"]},' in text for issue in ex["response"]):
            issue = ex["response"][0]
            assert f'"title": "{issue["title"]}"' in text and f'"state": "{issue["state"]}"' in text


@pytest.mark.usefixtures("no_room")
def test_ndjson_bad_line_stays_verbatim():
    lines = [json.dumps({"n": i, "metadata": {"blob": "x" * 60}}) for i in range(5)]
    lines[2] = '{"n": 2, "metadata": [1, 2}'  # broken brackets
    raw = ("\n".join(lines) + "\n").encode()
    visible, _, _ = run(raw)
    assert b'{"n": 2, "metadata": [1, 2}\n' in visible
    assert visible.count(b"#ref:") == 4


# ---- odd input never raises and always restores ------------------------------------------------

DEEP_ARRAY = b"[" * 10_000 + b"]" * 10_000
DEEP_OBJECT = b'{"a":' * 10_000 + b'{"debug": "' + b"d" * 300 + b'", "id": 1}' + b"}" * 10_000


@pytest.mark.usefixtures("no_room")
def test_ten_thousand_deep_nesting():
    assert is_valid_json(DEEP_ARRAY) and is_valid_json(DEEP_OBJECT)
    assert not is_valid_json(DEEP_ARRAY[:-1])
    visible, contents, _ = run(DEEP_ARRAY)
    assert visible == DEEP_ARRAY and not contents
    visible, contents, _ = run(DEEP_OBJECT)
    assert list(contents.values()) == [b'"' + b"d" * 300 + b'"']  # the walk reaches the bottom
    assert visible.endswith(b'{"debug": "#ref:ctx_000000", "id": 1}' + b"}" * 10_000)
    for raw in (DEEP_ARRAY, DEEP_OBJECT):
        packet = reduce_bytes(raw)
        assert packet.type == "json" and packet.restore_pass and "failed" not in packet.guard


@pytest.mark.usefixtures("no_room")
@pytest.mark.parametrize("cut", [1, 100, 9_000, 15_000, len(SAMPLE) - 3])
def test_truncated_json_reduces_what_parses(cut):
    raw = SAMPLE[:cut]
    visible, contents, _ = run(raw)
    if cut >= 9_000:  # telemetry was complete: it is parked even though the document is cut
        assert b'"telemetry": "#ref:ctx_000000"' in visible
        assert b'"status": "failed"' in visible and b"pay_8f3a2c91" in visible
    packet = reduce_bytes(raw, forced_type="json")
    assert packet.restore_pass and "failed" not in packet.guard


@pytest.mark.usefixtures("no_room")
@pytest.mark.parametrize("raw", [
    b'{"id": 1, "id": 2, "debug": {"x": "' + b"y" * 100 + b'"}, "debug": {"z": "' + b"w" * 100 + b'"}}',
    b'\xef\xbb\xbf{"status": "ok", "trace": "' + b"t" * 200 + b'"}',
    b'{"name": "caf\xe9 \xff\xfe", "telemetry": ["' + b"\x80" * 200 + b'"], "status": "ok"}',
    b'{"a": [1, 2, 3}, "telemetry": "' + b"q" * 200 + b'"}',
    b'{"a": tru, "b": 01, "c": "\\x", "d": 1.}',
    b'{"a": "unterminated ' + b"x" * 600,
    b"[" + b'{"k": 1},' * 300 + b"]",  # trailing comma
    b'"just a string"', b"12345", b"   ", b"", b"\x00\x01\x02", b"}}}]]]", b'{"a"}' * 200,
])
def test_odd_input_never_raises_and_restores_exactly(raw):
    visible, contents, _ = run(raw)
    packet = reduce_bytes(raw, forced_type="json")
    assert packet.restore_pass and packet.recovery_pass and "failed" not in packet.guard


@pytest.mark.usefixtures("no_room")
def test_duplicate_keys_each_handled():
    raw = (b'{"id": 1, "debug": "' + b"a" * 80 + b'", "id": 2, "debug": "' + b"b" * 80 + b'"}')
    visible, contents, _ = run(raw)
    assert visible.count(b'"debug": "#ref:ctx_000000"') == 2 and b'"id": 1' in visible and b'"id": 2' in visible
    assert contents[next(iter(contents))] == b'"' + b"a" * 80 + b'""' + b"b" * 80 + b'"'


@pytest.mark.usefixtures("no_room")
def test_bom_is_kept_and_the_rest_reduced():
    raw = b"\xef\xbb\xbf" + SAMPLE
    visible, _, _ = run(raw)
    assert visible.startswith(b"\xef\xbb\xbf{") and b'"telemetry": "#ref:ctx_' in visible
    decode(visible[3:])


@pytest.mark.usefixtures("no_room")
def test_ref_budget_caps_many_distinct_noise_paths():
    doc: dict = {"status": "ok"}
    node = doc
    for i in range(40):  # 40 noise values, each at its own path
        node["metrics"] = {"v": [i] * 40}
        node = node.setdefault(f"svc{i}", {})
    raw = json.dumps(doc).encode()
    visible, contents, _ = run(raw)
    assert len(contents) <= 10
    node = decode(visible)
    for i in range(40):
        assert ONLY_MARKER.fullmatch(node["metrics"])
        node = node[f"svc{i}"]
    visible, contents, _ = run(raw, "fine")
    assert 10 < len(contents) <= 64


# ---- generated documents: valid in, valid out ---------------------------------------------------

def _generate(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        return rng.choice([0, -1.5e-3, True, None, "s", "x" * rng.randint(0, 3000), "\u00e9\\\"\n" * rng.randint(0, 700),
                           "\U0001F600" * rng.randint(0, 700)])
    keys = ["id", "status", "telemetry", "debug", "padding_1", "padding_2", "noise_a", "items", "message", "x", "_pad"]
    if roll < 0.65:
        return {rng.choice(keys) + rng.choice(["", "", "_2"]): _generate(rng, depth + 1) for _ in range(rng.randint(0, 10))}
    if rng.random() < 0.5:
        return [_generate(rng, depth + 1) for _ in range(rng.randint(0, 10))]
    item = _generate(rng, depth + 2)
    return [item] * rng.randint(0, 25 if depth < 2 else 4)


@pytest.mark.usefixtures("no_room")
def test_generated_documents_stay_valid_and_restore():
    rng = random.Random(1234)
    for _ in range(120):
        doc = _generate(rng)
        raw = json.dumps(doc, indent=rng.choice([None, 2]), ensure_ascii=rng.random() < 0.5).encode()
        visible, _, _ = run(raw)
        decode(visible)
        assert is_valid_json(raw)
        damaged = bytearray(raw)
        if damaged:
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        damaged = bytes(damaged)
        run(damaged)
        run(damaged[: rng.randrange(len(damaged) + 1)])
        assert is_valid_json(damaged) == _msgspec_accepts(damaged)


def _msgspec_accepts(data: bytes) -> bool:
    try:
        msgspec.json.decode(data)
    except msgspec.DecodeError:
        return False
    return True


# ---- the scanner on its own --------------------------------------------------------------------

@pytest.mark.usefixtures("no_room")
def test_iter_spans_gives_exact_member_and_element_spans():
    doc = {"a": 1, "b": [True, None, {"c": "d\u00e9\""}], "e": {"f": -2.5e3, "": []}}
    raw = json.dumps(doc, indent=1, ensure_ascii=False).encode()
    seen = []
    for span in iter_spans(raw):
        if span[0] == "member":
            _, ks, ke, vs, ve = span
            seen.append((json.loads(raw[ks:ke]), json.loads(raw[vs:ve])))
        elif span[0] == "element":
            seen.append((None, json.loads(raw[span[1]:span[2]])))
        else:
            assert json.loads(raw[span[1]:span[2]]) == doc
    assert seen == [("a", 1), ("b", doc["b"]), (None, True), (None, None), (None, doc["b"][2]),
                    ("c", "d\u00e9\""), ("e", doc["e"]), ("f", -2500.0), ("", [])]


@pytest.mark.usefixtures("no_room")
@pytest.mark.parametrize("text", [
    b"{}", b"[]", b'"x"', b"0", b"-0.5e+10", b" [1, {\"a\": [null, true, false]}] ", b'"\\ud83d\\ude00"',
    b"[1,]", b"{,}", b'{"a" 1}', b'{"a":1,}', b"01", b"1.", b".5", b"[1 2]", b'"\\ud83d"', b'"a\nb"',
    b"nul", b"[", b'{"a":1}}', b"1 2", b'"\xff"', b"\xef\xbb\xbf{}",
])
def test_is_valid_json_agrees_with_msgspec(text):
    body = text[3:] if text.startswith(b"\xef\xbb\xbf") else text  # a BOM is tolerated
    assert is_valid_json(text) == _msgspec_accepts(body)


@pytest.mark.usefixtures("no_room")
def test_several_megabytes_reduce_quickly():
    rng = random.Random(7)
    records = [{"id": i, "status": rng.choice(["ok", "ok", "failed"]), "name": f"user {i}",
                "address": {"city": "Springfield", "zip": f"{i:05d}"}, "metadata": {"score": rng.random()}}
               for i in range(30_000)]
    raw = json.dumps({"status": "ok", "data": records}, indent=2).encode()
    assert len(raw) > 4_000_000
    start = time.perf_counter()
    visible, contents, _ = run(raw)
    assert time.perf_counter() - start < 8.0
    assert len(visible) < 5_000 and len(contents) <= 3


NOTABLE_PIECES = [b'"error"', b'"errors"', b'"Exception"', b'"status"', b'"state"', b'"code"', b'"http_status"', b": ", b":",
                  b" ", b"\n", b"null", b"false", b"0", b"1", b'""', b"[]", b"{}", b"[ ]", b'"failed"', b'"ok"', b'"Timed out"',
                  b'"500"', b"404", b"4040", b'"', b"\\", b"x", b"\xc3\xa9", b"\xff", b"FAIL", b"cra\xc5\xbfh"]


@pytest.mark.usefixtures("no_room")
@settings(max_examples=examples(1500), deadline=None)
@given(raw=st.lists(st.sampled_from(NOTABLE_PIECES), max_size=30).map(b"".join), data=st.data())
def test_notable_starts_are_where_the_notable_pattern_matches(raw, data):
    from operators.types.json import NOTABLE_RE, notable_starts

    start = data.draw(st.integers(0, len(raw)))
    end = data.draw(st.integers(start, len(raw)))
    assert list(notable_starts(raw, start, end)) == [m.start() for m in NOTABLE_RE.finditer(raw, start, end)]


@pytest.mark.usefixtures("no_room")
@pytest.mark.parametrize("text, notable", [
    (b'{"error": null}', False), (b'{"error": false}', False), (b'{"errors": []}', False), (b'{"error": 0}', False),
    (b'{"error": ""}', False), (b'{"error": "boom"}', True), (b'{"errors": [1]}', True), (b'{"status": "FAILED"}', True),
    (b'{"status": "ok"}', False), (b'{"code": 503}', True), (b'{"code": 200}', False),
])
def test_notable_starts_confirm_the_candidates_re2_finds(text, notable):
    from operators.types.json import notable_starts

    assert bool(list(notable_starts(text, 0, len(text)))) == notable


@pytest.mark.usefixtures("no_room")
def test_ndjson_lines_cost_a_few_bytes_each_not_an_object_each():
    import tracemalloc

    from operators.jsonscan import Ends, top_level

    raw = b"".join(b'{"id":%d,"msg":"request %d done"}\n' % (i, i) for i in range(100_000))
    tracemalloc.start()
    try:
        items, ndjson = top_level(raw, 0, Ends(len(raw)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert ndjson and len(items) == 100_000
    assert items[99_999] == (-1, -1, len(raw) - len(b'{"id":99999,"msg":"request 99999 done"}\n'), len(raw) - 1)
    assert peak < 40 * 100_000  # tuples and ints for every line would be over 100 bytes a line


# ---- deep nesting: memory linear in the input at any depth --------------------------------------

def _peak(fn, *args) -> int:
    import tracemalloc

    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.usefixtures("no_room")
@pytest.mark.parametrize("raw", [
    b"[" * 200_000 + b"1" + b"]" * 200_000,
    b"[ " * 100_000 + b"1" + b" ]" * 100_000,
    b'{"a":' * 8_000 + b"1" + b"}" * 8_000,
    b"[" * 30_000 + b"1" + b",1]" * 30_000,
])
def test_deep_nesting_costs_a_few_bytes_a_level(raw):
    """Each level used to hold a walk frame and a regex state (about 400 bytes an input byte); now the
    container ends (8 bytes a bracket pair, 16 while the kernel hands them over) are what grows."""
    assert is_valid_json(raw)
    assert _peak(is_valid_json, raw) < 10 * len(raw) + 1_000_000
    assert _peak(json_reducer.reduce, raw, "coarse", Config()) < 10 * len(raw) + 1_000_000
    visible, contents, _ = run(raw)
    assert visible == raw and not contents


@pytest.mark.usefixtures("no_room")
def test_deep_value_under_wrapper_arrays_is_still_reduced():
    """Arrays holding only the next array are jumped over, and what lies below them is reduced as usual."""
    inner = b'{"status": "failed", "debug": "' + b"d" * 300 + b'"}'
    for raw in (b"[" * 5_000 + inner + b"]" * 5_000, b"[\n " * 3_000 + b"[1, " + inner + b"]" + b"\n]" * 3_000,
                b"[[" + b"[" * 4_000 + inner + b"]" * 4_000 + b", [[" + inner + b"]]], 2]"):
        visible, contents, plan = run(raw, repeats=False)
        assert visible.count(b'"status": "failed", "debug": "#ref:ctx_') == raw.count(inner)
        assert b"".join(contents.values()) == (b'"' + b"d" * 300 + b'"') * raw.count(inner)
        assert is_valid_json(visible)


@pytest.mark.usefixtures("no_room")
def test_work_left_on_every_level_keeps_the_deep_rest_verbatim():
    """Past MAX_PENDING levels that each still have work left, the deeper value stays as it is."""
    noise = b'{"debug": "' + b"d" * 300 + b'"}'
    shallow = b"[" * 10 + noise + b",1]" * 10
    deep = b"[" * (json_reducer.MAX_PENDING + 10) + noise + b",1]" * (json_reducer.MAX_PENDING + 10)
    assert b"#ref:" in run(shallow)[0]
    visible, contents, _ = run(deep)
    assert visible == deep and not contents


@pytest.mark.usefixtures("no_room")
@pytest.mark.parametrize("text", [
    b"[[]]", b"[[],[]]", b"[[1]]]", b"[[[1]]", b"[[{}]]", b"[[{]]]", b'{"a":[[1]]}', b"]]", b"[ [ [ 1 ] ] ]",
    b"[[]][]", b'[{"a":[[]]}]', b"[[1] ]]", b"[{[[]]}]", b'{"a":[[]}]', b"[[[]]}", b"[[ ]] ", b"[[,]]",
])
def test_bracket_runs_are_validated_like_single_brackets(text):
    assert is_valid_json(text) == _msgspec_accepts(text)


@pytest.mark.usefixtures("no_room")
def test_a_container_equal_to_one_shown_before_is_parked_with_where_it_was():
    owner = {"login": "octo", "id": 1, "type": "Organization", "site_admin": False, "description": "x" * 300}
    repo = {"name": "r", "owner": owner}
    items = [{"id": i, "state": "open", "owner": owner, "repo": repo} for i in range(3)]
    raw = json.dumps({"items": items}, indent=2).encode()
    visible, contents, plan = run(raw)
    doc = decode(visible)
    assert doc["items"][0]["owner"] == owner and doc["items"][0]["repo"] == repo  # the first copies stay
    for item in doc["items"][1:]:
        assert re.fullmatch(r"\u2026 same as \$\.items\[\]\.owner above: #ref:ctx_[0-9a-f]{6}", item["owner"])
        assert re.fullmatch(r"\u2026 same as \$\.items\[\]\.repo above: #ref:ctx_[0-9a-f]{6}", item["repo"])
    assert [item["state"] for item in doc["items"]] == ["open"] * 3  # decision fields untouched
    owners = [raw[span[3] : span[4]] for span in iter_spans(raw) if span[0] == "member" and raw[span[1] : span[2]] == b'"owner"']
    [group] = [g for g in plan.reasons if g.startswith("repeat $.items[].owner")]
    assert contents[group] == owners[2] + owners[4]  # the item-level copies (0 shown, 1 inside the shown repo)
    visible, contents, _ = run(raw, repeats=False)
    assert decode(visible) == json.loads(raw) and not contents


@pytest.mark.usefixtures("no_room")
@pytest.mark.parametrize("keys", [[b"a"], [b"a", b"error", b"b"], [b"x", b"debug", b"y"], [b"k", b"padding_1"],
                                  [b"items", b"self_url"], [b"q", b"errors"]])
def test_deep_single_member_objects_reduce_as_the_walk_would(keys, monkeypatch):
    """The tight loop through deep one-member objects gives the plan a walk level each gives."""
    body = b'{"status": "failed", "telemetry": "' + b"t" * 200 + b'", "note": "' + b"n" * 3000 + b'"}'
    raw = b"".join(b'{"' + keys[i % len(keys)] + b'": ' for i in range(3_000)) + body + b"}" * 3_000
    fast = run(raw)
    monkeypatch.setattr(json_reducer._Reducer, "skip_single_members", lambda self, vs, path, protected: (vs, path, protected))
    slow = run(raw)
    assert fast[0] == slow[0] and fast[1] == slow[1] and fast[2].reasons == slow[2].reasons


@pytest.mark.usefixtures("no_room")
def test_link_fields_lone_urls_and_camel_case():
    api = "https://api.example.com/v1/things/1234567890/with/a/long/path"
    raw = json.dumps({
        "ref": {"title": "advisory", "url": api},  # its one url names it: stays
        "self": {"id": 1, "url": api, "html_url": "https://example.com/things/1"},  # html_url stays, url parked
        "gql": {"login": "x", "avatarUrl": api + "/avatar", "url": api, "profileHref": api + "/p"},
        "off": {"id": 2, "events_url": api + "/events", "comments_url": api + "/comments", "count": 3},
    }, indent=2).encode()
    visible, contents, plan = run(raw)
    doc = decode(visible)
    assert doc["ref"] == {"title": "advisory", "url": api}
    assert doc["self"]["html_url"] == "https://example.com/things/1"
    assert re.fullmatch(r"1 link: #ref:ctx_[0-9a-f]{6}", doc["self"]["url"])  # the bucket, labelled by its glob
    assert set(doc["gql"]) == {"login", "url|*url|*href"} and doc["gql"]["url|*url|*href"].startswith("3 links: #ref:")
    assert doc["off"]["*_url"].startswith("2 links: #ref:") and doc["off"]["count"] == 3
    visible, contents, _ = run(raw, links_noise=False)
    assert decode(visible) == json.loads(raw) and not contents


@pytest.mark.usefixtures("no_room")
def test_metadata_that_names_a_package_or_resource_is_walked_not_parked():
    pod = {"kind": "Pod", "metadata": {"name": "api-7f9c", "namespace": "prod", "uid": "u" * 36,
                                       "managedFields": [{"manager": "kubelet", "operation": "Update"}] * 12},
           "status": {"phase": "Running"}}
    package = {"metadata": {"name": "rich", "version": "15.0.0", "summary": "s" * 80}, "requested": True}
    other = {"metadata": {"build": "b" * 80, "region": "eu-west-1"}, "id": 7}
    visible, _, _ = run(json.dumps({"pod": pod, "package": package, "other": other}, indent=2).encode())
    doc = decode(visible)
    assert doc["pod"]["metadata"]["name"] == "api-7f9c" and doc["pod"]["metadata"]["namespace"] == "prod"
    assert doc["package"]["metadata"]["name"] == "rich" and doc["package"]["metadata"]["version"] == "15.0.0"
    assert ONLY_MARKER.fullmatch(doc["other"]["metadata"])  # metadata that names nothing is still noise


@pytest.mark.usefixtures("no_room")
def test_status_like_fields_are_categories_however_many_values_they_have():
    """Counts by state (GraphQL's checkRunCountsByState): every item has its own state, and none folds;
    a code with as many values is id-like and does not keep its items."""
    states = ["ACTION_REQUIRED", "CANCELLED", "COMPLETED", "FAILURE", "IN_PROGRESS", "NEUTRAL", "PENDING",
              "QUEUED", "SKIPPED", "STALE", "STARTUP_FAILURE", "SUCCESS", "TIMED_OUT", "WAITING"]
    by_state = [{"state": state, "count": i % 3} for i, state in enumerate(states)]
    by_code = [{"zip_code": f"{10000 + i}", "count": i % 3} for i in range(len(states))]
    visible, _, _ = run(json.dumps({"byState": by_state, "byCode": by_code}, indent=2).encode())
    doc = decode(visible)
    assert doc["byState"] == by_state
    assert any(isinstance(item, str) and "more items" in item for item in doc["byCode"])


@pytest.mark.usefixtures("no_room")
def test_recorded_http_exchanges_park_their_headers():
    """A recorder's entry (nock style): request and raw response headers are noise, status and body stay."""
    raw_headers = ["Server", "GitHub.com", "Date", "Fri, 23 Oct 2020 03:05:08 GMT", "X-RateLimit-Remaining", "4890",
                   "Content-Type", "application/json; charset=utf-8", "ETag", 'W/"23899cd4213d4493f54600e5"']
    entry = {"scope": "https://api.github.com:443", "method": "GET", "path": "/repos/o/r", "status": 404,
             "response": {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"},
             "rawHeaders": raw_headers, "reqheaders": {"accept": "application/vnd.github.v3+json", "user-agent": "x" * 40}}
    visible, contents, plan = run(json.dumps([entry], indent=2).encode())
    [doc] = decode(visible)
    assert doc["status"] == 404 and doc["response"]["message"] == "Not Found"
    assert ONLY_MARKER.fullmatch(doc["rawHeaders"]) and ONLY_MARKER.fullmatch(doc["reqheaders"])
    assert json.loads(content_of(doc["rawHeaders"], plan, contents)) == raw_headers


@pytest.mark.usefixtures("no_room")
def test_free_text_in_a_status_field_is_no_category():
    """A "result" holding a different sentence in each of 300 items would keep them all: past
    ENUM_MAX distinct values the field is not looked at, and the items fold."""
    items = [{"id": i, "result": f"processed {i} files in {i % 7} ms"} for i in range(300)]
    visible, _, _ = run(json.dumps(items).encode())
    assert len(decode(visible)) < 10


@pytest.mark.usefixtures("no_room")
def test_a_field_with_too_many_values_leaves_the_other_categories_alone():
    """The values of "result" are forgotten once they are too many for a category; the rare "status"
    value in item 250 (no failing word: only the category check keeps it) still shows."""
    items = [{"id": i, "result": f"processed {i} files", "status": "degraded" if i == 250 else "ok"} for i in range(300)]
    visible, _, _ = run(json.dumps(items).encode())
    shown = [item for item in decode(visible) if isinstance(item, dict)]
    assert any(item["status"] == "degraded" and item["id"] == 250 for item in shown)
    assert len(shown) < 12

SIDECAR = load_sidecar(FIXTURES / "signals.toml")
MARKER_BYTES = re.compile(rb"#ref:ctx_[0-9a-f]{6,64}")
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


def _repositories(n: int) -> bytes:
    """A paginated API list: ``n`` repositories of ~1.7 KB each, pretty-printed, each named by its id and name."""
    rnd = random.Random(3)
    items = []
    for i in range(n):
        name = "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(4, 12))) + f"-{i}"
        item = {"id": 1000000 + 37 * i, "node_id": f"MDEwOlJlcG9zaXRvcnk{i}", "name": name, "full_name": "org/" + name,
                "private": False, "fork": i % 5 == 0, "description": rnd.choice([None, "A parser", "Mirror of upstream"])}
        item.update({f"{k}_url": f"https://api.example.com/repos/org/{name}/{k}" for k in (
            "forks", "keys", "teams", "hooks", "events", "branches", "tags", "blobs", "trees", "statuses", "languages",
            "commits", "comments", "contents", "compare", "merges", "archive", "issues", "pulls", "labels", "releases")})
        item.update({"size": rnd.randint(10, 99999), "stargazers_count": rnd.randint(0, 5000), "language": "Go",
                     "archived": False, "open_issues_count": rnd.randint(0, 40), "default_branch": "main"})
        items.append(item)
    return json.dumps(items, indent=2).encode()


@pytest.mark.parametrize("host, named_at_least", [("none", 120), ("codex", 48)])
def test_a_long_list_names_its_folded_items_while_the_ceiling_lasts(host, named_at_least):
    """The folded items of a list are named by their identity in up to nine tenths of the ceiling (not in
    the half a document shows unfolded), and a walk whose costs were reckoned long (the room far from
    spent) is tried again with more: 150 repositories show all their ids under a 25,000-byte ceiling
    (65 in its half), 52 under Codex's 9,000 (40 before the walk was tried again)."""
    raw = _repositories(150)
    from operators.ceiling import HOST_LIMITS

    config = Config(ceiling=CeilingSettings(host=host))
    plan = json_reducer.reduce(raw, "coarse", config)
    visible, layout, _ = render(plan, {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)})
    assert restore(visible, layout, list(omissions(plan).values())) == raw
    msgspec.json.decode(visible)
    ids = [b'"id": %d' % (1000000 + 37 * i) for i in range(150)]
    named = sum(1 for i in ids if i in visible)
    assert named >= named_at_least, named
    assert len(visible) <= 0.9 * HOST_LIMITS[host] + 200, len(visible)


def _recorded_pages(pages: int, per_page: int) -> bytes:
    """A recording of a paginated API call (nock's shape: one exchange a page, its ``response`` the page's
    issues, each ~1.6 KB with its user, labels and body)."""
    rnd = random.Random(2)
    words = ["fix", "the", "parser", "when", "input", "is", "empty", "crash", "on", "windows"]
    exchanges = []
    for page in range(1, pages + 1):
        issues = []
        for k in range(per_page):
            n = page * 10 + k
            issues.append({"url": f"https://api.example.com/repos/o/r/issues/{n}", "id": 300000000 + 17 * n, "node_id": f"MDU6{n}",
                           "number": n, "title": f"Issue {n}: " + " ".join(rnd.choice(words) for _ in range(4)),
                           "user": {"login": f"user{n % 7}", "id": 1000 + n % 7, "url": f"https://api.example.com/users/u{n % 7}",
                                    "type": "User", "site_admin": False},
                           "labels": [{"id": 111, "name": "bug", "color": "d73a4a", "default": True}],
                           "state": rnd.choice(["open", "closed"]), "locked": False, "assignees": [], "comments": rnd.randint(0, 9),
                           "created_at": "2020-01-01T00:00:00Z", "author_association": "NONE",
                           "body": " ".join(rnd.choice(words) for _ in range(150))})
        exchanges.append({"scope": "https://api.example.com:443", "method": "get", "path": f"/repos/o/r/issues?per_page={per_page}&page={page}",
                          "body": "", "status": 200, "response": issues,
                          "reqheaders": {"accept": "application/json", "authorization": "token 0000000000000000000000000000000000000001"},
                          "responseIsBinary": False, "headers": {"content-type": "application/json; charset=utf-8"}})
    return json.dumps(exchanges, indent=2).encode()


def test_each_page_of_a_recorded_exchange_names_its_resources():
    """The middle exchanges of a recording are shown in brief; each one's ``response`` list (three issues
    of a page) is shown by its items' identities, not folded into a marker: every issue's id is visible
    (BRIEF_LIST holds three GitHub-like issues; at 1,024 bytes the four middle pages' 12 ids were folded)."""
    raw = _recorded_pages(6, 3)
    visible, _, _ = reduce_alone(raw)
    msgspec.json.decode(visible)
    ids = [b'"id": %d' % (300000000 + 17 * (page * 10 + k)) for page in range(1, 7) for k in range(3)]
    assert [i for i in ids if i not in visible] == []
    assert len(visible) < len(raw) // 2


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
    visible, _, _ = reduce_alone(raw, fold_fields=[], identity=False)
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
    [marker] = {MARKER_BYTES.search(line).group() for line in markers}
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
    """Every visible line but the markers is a line of the input, and lines keep their order; a member
    shown last of its object, the members after it folded behind a marker before it, leaves its comma
    (the object stays valid JSON)."""
    raw = (FIXTURES / name).read_bytes()
    visible, _, _ = reduce_alone(raw)
    raw_lines = raw.split(b"\n")
    position = 0
    for line in visible.split(b"\n"):
        if MARKER_BYTES.search(line):
            continue
        if line not in raw_lines[position:]:
            line += b","
        position = raw_lines.index(line, position) + 1  # found at or after the previous one


def _packages(n: int, pad: int = 0) -> bytes:
    items = [{"name": f"pkg-{i:03d}", "version": f"1.{i}.0", "summary": "x" * pad} for i in range(n)]
    return json.dumps(items, indent=2).encode()


def test_a_small_package_list_is_shown_whole():
    raw = _packages(40)
    packet = reduce_bytes(raw, forced_type="json")
    for i in range(40):
        assert b'"name": "pkg-%03d"' % i in packet.visible
    assert packet.restore_pass and packet.recovery_pass


def test_a_list_of_distinct_records_that_fits_the_room_is_shown_whole():
    """An API answer of 50 releases on one line (13 KB: over ``BIG_ITEMS``, under half the ceiling) is
    content, each item its own: every one is shown, not the first three and a count."""
    words = ["Kaos", "Stockholm", "Slussen", "Islands", "Morgon", "Pleasure", "Svek", "Lords", "Diskophrenia", "Sun"]
    releases = [{"status": "Accepted", "thumb": f"/image/R-150-{i * 7919}.jpg", "title": f"{words[i % 10]} {words[i // 10]} Remix",
                 "label": words[(i * 3) % 10], "role": "Main", "year": 1990 + i % 20, "type": "release", "id": 20209 + i * 37}
                for i in range(50)]
    raw = json.dumps({"pagination": {"per_page": 50, "pages": 2, "page": 1, "items": 57}, "releases": releases}).encode()
    assert 8_000 < len(raw) < 12_000 and b"\n" not in raw
    packet = reduce_bytes(raw, forced_type="json")
    for item in releases:
        assert b'"title": "%s"' % item["title"].encode() in packet.visible
    assert b"more items" not in packet.visible and packet.restore_pass


def test_records_alike_but_for_their_numbers_still_fold_under_the_room():
    """50 retry events that differ only in their numbers are one event repeated: folded with a count,
    however small the document."""
    events = [{"seq": i, "type": "charge.retry", "at_ms": 500 * i, "attempt_id": f"att_{i:04d}"} for i in range(50)]
    raw = json.dumps({"id": 42, "status": "failed", "events": events}, indent=2).encode()
    assert 4_096 < len(raw) < 12_000
    packet = reduce_bytes(raw, forced_type="json")
    assert b"more items" in packet.visible and len(packet.visible) < len(raw) // 2
    assert b'"status": "failed"' in packet.visible and packet.restore_pass


def test_an_object_under_a_decision_word_is_no_category_value():
    """A tweet's ``quoted_status`` is an object, not a status: the two tweets that hold one are not kept
    whole for it (8 KB each), so the room names every tweet by its identity instead."""
    def tweet(i: int, quoted: bool) -> dict:
        t = {"created_at": f"Sun Dec {i % 28 + 1:02d} 21:14:54 +0000 2015", "id": 676148312349609985 - i * 7919,
             "text": f"tweet number {i} " + "lorem ipsum " * 8, "is_quote_status": False,
             "user": {"id": 2229562808 + i, "name": f"user {chr(65 + i)}", "profile": {f"k{j}": "v" * 30 for j in range(40)}}}
        if quoted:
            t["quoted_status"] = {"id": 1 + i, "text": f"QUOTED-BODY-{i} " + "x" * 4000, "user": {"id": i, "name": "q"}}
        return t
    tweets = [tweet(i, i in (3, 11)) for i in range(19)]
    raw = json.dumps(tweets, separators=(",", ":")).encode()
    packet = reduce_bytes(raw, forced_type="json")
    assert b"QUOTED-BODY-3" not in packet.visible and b"QUOTED-BODY-11" not in packet.visible
    for t in tweets:
        assert b'"id":%d' % t["id"] in packet.visible and b'"name":"%s"' % t["user"]["name"].encode() in packet.visible
    assert packet.restore_pass


def test_folded_items_named_only_whole_are_shown_whole_unless_alike():
    """A server's 110 statistics on one line (``{"name": …, "type": …, "value": …}``: the name is most
    of each) over Codex's room: the identity view shows them whole while the room lasts, as their name
    would cost as much, instead of giving up and leaving 4 of them and a count; 111 retry events alike
    but for their numbers still fold."""
    names = [f"{a}-{b}" for a in ("backend", "cache", "packetcache", "query", "udp", "tcp", "dnsupdate", "signature",
                                   "zone", "key", "cpu") for b in ("hits", "misses", "latency", "queries", "answers",
                                                                   "errors", "bytes", "inserts", "lookups", "size")][:111]
    stats = [{"name": f"deferred-{n}", "type": "StatisticItem", "value": "0"} for n in names]
    raw = json.dumps(stats).encode()
    assert 6_000 < len(raw) < 9_000
    packet = reduce_bytes(raw, forced_type="json", config=Config(ceiling=CeilingSettings(max_chars=9_000)))
    shown = [n for n in names if b'"name": "deferred-%s"' % n.encode() in packet.visible]
    assert len(shown) >= 80 and shown == names[: len(shown) - 1] + names[-1:], len(shown)  # in order, the last kept
    assert packet.restore_pass and len(packet.visible) <= 9_000
    events = [{"seq": i, "type": "charge.retry", "name": "retry", "at_ms": 500 * i} for i in range(111)]
    raw = json.dumps(events).encode()
    packet = reduce_bytes(raw, forced_type="json", config=Config(ceiling=CeilingSettings(max_chars=9_000)))
    assert b"more items" in packet.visible and len(packet.visible) < len(raw) // 3


def test_a_big_package_list_still_folds():
    raw = _packages(400, pad=200)
    packet = reduce_bytes(raw, forced_type="json")
    assert len(packet.visible) < len(raw) // 4
    assert b"more items" in packet.visible and packet.restore_pass


def test_noise_in_a_small_document_goes_to_a_ref_all_the_same():
    doc = {"id": 7, "status": "failed", "telemetry": {"spans": ["a" * 50] * 20},
           "items": [{"name": f"n{i}", "state": "ok"} for i in range(30)]}
    raw = json.dumps(doc, indent=2).encode()
    packet = reduce_bytes(raw, forced_type="json", config=reducing_any_size())
    assert b'"status": "failed"' in packet.visible and b"a" * 50 not in packet.visible
    assert all(b'"name": "n%d"' % i in packet.visible for i in range(30))
    assert packet.restore_pass


def test_under_a_small_ceiling_a_small_list_is_still_shown_whole():
    """Under Codex's 9,000-byte ceiling half the ceiling would fold a 4 KB package list; the room is at
    least ``ROOM_MIN``, so every package stays visible (the packet's budget: 9,000 bytes)."""
    from operators.types import json as jsontype

    raw = _packages(52)  # (under 4 KB: a few big items fold whatever the room)
    assert 3_500 < len(raw) <= jsontype.ROOM_MIN
    packet = reduce_bytes(raw, forced_type="json", budget=9_000 // 4)
    for i in range(52):
        assert b'"name": "pkg-%03d"' % i in packet.visible
    assert packet.restore_pass

CEILING = 25_000




# -- JSON ---------------------------------------------------------------------------------------------
def json_cut(raw: bytes) -> bytes:
    from operators.types import json as jsontype

    return cut(jsontype, "json", raw, CEILING)


def test_a_test_report_shows_every_test_whose_outcome_is_not_the_usual_one():
    raw = type_data("pytest_json_report_attrs_funcs.json.gz")  # 635 passed, 10 failed, 7 skipped, 1 xfailed
    doc = json.loads(raw)
    assert classify(raw)[0] == "json" and len(raw) > 400_000
    visible = json_cut(raw)
    assert len(visible) <= CEILING
    unusual = [t for t in doc["tests"] if t["outcome"] != "passed"]
    assert len(unusual) == 18
    for test in unusual:
        assert b'{"nodeid": %s, "lineno": %d, "outcome": "%s"' % (
            json.dumps(test["nodeid"]).encode(), test["lineno"], test["outcome"].encode()) in visible, test["nodeid"]
    for test in (t for t in unusual if t["outcome"] == "failed"):  # each failure's crash message as written
        assert json.dumps(test["call"]["crash"]["message"]).encode() in visible
    assert visible.count(b'"outcome": "passed", "keywords"') <= 6  # the passed ones are folded
    assert b'"\xe2\x80\xa6": "traceback, longrepr: #ref:ctx_' in visible  # the bulk of a failure, named


def test_a_linter_json_after_its_warnings_is_json_with_every_rule_and_message():
    raw = type_data("ruff_json_httpx_client.txt.gz")  # ruff prints two warning lines before the array
    assert raw.startswith(b"warning: ") and classify(raw) == ("json", "parses as JSON after 2 lines printed before it")
    items = json.loads(raw[raw.index(b"\n[") + 1 :])
    visible = json_cut(raw)
    assert visible.startswith(raw[: raw.index(b"\n[") + 3])  # the warnings as printed, then the array
    assert len(visible) <= CEILING and len(raw) > 6 * len(visible)
    for code in {item["code"] for item in items}:
        assert b'"code": "%s"' % code.encode() in visible, code
    for message in {item["message"] for item in items}:  # they repeat: each distinct one stays
        assert b'"message": ' + json.dumps(message).encode() in visible, message


def test_a_linter_json_with_mostly_distinct_messages_keeps_every_rule():
    raw = type_data("ruff_json_typer_main.txt.gz")
    items = json.loads(raw[raw.index(b"\n[") + 1 :])
    visible = json_cut(raw)
    assert classify(raw)[0] == "json" and len(visible) <= CEILING
    for code in {item["code"] for item in items}:
        assert b'"code": "%s"' % code.encode() in visible, code


def test_ndjson_after_a_warning_line_is_json_and_keeps_its_odd_lines():
    from operators.types import json as jsontype

    lines = [json.dumps({"ts": f"2024-01-01T00:00:{i:02d}", "level": "error" if i % 17 == 5 else "info",
                         "msg": "upstream timed out" if i % 17 == 5 else "request handled", "id": i}) for i in range(60)]
    raw = ("npm warn config production Use `--omit=dev` instead.\n" + "\n".join(lines) + "\n").encode()
    assert classify(raw)[0] == "json"
    plan = jsontype.reduce(raw, "coarse", Config())
    refs = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restores_to(raw, visible, layout, [refs[g] for g in plan.reasons])
    assert visible.startswith(b"npm warn config production") and len(visible) < len(raw) / 2
    for i in (5, 22, 39, 56):  # every error line stays
        assert lines[i].encode() + b"\n" in visible


def _test_report(tests: int, failed: int) -> bytes:
    """A pytest JSON report on one line: ``failed`` failing tests with long tracebacks among ``tests``."""
    rng = random.Random(7)
    items = []
    for i in range(tests):
        bad = i % (tests // failed) == 3 and sum(t["outcome"] == "failed" for t in items) < failed
        item = {"nodeid": f"tests/test_mod{i % 7}.py::test_case_{i:04d}", "lineno": 10 + i, "outcome": "failed" if bad else "passed",
                "keywords": [f"test_case_{i:04d}", "tests", "proj"], "setup": {"duration": rng.random() / 1e3, "outcome": "passed"},
                "call": {"duration": rng.random() / 1e2, "outcome": "failed" if bad else "passed"}}
        if bad:
            item["call"]["crash"] = {"path": f"tests/test_mod{i % 7}.py", "lineno": 12 + i, "message": f"AssertionError: assert {i} == {i + 1}"}
            item["call"]["longrepr"] = "".join(f"    frame {k} of test {i}: value = {rng.random()}\n" for k in range(40))
        items.append(item)
    report = {"created": 1.0, "exitcode": 1, "summary": {"passed": tests - failed, "failed": failed, "total": tests}, "tests": items}
    return json.dumps(report).encode()


def test_a_one_line_document_over_a_small_ceiling_folds_harder_instead_of_being_cut_blind():
    """A one-line report whose failing items alone exceed Codex's 9,000-byte ceiling: the reducer folds
    harder (long strings, then failing items past the first in the folded runs, counted) until the
    ceiling does not have to cut it: no blind cut of its one line, the summary and a failure shown."""
    from operators.ceiling import CeilingSettings

    raw = _test_report(300, 25)
    assert raw.count(b"\"outcome\": \"failed\", \"keywords\"") == 25 and b"\n" not in raw
    config = Config(ceiling=CeilingSettings(max_chars=9_000))
    plan = fit(json_reducer.reduce(raw, "coarse", config), 8_800, "json", config)
    refs = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restores_to(raw, visible, layout, [refs[g] for g in plan.reasons])
    assert len(visible) <= 8_800
    assert b"not shown" not in visible  # the ceiling did not cut it: JSON fitted itself
    assert b'"summary": {"passed": 275, "failed": 25, "total": 300}' in visible
    assert b'"outcome": "failed"' in visible
    assert re.search(rb"more items \((\d+) with errors\)", visible)


def test_ndjson_of_records_of_a_few_kb_after_a_line_printed_before_it_is_json():
    record = {"reason": "compiler-message", "target": {"src_path": "src/lib.rs"}, "message": {
        "rendered": "warning: unused variable\n" + "  |\n" * 700, "code": {"code": "unused_variables"}}}
    lines = [json.dumps(dict(record, n=i)).encode() for i in range(6)]
    assert all(len(line) > 2100 for line in lines)  # under two whole records in the first 4 KB
    raw = b"    Checking demo v0.1.0 (/src/demo)\n" + b"\n".join(lines) + b"\n"
    assert classify(raw) == ("json", "parses as JSON after 1 line printed before it")


@pytest.mark.parametrize(("budget", "at_least"), [(6_000, 3), (9_500, 8), (12_000, 10)])
def test_failing_items_past_the_room_for_all_are_shown_in_brief_as_many_as_fit(budget, at_least):
    raw = type_data("pytest_json_report_attrs_funcs.json.gz")  # 10 failed and 1 xfailed among 653 tests
    tests = json.loads(raw)["tests"]
    failed = [t["nodeid"] for t in tests if t["outcome"] == "failed"]
    config = Config(ceiling=CeilingSettings(max_chars=budget))
    visible = cut(json_reducer, "json", raw, budget, config)
    assert len(visible) <= budget
    shown = [n for n in failed if b'"nodeid": %s' % json.dumps(n).encode() in visible]
    assert len(shown) >= at_least, shown  # not only the first one whole: as many in brief as the room holds
    assert shown == failed[: len(shown)] or len(shown) == len(failed)
    failing = [t["nodeid"] for t in tests if t["outcome"] in ("failed", "xfailed")]  # both carry a failure
    left = sum(b'"nodeid": %s' % json.dumps(n).encode() not in visible for n in failing)
    counted = sum(int(n) for n in re.findall(rb"more items? \(([0-9]+) with errors?\)", visible))
    assert counted == left  # the others are counted where they were folded


def test_items_kept_for_a_rare_value_are_shown_in_brief_when_whole_they_would_not_fit():
    raw = (FIXTURES / "github_dependabot_alerts.json").read_bytes()  # 6 alerts of ~9 KB: 4 medium, 1 critical, 1 low
    alerts = json.loads(raw)
    config = Config(ceiling=CeilingSettings(max_chars=9_500))
    visible = cut(json_reducer, "json", raw, 9_500, config)
    assert len(visible) <= 9_500
    assert b"#ref:ctx_" in visible and b"not shown" not in visible  # fitted by the type, not cut by lines
    for alert in alerts:  # each rare severity with its advisory's id, as printed
        if alert["security_advisory"]["severity"] != "medium":
            assert b'"severity": "%s"' % alert["security_advisory"]["severity"].encode() in visible
            assert b'"ghsa_id": "%s"' % alert["security_advisory"]["ghsa_id"].encode() in visible


def test_a_run_of_null_members_of_an_item_in_brief_is_one_line_naming_them():
    item = {"number": 0, "state": "open", "url": "u" * 300, "title": "t" * 300, "dismissed_at": None,
            "dismissed_by": None, "fixed_at": None, "closed_at": 1, "state_reason": None}
    items = [dict(item, number=i, state="open" if i % 9 else "closed") for i in range(40)]
    raw = json.dumps(items, indent=2).encode()
    visible = cut(json_reducer, "json", raw, 4_000, Config(ceiling=CeilingSettings(max_chars=4_000)))
    assert b'"\xe2\x80\xa6": "dismissed_at, dismissed_by, fixed_at: #ref:ctx_' in visible  # the run, named
    assert b'"state_reason": null' in visible  # a lone one stays: shorter than a marker


def test_compiler_json_messages_with_a_stray_stderr_line_are_json_each_shown_in_brief_under_codex():
    raw = type_data("cargo_json_serde_core_errors.txt.gz")  # cargo's JSON messages, its "error: could not compile" between
    stray = next(line for line in raw.split(b"\n") if line.startswith(b"error: could not compile"))
    assert classify(raw) == ("json", "parses as JSON after 1 line printed before it")
    records = [json.loads(line) for line in raw.split(b"\n") if line.startswith(b"{")]
    messages = [r["message"] for r in records if r["reason"] == "compiler-message"]
    visible = cut(json_reducer, "json", raw, 9_500, Config(ceiling=CeilingSettings(max_chars=9_500)))
    assert len(visible) <= 9_500 and b"not shown" not in visible  # fitted by the type: no line cut blind
    assert stray + b"\n" in visible  # the stray line as printed
    for m in messages:  # every message's level, text and code as printed, the bulk ("rendered", "spans") in refs
        if m["level"] == "error":
            assert b'"message":%s' % json.dumps(m["message"]).encode() in visible
        assert b'"code":"%s"' % m["code"]["code"].encode() in visible
    assert b'"reason":"build-finished","success":false' in visible


# ---- a document folding leaves over the budget: an outline, breadth first ------------------------

def _dependency_tree(seed: int = 7) -> dict:
    """An `npm ls --all --json` tree: 14 top-level dependencies, each with its own nested ones."""
    rng = random.Random(seed)
    words = ["core", "utils", "parser", "plugin", "types", "loader", "cli", "config", "runtime", "kit"]

    def dep(depth: int) -> dict:
        node = {"version": f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}", "overridden": False}
        if depth < 4:
            node["dependencies"] = {f"@scope{depth}/{rng.choice(words)}-{rng.randint(0, 999)}": dep(depth + 1)
                                    for _ in range(rng.randint(2, 5))}
        return node

    top = {f"top-{w}-{k}": dep(1) for k, w in enumerate(words + ["zeta", "omega", "sigma", "kappa"])}
    return {"version": "1.0.0", "name": "app", "problems": ["extraneous: left-pad@1.3.0 /srv/app/node_modules/left-pad"],
            "dependencies": top}


def _outlined(doc, least: int) -> str:
    """The visible text of ``doc`` pretty-printed (over ``least`` bytes), reduced whole under the default
    ceiling: JSON, restored exactly, within 25,000 bytes."""
    raw = json.dumps(doc, indent=2).encode() + b"\n"
    assert len(raw) > least
    packet = reduce_bytes(raw)
    assert packet.type == "json" and packet.restore_pass and packet.recovery_pass
    assert len(packet.visible) <= 25_000
    return packet.visible.decode()


def test_a_dependency_tree_over_the_budget_shows_every_top_level_dependency_and_its_version():
    """Folding a map of 14 dependencies keeps a few whole and the ceiling cuts the rest blind; the
    outline shows each top-level dependency with its version, deeper levels as markers with refs."""
    doc = _dependency_tree()
    visible = _outlined(doc, 100_000)
    for name, node in doc["dependencies"].items():
        at = visible.index(f'"{name}": {{')
        assert visible.index(f'"version": "{node["version"]}"', at) < at + 80, name
    assert '"problems": [' in visible and "extraneous: left-pad@1.3.0" in visible
    assert re.search(r'": "\{…\} \d+ keys?: #ref:ctx_[0-9a-f]+"', visible)  # deeper levels: a marker each


def _resource_fixtures(seed: int = 3) -> dict:
    """An API's example objects by resource name (a mock server's fixtures): 160 resources, each an
    object of its own fields (no two alike: no fold of same-shaped items), with an id, a type and a
    status among them, some nested, some null."""
    rng = random.Random(seed)
    WORDS = ["amount", "created", "currency", "customer", "description", "livemode", "metadata", "email",
             "balance", "country", "address", "invoice", "payment", "source", "statement", "tax", "url_path"]
    out = {}
    for k in range(160):
        obj = {f"{rng.choice(WORDS)}_{f}": (None if f % 4 == 0 else {"amount": rng.randint(0, 999), "currency": "usd",
                                                       "note": "x" * rng.randint(10, 60)} if f % 5 == 0
                              else f"value-{rng.randint(0, 10**6)}") for f in range(rng.randint(14, 30))}
        obj.update({"id": f"res{k}_{rng.randint(10**8, 10**9)}", "object": f"resource_{k}",
                    "status": rng.choice(["active", "inactive", "pending"]), "name": None})
        out[f"resource_{k}"] = obj
    return {"resources": out}


def test_an_outline_shows_its_folded_objects_by_their_identity_in_the_room_left():
    """A map of many big objects over the budget is shown as an outline, each object past its depth
    one marker; the room left shows them, in order, by what names them (id, status …) with the rest
    behind one marker member each, never a null member (it names nothing)."""
    doc = _resource_fixtures()
    visible = _outlined(doc, 150_000)
    named = [name for name, obj in doc["resources"].items() if f'"id": "{obj["id"]}"' in visible]
    assert len(named) >= 80 and named == list(doc["resources"])[: len(named)]  # in order, from the first
    first = doc["resources"]["resource_0"]
    at = visible.index('"resource_0": {')
    assert visible.index(f'"status": "{first["status"]}"', at) < visible.index('"resource_1"')
    assert re.search(r'"…": "\d+ more keys: #ref:ctx_[0-9a-f]+"', visible)
    assert '"name": null' not in visible


def test_an_outline_never_folds_an_arrays_items_whole():
    """A long array of items keeps its folded view (first items, failing ones, identity) over an
    outline that would turn each item into a marker."""
    items = [{"id": k, "status": "failed" if k == 70 else "ok", "detail": {"trace": "x" * 300, "k": k}}
             for k in range(400)]
    raw = json.dumps({"total": 400, "items": items}, indent=2).encode()
    visible = reduce_bytes(raw).visible.decode()
    assert "{…}" not in visible and '"id": 70' in visible


def test_a_lockfiles_packages_are_named_with_their_versions_when_the_first_estimate_is_short():
    """A package-lock's ``packages`` map folds; the room left shows the folded packages by their
    identity (``"node_modules/x": {"version": …}``). The cost of each was reckoned without its key,
    the view came out over the room and was dropped whole: it is tried again with less."""
    rng = random.Random(3)
    packages = {"": {"name": "app", "version": "2.0.0", "dependencies": {"left": "^1.0.0"}}}
    for k in range(160):
        name = f"node_modules/@scope-{k % 7}/package-with-a-long-name-{k}"
        packages[name] = {"version": f"{rng.randint(0, 9)}.{k}.0",
                          "resolved": f"https://registry.npmjs.org/@scope-{k % 7}/package-with-a-long-name-{k}/-/p-{k}.tgz",
                          "engines": {"node": ">=18"},
                          "integrity": "sha512-" + "".join(rng.choice("abcdefABCDEF0123456789+/") for _ in range(86)) + "==",
                          "dev": True, "license": "MIT"}
    raw = json.dumps({"name": "app", "version": "2.0.0", "lockfileVersion": 3, "packages": packages}, indent=2).encode()
    visible = reduce_bytes(raw).visible.decode()
    named = [name for name, p in packages.items() if name and re.search(
        re.escape(f'"{name}": {{') + r'\s*"version": "' + re.escape(p["version"]) + '"', visible)]
    assert len(named) >= 40, len(named)
    assert len(visible) <= 25_000


def test_cargo_json_messages_with_its_stderr_lines_between_them_are_json():
    """``cargo check --message-format=json 2>&1``: a ``Checking`` line on stderr for each crate between
    the JSON records on stdout (nearly one line in two), and ``error: could not compile`` at the end."""
    lines = []
    for k in range(30):
        lines.append(json.dumps({"reason": "compiler-artifact", "package_id": f"dep{k} 1.{k}.0", "fresh": k % 2 == 0,
                                 "filenames": [f"/work/target/debug/deps/libdep{k}-{k:016x}.rmeta"]}, separators=(",", ":")))
        lines.append(f"    Checking dep{k} v1.{k}.0")
    for k in range(3):
        lines.append(json.dumps({"reason": "compiler-message", "message": {
            "rendered": f"error[E0609]: no field `x{k}` on type `S`\n --> src/lib.rs:{10 + k}:7\n", "level": "error",
            "code": {"code": "E0609"}, "message": f"no field `x{k}` on type `S`"}}, separators=(",", ":")))
    lines += ["error: could not compile `app` (lib) due to 3 previous errors", '{"reason":"build-finished","success":false}']
    raw = ("\n".join(lines) + "\n").encode()
    assert classify(raw)[0] == "json"
    packet = reduce_bytes(raw)
    assert packet.restore_pass and packet.recovery_pass
    for k in range(3):
        assert f"no field `x{k}` on type `S`".encode() in packet.visible
    assert b"error: could not compile `app`" in packet.visible


def _npm_tree(n: int, rng: random.Random) -> dict:
    """``npm ls --all --json``'s shape: each dependency its version, some their own dependencies."""
    def dep(depth: int) -> dict:
        out = {"version": f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}", "overridden": False}
        if depth < 3 and rng.random() < 0.3:
            out["dependencies"] = {f"sub-{depth}-{k}-{rng.randint(0, 999)}": dep(depth + 1) for k in range(rng.randint(1, 6))}
        return out
    return {"version": "3.2.0", "name": "app", "dependencies": {f"dep-{i:02d}": dep(0) for i in range(n)}}


def test_a_folded_map_names_each_entry_while_the_room_lasts():
    """A dependency tree whose folded map fits the room: each folded dependency is still named, with its
    version — shown whole when its identity (the version) is about as long as it, by its identity when it
    is much longer — not counted in a "… 6 more keys" marker (a 23-dependency ``npm ls --all --json`` named
    11 of them in 8 KB of a 25 KB budget)."""
    raw = json.dumps(_npm_tree(30, random.Random(3)), indent=2).encode()
    packet = reduce_bytes(raw)
    assert packet.type == "json" and packet.restore_pass and packet.recovery_pass  # RESTORE: byte for byte
    assert packet.visible != raw and len(packet.visible) < 25000
    for i in range(30):
        assert f'"dep-{i:02d}": {{'.encode() in packet.visible, i
    tree = json.loads(raw)["dependencies"]
    for name, dep in tree.items():
        assert f'"version": "{dep["version"]}"'.encode() in packet.visible


def test_a_json_document_cut_short_is_json():
    """``head -n 300`` of a pretty-printed JSON answer (or a download cut off) is no valid document, but
    every token up to its cut is where JSON allows it: it is reduced as JSON (its long arrays folded, byte
    for byte back), not shown as text; a log led by ``[date]``, a document with text after it, and NDJSON
    stay what they were."""
    items = [{"total": i, "weeks": [{"w": 1329004800 + 604800 * k, "a": k % 3, "d": 0, "c": k % 2} for k in range(90)],
              "author": {"login": f"user{i}", "id": 1000 + i, "type": "User"}} for i in range(6)]
    full = json.dumps(items, indent=4).encode()
    cut_short = b"".join(full.splitlines(True)[:3000])
    assert not json_reducer.parses_json(cut_short)
    for raw in (cut_short, cut_short[:-7]):  # at a line's end, or inside its last line's token
        assert classify(raw)[0] == "json"
        packet = reduce_bytes(raw)
        assert packet.restore_pass and packet.recovery_pass
        assert len(packet.visible) < len(raw) / 4 and b'"login": "user0"' in packet.visible
    log = b"".join(b"[2024-05-01 10:00:%02d] local.ERROR: failed job %d\n" % (i, i) for i in range(40))
    assert classify(log)[0] == "log"
    assert not json_reducer.is_json_prefix(full + b"\nDone in 2.1s\n")
