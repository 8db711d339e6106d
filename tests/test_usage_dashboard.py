"""The librarians' usage dashboards (issue 39): per month for the repository, a community, a
collection and an item, a server-drawn SVG chart with its table and a CSV; top items and
collections; in Brazilian Portuguese in Chromium with axe finding nothing."""
from __future__ import annotations

import csv
import io
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from playwright.sync_api import expect

from archive.usage import counter as access_counter
from archive.usage import rollup
from tests import factories as make
from tests.conftest import PASSWORD

DOCS_SCREENSHOT = Path(django_settings.BASE_DIR) / "docs/screenshots/usage-dashboard-pt-BR.png"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


def used(*, months: int = 6) -> dict:
    """Two collections in a faculty, three items read over the last `months` months (a few
    readers a day), rolled up."""
    faculty = make.community("engenharia", name_pt_br="Faculdade de Engenharia",
                             name_en="School of Engineering")
    theses = make.collection("teses-eng", faculty, name_pt_br="Teses de Engenharia",
                             name_en="Engineering theses")
    reports = make.collection("relatorios", faculty, name_pt_br="Relatórios técnicos",
                              name_en="Technical reports")
    items = [make.item("a.pdf", title="Modelagem do clima regional", collection=theses),
             make.item("b.pdf", title="Hidrologia do semiárido", collection=theses),
             make.item("c.pdf", title="Relatório de campo 2026", collection=reports)]
    this_month = datetime.now(UTC).date().replace(day=1)
    day = this_month
    for _ in range(months):
        day = (day - timedelta(days=1)).replace(day=1)
    n = 0
    while day < this_month:
        for k, item in enumerate(items):
            for reader in range((day.month + k) % 4 + 1):
                at = datetime(day.year, day.month, day.day, 10 + reader, tzinfo=UTC)
                ip = f"10.1.{k}.{reader}"
                access_counter.count(item.pk, [ip], "landing", at, user_agent=FIREFOX,
                                     kind="investigation", access_type="open")
                if (reader + n) % 2 == 0:
                    access_counter.count(item.pk, [ip], "a.pdf", at + timedelta(minutes=1),
                                         user_agent=FIREFOX, kind="download",
                                         access_type="open")
        n += 1
        day += timedelta(days=5)
    access_counter.flush()  # in a test's transaction: written already
    for month in rollup.months_due(this_month):
        rollup.roll_up(month)
    return {"faculty": faculty, "theses": theses, "items": items}


@pytest.mark.django_db
def test_every_scope_has_its_months_table_and_csv(librarian_client):
    made = used(months=3)
    for scope, pk in (("repository", ""), ("community", made["faculty"].pk),
                      ("collection", made["theses"].pk), ("item", made["items"][0].pk)):
        page = librarian_client.get("/admin/archive/usagemonth/", {"scope": scope, "id": pk},
                                    secure=True)
        assert page.status_code == 200
        assert b"<svg" in page.content and b'role="img"' in page.content
        rows = list(csv.reader(io.StringIO(librarian_client.get(
            "/admin/archive/usagemonth/", {"scope": scope, "id": pk, "format": "csv"},
            secure=True).content.decode())))
        assert rows[0][0] == "Month" and len(rows) == 4  # the header and three months
    repository = [list(map(int, r[1:])) for r in list(csv.reader(io.StringIO(
        librarian_client.get("/admin/archive/usagemonth/", {"format": "csv"},
                             secure=True).content.decode())))[1:]]
    items = [[0] * 4 for _ in repository]
    for item in made["items"]:
        for month, row in enumerate(list(csv.reader(io.StringIO(librarian_client.get(
                "/admin/archive/usagemonth/", {"scope": "item", "id": item.pk,
                                               "format": "csv"},
                secure=True).content.decode())))[1:]):
            items[month] = [a + int(b) for a, b in zip(items[month], row[1:], strict=True)]
    assert repository == items and all(r[2] > 0 for r in repository)  # items sum up


def _months(client, **query) -> list[list[int]]:
    """The dashboard's CSV of a scope: each month's four metrics."""
    rows = csv.reader(io.StringIO(client.get("/admin/archive/usagemonth/",
                                             {**query, "format": "csv"},
                                             secure=True).content.decode()))
    return [list(map(int, row[1:])) for row in list(rows)[1:]]


def _sum(*tables: list[list[int]]) -> list[list[int]]:
    return [[sum(column) for column in zip(*rows, strict=True)]
            for rows in zip(*tables, strict=True)]


@pytest.mark.django_db
def test_an_item_mapped_into_a_collection_counts_there_and_once_above_it(librarian_client):
    """A collection's usage has the items mapped into it; its community, the repository and
    the Platform Report count each item once, where it is owned."""
    from archive.communities import services as tree
    from archive.usage import dashboard

    made = used(months=2)
    # The field report, owned by the reports, mapped into the theses too.
    tree.item_map(item=made["items"][2], collections=[made["theses"]])
    for month in dashboard.recent_months():
        rollup.roll_up(month)  # again, with the map
    client = librarian_client
    theses = _months(client, scope="collection", id=made["theses"].pk)
    per_item = [_months(client, scope="item", id=item.pk) for item in made["items"]]
    assert theses == _sum(*per_item) and theses != _sum(*per_item[:2])
    assert _months(client, scope="community", id=made["faculty"].pk) == _sum(*per_item)
    assert _months(client) == _sum(*per_item)
    top = dashboard.top_collections(dashboard.recent_months()[-1])
    found = {row["id"]: row["total_investigations"] for row in top}
    assert found[made["theses"].pk] == theses[-1][0]  # the last month's, mapped item too


@pytest.mark.django_db
def test_a_reader_without_the_permission_sees_no_dashboard(client):
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_user("staff", password=PASSWORD, is_staff=True))
    assert client.get("/admin/archive/usagemonth/", secure=True).status_code == 403


def test_the_dashboard_in_portuguese_passes_axe(live_site, browser, librarian):
    made = used()
    page = browser.new_context(locale="pt-BR", viewport={"width": 1280, "height": 800},
                               bypass_csp=True).new_page()  # bypass_csp: for axe
    page.goto(f"{live_site.url}/admin/login/?next=/admin/archive/usagemonth/")
    page.fill("#id_username", "librarian")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page.locator("h1")).to_have_text("Painel de uso")
    expect(page.locator("svg.usage-chart rect.bar-1")).to_have_count(6)
    expect(page.locator("#content-main table caption")).to_contain_text("Os valores do gráfico")
    expect(page.get_by_role("link", name="Baixar esta tabela em CSV")).to_be_visible()
    expect(page.locator("#usage-top-items")).to_contain_text("Itens mais requisitados")
    make.with_axe(page)
    assert make.axe_violations(page) == []
    page.get_by_role("link", name="Teses de Engenharia").click()
    expect(page.locator("#usage-chart-heading")).to_contain_text("Teses de Engenharia")
    assert make.axe_violations(page) == []
    page.goto(f"{live_site.url}/admin/archive/usagemonth/?scope=community"
              f"&id={made['faculty'].pk}")
    expect(page.locator("#usage-chart-heading")).to_contain_text("Faculdade de Engenharia")
    make.screenshot(page, "usage-dashboard-pt-BR")
    if os.environ.get("IBI_DOCS_SCREENSHOTS") == "1":
        DOCS_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=DOCS_SCREENSHOT, full_page=True)
    assert make.axe_violations(page) == []


@pytest.mark.django_db
def test_the_public_summary_is_there_only_when_the_operator_allows_it(client, settings):
    used(months=2)
    assert client.get("/usage/", secure=True).status_code == 404
    settings.IBI_USAGE_PUBLIC = True
    page = client.get("/usage/", secure=True, HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert page.status_code == 200 and b'role="img"' in page.content
    assert "Coleções mais requisitadas" in page.content.decode()
    assert "Hidrologia" not in page.content.decode()  # collections only, no item
