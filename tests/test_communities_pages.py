"""The tree's pages (issue 34): the home page browses the tree; a community's page; a
collection's page lists its items, mapped ones included, newest first, with its facets and
pages (the browse's caps); its Atom and RSS feeds read by a feed reader's parser."""
from __future__ import annotations

import feedparser
import pytest

from archive.communities import services as tree
from archive.models import Item
from tests import factories as make

pytestmark = pytest.mark.django_db


@pytest.fixture
def programme(settings):
    settings.ARCHIVE_ADDRESS = "testserver"
    found = make.programme()
    found["old"] = make.item(title="Tese antiga", collection=found["theses"],
                             dc={"creator": ["Silva, Maria"], "description": ["Um resumo"]})
    found["mapped"] = make.item(title="Artigo mapeado", collection=found["articles"])
    found["new"] = make.item(title="Tese nova", collection=found["theses"],
                             dc={"creator": ["Souza, João"]})
    found["elsewhere"] = make.item(title="Relatório de outra coleção")
    tree.item_map(item=found["mapped"], collections=[found["theses"]])
    return found


def titles(html: str, among: list[str]) -> list[str]:
    """The titles among `among`, in the order the page shows them."""
    return sorted((t for t in among if t in html), key=html.index)


ALL = ["Tese nova", "Artigo mapeado", "Tese antiga", "Relatório de outra coleção"]


def test_the_home_page_browses_the_tree(client, programme):
    """The communities at the top and those right under them; a community's page goes on."""
    make.community("lab", programme["programme"])
    html = client.get("/").content.decode()
    for path in ("/communities/engenharia", "/communities/ppgee", "/communities/repository"):
        assert f'href="{path}"' in html
    assert 'href="/communities/lab"' not in html
    html = client.get("/communities/ppgee").content.decode()
    assert 'href="/communities/lab"' in html and 'href="/collections/teses-ppgee"' in html


def test_a_collection_lists_its_items_and_mapped_ones_newest_first(client, programme):
    response = client.get("/collections/teses-ppgee")
    assert response.status_code == 200
    html = response.content.decode()
    assert titles(html, ALL) == ["Tese nova", "Artigo mapeado", "Tese antiga"]
    assert "3 items" in html
    assert "/search?collection=teses-ppgee&amp;creator=Silva%2C+Maria" in html  # its facets
    assert 'href="/communities/ppgee"' in html and 'href="/communities/engenharia"' in html
    assert client.get("/collections/nowhere").status_code == 404


def test_a_collection_is_paged(client, programme, monkeypatch):
    monkeypatch.setattr("archive.site.communities.PAGE_SIZE", 2)
    first = client.get("/collections/teses-ppgee").content.decode()
    second = client.get("/collections/teses-ppgee?page=2").content.decode()
    assert titles(first, ALL) == ["Tese nova", "Artigo mapeado"]
    assert titles(second, ALL) == ["Tese antiga"]


def test_a_community_shows_its_subtree_and_newest_items(client, programme):
    response = client.get("/communities/engenharia")
    html = response.content.decode()
    assert 'href="/communities/ppgee"' in html and 'href="/collections/teses-ppgee"' in html
    assert titles(html, ALL) == ["Tese nova", "Artigo mapeado", "Tese antiga"]
    assert client.get("/communities/nowhere").status_code == 404


@pytest.mark.parametrize(("path", "version"), [("atom.xml", "atom10"), ("rss.xml", "rss20")])
def test_the_feeds_are_valid_and_newest_first(client, programme, path, version):
    response = client.get(f"/collections/teses-ppgee/{path}")
    assert response.status_code == 200
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.bozo_exception
    assert feed.version == version
    assert feed.feed.title == "Collection teses-ppgee"
    assert [e.title for e in feed.entries] == ["Tese nova", "Artigo mapeado", "Tese antiga"]
    old = feed.entries[2]
    assert old.link == f"http://testserver/items/{programme['old'].ibi}"
    assert old.summary == "Um resumo" and "Silva, Maria" in old.author
    assert client.get(f"/collections/nowhere/{path}").status_code == 404


def test_the_pages_speak_portuguese(client, programme):
    html = client.get("/collections/teses-ppgee",
                      headers={"Accept-Language": "pt-BR"}).content.decode()
    assert "Coleção teses-ppgee" in html and "3 itens" in html
    assert Item.objects.count() >= 4
