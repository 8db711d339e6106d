"""A URLib Archive that answers exactly as RTC-11's examples do: Examples 9.2 and 9.3 (the item
8JMKD3MGP8W/35MME4E, in English, with its Portuguese translation) and Examples 10.1 and 10.2
(8JMKD3MGP8W/35MMLL8 and its next edition), on loopback (tests/servers.py
`FakeArchiveService`).

Its answers are the examples' lists, pair for pair, with the Archive's own address where the
examples have ``mtc-m16c.sid.inpe.br``: no bare ``.translation`` pair, ``ibi.translation(en)``
naming the item itself, ``ibi.nextedition`` without any ``.lastedition`` pair for an item that
has a next edition, and no pair beyond Tables 9.x. A verb list is filtered as Example 9.3
filters it (FILTRARLISTADEURL: the pairs whose qualifier is the relation asked for).

    with urlib_archive() as urlib:
        include(urlib)  # at the resolver under test
        urlib.asked     # every query to its archive service, decoded
        urlib.fetched   # every path asked, its oai_dc records' (metadata.cgi) too
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .servers import FakeArchiveService

SERVICE = "sid.inpe.br/mtc-m18@80/2008/03.17.15.17"  # ibi.archiveservice of the examples
PLATFORM = "ibi.platformsoftware {rep dpi.inpe.br/banon/1998/08.02.08.56}"
HOST = "mtc-m16c.sid.inpe.br"

ITEM = "8JMKD3MGP8W/35MME4E"  # Example 9.2: an English report …
ITEM_REP = "sid.inpe.br/mtc-m18@80/2009/07.21.13.23"
PORTUGUESE = "sid.inpe.br/mtc-m18@80/2009/08.25.19.43"  # … and its Portuguese translation
METADATA = "sid.inpe.br/mtc-m18@80/2009/07.21.13.23.47"
FIRST = "8JMKD3MGP8W/35MMLL8"  # Examples 10.1 and 10.2: a first edition …
FIRST_REP = "sid.inpe.br/mtc-m18@80/2009/07.21.14.43"
SECOND = "sid.inpe.br/mtc-m18/2012/07.12.18.08"  # … and its next (and last) edition
SECOND_IBIP = "8JMKD3MGP8W/3C9EP6P"
SECOND_METADATA = "sid.inpe.br/mtc-m18/2012/07.12.18.08.49"

# Example 9.2, MONTARLISTADEURL("8JMKD3MGP8W/35MME4E"), as printed (the "…" of two URLs
# written out).
EXAMPLE_9_2 = f"""archiveaddress {HOST}
contenttype Data
contenttype.lastedition Data
contenttype.lastedition.metadata Metadata
contenttype.lastedition.metadata(oai_dc) Metadata
contenttype.metadata Metadata
contenttype.metadata(oai_dc) Metadata
contenttype.metadata.translation Metadata
contenttype.translation(en) Data
contenttype.translation(pt) Data
ibi {{rep {ITEM_REP} ibip {ITEM}}}
ibi.archiveservice {{rep {SERVICE}}}
ibi.lastedition {{rep {ITEM_REP} ibip {ITEM}}}
ibi.lastedition.metadata {{rep {METADATA}}}
ibi.lastedition.metadata(oai_dc) {{rep {METADATA}}}
ibi.metadata {{rep {METADATA}}}
ibi.metadata(oai_dc) {{rep {METADATA}}}
ibi.metadata.translation {{rep {METADATA}}}
{PLATFORM}
ibi.translation(en) {{rep {ITEM_REP}}}
ibi.translation(pt) {{rep {PORTUGUESE}}}
state Original
state.lastedition Original
state.lastedition.metadata Original
state.lastedition.metadata(oai_dc) Original
state.metadata Original
state.metadata(oai_dc) Original
state.metadata.translation Original
state.translation(en) Original
state.translation(pt) Original
timestamp 2009-07-21T13:23:45Z
timestamp.lastedition 2009-07-21T13:23:45Z
timestamp.lastedition.metadata 2014-04-04T17:39:54Z
timestamp.lastedition.metadata(oai_dc) 2014-04-04T17:39:54Z
timestamp.metadata 2014-04-04T17:39:54Z
timestamp.metadata(oai_dc) 2014-04-04T17:39:54Z
timestamp.metadata.translation 2014-04-04T17:39:54Z
timestamp.translation(en) 2009-07-21T13:23:45Z
timestamp.translation(pt) 2011-09-22T14:45:11Z
url http://{HOST}/col/{ITEM_REP}/doc/CCSDS%20643.0-B-1.pdf
url.lastedition http://{HOST}/col/{ITEM_REP}/doc/CCSDS%20643.0-B-1.pdf
url.lastedition.metadata http://{HOST}/col/{METADATA}/doc/metadata.cgi
url.lastedition.metadata(oai_dc) http://{HOST}/col/{METADATA}/doc/metadata.cgi?choice=oai_dc
url.metadata http://{HOST}/col/{METADATA}/doc/metadata.cgi
url.metadata(oai_dc) http://{HOST}/col/{METADATA}/doc/metadata.cgi?choice=oai_dc
url.metadata.translation http://{HOST}/col/{METADATA}/doc/metadata.cgi
url.translation(en) http://{HOST}/col/{ITEM_REP}/doc/CCSDS%20643.0-B-1.pdf
url.translation(pt) http://{HOST}/col/{PORTUGUESE}/doc/RTC-07.pdf
urlkey 1426387214-9164566186556927
"""

# The Portuguese translation asked about by its own IBI: a plain item of the same Archive.
TRANSLATION = f"""archiveaddress {HOST}
contenttype Data
ibi {{rep {PORTUGUESE}}}
ibi.archiveservice {{rep {SERVICE}}}
{PLATFORM}
state Original
timestamp 2011-09-22T14:45:11Z
url http://{HOST}/col/{PORTUGUESE}/doc/RTC-07.pdf
urlkey 1426387214-9164566186556928
"""

# Example 10.1: the first answer to the urlRequest of 8JMKD3MGP8W/35MMLL8, no verb.
EXAMPLE_10_1 = f"""archiveaddress {HOST}
contenttype Data
ibi {{rep {FIRST_REP} ibip {FIRST}}}
ibi.archiveservice {{rep {SERVICE}}}
{PLATFORM}
state Original
timestamp 2009-07-21T14:43:31Z
url http://{HOST}/col/{FIRST_REP}/doc/CCSDS%20650.0-B-1.pdf
urlkey 1427244889-5349022633744855
"""

# Example 10.2: the same item asked for with GetLastEdition GetMetadata(oai_dc) …
EXAMPLE_10_2_FIRST = f"""archiveaddress {HOST}
ibi {{rep {FIRST_REP} ibip {FIRST}}}
ibi.archiveservice {{rep {SERVICE}}}
ibi.nextedition {{rep {SECOND}}}
{PLATFORM}
"""

# … and its next edition, asked for with the same verbs.
EXAMPLE_10_2_SECOND = f"""archiveaddress {HOST}
contenttype.lastedition.metadata(oai_dc) Metadata
ibi {{rep {SECOND} ibip {SECOND_IBIP}}}
ibi.archiveservice {{rep {SERVICE}}}
ibi.lastedition.metadata(oai_dc) {{rep {SECOND_METADATA}}}
{PLATFORM}
state.lastedition.metadata(oai_dc) Original
timestamp.lastedition.metadata(oai_dc) 2014-04-04T17:36:01Z
url.lastedition.metadata(oai_dc) http://{HOST}/col/{SECOND_METADATA}/doc/metadata.cgi?choice=oai_dc
urlkey 1426286454-36108967764060357
"""

# The next edition asked for its last edition (GetLastEdition alone): itself, as Example 9.2's
# .lastedition pairs are for an item without a next edition.
SECOND_LAST = f"""archiveaddress {HOST}
contenttype.lastedition Data
ibi {{rep {SECOND} ibip {SECOND_IBIP}}}
ibi.archiveservice {{rep {SERVICE}}}
ibi.lastedition {{rep {SECOND} ibip {SECOND_IBIP}}}
{PLATFORM}
state.lastedition Original
timestamp.lastedition 2012-07-12T18:08:00Z
url.lastedition http://{HOST}/col/{SECOND}/doc/CCSDS%20650.0-B-2.pdf
urlkey 1426286454-36108967764060359
"""

# The next edition asked for as itself (no verb), in Example 10.1's shape.
SECOND_ITSELF = f"""archiveaddress {HOST}
contenttype Data
ibi {{rep {SECOND} ibip {SECOND_IBIP}}}
ibi.archiveservice {{rep {SERVICE}}}
{PLATFORM}
state Original
timestamp 2012-07-12T18:08:00Z
url http://{HOST}/col/{SECOND}/doc/CCSDS%20650.0-B-2.pdf
urlkey 1426286454-36108967764060358
"""

# The oai_dc records its metadata.cgi gives (?choice=oai_dc): of the English report, and of
# the last edition of Examples 10.1 and 10.2.
OAI_DC = """<?xml version="1.0" encoding="UTF-8"?>
<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"
           xmlns:dc="http://purl.org/dc/elements/1.1/">
  <dc:title>{title}</dc:title>
  <dc:creator>Consultative Committee for Space Data Systems</dc:creator>
  <dc:creator>Banon, Gerald Jean Francis</dc:creator>
  <dc:subject>archives</dc:subject>
  <dc:publisher>CCSDS</dc:publisher>
  <dc:date>{date}</dc:date>
  <dc:type>Text</dc:type>
  <dc:language>en</dc:language>
  <dc:identifier>{identifier}</dc:identifier>
</oai_dc:dc>
"""
RECORDS = {
    f"/col/{METADATA}/doc/metadata.cgi?choice=oai_dc": OAI_DC.format(
        title="Space Link Identifiers", date="2009-07-21", identifier="CCSDS 643.0-B-1"),
    f"/col/{SECOND_METADATA}/doc/metadata.cgi?choice=oai_dc": OAI_DC.format(
        title="Reference Model for an Open Archival Information System (OAIS)",
        date="2012-06", identifier="CCSDS 650.0-M-2"),
}

_QUALIFIERS = {"GetLastEdition": ".lastedition", "GetTranslation": ".translation",
               "GetMetadata": ".metadata"}
_ALWAYS = ("archiveaddress", "ibi", "ibi.archiveservice", "ibi.platformsoftware", "urlkey")


def _relation(verbs: list[str]) -> str:
    relation = ""
    for verb in verbs:
        name, paren, argument = verb.partition("(")
        if name in _QUALIFIERS:
            relation += _QUALIFIERS[name] + paren + argument
    return relation


def filtered(answer: str, verbs: list[str]) -> str:
    """FILTRARLISTADEURL (Example 9.3): the pairs every answer has, and those whose qualifier is
    the relation the verbs ask for (a bare GetTranslation keeps every language)."""
    relation = _relation(verbs)
    kept = []
    for line in answer.splitlines():
        name = line.split(" ", 1)[0]
        qualifier = name[name.index("."):] if "." in name else ""
        bare = qualifier.split("(")[0] if qualifier.count("(") == 1 and relation.endswith(
            ".translation") else qualifier
        if name in _ALWAYS or (relation and relation in (qualifier, bare)):
            kept.append(line)
    return "\n".join(kept) + "\n"


def answer(pairs: dict[str, str], address: str) -> str:
    """The examples' answer to one urlRequest, with `address` for the examples' host."""
    ibi = pairs.get("parsedibiurl.ibi", "").lower()
    verbs = pairs.get("parsedibiurl.verblist", "").split()
    if ibi in (ITEM.lower(), ITEM_REP.lower()):
        text = filtered(EXAMPLE_9_2, verbs) if verbs else EXAMPLE_9_2
    elif ibi == PORTUGUESE.lower():
        text = TRANSLATION
    elif ibi in (FIRST.lower(), FIRST_REP.lower()):
        text = EXAMPLE_10_2_FIRST if "GetLastEdition" in verbs else EXAMPLE_10_1
    elif ibi in (SECOND.lower(), SECOND_IBIP.lower()):
        text = (SECOND_LAST if verbs == ["GetLastEdition"] else
                EXAMPLE_10_2_SECOND if verbs else SECOND_ITSELF)
    else:
        return ""
    return text.replace(HOST, address)


@contextmanager
def urlib_archive() -> Iterator[FakeArchiveService]:
    """The examples' Archive on loopback; `.asked` holds every query it got, decoded."""
    with FakeArchiveService(SERVICE) as archive:
        archive.respond = lambda pairs: (200, answer(pairs, archive.address))
        archive.documents.update({path: ("text/xml; charset=utf-8", text.encode("utf-8"))
                                  for path, text in RECORDS.items()})
        yield archive
