"""`manage.py fixity`: stored bytes hashed again, oldest-checked first; problems recorded."""
from __future__ import annotations

import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from archive.deposit import services, storage
from archive.models import ItemFile
from archive.preservation import fixity

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fast_minting(settings):
    settings.IBI_GRANULARITY = Decimal("0.01")


@pytest.fixture
def items():
    return [services.item_deposit(title=f"Report {n}", uploads=[
        services.Upload("report.pdf", io.BytesIO(b"%PDF report " + bytes([48 + n]))),
        services.Upload("data.csv", io.BytesIO(b"1,2\n" * (n + 1)))]) for n in range(3)]


def run(*args) -> tuple[str, CommandError | None]:
    out = io.StringIO()
    try:
        call_command("fixity", *args, stdout=out)
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def flip_one_byte(media, rep: str, name: str, offset: int = 3) -> None:
    path = media / storage.file_key(rep, name)
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def test_an_intact_collection_passes_and_every_file_is_stamped(items):
    out, failed = run()
    assert failed is None
    assert out.strip() == "6 files checked: 0 changed or missing"
    assert not ItemFile.objects.filter(checked_at__isnull=True).exists()
    assert not ItemFile.objects.exclude(fixity_problem="").exists()


def test_one_flipped_byte_is_named_and_nothing_else(items, media):
    flip_one_byte(media, items[1].ibi, "report.pdf")
    out, failed = run("--all")
    key = f"col/{items[1].ibi}/doc/report.pdf"
    problems = [line for line in out.splitlines() if not line.startswith("6 files")]
    assert len(problems) == 1 and problems[0].startswith(f"changed  {key}: sha256 ")
    recorded = ItemFile.objects.get(item=items[1], name="report.pdf")
    assert f"recorded {recorded.sha256}" in problems[0]
    assert failed is not None and "1 files changed or missing" in str(failed)
    assert recorded.fixity_problem.startswith("changed: sha256 ")
    assert set(ItemFile.objects.exclude(fixity_problem="").values_list("pk", flat=True)) \
        == {recorded.pk}


def test_a_missing_file_is_named(items, media):
    (media / storage.file_key(items[0].ibi, "data.csv")).unlink()
    out, failed = run()
    assert f"missing  col/{items[0].ibi}/doc/data.csv" in out and failed is not None
    assert ItemFile.objects.get(item=items[0], name="data.csv").fixity_problem == "missing"


def test_oldest_checks_never_checked_files_first_then_the_longest_ago(items):
    rows = list(ItemFile.objects.order_by("pk"))
    now = timezone.now()
    for age, row in zip([5, 1, 3, 2, 4], rows[1:], strict=True):  # rows[0] never checked
        ItemFile.objects.filter(pk=row.pk).update(checked_at=now - timedelta(days=age))
    out, failed = run("--oldest", "3")
    assert failed is None and out.strip() == "3 files checked: 0 changed or missing"
    fresh = set(ItemFile.objects.filter(checked_at__gte=now).values_list("pk", flat=True))
    assert fresh == {rows[0].pk, rows[1].pk, rows[5].pk}  # never, 5 days, 4 days


def test_successive_partial_runs_cycle_through_everything(items):
    seen = set()
    for _ in range(3):
        seen |= {f.key for f in fixity.check(2)}
    assert len(seen) == 6


def test_a_repaired_file_clears_its_problem(items, media):
    flip_one_byte(media, items[2].ibi, "data.csv")
    run()
    flip_one_byte(media, items[2].ibi, "data.csv")  # the same flip again restores it
    out, failed = run()
    assert failed is None
    assert not ItemFile.objects.exclude(fixity_problem="").exists()


def test_oldest_needs_a_positive_number(items):
    _out, failed = run("--oldest", "0")
    assert failed is not None and "positive" in str(failed)


@pytest.fixture
def admin_client(client):
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_superuser("boss", password="x"))
    return client


def test_the_admin_lists_fixity_problems(items, media, admin_client):
    flip_one_byte(media, items[0].ibi, "data.csv")
    run()
    page = admin_client.get("/admin/archive/itemfile/?fixity=problem", secure=True)
    text = page.content.decode()
    assert page.status_code == 200
    assert f"col/{items[0].ibi}/doc/data.csv" in text and "changed: sha256" in text
    assert text.count("changed: sha256") == 1 and "report.pdf" not in text
    # Checking again from the admin, after the byte is back: the problem is gone.
    flip_one_byte(media, items[0].ibi, "data.csv")
    row = ItemFile.objects.get(item=items[0], name="data.csv")
    response = admin_client.post("/admin/archive/itemfile/", {
        "action": "check_now", "_selected_action": [row.pk]}, secure=True, follow=True)
    assert "1 files checked: 0 changed or missing" in response.content.decode()
    assert ItemFile.objects.get(pk=row.pk).fixity_problem == ""
    assert admin_client.get(f"/admin/archive/itemfile/{row.pk}/change/",
                            secure=True).status_code == 200  # shown, read-only
    assert admin_client.post(f"/admin/archive/itemfile/{row.pk}/delete/", {"post": "yes"},
                             secure=True).status_code == 403


def test_the_daily_task_checks_and_reports(items, media, settings):
    from archive.preservation.tasks import check_fixity

    flip_one_byte(media, items[2].ibi, "report.pdf")
    settings.IBI_FIXITY_BATCH = 4
    assert check_fixity.apply().get() == "4 files checked: 0 changed or missing"
    # The next batch starts with the two files never checked, items[2]'s.
    assert check_fixity.apply().get() == "4 files checked: 1 changed or missing"
