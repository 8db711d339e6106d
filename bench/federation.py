"""The resolver in a federation of hundreds of Archives (#29), through nginx → gunicorn.

    flock -x /tmp/ibi-machine.lock .venv/bin/python bench/federation.py [--archives 300]
        [--workers 1] [--threads 8] [--seconds 10] [--total 10000]

Archives: `--archives` scripted archive services on loopback, served by one asyncio process
(tests/servers.py `ScriptedArchives`, HTTP/1.1 kept alive): one in ten dead (accepts, never
answers: n % 10 == 3), one in ten slow (answers after 2 s: n % 10 == 7). Archive n holds the
IBIs its own subsystem minted (``ibi.test/a<n>/2025/…``: it is their home) and the IBIs
``ibi.test/nowhere/2025/01.01.<hh>.<mm>`` with hh·60 + mm = n (minted by no included
Archive: only a fan-out finds them); ``ibi.test/nobody/…`` no Archive holds. Each urlRequest
is counted by the archives' process, read over a control socket.

The resolver: gunicorn (deploy/gunicorn.conf.py, `--workers` workers of `--threads`
threads) behind nginx (deploy/nginx.conf, rendered for free ports), PostgreSQL (a database of
this bench's own), Django's cache on Redis (db 12, flushed), IBI_RESOLVER_* at their
defaults (timeout 3 s, deadline 8 s, locations a day, negative 60 s, breaker 5 failures / 60 s,
100 requests in flight), Redis as Celery's broker (db 13) and one Celery worker that sends
the acknowledgments, after the answers, as in production.
Every Archive included (registered in the database; its breaker closed).

Phases, in order, one request at a time with httpx unless said (targets of #29):

1. new IBIs whose home is up and fast: p95 ≤ the home's answer time + 30 ms, ≤ 2 urlRequests;
   new IBIs whose home is slow (2 s), and new IBIs held away from any home (a fan-out): every
   answer a 302 to the holder, never a 404;
2. unknown IBIs while the dead Archives are included: a 503 (they could not be heard, #41),
   the first resolutions waiting ≤ one timeout (and tripping the dead Archives' breakers);
3. after the breakers tripped, unknown IBIs again: a fan-out's p95 ≤ the slowest live
   Archive's answer (2 s) + 50 ms;
4. phase 1's IBIs again (#41): exactly one urlRequest, to the Archive remembered; p95 ≤ that
   Archive's own answer time + 15 ms;
5. the dead Archives switched off: unknown IBIs the first time (a 404: every Archive
   answered), then again: p95 ≤ 20 ms, no urlRequest;
6. the mix (70 % repeated, 25 % new with a live home, 5 % unknown): every unknown IBI new
   (no target), then 90 % of them drawn from 10 broken links followed a moment before:
   mean urlRequests per resolution ≤ 2.5;
7. resolutions/s of IBIs asked before per worker: wrk (2 threads, 8 connections,
   `--seconds`);
8. RSS and open sockets of the worker(s) before and after `--total` more resolutions (wrk):
   flat.

Prints the figures as a Markdown block for bench/README.md, with the machine and load.
"""
from __future__ import annotations

import argparse
import asyncio
import grp
import json
import os
import platform
import pwd
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATABASE = "ibirepo_i29f_fedbench"
REDIS = "redis://127.0.0.1:6379/12"
BROKER = "redis://127.0.0.1:6379/13"
SLOW_SECONDS = 2.0
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


def dead(n: int) -> bool:
    return n % 10 == 3


def slow(n: int) -> bool:
    return n % 10 == 7


def minted_by(n: int, k: int) -> str:
    return f"ibi.test/a{n}/2025/01.01.{k // 60:02d}.{k % 60:02d}"


def held_away(n: int) -> str:
    return f"ibi.test/nowhere/2025/01.01.{n // 60:02d}.{n % 60:02d}"


def unknown(k: int) -> str:
    return f"ibi.test/nobody/2025/01.01.{k // 60:02d}.{k % 60:02d}"


def holder(ibi: str) -> int | None:
    parts = ibi.split("/")
    if len(parts) != 4:
        return None
    hh, mm = (int(x) for x in parts[3].split(".")[2:4])
    if parts[1].startswith("a") and parts[1][1:].isdigit():
        return int(parts[1][1:])
    if parts[1] == "nowhere":
        return hh * 60 + mm
    return None


# -- The archives' process ----------------------------------------------------------------------

def serve_archives(count: int) -> None:
    """`--serve N`: the scripted Archives, their ports as JSON on stdout, a control port
    answering the number of urlRequests so far; until stdin closes."""
    sys.path.insert(0, str(ROOT))
    from tests.servers import ScriptedArchives

    archives = ScriptedArchives(
        count, dead={n for n in range(count) if dead(n)},
        slow={n: SLOW_SECONDS for n in range(count) if slow(n)}, holder=holder)

    async def control(reader, writer) -> None:
        writer.write(f"{len(archives.requests)}\n".encode())
        await writer.drain()
        writer.close()

    port = asyncio.run_coroutine_threadsafe(_control_server(control), archives.loop).result()
    print(json.dumps({"ports": archives.ports, "control": port}), flush=True)
    sys.stdin.read()
    archives.close()


async def _control_server(handler) -> int:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    return server.sockets[0].getsockname()[1]


# -- The resolver ---------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(command: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(command[:3])} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def fresh_database() -> str:
    import psycopg

    with psycopg.connect(host="127.0.0.1", user="postgres", dbname="postgres",
                         autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{DATABASE}"')
    return f"postgres://postgres@127.0.0.1:5432/{DATABASE}"


def register(env: dict[str, str], ports: list[int]) -> None:
    code = f"""
from archive.models import RegisteredArchive
from archive.resolver.service import hash_key
key = hash_key("1234567890")
ports = {ports!r}
RegisteredArchive.objects.bulk_create([RegisteredArchive(
    archive_service_ibi=f"ibi.test/a{{n}}/2024/01.01.00.00", key_hash=key, included=True,
    address=f"127.0.0.1:{{port}}") for n, port in enumerate(ports)])
"""
    run([sys.executable, "manage.py", "shell", "-v", "0", "-c", code], env)


def start_nginx(tmp: Path, upstream: str, static: str, media: str) -> tuple[subprocess.Popen, int]:
    prefix = tmp / "nginx"
    prefix.mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-keyout", prefix / "tls.key",
                    "-out", prefix / "tls.pem"], check=True, capture_output=True)
    http = free_port()
    env = {**os.environ,
           "IBI_NGINX_USER": f"{pwd.getpwuid(os.getuid()).pw_name} "
                             f"{grp.getgrgid(os.getgid()).gr_name}",
           "IBI_NGINX_PREFIX": str(prefix), "IBI_HTTP_LISTEN": f"127.0.0.1:{http}",
           "IBI_HTTPS_LISTEN": f"127.0.0.1:{free_port()}", "IBI_TLS_CERT": str(prefix / "tls.pem"),
           "IBI_TLS_KEY": str(prefix / "tls.key"), "IBI_UPSTREAM": upstream,
           "IBI_STATIC_ROOT": static, "IBI_MEDIA_ROOT": media, "IBI_MAX_BODY": "1m"}
    config = subprocess.run([str(ROOT / "deploy" / "render-nginx")], env=env, check=True,
                            capture_output=True, text=True).stdout
    (prefix / "nginx.conf").write_text(config)
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    process = subprocess.Popen([nginx, "-p", str(prefix), "-c", str(prefix / "nginx.conf"),
                                "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                               stderr=(prefix / "stderr.log").open("wb"))
    return process, http


def wait_up(url: str, process: subprocess.Popen) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{url}: the server stopped")
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.1)  # polling interval
    raise SystemExit(f"{url} did not answer")


class Bench:
    def __init__(self, base: str, control: int, ports: list[int]) -> None:
        import httpx

        self.base, self.control_port, self.ports = base, control, ports
        self.http = httpx.Client(timeout=30, headers={"User-Agent": BROWSER})

    def requests(self) -> int:
        with socket.create_connection(("127.0.0.1", self.control_port)) as s:
            return int(s.makefile().readline())

    def resolve(self, ibi: str) -> tuple[int, str, float, int]:
        """(status, Location, seconds, urlRequests sent meanwhile)."""
        before = self.requests()
        start = time.perf_counter()
        response = self.http.get(f"{self.base}/{ibi}")
        took = time.perf_counter() - start
        return (response.status_code, response.headers.get("location", ""), took,
                self.requests() - before)

    def home_time(self, n: int, ibi: str) -> float:
        """The home's own answer time: one urlRequest straight to it."""
        start = time.perf_counter()
        self.http.get(f"http://127.0.0.1:{self.ports[n]}/ibi.test/a{n}/2024/01.01.00.00",
                      params={"servicesubject": "urlRequest", "parsedibiurl.ibi": ibi})
        return time.perf_counter() - start

    def url(self, n: int, ibi: str) -> str:
        return f"http://127.0.0.1:{self.ports[n]}/col/{ibi}/doc/paper.pdf"


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(round(0.95 * len(ordered))) - 1)]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def workers_of(master: int):
    import psutil

    return psutil.Process(master).children()


def footprint(master: int) -> list[tuple[int, int]]:
    """(RSS in KiB, open sockets) of each worker."""
    return [(w.memory_info().rss // 1024, len(w.net_connections("tcp")))
            for w in workers_of(master)]


def wrk(url: str, paths: list[str], seconds: int, tmp: Path) -> tuple[int, float, str]:
    """(requests, requests/s, wrk's output) over `paths` round robin."""
    script = tmp / "paths.lua"
    script.write_text("paths = {" + ", ".join(json.dumps(p) for p in paths) + "}\n" + f"""
n = 0
wrk.headers["User-Agent"] = "{BROWSER}"
request = function()
  n = n + 1
  return wrk.format("GET", paths[(n % #paths) + 1])
end
""")
    out = subprocess.run(["wrk", "-t2", "-c8", f"-d{seconds}s", "-s", str(script), url],
                         capture_output=True, text=True, check=True).stdout
    import re

    total = int(re.search(r"(\d+) requests in", out).group(1))
    rate = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))
    if "Non-2xx" in out or "Socket errors" in out:
        print(out, file=sys.stderr)
    return total, rate, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archives", type=int, default=300)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--total", type=int, default=10_000)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve_archives(args.serve)
        return
    load_before = os.getloadavg()
    archives = subprocess.Popen([sys.executable, __file__, "--serve", str(args.archives)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    found = json.loads(archives.stdout.readline())
    ports, control = found["ports"], found["control"]
    import redis

    redis.Redis.from_url(REDIS).flushdb()
    redis.Redis.from_url(BROKER).flushdb()
    with tempfile.TemporaryDirectory(prefix="ibi-federation-") as name:
        tmp = Path(name)
        (tmp / "static").mkdir()
        (tmp / "media").mkdir()
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("IBI_", "CELERY_", "AWS_"))}
        env.update({"DATABASE_URL": fresh_database(), "CACHE_URL": REDIS, "DEBUG": "0",
                    "CELERY_BROKER_URL": BROKER,
                    "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
                    "ALLOWED_HOSTS": "127.0.0.1", "SECURE_SSL_REDIRECT": "0",
                    "IBI_HOSTNAME": "bench.ibi.test", "IBI_IP": "192.0.2.1",
                    "MEDIA_ROOT": str(tmp / "media"), "STATIC_ROOT": str(tmp / "static"),
                    "WEB_CONCURRENCY": str(args.workers), "GUNICORN_THREADS": str(args.threads)})
        run([sys.executable, "manage.py", "migrate", "--no-input"], env)
        register(env, ports)
        upstream = f"127.0.0.1:{free_port()}"
        gunicorn = subprocess.Popen(
            [str(Path(sys.executable).parent / "gunicorn"), "ibirepo.wsgi", "-c",
             str(ROOT / "deploy" / "gunicorn.conf.py"), "--access-logfile", "/dev/null"],
            cwd=ROOT, env={**env, "GUNICORN_BIND": upstream},
            stdout=(tmp / "gunicorn.log").open("wb"), stderr=subprocess.STDOUT)
        nginx, http = start_nginx(tmp, upstream, str(tmp / "static"), str(tmp / "media"))
        worker = subprocess.Popen(
            [str(Path(sys.executable).parent / "celery"), "-A", "ibirepo", "worker", "--pool",
             "solo", "--loglevel", "WARNING"], cwd=ROOT, env=env,
            stdout=(tmp / "worker.log").open("wb"), stderr=subprocess.STDOUT)
        try:
            wait_up(f"http://{upstream}/", gunicorn)
            wait_up(f"http://127.0.0.1:{http}/", nginx)
            figures = measure(Bench(f"http://127.0.0.1:{http}", control, ports), args,
                              gunicorn.pid, tmp, env)
        finally:
            nginx.terminate()
            gunicorn.terminate()
            worker.terminate()  # its warm shutdown ends the task it runs: killed after 30 s
            for process in (gunicorn, nginx, worker):
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            archives.stdin.close()
            archives.wait(30)
    report(figures, args, load_before, os.getloadavg())


def switch_off(env: dict[str, str], numbers: list[int]) -> None:
    """The administrator switches those Archives off (the admin's action)."""
    code = f"""
from archive.models import RegisteredArchive
from archive.resolver.service import switch_off
switch_off(RegisteredArchive.objects.filter(archive_service_ibi__in=[
    f"ibi.test/a{{n}}/2024/01.01.00.00" for n in {numbers!r}]))
"""
    run([sys.executable, "manage.py", "shell", "-c", code], env)


def measure(bench: Bench, args, master: int, tmp: Path, env: dict[str, str]) -> dict:
    count = args.archives
    live = [n for n in range(count) if not dead(n) and not slow(n)]
    figures: dict = {"wrong": []}

    def check(ibi: str, n: int | None, got: tuple, unknown_status: int = 404) -> None:
        status, location = got[0], got[1]
        expected = (302, bench.url(n, ibi)) if n is not None else (unknown_status, "")
        if (status, location) != expected:
            figures["wrong"].append((ibi, status, location))

    # 1. New IBIs: a live fast home, a slow home, held away from any home.
    firsts, overheads, asked = [], [], []
    for n in live[::3][:60]:
        ibi = minted_by(n, 1)
        home = bench.home_time(n, minted_by(n, 59))
        got = bench.resolve(ibi)
        check(ibi, n, got)
        firsts.append(got[2])
        overheads.append(got[2] - home)
        asked.append(got[3])
    figures["home"] = {"p95": p95(firsts), "overhead_p95": p95(overheads),
                       "max_requests": max(asked), "mean_requests": statistics.mean(asked)}
    slow_homes = [n for n in range(count) if slow(n)][:5]
    slow_times = []
    for n in slow_homes:
        got = bench.resolve(minted_by(n, 1))
        check(minted_by(n, 1), n, got)
        slow_times.append(got[2])
    figures["slow_home"] = {"max": max(slow_times), "count": len(slow_times)}
    away_times, away_asked = [], []
    for n in live[1::9][:20]:
        got = bench.resolve(held_away(n))
        check(held_away(n), n, got)
        away_times.append(got[2])
        away_asked.append(got[3])
    figures["away"] = {"p95": p95(away_times), "mean_requests": statistics.mean(away_asked)}

    # 2. Unknown IBIs while the dead Archives are included: never "not found" (a 503: they
    # could not be heard), the first ones wait one timeout and trip their breakers.
    first_unknown = []
    for k in range(6):
        got = bench.resolve(unknown(k))
        check(unknown(k), None, got, 503)
        first_unknown.append(got[2])
    figures["unknown"] = {"first": first_unknown}

    # 3. Breakers open: a full fan-out waits for the slowest live Archive, not the dead.
    tripped = []
    for k in range(100, 110):
        got = bench.resolve(unknown(k))
        check(unknown(k), None, got, 503)
        tripped.append(got[2])
    figures["tripped"] = {"p95": p95(tripped), "median": statistics.median(tripped)}

    # 4. Phase 1's IBIs again: the Archive remembered asked alone, with the reader's address.
    repeated, repeated_over, repeated_asked = [], [], []
    for _ in range(5):
        for n in live[::3][:60]:
            home = bench.home_time(n, minted_by(n, 59))
            got = bench.resolve(minted_by(n, 1))
            check(minted_by(n, 1), n, got)
            repeated.append(got[2])
            repeated_over.append(got[2] - home)
            repeated_asked.append(got[3])
    figures["repeated"] = {"p95": p95(repeated), "overhead_p95": p95(repeated_over),
                           "requests": repeated_asked, "count": len(repeated)}

    # 5. The administrator switches the dead Archives off: every included one answers, and an
    # IBI nobody holds is known as such, then answered again without asking.
    switch_off(env, [n for n in range(count) if dead(n)])
    first_none, again, again_asked = [], [], []
    for k in range(200, 206):
        got = bench.resolve(unknown(k))
        check(unknown(k), None, got)
        first_none.append(got[2])
    for _ in range(20):
        for k in range(200, 206):
            got = bench.resolve(unknown(k))
            check(unknown(k), None, got)
            again.append(got[2])
            again_asked.append(got[3])
    figures["none"] = {"first": first_none, "again_p95": p95(again),
                       "again_requests": sum(again_asked)}

    # 6. The mix: 70 % repeated, 25 % new with a live home, 5 % unknown: first every unknown
    # IBI a new one; then 90 % of them drawn from 10 broken links followed a moment before
    # (within IBI_RESOLVER_NEGATIVE_TTL), 10 % new.
    import random

    rng = random.Random(29)
    seen = [(minted_by(n, 1), n) for n in live[::3][:60]]
    fresh = iter([(minted_by(n, k), n) for k in range(2, 40) for n in live])
    unknowns = iter(range(300, 10_000))
    for variant in ("mix", "mix_links"):
        if variant == "mix_links":
            for k in range(1_000, 1_010):
                check(unknown(k), None, bench.resolve(unknown(k)))
        mix_asked, mix_times = [], []
        for _ in range(400):
            roll = rng.random()
            if roll < 0.70:
                ibi, n = rng.choice(seen)
            elif roll < 0.95:
                ibi, n = next(fresh)
                seen.append((ibi, n))
            elif variant == "mix" or rng.random() < 0.1:
                ibi, n = unknown(next(unknowns)), None
            else:
                ibi, n = unknown(1_000 + rng.randrange(10)), None
            got = bench.resolve(ibi)
            check(ibi, n, got)
            mix_asked.append(got[3])
            mix_times.append(got[2])
        figures[variant] = {"mean_requests": statistics.mean(mix_asked), "p95": p95(mix_times)}

    # 7. and 8. Resolutions of IBIs asked before, per second, and the workers' footprint.
    paths = [f"/{ibi}" for ibi, _n in seen[:200]]
    before = footprint(master)
    done = 0
    rates = []
    while done < args.total or len(rates) < 2:  # two at least: memory before and after more
        total, rate, _out = wrk(bench.base, paths, args.seconds, tmp)
        done += total
        rates.append(rate)
        if len(rates) == 1:
            middle = footprint(master)
    after = footprint(master)
    figures["throughput"] = {"rates": rates, "per_worker": max(rates) / args.workers,
                             "resolutions": done, "before": before, "middle": middle,
                             "after": after}
    return figures


def machine() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = next(line.split(":", 1)[1].strip() for line in out.splitlines()
                     if line.startswith("Model name"))
    except (OSError, StopIteration):
        model = platform.processor() or "unknown CPU"
    return f"{model}, {os.cpu_count()} CPUs"


def report(f: dict, args, load_before, load_after) -> None:
    t = f["throughput"]
    lines = [
        f"bench/federation.py on {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, "
        f"{machine()}; load average before {load_before[0]:.2f} {load_before[1]:.2f} "
        f"{load_before[2]:.2f}, after {load_after[0]:.2f} {load_after[1]:.2f} "
        f"{load_after[2]:.2f}; {args.archives} Archives (10 % dead, 10 % slow 2 s), "
        f"{args.workers} gunicorn worker(s) × {args.threads} threads behind nginx, "
        "PostgreSQL, Redis (cache and broker), one Celery worker.",
        "",
        "| what | measured | target |",
        "|---|---|---|",
        f"| wrong answers (a live holder's IBI not a 302 to it; an unknown IBI not a 503 while "
        f"a dead Archive is included, not a 404 once every included Archive answers) "
        f"| {len(f['wrong'])} | 0 |",
        f"| first resolution, home up (60 IBIs): p95; p95 of (time − the home's own answer "
        f"time); urlRequests max / mean | {ms(f['home']['p95'])}; {ms(f['home']['overhead_p95'])}"
        f"; {f['home']['max_requests']} / {f['home']['mean_requests']:.2f} | ≤ home + 30 ms; "
        "≤ 2 |",
        f"| first resolution, home slow (2 s), {f['slow_home']['count']} IBIs: slowest "
        f"| {ms(f['slow_home']['max'])} | home + 30 ms |",
        f"| first resolution held away from any home (fan-out), 20 IBIs: p95; urlRequests "
        f"mean | {ms(f['away']['p95'])}; {f['away']['mean_requests']:.1f} | — |",
        f"| unknown IBI, dead Archives included, first time (6, the breakers still closed): "
        f"a 503 | {', '.join(ms(x) for x in f['unknown']['first'])} | ≤ one timeout (3 s) |",
        f"| unknown IBI after the breakers tripped (10): a 503; median; p95 | "
        f"{ms(f['tripped']['median'])}; {ms(f['tripped']['p95'])} | ≤ slowest live (2 s) "
        "+ 50 ms |",
        f"| resolution asked before ({f['repeated']['count']}): p95; p95 of (time − the "
        f"Archive's own answer time); urlRequests max / mean | {ms(f['repeated']['p95'])}; "
        f"{ms(f['repeated']['overhead_p95'])}; {max(f['repeated']['requests'])} / "
        f"{statistics.mean(f['repeated']['requests']):.2f} | ≤ Archive + 15 ms; exactly 1 |",
        f"| dead Archives switched off: unknown IBI, first time (6) | "
        f"{', '.join(ms(x) for x in f['none']['first'])} | — |",
        f"| the same unknown IBIs again (120): p95; urlRequests | {ms(f['none']['again_p95'])}; "
        f"{f['none']['again_requests']} | ≤ 20 ms; 0 |",
        f"| the mix (400: 70 % repeated, 25 % new, home up, 5 % unknown, every unknown new): "
        f"urlRequests per resolution, mean; p95 time | {f['mix']['mean_requests']:.2f}; "
        f"{ms(f['mix']['p95'])} | — (each new unknown IBI asks every Archive) |",
        f"| the mix, 90 % of the unknown IBIs from 10 broken links followed a moment before: "
        f"urlRequests per resolution, mean; p95 time | {f['mix_links']['mean_requests']:.2f}; "
        f"{ms(f['mix_links']['p95'])} | ≤ 2.5 |",
        f"| resolutions of IBIs asked before /s (wrk -t2 -c8 -d{args.seconds}s, per run; one "
        f"urlRequest each) | {', '.join(f'{r:.0f}' for r in t['rates'])}; per worker "
        f"{t['per_worker']:.0f} | — |",
        f"| worker RSS (KiB) and TCP sockets: before, after {t['resolutions'] // len(t['rates'])}"
        f", after {t['resolutions']} resolutions | {t['before']}, {t['middle']}, "
        f"{t['after']} | flat |",
    ]
    if f["wrong"]:
        lines += ["", "Wrong: " + "; ".join(f"{i} → {s} {loc}" for i, s, loc in f["wrong"][:10])]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
