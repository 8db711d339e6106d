"""Persistent URLs of RTC-11 §8.1 (Tables 8.1–8.5): archive/protocol/persistent_url.py."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from archive.protocol import persistent_url as persistent_url_module
from archive.protocol.persistent_url import PersistentUrl, PersistentUrlError, parse

IBIP = "LK47B6W/362SFKH"
REPOSITORY = "iconet.com.br/banon/2009/09.09.22.01"  # the same item (Example 8.1)


def test_it_reads_example_8_2_metadata_in_oai_dc():
    url = parse("/8JMKD3MGP8W/35MME4E:(oai_dc)")

    assert url == PersistentUrl(ibi="8JMKD3MGP8W/35MME4E", modifier=":(oai_dc)",
                                verbs=("GetMetadata(oai_dc)",))
    assert url.relation() == ".metadata(oai_dc)"


def test_it_reads_example_8_4_metadata_of_the_last_edition():
    url = parse("/8JMKD3MGP8W/35MMLL8!:(oai_dc)")

    assert url.ibi == "8JMKD3MGP8W/35MMLL8"
    assert url.verblist_text() == "GetLastEdition GetMetadata(oai_dc)"  # SPEC §7 step 1
    assert url.relation() == ".lastedition.metadata(oai_dc)"


def test_example_8_5_verb_list_equals_the_modifier_of_example_8_4():
    by_verbs = parse("/8JMKD3MGP8W/35MMLL8",
                     "ibiurl.verblist=GetLastEdition+GetMetadata(oai_dc)")
    both = parse("/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
                 "ibiurl.verblist=GetLastEdition+GetMetadata(oai_dc)")

    assert by_verbs.verbs == both.verbs == ("GetLastEdition", "GetMetadata(oai_dc)")
    assert by_verbs.relation() == ".lastedition.metadata(oai_dc)"


def test_it_reads_example_8_6_file_list():
    url = parse(f"/{IBIP}?ibiurl.verblist=GetFileList")

    assert url.ibi == IBIP
    assert url.verbs == ("GetFileList",)
    assert url.relation() == ""


def test_it_reads_example_8_7_a_file_of_the_item():
    url = parse(f"/{IBIP}/reference.bib")

    assert (url.ibi, url.filepath, url.verbs) == (IBIP, "/reference.bib", ())


def test_it_reads_example_8_8_as_table_8_8():
    url = parse(f"/{IBIP}+?ibiurl.requireditemstatus=Original&ibiurl.verblist=GetMetadata")

    assert url.ibi == IBIP
    assert url.filepath is None
    assert url.required_item_status == "Original"
    assert url.verblist_text() == "GetTranslation GetMetadata"
    assert url.relation() == ".translation.metadata"


def test_it_reads_a_repository_name_with_a_modifier():
    url = parse(f"/{REPOSITORY}!+(pt-BR):")

    assert url.ibi == REPOSITORY
    assert url.modifier == "!+(pt-BR):"
    assert url.verbs == ("GetLastEdition", "GetTranslation(pt-BR)", "GetMetadata")
    assert url.relation() == ".lastedition.translation(pt-BR).metadata"


def test_it_reads_the_2010_drafts_double_question_mark_as_metadata():
    in_path = parse("/sid.inpe.br/mtc-m18@80/2009/02.16.17.46??")
    in_query = parse("/sid.inpe.br/mtc-m18@80/2009/02.16.17.46", "?")
    ibip = parse("/8JMKD3MGP8W/34PGRBS??")

    assert in_path == in_query
    assert in_path.ibi == "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"
    assert in_path.verbs == ibip.verbs == ("GetMetadata",)
    assert in_path.relation() == ".metadata"
    # The query after the second '?' is still read.
    assert parse("/8JMKD3MGP8W/34PGRBS??ibiurl.verblist=GetFileList").verbs == (
        "GetMetadata", "GetFileList")


@pytest.mark.parametrize("ibi", [
    "sid.inpe.br/mtc-m19/2013/09.04.12.27.57",
    "sid.inpe.br/mtc-m18.8080/2009/02.16.17.46",
    "sid.INPE.br/MTC-m18@80/2009/02.16.17.46",
    "sid.inpe.br/mtc-m18/2010/10.20.15.14.06",
    "sid.inpe.br/mtc-m18/2010/10.20.15.21.55.3462",
    "8JMKD3MGP7W/3EPGUE5",
    "8jmkd3mgp8w/34pgrbs",
    "J8LNKB5R7W/3FUQHC5",
])
def test_it_keeps_the_ibi_as_written(ibi):
    assert parse(f"/{ibi}/doc/x.pdf") == PersistentUrl(ibi=ibi, filepath="/doc/x.pdf")


TABLE_8_2 = {
    ":": ".metadata", ":+": ".metadata.translation",
    "!": ".lastedition", "!+": ".lastedition.translation",
    "!:": ".lastedition.metadata", "!+:": ".lastedition.translation.metadata",
    "!:+": ".lastedition.metadata.translation",
    "!+:+": ".lastedition.translation.metadata.translation",
    "+": ".translation", "+!": ".translation.lastedition", "+:": ".translation.metadata",
    "+!:": ".translation.lastedition.metadata", "+:+": ".translation.metadata.translation",
    "+!:+": ".translation.lastedition.metadata.translation",
}


@pytest.mark.parametrize(("modifier", "relation"), TABLE_8_2.items())
@pytest.mark.parametrize("ibi", [IBIP, REPOSITORY])
def test_it_accepts_every_composition_of_table_8_2(ibi, modifier, relation):
    url = parse(f"/{ibi}{modifier}/reference.bib")

    assert (url.ibi, url.modifier, url.filepath) == (ibi, modifier, "/reference.bib")
    assert url.relation() == relation


@pytest.mark.parametrize(("modifier", "relation"), [
    ("+(pt-BR)!", ".translation(pt-BR).lastedition"),
    (":+(en)", ".metadata.translation(en)"),
    ("+(en):(oai_dc)", ".translation(en).metadata(oai_dc)"),
    ("!+(PT-br):(OAI_DC)+(fr)", ".lastedition.translation(pt-BR).metadata(oai_dc).translation(fr)"),
    ("+(pt):+(pt)", ".translation(pt).metadata.translation(pt)"),
    ("+(ast)", ".translation(ast)"),
    ("", ""),
])
def test_it_carries_the_arguments_over_to_verbs_and_relation(modifier, relation):
    assert parse(f"/{IBIP}{modifier}").relation() == relation


@pytest.mark.parametrize("modifier", [
    "!!", "::", "+++", ":!", ":+!", "++", "!+!", ":+:", "!:!", "+:+:", "!+:+!", ":::",
])
def test_it_refuses_compositions_not_in_table_8_2(modifier):
    with pytest.raises(PersistentUrlError) as raised:
        parse(f"/{IBIP}{modifier}")
    assert str(raised.value) == (f"the modifier {modifier!r} composes {modifier!r}, which is not "
                                 "one of the modifiers of Table 8.2")


@pytest.mark.parametrize(("path", "message"), [
    (f"/{IBIP}+(portuguese)",
     "bad language tag 'portuguese': expected language[-COUNTRY], e.g. pt-BR"),
    (f"/{IBIP}+(pt-BRA)", "bad language tag 'pt-BRA': expected language[-COUNTRY], e.g. pt-BR"),
    (f"/{IBIP}+()", "bad language tag '': expected language[-COUNTRY], e.g. pt-BR"),
    (f"/{IBIP}:(marc)",
     "unknown metadata format 'marc': one of oai_dc, datacite, csljson, bibtex, ris, schemaorg"),
    (f"/{IBIP}!(x)", "'!' takes no argument, got (x)"),
    (f"/{IBIP}+(pt",
     "unexpected '(' after the IBI 'LK47B6W/362SFKH' (a modifier is made of '!', '+(..)' and "
     "':(..)')"),
    (f"/{IBIP}*",
     "unexpected '*' after the IBI 'LK47B6W/362SFKH' (a modifier is made of '!', '+(..)' and "
     "':(..)')"),
    ("/LK47B6W/362SFKHi",
     "unexpected 'i' after the IBI 'LK47B6W/362SFKH' (a modifier is made of '!', '+(..)' and "
     "':(..)')"),
    ("/LK47B6W",
     "no IBI at the start of '/LK47B6W': expected an IBIp (e.g. LK47B6W/362SFKH) or a "
     "repository name (e.g. iconet.com.br/banon/2009/09.09.22.01)"),
    ("/",
     "no IBI at the start of '/': expected an IBIp (e.g. LK47B6W/362SFKH) or a repository name "
     "(e.g. iconet.com.br/banon/2009/09.09.22.01)"),
    ("/LK47B6W0/362SFKH",
     "no IBI at the start of '/LK47B6W0/362SFKH': expected an IBIp (e.g. LK47B6W/362SFKH) or a "
     "repository name (e.g. iconet.com.br/banon/2009/09.09.22.01)"),
    ("/sid.inpe.br/mtc-m18/09/02.16.17.46",
     "no IBI at the start of '/sid.inpe.br/mtc-m18/09/02.16.17.46': expected an IBIp (e.g. "
     "LK47B6W/362SFKH) or a repository name (e.g. iconet.com.br/banon/2009/09.09.22.01)"),
    ("/sid.inpe.br/mtc-m18/2009/2.16.17.46",
     "'/sid.inpe.br/mtc-m18/2009/2.16.17.46' is no repository name: after the year comes the "
     "date MM.DD.hh.mm[.ss[.fraction]], e.g. 09.04.12.27.57"),
    ("/localhost/archive/2026/11.22.99",
     "'/localhost/archive/2026/11.22.99' is no repository name: after the year comes the date "
     "MM.DD.hh.mm[.ss[.fraction]], e.g. 09.04.12.27.57"),
    ("LK47B6W/362SFKH", "a persistent URL path starts with '/', got 'LK47B6W/362SFKH'"),
    ("/sid.inpe.br/mtc_m18/2009/02.16.17.46",
     "no IBI at the start of '/sid.inpe.br/mtc_m18/2009/02.16.17.46': expected an IBIp (e.g. "
     "LK47B6W/362SFKH) or a repository name (e.g. iconet.com.br/banon/2009/09.09.22.01)"),
    ("/sid.inpe.123/mtc-m18/2009/02.16.17.46",
     "no IBI at the start of '/sid.inpe.123/mtc-m18/2009/02.16.17.46': expected an IBIp (e.g. "
     "LK47B6W/362SFKH) or a repository name (e.g. iconet.com.br/banon/2009/09.09.22.01)"),
    ("/sid.inpe.br/mtc-m18/2009",
     "'/sid.inpe.br/mtc-m18/2009' is no repository name: after the year comes the date "
     "MM.DD.hh.mm[.ss[.fraction]], e.g. 09.04.12.27.57"),
    ("/localhost/archive/2026/11.22.99/doc/x.pdf",
     "'/localhost/archive/2026/11.22.99' is no repository name: after the year comes the date "
     "MM.DD.hh.mm[.ss[.fraction]], e.g. 09.04.12.27.57"),
    ("/sid.inpe.br/mtc-m18/2009/02.16.17.46x",
     "unexpected 'x' after the IBI 'sid.inpe.br/mtc-m18/2009/02.16.17.46' (a modifier is made "
     "of '!', '+(..)' and ':(..)')"),
    (f"/{IBIP}:(oai_dc)!",
     "the modifier ':(oai_dc)!' composes ':!', which is not one of the modifiers of Table 8.2"),
    (f"/{IBIP}+(pt)+(en)",
     "the modifier '+(pt)+(en)' composes '++', which is not one of the modifiers of Table 8.2"),
])
def test_it_refuses_malformed_ibis_and_modifiers(path, message):
    with pytest.raises(PersistentUrlError) as raised:
        parse(path)
    assert str(raised.value) == message


@pytest.mark.parametrize(("path", "message"), [
    (f"/{IBIP}/../x", "'..' in the file path '/../x'"),
    (f"/{IBIP}/doc/../../x", "'..' in the file path '/doc/../../x'"),
    (f"/{IBIP}/%2e%2e/x", "'..' in the file path '/../x'"),
    (f"/{IBIP}/%2E%2E%2Fetc%2Fpasswd", "'..' in the file path '/../etc/passwd'"),
    (f"/{IBIP}/doc%2f..%2f..%2fx", "'..' in the file path '/doc/../../x'"),
    (f"/{IBIP}/a\\b", "backslash in the file path '/a\\\\b'"),
    (f"/{IBIP}/..%5cx", "backslash in the file path '/..\\\\x'"),
    (f"/{IBIP}/x%00.pdf", "control character in the file path '/x\\x00.pdf'"),
    (f"/{IBIP}/x%0a.pdf", "control character in the file path '/x\\n.pdf'"),
    (f"/{IBIP}//etc/passwd", "empty or '.' segment in the file path '//etc/passwd'"),
    (f"/{IBIP}/%2Fetc%2Fpasswd", "empty or '.' segment in the file path '//etc/passwd'"),
    (f"/{IBIP}/./x", "empty or '.' segment in the file path '/./x'"),
    (f"/{IBIP}/doc/", "empty or '.' segment in the file path '/doc/'"),
    (f"/{IBIP}/x\ud800.pdf", "control character in the file path '/x\\ud800.pdf'"),
    (f"/{IBIP}/x%C2%85.pdf", "control character in the file path '/x\\x85.pdf'"),
])
def test_it_refuses_hostile_file_paths(path, message):
    with pytest.raises(PersistentUrlError) as raised:
        parse(path)
    assert str(raised.value) == message


def test_it_decodes_the_file_path_utf_8_or_iso_8859_1():
    assert parse(f"/{IBIP}/doc/Relat%C3%B3rio%20Final.pdf").filepath == "/doc/Relatório Final.pdf"
    assert parse(f"/{IBIP}/doc/Relat%f3rio%20Final.pdf").filepath == "/doc/Relatório Final.pdf"
    assert parse(f"/{IBIP}/").filepath is None


@pytest.mark.parametrize("query", [
    "ibiurl.verblist=GetLastEdition+GetMetadata(oai_dc)",  # raw
    "ibiurl.verblist=GetLastEdition%2BGetMetadata%28oai_dc%29",  # escaped
    "ibiurl.verblist=GetLastEdition GetMetadata(oai_dc)",  # already form-decoded
    "ibiurl.verblist=getlastedition+GETMETADATA(OAI_DC)",  # ABNF strings ignore case
])
def test_it_reads_the_verb_list_raw_or_decoded(query):
    assert parse(f"/{IBIP}", query).verbs == ("GetLastEdition", "GetMetadata(oai_dc)")


def test_the_verb_list_is_the_union_keeping_order_without_repetition():
    url = parse(f"/{IBIP}!+(pt-br)",
                "ibiurl.verblist=GetFileList+GetLastEdition+GetTranslation(pt-BR)+GetMetadata")

    assert url.verbs == ("GetLastEdition", "GetTranslation(pt-BR)", "GetFileList", "GetMetadata")
    assert url.relation() == ".lastedition.translation(pt-BR).metadata"


def test_it_reads_the_required_item_status_and_ignores_other_pairs():
    url = parse(f"/{IBIP}", "choice=oai_dc&ibiurl.requireditemstatus=original&x=")

    assert url.required_item_status == "Original"
    assert url.verbs == ()


@pytest.mark.parametrize(("query", "message"), [
    ("ibiurl.requireditemstatus=Copy", "ibiurl.requireditemstatus='Copy': only Original"),
    ("ibiurl.requireditemstatus=", "ibiurl.requireditemstatus='': only Original"),
    ("ibiurl.verblist=GetAll",
     "unknown verb 'GetAll' (Table 8.4: GetTranslation, GetLastEdition, GetMetadata, "
     "GetFileList)"),
    ("ibiurl.verblist=GetMetadata++GetFileList",
     "bad verb '' in ibiurl.verblist='GetMetadata  GetFileList'"),
    ("ibiurl.verblist=GetFileList(x)", "GetFileList takes no argument, got (x)"),
    ("ibiurl.verblist=GetTranslation(pt_BR)",
     "bad language tag 'pt_BR': expected language[-COUNTRY], e.g. pt-BR"),
    ("ibiurl.verblist=GetMetadata+GetLastEdition",
     "the verb list 'GetMetadata GetLastEdition' composes ':!', which is not one of the "
     "modifiers of Table 8.2"),
    ("ibiurl.verblist=GetFileList&ibiurl.verblist=GetMetadata",
     "ibiurl.verblist is given more than once"),
    ("ibiurl.requireditemstatus=Original&ibiurl.requireditemstatus=Original",
     "ibiurl.requireditemstatus is given more than once"),
    ("ibiurl.verblist",
     "malformed query 'ibiurl.verblist': Table 8.1 wants name=value pairs joined by '&'"),
    ("a=1&&b=2", "malformed query 'a=1&&b=2': Table 8.1 wants name=value pairs joined by '&'"),
    ("ibiurl.verblist=GetMetadata(marc)",
     "unknown metadata format 'marc': one of oai_dc, datacite, csljson, bibtex, ris, schemaorg"),
])
def test_it_refuses_bad_query_pairs(query, message):
    with pytest.raises(PersistentUrlError) as raised:
        parse(f"/{IBIP}", query)
    assert str(raised.value) == message


def test_the_modifier_and_the_verb_list_must_compose():
    with pytest.raises(PersistentUrlError) as raised:
        parse(f"/{IBIP}:", "ibiurl.verblist=GetLastEdition")
    assert str(raised.value) == ("the verb list 'GetMetadata GetLastEdition' composes ':!', which "
                                 "is not one of the modifiers of Table 8.2")


def test_it_refuses_a_query_in_the_path_and_a_separate_one():
    with pytest.raises(PersistentUrlError) as raised:
        parse(f"/{IBIP}?ibiurl.verblist=GetFileList", "ibiurl.verblist=GetFileList")
    assert str(raised.value) == "the path contains '?' and a query was given as well"


URL_CHARS = "/!+:()?&=%.@-_ \\2345678ABCGHKLMNPQWXabciorsd0129%2e%2f%00"


@given(st.text(), st.text())
def test_parse_only_ever_raises_persistent_url_error(path, query):
    try:
        assert isinstance(parse(path, query), PersistentUrl)
    except PersistentUrlError:
        pass


@given(st.text(alphabet=URL_CHARS), st.text(alphabet=URL_CHARS))
def test_parse_of_url_like_text_only_ever_raises_persistent_url_error(path, query):
    for candidate in (path, f"/{IBIP}{path}", f"/{REPOSITORY}{path}"):
        try:
            url = parse(candidate, query)
        except PersistentUrlError:
            continue
        assert url.filepath is None or ".." not in url.filepath.split("/")


def test_it_runs_the_module_examples() -> None:
    # tests/test_docstrings.py runs them with every module's; run here too because `make
    # mutation` runs this file alone against the module's mutants.
    assert doctest.testmod(persistent_url_module).failed == 0
