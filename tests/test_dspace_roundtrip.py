"""`manage.py exportsaf`: SAF as DSpace's ItemImport reads it; exported here and imported into a
fresh database of this Archive (another instance with the same identification subsystem, its
own database and files), the same IBIs, metadata, files and checksums (#41, 5: an item that
comes back keeps its IBI, never minted a second one)."""
from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from lxml import etree

from archive.deposit import services
from archive.dspace import saf
from archive.models import Item, MintingState
from tests import factories as make
from tests.servers import LiveServers

pytestmark = pytest.mark.django_db(transaction=True)

SAF = Path(__file__).resolve().parent / "data" / "dspace" / "saf"
# Fields of DSpace's default registry (dspace/config/registries/dublin-core-types.xml, DSpace
# 7.6.7's copy in archive/registry/data) that an export may write, ItemImport refusing a field
# its registry does not have; and the MTD-BR thesis fields (ibi-types.xml, which IBICT's TEDE
# registers) when the item came with them. Values are written under their own field.
_DATA = Path(__file__).resolve().parent.parent / "archive" / "registry" / "data"
DSPACE_REGISTRY = {
    ".".join(p for p in (node.findtext("element"), node.findtext("qualifier")) if p)
    for name in ("dublin-core-types.xml", "ibi-types.xml")
    for node in etree.parse(str(_DATA / name)).iter("dc-type")
    if node.findtext("schema") == "dc"} - {"coverage"}  # written as coverage.spatial


# What a second instance prints of its items: the metadata, the files and their checksums.
DUMP = """
import json
from archive.models import Item, DC_ELEMENTS
out = []
for i in Item.objects.filter(is_archive_service=False).order_by("pk"):
    out.append({"ibi": [i.ibi, i.ibip], "title": i.title, "language": i.language,
                "target": i.target_file,
                "dc": {e: i.dc(e) for e in DC_ELEMENTS if i.dc(e)},
                "files": {f.name: [f.size, f.sha256] for f in i.files.all()},
                "previous": i.previous_edition.title if i.previous_edition else None,
                "handles": sorted(i.alternate_ids.filter(scheme="handle")
                                  .values_list("value", flat=True)),
                "access": [i.access_rights, str(i.embargo_until),
                           sorted(i.files.filter(restricted=True).values_list("name", flat=True))]})
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def second(tmp_path_factory):
    """This Archive again, in a fresh database: its identification subsystem."""
    from django.conf import settings

    with LiveServers(tmp_path_factory.mktemp("second")) as servers:
        yield servers.prepare("b", IBI_HOSTNAME=settings.IBI_HOSTNAME, IBI_IP=settings.IBI_IP,
                              IBI_PORT=str(settings.IBI_PORT),
                              IBI_IP_PORT=str(settings.IBI_IP_PORT))


def one_subsystem(fresh) -> None:
    """The two databases are one identification subsystem at once (a restore is later in
    time, here it is the same minute): what the fresh one minted, its archive service's IBI,
    this one never mints (Algorithm 4 goes on from the later last-date-for-suffix)."""
    theirs = Decimal(fresh.shell("from archive.models import MintingState; "
                                 "print(MintingState.objects.get().last_date_for_suffix)"))
    state, _new = MintingState.objects.get_or_create(name="default")
    if not state.last_date_for_suffix or Decimal(state.last_date_for_suffix) < theirs:
        state.last_date_for_suffix = str(theirs)
        state.save()


def here(item: Item) -> dict:
    return {"ibi": [item.ibi, item.ibip], "title": item.title, "language": item.language,
            "target": item.target_file,
            "dc": {e: item.dc(e) for e in ("creator", "subject", "description", "publisher",
                                          "contributor", "date", "type", "format",
                                          "identifier", "source", "relation", "coverage",
                                          "rights") if item.dc(e)},
            "files": {f.name: [f.size, f.sha256] for f in item.files.all()},
            "previous": item.previous_edition.title if item.previous_edition else None,
            "handles": sorted(item.alternate_ids.filter(scheme="handle")
                              .values_list("value", flat=True)),
            "access": [item.access_rights, str(item.embargo_until), closed_files(item)]}


def closed_files(item: Item) -> list[str]:
    """The files not open to all: every file of an item not open, else the restricted ones
    (an export closes them all to DSpace's administrators, and they come back restricted)."""
    if item.access_rights != "open":
        return sorted(item.files.values_list("name", flat=True))
    return sorted(item.files.filter(restricted=True).values_list("name", flat=True))


def test_an_export_imported_on_a_second_instance_has_the_same_metadata_and_files(
        tmp_path, second):
    one_subsystem(second)
    source = tmp_path / "dspace"
    shutil.copytree(SAF, source)  # an embargoed item and a group's files among them
    collections = tmp_path / "collections.csv"
    collections.write_text("123456789/1,general\n")  # the default collection keeps the Handle
    call_command("importsaf", str(source), "--map-collections", str(collections))
    first = make.item(("relatorio.pdf", b"%PDF-1.7 report"), ("dados.csv", b"a,b\n1,2\n"),
                      title="Relatório técnico", language="pt-BR", target_file="dados.csv",
                      dc={"creator": ["Banon, Gerald", "Banon, Lise"], "date": ["2009-02"],
                          "rights": ["https://creativecommons.org/licenses/by/4.0/",
                                     "Todos os direitos"], "coverage": ["Brasil"],
                          "identifier": ["INPE-15678-RPQ/819", "https://example.org/x"],
                          "type": ["Relatório técnico"], "source": ["Anais"],
                          "format": ["12 p."], "relation": ["Projeto X"]})
    make.item(("relatorio2.pdf", b"%PDF-1.7 second"), title="Relatório técnico, 2ª edição",
              previous_edition=first)
    make.item(bare=True, title="Metadata only")
    services.item_delete(item=make.item(title="Retracted"))
    make.item(("staff.pdf", b"%PDF-1.7 staff"), title="Para a equipe",
              access=services.Access("restricted", reason="uso interno"))
    make.item(("ficha.pdf", b"%PDF-1.7 ficha"), title="Só a ficha",
              access=services.Access("metadata-only"))

    export = tmp_path / "export"
    call_command("exportsaf", str(export))
    folders = sorted(p.name for p in export.iterdir())
    assert len(folders) == 10  # five from DSpace, five deposited; no tombstone

    for folder in export.iterdir():  # as DSpace's ItemImport reads it
        root = etree.fromstring((folder / "dublin_core.xml").read_bytes())
        assert root.tag == "dublin_core" and root.get("schema") == "dc"
        fields = {".".join(p for p in (v.get("element"), v.get("qualifier")) if p != "none")
                  for v in root}
        assert fields <= DSPACE_REGISTRY, fields - DSPACE_REGISTRY
        for line in saf.read_contents((folder / "contents").read_text()):
            assert line.bundle in saf.KEPT_BUNDLES and (folder / line.name).is_file()
        assert (folder / "collections").read_text() == "123456789/1\n"

    second.manage("importsaf", str(export), "--map-collections", str(collections))
    theirs = json.loads(second.shell(DUMP))
    ours = [here(i) for i in Item.objects.filter(is_archive_service=False)
            .exclude(state="Deleted").order_by("pk")]
    assert len(theirs) == len(ours) == 10
    assert {mine["access"][0] for mine in ours} == {"embargoed", "restricted",
                                                    "metadata-only", "open"}
    assert all((level == "embargoed") == (day != "None") for level, day, _f in
               (mine["access"] for mine in ours))
    # Every item under its IBI, both forms; its persistent URL is its IBI, no identifier.
    assert theirs == ours


def test_an_export_never_opens_a_closed_file(tmp_path):
    from datetime import timedelta

    from django.utils import timezone

    closed = make.item(("a.pdf", b"%PDF a"), title="Embargoed", access=services.Access(
        "embargoed", timezone.localdate() + timedelta(days=30)))
    partly = make.item(("open.pdf", b"%PDF o"), ("staff.csv", b"x"), title="Partly",
                       restricted_files=["staff.csv"])
    call_command("exportsaf", str(tmp_path / "out"), closed.ibi, partly.ibi)
    lines = {line.name: line.permissions for folder in (tmp_path / "out").iterdir()
             for line in saf.read_contents((folder / "contents").read_text())}
    assert lines == {"a.pdf": "-r 'Administrator'", "open.pdf": "",
                     "staff.csv": "-r 'Administrator'"}


def test_an_access_right_left_in_an_open_items_rights_is_not_exported(tmp_path):
    """An open item whose dc:rights still says info:eu-repo/semantics/embargoedAccess (its
    embargo lifted since): the export says what its level says, and it comes back open."""
    item = make.item(("a.pdf", b"%PDF a"), title="Lifted", dc={"rights": [
        "info:eu-repo/semantics/embargoedAccess", "Todos os direitos"]})
    call_command("exportsaf", str(tmp_path / "out"), item.ibi)
    (folder,) = (tmp_path / "out").iterdir()
    values = [v.text for v in etree.fromstring((folder / "dublin_core.xml").read_bytes())
              if v.get("element") == "rights"]
    assert values == ["Todos os direitos"]
