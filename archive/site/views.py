"""Public HTML pages: home, search and browse, an item's landing, file list and metadata pages.

Thin: reads go through selectors, citations and oai_dc records through pure modules.
Deleted items answer with a tombstone (HTTP 410); other spellings of an IBI (the IBIp, upper
case, the legacy @port) redirect to the canonical /items/<repository name>.
"""
from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from urllib.parse import urlencode

from django import forms
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers, patch_cache_control
from django.utils.dateparse import parse_date
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from ..access import policy
from ..accounts import selectors as accounts
from ..communities import selectors as tree
from ..db import changes
from ..deposit import links, selectors
from ..fulltext import selectors as extracted
from ..metadata import cite, citing, highwire, oai_dc, schemaorg, signposting
from ..metadata import selectors as metadata
from ..metadata.selectors import record_of
from ..metadata.vocabularies import label_of, licence_of
from ..models import DC_ELEMENTS, AlternateIdentifier, DcElement, Item, validate_language
from ..resolver import memento
from ..search import fulltext
from ..search import selectors as searching
from ..usage import counter as access_counter
from ..web import readers
from ..web.addresses import base_url
from ..web.throttling import client_ip
from . import thumbnails
from .access import closed

PAGE_SIZE = 20


def home(request: HttpRequest) -> HttpResponse:
    newest = searching.search_items()
    browse = searching.Results(newest)
    return render(request, "archive/site/home.html", {
        "recent": newest.prefetch_related("dc_values")[:10],
        "tree": tree.top_communities(),
        "figures": searching.collection_figures(),
        "facets": _facet_links(request, browse.facets(), {}),
        "sampled": browse.sampled, "sample": _figure(searching.FACET_SAMPLE),
    })


# -- Search and browse -------------------------------------------------------------------------

class SearchForm(forms.Form):
    q = forms.CharField(label=_("Search"), max_length=200, required=False)
    creator = forms.CharField(label=_("Creator"), max_length=1000, required=False)
    subject = forms.CharField(label=_("Subject"), max_length=1000, required=False)
    year = forms.RegexField(label=_("Year"), regex=r"^[0-9]{4}\Z", required=False,
                            error_messages={"invalid": _("Give the year as four digits.")})
    language = forms.CharField(label=_("Language"), max_length=35, required=False,
                               validators=[validate_language])
    type = forms.CharField(label=_("Type"), max_length=1000, required=False)
    collection = forms.SlugField(label=_("Collection"), max_length=100, required=False)
    # A thesis's facets (search/selectors.py THESIS_FACETS): one value, exactly as deposited.
    programme = forms.CharField(label=_("Graduate programme"), max_length=1000, required=False)
    advisor = forms.CharField(label=_("Advisor"), max_length=1000, required=False)
    cnpq = forms.CharField(label=_("CNPq knowledge area"), max_length=1000, required=False)
    degree = forms.CharField(label=_("Degree level"), max_length=200, required=False)
    sort = forms.ChoiceField(label=_("Order"), required=False,
                             choices=[("", _("Best match first")), ("newest", _("Newest first")),
                                      ("title", _("Title, A to Z"))])

    FILTERS = ("creator", "subject", "year", "language", "type", "collection",
               *searching.THESIS_FACETS)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # ?in=: where the words are looked for ("in" is a keyword: no attribute can say it).
        self.fields["in"] = forms.ChoiceField(
            label=_("Look in"), required=False,
            choices=[(fulltext.ALL, _("The record and the full text")),
                     (fulltext.FULLTEXT, _("The full text only")),
                     (fulltext.RECORD, _("The record only"))])


def search(request: HttpRequest) -> HttpResponse:
    form = SearchForm(request.GET)
    if not form.is_valid():
        return render(request, "archive/site/search.html", {"form": form}, status=400)
    criteria = {k: v.strip() for k, v in form.cleaned_data.items() if v and v.strip()}
    where = criteria.get("in", fulltext.ALL)
    results = searching.find(**{k: v for k, v in criteria.items() if k != "in"}, where=where)
    page = Paginator(results, PAGE_SIZE).get_page(request.GET.get("page"))
    if (criteria.get("q") or any(k in criteria for k in SearchForm.FILTERS)) \
            and page.number == 1:  # a further page of results is the same search
        access_counter.count_search(request.META.get("HTTP_USER_AGENT", ""), timezone.now())
    details = selectors.summaries(Item.objects.filter(pk__in=list(page.object_list)))
    by_pk = {item.pk: item for item in details}
    page.object_list = thumbnails.for_lists(
        [by_pk[pk] for pk in page.object_list if pk in by_pk])
    if criteria.get("q") and where != fulltext.RECORD:
        # The pages shown only: their matching pages, and snippets of the first.
        found = fulltext.matches(criteria["q"], [item.pk for item in page.object_list])
        for item in page.object_list:
            item.text_matches = found.get(item.pk)
    active = {k: criteria[k] for k in SearchForm.FILTERS if k in criteria}
    return render(request, "archive/site/search.html", {
        "form": form, "page": page, "criteria": criteria,
        "total": results.count(), "more": results.more,
        # "more than" the cap, or than the results a sparse search ranked (ranked_ids)
        "cap": _figure(results.count()),
        "sampled": results.sampled, "sample": _figure(searching.FACET_SAMPLE),
        "ranked": bool(criteria.get("q")) and fulltext.full_text(),
        "active": [(k, form.fields[k].label, _facet_label(k, v), _query(criteria, **{k: None}))
                   for k, v in active.items()],
        "facets": _facet_links(request, results.facets(), criteria),
        "page_base": f"{_query(criteria) or '?'}{'&' if criteria else ''}page=",
    })


def _figure(number: int) -> str:
    """10 000: thousands apart by a space, as the SI writes them in every language."""
    return f"{number:,}".replace(",", "\u202f")


def _query(criteria: dict[str, str], **changes: str | None) -> str:
    """?q=…&creator=… of criteria with changes applied (None removes a criterion)."""
    query = urlencode({k: v for k, v in {**criteria, **changes}.items() if v})
    return f"?{query}" if query else ""


def _facet_links(request, facets, criteria):
    """name → [(value as shown, count, the search narrowed by it)] of each facet."""
    return {name: [(_facet_label(name, value), count,
                    reverse("archive:search") + _query(criteria, **{name: value}))
                   for value, count in values]
            for name, values in facets.items()}


def _facet_label(name: str, value: str) -> str:
    """A facet's value for people: a degree level named, a CNPq area's path; else as is."""
    if name == "degree":
        return degree_label(value)
    return citing.area_label(value) if name == "cnpq" else value


# -- An item's pages ---------------------------------------------------------------------------

def _item(request: HttpRequest, ibi: str, view: str) -> Item | HttpResponse:
    """The item named by ibi, or a permanent redirect to its canonical URL; 404 if none."""
    item = selectors.item_by_ibi(ibi, selectors.with_details())
    if item is None:
        raise Http404(_("No item has this IBI."))
    if ibi != item.ibi:
        return redirect(reverse(view, args=[item.ibi]), permanent=True)
    return item


# The downloads beside the citation: /items/<rep>/metadata/<name>?download (metadata_formats.py).
CITATION_DOWNLOADS = (("BibTeX", "bibtex"), ("RIS", "ris"), ("CSL-JSON", "csljson"))


def _citation(request: HttpRequest, item: Item, today: datetime.date) -> dict:
    """The citation block (metadata/cite.py): ``?style=`` or the reader's language's default."""
    downloads = [(label, reverse("archive:item_metadata_format", args=[item.ibi, name])
                  + "?download") for label, name in CITATION_DOWNLOADS]
    return cite.block(cite.with_creators(record_of(item, base_url(request)), item),
                      request.GET.get("style"),
                      get_language() or "en", today=today, downloads=downloads)


# The Details' values that link to a search for them (search/selectors.py `filtered`: one
# exact value each).
LINKED_ELEMENTS = ("creator", "subject")


def _readable(element: str, values: list[str]) -> list:
    """Dublin Core values for a page: a dc:date that is a whole day becomes a date, which the
    template writes as the reader writes dates ("2013", "2013-09" or EDTF stay as written); a
    type or licence chosen from the admin's vocabularies (stored as its URI) is named."""
    if element in ("type", "rights"):
        return [gettext(label) if (label := label_of(v)) is not None else v for v in values]
    if element != "date":
        return values
    return [_day(v) or v for v in values]


def _day(value: str) -> datetime.date | None:
    try:
        return parse_date(value) if len(value) == 10 else None
    except ValueError:  # well formed, no such day: shown as written
        return None


def _files(request: HttpRequest, item: Item, reading: readers.Reading) -> list[dict]:
    """The files the page lists for this reader (archive/access/policy.py): none of a
    metadata-only item but to librarians; a file the reader may not read without its URL
    and checksum (`url` None), a closed one the reader may read (a librarian, a secret link)
    with its link, the token passed on."""
    reader, level = reading.reader, item.access_rights
    if not policy.shows_files(reader, level):
        return []
    token = {"token": request.GET["token"]} if reading.link is not None else None
    thumbnailed = extracted.thumbnailed_names(reader, item)
    found = []
    for f in item.files.all():
        readable = policy.may_read(reader, item.pk, level, f.restricted)
        url = links.file_url(item.ibi, f.name, base_url(request)) if readable else None
        thumbnail = thumbnails.url(item, f.name) if f.name in thumbnailed else ""
        if url and token:
            url = f"{url}?{urlencode(token)}"
            thumbnail = thumbnail and f"{thumbnail}?{urlencode(token)}"
        found.append({"file": f, "url": url, "is_target": f.name == item.target_file,
                      "closed": not policy.is_open(level, f.restricted),
                      "thumbnail": thumbnail})
    return found


def _handles(item: Item) -> list[str]:
    """The Handles the item had before it came here (prefetched with its details)."""
    return [row.value for row in item.alternate_ids.all()
            if row.scheme == AlternateIdentifier.Scheme.HANDLE]


# What a search engine's snippet and a shared link's card show of an item: its description,
# cut at a word before this many characters.
SUMMARY_LENGTH = 200


def _summary(item: Item) -> str:
    """The item's first description, on one line and trimmed; "" for a tombstone, whose
    description is not given out."""
    descriptions = [] if item.is_deleted else item.dc("description")
    text = " ".join(descriptions[0].split()) if descriptions else ""
    if len(text) <= SUMMARY_LENGTH:
        return text
    return text[:SUMMARY_LENGTH - 1].rsplit(" ", 1)[0].rstrip(",;:.") + "…"


# What the landing page previews in the browser's own viewer: a PDF (an <object>), or an image
# an <img> shows (never SVG, which downloads.py sends as an attachment).
PREVIEWS = {"application/pdf": "pdf", "image/png": "image", "image/jpeg": "image",
            "image/gif": "image", "image/webp": "image"}


# A thesis's fields (MTD-BR) the landing page shows under their registry's labels, in this
# order, each with the search filter its values link to ("" for none).
THESIS_FIELDS = (("dc.contributor.advisor", "advisor"), ("dc.contributor.advisor-co", ""),
                 ("dc.contributor.referee", ""), ("local.degree.level", "degree"),
                 ("local.degree.name", ""), ("dc.publisher.program", "programme"),
                 ("dc.publisher.department", ""), ("dc.subject.cnpq", "cnpq"))
DEGREE_LEVELS = {"doctoral": _("Doctorate"), "masters": _("Master's degree"),
                 "bachelor": _("Bachelor's degree")}


def degree_label(level: str) -> str:
    """A local.degree.level value named in the reader's language (as written if unknown)."""
    found = DEGREE_LEVELS.get(citing.level_of(level))
    return str(found) if found is not None else level


def _shown(field: str, value: str) -> str:
    if field == "local.degree.level":
        return degree_label(value)
    return citing.area_label(value) if field == "dc.subject.cnpq" else value


def _thesis(item: Item) -> list[dict]:
    """The thesis's rows of the landing page: each field's label (the registry's, in the
    reader's language) and values, a person with the ORCID iD or Lattes CV its authority is,
    a value with the search that finds its like."""
    if item.is_deleted:
        return []
    rows = []
    authenticated = accounts.authenticated_orcids(v.orcid for v in item.dc_values.all())
    for name, facet in THESIS_FIELDS:
        values = [v for v in item.values_of(name) if v.value.strip()]
        if not values:
            continue
        rows.append({"label": values[0].field.label, "values": [{
            "text": _shown(name, v.value), "orcid": v.orcid,
            "authenticated": v.orcid in authenticated,
            "lattes": citing.person(v.value, v.authority).lattes,
            "url": reverse("archive:search") + _query({}, **{facet: v.value}) if facet else "",
        } for v in values]})
    return rows


def _landing(item: Item, files: list[dict]) -> dict:
    """What the landing page leads with: the authors (ORCID iDs), the type and licence named
    and linked, the main file to download and preview (when the reader may have it: a row
    with its `url`), every edition of the chain and the newest, if newer than this one."""
    main = next((row for row in files if row["is_target"] and row.get("url")), None)
    if main is not None:
        name, content_type = main["file"].name, main["file"].content_type.split(";")[0]
        extension = name.rsplit(".", 1)[1].upper() if "." in name.strip(".") else ""
        main = {**main, "format": extension or content_type,
                "preview": PREVIEWS.get(content_type.strip().lower(), "")}
    chain = selectors.edition_chain(item) if item.edition_family else [item]
    newest = next((e for e in reversed(chain) if not e.is_deleted), item)
    creators = [v for v in item.dc_values.all() if v.element == "creator"]
    authenticated = accounts.authenticated_orcids(v.orcid for v in creators)
    return {
        "authors": [(v.value, v.orcid, citing.person(v.value, v.authority).lattes,
                     v.orcid in authenticated) for v in creators],
        "thesis": _thesis(item),
        "types": [(_readable("type", [v])[0], v) for v in item.dc("type")],
        "licences": [(_readable("rights", [v])[0], licence.uri if (
            licence := licence_of(v)) else v if v.startswith(("http://", "https://")) else "")
            for v in item.dc("rights")],
        "descriptions": item.dc("description"),
        "dc_date": _readable("date", item.dc("date"))[:1],
        "main_file": main,
        "chain": chain if len(chain) > 1 else [],
        "newest": newest if newest.edition_number > item.edition_number else None,
    }


def _access(request: HttpRequest, item: Item, reading: readers.Reading,
            files: list[dict]) -> dict:
    """What the page says of the item's access: its level, and where to ask for a copy when
    there is something closed to ask for and the reader cannot read it already."""
    closed = [row for row in files if row["closed"]]
    asks = (reading.reader.public and not item.is_deleted
            and policy.opens_by_link(item.access_rights, [row["closed"] for row in files]))
    return {"level": item.access_rights, "label": item.get_access_rights_display(),
            "embargo_until": item.embargo_until, "reason": item.access_reason,
            "closed": len(closed), "privileged": reading.reader.privileged,
            "link": reading.link,
            "request_url": reverse("archive:item_request", args=[item.ibi]) if asks else ""}


def _context(request: HttpRequest, item: Item, today: datetime.date,
             reading: readers.Reading) -> dict:
    files = _files(request, item, reading)
    return {
        "item": item,
        "handles": _handles(item),
        "summary": _summary(item),
        **_landing(item, files),
        "item_url": reverse("archive:item", args=[item.ibi]),
        "persistent_url": links.persistent_url(item.ibi, base_url(request)),
        "citation": _citation(request, item, today),
        # (label, values, the search filter a value links to: a subject finds its items)
        "dc": [(DcElement(name).label, _readable(name, item.dc(name)),
                name if name in LINKED_ELEMENTS else "")
               for name in DC_ELEMENTS if item.dc(name)],
        "files": files,
        "access": _access(request, item, reading, files),
        "shows_files": policy.shows_files(reading.reader, item.access_rights),
        "editions": selectors.editions(item),
        "translations": list(item.translations.all()),
        "links": {"files": links.file_list_url(item.ibi, base_url(request)),
                  "metadata": links.metadata_url(item.ibi, base_url(request)),
                  "oai_dc": links.metadata_url(item.ibi, base_url(request), "oai_dc")},
    }


def _machine_readable(request: HttpRequest, item: Item, context: dict) -> str:
    """What machines read in an item's page, into the context: FAIR Signposting's <link>s
    (metadata/signposting.py), the citation_* meta tags (metadata/highwire.py) and schema.org
    JSON-LD (metadata/schemaorg.py). Returns the Signposting Link header (its files and ORCID
    authors within the header's limit)."""
    signposts = metadata.signposts_of(item, base_url(request))
    context["signposting"] = signposting.to_html(signposts.landing())
    context["highwire"] = highwire.tags(signposts.record, item.target_file)
    context["json_ld"] = _script_json(schemaorg.to_dict(signposts.record))
    return ", ".join(filter(None, [signposting.to_header(signposts.landing(header=True)),
                                   *_memento(request, item)]))


def _memento(request: HttpRequest, item: Item) -> list[str]:
    """Where a Memento client finds the editions of the item (RFC 7089, resolver/memento.py):
    the chain's original, TimeGate and TimeMap, when this resolver answers its persistent URLs
    and the item has editions held here whole."""
    base = base_url(request)
    if item.is_deleted or links.resolver_url(base) != base:
        return []
    if selectors.memento_chain(item) is None:
        return []
    return memento.chain_links(*links.memento_uris(item.edition_family, base))


# Inside <script> nothing may close the element or open a comment: as json_script does.
_SCRIPT_SAFE = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def _script_json(document: dict) -> str:
    """The JSON-LD document as the body of a <script type="application/ld+json">."""
    return mark_safe(json.dumps(document, ensure_ascii=False).translate(_SCRIPT_SAFE))


# Item pages kept in each process (`_page`): about 25 kB each, the least recently read going
# first; not the pages of an item with more files than PAGE_FILES_KEPT (each adds 1.3 kB).
PAGES_KEPT = 1000
PAGE_FILES_KEPT = 10
_pages = changes.Store(PAGES_KEPT)


def _page(request: HttpRequest, ibi: str, view: str) -> tuple[Item, dict, str] | HttpResponse:
    """What an item's page shows, built once per process and kept under the collection's
    change token (archive/db/changes.py, as the resolver keeps its answers) for the public
    (for a librarian or a secret link's holder built for them each time, never kept; a
    secret link that opens nothing, expired, revoked or unknown, is answered 403 saying
    which, site/access.py): the item with its details, the page's context and the
    Signposting Link header (the landing page's and a tombstone's; "" for the other pages).
    Kept per view, IBI as written, language, citation style, address the reader used and day
    (the citation says the day it is read); the access statistics
    (templatetags/ibi_statistics.py), the CSRF token and the page's own path are not kept:
    the template writes them for each request. A redirect to the canonical URL or a 404 is
    not kept, nor a page with a style that does not exist."""
    today = timezone.localdate()
    if readers.has_token(request) or readers.privileged_user(request) is not None:
        return _personal_page(request, ibi, view, today)
    asked = request.GET.get("style")
    try:
        style = cite.chosen_style(asked, get_language() or "en").key
        current = changes.token()
    except cite.UnknownStyle:
        style, current = asked, None
    key = ("item-page", view, ibi, get_language(), style, base_url(request), today)
    kept = _pages.get(key, current)
    if kept is not None:
        return kept
    item = _item(request, ibi, view)
    if isinstance(item, HttpResponse):
        return item
    context, link = _built(request, item, today, landing=view == "archive:item")
    if len(context["files"]) <= PAGE_FILES_KEPT:
        _pages.put(key, current, (item, context, link))
    return item, context, link


def _personal_page(request: HttpRequest, ibi: str, view: str, today: datetime.date
                   ) -> tuple[Item, dict, str] | HttpResponse:
    """An item's page for a librarian or a secret link's holder: never kept."""
    item = _item(request, ibi, view)
    if isinstance(item, HttpResponse):
        return item
    reading = readers.reading(request, item)
    if reading.refused is not None and not item.is_deleted:
        return closed(request, item, reading)
    return (item, *_built(request, item, today, landing=view == "archive:item",
                          reading=reading))


def _built(request: HttpRequest, item: Item, today: datetime.date, *, landing: bool,
           reading: readers.Reading | None = None) -> tuple[dict, str]:
    """An item page's context and Link header (a landing page's or a tombstone's, else "")."""
    context = _context(request, item, today, reading or readers.Reading())
    link = _machine_readable(request, item, context) if landing or item.is_deleted else ""
    if item.is_deleted:
        newer = selectors.newer_edition(item)
        context.update(newer=newer,
                       newer_url=reverse("archive:item", args=[newer.ibi]) if newer else "")
    return context, link


def _tombstone(request: HttpRequest, context: dict, link: str) -> HttpResponse:
    """The one tombstone policy (the API's TombstoneSerializer and OAI-PMH's deleted headers
    follow it): identifiers, state, title, citation, date and reason of deletion, the newer
    edition; never the description, the files or the rest of the metadata."""
    response = render(request, "archive/site/tombstone.html", context,
                      status=400 if context["citation"]["error"] else 410)
    response["Link"] = link
    return response


def _personal(response: HttpResponse, context: dict) -> HttpResponse:
    """A page built for its reader (a secret link's, a librarian's) is kept by no cache, and
    its address, token included, is sent to no other site."""
    if context["access"]["link"] is not None or context["access"]["privileged"]:
        add_never_cache_headers(response)
        patch_cache_control(response, private=True)
        response["Referrer-Policy"] = "same-origin"
    return response


def item_page(request: HttpRequest, ibi: str) -> HttpResponse:
    page = _page(request, ibi, "archive:item")
    if isinstance(page, HttpResponse):
        return page
    item, context, link = page
    if item.is_deleted:
        return _tombstone(request, context, link)
    # An unknown ?style= is the reader's mistake: the page, saying so, with the default style.
    response = render(request, "archive/site/item.html", context,
                      status=400 if context["citation"]["error"] else 200)
    response["Link"] = link
    if response.status_code == 200:  # a citation asked (?style=) is an export: one more
        count_investigation(request, item, "citation" if "style" in request.GET else "landing")
    return _personal(response, context)


def count_investigation(request: HttpRequest, item: Item, relation: str) -> None:
    """COUNTER: the page or export of an item served is one of its investigations."""
    if request.method == "GET":
        access_counter.count_investigation(item.pk, item.access_rights, client_ip(request),
                                           request.META.get("HTTP_USER_AGENT", ""), relation)


def _item_subpage(request: HttpRequest, ibi: str, view: str, template: str,
                  shown: Callable[[dict], dict] | None = None) -> HttpResponse:
    """An item sub-page: canonical IBI in the URL, 404 for none, the tombstone for a deleted one;
    `shown` makes the page's own context of the one kept (a copy: the kept one stays)."""
    found = _page(request, ibi, view)
    if isinstance(found, HttpResponse):
        return found
    item, context, link = found
    if item.is_deleted:
        return _tombstone(request, context, link)
    if shown is not None:
        context = shown(context)
    if view == "archive:item_metadata":
        count_investigation(request, item, "metadata")
    return _personal(render(request, template, context), context)


def _readable_files(context: dict) -> dict:
    readable = [f for f in context["files"] if f["url"]]
    return {**context, "files": readable, "closed_files": len(context["files"]) - len(readable)}


def item_files(request: HttpRequest, ibi: str) -> HttpResponse:
    """The list of the files this reader may read: what ``GetFileList`` leads to (the archive
    service's answer), so a closed file is not on it, only how many there are (#26). The
    landing page lists them all, the closed ones without their links."""
    return _item_subpage(request, ibi, "archive:item_files", "archive/site/files.html",
                         _readable_files)


def item_metadata(request: HttpRequest, ibi: str) -> HttpResponse:
    return _item_subpage(request, ibi, "archive:item_metadata", "archive/site/metadata.html")


def item_oai_dc(request: HttpRequest, ibi: str) -> HttpResponse:
    item = _item(request, ibi, "archive:item_oai_dc")
    if isinstance(item, HttpResponse):
        return item
    if item.is_deleted:
        return _tombstone(request, *_built(request, item, timezone.localdate(),
                                           landing=False))
    values = oai_dc.item_values(item, identifiers=[
        links.persistent_url(item.ibi, base_url(request)),
        *map(oai_dc.handle_url, _handles(item))])
    count_investigation(request, item, "oai_dc")
    return HttpResponse(oai_dc.to_bytes(oai_dc.dc_element(values)),
                        content_type="application/xml; charset=utf-8")
