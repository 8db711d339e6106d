"""Server-side request forgery through copies and hand-over, written as the attacks.

A librarian (or whoever holds a librarian's token) types a base URL; this server then makes
the requests. Only allowed Archives are asked (registered at this resolver, or listed in
IBI_PEER_ARCHIVES), never an address in IBI_RESOLVER_DENY_NETWORKS, no redirect is followed
for a record, and the error says "not reachable" whatever is, or is not, listening there.
"""
from __future__ import annotations

import re
import socket
import threading
from http.server import BaseHTTPRequestHandler

import httpx
import pytest
from django.contrib.auth.models import User

from archive.deposit import services
from archive.models import RegisteredArchive
from archive.preservation import copies, migration, peer
from tests import factories as make
from tests.fake_archive import FakeArchive
from tests.servers import PromptHTTPServer, SilentServer, free_port

pytestmark = pytest.mark.django_db

IBI = "LK47B6W/362SFKH"


@pytest.fixture(autouse=True)
def quick(settings):
    settings.ARCHIVE_ADDRESS = "127.0.0.1:9"
    settings.IBI_PEER_ARCHIVES = ()


@pytest.fixture
def original():
    return make.item(("report.pdf", b"%PDF report"), title="Report")


@pytest.fixture
def listener():
    """A listening socket that must see no connection."""
    with SilentServer() as server:
        yield server


def connections(server: SilentServer) -> int:
    server.socket.setblocking(False)
    count = 0
    while True:
        try:
            server.socket.accept()[0].close()
        except BlockingIOError:
            return count
        count += 1


@pytest.fixture
def no_connection(monkeypatch):
    """Any attempt to open a TCP connection is recorded and fails."""
    tried = []

    def refuse(address, *args, **kwargs):
        tried.append(address)
        raise OSError("the test allows no connection")

    monkeypatch.setattr(socket, "create_connection", refuse)
    return tried


def hand_over(api, item, target: str):
    return api.post(f"/api/items/{item.ibi}/handover", {"target": target}, format="json",
                    secure=True)


@pytest.mark.parametrize("target", ["http://10.0.0.1", "http://169.254.169.254",
                                    "http://[fd00::1]:8000", "http://100.64.0.1"])
def test_hand_over_to_a_private_or_metadata_address_is_refused_unasked(
        target, original, librarian_api, settings, no_connection):
    response = hand_over(librarian_api, original, target)
    assert response.status_code == 400
    assert response.json()["detail"].endswith("is not an allowed Archive: register it at this "
                                              "resolver or list it in IBI_PEER_ARCHIVES")
    # Configured by mistake (or by an attacker with the settings): the deny-list still holds.
    settings.IBI_PEER_ARCHIVES = (target,)
    response = hand_over(librarian_api, original, target)
    assert response.status_code == 400
    assert response.json()["detail"] == f"{target} is not reachable"
    assert no_connection == []
    original.refresh_from_db()
    assert original.state == "Original"


def test_hand_over_to_an_unregistered_loopback_port_makes_no_request(
        original, librarian_api, listener):
    response = hand_over(librarian_api, original, f"http://{listener.address}")
    assert response.status_code == 400
    assert "is not an allowed Archive" in response.json()["detail"]
    assert connections(listener) == 0


def test_a_denied_network_wins_over_the_allow_list(original, librarian_api, listener, settings):
    settings.IBI_PEER_ARCHIVES = (f"http://{listener.address}",)
    settings.IBI_RESOLVER_DENY_NETWORKS = ("127.0.0.0/8",)
    response = hand_over(librarian_api, original, f"http://{listener.address}")
    assert response.status_code == 400
    assert response.json()["detail"] == f"http://{listener.address} is not reachable"
    assert connections(listener) == 0


def test_the_admin_copy_form_and_copyitem_refuse_an_archive_not_allowed(client, listener):
    from django.core.management import CommandError, call_command

    user = User.objects.create_user("librarian", is_staff=True)
    user.groups.add(services.ensure_librarians_group())
    client.force_login(user)
    response = client.post("/admin/archive/item/copy/", {
        "ibi": IBI, "source": f"http://{listener.address}"}, secure=True)
    assert "is not an allowed Archive" in response.context["form"].errors["source"][0]
    with pytest.raises(CommandError, match="is not an allowed Archive"):
        call_command("copyitem", IBI, "--from", "http://169.254.169.254")
    assert connections(listener) == 0


def test_an_archive_registered_at_this_resolver_is_allowed():
    source = FakeArchive()
    try:
        address = source.base_url.removeprefix("http://")
        assert "not an allowed" in _copy_error(source.base_url)
        RegisteredArchive.objects.create(archive_service_ibi="ibi.test/b/2026/01.01.00.00",
                                         key_hash="x", address=address, included=True)
        assert peer.allowed_base(source.base_url + "/") == source.base_url
        assert "404" in _copy_error(source.base_url)  # asked: it knows no such item
    finally:
        source.close()


def _copy_error(base: str) -> str:
    with pytest.raises(services.ServiceError) as caught:
        copies.copy_item(ibi=IBI, source=base)
    return str(caught.value)


class _Redirecting(BaseHTTPRequestHandler):
    location = ""

    def do_GET(self) -> None:  # noqa: N802 (the http.server API)
        self.send_response(302)
        self.send_header("Location", self.location + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_GET  # noqa: N815

    def log_message(self, *args) -> None:
        pass


def test_a_peer_redirecting_elsewhere_is_not_followed(settings, original, librarian_api):
    elsewhere = FakeArchive()  # allowed too: even so, a redirect is no way in
    handler = type("Handler", (_Redirecting,), {"location": elsewhere.base_url})
    server = PromptHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    settings.IBI_PEER_ARCHIVES = (base, elsewhere.base_url)
    try:
        assert "answered 302" in _copy_error(base)
        response = hand_over(librarian_api, original, base)
        assert response.status_code == 502 and "answered 302" in response.json()["detail"]
        with pytest.raises(copies.PeerFailed, match="302"):
            migration.migrate_item(ibi=IBI, source=base, token="t")
        assert elsewhere.requests == []
    finally:
        server.shutdown()
        server.server_close()
        elsewhere.close()


class _NotHttp:
    """An open port that speaks another protocol (an SSH banner), then hangs up."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(8)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.socket.getsockname()[1]}"

    def close(self) -> None:
        self.socket.close()


def test_closed_open_and_silent_ports_give_the_same_error(settings, monkeypatch):
    monkeypatch.setattr(peer, "TIMEOUT", httpx.Timeout(1))
    closed, speaker, silent = f"127.0.0.1:{free_port()}", _NotHttp(), SilentServer()
    targets = [f"http://{closed}", f"http://{speaker.address}", f"http://{silent.address}"]
    settings.IBI_PEER_ARCHIVES = tuple(targets)
    try:
        said = {re.sub(r":\d+", ":PORT", _copy_error(target)) for target in targets}
    finally:
        speaker.close()
        silent.close()
    assert said == {f"item {IBI}: http://127.0.0.1:PORT/api/items/{IBI} is not reachable"}
