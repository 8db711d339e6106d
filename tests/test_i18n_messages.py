"""Messages outside the pages: the API's errors follow Accept-Language as the site does, and
commands speak LANGUAGE_CODE; what machines read (the wire, a printed token) stays as it is."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import RequestFactory
from django.utils import translation
from rest_framework.test import APIClient

from archive.identifiers import ibi
from archive.web.errors import refusal
from archive.web.middleware import MESSAGE

PT = {"HTTP_ACCEPT_LANGUAGE": "pt-BR,pt;q=0.9"}
pytestmark = pytest.mark.django_db


def test_an_api_error_comes_in_portuguese_when_the_client_asks_for_it(librarian_api):
    answer = librarian_api.post("/api/items/", {"title": "T", "creater": "X"},
                                format="multipart", secure=True, **PT)
    assert answer.status_code == 400
    assert answer.json() == {"detail": "campo desconhecido creater"}
    assert answer["Content-Language"] == "pt-br"


def test_an_api_error_stays_english_by_default(librarian_api):
    answer = librarian_api.post("/api/items/", {"title": "T", "creater": "X"},
                                format="multipart", secure=True)
    assert answer.json() == {"detail": "unknown field creater"}


def test_a_service_refusal_and_drfs_own_messages_are_translated_too(librarian_api):
    missing = librarian_api.get("/api/items/8JMKD3MGP7W/3EPGUE5", secure=True, **PT)
    assert missing.status_code == 404
    assert missing.json()["detail"] == "nenhum item deste acervo tem o IBI '8JMKD3MGP7W/3EPGUE5'"
    anonymous = APIClient().post("/api/items/", {}, secure=True, **PT)
    assert anonymous.status_code == 401
    assert anonymous.json()["detail"] == "As credenciais de autenticação não foram fornecidas."


def test_a_refusal_before_any_view_speaks_to_people_but_keeps_the_wire_english():
    factory = RequestFactory()
    with translation.override("pt-br"):
        api = refusal(factory.get("/api/items/"), 503, MESSAGE)
        page = refusal(factory.get("/some/page"), 503, MESSAGE)
        wire = refusal(factory.get("/x", {"servicesubject": "urlRequest"}), 503, MESSAGE)
    said = "a conexão com o banco de dados caiu: envie a requisição de novo"
    assert json.loads(api.content) == {"detail": said}
    assert page.content.decode() == said + "\n"
    assert MESSAGE in wire.content.decode()


@pytest.fixture
def portuguese(settings):
    """A Brazilian library's setting: commands speak it (Django no longer deactivates
    translations in commands; archive/management/base.py explains)."""
    settings.LANGUAGE_CODE = "pt-br"
    translation.deactivate()


def test_a_command_speaks_language_code(portuguese):
    out = io.StringIO()
    call_command("fsck", stdout=out)
    assert out.getvalue() == (
        "0 arquivos registrados, 0 guardados: 0 problemas, 0 órfãos removidos, "
        "0 envios abandonados apagados\n")


def test_a_command_error_speaks_language_code(portuguese):
    with pytest.raises(CommandError, match="informe um IBI e --from"):
        call_command("copyitem")


def test_the_printed_token_stays_the_last_word_in_portuguese(portuguese):
    out = io.StringIO()
    call_command("createlibrarian", "beatriz", stdout=out)
    line = out.getvalue().strip()
    assert line.startswith("Bibliotecário beatriz criado (ainda sem senha")
    assert len(line.split()[-1]) == 40 and "Token da API: " in line


def test_what_scripts_read_is_not_translated(portuguese, settings):
    out = io.StringIO()
    call_command("ibi", "mint", stdout=out)
    repository_name, ibip = out.getvalue().split()  # '<repository name> <IBIp>', as before
    assert ibi.parse(ibip).form == "ibip" and ibi.parse(repository_name).form != "ibip"


def test_a_pure_modules_refusal_is_translated_by_the_command(portuguese, tmp_path):
    """archive/deposit/bulk_import.py imports no Django: its UnsafePath carries an English
    template, which importitems says in LANGUAGE_CODE."""
    source = tmp_path / "items.csv"
    source.write_text("title,files\nRelatório,../../etc/passwd\n", encoding="utf-8")
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 de 1 item falhou"):
        call_command("importitems", str(source), stdout=out, stderr=io.StringIO())
    assert "'../../etc/passwd': '..' não é permitido num caminho de importação" in out.getvalue()
