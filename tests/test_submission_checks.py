"""The checks before review (issue 35, 6), from real files and real tools: siegfried names a
file's format from its content (a PNG named .pdf is a PNG), pypdf reads a PDF's text layer,
ClamAV's clamscan finds a signature that `sigtool` made here from a test file (none is ever
downloaded), a duplicate title and creator is found among items and open submissions. A
failing check stops a submission only where the collection's workflow makes it blocking."""
from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from archive.models import ProfileField, Submission, SubmissionCheck, Task, Transition
from archive.review import checking, checks, tools
from archive.review import services as review
from archive.review.checks import Candidate, Identified, Result, Scan
from tests import factories as make

SUBMISSIONS, TASKS = "/api/submissions/", "/api/tasks/"
SAMPLE = b"IBI test sample: not a virus, the signature is made from these bytes by sigtool\n"


# -- The decisions, pure ----------------------------------------------------------------------

PDF = Identified("fmt/17", "application/pdf", "Acrobat PDF 1.3 - Portable Document Format")
PNG = Identified("fmt/11", "image/png", "Portable Network Graphics")


def test_a_format_is_judged_by_its_content_against_the_accepted_ones():
    assert checks.format_result("tese.pdf", PDF, ["application/pdf"]).outcome == checks.PASS
    assert checks.format_result("tese.pdf", PDF, ["fmt/17"]).outcome == checks.PASS
    refused = checks.format_result("tese.pdf", PNG, ["application/pdf", "fmt/276"])
    assert refused.outcome == checks.FAIL and refused.details["puid"] == "fmt/11"
    assert "Portable Network Graphics" in refused.text()
    # Any format accepted: a content unlike its name is a warning, an unknown one too.
    assert checks.format_result("tese.pdf", PNG, []).outcome == checks.WARN
    assert checks.format_result("x.bin", Identified(""), []).outcome == checks.WARN
    assert checks.format_result("x.bin", Identified(""), ["fmt/17"]).outcome == checks.FAIL


def test_a_text_layer_passes_none_warns():
    assert checks.text_layer_result("a.pdf", "Resumo", pages=1).outcome == checks.PASS
    assert checks.text_layer_result("a.pdf", " \n", pages=1).outcome == checks.WARN
    assert checks.text_layer_result("a.pdf", None).outcome == checks.WARN


def test_clamscan_s_answer_is_read_file_by_file():
    paths = {"/u/a": "a", "/u/b": "b"}
    assert checks.clamscan_output(paths, 0, "/u/a: OK\n/u/b: OK\n") == {
        "a": Scan(True), "b": Scan(True)}
    found = checks.clamscan_output(paths, 1, "/u/a: Test.Sig FOUND\n/u/b: OK\n")
    assert found == {"a": Scan(True, "Test.Sig"), "b": Scan(True)}
    # An error (no database): nothing is clean that was not said to be.
    failed = checks.clamscan_output(paths, 2, "", "LibClamAV Error: no database\n")
    assert failed["a"] == Scan(False, error="LibClamAV Error: no database")
    assert checks.virus_result("a", failed["a"]).outcome == checks.NOT_RUN


def test_a_duplicate_has_the_same_title_and_a_creator_in_common():
    item = Candidate("item", "ibi/1", "Avaliação da seca, 2012", ("Silva, Ana",))
    assert checks.duplicate_result("avaliacao da SECA 2012", ["Ana Silva"],
                                   [item]).outcome == checks.WARN
    assert checks.duplicate_result("Avaliação da seca, 2012", ["Souza, Bia"],
                                   [item]).outcome == checks.PASS
    assert checks.duplicate_result("Outra", ["Silva, Ana"], [item]).outcome == checks.PASS


def test_only_a_blocking_check_blocks_and_an_unscanned_file_only_when_required():
    failed = Result(checks.FORMAT, checks.FAIL, "x")
    unscanned = Result(checks.VIRUS, checks.NOT_RUN, "x")
    assert checks.blocking([failed], [checks.VIRUS]) is None
    assert checks.blocking([failed], [checks.FORMAT]) == failed
    assert checks.blocking([unscanned], [checks.VIRUS]) is None
    assert checks.blocking([unscanned], [checks.VIRUS], unscanned_blocks=True) == unscanned
    assert checks.blocking([unscanned], [checks.FORMAT], unscanned_blocks=True) is None


# -- Through the API, with the real tools -------------------------------------------------------

@pytest.fixture
def place(settings, tmp_path, django_capture_on_commit_callbacks, eager_tasks):
    """"teses", reviewed once: alice submits, rita reviews; ClamAV's database is one
    signature, of SAMPLE, made by sigtool."""
    settings.IBI_CLAMAV_DB = str(make.clamav_database(tmp_path / "clamav", SAMPLE))
    settings.IBI_CLAMSCAN = "clamscan"
    teses = make.collection("teses", make.community("ppg"))
    workflow = make.reviewed(teses, submitter="Students", reviewer="Reviewers")
    people = {name: make.person(name, *groups) for name, groups in (
        ("alice", ["Students"]), ("rita", ["Reviewers"]))}
    return {"teses": teses, "workflow": workflow, "people": people,
            "api": {name: make.token_client(user) for name, user in people.items()},
            "commits": django_capture_on_commit_callbacks}


def _sent(place, who: str, method: str, url: str, data: dict | None = None):
    """A request, its transaction's on-commit work done (the nudge of the checks, run in
    process: no broker here)."""
    with place["commits"](execute=True):
        return getattr(place["api"][who], method)(url, data or {}, format="json", secure=True)


def _read(place, pk: int, **headers) -> dict:
    return place["api"]["alice"].get(f"{SUBMISSIONS}{pk}", secure=True, **headers).json()


def _draft(place, *files, title: str = "Uma tese sobre jabuticabas", **fields) -> dict:
    alice = place["people"]["alice"]
    ids = [str(make.pending_upload(alice, spec).pk) for spec in files]
    made = _sent(place, "alice", "post", SUBMISSIONS, {
        "collection": "teses", "title": title, "files": ids,
        "metadata": [{"field": "dc.creator", "value": "Silva, Alice"}],
        "licence_text": make.LICENCE, "licence_accepted": True, **fields})
    assert made.status_code == 201, made.content
    assert made.json()["checks_due"] is not None  # not run in the request
    return _read(place, made.json()["id"])


def _checks(body: dict, name: str) -> dict[str, dict]:
    """A check's results by file name ("" for the submission's own)."""
    return {row["file_name"]: row for row in body["checks"] if row["name"] == name}


@pytest.mark.django_db
def test_each_file_is_checked_from_its_content_and_the_results_are_shown(place):
    body = _draft(place, ("tese.pdf", make.pdf("Resumo: jabuticabas do cerrado")),
                  ("digitalizada.pdf", make.pdf(None)), ("foto.pdf", make.png()),
                  ("anexo.dat", SAMPLE))
    assert body["checks_due"] is None  # run once the draft was committed
    formats = _checks(body, "format")
    assert formats["tese.pdf"]["outcome"] == "pass"
    assert formats["tese.pdf"]["details"]["puid"] == "fmt/17"
    # Its name says PDF, its content is a PNG: siegfried reads the content.
    assert formats["foto.pdf"]["outcome"] == "warn"
    assert formats["foto.pdf"]["details"] == {"puid": "fmt/11", "mime": "image/png",
                                              "format": "Portable Network Graphics"}
    layers = _checks(body, "text_layer")
    assert set(layers) == {"tese.pdf", "digitalizada.pdf"}  # the PNG is no PDF
    assert layers["tese.pdf"]["outcome"] == "pass"
    assert layers["digitalizada.pdf"]["outcome"] == "warn"
    assert "scanned" in layers["digitalizada.pdf"]["message"]
    viruses = _checks(body, "virus")
    assert viruses["anexo.dat"]["outcome"] == "fail"
    assert viruses["anexo.dat"]["details"]["signature"].startswith("ibi-test-sample")
    assert {viruses[n]["outcome"] for n in ("tese.pdf", "digitalizada.pdf", "foto.pdf")} == {
        "pass"}
    assert _checks(body, "required_fields")[""]["outcome"] == "pass"
    assert _checks(body, "duplicate")[""]["outcome"] == "pass"
    # The same, read again, and in Portuguese for a Brazilian reader.
    again = _read(place, body["id"], HTTP_ACCEPT_LANGUAGE="pt-BR")
    pt = _checks(again, "text_layer")["digitalizada.pdf"]["message"]
    assert "digitalizado" in pt and "scanned" not in pt


@pytest.mark.django_db
def test_a_format_the_collection_does_not_accept_fails(place):
    place["workflow"].accepted_formats = "application/pdf\nfmt/276"
    place["workflow"].save()
    body = _draft(place, ("foto.pdf", make.png()), ("tese.pdf", make.pdf("Texto")),
                  ("falsa.pdf", b"only a name: no PDF in these bytes\n"), ("vazio.pdf", b""))
    formats = _checks(body, "format")
    assert formats["foto.pdf"]["outcome"] == "fail"
    assert "fmt/11" in formats["foto.pdf"]["message"]
    assert formats["tese.pdf"]["outcome"] == "pass"
    # Named .pdf, but siegfried finds text in the bytes; in an empty file, nothing at all
    # (its match by the name alone is no identification).
    assert formats["falsa.pdf"]["outcome"] == "fail"
    assert formats["falsa.pdf"]["details"]["puid"] == "x-fmt/111"
    assert formats["vazio.pdf"]["outcome"] == "fail"
    assert "could not be identified from its content" in formats["vazio.pdf"]["message"]
    assert set(_checks(body, "text_layer")) == {"tese.pdf"}


@pytest.mark.django_db
def test_a_blocking_check_refuses_the_submission_with_400_and_changes_nothing(place):
    place["workflow"].accepted_formats = "application/pdf"
    place["workflow"].blocking_checks = ["format"]
    place["workflow"].save()
    body = _draft(place, ("foto.pdf", make.png()))
    submission = Submission.objects.get(pk=body["id"])
    before = (submission.state, submission.version, Transition.objects.filter(
        submission=submission).count(), Task.objects.filter(submission=submission).count())
    refused = _sent(place, "alice", "post", f"{SUBMISSIONS}{body['id']}/submit")
    assert refused.status_code == 400
    assert refused.json()["detail"].startswith("format: foto.pdf is Portable Network Graphics")
    submission.refresh_from_db()
    assert (submission.state, submission.version, Transition.objects.filter(
        submission=submission).count(), Task.objects.filter(
        submission=submission).count()) == before
    # The file replaced by a PDF: checked again, and it goes through.
    pdf = make.pending_upload(place["people"]["alice"], ("tese.pdf", make.pdf("Texto")))
    changed = _sent(place, "alice", "patch", f"{SUBMISSIONS}{body['id']}", {
        "version": submission.version, "files": [str(pdf.pk)]})
    assert changed.status_code == 200
    assert _checks(_read(place, body["id"]), "format")["tese.pdf"]["outcome"] == "pass"
    submitted = _sent(place, "alice", "post", f"{SUBMISSIONS}{body['id']}/submit")
    assert submitted.status_code == 200 and submitted.json()["state"] == "in_review"


@pytest.mark.django_db
def test_a_failing_check_that_does_not_block_only_warns_and_the_reviewer_sees_it(place):
    place["workflow"].blocking_checks = ["format"]
    place["workflow"].save()
    body = _draft(place, ("anexo.dat", SAMPLE))  # infected, but the scan does not block here
    submitted = _sent(place, "alice", "post", f"{SUBMISSIONS}{body['id']}/submit")
    assert submitted.status_code == 200 and submitted.json()["state"] == "in_review"
    [task] = place["api"]["rita"].get(TASKS, secure=True).json()["results"]
    assert _checks(task["submission"], "virus")["anexo.dat"]["outcome"] == "fail"


@pytest.mark.django_db
def test_an_infected_file_blocks_where_the_virus_scan_does(place):
    place["workflow"].blocking_checks = ["virus"]
    place["workflow"].save()
    body = _draft(place, ("anexo.dat", SAMPLE))
    refused = _sent(place, "alice", "post", f"{SUBMISSIONS}{body['id']}/submit")
    assert refused.status_code == 400 and refused.json()["detail"].startswith(
        "virus: anexo.dat is infected: ibi-test-sample")
    assert Submission.objects.get(pk=body["id"]).state == "draft"


@pytest.mark.django_db
def test_an_infected_upload_is_shown_as_a_failure_to_the_submitter_and_the_reviewer(place):
    """Through the pages: a file sent with /submit/'s form is checked once the save commits
    (the page nudges the checks), and each result is listed, its message in the reader's
    language, on the submitter's page and on the reviewer's task page."""
    place["teses"].deposit_licence = make.LICENCE
    place["teses"].save()
    alice, rita = Client(), Client()
    alice.force_login(place["people"]["alice"])
    rita.force_login(place["people"]["rita"])
    made = alice.post("/submit/", {"collection": "teses"}, secure=True)
    page = made["Location"].split("?")[0]
    submission = Submission.objects.get(owner=place["people"]["alice"])
    with place["commits"](execute=True):
        saved = alice.post(page, {
            "version": submission.version, "title": "Uma tese sobre jabuticabas",
            "accept_licence": "on",
            "action": "submit", "upload": [SimpleUploadedFile("anexo.dat", SAMPLE),
                                           SimpleUploadedFile("tese.pdf", make.pdf("Texto"))]},
            secure=True)
    assert saved.status_code == 302, saved.content.decode()
    assert Submission.objects.get(pk=submission.pk).checks_due is None  # run after the commit
    task = Task.objects.get(submission=submission, closed__isnull=True)

    for client, url in ((alice, page), (rita, f"/review/{task.pk}/")):
        html = client.get(url, secure=True, HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
        results = html.split('<ul class="check-results">', 1)[1].split("</ul>", 1)[0]
        rows = [" ".join(re.sub(r"<[^>]+>", "", li).split())
                for li in results.split("<li>")[1:]]
        # The failure first: the outcome, the check, the file, the message in Portuguese.
        assert rows[0].startswith("Reprovada Busca de vírus (arquivo anexo.dat): anexo.dat está "
                                  "infectado: ibi-test-sample"), (url, rows)
        assert "Aprovada Busca de vírus (arquivo tese.pdf): tese.pdf: nenhum vírus encontrado" \
            in rows, (url, rows)
        assert not any("virus" in row for row in rows)  # not one word left in English


@pytest.mark.django_db
def test_without_clamscan_the_scan_is_not_run_and_blocks_only_when_required(place, settings):
    settings.IBI_CLAMSCAN = "no-such-clamscan"
    place["workflow"].blocking_checks = ["virus"]
    place["workflow"].save()
    first = _draft(place, ("tese.pdf", make.pdf("Texto")))
    unscanned = _checks(first, "virus")["tese.pdf"]
    assert unscanned["outcome"] == "not_run" and "not installed" in unscanned["message"]
    settings.IBI_VIRUS_SCAN_REQUIRED = True
    refused = _sent(place, "alice", "post", f"{SUBMISSIONS}{first['id']}/submit")
    assert refused.status_code == 400 and refused.json()["detail"].startswith("virus:")
    settings.IBI_VIRUS_SCAN_REQUIRED = False
    taken = _sent(place, "alice", "post", f"{SUBMISSIONS}{first['id']}/submit")
    assert taken.status_code == 200


@pytest.mark.django_db
def test_clamscan_without_a_database_scans_nothing(place, settings, tmp_path):
    settings.IBI_CLAMAV_DB = str(tmp_path / "empty")
    (tmp_path / "empty").mkdir()
    scans = tools.scan({str(make.clamav_database(tmp_path / "s", SAMPLE).parent
                            / "ibi-test-sample"): "a"})
    assert scans["a"].ran is False and scans["a"].error


@pytest.mark.django_db
def test_a_likely_duplicate_of_an_item_or_an_open_submission_warns(place):
    item = make.item(title="Avaliação da Seca no Cerrado",
                     dc={"creator": ["Silva, Alice"]})
    body = _draft(place, title="avaliacao da seca no cerrado")
    duplicate = _checks(body, "duplicate")[""]
    assert duplicate["outcome"] == "warn" and item.ibi in duplicate["message"]
    assert duplicate["details"] == {"kind": "item", "ref": item.ibi}
    # A new edition of that item has its title and creator, and is no duplicate of it (only
    # of the open submission above).
    edition = _draft(place, title="Avaliação da Seca no Cerrado", previous_edition=item.ibi)
    assert _checks(edition, "duplicate")[""]["details"] == {"kind": "submission",
                                                           "ref": str(body["id"])}
    other = _draft(place, title="Jabuticabas: um estudo")
    again = _draft(place, title="JABUTICABAS um estudo")
    assert _checks(other, "duplicate")[""]["outcome"] == "pass"
    assert _checks(again, "duplicate")[""]["details"] == {"kind": "submission",
                                                         "ref": str(other["id"])}


@pytest.mark.django_db
def test_the_profile_s_required_fields_are_a_check(place):
    profile = make.profile("exigente", "dc.creator", "dc.subject")
    ProfileField.objects.filter(profile=profile, field__element="subject").update(required=True)
    place["teses"].profile = profile
    place["teses"].save()
    missing = _checks(_draft(place), "required_fields")[""]
    assert missing["outcome"] == "fail" and "dc.subject" in missing["message"]
    filled = _draft(place, metadata=[{"field": "dc.creator", "value": "Silva, Alice"},
                                     {"field": "dc.subject", "value": "Botânica"}])
    assert _checks(filled, "required_fields")[""]["outcome"] == "pass"


@pytest.mark.django_db
def test_a_change_makes_the_checks_due_and_a_run_over_a_changed_content_keeps_nothing(
        place, monkeypatch):
    body = _draft(place, ("tese.pdf", make.pdf("Texto")))
    submission = Submission.objects.get(pk=body["id"])
    review.submission_update(user=place["people"]["alice"], submission=submission,
                             version=submission.version, title="Outro título")
    submission.refresh_from_db()
    assert submission.checks_due is not None
    # The results kept describe the old title: not shown for the new one.
    assert _read(place, body["id"])["checks"] == []
    # A run during which the content changes again keeps nothing over it.
    real = checking.results_of

    def changed_meanwhile(sub, names=checks.CHECKS):
        found = real(sub, names)
        Submission.objects.filter(pk=sub.pk).update(title="Terceiro título")
        return found

    monkeypatch.setattr(checking, "results_of", changed_meanwhile)
    assert checking.run(submission.pk) is None
    assert not SubmissionCheck.objects.filter(submission=submission, fingerprint=checks.fingerprint(
        Submission.objects.get(pk=submission.pk))).exists()
    monkeypatch.setattr(checking, "results_of", real)
    # The beat's run finds it due and checks it.
    assert checking.run_due() == 1
    submission.refresh_from_db()
    assert submission.checks_due is None
    assert {r["name"] for r in _read(place, body["id"])["checks"]} == {
        "required_fields", "format", "text_layer", "virus", "duplicate"}


@pytest.mark.django_db
def test_claiming_and_approving_run_no_check(place, monkeypatch):
    body = _draft(place, ("tese.pdf", make.pdf("Texto")))
    alice, rita = place["people"]["alice"], place["people"]["rita"]
    review.submit(user=alice, submission=Submission.objects.get(pk=body["id"]))
    checking.run(body["id"])  # what the nudge after the submission does

    def no_tool(*args, **kwargs):
        raise AssertionError("a tool ran in a claim or an approval")

    for name in ("identify", "pdf_text", "scan"):
        monkeypatch.setattr(tools, name, no_tool)
    task = Task.objects.get(submission_id=body["id"], closed__isnull=True)
    with CaptureQueriesContext(connection) as queries:
        review.task_act(user=rita, task=task, action="claim")
    assert not any("submissioncheck" in q["sql"] for q in queries.captured_queries)
    review.task_act(user=rita, task=Task.objects.get(pk=task.pk), action="approve")
    assert Submission.objects.get(pk=body["id"]).state == "published"


@pytest.mark.django_db
def test_the_schema_describes_the_checks(anonymous_api):
    schema = json.loads(anonymous_api.get("/api/schema/", {"format": "json"},
                                          secure=True).content)
    components = schema["components"]["schemas"]
    assert "checks" in components["Submission"]["properties"]
    assert components["Submission"]["properties"]["checks"]["items"]["$ref"].endswith(
        "/SubmissionCheck")
    assert set(components["SubmissionCheck"]["properties"]) == {
        "name", "file", "file_name", "outcome", "message", "details", "at"}


@pytest.mark.django_db
def test_a_librarian_sets_the_accepted_formats_and_the_blocking_checks_in_the_admin(
        place, librarian_client):
    url = f"/admin/archive/workflow/{place['workflow'].pk}/change/"
    form = {"collection": place["teses"].pk, "kind": "single", "publish_on": "",
            "accepted_formats": "application/pdf, pdf", "blocking_checks": ["virus"]}
    refused = librarian_client.post(url, form, secure=True)
    assert refused.status_code == 200 and "pdf is neither a PRONOM id" in refused.content.decode()
    place["workflow"].refresh_from_db()
    assert place["workflow"].blocking_checks == []
    saved = librarian_client.post(url, {**form, "accepted_formats": "application/pdf\nfmt/276",
                                        "blocking_checks": ["virus", "format"]}, secure=True)
    assert saved.status_code == 302
    place["workflow"].refresh_from_db()
    assert place["workflow"].accepted_formats == "application/pdf\nfmt/276"
    assert sorted(place["workflow"].blocking_checks) == ["format", "virus"]
    # The submission's page shows its checks to the librarian.
    body = _draft(place, ("anexo.dat", SAMPLE))
    page = librarian_client.get(f"/admin/archive/submission/{body['id']}/change/",
                                secure=True).content.decode()
    assert "anexo.dat is infected: ibi-test-sample" in page


def test_a_pdf_pypdf_cannot_read_is_a_warning_not_a_crash(tmp_path):
    broken = tmp_path / "quebrado.pdf"
    broken.write_bytes(make.pdf("Texto")[:200])  # cut short: no cross-reference, no trailer
    text, pages = tools.pdf_text(broken)
    assert (text, pages) == (None, 0)
    assert checks.text_layer_result("quebrado.pdf", text).outcome == checks.WARN


@pytest.mark.django_db
def test_one_submission_whose_checks_fail_leaves_the_others_checked(place, monkeypatch):
    first, second = _draft(place, title="Primeira"), _draft(place, title="Segunda")
    Submission.objects.update(checks_due="2026-01-01T00:00:00Z")
    real = checking.run

    def failing_first(pk):
        if pk == first["id"]:
            raise OSError("disk gone")
        return real(pk)

    monkeypatch.setattr(checking, "run", failing_first)
    assert checking.run_due() == 1
    due = dict(Submission.objects.values_list("pk", "checks_due"))
    assert due[first["id"]] is not None and due[second["id"]] is None


@pytest.mark.django_db
def test_a_file_still_uploading_is_not_checked_yet(place):
    from archive.deposit import pending

    waiting = pending.create(owner=place["people"]["alice"], name="grande.pdf", length=10)
    made = _sent(place, "alice", "post", SUBMISSIONS, {
        "collection": "teses", "title": "Uma tese", "files": [str(waiting.pk)]})
    assert made.status_code == 201, made.content
    body = _read(place, made.json()["id"])
    assert _checks(body, "format")["grande.pdf"]["outcome"] == "not_run"
    assert "has not finished uploading" in _checks(body, "format")["grande.pdf"]["message"]
    assert "grande.pdf" not in _checks(body, "virus")
