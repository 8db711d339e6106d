"""Inspection without redirect: ``/inspect/<ibi>[mdf][/path]`` shows what the resolution found.

In process for items held here and for stand-in Archives (tests/servers.py); two real Archives
on loopback, A resolving an item held by B, are tests/test_two_archives.py's. The HTML is read
by lxml, the JSON by the standard library.
"""
from __future__ import annotations

import json
from urllib.parse import quote

import lxml.html
import pytest

from archive.deposit import services
from archive.models import DailyAccessCount, Item
from archive.usage import counter as access_counter
from tests import factories as make

from .servers import FakeArchiveService

BANON = {"creator": ["Banon, Gerald"]}

HOST = "testserver"
F_SERVICE = "ibi.test/f/2024/01.02.03.04"
ELSEWHERE = "ibi.test/elsewhere/2020/05.06.07.08"
KEYS = {"persistent_url", "ibi", "modifier", "verbs", "filepath", "required_item_status",
        "outcome", "status", "url", "reason", "chosen", "silent", "rounds"}
ANSWER_KEYS = {"archive", "address", "local", "answered", "silent", "state", "timestamp",
               "url", "chosen"}


@pytest.fixture
def archive(db, settings):
    settings.ARCHIVE_ADDRESS = HOST
    settings.IBI_RESOLVER_TIMEOUT = 1  # a second at least: a loaded machine is slow, not wrong
    settings.IBI_RESOLVER_DEADLINE = 5
    return services.ensure_archive_service()


@pytest.fixture
def fake(archive):
    with FakeArchiveService(F_SERVICE) as stand_in:
        make.include(stand_in.address, F_SERVICE)
        yield stand_in


def file(item: Item, name: str) -> str:
    return f"http://{HOST}/col/{item.ibi}/doc/{quote(name)}"


def report(client, path: str, **headers) -> dict:
    response = client.get(path, headers=headers)
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"] == "application/json"
    assert "Location" not in response
    data = json.loads(response.content)
    assert set(data) == KEYS
    for each in data["rounds"]:
        assert {a_key for archive in each["archives"] for a_key in archive} <= ANSWER_KEYS
    return data


def page(client, path: str, **headers) -> lxml.html.HtmlElement:
    response = client.get(path, headers=headers)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert "Location" not in response
    return lxml.html.fromstring(response.content)


def text(element) -> str:
    return " ".join(element.text_content().split())


# -- The route and its query -------------------------------------------------------------------

def test_a_persistent_urls_query_is_rtc_11s_and_the_items_never_this_archives(client, archive):
    """#25's audit, 10.: pairs without ibiurl. are the item's (§8.1), passed on to it."""
    item = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON)
    for query in ("info=json", "noredirect=0", "info=foo", "lang=x&info="):
        response = client.get(f"/{item.ibi}?{query}")
        assert response.status_code == 302, query
        assert response["Location"] == f"{file(item, 'paper.pdf')}?{query}"
    assert client.get(f"/{item.ibi}?foo").status_code == 400  # no pair at all (Table 8.1)


def test_the_inspection_takes_its_format_and_leaves_the_rest_to_the_persistent_url(client,
                                                                                  archive):
    item = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON)
    data = report(client, f"/inspect/{item.ibi}?format=json&ibiurl.verblist=GetMetadata&x=1")
    assert data["verbs"] == ["GetMetadata"]
    assert data["persistent_url"] == f"http://{HOST}/{item.ibi}?ibiurl.verblist=GetMetadata&x=1"
    assert client.get(f"/inspect/{item.ibi}?format=xml").status_code == 400
    html = client.get(f"/inspect/{item.ibi}?format=html", headers={"accept": "application/json"})
    assert html["Content-Type"].startswith("text/html")


# -- Held here ----------------------------------------------------------------------------------

def test_an_item_held_here_is_shown_not_followed(client, archive, fake):
    item = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON)
    for path in (f"/inspect/{item.ibi}?format=json", f"/inspect/{item.ibip}"):
        data = report(client, path, accept="application/json")
        assert (data["outcome"], data["url"]) == ("found", file(item, "paper.pdf"))
        assert data["chosen"]["local"] and data["chosen"]["state"] == "Original"
        assert data["chosen"]["timestamp"].startswith(f"{item.created:%Y-%m-%d}")
        assert "no other Archive was asked" in data["reason"]
        (only,) = data["rounds"]
        assert [(a["local"], a["answered"], a["chosen"]) for a in only["archives"]] == [
            (True, True, True)]
    assert fake.asked == []  # settled here, as a plain request is
    access_counter.flush()
    assert not DailyAccessCount.objects.exists()  # an inspection is no reading


def test_the_inspection_page_shows_the_answers_and_the_choice(client, archive):
    first = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON)
    second = make.item(("paper2.pdf", b"paper2.pdf"), language="en", dc=BANON,
                       previous_edition=first)
    html = page(client, f"/inspect/{first.ibi}!")
    assert file(second, "paper2.pdf") in text(html.xpath("//code[@class='url']")[0])
    assert "found" in text(html.xpath("//*[@class='outcome']")[0])
    rows = html.xpath("//section[@class='round']//tbody/tr")
    assert rows and "this Archive" in text(rows[0]) and "Original" in text(rows[0])
    assert rows[0].get("class") == "chosen"
    assert html.xpath("//meta[@name='robots']/@content") == ["noindex"]


def test_a_tombstone_is_reported_deleted(client, archive):
    item = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON)
    services.item_delete(item=item, reason="withdrawn")
    data = report(client, f"/inspect/{item.ibi}?format=json")
    assert data["outcome"] == "deleted" and data["url"] is None
    assert data["chosen"]["state"] == "Deleted" and data["chosen"]["local"]
    assert "deleted" in data["reason"]
    html = page(client, f"/inspect/{item.ibi}")
    assert "Deleted" in text(html.xpath("//section[@class='round']//tbody/tr")[0])


def test_a_modifier_that_hops_shows_every_round(client, archive, fake):
    """An item held elsewhere whose stand-in names the next edition: two rounds."""
    nxt = "ibi.test/elsewhere/2021/05.06.07.08"
    url = f"http://{fake.address}/col/{nxt}/doc/paper.pdf"

    def respond(pairs):
        asked = pairs.get("parsedibiurl.ibi", "").lower()
        common = (f"archiveaddress {fake.address}\ncontenttype Data\n"
                  f"ibi.archiveservice {{rep {F_SERVICE}}}\nibi.platformsoftware {{}}\n")
        if asked == ELSEWHERE:
            return 200, common + (f"ibi {{rep {ELSEWHERE}}}\nibi.nextedition {{rep {nxt}}}\n"
                                  "state Original\ntimestamp 2024-01-02T03:04:05Z\n")
        if asked == nxt:
            return 200, common + (f"ibi {{rep {nxt}}}\ncontenttype.lastedition Data\n"
                                  "state.lastedition Original\n"
                                  "timestamp.lastedition 2024-02-03T04:05:06Z\n"
                                  f"url.lastedition {url}\n"
                                  "urlkey 1700000000-123456789012345678\n")
        return 200, ""
    fake.respond = respond

    data = report(client, f"/inspect/{ELSEWHERE}!?format=json")
    assert (data["outcome"], data["url"]) == ("found", url)
    assert [r["choice"] for r in data["rounds"]] == ["hop", "found"]
    assert data["rounds"][0]["next_ibi"] == nxt
    remote = data["rounds"][1]["archives"][1]
    assert (remote["archive"], remote["address"], remote["state"], remote["timestamp"],
            remote["chosen"]) == (F_SERVICE, fake.address, "Original", "2024-02-03T04:05:06Z",
                                  True)
    here = data["rounds"][1]["archives"][0]
    assert (here["local"], here["answered"], here["chosen"]) == (True, False, False)
    assert fake.requests("acknowledgment") == []  # nothing owed: nothing was followed


def test_nothing_found_and_bad_urls(client, archive):
    data = report(client, "/inspect/ibi.test/nobody/2020/01.01.00.00?format=json")
    assert data["outcome"] == "not_found" and data["chosen"] is None
    bad = client.get("/inspect/ibi.test/nobody/2020/13.01.00.00?format=json")
    assert bad.status_code == 400 and "error" in json.loads(bad.content)
    assert client.get("/inspect/ibi.test/nobody/2020/13.01.00.00").status_code == 400
    assert client.get("/inspect/favicon.ico").status_code == 404
