"""Deposits and downloads against a real S3-compatible server: moto in server mode on loopback.

Nothing is mocked inside boto3: django-storages speaks HTTP to a server on 127.0.0.1, as it
would to S3 or MinIO in production.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import boto3
import httpx
import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.utils import timezone
from moto.server import ThreadedMotoServer
from storages.backends.s3 import S3Storage

from archive.deposit import pending, services, storage
from archive.models import DailyAccessCount, ItemFile, PendingUpload
from tests import factories as make
from tests.servers import migrated_template

pytestmark = pytest.mark.django_db
REGION = "us-east-1"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def s3_endpoint():
    """moto's server in a thread of this process, or the separate one .ci/run starts."""
    external = os.environ.get("IBI_TEST_S3_ENDPOINT")
    if external:
        yield external
        return
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def bucket(s3_endpoint, settings, monkeypatch, media):
    """A fresh bucket as the default storage (after conftest's `media` set the local one)."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test-key-id")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    name = f"ibi-{uuid.uuid4().hex[:16]}"
    client = boto3.client("s3", endpoint_url=s3_endpoint, region_name=REGION)
    client.create_bucket(Bucket=name)
    settings.STORAGES = {**settings.STORAGES, "default": {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {"bucket_name": name, "endpoint_url": s3_endpoint, "region_name": REGION,
                    "signature_version": "s3v4", "addressing_style": "path",
                    "file_overwrite": False, "default_acl": None,
                    "querystring_auth": True, "querystring_expire": 300},
    }}
    assert isinstance(default_storage, S3Storage)
    return client, name


def keys(bucket) -> list[str]:
    client, name = bucket
    return sorted(o["Key"] for o in client.list_objects_v2(Bucket=name).get("Contents", []))


def fetch(bucket, key: str) -> bytes:
    client, name = bucket
    return client.get_object(Bucket=name, Key=key)["Body"].read()


def test_a_deposit_lands_under_the_uniform_repository_key(bucket):
    data = b"%PDF-1.4 on s3\n"
    item = make.item(("report.pdf", data, "application/pdf"), ("Relatório Final.pdf", b"x", ""),
                     title="On S3")
    assert keys(bucket) == sorted([f"col/{item.ibi}/doc/report.pdf",
                                   f"col/{item.ibi}/doc/Relatório Final.pdf"])
    stored = fetch(bucket, f"col/{item.ibi}/doc/report.pdf")
    assert stored == data
    row = item.files.get(name="report.pdf")
    assert row.sha256 == hashlib.sha256(stored).hexdigest() and row.size == len(data)


def test_a_file_larger_than_one_multipart_chunk_keeps_its_checksum(bucket, tmp_path):
    big = tmp_path / "big.bin"
    with big.open("wb") as out:
        for _ in range(10):  # 10 MiB: above boto3's 8 MiB multipart threshold
            out.write(os.urandom(1024 * 1024))
    with big.open("rb") as fh:
        item = services.item_deposit(title="Big", uploads=[services.Upload("big.bin", fh)])
    row = item.files.get()
    assert row.size == 10 * 1024 * 1024
    stored = fetch(bucket, storage.file_key(item.ibi, row.name))
    assert hashlib.sha256(stored).hexdigest() == row.sha256 == hashlib.sha256(
        big.read_bytes()).hexdigest()


def test_nothing_is_ever_overwritten(bucket):
    item = make.item(("a.txt", b"first", "text/plain"), title="On S3")
    with pytest.raises(storage.StorageConflict):
        storage.store(item.ibi, "a.txt", io.BytesIO(b"second"))
    # Bytes already in the bucket under a name the database does not know yet.
    client, name = bucket
    client.put_object(Bucket=name, Key=f"col/{item.ibi}/doc/b.txt", Body=b"already there")
    with pytest.raises(services.Conflict):
        services.item_add_files(item=item, uploads=[services.Upload("b.txt", io.BytesIO(b"new"))])
    assert fetch(bucket, f"col/{item.ibi}/doc/a.txt") == b"first"
    assert fetch(bucket, f"col/{item.ibi}/doc/b.txt") == b"already there"
    assert not ItemFile.objects.filter(item=item, name="b.txt").exists()


def test_a_failed_commit_leaves_no_orphan_object(bucket, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("database went away")

    monkeypatch.setattr(ItemFile.objects, "bulk_create", broken)
    with pytest.raises(RuntimeError):
        make.item(("a.txt", b"orphan?", "text/plain"), title="On S3")
    assert keys(bucket) == []


def test_listdir_sees_the_item_folder(bucket):
    item = make.item(("b.txt", b"b", "text/plain"), ("a.txt", b"a", "text/plain"), title="On S3")
    assert storage.list_folder(item.ibi) == ["a.txt", "b.txt"]
    dirs, _files = default_storage.listdir(f"col/{item.ibi}")
    assert dirs == ["doc"]
    assert storage.list_folder("sid.inpe.br/none/2020/01.01.00.00") == []


def test_a_download_redirects_to_a_short_lived_presigned_url_of_our_bucket(
        reader, bucket, s3_endpoint):
    data = bytes(range(256)) * 8
    item = make.item(("data file.pdf", data, "application/pdf"), title="On S3")
    response = reader.get(f"/col/{item.ibi}/doc/{quote('data file.pdf')}")
    assert response.status_code == 302
    assert response["Cache-Control"] == "private, no-store"
    location = response["Location"]
    parts = urlsplit(location)
    assert f"{parts.scheme}://{parts.netloc}" == s3_endpoint
    assert parts.path == f"/{bucket[1]}/col/{item.ibi}/doc/data%20file.pdf"
    query = parse_qs(parts.query)
    assert query["X-Amz-Expires"] == ["300"] and "X-Amz-Signature" in query

    fetched = httpx.get(location)
    assert fetched.status_code == 200
    assert fetched.content == data
    assert fetched.headers["content-type"] == "application/pdf"
    assert fetched.headers["content-disposition"] == 'inline; filename="data file.pdf"'
    partial = httpx.get(location, headers={"Range": "bytes=4-7"})
    assert partial.status_code == 206 and partial.content == data[4:8]

    # The signature covers the URL: a tampered key is refused by the server itself.
    tampered = location.replace("data%20file.pdf", "other.pdf")
    assert httpx.get(tampered).status_code == 403
    assert make.counts(item.pk)["downloads"] == 1


def test_a_closed_file_on_s3_is_a_403_with_no_presigned_url_but_to_a_librarian(
        reader, librarian_client, bucket, s3_endpoint):
    """An embargoed file (#26) in the bucket: the reader gets the 403 page offering access,
    never a redirect to a signed URL that would serve its bytes; a librarian is redirected."""
    from datetime import timedelta

    from django.utils import timezone

    from archive.deposit import services

    data = b"%PDF-1.4 embargoed on S3\n"
    item = make.item(("tese.pdf", data, "application/pdf"), title="Embargoed on S3",
                     access=services.Access("embargoed",
                                            timezone.localdate() + timedelta(days=30)))
    path = f"/col/{item.ibi}/doc/tese.pdf"

    closed = reader.get(path)
    assert closed.status_code == 403 and "Location" not in closed
    assert s3_endpoint not in closed.content.decode() and "X-Amz" not in closed.content.decode()
    opened = librarian_client.get(path, secure=True)
    assert opened.status_code == 302 and opened["Location"].startswith(s3_endpoint)
    assert httpx.get(opened["Location"]).content == data


def test_html_on_s3_is_still_an_attachment(client, bucket):
    item = make.item(("page.html", b"<script>alert(1)</script>", "text/html"), title="On S3")
    location = client.get(f"/col/{item.ibi}/doc/page.html")["Location"]
    fetched = httpx.get(location)
    assert fetched.headers["content-disposition"] == 'attachment; filename="page.html"'


def test_head_304_and_410_are_answered_without_the_bucket(client, bucket):
    item = make.item(("a.txt", b"abc", "text/plain"), title="On S3")
    url = f"/col/{item.ibi}/doc/a.txt"
    head = client.head(url)
    assert head.status_code == 200 and head["Content-Length"] == "3"
    etag = head["ETag"]
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 304
    services.item_delete(item=item)
    assert client.get(url).status_code == 410
    assert make.counts(item.pk)["total"] == 0 and not DailyAccessCount.objects.exists()


SETTINGS_SCRIPT = """
import io, json, django
django.setup()
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.utils import timezone
from django.test import Client
from archive.deposit import services, storage
call_command("migrate", verbosity=0)
item = services.item_deposit(title="Env", uploads=[
    services.Upload("env.txt", io.BytesIO(b"configured by the environment"), "text/plain")])
response = Client().get(f"/col/{item.ibi}/doc/env.txt")
print(json.dumps({"backend": type(default_storage._wrapped).__name__,
                  "key": storage.file_key(item.ibi, "env.txt"), "status": response.status_code,
                  "location": response["Location"]}))
"""


def test_the_environment_alone_switches_the_deposit_and_downloads_to_s3(bucket, s3_endpoint,
                                                                        tmp_path):
    """settings.py's own S3 block, as production reads it, in a fresh process (on a copy of
    the migrated schema: its `migrate` makes only the archive service)."""
    shutil.copyfile(migrated_template(), tmp_path / "env.sqlite3")
    env = {name: value for name, value in os.environ.items() if name != "CELERY_BROKER_URL"}
    env |= {"DJANGO_SETTINGS_MODULE": "ibirepo.settings",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'env.sqlite3'}",
            "AWS_STORAGE_BUCKET_NAME": bucket[1], "AWS_S3_ENDPOINT_URL": s3_endpoint,
            "AWS_S3_REGION_NAME": REGION, "AWS_S3_ADDRESSING_STYLE": "path",
            "AWS_QUERYSTRING_EXPIRE": "60"}
    done = subprocess.run([sys.executable, "-c", SETTINGS_SCRIPT], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["backend"] == "S3Storage"
    assert keys(bucket) == [result["key"]]
    assert result["status"] == 302
    query = parse_qs(urlsplit(result["location"]).query)
    assert query["X-Amz-Expires"] == ["60"] and query["X-Amz-Algorithm"] == ["AWS4-HMAC-SHA256"]
    assert httpx.get(result["location"]).content == b"configured by the environment"


# -- Resumable uploads on S3: an S3 multipart upload behind tus (archive/deposit/pending.py) ----

MIB = 1024 * 1024


def multipart_uploads(bucket) -> list[str]:
    client, name = bucket
    return [u["Key"] for u in client.list_multipart_uploads(Bucket=name).get("Uploads", [])]


def test_a_resumable_upload_waits_in_the_bucket_as_a_multipart_upload_and_resumes(
        bucket, librarian, librarian_api, django_capture_on_commit_callbacks):
    data = os.urandom(2 * pending.PART_SIZE + 3 * MIB + 17)
    upload = pending.create(owner=librarian, name="Relatório — dados.bin", length=len(data))
    key = pending.s3_key(upload)
    # 3 MiB: less than a part, it waits as the tail; nothing is in col/.
    upload = pending.receive(upload, offset=0, stream=io.BytesIO(data[:3 * MIB]),
                             count=3 * MIB)
    assert upload.offset == 3 * MIB and upload.parts == []
    assert keys(bucket) == [f"{key}.tail"] and multipart_uploads(bucket) == [key]
    # A request cut after 6 more MiB (its Content-Length said more): a part sent, 1 MiB of tail.
    upload = pending.receive(upload, offset=3 * MIB, stream=io.BytesIO(data[3 * MIB:9 * MIB]),
                             count=len(data) - 3 * MIB)
    assert upload.offset == 9 * MIB and [p[2] for p in upload.parts] == [pending.PART_SIZE]
    assert fetch(bucket, f"{key}.tail") == data[pending.PART_SIZE:9 * MIB]
    # Resumed from there to the end: completed, hashed, still outside col/.
    upload = pending.receive(upload, offset=9 * MIB, stream=io.BytesIO(data[9 * MIB:]),
                             count=len(data) - 9 * MIB)
    assert upload.sha256 == hashlib.sha256(data).hexdigest()
    assert keys(bucket) == [key] and fetch(bucket, key) == data
    assert multipart_uploads(bucket) == []

    with django_capture_on_commit_callbacks(execute=True):
        response = librarian_api.post("/api/items/", {"title": "No balde",
                                                      "uploads": [str(upload.id)]},
                                      format="multipart", secure=True)
    assert response.status_code == 201, response.content
    stored = f"col/{response.json()['ibi']}/doc/Relatório — dados.bin"
    assert keys(bucket) == [stored]  # copied inside the bucket; the upload's object gone
    assert hashlib.sha256(fetch(bucket, stored)).hexdigest() == hashlib.sha256(data).hexdigest()
    assert not PendingUpload.objects.exists()


def test_an_abandoned_upload_in_the_bucket_is_swept_multipart_and_all(bucket, librarian):
    upload = pending.create(owner=librarian, name="abandonado.bin", length=20 * MIB)
    pending.receive(upload, offset=0, stream=io.BytesIO(os.urandom(9 * MIB)), count=9 * MIB)
    assert multipart_uploads(bucket) and keys(bucket)
    PendingUpload.objects.update(expires=timezone.now())
    call_command("fsck")
    assert multipart_uploads(bucket) == [] and keys(bucket) == []
    assert not PendingUpload.objects.exists()


def test_a_form_sent_back_keeps_its_files_in_the_bucket(bucket, librarian_client,
                                                       django_capture_on_commit_callbacks):
    sent_back = make.admin_deposit(librarian_client, ("anexo.pdf", b"%PDF-1.4 kept"),
                                   title="Guardado", dc_date="ontem")
    assert sent_back.status_code == 200
    kept = PendingUpload.objects.get()
    assert keys(bucket) == [pending.s3_key(kept)]  # in uploads/, never under col/
    with django_capture_on_commit_callbacks(execute=True):
        saved = librarian_client.post("/admin/archive/item/add/", {
            "title": "Guardado", "transferable": "on", "pending": [str(kept.id)]}, secure=True)
    assert saved.status_code == 302
    item = ItemFile.objects.get(name="anexo.pdf").item
    assert keys(bucket) == [f"col/{item.ibi}/doc/anexo.pdf"]
    assert fetch(bucket, f"col/{item.ibi}/doc/anexo.pdf") == b"%PDF-1.4 kept"


def test_a_waiting_upload_is_read_by_the_checks_from_a_local_copy_removed_after(
        bucket, librarian, settings):
    """The checks before review (#35, 6) run tools that read files: with S3, the upload's
    bytes are copied beside the upload folder for them, and the copy goes once read."""
    from archive.review import tools

    upload = make.pending_upload(librarian, ("foto.pdf", make.png()))
    assert keys(bucket) == [pending.s3_key(upload)]
    with pending.local_path(upload) as path:
        assert path.read_bytes() == make.png()
        assert tools.identify(path).puid == "fmt/11"
    assert not path.exists()
    assert list(Path(settings.FILE_UPLOAD_TEMP_DIR).glob("check-*")) == []
