"""axe-core (from the npm registry: package.json, `make test` installs it) on every page of the
admin, in Brazilian Portuguese, in Debian's Chromium: no violation of any rule axe runs by
default (WCAG 2.x A and AA, and its best practices).

Every page: the index, each app's index, and for every registered model its list, its add
form, an object's change form, history and delete confirmation, as a superuser (who sees them
all); the login page; the password change; an item's "connect a creator's ORCID iD"; the
item list's "move to a collection", "change access" and bulk delete confirmation pages (the
last two also sent back with their errors). The deposit form is also checked with files
waiting in it (the pending uploads, the main file's list), as a validation error leaves it.
"""
from __future__ import annotations

import json

from django.apps import apps
from django.contrib import admin
from django.urls import NoReverseMatch, reverse

from archive.models import Item, PendingUpload
from tests import factories as make

# The sidebar (every app's models, the one a page is about marked `current-model`) is the same
# on every page but for which row is marked: axe checks it whole on the first pages (the index,
# and a list, where a row is marked) and leaves it out of the others' checks (a third of a
# small page's elements, checked ninety times).
SIDEBAR_CHECKED_ON = ("/admin/", "/admin/archive/item/")


def violations(page, *, sidebar: bool = False) -> list[dict]:
    """axe-core's violations on the page as it is: rule, impact, and where (the admin's
    sidebar left out unless `sidebar`)."""
    # The admin's pickers (select2) are built on jQuery's ready, after the load event.
    page.wait_for_function("""() => [...document.querySelectorAll('select.admin-autocomplete')]
        .every(s => s.nextElementSibling?.querySelector('[data-ibi-named]'))""")
    make.with_axe(page)
    found = page.evaluate(
        """async (sidebar) => (await axe.run(
            sidebar ? document : {exclude: [['#nav-sidebar']]},
            {resultTypes: ['violations']})).violations""", sidebar)
    return [{"rule": v["id"], "impact": v["impact"],
             "where": [" ".join(n["target"]) for n in v["nodes"]][:5]} for v in found]


def admin_pages(item: Item) -> list[str]:
    """Every page of the admin for the models registered, with `item` and other objects."""
    pages = {reverse("admin:index"), reverse("admin:password_change"),
             reverse("admin:archive_item_orcid", args=[item.pk])}
    for model in apps.get_models():
        if not admin.site.is_registered(model):
            continue
        meta = model._meta
        pages.add(reverse("admin:app_list", args=[meta.app_label]))
        for view in ("changelist", "add"):
            try:
                pages.add(reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}"))
            except NoReverseMatch:
                pass
        found = item if model is Item else model._default_manager.order_by("pk").first()
        for view in ("change", "history", "delete"):
            if found is not None:
                try:
                    pages.add(reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}",
                                      args=[found.pk]))
                except NoReverseMatch:
                    pass
    return sorted(pages)


def test_axe_finds_nothing_on_any_admin_page(live_site, browser, admin_user):
    item = make.item(("Relatório — versão final.pdf", b"%PDF-1.4"), ("dados.csv", b"a,b\n"),
                     title="Relatório técnico", language="pt-BR",
                     dc={"creator": ["Banon, Gerald"], "date": ["2013-09-04"]})
    # A creator with an ORCID iD: the page mailing them a "connect your ORCID iD" link.
    make.dc_value(item, "creator", "Carberry, Josiah", 1, authority="0000-0002-1825-0097")
    context = browser.new_context(locale="pt-BR", bypass_csp=True,
                                  viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{live_site.url}/admin/login/")
    found = {}
    if login := violations(page):
        found["/admin/login/"] = login
    page.fill("#id_username", admin_user.username)
    page.fill("#id_password", "password")
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_site.url}/admin/")
    pages = admin_pages(item)
    assert "/admin/archive/item/add/" in pages and len(pages) > 20
    assert set(SIDEBAR_CHECKED_ON) <= set(pages)
    for path in pages:
        response = page.goto(f"{live_site.url}{path}")
        if response.status == 403:
            continue  # a read-only admin's add or delete page: the admin offers none
        assert response.status == 200, path
        if problems := violations(page, sidebar=path in SIDEBAR_CHECKED_ON):
            found[path] = problems
    # The item list's bulk action, its confirmation page asking for the collection.
    page.goto(f"{live_site.url}/admin/archive/item/")
    page.check(f"input[name=_selected_action][value='{item.pk}']")
    page.select_option("select[name=action]", "move_to_collection")
    page.click("button[name=index]")
    page.locator("select[name=collection]").wait_for()
    if problems := violations(page):
        found["/admin/archive/item/ (move to a collection)"] = problems
    # Its other acts' pages (archive/admin/bulk.py): a new access level, tombstones; each
    # sent without what it asks, its errors shown.
    for action, asked in (("change_access", "#id_reason"), ("delete_selected", "#id_reason")):
        page.goto(f"{live_site.url}/admin/archive/item/")
        page.check(f"input[name=_selected_action][value='{item.pk}']")
        page.select_option("select[name=action]", action)
        page.click("button[name=index]")
        page.locator(asked).wait_for()
        if problems := violations(page):
            found[f"/admin/archive/item/ ({action})"] = problems
        page.locator(asked).evaluate("field => { field.required = false; }")
        page.click("#content input[type=submit]")
        page.locator(".errornote").wait_for()
        if problems := violations(page):
            found[f"/admin/archive/item/ ({action}, sent back)"] = problems
    # The deposit form with files uploaded (progress bars, remove buttons, the main file's
    # choices), then sent back by a validation error with the files waiting in it.
    page.goto(f"{live_site.url}/admin/archive/item/add/")
    page.set_input_files("#id_upload", [{"name": "Relatório — anexo.pdf", "mimeType":
                                         "application/pdf", "buffer": b"%PDF-1.4"}])
    page.locator(".ibi-upload .ibi-state").filter(has_text="enviado").wait_for()
    if problems := violations(page):
        found["/admin/archive/item/add/ (uploaded)"] = problems
    page.fill("#id_title", "Sem data válida")
    page.fill("#id_dc_date", "ontem")
    page.click("input[name=_save]")
    page.locator(".errorlist").first.wait_for()
    assert PendingUpload.objects.filter(name="Relatório — anexo.pdf").exists()
    if problems := violations(page):
        found["/admin/archive/item/add/ (sent back)"] = problems
    context.close()
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
