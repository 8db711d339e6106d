"""Peak memory of the server while a big file is uploaded: to POST /api/items/ as multipart
(1 GiB by default), or by tus to /api/uploads/ and then deposited by naming the upload.

    .venv/bin/python bench/upload_memory.py [--size-mib 1024] [--server gunicorn|runserver]
    .venv/bin/python bench/upload_memory.py --protocol tus --size-mib 5120 [--chunk-mib 0]

Starts a real server (gunicorn, one sync worker, production settings with DEBUG off) on a
throw-away SQLite database and media folder, creates a librarian with `createlibrarian`,
then streams a generated file — never held in memory on either side — with its
Content-Length, sampling the RSS of the server's processes with psutil every 5 ms. With tus,
the file goes in PATCH requests of --chunk-mib MiB (0: one request; more than one: the upload
is resumed request after request, and the last one hashes the file whole), then POST
/api/items/ names the upload and the deposit stores it under col/.
Target (issue 3, issue 27): the peak rises by less than 100 MB, whatever the size.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent
MIB = 1024 * 1024
TARGET = 100 * 1000 * 1000  # bytes: "less than 100 MB"


class GeneratedFile:
    """`size` pseudo-random bytes made on demand; hashed as they are read.

    tell() and seek() let httpx learn the length, so the request carries a Content-Length
    (Django reads no chunked request bodies) while nothing is ever held whole.
    """

    def __init__(self, size: int) -> None:
        self.size, self.pos = size, 0
        block = os.urandom(MIB)
        self.doubled = block + block  # any MiB-long window of a repeating random block
        self.digest = hashlib.sha256()

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if (offset, whence) not in ((0, os.SEEK_SET), (0, os.SEEK_END)):
            raise OSError("only rewind and end")
        self.pos = self.size if whence == os.SEEK_END else 0
        if self.pos == 0:
            self.digest = hashlib.sha256()
        return self.pos

    def read(self, n: int = -1) -> bytes:
        left = self.size - self.pos if n < 0 else min(n, self.size - self.pos)
        parts = []
        while left:
            start, take = self.pos % MIB, min(left, MIB)
            parts.append(self.doubled[start:start + take])
            self.pos += take
            left -= take
        chunk = b"".join(parts)
        self.digest.update(chunk)
        return chunk


class Sampler(threading.Thread):
    """Largest RSS of each process of the server's tree, sampled until stopped."""

    def __init__(self, root: psutil.Process, interval: float = 0.005) -> None:
        super().__init__(daemon=True)
        self.root, self.interval = root, interval
        self.peaks: dict[int, int] = {}
        self.done = threading.Event()

    def rss(self) -> dict[int, int]:
        found = {}
        for proc in [self.root, *self.root.children(recursive=True)]:
            try:
                found[proc.pid] = proc.memory_info().rss
            except psutil.NoSuchProcess:
                continue
        return found

    def run(self) -> None:
        while not self.done.is_set():
            for pid, rss in self.rss().items():
                self.peaks[pid] = max(self.peaks.get(pid, 0), rss)
            self.done.wait(self.interval)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(env: dict, *args: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout


def wait_until_up(url: str, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit("the server did not come up")


def stream(body: GeneratedFile, count: int):
    """`count` bytes of the generated file, a MiB at a time (a request body never held)."""
    while count > 0:
        chunk = body.read(min(MIB, count))
        count -= len(chunk)
        yield chunk


def tus_upload(client: httpx.Client, body: GeneratedFile, chunk: int) -> httpx.Response:
    """The file by tus (creation, then PATCH requests of `chunk` bytes), then the deposit that
    names the upload: the deposit's answer."""
    tus = {"Tus-Resumable": "1.0.0"}
    name = base64.b64encode(b"big.bin").decode()
    created = client.post("/api/uploads/", headers={**tus, "Upload-Length": str(body.size),
                                                    "Upload-Metadata": f"filename {name}"})
    created.raise_for_status()
    url = created.headers["location"]
    offset = 0
    while offset < body.size:
        count = min(chunk or body.size, body.size - offset)
        sent = client.patch(url, content=stream(body, count), headers={
            **tus, "Upload-Offset": str(offset), "Content-Length": str(count),
            "Content-Type": "application/offset+octet-stream"})
        sent.raise_for_status()
        offset = int(sent.headers["upload-offset"])
    upload_id = url.rstrip("/").rsplit("/", 1)[1]
    form = (f'--b\r\nContent-Disposition: form-data; name="title"\r\n\r\n'
            f"{body.size // MIB} MiB by tus\r\n--b\r\nContent-Disposition: form-data; "
            f'name="uploads"\r\n\r\n{upload_id}\r\n--b--\r\n')
    return client.post("/api/items/", content=form.encode(),
                       headers={"Content-Type": "multipart/form-data; boundary=b"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--server", choices=["gunicorn", "runserver"], default="gunicorn")
    parser.add_argument("--protocol", choices=["multipart", "tus"], default="multipart")
    parser.add_argument("--chunk-mib", type=int, default=0,
                        help="tus: bytes a PATCH carries, in MiB (0: the whole file)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ibi-bench-") as tmp:
        port = free_port()
        env = {**os.environ, "DEBUG": "0", "SECURE_SSL_REDIRECT": "0",
               "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
               "ALLOWED_HOSTS": "127.0.0.1", "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3",
               "MEDIA_ROOT": f"{tmp}/media", "TMPDIR": tmp, "IBI_GRANULARITY": "0.001",
               "IBI_MAX_FILE_SIZE": str(max(args.size_mib * MIB, 2 * 1024 * MIB))}
        for name in ("CELERY_BROKER_URL", "AWS_STORAGE_BUCKET_NAME"):
            env.pop(name, None)
        manage(env, "migrate", "--no-input")
        token = manage(env, "createlibrarian", "bench").split()[-1]

        if args.server == "gunicorn":
            command = [str(ROOT / ".venv/bin/gunicorn"), "ibirepo.wsgi:application",
                       "--bind", f"127.0.0.1:{port}", "--workers", "1", "--timeout", "900"]
        else:
            command = [sys.executable, "manage.py", "runserver", "--noreload",
                       f"127.0.0.1:{port}"]
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(f"{base}/api/items/", server)
            client = httpx.Client(base_url=base, timeout=None,
                                  headers={"Authorization": f"Token {token}"})
            # Warm up: the worker imports and connects on its first deposit, not during ours.
            warm = client.post("/api/items/", data={"title": "warm-up"},
                               files={"files": ("warm.txt", b"warm", "text/plain")})
            warm.raise_for_status()

            root = psutil.Process(server.pid)
            sampler = Sampler(root)
            before = sampler.rss()
            body = GeneratedFile(args.size_mib * MIB)
            sampler.start()
            started = time.perf_counter()
            if args.protocol == "tus":
                response = tus_upload(client, body, args.chunk_mib * MIB)
            else:
                response = client.post(
                    "/api/items/", data={"title": f"{args.size_mib} MiB upload"},
                    files={"files": ("big.bin", body, "application/octet-stream")})
            elapsed = time.perf_counter() - started
            sampler.done.set()
            sampler.join()
        finally:
            server.terminate()
            server.wait(30)

        if response.status_code != 201:
            raise SystemExit(f"upload answered {response.status_code}: {response.text[:500]}")
        stored = response.json()["files"][0]
        assert stored["size"] == body.size, stored
        assert stored["sha256"] == body.digest.hexdigest(), "checksum differs"
        # The process that rose most is the one that handled the upload (gunicorn's worker).
        pid = max(before, key=lambda p: sampler.peaks.get(p, 0) - before[p])
        rise = sampler.peaks[pid] - before[pid]
        print(f"server           {args.server}, {len(before)} process(es), "
              f"{os.cpu_count()} CPUs; {args.protocol}"
              + (f", PATCH of {args.chunk_mib or args.size_mib} MiB" if args.protocol == "tus"
                 else ""))
        print(f"uploaded         {body.size / MIB:.0f} MiB in {elapsed:.1f} s "
              f"({body.size / MIB / elapsed:.0f} MiB/s), 201, sha256 verified")
        print(f"handling process RSS {before[pid] / MIB:.1f} MiB before, "
              f"{sampler.peaks[pid] / MIB:.1f} MiB peak")
        print(f"peak rise        {rise / MIB:.1f} MiB ({rise / 1e6:.1f} MB) "
              f"- target < 100 MB: {'met' if rise < TARGET else 'NOT MET'}")

if __name__ == "__main__":
    main()
