"""The README's screenshots of the public site in Brazilian Portuguese, made again on demand:

    .venv/bin/python docs/screenshots.py

writes docs/screenshots/home-pt-BR.png and docs/screenshots/landing-pt-BR.png (1280×800, the
first screen of each page). A throw-away SQLite database and media folder hold a small
collection (a technical report in Portuguese by two authors, with a PDF, its English
translation and a few neighbours); Django's live server serves it, and Debian's Chromium,
driven by Playwright as tests/test_browser.py drives it, asks for pt-BR. Nothing in
db.sqlite3 or media/ is read or written. The admin's screenshot is made elsewhere.
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
# A one-page PDF: enough for the file table to show a real type and size.
PDF = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]"
       b"/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>endobj\n"
       b"trailer<</Root 1 0 R>>\n%%EOF\n") + b"%" * 180_000


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
    report = deposit(
        "Modelagem do clima regional da Amazônia: cenários para 2050", "pt-BR",
        {"creator": ["Silva, João Carlos", "Souza, Maria Aparecida"],
         "subject": ["clima", "Amazônia", "modelagem regional"],
         "description": ["Simulações do modelo regional Eta para a Amazônia em dois cenários "
                         "de emissões, com a validação sobre o período 1961–1990."],
         "publisher": ["Instituto Nacional de Pesquisas Espaciais (INPE)"],
         "date": ["2013-09-04"], "type": ["Relatório técnico"],
         "identifier": ["INPE-17123-RPQ/123"], "rights": ["CC-BY-4.0"]})
    deposit("Regional climate modelling of the Amazon: scenarios for 2050", "en",
            {"creator": ["Silva, João Carlos", "Souza, Maria Aparecida"],
             "subject": ["climate", "Amazon"], "date": ["2014"], "type": ["Report"]},
            "report.pdf", translation_of=report)
    return report.ibi


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
                page.goto(url + path)
                page.screenshot(path=OUT / f"{name}.png")
                print(OUT / f"{name}.png")
            chromium.close()
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
