"""IBICT's MTD-BR 2 (`mtd2-br`, namespace http://oai.ibict.br/mtd2-br/), the format of TEDE,
the system IBICT gave the universities before DSpace, which BDTD still harvests from many of
them: nested elements in Portuguese, as TEDE's OAI-PMH writes them (its MTD-BR 2.0 writer,
github.com/projetos-codic-ibict/TEDE-legado tde_oai/biblioteca/mtdbr.1.0.14.php, and the
records it served). Pure: no database.

    <mtd2-br:mtd2br xmlns:mtd2-br="http://oai.ibict.br/mtd2-br/">
      <mtd2-br:Controle>…<mtd2-br:Tipo>Tese ou Dissertação Eletrônica</mtd2-br:Tipo></…>
      <mtd2-br:Titulo Idioma="pt">A decaída em Ser e tempo</mtd2-br:Titulo>
      <mtd2-br:Arquivo><mtd2-br:URL Formato="application/pdf">…</mtd2-br:URL>
        <mtd2-br:NivelAcesso>Publico</mtd2-br:NivelAcesso></mtd2-br:Arquivo>
      <mtd2-br:Grau>Doutor</mtd2-br:Grau>
      <mtd2-br:Assunto Idioma="pt" Esquema="Tabela CNPQ">FILOSOFIA</mtd2-br:Assunto>
      <mtd2-br:Autor><mtd2-br:Nome>…</mtd2-br:Nome><mtd2-br:Lattes>…</mtd2-br:Lattes></…>
      <mtd2-br:Contribuidor Papel="Orientador"><mtd2-br:Nome>…</mtd2-br:Nome></…>
      <mtd2-br:InstituicaoDefesa>…<mtd2-br:Programa><mtd2-br:Nome>…</…></…></…>
    </mtd2-br:mtd2br>

Each open file is an `Arquivo` whose `NivelAcesso` is "Publico"; an item with no file open to
all has one `Arquivo`, its landing page, "Restrito" (TEDE's word for a withheld file), and
its access right (mtdbr.access_right) in `Direitos`. IBICT publishes no schema of MTD-BR 2
any more: tests/data/schemas/ibict/mtd2-br.xsd is ours, written from TEDE's writer.

    >>> from archive.metadata.mtdbr import Record, read
    >>> t = read((), Record(ibi="x", ibip="y", title="T", persistent_url="http://h/x"))
    >>> b"<mtd2-br:NivelAcesso>Restrito</mtd2-br:NivelAcesso>" in to_bytes(
    ...     mtd2br_element(t, updated="2024-01-02T03:04:05Z", repository=("R", "")))
    True
"""
from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from ..identifiers import lattes
from .mtdbr import Person, Thesis, two_letter_code
from .oai_dc import xml_text

NS = "http://oai.ibict.br/mtd2-br/"
SCHEMA = "http://oai.ibict.br/mtd2-br/mtd2-br.xsd"
NSMAP = {"mtd2-br": NS}
_NS_XSI = "http://www.w3.org/2001/XMLSchema-instance"
_DEGREES = {"doctoral": "Doutor", "masters": "Mestre"}
PUBLIC, WITHHELD = "Publico", "Restrito"  # TEDE's NivelAcesso, without accents
KEYWORD, CNPQ = "Palavra-chave", "Tabela CNPQ"  # TEDE's Esquema of an Assunto


def _language(tag: str) -> str:
    """MTD-BR 2's Idioma: ISO 639-1 ("pt"); "" for a language that has no such code."""
    return two_letter_code(tag)


def _put(parent: etree._Element, tag: str, value: str, **attributes: str
         ) -> etree._Element | None:
    text = xml_text(value).strip()
    if not text:
        return None
    node = etree.SubElement(parent, f"{{{NS}}}{tag}",
                            {k: v for k, v in attributes.items() if v})
    node.text = text
    return node


def _group(parent: etree._Element, tag: str, **attributes: str) -> etree._Element:
    return etree.SubElement(parent, f"{{{NS}}}{tag}", {k: v for k, v in attributes.items() if v})


def _people(root: etree._Element, tag: str, people: Sequence[Person], role: str = "") -> None:
    for person in people:
        node = _group(root, tag, Papel=role)
        _put(node, "Nome", person.name)
        if person.lattes:
            _put(node, "Lattes", lattes.url(person.lattes))


def mtd2br_element(thesis: Thesis, *, updated: str, repository: tuple[str, str]
                   ) -> etree._Element:
    """<mtd2-br:mtd2br> of a thesis (mtdbr.read), last changed at `updated` (the record's
    datestamp), served by `repository` (its name and address)."""
    root = etree.Element(f"{{{NS}}}mtd2br", nsmap=NSMAP)
    root.set(f"{{{_NS_XSI}}}schemaLocation", f"{NS} {SCHEMA}")
    name, address = repository
    control = _group(root, "Controle")
    _put(control, "Sigla", next(iter(thesis.initials), "") or name)
    _put(control, "DataAtualizacao", updated)
    _put(control, "IdentificacaoDocumento", thesis.uri)
    _put(control, "Tipo", "Tese ou Dissertação Eletrônica")
    library = _group(root, "BibliotecaDigital")
    _put(library, "Nome", name)
    _put(library, "URL", address)
    own = _language(thesis.language)
    _put(root, "Titulo", thesis.title, Idioma=own)
    for title in thesis.titles:
        _put(root, "Titulo", title.value, Idioma=_language(title.language))
    for file in thesis.files:
        found = _group(root, "Arquivo")
        _put(found, "URL", file.url, Formato=file.content_type)
        _put(found, "NivelAcesso", PUBLIC)
    if not thesis.files:
        withheld = _group(root, "Arquivo")
        _put(withheld, "URL", thesis.landing_url or thesis.uri)
        _put(withheld, "NivelAcesso", WITHHELD)
    _put(root, "Idioma", own or "pt")
    _put(root, "Grau", _DEGREES.get(thesis.degree, ""))
    _put(root, "Titulacao", thesis.degree_name)
    for abstract in thesis.abstracts:
        _put(root, "Resumo", abstract.value, Idioma=_language(abstract.language) or own)
    for subject in thesis.subjects:
        _put(root, "Assunto", subject.value, Idioma=_language(subject.language) or own,
             Esquema=KEYWORD)
    for area in thesis.cnpq:
        _put(root, "Assunto", area, Idioma="pt", Esquema=CNPQ)
    _put(root, "DataDefesa", thesis.issued)
    _people(root, "Autor", thesis.authors)
    _people(root, "Contribuidor", thesis.advisors, "Orientador")
    _people(root, "Contribuidor", thesis.co_advisors, "Co-orientador")
    _people(root, "Contribuidor", thesis.referees, "Membro da banca")
    institution = _group(root, "InstituicaoDefesa")
    _put(institution, "Nome", thesis.publisher or name)
    _put(institution, "Sigla", next(iter(thesis.initials), ""))
    _put(institution, "Pais", thesis.country)
    for programme in thesis.programmes:
        _put(_group(institution, "Programa"), "Nome", programme)
    for sponsor in thesis.sponsors:
        _put(_group(root, "AgenciaFomento"), "Nome", sponsor)
    _put(root, "Direitos", thesis.access)
    _put(root, "Direitos", thesis.licence)
    return root


def to_bytes(element: etree._Element) -> bytes:
    return etree.tostring(element, encoding="utf-8")
