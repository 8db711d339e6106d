"""Access levels (issue 26): who reads a closed file, through which channel, and what the
others see; secret links; requests for a copy and their answers; embargoes lifted."""
from __future__ import annotations

import json
import re
from datetime import timedelta
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from lxml import etree

from archive.access import policy
from archive.access import services as access
from archive.access.tasks import lift_embargoes
from archive.deposit import services
from archive.models import AccessLink, AccessRead, AccessRequest, Item
from archive.protocol.pairs import loads, to_dict
from tests import factories as make
from tests import xml_schemas
from tests.conftest import BROWSER

pytestmark = pytest.mark.django_db

PDF = b"%PDF-1.4 a thesis under embargo\n"
LATER = timezone.localdate() + timedelta(days=90)


def embargoed(title: str = "Tese", **fields) -> Item:
    return make.item(("thesis.pdf", PDF, "application/pdf"), title=title, language="pt-BR",
                     access=services.Access("embargoed", LATER, "patent pending"), **fields)


def file_url(item: Item, name: str = "thesis.pdf") -> str:
    return f"/col/{item.ibi}/doc/{quote(name)}"


# -- Levels: set by the services, refused with the reason ------------------------------------

@pytest.mark.parametrize(("given", "message"), [
    ({"rights": "secret"}, "'secret' is not an access level: one of open, embargoed, "
                           "restricted, metadata-only"),
    ({"rights": "embargoed"}, "an embargoed item needs embargo_until, the first day its files "
                              "are open to all (YYYY-MM-DD)"),
    ({"rights": "embargoed", "embargo_until": "2020-01-01"},
     "embargo_until 2020-01-01 is not after today ({today}): an embargo ends on a day to come"),
    ({"rights": "embargoed", "embargo_until": "01/02/2030"},
     "embargo_until '01/02/2030' is not a date: write it as YYYY-MM-DD"),
    ({"rights": "embargoed", "embargo_until": "2030-02-30"},
     "embargo_until '2030-02-30' is not a date: write it as YYYY-MM-DD"),
    ({"rights": "restricted", "embargo_until": "2030-01-01"},
     "embargo_until goes with the access level embargoed only, not with restricted"),
])
def test_a_bad_access_is_refused_with_its_reason_and_nothing_is_saved(librarian_api, given,
                                                                       message):
    item = make.item()
    response = librarian_api.patch(f"/api/items/{item.ibi}", {"access": given}, format="json",
                                   secure=True)
    assert response.status_code == 400
    assert response.json() == {"detail": message.format(today=timezone.localdate())}
    item.refresh_from_db()
    assert (item.access_rights, item.embargo_until, item.updated) == (
        "open", None, Item.objects.get(pk=item.pk).updated)
    deposit = make.posted(librarian_api, title="Refused", access=json.dumps(given))
    assert deposit.status_code == 400 and deposit.json() == {
        "detail": message.format(today=timezone.localdate())}
    assert not Item.objects.filter(title="Refused").exists()


def test_librarians_set_the_access_on_deposit_and_by_patch_and_everyone_reads_it(
        librarian_api, anonymous_api):
    response = make.posted(librarian_api, ("paper.pdf", b"%PDF paper"), ("data.csv", b"a,b"),
                           access=json.dumps({"rights": "embargoed",
                                              "embargo_until": LATER.isoformat(),
                                              "reason": "patent"}),
                           restricted_files=["data.csv"])
    assert response.status_code == 201, response.json()
    ibi = response.json()["ibi"]
    record = anonymous_api.get(f"/api/items/{ibi}", secure=True).json()
    assert record["access"] == {"rights": "embargoed", "embargo_until": LATER.isoformat(),
                                "reason": "patent"}
    assert [(f["name"], f["restricted"], f["url"], f["sha256"]) for f in record["files"]] == [
        ("data.csv", True, None, None), ("paper.pdf", False, None, None)]
    mine = librarian_api.get(f"/api/items/{ibi}", secure=True).json()
    assert all(f["url"] and f["sha256"] for f in mine["files"])  # librarians read everything

    changed = librarian_api.patch(f"/api/items/{ibi}", {"access": {"rights": "open"},
                                                        "restricted_files": []},
                                  format="json", secure=True)
    assert changed.status_code == 200
    assert changed.json()["access"] == {"rights": "open", "embargo_until": None,
                                        "reason": "patent"}
    assert all(f["url"] for f in anonymous_api.get(f"/api/items/{ibi}",
                                                   secure=True).json()["files"])
    # A reader cannot set it.
    assert anonymous_api.patch(f"/api/items/{ibi}", {"access": {"rights": "open"}},
                               format="json", secure=True).status_code in (401, 403)


def test_the_admin_says_what_each_level_does_and_refuses_an_embargo_without_a_date(
        librarian_client):
    page = librarian_client.get("/admin/archive/item/add/", secure=True,
                                HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert "<b>embargado</b>" in page and "<b>somente metadados</b>" in page
    response = make.admin_deposit(librarian_client, ("a.pdf", b"%PDF"), title="Sem data",
                                  access_rights="embargoed")
    assert response.status_code == 200
    assert ("an embargoed item needs embargo_until, the first day its files are open to all"
            in response.content.decode())
    assert not Item.objects.filter(title="Sem data").exists()
    made = make.admin_deposit(librarian_client, ("a.pdf", b"%PDF"), title="Com data",
                              access_rights="embargoed", embargo_until=LATER.isoformat(),
                              restricted_files="a.pdf")
    assert made.status_code == 302
    item = Item.objects.get(title="Com data")
    assert (item.access_rights, item.embargo_until, item.files.get().restricted) == (
        "embargoed", LATER, True)
    listed = librarian_client.get("/admin/archive/item/?access_rights__exact=embargoed",
                                  secure=True).content.decode()
    assert "Com data" in listed


# -- A closed file ----------------------------------------------------------------------------

def test_a_closed_file_answers_403_offering_access_and_nothing_of_the_file(reader):
    item = embargoed()
    for method in ("get", "head"):
        response = getattr(reader, method)(file_url(item), HTTP_RANGE="bytes=0-")
        assert response.status_code == 403
        assert "ETag" not in response and "Content-Range" not in response
        assert "Content-Disposition" not in response
        assert response["Cache-Control"].startswith("max-age=0") or "no-store" in \
            response["Cache-Control"]
    page = reader.get(file_url(item)).content.decode()
    assert "thesis.pdf" not in page and PDF.decode().strip() not in page
    assert reverse("archive:item_request", args=[item.ibi]) in page
    assert reverse("archive:item", args=[item.ibi]) in page
    # A restricted file of an open item, the same.
    article = make.item(("article.pdf", b"%PDF open"), ("data.csv", b"1,2"),
                        restricted_files=["data.csv"])
    assert reader.get(file_url(article, "article.pdf")).status_code == 200
    assert reader.get(file_url(article, "data.csv")).status_code == 403


def test_librarians_read_everything_and_each_read_is_recorded_without_an_address(
        librarian_client, librarian_api, librarian):
    item = embargoed()
    response = librarian_client.get(file_url(item), REMOTE_ADDR="203.0.113.9")
    assert response.status_code == 200 and b"".join(response.streaming_content) == PDF
    assert response["Cache-Control"] == "private, no-store"
    api = librarian_api.get(file_url(item), REMOTE_ADDR="203.0.113.9")  # an API token
    assert api.status_code == 200
    reads = list(AccessRead.objects.values_list("item_id", "file_name", "who", "link"))
    assert reads == [(item.pk, "thesis.pdf", "librarian", None)] * 2
    assert "203.0.113.9" not in json.dumps(list(AccessRead.objects.values()), default=str)
    page = librarian_client.get(reverse("archive:item", args=[item.ibi])).content.decode()
    assert f'href="http://testserver{file_url(item)}"' in page


def test_a_metadata_only_item_shows_no_file_and_no_name_but_to_librarians(reader,
                                                                           librarian_client):
    item = make.item(("secret-name.pdf", PDF), access=services.Access("metadata-only"))
    for url in (reverse("archive:item", args=[item.ibi]),
                reverse("archive:item_files", args=[item.ibi]),
                reverse("archive:item_metadata", args=[item.ibi]), f"/api/items/{item.ibi}"):
        assert b"secret-name" not in reader.get(url, secure=True).content, url
    held = reader.get(file_url(item, "secret-name.pdf"))
    other = reader.get(file_url(item, "another-name.pdf"))
    assert held.status_code == other.status_code == 403
    assert librarian_client.get(file_url(item, "another-name.pdf")).status_code == 404
    assert b"secret-name" in librarian_client.get(
        reverse("archive:item", args=[item.ibi])).content
    assert access_refused(lambda: access.create_link(item=item, expires=LATER)) == (
        f"the files of {item.ibi} are for librarians only (metadata only): no link opens "
        "them")


def access_refused(call) -> str:
    with pytest.raises(services.ServiceError) as refused:
        call()
    return str(refused.value)


# -- The resolution standard: a closed target is the landing page -------------------------------

def test_a_persistent_url_and_a_url_request_of_a_closed_file_answer_the_landing_page(reader):
    service = services.ensure_archive_service()
    item = embargoed()
    landing = f"http://testserver/items/{item.ibi}"
    for path in (f"/{item.ibi}", f"/{item.ibip}", f"/{item.ibi}/thesis.pdf"):
        response = reader.get(path)
        assert response.status_code == 302 and response["Location"] == landing, path
    pairs = {"servicesubject": "urlRequest", "parsedibiurl.ibi": item.ibi,
             "clientinformation.ipaddress": "192.0.2.1"}
    for extra, url in (({}, landing), ({"parsedibiurl.filepath": "/thesis.pdf"}, landing),
                       ({"parsedibiurl.verblist": "GetFileList"},
                        f"http://testserver/items/{item.ibi}/files"),
                       ({"parsedibiurl.filepath": "/absent.pdf"}, None)):
        answer = to_dict(loads(reader.get(f"/{service.ibi}?{urlencode({**pairs, **extra})}")
                               .content.decode("ascii"), strict=True))
        assert answer.get("url") == url, extra
        if url:
            assert answer["state"] == "Original" and answer["contenttype"] == "Data"
    # Opened: the file again, at once (the change token moved).
    services.item_set_access(item=item, rights="open")
    assert reader.get(f"/{item.ibi}")["Location"] == f"http://testserver{file_url(item)}"


def test_the_file_list_getfilelist_leads_to_lists_only_the_open_files(reader,
                                                                     librarian_client):
    """GetFileList's page (the archive service's answer) lists what the reader may read: an
    open article's PDF, not its restricted data set, only that one more file is closed."""
    item = make.item(("article.pdf", PDF, "application/pdf"), ("secret-data.csv", b"a,b\n"),
                     title="Artigo")
    services.item_set_access(item=item, rights="open", restricted_files=["secret-data.csv"])

    public = reader.get(f"/items/{item.ibi}/files").content.decode()
    own = librarian_client.get(f"/items/{item.ibi}/files", secure=True).content.decode()

    assert "article.pdf" in public and "secret-data.csv" not in public
    assert "1 more file of this item is not open" in public
    assert "article.pdf" in own and "secret-data.csv" in own and "not open" not in own
    landing = reader.get(f"/items/{item.ibi}").content.decode()
    assert "secret-data.csv" in landing  # named there, with no link
    assert '"isAccessibleForFree": false' in landing  # not every file is free to read


# -- Secret links -------------------------------------------------------------------------------

def test_a_secret_link_opens_its_items_files_until_it_expires_or_is_revoked(
        librarian_api, anonymous_api, reader):
    item, other = embargoed(), embargoed(title="Outra tese")
    made = librarian_api.post(f"/api/items/{item.ibi}/links",
                              {"expires": LATER.isoformat(), "note": "for Dr. Silva"},
                              format="json", secure=True)
    assert made.status_code == 201
    link = made.json()
    assert set(link) == {"id", "url", "expires"} and link["expires"] == LATER.isoformat()
    token = parse_qs(urlsplit(link["url"]).query)["token"][0]
    assert len(token) >= 22  # 128 bits at least, URL-safe base 64
    assert urlsplit(link["url"]).path == f"/items/{item.ibi}"
    # Only its hash is kept.
    assert not AccessLink.objects.filter(token_hash__contains=token).exists()
    listed = librarian_api.get(f"/api/items/{item.ibi}/links", secure=True).json()
    assert [(row["id"], row["note"], row["state"]) for row in listed] == [
        (link["id"], "for Dr. Silva", "active")]
    assert token not in json.dumps(listed)
    assert anonymous_api.get(f"/api/items/{item.ibi}/links", secure=True).status_code in (
        401, 403)

    page = reader.get(link["url"])
    assert page.status_code == 200 and page["Referrer-Policy"] == "same-origin"
    assert f"{file_url(item)}?token={token}" in page.content.decode()
    got = reader.get(f"{file_url(item)}?token={token}")
    assert got.status_code == 200 and b"".join(got.streaming_content) == PDF
    assert AccessRead.objects.get().link_id == link["id"]
    # Another item's files: no.
    refused = reader.get(f"{file_url(other)}?token={token}")
    assert refused.status_code == 403
    assert "This link does not open this item's files" in refused.content.decode()
    # Expired (its last day was yesterday), then revoked: 403 saying which.
    AccessLink.objects.filter(pk=link["id"]).update(expires=timezone.localdate())
    expired = reader.get(f"{file_url(item)}?token={token}")
    assert expired.status_code == 403 and "This link has expired" in expired.content.decode()
    AccessLink.objects.filter(pk=link["id"]).update(expires=LATER)
    assert librarian_api.delete(f"/api/items/{item.ibi}/links/{link['id']}",
                                secure=True).status_code == 204
    revoked = reader.get(f"{file_url(item)}?token={token}")
    assert revoked.status_code == 403 and "was revoked" in revoked.content.decode()
    assert reader.get(link["url"]).status_code == 403


@pytest.mark.parametrize(("body", "message"), [
    ({"expires": "2001-01-01"}, "expires 2001-01-01 is not after today ({today}): a link "
                                "expires on a day to come"),
    ({"expires": "soon"}, "expires 'soon' is not a date: write it as YYYY-MM-DD"),
    ({"expires": LATER.isoformat(), "secret": "x"}, "unknown field secret"),
])
def test_a_bad_link_is_refused_with_its_reason(librarian_api, body, message):
    item = embargoed()
    response = librarian_api.post(f"/api/items/{item.ibi}/links", body, format="json",
                                  secure=True)
    assert response.status_code == 400
    assert response.json() == {"detail": message.format(today=timezone.localdate())}
    assert not AccessLink.objects.exists()


def test_wrong_tokens_cost_what_a_right_one_does_and_are_throttled(
        reader, settings, django_assert_num_queries):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "access_token_failure": "4/hour"}}
    item, other = embargoed(), embargoed(title="Outra")
    mine, _link = access.create_link(item=item, expires=LATER)
    theirs, token_of_other = access.create_link(item=other, expires=LATER)
    revoked, token_revoked = access.create_link(item=item, expires=LATER)
    access.revoke_link(link=revoked)
    queries = []
    for token in ("garbage", token_of_other, token_revoked):
        with django_assert_num_queries(4) as counted:  # item, files, link: whatever the token
            response = reader.get(f"{file_url(item)}?token={token}")
        assert response.status_code == 403
        queries.append([q["sql"].split(" WHERE ")[0] for q in counted.captured_queries])
    assert queries[0] == queries[1] == queries[2]
    for n in range(3):  # the address's count: tokens that are no link at all
        reader.get(f"{file_url(item)}?token=more-garbage-{n}")
    throttled = reader.get(f"{file_url(item)}?token=garbage-again")
    assert throttled.status_code == 429 and int(throttled["Retry-After"]) > 0
    assert reader.get(f"{file_url(item)}?token={_link}").status_code == 200  # never a right one


def test_wrong_tokens_from_a_shared_address_never_lock_out_a_valid_link(settings):
    """(#42, 5) A campus behind one NAT: whatever wrong, expired or revoked tokens someone
    sends from its address, a valid link from there opens its files. Refusals count per link
    tried, and per address only for tokens that are no link at all."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "access_token_failure": "3/hour"}}
    item = embargoed()
    _valid, token = access.create_link(item=item, expires=LATER)
    revoked, token_revoked = access.create_link(item=item, expires=LATER)
    access.revoke_link(link=revoked)
    campus = Client(headers={"User-Agent": BROWSER}, REMOTE_ADDR="198.51.100.7")
    elsewhere = Client(headers={"User-Agent": BROWSER}, REMOTE_ADDR="192.0.2.80")

    guesses = [campus.get(f"{file_url(item)}?token=guess-{n}").status_code for n in range(5)]
    assert guesses == [403, 403, 403, 429, 429]
    revoked_tries = [campus.get(f"{file_url(item)}?token={token_revoked}").status_code
                     for _ in range(4)]
    assert revoked_tries == [403, 403, 403, 429]  # its own count, not the address's
    opened = campus.get(f"{file_url(item)}?token={token}")
    assert opened.status_code == 200 and b"".join(opened.streaming_content) == PDF
    assert campus.get(f"/items/{item.ibi}?token={token}").status_code == 200
    # The guesses were the campus's; the revoked link's count is the link's, wherever from.
    assert elsewhere.get(f"{file_url(item)}?token=guess-x").status_code == 403
    assert elsewhere.get(f"{file_url(item)}?token={token_revoked}").status_code == 429


def test_the_peer_account_reads_files_and_records_and_not_the_secret_links():
    """(#42, 13) The account another Archive copies with (`createpeer`) reads every file and
    record, closed ones included, and nothing else: an item's secret links (whose notes may
    name a reader) are not its to list, make or revoke."""
    from io import StringIO

    from rest_framework.test import APIClient

    item = embargoed()
    link, _token = access.create_link(item=item, expires=LATER, note="for Dr. Silva")
    out = StringIO()
    call_command("createpeer", "archive-b", stdout=out)
    peer = APIClient()
    peer.credentials(HTTP_AUTHORIZATION=f"Token {out.getvalue().split()[-1]}")

    record = peer.get(f"/api/items/{item.ibi}", secure=True).json()
    assert record["files"][0]["sha256"] is not None and record["files"][0]["url"]
    got = peer.get(file_url(item), secure=True)
    assert got.status_code == 200 and b"".join(got.streaming_content) == PDF

    listed = peer.get(f"/api/items/{item.ibi}/links", secure=True)
    assert listed.status_code == 403 and "Dr. Silva" not in listed.content.decode()
    assert peer.post(f"/api/items/{item.ibi}/links", {"expires": LATER.isoformat()},
                     format="json", secure=True).status_code == 403
    assert peer.delete(f"/api/items/{item.ibi}/links/{link.pk}",
                       secure=True).status_code == 403
    assert AccessLink.objects.get().revoked_at is None and AccessLink.objects.count() == 1


# -- Requests for a copy ------------------------------------------------------------------------

@pytest.mark.usefixtures("eager_tasks")  # mails sent by the task, in process
def test_a_request_is_answered_by_mail_with_a_link_that_opens_the_files(
        reader, librarian_client, mailoutbox, django_capture_on_commit_callbacks):
    item = embargoed()
    form = reverse("archive:item_request", args=[item.ibi])
    page = reader.get(form, HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert "Privacidade" in page and 'name="csrfmiddlewaretoken"' in page
    bad = reader.post(form, {"name": "Ana", "email": "not-an-address", "reason": "research"},
                      HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert bad.status_code == 400 and "Insira um endereço de email válido" in \
        bad.content.decode()
    sent = reader.post(form, {"name": "Ana Silva", "email": "ana@example.org",
                              "reason": "my doctoral research"}, HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert sent.status_code == 302 and sent["Location"] == f"{form}?sent"
    request = AccessRequest.objects.get()
    assert (request.name, request.email, request.language, request.status) == (
        "Ana Silva", "ana@example.org", "pt-br", "pending")

    answer = f"/admin/archive/accessrequest/{request.pk}/change/"
    with django_capture_on_commit_callbacks(execute=True):
        done = librarian_client.post(answer, {"decision": "approve", "message": "Boa leitura"},
                                     secure=True)
    assert done.status_code == 302
    request.refresh_from_db()
    assert request.status == "approved" and request.mailed_at is not None
    (mail,) = mailoutbox
    assert mail.to == ["ana@example.org"] and "Boa leitura" in mail.body
    assert "Prezado(a) Ana Silva" in mail.body  # in the language the reader asked in
    url = next(word for word in mail.body.split() if "?token=" in word)
    expires = request.link.expires
    assert expires == timezone.localdate() + timedelta(days=14)
    landing = reader.get(urlsplit(url).path + "?" + urlsplit(url).query)
    assert landing.status_code == 200
    token = parse_qs(urlsplit(url).query)["token"][0]
    assert reader.get(f"{file_url(item)}?token={token}").status_code == 200
    assert AccessRead.objects.get().link == request.link


@pytest.mark.usefixtures("eager_tasks")  # mails sent by the task, in process
def test_a_refused_request_is_mailed_the_refusal_and_the_form_is_csrf_protected(
        reader, librarian_client, mailoutbox, django_capture_on_commit_callbacks):
    item = make.item(("report.pdf", PDF), access=services.Access("restricted"))
    form = reverse("archive:item_request", args=[item.ibi])
    strict = Client(enforce_csrf_checks=True, headers={"User-Agent": BROWSER})
    assert strict.post(form, {"name": "A", "email": "a@example.org",
                              "reason": "r"}).status_code == 403
    assert not AccessRequest.objects.exists()
    reader.post(form, {"name": "Ann", "email": "ann@example.org", "reason": "curious"})
    request = AccessRequest.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        librarian_client.post(f"/admin/archive/accessrequest/{request.pk}/change/",
                              {"decision": "refuse", "message": "Internal only."}, secure=True)
    (mail,) = mailoutbox
    assert "could not approve" in mail.body and "Internal only." in mail.body
    assert "token" not in mail.body and not AccessLink.objects.exists()
    # Answered once: the page shows the answer, nothing more is sent.
    again = librarian_client.post(f"/admin/archive/accessrequest/{request.pk}/change/",
                                  {"decision": "approve"}, secure=True)
    assert again.status_code == 403 and len(mailoutbox) == 1


def test_a_flood_of_requests_is_throttled(reader, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "access_request": "2/hour"}}
    item = embargoed()
    form = reverse("archive:item_request", args=[item.ibi])
    answers = [reader.post(form, {"name": f"R{n}", "email": "r@example.org",
                                  "reason": "x"}).status_code for n in range(3)]
    assert answers == [302, 302, 429]
    assert AccessRequest.objects.count() == 2
    # Requests the form refuses count too: a flood of them is throttled alike.
    other = Client(headers={"User-Agent": BROWSER}, REMOTE_ADDR="192.0.2.44")
    refused = [other.post(form, {"name": "", "email": "nobody",
                                 "reason": ""}).status_code for _ in range(3)]
    assert refused == [400, 400, 429] and AccessRequest.objects.count() == 2
    # Nothing to ask of an open item.
    assert reader.get(reverse("archive:item_request",
                              args=[make.item().ibi])).status_code == 404


# -- Embargoes lift themselves -------------------------------------------------------------------

@pytest.mark.usefixtures("eager_tasks")  # mails sent by the task, in process
def test_the_task_and_the_command_lift_what_is_due_and_everyone_sees_it_at_once(reader):
    item = embargoed()
    later = embargoed(title="Later")
    Item.objects.filter(pk=later.pk).update(embargo_until=LATER + timedelta(days=1))
    copy = make.as_copy(embargoed(title="A copy"))
    assert reader.get(f"/{item.ibi}")["Location"].endswith(f"/items/{item.ibi}")
    before = Item.objects.get(pk=item.pk).updated
    call_command("liftembargoes", "--today", (LATER - timedelta(days=1)).isoformat())
    assert Item.objects.get(pk=item.pk).access_rights == "embargoed"

    Item.objects.filter(pk=item.pk).update(embargo_until=timezone.localdate())
    assert lift_embargoes.delay().get() == 1
    item.refresh_from_db()
    assert (item.access_rights, item.embargo_until, item.updated > before) == ("open", None,
                                                                               True)
    assert reader.get(f"/{item.ibi}")["Location"].endswith(file_url(item))  # the cache knew
    oai = reader.get(f"/oai?verb=GetRecord&metadataPrefix=oai_dc&"
                     f"identifier=oai:testserver:{item.ibi}").content
    assert item.updated.strftime("%Y-%m-%dT%H:%M:%SZ").encode() in oai
    assert b"c_abf2" in oai
    # The command: idempotent; a Copy follows its Original, not the calendar.
    out = []
    call_command("liftembargoes", stdout=type("Out", (), {"write": out.append,
                                                          "flush": lambda: None})())
    assert out == ["0 embargoes lifted\n"] or "".join(out).strip() == "0 embargoes lifted"
    Item.objects.filter(pk=copy.pk).update(embargo_until=timezone.localdate())
    assert access.lift_embargoes() == []
    assert Item.objects.get(pk=copy.pk).access_rights == "embargoed"


def test_lifting_runs_shortly_after_midnight_in_the_sites_time_zone(settings):
    schedule = settings.CELERY_BEAT_SCHEDULE["lift-embargoes"]
    assert schedule["task"] == "archive.tasks.lift_embargoes"
    assert (schedule["schedule"].hour, schedule["schedule"].minute) == ({0}, {5})
    assert settings.CELERY_TIMEZONE == settings.TIME_ZONE


# -- What harvesters read: valid records -------------------------------------------------------

@pytest.mark.parametrize("prefix", ["oai_openaire", "oai_datacite", "oai_dc"])
def test_the_records_of_an_embargoed_item_are_valid_and_say_so(client, prefix):
    item = embargoed()
    response = client.get(f"/oai?verb=GetRecord&metadataPrefix={prefix}"
                          f"&identifier=oai:testserver:{item.ibi}")
    document = etree.fromstring(response.content)
    schema = {"oai_datacite": "datacite"}.get(prefix, prefix)
    xml_schemas.assert_valid(xml_schemas.oai_pmh(schema), document)
    text = response.content.decode()
    assert policy.coar("embargoed")[1] in text and "thesis.pdf" not in text
    if prefix == "oai_openaire":
        dates = {d.get("dateType"): d.text for d in document.iter(
            "{http://datacite.org/schema/kernel-4}date")}
        assert dates["Available"] == LATER.isoformat() and "Accepted" in dates
    elif prefix == "oai_datacite":
        assert f'<date dateType="Available">{LATER.isoformat()}</date>' in text
    else:
        assert f"info:eu-repo/date/embargoEnd/{LATER.isoformat()}" in text
    record = client.get(f"/items/{item.ibi}/metadata/datacite").content
    xml_schemas.assert_valid(xml_schemas.datacite(), etree.fromstring(record))
    landing = client.get(f"/items/{item.ibi}").content.decode()
    assert '"isAccessibleForFree": false' in landing and "citation_pdf_url" not in landing


def test_librarians_make_and_revoke_links_and_read_the_audit_trail_in_the_admin(
        librarian_client, reader):
    item = embargoed()
    made = librarian_client.post("/admin/archive/accesslink/add/", {
        "item": item.pk, "expires": LATER.isoformat(), "note": "banca"}, secure=True,
        follow=True)
    page = made.content.decode()
    link = AccessLink.objects.get()
    url = next(part.split('"')[0] for part in page.split('href="') if "?token=" in part)
    token = parse_qs(urlsplit(url).query)["token"][0]
    assert (link.note, link.created_by.username) == ("banca", "librarian")
    assert reader.get(f"{file_url(item)}?token={token}").status_code == 200
    listed = librarian_client.get("/admin/archive/accessread/", secure=True).content.decode()
    assert "thesis.pdf" in listed and f"link {link.pk} to {item.ibi}" in listed
    librarian_client.post("/admin/archive/accesslink/", {
        "action": "revoke", "_selected_action": [link.pk]}, secure=True)
    assert reader.get(f"{file_url(item)}?token={token}").status_code == 403
    refused = librarian_client.post("/admin/archive/accesslink/add/", {
        "item": make.item().pk, "expires": LATER.isoformat()}, secure=True)
    assert refused.status_code == 200 and "a link would open nothing" in \
        refused.content.decode()


def test_the_policy_knows_every_level_the_model_stores():
    """policy.py is pure (no model import): its levels must be the model's, each with its
    COAR access right."""
    from archive.models import AccessRights

    assert set(policy.COAR_RIGHTS) == set(AccessRights.values)
    assert [uri.rsplit("/", 1)[1] for _label, uri in policy.COAR_RIGHTS.values()] == [
        "c_abf2", "c_f1cf", "c_16ec", "c_14cb"]


# -- LGPD: what is kept of a reader, and for how long (#42, 14) ---------------------------------

@pytest.mark.usefixtures("eager_tasks")  # mails sent by the task, in process
def test_a_readers_name_is_copied_into_no_other_record_and_goes_with_the_request(
        reader, librarian_client, mailoutbox, django_capture_on_commit_callbacks):
    """The request holds the reader's name; the link its approval makes, and the admin's own
    history of the answer and of the deletion, name the request by its number only."""
    from django.contrib.admin.models import LogEntry

    item = embargoed()
    reader.post(reverse("archive:item_request", args=[item.ibi]), {
        "name": "Ana Quintanilha", "email": "ana.q@example.org", "reason": "my research"})
    request = AccessRequest.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        assert librarian_client.post(f"/admin/archive/accessrequest/{request.pk}/change/",
                                     {"decision": "approve"}, secure=True).status_code == 302
    assert "Ana Quintanilha" in mailoutbox[0].body
    link = AccessLink.objects.get()
    assert link.request == request and "Quintanilha" not in link.note
    deleted = librarian_client.post(f"/admin/archive/accessrequest/{request.pk}/delete/",
                                    {"post": "yes"}, secure=True)
    assert deleted.status_code == 302 and not AccessRequest.objects.exists()
    link.refresh_from_db()
    assert link.request is None
    kept = [*AccessLink.objects.values_list("note", flat=True),
            *LogEntry.objects.values_list("object_repr", "change_message")]
    assert LogEntry.objects.count() == 2  # the answer, the deletion
    assert not [text for text in kept if "Quintanilha" in str(text) or "ana.q" in str(text)]


def test_librarians_delete_links_in_the_admin_and_the_audit_trail_keeps_the_reads(
        librarian_client, reader):
    item = embargoed()
    link, token = access.create_link(item=item, expires=LATER, note="banca")
    assert reader.get(f"{file_url(item)}?token={token}").status_code == 200
    page = librarian_client.get(f"/admin/archive/accesslink/{link.pk}/delete/", secure=True)
    assert page.status_code == 200
    deleted = librarian_client.post(f"/admin/archive/accesslink/{link.pk}/delete/",
                                    {"post": "yes"}, secure=True)
    assert deleted.status_code == 302 and not AccessLink.objects.exists()
    read = AccessRead.objects.get()
    assert (read.file_name, read.link) == ("thesis.pdf", None)
    assert reader.get(f"{file_url(item)}?token={token}").status_code == 403


@pytest.mark.usefixtures("eager_tasks")
def test_requests_personal_data_are_erased_past_the_retention_limit(
        settings, reader, librarian_client, mailoutbox, django_capture_on_commit_callbacks):
    """IBI_ACCESS_REQUEST_DAYS after a request was made, its reader's name, address, reason and
    the librarian's message to them are erased by the beat's task; what is left (the item,
    the dates, the answer) is no one's. An answer still owed by mail waits for its mail."""
    from archive.access.tasks import erase_access_requests

    settings.IBI_ACCESS_REQUEST_DAYS = 30
    item = embargoed()
    notice = reader.get(reverse("archive:item_request", args=[item.ibi])).content.decode()
    assert "they are erased 30 days after you send it" in notice

    def asked(name: str, days_ago: int) -> AccessRequest:
        request = access.request_access(item=item, name=name, email=f"{name}@example.org",
                                        reason=f"reason of {name}")
        AccessRequest.objects.filter(pk=request.pk).update(
            created=timezone.now() - timedelta(days=days_ago))
        return request

    old, recent, waiting, owed = (asked("old", 31), asked("recent", 29), asked("waiting", 45),
                                  asked("owed", 40))
    with django_capture_on_commit_callbacks(execute=True):
        access.refuse(request=old, message="Dear old, no.")
        access.mail_owed()
    access.refuse(request=owed, message="Dear owed, no.")  # its mail not sent yet
    assert erase_access_requests.delay().get() == 2

    for request in (old, waiting):
        request.refresh_from_db()
        assert (request.name, request.email, request.reason, request.message) == ("", "", "",
                                                                                  "")
        assert request.erased_at is not None and request.item == item
    for request in (recent, owed):
        request.refresh_from_db()
        assert request.erased_at is None and request.email.endswith("@example.org")
    assert old.status == "refused" and erase_access_requests.delay().get() == 0
    # An erased request waiting for an answer can no longer be answered: nobody to mail.
    page = librarian_client.post(f"/admin/archive/accessrequest/{waiting.pk}/change/",
                                 {"decision": "approve"}, secure=True)
    assert page.status_code == 403 and not AccessLink.objects.exists()
    with pytest.raises(services.ServiceError, match="erased"):
        access.approve(request=waiting)


def test_the_retention_task_runs_every_night(settings):
    schedule = settings.CELERY_BEAT_SCHEDULE["erase-access-requests"]
    assert schedule["task"] == "archive.tasks.erase_access_requests"


@pytest.mark.parametrize(("field", "value", "shown"), [
    ("name", "Ana \u202eavliS", "U+202E"),
    ("name", "Ana\u2066 Silva", "U+2066"),
    ("name", "Ana\nSilva", "U+000A"),
    ("reason", "for my thesis\u200f", "U+200F"),
    ("reason", "bell\x07", "U+0007"),
])
def test_bidirectional_and_control_characters_are_refused_in_a_request(reader, field, value,
                                                                       shown):
    item = embargoed()
    fields = {"name": "Ana Silva", "email": "ana@example.org", "reason": "my research",
              field: value}
    sent = reader.post(reverse("archive:item_request", args=[item.ibi]), fields)
    assert sent.status_code == 400 and not AccessRequest.objects.exists()
    page = sent.content.decode()
    assert f"holds {shown}" in page
    with pytest.raises(services.ServiceError, match=re.escape(shown)):
        access.request_access(item=item, **fields)
    # A reason's own lines and tabs are its text.
    assert access.request_access(item=item, name="Ana Silva", email="ana@example.org",
                                 reason="first line\n\tsecond line").reason == (
        "first line\n\tsecond line")
