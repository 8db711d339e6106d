"""A real collection: N items loaded as an operator migrating a collection would, then the
pages of issue 12 timed as one reader at a time sees them.

    .venv/bin/python bench/scale.py                       # 1 000 000 items on PostgreSQL
    .venv/bin/python bench/scale.py --items 100000 --sqlite
    .venv/bin/python bench/scale.py --reuse               # the database of an earlier run
    .venv/bin/python bench/scale.py --load-only; flock -x /tmp/ibi-machine.lock \
        .venv/bin/python bench/scale.py --reuse          # load, then time under a lock

1. Load. A database of its own (`ibirepo_scale` on `--server`, or a SQLite file), migrated,
   then N items with three Dublin Core values each (creator, subject, date) and one file row,
   written by `COPY … FROM STDIN` on PostgreSQL (executemany on SQLite): only the columns a
   migration from another system would know; every other column takes its database default.
   The search triggers are off during the COPY on PostgreSQL (and on, as always, on SQLite).
   Titles mix Portuguese and English words; one word ("avaliação") is in 10 % of the titles,
   another ("magnetosfera") in 20 items. Then `manage.py reindex` builds what search derives
   from the rows, and ANALYZE gives the planner its statistics.
2. Serve. gunicorn with 2 workers (deploy/gunicorn.conf.py, DEBUG off) on that database, on
   a PostgreSQL server set up as deploy/postgresql.conf says (the bench prints its
   shared_buffers and the size of the search table).
3. Time. Each page is asked `--requests` times in a row by one client over one keep-alive
   connection (varying the item or the word where the page has one); p50 and p95 in ms.
   A search asked again is answered from the results kept until the collection changes
   (archive/search/selectors.py); "each new" rows ask what nothing kept yet.
   OAI-PMH: ListRecords from the first page through `--pages` consecutive resumption tokens;
   records per second over the whole walk, and over its last ten pages (the deep end).
Targets (issue 12, at 1 000 000 items on PostgreSQL): home p95 ≤ 100 ms, search p95 ≤ 250 ms
(facets included), /api/items/ p95 ≤ 100 ms, /api/items/?search= p95 ≤ 250 ms, ListRecords
≥ 3 000 records/s at any depth, landing page and persistent URL as fast as before (10 ms, 1 ms).
Issue 40, each new: /api/items/?search= of a word in ~25 % of the items p95 ≤ 150 ms, and
/search with two words and with a phrase p95 ≤ 150 ms.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PK0 = 1_000_000  # loaded rows get explicit ids above anything migrate created
BASE_DATE = 1_400_000_000  # POSIX seconds of the first loaded item's IBI
COMMON, RARE = "avaliação", "magnetosfera"
# In the titles of one item in six (half tagged pt-BR, half en) and in the subject of about one
# in nine more ("Observação da Terra"): about 26 % of the items, in the title or a subject.
QUARTER = "observação"
PHRASE = "sensoriamento remoto"  # a subject of one item in nine, and in some titles
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
WORDS_PT = ("relatório", "técnico", "satélite", "imagens", "clima", "floresta", "amazônica",
            "sensoriamento", "remoto", "modelo", "atmosfera", "oceano", "dados", "análise")
WORDS_EN = ("report", "technical", "satellite", "images", "climate", "forest", "remote",
            "sensing", "model", "atmosphere", "ocean", "data", "analysis", "evaluation")
SUBJECTS = ("Sensoriamento remoto", "Meteorologia", "Clima", "Astrofísica", "Geofísica",
            "Oceanografia", "Computação aplicada", "Engenharia espacial", "Observação da Terra")
SURNAMES = ("Silva", "Souza", "Oliveira", "Santos", "Pereira", "Lima", "Costa", "Banon",
            "Ferreira", "Almeida", "Ribeiro", "Carvalho")
ENV = {"DEBUG": "0", "SECURE_SSL_REDIRECT": "0", "ALLOWED_HOSTS": "127.0.0.1,localhost",
       "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
       "NUM_PROXIES": "0", "IBI_HOSTNAME": "bench.example.org", "IBI_IP": "192.0.2.1",
       "API_THROTTLE_WRITES": "1000000/minute"}


def title(n: int, rng: random.Random) -> str:
    words = WORDS_PT if n % 2 else WORDS_EN
    picked = rng.sample(words, 5)
    if n % 10 == 3:
        picked.insert(1, COMMON)
    if n % 12 in (2, 7):
        picked.insert(2, QUARTER)
    if n % 50_000 == 7:
        picked.append(RARE)
    return " ".join(picked).capitalize() + f" {n}"


def rows(count: int, collection: int):
    """(item, [dc values], file) rows for items 0 … count-1, the same on every run, in the
    collection of that id."""
    from archive.identifiers import ibi as ibilib

    rng = random.Random(12)
    start = datetime(2015, 1, 1, tzinfo=UTC)
    for n in range(count):
        pk, date = PK0 + n, BASE_DATE + n
        rep = ibilib.repository_name("bench.example.org", 80, date)
        when = start + timedelta(seconds=300 * n)
        language = "pt-BR" if n % 2 else "en"
        item = (pk, rep, ibilib.ibip("192.0.2.1", 800, date), "Original", True, False,
                title(n, rng), language, "paper.pdf", rep, 1, when, when, "", collection)
        dc = [(pk, "creator", f"{rng.choice(SURNAMES)}, {chr(65 + n % 26)}.", 0),
              (pk, "subject", rng.choice(SUBJECTS), 0),
              (pk, "date", str(2000 + n % 25), 0)]
        yield item, dc, (pk, "paper.pdf", 1000 + n % 5000, f"{n:064x}", "application/pdf", when, "")


ITEM_COLUMNS = ("id", "ibi", "ibip", "state", "transferable", "is_archive_service", "title",
                "language", "target_file", "edition_family", "edition_number", "created",
                "updated", "source_archive", "collection_id")
# Every item in the default collection, which migration 0031 made (issue 34).
DEFAULT_COLLECTION = "SELECT id FROM archive_collection WHERE slug = 'general'"
DC_COLUMNS = ("item_id", "element", "value", "position", "field_id")
# Each value names its field of the metadata registry (migrations 0027-0029): dc.<element>.
DC_FIELDS = ("SELECT f.element, f.id FROM archive_metadatafield f JOIN archive_metadataschema s "
             "ON s.id = f.schema_id WHERE s.name = 'dc' AND f.qualifier = ''")
SEARCH_TRIGGERS = ("archive_item_search_insert", "archive_dcvalue_search_insert")
FILE_COLUMNS = ("item_id", "name", "size", "sha256", "content_type", "created", "fixity_problem")


def load_postgres(url: str, count: int) -> None:
    """Three COPYs in one transaction (one COPY at a time per connection): the items, then
    their Dublin Core and file rows, kept from the first pass. As the operator's guide says
    (docs/api/search.md, "Bulk loads"), the search triggers are off for the load and `reindex`
    builds the entries after it: with them on, each item's entry would be written twice (its
    title, then its Dublin Core), leaving the table twice its size. (Switched in transactions
    of their own: ALTER TABLE waits for none of the COPY's deferred trigger events.)"""
    import psycopg

    def search_triggers(conn, switch: str) -> None:
        for trigger in SEARCH_TRIGGERS:
            table = trigger.rsplit("_search", 1)[0]
            conn.execute(f"ALTER TABLE {table} {switch} TRIGGER {trigger}")

    dcs, files = [], []
    with psycopg.connect(url, autocommit=True) as switches:
        search_triggers(switches, "DISABLE")
        try:
            with psycopg.connect(url) as conn, conn.cursor() as cur:
                collection = cur.execute(DEFAULT_COLLECTION).fetchone()[0]
                with cur.copy(f"COPY archive_item ({', '.join(ITEM_COLUMNS)}) FROM STDIN") as out:
                    for item, dc, file in rows(count, collection):
                        out.write_row(item)
                        dcs.extend(dc)
                        files.append(file)
                fields = dict(cur.execute(DC_FIELDS).fetchall())
                with cur.copy(f"COPY archive_dcvalue ({', '.join(DC_COLUMNS)}) FROM STDIN") as out:
                    for row in dcs:
                        out.write_row((*row, fields[row[1]]))
                with cur.copy(f"COPY archive_itemfile ({', '.join(FILE_COLUMNS)}) FROM STDIN"
                              ) as out:
                    for row in files:
                        out.write_row(row)
                cur.execute("SELECT setval(pg_get_serial_sequence('archive_item', 'id'), "
                            "(SELECT max(id) FROM archive_item))")
                conn.commit()
        finally:
            search_triggers(switches, "ENABLE")


def load_sqlite(path: str, count: int) -> None:
    conn = sqlite3.connect(path)
    batch: list = []
    fields = dict(conn.execute(DC_FIELDS).fetchall())

    def flush():
        conn.executemany(f"INSERT INTO archive_item ({', '.join(ITEM_COLUMNS)}) VALUES "
                         f"({', '.join('?' * len(ITEM_COLUMNS))})", [b[0] for b in batch])
        conn.executemany(f"INSERT INTO archive_dcvalue ({', '.join(DC_COLUMNS)}) VALUES "
                         "(?, ?, ?, ?, ?)", [(*row, fields[row[1]]) for b in batch for row in b[1]])
        conn.executemany(f"INSERT INTO archive_itemfile ({', '.join(FILE_COLUMNS)}) VALUES "
                         "(?, ?, ?, ?, ?, ?, ?)", [b[2] for b in batch])
        batch.clear()

    def naive(row: tuple) -> tuple:
        return tuple(v.replace(tzinfo=None).isoformat(" ") if isinstance(v, datetime) else v
                     for v in row)

    for item, dc, file in rows(count, conn.execute(DEFAULT_COLLECTION).fetchone()[0]):
        batch.append((naive(item), dc, naive(file)))
        if len(batch) == 10_000:
            flush()
    flush()
    conn.commit()
    conn.close()


def manage(env: dict, *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True)


def loaded(env: dict) -> int:
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         f"from archive.models import Item; print(Item.objects.filter(id__gte={PK0}).count())"],
        cwd=ROOT, env=env, capture_output=True, text=True)
    last = out.stdout.strip().splitlines()[-1:] if out.returncode == 0 else []
    return int(last[0]) if last and last[0].isdigit() else 0


SPELLINGS = 2 ** len(COMMON) - 1  # the common word's other spellings: at most so many rows


def respelt(word: str, n: int) -> str:
    """word with its letters upper-cased as the bits of n say: another query text, the same
    search (case is ignored)."""
    return "".join(c.upper() if n >> i & 1 else c for i, c in enumerate(word))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed(client, urls: list[str], expect: tuple[int, ...] = (200,)) -> tuple[float, float]:
    """p50 and p95 (ms) of GETs of urls, one after the other."""
    times = []
    for url in urls:
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        if response.status_code not in expect:
            raise SystemExit(f"{url}: {response.status_code} {response.text[:300]}")
    times.sort()
    return statistics.median(times), times[max(0, int(len(times) * 0.95) - 1)]


def harvest(client, base: str, pages: int) -> tuple[float, float, int]:
    """(records/s over the walk, records/s over its last ten pages, records)."""
    url = f"{base}/oai?verb=ListRecords&metadataPrefix=oai_dc"
    per_page: list[tuple[int, float]] = []
    for _ in range(pages):
        start = time.perf_counter()
        response = client.get(url)
        elapsed = time.perf_counter() - start
        response.raise_for_status()
        body = response.text
        per_page.append((body.count("<record>") + body.count("<record "), elapsed))
        token = re.search(r"<resumptionToken[^>]*>([^<]+)</resumptionToken>", body)
        if token is None:
            break
        url = f"{base}/oai?verb=ListRecords&resumptionToken={token.group(1)}"
    records = sum(n for n, _ in per_page)
    deep = per_page[-10:]
    return (records / sum(t for _, t in per_page),
            sum(n for n, _ in deep) / sum(t for _, t in deep), records)


def measure(env: dict, count: int, requests: int, pages: int) -> list[tuple[str, str]]:
    import httpx

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "ibirepo.wsgi", "-c", "deploy/gunicorn.conf.py",
         "--bind", f"127.0.0.1:{port}", "--workers", "2"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(7)
    from archive.identifiers import ibi as ibilib

    def rep(n: int) -> str:
        return ibilib.repository_name("bench.example.org", 80, BASE_DATE + n)

    try:
        # A reader's browser: a robot's accesses are not counted (COUNTER R5), a reader's are.
        with httpx.Client(timeout=120, headers={"User-Agent": BROWSER}) as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    client.get(f"{base}/robots.txt")
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("gunicorn did not come up") from None
                    time.sleep(0.2)
            words = [COMMON, "relatório", "satellite", "clima", "ocean"]
            rare_items = [n for n in range(count) if n % 50_000 == 7] or [7]
            pages_ = {
                "/ (home, figures)": [f"{base}/"] * requests,
                f"/search?q={COMMON} (common: 10 %)": [f"{base}/search?q={COMMON}"] * requests,
                # The same search of the same 10 %, spelt in another case each time: the
                # same query to the database, but nothing kept for it yet.
                f"/search?q={COMMON} (each new: AvALiAção…)": [
                    f"{base}/search?q={respelt(COMMON, n)}"
                    for n in range(1, min(requests, SPELLINGS) + 1)],
                f"/search?q={QUARTER} (25 %, each new)": [
                    f"{base}/search?q={respelt(QUARTER, n)}"
                    for n in range(1, min(requests, SPELLINGS) + 1)],
                f"/search?q={RARE} (rare)": [f"{base}/search?q={RARE}"] * requests,
                f"/search?q={RARE} (rare, each new)": [
                    f"{base}/search?q={respelt(RARE, n)}" for n in range(1, requests + 1)],
                f'/search?q="{PHRASE}" (phrase, ~15 %, each new)': [
                    f'{base}/search?q="{respelt(PHRASE, n)}"' for n in range(1, requests + 1)],
                f"/search?q={PHRASE} (two words, ~17 %, each new)": [
                    f"{base}/search?q={respelt(PHRASE, n)}" for n in range(1, requests + 1)],
                f"/search?q={COMMON} {QUARTER} (two words, ~2 %, each new)": [
                    f"{base}/search?q={respelt(COMMON, n)} {QUARTER}"
                    for n in range(1, min(requests, SPELLINGS) + 1)],
                f'/search?q="{RARE} <n>" (phrase, 1 item, each new)': [
                    f'{base}/search?q="{respelt(RARE, n)} {rare_items[n % len(rare_items)]}"'
                    for n in range(1, requests + 1)],
                "/search?q=<word> (varied)": [f"{base}/search?q={rng.choice(words)}"
                                              for _ in range(requests)],
                "/api/items/": [f"{base}/api/items/"] * requests,
                f"/api/items/?search={COMMON} (10 %, each new)": [
                    f"{base}/api/items/?search={respelt(COMMON, n)}"
                    for n in range(1, min(requests, SPELLINGS) + 1)],
                f"/api/items/?search={QUARTER} (25 %, each new)": [
                    f"{base}/api/items/?search={respelt(QUARTER, n)}"
                    for n in range(1, min(requests, SPELLINGS) + 1)],
                f'/api/items/?search="{PHRASE}" (phrase, each new)': [
                    f'{base}/api/items/?search="{respelt(PHRASE, n)}"'
                    for n in range(1, requests + 1)],
                "/items/<ibi> (landing page, each new)": [
                    f"{base}/items/{rep(rng.randrange(count))}" for _ in range(requests)],
                "/items/<ibi> (landing page, one again)": [
                    f"{base}/items/{rep(count // 2)}"] * requests,
            }
            results = []
            for name, urls in pages_.items():
                timed(client, urls[:3])  # warm: the worker's first request imports more
                p50, p95 = timed(client, urls)
                results.append((name, f"p50 {p50:7.1f} ms   p95 {p95:7.1f} ms"))
            persistent = [f"{base}/{rep(rng.randrange(count))}" for _ in range(requests)]
            p50, p95 = timed(client, persistent, expect=(302,))
            results.append(("/<ibi> (persistent URL, 302, each new)",
                            f"p50 {p50:7.1f} ms   p95 {p95:7.1f} ms"))
            p50, p95 = timed(client, persistent[:1] * requests, expect=(302,))
            results.append(("/<ibi> (persistent URL, 302, one again)",
                            f"p50 {p50:7.1f} ms   p95 {p95:7.1f} ms"))
            rate, deep, records = harvest(client, base, pages)
            results.append((f"OAI-PMH ListRecords, {pages} pages",
                            f"{rate:7.0f} records/s ({records} records; last ten pages "
                            f"{deep:.0f} records/s)"))
            return results
    finally:
        server.kill()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--sqlite", action="store_true", help="a SQLite file, not PostgreSQL")
    parser.add_argument("--database", default="ibirepo_scale", help="PostgreSQL database name")
    parser.add_argument("--server", default="127.0.0.1:5432",
                        help="PostgreSQL host:port (user postgres, trust)")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the database when it already holds --items items")
    parser.add_argument("--load-only", action="store_true",
                        help="load (unless --reuse finds it loaded) and stop: time it later, "
                             "under a lock of the machine, with --reuse")
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--pages", type=int, default=30)
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="ibi-scale-")
    env = {**os.environ, **ENV, "MEDIA_ROOT": f"{tmp}/media", "PYTHONPATH": str(ROOT)}
    for name in ("CELERY_BROKER_URL", "AWS_STORAGE_BUCKET_NAME", "DATABASE_REPLICA_URL"):
        env.pop(name, None)
    if args.sqlite:
        path = str(ROOT / f"bench-scale-{args.items}.sqlite3")
        env["DATABASE_URL"] = f"sqlite:///{path}"
    else:
        env["DATABASE_URL"] = f"postgres://postgres@{args.server}/{args.database}"
    os.environ.update({k: env[k] for k in ("DATABASE_URL", *ENV)})

    if not (args.reuse and loaded(env) == args.items):
        print(f"== loading {args.items} items into {env['DATABASE_URL']}", flush=True)
        if args.sqlite:
            Path(path).unlink(missing_ok=True)
        else:
            import psycopg

            with psycopg.connect(f"postgres://postgres@{args.server}/postgres",
                                 autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
                admin.execute(f'CREATE DATABASE "{args.database}"')
        manage(env, "migrate", "--no-input", "-v", "0")
        start = time.monotonic()
        (load_sqlite(path, args.items) if args.sqlite
         else load_postgres(env["DATABASE_URL"], args.items))
        print(f"   loaded in {time.monotonic() - start:.0f} s", flush=True)
        start = time.monotonic()
        # What the load left out (its progress bar kept out of this report).
        subprocess.run([sys.executable, "manage.py", "reindex"], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(f"   reindexed in {time.monotonic() - start:.0f} s", flush=True)
    if args.sqlite:
        # No ANALYZE, as the site runs it: SQLite's statistics count the NULLs of a unique
        # column (previous_edition_id, translation_of_id: NULL for nearly every item) as
        # one value, and the planner then scans the table instead of using its index.
        with sqlite3.connect(path) as conn:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone():
                conn.execute("DROP TABLE sqlite_stat1")
    else:
        import psycopg

        with psycopg.connect(env["DATABASE_URL"], autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
            buffers, size, too_small = conn.execute(
                "SELECT current_setting('shared_buffers'), "
                "pg_size_pretty(pg_relation_size('archive_itemsearch')), "
                "pg_relation_size('archive_itemsearch') > "
                "(SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers')"
            ).fetchone()
            print(f"== PostgreSQL: shared_buffers {buffers}, archive_itemsearch {size}"
                  + (" (larger: a common word's search reads it from the operating system's "
                     "cache; see deploy/postgresql.conf)" if too_small else ""), flush=True)
    if args.load_only:
        return
    print(f"== {args.items} items, {'SQLite' if args.sqlite else 'PostgreSQL'}, gunicorn with "
          f"2 workers, one client, {args.requests} requests a page", flush=True)
    for name, result in measure(env, args.items, args.requests, args.pages):
        print(f"{name:42s} {result}")


if __name__ == "__main__":
    main()
