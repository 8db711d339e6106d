"""`manage.py harvest` as a real process: killed mid-run it resumes at its last page; and a
harvest from a second Archive of this software on loopback."""
from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading

import httpx
import pytest
from django.core.management import call_command

from archive.models import AlternateIdentifier, HarvestSource, Item, RegisteredArchive
from tests import factories as make
from tests.conftest import subprocess_database_url
from tests.servers import FIRST_TOKEN, ROOT, LiveServers, ScriptedOai

ID = "oai:repositorio.example.br:123456789/"


def harvested() -> list[str]:
    return sorted(AlternateIdentifier.objects.filter(scheme="oai")
                  .values_list("value", flat=True))


def items() -> list[Item]:
    return list(Item.objects.filter(is_archive_service=False).order_by("pk"))


@pytest.mark.django_db(transaction=True)
def test_a_harvest_killed_mid_run_resumes_at_its_last_page(media, tmp_path):
    asked_second_page, release = threading.Event(), threading.Event()

    def hold(path, params):
        if params.get("resumptionToken") == FIRST_TOKEN and not release.is_set():
            asked_second_page.set()
            release.wait(60)
            return 500, {}, b"gone"
        return None

    env = {**os.environ, "DATABASE_URL": subprocess_database_url(), "MEDIA_ROOT": str(media),
           "TMPDIR": str(tmp_path)}
    with ScriptedOai(script=hold) as source:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "harvest", source.base, "--report",
             str(tmp_path / "first.csv")], cwd=ROOT, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert asked_second_page.wait(60), "the harvest never asked for its second page"
            process.send_signal(signal.SIGKILL)  # a crash: no clean-up runs
            process.wait(30)
        finally:
            release.set()
            if process.poll() is None:
                process.kill()
        assert process.returncode == -signal.SIGKILL
        assert HarvestSource.objects.get().resumption_token == FIRST_TOKEN
        assert harvested() == [f"{ID}42", f"{ID}43"]
        source.asked.clear()
        out = io.StringIO()
        call_command("harvest", source.base, "--report", str(tmp_path / "second.csv"),
                     stdout=out, stderr=io.StringIO())
        assert "2 imported" in out.getvalue()
        first = next(p for _path, p in source.asked if p.get("verb") == "ListRecords")
        assert first == {"verb": "ListRecords", "resumptionToken": FIRST_TOKEN}
    assert HarvestSource.objects.get().resumption_token == ""
    assert harvested() == [f"{ID}{n}" for n in (42, 43, 44, 45)] and len(items()) == 4


@pytest.fixture(scope="module")
def origin(tmp_path_factory):
    with LiveServers(tmp_path_factory.mktemp("origin")) as servers:
        yield servers.start("origin")


@pytest.mark.django_db
def test_a_harvest_from_another_archive_of_this_software(origin, tmp_path):
    token = origin.librarian_token()
    kept = make.deposited(origin, token, "Relatório A", ("a.pdf", b"%PDF a"),
                          creator="Banon, Gerald", language="pt-BR", date="2009-02")
    gone = make.deposited(origin, token, "Relatório B", ("b.pdf", b"%PDF b"))
    # Its items carry their IBIs (#41, 5): registered here, it is their Original's Archive,
    # and the harvest keeps them as Copies under those IBIs, minting none.
    RegisteredArchive.objects.create(archive_service_ibi=origin.archive_service_ibi(),
                                     key_hash="x" * 64, address=origin.address)
    out = io.StringIO()
    call_command("harvest", f"{origin.url}/oai", "--report", str(tmp_path / "a.csv"),
                 stdout=out, stderr=io.StringIO())
    assert "2 imported" in out.getvalue() and "metadata only" in out.getvalue(), out.getvalue()
    first, second = items()
    assert (first.title, first.language, first.dc("creator"), first.dc("date")) == (
        "Relatório A", "pt-BR", ["Banon, Gerald"], ["2009-02"])
    assert (first.ibi, first.ibip, first.state, first.source_archive) == (
        kept["ibi"], kept["ibip"], "Copy", origin.url)
    assert [f.name for f in first.files.all()] == ["a.pdf"]
    response = httpx.request("DELETE", f"{origin.url}/api/items/{gone['ibi']}",
                             headers={"Authorization": f"Token {token}"}, timeout=30)
    assert response.status_code == 200, response.text
    out = io.StringIO()
    call_command("harvest", f"{origin.url}/oai", "--report", str(tmp_path / "b.csv"),
                 stdout=out, stderr=io.StringIO())
    assert "1 deleted" in out.getvalue(), out.getvalue()
    second.refresh_from_db()
    assert second.is_deleted and len(items()) == 2
