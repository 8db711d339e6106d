"""CNPq's whole Tabela de Áreas do Conhecimento in the "cnpq" vocabulary of a database made
when the shipped table (archive/profiles/data/cnpq-areas.tsv, read as 0036 reads it) had the
grand areas, the areas and Computer Science only: the codes it lacks are added, and every
term of the table takes the table's place in the list. A term already there keeps its labels
(a librarian may have edited them); one not in the table (added by hand) comes after it, in
its order. A database made since 0036 had the whole table gets nothing new."""
from pathlib import Path

from django.db import migrations

CNPQ = Path(__file__).resolve().parent.parent / "profiles" / "data" / "cnpq-areas.tsv"


def cnpq_terms():
    for line in CNPQ.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            code, pt, en = (line.split("\t") + ["", ""])[:3]
            yield code.strip(), pt.strip(), en.strip()


def add(apps, schema_editor):
    Vocabulary = apps.get_model("archive", "Vocabulary")
    Term = apps.get_model("archive", "VocabularyTerm")
    vocabulary = Vocabulary.objects.filter(slug="cnpq").first()
    if vocabulary is None:
        return
    table = list(cnpq_terms())
    there = {t.value: t for t in Term.objects.filter(vocabulary=vocabulary)}
    Term.objects.bulk_create(
        Term(vocabulary=vocabulary, value=value, label_pt_br=pt, label_en=en, position=n)
        for n, (value, pt, en) in enumerate(table) if value not in there)
    place = {value: n for n, (value, _pt, _en) in enumerate(table)}
    others = sorted((t for t in there.values() if t.value not in place),
                    key=lambda t: (t.position, t.pk))
    for t in there.values():
        if t.value in place:
            t.position = place[t.value]
    for n, t in enumerate(others, start=len(table)):
        t.position = n
    Term.objects.bulk_update(list(there.values()), ["position"])


class Migration(migrations.Migration):

    dependencies = [("archive", "0040_identifier_lookup")]

    operations = [migrations.RunPython(add, migrations.RunPython.noop)]
