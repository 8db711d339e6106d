"""Peak memory of `manage.py copyitem` while it copies a 1 GiB file from another Archive.

    .venv/bin/python bench/copy_memory.py [--size-mib 1024]

Starts the source Archive B (gunicorn, two sync workers, DEBUG off) on a throw-away SQLite
database and media folder and deposits a generated file of --size-mib there (streamed, never
held whole, as in upload_memory.py). The target A is only a migrated database and a media
folder: `manage.py copyitem` runs as its own process, first for a 1 KiB item (the baseline:
Django, httpx and the ORM loaded), then for the big one, while psutil samples its RSS every
5 ms. Target: the big copy's peak stays within 100 MB of the small copy's.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil
from upload_memory import MIB, GeneratedFile, Sampler, free_port, manage, wait_until_up

ROOT = Path(__file__).resolve().parent.parent
TARGET = 100 * 1000 * 1000


def environment(folder: Path) -> dict:
    env = {**os.environ, "DEBUG": "0", "SECURE_SSL_REDIRECT": "0",
           "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
           "ALLOWED_HOSTS": "127.0.0.1", "DATABASE_URL": f"sqlite:///{folder}/db.sqlite3",
           "MEDIA_ROOT": f"{folder}/media", "TMPDIR": str(folder), "IBI_GRANULARITY": "0.001"}
    for name in ("CELERY_BROKER_URL", "AWS_STORAGE_BUCKET_NAME", "ARCHIVE_ADDRESS"):
        env.pop(name, None)
    return env


def copy(env: dict, ibi: str, source: str) -> tuple[int, float, str]:
    """Peak RSS (bytes), seconds and output of one copyitem process."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "manage.py", "copyitem", ibi, "--from", source],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    sampler = Sampler(psutil.Process(proc.pid))
    sampler.start()
    out, err = proc.communicate()
    elapsed = time.perf_counter() - started
    sampler.done.set()
    sampler.join()
    if proc.returncode:
        raise SystemExit(f"copyitem failed: {err}")
    return max(sampler.peaks.values()), elapsed, out.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=1024)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ibi-bench-") as tmp:
        a_dir, b_dir = Path(tmp, "a"), Path(tmp, "b")
        a_dir.mkdir(), b_dir.mkdir()
        a_env, b_env = environment(a_dir), environment(b_dir)
        b_env["IBI_HOSTNAME"] = "b.bench.test"
        manage(a_env, "migrate", "--no-input")
        manage(b_env, "migrate", "--no-input")
        token = manage(b_env, "createlibrarian", "bench").split()[-1]
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        b_env["ARCHIVE_ADDRESS"] = f"127.0.0.1:{port}"
        server = subprocess.Popen(
            [str(ROOT / ".venv/bin/gunicorn"), "ibirepo.wsgi:application", "--bind",
             f"127.0.0.1:{port}", "--workers", "2", "--timeout", "900"],
            cwd=ROOT, env=b_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_until_up(f"{base}/api/items/", server)
            client = httpx.Client(base_url=base, timeout=None,
                                  headers={"Authorization": f"Token {token}"})
            small = client.post("/api/items/", data={"title": "small"},
                                files={"files": ("small.bin", os.urandom(1024))}).json()
            body = GeneratedFile(args.size_mib * MIB)
            big = client.post("/api/items/", data={"title": "big"},
                              files={"files": ("big.bin", body, "application/octet-stream")})
            big.raise_for_status()
            big = big.json()
            baseline, _s, _out = copy(a_env, small["ibi"], base)
            peak, elapsed, out = copy(a_env, big["ibi"], base)
        finally:
            server.terminate()
            server.wait(30)
        stored = Path(a_dir, "media", "col", big["ibi"], "doc", "big.bin")
        assert stored.stat().st_size == body.size, "size differs"
        rise = peak - baseline
        print(f"copied           {args.size_mib} MiB in {elapsed:.1f} s "
              f"({args.size_mib / elapsed:.0f} MiB/s): {out}")
        print(f"copyitem RSS     {baseline / MIB:.1f} MiB for 1 KiB, {peak / MIB:.1f} MiB peak "
              f"for {args.size_mib} MiB")
        print(f"peak rise        {rise / MIB:.1f} MiB ({rise / 1e6:.1f} MB) "
              f"- target < 100 MB: {'met' if rise < TARGET else 'NOT MET'}")


if __name__ == "__main__":
    main()
