"""`manage.py fsck`: missing files, size mismatches and orphans; --fix-orphans."""
from __future__ import annotations

import io
from decimal import Decimal

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command

from archive.deposit import services, storage
from tests.test_s3 import bucket, keys, s3_endpoint  # noqa: F401  (the loopback S3 fixtures)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fast_minting(settings):
    settings.IBI_GRANULARITY = Decimal("0.01")


@pytest.fixture
def item():
    return services.item_deposit(title="Report", uploads=[
        services.Upload("report.pdf", io.BytesIO(b"%PDF report")),
        services.Upload("data.csv", io.BytesIO(b"1,2\n"))])


def fsck(*args) -> tuple[str, CommandError | None]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("fsck", *args, stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def test_a_consistent_archive_has_no_problems(item):
    out, failed = fsck()
    assert failed is None
    assert "2 files recorded, 2 stored: 0 problems" in out


def test_it_finds_a_file_missing_from_storage(item):
    default_storage.delete(storage.file_key(item.ibi, "data.csv"))
    out, failed = fsck()
    assert f"missing  col/{item.ibi}/doc/data.csv" in out
    assert "1 problems" in out and failed is not None


def test_it_finds_a_size_mismatch(item):
    key = storage.file_key(item.ibi, "data.csv")
    default_storage.delete(key)
    default_storage.save(key, ContentFile(b"1,2,3\n"))
    out, failed = fsck()
    assert f"size     {key}: 6 bytes stored, 4 recorded" in out and failed is not None


@pytest.fixture
def orphans(item):
    """One orphan in the item's own folder, one under an IBI no item has (a crashed deposit)."""
    beside = storage.file_key(item.ibi, "left-over.tmp")
    crashed = storage.file_key("archive.localhost/archive/2001/01.01.00.00.01", "lost.pdf")
    for key in (beside, crashed):
        default_storage.save(key, ContentFile(b"orphan"))
    return beside, crashed


def test_it_finds_orphan_files(orphans):
    beside, crashed = orphans
    out, failed = fsck()
    assert f"orphan   {beside} (its item exists)" in out
    assert f"orphan   {crashed} (no item has this IBI)" in out
    assert "2 problems" in out and failed is not None
    assert default_storage.exists(beside) and default_storage.exists(crashed)


def test_fix_orphans_keeps_recent_ones_a_deposit_may_still_commit(orphans):
    _out, failed = fsck("--fix-orphans")
    assert failed is not None
    assert all(default_storage.exists(key) for key in orphans)


def test_fix_orphans_removes_the_orphans_only(item, orphans, media):
    out, failed = fsck("--fix-orphans", "--min-age", "0")
    assert failed is None and "2 orphans removed" in out
    assert not any(default_storage.exists(key) for key in orphans)
    assert storage.list_folder(item.ibi) == ["data.csv", "report.pdf"]
    with storage.open_file(item.ibi, "report.pdf") as f:
        assert f.read() == b"%PDF report"
    # The crashed deposit's folders went with its last file.
    assert not (media / "col" / "archive.localhost").exists()
    out, failed = fsck()
    assert failed is None and "0 problems" in out


def test_it_walks_s3_as_it_walks_the_disk(request):
    s3 = request.getfixturevalue("bucket")
    item = services.item_deposit(title="On S3", uploads=[
        services.Upload("a.txt", io.BytesIO(b"a")), services.Upload("b.txt", io.BytesIO(b"b"))])
    default_storage.delete(storage.file_key(item.ibi, "b.txt"))
    orphan = storage.file_key("archive.localhost/archive/2001/01.01.00.00.01", "lost.pdf")
    default_storage.save(orphan, ContentFile(b"orphan"))
    out, failed = fsck("--fix-orphans", "--min-age", "0")
    assert f"missing  col/{item.ibi}/doc/b.txt" in out and failed is not None
    assert f"removed  {orphan} (no item has this IBI)" in out
    assert keys(s3) == [storage.file_key(item.ibi, "a.txt")]
