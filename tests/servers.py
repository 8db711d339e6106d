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

Also here: `PromptHTTPServer` and `PromptWSGIServer`, servers in a thread of the test process
whose shutdown is at once (`StopsAtOnce`); `FakeArchiveService`, an archive service in a thread
whose answers a test writes,
recording what it was asked; `SilentServer`, a socket that accepts connections and never
answers; `CountingSilentArchive`, the same counting the connections it holds; `Slapd`,
Debian's OpenLDAP server with a throwaway configuration and directory, filled by `ldapadd`.
"""
from __future__ import annotations

import atexit
import json
import os
import re
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import closing, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx
from django.core.servers.basehttp import ThreadedWSGIServer

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
    zygote: Zygote | None = None
    zygotes: list[Zygote] = field(default_factory=list)

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
        """`manage.py <args>` in this server's settings (its database, subsystem …), forked
        from its zygote (tests/zygote.py) unless `env` adds settings of its own."""
        done = None if env else self._zygote().run(args, self.root, timeout=120)
        if done is None:
            done = subprocess.run([_python(), "manage.py", *args], cwd=ROOT, text=True,
                                  capture_output=True, env={**self.env, **(env or {})},
                                  timeout=120)
        if check and done.returncode != 0:
            raise AssertionError(f"manage.py {args[0]} on {self.name} failed:\n{done.stderr}")
        return done

    def shell(self, code: str) -> str:
        """What `manage.py shell -c code` prints, stripped."""
        return self.manage("shell", "-v", "0", "-c", code).stdout.strip()

    def query(self, sql: str, *params) -> list[tuple]:
        """The rows a read-only SQL query finds in this server's SQLite database: for what a
        test asks again and again while it waits (a `shell` starts Django each time)."""
        url = self.env["DATABASE_URL"]
        assert url.startswith("sqlite:///"), "query() reads the servers' SQLite databases"
        path = url.removeprefix("sqlite:///")
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)) as db:
            return db.execute(sql, params).fetchall()

    def librarian_token(self, username: str = "librarian") -> str:
        """A librarian's API token: `createlibrarian` prints it as its last word."""
        return self.manage("createlibrarian", username).stdout.split()[-1]

    def archive_service_ibi(self) -> str:
        return httpx.get(f"{self.url}/api/archive", timeout=10).json()["archiveserviceibi"]

    def close(self) -> None:
        """Its zygotes ended (after the server itself: they reap what they forked)."""
        for zygote in self.zygotes:
            zygote.close()

    def _zygote(self) -> Zygote:
        """The zygote of this server's settings as they are now (a changed setting, a new one;
        the one it replaces may still serve: LiveServers closes them all at the end)."""
        if self.zygote is None or self.zygote.env != self.env:
            self.zygote = Zygote(dict(self.env))
            self.zygotes.append(self.zygote)
        return self.zygote

    def pick_port(self) -> None:
        self.port = free_port()
        self.env["ARCHIVE_ADDRESS"] = self.address

    def start(self, server: str = "gunicorn", extra_args: tuple[str, ...] = ()) -> None:
        for attempt in range(3):  # another process may take the free port between bind and listen
            if attempt or not self.port:
                self.pick_port()
            gunicorn = ["ibirepo.wsgi", "--bind", self.address, "--workers", "2",
                        "--timeout", "60", "--graceful-timeout", "5", *extra_args]
            if server == "gunicorn" and "-c" not in extra_args:
                # Forked from the zygote, Django loaded: the workers fork from it as with
                # --preload, and no second start (a second of CPU a server; the suite starts
                # about ninety).
                self.process = self._zygote().serve(gunicorn, self.log)
            else:
                # A test of the shipped configuration (-c …) runs it as shipped.
                command = ([str(Path(_python()).parent / "gunicorn"), *gunicorn]
                           if server == "gunicorn" else
                           [_python(), "manage.py", "runserver", "--noreload", self.address])
                with self.log.open("ab") as log:
                    self.process = subprocess.Popen(command, cwd=ROOT, env=self.env,
                                                    stdout=log, stderr=subprocess.STDOUT)
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


_TEMPLATE: list[Path] = []  # this process's migrated database, made once
_MIGRATED: list[Path] = []  # its test database as migrated, before any test (keep_template)


def migrate_as_template(database_url: str) -> None:
    """Every migration applied to an empty database, and no archive service left in it (each
    server's own `migrate` then applies nothing and makes its own in post_migrate)."""
    folder = Path(tempfile.mkdtemp(prefix="ibi-template-"))
    (folder / "media").mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in _INHERITED_OUT and not k.startswith(("IBI_", "AWS_"))}
    env.update({"DATABASE_URL": database_url,
                "MEDIA_ROOT": str(folder / "media"), "DEBUG": "0",
                "SECRET_KEY": SECRET_KEY, "IBI_HOSTNAME": "template.ibi.test",
                "IBI_IP": "192.0.2.254", "PYTHONDONTWRITEBYTECODE": "1"})
    template = Server("template", folder, env)
    template.manage("migrate", "--no-input")
    template.shell("from archive.models import Item, MintingState; "
                   "Item.objects.filter(is_archive_service=True).delete(); "
                   "MintingState.objects.all().delete()")
    template.close()
    shutil.rmtree(folder)


def when_this_process_ends(action: Callable[[], object]) -> None:
    """`action()` when this process ends (not when a child forked from it does)."""
    owner = os.getpid()
    atexit.register(lambda: os.getpid() == owner and action())


def _folder_of_this_process(prefix: str) -> Path:
    """A new folder under the system's temporary folder, removed when this process ends."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    when_this_process_ends(lambda: shutil.rmtree(folder, ignore_errors=True))
    return folder


def keep_template(connection) -> Path | None:
    """The test database pytest-django has just migrated (an SQLite one, before any test
    wrote to it) kept twice by `VACUUM INTO`: as it is, for `restore_migrated`, and as the
    live servers' template, its archive service and minting state removed as
    `migrate_as_template` does (each test process saved a second `migrate`, five seconds of
    CPU). Nothing for another database: the servers' SQLite template is then migrated on
    first use, and a migration test migrates back to the latest. The copy kept as it is
    migrated is returned (None where nothing was kept)."""
    name, test = connection.settings_dict["NAME"], connection.settings_dict.get("TEST") or {}
    if connection.vendor != "sqlite" or name != test.get("NAME") or \
            connection.in_atomic_block or _TEMPLATE:
        return None  # (a module that reloads the settings has no test database to copy)
    folder = _folder_of_this_process("ibi-template-db-")
    path = folder / "db.sqlite3"
    migrated = snapshot(connection, "migrated")
    shutil.copyfile(migrated, path)
    with closing(sqlite3.connect(path)) as db, db:
        service = [row[0] for row in db.execute(
            "SELECT id FROM archive_item WHERE is_archive_service")]
        _delete_rows(db, "archive_item", service)
        db.execute("DELETE FROM archive_mintingstate")
    _TEMPLATE.append(path)
    _MIGRATED.append(migrated)
    return migrated


def restore_migrated(connection) -> bool:
    """The test database put back as `keep_template` kept it, every migration applied: after
    a test that migrated it back, five seconds of CPU instead of migrating forward again.
    False where nothing was kept (another database: migrate then)."""
    return bool(_MIGRATED) and restore(connection, _MIGRATED[0])


def snapshot(connection, name: str) -> Path | None:
    """The SQLite test database as it is now, kept in a file (`VACUUM INTO`) for `restore`;
    None for another database, or inside a transaction."""
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        return None
    path = _folder_of_this_process("ibi-snapshot-") / f"{name}.sqlite3"
    with connection.cursor() as cursor:
        cursor.execute("VACUUM INTO %s", [str(path)])
    return path


def restore(connection, path: Path | str) -> bool:
    """The SQLite test database made again what `path` holds (SQLite's backup API, through
    the open connection), Django's cache of its content types emptied (their rows are the
    file's now); False for another database, or inside a transaction."""
    from django.contrib.contenttypes.models import ContentType

    if connection.vendor != "sqlite" or connection.in_atomic_block:
        return False
    connection.ensure_connection()
    with closing(sqlite3.connect(path)) as kept:
        kept.backup(connection.connection)
    ContentType.objects.clear_cache()
    return True


def _delete_rows(db: sqlite3.Connection, table: str, ids: list) -> None:
    """Rows of `table` with these ids and, first, every row that refers to them (Django
    declares SQLite's foreign keys without ON DELETE)."""
    if not ids:
        return
    marks = ",".join("?" * len(ids))
    for (other,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        for key in db.execute(f'PRAGMA foreign_key_list("{other}")').fetchall():
            if key[2] == table and other != table:  # (id, seq, table, from, to, …)
                _delete_rows(db, other, [row[0] for row in db.execute(
                    f'SELECT rowid FROM "{other}" WHERE "{key[3]}" IN ({marks})', ids)])
    db.execute(f'DELETE FROM "{table}" WHERE rowid IN ({marks})', ids)


def migrated_template() -> Path:
    """An SQLite database with every migration applied and no archive service: made once per
    test process (two seconds of CPU a server saved: the suite starts dozens), unless
    `keep_template` took it from the test database."""
    if not _TEMPLATE:
        folder = _folder_of_this_process("ibi-template-db-")
        migrate_as_template(f"sqlite:///{folder / 'db.sqlite3'}")
        assert not (folder / "db.sqlite3-wal").exists()  # one file holds it all
        _TEMPLATE.append(folder / "db.sqlite3")
    return _TEMPLATE[0]


class LiveServers:
    """Starts servers under root; stops them all on exit."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.servers: list[Server] = []

    def __enter__(self) -> LiveServers:
        return self

    def __exit__(self, *exc) -> None:
        self.stop_all()

    def prepare(self, name: str, *, migrate: bool = True, **settings: str) -> Server:
        """A migrated server (unless `migrate` is false: its database may not be there), not
        started yet (to run commands before it serves)."""
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
        server.pick_port()  # its address known to the commands run before it serves
        if migrate:
            url = env["DATABASE_URL"]
            if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
                # A copy of the migrated schema (this server's own file, or one that servers
                # share, made by the first), where `migrate` would apply nothing and its
                # post_migrate would make only this server's own archive service (its
                # hostname's IBI): that is made alone, without `migrate` rendering every
                # migration's models to apply none (0.4 s of CPU a server).
                shutil.copyfile(migrated_template(), url.removeprefix("sqlite:///"))
                server.shell("from archive.deposit.services import ensure_archive_service; "
                             "ensure_archive_service()")
            else:
                # The test process has checked the project; a third of a second saved.
                server.manage("migrate", "--no-input", "--skip-checks")
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
            server.close()


class _Writer:
    """The zygote's requests, written to its socket; closed: the zygote reads its end."""

    def __init__(self, channel: socket.socket):
        self.channel = channel
        self.file = channel.makefile("w")

    def write(self, text: str) -> None:
        self.file.write(text)

    def flush(self) -> None:
        self.file.flush()

    def close(self) -> None:
        try:
            self.file.close()
            self.channel.shutdown(socket.SHUT_WR)
        except OSError:
            pass


class _Forked:
    """A zygote forked by the mother: as much of subprocess.Popen as `Zygote` uses, over the
    socket it answers on (the mother reaps it; its end is all `Zygote` asks)."""

    def __init__(self, pid: int, channel: socket.socket):
        self.pid = pid
        self.handle: int | None = os.pidfd_open(pid)
        self.channel = channel
        self.stdin = _Writer(channel)
        self.stdout = channel.makefile("r")
        self.returncode: int | None = None

    def _ended(self, timeout: float | None) -> bool:
        if self.returncode is None and select.select([self.handle], [], [], timeout)[0]:
            os.close(self.handle)
            self.handle = None
            self.stdout.close()
            self.channel.close()
            self.returncode = 0
        return self.returncode is not None

    def poll(self) -> int | None:
        self._ended(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended(timeout):
            raise subprocess.TimeoutExpired(f"zygote {self.pid}", timeout)
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            signal.pidfd_send_signal(self.handle, signal.SIGKILL)


class _Mother:
    """tests/zygote.py --mother, one per test process, started with a server's first zygote:
    it forks each server's zygote (`Zygote`) from a process that has already imported most of
    what a zygote imports."""

    process: subprocess.Popen | None = None
    channel: socket.socket | None = None
    broken = False
    lock = threading.Lock()

    @classmethod
    def fork(cls, env: dict[str, str]) -> _Forked | None:
        """A zygote in `env` forked by the mother, or None if it cannot fork one."""
        with cls.lock:
            if cls.broken:
                return None
            try:
                if cls.process is None:
                    cls._start(env)
                ours, theirs = socket.socketpair()
                with theirs:
                    socket.send_fds(cls.channel, [json.dumps(env).encode()], [theirs.fileno()])
                ready, _, _ = select.select([cls.channel], [], [], START_TIMEOUT)
                answer = cls.channel.recv(1 << 16) if ready else b""
                if not answer:
                    raise OSError("the mother zygote did not answer")
                return _Forked(json.loads(answer)["pid"], ours)
            except OSError:
                cls.broken = True
                return None

    @classmethod
    def _start(cls, env: dict[str, str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        own = {k: v for k, v in env.items()
               if k not in _INHERITED_OUT and not k.startswith(("IBI_", "AWS_"))}
        with theirs:
            cls.process = subprocess.Popen(
                [_python(), str(ROOT / "tests" / "zygote.py"), "--mother", str(theirs.fileno())],
                cwd=ROOT, env=own, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, pass_fds=[theirs.fileno()])
        cls.channel = ours
        atexit.register(cls.close)

    @classmethod
    def close(cls) -> None:
        """Its end, at the test process's (the zygotes it forked have ended by then)."""
        if cls.process is not None:
            cls.channel.close()
            try:
                cls.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                cls.process.kill()
                cls.process.wait()


class Zygote:
    """tests/zygote.py in a server's settings: `manage.py` commands forked from a process
    that set Django up once (most of a second of CPU a command saved). A server's zygote is
    itself forked from this test process's mother zygote (`_Mother`), which has imported
    what a set-up zygote imports but the project's own modules and what reads settings (a
    second of CPU a server saved); bare, or where the mother cannot serve, it starts as a
    process of its own."""

    def __init__(self, env: dict[str, str], *, bare: bool = False):
        self.env = env
        self.process = None if bare else _Mother.fork(env)
        if self.process is None:
            self.process = subprocess.Popen(
                [_python(), str(ROOT / "tests" / "zygote.py"), *(["--bare"] if bare else [])],
                cwd=ROOT, env=env, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL)
        self.ready = self._answer(START_TIMEOUT) == {"ready": True}
        self.lock = threading.Lock()

    def _answer(self, timeout: float) -> dict | None:
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else ""
        return json.loads(line) if line else None

    def _ask(self, request: dict, timeout: float) -> dict | None:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self._answer(timeout)

    def serve(self, argv: list[str], log: Path) -> Served:
        """gunicorn <argv> forked from this zygote, its output appended to `log`."""
        assert self.ready, "the zygote could not set Django up"
        with self.lock:
            return Served(self, self._ask({"argv": argv, "out": str(log), "serve": True},
                                          10)["pid"])

    def ended(self, pid: int, timeout: float) -> int | None:
        """A served child's exit code if it ends within `timeout` seconds, else None."""
        with self.lock:
            return self._ask({"wait": pid, "timeout": timeout}, timeout + 10)["rc"]

    def run(self, args: tuple[str, ...], folder: Path, timeout: float,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess | None:
        """What `manage.py <args>` did (in `env`, the whole environment, for a bare zygote),
        or None if this zygote could not set Django up (the caller runs manage.py, whose
        message a test should see)."""
        if not self.ready:
            return None
        with self.lock, tempfile.TemporaryDirectory(dir=folder) as scratch:
            out, err = Path(scratch) / "out", Path(scratch) / "err"
            child = self._ask({"argv": list(args), "out": str(out), "err": str(err),
                               **({"env": env} if env is not None else {})}, 10)["pid"]
            ended = self._answer(timeout)
            if ended is None:
                os.kill(child, signal.SIGKILL)
                self._answer(10)
                raise subprocess.TimeoutExpired(["manage.py", *args], timeout)
            return subprocess.CompletedProcess(["manage.py", *args], ended["rc"],
                                               out.read_text(), err.read_text())

    def close(self) -> None:
        """Its end (once the servers it forked have ended: a zygote reaps them)."""
        self.process.stdin.close()
        if self.process.poll() is None:
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()


@dataclass
class Served:
    """A server forked from a zygote, as much of subprocess.Popen as the tests use."""

    zygote: Zygote
    pid: int
    returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.zygote.ended(self.pid, 0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self.returncode = self.zygote.ended(self.pid, 3600 if timeout is None else timeout)
            if self.returncode is None:
                raise subprocess.TimeoutExpired(f"server {self.pid}", timeout)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


# -- Stand-ins --------------------------------------------------------------------------------

class StopsAtOnce:
    """A TCP socketserver whose `shutdown()` ends `serve_forever()` at once. socketserver's own
    loop notices a shutdown only when its select returns, half a second later at worst: a run's
    375 stops of stand-ins and live sites waited 160 s in all. This loop accepts one connection
    at a time (`handle_request`, with no timeout; a threading server still handles each in a
    thread of its own) and looks whether it is to end after each; a shutdown asks it to, then
    wakes it with a connection of its own, which sends nothing.

    Unlike socketserver's: it is served once (a second `serve_forever` returns at once), it
    runs no `service_actions` (no forking server), and a shutdown before it served or after it
    ended returns at once."""

    def __init__(self, *args, **kwargs) -> None:
        self._serving = threading.Event()
        self._ending = threading.Event()
        self._ended = threading.Event()
        super().__init__(*args, **kwargs)

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        self._serving.set()
        try:
            while not self._ending.is_set():
                self.handle_request()
        finally:
            self._ended.set()

    def shutdown(self) -> None:
        self._ending.set()
        if not self._serving.is_set() or self._ended.is_set() or self.socket.fileno() < 0:
            return  # nothing to wake (a closed socket's port may be another server's now)
        with suppress(OSError):
            socket.create_connection(self.server_address[:2], timeout=30).close()
        if not self._ended.wait(30):
            raise RuntimeError(f"{type(self).__name__} on {self.server_address} did not stop")


class PromptHTTPServer(StopsAtOnce, ThreadingHTTPServer):
    """http.server's threading server, whose shutdown ends it at once (`StopsAtOnce`)."""


class PromptWSGIServer(StopsAtOnce, ThreadedWSGIServer):
    """Django's live server's, whose shutdown ends it at once (`StopsAtOnce`): `live_site`."""


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

        self.server = PromptHTTPServer(("127.0.0.1", 0), Handler)
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


# (status, headers, body) a scripted server answers; None: the recorded answer.
Scripted = tuple[int, dict[str, str], bytes] | None
OAI_DATA = ROOT / "tests" / "data" / "dspace" / "oai"
FIRST_TOKEN = "MToxMDB8Mjp8Mzp8NDp8NTpvYWlfZGM="


@dataclass
class ScriptedOai:
    """A DSpace-like OAI-PMH server on loopback: the recorded XOAI answers of
    tests/data/dspace/oai (their @@BASE@@ its own address), and the bitstreams they link to at
    DSpace 7's /bitstreams/<uuid>/download and DSpace 6's /bitstream/<handle>/<n>/<name>.

    `script(path, params)` may answer instead (a 503, a redirect, a cut page …) or wait on an
    event; every request's path and query pairs are kept in `asked`. The recorded
    ListMetadataFormats lists DSpace's `dim`: with `dim` set the server offers it and answers
    ListRecords in it (ListRecords-dim.xml: two theses of tests/data/dspace/theses as records
    42 and 44); else it leaves dim out of that list, as a source without it, and the recorded
    oai_dc answers are what a harvest reads. `sets` (record number → setSpecs) gives those
    records these collection setSpecs instead of the recorded ones (42: col_123456789_2, 43:
    col_123456789_3, 44 and 45 none)."""

    script: Callable[[str, dict[str, str]], Scripted] | None = None
    dim: bool = False
    sets: dict[int, list[str]] = field(default_factory=dict)
    asked: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    path: str = "/server/oai/request"
    files: dict[str, str] = field(default_factory=lambda: {
        "/bitstreams/0b5b6c8a-8e8f-4a3e-9d9f-3f1c2b4a5d6e/download": "tese.pdf",
        "/bitstreams/7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6/download": "anexo.csv",
        "/bitstream/123456789/43/1/artigo.pdf": "artigo.pdf"})

    def __post_init__(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the http.server API)
                parts = urlsplit(self.path)
                params = dict(parse_qsl(parts.query, keep_blank_values=True))
                fake.asked.append((parts.path, params))
                answer = fake.script(parts.path, params) if fake.script else None
                status, headers, body = answer or fake.answer(parts.path, params)
                try:
                    self.send_response(status)
                    for name, value in {"Content-Length": str(len(body)), **headers}.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args) -> None:
                pass

        self.server = PromptHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    @property
    def base(self) -> str:
        return self.url + self.path

    def recorded(self, name: str, base: str | None = None) -> bytes:
        return (OAI_DATA / name).read_text().replace("@@BASE@@", base or self.url).encode()

    def error(self, code: str, text: str) -> bytes:
        return (f'<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives'
                f'.org/OAI/2.0/"><responseDate>2026-11-20T10:00:00Z</responseDate><request>'
                f'{self.base}</request><error code="{code}">{text}</error></OAI-PMH>').encode()

    def answer(self, path: str, params: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        xml = {"Content-Type": "text/xml;charset=UTF-8"}
        if path in self.files:
            return 200, {}, (OAI_DATA / "bitstreams" / self.files[path]).read_bytes()
        if path != self.path:
            return 404, {}, b"not found"
        verb = params.get("verb")
        if verb == "ListMetadataFormats" and not self.dim:
            return 200, xml, re.sub(rb"\s*<metadataFormat><metadataPrefix>dim</metadataPrefix>"
                                    rb".*?</metadataFormat>", b"", self.recorded(f"{verb}.xml"))
        if verb in ("Identify", "ListMetadataFormats"):
            return 200, xml, self.recorded(f"{verb}.xml")
        if verb == "ListRecords":
            return 200, xml, self._with_sets(self._records(params))
        if verb == "GetRecord":
            name = (f"GetRecord-{params.get('metadataPrefix')}-"
                    f"{params.get('identifier', '').rsplit('/', 1)[-1]}.xml")
            if (OAI_DATA / name).is_file():
                return 200, xml, self.recorded(name)
            return 200, xml, self.error("idDoesNotExist", "no such item")
        return 200, xml, self.error("badVerb", "no such verb")

    def _records(self, params: dict[str, str]) -> bytes:
        token = params.get("resumptionToken")
        if token is not None:
            if token != FIRST_TOKEN:
                return self.error("badResumptionToken", "expired")
            return self.recorded("ListRecords-2.xml")
        if self.dim and params.get("metadataPrefix") == "dim":
            return self.recorded("ListRecords-dim.xml")
        if params.get("metadataPrefix") != "oai_dc":
            return self.error("cannotDisseminateFormat", "no")
        if params.get("from"):
            return self.recorded("ListRecords-since.xml")
        return self.recorded("ListRecords-1.xml")

    def _with_sets(self, body: bytes) -> bytes:
        """The headers of the records `sets` names with those collection setSpecs."""
        def header(match: re.Match) -> bytes:
            found = re.search(rb"/([0-9]+)</identifier>", match.group(0))
            specs = self.sets.get(int(found.group(1))) if found else None
            if specs is None:
                return match.group(0)
            kept = re.sub(rb"\s*<setSpec>col_[^<]*</setSpec>", b"", match.group(0))
            return kept.replace(b"</header>", b"".join(
                b"<setSpec>" + spec.encode() + b"</setSpec>" for spec in specs) + b"</header>")

        return re.sub(rb"<header>.*?</header>", header, body, flags=re.S) if self.sets else body

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> ScriptedOai:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class CountingSilentArchive:
    """Accepts connections, counts them, never answers: an Archive that stalls."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.accepted: list[socket.socket] = []
        self.changed = threading.Condition()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.socket.getsockname()[1]}"

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            with self.changed:
                self.accepted.append(connection)
                self.changed.notify_all()

    def wait_for(self, count: int, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: len(self.accepted) >= count, timeout)

    def close(self) -> None:
        self.socket.close()
        for connection in self.accepted:
            connection.close()

    def __enter__(self) -> CountingSilentArchive:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class ScriptedArchives:
    """Many archive services on loopback, one port each, served by one asyncio loop in a
    thread (HTTP/1.1, connections kept alive): Archive n has the archive service IBI
    ``ibi.test/a<n>/2024/01.01.00.00`` and holds, as Original, the IBIs of `held` whose value
    is n (or those `holder(ibi)` says it holds); those in `dead` accept connections and never
    answer; those in `slow` answer after that many seconds. Every urlRequest is kept in
    `requests`."""

    def __init__(self, count: int, *, dead: set[int] = frozenset(),
                 slow: dict[int, float] | None = None,
                 holder: Callable[[str], int | None] | None = None) -> None:
        import asyncio

        self.count, self.dead, self.slow = count, set(dead), dict(slow or {})
        self.held: dict[str, int] = {}
        self.holder = holder or self.held.get  # IBI → the Archive holding it, or None
        self.requests: list[tuple[int, str]] = []  # (Archive, IBI) of every urlRequest
        self.ports: list[int] = []
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait(30)

    @staticmethod
    def service_ibi(n: int) -> str:
        return f"ibi.test/a{n}/2024/01.01.00.00"

    @staticmethod
    def minted_by(n: int, k: int) -> str:
        """The k-th IBI minted by Archive n's subsystem (k < 60)."""
        return f"ibi.test/a{n}/2025/01.01.00.{k:02d}"

    def address(self, n: int) -> str:
        return f"127.0.0.1:{self.ports[n]}"

    def url(self, n: int, ibi: str) -> str:
        return f"http://{self.address(n)}/col/{ibi}/doc/paper.pdf"

    def _serve(self, ready: threading.Event) -> None:
        import asyncio

        asyncio.set_event_loop(self.loop)

        async def start() -> None:
            self.servers = []
            for n in range(self.count):
                server = await asyncio.start_server(
                    lambda r, w, n=n: self._connection(n, r, w), "127.0.0.1", 0, backlog=512)
                self.servers.append(server)
                self.ports.append(server.sockets[0].getsockname()[1])
            ready.set()

        self.loop.run_until_complete(start())
        self.loop.run_forever()

    async def _connection(self, n: int, reader, writer) -> None:
        import asyncio

        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                if n in self.dead:  # never answers: reads until the client hangs up
                    while await reader.read(65536):
                        pass
                    return
                target = head.split(b" ", 2)[1].decode("latin-1")
                pairs = dict(parse_qsl(urlsplit(target).query, keep_blank_values=True))
                if n in self.slow:
                    await asyncio.sleep(self.slow[n])
                body = self.answer(n, pairs).encode("ascii")
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=us-ascii"
                             b"\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError,
                asyncio.CancelledError):
            pass  # the client hung up, or the servers close (`close`)
        finally:
            writer.close()

    def answer(self, n: int, pairs: dict[str, str]) -> str:
        subject = pairs.get("servicesubject")
        if subject == "inclusionConfirmationRequest":
            return "confirmation yes\n"
        if subject == "acknowledgment":
            return "notice {acknowledgment received}\n"
        ibi = pairs.get("parsedibiurl.ibi", "")
        self.requests.append((n, ibi))
        if self.holder(ibi) != n:
            return ""
        return (f"archiveaddress {self.address(n)}\ncontenttype Data\nibi {{rep {ibi}}}\n"
                f"ibi.archiveservice {{rep {self.service_ibi(n)}}}\nstate Original\n"
                f"timestamp 2024-01-02T03:04:05Z\nurl {self.url(n, ibi)}\n"
                f"urlkey 1700000000-123456789012345678\n")

    def close(self) -> None:
        import asyncio

        async def stop() -> None:
            for server in self.servers:
                server.close()
            current = asyncio.current_task()
            pending = [t for t in asyncio.all_tasks() if t is not current]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)
        self.loop.close()

    def __enter__(self) -> ScriptedArchives:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class SmtpServer:
    """A real SMTP server in a process of its own on loopback: aiosmtpd's command, its Mailbox
    handler writing what it receives to a Maildir (`messages()`)."""

    def __init__(self, folder: Path) -> None:
        self.port, self.folder = free_port(), Path(folder)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{self.port}",
             "-c", "aiosmtpd.handlers.Mailbox", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while True:  # until it listens (a poll: the process says nothing when it does)
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"aiosmtpd did not start: "
                                       f"{self.process.stderr.read()!r}") from None
                time.sleep(0.05)

    @property
    def url(self) -> str:
        """EMAIL_URL for it."""
        return f"smtp://127.0.0.1:{self.port}"

    def messages(self) -> list:
        import mailbox

        return list(mailbox.Maildir(self.folder, create=False)) if self.folder.exists() else []

    def __enter__(self) -> SmtpServer:
        return self

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


SLAPD_CONF = """include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {root}/slapd.pid
access to attrs=userPassword by anonymous auth by self read by * none
access to * by * read
database mdb
maxsize 10485760
suffix "{suffix}"
rootdn "{admin}"
rootpw {password}
directory {root}/data
"""


class Slapd:
    """Debian's `slapd` on a free port of 127.0.0.1: its slapd.conf and mdb directory in
    `root`, `suffix` with `admin` (its rootdn) able to write; `add(ldif)` loads entries with
    `ldapadd`. Ready when it answers a bind (polled); stopped by its pid at exit."""

    def __init__(self, root: Path, suffix: str = "dc=uni,dc=example",
                 password: str = "directory-admin") -> None:
        self.root, self.suffix, self.password = root, suffix, password
        self.admin = f"cn=admin,{suffix}"
        self.port = free_port()
        self.uri = f"ldap://127.0.0.1:{self.port}"
        self.pid: int | None = None

    def __enter__(self) -> Slapd:
        (self.root / "data").mkdir(parents=True, exist_ok=True)
        conf = self.root / "slapd.conf"
        conf.write_text(SLAPD_CONF.format(root=self.root, suffix=self.suffix,
                                          admin=self.admin, password=self.password))
        # Forks once it has read its configuration and opened its listener; its pid file
        # says which process to stop.
        subprocess.run(["/usr/sbin/slapd", "-f", str(conf), "-h", self.uri + "/"],
                       check=True, timeout=START_TIMEOUT)
        self.pid = int((self.root / "slapd.pid").read_text())
        deadline = time.monotonic() + START_TIMEOUT
        while subprocess.run(["ldapwhoami", "-x", "-H", self.uri, "-D", self.admin, "-w",
                              self.password], capture_output=True).returncode != 0:
            if time.monotonic() > deadline:
                raise RuntimeError(f"slapd did not answer on {self.uri}")
            time.sleep(0.05)  # polling interval, not a synchronisation
        self.add(f"dn: {self.suffix}\nobjectClass: dcObject\nobjectClass: organization\n"
                 f"o: test\ndc: {self.suffix.split(',')[0].split('=')[1]}\n")
        return self

    def add(self, ldif: str) -> None:
        subprocess.run(["ldapadd", "-x", "-H", self.uri, "-D", self.admin, "-w",
                        self.password], input=ldif.encode(), check=True,
                       capture_output=True, timeout=START_TIMEOUT)

    def __exit__(self, *exc) -> None:
        if self.pid is not None:
            os.kill(self.pid, signal.SIGTERM)
            self.pid = None


class FakeOrcid:
    """A stand-in for ORCID on loopback over TLS (its certificate from `trustme`'s CA, whose
    PEM is `ca_file`), in a thread of the test process, shaped like ORCID's OAuth 2 server:

    - GET /oauth/authorize (client_id, response_type=code, scope=/authenticate, redirect_uri,
      state): the person `signs_in_as` is signed in and agrees: 302 to the redirect URI with a
      new code and the state;
    - POST /oauth/token (client_secret_post, grant_type=authorization_code): a code once,
      for the client it was issued to, with its redirect URI: {access_token, token_type,
      refresh_token, expires_in, scope, name, orcid} (plus `token_extra`); else 400
      invalid_grant / invalid_client as ORCID answers;
    - GET /v3.0/{iD}/record with a bearer token: the record, its `emails` (or an error of
      `record_status`).

    `tokens_asked` counts the token requests."""

    def __init__(self, folder: Path, client_id: str = "APP-TESTCLIENT0001",
                 client_secret: str = "test-secret") -> None:
        import ssl

        import trustme

        self.client_id, self.client_secret = client_id, client_secret
        self.signs_in_as = ("0000-0002-1825-0097", "Josiah Carberry")
        self.emails: dict[str, list[dict]] = {}
        self.token_extra: dict = {}
        self.record_status = 200  # another: the record answers that, with no body
        self.codes: dict[str, tuple[str, str, str, str]] = {}
        self.access: dict[str, str] = {}
        self.tokens_asked = 0
        ca = trustme.CA()
        self.ca_file = str(folder / "orcid-ca.pem")
        ca.cert_pem.write_to_path(self.ca_file)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert("127.0.0.1").configure_cert(context)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _answer(self, status: int, body: dict | None = None,
                        location: str = "") -> None:
                data = json.dumps(body or {}).encode()
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = dict(parse_qsl(parts.query))
                if parts.path == "/oauth/authorize":
                    if (query.get("client_id") != fake.client_id or query.get(
                            "response_type") != "code" or query.get("scope") != "/authenticate"
                            or not query.get("redirect_uri")):
                        return self._answer(400, {"error": "invalid_request"})
                    code = fake.issue_code(fake.client_id, query["redirect_uri"])
                    separator = "&" if "?" in query["redirect_uri"] else "?"
                    return self._answer(302, location=f"{query['redirect_uri']}{separator}"
                                        f"code={code}&state={query.get('state', '')}")
                found = re.fullmatch(r"/v3\.0/([0-9X-]{19})/record", parts.path)
                bearer = self.headers.get("Authorization", "").removeprefix("Bearer ")
                if found and fake.access.get(bearer) == found.group(1):
                    if fake.record_status != 200:
                        return self._answer(fake.record_status, {"error": "unavailable"})
                    return self._answer(200, {
                        "orcid-identifier": {"path": found.group(1)},
                        "person": {"emails": {"email": fake.emails.get(found.group(1), [])}}})
                return self._answer(404 if found is None else 401, {"error": "no"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                form = dict(parse_qsl(self.rfile.read(length).decode()))
                if urlsplit(self.path).path != "/oauth/token":
                    return self._answer(404)
                fake.tokens_asked += 1
                if (form.get("client_id") != fake.client_id
                        or form.get("client_secret") != fake.client_secret):
                    return self._answer(401, {"error": "invalid_client"})
                issued = fake.codes.pop(form.get("code", ""), None)
                if (form.get("grant_type") != "authorization_code" or issued is None
                        or issued[0] != form["client_id"]
                        or issued[1] != form.get("redirect_uri")):
                    return self._answer(400, {"error": "invalid_grant",
                                              "error_description": "Invalid authorization "
                                                                   "code"})
                access = os.urandom(16).hex()
                fake.access[access] = issued[2]
                return self._answer(200, {
                    "access_token": access, "token_type": "bearer",
                    "refresh_token": os.urandom(16).hex(), "expires_in": 631138518,
                    "scope": "/authenticate", "name": issued[3], "orcid": issued[2],
                    **fake.token_extra})

        self.server = PromptHTTPServer(("127.0.0.1", 0), Handler)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def issue_code(self, client_id: str, redirect_uri: str) -> str:
        code = os.urandom(6).hex()
        self.codes[code] = (client_id, redirect_uri, *self.signs_in_as)
        return code

    def __enter__(self) -> FakeOrcid:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


class FakeMdq:
    """A stand-in Metadata Query service (draft-young-md-query) on loopback, in a thread of the
    test process: GET /entities/<url-encoded entityID> or /entities/{sha1}<hex> answers the
    bytes `entities` holds for that entityID (application/samlmetadata+xml), else 404.
    `asked` lists (path, Accept) of every request."""

    def __init__(self) -> None:
        import hashlib
        from urllib.parse import unquote

        self.entities: dict[str, bytes] = {}
        self.asked: list[tuple[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                fake.asked.append((self.path, self.headers.get("Accept", "")))
                wanted = unquote(self.path.removeprefix("/entities/"))
                body = next((data for entity_id, data in fake.entities.items() if wanted in (
                    entity_id, "{sha1}" + hashlib.sha1(entity_id.encode()).hexdigest())), None)
                if not self.path.startswith("/entities/") or body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/samlmetadata+xml")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = PromptHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> FakeMdq:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
