"""`manage.py importitems`: a CSV or a folder, with progress, resumable, per-item errors."""
from __future__ import annotations

import csv
import hashlib
import io
import json

import pytest
from django.core.management import CommandError, call_command

from archive.deposit import storage
from archive.models import Item

pytestmark = pytest.mark.django_db


def run(source, *args) -> tuple[str, str, CommandError | None]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("importitems", str(source), *args, stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), err.getvalue(), exc
    return out.getvalue(), err.getvalue(), None


def imported() -> list[Item]:
    return list(Item.objects.filter(is_archive_service=False).order_by("created", "id"))


def write_csv(path, rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


@pytest.fixture
def collection(tmp_path):
    """A CSV of three items, the second naming a file that is not there."""
    files = tmp_path / "collection" / "files"
    files.mkdir(parents=True)
    (files / "a.pdf").write_bytes(b"%PDF a")
    (files / "a.csv").write_bytes(b"1,2\n")
    (files / "c.txt").write_bytes("relatório".encode())
    source = tmp_path / "collection" / "items.csv"
    write_csv(source, [
        {"id": "A-1", "title": "Images of the Amazon", "files": "files/a.pdf; files/a.csv",
         "target_file": "a.csv", "language": "pt-br", "creator": "Silva, J. | Souza, M.",
         "description": "An abstract; with a semicolon", "previous_edition": "",
         "translation_of": ""},
        {"id": "B-2", "title": "Broken", "files": "files/missing.pdf", "target_file": "",
         "language": "en", "creator": "", "description": "", "previous_edition": "",
         "translation_of": ""},
        {"id": "C-3", "title": "Second edition", "files": "files/c.txt", "target_file": "",
         "language": "en", "creator": "Lima, A.", "description": "",
         "previous_edition": "A-1", "translation_of": ""},
    ])
    return source


def test_it_imports_a_csv_and_reports_each_failure_without_stopping(collection):
    out, err, failed = run(collection)
    assert failed is not None  # exit status non-zero: one item failed
    assert "2 imported, 0 skipped, 1 failed" in out
    assert "failed B-2:" in out and "missing.pdf" in out
    assert "importing" in err and "3/3" in err  # the progress bar
    first, second = imported()
    assert first.title == "Images of the Amazon" and first.language == "pt-BR"
    assert first.target_file == "a.csv"
    assert first.dc("creator") == ["Silva, J.", "Souza, M."]
    assert first.dc("description") == ["An abstract; with a semicolon"]
    assert {f.name: f.sha256 for f in first.files.all()} == {
        "a.pdf": hashlib.sha256(b"%PDF a").hexdigest(),
        "a.csv": hashlib.sha256(b"1,2\n").hexdigest()}
    assert storage.list_folder(first.ibi) == ["a.csv", "a.pdf"]
    # A row may name an earlier row by its id as the previous edition.
    assert second.previous_edition == first and second.edition_number == 2


def test_a_second_run_resumes_and_imports_only_what_failed(collection):
    run(collection)
    journal = collection.with_name("items.csv.imported.jsonl")
    assert [json.loads(line)["id"] for line in journal.read_text().splitlines()] == [
        "A-1", "C-3"]
    out, _err, failed = run(collection)
    assert "0 imported, 2 skipped, 1 failed" in out and failed is not None
    assert len(imported()) == 2
    (collection.parent / "files" / "missing.pdf").write_bytes(b"found it")
    out, _err, failed = run(collection)
    assert "1 imported, 2 skipped, 0 failed" in out and failed is None
    assert [i.title for i in imported()] == [
        "Images of the Amazon", "Second edition", "Broken"]
    out, _err, failed = run(collection)
    assert "0 imported, 3 skipped, 0 failed" in out and failed is None
    assert len(imported()) == 3


def test_the_journal_path_can_be_chosen(collection, tmp_path):
    journal = tmp_path / "elsewhere.jsonl"
    run(collection, "--journal", str(journal))
    assert len(journal.read_text().splitlines()) == 2
    assert not collection.with_name("items.csv.imported.jsonl").exists()


def test_an_unknown_column_stops_before_anything_is_imported(tmp_path):
    source = tmp_path / "typo.csv"
    write_csv(source, [{"title": "x", "files": "x.txt", "cretor": "Silva"}])
    (tmp_path / "x.txt").write_bytes(b"x")
    _out, _err, failed = run(source)
    assert "cretor" in str(failed)
    assert imported() == []


def test_hostile_and_duplicate_rows_fail_alone(tmp_path):
    (tmp_path / "ok.txt").write_bytes(b"ok")
    source = tmp_path / "items.csv"
    write_csv(source, [
        {"id": "1", "title": "Fine", "files": "ok.txt", "language": "en", "target_file": ""},
        {"id": "1", "title": "Same id", "files": "ok.txt", "language": "en", "target_file": ""},
        {"id": "2", "title": "Bad language", "files": "ok.txt", "language": "english!",
         "target_file": ""},
        {"id": "3", "title": "Bad target", "files": "ok.txt", "language": "en",
         "target_file": "../../etc/passwd"},
        {"id": "4", "title": "", "files": "ok.txt", "language": "en", "target_file": ""},
    ])
    out, _err, failed = run(source)
    assert "1 imported, 0 skipped, 4 failed" in out and failed is not None
    assert "appears more than once" in out and "BCP 47" in out
    assert "is not one of the files" in out and "title is required" in out
    assert [i.title for i in imported()] == ["Fine"]


def test_it_imports_a_folder_of_item_folders(tmp_path):
    root = tmp_path / "thesis-collection"
    (root / "001-thesis").mkdir(parents=True)
    (root / "001-thesis" / "thesis.pdf").write_bytes(b"%PDF thesis")
    (root / "001-thesis" / "data.zip").write_bytes(b"PK")
    (root / "001-thesis" / ".DS_Store").write_bytes(b"junk")
    (root / "001-thesis" / "metadata.json").write_text(json.dumps({
        "title": "A thesis", "language": "pt-BR", "target_file": "thesis.pdf",
        "creator": ["Silva, J."], "subject": "hydrology", "transferable": False}))
    (root / "002-untitled").mkdir()
    (root / "002-untitled" / "notes.txt").write_bytes(b"notes")
    (root / "003-bad").mkdir()
    (root / "003-bad" / "metadata.json").write_text('{"title": "Bad", "colour": "red"}')
    (root / "003-bad" / "x.txt").write_bytes(b"x")

    out, err, failed = run(root)
    assert "2 imported, 0 skipped, 1 failed" in out and "unknown keys colour" in out
    assert failed is not None and "3/3" in err
    thesis, untitled = imported()
    assert thesis.title == "A thesis" and not thesis.transferable
    assert thesis.target_file == "thesis.pdf"
    assert sorted(thesis.files.values_list("name", flat=True)) == ["data.zip", "thesis.pdf"]
    assert thesis.dc("creator") == ["Silva, J."] and thesis.dc("subject") == ["hydrology"]
    assert untitled.title == "002-untitled" and untitled.target_file == "notes.txt"
    assert (tmp_path / "thesis-collection.imported.jsonl").exists()

    out, _err, _failed = run(root)
    assert "0 imported, 2 skipped, 1 failed" in out
    assert len(imported()) == 2


def test_a_missing_source_is_a_clear_error(tmp_path):
    _out, _err, failed = run(tmp_path / "nowhere.csv")
    assert "neither a CSV file nor a folder" in str(failed)


# -- Attacks: paths that lead out of the import folder ----------------------------------------
# Whatever is imported becomes a public download: a path that reaches outside the folder
# must fail its item with the reason, and nothing of that item may be stored.

SECRET = b"root:x:0:0:secret\n"


@pytest.fixture
def outside(tmp_path):
    """A secret beside the import folder, and the folder itself with one honest file."""
    (tmp_path / "secret.txt").write_bytes(SECRET)
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "key.pem").write_bytes(SECRET)
    root = tmp_path / "import" / "batch"
    (root / "files" / "sub").mkdir(parents=True)
    (root / "files" / "ok.txt").write_bytes(b"fine")
    return root


def nothing_stored(media) -> bool:
    return [p for p in media.rglob("*") if p.is_file()] == []


def csv_attack(root, files: str):
    source = root / "items.csv"
    write_csv(source, [{"id": "evil", "title": "Attack", "files": files}])
    return run(source)


DOTS = "'..' is not allowed in an import path"
ABSOLUTE = "absolute paths are not allowed in an import"


@pytest.mark.parametrize(("files", "refused", "reason"), [
    ("../../secret.txt", "../../secret.txt", DOTS),
    ("files/ok.txt; ../../secret.txt", "../../secret.txt", DOTS),
    ("files/sub/../../../../secret.txt", "files/sub/../../../../secret.txt", DOTS),
    ("files\\..\\..\\..\\secret.txt", "files\\..\\..\\..\\secret.txt", DOTS),
    ("{abs}", "{abs}", ABSOLUTE),
    ("C:\\Windows\\win.ini", "C:\\Windows\\win.ini", ABSOLUTE),
])
def test_a_csv_path_out_of_the_folder_fails_its_item_and_stores_nothing(
        outside, media, files, refused, reason):
    secret = outside.parent.parent / "secret.txt"
    files, refused = files.format(abs=secret), refused.format(abs=secret)
    out, _err, failed = csv_attack(outside, files)
    assert failed is not None and "0 imported, 0 skipped, 1 failed" in out
    assert f"failed evil: {refused!r}: {reason}" in out
    assert imported() == [] and nothing_stored(media)


def test_a_csv_path_through_a_symlink_to_a_file_outside_is_refused(outside, media):
    (outside / "files" / "innocent.txt").symlink_to(outside.parent.parent / "secret.txt")
    out, _err, failed = csv_attack(outside, "files/ok.txt;files/innocent.txt")
    assert failed is not None
    assert ("failed evil: 'files/innocent.txt': 'innocent.txt' is a symbolic link; "
            "links are not followed in an import") in out
    assert imported() == [] and nothing_stored(media)


def test_a_csv_path_through_a_symlinked_folder_is_refused(outside, media):
    (outside / "files" / "keys").symlink_to(outside.parent.parent / "private")
    out, _err, failed = csv_attack(outside, "files/keys/key.pem")
    assert failed is not None
    assert "failed evil: 'files/keys/key.pem': 'keys' is a symbolic link" in out
    assert imported() == [] and nothing_stored(media)


def test_a_symlink_inside_the_folder_to_a_file_inside_is_refused_too(outside, media):
    # Links are not followed at all: one that points inside today may point elsewhere later.
    (outside / "files" / "alias.txt").symlink_to(outside / "files" / "ok.txt")
    out, _err, failed = csv_attack(outside, "files/alias.txt")
    assert failed is not None and "'alias.txt' is a symbolic link" in out
    assert imported() == [] and nothing_stored(media)


def test_a_dot_dot_that_stays_inside_is_refused_as_well(outside, media):
    out, _err, failed = csv_attack(outside, "files/sub/../ok.txt")
    assert failed is not None and "'..' is not allowed in an import path" in out
    assert imported() == [] and nothing_stored(media)


def test_a_fifo_is_not_read(outside, media):
    import os

    os.mkfifo(outside / "files" / "pipe")
    out, _err, failed = csv_attack(outside, "files/pipe")
    assert failed is not None and "failed evil: 'pipe' is not a regular file" in out
    assert imported() == [] and nothing_stored(media)


@pytest.fixture
def folder(outside):
    """A folder import: one honest item folder beside whatever the attack adds."""
    root = outside.parent / "folders"
    (root / "001-fine").mkdir(parents=True)
    (root / "001-fine" / "fine.txt").write_bytes(b"fine")
    (root / "002-evil").mkdir()
    (root / "002-evil" / "paper.pdf").write_bytes(b"%PDF")
    return root


def test_a_symlink_to_a_file_in_an_item_folder_fails_that_item(folder, media):
    (folder / "002-evil" / "secret.txt").symlink_to(folder.parent.parent / "secret.txt")
    out, _err, failed = run(folder)
    assert failed is not None and "1 imported, 0 skipped, 1 failed" in out
    assert ("failed 002-evil: 'secret.txt': 'secret.txt' is a symbolic link; links are not "
            "followed in an import") in out
    assert [i.title for i in imported()] == ["001-fine"]
    assert [p.name for p in media.rglob("*") if p.is_file()] == ["fine.txt"]


def test_a_symlinked_item_folder_fails_as_an_item(folder, media):
    (folder / "003-link").symlink_to(folder.parent.parent / "private")
    out, _err, failed = run(folder)
    assert failed is not None and "2 imported, 0 skipped, 1 failed" in out
    assert "failed 003-link: '003-link' is a symbolic link" in out
    assert sorted(i.title for i in imported()) == ["001-fine", "002-evil"]
    assert "key.pem" not in [p.name for p in media.rglob("*")]


def test_a_symlinked_metadata_file_is_not_read(folder, media):
    (folder.parent.parent / "meta.json").write_text('{"title": "From outside"}')
    (folder / "002-evil" / "metadata.json").symlink_to(folder.parent.parent / "meta.json")
    out, _err, failed = run(folder)
    assert failed is not None and "failed 002-evil: 'metadata.json': " in out
    assert "is a symbolic link" in out
    assert [i.title for i in imported()] == ["001-fine"]


def test_a_rights_value_naming_an_access_level_is_the_items_access(tmp_path):
    """importitems reads the importers' one access vocabulary in its rights column (#42): an
    access right is the item's level, never a licence text of an open item; one in COAR's or
    OpenAIRE's namespace that no one knows imports the item closed, and the summary says so."""
    (tmp_path / "a.pdf").write_bytes(b"%PDF a")
    source = tmp_path / "items.csv"
    cc = "https://creativecommons.org/licenses/by/4.0/"
    write_csv(source, [
        {"id": "1", "title": "Restrito", "files": "a.pdf", "rights": f"Acesso Restrito | {cc}"},
        {"id": "2", "title": "Aberto", "files": "a.pdf", "rights": "open access"},
        {"id": "3", "title": "Fechado", "files": "a.pdf",
         "rights": "http://purl.org/coar/access_right/c_14cb"},
        {"id": "4", "title": "Estranho", "files": "a.pdf",
         "rights": "info:eu-repo/semantics/someAccess"},
    ])
    out, _err, failed = run(source)
    assert failed is None, out
    levels = {i.title: (i.access_rights, i.dc("rights")) for i in imported()}
    assert levels == {"Restrito": ("restricted", [cc]), "Aberto": ("open", []),
                      "Fechado": ("metadata-only", []), "Estranho": ("metadata-only", [])}
    assert ("4: unknown access value 'info:eu-repo/semantics/someAccess' in rights: imported "
            "closed") in out
