"""Real servers on loopback, for tests that need several Archives talking HTTP to each other.

    @pytest.fixture(scope="module")
    def network(tmp_path_factory):
        with LiveServers(tmp_path_factory.mktemp("net")) as servers:
            yield servers

    a, b = network.start("a"), network.start("b")
    token = b.librarian_token()
    b.manage("registerarchive", …)

Each `Server` is a separate OS process — `gunicorn ibirepo.wsgi` (default) or
`manage.py runserver --noreload` — on a free port of 127.0.0.1, with its own migrated SQLite
database file, MEDIA_ROOT, identification subsystem (IBI_HOSTNAME ``<name>.ibi.test``, IBI_IP
``192.0.2.<n>``), ARCHIVE_ADDRESS ``127.0.0.1:<port>``, DEBUG off, SECURE_SSL_REDIRECT off and
no broker (Celery tasks run in-process). A server is ready when ``GET /`` answers: we poll it,
we never sleep a fixed time. Its output goes to ``<root>/<name>/server.log``, shown when it
fails to start.

Also here: `FakeArchiveService`, an archive service in a thread whose answers a test writes,
recording what it was asked; `SilentServer`, a socket that accepts connections and never
answers.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
START_TIMEOUT = 60  # seconds a server may take to answer its first request
SECRET_KEY = "live-servers-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz"
# Settings a server must not inherit from the test run (it has its own database, files …).
_INHERITED_OUT = ("DATABASE_URL", "DATABASE_REPLICA_URL", "CELERY_BROKER_URL", "ARCHIVE_ADDRESS",
                  "MEDIA_ROOT", "DJANGO_SETTINGS_MODULE", "SECRET_KEY", "ALLOWED_HOSTS", "DEBUG")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _python() -> str:
    return str(PYTHON if PYTHON.exists() else Path(sys.executable))


@dataclass
class Server:
    name: str
    root: Path
    env: dict[str, str]
    port: int = 0
    process: subprocess.Popen | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.address}"

    @property
    def log(self) -> Path:
        return self.root / "server.log"

    def manage(self, *args: str, check: bool = True, env: dict[str, str] | None = None
               ) -> subprocess.CompletedProcess:
        """`manage.py <args>` in this server's settings (its database, subsystem …)."""
        done = subprocess.run([_python(), "manage.py", *args], cwd=ROOT, text=True,
                              capture_output=True, env={**self.env, **(env or {})}, timeout=120)
        if check and done.returncode != 0:
            raise AssertionError(f"manage.py {args[0]} on {self.name} failed:\n{done.stderr}")
        return done

    def shell(self, code: str) -> str:
        """What `manage.py shell -c code` prints, stripped."""
        return self.manage("shell", "-v", "0", "-c", code).stdout.strip()

    def librarian_token(self, username: str = "librarian") -> str:
        """A librarian's API token: `createlibrarian` prints it as its last word."""
        return self.manage("createlibrarian", username).stdout.split()[-1]

    def archive_service_ibi(self) -> str:
        return httpx.get(f"{self.url}/api/archive", timeout=10).json()["archiveserviceibi"]

    def start(self, server: str = "gunicorn", extra_args: tuple[str, ...] = ()) -> None:
        for _ in range(3):  # another process may take the free port between bind and listen
            self.port = free_port()
            self.env["ARCHIVE_ADDRESS"] = self.address
            if server == "gunicorn":
                command = [str(Path(_python()).parent / "gunicorn"), "ibirepo.wsgi",
                           "--bind", self.address, "--workers", "2", "--timeout", "60",
                           "--graceful-timeout", "5", *extra_args]
            else:
                command = [_python(), "manage.py", "runserver", "--noreload", self.address]
            with self.log.open("ab") as log:
                self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log,
                                                stderr=subprocess.STDOUT)
            if self._wait_until_up():
                return
        raise AssertionError(f"server {self.name} did not start:\n{self.log.read_text()[-3000:]}")

    def _wait_until_up(self) -> bool:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                httpx.get(f"{self.url}/", timeout=2)
                return True
            except httpx.TransportError:
                time.sleep(0.05)  # polling interval, not a synchronisation
        self.stop()
        return False

    def stop(self, timeout: float = 20) -> int | None:
        """SIGTERM (gunicorn runs its on_exit hook), then SIGKILL if it hangs."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.terminate()
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(timeout=timeout)


class LiveServers:
    """Starts servers under root; stops them all on exit."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.servers: list[Server] = []

    def __enter__(self) -> LiveServers:
        return self

    def __exit__(self, *exc) -> None:
        self.stop_all()

    def prepare(self, name: str, **settings: str) -> Server:
        """A migrated server, not started yet (to run commands before it serves)."""
        number = len(self.servers) + 1
        folder = self.root / name
        (folder / "media").mkdir(parents=True)
        env = {k: v for k, v in os.environ.items()
               if k not in _INHERITED_OUT and not k.startswith(("IBI_", "AWS_"))}
        env.update({
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
            "MEDIA_ROOT": str(folder / "media"),
            "DEBUG": "0", "SECRET_KEY": SECRET_KEY, "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0", "SESSION_COOKIE_SECURE": "0", "CSRF_COOKIE_SECURE": "0",
            "SECURE_HSTS_SECONDS": "0", "IBI_HOSTNAME": f"{name}.ibi.test",
            "IBI_IP": f"192.0.2.{number}", "IBI_GRANULARITY": "0.001",
            "PYTHONDONTWRITEBYTECODE": "1", **settings})
        server = Server(name, folder, env)
        server.manage("migrate", "--no-input")
        self.servers.append(server)
        return server

    def start(self, name: str, *, server: str = "gunicorn", extra_args: tuple[str, ...] = (),
              **settings: str) -> Server:
        found = self.prepare(name, **settings)
        found.start(server, extra_args)
        return found

    def stop_all(self) -> None:
        for server in self.servers:
            server.stop()


# -- Stand-ins --------------------------------------------------------------------------------

Responder = Callable[[dict[str, str]], tuple[int, str | bytes]]


@dataclass
class FakeArchiveService:
    """An archive service on loopback whose answers the test writes: `respond(query pairs)`
    returns (status, text/plain body as str or raw bytes). By default it confirms inclusions,
    acknowledges, and knows no IBI. Every request's decoded query pairs are kept in `asked`, its
    raw query string in `queries`."""

    service_ibi: str
    respond: Responder | None = None
    asked: list[dict[str, str]] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)  # the same requests, as they came
    confirms: bool = True  # False: an inclusionConfirmationRequest gets no pair list (a 503)
    # Other resources it serves: path with query, as asked → (content type, body).
    documents: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    fetched: list[str] = field(default_factory=list)  # every path asked, service or document

    def __post_init__(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the http.server API)
                parts = urlsplit(self.path)
                pairs = dict(parse_qsl(parts.query, keep_blank_values=True))
                fake.fetched.append(self.path)
                if self.path in fake.documents:
                    content_type, data = fake.documents[self.path]
                    status = 200
                else:
                    fake.asked.append(pairs)
                    fake.queries.append(parts.query)
                    status, body = fake.answer(parts.path, pairs)
                    data = body if isinstance(body, bytes) else body.encode("utf-8")
                    content_type = "text/plain; charset=us-ascii"
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the resolver had its answer from another Archive and hung up

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.server_port}"

    def answer(self, path: str, pairs: dict[str, str]) -> tuple[int, str]:
        if path.lstrip("/").upper() != self.service_ibi.upper():
            return 404, ""
        subject = pairs.get("servicesubject")
        if subject == "inclusionConfirmationRequest":
            return (200, "confirmation yes\n") if self.confirms else (503, "")
        if subject == "acknowledgment":
            return 200, "notice {acknowledgment received}\n"
        return self.respond(pairs) if self.respond else (200, "")

    def requests(self, subject: str) -> list[dict[str, str]]:
        return [pairs for pairs in self.asked if pairs.get("servicesubject") == subject]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> FakeArchiveService:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class SilentServer:
    """A loopback socket that takes connections (the kernel completes them) and never
    answers: what an Archive that hangs looks like to the resolver."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(128)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.socket.getsockname()[1]}"

    def close(self) -> None:
        self.socket.close()

    def __enter__(self) -> SilentServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
