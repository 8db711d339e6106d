"""The answer cache (archive/db/changes.py): answers about items held here are
reused until any item or file changes, however it changes, and never while a transaction is open.

These tests commit (transactional_db): the cache is off inside the transaction that wraps
ordinary tests, as it is inside any transaction.
"""
from __future__ import annotations

import importlib
import re
import select
import time
from urllib.parse import quote, urlencode

import pytest
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from archive.db import changes
from archive.deposit import services
from archive.models import DailyAccessCount, Item, ItemFile
from archive.protocol.pairs import loads, to_dict
from archive.usage import counter as access_counter
from tests import factories as make

pytestmark = pytest.mark.django_db(transaction=True)

CHANGE_TOKEN = importlib.import_module("archive.migrations.0012_change_token")


@pytest.fixture(autouse=True)
def service(settings):
    settings.ARCHIVE_ADDRESS = "testserver"
    return services.ensure_archive_service()


def url_request(client, service, ibi: str, **more) -> dict:
    pairs = {"servicesubject": "urlRequest", "clientinformation.ipaddress": "10.0.0.1",
             "parsedibiurl.ibi": ibi, **{f"parsedibiurl.{k}": v for k, v in more.items()}}
    response = client.get(f"/{service.ibi}",
                          QUERY_STRING=urlencode(pairs, quote_via=quote, safe="/()"))
    assert response.status_code == 200
    return to_dict(loads(response.content.decode(), strict=True))


def queries(call) -> int:
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured)


def test_a_repeated_url_request_runs_no_query(client, service):
    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    first = url_request(client, service, item.ibi)
    # The token is read from the driver (SQLite) or heard from PostgreSQL: no ORM query.
    assert queries(lambda: url_request(client, service, item.ibi)) == 0
    again = url_request(client, service, item.ibi)
    assert {k: v for k, v in again.items() if k != "urlkey"} == \
        {k: v for k, v in first.items() if k != "urlkey"}
    assert again["urlkey"] != first["urlkey"]  # a fresh key per answer, cached or not


def test_every_kind_of_write_to_items_or_files_renews_the_token(service):
    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    seen = [changes.token()]

    def renewed() -> bool:
        seen.append(changes.token())
        return seen[-1] != seen[-2]

    item.title = "Saved"
    item.save()
    assert renewed()
    Item.objects.filter(pk=item.pk).update(title="Updated in bulk")
    assert renewed()
    with connection.cursor() as cursor:
        cursor.execute("UPDATE archive_item SET title = %s WHERE id = %s", ["Raw", item.pk])
    assert renewed()
    ItemFile.objects.filter(item=item).delete()
    assert renewed()
    DailyAccessCount.objects.create(item=item, kind="download", day=timezone.now().date(), n=1)
    assert not renewed()  # counting an access changes no answer


def test_a_change_made_behind_the_orms_back_is_seen_at_once(client, service):
    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    assert url_request(client, service, item.ibi)["state"] == "Original"
    Item.objects.filter(pk=item.pk).update(state=Item.State.DELETED, deleted_at=timezone.now())
    assert url_request(client, service, item.ibi)["state"] == "Deleted"


def commit_elsewhere(sql: str, params: list) -> None:
    """Run sql on a connection of its own, in autocommit, as another process would."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute(sql, params)
    finally:
        other.close()


def announced(before: str | None) -> str | None:
    """The token once this connection knows of a change after `before`. SQLite reads the row;
    PostgreSQL announces another connection's commit to ours a moment after it: wait until
    the announcement is on our socket (a wait on the event itself, bounded)."""
    deadline = time.monotonic() + 10
    while (now := changes.token()) == before and time.monotonic() < deadline:
        assert connection.vendor == "postgresql", "SQLite's token is read, never late"
        select.select([connection.connection.pgconn.socket], [], [],
                      max(0.0, deadline - time.monotonic()))
    return now


def test_a_change_committed_by_another_connection_is_seen(client, service):
    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    assert "url" in url_request(client, service, item.ibi, filepath="/paper.pdf")
    before = changes.token()
    commit_elsewhere("DELETE FROM archive_itemfile WHERE item_id = %s", [item.pk])
    assert announced(before) != before
    assert "url" not in url_request(client, service, item.ibi, filepath="/paper.pdf")


def test_a_persistent_url_is_cached_yet_counts_every_access(reader):
    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    assert reader.get(f"/{item.ibi}")["Location"].endswith("/doc/paper.pdf")
    with CaptureQueriesContext(connection) as captured:
        response = reader.get(f"/{item.ibi}", REMOTE_ADDR="10.0.0.7")
    assert response.status_code == 302
    assert response["Location"].endswith("/doc/paper.pdf")
    assert 'rel="describedby"' in response["Link"]
    assert [q["sql"] for q in captured] == []  # the token is not an ORM query either
    assert access_counter.flush()  # counted off the request, by this process's writer
    assert make.counts(item.pk)["acknowledgments"] == 2  # two readers
    reader.head(f"/{item.ibi}", REMOTE_ADDR="10.0.0.8")
    assert access_counter.flush()
    assert make.counts(item.pk)["acknowledgments"] == 2  # a link checker is not a reader


def test_a_cached_redirect_is_the_same_answer_and_never_served_to_a_host_not_allowed(
        client, settings):
    # The cached way (persistent_urls.persistent_url_view) keys on the host as given: the
    # same headers as the first answer, and a host ALLOWED_HOSTS does not name is refused.
    settings.ALLOWED_HOSTS = ["testserver"]
    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    first = client.get(f"/{item.ibi}")
    again = client.get(f"/{item.ibi}")
    assert first.status_code == again.status_code == 302
    for name in ("Location", "Link", "Vary", "Cache-Control"):
        assert first[name] == again[name], name
    assert first["Vary"] == "Accept, Accept-Language"
    assert client.get(f"/{item.ibi}", HTTP_HOST="evil.example").status_code == 400


def test_a_removed_item_is_a_tombstone_right_after_its_cached_redirect(client):
    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    assert client.get(f"/{item.ibi}").status_code == 302
    services.item_delete(item=item)
    assert client.get(f"/{item.ibi}").status_code == 410


def test_nothing_is_cached_inside_a_transaction(client, service):
    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    assert url_request(client, service, item.ibi)["state"] == "Original"
    with pytest.raises(RuntimeError), transaction.atomic():
        Item.objects.filter(pk=item.pk).update(state=Item.State.DELETED,
                                               deleted_at=timezone.now())
        assert changes.token() is None
        assert url_request(client, service, item.ibi)["state"] == "Deleted"
        raise RuntimeError("roll back")
    assert url_request(client, service, item.ibi)["state"] == "Original"


def test_a_settings_change_empties_the_cache(client, service, settings):
    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    assert url_request(client, service, item.ibi)["ibi.platformsoftware"] == []
    settings.IBI_PLATFORM_SOFTWARE = "dpi.inpe.br/banon/1998/08.02.08.56"
    assert url_request(client, service, item.ibi)["ibi.platformsoftware"] == [
        "rep", "dpi.inpe.br/banon/1998/08.02.08.56"]


def test_a_trigger_that_does_not_announce_is_read_on_every_request(service):
    """PostgreSQL: a database whose trigger is older than announcements (not migrated by this
    version) is read, never trusted to announce. SQLite: the token is always read."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("""CREATE OR REPLACE FUNCTION archive_changes_renew() RETURNS trigger
                LANGUAGE plpgsql AS $$ BEGIN UPDATE archive_changes
                SET token = md5(random()::text) WHERE id = 1; RETURN NULL; END $$""")
    connection.close()  # a new connection: it checks the trigger when it starts listening
    before = changes.token()
    commit_elsewhere("UPDATE archive_item SET title = title WHERE id = %s", [service.pk])
    assert changes.token() != before  # read, not waited for
    with connection.schema_editor() as editor:  # the trigger as migration 0012 made it
        CHANGE_TOKEN.install(None, editor)


def test_without_listening_another_connections_change_is_read_at_once(service, settings):
    settings.DATABASE_LISTEN = False  # e.g. behind a pooler that does not pass NOTIFY on
    before = changes.token()
    commit_elsewhere("UPDATE archive_item SET title = title WHERE id = %s", [service.pk])
    assert changes.token() != before  # read on this request, not waited for


def test_an_answer_built_under_an_overtaken_token_is_never_served_under_the_new_one():
    changes.clear()
    assert changes.get("k", "T1") is None  # a build under T1 begins
    assert changes.get("other", "T2") is None  # another thread saw T2 meanwhile
    changes.put("k", "T1", "built from data before T2")
    assert changes.get("k", "T2") is None
    changes.put("k", "T2", "fresh")
    assert changes.get("k", "T2") == "fresh"


def test_a_full_store_lets_the_least_recently_read_answer_go():
    store = changes.Store(2)
    for key in ("a", "b"):
        assert store.get(key, "T") is None
        store.put(key, "T", key.upper())
    assert store.get("a", "T") == "A"  # read: now b is the least recently read
    store.put("c", "T", "C")
    assert (store.get("a", "T"), store.get("b", "T"), store.get("c", "T")) == ("A", None, "C")
    assert store.get("a", "T2") is None and store.get("c", "T2") is None  # a new token


# -- Item pages (archive/site/views.py keeps what they show under the token) ------------------

BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


def unmasked(response) -> str:
    """The page without its CSRF token (masked anew for every response)."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", response.content.decode())


def test_a_landing_page_read_again_reads_only_its_statistics(client):
    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    url = f"/items/{item.ibi}"
    first = client.get(url)
    with CaptureQueriesContext(connection) as captured:
        again = client.get(url)
    assert again.status_code == 200 and again["Link"] == first["Link"]
    assert unmasked(again) == unmasked(first)
    assert all("archive_dailyaccesscount" in q["sql"] or "translation_of" in q["sql"]
               for q in captured), [q["sql"] for q in captured]
    assert len(captured) == 2  # both families' members, then their daily counts


def test_a_kept_landing_page_shows_every_change_at_once(client):
    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    url = f"/items/{item.ibi}"
    assert "Cached" in client.get(url).content.decode()
    Item.objects.filter(pk=item.pk).update(title="Renamed by the ORM")
    assert "Renamed by the ORM" in client.get(url).content.decode()
    with connection.cursor() as cursor:  # behind the ORM's back
        cursor.execute("INSERT INTO archive_dcvalue (item_id, field_id, element, value, position) "
                       "VALUES (%s, %s, 'creator', 'Banon, Gerald', 0)",
                       [item.pk, make.dc_field("creator").pk])
    assert "Banon, G." in client.get(url).content.decode()  # the metadata and the citation
    before = changes.token()
    commit_elsewhere("UPDATE archive_itemfile SET name = 'renamed.pdf' WHERE item_id = %s",
                     [item.pk])
    assert announced(before) != before
    assert "renamed.pdf" in client.get(url).content.decode()
    services.item_delete(item=item)
    assert client.get(url).status_code == 410
    assert client.get(f"/items/{item.ibi}/files").status_code == 410


def test_a_kept_landing_page_shows_an_orcid_id_authenticated_once_it_is_linked(client):
    from archive.accounts import services as accounts
    from archive.models import Identity

    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    make.dc_value(item, "creator", "Carberry, Josiah", authority="0000-0002-1825-0097")
    url = f"/items/{item.ibi}"
    assert "not confirmed by its holder" in client.get(url).content.decode()
    user = make.account("josiah@example.org")
    identity = accounts.link_identity(user=user, provider=Identity.Provider.ORCID,
                                      issuer="https://orcid.org",
                                      subject="0000-0002-1825-0097")
    page = client.get(url).content.decode()
    assert "orcid authenticated" in page and "not confirmed" not in page
    before = changes.token()
    Identity.objects.filter(pk=identity.pk).update(attributes={"name": "J. Carberry"})
    assert changes.token() == before  # a sign-in's last use and attributes: pages kept
    identity.delete()
    assert "not confirmed by its holder" in client.get(url).content.decode()


def test_a_kept_landing_page_counts_every_access_and_speaks_each_readers_language(client):
    item = make.item(("paper.pdf", b"%PDF-1.4"), title="Cached", language="en")
    url = f"/items/{item.ibi}"
    assert "This item: <strong>0</strong>" in client.get(url).content.decode()
    assert client.get(f"/col/{item.ibi}/doc/paper.pdf",
                      HTTP_USER_AGENT=BROWSER).status_code == 200
    assert access_counter.flush()  # counted off the request, by this process's writer
    assert "This item: <strong>1</strong> (1 download here" in client.get(url).content.decode()
    portuguese = client.get(url, HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert "Como citar" in portuguese and "Acesso em:" in portuguese  # ABNT
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Como citar" not in english and "Acesso em:" not in english
    assert client.get(url, {"style": "abnt"}).content != client.get(url).content
    client.get(url, {"style": "abnt"})
    # The same style however spelt: the same kept page (only the statistics are read).
    assert queries(lambda: client.get(url, {"style": " ABNT"})) == 2
    assert client.get(url, {"style": "nonesuch"}).status_code == 400


def test_paths_that_path_info_cannot_tell_apart_are_kept_apart(client):
    """Behind a server that gives the request line (uWSGI's and mod_wsgi's REQUEST_URI),
    /a%F3.txt (a Latin-1 ó) and /a%25F3.txt (a "%" in the name) have one path_info: each
    keeps its own redirect, to its own file."""
    item = make.item(("aó.txt", b"o"), ("a%F3.txt", b"p"), title="Percent")
    latin, literal = f"/{item.ibi}/a%F3.txt", f"/{item.ibi}/a%25F3.txt"

    answers = [client.get(path, REQUEST_URI=path)["Location"]
               for path in (latin, literal, latin, literal)]

    assert answers == [f"http://testserver/col/{item.ibi}/doc/a%C3%B3.txt",
                       f"http://testserver/col/{item.ibi}/doc/a%25F3.txt"] * 2
