"""COUNTER R5.1 reports at scale (issue 39): an Item Report of N items × 12 months streamed
(target ≤ 60 s, ≤ 256 MB RSS), a Platform Report (≤ 1 s), the usage dashboard (p95 ≤ 300 ms).

Usage: .venv/bin/python bench/counter_reports.py [--items 1000000] [--database-url URL]
Without --database-url: a throw-away SQLite database. The database is migrated, then loaded
by SQL: N items in 200 collections, each with a row a month for the 12 months of 2025 in
MonthlyItemUsage (Open; every 20th item a Controlled row too), the collections' sums, the
months marked rolled up.
Then, in one fresh process through Django's test client: the Item Report read to its end
(time, the process's peak RSS before and after), the Platform Report, and 50 dashboard pages
(repository, a collection, an item) as a superuser.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LOAD = """
import time
import django
django.setup()
from django.db import connection
N = int(sys.argv[1])
started = time.monotonic()
with connection.cursor() as c:
    if connection.vendor == "sqlite":
        c.execute("PRAGMA synchronous = OFF")
        c.execute("PRAGMA journal_mode = MEMORY")
        for (name,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                 " AND tbl_name = 'archive_item'").fetchall():
            c.execute(f"DROP TRIGGER {name}")  # a throw-away database: no search entries
        series = "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {})"
        hashed = "((n * 2654435761) % 200)"
    else:
        c.execute("ALTER TABLE archive_item DISABLE TRIGGER USER")
        series = "WITH s(n) AS (SELECT generate_series(1, {}))"
        hashed = "((n::bigint * 2654435761) % 200)"
    c.execute("INSERT INTO archive_collection (slug, name_pt_br, name_en, description, logo,"
              " default_access_rights, default_embargo_days, community_id,"
              " deposit_licence) " + series.format(200) +
              " SELECT 'col' || n, 'Coleção ' || n, 'Collection ' || n, '', '', 'open', 0,"
              " (SELECT min(id) FROM archive_community), '' FROM s")
    base = "(SELECT min(id) FROM archive_collection WHERE slug LIKE 'col%')"
    c.execute("INSERT INTO archive_item (ibi, ibip, state, transferable, is_archive_service,"
              " title, language, target_file, edition_family, edition_number, created, updated,"
              " source_archive, collection_id, deletion_reason, creators_withdrawn,"
              " origin_relations, access_rights, access_reason) " + series.format(N) +
              " SELECT 'bench.example/x/2020/' || n, 'IP' || n, 'Original', true, false,"
              " 'Item ' || n, 'en', '', 'bench.example/x/2020/' || n, 1, '2020-01-01',"
              " '2020-01-01', '', " + base + " + " + hashed + ", '', false, '{}', 'open', ''"
              " FROM s")
    months = ["2025-%02d-01" % m for m in range(1, 13)]
    first = "(SELECT min(id) FROM archive_item WHERE ibi LIKE 'bench.example/%')"
    for month in months:
        for access, every in (("open", 1), ("controlled", 20)):
            # With parameters: a "%" of the statement's own is written "%%".
            c.execute("INSERT INTO archive_monthlyitemusage (item_id, month, access_type,"
                      " data_type, yop, collection_id, total_investigations,"
                      " unique_investigations, total_requests, unique_requests) "
                      + series.format(N) + " SELECT " + first.replace("%", "%%")
                      + " + n - 1, %s, %s, 'Thesis_or_Dissertation', '2020', "
                      + base.replace("%", "%%") + " + " + hashed.replace("%", "%%") + ","
                      " 1 + n %% 7, 1 + n %% 5, 1 + n %% 3, 1 + n %% 2 FROM s"
                      " WHERE n %% " + str(every) + " = 0", [month, access])
        c.execute("INSERT INTO archive_monthlycollectionusage (collection_id, month,"
                  " access_type, data_type, total_investigations, unique_investigations,"
                  " total_requests, unique_requests) SELECT collection_id, month, access_type,"
                  " data_type, SUM(total_investigations), SUM(unique_investigations),"
                  " SUM(total_requests), SUM(unique_requests) FROM archive_monthlyitemusage"
                  " WHERE month = %s GROUP BY collection_id, month, access_type, data_type",
                  [month])
        c.execute("INSERT INTO archive_usagemonth (month, rolled_up_at) VALUES (%s, %s)",
                  [month, "2026-01-02 00:00:00"])
    c.execute("ANALYZE")
print(f"loaded {N} items x 12 months (+5 % Controlled) in {time.monotonic() - started:.0f} s")
"""

MEASURE = """
import resource, statistics, time
import django
django.setup()
from django.contrib.auth.models import User
from django.test import Client
from archive.models import CounterCustomer, Collection, Item
from archive.usage import services

def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MiB (Linux: KiB)

key = services.issue_key(CounterCustomer.objects.get_or_create(customer_id="bench",
                                                              name="Bench")[0])
client = Client()
params = {"customer_id": "0000000000000000", "api_key": key, "begin_date": "2025-01",
          "end_date": "2025-12", "attributes_to_show": "Access_Type|YOP"}
client.get("/r51/status", secure=True)
before = rss()
started = time.monotonic()
response = client.get("/r51/reports/ir", params, secure=True)
size = items = 0
for piece in response.streaming_content:
    size += len(piece)
    items += piece.count(b'{"Items"')
took = time.monotonic() - started
print(f"IR: {items} items, {size / 2**20:.0f} MiB of JSON in {took:.1f} s"
      f" ({items / took:.0f} items/s); peak RSS {before:.0f} -> {rss():.0f} MiB")
times = []
for _ in range(5):
    started = time.monotonic()
    assert client.get("/r51/reports/pr", params, secure=True).status_code == 200
    times.append(time.monotonic() - started)
print(f"PR: {min(times) * 1000:.0f} ms best, {max(times) * 1000:.0f} ms worst of 5")
admin = (User.objects.filter(username="bench").first()
         or User.objects.create_superuser("bench", password="x"))
client.force_login(admin)
collection = Collection.objects.filter(slug="col7").first()
item = Item.objects.order_by("pk").last()
for scope, pk in (("repository", ""), ("collection", collection.pk), ("item", item.pk)):
    times = []
    for _ in range(50):
        started = time.monotonic()
        page = client.get("/admin/archive/usagemonth/", {"scope": scope, "id": pk}, secure=True)
        assert page.status_code == 200, page.status_code
        times.append(time.monotonic() - started)
    times.sort()
    print(f"dashboard {scope}: median {statistics.median(times) * 1000:.0f} ms,"
          f" p95 {times[int(len(times) * 0.95) - 1] * 1000:.0f} ms")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--only-measure", action="store_true",
                        help="reuse the database of --database-url as loaded before")
    parser.add_argument("--only-load", action="store_true",
                        help="load --database-url, measure nothing (then --only-measure "
                             "under flock -x /tmp/ibi-machine.lock)")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="ibi-counter-bench-")
    url = args.database_url or f"sqlite:///{tmp}/bench.sqlite3"
    env = {**os.environ, "DATABASE_URL": url, "MEDIA_ROOT": f"{tmp}/media",
           "PYTHONPATH": str(ROOT), "DJANGO_SETTINGS_MODULE": "ibirepo.settings",
           "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
           "ALLOWED_HOSTS": "testserver,localhost", "IBI_EXTRACT_TEXT": "0"}
    for name in ("CELERY_BROKER_URL", "AWS_STORAGE_BUCKET_NAME", "DATABASE_REPLICA_URL"):
        env.pop(name, None)
    if not args.only_measure:
        subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
                       cwd=ROOT, env=env, check=True)
        subprocess.run([sys.executable, "-c", "import sys\n" + LOAD, str(args.items)],
                       cwd=ROOT, env=env, check=True)
    if args.only_load:
        return
    print("== measuring (take flock -x /tmp/ibi-machine.lock around this part)", flush=True)
    subprocess.run([sys.executable, "-c", MEASURE], cwd=ROOT, env=env, check=True)


if __name__ == "__main__":
    main()
