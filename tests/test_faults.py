"""What the repository does on its worst day (issue #30), each test built as the fault: the
deployment of the production section — gunicorn (threaded), PostgreSQL, Redis as cache and
broker, a Celery worker with its beat, the media on a small file system — all of the test's
own (tests/faults.py): a PostgreSQL cluster it restarts and whose connections it kills, a
Redis it stops and pauses (SIGSTOP), a worker it kills with kill -9 in the middle of a copy,
media it fills. After every test: `fsck` clean, no item made twice, nothing owed undelivered.

Run by .ci/run (`-m faults`, a few minutes); `make test` deselects it. Needs root, for the
tmpfs of the media (as .ci/run has), and PostgreSQL's server binaries.
"""
from __future__ import annotations

import concurrent.futures
import datetime
import itertools
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests import factories as make

from .fake_archive import FakeArchive
from .faults import (
    OwnPostgres,
    OwnRedis,
    SmallFilesystem,
    held_after_commit,
    obeying_503,
    waiting_in,
)
from .servers import (
    ROOT,
    CountingSilentArchive,
    FakeArchiveService,
    LiveServers,
    SmtpServer,
    _python,
)

pytestmark = [pytest.mark.faults, pytest.mark.django_db]

KEY = "1234567890-0987654321"
FAKE_SERVICE = "ibi.test/fake/2024/01.02.03.04"
SILENT_SERVICE = "ibi.test/silent/2024/01.02.03.04"
LEASE = 4  # IBI_COPY_LEASE of the deployment: a killed copy is taken over this soon
MEDIA_SIZE, UPLOADS_SIZE = "4m", "8m"


class Deployment:
    """The site under test and the services it stands on."""

    def __init__(self, root: Path, pg: OwnPostgres, redis: OwnRedis, peer: FakeArchive,
                 acknowledged: FakeArchiveService, media: SmallFilesystem,
                 uploads: SmallFilesystem, mail: SmtpServer) -> None:
        self.root, self.pg, self.redis, self.peer = root, pg, redis, peer
        self.acknowledged, self.media, self.uploads, self.mail = acknowledged, media, uploads, mail
        self.dbname = "ibirepo"
        self.worker: subprocess.Popen | None = None
        self.servers = LiveServers(root)
        self.server = self.servers.prepare(
            "site", DATABASE_URL=pg.create(self.dbname), CACHE_URL=redis.url(1),
            CELERY_BROKER_URL=redis.url(0), MEDIA_ROOT=str(media.path),
            IBI_UPLOAD_TEMP_DIR=str(uploads.path), IBI_PEER_ARCHIVES=peer.base_url,
            IBI_COPY_LEASE=str(LEASE), IBI_ACKNOWLEDGMENTS_EVERY="2", EMAIL_URL=mail.url,
            IBI_ACCESS_MAILS_EVERY="2",
            IBI_RESOLVER_TIMEOUT="2", IBI_RESOLVER_DEADLINE="3", CELERY_BROKER_TIMEOUT="1.5",
            IBI_RESOLVER_MAX_WAITING="4", IBI_RESOLVER_MAX_WAITING_PER_CLIENT="1")
        self.server.start(extra_args=("--workers", "1", "--worker-class", "gthread",
                                      "--threads", "16"))
        self.token = self.server.librarian_token()
        self.server.manage("registerarchive", FAKE_SERVICE, KEY)
        self.sql(f"UPDATE archive_registeredarchive SET included = true, address = "
                 f"'{acknowledged.address}' WHERE archive_service_ibi = '{FAKE_SERVICE}'")

    def sql(self, statement: str, params=()) -> list[tuple]:
        with self.pg.connect(self.dbname, autocommit=True) as connection:
            cursor = connection.execute(statement, params)
            return cursor.fetchall() if cursor.description else []

    def start_worker(self) -> None:
        """A Celery worker with its beat, in a process group of its own (kill -9 takes both)."""
        self.worker = subprocess.Popen(
            [str(Path(_python()).parent / "celery"), "-A", "ibirepo", "worker", "--beat",
             "--pool", "solo", "--loglevel", "INFO", "-s", str(self.root / "beat-schedule")],
            cwd=ROOT, env=self.server.env, start_new_session=True,
            stdout=(self.root / "worker.log").open("ab"), stderr=subprocess.STDOUT)

    def kill_worker(self) -> None:
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait(timeout=30)

    def stop_worker(self) -> None:
        if self.worker is not None and self.worker.poll() is None:
            os.killpg(self.worker.pid, signal.SIGTERM)
            try:
                self.worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill_worker()

    def items(self) -> list[tuple[str, str]]:
        return self.sql("SELECT ibi, title FROM archive_item WHERE NOT is_archive_service "
                        "ORDER BY id")

    def owed(self) -> int:
        return self.sql("SELECT count(*) FROM archive_owedacknowledgment "
                        "WHERE done_at IS NULL")[0][0]

    def mails_owed(self) -> int:
        return self.sql("SELECT count(*) FROM archive_accessrequest "
                        "WHERE mailed_at IS NULL AND mail_due IS NOT NULL")[0][0]

    def fsck(self) -> subprocess.CompletedProcess:
        return self.server.manage("fsck", check=False, env={"LANGUAGE_CODE": "en"})

    def close(self) -> None:
        self.stop_worker()
        self.servers.stop_all()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("faults")
    with OwnPostgres() as pg, OwnRedis(root / "redis") as redis, \
            SmallFilesystem(root / "media", MEDIA_SIZE) as media, \
            SmallFilesystem(root / "uploads", UPLOADS_SIZE) as uploads, \
            FakeArchiveService(FAKE_SERVICE) as acknowledged, \
            SmtpServer(root / "maildir") as mail:
        peer = FakeArchive()
        deployment = Deployment(root, pg, redis, peer, acknowledged, media, uploads, mail)
        deployment.start_worker()
        try:
            yield deployment
        finally:
            deployment.close()
            peer.close()


@pytest.fixture(autouse=True)
def after_each(site):
    """What every fault must leave: storage and database agreeing, no item made twice,
    every acknowledgment owed delivered (the worker has the time it needs)."""
    yield
    if not site.pg.running():
        site.pg.start()
    site.redis.resume()
    if site.redis.process.poll() is not None:
        site.redis.start()
    if site.worker is None or site.worker.poll() is not None:
        site.start_worker()
    make.wait_until(lambda: site.owed() == 0, timeout=60,
                    what="every acknowledgment owed delivered")
    make.wait_until(lambda: site.mails_owed() == 0, timeout=60, what="every answer mailed")
    checked = site.fsck()
    assert checked.returncode == 0, checked.stdout + checked.stderr
    titles = [title for _ibi, title in site.items()]
    assert len(titles) == len(set(titles)), f"an item made twice: {titles}"
    delivered = site.sql("SELECT count(*) FROM archive_owedacknowledgment "
                         "WHERE outcome = 'delivered'")[0][0]
    assert len(site.acknowledged.requests("acknowledgment")) == delivered, (
        "an acknowledgment delivered twice, or not owed")


# -- PostgreSQL: connections killed (points 1 and 7) -----------------------------------------

def test_a_deposit_whose_connection_is_killed_after_its_commit_names_its_item(site):
    with held_after_commit(site.pg.connect, site.dbname) as held:
        answer = held.run(lambda: make.deposit_request(
            site.server, site.token, "Killed after commit", creator="Banon"))
        assert site.pg.terminate(site.dbname, [held.app]) == 1
    response = answer.result(timeout=60)
    assert response.status_code == 303, response.text
    location = response.headers["Location"]
    (ibi,) = [ibi for ibi, title in site.items() if title == "Killed after commit"]
    assert location.endswith(f"/api/items/{ibi}") and ibi in response.json()["detail"]
    assert httpx.get(location, timeout=30).json()["title"] == "Killed after commit"
    # A client that sends it again all the same.
    again = make.deposit_request(site.server, site.token, "Killed after commit", creator="Banon")
    assert again.status_code == 201 and again.json()["ibi"] == ibi


def test_a_connection_killed_inside_minting_is_a_503_and_the_retry_makes_one_item(site):
    before = len(site.items())
    with site.pg.connect(site.dbname) as lock, site.pg.connect(site.dbname,
                                                                autocommit=True) as watch:
        lock.execute("SELECT * FROM archive_mintingstate FOR UPDATE")  # the waiting room
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            answer = pool.submit(make.deposit_request, site.server, site.token,
                                 "Killed while minting")
            app = make.wait_until(lambda: waiting_in(watch, "archive_mintingstate",
                                                     (lock.info.backend_pid,)),
                                  what="the deposit waiting to mint")
            assert site.pg.terminate(site.dbname, [app]) == 1
            response = answer.result(timeout=60)
        lock.rollback()
    assert (response.status_code, response.json()) == (503, {
        "detail": "the database connection was lost: send the request again"})
    assert len(site.items()) == before
    assert make.deposit_request(site.server, site.token, "Killed while minting").status_code == 201
    assert len(site.items()) == before + 1


def test_two_identical_deposits_at_once_make_one_item(site):
    with site.pg.connect(site.dbname) as files, site.pg.connect(site.dbname,
                                                                 autocommit=True) as watch:
        files.execute("LOCK TABLE archive_itemfile IN SHARE MODE")
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            answers = [pool.submit(make.deposit_request, site.server, site.token,
                                   "Sent twice at once") for _ in range(2)]
            make.wait_until(lambda: watch.execute(
                "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                "WHERE NOT l.granted AND c.relname = 'archive_itemfile'").fetchone()[0] == 2,
                what="both deposits at their files")
            files.rollback()
            responses = [answer.result(timeout=60) for answer in answers]
    assert [r.status_code for r in responses] == [201, 201]
    assert responses[0].json()["ibi"] == responses[1].json()["ibi"]
    assert sorted(r.headers.get("Idempotent-Replayed", "") for r in responses) == ["", "true"]


# -- Redis as the cache: stopped and hung (point 3) --------------------------------------------

# A hung Redis or broker without timeouts held a request until it came back (for ever, here):
# every answer must come well within this, on however loaded a machine.
ANSWERED_WITHIN = 10


def reads(site, item: dict) -> dict[str, httpx.Response]:
    url = site.server.url
    return {path: httpx.get(url + path, timeout=ANSWERED_WITHIN, headers=headers)
            for path, headers in [
        ("/", {}), ("/search?q=cache", {}), (f"/items/{item['ibi']}", {}), ("/api/items/", {}),
        (f"/api/items/{item['ibi']}", {}),
        ("/api/items/", {"Authorization": f"Token {site.token}"}),
        (f"/{item['ibi']}", {})]}


@pytest.mark.parametrize("fault", ["stopped", "hung"])
def test_with_the_cache_stopped_or_hung_every_page_is_served(site, fault):
    item = make.deposit_request(site.server, site.token, f"Cache {fault}").json()
    (site.redis.stop if fault == "stopped" else site.redis.pause)()
    try:
        # Each waits for Redis at most CACHE_TIMEOUT (0.25 s), once per 10 s and thread.
        answered = reads(site, item)
        # Wrong tokens from an address of their own (the counts outlive the test in memory).
        with httpx.Client(transport=httpx.HTTPTransport(
                local_address=f"127.0.0.{10 if fault == 'stopped' else 11}")) as guesser:
            wrong = [guesser.get(f"{site.server.url}/api/items/", timeout=ANSWERED_WITHIN,
                                 headers={"Authorization": f"Token {n:040x}"}).status_code
                     for n in range(15)]
    finally:
        site.redis.resume() if fault == "hung" else site.redis.start()
    assert {path: r.status_code for path, r in answered.items()} == {
        path: 302 if path == f"/{item['ibi']}" else 200 for path in answered}
    # A hung Redis costs a short timeout, not Redis's own 5 s a request (point 3).
    slowest = max(r.elapsed.total_seconds() for r in answered.values())
    assert slowest < 2, f"a read waited {slowest:.2f} s for the cache"
    assert 429 in wrong  # the limits count in the process meanwhile


# -- Redis as the broker: stopped and hung (points 4 and 5) ------------------------------------

URLKEYS = itertools.count()


def answers_for(fake: FakeArchiveService, ibis: list[str]) -> None:
    """The stand-in holds `ibis`, with a urlkey of its own for every answer, as Archives do."""
    counter = URLKEYS
    held = {ibi.lower() for ibi in ibis}

    def respond(pairs):
        ibi = pairs.get("parsedibiurl.ibi", "")
        if ibi.lower() not in held:
            return 200, ""
        return 200, (f"archiveaddress {fake.address}\ncontenttype Data\nibi {{rep {ibi}}}\n"
                     f"state Original\ntimestamp 2024-01-02T03:04:05Z\n"
                     f"url http://{fake.address}/col/{ibi}/doc/a.pdf\n"
                     f"urlkey 1700000000-{next(counter):018d}\n")
    fake.respond = respond


@pytest.mark.parametrize("fault", ["stopped", "hung"])
def test_with_the_broker_stopped_or_hung_resolutions_answer_and_acknowledgments_wait(
        site, fault):
    # Two IBIs, resolved three and two times: every resolution owes its acknowledgment
    # (§8.2 step 5), those answered from what the resolver remembers too.
    ibis = [f"ibi.test/fake/2024/0{'1' if fault == 'stopped' else '2'}.02.03.0{n}"
            for n in range(2)]
    answers_for(site.acknowledged, ibis)
    before = len(site.acknowledged.requests("acknowledgment"))
    (site.redis.stop if fault == "stopped" else site.redis.pause)()
    try:
        # Publishing blocked the request (for ever, with the broker hung): never now.
        resolved = [httpx.get(f"{site.server.url}/{ibi}", timeout=ANSWERED_WITHIN)
                    for ibi in (ibis[0], ibis[1], ibis[0], ibis[1], ibis[0])]
        owed = site.owed()
    finally:
        site.redis.resume() if fault == "hung" else site.redis.start()
    assert [r.status_code for r in resolved] == [302] * 5
    assert owed == 5 and len(site.acknowledged.requests("acknowledgment")) == before
    # The broker back: the worker's beat sends what is owed, each once (after_each).
    make.wait_until(lambda: site.owed() == 0, timeout=60, what="the acknowledgments sent")
    assert len(site.acknowledged.requests("acknowledgment")) == before + 5


@pytest.mark.parametrize("fault", ["stopped", "hung"])
def test_with_the_broker_stopped_or_hung_a_librarians_answer_is_mailed_once_it_is_back(
        site, clerk, fault):
    """The answer to a request for a copy is owed in the database (#30, 4): the librarian's
    page answers at once, broker or not, and the mail goes once the broker is back."""
    until = (datetime.datetime.now(datetime.UTC).date() + datetime.timedelta(days=90)).isoformat()
    item = make.deposited(site.server, site.token, f"Tese sob embargo ({fault})",
                          ("tese.pdf", b"%PDF-1.4 tese\n"), access=json.dumps(
                              {"rights": "embargoed", "embargo_until": until}))
    form = f"/items/{item['ibi']}/request"
    with httpx.Client(base_url=site.server.url, timeout=30) as reader:
        asked = reader.post(form, data={"csrfmiddlewaretoken": csrf(reader, form),
                                        "name": "Ana", "email": f"{fault}@example.org",
                                        "reason": "pesquisa"})
    assert asked.status_code == 302, asked.text[:500]
    ((request,),) = site.sql("SELECT id FROM archive_accessrequest WHERE email = %s",
                             [f"{fault}@example.org"])
    page = f"/admin/archive/accessrequest/{request}/change/"
    token = csrf(clerk, page)
    before = len(site.mail.messages())
    (site.redis.stop if fault == "stopped" else site.redis.pause)()
    try:
        began = time.monotonic()
        answered = clerk.post(page, data={"csrfmiddlewaretoken": token,
                                          "decision": "approve", "message": "Boa leitura"})
        took = time.monotonic() - began
        owed, mailed = site.mails_owed(), len(site.mail.messages())
    finally:
        site.redis.resume() if fault == "hung" else site.redis.start()
    assert answered.status_code == 302 and took < 3, (answered.status_code, took)
    assert (owed, mailed) == (1, before)  # owed, kept: no worker could be told
    make.wait_until(lambda: site.mails_owed() == 0, timeout=60, what="the answer mailed")
    (mail,) = [m for m in site.mail.messages() if m["To"] == f"{fault}@example.org"]
    assert "?token=" in mail.get_payload(decode=True).decode(mail.get_content_charset())


# -- The worker killed with kill -9 mid-copy; the admin's copy page (points 6 and 12) ---------

@pytest.fixture(scope="module")
def clerk(site) -> httpx.Client:
    """A librarian signed in to the site's admin."""
    site.server.manage("createlibrarian", "clerk", "--password", "a long passphrase here")
    with httpx.Client(base_url=site.server.url, timeout=30) as client:
        signed_in = client.post("/admin/login/?next=/admin/", data={
            "csrfmiddlewaretoken": csrf(client, "/admin/login/"), "username": "clerk",
            "password": "a long passphrase here"})
        assert signed_in.status_code == 302, signed_in.text[:500]
        yield client


def csrf(client: httpx.Client, path: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get(path).text)[1]


def test_a_worker_killed_mid_copy_is_redone_soon_after_a_worker_is_back(site, clerk):
    record = make.held_elsewhere(site.peer, ("a.bin", b"A" * 300_000), ("b.bin", b"B" * 200_000))
    gate = site.peer.gate("b.bin")
    page = clerk.post("/admin/archive/item/copy/", follow_redirects=True, data={
        "csrfmiddlewaretoken": csrf(clerk, "/admin/archive/item/copy/"),
        "ibi": record["ibi"], "source": site.peer.base_url})
    assert page.status_code == 200  # was a 500: the page asked a result backend
    assert f"Copy of {record['ibi']} queued: its progress is in Copy jobs." in page.text
    assert gate.arrived.wait(60), "the worker never fetched the second file"
    jobs = site.sql("SELECT id, state, attempts FROM archive_copyjob WHERE ibi = %s",
                    [record["ibi"]])
    assert [(state, attempts) for _id, state, attempts in jobs] == [("running", 1)]
    job = jobs[0][0]
    uploads = Path(site.uploads.path)
    assert list(uploads.glob(f"copy-{job}-*"))  # the half-fetched file
    site.kill_worker()
    gate.release.set()
    back = time.monotonic()
    site.start_worker()
    make.wait_until(lambda: site.sql("SELECT state FROM archive_copyjob WHERE id = %s",
                                     [job])[0][0] == "done", timeout=60,
                    what="the killed copy redone")
    assert time.monotonic() - back < 60
    state, attempts, outcome = site.sql(
        "SELECT state, attempts, outcome FROM archive_copyjob WHERE id = %s", [job])[0]
    assert (state, attempts, outcome) == ("done", 2, "created")
    assert not list(uploads.glob(f"copy-{job}-*"))
    files = site.sql("SELECT f.name, f.size FROM archive_itemfile f JOIN archive_item i ON "
                     "i.id = f.item_id WHERE i.ibi = %s ORDER BY f.name", [record["ibi"]])
    assert files == [("a.bin", 300_000), ("b.bin", 200_000)]
    progress = clerk.get("/admin/archive/copyjob/").text
    assert "488.3\xa0KB / 488.3\xa0KB" in progress or "488,3\xa0KB / 488,3\xa0KB" in progress


# -- The media file system filled (point 8) -----------------------------------------------------

def stored_files(site) -> list[Path]:
    return [p for p in Path(site.media.path).rglob("*") if p.is_file()]


def test_a_full_media_file_system_is_a_507_and_the_same_deposit_succeeds_with_room(
        site, clerk):
    big = os.urandom(6 * 1024 * 1024)  # more than the media's 4 MB, less than the uploads' 8
    before = stored_files(site)
    full = make.deposit_request(site.server, site.token, "Too big for now", ("big.bin", big))
    assert full.status_code == 507, full.text
    assert full.json() == {"detail": "the storage is full: nothing was kept; try again once "
                                     "there is room"}
    assert stored_files(site) == before  # nothing partial under col/, nor beside it
    form = clerk.post("/admin/archive/item/add/", data={
        "csrfmiddlewaretoken": csrf(clerk, "/admin/archive/item/add/"),
        "title": "Too big for the form", "transferable": "on"},
        files={"upload": ("big.bin", big, "application/octet-stream")})
    assert form.status_code == 507 and "the storage is full" in form.text
    assert stored_files(site) == before
    larger = make.deposit_request(site.server, site.token, "Larger than the uploads",
                                  ("bigger.bin", os.urandom(9 * 2**20)))
    assert larger.status_code == 507 and larger.json()["detail"].startswith("the storage is")
    # Nothing waits where uploads wait either: not a temporary file, not a pending upload
    # the refused admin form would have kept (its message says nothing was kept).
    assert not [p for p in Path(site.uploads.path).rglob("*") if p.is_file()]
    site.media.grow("16m")
    again = make.deposit_request(site.server, site.token, "Too big for now", ("big.bin", big))
    assert again.status_code == 201, again.text


# -- Remote resolution: one address cannot take every place (point 10) -------------------------

def test_a_dozen_resolutions_from_one_address_wait_one_at_a_time(site):
    """A dozen questions for IBIs nobody holds, from one address, while an included Archive
    is silent: one waits, the others are told at once (429); a reader elsewhere is asked."""
    silent = CountingSilentArchive()
    site.server.manage("registerarchive", SILENT_SERVICE, KEY)
    site.sql(f"UPDATE archive_registeredarchive SET included = true, address = "
             f"'{silent.address}' WHERE archive_service_ibi = '{SILENT_SERVICE}'")
    one = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=30)
    other = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.3"), timeout=30)
    try:
        with concurrent.futures.ThreadPoolExecutor(13) as pool:
            crowd = [pool.submit(one.get, f"{site.server.url}/ibi.test/none/2024/"
                                          f"01.02.03.{n:02d}") for n in range(12)]
            assert silent.wait_for(1, timeout=30), "no resolution of the crowd waited"
            make.wait_until(lambda: sum(f.done() for f in crowd) >= 11,
                            what="the crowd answered but for the one waiting")
            answered = [f for f in crowd if f.done()]
            reader = pool.submit(other.get, f"{site.server.url}/ibi.test/none/2024/01.02.04.00")
            assert silent.wait_for(2, timeout=30), "the other reader was not given a place"
            refused = [f.result() for f in answered]
            waited = [f.result(timeout=30) for f in crowd if f not in answered]
    finally:
        one.close()
        other.close()
        silent.close()
        site.sql("DELETE FROM archive_registeredarchive WHERE archive_service_ibi = %s",
                 [SILENT_SERVICE])
    assert sorted(r.status_code for r in refused) == [429] * 11
    assert {r.headers["Retry-After"] for r in refused} == {"3"}
    # The one that waited, and the reader elsewhere, asked: the silent Archive said nothing of
    # the item, so a 503, never "not found" (#41).
    assert [r.status_code for r in waited] == [503]
    assert reader.result(timeout=30).status_code == 503


# -- Last: the cluster stopped and restarted (each server thread then meets its dead
#    connection once: a read is retried, a write is a 503 that a client sends again) -------

def test_a_deposit_whose_database_stops_after_its_commit_names_its_item(site):
    with held_after_commit(site.pg.connect, site.dbname) as held:
        answer = held.run(lambda: make.deposit_request(
            site.server, site.token, "Stopped after commit", creator="Banon"))
        site.pg.stop("immediate")  # a crash: every connection gone, none can be made
        response = answer.result(timeout=60)
    assert response.status_code == 303, response.text
    site.pg.start()
    again = obeying_503(lambda: make.deposit_request(site.server, site.token,
                                                     "Stopped after commit", creator="Banon"))
    assert again.status_code == 201, again.text
    assert response.headers["Location"].endswith(f"/api/items/{again.json()['ibi']}")
    assert [title for _ibi, title in site.items()].count("Stopped after commit") == 1


def test_while_the_database_restarts_every_request_is_a_503_and_nothing_is_made_twice(site):
    before = len(site.items())
    site.pg.stop("fast")
    try:
        down = {
            "api": httpx.get(f"{site.server.url}/api/items/", timeout=30),
            "page": httpx.get(f"{site.server.url}/", timeout=30),
            "resolver": httpx.get(f"{site.server.url}/LK47B6W/362SFKH", timeout=30),
            "deposit": make.deposit_request(site.server, site.token, "During the restart"),
        }
    finally:
        site.pg.start()
    for name, response in down.items():
        assert response.status_code == 503, (name, response.text)
        assert int(response.headers["Retry-After"]) > 0, name
    assert down["api"].json()["detail"].startswith("the database is not available")
    assert down["deposit"].headers["content-type"] == "application/json"
    # Back: a read on a connection the restart killed is retried on a fresh one, a deposit
    # sent again is made once.
    assert httpx.get(f"{site.server.url}/api/items/", timeout=30).status_code == 200
    again = obeying_503(lambda: make.deposit_request(site.server, site.token,
                                                     "During the restart"))
    assert again.status_code == 201, again.text
    assert len(site.items()) == before + 1
