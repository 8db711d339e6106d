"""A 1 MB deposit (archive.deposit.services.item_deposit) against a plain FileSystemStorage.save.

    .venv/bin/python bench/deposit_ratio.py [--rounds 200] [--size 1000000]

Both write the same bytes to a throw-away folder on the same disk; the deposit also checksums
them, mints an IBI, refuses to overwrite and commits the item, its file row and (none here)
Dublin Core in one transaction. The database is a throw-away migrated SQLite file unless
DATABASE_URL is set (e.g. postgres://postgres@127.0.0.1:5432/ibirepo_bench, created if
needed by you, dropped by nobody). IBI_GRANULARITY is 0.001 s: with the default of one second
the temporal distributor deliberately waits up to a second between IBIs, and the ratio would
measure the clock rather than the code. The two loops alternate in blocks of 20 so that disk
cache and CPU frequency drift affect both alike.
"""
from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--size", type=int, default=1_000_000)
    args = parser.parse_args()

    tmp = tempfile.TemporaryDirectory(prefix="ibi-bench-")
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "ibirepo.settings", "DEBUG": "0",
        "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "MEDIA_ROOT": f"{tmp.name}/media", "IBI_GRANULARITY": "0.001",
    })
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp.name}/db.sqlite3")
    for name in ("CELERY_BROKER_URL", "AWS_STORAGE_BUCKET_NAME"):
        os.environ.pop(name, None)
    sys.path.insert(0, str(ROOT))

    import django

    django.setup()
    from django.core.files.base import ContentFile
    from django.core.files.storage import FileSystemStorage
    from django.core.management import call_command
    from django.db import connection

    from archive.deposit import services

    call_command("migrate", verbosity=0)
    data = os.urandom(args.size)
    plain = FileSystemStorage(location=f"{tmp.name}/plain")
    plain_times: list[float] = []
    deposit_times: list[float] = []

    def save_plain(i: int) -> None:
        started = time.perf_counter()
        plain.save(f"f{i}.bin", ContentFile(data))
        plain_times.append(time.perf_counter() - started)

    def deposit(i: int) -> None:
        started = time.perf_counter()
        services.item_deposit(title=f"bench {i}", uploads=[
            services.Upload(name="file.bin", file=io.BytesIO(data))])
        deposit_times.append(time.perf_counter() - started)

    save_plain(-1)  # warm-up: imports, folders, the first connection
    deposit(-1)
    plain_times.clear()
    deposit_times.clear()
    block = 20
    for first in range(0, args.rounds, block):
        for i in range(first, min(first + block, args.rounds)):
            save_plain(i)
        for i in range(first, min(first + block, args.rounds)):
            deposit(i)

    def row(label: str, times: list[float]) -> str:
        return (f"{label:<26} mean {statistics.mean(times) * 1e3:7.2f} ms   "
                f"median {statistics.median(times) * 1e3:7.2f} ms")

    print(f"{args.rounds} rounds of {args.size} bytes, database {connection.vendor}, "
          f"{os.cpu_count()} CPUs")
    print(row("FileSystemStorage.save", plain_times))
    print(row("services.item_deposit", deposit_times))
    mean = statistics.mean(deposit_times) / statistics.mean(plain_times)
    median = statistics.median(deposit_times) / statistics.median(plain_times)
    print(f"ratio deposit / plain      mean {mean:7.2f}      median {median:7.2f}")
    tmp.cleanup()


if __name__ == "__main__":
    main()
