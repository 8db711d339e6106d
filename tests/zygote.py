"""A live server's `manage.py`, started once (tests/servers.py `Server.manage`).

Django's start costs most of a second of CPU, and the live tests run a hundred commands. This
process sets Django up once in a server's settings (its environment), then forks a child per
command: the child runs the command exactly as `manage.py` would — its own process, its own
database connection, its standard output and error in the files it is given, its exit status
— and the state it leaves (caches, connections) dies with it.

Requests and answers are JSON lines: ``{"argv": [...], "out": path, "err": path}`` on standard
input; ``{"pid": n}`` when the child runs, ``{"rc": n}`` when it ended. ``{"ready": true}``
first, once Django is set up (a process that ends before it could not set Django up: the
caller runs `manage.py` itself, whose message is the one a test should see).
"""
from __future__ import annotations

import atexit
import json
import os
import sys
import threading
import traceback


def _child(argv: list[str], out: str, err: str) -> int:
    for fd, path in ((1, out), (2, err)):
        opened = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(opened, fd)
        os.close(opened)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
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
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ibirepo.settings")
    import django
    from django.core.management import get_commands, load_command_class
    from django.db import connections

    django.setup()
    for name, app in get_commands().items():  # imported once, here, not in every child
        load_command_class(app, name)
    connections.close_all()
    assert threading.active_count() == 1, "a thread started with Django: a fork would lose it"
    answers.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            answers.close()
            os._exit(_child(request["argv"], request["out"], request["err"]))
        answers.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        answers.write(json.dumps({"rc": os.waitstatus_to_exitcode(status)}) + "\n")


if __name__ == "__main__":
    main()
