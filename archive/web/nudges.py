"""Celery tasks published off the request's thread: a broker that is down or hangs never holds
a reader or a librarian (issue #30, 4).

What must be done is first written to the database (the acknowledgments owed, the copies
asked for); the message that tells a worker to do it now is only a nudge. `soon(task, *args)`
hands it to this process's nudging thread (runtime/threads.py), which publishes it (within
the broker's timeouts, CELERY_BROKER_TIMEOUT, and without retrying) and then rests
NUDGE_SECONDS: however many
requests ask, a worker gets at most one message per task, arguments and second from a
process. A nudge lost (the broker down) only delays the work until the next nudge, or until
the beat's periodic run finds it in the database. Without a broker (tasks in process), the
task runs at once, in the request, as Celery's eager mode does.
"""
from __future__ import annotations

import logging
import threading
import time

from ..runtime.threads import Helper

logger = logging.getLogger(__name__)

NUDGE_SECONDS = 1.0

_lock = threading.Lock()
_wanted: dict[tuple, tuple] = {}  # (task name, args) → (task, args), to publish


def soon(task, *args) -> None:
    """Have a worker run `task(*args)` soon; never waits for the broker."""
    if task.app.conf.task_always_eager:
        task.delay(*args)
        return
    with _lock:
        _wanted[(task.name, args)] = (task, args)
    _helper.wake()


def _nudge() -> None:
    with _lock:
        wanted = list(_wanted.values())
        _wanted.clear()
    for task, args in wanted:
        try:
            task.apply_async(args, retry=False)
        except Exception as exc:  # the broker down or hung: the beat's run does it later
            logger.warning("%s not published (%s: %s); the next nudge or the periodic "
                           "run does it", task.name, type(exc).__name__, exc)
    time.sleep(NUDGE_SECONDS)  # a rest, not a synchronisation: what comes meanwhile waits


_helper = Helper("ibi-nudges", _nudge)
