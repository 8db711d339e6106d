"""OCFL export of a collection (issue 38): the whole storage root written, then updated after
new editions.

    .venv/bin/python bench/ocfl_export.py --load-only --folder /tmp/ocfl-bench [--items 10000]
    flock -x /tmp/ibi-machine.lock .venv/bin/python bench/ocfl_export.py --reuse \
        --folder /tmp/ocfl-bench

1. Load (no lock needed). A throw-away SQLite database and media folder in `--folder`,
   migrated, then N items (`--items`, 10 000) written by bulk inserts as a migration from
   another system would: a title, three Dublin Core values, one 20 kB PDF-like file stored
   under col/<rep>/doc/ with its SHA-256 and SHA-512, an ingestion event each.
2. Export. `manage.py ocfl export` into an empty folder, timed (the process's wall clock).
3. Update. 100 new editions of 100 of those items (a file each), then `ocfl export` into the
   same root again, timed: only their objects get a version; the rest are read (their
   inventory's head time) and left alone.
4. Check. ocfl-py validates the whole root (every digest): errors and warnings counted.
Targets: export of 10 000 items ≤ 5 minutes, update after 100 new editions ≤ 30 s, 0 errors
and 0 warnings.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def environment(folder: Path) -> dict:
    return {**os.environ, "DEBUG": "0", "ALLOWED_HOSTS": "testserver",
            "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
            "IBI_HOSTNAME": "bench.ibi.test", "IBI_IP": "192.0.2.1",
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
            "MEDIA_ROOT": str(folder / "media"), "DJANGO_SETTINGS_MODULE": "ibirepo.settings"}


def django_setup(folder: Path) -> None:
    os.environ.update(environment(folder))
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def store(media: Path, rep: str, name: str, data: bytes) -> None:
    path = media / "col" / rep / "doc" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def load(folder: Path, count: int) -> None:
    django_setup(folder)
    from django.core.management import call_command
    from django.db import transaction

    from archive.communities.services import default_collection
    from archive.deposit import services
    from archive.models import DcValue, Item, ItemFile, PremisEvent
    from archive.preservation import events
    from archive.registry import selectors as registry

    call_command("migrate", verbosity=0)
    services.ensure_archive_service()
    fields = registry.fields_by_name()
    agent = events.software()
    media = folder / "media"
    collection = default_collection().pk
    for start in range(0, count, 1000):
        with transaction.atomic():
            items = Item.objects.bulk_create([Item(
                ibi=f"bench.ibi.test/ocfl/2026/{n:06d}", ibip=f"BENCH/{n:06d}",
                title=f"Tese {n} sobre avaliação da magnetosfera", language="pt-BR",
                state="Original", edition_family=f"bench.ibi.test/ocfl/2026/{n:06d}",
                edition_number=1, collection_id=collection)
                for n in range(start, min(count, start + 1000))])
            values, files, made = [], [], []
            for item in items:
                for element, value in (("creator", "Silva, Ana"), ("subject", "Física"),
                                       ("date", "2026")):
                    field = fields[f"dc.{element}"]
                    values.append(DcValue(item=item, field=field, element=element,
                                          value=value, position=0))
                data = b"%PDF-1.4\n" + os.urandom(20_000)
                store(media, item.ibi, "tese.pdf", data)
                files.append(ItemFile(item=item, name="tese.pdf", size=len(data),
                                      sha256=hashlib.sha256(data).hexdigest(),
                                      sha512=hashlib.sha512(data).hexdigest(),
                                      content_type="application/pdf"))
                made.append(PremisEvent(identifier=uuid.uuid4(), type="ingestion",
                                        at=item.created, ibi=item.ibi, agent=agent,
                                        outcome="success", detail="bench load"))
            DcValue.objects.bulk_create(values)
            ItemFile.objects.bulk_create(files)
            PremisEvent.objects.bulk_create(made)
        print(f"loaded {min(count, start + 1000)} items", flush=True)


def new_editions(folder: Path, count: int) -> None:
    django_setup(folder)
    from archive.deposit import services
    from archive.models import Item

    firsts = list(Item.objects.filter(is_archive_service=False, edition_number=1)
                  .order_by("?")[:count])
    for first in firsts:
        data = io.BytesIO(b"%PDF-1.4\n" + os.urandom(20_000))
        services.item_deposit(title=f"{first.title}, 2a ed.", previous_edition=first,
                              uploads=[services.Upload(name="tese-2.pdf", file=data,
                                                       content_type="application/pdf")])


def run(folder: Path, *args: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "manage.py", "ocfl", *args], cwd=ROOT,
                          env=environment(folder), capture_output=True, text=True)
    took = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"ocfl {args[0]} failed: {done.stderr}")
    print(done.stdout.strip(), flush=True)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--editions", type=int, default=100)
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--load-only", action="store_true")
    parser.add_argument("--reuse", action="store_true")
    args = parser.parse_args()
    if not args.reuse:
        shutil.rmtree(args.folder, ignore_errors=True)
        args.folder.mkdir(parents=True)
        load(args.folder, args.items)
        if args.load_only:
            return
    root = args.folder / "root"
    shutil.rmtree(root, ignore_errors=True)
    full = run(args.folder, "export", str(root))
    print(f"export of {args.items} items: {full:.1f} s", flush=True)
    edition_load = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
         f"from bench.ocfl_export import new_editions; from pathlib import Path; "
         f"new_editions(Path({str(args.folder)!r}), {args.editions})"],
        cwd=ROOT, env=environment(args.folder), capture_output=True, text=True)
    if edition_load.returncode:
        raise SystemExit(edition_load.stderr)
    update = run(args.folder, "export", str(root))
    print(f"update after {args.editions} new editions: {update:.1f} s", flush=True)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "manage.py", "ocfl", "validate", str(root)],
                          cwd=ROOT, env=environment(args.folder), capture_output=True,
                          text=True)
    print(done.stdout.strip().splitlines()[-1],
          f"(validation {time.perf_counter() - started:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
