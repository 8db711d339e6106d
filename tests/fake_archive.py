"""A stand-in for another Archive on loopback: serves item records and files over real HTTP.

The records are the real API's JSON (see `publish`): an item is deposited here, read through
/api/items/<ibi>, and then forgotten, so this Archive no longer holds it and the stand-in does.
Tests can then break the peer on purpose: change a record, serve wrong bytes, or hold a file
request at a gate until the test has done something (e.g. killed the copying process).
"""
from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import unquote, urlsplit

from django.core.files.storage import default_storage

from archive.deposit import storage
from archive.identifiers import ibi as ibilib
from archive.models import Item
from tests.servers import PromptHTTPServer

GATE_TIMEOUT = 30


@dataclass
class Gate:
    arrived: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)


class FakeArchive:
    def __init__(self) -> None:
        self.records: dict[str, dict] = {}  # canonical repository name → record
        self.files: dict[tuple[str, str], bytes] = {}
        self.gates: dict[str, Gate] = {}  # file name → gate
        self.requests: list[str] = []
        self.handed_over: list[dict] = []
        self.told: list[tuple[str, dict]] = []  # (item, body) of each Copy told of
        self.notice_status = 201  # what a notice of a Copy is answered
        self.answer_every_item: dict | None = None  # a peer that answers the wrong record
        self.raw_answer: bytes | None = None  # a peer whose every JSON answer is this body
        self.server = PromptHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def close(self) -> None:
        for gate in self.gates.values():
            gate.release.set()
        self.server.shutdown()
        self.server.server_close()

    def add(self, record: dict, files: dict[str, bytes]) -> dict:
        self.records[str(ibilib.parse(record["ibi"]))] = record
        for name, data in files.items():
            self.files[(record["ibi"], name)] = data
        return record

    def record(self, text: str) -> dict | None:
        try:
            parsed = ibilib.parse(text)
        except ValueError:
            return None
        for record in self.records.values():
            if parsed in (ibilib.parse(record["ibi"]), ibilib.parse(record["ibip"])):
                return record
        return None

    def gate(self, name: str) -> Gate:
        return self.gates.setdefault(name, Gate())

    def _handler(self):
        archive = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _send(self, status: int, body: bytes, content_type: str = "application/json",
                      headers: dict | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                path = unquote(urlsplit(self.path).path)
                archive.requests.append(f"GET {path}")
                if path.startswith("/api/items/") and archive.raw_answer is not None:
                    return self._send(200, archive.raw_answer)
                if path.startswith("/api/items/"):
                    record = archive.answer_every_item or archive.record(
                        path[len("/api/items/"):])
                    if record is None:
                        return self._send(404, b'{"detail": "not found"}')
                    return self._send(200, json.dumps(record).encode())
                match = re.fullmatch(r"/col/(.+)/doc/([^/]+)", path)
                data = archive.files.get((match[1], match[2])) if match else None
                if data is None:
                    return self._send(404, b"not found", "text/plain")
                if (gate := archive.gates.get(match[2])) is not None:
                    gate.arrived.set()
                    gate.release.wait(GATE_TIMEOUT)
                if self.headers.get("Range") == "bytes=0-" and data:
                    return self._send(206, data, "application/octet-stream", {
                        "Content-Range": f"bytes 0-{len(data) - 1}/{len(data)}"})
                return self._send(200, data, "application/octet-stream")

            def do_POST(self) -> None:
                path = unquote(urlsplit(self.path).path)
                archive.requests.append(f"POST {path}")
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if path.endswith("/copies"):
                    if self.headers.get("Authorization") != "Token right-token":
                        return self._send(401, b'{"detail": "Invalid token."}')
                    archive.told.append((path[len("/api/items/"):-len("/copies")], body))
                    return self._send(archive.notice_status, b"{}")
                record = archive.record(path[len("/api/items/"):-len("/handover")])
                if not path.endswith("/handover") or record is None:
                    return self._send(404, b'{"detail": "not found"}')
                if self.headers.get("Authorization") != "Token right-token":
                    return self._send(401, b'{"detail": "Invalid token."}')
                if archive.raw_answer is not None:
                    return self._send(200, archive.raw_answer)
                archive.handed_over.append(body)
                record.update(state="Copy", source_archive=body["target"])
                return self._send(200, json.dumps(record).encode())

        return Handler


def publish(api_client, item: Item) -> tuple[dict, dict[str, bytes]]:
    """The item's record as the API shows it, and its files' bytes."""
    response = api_client.get(f"/api/items/{item.ibi}", secure=True)
    assert response.status_code == 200, response.content
    files = {}
    for row in item.files.all():
        with storage.open_file(item.ibi, row.name) as stored:
            files[row.name] = stored.read()
    return response.json(), files


def forget(item: Item) -> None:
    """Remove every trace of the item here, as if it had never been deposited."""
    for row in item.files.all():
        default_storage.delete(storage.file_key(item.ibi, row.name))
    item.files.all().delete()
    Item.objects.filter(pk=item.pk).delete()
