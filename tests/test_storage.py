"""The uniform repository layout and the reduction of hostile file names."""
from __future__ import annotations

import io

import pytest

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
