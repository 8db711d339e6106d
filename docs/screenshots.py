"""The documentation's screenshots of the public site in Brazilian Portuguese, made again on demand:

    .venv/bin/python docs/screenshots.py

writes docs/screenshots/home-pt-BR.png and docs/screenshots/landing-pt-BR.png (1280×800, the
first screen of each page), docs/screenshots/landing-pt-BR-phone.png (the landing page on a
375×812 phone, its first two screens), docs/screenshots/thesis-pt-BR.png (the landing page of a
doctoral thesis, 1280 wide, its first two screens), docs/screenshots/search-fulltext-pt-BR.png
(a search for a word found on page 143 of a 150-page thesis: the result with its thumbnail, its
snippet and the page) and docs/screenshots/events-pt-BR.png (the report's preservation events
on its admin page, as a librarian signed in sees them: its deposit, its files' formats
identified, a fixity check, a change of its metadata and of its access). `docs/screenshots.py
thesis-pt-BR` makes only the ones named. A throw-away SQLite database and media folder hold a
small collection (a technical report in Portuguese by two authors, with a PDF, its English
translation and a few neighbours, and the tests' showcase, `make.showcase()`, whose thesis has
every MTD-BR field: advisor, co-advisor, committee, programme, CNPq area, degree); Django's
live server serves it, and Debian's Chromium, driven by Playwright as tests/test_browser.py
drives it, asks for pt-BR. Nothing in db.sqlite3 or media/ is read or written. The admin's
screenshot is made elsewhere.
"""
from __future__ import annotations

import io
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--hide-scrollbars"]


def _pdf(lines: list[str]) -> bytes:
    """A one-page PDF with these lines of text: what the landing page's preview shows."""
    text = " ".join(f"({line}) Tj 0 -28 Td" for line in lines)
    stream = f"BT /F1 20 Tf 60 760 Td {text} ET"
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
               "/Resources << /Font << /F1 5 0 R >> >> >>",
               f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream",
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = "%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n"
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    return out.encode("latin-1")


PDF = _pdf(["Modelagem do clima regional da Amazonia", "Cenarios para 2050", "",
            "Relatorio tecnico INPE-17123-RPQ/123", "Silva, J. C.; Souza, M. A."])


def _environment(work: Path) -> None:
    os.environ.setdefault("DEBUG", "1")
    os.environ["DATABASE_URL"] = f"sqlite:///{work / 'db.sqlite3'}"
    os.environ["MEDIA_ROOT"] = str(work / "media")
    os.environ["IBI_UPLOAD_TEMP_DIR"] = str(work / "upload-tmp")
    os.environ["DJANGO_SETTINGS_MODULE"] = "ibirepo.settings"
    sys.path.insert(0, str(ROOT))


def _collection() -> str:
    """Deposits the items the pages show; returns the report's repository name."""
    from archive.deposit import services
    from archive.deposit.services import Upload

    def deposit(title: str, language: str, dc: dict, name: str = "relatorio.pdf", **links):
        return services.item_deposit(
            title=title, language=language, dc=dc, **links,
            uploads=[Upload(name=name, file=io.BytesIO(PDF), content_type="application/pdf")])

    services.ensure_archive_service()
    deposit("Sensoriamento remoto de queimadas no Cerrado", "pt-BR",
            {"creator": ["Pereira, Ana Lúcia"], "subject": ["queimadas", "Cerrado"],
             "date": ["2012"], "type": ["Artigo"]}, "artigo.pdf")
    deposit("Catálogo de imagens CBERS-4", "pt-BR",
            {"creator": ["Oliveira, Paulo"], "subject": ["CBERS"], "date": ["2015"],
             "type": ["Conjunto de dados"]}, "catalogo.pdf")
    first = deposit("Modelagem do clima regional da Amazônia: cenários para 2050", "pt-BR",
                    {"creator": ["Silva, João Carlos", "Souza, Maria Aparecida"],
                     "date": ["2012-11-30"], "type": ["Relatório técnico"]})
    report = deposit(
        "Modelagem do clima regional da Amazônia: cenários para 2050", "pt-BR",
        {"creator": [("Silva, João Carlos", "0000-0002-1825-0097"), "Souza, Maria Aparecida"],
         "subject": ["clima", "Amazônia", "modelagem regional"],
         "description": ["Simulações do modelo regional Eta para a Amazônia em dois cenários "
                         "de emissões, com a validação sobre o período 1961–1990."],
         "publisher": ["Instituto Nacional de Pesquisas Espaciais (INPE)"],
         "date": ["2013-09-04"], "type": ["Relatório técnico"],
         "identifier": ["INPE-17123-RPQ/123"], "rights": ["CC-BY-4.0"]},
        previous_edition=first)
    deposit("Regional climate modelling of the Amazon: scenarios for 2050", "en",
            {"creator": ["Silva, João Carlos", "Souza, Maria Aparecida"],
             "subject": ["climate", "Amazon"], "date": ["2014"], "type": ["Report"]},
            "report.pdf", translation_of=report)
    return report.ibi


# A thesis of 150 pages whose page 143 alone says the word searched for (ASCII: the PDF's
# Helvetica is a standard font without accents).
FIRE_PAGES = {1: "Dinamica do fogo no Cerrado: efeitos sobre o solo e a vegetacao. Tese de "
                 "doutorado em Ecologia.",
              143: "Nas parcelas queimadas, a serapilheira acumulada apos o fogo reduziu a "
                   "erosao do solo em dois tercos ao longo de tres estacoes chuvosas."}
FIRE_WORD = "serapilheira"


def _fire_thesis() -> None:
    """A thesis whose text is extracted (and its thumbnail made) now, as a worker would."""
    from archive.deposit import services
    from archive.deposit.services import Upload
    from archive.fulltext import services as extraction
    from tests import factories as make

    texts = [FIRE_PAGES.get(n, f"Capitulo {n // 30 + 1}, pagina {n}: metodos, areas de "
                                 "estudo e resultados das campanhas de campo.")
             for n in range(1, 151)]
    item = services.item_deposit(
        title="Dinâmica do fogo no Cerrado: efeitos sobre o solo e a vegetação", language="pt-BR",
        dc={"creator": ["Almeida, Beatriz Nogueira"], "date": ["2019-03-22"],
            "type": ["Tese"], "subject": ["fogo", "Cerrado", "solo"]},
        uploads=[Upload(name="tese.pdf", file=io.BytesIO(make.pdf_pages(*texts)),
                        content_type="application/pdf")])
    for file in item.files.all():
        extraction.process(file.pk)


def made_any(wanted: list[str], name: str) -> bool:
    return not wanted or name in wanted


def _history(ibi: str) -> int:
    """The report's events as a librarian's work leaves them; the librarian who signs in."""
    from django.contrib.auth.models import User

    from archive.deposit import services
    from archive.models import Item
    from archive.preservation import events, fixity, formats

    librarian = User.objects.create_user("ana", password="uma frase-senha longa",
                                         is_staff=True, first_name="Ana")
    librarian.groups.add(services.ensure_librarians_group())
    item = Item.objects.get(ibi=ibi)
    if not Item.objects.filter(pk=item.pk, files__format_identified__isnull=False).exists():
        formats.identify(item.files.values_list("pk", flat=True))  # (no worker ran it)
    for row in item.files.select_related("item"):
        fixity.check_one(row)
    with events.acting_as(lambda: librarian):
        services.item_update(item=item, dc={"subject": ["clima", "Amazônia", "Eta"]})
        services.item_set_access(item=item, rights="embargoed", embargo_until="2027-03-01",
                                 reason="Aguardando publicação do artigo")
    return item.pk


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="ibirepo-screenshots-"))
    _environment(work)
    import django

    django.setup()
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.core.management import call_command
    from django.test.testcases import LiveServerThread
    from playwright.sync_api import sync_playwright

    call_command("migrate", verbosity=0)
    ibi = _collection()
    from tests import factories as make

    thesis = make.showcase()["embargoed"].ibi
    _fire_thesis()
    item_pk = _history(ibi) if made_any(sys.argv[1:], "events-pt-BR") else None
    wanted = set(sys.argv[1:])

    def made(name: str) -> bool:
        return not wanted or name in wanted
    server = LiveServerThread("localhost", StaticFilesHandler)
    server.daemon = True
    server.start()
    server.is_ready.wait()
    if server.error:
        raise server.error
    url = f"http://localhost:{server.port}"
    OUT.mkdir(parents=True, exist_ok=True)
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                  args=CHROMIUM_ARGS)
            page = chromium.new_context(locale="pt-BR", viewport={"width": 1280, "height": 800},
                                        device_scale_factor=1).new_page()
            for name, path in (("home-pt-BR", "/"), ("landing-pt-BR", f"/items/{ibi}")):
                if made(name):
                    page.goto(url + path)
                    page.wait_for_load_state("networkidle")
                    page.screenshot(path=OUT / f"{name}.png")
                    print(OUT / f"{name}.png")
            if made("thesis-pt-BR"):
                page.goto(f"{url}/items/{thesis}")
                page.wait_for_load_state("networkidle")
                page.screenshot(path=OUT / "thesis-pt-BR.png", full_page=True,
                                clip={"x": 0, "y": 0, "width": 1280, "height": 1600})
                print(OUT / "thesis-pt-BR.png")
            if made("search-fulltext-pt-BR"):
                page.goto(f"{url}/search?q={FIRE_WORD}&in=fulltext")
                page.wait_for_load_state("networkidle")
                page.screenshot(path=OUT / "search-fulltext-pt-BR.png")
                print(OUT / "search-fulltext-pt-BR.png")
            if made("landing-pt-BR-phone"):
                phone = chromium.new_context(locale="pt-BR",
                                             viewport={"width": 375, "height": 812},
                                             device_scale_factor=1, is_mobile=True).new_page()
                phone.goto(f"{url}/items/{ibi}")
                phone.wait_for_load_state("networkidle")
                phone.screenshot(path=OUT / "landing-pt-BR-phone.png",
                                 clip={"x": 0, "y": 0, "width": 375, "height": 1624},
                                 full_page=True)
                print(OUT / "landing-pt-BR-phone.png")
            if made("events-pt-BR"):
                # Wide enough for the table beside the admin's menu.
                page = chromium.new_context(locale="pt-BR", viewport={"width": 1600,
                                                                      "height": 900},
                                            device_scale_factor=1).new_page()
                page.goto(f"{url}/admin/login/")
                page.fill("#id_username", "ana")
                page.fill("#id_password", "uma frase-senha longa")
                page.click("input[type=submit]")
                page.goto(f"{url}/admin/archive/item/{item_pk}/change/")
                page.wait_for_load_state("networkidle")
                section = page.locator("table.ibi-events").locator("xpath=ancestor::fieldset")
                section.scroll_into_view_if_needed()
                section.screenshot(path=OUT / "events-pt-BR.png")
                print(OUT / "events-pt-BR.png")
            chromium.close()
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
