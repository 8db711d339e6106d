"""The thesis facets at scale (issue 34, 4): /search narrowed by an advisor, a programme, a CNPq
area or a degree level, each new, on PostgreSQL, among N items of ~25 values each.

Usage: .venv/bin/python bench/thesis_facets.py [--items 1000000] [--fillers 20] [--reuse]
           [--database-url postgres://postgres@127.0.0.1:5432/ibirepo_bench_theses]
The database is dropped and created again, migrated, then loaded by SQL: every item with a
creator, a subject, a date and filler values (dc.description.abstract) up to ~25 values; one
item in four a thesis (dc.type, an advisor among 2 000, a co-advisor for half of them, three
committee members, a programme among 300, its department, the institution, a CNPq area among
80, a degree level: doutorado for one thesis in two), and ANALYZEd. The search triggers are off
during the load (browsing by a facet reads the values, not the search entries). Then, in one
process through Django's test client: 100 searches by advisor each asked once (none in the
results cache yet: "each new"), 100 by programme, 80 by CNPq area, the two degree levels, an
advisor and a degree together, and the home page's facets (the thesis facets among them).
Target (issue 34): a search by programme or advisor within the search's targets (issue 12:
/search p95 ≤ 250 ms, facets included).
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


def field(schema: str, element: str, qualifier: str = "") -> str:
    """The SQL of a registry field's id."""
    return (f"(SELECT f.id FROM archive_metadatafield f JOIN archive_metadataschema s "
            f"ON s.id = f.schema_id WHERE s.name = '{schema}' AND f.element = '{element}' "
            f"AND f.qualifier = '{qualifier}')")


# (field, its simple Dublin Core element, value SQL of item i, which items have it)
VALUES = [
    (field("dc", "creator"), "creator", "'Autor ' || (hashint4(i.id::int) & 2147483647) %% 50000",
     "true"),
    (field("dc", "subject"), "subject", "'Assunto ' || i.id %% 500", "true"),
    (field("dc", "date"), "date", "(2000 + i.id %% 25)::text", "true"),
    (field("dc", "type"), "type", "CASE WHEN i.id %% 8 = 0 THEN 'Tese' ELSE 'Dissertação' END",
     "i.id %% 4 = 0"),
    (field("dc", "contributor", "advisor"), "contributor",
     "'Orientador ' || (hashint4(i.id::int + 1) & 2147483647) %% 2000", "i.id %% 4 = 0"),
    (field("dc", "contributor", "advisor-co"), "contributor",
     "'Coorientador ' || (hashint4(i.id::int + 2) & 2147483647) %% 2000", "i.id %% 8 = 0"),
    (field("dc", "contributor", "referee"), "contributor",
     "'Membro ' || (hashint4(i.id::int + 3) & 2147483647) %% 5000", "i.id %% 4 = 0"),
    (field("dc", "contributor", "referee"), "contributor",
     "'Membro ' || (hashint4(i.id::int + 4) & 2147483647) %% 5000", "i.id %% 4 = 0"),
    (field("dc", "contributor", "referee"), "contributor",
     "'Membro ' || (hashint4(i.id::int + 5) & 2147483647) %% 5000", "i.id %% 4 = 0"),
    (field("dc", "publisher"), "publisher", "'Universidade ' || i.id %% 20", "i.id %% 4 = 0"),
    (field("dc", "publisher", "program"), "publisher",
     "'Programa de Pós-Graduação ' || (hashint4(i.id::int + 6) & 2147483647) %% 300",
     "i.id %% 4 = 0"),
    (field("dc", "publisher", "department"), "publisher", "'Departamento ' || i.id %% 100",
     "i.id %% 4 = 0"),
    (field("dc", "subject", "cnpq"), "subject",
     "'CNPQ::AREA ' || (hashint4(i.id::int + 7) & 2147483647) %% 80", "i.id %% 4 = 0"),
    (field("local", "degree", "level"), "",
     "CASE WHEN i.id %% 8 = 0 THEN 'doutorado' ELSE 'mestrado' END", "i.id %% 4 = 0"),
]
FILLER = field("dc", "description", "abstract")

LOAD = """
ALTER TABLE archive_item DISABLE TRIGGER archive_item_search_insert;
ALTER TABLE archive_dcvalue DISABLE TRIGGER archive_dcvalue_search_insert;
INSERT INTO archive_item (ibi, ibip, state, transferable, is_archive_service, title, language,
  target_file, edition_family, edition_number, created, updated, source_archive,
  collection_id, deletion_reason, creators_withdrawn, origin_relations, access_rights,
  access_reason)
  SELECT 'bench.example/t/2020/' || n, 'IP' || n, 'Original', true, false, 'Item ' || n,
         'pt-BR', '', 'bench.example/t/2020/' || n, 1,
         timestamp '2020-01-01' + n * interval '10 seconds',
         timestamp '2020-01-01' + n * interval '10 seconds', '',
         (SELECT id FROM archive_collection WHERE slug = 'general'),
         '', false, '{}', 'open', ''
  FROM generate_series(1, %(items)s) n;
"""
VALUE = """
INSERT INTO archive_dcvalue (item_id, field_id, element, value, position, language,
                             authority, confidence)
  SELECT i.id, {field}, '{element}', {value}, 0, '', '', -1
  FROM archive_item i WHERE {where} AND NOT i.is_archive_service;
"""
FILLERS = """
INSERT INTO archive_dcvalue (item_id, field_id, element, value, position, language,
                             authority, confidence)
  SELECT i.id, {field}, 'description', 'Resumo ' || k || ' do item ' || i.id, k, 'pt_BR', '', -1
  FROM archive_item i, generate_series(1, %(fillers)s) k WHERE NOT i.is_archive_service;
"""
ENABLE = """
ALTER TABLE archive_item ENABLE TRIGGER archive_item_search_insert;
ALTER TABLE archive_dcvalue ENABLE TRIGGER archive_dcvalue_search_insert;
"""

MEASURE = """
import statistics, sys, time
import django
django.setup()
from urllib.parse import urlencode
from django.test import Client

client = Client(headers={"User-Agent": "Mozilla/5.0 (bench)"})
client.get("/search?type=warm")  # the process warmed: templates, translations

def timed(query):
    start = time.perf_counter()
    answer = client.get("/search?" + urlencode(query))
    assert answer.status_code == 200, (query, answer.status_code)
    return (time.perf_counter() - start) * 1000

def report(label, times):
    times = sorted(times)
    print(f"{label}: n={len(times)} p50={statistics.median(times):.1f} ms "
          f"p95={times[max(int(len(times) * 0.95) - 1, 0)]:.1f} ms max={times[-1]:.1f} ms")

# Today's filters on the same machine at the same time, for comparison.
report("/search?subject=<one of 500> (today's filter), each new",
       [timed({"subject": f"Assunto {n}"}) for n in range(100)])
report("/search?type=Tese (today's filter, 12.5 %), first", [timed({"type": "Tese"})])
report("/search?advisor=<one of 2 000>, each new",
       [timed({"advisor": f"Orientador {n}"}) for n in range(100)])
report("/search?programme=<one of 300>, each new",
       [timed({"programme": f"Programa de Pós-Graduação {n}"}) for n in range(100)])
report("/search?cnpq=<one of 80>, each new",
       [timed({"cnpq": f"CNPQ::AREA {n}"}) for n in range(80)])
report("/search?degree=doutorado|mestrado, each new",
       [timed({"degree": level}) for level in ("doutorado", "mestrado")])
report("/search?advisor=…&degree=doutorado, each new",
       [timed({"advisor": f"Orientador {n}", "degree": "doutorado"}) for n in range(100, 150)])
report("/search?advisor=<nobody> (no match), each new",
       [timed({"advisor": f"Ninguém {n}"}) for n in range(20)])
start = time.perf_counter()
assert client.get("/").status_code == 200
print(f"home page (facets of the newest 1 000, the thesis facets among them), first: "
      f"{(time.perf_counter() - start) * 1000:.1f} ms")
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--fillers", type=int, default=20,
                        help="filler values per item (to ~25 values each)")
    parser.add_argument("--database-url",
                        default="postgres://postgres@127.0.0.1:5432/ibirepo_bench_theses")
    parser.add_argument("--reuse", action="store_true",
                        help="time the database an earlier run loaded (migrated again)")
    args = parser.parse_args()
    base, name = args.database_url.rsplit("/", 1)
    if not args.reuse:
        with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{name}"')
    env = {**os.environ, "DATABASE_URL": args.database_url, "DEBUG": "0",
           "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-" + "k" * 50),
           "ALLOWED_HOSTS": "testserver", "DJANGO_SETTINGS_MODULE": "ibirepo.settings",
           "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env,
                   check=True)
    if not args.reuse:
        load(args)
    subprocess.run([sys.executable, "-c", MEASURE], cwd=ROOT, env=env, check=True)


def load(args: argparse.Namespace) -> None:
    start = time.perf_counter()
    statements = [LOAD % vars(args),
                  *(VALUE.format(field=f, element=e, value=v, where=w) % {}
                    for f, e, v, w in VALUES),
                  FILLERS.format(field=FILLER) % vars(args), ENABLE]
    with psycopg.connect(args.database_url, autocommit=True) as conn:
        for statement in (s for text in statements for s in text.split(";\n")):
            if statement.strip():
                conn.execute(statement)
        conn.execute("ANALYZE")
        (values,) = conn.execute("SELECT count(*) FROM archive_dcvalue").fetchone()
    print(f"loaded {args.items} items, {values} values, in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
