"""The access policy's cost on what everyone reads (issue 26): a landing page, a persistent URL
and a download of an open item, with the policy's check and with it disabled, side by side.

    flock -x /tmp/ibi-machine.lock .venv/bin/python bench/access.py [--rounds 10] [--requests 200]

A throw-away SQLite database and media folder (DEBUG off, no broker), one open item with a
100 kB PDF and a CSV. Requests go through Django's whole stack in process (the test client:
middleware, URL resolution, view, template), so that the check's share is not diluted by a
server's and a socket's time. "Disabled" replaces the decisions an open item's request meets
(archive/access/policy.py `is_open`, `may_read`, `shows_files`; archive/web/readers.py
`has_token`, `privileged_user`) by constants, in this process only. The two modes alternate
request by request (ABBA), `requests` pairs per case, `rounds` times; the figure is each
case's median per request.
Target: the check costs at most 5 % (checked / disabled <= 1.05).

Then the secret links' bad input: 100 downloads of an embargoed item's file with each kind of
token that opens nothing (garbage, another item's, a revoked one, an expired one), interleaved;
the medians must not tell them apart (the issue: not in 100 tries). Throttling is off for it.
"""
from __future__ import annotations

import argparse
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


def setup(folder: Path) -> None:
    os.environ.update({
        "DEBUG": "0", "SECURE_SSL_REDIRECT": "0", "ALLOWED_HOSTS": "testserver",
        "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "IBI_HOSTNAME": "bench.ibi.test", "IBI_IP": "192.0.2.1", "IBI_GRANULARITY": "0.001",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}", "MEDIA_ROOT": str(folder / "m"),
        "DJANGO_SETTINGS_MODULE": "ibirepo.settings"})
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def deposit():
    import io

    from archive.deposit import services

    services.ensure_archive_service()
    pdf = b"%PDF-1.4\n" + os.urandom(100_000)
    return services.item_deposit(
        title="An open report", language="en", dc={"creator": ["Banon, Gerald"]},
        uploads=[services.Upload("paper.pdf", io.BytesIO(pdf), "application/pdf"),
                 services.Upload("data.csv", io.BytesIO(b"a,b\n1,2\n"), "text/csv")])


class Disabled:
    """The policy's decisions replaced by constants (an open item's answers), or restored."""

    def __init__(self) -> None:
        from archive.access import policy
        from archive.web import readers

        self.saved = [(policy, name, getattr(policy, name))
                      for name in ("is_open", "may_read", "shows_files")]
        self.saved += [(readers, name, getattr(readers, name))
                       for name in ("has_token", "privileged_user")]
        self.constants = {"is_open": lambda *a, **k: True, "may_read": lambda *a, **k: True,
                          "shows_files": lambda *a, **k: True,
                          "has_token": lambda *a, **k: False,
                          "privileged_user": lambda *a, **k: None}

    def __call__(self, disabled: bool) -> None:
        for module, name, original in self.saved:
            setattr(module, name, self.constants[name] if disabled else original)


def timed(client, url: str, n: int) -> list[float]:
    found = []
    for _ in range(n):
        start = time.perf_counter()
        response = client.get(url)
        if response.streaming:
            for _chunk in response.streaming_content:
                pass
        found.append(time.perf_counter() - start)
        assert response.status_code in (200, 302), (url, response.status_code)
    return found


def bad_tokens(client) -> None:
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone

    from archive.access import services as access
    from archive.deposit import services
    from archive.models import AccessLink

    logging.getLogger("django.request").setLevel(logging.ERROR)  # a 403 each: not news
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    rates["access_token_failure"] = "1000000/hour"
    later = timezone.localdate() + timedelta(days=30)
    closed, other = (deposit_closed(services, later, title) for title in ("A", "B"))
    _link, theirs = access.create_link(item=other, expires=later)
    revoked, revoked_token = access.create_link(item=closed, expires=later)
    access.revoke_link(link=revoked)
    expired, expired_token = access.create_link(item=closed, expires=later)
    AccessLink.objects.filter(pk=expired.pk).update(expires=timezone.localdate())
    kinds = {"garbage": "x" * 43, "another item's": theirs, "revoked": revoked_token,
             "expired": expired_token}
    url = f"/col/{closed.ibi}/doc/paper.pdf?token="
    found: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(100):
        for kind, token in kinds.items():
            start = time.perf_counter()
            assert client.get(url + token).status_code == 403
            found[kind].append(time.perf_counter() - start)
    print(f"{'bad token':<20} {'median':>10} {'p10':>9} {'p90':>9}")
    for kind, spent in found.items():
        ranked = sorted(spent)
        print(f"{kind:<20} {statistics.median(spent) * 1000:>8.3f}ms "
              f"{ranked[10] * 1000:>7.3f}ms {ranked[90] * 1000:>7.3f}ms")


def deposit_closed(services, until, title: str):
    import io

    return services.item_deposit(
        title=title, uploads=[services.Upload("paper.pdf", io.BytesIO(b"%PDF closed"))],
        access=services.Access("embargoed", until))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-access-"))
    try:
        setup(folder)
        from django.test import Client

        item = deposit()
        cases = {"landing page": f"/items/{item.ibi}", "persistent URL": f"/{item.ibi}",
                 "download (100 kB)": f"/col/{item.ibi}/doc/paper.pdf"}
        client = Client(headers={"User-Agent": BROWSER})
        switch = Disabled()
        times: dict[tuple[str, bool], list[float]] = {}
        for url in cases.values():  # warm: answers built, caches filled
            timed(client, url, 20)
        # The modes interleaved request by request (ABBA: each mode first as often), so that
        # the machine's drift and other processes' bursts fall on both alike.
        for _round in range(args.rounds):
            for name, url in cases.items():
                for i in range(args.requests):
                    for disabled in ((False, True) if i % 2 else (True, False)):
                        switch(disabled)
                        times.setdefault((name, disabled), []).extend(timed(client, url, 1))
            switch(False)
        print(f"{'case':<20} {'checked':>10} {'disabled':>10} {'ratio':>7}")
        for name in cases:
            on = statistics.median(times[(name, False)]) * 1000
            off = statistics.median(times[(name, True)]) * 1000
            print(f"{name:<20} {on:>8.3f}ms {off:>8.3f}ms {on / off:>7.3f}")
        bad_tokens(client)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
