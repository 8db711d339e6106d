"""Services of a test's own, and the faults done to them (issue #30): a PostgreSQL cluster
(initdb and pg_ctl into a folder of the test's, on a free port), a Redis (`redis-server` on a
free port), a small file system (tmpfs, mounted by the test), and the locks that hold a
request at a chosen point so that a fault strikes exactly there. Never the machine's shared
services: stopping, pausing or filling these harms no one else.

    with OwnPostgres() as pg, OwnRedis(root) as redis, SmallFilesystem(root / "media", "4m"):
        url = pg.create("ibirepo")          # postgres://postgres@127.0.0.1:<port>/ibirepo
        pg.stop("immediate"); pg.start()    # a crash and a restart
        redis.pause(); redis.resume()       # SIGSTOP, SIGCONT: a Redis that hangs
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TypeVar

import psycopg

from .servers import free_port

START_TIMEOUT = 60
T = TypeVar("T")


def _pg_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    assert found, "PostgreSQL's server binaries (initdb, pg_ctl) are missing: make test " \
                  "installs them (the Makefile's system-packages)"
    return found[-1].parent


def _as_postgres(command: list[str]) -> list[str]:
    """initdb and postgres refuse to run as root: run them as the postgres user then."""
    return ["runuser", "-u", "postgres", "--", *command] if os.getuid() == 0 else command


class OwnPostgres:
    """A PostgreSQL cluster in a folder of its own, on a free port of 127.0.0.1, trust auth."""

    def __init__(self) -> None:
        self.bin = _pg_bin()
        # Under /tmp, not pytest's tmp_path (mode 0700, root's): the postgres user works here.
        self.root = Path(tempfile.mkdtemp(prefix="ibi-faults-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        if os.getuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        subprocess.run(_as_postgres([str(self.bin / "initdb"), "-D", str(self.data), "-U",
                                     "postgres", "--auth=trust", "-E", "UTF8",
                                     "--locale=C.UTF-8"]),
                       check=True, capture_output=True)

    def __enter__(self) -> OwnPostgres:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def _ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(_as_postgres([str(self.bin / "pg_ctl"), "-D", str(self.data),
                                            *args]),
                              check=check, capture_output=True, text=True, timeout=120)

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c max_connections=60")
        self._ctl("start", "-w", "-t", str(START_TIMEOUT), "-l", str(self.root / "log"),
                  "-o", options)

    def stop(self, mode: str = "fast") -> None:
        """fast: every session ended, a clean shutdown; immediate: a crash (recovery at the
        next start)."""
        self._ctl("stop", "-w", "-m", mode, check=False)

    def running(self) -> bool:
        return self._ctl("status", check=False).returncode == 0

    def url(self, dbname: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{dbname}"

    def connect(self, dbname: str = "postgres", **options) -> psycopg.Connection:
        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres",
                               dbname=dbname, **options)

    def create(self, dbname: str) -> str:
        with self.connect(autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{dbname}"')
        return self.url(dbname)

    def terminate(self, dbname: str, pids: list[int] | None = None) -> int:
        """pg_terminate_backend on the database's sessions (or those pids): what an
        administrator or a failover does."""
        with self.connect(autocommit=True) as admin:
            return admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
                "%s AND pid <> pg_backend_pid() AND (%s::int[] IS NULL OR pid = ANY(%s))",
                [dbname, pids, pids]).fetchone()[0]


def waiting_on(connection: psycopg.Connection, relation: str, exclude: tuple[int, ...] = ()
               ) -> int | None:
    """The backend (pid) waiting for a lock on `relation`, if one is, other than `exclude`."""
    row = connection.execute(
        "SELECT l.pid FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
        "WHERE NOT l.granted AND c.relname = %s AND NOT l.pid = ANY(%s) LIMIT 1",
        [relation, list(exclude)]).fetchone()
    return row[0] if row else None


def waiting_in(connection: psycopg.Connection, table: str, exclude: tuple[int, ...] = ()
               ) -> int | None:
    """The backend (pid) waiting for a lock while its query reads `table`: a row lock shows
    as a wait for the holder's transaction, not for the table (pg_stat_activity)."""
    row = connection.execute(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE %s "
        "AND NOT pid = ANY(%s) LIMIT 1", [f"%{table}%", list(exclude)]).fetchone()
    return row[0] if row else None


class OwnRedis:
    """A redis-server on a free port of 127.0.0.1, no persistence; stopped, paused, resumed."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> OwnRedis:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.root)],
            stdout=(self.root / "redis.log").open("ab"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        while subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True,
                             text=True).stdout.strip() != "PONG":
            assert self.process.poll() is None, (self.root / "redis.log").read_text()
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)  # polling interval, not a synchronisation

    def stop(self) -> None:
        """Stopped: every connection to it refused."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # a paused one would never exit
            self.process.terminate()
            self.process.wait(timeout=30)

    def pause(self) -> None:
        """SIGSTOP: connections are accepted by the kernel and never answered."""
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)


class SmallFilesystem:
    """A tmpfs of `size` (e.g. "4m") mounted at `path`, which the test may fill and grow."""

    def __init__(self, path: Path, size: str) -> None:
        self.path = Path(path)
        self.size = size

    def __enter__(self) -> SmallFilesystem:
        self.path.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.size},mode=0755",
                               "tmpfs", str(self.path)], capture_output=True, text=True)
        assert done.returncode == 0, (
            f"mounting a tmpfs at {self.path} failed ({done.stderr.strip()}): the fault tests "
            "need root, as .ci/run has, to give the media a small file system of their own")
        return self

    def __exit__(self, *exc) -> None:
        subprocess.run(["umount", "-l", str(self.path)], check=False)

    def grow(self, size: str) -> None:
        subprocess.run(["mount", "-o", f"remount,size={size}", str(self.path)], check=True)
        self.size = size

    def free(self) -> int:
        return shutil.disk_usage(self.path).free


class _Held:
    """A deposit held after its commit, its connection waiting (see `held_after_commit`)."""

    def __init__(self, connect, dbname: str, stack: ExitStack) -> None:
        self.connect, self.dbname, self.stack = connect, dbname, stack
        self.pool = stack.enter_context(ThreadPoolExecutor(2))
        self.app: int | None = None

    def _connection(self) -> psycopg.Connection:
        connection = self.connect(self.dbname)
        self.stack.callback(connection.close)  # never a commit or rollback: the server may be gone
        return connection

    def run(self, request: Callable[[], T]) -> Future[T]:
        files, reread, watch = self._connection(), self._connection(), self._connection()
        watch.autocommit = True
        ours = (files.info.backend_pid, reread.info.backend_pid, watch.info.backend_pid)
        files.execute("LOCK TABLE archive_itemfile IN SHARE MODE")
        answer = self.pool.submit(request)
        self.app = _wait(lambda: waiting_on(watch, "archive_itemfile", ours),
                         "the deposit waiting to write its files")
        # Queued behind the deposit's own lock on its Dublin Core, granted at its commit: the
        # record's re-read, which reads that table, then waits behind it.
        queued = self.pool.submit(reread.execute,
                                  "LOCK TABLE archive_dcvalue IN ACCESS EXCLUSIVE MODE")
        _wait(lambda: waiting_on(watch, "archive_dcvalue", (self.app,)),
              "the exclusive lock queued")
        files.rollback()  # the deposit writes its files and commits
        queued.result(timeout=START_TIMEOUT)
        _wait(lambda: waiting_on(watch, "archive_dcvalue", ours) == self.app,
              "the committed deposit reading its record back")
        return answer


@contextmanager
def held_after_commit(connect: Callable[[str], psycopg.Connection], dbname: str):
    """Holds an API deposit (whose request `run` sends; give it a creator, so that it writes
    Dublin Core) just after its commit, where it reads its record back for the answer: the
    deposit is first held before writing its files (a SHARE lock on archive_itemfile), an
    exclusive lock on archive_dcvalue is queued behind the deposit's own, then the files are
    let through; at the commit the queued lock is granted, and the re-read waits behind it.
    `held.app` is then the waiting backend, for the test to terminate, or the cluster to
    stop, before the hold ends with the block."""
    with ExitStack() as stack:
        yield _Held(connect, dbname, stack)


def obeying_503(send: Callable[[], T], timeout: float = START_TIMEOUT) -> T:
    """The answer of `send()` as a client that obeys a 503 gets it: sent again while the
    answer is 503 (nothing was written, says the server), for at most `timeout` seconds. After
    a restart each server thread meets its dead connection once: a write there is a 503."""
    deadline = time.monotonic() + timeout
    while (answer := send()).status_code == 503:
        assert time.monotonic() < deadline, f"still 503 after {timeout} s: {answer.text}"
        time.sleep(min(float(answer.headers.get("Retry-After", 1)), 0.5))  # Retry-After, bounded
    return answer


def _wait(condition, what: str):
    deadline = time.monotonic() + START_TIMEOUT
    while not (found := condition()):
        assert time.monotonic() < deadline, f"{what} did not happen"
        time.sleep(0.02)  # polling interval, not a synchronisation
    return found
