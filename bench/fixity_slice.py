"""The 90-day fixity scheduler's daily slice for 1 000 000 files of 10 MB (issue 38), computed,
and what it costs on this machine, measured.

    flock -x /tmp/ibi-machine.lock .venv/bin/python bench/fixity_slice.py [--files 60]

1. The plan (archive/preservation/fixity.py `Plan`), pure arithmetic: the slice of 1 000 000
   files of 10 MiB over 90 days, in files and bytes, against the default budget.
2. The cost. A throw-away SQLite database and media folder, `--files` files of 10 MiB
   (random bytes) deposited, then `fixity.daily` with a period of one day, so that it checks
   them all as it would a slice: each file read once for both digests (SHA-256 and SHA-512),
   its row stamped, a FixityCheck row and a PREMIS event written. Wall clock over the run;
   the page cache dropped is not asked for (files just written are warm: a cold disk reads
   slower, see the README's note).
The daily slice's time is its bytes divided by the throughput measured.
"""
from __future__ import annotations

import argparse
import io
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIB = 2**20


def setup(folder: Path) -> None:
    os.environ.update({
        "DEBUG": "0", "ALLOWED_HOSTS": "testserver",
        "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "IBI_HOSTNAME": "bench.ibi.test", "IBI_IP": "192.0.2.1",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}", "MEDIA_ROOT": str(folder / "m"),
        "DJANGO_SETTINGS_MODULE": "ibirepo.settings"})
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=60)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="fixity-bench-"))
    try:
        setup(folder)
        from datetime import timedelta

        from django.conf import settings
        from django.utils import timezone

        from archive.deposit import services
        from archive.models import ItemFile
        from archive.preservation import fixity

        plan = fixity.Plan(files=1_000_000, bytes=1_000_000 * 10 * MIB, period_days=90,
                           budget_bytes=settings.IBI_FIXITY_DAILY_BYTES)
        print(f"plan: 1 000 000 files of 10 MiB over 90 days: {plan.slice_files:,} files "
              f"and {plan.slice_bytes:,} bytes ({plan.slice_bytes / 1e9:.1f} GB) a day; "
              f"budget {plan.budget_bytes:,} bytes: covered={plan.covered}")
        services.ensure_archive_service()
        for n in range(args.files):
            services.item_deposit(title=f"Bench {n}", uploads=[services.Upload(
                name=f"f{n}.bin", file=io.BytesIO(os.urandom(10 * MIB)),
                content_type="application/octet-stream")])
        ItemFile.every_bundle.update(created=timezone.now() - timedelta(days=2))
        settings.IBI_FIXITY_PERIOD_DAYS = 1
        started = time.perf_counter()
        day = fixity.daily()
        took = time.perf_counter() - started
        rate = day.bytes / took
        print(f"checked {day.files} files of 10 MiB ({day.bytes / MIB:.0f} MiB) in {took:.2f} s:"
              f" {day.files / took:.1f} files/s, {rate / MIB:.0f} MiB/s, failures "
              f"{len(day.failed)}")
        print(f"the daily slice of the million would take {plan.slice_bytes / rate / 60:.1f} "
              f"minutes ({plan.slice_files / (day.files / took) / 60:.1f} by files/s)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
