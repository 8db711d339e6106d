"""The reviewer's queue at scale (issue 35, Performance): 10 000 submissions waiting across
200 collections, and a reviewer holding roles in many of them.

    flock -x /tmp/ibi-machine.lock .venv/bin/python bench/review_queue.py [--submissions 10000]
        [--collections 200] [--requests 40] [--database sqlite|postgres]

1. Load, into a throw-away database (SQLite in a temporary folder, or a PostgreSQL database
   `ibirepo_bench_review` on 127.0.0.1:5432, user postgres, dropped and made again), migrated:
   one community, C collections (a fifth with DSpace's three steps, the others one review),
   each with its reviewers' group (3 people) and its submitters' group; the editors' group of
   the three-step ones; 500 submitters. The reviewer "rita" is in the reviewers' groups of
   half the collections and administers a tenth of them. N submissions in review, bulk-loaded
   (`bulk_create`, not the services), spread over the collections, each with its open task of
   the first step (created over the last 90 days; one in ten claimed by someone, one in
   thirty by rita) and its two transitions.
2. Time, in process through Django's whole stack (the test client: middleware, URL
   resolution, login, view, template; no server, no socket), as rita: `--requests` queue
   pages per filter, each request new (a different collection, page or order where the
   filter has several: nothing cached by the app between them); then `--requests` claims of
   tasks in her pools (POST /review/<task>/, 302) and as many approvals of them (one review:
   published, the item deposited and its IBI minted; three steps: to the editors' pool),
   each writing its mails owed. p50 and p95 in ms, and the queries of one request.
Targets: the queue's p95 ≤ 300 ms for each filter, a claim's and an approval's ≤ 200 ms.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_NAME = "ibirepo_bench_review"


def setup(folder: Path, database: str) -> None:
    if database == "postgres":
        for sql in (f"DROP DATABASE IF EXISTS {PG_NAME}", f"CREATE DATABASE {PG_NAME}"):
            subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-c", sql],
                           check=True, capture_output=True)
        url = f"postgres://postgres@127.0.0.1:5432/{PG_NAME}"
    else:
        url = f"sqlite:///{folder / 'db.sqlite3'}"
    os.environ.update({
        "DEBUG": "0", "SECURE_SSL_REDIRECT": "0", "ALLOWED_HOSTS": "testserver",
        "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "IBI_HOSTNAME": "bench.ibi.test", "IBI_IP": "192.0.2.1", "IBI_GRANULARITY": "0.001",
        "DATABASE_URL": url, "MEDIA_ROOT": str(folder / "m"), "EMAIL_URL": "memory://",
        "DJANGO_SETTINGS_MODULE": "ibirepo.settings"})
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def load(n: int, collections: int) -> dict:
    from django.contrib.auth.models import Group, User
    from django.db import transaction
    from django.utils import timezone

    from archive.communities import services as tree
    from archive.deposit import services
    from archive.models import (
        Collection,
        CollectionRole,
        Community,
        Submission,
        Task,
        Transition,
        Workflow,
    )

    services.ensure_archive_service()
    rng = random.Random(35)
    now = timezone.now()
    started = time.perf_counter()
    with transaction.atomic():
        unit = tree.community_save(community=Community(
            slug="ufx", name_pt_br="Universidade X", name_en="University X"))
        cols = [tree.collection_save(collection=Collection(
            slug=f"c{i:03d}", name_pt_br=f"Coleção {i:03d}", name_en=f"Collection {i:03d}",
            community=unit)) for i in range(collections)]
        three = set(range(0, collections, 5))
        Workflow.objects.bulk_create([Workflow(collection=c, kind="three" if i in three
                                               else "single") for i, c in enumerate(cols)])
        groups = {}
        for i in range(collections):
            for kind in ("reviewer", "submitter") + (("editor",) if i in three else ()):
                groups[(i, kind)] = Group.objects.create(name=f"{kind}s {i:03d}")
        CollectionRole.objects.bulk_create([CollectionRole(collection=cols[i], role=kind,
                                                           group=g)
                                            for (i, kind), g in groups.items()])
        rita = User.objects.create_user("rita", email="rita@example.org", password="x")
        users = User.objects.bulk_create([User(username=f"r{i:03d}-{k}",
                                               email=f"r{i:03d}-{k}@example.org")
                                          for i in range(collections) for k in range(3)])
        for user in users:
            i = int(user.username[1:4])
            user.groups.add(groups[(i, "reviewer")])
            if i in three:
                user.groups.add(groups[(i, "editor")])
        for i in range(0, collections, 2):
            rita.groups.add(groups[(i, "reviewer")])
            if i in three:
                rita.groups.add(groups[(i, "editor")])
        CollectionRole.objects.bulk_create([CollectionRole(collection=cols[i],
                                                           role="administrator", user=rita)
                                            for i in range(0, collections, 10)])
        submitters = User.objects.bulk_create([User(username=f"s{i:03d}",
                                                     email=f"s{i:03d}@example.org")
                                               for i in range(500)])
        for s in submitters:
            s.groups.add(*[groups[(i, "submitter")] for i in range(collections)][:3])
        reviewers = [rita, *users]
        subs = Submission.objects.bulk_create([Submission(
            owner=rng.choice(submitters), collection=cols[k % collections],
            title=f"Submissão {k:05d} sobre {rng.choice(WORDS)} e {rng.choice(WORDS)}",
            language="pt-BR",
            metadata=[{"field": "dc.creator", "value": f"Silva, Ana {k}", "language": "",
                       "authority": "", "confidence": -1}],
            licence_text="Autorizo a publicação.", licence_accepted_at=now,
            state="in_review", step=0,
            steps=(["reviewer", "editor", "editor"] if k % collections in three
                   else ["reviewer"]), version=3) for k in range(n)], batch_size=1000)
        tasks = []
        for k, s in enumerate(subs):
            claimed, rank = None, k // collections  # its place among its collection's
            if rank % 30 == 0:
                claimed = rita if (k % collections) % 2 == 0 else None
            elif rank % 10 == 0:
                claimed = users[(k % collections) * 3]
            tasks.append(Task(submission=s, step=0, role="reviewer", claimed_by=claimed))
        tasks = Task.objects.bulk_create(tasks, batch_size=1000)
        Transition.objects.bulk_create([Transition(
            submission=s, action="submit", actor=s.owner, actor_name=s.owner.username,
            from_state=a, to_state=b, step=None if a == "draft" else 0)
            for s in subs for a, b in (("draft", "submitted"), ("submitted", "in_review"))],
            batch_size=2000)
        for t in tasks:  # waiting since 0 to 90 days
            t.created = now - timedelta(minutes=rng.randrange(90 * 24 * 60))
        Task.objects.bulk_update(tasks, ["created"], batch_size=1000)
    print(f"loaded {n} submissions in {collections} collections, {len(reviewers)} reviewers "
          f"in {time.perf_counter() - started:.1f} s", flush=True)
    return {"rita": rita, "collections": cols, "mine": [c.pk for c in cols[::2]],
            "three": {cols[i].pk for i in three}}


WORDS = ("clima", "floresta", "solo", "água", "energia", "redes", "dados", "saúde",
         "educação", "política", "linguagem", "história", "materiais")


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


class Counted:
    """The queries run on the default connection while it is open (Django's own log is reset
    at each request's start)."""

    def __enter__(self):
        from django.db import connection

        self.count = 0
        self.wrapper = connection.execute_wrapper(self)
        self.wrapper.__enter__()
        return self

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        return execute(sql, params, many, context)

    def __exit__(self, *exc):
        self.wrapper.__exit__(*exc)

    def __len__(self) -> int:
        return self.count


def row(name: str, times: list[float], queries: int) -> None:
    print(f"| {name} | {len(times)} | {p(times, .5):.0f} | {p(times, .95):.0f} | {queries} |",
          flush=True)


def time_queue(client, place: dict, requests: int) -> None:
    mine, rng = place["mine"], random.Random(7)
    filters = {
        "no filter (oldest first)": lambda i: f"?page={1 + i % 20}",
        "collection": lambda i: f"?collection={mine[i % len(mine)]}",
        "step": lambda i: f"?step={i % 2}",
        "held by me": lambda i: f"?claimed=mine&page={1 + i % 2}",
        "unclaimed": lambda i: f"?claimed=unclaimed&page={1 + i % 20}",
        "held by someone else": lambda i: f"?claimed=others&page={1 + i % 5}",
        "waiting a week or more": lambda i: f"?age=7&page={1 + i % 20}",
        "waiting a month or more": lambda i: f"?age=30&page={1 + i % 20}",
        "sorted by title": lambda i: f"?order=title&page={1 + i % 20}",
        "sorted by collection": lambda i: f"?order=collection&page={1 + i % 20}",
        "sorted by submitter": lambda i: f"?order=submitter&page={1 + i % 20}",
        "sorted by holder": lambda i: f"?order=claimer&page={1 + i % 20}",
        "newest first, deep page": lambda i: f"?order=-age&page={50 + i % 50}",
        "collection + unclaimed + a week, by title": lambda i: (
            f"?collection={mine[rng.randrange(len(mine))]}&claimed=unclaimed&age=7"
            "&order=title"),
    }
    print("| queue page | requests | p50 ms | p95 ms | queries |\n|---|---|---|---|---|")
    for name, query in filters.items():
        with Counted() as queries:
            assert client.get("/review/" + query(0)).status_code == 200
        times = []
        for i in range(1, requests + 1):
            start = time.perf_counter()
            response = client.get("/review/" + query(i))
            times.append(time.perf_counter() - start)
            assert response.status_code == 200, (query(i), response.status_code)
        row(name, times, len(queries))


def time_writes(client, place: dict, requests: int) -> None:
    from archive.models import Submission, Task
    from archive.review import selectors

    rita = place["rita"]
    waiting = list(selectors.queue(rita, claimed="unclaimed").filter(
        submission__collection_id__in=place["mine"]).select_related("submission")[:3 * requests])
    single = [t for t in waiting if t.submission.collection_id not in place["three"]]
    three = [t for t in waiting if t.submission.collection_id in place["three"]]
    chosen = single[:requests // 2] + three[:requests - requests // 2]
    print("| write | requests | p50 ms | p95 ms | queries |\n|---|---|---|---|---|")
    for action in ("claim", "approve"):
        times, counted = [], 0
        for task in chosen:
            version = Submission.objects.values_list("version", flat=True).get(
                pk=task.submission_id)
            with Counted() as queries:
                start = time.perf_counter()
                response = client.post(f"/review/{task.pk}/", {
                    "action": action, "version": version})
                times.append(time.perf_counter() - start)
            assert response.status_code == 302, (action, response.status_code,
                                                 response.content[:500])
            counted = counted or len(queries)
        row(action, times, counted)
    published = Submission.objects.filter(pk__in=[t.submission_id for t in single[:requests // 2]],
                                          state="published").count()
    moved = Task.objects.filter(submission__in=[t.submission_id for t in chosen],
                                closed__isnull=True, step=1).count()
    print(f"approvals: {published} published (one review), {moved} to the editors (three "
          "steps)")
    from archive.models import ReviewNotice
    from archive.review import notices

    owed = ReviewNotice.objects.filter(sent_at=None).count()
    start = time.perf_counter()
    sent = notices.mail_due()
    print(f"the worker's part: {sent} of {owed} notices owed mailed (memory backend) in "
          f"{(time.perf_counter() - start) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=10_000)
    parser.add_argument("--collections", type=int, default=200)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ibi-bench-review-"))
    try:
        setup(folder, args.database)
        import logging

        from django.test import Client

        logging.getLogger("django.request").setLevel(logging.ERROR)
        # The mails are a worker's (nudged after the commit, off the request): here the
        # requests only owe them, and the worker's part is timed after them.
        from archive.web import nudges

        nudges.soon = lambda *args: None
        place = load(args.submissions, args.collections)
        client = Client()
        client.force_login(place["rita"])
        time_queue(client, place, args.requests)
        time_writes(client, place, args.requests)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if args.database == "postgres":
            subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-c",
                            f"DROP DATABASE IF EXISTS {PG_NAME}"], capture_output=True)


if __name__ == "__main__":
    main()
