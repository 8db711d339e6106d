"""schema.org JSON-LD of a Record: a ScholarlyArticle, Report, Dataset, Thesis … chosen from
dc:type (kinds.py). Pure.

The context is inline, ``{"@vocab": "https://schema.org/"}``: a JSON-LD processor needs no
network to read it (schema.org's remote context is a fetch per document, and is refused where
the network is), and every term still expands to its schema.org IRI::

    >>> from .record import Creator, Record, doi
    >>> doc = to_dict(Record(ibi="iconet.com.br/banon/2009/09.09.22.01", ibip="J8LNKB5R7W/3UNAFP8",
    ...       title="Ensuring persistence", persistent_url="http://urlib.net/J8LNKB5R7W/3UNAFP8",
    ...       creators=(Creator("Banon, Gerald"),), types=("Dataset",)))
    >>> doc["@type"], doc["@id"], doc["creator"][0]["familyName"]
    ('Dataset', 'http://urlib.net/J8LNKB5R7W/3UNAFP8', 'Banon')

A thesis is a `Thesis` whose `sourceOrganization` is its programme (in its department, in its
institution), its advisors and committee its `contributor`s, the degree it earned
`inSupportOf`, its CNPq knowledge areas what it is `about`.
"""
from __future__ import annotations

from .citing import AREA_SCHEME
from .csl import genre
from .kinds import kind_of
from .record import Creator, Record, doi

CONTEXT = {"@vocab": "https://schema.org/"}
ORCID = "https://orcid.org/"
LATTES = "http://lattes.cnpq.br/"
DOI_RESOLVER = "https://doi.org/"


def _person(creator: Creator) -> dict:
    person: dict = {"@type": "Person", "name": creator.name}
    if creator.given:
        person.update(familyName=creator.family, givenName=creator.given)
    if creator.orcid:
        person["@id"] = ORCID + creator.orcid
    if creator.lattes:
        person["sameAs"] = LATTES + creator.lattes
    return person


def source_organization(record: Record) -> dict | None:
    """Where a thesis was defended, as schema.org's `sourceOrganization`: its programme, in
    its department, in the institution (the publisher, with its acronym), the nearest first;
    None when the record names none of them."""
    found: dict | None = None
    if record.publisher and (record.programme or record.department or record.degree):
        found = {"@type": "CollegeOrUniversity", "name": record.publisher}
        if record.institution_acronym:
            found["alternateName"] = record.institution_acronym
    for name in (record.department, record.programme):
        if name:
            found = {"@type": "Organization", "name": name,
                     **({"parentOrganization": found} if found else {})}
    return found


def _identifier(name: str, value: str) -> dict:
    return {"@type": "PropertyValue", "propertyID": name, "value": value}


def to_dict(record: Record) -> dict:
    """The JSON-LD document (a dict ready for json.dumps); the persistent URL is its @id."""
    doc: dict = {"@context": CONTEXT, "@type": kind_of(record.types).schemaorg,
                 "@id": record.persistent_url, "url": record.persistent_url,
                 "name": record.title,
                 "identifier": [_identifier("IBI", record.ibi),
                                *([_identifier("IBIp", record.ibip)] if record.ibip else []),
                                *(_identifier("Handle", h) for h in record.handles),
                                *(_identifier("DOI", doi(v)) if doi(v) else v
                                  for v in record.identifiers)]}
    if record.doi:
        doc["sameAs"] = DOI_RESOLVER + record.doi
    if record.container_title:
        # Where an article appeared: schema.org's own chain, Periodical (or the book) with
        # the volume and issue it names (PublicationVolume, PublicationIssue).
        container: dict = {"@type": "Periodical" if doc["@type"] == "ScholarlyArticle"
                           and kind_of(record.types).bibtex == "article" else "CreativeWork",
                           "name": record.container_title}
        if record.volume:
            container = {"@type": "PublicationVolume", "volumeNumber": record.volume,
                         "isPartOf": container}
        if record.issue:
            container = {"@type": "PublicationIssue", "issueNumber": record.issue,
                         "isPartOf": container}
        doc["isPartOf"] = container
    if record.pages:
        doc["pagination"] = record.pages
    if record.creators:
        doc["creator"] = [_person(c) for c in record.creators]
    # A thesis's advisors first (with their ORCID iD or Lattes CV), its committee, then the
    # other contributors: schema.org's `contributor` says no role.
    people = [*(_person(c) for c in (*record.advisors, *record.co_advisors, *record.referees)),
              *({"@type": "Person", "name": name} for name in record.other_contributors)]
    if people:
        doc["contributor"] = people
    if (organization := source_organization(record)) is not None:
        doc["sourceOrganization"] = organization
    if doc["@type"] == "Thesis" and (degree := record.degree_name or genre(record)):
        doc["inSupportOf"] = degree
    if record.knowledge_areas:
        doc["about"] = [{"@type": "DefinedTerm", "name": area,
                         "inDefinedTermSet": AREA_SCHEME}
                        for area in record.knowledge_areas]
    optional = {
        "datePublished": record.date, "inLanguage": record.language,
        "description": "\n\n".join(record.descriptions), "keywords": list(record.subjects),
        "license": list(record.rights), "mainEntityOfPage": record.landing_url,
        "dateModified": record.updated.isoformat() if record.updated else "",
    }
    doc.update({name: value for name, value in optional.items() if value})
    if record.publisher:
        doc["publisher"] = {"@type": "Organization", "name": record.publisher}
    if record.edition_number > 1:
        doc["version"] = record.edition_number
    if record.files:
        doc["encoding" if doc["@type"] != "Dataset" else "distribution"] = [
            {"@type": "MediaObject" if doc["@type"] != "Dataset" else "DataDownload",
             "name": f.name, "contentUrl": f.url, "encodingFormat": f.content_type,
             "contentSize": str(f.size), **({"sha256": f.sha256} if f.sha256 else {})}
            for f in record.files]
    if not record.is_deleted:
        # Whether every file may be read by anyone: only those open to all are listed above.
        doc["isAccessibleForFree"] = record.access_rights == "open" and not record.some_closed
    if record.is_deleted:
        doc["creativeWorkStatus"] = "Deleted"
    return doc
