"""The table type (operators/types/table.py): ps, docker ps and env tables keep every row's name; secrets
never reach the visible text; byte-exact restore."""

from __future__ import annotations

import pytest

from conftest import check_fixture_through_the_graph, fixture_bytes, reduce_alone, reduce_bytes
from operators.classify import classify
from operators.types import table

TYPED = {
    "ps_aux.txt": "table",
    "env_with_secrets.txt": "table",
}
# the fake secrets planted in env_with_secrets.txt (none of them is real)
SECRETS = [
    b"ghp_Zq8vN3xK1mT6wYp0Rb4Lc9Hs2Fd7Ga5Je3Ku", b"AKIAZX3QF7TPLMN4VR2K", b"9sKq2Lm/Xv7Pz4Rt1Wb8Nc3Yh6Jf0Gd5Ea2Ui8Ok",
    b"s3cr3t-Pa55w0rd", b"sk-proj-4fT9xQ2mW7rL1kV8nB3cZ6yH0pD5sJ2aG9eU4iO", b"k2j4h5g6f7d8s9a0q1w2e3r4t5y6u7i8",
    b"hunter2-but-longer", b"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", b"7Hq2XzP9vLm4Rt8KcW1bN6yF3dJ0sG5a",
]


def reduced(module, raw: bytes) -> tuple[bytes, dict]:
    """Reduce with one type directly; the plan must restore the original; visible text and refs."""
    alone = reduce_alone(module, raw, named=True)
    return alone.visible, alone.by_id()


# -- the fixtures through the product -------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(TYPED))
def test_fixture_is_classified_as_its_type(name):
    assert classify(fixture_bytes(name))[0] == TYPED[name]


@pytest.mark.parametrize("name", sorted(TYPED))
def test_fixture_through_the_graph_keeps_signals_and_restores(name):
    check_fixture_through_the_graph(name, TYPED[name])


# -- tables and environments ----------------------------------------------------------------------
def test_env_secret_values_never_reach_the_visible_text():
    raw = fixture_bytes("env_with_secrets.txt")
    for secret in SECRETS:
        assert secret in raw
    packet = reduce_bytes(raw, source="env")
    assert packet.restore_pass and packet.recovery_pass
    for secret in SECRETS:
        assert secret not in packet.visible, secret
    stored = b"".join(bytes(ref.content) for ref in packet.references)
    assert all(secret in stored for secret in SECRETS)
    assert b"GITHUB_TOKEN=<hidden: 40 bytes, #ref:ctx_" in packet.visible
    for keep in (b"PWD=/home/dev/project", b"SSH_AUTH_SOCK=/tmp/ssh-XXXXabcd/agent.1234", b"KEYBOARD_LAYOUT=us",
                 b"XAUTHORITY=/home/dev/.Xauthority", b"PATH=/home/dev/.local/bin:/usr/local/bin:/usr/bin:/bin"):
        assert keep + b"\n" in packet.visible


def test_a_short_env_with_a_short_secret_still_hides_it():
    """Shorter than the graph's pass-through size, and longer once hidden: the value stays out anyway."""
    raw = b"HOME=/home/dev\nUSER=dev\nDB_PASSWORD=pw1\nLANG=C.UTF-8\n"
    packet = reduce_bytes(raw, source="env")
    assert packet.type == "table" and packet.restore_pass and packet.recovery_pass
    assert b"pw1" not in packet.visible and b"DB_PASSWORD=<hidden: 3 bytes, #ref:ctx_" in packet.visible
    assert [bytes(ref.content) for ref in packet.references] == [b"pw1"]


@pytest.mark.parametrize(("name", "value", "secret"), [
    (b"API_TOKEN", b"abc", True), (b"MY_PASSWORD", b"x", True), (b"STRIPE_KEY", b"rk_live_51abc", True),
    (b"NOTES", b"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc", True),
    (b"SOME_ID", b"Xk9vT2qLm8Rw4Zp1Nc7Hb3Yd6Fj0Ga5S", True),
    (b"PWD", b"/home/dev", False), (b"KEYBOARD", b"us", False), (b"PATH", b"/usr/bin:/bin", False),
    (b"HOME", b"/home/dev", False), (b"GIT_SHA", b"3f2c1e9a", False), (b"AUTH_ENABLED", b"true", False),
    (b"LS_COLORS", b"rs=0:di=01;34:ln=01;36:mh=00", False),
    (b"DBUS_SESSION_BUS_ADDRESS", b"unix:path=/run/user/1000/bus", False), (b"SSL_CERT_FILE", b"/etc/ssl/cert.pem", False),
    (b"SESSION_TOKEN", b"FQoGZXIvYXdzEBYaDH", True), (b"DSN", b"https://abc@o1.ingest.example.io/2", True),
])
def test_looks_secret(name, value, secret):
    assert table.looks_secret(name, value) is secret


def test_ps_aux_keeps_the_header_and_every_process_and_folds_uniform_columns():
    raw = fixture_bytes("ps_aux.txt")
    visible, refs = reduced(table, raw)
    rows = raw.splitlines()[1:]
    assert len(rows) > 40
    for row in rows:
        cells = row.split(None, 10)
        assert f"{cells[1].decode()}  ".encode() in visible and cells[10] in visible  # PID and command
    assert b"USER=root" in visible and b"TTY=?" in visible and b"TIME=0:00" in visible
    assert b"\nroot " not in visible


def test_small_tables_pass_through_and_a_log_is_not_a_table():
    df = (b"Filesystem      Size  Used Avail Use% Mounted on\n/dev/vda        252G   26G   77G  25% /\n"
          b"tmpfs            12G     0   12G   0% /sys/fs/cgroup\ntmpfs            24G     0   24G   0% /dev/shm\n")
    assert classify(df * 2)[0] == "table"
    assert reduced(table, df) == (df, {})
    log = b"".join(b"2026-08-16 09:00:%02d INFO GET /api/orders/%d 200 in %dms\n" % (i % 60, i, i % 90) for i in range(60))
    assert classify(log)[0] != "table"
    assert table.table_shape(log.splitlines()) is None


def test_docker_ps_style_columns_split_on_wide_gaps_and_keep_every_name():
    """docker ps pads its columns with 3+ spaces and its cells hold single spaces ("Up 2 hours")."""
    head = b"CONTAINER ID   IMAGE          COMMAND                  CREATED       STATUS       PORTS     NAMES\n"
    rows = b"".join(
        b'%012x   nginx:1.27     "/docker-entrypoint.\xe2\x80\xa6"   2 hours ago   Up 2 hours   80/tcp    web_%d\n' % (0xABC000 + i, i)
        for i in range(45)
    )
    raw = head + rows
    assert classify(raw)[0] == "table"
    visible, refs = reduced(table, raw)
    for i in range(45):
        assert b"%012x" % (0xABC000 + i) in visible and b"web_%d\n" % i in visible
    assert b"STATUS=Up 2 hours" in visible and b"IMAGE=nginx:1.27" in visible
    assert visible.count(b"Up 2 hours") == 1  # only in the note


def test_a_process_list_over_a_small_budget_fills_it_with_rows():
    """Every row of a table is content: cut to a small budget (a host that keeps 9,000 bytes), the
    rows shown fill it from the head and the tail (not a tenth of it), the header first."""
    raw = fixture_bytes("ps_aux.txt")
    rows = raw.splitlines()
    body = b"\n".join([rows[0]] + rows[1:] * 6) + b"\n"  # the fixture's processes, six times over
    packet = reduce_bytes(body, forced_type="table", budget=2_250)  # estimated tokens: 9,000 bytes
    assert "output ceiling" in packet.guard
    assert 0.8 * 9_000 < len(packet.visible) <= 9_000
    assert packet.visible.startswith(b"PID %CPU")  # the header (its uniform columns left out) first
    assert packet.restore_pass
