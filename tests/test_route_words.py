"""Issue #41, 7: every valid IBI resolves. A repository name's first path segment is its
subdomain, which may be a single label: the Archive at ``x.items`` mints ``items/x/2026/…``,
whose persistent URL a route of the site (``items/<ibi>``) takes too. It is resolved as a
persistent URL when an item or an Archive answers for it; the route answers only when nothing
does. The route words are read from the URLconf itself, so a route added later is covered."""
from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import URLResolver, get_resolver

from archive.deposit import services
from archive.identifiers import ibi as ibilib
from tests import factories as make

from .servers import FakeArchiveService

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("resolver_settings")]

HOST = "testserver"
NOBODYS = "2013/09.04.12.27.57"  # the date part of an IBI nobody holds
_OPTIONAL_WORDS = re.compile(r"\(\?:\(\?:([\w|]+)\)/\)\?")  # ^(?:(?:xmlui|jspui)/)?handle/…
_WORD = re.compile(r"[\w.-]+")


def _leading(text: str) -> tuple[list[str], str]:
    """The literal first words a route's pattern starts with, and the rest of it."""
    text = text.lstrip("^")
    words = []
    if optional := _OPTIONAL_WORDS.match(text):
        words, text = optional[1].split("|"), text[optional.end():]
    word = _WORD.match(text)
    if word is None:
        return words, text
    return [*(f"{w}/{word[0]}" for w in words), word[0]], text[word.end():]


def route_words() -> set[tuple[str, str]]:
    """(subdomain, first word) of repository names whose persistent URL some route of the
    URLconf also takes: a route's first word as the subdomain, and as the first word the
    route's second literal word when it has one (``timemap/link/…``, ``api/`` + ``items/…``),
    else any word."""
    found = set()

    def walk(patterns, prefix: str = "") -> None:
        for pattern in patterns:
            words, rest = _leading(str(pattern.pattern))
            if not words and rest == "" and isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix)  # path("", include(…))
            for word in words:
                head, _slash, second = f"{prefix}{word}".partition("/")
                if second:
                    found.add((head, second))
                    continue
                found.add((head, "x"))
                after = _WORD.match(rest[1:]) if rest.startswith("/") else None
                if after is not None and rest[1 + after.end():].startswith("/"):
                    found.add((head, after[0]))
                if isinstance(pattern, URLResolver) and rest in ("/", ""):
                    walk(pattern.url_patterns, f"{word}/")

    walk(get_resolver().url_patterns)
    return {(head, second) for head, second in found if _valid(head, second)}


def _valid(subdomain: str, first_word: str) -> bool:
    try:
        ibilib.parse(f"{subdomain}/{first_word}/{NOBODYS}")
    except ValueError:
        return False
    return True


WORDS = sorted(route_words())


def minted_at(settings, subdomain: str, first_word: str):
    """An item deposited at the Archive whose host is <first word>.<subdomain>."""
    settings.IBI_HOSTNAME = f"{first_word}.{subdomain}"
    item = make.item(("paper.pdf", b"%PDF paper"))
    assert item.ibi.startswith(f"{subdomain}/{first_word}/")
    return item


def routes_alone(settings) -> Client:
    """A client of the site without the middleware of #41, 7: what the routes answer."""
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE
                           if m != "archive.urls.PersistentUrlsBeforeRoutes"]
    return Client()


def test_the_route_words_are_those_of_the_site():
    heads = {head for head, _second in WORDS}
    assert {"items", "col", "handle", "inspect", "admin", "api", "timemap", "timegate",
            "xmlui", "jspui", "bitstream"} <= heads
    assert {("api", "items"), ("timemap", "link"), ("xmlui", "handle"),
            ("bitstream", "handle")} <= set(WORDS)


@pytest.mark.parametrize(("subdomain", "first_word"), WORDS)
def test_an_item_held_here_resolves_whatever_route_its_name_meets(client, settings,
                                                                   subdomain, first_word):
    item = minted_at(settings, subdomain, first_word)
    url = f"http://{HOST}/col/{item.ibi}/doc/paper.pdf"
    for method in (client.get, client.head):
        response = method(f"/{item.ibi}")
        assert (response.status_code, response["Location"]) == (302, url)
    assert client.get(f"/{item.ibi}:")["Location"] == f"http://{HOST}/items/{item.ibi}/metadata"
    assert client.get(url).getvalue() == b"%PDF paper"  # the file's own route takes the name
    assert client.get(f"/items/{item.ibi}").status_code == 200


@pytest.mark.parametrize(("subdomain", "first_word"), WORDS)
def test_the_route_answers_when_nothing_answers_for_the_ibi(client, settings, subdomain,
                                                            first_word):
    path = f"/{subdomain}/{first_word}/{NOBODYS}"
    alone = routes_alone(settings)
    expected = alone.get(path)
    response = client.get(path)
    assert (response.status_code, response.get("Location"), response.get("Content-Type")) == (
        expected.status_code, expected.get("Location"), expected.get("Content-Type"))


def test_a_dspace_link_that_is_also_an_ibi_is_the_routes_unless_an_item_holds_the_ibi(
        client, settings):
    item = minted_at(settings, "xmlui", "handle")  # xmlui/handle/<year>/<date>
    date = item.ibi.split("/", 2)[2]
    # Two DSpace items came with the Handles <year>/<date> (that IBI's too) and NOBODYS.
    twin = make.from_dspace(make.item(title="Old thesis"), handle=date)
    other = make.from_dspace(make.item(title="Old report"), handle=NOBODYS)
    assert client.get(f"/xmlui/handle/{date}")["Location"] == (
        f"http://{HOST}/col/{item.ibi}/doc/paper.pdf")
    assert client.get(f"/xmlui/handle/{NOBODYS}")["Location"] == f"/items/{other.ibi}"
    assert routes_alone(settings).get(f"/xmlui/handle/{date}")["Location"] == (
        f"/items/{twin.ibi}")


def test_a_deleted_item_answers_its_tombstone_not_the_route(client, settings):
    item = minted_at(settings, "admin", "x")
    services.item_delete(item=item, reason="withdrawn")
    assert client.get(f"/{item.ibi}").status_code == 410


def test_the_route_still_takes_what_is_no_get(client, settings, librarian_client):
    item = minted_at(settings, "admin", "x")
    response = client.post(f"/{item.ibi}")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_an_ibi_another_archive_holds_resolves_there(client):
    service = "ibi.test/f/2024/01.02.03.04"
    held = f"col/b/{NOBODYS}"
    with FakeArchiveService(service) as archive:
        make.include(archive.address, service)
        there = f"http://{archive.address}/col/{held}/doc/paper.pdf"

        def respond(pairs):
            if pairs.get("parsedibiurl.ibi", "").lower() != held:
                return 200, ""
            return 200, (f"archiveaddress {archive.address}\ncontenttype Data\n"
                         f"ibi {{rep {held}}}\nibi.archiveservice {{rep {service}}}\n"
                         f"ibi.platformsoftware {{}}\nstate Original\n"
                         f"timestamp 2024-01-02T03:04:05Z\nurl {there}\n"
                         f"urlkey 1700000000-123456789012345678\n")
        archive.respond = respond
        response = client.get(f"/{held}")
    assert (response.status_code, response["Location"]) == (302, there)
