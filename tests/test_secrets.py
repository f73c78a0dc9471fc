"""Secrets never reach the visible text (every type, summaries, slices, search, MCP), and the store
keeps their exact bytes: a secret of each shape is planted in each type's input."""

from __future__ import annotations

import json
import os
import sys

import pytest

from conftest import reduce_bytes, run_cli, tokens_cli
from operators import secrets
from operators.store import Store

# shape -> (the secret value, a line that holds it); the values are made up for these tests
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwiaWF0IjoxNzAwMDAwMDAwfQ."
       "Zm9vYmFyYmF6cXV4cXV1eHF1dXpxdXV6cXV1eg")
PEM_BODY = ("MIIEowIBAAKCAQEAzQ3Y7pQvXk2Lm9Rt4Wb8Nc3Yh6Jf0Gd5Ea2Ui8OkTq1Zs\n"
            "Vx7Pz4Rt1Wb8Nc3Yh6Jf0Gd5Ea2Ui8OkQq2Lm9Rt4Wb8Nc3Yh6Jf0Gd5Ea2Ui8Ok")
SHAPES = {
    "password": ("Hunter2Secret", "login user=bob password={v} accepted"),
    "query_token": ("q1W2e3R4t5Y6u7", "GET /api/items?page=2&access_token={v}&sort=asc HTTP/1.1"),
    "url_password": ("s3cr3t-Pa55w0rd", "connecting to postgres://app:{v}@db.internal:5432/orders"),
    "json_field": ("AbC123xYz789QwE", '{{"user": "bob", "api_key": "{v}", "retries": 3}}'),
    "bearer": ("dG9rZW4tMTIzNDU2Nzg5MGFiY2RlZg", "Authorization: Bearer {v}"),
    "basic": ("YWRtaW46czNjcjN0UGFzcw==", "authorization: Basic {v}"),
    "aws": ("AKIAZX3QF7TPLMN4VR2K", "uploading with access key {v} to s3://bucket"),
    "github": ("ghp_Zq8vN3xK1mT6wYp0Rb4Lc9Hs2Fd7Ga5Je3Ku", "cloning with credential {v} now"),
    "github_pat": ("github_pat_11AAQ2Z3Y0abcdefGHIJKL_mnopqrSTUVwx1234567890", "pushing with {v} now"),
    "slack": ("xoxb-2048-4096-Zq8vN3xK1mT6wYp0Rb4L", "posting to slack as {v} now"),
    "openai": ("sk-proj-Zq8vN3xK1mT6wYp0Rb4Lc9Hs2Fd7Ga5J", "calling the model with {v} now"),
    "google": ("AIzaSyZq8vN3xK1mT6wYp0Rb4Lc9Hs2Fd7Ga5Jx", "maps client made with {v} now"),
    "jwt": (JWT, "session cookie carries {v} now"),
    "entropy": ("a8F7d6E5c4B3a2918f7E6d5C4b3A29180fQ", "booting with SECRET_KEY_BASE={v} now"),
    "pem": (PEM_BODY, "-----BEGIN RSA PRIVATE KEY-----\n{v}\n-----END RSA PRIVATE KEY-----"),
}
HEARTBEATS = "".join(f"2024-05-01T10:00:{i % 60:02d}.000Z INFO worker-{i % 7} heartbeat ok seq={i}\n" for i in range(300))


def _lines(line: str, prefix: str = "") -> str:
    return "".join(prefix + part + "\n" for part in line.split("\n"))


def make_input(kind: str, line: str) -> bytes:
    """An input of content type ``kind`` (long enough to be reduced) that shows ``line``."""
    if kind == "log":
        return (HEARTBEATS + _lines(line, "2024-05-01T10:05:00.000Z ERROR auth: ") + HEARTBEATS).encode()
    if kind == "json":
        doc = {"status": "failed", "error": {"code": 401, "message": line}, "items": [{"id": i, "ok": True} for i in range(40)]}
        return (json.dumps(doc, indent=2) + "\n").encode()
    if kind == "diff":
        context = "".join(f" unchanged line {i}\n" for i in range(40))
        return ("diff --git a/app/settings.py b/app/settings.py\nindex 3b18e51..a9c2f04 100644\n"
                "--- a/app/settings.py\n+++ b/app/settings.py\n@@ -1,41 +1,43 @@\n" + context
                + "-DEBUG = False\n" + _lines(line, "+")).encode()
    if kind == "text":
        prose = "".join(f"Paragraph {i} of the release notes says nothing in particular about the work.\n" for i in range(30))
        return (prose + _lines(line) + prose).encode()
    if kind == "build":
        steps = "".join(f"[{i}/80] Compiling module_{i}.c\n" for i in range(80))
        return (steps + _lines(line, "error: ") + "make: *** [Makefile:12: all] Error 2\n").encode()
    if kind == "table":
        env = "".join(f"VAR_{i}=value-{i}\n" for i in range(40))
        return (env + "".join(f"NOTE_{i}={part}\n" for i, part in enumerate(line.split("\n")))).encode()
    if kind == "search":
        hits = "".join(f"src/module_{i}.py:{i + 1}:    handle(request_{i})\n" for i in range(60))
        return (hits + "".join(f"src/auth.py:{12 + i}:{part}\n" for i, part in enumerate(line.split("\n")))).encode()
    if kind == "source":
        body = "".join(f"def handler_{i}(request):\n    return respond(request, {i})\n\n" for i in range(30))
        return ("import os\n\n" + _lines(line, "# ") + "\n" + body).encode()
    raise AssertionError(kind)


TYPES = ("log", "json", "diff", "text", "build", "table", "search", "source")


def secret_bytes(value: str) -> list[bytes]:
    """What must not be visible: the value, and each line of a value that spans lines."""
    return [part.encode() for part in value.split("\n") if len(part) >= 8]


def assert_restores(packet) -> None:
    store = Store(os.environ["NOLIFE_TOKENS_HOME"])
    manifest = store.get_manifest(packet.manifest_id)
    assert store.restore(manifest, store.get_visible(manifest)) == packet.raw


@pytest.mark.parametrize("kind", TYPES)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_secret_of_each_shape_is_hidden_in_each_type_and_restores(kind, shape):
    value, template = SHAPES[shape]
    line = template.format(v=value)
    if kind == "json":
        line = line.replace("\n", "\\n") if shape == "pem" else line
    raw = make_input(kind, line)
    packet = reduce_bytes(raw, source=f"secret-{shape}-{kind}", forced_type=kind)
    assert packet.type == kind and not packet.error
    for part in secret_bytes(value):
        assert part not in packet.visible, f"{shape} shown in {kind}: {packet.visible.decode()[:3000]}"
    assert b"[secret hidden" in packet.visible or b"<hidden: " in packet.visible
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass, packet.missing_signals
    assert_restores(packet)


def test_each_shape_is_found_and_only_its_value(tmp_path):
    for shape, (value, template) in SHAPES.items():
        line = template.format(v=value).encode()
        found = [line[a:b] for a, b in secrets.scan(line)]
        assert found == [value.encode()], (shape, found)


@pytest.mark.parametrize("text", [
    b"max_tokens=4096 token_count=12 tokens: 5", b"Invalid password: user bob", b"password = get_password()",
    b"DB_PASSWORD=${DB_PASSWORD}", b"sort_key=name monkey=banana", b"PWD=/home/dev/project",
    b"SSH_AUTH_SOCK=/tmp/ssh-XXXXabcd/agent.1234", b"reads the `Authorization: Bearer <token>` header",
    b"password=******** token=<redacted> secret=null", b"sk-learn-classifier-pipeline-model-v2", b'"cookie": "~0.7.2"',
    b"    --- PASS: TestWrapWriterHTTP2 (0.10s)", b"PASS: tests/t0042-parse2", b"XPASS: test_utf8_v2",
    b'"js-tokens": "^4.0.0",', b'"minipass": "^5.0.0 || ^6.0.2 || ^7.0.0"', b'"node-tokens": ">=3 <5"',
    # Android's WindowManager log: a printed object's identity (Token{hash …}), no credential
    b"D WindowManager: printFreezingDisplayLogsopening app wtoken = AppWindowToken{df0a2e0 token=Token{5dfb1e3 "
    b"ActivityRecord{e5ab1b2 u0 com.example/.MainActivity t2180}}}, allDrawn= false",
    b"I Session: session=Session@1b6d3586 opened", b"token=Token{4a95a29}}, allDrawn= true",
    # code passing a variable on, and a fixture whose value is its key's name: no credential
    b"    return Client(host=host, api_key=api_key, secret=self.secret, token=opts.token)",
    b"API_KEY=settings.API_KEY", b"password=self.password", b'"client_secret": "client_secret",',
    b'api_key = "api_key"', b"    apiKey: apiKey,",
    b"            return BasicAuth(username=auth[0], password=auth[1])", b"password=get_password()",
    b'secret=request.headers.get("X-Secret")',
])
def test_what_is_not_a_secret_stays(text):
    assert secrets.scan(text) == []


def test_a_value_near_its_key_name_or_a_name_is_still_hidden():
    """Only the key's own name, a name of letters read from an object, or one a call or a subscript
    follows passes: a value that merely holds the key's name, an attribute with digits, a password's
    dotted value, a value with digits or a long run of letters before a parenthesis stays hidden."""
    for line, value in ((b'"client_secret": "pi_3Mt_secret_YrKJUKribcBjcG8"', b"pi_3Mt_secret_YrKJUKribcBjcG8"),
                        (b"secret=secret_value_x9", b"secret_value_x9"), (b"password=foo.bar", b"foo.bar"),
                        (b"api_key=api_key_2f9a81c7", b"api_key_2f9a81c7"), (b"token=cfg.t0k3n", b"cfg.t0k3n"),
                        (b"password=hunter2(x)", b"hunter2"), (b"token=qwErTyUiOpAsDfGhJkLzXcVbNmQwErTy[0]",
                                                               b"qwErTyUiOpAsDfGhJkLzXcVbNmQwErTy"),
                        (b"token=ghp_" + b"a1" * 18 + b"(", b"ghp_" + b"a1" * 18)):
        assert [line[a:b] for a, b in secrets.scan(line)] == [value], line


def test_a_password_is_hidden_whatever_it_looks_like():
    """A printed object's identity is no token, but a password may be anything: one shaped like an
    object stays hidden, and so does a token that is not an object's identity."""
    for line, value in ((b"password=Token{4a95a29}", b"Token{4a95a29}"), (b"DB_PASSWORD=Conn@1b6d3586", b"Conn@1b6d3586"),
                        (b"token=ghp_" + b"a1" * 18, b"ghp_" + b"a1" * 18), (b"token=Token{zz91}", b"Token{zz91}")):
        assert [line[a:b] for a, b in secrets.scan(line)] == [value], line


def test_no_fixture_but_the_env_dump_holds_a_secret():
    from conftest import FIXTURES

    hits = {p.name for p in FIXTURES.iterdir() if p.is_file() and secrets.scan(p.read_bytes())}
    assert hits == {"env_with_secrets.txt"}


def test_reducer_text_and_the_ceiling_never_show_a_secret():
    """Repeated lines folded with ×N, the ceiling's fold lines and samples, the level-0 overview."""
    from operators.overview import overview

    token = SHAPES["github"][0]
    lines = "".join(f"2024-05-01T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z ERROR push {i} rejected for {token}\n"
                    for i in range(6000))
    packet = reduce_bytes(lines.encode(), source="ceiling-secrets", budget=500)
    assert "output ceiling" in packet.guard
    assert token.encode() not in packet.visible and b"[secret hidden" in packet.visible
    assert token.encode() not in overview(packet)
    assert packet.signal_pass and packet.restore_pass
    assert_restores(packet)


def test_a_short_input_is_redacted_too():
    packet = reduce_bytes(b"token=Zq8vN3xK1mT6wYp0\n", source="short")
    assert packet.visible == b"token=[secret hidden: #ref:%s]\n" % packet.references[0].id.encode()
    assert_restores(packet)


def test_run_hides_secrets_even_on_the_fast_path(tmp_path):
    for value in (SHAPES["github"][0], "postgres://app:s3cr3t-Pa55w0rd@db"):
        result = tokens_cli("run", "--", sys.executable, "-c", f"print({value!r})")
        assert result.returncode == 0
        assert b"Zq8vN3xK1mT6" not in result.stdout and b"s3cr3t-Pa55w0rd" not in result.stdout
        assert b"[secret hidden" in result.stdout


def _stored(kind="log", shape="password"):
    value, template = SHAPES[shape]
    raw = make_input(kind, template.format(v=value))
    packet = reduce_bytes(raw, source=f"stored-{shape}")
    return packet, value.encode(), raw


def test_expand_slices_hide_secrets_unless_reveal(capsysbinary, tmp_path):
    packet, value, raw = _stored()
    pkt = packet.manifest_id
    for argv in (["--grep", "ERROR"], ["--lines", "299:303"], ["--tail", "302"], ["--head", "302"]):
        code, out, _ = run_cli(capsysbinary, "expand", "--full", pkt, *argv)
        assert code == 0 and value not in out and b"[secret hidden: --reveal shows it]" in out, argv
        code, out, _ = run_cli(capsysbinary, "expand", "--full", pkt, *argv, "--reveal")
        assert code == 0 and value in out, argv
    code, out, _ = run_cli(capsysbinary, "expand", "--full", pkt)  # the whole original: exact
    assert out == raw
    [hidden] = [r for r in packet.references if r.reason == secrets.REASON]
    code, out, _ = run_cli(capsysbinary, "expand", hidden.id)
    assert value not in out and b"secret values hidden" in out
    code, out, _ = run_cli(capsysbinary, "expand", hidden.id, "--reveal")
    assert out == value


def test_expand_full_to_a_file_is_exact_and_private(capsysbinary, tmp_path):
    packet, value, raw = _stored("json", "json_field")
    target = tmp_path / "original.json"
    old = os.umask(0o022)
    try:
        code, out, _ = run_cli(capsysbinary, "expand", "--full", packet.manifest_id, "-o", str(target))
    finally:
        os.umask(old)
    assert code == 0 and target.read_bytes() == raw
    assert target.stat().st_mode & 0o777 == 0o600


def test_search_and_mcp_results_hide_secrets(home):
    from flows.mcp_server import expand_ref
    from flows.retrieve import search_text

    value = SHAPES["password"][0].encode()
    raw = b"".join(b"2024-05-01T10:00:%02d.000Z INFO login user=bob password=%s accepted seq=%d\n" % (i % 60, value, i)
                   for i in range(300))
    packet = reduce_bytes(raw, source="search-secrets")
    assert len(packet.references) == 2  # the folded lines, and the hidden value
    text, hits = search_text(home, "login accepted", 10)
    assert hits and "login user=bob password=[secret hidden]" in text and value.decode() not in text
    assert not search_text(home, value.decode(), 10)[1]  # a secret is no word of the index
    assert value.decode() not in expand_ref(home, packet.manifest_id, full=True)
    for ref in packet.references:
        assert value.decode() not in expand_ref(home, ref.id)


def test_json_stays_valid_json_with_its_secrets_hidden():
    """Hidden values inside strings (escaped quotes, backslashes, a key's \\n escapes) keep the
    document valid, and it decodes with no secret in it."""
    doc = {"status": "failed", "items": [{"id": i, "ok": True} for i in range(60)],
           "request": {"cmd": 'curl -d password="Hunter2Secret" -H "Authorization: Bearer dG9rZW4tMTIzNDU2Nzg5"',
                       "body": json.dumps({"api_key": "AbC123xYz789QwE", "n": 1}),
                       "key": "-----BEGIN PRIVATE KEY-----\n" + PEM_BODY + "\n-----END PRIVATE KEY-----\n",
                       "url": "postgres://app:s3cr3t-Pa55w0rd@db/x", "note": 'tail token=Zq8vN3xK1mT6wYp0" more'}}
    raw = json.dumps(doc, indent=2).encode()
    packet = reduce_bytes(raw, source="json-valid", forced_type="json")
    shown = json.loads(packet.visible)
    text = json.dumps(shown)
    for value in ("Hunter2Secret", "dG9rZW4tMTIzNDU2Nzg5", "AbC123xYz789QwE", "s3cr3t-Pa55w0rd", "Zq8vN3xK1mT6wYp0",
                  *PEM_BODY.split("\n")):
        assert value not in text and value.encode() not in packet.visible
    assert packet.visible.count(b"[secret hidden: #ref:ctx_") == 6
    assert_restores(packet)


def test_gain_names_no_token_given_as_a_command_argument(capsysbinary):
    for token in (SHAPES["slack"][0], SHAPES["aws"][0]):
        raw = b"".join(b"line %d of the output of %s\n" % (i, token[:4].encode()) for i in range(300))
        reduce_bytes(raw, source=f"run: notify {token}")
    code, out, _ = run_cli(capsysbinary, "gain")
    assert code == 0 and b"run: notify" in out
    assert b"xoxb-" not in out and b"AKIAZX3Q" not in out
