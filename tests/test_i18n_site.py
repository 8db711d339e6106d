"""The public site in Portuguese: every page a reader meets is translated, dates and language
names follow the reader's language, and items are cited in ABNT, APA, Chicago, IEEE and
Vancouver (metadata/cite.py over citeproc-py's CSL styles).

The scan (`test_every_visible_string_of_the_public_pages_is_translated`) renders each page
with ``Accept-Language: pt-BR``, reads its visible text (text nodes, and the placeholder, title,
aria-label and alt attributes) and fails on an English message of the catalogue left as it is,
or on a word of the site's English that a Portuguese page never shows.
"""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from pathlib import Path

import lxml.html
import pytest
from babel.messages.pofile import read_po
from django.conf import settings as django_settings
from django.template.loader import render_to_string
from django.utils import timezone, translation
from playwright.sync_api import expect

from archive.communities import services as tree
from archive.deposit import services
from archive.metadata import cite, csl
from archive.metadata.record import Creator, Record
from archive.protocol import persistent_url
from archive.resolver.messages import reader_message
from tests import factories as make

PT = {"HTTP_ACCEPT_LANGUAGE": "pt-BR,pt;q=0.9,en;q=0.5"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en-US,en;q=0.9"}
CATALOGUE = Path(django_settings.BASE_DIR) / "locale" / "pt_BR" / "LC_MESSAGES" / "django.po"
PDF = b"%PDF-1.4 relatorio\n"

# -- The item of the pages: a report in Portuguese, two authors, a PDF -----------------------

TITLE = "Modelagem do clima regional da Amazônia"
AUTHORS = ["Silva, João Carlos", "Souza, Maria Aparecida"]
REPORT = {"creator": AUTHORS, "subject": ["clima", "Amazônia"], "date": ["2013"],
          "publisher": ["INPE"], "type": ["Relatório técnico"]}


@pytest.fixture
def site(db, settings):
    settings.ARCHIVE_ADDRESS = "testserver"
    services.ensure_archive_service()
    first = make.item(("relatorio.pdf", PDF, "application/pdf"), title=TITLE, language="pt-BR",
                      dc=REPORT)
    second = make.item(("relatorio.pdf", PDF, "application/pdf"), title=TITLE, language="pt-BR",
                       dc=REPORT, previous_edition=first)
    spanish = make.item(("relatorio.pdf", PDF, "application/pdf"),
                        title="Modelado del clima regional de la Amazonía", language="es",
                        dc=REPORT, translation_of=second)
    gone = make.item(("relatorio.pdf", PDF, "application/pdf"), title="Relatório retirado",
                     language="pt-BR", dc=REPORT)
    services.item_delete(item=gone)
    tree.item_map(item=second, collections=[make.programme()["theses"]])
    return {"first": first, "item": second, "spanish": spanish, "gone": gone}


# -- The scan ---------------------------------------------------------------------------------

# Words of the site's English (the msgids of templates/archive/site, templates/archive/resolver,
# templates/base.html, the error pages and archive/site, archive/resolver, archive/protocol)
# that no Portuguese page shows: case-sensitive, whole words. ("download" is Portuguese too.)
ENGLISH_WORDS = set("""
Accesses All Answer Archive Archives Browse Busy Change Chosen Cite Citation Claims Copied
Creator Default Deleted Deposited Description Edition Editions File Files Filtered
Forbidden Inspection Items Language Languages Last Latest Metadata Newest Next Nothing Order
Outcome Page Pages Persistent Please Previous Reason Recent Repository Resolution Round Search
Server Several Show Size Skip Source State Subject Timestamp Title Too Total Transferable
Translation Translations Type What Without Year
acknowledgments again another answered answers available browser browse
changed chosen claims collection copied counted default deleted deposited
edition editions exists family figures followed given holds identifier included language
latest matches metadata never newer nothing prefers published readers
reserved remove resolution resolved seconds should stays suspicion the through translation
translations waiting with without
""".split())


def _catalogue() -> dict[str, str]:
    """English msgid → pt-BR msgstr of every entry whose translation differs."""
    found = {}
    for message in read_po(CATALOGUE.open("rb")):
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for msgid, msgstr in zip(ids, strings, strict=False):
            if msgid and msgstr and msgid != msgstr:
                found[" ".join(msgid.split())] = msgstr
    return found


SILENT = ("script", "style", "code", "pre")


def _skipped(element, page_language: str) -> bool:
    """Inside <script>, <style>, <code> or <pre> (identifiers, BibTeX: no language), or marked
    in another language than the page's (the switcher's "English", an item's own title)."""
    for node in (element, *element.iterancestors()):
        if node.tag in SILENT:
            return True
        if node.get("lang") and node.tag != "html":
            return node.get("lang").lower() != page_language
    return False


def visible_texts(html: str) -> list[str]:
    """The text a reader sees or hears: the title, text nodes of the body, and the
    placeholder, title, aria-label and alt attributes; whitespace collapsed."""
    tree = lxml.html.document_fromstring(html)
    page_language = (tree.get("lang") or "").lower()
    texts = [tree.findtext(".//title") or ""]
    body = tree.find("body")
    for element in body.iter() if body is not None else ():
        if not isinstance(element.tag, str):
            continue
        if not _skipped(element, page_language):
            texts += [element.get(name) or "" for name in ("placeholder", "title", "aria-label",
                                                           "alt")]
            texts.append(element.text or "")
        parent = element.getparent()  # a tail is its parent's text
        if element is not body and parent is not None and not _skipped(parent, page_language):
            texts.append(element.tail or "")
    return [" ".join(t.split()) for t in texts if t.strip()]


def untranslated(html: str, catalogue: dict[str, str]) -> list[str]:
    found = []
    for text in visible_texts(html):
        if text in catalogue or text.rstrip(".:") in catalogue:
            found.append(f"msgid {text!r}")
        words = set(re.findall(r"[A-Za-z_]+", text)) & ENGLISH_WORDS
        if words:
            found.append(f"English {sorted(words)} in {text!r}")
    return found


def pages(client, site) -> dict[str, tuple[int, str]]:
    item, gone = site["item"], site["gone"]
    urls = {
        "home": "/",
        "search": "/search?q=clima",
        "search, filtered": f"/search?language=pt-BR&creator={AUTHORS[0]}",
        "search, bad year": "/search?year=20",
        "landing": f"/items/{item.ibi}",
        "landing, IEEE": f"/items/{item.ibi}?style=ieee",
        "landing, unknown style": f"/items/{item.ibi}?style=harvard",
        "landing, first edition": f"/items/{site['first'].ibi}",
        "landing, translation": f"/items/{site['spanish'].ibi}",
        "files": f"/items/{item.ibi}/files",
        "metadata": f"/items/{item.ibi}/metadata",
        "tombstone": f"/items/{gone.ibi}",
        "resolver tombstone": f"/{gone.ibip}",
        "not found": "/LK47B6W/362SFKH",
        "page not found": "/nothing/here",
        "bad URL": "/sid.inpe.br/mtc-m19/2013/13.45",
        "bad modifier": f"/{item.ibip}!!",
        "translation missing": f"/{item.ibi}+(de)",
        "inspection": f"/inspect/{item.ibi}",
        "404": "/items/nothing",
        "community": "/communities/engenharia",
        "collection": "/collections/teses-ppgee",
    }
    found = {name: client.get(url, **PT) for name, url in urls.items()}
    return {name: (r.status_code, r.content.decode()) for name, r in found.items()}


def alert_pages() -> dict[str, str]:
    """The alert pages other Archives cause (suspects, a full waiting room), rendered as the
    resolver renders them."""
    suspects = [{"address": "a.example", "service_ibi": "ibi.test/a/2024/01.02.03.04",
                 "local": True, "state": "Original", "state_label": "Original",
                 "url": "http://a.example/x"},
                {"address": "b.example", "service_ibi": "ibi.test/b/2024/01.02.03.04",
                 "local": False, "state": "Original", "state_label": "Original", "url": ""}]
    with translation.override("pt-br"):
        return {
            "conflict": render_to_string("archive/resolver/conflict.html", {
                "ibi": "LK47B6W/362SFKH", "suspects": suspects, "base": "http://x"}),
            "copies only": render_to_string("archive/resolver/not_found.html", {
                "ibi": "LK47B6W/362SFKH", "copies": suspects, "silent": ["x"],
                "resolver_hint": "http://urlib.net"}),
            "busy": render_to_string("archive/resolver/busy.html", {"retry": 5}),
            "500": render_to_string("500.html"),
            "400": render_to_string("400.html"),
            "403": render_to_string("403.html"),
        }


def test_every_visible_string_of_the_public_pages_is_translated(client, site):
    catalogue = _catalogue()
    rendered = pages(client, site)
    assert {name: status for name, (status, _html) in rendered.items()} == {
        "home": 200, "search": 200, "search, filtered": 200, "search, bad year": 400,
        "landing": 200, "landing, IEEE": 200, "landing, unknown style": 400,
        "landing, first edition": 200, "landing, translation": 200, "files": 200,
        "metadata": 200, "tombstone": 410, "resolver tombstone": 410, "not found": 404,
        "page not found": 404, "bad URL": 400, "bad modifier": 400,
        "translation missing": 404, "inspection": 200, "404": 404, "community": 200,
        "collection": 200}
    problems = {name: untranslated(html, catalogue) for name, (_status, html) in rendered.items()}
    problems.update({name: untranslated(html, catalogue) for name, html in alert_pages().items()})
    assert {name: found for name, found in problems.items() if found} == {}


def test_the_scan_sees_english_when_there_is_some(client, site):
    """The scan itself: the same landing page in English is full of what it looks for."""
    html = client.get(f"/items/{site['item'].ibi}", **EN).content.decode()
    found = untranslated(html, _catalogue())
    assert "msgid 'Previous edition'" in found and "msgid 'Accesses'" in found
    assert any("Persistent" in problem for problem in found)
    assert untranslated('<p lang="en">Files</p><input placeholder="Search">', {}) == [
        "English ['Search'] in 'Search'"]


def test_the_catalogue_has_no_untranslated_or_fuzzy_entry():
    """Every message of the pt-BR catalogue, the admin's and the commands' too, translated
    (each plural form) and none left fuzzy by makemessages's guess."""
    missing = []
    for message in read_po(CATALOGUE.open("rb")):
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.id and (not all(strings) or message.fuzzy):
            missing.append(message.id)
    assert missing == []


# -- One msgid, one sense ---------------------------------------------------------------------

# English words this code uses in two senses that Portuguese tells apart, by another word or
# another gender; each use says which it means with a pgettext context ("date", "item state"…):
# answered, revoked: a date column ("respondido em") and a state ("respondeu", "revogado");
# failed, not found: an authority's confidence (feminine, a confiança) and a copy job's state,
# a refusal or a resolution's outcome; deleted: an item (excluído), an edition, a translation or
# a copy (excluída); Copy: a state (Cópia) and a button (Copiar); Change: the admin's link
# (Modificar) and the language switcher (Mudar); status: an access request's (situação) and an
# HTTP status.
TWO_SENSES = {"answered", "revoked", "failed", "not found", "deleted", "copy", "change", "status"}
# A model field's label that is a moment: what Portuguese says "… em", agreeing with nothing.
DATE_LABEL = r"Date(?:Time)?Field\(\s*_\(\s*['\"]{}['\"]"


def bare_messages() -> list:
    """The singular messages of the catalogue that carry no context."""
    return [m for m in read_po(CATALOGUE.open("rb"))
            if m.id and not m.context and not isinstance(m.id, tuple)]


def test_a_word_with_two_senses_always_says_which_one_it_means():
    bare = sorted(m.id for m in bare_messages() if m.id.lower() in TWO_SENSES)
    assert bare == [], "give each use a pgettext context (see TWO_SENSES)"


def test_a_date_columns_label_is_not_also_a_word_for_something_else():
    """A bare msgid that labels a model's date field in one place and is said of a state, a
    button or a heading in another has two senses: found from the catalogue's #: references
    and the source lines they point at, whatever the word."""
    root = Path(django_settings.BASE_DIR)
    two = []
    for message in bare_messages():
        pattern = re.compile(DATE_LABEL.format(re.escape(message.id)))
        kinds = set()
        for path, line in message.locations:
            source = (root / path).read_text(encoding="utf-8").splitlines()
            kinds.add(bool(pattern.search("\n".join(source[max(line - 2, 0):line]))))
        if kinds == {True, False}:
            two.append((message.id, message.locations))
    assert two == [], "a date label and another sense share a msgid: add pgettext contexts"


# -- Dates, numbers and language names --------------------------------------------------------

def test_a_count_of_zero_takes_the_plural_in_portuguese(client, site):
    """Brazilian Portuguese says "0 itens", "0 downloads": the catalogue's plural rule is
    n != 1 (Django's own pt_BR catalogue keeps its n > 1 for its own messages)."""
    search = client.get("/search?q=inexistente", **PT).content.decode()
    # On PostgreSQL the count is followed by the order ("mais relevantes primeiro").
    assert re.search(r">0 itens[< ]", search)
    landing = client.get(f"/items/{site['item'].ibi}", **PT).content.decode()
    assert "(0 downloads aqui" in landing
    assert re.search(r">1 item[< ]", client.get("/search?q=Modelado", **PT).content.decode())
    assert re.search(r">0 items[< ]",
                     client.get("/search?q=inexistente", **EN).content.decode())



def test_dates_and_language_names_follow_the_reader(client, site):
    item = site["item"]
    pt = client.get(f"/items/{item.ibi}", **PT).content.decode()
    en = client.get(f"/items/{item.ibi}", **EN).content.decode()
    created = timezone.localtime(item.created)
    months_pt = ["janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
                 "setembro", "outubro", "novembro", "dezembro"]
    # In lower case, as Brazilians write them (archive/site/months.py), not Django's "Novembro".
    assert f">{created.day} de {months_pt[created.month - 1]} de {created.year}</time>" in pt
    # machines read ISO 8601, to the second (HTML has no microseconds)
    assert f'<time datetime="{created.strftime("%Y-%m-%dT%H:%M:%S+0000")}"' in pt
    assert f"{created:%B} {created.day}, {created.year}</time>" in en or \
        f"{created:%b}. {created.day}, {created.year}</time>" in en
    assert '<data value="pt-BR">Português (Brasil)</data>' in pt
    assert '<data value="pt-BR">Portuguese (Brazil)</data>' in en
    # The translations list names each language in the reader's language.
    assert 'hreflang="es">Espanhol</a>' in pt and 'hreflang="es">Spanish</a>' in en
    home = client.get("/", **PT).content.decode()
    assert '<data value="es">Espanhol</data>' in home
    assert re.search(r"<dt>Tamanho total</dt><dd>\d+\s+bytes</dd>", home)  # filesizeformat
    summary = client.get("/search?q=clima", **PT).content.decode()
    assert f"depositado em {created:%d/%m/%Y}" in summary
    # A dc:date of a whole day is a date too; anything else stays as deposited.
    dated = make.item(("relatorio.pdf", PDF, "application/pdf"), title=TITLE, language="pt-BR",
                      dc={"creator": AUTHORS, "date": ["2013-09-04", "2013-09"]})
    # No such day: deposits refuse it now (EDTF), but a record older than that rule keeps it.
    make.dc_value(dated, "date", "2013-13-45", position=1)
    html = client.get(f"/items/{dated.ibi}", **PT).content.decode()
    assert '<time datetime="2013-09-04">4 de setembro de 2013</time>' in html
    assert ">2013-13-45</span>" in html and ">2013-09</span>" in html


# -- Citations --------------------------------------------------------------------------------

TWO_AUTHORS = Record(
    ibi="sid.inpe.br/mtc-m19/2013/09.04.12.27.57", ibip="8JMKD3MGP7W/3EPGUE5",
    title="Modelagem do clima regional da Amazônia",
    persistent_url="http://urlib.net/8JMKD3MGP7W/3EPGUE5",
    creators=(Creator("Silva, João Carlos"), Creator("Souza, Maria Aparecida")),
    publisher="INPE", publisher_place="São José dos Campos", date="2013",
    types=("Relatório técnico",), identifiers=("INPE-17123-RPQ/123",), language="pt-BR")
TODAY = date(2026, 11, 23)


def render(style: str, language: str = "pt-br", record: Record = TWO_AUTHORS) -> str:
    return cite.citation(record, cite.STYLES[style], language, today=TODAY)


@pytest.mark.parametrize("style", list(cite.STYLES))
def test_without_creators_or_a_place_a_citation_has_no_artefacts(style):
    """The title stands in for the authors once (citeproc-py repeated it), and no empty
    field leaves its separator (ABNT wrote "INPE, , 2013" for an untyped text)."""
    untyped = Record(ibi="ibi.test/a/2013/01.02", ibip="", title="Relatório retirado",
                     persistent_url="http://urlib.net/X", publisher="INPE", date="2013")
    for record in (untyped, replace(untyped, types=("Relatório técnico",)),
                   replace(untyped, creators=TWO_AUTHORS.creators)):
        for language in ("pt-br", "en"):
            text = render(style, language, record)
            assert text.lower().count("relatório retirado") == 1, text
            assert not re.search(r",\s*,|\.\s*\.", text), text


def test_a_tombstone_removed_at_the_creators_request_cites_without_them(
        client, site, librarian_api):
    named = site["gone"]
    withdrawn = make.item(("relatorio.pdf", PDF, "application/pdf"), title="Retirado a pedido",
                          language="pt-BR", dc=REPORT)
    response = librarian_api.delete(f"/api/items/{withdrawn.ibi}", {
        "reason": "a pedido dos autores", "at_creators_request": True}, format="json",
        secure=True)
    assert response.status_code == 200, response.json()
    assert "Silva" not in response.json()["citation"]
    assert response.json()["citation"].startswith("Retirado a pedido. (")
    for style in ("abnt", "apa"):
        page = client.get(f"/items/{withdrawn.ibi}?style={style}", **PT).content.decode()
        assert page.count("Retirado a pedido") >= 1 and "SILVA" not in page.upper(), style
        assert "Souza" not in page
        # A tombstone deleted without that request still names them.
        kept = client.get(f"/items/{named.ibi}?style={style}", **PT).content.decode()
        assert "SILVA" in kept.upper()


def test_abnt_cites_a_technical_report_with_two_authors_as_nbr_6023_does():
    # Written by hand from NBR 6023 (2002, the edition the CSL style says it follows): authors
    # in capitals by surname, separated by ";", given names abbreviated (the norm allows either,
    # consistently); title (bold on paper); place: publisher, year; then the online access.
    # NBR 6023:2018 writes the URL without <>, and "[S. l.]" for an unknown place: there the
    # style is a revision behind, not wrong for its edition, and it is the CSL repository's
    # own ABNT, which Brazilian libraries accept; we keep it rather than patch its output.
    expected = ("SILVA, J. C.; SOUZA, M. A. Modelagem do clima regional da Amazônia. "
                "São José dos Campos: INPE, 2013. "
                "Disponível em: <http://urlib.net/8JMKD3MGP7W/3EPGUE5>. "
                "Acesso em: 23 nov. 2026.")
    assert render("abnt") == expected
    # The language of the page does not change ABNT's Portuguese.
    assert render("abnt", "en") == expected


def test_a_citation_is_rendered_once_a_day_per_record_style_and_language(monkeypatch):
    import dataclasses

    rendered = []
    real = csl.bibliography

    def counted(record, style, locale, *, accessed):
        rendered.append((record.title, style, locale, accessed))
        return real(record, style, locale, accessed=accessed)

    monkeypatch.setattr(csl, "bibliography", counted)
    first = render("abnt")
    assert render("abnt") == first and len(rendered) == 1  # the second reader: from the cache
    renamed = dataclasses.replace(TWO_AUTHORS, title="Outro título")
    assert "Outro título" in render("abnt", record=renamed)  # a changed item: never stale
    assert render("apa", "en") != first  # another style, another language
    assert "Acesso em: 24 nov. 2026" in cite.citation(
        TWO_AUTHORS, cite.STYLES["abnt"], "pt-br", today=date(2026, 11, 24))  # another day
    assert len(rendered) == 4


def test_abnt_without_a_place_says_sine_loco():
    unplaced = Record(**{**TWO_AUTHORS.__dict__, "publisher_place": ""})
    assert "Amazônia. [S.l.]: INPE, 2013." in render("abnt", record=unplaced)


@pytest.mark.parametrize(("style", "language", "features"), [
    # APA 7: initials after the surname, "&" before the last author, the year in brackets,
    # the report number after the title, the URL bare at the end.
    ("apa", "en", ["Silva, J. C., & Souza, M. A. (2013).",
                   "Amazônia (INPE-17123-RPQ/123). INPE. http://urlib.net/8JMKD3MGP7W/3EPGUE5"]),
    # Chicago author-date: only the first author inverted, the year bare after the names.
    ("chicago", "en", ["Silva, J. C., and M. A. Souza. 2013. Modelagem"]),
    ("chicago", "pt-br", ["Silva, J. C., e M. A. Souza. 2013."]),
    # IEEE: initials first, the title in quotes, "[Online]. Available:"; no "[1]" for one item.
    ("ieee", "en", ["J. C. Silva and M. A. Souza, “Modelagem do clima regional da Amazônia”,",
                    "Accessed: Nov. 23, 2026. [Online]. Available: http://urlib.net/"]),
    ("ieee", "pt-br", ["J. C. Silva e M. A. Souza, “Modelagem", "[Online]. Disponível em:"]),
    # Vancouver (NLM): initials without points or commas, "[Internet]", "[cited …]".
    ("vancouver", "en", ["Silva JC, Souza MA. Modelagem do clima regional da Amazônia "
                         "[Internet].", "Available from: http://urlib.net/"]),
    ("vancouver", "pt-br", ["Silva JC, Souza MA.", "[citado 23 de novembro de 2026]"]),
])
def test_the_other_styles_show_what_distinguishes_them(style, language, features):
    text = render(style, language)
    for feature in features:
        assert feature in text, text
    assert not text.startswith(("[1]", "1."))


def test_every_style_offered_is_installed_and_renders():
    for style in cite.STYLES.values():
        assert csl.bibliography(TWO_AUTHORS, style.csl, "pt-BR")


def test_the_landing_page_cites_in_abnt_for_brazilians_and_apa_for_others(client, site):
    item = site["item"]
    pt = client.get(f"/items/{item.ibi}", **PT).content.decode()
    assert 'data-style="abnt">SILVA, J. C.; SOUZA, M. A. Modelagem do clima regional' in pt
    assert '<option value="abnt" selected>ABNT (NBR 6023)</option>' in pt
    assert "Chicago (autor-data)" in pt
    en = client.get(f"/items/{item.ibi}", **EN).content.decode()
    assert 'data-style="apa">Silva, J. C., &amp; Souza, M. A. (2013).' in en
    assert '<option value="apa" selected>APA</option>' in en


def test_the_reader_picks_a_style_without_javascript(client, site):
    item = site["item"]
    html = client.get(f"/items/{item.ibi}?style=vancouver", **EN).content.decode()
    assert '<form class="cite-style" method="get"' in html
    assert '<option value="vancouver" selected>Vancouver</option>' in html
    assert 'data-style="vancouver">Silva JC, Souza MA.' in html


def test_an_unknown_style_is_a_400_page_that_says_so(client, site):
    response = client.get(f"/items/{site['item'].ibi}?style=../../etc/passwd", **PT)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Não há estilo de citação ../../etc/passwd aqui" in html
    assert 'data-style="abnt">SILVA' in html  # and the default style beside it


def test_bibtex_ris_and_csl_json_download_as_files(client, site):
    item = site["item"]
    html = client.get(f"/items/{item.ibi}", **PT).content.decode()
    name = item.ibi.replace("/", "-")
    for label, fmt, extension in (("BibTeX", "bibtex", "bib"), ("RIS", "ris", "ris"),
                                  ("CSL-JSON", "csljson", "json")):
        url = f"/items/{item.ibi}/metadata/{fmt}?download"
        assert f'<a href="{url}" download>{label}</a>' in html
        response = client.get(url)
        assert response.status_code == 200
        assert response["Content-Disposition"] == f'attachment; filename="{name}.{extension}"'
    assert "Content-Disposition" not in client.get(f"/items/{item.ibi}/metadata/bibtex")


# -- Messages of the pure modules --------------------------------------------------------------

def test_a_bad_persistent_url_is_explained_in_portuguese(client, site):
    html = client.get(f"/{site['item'].ibip}/a/../b.pdf", **PT).content.decode()
    if "..'" not in html:  # the client may normalise the path: ask the parser directly
        with pytest.raises(persistent_url.PersistentUrlError) as caught:
            persistent_url.parse("/LK47B6W/362SFKH/a/../b.pdf")
        with translation.override("pt-br"):
            assert reader_message(caught.value) == "'..' no caminho do arquivo '/a/../b.pdf'"
        assert str(caught.value) == "'..' in the file path '/a/../b.pdf'"
    html = client.get("/sid.inpe.br/mtc-m19/2013/13.45", **PT).content.decode()
    assert "&#x27;/sid.inpe.br/mtc-m19/2013/13.45&#x27; não é um nome de repositório" in html


def test_an_unknown_csl_style_asked_by_accept_is_refused_in_portuguese(client, site):
    response = client.get(f"/{site['item'].ibi}",
                          HTTP_ACCEPT="text/x-bibliography; style=nope", **PT)
    assert response.status_code == 400
    assert response.content.decode() == (
        "Não é possível responder neste formato: nenhum estilo CSL chamado 'nope' está "
        "instalado\n")


def test_the_error_pages_speak_portuguese(client, db):
    html = client.get("/items/nothing", **PT).content.decode()
    assert "<h1>Página não encontrada</h1>" in html and '<html lang="pt-BR">' in html


# -- In a browser -------------------------------------------------------------------------------

def test_a_reader_switches_the_landing_page_to_english_and_back(live_site, browser,
                                                                site):  # noqa: F811
    context = browser.new_context(locale="pt-BR", viewport={"width": 1280, "height": 800})
    page = context.new_page()
    landing = f"{live_site.url}/items/{site['item'].ibi}"
    page.goto(landing)
    expect(page.locator("html")).to_have_attribute("lang", "pt-BR")
    expect(page.get_by_role("heading", name="Como citar")).to_be_visible()
    expect(page.locator("#cite-text")).to_contain_text("SILVA, J. C.; SOUZA, M. A.")

    page.select_option("#site-language", "en")
    page.click("form.language button[type=submit]")
    expect(page).to_have_url(landing)  # the same URL: no language in it
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", name="Cite")).to_be_visible()
    expect(page.locator("#cite-text")).to_contain_text("Silva, J. C., & Souza, M. A. (2013).")
    page.reload()  # the choice is kept over the browser's pt-BR
    expect(page.locator("html")).to_have_attribute("lang", "en")

    page.select_option("#site-language", "pt-br")
    page.click("form.language button[type=submit]")
    expect(page).to_have_url(landing)
    expect(page.locator("html")).to_have_attribute("lang", "pt-BR")
    expect(page.get_by_role("heading", name="Arquivos", exact=True)).to_be_visible()

    # The citation style, picked without JavaScript's help: a plain GET form.
    page.select_option("#cite-style", "ieee")
    page.click("form.cite-style button[type=submit]")
    expect(page).to_have_url(f"{landing}?style=ieee")
    expect(page.locator("#cite-text")).to_contain_text("J. C. Silva e M. A. Souza, “Modelagem")
    context.close()


def test_the_ibi_codecs_reasons_reach_a_brazilian_reader_in_portuguese(client, db):
    """identifiers/ibi.py stays pure: its error carries the English template and parameters,
    which the alert page translates (resolver/messages.py)."""
    page = client.get("/iconet.com.br/banon/2009/13.09.22.01", **PT)
    assert page.status_code == 400
    html = page.content.decode()
    assert "mês 13 fora do intervalo" in html and "month 13 out of range" not in html
    english = client.get("/iconet.com.br/banon/2009/13.09.22.01", **EN).content.decode()
    assert "month 13 out of range" in english
