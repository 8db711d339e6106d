"""The pt-BR catalogue is complete and sound: every string the code marks is translated (none
fuzzy), the committed django.po is what an extraction gives today, the compiled .mo holds all
of it, and every translation keeps its msgid's placeholders.

The extraction runs Django's makemessages (GNU gettext's xgettext: `make test` installs it) on
a scratch tree: links to the project's folders and a copy of locale/, so the committed
catalogue is never written. After a merge of branches that marked new strings this test says
which msgids are new or untranslated.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from babel.messages import checkers
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "locale" / "pt_BR" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")
# As `make messages`: what is not the application is not extracted.
IGNORED = [".venv", "bench", "tests", "docs", "staticfiles", "media", "mutants", "node_modules"]
PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGcoa]")


def read(path: Path):
    with path.open("rb") as file:
        return read_po(file)


def key(message) -> tuple:
    msgid = message.id[0] if isinstance(message.id, tuple | list) else message.id
    context = message.context  # read_mo gives it as bytes
    return (context.decode() if isinstance(context, bytes) else context, msgid)


def entries(catalog) -> dict:
    return {key(m): m for m in catalog if m.id}


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> Path:
    """makemessages -l pt_BR --no-obsolete on a scratch tree; the refreshed django.po."""
    scratch = tmp_path_factory.mktemp("extraction")
    for entry in ROOT.iterdir():
        if entry.name in {"locale", ".git", *IGNORED} or entry.name.startswith("."):
            continue
        (scratch / entry.name).symlink_to(entry)
    shutil.copytree(ROOT / "locale", scratch / "locale")
    from django.conf import settings

    previous, here = settings.LOCALE_PATHS, Path.cwd()
    settings.LOCALE_PATHS = [scratch / "locale"]
    os.chdir(scratch)
    try:
        call_command("makemessages", locale=["pt_BR"], no_obsolete=True, symlinks=True,
                     ignore_patterns=IGNORED, verbosity=0)
    finally:
        os.chdir(here)
        settings.LOCALE_PATHS = previous
    return scratch / "locale" / "pt_BR" / "LC_MESSAGES" / "django.po"


def test_every_marked_string_is_translated_and_none_is_fuzzy(extracted):
    catalog = read(extracted)
    untranslated = sorted(key(m) for m in catalog if m.id and not (
        all(m.string) if isinstance(m.string, tuple) else m.string))
    fuzzy = sorted(key(m) for m in catalog if m.id and m.fuzzy)
    assert untranslated == [], "translate these in locale/pt_BR/LC_MESSAGES/django.po"
    assert fuzzy == [], "check these translations, then remove their fuzzy flag"


def test_the_committed_catalogue_is_up_to_date_with_the_code(extracted):
    """`make messages` would add or remove nothing: no new msgid, no obsolete one."""
    committed, fresh = set(entries(read(PO))), set(entries(read(extracted)))
    assert sorted(fresh - committed, key=str) == [], "new strings: run `make messages`"
    assert sorted(committed - fresh, key=str) == [], "gone from the code: run `make messages`"


def test_the_compiled_catalogue_holds_every_translation():
    """The .mo `make setup` compiles (Babel) has as many messages as the .po translates."""
    assert MO.exists(), "compile the catalogue: make setup"
    with MO.open("rb") as file:
        compiled = {key(m) for m in read_mo(file) if m.id}
    translated = {k for k, m in entries(read(PO)).items() if m.string and not m.fuzzy}
    assert len(compiled) == len(translated) and compiled == translated, (
        "the .mo is stale: make setup")


def placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text.replace("%%", "")))


def test_every_translation_keeps_the_placeholders_of_its_msgid():
    for message in entries(read(PO)).values():
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        expected = placeholders(ids[-1])  # a plural's forms keep the plural msgid's
        for string in strings:
            if "%(" in ids[-1]:
                assert placeholders(string) == expected, (message.id, string)
            else:  # positional: as many, in the same order
                assert PLACEHOLDER.findall(string.replace("%%", "")) == PLACEHOLDER.findall(
                    ids[-1].replace("%%", "")), (message.id, string)


def test_the_python_format_flag_marks_exactly_the_messages_with_placeholders():
    catalog = read(PO)
    for message in entries(catalog).values():
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        has = any(placeholders(text) for text in ids)
        assert message.python_format == has, (message.id, message.flags)
        if message.python_format:
            # Babel's own checker: the msgstr's directives fit the msgid's.
            checkers.python_format(catalog, message)
