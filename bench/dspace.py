"""Coming from DSpace at scale: `importsaf` and `harvest`, their rate and peak memory.

    .venv/bin/python bench/dspace.py importsaf [--items 10000] [--file-kb 100]
    .venv/bin/python bench/dspace.py harvest [--items 10000] [--page 100]
    .venv/bin/python bench/dspace.py both --items 1000,10000       # memory at two sizes

importsaf: writes a SAF export of N items as DSpace's ItemExport does (dublin_core.xml with
qualified fields, contents, handle, one file of --file-kb kB each), then runs `manage.py
importsaf` on a migrated throw-away SQLite database and media folder.
harvest: serves N oai_dc records from a local OAI-PMH server in this process (pages of
--page records, resumption tokens, records made on the fly: the server holds none), then runs
`manage.py harvest` against it (metadata only: no ore).

Each command runs as its own process; psutil samples its RSS every 20 ms, and its CPU time is
read when it ends. Targets (issue #28):
importsaf ≥ 50 items/s, harvest ≥ 200 records/s, memory flat in the number of items.
IBI_GRANULARITY=0.001 for the runs, as for the other benchmarks: with the default one-second
grid the temporal distributor mints one IBI a second on purpose (docs/operators/dspace.md).
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import psutil

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python")
MIB = 1024 * 1024


def environment(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("IBI_", "DATABASE_"))}
    env.update(DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}", MEDIA_ROOT=str(folder / "media"),
               DEBUG="0", SECRET_KEY="bench-only-secret-key-0123456789-abcdefghijklmnopqrstuv",
               ALLOWED_HOSTS="127.0.0.1", IBI_GRANULARITY="0.001", IBI_HOSTNAME="bench.ibi.test",
               IBI_UPLOAD_TEMP_DIR=str(folder / "upload-tmp"))
    return env


def measured(command: list[str], env: dict[str, str]) -> tuple[float, float, str, float]:
    """(seconds, peak RSS in MiB, stdout, CPU seconds) of a command, sampling its memory every
    20 ms. CPU seconds (user + system of the command's process): on a shared machine, the
    rate per CPU second says what the code costs whatever the others do."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    watched = psutil.Process(process.pid)
    peak = 0
    while process.poll() is None:
        try:
            peak = max(peak, watched.memory_info().rss)
        except psutil.NoSuchProcess:
            break
        time.sleep(0.02)  # the sampling interval
    out = process.stdout.read()
    process.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return time.perf_counter() - start, peak / MIB, out, cpu


def write_export(folder: Path, items: int, file_kb: int) -> None:
    payload = os.urandom(file_kb * 1024)
    for n in range(items):
        item = folder / f"item_{n:06d}"
        item.mkdir(parents=True)
        (item / "dublin_core.xml").write_text(
            '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n<dublin_core schema="dc">\n'
            f'  <dcvalue element="title" qualifier="none" language="pt_BR">Tese {n}</dcvalue>\n'
            f'  <dcvalue element="contributor" qualifier="author">Autor {n % 997}, A.</dcvalue>\n'
            '  <dcvalue element="date" qualifier="issued">2013-09-04</dcvalue>\n'
            '  <dcvalue element="date" qualifier="accessioned">2014-03-10T17:02:11Z</dcvalue>\n'
            '  <dcvalue element="language" qualifier="iso">pt_BR</dcvalue>\n'
            f'  <dcvalue element="subject" qualifier="none">assunto {n % 50}</dcvalue>\n'
            '  <dcvalue element="type" qualifier="none">Thesis</dcvalue>\n</dublin_core>\n')
        (item / "contents").write_text("tese.pdf\tbundle:ORIGINAL\tprimary:true \n")
        (item / "handle").write_text(f"123456789/{n + 1}\n")
        (item / "tese.pdf").write_bytes(payload[:-8] + n.to_bytes(8, "big"))


def bench_importsaf(items: int, file_kb: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="bench-saf-") as tmp:
        folder = Path(tmp)
        (folder / "media").mkdir()
        (folder / "upload-tmp").mkdir()
        env = environment(folder)
        subprocess.run([PYTHON, "manage.py", "migrate", "--no-input"], cwd=ROOT, env=env,
                       check=True, capture_output=True)
        write_export(folder / "export", items, file_kb)
        seconds, peak, out, cpu = measured([PYTHON, "manage.py", "importsaf",
                                            str(folder / "export")], env)
        assert f"{items} imported" in out, out
    return items / seconds, peak, items / cpu


RECORD = """<record><header><identifier>oai:bench.example:123456789/{n}</identifier>
<datestamp>2026-11-01T12:{m:02d}:{s:02d}Z</datestamp><setSpec>col_1</setSpec></header><metadata>
<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"
 xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Registro {n}</dc:title>
<dc:creator>Autor {a}, A.</dc:creator><dc:subject>assunto {t}</dc:subject>
<dc:date>2014-03-10T17:02:11Z</dc:date><dc:date>2013-09-04</dc:date>
<dc:type>info:eu-repo/semantics/doctoralThesis</dc:type>
<dc:identifier>http://hdl.handle.net/123456789/{n}</dc:identifier>
<dc:language>pt_BR</dc:language><dc:rights>info:eu-repo/semantics/openAccess</dc:rights>
</oai_dc:dc></metadata></record>"""
HEAD = ('<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/'
        'OAI/2.0/"><responseDate>2026-11-20T10:00:00Z</responseDate><request>x</request>')


def oai_server(items: int, page: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            params = dict(parse_qsl(urlsplit(self.path).query))
            verb = params.get("verb")
            if verb == "Identify":
                body = (HEAD + "<Identify><repositoryName>bench</repositoryName><granularity>"
                        "YYYY-MM-DDThh:mm:ssZ</granularity></Identify></OAI-PMH>")
            elif verb == "ListMetadataFormats":
                body = (HEAD + "<ListMetadataFormats><metadataFormat><metadataPrefix>oai_dc"
                        "</metadataPrefix></metadataFormat></ListMetadataFormats></OAI-PMH>")
            else:
                start = int(params.get("resumptionToken", "0"))
                end = min(start + page, items)
                records = "".join(RECORD.format(n=n, m=(n // 60) % 60, s=n % 60, a=n % 997,
                                                 t=n % 50) for n in range(start, end))
                token = str(end) if end < items else ""
                body = (f"{HEAD}<ListRecords>{records}<resumptionToken completeListSize="
                        f'"{items}" cursor="{start}">{token}</resumptionToken></ListRecords>'
                        "</OAI-PMH>")
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/xml")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def bench_harvest(items: int, page: int) -> tuple[float, float]:
    server = oai_server(items, page)
    try:
        with tempfile.TemporaryDirectory(prefix="bench-oai-") as tmp:
            folder = Path(tmp)
            (folder / "media").mkdir()
            (folder / "upload-tmp").mkdir()
            env = environment(folder)
            subprocess.run([PYTHON, "manage.py", "migrate", "--no-input"], cwd=ROOT, env=env,
                           check=True, capture_output=True)
            base = f"http://127.0.0.1:{server.server_port}/oai"
            seconds, peak, out, cpu = measured([PYTHON, "manage.py", "harvest", base,
                                                "--report", str(folder / "report.csv")], env)
            assert f"{items} imported" in out, out
    finally:
        server.shutdown()
    return items / seconds, peak, items / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["importsaf", "harvest", "both"])
    parser.add_argument("--items", default="10000", help="a number, or several: 1000,10000")
    parser.add_argument("--file-kb", type=int, default=100)
    parser.add_argument("--page", type=int, default=100)
    args = parser.parse_args()
    for items in (int(n) for n in args.items.split(",")):
        if args.what in ("importsaf", "both"):
            rate, peak, per_cpu = bench_importsaf(items, args.file_kb)
            print(f"importsaf {items} items of {args.file_kb} kB: {rate:.1f} items/s "
                  f"({per_cpu:.1f} per CPU second), peak RSS {peak:.1f} MiB", flush=True)
        if args.what in ("harvest", "both"):
            rate, peak, per_cpu = bench_harvest(items, args.page)
            print(f"harvest {items} records: {rate:.1f} records/s ({per_cpu:.1f} per CPU "
                  f"second), peak RSS {peak:.1f} MiB", flush=True)


if __name__ == "__main__":
    sys.exit(main())
