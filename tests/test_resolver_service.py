"""Joining the resolution system (RTC-11 §7): registration, inclusion and exclusion requests,
the registerarchive / switchon / switchoff commands and the admin page."""
from __future__ import annotations

import io
import logging
import re
from urllib.parse import quote, urlencode

import pytest
from django.core.management import CommandError, call_command

from archive.deposit import services
from archive.models import RegisteredArchive
from archive.protocol.pairs import loads
from archive.resolver import service as resolver_service
from archive.resolver.service import hash_key, key_matches, register_archive

from .servers import FakeArchiveService, SilentServer

pytestmark = pytest.mark.django_db

SERVICE = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"  # Example 7.2's archive service
KEY = "1234567890"  # Example 7.1's key
RESOLVER = "/J8LNKB5R7W/3FUQHC5"


@pytest.fixture(autouse=True)
def quick(settings):
    settings.IBI_RESOLVER_TIMEOUT = 1  # a second at least: a loaded machine is slow, not wrong


@pytest.fixture
def archive():
    with FakeArchiveService(SERVICE) as fake:
        yield fake


def request_pairs(fake, subject: str = "inclusionRequest", **changes) -> dict[str, str]:
    """Example 7.2, pointed at the stand-in's address."""
    pairs = {"servicesubject": subject, "archiveaddress": fake.address,
             "archiveserviceibi": SERVICE, "archiveip": "150.163.34.239",
             "archiveprotocol": "HTTP", "archiveplatformversion": "2014:11.09.02.16.15",
             "archiveadmemailaddress": "banon@dpi.inpe.br", "registrationkey": KEY}
    pairs.update(changes)
    return {k: v for k, v in pairs.items() if v is not None}


def send(client, pairs: dict[str, str], **headers):
    return client.get(RESOLVER, QUERY_STRING=urlencode(pairs, quote_via=quote, safe="/:@"),
                      headers=headers)


def snapshot() -> list[tuple]:
    return list(RegisteredArchive.objects.values_list())


# -- Keys -------------------------------------------------------------------------------------

def test_keys_are_stored_hashed_salted_and_compared():
    stored = hash_key(KEY)

    assert re.fullmatch(r"p2\$[A-Za-z0-9_-]{16}\$[A-Za-z0-9_-]{43}", stored)
    assert len(stored) <= RegisteredArchive._meta.get_field("key_hash").max_length
    assert KEY not in stored and hash_key(KEY) != stored
    assert key_matches(KEY, stored) and key_matches("1234567890-0987654321",
                                                    hash_key("1234567890-0987654321"))
    assert not key_matches("1234567891", stored)
    assert not key_matches(KEY, "") and not key_matches(KEY, "garbage$$")


@pytest.mark.parametrize("key", ["123456789", "12345678901-123", "abcdefghij", "1234567890-",
                                 " 1234567890", "1234567890 ", "１２３４５６７８９０", ""])
def test_keys_follow_table_7_1(key):
    with pytest.raises(ValueError):
        hash_key(key)


# -- inclusionRequest / exclusionRequest ------------------------------------------------------

def test_example_7_2_includes_a_registered_archive_that_confirms(client, archive):
    register_archive(archive_service_ibi=SERVICE, key=KEY)

    response = send(client, request_pairs(archive))

    assert response.status_code == 200
    assert response.content == b"status.archive included\r\nstatus.confirmation successful"
    assert archive.asked == [{"servicesubject": "inclusionConfirmationRequest"}]  # Ex. 7.4
    found = RegisteredArchive.objects.get()
    assert (found.included, found.address, found.ip, found.platform_version, found.email) == (
        True, archive.address, "150.163.34.239", "2014:11.09.02.16.15", "banon@dpi.inpe.br")
    assert found.included_at is not None


def test_an_archive_that_does_not_confirm_is_included_all_the_same(client):
    """§7.2 (#25's audit, 4.): the key authenticates; the confirmation only checks that the
    address answers, which a dynamic IP may not."""
    register_archive(archive_service_ibi=SERVICE.replace("mtc-m21", "MTC-m21@80"), key=KEY)
    with SilentServer() as silent:
        response = send(client, request_pairs(silent))
        address = silent.address

    assert response.content == b"status.archive included\r\nstatus.confirmation unsuccessful"
    found = RegisteredArchive.objects.get()
    assert (found.included, found.address, found.ip) == (True, address, "150.163.34.239")


def test_an_inclusion_whose_confirmation_is_refused_takes_the_new_address(client, archive):
    register_archive(archive_service_ibi=SERVICE, key=KEY)
    send(client, request_pairs(archive))
    with FakeArchiveService(SERVICE) as moved:
        moved.answer = lambda path, pairs: (200, "confirmation no\n")
        response = send(client, request_pairs(moved, archiveip="203.0.113.9",
                                              archiveplatformversion="9999"))
    assert moved.asked == [{"servicesubject": "inclusionConfirmationRequest"}]

    assert response.status_code == 200
    assert response.content == b"status.archive included\r\nstatus.confirmation unsuccessful"
    found = RegisteredArchive.objects.get()
    assert (found.included, found.address, found.ip, found.platform_version) == (
        True, moved.address, "203.0.113.9", "9999")


def test_a_wrong_key_changes_nothing_whatever_the_address_answers(client, archive):
    register_archive(archive_service_ibi=SERVICE, key=KEY)
    send(client, request_pairs(archive))
    before = snapshot()
    with FakeArchiveService(SERVICE) as impostor:
        response = send(client, request_pairs(impostor, registrationkey="9876543210"))

    assert response.status_code == 403 and impostor.asked == []
    assert snapshot() == before


def test_example_7_3_excludes_and_the_address_may_change_at_the_next_inclusion(client, archive):
    register_archive(archive_service_ibi=SERVICE, key=KEY)
    send(client, request_pairs(archive))

    response = send(client, request_pairs(archive, "exclusionRequest"))

    assert response.content == b"status.archive excluded"
    found = RegisteredArchive.objects.get()
    assert not found.included and found.excluded_at is not None
    with FakeArchiveService(SERVICE) as moved:
        assert send(client, request_pairs(moved)).status_code == 200
    assert RegisteredArchive.objects.get().address == moved.address


@pytest.mark.parametrize("key", [None, "", "0987654321", "12345", "1234567890-1234567890"])
def test_a_wrong_or_missing_key_is_a_403_and_changes_nothing(client, archive, key, caplog):
    register_archive(archive_service_ibi=SERVICE, key=KEY)
    before = snapshot()
    caplog.set_level(logging.DEBUG)

    for subject in ("inclusionRequest", "exclusionRequest"):
        response = send(client, request_pairs(archive, subject, registrationkey=key))
        assert response.status_code == 403
        assert response.content.startswith(b"error ")
    assert snapshot() == before and archive.asked == []
    if key:
        assert key not in caplog.text and key not in response.content.decode()


def test_an_archive_never_registered_is_refused_like_a_wrong_key(client, archive):
    response = send(client, request_pairs(archive))

    assert response.status_code == 403 and not RegisteredArchive.objects.exists()


def test_keys_never_reach_the_logs(client, archive, caplog):
    register_archive(archive_service_ibi=SERVICE, key="5555555555-6666666666")
    caplog.set_level(logging.DEBUG)

    send(client, request_pairs(archive, registrationkey="5555555555-6666666666"))
    send(client, request_pairs(archive, registrationkey="5555555555-7777777777"))

    assert "5555555555" not in caplog.text


@pytest.mark.parametrize(("changes", "says"), [
    ({"archiveprotocol": "HTTPS"}, "only HTTP"),
    ({"archiveaddress": "user@127.0.0.1:80"}, "is not host[:port]"),
    ({"archiveaddress": None}, "archiveaddress is missing"),
    ({"archiveserviceibi": "not/an/ibi"}, "is not an IBI"),
    ({"archiveip": "300.1.1.1"}, "does not appear to be an IPv4 or IPv6 address"),
    ({"archiveadmemailaddress": "nobody"}, "not an e-mail address"),
    ({"archiveplatformversion": "x" * 101}, "up to 100"),
    ({"servicesubject": "urlRequest"}, "the resolver service answers inclusionRequest"),
])
def test_malformed_requests_are_a_400_saying_why(client, archive, changes, says):
    register_archive(archive_service_ibi=SERVICE, key=KEY)
    before = snapshot()

    response = send(client, request_pairs(archive, **changes))

    assert response.status_code == 400 and says in response.content.decode().replace("%20", " ")
    assert snapshot() == before


def test_an_address_in_a_denied_network_is_included_and_never_called(client, archive,
                                                                     settings):
    """The right key includes the Archive (§7.2); its address is never called, neither to
    confirm nor to resolve: its urlRequests fail at once, as to an Archive that is down."""
    settings.IBI_RESOLVER_DENY_NETWORKS = ("127.0.0.0/8",)
    register_archive(archive_service_ibi=SERVICE, key=KEY)

    response = send(client, request_pairs(archive))
    resolved = client.get("/sid.inpe.br/mtc-m21/2013/09.04.12.27.57")

    assert loads(response.content.decode("ascii"), strict=True) == [
        ("status.archive", "included"), ("status.confirmation", "unsuccessful")]
    assert RegisteredArchive.objects.get().included
    # Nothing heard of the item, the Archive not asked: a 503, never "not found" (#41).
    assert resolved.status_code == 503 and archive.asked == []


def test_the_resolver_service_answers_get_only_in_any_case_and_always_text_plain(client,
                                                                                archive):
    register_archive(archive_service_ibi=SERVICE, key=KEY)

    assert client.post(RESOLVER).status_code == 405
    response = client.get(RESOLVER.lower(), QUERY_STRING=urlencode(request_pairs(archive)),
                          headers={"accept": "application/json, text/plain, */*"})  # axios
    assert response["Content-Type"] == "text/plain; charset=us-ascii"
    assert loads(response.content.decode("ascii"), strict=True) == [
        ("status.archive", "included"), ("status.confirmation", "successful")]


# -- registerarchive ---------------------------------------------------------------------------

def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_registerarchive_keeps_the_ibi_and_a_hash():
    assert "Registered sid.inpe.br/mtc-m21/2012/06.05.15.34.39" in run(
        "registerarchive", SERVICE.upper(), KEY, "--email", "banon@dpi.inpe.br")

    found = RegisteredArchive.objects.get()
    assert (found.archive_service_ibi, found.email, found.included) == (
        SERVICE, "banon@dpi.inpe.br", False)
    assert key_matches(KEY, found.key_hash)
    with pytest.raises(CommandError, match="registered already"):
        run("registerarchive", SERVICE, KEY)
    run("registerarchive", "sid.inpe.br/mtc-m21@80/2012/06.05.15.34.39", "9999999999",
        "--replace")
    assert key_matches("9999999999", RegisteredArchive.objects.get().key_hash)


@pytest.mark.parametrize(("args", "says"), [
    ((SERVICE, "123"), "Table 7.1"),
    (("not-an-ibi", KEY), "is not an IBI"),
    ((SERVICE, KEY, "--email", "x"), "--email"),
])
def test_registerarchive_refuses_bad_input(args, says):
    with pytest.raises(CommandError, match=says):
        run("registerarchive", *args)
    assert not RegisteredArchive.objects.exists()


# -- switchon / switchoff (the Archive's side) --------------------------------------------------

@pytest.fixture
def resolver():
    """A stand-in resolver: the resolver service IBI answered like an archive service."""
    with FakeArchiveService(resolver_service.SERVICE_IBI) as fake:
        fake.respond = lambda pairs: (200, "status.archive included\n"
                                           "status.confirmation successful\n")
        yield fake


def test_switchon_sends_the_eight_pairs_of_table_7_2_and_prints_the_answer(resolver, settings):
    settings.ARCHIVE_ADDRESS = "repo.example.org:8080"
    settings.IBI_IP = "203.0.113.7"
    service = services.ensure_archive_service()

    printed = run("switchon", "--resolver", f"http://{resolver.address}/", "--key", KEY,
                  "--email", "admin@example.org")

    assert printed == "status.archive included\nstatus.confirmation successful\n"
    sent = resolver.asked[-1]
    assert sent == {"servicesubject": "inclusionRequest", "archiveaddress": "repo.example.org:8080",
                    "archiveserviceibi": service.ibi, "archiveip": "203.0.113.7",
                    "archiveprotocol": "HTTP", "archiveplatformversion": sent[
                        "archiveplatformversion"], "archiveadmemailaddress": "admin@example.org",
                    "registrationkey": KEY}
    assert sent["archiveplatformversion"].startswith("ibirepo")


def test_switchoff_sends_the_exclusion_with_the_settings_key(resolver, settings):
    settings.ARCHIVE_ADDRESS = "repo.example.org"
    settings.IBI_SWITCHON_RESOLVER = f"http://{resolver.address}"
    settings.IBI_SWITCHON_KEY = KEY
    services.ensure_archive_service()
    resolver.respond = lambda pairs: (200, "status.archive excluded\n")

    assert run("switchoff") == "status.archive excluded\n"
    assert resolver.asked[-1]["servicesubject"] == "exclusionRequest"
    assert resolver.asked[-1]["archiveadmemailaddress"] == "admin@archive.localhost"


def test_switchon_needs_the_archive_address_a_key_and_a_resolver(resolver, settings):
    services.ensure_archive_service()
    settings.ARCHIVE_ADDRESS = None
    with pytest.raises(CommandError, match="ARCHIVE_ADDRESS is not set"):
        run("switchon", "--resolver", f"http://{resolver.address}", "--key", KEY)
    settings.ARCHIVE_ADDRESS = "repo.example.org"
    with pytest.raises(CommandError, match="Table 7.1"):
        run("switchon", "--resolver", f"http://{resolver.address}", "--key", "12")
    with pytest.raises(CommandError, match="give --resolver and --key"):
        run("switchon", "--key", KEY)
    with pytest.raises(CommandError, match="base URL"):
        run("switchon", "--resolver", resolver.address, "--key", KEY)
    assert resolver.asked == []


def test_switchon_says_when_the_resolver_refuses(resolver, settings):
    settings.ARCHIVE_ADDRESS = "repo.example.org"
    services.ensure_archive_service()
    resolver.respond = lambda pairs: (403, "error {registration key refused}\n")

    with pytest.raises(CommandError, match="HTTP 403: error {registration key refused}"):
        run("switchon", "--resolver", f"http://{resolver.address}", "--key", KEY)


# -- Admin ------------------------------------------------------------------------------------


ADD = "/admin/archive/registeredarchive/add/"


def test_the_admin_registers_with_a_hashed_key_that_is_never_shown(admin_client, caplog):
    caplog.set_level(logging.DEBUG)
    response = admin_client.post(ADD, {"archive_service_ibi": SERVICE.upper(),
                                       "registration_key": "4444444444-5555555555",
                                       "email": "banon@dpi.inpe.br"}, secure=True)

    assert response.status_code == 302
    found = RegisteredArchive.objects.get()
    assert found.archive_service_ibi == SERVICE
    assert key_matches("4444444444-5555555555", found.key_hash)
    page = admin_client.get(f"/admin/archive/registeredarchive/{found.pk}/change/",
                            secure=True).content.decode()
    assert "4444444444" not in page and found.key_hash not in page
    assert "4444444444" not in caplog.text

    admin_client.post(f"/admin/archive/registeredarchive/{found.pk}/change/",
                      {"archive_service_ibi": SERVICE, "registration_key": "",
                       "email": "other@dpi.inpe.br"}, secure=True)
    found.refresh_from_db()
    assert found.email == "other@dpi.inpe.br"
    assert key_matches("4444444444-5555555555", found.key_hash)  # kept


def test_the_admin_refuses_a_bad_key_or_a_second_registration(admin_client):
    register_archive(archive_service_ibi=SERVICE, key=KEY)

    bad = admin_client.post(ADD, {"archive_service_ibi": "x.example/y/2020/01.01.00.00",
                                  "registration_key": "123"}, secure=True)
    twice = admin_client.post(ADD, {"archive_service_ibi": SERVICE.replace("mtc-m21",
                                                                           "mtc-m21@80"),
                                    "registration_key": KEY}, secure=True)
    missing = admin_client.post(ADD, {"archive_service_ibi": "x.example/y/2020/01.01.00.00"},
                                secure=True)

    assert "Not a key of Table 7.1" in bad.content.decode()
    assert "registered already" in twice.content.decode()
    assert "needs its registration key" in missing.content.decode()
    assert RegisteredArchive.objects.count() == 1


def test_the_admin_can_switch_an_archive_off(admin_client, archive, client):
    register_archive(archive_service_ibi=SERVICE, key=KEY)
    send(client, request_pairs(archive))
    found = RegisteredArchive.objects.get()

    admin_client.post("/admin/archive/registeredarchive/", {
        "action": "switch_off", "_selected_action": [found.pk]}, secure=True)

    found.refresh_from_db()
    assert not found.included and found.excluded_at is not None
