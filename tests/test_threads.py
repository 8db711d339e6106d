"""The one helper thread (archive/runtime/threads.py, #40 4): started at the first wake, run
again at each wake, alive after a work that raised, started again once it is gone."""
from __future__ import annotations

import os
import threading

from archive.runtime.threads import Helper


def test_it_runs_its_work_at_each_wake_and_outlives_a_failure(caplog):
    runs, ran = [], threading.Semaphore(0)

    def work():
        runs.append(threading.current_thread().name)
        ran.release()
        if len(runs) == 1:
            raise RuntimeError("first run fails")

    helper = Helper("test-helper", work)
    assert helper._thread is None  # nothing runs before it is needed
    helper.wake()
    assert ran.acquire(timeout=10)
    helper.wake()
    assert ran.acquire(timeout=10)
    assert runs == ["test-helper", "test-helper"]
    assert helper._thread.daemon and helper._thread.is_alive()
    assert "the test-helper thread's work failed" in caplog.text


def test_a_helper_gone_is_started_again_at_the_next_wake():
    ran = threading.Semaphore(0)
    helper = Helper("test-gone", ran.release)
    gone = threading.Thread(target=lambda: None)
    gone.start()
    gone.join()
    helper._thread = gone  # as after a fork: the thread object is there, its thread is not
    helper.wake()
    assert ran.acquire(timeout=10)
    assert helper._thread is not gone and helper._thread.is_alive()


def test_a_forked_child_runs_its_work_in_a_thread_of_its_own():
    ran = threading.Event()
    helper = Helper("test-fork", ran.set)
    helper.wake()
    assert ran.wait(timeout=10)
    ran.clear()
    pid = os.fork()
    if pid == 0:  # the child: the parent's thread did not follow
        try:
            helper.wake()
            os._exit(0 if ran.wait(timeout=10) and helper._thread.is_alive() else 1)
        finally:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
