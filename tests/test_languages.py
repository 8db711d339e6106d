"""Language tags: one validator (archive.models.validate_language) for the admin, the API and
the search form, so they refuse the same tags: well formed BCP 47, every subtag registered."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from archive.admin.forms import ItemAdminForm
from archive.models import normalize_language, validate_language
from tests import factories as make

VALID = ["pt-BR", "pt-br", "en", "zh-Hant-TW", "es-419", "sgn-BR", "de-CH-1996", "yue",
         "en-US-x-twain", "EN"]
# pt_BR: a locale name (underscore); english: a word; pt-BRA: a mistyped region (or an extended
# language subtag, written as the language itself: bra); x-private: private use only, which
# means nothing outside this repository; zz, xx-YY: well formed, not registered.
INVALID = ["pt_BR", "english", "pt-BRA", "x-private", "zz", "xx-YY", "i-klingon", "zh-yue",
           "en-", "-en", "en--US", "pt-BR-BR", "pt BR", "en-x"]


@pytest.mark.parametrize("tag", VALID)
def test_it_takes_a_valid_tag(tag):
    validate_language(tag)


@pytest.mark.parametrize("tag", INVALID)
def test_it_refuses_what_is_not_a_valid_tag(tag):
    with pytest.raises(ValidationError):
        validate_language(tag)


def test_an_empty_language_is_no_language_not_a_bad_one():
    validate_language("")


def test_an_underscore_is_refused_with_the_tag_to_write_instead():
    with pytest.raises(ValidationError) as refused:
        validate_language("pt_BR")
    assert refused.value.messages == [
        "pt_BR is a locale name, not a BCP 47 language tag: write pt-BR"]


@pytest.mark.parametrize(("given", "normal"), [
    ("pt-br", "pt-BR"), ("ZH-HANT-tw", "zh-Hant-TW"), ("ES-419", "es-419"),
    ("de-ch-1996", "de-CH-1996"), ("en-us-x-TWAIN", "en-US-x-twain"), ("EN", "en"),
])
def test_it_writes_a_tag_in_the_case_rfc_5646_recommends(given, normal):
    assert normalize_language(given) == normal


@pytest.mark.django_db
@pytest.mark.parametrize("tag", ["pt_BR", "pt-BRA", "x-private", "english"])
def test_the_api_and_the_admin_refuse_the_same_tags(librarian_api, tag):
    answer = make.posted(librarian_api, ("a.txt", b"text", "text/plain"), title="T", language=tag)
    assert answer.status_code == 400 and tag in answer.json()["detail"]
    form = ItemAdminForm(data={"title": "T", "language": tag})
    assert not form.is_valid() and "language" in form.errors


@pytest.mark.django_db
def test_the_api_stores_a_valid_tag_in_its_normal_case(librarian_api):
    answer = make.posted(librarian_api, ("a.txt", b"text", "text/plain"), title="T",
                         language="zh-hant-tw")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["language"] == "zh-Hant-TW"
