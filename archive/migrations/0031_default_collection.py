"""Every item there before collections lands in the default collection, "general", of the
community "repository" (issue 34), both made here. The reverse leaves the items in none and
removes both when nothing else is in them."""
from django.db import migrations

COMMUNITY = {"slug": "repository", "name_pt_br": "Repositório", "name_en": "Repository"}
COLLECTION = {"slug": "general", "name_pt_br": "Coleção geral", "name_en": "General collection"}


def into_default(apps, schema_editor):
    Community = apps.get_model("archive", "Community")
    Collection = apps.get_model("archive", "Collection")
    Item = apps.get_model("archive", "Item")
    community, _ = Community.objects.get_or_create(
        slug=COMMUNITY["slug"], defaults={k: v for k, v in COMMUNITY.items() if k != "slug"})
    collection, _ = Collection.objects.get_or_create(
        slug=COLLECTION["slug"],
        defaults={"community": community,
                  **{k: v for k, v in COLLECTION.items() if k != "slug"}})
    Item.objects.filter(collection__isnull=True).update(collection=collection)


def out_of_default(apps, schema_editor):
    Collection = apps.get_model("archive", "Collection")
    Item = apps.get_model("archive", "Item")
    Item.objects.filter(collection__slug=COLLECTION["slug"]).update(collection=None)
    Collection.objects.filter(slug=COLLECTION["slug"], mapped_items=None).delete()
    Community = apps.get_model("archive", "Community")
    Community.objects.filter(slug=COMMUNITY["slug"], collections=None, children=None).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0030_communities_collections'),
    ]

    operations = [
        migrations.RunPython(into_default, out_of_default),
    ]
