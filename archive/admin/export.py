"""The item list's downloads of the selected items: a CSV sheet (a header row, then one row
an item) and BibTeX (one entry an item, written by metadata/bibtex.py as the item's own
:(bibtex) citation is). Both read the items' Records (metadata.selectors.records_of) a batch
at a time, so that "select all" over a large collection neither holds every item in memory
nor makes a query per item; the response streams as the batches are read."""
from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from django.contrib import admin
from django.http import HttpRequest, StreamingHttpResponse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ..deposit import controlled
from ..metadata import bibtex
from ..metadata.formats import FORMATS
from ..metadata.record import Record
from ..metadata.selectors import dc_values_of, records_of
from ..models import Item
from ..web.addresses import base_url

# Items read a batch at a time: three queries a batch (items, values, files) and a few more.
BATCH = 500


def _records(queryset, base: str) -> Iterator[tuple[Item, Record]]:
    """(item, its Record) of every item of `queryset`, in the order of their ids."""
    ids = list(queryset.order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(ids), BATCH):
        chunk = ids[start:start + BATCH]
        items = list(Item.objects.filter(pk__in=chunk).select_related("collection")
                     .order_by("pk"))
        records = records_of(items, dc_values_of(chunk), base)
        for item in items:
            yield item, records[item.pk]


def _download(lines: Iterator[str], content_type: str, extension: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type=f"{content_type}; charset=utf-8")
    name = f"items-{timezone.localdate().isoformat()}.{extension}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


# A cell a spreadsheet would take for a formula (OWASP's "CSV injection"): a title or a
# creator harvested from elsewhere must not run as one in the librarian's spreadsheet.
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: str) -> str:
    """The text as a spreadsheet shows it: a leading apostrophe before a formula's sign."""
    return f"'{text}" if text.startswith(_FORMULA) else text


def _type_label(value: str) -> str:
    label = controlled.label_of(value)
    return gettext(label) if label else value


@admin.action(description=_("Export selected as CSV"), permissions=["view"])
def export_csv(modeladmin, request: HttpRequest, queryset) -> StreamingHttpResponse:
    base = base_url(request)

    def lines() -> Iterator[str]:
        buffer = io.StringIO()
        sheet = csv.writer(buffer)
        sheet.writerow(["IBI", "IBIp", gettext("title"), gettext("creators"), gettext("date"),
                        gettext("type"), gettext("access level"), gettext("collection"),
                        gettext("persistent URL")])
        for item, record in _records(queryset, base):
            sheet.writerow(map(_cell, [
                record.ibi, record.ibip, record.title,
                "; ".join(creator.name for creator in record.creators), record.date,
                "; ".join(map(_type_label, record.types)), item.get_access_rights_display(),
                item.collection.name if item.collection else "", record.persistent_url]))
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
        yield buffer.getvalue()  # the header alone, when nothing was selected

    return _download(lines(), "text/csv", "csv")


@admin.action(description=_("Export selected as BibTeX"), permissions=["view"])
def export_bibtex(modeladmin, request: HttpRequest, queryset) -> StreamingHttpResponse:
    base = base_url(request)
    bib = FORMATS["bibtex"]

    def entries() -> Iterator[str]:
        # Two items by one author in one year and title word would share a key; a reference
        # manager keeps one of them. The second and later get a letter, as BibTeX styles do.
        seen: dict[str, int] = {}
        for _item, record in _records(queryset, base):
            text, key = bibtex.entry(record), bibtex.key(record)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > 1:
                text = text.replace(f"{{{key},", f"{{{key}{_suffix(seen[key] - 1)},", 1)
            yield text + "\n\n"

    return _download(entries(), bib.media_type, bib.extension)


def _suffix(n: int) -> str:
    """a, b, … z, aa, ab, …: the n-th (from 1) letter suffix of a repeated key."""
    letters = ""
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters
