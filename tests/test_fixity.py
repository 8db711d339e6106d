"""`manage.py fixity`: stored bytes hashed again, oldest-checked first; problems recorded."""
from __future__ import annotations

import hashlib
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
    settings.IBI_FIXITY_PERIOD_DAYS = 1  # every file every day
    assert check_fixity.apply().get() == "6 files checked: 1 changed or missing"
    # A failure is an event and an alarm, not an exception: the next run goes on.
    assert check_fixity.apply().get() == "6 files checked: 1 changed or missing"


def test_one_fixity_run_at_a_time_a_message_put_back_meanwhile_does_nothing(items,
                                                                             settings):
    """The broker puts a task's message back IBI_TASK_REDELIVERY after it was taken, even
    while its run works (#30, 6): that second run finds the lease and leaves the files."""
    from django.core.cache import cache

    from archive.preservation.tasks import FIXITY_RUN, check_fixity

    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] == 60
    settings.IBI_FIXITY_PERIOD_DAYS = 1  # every file every day
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


# -- History, two digests, the 90-day scheduler, the alarm (issue 38) -------------------------

def test_every_check_is_kept_with_both_digests_and_an_event(items, media):
    from archive.models import FixityCheck, PremisEvent

    row = ItemFile.objects.get(item=items[1], name="data.csv")
    data = (media / storage.file_key(items[1].ibi, "data.csv")).read_bytes()
    assert row.sha512 == hashlib.sha512(data).hexdigest()  # computed at deposit
    run()
    flip_one_byte(media, items[1].ibi, "data.csv")
    run()
    history = list(FixityCheck.objects.filter(file=row).order_by("at", "id"))
    assert [c.outcome for c in history] == ["pass", "fail"]
    assert history[0].sha256 == row.sha256 and history[0].sha512 == row.sha512
    assert history[0].size == len(data) and history[0].key == f"col/{items[1].ibi}/doc/data.csv"
    assert history[1].problem.startswith("changed: sha256 ")
    assert FixityCheck.objects.count() == 12  # every check of every file, kept
    found = list(PremisEvent.objects.filter(type="fixity check", ibi=items[1].ibi,
                                            file="data.csv").order_by("at", "id"))
    assert [e.outcome for e in found] == ["success", "failure"]
    assert found[0].agent.kind == "software"
    assert f"sha256 {row.sha256} sha512 {row.sha512}" in found[0].detail
    assert found[1].outcome_detail.startswith("changed: sha256 ")


def test_the_first_check_fills_in_a_missing_sha512_and_later_ones_compare_it(items, media):
    row = ItemFile.objects.get(item=items[0], name="report.pdf")
    kept = row.sha512
    ItemFile.objects.filter(pk=row.pk).update(sha512="")  # a file older than the field
    run()
    assert ItemFile.objects.get(pk=row.pk).sha512 == kept
    ItemFile.objects.filter(pk=row.pk).update(sha512="0" * 128)  # a second digest that differs
    out, failed = run()
    assert failed is not None and f"changed  {storage.file_key(items[0].ibi, 'report.pdf')}: " \
        "sha512 " in out


def test_the_plan_of_a_million_files_of_ten_megabytes():
    plan = fixity.Plan(files=1_000_000, bytes=10**6 * 10 * 2**20, period_days=90,
                       budget_bytes=500 * 10**9)
    assert (plan.slice_files, plan.slice_bytes, plan.covered) == (11_112, 116_508_444_445, True)
    assert not fixity.Plan(files=1_000_000, bytes=10**6 * 10 * 2**20, period_days=90,
                           budget_bytes=100 * 10**9).covered


@pytest.fixture
def inventory(media):
    """Sixty files of sizes 1 to 6 000 bytes in three items, deposited over the last sixty
    days (one a day), never checked."""
    made = [make.item(*[(f"f{n:03d}.bin", bytes([n % 251]) * (1 + 997 * (n % 7)))
                        for n in range(20 * k, 20 * (k + 1))], title=f"Lot {k}")
            for k in range(3)]
    now = timezone.now()
    for age, row in enumerate(ItemFile.every_bundle.order_by("pk")):
        ItemFile.every_bundle.filter(pk=row.pk).update(created=now - timedelta(days=age))
    return made


def simulate(days: int, *, grow: int = 0, start=None) -> tuple[dict, list[fixity.Day]]:
    """Run the daily task's slice on each of `days` simulated days (its clock moved by a day
    each time), depositing `grow` new files every tenth day; each file's verification times:
    its deposit, then its checks."""
    from archive.models import FixityCheck

    start = start or timezone.now()
    runs = []
    for day in range(days):
        now = start + timedelta(days=day, hours=3)
        if grow and day % 10 == 0:
            new = make.item(*[(f"g{day}-{n}.bin", b"new" * (n + 1)) for n in range(grow)],
                            title=f"Day {day}")
            ItemFile.objects.filter(item=new).update(created=now - timedelta(hours=1))
        runs.append(fixity.daily(now))
    seen: dict[int, list] = {f.pk: [f.created] for f in ItemFile.every_bundle.all()}
    for check in FixityCheck.objects.order_by("at", "id"):
        seen[check.file_id].append(check.at)
    return seen, runs


def longest_gap(seen: dict, end) -> timedelta:
    return max(max(b - a for a, b in zip([*times], [*times[1:], end], strict=True))
               for times in seen.values())


def test_the_scheduler_verifies_every_file_within_90_days_in_daily_slices(inventory, settings):
    settings.IBI_FIXITY_DAILY_BYTES = 10**9
    start = timezone.now()
    seen, runs = simulate(200, grow=3, start=start)
    end = start + timedelta(days=200)
    # Every file, from its deposit on, was verified again within 90 days, to the end.
    assert longest_gap(seen, end) <= timedelta(days=90)
    assert all(len(v) >= 3 for k, v in seen.items() if v[0] < start)  # the first sixty
    # In slices, not all at once: a day's share of the inventory (its files and bytes).
    assert max(r.files for r in runs) < 60 // 4 and sum(r.files for r in runs) >= 2 * 60
    assert all(r.files >= r.plan.slice_files or r.bytes >= r.plan.slice_bytes or
               r.files == 0 for r in runs)
    assert all(not r.alarms for r in runs[90:])  # budget covered, nothing overdue, none failed


def test_a_budget_too_small_raises_the_alarm_in_the_admin_and_by_mail(inventory, settings,
                                                                     admin_client, mailoutbox):
    from django.contrib.auth.models import User

    from archive.preservation.tasks import check_fixity

    settings.ADMINS = [("ops", "ops@example.org")]
    librarian = User.objects.create_user("bia", email="bia@example.org", is_staff=True)
    librarian.groups.add(services.ensure_librarians_group())
    total = sum(ItemFile.every_bundle.values_list("size", flat=True))
    settings.IBI_FIXITY_DAILY_BYTES = total // 90 // 2  # half of what the inventory needs
    seen, runs = simulate(120)
    assert all("cannot verify the 60 files" in " ".join(r.alarms) for r in runs)
    assert any(r.budget_spent for r in runs)
    assert longest_gap(seen, timezone.now() + timedelta(days=120)) > timedelta(days=90)
    assert "were not verified within 90 days" in " ".join(runs[-1].alarms)
    check_fixity.apply().get()
    assert len(mailoutbox) == 1 and set(mailoutbox[0].to) == {"ops@example.org",
                                                               "bia@example.org"}
    assert "IBI_FIXITY_DAILY_BYTES" in mailoutbox[0].body
    page = admin_client.get("/admin/", secure=True).content.decode()
    assert 'class="messagelist fixity-alarm"' in page and "cannot verify the 60 files" in page


def test_a_failed_check_is_shown_on_every_admin_page_until_it_passes(items, media, settings,
                                                                    admin_client, client):
    from archive.preservation.tasks import check_fixity

    settings.IBI_FIXITY_PERIOD_DAYS = 1
    assert "fixity-alarm" not in admin_client.get("/admin/", secure=True).content.decode()
    flip_one_byte(media, items[0].ibi, "data.csv")
    check_fixity.apply().get()
    for url in ("/admin/", "/admin/archive/item/"):
        page = admin_client.get(url, secure=True).content.decode()
        assert "1 file failed its last check" in page, url
    assert "fixity-alarm" not in client.get("/admin/login/", secure=True).content.decode()
    flip_one_byte(media, items[0].ibi, "data.csv")
    check_fixity.apply().get()
    assert "fixity-alarm" not in admin_client.get("/admin/", secure=True).content.decode()


def test_checks_older_than_the_retention_are_pruned(items, settings):
    from archive.models import FixityCheck

    settings.IBI_FIXITY_RETENTION_DAYS = 400
    settings.IBI_FIXITY_PERIOD_DAYS = 1
    now = timezone.now()
    ItemFile.every_bundle.update(created=now - timedelta(days=600))
    fixity.daily(now - timedelta(days=500))
    fixity.daily(now - timedelta(days=300))
    assert FixityCheck.objects.count() == 12
    fixity.daily(now)
    assert sorted({c.at for c in FixityCheck.objects.all()}) == [now - timedelta(days=300), now]


# The history's table on PostgreSQL: partitioned by month (migration 0056), the months ahead
# made and those past the retention dropped by the daily run, in a database of its own.
ON_POSTGRES = """
import json
from datetime import timedelta
from django.conf import settings
from django.db import connection
from django.utils import timezone
from archive.models import FixityCheck, ItemFile
from archive.preservation import fixity
from tests import factories as make
settings.IBI_FIXITY_PERIOD_DAYS = 1
def partitions():
    with connection.cursor() as cursor:
        cursor.execute("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                       "JOIN pg_class p ON p.oid = i.inhparent "
                       "WHERE p.relname = 'archive_fixitycheck' ORDER BY 1")
        return [r[0] for r in cursor.fetchall()]
with connection.cursor() as cursor:
    cursor.execute("SELECT relkind FROM pg_class WHERE relname = 'archive_fixitycheck'")
    kind = cursor.fetchone()[0]
now = timezone.now()
make.item(("a.txt", b"one"), ("b.txt", b"two"))
ItemFile.every_bundle.update(created=now - timedelta(days=3000))
old = now - timedelta(days=2500)
fixity.keep_partitions(old, ahead=0)
def placed():
    with connection.cursor() as cursor:
        cursor.execute("SELECT tableoid::regclass::text, count(*) FROM archive_fixitycheck "
                       "GROUP BY 1")
        return dict(cursor.fetchall())
fixity.daily(old)
first, before = placed(), partitions()
fixity.daily(now + timedelta(days=40))
second = placed()
fixity.daily(now + timedelta(days=41))
print(json.dumps({"vendor": connection.vendor, "kind": kind, "placed": [first, second],
                  "before": before, "after": partitions(), "old": f"{old:y%Ym%m}",
                  "ahead": f"{now + timedelta(days=41 + 62):y%Ym%m}",
                  "checks": FixityCheck.objects.count()}))
"""


@pytest.mark.postgres
def test_the_history_is_partitioned_by_month_on_postgresql(throwaway_postgres, tmp_path):
    import json
    import os

    from tests.servers import Server

    server = Server("pg", tmp_path, {**os.environ, "DATABASE_URL": throwaway_postgres(
        "ibirepo_fixity"), "MEDIA_ROOT": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"})
    try:
        found = json.loads(server.shell(ON_POSTGRES).splitlines()[-1])
    finally:
        server.close()
    assert found["vendor"] == "postgresql" and found["kind"] == "p"  # partitioned
    old = f"archive_fixitycheck_{found['old']}"
    assert "archive_fixitycheck_default" in found["before"] and old in found["before"]
    # Each check in its month's partition, none in the default one.
    later = f"archive_fixitycheck_{timezone.now() + timedelta(days=40):y%Ym%m}"
    assert found["placed"] == [{old: 2}, {later: 2}]
    # The month past the retention dropped whole; the months ahead made.
    assert old not in found["after"] and f"archive_fixitycheck_{found['ahead']}" in found["after"]
    assert found["checks"] == 4  # what the retention keeps
