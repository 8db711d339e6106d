from __future__ import annotations

import pytest
from hypothesis import settings as hypothesis_settings

# Examples are judged by what they assert, not by how fast a shared 2-core machine runs them.
hypothesis_settings.register_profile("repository", deadline=None)
hypothesis_settings.load_profile("repository")


@pytest.fixture(autouse=True)
def media(request, tmp_path):
    """Every Django test stores its files in a fresh folder through the default storage.

    Pure-module tests (archive/identifiers/ibi.py, pairs.py, persistent_url.py) also run with
    `-p no:django`; they then get the folder and nothing else.
    """
    root = tmp_path / "media"
    root.mkdir()
    if not request.config.pluginmanager.hasplugin("django"):
        return root
    settings = request.getfixturevalue("settings")
    settings.MEDIA_ROOT = root
    # Uploads wait beside it, as in production: never in the checkout's own upload-tmp/.
    uploads = tmp_path / "upload-tmp"
    uploads.mkdir(exist_ok=True)
    settings.FILE_UPLOAD_TEMP_DIR = settings.IBI_UPLOAD_TEMP_DIR = str(uploads)
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage",
                    "OPTIONS": {"location": root}},
    }
    return root


@pytest.fixture(autouse=True)
def fresh_cache(request):
    """Rate-limit counts (archive/throttling.py) start from nothing in every Django test: a
    test's wrong tokens must not throttle the next test's client."""
    if not request.config.pluginmanager.hasplugin("django"):
        return
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def default_language(request):
    """A request answered in Portuguese leaves the language active in the thread (as Django's
    LocaleMiddleware does): each test starts from LANGUAGE_CODE again."""
    yield
    if request.config.pluginmanager.hasplugin("django"):
        from django.utils import translation

        translation.deactivate()


BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


@pytest.fixture
def client():
    """Django's test client, reading as a browser does: without a User-Agent it would be a
    robot on COUNTER's list, whose accesses count nothing (archive/accesses/filters.py)."""
    from django.test import Client

    return Client(headers={"User-Agent": BROWSER})


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """The test database, and before it is dropped: the accesses still pending written, and
    any batch the helper thread is writing finished, so that its connection is closed
    (PostgreSQL refuses to drop a database in use).

    With a read replica configured (DATABASE_REPLICA_URL, CI's PostgreSQL pass), lagging reads
    read the primary here: each test's rows live in its own transaction there
    (archive/db/replica.py; tests/replica/ runs them against the real replica)."""
    from archive.db import replica

    replica.ENABLED = False
    yield
    from archive.accesses import counter as access_counter

    access_counter.flush()


@pytest.fixture
def librarian_api(db):
    """A REST client with a librarian's token (staff, in the Librarians group)."""
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from archive.deposit import services

    user = User.objects.create_user("librarian", is_staff=True)
    user.groups.add(services.ensure_librarians_group())
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return api


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
