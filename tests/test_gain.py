"""``tokens gain``: savings per command and in total, from the stored manifests and recorded reads."""

from __future__ import annotations

import json
import os

from conftest import FIXTURES, reduce_bytes, tokens_cli
from conftest import run_cli as run_cli_with_stderr
from operators.launcher import refs_hint
from operators.store import Store
from operators.usage import USAGE_FILE, _PacketInfo, _windows_of_wholes, command_of, gain, read_uses, record_use

LOG = FIXTURES / "sample.log"


def run_cli(capsysbinary, *argv: str) -> tuple[int, bytes]:
    code, out, _ = run_cli_with_stderr(capsysbinary, *argv)
    return code, out


def est(size: int) -> int:
    return -(-size // 4)


def test_an_empty_store_says_so(home, capsysbinary):
    code, out = run_cli(capsysbinary, "gain")
    assert code == 0 and out.startswith(b"no packets in ")
    code, out = run_cli(capsysbinary, "gain", "--json")
    doc = json.loads(out)
    assert doc["rows"] == [] and doc["total"]["runs"] == 0


def test_per_command_and_total_from_the_manifests_and_the_reads(home, capsysbinary):
    log = reduce_bytes(LOG.read_bytes(), source="fixtures/sample.log")
    diff = reduce_bytes((FIXTURES / "sample.diff").read_bytes(), source="run: git diff HEAD~1")
    build = reduce_bytes((FIXTURES / "pytest_failure.txt").read_bytes(), source="run: /bin/bash -c 'pytest -q tests | tail'")
    again = reduce_bytes((FIXTURES / "npm_install.txt").read_bytes(), source="run: git diff --stat")
    assert all(p.references for p in (log, diff, build, again))
    # reads back: one ref of the log (twice), the diff's whole original
    assert run_cli(capsysbinary, "expand", log.references[0].id, "--grep", "heartbeat")[0] == 0
    assert run_cli(capsysbinary, "show-ref", log.references[0].id)[0] == 0
    assert run_cli(capsysbinary, "expand", "--full", diff.manifest_id)[0] == 0
    code, out = run_cli(capsysbinary, "gain", "--json")
    doc = json.loads(out)
    rows = {r["command"]: r for r in doc["rows"]}
    assert set(rows) == {"analyze (log)", "run: git diff", "run: pytest"}
    git = rows["run: git diff"]
    assert git["runs"] == 2
    assert git["raw_tokens"] == est(len(diff.raw)) + est(len(again.raw))
    hint = len(refs_hint("pkt_0123456789ab", "ID"))  # each output with refs showed its hint line too
    assert git["visible_tokens"] == est(len(diff.visible) + hint) + est(len(again.visible) + hint)
    assert git["refs"] == len(diff.references) + len(again.references)
    assert (git["refs_expanded"], git["originals_restored"]) == (0, 1)
    assert (rows["analyze (log)"]["refs_expanded"], rows["analyze (log)"]["originals_restored"]) == (1, 0)
    total = doc["total"]
    assert total["runs"] == 4 and total["refs_expanded"] == 1 and total["originals_restored"] == 1
    assert total["raw_tokens"] == sum(r["raw_tokens"] for r in rows.values())
    assert total["host_tokens"] == total["raw_tokens"]  # every output under Claude Code's 30,000-character cut
    assert total["expanded_tokens"] > 0  # the three reads printed bytes into the context
    assert total["saved_tokens"] == total["host_tokens"] - total["visible_tokens"] - total["expanded_tokens"] > 0
    assert total["saved_pct"] == round(100 * total["saved_tokens"] / total["host_tokens"], 1)
    assert total["ceiling_hits"] == 0  # every output fitted under the ceiling
    assert doc["expansions"] == 3
    code, out = run_cli(capsysbinary, "gain")
    table = out.decode()
    assert code == 0 and "run: git diff" in table and "total" in table and "(bytes/4)" in table
    assert f"{total['raw_tokens']:,}" in table


def test_a_ref_read_before_its_packet_was_made_does_not_count(home, capsysbinary):
    packet = reduce_bytes(LOG.read_bytes(), source="fixtures/sample.log")
    uses = home / USAGE_FILE
    uses.write_text(json.dumps({"t": 1000.0, "cmd": "expand", "id": packet.references[0].id}) + "\nnot json\n")
    assert gain(home).total.refs_expanded == 0
    record_use(home, "expand", packet.references[0].id)
    assert gain(home).total.refs_expanded == 1
    assert len(read_uses(home)) == 2  # the bad line is skipped


def test_the_usage_file_is_never_written_through_a_symlink(home, tmp_path):
    home.mkdir(parents=True)
    target = tmp_path / "elsewhere.txt"
    target.write_bytes(b"")
    os.symlink(target, home / USAGE_FILE)
    record_use(home, "expand", "ctx_abcdef")
    assert target.read_bytes() == b""


def test_expanding_through_the_cli_is_recorded(home):
    packet = reduce_bytes(LOG.read_bytes(), source="fixtures/sample.log")
    ref = packet.references[0].id
    assert tokens_cli("expand", ref, "--lines", "1:3").returncode == 0
    assert tokens_cli("expand", "ctx_000000").returncode == 1  # a failed read is not a read
    [use] = read_uses(home)
    assert (use.cmd, use.id, use.slice) == ("expand", ref, "lines")


def test_commands_are_grouped_by_program_and_subcommand():
    assert command_of("run: git status -s", "gitstatus") == "run: git status"
    assert command_of("run: /usr/bin/git -C repo log", "gitlog") == "run: git"
    assert command_of("run: /bin/bash -c 'npm test 2>&1 | tail'", "build") == "run: npm test"
    assert command_of("run: ls", "filelist") == "run: ls"
    assert command_of("fixtures/sample.log", "log") == "analyze (log)"
    assert command_of("stdin", "json") == "analyze (json)"
    assert command_of("/var/log/app.log#0-4096", "log") == "tail (log)"


def info(raw: int, refs: list[str], t: float) -> _PacketInfo:
    return _PacketInfo(source="run: make", raw_bytes=raw, visible_bytes=raw // 10, refs=refs, created=t)


def test_the_windows_of_a_run_stored_whole_count_once():
    # a run of three windows, stored whole after them; then a separate run of the same command
    group = [info(100, ["ctx_a"], 1), info(50, [], 2), info(30, ["ctx_b"], 3), info(180, ["ctx_a", "ctx_b"], 4),
             info(100, ["ctx_c"], 10)]
    assert _windows_of_wholes(group) == {0, 1, 2}
    # two separate runs whose sizes happen to add up but whose refs do not: nothing is merged
    assert _windows_of_wholes([info(100, ["ctx_a"], 1), info(80, ["ctx_x"], 2), info(180, ["ctx_y"], 3)]) == set()
    # repeated runs without refs and of different sizes stay separate
    assert _windows_of_wholes([info(10, [], 1), info(12, [], 2), info(11, [], 3)]) == set()


def test_gain_reads_the_store_only(home):
    reduce_bytes(LOG.read_bytes(), source="fixtures/sample.log")
    before = sorted(os.listdir(home))
    gain(home)
    assert sorted(os.listdir(home)) == before  # the report writes nothing
    assert Store(home).list_refs()


def test_a_real_streamed_run_of_several_windows_counts_once(home):
    parts = [LOG, FIXTURES / "pytest_failure.txt"]
    script = f"cat {parts[0]}; sleep 2; cat {parts[1]}; sleep 2; echo ERROR final"
    result = tokens_cli("run", "--", "bash", "-c", script)
    assert result.returncode == 0
    manifests = [p for p in os.listdir(home / "context") if p.startswith("pkt_") and p.endswith(".json")]
    doc = gain(home)
    [row] = doc.rows
    assert row.command == "run: cat" and row.runs == 1
    raw = sum(p.stat().st_size for p in parts) + len(b"ERROR final\n")
    assert row.raw_tokens == est(raw)
    if len(manifests) == 1:  # the output came in one window after all: nothing to merge
        return
    assert len(manifests) > 2  # windows and the whole run


def test_runs_cut_to_the_output_ceiling_are_counted(home):
    from operators.ceiling import CEILING_GUARD

    fits = reduce_bytes((FIXTURES / "pytest_failure.txt").read_bytes(), source="run: pytest -q")
    cut = reduce_bytes((FIXTURES / "sample.diff").read_bytes(), source="run: pytest -x", budget=120)
    assert CEILING_GUARD in cut.guard and CEILING_GUARD not in fits.guard
    [row] = gain(home).rows
    assert row.command == "run: pytest" and row.runs == 2 and row.ceiling_hits == 1


def test_the_manifest_flag_and_older_manifests_without_it(home):
    import msgspec

    cut = reduce_bytes((FIXTURES / "sample.diff").read_bytes(), source="run: pytest -x", budget=120)
    path = home / "context" / f"{cut.manifest_id}.json"
    doc = json.loads(path.read_bytes())
    assert doc.get("ceiling") is True  # recorded by STORE
    assert gain(home).total.ceiling_hits == 1
    del doc["ceiling"]  # a manifest written before the flag: its gap refs tell
    path.write_bytes(msgspec.json.encode(doc))
    assert gain(home).total.ceiling_hits == 1
    doc["ceiling"] = False  # the flag wins when it is there
    path.write_bytes(msgspec.json.encode(doc))
    assert gain(home).total.ceiling_hits == 0


def test_the_host_cut_applies_to_the_baseline(home):
    """Claude Code keeps 2,000 characters of a Bash output over 30,000: that, not the raw output, is
    what we saved against; an output we made longer shows as a negative saving."""
    big = "".join(f"2026-01-01 10:00:{i % 60:02d} INFO request {i} ok\n" for i in range(3000)).encode()
    packet = reduce_bytes(big, source="run: ./server --once")
    report = gain(home, "claude-code")
    row = report.total
    assert row.raw_tokens == est(len(big)) and row.host_tokens == est(2000)
    assert row.saved_tokens == row.host_tokens - est(len(packet.visible) + len(refs_hint("pkt_0123456789ab", "ID")))
    assert gain(home, "none").total.host_tokens == est(len(big))  # no cut known: the whole output


def test_an_output_that_grew_is_a_negative_saving(home):
    grown = reduce_bytes(b"".join(b"KEY_%d=value%d\n" % (i, i) for i in range(60)), source="run: env")
    row = gain(home).rows[0]
    if len(grown.visible) + (len(refs_hint("pkt_0123456789ab", "ID")) if grown.references else 0) > len(grown.raw):
        assert row.saved_tokens < 0 and row.saved_pct < 0
    else:
        assert row.saved_tokens == row.host_tokens - row.visible_tokens


def test_what_was_read_back_is_taken_off(home, capsysbinary):
    packet = reduce_bytes(LOG.read_bytes(), source="run: cat app.log")
    before = gain(home).total.saved_tokens
    code, out = run_cli(capsysbinary, "expand", "--full", packet.manifest_id)
    assert code == 0
    after = gain(home).total
    assert after.expanded_tokens == est(len(out)) and after.saved_tokens == before - est(len(out))


def test_fast_path_runs_are_counted(home):
    """A short run the fast path printed stores nothing, but gain counts it: shown whole, saved nothing."""
    import subprocess
    import sys

    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "NOLIFE_TOKENS_HOME": str(home), "NOLIFE_TOKENS_QUICK": "1"}
    proc = subprocess.run([sys.executable, "-m", "flows.quick", "run", "--", "printf", "one two three\\n"],
                          capture_output=True, env=env, timeout=60)
    assert proc.stdout == b"one two three\n"
    report = gain(home)
    [row] = report.rows
    assert row.command == "run: printf" and row.runs == 1
    assert row.host_tokens == row.visible_tokens == est(len(proc.stdout)) and row.saved_tokens == 0
    assert not list((home / "context").glob("pkt_*.json")) if (home / "context").exists() else True
