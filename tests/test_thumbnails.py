"""Thumbnails (issue 37, point 5): the first page of a PDF and an image, small, as WebP, made
in the sandbox once the deposit commits (or DSpace's THUMBNAIL kept), shown with alt text on
the landing page, a collection's page and search results — and never for a file the reader
may not read: the access policy's word, asked at each request."""
from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.utils import timezone
from PIL import Image

from archive.access import services as access
from archive.db import changes
from archive.deposit import services
from archive.fulltext import services as fulltext
from archive.models import FileExtraction
from tests import factories as make

pytestmark = pytest.mark.django_db


@pytest.fixture
def extracted(settings, django_capture_on_commit_callbacks, eager_tasks):
    settings.IBI_EXTRACT_TEXT = True
    settings.IBI_OCR = False  # thumbnails here, not OCR (tests/test_fulltext_extract.py)

    def stored(*files, **fields):
        with django_capture_on_commit_callbacks(execute=True):
            return make.item(*files, **fields)
    return stored


def url(item, name: str) -> str:
    return f"/items/{item.ibi}/thumbnails/{name}"


def picture() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (1200, 800), (200, 30, 30)).save(out, "JPEG")
    return out.getvalue()


def test_a_pdf_and_an_image_get_a_small_webp_thumbnail_shown_with_alt_text(extracted, client):
    item = extracted(("tese.pdf", make.pdf("Capa da tese")), ("foto.jpg", picture()),
                     ("dados.csv", b"a,b\n"), title="Tese com capa")
    for name, size in (("tese.pdf", (283, 400)), ("foto.jpg", (400, 267))):
        answer = client.get(url(item, name))
        assert answer.status_code == 200 and answer["Content-Type"] == "image/webp"
        assert answer["Cache-Control"] == "public, max-age=3600"
        image = Image.open(io.BytesIO(b"".join(answer.streaming_content)))
        assert (image.format, image.size) == ("WEBP", size)
    assert client.get(url(item, "dados.csv")).status_code == 404
    landing = client.get(f"/items/{item.ibi}").content.decode()
    assert f'src="{url(item, "tese.pdf")}" alt="Thumbnail of tese.pdf"' in landing
    listed = client.get("/collections/general").content.decode()
    assert f'src="{url(item, "tese.pdf")}" alt="Thumbnail of Tese com capa"' in listed
    found = client.get("/search", {"q": "capa"}).content.decode()
    assert f'src="{url(item, "tese.pdf")}"' in found


@pytest.mark.parametrize("level", ["embargoed", "restricted", "metadata-only"])
def test_no_thumbnail_for_a_file_the_reader_may_not_read(extracted, client, librarian_client,
                                                         level):
    until = timezone.localdate() + timedelta(days=30) if level == "embargoed" else None
    item = extracted(("tese.pdf", make.pdf("Segredo")), title="Fechada",
                     access=services.Access(level, until))
    assert FileExtraction.objects.get(file__item=item).thumbnail  # made, but closed
    assert client.get(url(item, "tese.pdf")).status_code == 404
    assert client.get(url(item, "tese.pdf") + "?token=guess").status_code == 404
    assert "thumbnails/" not in client.get(f"/items/{item.ibi}").content.decode()
    assert "thumbnails/" not in client.get("/collections/general").content.decode()
    # A librarian sees it, kept by no cache.
    seen = librarian_client.get(url(item, "tese.pdf"))
    assert seen.status_code == 200 and seen["Cache-Control"] == "private, no-store"
    if level != "metadata-only":  # a secret link opens the item's files, and so their faces
        _link, token = access.create_link(item=item, expires=timezone.localdate()
                                          + timedelta(days=2))
        assert client.get(url(item, "tese.pdf") + f"?token={token}").status_code == 200


def test_a_restricted_file_of_an_open_item_has_none_either(extracted, client):
    item = extracted(("open.pdf", make.pdf("Aberto")), ("closed.pdf", make.pdf("Fechado")),
                     restricted_files=["closed.pdf"])
    assert client.get(url(item, "open.pdf")).status_code == 200
    assert client.get(url(item, "closed.pdf")).status_code == 404


def test_an_embargo_lifting_shows_the_thumbnail_at_once(extracted, client):
    until = timezone.localdate() + timedelta(days=1)
    item = extracted(("tese.pdf", make.pdf("Embargada")),
                     access=services.Access("embargoed", until))
    assert client.get(url(item, "tese.pdf")).status_code == 404
    access.lift_embargoes(today=until)
    assert client.get(url(item, "tese.pdf")).status_code == 200


def test_a_bomb_gets_no_thumbnail_and_its_reason_is_kept(extracted, client):
    item = extracted(("bomb.png", make.image_bomb()))
    row = FileExtraction.objects.get(file__item=item)
    assert row.thumbnail == "" and "decompression bomb" in row.thumbnail_problem
    assert client.get(url(item, "bomb.png")).status_code == 404


def test_manage_py_thumbnails_makes_them_again(extracted, client):
    item = extracted(("tese.pdf", make.pdf("Refeita")))
    key = FileExtraction.objects.get(file__item=item).thumbnail
    default_storage.delete(key)
    FileExtraction.objects.update(thumbnail="")
    assert client.get(url(item, "tese.pdf")).status_code == 404
    out = io.StringIO()
    call_command("thumbnails", item.ibi, stdout=out)
    assert "1 thumbnail" in out.getvalue()
    assert FileExtraction.objects.get(file__item=item).thumbnail == key
    assert fulltext.thumbnail_key(item.files.get()) == key
    assert client.get(url(item, "tese.pdf")).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_new_thumbnail_renews_the_change_token_the_item_pages_are_kept_under():
    item = make.item(("tese.pdf", make.pdf("Capa nova")))
    before = changes.token()
    assert fulltext.make_thumbnail(item.files.get().pk).thumbnail
    assert changes.token() != before
