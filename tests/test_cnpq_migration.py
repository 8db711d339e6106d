"""Migration 0040 on a database made when the shipped CNPq table was partial: the codes it
lacked are added in the table's order, a term edited by a librarian keeps its labels, one
added by hand comes after the table."""
from __future__ import annotations

from pathlib import Path

import pytest

from archive.profiles import cnpq
from tests import factories as make

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("archive", "0040_identifier_lookup")]
AFTER = [("archive", "0041_cnpq_full_table")]
PARTIAL = Path(__file__).resolve().parent / "data" / "cnpq" / "areas-before.tsv"


@pytest.fixture
def old_apps():
    yield from make.at_migration(BEFORE)


def test_the_partial_table_becomes_the_whole_one_and_keeps_what_librarians_did(old_apps):
    Term = old_apps.get_model("archive", "VocabularyTerm")
    vocabulary = old_apps.get_model("archive", "Vocabulary").objects.get(slug="cnpq")
    partial = [line.split("\t")[0] for line in PARTIAL.read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.startswith("#")]
    Term.objects.filter(vocabulary=vocabulary).exclude(value__in=partial).delete()
    Term.objects.filter(vocabulary=vocabulary, value="1.03.00.00-7").update(
        label_pt_br="Computação", position=0)
    Term.objects.create(vocabulary=vocabulary, value="local-1", label_pt_br="Área local",
                        position=1)
    assert Term.objects.filter(vocabulary=vocabulary).count() == 105

    new = make.migrate_to(AFTER)
    terms = list(new.get_model("archive", "VocabularyTerm").objects.filter(
        vocabulary__slug="cnpq").order_by("position", "id"))
    assert [t.value for t in terms] == [a.code for a in cnpq.table()] + ["local-1"]
    labels = {t.value: t.label_pt_br for t in terms}
    assert labels["1.03.00.00-7"] == "Computação"
    assert labels["6.01.01.00-8"] == "Teoria do Direito"
