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
"""
from __future__ import annotations

import atexit
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
    """gunicorn <argv>, its master and workers in this forked child."""
    _redirect(log, log, os.O_APPEND)
    from gunicorn.app.wsgiapp import WSGIApplication

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


def main() -> None:
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)  # nothing Django prints while it starts mixes with the answers
    os.close(quiet)
    bare = sys.argv[1:] == ["--bare"]
    if not bare:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ibirepo.settings")
    import django
    from django.core.management import get_commands, load_command_class
    from django.db import connections

    # Bare: Django imported, not set up; each child reads the settings of its own `env`.
    if not bare:
        django.setup()
        for name, app in get_commands().items():  # imported once, here, not in every child
            load_command_class(app, name)
        connections.close_all()
    assert threading.active_count() == 1, "a thread started with Django: a fork would lose it"
    answers.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        if "wait" in request:
            answers.write(json.dumps({"rc": _ended(request["wait"], request["timeout"])}) + "\n")
            continue
        pid = os.fork()
        if pid == 0:
            answers.close()
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


if __name__ == "__main__":
    main()
