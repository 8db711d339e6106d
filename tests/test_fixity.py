"""`manage.py fixity`: stored bytes hashed again, oldest-checked first; problems recorded."""
from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from archive.deposit import services, storage
from archive.models import ItemFile
from archive.preservation import fixity
from tests import factories as make

pytestmark = pytest.mark.django_db


@pytest.fixture
def items():
    return [make.item(("report.pdf", b"%PDF report " + bytes([48 + n])),
                      ("data.csv", b"1,2\n" * (n + 1)), title=f"Report {n}") for n in range(3)]


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
    assert failed is not None and "1 file changed or missing" in str(failed)
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
    _out, failed = run()
    assert failed is not None  # the damage was found and recorded first
    assert list(ItemFile.objects.exclude(fixity_problem="").values_list("name", flat=True)) == [
        "data.csv"]
    flip_one_byte(media, items[2].ibi, "data.csv")  # the same flip again restores it
    out, failed = run()
    assert failed is None
    assert not ItemFile.objects.exclude(fixity_problem="").exists()


def test_oldest_needs_a_positive_number(items):
    _out, failed = run("--oldest", "0")
    assert failed is not None and "positive" in str(failed)


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
    assert "1 file checked: 0 changed or missing" in response.content.decode()
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


def test_one_fixity_run_at_a_time_a_message_put_back_meanwhile_does_nothing(items,
                                                                             settings):
    """The broker puts a task's message back IBI_TASK_REDELIVERY after it was taken, even
    while its run works (#30, 6): that second run finds the lease and leaves the files."""
    from django.core.cache import cache

    from archive.preservation.tasks import FIXITY_RUN, check_fixity

    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] == 60
    cache.add(FIXITY_RUN, 1, 60)  # a run at work in another worker
    try:
        assert check_fixity.apply().get() == "at work in another worker"
        assert not ItemFile.objects.exclude(checked_at=None).exists()
    finally:
        cache.delete(FIXITY_RUN)
    assert check_fixity.apply().get() == "6 files checked: 0 changed or missing"
    assert cache.get(FIXITY_RUN) is None  # its lease given back


# -- A damaged file is not served with its old checksum ---------------------------------------

def test_a_damaged_file_answers_503_until_it_is_restored_and_checked_again(items, media, client):
    item = items[0]
    url = f"/col/{item.ibi}/doc/report.pdf"
    good = client.get(url)
    assert good.status_code == 200
    original = (media / storage.file_key(item.ibi, "report.pdf")).read_bytes()

    flip_one_byte(media, item.ibi, "report.pdf")
    run("--all")
    for method in ("get", "head"):
        damaged = getattr(client, method)(url)
        assert damaged.status_code == 503, method
        assert damaged["Retry-After"] == "3600"
        assert "ETag" not in damaged and damaged["Cache-Control"] == "no-store"
    text = client.get(url).content.decode()
    assert text.startswith(f"report.pdf of {item.ibi} is temporarily unavailable: its stored "
                           "copy failed the last fixity check")
    # Not even a conditional request with the old ETag gets a 304 vouching for the bytes.
    assert client.get(url, headers={"If-None-Match": good["ETag"]}).status_code == 503
    # The persistent URL still resolves; the download it leads to is the 503.
    resolved = client.get(f"/{item.ibi}/report.pdf")
    assert resolved.status_code == 302 and resolved["Location"].endswith(url)
    # The other files of the item are served as before.
    assert client.get(f"/col/{item.ibi}/doc/data.csv").status_code == 200

    (media / storage.file_key(item.ibi, "report.pdf")).write_bytes(original)
    run("--all")
    restored = client.get(url)
    assert restored.status_code == 200 and restored["ETag"] == good["ETag"]
    assert b"".join(restored.streaming_content) == original


def test_the_item_admin_page_shows_a_damaged_file(items, media, client):
    from django.contrib.auth.models import User

    librarian = User.objects.create_user("ana", is_staff=True)
    librarian.groups.add(services.ensure_librarians_group())
    client.force_login(librarian)
    flip_one_byte(media, items[0].ibi, "report.pdf")
    run("--all")
    page = client.get(f"/admin/archive/item/{items[0].pk}/change/", secure=True)
    html = page.content.decode()
    assert "DAMAGED, not served: changed: sha256 " in html
    assert "intact, checked" in html  # data.csv
