"""The official XSDs in tests/data/schemas/, loaded once, for lxml to validate what we publish.

    xml_schemas.assert_valid(xml_schemas.datacite(), element)

`oai_pmh(*extra)` is OAI-PMH.xsd together with the schemas of the records a response carries:
the protocol's `<metadata>` and `<description>` hold their content under processContents
"strict", so a whole response validates only if each record does too.
"""
from __future__ import annotations

from functools import cache
from pathlib import Path

from lxml import etree

SCHEMAS = Path(__file__).resolve().parent / "data" / "schemas"
NAMESPACES = {  # namespace → its schema, as the OAI-PMH wrapper imports it
    "oai_dc": ("http://www.openarchives.org/OAI/2.0/oai_dc/", "oai-pmh/oai_dc.xsd"),
    "oai-identifier": ("http://www.openarchives.org/OAI/2.0/oai-identifier",
                       "oai-pmh/oai-identifier.xsd"),
    "datacite": ("http://datacite.org/schema/kernel-4", "datacite-kernel-4/metadata.xsd"),
    "oai_openaire": ("http://namespace.openaire.eu/schema/oaire/", "openaire-4.0/openaire.xsd"),
    "dim": ("http://www.dspace.org/xmlns/dspace/dim", "dspace/dim.xsd"),
    "mtd3-br": ("http://200.130.0.199/mtd3-br/", "ibict/mtd3-br.xsd"),
    "mtd2-br": ("http://oai.ibict.br/mtd2-br/", "ibict/mtd2-br.xsd"),
}


def _load(path: Path, text: str | None = None) -> etree.XMLSchema:
    document = etree.fromstring(text.encode(), base_url=path.as_uri()) if text else (
        etree.parse(str(path)))
    return etree.XMLSchema(document)


@cache
def premis() -> etree.XMLSchema:
    """PREMIS 3.0 (premis-3.0/premis.xsd: the Library of Congress's premis-v3-0.xsd)."""
    return _load(SCHEMAS / "premis-3.0" / "premis.xsd")


@cache
def datacite() -> etree.XMLSchema:
    return _load(SCHEMAS / "datacite-kernel-4" / "metadata.xsd")


@cache
def oai_dc() -> etree.XMLSchema:
    return _load(SCHEMAS / "oai-pmh" / "oai_dc.xsd")


@cache
def openaire() -> etree.XMLSchema:
    return _load(SCHEMAS / "openaire-4.0" / "openaire.xsd")


@cache
def dim() -> etree.XMLSchema:
    """DSpace's dim: DSpace publishes no schema of it; dspace/dim.xsd is ours (its comment)."""
    return _load(SCHEMAS / "dspace" / "dim.xsd")


@cache
def mtd3br() -> etree.XMLSchema:
    """IBICT's MTD-BR 3, as BDTD's harvester has it (ibict/README: its source)."""
    return _load(SCHEMAS / "ibict" / "mtd3-br.xsd")


@cache
def mtd2br() -> etree.XMLSchema:
    """MTD-BR 2 as TEDE wrote it: IBICT's own schema is lost; ibict/mtd2-br.xsd is ours."""
    return _load(SCHEMAS / "ibict" / "mtd2-br.xsd")


@cache
def oai_pmh(*extra: str) -> etree.XMLSchema:
    """OAI-PMH.xsd with the schemas named in NAMESPACES (oai_dc and oai_openaire cannot be
    together: OpenAIRE brings its own schema of the Dublin Core namespace)."""
    imports = [("http://www.openarchives.org/OAI/2.0/", "oai-pmh/OAI-PMH.xsd"),
               *(NAMESPACES[name] for name in extra)]
    wrapper = ('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
               + "".join(f'<xs:import namespace="{ns}" schemaLocation="{location}"/>'
                         for ns, location in imports)
               + "</xs:schema>")
    return _load(SCHEMAS / "wrapper.xsd", wrapper)


def assert_valid(schema: etree.XMLSchema, document: etree._Element | bytes) -> None:
    if isinstance(document, bytes):
        document = etree.fromstring(document)
    if not schema.validate(document):
        raise AssertionError("\n".join(str(e) for e in schema.error_log)
                             + "\n" + etree.tostring(document, encoding="unicode"))
