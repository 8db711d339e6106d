"""/submit/, the submitter's pages (issue 35, 2): a person who is not staff starts a draft in a
collection they submit to, fills in its profile's fields, files and licence, saves it, submits
it (a task waits for the reviewers; no item yet), and, once returned, reads why, changes it and
submits it again. Every bad input is refused with its reason and changes nothing: another's
submission (403), a stale form (409), a collection one does not submit to (403), the required
fields missing (the form again, the fields named). (In a browser, in Portuguese:
tests/test_browser_submit_pt.py.)"""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from archive.deposit import pending
from archive.models import (
    Item,
    PendingUpload,
    ProfileField,
    Submission,
    SubmissionProfile,
    Task,
    Transition,
)
from archive.review import services as review
from tests import factories as make

pytestmark = pytest.mark.django_db

LIST = "/submit/"


@pytest.fixture
def place():
    """"teses" (MTD-BR's thesis profile) and "relatorios" (a profile of three fields, the
    creator required), both reviewed once, with a deposit licence; alice submits to both, rita
    reviews them, carol submits nowhere."""
    unit = make.community("ppg")
    teses = make.collection("teses", unit, profile=SubmissionProfile.objects.get(slug="tese"),
                            deposit_licence=make.LICENCE)
    small = make.profile("relatorio", "dc.creator", "dc.subject", "dc.description")
    ProfileField.objects.filter(profile=small, field__element="creator").update(
        required=True, input_type="authority", authority="orcid",
        help_en="Surname, Name | ORCID iD", help_pt_br="Sobrenome, Nome | ORCID iD")
    reports = make.collection("relatorios", unit, profile=small,
                              deposit_licence=make.LICENCE, max_embargo_days=365)
    for collection in (teses, reports):
        make.reviewed(collection, submitter="Students", reviewer="Reviewers")
    people = {name: make.person(name, *groups) for name, groups in (
        ("alice", ["Students"]), ("rita", ["Reviewers"]), ("carol", []))}
    clients = {}
    for name, user in people.items():
        clients[name] = Client()
        clients[name].force_login(user)
    return {"teses": teses, "reports": reports, "people": people, "client": clients}


def _draft(place, **fields) -> Submission:
    return review.submission_create(user=place["people"]["alice"],
                                    collection=place["reports"], **fields)


def _url(submission: Submission) -> str:
    return f"/submit/{submission.pk}/"


def _form(submission: Submission, action: str = "save", **values) -> dict:
    """A report's form as a browser sends it: every field, the version read."""
    return {"version": submission.version, "title": "Relatório técnico", "language": "pt-BR",
            "md_dc_creator": "Silva, Ana | 0000-0002-1825-0097",
            "md_dc_subject": "redes\nsensores", "md_dc_description": "Um relatório.",
            "access_rights": "", "accept_licence": "on", "action": action, **values}


def _state(submission: Submission) -> tuple:
    """What a refusal must leave as it was."""
    found = Submission.objects.get(pk=submission.pk)
    return (found.state, found.version, found.title, found.metadata, found.files,
            Transition.objects.filter(submission=found).count(),
            Task.objects.filter(submission=found).count())


def test_the_pages_want_an_account():
    for url in (LIST, "/submit/1/"):
        response = Client().get(url, secure=True)
        assert response.status_code == 302
        assert response["Location"] == f"/accounts/login/?next={url}"


def _nav(response) -> list[str]:
    """The addresses the site header's navigation links to."""
    header = response.content.decode().split('<nav aria-label="Site">', 1)[1].split("</nav>")[0]
    return re.findall(r'href="([^"]+)"', header)


def test_the_header_links_to_the_pages_of_the_roles_one_holds(place):
    assert _nav(place["client"]["alice"].get("/", secure=True))[-2:] == [
        LIST, "/accounts/"]  # a submitter: Submit, My account
    assert _nav(place["client"]["rita"].get("/", secure=True))[-2:] == [
        "/review/", "/accounts/"]  # a reviewer: Review, My account
    assert _nav(place["client"]["carol"].get("/", secure=True))[-1:] == ["/accounts/"]
    assert not {LIST, "/review/"} & set(_nav(place["client"]["carol"].get("/", secure=True)))
    # A group given a role later: its members see the link at once (nothing kept per person).
    Group.objects.get(name="Students").user_set.add(place["people"]["rita"])
    assert {LIST, "/review/"} <= set(_nav(place["client"]["rita"].get("/", secure=True)))


def test_no_reader_is_given_a_page_showing_another_s_links(place):
    """Item pages are kept per process (site/views.py) for every reader, the header drawn per
    request: after a reviewer who submits too has read them, an anonymous reader gets them
    with a "Sign in" link only; and what showed the person's links told every cache it
    depends on the cookie, or was private."""
    Group.objects.get(name="Students").user_set.add(place["people"]["rita"])
    paper = make.item(title="Um artigo")
    pages = ["/", f"/items/{paper.ibi}", f"/items/{paper.ibi}/files", "/search?q=artigo",
             "/collections/teses", "/communities/ppg"]
    for url in pages:
        seen = place["client"]["rita"].get(url, secure=True)
        assert seen.status_code == 200, url
        assert {LIST, "/review/", "/accounts/"} <= set(_nav(seen)), url
        assert "Cookie" in seen.get("Vary", "") or "private" in seen.get(
            "Cache-Control", ""), (url, seen.headers)
        anonymous = Client().get(url, secure=True)
        assert anonymous.status_code == 200, url
        links = set(_nav(anonymous))
        assert "/accounts/login/" in links and not {LIST, "/review/", "/accounts/"} & links, url
        assert "Cookie" in anonymous.get("Vary", ""), url  # the cookie decides what it shows


def test_the_list_names_each_state_and_why_a_submission_was_returned(place):
    alice, rita = place["people"]["alice"], place["people"]["rita"]
    draft = _draft(place, title="Rascunho")
    back = make.submission(alice, place["reports"], title="Devolvido",
                           metadata=[{"field": "dc.creator", "value": "Silva, Ana"}])
    back = review.submit(user=alice, submission=back)
    task = Task.objects.get(submission=back)
    review.task_act(user=rita, task=task, action="claim")
    review.task_act(user=rita, task=task, action="return",
                           reason="Falta o resumo em inglês")
    page = place["client"]["alice"].get(LIST, secure=True)
    assert page.status_code == 200
    text = page.content.decode()
    assert "Rascunho" in text and "Devolvido" in text
    assert "Draft" in text and "Returned to the submitter" in text
    assert "Falta o resumo em inglês" in text
    assert f'href="/submit/{draft.pk}/"' in text
    # The collections alice submits to, to start a new one; carol's list offers none.
    assert '<option value="teses">' in text and '<option value="relatorios">' in text
    carol = place["client"]["carol"].get(LIST, secure=True).content.decode()
    assert "Rascunho" not in carol and '<option value="teses">' not in carol


def test_a_new_draft_in_a_collection_one_submits_to(place):
    response = place["client"]["alice"].post(LIST, {"collection": "teses"}, secure=True)
    made = Submission.objects.get(owner=place["people"]["alice"])
    assert response.status_code == 302
    assert response["Location"] == f"/submit/{made.pk}/?done=created"
    assert made.collection == place["teses"] and made.state == Submission.State.DRAFT


@pytest.mark.parametrize("slug, status", [("teses", 403), ("nowhere", 400), ("", 400)])
def test_a_draft_elsewhere_is_refused_and_nothing_is_made(place, slug, status):
    who = "carol" if slug == "teses" else "alice"
    response = place["client"][who].post(LIST, {"collection": slug}, secure=True)
    assert response.status_code == status
    assert "Nothing was changed." in response.content.decode()
    assert not Submission.objects.exists()


def test_the_form_is_the_collections_profile(place):
    submission = review.submission_create(user=place["people"]["alice"],
                                          collection=place["teses"])
    text = place["client"]["alice"].get(_url(submission), secure=True).content.decode()
    # Labels, required marks, help; a short controlled list as a select, CNPq's as boxes
    # offering its terms (a datalist); a repeatable field takes one value a line.
    assert '<label for="id_md_dc_contributor_advisor">Advisor' in text
    assert 'id="id_md_dc_contributor_advisor_helptext"' in text
    assert text.count('class="needed"') >= 12
    assert '<select name="md_local_degree_level"' in text and ">Doctorate<" in text
    assert 'list="id_md_dc_subject_cnpq-list"' in text and "<datalist" in text
    assert '<textarea name="md_dc_subject_pt_br"' in text
    # The licence to accept, the access within the collection's rules, the uploader.
    assert make.LICENCE in text and 'name="accept_licence"' in text
    assert 'max="' + (timezone.localdate() + timedelta(days=730)).isoformat() in text
    assert 'data-endpoint="/api/uploads/"' in text and 'name="upload"' in text
    assert 'value="save"' in text and 'value="submit"' in text


def test_a_draft_is_saved_then_submitted_and_a_task_waits(place):
    client, submission = place["client"]["alice"], _draft(place)
    response = client.post(_url(submission), _form(submission), secure=True)
    assert response.status_code == 302 and response["Location"].endswith("?done=saved")
    saved = Submission.objects.get(pk=submission.pk)
    assert saved.state == Submission.State.DRAFT and saved.title == "Relatório técnico"
    assert {"field": "dc.creator", "value": "Silva, Ana", "language": "",
            "authority": "0000-0002-1825-0097", "confidence": 600} in saved.metadata
    assert [r["value"] for r in saved.metadata if r["field"] == "dc.subject"] == [
        "redes", "sensores"]
    assert saved.licence_text == make.LICENCE and saved.licence_accepted_at is not None
    # Back to it: the form holds what was saved.
    text = client.get(_url(saved), secure=True).content.decode()
    assert 'value="Relatório técnico"' in text and "Silva, Ana | 0000-0002-1825-0097" in text
    assert "Saved as a draft." not in text  # said once, after the save only
    # Its checks are owed (they run off the request: tests/test_submission_checks.py).
    assert "The checks are running; reload the page in a moment." in text

    response = client.post(_url(saved), _form(saved, "submit"), secure=True)
    assert response.status_code == 302 and response["Location"].endswith("?done=submitted")
    done = Submission.objects.get(pk=submission.pk)
    assert done.state == Submission.State.IN_REVIEW and done.item is None
    assert Task.objects.get(submission=done, closed__isnull=True).role == "reviewer"
    assert not Item.objects.filter(title="Relatório técnico").exists()  # no item before review
    # Now read only, its history shown to its submitter.
    text = client.get(_url(done), secure=True).content.decode()
    assert 'name="action" value="save"' not in text
    assert "submitted it" in text and "In review" in text
    assert "<dt>Creator</dt><dd>Silva, Ana (0000-0002-1825-0097)</dd>" in text
    assert "<dd>redes<br>sensores</dd>" in text


def test_missing_required_fields_are_named_and_nothing_is_changed(place):
    client, submission = place["client"]["alice"], _draft(place)
    before = _state(submission)
    response = client.post(_url(submission), _form(
        submission, "submit", title="", md_dc_creator="", accept_licence=""), secure=True)
    assert response.status_code == 400
    text = response.content.decode()
    assert "Nothing was saved. Correct these fields:" in text
    for field in ("id_title", "id_md_dc_creator", "id_accept_licence"):
        assert f'<a href="#{field}">' in text and f'id="{field}_error"' in text
    assert 'value="redes' not in text and "redes\nsensores" in text  # what was typed, kept
    assert _state(submission) == before


def test_a_form_sent_back_keeps_the_files_uploaded_meanwhile(place, settings, tmp_path):
    """A file uploaded (by tus) while the form was open, then the form refused: the form
    sent back still lists it, ticked, and saving it then names it."""
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    client, submission = place["client"]["alice"], _draft(place)
    upload = pending.keep(owner=place["people"]["alice"],
                          file=SimpleUploadedFile("novo.pdf", b"%PDF novo"))
    response = client.post(_url(submission), _form(submission, "submit", title="",
                                                   pending=[str(upload.pk)]), secure=True)
    assert response.status_code == 400
    assert f'name="pending" value="{upload.pk}" id="id_pending_0" checked' in \
        response.content.decode()
    client.post(_url(submission), _form(submission, pending=[str(upload.pk)]), secure=True)
    assert Submission.objects.get(pk=submission.pk).files == [str(upload.pk)]


def test_a_refusal_of_the_services_names_its_field(place):
    """The services' own checks (here a creator's ORCID iD of the wrong form) come back as
    the field's error."""
    client, submission = place["client"]["alice"], _draft(place)
    before = _state(submission)
    response = client.post(_url(submission), _form(
        submission, md_dc_creator="Silva, Ana | 12345"), secure=True)
    assert response.status_code == 400
    assert 'id="id_md_dc_creator_error"' in response.content.decode()
    assert _state(submission) == before


def test_a_stale_form_is_a_409_and_nothing_is_changed(place):
    client, submission = place["client"]["alice"], _draft(place)
    old = _form(submission)
    review.submission_update(user=place["people"]["alice"], submission=submission,
                             version=submission.version, title="Mudado noutra janela")
    submission.refresh_from_db()
    before = _state(submission)
    for action in ("save", "submit", "withdraw"):
        response = client.post(_url(submission), {**old, "action": action}, secure=True)
        assert response.status_code == 409
        text = response.content.decode()
        assert "This submission changed meanwhile" in text and "Nothing was saved" in text
        assert f'href="/submit/{submission.pk}/"' in text
        assert _state(submission) == before


@pytest.mark.parametrize("method", ["get", "post"])
def test_another_persons_submission_is_403_and_nothing_is_changed(place, method):
    submission = _draft(place, title="De Alice")
    before = _state(submission)
    for who in ("carol", "rita"):
        client = place["client"][who]
        response = (client.get(_url(submission), secure=True) if method == "get" else
                    client.post(_url(submission), _form(submission, "submit"), secure=True))
        assert response.status_code == 403
        assert "De Alice" not in response.content.decode()
    assert _state(submission) == before
    assert place["client"]["alice"].get("/submit/999999/", secure=True).status_code == 404


@pytest.mark.parametrize("values, status", [
    ({"action": "publish"}, 400), ({"action": ""}, 400), ({"version": "x"}, 400),
    ({"version": ""}, 400)])
def test_a_malformed_form_is_a_400_and_nothing_is_changed(place, values, status):
    client, submission = place["client"]["alice"], _draft(place)
    before = _state(submission)
    response = client.post(_url(submission), _form(submission, **{"action": "save",
                                                                  **values}), secure=True)
    assert response.status_code == status
    assert _state(submission) == before


def test_a_returned_submission_shows_why_and_is_submitted_again(place):
    alice, rita = place["people"]["alice"], place["people"]["rita"]
    client, submission = place["client"]["alice"], _draft(place)
    client.post(_url(submission), _form(submission, "submit"), secure=True)
    task = Task.objects.get(submission=submission)
    review.task_act(user=rita, task=task, action="claim")
    review.task_act(user=rita, task=task, action="return",
                           reason="Acrescente as palavras-chave em inglês")
    returned = Submission.objects.get(pk=submission.pk)
    text = client.get(_url(returned), secure=True).content.decode()
    assert "Returned to you by the reviewer." in text
    assert "Acrescente as palavras-chave em inglês" in text
    assert 'value="submit"' in text and "Submit again" in text

    response = client.post(_url(returned), _form(
        returned, "submit", md_dc_subject="redes\nsensores\nsensor networks"), secure=True)
    assert response.status_code == 302
    again = Submission.objects.get(pk=submission.pk)
    assert again.state == Submission.State.IN_REVIEW
    assert Task.objects.filter(submission=again, closed__isnull=True).count() == 1
    assert "resubmit" in {t.action for t in again.transitions.all()}
    assert again.owner == alice


def test_withdrawn_before_approval(place):
    client, submission = place["client"]["alice"], _draft(place)
    client.post(_url(submission), _form(submission, "submit"), secure=True)
    submission.refresh_from_db()
    text = client.get(_url(submission), secure=True).content.decode()
    assert "Withdraw this submission" in text
    response = client.post(_url(submission), {"action": "withdraw",
                                              "version": submission.version,
                                              "reason": "Enviado por engano"}, secure=True)
    assert response.status_code == 302
    gone = Submission.objects.get(pk=submission.pk)
    assert gone.state == Submission.State.WITHDRAWN
    assert not Task.objects.filter(submission=gone, closed__isnull=True).exists()
    text = client.get(_url(gone), secure=True).content.decode()
    assert "Withdraw this submission" not in text and "Enviado por engano" in text


def test_files_sent_with_the_form_wait_in_the_pending_store(place, settings, tmp_path):
    """Without JavaScript: the files go with the form, and land where a resumable upload's
    would (archive/deposit/pending.py), the submission naming them; a later save keeps them."""
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    client, submission = place["client"]["alice"], _draft(place)
    document = SimpleUploadedFile("relatorio.pdf", b"%PDF-1.4 relatorio",
                                  content_type="application/pdf")
    response = client.post(_url(submission), {**_form(submission), "upload": document},
                           secure=True)
    assert response.status_code == 302
    saved = Submission.objects.get(pk=submission.pk)
    upload = PendingUpload.objects.get(pk=saved.files[0])
    assert upload.owner == place["people"]["alice"] and upload.name == "relatorio.pdf"
    assert pending.path_of(upload).read_bytes() == b"%PDF-1.4 relatorio"
    text = client.get(_url(saved), secure=True).content.decode()
    assert f'name="pending" value="{upload.pk}"' in text and "relatorio.pdf" in text
    client.post(_url(saved), {**_form(saved), "pending": [str(upload.pk)]}, secure=True)
    assert Submission.objects.get(pk=submission.pk).files == [str(upload.pk)]
    # Another person's upload is not theirs to name.
    other = pending.keep(owner=place["people"]["carol"], file=SimpleUploadedFile("x.pdf", b"x"))
    saved.refresh_from_db()
    before = _state(saved)
    response = client.post(_url(saved), {**_form(saved), "pending": [str(other.pk)]},
                           secure=True)
    assert response.status_code == 400 and _state(saved) == before


def test_access_and_embargo_within_the_collections_rules(place):
    client, submission = place["client"]["alice"], _draft(place)
    soon = timezone.localdate() + timedelta(days=100)
    response = client.post(_url(submission), _form(
        submission, access_rights="embargoed", embargo_until=soon.isoformat()), secure=True)
    assert response.status_code == 302
    saved = Submission.objects.get(pk=submission.pk)
    assert (saved.access_rights, saved.embargo_until) == ("embargoed", soon)
    before = _state(saved)
    too_far = timezone.localdate() + timedelta(days=366)  # "relatorios": 365 days at most
    for values in ({"embargo_until": too_far.isoformat()}, {"embargo_until": ""}):
        response = client.post(_url(saved), _form(saved, access_rights="embargoed", **values),
                               secure=True)
        assert response.status_code == 400
        assert 'id="id_embargo_until_error"' in response.content.decode()
        assert _state(saved) == before


def test_a_submitter_uploads_by_tus_and_a_person_with_no_role_may_not(place):
    headers = {"HTTP_TUS_RESUMABLE": "1.0.0", "HTTP_UPLOAD_LENGTH": "4",
               "HTTP_UPLOAD_METADATA": "filename dC5wZGY="}
    made = place["client"]["alice"].post("/api/uploads/", secure=True, **headers)
    assert made.status_code == 201
    assert PendingUpload.objects.get().owner == place["people"]["alice"]
    assert place["client"]["carol"].post("/api/uploads/", secure=True,
                                         **headers).status_code == 403
    assert PendingUpload.objects.count() == 1


def test_a_role_held_through_a_group_added_later_opens_the_collection(place):
    carol = place["people"]["carol"]
    carol.groups.add(Group.objects.get(name="Students"))
    response = place["client"]["carol"].post(LIST, {"collection": "relatorios"}, secure=True)
    assert response.status_code == 302
    assert Submission.objects.get(owner=carol).collection == place["reports"]


def _pages(place, headers: dict) -> dict:
    """The list, the thesis form (and with errors), a submission in review read only, a
    stale form's refusal, another's submission."""
    alice, rita = place["people"]["alice"], place["people"]["rita"]
    client = place["client"]["alice"]
    thesis = review.submission_create(user=alice, collection=place["teses"])
    sent = _draft(place)
    client.post(_url(sent), _form(sent, "submit"), secure=True)
    review.task_act(user=rita, task=Task.objects.get(submission=sent), action="claim")
    pages = {
        "list": client.get(LIST, secure=True, **headers),
        "form": client.get(_url(thesis), secure=True, **headers),
        "form, errors": client.post(_url(thesis), {"version": thesis.version,
                                                   "action": "submit"}, secure=True,
                                    **headers),
        "in review": client.get(_url(sent), secure=True, **headers),
        "stale": client.post(_url(thesis), {"version": 0, "action": "save"}, secure=True,
                             **headers),
        "not yours": place["client"]["carol"].get(_url(thesis), secure=True, **headers),
    }
    assert {name: r.status_code for name, r in pages.items()} == {
        "list": 200, "form": 200, "form, errors": 400, "in review": 200, "stale": 409,
        "not yours": 403}
    return {name: r.content.decode() for name, r in pages.items()}


def test_every_page_is_in_portuguese_for_a_reader_who_prefers_it(place):
    """Scanned as tests/test_i18n_site.py scans the public pages."""
    from tests.test_i18n_site import PT, _catalogue, untranslated

    pages, catalogue = _pages(place, PT), _catalogue()
    problems = {name: untranslated(html, catalogue) for name, html in pages.items()}
    assert {name: found for name, found in problems.items() if found} == {}
    assert "Suas submissões" in pages["list"]
    assert "Nada foi salvo. Corrija estes campos:" in pages["form, errors"]


def test_every_page_has_no_nu_html_checker_error(place, tmp_path):
    from tests.test_page_checks import nu_errors

    pages = _pages(place, {})
    assert nu_errors(pages, tmp_path) == {}


def test_a_submissions_files_wait_as_long_as_its_review(place, settings, tmp_path):
    """An upload expires a day after its last byte, but not while a submission on its way
    names it: the review may take weeks. Withdrawn, its files go at the next sweep."""
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    alice = place["people"]["alice"]
    named = pending.keep(owner=alice, file=SimpleUploadedFile("tese.pdf", b"%PDF tese"))
    loose = pending.keep(owner=alice, file=SimpleUploadedFile("solta.pdf", b"%PDF solta"))
    submission = make.submission(alice, place["reports"], files=[str(named.pk)])
    submission = review.submit(user=alice, submission=submission)
    PendingUpload.objects.update(expires=timezone.now() - timedelta(seconds=1))
    assert [s.name for s in pending.sweep(0) if s.what == "expired"] == ["solta.pdf"]
    assert PendingUpload.objects.filter(pk=named.pk).exists()
    assert not PendingUpload.objects.filter(pk=loose.pk).exists()
    review.withdraw(user=alice, submission=submission)
    assert [s.name for s in pending.sweep(0) if s.what == "expired"] == ["tese.pdf"]
