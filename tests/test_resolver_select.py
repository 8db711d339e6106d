"""The resolver's choices (RTC-11 §8.2) on answers written by hand: no database, no network."""
from __future__ import annotations

import pytest

from archive.protocol.pairs import loads, to_dict
from archive.resolver.languages import preferences
from archive.resolver.reading import Answer, Source, find_hop, find_url
from archive.resolver.relations import steps, verbs_of
from archive.resolver.safety import safe_url
from archive.resolver.selection import choose, settles

B = Source("b.example:8001", "example/b/2020/01.01.00.00", archive=1)
C = Source("c.example", "example/c/2020/01.01.00.00", archive=2)
HERE = Source("here.example", "example/here/2020/01.01.00.00")
IBI = "sid.inpe.br/mtc-m18@80/2009/07.21.13.23"  # Example 9.3's item


def answer(source: Source, text: str) -> Answer:
    return Answer(source, to_dict(loads(text)))


# Example 9.3: FiltrarListaDeURL(resposta, "GetTranslation"), with our bare pair added (§9.2).
EXAMPLE_9_3 = """archiveaddress mtc-m16c.sid.inpe.br
contenttype.translation Data
contenttype.translation(en) Data
contenttype.translation(pt) Data
ibi {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23 ibip 8JMKD3MGP8W/35MME4E}
ibi.translation {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23}
ibi.translation(en) {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23}
ibi.translation(pt) {rep sid.inpe.br/mtc-m18@80/2009/08.25.19.43}
state.translation Original
state.translation(en) Original
state.translation(pt) Original
url.translation http://b.example:8001/col/en.pdf
url.translation(en) http://b.example:8001/col/en.pdf
url.translation(pt) http://b.example:8001/col/pt.pdf
urlkey 1426387214-9164566186556927"""


def test_relations_read_as_steps_and_back_to_verbs():
    wanted = steps(".lastedition.translation(pt-BR).metadata(oai_dc)")

    assert wanted == (("lastedition", None), ("translation", "pt-BR"), ("metadata", "oai_dc"))
    assert verbs_of(wanted) == ("GetLastEdition", "GetTranslation(pt-BR)", "GetMetadata(oai_dc)")
    assert steps("") == ()
    assert steps("key") is None and steps(".archiveservice") is None


@pytest.mark.parametrize(("header", "expected"), [
    ("pt-br,fr;q=0.8,en;q=0.5,pt;q=0.3", "pt"),  # Table 8.7: pt-br falls back to pt
    ("en", "en"),
    ("fr, en;q=0.2", "en"),
    ("fr, de", ""),  # nothing acceptable: the original (the bare pair)
    ("", ""),  # no preference: the original
    ("pt;q=0, *", ""),  # "*" prefers the original to an unnamed language
    ("de, pt;q=0.1", "pt"),
    ("pt;q=0, en;q=0.9", "en"),
])
def test_bare_plus_picks_by_accept_language(header, expected):
    hit = find_url(answer(B, EXAMPLE_9_3), steps(".translation"), preferences(header))

    assert hit.relation == (f".translation({expected})" if expected else ".translation")


def test_a_language_refused_with_q_0_is_never_taken():
    pt_only = answer(B, "url.translation(pt) http://b.example:8001/pt.pdf")

    assert find_url(pt_only, steps(".translation"), preferences("en, pt;q=0")) is None


def test_an_archive_without_the_bare_pair_gives_the_original_for_an_unknown_language():
    # Example 8.3: no language the reader accepts → the item in its original language; Example
    # 9.3 gives no bare .translation pair, but ibi.translation(en) names the item itself.
    text = "\n".join(line for line in EXAMPLE_9_3.splitlines()
                     if not line.split()[0].endswith(".translation"))

    fallback = find_url(answer(B, text), steps(".translation"), preferences("fr"))
    assert (fallback.relation, fallback.url) == (".translation(en)",
                                                 "http://b.example:8001/col/en.pdf")
    assert find_url(answer(B, text), steps(".translation"), preferences("pt")).url.endswith(
        "pt.pdf")
    # Nothing says which translation is the item itself: nothing to fall back on.
    foreign = "\n".join(line for line in text.splitlines() if "translation(en)" not in line)
    assert find_url(answer(B, foreign), steps(".translation"), preferences("fr")) is None
    # The item's own URL is its original-language version too.
    plain = answer(B, "url http://b.example:8001/col/en.pdf\n"
                      "url.translation(pt) http://b.example:8001/col/pt.pdf")
    assert find_url(plain, steps(".translation"), preferences("fr")).relation == ""


def test_an_explicit_language_takes_only_that_pair():
    given = answer(B, EXAMPLE_9_3)

    assert find_url(given, steps(".translation(pt)"), []).url.endswith("/pt.pdf")
    assert find_url(given, steps(".translation(de)"), []) is None


def test_a_bare_translation_of_metadata_may_be_the_metadata_themselves():
    # "+:+" sent as a verb list "without repetition" is answered as "+:" (§8.2).
    given = answer(B, "url.translation(pt).metadata http://b.example:8001/items/pt/metadata\n"
                      "url.translation.metadata http://b.example:8001/items/en/metadata")

    hit = find_url(given, steps(".translation.metadata.translation"), preferences("pt"))

    assert hit.relation == ".translation(pt).metadata"


def test_the_original_required_takes_the_one_archive_claiming_it():
    copy = answer(C, "ibi {rep x/y/2020/01.01.00.00}\nstate Copy\nurl http://c.example/copy.pdf")
    original = answer(B, "state Original\nurl http://b.example:8001/original.pdf")

    chosen = choose([copy, original], (), [], original=True)

    assert chosen.kind == "found" and chosen.answer is original
    assert choose([copy, original], (), [], original=False).answer is copy  # first answer


def test_two_originals_are_suspects():
    first = answer(B, "state Original\nurl http://b.example:8001/a.pdf")
    second = answer(C, "state Original\nurl http://c.example/a.pdf")
    tombstone = answer(C, "state Deleted\ntimestamp 2020-01-01T00:00:00Z")

    assert choose([first, second], (), [], original=True).suspects == [first, second]
    assert choose([first, tombstone], (), [], original=True).kind == "conflict"


def test_only_copies_when_the_original_is_required():
    copy = answer(C, "state Copy\nurl http://c.example/copy.pdf")

    chosen = choose([copy], (), [], original=True)

    assert chosen.kind == "copies_only" and chosen.suspects == [copy]


# -- Our own answer: does it settle the round, or must the other Archives be asked? ----------

ITEM = "example/here/2020/01.01.00.00"
COPY_OF_FIRST = f"""ibi {{rep {ITEM}}}
state Copy
url http://here.example/col/first.pdf
state.lastedition Copy
ibi.lastedition {{rep {ITEM}}}
url.lastedition http://here.example/col/first.pdf
state.translation(en) Copy
ibi.translation(en) {{rep {ITEM}}}
url.translation(en) http://here.example/col/first.pdf
state.metadata Copy
url.metadata http://here.example/items/first/metadata"""


def settled(text: str, held: str, relation: str, *, original: bool = False) -> bool:
    wanted = steps(relation)
    return settles(choose([answer(HERE, text)], wanted, [], original=original), held, wanted,
                   original=original)


@pytest.mark.parametrize("relation", ["", ".lastedition", ".translation(en)", ".metadata"])
def test_an_originals_url_settles_every_request_but_one_for_the_original(relation):
    text = COPY_OF_FIRST.replace("Copy", "Original")

    assert settled(text, "Original", relation)
    # §8.2 step 3 analyses every answer: a rival claiming the Original must be heard (#25, 3.).
    assert not settled(text, "Original", relation, original=True)


def test_a_copy_settles_a_request_for_the_item_itself():
    assert settled(COPY_OF_FIRST, "Copy", "")


@pytest.mark.parametrize("relation", [".lastedition", ".translation(en)", ".metadata"])
def test_a_copy_does_not_settle_a_relation_its_original_may_have_changed(relation):
    assert not settled(COPY_OF_FIRST, "Copy", relation)


@pytest.mark.parametrize("relation", ["", ".lastedition"])
def test_a_copy_never_settles_when_the_original_is_required(relation):
    # For the last edition the Copy names itself: a hop back to itself, nothing new here.
    assert not settled(COPY_OF_FIRST, "Copy", relation, original=True)


def test_a_copy_without_the_translation_asked_does_not_settle_but_an_original_does():
    # Our Copy has no pt: its Original may have one now. Our Original has none: nobody has.
    text = f"ibi {{rep {ITEM}}}"

    assert not settled(text, "Copy", ".translation(pt)")
    assert settled(text, "Original", ".translation(pt)")


def test_a_copy_naming_another_item_of_its_originals_relations_settles_on_the_hop():
    # The hop is asked of every Archive in its turn: the local answer has done its part.
    text = (f"ibi {{rep {ITEM}}}\nibi.nextedition {{rep example/b/2021/01.01.00.00}}\n"
            "ibi.translation(pt) {rep example/b/2021/02.02.00.00}")

    assert settled(text, "Copy", ".lastedition")
    assert not settled(text, "Copy", ".lastedition", original=True)
    assert settled(text, "Copy", ".translation(pt)")


def test_a_tombstone_settles_whoever_holds_it_unless_the_original_is_required():
    text = f"ibi {{rep {ITEM}}}\nstate Deleted\ntimestamp 2020-01-01T00:00:00Z"

    assert settled(text, "Deleted", ".lastedition")
    assert not settled(text, "Deleted", "", original=True)


def test_for_a_relation_an_originals_url_goes_before_a_copys():
    here = answer(HERE, COPY_OF_FIRST)
    there = answer(B, "state Original\nurl http://b.example:8001/col/first.pdf\n"
                      "state.lastedition Original\n"
                      "url.lastedition http://b.example:8001/col/third.pdf")

    assert choose([here, there], steps(".lastedition"), [], original=False).answer is there
    assert choose([here, there], (), [], original=False).answer is here  # the item itself


def test_a_tombstone_is_the_answer_when_nobody_has_the_url():
    tombstone = answer(B, "ibi {rep x/y/2020/01.01.00.00}\nstate Deleted\n"
                          "timestamp 2020-01-01T00:00:00Z")
    assert choose([tombstone], (), [], original=False).kind == "deleted"


def test_example_10_2_asks_again_with_the_next_edition():
    # The first answer of §10.2: no url.lastedition.metadata(oai_dc), an ibi.nextedition.
    first = answer(B, """archiveaddress mtc-m16c.sid.inpe.br
ibi {rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43 ibip 8JMKD3MGP8W/35MMLL8}
ibi.archiveservice {rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17}
ibi.nextedition {rep sid.inpe.br/mtc-m18/2012/07.12.18.08}
ibi.platformsoftware {rep dpi.inpe.br/banon/1998/08.02.08.56}""")
    wanted = steps(".lastedition.metadata(oai_dc)")

    chosen = choose([first], wanted, [], original=False)

    assert chosen.kind == "hop"
    assert chosen.hop == ("sid.inpe.br/mtc-m18/2012/07.12.18.08", wanted)  # same verbs


def test_a_related_ibi_without_url_is_asked_for_with_the_rest_of_the_verbs():
    # The Portuguese translation is known by its IBI only: ask for it, then its metadata.
    given = answer(B, "ibi {rep a/b/2020/01.01.00.00}\n"
                      "ibi.translation(pt) {rep a/b/2020/01.01.00.01 ibip LK47B6W/362SFKH}")

    assert find_hop(given, steps(".translation(pt).metadata"), []) == (
        "a/b/2020/01.01.00.01", (("metadata", None),))
    assert find_hop(given, steps(".translation(de).metadata"), []) is None


@pytest.mark.parametrize(("url", "ok"), [
    ("http://b.example:8001/col/x/doc/a.pdf", True),
    ("http://B.EXAMPLE:8001/col/x/doc/a.pdf", True),
    ("https://b.example:8001/col/x", True),
    ("http://b.example:8002/col/x", False),  # another port: another server
    ("http://b.example/col/x", False),
    ("//b.example:8001/col/x", False),  # scheme-relative
    ("/col/x", False),  # relative: ours, not the Archive's
    ("http://b.example:8001@evil.example/x", False),  # userinfo
    ("http://evil.example#@b.example:8001/", False),
    ("http:\\\\evil.example\\x", False),  # backslashes
    ("http://evil.example\\@b.example:8001/", False),
    ("javascript:alert(1)//b.example:8001", False),
    ("http://b.example:8001/x\nLocation: http://evil.example/", False),
    ("ftp://b.example:8001/x", False),
])
def test_only_urls_on_the_archives_own_address_are_taken(url, ok):
    assert safe_url(url, "b.example:8001") is ok


@pytest.mark.parametrize(("url", "ok"), [
    ("http://150.163.2.174/col/x", True),  # its archiveip
    ("http://150.163.2.174:80/col/x", True),
    ("http://mtc-m16d.sid.inpe.br:80/col/x", True),  # an explicit :80
    ("http://mtc-m16d.sid.inpe.br:8080/col/x", True),  # the port its answer vouched for
    ("http://150.163.2.174:8080/col/x", True),
    ("http://150.163.2.175/col/x", False),  # a neighbour
    ("http://urlib.net/col/x", False),  # a name it never registered: not looked up
    ("http://evil.example:8080/col/x", False),
])
def test_an_archive_may_use_its_registered_ip_and_a_port_its_answer_vouches_for(url, ok):
    assert safe_url(url, "mtc-m16d.sid.inpe.br", ["150.163.2.174"],
                    vouched="mtc-m16d.sid.inpe.br:8080") is ok


def test_an_answer_cannot_vouch_for_another_host():
    assert not safe_url("http://evil.example/x", "b.example", [], vouched="evil.example")
    assert not safe_url("http://evil.example:8001/x", "b.example:8001", [],
                        vouched="evil.example:8001")
    assert not safe_url("http://b.example:9/x", "b.example:8001", [], vouched="not an address")


def test_port_80_may_be_written_or_not():
    assert safe_url("http://c.example/x", "c.example")
    assert safe_url("http://c.example:80/x", "c.example")
    assert safe_url("https://c.example/x", "c.example")
    assert not safe_url("http://c.example:8080/x", "c.example")


def test_accept_language_is_read_by_the_one_header_reader():
    """werkzeug's parsing (metadata/accept.py): lower case, best first, a tie in the header's
    order, q=0 kept as "not this", an unreadable quality left out, an oversized header none."""
    assert preferences("pt-BR, en;q=0.8, *;q=0.1, fr;q=0") == [
        ("pt-br", 1.0), ("en", 0.8), ("*", 0.1), ("fr", 0.0)]
    assert preferences("*, en") == [("*", 1.0), ("en", 1.0)]
    assert preferences("en;q=2, pt;q=x, es") == [("es", 1.0)]
    assert preferences("en," * 400) == []


def test_a_way_on_back_to_the_item_itself_leaves_the_copys_url_standing():
    """An answer no Copy gave that names, for ``!``, only the item itself (an ibi.lastedition
    pair with no URL) is no way on: the Copy's URL is the answer, not a hop in a circle."""
    copy = answer(B, """archiveaddress b.example:8001
contenttype.lastedition Data
ibi {rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43}
ibi.lastedition {rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43}
state.lastedition Copy
url.lastedition http://b.example:8001/col/x/doc/a.pdf""")
    itself = answer(C, """archiveaddress c.example
ibi {rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43}
ibi.lastedition {rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43}""")

    choice = choose([copy, itself], steps(".lastedition"), preferences(""), original=False)

    assert (choice.kind, choice.hit.url) == ("found", "http://b.example:8001/col/x/doc/a.pdf")
