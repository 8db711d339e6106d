"""What is inside the files (issue 37, points 1–3 and 6): each file's text page by page once
its deposit commits, OCR of scanned pages (a flagged failure when it reads nothing or
garbage), the sandbox every file is read in (the hostile corpus fails file by file, the
worker goes on), `manage.py extracttext`, and DSpace's TEXT bundle kept as a file's text."""
from __future__ import annotations

import io
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils.html import escape

from archive.deposit import services as deposit
from archive.fulltext import sandbox, services, tasks, text
from archive.models import FileExtraction, FilePage, ItemFile
from tests import factories as make

pytestmark = pytest.mark.django_db

THEMES = Path(__file__).resolve().parent / "data" / "dspace" / "theses" / "item_000"
# A scanned page's words (Portuguese, accents and all): OCR must find 95 % of them.
SCANNED = ("A análise dos dados mostra que a educação pública no Brasil melhorou entre os "
           "anos estudados segundo a pesquisa da universidade federal sobre ciência e "
           "tecnologia")


@pytest.fixture
def extracting(settings, django_capture_on_commit_callbacks, eager_tasks):
    """Text read after each deposit commits, by the task in process (as a worker would)."""
    settings.IBI_EXTRACT_TEXT = True

    def stored(*files, **fields):
        with django_capture_on_commit_callbacks(execute=True):
            return make.item(*files, **fields)
    return stored


def pages_of(item, name: str) -> list[tuple[int, str, str]]:
    return [(p.number, p.text, p.source) for p in FilePage.objects.filter(
        file__item=item, file__name=name).order_by("number")]


def extraction(item, name: str) -> FileExtraction:
    return FileExtraction.objects.get(file__item=item, file__name=name)


def test_a_pdf_is_read_page_by_page_once_its_deposit_commits(extracting):
    item = extracting(("tese.pdf", make.pdf_pages("Introducao ao estudo", "Metodos usados",
                                                  "Resultados finais")))
    assert pages_of(item, "tese.pdf") == [(1, "Introducao ao estudo", "layer"),
                                          (2, "Metodos usados", "layer"),
                                          (3, "Resultados finais", "layer")]
    row = extraction(item, "tese.pdf")
    assert (row.state, row.method, row.pages, row.flagged, row.reason) == (
        "done", "text layer", 3, False, "")
    assert row.started <= row.finished


def test_nothing_is_read_when_extraction_is_off(settings, django_capture_on_commit_callbacks):
    settings.IBI_EXTRACT_TEXT = False
    with django_capture_on_commit_callbacks(execute=True):
        item = make.item(("tese.pdf", make.pdf("Texto")))
    assert not FileExtraction.objects.filter(file__item=item).exists()
    # …until the beat's run of what is due.
    assert settings.CELERY_BEAT_SCHEDULE["extract-text"]["task"] == tasks.extract_due.name
    assert list(services.due().values_list("name", flat=True)) == ["tese.pdf"]
    assert tasks.extract_due() == 1
    assert pages_of(item, "tese.pdf") == [(1, "Texto", "layer")]
    assert not services.due().exists()


def test_a_docx_is_cut_at_its_page_breaks_and_an_odt_at_its_soft_ones(extracting):
    long = " ".join(["palavra"] * 1000)  # 7 999 characters without a break: three pages
    item = extracting(("a.docx", make.docx("Primeira página", "Segunda página", long)),
                      ("b.odt", make.odt("Capítulo um", "Capítulo dois")))
    docx = pages_of(item, "a.docx")
    assert [t for _n, t, _s in docx[:2]] == ["Primeira página", "Segunda página"]
    assert len(docx) == 5 and all(len(t) <= text.PAGE_CHARS for _n, t, _s in docx)
    assert " ".join(t for _n, t, _s in docx[2:]) == long
    assert extraction(item, "a.docx").method == "docx"
    assert pages_of(item, "b.odt") == [(1, "Capítulo um", "layer"), (2, "Capítulo dois", "layer")]


def test_text_in_any_encoding_and_html_without_its_scripts(extracting):
    item = extracting(("latin.txt", "Relatório de ação e gestão".encode("cp1252"), "text/plain"),
                      ("page.html", b'<html><head><meta charset="iso-8859-1"><title>t</title>'
                       b"<script>var secret = 1;</script></head><body><p>Educa\xe7\xe3o "
                       b"b\xe1sica</p></body></html>", "text/html"))
    assert pages_of(item, "latin.txt") == [(1, "Relatório de ação e gestão", "layer")]
    assert pages_of(item, "page.html") == [(1, "Educação básica", "layer")]


def test_ocr_reads_a_scanned_pdf(extracting):
    item = extracting(("scan.pdf", make.scanned_pdf(SCANNED)))
    row = extraction(item, "scan.pdf")
    assert (row.state, row.method, row.flagged) == ("done", "ocr", False), row.reason
    [(number, found, source)] = pages_of(item, "scan.pdf")
    assert (number, source) == (1, "ocr")
    read = set(re.findall(r"\w+", found.lower()))
    words = re.findall(r"\w+", SCANNED.lower())
    assert sum(w in read for w in words) >= 0.95 * len(words), found


def test_ocr_stops_at_its_page_cap_and_flags_the_pages_it_left(extracting, settings):
    settings.IBI_OCR_MAX_PAGES = 1
    item = extracting(("long-scan.pdf", make.scanned_pdf(SCANNED, "segunda página", "terceira")))
    row = extraction(item, "long-scan.pdf")
    assert (row.state, row.method, row.pages, row.flagged) == ("done", "ocr", 1, True)
    assert row.reason == ("OCR stopped after 1 pages (IBI_OCR_MAX_PAGES): 2 pages without "
                          "text not read, from page 2")
    assert [number for number, _text, _source in pages_of(item, "long-scan.pdf")] == [1]


def test_a_scan_with_no_words_is_a_flagged_failure_never_a_silent_success(extracting):
    item = extracting(("blank.pdf", make.scanned_pdf("")), ("pixel.png", make.png()))
    for name in ("blank.pdf", "pixel.png"):
        row = extraction(item, name)
        assert (row.state, row.flagged, row.pages) == ("empty", True, 0), name
        assert row.reason.startswith("OCR of page 1:"), row.reason
        assert pages_of(item, name) == []


def test_garbage_is_told_from_words():
    assert text.garbage("a análise dos dados".split(), [91, 90, 89, 92]) is None
    assert text.garbage(["xq", "zzv", "kkr", "wpt", "qqa", "vvx", "bbq", "jjk", "ttz", "ppw"],
                        [80] * 10) == "0 common words of 10"
    assert text.garbage(["a", "dos"], [20, 30]) == "mean confidence 25"
    assert text.garbage([], []) == "no words"


def test_a_file_without_text_is_skipped_and_not_flagged(extracting):
    item = extracting(("dados.zip", b"PK\x05\x06" + b"\0" * 18, "application/zip"))
    row = extraction(item, "dados.zip")
    assert (row.state, row.flagged) == ("skipped", False)


# -- The sandbox and the hostile corpus --------------------------------------------------------

@pytest.fixture(scope="module")
def corpus():
    return make.hostile_files()


def test_the_hostile_corpus_fails_file_by_file_and_the_worker_goes_on(
        extracting, corpus, librarian_client, monkeypatch, tmp_path):
    # A temporary folder of this test's own: the suite's other processes make theirs in the
    # system's at the same time.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    before = set(os.listdir(tempfile.gettempdir()))
    item = extracting(*((name, data) for name, (data, _why) in corpus.items()),
                      ("good.pdf", make.pdf("Texto bom")), title="Hostile")
    for name, (_data, why) in corpus.items():
        row = extraction(item, name)
        assert (row.state, row.flagged) == ("failed", True), (name, row.state, row.reason)
        assert why in row.reason, (name, row.reason)
        assert pages_of(item, name) == []
    # The same worker read the good file after them; the deposit itself is whole.
    assert pages_of(item, "good.pdf") == [(1, "Texto bom", "layer")]
    assert item.files.count() == len(corpus) + 1
    assert make.Client().get(f"/col/{item.ibi}/doc/good.pdf").status_code == 200
    # No temporary directory left behind.
    assert not {n for n in set(os.listdir(tempfile.gettempdir())) - before
                if n.startswith("ibi-extract-")}
    # Shown to librarians: the flagged filter, with each reason once…
    answer = librarian_client.get(reverse("admin:archive_fileextraction_changelist"),
                                  {"flagged__exact": "1"}, secure=True)
    assert answer.status_code == 200, answer
    listed = answer.content.decode()
    for name in corpus:
        assert name in listed
        assert listed.count(escape(extraction(item, name).reason)) == 1, name
    assert "good.pdf" not in listed
    # …and on the item's own page.
    page = librarian_client.get(reverse("admin:archive_item_change", args=[item.pk]),
                                  secure=True)
    assert page.status_code == 200
    row = extraction(item, "encrypted.pdf")
    assert reverse("admin:archive_fileextraction_change", args=[row.pk]) in page.content.decode()
    assert librarian_client.get(reverse("admin:archive_fileextraction_change", args=[row.pk]),
                                secure=True).status_code == 200
    assert "encrypted PDF" in page.content.decode()
    assert "good.pdf:" not in page.content.decode()


def test_a_failure_is_recorded_once_not_appended_again(extracting, corpus):
    data, _why = corpus["encrypted.pdf"]
    item = extracting(("encrypted.pdf", data))
    first = extraction(item, "encrypted.pdf").reason
    call_command("extracttext", item.ibi, stdout=io.StringIO(), stderr=io.StringIO())
    assert extraction(item, "encrypted.pdf").reason == first == "encrypted PDF"
    assert FileExtraction.objects.filter(file__item=item).count() == 1


def test_a_job_past_its_time_is_killed_with_its_group_and_its_directory_removed():
    with sandbox.workspace(io.BytesIO(make.scanned_pdf(SCANNED))) as work:
        answer = sandbox.run(work, "ocr", text.PDF, "1", timeout=0.3)
        kept = work
    assert answer.error == "took longer than 0 s"
    assert not os.path.exists(kept)
    import psutil

    def command(process: psutil.Process) -> str:  # "" for one that ended as it was listed
        try:
            return " ".join(process.cmdline())
        except (psutil.ZombieProcess, psutil.NoSuchProcess):
            return ""

    assert [p for p in psutil.Process().children(recursive=True)
            if "archive.fulltext.worker" in command(p)] == []


def test_the_workers_limits_stop_a_memory_hog_and_bound_its_cpu():
    code = ("import resource; from archive.fulltext import worker; worker.limit(); "
            "print(resource.getrlimit(resource.RLIMIT_CPU)); bytearray(2 * 1024 ** 3)")
    done = subprocess.run([sys.executable, "-c", code], cwd=sandbox.ROOT, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.stdout.strip() == "(300, 300)"
    assert "MemoryError" in done.stderr


def test_the_sandbox_has_no_network_and_no_proxy():
    env = sandbox.environment("/tmp/x")
    assert not {k for k in env if "proxy" in k.lower()}
    # This machine lets a process have a network namespace of its own: the worker runs in
    # one, where not even this process's listening loopback port answers.
    assert sandbox.network_isolated()
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)"
        inside = subprocess.run([*sandbox.unshare(), sys.executable, "-c", code],
                                capture_output=True, text=True, timeout=60, check=False)
        outside = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                 timeout=60, check=False)
    assert outside.returncode == 0  # the control: the port answers
    assert inside.returncode != 0 and "Error" in inside.stderr, inside.stderr


def test_extracttext_reads_the_items_named_or_all(extracting):
    item = make.item(("a.pdf", make.pdf("Primeiro")))  # deposited without extraction (its
    other = make.item(("b.pdf", make.pdf("Segundo")))  # commit's callbacks not run)
    out = io.StringIO()
    call_command("extracttext", item.ibip, stdout=out, stderr=io.StringIO())
    assert f"{item.ibi}/doc/a.pdf: text extracted" in out.getvalue()
    assert "1 file read, 0 flagged" in out.getvalue()
    assert pages_of(other, "b.pdf") == []
    call_command("extracttext", "--all", stdout=io.StringIO(), stderr=io.StringIO())
    assert pages_of(other, "b.pdf") == [(1, "Segundo", "layer")]
    with pytest.raises(CommandError):
        call_command("extracttext", "8JMKD3MGP7W/XXXXXXX", stdout=io.StringIO())
    with pytest.raises(CommandError):
        call_command("extracttext", "--all", item.ibi, stdout=io.StringIO())


# -- Migration: DSpace's TEXT bundle is the file's text ----------------------------------------

def test_importsaf_keeps_dspace_text_as_the_files_text(extracting, tmp_path,
                                                       django_capture_on_commit_callbacks):
    make.dspace_collections()
    shutil.copytree(THEMES, tmp_path / "saf" / "item_000")
    with django_capture_on_commit_callbacks(execute=True):
        call_command("importsaf", str(tmp_path / "saf"), stdout=io.StringIO())
    thesis = ItemFile.objects.get(name="tese.pdf").item
    bundled = (THEMES / "tese.pdf.txt").read_text().strip()
    assert pages_of(thesis, "tese.pdf") == [(1, text.clean(bundled), "bundle")]
    row = extraction(thesis, "tese.pdf")
    assert (row.state, row.method, row.flagged) == ("done", "dspace TEXT bundle", False)
    # Its THUMBNAIL is the file's thumbnail, as it came.
    assert row.thumbnail == f"col/{thesis.ibi}/bundles/thumbnail/tese.pdf.jpg"


def test_an_empty_text_bundle_is_read_again_from_the_file(extracting,
                                                          django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        item = deposit.item_deposit(title="T", uploads=[
            make.upload(("tese.pdf", make.pdf("Texto do arquivo"))),
            deposit.Upload(name="tese.pdf.txt", file=io.BytesIO(b" \n"), bundle="TEXT")])
    assert pages_of(item, "tese.pdf") == [(1, "Texto do arquivo", "layer")]
    # DSpace's text arriving later (an import updating the item) becomes the file's text.
    with django_capture_on_commit_callbacks(execute=True):
        deposit.item_add_files(item=item, uploads=[deposit.Upload(
            name="tese.pdf.jpg", file=io.BytesIO(make.png()), bundle="THUMBNAIL")])
    assert extraction(item, "tese.pdf").thumbnail == (
        f"col/{item.ibi}/bundles/thumbnail/tese.pdf.jpg")
