"""Each file's format from its content (issue 38, 2): identified by siegfried (PRONOM) once its
deposit commits, and by `manage.py identifyformats`; stored on the file with a "format
identification" event; the librarians' format-risk report, in pt-BR and English."""
from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from archive.models import ItemFile, PremisEvent
from archive.preservation import events, formats
from archive.review import tools
from tests import factories as make

pytestmark = pytest.mark.django_db

TIFF = (b"II*\x00\x08\x00\x00\x00\x01\x00\x00\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00"
        b"\x00\x00\x00\x00")


@pytest.fixture
def identifying(settings, eager_tasks):  # the nudged identification, in process (a broker set)
    settings.IBI_IDENTIFY_FORMATS = True


def _row(item, name: str) -> ItemFile:
    return ItemFile.every_bundle.get(item=item, name=name)


def test_a_deposit_s_files_are_identified_by_their_content(identifying, librarian_api,
                                                          django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):  # the nudge once it commits
        made = make.posted(librarian_api, ("tese.pdf", make.pdf("Tese")),
                           ("figura.png", make.png()),
                           ("disfarcado.txt", make.pdf("PDF named .txt")),
                           ("nada.bin", b"\x00\x01 no signature knows this"),
                           title="Formatos").json()
    from archive.models import Item

    item = Item.objects.get(ibi=made["ibi"])
    pdf, png = _row(item, "tese.pdf"), _row(item, "figura.png")
    assert pdf.format_puid.startswith("fmt/") and pdf.format_mime == "application/pdf"
    assert "PDF" in pdf.format_name and pdf.format_version
    assert (png.format_puid, png.format_mime) == ("fmt/11", "image/png")
    # By content, never by name: a PDF named .txt is a PDF; unknown bytes are no format.
    assert _row(item, "disfarcado.txt").format_puid == pdf.format_puid
    unknown = _row(item, "nada.bin")
    assert unknown.format_puid == "" and unknown.format_identified is not None
    said = {e.file: e for e in events.of_item(item.ibi)
            if e.type == events.Type.FORMAT_IDENTIFICATION}
    assert set(said) == {"tese.pdf", "figura.png", "disfarcado.txt", "nada.bin"}
    assert said["figura.png"].outcome == "success" and "fmt/11" in said["figura.png"].detail
    assert said["tese.pdf"].agent.kind == "software" and "siegfried" in said["tese.pdf"].detail
    assert said["nada.bin"].outcome == "warning" and said["nada.bin"].outcome_detail


def test_identifyformats_names_the_files_and_records_an_event_each(tmp_path):
    item = make.item(("a.pdf", make.pdf("A")), ("b.tif", TIFF))
    other = make.item(("c.png", make.png()))
    assert not ItemFile.every_bundle.filter(format_identified__isnull=False).exists()
    out = io.StringIO()
    call_command("identifyformats", item.ibip, stdout=out)
    assert "2 files identified" in out.getvalue() and "a.pdf: fmt/" in out.getvalue()
    assert _row(item, "b.tif").format_puid.startswith("fmt/")
    assert _row(other, "c.png").format_identified is None
    call_command("identifyformats", "--due", stdout=out)
    assert _row(other, "c.png").format_puid == "fmt/11"
    call_command("identifyformats", "--all", stdout=out)
    assert PremisEvent.objects.filter(type="format identification").count() == 3 + 3
    with pytest.raises(CommandError):
        call_command("identifyformats", stdout=out)
    with pytest.raises(CommandError):
        call_command("identifyformats", "sid.inpe.br/nada/2099/01.01.00.00", stdout=out)


def test_a_file_gone_from_storage_is_a_failed_identification_not_an_exception():
    from django.core.files.storage import default_storage

    from archive.deposit import storage

    item = make.item(("a.pdf", make.pdf("A")))
    default_storage.delete(storage.file_key(item.ibi, "a.pdf"))
    found = formats.identify_file(_row(item, "a.pdf"))
    assert found.puid == ""
    event = [e for e in events.of_item(item.ibi) if e.type == "format identification"][-1]
    assert event.outcome == "failure" and "not readable" in event.outcome_detail


@pytest.mark.parametrize("language, title, flagged", [
    ("pt-BR", "Formatos guardados e seu risco", "não: em risco"),
    ("en", "Formats held, and their risk", "no: at risk")])
def test_the_format_report_counts_sizes_and_flags_closed_formats(librarian_client, language,
                                                                 title, flagged):
    make.item(("a.pdf", make.pdf("A")), ("b.png", make.png()))
    make.item(("c.png", make.png()), ("d.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600))
    call_command("identifyformats", "--all", stdout=io.StringIO())
    rows = {row["format_puid"]: row for row in formats.report()}
    assert rows["fmt/11"]["files"] == 2 and rows["fmt/11"]["open"]
    png_bytes = sum(f.size for f in ItemFile.every_bundle.filter(format_puid="fmt/11"))
    assert rows["fmt/11"]["bytes"] == png_bytes
    closed = [row for row in rows.values() if not row["open"]]
    assert closed, rows  # the OLE2 .doc (or its unidentified bytes) is flagged
    page = librarian_client.get("/admin/archive/item/formats/", secure=True,
                                HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200
    text = page.content.decode()
    assert title in text and "fmt/11" in text and flagged in text
    listing = librarian_client.get("/admin/archive/item/", secure=True,
                                   HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert "/admin/archive/item/formats/" in listing


def test_the_report_is_the_librarians(client, django_user_model):
    staff = django_user_model.objects.create_user("staff", password="x", is_staff=True)
    client.force_login(staff)
    assert client.get("/admin/archive/item/formats/", secure=True).status_code == 403


def test_the_open_list_names_pdfa_text_odf_tiff_png_jpeg_xml():
    for puid in ("fmt/95", "fmt/354", "x-fmt/111", "fmt/290", "fmt/353", "fmt/11", "fmt/43",
                 "fmt/101"):
        assert puid in formats.OPEN_SPECIFICATION
    assert "fmt/40" not in formats.OPEN_SPECIFICATION  # Word 97-2003: flagged


@pytest.mark.parametrize("identify", [
    lambda path: formats.identify_path(path).puid,
    lambda path: tools.identify(path).puid,  # the checks before review ask it too
], ids=["preservation", "review checks"])
def test_identification_works_in_a_process_forked_after_pygfried_was_imported(
        tmp_path, identify):
    """gunicorn's and Celery's workers are forked from a process that imported the app:
    Go's runtime, which importing pygfried starts, does not survive a fork, so both
    identifications run siegfried in a process of its own, and a forked child gets its
    answer (it hung there before), from a siegfried of its own."""
    import os
    import signal

    import pygfried  # noqa: F401  (as the forking parent has it)

    (tmp_path / "a.png").write_bytes(make.png())
    formats.identify_path(tmp_path / "a.png")
    parents = formats._siegfried.process  # the parent's siegfried, running at the fork
    answer = tmp_path / "answer"
    child = os.fork()
    if child == 0:  # pragma: no cover (the child reports through the file)
        try:
            answer.write_text(identify(tmp_path / "a.png"))
        finally:
            os._exit(0)
    deadline = 60
    for _tick in range(deadline * 10):
        done, _status = os.waitpid(child, os.WNOHANG)
        if done:
            break
        signal.sigtimedwait([signal.SIGCHLD], 0.1)
    else:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        raise AssertionError("the forked child's identification hung")
    assert answer.read_text() == "fmt/11"
    # The child asked a siegfried of its own: the parent's still answers the parent.
    assert formats.identify_path(tmp_path / "a.png").puid == "fmt/11"
    assert formats._siegfried.process is parents


def test_siegfried_is_started_once_for_batch_after_batch(tmp_path):
    """Reading PRONOM's signatures is most of a run: the process is kept between batches."""
    (tmp_path / "a.png").write_bytes(make.png())
    formats.identify_path(tmp_path / "a.png")
    first = formats._siegfried.process
    assert formats.identify_path(tmp_path / "a.png").puid == "fmt/11"
    assert formats._siegfried.process is first and first.poll() is None


def test_siegfried_ends_when_idle_and_the_next_batch_starts_it_again(tmp_path, monkeypatch):
    """No file for IDLE seconds: it ends by itself (an idle worker does not keep it), reaped
    at once (no zombie left waiting for the next batch); the next batch finds it ended and
    starts another, and is answered all the same."""
    import psutil

    monkeypatch.setattr(formats, "IDLE", 1)
    formats._siegfried._stop()
    (tmp_path / "a.png").write_bytes(make.png())
    assert formats.identify_path(tmp_path / "a.png").puid == "fmt/11"
    ended = formats._siegfried.process
    # Ended and reaped by this process's reaper, not by the test.
    assert make.wait_until(lambda: ended.returncode is not None, what="its end") is not None
    assert ended.returncode == 0
    assert ended.pid not in {child.pid for child in psutil.Process().children()}
    assert formats.identify_paths([tmp_path / "a.png", tmp_path / "a.png"])[1][1].puid == \
        "fmt/11"
    assert formats._siegfried.process is not ended


def test_a_siegfried_that_cannot_start_is_an_oserror_saying_why(tmp_path, monkeypatch):
    formats._siegfried._stop()
    monkeypatch.setattr(formats, "_SIEGFRIED", "import sys; sys.exit('no signatures here')")
    (tmp_path / "a.png").write_bytes(make.png())
    with pytest.raises(OSError, match="no signatures here"):
        formats.identify_path(tmp_path / "a.png")
    assert formats._siegfried.process is None
    assert tools.identify(tmp_path / "a.png").puid == ""  # the checks: not identified
    # One that ends without a word: its exit status and what it did not say.
    monkeypatch.setattr(formats, "_SIEGFRIED", "import sys; sys.exit(3)")
    with pytest.raises(OSError, match=r"^siegfried failed \(3\): EOFError$"):
        formats.identify_path(tmp_path / "a.png")
    monkeypatch.undo()
    assert formats.identify_path(tmp_path / "a.png").puid == "fmt/11"
