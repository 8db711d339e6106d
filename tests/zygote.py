"""A live server's `manage.py`, started once (tests/servers.py `Server.manage`).

Django's start costs most of a second of CPU, and the live tests run a hundred commands. This
process sets Django up once in a server's settings (its environment), then forks a child per
command: the child runs the command exactly as `manage.py` would — its own process, its own
database connection, its standard output and error in the files it is given, its exit status
— and the state it leaves (caches, connections) dies with it.

Started with ``--bare`` it imports Django without setting it up, and a request may carry the
whole environment of its child (``"env"``): each child reads settings of its own, as
`manage.py` started with that environment would (tests/test_settings.py).

It serves too: gunicorn's arbiter in a child (``"serve": true``, its output appended to
``out``), which finds Django loaded and forks its workers from it (as ``--preload`` does, without
a second start); the caller signals it by its pid and asks for its end (``{"wait": pid,
"timeout": seconds}``).

Requests and answers are JSON lines: ``{"argv": [...], "out": path, "err": path}`` on standard
input; ``{"pid": n}`` when the child runs, ``{"rc": n}`` when it ended (a server's: ``{"rc":
null}`` if it runs still at the timeout). ``{"ready": true}`` first, once Django is set up (a
process that ends before it could not set Django up: the caller runs `manage.py` itself, whose
message is the one a test should see).

Started with ``--mother <fd>`` it forks such zygotes itself (tests/servers.py `_Mother`, one per
test process): each datagram on the socket `fd` is a server's environment with the socket its
zygote answers on. The first one's settings teach it what a set-up zygote imports; it imports
all of that but the project's own modules and what reads settings (no settings are set in it),
so a server's zygote, forked from it, sets Django up in a fraction of a second of CPU.
"""
from __future__ import annotations

import atexit
import gc
import json
import os
import select
import sys
import threading
import traceback


def _redirect(out: str, err: str, mode: int) -> None:
    for fd, path in ((1, out), (2, err)):
        opened = os.open(path, os.O_WRONLY | os.O_CREAT | mode, 0o600)
        os.dup2(opened, fd)
        os.close(opened)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)


def _serve(argv: list[str], log: str) -> int:
    """gunicorn <argv>, its master and workers in this forked child. The WSGI application
    (argv's first word) is loaded here first, its middleware and URLconf with it, as
    `--preload` loads it: each worker forked from the master finds it loaded (most of a second
    of CPU a worker saved). If it fails to load, each worker fails as gunicorn's would."""
    _redirect(log, log, os.O_APPEND)
    import importlib

    from django.db import connections
    from gunicorn.app.wsgiapp import WSGIApplication

    if argv and not argv[0].startswith("-"):
        try:
            importlib.import_module(argv[0].partition(":")[0])
        except Exception:  # noqa: BLE001, S110 (the workers load it again, and say why)
            pass
        connections.close_all()

    sys.argv = ["gunicorn", *argv]
    try:
        WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]", prog="gunicorn").run()
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


def _ended(pid: int, timeout: float) -> int | None:
    """The exit code of a child that ends within `timeout` seconds, else None."""
    handle = os.pidfd_open(pid)
    try:
        if not select.select([handle], [], [], timeout)[0]:
            return None
    finally:
        os.close(handle)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def _child(argv: list[str], out: str, err: str) -> int:
    _redirect(out, err, os.O_TRUNC)
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import ManagementUtility

    code = 0
    try:
        try:
            ManagementUtility(["manage.py", *argv]).execute()
        except ImproperlyConfigured as exc:  # as manage.py says it
            sys.exit(f"ImproperlyConfigured: {exc}")
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001 (what the interpreter does with an uncaught one)
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()  # as at a process's normal end (the access counter's flush …)
    sys.stdout.flush()
    sys.stderr.flush()
    return code


def _setup(bare: bool) -> None:
    """Django imported (bare) or set up in this process's settings, every command loaded."""
    if not bare:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ibirepo.settings")
    import django
    from django.core import checks
    from django.core.management import get_commands, load_command_class
    from django.db import connections
    from django.urls import get_resolver

    # Bare: Django imported, not set up; each child reads the settings of its own `env`.
    if not bare:
        django.setup()
        for name, app in get_commands().items():  # imported once, here, not in every child
            load_command_class(app, name)
        # The URLconf, and the views it imports: a command's system checks read it (half a
        # second of CPU in each child), and gunicorn's arbiter finds it loaded.
        get_resolver().url_patterns  # noqa: B018 (imported for its effect)
        # The system checks every command runs first, run once here: each child runs them
        # again, as manage.py would (the same messages), on what this run left cached (80 ms
        # of CPU less a command).
        checks.run_checks()
        connections.close_all()
    _freeze()
    assert threading.active_count() == 1, "a thread started with Django: a fork would lose it"


def _freeze() -> None:
    """What this process has made so far out of the cyclic collector's sight, before it forks:
    each child's collections then walk only what the child made, and leave the pages it
    shares with this process unwritten (Python's advice for forking servers, `gc.freeze`)."""
    gc.collect()
    gc.freeze()


def _serve_requests(requests, answers, bare: bool, forked: bool = False) -> None:
    answers.write(json.dumps({"ready": True}) + "\n")
    for line in requests:
        request = json.loads(line)
        if "wait" in request:
            answers.write(json.dumps({"rc": _ended(request["wait"], request["timeout"])}) + "\n")
            continue
        pid = os.fork()
        if pid == 0:
            answers.close()
            if forked:  # its socket, not held open by its children
                requests.close()
            if request.get("serve"):
                os._exit(_serve(request["argv"], request["out"]))
            if "env" in request:
                assert bare, "a zygote set up in its settings cannot take others"
                os.environ.clear()
                os.environ.update(request["env"])
            os._exit(_child(request["argv"], request["out"], request["err"]))
        answers.write(json.dumps({"pid": pid}) + "\n")
        if not request.get("serve"):
            answers.write(json.dumps({"rc": _ended(pid, None)}) + "\n")


# Imported by the project where first used, not at Django's start: a live server's first
# round of urlRequests or sign-in with ORCID would import it in each gunicorn worker (0.2 s of
# CPU each).
USED_LATER = ["aiohttp", "authlib.integrations.httpx_client"]


def _preload(names: list[str]) -> None:
    """The modules a set-up zygote imported, imported here without any settings (none are
    set: a module that reads them fails to import and is left to the zygote): each zygote
    forked from this process then finds them loaded. Django's own state (settings, apps) is
    left as `import django` leaves it."""
    import importlib

    from django.apps import apps
    from django.conf import settings

    for name in names:
        if name.split(".")[0] in ("archive", "ibirepo", "tests", "__main__") or \
                name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: BLE001, S110 (the zygote imports it in its settings)
            pass
    assert not settings.configured and not apps.ready, "a module read settings: not a mother"


def _learn(env: dict[str, str]) -> list[str]:
    """The modules a zygote in these settings imports (a child sets one up and tells)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        code = 1
        try:
            os.environ.clear()
            os.environ.update(env)
            _setup(bare=False)
            with os.fdopen(write, "w") as out:
                json.dump(list(sys.modules), out)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as found:
        text = found.read()
    os.waitpid(pid, 0)
    return json.loads(text) if text else []


def _mother(channel) -> None:
    """Zygotes forked on demand: each request on `channel` (a datagram socket) is a server's
    environment with the socket the zygote is to answer on; the answer is its pid. The first
    request's zygote teaches this process what to import first (`_learn`, `_preload`)."""
    import signal
    import socket

    import django  # noqa: F401 (imported, never set up here)

    def reap(*_args) -> None:  # the zygotes it forked (their CPU counted as its children's)
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass

    signal.signal(signal.SIGCHLD, reap)
    learned = False  # until a zygote could be set up in the settings asked
    while True:
        try:
            message, fds, _flags, _address = socket.recv_fds(channel, 1 << 20, 1)
        except OSError:
            return
        if not message:
            return
        env = json.loads(message)
        if not learned:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            names = _learn(env)
            signal.signal(signal.SIGCHLD, reap)
            if names:
                _preload(names + USED_LATER)
                _freeze()
                learned = True
        assert threading.active_count() == 1, "a thread started: a fork would lose it"
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                channel.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                devnull = os.open(os.devnull, os.O_RDWR)
                os.dup2(devnull, 0)
                os.dup2(devnull, 1)
                os.close(devnull)
                os.environ.clear()
                os.environ.update(env)
                requests = os.fdopen(os.dup(fds[0]), "r")
                answers = os.fdopen(fds[0], "w", buffering=1)
                try:
                    _setup(bare=False)
                except BaseException:  # noqa: BLE001 (no ready: the caller runs manage.py)
                    traceback.print_exc()
                else:
                    _serve_requests(requests, answers, bare=False, forked=True)
                    code = 0
            except BaseException:  # noqa: BLE001 (its end, told on its standard error)
                traceback.print_exc()
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)
        channel.send(json.dumps({"pid": pid}).encode())


def main() -> None:
    if sys.argv[1:2] == ["--mother"]:
        import socket

        _mother(socket.socket(fileno=int(sys.argv[2])))
        return
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)  # nothing Django prints while it starts mixes with the answers
    os.close(quiet)
    bare = sys.argv[1:] == ["--bare"]
    _setup(bare)
    _serve_requests(sys.stdin, answers, bare)


if __name__ == "__main__":
    main()
