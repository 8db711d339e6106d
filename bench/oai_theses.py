"""OAI-PMH harvests of a thesis collection (issue 34, 5): `dim`, `mtd3-br` and `mtd2-br` (and
`oai_dc` beside them), records per second from the first page through every resumption
token, at N items of ~27 qualified values each, on PostgreSQL.

Usage: .venv/bin/python bench/oai_theses.py [--items 1000000] [--prefixes dim,mtd3-br]
           [--database-url postgres://postgres@127.0.0.1:5432/ibirepo_bench_oai_theses]
           [--pages 0] [--from 2020-01-21T20:00:00Z] [--reuse]
The database is dropped and created again, migrated, then loaded by SQL: N theses (one PDF
row each, open) with the values a DSpace thesis has (title and an English one, an author
with an ORCID iD, an advisor and a co-advisor with Lattes ids, four referees, the defence
date, citation, abstracts in Portuguese and English, sponsor, institution, programme,
department, initials, country, four keywords, the CNPq area, the type, a licence and the
degree level: 27 values under their fields of the registry), each item's values together
(as a deposit or an import writes them: an item's values share a few pages of the table), and
ANALYZEd. Then, in one
process through Django's test client (no HTTP: what is timed is the OAI-PMH code and the
database), ListRecords in each format is walked from its first page through `--pages`
resumption tokens (0: to the end), pages of IBI_OAI_PAGE_SIZE (1 000). Printed per format:
records/s over the walk and over its last ten pages (the deep end), the slowest page, the
records per second of this process's CPU time (what the walk costs Django, whatever else the
machine runs; PostgreSQL's time is not in it), and the queries a page asks (the same on every
page: no query per record).
Target (issue 34, at 1 000 000 items): `dim` and `mtd3-br` ≥ 3 000 records/s at any depth.
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

ITEMS = """
ALTER TABLE archive_item DISABLE TRIGGER archive_item_search_insert;
ALTER TABLE archive_dcvalue DISABLE TRIGGER archive_dcvalue_search_insert;
INSERT INTO archive_item (ibi, ibip, state, transferable, is_archive_service, title, language,
  target_file, edition_family, edition_number, created, updated, source_archive,
  collection_id, deletion_reason, creators_withdrawn, origin_relations, access_rights,
  access_reason)
  SELECT 'bench.example/t/2020/' || n, 'IT' || n, 'Original', true, false,
         'Modelagem hidrológica de bacias do semiárido ' || n, 'pt-BR', 'tese.pdf',
         'bench.example/t/2020/' || n, 1,
         timestamp '2020-01-01' + n * interval '10 seconds',
         timestamp '2020-01-01' + n * interval '10 seconds', '',
         (SELECT id FROM archive_collection WHERE slug = 'general'),
         '', false, '{}', 'open', ''
  FROM generate_series(1, %(items)s) n;
INSERT INTO archive_itemfile (item_id, name, size, sha256, content_type, created,
                              fixity_problem)
  SELECT id, 'tese.pdf', 2000000 + id %% 1000, lpad(to_hex(id), 64, '0'), 'application/pdf',
         created, ''
  FROM archive_item WHERE ibi LIKE 'bench.example/t/%%';
"""
# (schema, element, qualifier, value with # for the item's number, position, language,
# authority, confidence)
VALUES = [
    ("dc", "title", "", "Modelagem hidrológica de bacias do semiárido #", 0, "pt-BR", "", -1),
    ("dc", "title", "alternative", "Hydrological modelling of semi-arid basins #", 0, "en",
     "", -1),
    ("dc", "contributor", "author", "Oliveira, Mariana Costa #", 0, "", "0000-0002-1825-0097",
     600),
    ("dc", "contributor", "advisor", "Pereira, João Henrique", 0, "", "4727357182510680", 600),
    ("dc", "contributor", "advisor-co", "Almeida, Beatriz Souza", 0, "", "1234567890123452",
     500),
    ("dc", "contributor", "referee", "Pereira, João Henrique", 0, "", "4727357182510680", 600),
    ("dc", "contributor", "referee", "Santos, Carlos Eduardo", 1, "", "", -1),
    ("dc", "contributor", "referee", "Lima, Fernanda Rocha", 2, "", "", -1),
    ("dc", "contributor", "referee", "Gomes, Ricardo Tavares", 3, "", "", -1),
    ("dc", "date", "issued", "2023-02-28", 0, "", "", -1),
    ("dc", "identifier", "citation", "OLIVEIRA, Mariana Costa. Modelagem hidrológica de "
     "bacias do semiárido #. 2023. Tese (Doutorado em Engenharia Civil) - Universidade "
     "Federal do Ceará, Fortaleza, 2023.", 0, "pt-BR", "", -1),
    ("dc", "description", "abstract", "Esta tese propõe um modelo hidrológico para bacias "
     "do semiárido e avalia-o em três reservatórios. " * 8, 0, "pt-BR", "", -1),
    ("dc", "description", "abstract", "This thesis proposes a hydrological model for "
     "semi-arid basins and assesses it in three reservoirs. " * 8, 1, "en", "", -1),
    ("dc", "description", "sponsorship", "Coordenação de Aperfeiçoamento de Pessoal de Nível "
     "Superior (CAPES)", 0, "pt-BR", "", -1),
    ("dc", "publisher", "", "Universidade Federal do Ceará", 0, "pt-BR", "", -1),
    ("dc", "publisher", "program", "Programa de Pós-Graduação em Engenharia Civil", 0,
     "pt-BR", "", -1),
    ("dc", "publisher", "department", "Centro de Tecnologia", 0, "pt-BR", "", -1),
    ("dc", "publisher", "initials", "UFC", 0, "", "", -1),
    ("dc", "publisher", "country", "Brasil", 0, "", "", -1),
    ("dc", "subject", "", "Hidrologia", 0, "pt-BR", "", -1),
    ("dc", "subject", "", "Semiárido", 1, "pt-BR", "", -1),
    ("dc", "subject", "", "Hydrology", 2, "en", "", -1),
    ("dc", "subject", "", "Semi-arid", 3, "en", "", -1),
    ("dc", "subject", "cnpq", "CNPQ::ENGENHARIAS::ENGENHARIA CIVIL::RECURSOS HIDRICOS", 0, "",
     "", -1),
    ("dc", "type", "", "http://purl.org/coar/resource_type/c_db06", 0, "", "", -1),
    ("dc", "rights", "uri", "https://creativecommons.org/licenses/by/4.0/", 0, "", "", -1),
    ("local", "degree", "level", "doutorado", 0, "pt-BR", "", -1),
]
DCVALUES = """
INSERT INTO archive_dcvalue (item_id, field_id, element, value, position, language, authority,
                             confidence)
  SELECT i.id, f.id, f.dc_element, replace(t.value, '#', i.id::text), t.position, t.language,
         t.authority, t.confidence
  FROM archive_item i
  CROSS JOIN (VALUES {rows}) AS t(schema, element, qualifier, value, position, language,
                                  authority, confidence)
  JOIN archive_metadataschema s ON s.name = t.schema
  JOIN archive_metadatafield f ON f.schema_id = s.id AND f.element = t.element
                               AND f.qualifier = t.qualifier
  WHERE i.ibi LIKE 'bench.example/t/%'
  ORDER BY i.id, t.schema, t.element, t.qualifier, t.position
"""

MEASURE = """
import re, sys, time
import django
django.setup()
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

client = Client()
client.get("/oai", {"verb": "Identify"})  # the process warmed
TOKEN = re.compile(rb"<resumptionToken[^>]*>([^<]+)</resumptionToken>")
prefixes, pages, since = sys.argv[1].split(","), int(sys.argv[2]), sys.argv[3]
for prefix in prefixes:
    args, walked, queries = {"verb": "ListRecords", "metadataPrefix": prefix}, [], set()
    if since:
        args["from"] = since
    while True:
        with CaptureQueriesContext(connection) as asked:
            start, cpu = time.perf_counter(), time.process_time()
            answer = client.get("/oai", args)
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        assert answer.status_code == 200, answer.status_code
        body = answer.content
        assert b"<error" not in body, body[:500]
        walked.append((body.count(b"<record>") + body.count(b"<record "), elapsed, cpu))
        queries.add(len(asked.captured_queries))
        token = TOKEN.search(body)
        if token is None or (pages and len(walked) > pages):
            break
        args = {"verb": "ListRecords", "resumptionToken": token.group(1).decode()}
    records = sum(n for n, _, _ in walked)
    deep = walked[-10:]
    print(f"{prefix}{' from ' + since if since else ''}: {records} records in {len(walked)} pages, "
          f"{records / sum(t for _, t, _ in walked):.0f} records/s; last ten pages "
          f"{sum(n for n, _, _ in deep) / sum(t for _, t, _ in deep):.0f} records/s; slowest "
          f"page {max(t for _, t, _ in walked) * 1000:.0f} ms; Django's CPU "
          f"{records / sum(c for _, _, c in walked):.0f} records per CPU-second; queries a "
          f"page: {sorted(queries)}", flush=True)
"""


def literal(value) -> str:
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--prefixes", default="dim,mtd3-br,mtd2-br,oai_dc")
    parser.add_argument("--pages", type=int, default=0,
                        help="resumption tokens to follow (0: every one)")
    parser.add_argument("--database-url",
                        default="postgres://postgres@127.0.0.1:5432/ibirepo_bench_oai_theses")
    parser.add_argument("--reuse", action="store_true", help="the database of an earlier run")
    parser.add_argument("--from", dest="since", default="",
                        help="start the list there (YYYY-MM-DDThh:mm:ssZ): deep in it, as a "
                             "resumed harvest is; item n was changed 2020-01-01 + 10 n s")
    args = parser.parse_args()
    env = {**os.environ, "DATABASE_URL": args.database_url, "DEBUG": "0",
           "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-" + "k" * 50),
           "ALLOWED_HOSTS": "testserver", "DJANGO_SETTINGS_MODULE": "ibirepo.settings",
           "PYTHONPATH": str(ROOT), "IBI_HOSTNAME": "bench.example.org"}
    if not args.reuse:
        base, name = args.database_url.rsplit("/", 1)
        with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{name}"')
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env,
                       check=True)
        start = time.perf_counter()
        rows = ", ".join("(" + ", ".join(map(literal, row)) + ")" for row in VALUES)
        with psycopg.connect(args.database_url, autocommit=True) as conn:
            for statement in (ITEMS % vars(args)).split(";\n"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(DCVALUES.format(rows=rows))
            for table in ("archive_item", "archive_dcvalue"):
                conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER {table}_search_insert")
            conn.execute("ANALYZE")
            values = conn.execute("SELECT count(*) FROM archive_dcvalue").fetchone()[0]
        print(f"loaded {args.items} theses, {values} values, "
              f"in {time.perf_counter() - start:.0f} s", flush=True)
    subprocess.run([sys.executable, "-c", MEASURE, args.prefixes, str(args.pages), args.since],
                   cwd=ROOT, env=env, check=True)


if __name__ == "__main__":
    main()
