"""The archive service (RTC-11 §9): answers rebuilt from deposited items, pair by pair.

Names in the standard's examples that we cannot give are said where they are left out: our
metadata pages are not identified items, so there is never an ``ibi.metadata…`` pair.
"""
from __future__ import annotations

import re
from urllib.parse import quote, urlencode, urlsplit

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from archive.archive_service import answers as archive_service
from archive.archive_service import relations, urlkeys
from archive.archive_service import requests as service_requests
from archive.communities.services import default_collection
from archive.deposit import selectors, services
from archive.models import AcknowledgedUrlkey, DailyAccessCount, Item
from archive.protocol import persistent_url
from archive.protocol.pairs import dumps, loads, to_dict
from archive.urls import dispatch
from tests import factories as make

BANON = {"creator": ["Banon, Gerald"]}

pytestmark = pytest.mark.django_db

ADDRESS = "mtc-m16c.sid.inpe.br"
PLATFORM = "dpi.inpe.br/banon/1998/08.02.08.56"
ISO = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
KEY = re.compile(r"[0-9]{10,}(-[0-9]{10,})?")  # Table 7.1
CLIENT = "172.16.44.200 150.163.68.1"  # §10: the client, then its proxy


@pytest.fixture(autouse=True)
def service(settings):
    settings.ARCHIVE_ADDRESS = ADDRESS
    settings.IBI_PLATFORM_SOFTWARE = PLATFORM
    return services.ensure_archive_service()


def ask(client, service, pairs: dict[str, str], **headers):
    """One request to the archive service; values %-encoded as Table 6.1 (space as %20)."""
    query = urlencode(pairs, quote_via=quote, safe="/()")
    return client.get(f"/{service.ibi}", QUERY_STRING=query, headers=headers)


def url_request(client, service, ibi: str, **more):
    pairs = {"servicesubject": "urlRequest", "clientinformation.ipaddress": CLIENT,
             "parsedibiurl.ibi": ibi}
    pairs.update({f"parsedibiurl.{name}": value for name, value in more.items()})
    response = ask(client, service, pairs)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/plain; charset=us-ascii"
    return to_dict(loads(response.content.decode("ascii"), strict=True))


def forms(item: Item) -> list[str]:
    return ["rep", item.ibi, "ibip", item.ibip]


def file_url(item: Item, name: str) -> str:
    return f"http://{ADDRESS}/col/{item.ibi}/doc/{quote(name)}"


def page(item: Item, suffix: str) -> str:
    return f"http://{ADDRESS}/items/{item.ibi}/{suffix}"


RESOLVER = "ibirepo-resolver/1"  # what our resolver's requests say they are


def acknowledge(client, service, answer: dict, relation: str, persistent: str,
                ips: str = CLIENT, agent: str = RESOLVER):
    pairs = {"servicesubject": "acknowledgment", "clientinformation.ipaddress": ips,
             "contenttype": answer[f"contenttype{relation}"], "state": answer[f"state{relation}"],
             "url": answer[f"url{relation}"], "url.persistent": persistent,
             "urlkey": answer["urlkey"]}
    if f"ibi{relation}" in answer:
        pairs["ibi"] = " ".join(answer[f"ibi{relation}"])
    return ask(client, service, pairs, **{"User-Agent": agent})


# -- Examples 7.4, 6.1/6.2, 9.4, 9.9, 10.1 -----------------------------------------------------

def legacy(rep: str) -> str:
    """The same repository name with the port written "@80", as before August 2010."""
    subdomain, word, suffix = rep.split("/", 2)
    return f"{subdomain}/{word}@80/{suffix}"


def test_example_7_4_confirms_inclusion_at_either_form_in_any_case(client, service):
    for path in (service.ibi, service.ibi.upper(), service.ibip, service.ibip.lower(),
                 legacy(service.ibi)):
        response = client.get(f"/{path}?servicesubject=inclusionConfirmationRequest")

        assert response.status_code == 200
        assert response["Content-Type"] == "text/plain; charset=us-ascii"
        assert response.content == b"confirmation yes"


def test_example_6_2_answer_has_the_nine_pairs_of_the_standard(client, service):
    item = make.item("Relatório Final.pdf", language="pt", dc=BANON)

    answer = url_request(client, service, item.ibip)  # Example 6.1 asks with the IBIp

    assert list(answer) == ["archiveaddress", "contenttype", "ibi", "ibi.archiveservice",
                            "ibi.platformsoftware", "state", "timestamp", "url", "urlkey"]
    assert answer["archiveaddress"] == ADDRESS
    assert answer["contenttype"] == "Data"
    assert answer["ibi"] == forms(item)
    assert answer["ibi.archiveservice"] == forms(service)
    assert answer["ibi.platformsoftware"] == ["rep", PLATFORM]
    assert answer["state"] == "Original"  # Example 9.4
    assert ISO.fullmatch(answer["timestamp"])
    assert answer["url"] == file_url(item, "Relatório Final.pdf")
    assert answer["url"].endswith("/doc/Relat%C3%B3rio%20Final.pdf")  # UTF-8, §6.2
    assert KEY.fullmatch(answer["urlkey"])


def test_example_9_9_url_is_the_target_file_among_several(client, service):
    item = make.item(("a.txt", b"x"), ("@relatorio.pdf", b"x"), title="Relatório",
                     target_file="@relatorio.pdf")

    assert url_request(client, service, item.ibi)["url"] == file_url(item, "@relatorio.pdf")


def test_each_answer_has_a_fresh_urlkey(client, service):
    item = make.item(language="en", dc=BANON)

    keys = {url_request(client, service, item.ibi)["urlkey"] for _ in range(3)}

    assert len(keys) == 3


def test_ibi_platformsoftware_is_empty_braces_without_a_platform_ibi(client, service, settings):
    settings.IBI_PLATFORM_SOFTWARE = ""
    item = make.item(language="en", dc=BANON)

    response = ask(client, service, {"servicesubject": "urlRequest", "parsedibiurl.ibi": item.ibi,
                                     "clientinformation.ipaddress": "150.163.2.175"})

    assert b"\r\nibi.platformsoftware {}\r\n" in response.content  # Table 9.3


def test_section_10_1_resolution_and_acknowledgment(client, service):
    item = make.item("CCSDS 650.0-B-1.pdf", language="en", dc=BANON)

    answer = url_request(client, service, item.ibip)
    response = acknowledge(client, service, answer, "",
                           f"http://urlib.net:80/{item.ibip}")

    assert response.status_code == 200
    assert response.content == b"notice {acknowledgment received}"
    assert make.counts(item.pk) == {"downloads": 0, "acknowledgments": 1, "total": 1}
    assert AcknowledgedUrlkey.objects.get().urlkey == answer["urlkey"]


# -- Example 9.2: the full list; 9.5, 9.6, 9.8, 9.10 -------------------------------------------

EXAMPLE_9_2 = """
archiveaddress contenttype contenttype.lastedition contenttype.lastedition.metadata
contenttype.lastedition.metadata(oai_dc) contenttype.metadata contenttype.metadata(oai_dc)
contenttype.metadata.translation contenttype.translation(en) contenttype.translation(pt)
ibi ibi.archiveservice ibi.lastedition ibi.platformsoftware ibi.translation(en)
ibi.translation(pt) state state.lastedition state.lastedition.metadata
state.lastedition.metadata(oai_dc) state.metadata state.metadata(oai_dc)
state.metadata.translation state.translation(en) state.translation(pt) timestamp
timestamp.lastedition timestamp.lastedition.metadata timestamp.lastedition.metadata(oai_dc)
timestamp.metadata timestamp.metadata(oai_dc) timestamp.metadata.translation
timestamp.translation(en) timestamp.translation(pt) url url.lastedition
url.lastedition.metadata url.lastedition.metadata(oai_dc) url.metadata url.metadata(oai_dc)
url.metadata.translation url.translation(en) url.translation(pt) urlkey
""".split()  # without ibi.metadata, ibi.metadata(oai_dc), ibi.lastedition.metadata…


@pytest.fixture
def english_and_portuguese():
    original = make.item("CCSDS 643.0-B-1.pdf", language="en", dc=BANON)
    portuguese = make.item("RTC-07.pdf", language="pt", translation_of=original, dc=BANON)
    return original, portuguese


def test_example_9_2_every_relation_of_an_item_with_a_translation(english_and_portuguese):
    original, portuguese = english_and_portuguese

    pairs = archive_service.url_list(ibi_text=original.ibip)
    answer = to_dict(pairs)

    assert [name for name, _ in pairs] == sorted(answer)  # one pair per name, sorted
    assert set(EXAMPLE_9_2) <= set(answer)
    assert not [name for name in answer if name.startswith("ibi") and ".metadata" in name]
    # Without a newer edition, every .lastedition pair equals the pair without it (§9.2).
    for name, value in answer.items():
        if ".lastedition" in name:
            assert value == answer[name.replace(".lastedition", "", 1)], name
    assert answer["ibi.lastedition"] == answer["ibi"] == forms(original)  # Example 9.8
    assert answer["timestamp.lastedition"] == answer["timestamp"]  # Example 9.6
    assert answer["ibi.translation(en)"] == forms(original)  # the original is its own en
    assert answer["ibi.translation(pt)"] == forms(portuguese)
    assert answer["url.translation(pt)"] == file_url(portuguese, "RTC-07.pdf")
    assert answer["url.metadata"] == page(original, "metadata")  # Example 9.10
    assert answer["url.metadata(oai_dc)"] == page(original, "oai_dc.xml")
    assert answer["url.metadata.translation"] == answer["url.metadata"]
    assert {answer[f"contenttype{r}"] for r in (".metadata", ".metadata(oai_dc)")} == {"Metadata"}
    assert answer["contenttype.translation(pt)"] == "Data"
    assert answer["ibi.translation"] == answer["ibi"]  # the bare relation is the item itself
    assert answer["url.translation(pt).metadata"] == page(portuguese, "metadata")
    assert "ibi.translation(fr)" not in answer  # only the languages on file


def test_example_9_2_urls_exist(client, english_and_portuguese):
    original, _ = english_and_portuguese

    answer = to_dict(archive_service.url_list(ibi_text=original.ibi))
    paths = {urlsplit(value).path for name, value in answer.items() if name.startswith("url.")
             or name == "url"}

    # two files, and each item's metadata page and its record in each of the six formats
    assert len(paths) == 2 + 2 * 7
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        if path.endswith("oai_dc.xml"):
            assert b"http://www.openarchives.org/OAI/2.0/oai_dc/" in response.content


def test_example_9_5_relations_are_all_announced():
    templates = relations.relation_templates()

    for relation in ("", ".lastedition", ".translation", ".translation(xx-YY)", ".metadata",
                     ".metadata(oai_dc)", ".lastedition.translation",
                     ".lastedition.translation(xx-YY)", ".lastedition.metadata",
                     ".lastedition.metadata(oai_dc)", ".translation(xx-YY).lastedition",
                     ".translation(xx).metadata", ".metadata(bibtex)",
                     ".lastedition.metadata(csljson)", ".translation(xx).metadata(schemaorg)"):
        assert relation in templates
    # 55 of the standard's; each format besides oai_dc adds its 22 as .metadata(oai_dc) has.
    assert len(templates) == 55 + 22 * 5


# -- Example 9.3 and the verb list -------------------------------------------------------------

EXAMPLE_9_3 = """
archiveaddress contenttype.translation(en) contenttype.translation(pt) ibi ibi.archiveservice
ibi.platformsoftware ibi.translation(en) ibi.translation(pt) state.translation(en)
state.translation(pt) timestamp.translation(en) timestamp.translation(pt) url.translation(en)
url.translation(pt) urlkey
""".split()
BARE_TRANSLATION = ["contenttype.translation", "ibi.translation", "state.translation",
                    "timestamp.translation", "url.translation"]


def test_example_9_3_get_translation_keeps_the_translations(client, service,
                                                            english_and_portuguese):
    original, portuguese = english_and_portuguese

    answer = url_request(client, service, original.ibip, verblist="GetTranslation")

    assert sorted(answer) == sorted(EXAMPLE_9_3 + BARE_TRANSLATION)
    assert answer["url.translation(en)"] == file_url(original, "CCSDS 643.0-B-1.pdf")
    assert answer["url.translation(pt)"] == file_url(portuguese, "RTC-07.pdf")
    full = to_dict(archive_service.url_list(ibi_text=original.ibip))
    assert {n: v for n, v in answer.items() if n != "urlkey"} == {
        n: full[n] for n in answer if n != "urlkey"}  # a filter, nothing else


def test_a_named_translation_is_that_language_only(client, service, english_and_portuguese):
    original, portuguese = english_and_portuguese

    from_portuguese = url_request(client, service, portuguese.ibi,
                                  verblist="GetTranslation(en)")
    missing = url_request(client, service, original.ibi, verblist="GetTranslation(fr)")

    assert from_portuguese["ibi.translation(en)"] == forms(original)
    assert [n for n in from_portuguese if ".translation" in n] == [
        f"{x}.translation(en)" for x in ("contenttype", "ibi", "state", "timestamp", "url")]
    assert sorted(missing) == ["archiveaddress", "ibi", "ibi.archiveservice",
                               "ibi.platformsoftware"]  # no URL, hence no urlkey either


def test_a_regional_tag_also_answers_its_language(client, service):
    original = make.item(language="en", dc=BANON)
    brazilian = make.item("relatorio.pdf", language="pt-BR", translation_of=original, dc=BANON)

    answer = url_request(client, service, original.ibi, verblist="GetTranslation")

    assert answer["ibi.translation(pt-BR)"] == answer["ibi.translation(pt)"] == forms(brazilian)
    exact = url_request(client, service, original.ibi, verblist="GetTranslation(pt-br)")
    assert exact["url.translation(pt-BR)"] == file_url(brazilian, "relatorio.pdf")


def test_an_item_without_language_is_reached_through_the_bare_translation(client, service):
    item = make.item(language="", dc=BANON)

    answer = url_request(client, service, item.ibi, verblist="GetTranslation")

    assert answer["url.translation"] == file_url(item, "paper.pdf")
    assert not [n for n in answer if "(" in n]  # no language to name


def test_metadata_verbs(client, service):
    item = make.item(language="en", dc=BANON)

    free = url_request(client, service, item.ibi, verblist="GetMetadata")
    oai = url_request(client, service, item.ibi, verblist="GetMetadata(oai_dc)")

    # Example 9.2's pairs, and the one announcing the formats beyond oai_dc (#25, 6.).
    assert sorted(free) == ["archiveaddress", "contenttype.metadata", "ibi", "ibi.archiveservice",
                            "ibi.platformsoftware", "metadataformats", "state.metadata",
                            "timestamp.metadata", "url.metadata", "urlkey"]
    assert free["url.metadata"] == page(item, "metadata")
    assert oai["url.metadata(oai_dc)"] == page(item, "oai_dc.xml")
    assert "url.metadata" not in oai


# -- Files: Examples 9.11 and 9.12 -------------------------------------------------------------

def test_example_9_11_a_file_path_gives_that_file(client, service):
    item = make.item("@relatorio.pdf", "reference.bib", language="en", dc=BANON)
    other = make.item("secret.txt", language="en", dc=BANON)

    answer = url_request(client, service, item.ibip, filepath="/reference.bib")
    foreign = url_request(client, service, item.ibip, filepath="/secret.txt")
    missing = url_request(client, service, item.ibip, filepath="/a/reference.bib")

    assert answer["url"] == file_url(item, "reference.bib")
    assert client.get(urlsplit(answer["url"]).path).status_code == 200
    for wrong in (foreign, missing):  # never a URL outside the item
        assert sorted(wrong) == ["archiveaddress", "ibi", "ibi.archiveservice",
                                 "ibi.platformsoftware"]
    assert other.ibi not in str(foreign)


@pytest.mark.parametrize("escaped", [
    "/Relat%C3%B3rio%20Final.pdf",  # UTF-8, what browsers and our resolver send
    "/Relat%F3rio%20Final.pdf",  # ISO-8859-1, as in Example 6.2
    "/Relat%f3rio%20Final.pdf",
])
def test_a_non_ascii_file_path_travels_as_the_escapes_of_its_bytes(client, service, escaped):
    item = make.item("Relatório Final.pdf", language="en", dc=BANON)
    query = (f"servicesubject=urlRequest&clientinformation.ipaddress={CLIENT}&"
             f"parsedibiurl.ibi={item.ibip}&parsedibiurl.filepath={escaped}")

    response = client.get(f"/{service.ibi}", QUERY_STRING=query)

    assert response.status_code == 200, response.content
    answer = to_dict(loads(response.content.decode("ascii"), strict=True))
    assert answer["url"] == file_url(item, "Relatório Final.pdf")
    assert answer["url"].endswith("/doc/Relat%C3%B3rio%20Final.pdf")


def test_a_file_path_is_decoded_once_only(client, service):
    make.item("Relatório Final.pdf", language="en", dc=BANON)
    item = make.item("Relat%C3%B3rio.pdf", language="en",
                     dc=BANON)  # a name that looks escaped is a name

    answer = url_request(client, service, item.ibi, filepath="/Relat%C3%B3rio.pdf")

    assert answer["url"] == file_url(item, "Relat%C3%B3rio.pdf")


def test_example_9_12_get_file_list_gives_the_file_list_page(client, service):
    item = make.item("@relatorio.pdf", "reference.bib", language="en", dc=BANON)

    answer = url_request(client, service, item.ibip, verblist="GetFileList",
                         filepath="/reference.bib")  # the verb list prevails

    assert answer["url"] == page(item, "files")
    assert client.get(urlsplit(answer["url"]).path).status_code == 200


def test_file_list_of_a_translation(client, service, english_and_portuguese):
    original, portuguese = english_and_portuguese

    answer = url_request(client, service, original.ibi, verblist="GetTranslation(pt) GetFileList")

    assert answer["url.translation(pt)"] == page(portuguese, "files")


# -- Editions: §10.2 and chains ----------------------------------------------------------------

def test_section_10_2_next_edition_chain_and_acknowledgment(client, service):
    first = make.item("CCSDS 650.0-B-1.pdf", language="en", dc=BANON)
    second = make.item("CCSDS 650.0-B-2.pdf", previous_edition=first, language="en", dc=BANON)
    verbs = "GetLastEdition GetMetadata(oai_dc)"  # !:(oai_dc)

    answer = url_request(client, service, first.ibip, verblist=verbs)
    again = url_request(client, service, second.ibi, verblist=verbs)  # the resolver's loop

    relation = ".lastedition.metadata(oai_dc)"
    assert answer["ibi.nextedition"] == forms(second)
    # We know the whole chain, so the first answer already has what the second one gives.
    assert answer[f"url{relation}"] == again[f"url{relation}"] == page(second, "oai_dc.xml")
    assert sorted(again) == sorted(["archiveaddress", "ibi", "ibi.archiveservice",
                                    "ibi.platformsoftware", "metadataformats", "urlkey"] + [
        f"{x}{relation}" for x in ("contenttype", "state", "timestamp", "url")])
    assert again[f"contenttype{relation}"] == "Metadata"

    response = acknowledge(client, service, again, relation,
                           f"http://urlib.net:80/{first.ibip}!:(oai_dc)")

    assert response.content == b"notice {acknowledgment received}"
    assert make.counts(second.pk)["acknowledgments"] == 1
    assert make.counts(first.pk)["total"] == 0


def test_last_edition_through_five_editions(client, service):
    chain = [make.item("v1.pdf", language="en", dc=BANON)]
    for number in range(2, 6):
        chain.append(make.item(f"v{number}.pdf", previous_edition=chain[-1], language="en",
                               dc=BANON))

    answer = url_request(client, service, chain[1].ibip, verblist="GetLastEdition")

    assert answer["ibi.nextedition"] == forms(chain[2])
    assert answer["ibi.lastedition"] == forms(chain[4])
    assert answer["url.lastedition"] == file_url(chain[4], "v5.pdf")
    assert "ibi.nextedition" not in url_request(client, service, chain[4].ibi)


def test_translations_and_editions_compose(client, service):
    first = make.item("en-1.pdf", language="en", dc=BANON)
    first_pt = make.item("pt-1.pdf", language="pt", translation_of=first, dc=BANON)
    newer_pt = make.item("pt-2.pdf", language="pt", previous_edition=first_pt, dc=BANON)
    second = make.item("en-2.pdf", language="en", previous_edition=first, dc=BANON)
    second_fr = make.item("fr-2.pdf", language="fr", translation_of=second, dc=BANON)

    full = to_dict(archive_service.url_list(ibi_text=first.ibi))

    assert full["ibi.translation(pt)"] == forms(first_pt)
    assert full["ibi.translation(pt).lastedition"] == forms(newer_pt)
    assert full["url.translation(pt).lastedition.metadata"] == page(newer_pt, "metadata")
    assert full["ibi.lastedition"] == forms(second)
    assert full["ibi.lastedition.translation(fr)"] == forms(second_fr)
    assert "ibi.translation(fr)" not in full and "ibi.lastedition.translation(pt)" not in full
    assert full["ibi.translation(en).lastedition"] == forms(second)


# -- Deleted and unknown items -----------------------------------------------------------------

def test_a_deleted_item_answers_its_tombstone_whatever_the_verbs(client, service):
    item = make.item(language="en", dc=BANON)
    services.item_delete(item=item)

    for verbs in ("", "GetTranslation", "GetLastEdition GetMetadata(oai_dc)"):
        answer = url_request(client, service, item.ibi, verblist=verbs)

        assert sorted(answer) == ["archiveaddress", "ibi", "ibi.archiveservice",
                                  "ibi.platformsoftware", "state", "timestamp"]
        assert answer["state"] == "Deleted" and ISO.fullmatch(answer["timestamp"])


def test_a_deleted_last_edition_has_an_ibi_and_no_url(client, service):
    first = make.item(language="en", dc=BANON)
    second = make.item(previous_edition=first, language="en", dc=BANON)
    services.item_delete(item=second)

    answer = url_request(client, service, first.ibi, verblist="GetLastEdition")

    assert answer["ibi.lastedition"] == forms(second)
    assert "url.lastedition" not in answer and "urlkey" not in answer


def test_an_unknown_ibi_gets_the_empty_answer(client, service):
    response = ask(client, service, {"servicesubject": "urlRequest",
                                     "clientinformation.ipaddress": "150.163.2.175",
                                     "parsedibiurl.ibi": "LK47B6W/362SFKH"})
    preferring_json = ask(client, service, {
        "servicesubject": "urlRequest", "parsedibiurl.ibi": "iconet.com.br/banon/2009/09.09.22.01",
        "clientinformation.ipaddress": "150.163.2.175"}, accept="application/json")

    assert (response.status_code, response.content) == (200, b"")
    assert (preferring_json.status_code, preferring_json.content) == (200, b"")
    assert preferring_json["Content-Type"] == "text/plain; charset=us-ascii"


def test_legacy_port_spelling_finds_the_item(client, service):
    item = make.item(language="en", dc=BANON)

    assert url_request(client, service, legacy(item.ibi).upper())["ibi"] == forms(item)


# -- The resolver's entry point ----------------------------------------------------------------

def test_url_request_takes_what_the_persistent_url_parser_gives(client, service):
    first = make.item(language="en", dc=BANON)
    second = make.item(previous_edition=first, language="en", dc=BANON)
    url = persistent_url.parse(f"/{first.ibip}!:(oai_dc)")

    pairs = archive_service.url_request(ibi_text=url.ibi, verbs=url.verbs, filepath=url.filepath,
                                        client_ips=["150.163.2.175"])
    over_http = url_request(client, service, first.ibip, verblist=url.verblist_text())

    answer = to_dict(pairs)
    assert answer["url.lastedition.metadata(oai_dc)"] == page(second, "oai_dc.xml")
    answer.pop("urlkey"), over_http.pop("urlkey")
    assert answer == over_http


# -- Acknowledgments ---------------------------------------------------------------------------

@pytest.fixture
def answered(client, service):
    item = make.item(language="en", dc=BANON)
    return item, url_request(client, service, item.ibi)


def test_an_acknowledgment_counts_once(client, service, answered):
    item, answer = answered

    for _ in range(2):
        response = acknowledge(client, service, answer, "", f"http://urlib.net/{item.ibip}")
        assert response.content == b"notice {acknowledgment received}"

    assert make.counts(item.pk)["acknowledgments"] == 1


def test_acknowledgments_are_counted_with_counters_filters(client, service):
    """(#42, 12) Anyone may ask for a fresh urlkey and send it back: each key counts once at
    most, and what it reports passes COUNTER's filters as this Archive's own accesses do. The
    same reader (the addresses reported, the sender's own address, its User-Agent) on the same
    URL again within 30 s is a double click; a script or a robot sending it counts nothing.
    Every acknowledgment is answered alike (RTC-11, Algorithm 1)."""
    item = make.item(language="en", dc=BANON)
    persistent = f"http://urlib.net/{item.ibip}"

    def resolved(ips: str = CLIENT, agent: str = RESOLVER) -> None:
        answer = url_request(client, service, item.ibi)  # a fresh key each time
        response = acknowledge(client, service, answer, "", persistent, ips=ips, agent=agent)
        assert response.content == b"notice {acknowledgment received}"

    for _ in range(5):
        resolved()
    assert make.counts(item.pk)["acknowledgments"] == 1
    resolved(ips="150.163.2.176")  # another reader through the same resolver
    assert make.counts(item.pk)["acknowledgments"] == 2
    for n, agent in enumerate(("curl/8.5.0", "", "python-requests/2.32.3",
                               "Mozilla/5.0 (compatible; Googlebot/2.1)")):
        resolved(ips=f"192.0.2.{n + 1}", agent=agent)
    assert make.counts(item.pk)["acknowledgments"] == 2
    assert make.counts(item.pk, unique=True)["acknowledgments"] == 2


def test_keys_we_did_not_issue_count_nothing(client, service, answered):
    item, answer = answered
    seconds, rest = answer["urlkey"].split("-")
    forged = [f"{seconds}-{rest[:-1]}{(int(rest[-1]) + 1) % 10}",  # one digit changed
              f"{int(seconds) + 1}-{rest}",  # another time, same signature
              "1426203276-5985125171467764",  # Example 6.2's key
              f"{seconds}-{int(rest[:-23]) + 1}{rest[-23:]}"]  # another item, same signature

    for key in forged:
        response = acknowledge(client, service, {**answer, "urlkey": key}, "",
                               f"http://urlib.net/{item.ibip}")
        assert response.content == b"notice {acknowledgment received}"

    assert not DailyAccessCount.objects.exists()


def test_expired_keys_count_nothing(client, service, settings):
    settings.IBI_URLKEY_MAX_AGE = 60
    item = make.item(language="en", dc=BANON)
    old = urlkeys.issue_urlkey(item.pk, now=1_700_000_000)
    now = 1_700_000_000 + 61

    assert urlkeys.read_urlkey(old, now=now - 1) == item.pk
    assert urlkeys.read_urlkey(old, now=now) is None
    assert urlkeys.read_urlkey(old, now=1_700_000_000 - 3600) is None  # from the future
    assert not urlkeys.record_acknowledgment(urlkey=old, client_ips=["1.2.3.4"],
                                             relation="", now=now)
    assert not DailyAccessCount.objects.exists()


def test_acknowledgment_of_metadata_without_ibi(client, service):
    item = make.item(language="en", dc=BANON)
    answer = url_request(client, service, item.ibip, verblist="GetMetadata")

    acknowledge(client, service, answer, ".metadata", f"http://urlib.net/{item.ibip}:")

    assert make.counts(item.pk)["acknowledgments"] == 1


def test_example_8_9_acknowledgment_is_read_as_the_standard_writes_it(client, service):
    query = ("servicesubject=acknowledgment&clientinformation.ipaddress=150.163.2.175&"
             "contenttype=Data&"
             "ibi=rep%20sid.inpe.br/mtc-m19/2013/09.04.12.27.57%20ibip%208JMKD3MGP7W/3EPGUE5&"
             "url=http://mtc-m16d.sid.inpe.br/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/"
             "Relat%f3rio%20Final.pdf&state=Original&"
             "url.persistent=http://mtc-m16d.sid.inpe.br:80/8JMKD3MGP7W/3EPGUE5&"
             "urlkey=1424636122-5331490054869684")

    response = client.get(f"/{service.ibi}", QUERY_STRING=query)

    assert response.content == b"notice {acknowledgment received}"
    assert not DailyAccessCount.objects.exists()  # not a key of ours


# -- Bad input ---------------------------------------------------------------------------------

URL_REQUEST = "servicesubject=urlRequest&clientinformation.ipaddress=150.163.2.175"
IBI = "parsedibiurl.ibi=LK47B6W/362SFKH"
CLIENT_PAIR = "clientinformation.ipaddress=150.163.2.175"
ACK = ("servicesubject=acknowledgment&clientinformation.ipaddress=1.2.3.4&contenttype=Data&"
       "state=Original&url=http://h/x&url.persistent=http://urlib.net/LK47B6W/362SFKH&"
       "urlkey=1424636122-5331490054869684")
BAD = {
    "empty subject": "servicesubject=",
    "unknown subject": "servicesubject=inclusionRequest",
    "repeated subject": "servicesubject=urlRequest&servicesubject=urlRequest",
    "missing ibi": URL_REQUEST,
    "missing client": f"servicesubject=urlRequest&{IBI}",
    "repeated ibi": f"{URL_REQUEST}&{IBI}&{IBI}",
    "malformed ibi": f"{URL_REQUEST}&parsedibiurl.ibi=LK47B6W",
    "ibi with modifier": f"{URL_REQUEST}&parsedibiurl.ibi=LK47B6W/362SFKH!",
    "overlong ibi": f"{URL_REQUEST}&parsedibiurl.ibi=a.b/c/2009/{'1' * 300}",
    "overlong query": f"{URL_REQUEST}&{IBI}&x={'a' * 9000}",
    "bad ip": "servicesubject=urlRequest&clientinformation.ipaddress=999.1.1.1&" + IBI,
    "two spaces between ips": ("servicesubject=urlRequest&"
                               "clientinformation.ipaddress=1.2.3.4%20%205.6.7.8&" + IBI),
    "non-ASCII byte": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=/\xe9.pdf",
    "non-ASCII escape": f"{URL_REQUEST}&parsedibiurl.ibi=LK47B6W/362SFK%C3%A9",
    "broken escape": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=/a%zz",
    "short escape": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=/a%4",
    "control character": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=/a%0Ab",
    "equals in a value": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=/a=b",
    "empty field": f"{URL_REQUEST}&&{IBI}",
    "pair without name": f"{URL_REQUEST}&{IBI}&=x",
    "dot dot": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=/../x",
    "encoded dot dot": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=/%2e%2e/x",
    "dot dot inside": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=/a/../../x",
    "backslash": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=/..%5Cx",
    "encoded backslash": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=/a%5Cb",
    "relative path": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=reference.bib",
    "network path": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=//etc/passwd",
    "windows path": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=C:%5Cx",
    "encoded NUL": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=/a%00",
    "encoded Latin-1 control": f"{URL_REQUEST}&{IBI}&parsedibiurl.filepath=/a%85b",
    "unknown verb": f"{URL_REQUEST}&{IBI}&parsedibiurl.verblist=GetEverything",
    "unknown format": f"{URL_REQUEST}&{IBI}&parsedibiurl.verblist=GetMetadata(marc)",
    "bad composition": f"{URL_REQUEST}&{IBI}&parsedibiurl.verblist=GetMetadata%20GetLastEdition",
    "bad language": f"{URL_REQUEST}&{IBI}&parsedibiurl.verblist=GetTranslation(portuguese)",
}
# Algorithm 1, lines 19-20: every acknowledgment is answered "notice {acknowledgment received}",
# whatever it holds; what cannot be counted is not (#25's audit, 13.).
ODD_ACKNOWLEDGMENTS = {
    "without key": ACK.rsplit("&", 1)[0],
    "bad key": ACK.rsplit("=", 1)[0] + "=12345",
    "bad type": ACK.replace("Data", "Image"),
    "bad state": ACK.replace("Original", "Deleted"),
    "bad url": ACK.replace("url=http://h/x", "url=javascript:alert(1)"),
    "unreadable persistent url": ACK.replace("urlib.net/LK47B6W/362SFKH", "urlib.net/x"),
    "persistent url with a query": ACK.replace("LK47B6W/362SFKH", "LK47B6W/362SFKH%3Fa%3D1%26%26"),
    "bad ibi": ACK + "&ibi=rep%20nonsense",
    "repeated pair": ACK + "&contenttype=Data",
    "non-ASCII byte": ACK + "&note=\xe9",
    "no pair but the subject": "servicesubject=acknowledgment",
}


@pytest.mark.parametrize("query", BAD.values(), ids=BAD.keys())
def test_bad_requests_get_400_and_an_error_pair(client, service, query):
    response = client.get(f"/{service.ibi}", QUERY_STRING=query)

    assert response.status_code == 400
    pairs = loads(response.content.decode("ascii"), strict=True)
    assert [name for name, _ in pairs] == ["error"]
    assert not DailyAccessCount.objects.exists()


@pytest.mark.parametrize("query", ODD_ACKNOWLEDGMENTS.values(), ids=ODD_ACKNOWLEDGMENTS.keys())
def test_every_acknowledgment_is_answered_alike_and_counted_only_when_it_can_be(client, service,
                                                                               query):
    response = client.get(f"/{service.ibi}", QUERY_STRING=query)

    assert (response.status_code, response.content) == (200, b"notice {acknowledgment received}")
    assert not DailyAccessCount.objects.exists()


def test_an_acknowledgment_whose_persistent_url_cannot_be_read_still_counts_for_its_item(
        client, service, answered):
    item, answer = answered

    response = acknowledge(client, service, answer, "", "http://urlib.net/not%20an%20IBI%3F")

    assert response.content == b"notice {acknowledgment received}"
    assert make.counts(item.pk)["acknowledgments"] == 1


def test_only_get_is_answered(client, service):
    response = client.post(f"/{service.ibi}?servicesubject=inclusionConfirmationRequest")

    assert response.status_code == 405 and response["Allow"] == "GET"
    assert loads(response.content.decode(), strict=True)[0][0] == "error"


# -- Format: text/plain whatever the Accept; the route ----------------------------------------

@pytest.mark.parametrize("accept", ["application/json", "application/json, text/plain;q=0.5",
                                    "application/json, text/plain, */*", "text/html", ""])
def test_every_answer_is_text_plain_whatever_the_client_prefers(client, service, accept):
    """§6.2: every answer text/plain (#25's audit, 9.: axios asks for JSON first)."""
    item = make.item(language="en", dc=BANON)
    pairs = {"servicesubject": "urlRequest", "clientinformation.ipaddress": "150.163.2.175",
             "parsedibiurl.ibi": item.ibi}

    answer = ask(client, service, pairs, accept=accept)
    error = ask(client, service, {"servicesubject": "x"}, accept=accept)

    assert answer["Content-Type"] == error["Content-Type"] == "text/plain; charset=us-ascii"
    assert "no-store" in answer["Cache-Control"]
    body = to_dict(loads(answer.content.decode("ascii"), strict=True))
    assert body["ibi"] == forms(item) and body["state"] == "Original"
    assert error.status_code == 400 and loads(error.content.decode("ascii"), strict=True)[0][0] == (
        "error")


def test_other_paths_are_not_the_archive_service(client, service):
    item = make.item(language="en", dc=BANON)
    answer = url_request(client, service, item.ibi)
    ack = urlencode({"servicesubject": "acknowledgment", "clientinformation.ipaddress": CLIENT,
                     "contenttype": "Data", "state": "Original", "url": answer["url"],
                     "url.persistent": f"http://urlib.net/{item.ibip}",
                     "urlkey": answer["urlkey"]}, quote_via=quote, safe="/")

    for path, query in ((item.ibi, "servicesubject=inclusionConfirmationRequest"),
                        (item.ibip, f"servicesubject=urlRequest&{IBI}&{CLIENT_PAIR}"),
                        (item.ibi, "servicesubject=urlRequest&parsedibiurl.ibi=%zz"),
                        (item.ibi, ack),
                        (f"{service.ibi}/x", "servicesubject=inclusionConfirmationRequest"),
                        ("not/an/ibi", "servicesubject=inclusionConfirmationRequest")):
        # Not the archive service: the resolver reads these as persistent URLs (an item's own
        # URL with pairs that are not ibiurl.*), never as service requests.
        response = client.get(f"/{path}", QUERY_STRING=query)
        assert response.status_code in (302, 404), (path, query)
        assert not response["Content-Type"].startswith("text/plain"), (path, query)
        assert client.post(f"/{path}?{query}").status_code in (404, 405)
    # The acknowledgment was not ours to count (the resolver counts its own redirects).
    assert not AcknowledgedUrlkey.objects.filter(urlkey=answer["urlkey"]).exists()


def test_the_catch_all_is_the_last_route():
    def flatten(patterns):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from flatten(pattern.url_patterns)
            elif isinstance(pattern, URLPattern):
                yield pattern

    assert list(flatten(get_resolver().url_patterns))[-1].name == "dispatch"


def test_api_archive(client, service):
    response = client.get("/api/archive", secure=True)

    assert response.status_code == 200
    body = response.json()
    assert body["archiveaddress"] == ADDRESS
    assert (body["archiveserviceibi"], body["archiveserviceibip"]) == (service.ibi, service.ibip)
    assert body["platformsoftware"] == {"rep": PLATFORM}
    assert "" in body["relations"] and ".lastedition.metadata(oai_dc)" in body["relations"]


# -- Queries do not grow with what is on file --------------------------------------------------

def bulk_items(count: int) -> None:
    """Rows without files or minting: only their number matters here."""
    names = [f"example.org/bulk/2017/01.01.00.00.{n:06d}" for n in range(count)]
    collection = default_collection()  # bulk_create bypasses Item.save, which names it
    Item.objects.bulk_create([Item(ibi=name, ibip=f"BULK{n}", title="bulk", edition_family=name,
                                   collection=collection) for n, name in enumerate(names)])


def queries(ibi: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        archive_service.url_list(ibi_text=ibi)
    return len(captured)


def test_queries_do_not_grow_with_items_editions_or_translations():
    small = make.item(language="en", dc=BANON)
    make.item(language="pt", translation_of=small, dc=BANON)
    small_next = make.item(previous_edition=small, language="en", dc=BANON)
    big = make.item(language="en", dc=BANON)
    chain = [make.item(previous_edition=big, language="en", dc=BANON)]
    for _ in range(4):
        chain.append(make.item(previous_edition=chain[-1], language="en", dc=BANON))
    for language in ("pt", "fr", "de", "es", "it"):
        make.item(language=language, translation_of=big, dc=BANON)
    make.item(language="pt", translation_of=chain[-1], dc=BANON)

    few = queries(small.ibi)
    bulk_items(30)
    many = queries(big.ibi)

    assert few == many <= 5
    assert queries(small_next.ibi) <= few  # no newer edition: one query less
    assert to_dict(archive_service.url_list(ibi_text=big.ibi))["ibi.lastedition"] == forms(
        chain[-1])


def test_a_plain_url_request_takes_one_query(django_assert_num_queries):
    item = make.item(language="en", dc=BANON)

    with django_assert_num_queries(1):  # the item and the archive service together
        archive_service.url_request(ibi_text=item.ibi)
    assert selectors.item_by_ibi(item.ibip) == item


NAMES = ["servicesubject", "clientinformation.ipaddress", "parsedibiurl.ibi",
         "parsedibiurl.filepath", "parsedibiurl.verblist", "contenttype", "state", "url",
         "url.persistent", "urlkey", "ibi"]
VALUES = st.one_of(
    st.sampled_from(["urlRequest", "acknowledgment", "inclusionConfirmationRequest",
                     "150.163.2.175", "1.2.3.4 ::1", "LK47B6W/362SFKH", "/reference.bib",
                     "/../x", "GetLastEdition GetMetadata(oai_dc)", "GetTranslation(pt)", "Data",
                     "Original", "http://urlib.net/LK47B6W/362SFKH!", "1424636122-5331490054869684",
                     "rep iconet.com.br/banon/2009/09.09.22.01", "%", "%2e%2e", "\\", "é"]),
    st.text(max_size=40))


@hypothesis_settings(max_examples=300, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=5), VALUES, max_size=7),
       st.booleans())
def test_any_query_gets_a_pair_list_or_a_protocol_error(service, fields, raw):
    query = ("&".join(f"{name}={value}" for name, value in fields.items()) if raw
             else urlencode(fields, quote_via=quote))
    try:
        pairs = archive_service.answer(query)
    except service_requests.ProtocolError as exc:
        pairs = service_requests.error_pairs(str(exc))
    text = dumps(pairs)
    assert text.isascii() and loads(text, strict=True) == [(n, v) for n, v in pairs]
    assert not DailyAccessCount.objects.exists()


@pytest.mark.parametrize(("url", "view"), [
    ("/sid.inpe.br/mtc-m19/2013/09.04.12.27.57", "repository-name"),
    ("/sid.inpe.br/mtc-m19/2013/09.04.12.27.57:(oai_dc)/file.pdf", "repository-name"),
    ("/8JMKD3MGP7W/3EPGUE5", "archive:dispatch"),
    ("/.well-known/security.txt", "archive:dispatch"),
    ("/favicon.ico", "archive:favicon"),
    ("/apple-touch-icon.png", "archive:dispatch"),
    ("/items/sid.inpe.br/mtc-m19/2013/09.04.12.27.57", "archive:item"),
    ("/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/a.pdf", "archive:download"),
    ("/api/archive", "api-archive"),
])
def test_repository_names_take_a_shortcut_to_the_same_view(url, view):
    match = resolve(url)
    assert match.view_name == view
    if "dispatch" in view or view == "repository-name":
        assert match.func is dispatch


# -- A Copy and its Original's relations ------------------------------------------------------

OTHER_EDITION = "ibi.test/b/2021/01.01.00.00"
OTHER_PT = "ibi.test/b/2021/02.02.00.00"


def test_a_copy_names_the_relations_it_does_not_hold_and_marks_what_it_holds(client, service):
    item = make.item("first.pdf", language="en", dc=BANON)
    Item.objects.filter(pk=item.pk).update(state=Item.State.COPY, origin_relations={
        ".nextedition": OTHER_EDITION, ".translation(pt-BR)": OTHER_PT})

    translations = url_request(client, service, item.ibi, verblist="GetTranslation")
    last = url_request(client, service, item.ibi, verblist="GetLastEdition")

    # What it holds: marked Copy. What it does not: named, without URL, state or key.
    assert translations["state.translation(en)"] == "Copy"
    assert translations["url.translation(en)"] == file_url(item, "first.pdf")
    assert translations["ibi.translation(pt-BR)"] == translations["ibi.translation(pt)"] \
        == ["rep", OTHER_PT]
    assert not any(name.startswith(("url.translation(pt", "state.translation(pt"))
                   for name in translations)
    # Not its own last edition: the next one is named for resolvers to walk (§10.2).
    assert last["ibi.nextedition"] == ["rep", OTHER_EDITION]
    assert not any(name.endswith(".lastedition") for name in last)
    assert "urlkey" not in last


def test_a_translation_held_here_goes_before_the_one_a_copy_remembers(client, service):
    item = make.item("first.pdf", language="en", dc=BANON)
    pt = make.item("primeira.pdf", language="pt", translation_of=item, dc=BANON)
    Item.objects.filter(pk=item.pk).update(state=Item.State.COPY,
                                           origin_relations={".translation(pt)": OTHER_PT})

    answer = url_request(client, service, item.ibi, verblist="GetTranslation(pt)")

    assert answer["ibi.translation(pt)"] == forms(pt)
    assert answer["url.translation(pt)"] == file_url(pt, "primeira.pdf")


@pytest.mark.parametrize("query", [
    "", "a=1", "servicesubject=urlRequest", "x=1&servicesubject", "servicesubject=",
    "service%73ubject=urlRequest", "servicesubject+=x", "servicesubjec%74=x&y=%20",
    "parsedibiurl.ibi=servicesubject", "xservicesubject=1", "&&servicesubject=1&&",
    "a=%25&b=servicesubject", "servicesubject%3D1=2",
])
def test_the_route_sees_a_service_subject_as_request_get_does(rf, query):
    # dispatch reads the raw query (archive/urls.py); the answer is request.GET's.
    from archive.urls import _names_a_service_subject

    request = rf.get("/x", QUERY_STRING=query)
    assert _names_a_service_subject(request) == ("servicesubject" in request.GET)


def test_a_served_answer_is_its_pairs_written_with_a_fresh_urlkey(service):
    # The view sends answer_text, built once and kept with the answer (answers._Built).
    item = make.item(title="Written once")
    query = urlencode({"servicesubject": "urlRequest", "clientinformation.ipaddress": CLIENT,
                       "parsedibiurl.ibi": item.ibi,
                       "parsedibiurl.verblist": "GetLastEdition GetMetadata(oai_dc)"},
                      quote_via=quote, safe="/()")
    for _ in range(2):  # built, then from the cache
        text = archive_service.answer_text(query, path=service.ibi)
        pairs = archive_service.answer(query, path=service.ibi)
        key = KEY.search(dict(pairs)["urlkey"]).group()
        written = dumps(pairs).replace(key, "KEY")
        assert re.sub(r"urlkey \S+", "urlkey KEY", text) == written
        assert text != archive_service.answer_text(query, path=service.ibi)  # fresh keys


def test_the_strict_reader_checks_every_answer_the_archive_service_sends(client, service,
                                                                          monkeypatch):
    """The suite's own guard (conftest.py `strict_pair_lists`): an answer the Table 6.2
    grammar refuses fails the test that made the archive service send it."""
    from archive.archive_service import answers
    from archive.protocol.pairs import PairListError

    monkeypatch.setattr(answers, "answer_text", lambda *args, **kwargs: "notice {unclosed\n")
    with pytest.raises(PairListError, match="expected a space or '}'"):
        ask(client, service, {"servicesubject": "inclusionConfirmationRequest"})
