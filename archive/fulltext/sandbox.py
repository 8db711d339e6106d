"""The worker (worker.py) run in a subprocess of its own, so that a hostile file costs at
most that process:

- limits: address space 1 GiB, 300 s of CPU, 1 GiB a written file, no core (set by the
  worker itself, first thing, on itself and every tool it starts: `worker.limit`);
- a wall-clock timeout (IBI_EXTRACT_TIMEOUT): past it the whole process group is killed;
- no network: in a network namespace of its own (`unshare -n` as root, `unshare -rn` in a
  user namespace otherwise) where the system allows one, and in any case with an
  environment without proxies; where neither namespace can be made, the worker still runs,
  without (`network_isolated()` says which, `manage.py extracttext` prints it);
- a temporary directory of its own, removed afterwards whatever happened: the file is copied
  into it from the storage (local disk or S3), and the tools write only there.

A job answers `Answer`: what the worker said, or why it said nothing (killed by a limit, the
timeout, a crash), an English reason that is stored as the file's.
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent  # where `archive` is importable from
MAX_ANSWER = 64 * 1024 * 1024  # bytes of JSON read back


@dataclass(frozen=True)
class Answer:
    data: dict
    error: str = ""


@functools.cache
def unshare() -> list[str]:
    """The command prefix that gives a process no network, or [] where none can be made."""
    tool = shutil.which("unshare")
    if tool is None:
        return []
    for prefix in ([tool, "-n", "--"], [tool, "-rn", "--"]):
        try:
            if subprocess.run([*prefix, "true"], capture_output=True, timeout=10,
                              check=False).returncode == 0:
                return prefix
        except (OSError, subprocess.TimeoutExpired):
            continue
    return []


def network_isolated() -> bool:
    return bool(unshare())


def environment(work: str) -> dict[str, str]:
    """A bare environment: no proxy, no credentials, one thread for Tesseract (its OpenMP
    threads would each reserve memory against the address-space limit)."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": work,
            "TMPDIR": work, "OMP_THREAD_LIMIT": "1", "MALLOC_ARENA_MAX": "2",
            "PYTHONHASHSEED": "0"}


@contextmanager
def workspace(source) -> Iterator[str]:
    """A temporary directory holding a copy of `source` (an open binary file) as `input`;
    removed on the way out, whatever happened."""
    work = tempfile.mkdtemp(prefix="ibi-extract-")
    try:
        os.chmod(work, 0o700)
        with open(os.path.join(work, "input"), "wb") as out:
            shutil.copyfileobj(source, out, 1024 * 1024)
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(work: str, job: str, kind: str, *args: str, timeout: float) -> Answer:
    """The worker's `job` on `work`/input, or why it gave no answer."""
    command = [*unshare(), sys.executable, "-E", "-s", "-m", "archive.fulltext.worker", job,
               os.path.join(work, "input"), kind, *args]
    process = subprocess.Popen(command, cwd=ROOT, env=environment(work), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        return Answer({}, f"took longer than {timeout:.0f} s")
    finally:
        _kill(process)  # whatever it left running in its group
    if process.returncode < 0:
        return Answer({}, _signalled(-process.returncode))
    try:
        data = json.loads(out[:MAX_ANSWER]) if out else {}
    except ValueError:
        data = {}
    if not isinstance(data, dict) or not data:
        last = err.decode("utf-8", "replace").strip().splitlines()
        return Answer({}, f"the extraction stopped ({last[-1] if last else process.returncode})"
                      [:500])
    return Answer(data, str(data.get("error", "")))


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _signalled(number: int) -> str:
    if number == signal.SIGXCPU:
        return "used more than 300 s of CPU"
    if number in (signal.SIGSEGV, signal.SIGABRT, signal.SIGKILL):
        return f"the extraction was stopped ({signal.Signals(number).name}: out of memory?)"
    return f"the extraction was stopped ({signal.Signals(number).name})"
