"""DSpace 7's OpenAIRE citation fields (oaire.citation.title, .volume, .issue, .startPage,
.endPage), where a DSpace 7 article says where it appeared (issue 43). Literal rows: history,
never today's seed (archive/registry/data/openaire4-types.xml holds the same for ensure_seeded).
No simple Dublin Core element: the citations read them by name (archive/metadata/citing.py)."""
from django.db import migrations

NAMESPACE = "http://namespace.openaire.eu/schema/oaire/"
FIELDS = (
    ("title", "Title of the journal, book or proceedings the work appeared in.",
     "Journal or book title", "Título do periódico ou livro"),
    ("volume", "Volume of the journal the work appeared in.", "Volume", "Volume"),
    ("issue", "Issue of the journal the work appeared in.", "Issue", "Número (fascículo)"),
    ("startPage", "First page of the work in the journal, book or proceedings.", "First page",
     "Página inicial"),
    ("endPage", "Last page of the work in the journal, book or proceedings.", "Last page",
     "Página final"),
)


def add(apps, schema_editor):
    Schema = apps.get_model("archive", "MetadataSchema")
    Field = apps.get_model("archive", "MetadataField")
    schema = Schema.objects.get_or_create(name="oaire", defaults={"namespace": NAMESPACE})[0]
    for qualifier, note, en, pt in FIELDS:
        Field.objects.get_or_create(schema=schema, element="citation", qualifier=qualifier,
                                    defaults={"scope_note": note, "label_en": en,
                                              "label_pt_br": pt, "dc_element": ""})


def remove(apps, schema_editor):
    Field = apps.get_model("archive", "MetadataField")
    Field.objects.filter(schema__name="oaire", element="citation",
                         qualifier__in=[f[0] for f in FIELDS], values__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("archive", "0032_item_collection_required")]
    operations = [migrations.RunPython(add, remove)]
