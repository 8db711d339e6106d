"""Optional gunicorn hooks: switch this Archive on when the server is ready, off when it stops.

    IBI_SWITCHON_RESOLVER=http://urlib.net IBI_SWITCHON_KEY=1234567890 \\
        gunicorn ibirepo.wsgi -c python:ibirepo.gunicorn

Off unless IBI_SWITCHON_RESOLVER is set. The hooks run `manage.py switchon` / `switchoff` as
child processes: the gunicorn master never loads Django (no database connection to share with
the workers it forks). switchon runs in the background because the resolver calls this Archive
back (inclusionConfirmationRequest) before it answers, and the workers must be up for that;
switchoff runs to its end (at most a minute) before the master exits.

`post_request` (always on) moves what a worker holds after its first request (Django, the
app, the citation styles: some 140 000 objects) out of the garbage collector's reach
(`gc.freeze`): otherwise every full collection walks them all, 70-200 ms on a small machine,
the slowest twentieth of the API's answers (bench/README.md, issue 40).
"""
from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

MANAGE = Path(__file__).resolve().parent.parent / "manage.py"


def _enabled() -> bool:
    return bool(os.environ.get("IBI_SWITCHON_RESOLVER", "").strip())


def when_ready(server) -> None:
    if _enabled():
        server.log.info("switching this Archive on at %s", os.environ["IBI_SWITCHON_RESOLVER"])
        subprocess.Popen([sys.executable, str(MANAGE), "switchon"], cwd=MANAGE.parent)


def on_exit(server) -> None:
    if _enabled():
        server.log.info("switching this Archive off at %s", os.environ["IBI_SWITCHON_RESOLVER"])
        try:
            subprocess.run([sys.executable, str(MANAGE), "switchoff"], cwd=MANAGE.parent,
                           timeout=60, check=False)
        except subprocess.TimeoutExpired:
            server.log.warning("switchoff did not finish within a minute")


_frozen = False


def post_request(worker, req, environ, resp) -> None:
    global _frozen
    if not _frozen:
        _frozen = True
        gc.freeze()
