"""Format identification (issue 38, 2): files a second, as the worker identifies them.

    .venv/bin/python bench/format_identification.py [--files 300] [--items 60] [--lock PATH]

Deposits `--items` items holding `--files` files in all, a mix of what a repository holds (PDF
of 1 to 40 pages, PNG, TIFF, JPEG, plain text, CSV, ODT, DOCX, unknown bytes; 2 kB to 2 MB),
then runs `formats.identify` over every stored file in batches of 200, as the `identify_due`
task does (`identify_files`, a deposit's files at once): one siegfried process a batch
(pygfried, PRONOM's signatures, in a process of its own: Go's runtime does not survive a fork),
then each file's row updated and its "format identification" event recorded, one transaction
a batch. A throw-away migrated
SQLite database and media folder unless DATABASE_URL is set. `--lock`: a file to hold an
exclusive flock on while timing only (a shared machine's, e.g. /tmp/ibi-machine.lock).
Target: ≥ 50 files/s.
Numbers: bench/README.md.
"""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import io
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def samples(rng: random.Random) -> list[tuple[str, bytes]]:
    """One of each kind, made here (the suite's factories: real PDFs, PNGs, ODT, DOCX)."""
    from tests import factories as make

    pdf_pages = make.pdf_pages(*(f"page {n} " + "texto " * 300 for n in range(40)))
    tiff = (b"II*\x00\x08\x00\x00\x00\x01\x00\x00\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00"
            b"\x00\x00\x00\x00")
    jpeg = (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
            + bytes(rng.randrange(256) for _ in range(4000)) + b"\xff\xd9")
    return [
        ("tese.pdf", pdf_pages), ("artigo.pdf", make.pdf("Um artigo")),
        ("figura.png", make.png()), ("scan.tif", tiff + os.urandom(2_000_000)),
        ("foto.jpg", jpeg), ("leiame.txt", ("texto simples " * 2000).encode()),
        ("dados.csv", b"a,b,c\n" + b"1,2,3\n" * 20_000), ("texto.odt", make.odt("ODT")),
        ("texto.docx", make.docx("DOCX")), ("nada.bin", os.urandom(50_000)),
    ]


@contextlib.contextmanager
def _locked(path: Path | None):
    if path is None:
        yield
        return
    with open(path, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--lock", type=Path, default=None)
    args = parser.parse_args()

    tmp = tempfile.TemporaryDirectory(prefix="ibi-bench-")
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "ibirepo.settings", "DEBUG": "0",
        "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "MEDIA_ROOT": f"{tmp.name}/media", "IBI_GRANULARITY": "0.001",
        "IBI_IDENTIFY_FORMATS": "0", "IBI_EXTRACT_TEXT": "0",  # identified below, timed
    })
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp.name}/db.sqlite3")
    for name in ("CELERY_BROKER_URL", "AWS_STORAGE_BUCKET_NAME"):
        os.environ.pop(name, None)
    sys.path.insert(0, str(ROOT))

    import django

    django.setup()
    from django.core.management import call_command

    from archive.deposit import services
    from archive.models import ItemFile
    from archive.preservation import formats

    call_command("migrate", verbosity=0)
    rng = random.Random(38)
    kinds = samples(rng)
    per_item = max(1, args.files // args.items)
    made = 0
    for n in range(args.items):
        count = per_item if n < args.items - 1 else args.files - made
        chosen = [kinds[(made + k) % len(kinds)] for k in range(count)]
        services.item_deposit(title=f"bench {n}", uploads=[
            services.Upload(name=f"{k}-{name}", file=io.BytesIO(data))
            for k, (name, data) in enumerate(chosen)])
        made += count
    ids = list(ItemFile.every_bundle.order_by("pk").values_list("pk", flat=True))
    total = sum(ItemFile.every_bundle.values_list("size", flat=True))
    formats.identify(ids[:1])  # warm-up: the disk cache of the Python and siegfried files
    times = []
    with _locked(args.lock):
        started = time.perf_counter()
        # As the tasks run: a deposit's files (identify_files), or a batch of BATCH due ones
        # (identify_due), one siegfried process each.
        for first in range(0, len(ids), formats.BATCH):
            one = time.perf_counter()
            formats.identify(ids[first:first + formats.BATCH])
            times.append(time.perf_counter() - one)
        elapsed = time.perf_counter() - started
    identified = ItemFile.every_bundle.exclude(format_puid="").count()
    print(f"{len(ids)} files ({total / 1e6:.1f} MB) in {elapsed:.2f} s: "
          f"{len(ids) / elapsed:.1f} files/s; {len(times)} batches of at most {formats.BATCH}, "
          f"median {statistics.median(times):.2f} s; {identified} with a PUID")
    for row in formats.report():
        print(f"  {row['format_puid'] or '(none)':10} {row['files']:4} "
              f"{row['format_name']} {row['format_version']}".rstrip())


if __name__ == "__main__":
    main()
