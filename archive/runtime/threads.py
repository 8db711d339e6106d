"""A helper thread of this process (#40, 4): the one way the app runs work beside requests.

`Helper(name, work)` is a daemon thread that runs `work` each time it is woken (`wake`), and
waits otherwise. It starts at the first wake, not at import (nothing runs at import time), and
again in a forked child (gunicorn's and Celery's workers are forks; threads do not follow
one) at its first wake there. A `work` that raised is logged, the thread going on waiting.
Wakes that come while `work` runs make one more run, not one each: `work` takes whatever is
waiting.
"""
from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable

logger = logging.getLogger(__name__)


class Helper:
    """A daemon thread named `name` that runs `work` whenever it is woken."""

    def __init__(self, name: str, work: Callable[[], object]) -> None:
        self.name, self.work = name, work
        self._forget()
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        """No thread yet, and locks nobody holds: at the start, and in a forked child (the
        parent's thread did not follow, and may have held the lock at the fork)."""
        self._woken = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def wake(self) -> None:
        """Have `work` run soon, in the helper thread (started if it is not running)."""
        thread = self._thread
        if thread is None or not thread.is_alive():  # rare: the lock only then
            with self._lock:
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._run, name=self.name,
                                                    daemon=True)
                    self._thread.start()
        self._woken.set()

    def _run(self) -> None:
        while True:
            self._woken.wait()
            self._woken.clear()
            try:
                self.work()
            except Exception:  # the thread outlives one failure; the next wake runs it again
                logger.exception("the %s thread's work failed", self.name)
