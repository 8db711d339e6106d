"""Search inside files at scale (issue 37, 4): N theses of P pages of synthetic text each, on
PostgreSQL, loaded by COPY; then searches in the full text timed as /search runs them, with
the snippets of the first page of results.

    .venv/bin/python bench/fulltext_search.py                # 20 000 × 150 = 3 000 000 pages
    .venv/bin/python bench/fulltext_search.py --theses 2000  # a quick try: 300 000 pages
    .venv/bin/python bench/fulltext_search.py --reuse        # time again, no load

1. Load (skipped by --reuse when the database holds --theses theses). A database of its own
   (`ibirepo_fulltext`), dropped, created and migrated; then one transaction: N items (one
   in ten embargoed: their text must never be found), one file each (`tese.pdf`), and its P
   pages by `COPY archive_filepage … FROM STDIN`: each page ~WORDS words of Portuguese-like
   filler (two of 2 000 blocks of made-up words), and
   - COMMON words (`comumNN`), each on one page in five (a page holds ~COMMON/5 of them),
   - RARE words (`raroNNNNN`), each on 1 to 5 pages of the whole collection.
   The vectors are computed by the database as the pages are written (the generated column
   of migration 0052_fulltext_search): the COPY's time is the indexing's. The GIN index and
   the pages' unique index are dropped first and built after (their times printed), the
   search entries of the items refreshed (archive_search_refresh), VACUUM ANALYZE.
2. Time, in this process (the selectors /search calls, without the page's HTML): for
   --queries common words and as many rare ones, each a word no earlier query used (so no
   answer is kept in a cache): `find(q, where=fulltext)` (the capped ids and the count),
   then `fulltext.matches` for the first page's 20 items (their matching pages, the
   snippets of the first three of each, ts_headline); the same with where=all (the site's
   default: the record too). p50 and p95 in ms; the load average before → after.
Targets (issue 37): a word on ~20 % of the pages p95 ≤ 300 ms with snippets; a rare word
p95 ≤ 100 ms.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PK0 = 1_000_000  # loaded rows get explicit ids above anything migrate created
BASE_DATE = 1_400_000_000
START = datetime(2015, 1, 1, tzinfo=UTC)
STEP = timedelta(seconds=300)
COMMON, RARE = 60, 20_000
BLOCKS, BLOCK_WORDS = 2_000, 100
SYLLABLES = ("ba", "ca", "da", "fe", "ge", "la", "ma", "na", "pe", "ra", "sa", "ta", "vi",
             "lo", "mo", "ção", "ções", "ri", "to", "ne", "que", "di", "so", "xa", "ên", "ão")
ENV = {"DEBUG": "0", "SECURE_SSL_REDIRECT": "0", "ALLOWED_HOSTS": "127.0.0.1,localhost",
       "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
       "IBI_HOSTNAME": "bench.example.org", "IBI_IP": "192.0.2.1"}


def filler(rng: random.Random) -> list[str]:
    """BLOCKS blocks of BLOCK_WORDS made-up words (a vocabulary of ~20 000)."""
    vocabulary = sorted({"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
                         for _ in range(30_000)})
    return [" ".join(rng.choices(vocabulary, k=BLOCK_WORDS)) for _ in range(BLOCKS)]


def rare_pages(theses: int, pages: int, rng: random.Random) -> dict[int, list[int]]:
    """page index → the rare words on it: each rare word on 1 to 5 pages."""
    found: dict[int, list[int]] = {}
    for word in range(RARE):
        for _ in range(rng.randint(1, 5)):
            found.setdefault(rng.randrange(theses * pages), []).append(word)
    return found


def page_text(index: int, blocks: list[str], rare: dict[int, list[int]], words: int) -> str:
    rng = random.Random(index)
    parts = [blocks[rng.randrange(BLOCKS)] for _ in range(max(1, words // BLOCK_WORDS))]
    # Each common word on one page in five, the pages chosen apart for each word.
    parts += [f"comum{k:02d}" for k in range(COMMON) if (index * 7919 + k * 104729) % 5 == 0]
    parts += [f"raro{w:05d}" for w in rare.get(index, ())]
    rng.shuffle(parts)
    return " ".join(parts)


def load(url: str, theses: int, pages: int, words: int) -> None:
    import psycopg

    from archive.identifiers import ibi as ibilib

    rng = random.Random(37)
    blocks, rare = filler(rng), rare_pages(theses, pages, rng)
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        for table in ("archive_item", "archive_itemfile", "archive_filepage"):
            cur.execute(f"ALTER TABLE {table} DISABLE TRIGGER ALL")
        cur.execute("DROP INDEX filepage_document")
        cur.execute("ALTER TABLE archive_filepage DROP CONSTRAINT one_text_per_page")
        collection = cur.execute("SELECT min(id) FROM archive_collection").fetchone()[0]
        start = time.monotonic()
        with cur.copy("COPY archive_item (id, ibi, ibip, state, transferable, "
                      "is_archive_service, title, language, target_file, edition_family, "
                      "edition_number, created, updated, source_archive, access_rights, "
                      "embargo_until, access_reason, collection_id) FROM STDIN") as out:
            for n in range(theses):
                date = BASE_DATE + n
                rep = ibilib.repository_name("bench.example.org", 80, date)
                when = START + STEP * n
                closed = n % 10 == 9
                out.write_row((PK0 + n, rep, ibilib.ibip("192.0.2.1", 800, date), "Original",
                               True, False, f"Tese {n}", "pt-BR", "tese.pdf", rep, 1, when,
                               when, "", "embargoed" if closed else "open",
                               "2999-01-01" if closed else None, "", collection))
        with cur.copy("COPY archive_itemfile (id, item_id, name, size, sha256, content_type, "
                      "created, fixity_problem) FROM STDIN") as out:
            for n in range(theses):
                out.write_row((PK0 + n, PK0 + n, "tese.pdf", 1_000_000, f"{n:064x}",
                               "application/pdf", START + STEP * n, ""))
        print(f"   {theses} items and files in {time.monotonic() - start:.0f} s", flush=True)
        start, size = time.monotonic(), 0
        with cur.copy("COPY archive_filepage (file_id, number, text, source) FROM STDIN"
                      ) as out:
            for n in range(theses):
                for number in range(1, pages + 1):
                    text = page_text(n * pages + number - 1, blocks, rare, words)
                    size += len(text)
                    out.write_row((PK0 + n, number, text, "layer"))
                if n % 1000 == 999:
                    print(f"   … {n + 1} theses, {time.monotonic() - start:.0f} s", flush=True)
        copied = time.monotonic() - start
        print(f"   {theses * pages} pages ({size / 1e9:.2f} GB of text) copied, their vectors "
              f"computed, in {copied:.0f} s", flush=True)
        cur.execute("SET maintenance_work_mem = '1GB'")
        start = time.monotonic()
        cur.execute("ALTER TABLE archive_filepage ADD CONSTRAINT one_text_per_page "
                    "UNIQUE (file_id, number)")
        print(f"   unique (file, number) index in {time.monotonic() - start:.0f} s", flush=True)
        start = time.monotonic()
        cur.execute("CREATE INDEX filepage_document ON archive_filepage USING gin (document)")
        print(f"   GIN index in {time.monotonic() - start:.0f} s", flush=True)
        for table in ("archive_item", "archive_itemfile", "archive_filepage"):
            cur.execute(f"ALTER TABLE {table} ENABLE TRIGGER ALL")
        start = time.monotonic()
        cur.execute("SELECT archive_search_refresh(array(SELECT id FROM archive_item "
                    "WHERE id >= %s))", (PK0,))
        for table in ("archive_item", "archive_itemfile", "archive_filepage"):
            cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                        f"(SELECT max(id) FROM {table}))")
        cur.execute("UPDATE archive_changes SET token = md5(random()::text || "
                    "clock_timestamp()::text)")
        conn.commit()
        print(f"   search entries in {time.monotonic() - start:.0f} s", flush=True)
    with psycopg.connect(url, autocommit=True) as conn:
        start = time.monotonic()
        conn.execute("VACUUM ANALYZE")
        print(f"   VACUUM ANALYZE in {time.monotonic() - start:.0f} s", flush=True)
        for name, bytes_ in conn.execute(
                "SELECT relname, pg_total_relation_size(oid) FROM pg_class WHERE relname IN "
                "('archive_filepage', 'filepage_document', 'one_text_per_page')"):
            print(f"   {name}: {bytes_ / 1e9:.2f} GB", flush=True)


def loaded(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute("SELECT count(*) FROM archive_item WHERE id >= %s",
                            (PK0,)).fetchone()[0]


def load_average() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def measure(words: list[str], where: str) -> tuple[float, float, int]:
    """p50, p95 (ms) of a search's first page with its snippets; the last count."""
    from archive.search import fulltext
    from archive.search import selectors as searching

    times, count = [], 0
    for word in words:
        start = time.perf_counter()
        results = searching.find(q=word, where=where)
        first = list(results[0:20])
        found = fulltext.matches(word, first)
        count = results.count()
        times.append((time.perf_counter() - start) * 1000)
        if first and not any(m.snippets for m in found.values()):
            raise SystemExit(f"{word}: no snippet")
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1], count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--theses", type=int, default=20_000)
    parser.add_argument("--pages", type=int, default=150)
    parser.add_argument("--words", type=int, default=200, help="filler words a page")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--server", default="127.0.0.1:5432")
    parser.add_argument("--database", default="ibirepo_fulltext")
    parser.add_argument("--reuse", action="store_true")
    args = parser.parse_args()
    url = f"postgres://postgres@{args.server}/{args.database}"
    env = {**os.environ, **ENV, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    for name in ("CELERY_BROKER_URL", "AWS_STORAGE_BUCKET_NAME", "DATABASE_REPLICA_URL",
                 "CACHE_URL"):
        env.pop(name, None)
        os.environ.pop(name, None)
    os.environ.update({k: env[k] for k in ("DATABASE_URL", *ENV)})
    if not (args.reuse and loaded(url) == args.theses):
        import psycopg

        print(f"== loading {args.theses} theses × {args.pages} pages into {url}", flush=True)
        admin = f"postgres://postgres@{args.server}/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{args.database}"')
        start = time.monotonic()
        subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v", "0"],
                       env=env, check=True)
        print(f"   migrated in {time.monotonic() - start:.0f} s", flush=True)
        load(url, args.theses, args.pages, args.words)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ibirepo.settings")
    import django

    django.setup()
    from archive.search import fulltext

    rng = random.Random()
    common = rng.sample([f"comum{k:02d}" for k in range(COMMON)],
                        min(args.queries + 2, COMMON))
    rare = rng.sample([f"raro{w:05d}" for w in range(RARE)], args.queries + 2)
    print(f"== {args.theses} theses × {args.pages} pages, {len(common) - 2} and "
          f"{len(rare) - 2} queries each new", flush=True)
    # Half the words in the full text only, the other half as the site's default does; each
    # half after one query not timed, of a word of its own (a server's steady state: the
    # pages' blocks in memory, no answer kept).
    for label, words in (("common word (~20 % of pages)", common), ("rare word", rare)):
        half = (len(words) - 2) // 2
        for where, part in ((fulltext.FULLTEXT, words[:half + 1]),
                            (fulltext.ALL, words[half + 1:])):
            measure(part[:1], where)
            part = part[1:]
            before = load_average()
            p50, p95, count = measure(part, where)
            print(f"   {label:30} in={where:8} p50 {p50:6.0f} ms  p95 {p95:6.0f} ms  "
                  f"(last count {count}; load {before} → {load_average()})", flush=True)


if __name__ == "__main__":
    main()
