"""An item as an RO-Crate 1.1 (https://w3id.org/ro/crate/1.1): the `ro-crate-metadata.json`
that `exportbags` writes at the root of each bag's payload (data/), so that the payload is a
crate: its files under doc/ are the crate's data entities. Pure: a function of a Record.

    >>> from .record import Creator, FileRef, Record
    >>> crate = to_dict(Record(ibi="ibi.test/a/2026/11.23.23.26.19", ibip="32G4GKPW/4GRGR36",
    ...     title="Relatório", persistent_url="http://urlib.net/ibi.test/a/2026/11.23.23.26.19",
    ...     date="2009-02", creators=(Creator("Banon, Gerald"),),
    ...     files=(FileRef("r.pdf", "", 10, "application/pdf", "ab" * 32),)))
    >>> [entity["@id"] for entity in crate["@graph"]]
    ['ro-crate-metadata.json', './', 'doc/r.pdf', '#creator-1', '#ibi', '#ibip']

The root data entity carries what RO-Crate 1.1 asks of it (name, description, datePublished,
license when the item has a licence URL) and the item's identifiers: the persistent URL (also
its `url`), the IBI, the IBIp and its Handles as PropertyValues.
"""
from __future__ import annotations

import re
from datetime import UTC

from .record import Record

CONTEXT = "https://w3id.org/ro/crate/1.1/context"
PROFILE = "https://w3id.org/ro/crate/1.1"
METADATA = "ro-crate-metadata.json"
_ISO = re.compile(r"[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?")


def _date(record: Record) -> str:
    if _ISO.fullmatch(record.date.strip()):
        return record.date.strip()
    when = record.created or record.updated
    return when.astimezone(UTC).date().isoformat() if when else record.year


def _value(key: str, name: str, value: str) -> dict:
    """A PropertyValue entity of the graph (RO-Crate's JSON-LD is flattened: every entity
    has an @id, and is referred to by it)."""
    return {"@id": key, "@type": "PropertyValue", "propertyID": name, "value": value}


def to_dict(record: Record, folder: str = "doc/") -> dict:
    """The crate's JSON-LD (a dict for json.dumps); files at `folder` + name in the crate."""
    people = []
    for n, creator in enumerate(record.creators, start=1):
        person = {"@id": f"https://orcid.org/{creator.orcid}" if creator.orcid
                  else f"#creator-{n}", "@type": "Person", "name": creator.name}
        people.append(person)
    licences = [r for r in record.rights if r.startswith(("http://", "https://"))]
    names = [_value("#ibi", "IBI", record.ibi)]
    if record.ibip:
        names.append(_value("#ibip", "IBIp", record.ibip))
    names += [_value(f"https://hdl.handle.net/{h}", "Handle", h) for h in record.handles]
    root: dict = {
        "@id": "./", "@type": "Dataset", "name": record.title,
        "description": record.descriptions[0] if record.descriptions else record.title,
        "datePublished": _date(record),
        "url": record.persistent_url,
        "identifier": [record.persistent_url, *({"@id": n["@id"]} for n in names)],
        "hasPart": [{"@id": folder + f.name} for f in record.files],
    }
    if licences:  # a contextual entity of its own, as RO-Crate 1.1 recommends
        root["license"] = {"@id": licences[0]}
        names.append({"@id": licences[0], "@type": "CreativeWork", "name": licences[0]})
    elif record.rights:
        root["license"] = record.rights[0]
    if people:
        root["author"] = [{"@id": p["@id"]} for p in people]
    if record.language:
        root["inLanguage"] = record.language
    if record.subjects:
        root["keywords"] = ", ".join(record.subjects)
    if record.publisher:
        root["publisher"] = record.publisher
    files = [{"@id": folder + f.name, "@type": "File", "name": f.name,
              "contentSize": str(f.size), "encodingFormat": f.content_type,
              "sha256": f.sha256} for f in record.files]
    descriptor = {"@id": METADATA, "@type": "CreativeWork", "conformsTo": {"@id": PROFILE},
                  "about": {"@id": "./"}}
    return {"@context": CONTEXT, "@graph": [descriptor, root, *files, *people, *names]}
