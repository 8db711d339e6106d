"""The archive service's cost: SQL queries and time per urlRequest as the archive grows, and
req/s against a bare Django view on the same server.

    .venv/bin/python bench/archive_service.py [--sizes 1000 100000] [--rounds 500]
                                              [--seconds 5] [--repeats 3]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<an empty database> .venv/bin/python …

1. In process, on throw-away databases, one per size (the largest in DATABASE_URL's, the
   others beside it: files, or databases created on the same server and dropped after): items
   are bulk-created in groups of ten (an English chain of five editions, and a Portuguese chain
   of five, each edition a translation of its English one), each with a file row. The same
   item (the first edition of an English chain) is asked with the verb lists below, each time
   with the answer cache emptied (so the answer is built, as on the first request after any
   change). The sizes' databases take turns, ten blocks of `rounds`/10 calls each, so that the
   machine's drift falls on every size alike; the report is the number of SQL queries and the
   best block's median time. Targets (issue 4): the queries do not grow with the number of
   items, and the time at the largest size is at most 1.2 × the smallest.
2. Over HTTP: gunicorn (one sync worker, DEBUG off) on the largest database serves the archive
   service and, for comparison, two bench-only views through the same middleware: one
   returning a fixed text/plain body, one returning the archive service's IBI read with one
   raw query (the floor of any answer from the database). wrk (Debian package `wrk`; else a
   Python httpx loop) drives one connection at a time for `seconds`, alternating the three,
   `repeats` times; after the first request the answer comes from the answer cache (no query:
   the change token is read in process on SQLite, announced by PostgreSQL). Target: the
   answer costs at most 2 × the bare view (ratio of req/s).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = 10  # turns each size's database takes in part 1
PK0 = 1_000_000  # bulk rows get explicit ids above the archive service's
BASE_DATE = 1_500_000_000
VERBS = {
    "plain (Ex. 10.1)": "",
    "GetLastEdition GetMetadata(oai_dc) (§10.2)": "GetLastEdition GetMetadata(oai_dc)",
    "GetTranslation (Ex. 9.3)": "GetTranslation",
}
ENV = {"DEBUG": "0", "SECURE_SSL_REDIRECT": "0", "ALLOWED_HOSTS": "127.0.0.1",
       "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
       "IBI_PLATFORM_SOFTWARE": "dpi.inpe.br/banon/1998/08.02.08.56"}
BENCH_URLS = '''
from django.http import HttpResponse
from django.urls import path

from ibirepo import urls as site_urls


def bare(request):
    return HttpResponse("confirmation yes", content_type="text/plain; charset=us-ascii")


def one_query(request):
    from archive.deposit.selectors import archive_service_or_none

    return HttpResponse(archive_service_or_none().ibi, content_type="text/plain; charset=us-ascii")


# The site's own routes follow at the same level, as in ibirepo.urls (no include): an
# urlRequest is matched as in production, by the shortcut route.
urlpatterns = [path("bench/bare", bare), path("bench/one-query", one_query),
               *site_urls.urlpatterns]
'''
BENCH_SETTINGS = "from ibirepo.settings import *  # noqa: F403\nROOT_URLCONF = 'bench_urls'\n"


def populate(first: int, count: int) -> None:
    """Items first … first+count-1 (see the module docstring), in batches."""
    from django.db import connection

    from archive.communities.services import default_collection
    from archive.identifiers import ibi as ibilib
    from archive.models import Item, ItemFile

    collection = default_collection()  # every item in one (issue 34)
    items, files = [], []
    for n in range(first, first + count):
        group, k = divmod(n, 10)
        chain, number = divmod(k, 5)
        date = BASE_DATE + n
        head = BASE_DATE + group * 10 + chain * 5
        items.append(Item(
            pk=PK0 + n, ibi=ibilib.repository_name("bench.example.org", 80, date),
            ibip=ibilib.ibip("10.0.0.1", 800, date), title=f"Item {n}",
            language=("en", "pt")[chain], target_file="paper.pdf",
            previous_edition_id=PK0 + n - 1 if number else None,
            translation_of_id=PK0 + group * 10 + number if chain else None,
            edition_family=ibilib.repository_name("bench.example.org", 80, head),
            edition_number=number + 1, collection=collection))
        files.append(ItemFile(item_id=PK0 + n, name="paper.pdf", size=10, sha256="0" * 64,
                              content_type="application/pdf"))
    Item.objects.bulk_create(items, batch_size=2000)
    ItemFile.objects.bulk_create(files, batch_size=2000)
    with connection.cursor() as cursor:  # fresh planner statistics, as a live database has
        cursor.execute("ANALYZE")


def use_database(name: str) -> None:
    """Point the default connection at another database of the same server (or file)."""
    from django.db import connection

    connection.close()
    connection.settings_dict["NAME"] = name


def in_process(ibi: str, rounds: int, databases: dict[int, str]
               ) -> dict[int, dict[str, tuple[int, float]]]:
    """Per size: (queries, ms) of url_request per verb list, and of the full url_list. The
    sizes' databases take turns, block by block, so that the machine's drift falls on every
    size alike; the time is the best of BLOCKS blocks' medians (other jobs only ever add
    time)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from archive.archive_service import answers as archive_service
    from archive.db import changes

    def uncached(call):
        # The cost of building an answer (the first request after any change): with the
        # answer cache emptied, as a change of any item would leave it.
        def run():
            changes.clear()
            return call()
        return run

    calls = {name: uncached(lambda v=verbs: archive_service.url_request(ibi_text=ibi,
                                                                        verbs=v.split()))
             for name, verbs in VERBS.items()}
    calls["full list (Ex. 9.2, not served)"] = uncached(
        lambda: archive_service.url_list(ibi_text=ibi))
    found: dict[int, dict[str, tuple[int, float]]] = {size: {} for size in databases}
    for name, call in calls.items():
        queries, blocks = {}, {size: [] for size in databases}
        for _ in range(BLOCKS):
            for size, database in databases.items():
                use_database(database)
                call()  # a fresh connection: warm it and the statement caches
                with CaptureQueriesContext(connection) as captured:
                    call()
                queries[size] = len(captured)
                times = []
                for _ in range(max(1, rounds // BLOCKS)):
                    start = time.perf_counter()
                    call()
                    times.append(time.perf_counter() - start)
                blocks[size].append(statistics.median(times))
        for size in databases:
            found[size][name] = (queries[size], min(blocks[size]) * 1000)
    return found


def sibling(url: str, size: int, tmp: str) -> str:
    """A database beside url's for `size` items: a file in tmp, or one more on the server."""
    if not url.startswith("postgres"):
        return f"sqlite:///{tmp}/db-{size}.sqlite3"
    parts = urlsplit(url)
    return parts._replace(path=f"{parts.path}_{size}").geturl()


def _on_server(url: str, *statements: str) -> None:
    """Run statements ({name}: url's database) on its server's maintenance database."""
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(urlsplit(url)._replace(path="/postgres").geturl(),
                         autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement.format(name=name))


def create_database(url: str) -> None:
    _on_server(url, 'DROP DATABASE IF EXISTS "{name}"', 'CREATE DATABASE "{name}"')


def drop_database(url: str) -> None:
    from django.db import connection

    connection.close()
    _on_server(url, 'DROP DATABASE IF EXISTS "{name}"')


def pinned(command: list[str], cpu: int) -> list[str]:
    """command on one CPU (taskset), server and load generator apart: the scheduler then
    moves neither, which narrows the spread between runs. Unpinned where that cannot be."""
    if shutil.which("taskset") and (os.cpu_count() or 1) >= 2:
        return ["taskset", "-c", str(cpu), *command]
    return command


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(url: str, proc: subprocess.Popen) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gunicorn exited with {proc.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit("gunicorn did not come up")


def worker_pid(master: int) -> int | None:
    """The one worker of the gunicorn master `master` (Linux), once it is up."""
    try:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    except OSError:
        return None
    return int(children[0]) if children else None


def cpu_seconds(pid: int | None) -> float | None:
    """CPU time (user + system) the process has used so far, from /proc; None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measured(url: str, seconds: int, worker: int | None) -> tuple[float, float | None]:
    """(req/s, the worker's CPU µs per request): the CPU time a request costs the server
    moves much less than req/s when other jobs share the machine."""
    before = cpu_seconds(worker)
    rate, count = requests_per_second(url, seconds)
    after = cpu_seconds(worker)
    return rate, (after - before) / count * 1e6 if None not in (before, after) else None


def requests_per_second(url: str, seconds: int) -> tuple[float, int]:
    """(req/s, requests), one connection at a time."""
    if shutil.which("wrk"):
        out = subprocess.run(pinned(["wrk", "-t1", "-c1", f"-d{seconds}s", url], 0),
                             capture_output=True, text=True, check=True).stdout
        if "Non-2xx" in out:
            raise SystemExit(f"wrk saw errors for {url}:\n{out}")
        return (float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1)),
                int(re.search(r"([0-9]+) requests in", out).group(1)))
    import httpx

    count, deadline = 0, time.monotonic() + seconds
    with httpx.Client() as client:
        start = time.monotonic()
        while time.monotonic() < deadline:
            client.get(url).raise_for_status()
            count += 1
    return count / (time.monotonic() - start), count


def _median(values: list) -> float | None:
    return statistics.median(values) if None not in values else None


def over_http(env: dict, tmp: str, service_ibi: str, ibip: str, seconds: int,
              repeats: int) -> dict[str, tuple[tuple[float, float | None], ...]]:
    """(answer, bare view, one-query view), each (req/s, the worker's CPU µs per request),
    medians over repeats, per verb list."""
    Path(tmp, "bench_urls.py").write_text(BENCH_URLS)
    Path(tmp, "bench_settings.py").write_text(BENCH_SETTINGS)
    port = free_port()
    server_env = {**env, "PYTHONPATH": f"{tmp}{os.pathsep}{ROOT}",
                  "DJANGO_SETTINGS_MODULE": "bench_settings"}
    server = subprocess.Popen(
        pinned([str(ROOT / ".venv/bin/gunicorn"), "ibirepo.wsgi:application", "--bind",
         f"127.0.0.1:{port}", "--workers", "1"], 1), cwd=ROOT, env=server_env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{base}/bench/bare", server)
        worker = worker_pid(server.pid)
        found = {}
        for name, verbs in VERBS.items():
            pairs = {"servicesubject": "urlRequest",
                     "clientinformation.ipaddress": "172.16.44.200 150.163.68.1",
                     "parsedibiurl.ibi": ibip}
            if verbs:
                pairs["parsedibiurl.verblist"] = verbs
            url = f"{base}/{service_ibi}?{urlencode(pairs, quote_via=quote, safe='/()')}"
            answers, bares, ones = [], [], []
            for _ in range(repeats):
                bares.append(measured(f"{base}/bench/bare", seconds, worker))
                answers.append(measured(url, seconds, worker))
                ones.append(measured(f"{base}/bench/one-query", seconds, worker))
            found[name] = tuple((statistics.median(r for r, _ in runs),
                                 _median([cpu for _, cpu in runs]))
                                for runs in (answers, bares, ones))
        return found
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 100_000])
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    sizes = sorted(set(args.sizes))
    with tempfile.TemporaryDirectory(prefix="ibi-bench-") as tmp:
        env = {**os.environ, **ENV, "MEDIA_ROOT": f"{tmp}/media"}
        env.setdefault("DATABASE_URL", f"sqlite:///{tmp}/db.sqlite3")
        for name in ("CELERY_BROKER_URL", "AWS_STORAGE_BUCKET_NAME"):
            env.pop(name, None)
        # The largest size in DATABASE_URL's database (served over HTTP after), each smaller
        # one in a database of its own beside it.
        largest = env["DATABASE_URL"]
        urls = {size: largest if size == sizes[-1] else sibling(largest, size, tmp)
                for size in sizes}
        for url in urls.values():
            if url != largest and url.startswith("postgres"):
                create_database(url)
            subprocess.run([sys.executable, "manage.py", "migrate", "--no-input"], cwd=ROOT,
                           env={**env, "DATABASE_URL": url}, check=True, capture_output=True)
        os.environ.update({k: v for k, v in env.items() if k in ENV or k in (
            "DATABASE_URL", "MEDIA_ROOT")})
        os.environ["DJANGO_SETTINGS_MODULE"] = "ibirepo.settings"
        sys.path.insert(0, str(ROOT))
        import dj_database_url
        import django

        django.setup()
        from archive.models import Item

        databases = {size: dj_database_url.parse(url)["NAME"] for size, url in urls.items()}
        try:
            for size, database in databases.items():
                use_database(database)
                start = time.perf_counter()
                populate(0, size)
                print(f"{size} items on file ({time.perf_counter() - start:.1f} s to create)",
                      flush=True)
            asked = PK0 + (sizes[0] // 20) * 10  # an English first edition mid-way
            item = Item.objects.get(pk=asked)
            service = Item.objects.get(is_archive_service=True)
            results = in_process(item.ibip, args.rounds, databases)
        finally:
            for url in urls.values():
                if url != largest and url.startswith("postgres"):
                    drop_database(url)
        use_database(databases[sizes[-1]])
        for size in sizes:
            print(f"{size} items on file, {args.rounds} calls each, databases taking turns")
            for name, (queries, ms) in results[size].items():
                print(f"  {name:45} {queries} queries  {ms:.3f} ms", flush=True)
        small, large = results[sizes[0]], results[sizes[-1]]
        print(f"\n{'urlRequest':45} queries {sizes[0]} → {sizes[-1]}   time ratio")
        for name in small:
            print(f"  {name:43} {small[name][0]} → {large[name][0]}"
                  f"          {large[name][1] / small[name][1]:.2f}")

        from django.db import connections

        connections.close_all()
        print(f"\nHTTP, gunicorn 1 sync worker, {sizes[-1]} items, one connection, "
              f"{'wrk' if shutil.which('wrk') else 'httpx loop'}:")
        http = over_http(env, tmp, service.ibi, item.ibip, args.seconds, args.repeats)
        for name, ((answer, answer_cpu), (bare, bare_cpu), (one, one_cpu)) in http.items():
            print(f"  {name:45} {answer:5.0f} req/s; bare {bare:5.0f}, one query {one:5.0f}; "
                  f"cost ratio {bare / answer:.2f} (vs one query {one / answer:.2f})")
            if None not in (answer_cpu, bare_cpu, one_cpu):
                print(f"  {'':45} worker CPU per request {answer_cpu:.0f} µs; bare "
                      f"{bare_cpu:.0f}, one query {one_cpu:.0f}; CPU ratio "
                      f"{answer_cpu / bare_cpu:.2f} (vs one query {answer_cpu / one_cpu:.2f})")
        print(textwrap.dedent("""
            Targets: queries equal at every size, time ratio <= 1.2; cost ratio <= 2."""))


if __name__ == "__main__":
    main()
