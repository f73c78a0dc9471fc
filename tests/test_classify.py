"""Classifier: positive and negative examples for each type; unsure inputs fall back to safer types."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import reduce_bytes
from operators.classify import classify

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

LOG = b"".join(
    b"2024-05-01 10:00:%02d INFO  request started path=/api/items id=%d\n" % (i % 60, i) for i in range(30)
) + b"2024-05-01 10:00:31 ERROR PaymentService line 421: card declined\n"

GIT_DIFF = (
    b"diff --git a/src/a.php b/src/a.php\nindex 1111111..2222222 100644\n--- a/src/a.php\n+++ b/src/a.php\n"
    b"@@ -1,3 +1,3 @@\n <?php\n-echo 'a';\n+echo 'b';\n"
)

PROSE = (
    b"Agents pay for, and get distracted by, huge tool outputs. Most of that can be removed\n"
    b"deterministically, without a model, and removed does not have to mean destroyed.\n\n"
    b"The reducer for each type keeps what matters and parks the rest behind a short marker.\n"
)


def kind(raw: bytes, forced: str | None = None) -> str:
    return classify(raw, forced)[0]


# --- json ----------------------------------------------------------------------------------------


def test_json_document():
    assert kind(b'{"id": 7, "status": "failed", "items": [1, 2, 3]}') == "json"
    assert kind(b'  \n[{"a": 1}, {"a": 2}]\n') == "json"


def test_ndjson_is_json():
    assert kind(b'{"level":"info","msg":"a"}\n{"level":"error","msg":"b"}\n{"level":"info","msg":"c"}\n') == "json"


def test_log_lines_with_braces_are_not_json():
    raw = b"".join(b'2024-05-01 10:00:%02d INFO payload {"user": %d, "ok": true}\n' % (i, i) for i in range(10))
    assert kind(raw) == "log"
    bracketed = b"".join(b'[2024-05-01 10:00:%02d] INFO {"user": %d}\n' % (i, i) for i in range(10))
    assert kind(bracketed) == "log"


def test_broken_json_is_not_json():
    assert kind(b'{"id": 7, "status": "failed", "items": [1, 2, 3\n') != "json"


# --- diff ----------------------------------------------------------------------------------------


def test_git_diff_and_plain_unified_diff():
    assert kind(GIT_DIFF) == "diff"
    plain = b"--- old.txt\t2024-01-01 10:00:00 +0100\n+++ new.txt\t2024-01-01 10:01:00 +0100\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    assert kind(plain) == "diff"
    # a commit with its patch (git show, git log -p) is a commit: the gitlog type reduces its patch as a diff
    assert kind(b"commit 0123456789abcdef\nAuthor: A <a@b>\n\n    fix\n\n" + GIT_DIFF) == "gitlog"


@pytest.mark.parametrize("preamble", [
    b"Author: A Person <a@example.org>\nDate:   Sun Jun 22 01:15:05 2014 -0700\n\n    Fix the build\n\n",  # git log -p --format
    b"\n# HG changeset patch\n# User B <b@example.org>\n# Date 1302190091 14400\n# Node ID bd0f73a9538e\n\nFix\n\n",
    b"From: C <c@example.org>\nDate: Wed, 15 Dec 2021 23:12:36 -0800\nSubject: [PATCH] port it\n\nBody text.\n---\n",
])
def test_diff_with_a_commit_or_mail_preamble(preamble):
    assert kind(preamble + GIT_DIFF) == "diff"
    plain = b"--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    assert kind(preamble + plain) == "diff"


def test_mode_only_and_binary_only_git_diffs():
    assert kind(b"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n") == "diff"
    assert kind(b"diff --git a/x.png b/x.png\nindex 1111111..2222222 100644\nBinary files a/x.png and b/x.png differ\n") == "diff"


def test_diff_embedded_in_a_log_is_not_a_diff():
    assert kind(LOG + GIT_DIFF + LOG) == "log"


def test_prose_mentioning_diff_markers_is_not_a_diff():
    raw = PROSE + b"Lines starting with --- and +++ name the files; @@ marks a hunk.\n"
    assert kind(raw) == "text"


# --- file list -----------------------------------------------------------------------------------


def test_listing_is_filelist():
    assert kind(b"src/a.php\nsrc/b.php\nsrc/Security/AuthGuard.php\nREADME.md\n") == "filelist"
    assert kind(b".\n./src\n./src/main.c\n./include/main.h\n./Makefile\n") == "filelist"


def test_listing_with_unicode_spaces_and_brackets_is_filelist():
    raw = "docs/Überblick.md\npublic/uploads/Rechnung März 2024.pdf\napp/[slug]/page.tsx\napp/(auth)/login/page.tsx\n"
    assert kind(raw.encode()) == "filelist"


def test_windows_listing_is_filelist():
    assert kind(b"C:\\proj\\src\\a.cs\r\nC:\\proj\\src\\b.cs\r\nC:\\proj\\README.md\r\n") == "filelist"


def test_short_prose_lines_and_urls_are_not_filelist():
    assert kind(b"This is fine.\nWe went home.\nThe end is near.\nHello world.\n") == "text"
    assert kind(b"Use input/output wisely.\nRead and/or write files.\nThe client/server model works.\n") == "text"
    assert kind(b"https://example.com/a/b\nhttps://example.com/c\nhttps://example.org/x.html\n") == "text"


# --- log, build, text ----------------------------------------------------------------------------


def test_log_is_log():
    assert kind(LOG) == "log"
    syslog = b"".join(b"May  1 10:00:%02d host sshd[42]: Accepted publickey for u%d\n" % (i, i) for i in range(10))
    assert kind(syslog) == "log"


def test_build_output_is_build():
    pytest_out = b"============ test session starts ============\ncollected 3 items\n\nFAILED tests/t.py::test_a - x\n"
    assert kind(pytest_out) == "build"
    pip_out = b"Collecting a==1 (from -r r.txt)\nCollecting b==2 (from -r r.txt)\nSuccessfully installed a b\n"
    assert kind(pip_out) == "build"
    ansi_pip = b"\x1b[?25hCollecting a==1 (from -r r.txt)\n\x1b[?25hCollecting b==2 (from -r r.txt)\nSuccessfully installed a b\n"
    assert kind(ansi_pip) == "build"


def test_prose_is_text():
    assert kind(PROSE) == "text"
    assert kind((FIXTURES / "sample.txt").read_bytes()) == "text"


def test_empty_and_binary_are_text():
    assert kind(b"") == "text"
    assert kind(b"  \n\n\t\n") == "text"
    assert kind(b"\x00\x01\x02PK\x03\x04" * 100) == "text"


# --- forced type ---------------------------------------------------------------------------------


@pytest.mark.parametrize("forced", ["log", "json", "diff", "filelist", "text", "build"])
def test_forced_type_wins(forced):
    for raw in (LOG, GIT_DIFF, PROSE, b'{"a": 1}'):
        t, reason = classify(raw, forced)
        assert t == forced and "forced" in reason


def test_fixtures_classify_as_their_kind():
    expected = {"sample.diff": "diff", "sample.filelist": "filelist", "sample.txt": "text", "sample.log": "log"}
    for name, t in expected.items():
        path = FIXTURES / name
        if path.exists():
            assert kind(path.read_bytes()) == t, name


def test_a_detector_that_raises_says_no_and_is_named_in_the_reason(monkeypatch):
    """A bug in one type's detector (a plugin's, say) never stops a run: that type says no, the input
    goes on to the next ones, and the reason names the failure."""
    from types import SimpleNamespace

    import operators.types

    real = operators.types.registry_of

    def broken(sample):
        raise ValueError("boom")

    fake = SimpleNamespace(name="broken", detect=broken)
    monkeypatch.setattr(operators.types, "registry_of", lambda config=None: [fake, *real(config)])
    assert classify(b'{"id": 1, "status": "ok"}\n')[0] == "json"
    kind, reason = classify(b"plain words and nothing else\n" * 3)
    assert kind == "text" and "detector failed: broken (ValueError: boom)" in reason


def test_json_with_an_escaped_lone_surrogate_is_json():
    """The grammar allows ``"\\uD800"`` (URL and Unicode test suites carry them); msgspec refuses it, so
    the classifier's own validator decides, and the reducer copes."""
    raw = b'[\n  {"input": "http://example.com/\\uD800?q\\uDFFF", "failure": true},\n' + \
          b"".join(b'  {"input": "http://h%d/", "href": "http://h%d/"},\n' % (i, i) for i in range(200)) + b'  {"end": 1}\n]\n'
    assert classify(raw)[0] == "json"
    packet = reduce_bytes(raw)
    assert packet.type == "json" and packet.restore_pass and len(packet.visible) < len(raw)
