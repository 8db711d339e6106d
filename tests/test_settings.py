"""Settings come from the environment and fail loudly on bad values."""
from __future__ import annotations

import pytest

PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "k3y-" + "x9Q2!vL#p8Rz$w" * 4,
    "ALLOWED_HOSTS": "repo.example.org",
    "DATABASE_URL": "postgres://ibi@db.example.org:5432/ibirepo",
    "CELERY_BROKER_URL": "redis://cache.example.org:6379/0",
    "AWS_STORAGE_BUCKET_NAME": "ibirepo",
    "AWS_S3_ENDPOINT_URL": "https://s3.example.org",
    "IBI_HOSTNAME": "mtc-m21.sid.inpe.br",
    "IBI_IP": "150.163.34.250",
    "ARCHIVE_ADDRESS": "repo.example.org",
}




def test_production_mode_passes_check_deploy(manage_py):
    result = manage_py("check", "--deploy", **PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_placeholders_are_warned_about(manage_py):
    result = manage_py("check", DEBUG="1")
    assert "archive.W001" in result.stderr + result.stdout
    assert "archive.W002" in result.stderr + result.stdout


@pytest.mark.parametrize(("name", "value", "message"), [
    ("IBI_PORT", "70000", "IBI_PORT=70000 is outside 1–65535"),
    ("IBI_PORT", "eighty", "IBI_PORT='eighty' is not an integer"),
    ("IBI_HOSTNAME", "localhost", "IBI_HOSTNAME='localhost'"),
    ("IBI_IP", "300.1.1.1", "IBI_IP='300.1.1.1' is not an IPv4 or IPv6 address"),
    ("IBI_GRANULARITY", "0.5", "IBI_GRANULARITY='0.5'"),
    ("DEBUG", "maybe", "DEBUG='maybe' is not a boolean"),
    ("DATABASE_URL", "nosuch://x", "DATABASE_URL"),
    ("ARCHIVE_ADDRESS", "http://evil/x", "ARCHIVE_ADDRESS"),
    ("IBI_ACCEL_REDIRECT", "_protected", "IBI_ACCEL_REDIRECT='_protected': give a path"),
    ("IBI_ACCEL_REDIRECT", "/a b/", "give a path such as /_protected/"),
    ("IBI_PEER_ARCHIVES", "archive-b.example.org", "IBI_PEER_ARCHIVES: 'archive-b.example.org' "
                                                   "is not a base URL"),
    ("IBI_PEER_ARCHIVES", "https://user:pw@b.example.org", "is not a base URL"),
    ("CACHE_URL", "memcached://x:11211", "CACHE_URL: 'memcached://x:11211' is not a redis://"),
    ("API_THROTTLE_TOKEN_FAILURES", "many", "API_THROTTLE_TOKEN_FAILURES='many' is not a rate"),
    ("IBI_REQUEST_HANDLERS", "ana@example.org,biblioteca",
     "IBI_REQUEST_HANDLERS: 'biblioteca' is not an email address"),
    ("IBI_LDAP_GROUP_ROLES", '{"cn=library,dc=uni": "Librarians"}',
     'IBI_LDAP_GROUP_ROLES: give {"<group DN>": ["<Django group>"'),
    ("IBI_LDAP_URI", "http://ldap.uni.example", "IBI_LDAP_URI='http://ldap.uni.example'"),
    ("IBI_ORCID_BASE_URL", "https://sandbox.orcid.org", "ORCID sign-in needs IBI_ORCID_BASE_URL, "
                                                        "IBI_ORCID_CLIENT_ID"),
])
def test_bad_values_stop_the_start(manage_py, name, value, message):
    result = manage_py("check", **{**PRODUCTION, name: value})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


def test_secret_key_is_required_without_debug(manage_py):
    env = {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    result = manage_py("check", **env)
    assert result.returncode != 0
    assert "SECRET_KEY is required when DEBUG is off" in result.stderr



LDAP = {"IBI_LDAP_URI": "ldaps://ldap.uni.example", "IBI_LDAP_USER_BASE": "ou=people,dc=uni",
        "IBI_LDAP_GROUP_BASE": "ou=groups,dc=uni", "IBI_LDAP_GROUP_TYPE": "posixGroup",
        "IBI_LDAP_GROUP_ROLES": '{"cn=library,ou=groups,dc=uni": ["Librarians"]}'}
SHOW_LDAP = ("from django.conf import settings as s; print(s.AUTHENTICATION_BACKENDS[-1], "
             "getattr(s, 'AUTH_LDAP_USER_SEARCH', None), type(getattr(s, "
             "'AUTH_LDAP_GROUP_TYPE', None)).__name__, s.IBI_LDAP_GROUP_ROLES)")


def test_without_ibi_ldap_uri_only_local_accounts_sign_in_and_with_it_the_directory_too(
        manage_py):
    alone = manage_py("shell", "-c", SHOW_LDAP, **PRODUCTION)
    assert alone.stdout.splitlines()[-1] == ("archive.accounts.backends.EmailBackend None "
                                             "NoneType {}"), alone.stderr
    campus = manage_py("shell", "-c", SHOW_LDAP, **PRODUCTION, **LDAP)
    assert campus.stdout.splitlines()[-1] == (
        "archive.accounts.directory.DirectoryBackend <LDAPSearch: ou=people,dc=uni> "
        "PosixGroupType {'cn=library,ou=groups,dc=uni': ['Librarians']}"), campus.stderr
    missing = manage_py("check", **PRODUCTION, IBI_LDAP_URI="ldap://ldap.uni.example")
    assert "IBI_LDAP_USER_BASE: give the DN" in missing.stderr
