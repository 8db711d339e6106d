"""The admin's deposit never loses a file: a form sent back by a validation error keeps every
file it carried as a pending upload (archive/deposit/pending.py), listed ticked with a remove
button, and offers their names as the main file; saving again deposits them, and they go.
(In a real browser, with the uploader's JavaScript and without: tests/test_browser_uploads.py.)
"""
from __future__ import annotations

import re

from archive.deposit import pending, storage
from archive.models import Item, PendingUpload
from tests import factories as make

REPORT = "Relatório — versão final.pdf"
ADD = "/admin/archive/item/add/"


def listed(response) -> list[str]:
    """The names of the files waiting in the form, as the page lists them."""
    return re.findall(r'<input type="checkbox" name="pending" value="[^"]+" id="[^"]+" '
                      r'checked> <label for="[^"]+">([^<]+)</label>', response.content.decode())


def offered(response) -> list[str]:
    """The main file's choices."""
    select = re.search(r'<select name="target_file".*?</select>', response.content.decode(),
                       re.S).group(0)
    return re.findall(r'<option value="([^"]*)"', select)


def test_a_validation_error_keeps_the_files_and_offers_them_as_the_main_file(
        librarian_client, librarian, django_capture_on_commit_callbacks):
    sent_back = make.admin_deposit(
        librarian_client, (REPORT, b"%PDF-1.4 final"), ("dados.csv", b"a,b\n"),
        title="Relatório técnico", dc_date="04/09/2013",
        meta={"HTTP_ACCEPT_LANGUAGE": "pt-BR"})
    assert sent_back.status_code == 200
    assert "não é uma data" in sent_back.content.decode()
    assert listed(sent_back) == ["Relatório — versão final.pdf", "dados.csv"]
    assert offered(sent_back) == ["", "Relatório — versão final.pdf", "dados.csv"]
    assert "Este campo é obrigatório" not in sent_back.content.decode()
    kept = list(PendingUpload.objects.order_by("created"))
    assert [(u.name, u.length, u.owner) for u in kept] == [
        (REPORT, 14, librarian), ("dados.csv", 4, librarian)]
    assert [pending.path_of(u).read_bytes() for u in kept] == [b"%PDF-1.4 final", b"a,b\n"]
    assert not Item.objects.filter(title="Relatório técnico").exists()

    # Saved again, the date fixed, nothing chosen again: the main file is the one picked.
    with django_capture_on_commit_callbacks(execute=True):  # the bytes go after the commit
        saved = librarian_client.post(ADD, {
            "title": "Relatório técnico", "transferable": "on", "dc_date": "2013-09-04",
            "pending": [str(u.id) for u in kept], "target_file": "dados.csv"}, secure=True)
    assert saved.status_code == 302, saved.content.decode()[:3000]
    item = Item.objects.get(title="Relatório técnico")
    assert item.target_file == "dados.csv"
    assert sorted(item.files.values_list("name", flat=True)) == [REPORT, "dados.csv"]
    assert storage.open_file(item.ibi, REPORT).read() == b"%PDF-1.4 final"
    assert not PendingUpload.objects.exists()
    assert list(pending.folder().iterdir()) == []


def test_an_unticked_file_is_left_out(librarian_client):
    make.admin_deposit(librarian_client, "a.pdf", "b.pdf", title="Dois", dc_date="ontem")
    a, b = PendingUpload.objects.order_by("created")
    saved = librarian_client.post(ADD, {"title": "Dois", "transferable": "on",
                                        "pending": [str(b.id)]}, secure=True)
    assert saved.status_code == 302
    item = Item.objects.get(title="Dois")
    assert list(item.files.values_list("name", flat=True)) == ["b.pdf"]
    assert item.target_file == "b.pdf"
    assert list(PendingUpload.objects.all()) == [a]  # it waits until it expires


def test_the_main_file_must_be_one_of_the_files_and_the_error_names_them(librarian_client):
    sent_back = make.admin_deposit(librarian_client, (REPORT, b"x"), "dados.csv",
                                   title="Errado", target_file="relatorio.pdf")
    assert sent_back.status_code == 200
    assert ("&#x27;relatorio.pdf&#x27; is not one of the files: Relatório — versão final.pdf, "
            "dados.csv") in sent_back.content.decode()


def test_another_librarians_upload_is_not_taken(librarian_client, django_user_model):
    other = django_user_model.objects.create_user("other", is_staff=True)
    theirs = pending.keep(owner=other, file=make.uploaded("deles.pdf"))
    sent_back = librarian_client.post(ADD, {"title": "Alheio", "transferable": "on",
                                            "pending": [str(theirs.id)]}, secure=True)
    assert sent_back.status_code == 200
    assert "Choose one or more files." in sent_back.content.decode()
    assert not Item.objects.filter(title="Alheio").exists()
    assert PendingUpload.objects.get() == theirs


def test_files_wait_on_an_items_page_too(librarian_client, librarian):
    item = make.item(("a.pdf", b"a"), title="Com arquivos")
    url = f"/admin/archive/item/{item.pk}/change/"
    page = librarian_client.get(url, secure=True)
    assert offered(page) == ["", "a.pdf"]
    sent_back = librarian_client.post(url, {
        "title": "", "transferable": "on", "target_file": "a.pdf",
        "upload": [make.uploaded(("b.pdf", b"b"))]}, secure=True)
    assert sent_back.status_code == 200 and listed(sent_back) == ["b.pdf"]
    assert offered(sent_back) == ["", "a.pdf", "b.pdf"]
    kept = PendingUpload.objects.get()
    saved = librarian_client.post(url, {"title": "Com arquivos", "transferable": "on",
                                        "target_file": "b.pdf", "pending": [str(kept.id)]},
                                  secure=True)
    assert saved.status_code == 302
    item.refresh_from_db()
    assert item.target_file == "b.pdf"
    assert sorted(item.files.values_list("name", flat=True)) == ["a.pdf", "b.pdf"]
    assert not PendingUpload.objects.exists()
