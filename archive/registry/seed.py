"""The registry's seed: DSpace 7's default registries and this repository's thesis fields
(data/), with each field's simple Dublin Core element and labels. Migration 0028 seeded the
database with its own copy of these tables (history); `ensure_seeded` puts the seed back where
a registry is empty, as after a `flush` (tests), from today's files. Fields already there
stay as they are."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ..models import DcElement, MetadataField, MetadataSchema

DATA = Path(__file__).resolve().parent / "data"
FILES = ("dublin-core-types.xml", "dcterms-types.xml", "local-types.xml", "ibi-types.xml")

DCMES = frozenset(DcElement.values)
# dc fields that say what DSpace did with its copy, not what the work is: no simple element.
DC_NONE = {("date", "accessioned"), ("date", "available"), ("description", "provenance"),
           ("format", "mimetype"), ("provenance", "")}
DC_OTHER = {("contributor", "author"): "creator"}
# DCMI terms refining one of the fifteen (DCMI's dumbing-down); the rest have none.
DCTERMS = {
    "abstract": "description", "tableOfContents": "description", "alternative": "title",
    "created": "date", "issued": "date", "modified": "date", "valid": "date",
    "dateSubmitted": "date", "dateCopyrighted": "date", "bibliographicCitation": "identifier",
    "extent": "format", "medium": "format", "spatial": "coverage", "temporal": "coverage",
    "license": "rights", "accessRights": "rights", "rightsHolder": "rights",
    "isPartOf": "relation", "hasPart": "relation", "isVersionOf": "relation",
    "hasVersion": "relation", "isFormatOf": "relation", "hasFormat": "relation",
    "references": "relation", "isReferencedBy": "relation", "requires": "relation",
    "isRequiredBy": "relation", "replaces": "relation", "isReplacedBy": "relation",
    "conformsTo": "relation",
}
LABELS = {
    "dc.title": ("Title", "Título"), "dc.creator": ("Creator", "Criador"),
    "dc.subject": ("Subject", "Assunto"), "dc.description": ("Description", "Descrição"),
    "dc.publisher": ("Publisher", "Editora"), "dc.contributor": ("Contributor", "Colaborador"),
    "dc.date": ("Date", "Data"), "dc.type": ("Type", "Tipo"), "dc.format": ("Format", "Formato"),
    "dc.identifier": ("Identifier", "Identificador"), "dc.source": ("Source", "Fonte"),
    "dc.language": ("Language", "Idioma"), "dc.relation": ("Relation", "Relação"),
    "dc.coverage": ("Coverage", "Cobertura"), "dc.rights": ("Rights", "Direitos"),
    "dc.contributor.author": ("Author", "Autor"),
    "dc.contributor.advisor": ("Advisor", "Orientador"),
    "dc.contributor.advisor-co": ("Co-advisor", "Coorientador"),
    "dc.contributor.referee": ("Examining committee member", "Membro da banca"),
    "dc.publisher.program": ("Graduate programme", "Programa de pós-graduação"),
    "dc.publisher.department": ("Department", "Departamento"),
    "dc.publisher.initials": ("Institution's acronym", "Sigla da instituição"),
    "dc.publisher.country": ("Country of the institution", "País da instituição"),
    "dc.subject.cnpq": ("CNPq knowledge area", "Área do conhecimento CNPq"),
    "dc.identifier.citation": ("Citation", "Citação"),
    "dc.description.abstract": ("Abstract", "Resumo"),
    "dc.date.issued": ("Date issued", "Data de publicação"),
    "dc.title.alternative": ("Alternative title", "Título alternativo"),
    "dc.language.iso": ("Language (ISO)", "Idioma (ISO)"),
    "dc.rights.uri": ("Licence URI", "URI da licença"),
    "dc.identifier.uri": ("URI", "URI"), "dc.identifier.doi": ("DOI", "DOI"),
    "local.degree.level": ("Degree level", "Nível do grau"),
    "local.degree.name": ("Degree", "Grau"),
}


def dc_element(schema: str, element: str, qualifier: str) -> str:
    """The simple Dublin Core element a field's values are given as ("" for none)."""
    if schema == "dc":
        if (element, qualifier) in DC_NONE:
            return ""
        found = DC_OTHER.get((element, qualifier), element)
        return found if found in DCMES else ""
    if schema == "dcterms":
        return element if element in DCMES else DCTERMS.get(element, "")
    return ""


def ensure_seeded() -> None:
    """The seed's schemas and fields, added where missing (one query when all are there)."""
    if MetadataField.objects.filter(schema__name="dc", element="title", qualifier="").exists():
        return
    schemas, fields = {}, []
    for name in FILES:
        root = ET.parse(DATA / name).getroot()
        for node in root.iter("dc-schema"):
            short = node.findtext("name").strip()
            schemas[short] = MetadataSchema.objects.get_or_create(
                name=short, defaults={"namespace": node.findtext("namespace").strip()})[0]
        for node in root.iter("dc-type"):
            schema, element = node.findtext("schema").strip(), node.findtext("element").strip()
            qualifier = (node.findtext("qualifier") or "").strip()
            en, pt = LABELS.get(".".join(p for p in (schema, element, qualifier) if p), ("", ""))
            fields.append(MetadataField(
                schema=schemas[schema], element=element, qualifier=qualifier,
                scope_note=" ".join((node.findtext("scope_note") or "").split()),
                label_en=en, label_pt_br=pt, dc_element=dc_element(schema, element, qualifier)))
    MetadataField.objects.bulk_create(fields, ignore_conflicts=True)
