"""The database kills our connections between two requests (a restart, a failover, an
administrator's pg_terminate_backend): a read is answered all the same, a write is a 503 with
Retry-After that wrote nothing, and neither is ever a 500.

Real PostgreSQL only (DATABASE_URL=postgres://…): SQLite has no connection to drop. The test
client keeps its connection between requests, as a worker with CONN_MAX_AGE does.
"""
from __future__ import annotations

import io

import psycopg
import pytest
from django.contrib.auth.models import User
from django.db import connection
from rest_framework.authtoken.models import Token

from archive.deposit import services
from archive.models import Item

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://…")


def kill_our_connections() -> int:
    """What an administrator (or a failover) does, from a connection of its own."""
    db = connection.settings_dict
    with psycopg.connect(host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432,
                         user=db["USER"], dbname=db["NAME"], autocommit=True) as admin:
        killed = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchone()[0]
    return killed


@pytest.fixture
def item():
    return services.item_deposit(title="Report", uploads=[
        services.Upload("report.pdf", io.BytesIO(b"%PDF report"))])


@pytest.fixture
def token() -> str:
    user = User.objects.create_user("librarian")
    user.groups.add(services.ensure_librarians_group())
    return Token.objects.create(user=user).key


def test_a_read_after_the_kill_is_retried_once_and_answered(client, item):
    assert client.get(f"/api/items/{item.ibi}", secure=True).status_code == 200
    assert kill_our_connections() >= 1

    response = client.get(f"/api/items/{item.ibi}", secure=True)

    assert response.status_code == 200 and response.json()["title"] == "Report"


def test_a_page_read_after_the_kill_is_answered_too(client, item):
    assert client.get(f"/items/{item.ibi}", secure=True).status_code == 200
    kill_our_connections()
    assert client.get(f"/items/{item.ibi}", secure=True).status_code == 200


def test_a_write_after_the_kill_is_a_503_with_retry_after_and_writes_nothing(client, token):
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"}
    assert client.get("/api/items/", secure=True, **headers).status_code == 200
    before = Item.objects.count()
    kill_our_connections()

    response = client.post("/api/items/", {"title": "Half", "files": [io.BytesIO(b"x")]},
                           secure=True, **headers)

    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert "send the request again" in response.json()["detail"]
    assert Item.objects.count() == before
    # Sent again, it is done.
    upload = io.BytesIO(b"x")
    upload.name = "x.txt"
    again = client.post("/api/items/", {"title": "Whole", "files": [upload]}, secure=True,
                        **headers)
    assert again.status_code == 201, again.content
    assert Item.objects.count() == before + 1


def test_a_real_database_error_is_still_a_500(client, item, monkeypatch):
    from django.db import OperationalError

    from archive.deposit import selectors

    def broken(*args, **kwargs):
        raise OperationalError("a bug, not a dropped connection")

    monkeypatch.setattr(selectors, "item_by_ibi", broken)
    client.raise_request_exception = False
    assert client.get(f"/api/items/{item.ibi}", secure=True).status_code == 500
