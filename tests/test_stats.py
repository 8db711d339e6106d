"""Access statistics: per item, per edition family, per translation; page and API."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from archive.models import DailyAccessCount
from archive.usage import selectors as stats
from tests import factories as make

pytestmark = pytest.mark.django_db


def accesses(item, downloads=0, acknowledgments=0):
    # Spread over two days, as the counter writes them: the statistics sum the days. One
    # reader session a day.
    today = timezone.now().date()
    for kind, n in (("download", downloads), ("acknowledgment", acknowledgments)):
        if n:
            DailyAccessCount.objects.create(item=item, kind=kind, day=today, n=n // 2,
                                            unique_n=min(1, n // 2))
            DailyAccessCount.objects.create(item=item, kind=kind, n=n - n // 2, unique_n=1,
                                            day=today - timedelta(days=1))


@pytest.fixture
def family():
    first = make.item(("a.txt", b"First"), title="First", language="en")
    second = make.item(("a.txt", b"Second"), title="Second", language="en",
                       previous_edition=first)
    portuguese = make.item(("a.txt", b"Segunda"), title="Segunda", language="pt-BR",
                           translation_of=second)
    french = make.item(("a.txt", "Deuxième".encode()), title="Deuxième", language="fr",
                       translation_of=second)
    other = make.item(("a.txt", b"Unrelated"), title="Unrelated")
    accesses(first, downloads=2, acknowledgments=1)
    accesses(second, downloads=3, acknowledgments=4)
    accesses(portuguese, downloads=5)
    accesses(french, acknowledgments=6)
    accesses(other, downloads=100)
    return first, second, portuguese, french


def test_counts_per_item_edition_family_and_translation(family, django_assert_max_num_queries):
    first, second, portuguese, french = family
    with django_assert_max_num_queries(2):
        got = stats.item_statistics(second)
    assert got["item"] == {"downloads": 3, "acknowledgments": 4, "total": 7}
    assert got["editions"]["total"] == 10
    assert [(e["edition"], e["ibi"], e["total"]) for e in got["editions"]["items"]] == [
        (1, first.ibi, 3), (2, second.ibi, 7)]
    assert (got["translations"]["downloads"], got["translations"]["acknowledgments"]) == (8, 10)
    assert [(t["language"], t["total"]) for t in got["translations"]["items"]] == [
        ("en", 7), ("fr", 6), ("pt-BR", 5)]
    assert got["unique"] == {
        "item": {"downloads": 2, "acknowledgments": 2, "total": 4},
        "editions": {"downloads": 4, "acknowledgments": 3, "total": 7},
        "translations": {"downloads": 4, "acknowledgments": 4, "total": 8}}


def test_a_translation_sees_its_whole_language_family(family):
    _first, _second, portuguese, _french = family
    got = stats.item_statistics(portuguese)
    assert got["item"]["total"] == 5 and got["translations"]["total"] == 18
    assert len(got["editions"]["items"]) == 1  # a translation starts its own edition chain


def test_the_api_answers_statistics(family):
    _first, second, _pt, _fr = family
    response = APIClient().get(f"/api/items/{second.ibip}/statistics", secure=True)
    assert response.status_code == 200
    assert response.json()["item"] == {"downloads": 3, "acknowledgments": 4, "total": 7}
    missing = APIClient().get("/api/items/LK47B6W/362SFKH/statistics", secure=True)
    assert missing.status_code == 404 and "detail" in missing.json()


def test_the_landing_page_shows_them(family, client):
    _first, second, _pt, _fr = family
    page = client.get(f"/items/{second.ibi}").content.decode()
    assert "This item: <strong>7</strong> (3 downloads here, 4 through the resolver)" in page
    assert "All 2 editions: <strong>10</strong> (edition 1: 3; edition 2: 7)" in page
    assert ('All 3 language versions: <strong>18</strong> (<data value="en">English</data>: 7; '
            '<data value="fr">French</data>: 6; '
            '<data value="pt-BR">Portuguese (Brazil)</data>: 5)') in page


def test_a_download_counts_on_the_page(client):
    item = make.item(("a.txt", b"Lonely"), title="Lonely")
    browser = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
    assert client.get(f"/col/{item.ibi}/doc/a.txt", HTTP_USER_AGENT=browser).status_code == 200
    page = client.get(f"/items/{item.ibi}").content.decode()
    assert "This item: <strong>1</strong> (1 download here, 0 through the resolver)" in page
    assert "editions:" not in page and "language versions" not in page
