"""A university's repository of theses at scale (issue 34): N items in C collections, each a
thesis of ~26 qualified values, loaded by COPY, then the pages of issue 34 timed against a
gunicorn this script starts.

    .venv/bin/python bench/thesis_scale.py                      # 1 000 000 items, 2 000 collections
    .venv/bin/python bench/thesis_scale.py --load-only          # load, then time later with --reuse
    .venv/bin/python bench/thesis_scale.py --reuse --only harvest --formats mtd3-br
    .venv/bin/python bench/thesis_scale.py --items 20000 --collections 100   # a quick try

1. Load (skipped by --reuse when the database already holds --items loaded items). A database
   of its own (`ibirepo_thesis_scale`), dropped, created and migrated; then, in one
   transaction, 20 faculties, 400 programmes (sub-communities, one faculty's each), C
   collections (5 a programme: "Teses", "Dissertações", …) with the thesis profile, N items
   spread over them, every item with one file row (`tese.pdf`, open) and ~26 values by
   `COPY … FROM STDIN` of text produced by a generator (DcValue rows never held in memory):

     dc.contributor.author (a Lattes CV id as authority, confidence 600), dc.contributor.advisor
     (one of 2 000, an ORCID iD), dc.contributor.advisor-co (half the items),
     dc.contributor.referee ×3, dc.publisher, dc.publisher.program (its collection's
     programme: 400), .department, .initials, .country, dc.subject.cnpq (one of 80 areas),
     local.degree.level, local.degree.name, dc.type, dc.date.issued, dc.description.abstract
     in pt and in en (~600 characters each), dc.subject ×3 [pt_BR] and ×2 [en],
     dc.title.alternative [en], dc.language.iso, dc.identifier.citation, dc.rights.uri.

   Every trigger of the four tables is off during the load (`DISABLE TRIGGER ALL`: the foreign
   key checks, the search entries, the change token; the rows are consistent by
   construction), and their secondary indexes are dropped and built again after it. Then the
   change token is renewed once, and VACUUM ANALYZE. `--reindex` also builds the search
   entries (`manage.py reindex`: a facet narrows by values and needs none; a text search
   does).
2. Serve: gunicorn, 2 workers (deploy/gunicorn.conf.py, DEBUG off), one client over one
   keep-alive connection, a browser's User-Agent.
3. Time, each new (nothing kept from an earlier request): `--requests` collection pages
   (distinct collections), landing pages (random items), `/search?programme=`,
   `/search?advisor=` (and today's `/search?subject=` beside them, for comparison); p50 and
   p95 in ms. OAI-PMH: for each `--formats` prefix, ListRecords walks of `--pages` pages,
   following the resumption tokens, starting at the head of the list, at its middle and near
   its end (`from=` the datestamp of item N/2 and of item N - pages × page size - 1): records
   per second over each walk. The load average (1 min) before → after each row is printed
   beside it.
Targets (issue 34, 1 000 000 items, 2 000 collections, PostgreSQL with deploy/postgresql.conf):
collection page p95 ≤ 100 ms, landing page p95 ≤ 50 ms, `dim` (and `mtd3-br`) ≥ 3 000
records/s at any depth, a search by programme or advisor p95 ≤ 150 ms (docs/api/search.md).
"""
from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from scale import BROWSER, ENV, free_port, timed  # noqa: E402

PK0 = 1_000_000  # loaded rows get explicit ids above anything migrate created
BASE_DATE = 1_400_000_000  # POSIX seconds of the first loaded item's IBI
START = datetime(2015, 1, 1, tzinfo=UTC)  # the first item's deposit; one every STEP
STEP = timedelta(seconds=300)
FACULTIES, PROGRAMMES = 20, 400
ADVISORS, REFEREES, AUTHORS, CNPQ_AREAS = 2_000, 6_000, 400_000, 80
KINDS = ("Teses", "Dissertações", "Artigos", "Relatórios", "Trabalhos de conclusão")
SURNAMES = ("Silva", "Souza", "Oliveira", "Santos", "Pereira", "Lima", "Costa", "Ferreira",
            "Almeida", "Ribeiro", "Carvalho", "Gomes", "Martins", "Rocha", "Araújo", "Barbosa")
GIVEN = ("Ana", "João", "Maria", "Carlos", "Beatriz", "Paulo", "Fernanda", "Ricardo", "Luísa",
         "Eduardo", "Helena", "Marcos", "Patrícia", "Rafael", "Juliana", "Tiago")
AREAS = ("CIENCIAS EXATAS E DA TERRA", "CIENCIAS BIOLOGICAS", "ENGENHARIAS",
         "CIENCIAS DA SAUDE", "CIENCIAS AGRARIAS", "CIENCIAS SOCIAIS APLICADAS",
         "CIENCIAS HUMANAS", "LINGUISTICA, LETRAS E ARTES")
WORDS_PT = ("modelagem", "clima", "regional", "floresta", "amazônica", "solo", "água", "energia",
            "redes", "aprendizado", "dados", "saúde", "educação", "política", "sociedade",
            "linguagem", "história", "materiais", "supercondutividade", "filmes", "finos")
WORDS_EN = ("modelling", "climate", "regional", "forest", "amazon", "soil", "water", "energy",
            "networks", "learning", "data", "health", "education", "policy", "society",
            "language", "history", "materials", "superconductivity", "thin", "films")
# name → (schema, element, qualifier)
FIELDS = {name: tuple((name.split(".") + [""])[:3]) for name in (
    "dc.contributor.author", "dc.contributor.advisor", "dc.contributor.advisor-co",
    "dc.contributor.referee", "dc.publisher", "dc.publisher.program", "dc.publisher.department",
    "dc.publisher.initials", "dc.publisher.country", "dc.subject.cnpq", "local.degree.level",
    "local.degree.name", "dc.type", "dc.date.issued", "dc.description.abstract", "dc.subject",
    "dc.title.alternative", "dc.language.iso", "dc.identifier.citation", "dc.rights.uri")}
ITEM_COLUMNS = ("id", "ibi", "ibip", "state", "transferable", "is_archive_service", "title",
                "language", "target_file", "edition_family", "edition_number", "created",
                "updated", "source_archive", "collection_id")
DC_COLUMNS = ("id", "item_id", "field_id", "element", "value", "position", "language",
              "authority", "confidence")
FILE_COLUMNS = ("item_id", "name", "size", "sha256", "content_type", "created", "fixity_problem")
TABLES = ("archive_item", "archive_dcvalue", "archive_itemfile",
          "archive_item_mapped_collections")
NOT_CONSTRAINTS = """SELECT i.indexname, i.indexdef FROM pg_indexes i
  WHERE i.tablename = %s AND NOT EXISTS (SELECT 1 FROM pg_constraint c
    WHERE c.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)"""


def ibi(n: int) -> str:
    from archive.identifiers import ibi as ibilib

    return ibilib.repository_name("bench.example.org", 80, BASE_DATE + n)


def person(n: int, salt: int) -> str:
    h = (n * 2654435761 + salt * 40503) & 0xFFFFFFFF
    return (f"{SURNAMES[h % 16]}, {GIVEN[(h >> 4) % 16]} {GIVEN[(h >> 8) % 16][0]}. "
            f"{n}")  # the number keeps the names distinct


def lattes(n: int) -> str:
    return f"{(n * 7919 + 1234567890123456) % 10**16:016d}"


def orcid(n: int) -> str:
    """A well-formed ORCID iD (ISO 7064 11,2 check digit)."""
    digits = f"{(n * 104729) % 10**15:015d}"
    total = 0
    for d in digits:
        total = (total + int(d)) * 2
    check = (12 - total % 11) % 11
    body = digits + ("X" if check == 10 else str(check))
    return "-".join(body[i:i + 4] for i in range(0, 16, 4))


def cnpq(n: int) -> str:
    return f"CNPQ::{AREAS[n % len(AREAS)]}::SUBAREA {n}"


def programme(p: int) -> str:
    return f"Programa de Pós-Graduação {p}"


def collection_of(n: int, collections: int) -> int:
    """The index (0 …) of item n's collection: spread, not in runs."""
    return (n * 2654435761 >> 7) % collections


def texts(words: tuple[str, ...], count: int, length: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = []
        while sum(len(w) + 1 for w in text) < length:
            text.append(rng.choice(words))
        out.append(" ".join(text).capitalize() + ".")
    return out


def dc_lines(count: int, collections: int, field: dict[str, tuple[int, str]]):
    """The text COPY lines of archive_dcvalue for items 0 … count-1, 10 000 items at a time."""
    abstracts_pt = texts(WORDS_PT, 997, 600, 1)
    abstracts_en = texts(WORDS_EN, 991, 600, 2)
    value_id = PK0 * 30
    lines: list[str] = []

    def add(pk: int, name: str, value: str, position: int = 0, language: str = "",
            authority: str = "", confidence: int = -1) -> None:
        nonlocal value_id
        field_id, element = field[name]
        lines.append(f"{value_id}\t{pk}\t{field_id}\t{element}\t{value}\t{position}\t"
                     f"{language}\t{authority}\t{confidence}\n")
        value_id += 1

    for n in range(count):
        pk = PK0 + n
        p = collection_of(n, collections) // 5
        doctorate = n % 3 == 0
        year = 2000 + n % 25
        advisor = (n * 40503 >> 5) % ADVISORS
        add(pk, "dc.contributor.author", person(n % AUTHORS, 1), 0, "", lattes(n), 600)
        add(pk, "dc.contributor.advisor", person(advisor, 2), 0, "", orcid(advisor), 600)
        if n % 2:
            co = (n * 69069 >> 3) % ADVISORS
            add(pk, "dc.contributor.advisor-co", person(co, 2), 0, "", lattes(co + 7), 600)
        for k in range(3):
            add(pk, "dc.contributor.referee", person((n * 31 + k * 977) % REFEREES, 3), k)
        add(pk, "dc.publisher", f"Universidade Federal {p % FACULTIES}")
        add(pk, "dc.publisher.program", programme(p))
        add(pk, "dc.publisher.department", f"Departamento {p % 100}")
        add(pk, "dc.publisher.initials", f"UF{p % FACULTIES}")
        add(pk, "dc.publisher.country", "Brasil")
        add(pk, "dc.subject.cnpq", cnpq(p % CNPQ_AREAS))
        add(pk, "local.degree.level", "doutorado" if doctorate else "mestrado")
        add(pk, "local.degree.name", "Doutor" if doctorate else "Mestre")
        add(pk, "dc.type", "Tese" if doctorate else "Dissertação")
        add(pk, "dc.date.issued", f"{year}-{1 + n % 12:02d}-{1 + n % 28:02d}")
        add(pk, "dc.description.abstract", abstracts_pt[n % 997], 0, "pt_BR")
        add(pk, "dc.description.abstract", abstracts_en[n % 991], 1, "en")
        for k in range(3):  # keywords: ~40 000 in each language, each on ~75 items
            add(pk, "dc.subject", f"{WORDS_PT[(n + 7 * k) % 21]} {(n * 7 + k) % 2000}", k,
                "pt_BR")
        for k in range(2):
            add(pk, "dc.subject", f"{WORDS_EN[(n + 5 * k) % 21]} {(n * 11 + k) % 2000}", 3 + k,
                "en")
        add(pk, "dc.title.alternative", f"{abstracts_en[n % 991][:60].strip()} {n}", 0, "en")
        add(pk, "dc.language.iso", "por")
        add(pk, "dc.identifier.citation",
            f"{person(n % AUTHORS, 1)}. Tese {n}. {year}. "
            f"{'Tese (Doutorado)' if doctorate else 'Dissertação (Mestrado)'} — "
            f"{programme(p)}, Universidade Federal {p % FACULTIES}, {year}.")
        add(pk, "dc.rights.uri", "https://creativecommons.org/licenses/by/4.0/")
        if len(lines) >= 250_000:
            yield "".join(lines).encode()
            lines.clear()
    yield "".join(lines).encode()


def load(url: str, count: int, collections: int) -> None:
    import psycopg

    from archive.identifiers import ibi as ibilib

    with psycopg.connect(url) as conn, conn.cursor() as cur:
        dropped = []
        for table in TABLES:
            cur.execute(f"ALTER TABLE {table} DISABLE TRIGGER ALL")
            for name, definition in cur.execute(NOT_CONSTRAINTS, (table,)).fetchall():
                cur.execute(f'DROP INDEX "{name}"')
                dropped.append(definition)
        field = {}
        for name, (schema, element, qualifier) in FIELDS.items():
            row = cur.execute(
                "SELECT f.id, f.dc_element FROM archive_metadatafield f JOIN "
                "archive_metadataschema s ON s.id = f.schema_id WHERE s.name = %s AND "
                "f.element = %s AND f.qualifier = %s", (schema, element, qualifier)).fetchone()
            if row is None:
                raise SystemExit(f"the registry has no {name}")
            field[name] = row
        profile = cur.execute("SELECT id FROM archive_submissionprofile WHERE slug = 'tese'"
                              ).fetchone()[0]
        root = cur.execute("SELECT id FROM archive_community WHERE parent_id IS NULL "
                           "ORDER BY id LIMIT 1").fetchone()[0]
        cur.execute("INSERT INTO archive_community (slug, name_pt_br, name_en, description, "
                    "logo, parent_id) SELECT 'fac' || f, 'Faculdade ' || f, 'Faculty ' || f, "
                    "'', '', %s FROM generate_series(0, %s) f", (root, FACULTIES - 1))
        cur.execute("INSERT INTO archive_community (slug, name_pt_br, name_en, description, "
                    "logo, parent_id) SELECT 'ppg' || p, 'Programa de Pós-Graduação ' || p, "
                    "'Graduate programme ' || p, '', '', (SELECT id FROM archive_community "
                    "WHERE slug = 'fac' || p %% %s) FROM generate_series(0, %s) p",
                    (FACULTIES, PROGRAMMES - 1))
        programmes = dict(cur.execute(
            "SELECT slug, id FROM archive_community WHERE slug LIKE 'ppg%'").fetchall())
        with cur.copy("COPY archive_collection (slug, name_pt_br, name_en, description, logo, "
                      "default_access_rights, default_embargo_days, community_id, handle, "
                      "profile_id) FROM STDIN") as out:
            for c in range(collections):
                kind = KINDS[c % 5]
                out.write_row((f"col{c}", f"{kind} {c}", f"{kind} (en) {c}", "", "", "open", 0,
                               programmes[f"ppg{(c // 5) % PROGRAMMES}"], f"123456789/{c}",
                               profile))
        slugs = dict(cur.execute("SELECT slug, id FROM archive_collection").fetchall())
        ids = [slugs[f"col{c}"] for c in range(collections)]
        start = time.monotonic()
        with cur.copy(f"COPY archive_item ({', '.join(ITEM_COLUMNS)}) FROM STDIN") as out:
            for n in range(count):
                date = BASE_DATE + n
                rep = ibilib.repository_name("bench.example.org", 80, date)
                when = START + STEP * n
                out.write_row((PK0 + n, rep, ibilib.ibip("192.0.2.1", 800, date), "Original",
                               True, False, f"Tese {n}: {WORDS_PT[n % 21]} e {WORDS_PT[n % 19]}",
                               "pt-BR", "tese.pdf", rep, 1, when, when, "",
                               ids[collection_of(n, collections)]))
        print(f"   items in {time.monotonic() - start:.0f} s", flush=True)
        start = time.monotonic()
        with cur.copy(f"COPY archive_dcvalue ({', '.join(DC_COLUMNS)}) FROM STDIN") as out:
            for chunk in dc_lines(count, collections, field):
                out.write(chunk)
        print(f"   values in {time.monotonic() - start:.0f} s", flush=True)
        start = time.monotonic()
        with cur.copy(f"COPY archive_itemfile ({', '.join(FILE_COLUMNS)}) FROM STDIN") as out:
            for n in range(count):
                out.write_row((PK0 + n, "tese.pdf", 100_000 + n % 5000, f"{n:064x}",
                               "application/pdf", START + STEP * n, ""))
        print(f"   files in {time.monotonic() - start:.0f} s", flush=True)
        start = time.monotonic()
        cur.execute("SET maintenance_work_mem = '512MB'")
        for definition in dropped:
            cur.execute(definition)
        print(f"   {len(dropped)} indexes built again in {time.monotonic() - start:.0f} s",
              flush=True)
        for table in TABLES:
            cur.execute(f"ALTER TABLE {table} ENABLE TRIGGER ALL")
        for table in ("archive_item", "archive_dcvalue", "archive_itemfile"):
            cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                        f"(SELECT max(id) FROM {table}))")
        # What the disabled triggers would have done once for the transaction.
        cur.execute("UPDATE archive_changes SET token = md5(random()::text || "
                    "clock_timestamp()::text)")
        conn.commit()


def loaded(url: str) -> int:
    import psycopg

    try:
        with psycopg.connect(url) as conn:
            return conn.execute("SELECT count(*) FROM archive_item WHERE id >= %s",
                                (PK0,)).fetchone()[0]
    except psycopg.Error:
        return 0


def load_average() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def walk(client, base: str, prefix: str, pages: int, since: datetime | None
         ) -> tuple[float, int]:
    """(records/s, records) over `pages` pages of ListRecords from `since`, by the tokens."""
    url = f"{base}/oai?verb=ListRecords&metadataPrefix={prefix}"
    if since is not None:
        url += f"&from={since.strftime('%Y-%m-%dT%H:%M:%SZ')}"
    records, elapsed = 0, 0.0
    for _ in range(pages):
        start = time.perf_counter()
        response = client.get(url)
        elapsed += time.perf_counter() - start
        if response.status_code != 200 or "<error" in response.text:
            raise SystemExit(f"{url}: {response.status_code} {response.text[:500]}")
        body = response.text
        records += body.count("<record>") + body.count("<record ")
        token = re.search(r"<resumptionToken[^>]*>([^<]+)</resumptionToken>", body)
        if token is None:
            break
        url = f"{base}/oai?verb=ListRecords&resumptionToken={token.group(1)}"
    return records / elapsed, records


def measure(env: dict, count: int, collections: int, requests: int, pages: int,
            formats: list[str], only: set[str], seed: int) -> None:
    import httpx

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "ibirepo.wsgi", "-c", "deploy/gunicorn.conf.py",
         "--bind", f"127.0.0.1:{port}", "--workers", "2"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(seed)
    try:
        with httpx.Client(timeout=300, headers={"User-Agent": BROWSER}) as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    client.get(f"{base}/robots.txt")
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("gunicorn did not come up") from None
                    time.sleep(0.2)
            cols = rng.sample(range(collections), min(collections, requests + 3))
            advisors = rng.sample(range(ADVISORS), requests + 3)
            progs = rng.sample(range(PROGRAMMES), min(PROGRAMMES, requests + 3))
            words = [f"{w}" for w in WORDS_PT] + [f"{w}" for w in WORDS_EN]
            rows = {
                "collection": [("/collections/<slug> (each new)",
                                [f"{base}/collections/col{c}" for c in cols])],
                "landing": [("/items/<ibi> (landing page, each new)",
                             [f"{base}/items/{ibi(rng.randrange(count))}"
                              for _ in range(requests + 3)])],
                "facets": [
                    ("/search?subject=<keyword> (today's filter, each new)",
                     [f"{base}/search?subject={words[k % len(words)]} {k * 37 % 2000}"
                      for k in range(requests + 3)]),
                    ("/search?programme=<one of 400> (each new)",
                     [f"{base}/search?programme={programme(p)}" for p in progs]),
                    ("/search?advisor=<one of 2 000> (each new)",
                     [f"{base}/search?advisor={person(a, 2)}" for a in advisors]),
                ],
            }
            for group, entries in rows.items():
                if group not in only:
                    continue
                for name, urls in entries:
                    timed(client, urls[:3])  # warm: the worker's first request imports more
                    before = load_average()
                    p50, p95 = timed(client, urls[3:])
                    print(f"{name:52s} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   "
                          f"(n={len(urls) - 3}, load {before} → {load_average()})", flush=True)
            if "harvest" in only:
                for prefix in formats:
                    size = walk(client, base, prefix, 2, None)[1] // 2  # warm; the page size
                    for label, n in (("head", None), ("middle", count // 2),
                                     ("end", max(0, count - pages * size - 1))):
                        since = None if n is None else START + STEP * n
                        before = load_average()
                        rate, records = walk(client, base, prefix, pages, since)
                        print(f"OAI-PMH ListRecords {prefix} from the {label:6s} ({pages} pages)"
                              f"{'':8s} {rate:7.0f} records/s ({records} records, load "
                              f"{before} → {load_average()})", flush=True)
    finally:
        server.kill()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--collections", type=int, default=2000)
    parser.add_argument("--database", default="ibirepo_thesis_scale")
    parser.add_argument("--server", default="127.0.0.1:5432",
                        help="PostgreSQL host:port (user postgres, trust)")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the database when it already holds --items items")
    parser.add_argument("--load-only", action="store_true")
    parser.add_argument("--reindex", action="store_true",
                        help="also build the search entries (manage.py reindex) after loading")
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--seed", type=int, default=34,
                        help="which collections, items, programmes and advisors are asked for: "
                             "another seed, others (a second run with the same one finds "
                             "their pages in PostgreSQL's buffers)")
    parser.add_argument("--pages", type=int, default=30)
    parser.add_argument("--formats", default="dim",
                        help="OAI-PMH metadata prefixes to harvest, comma-separated "
                             "(dim, mtd2-br, mtd3-br, oai_dc, …)")
    parser.add_argument("--only", default="collection,landing,harvest,facets",
                        help="which to time, comma-separated: collection, landing, harvest, "
                             "facets")
    args = parser.parse_args()
    if args.collections % 5 or args.collections // 5 > PROGRAMMES:
        raise SystemExit(f"--collections: a multiple of 5, at most {5 * PROGRAMMES}")

    tmp = tempfile.mkdtemp(prefix="ibi-thesis-scale-")
    url = f"postgres://postgres@{args.server}/{args.database}"
    env = {**os.environ, **ENV, "MEDIA_ROOT": f"{tmp}/media", "PYTHONPATH": str(ROOT),
           "DATABASE_URL": url}
    for name in ("CELERY_BROKER_URL", "AWS_STORAGE_BUCKET_NAME", "DATABASE_REPLICA_URL"):
        env.pop(name, None)
    os.environ.update({k: env[k] for k in ("DATABASE_URL", *ENV)})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ibirepo.settings")

    if not (args.reuse and loaded(url) == args.items):
        import psycopg

        print(f"== loading {args.items} items in {args.collections} collections into {url}",
              flush=True)
        with psycopg.connect(f"postgres://postgres@{args.server}/postgres",
                             autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{args.database}"')
        subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
                       cwd=ROOT, env=env, check=True)
        start = time.monotonic()
        load(url, args.items, args.collections)
        print(f"   loaded in {time.monotonic() - start:.0f} s (load {load_average()})",
              flush=True)
        start = time.monotonic()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
            values = conn.execute("SELECT count(*) FROM archive_dcvalue").fetchone()[0]
            size = conn.execute("SELECT pg_size_pretty(pg_database_size(current_database()))"
                                ).fetchone()[0]
        print(f"   VACUUM ANALYZE in {time.monotonic() - start:.0f} s; {values} values, "
              f"database {size}", flush=True)
    if args.reindex:
        start = time.monotonic()
        subprocess.run([sys.executable, "manage.py", "reindex", "--missing"], cwd=ROOT,
                       env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(f"   reindexed in {time.monotonic() - start:.0f} s", flush=True)
    if args.load_only:
        return
    import psycopg

    with psycopg.connect(url) as conn:
        buffers = conn.execute("SELECT current_setting('shared_buffers')").fetchone()[0]
    print(f"== {args.items} items, {args.collections} collections, PostgreSQL (shared_buffers "
          f"{buffers}), gunicorn with 2 workers, one client; {datetime.now(UTC):%Y-%m-%d %H:%M} "
          f"UTC, load {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    measure(env, args.items, args.collections, args.requests, args.pages,
            args.formats.split(","), set(args.only.split(",")), args.seed)


if __name__ == "__main__":
    main()
