"""In a real browser that prefers Brazilian Portuguese, a librarian deposits a thesis with
every field of MTD-BR's profile through the admin (issue 34, point 3): the form is the thesis
collection's, in Portuguese, axe-core finds nothing on it, and what is stored is every
qualified value, in its language, with its authority id. (The same form in process, and its
refusals: tests/test_admin_profiles.py.)"""
from __future__ import annotations

import re

from playwright.sync_api import expect

from archive.models import Item, SubmissionProfile
from tests import factories as make
from tests.test_admin_accessibility import violations
from tests.test_admin_profiles import STORED, THESIS_FORM, stored
from tests.test_browser_admin_pt import log_in_in_portuguese


def test_a_librarian_deposits_a_thesis_with_every_mtd_br_field_in_portuguese(
        live_site, browser, librarian):
    theses = make.collection("teses-ppgc", make.community("ppgc"),
                             profile=SubmissionProfile.objects.get(slug="tese"))
    context = browser.new_context(locale="pt-BR", bypass_csp=True,
                                            viewport={"width": 1280, "height": 800})
    page = context.new_page()
    add = f"/admin/archive/item/add/?collection={theses.pk}"
    log_in_in_portuguese(page, live_site.url, add)

    expect(page.locator("fieldset h2", has_text="Metadados: Tese/dissertação (MTD-BR)")
           ).to_be_visible()
    for label in ("Orientador", "Coorientador", "Membro da banca", "Programa de pós-graduação",
                  "Área do conhecimento CNPq", "Nível do grau", "Resumo [pt-BR]",
                  "Resumo [en]"):
        expect(page.locator("label", has_text=re.compile(rf"^{re.escape(label)}:?$"))
               ).to_be_visible()
    page.fill("#id_title", "Uma tese")
    page.fill("#id_language", "pt-BR")
    page.set_input_files("input[name=upload]", [{
        "name": "tese.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4 tese"}])
    for name, value in THESIS_FORM.items():
        if name in ("md_local_degree_level",):
            page.select_option(f"#id_{name}", label="Doutorado")
        elif name == "md_dc_subject_cnpq":  # CNPq's table: boxes offering its areas
            for n, code in enumerate(value):
                page.fill(f"#id_{name}_{n}", code)
        elif not name.startswith(("dc_type", "dc_rights")):
            page.fill(f"#id_{name}", value)
    page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
    assert violations(page) == []
    make.screenshot(page, "admin-thesis-pt-BR")

    page.locator("input[name=_save]").click()
    expect(page.locator(".messagelist .success")).to_contain_text("Depositado “Uma tese”")
    item = Item.objects.get(title="Uma tese")
    assert item.collection == theses and item.language == "pt-BR"
    assert stored(item) == STORED
    context.close()
