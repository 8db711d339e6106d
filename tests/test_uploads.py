"""Resumable uploads: the tus 1.0 protocol at /api/uploads/ (archive/api/views/uploads.py) and
the pending uploads behind it (archive/deposit/pending.py), read by tuspy, a real tus client.

An upload cut at any byte resumes from the last byte the server holds; the size limit is
checked before the first byte; abandoned uploads expire and `fsck` sweeps them; a deposit names
complete uploads, which then go, and nothing partial ever lands in col/.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import socket
import threading
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.authtoken.models import Token
from tusclient.client import TusClient

from archive.deposit import pending, services, storage
from archive.models import Item, PendingUpload
from tests import factories as make
from tests.faults import SmallFilesystem

TUS = {"HTTP_TUS_RESUMABLE": "1.0.0"}
UPLOADS = "/api/uploads/"
OFFSET_STREAM = "application/offset+octet-stream"
DATA = os.urandom(3 * pending.CHUNK + 12345)


def metadata(name: str, kind: str = "") -> str:
    pairs = [("filename", name), *([("filetype", kind)] if kind else [])]
    return ",".join(f"{key} {base64.b64encode(value.encode()).decode()}" for key, value in pairs)


def created(api, name: str = "dados.bin", length: int = len(DATA), **headers):
    return api.post(UPLOADS, secure=True, **TUS, HTTP_UPLOAD_LENGTH=str(length),
                    HTTP_UPLOAD_METADATA=metadata(name), **headers)


def patched(api, url: str, data: bytes, offset: int, **headers):
    return api.generic("PATCH", url, data, OFFSET_STREAM, secure=True,
                       **{**TUS, "HTTP_UPLOAD_OFFSET": str(offset), **headers})


def tus(live_site, librarian) -> TusClient:
    token = Token.objects.get_or_create(user=librarian)[0].key
    return TusClient(f"{live_site.url}{UPLOADS}", headers={"Authorization": f"Token {token}"})


def pending_files() -> list[str]:
    return sorted(p.name for p in pending.folder().iterdir()) if pending.folder().exists() else []


# -- With tuspy, on a live server ----------------------------------------------------------------

def test_tuspy_uploads_in_several_requests_and_a_deposit_names_the_upload(
        live_site, librarian, librarian_api):
    uploader = tus(live_site, librarian).uploader(
        file_stream=io.BytesIO(DATA), chunk_size=pending.CHUNK + 1,
        metadata={"filename": "Relatório — dados.bin"})
    uploader.upload()
    upload = PendingUpload.objects.get()
    assert (upload.name, upload.offset, upload.length) == ("Relatório — dados.bin", len(DATA),
                                                          len(DATA))
    assert upload.sha256 == hashlib.sha256(DATA).hexdigest()
    assert Path(pending.path_of(upload)).read_bytes() == DATA

    api = librarian_api
    response = api.post("/api/items/", {"title": "Grande", "uploads": [str(upload.id)]},
                        format="multipart", secure=True)
    assert response.status_code == 201, response.content
    item = Item.objects.get(title="Grande")
    row = item.files.get()
    assert (row.name, row.size, row.sha256) == ("Relatório — dados.bin", len(DATA),
                                                hashlib.sha256(DATA).hexdigest())
    assert storage.open_file(item.ibi, row.name).read() == DATA
    # The upload is gone with its bytes: deposited once, never twice.
    assert not PendingUpload.objects.exists() and pending_files() == []
    again = api.post("/api/items/", {"title": "De novo", "uploads": [str(upload.id)]},
                     format="multipart", secure=True)
    assert again.status_code == 400 and again.json() == {
        "detail": f"no such upload: {upload.id}"}


def cut(live_site, librarian, url: str, sent: int) -> None:
    """A PATCH of the whole file whose connection drops after `sent` bytes of its body, once
    the server has answered it."""
    token = Token.objects.get_or_create(user=librarian)[0].key
    parts = urlsplit(live_site.url)
    head = (f"PATCH {urlsplit(url).path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Authorization: Token {token}\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\n"
            f"Content-Type: {OFFSET_STREAM}\r\nContent-Length: {len(DATA)}\r\n\r\n")
    with socket.create_connection((parts.hostname, parts.port)) as sock:
        sock.sendall(head.encode() + DATA[:sent])
        sock.shutdown(socket.SHUT_WR)
        sock.makefile("rb").readline()  # its answer: the request has ended


@pytest.mark.parametrize("sent", [0, 1, pending.CHUNK - 1, pending.CHUNK + 1, len(DATA) - 1])
def test_an_upload_cut_at_any_byte_resumes_from_the_last_byte_the_server_has(
        live_site, librarian, sent):
    client = tus(live_site, librarian)
    uploader = client.uploader(file_stream=io.BytesIO(DATA),
                               metadata={"filename": "cortado.bin"})
    url = uploader.create_url()  # created, nothing sent yet
    cut(live_site, librarian, url, sent)
    upload = make.wait_until(lambda: PendingUpload.objects.filter(
        offset=sent, busy_until__isnull=True).first(), what=f"{sent} bytes held")
    assert Path(pending.path_of(upload)).read_bytes() == DATA[:sent]

    resumed = client.uploader(file_stream=io.BytesIO(DATA), url=url)
    assert resumed.offset == sent  # tuspy asked the server (HEAD)
    resumed.upload()
    upload.refresh_from_db()
    assert upload.offset == len(DATA) and upload.sha256 == hashlib.sha256(DATA).hexdigest()
    assert Path(pending.path_of(upload)).read_bytes() == DATA


# -- The protocol, request by request ----------------------------------------------------------

@pytest.fixture
def api(librarian):
    return make.token_client(librarian)


def test_creation_answers_the_location_the_offset_and_the_expiry(api, settings):
    response = created(api)
    assert response.status_code == 201, response.content
    upload = PendingUpload.objects.get()
    assert response["Location"] == f"https://testserver/api/uploads/{upload.id}"
    assert response["Tus-Resumable"] == "1.0.0"
    assert (response["Upload-Offset"], response["Upload-Length"]) == ("0", str(len(DATA)))
    assert response["Upload-Expires"].endswith(" GMT")
    assert timedelta(seconds=settings.IBI_UPLOAD_EXPIRY - 60) < (
        upload.expires - timezone.now()) <= timedelta(seconds=settings.IBI_UPLOAD_EXPIRY)
    assert pending_files() == [str(upload.id)]


def test_the_size_limit_is_checked_before_the_first_byte(api, settings):
    settings.IBI_MAX_FILE_SIZE = len(DATA) - 1
    response = created(api)
    assert response.status_code == 413
    assert response.json() == {"detail": f"dados.bin is larger than {len(DATA) - 1} bytes"}
    assert not PendingUpload.objects.exists() and pending_files() == []
    assert created(api, length=len(DATA) - 1).status_code == 201


def test_discovery_says_the_version_the_extensions_and_the_limit(anonymous_api, settings):
    response = anonymous_api.options(UPLOADS, secure=True)
    assert response.status_code == 204
    assert response["Tus-Version"] == "1.0.0"
    assert response["Tus-Extension"] == "creation,expiration,termination"
    assert response["Tus-Max-Size"] == str(settings.IBI_MAX_FILE_SIZE)


def test_every_request_but_discovery_must_speak_tus_1_0_0(api):
    response = api.post(UPLOADS, secure=True, HTTP_UPLOAD_LENGTH="3",
                        HTTP_UPLOAD_METADATA=metadata("a.txt"), HTTP_TUS_RESUMABLE="0.2.2")
    assert response.status_code == 412 and response["Tus-Version"] == "1.0.0"
    assert not PendingUpload.objects.exists()


@pytest.mark.parametrize(("headers", "detail"), [
    ({"HTTP_UPLOAD_METADATA": metadata("a.txt")}, "Upload-Length must be a number of bytes"),
    ({"HTTP_UPLOAD_LENGTH": "-3", "HTTP_UPLOAD_METADATA": metadata("a.txt")},
     "Upload-Length must be a number of bytes"),
    ({"HTTP_UPLOAD_LENGTH": "3"}, "Upload-Metadata must name the file (filename)"),
    ({"HTTP_UPLOAD_LENGTH": "3", "HTTP_UPLOAD_METADATA": "filename ###"},
     "Upload-Metadata: the value of filename is not UTF-8 text in base64"),
    ({"HTTP_UPLOAD_LENGTH": "3", "HTTP_UPLOAD_METADATA": metadata("a\u202etxt.exe")},
     "file names must not contain control or bidirectional characters"),
])
def test_a_bad_creation_is_a_400_that_creates_nothing(api, headers, detail):
    response = api.post(UPLOADS, secure=True, **TUS, **headers)
    assert response.status_code == 400 and response.json() == {"detail": detail}
    assert not PendingUpload.objects.exists() and pending_files() == []


def test_a_path_in_the_name_is_reduced_to_a_bare_file_name(api):
    assert created(api, name="../../etc/passwd").status_code == 201
    assert PendingUpload.objects.get().name == "passwd"


def test_bytes_go_at_the_offset_the_server_holds_and_nowhere_else(api):
    url = created(api)["Location"]
    first = patched(api, url, DATA[:100], 0)
    assert first.status_code == 204 and first["Upload-Offset"] == "100"
    assert api.head(url, secure=True, **TUS)["Upload-Offset"] == "100"
    stale = patched(api, url, DATA[:100], 0)
    assert stale.status_code == 409
    assert stale.json() == {"detail": "the upload holds 100 bytes, not 0: resume from its "
                                      "Upload-Offset"}
    assert patched(api, url, b"x", len(DATA) + 5).status_code == 409
    assert patched(api, url, DATA[100:] + b"x", 100).status_code == 413
    wrong = api.generic("PATCH", url, DATA[100:], "application/octet-stream", secure=True,
                        **TUS, HTTP_UPLOAD_OFFSET="100")
    assert wrong.status_code == 415
    done = patched(api, url, DATA[100:], 100)
    assert done.status_code == 204 and done["Upload-Offset"] == str(len(DATA))
    state = api.get(url, secure=True, **TUS).json()
    assert state["complete"] and state["sha256"] == hashlib.sha256(DATA).hexdigest()
    assert patched(api, url, b"more", len(DATA)).status_code == 409


def test_a_request_while_another_writes_the_upload_is_locked_out(api):
    url = created(api)["Location"]
    PendingUpload.objects.update(busy_until=timezone.now() + pending.LEASE)
    response = patched(api, url, DATA[:10], 0)
    assert response.status_code == 423
    assert PendingUpload.objects.get().offset == 0
    # A lease a killed server never gave back runs out.
    PendingUpload.objects.update(busy_until=timezone.now() - timedelta(seconds=1))
    assert patched(api, url, DATA[:10], 0).status_code == 204


def test_an_upload_is_its_owners_alone(api, django_user_model):
    url = created(api)["Location"]
    other = django_user_model.objects.create_user("other", is_staff=True)
    other.groups.add(services.ensure_librarians_group())
    stranger = make.token_client(other)
    assert stranger.head(url, secure=True, **TUS).status_code == 404
    assert patched(stranger, url, DATA[:10], 0).status_code == 404
    assert stranger.delete(url, secure=True, **TUS).status_code == 404
    assert PendingUpload.objects.get().offset == 0


def test_only_a_librarian_uploads(anonymous_api, reader, django_user_model):
    assert created(anonymous_api).status_code == 401
    nobody = make.token_client(django_user_model.objects.create_user("reader"))
    assert created(nobody).status_code == 403
    assert not PendingUpload.objects.exists()


def test_termination_removes_the_upload_and_its_bytes(api):
    url = created(api)["Location"]
    patched(api, url, DATA[:10], 0)
    response = api.delete(url, secure=True, **TUS)
    assert response.status_code == 204
    assert not PendingUpload.objects.exists() and pending_files() == []
    assert api.head(url, secure=True, **TUS).status_code == 404


def test_an_unfinished_upload_cannot_be_deposited(api):
    url = created(api)["Location"]
    patched(api, url, DATA[:10], 0)
    upload = PendingUpload.objects.get()
    response = api.post("/api/items/", {"title": "Cedo", "uploads": [str(upload.id)]},
                        format="multipart", secure=True)
    assert response.status_code == 400
    assert response.json() == {"detail": f"dados.bin has not finished uploading (10 of "
                                         f"{len(DATA)} bytes)"}
    assert not Item.objects.filter(title="Cedo").exists()
    assert not list(Path(storage.default_storage.location).rglob("doc/*"))


def test_files_are_added_to_an_item_from_an_upload(api):
    item = make.item(title="Com anexo")
    url = created(api, name="anexo.bin", length=5)["Location"]
    patched(api, url, b"12345", 0)
    upload = PendingUpload.objects.get()
    response = api.post(f"/api/items/{item.ibi}/files", {"uploads": [str(upload.id)]},
                        format="multipart", secure=True)
    assert response.status_code == 201, response.content
    assert storage.open_file(item.ibi, "anexo.bin").read() == b"12345"
    assert not PendingUpload.objects.exists()


def test_a_deposit_needs_a_file_sent_or_uploaded(api):
    response = api.post("/api/items/", {"title": "Vazio"}, format="multipart", secure=True)
    assert response.status_code == 400
    assert response.json() == {"files": ["send one or more files, or name complete uploads "
                                         "in uploads"]}


# -- Expiry and the sweep ----------------------------------------------------------------------

def test_an_abandoned_upload_expires_and_fsck_sweeps_it(api, capsys):
    url = created(api)["Location"]
    patched(api, url, DATA[:10], 0)
    kept = PendingUpload.objects.get()
    url2 = created(api, name="recente.bin")["Location"]
    PendingUpload.objects.filter(pk=kept.pk).update(expires=timezone.now())
    assert api.head(url, secure=True, **TUS).status_code == 404  # gone for the client at once
    stray = pending.folder() / "stray-bytes"
    stray.write_bytes(b"no row claims me")
    os.utime(stray, (0, 0))

    call_command("fsck")
    out = capsys.readouterr().out
    assert "swept    dados.bin (10 bytes, an expired upload)" in out
    assert f"swept    {stray} (16 bytes, bytes no upload claims)" in out
    assert [str(u.id) for u in PendingUpload.objects.all()] == [url2.rsplit("/", 1)[1]]
    assert pending_files() == [url2.rsplit("/", 1)[1]]


def test_bytes_without_a_content_length_are_refused_not_lost(api):
    url = created(api)["Location"]
    response = patched(api, url, DATA[:10], 0, CONTENT_LENGTH="")
    assert response.status_code == 411
    assert response.json() == {"detail": "a PATCH of an upload needs its Content-Length"}
    assert PendingUpload.objects.get().offset == 0


# -- Leases: one request writes at a time, and only while its lease is its own ------------------

def test_a_request_stalled_past_its_lease_never_undoes_the_retry_that_took_over(
        live_site, librarian, monkeypatch):
    """A PATCH stalls mid-body past its lease; the client's retry takes the upload over and
    completes it; then the stalled request wakes, gets its last bytes and ends. It must not
    write its state over the retry's, nor cut the file to what it had (issue #42, 6)."""
    client = tus(live_site, librarian)
    url = client.uploader(file_stream=io.BytesIO(DATA),
                          metadata={"filename": "retomado.bin"}).create_url()
    wrote_first = threading.Event()
    original = pending._read

    def watched(stream, count):
        first = not wrote_first.is_set()
        for n, chunk in enumerate(original(stream, count)):
            yield chunk
            if first and n == 0:
                wrote_first.set()  # asked for the next chunk: the first one is written

    monkeypatch.setattr(pending, "_read", watched)
    token = Token.objects.get_or_create(user=librarian)[0].key
    parts = urlsplit(live_site.url)
    head = (f"PATCH {urlsplit(url).path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Authorization: Token {token}\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\n"
            f"Content-Type: {OFFSET_STREAM}\r\nContent-Length: {len(DATA)}\r\n\r\n")
    stalled = pending.CHUNK + 100
    with socket.create_connection((parts.hostname, parts.port)) as sock:
        sock.sendall(head.encode() + DATA[:stalled])
        assert wrote_first.wait(30), "the first request never wrote its first chunk"
        # Its lease runs out while it waits for bytes that do not come.
        PendingUpload.objects.update(busy_until=timezone.now() - timedelta(seconds=1))
        retry = client.uploader(file_stream=io.BytesIO(DATA), url=url)
        assert retry.offset == 0  # the stalled request has recorded nothing
        retry.upload()
        upload = PendingUpload.objects.get()
        assert upload.complete and upload.sha256 == hashlib.sha256(DATA).hexdigest()
        # The stalled request wakes: a few more bytes, then its client gives up.
        sock.sendall(DATA[stalled:stalled + 100])
        sock.shutdown(socket.SHUT_WR)
        answer = sock.makefile("rb").readline()
    upload.refresh_from_db()
    assert (upload.offset, upload.busy_until) == (len(DATA), None)
    assert upload.sha256 == hashlib.sha256(DATA).hexdigest()
    assert Path(pending.path_of(upload)).read_bytes() == DATA
    assert answer.split()[1] == b"409", answer  # told its bytes were not kept


# -- A full upload folder ----------------------------------------------------------------------

def test_a_full_upload_folder_is_a_507_in_json_and_the_upload_resumes_once_there_is_room(
        api, settings, tmp_path):
    """The upload folder on a file system of 1 MiB: a PATCH of 3 MiB is told 507 in JSON (not
    a 500 page), what fitted is kept and counted, and the same upload ends once there is
    room (issue #42, 7)."""
    folder = tmp_path / "small-uploads"
    with SmallFilesystem(folder, "1m") as small:
        settings.FILE_UPLOAD_TEMP_DIR = settings.IBI_UPLOAD_TEMP_DIR = str(folder)
        url = created(api)["Location"]
        full = patched(api, url, DATA, 0)
        assert full.status_code == 507
        assert full["Content-Type"] == "application/json"
        assert full.json() == {"detail": "the upload folder is full: the bytes that fitted "
                                         "are kept; resume from Upload-Offset once there is "
                                         "room"}
        held = int(api.head(url, secure=True, **TUS)["Upload-Offset"])
        upload = PendingUpload.objects.get()
        assert 0 < held <= 1024 * 1024 and upload.busy_until is None
        assert Path(pending.path_of(upload)).read_bytes() == DATA[:held]

        small.grow("8m")
        done = patched(api, url, DATA[held:], held)
        assert done.status_code == 204 and done["Upload-Offset"] == str(len(DATA))
        upload.refresh_from_db()
        assert upload.complete and upload.sha256 == hashlib.sha256(DATA).hexdigest()


# -- What a librarian may declare, and the beat's sweep ----------------------------------------

def test_the_bytes_a_librarian_declares_are_bounded_by_the_upload_quota(
        api, librarian, settings, django_user_model):
    """IBI_UPLOAD_QUOTA bounds the bytes of one librarian's uploads not yet deposited, counted
    from their declared lengths: past it a creation is 413 in JSON and makes nothing; an upload
    deleted or expired frees its share, and another librarian has a quota of her own
    (issue #42, 8)."""
    settings.IBI_UPLOAD_QUOTA = 2 * len(DATA) + 10
    first = created(api)["Location"]
    assert created(api).status_code == 201
    refused = created(api, name="demais.bin", length=11)
    assert refused.status_code == 413
    assert refused.json() == {"detail": (
        f"your uploads not yet deposited declare {2 * len(DATA)} bytes: 11 more would pass "
        f"your quota of {2 * len(DATA) + 10} bytes (IBI_UPLOAD_QUOTA); deposit or delete some "
        f"first")}
    assert PendingUpload.objects.count() == 2 and len(pending_files()) == 2
    assert created(api, name="cabe.bin", length=10).status_code == 201

    other = django_user_model.objects.create_user("outra", is_staff=True)
    other.groups.add(services.ensure_librarians_group())
    assert created(make.token_client(other)).status_code == 201

    assert api.delete(first, secure=True, **TUS).status_code == 204
    assert created(api, name="depois.bin", length=len(DATA)).status_code == 201
    assert created(api, name="demais.bin", length=1).status_code == 413
    PendingUpload.objects.filter(owner=librarian).update(expires=timezone.now())
    assert created(api, name="expirados.bin", length=2 * len(DATA)).status_code == 201


def test_the_beat_sweeps_expired_uploads_by_itself(api, settings, eager_tasks):
    """Abandoned uploads go without anyone running fsck: the beat's hourly task removes the
    expired ones with their bytes, and bytes no upload claims once an hour old; an upload still
    waiting stays (issue #42, 8)."""
    entry = settings.CELERY_BEAT_SCHEDULE["sweep-uploads"]
    assert entry["task"] == "archive.tasks.sweep_uploads"
    assert entry["schedule"].minute == {23} and entry["schedule"].hour == set(range(24))
    from ibirepo.celery import app

    abandoned = created(api, name="abandonado.bin")["Location"]
    patched(api, abandoned, DATA[:10], 0)
    waiting = created(api, name="esperando.bin")["Location"].rsplit("/", 1)[1]
    PendingUpload.objects.exclude(pk=waiting).update(expires=timezone.now())
    stray, young = pending.folder() / "stray-bytes", pending.folder() / "young-bytes"
    stray.write_bytes(b"no row claims me")
    young.write_bytes(b"maybe an upload being created")
    os.utime(stray, (0, 0))

    app.loader.import_default_modules()  # as a worker starts: the tasks it finds
    assert app.tasks["archive.tasks.sweep_uploads"].delay().get() == 2
    assert [str(u.id) for u in PendingUpload.objects.all()] == [waiting]
    assert pending_files() == sorted([waiting, "young-bytes"])


def test_a_deposited_upload_is_linked_into_storage_not_copied(api):
    """On the local disk the upload's bytes get a second name under col/ (a hard link, as
    docs/operators/storage.md says), never a second copy: a 2 GiB upload never needs 4 GiB (#42)."""
    url = created(api, name="grande.bin", length=5)["Location"]
    patched(api, url, b"12345", 0)
    waiting = os.stat(pending.path_of(PendingUpload.objects.get()))
    upload = PendingUpload.objects.get()
    response = api.post("/api/items/", {"title": "Grande", "uploads": [str(upload.id)]},
                        format="multipart", secure=True)
    assert response.status_code == 201, response.content
    item = Item.objects.get(title="Grande")
    stored = os.stat(storage.default_storage.path(storage.file_key(item.ibi, "grande.bin")))
    assert (stored.st_dev, stored.st_ino) == (waiting.st_dev, waiting.st_ino)
    assert storage.open_file(item.ibi, "grande.bin").read() == b"12345"
