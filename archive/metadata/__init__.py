"""An item described in the formats PID clients, citation managers and harvesters speak.

- record: `Record`, the one plain description every format is built from (pure).
- formats: `FORMATS`, the names, media types and profiles of the formats served.
- selectors: `record_of(item, base)`, the Record of a stored item; `records_of`, those of
  many items in a fixed number of queries (with `dc_values_of`); `signposts_of`, its
  Signposting; for a harvest page in a qualified format, `rows_and_elements_of`, `files_of`,
  `ibis_of`, `handles_of` and `thesis_record` (no whole Record).
- datacite: a Record as DataCite kernel 4 XML (`resource`, `to_bytes`; pure).
- openaire: a Record as an OpenAIRE Guidelines v4 record (`resource`, `to_bytes`; pure).
- citing: what the citations and a thesis's channels read of the qualified fields (the
  container, pages, a thesis's degree, people, programme and CNPq areas; `level_of`,
  `area_label` for the pages) (pure).
- vocabularies: dc:type read as COAR / DataCite / OpenAIRE resource types, `xml_text` (pure).
- csl, bibtex, ris, schemaorg: a Record as CSL-JSON (and a citation in any installed CSL
  style), BibTeX, RIS and schema.org JSON-LD (pure); kinds: dc:type in their vocabularies.
- serialize: a Record in a format, as the body and Content-Type of an answer (pure).
- accept: the format an HTTP Accept header asks for (pure).
- signposting: FAIR Signposting's typed links of an item, as a Link header, <link> elements
  and RFC 9264 linksets (pure).
- highwire: the Highwire Press citation_* meta tags Google Scholar reads (pure).
- oai_dc: an item's Dublin Core as an oai_dc record (pure).
- dim: an item's values under their fields of the registry as DSpace's dim (OAI-PMH) and
  SAF's metadata files write them (pure).
- cite: the citation block of the pages (and of the API's tombstones): the CSL styles a
  reader picks (ABNT, APA, Chicago, IEEE, Vancouver), rendered in the reader's language.
- languages: language tags named in the reader's language (pure, Babel's names).
- rocrate: a Record as RO-Crate 1.1 metadata, for the bags of `exportbags` (pure).
- mtdbr, mtd2br, mtd3br: a thesis as IBICT's MTD-BR formats describe it, and its MTD-BR 2
  and 3 records (pure).
- xmltext: XML written as text, for the records a harvest page writes by the thousand (pure).
"""
__all__ = ["accept", "bibtex", "cite", "citing", "csl", "datacite", "dim", "formats", "highwire",
           "languages", "mtd2br", "mtd3br", "mtdbr", "oai_dc", "openaire", "record", "ris",
           "rocrate", "schemaorg", "selectors", "serialize", "signposting", "vocabularies",
           "xmltext"]
