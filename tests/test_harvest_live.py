"""`manage.py harvest` as a real process: killed mid-run it resumes at its last page; a
harvest from a second Archive of this software on loopback; and a DSpace thesis collection
harvested from it in `dim`, every qualified value kept (issue 34, 5)."""
from __future__ import annotations

import csv
import io
import os
import shutil
import signal
import subprocess
import sys
import threading

import httpx
import pytest
from django.core.management import CommandError, call_command
from sickle import Sickle

from archive.metadata import dim
from archive.models import AlternateIdentifier, HarvestSource, Item, RegisteredArchive
from archive.registry import selectors as registry
from tests import factories as make
from tests.conftest import subprocess_database_url
from tests.servers import FIRST_TOKEN, ROOT, LiveServers, ScriptedOai

ID = "oai:repositorio.example.br:123456789/"


def harvested() -> list[str]:
    return sorted(AlternateIdentifier.objects.filter(scheme="oai")
                  .values_list("value", flat=True))


def items() -> list[Item]:
    return list(Item.objects.filter(is_archive_service=False).order_by("pk"))


@pytest.mark.django_db(transaction=True)
def test_a_harvest_killed_mid_run_resumes_at_its_last_page(media, tmp_path):
    asked_second_page, release = threading.Event(), threading.Event()

    def hold(path, params):
        if params.get("resumptionToken") == FIRST_TOKEN and not release.is_set():
            asked_second_page.set()
            release.wait(60)
            return 500, {}, b"gone"
        return None

    make.oai_collections()  # the collections its records name by Handle
    env = {**os.environ, "DATABASE_URL": subprocess_database_url(), "MEDIA_ROOT": str(media),
           "TMPDIR": str(tmp_path)}
    with ScriptedOai(script=hold) as source:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "harvest", source.base, "--report",
             str(tmp_path / "first.csv")], cwd=ROOT, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert asked_second_page.wait(60), "the harvest never asked for its second page"
            process.send_signal(signal.SIGKILL)  # a crash: no clean-up runs
            process.wait(30)
        finally:
            release.set()
            if process.poll() is None:
                process.kill()
        assert process.returncode == -signal.SIGKILL
        assert HarvestSource.objects.get().resumption_token == FIRST_TOKEN
        assert harvested() == [f"{ID}42", f"{ID}43"]
        source.asked.clear()
        out = io.StringIO()
        call_command("harvest", source.base, "--report", str(tmp_path / "second.csv"),
                     stdout=out, stderr=io.StringIO())
        assert "2 imported" in out.getvalue()
        first = next(p for _path, p in source.asked if p.get("verb") == "ListRecords")
        assert first == {"verb": "ListRecords", "resumptionToken": FIRST_TOKEN}
    assert HarvestSource.objects.get().resumption_token == ""
    assert harvested() == [f"{ID}{n}" for n in (42, 43, 44, 45)] and len(items()) == 4


@pytest.fixture(scope="module")
def origin(tmp_path_factory):
    with LiveServers(tmp_path_factory.mktemp("origin")) as servers:
        yield servers.start("origin")


@pytest.mark.django_db
def test_a_harvest_from_another_archive_of_this_software(origin, tmp_path):
    token = origin.librarian_token()
    kept = make.deposited(origin, token, "Relatório A", ("a.pdf", b"%PDF a"),
                          creator="Banon, Gerald", language="pt-BR", date="2009-02")
    gone = make.deposited(origin, token, "Relatório B", ("b.pdf", b"%PDF b"))
    # Its items carry their IBIs (#41, 5): registered here, it is their Original's Archive,
    # and the harvest keeps them as Copies under those IBIs, minting none.
    RegisteredArchive.objects.create(archive_service_ibi=origin.archive_service_ibi(),
                                     key_hash="x" * 64, address=origin.address)
    out = io.StringIO()
    call_command("harvest", f"{origin.url}/oai", "--report", str(tmp_path / "a.csv"),
                 stdout=out, stderr=io.StringIO())
    assert "2 imported" in out.getvalue() and "metadata only" in out.getvalue(), out.getvalue()
    first, second = items()
    assert (first.title, first.language, first.dc("creator"), first.dc("date")) == (
        "Relatório A", "pt-BR", ["Banon, Gerald"], ["2009-02"])
    assert (first.ibi, first.ibip, first.state, first.source_archive) == (
        kept["ibi"], kept["ibip"], "Copy", origin.url)
    assert [f.name for f in first.files.all()] == ["a.pdf"]
    response = httpx.request("DELETE", f"{origin.url}/api/items/{gone['ibi']}",
                             headers={"Authorization": f"Token {token}"}, timeout=30)
    assert response.status_code == 200, response.text
    out = io.StringIO()
    call_command("harvest", f"{origin.url}/oai", "--report", str(tmp_path / "b.csv"),
                 stdout=out, stderr=io.StringIO())
    assert "1 deleted" in out.getvalue(), out.getvalue()
    second.refresh_from_db()
    assert second.is_deleted and len(items()) == 2


PLACE_AT_ORIGIN = """
from archive.communities import services as tree
from archive.models import Item
from tests import factories as make
unit = make.community("ppg-live")
theses, articles = make.collection("teses-live", unit), make.collection("artigos-live", unit)
thesis = Item.objects.get(ibi="{thesis}")
tree.item_move(item=thesis, collection=theses)
tree.item_map(item=thesis, collections=[articles])
tree.item_move(item=Item.objects.get(ibi="{lost}"), collection=make.collection("so-la", unit))
"""
MOVE_AT_ORIGIN = """
from archive.communities import services as tree
from archive.models import Collection, Item
thesis = Item.objects.get(ibi="{thesis}")
tree.item_move(item=thesis, collection=Collection.objects.get(slug="artigos-live"))
tree.item_map(item=thesis, collections=[])
"""


@pytest.mark.django_db
def test_a_harvest_from_another_archive_keeps_each_items_collections(origin, tmp_path):
    """Issue 34, 6: our OAI-PMH names an item's owning collection first (col_<slug>), then
    those it is mapped into; harvested here, its Copy lands in the collections of those slugs,
    moves when it moved there, and a record naming a collection not here fails alone."""
    token = origin.librarian_token("placing-librarian")
    thesis = make.deposited(origin, token, "Tese colecionada", ("t.pdf", b"%PDF t"))
    lost = make.deposited(origin, token, "Relatório sem lugar", ("r.pdf", b"%PDF r"))
    origin.shell(PLACE_AT_ORIGIN.format(thesis=thesis["ibi"], lost=lost["ibi"]))
    unit = make.community("ppg-live")
    theses, articles = make.collection("teses-live", unit), make.collection("artigos-live", unit)
    RegisteredArchive.objects.create(archive_service_ibi=origin.archive_service_ibi(),
                                     key_hash="x" * 64, address=origin.address)
    out = io.StringIO()
    with pytest.raises(CommandError):  # the record of the collection not here
        call_command("harvest", f"{origin.url}/oai", "--report", str(tmp_path / "a.csv"),
                     stdout=out, stderr=io.StringIO())
    assert "1 failed" in out.getvalue(), out.getvalue()
    with (tmp_path / "a.csv").open(encoding="utf-8") as f:
        rows = {row["source"].rsplit(":", 1)[-1]: row for row in csv.DictReader(f)}
    assert rows[lost["ibi"]]["status"] == "failed" and "so-la" in rows[lost["ibi"]]["reason"]
    copy = Item.objects.get(ibi=thesis["ibi"])
    assert (copy.state, copy.collection) == ("Copy", theses)
    assert list(copy.mapped_collections.all()) == [articles]
    assert not Item.objects.filter(ibi=lost["ibi"]).exists()

    # Moved there (and the other withdrawn): harvested again, the Copy moves too.
    origin.shell(MOVE_AT_ORIGIN.format(thesis=thesis["ibi"]))
    response = httpx.request("DELETE", f"{origin.url}/api/items/{lost['ibi']}",
                             headers={"Authorization": f"Token {token}"}, timeout=30)
    assert response.status_code == 200, response.text
    out = io.StringIO()
    call_command("harvest", f"{origin.url}/oai", "--report", str(tmp_path / "b.csv"),
                 stdout=out, stderr=io.StringIO())
    assert "0 failed" in out.getvalue(), out.getvalue()
    copy.refresh_from_db()
    assert (copy.collection, list(copy.mapped_collections.all())) == (articles, [])
    # The origin outlives the test: its collections are not in the next test's database.
    response = httpx.request("DELETE", f"{origin.url}/api/items/{thesis['ibi']}",
                             headers={"Authorization": f"Token {token}"}, timeout=30)
    assert response.status_code == 200, response.text


# (schema, element, qualifier, language, value, authority, confidence) of an item, by Handle.
VALUES_BY_HANDLE = """
    SELECT s.name, f.element, f.qualifier, v.language, v.value, v.authority, v.confidence
    FROM archive_dcvalue v JOIN archive_metadatafield f ON f.id = v.field_id
    JOIN archive_metadataschema s ON s.id = f.schema_id
    JOIN archive_alternateidentifier a ON a.item_id = v.item_id
    WHERE a.scheme = 'handle' AND a.value = ?"""
THESES = ROOT / "tests" / "data" / "dspace" / "theses"


@pytest.mark.django_db
def test_a_dspace_style_dim_harvest_of_a_thesis_collection_loses_nothing(origin, tmp_path):
    """Issue 34, 5: a DSpace thesis collection imported at the origin is served whole in
    `dim` (read by sickle, as a DSpace, BDTD or Oasisbr harvests it: every value with its
    language, authority and confidence; besides, the item's persistent URL and its access
    right, and its language as dc.language.iso), and harvested here every item has exactly
    the origin's values, title and language."""
    corpus = tmp_path / "theses"
    shutil.copytree(THESES, corpus, ignore=shutil.ignore_patterns("README.md"))
    every_handle = tmp_path / "collections.csv"  # the corpus's collections: one here
    every_handle.write_text("".join(f"123456789/{n},general\n" for n in (1000, 1010, 1020)))
    assert "4 imported" in origin.manage("importsaf", str(corpus), "--map-collections",
                                         str(every_handle)).stdout
    handles = sorted((folder / "handle").read_text().strip() for folder in corpus.iterdir())
    originals = {(folder / "handle").read_text().strip(): {
        line.split("\t")[0] for line in (folder / "contents").read_text().splitlines()
        if "bundle:ORIGINAL" in line} for folder in corpus.iterdir()}
    theirs = {handle: set(origin.query(VALUES_BY_HANDLE, handle)) for handle in handles}

    served = {}
    for record in Sickle(f"{origin.url}/oai").ListRecords(metadataPrefix="dim"):
        rows = {(s, e, q, dim.language_tag(lang), v, a, c)
                for s, e, q, lang, v, a, c in dim.read_dim(record.xml)}
        handle = next((v.removeprefix(dim.HANDLE_PROXY) for _s, _e, q, _l, v, _a, _c in rows
                       if q == "uri" and v.startswith(dim.HANDLE_PROXY)), None)
        served[handle] = rows
    for handle in handles:
        assert theirs[handle] - served[handle] == set(), (handle, theirs[handle] - served[handle])
        assert {(s, e, q) for s, e, q, *_ in served[handle] - theirs[handle]} <= {
            ("dc", "identifier", "uri"), ("dc", "rights", ""), ("dc", "language", "iso")}

    # Its items carry their IBIs: kept here as Copies of the origin's Originals.
    RegisteredArchive.objects.create(archive_service_ibi=origin.archive_service_ibi(),
                                     key_hash="x" * 64, address=origin.address)
    out = io.StringIO()
    call_command("harvest", f"{origin.url}/oai", "--report", str(tmp_path / "dim.csv"),
                 stdout=out, stderr=io.StringIO())
    assert "0 failed" in out.getvalue(), out.getvalue()
    for handle in handles:
        item = AlternateIdentifier.objects.get(scheme="handle", value=handle).item
        assert set(registry.rows_of([item.pk])[item.pk]) == theirs[handle], handle
        assert [(item.title, item.language)] == origin.query(
            "SELECT i.title, i.language FROM archive_item i JOIN archive_alternateidentifier a"
            " ON a.item_id = i.id WHERE a.scheme = 'handle' AND a.value = ?", handle)
        assert {f.name for f in item.files.all()} == originals[handle]
