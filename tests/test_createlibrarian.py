"""manage.py createlibrarian: a staff member of Librarians whose printed token can deposit."""
from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def createlibrarian(*args: str) -> str:
    out = io.StringIO()
    call_command("createlibrarian", *args, stdout=out)
    return out.getvalue()


def test_it_prints_a_token_that_deposits(settings):
    output = createlibrarian("alice", "--password", "s3cret-Passw0rd")
    assert output.startswith("Created librarian alice")
    token = output.split()[-1]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.post("/api/items/", {
        "title": "By token", "files": [SimpleUploadedFile("a.txt", b"a")]},
        format="multipart", secure=True)
    assert response.status_code == 201, response.json()


def test_the_librarian_is_staff_in_the_librarians_group_with_the_password():
    createlibrarian("alice", "--password", "s3cret-Passw0rd", "--email", "a@example.org")
    user = User.objects.get(username="alice")
    assert user.is_staff and not user.is_superuser
    assert [g.name for g in user.groups.all()] == ["Librarians"]
    assert user.has_perms(["archive.add_item", "archive.change_item", "archive.delete_item"])
    assert user.check_password("s3cret-Passw0rd")
    assert user.email == "a@example.org"


def test_without_a_password_only_the_token_works():
    output = createlibrarian("bob")
    assert not User.objects.get(username="bob").has_usable_password()
    assert len(output.split()[-1]) == 40


def test_an_existing_user_is_a_clear_error_and_nothing_changes():
    User.objects.create_user("alice", password="old")
    with pytest.raises(CommandError, match="user 'alice' already exists"):
        createlibrarian("alice", "--password", "s3cret-Passw0rd")
    user = User.objects.get(username="alice")
    assert user.check_password("old") and not user.is_staff and not user.groups.exists()


def test_an_invalid_username_is_refused():
    with pytest.raises(CommandError, match="username"):
        createlibrarian("no spaces allowed")
    assert not User.objects.exists()
