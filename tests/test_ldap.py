"""Signing in with a campus directory (issue 36, 3): Debian's slapd on loopback, started by the
test with users and groups loaded by ldapadd; the LDAP backend after the local one. The
person is linked as every institutional login links them (an LDAP user and a CAFe identity
with the same address the directory vouches for are one person); the directory's groups give
Django groups, which hold roles per collection; a wrong password, an unknown user, a filter
in the username and a directory that is down are each a clear answer, never a 500."""
from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from archive.accounts import services
from archive.models import CollectionRole, Identity
from tests import factories as make
from tests.servers import SilentServer, Slapd, free_port

pytestmark = pytest.mark.django_db

SUFFIX = "dc=uni,dc=example"
ANA_DN = f"uid=ana,ou=people,{SUFFIX}"
LIBRARY_DN = f"cn=library,ou=groups,{SUFFIX}"
ENTRIES = f"""dn: ou=people,{SUFFIX}
objectClass: organizationalUnit
ou: people

dn: ou=groups,{SUFFIX}
objectClass: organizationalUnit
ou: groups

dn: {ANA_DN}
objectClass: inetOrgPerson
uid: ana
cn: Ana Souza
sn: Souza
mail: ana@uni.example
userPassword: ana-campus-pass

dn: uid=bruno,ou=people,{SUFFIX}
objectClass: inetOrgPerson
uid: bruno
cn: Bruno Lima
sn: Lima
mail: bruno@uni.example
userPassword: bruno-campus-pass

dn: {LIBRARY_DN}
objectClass: groupOfNames
cn: library
member: {ANA_DN}

dn: cn=students,ou=groups,{SUFFIX}
objectClass: groupOfNames
cn: students
member: uid=bruno,ou=people,{SUFFIX}
"""


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    with Slapd(tmp_path_factory.mktemp("slapd"), suffix=SUFFIX) as server:
        server.add(ENTRIES)
        yield server


def configure(settings, uri: str, admin: str, password: str) -> None:
    """The settings IBI_LDAP_* make (ibirepo/settings.py), for this directory."""
    import ldap
    from django_auth_ldap.config import GroupOfNamesType, LDAPSearch

    settings.IBI_LDAP_URI = settings.AUTH_LDAP_SERVER_URI = uri
    settings.AUTH_LDAP_BIND_DN, settings.AUTH_LDAP_BIND_PASSWORD = admin, password
    settings.AUTH_LDAP_USER_SEARCH = LDAPSearch(f"ou=people,{SUFFIX}", ldap.SCOPE_SUBTREE,
                                                "(uid=%(user)s)")
    settings.AUTH_LDAP_GROUP_SEARCH = LDAPSearch(f"ou=groups,{SUFFIX}", ldap.SCOPE_SUBTREE,
                                                 "(objectClass=groupOfNames)")
    settings.AUTH_LDAP_GROUP_TYPE = GroupOfNamesType()
    settings.AUTH_LDAP_CONNECTION_OPTIONS = {ldap.OPT_NETWORK_TIMEOUT: 5, ldap.OPT_TIMEOUT: 5}
    settings.IBI_LDAP_GROUP_ROLES = {LIBRARY_DN: ["Librarians of theses"]}
    settings.AUTHENTICATION_BACKENDS = [*settings.AUTHENTICATION_BACKENDS,
                                        "archive.accounts.directory.DirectoryBackend"]


@pytest.fixture
def campus(settings, directory):
    configure(settings, directory.uri, directory.admin, directory.password)
    return directory


def sign_in(client: Client, username: str, password: str):
    return client.post("/accounts/login/", {"username": username, "password": password},
                       secure=True)


def test_a_campus_user_signs_in_with_username_and_password_and_is_linked(campus, client):
    form = client.get("/accounts/login/", secure=True).content.decode()
    assert "Email address or campus username" in form
    answer = sign_in(client, "ana", "ana-campus-pass")
    assert answer.status_code == 302 and answer["Location"] == "/accounts/"
    identity = Identity.objects.get(provider=Identity.Provider.LDAP)
    assert (identity.issuer, identity.subject) == (campus.uri, ANA_DN)
    user = identity.user
    assert (user.email, user.account.name) == ("ana@uni.example", "Ana Souza")
    assert user.account.email_verified_at is not None and not user.has_usable_password()
    page = client.get("/accounts/", secure=True).content.decode()
    assert "Ana Souza" in page and "campus directory (LDAP)" in page
    # Again: the same person, no second account.
    client.logout()
    assert sign_in(client, "ana", "ana-campus-pass").status_code == 302
    assert User.objects.filter(email="ana@uni.example").count() == 1


def test_an_ldap_user_and_a_cafe_identity_with_the_same_address_are_one_person(campus,
                                                                                client):
    cafe = services.sign_in_external(provider=Identity.Provider.SAML,
                                     issuer="https://idp.uni.example", subject="ana@uni",
                                     email="ana@uni.example", email_verified=True)
    assert sign_in(client, "ana", "ana-campus-pass").status_code == 302
    assert Identity.objects.get(provider=Identity.Provider.LDAP).user_id == cafe.pk
    assert int(client.session["_auth_user_id"]) == cafe.pk


def test_a_wrong_password_or_an_unknown_user_is_refused_and_nothing_is_made(campus, client):
    for username, password in [("ana", "not-her-password"), ("nobody", "ana-campus-pass")]:
        answer = sign_in(client, username, password)
        assert answer.status_code == 400
        assert "do not match an account" in answer.content.decode()
    assert not Identity.objects.exists() and not User.objects.exists()


@pytest.mark.parametrize("username", ["*", "ana)(uid=*", "*)(|(uid=*", "ana\\2a",
                                      "a*", "ana)(objectClass=*"])
def test_a_filter_in_the_username_signs_no_one_in(campus, client, username):
    answer = sign_in(client, username, "ana-campus-pass")
    assert answer.status_code == 400
    assert "_auth_user_id" not in client.session and not Identity.objects.exists()


def test_the_library_escapes_what_reaches_the_filter(campus):
    """Beneath the backend's own refusal: the search django-auth-ldap makes escapes the
    username, so a `*` matches no one even when asked directly."""
    import ldap
    from django.conf import settings

    connection = ldap.initialize(campus.uri)
    connection.simple_bind_s(campus.admin, campus.password)
    found = settings.AUTH_LDAP_USER_SEARCH.execute(connection, {"user": "*"})
    assert found == []
    assert [dn for dn, _ in settings.AUTH_LDAP_USER_SEARCH.execute(
        connection, {"user": "ana"})] == [ANA_DN]


def test_directory_groups_give_django_groups_and_their_roles(campus, client):
    theses = make.collection("theses", make.community("university"))
    make.reviewed(theses, reviewer="Librarians of theses")
    # Bruno was given the mapped group earlier: the directory no longer says so.
    bruno = services.sign_in_external(provider=Identity.Provider.LDAP, issuer=campus.uri,
                                      subject=f"uid=bruno,ou=people,{SUFFIX}",
                                      email="bruno@uni.example", email_verified=True)
    bruno.groups.add(Group.objects.get(name="Librarians of theses"),
                     Group.objects.create(name="Readers"))
    assert sign_in(client, "ana", "ana-campus-pass").status_code == 302
    ana = User.objects.get(email="ana@uni.example")
    assert list(ana.groups.values_list("name", flat=True)) == ["Librarians of theses"]
    assert CollectionRole.objects.filter(group__user=ana, collection=theses,
                                         role="reviewer").exists()
    assert "Collection theses</a>: reviewer" in client.get("/accounts/",
                                                            secure=True).content.decode()
    bruno_client = Client()
    assert sign_in(bruno_client, "bruno", "bruno-campus-pass").status_code == 302
    assert list(bruno.groups.values_list("name", flat=True)) == ["Readers"]


def test_a_directory_that_is_down_is_a_clear_message_not_a_500(campus, client, settings,
                                                                 caplog):
    settings.AUTH_LDAP_SERVER_URI = f"ldap://127.0.0.1:{free_port()}"
    answer = sign_in(client, "ana", "ana-campus-pass")
    assert answer.status_code == 400
    assert "campus directory cannot be reached" in answer.content.decode()
    assert "the directory failed" in caplog.text
    # A local account still signs in meanwhile.
    make.account("carla@uni.example")
    assert sign_in(client, "carla@uni.example", make.ACCOUNT_PASSWORD).status_code == 302


def test_a_directory_that_never_answers_is_given_up_on_after_its_timeout(campus, client,
                                                                        settings):
    import ldap

    settings.AUTH_LDAP_CONNECTION_OPTIONS = {ldap.OPT_NETWORK_TIMEOUT: 1, ldap.OPT_TIMEOUT: 1}
    with SilentServer() as silent:
        settings.AUTH_LDAP_SERVER_URI = f"ldap://{silent.address}"
        started = time.monotonic()
        answer = sign_in(client, "ana", "ana-campus-pass")
    assert answer.status_code == 400 and time.monotonic() - started < 10
    assert "campus directory cannot be reached" in answer.content.decode()


def test_a_disabled_account_is_refused_by_the_directory_too(campus, client):
    assert sign_in(client, "ana", "ana-campus-pass").status_code == 302
    client.logout()
    ana = User.objects.get(email="ana@uni.example")
    services.disable(account=ana.account, reason="left the university")
    answer = sign_in(client, "ana", "ana-campus-pass")
    assert answer.status_code == 400
    assert "this account is disabled" in answer.content.decode()
    assert "_auth_user_id" not in client.session


def test_pt_br_the_directory_down_is_said_in_portuguese(campus, client, settings):
    settings.AUTH_LDAP_SERVER_URI = f"ldap://127.0.0.1:{free_port()}"
    answer = client.post("/accounts/login/", {"username": "ana", "password": "x"},
                         secure=True, HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert answer.status_code == 400
    assert "O diretório do campus" in answer.content.decode()
