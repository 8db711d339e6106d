"""`manage.py fsck`: missing files, size mismatches and orphans; --fix-orphans."""
from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import time

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command

from archive.deposit import storage
from tests import factories as make
from tests.servers import ROOT, LiveServers, _python
from tests.test_s3 import bucket, keys, s3_endpoint  # noqa: F401  (the loopback S3 fixtures)

pytestmark = pytest.mark.django_db


@pytest.fixture
def item():
    return make.item(("report.pdf", b"%PDF report"), ("data.csv", b"1,2\n"), title="Report")


def fsck(*args) -> tuple[str, CommandError | None]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("fsck", *args, stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def test_a_consistent_archive_has_no_problems(item):
    out, failed = fsck()
    assert failed is None
    assert "2 files recorded, 2 stored: 0 problems" in out


def test_it_finds_a_file_missing_from_storage(item):
    default_storage.delete(storage.file_key(item.ibi, "data.csv"))
    out, failed = fsck()
    assert f"missing  col/{item.ibi}/doc/data.csv" in out
    assert "1 problems" in out and failed is not None


def test_it_finds_a_size_mismatch(item):
    key = storage.file_key(item.ibi, "data.csv")
    default_storage.delete(key)
    default_storage.save(key, ContentFile(b"1,2,3\n"))
    out, failed = fsck()
    assert f"size     {key}: 6 bytes stored, 4 recorded" in out and failed is not None


@pytest.fixture
def orphans(item):
    """One orphan in the item's own folder, one under an IBI no item has (a crashed deposit)."""
    beside = storage.file_key(item.ibi, "left-over.tmp")
    crashed = storage.file_key("archive.localhost/archive/2001/01.01.00.00.01", "lost.pdf")
    for key in (beside, crashed):
        default_storage.save(key, ContentFile(b"orphan"))
    return beside, crashed


def test_it_finds_orphan_files(orphans):
    beside, crashed = orphans
    out, failed = fsck()
    assert f"orphan   {beside} (its item exists)" in out
    assert f"orphan   {crashed} (no item has this IBI)" in out
    assert "2 problems" in out and failed is not None
    assert default_storage.exists(beside) and default_storage.exists(crashed)


def test_fix_orphans_keeps_recent_ones_a_deposit_may_still_commit(orphans):
    _out, failed = fsck("--fix-orphans")
    assert failed is not None
    assert all(default_storage.exists(key) for key in orphans)


def test_fix_orphans_removes_the_orphans_only(item, orphans, media):
    out, failed = fsck("--fix-orphans", "--min-age", "0")
    assert failed is None and "2 orphans removed" in out
    assert not any(default_storage.exists(key) for key in orphans)
    assert storage.list_folder(item.ibi) == ["data.csv", "report.pdf"]
    with storage.open_file(item.ibi, "report.pdf") as f:
        assert f.read() == b"%PDF report"
    # The crashed deposit's folders went with its last file.
    assert not (media / "col" / "archive.localhost").exists()
    out, failed = fsck()
    assert failed is None and "0 problems" in out


def test_it_walks_s3_as_it_walks_the_disk(request):
    s3 = request.getfixturevalue("bucket")
    item = make.item(("a.txt", b"a"), ("b.txt", b"b"), title="On S3")
    default_storage.delete(storage.file_key(item.ibi, "b.txt"))
    orphan = storage.file_key("archive.localhost/archive/2001/01.01.00.00.01", "lost.pdf")
    default_storage.save(orphan, ContentFile(b"orphan"))
    out, failed = fsck("--fix-orphans", "--min-age", "0")
    assert f"missing  col/{item.ibi}/doc/b.txt" in out and failed is not None
    assert f"removed  {orphan} (no item has this IBI)" in out
    assert keys(s3) == [storage.file_key(item.ibi, "a.txt")]


# -- Uploads left by a killed process ---------------------------------------------------------

def test_a_server_killed_mid_upload_leaves_its_temp_file_in_our_folder_and_fsck_sweeps_it(
        tmp_path):
    with LiveServers(tmp_path) as servers:
        server = servers.prepare("killed")
        token = server.librarian_token()
        uploads = server.root / "upload-tmp"  # beside MEDIA_ROOT: the default
        server.start("runserver")
        assert sorted(uploads.iterdir()) == []

        boundary = "kill-boundary"
        head = (f'--{boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nBig\r\n'
                f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
                f'filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n').encode()
        length = len(head) + 50 * 1024 * 1024  # announced, never all sent
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall((f"POST /api/items/ HTTP/1.1\r\nHost: {server.address}\r\n"
                          f"Authorization: Token {token}\r\n"
                          f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
                          f"Content-Length: {length}\r\n\r\n").encode() + head)
            deadline = time.monotonic() + 30
            left: list = []
            while not left:  # poll until the upload has reached the disk
                sock.sendall(b"\x00" * 256 * 1024)
                left = [p for p in uploads.iterdir() if p.stat().st_size > 0]
                assert time.monotonic() < deadline, server.log.read_text()[-2000:]
            server.process.send_signal(signal.SIGKILL)
            server.process.wait(timeout=20)

        assert server.process.returncode == -signal.SIGKILL
        assert [p.name for p in uploads.iterdir()] == [left[0].name]
        assert left[0].name.endswith(".upload.bin")

        young = server.manage("fsck", check=False).stdout
        assert "0 stale uploads swept" in young and left[0].exists()  # --min-age 3600
        swept = server.manage("fsck", "--min-age", "0", check=False)
        assert f"swept    {left[0]} (" in swept.stdout
        assert "1 stale uploads swept" in swept.stdout and swept.returncode == 0
        assert list(uploads.iterdir()) == []


def test_the_upload_folder_can_be_chosen_and_is_created_at_start(tmp_path):
    chosen = tmp_path / "elsewhere" / "uploads"
    env = {**os.environ, "DEBUG": "1", "IBI_UPLOAD_TEMP_DIR": str(chosen),
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    code = "from django.conf import settings; print(settings.FILE_UPLOAD_TEMP_DIR)"
    done = subprocess.run([_python(), "manage.py", "shell", "-v", "0", "-c", code],
                          capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert done.stdout.strip() == str(chosen) and chosen.is_dir()
