"""Not one leak (issue 26): an anonymous reader walks every URL pattern Django knows, every
OAI-PMH verb and format, every persistent-URL modifier, every negotiated type, the archive
service and the API, for an embargoed, a restricted and a metadata-only item, and an open item
with a restricted file, each closed file holding a unique marker. No answer (status line,
headers or body, redirects followed here) may hold a marker's bytes, a closed file's checksum,
the URL that would serve it, or, for the metadata-only item, its name.

The walk cannot fall behind: `test_every_url_pattern_is_classified` fails on any route of
`get_resolver()` that `ROUTES` does not name, so a new channel must say how it is walked (and
then is) before the suite passes. An open item's file is the control: the walk must find its
bytes and its URL, or it proves nothing.
"""
from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from archive.deposit import services
from archive.harvest.oai import FORMATS as oai_formats
from archive.metadata.formats import FORMATS
from archive.models import Item, ItemFile
from tests import factories as make
from tests.conftest import BROWSER

pytestmark = pytest.mark.django_db

RUN = uuid.uuid4().hex[:12]


def marker(kind: str) -> bytes:
    return f"%PDF-1.4 LEAK-MARKER-{kind}-{RUN}\n".encode()


# Every file's text (issue 37) holds a word they all share and a marker of its own, one word
# each: a search for the shared word (or for the marker) finds the open file's page, with its
# snippet, and must never match, show or count a closed file's.
SHARED_WORD = f"sharedword{RUN}"


def text_marker(name: str) -> str:
    return "textmarker" + re.sub(r"[^a-z0-9]", "", name.lower())


class Closed:
    """The items of the walk: what each holds and what must never show."""

    def __init__(self) -> None:
        later = timezone.localdate() + timedelta(days=30)
        self.embargoed = make.item((f"thesis-{RUN}.pdf", marker("embargoed")), title="Tese",
                                   language="pt-BR", dc={"creator": ["Silva, Ana"]},
                                   access=services.Access("embargoed", later, "patent"))
        self.restricted = make.item((f"report-{RUN}.pdf", marker("restricted")),
                                    title="Internal report",
                                    access=services.Access("restricted"))
        self.hidden_name = f"hidden-name-{RUN}.pdf"
        self.metadata_only = make.item((self.hidden_name, marker("metadata-only")),
                                       title="Metadata only",
                                       access=services.Access("metadata-only"))
        self.open = make.item((f"article-{RUN}.pdf", marker("open-control")),
                              (f"dataset-{RUN}.csv", marker("restricted-file")),
                              title="Open article", restricted_files=[f"dataset-{RUN}.csv"])
        # Editions and translations, so that "!" and "+" lead to closed items too.
        self.edition = make.item((f"thesis2-{RUN}.pdf", marker("embargoed-edition")),
                                 title="Tese, 2a ed.", previous_edition=self.embargoed,
                                 access=services.Access("embargoed", later))
        self.translation = make.translation(
            self.embargoed, "en", (f"thesis-en-{RUN}.pdf", marker("embargoed-translation")),
            access=services.Access("restricted"))
        self.items = [self.embargoed, self.restricted, self.metadata_only, self.open,
                      self.edition, self.translation]
        self.service = services.ensure_archive_service()
        give_thumbnails()
        for row in ItemFile.objects.filter(item__in=self.items):
            make.file_pages(row, ["A first page.", f"On page two, {SHARED_WORD} and "
                                                   f"{text_marker(row.name)} meet."])
        self.secrets = self._secrets()
        # Each item as if it came from DSpace (#28): its old links are walked too.
        for n, item in enumerate(self.items, start=1):
            files = list(item.files.order_by("name").values_list("name", flat=True))
            make.from_dspace(item, handle=f"123456789/{n}", uuid=legacy_uuid(n, 0),
                             bitstreams={legacy_uuid(n, k): f for k, f in enumerate(files, 1)},
                             sequences={str(k): f for k, f in enumerate(files, 1)})

    def _secrets(self) -> list[tuple[str, bytes]]:
        """(what, text) that must never show: each closed file's bytes, checksum and URL,
        and the metadata-only item's file name."""
        found = []
        self.closed_text: list[str] = []  # the closed files' text markers
        for row in ItemFile.objects.select_related("item").order_by("pk"):
            item = row.item
            if item.access_rights == "open" and not row.restricted:
                continue
            data = marker_of(row)
            found += [(f"thumbnail of {row.name}", thumbnail_marker(row.name)),
                      (f"thumbnail URL of {row.name}", f"thumbnails/{quote(row.name)}".encode()),
                      (f"thumbnail URL of {row.name}", f"thumbnails/{row.name}".encode())]
            self.closed_text.append(text_marker(row.name))
            found += [(f"bytes of {row.name}", data.strip()),
                      (f"text of {row.name}", text_marker(row.name).encode()),
                      (f"sha256 of {row.name}", hashlib.sha256(data).hexdigest().encode()),
                      (f"URL of {row.name}", f"col/{item.ibi}/doc/{quote(row.name)}".encode()),
                      (f"URL of {row.name}", f"col/{item.ibi}/doc/{row.name}".encode())]
            if item.access_rights == "metadata-only":
                found += [(f"name {row.name}", row.name.encode()),
                          (f"name {row.name}", quote(row.name).encode())]
        return found

    def leaks(self, url: str, response) -> list[str]:
        """What shows of the secrets in a response, but a name or URL the request itself
        carried (the reader's own words written back: `Walk.get` checks that such an answer
        is the same for a name held and one not)."""
        asked = url.encode()
        headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items()).encode()
        body = content(response)
        return [what for what, text in self.secrets
                if (text in headers or text in body)
                and (what.startswith(("bytes", "sha256")) or text not in asked)]


def alike(body: bytes) -> bytes:
    """A body without what changes on every answer (an archive service's fresh urlkey, a
    form's CSRF token)."""
    body = re.sub(rb'name="csrfmiddlewaretoken" value="[^"]*"', b"csrf", body)
    return re.sub(rb"urlkey [^\r\n]*", b"urlkey", body)


def content(response) -> bytes:
    """A response's body, read once (a streaming one is kept for the next look)."""
    if not hasattr(response, "read_body"):
        response.read_body = (b"".join(response.streaming_content) if response.streaming
                              else response.content)
    return response.read_body


def thumbnail_marker(name: str) -> bytes:
    return f"THUMBNAIL-MARKER-{name}-{RUN}".encode()


def give_thumbnails() -> None:
    """Every file of the walk with a thumbnail (issue 37) holding a marker of its own, as
    archive/fulltext/services.py records one: a closed file's must never show."""
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from archive.fulltext.services import thumbnail_key
    from archive.models import FileExtraction

    for row in ItemFile.objects.select_related("item"):
        key = default_storage.save(thumbnail_key(row), ContentFile(thumbnail_marker(row.name)))
        FileExtraction.objects.update_or_create(file=row, defaults={"thumbnail": key,
                                                                    "state": "done"})


def marker_of(row: ItemFile) -> bytes:
    from archive.deposit import storage

    with storage.open_file(row.item.ibi, row.name) as stored:
        return stored.read()


@pytest.fixture
def closed(settings) -> Closed:
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.IBI_OAI_PAGE_SIZE = 2  # lists of several pages: every resumption token followed
    return Closed()


# -- The routes, and how each is walked --------------------------------------------------------

Urls = Callable[[Closed], Iterator[str]]


def each_item(template: str) -> Urls:
    def urls(c: Closed) -> Iterator[str]:
        for item in c.items:
            for form in (item.ibi, item.ibip):
                yield template.format(ibi=form)
    return urls


def thumbnails(c: Closed) -> Iterator[str]:
    """Every file's thumbnail (issue 37), by each form of its item's IBI, with a token that
    opens nothing, and a name the item does not hold."""
    for row in ItemFile.objects.select_related("item"):
        for form in (row.item.ibi, row.item.ibip):
            yield f"/items/{form}/thumbnails/{quote(row.name)}"
        yield f"/items/{row.item.ibi}/thumbnails/{quote(row.name)}?token=guess"
    yield f"/items/{c.metadata_only.ibi}/thumbnails/not-{RUN}.pdf"


def fixed(*paths: str) -> Urls:
    return lambda c: iter(paths)


def downloads(c: Closed) -> Iterator[str]:
    for row in ItemFile.objects.select_related("item"):
        yield f"/col/{row.item.ibi}/doc/{quote(row.name)}"
        yield f"/col/{row.item.ibi}/doc/{quote(row.name)}?token=guess"
    yield f"/col/{c.metadata_only.ibi}/doc/not-{RUN}.pdf"


MODIFIERS = ("", "!", "+", "+(pt-BR)", "+(en)", ":", *(f":({name})" for name in FORMATS))
QUERIES = ("", "?ibiurl.verblist=GetFileList", "?ibiurl.verblist=GetMetadata",
           "?ibiurl.verblist=GetLastEdition", "?ibiurl.verblist=GetTranslation",
           "?ibiurl.requireditemstatus=Original", "?page=2")


def persistent_urls(c: Closed, prefix: str = "/", form: str = "ibi") -> Iterator[str]:
    """Every modifier, every verb of the query, the item's own pairs, file paths held and not,
    of each item (its IBI in `form`; the IBIp, with every modifier)."""
    for item in c.items:
        for modifier in MODIFIERS:
            yield f"{prefix}{getattr(item, form)}{modifier}"
        if form == "ibip":
            continue
        for query in QUERIES:
            yield f"{prefix}{item.ibi}{query}"
        for name in [f.name for f in item.files.all()] + ["absent.pdf"]:
            yield f"{prefix}{item.ibi}/{quote(name)}"
            yield f"{prefix}{item.ibi}!/{quote(name)}"


def inspections(c: Closed) -> Iterator[str]:
    """The same resolutions, shown: as a page, and every other one as JSON."""
    for n, url in enumerate([*persistent_urls(c, "/inspect/"),
                             *persistent_urls(c, "/inspect/", "ibip")]):
        yield url + ("&" if "?" in url else "?") + "format=json" if n % 2 else url


def service_requests(c: Closed, form: str = "ibi") -> Iterator[str]:
    """urlRequests of the archive service (sent to its IBI in `form`) with every verb, and
    file paths held and not."""
    verbs = ("", "GetFileList", "GetMetadata", "GetLastEdition", "GetTranslation",
             "GetTranslation(en)", "GetMetadata(datacite)")
    for item in c.items:
        for verb in verbs:
            for path in ["", *(f"/{f.name}" for f in item.files.all()), "/absent.pdf"]:
                pairs = {"servicesubject": "urlRequest", "parsedibiurl.ibi": item.ibi,
                         "clientinformation.ipaddress": "192.0.2.1"}
                if verb:
                    pairs["parsedibiurl.verblist"] = verb
                if path:
                    pairs["parsedibiurl.filepath"] = path
                yield f"/{getattr(c.service, form)}?{urlencode(pairs)}"


OAI_PREFIXES = tuple(oai_formats)  # every format OAI-PMH offers, the next one too


def oai(c: Closed) -> Iterator[str]:
    yield "/oai?verb=Identify"
    yield "/oai?verb=ListSets"
    yield "/oai?verb=ListMetadataFormats"
    for prefix in OAI_PREFIXES:
        for verb in ("ListRecords", "ListIdentifiers"):
            yield f"/oai?verb={verb}&metadataPrefix={prefix}"
            yield f"/oai?verb={verb}&metadataPrefix={prefix}&set=openaire"
            yield f"/oai?verb={verb}&metadataPrefix={prefix}&set=col_general"
        for item in c.items:
            identifier = f"oai:testserver:{item.ibi}"
            yield f"/oai?verb=GetRecord&metadataPrefix={prefix}&identifier={identifier}"
            yield f"/oai?verb=ListMetadataFormats&identifier={identifier}"


def api(c: Closed) -> Iterator[str]:
    yield "/api/items/"
    yield "/api/items/?page_size=200"
    for where in ("all", "fulltext"):
        yield f"/api/items/?search={SHARED_WORD}&in={where}"
        for row in ItemFile.objects.filter(item__in=c.items):
            yield f"/api/items/?search={text_marker(row.name)}&in={where}"
    for item in c.items:
        for suffix in ("", "/files", "/statistics", "/links", "/links/1"):
            yield f"/api/items/{item.ibi}{suffix}"


def admin(c: Closed) -> Iterator[str]:
    """Every route of the admin site, its parameters filled with the closed items' and
    files' ids: an anonymous reader is sent to the login page."""
    values = {"object_id": [str(c.metadata_only.pk),
                            str(c.metadata_only.files.get().pk)],
              "content_type_id": [str(ContentType.objects.get_for_model(Item).pk)],
              "app_label": ["archive"], "url": ["archive/nothing/"], "id": ["1"]}
    for route in sorted(r for r in routes() if r.startswith("admin/")):
        yield from fill("/" + route, values)


def fill(route: str, values: dict[str, list[str]]) -> Iterator[str]:
    """The URLs of a route with each parameter given each of its values."""
    route = re.sub(r"\^|\$", "", route)
    found = re.search(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>[^)]*\)", route)
    if found is None:
        yield route
        return
    name = found.group(1) or found.group(2)
    for value in values[name]:  # a parameter the walk cannot fill is a KeyError: it fails
        yield from fill(route[:found.start()] + value + route[found.end():], values)


def nothing(c: Closed) -> Iterator[str]:
    return iter(())


def legacy_uuid(n: int, k: int) -> str:
    return f"00000000-0000-4000-8000-{n:06d}{k:06d}"


def old_links(c: Closed) -> Iterator[str]:
    """DSpace's links to the walk's items (site/legacy.py), every form, files by name and by
    sequence, the UUIDs of items and bitstreams, and ones that name nothing."""
    for n, item in enumerate(c.items, start=1):
        for k, name in enumerate(item.files.order_by("name").values_list("name", flat=True), 1):
            for prefix in ("", "/xmlui", "/jspui"):
                yield f"{prefix}/bitstream/handle/123456789/{n}/{quote(name)}?sequence={k}"
                yield f"{prefix}/bitstream/123456789/{n}/{k}/{quote(name)}"
            yield f"/bitstream/handle/123456789/{n}/renamed.pdf?sequence={k}"
            yield f"/bitstreams/{legacy_uuid(n, k)}"
            yield f"/bitstreams/{legacy_uuid(n, k)}/download"
        for prefix in ("", "/xmlui", "/jspui"):
            yield f"{prefix}/handle/123456789/{n}"
        yield f"/items/{legacy_uuid(n, 0)}"
        yield f"/items/{legacy_uuid(n, 0)}/full"
        yield f"/entities/publication/{legacy_uuid(n, 0)}"
    yield "/handle/123456789/999"
    yield f"/bitstreams/{legacy_uuid(999, 1)}/download"


ROUTES: dict[str, Urls] = {
    # The catch-alls: persistent URLs (every modifier, file paths, the item's own pairs) and
    # the archive service (urlRequest with every verb, file paths held and not).
    r"^(?P<path>[^./][^/]*\.[^/]*/.+)$": lambda c: (*persistent_urls(c),
                                                    *service_requests(c)),
    r"^(?P<path>.+)$": lambda c: (*persistent_urls(c, form="ibip"),
                                  *service_requests(c, "ibip")),
    "i18n/setlang/": fixed("/i18n/setlang/"),
    "api/archive": fixed("/api/archive"),
    "api/items/": api,
    "api/items/<item_ibi:ibi>/files": nothing,  # walked by api()
    "api/items/<item_ibi:ibi>/statistics": nothing,
    "api/items/<item_ibi:ibi>/handover": nothing,  # POST only, librarians: api_writes()
    "api/items/<item_ibi:ibi>/copies": nothing,  # POST only, the copying peer: below
    # Preservation events (issue 38) name closed files: librarians only, anonymous a 401
    # (tests/test_premis_api.py: a reader's 403, a librarian's list).
    "api/items/<item_ibi:ibi>/events": each_item("/api/items/{ibi}/events"),
    "api/items/<item_ibi:ibi>/links": nothing,
    "api/items/<item_ibi:ibi>/links/<int:pk>": nothing,
    "api/items/<item_ibi:ibi>": nothing,
    # Resumable uploads are their owner's bytes, never an item's: anonymous, 401 or 405.
    # The tree (issue 34): its records name no file; the closed items are in "general".
    "api/communities/": fixed("/api/communities/", "/api/communities/repository"),
    "api/communities/<str:slug>": nothing,  # walked by the rule above
    "api/collections/": fixed("/api/collections/", "/api/collections/general",
                              "/api/items/?collection=general"),
    "api/collections/<str:slug>": nothing,
    # A profile names fields, never an item: public.
    "api/collections/<str:slug>/profile": fixed("/api/collections/general/profile"),
    "api/uploads/": fixed("/api/uploads/"),
    "api/uploads/<str:id>": fixed("/api/uploads/00000000-0000-4000-8000-000000000000"),
    # Review (issue 35): a submission is no item and names no closed file; every route wants
    # an account (anonymous: 401), its owner's or a reviewer's (tests/test_review_api.py).
    "api/submissions/": fixed("/api/submissions/"),
    "api/submissions/<any_id:pk>": fixed("/api/submissions/1"),
    "api/submissions/<any_id:pk>/submit": fixed("/api/submissions/1/submit"),
    "api/submissions/<any_id:pk>/withdraw": nothing,
    "api/tasks/": fixed("/api/tasks/"),
    "api/tasks/<any_id:pk>/claim": fixed("/api/tasks/1/claim"),
    **{f"api/tasks/<any_id:pk>/{action}": nothing
       for action in ("unclaim", "approve", "return", "release", "reassign")},
    # The submitter's pages (issue 35): an account's own submissions, never an item's file;
    # anonymous, a redirect to log in.
    "submit/": fixed("/submit/"),
    "submit/<int:pk>/": fixed("/submit/1/"),
    # The reviewer's queue and a task's page want an account (anonymous: to the login page);
    # a submission is no item (tests/test_review_queue.py).
    "review/": fixed("/review/"),
    "review/<int:pk>/": fixed("/review/1/"),
    "api/schema/": fixed("/api/schema/"),
    "api/docs/": fixed("/api/docs/"),
    "": fixed("/"),
    # (A query naming the file would be written back on the page: the reader's own words.)
    # The files' text (issue 37): the shared word and each file's marker, in every place a
    # search looks; a closed file's marker asked for is written back, and must match nothing.
    "search": lambda c: (*(f"/search?{urlencode({'q': q})}" for q in (
        "", RUN, "thesis", "LEAK-MARKER", "Tese", "Metadata only", "pdf")),
        *(f"/search?{urlencode({'q': q, **where})}" for q in (
            SHARED_WORD, *(text_marker(row.name)
                           for row in ItemFile.objects.filter(item__in=c.items)))
          for where in ({}, {"in": "fulltext"}))),
    "oai": oai,
    # A collection's page and feeds list the closed items (their metadata), never a file.
    "communities/<slug:slug>": fixed("/communities/repository"),
    "collections/<slug:slug>": fixed("/collections/general", "/collections/general?page=2",
                                     "/search?collection=general"),
    "collections/<slug:slug>/atom.xml": fixed("/collections/general/atom.xml"),
    "collections/<slug:slug>/rss.xml": fixed("/collections/general/rss.xml"),
    # LOCKSS manifests (issue 38): the open item's landing page and open file, never a
    # closed one's; the walk's items are in "general", deposited this year.
    "lockss/": fixed("/lockss/"),
    "lockss/<slug:slug>/<int:year>/": lambda c: (
        f"/lockss/general/{year}/" for year in (timezone.now().year, timezone.now().year - 1)),
    "robots.txt": fixed("/robots.txt"),
    "favicon.ico": fixed("/favicon.ico"),
    "sitemap.xml": fixed("/sitemap.xml"),
    "sitemaps/pages.xml": fixed("/sitemaps/pages.xml"),
    "sitemaps/items-<int:page>.xml": fixed("/sitemaps/items-0.xml"),
    "items/<path:ibi>/files": each_item("/items/{ibi}/files"),
    "items/<path:ibi>/metadata": each_item("/items/{ibi}/metadata"),
    "items/<path:ibi>/metadata/<str:name>": lambda c: (
        url for name in FORMATS for url in each_item(f"/items/{{ibi}}/metadata/{name}")(c)),
    "items/<path:ibi>/oai_dc.xml": each_item("/items/{ibi}/oai_dc.xml"),
    "items/<path:ibi>/linkset": each_item("/items/{ibi}/linkset"),
    "items/<path:ibi>/linkset.json": each_item("/items/{ibi}/linkset.json"),
    "items/<path:ibi>/request": each_item("/items/{ibi}/request"),
    # A file's thumbnail shows what the file holds: as closed as the file (issue 37).
    "items/<path:ibi>/thumbnails/<str:name>": thumbnails,
    "items/<path:ibi>": lambda c: (*each_item("/items/{ibi}")(c),
                                   *each_item("/items/{ibi}?token=guess")(c),
                                   *each_item("/items/{ibi}?style=ieee")(c)),
    "col/<path:rest>": downloads,
    "timemap/link/<path:ibi>": each_item("/timemap/link/{ibi}"),
    "timegate/<path:uri>": lambda c: (*each_item("/timegate/{ibi}")(c),
                                      *each_item("/timegate/http://testserver/{ibi}!")(c)),
    "inspect/<path:path>": inspections,
    # DSpace's old links (#28): old_links walks every form; one rule, the others named.
    r"^(?:(?:xmlui|jspui)/)?handle/(?P<rest>.+)$": old_links,
    r"^(?:(?:xmlui|jspui)/)?bitstream/handle/(?P<prefix>[^/]+)/(?P<suffix>[^/]+)/(?P<name>.+)$":
        nothing,
    r"^(?:(?:xmlui|jspui)/)?bitstream/(?P<prefix>[^/]+)/(?P<suffix>[^/]+)/(?P<sequence>[0-9]+)"
    r"/(?P<name>.+)$": nothing,
    # DSpace's OAI-PMH base URLs (#42, 16): a redirect to ours, the query kept.
    r"^(?:server/)?oai/request$": lambda c: (
        f"/{prefix}oai/request?verb={verb}&metadataPrefix=oai_dc"
        for prefix in ("", "server/") for verb in ("ListRecords", "ListIdentifiers")),
    # Accounts (issue 35, 1): a person's own pages, naming no item; walked anonymous (the
    # forms, the account page's redirect to sign in, a forged link, a reset link of nobody).
    "accounts/": fixed("/accounts/"),
    "accounts/signup/": fixed("/accounts/signup/"),
    # A person's ways in, their data (LGPD) and its erasure (issue 36, 4): their own, behind
    # sign-in (anonymous: to the login page; removing a way in is POST only: 405).
    "accounts/ways-in/<int:identity_id>/remove/": fixed("/accounts/ways-in/1/remove/"),
    "accounts/data/": fixed("/accounts/data/"),
    "accounts/erasure/": fixed("/accounts/erasure/"),
    "accounts/verify/": fixed("/accounts/verify/"),
    "accounts/verify/<str:token>/": fixed("/accounts/verify/forged:token/"),
    "accounts/login/": fixed("/accounts/login/", "/accounts/login/?next=/submit/"),
    "accounts/logout/": fixed("/accounts/logout/"),  # POST only: 405
    # ORCID sign-in (issue 36, 2): not set up in tests, 404; tests/test_orcid.py sets it up.
    "accounts/orcid/login/": fixed("/accounts/orcid/login/"),
    "accounts/orcid/callback/": fixed("/accounts/orcid/callback/?code=x&state=y"),
    "accounts/orcid/connect/<str:token>/": fixed("/accounts/orcid/connect/forged:token/"),
    "accounts/password/reset/": fixed("/accounts/password/reset/"),
    "accounts/password/reset/sent/": fixed("/accounts/password/reset/sent/"),
    "accounts/password/reset/<uidb64>/<token>/": fixed("/accounts/password/reset/MQ/x-y/"),
    "accounts/password/reset/done/": fixed("/accounts/password/reset/done/"),
    # Institutional login (issue 36): pages about the federation, never about an item.
    # The COUNTER API (issue 39): counts of the items, no file; reports need a key (a walker
    # has none: 401), the status is public.
    "usage/": fixed("/usage/"),
    "r51/status": fixed("/r51/status"),
    "r51/members": fixed("/r51/members"),
    "r51/reports": fixed("/r51/reports"),
    "r51/reports/<str:report_id>": fixed(
        "/r51/reports/ir?customer_id=0000000000000000&begin_date=2025-01&end_date=2025-12",
        "/r51/reports/pr?customer_id=0000000000000000&begin_date=2025-01&end_date=2025-12",
        "/r51/reports/nope"),
    "saml/": fixed("/saml/", "/saml/?q=a"),
    "saml/metadata/": fixed("/saml/metadata/"),
    "saml/login/": fixed("/saml/login/?idp=https://idp.example.org/idp"),
    "saml/acs/": fixed("/saml/acs/"),  # POST only: 405
    "saml/logout/": fixed("/saml/logout/"),  # POST only: 405
    "saml/sls/": fixed("/saml/sls/"),
    "accounts/password/change/": fixed("/accounts/password/change/"),
    "items/<uuid:uuid>": nothing,
    "items/<uuid:uuid>/full": nothing,
    "entities/<str:entity_type>/<uuid:uuid>": nothing,
    "bitstreams/<uuid:uuid>": nothing,
    "bitstreams/<uuid:uuid>/download": nothing,
}


# The routes whose HEAD is asked too (the rest answer HEAD as GET, without the body).
HEAD_TOO = {"col/<path:rest>", "items/<path:ibi>", "items/<path:ibi>/files"}


def routes() -> list[str]:
    """Every URL pattern Django knows, as its full route."""
    def walk(resolver: URLResolver, prefix: str) -> Iterator[str]:
        for pattern in resolver.url_patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern, prefix + str(pattern.pattern))
            else:
                assert isinstance(pattern, URLPattern)
                yield prefix + str(pattern.pattern)
    return list(walk(get_resolver(), ""))


def test_every_url_pattern_is_classified():
    """A route no rule walks is a channel nobody checked: say how to walk it in ROUTES."""
    unclassified = [route for route in routes()
                    if route not in ROUTES and not route.startswith("admin/")]
    assert unclassified == []
    assert sorted(set(ROUTES) - set(routes())) == []  # and no rule outlives its route


# Headers a content negotiation or a Memento client sends with a persistent URL.
NEGOTIATION = [{"HTTP_ACCEPT": f.media_type} for f in FORMATS.values()] + [
    {"HTTP_ACCEPT": "text/x-bibliography; style=apa; locale=en-US"},
    {"HTTP_ACCEPT": "text/html"}, {"HTTP_ACCEPT": "*/*"}, {"HTTP_ACCEPT": "application/pdf"},
    {"HTTP_ACCEPT_DATETIME": "Sat, 01 Nov 2025 00:00:00 GMT"},
    {"HTTP_ACCEPT_DATETIME": "Sat, 01 Nov 2099 00:00:00 GMT"},
    {"HTTP_ACCEPT_LANGUAGE": "en"}, {"HTTP_ACCEPT_LANGUAGE": "pt-BR"},
]


RESUMPTION = re.compile(rb"<resumptionToken[^>]*>([^<]+)</resumptionToken>")


class Walk:
    def __init__(self, closed: Closed) -> None:
        self.closed, self.client = closed, Client(headers={"User-Agent": BROWSER})
        self.leaks: list[str] = []
        self.seen = 0
        self.pages = 0  # OAI-PMH pages reached by a resumption token
        self.found_open = set()
        # What the control looks for: the open item's article, its bytes and its URL.
        article = closed.open.files.get(name__startswith="article-")
        self.open_bytes = marker("open-control").strip()
        self.open_url = f"col/{closed.open.ibi}/doc/{article.name}".encode()
        self.open_thumbnail = thumbnail_marker(article.name)
        self.open_thumbnail_url = f"/items/{closed.open.ibi}/thumbnails/{article.name}".encode()
        self.open_text = text_marker(article.name).encode()

    def get(self, url: str, method: str = "get", hops: int = 3, **headers) -> None:
        response = getattr(self.client, method)(url, **headers)
        self.seen += 1
        found = self.closed.leaks(url, response)
        if found:
            self.leaks.append(f"{method.upper()} {url} {headers or ''} → "
                              f"{response.status_code}: {sorted(set(found))}")
        self._control(response)
        hidden = self.closed.hidden_name
        if hidden in url and method != "post":
            # A name the metadata-only item holds, and one of the same length it does not,
            # are answered alike: nothing tells which names it holds.
            fake = "x" * len(hidden)
            other = getattr(self.client, method)(url.replace(hidden, fake), **headers)
            if (other.status_code, alike(content(other).replace(fake.encode(),
                                                               hidden.encode()))) \
                    != (response.status_code, alike(content(response))):
                self.leaks.append(f"{method.upper()} {url}: answered otherwise than for a "
                                  "name the item does not hold")
        for asked in (text for text in self.closed.closed_text if text in url):
            # A closed file's text asked for is answered as a word no file holds is: the
            # words written back, nothing matched, counted nor shown.
            fake = "z" * len(asked)
            other = getattr(self.client, method)(url.replace(asked, fake), **headers)
            if (other.status_code, alike(content(other).replace(fake.encode(),
                                                               asked.encode()))) \
                    != (response.status_code, alike(content(response))):
                self.leaks.append(f"{method.upper()} {url}: matched a closed file's text")
        token = RESUMPTION.search(content(response)) if url.startswith("/oai?") else None
        if token:  # the next page of an OAI-PMH list
            self.pages += 1
            verb = parse_qs(urlsplit(url).query)["verb"][0]
            self.get(f"/oai?{urlencode({'verb': verb, 'resumptionToken': token[1].decode()})}",
                     method, hops, **headers)
        location = response.headers.get("Location", "")
        parts = urlsplit(location)
        if hops and location and parts.netloc in ("", "testserver"):
            self.get(parts.path + (f"?{parts.query}" if parts.query else ""), method,
                     hops - 1, **headers)

    def _control(self, response) -> None:
        body = content(response)
        if self.open_bytes in body:
            self.found_open.add("bytes")
        if self.open_url in body:
            self.found_open.add("url")
        if self.open_thumbnail in body:
            self.found_open.add("thumbnail")
        if self.open_thumbnail_url in body:
            self.found_open.add("thumbnail url")
        if self.open_text in body:
            self.found_open.add("text")


def test_nothing_closed_leaks_to_an_anonymous_reader(closed):
    walk = Walk(closed)
    for route, urls in ROUTES.items():
        for url in urls(closed):
            walk.get(url)
            if route in HEAD_TOO:
                walk.get(url, "head")
    for url in admin(closed):
        walk.get(url)
    for item in closed.items:
        for modifier in ("", "!", "+"):
            for headers in NEGOTIATION:
                walk.get(f"/{item.ibi}{modifier}", **headers)
    for item in closed.items:  # the API's writes, anonymous: refused before anything
        walk.get(f"/api/items/{item.ibi}/links", "post", data={"expires": "2999-01-01"},
                 secure=True)
        walk.get(f"/api/items/{item.ibi}/handover", "post", data={"target": "http://x"},
                 secure=True)
        walk.get(f"/api/items/{item.ibi}/copies", "post", data={"archive": item.ibi},
                 secure=True)
        walk.get(f"/api/items/{item.ibi}/links/1", "delete", secure=True)
    assert "\n".join(walk.leaks) == ""
    # The control: the walk reached what is open, or it would prove nothing.
    assert walk.found_open == {"bytes", "url", "thumbnail", "thumbnail url", "text"}
    assert walk.seen > 1500 and walk.pages > len(OAI_PREFIXES) * 4
