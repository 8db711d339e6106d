"""Memento (RFC 7089) over an edition chain: the TimeGate, Mementos, the TimeMap (Pattern 2.2).

A chain of three editions whose creation dates lie a year apart (set with a queryset update:
no sleeping). Every link is read by httplink, a third-party RFC 8288 parser; every date by the
standard library's RFC 5322 parser, not by the code under test.
"""
from __future__ import annotations

import email.utils
from datetime import UTC, datetime
from urllib.parse import quote

import httplink
import pytest

from archive.deposit import services
from archive.models import Item
from archive.resolver import memento
from tests import factories as make

BANON = {"creator": ["Banon, Gerald"]}

pytestmark = pytest.mark.django_db

HOST = "testserver"
BASE = f"http://{HOST}"
CREATED = [datetime(2020, 3, 1, 10, 0, 0, 250000, tzinfo=UTC),
           datetime(2021, 3, 1, 10, 0, 0, tzinfo=UTC),
           datetime(2022, 3, 1, 10, 0, 0, tzinfo=UTC)]


@pytest.fixture(autouse=True)
def archive_settings(settings):
    settings.ARCHIVE_ADDRESS = HOST
    settings.IBI_RESOLVER_TIMEOUT = 1  # a second at least: a loaded machine is slow, not wrong
    settings.IBI_RESOLVER_DEADLINE = 5
    return services.ensure_archive_service()


@pytest.fixture
def chain() -> list[Item]:
    first = make.item(("one.pdf", b"one.pdf"), title="Edition one.pdf", language="en", dc=BANON)
    second = make.item(("two.pdf", b"two.pdf"), title="Edition two.pdf", language="en", dc=BANON,
                       previous_edition=first)
    third = make.item(("three.pdf", b"three.pdf"), title="Edition three.pdf", language="en",
                      dc=BANON, previous_edition=second)
    editions = [first, second, third]
    for item, created in zip(editions, CREATED, strict=True):
        Item.objects.filter(pk=item.pk).update(created=created)
    return [Item.objects.get(pk=item.pk) for item in editions]


def http(when: datetime) -> str:
    return email.utils.format_datetime(when.replace(microsecond=0), usegmt=True)


def links(response) -> httplink.ParsedLinks:
    return httplink.parse_link_header(response.headers["Link"])


def rels(parsed: httplink.ParsedLinks) -> dict[frozenset, list]:
    found: dict[frozenset, list] = {}
    for link in parsed.links:
        found.setdefault(frozenset(link.rel), []).append(link)
    return found


def file(item: Item, name: str) -> str:
    return f"{BASE}/col/{item.ibi}/doc/{quote(name)}"


def ask(client, path: str, when: str | None = None, **headers):
    if when is not None:
        headers["HTTP_ACCEPT_DATETIME"] = when
    return client.get(path, **headers)


# -- The TimeGate -------------------------------------------------------------------------------

WHEN = [
    ("Sun, 01 Jan 2017 00:00:00 GMT", 0),  # before the first edition: the first
    ("Sun, 01 Mar 2020 10:00:00 GMT", 0),  # the first's own second (it was made at .25 s)
    ("Tue, 01 Sep 2020 00:00:00 GMT", 0),  # between the first and the second
    ("Mon, 01 Mar 2021 09:59:59 GMT", 0),  # a second before the second
    ("Mon, 01 Mar 2021 10:00:00 GMT", 1),  # the second's creation
    ("Wed, 01 Dec 2021 12:00:00 GMT", 1),  # between the second and the third
    ("Tue, 01 Mar 2022 10:00:00 GMT", 2),  # the third's creation
    ("Fri, 01 Jan 2100 00:00:00 GMT", 2),  # after the last
]


@pytest.mark.parametrize(("when", "expected"), WHEN)
@pytest.mark.parametrize("named", ["original", "edition", "ibip"])
def test_the_timegate_redirects_to_the_edition_current_then(client, chain, when, expected,
                                                             named):
    """/timegate/<URI-R>; the URI-R may also be given as any edition's persistent URL or IBIp."""
    target = chain[expected]
    uri = {"original": f"{BASE}/{chain[0].ibi}!", "edition": f"{BASE}/{chain[2].ibi}",
           "ibip": chain[1].ibip}[named]
    response = ask(client, f"/timegate/{uri}", when)
    assert response.status_code == 302
    assert response["Location"] == f"{BASE}/{target.ibi}"
    assert "Memento-Datetime" not in response
    assert "accept-datetime" in response["Vary"].lower()
    found = rels(links(response))
    mementos = [link for rel, group in found.items() if "memento" in rel for link in group]
    (chosen,) = [m for m in mementos if m.target == f"{BASE}/{target.ibi}"]
    assert email.utils.parsedate_to_datetime(chosen["datetime"]) == \
        CREATED[expected].replace(microsecond=0)
    assert [m.target for m in mementos if "first" in m.rel] == [f"{BASE}/{chain[0].ibi}"]
    assert [link.target for link in found[frozenset({"original"})]] == [f"{BASE}/{chain[0].ibi}!"]
    (timemap,) = found[frozenset({"timemap"})]
    assert timemap.target == f"{BASE}/timemap/link/{chain[0].ibi}"
    assert timemap["type"] == "application/link-format"


def test_head_asks_the_timegate_too(client, chain):
    response = client.head(f"/timegate/{BASE}/{chain[0].ibi}!",
                           headers={"accept-datetime": "Wed, 01 Dec 2021 12:00:00 GMT"})
    assert (response.status_code, response["Location"]) == (302, f"{BASE}/{chain[1].ibi}")
    assert response.content == b""


# -- Persistent URLs: RTC-11's answer, whatever the date asked ---------------------------------

@pytest.mark.parametrize(("when", "_expected"), WHEN)
@pytest.mark.parametrize("asked", [0, 1, 2])
def test_a_persistent_url_with_accept_datetime_answers_what_rtc11_says(client, chain, when,
                                                                     _expected, asked):
    """No persistent URL is a TimeGate: /<ibi> is its edition (a Memento: with its
    Memento-Datetime), /<ibi>! the last edition, as without the header (RTC-11 §8.1)."""
    names = ["one.pdf", "two.pdf", "three.pdf"]
    own = ask(client, f"/{chain[asked].ibi}", when)
    assert (own.status_code, own["Location"]) == (302, file(chain[asked], names[asked]))
    assert own["Memento-Datetime"] == http(CREATED[asked])
    assert "accept-datetime" in own["Vary"].lower()
    last = ask(client, f"/{chain[asked].ibi}!", when)
    assert (last.status_code, last["Location"]) == (302, file(chain[2], "three.pdf"))
    assert "Memento-Datetime" not in last
    # The original's answer does not vary with the date (memento_client takes a URI-R that
    # varies for its own TimeGate and would not look for ours).
    assert "accept-datetime" not in last.get("Vary", "").lower()
    for response in (own, last):
        found = rels(links(response))
        assert [link.target for link in found[frozenset({"original"})]] == [
            f"{BASE}/{chain[0].ibi}!"]
        assert [link.target for link in found[frozenset({"timegate"})]] == [
            f"{BASE}/timegate/{BASE}/{chain[0].ibi}!"]


def test_a_memento_client_following_the_timegate_lands_on_the_memento(client, chain):
    """Like a Memento client: follow the redirects, sending Accept-Datetime every time."""
    when = "Wed, 01 Dec 2021 12:00:00 GMT"
    response = ask(client, f"/timegate/{BASE}/{chain[0].ibi}!", when)
    response = ask(client, response["Location"].removeprefix(BASE), when)
    assert response.status_code == 302
    assert response["Location"] == file(chain[1], "two.pdf")
    assert response["Memento-Datetime"] == "Mon, 01 Mar 2021 10:00:00 GMT"
    found = rels(links(response))
    assert found[frozenset({"original"})][0].target == f"{BASE}/{chain[0].ibi}!"
    assert found[frozenset({"timemap"})][0].target == f"{BASE}/timemap/link/{chain[0].ibi}"
    assert "accept-datetime" in response["Vary"].lower()
    # The file it lands on names the chain too: a client redirected there finds the TimeGate.
    landed = client.head(response["Location"].removeprefix(BASE))
    assert rels(links(landed))[frozenset({"timegate"})][0].target == (
        f"{BASE}/timegate/{BASE}/{chain[0].ibi}!")


def test_a_deleted_edition_is_still_a_memento_answering_410(client, chain):
    services.item_delete(item=chain[1], reason="withdrawn")
    when = "Wed, 01 Dec 2021 12:00:00 GMT"
    gate = ask(client, f"/timegate/{BASE}/{chain[0].ibi}!", when)
    assert gate["Location"] == f"{BASE}/{chain[1].ibi}"
    landed = ask(client, f"/{chain[1].ibi}", when)
    assert landed.status_code == 410
    assert landed["Memento-Datetime"] == "Mon, 01 Mar 2021 10:00:00 GMT"
    assert frozenset({"timemap"}) in rels(links(landed))


@pytest.mark.parametrize("bad", [
    "yesterday", "2021-03-01T10:00:00Z", "Mon, 01 Mar 2021 10:00:00 +0000",
    "Mon, 31 Feb 2021 10:00:00 GMT", "Tue, 01 Mar 2021 10:00:00 GMT", "",
    "Monday, 01-Mar-21 10:00:00 GMT",
])
@pytest.mark.parametrize("where", ["persistent URL", "TimeGate"])
def test_a_malformed_accept_datetime_is_a_400_saying_why(client, chain, bad, where):
    path = {"persistent URL": f"/{chain[0].ibi}",
            "TimeGate": f"/timegate/{BASE}/{chain[0].ibi}!"}[where]
    response = ask(client, path, bad)
    assert response.status_code == 400
    assert "Accept-Datetime" in response.content.decode()
    assert "Location" not in response


def test_the_cache_never_serves_a_dated_answer_to_another_date_or_to_none(client, chain):
    plain = ask(client, f"/{chain[1].ibi}")
    assert "Memento-Datetime" not in plain
    dated = ask(client, f"/{chain[1].ibi}", "Tue, 01 Sep 2020 00:00:00 GMT")
    assert dated["Memento-Datetime"] == http(CREATED[1])
    gate = ask(client, f"/timegate/{BASE}/{chain[0].ibi}!", "Tue, 01 Sep 2020 00:00:00 GMT")
    assert gate["Location"] == f"{BASE}/{chain[0].ibi}"
    other = ask(client, f"/timegate/{BASE}/{chain[0].ibi}!", "Wed, 01 Dec 2021 12:00:00 GMT")
    assert other["Location"] == f"{BASE}/{chain[1].ibi}"
    again = ask(client, f"/{chain[1].ibi}")
    assert again["Location"] == file(chain[1], "two.pdf")
    assert "Memento-Datetime" not in again and "accept-datetime" not in again.get(
        "Vary", "").lower()


def test_plain_requests_answer_as_before_and_announce_the_timemap(client, chain):
    for path, location in [(f"/{chain[0].ibi}", file(chain[0], "one.pdf")),
                           (f"/{chain[0].ibi}!", file(chain[2], "three.pdf")),
                           (f"/{chain[1].ibip}", file(chain[1], "two.pdf"))]:
        response = ask(client, path)
        assert response.status_code == 302
        assert response["Location"] == location
        assert "Memento-Datetime" not in response
        (timemap,) = rels(links(response))[frozenset({"timemap"})]
        assert timemap["type"] == "application/link-format"
        assert timemap.target == f"{BASE}/timemap/link/{chain[0].ibi}"
        listed = client.get(timemap.target.removeprefix(BASE))
        assert listed.status_code == 200
    lone = make.item(("alone.pdf", b"alone.pdf"), title="Alone", language="en")
    (timemap,) = rels(links(ask(client, f"/{lone.ibi}")))[frozenset({"timemap"})]
    assert timemap.target == f"{BASE}/timemap/link/{lone.ibi}"


def test_a_persistent_urls_plain_answer_names_the_chains_timegate(client, chain):
    """Issue 43: the persistent URL a reader cites names the chain's TimeGate, as the landing
    page and the files do; RTC-11's answer (status, Location) is what it was. memento_client's
    own parser finds it there, and the TimeGate it names picks the edition current at a date."""
    from memento_client import MementoClient

    original = f"{BASE}/{chain[0].ibi}!"
    for path in (f"/{chain[0].ibi}", f"/{chain[2].ibi}", f"/{chain[1].ibip}",
                 f"/col/{chain[1].ibi}/doc/two.pdf"):
        response = ask(client, path)
        assert response.status_code in (200, 302)
        found = MementoClient.get_uri_dt_for_rel(
            MementoClient.parse_link_header(response["Link"]),
            ["original", "timegate", "timemap"])
        assert found["original"]["uri"] == original
        assert found["timegate"]["uri"] == f"{BASE}/timegate/{original}"
        assert found["timemap"]["uri"] == f"{BASE}/timemap/link/{chain[0].ibi}"
        gate = ask(client, found["timegate"]["uri"].removeprefix(BASE),
                   "Wed, 01 Dec 2021 12:00:00 GMT")
        assert (gate.status_code, gate["Location"]) == (302, f"{BASE}/{chain[1].ibi}")
    lone = make.item(("alone.pdf", b"alone.pdf"), title="Alone", language="en")
    for path in (f"/{lone.ibi}", f"/col/{lone.ibi}/doc/alone.pdf"):
        assert 'rel="timegate"' not in ask(client, path)["Link"]  # no editions


def test_accept_datetime_is_ignored_where_there_is_no_memento(client, chain):
    """A file of an edition is no Memento of its own: the header changes nothing (RFC 7089 §4)."""
    response = ask(client, f"/{chain[1].ibi}/two.pdf", "Sun, 01 Jan 2017 00:00:00 GMT")
    assert response.status_code == 302
    assert response["Location"] == file(chain[1], "two.pdf")
    assert "Memento-Datetime" not in response


# -- The TimeMap --------------------------------------------------------------------------------

def parse_link_format(text: str) -> httplink.ParsedLinks:
    """RFC 6690 link-format: RFC 8288 links separated by commas; line breaks are whitespace."""
    assert text.endswith("\n")
    return httplink.parse_link_header(text.replace("\n", " ").strip())


@pytest.mark.parametrize("asked", [0, 1, 2])
def test_the_timemap_lists_every_edition_with_its_datetime(client, chain, asked):
    services.item_delete(item=chain[1])  # tombstones stay listed
    path = f"/timemap/link/{chain[asked].ibi}"
    response = client.get(path)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/link-format"
    parsed = parse_link_format(response.content.decode())
    found = rels(parsed)
    assert [link.target for link in found[frozenset({"original"})]] == [f"{BASE}/{chain[0].ibi}!"]
    assert [link.target for link in found[frozenset({"timegate"})]] == [
        f"{BASE}/timegate/{BASE}/{chain[0].ibi}!"]
    (itself,) = found[frozenset({"self"})]
    assert itself.target == BASE + path
    assert itself["type"] == "application/link-format"
    assert email.utils.parsedate_to_datetime(itself["from"]) == CREATED[0].replace(microsecond=0)
    assert email.utils.parsedate_to_datetime(itself["until"]) == CREATED[2]
    mementos = [link for link in parsed.links if "memento" in link.rel]
    assert [m.target for m in mementos] == [f"{BASE}/{item.ibi}" for item in chain]
    assert [email.utils.parsedate_to_datetime(m["datetime"]) for m in mementos] == [
        c.replace(microsecond=0) for c in CREATED]
    assert [set(m.rel) for m in mementos] == [{"first", "memento"}, {"memento"},
                                              {"last", "memento"}]


def test_the_timemap_of_an_item_not_held_here_is_a_404(client, chain):
    response = client.get("/timemap/link/ibi.test/elsewhere/2020/05.06.07.08")
    assert response.status_code == 404
    assert "other Archives" in response.content.decode()
    assert client.get("/timemap/link/not-an-ibi").status_code == 404


def test_a_lone_item_is_a_chain_of_one(client):
    item = make.item(("alone.pdf", b"alone.pdf"), title="Edition alone.pdf", language="en",
                     dc=BANON)
    parsed = parse_link_format(client.get(f"/timemap/link/{item.ibip}").content.decode())
    (only,) = [link for link in parsed.links if "memento" in link.rel]
    assert set(only.rel) == {"first", "last", "memento"}
    assert only.target == f"{BASE}/{item.ibi}"


# -- The pure part ------------------------------------------------------------------------------

def test_the_choice_uses_whole_seconds_like_http_dates():
    chain = [memento.Edition("a/1", CREATED[0]), memento.Edition("a/2", CREATED[1])]
    assert memento.choose(chain, datetime(2020, 3, 1, 10, 0, 0, tzinfo=UTC)).ibi == "a/1"
    assert memento.choose(chain, datetime(2021, 3, 1, 9, 59, 59, tzinfo=UTC)).ibi == "a/1"
    assert memento.choose(chain, datetime(2021, 3, 1, 10, 0, 0, tzinfo=UTC)).ibi == "a/2"
