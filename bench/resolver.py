"""The resolver's cost: a persistent URL held here against a bare redirect, and ten Archives of
which one never answers; and the instructions a request costs, which the machine's load does
not move.

    .venv/bin/python bench/resolver.py [--seconds 5] [--repeats 3] [--timeout 1.0] [--rounds 5]
        [--parts 123] [--requests 200] [--windows 2] [--batch 100] [--callgrind-files DIR]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<an empty database> .venv/bin/python …

1. Held here. gunicorn (one sync worker, DEBUG off, no broker) serves, on one item deposited
   here: a bench-only view returning a fixed 302 without touching the database (the issue's
   baseline), a bench-only view doing one ORM query then a 302 (the floor of anything that
   looks an IBI up), ``HEAD /<ibi>`` (parsed, answered by the archive service in process, Link
   header; no access counted) and ``GET /<ibi>`` (the same, and the access counted by the
   process's writer thread, archive/usage/counter.py). The first request builds the answer;
   the others find it in the answer cache (archive/db/changes.py: the
   change token is read in process on SQLite, announced by PostgreSQL; no round trip). wrk (Debian
   package ``wrk``; else a Python httpx loop) drives one connection at a time for `seconds` per
   case, round robin, `repeats` times. Target (issue 5): GET at most
   1.3 × the bare redirect.
2. Ten Archives. The same server with ten Archives included: nine stand-ins on loopback
   (threads of this script answering like an archive service) and one socket that accepts
   connections and never answers. IBI_RESOLVER_TIMEOUT is `timeout`. Each case is timed
   `rounds` times with httpx: an IBI no Archive holds (every answer is needed, so the silent
   one's timeout is waited once; a 503 since #41, as the silent one may hold it), an IBI one
   stand-in holds as Original (the round ends at its answer), and the same with
   ``ibiurl.requireditemstatus=Original`` (every answer is needed again). Target: about the
   per-Archive timeout, not ten times it.
3. Instructions per request (SQLite only: on PostgreSQL the server's work escapes the count).
   Part 1's cases, each request one call of the WSGI application in one Python process under
   valgrind's callgrind (Debian package ``valgrind``: make bench-tools): `WARM_UP` of every
   case first, then `windows` rounds of `requests` of each case, each in its own
   ``operator.call``, the one function callgrind collects in (``--toggle-collect``) and after
   which it writes its count (``--dump-after``). A window's accesses are written in batches of
   `batch` (flushed by hand: a busy worker's 0.1 s batch holds about 100 at 1 000 req/s; 1 is
   a quiet worker, each access its own batch). One database connection serves the whole run
   (CONN_MAX_AGE's reconnection once a minute would fall in a window chosen by the
   machine's load), and what the warm-up built is frozen (``gc.freeze``, as the shipped
   gunicorn configuration does after a worker's first request). Target (#40, 9): every
   /<ibi> case at most 1.3 × the bare redirect. `--callgrind-files` keeps the files for
   callgrind_annotate.
"""
from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

ROOT = Path(__file__).resolve().parent.parent
ENV = {"DEBUG": "0", "SECURE_SSL_REDIRECT": "0", "ALLOWED_HOSTS": "127.0.0.1",
       "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
       "IBI_HOSTNAME": "bench.ibi.test", "IBI_IP": "192.0.2.1", "IBI_GRANULARITY": "0.001"}
BENCH_URLS = '''
from django.http import HttpResponseRedirect
from django.urls import path

from ibirepo import urls as site_urls

from archive.models import Item


def bare(request):
    return HttpResponseRedirect("http://127.0.0.1/col/x/doc/paper.pdf")


def one_query(request, ibi):
    name = Item.objects.filter(ibi=ibi).values_list("target_file", flat=True).first()
    return HttpResponseRedirect(f"http://127.0.0.1/col/{ibi}/doc/{name}")


# The site's own routes follow at the same level, as in ibirepo.urls (no include): a
# persistent URL is matched as in production, by the shortcut route.
urlpatterns = [path("bench/redirect", bare), path("bench/query/<path:ibi>", one_query),
               *site_urls.urlpatterns]
'''
# A browser's User-Agent: without one a request is a robot on COUNTER's list and counts nothing.
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
SCRIPTS = {
    "head": 'wrk.method = "HEAD"\n',
    # One reader clicking on: double clicks, filtered in the batch writer.
    "reader": f'wrk.headers["User-Agent"] = "{BROWSER}"\n',
    # A new reader each request (X-Forwarded-For): every access counted, and unique.
    "readers": f'wrk.headers["User-Agent"] = "{BROWSER}"\n' + """n = 0
request = function()
  n = n + 1
  wrk.headers["X-Forwarded-For"] = "10." .. math.floor(n / 65536) % 256 .. "." ..
    math.floor(n / 256) % 256 .. "." .. n % 256
  return wrk.format()
end
""",
}
BENCH_SETTINGS = "from ibirepo.settings import *  # noqa: F403\nROOT_URLCONF = 'bench_urls'\n"
HELD_BY_STAND_IN = "ibi.test/standin/2024/01.02.03.04"
UNKNOWN = "ibi.test/nobody/2024/01.02.03.04"


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


def measured(url: str, seconds: int, kind: str | None, scripts: dict[str, str],
             worker: int | None) -> tuple[float, float | None]:
    """(req/s, the worker's CPU µs per request): the CPU time a request costs the server
    moves much less than req/s when other jobs share the machine."""
    before = cpu_seconds(worker)
    rate, count = requests_per_second(url, seconds, kind, scripts)
    after = cpu_seconds(worker)
    return rate, (after - before) / count * 1e6 if None not in (before, after) else None


def requests_per_second(url: str, seconds: int, kind: str | None = None,
                        scripts: dict[str, str] | None = None) -> tuple[float, int]:
    """(req/s, requests), one connection at a time; `kind`: None (a plain GET) or a key of
    SCRIPTS, whose wrk script file is scripts[kind]."""
    if shutil.which("wrk"):
        script = ["-s", scripts[kind]] if kind else []
        out = subprocess.run(pinned(["wrk", "-t1", "-c1", f"-d{seconds}s", *script, url], 0),
                             capture_output=True, text=True, check=True).stdout
        # wrk counts only statuses over 399 as "Non-2xx or 3xx"; the 302 is checked before.
        if "Socket errors" in out or "Non-2xx" in out:
            raise SystemExit(f"wrk saw errors for {url}:\n{out}")
        return (float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1)),
                int(re.search(r"([0-9]+) requests in", out).group(1)))
    import httpx

    count, deadline = 0, time.monotonic() + seconds
    agent = {"User-Agent": BROWSER} if kind in ("reader", "readers") else {}
    with httpx.Client() as client:
        start = time.monotonic()
        while time.monotonic() < deadline:
            reader = {"X-Forwarded-For": f"10.{count // 65536 % 256}.{count // 256 % 256}."
                      f"{count % 256}"} if kind == "readers" else {}
            assert client.request("HEAD" if kind == "head" else "GET", url,
                                  headers={**agent, **reader}).status_code == 302
            count += 1
    return count / (time.monotonic() - start), count


class StandIn:
    """An archive service on loopback: holds HELD_BY_STAND_IN (when `holder`) as Original."""

    def __init__(self, service_ibi: str, holder: bool):
        self.service_ibi = service_ibi

        class Handler(BaseHTTPRequestHandler):
            def do_GET(handler) -> None:  # noqa: N802, N805
                pairs = dict(parse_qsl(urlsplit(handler.path).query))
                body = ""
                if pairs.get("servicesubject") == "acknowledgment":
                    body = "notice {acknowledgment received}\n"
                elif holder and pairs.get("parsedibiurl.ibi") == HELD_BY_STAND_IN:
                    body = (f"contenttype Data\nibi {{rep {HELD_BY_STAND_IN}}}\nstate Original\n"
                            f"url http://{self.address}/col/{HELD_BY_STAND_IN}/doc/a.pdf\n"
                            "urlkey 1700000000-123456789012345678\n")
                data = body.encode()
                try:
                    handler.send_response(200)
                    handler.send_header("Content-Length", str(len(data)))
                    handler.end_headers()
                    handler.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(handler, *args) -> None:  # noqa: N805
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.server_port}"


def timed(url: str, rounds: int, status: int) -> list[float]:
    import httpx

    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        response = httpx.get(url, timeout=60)
        times.append(time.perf_counter() - start)
        assert response.status_code == status, (url, response.status_code)
    return times


def held_here(args: argparse.Namespace, base: str, item, tmp: str, server: int) -> None:
    """Part 1: the persistent URL of `item` held here against the bench-only views, served
    by the gunicorn master `server`."""
    import httpx
    from django.db import connections

    from archive.usage.selectors import item_counts

    held = f"{base}/{item.ibi}"
    assert httpx.get(held).headers["location"].endswith("/doc/paper.pdf")

    scripts = {}
    for kind, text in SCRIPTS.items():
        scripts[kind] = str(Path(tmp, f"{kind}.lua"))
        Path(scripts[kind]).write_text(text)
    cases = {"bare redirect (no database)": (f"{base}/bench/redirect", None),
             "one ORM query + redirect": (f"{base}/bench/query/{item.ibi}", None),
             "/<ibi> HEAD (no access counted)": (held, "head"),
             "/<ibi> GET, no User-Agent (robot)": (held, None),
             "/<ibi> GET, one reader (double clicks)": (held, "reader"),
             "/<ibi> GET, a new reader each (counted)": (held, "readers")}
    found = {name: [] for name in cases}
    worker = worker_pid(server)
    for _ in range(args.repeats):
        for name, (url, kind) in cases.items():
            found[name].append(measured(url, args.seconds, kind, scripts, worker))
    counted = item_counts(item.pk)["total"]
    print(f"1. Held here, gunicorn 1 sync worker, {connections['default'].vendor}"
          ", one client connection, "
          f"{'wrk' if shutil.which('wrk') else 'httpx loop'}, {args.repeats} × "
          f"{args.seconds} s each, median req/s (runs) and cost against the bare "
          "redirect; then the worker's CPU µs per request (median, runs) and its ratio:")
    bare = statistics.median(r for r, _cpu in found["bare redirect (no database)"])
    bare_cpu = [cpu for _r, cpu in found["bare redirect (no database)"]]
    bare_cpu = statistics.median(bare_cpu) if None not in bare_cpu else None
    for name, runs in found.items():
        rate = statistics.median(r for r, _cpu in runs)
        line = (f"   {name:42} {rate:7.0f}  ({', '.join(f'{r:.0f}' for r, _ in runs)})  "
                f"{bare / rate:5.2f} ×")
        if bare_cpu:
            cpu = statistics.median(c for _r, c in runs)
            line += (f"   {cpu:6.0f} µs ({', '.join(f'{c:.0f}' for _r, c in runs)})  "
                     f"{cpu / bare_cpu:5.2f} ×")
        print(line)
    print(f"   ({counted} accesses counted; target: GET /<ibi> <= 1.3 ×)\n")
    connections.close_all()


def ten_archives(args: argparse.Namespace, base: str) -> None:
    """Part 2: ten Archives included, one of which never answers."""
    from django.db import connections

    from archive.models import RegisteredArchive
    from archive.resolver import service as resolver_service

    stand_ins = [StandIn(f"ibi.test/archive{n}/2024/01.01.00.00", holder=n == 5)
                 for n in range(9)]
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(128)
    addresses = [s.address for s in stand_ins]
    addresses.append(f"127.0.0.1:{silent.getsockname()[1]}")
    key_hash = resolver_service.hash_key("1234567890")
    for n, address in enumerate(addresses):
        RegisteredArchive.objects.create(
            archive_service_ibi=f"ibi.test/archive{n}/2024/01.01.00.00",
            key_hash=key_hash, included=True, address=address)
    connections.close_all()
    print(f"2. Ten Archives included, one never answers; per-Archive timeout "
          f"{args.timeout:g} s; {args.rounds} rounds each (median, max):")
    cases = [("an IBI nobody heard holds (503)", f"{base}/{UNKNOWN}", 503),
             ("held by one as Original (302)", f"{base}/{HELD_BY_STAND_IN}", 302),
             ("  … with requireditemstatus=Original",
              f"{base}/{HELD_BY_STAND_IN}?ibiurl.requireditemstatus=Original", 302)]
    for name, url, status in cases:
        times = timed(url, args.rounds, status)
        print(f"   {name:40} {statistics.median(times):6.3f} s  {max(times):6.3f} s")
    print(f"   (ten Archives asked one after the other would take >= "
          f"{args.timeout:g} s × the silent ones, and the others' time on top)\n")
    silent.close()


# Part 3's cases: (method, path after the base, User-Agent, a new X-Forwarded-For each time).
INSTRUCTION_CASES = {
    "bare redirect (no database)": ("GET", "bench/redirect", None, False),
    "one ORM query + redirect": ("GET", "bench/query/{ibi}", None, False),
    "/<ibi> HEAD (no access counted)": ("HEAD", "{ibi}", None, False),
    "/<ibi> GET, no User-Agent (robot)": ("GET", "{ibi}", None, False),
    "/<ibi> GET, one reader (double clicks)": ("GET", "{ibi}", BROWSER, False),
    "/<ibi> GET, a new reader each (counted)": ("GET", "{ibi}", BROWSER, True),
}
WARM_UP = 20  # requests of every case before the window: caches built, modules imported


def instructions_child(requests: int, windows: int, batch: int) -> None:
    """Run under callgrind by `instructions`: WARM_UP requests of every case and their
    accesses written, then `windows` rounds of each case in turn, `requests` of it and their
    accesses written in batches of `batch`, each round in its own call of operator.call
    (callgrind collects in that call only, and writes each call's count to a file of its
    own). A request is one call of the WSGI application: no HTTP, no server."""
    import gc
    import operator

    from django.core.wsgi import get_wsgi_application

    application = get_wsgi_application()
    from django.db import connections

    from archive.usage import counter

    # One database connection for the whole run. With CONN_MAX_AGE (60 s) it is closed and
    # opened again once a minute of valgrind's pace, in whichever window that minute ends:
    # 14.5 million instructions for the close and connect alone, 75-86 k a request of that
    # window in all, and which window depends on the machine's load. A worker at a real pace
    # spreads them over tens of thousands of requests (0.25 k each at 1 000 req/s).
    database = connections["default"]
    database.settings_dict["CONN_MAX_AGE"] = None
    database.close_at = None

    # Only flush() writes a batch, every `batch` requests and at the end of a window: each
    # window writes its own accesses, in batches of a known size whatever valgrind's pace.
    counter.BATCH_SECONDS = 1e6
    ibi, host = os.environ["BENCH_IBI"], os.environ["ARCHIVE_ADDRESS"]
    base = {"SERVER_NAME": "127.0.0.1", "SERVER_PORT": host.rsplit(":", 1)[1],
            "HTTP_HOST": host, "REMOTE_ADDR": "127.0.0.1", "SERVER_PROTOCOL": "HTTP/1.1",
            "QUERY_STRING": "", "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr}
    readers = iter(range(1 << 24))  # a new reader's address: never one seen before

    def run(name: str, n: int) -> None:
        method, path, agent, new_reader = INSTRUCTION_CASES[name]
        environ = {**base, "REQUEST_METHOD": method, "PATH_INFO": "/" + path.format(ibi=ibi)}
        if agent:
            environ["HTTP_USER_AGENT"] = agent
        status: list[str] = []
        count = 0
        for _ in range(n):
            request = {**environ, "wsgi.input": io.BytesIO()}
            if new_reader:
                number = next(readers)
                request["HTTP_X_FORWARDED_FOR"] = (f"10.{number // 65536 % 256}."
                                                   f"{number // 256 % 256}.{number % 256}")
            response = application(request, lambda s, _h, _e=None: status.append(s))
            b"".join(response)
            response.close()  # request_finished
            assert status.pop().startswith("302"), name
            # Only a batch with something in it: a worker's request_finished writes nothing,
            # and costs next to nothing, after a request that counted nothing (the bare
            # redirect, HEAD); flush() would add ~17 k instructions to each at --batch 1.
            if (count := count + 1) % batch == 0 and counter._pending:
                counter.flush()
        counter.flush()

    for name in INSTRUCTION_CASES:
        run(name, WARM_UP)
    # What a worker holds after its first request out of the collector's reach, as the
    # shipped gunicorn configuration does (ibirepo/gunicorn.py, post_request): else a full
    # collection walks it all, some 50 million instructions in whichever window it falls.
    gc.freeze()
    for _ in range(windows):
        for name in INSTRUCTION_CASES:
            operator.call(run, name, requests)


def instructions(env: dict[str, str], requests: int, windows: int, batch: int, folder: Path
                 ) -> dict[str, list[float]]:
    """Instructions per request of each case, one figure per window, counted by callgrind
    in one process (instructions_child); its files are left in `folder`."""
    out = folder / "callgrind.out"
    subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                    "--toggle-collect=_operator_call", "--dump-after=_operator_call",
                    f"--callgrind-out-file={out}", sys.executable, __file__,
                    "--instructions-child", "--requests", str(requests),
                    "--windows", str(windows), "--batch", str(batch)],
                   cwd=ROOT, env=env, check=True, capture_output=True)
    found: dict[str, list[float]] = {name: [] for name in INSTRUCTION_CASES}
    for window in range(windows):
        for number, name in enumerate(INSTRUCTION_CASES, 1 + window * len(found)):
            text = Path(f"{out}.{number}").read_text()
            total = int(re.search(r"^(?:summary|totals): (\d+)", text, re.M).group(1))
            found[name].append(total / requests)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--windows", type=int, default=2)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--parts", default="123")
    parser.add_argument("--callgrind-files", type=Path)
    parser.add_argument("--instructions-child", action="store_true", help=argparse.SUPPRESS)

    args = parser.parse_args()
    if args.instructions_child:  # part 3's process, under callgrind
        return instructions_child(args.requests, args.windows, args.batch)

    with tempfile.TemporaryDirectory(prefix="ibi-bench-") as tmp:
        env = {**os.environ, **ENV, "MEDIA_ROOT": f"{tmp}/media",
               "IBI_RESOLVER_TIMEOUT": str(args.timeout)}
        env.setdefault("DATABASE_URL", f"sqlite:///{tmp}/db.sqlite3")
        for name in ("CELERY_BROKER_URL", "AWS_STORAGE_BUCKET_NAME"):
            env.pop(name, None)
        subprocess.run([sys.executable, "manage.py", "migrate", "--no-input"], cwd=ROOT,
                       env=env, check=True, capture_output=True)
        os.environ.update({k: v for k, v in env.items() if k in ENV or k in (
            "DATABASE_URL", "MEDIA_ROOT")})
        os.environ["DJANGO_SETTINGS_MODULE"] = "ibirepo.settings"
        sys.path.insert(0, str(ROOT))
        import django

        django.setup()
        from django.db import connections

        from archive.deposit import services

        item = services.item_deposit(
            title="Bench", language="en", dc={"creator": ["Banon, Gerald"]},
            uploads=[services.Upload(name="paper.pdf", file=io.BytesIO(b"%PDF-1.4\n"),
                                     content_type="application/pdf")])
        vendor = connections["default"].vendor
        connections.close_all()
        database = Path(tmp, "instructions.sqlite3")
        if vendor == "sqlite":  # part 3's database: as it is before any request
            shutil.copyfile(connections["default"].settings_dict["NAME"], database)
        else:
            database = None

        Path(tmp, "bench_urls.py").write_text(BENCH_URLS)
        Path(tmp, "bench_settings.py").write_text(BENCH_SETTINGS)
        port = free_port()
        server_env = {**env, "PYTHONPATH": f"{tmp}{os.pathsep}{ROOT}",
                      "DJANGO_SETTINGS_MODULE": "bench_settings",
                      "ARCHIVE_ADDRESS": f"127.0.0.1:{port}"}
        if {"1", "2"} & set(args.parts):
            over_http(args, server_env, f"http://127.0.0.1:{port}", item, tmp)
        if "3" in args.parts:
            instructions_part(args, server_env, database, item.ibi,
                              Path(args.callgrind_files or tmp))


def over_http(args: argparse.Namespace, server_env: dict[str, str], base: str, item,
              tmp: str) -> None:
    """Parts 1 and 2, with gunicorn serving."""
    import httpx

    server = subprocess.Popen(
        pinned([str(ROOT / ".venv/bin/gunicorn"), "ibirepo.wsgi:application", "--bind",
                base.removeprefix("http://"), "--workers", "1"], 1), cwd=ROOT, env=server_env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/bench/redirect", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("gunicorn did not come up") from None
                time.sleep(0.1)
        if "1" in args.parts:
            held_here(args, base, item, tmp, server.pid)
        if "2" in args.parts:
            ten_archives(args, base)
    finally:
        server.terminate()
        server.wait(timeout=30)


def instructions_part(args: argparse.Namespace, server_env: dict[str, str],
                      database: Path | None, ibi: str, folder: Path) -> None:
    """Part 3: instructions per request under callgrind, on SQLite only (on PostgreSQL the
    database server's work would escape the count)."""
    if database is None or not shutil.which("valgrind"):
        print("3. Instructions: skipped (they need SQLite, and valgrind: make bench-tools)")
        return
    folder.mkdir(parents=True, exist_ok=True)
    found = instructions({**server_env, "BENCH_IBI": ibi, "PYTHONHASHSEED": "0",
                          "DATABASE_URL": f"sqlite:///{database}"},
                         args.requests, args.windows, args.batch, folder)
    bare = statistics.median(found["bare redirect (no database)"])
    print(f"3. Instructions per request (callgrind; WSGI calls in one process after {WARM_UP} "
          f"of each case; {args.windows} windows of {args.requests} requests a case, the "
          f"accesses written in batches of {args.batch}), thousands (each window) and the "
          "median's ratio to the bare redirect's:")
    for name, counts in found.items():
        print(f"   {name:42} {statistics.median(counts) / 1000:7.0f} k  "
              f"({', '.join(f'{c / 1000:.0f}' for c in counts)})  "
              f"{statistics.median(counts) / bare:6.3f} ×")
    print("   (target: every /<ibi> case <= 1.3 ×)")


if __name__ == "__main__":
    main()
