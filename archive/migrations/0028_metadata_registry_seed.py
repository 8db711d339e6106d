"""The registry's seed and today's values in it (issue 34).

Schemas and fields: DSpace 7's default registries (dc, dcterms, local), read from the copies
of DSpace's own files in archive/registry/data/, and the MTD-BR thesis fields this repository
adds (ibi-types.xml there). Each field gets the simple Dublin Core element its values are given
as (DCMI's dumbing-down, as DSpace's oai_dc crosswalk does: dc.contributor.author is a
dc:creator) and, for the fifteen elements and the thesis fields, labels in English and
Portuguese. These tables are this migration's own (history: never today's code).

Values: every row becomes a value of dc.<its element> with no qualifier and no language; its
ORCID iD becomes its authority, accepted (DSpace's confidence 600). Nothing is lost: the
reverse puts the ORCID iDs back.
"""
import xml.etree.ElementTree as ET
from pathlib import Path

from django.db import migrations

DATA = Path(__file__).resolve().parent.parent / "registry" / "data"
FILES = ("dublin-core-types.xml", "dcterms-types.xml", "local-types.xml", "ibi-types.xml")

DCMES = {"title", "creator", "subject", "description", "publisher", "contributor", "date",
         "type", "format", "identifier", "source", "language", "relation", "coverage", "rights"}
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


def _dc_element(schema, element, qualifier):
    if schema == "dc":
        if (element, qualifier) in DC_NONE:
            return ""
        found = DC_OTHER.get((element, qualifier), element)
        return found if found in DCMES else ""
    if schema == "dcterms":
        return element if element in DCMES else DCTERMS.get(element, "")
    return ""


def seed(apps, schema_editor):
    Schema = apps.get_model("archive", "MetadataSchema")
    Field = apps.get_model("archive", "MetadataField")
    schemas, fields = {}, []
    for name in FILES:
        root = ET.parse(DATA / name).getroot()
        for node in root.iter("dc-schema"):
            short = node.findtext("name").strip()
            schemas[short] = Schema.objects.get_or_create(
                name=short, defaults={"namespace": node.findtext("namespace").strip()})[0]
        for node in root.iter("dc-type"):
            schema, element = node.findtext("schema").strip(), node.findtext("element").strip()
            qualifier = (node.findtext("qualifier") or "").strip()
            name = ".".join(p for p in (schema, element, qualifier) if p)
            en, pt = LABELS.get(name, ("", ""))
            fields.append(Field(schema=schemas[schema], element=element, qualifier=qualifier,
                                scope_note=" ".join((node.findtext("scope_note") or "").split()),
                                label_en=en, label_pt_br=pt,
                                dc_element=_dc_element(schema, element, qualifier)))
    Field.objects.bulk_create(fields, ignore_conflicts=True)
    dc = schemas["dc"].pk
    # One statement, whatever the number of rows; the same SQL on both databases.
    schema_editor.execute(
        "UPDATE archive_dcvalue SET field_id = (SELECT f.id FROM archive_metadatafield f "
        "WHERE f.schema_id = %s AND f.element = archive_dcvalue.element AND f.qualifier = ''), "
        "authority = orcid, confidence = CASE WHEN orcid <> '' THEN 600 ELSE -1 END",
        params=[dc])
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT element FROM archive_dcvalue WHERE field_id IS NULL")
        missing = [row[0] for row in cursor.fetchall()]
    if missing:  # never: every element deposits had is in the seed; but never lose a value
        raise RuntimeError(f"no dc field for the values of {missing}")


def unseed(apps, schema_editor):
    # Only the ORCID iDs of dc.creator go back: 0026's table has no room for the rest.
    schema_editor.execute(
        "UPDATE archive_dcvalue SET orcid = CASE WHEN element = 'creator' AND "
        "length(authority) = 19 THEN authority ELSE '' END, field_id = NULL")
    apps.get_model("archive", "MetadataField").objects.all().delete()
    apps.get_model("archive", "MetadataSchema").objects.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0027_metadata_registry'),
    ]

    operations = [
        migrations.RunPython(seed, unseed),
    ]
