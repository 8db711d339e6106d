"""Migrations 0027-0029 (issue 34) on a populated copy: today's Dublin Core values become
values of dc.<element> with no qualifier, their ORCID iDs their authorities, and nothing is
lost; the search and change-token triggers still fire on the table afterwards."""
from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.db import connection

from tests import factories as make

pytestmark = pytest.mark.django_db(transaction=True)

DATA = Path(__file__).resolve().parent.parent / "archive" / "registry" / "data"
BEFORE = [("archive", "0026_staged_write")]
AFTER = [("archive", "0029_metadata_value_field_required")]

DCMES = ("title", "creator", "subject", "description", "publisher", "contributor", "date", "type",
         "format", "identifier", "source", "language", "relation", "coverage", "rights")
ROWS = [  # element, value, position, orcid
    ("creator", "Silva, Maria", 0, "0000-0002-1825-0097"),
    ("creator", "Souza, João", 1, ""),
    ("contributor", "Pereira, Ana", 0, ""),
    ("subject", "Ciência da informação", 0, ""),
    ("subject", "Repositórios", 1, ""),
    ("description", "Um resumo com acentuação e\nduas linhas.", 0, ""),
    ("date", "2013-09", 0, ""),
    ("type", "http://purl.org/coar/resource_type/c_bdcc", 0, ""),
    ("rights", "https://creativecommons.org/licenses/by/4.0/", 0, ""),
    ("publisher", "UFRGS", 0, ""),
    ("identifier", "https://doi.org/10.1000/182", 0, ""),
    ("relation", "https://example.org/other", 0, ""),
    ("coverage", "Porto Alegre", 0, ""),
    ("source", "Anais", 0, ""),
    ("format", "120 p.", 0, ""),
]


@pytest.fixture
def old_apps():
    yield from make.at_migration(BEFORE)


def _populate(apps):
    Item = apps.get_model("archive", "Item")
    DcValue = apps.get_model("archive", "DcValue")
    items = [Item.objects.create(ibi=f"archive.localhost/item{n}", ibip=f"ip{n}",
                                 title=f"Tese {n}", language="pt-BR") for n in range(3)]
    for item in items:
        DcValue.objects.bulk_create(
            DcValue(item=item, element=e, value=v, position=p, orcid=o) for e, v, p, o in ROWS)
    return {item.pk: sorted((e, v, p, o) for e, v, p, o in ROWS) for item in items}


def test_every_value_becomes_a_dc_value_with_no_qualifier_and_nothing_is_lost(old_apps):
    before = _populate(old_apps)
    new = make.migrate_to(AFTER)
    DcValue = new.get_model("archive", "DcValue")
    after: dict[int, list] = {}
    for row in DcValue.objects.select_related("field__schema").order_by("id"):
        assert (row.field.schema.name, row.field.element, row.field.qualifier) == (
            "dc", row.element, "")
        assert row.language == ""
        after.setdefault(row.item_id, []).append(
            (row.element, row.value, row.position, row.authority))
        assert row.confidence == (600 if row.authority else -1)
    for k, v in before.items():
        assert sorted(after[k]) == v
    assert DcValue.objects.filter(field__isnull=True).count() == 0


def test_the_registry_holds_dspaces_fields_and_the_thesis_fields(old_apps):
    new = make.migrate_to(AFTER)
    Field = new.get_model("archive", "MetadataField")
    names = {".".join(p for p in (f.schema.name, f.element, f.qualifier) if p): f
             for f in Field.objects.select_related("schema")}
    # Every field of DSpace 7.6.7's files (read here on their own), and no other but ours.
    shipped = set()
    for name in ("dublin-core-types.xml", "dcterms-types.xml", "ibi-types.xml"):
        for node in ET.parse(DATA / name).getroot().iter("dc-type"):
            shipped.add(".".join(p for p in (node.findtext("schema"), node.findtext("element"),
                                             node.findtext("qualifier")) if p))
    assert set(names) == shipped
    assert len(shipped) == 70 + 55 + 10  # DSpace 7.6.7: dc 70, dcterms 55; ours 10
    for name in ("dc.contributor.advisor", "dc.contributor.advisor-co", "dc.contributor.referee",
                 "dc.publisher.program", "dc.publisher.department", "dc.publisher.initials",
                 "dc.publisher.country", "dc.subject.cnpq", "dc.identifier.citation",
                 "dc.description.abstract", "dc.date.issued", "local.degree.level",
                 *(f"dc.{element}" for element in DCMES)):
        assert name in names, name
    assert names["dc.contributor.advisor"].dc_element == "contributor"
    assert names["dc.contributor.author"].dc_element == "creator"
    assert names["dcterms.abstract"].dc_element == "description"
    assert names["dc.date.accessioned"].dc_element == ""
    assert names["local.degree.level"].dc_element == ""
    assert names["dc.contributor.advisor"].label_pt_br == "Orientador"


def test_the_triggers_still_fire_after_the_migration(old_apps):
    _populate(old_apps)
    make.migrate_to(AFTER)
    with connection.cursor() as cursor:
        cursor.execute("SELECT token FROM archive_changes WHERE id = 1")
        token = cursor.fetchone()[0]
        cursor.execute("UPDATE archive_dcvalue SET value = 'Lins, Rui' WHERE value = 'Souza, João'")
        cursor.execute("SELECT token FROM archive_changes WHERE id = 1")
        assert cursor.fetchone()[0] != token


def test_the_migration_goes_back_with_the_orcid_ids(old_apps):
    _populate(old_apps)
    make.migrate_to(AFTER)
    old = make.migrate_to(BEFORE)
    DcValue = old.get_model("archive", "DcValue")
    assert DcValue.objects.filter(orcid="0000-0002-1825-0097").count() == 3
    assert DcValue.objects.count() == 3 * len(ROWS)


# The migration on PostgreSQL too (the suite's database is SQLite unless DATABASE_URL says):
# an empty throw-away database migrated to 0026, as an installation of that time was made,
# populated there as before the registry, then migrated forward, all by a `manage.py shell` of
# its own.
ON_POSTGRES = """
import json
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from tests.test_registry_migration import AFTER, BEFORE, _populate
call_command("migrate", "archive", BEFORE[0][1], verbosity=0)
before = _populate(MigrationExecutor(connection).loader.project_state(BEFORE).apps)
call_command("migrate", verbosity=0)
from archive.models import DcValue
after = {}
for row in DcValue.objects.select_related("field__schema").order_by("id"):
    after.setdefault(row.item_id, []).append(
        [row.field.schema.name, row.field.element, row.field.qualifier, row.language,
         row.value, row.position, row.authority, row.confidence])
print(json.dumps({"vendor": connection.vendor, "before": before, "after": after}))
"""


@pytest.mark.postgres
def test_the_migration_on_postgresql_keeps_every_value(throwaway_postgres, tmp_path):
    from tests.servers import Server

    empty = throwaway_postgres("ibirepo_registry", migrated=False)
    server = Server("pg", tmp_path, {**os.environ, "DATABASE_URL": empty,
                                     "MEDIA_ROOT": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"})
    try:
        found = json.loads(server.shell(ON_POSTGRES).splitlines()[-1])
    finally:
        server.close()
    assert found["vendor"] == "postgresql"
    assert len(found["after"]) == len(found["before"]) == 3
    for item_id, rows in found["before"].items():
        assert sorted((e, v, p, o) for e, v, p, o in rows) == sorted(
            (element, value, position, authority)
            for schema, element, qualifier, language, value, position, authority, _c
            in found["after"][item_id]
            if (schema, qualifier, language) == ("dc", "", ""))
        assert len(found["after"][item_id]) == len(rows)
        assert all(c == (600 if a else -1) for *_r, a, c in found["after"][item_id])
