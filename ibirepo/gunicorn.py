"""Optional gunicorn hooks: switch this Archive on when the server is ready, off when it stops.

    IBI_SWITCHON_RESOLVER=http://urlib.net IBI_SWITCHON_KEY=1234567890 \\
        gunicorn ibirepo.wsgi -c python:ibirepo.gunicorn

Off unless IBI_SWITCHON_RESOLVER is set. The hooks run `manage.py switchon` / `switchoff` as
child processes: the gunicorn master never loads Django (no database connection to share with
the workers it forks). switchon runs in the background because the resolver calls this Archive
back (inclusionConfirmationRequest) before it answers, and the workers must be up for that;
switchoff runs to its end (at most a minute) before the master exits.
"""
from __future__ import annotations

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
