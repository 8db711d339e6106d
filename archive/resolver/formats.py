"""What another Archive may be asked: metadata formats beyond RTC-11's oai_dc, and the
Archives that understand them (#25, 6.); only the languages of Table 8.4.

Table 8.4 lets a urlRequest ask for ``GetMetadata`` and ``GetMetadata(oai_dc)`` only. This
Archive serves more formats (archive/metadata/formats.py: BibTeX, RIS, CSL-JSON, schema.org,
DataCite), and its resolver asks for them (content negotiation, ``:(bibtex)``), but only of an
Archive that said it understands them:

* An Archive announces the formats it answers with one pair, ``metadataformats {bibtex csljson
  datacite oai_dc ris schemaorg}``, in its answers to a urlRequest that asks for metadata
  (archive_service/answers.py writes it). A name Table 9.3 does not use: a resolver that does
  not know it passes it by, and every pair of the standard is there as before.
* This resolver remembers what an included Archive announced (`remember`: Django's cache, a
  day, under the Archive's id and address) and asks it for those formats (`asked_of`). Every
  other Archive is asked the standard's ``GetMetadata(oai_dc)`` instead, and its answer stands
  in for the format asked (`stand_in`): its oai_dc pairs are read as that format's, the
  answer is marked (`Answer.stand_in`), and the view renders the format from the oai_dc
  record itself (`record_from`), with the same Record as for the items held here.

Fetching that record is the one request of the resolver to a URL an answer gave: it goes
only to a URL already checked to be on the answering Archive (safety.py), through the guarded
client (protocol/outgoing.py `get_document`: the deny-list, no redirects, a size cap, the
per-Archive timeout).
"""
from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence

from django.core.cache import cache

from ..deposit import links
from ..metadata import oai_dc
from ..metadata.formats import ANNOUNCEMENT, FORMATS
from ..metadata.record import Record
from ..models import RegisteredArchive
from ..protocol import client, outgoing
from ..protocol.pairs import Value
from .reading import Answer, ibi_in

logger = logging.getLogger(__name__)

STANDARD = "oai_dc"  # Table 8.4: formato = "oai_dc"
EXTENSION = frozenset(FORMATS) - {STANDARD}
REMEMBERED = 24 * 3600  # seconds an announcement is trusted without being heard again
_PAIRS_WITH_URL = ("url", "contenttype", "state", "timestamp")
_TABLE_8_4_LANGUAGE = re.compile("[a-z]{2}(-[A-Z]{2})?")  # idioma ["-" país]


def _key(archive: RegisteredArchive) -> str:
    return f"ibi:resolver:formats:{archive.pk}:{archive.address}"


def announced(archive: RegisteredArchive) -> frozenset[str]:
    """The extra formats an included Archive said it answers (none until it said so)."""
    return frozenset(cache.get(_key(archive), ()))


def remember(archive: RegisteredArchive, pairs: Mapping[str, Value]) -> None:
    """Keep what an answer of archive announces (`ANNOUNCEMENT`), if it announces anything."""
    value = pairs.get(ANNOUNCEMENT)
    if value is None:
        return
    words = [value] if isinstance(value, str) else list(value)
    cache.set(_key(archive), sorted(EXTENSION.intersection(words)), REMEMBERED)


def extra_format(verbs: Sequence[str]) -> str | None:
    """The format beyond oai_dc a verb list asks for (``GetMetadata(bibtex)`` → bibtex)."""
    for verb in verbs:
        name, _, argument = verb.partition("(")
        if name == "GetMetadata" and argument.rstrip(")") in EXTENSION:
            return argument.rstrip(")")
    return None


def _standard_language(verb: str) -> str:
    """A GetTranslation verb as Table 8.4 writes it: a language of three letters (which this
    resolver reads, BCP 47's) is no ``idioma`` (2ALFAMI), so the bare verb asks instead for
    every language, among which the resolver looks for it (none of a standard Archive's)."""
    if verb.startswith("GetTranslation(") and not _TABLE_8_4_LANGUAGE.fullmatch(verb[15:-1]):
        return "GetTranslation"
    return verb


def asked_of(archive: RegisteredArchive, pairs: Mapping[str, str]) -> tuple[dict[str, str], str]:
    """(The urlRequest's pairs as this Archive may be sent them, the format its oai_dc answer
    stands in for, or ""): ``GetMetadata(<format>)`` becomes ``GetMetadata(oai_dc)`` for an
    Archive that did not announce that format; a language Table 8.4 does not allow is not
    sent (`_standard_language`)."""
    verbs = pairs.get("parsedibiurl.verblist", "").split()
    standard = [_standard_language(verb) for verb in verbs]
    wanted = extra_format(verbs)
    if wanted is not None and wanted not in announced(archive):
        standard = [f"GetMetadata({STANDARD})" if verb == f"GetMetadata({wanted})" else verb
                    for verb in standard]
    else:
        wanted = None
    if standard == verbs:
        return dict(pairs), wanted or ""
    return {**pairs, "parsedibiurl.verblist": " ".join(standard)}, wanted or ""


def stand_in(pairs: Mapping[str, Value], wanted: str) -> dict[str, Value]:
    """An answer to ``GetMetadata(oai_dc)`` read as one to ``GetMetadata(<wanted>)``: its
    ``url``, ``contenttype``, ``state`` and ``timestamp`` pairs of an oai_dc relation are named
    for the format wanted (``url.lastedition.metadata(oai_dc)`` →
    ``url.lastedition.metadata(bibtex)``). The ``ibi`` pairs keep their names: an IBI of
    oai_dc metadata names no record of the format wanted, so it is no hop (Figure 8.1)."""
    found = {name: value for name, value in pairs.items()
             if f".metadata({wanted})" not in name}
    for name, value in pairs.items():
        if name.split(".", 1)[0] in _PAIRS_WITH_URL and f".metadata({STANDARD})" in name:
            found[name.replace(f".metadata({STANDARD})", f".metadata({wanted})")] = value
    return found


def record_from(answer: Answer, relation: str, url: str, fallback_ibi: str,
                resolver_base: str) -> Record | None:
    """The Record of the oai_dc record at url (the stand-in answer's URL for relation), or None
    when it cannot be fetched or read. Its persistent URL is this resolver's for the item the
    metadata describe."""
    data = relation.split(".metadata")[0]
    forms = answer.forms(data) if data else answer.forms()
    rep = ibi_in(forms) or ibi_in(answer.forms()) or fallback_ibi
    named = dict(zip(forms[0::2], forms[1::2], strict=False)) if len(forms) % 2 == 0 else {}
    try:
        document = outgoing.get_document(url, accept="application/xml, text/xml")
        values = oai_dc.read(document)
    except (client.AddressError, ValueError) as exc:
        logger.info("resolver: the oai_dc record at %s cannot be read: %s", url, exc)
        return None
    return oai_dc.record_from(values, ibi=rep, ibip=named.get("ibip", ""),
                              persistent_url=links.persistent_url(rep, resolver_base),
                              # Another Archive's host:port is no publisher: the
                              # record's own dc:publisher, else none (metadata/selectors.py).
                              publisher="")


__all__ = ["ANNOUNCEMENT", "announced", "asked_of", "extra_format", "record_from", "remember",
           "stand_in"]
