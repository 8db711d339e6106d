"""The item list's acts on many items (issue 43, archive/admin/bulk.py): a new access level
or embargo with a reason, and tombstones with one reason for all, each after its page."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.utils import timezone

from archive.deposit import services
from archive.models import Item
from tests import factories as make

pytestmark = pytest.mark.django_db

LIST = "/admin/archive/item/"
LATER = timezone.localdate() + timedelta(days=90)


def selected(*items: Item) -> dict:
    return {"_selected_action": [item.pk for item in items]}


def test_a_bulk_access_change_asks_first_then_sets_each_items_level_and_reason(
        librarian_client):
    a, b = make.item(title="Tese A"), make.item(title="Tese B")
    gone = make.item(title="Retirada")
    services.item_delete(item=gone, reason="Duplicada")
    service = Item.objects.get(is_archive_service=True)
    chosen = selected(a, b, gone, service)
    page = librarian_client.post(LIST, {"action": "change_access", **chosen}, secure=True,
                                 HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Alterar o acesso de itens" in text and "Sim, alterar o acesso" in text
    assert 'name="embargo_until"' in text and 'name="reason"' in text
    assert set(Item.objects.values_list("access_rights", flat=True)) == {"open"}  # not yet
    done = librarian_client.post(LIST, {
        "action": "change_access", "post": "yes", "access_rights": "embargoed",
        "embargo_until": LATER.isoformat(), "reason": "Patente em análise", **chosen},
        secure=True, follow=True, HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert "Acesso alterado para embargado em 2 itens." in done.content.decode()
    for item in (a, b):
        item.refresh_from_db()
        assert (item.access_rights, item.embargo_until, item.access_reason) == (
            "embargoed", LATER, "Patente em análise")
        entry = LogEntry.objects.get(object_id=str(item.pk))
        assert "Patente em análise" in entry.get_change_message()
    for untouched in (gone, service):  # a tombstone, the archive service: left alone
        untouched.refresh_from_db()
        assert (untouched.access_rights, untouched.access_reason) == ("open", "")
    landing = librarian_client.get(f"/items/{a.ibi}", HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert "Patente em análise" in landing.content.decode()


@pytest.mark.parametrize(("fields", "error"), [
    ({"access_rights": "restricted"}, "This field is required."),  # no reason
    ({"access_rights": "embargoed", "reason": "Patente"},
     "an embargoed item needs embargo_until"),
    ({"access_rights": "open", "embargo_until": LATER.isoformat(), "reason": "Aberto"},
     "embargo_until goes with the access level embargoed only"),
    ({"access_rights": "embargoed", "embargo_until": timezone.localdate().isoformat(),
      "reason": "Patente"}, "is not after today"),
])
def test_a_bulk_access_change_without_its_reason_or_date_is_the_page_again(
        librarian_client, fields, error):
    a, b = make.item(title="Tese A"), make.item(title="Tese B")
    again = librarian_client.post(LIST, {"action": "change_access", "post": "yes",
                                         **fields, **selected(a, b)}, secure=True)
    assert again.status_code == 200
    assert error in again.content.decode()
    assert set(Item.objects.values_list("access_rights", "access_reason")) == {("open", "")}


def test_a_bulk_access_change_the_service_refuses_changes_no_item(librarian_client,
                                                                  monkeypatch):
    """All the items or none: the second item refused, the first is as it was."""
    a, b = make.item(title="Tese A"), make.item(title="Tese B")
    real = services.item_set_access

    def refusing(*, item, **access):
        if item.pk == b.pk:
            raise services.ServiceError("refused for B")
        return real(item=item, **access)

    monkeypatch.setattr(services, "item_set_access", refusing)
    done = librarian_client.post(LIST, {
        "action": "change_access", "post": "yes", "access_rights": "restricted",
        "reason": "Sigilo", **selected(a, b)}, secure=True, follow=True)
    assert "Refused for B" in done.content.decode()
    assert set(Item.objects.values_list("access_rights", flat=True)) == {"open"}


def test_a_bulk_delete_asks_one_reason_and_gives_it_to_every_tombstone(librarian_client,
                                                                       reader):
    a, b = make.item(title="Tese A"), make.item(title="Tese B")
    chosen = {"action": "delete_selected", **selected(a, b)}
    page = librarian_client.post(LIST, chosen, secure=True, HTTP_ACCEPT_LANGUAGE="pt-BR")
    text = page.content.decode()
    assert 'name="reason"' in text and 'name="at_creators_request"' in text
    assert "Motivo, exibido nas lápides" in text
    # No reason: the page again, saying so, and nothing deleted.
    again = librarian_client.post(LIST, {**chosen, "post": "yes", "reason": "  "},
                                  secure=True, HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert again.status_code == 200
    assert "Escreva o motivo: cada lápide o exibe." in again.content.decode()
    assert not Item.objects.filter(state=Item.State.DELETED).exists()
    librarian_client.post(LIST, {**chosen, "post": "yes", "reason": "Retiradas a pedido",
                                 "at_creators_request": "on"}, secure=True)
    for item in (a, b):
        item.refresh_from_db()
        assert (item.state, item.deletion_reason, item.creators_withdrawn) == (
            Item.State.DELETED, "Retiradas a pedido", True)
    assert "Retiradas a pedido" in reader.get(f"/items/{a.ibi}").content.decode()
