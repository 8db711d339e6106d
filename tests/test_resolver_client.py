"""The resolver's outgoing HTTP (archive/protocol/client.py) against stand-ins on loopback."""
from __future__ import annotations

import pytest

from archive.protocol import client
from archive.protocol.pairs import to_dict

from .servers import FakeArchiveService, SilentServer

SERVICE = "example.org/b/2020/01.01.00.00"
ASK = {"servicesubject": "urlRequest", "clientinformation.ipaddress": "150.163.2.175",
       "parsedibiurl.ibi": "LK47B6W/362SFKH", "parsedibiurl.verblist": "GetMetadata(oai_dc)"}


@pytest.fixture(autouse=True)
def limits(settings):
    settings.IBI_RESOLVER_TIMEOUT = 1  # a second at least: a loaded machine is slow, not wrong
    settings.IBI_RESOLVER_MAX_RESPONSE = 4096
    settings.IBI_RESOLVER_DENY_NETWORKS = ("169.254.0.0/16", "fe80::/10")


@pytest.fixture
def fake():
    with FakeArchiveService(SERVICE) as archive:
        yield archive


def base(archive) -> str:
    return client.archive_base(archive.address, SERVICE)


def test_the_query_is_written_as_table_6_1_and_the_answer_read_as_a_pair_list(fake):
    fake.respond = lambda pairs: (200, "state Original\nurl http://x/a%20b.pdf\n")

    reply = client.get_pairs(base(fake), ASK)

    assert reply.ok and to_dict(reply.pairs) == {"state": "Original", "url": "http://x/a%20b.pdf"}
    assert fake.asked == [ASK]  # decoded back to the same pairs by a standard query parser


def test_every_archive_is_asked_at_once_and_a_silent_one_costs_its_timeout(fake):
    fake.respond = lambda pairs: (200, "state Original\n")
    with SilentServer() as silent, FakeArchiveService(SERVICE) as empty:
        targets = [(client.archive_base(silent.address, SERVICE), "silent"),
                   (base(fake), "fake"), (base(empty), "empty")]

        replies = client.ask_all_sync(targets, ASK, deadline=5)

    by_tag = {reply.tag: reply for reply in replies}
    assert by_tag["fake"].pairs == [("state", "Original")]
    assert by_tag["empty"].pairs == []  # the IBI is not there: an empty answer
    assert by_tag["silent"].error == "no answer within 1 s"
    assert [r.tag for r in replies][-1] == "silent"  # replies come in arrival order


def test_the_deadline_cuts_a_round_short(settings):
    settings.IBI_RESOLVER_TIMEOUT = 30
    with SilentServer() as silent:
        replies = client.ask_all_sync([(client.archive_base(silent.address, SERVICE), 1)], ASK,
                                      deadline=0.3)

    assert [(r.tag, r.error) for r in replies] == [(1, "deadline")]


def test_a_round_stops_at_the_answer_that_settles_it(fake, settings):
    # The silent Archive can only end by being settled, however slow a loaded machine is.
    settings.IBI_RESOLVER_TIMEOUT = 60
    fake.respond = lambda pairs: (200, "state Original\n")
    with SilentServer() as silent:
        targets = [(base(fake), "fake"), (client.archive_base(silent.address, SERVICE), "s")]
        replies = client.ask_all_sync(targets, ASK, deadline=60, stop=lambda reply: reply.ok)

    assert [(r.tag, r.ok) for r in replies] == [("fake", True), ("s", False)]
    assert "settled" in replies[1].error


def test_redirects_are_not_followed(fake):
    with FakeArchiveService(SERVICE) as elsewhere:
        fake.respond = lambda pairs: (302, "")
        reply = client.get_pairs(base(fake), ASK)

    assert not reply.ok and reply.status == 302 and elsewhere.asked == []


def test_an_answer_over_the_size_cap_is_dropped(fake):
    fake.respond = lambda pairs: (200, "state Original\n" * 1000)

    reply = client.get_pairs(base(fake), ASK)

    assert not reply.ok and reply.error == "answer longer than 4096 bytes"


@pytest.mark.parametrize("body", [b"state", b"{broken", "caf\u00e9 x".encode("latin-1")])
def test_an_answer_that_is_no_pair_list_is_dropped(fake, body):
    fake.respond = lambda pairs: (200, body)

    reply = client.get_pairs(base(fake), ASK)

    assert not reply.ok and reply.error.startswith("not a pair list")


def test_an_error_status_is_no_answer_but_says_why(fake):
    fake.respond = lambda pairs: (400, "error {parsedibiurl.ibi is missing}\n")

    reply = client.get_pairs(base(fake), ASK)

    assert not reply.ok and reply.error == "HTTP 400: error {parsedibiurl.ibi is missing}"


def test_denied_networks_are_never_contacted(fake, settings):
    settings.IBI_RESOLVER_DENY_NETWORKS = ("127.0.0.0/8",)

    reply = client.get_pairs(base(fake), ASK)

    assert not reply.ok and "denied" in reply.error and fake.asked == []
    with pytest.raises(client.AddressError):
        client.archive_base("user@127.0.0.1", SERVICE)


def test_the_name_is_resolved_once_and_the_checked_address_is_used(fake):
    # "localhost" resolves to loopback; the request goes to that address, Host names the name.
    port = fake.address.rsplit(":", 1)[1]
    fake.respond = lambda pairs: (200, "state Original\n")

    assert client.get_pairs(client.archive_base(f"localhost:{port}", SERVICE), ASK).ok


@pytest.mark.parametrize("ip", ["169.254.169.254", "::ffff:169.254.169.254", "fe80::1",
                                "fd00:ec2::254", "100.100.100.200", "0.0.0.0", "::"])
def test_the_default_denied_networks_cover_link_local_and_cloud_metadata(ip, settings):
    from ibirepo import settings as project

    assert client.denied(ip, project.IBI_RESOLVER_DENY_NETWORKS)


@pytest.mark.parametrize("ip", ["10.1.2.3", "172.31.255.1", "192.168.0.1", "fd00::1",
                                "fc12::1", "100.64.0.1", "::ffff:10.0.0.1"])
def test_the_default_denied_networks_cover_private_ranges(ip):
    from ibirepo import settings as project

    assert client.denied(ip, project.IBI_RESOLVER_DENY_NETWORKS)


@pytest.mark.parametrize("ip", ["127.0.0.1", "::1", "150.163.34.243", "172.32.0.1"])
def test_loopback_and_ordinary_addresses_are_allowed(ip):
    from ibirepo import settings as project

    assert not client.denied(ip, project.IBI_RESOLVER_DENY_NETWORKS)


@pytest.mark.parametrize(("address", "expected"), [
    ("mtc-m21.sid.inpe.br", ("mtc-m21.sid.inpe.br", 80)),
    ("MTC-m21.sid.inpe.br:8080", ("mtc-m21.sid.inpe.br", 8080)),
    ("127.0.0.1:8001", ("127.0.0.1", 8001)),
    ("[::1]:8001", ("::1", 8001)),
    ("[2001:db8::1]", ("2001:db8::1", 80)),
])
def test_archive_addresses_are_host_and_port(address, expected):
    assert client.split_address(address) == expected


@pytest.mark.parametrize("address", [
    "", "user@host", "host/path", "host?x", "host#x", "host:abc", "host:0", "host:70000",
    "host\\x", "::1", "[::1", "[x]:80", "-host", "host-.example", "a..b", "host name",
    "h\u00f3st", "host:80:80", "host\n", "%68ost",
])
def test_anything_else_is_no_archive_address(address):
    with pytest.raises(client.AddressError):
        client.split_address(address)
