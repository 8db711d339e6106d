"""The documentation's commands work as written: every block marked runnable (```` ```sh
runnable ````, ```` ```console runnable ````) in the README or a page of the documentation site
(docs/, wherever a section moved) is run in a fresh checkout of the project's files (the
tracked files of this tree, copied: no database, no media, no compiled catalogue) with the
set-up of docs/getting-started.md, `.venv` (this one) and `DEBUG=1` in a shell of its own and
`manage.py migrate` done as `make run` does. A `sh` block must succeed; a `console` block's
commands (the lines after `$ `, a trailing backslash continuing them) must succeed and print
exactly what follows them. A block marked `runnable served` talks to the API of a running
server, as the REST API page's `$API` and `$TOKEN` say: it runs with a server of this tree
serving (tests/servers.py) and a librarian's token in them.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.servers import LiveServers, migrated_template

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```(sh|console) runnable( served)?\n(.*?)^```$",
                   re.MULTILINE | re.DOTALL)


def runnable_blocks(text: str) -> list[tuple[str, str, int, bool]]:
    """(kind, body, line, served) of each block marked runnable."""
    return [(m[1], m[3], text.count("\n", 0, m.start()) + 1, bool(m[2]))
            for m in BLOCK.finditer(text)]


def console_commands(body: str) -> list[tuple[str, str]]:
    """(command, expected output) of a console transcript."""
    found: list[tuple[str, list[str]]] = []
    continued = False
    for line in body.splitlines():
        if continued:
            found[-1] = (found[-1][0] + "\n" + line, found[-1][1])
        elif line.startswith("$ "):
            found.append((line[2:], []))
        elif found:
            found[-1][1].append(line)
        continued = line.endswith("\\") and (continued or line.startswith("$ "))
    return [(command, "\n".join(output)) for command, output in found]


def documentation() -> list[Path]:
    """The README and every page of the documentation site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


BLOCKS = [(kind, body, f"{path.relative_to(ROOT)} line {line}", served)
          for path in documentation()
          for kind, body, line, served in runnable_blocks(path.read_text())]


def test_the_documentation_marks_its_local_commands_runnable():
    """The marker is read, in every page: the librarian, fsck, fixity, the ibi command and the
    resumable upload against a server at least."""
    text = "\n".join(body for _kind, body, _line, _served in BLOCKS)
    for command in ("createlibrarian", "fsck", "fixity", "ibi encode", "ibi parse", "TusClient"):
        assert command in text, command
    assert any(served for _kind, _body, _where, served in BLOCKS)
    assert console_commands("$ a \\\n   b\nout 1\nout 2\n$ c\n") == [
        ("a \\\n   b", "out 1\nout 2"), ("c", "")]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A fresh checkout of the tracked files, migrated, and the documentation's shell
    environment."""
    scratch = tmp_path_factory.mktemp("fresh-clone")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                             capture_output=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (scratch / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, scratch / name)
    (scratch / ".venv").symlink_to(ROOT / ".venv")
    env = {"PATH": os.environ["PATH"], "HOME": str(scratch), "LANG": "C.UTF-8",
           "DEBUG": "1"}
    # The schema every migration makes, copied (the live servers' template): `migrate` then
    # applies nothing and makes this Archive's own archive service, as on a first `make run`.
    shutil.copyfile(migrated_template(), scratch / "db.sqlite3")
    subprocess.run([".venv/bin/python", "manage.py", "migrate", "--no-input", "-v", "0"],
                   cwd=scratch, env=env, check=True, capture_output=True, timeout=300)
    return scratch, env


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", command], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> dict[str, str]:
    """The REST API page's $API and $TOKEN: a server of this tree (gunicorn, its own database) and a
    librarian's token, as `make run` and `createlibrarian` give them."""
    with LiveServers(tmp_path_factory.mktemp("readme-server")) as servers:
        server = servers.start("readme")
        yield {"API": f"{server.url}/api", "TOKEN": server.librarian_token("alice")}


@pytest.mark.parametrize(("kind", "body", "where", "needs_server"), BLOCKS,
                         ids=[where for _kind, _body, where, _s in BLOCKS])
def test_a_runnable_block_of_the_documentation_works_as_written(request, fresh, kind, body,
                                                                where, needs_server):
    scratch, env = fresh
    if needs_server:
        env = {**env, **request.getfixturevalue("served")}
    if kind == "sh":
        done = _run(body, scratch, env)
        assert done.returncode == 0, done.stderr + done.stdout
        return
    for command, expected in console_commands(body):
        done = _run(command, scratch, env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.rstrip("\n") == expected, command
