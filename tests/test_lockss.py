"""LOCKSS manifests for Rede Cariniana: a page per collection and year carrying LOCKSS's
permission statement and a rel="license" link, listing every open item's landing page and
open files, never a closed one; crawled by a real `wget --mirror` against a live server; the
crawler's addresses never rate-limited."""
from __future__ import annotations

import hashlib
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from django.utils import timezone
from lxml import html

from archive.models import AccessRights, Item, ItemFile
from archive.preservation.lockss import PERMISSION
from tests import factories as make

pytestmark = pytest.mark.django_db
STATEMENT = "LOCKSS system has permission to collect, preserve, and serve this Archival Unit"
CRAWLER, OTHER = "192.0.2.10", "198.51.100.7"


def in_year(item: Item, year: int) -> Item:
    Item.objects.filter(pk=item.pk).update(created=item.created.replace(year=year))
    return Item.objects.get(pk=item.pk)


def closed(item: Item, level: str, **fields) -> Item:
    Item.objects.filter(pk=item.pk).update(access_rights=level, **fields)
    return Item.objects.get(pk=item.pk)


@pytest.fixture
def units(media):
    """Theses of 2024 and 2025: open ones (one with a restricted dataset), and closed ones of
    every kind, each closed file's bytes unique."""
    theses = make.collection("teses", make.community("pos"))
    other = make.collection("artigos", make.community("fac"))
    made = {
        "open": make.item(("tese.pdf", b"%PDF open thesis"), ("Anexo A.csv", b"1,2\n"),
                          title="Tese aberta", collection=theses),
        "mixed": make.item(("artigo.pdf", b"%PDF open article"), ("dados.csv", b"secret,rows"),
                           title="Artigo com dados", collection=theses),
        "embargoed": closed(make.item(("e.pdf", b"%PDF embargoed"), title="Embargada",
                                      collection=theses), AccessRights.EMBARGOED,
                            embargo_until=timezone.localdate() + timedelta(days=90)),
        "restricted": closed(make.item(("r.pdf", b"%PDF restricted"), title="Restrita",
                                       collection=theses), AccessRights.RESTRICTED),
        "metadata-only": closed(make.item(("m.pdf", b"%PDF metadata only"), title="Só metadados",
                                          collection=theses), AccessRights.METADATA_ONLY),
        "older": make.item(("old.pdf", b"%PDF of 2024"), title="Tese de 2024",
                           collection=theses),
        "elsewhere": make.item(("x.pdf", b"%PDF other collection"), title="Artigo",
                               collection=other),
    }
    ItemFile.objects.filter(item=made["mixed"], name="dados.csv").update(restricted=True)
    for key in made:
        made[key] = in_year(made[key], 2024 if key == "older" else 2025)
    return made


def page(client, url: str, **headers):
    response = client.get(url, **headers)
    assert response.status_code == 200, (url, response.status_code)
    return response, html.fromstring(response.content)


def test_the_index_names_each_collection_and_year_with_open_items(client, units):
    _response, tree = page(client, "/lockss/")
    assert STATEMENT == PERMISSION and STATEMENT in tree.text_content()
    assert sorted(tree.xpath("//a[starts-with(@href, '/lockss/')]/@href")) == [
        "/lockss/artigos/2025/", "/lockss/teses/2024/", "/lockss/teses/2025/"]


def test_a_manifest_lists_open_landing_pages_and_files_and_nothing_closed(client, units):
    response, tree = page(client, "/lockss/teses/2025/")
    text = response.content.decode()
    assert STATEMENT in tree.text_content()
    assert tree.xpath("//link[@rel='license']/@href") and tree.xpath("//a[@rel='license']/@href")
    links = set(tree.xpath("//a/@href"))
    for key in ("open", "mixed"):
        assert f"http://testserver/items/{units[key].ibi}" in links
    assert f"http://testserver/col/{units['open'].ibi}/doc/tese.pdf" in links
    assert f"http://testserver/col/{units['open'].ibi}/doc/Anexo%20A.csv" in links
    assert f"http://testserver/col/{units['mixed'].ibi}/doc/artigo.pdf" in links
    for key in ("embargoed", "restricted", "metadata-only", "older", "elsewhere"):
        assert units[key].ibi not in text, key
    assert "dados.csv" not in text  # a restricted file of an open item


def test_no_unit_no_manifest(client, units):
    for url in ("/lockss/teses/2023/", "/lockss/nenhuma/2025/"):
        assert client.get(url).status_code == 404


def test_the_crawler_is_never_rate_limited(client, settings, units):
    settings.IBI_LOCKSS_CRAWLERS = ["192.0.2.0/28"]
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "read": "3/minute"}}
    crawler = [client.get("/api/items/", REMOTE_ADDR=CRAWLER, secure=True).status_code
               for _ in range(10)]
    other = [client.get("/api/items/", REMOTE_ADDR=OTHER, secure=True).status_code
             for _ in range(4)]
    assert crawler == [200] * 10 and other == [200, 200, 200, 429]


def mirror(start: str, into: Path) -> None:
    """What a LOCKSS crawl of the unit fetches, as GNU wget does it: from the manifest, its
    links one step deep (the unit's scope), every file kept under the server's paths."""
    subprocess.run([shutil.which("wget"), "--mirror", "--level=1", "--no-verbose",
                    "--no-host-directories", "--directory-prefix", str(into), start],
                   check=False, capture_output=True, timeout=120)


def test_wget_mirrors_every_open_file_of_a_unit_and_no_closed_one(live_site, units, tmp_path,
                                                                   settings):
    settings.IBI_LOCKSS_CRAWLERS = ["127.0.0.1/32"]
    into = tmp_path / "crawl"
    mirror(f"{live_site.url}/lockss/teses/2025/", into)
    fetched = {unquote(str(p.relative_to(into))): p.read_bytes()
               for p in into.rglob("*") if p.is_file()}
    files = {f"col/{f.item.ibi}/doc/{f.name}": f for f in ItemFile.objects.select_related(
        "item").filter(item__collection__slug="teses")}
    open_files = {key for key, f in files.items()
                  if f.item.ibi in (units["open"].ibi, units["mixed"].ibi) and not f.restricted}
    assert len(open_files) == 3
    got = {key for key in fetched if key.startswith("col/")}
    assert got == open_files  # every open file of the unit, and nothing else
    for key in got:
        assert hashlib.sha256(fetched[key]).hexdigest() == files[key].sha256
    assert {f"items/{units['open'].ibi}", f"items/{units['mixed'].ibi}"} <= set(fetched)
    closed_bytes = [b"secret,rows", b"%PDF embargoed", b"%PDF restricted",
                    b"%PDF metadata only"]
    assert not [k for k, data in fetched.items() if any(c in data for c in closed_bytes)]
    assert all(urlsplit(k).path.split("/")[0] in ("lockss", "items", "col", "robots.txt")
               for k in fetched)
