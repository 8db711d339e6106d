"""Downloads at /col/<repository name>/doc/<file>, from the local default storage."""
from __future__ import annotations

import hashlib
import subprocess
from datetime import UTC, datetime
from urllib.parse import quote, urlsplit

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils.http import http_date
from werkzeug.http import parse_options_header

from archive.deposit import services, storage
from archive.deposit.links import file_url
from archive.models import DailyAccessCount, ItemFile
from tests import factories as make

PDF = b"%PDF-1.4\n" + bytes(range(256)) * 40 + b"\n%%EOF\n"

pytestmark = pytest.mark.django_db


def stored_as(item, name: str, ctype: str):
    """The row as an older version of the deposit stored it: the client's type, unchecked.
    Downloads must be safe whatever a row says (archive.deposit.content_types decides now)."""
    ItemFile.objects.filter(item=item, name=name).update(content_type=ctype)
    return item


def path(item, name: str) -> str:
    return f"/col/{item.ibi}/doc/{quote(name)}"


def body(response) -> bytes:
    return b"".join(response.streaming_content)


def downloads(item) -> int:
    return make.counts(item.pk)["downloads"]


@pytest.fixture
def report():
    return make.item(("report.pdf", PDF, "application/pdf"), title="A report")


def test_it_streams_the_file_with_its_type_checksum_and_date(client, report):
    response = client.get(path(report, "report.pdf"))
    assert response.status_code == 200
    assert response.streaming
    assert body(response) == PDF
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Length"] == str(len(PDF))
    assert response["Content-Disposition"] == 'inline; filename="report.pdf"'
    assert response["ETag"] == f'"{hashlib.sha256(PDF).hexdigest()}"'
    created = report.files.get().created
    assert response["Last-Modified"] == http_date(int(created.timestamp()))
    assert response["Accept-Ranges"] == "bytes"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_the_url_handed_out_by_links_is_the_one_served(client, report):
    url = file_url(report.ibi, "report.pdf")
    response = client.get(urlsplit(url).path)
    assert response.status_code == 200


@pytest.mark.parametrize("name", [
    'a "quoted" name.txt',
    "semi ; filename=evil.html",
    "Relatório Final “2013” — çà.pdf",
    "日本語のファイル.txt",
    "100% #1 ?x=y&z.pdf",
    "x" * 200 + ".txt",
])
def test_any_file_name_round_trips_through_the_url_and_the_disposition(client, name):
    item = stored_as(make.item((name, b"bytes", "text/plain"), title="A report"), name,
                     "text/plain")
    response = client.get(path(item, name))
    assert response.status_code == 200
    assert body(response) == b"bytes"
    header = response["Content-Disposition"]
    assert "\n" not in header and "\r" not in header
    kind, params = parse_options_header(header)
    assert kind == "inline"
    assert params["filename"] == name


def test_behind_nginx_a_download_is_handed_over_and_counted(reader, settings):
    settings.IBI_ACCEL_REDIRECT = "/_protected/"
    item = make.item(("Relatório Final.pdf", PDF, "application/pdf"), title="A report")

    response = reader.get(path(item, "Relatório Final.pdf"))

    assert response.status_code == 200 and response.content == b""
    assert response["X-Accel-Redirect"] == (
        f"/_protected/col/{item.ibi}/doc/Relat%C3%B3rio%20Final.pdf")
    assert response["ETag"] == f'"{hashlib.sha256(PDF).hexdigest()}"'
    assert downloads(item) == 1
    ranged = reader.get(path(item, "Relatório Final.pdf"), HTTP_RANGE="bytes=0-9")
    assert ranged["X-Accel-Redirect"] and downloads(item) == 1  # a range is no new download


def test_a_file_name_with_non_ascii_uses_rfc_8187_and_an_ascii_fallback(client):
    item = make.item(("Relatório Final.pdf", PDF, "application/pdf"), title="A report")
    response = client.get(path(item, "Relatório Final.pdf"))
    assert response["Content-Disposition"] == (
        "inline; filename=\"Relatorio Final.pdf\"; filename*=UTF-8''Relat%C3%B3rio%20Final.pdf")


def test_curl_remote_header_name_saves_the_ascii_fallback(live_server, tmp_path):
    """curl -OJ reads only filename=: it saves the file under the fallback name, not under the
    last segment of the URL."""
    item = make.item(("Relatório Final.pdf", PDF, "application/pdf"), title="A report")
    url = live_server.url + path(item, "Relatório Final.pdf")

    saved = tmp_path / "saved"
    saved.mkdir()

    subprocess.run(["curl", "-sSfOJ", url], cwd=saved, check=True, timeout=30)

    assert [p.name for p in saved.iterdir()] == ["Relatorio Final.pdf"]
    assert (saved / "Relatorio Final.pdf").read_bytes() == PDF


@pytest.mark.parametrize(("name", "ctype"), [
    ("page.html", "text/html"),
    ("page.xhtml", "application/xhtml+xml"),
    ("drawing.svg", "image/svg+xml"),
    ("data.xml", "text/xml"),
    ("data2.xml", "application/xml"),
    ("run.js", "text/javascript"),
    ("blob.bin", "application/x-unknown-thing"),
    ("injected.txt", "text/html\r\nX-Evil: 1"),
    ("no-type", ""),
])
def test_what_a_browser_could_run_is_an_attachment_never_sniffed(client, name, ctype):
    item = stored_as(make.item((name, b"<script>alert(1)</script>", ctype), title="A report"),
                     name, ctype)
    response = client.get(path(item, name))
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "X-Evil" not in response
    assert "\n" not in response["Content-Type"]


def test_the_stored_type_is_sent_with_a_clean_charset(client):
    item = make.item(("notes.txt", "olá".encode(), "Text/Plain; charset=UTF-8; x=\"y\""),
                     title="A report")
    response = client.get(path(item, "notes.txt"))
    assert response["Content-Type"] == "text/plain; charset=UTF-8"
    assert response["Content-Disposition"].startswith("inline;")


def test_if_none_match_and_if_modified_since_answer_304(reader, report):
    url = path(report, "report.pdf")
    etag = reader.get(url)["ETag"]
    counted = downloads(report)

    response = reader.get(url, headers={"If-None-Match": etag})
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag

    later = http_date(int(report.files.get().created.timestamp()) + 60)
    assert reader.get(url, headers={"If-Modified-Since": later}).status_code == 304
    # Another reader: the same one within 30 s would be a double click (COUNTER R5).
    assert reader.get(url, headers={"If-None-Match": '"other"'},
                      REMOTE_ADDR="203.0.113.8").status_code == 200
    assert reader.head(url, headers={"If-None-Match": etag}).status_code == 304
    assert downloads(report) == counted + 1


def test_a_single_range_answers_206(client, report):
    response = client.get(path(report, "report.pdf"), headers={"Range": "bytes=2-9"})
    assert response.status_code == 206
    assert body(response) == PDF[2:10]
    assert response["Content-Range"] == f"bytes 2-9/{len(PDF)}"
    assert response["Content-Length"] == "8"
    assert response["Content-Type"] == "application/pdf"


@pytest.mark.parametrize(("header", "start", "stop"), [
    ("bytes=-7", -7, None),
    ("bytes=100-", 100, None),
    ("bytes=10-999999", 10, None),
    ("bytes=-999999", 0, None),
])
def test_open_and_suffix_ranges(client, report, header, start, stop):
    response = client.get(path(report, "report.pdf"), headers={"Range": header})
    assert response.status_code == 206
    expected = PDF[start:stop]
    assert body(response) == expected
    first = len(PDF) - len(expected)
    assert response["Content-Range"] == f"bytes {first}-{len(PDF) - 1}/{len(PDF)}"


def test_an_unsatisfiable_range_answers_416(client, report):
    response = client.get(path(report, "report.pdf"), headers={"Range": f"bytes={len(PDF)}-"})
    assert response.status_code == 416
    assert response["Content-Range"] == f"bytes */{len(PDF)}"


@pytest.mark.parametrize("header", ["bytes=0-1,5-6", "bytes=9-2", "lines=1-2", "bytes=x"])
def test_several_or_malformed_ranges_get_the_whole_file(client, report, header):
    response = client.get(path(report, "report.pdf"), headers={"Range": header})
    assert response.status_code == 200
    assert body(response) == PDF


def test_if_range_only_honours_the_current_validator(client, report):
    url = path(report, "report.pdf")
    etag = client.get(url)["ETag"]
    stale = client.get(url, headers={"Range": "bytes=0-3", "If-Range": '"stale"'})
    assert stale.status_code == 200 and body(stale) == PDF
    fresh = client.get(url, headers={"Range": "bytes=0-3", "If-Range": etag})
    assert fresh.status_code == 206 and body(fresh) == PDF[:4]


def test_head_gives_the_headers_without_a_body_or_a_count(client, report):
    response = client.head(path(report, "report.pdf"))
    assert response.status_code == 200
    assert response.content == b""
    assert response["Content-Length"] == str(len(PDF))
    assert response["Content-Type"] == "application/pdf"
    assert response["ETag"] == f'"{hashlib.sha256(PDF).hexdigest()}"'
    assert downloads(report) == 0


def test_only_get_and_head(client, report):
    assert client.post(path(report, "report.pdf")).status_code == 405
    assert client.delete(path(report, "report.pdf")).status_code == 405


def test_a_deleted_item_is_gone(client, report):
    services.item_delete(item=report)
    response = client.get(path(report, "report.pdf"))
    assert response.status_code == 410
    assert PDF not in response.content
    assert client.head(path(report, "report.pdf")).status_code == 410


def test_each_full_download_is_counted_once_on_its_utc_day_without_the_address(reader, report):
    url = path(report, "report.pdf")
    before = datetime.now(UTC).date()
    reader.get(url, REMOTE_ADDR="203.0.113.7")
    reader.get(url, headers={"Range": "bytes=0-1"}, REMOTE_ADDR="203.0.113.9")
    reader.head(url, REMOTE_ADDR="203.0.113.10")
    assert make.counts(report.pk) == {"downloads": 1, "acknowledgments": 0, "total": 1}
    count = DailyAccessCount.objects.get(item=report)
    assert (count.kind, count.n) == ("download", 1)
    assert before <= count.day <= datetime.now(UTC).date()


def test_path_tricks_never_serve_anything_else(client, report):
    other = make.item(("other.txt", b"the other item", "text/plain"), title="A report")
    rep = report.ibi
    # Bytes under the item's folder that no ItemFile row names must stay unreachable.
    default_storage.save(f"col/{rep}/doc/unlisted.txt", ContentFile(b"not deposited"))
    default_storage.save(f"col/{rep}/secret.txt", ContentFile(b"outside doc"))
    tricks = [
        f"/col/{rep}/doc/../../x",
        f"/col/{rep}/doc/../secret.txt",
        f"/col/{rep}/doc/%2e%2e/secret.txt",
        f"/col/{rep}/doc/%2e%2e%2fsecret.txt",
        f"/col/{rep}/doc/..%5csecret.txt",
        f"/col/{rep}/doc/..",
        f"/col/{rep}/doc/",
        f"/col/{rep}/doc/unlisted.txt",
        f"/col/{rep}/secret.txt",
        f"/col/{rep}/doc/report.pdf/extra",
        f"/col/{rep}/doc/other.txt",
        f"/col/{other.ibi}/doc/report.pdf",
        f"/col/{rep}/../{other.ibi.split('/', 1)[1]}/doc/other.txt",
        f"/col/{report.ibip}/doc/report.pdf",
        "/col/etc/passwd",
        "/col/" + "/".join(["%2e%2e"] * 8) + "/etc/passwd",
    ]
    for trick in tricks:
        response = client.get(trick)
        assert response.status_code in (400, 404), trick
        content = b"" if response.streaming else response.content
        assert b"not deposited" not in content and b"outside doc" not in content
        assert b"the other item" not in content
    assert make.counts(report.pk)["total"] == 0 and not DailyAccessCount.objects.exists()


def test_a_file_missing_from_storage_is_a_404_not_a_500(client, report):
    storage.remove(report.ibi, ["report.pdf"])
    assert client.get(path(report, "report.pdf")).status_code == 404


def test_the_standards_latin_1_escaped_url_still_finds_the_file(client):
    # RTC-11 Example 6.2: .../doc/Relat%f3rio%20Final.pdf
    item = make.item(("Relatório Final.pdf", PDF, "application/pdf"), title="A report")
    response = client.get(f"/col/{item.ibi}/doc/Relat%f3rio%20Final.pdf")
    assert response.status_code == 200
    assert body(response) == PDF
    assert client.get(f"/col/{item.ibi}/doc/Relat%f3rio.pdf").status_code == 404
