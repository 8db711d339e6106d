"""Communities and collections at scale (issue 34): collection pages, each new, at N items in C
collections on PostgreSQL.

Usage: .venv/bin/python bench/collections.py [--items 1000000] [--collections 2000]
           [--database-url postgres://postgres@127.0.0.1:5432/ibirepo_bench_collections]
The database is dropped and created again, migrated, then loaded by SQL (20 faculties; the
collections among them; the items spread over the collections by a hash; one mapping for
every hundred items), and ANALYZEd. Then, in one process through Django's test client:
200 collection pages each asked once (none in the results cache yet: "each new"), a
community's page, the feeds, and the same after half of the items are moved into one
collection (a collection of 500 000: the other extreme).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent

LOAD = """
ALTER TABLE archive_item DISABLE TRIGGER archive_item_search_insert;
INSERT INTO archive_community (slug, name_pt_br, name_en, description, logo, parent_id)
  SELECT 'fac' || f, 'Faculdade ' || f, 'Faculty ' || f, '', '', NULL
  FROM generate_series(1, 20) f;
INSERT INTO archive_collection (slug, name_pt_br, name_en, description, logo,
                                default_access_rights, default_embargo_days, community_id)
  SELECT 'col' || c, 'Coleção ' || c, 'Collection ' || c, '', '', 'open', 0,
         (SELECT id FROM archive_community WHERE slug = 'fac' || (1 + c %% 20))
  FROM generate_series(1, %(collections)s) c;
INSERT INTO archive_item (ibi, ibip, state, transferable, is_archive_service, title, language,
  target_file, edition_family, edition_number, created, updated, source_archive,
  collection_id, deletion_reason, creators_withdrawn, origin_relations, access_rights,
  access_reason)
  SELECT 'bench.example/x/2020/' || n, 'IP' || n, 'Original', true, false, 'Item ' || n, 'en',
         '', 'bench.example/x/2020/' || n, 1,
         timestamp '2020-01-01' + n * interval '10 seconds',
         timestamp '2020-01-01' + n * interval '10 seconds', '',
         (SELECT min(id) FROM archive_collection WHERE slug LIKE 'col%%')
           + (hashint4(n) & 2147483647) %% %(collections)s,
         '', false, '{}', 'open', ''
  FROM generate_series(1, %(items)s) n;
INSERT INTO archive_item_mapped_collections (item_id, collection_id)
  SELECT DISTINCT ON (i, c) i, c FROM (
    SELECT (SELECT min(id) FROM archive_item) + (hashint4(k) & 2147483647) %% %(items)s AS i,
           (SELECT min(id) FROM archive_collection WHERE slug LIKE 'col%%')
             + (hashint4(k + 7) & 2147483647) %% %(collections)s AS c
    FROM generate_series(1, %(items)s / 100) k) m;
ALTER TABLE archive_item ENABLE TRIGGER archive_item_search_insert;
"""

MEASURE = """
import statistics, sys, time
import django
django.setup()
from django.db import connection
from django.test import Client

client = Client(headers={"User-Agent": "Mozilla/5.0 (bench)"})
client.get("/collections/general")  # the process warmed: templates, translations

def timed(path):
    start = time.perf_counter()
    answer = client.get(path)
    assert answer.status_code == 200, (path, answer.status_code)
    return (time.perf_counter() - start) * 1000

def report(label, times):
    times = sorted(times)
    print(f"{label}: n={len(times)} p50={statistics.median(times):.1f} ms "
          f"p95={times[int(len(times) * 0.95) - 1]:.1f} ms max={times[-1]:.1f} ms")

slugs = [f"col{n}" for n in range(2, min(202, int(sys.argv[1]) + 1))]
report("collection pages, each new", [timed(f"/collections/{s}") for s in slugs])
report("their Atom feeds, each new", [timed(f"/collections/{s}/atom.xml") for s in slugs[:50]])
report("community pages, each new", [timed(f"/communities/fac{n}") for n in range(1, 21)])
if sys.argv[2:] == ["big"]:
    print("col1 page, first (counts to 10 001)", f"{timed('/collections/col1'):.1f} ms",
          "then", f"{timed('/collections/col1'):.1f} ms")
    print("col1 page 40, first", f"{timed('/collections/col1?page=40'):.1f} ms")
    print("col1 feed", f"{timed('/collections/col1/atom.xml'):.1f} ms")
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--collections", type=int, default=2000)
    parser.add_argument("--database-url",
                        default="postgres://postgres@127.0.0.1:5432/ibirepo_bench_collections")
    args = parser.parse_args()
    base, name = args.database_url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    env = {**os.environ, "DATABASE_URL": args.database_url, "DEBUG": "0",
           "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-" + "k" * 50),
           "ALLOWED_HOSTS": "testserver", "DJANGO_SETTINGS_MODULE": "ibirepo.settings",
           "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env,
                   check=True)
    start = time.perf_counter()
    with psycopg.connect(args.database_url, autocommit=True) as conn:
        for statement in (LOAD % vars(args)).split(";\n"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("ANALYZE")
    print(f"loaded {args.items} items in {args.collections} collections "
          f"in {time.perf_counter() - start:.0f} s")
    measure = [sys.executable, "-c", MEASURE, str(args.collections)]
    subprocess.run(measure, cwd=ROOT, env=env, check=True)
    with psycopg.connect(args.database_url, autocommit=True) as conn:
        conn.execute("UPDATE archive_item SET collection_id = (SELECT id FROM "
                     "archive_collection WHERE slug = 'col1') WHERE id % 2 = 0")
        conn.execute("ANALYZE archive_item")
    print("half of the items moved into col1:")
    subprocess.run([*measure, "big"], cwd=ROOT, env=env, check=True)


if __name__ == "__main__":
    main()
