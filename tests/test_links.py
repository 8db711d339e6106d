"""Edition and translation links a librarian cannot make: a translation of itself or of a
translation, an item with translations turned into one, an edition of itself. Refused with a
clear message by the deposit services, so that the admin and the API say the same."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from archive.deposit import services
from archive.models import Item
from tests import factories as make

ITEMS = "/api/items/"


@pytest.fixture
def family(db):
    original = make.item(("a.txt", b"x"), title="Relatório")
    english = make.item(("a.txt", b"x"), title="Report", language="en", translation_of=original)
    return original, english


def test_a_translation_of_a_translation_is_refused_and_names_the_original(family):
    original, english = family
    with pytest.raises(services.ServiceError) as refused:
        make.item(("a.txt", b"x"), title="Rapport", language="fr", translation_of=english)
    assert f"name its original, {original.ibi}" in str(refused.value)
    assert not Item.objects.filter(title="Rapport").exists()


def test_an_item_cannot_be_a_translation_of_itself(family):
    original, _english = family
    with pytest.raises(services.ServiceError, match="translation of itself"):
        services.item_update(item=original, translation_of=original)
    original.refresh_from_db()
    assert original.translation_of is None


def test_an_item_with_translations_cannot_become_a_translation(family):
    original, _english = family
    other = make.item(("a.txt", b"x"), title="Outro relatório")
    with pytest.raises(services.ServiceError, match="has translations of its own"):
        services.item_update(item=original, translation_of=other)
    original.refresh_from_db()
    assert original.translation_of is None


def test_an_item_cannot_be_its_own_previous_edition(family):
    original, _english = family
    original.previous_edition = original
    with pytest.raises(services.ServiceError, match="its own previous edition"):
        services._check_links(original)


def test_the_api_refuses_the_same_links_with_a_400(family, librarian_api):
    original, english = family
    response = librarian_api.patch(f"{ITEMS}{original.ibi}", {"translation_of": original.ibi},
                                   format="json", secure=True)
    assert response.status_code == 400
    assert "translation of itself" in str(response.json())
    response = librarian_api.post(ITEMS, {
        "title": "Rapport", "translation_of": english.ibi,
        "files": [SimpleUploadedFile("r.txt", b"r")]}, format="multipart", secure=True)
    assert response.status_code == 400
    assert "is itself a translation" in str(response.json())
    assert not Item.objects.filter(title="Rapport").exists()


def test_the_admin_shows_the_refusal_on_the_form(family, admin_client):
    original, english = family
    response = admin_client.post("/admin/archive/item/add/", {
        "title": "Rapport", "language": "fr", "transferable": "on",
        "translation_of": english.pk, "upload": SimpleUploadedFile("r.txt", b"r")},
        secure=True)
    assert response.status_code == 200
    assert "is itself a translation" in response.content.decode()
    assert not Item.objects.filter(title="Rapport").exists()
