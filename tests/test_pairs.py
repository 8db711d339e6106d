"""The pair list of RTC-11 §6.2 (Table 6.2): archive/protocol/pairs.py."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from archive.protocol import pairs as pairs_module
from archive.protocol.pairs import (
    PairListError,
    dumps,
    encode_value,
    loads,
    quote_url,
    to_dict,
    unquote_word,
)

# Example 6.2 of the standard, verbatim (SPEC §4).
EXAMPLE_6_2 = """\
archiveaddress mtc-m16d.sid.inpe.br
contenttype Data
ibi {rep sid.inpe.br/mtc-m19/2013/09.04.12.27.57 ibip 8JMKD3MGP7W/3EPGUE5}
ibi.archiveservice {rep sid.inpe.br/mtc-m19@80/2009/08.21.17.02}
ibi.platformsoftware {rep dpi.inpe.br/banon/1998/08.02.08.56}
state Original
timestamp 2013-10-04T14:32:14Z
url http://mtc-m16d.sid.inpe.br/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/Relat%f3rio%20Final.pdf
urlkey 1426203276-5985125171467764"""

# Example 9.3 of the standard (the filtered answer), verbatim.
EXAMPLE_9_3 = """\
archiveaddress mtc-m16c.sid.inpe.br
contenttype.translation(en) Data
contenttype.translation(pt) Data
ibi {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23 ibip 8JMKD3MGP8W/35MME4E}
ibi.archiveservice {rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17}
ibi.platformsoftware {rep dpi.inpe.br/banon/1998/08.02.08.56}
ibi.translation(en) {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23}
ibi.translation(pt) {rep sid.inpe.br/mtc-m18@80/2009/08.25.19.43}
state.translation(en) Original
state.translation(pt) Original
timestamp.translation(en) 2009-07-21T13:23:45Z
timestamp.translation(pt) 2011-09-22T14:45:11Z
url.translation(en) http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.13.23/doc/CCSDS%20643.0-B-1.pdf
url.translation(pt) http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/08.25.19.43/doc/RTC-07.pdf
urlkey 1426387214-9164566186556927"""  # noqa: E501

WORD_CHARS = "".join(chr(c) for c in range(0x21, 0x7B)) + "|~"
words = st.text(alphabet=WORD_CHARS, min_size=1, max_size=12)
values = st.one_of(words, st.lists(words, max_size=5))


def test_it_reads_example_6_2_exactly():
    pairs = loads(EXAMPLE_6_2)

    assert pairs == [
        ("archiveaddress", "mtc-m16d.sid.inpe.br"),
        ("contenttype", "Data"),
        ("ibi", ["rep", "sid.inpe.br/mtc-m19/2013/09.04.12.27.57", "ibip", "8JMKD3MGP7W/3EPGUE5"]),
        ("ibi.archiveservice", ["rep", "sid.inpe.br/mtc-m19@80/2009/08.21.17.02"]),
        ("ibi.platformsoftware", ["rep", "dpi.inpe.br/banon/1998/08.02.08.56"]),
        ("state", "Original"),
        ("timestamp", "2013-10-04T14:32:14Z"),
        ("url", "http://mtc-m16d.sid.inpe.br/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/"
                "Relat%f3rio%20Final.pdf"),
        ("urlkey", "1426203276-5985125171467764"),
    ]
    assert dumps(pairs) == EXAMPLE_6_2.replace("\n", "\r\n")


def test_it_decodes_the_iso_8859_1_escape_of_example_6_2():
    url = to_dict(loads(EXAMPLE_6_2))["url"]

    assert unquote_word(url).endswith("/doc/Relatório Final.pdf")
    # Every byte that is no UTF-8 is its ISO-8859-1 character, the first and the last too.
    assert unquote_word("%80%C3%B3%FF") == "\x80óÿ"


def test_it_reads_example_9_3_and_writes_it_back():
    pairs = loads(EXAMPLE_9_3)

    assert to_dict(pairs)["ibi.translation(pt)"] == [
        "rep", "sid.inpe.br/mtc-m18@80/2009/08.25.19.43"]
    assert dumps(pairs) == EXAMPLE_9_3.replace("\n", "\r\n")


def test_it_reads_the_examples_of_table_6_2_and_of_section_9():
    assert loads("a1 {a2 a3} a4 a5") == [("a1", ["a2", "a3"]), ("a4", "a5")]
    assert loads("notice {acknowledgment received}") == [
        ("notice", ["acknowledgment", "received"])]
    assert loads("confirmation yes") == [("confirmation", "yes")]
    assert loads("ibi.platformsoftware {}") == [("ibi.platformsoftware", [])]  # Table 9.3


def test_it_reads_crlf_lf_several_spaces_after_a_name_and_one_final_line_break():
    assert loads("a  b\r\nc d\ne f\r\n") == [("a", "b"), ("c", "d"), ("e", "f")]
    # 1*SP inside a list too, as an Archive writing aligned columns may (#25's audit, 8.).
    assert loads("ibi {rep  sid.inpe.br/x/2009/01.02.03.04   ibip  8JMKD3MGP8W/35MME4E}") == [
        ("ibi", ["rep", "sid.inpe.br/x/2009/01.02.03.04", "ibip", "8JMKD3MGP8W/35MME4E"])]
    assert loads("name   value") == [("name", "value")]
    assert loads("") == []


def test_strict_reading_takes_only_table_6_2s_separators():
    assert loads("a1 {a2 a3} a4 a5\r\nb c", strict=True) == [
        ("a1", ["a2", "a3"]), ("a4", "a5"), ("b", "c")]
    for text, message in [("a b\nc d",
                           "line 1 column 4: expected a space or CRLF, found a line feed"),
                          ("a b\r\n", "line 1 column 4: the text ends with a separator"),
                          ("a b ", "line 1 column 4: the text ends with a separator"),
                          ("a b\r\nc d\r\ne", "line 3 column 1: name 'e' has no value"),
                          ("a {b  c}", "line 1 column 6: expected a word, found a space")]:
        with pytest.raises(PairListError) as caught:
            loads(text, strict=True)
        assert str(caught.value) == f"pair list, {message}"


def test_it_writes_one_pair_a_line_with_braces_for_lists():
    text = dumps([("status.archive", "included"), ("notice", "acknowledgment received"),
                  ("ibi", ["rep", "x/y"]), ("ibi.platformsoftware", []), ("one", ["w"])])

    assert text == ("status.archive included\r\nnotice {acknowledgment received}\r\n"
                    "ibi {rep x/y}\r\nibi.platformsoftware {}\r\none w")
    assert loads(text, strict=True) == loads(text)


def test_it_escapes_what_a_word_cannot_hold_as_utf_8():
    assert dumps([("title", ["Relatório", "{x}", "a\tb"])]) == (
        "title {Relat%C3%B3rio %7Bx%7D a%09b}")
    assert encode_value("Relatório Final 100%") == "Relat%C3%B3rio%20Final%20100%25"
    assert dumps([("title", "a\tb  c")]) == "title {a%09b c}"  # a str value splits at spaces only


def test_quote_url_makes_a_url_one_word_and_keeps_its_escapes():
    url = "http://h/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/Relatório Final.pdf"

    assert quote_url(url) == (
        "http://h/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/Relat%C3%B3rio%20Final.pdf")
    assert quote_url("http://h/a%20b?x=1&y={2}#f") == "http://h/a%20b?x=1&y=%7B2%7D#f"
    assert quote_url("http://h/100%") == "http://h/100%25"
    assert dumps([("url", quote_url(url))]) == f"url {quote_url(url)}"


# Every refusal says where (line and column, from 1) and what was expected.
MALFORMED = [
    ("state", "line 1 column 1: name 'state' has no value"),
    ("state ", "line 1 column 7: expected a value, found the end of the text"),
    ("state\nurl x", "line 1 column 1: name 'state' has no value"),
    (" state Original", "line 1 column 1: expected a name, found a space"),
    ("{a b} c", "line 1 column 1: expected a name, found '{'"),
    ("a b  c d", "line 1 column 5: expected a name, found a space"),
    ("a b\n\nc d", "line 2 column 1: expected a name, found a line feed"),
    ("a b\rc d", "line 1 column 4: expected a space or a line break, found a carriage return"),
    ("a b ", "line 1 column 4: the text ends with a space"),
    ("a {b c", "line 1 column 3: this '{' is never closed"),
    ("a {b ", "line 1 column 3: this '{' is never closed"),
    ("a {", "line 1 column 3: this '{' is never closed"),
    ("a b}", "line 1 column 4: expected a space or a line break, found '}'"),
    ("a b{c}", "line 1 column 4: expected a space or a line break, found '{'"),
    ("a { b}", "line 1 column 4: expected a word, found a space"),
    ("a {b\nc}", "line 1 column 5: expected a space or '}', found a line feed"),
    ("a {b {c}}", "line 1 column 6: expected a word, found '{'"),
    ("a\tb",
     "line 1 column 2: expected a space, found '\\t', which a word cannot hold (write it %XX)"),
    ("a Relatório",
     "line 1 column 8: expected a space or a line break, found 'ó', which a word cannot hold "
     "(write it %XX)"),
    ("a b\x7f",
     "line 1 column 4: expected a space or a line break, found '\\x7f', which a word cannot "
     "hold (write it %XX)"),
    ("a b\nc d\ne {f g", "line 3 column 3: this '{' is never closed"),
    ("a b\r\nc d\r\n  e f", "line 3 column 1: expected a name, found a space"),
    ("a b\nc\td",
     "line 2 column 2: expected a space, found '\\t', which a word cannot hold (write it %XX)"),
    ("a b\r\nc d\r\n\r\n", "line 3 column 1: expected a name, found a carriage return"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED)
def test_it_refuses_malformed_pair_lists(text, message):
    with pytest.raises(PairListError) as caught:
        loads(text)

    assert str(caught.value) == f"pair list, {message}"


def test_it_refuses_to_write_a_bad_name_or_an_empty_word():
    for pairs, message in [([("bad name", "x")], "name 'bad name' is not a word of Table 6.2"),
                           ([("", "x")], "name '' is not a word of Table 6.2"),
                           ([("n", ["a", ""])], "a word cannot be empty")]:
        with pytest.raises(PairListError) as caught:
            dumps(pairs)
        assert str(caught.value) == message


def test_to_dict_refuses_a_name_given_twice():
    with pytest.raises(PairListError, match="'state' appears twice"):
        to_dict(loads("state Original state Copy"))


def _normal(value):
    return value[0] if isinstance(value, list) and len(value) == 1 else value


@given(st.lists(st.tuples(words, values)))
def test_words_survive_a_round_trip(pairs):
    assert loads(dumps(pairs)) == [(name, _normal(value)) for name, value in pairs]


@given(st.lists(st.tuples(words, values)))
def test_writing_what_was_read_gives_the_same_text(pairs):
    text = dumps(pairs)

    assert dumps(loads(text)) == text


@given(st.text(min_size=1))
def test_any_text_survives_encode_value(text):
    [(_, value)] = loads(dumps([("title", encode_value(text))]))

    assert isinstance(value, str)
    assert unquote_word(value) == text


@given(words, st.lists(st.text(min_size=1).filter(lambda w: "%" not in w and " " not in w),
                       min_size=2, max_size=4))
def test_unicode_words_survive_dumps_and_unquote(name, value):
    [(read_name, read_value)] = loads(dumps([(name, value)]))

    assert read_name == name
    assert [unquote_word(w) for w in read_value] == value


@given(st.text())
def test_loads_only_ever_raises_pair_list_error(text):
    try:
        loads(text)
    except PairListError:
        pass


def test_it_runs_the_module_examples() -> None:
    # tests/test_docstrings.py runs them with every module's; run here too because `make
    # mutation` runs this file alone against the module's mutants.
    assert doctest.testmod(pairs_module).failed == 0
