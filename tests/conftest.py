"""The suite's fixtures: files and caches per test, the people tests act as (a reader, a
librarian in the admin and over the API, an anonymous API client), a throw-away PostgreSQL
database, Celery in process. What tests make (items, deposits, waits) is tests/factories.py's.

pytest-django's own fixtures (client, admin_client, settings, django_db_setup …) are used as
pytest-django defines them, never redefined here or in a test module, but for the one it asks
projects to override, `django_db_keepdb` (a test process's database copied from another's).
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

# Examples are judged by what they assert, not by how fast a shared 2-core machine runs them.
hypothesis_settings.register_profile("repository", deadline=None)
hypothesis_settings.load_profile("repository")

BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
PASSWORD = "a-librarian's-long-password"
POSTGRES = {"host": "127.0.0.1", "port": 5432, "user": "postgres", "dbname": "postgres"}


def pytest_configure(config) -> None:
    """Passwords hashed with MD5 in the suite (Django's advice for tests): PBKDF2's million
    rounds, right for production, cost about a second of CPU for each librarian a test makes
    and each login. The live servers (tests/servers.py) keep the production hasher."""
    if config.pluginmanager.hasplugin("django"):
        from django.conf import settings

        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
        _put_back_rather_than_flush()
    _one_tls_context_per_argument()


def _one_tls_context_per_argument() -> None:
    """httpx makes a verifying TLS context for each client it makes, plain-HTTP ones
    included, and `httpx.get()` makes a client each time: 54 ms of CPU (OpenSSL 3 reading the
    CA bundle) for each of the suite's thousands of requests to its loopback servers. The
    contexts it would make are all alike for the same arguments, so each is made once per
    test process (the product makes its own once: archive/protocol/client.py
    `tls_context`)."""
    import functools

    from httpx._transports import default

    default.create_ssl_context = functools.cache(default.create_ssl_context)


def _put_back_rather_than_flush() -> None:
    """A transactional test's database made again as migrated, the way a migration test's is
    (tests/servers.py `restore_migrated`: SQLite's backup API from the copy kept at the
    session's start): a few milliseconds where Django's `flush` and its post_migrate
    re-seeding (content types, permissions, the archive service, the CNPq table …) took a
    tenth of a second, after each of several hundred tests. The same rows either way; on
    another database, or for a test that names its apps or rolls back by serialisation,
    Django's flush as before."""
    from django.db import connections
    from django.test import TransactionTestCase

    from tests.servers import restore_migrated

    flush = TransactionTestCase._fixture_teardown

    def _fixture_teardown(self) -> None:
        names = self._databases_names(include_mirrors=False)
        if (self.available_apps is None and not self.serialized_rollback
                and names == ["default"] and restore_migrated(connections["default"])):
            return
        flush(self)

    TransactionTestCase._fixture_teardown = _fixture_teardown


def pytest_sessionstart(session) -> None:
    """The app's memoised pure functions (e.g. `archive.identifiers.ibi._parse`'s lru_cache)
    start every session empty. `make mutation` runs each mutant's tests in a process forked from
    one that already ran them: an answer cached there would hide the mutant."""
    for name, module in list(sys.modules.items()):
        if name == "archive" or name.startswith("archive."):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


# Fixtures whose tests start processes (a server, Chromium, a PostgreSQL database of their own).
_STARTS_PROCESSES = {"live_site", "live_server", "browser", "throwaway_postgres"}


def pytest_collection_modifyitems(config, items) -> None:
    """The modules that start processes run first, the rest after them in file order: under
    xdist (`make test` runs `--dist loadscope --no-loadscope-reorder`, whole modules to a
    worker, in this order) a module of one half-minute live test then never comes last, while
    the other workers have nothing left to do."""
    def starts_processes(item) -> bool:
        module = getattr(item, "module", None)
        return (bool(_STARTS_PROCESSES & set(getattr(item, "fixturenames", ())))
                or (module is not None and hasattr(module, "LiveServers")))

    slow = {item.nodeid.split("::")[0] for item in items if starts_processes(item)}
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in slow)  # stable


def pytest_collection_finish(session) -> None:
    """What the test process holds once every test is collected (Django, the app, every test
    module and its items: most of its objects, all alive to its end) frozen out of the cyclic
    garbage collector's sight (`gc.freeze`, after a last collection): each later collection
    walks only what the tests make. The collector went over that heap again and again, 6 to
    19 % of a test process's CPU. Its youngest generation is then collected every 20 000
    allocations rather than every 700 (what a test makes lives as long as the test), the older
    ones every 20 collections of the younger rather than 10: 3 700 collections taking 3.6 s of
    CPU over four modules became 110 taking 2.1 s."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def _django(request) -> bool:
    return request.config.pluginmanager.hasplugin("django")


@pytest.fixture(autouse=True)
def media(request, tmp_path):
    """Every Django test stores its files in a fresh folder through the default storage.

    Pure-module tests (archive/identifiers/ibi.py, pairs.py, persistent_url.py) also run with
    `-p no:django`; they then get the folder and nothing else.
    """
    root = tmp_path / "media"
    root.mkdir()
    if not _django(request):
        return root
    settings = request.getfixturevalue("settings")
    settings.MEDIA_ROOT = root
    # Uploads wait beside it, as in production: never in the checkout's own upload-tmp/.
    uploads = tmp_path / "upload-tmp"
    uploads.mkdir(exist_ok=True)
    settings.FILE_UPLOAD_TEMP_DIR = settings.IBI_UPLOAD_TEMP_DIR = str(uploads)
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "archive.deposit.storage.AtomicFileSystemStorage",
                    "OPTIONS": {"location": root}},
    }
    return root


@pytest.fixture(autouse=True)
def fresh_cache(request):
    """Rate-limit counts (archive/web/throttling.py) start from nothing in every Django test:
    a test's wrong tokens must not throttle the next test's client. So do the day's secrets
    the access counter's filters keep a minute per process (archive/usage/filters.py)."""
    if not _django(request):
        return
    from django.core.cache import cache

    from archive.usage import filters

    cache.clear()
    filters._secrets.clear()


@pytest.fixture(autouse=True)
def counts_stay_in_their_test(request):
    """The access counter's pending batch (archive/usage/counter.py) written at the end of the
    test that counted it, into that test's database: left pending, it was written into the
    next test's, and its helper thread, writing it there, kept that test's own request from
    writing its own batch (seen once: a test found a stranger's row and not its own)."""
    yield
    if _django(request) and "_django_db_helper" in request.fixturenames:
        from archive.usage import counter as access_counter

        access_counter.flush()


@pytest.fixture(autouse=True)
def strict_pair_lists(request, monkeypatch):
    """Every pair list this Archive sends over HTTP (the archive service's answers, the
    resolver service's, their error pairs: web/pairs.py `render_pairs`) is read back
    by the strict Table 6.2 reader, in every Django test: one the standard's grammar refuses
    fails the test that made it (#25)."""
    if not _django(request):
        return
    from archive.archive_service import views as archive_service
    from archive.protocol import pairs
    from archive.web import pairs as responses

    def strict(text: str) -> str:
        assert pairs.dumps(pairs.loads(text, strict=True)) == text, text
        return text

    def strictly_read(given: list) -> str:
        return strict(pairs.dumps(given))

    def strictly_sent(text: str, *args, **kwargs):
        return responses.render_pair_text(strict(text), *args, **kwargs)

    monkeypatch.setattr(responses, "dumps", strictly_read)
    # The archive service writes its answers itself (archive_service/answers.py answer_text).
    monkeypatch.setattr(archive_service, "render_pair_text", strictly_sent)


@pytest.fixture(autouse=True)
def default_language(request):
    """A request answered in Portuguese leaves the language active in the thread (as Django's
    LocaleMiddleware does): each test starts from LANGUAGE_CODE again."""
    yield
    if _django(request):
        from django.utils import translation

        translation.deactivate()


@pytest.fixture(scope="session", autouse=True)
def session_database(request):
    """The test database for the session, and before it is dropped: the accesses still
    pending written, and any batch the helper thread is writing finished, so that its
    connection is closed (PostgreSQL refuses to drop a database in use).

    With a read replica configured (DATABASE_REPLICA_URL, CI's PostgreSQL pass), lagging reads
    read the primary here: each test's rows live in its own transaction there
    (archive/db/replica.py; tests/test_streaming_replica.py runs them against the real
    replica)."""
    if not _django(request):
        yield
        return
    from archive.db import replica

    replica.ENABLED = False
    from django.db import connection

    from tests.servers import keep_template

    with _migrated_once(request) as publish:
        request.getfixturevalue("django_db_setup")
        with request.getfixturevalue("django_db_blocker").unblock():
            publish(keep_template(connection))  # the live servers' template: no second migrate
    if connection.vendor == "sqlite" and not _COPIED:
        _remove_journal_when_gone(connection.settings_dict["NAME"])
    yield
    from archive.usage import counter as access_counter

    access_counter.flush()
    if _COPIED:  # kept by pytest-django, as a --reuse-db database would be: ours to remove
        connection.close()
        for suffix in ("", "-wal", "-shm"):
            Path(_COPIED[0] + suffix).unlink(missing_ok=True)


_COPIED: list[str] = []  # this test process's database, when copied from another's


def _remove_journal_when_gone(name: str) -> None:
    """At this process's end, the write-ahead log and shared memory files of its SQLite test
    database, which pytest-django removes without them, if it has removed the database."""
    from tests.servers import when_this_process_ends

    def remove() -> None:
        if not Path(name).exists():
            for suffix in ("-wal", "-shm"):
                Path(name + suffix).unlink(missing_ok=True)

    when_this_process_ends(remove)


def _run_folder(request) -> Path:
    """The folder every test process of this run shares: under xdist, the parent of the
    processes' own base temporary folders; in one process, its base temporary folder."""
    folder = request.getfixturevalue("tmp_path_factory").getbasetemp()
    return folder.parent if hasattr(request.config, "workerinput") else folder


@contextmanager
def _migrated_once(request):
    """Under xdist, the test processes of a run migrate an SQLite test database once, not once
    each (the migrations' states rendered: fifteen seconds of CPU on a slow hour): the first
    to take the run's lock migrates its own and publishes it as it was migrated (`publish`,
    given `keep_template`'s snapshot); each of the others, when it has the lock, takes a copy
    as its test database, which pytest-django then keeps (`django_db_keepdb`) and `migrate`
    finds with every migration applied. Elsewhere (one process, PostgreSQL), Django's own
    setup alone."""
    import fcntl
    import shutil

    from django.db import connection

    request.getfixturevalue("django_db_modify_db_settings")  # the worker's own test name
    test_name = (connection.settings_dict.get("TEST") or {}).get("NAME")
    if connection.vendor != "sqlite" or not hasattr(request.config, "workerinput") \
            or not test_name:
        yield lambda kept: None
        return
    run = _run_folder(request)
    shared = run / "migrated.sqlite3"
    with open(run / "migrated.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if shared.exists():
            shutil.copyfile(shared, test_name)
            _COPIED.append(test_name)

        def publish(kept: Path | None) -> None:
            if kept is not None and not shared.exists():
                shutil.copyfile(kept, run / "migrated.part")
                (run / "migrated.part").rename(shared)

        yield publish


@pytest.fixture(scope="session")
def django_db_keepdb(request) -> bool:
    """pytest-django's (--reuse-db), or true where this test process's database was copied
    from the one another process of the run migrated (`_migrated_once`)."""
    return bool(request.config.getvalue("reuse_db") or _COPIED)


# -- People ---------------------------------------------------------------------------------

@pytest.fixture
def reader():
    """Django's test client reading as a browser does: without a User-Agent it would be a
    robot on COUNTER's list, whose accesses count nothing (archive/usage/filters.py)."""
    from django.test import Client

    return Client(headers={"User-Agent": BROWSER})


@pytest.fixture
def librarian(db):
    """A librarian: staff, in the Librarians group, with PASSWORD."""
    from django.contrib.auth.models import User

    from archive.deposit import services

    user = User.objects.create_user("librarian", password=PASSWORD, is_staff=True)
    user.groups.add(services.ensure_librarians_group())
    return user


@pytest.fixture
def librarian_client(librarian):
    """The admin as the librarian sees it."""
    from django.test import Client

    client = Client()
    client.force_login(librarian)
    return client


@pytest.fixture
def librarian_api(librarian):
    """A REST client with the librarian's token."""
    from tests.factories import token_client

    return token_client(librarian)


@pytest.fixture
def anonymous_api():
    """A REST client without credentials."""
    from rest_framework.test import APIClient

    return APIClient()


# -- A browser and the site it reads ----------------------------------------------------------

# Debian's headless build of Chromium (package chromium-headless-shell, the same sources and
# version as its chromium): what Playwright itself runs for headless tests. It draws no browser
# window behind the page, and the browser modules took 30 % less CPU with it than with
# `chromium --headless` (158 s against 227 s, measured with both on the same hour). The binary
# itself: Debian's /usr/bin/chromium-headless-shell is a shell script that runs it without
# `exec`, and stopping the script left the browser running.
CHROMIUM = "/usr/lib/chromium/chromium-headless-shell"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]


@pytest.fixture
def live_site(transactional_db, settings, monkeypatch):
    """A live server over plain HTTP with the admin reachable (production forces HTTPS on it).

    pytest-django's shared live_server builds its middleware once per session, before any
    test's settings apply, so this test starts its own after relaxing the HTTPS settings.
    """
    settings.SECURE_SSL_REDIRECT = False
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False
    # Playwright's sync API runs an event loop in this thread; the ORM calls here are plain
    # synchronous test code, not async code.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from django.test.testcases import LiveServerThread
    from pytest_django.live_server_helper import LiveServer

    from tests.servers import PromptWSGIServer

    # Its stop at the test's end is at once, not at the next half-second look of its loop.
    monkeypatch.setattr(LiveServerThread, "server_class", PromptWSGIServer)
    live = LiveServer("localhost")
    live._live_server_modified_settings.enable()
    yield live
    live._live_server_modified_settings.disable()
    live.stop()


@pytest.fixture(scope="session")
def chromium_endpoint(tmp_path_factory) -> Iterator[Callable[[], str]]:
    """`endpoint()` → the DevTools address of Debian's Chromium: one process per test process,
    started on first use, stopped at the end of the session. Tests connect to it (`browser`),
    each in contexts of their own, whose locale sets the pages' language (Accept-Language,
    navigator.language); Debian's chromium without chromium-l10n has its own controls in
    English whatever it is told, so one process serves every language."""
    import subprocess

    import httpx

    from tests.factories import wait_until
    from tests.servers import free_port

    started: list[tuple[subprocess.Popen, str]] = []

    def endpoint() -> str:
        if not started:
            port = free_port()
            profile = tmp_path_factory.mktemp("chromium")
            process = subprocess.Popen(
                [CHROMIUM, "--headless", f"--remote-debugging-port={port}",
                 f"--user-data-dir={profile}", *CHROMIUM_ARGS, "about:blank"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            address = f"http://127.0.0.1:{port}"

            def answers() -> bool:
                assert process.poll() is None, "Chromium exited at start"
                try:
                    return httpx.get(f"{address}/json/version", timeout=2).is_success
                except httpx.TransportError:
                    return False

            wait_until(answers, timeout=30, what="Chromium answering")
            started.append((process, address))
        return started[0][1]

    yield endpoint
    for process, _ in started:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[tuple]:
    """Playwright's Node driver, one per test process, started on first use (a second and a
    half of CPU a test saved), and the event loop its synchronous API runs in.

    That API marks its loop as running in the main thread while Playwright is open, and Django
    refuses every database call of a thread with a running loop (SynchronousOnlyOperation):
    the mark is lifted between the tests that use the browser and put back for them
    (`browser`), as each had it when it opened Playwright itself."""
    import asyncio

    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    loop = asyncio.get_running_loop()
    asyncio._set_running_loop(None)
    yield playwright, loop
    asyncio._set_running_loop(loop)
    playwright.stop()


@pytest.fixture
def browser(chromium_endpoint, playwright_driver):
    """Debian's Chromium, the session's, connected through the session's Playwright: a test
    opens contexts of its own (their locale gives the pages' language), closed when it
    ends (the browser goes on)."""
    import asyncio

    playwright, loop = playwright_driver
    asyncio._set_running_loop(loop)
    try:
        chromium = playwright.chromium.connect_over_cdp(chromium_endpoint())
        yield chromium
        chromium.close()  # connected, not launched: closes this test's contexts, disconnects
    finally:
        asyncio._set_running_loop(None)


@pytest.fixture
def resolver_settings(settings):
    """This Archive as the in-process resolver's tests see it: at testserver, waiting a second
    for another Archive (a second at least: a loaded machine is slow, not wrong) and five for
    a round; its archive service, made."""
    from archive.deposit import services

    settings.ARCHIVE_ADDRESS = "testserver"
    settings.IBI_RESOLVER_TIMEOUT = 1
    settings.IBI_RESOLVER_DEADLINE = 5
    return services.ensure_archive_service()


# -- Services of the test's own ---------------------------------------------------------------

@pytest.fixture(scope="session")
def throwaway_postgres(request) -> Iterator[Callable[[str], str]]:
    """`make(prefix)` → the URL of a new PostgreSQL database on this machine's server, named
    after the prefix and this process (xdist workers never share one), with every migration
    applied and no archive service: a copy of the run's template (a server's `migrate` then has
    nothing to apply), which the first test process to need it migrates (fifteen seconds of
    CPU) while the others wait for it, and drops at its end (one that needs it after that makes
    it again); every database made is dropped at the end of the session. `make(prefix,
    migrated=False)`: an empty one (a test of a migration takes it forwards from there)."""
    import fcntl

    import psycopg

    from tests.servers import migrate_as_template

    made: list[str] = []
    run = getattr(request.config, "workerinput", {}).get("testrunuid", str(os.getpid()))
    template = f"ibirepo_template_{run[:16]}"
    lock_file = _run_folder(request) / "postgres-template.lock"

    def create(admin, name: str, *, like: str = "") -> None:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{like}"' if like else ""))
        made.append(name)

    def make(prefix: str, *, migrated: bool = True) -> str:
        name = f"{prefix}_{os.getpid()}_{len(made)}"
        with psycopg.connect(**POSTGRES, autocommit=True) as admin, open(lock_file, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if migrated and not admin.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                                              [template]).fetchone():
                create(admin, template)
                migrate_as_template(f"postgres://postgres@127.0.0.1:5432/{template}")
            create(admin, name, like=template if migrated else "")
        return f"postgres://postgres@127.0.0.1:5432/{name}"

    yield make
    if made:
        with psycopg.connect(**POSTGRES, autocommit=True) as admin, open(lock_file, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            for name in made:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def eager_tasks():
    """Celery tasks in process even when the suite runs with a broker (CI's second pass):
    for tests about what a task does, not about the broker (tests/test_worker.py is that)."""
    from ibirepo.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def subprocess_database_url() -> str:
    """DATABASE_URL of this run's test database, for subprocesses that must share it."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    return f"postgres://{db['USER']}@{host}:{port}/{db['NAME']}"


@pytest.fixture(scope="session")
def manage_py(tmp_path_factory):
    """`manage.py <args>` in the environment the test gives (besides the machine's own, none of
    the test run's settings), forked from a bare zygote (tests/zygote.py): each command reads
    its settings as a new process would, without a Python and Django start each time."""
    import subprocess

    from tests.servers import Zygote

    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("IBI_", "DATABASE_", "CELERY_", "AWS_", "ARCHIVE_"))
            and k not in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS")}
    folder = tmp_path_factory.mktemp("settings")
    zygote = Zygote(base, bare=True)

    def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        done = zygote.run(args, folder, timeout=120, env={**base, **env})
        assert done is not None, "the zygote could not import Django"
        return done

    yield run
    zygote.close()
