"""The uniform repository layout and the reduction of hostile file names."""
from __future__ import annotations

import errno
import io
import os

import pytest
from django.core.files import File

from archive.deposit import storage


def test_the_key_is_four_directories_from_the_ibi():
    assert storage.file_key("sid.inpe.br/mtc-m19/2013/09.04.12.27.57", "report.pdf") == \
        "col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/report.pdf"


@pytest.mark.parametrize(("sent", "kept"), [
    ("../../x", "x"), ("..\\x", "x"), ("/etc/x", "x"), ("C:\\x", "x"),
    ("a/b/../c.pdf", "c.pdf"), ("Relatório Final.pdf", "Relatório Final.pdf"),
    ("Relato\u0301rio.pdf", "Relatório.pdf"),  # NFC: one spelling per name
])
def test_paths_are_reduced_to_a_bare_name(sent, kept):
    assert storage.safe_name(sent) == kept


@pytest.mark.parametrize("sent", [
    "", ".", "..", "../", "a\x00b", "a\nb", "a\x85b", "evil\u202efdp.exe", "x" * 256,
    "é" * 128,  # 256 bytes in UTF-8
])
def test_names_that_cannot_be_stored_are_refused(sent):
    with pytest.raises(storage.FileNameError):
        storage.safe_name(sent)


@pytest.mark.django_db
def test_store_never_overwrites(media):
    rep = "example.org/archive/2026/11.21.13.00"
    stored = storage.store(rep, "a.txt", io.BytesIO(b"first"))
    assert stored.size == 5
    with pytest.raises(storage.StorageConflict):
        storage.store(rep, "a.txt", io.BytesIO(b"second"))
    assert (media / storage.file_key(rep, "a.txt")).read_bytes() == b"first"


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["title", "creator"])
def test_control_characters_in_metadata_are_refused_before_anything_is_stored(field, media):
    from archive.deposit import services
    from archive.models import Item

    title, dc = ("a\x00b", {}) if field == "title" else ("ok", {"creator": ["x\x00y"]})
    with pytest.raises(services.ServiceError, match="control character"):
        services.item_deposit(title=title, dc=dc, uploads=[
            services.Upload(name="a.txt", file=io.BytesIO(b"a"))])
    assert not Item.objects.filter(is_archive_service=False).exists()
    assert not (media / "col").exists()


class FillsTheDisk(File):
    """A file whose writing stops halfway, as the kernel says when the disk is full."""

    def chunks(self, chunk_size=None):
        yield b"half of it"
        raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.django_db
def test_a_write_that_fails_midway_leaves_nothing_under_col_and_nothing_beside(media):
    """Django wrote in place: a full disk left half a file under its name, which fsck called
    an orphan and the deposit sent again met as a conflict (issue #30, 8)."""
    rep = "example.org/archive/2026/11.21.13.00"
    with pytest.raises(storage.StorageFull):
        storage.store(rep, "a.txt", FillsTheDisk(io.BytesIO(b"half of it"), name="a.txt"))
    assert [p for p in media.rglob("*") if p.is_file()] == []
    assert storage.store(rep, "a.txt", io.BytesIO(b"whole")).size == 5  # room again: stored
    assert (media / storage.file_key(rep, "a.txt")).read_bytes() == b"whole"
    assert list((media / storage.INCOMING).iterdir()) == []


@pytest.mark.django_db
def test_an_upload_waiting_on_the_same_file_system_is_linked_not_copied(media):
    from django.core.files.uploadedfile import TemporaryUploadedFile

    upload = TemporaryUploadedFile("b.bin", "application/octet-stream", 4, None)
    upload.write(b"data")
    upload.seek(0)
    rep = "example.org/archive/2026/11.21.13.01"
    storage.store(rep, "b.bin", upload)
    stored = media / storage.file_key(rep, "b.bin")
    assert os.path.samefile(stored, upload.temporary_file_path())
    upload.close()  # the upload's name goes; the stored file stays
    assert stored.read_bytes() == b"data"
